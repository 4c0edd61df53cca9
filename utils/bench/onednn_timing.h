//===- onednn_timing.h - Median time of a oneDNN primitive ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The timing loop the oneDNN bench programs (onednn_matmul.cpp,
// onednn_conv.cpp) share. Header-only: they are each built from one source
// file by utils/bench/peers.py, which finds this header next to them.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_UTILS_BENCH_ONEDNN_TIMING_H
#define QFX_UTILS_BENCH_ONEDNN_TIMING_H

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
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

#endif // QFX_UTILS_BENCH_ONEDNN_TIMING_H
