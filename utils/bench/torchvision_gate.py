#!/usr/bin/python3
# ===- torchvision_gate.py - qfx vs PyTorch FX on torchvision models ------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# Quantizes torchvision architectures (weights=None, batch-norm statistics
# randomized) with qfx.prepare_fx/convert_fx and with PyTorch 1.13's FX
# (x86 default QConfigMapping, onednn engine) on the same calibration
# samples, and prints per model: whether qfx exports it, the ops qfx leaves in
# float (and PyTorch's: its nodes that take a dequantized value), top-1
# agreement with PyTorch's quantized model on the test inputs (and how many
# inputs have PyTorch's two best logits within the models' worst difference),
# the share of outputs equal to PyTorch's and the worst difference in output
# steps, and the times of qfx's export+prepare and convert_fx (calibration,
# convert, lower, compile) next to PyTorch's. Usage:
#
#   /usr/bin/python3 utils/bench/torchvision_gate.py [--models a,b,...]
#       [--size 224] [--calibrate 8] [--tests 8] [--statistics qfx|pytorch|qat]
#
# --statistics pytorch converts PyTorch's prepared and calibrated model with
# qfx.convert_fx (PyTorch's observer statistics, imported), so the two int8
# models share their qparams and any difference is in the int8 arithmetic.
# --statistics qat prepares with prepare_qat_fx (x86 default QAT mapping)
# instead and trains one SGD step per calibration sample (towards random
# targets) before both convert the trained model.
#
# PyTorch's own prepare_fx cannot trace some models on Python 3.11 (torch
# 1.13's Proxy.__iter__); the row then says so and compares nothing.
#
# Segmentation models (torchvision.models.segmentation: lraspp_mobilenet_v3_large,
# deeplabv3_mobilenet_v3_large, fcn_resnet50, ...) return {"out": ...}: the
# row compares "out", and top-1 is per pixel (the class of each pixel).
#
# ===----------------------------------------------------------------------===#

import argparse
import pathlib
import sys
import time
import traceback
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from peers import output_steps  # noqa: E402  (utils/bench/peers.py)

GATE = ("mobilenet_v3_large,mobilenet_v3_small,efficientnet_b0,regnet_x_400mf,"
        "regnet_y_400mf,mnasnet1_0,densenet121")


def build(name: str):
    import torch
    import torchvision

    torch.manual_seed(0)
    if hasattr(torchvision.models.segmentation, name):
        model = getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None).eval()
    else:
        model = getattr(torchvision.models, name)(weights=None).eval()
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    return model


