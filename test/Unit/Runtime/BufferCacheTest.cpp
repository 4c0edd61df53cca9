//===- BufferCacheTest.cpp - Reused buffers for compiled programs ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/BufferCache.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>

using namespace qfx;

namespace {

TEST(BufferCache, AFreedBufferServesTheNextOfItsSizeAndAlignment) {
  resetBufferPeak();
  BufferStats before = getBufferStats();
  void *a = allocateBuffer(1000, 64);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  std::memset(a, 1, 1000); // usable whole
  void *b = allocateBuffer(1000, 64);
  EXPECT_NE(a, b);
  EXPECT_EQ(getBufferStats().liveBytes, before.liveBytes + 2000);
  EXPECT_EQ(getBufferStats().peakBytes, before.liveBytes + 2000);
  releaseBuffer(b);
  releaseBuffer(a);
  EXPECT_EQ(getBufferStats().liveBytes, before.liveBytes);
  EXPECT_EQ(getBufferStats().cachedBytes, before.cachedBytes + 2000);
  // The same size and alignment: a kept buffer (the last one given back).
  void *c = allocateBuffer(1000, 64);
  EXPECT_TRUE(c == a || c == b);
  EXPECT_EQ(getBufferStats().cachedBytes, before.cachedBytes + 1000);
  // Another size or alignment: not one of those.
  void *d = allocateBuffer(999, 64);
  void *e = allocateBuffer(1000, 128);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(e) % 128, 0u);
  for (void *kept : {a, b})
    if (kept != c) {
      EXPECT_NE(d, kept);
      EXPECT_NE(e, kept);
    }
  // The peak is the most handed out at once since the reset.
  EXPECT_EQ(getBufferStats().peakBytes, before.liveBytes + 2999);
  for (void *buffer : {c, d, e})
    releaseBuffer(buffer);
  resetBufferPeak();
  EXPECT_EQ(getBufferStats().peakBytes, before.liveBytes);
  releaseBuffer(nullptr); // nothing
}

TEST(BufferCache, SmallAlignmentsAndEmptyBuffersWork) {
  void *a = allocateBuffer(0, 1);
  ASSERT_NE(a, nullptr);
  void *b = allocateBuffer(3, 2);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % alignof(std::max_align_t), 0u);
  releaseBuffer(a);
  releaseBuffer(b);
}

} // namespace
