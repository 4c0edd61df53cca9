"""PyTorch's memory format at quantized average pools (qfx._memory_format).

PyTorch 1.13 averages a contiguous (NCHW) quantized tensor with other kernels
than a channels-last one, and they round ties differently. The exporter marks
each pool PyTorch runs on a contiguous operand (`qfx.torch_kernel`); these
tests compare that mark with the layout PyTorch's converted model really
hands each pool, and qfx's results with PyTorch's. Needs torch (Debian's
python3-torch: run with /usr/bin/python3).
"""

import copy
import re
import warnings

import pytest
import torch
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

import qfx
from qfx._memory_format import (channels_last_strides, contiguous_strides,
                               is_channels_last_contiguous, suggests_channels_last, view_strides)

nn = torch.nn


pytestmark = pytest.mark.usefixtures("onednn")


class Net(nn.Module):
    """`body` then the module `pool`."""

    def __init__(self, body, pool, **modules):
        super().__init__()
        self.body = body
        self.pool = pool
        for name, m in modules.items():
            setattr(self, name, m)

    def forward(self, x):
        return self.pool(self.body(self, x))


def conv(c=4):
    return nn.Conv2d(c, c, 3, padding=1)


# (name, body, pool, modules, input shape)
CASES = [
    ("input", lambda s, x: x, nn.AvgPool2d(2, 1), {}, (2, 4, 6, 6)),
    ("input_one_channel", lambda s, x: x, nn.AvgPool2d(2, 1), {}, (2, 1, 6, 6)),
    ("conv", lambda s, x: s.c(x), nn.AvgPool2d(2, 1), {"c": conv()}, (2, 4, 6, 6)),
    ("conv_relu", lambda s, x: torch.relu(s.c(x)), nn.AvgPool2d(2, 1), {"c": conv()}, (2, 4, 6, 6)),
    ("max_pool_of_input", lambda s, x: s.m(x), nn.AvgPool2d(2, 1), {"m": nn.MaxPool2d(2, 1)},
     (2, 4, 7, 7)),
    ("conv_spatial_view", lambda s, x: s.c(x).reshape(2, 4, 36).reshape(2, 4, 6, 6),
     nn.AvgPool2d(2, 1), {"c": conv()}, (2, 4, 6, 6)),
    ("conv_channel_chunk", lambda s, x: s.c(x).chunk(2, 1)[0], nn.AvgPool2d(2, 1),
     {"c": conv()}, (2, 4, 6, 6)),
    ("linear_on_4d", lambda s, x: s.l(x), nn.AvgPool2d(2, 1), {"l": nn.Linear(6, 6)},
     (2, 4, 6, 6)),
    ("permuted_input", lambda s, x: x.permute(0, 3, 1, 2), nn.AvgPool2d(2, 1), {},
     (2, 6, 6, 4)),
    ("cat_of_conv_and_input", lambda s, x: torch.cat([s.c(x), x], 1), nn.AvgPool2d(2, 1),
     {"c": conv()}, (2, 4, 6, 6)),
    ("batch_norm_of_input", lambda s, x: s.b(x), nn.AvgPool2d(2, 1),
     {"b": nn.BatchNorm2d(4).eval()}, (2, 4, 6, 6)),
    ("elu_after_conv", lambda s, x: s.e(s.c(x)), nn.AvgPool2d(2, 1), {"c": conv(), "e": nn.ELU()},
     (2, 4, 6, 6)),
    ("layer_norm_after_conv", lambda s, x: s.n(s.c(x)), nn.AvgPool2d(2, 1),
     {"c": conv(), "n": nn.LayerNorm(6)}, (2, 4, 6, 6)),
    ("hardswish_after_conv", lambda s, x: s.h(s.c(x)), nn.AvgPool2d(2, 1),
     {"c": conv(), "h": nn.Hardswish()}, (2, 4, 6, 6)),
    ("adaptive_of_input", lambda s, x: x, nn.AdaptiveAvgPool2d((2, 3)), {}, (2, 4, 6, 6)),
    ("adaptive_uneven_of_input", lambda s, x: x, nn.AdaptiveAvgPool2d((4, 4)), {}, (2, 4, 6, 7)),
    ("adaptive_after_conv", lambda s, x: s.c(x), nn.AdaptiveAvgPool2d(1), {"c": conv()},
     (2, 4, 6, 6)),
    ("pool1d_of_input", lambda s, x: x, nn.AvgPool1d(3, 1), {}, (2, 4, 9)),
    ("pool1d_after_conv1d", lambda s, x: s.c(x), nn.AvgPool1d(3, 1),
     {"c": nn.Conv1d(4, 4, 3, padding=1)}, (2, 4, 9)),
    ("adaptive1d_of_input", lambda s, x: x, nn.AdaptiveAvgPool1d(4), {}, (2, 4, 9)),
    ("padded_of_input", lambda s, x: x, nn.AvgPool2d(3, 2, 1, count_include_pad=False), {},
     (2, 4, 7, 7)),
    ("padded_after_conv", lambda s, x: s.c(x), nn.AvgPool2d(3, 2, 1, count_include_pad=False),
     {"c": conv()}, (2, 4, 7, 7)),
    ("counting_padding_ceil_mode", lambda s, x: x, nn.AvgPool2d(3, 2, 1, ceil_mode=True), {},
     (2, 4, 8, 8)),
    ("counting_padding_after_conv", lambda s, x: s.c(x), nn.AvgPool2d(3, 2, 1), {"c": conv()},
     (2, 4, 7, 7)),
    # Windows of 30 and 28 elements: the exact average is often a tie, which
    # PyTorch's kernels round as their float32 products do (difffuzz 81885).
    ("large_windows_after_conv", lambda s, x: s.c(x), nn.AvgPool2d((6, 5), 1),
     {"c": conv(16)}, (2, 16, 12, 11)),
    ("large_windows_of_input", lambda s, x: x, nn.AvgPool2d((4, 7), 3), {}, (2, 16, 12, 13)),
    ("adaptive_uneven_after_conv", lambda s, x: s.c(x), nn.AdaptiveAvgPool2d(2),
     {"c": conv(16)}, (2, 16, 11, 9)),
    # A module named "f" is configured None: a float convolution or batch
    # norm keeps its operand's format (difffuzz 136124, 139292).
    ("float_conv_of_input", lambda s, x: s.f(x), nn.AvgPool2d(2, 1), {"f": conv()},
     (2, 4, 6, 6)),
    ("float_conv_after_conv", lambda s, x: s.f(s.c(x)), nn.AvgPool2d(2, 1),
     {"c": conv(), "f": conv()}, (2, 4, 6, 6)),
    ("float_batch_norm_of_input", lambda s, x: s.f(x), nn.AdaptiveAvgPool2d(1),
     {"f": nn.BatchNorm2d(4).eval()}, (2, 4, 8, 9)),
    # ... except a batch norm between quantized ops, which PyTorch's convert
    # quantizes anyway (difffuzz 144670).
    ("float_batch_norm_between_quantized_ops", lambda s, x: s.f(torch.cat([x, x], 1)),
     nn.AvgPool2d(2, 1), {"f": nn.BatchNorm2d(8).eval()}, (2, 4, 6, 6)),
]

