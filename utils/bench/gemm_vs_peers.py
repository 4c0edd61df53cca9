#!/usr/bin/env python3
"""int8 GEMM speed: qfx-codegen's AVX-512 VNNI kernel against oneDNN 2.6 and
PyTorch 1.13's quantized Linear (onednn engine), side by side.

For each (M, N, K), in interleaved rounds (the machine is shared and noisy),
it times
  - qfx: an int8 TOSA Linear chain (u8-domain input with a zero point, s8
    per-channel weights, int32 bias, per-channel requantization to int8), as
    qfx-lower produces it, compiled by quant-run with qfx-codegen
    (--codegen=host) and timed with quant-run --bench;
  - oneDNN: its matmul, u8 x s8 with s32 bias and per-channel output scales
    to s8 (utils/bench/onednn_matmul.cpp, ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI);
  - PyTorch: torch.ops.quantized.linear (quint8 x qint8 per channel), engine
    onednn;
and prints the median time of each over the rounds as GOPS (2 M N K
operations), the qfx/peer ratios and the fraction of this machine's int8 peak
(utils/bench/vnni_peak.cpp: vpdpbusd throughput on one thread).

Usage (from the repository root, after ./utils/setup.sh):
  /usr/bin/python3 utils/bench/gemm_vs_peers.py [--rounds 3] [--runs 20]
      [--threads 1,2] [--shapes 256x256x256,...]

Threads: OMP_NUM_THREADS for qfx's kernels (OpenMP) and oneDNN,
torch.set_num_threads for PyTorch.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
BENCH = REPO / "utils" / "bench"
QUANT_RUN = REPO / "build" / "bin" / "quant-run"
SHAPES = [(1, 4096, 4096), (64, 1024, 1024), (256, 256, 256), (1024, 1024, 1024),
          (3136, 64, 576)]


def load_case_writer():
    """The generator of int8 TOSA Linear chains the codegen tests use."""
    path = REPO / "test" / "Codegen" / "Inputs" / "matmul-cases.py"
    spec = importlib.util.spec_from_file_location("matmul_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(source: str, output: pathlib.Path, *flags: str) -> None:
    subprocess.run(["clang++-22", "-O2", "-std=c++17", str(BENCH / source), "-o", str(output),
                    *flags], check=True)


def time_qfx(model: pathlib.Path, data: pathlib.Path, runs: int, threads: int) -> float:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([str(QUANT_RUN), str(model), f"--input={data}", "--codegen=host",
                          f"--bench={runs}"], check=True, capture_output=True, text=True,
                         env=env).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def time_onednn(binary: pathlib.Path, shape, runs: int, threads: int) -> float:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               ONEDNN_MAX_CPU_ISA="AVX512_CORE_VNNI")
    out = subprocess.run([str(binary), *map(str, shape), str(runs)], check=True,
                         capture_output=True, text=True, env=env).stdout
    return float(out)


def time_torch(shape, runs: int, threads: int) -> float:
    import time

    import torch
    torch.backends.quantized.engine = "onednn"
    torch.set_num_threads(threads)
    m, n, k = shape
    x = torch.quantize_per_tensor(torch.rand(m, k), 1 / 255, 0, torch.quint8)
    w = torch.quantize_per_channel(torch.randn(n, k), torch.full((n,), 0.02, dtype=torch.double),
                                   torch.zeros(n, dtype=torch.long), 0, torch.qint8)
    packed = torch.ops.quantized.linear_prepack(w, torch.zeros(n))
    for _ in range(3):
        torch.ops.quantized.linear(x, packed, 0.05, 64)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        torch.ops.quantized.linear(x, packed, 0.05, 64)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--shapes", help="MxNxK,... (default: the issue's five)")
    args = parser.parse_args()
    shapes = SHAPES if not args.shapes else [
        tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    if not QUANT_RUN.exists():
        print(f"{QUANT_RUN} is missing: run ./utils/setup.sh first", file=sys.stderr)
        return 1
    cases = load_case_writer()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        build("onednn_matmul.cpp", tmp / "onednn_matmul", "-ldnnl")
        build("vnni_peak.cpp", tmp / "vnni_peak")
        peak = float(subprocess.run([str(tmp / "vnni_peak")], check=True, capture_output=True,
                                    text=True).stdout)
        models = {}
        for shape in shapes:
            m, n, k = shape
            model, data = tmp / f"{m}x{n}x{k}.mlir", tmp / f"{m}x{n}x{k}.npy"
            model.write_text(cases.case(rng, m, n, k, 0))
            np.save(data, rng.integers(-128, 128, size=(1, m, k)).astype(np.int8))
            models[shape] = (model, data)
        samples = {}
        for _ in range(args.rounds):
            for shape in shapes:
                for t in threads:
                    samples.setdefault((shape, "qfx", t), []).append(
                        time_qfx(*models[shape], args.runs, t))
                    samples.setdefault((shape, "onednn", t), []).append(
                        time_onednn(tmp / "onednn_matmul", shape, args.runs, t))
                    samples.setdefault((shape, "torch", t), []).append(
                        time_torch(shape, args.runs, t))
    print(f"int8 peak (vpdpbusd, one thread): {peak:.0f} GOPS; medians of {args.rounds} "
          f"interleaved rounds of {args.runs} runs")
    header = f"{'M x N x K':>18} {'thr':>3} {'qfx':>8} {'oneDNN':>8} {'torch':>8} " \
             f"{'qfx/oneDNN':>10} {'qfx/torch':>9} {'qfx % peak':>10}"
    print(header)
    for shape in shapes:
        ops = 2 * shape[0] * shape[1] * shape[2]
        for t in threads:
            ours = statistics.median(samples[(shape, "qfx", t)])
            dnnl = statistics.median(samples[(shape, "onednn", t)])
            torch_ms = statistics.median(samples[(shape, "torch", t)])
            gops = [ops / ms / 1e6 for ms in (ours, dnnl, torch_ms)]
            print(f"{'x'.join(map(str, shape)):>18} {t:>3} {gops[0]:>8.0f} {gops[1]:>8.0f} "
                  f"{gops[2]:>8.0f} {dnnl / ours:>10.2f} {torch_ms / ours:>9.2f} "
                  f"{100 * gops[0] / (peak * t):>9.0f}%")
    print("GOPS; ratios are peer time / qfx time (above 1: qfx is faster); % of peak counts "
          "the peak once per thread.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
