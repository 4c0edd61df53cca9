#!/usr/bin/python3
"""Differential testing of qfx against PyTorch 1.13 on generated models.

A seed makes one random valid PyTorch model (a spec: a list of ops over
the values before them, rendered as Python source), a random QConfigMapping
(x86, qnnpack or onednn defaults, with None entries by object type: module
classes, functions, methods; and by module name), a mode (static or
dynamic) and samples. The model is quantized by PyTorch's FX and by qfx
with PyTorch's statistics imported (so the int8 arithmetic is compared),
and, for static models, by qfx with its own calibration. A finding is:

- crash: the process running the case died;
- rejected: PyTorch quantized the model and qfx raised (strict: a node the exporter
  cannot express is a rejection here, not a graph break to PyTorch);
- float: qfx left more ops in float than PyTorch;
- numerics: with PyTorch's statistics, an output further from PyTorch's
  than the bound (static: one step of PyTorch's output scale where the
  model has an op documented to differ by a step, or a convolution,
  Linear or batch norm PyTorch runs in float, else none; dynamic: 1e-4 of
  the largest output).

A finding is shrunk (ops removed while the same kind of finding remains)
and written out as a reproducer: the model's source and spec as JSON.

    utils/difffuzz.py run [--seconds S] [--seed N] [--count N] [--out DIR]
    utils/difffuzz.py case SEED          # one case, its result as JSON
    utils/difffuzz.py show SEED          # the generated model's source
    utils/difffuzz.py replay FILE.json   # a written reproducer again

`utils/difffuzz.sh [seconds]` runs `run`; python/tests/test_difffuzz.py
runs a fixed-seed slice and every reproducer under
python/tests/difffuzz/.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import random
import subprocess
import sys
import time
import traceback
import warnings
from typing import Optional

# Ops whose int8 result PyTorch computes in float in another order than
# qfx's (a matmul of activations: its BLAS's): qfx documents that such an
# output can be one step off where its exact value lies at a rounding
# boundary (docs/convert-and-lower.md). Not softmax, mean or layer norm:
# PyTorch's kernels bit for bit (qfx-lower-softmax, qfx-lower-mean,
# qfx-lower-layer-norm; quantized::layer_norm by qfx-lower).
ONE_STEP_OPS = {"matmul", "matmul_v"}

ACTIVATIONS = ["nn.ReLU()", "nn.ReLU6()", "nn.Hardswish()", "nn.Sigmoid()", "nn.Tanh()",
               "nn.LeakyReLU(0.1)", "nn.Hardsigmoid()", "nn.ELU()", "nn.Hardtanh(-1.0, 1.0)"]
FUNCTIONAL_ACTIVATIONS = ["F.relu({x})", "torch.sigmoid({x})", "torch.tanh({x})",
                          "torch.clamp({x}, -1.0, 2.0)", "F.hardswish({x})"]
BACKENDS = [("x86", "onednn"), ("qnnpack", "qnnpack"), ("onednn", "onednn")]


# ---------------------------------------------------------------- the spec

def conv_out(size, k, stride, pad, dilation):
    return (size + 2 * pad - dilation * (k - 1) - 1) // stride + 1


def infer(spec) -> Optional[list]:
    """The shape of every value of `spec` (input first), or None if an op
    does not apply to its operands."""
    shapes = [list(spec["input"])]
    for op in spec["ops"]:
        if any(i >= len(shapes) for i in op["in"]):
            return None
        shape = op_shape(op, [shapes[i] for i in op["in"]])
        if shape is None or any(d < 1 for d in shape):
            return None
        shapes.append(shape)
    return shapes


def op_shape(op, ins) -> Optional[list]:
    kind, x = op["kind"], ins[0]
    if kind == "conv2d":
        if len(x) != 4 or x[1] != op["cin"] or op["cin"] % op["groups"]:
            return None
        size = [conv_out(s, op["k"], op["stride"], op["pad"], op["dilation"]) for s in x[2:]]
        return [x[0], op["cout"], *size]
    if kind in ("bn", "act", "fact"):
        return x if kind != "bn" or (len(x) == 4 and x[1] == op["c"]) else None
    if kind in ("maxpool", "avgpool"):
        if len(x) != 4 or op["pad"] * 2 > op["k"]:
            return None
        return [x[0], x[1], *[conv_out(s, op["k"], op["stride"], op["pad"], 1) for s in x[2:]]]
    if kind == "adaptive":
        # Not of a 1x1 image to a larger one: the same PyTorch bug as
        # nearest upsampling (below).
        if len(x) != 4 or (x[2] * x[3] == 1 and op["size"] > 1):
            return None
        return [x[0], x[1], op["size"], op["size"]]
    if kind in ("add", "mul", "add_relu"):
        y = ins[1]
        if len(x) != len(y) or any(b not in (a, 1) for a, b in zip(x, y)):
            return None
        return x
    if kind == "cat":
        y = ins[1]
        if len(x) != len(y) or len(x) < 2 or x[:1] + x[2:] != y[:1] + y[2:]:
            return None
        return [x[0], x[1] + y[1], *x[2:]]
    if kind == "flatten":
        return [x[0], math.prod(x[1:])] if len(x) > 2 else None
    if kind == "to_seq":
        return [x[0], x[2] * x[3], x[1]] if len(x) == 4 else None
    if kind == "linear":
        return [*x[:-1], op["out"]] if len(x) in (2, 3) and x[-1] == op["inf"] else None
    if kind == "layer_norm":
        return x if len(x) in (2, 3) and x[-1] == op["d"] else None
    if kind in ("softmax", "gelu"):
        return x if len(x) in (2, 3) else None
    if kind == "matmul":  # a @ b^T of two sequences
        y = ins[1]
        return [x[0], x[1], y[1]] if len(x) == 3 and len(y) == 3 and x[0] == y[0] \
            and x[2] == y[2] else None
    if kind == "matmul_v":  # p @ v
        y = ins[1]
        return [x[0], x[1], y[2]] if len(x) == 3 and len(y) == 3 and x[0] == y[0] \
            and x[2] == y[1] else None
    if kind == "mean":
        return [x[0], x[2]] if len(x) == 3 else None
    if kind == "chunk_add":
        return [*x[:-1], x[-1] // 2] if len(x) in (2, 3) and x[-1] % 2 == 0 else None
    if kind == "transpose":
        return [x[0], x[2], x[1]] if len(x) == 3 else None
    if kind == "upsample":
        # Not of a 1x1 image: PyTorch 1.13's quantized nearest upsampling of
        # an [N, C, 1, 1] tensor (channels-last too, by its strides) returns
        # the channels in the wrong places.
        return [x[0], x[1], x[2] * 2, x[3] * 2] if len(x) == 4 and x[2] * x[3] > 1 else None
    raise ValueError(f"unknown op kind {kind!r}")


def generate(seed: int) -> dict:
    """The spec of seed's case: its model's ops, mapping, mode and backend."""
    rng = random.Random(seed)
    image = rng.random() < 0.7
    spec = {"seed": seed,
            "input": [2, rng.choice([3, 4, 8]), rng.choice([6, 8, 11]), rng.choice([6, 8, 9])]
            if image else [2, rng.choice([4, 7, 8]), rng.choice([8, 16])],
            "ops": [], "output": None}
    backend, engine = rng.choice(BACKENDS)
    spec["backend"], spec["engine"] = backend, engine
    spec["mode"] = "dynamic" if rng.random() < 0.15 else "static"
    shapes = [list(spec["input"])]
    for _ in range(rng.randint(1, 8)):
        for _attempt in range(20):
            op = random_op(rng, shapes)
            if op is None:
                continue
            shape = op_shape(op, [shapes[i] for i in op["in"]])
            if shape is not None and all(d >= 1 for d in shape) and math.prod(shape) <= 20000:
                spec["ops"].append(op)
                shapes.append(shape)
                break
    # Only what the output depends on: FX keeps dead ops, which neither
    # side should be judged on.
    spec = prune(spec)
    spec["mapping"] = random_mapping(rng, spec)
    return spec


def random_op(rng, shapes) -> Optional[dict]:
    # Mostly the newest values, so that chains form.
    i = max(0, len(shapes) - 1 - int(rng.expovariate(1.0)))
    x = shapes[i]
    kinds = {4: ["conv2d"] * 4 + ["bn", "act", "fact", "maxpool", "avgpool", "adaptive", "add",
                                  "mul", "add_relu", "cat", "flatten", "to_seq", "upsample"],
             3: ["linear"] * 3 + ["layer_norm", "softmax", "gelu", "act", "fact", "add", "mul",
                                  "matmul", "matmul_v", "mean", "chunk_add", "transpose"],
             2: ["linear"] * 2 + ["layer_norm", "softmax", "act", "fact", "add", "cat"]}[len(x)]
    kind = rng.choice(kinds)
    op = {"kind": kind, "in": [i]}
    if kind == "conv2d":
        k = rng.choice([1, 3, 3, 5])
        cin = x[1]
        cout = rng.choice([4, 8, 16])
        groups = rng.choice([1, 1, 1, cin] + ([2] if cin % 2 == 0 else []))
        if groups == cin and rng.random() < 0.6:
            cout = cin  # depthwise
        if cout % groups:
            groups = 1
        op.update(cin=cin, cout=cout, k=k, stride=rng.choice([1, 1, 2]),
                  pad=rng.choice([0, k // 2]), dilation=rng.choice([1, 1, 2]) if k > 1 else 1,
                  groups=groups, bias=rng.random() < 0.8)
    elif kind == "bn":
        op["c"] = x[1]
    elif kind == "act":
        op["module"] = rng.choice(ACTIVATIONS)
    elif kind == "fact":
        op["expr"] = rng.choice(FUNCTIONAL_ACTIVATIONS)
    elif kind in ("maxpool", "avgpool"):
        k = rng.choice([2, 3])
        op.update(k=k, stride=rng.choice([1, 2]), pad=rng.choice([0, 1]) if k == 3 else 0)
    elif kind == "adaptive":
        op["size"] = rng.choice([1, 1, 2])
    elif kind in ("add", "mul", "add_relu", "cat", "matmul", "matmul_v"):
        others = [j for j, s in enumerate(shapes) if len(s) == len(x)]
        op["in"].append(rng.choice(others))
    elif kind == "linear":
        op.update(inf=x[-1], out=rng.choice([4, 8, 16, 32]), bias=rng.random() < 0.8)
    elif kind == "layer_norm":
        op["d"] = x[-1]
    return op


def random_mapping(rng, spec) -> list:
    """QConfigMapping entries after the backend's defaults: ["object_type",
    class name or function (function_key), None] or ["module_name", name,
    None]."""
    entries = []
    modules = [(f"m{n}", op) for n, op in enumerate(spec["ops"], 1) if is_module(op)]
    if modules and rng.random() < 0.25:
        name, op = rng.choice(modules)
        entries.append(["module_name", name, None])
    if modules and rng.random() < 0.15:
        _, op = rng.choice(modules)
        entries.append(["object_type", module_class(op), None])
    functions = sorted({function_key(op) for op in spec["ops"]} - {None})
    if functions and rng.random() < 0.2:
        entries.append(["object_type", rng.choice(functions), None])
    return entries


def function_key(op) -> Optional[str]:
    """The function or method the op calls, as an object_type key:
    "torch.cat", "F.relu", "operator.add", "Tensor.mean"; None for a
    module."""
    if op["kind"] == "fact":
        return op["expr"].split("(")[0]
    return {"add": "operator.add", "mul": "operator.mul", "add_relu": "torch.relu",
            "cat": "torch.cat", "flatten": "torch.flatten", "matmul": "torch.matmul",
            "matmul_v": "torch.matmul", "mean": "Tensor.mean", "transpose": "Tensor.transpose",
            "upsample": "F.interpolate"}.get(op["kind"])


def object_type(key):
    """The object_type a mapping entry's key names (random_mapping)."""
    import operator

    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    if key.startswith("Tensor."):
        return key.split(".", 1)[1]
    if "." in key:
        module, name = key.split(".")
        return getattr({"torch": torch, "F": F, "operator": operator}[module], name)
    return getattr(nn, key)


