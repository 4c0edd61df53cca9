#!/usr/bin/env python3
"""Golden outputs of PyTorch 1.13's dynamically quantized and float16 Linear
layers, for test/Conversion/ReferenceToTosa/dynamic-parity.test.

For each model NAME in mlp, sigmoid_head, cnn (utils/export_test_models.py),
each CONFIG and each ENGINE in onednn, qnnpack: set
torch.backends.quantized.engine = ENGINE, prepare_fx with the CONFIG's
QConfigMapping (and prepare_fx's default, the native BackendConfig),
calibrate on NAME.calib.npy sample by sample, convert_fx, run on
NAME.input.npy. Writes next to the models:

  NAME.CONFIG-ENGINE.npy          the float32 output
  NAME.CONFIG.qconfig-mapping.json  the same QConfigMapping in qfx's JSON form
                                    (quant-opt --qfx-prepare="qconfig-mapping=...")

CONFIG is
  dynamic  QConfigMapping().set_object_type(nn.Linear, default_dynamic_qconfig)
  fp16     QConfigMapping().set_object_type(nn.Linear, float16_dynamic_qconfig)
and for mlp also the same QConfig for nn.ReLU: prepare_fx fuses fc1 + relu
into a LinearReLU and 1.13 requires every module type of a fused module to
have the same object-type QConfig (update_qconfig_for_fusion raises
"LookupError: During fusion, we need to specify the same qconfigs for all
module types in LinearReLU offending type: ReLU" otherwise).

What PyTorch 1.13 computes, checked on every run of this script (it fails if
the output differs by one bit from the reproduction below, in numpy):

dynamic. The weight is quantized once at conversion by
default_weight_observer (qint8, per-tensor symmetric, scale sw = max|W| /
127.5, zero point 0); the bias stays float32.
DynamicQuantizedLinear(ReLU).forward calls
quantized::linear(_relu)_dynamic(x, packed, reduce_range=True), which chooses
the activation's qparams from each input,
quant_utils::ChooseQuantizationParams(min(x, 0), max(x, 0), 0, QMAX): scale
sx = (max - min) / QMAX in double, zero point zx = the nudged zero point
rounded half to even and clamped to [0, QMAX]; quantizes x to X in [0, QMAX]
and accumulates acc = (X - zx) @ W^T in int32. Engine by engine:

  onednn   reduce_range is honoured: QMAX = 127, 7-bit activations.
           oneDNN quantizes with ideep's reciprocal scale, the zero point
           added in float before rounding:
             X = clamp(rint(x * float(1/sx) + zx), 0, 127)
           and its epilogue adds the bias in the accumulator domain, before
           the output scale, with p = float(float(1/sx) * float(1/sw)):
             y = (float(acc) + b * p) * (1 / p)                   (float32)
           y = float(acc) * float(sx * sw) + b gives the same integers but
           differs in the last bits (up to ~2 ulps of |acc * sx * sw| + |b|)
           in 27-55% of the elements; x / sx and rint(x * (1/sx)) + zx differ
           from oneDNN on inputs that fall on half steps.
  qnnpack  reduce_range is ignored (the kernel warns "Currently, qnnpack
           incorrectly ignores reduce_range when it is set to true"): QMAX =
           255, 8-bit activations.
             X = clamp(rint(x * (1.0f / float(sx))) + zx, 0, 255)
             y = float(acc) * float(float(sx) * float(sw)) + b    (float32)

and then max(y, 0) for the fused LinearReLU. Both are bit-exact on the
committed inputs, on a few hundred random ones per model and on thousands
built to fall on half quantization steps. PyTorch's own reference model
(convert_to_reference_fx) instead runs quantize_per_tensor_dynamic(x,
quint8, reduce_range=False) -> dequantize -> float F.linear: 8 bits whatever
the engine, so it is qnnpack's grid, not onednn's.

fp16. Neither engine of Debian's torch has an fp16 Linear kernel
(quantized::linear_prepack_fp16 is FBGEMM-only; convert_fx raises
"quantized::linear_prepack_fp16 is currently not supported by ONEDNN" /
"... by QNNPACK", which this script checks). The golden output is therefore
PyTorch's reference model (convert_to_reference_fx), which no engine
changes: NAME.fp16-onednn.npy and NAME.fp16-qnnpack.npy are equal. It
rounds each Linear's activation to float16 and back
(quantize_per_tensor_dynamic(x, float16) -> dequantize), runs F.linear in
float32 with the float32 bias and, a 1.13 quirk, the float32 weight
unrounded: float16_dynamic_qconfig's weight observer is a
PlaceholderObserver without a qscheme, the reference Linear gets
weight_qscheme None, and _quantize_and_dequantize_weight returns such a
weight as is. Reproduced bit-exactly by the float model with a pre-hook
rounding each Linear's input to float16. FBGEMM's linear_dynamic_fp16 (not
available here) does the opposite: fp16 weight, float32 activation.

Regenerate with:
  /usr/bin/python3 utils/golden/gen_dynamic_models_golden.py test/Inputs/models
"""

