//===- CompareTest.cpp - Helpers of the stage comparison ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Compare.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace qfx;

namespace {

TEST(Compare, Float32Ulps) {
  EXPECT_EQ(getFloat32Ulps(0.5, 0.5), 0);
  // Equal as float32, though not as doubles.
  EXPECT_EQ(getFloat32Ulps(0.1, static_cast<float>(0.1)), 0);
  float next = std::nextafter(0.5f, 1.0f);
  EXPECT_EQ(getFloat32Ulps(0.5, next), 1);
  EXPECT_EQ(getFloat32Ulps(next, 0.5), 1);
  EXPECT_EQ(getFloat32Ulps(0.5, std::nextafter(next, 1.0f)), 2);
  // Across a power of two, and across zero.
  EXPECT_EQ(getFloat32Ulps(std::nextafter(0.5f, 0.0f), next), 2);
  EXPECT_EQ(getFloat32Ulps(-0.0, 0.0), 0);
  EXPECT_EQ(
      getFloat32Ulps(-std::nextafter(0.0f, 1.0f), std::nextafter(0.0f, 1.0f)),
      2);
}

} // namespace