def is_module(op) -> bool:
    return op["kind"] in ("conv2d", "bn", "act", "maxpool", "avgpool", "adaptive", "linear",
                          "layer_norm", "gelu", "softmax")


def module_class(op) -> str:
    return {"conv2d": "Conv2d", "bn": "BatchNorm2d", "maxpool": "MaxPool2d",
            "avgpool": "AvgPool2d", "adaptive": "AdaptiveAvgPool2d", "linear": "Linear",
            "layer_norm": "LayerNorm", "gelu": "GELU", "softmax": "Softmax"}.get(
                op["kind"]) or op["module"].split("(")[0].split(".")[1]


def render(spec) -> str:
    """The model's source: a class Model(nn.Module)."""
    init, forward = [], []
    for n, op in enumerate(spec["ops"], 1):
        kind, a = op["kind"], [f"v{i}" for i in op["in"]]
        module = {
            "conv2d": lambda: (f"nn.Conv2d({op['cin']}, {op['cout']}, {op['k']}, "
                               f"stride={op['stride']}, padding={op['pad']}, "
                               f"dilation={op['dilation']}, groups={op['groups']}, "
                               f"bias={op['bias']})"),
            "bn": lambda: f"nn.BatchNorm2d({op['c']})",
            "act": lambda: op["module"],
            "maxpool": lambda: f"nn.MaxPool2d({op['k']}, {op['stride']}, {op['pad']})",
            "avgpool": lambda: f"nn.AvgPool2d({op['k']}, {op['stride']}, {op['pad']})",
            "adaptive": lambda: f"nn.AdaptiveAvgPool2d({op['size']})",
            "linear": lambda: f"nn.Linear({op['inf']}, {op['out']}, bias={op['bias']})",
            "layer_norm": lambda: f"nn.LayerNorm({op['d']})",
            "gelu": lambda: "nn.GELU()",
            "softmax": lambda: "nn.Softmax(dim=-1)",
        }.get(kind)
        if module:
            init.append(f"        self.m{n} = {module()}")
            expr = f"self.m{n}({a[0]})"
        else:
            expr = {
                "fact": lambda: op["expr"].format(x=a[0]),
                "add": lambda: f"{a[0]} + {a[1]}",
                "mul": lambda: f"{a[0]} * {a[1]}",
                "add_relu": lambda: f"torch.relu({a[0]} + {a[1]})",
                "cat": lambda: f"torch.cat([{a[0]}, {a[1]}], 1)",
                "flatten": lambda: f"torch.flatten({a[0]}, 1)",
                "to_seq": lambda: f"{a[0]}.flatten(2).transpose(1, 2)",
                "matmul": lambda: f"torch.matmul({a[0]}, {a[1]}.transpose(1, 2))",
                "matmul_v": lambda: f"torch.matmul({a[0]}, {a[1]})",
                "mean": lambda: f"{a[0]}.mean(1)",
                "chunk_add": lambda: (f"torch.add(*torch.chunk({a[0]}, 2, -1))"),
                "transpose": lambda: f"{a[0]}.transpose(1, 2)",
                "upsample": lambda: f"F.interpolate({a[0]}, scale_factor=2.0, mode='nearest')",
            }[kind]()
        forward.append(f"        v{n} = {expr}")
    out = spec["output"] if spec["output"] is not None else len(spec["ops"])
    lines = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F", "",
             "", "class Model(nn.Module):", "    def __init__(self):",
             "        super().__init__()", *init, "", "    def forward(self, v0):", *forward,
             f"        return v{out}", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- the case

