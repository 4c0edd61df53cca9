"""Tests of the PyTorch FX → float TOSA exporter (qfx.export_tosa).

Every exported model is validated by quant-opt (pro_fp profile) and run by
qfx's NumPy TOSA evaluator (qfx._tosa_reference), whose result must match
PyTorch's. Needs torch (Debian's python3-torch: run with /usr/bin/python3).
"""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

nn = torch.nn
F = torch.nn.functional

import qfx  # noqa: E402
from qfx import ExportError, export_tosa  # noqa: E402
from qfx._tosa_reference import evaluate  # noqa: E402
from qfx._tosa_text import format_f32  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
MODELS = REPO / "test" / "Inputs" / "models"
MODEL_NAMES = ["mlp", "cnn", "residual", "concat", "sigmoid_head", "depthwise", "depthwise_multiplier"]


def validate(text: str) -> str:
    return qfx.quant_opt(text, "--tosa-attach-target=profiles=pro_fp", "--tosa-validate")


_OP_LINE = re.compile(r'^\s*(?:%\S+ = )?"?(tosa\.\w+|func\.return|return)"?[ (].*loc\((.*)\)\s*$')


def ops(text: str):
    """(op name, qfx.origin or None, location) of every op, as MLIR parsed them."""
    printed = qfx.quant_opt(text, "--mlir-print-debuginfo", "--mlir-print-local-scope")
    result = []
    for line in printed.splitlines():
        m = _OP_LINE.match(line)
        if m is None:
            continue
        origin = re.search(r'qfx\.origin = "([^"]*)"', line)
        result.append((m.group(1), origin.group(1) if origin else None, m.group(2)))
    return result


def quant_run(text: str, inputs, tmp_dir: pathlib.Path, outputs: int = 1):
    """Runs the float model `text` with quant-run (MLIR's TOSA lowering, JIT)."""
    model = tmp_dir / "model.mlir"
    model.write_text(text)
    names = []
    for i, value in enumerate(inputs):
        names.append(str(tmp_dir / f"in{i}.npy"))
        np.save(names[-1], np.asarray(value, np.float32))
    results = [str(tmp_dir / f"out{i}.npy") for i in range(outputs)]
    subprocess.run(
        [str(qfx.find_tool("quant-run")), str(model), f"--input={','.join(names)}", "-o", ",".join(results)],
        check=True,
        capture_output=True,
        text=True,
    )
    return [np.load(r) for r in results]


def assert_close(got, expected, rtol=1e-5):
    assert got.shape == expected.shape
    scale = max(float(np.abs(expected).max()), 1e-6)
    assert float(np.abs(got - expected).max()) <= rtol * scale, (got, expected)


def assert_matches_torch(model, x, text, tmp_dir=None, rtol=1e-5):
    """PyTorch's output equals the exported model's, run by the NumPy TOSA
    evaluator and, given a scratch folder, by quant-run."""
    with torch.no_grad():
        expected = model(x)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    expected = [e.numpy() for e in expected]
    runs = [evaluate(text, [x.numpy()])]
    if tmp_dir is not None:
        runs.append(quant_run(text, [x.numpy()], tmp_dir, len(expected)))
    for got in runs:
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_close(g, e, rtol)


class Wrap(nn.Module):
    """A one-module model; the module's qualified name is "layer"."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)


class Fn(nn.Module):
    """A model that calls one function (a functional op at the top level)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def randomized_bn(bn):
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.25, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.5, 0.5)
    return bn


