#!/usr/bin/python3
# ===- calibration_memory.py - Peak memory of calibration vs sample count -===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# Calibrates torchvision's resnet18 (weights=None, batch-norm statistics
# randomized; x86 default QConfigMapping, so histogram observers on the
# activations) with `quant-run --calibrate=DIR` from a directory holding one
# .npy file per sample, once per sample count, and prints quant-run's peak
# resident memory (its VmHWM, polled) and its time.
# Peak memory must not grow with the number of samples. Usage:
#
#   /usr/bin/python3 utils/bench/calibration_memory.py \
#       [--samples 100,5000] [--size 224] [--quant-run build/bin/quant-run]
#
# At 224x224 quant-run calibrates about one sample a second on this machine,
# so 5000 samples take well over an hour; the .npy files (600 KB each) are
# written to a temporary directory and removed afterwards.
#
# ===----------------------------------------------------------------------===#

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


def observed_resnet18(size: int, workdir: pathlib.Path) -> pathlib.Path:
    """Writes the observed (fused and prepared) resnet18 and returns its path."""
    import torch
    import torchvision

    import qfx

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    example = (torch.randn(1, 3, size, size),)
    qfx.prepare_fx(model, "default:x86", example, workdir=workdir)
    return workdir / "observed.mlir"


def write_samples(directory: pathlib.Path, count: int, size: int) -> None:
    """Fills `directory` with `count` files of one sample each."""
    directory.mkdir()
    rng = np.random.default_rng(0)
    for index in range(count):
        sample = rng.standard_normal((1, 3, size, size), dtype=np.float32)
        np.save(directory / f"{index:05d}.npy", sample)


def peak_rss_kib(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), 0 if it is gone.
    After exec this is quant-run's alone; ru_maxrss is not: the kernel folds
    in the memory the child had before exec, i.e. this (large, torch-holding)
    Python process's, which is what this script reported before."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def calibrate(quant_run: str, observed: pathlib.Path, samples: pathlib.Path,
              output: pathlib.Path) -> tuple:
    """Runs one calibration; returns (quant-run's peak RSS in MiB, seconds),
    the peak read from /proc every 50 ms until it exits."""
    start = time.perf_counter()
    process = subprocess.Popen([quant_run, str(observed), f"--calibrate={samples}",
                                "-o", str(output)])
    peak = 0
    while True:
        pid, status = os.waitpid(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, peak_rss_kib(process.pid))
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"quant-run --calibrate failed (exit {process.returncode})")
    return peak / 1024, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quant-run", default=str(ROOT / "build/bin/quant-run"))
    parser.add_argument("--samples", default="100,5000",
                        help="comma-separated sample counts (default 100,5000)")
    parser.add_argument("--size", type=int, default=224, help="image height and width")
    args = parser.parse_args()
    counts = sorted(int(c) for c in args.samples.split(","))

    with tempfile.TemporaryDirectory(prefix="qfx-calibration-memory-") as tmp:
        tmp = pathlib.Path(tmp)
        observed = observed_resnet18(args.size, tmp / "model")
        print(f"resnet18, 1x3x{args.size}x{args.size}, default:x86 observers", flush=True)
        print(f"{'samples':>8} {'peak RSS MiB':>13} {'seconds':>9}", flush=True)
        for count in counts:
            directory = tmp / f"samples{count}"
            write_samples(directory, count, args.size)
            rss, seconds = calibrate(args.quant_run, observed, directory, tmp / "calibrated.mlir")
            print(f"{count:>8} {rss:>13.0f} {seconds:>9.1f}", flush=True)
            shutil.rmtree(directory)


if __name__ == "__main__":
    main()