def build(spec):
    import torch
    import torch.nn as nn

    namespace: dict = {}
    exec(compile(render(spec), f"<difffuzz seed {spec['seed']}>", "exec"), namespace)
    torch.manual_seed(spec["seed"])
    model = namespace["Model"]().eval()
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    generator = torch.Generator().manual_seed(spec["seed"])
    samples = [torch.randn(*spec["input"], generator=generator) for _ in range(6)]
    return model, samples[:4], samples[4:]


def torch_mapping(spec):
    import torch.nn as nn
    from torch.ao.quantization import (QConfigMapping, default_dynamic_qconfig,
                                       get_default_qconfig_mapping)

    if spec["mode"] == "dynamic":
        mapping = QConfigMapping().set_object_type(nn.Linear, default_dynamic_qconfig)
    else:
        mapping = get_default_qconfig_mapping(spec["backend"])
    for kind, key, _ in spec["mapping"]:
        if kind == "module_name":
            mapping.set_module_name(key, None)
        else:
            mapping.set_object_type(object_type(key), None)
    return mapping


def output_scale(quantized, x) -> Optional[float]:
    """The scale of the quantized tensor PyTorch's model dequantizes last."""
    import torch

    scales = []

    class Spy(torch.fx.Interpreter):
        def call_method(self, target, args, kwargs):
            if target == "dequantize" and args[0].is_quantized:
                scales.append(args[0].q_scale())
            return super().call_method(target, args, kwargs)

    Spy(quantized).run(x)
    return scales[-1] if scales else None


