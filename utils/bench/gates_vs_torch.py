#!/usr/bin/python3
# ===- gates_vs_torch.py - issue 16's gate models: qfx vs PyTorch --------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# The static gate models of the transformer / native-BackendConfig issue that
# have no benchmark of their own: torchvision's convnext_tiny,
# shufflenet_v2_x1_0 and vit_b_16 (weights=None, batch-norm statistics
# randomized), a 1-d convolutional audio-style model and a 3-d convolutional
# video-style model. (The BERT-style encoder and the LSTM language model:
# encoder_vs_torch.py and lstm_vs_torch.py.) Each is quantized by qfx
# (prepare_fx / convert_fx, x86 default QConfigMapping) and by PyTorch 1.13 FX
# (onednn engine) on the same calibration samples, and the int8 models are
# timed interleaved in one process with the float model and PyTorch's
# quantize_dynamic of it (int8 Linears; medians of per-round medians). PyTorch 1.13's tracer cannot trace ShuffleNet and ViT on Python
# 3.11 (Proxy.__iter__): their rows have no PyTorch int8 column. Prints per
# model the latencies, qfx / PyTorch int8, the ops qfx leaves in float, the
# share of outputs equal to PyTorch's int8 model and the worst difference in
# its output steps, and the convert times. With --quantizable-attention, qfx
# quantizes nn.MultiheadAttention as PyTorch's quantizable MultiheadAttention
# (prepare_custom_config: int8 input and output projections, float attention
# between them); PyTorch's FX int8 model leaves it float as before.
#
#   /usr/bin/python3 utils/bench/gates_vs_torch.py [--models a,b,...]
#       [--size 224] [--calibrate 4] [--threads 1] [--rounds 5] [--runs 10]
#       [--quantizable-attention]
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
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from peers import model_medians, output_steps, print_table, torch_onednn  # noqa: E402
from torchvision_gate import build as build_torchvision  # noqa: E402

MODELS = "convnext_tiny,shufflenet_v2_x1_0,vit_b_16,audio,video"


def audio_model():
    """1-d convolutions over [N, 16, 4000] (a spectrogram-like input):
    Conv1d/BN/ReLU, max and average pooling, a grouped Conv1d, global
    average pooling and a Linear."""
    from torch import nn

    return nn.Sequential(
        nn.Conv1d(16, 64, 9, stride=2, padding=4), nn.BatchNorm1d(64), nn.ReLU(),
        nn.MaxPool1d(2),
        nn.Conv1d(64, 128, 5, padding=2), nn.BatchNorm1d(128), nn.ReLU(),
        nn.AvgPool1d(2),
        nn.Conv1d(128, 128, 5, padding=2, groups=8), nn.BatchNorm1d(128), nn.ReLU(),
        nn.Conv1d(128, 256, 3, stride=2, padding=1), nn.BatchNorm1d(256), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(256, 35))


def video_model():
    """3-d convolutions over [N, 3, 8, 56, 56] clips: Conv3d/BN3d/ReLU,
    AvgPool3d, AdaptiveAvgPool3d and a Linear."""
    from torch import nn

    return nn.Sequential(
        nn.Conv3d(3, 32, 3, padding=1), nn.BatchNorm3d(32), nn.ReLU(),
        nn.AvgPool3d(2),
        nn.Conv3d(32, 64, 3, padding=1), nn.BatchNorm3d(64), nn.ReLU(),
        nn.AvgPool3d(2),
        nn.Conv3d(64, 128, 3, padding=1), nn.BatchNorm3d(128), nn.ReLU(),
        nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(128, 10))


def build(name: str, size: int):
    """The model and one input's shape."""
    import torch

    if name in ("audio", "video"):
        torch.manual_seed(0)
        model = (audio_model if name == "audio" else video_model)().eval()
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
        return model, ((1, 16, 4000) if name == "audio" else (1, 3, 8, 56, 56))
    return build_torchvision(name), (1, 3, size, size)