# (id, module factory, input shape, qfx.origin, TOSA op that carries it)
MODULE_CASES = [
    ("linear", lambda: nn.Linear(16, 8), (2, 16), "torch.nn.Linear", "tosa.matmul"),
    ("linear_3d", lambda: nn.Linear(6, 4), (2, 5, 6), "torch.nn.Linear", "tosa.matmul"),
    ("linear_nobias", lambda: nn.Linear(6, 4, bias=False), (3, 6), "torch.nn.Linear", "tosa.matmul"),
    ("conv1d", lambda: nn.Conv1d(3, 5, 3), (2, 3, 10), "torch.nn.Conv1d", "tosa.conv2d"),
    ("conv1d_strided", lambda: nn.Conv1d(3, 4, 4, stride=2, padding=1, dilation=2), (2, 3, 11),
     "torch.nn.Conv1d", "tosa.conv2d"),
    ("conv1d_depthwise", lambda: nn.Conv1d(4, 8, 3, padding=1, groups=4), (2, 4, 7),
     "torch.nn.Conv1d", "tosa.depthwise_conv2d"),
    ("conv2d", lambda: nn.Conv2d(3, 4, 3), (2, 3, 7, 6), "torch.nn.Conv2d", "tosa.conv2d"),
    ("conv2d_stride_pad", lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 8, 8),
     "torch.nn.Conv2d", "tosa.conv2d"),
    ("conv2d_uneven", lambda: nn.Conv2d(2, 3, (3, 2), stride=(3, 2), padding=(0, 1), bias=False),
     (2, 2, 10, 7), "torch.nn.Conv2d", "tosa.conv2d"),
    ("conv2d_dilation", lambda: nn.Conv2d(3, 4, 3, padding=2, dilation=2), (1, 3, 9, 9),
     "torch.nn.Conv2d", "tosa.conv2d"),
    ("conv2d_same_even_kernel", lambda: nn.Conv2d(3, 2, 4, padding="same"), (1, 3, 6, 6),
     "torch.nn.Conv2d", "tosa.conv2d"),
    ("conv2d_groups", lambda: nn.Conv2d(4, 6, 3, padding=1, groups=2), (2, 4, 5, 5),
     "torch.nn.Conv2d", "tosa.conv2d"),
    ("conv2d_depthwise", lambda: nn.Conv2d(6, 6, 3, padding=1, groups=6), (2, 6, 5, 5),
     "torch.nn.Conv2d", "tosa.depthwise_conv2d"),
    ("conv2d_depthwise_multiplier", lambda: nn.Conv2d(3, 6, 3, stride=2, groups=3), (2, 3, 7, 7),
     "torch.nn.Conv2d", "tosa.depthwise_conv2d"),
    ("conv2d_one_channel", lambda: nn.Conv2d(1, 4, 3), (2, 1, 6, 6), "torch.nn.Conv2d", "tosa.conv2d"),
    ("relu", nn.ReLU, (2, 3, 4, 4), "torch.nn.ReLU", "tosa.clamp"),
    ("relu6", nn.ReLU6, (2, 3, 4, 4), "torch.nn.ReLU6", "tosa.clamp"),
    ("hardtanh", lambda: nn.Hardtanh(-0.5, 0.75), (2, 7), "torch.nn.Hardtanh", "tosa.clamp"),
    ("sigmoid", nn.Sigmoid, (2, 7), "torch.nn.Sigmoid", "tosa.sigmoid"),
    ("tanh", nn.Tanh, (2, 7), "torch.nn.Tanh", "tosa.tanh"),
    ("maxpool2d", lambda: nn.MaxPool2d(2), (2, 3, 6, 6), "torch.nn.MaxPool2d", "tosa.max_pool2d"),
    ("maxpool2d_pad_floor", lambda: nn.MaxPool2d(3, stride=2, padding=1), (2, 3, 8, 8),
     "torch.nn.MaxPool2d", "tosa.max_pool2d"),
    ("maxpool2d_ceil", lambda: nn.MaxPool2d(3, stride=2, ceil_mode=True), (2, 3, 8, 8),
     "torch.nn.MaxPool2d", "tosa.max_pool2d"),
    ("avgpool2d", lambda: nn.AvgPool2d(2), (2, 3, 6, 6), "torch.nn.AvgPool2d", "tosa.avg_pool2d"),
    ("avgpool2d_count_include_pad", lambda: nn.AvgPool2d(3, stride=2, padding=1), (2, 3, 7, 8),
     "torch.nn.AvgPool2d", "tosa.avg_pool2d"),
    ("avgpool2d_exclude_pad", lambda: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
     (2, 3, 7, 8), "torch.nn.AvgPool2d", "tosa.avg_pool2d"),
    ("avgpool2d_ceil_include_pad", lambda: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True),
     (2, 3, 8, 8), "torch.nn.AvgPool2d", "tosa.avg_pool2d"),
    ("avgpool2d_ceil_exclude_pad",
     lambda: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
     (2, 3, 8, 8), "torch.nn.AvgPool2d", "tosa.avg_pool2d"),
    ("adaptive_avgpool2d_1x1", lambda: nn.AdaptiveAvgPool2d(1), (2, 3, 5, 7),
     "torch.nn.AdaptiveAvgPool2d", "tosa.avg_pool2d"),
    ("adaptive_avgpool2d_divisible", lambda: nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 4, 6),
     "torch.nn.AdaptiveAvgPool2d", "tosa.avg_pool2d"),
    ("maxpool1d", lambda: nn.MaxPool1d(3, 2, padding=1, ceil_mode=True), (2, 3, 12),
     "torch.nn.MaxPool1d", "tosa.max_pool2d"),
    ("avgpool1d", lambda: nn.AvgPool1d(3, 2, padding=1), (2, 3, 11), "torch.nn.AvgPool1d",
     "tosa.avg_pool2d"),
    ("adaptive_avgpool1d", lambda: nn.AdaptiveAvgPool1d(4), (2, 3, 12), "torch.nn.AdaptiveAvgPool1d",
     "tosa.avg_pool2d"),
    ("conv3d", lambda: nn.Conv3d(3, 4, (2, 3, 3), stride=(1, 2, 2), padding=1), (2, 3, 5, 7, 8),
     "torch.nn.Conv3d", "tosa.conv3d"),
    ("conv3d_same", lambda: nn.Conv3d(3, 2, 2, padding="same", dilation=(1, 2, 1)),
     (1, 3, 4, 5, 6), "torch.nn.Conv3d", "tosa.conv3d"),
    ("flatten", nn.Flatten, (2, 3, 4, 5), "torch.nn.Flatten", "tosa.reshape"),
    ("unflatten", lambda: nn.Unflatten(1, (2, 3)), (2, 6), "torch.nn.Unflatten", "tosa.reshape"),
    ("conv1d_groups", lambda: nn.Conv1d(4, 6, 2, groups=2), (2, 4, 5), "torch.nn.Conv1d", "tosa.conv2d"),
]


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("case", MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_module_exports_valid_tosa_matching_torch(case, tmp_path):
    _, factory, shape, origin, carrier = case
    torch.manual_seed(0)
    model = Wrap(factory()).eval()
    x = torch.randn(*shape)
    text = export_tosa(model, (x,))
    validate(text)
    printed = ops(text)
    assert (carrier, origin, '"layer"') in printed, printed
    # Everything the module became is located at it; only the layout change
    # back to PyTorch's order at the result is located at the output.
    for op, op_origin, loc in printed:
        if op.startswith("tosa."):
            layout_op = op in ("tosa.transpose", "tosa.reshape", "tosa.const_shape")
            assert loc == '"layer"' or (loc == '"output"' and layout_op and op_origin is None), (op, loc)
    assert_matches_torch(model, x, text, tmp_path)


def test_grouped_conv_is_one_conv2d_with_a_block_diagonal_weight():
    # Not one conv per group: a single conv2d (so batch norm folds into it)
    # whose weight is zero outside each output channel's group.
    model = Wrap(nn.Conv2d(4, 6, 3, groups=2)).eval()
    text = export_tosa(model, (torch.randn(1, 4, 5, 5),))
    names = [op for op, _, _ in ops(text)]
    assert names.count("tosa.conv2d") == 1 and "tosa.concat" not in names
    weight = re.search(r'tensor<6x3x3x4xf32>', text)
    assert weight, text


def _with_slopes(prelu, slopes):
    with torch.no_grad():
        prelu.weight.copy_(torch.tensor(slopes))
    return prelu


def _with_affine(norm):
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
    return norm


COMPOSITE_CASES = [
    # (id, model, composite name, qfx.origin)
    ("hardswish", Wrap(nn.Hardswish()), "torch.nn.Hardswish", "torch.nn.Hardswish"),
    ("hardsigmoid", Wrap(nn.Hardsigmoid()), "torch.nn.Hardsigmoid", "torch.nn.Hardsigmoid"),
    ("leaky_relu", Wrap(nn.LeakyReLU(0.2)), "torch.nn.LeakyReLU", "torch.nn.LeakyReLU"),
    ("elu", Wrap(nn.ELU(0.7)), "torch.nn.ELU", "torch.nn.ELU"),
    ("silu", Wrap(nn.SiLU()), "torch.nn.SiLU", "torch.nn.SiLU"),
    ("gelu", Wrap(nn.GELU()), "torch.nn.GELU", "torch.nn.GELU"),
    ("prelu", Wrap(nn.PReLU()), "torch.nn.PReLU", "torch.nn.PReLU"),
    ("prelu_per_channel", Wrap(_with_slopes(nn.PReLU(3), [0.1, -0.5, 2.0])), "torch.nn.PReLU",
     "torch.nn.PReLU"),
    ("f_hardswish", Fn(F.hardswish), "torch.nn.Hardswish", "torch.nn.functional.hardswish"),
    ("f_hardsigmoid", Fn(F.hardsigmoid), "torch.nn.Hardsigmoid",
     "torch.nn.functional.hardsigmoid"),
    ("f_leaky_relu", Fn(lambda x: F.leaky_relu(x, negative_slope=0.3)), "torch.nn.LeakyReLU",
     "torch.nn.functional.leaky_relu"),
    ("f_elu", Fn(lambda x: F.elu(x, 0.5)), "torch.nn.ELU", "torch.nn.functional.elu"),
    ("f_silu", Fn(F.silu), "torch.nn.SiLU", "torch.nn.functional.silu"),
    ("f_gelu", Fn(F.gelu), "torch.nn.GELU", "torch.nn.functional.gelu"),
    ("softmax", Wrap(nn.Softmax(1)), "torch.nn.Softmax", "torch.nn.Softmax"),
    ("layer_norm", Wrap(_with_affine(nn.LayerNorm(5))), "torch.nn.LayerNorm",
     "torch.nn.LayerNorm"),
    ("f_layer_norm", Fn(lambda x: F.layer_norm(x, (3, 5), eps=1e-3)), "torch.nn.LayerNorm",
     "torch.nn.functional.layer_norm"),
    ("group_norm", Wrap(_with_affine(nn.GroupNorm(1, 3))), "torch.nn.GroupNorm",
     "torch.nn.GroupNorm"),
    ("f_group_norm", Fn(lambda x: F.group_norm(x, 3)), "torch.nn.GroupNorm",
     "torch.nn.functional.group_norm"),
    ("instance_norm", Wrap(_with_affine(nn.InstanceNorm1d(3, affine=True))),
     "torch.nn.InstanceNorm1d", "torch.nn.InstanceNorm1d"),
    ("f_instance_norm", Fn(lambda x: F.instance_norm(x, eps=1e-3)), "torch.nn.InstanceNorm1d",
     "torch.nn.functional.instance_norm"),
]


@pytest.mark.parametrize("case", COMPOSITE_CASES, ids=[c[0] for c in COMPOSITE_CASES])
def test_activations_export_as_composites(case, tmp_path):
    # A PyTorch op without a single TOSA op is one qfx.composite named by its
    # module, carrying its origin and holding its TOSA decomposition (whose
    # ops carry no origin); inlined, it is valid plain TOSA.
    _, model, name, origin = case
    model.eval()
    x = torch.randn(2, 3, 5) * 4
    text = export_tosa(model, (x,))
    validate(text)
    composites = re.findall(r'qfx\.composite "([^"]*)" \(%\w+\) attributes \{(.*)\} :', text)
    assert len(composites) == 1 and composites[0][0] == name, composites
    assert f'qfx.origin = "{origin}"' in composites[0][1]
    assert all(op_origin is None for op, op_origin, _ in ops(text) if op != "func.return")
    inlined = qfx.quant_opt(text, "--qfx-inline-composites")
    assert not re.findall(r"qfx\.(?!origin|module_name|node_name)", inlined)
    validate(inlined)
    assert_matches_torch(model, x, text, tmp_path)


@pytest.mark.parametrize("module, shape, origin, windows", [
    # Windows of different sizes (5 -> 2: rows [0, 3) and [2, 5); 7 -> 3:
    # [0, 3), [2, 5), [4, 7)).
    (lambda: nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 5, 7), "torch.nn.AdaptiveAvgPool2d", 6),
    (lambda: nn.AdaptiveAvgPool1d(3), (2, 3, 7), "torch.nn.AdaptiveAvgPool1d", 3),
], ids=["2d", "1d"])
def test_uneven_adaptive_pool_is_one_composite(module, shape, origin, windows, tmp_path):
    # One op, as PyTorch's: a composite whose body averages each output
    # position's window (a slice) and concatenates them.
    torch.manual_seed(0)
    model = Wrap(module()).eval()
    x = torch.randn(*shape)
    text = export_tosa(model, (x,))
    validate(text)
    composites = re.findall(r'qfx\.composite "([^"]*)" \(%\w+\) attributes \{(.*)\} :', text)
    assert [name for name, _ in composites] == ["torch.nn.AdaptiveAvgPool2d"], composites
    assert f'qfx.origin = "{origin}"' in composites[0][1]
    assert text.count("tosa.avg_pool2d") == windows
    validate(qfx.quant_opt(text, "--qfx-inline-composites"))
    assert_matches_torch(model, x, text, tmp_path)