def torch_int8(model, example, calibration, qat=False):
    """PyTorch's quantized model, the seconds it took, and its calibrated
    (or, with `qat`, trained) prepared model."""
    import copy

    import torch
    from torch.ao.quantization import get_default_qat_qconfig_mapping, get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx, prepare_qat_fx

    start = time.perf_counter()
    if qat:
        prepared = prepare_qat_fx(copy.deepcopy(model).train(),
                                  get_default_qat_qconfig_mapping("x86"), example)
        optimizer = torch.optim.SGD(prepared.parameters(), lr=1e-3)
        generator = torch.Generator().manual_seed(2)
        for x in calibration:
            y = prepared(x)
            if not isinstance(y, torch.Tensor):  # GoogLeNet's auxiliary outputs in training
                y = y[0]
            loss = (y - torch.randn(y.shape, generator=generator)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        prepared.eval()
    else:
        prepared = prepare_fx(model, get_default_qconfig_mapping("x86"), example)
        with torch.no_grad():
            for x in calibration:
                prepared(x)
    quantized = convert_fx(copy.deepcopy(prepared))
    return quantized, time.perf_counter() - start, prepared.eval()


def qfx_int8(model, example, calibration, row):
    """qfx's quantized model, calibrated by qfx; sets the row's times."""
    import qfx

    start = time.perf_counter()
    prepared = qfx.prepare_fx(model, "default:x86", example, outputs=None)
    row["prepare_s"] = time.perf_counter() - start
    for x in calibration:
        prepared(x)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantized = qfx.convert_fx(prepared)
    row["convert_s"] = time.perf_counter() - start
    return quantized


def qfx_int8_from_torch(torch_prepared, example, row):
    """qfx's quantized model of PyTorch's calibrated prepared model."""
    import qfx

    row["prepare_s"] = 0.0
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantized = qfx.convert_fx(torch_prepared, example)
    row["convert_s"] = time.perf_counter() - start
    return quantized


def one(name: str, args) -> dict:
    import torch

    row = {"model": name}
    model = build(name)
    shape = (1, 3, args.size, args.size)
    generator = torch.Generator().manual_seed(1)
    calibration = [torch.randn(*shape, generator=generator) for _ in range(args.calibrate)]
    tests = [torch.randn(*shape, generator=generator) for _ in range(args.tests)]
    example = (calibration[0],)
    theirs_model = torch_prepared = None
    if args.statistics != "qfx":
        try:
            theirs_model, row["torch_s"], torch_prepared = torch_int8(
                model, example, calibration, qat=args.statistics == "qat")
        except Exception as e:
            row["qfx"] = f"PyTorch FX fails: {type(e).__name__}: {str(e).splitlines()[0][:120]}"
            return row
    try:
        if torch_prepared is not None:
            quantized = qfx_int8_from_torch(torch_prepared, example, row)
        else:
            quantized = qfx_int8(model, example, calibration, row)
    except Exception as e:  # a row per model, whatever fails
        row["qfx"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        return row
    row["float_ops"] = [str(op) for op in quantized.float_ops]
    ours = _out(quantized.run_samples(torch.stack(tests)))
    if theirs_model is None:
        try:
            theirs_model, row["torch_s"], _ = torch_int8(model, example, calibration)
        except Exception as e:
            row["torch"] = f"PyTorch FX fails: {type(e).__name__}: {str(e).splitlines()[0][:120]}"
            return row
    with torch.no_grad():
        theirs = torch.stack([_out(theirs_model(x)) for x in tests])
    steps, step = output_steps(ours, theirs)
    row["equal"] = (steps < 1e-3).float().mean().item()
    row["worst_steps"] = steps.max().item()
    if ours.dim() == 5:  # [tests, 1, classes, H, W]: each pixel's class
        row["top1"] = (ours.argmax(2) == theirs.argmax(2)).float().mean().item()
        row["close"] = "-"
        return _finish(row, theirs_model)
    row["top1"] = (ours.flatten(1).argmax(1) == theirs.flatten(1).argmax(1)).float().mean().item()
    # Inputs whose PyTorch top two logits are no further apart than the two
    # models' worst difference: their top-1 can flip on a one-step difference.
    top2 = theirs.flatten(1).topk(2, dim=1).values
    row["close"] = int(((top2[:, 0] - top2[:, 1]) / step <= row["worst_steps"] + 1e-3).sum())
    return _finish(row, theirs_model)


def _finish(row: dict, theirs_model) -> dict:
    row["torch_float_ops"] = torch_float_ops(theirs_model)
    return row


def _out(outputs):
    """A segmentation model's "out" (its outputs are a dict), else the outputs."""
    return outputs["out"] if isinstance(outputs, dict) else outputs


def torch_float_ops(quantized) -> list:
    """The nodes of PyTorch's converted model that compute on a dequantized
    value (its ops left in float)."""
    def dequantized(arg):
        return hasattr(arg, "op") and arg.op == "call_method" and arg.target == "dequantize"
    return [node.name for node in quantized.graph.nodes
            if node.op in ("call_module", "call_function", "call_method")
            and any(dequantized(a) for a in node.all_input_nodes)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default=GATE)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--calibrate", type=int, default=8)
    parser.add_argument("--tests", type=int, default=8)
    parser.add_argument("--statistics", choices=("qfx", "pytorch", "qat"), default="qfx",
                        help="who calibrates qfx's model: qfx, PyTorch (imported), or "
                        "PyTorch's QAT (trained with prepare_qat_fx, imported)")
    args = parser.parse_args()
    import torch

    torch.backends.quantized.engine = "onednn"
    torch.set_num_threads(1)
    failed = 0
    for name in args.models.split(","):
        try:
            row = one(name, args)
        except Exception:
            traceback.print_exc()
            row = {"model": name, "qfx": "crashed (traceback above)"}
        if "qfx" in row:
            print(f"{name}: qfx fails: {row['qfx']}", flush=True)
            failed += 1
            continue
        line = (f"{name}: prepare {row['prepare_s']:.1f} s, convert_fx {row['convert_s']:.1f} s, "
                f"{len(row['float_ops'])} float ops")
        if "torch" in row:
            line += f"; {row['torch']}"
        else:
            line += (f"; PyTorch {row['torch_s']:.1f} s, {len(row['torch_float_ops'])} float ops; "
                     f"top-1 agrees {row['top1']:.1%} ({row['close']} of {args.tests} inputs have "
                     f"PyTorch's top two within the worst difference), "
                     f"{row['equal']:.1%} outputs equal, worst {row['worst_steps']:.2f} steps")
        print(line, flush=True)
        for op in row["float_ops"]:
            print(f"    float: {op}")
        extra = len(row["float_ops"]) - len(row.get("torch_float_ops", []))
        failed += extra > 0 or row.get("top1", 1.0) < (1.0 if row.get("close") != "-" else 0.99)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
