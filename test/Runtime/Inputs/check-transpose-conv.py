"""Checks transpose-conv.test's output against the definition of
tosa.transpose_conv2d (weight and bias read from the test's IR)."""
import re
import sys

import numpy as np

text = open(sys.argv[1]).read()
weight = np.array(eval(re.search(r"dense<(\[\[\[\[.*?\]\]\]\])> : tensor<4x3x3x2xi8>", text)
                       .group(1)), np.int64)
bias = np.array([1, 2, 3, 4], np.int64)
x = np.load(sys.argv[2]).astype(np.int64) - 3
y = np.load(sys.argv[3])
expected = np.zeros((1, 7, 7, 4), np.int64)
for iy in range(3):
    for ix in range(3):
        for ky in range(3):
            for kx in range(3):
                expected[0, iy * 2 + ky, ix * 2 + kx] += weight[:, ky, kx, :] @ x[0, iy, ix]
expected = expected[:, 1:6, 1:6] + bias
assert y.dtype == np.int32 and y.shape == (1, 5, 5, 4), (y.dtype, y.shape)
assert np.array_equal(y, expected), (y - expected)
