#!/usr/bin/python3
# ===- bench_numerics_vs_torch.py - qfx observers vs PyTorch 1.13 ---------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# Times PyTorch 1.13's observers on the tensors of
# utils/bench/NumericsBenchmark.cpp and runs that benchmark, interleaved case
# by case and repeated (the machine is noisy), then prints the median GB/s of
# each side and their ratio. Usage:
#
#   cmake -G Ninja -S bench -B build-bench -DCMAKE_BUILD_TYPE=Release \
#       -DCMAKE_CXX_COMPILER=clang++-22 \
#       -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm
#   ninja -C build-bench qfx-numerics-bench
#   /usr/bin/python3 utils/bench/bench_numerics_vs_torch.py \
#       --bench build-bench/qfx-numerics-bench --rounds 5
#
# Both sides run on one thread (qfx's observers are single-threaded); pass
# --torch-threads 0 to let PyTorch use its default thread count.
#
# ===----------------------------------------------------------------------===#

import argparse
import json
import statistics
import subprocess
import time
import warnings

import torch
from torch.ao.quantization import observer as tob

warnings.filterwarnings("ignore")

# (benchmark name, PyTorch observer factory, shape, what is measured)
CASES = [
    ("BM_MinMax/65536", lambda: tob.MinMaxObserver(), [1 << 16], "observe"),
    ("BM_MinMax/1048576", lambda: tob.MinMaxObserver(), [1 << 20],
     "observe"),
    ("BM_MinMax/16777216", lambda: tob.MinMaxObserver(), [1 << 24],
     "observe"),
    ("BM_PerChannelMinMax/0/256/256/3/3",
     lambda: tob.PerChannelMinMaxObserver(ch_axis=0), [256, 256, 3, 3],
     "observe"),
    ("BM_PerChannelMinMax/1/32/64/56/56",
     lambda: tob.PerChannelMinMaxObserver(ch_axis=1), [32, 64, 56, 56],
     "observe"),
    ("BM_PerChannelMinMax/0/4096/1024/1/1",
     lambda: tob.PerChannelMinMaxObserver(ch_axis=0), [4096, 1024, 1, 1],
     "observe"),
    ("BM_PerChannelMinMax/3/8/56/56/64",
     lambda: tob.PerChannelMinMaxObserver(ch_axis=3), [8, 56, 56, 64],
     "observe"),
    ("BM_Histogram/65536", lambda: tob.HistogramObserver(), [1 << 16],
     "observe"),
    ("BM_Histogram/1048576", lambda: tob.HistogramObserver(), [1 << 20],
     "observe"),
    ("BM_Histogram/16777216", lambda: tob.HistogramObserver(), [1 << 24],
     "observe"),
    ("BM_HistogramQParams/1048576", lambda: tob.HistogramObserver(),
     [1 << 20], "qparams"),
]


def run_qfx(bench, name, min_time):
    out = subprocess.run(
        [bench, "--benchmark_filter=^%s/real_time$" % name, "--benchmark_format=json",
         "--benchmark_min_time=%g" % min_time],
        check=True, capture_output=True, text=True).stdout
    entry = json.loads(out)["benchmarks"][0]
    if "bytes_per_second" in entry:
        return entry["bytes_per_second"] / 1e9
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[entry["time_unit"]]
    return entry["real_time"] * unit


def run_torch(make, shape, what, min_time):
    torch.manual_seed(42)
    x = torch.randn(shape)
    obs = make()
    obs(x)  # warm up; the first histogram batch takes another path
    if what == "qparams":
        reps, start = 0, time.perf_counter()
        while True:
            obs.calculate_qparams()
            reps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                return elapsed / reps
    reps, start = 0, time.perf_counter()
    while True:
        obs(x)
        reps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return x.numel() * 4 * reps / elapsed / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bench", required=True,
                        help="path to qfx-numerics-bench")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.3)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--filter", default="",
                        help="only cases whose name contains this")
    args = parser.parse_args()
    if args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)

    cases = [c for c in CASES if args.filter in c[0]]
    qfx = {c[0]: [] for c in cases}
    pt = {c[0]: [] for c in cases}
    for _ in range(args.rounds):
        for name, make, shape, what in cases:
            qfx[name].append(run_qfx(args.bench, name, args.min_time))
            pt[name].append(run_torch(make, shape, what, args.min_time))

    print("torch %s, %d thread(s), %d rounds, medians"
          % (torch.__version__, torch.get_num_threads(), args.rounds))
    print("%-38s %14s %14s %8s" % ("case", "qfx", "pytorch", "qfx/pt"))
    for name, _, _, what in cases:
        q, p = statistics.median(qfx[name]), statistics.median(pt[name])
        if what == "qparams":
            print("%-38s %11.2f ms %11.2f ms %7.1fx"
                  % (name, q * 1e3, p * 1e3, p / q))
        else:
            print("%-38s %9.2f GB/s %9.2f GB/s %7.1fx"
                  % (name, q, p, q / p))


if __name__ == "__main__":
    main()
