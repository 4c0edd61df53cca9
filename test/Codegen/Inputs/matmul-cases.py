#!/usr/bin/env python3
"""Writes random qfx.contract ops as qfx-lower writes them for a Linear and
a Conv2d (matmul, conv2d and depthwise_conv2d with a constant weight and an
epilogue: TOSA's integer requantization, #qfx.rescale, with or without
fraction bits and a bias; or the float one of PyTorch's engines,
#qfx.requantize, per tensor or per channel, onednn's and qnnpack's forms),
optionally followed by an int8 tosa.clamp (which qfx-int8-clamps folds into
the epilogue), and random inputs, for comparing qfx-codegen's kernels with
the generic lowering of the same op (qfx-contract-to-tosa).

Usage: matmul-cases.py OUTDIR  -> OUTDIR/NAME.mlir, OUTDIR/NAME.npy; prints
the case names, one per line: each shape with the integer requantization
(caseN, convN, depthwiseN, groupedN) and with the float one (caseNf, ...);
float TOSA matmuls and convolutions, which qfx-tosa-to-contract gives the
float kernels (fcaseN, fconvN, and fgroupedN with block-diagonal weights,
whose zero ends they skip; fbatchN, batched matmuls of two values computed
at run time); and programs of two contractions of the same
shape, one after the other, each with its own weights, zero points and
requantization (sharedN, sharedNf), which qfx-codegen runs with one kernel;
and contractions without epilogue followed by TOSA's requantization of
their doubled sums (rawcaseN, rawconvN, rawdepthwiseN), whose kernels store
the int32 sums; and int8 max pools (poolN).
"""

import pathlib
import re
import sys

import numpy as np

# (M, N, K): ones, odd sizes, K not a multiple of 4 or 64, N not a multiple
# of 16, more than one microkernel tile in each direction.
SHAPES = [(1, 1, 1), (1, 16, 4), (2, 10, 16), (3, 17, 5), (8, 32, 64),
          (9, 33, 67), (16, 64, 128), (17, 48, 3), (1, 100, 300),
          (24, 16, 256), (5, 1, 9), (13, 31, 66)]


# The shapes of SHAPES that the float kernels' cases use (fcaseN): ones,
# odd sizes, N not a multiple of 16, K = 300.
FLOAT_SHAPES = (0, 3, 5, 7, 8, 11)


# (B, M, N, K) of float matmuls by a weight computed at run time (fbatchN):
# ones, N not a multiple of any target's lanes, one row, more tiles than
# one in each direction; attention's scores of 4 heads (threads over the
# heads) and one batch with the work for threads of its own.
RUNTIME_SHAPES = [(1, 1, 1, 1), (2, 3, 20, 5), (3, 9, 33, 67), (1, 1, 100, 30),
                  (4, 128, 128, 64), (1, 64, 256, 256)]


# (N, H, W, C, O, KH, KW, stride, pad [t, b, l, r], dilation): 1x1 and 3x3,
# strides, asymmetric padding, dilation, channel counts not a multiple of 4
# or 16, a batch of 2; a 7x7 stride-2 stem on 3 channels and a 5x5 on one,
# whose kernels read a kernel row as one tap.
CONVS = [(1, 6, 6, 8, 16, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
         (2, 5, 7, 3, 5, 3, 3, (2, 1), (1, 1, 2, 1), (1, 1)),
         (1, 9, 9, 17, 33, 3, 3, (2, 2), (0, 0, 0, 0), (1, 1)),
         (1, 7, 7, 4, 7, 3, 3, (1, 1), (2, 2, 2, 2), (2, 2)),
         (1, 4, 4, 32, 24, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1)),
         (2, 8, 5, 6, 18, 5, 3, (1, 2), (2, 2, 1, 1), (1, 1)),
         (1, 13, 12, 3, 20, 7, 7, (2, 2), (3, 3, 3, 2), (1, 1)),
         (1, 8, 8, 1, 4, 5, 5, (1, 1), (2, 2, 2, 2), (1, 1))]


