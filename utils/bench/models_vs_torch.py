#!/usr/bin/python3
# ===- models_vs_torch.py - whole-model latency: qfx vs PyTorch -----------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
"""Whole torchvision models (weights=None, batch-norm statistics randomized):
qfx's int8 program against PyTorch 1.13's int8 model (FX convert_fx, x86
default QConfigMapping, onednn engine) and PyTorch's float model
(torch.jit.trace, freeze and optimize_for_inference: oneDNN convolutions),
on the same
input, per thread count and batch size.

Each (model, threads, batch) runs in a process of its own (qfx's OpenMP
runtime fixes its thread count when it starts), which quantizes the model
both ways (calibrating on --calibrate random samples; the times of qfx's
prepare_fx + calibration + convert_fx + the first call and of PyTorch's are
printed), then
times the three in interleaved rounds: per round, --runs calls of each
after a warm-up, one after the other; the figure is the median over rounds
of each round's median. Ratios are qfx's latency over the peer's (below 1:
qfx is faster). "call peak MB" is the memory one call's activations and
scratch buffers take at their peak (weights and code are resident before
it), after the warm-up: for PyTorch the resident memory the call adds
(the kernel's high-water mark), for qfx the most its program's buffers held
at once (its buffer cache keeps them between calls, so the resident set
does not grow in a call).
"calibration ms a sample" is the median time of one calibration sample:
PyTorch's prepared model called on it, and qfx's calibration of the
observed model (a call of the prepared model on a sample once more, after
its compilation). The machine is shared and noisy: compare ratios, not
single numbers.

  /usr/bin/python3 utils/bench/models_vs_torch.py [--models resnet18,...]
      [--threads 1,2] [--batch 1] [--rounds 3] [--runs 10] [--size 224]
      [--calibrate 3]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ("resnet18,resnet50,mobilenet_v2,mobilenet_v3_large,efficientnet_b0,googlenet,"
          "squeezenet1_1,regnet_x_400mf,densenet121")


def describe(error: Exception) -> str:
    """An exception in one line, for a row of the table."""
    return f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"


def call_peak_mb(run) -> float:
    """The resident memory one call of RUN adds at its peak, in MB: the
    kernel's high-water mark (VmHWM, reset through /proc/self/clear_refs)
    above the resident set before the call, after glibc returned its free
    heap pages (malloc_trim). It counts the call's activations and scratch
    buffers; the weights and code, resident before it, are not counted."""
    import ctypes

    def status(field: str) -> int:
        for line in pathlib.Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])  # kB
        raise RuntimeError(f"/proc/self/status has no {field}")

    ctypes.CDLL("libc.so.6").malloc_trim(0)
    pathlib.Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    before = status("VmRSS")
    run()
    return (status("VmHWM") - before) / 1024


def qfx_call_peak_mb(run) -> float:
    """The most bytes qfx's program held in buffers at once during one call
    of RUN, in MB: its buffer cache's peak (the cache keeps the buffers
    between calls, so the resident set does not grow in a call)."""
    from qfx import _capi

    live, _, _ = _capi.buffer_stats()
    _capi.reset_buffer_peak()
    run()
    return (_capi.buffer_stats()[1] - live) / (1 << 20)


def qfx_sample_ms(prepared, calibration) -> float:
    """qfx's calibration time per sample, in ms: the median time of a call
    of PREPARED (each call observes, as in convert_fx's calibration) on the
    CALIBRATION samples once more (its program is compiled already)."""
    times = []
    for sample in calibration:
        start = time.perf_counter()
        prepared(sample)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def worker(args) -> dict:
    """One (model, threads, batch): quantize both ways, time the peers."""
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before qfx's runtime starts
    sys.path.insert(0, str(ROOT / "python"))
    sys.path.insert(0, str(ROOT / "utils" / "bench"))
    import copy

    import torch
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    from peers import qfx_int8
    from torchvision_gate import build

    torch.set_num_threads(args.threads)
    torch.backends.quantized.engine = "onednn"
    row = {"model": args.model, "threads": args.threads, "batch": args.batch}
    model = build(args.model)
    shape = (args.batch, 3, args.size, args.size)
    generator = torch.Generator().manual_seed(1)
    calibration = [torch.randn(*shape, generator=generator) for _ in range(args.calibrate)]
    x = torch.randn(*shape, generator=generator)
    peers = {}

    start = time.perf_counter()
    try:
        prepared, quantized = qfx_int8(model, x, calibration)
        quantized(x)
        row["qfx_convert_s"] = time.perf_counter() - start
        peers["qfx"] = lambda: quantized(x)
        row["qfx_calibrate_ms"] = qfx_sample_ms(prepared, calibration)
    except Exception as error:  # a row per model, whatever fails
        row["qfx_error"] = describe(error)

    start = time.perf_counter()
    try:
        torch_prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"),
                                    (x,))
        with torch.no_grad():
            times = []
            for sample in calibration:
                begin = time.perf_counter()
                torch_prepared(sample)
                times.append(time.perf_counter() - begin)
        row["torch_calibrate_ms"] = 1000 * statistics.median(times)
        torch_int8 = convert_fx(torch_prepared)
        with torch.no_grad():
            torch_int8(x)
        row["torch_convert_s"] = time.perf_counter() - start
        peers["torch_int8"] = lambda: torch_int8(x)
    except Exception as error:
        row["torch_int8_error"] = describe(error)

    try:
        # Frozen TorchScript with convolutions on oneDNN (optimize_for_inference
        # converts them to MKL-DNN layouts): the fastest of eager, freeze,
        # freeze + oneDNN fusion and this one on resnet18 here (42 ms against
        # 56-59 ms on one thread).
        with torch.no_grad():
            frozen = torch.jit.optimize_for_inference(
                torch.jit.freeze(torch.jit.trace(model, (x,), check_trace=False)))
        peers["torch_float"] = lambda: frozen(x)
    except Exception as error:
        row["torch_float_error"] = describe(error)

    rounds = {name: [] for name in peers}
    with torch.no_grad():
        for name, run in peers.items():  # warm-up (TorchScript optimizes on early calls)
            for _ in range(3):
                run()
            row[f"{name}_peak_mb"] = qfx_call_peak_mb(run) if name == "qfx" else call_peak_mb(run)
        for _ in range(args.rounds):
            for name, run in peers.items():
                times = []
                for _ in range(args.runs):
                    start = time.perf_counter()
                    run()
                    times.append(time.perf_counter() - start)
                rounds[name].append(statistics.median(times))
    for name, medians in rounds.items():
        row[f"{name}_ms"] = 1000 * statistics.median(medians)
    return row


def table(rows: list) -> str:
    def ms(row, key):
        return f"{row[key]:.2f}" if key in row else "fails"

    def ratio(row, peer):
        key = f"{peer}_ms"
        return f"{row['qfx_ms'] / row[key]:.2f}" if "qfx_ms" in row and key in row else "-"

    def seconds(row, key):
        return f"{row[key]:.1f} s" if key in row else "-"

    def mb(row, key):
        return f"{row[key]:.0f}" if key in row else "-"

    lines = ["| model | threads | batch | qfx ms | PyTorch int8 ms | PyTorch float ms | "
             "qfx / int8 | qfx / float | call peak MB qfx / int8 / float | "
             "calibration ms a sample qfx / PyTorch | convert_fx qfx / PyTorch |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['model']} | {row['threads']} | {row['batch']} | {ms(row, 'qfx_ms')} "
                     f"| {ms(row, 'torch_int8_ms')} | {ms(row, 'torch_float_ms')} "
                     f"| {ratio(row, 'torch_int8')} | {ratio(row, 'torch_float')} "
                     f"| {mb(row, 'qfx_peak_mb')} / {mb(row, 'torch_int8_peak_mb')} / "
                     f"{mb(row, 'torch_float_peak_mb')} "
                     f"| {mb(row, 'qfx_calibrate_ms')} / {mb(row, 'torch_calibrate_ms')} "
                     f"| {seconds(row, 'qfx_convert_s')} / {seconds(row, 'torch_convert_s')} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--batch", default="1")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--calibrate", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.threads, args.batch = int(args.threads), int(args.batch)
        print(json.dumps(worker(args)))
        return 0
    rows = []
    for model in args.models.split(","):
        for threads in args.threads.split(","):
            for batch in args.batch.split(","):
                command = [sys.executable, __file__, "--worker", "--model", model,
                           "--threads", threads, "--batch", batch, "--rounds", str(args.rounds),
                           "--runs", str(args.runs), "--size", str(args.size),
                           "--calibrate", str(args.calibrate)]
                result = subprocess.run(command, capture_output=True, text=True)
                lines = [l for l in result.stdout.splitlines() if l.startswith("{")]
                if result.returncode != 0 or not lines:
                    tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
                    row = {"model": model, "threads": threads, "batch": batch,
                           "qfx_error": f"worker failed: {tail[:160]}"}
                else:
                    row = json.loads(lines[-1])
                rows.append(row)
                errors = [f"{k[:-6]}: {v}" for k, v in row.items() if k.endswith("_error")]
                print(f"{model}, {threads} thread(s), batch {batch}: "
                      + ", ".join(f"{k[:-3]} {v:.2f} ms" for k, v in row.items()
                                  if k.endswith("_ms"))
                      + ("; " + "; ".join(errors) if errors else ""), flush=True)
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
