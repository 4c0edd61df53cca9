//===- onednn_timing.h - Median time of a oneDNN primitive ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// What the oneDNN bench programs (onednn_matmul.cpp, onednn_conv.cpp) share:
// packing the weights, filling the inputs and the timing loop. Header-only:
// they are each built from one source file by utils/bench/peers.py, which finds
// this header next to them.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_UTILS_BENCH_ONEDNN_TIMING_H
#define QFX_UTILS_BENCH_ONEDNN_TIMING_H

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <vector>

/// Runs PRIM on STRM with ARGS (e.g. DNNL_ARG_SRC, DNNL_ARG_WEIGHTS,
/// DNNL_ARG_BIAS, DNNL_ARG_DST), waiting for the stream after each run: 3
/// untimed warm-up runs, then REPEATS timed ones (steady_clock). Prints the
/// median of the timed runs in milliseconds ("%.6f\n") on stdout.
inline void printMedianMs(const dnnl::primitive &prim, dnnl::stream &strm,
                          const std::unordered_map<int, dnnl::memory> &args,
                          long repeats) {
  auto run = [&] {
    prim.execute(strm, args);
    strm.wait();
  };
  for (int i = 0; i < 3; ++i)
    run();
  std::vector<double> times;
  for (long r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  std::printf("%.6f\n", times[times.size() / 2]);
}

/// The weights in PACKED's layout (the primitive's choice), reordered once
/// from a PLAIN buffer filled with a fixed pattern, as qfx packs its weights
/// at compile time.
inline dnnl::memory packWeights(const dnnl::memory::desc &plain,
                                const dnnl::memory::desc &packed,
                                const dnnl::engine &eng, dnnl::stream &strm) {
  dnnl::memory plainMem(plain, eng), packedMem(packed, eng);
  auto *w = static_cast<int8_t *>(plainMem.get_data_handle());
  for (size_t i = 0; i < plain.get_size(); ++i)
    w[i] = static_cast<int8_t>(static_cast<long>(i) * 7 % 255 - 127);
  dnnl::reorder(plainMem, packedMem).execute(strm, plainMem, packedMem);
  strm.wait();
  return packedMem;
}

/// printMedianMs for a primitive with a u8 source (filled with a fixed
/// pattern), WEIGHTS, an s32 BIAS (all 100) and a destination, all but the
/// weights in the layouts of PD.
template <typename PrimitiveDesc>
void printMedianMs(const dnnl::primitive &prim, const PrimitiveDesc &pd,
                   const dnnl::memory::desc &bias, const dnnl::memory &weights,
                   const dnnl::engine &eng, dnnl::stream &strm, long repeats) {
  dnnl::memory srcMem(pd.src_desc(), eng), biasMem(bias, eng),
      dstMem(pd.dst_desc(), eng);
  auto *s = static_cast<uint8_t *>(srcMem.get_data_handle());
  for (size_t i = 0; i < pd.src_desc().get_size(); ++i)
    s[i] = static_cast<uint8_t>(i * 13 % 256);
  std::fill_n(static_cast<int32_t *>(biasMem.get_data_handle()),
              bias.get_size() / sizeof(int32_t), 100);
  printMedianMs(prim, strm,
                {{DNNL_ARG_SRC, srcMem},
                 {DNNL_ARG_WEIGHTS, weights},
                 {DNNL_ARG_BIAS, biasMem},
                 {DNNL_ARG_DST, dstMem}},
                repeats);
}

#endif // QFX_UTILS_BENCH_ONEDNN_TIMING_H
