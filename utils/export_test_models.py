#!/usr/bin/env python3
"""Writes the small float test models and their PyTorch golden data.

Regenerate with (from the repository root, quant-opt built in build/bin):

    /usr/bin/python3 utils/export_test_models.py

For every model NAME it writes into test/Inputs/models/:
  NAME.mlir        float TOSA exported by qfx.export_tosa (validated with
                   quant-opt --tosa-attach-target=profiles=pro_fp --tosa-validate)
  NAME.input.npy   float32 input, batch 2, the function's argument shape
  NAME.output.npy  PyTorch 1.13's float output for that input
  NAME.calib.npy   float32 calibration data: 16 samples, each of the input's
                   shape (leading sample axis)

Models and data are deterministic (torch.manual_seed per model). The batch
norm statistics and affine parameters are randomized so that no batch norm is
an identity.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
import torch
import torch.nn as nn

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from qfx import export_tosa, quant_opt  # noqa: E402

BATCH = 2
CALIBRATION_SAMPLES = 16


def randomize_batch_norms(model: nn.Module) -> None:
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.AvgPool2d(2)
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.bn1(self.conv1(x))))
        x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
        return self.fc(torch.flatten(x, 1))


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.relu2 = nn.ReLU()

    def forward(self, x):
        out = self.bn2(self.conv2(self.relu1(self.bn1(self.conv1(x)))))
        return self.relu2(out + x)


class Concat(nn.Module):
    def __init__(self):
        super().__init__()
        self.branch1 = nn.Conv2d(4, 4, 1)
        self.branch2 = nn.Conv2d(4, 4, 3, padding=1)
        self.conv = nn.Conv2d(8, 6, 3, padding=1)

    def forward(self, x):
        return self.conv(torch.cat([self.branch1(x), self.branch2(x)], dim=1))


class SigmoidHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 3)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        return self.sigmoid(self.fc(x))


class Depthwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 16, 1)
        self.relu6 = nn.ReLU6()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = self.pool(self.relu6(self.pw(self.dw(x))))
        return self.fc(torch.flatten(x, 1))


class DepthwiseMultiplier(nn.Module):
    """A depthwise conv with channel multiplier 2 (TOSA weight HWCM with
    M = 2) and batch norm: per-channel weights along PyTorch's C*M axis."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 8, 3, padding=1, groups=4)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(self.relu(self.bn(self.dw(x))))
        return self.fc(torch.flatten(x, 1))


# name -> (model class, input shape without the batch axis)
MODELS = {
    "mlp": (MLP, (16,)),
    "cnn": (CNN, (3, 8, 8)),
    "residual": (Residual, (8, 6, 6)),
    "concat": (Concat, (4, 6, 6)),
    "sigmoid_head": (SigmoidHead, (12,)),
    "depthwise": (Depthwise, (8, 6, 6)),
    "depthwise_multiplier": (DepthwiseMultiplier, (4, 5, 5)),
}


def build(name: str):
    """The seeded eval-mode model NAME, its input and calibration data."""
    cls, shape = MODELS[name]
    torch.manual_seed(sum(map(ord, name)))
    model = cls()
    randomize_batch_norms(model)
    model.eval()
    x = torch.randn(BATCH, *shape)
    calib = torch.randn(CALIBRATION_SAMPLES, BATCH, *shape)
    return model, x, calib


def calibrated(name: str, backend: str, models: pathlib.Path):
    """PyTorch's prepare_fx of model NAME with get_default_qconfig_mapping(
    BACKEND), calibrated sample by sample on the committed NAME.calib.npy, and
    the committed NAME.input.npy: the golden generators' common start (the
    committed data is what qfx sees: use exactly it)."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import prepare_fx

    model, _, _ = build(name)
    x = torch.from_numpy(np.load(models / f"{name}.input.npy"))
    calib = torch.from_numpy(np.load(models / f"{name}.calib.npy"))
    prepared = prepare_fx(model, get_default_qconfig_mapping(backend), (x,))
    with torch.no_grad():
        for sample in calib:
            prepared(sample)
    return prepared, x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=REPO / "test" / "Inputs" / "models")
    parser.add_argument("names", nargs="*", default=list(MODELS), help="models to write (default: all)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names:
        model, x, calib = build(name)
        text = export_tosa(model, (x,))
        quant_opt(text, "--tosa-attach-target=profiles=pro_fp", "--tosa-validate")
        with torch.no_grad():
            y = model(x)
        header = (
            f"// {name}: float TOSA exported from PyTorch by qfx.export_tosa.\n"
            "// Regenerate with: /usr/bin/python3 utils/export_test_models.py\n"
        )
        (args.out / f"{name}.mlir").write_text(header + text)
        np.save(args.out / f"{name}.input.npy", x.numpy().astype(np.float32))
        np.save(args.out / f"{name}.output.npy", y.numpy().astype(np.float32))
        np.save(args.out / f"{name}.calib.npy", calib.numpy().astype(np.float32))
        print(f"wrote {name}: input {tuple(x.shape)} -> output {tuple(y.shape)}")


if __name__ == "__main__":
    main()