def misreads_channels_last(model, node) -> bool:
    """Whether `node` of PyTorch's converted `model` is an op PyTorch 1.13's
    qnnpack engine computes wrongly on a channels-last input (what its
    quantized convolutions return): its quantized hardtanh / ReLU6 / clamp
    read such an input as if it were contiguous (docs/accuracy.md). Every
    other op of the generator's vocabulary gives the same result for both
    layouts."""
    import torch
    import torch.nn.functional as F

    if node.op == "call_module":
        return isinstance(model.get_submodule(node.target), (torch.nn.ReLU6, torch.nn.Hardtanh))
    if node.op == "call_method":
        return node.target in ("clamp", "clamp_", "hardtanh", "hardtanh_")
    return node.op == "call_function" and node.target in (
        torch.clamp, F.hardtanh, F.hardtanh_, F.relu6)


def in_format_of(result, operand):
    """`result` in `operand`'s memory format (the same values)."""
    import torch

    if operand.dim() == 4 and not operand.is_contiguous() and \
            operand.is_contiguous(memory_format=torch.channels_last):
        return result.contiguous(memory_format=torch.channels_last)
    return result


def contiguous_inputs(model) -> None:
    """Makes the inputs of the ops of PyTorch's converted `model` that
    misread channels-last tensors (`misreads_channels_last`) contiguous (the
    same values), and their results the format the input had, as the op
    would have written them. Only those: the input of, say, an uneven
    adaptive average pool in the other format changes PyTorch's result by a
    step (another kernel), which qfx, following the real model, would then
    differ from."""
    graph = model.graph
    for node in list(graph.nodes):
        if not misreads_channels_last(model, node):
            continue
        first = node.all_input_nodes[0] if node.all_input_nodes else None
        for arg in node.all_input_nodes:
            if arg.op == "get_attr":
                continue
            with graph.inserting_before(node):
                contiguous = graph.call_method("contiguous", (arg,))
            node.replace_input_with(arg, contiguous)
        if first is not None and first.op != "get_attr":
            with graph.inserting_after(node):
                restored = graph.call_function(in_format_of, (node, first))
            node.replace_all_uses_with(restored, delete_user_cb=lambda user: user is not restored)
    graph.lint()
    model.recompile()


