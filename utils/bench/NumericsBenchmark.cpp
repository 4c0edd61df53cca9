//===- NumericsBenchmark.cpp - Observer throughput --------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Google Benchmark of the qfx observers on the tensor sizes that
// utils/bench/bench_numerics_vs_torch.py times PyTorch 1.13 on. Reports the
// bytes of float32 input observed per second. Build and run:
//
//   cmake -G Ninja -S bench -B build-bench -DCMAKE_BUILD_TYPE=Release \
//       -DCMAKE_CXX_COMPILER=clang++-22
//       -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm
//   ninja -C build-bench && build-bench/qfx-numerics-bench
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/Observer.h"

#include "benchmark/benchmark.h"

#include <cstdlib>
#include <random>

using namespace qfx;

namespace {

std::vector<float> makeTensor(int64_t n) {
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> data(n);
  for (float &v : data)
    v = dist(rng);
  return data;
}

Observer makeObserver(const ObserverSpec &spec) {
  auto observer = Observer::create(spec);
  if (!observer) {
    llvm::errs() << llvm::toString(observer.takeError()) << "\n";
    std::abort();
  }
  return std::move(*observer);
}

void observeLoop(benchmark::State &state, const ObserverSpec &spec,
                 llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<float> data = makeTensor(n);
  Observer observer = makeObserver(spec);
  for (auto _ : state) {
    if (llvm::Error err = observer.observe(data, shape, "bench")) {
      state.SkipWithError(llvm::toString(std::move(err)).c_str());
      return;
    }
    benchmark::DoNotOptimize(observer.getState().minVals.data());
  }
  state.SetBytesProcessed(state.iterations() * n *
                          static_cast<int64_t>(sizeof(float)));
}

void BM_MinMax(benchmark::State &state) {
  observeLoop(state, ObserverSpec(ObserverKind::MinMax), {state.range(0)});
}

void BM_PerChannelMinMax(benchmark::State &state) {
  ObserverSpec spec(ObserverKind::PerChannelMinMax);
  spec.chAxis = state.range(0);
  std::vector<int64_t> shape;
  for (int i = 1; i < 5; ++i)
    shape.push_back(state.range(i));
  observeLoop(state, spec, shape);
}

void BM_Histogram(benchmark::State &state) {
  observeLoop(state, ObserverSpec(ObserverKind::Histogram), {state.range(0)});
}

void BM_HistogramQParams(benchmark::State &state) {
  std::vector<float> data = makeTensor(state.range(0));
  Observer observer = makeObserver(ObserverSpec(ObserverKind::Histogram));
  if (llvm::Error err = observer.observe(data, {}, "bench")) {
    state.SkipWithError(llvm::toString(std::move(err)).c_str());
    return;
  }
  for (auto _ : state) {
    auto qparams = observer.calculateQParams();
    if (!qparams) {
      state.SkipWithError(llvm::toString(qparams.takeError()).c_str());
      return;
    }
    benchmark::DoNotOptimize(qparams->scales.data());
  }
}

} // namespace

BENCHMARK(BM_MinMax)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();
// Conv weight [256, 256, 3, 3] along axis 0, activation [32, 64, 56, 56]
// along axis 1, linear weight [4096, 1024] (as [4096, 1024, 1, 1]) along 0,
// and channels-last [8, 56, 56, 64] along 3.
BENCHMARK(BM_PerChannelMinMax)
    ->Args({0, 256, 256, 3, 3})
    ->Args({1, 32, 64, 56, 56})
    ->Args({0, 4096, 1024, 1, 1})
    ->Args({3, 8, 56, 56, 64})
    ->UseRealTime();
BENCHMARK(BM_Histogram)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 24)
    ->UseRealTime();
BENCHMARK(BM_HistogramQParams)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
