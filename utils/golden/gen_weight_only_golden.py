#!/usr/bin/env python3
"""Golden outputs of PyTorch 1.13's weight-only quantized Linear layers
(test/Conversion/ReferenceToTosa/weight-only.test).

PyTorch's built-in backend tables have weight-only dtype configs only for
embeddings; here a BackendConfig allows them for nn.Linear (float input and
output, quantized weight), as a user would write it. For the mlp of
utils/export_test_models.py and each weight dtype:

  qint8     PerChannelMinMaxObserver, per_channel_symmetric
  quint4x2  float_qparams_weight_only_qconfig_4bit (per channel, float zero
            points: PyTorch 1.13 quantizes quint4x2 weights only that way)
  quint8    float_qparams_weight_only_qconfig

prepare_fx, convert_to_reference_fx (the weights are quantized and
dequantized; the Linear runs in float) and run on mlp.input.npy. Writes
mlp.weight_only_DTYPE.npy next to the models, and the QConfigMapping and
BackendConfig as qfx JSON into test/Conversion/ReferenceToTosa/Inputs.

Regenerate with (from the repository root):
  /usr/bin/python3 utils/golden/gen_weight_only_golden.py test/Inputs/models
"""

import json
import pathlib
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.ao.quantization import (PerChannelMinMaxObserver, PlaceholderObserver, QConfig,
                                   QConfigMapping, float_qparams_weight_only_qconfig,
                                   float_qparams_weight_only_qconfig_4bit)
from torch.ao.quantization.backend_config import (BackendConfig, BackendPatternConfig,
                                                  DTypeConfig, ObservationType)
from torch.ao.quantization.quantize_fx import convert_to_reference_fx, prepare_fx

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "utils"))
import export_test_models  # noqa: E402

INPUTS = REPO / "test" / "Conversion" / "ReferenceToTosa" / "Inputs"

# name: (weight dtype, PyTorch QConfig, qfx QConfig JSON)
WEIGHTS = {
    "qint8": (torch.qint8,
              QConfig(activation=PlaceholderObserver.with_args(dtype=torch.float),
                      weight=PerChannelMinMaxObserver.with_args(
                          dtype=torch.qint8, qscheme=torch.per_channel_symmetric)),
              {"activation": {"observer": "PlaceholderObserver", "dtype": "float32"},
               "weight": {"observer": "PerChannelMinMaxObserver", "dtype": "qint8",
                          "qscheme": "per_channel_symmetric"}}),
    "quint4x2": (torch.quint4x2, float_qparams_weight_only_qconfig_4bit,
                 "float_qparams_weight_only_qconfig_4bit"),
    "quint8": (torch.quint8, float_qparams_weight_only_qconfig,
               "float_qparams_weight_only_qconfig"),
}


def torch_backend(weight_dtype: torch.dtype) -> BackendConfig:
    dtype_config = DTypeConfig(input_dtype=torch.float, output_dtype=torch.float,
                               weight_dtype=weight_dtype, bias_dtype=torch.float)
    pattern = (BackendPatternConfig(nn.Linear)
               .set_observation_type(ObservationType.OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT)
               .add_dtype_config(dtype_config)
               .set_root_module(nn.Linear)
               .set_reference_quantized_module(torch.ao.nn.quantized.reference.Linear))
    return BackendConfig("weight_only_linear").set_backend_pattern_config(pattern)


def qfx_backend() -> dict:
    """The same table over the TOSA ops a Linear exports to (matmul, and its
    bias add as the fused pattern "linear"), for both weight dtypes. Like
    PyTorch's, it fuses no ReLU: a fused Linear + ReLU would be PyTorch's
    LinearReLU module, whose ReLU needs the Linear's QConfig."""
    dtype_configs = [{"input_dtype": "float32", "output_dtype": "float32",
                      "weight_dtype": name, "bias_dtype": "float32"} for name in WEIGHTS]
    common = {"observation_type": "output_use_different_observer_as_input",
              "dtype_configs": dtype_configs, "root_op": "tosa.matmul",
              "reference_lowering": "contraction"}
    return {"name": "weight_only_linear", "configs": [
        {"pattern": "tosa.matmul", "input_roles": {"weight": [0, 1]}, **common},
        {"pattern": ["tosa.matmul", "tosa.add"], "fused_op": "linear", "fuser": "sequence",
         "input_roles": {"weight": [0, 1], "bias": [1, 1]}, **common},
    ]}


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    (INPUTS / "weight-only-backend.json").write_text(json.dumps(qfx_backend(), indent=1) + "\n")
    for name, (dtype, qconfig, qfx_qconfig) in WEIGHTS.items():
        model, _, _ = export_test_models.build("mlp")
        x = torch.from_numpy(np.load(out / "mlp.input.npy"))
        mapping = QConfigMapping().set_object_type(nn.Linear, qconfig)
        backend = torch_backend(dtype)
        prepared = prepare_fx(model, mapping, (x,), backend_config=backend)
        reference = convert_to_reference_fx(prepared, backend_config=backend)
        with torch.no_grad():
            y = reference(x)
        np.save(out / f"mlp.weight_only_{name}.npy", y.numpy().astype(np.float32))
        qfx_mapping = {"object_type": [["torch.nn.Linear", qfx_qconfig]]}
        (INPUTS / f"weight-only-{name}.json").write_text(json.dumps(qfx_mapping, indent=1) + "\n")


if __name__ == "__main__":
    main()