def torch_float_ops(quantized) -> int:
    """PyTorch's converted model's nodes that compute on a dequantized value."""
    def dequantized(arg):
        return getattr(arg, "op", None) == "call_method" and arg.target == "dequantize"
    return sum(1 for node in quantized.graph.nodes
               if node.op in ("call_module", "call_function", "call_method")
               and any(dequantized(a) for a in node.all_input_nodes))


def has_float_arithmetic(quantized) -> bool:
    """Whether PyTorch's converted model runs a convolution, Linear or batch
    norm in float (configured None): qfx's float kernels sum or scale in
    another order than PyTorch's (docs/accuracy.md), so a value quantized
    after one can be a step off at a rounding boundary. (Exact classes: a
    quantized batch norm subclasses _BatchNorm, not BatchNorm2d.)"""
    import torch.nn as nn

    return any(isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d,
                              nn.ConvTranspose2d, nn.ConvTranspose3d, nn.Linear))
               or type(m) in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
               for m in quantized.modules())


def rounding_noise(model, tests) -> float:
    """How far float32 rounding alone moves the float model's output: the
    largest difference from the same model computed in float64."""
    import torch

    wide = copy.deepcopy(model).double()
    with torch.no_grad():
        return max((model(x).double() - wide(x.double() if x.is_floating_point() else x))
                   .abs().max().item() for x in tests)


def float_modules(quantized) -> int:
    """The PyTorch ops qfx's `quantized` model runs in float: its float ops
    by location, the module or FX node they come from (one PyTorch op can be
    several TOSA ops: a nearest interpolate's reshapes and tiles)."""
    return len({op.location for op in quantized.float_ops})


def torch_quantized(spec, model, calibration, tests):
    """PyTorch's prepared model, its converted model, the number of ops that
    model computes on dequantized values, and its outputs on `tests` (under
    the spec's engine; raises what PyTorch raises)."""
    import torch
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepared = prepare_fx(copy.deepcopy(model), torch_mapping(spec), (calibration[0],))
        for x in calibration:
            prepared(x)
        quantized = convert_fx(copy.deepcopy(prepared))
        floats = torch_float_ops(quantized)
        if spec["engine"] == "qnnpack":
            contiguous_inputs(quantized)
        with torch.no_grad():
            return prepared, quantized, floats, [quantized(x) for x in tests]


def qfx_outputs(prepared, example, tests):
    """qfx's model converted from PyTorch's `prepared` one and its outputs on
    `tests` (raises what qfx raises)."""
    import torch

    import qfx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantized = qfx.convert_fx(prepared, example, strict=True)
        with torch.no_grad():
            return quantized, [quantized(x) for x in tests]


def computes_in_float(quantized, spec, n) -> bool:
    """Whether op n of `spec` is a convolution, Linear or batch norm that
    PyTorch's converted model `quantized` runs in float (configured None; a
    batch norm folded into the float convolution before it counts as that
    convolution): qfx's float kernels sum or scale in another order
    (docs/accuracy.md)."""
    import torch.nn as nn

    op = spec["ops"][n - 1]
    module = dict(quantized.named_modules()).get(f"m{n}")
    if isinstance(module, nn.Sequential):  # a fused float module: its first
        module = module[0]
    if op["kind"] == "bn" and type(module) is not nn.BatchNorm2d and op["in"][0] > 0:
        return computes_in_float(quantized, spec, op["in"][0])
    return op["kind"] in ("conv2d", "linear", "bn") and \
        type(module) in (nn.Conv2d, nn.Linear, nn.BatchNorm2d)