# (N, H, W, C, multiplier, KH, KW, stride, pad [t, b, l, r], dilation): 3x3
# and 5x3, strides, asymmetric padding, dilation, channel counts that fill
# vectors and that do not (of 4, 8 and 16 lanes), channel multipliers that
# divide the lanes and one that does not, a batch of 2.
DEPTHWISE = [(1, 8, 8, 32, 1, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
             (2, 7, 6, 20, 1, 3, 3, (2, 2), (1, 1, 0, 1), (1, 1)),
             (1, 9, 9, 8, 2, 3, 3, (1, 1), (2, 2, 2, 2), (2, 2)),
             (1, 6, 7, 5, 3, 5, 3, (1, 2), (2, 2, 1, 1), (1, 1)),
             (1, 5, 5, 3, 1, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1)),
             (1, 4, 4, 16, 4, 3, 3, (2, 1), (1, 0, 1, 1), (1, 1))]


# (N, H, W, C, O, KH, KW, stride, pad [t, b, l, r], dilation, groups): a
# grouped convolution as qfx's exporter writes it, a conv2d whose weight is
# zero outside each output channel's group (the kernels skip the zeros at
# either end of a column block's channels): groups as wide as a vector of
# output channels, narrower (a column block spans several), with channels per
# group not a multiple of 4, 1x1, and a last case whose output channels 16 to
# 31 have no nonzero weight at all.
GROUPED = [(1, 7, 7, 64, 64, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 4),
           (1, 7, 7, 40, 40, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1), 5),
           (2, 5, 5, 48, 96, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1), 3),
           (1, 5, 6, 30, 20, 3, 3, (1, 1), (1, 0, 2, 1), (1, 1), 10),
           (1, 5, 5, 48, 48, 3, 3, (1, 1), (1, 1, 1, 1), (2, 2), 3)]


def dense(values: np.ndarray, dtype: str) -> str:
    return "dense<" + np.array2string(values, separator=", ", threshold=1 << 30,
                                      max_line_width=1 << 30) + f"> : tensor<{'x'.join(map(str, values.shape))}x{dtype}>"


def finish(rng: np.random.Generator, shape: str, clamp: bool) -> list:
    """The end of a chain whose int8 result is %r of type tensor<SHAPExi8>:
    optionally a tosa.clamp to a random range, the return."""
    value = "%r"
    lines = []
    if clamp:
        lo, hi = sorted(int(x) for x in rng.integers(-128, 128, size=2))
        lines.append(f"  %c = tosa.clamp %r {{min_val = {lo} : i8, max_val = {hi} : i8}} : (tensor<{shape}xi8>) -> tensor<{shape}xi8>")
        value = "%c"
    return lines + [f"  return {value} : tensor<{shape}xi8>", "}"]