BATCH_NORM_CASES = [
    # (id, module, input shape, composite name, channel axis as held)
    ("1d", lambda: randomized_bn(nn.BatchNorm1d(5)), (4, 5), "torch.nn.BatchNorm1d", 1),
    ("1d_rank3", lambda: randomized_bn(nn.BatchNorm1d(5)), (2, 5, 7), "torch.nn.BatchNorm1d", 1),
    ("2d", lambda: randomized_bn(nn.BatchNorm2d(4)), (2, 4, 3, 5), "torch.nn.BatchNorm2d", 1),
    ("2d_no_affine", lambda: nn.BatchNorm2d(3, affine=False), (2, 3, 2, 2), "torch.nn.BatchNorm2d",
     1),
    ("3d", lambda: randomized_bn(nn.BatchNorm3d(3)), (2, 3, 2, 3, 4), "torch.nn.BatchNorm3d", 1),
]


@pytest.mark.parametrize("case", BATCH_NORM_CASES, ids=[c[0] for c in BATCH_NORM_CASES])
def test_batch_norm_exports_as_a_composite_with_its_parameters(case, tmp_path):
    # The body scales and shifts each channel as PyTorch's float kernel; the
    # attributes carry what its quantized kernel computes from instead.
    _, factory, shape, name, axis = case
    torch.manual_seed(0)
    bn = factory().eval()
    model = Wrap(bn).eval()
    x = torch.randn(*shape)
    text = export_tosa(model, (x,))
    validate(text)
    line = next(line for line in text.splitlines() if "qfx.composite" in line)
    assert f'qfx.composite "{name}"' in line and f'qfx.origin = "{name}"' in line, line
    assert f"axis = {axis} : i64" in line and "eps = 9.99999975e-06 : f32" in line, line
    assert "running_mean = dense<" in line and "running_var = dense<" in line
    assert ("weight = dense<" in line) == bn.affine and ("bias = dense<" in line) == bn.affine
    validate(qfx.quant_opt(text, "--qfx-inline-composites"))
    assert_matches_torch(model, x, text, tmp_path)


def test_conv_output_batch_norm_axis_is_the_held_channel_axis():
    model = nn.Sequential(nn.Conv2d(3, 4, 1), nn.Identity(), randomized_bn(nn.BatchNorm2d(4)))
    model[1] = nn.ReLU()
    text = export_tosa(model.eval(), (torch.randn(1, 3, 5, 5),))
    line = next(line for line in text.splitlines() if "qfx.composite" in line)
    assert "axis = 3 : i64" in line and "(tensor<1x5x5x4xf32>)" in line, line


def test_composite_attributes_hold_the_parameters():
    text = export_tosa(Wrap(nn.LeakyReLU(0.25)).eval(), (torch.randn(2, 3),))
    assert "composite_attributes = {negative_slope = 2.50000000e-01 : f32}" in text
    text = export_tosa(Fn(lambda x: F.elu(x, alpha=0.5)).eval(), (torch.randn(2, 3),))
    assert "composite_attributes = {alpha = 5.00000000e-01 : f32}" in text
    with pytest.raises(ExportError, match="approximate='tanh' is not supported"):
        export_tosa(Wrap(nn.GELU(approximate="tanh")).eval(), (torch.randn(2, 3),))
    with pytest.raises(ExportError, match="approximate='tanh' is not supported"):
        export_tosa(Fn(lambda x: F.gelu(x, approximate="tanh")).eval(), (torch.randn(2, 3),))


@pytest.mark.parametrize("module", [nn.Dropout(0.5), nn.Identity()], ids=["dropout", "identity"])
def test_eval_mode_no_ops_export_nothing(module, tmp_path):
    model = Wrap(module).eval()
    x = torch.randn(2, 3, 4)
    text = export_tosa(model, (x,))
    validate(text)
    assert [op for op, _, _ in ops(text) if op.startswith("tosa.")] == []
    assert_matches_torch(model, x, text, tmp_path)


def test_stochastic_depth_is_identity_in_eval_mode(tmp_path):
    # torchvision's StochasticDepth (EfficientNet) calls a function of
    # torchvision.ops, which the exporter knows by name.
    import torchvision  # python3-torchvision, installed by utils/setup.sh
    model = Wrap(torchvision.ops.StochasticDepth(0.2, "row")).eval()
    x = torch.randn(2, 3, 4)
    text = export_tosa(model, (x,))
    assert [op for op, _, _ in ops(text) if op.startswith("tosa.")] == []
    assert_matches_torch(model, x, text, tmp_path)

    model.layer.train()
    with pytest.raises(ExportError, match="stochastic depth in training mode"):
        export_tosa(model, (x,))