def first_difference(spec) -> Optional[str]:
    """Why a difference of qfx's output from PyTorch's is documented, if it
    is: the model cut after each op in turn (PyTorch's statistics for the
    ops kept are the same), the first op whose output differs is a matmul of
    activations (PyTorch's BLAS sums in its own order) or a convolution,
    Linear or batch norm PyTorch runs in float; the ops after it can amplify
    that one step or ulp (an add of a tensor to itself, a layer norm, a
    dynamic Linear's input quantization). None where the first difference
    is elsewhere, or cannot be found."""
    import torch

    for n in range(1, len(spec["ops"]) + 1):
        cut = prune({**spec, "output": n})
        model, calibration, tests = build(cut)
        try:
            prepared, theirs_model, _, theirs = torch_quantized(cut, model, calibration, tests)
            _, ours = qfx_outputs(prepared, (calibration[0],), tests)
        except Exception:  # noqa: BLE001 - a cut PyTorch or qfx cannot run decides nothing
            return None
        if all(torch.equal(a, b) for a, b in zip(ours, theirs)):
            continue
        last = len(cut["ops"])
        kind = cut["ops"][-1]["kind"]
        if kind in ("matmul", "matmul_v") or computes_in_float(theirs_model, cut, last):
            return (f"the first difference is op {n}'s output ({kind}), which PyTorch computes "
                    "in float in another order (documented); the ops after it amplify it")
        return None
    return None


def run_case(spec) -> dict:
    """The case's result: {"status": "ok" | "skip" | finding kind, ...}."""
    import torch

    import qfx

    result = {"seed": spec["seed"]}
    model, calibration, tests = build(spec)
    engine = torch.backends.quantized.engine
    torch.backends.quantized.engine = spec["engine"]
    try:
        example = (calibration[0],)
        try:
            prepared, theirs_model, torch_floats, theirs = torch_quantized(
                spec, model, calibration, tests)
        except Exception as e:  # noqa: BLE001 - any failure of PyTorch's is a skip
            return {**result, "status": "skip",
                    "why": f"PyTorch fails: {type(e).__name__}: {first_line(e)}"}
        if any(not torch.isfinite(t).all() for t in theirs):
            return {**result, "status": "skip", "why": "PyTorch's output is not finite"}
        scale = output_scale(theirs_model, tests[0]) if spec["mode"] == "static" else None
        if spec["mode"] == "static" and scale is None:
            return {**result, "status": "skip", "why": "PyTorch's output is float"}
        try:
            ours_model, ours = qfx_outputs(prepared, example, tests)
        except Exception as e:  # noqa: BLE001 - a rejection is a finding
            return {**result, "status": "rejected", "why": f"{type(e).__name__}: {first_line(e)}"}
        if float_modules(ours_model) > torch_floats:
            return {**result, "status": "float",
                    "why": "; ".join(str(op) for op in ours_model.float_ops)[:300]}
        diff = max((a - b).abs().max().item() for a, b in zip(ours, theirs))
        if scale is not None:
            steps = diff / scale
            one_step = ({op["kind"] for op in spec["ops"]} & ONE_STEP_OPS
                        or has_float_arithmetic(theirs_model))
            bound = 1.0 if one_step else 0.0
            result["steps"] = steps
            if steps > bound + 1e-3:
                documented = first_difference(spec)
                if documented:
                    return {**result, "status": "skip", "why": documented, "located": True}
                return {**result, "status": "numerics",
                        "why": f"{steps:.2f} steps off (bound {bound:g})"}
        else:
            largest = max(t.abs().max().item() for t in theirs)
            result["relative"] = diff / max(largest, 1e-12)
            if diff > 1e-4 * max(largest, 1e-12):
                if rounding_noise(model, tests) > 1e-4 * largest:
                    return {**result, "status": "skip", "why": "the float output is "
                            "cancellation: float32 rounding alone moves it beyond the bound"}
                documented = first_difference(spec)
                if documented:
                    return {**result, "status": "skip", "why": documented, "located": True}
                return {**result, "status": "numerics",
                        "why": f"{diff / max(largest, 1e-12):.1e} of the largest output"}
        if spec["mode"] == "static":
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    own = qfx.prepare_fx(model, torch_mapping(spec), example, outputs=None,
                                          strict=True)
                    for x in calibration:
                        own(x)
                    own_model = qfx.convert_fx(own)
                    with torch.no_grad():
                        own_model(tests[0])
            except Exception as e:  # noqa: BLE001
                return {**result, "status": "rejected",
                        "why": f"own calibration: {type(e).__name__}: {first_line(e)}"}
            if float_modules(own_model) > torch_floats:
                return {**result, "status": "float", "why": "own calibration: " + "; ".join(
                    str(op) for op in own_model.float_ops)[:300]}
        return {**result, "status": "ok"}
    finally:
        torch.backends.quantized.engine = engine


