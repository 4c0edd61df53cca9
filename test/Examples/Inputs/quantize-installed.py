"""Quantizes a small CNN with qfx and prints where qfx came from and the int8
outputs (test/Examples/python-install.test). Arguments: the directory the
qfx package must come from, the directory its tools must come from."""

import pathlib
import sys

import numpy as np
import torch

import qfx
from qfx import _capi

package, prefix = (pathlib.Path(p).resolve() for p in sys.argv[1:3])
here = pathlib.Path(qfx.__file__).resolve()
assert here.is_relative_to(package), (here, package)
library = next(p for p in _capi._candidates() if p.is_file())
assert library.resolve().is_relative_to(prefix), (library, prefix)
tool = qfx.find_tool("quant-run").resolve()
assert tool.is_relative_to(prefix), (tool, prefix)
print(f"qfx from {here}")
print(f"C API from {library}")
print(f"quant-run from {tool}")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.relu = torch.nn.ReLU()
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.relu(self.bn(self.conv(x)))), 1))


torch.manual_seed(0)
model = Net().eval()
prepared = qfx.prepare_fx(model, qfx.get_default_qconfig_mapping("x86"),
                          (torch.zeros(2, 3, 8, 8),), outputs=None)
for _ in range(4):
    prepared(torch.randn(2, 3, 8, 8))
quantized = qfx.convert_fx(prepared)
out = np.asarray(quantized(torch.randn(2, 3, 8, 8)))
print("int8 outputs:", " ".join(f"{v:.6f}" for v in out.ravel()))