def tosa_epilogue(rng: np.random.Generator, index: int, shape: str, n: int, value: str) -> list:
    """tosa.mul by 2^f, tosa.add of a bias, tosa.rescale, tosa.clamp on the
    int32 VALUE of type tensor<SHAPExi32> with N channels, by INDEX: the
    TOSA that follows a contraction without epilogue."""
    rank = shape.count("x") + 1
    ones = "x".join(["1"] * rank)
    bias_shape = "x".join(["1"] * (rank - 1) + [str(n)])
    per_channel = index % 2 == 0
    channels = n if per_channel else 1
    multipliers = rng.integers(1 << 30, (1 << 31) - 1, size=channels)
    shifts = rng.integers(30, 46, size=channels)
    out_zp = int(rng.integers(-128, 128))
    fraction = [0, 0, 3, 8][index % 4]
    lines = []
    if fraction:
        lines.append(f'  %f = "tosa.const"() <{{values = dense<{1 << fraction}> : tensor<{ones}xi32>}}> : () -> tensor<{ones}xi32>')
        lines.append('  %s0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
        lines.append(f"  %scaled = tosa.mul {value}, %f, %s0 : (tensor<{shape}xi32>, tensor<{ones}xi32>, tensor<1xi8>) -> tensor<{shape}xi32>")
        value = "%scaled"
    bias = rng.integers(-(1 << 20), 1 << 20, size=n, dtype=np.int64)
    lines.append(f'  %b = "tosa.const"() <{{values = {dense(bias.reshape([1] * (rank - 1) + [n]), "i32")}}}> : () -> tensor<{bias_shape}xi32>')
    lines.append(f"  %biased = tosa.add {value}, %b : (tensor<{shape}xi32>, tensor<{bias_shape}xi32>) -> tensor<{shape}xi32>")
    lines.append(f'  %mult = "tosa.const"() <{{values = {dense(multipliers, "i32")}}}> : () -> tensor<{channels}xi32>')
    lines.append(f'  %shift = "tosa.const"() <{{values = {dense(shifts, "i8")}}}> : () -> tensor<{channels}xi8>')
    lines.append('  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>')
    lines.append(f'  %ozp = "tosa.const"() <{{values = dense<{out_zp}> : tensor<1xi8>}}> : () -> tensor<1xi8>')
    per = "true" if per_channel else "false"
    lines.append(f"  %r = tosa.rescale %biased, %mult, %shift, %izp, %ozp {{input_unsigned = false, output_unsigned = false, per_channel = {per}, rounding_mode = SINGLE_ROUND, scale32 = true}} : (tensor<{shape}xi32>, tensor<{channels}xi32>, tensor<{channels}xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<{shape}xi8>")
    return lines + finish(rng, shape, index % 4 in (1, 2))


def ints(values) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def f32s(values) -> str:
    return "[" + ", ".join(f"{float(v):.9e}" for v in values) + "]"


def epilogue(rng: np.random.Generator, index: int, n: int, depth: int) -> tuple:
    """A #qfx.rescale epilogue for N channels, by INDEX (per channel or per
    tensor, fraction bits 0, 3 or 8, with or without a bias), and whether a
    tosa.clamp follows (DEPTH, the products summed per output, is
    unused)."""
    per_channel = index % 2 == 0
    channels = n if per_channel else 1
    multipliers = rng.integers(1 << 30, (1 << 31) - 1, size=channels)
    shifts = rng.integers(30, 46, size=channels)
    out_zp = int(rng.integers(-128, 128))
    fraction = [0, 0, 3, 8][index % 4]
    bias = rng.integers(-(1 << 20), 1 << 20, size=n) if index % 3 != 2 else []
    attr = (f"#qfx.rescale<fraction_bits = {fraction}, bias = {ints(bias)}, "
            f"multipliers = {ints(multipliers)}, shifts = {ints(shifts)}, "
            f"output_zp = {out_zp}, min = -128, max = 127>")
    return attr, index % 4 in (1, 2)


def float_epilogue(rng: np.random.Generator, index: int, n: int, depth: int) -> tuple:
    """A #qfx.requantize epilogue for N channels, by INDEX: onednn's with a
    u8 zero point (a float zero point, then -128 as an integer), onednn's
    with an s8 zero point (no integer one), qnnpack's (no float zero point,
    an integer one after rounding); per-channel or per-tensor multipliers
    scaled to the spread of a sum of DEPTH int8 products, some powers of two
    with a whole-number bias (so that results fall on exact halves, which
    round to even); its bounds narrowed at random. And whether a tosa.clamp
    follows."""
    form = ["u8", "s8", "qnnpack"][index % 3]
    channels = n if index % 2 == 0 else 1
    # About 40 steps of output per standard deviation of the accumulator.
    spread = 40 / (74 * 74 * np.sqrt(depth))
    ties = index % 4 == 0
    if ties:
        multipliers = 2.0 ** np.round(np.log2(spread) + rng.integers(-1, 2, size=channels))
    else:
        multipliers = spread * rng.uniform(0.3, 3, size=channels)
    multipliers = multipliers.astype(np.float32)
    bias = []
    if form != "qnnpack" and index % 5 != 4:
        bias = rng.uniform(-1, 1, size=n) * 74 * 74 * np.sqrt(depth)
        bias = (np.round(bias) if ties else bias).astype(np.float32)
    int_zp = {"u8": -128, "s8": 0, "qnnpack": int(rng.integers(-128, 128))}[form]
    zp = 0
    if form != "qnnpack":
        zp = int(rng.integers(0, 256)) if form == "u8" else int(rng.integers(-128, 128))
    lo, hi = -128 - int_zp, 127 - int_zp
    if index % 4 in (1, 2):
        lo, hi = sorted(int(x) for x in rng.integers(lo, hi + 1, size=2))
    attr = (f"#qfx.requantize<bias = {f32s(bias)}, multipliers = {f32s(multipliers)}, "
            f"zero_point = {float(zp):.1f}, min = {float(lo):.1f}, max = {float(hi):.1f}, "
            f"output_zp = {int_zp}>")
    return attr, index % 3 == 1


def contract(kind: str, a_zp: int, attrs: str, epilogue_attr: str, operands: str,
             types: str, out: str) -> str:
    """A qfx.contract of KIND with the input zero point, further ATTRS and
    EPILOGUE_ATTR as %r, or without one (the int32 sums) as %acc."""
    fields = [f"input_zp = {a_zp} : i64"] + ([attrs] if attrs else [])
    if epilogue_attr:
        fields.append(f"epilogue = {epilogue_attr}")
    name, element = ("%r", "i8") if epilogue_attr else ("%acc", "i32")
    return (f"  {name} = qfx.contract {kind} {operands} {{{', '.join(fields)}}} : "
            f"({types}) -> tensor<{out}x{element}>")


def tail_of(rng: np.random.Generator, tail, index: int, shape: str, n: int, depth: int) -> list:
    """The contraction's epilogue and the lines after it: TAIL is epilogue
    or float_epilogue (an epilogue attribute, maybe a tosa.clamp), or
    raw_epilogue (no attribute; TOSA on the doubled int32 sums)."""
    if tail is raw_epilogue:
        return None, raw_epilogue(rng, index, shape, n, "%acc")
    attr, clamp = tail(rng, index, n, depth)
    return attr, finish(rng, shape, clamp)


def conv_chain(rng: np.random.Generator, conv: tuple, index: int, kind: str, o: int,
               weight_shape: tuple, tail=epilogue, draw=None) -> tuple:
    """A qfx.contract of KIND (conv2d or depthwise_conv2d) on an N x H x W x
    C input with O output channels, a random constant weight of
    WEIGHT_SHAPE and an int32 bias, and its input shape. Draws the weight,
    the bias, the input zero point, then the epilogue's values from RNG, in
    that order."""
    n, h, w, c, _, kh, kw, stride, pad, dilation = conv
    oh = (h + pad[0] + pad[1] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    weight = (draw or (lambda size, dtype: rng.integers(-128, 128, size=size, dtype=dtype)))(
        weight_shape, np.int64)
    bias = rng.integers(-(1 << 12), 1 << 12, size=o, dtype=np.int64)
    a_zp = int(rng.integers(-128, 128))
    inp = f"{n}x{h}x{w}x{c}"
    wt = "x".join(map(str, weight_shape))
    out = f"{n}x{oh}x{ow}x{o}"
    lines = [f"func.func @main(%a: tensor<{inp}xi8>) -> tensor<{out}xi8> {{"]
    lines.append(f'  %w = "tosa.const"() <{{values = {dense(weight, "i8")}}}> : () -> tensor<{wt}xi8>')
    lines.append(f'  %cb = "tosa.const"() <{{values = {dense(bias, "i32")}}}> : () -> tensor<{o}xi32>')
    attr, after = tail_of(rng, tail, index, out, o, kh * kw * (c if kind == "conv2d" else 1))
    geometry = (f"dilation = array<i64: {dilation[0]}, {dilation[1]}>, "
                f"pad = array<i64: {', '.join(map(str, pad))}>, "
                f"stride = array<i64: {stride[0]}, {stride[1]}>")
    lines.append(contract(kind, a_zp, geometry, attr, "%a, %w bias(%cb)",
                          f"tensor<{inp}xi8>, tensor<{wt}xi8>, tensor<{o}xi32>", out))
    return "\n".join(lines + after) + "\n", (n, h, w, c)


def conv_case(rng: np.random.Generator, conv: tuple, index: int, tail) -> tuple:
    """A conv2d chain and its input shape."""
    _, _, _, c, o, kh, kw, _, _, _ = conv
    return conv_chain(rng, conv, index, "conv2d", o, (o, kh, kw, c), tail)


def block_diagonal(values: np.ndarray, groups: int, index: int) -> np.ndarray:
    """An OHWI weight zeroed outside each output channel's group, as
    GROUPED[index] wants it."""
    o, c = values.shape[0], values.shape[3]
    per_in, per_out = c // groups, o // groups
    for g in range(groups):
        values[g * per_out:(g + 1) * per_out, :, :, :g * per_in] = 0
        values[g * per_out:(g + 1) * per_out, :, :, (g + 1) * per_in:] = 0
    if index == len(GROUPED) - 1:
        values[16:32] = 0
    return values


def grouped_case(rng: np.random.Generator, conv: tuple, index: int, tail) -> tuple:
    """A conv2d chain with a block-diagonal weight and its input shape."""
    _, _, _, c, o, kh, kw, _, _, _, groups = conv

    def draw(size, dtype):
        return block_diagonal(rng.integers(-128, 128, size=size, dtype=dtype), groups, index)

    return conv_chain(rng, conv[:10], index, "conv2d", o, (o, kh, kw, c), tail, draw)


def depthwise_case(rng: np.random.Generator, conv: tuple, index: int, tail) -> tuple:
    """A depthwise_conv2d chain and its input shape."""
    _, _, _, c, mult, kh, kw, _, _, _ = conv
    return conv_chain(rng, conv, index, "depthwise_conv2d", c * mult, (kh, kw, c, mult), tail)


# What sharedN chains twice: a square matmul (M, K) x (K, K), a conv2d and a
# depthwise_conv2d whose output has their input's shape.
SHARED = [("matmul", (5, 24)),
          ("conv", (1, 6, 6, 8, 8, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1))),
          ("depthwise", (1, 8, 8, 16, 1, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)))]


