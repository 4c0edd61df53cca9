#!/usr/bin/env python3
"""Golden outputs of PyTorch 1.13's quantized (int8 kernel) models, for the
int8 parity tests.

For each model of utils/export_test_models.py and each BACKEND in x86 and
qnnpack: set torch.backends.quantized.engine (x86 runs on "onednn", since
Debian's torch has only the qnnpack and onednn engines, qnnpack on
"qnnpack"), prepare_fx with get_default_qconfig_mapping(BACKEND), calibrate on
NAME.calib.npy sample by sample, convert_fx (the real quantized model, not
the reference one), run on NAME.input.npy. Writes next to the models:

  NAME.quantized-BACKEND.npy   the float32 output (convert_fx's model ends in
                               a dequantize, so this is the dequantized int8)
  NAME.quantized-BACKEND.json  {"engine": ENGINE, "scale": S, "zero_point": Z}:
                               the per-tensor quantization of the tensor the
                               final dequantize consumes, i.e. the output's
                               int8 grid (utils/npy-compare.py --qparams)

The script fails rather than writing anything partial-looking if the output
is not a dequantize of a per-tensor affine quantized tensor, or if two runs
of the quantized model differ.

Known PyTorch 1.13 defect captured as is: on the qnnpack engine the quantized
clamp kernel (quantized ReLU6 / hardtanh) given a channels_last input (what
QNNPACK's quantized conv returns) writes its result in NHWC order into an
NCHW-contiguous tensor, scrambling the elements. depthwise (conv -> ReLU6)
is hit: depthwise.quantized-qnnpack.npy is far from the reference model
(every element, up to 42 steps) and is no int8 parity target. The x86
(onednn) file and the other models are unaffected.

Regenerate with:
  /usr/bin/python3 utils/golden/gen_quantized_golden.py test/Inputs/models
"""

import json
import pathlib
import sys

import numpy as np
import torch
import torch.fx
from torch.ao.quantization.quantize_fx import convert_fx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import export_test_models  # noqa: E402

# backend (qconfig mapping) -> quantized engine that runs its kernels
BACKENDS = {"x86": "onednn", "qnnpack": "qnnpack"}


def is_dequantize(node: torch.fx.Node) -> bool:
    if node.op == "call_method":
        return node.target == "dequantize"
    if node.op == "call_function":
        return node.target is torch.dequantize
    return False


def final_dequantize(gm: torch.fx.GraphModule) -> torch.fx.Node:
    """The dequantize node that produces the graph's single output."""
    outputs = [n for n in gm.graph.nodes if n.op == "output"]
    if len(outputs) != 1:
        raise RuntimeError(f"expected one output node, found {len(outputs)}")
    result = outputs[0].args[0]
    if not isinstance(result, torch.fx.Node):
        raise RuntimeError(f"expected the output to be a single tensor, got {result!r}")
    if not is_dequantize(result):
        raise RuntimeError(
            f"expected the output to be produced by a dequantize, it is "
            f"{result.op} {result.target}:\n{gm.graph}")
    return result


class DequantizeInputRecorder(torch.fx.Interpreter):
    """Runs a GraphModule and records the value the node DEQUANTIZE consumes."""

    def __init__(self, gm: torch.fx.GraphModule, dequantize: torch.fx.Node):
        super().__init__(gm)
        self.dequantize = dequantize
        self.recorded = None

    def run_node(self, n: torch.fx.Node):
        if n is self.dequantize:
            args, _ = self.fetch_args_kwargs_from_env(n)
            self.recorded = args[0]
        return super().run_node(n)


def output_qparams(gm: torch.fx.GraphModule, x: torch.Tensor, y: torch.Tensor) -> dict:
    recorder = DequantizeInputRecorder(gm, final_dequantize(gm))
    y_interpreted = recorder.run(x)
    q = recorder.recorded
    if not isinstance(q, torch.Tensor) or not q.is_quantized:
        raise RuntimeError(f"the final dequantize consumes {type(q).__name__}, not a quantized tensor")
    if q.qscheme() != torch.per_tensor_affine:
        raise RuntimeError(f"the output is quantized {q.qscheme()}, expected torch.per_tensor_affine")
    if not torch.equal(y_interpreted, y) or not torch.equal(q.dequantize(), y):
        raise RuntimeError("the interpreted output differs from the module's output")
    return {"scale": float(q.q_scale()), "zero_point": int(q.q_zero_point())}


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    for name in export_test_models.MODELS:
        for backend, engine in BACKENDS.items():
            torch.backends.quantized.engine = engine
            prepared, x = export_test_models.calibrated(name, backend, out)
            with torch.no_grad():
                quantized = convert_fx(prepared)
                y = quantized(x)
                if not torch.equal(quantized(x), y):
                    raise RuntimeError(f"{name} on {engine}: two runs of the quantized model differ")
                qparams = {"engine": engine, **output_qparams(quantized, x, y)}
            if y.dtype != torch.float32:
                raise RuntimeError(f"{name} on {engine}: the output is {y.dtype}, expected float32")
            np.save(out / f"{name}.quantized-{backend}.npy", y.numpy().astype(np.float32))
            (out / f"{name}.quantized-{backend}.json").write_text(json.dumps(qparams, indent=2) + "\n")
            print(f"{name} {backend} ({engine}): output {tuple(y.shape)}, "
                  f"scale {qparams['scale']:.6g}, zero_point {qparams['zero_point']}")


if __name__ == "__main__":
    main()
