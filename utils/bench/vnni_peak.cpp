// Measures this machine's single-thread vpdpbusd throughput (int8 peak):
// 12 independent accumulator chains, 16 lanes x 4 multiply-adds each.
// Prints GOPS (one multiply-add = 2 operations).
#include <chrono>
#include <cstdio>
#include <immintrin.h>

__attribute__((target("avx512vnni,avx512bw,avx512f"))) int main() {
  __m512i acc[12];
  for (auto &a : acc)
    a = _mm512_setzero_si512();
  __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-2);
  const long iterations = 50'000'000;
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i)
    for (auto &a : acc)
      a = _mm512_dpbusd_epi32(a, x, y);
  auto t1 = std::chrono::steady_clock::now();
  int sink = 0;
  for (auto &a : acc)
    sink += _mm512_reduce_add_epi32(a);
  double seconds = std::chrono::duration<double>(t1 - t0).count();
  double ops = 2.0 * 64 * 12 * iterations;
  std::printf("%.1f\n", ops / seconds / 1e9 + (sink == 42 ? 1e-9 : 0));
  return 0;
}
