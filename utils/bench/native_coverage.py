#!/usr/bin/python3
# ===- native_coverage.py - qfx on every op of PyTorch's native table -----===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# PyTorch 1.13's native BackendConfig (get_native_backend_config()) names the
# ops FX graph mode quantization quantizes. This script groups them into op
# families, runs one tiny model per family through PyTorch FX and through qfx
# on the same samples, and prints per family:
#
#   exported   qfx.prepare_fx traced and exported the model;
#   quantized  qfx leaves no more ops in float than PyTorch does;
#   parity     static: every output within one output step of PyTorch's
#              quantized model (qfx's own calibration, or PyTorch's imported
#              with --statistics pytorch); dynamic and weight-only: within
#              1e-3 of the largest output magnitude (PyTorch's own tolerance
#              for its dynamic kernels across engines is of that order);
#
# and last `N of M families pass`. A family PyTorch itself cannot quantize
# (it fails, or leaves the whole model in float) is "N/A", not counted in M.
# Usage:
#
#   /usr/bin/python3 utils/bench/native_coverage.py [--families a,b,...]
#       [--statistics qfx|pytorch] [--markdown FILE]
#
# `--check` only verifies that every op of the native table belongs to a
# family (what the test suite runs: python/tests/test_coverage.py), with no
# model quantized. `--markdown FILE` writes the table for docs/coverage.md.
#
# The static models use the x86 default QConfigMapping on the onednn engine,
# dynamic ones the default dynamic qconfig (torch's quantize_dynamic for the
# recurrent modules), embeddings float_qparams_weight_only_qconfig.
#
# ===----------------------------------------------------------------------===#

import argparse
import pathlib
import re
import sys
import time
import traceback
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
if "qfx" not in sys.modules:  # the test suite may have imported an installed qfx
    sys.path.insert(0, str(ROOT / "python"))

import torch  # noqa: E402

nn = torch.nn
F = torch.nn.functional


class Family:
    """One op family: the native-table ops it covers, a tiny model using
    them, its input shape (a tuple, or a callable making an input from a
    torch.Generator) and how PyTorch quantizes it."""

    def __init__(self, name, ops, build, shape, mode="static"):
        self.name, self.ops, self.build, self.shape, self.mode = name, ops, build, shape, mode

    def sample(self, generator):
        if callable(self.shape):
            return self.shape(generator)
        return torch.randn(*self.shape, generator=generator)


class Lambda(nn.Module):
    """A model whose forward is `fn(self, x)`, with `params` as parameters
    (created at construction, so they are seeded)."""

    def __init__(self, fn, modules=None, **params):
        super().__init__()
        self.fn = fn
        self.mods = nn.ModuleDict(modules or {})
        for name, shape in params.items():
            self.register_parameter(name, nn.Parameter(torch.randn(*shape) * 0.3))

    def forward(self, x):
        return self.fn(self, x)


def seq(modules):
    return lambda: nn.Sequential(*modules())


def conv_bn_relu(conv, bn, c_in):
    return seq(lambda: (conv(c_in, 8, 3), bn(8), nn.ReLU(), conv(8, 8, 3), nn.ReLU(),
                        conv(8, 8, 1), bn(8)))


def functional_conv(fn, kernel):
    # PyTorch 1.13's functional-conv lowering needs stride, padding, dilation
    # and groups passed.
    ones, zeros = (1,) * len(kernel), (0,) * len(kernel)
    return lambda: Lambda(lambda m, x: F.relu(fn(x, m.w, m.b, ones, zeros, ones, 1)),
                          w=(8, 4) + kernel, b=(8,))


def two_branches(combine):
    """Two convs of the input, combined by `combine(a, b)`."""
    return lambda: Lambda(lambda m, x: combine(m.mods["a"](x), m.mods["b"](x)),
                          {"a": nn.Conv2d(3, 8, 1), "b": nn.Conv2d(3, 8, 1)})