def first_line(error) -> str:
    """The error's first line, or a tool's first error diagnostic."""
    for line in getattr(error, "diagnostics", "").splitlines():
        if "error:" in line:
            return line[line.index("error:"):][:300]
    text = str(error).strip()
    return (text.splitlines() or [""])[0][:300]


# ---------------------------------------------------------------- shrinking

def prune(spec) -> dict:
    """`spec` without the ops its output does not depend on."""
    out = spec["output"] if spec["output"] is not None else len(spec["ops"])
    live = {out}
    for n in range(len(spec["ops"]), 0, -1):
        if n in live:
            live.update(spec["ops"][n - 1]["in"])
    keep = [n for n in range(1, len(spec["ops"]) + 1) if n in live]
    renumber = {0: 0, **{old: new for new, old in enumerate(keep, 1)}}
    ops = []
    for n in keep:
        op = dict(spec["ops"][n - 1])
        op["in"] = [renumber[i] for i in op["in"]]
        ops.append(op)
    mapping = [e for e in spec.get("mapping", [])
               if e[0] != "module_name" or int(e[1][1:]) in renumber]
    mapping = [[k, f"m{renumber[int(key[1:])]}", v] if k == "module_name" else [k, key, v]
               for k, key, v in mapping]
    return {**spec, "ops": ops, "output": None, "mapping": mapping}


def without(spec, n) -> Optional[dict]:
    """`spec` with op n removed, its users reading its first operand."""
    ops = []
    for m, op in enumerate(spec["ops"], 1):
        if m == n:
            continue
        op = dict(op)
        op["in"] = [spec["ops"][n - 1]["in"][0] if i == n else (i - 1 if i > n else i)
                    for i in op["in"]]
        ops.append(op)
    if not ops:
        return None
    mapping = [e for e in spec["mapping"] if not (e[0] == "module_name" and e[1] == f"m{n}")]
    mapping = [[k, f"m{int(key[1:]) - 1}", v] if k == "module_name" and int(key[1:]) > n
               else [k, key, v] for k, key, v in mapping]
    candidate = prune({**spec, "ops": ops, "output": None, "mapping": mapping})
    return candidate if infer(candidate) is not None else None


def shrink(spec, status, check, deadline) -> dict:
    """The smallest spec (ops, then mapping entries) `check` still finds
    `status` in, within `deadline` (time.monotonic())."""
    spec = prune(spec)
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for n in range(len(spec["ops"]), 0, -1):
            candidate = without(spec, n)
            if candidate is not None and check(candidate) == status:
                spec, progress = candidate, True
                break
        for e in range(len(spec["mapping"])):
            candidate = {**spec, "mapping": spec["mapping"][:e] + spec["mapping"][e + 1:]}
            if check(candidate) == status:
                spec, progress = candidate, True
                break
    return spec


# ---------------------------------------------------------------- the runner

def worker(first: int, count: int) -> None:
    """Runs seeds first, first + 1, ...: a line "start SEED" before each and
    its result as JSON after (the parent sees which seed a crash was in)."""
    for seed in range(first, first + count):
        print(f"start {seed}", flush=True)
        try:
            result = run_case(generate(seed))
        except Exception as e:  # noqa: BLE001 - the harness's own failure
            result = {"seed": seed, "status": "error",
                      "why": f"{type(e).__name__}: {first_line(e)}",
                      "trace": traceback.format_exc()}
        print("result " + json.dumps(result), flush=True)


def run_in_child(args: list, timeout: float):
    """(result lines, the seed a dead child was in or None)."""
    process = subprocess.run([sys.executable, os.path.abspath(__file__), *args],
                             capture_output=True, text=True, timeout=timeout)
    results, started = [], None
    for line in process.stdout.splitlines():
        if line.startswith("start "):
            started = int(line.split()[1])
        elif line.startswith("result "):
            results.append(json.loads(line[len("result "):]))
            started = None
    dead = started if process.returncode != 0 else None
    return results, dead, process.stderr


