#!/usr/bin/env python3
"""Golden data for quant-run's calibration test (test/Runtime/calibrate.test)
and qfx-convert's qparams (test/Conversion/ObserveToQuant/qparams.test).

Feeds PyTorch 1.13's observers the tensors the observers of
test/Runtime/Inputs/observed.mlir see on a fixed set of samples, and writes
the samples, the observers' statistics and their calculate_qparams().

Regenerate with:
  /usr/bin/python3 utils/golden/gen_calibration_golden.py test/Runtime/Inputs
"""

import json
import pathlib
import sys

import numpy as np
import torch
from torch.ao.quantization import (
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    PerChannelMinMaxObserver,
)


def floats(tensor: torch.Tensor) -> list:
    """float32 values as exact decimal strings (repr of np.float32)."""
    return [repr(np.float32(v)) for v in tensor.flatten().tolist()]


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    rng = np.random.default_rng(7)
    samples = (rng.standard_normal((5, 2, 3)) * np.array([1, 2, 4])).astype(np.float32)
    np.save(out / "calib-samples.npy", samples)
    np.save(out / "calib-samples-first3.npy", samples[:3])
    np.save(out / "calib-samples-last2.npy", samples[3:])

    # The observers of observed.mlir, by id, and what each one sees.
    shared = MinMaxObserver()  # id 0: the input and its negation
    per_channel = PerChannelMinMaxObserver(ch_axis=1)  # id 1
    histogram = HistogramObserver(bins=8)  # id 2
    moving = MovingAverageMinMaxObserver(averaging_constant=0.5)  # id 3
    for sample in samples:
        x = torch.from_numpy(sample)
        shared(x)
        per_channel(x)
        histogram(x)
        shared(-x)
        moving(-x)
    golden = {
        "0": {"min": floats(shared.min_val), "max": floats(shared.max_val)},
        "1": {"min": floats(per_channel.min_val), "max": floats(per_channel.max_val)},
        "2": {
            "min": floats(histogram.min_val),
            "max": floats(histogram.max_val),
            "counts": floats(histogram.histogram),
        },
        "3": {"min": floats(moving.min_val), "max": floats(moving.max_val)},
    }
    (out / "calib-golden.json").write_text(json.dumps(golden, indent=1) + "\n")

    qparams = {}
    for observer_id, observer in [("0", shared), ("1", per_channel), ("2", histogram), ("3", moving)]:
        scale, zero_point = observer.calculate_qparams()
        qparams[observer_id] = {
            "scales": floats(scale),
            "zero_points": [int(z) for z in zero_point.flatten().tolist()],
        }
    (out / "calib-qparams-golden.json").write_text(json.dumps(qparams, indent=1) + "\n")


if __name__ == "__main__":
    main()