def twice(first: str, second: str) -> str:
    """One @main of two chains (case texts whose result has their input's
    type): the second, its values renamed, on the first's result."""
    a, b = first.splitlines(), second.splitlines()
    result = a[-2].split()[1]  # "  return %r : tensor<...>"
    renamed = [re.sub(r"%(\w+)", r"%\1_2", line) for line in b[1:]]
    return "\n".join(a[:-2] + [line.replace("%a_2", result) for line in renamed]) + "\n"


def shared_case(rng: np.random.Generator, kind: str, shape: tuple, index: int,
                tail) -> tuple:
    """Two chains of SHARED's KIND, with the same epilogue structure (INDEX),
    and the input shape."""
    if kind == "matmul":
        m, k = shape
        return twice(case(rng, m, k, k, index, tail), case(rng, m, k, k, index, tail)), (1, m, k)
    write = conv_case if kind == "conv" else depthwise_case
    (first, input_shape), (second, _) = (write(rng, shape, index, tail) for _ in range(2))
    return twice(first, second), input_shape


# What rawN chains: matmuls (N not a multiple of 16), a conv2d with C = 3
# (padded to a group) and one with a batch of 2, depthwise convolutions and
# a global average pool's window sum (7x7 window over a 7x7 input).
RAW = [("rawcase", (3, 17, 5)), ("rawcase", (9, 33, 67)), ("rawconv", CONVS[1]),
       ("rawconv", CONVS[5]), ("rawdepthwise", DEPTHWISE[1]), ("rawdepthwise", DEPTHWISE[3]),
       ("rawdepthwise", (1, 7, 7, 20, 1, 7, 7, (7, 7), (0, 0, 0, 0), (1, 1)))]