def check_in_child(spec, timeout=300.0) -> str:
    """The status of `spec`'s case, run in a child ("crash" if it dies)."""
    try:
        process = subprocess.run([sys.executable, os.path.abspath(__file__), "replay", "-"],
                                 input=json.dumps(spec), capture_output=True, text=True,
                                 timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    for line in process.stdout.splitlines():
        if line.startswith("result "):
            return json.loads(line[len("result "):])["status"]
    return "crash"


def write_finding(out_dir, spec, result) -> str:
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"seed{spec['seed']}-{result['status']}.json")
    with open(path, "w") as f:
        json.dump({"spec": spec, "finding": result, "source": render(spec)}, f, indent=1)
    return path


def run(args) -> int:
    deadline = time.monotonic() + args.seconds if args.seconds else float("inf")
    end = args.seed + args.count if args.count else None
    seed, counts, findings = args.seed, {}, []
    while (end is None or seed < end) and time.monotonic() < deadline:
        batch = min(25, (end - seed) if end else 25)
        results, dead, stderr = run_in_child(["worker", str(seed), str(batch)], timeout=1800)
        if dead is not None:
            results.append({"seed": dead, "status": "crash", "why": stderr.strip()[-300:]})
        for result in results:
            status = result["status"]
            # A skip located at a documented difference is counted, and
            # logged, on its own.
            key = "located" if result.get("located") else status
            counts[key] = counts.get(key, 0) + 1
            if result.get("located"):
                print(f"seed {result['seed']}: located: {result['why']}", flush=True)
            if status not in ("ok", "skip"):
                spec = generate(result["seed"])
                if status != "error" and not args.no_shrink:
                    spec = shrink(spec, status, check_in_child,
                                  min(deadline, time.monotonic() + args.shrink_seconds))
                path = write_finding(args.out, spec, result)
                findings.append(path)
                print(f"seed {result['seed']}: {status}: {result.get('why', '')} -> {path}",
                      flush=True)
        if not results:
            print(f"difffuzz: the worker ran no case:\n{stderr.strip()[-2000:]}", file=sys.stderr)
            return 2
        seed = (dead + 1) if dead is not None else seed + len(results)
        print(f"{seed - args.seed} cases: " + ", ".join(f"{k} {v}" for k, v in
                                                        sorted(counts.items())), flush=True)
    print(f"difffuzz: seeds {args.seed}..{seed - 1}: {seed - args.seed} cases, "
          f"{len(findings)} findings ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    return 1 if findings else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="generate and compare cases")
    r.add_argument("--seconds", type=float, default=0, help="stop after this long (0: never)")
    r.add_argument("--seed", type=int, default=0, help="the first seed")
    r.add_argument("--count", type=int, default=0, help="cases to run (0: until --seconds)")
    r.add_argument("--out", default="difffuzz-findings", help="where reproducers go")
    r.add_argument("--shrink-seconds", type=float, default=300)
    r.add_argument("--no-shrink", action="store_true")
    c = sub.add_parser("case", help="one seed's result as JSON")
    c.add_argument("seed", type=int)
    s = sub.add_parser("show", help="one seed's model source and spec")
    s.add_argument("seed", type=int)
    p = sub.add_parser("replay", help="a reproducer's (or, with -, stdin's spec) result as JSON")
    p.add_argument("file")
    w = sub.add_parser("worker")
    w.add_argument("first", type=int)
    w.add_argument("count", type=int)
    args = parser.parse_args()
    if args.command == "run":
        if args.seconds <= 0 and args.count <= 0:
            parser.error("run needs --seconds or --count")
        return run(args)
    if args.command == "worker":
        worker(args.first, args.count)
        return 0
    if args.command == "show":
        spec = generate(args.seed)
        print(render(spec))
        print("# spec: " + json.dumps(spec))
        return 0
    if args.command in ("case", "replay"):
        if args.command == "case":
            spec = generate(args.seed)
        else:
            try:
                text = sys.stdin.read() if args.file == "-" else open(args.file).read()
                spec = json.loads(text)
                spec = spec.get("spec", spec)
                if infer(spec) is None:
                    raise ValueError("its ops do not fit their operands' shapes")
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
                print(f"difffuzz: {args.file}: not a difffuzz case: {e}", file=sys.stderr)
                return 2
        result = run_case(spec)
        print("result " + json.dumps(result), flush=True)
        return 0 if result["status"] in ("ok", "skip") else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
