"""PyTorch's qnnpack engine runs a quint8 sigmoid, tanh, hardsigmoid and
hardswish as QNNPACK's own operators, whose lookup tables compute otherwise
than aten's kernels (QNNPACK dequantizes with a plain float multiply, adds
the output zero point before rounding and calls libm's expf / tanh): qfx's
tables on the qnnpack engine are QNNPACK's. Each case's input range gives
qparams where QNNPACK's table and aten's differ on a code (found by running
both of PyTorch's engines on every code of random ranges). Needs torch
(/usr/bin/python3).
"""

import copy
import warnings

import pytest
import torch
from torch.ao.quantization import QConfig, default_weight_observer, get_default_qconfig_mapping
from torch.ao.quantization.observer import MinMaxObserver
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

import qfx

nn = torch.nn

pytestmark = pytest.mark.usefixtures("qnnpack")


class Op(nn.Module):
    """`op` of x + x: the add's observer gives the op's input qparams."""

    def __init__(self, op):
        super().__init__()
        self.op = op

    def forward(self, x):
        return self.op(x + x)


@pytest.mark.parametrize("op, low, high", [
    (nn.Sigmoid(), -7.400975749316583, 12.366263553722757),
    (nn.Tanh(), -12.647628607711962, 18.891133165999975),
    (nn.Tanh(), -6.626707731793988, 8.877251769504445),
    (nn.Hardsigmoid(), -8.02618191676611, 17.160758520504185),
    (nn.Hardswish(), -4.322303943809829, 5.604160136759638),
], ids=["sigmoid", "tanh", "tanh2", "hardsigmoid", "hardswish"])
def test_qnnpack_operator_tables_are_pytorchs(op, low, high):
    # A min-max observer on the add: the range fixes the op's input qparams;
    # the sample covers every code between.
    mapping = get_default_qconfig_mapping("qnnpack").set_global(QConfig(
        activation=MinMaxObserver.with_args(dtype=torch.quint8),
        weight=default_weight_observer))
    x = torch.linspace(low / 2, high / 2, 2560).reshape(1, 10, 16, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepared = prepare_fx(Op(op).eval(), mapping, (x,))
        prepared(x)
        theirs = convert_fx(copy.deepcopy(prepared))
        ours = qfx.convert_fx(prepared, (x,), backend_config="qnnpack")
    with torch.no_grad():
        expected, actual = theirs(x), ours(x)
    assert torch.equal(expected, actual), (expected - actual).abs().max()
