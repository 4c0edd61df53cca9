"""A small NumPy evaluator of float TOSA, for testing the exporter.

It covers exactly the ops `qfx.exporter` prints, with the TOSA 1.0 meaning
of each (NHWC convolutions with OHWI / HWCM weights, pads that are not
counted by avg_pool2d, ...), so the exporter's layouts and padding can be
checked against PyTorch without a compiler. It reads quant-opt's generic
form with every elements attribute in hex, so constants are read back
exactly as MLIR parsed them:

    quant-opt X.mlir --mlir-print-op-generic --mlir-print-elementsattrs-with-hex-if-larger=0

This is not qfx's runner: `quant-run` executes models through MLIR.
"""

from __future__ import annotations

import math
import re
from typing import Callable, Dict, List, Sequence

import numpy as np

from qfx.tools import quant_opt

_OP = re.compile(r'^\s*(?:(%[\w.$]+) = )?"([\w.]+)"\((.*?)\)(.*) : \((.*?)\) -> (.+)$')
_BLOCK_ARGS = re.compile(r"^\s*\^bb0\((.*)\):\s*$")


def _shape_of(type_text: str):
    m = re.search(r"tensor<((?:\d+x)*)(\w+)>", type_text)
    if m is None:
        shape = re.search(r"!tosa\.shape<(\d+)>", type_text)
        return (int(shape.group(1)),), "index"
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, m.group(2)


_DTYPES = {"f32": np.float32, "i8": np.int8, "index": np.int64, "i32": np.int32, "i64": np.int64}


def _dense(text: str, type_text: str) -> np.ndarray:
    shape, element = _shape_of(type_text)
    dtype = _DTYPES[element]
    m = re.search(r'values = dense<"0x([0-9A-Fa-f]*)">', text)
    if m:
        flat = np.frombuffer(bytes.fromhex(m.group(1)), dtype=dtype)
        if flat.size == 1:
            return np.full(shape, flat[0], dtype)
        return flat.reshape(shape).copy()
    m = re.search(r"values = dense<([^\[\]\"<>]+)>", text)
    if m:
        return np.full(shape, _scalar(m.group(1), dtype), dtype)
    raise ValueError(f"cannot read the constant in: {text}")


def _scalar(token: str, dtype):
    token = token.strip()
    if token.startswith("0x"):
        return np.array([int(token, 16)], np.uint32).view(np.float32)[0]
    if token in ("true", "false"):
        return dtype(token == "true")
    return dtype(float(token))


def _ints(attrs: str, key: str) -> List[int]:
    m = re.search(rf"\b{key} = array<i\d+: ([-\d, ]+)>", attrs)
    if m is None:
        raise ValueError(f"missing {key} in {attrs}")
    return [int(v) for v in m.group(1).split(",")]


def _float_attr(attrs: str, key: str) -> float:
    m = re.search(rf"\b{key} = ([^ ,}}>]+) : f32", attrs)
    return float(_scalar(m.group(1), np.float32))


def _windows(x: np.ndarray, kernel, stride, dilation, out_hw):
    """Yields (ky, kx, view) with view[n, oh, ow, c] = x[n, oh*s + ky*d, ow*s + kx*d, c]."""
    for ky in range(kernel[0]):
        for kx in range(kernel[1]):
            y0, x0 = ky * dilation[0], kx * dilation[1]
            yield ky, kx, x[
                :,
                y0 : y0 + (out_hw[0] - 1) * stride[0] + 1 : stride[0],
                x0 : x0 + (out_hw[1] - 1) * stride[1] + 1 : stride[1],
                :,
            ]


def _pad_hw(x: np.ndarray, pad, value) -> np.ndarray:
    return np.pad(x, ((0, 0), (pad[0], pad[1]), (pad[2], pad[3]), (0, 0)), constant_values=value)


def _conv(op, operands, attrs, out_shape):
    x, w, b = operands[:3]
    pad, stride, dilation = _ints(attrs, "pad"), _ints(attrs, "stride"), _ints(attrs, "dilation")
    xp = _pad_hw(x.astype(np.float64), pad, 0.0)
    acc = np.zeros(out_shape, np.float64)
    kernel = w.shape[1:3] if op == "tosa.conv2d" else w.shape[0:2]
    for ky, kx, view in _windows(xp, kernel, stride, dilation, out_shape[1:3]):
        if op == "tosa.conv2d":
            acc += np.einsum("nhwc,oc->nhwo", view, w[:, ky, kx, :].astype(np.float64))
        else:
            part = np.einsum("nhwc,cm->nhwcm", view, w[ky, kx].astype(np.float64))
            acc += part.reshape(out_shape)
    return (acc + b.astype(np.float64)).astype(np.float32)


def _conv3d(operands, attrs, out_shape):
    x, w, b = (o.astype(np.float64) for o in operands[:3])
    pad, stride, dilation = _ints(attrs, "pad"), _ints(attrs, "stride"), _ints(attrs, "dilation")
    xp = np.pad(x, ((0, 0), (pad[0], pad[1]), (pad[2], pad[3]), (pad[4], pad[5]), (0, 0)))
    acc = np.zeros(out_shape, np.float64)
    for k in np.ndindex(*w.shape[1:4]):
        view = xp[(slice(None),) + tuple(
            slice(k[i] * dilation[i], k[i] * dilation[i] + (out_shape[1 + i] - 1) * stride[i] + 1,
                  stride[i]) for i in range(3))]
        acc += np.einsum("ndhwc,oc->ndhwo", view, w[:, k[0], k[1], k[2], :])
    return (acc + b).astype(np.float32)


