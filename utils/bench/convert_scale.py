#!/usr/bin/python3
# ===- convert_scale.py - Memory and time of conversion by model size -----===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# How conversion scales with the model: for each model, in a fresh process
# each, qfx (`qfx.prepare_fx`, calibration calls, `qfx.convert_fx`, the first
# call of the quantized model) and PyTorch 1.13 FX (`prepare_fx`,
# calibration, `convert_fx`, first call; x86 default mapping) on the same
# inputs, printing each step's time and the peak resident memory the process
# reached in it (VmHWM, reset before each step), as MB and as a multiple of
# the float weights' bytes. Usage:
#
#   /usr/bin/python3 utils/bench/convert_scale.py \
#       [--models resnet18,resnet50,vit_b_16] [--size 224] [--calibrate 2] \
#       [--markdown FILE]
#
# Models: torchvision names (weights=None, batch-norm statistics randomized)
# and `bert_large` (24 layers of 1024, 16 heads, MLP 4096, sequence 128: a
# BERT-large-shaped nn.TransformerEncoder over a Linear embedding). PyTorch
# 1.13's tracer cannot trace torchvision's ViT or the encoder on Python
# 3.11: its column then says why.
#
# ===----------------------------------------------------------------------===#

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
STEPS = ("prepare", "calibrate", "convert", "first call")


def _peak_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def build(name: str, size: int):
    import torch
    import torchvision

    torch.manual_seed(0)
    if name == "bert_large":
        layer = torch.nn.TransformerEncoderLayer(1024, 16, 4096, batch_first=True)
        model = torch.nn.Sequential(torch.nn.Linear(1024, 1024),
                                    torch.nn.TransformerEncoder(layer, 24)).eval()
        return model, torch.randn(1, 128, 1024)
    kwargs = {"image_size": size} if name.startswith("vit") else {}
    model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return model, torch.randn(1, 3, size, size)


def measure(framework: str, name: str, size: int, calibrate: int) -> dict:
    """One framework on one model, in this process."""
    import torch

    model, x = build(name, size)
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    result = {"parameters": sum(p.numel() for p in model.parameters()),
              "weights_mb": weights / 2 ** 20, "steps": {}}

    def step(label, function):
        _reset_peak()
        start = time.perf_counter()
        value = function()
        result["steps"][label] = {"seconds": time.perf_counter() - start,
                                  "peak_mb": _peak_mb()}
        return value

    samples = [torch.randn_like(x) for _ in range(calibrate)]
    if framework == "qfx":
        sys.path.insert(0, str(ROOT / "python"))
        import qfx

        prepared = step("prepare", lambda: qfx.prepare_fx(model, "default:x86", (x,),
                                                          outputs=None))
        step("calibrate", lambda: [prepared(s) for s in samples])
        quantized = step("convert", lambda: qfx.convert_fx(prepared))
    else:
        from torch.ao.quantization import get_default_qconfig_mapping
        from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

        torch.backends.quantized.engine = "onednn"
        try:
            prepared = step("prepare", lambda: prepare_fx(
                model, get_default_qconfig_mapping("x86"), (x,)))
        except Exception as error:  # PyTorch 1.13's tracer on Python 3.11
            return {**result, "error": f"{type(error).__name__}: {str(error).splitlines()[0]}"}
        with torch.no_grad():
            step("calibrate", lambda: [prepared(s) for s in samples])
        quantized = step("convert", lambda: convert_fx(prepared))
    with torch.no_grad():
        step("first call", lambda: quantized(x))
    return result


def run(framework: str, name: str, args) -> dict:
    command = [sys.executable, __file__, "--child", framework, "--models", name,
               "--size", str(args.size), "--calibrate", str(args.calibrate)]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"error": f"exit {done.returncode}: {tail}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell(result: dict, label: str, weights_mb: float) -> str:
    if "error" in result:
        return "-"
    entry = result["steps"][label]
    return (f"{entry['seconds']:.1f} s, {entry['peak_mb']:.0f} MB "
            f"({entry['peak_mb'] / weights_mb:.1f}x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="resnet18,resnet50,vit_b_16")
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--calibrate", type=int, default=2)
    parser.add_argument("--markdown")
    parser.add_argument("--child", choices=("qfx", "torch"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.models, args.size, args.calibrate)))
        return 0
    lines = ["| model | parameters | float weights | framework | " + " | ".join(STEPS) + " |",
             "|---|---|---|---|" + "---|" * len(STEPS)]
    for name in args.models.split(","):
        for framework in ("qfx", "torch"):
            result = run(framework, name, args)
            weights = result.get("weights_mb", float("nan"))
            head = (f"| {name} | {result.get('parameters', 0) / 1e6:.1f} M | {weights:.0f} MB "
                    f"| {'qfx' if framework == 'qfx' else 'PyTorch FX'} | ")
            if "error" in result:
                lines.append(head + f"{result['error']} |" + " |" * (len(STEPS) - 1))
            else:
                lines.append(head + " | ".join(cell(result, s, weights) for s in STEPS) + " |")
            print(lines[-1], flush=True)
    if args.markdown:
        pathlib.Path(args.markdown).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