def after_conv(fn, channels=8):
    """`fn(self, y)` on a conv's output: quantized input, any op."""
    return lambda: Lambda(lambda m, x: fn(m, m.mods["conv"](x)),
                          {"conv": nn.Conv2d(3, channels, 1)})


def tokens(vocabulary, shape):
    return lambda g: torch.randint(0, vocabulary, shape, generator=g)


def rnn(module, shape):
    return Family(module.__name__, ["nn." + module.__name__],
                  lambda: Lambda(lambda m, x: m.mods["rnn"](x)[0] if module is nn.LSTM
                                 else m.mods["rnn"](x),
                                 {"rnn": module(16, 24)}), shape, mode="dynamic")


FAMILIES = [
    Family("conv1d", ["nn.Conv1d", "nn.BatchNorm1d", "nn.ReLU"],
           conv_bn_relu(nn.Conv1d, nn.BatchNorm1d, 4), (1, 4, 32)),
    Family("conv2d", ["nn.Conv2d", "nn.BatchNorm2d"],
           conv_bn_relu(nn.Conv2d, nn.BatchNorm2d, 4), (1, 4, 12, 12)),
    Family("conv3d", ["nn.Conv3d", "nn.BatchNorm3d"],
           conv_bn_relu(nn.Conv3d, nn.BatchNorm3d, 4), (1, 4, 7, 8, 8)),
    Family("conv_transpose1d", ["nn.ConvTranspose1d"],
           seq(lambda: (nn.ConvTranspose1d(4, 8, 3, stride=2),)), (1, 4, 16)),
    Family("conv_transpose2d", ["nn.ConvTranspose2d"],
           seq(lambda: (nn.ConvTranspose2d(4, 8, 3, stride=2),)), (1, 4, 8, 8)),
    Family("conv_transpose3d", ["nn.ConvTranspose3d"],
           seq(lambda: (nn.ConvTranspose3d(4, 8, 3, stride=2),)), (1, 4, 4, 5, 5)),
    Family("functional_conv1d", ["torch.conv1d"], functional_conv(F.conv1d, (3,)), (1, 4, 32)),
    Family("functional_conv2d", ["torch.conv2d"], functional_conv(F.conv2d, (3, 3)),
           (1, 4, 10, 10)),
    Family("functional_conv3d", ["torch.conv3d"], functional_conv(F.conv3d, (3, 3, 3)),
           (1, 4, 6, 6, 6)),
    Family("linear", ["nn.Linear"],
           seq(lambda: (nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.BatchNorm1d(32),
                        nn.Linear(32, 16))), (8, 16)),
    Family("functional_linear", ["torch._C._nn.linear", "torch.nn.functional.relu"],
           lambda: Lambda(lambda m, x: F.relu(F.linear(x, m.w, m.b)), w=(32, 16), b=(32,)),
           (8, 16)),
    Family("add", ["_operator.add", "torch.add", "torch.relu"],
           two_branches(lambda a, b: torch.relu(torch.add(a + b, a))), (1, 3, 8, 8)),
    Family("mul", ["_operator.mul", "torch.mul", "relu"],
           two_branches(lambda a, b: torch.mul(a * b, b).relu()), (1, 3, 8, 8)),
    Family("cat", ["torch.cat"], two_branches(lambda a, b: torch.cat([a, b], 1)), (1, 3, 8, 8)),
    Family("matmul", ["torch.matmul"],
           two_branches(lambda a, b: torch.matmul(a, b.transpose(2, 3))), (1, 3, 8, 8)),
    Family("batch_norm2d", ["nn.BatchNorm2d"],
           seq(lambda: (nn.BatchNorm2d(3), nn.ReLU(), nn.BatchNorm2d(3))), (1, 3, 8, 8)),
    Family("batch_norm3d", ["nn.BatchNorm3d"],
           seq(lambda: (nn.BatchNorm3d(3), nn.ReLU(), nn.BatchNorm3d(3))), (1, 3, 4, 8, 8)),
    Family("layer_norm", ["nn.LayerNorm", "torch.nn.functional.layer_norm"],
           lambda: Lambda(lambda m, x: F.layer_norm(m.mods["ln"](x), (16,), m.w, m.b),
                          {"ln": nn.LayerNorm(16)}, w=(16,), b=(16,)), (2, 8, 16)),
    Family("group_norm", ["torch.nn.functional.group_norm"],
           # With a weight, PyTorch 1.13 gives it a per-channel weight observer
           # that fails on 1-d tensors.
           after_conv(lambda m, y: F.group_norm(y, 2)),
           (1, 3, 6, 6)),
    Family("instance_norm1d", ["nn.InstanceNorm1d", "torch.nn.functional.instance_norm"],
           seq(lambda: (nn.InstanceNorm1d(4, affine=True),
                        Lambda(lambda m, x: F.instance_norm(x, eps=1e-3)))), (1, 4, 32)),
    Family("instance_norm2d", ["nn.InstanceNorm2d"],
           seq(lambda: (nn.InstanceNorm2d(4, affine=True),)), (1, 4, 8, 8)),
    Family("instance_norm3d", ["nn.InstanceNorm3d"],
           seq(lambda: (nn.InstanceNorm3d(4, affine=True),)), (1, 4, 4, 6, 6)),
    Family("softmax", ["nn.Softmax"], seq(lambda: (nn.Conv2d(3, 4, 1), nn.Softmax(1))),
           (1, 3, 6, 6)),
    Family("elu", ["nn.ELU", "torch.nn.functional.elu"],
           seq(lambda: (nn.ELU(), nn.Conv2d(3, 3, 1), nn.ELU(0.5))), (1, 3, 8, 8)),
    Family("leaky_relu", ["nn.LeakyReLU", "torch.nn.functional.leaky_relu"],
           after_conv(lambda m, y: F.leaky_relu(y, 0.2)), (1, 3, 8, 8)),
    Family("prelu", ["nn.PReLU"], seq(lambda: (nn.Conv2d(3, 4, 1), nn.PReLU(4))), (1, 3, 8, 8)),
    Family("hardswish", ["nn.Hardswish", "torch.nn.functional.hardswish"],
           seq(lambda: (nn.Conv2d(3, 4, 1), nn.Hardswish())), (1, 3, 8, 8)),
    Family("hardsigmoid", ["nn.Hardsigmoid", "torch.nn.functional.hardsigmoid", "hardsigmoid",
                           "hardsigmoid_"],
           seq(lambda: (nn.Conv2d(3, 4, 1), nn.Hardsigmoid(),
                        Lambda(lambda m, x: F.hardsigmoid(x)))), (1, 3, 8, 8)),
    Family("sigmoid", ["nn.Sigmoid", "torch.sigmoid", "sigmoid", "sigmoid_"],
           after_conv(lambda m, y: torch.sigmoid(y).sigmoid()), (1, 3, 8, 8)),
    Family("tanh", ["nn.Tanh", "torch.tanh", "tanh", "tanh_"],
           after_conv(lambda m, y: torch.tanh(y).tanh()), (1, 3, 8, 8)),
    Family("relu", ["nn.ReLU", "relu_"], after_conv(lambda m, y: F.relu(y).relu_()), (1, 3, 8, 8)),
    Family("relu6", ["nn.ReLU6", "torch.nn.functional.relu6"],
           after_conv(lambda m, y: F.relu6(y)), (1, 3, 8, 8)),
    Family("hardtanh", ["nn.Hardtanh", "torch.nn.functional.hardtanh",
                        "torch._C._nn.hardtanh_"],
           after_conv(lambda m, y: F.hardtanh(y, -0.5, 0.5)), (1, 3, 8, 8)),
    Family("clamp", ["torch.clamp", "clamp"],
           after_conv(lambda m, y: torch.clamp(y, -0.5, 0.7).clamp(-0.4, 0.4)), (1, 3, 8, 8)),
    Family("max_pool1d", ["nn.MaxPool1d", "torch.nn.functional.max_pool1d"],
           seq(lambda: (nn.Conv1d(3, 4, 1), nn.MaxPool1d(3, 2))), (1, 3, 16)),
    Family("max_pool2d", ["nn.MaxPool2d", "torch.nn.functional.max_pool2d"],
           seq(lambda: (nn.Conv2d(3, 4, 1), nn.MaxPool2d(3, 2))), (1, 3, 9, 9)),
    Family("max_pool3d", ["nn.MaxPool3d", "torch.nn.functional.max_pool3d"],
           seq(lambda: (nn.Conv3d(3, 4, 1), nn.MaxPool3d(2))), (1, 3, 4, 6, 6)),
    Family("avg_pool1d", ["nn.AvgPool1d", "torch.avg_pool1d"],
           seq(lambda: (nn.Conv1d(3, 4, 1), nn.AvgPool1d(3, 2))), (1, 3, 16)),
    Family("avg_pool2d", ["nn.AvgPool2d", "torch._C._nn.avg_pool2d"],
           seq(lambda: (nn.Conv2d(3, 4, 1), nn.AvgPool2d(3, 2))), (1, 3, 9, 9)),
    Family("avg_pool3d", ["nn.AvgPool3d", "torch._C._nn.avg_pool3d"],
           seq(lambda: (nn.Conv3d(3, 4, 1), nn.AvgPool3d(2))), (1, 3, 4, 6, 6)),
    Family("adaptive_avg_pool1d", ["nn.AdaptiveAvgPool1d", "torch.adaptive_avg_pool1d"],
           seq(lambda: (nn.Conv1d(3, 4, 1), nn.AdaptiveAvgPool1d(4))), (1, 3, 16)),
    Family("adaptive_avg_pool2d", ["nn.AdaptiveAvgPool2d",
                                   "torch.nn.functional.adaptive_avg_pool2d"],
           seq(lambda: (nn.Conv2d(3, 4, 1), nn.AdaptiveAvgPool2d(2))), (1, 3, 8, 8)),
    Family("adaptive_avg_pool3d", ["nn.AdaptiveAvgPool3d",
                                   "torch.nn.functional.adaptive_avg_pool3d"],
           seq(lambda: (nn.Conv3d(3, 4, 1), nn.AdaptiveAvgPool3d(2))), (1, 3, 4, 6, 6)),
    # Both means returned, not added: PyTorch's quantized mean averages in
    # float in its BLAS's order, so an output at a rounding boundary can
    # differ by one step (docs/convert-and-lower.md), which an add to a finer
    # scale would stretch (2.5 steps with OpenBLAS).
    Family("mean", ["torch.mean", "mean"],
           after_conv(lambda m, y: (torch.mean(y, (2, 3), keepdim=True), y.mean(1, True))),
           (1, 3, 8, 8)),
    Family("flatten", ["torch.flatten"],
           seq(lambda: (nn.Conv2d(3, 4, 1), nn.Flatten(), nn.Linear(64, 8))), (1, 3, 4, 4)),
    Family("reshape", ["reshape", "view", "contiguous", "shape", "_operator.floordiv"],
           after_conv(lambda m, y: y.contiguous().view(1, y.shape[1] // 2, -1).reshape(1, -1)),
           (1, 3, 4, 4)),
    # PyTorch 1.13 leaves a conv whose output feeds `.size()` in float.
    Family("size", ["size"], after_conv(lambda m, y: y.view(y.size(0), -1)), (1, 3, 4, 4)),
    Family("transpose", ["permute", "transpose", "torch.transpose"],
           after_conv(lambda m, y: torch.transpose(y.permute(0, 2, 3, 1), 1, 2)
                      .transpose(2, 3)), (1, 3, 4, 5)),
    Family("squeeze", ["torch.squeeze", "squeeze", "squeeze_", "torch.unsqueeze", "unsqueeze",
                       "unsqueeze_"],
           after_conv(lambda m, y: torch.squeeze(torch.unsqueeze(y, 1), 1).unsqueeze(0)
                      .squeeze(0)), (1, 3, 4, 4)),
    Family("repeat", ["repeat"], after_conv(lambda m, y: y.repeat(1, 2, 1, 3)), (1, 3, 4, 4)),
    Family("repeat_interleave", ["torch.repeat_interleave", "repeat_interleave"],
           after_conv(lambda m, y: torch.repeat_interleave(y, 2, dim=1)), (1, 3, 4, 4)),
    Family("stack", ["torch.stack"],
           two_branches(lambda a, b: torch.stack([a, b], 1)), (1, 3, 4, 4)),
    Family("interpolate", ["torch.nn.functional.interpolate"],
           after_conv(lambda m, y: F.interpolate(F.interpolate(y, scale_factor=2), size=(10, 30))),
           (1, 3, 5, 5)),
    Family("interpolate_bilinear", ["torch.nn.functional.interpolate"],
           after_conv(lambda m, y: F.interpolate(y, scale_factor=2, mode="bilinear",
                                                 align_corners=False)), (1, 3, 5, 5)),
    Family("dropout", ["nn.Dropout", "torch.nn.functional.dropout", "nn.Identity", "detach",
                       "detach_"],
           seq(lambda: (nn.Conv2d(3, 4, 1), nn.Dropout(), nn.Identity(),
                        Lambda(lambda m, x: F.dropout(x.detach(), training=False)))),
           (1, 3, 4, 4)),
    Family("embedding", ["nn.Embedding"], seq(lambda: (nn.Embedding(50, 16),)),
           tokens(50, (2, 7)), mode="weight_only"),
    Family("embedding_bag", ["nn.EmbeddingBag"],
           seq(lambda: (nn.EmbeddingBag(50, 16, mode="sum"),)), tokens(50, (3, 5)),
           mode="weight_only"),
    rnn(nn.LSTM, (5, 2, 16)),
    rnn(nn.LSTMCell, (3, 16)),
    rnn(nn.GRUCell, (3, 16)),
    rnn(nn.RNNCell, (3, 16)),
]

# Native-table ops no family covers, with the reason.
NOT_COVERED = {
    "resize_": "Tensor.resize_ changes a tensor's storage in place; no model quantized with FX "
               "uses it on an activation, and qfx's value semantics cannot express it",
}

# Fused and QAT modules of the native table stand for the float modules a
# family's model fuses into them.
_FUSED = re.compile(r"\.(?:intrinsic|qat)\.")
_FUSED_FAMILY = [
    (re.compile(r"Conv(?:Bn)?(?:ReLU)?(\d)d$|\.conv\.Conv(\d)d$"), "conv{}d"),
    (re.compile(r"Linear(?:ReLU|Bn1d)?$"), "linear"),
    (re.compile(r"BNReLU(\d)d$"), "batch_norm{}d"),
    (re.compile(r"embedding_ops\.Embedding$"), "embedding"),
    (re.compile(r"embedding_ops\.EmbeddingBag$"), "embedding_bag"),
]


def op_name(op) -> str:
    """How a family lists an op: "nn.Conv2d" for torch.nn modules, the
    qualified name for functions, the bare name for tensor methods."""
    if isinstance(op, str):
        return op
    module = getattr(op, "__module__", None) or ""
    name = f"{module}.{op.__name__}" if module else op.__name__
    if module.startswith("torch.nn.modules."):
        return "nn." + op.__name__
    return name


def native_ops() -> list:
    from torch.ao.quantization.backend_config import get_native_backend_config

    def leaves(pattern):
        if isinstance(pattern, tuple):
            for p in pattern:
                yield from leaves(p)
        else:
            yield pattern

    names = set()
    for pattern in get_native_backend_config().configs:  # a dict keyed by pattern
        names.update(op_name(op) for op in leaves(pattern))
    return sorted(names)


def family_of(op: str):
    """The family that covers `op`, or None."""
    if _FUSED.search(op):
        for pattern, family in _FUSED_FAMILY:
            match = pattern.search(op)
            if match:
                return family.format(next((g for g in match.groups() if g), ""))
        return None
    return next((f.name for f in FAMILIES if op in f.ops), None)


def check() -> list:
    """Native-table ops that neither a family nor NOT_COVERED accounts for,
    and family ops the native table does not have."""
    ops = native_ops()
    problems = [f"{op}: no family covers it" for op in ops
                if op not in NOT_COVERED and family_of(op) is None]
    problems += [f"{op}: in family {f.name} but not in the native table"
                 for f in FAMILIES for op in f.ops if op not in ops]
    return problems


# ----- running one family ---------------------------------------------------

def torch_mapping(family):
    from torch.ao.quantization import (QConfigMapping, default_dynamic_qconfig,
                                       float_qparams_weight_only_qconfig,
                                       get_default_qconfig_mapping)
    if family.mode == "static":
        return get_default_qconfig_mapping("x86")
    if family.mode == "dynamic":
        return QConfigMapping().set_global(default_dynamic_qconfig)
    return QConfigMapping().set_global(float_qparams_weight_only_qconfig)


def torch_int8(family, model, example, calibration):
    import copy

    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    if family.mode == "dynamic" and "nn.Linear" not in family.ops:
        from torch.ao.quantization import quantize_dynamic
        return quantize_dynamic(copy.deepcopy(model), dtype=torch.qint8), None
    prepared = prepare_fx(copy.deepcopy(model), torch_mapping(family), example)
    for x in calibration:
        prepared(x)
    return convert_fx(copy.deepcopy(prepared)), prepared  # convert_fx changes its argument


def torch_float_ops(quantized) -> list:
    """The nodes of PyTorch's converted model that compute on a dequantized
    value (its ops left in float)."""
    if not isinstance(quantized, torch.fx.GraphModule):
        return []

    def dequantized(arg):
        return hasattr(arg, "op") and arg.op == "call_method" and arg.target == "dequantize"
    return [node.name for node in quantized.graph.nodes
            if node.op in ("call_module", "call_function", "call_method")
            and any(dequantized(a) for a in node.all_input_nodes)]


def build(family):
    torch.manual_seed(0)
    model = family.build().eval()
    for module in model.modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    return model


def output_step(quantized, x) -> float:
    """The scale of PyTorch's quantized output (what its final dequantize
    reads)."""
    scales = []

    def hook(node_value):
        if isinstance(node_value, torch.Tensor) and node_value.is_quantized:
            scales.append(node_value.q_scale())

    class Spy(torch.fx.Interpreter):
        def call_method(self, target, args, kwargs):
            if target == "dequantize":
                hook(args[0])
            return super().call_method(target, args, kwargs)

    Spy(quantized).run(x)
    return scales[-1] if scales else float("nan")


def one(family, statistics) -> dict:
    import qfx

    row = {"family": family.name, "exported": False, "quantized": False, "parity": False,
           "comparable": True}
    model = build(family)
    generator = torch.Generator().manual_seed(1)
    calibration = [family.sample(generator) for _ in range(4)]
    tests = [family.sample(generator) for _ in range(4)]
    example = (calibration[0],)
    try:
        theirs_model, theirs_prepared = torch_int8(family, model, example, calibration)
        with torch.no_grad():
            theirs = [theirs_model(x) for x in tests]
    except Exception as e:
        row["comparable"] = False
        row["why"] = f"PyTorch fails: {type(e).__name__}: {str(e).splitlines()[0][:100]}"
        return row
    step = output_step(theirs_model, tests[0]) if family.mode == "static" else None
    if step is not None and step != step:
        row["comparable"] = False
        row["why"] = "PyTorch leaves the whole model in float"
        return row
    row["torch_float_ops"] = len(torch_float_ops(theirs_model))
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if statistics == "pytorch" and theirs_prepared is not None:
                quantized = qfx.convert_fx(theirs_prepared, example, strict=True)
            else:
                prepared = qfx.prepare_fx(model, torch_mapping(family), example, outputs=None,
                                         strict=True)
                row["exported"] = True
                if family.mode == "static":
                    for x in calibration:
                        prepared(x)
                quantized = qfx.convert_fx(prepared)
        row["exported"] = True
        ours = [quantized(x) for x in tests]
    except Exception as e:
        row["why"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        return row
    row["seconds"] = time.perf_counter() - start
    row["float_ops"] = [str(op) for op in quantized.float_ops]
    row["quantized"] = len(row["float_ops"]) <= row["torch_float_ops"]
    # A model returning a tuple (LSTMCell's (h, c)): all of it.
    flat = [torch.cat([t.flatten() for t in (o if isinstance(o, tuple) else (o,))])
            for o in ours + theirs]
    diff = max((a - b).abs().max().item() for a, b in zip(flat[:len(ours)], flat[len(ours):]))
    if step is not None:
        row["worst"] = f"{diff / step:.2f} steps"
        row["parity"] = diff <= step * (1 + 1e-4)
    else:
        scale = max(t.abs().max().item() for t in flat[len(ours):])
        row["worst"] = f"{diff / scale:.1e} of max"
        row["parity"] = diff <= 1e-3 * scale
    if not row["quantized"]:
        row["why"] = "; ".join(row["float_ops"])[:200]
    elif not row["parity"]:
        row["why"] = f"worst {row['worst']}"
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--families", default=",".join(f.name for f in FAMILIES))
    parser.add_argument("--statistics", choices=("qfx", "pytorch"), default="qfx")
    parser.add_argument("--check", action="store_true",
                        help="only check that every native op belongs to a family")
    parser.add_argument("--markdown", type=pathlib.Path)
    args = parser.parse_args()
    problems = check()
    for problem in problems:
        print(f"coverage table: {problem}")
    ops = native_ops()
    if args.check:
        print(f"{len(ops)} native ops, {len(FAMILIES)} families, {len(NOT_COVERED)} not covered")
        return 1 if problems else 0

    torch.backends.quantized.engine = "onednn"
    torch.set_num_threads(1)
    by_name = {f.name: f for f in FAMILIES}
    rows = []
    for name in args.families.split(","):
        if name not in by_name:
            print(f"unknown family '{name}'")
            return 2
        try:
            row = one(by_name[name], args.statistics)
        except Exception:
            traceback.print_exc()
            row = {"family": name, "exported": False, "quantized": False, "parity": False,
                   "why": "crashed (traceback above)"}
        row["pass"] = row["exported"] and row["quantized"] and row["parity"]
        rows.append(row)
        marks = " ".join(f"{k}={'yes' if row[k] else 'no'}"
                         for k in ("exported", "quantized", "parity"))
        verdict = "PASS" if row["pass"] else "FAIL" if row.get("comparable", True) else "N/A"
        print(f"{name:22} {verdict:4}  {marks}  {row.get('worst', '')}  {row.get('why', '')}",
              flush=True)
    passed = sum(r["pass"] for r in rows)
    comparable = [r for r in rows if r.get("comparable", True)]
    print(f"{passed} of {len(comparable)} families pass"
          + (f" ({len(rows) - len(comparable)} more not comparable: PyTorch fails or leaves "
             "the model in float)" if len(comparable) < len(rows) else ""))
    if args.markdown:
        lines = ["| family | native ops | exported | quantized | parity | note |",
                 "|---|---|---|---|---|---|"]
        for r in rows:
            f = by_name[r["family"]]
            lines.append(f"| {r['family']} | {', '.join(f.ops)} | "
                         + " | ".join("yes" if r[k] else "no"
                                      for k in ("exported", "quantized", "parity"))
                         + f" | {r.get('worst', '') if r['pass'] else r.get('why', '')} |")
        args.markdown.write_text("\n".join(lines) + "\n")
    return 0 if passed == len(comparable) and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