# 3-D pools (composites: no tosa.avg_pool2d to mark), windows of 30.
POOL3D_CASES = [
    ("avg_pool3d_of_input", lambda s, x: x, nn.AvgPool3d((2, 3, 5)), {}, (1, 16, 4, 6, 10)),
    ("adaptive3d_of_input", lambda s, x: x, nn.AdaptiveAvgPool3d(2), {}, (1, 16, 4, 6, 10)),
    ("adaptive3d_after_conv3d", lambda s, x: s.c(x), nn.AdaptiveAvgPool3d(2),
     {"c": nn.Conv3d(16, 16, 3, padding=1)}, (1, 16, 4, 6, 10)),
]


def build(case):
    name, body, pool, modules, shape = case
    torch.manual_seed(sum(map(ord, name)))
    model = Net(body, copy.deepcopy(pool), **copy.deepcopy(modules)).eval()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2)
    samples = [torch.randn(shape) * 2 + 0.3 for _ in range(3)]
    return model, samples


def torch_quantized(model, samples, mapping="x86"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepared = prepare_fx(copy.deepcopy(model),
                              get_default_qconfig_mapping(mapping).set_module_name("f", None),
                              (samples[0],))
        for x in samples:
            prepared(x)
        return prepared, convert_fx(copy.deepcopy(prepared))


def pool_input_is_contiguous(quantized, x) -> bool:
    """Whether PyTorch's converted model hands its pool a tensor that is not
    channels-last contiguous (1-D pools: unsqueezed to [N, C, 1, L])."""
    seen = []
    handle = quantized.pool.register_forward_pre_hook(lambda m, args: seen.append(args[0]))
    try:
        with torch.no_grad():
            quantized(x)
    finally:
        handle.remove()
    t = seen[0]
    if t.dim() == 3:
        t = t.unsqueeze(-2)
    return not t.is_contiguous(memory_format=torch.channels_last)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_export_marks_the_pools_pytorch_runs_on_contiguous_tensors(case):
    model, samples = build(case)
    prepared, quantized = torch_quantized(model, samples)
    text = qfx.export_tosa(prepared, (samples[0],))
    pools = [line for line in text.splitlines()
             if "tosa.avg_pool2d" in line and 'qfx.module_name = "pool"' in line]
    assert pools, text
    marked = {bool(re.search(r'qfx\.torch_kernel = "\w+_contiguous"', line)) for line in pools}
    assert marked == {pool_input_is_contiguous(quantized, samples[0])}, pools


# PyTorch runs chunk in float and observes its pieces apart; qfx shares the
# observer across the slices (issue 42's chunk parity), so PyTorch's
# statistics do not import there.
PARITY_CASES = [c for c in CASES if c[0] != "conv_channel_chunk"] + POOL3D_CASES


@pytest.mark.parametrize("case", PARITY_CASES, ids=[c[0] for c in PARITY_CASES])
def test_pools_equal_pytorchs_with_its_statistics(case):
    model, samples = build(case)
    prepared, quantized = torch_quantized(model, samples)
    ours = qfx.convert_fx(prepared, (samples[0],))
    with torch.no_grad():
        for x in samples:
            theirs, mine = quantized(x), ours(x)
            assert torch.equal(theirs, mine), (theirs - mine).abs().max()


@pytest.mark.parametrize("case", PARITY_CASES, ids=[c[0] for c in PARITY_CASES])
def test_pools_equal_pytorchs_on_qnnpack(case, qnnpack):
    # PyTorch's qnnpack engine averages a quint8 avg_pool2d without
    # ceil_mode, and an adaptive pool whose input size its output size
    # divides (not equals), with qnnpack's kernel whatever the layout;
    # ceil-mode and uneven pools take the other engines' kernels.
    model, samples = build(case)
    prepared, quantized = torch_quantized(model, samples, "qnnpack")
    ours = qfx.convert_fx(prepared, (samples[0],))
    with torch.no_grad():
        for x in samples:
            theirs, mine = quantized(x), ours(x)
            assert torch.equal(theirs, mine), (theirs - mine).abs().max()


def test_channels_last_checks_are_pytorchs():
    shapes = [(2, 4, 6, 6), (2, 1, 6, 6), (2, 4, 1, 1), (1, 4, 1, 6), (1, 1, 1, 1), (3, 2, 5, 1)]
    for shape in shapes:
        for fmt in (torch.contiguous_format, torch.channels_last):
            t = torch.empty(shape).contiguous(memory_format=fmt)
            for view in (t, t.transpose(2, 3), t[:, :1], t.permute(0, 2, 3, 1)):
                size, stride = tuple(view.shape), view.stride()
                assert is_channels_last_contiguous(size, stride) == view.is_contiguous(
                    memory_format=torch.channels_last), (size, stride)
                # A quantized tensor is allocated in its source's suggested format.
                q = torch.quantize_per_tensor(view, 0.1, 0, torch.quint8)
                expected = (channels_last_strides(size) if suggests_channels_last(size, stride)
                            else contiguous_strides(size))
                assert q.stride() == expected, (size, stride)


def test_view_strides_are_pytorchs():
    t = torch.empty(2, 4, 6, 6).contiguous(memory_format=torch.channels_last)
    for view in (t, t.transpose(1, 2), t[:, :, :3], t.contiguous()):
        for shape in [(2, 4, -1), (2, -1), (8, -1), tuple(view.shape), (2, -1, 6), (-1, 6), (-1,)]:
            new_shape = tuple(torch.empty(view.shape).view(shape).shape)
            try:
                expected = tuple(view.view(shape).stride())
            except RuntimeError:  # not viewable: reshape copies
                expected = None
            assert view_strides(tuple(view.shape), view.stride(), new_shape) == expected, (
                view.stride(), shape)