class ConvThen(nn.Module):
    """A conv (its output held NHWC) followed by `fn`."""

    def __init__(self, fn):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.conv(x))


CHANNELS_LAST = "torch_dims = array<i64: 0, 2, 3, 1>, torch_strides = array<i64: 80, 16, 4, 1>"
PLAIN = "torch_dims = array<i64: 0, 1, 2, 3>, torch_strides = array<i64: 80, 16, 4, 1>"


@pytest.mark.parametrize("fn,axes,keepdim,integers,order", [
    (lambda y: y.mean([2, 3]), "1, 2", "false", "false", CHANNELS_LAST),
    (lambda y: torch.mean(y, (-1, -2), keepdim=True), "1, 2", "true", "false", CHANNELS_LAST),
    (lambda y: y.mean(1), "3", "false", "false", CHANNELS_LAST),
    (lambda y: y.mean(dim=(1, 3), keepdim=True), "2, 3", "true", "false", CHANNELS_LAST),
    (lambda y: y.permute(0, 2, 3, 1).contiguous().mean(-1), "3", "false", "true", PLAIN),
    (lambda y: y.permute(0, 2, 3, 1).mean(2), "2", "false", "false", PLAIN),
    (lambda y: F.relu(y.flatten(2)).mean(2), "2", "false", "true",
     "torch_dims = array<i64: 0, 1, 2>, torch_strides = array<i64: 80, 20, 1>"),
], ids=["spatial", "keepdim", "channels", "mixed", "innermost_of_plain", "inner_of_plain",
        "innermost_of_flattened"])
def test_mean_exports_as_a_composite_over_held_axes(fn, axes, keepdim, integers, order,
                                                    tmp_path):
    # torch.mean is the composite "torch.mean": its axes are those of its
    # operand as held (NHWC after a conv), keepdim as PyTorch's, whether
    # PyTorch's quantized mean averages the integers (the innermost
    # dimensions of a contiguous tensor) or dequantizes (a conv's output is
    # channels-last), and per held axis PyTorch's dimension and the stride of
    # the float tensor PyTorch sums (dense in the operand's memory format).
    model = ConvThen(fn).eval()
    x = torch.randn(2, 3, 7, 6)
    text = export_tosa(model, (x,))
    validate(text)
    assert re.search(r'qfx\.composite "torch\.mean" \(%\w+\) attributes \{composite_attributes = '
                     rf"\{{axes = array<i64: {axes}>, keepdim = {keepdim}, "
                     rf"averages_integers = {integers}, {order}\}}", text), text
    assert_matches_torch(model, x, text, tmp_path)


def test_mean_rejects_what_it_cannot_export():
    with pytest.raises(ExportError, match="mean with a dtype"):
        export_tosa(Fn(lambda x: x.mean(1, dtype=torch.float32)).eval(), (torch.randn(2, 3),))
    with pytest.raises(ExportError, match="0-d result"):
        export_tosa(Fn(lambda x: x.mean()).eval(), (torch.randn(2, 3),))


def test_function_signature_keeps_pytorch_shapes_and_name():
    model = Wrap(nn.Conv2d(3, 4, 3)).eval()
    text = export_tosa(model, (torch.randn(2, 3, 8, 8),), func_name="net")
    assert re.search(r"func\.func @net\(%x: tensor<2x3x8x8xf32> loc\(\"x\"\)\) -> tensor<2x4x6x6xf32>", text)


def test_batch_norm_is_not_folded(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), randomized_bn(nn.BatchNorm2d(4)), nn.ReLU()).eval()
    x = torch.randn(2, 3, 6, 6)
    text = export_tosa(model, (x,))
    printed = ops(text)
    kinds = [(op, origin, loc) for op, origin, loc in printed if origin]
    assert kinds == [
        ("tosa.conv2d", "torch.nn.Conv2d", '"0"'),
        ("tosa.clamp", "torch.nn.ReLU", '"2"'),
    ]
    assert 'qfx.composite "torch.nn.BatchNorm2d"' in text
    assert_matches_torch(model, x, text, tmp_path)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.conv1(x)) + x


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(Block(), Block())

    def forward(self, x):
        return self.layer1(x)


def test_locations_are_qualified_module_names_and_node_names(tmp_path):
    torch.manual_seed(0)
    model = Nested().eval()
    x = torch.randn(2, 4, 5, 5)
    text = export_tosa(model, (x,))
    validate(text)
    printed = ops(text)
    with_origin = [(op, origin, loc) for op, origin, loc in printed if origin]
    assert with_origin == [
        ("tosa.conv2d", "torch.nn.Conv2d", '"layer1.0.conv1"'),
        ("tosa.clamp", "torch.nn.ReLU", '"layer1.0.relu"'),
        ("tosa.add", "operator.add", '"layer1.0"("add")'),
        ("tosa.conv2d", "torch.nn.Conv2d", '"layer1.1.conv1"'),
        ("tosa.clamp", "torch.nn.ReLU", '"layer1.1.relu"'),
        ("tosa.add", "operator.add", '"layer1.1"("add_1")'),
    ]
    # One transpose into NHWC at the input, one back at the result; the
    # skip connection reuses the converted input.
    transposes = [loc for op, _, loc in printed if op == "tosa.transpose"]
    assert transposes == ['"layer1.0.conv1"', '"output"']
    assert_matches_torch(model, x, text, tmp_path)


