//===- BufferCache.cpp - Reused buffers for compiled programs -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/BufferCache.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace qfx {
namespace {

struct Cache {
  std::mutex mutex;
  /// Handed-out buffers: size and alignment.
  std::unordered_map<void *, std::pair<size_t, size_t>> live;
  /// Kept buffers by (size, alignment).
  std::map<std::pair<size_t, size_t>, std::vector<void *>> kept;
  BufferStats stats;
};

Cache &getCache() {
  static Cache *cache = new Cache; // never destroyed: programs may outlive
                                   // static destructors' order
  return *cache;
}

} // namespace

void *allocateBuffer(size_t size, size_t alignment) {
  alignment = std::max(alignment, alignof(std::max_align_t));
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  std::pair<size_t, size_t> key{size, alignment};
  void *buffer = nullptr;
  auto kept = cache.kept.find(key);
  if (kept != cache.kept.end() && !kept->second.empty()) {
    buffer = kept->second.back();
    kept->second.pop_back();
    cache.stats.cachedBytes -= size;
  } else {
    // aligned_alloc wants a multiple of the alignment (and not 0).
    size_t rounded =
        std::max((size + alignment - 1) / alignment * alignment, alignment);
    buffer = std::aligned_alloc(alignment, rounded);
    if (!buffer)
      return nullptr;
  }
  cache.live.emplace(buffer, key);
  cache.stats.liveBytes += size;
  cache.stats.peakBytes =
      std::max(cache.stats.peakBytes, cache.stats.liveBytes);
  return buffer;
}

void releaseBuffer(void *buffer) {
  if (!buffer)
    return;
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto live = cache.live.find(buffer);
  if (live == cache.live.end()) {
    // Not the cache's (a program freeing what it did not allocate here):
    // the C library's.
    std::free(buffer);
    return;
  }
  std::pair<size_t, size_t> key = live->second;
  cache.live.erase(live);
  cache.stats.liveBytes -= key.first;
  if (cache.stats.cachedBytes + key.first > kMaxCachedBytes) {
    std::free(buffer);
    return;
  }
  cache.kept[key].push_back(buffer);
  cache.stats.cachedBytes += key.first;
}

BufferStats getBufferStats() {
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.stats;
}

void resetBufferPeak() {
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.stats.peakBytes = cache.stats.liveBytes;
}

} // namespace qfx
