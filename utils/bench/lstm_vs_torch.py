#!/usr/bin/python3
# ===- lstm_vs_torch.py - an LSTM language model: qfx vs PyTorch ---------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# The LSTM language model of PyTorch's dynamic quantization tutorial
# (Embedding, 2-layer LSTM, Linear decoder; python/tests/test_transformer.py's
# LanguageModel), dynamically quantized by qfx.quantize_dynamic and by
# PyTorch's quantize_dynamic (onednn engine), timed interleaved in one
# process with the float model. Prints medians of per-round medians, the
# ratio qfx / PyTorch int8, and the largest output difference to PyTorch's
# dynamic model (next to the dynamic model's difference to the float one).
#
#   /usr/bin/python3 utils/bench/lstm_vs_torch.py [--vocab 10000] [--embedding 512]
#       [--hidden 256] [--seq 35] [--batch 1] [--threads 1] [--rounds 5] [--runs 20]
#
# ===----------------------------------------------------------------------===#

import argparse
import copy
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "python" / "tests"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from peers import model_medians, torch_onednn  # noqa: E402  (utils/bench/peers.py)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vocab", type=int, default=10000)
    parser.add_argument("--embedding", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--seq", type=int, default=35)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before qfx's runtime starts

    import torch
    from torch.ao.quantization import quantize_dynamic

    import qfx
    from test_transformer import LanguageModel

    torch_onednn(args.threads)
    torch.manual_seed(0)
    model = LanguageModel(args.vocab, args.embedding, args.hidden).eval()
    generator = torch.Generator().manual_seed(1)
    x = torch.randint(0, args.vocab, (args.seq, args.batch), generator=generator)
    theirs = quantize_dynamic(copy.deepcopy(model), dtype=torch.qint8)
    start = time.perf_counter()
    ours = qfx.quantize_dynamic(model, example_inputs=(x,))
    convert_s = time.perf_counter() - start

    peers = {"qfx int8": ours, "PyTorch int8": theirs, "PyTorch float": model}
    medians = model_medians(peers, (x,), args.rounds, args.runs)
    with torch.no_grad():
        expected, reference = theirs(x), model(x)
    difference = (ours(x) - expected).abs().max().item()
    dynamic = (reference - expected).abs().max().item()
    print(f"LSTM language model: vocabulary {args.vocab}, embedding {args.embedding}, hidden "
          f"{args.hidden}, 2 layers, sequence {args.seq}, batch {args.batch}, {args.threads} "
          f"thread(s); qfx quantize_dynamic {convert_s:.1f} s; outputs within {difference:.1e} "
          f"of PyTorch's (dynamic vs float: {dynamic:.1e})")
    for name, ms in medians.items():
        print(f"  {name:14} {ms:8.2f} ms")
    print(f"  qfx / PyTorch int8: {medians['qfx int8'] / medians['PyTorch int8']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