def _max_pool(operands, attrs, out_shape):
    x = operands[0]
    kernel, stride, pad = _ints(attrs, "kernel"), _ints(attrs, "stride"), _ints(attrs, "pad")
    xp = _pad_hw(x, pad, -np.inf)
    out = np.full(out_shape, -np.inf, np.float32)
    for _, _, view in _windows(xp, kernel, stride, (1, 1), out_shape[1:3]):
        out = np.maximum(out, view)
    return out


def _avg_pool(operands, attrs, out_shape):
    x = operands[0]
    kernel, stride, pad = _ints(attrs, "kernel"), _ints(attrs, "stride"), _ints(attrs, "pad")
    xp = _pad_hw(x.astype(np.float64), pad, 0.0)
    valid = _pad_hw(np.ones((1,) + x.shape[1:3] + (1,)), pad, 0.0)
    total = np.zeros(out_shape, np.float64)
    count = np.zeros((1,) + tuple(out_shape[1:3]) + (1,))
    for (_, _, view), (_, _, ones) in zip(
        _windows(xp, kernel, stride, (1, 1), out_shape[1:3]),
        _windows(valid, kernel, stride, (1, 1), out_shape[1:3]),
    ):
        total += view
        count += ones
    return (total / count).astype(np.float32)


def _slice(operands, attrs, out_shape):
    x, start = operands[0], operands[1]
    index = tuple(slice(int(s), int(s) + n) for s, n in zip(start, out_shape))
    return x[index]


def _binary(fn):
    return lambda operands, attrs, out_shape: fn(operands[0], operands[1]).astype(np.float32)


_EVAL: Dict[str, Callable] = {
    "tosa.add": _binary(np.add),
    "tosa.mul": _binary(np.multiply),
    "tosa.sub": _binary(np.subtract),
    "tosa.exp": lambda o, a, s: np.exp(o[0]),
    "tosa.erf": lambda o, a, s: np.vectorize(math.erf, otypes=[np.float32])(o[0]),
    # Booleans are held as 0.0 and 1.0.
    "tosa.greater": _binary(np.greater),
    "tosa.select": lambda o, a, s: np.where(o[0] != 0, o[1], o[2]),
    "tosa.clamp": lambda o, a, s: np.clip(o[0], _float_attr(a, "min_val"), _float_attr(a, "max_val")),
    "tosa.sigmoid": lambda o, a, s: (1.0 / (1.0 + np.exp(-o[0].astype(np.float64)))).astype(np.float32),
    "tosa.tanh": lambda o, a, s: np.tanh(o[0]),
    "tosa.transpose": lambda o, a, s: np.transpose(o[0], _ints(a, "perms")),
    "tosa.reshape": lambda o, a, s: o[0].reshape(s),
    "tosa.concat": lambda o, a, s: np.concatenate(
        o, axis=int(re.search(r"axis = (-?\d+) : i32", a).group(1))
    ),
    "tosa.slice": _slice,
    "tosa.matmul": lambda o, a, s: np.matmul(o[0].astype(np.float64), o[1].astype(np.float64)).astype(
        np.float32
    ),
    "tosa.reduce_sum": lambda o, a, s: np.sum(
        o[0].astype(np.float64), axis=int(re.search(r"axis = (\d+) : i32", a).group(1)),
        keepdims=True),
    "tosa.reduce_max": lambda o, a, s: np.max(
        o[0], axis=int(re.search(r"axis = (\d+) : i32", a).group(1)), keepdims=True),
    "tosa.reciprocal": lambda o, a, s: (1.0 / o[0]).astype(np.float32),
    "tosa.rsqrt": lambda o, a, s: (1.0 / np.sqrt(o[0])).astype(np.float32),
    "tosa.tile": lambda o, a, s: np.tile(o[0], [n // m for n, m in zip(s, o[0].shape)]),
    "tosa.conv3d": lambda o, a, s: _conv3d(o, a, s),
    "tosa.max_pool2d": _max_pool,
    "tosa.avg_pool2d": _avg_pool,
}


def evaluate(mlir: str, inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    """Runs the single function of `mlir` (float TOSA text) on `inputs`."""
    generic = quant_opt(mlir, "--qfx-inline-composites", "--mlir-print-op-generic", "--mlir-print-elementsattrs-with-hex-if-larger=0")
    env: Dict[str, np.ndarray] = {}
    for line in generic.splitlines():
        block = _BLOCK_ARGS.match(line)
        if block:
            names = [arg.split(":")[0].strip() for arg in re.split(r",\s*(?=%)", block.group(1))]
            if len(names) != len(inputs):
                raise ValueError(f"the function takes {len(names)} inputs, got {len(inputs)}")
            for name, value in zip(names, inputs):
                env[name] = np.asarray(value, np.float32)
            continue
        m = _OP.match(line)
        if m is None:
            continue
        result, op, operand_text, attrs, _, result_type = m.groups()
        operands = [env[name.strip()] for name in operand_text.split(",") if name.strip()]
        if op == "func.return":
            return operands
        if op in ("tosa.const", "tosa.const_shape"):
            env[result] = _dense(attrs, result_type)
            continue
        out_shape, _ = _shape_of(result_type)
        if op in ("tosa.conv2d", "tosa.depthwise_conv2d"):
            value = _conv(op, operands, attrs, out_shape)
        elif op in _EVAL:
            value = _EVAL[op](operands, attrs, out_shape)
        else:
            raise NotImplementedError(f"the reference evaluator does not know {op}")
        value = np.asarray(value, np.float32)
        if value.shape != tuple(out_shape):
            raise ValueError(f"{op}: computed shape {value.shape}, the IR says {out_shape}")
        env[result] = value
    raise ValueError("no func.return found")