class ReusedReLU(nn.Module):
    """torchvision's BasicBlock applies one ReLU module twice."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.conv(self.relu(x)) + x)


def test_a_module_called_twice_is_located_at_each_call(tmp_path):
    # Each call's value has a name of its own (the numeric suite and
    # quant-run --compare match values by name); the ops stay the module's
    # for QConfigMapping (qfx.module_name only, no qfx.node_name).
    torch.manual_seed(0)
    model = ReusedReLU().eval()
    x = torch.randn(1, 3, 4, 4)
    text = export_tosa(model, (x,))
    clamps = [loc for op, _, loc in ops(text) if op == "tosa.clamp"]
    assert clamps == ['"relu"("relu")', '"relu"("relu_1")']
    assert re.search(r'tosa\.clamp .*\{.*qfx\.module_name = "relu"[,}]', text)
    assert not re.search(r'tosa\.clamp .*qfx\.node_name', text)
    assert_matches_torch(model, x, text, tmp_path)


class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.scale = nn.Parameter(torch.rand(4, 1, 1) + 0.5)

    def forward(self, x):
        y = self.conv(x)
        a = F.relu(y) * self.scale
        b = torch.sigmoid(y) * 2.0
        c = torch.cat([a, b], dim=1)
        c = torch.tanh(c) + 1
        d = c.permute(0, 2, 3, 1)
        d = torch.transpose(d, 1, 2)
        e = d.reshape(d.size(0), -1)
        f = torch.flatten(c, 1)
        g = e.view(e.shape[0], 2, -1) + f.view(f.size(0), 2, -1)
        return F.dropout(g.permute(0, 2, 1), 0.3, self.training)


def test_functionals_export_with_node_locations_and_origins(tmp_path):
    torch.manual_seed(0)
    model = Functional().eval()
    x = torch.randn(2, 3, 4, 5)
    text = export_tosa(model, (x,))
    validate(text)
    printed = ops(text)
    origins = {(origin, loc) for _, origin, loc in printed if origin}
    for expected in [
        ("torch.nn.Conv2d", '"conv"'),
        ("torch.nn.functional.relu", '""("relu")'),
        ("operator.mul", '""("mul")'),
        ("torch.sigmoid", '""("sigmoid")'),
        ("operator.mul", '""("mul_1")'),
        ("torch.cat", '""("cat")'),
        ("torch.tanh", '""("tanh")'),
        ("operator.add", '""("add")'),
        ("torch.Tensor.reshape", '""("reshape")'),
        ("torch.flatten", '""("flatten")'),
        ("torch.Tensor.view", '""("view")'),
        ("operator.add", '""("add_1")'),
        ("torch.Tensor.permute", '""("permute_1")'),
    ]:
        assert expected in origins, (expected, sorted(origins))
    # The first permute turns the NHWC-held tensor into PyTorch's NHWC order:
    # nothing to do.
    assert '""("permute")' not in {loc for _, _, loc in printed}
    assert_matches_torch(model, x, text, tmp_path)


class Functionals2d(nn.Module):
    def forward(self, x):
        x = F.max_pool2d(x, 3, stride=2, padding=1)
        x = F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)
        y = F.adaptive_avg_pool2d(x, (2, 1))
        y = F.relu6(y * 4)
        y = F.hardtanh(y, -2.0, 2.5)
        y = F.hardswish(y)
        y = torch.relu(y.tanh())
        return F.dropout(y, 0.2, training=False).contiguous()


@pytest.mark.filterwarnings("ignore:nn.functional")
def test_functional_window_ops_and_activations(tmp_path):
    model = Functionals2d().eval()
    x = torch.randn(2, 3, 8, 6) * 3
    text = export_tosa(model, (x,))
    validate(text)
    origins = [(origin, loc) for _, origin, loc in ops(text) if origin]
    for expected in [
        ("torch.nn.functional.max_pool2d", '""("max_pool2d")'),
        ("torch.nn.functional.avg_pool2d", '""("avg_pool2d")'),
        ("torch.nn.functional.adaptive_avg_pool2d", '""("adaptive_avg_pool2d")'),
        ("torch.nn.functional.relu6", '""("relu6")'),
        ("torch.nn.functional.hardtanh", '""("hardtanh")'),
        ("torch.Tensor.tanh", '""("tanh")'),
        ("torch.relu", '""("relu")'),
    ]:
        assert expected in origins, (expected, origins)
    assert re.search(r'qfx\.composite "torch\.nn\.Hardswish" .*qfx\.origin = '
                     r'"torch\.nn\.functional\.hardswish".*\n(.*\n)*.*loc\(""\("hardswish"\)\)', text)
    assert_matches_torch(model, x, text, tmp_path)


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock, with a strided 1x1 downsample."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = randomized_bn(nn.BatchNorm2d(cout))
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = randomized_bn(nn.BatchNorm2d(cout))
        self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                        randomized_bn(nn.BatchNorm2d(cout)))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.downsample(x)
        return self.relu(out)


class InvertedResidual(nn.Module):
    """MobileNetV3's block: expand, depthwise, hardswish, project, skip."""

    def __init__(self, c, expand):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(c, c * expand, 1, bias=False),
                                    randomized_bn(nn.BatchNorm2d(c * expand)), nn.Hardswish())
        wide = c * expand
        self.depthwise = nn.Sequential(nn.Conv2d(wide, wide, 5, 1, 2, groups=wide, bias=False),
                                       randomized_bn(nn.BatchNorm2d(wide)), nn.Hardswish())
        self.project = nn.Sequential(nn.Conv2d(wide, c, 1, bias=False), randomized_bn(nn.BatchNorm2d(c)))

    def forward(self, x):
        return x + self.project(self.depthwise(self.expand(x)))


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), randomized_bn(nn.BatchNorm2d(8)),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        self.layer1 = nn.Sequential(BasicBlock(8, 16, 2), InvertedResidual(16, 2))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(16, 10))

    def forward(self, x):
        x = self.avgpool(self.layer1(self.stem(x)))
        return self.classifier(torch.flatten(x, 1))


def test_small_resnet_mobilenet_style_network(tmp_path):
    torch.manual_seed(3)
    model = SmallNet().eval()
    x = torch.randn(2, 3, 23, 29)
    text = export_tosa(model, (x,))
    validate(text)
    printed = ops(text)
    located = {(op, origin, loc) for op, origin, loc in printed if origin}
    assert ("tosa.conv2d", "torch.nn.Conv2d", '"layer1.0.downsample.0"') in located
    assert ("tosa.depthwise_conv2d", "torch.nn.Conv2d", '"layer1.1.depthwise.0"') in located
    assert re.search(r'qfx\.composite "torch\.nn\.BatchNorm2d" .*qfx\.module_name = '
                     r'"layer1\.0\.downsample\.1"', text)
    # `out += ...` on an FX proxy is recorded as operator.add.
    assert ("tosa.add", "operator.add", '"layer1.0"("add")') in located
    # NHWC from the stem to the pool: one transpose in, none out (1x1 pool).
    assert [loc for op, _, loc in printed if op == "tosa.transpose"] == ['"stem.0"']
    assert_matches_torch(model, x, text, tmp_path)


def test_flatten_after_pooling_to_1x1_needs_no_transpose(tmp_path):
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten()).eval()
    x = torch.randn(2, 3, 6, 6)
    text = export_tosa(model, (x,))
    assert [loc for op, _, loc in ops(text) if op == "tosa.transpose"] == ['"0"']
    assert_matches_torch(model, x, text, tmp_path)


def test_flatten_after_conv_uses_pytorch_element_order(tmp_path):
    torch.manual_seed(1)
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.Flatten(), nn.Linear(3 * 4 * 4, 5)).eval()
    x = torch.randn(2, 2, 6, 6)
    text = export_tosa(model, (x,))
    # Into NHWC for the conv, back to NCHW for the flatten.
    assert [loc for op, _, loc in ops(text) if op == "tosa.transpose"] == ['"0"', '"1"']
    assert "perms = array<i32: 0, 3, 1, 2>" in text
    assert_matches_torch(model, x, text, tmp_path)