def torch_int8(model, example, calibration):
    """PyTorch FX's int8 model and its convert seconds, or the reason it has
    none."""
    import torch
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    try:
        prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"), example)
    except Exception as error:  # torch 1.13's tracer on Python 3.11
        return None, 0.0, f"PyTorch cannot trace it ({type(error).__name__})"
    with torch.no_grad():
        for x in calibration:
            prepared(x)
    start = time.perf_counter()
    quantized = convert_fx(prepared)
    return quantized, time.perf_counter() - start, ""


def one(name: str, args) -> dict:
    import torch

    import qfx

    model, shape = build(name, args.size)
    generator = torch.Generator().manual_seed(1)
    calibration = [torch.randn(shape, generator=generator) for _ in range(args.calibrate)]
    tests = [torch.randn(shape, generator=generator) for _ in range(2)]
    example = (calibration[0],)
    row = {"model": name}

    custom = None
    if args.quantizable_attention:
        from torch.ao.quantization.fx.custom_config import PrepareCustomConfig

        custom = PrepareCustomConfig().set_float_to_observed_mapping(
            torch.nn.MultiheadAttention, torch.ao.nn.quantizable.MultiheadAttention)
    start = time.perf_counter()
    prepared = qfx.prepare_fx(model, "default:x86", example, custom, outputs=None)
    for x in calibration:
        prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared)
    row["qfx_s"] = time.perf_counter() - start
    row["float_ops"] = sorted({op.origin for op in ours.float_ops})

    theirs, row["torch_s"], row["note"] = torch_int8(model, example, calibration)
    # PyTorch's dynamic quantization (int8 Linear weights, eager mode: no
    # tracing), the int8 model a PyTorch user gets where FX cannot trace.
    dynamic = torch.ao.quantization.quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear})
    peers = {"qfx int8": ours, "PyTorch float": model, "PyTorch dynamic": dynamic}
    if theirs is not None:
        peers["PyTorch int8"] = theirs
        with torch.no_grad():
            equal, worst = [], 0.0
            for x in tests:
                steps, _ = output_steps(ours(x), theirs(x))
                equal.append((steps < 1e-3).float().mean().item())
                worst = max(worst, steps.max().item())
        row["equal"], row["worst"] = sum(equal) / len(equal), worst
    row.update(model_medians(peers, (tests[0],), args.rounds, args.runs))
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--size", type=int, default=224, help="torchvision input size")
    parser.add_argument("--calibrate", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quantizable-attention", action="store_true",
                        help="qfx quantizes nn.MultiheadAttention's projections")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before qfx's runtime starts
    torch_onednn(args.threads)

    rows = []
    for name in args.models.split(","):
        row = one(name, args)
        rows.append(row)
        print(f"{name}: done ({row['qfx_s']:.1f} s qfx convert)", file=sys.stderr, flush=True)

    print(f"Gate models, batch 1, {args.threads} thread(s), torchvision input {args.size}x"
          f"{args.size}, {args.calibrate} calibration samples; ms are interleaved medians"
          + ("; qfx quantizes MultiheadAttention's projections (quantizable MultiheadAttention)"
             if args.quantizable_attention else ""))
    nan = float("nan")
    print_table(
        [("model", 20, ""), ("qfx int8", 9, ".2f"), ("PT int8", 9, ".2f"),
         ("PT float", 9, ".2f"), ("PT dyn", 9, ".2f"), ("qfx/PT8", 8, ".2f"),
         ("qfx/PTf", 8, ".2f"), ("qfx/PTd", 8, ".2f"), ("equal", 7, ".1%"),
         ("worst", 6, ".2f"), ("qfx conv s", 10, ".1f"), ("PT conv s", 9, ".1f")],
        [[r["model"], r["qfx int8"], r.get("PyTorch int8", nan), r["PyTorch float"],
          r["PyTorch dynamic"], r["qfx int8"] / r.get("PyTorch int8", nan),
          r["qfx int8"] / r["PyTorch float"], r["qfx int8"] / r["PyTorch dynamic"],
          r.get("equal", nan),
          r.get("worst", nan), r["qfx_s"], r["torch_s"]] for r in rows])
    for r in rows:
        notes = [r["note"]] if r["note"] else []
        if r["float_ops"]:
            notes.append("qfx leaves in float: " + ", ".join(r["float_ops"]))
        if notes:
            print(f"  {r['model']}: {'; '.join(notes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
