#!/usr/bin/env python3
"""int8 GEMM speed: qfx-codegen's AVX-512 VNNI kernel against oneDNN 2.6 and
PyTorch 1.13's quantized Linear (onednn engine), side by side.

For each (M, N, K), in interleaved rounds (the machine is shared and noisy),
it times
  - qfx: an int8 TOSA Linear chain (s8 input with a zero point, s8 weights
    with zero point 0, a bias, per-channel requantization to int8: in float32
    as PyTorch's onednn engine, or with --requantization integer
    tosa.rescale), as qfx-lower produces it, compiled by quant-run with qfx-codegen
    (--codegen=host) and timed with quant-run --bench;
  - oneDNN: its matmul, u8 x s8 with s32 bias and per-channel output scales
    to s8 (utils/bench/onednn_matmul.cpp, ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI);
  - PyTorch: torch.ops.quantized.linear (quint8 x qint8 per channel), engine
    onednn;
and prints the median time of each over the rounds as GOPS (2 M N K
operations), qfx's speed relative to each peer ("speed vs oneDNN", "speed vs
torch": the peer's time / qfx's time, above 1: qfx is faster) and the fraction
of this machine's int8 peak (utils/bench/vnni_peak.cpp: vpdpbusd throughput
on one thread). On a machine whose Linux grants AMX tile data
(utils/bench/amx_peak.cpp measures tdpbusd throughput, and prints "none"
elsewhere), a second table times qfx --codegen=x86-64-amx against oneDNN's
matmul without an ISA limit (its AMX path); elsewhere it says AMX was not
measured.

Usage (from the repository root, after ./utils/setup.sh):
  /usr/bin/python3 utils/bench/gemm_vs_peers.py [--rounds 3] [--runs 20]
      [--threads 1,2] [--requantization float|integer] [--shapes 256x256x256,...]

Threads: OMP_NUM_THREADS for qfx's kernels (OpenMP) and oneDNN,
torch.set_num_threads for PyTorch.

What it shares with conv_vs_peers.py is in utils/bench/peers.py.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import peers  # noqa: E402  (utils/bench/peers.py, next to this script)

SHAPES = [(1, 4096, 4096), (64, 1024, 1024), (256, 256, 256), (1024, 1024, 1024),
          (3136, 64, 576)]


def time_onednn(binary: pathlib.Path, shape, runs: int, threads: int,
                isa: str = "AVX512_CORE_VNNI") -> float:
    return float(peers.run_onednn(binary, shape, runs, threads, isa).stdout)


def time_torch(shape, runs: int, threads: int) -> float:
    torch = peers.torch_onednn(threads)
    m, n, k = shape
    x = torch.quantize_per_tensor(torch.rand(m, k), 1 / 255, 0, torch.quint8)
    w = torch.quantize_per_channel(torch.randn(n, k), torch.full((n,), 0.02, dtype=torch.double),
                                   torch.zeros(n, dtype=torch.long), 0, torch.qint8)
    packed = torch.ops.quantized.linear_prepack(w, torch.zeros(n))
    return peers.median_ms(lambda: torch.ops.quantized.linear(x, packed, 0.05, 64), runs)


def main() -> int:
    parser = peers.parser(__doc__)
    parser.add_argument("--shapes", help="MxNxK,... (default: the issue's five)")
    args = parser.parse_args()
    shapes = SHAPES if not args.shapes else [
        tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    threads = peers.thread_counts(args.threads)
    if peers.quant_run_missing():
        return 1
    cases = peers.load_case_writer()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        peers.build("onednn_matmul.cpp", tmp / "onednn_matmul", "-ldnnl")
        peers.build("vnni_peak.cpp", tmp / "vnni_peak")
        peak = float(subprocess.run([str(tmp / "vnni_peak")], check=True, capture_output=True,
                                    text=True).stdout)
        # AMX where Linux grants it: the probe prints "none" elsewhere.
        peers.build("amx_peak.cpp", tmp / "amx_peak", "-mamx-tile", "-mamx-int8")
        amx = subprocess.run([str(tmp / "amx_peak")], check=True, capture_output=True,
                             text=True).stdout.strip()
        models = {}
        for shape in shapes:
            m, n, k = shape
            model, data = tmp / f"{m}x{n}x{k}.mlir", tmp / f"{m}x{n}x{k}.npy"
            model.write_text(cases.case(rng, m, n, k, 0,
                                        peers.epilogue(cases, args.requantization)))
            np.save(data, rng.integers(-128, 128, size=(1, m, k)).astype(np.int8))
            models[shape] = (model, data)
        timers = {
            "qfx": lambda shape, t: peers.time_qfx(*models[shape], args.runs, t),
            "onednn": lambda shape, t: time_onednn(tmp / "onednn_matmul", shape, args.runs, t),
            "torch": lambda shape, t: time_torch(shape, args.runs, t),
        }
        if amx != "none":
            timers["qfx-amx"] = lambda shape, t: peers.time_qfx(*models[shape], args.runs, t,
                                                               "x86-64-amx")
            timers["onednn-amx"] = lambda shape, t: time_onednn(
                tmp / "onednn_matmul", shape, args.runs, t, isa="")
        samples = peers.interleaved_rounds(args.rounds, shapes, threads, timers)
    print(f"int8 peak (vpdpbusd, one thread): {peak:.0f} GOPS; medians of {args.rounds} "
          f"interleaved rounds of {args.runs} runs")
    rows = []
    for shape in shapes:
        ops = 2 * shape[0] * shape[1] * shape[2]
        for t in threads:
            ours, dnnl, torch_ms = peers.medians(samples, shape, t)
            gops = [ops / ms / 1e6 for ms in (ours, dnnl, torch_ms)]
            rows.append(["x".join(map(str, shape)), t, *gops, dnnl / ours, torch_ms / ours,
                         f"{100 * gops[0] / (peak * t):.0f}%"])
    peers.print_table([("M x N x K", 18, ""), ("thr", 3, ""), ("qfx", 8, ".0f"),
                       ("oneDNN", 8, ".0f"), ("torch", 8, ".0f"),
                       ("speed vs oneDNN", 15, ".2f"), ("speed vs torch", 14, ".2f"),
                       ("qfx % peak", 10, "")], rows)
    print("qfx/oneDNN/torch: GOPS (2 M N K operations); % of peak counts the peak once per "
          "thread.")
    print(peers.SPEED_NOTE)
    if amx == "none":
        print("AMX: not measured (this machine or its Linux has no AMX tile data: "
              "utils/bench/amx_peak.cpp was refused).")
        return 0
    print(f"\nAMX (tdpbusd peak, one thread: {amx} GOPS): qfx --codegen=x86-64-amx against "
          "oneDNN without an ISA limit")
    rows = []
    for shape in shapes:
        ops = 2 * shape[0] * shape[1] * shape[2]
        for t in threads:
            ours, dnnl = peers.medians(samples, shape, t, ("qfx-amx", "onednn-amx"))
            rows.append(["x".join(map(str, shape)), t, ops / ours / 1e6, ops / dnnl / 1e6,
                         dnnl / ours, f"{100 * ops / ours / 1e6 / (float(amx) * t):.0f}%"])
    peers.print_table([("M x N x K", 18, ""), ("thr", 3, ""), ("qfx amx", 8, ".0f"),
                       ("oneDNN amx", 10, ".0f"), ("speed vs oneDNN", 15, ".2f"),
                       ("qfx % peak", 10, "")], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