import copy
import json
import pathlib
import sys

import numpy as np
import torch
import torch.fx
import torch.nn as nn
from torch.ao.quantization import (QConfigMapping, default_dynamic_qconfig,
                                   float16_dynamic_qconfig)
from torch.ao.quantization.quantize_fx import (convert_fx, convert_to_reference_fx,
                                               prepare_fx)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import export_test_models  # noqa: E402

MODELS = ["mlp", "sigmoid_head", "cnn"]
ENGINES = ["onednn", "qnnpack"]
# config -> (QConfig, its name in qfx's QConfigMapping JSON)
CONFIGS = {
    "dynamic": (default_dynamic_qconfig, "default_dynamic_qconfig"),
    "fp16": (float16_dynamic_qconfig, "float16_dynamic_qconfig"),
}
# Module types fused with a Linear by prepare_fx, which must then have the
# Linear's QConfig (see the docstring).
FUSED_WITH_LINEAR = {"mlp": [nn.ReLU]}

f32 = np.float32
# quant_utils::ChooseQuantizationParams raises smaller scales to this one.
SMALL_SCALE_THRESHOLD = 6.1e-5


def object_types(name: str) -> list:
    return [nn.Linear] + FUSED_WITH_LINEAR.get(name, [])


def qconfig_mapping(name: str, config: str) -> QConfigMapping:
    mapping = QConfigMapping()
    for t in object_types(name):
        mapping.set_object_type(t, CONFIGS[config][0])
    return mapping


def qfx_qconfig_mapping(name: str, config: str) -> dict:
    return {"object_type": [[f"torch.nn.{t.__name__}", CONFIGS[config][1]]
                            for t in object_types(name)]}


def choose_qparams(x: np.ndarray, qmax: int) -> tuple:
    """quant_utils::ChooseQuantizationParams(min, max, 0, qmax) of PyTorch 1.13
    (no sparsity preservation, no power-of-two scale); its error terms
    subtract, as PyTorch's do."""
    lo = min(f32(x.min()), f32(0))
    hi = max(f32(x.max()), f32(0))
    scale = (float(hi) - float(lo)) / qmax
    if f32(scale) == 0 or np.isinf(f32(1) / f32(scale)):
        scale = 0.1
    if scale < SMALL_SCALE_THRESHOLD:
        amplifier = f32(SMALL_SCALE_THRESHOLD) / f32(scale)
        scale = float(f32(SMALL_SCALE_THRESHOLD))
        if lo == 0:
            hi = f32(SMALL_SCALE_THRESHOLD) * f32(qmax)
        elif hi == 0:
            lo = -f32(SMALL_SCALE_THRESHOLD) * f32(qmax)
        else:
            lo, hi = lo * amplifier, hi * amplifier
    lo, hi = float(lo), float(hi)
    zero_from_min = 0 - lo / scale
    zero_from_max = qmax - hi / scale
    error_min = 0 - abs(lo / scale)
    error_max = qmax - abs(hi / scale)
    zero = zero_from_min if error_min < error_max else zero_from_max
    return scale, int(min(max(np.rint(zero), 0), qmax))