def test_tuple_unpacking_of_traced_values_on_python_3_11(tmp_path):
    # torch 1.13's Proxy.__iter__ finds the unpacking instruction by an index
    # that Python 3.11's inline caches shift: `n, c, h, w = y.shape` after a
    # call raised "Proxy object cannot be iterated" (ShuffleNet, ViT).
    class Unpacks(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            y = self.conv(x)
            n, c, h, w = y.shape
            batch, channels, _, _ = y.size()
            torch._assert(h == w, "square")
            return y.reshape(batch, channels * h * w // n * n)

    model = Unpacks().eval()
    x = torch.randn(1, 3, 4, 4)
    text = export_tosa(model, (x,))
    assert_matches_torch(model, x, text, tmp_path)


def test_matmul_of_two_activations_is_a_composite(tmp_path):
    # Not a bare tosa.matmul: that pattern is Linear's (a constant operand).
    model = Fn(lambda x: torch.matmul(x, x.transpose(-1, -2) * 0.5)).eval()
    x = torch.randn(2, 3, 4, 5)
    text = export_tosa(model, (x,))
    validate(text)
    assert re.findall(r'qfx\.composite "torch\.matmul" \(%\w+, %\w+\) attributes \{qfx\.origin = '
                      r'"torch\.matmul"', text)
    assert [op for op, _, _ in ops(text)].count("tosa.matmul") == 1
    assert_matches_torch(model, x, text, tmp_path)
    with pytest.raises(ExportError, match="same batch dimensions"):
        export_tosa(Fn(lambda x: torch.matmul(x, x.transpose(-1, -2).mean(0))).eval(), (x,))


def test_division_is_a_composite_whose_body_multiplies_by_the_reciprocal(tmp_path):
    # TOSA has no float division: the body multiplies by the reciprocal
    # (qfx-lower-division computes x / y in native code). By a number: one
    # input and a `divisor`; by a tensor: two inputs; a number by a tensor is
    # PyTorch's __rtruediv__, the reciprocal times the number.
    model = Fn(lambda x: (F.softmax(x / 4.0, dim=-1) / (torch.sigmoid(x) + 1),
                          3.0 / (torch.sigmoid(x) + 1))).eval()
    x = torch.randn(2, 3, 5)
    text = export_tosa(model, (x,))
    validate(text)
    divisions = re.findall(r'qfx\.composite "torch\.div" \(([^)]*)\) attributes \{(.*?)\}', text)
    assert len(divisions) == 2
    assert len(divisions[0][0].split(",")) == 1
    assert "composite_attributes = {divisor = 4.00000000e+00 : f32" in divisions[0][1]
    assert len(divisions[1][0].split(",")) == 2
    assert "composite_attributes" not in divisions[1][1]
    by_origin = [(op, origin) for op, origin, _ in ops(text) if origin]
    assert ("tosa.reciprocal", "operator.truediv") in by_origin
    assert ("tosa.mul", "operator.truediv") in by_origin
    assert 'qfx.composite "torch.nn.Softmax"' in text
    assert_matches_torch(model, x, text, tmp_path)
    with pytest.raises(ExportError, match="rounding_mode"):
        export_tosa(Fn(lambda x: torch.div(x, 2, rounding_mode="floor")).eval(), (x,))


def test_softmax_says_whether_pytorch_reduces_its_last_dim():
    """`last_dim`: PyTorch's dim is the tensor's last (its last-dimension
    kernel, which qfx-lower-softmax reproduces), whatever axis qfx holds it
    at: an NCHW channel softmax is innermost NHWC, but not PyTorch's last."""
    x = torch.randn(1, 3, 4, 5)
    for model, axis, last in [(nn.Softmax(-1), 3, "true"), (nn.Softmax(2), 2, "false"),
                              (nn.Sequential(nn.Conv2d(3, 6, 1), nn.Softmax(1)), 3, "false"),
                              (nn.Sequential(nn.Conv2d(3, 6, 1), nn.Softmax(3)), 2, "true")]:
        text = export_tosa(model.eval(), (x,))
        assert f"composite_attributes = {{axis = {axis} : i64, last_dim = {last}}}" in text


def test_chunk_split_and_indexing_are_slices(tmp_path):
    """Indexing slices have no origin (PyTorch's getitem is no op to
    quantize); chunk and split pieces have the call's (PyTorch has no
    pattern for them: their users observe the pieces)."""
    class Pieces(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            y = self.conv(x)  # held NHWC
            a, b = y.chunk(2, dim=1)
            c = torch.split(y, [1, 3], 1)[1]
            return a + b, c.split(2, dim=-1)[2], y[:, 1, :, 2:5], y[..., -1]

    model = Pieces().eval()
    x = torch.randn(2, 3, 5, 6)
    text = export_tosa(model, (x,))
    validate(text)
    assert sorted({str(origin) for op, origin, _ in ops(text) if op == "tosa.slice"}) == [
        "None", "torch.Tensor.chunk", "torch.Tensor.split", "torch.split"]
    assert_matches_torch(model, x, text, tmp_path)
    for bad, message in ((lambda x: x[:, ::2], "step 1"), (lambda x: x[:, 3:3], "empty")):
        with pytest.raises(ExportError, match=message):
            export_tosa(Fn(bad).eval(), (x,))


@pytest.mark.parametrize("fn", [
    lambda y: F.interpolate(y, scale_factor=2),
    lambda y: F.interpolate(y, size=(15, 12), mode="nearest"),
    lambda y: F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False),
    lambda y: F.interpolate(y, size=(7, 9), mode="bilinear", align_corners=True),
], ids=["nearest_x2", "nearest_x3_x2", "bilinear_x2", "bilinear_aligned_sizes"])
def test_interpolate(fn, tmp_path):
    # Nearest by integer factors: reshape, tile, reshape per dimension, all
    # with the call's origin; bilinear: a composite multiplying by PyTorch's
    # interpolation weights.
    model = ConvThen(fn).eval()
    x = torch.randn(2, 3, 7, 8)
    text = export_tosa(model, (x,))
    validate(text)
    assert_matches_torch(model, x, text, tmp_path)
    if "bilinear" in text:
        assert 'qfx.composite "torch.nn.functional.interpolate"' in text
    else:
        assert {op for op, origin, _ in ops(text) if origin == "torch.nn.functional.interpolate"} \
            == {"tosa.reshape", "tosa.tile"}
    with pytest.raises(ExportError, match="only integer factors"):
        export_tosa(ConvThen(lambda y: F.interpolate(y, size=(6, 9))).eval(), (x,))
    with pytest.raises(ExportError, match="mode 'bicubic'"):
        export_tosa(ConvThen(lambda y: F.interpolate(y, scale_factor=2, mode="bicubic")).eval(),
                    (x,))


@pytest.mark.parametrize("pool,name", [
    (nn.AvgPool3d(2), "torch.nn.AvgPool3d"),
    (nn.AdaptiveAvgPool3d((2, 1, 3)), "torch.nn.AdaptiveAvgPool3d"),
    (Fn(lambda x: F.avg_pool3d(x, (1, 2, 3))), "torch.nn.AvgPool3d"),
], ids=["avg", "adaptive", "functional"])
def test_3d_average_pools_are_composites(pool, name, tmp_path):
    model = Wrap(pool).eval()
    x = torch.randn(2, 3, 4, 6, 6)
    text = export_tosa(model, (x,))
    validate(text)
    assert f'qfx.composite "{name}"' in text
    assert_matches_torch(model, x, text, tmp_path)
    for bad in (nn.AvgPool3d(2, stride=1), nn.AvgPool3d(2, padding=1), nn.AdaptiveAvgPool3d(4)):
        with pytest.raises(ExportError, match="3-D average pooling|AvgPool3d is supported"):
            export_tosa(Wrap(bad).eval(), (x,))


def test_iterating_a_traced_tensor_is_still_refused():
    class Iterates(nn.Module):
        def forward(self, x):
            return sum(row for row in x)

    with pytest.raises(torch.fx.proxy.TraceError, match="cannot be iterated"):
        export_tosa(Iterates().eval(), (torch.randn(2, 3),))


def test_channel_broadcast_parameter_follows_the_layout(tmp_path):
    class ScaleAfterConv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)
            self.gain = nn.Parameter(torch.arange(1.0, 5.0).reshape(4, 1, 1))

        def forward(self, x):
            return self.conv(x) * self.gain

    model = ScaleAfterConv().eval()
    x = torch.randn(2, 3, 4, 5)
    text = export_tosa(model, (x,))
    validate(text)
    # The (4, 1, 1) parameter is printed once, broadcast and already NHWC.
    assert re.search(r'%gain = "tosa.const".* : \(\) -> tensor<1x1x1x4xf32> loc\("gain"\)', text)
    assert [loc for op, _, loc in ops(text) if op == "tosa.transpose"] == ['"conv"', '"output"']
    assert_matches_torch(model, x, text, tmp_path)


def test_multiple_outputs(tmp_path):
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            y = self.conv(x)
            return y, self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))

    model = TwoHeads().eval()
    x = torch.randn(2, 3, 5, 5)
    text = export_tosa(model, (x,))
    validate(text)
    assert "-> (tensor<2x4x3x3xf32>, tensor<2x2xf32>)" in text
    assert_matches_torch(model, x, text, tmp_path)


