#!/usr/bin/python3
# ===- encoder_vs_torch.py - a BERT-style encoder: qfx vs PyTorch ---------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# The HuggingFace-style encoder of python/tests/test_transformer.py, static
# int8 (x86 default QConfigMapping, PyTorch's calibration imported, so both
# int8 models share their qparams) or, with --mode dynamic, its Linears
# dynamic (default_dynamic_qconfig; layer norms, softmax, GELU and the
# attention matmuls float), timed interleaved in one process: qfx's int8
# program, PyTorch's int8 model (onednn engine) and the float model.
# Prints medians of per-round medians, the ratio qfx / PyTorch int8, the
# output parity (static: in PyTorch's output steps; dynamic: the share of
# outputs bit-equal and the largest difference), and qfx's per-layer
# profile.
#
#   /usr/bin/python3 utils/bench/encoder_vs_torch.py [--layers 2] [--hidden 256]
#       [--heads 4] [--seq 128] [--mode static|dynamic] [--threads 1] [--rounds 5]
#       [--runs 20]
#
# (BERT-base's shape: --layers 12 --hidden 768 --heads 12.)
#
# ===----------------------------------------------------------------------===#

import argparse
import copy
import os
import pathlib
import sys
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "python" / "tests"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from peers import model_medians, output_steps, torch_onednn  # noqa: E402  (utils/bench/peers.py)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--mode", choices=("static", "dynamic"), default="static")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before qfx's runtime starts

    import torch
    from torch.ao.quantization import (QConfigMapping, default_dynamic_qconfig,
                                       get_default_qconfig_mapping)
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    import qfx
    from test_transformer import EncoderLayer

    torch_onednn(args.threads)
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[EncoderLayer(args.hidden, args.heads, 4 * args.hidden)
                                  for _ in range(args.layers)]).eval()
    generator = torch.Generator().manual_seed(1)
    samples = [torch.randn(1, args.seq, args.hidden, generator=generator) for _ in range(5)]
    calibration, x = samples[:4], samples[4]
    mapping = (get_default_qconfig_mapping("x86") if args.mode == "static" else
               QConfigMapping().set_object_type(torch.nn.Linear, default_dynamic_qconfig))
    prepared = prepare_fx(copy.deepcopy(model), mapping, (calibration[0],))
    for sample in calibration:
        prepared(sample)
    theirs = convert_fx(copy.deepcopy(prepared))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        ours = qfx.convert_fx(prepared, (calibration[0],))
        convert_s = time.perf_counter() - start

    peers = {"qfx int8": ours, "PyTorch int8": theirs, "PyTorch float": model}
    medians = model_medians(peers, (x,), args.rounds, args.runs)
    with torch.no_grad():
        expected = theirs(x)
    got = ours(x)
    if args.mode == "static":
        diff, _ = output_steps(got, expected)
        steps, equal = diff.max().item(), (diff < 1e-3).float().mean().item()
        parity = f"outputs {equal:.1%} equal to PyTorch's, worst {steps:.2f} steps"
    else:
        equal = (got == expected).float().mean().item()
        parity = (f"outputs {equal:.1%} bit-equal to PyTorch's, largest difference "
                  f"{(got - expected).abs().max().item():.2e}")
    print(f"encoder ({args.mode}): {args.layers} layers, hidden {args.hidden}, {args.heads} heads, "
          f"sequence {args.seq}, "
          f"{args.threads} thread(s); qfx convert_fx {convert_s:.1f} s; {parity}")
    for name, ms in medians.items():
        print(f"  {name:14} {ms:8.2f} ms")
    print(f"  qfx / PyTorch int8: {medians['qfx int8'] / medians['PyTorch int8']:.2f}")
    print(ours.profile(x, runs=args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
