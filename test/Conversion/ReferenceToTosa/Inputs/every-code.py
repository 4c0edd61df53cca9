"""Writes the input that makes a reference model see every quantized code.

Usage: every-code.py REFERENCE.mlir OUT.npy

Row k of the (rows x 256) float input holds the 256 values of the k-th
distinct quantization of the function's argument (quant.qcast %arg0 to
!quant.uniform<u8:f32, SCALE:ZERO_POINT>): (q - zero_point) * scale for q in
0..255, which quantize back to exactly q. Remaining rows repeat the first."""

import re
import sys

import numpy as np

text = open(sys.argv[1]).read()
rows, columns = map(int, re.search(r"@main\(%arg0: tensor<(\d+)x(\d+)xf32>", text).groups())
assert columns == 256, "the argument must be <rows>x256"
types = []
for scale, zero_point in re.findall(
        r"quant\.qcast %arg0 : [^\n]* to tensor<[0-9x]*!quant\.uniform<u8:f32, ([^:>]+)(?::(\d+))?>>",
        text):
    if (scale, zero_point) not in types:
        types.append((scale, zero_point))
assert 0 < len(types) <= rows, f"{len(types)} quantizations of the argument, {rows} rows"
codes = np.arange(256, dtype=np.float32)
values = [(codes - np.float32(int(z or 0))) * np.float32(float(s)) for s, z in types]
values += [values[0]] * (rows - len(values))
np.save(sys.argv[2], np.stack(values).astype(np.float32))
print(f"{len(types)} quantization(s) of the argument: {types}")
