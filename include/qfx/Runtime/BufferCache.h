//===- BufferCache.h - Reused buffers for compiled programs -------*- C++
//-*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The heap buffers of the programs CompiledModel runs (activations, padded
// copies) come from one process-wide cache instead of malloc: a freed
// buffer is kept for the next allocation of the same size and alignment,
// which every call of a model makes again. glibc serves large buffers with
// mmap and returns them with munmap, so without the cache every call faults
// in and zeroes fresh pages.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_RUNTIME_BUFFERCACHE_H
#define QFX_RUNTIME_BUFFERCACHE_H

#include <cstddef>

namespace qfx {

/// A buffer of `size` bytes aligned to `alignment` (a power of two): a
/// cached one of that size and alignment, else a new one. Null if the
/// system has no memory.
void *allocateBuffer(size_t size, size_t alignment);
/// Gives back a buffer of allocateBuffer: kept for reuse while the cache
/// holds less than kMaxCachedBytes, else freed. Null does nothing.
void releaseBuffer(void *buffer);

/// What the cache holds: bytes in buffers handed out now, the most handed
/// out at once since resetBufferPeak, and bytes kept for reuse.
struct BufferStats {
  size_t liveBytes = 0, peakBytes = 0, cachedBytes = 0;
};
BufferStats getBufferStats();
/// Starts a new peak: from the bytes handed out now.
void resetBufferPeak();

/// The most the cache keeps for reuse; beyond it freed buffers are freed.
inline constexpr size_t kMaxCachedBytes = size_t{2} << 30;

} // namespace qfx

#endif // QFX_RUNTIME_BUFFERCACHE_H
