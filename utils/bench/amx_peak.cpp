//===- amx_peak.cpp - tdpbusd throughput on one thread --------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Prints the int8 GOPS of back-to-back tdpbusd (16x16 int32 += 16x64 u8 x
// 64x16 s8, 2 x 16 x 16 x 64 operations each) on four independent
// accumulator tiles, after asking Linux for AMX tile data; prints "none"
// where the CPU or Linux has no AMX (the request is refused). Built with
// clang++-22 -O2 -mamx-tile -mamx-int8 by utils/bench/gemm_vs_peers.py.
//
//===----------------------------------------------------------------------===//

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

struct TileConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t columnBytes[16] = {};
  uint8_t rows[16] = {};
} __attribute__((packed));

constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;

} // namespace

int main() {
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    std::puts("none");
    return 0;
  }
  TileConfig config;
  for (int tile = 0; tile < 8; ++tile) {
    config.rows[tile] = 16;
    config.columnBytes[tile] = 64;
  }
  alignas(64) static int8_t a[16 * 64], b[16 * 64];
  std::memset(a, 1, sizeof a);
  std::memset(b, 1, sizeof b);
  asm volatile("ldtilecfg %0" ::"m"(config));
  asm volatile("tileloadd (%0,%1,1), %%tmm4" ::"r"(a), "r"(64L));
  asm volatile("tileloadd (%0,%1,1), %%tmm5" ::"r"(b), "r"(64L));
  asm volatile("tilezero %%tmm0\n\ttilezero %%tmm1\n\t"
               "tilezero %%tmm2\n\ttilezero %%tmm3" ::);
  constexpr long kIterations = 20000000;
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < kIterations; ++i)
    asm volatile("tdpbusd %%tmm5, %%tmm4, %%tmm0\n\t"
                 "tdpbusd %%tmm5, %%tmm4, %%tmm1\n\t"
                 "tdpbusd %%tmm5, %%tmm4, %%tmm2\n\t"
                 "tdpbusd %%tmm5, %%tmm4, %%tmm3" ::);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  asm volatile("tilerelease" ::);
  std::printf("%.1f\n", kIterations * 4.0 * 2 * 16 * 16 * 64 / seconds / 1e9);
  return 0;
}
