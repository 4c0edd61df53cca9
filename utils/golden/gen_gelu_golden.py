#!/usr/bin/python3
# ===- gen_gelu_golden.py - PyTorch's float GELU as golden data -----------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# Writes test/Unit/Numerics/golden/gelu_golden.json: F.gelu
# (approximate='none') of PyTorch 1.13 (Debian's python3-torch) on float32
# inputs spread over every binade and dense where GELU bends, which
# QFXNumericsTests compares with qfx::geluAsPyTorch bit for bit. On x86-64
# aten hands a contiguous float tensor of more than one element to oneDNN's
# eltwise_gelu_erf, as in a converted model. Regenerate with:
#
#   /usr/bin/python3 utils/golden/gen_gelu_golden.py \
#       test/Unit/Numerics/golden/gelu_golden.json
#
# With --exhaustive it instead compares qfx's native GELU (the compiled
# float program, qfx-lower-gelu's arithmetic) with F.gelu on every finite
# float32, 2^24 values at a time, and prints the number that differ (about
# 15 minutes on one core; run with PYTHONPATH=python and QFX_BUILD_DIR set).
# DNNL_MAX_CPU_ISA=AVX2 makes PyTorch run oneDNN's AVX2 kernel instead of
# its AVX-512 one.
#
# ===----------------------------------------------------------------------===#

import json
import sys

import numpy as np
import torch
import torch.nn.functional as F


def gelu_bits(x):
    """F.gelu of a float32 array, as uint32 bit patterns."""
    return F.gelu(torch.from_numpy(x)).numpy().view(np.uint32)


def golden(path):
    rng = np.random.default_rng(20261126)
    # Bit patterns spread evenly over the finite floats of each sign
    # (subnormals to FLT_MAX), values dense in [-8, 8], and cases that
    # mattered: the ConvNeXt GELU input whose output lies on a rounding tie
    # of its quantization (test_convnext_blocks_match_pytorch), zeros, the
    # smallest subnormal, the largest finite value.
    spread = np.linspace(0, 0x7F7FFFFF, 1024, dtype=np.uint64).astype(np.uint32)
    spread = np.concatenate([spread, spread | np.uint32(0x80000000)]).view(np.float32)
    dense = rng.uniform(-8, 8, 2048).astype(np.float32)
    special = np.array([1.7762668132781982, 0.0, -0.0, 1e-45, -1e-45,
                        3.4028234663852886e38, -3.4028234663852886e38],
                       dtype=np.float32)
    x = np.concatenate([special, dense, spread]).astype(np.float32)
    data = {
        "generator": "utils/golden/gen_gelu_golden.py",
        "torch": torch.__version__,
        "input": x.view(np.uint32).tolist(),
        "gelu": gelu_bits(x).tolist(),
    }
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")


def exhaustive():
    import qfx
    from qfx import _capi

    chunk = 1 << 24
    model = _capi.Model(qfx.export_tosa(torch.nn.GELU().eval(), (torch.zeros(chunk),)),
                        "gelu.mlir")
    differ = 0
    for start in range(0, 1 << 32, chunk):
        x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
        finite = np.isfinite(x)
        x = np.where(finite, x, np.float32(0))
        ours = model([x])[0].view(np.uint32)
        differ += int(((ours != gelu_bits(x)) & finite).sum())
    print(f"{differ} finite float32 values differ")
    return differ


if __name__ == "__main__":
    if sys.argv[1:] == ["--exhaustive"]:
        sys.exit(1 if exhaustive() else 0)
    if len(sys.argv) != 2:
        sys.exit("usage: gen_gelu_golden.py OUTPUT.json | --exhaustive")
    golden(sys.argv[1])