def raw_epilogue(rng: np.random.Generator, index: int, shape: str, n: int, value: str) -> list:
    """tosa_epilogue() after the int32 sums VALUE are doubled (a global
    average pool's rounding division starts so): the contraction has no
    epilogue, its kernel stores the sums and the rest runs as TOSA."""
    lines = [f"  %dbl = tosa.add {value}, {value} : (tensor<{shape}xi32>, tensor<{shape}xi32>) "
             f"-> tensor<{shape}xi32>"]
    return lines + tosa_epilogue(rng, index, shape, n, "%dbl")


# What poolN max-pools (N, H, W, C, KH, KW, stride, pad [t, b, l, r]):
# PyTorch's ceil mode (padding at the bottom and right only), padding on all
# sides, a batch of 2, channel counts that fill byte vectors (of 16, 32 and
# 64) and that leave a remainder of one to 63, and a window the size of the
# input.
POOLS = [(1, 10, 10, 70, 3, 3, (2, 2), (0, 1, 0, 1)),
         (2, 8, 7, 64, 3, 3, (1, 1), (1, 1, 1, 1)),
         (1, 6, 6, 3, 2, 2, (2, 2), (0, 0, 0, 0)),
         (1, 7, 5, 129, 5, 3, (2, 1), (2, 2, 1, 1)),
         (1, 4, 4, 16, 4, 4, (1, 1), (0, 0, 0, 0)),
         (1, 5, 5, 127, 3, 3, (2, 2), (1, 1, 1, 1))]


