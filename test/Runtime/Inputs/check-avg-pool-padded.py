"""Checks quant-run's result of avg-pool-int8-padded.mlir (3x3 windows,
stride 2, one row and column of padding) against each window's mean over
its elements inside the input, rounded half up (TOSA's avg_pool2d)."""
import sys

import numpy as np

x = np.load(sys.argv[1]).astype(np.int64)
y = np.load(sys.argv[2])
expected = np.zeros((1, 3, 3, 2), np.int64)
for i in range(3):
    for j in range(3):
        window = x[0, max(2 * i - 1, 0):2 * i + 2, max(2 * j - 1, 0):2 * j + 2]
        count = window.shape[0] * window.shape[1]
        expected[0, i, j] = (2 * window.sum(axis=(0, 1)) + count) // (2 * count)
if y.dtype != np.int8 or not np.array_equal(y, expected):
    sys.exit(f"got {y.dtype}\n{y[0, :, :, 0]}\nexpected\n{expected[0, :, :, 0]}")