@pytest.mark.parametrize("rows", [32, 128], ids=["decimal", "hex_blob"])
def test_weights_round_trip_bit_exactly(rows):
    model = Wrap(nn.Linear(64, rows)).eval()
    with torch.no_grad():
        bits = torch.randint(0, 2**31 - 1, (rows, 64), dtype=torch.int64)
        # Random finite float32 bit patterns over the whole exponent range,
        # including subnormals, plus the extremes.
        bits = bits & 0x7F7FFFFF | (torch.randint(0, 2, (rows, 64)) << 31)
        weights = torch.from_numpy(bits.numpy().astype(np.uint32).view(np.float32))
        weights[0, :4] = torch.tensor([3.4028235e38, -1.4e-45, 1.17549435e-38, 0.1])
        model.layer.weight.copy_(weights)
    text = export_tosa(model, (torch.zeros(1, 64),))
    assert ('"0x' in text) == (rows * 64 >= 4096)
    hex_text = qfx.quant_opt(
        text, "--qfx-materialize-resources", "--mlir-print-op-generic",
        "--mlir-print-elementsattrs-with-hex-if-larger=0"
    )
    m = re.search(rf'values = dense<"0x([0-9A-F]+)"> : tensor<1x64x{rows}xf32>', hex_text)
    assert m is not None
    parsed = np.frombuffer(bytes.fromhex(m.group(1)), np.float32).reshape(64, rows)
    assert np.array_equal(parsed.view(np.uint32), weights.numpy().T.view(np.uint32))


def test_format_f32_non_finite_uses_hex():
    assert format_f32(float("inf")) == "0x7F800000"
    assert format_f32(1.0) == "1.00000000e+00"


# ----- errors ---------------------------------------------------------------


class WithRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.rnn = nn.RNN(4, 4)

    def forward(self, x):
        return self.rnn(self.fc(x))


def test_unsupported_module_names_node_module_and_target():
    with pytest.raises(ExportError) as failure:
        export_tosa(WithRNN().eval(), (torch.randn(3, 2, 4),))
    error = failure.value
    assert (error.node, error.module, error.target) == ("rnn", "rnn", "rnn")
    assert error.module_type == "torch.nn.RNN"
    message = str(error)
    assert "'rnn'" in message and "torch.nn.RNN" in message and "call_module" in message


def test_unsupported_module_in_a_submodule():
    model = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Mish())).eval()
    with pytest.raises(ExportError, match=r"node '_1_0' \(call_module target '1\.0'\) in module '1\.0' "
                                          r"\(torch\.nn\.Mish\): unsupported module type"):
        export_tosa(model, (torch.randn(2, 4),))


def test_unsupported_function_names_its_enclosing_module():
    class Inner(nn.Module):
        def forward(self, x):
            return torch.exp(x)

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Inner()

        def forward(self, x):
            return self.block(x)

    with pytest.raises(ExportError) as failure:
        export_tosa(Outer().eval(), (torch.randn(2, 3),))
    error = failure.value
    assert (error.node, error.target, error.module) == ("exp", "torch.exp", "block")
    assert error.module_type.endswith(".Inner")
    assert "unsupported function" in str(error)


def test_unsupported_method_and_arguments():
    class Cumsum(nn.Module):
        def forward(self, x):
            return x.cumsum(dim=-1)

    with pytest.raises(ExportError, match=r"node 'cumsum' \(call_method target 'cumsum'\)"):
        export_tosa(Cumsum().eval(), (torch.randn(2, 3),))
    with pytest.raises(ExportError, match="padding_mode 'reflect'"):
        export_tosa(Wrap(nn.Conv2d(3, 3, 3, padding=1, padding_mode="reflect")).eval(),
                    (torch.randn(1, 3, 5, 5),))
    with pytest.raises(ExportError, match="alpha"):
        class AddAlpha(nn.Module):
            def forward(self, x):
                return torch.add(x, x, alpha=2)
        export_tosa(AddAlpha().eval(), (torch.randn(2, 3),))


def test_training_mode_is_refused():
    with pytest.raises(ValueError, match="eval"):
        export_tosa(Wrap(nn.Linear(2, 2)), (torch.randn(1, 2),))


# ----- the committed test models ------------------------------------------


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_committed_model_validates_and_matches_its_golden_output(name):
    text = (MODELS / f"{name}.mlir").read_text()
    validate(text)
    x = np.load(MODELS / f"{name}.input.npy")
    expected = np.load(MODELS / f"{name}.output.npy")
    calib = np.load(MODELS / f"{name}.calib.npy")
    assert x.dtype == expected.dtype == calib.dtype == np.float32
    assert x.shape[0] == 2 and calib.shape == (16,) + x.shape
    signature = re.search(r"func\.func @main\(%\w+: tensor<([0-9x]+)xf32>", text).group(1)
    assert tuple(int(d) for d in signature.split("x")) == x.shape
    (got,) = evaluate(text, [x])
    assert_close(got, expected)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_committed_model_runs_in_quant_run_like_pytorch(name, tmp_path):
    text = (MODELS / f"{name}.mlir").read_text()
    x = np.load(MODELS / f"{name}.input.npy")
    (got,) = quant_run(text, [x], tmp_path)
    assert_close(got, np.load(MODELS / f"{name}.output.npy"))