def dynamic_linear_by_hand(x: torch.Tensor, module: nn.Module, engine: str) -> torch.Tensor:
    """What quantized::linear(_relu)_dynamic(x, packed, reduce_range=True)
    computes on ENGINE, in numpy (see the docstring)."""
    qweight, bias = module._packed_params._weight_bias()
    if qweight.qscheme() != torch.per_tensor_affine or bias is None:
        raise RuntimeError(f"expected a per-tensor weight and a bias, got {qweight.qscheme()}, {bias}")
    w = qweight.int_repr().numpy().astype(np.int64) - qweight.q_zero_point()
    sw = qweight.q_scale()
    b = bias.detach().numpy().astype(f32)
    xs = x.numpy().astype(f32).reshape(-1, module.in_features)
    qmax = 127 if engine == "onednn" else 255
    sx, zx = choose_qparams(xs, qmax)
    if engine == "onednn":
        # oneDNN's reorder: the zero point is added in float before rounding.
        xq = np.rint(xs * f32(1 / sx) + f32(zx))
    else:
        xq = np.rint(xs * (f32(1) / f32(sx))) + zx
    xq = np.clip(xq, 0, qmax).astype(np.int64)
    acc = ((xq - zx) @ w.T).astype(f32)
    if engine == "onednn":
        p = f32(f32(1 / sx) * f32(1 / sw))
        y = (acc + b * p) * (f32(1) / p)
    else:
        y = acc * f32(f32(sx) * f32(sw)) + b
    if "ReLU" in module._get_name():
        y = np.maximum(y, f32(0))
    return torch.from_numpy(y.reshape(*x.shape[:-1], module.out_features))


class DynamicByHand(torch.fx.Interpreter):
    """Runs a convert_fx model with every dynamic Linear computed by hand."""

    def __init__(self, gm: torch.fx.GraphModule, engine: str):
        super().__init__(gm)
        self.engine = engine
        self.replaced = 0

    def call_module(self, target, args, kwargs):
        module = self.fetch_attr(target)
        if isinstance(module, torch.ao.nn.quantized.dynamic.Linear):
            self.replaced += 1
            return dynamic_linear_by_hand(args[0], module, self.engine)
        return super().call_module(target, args, kwargs)


def fp16_by_hand(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """The float model with every Linear's activation rounded to float16 and
    back; the weight stays float32 (see the docstring)."""
    model = copy.deepcopy(model)
    for m in model.modules():
        if isinstance(m, nn.Linear):
            m.register_forward_pre_hook(
                lambda _, inputs: tuple(i.to(torch.float16).to(torch.float32) for i in inputs))
    return model(x)


def golden(name: str, config: str, engine: str, out: pathlib.Path) -> torch.Tensor:
    torch.backends.quantized.engine = engine
    model, x, calib = export_test_models.build(name)
    # The committed data is what qfx sees: use exactly it.
    x = torch.from_numpy(np.load(out / f"{name}.input.npy"))
    calib = torch.from_numpy(np.load(out / f"{name}.calib.npy"))
    prepared = prepare_fx(copy.deepcopy(model), qconfig_mapping(name, config), (x,))
    with torch.no_grad():
        for sample in calib:
            prepared(sample)
        if config == "dynamic":
            converted = convert_fx(copy.deepcopy(prepared))
            y = converted(x)
            if not torch.equal(converted(x), y):
                raise RuntimeError(f"{name} {config} on {engine}: two runs differ")
            by_hand = DynamicByHand(converted, engine)
            expected = by_hand.run(x)
            if by_hand.replaced == 0:
                raise RuntimeError(f"{name} {config}: no dynamic Linear in\n{converted}")
        else:
            try:
                convert_fx(copy.deepcopy(prepared))
            except RuntimeError as e:
                if "linear_prepack_fp16 is currently not supported" not in str(e):
                    raise
            else:
                raise RuntimeError(f"{engine} now has an fp16 Linear kernel: use it "
                                   "(see the docstring)")
            y = convert_to_reference_fx(prepared)(x)
            expected = fp16_by_hand(model, x)
    if not torch.equal(y, expected):
        raise RuntimeError(f"{name} {config} on {engine}: the reproduction by hand differs "
                           f"by up to {(y - expected).abs().max().item():.3g}")
    if y.dtype != torch.float32:
        raise RuntimeError(f"{name} {config} on {engine}: the output is {y.dtype}, expected float32")
    return y


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    for name in MODELS:
        for config in CONFIGS:
            mapping = json.dumps(qfx_qconfig_mapping(name, config))
            (out / f"{name}.{config}.qconfig-mapping.json").write_text(mapping + "\n")
            for engine in ENGINES:
                y = golden(name, config, engine, out)
                np.save(out / f"{name}.{config}-{engine}.npy", y.numpy().astype(np.float32))
                print(f"{name} {config} {engine}: output {tuple(y.shape)}, reproduced bit-exactly")


if __name__ == "__main__":
    main()