def pool_case(pool: tuple) -> str:
    """An int8 max_pool2d."""
    n, h, w, c, kh, kw, stride, pad = pool
    oh = (h + pad[0] + pad[1] - kh) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - kw) // stride[1] + 1
    inp, out = f"{n}x{h}x{w}x{c}xi8", f"{n}x{oh}x{ow}x{c}xi8"
    return "\n".join([
        f"func.func @main(%a: tensor<{inp}>) -> tensor<{out}> {{",
        f"  %y = tosa.max_pool2d %a {{kernel = array<i64: {kh}, {kw}>, pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {stride[0]}, {stride[1]}>}} : (tensor<{inp}>) -> tensor<{out}>",
        f"  return %y : tensor<{out}>",
        "}"]) + "\n"


def floats(values: np.ndarray) -> str:
    """A dense f32 constant: nested lists, each value exactly ("%.9e")."""
    text = np.array2string(values, separator=", ", threshold=1 << 30,
                           max_line_width=1 << 30,
                           formatter={"float_kind": lambda v: f"{v:.9e}"})
    shape = "x".join(map(str, values.shape))
    return f"dense<{text}> : tensor<{shape}xf32>"


def float_conv_case(rng: np.random.Generator, conv: tuple, index: int = 0) -> tuple:
    """A float conv2d (f32 input, random constant weight and bias, zero
    points 0.0) and its input shape: the float kernels' op; with GROUPED's
    groups, a block-diagonal weight."""
    n, h, w, c, o, kh, kw, stride, pad, dilation = conv[:10]
    oh = (h + pad[0] + pad[1] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    weight = rng.standard_normal((o, kh, kw, c)).astype(np.float32)
    if len(conv) > 10:
        weight = block_diagonal(weight, conv[10], index)
    bias = rng.standard_normal(o).astype(np.float32)
    inp, wt, out = f"{n}x{h}x{w}x{c}", f"{o}x{kh}x{kw}x{c}", f"{n}x{oh}x{ow}x{o}"

    return "\n".join([
        f"func.func @main(%a: tensor<{inp}xf32>) -> tensor<{out}xf32> {{",
        f'  %w = "tosa.const"() <{{values = {floats(weight)}}}> : () -> tensor<{wt}xf32>',
        f'  %b = "tosa.const"() <{{values = {floats(bias)}}}> : () -> tensor<{o}xf32>',
        '  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>',
        f"  %y = tosa.conv2d %a, %w, %b, %zp, %zp {{acc_type = f32, dilation = array<i64: {dilation[0]}, {dilation[1]}>, pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {stride[0]}, {stride[1]}>}} : (tensor<{inp}xf32>, tensor<{wt}xf32>, tensor<{o}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<{out}xf32>",
        f"  return %y : tensor<{out}xf32>",
        "}"]) + "\n", (n, h, w, c)


def float_matmul_case(rng: np.random.Generator, m: int, n: int, k: int) -> str:
    """A float matmul [1, M, K] x a random constant [1, K, N] (a Linear's)."""
    weight = rng.standard_normal((1, k, n)).astype(np.float32)
    return "\n".join([
        f"func.func @main(%a: tensor<1x{m}x{k}xf32>) -> tensor<1x{m}x{n}xf32> {{",
        f'  %w = "tosa.const"() <{{values = {floats(weight)}}}> : () -> tensor<1x{k}x{n}xf32>',
        '  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>',
        f"  %y = tosa.matmul %a, %w, %zp, %zp : (tensor<1x{m}x{k}xf32>, tensor<1x{k}x{n}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x{m}x{n}xf32>",
        f"  return %y : tensor<1x{m}x{n}xf32>",
        "}"]) + "\n"


def runtime_matmul_case(b: int, m: int, n: int, k: int) -> str:
    """A float matmul [B, M, K] x [B, K, N] of two values computed at run
    time: slices of the one input, [B, M + K, max(K, N)]."""
    rows, columns = m + k, max(k, n)
    def shape(name: str, values) -> str:
        return (f"  %{name} = tosa.const_shape {{values = dense<{list(values)}> : "
                f"tensor<3xindex>}} : () -> !tosa.shape<3>")
    def piece(name: str, start: str, size: str, dims: str) -> str:
        return (f"  %{name} = tosa.slice %x, %{start}, %{size} : (tensor<{b}x{rows}x{columns}xf32>, "
                f"!tosa.shape<3>, !tosa.shape<3>) -> tensor<{dims}xf32>")
    return "\n".join([
        f"func.func @main(%x: tensor<{b}x{rows}x{columns}xf32>) -> tensor<{b}x{m}x{n}xf32> {{",
        shape("a0", (0, 0, 0)), shape("as", (b, m, k)),
        shape("w0", (0, m, 0)), shape("ws", (b, k, n)),
        piece("a", "a0", "as", f"{b}x{m}x{k}"), piece("w", "w0", "ws", f"{b}x{k}x{n}"),
        '  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>',
        f"  %y = tosa.matmul %a, %w, %zp, %zp : (tensor<{b}x{m}x{k}xf32>, tensor<{b}x{k}x{n}xf32>, "
        f"tensor<1xf32>, tensor<1xf32>) -> tensor<{b}x{m}x{n}xf32>",
        f"  return %y : tensor<{b}x{m}x{n}xf32>",
        "}"]) + "\n"


def case(rng: np.random.Generator, m: int, n: int, k: int, index: int, tail=epilogue) -> str:
    """A qfx.contract matmul of [1, M, K] by a random constant [1, K, N]."""
    weight = rng.integers(-128, 128, size=(1, k, n), dtype=np.int64)
    a_zp = int(rng.integers(-128, 128))
    lines = [f"func.func @main(%a: tensor<1x{m}x{k}xi8>) -> tensor<1x{m}x{n}xi8> {{"]
    lines.append(f'  %w = "tosa.const"() <{{values = {dense(weight, "i8")}}}> : () -> tensor<1x{k}x{n}xi8>')
    attr, after = tail_of(rng, tail, index, f"1x{m}x{n}", n, k)
    lines.append(contract("matmul", a_zp, "", attr, "%a, %w",
                          f"tensor<1x{m}x{k}xi8>, tensor<1x{k}x{n}xi8>", f"1x{m}x{n}"))
    return "\n".join(lines + after) + "\n"


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    for suffix, tail in (("", epilogue), ("f", float_epilogue)):
        for index, (m, n, k) in enumerate(SHAPES):
            name = f"case{index}{suffix}"
            (out / f"{name}.mlir").write_text(case(rng, m, n, k, index, tail))
            np.save(out / f"{name}.npy", rng.integers(-128, 128, size=(1, m, k)).astype(np.int8))
            print(name)
        for prefix, convs, write in (("conv", CONVS, conv_case),
                                     ("depthwise", DEPTHWISE, depthwise_case),
                                     ("grouped", GROUPED, grouped_case)):
            for index, conv in enumerate(convs):
                name = f"{prefix}{index}{suffix}"
                text, shape = write(rng, conv, index, tail)
                (out / f"{name}.mlir").write_text(text)
                np.save(out / f"{name}.npy", rng.integers(-128, 128, size=shape).astype(np.int8))
                print(name)
    for index in FLOAT_SHAPES:
        name = f"fcase{index}"
        m, n, k = SHAPES[index]
        (out / f"{name}.mlir").write_text(float_matmul_case(rng, m, n, k))
        np.save(out / f"{name}.npy", rng.standard_normal((1, m, k)).astype(np.float32))
        print(name)
    for index, (b, m, n, k) in enumerate(RUNTIME_SHAPES):
        name = f"fbatch{index}"
        (out / f"{name}.mlir").write_text(runtime_matmul_case(b, m, n, k))
        np.save(out / f"{name}.npy",
                rng.standard_normal((b, m + k, max(k, n))).astype(np.float32))
        print(name)
    for prefix, convs in (("fconv", CONVS), ("fgrouped", GROUPED)):
        for index, conv in enumerate(convs):
            name = f"{prefix}{index}"
            text, shape = float_conv_case(rng, conv, index)
            (out / f"{name}.mlir").write_text(text)
            np.save(out / f"{name}.npy", rng.standard_normal(shape).astype(np.float32))
            print(name)
    for suffix, tail in (("", epilogue), ("f", float_epilogue)):
        for index, (kind, shape) in enumerate(SHARED):
            name = f"shared{index}{suffix}"
            text, input_shape = shared_case(rng, kind, shape, index, tail)
            (out / f"{name}.mlir").write_text(text)
            np.save(out / f"{name}.npy", rng.integers(-128, 128, size=input_shape).astype(np.int8))
            print(name)
    for index, (prefix, shape) in enumerate(RAW):
        name = f"{prefix}{index}"
        if prefix == "rawcase":
            m, n, k = shape
            text, input_shape = case(rng, m, n, k, index, raw_epilogue), (1, m, k)
        else:
            write = conv_case if prefix == "rawconv" else depthwise_case
            text, input_shape = write(rng, shape, index, raw_epilogue)
        (out / f"{name}.mlir").write_text(text)
        np.save(out / f"{name}.npy", rng.integers(-128, 128, size=input_shape).astype(np.int8))
        print(name)
    for index, pool in enumerate(POOLS):
        name = f"pool{index}"
        (out / f"{name}.mlir").write_text(pool_case(pool))
        np.save(out / f"{name}.npy", rng.integers(-128, 128, size=pool[:4]).astype(np.int8))
        print(name)


if __name__ == "__main__":
    main()