def test_committed_models_are_what_the_script_writes(tmp_path):
    subprocess.run(
        [sys.executable, str(REPO / "utils" / "export_test_models.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in MODEL_NAMES:
        assert (tmp_path / f"{name}.mlir").read_text() == (MODELS / f"{name}.mlir").read_text(), name
        for kind in ("input", "calib"):
            fresh = np.load(tmp_path / f"{name}.{kind}.npy")
            committed = np.load(MODELS / f"{name}.{kind}.npy")
            assert np.array_equal(fresh, committed), (name, kind)
        # PyTorch's kernels may round differently on another CPU.
        assert_close(np.load(tmp_path / f"{name}.output.npy"), np.load(MODELS / f"{name}.output.npy"), 1e-6)


def test_a_model_pytorch_prepared_records_its_observers(tmp_path):
    """Observers are the identity; each records its name, class and
    statistics (bit-exact) on the op producing the value, or on the argument;
    a shared observer records the same; the example input reaches none."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import prepare_fx

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.relu = nn.ReLU()

        def forward(self, x):
            return self.relu(self.conv(x)).mean((2, 3))

    torch.manual_seed(0)
    model = Model().eval()
    prepared = prepare_fx(model, get_default_qconfig_mapping("x86"), (torch.randn(1, 3, 6, 6),))
    for _ in range(2):
        prepared(torch.randn(1, 3, 6, 6))
    before = {k: v.clone() for k, v in prepared.state_dict().items()}
    x = torch.randn(1, 3, 6, 6) * 100
    text = export_tosa(prepared.eval(), (x,))
    validate(text)
    assert all(torch.equal(before[k], v) for k, v in prepared.state_dict().items())

    observer = prepared.activation_post_process_0
    histogram = ", ".join(format_f32(v) for v in observer.histogram.numpy())
    expected = (f'{{qfx.torch_observer = {{name = "activation_post_process_0", '
                f'type = "HistogramObserver", stats = #qfx.histogram<min = '
                f'{format_f32(observer.min_val)}, max = {format_f32(observer.max_val)}, '
                f'counts = [{histogram}]>}}}}')
    signature = text.splitlines()[1]
    assert expected in signature
    clamp = next(line for line in text.splitlines() if "tosa.clamp" in line)
    assert 'qfx.torch_observer = {name = "activation_post_process_1"' in clamp
    # PyTorch's mean shares the clamp's observer: the same module.
    assert prepared.activation_post_process_2 is prepared.activation_post_process_1
    mean = next(line for line in text.splitlines() if "qfx.composite" in line)
    assert 'qfx.torch_observer = {name = "activation_post_process_1"' in mean
    assert_matches_torch(model, x, text, tmp_path)


# ----- embeddings and integer inputs ------------------------------------------


class _Lookups(torch.nn.Module):
    """nn.Embedding of an input, F.embedding of a parameter, an embedding of
    a position-ids buffer and one of torch.zeros_like(input)."""

    def __init__(self):
        super().__init__()
        self.word = torch.nn.Embedding(30, 6)
        self.segment = torch.nn.Embedding(2, 6)
        self.table = torch.nn.Parameter(torch.randn(12, 6))
        self.register_buffer("positions", torch.arange(5).unsqueeze(0))

    def forward(self, ids, other):
        embedded = self.word(ids) + self.segment(torch.zeros_like(ids))
        return embedded + torch.nn.functional.embedding(other, self.table) + self.word(
            self.positions)


def test_embeddings_export_integer_inputs_and_constant_indices():
    torch.manual_seed(0)
    model = _Lookups().eval()
    ids, other = torch.randint(0, 30, (2, 5)), torch.randint(0, 12, (2, 5), dtype=torch.int32)
    text = export_tosa(model, (ids, other))
    assert "%ids: tensor<2x5xi64> {qfx.index_bound = 30 : i64}" in text
    assert "%other: tensor<2x5xi32> {qfx.index_bound = 12 : i64}" in text
    assert text.count('qfx.composite "torch.nn.Embedding"') == 4
    assert 'qfx.origin = "torch.nn.functional.embedding"' in text
    assert "dense<[[0, 1, 2, 3, 4]]> : tensor<1x5xi64>" in text  # the buffer
    assert "dense<0> : tensor<2x5xi64>" in text  # zeros_like(ids)
    assert "tosa.clamp" in text and "tosa.gather" in text
    prepared = qfx.prepare_fx(model, {}, (ids, other))
    with torch.no_grad():
        assert torch.equal(prepared(ids, other), model(ids, other))


def test_embedding_export_errors():
    ids = torch.randint(0, 10, (2, 3))
    with pytest.raises(ExportError, match="max_norm"):
        export_tosa(torch.nn.Sequential(torch.nn.Embedding(10, 4, max_norm=1.0)).eval(), (ids,))

    class Shifted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.Embedding(12, 4)

        def forward(self, ids):
            return self.embedding(ids + 1)

    with pytest.raises(ExportError, match="integer tensor results|tensor results can be exported"):
        export_tosa(Shifted().eval(), (ids,))
    with pytest.raises(ExportError, match="model inputs must be float32, int64 or int32 tensors, "
                       "got a tensor of torch.bool"):
        export_tosa(torch.nn.Sequential(torch.nn.Identity()).eval(), (ids > 3,))


# ----- transposed convolutions ------------------------------------------------


@pytest.mark.parametrize("module, shape", [
    (nn.ConvTranspose2d(3, 5, 3, stride=2), (1, 3, 6, 7)),
    (nn.ConvTranspose2d(3, 5, (4, 3), stride=(2, 1), padding=(1, 1), output_padding=(1, 0)),
     (2, 3, 5, 5)),
    (nn.ConvTranspose2d(3, 4, 2, stride=2, bias=False), (1, 3, 4, 4)),
    (nn.ConvTranspose1d(3, 5, 5, stride=3, padding=2, output_padding=2), (1, 3, 9)),
    (nn.ConvTranspose3d(3, 5, 3, stride=2), (1, 3, 3, 4, 5)),
    (nn.ConvTranspose3d(3, 4, (2, 3, 4), stride=(1, 2, 3), padding=(0, 1, 2),
                        output_padding=(0, 1, 2)), (2, 3, 2, 3, 4)),
    (nn.ConvTranspose3d(2, 3, 3, padding=1, bias=False), (1, 2, 4, 4, 4)),
])
def test_transposed_convolutions_export(module, shape):
    """1-d and 2-d as tosa.transpose_conv2d, 3-d as the composite whose body
    is a conv3d over the zero-spread input."""
    torch.manual_seed(0)
    model = nn.Sequential(module).eval()
    x = torch.randn(shape)
    text = export_tosa(model, (x,))
    if isinstance(module, nn.ConvTranspose3d):
        assert 'qfx.composite "torch.nn.ConvTranspose3d"' in text and "tosa.conv3d" in text
    else:
        assert "tosa.transpose_conv2d" in text
    prepared = qfx.prepare_fx(model, {}, (x,))
    with torch.no_grad():
        torch.testing.assert_close(prepared(x), model(x), rtol=1e-5, atol=1e-5)


def test_transposed_convolution_export_errors():
    x = torch.randn(1, 4, 5, 5)
    for module, reason in [(nn.ConvTranspose2d(4, 4, 3, groups=2), "grouped"),
                           (nn.ConvTranspose2d(4, 4, 3, dilation=2), "dilated"),
                           (nn.ConvTranspose2d(4, 4, 3, padding=3), "padding as large as the kernel"),
                           (nn.ConvTranspose3d(4, 4, 3, groups=2), "grouped"),
                           (nn.ConvTranspose3d(4, 4, 3, dilation=2), "dilated"),
                           (nn.ConvTranspose3d(4, 4, 2, stride=3, padding=2), "padding as large as the kernel")]:
        with pytest.raises(ExportError, match=reason):
            export_tosa(nn.Sequential(module).eval(),
                        (torch.randn(1, 4, 3, 5, 5) if isinstance(module, nn.ConvTranspose3d)
                         else x,))


def test_an_add_of_python_numbers_from_sizes_exports():
    # operator.add of two traced ints (x.size(0) + x.size(1)): no tensor
    # operands, so no memory formats to compare (qfx.torch_kernel on adds).
    class SizeSum(torch.nn.Module):
        def forward(self, x):
            return x + (x.size(0) + x.size(1))

    text = qfx.export_tosa(SizeSum().eval(), (torch.randn(2, 3),))
    assert "add_scalar_loop" not in text and "tosa.add" in text
