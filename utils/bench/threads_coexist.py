#!/usr/bin/python3
# ===- threads_coexist.py - qfx and PyTorch sharing a process's cores -----===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# How qfx's OpenMP threads (libomp) and PyTorch's (libgomp) share the cores
# of one process, as in a pipeline with PyTorch pre- or post-processing:
# torchvision's resnet18 (weights=None) quantized by qfx and by PyTorch 1.13
# FX (x86 mapping, onednn engine) on --threads threads; each timed alone
# (medians of `--runs` calls) and called alternately, call by call (medians of
# each one's calls), then the CPU seconds the process uses per second while
# its main thread sleeps after its last qfx call. Each --env setting runs in
# a process of its own (libomp reads its variables when it starts), rounds
# of the settings interleaved:
#
#   /usr/bin/python3 utils/bench/threads_coexist.py [--threads 2] [--rounds 3]
#       [--runs 30] [--env "" --env OMP_WAIT_POLICY=active ...]
#
# An --env setting is VAR=VALUE pairs separated by spaces, set on top of this
# process's environment ("" is qfx's default).
#
# ===----------------------------------------------------------------------===#

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def worker(threads: int, runs: int) -> dict:
    os.environ["OMP_NUM_THREADS"] = str(threads)  # before qfx's runtime starts
    sys.path.insert(0, str(ROOT / "python"))
    sys.path.insert(0, str(ROOT / "utils" / "bench"))
    import copy
    import resource

    import torch
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    from peers import qfx_int8
    from torchvision_gate import build

    torch.set_num_threads(threads)
    torch.backends.quantized.engine = "onednn"
    model = build("resnet18")
    generator = torch.Generator().manual_seed(1)
    calibration = [torch.randn(1, 3, 224, 224, generator=generator) for _ in range(2)]
    x = torch.randn(1, 3, 224, 224, generator=generator)
    _, ours = qfx_int8(model, x, calibration)
    theirs = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"), (x,))
    with torch.no_grad():
        for sample in calibration:
            theirs(sample)
    theirs = convert_fx(theirs)

    def timed(f) -> float:
        start = time.perf_counter()
        f(x)
        return 1000 * (time.perf_counter() - start)

    row = {}
    with torch.no_grad():
        for f in (ours, theirs, ours, theirs):  # warm-up
            f(x)
        row["qfx alone"] = statistics.median(timed(ours) for _ in range(runs))
        row["PyTorch alone"] = statistics.median(timed(theirs) for _ in range(runs))
        pairs = [(timed(ours), timed(theirs)) for _ in range(runs)]
        row["qfx alternating"] = statistics.median(a for a, _ in pairs)
        row["PyTorch alternating"] = statistics.median(b for _, b in pairs)
        ours(x)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    before = usage.ru_utime + usage.ru_stime
    time.sleep(2.0)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    row["idle CPU s/s"] = (usage.ru_utime + usage.ru_stime - before) / 2.0
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--env", action="append", help="VAR=VALUE ... (repeatable)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.threads, args.runs)))
        return 0
    settings = args.env if args.env else ["", "OMP_WAIT_POLICY=active"]
    results = {setting: [] for setting in settings}
    for round_ in range(args.rounds):
        for setting in settings:
            env = dict(os.environ)
            env.update(pair.split("=", 1) for pair in setting.split())
            out = subprocess.run([sys.executable, __file__, "--worker", "--threads",
                                  str(args.threads), "--runs", str(args.runs)],
                                 env=env, check=True, capture_output=True, text=True).stdout
            results[setting].append(json.loads(out.splitlines()[-1]))
            print(f"round {round_ + 1}, [{setting}]: {results[setting][-1]}", file=sys.stderr)
    print(f"resnet18 224x224, batch 1, {args.threads} threads; medians over {args.rounds} "
          f"rounds of {args.runs}-call medians (ms), idle CPU seconds per second")
    keys = list(results[settings[0]][0])
    print(f"{'setting':32} " + " ".join(f"{k:>19}" for k in keys))
    for setting, rows in results.items():
        print(f"{'[' + setting + ']':32} "
              + " ".join(f"{statistics.median(r[k] for r in rows):19.3f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
