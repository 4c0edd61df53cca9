#!/usr/bin/env python3
"""Golden outputs of PyTorch 1.13's reference quantized models
(test/Conversion/ObserveToQuant/reference-parity.test).

For each model of utils/export_test_models.py: prepare_fx with
get_default_qconfig_mapping(BACKEND), calibrate on NAME.calib.npy sample by
sample, convert_to_reference_fx, run on NAME.input.npy. Writes
NAME.reference-BACKEND.npy next to the models.

Regenerate with:
  /usr/bin/python3 utils/golden/gen_reference_golden.py test/Inputs/models
"""

import pathlib
import sys

import numpy as np
import torch
from torch.ao.quantization.quantize_fx import convert_to_reference_fx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import export_test_models  # noqa: E402

BACKENDS = ["x86", "qnnpack"]


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    for name in export_test_models.MODELS:
        for backend in BACKENDS:
            prepared, x = export_test_models.calibrated(name, backend, out)
            with torch.no_grad():
                reference = convert_to_reference_fx(prepared)
                y = reference(x)
            np.save(out / f"{name}.reference-{backend}.npy", y.numpy().astype(np.float32))


if __name__ == "__main__":
    main()
