#!/usr/bin/python3
# ===- calibration_overhead.py - Calibration cost vs float inference ------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# Measures what calibrating costs per sample against one float inference of
# the same model under quant-run, for minmax and histogram observers on every
# activation. Compilation is excluded: per-sample calibration time is
# (time for N samples - time for 1 sample) / (N - 1). Float inference is the
# median of quant-run --bench. Rounds are interleaved and medians reported,
# because the machine is shared and noisy. Usage:
#
#   /usr/bin/python3 utils/bench/calibration_overhead.py \
#       [--quant-run build/bin/quant-run] [--model test/Inputs/models/cnn.mlir] \
#       [--samples 5000] [--rounds 5]
#
# The observed model is the float model with a qfx.observe after every
# non-constant TOSA op (a stand-in until qfx-prepare exists for every model).
#
# ===----------------------------------------------------------------------===#

import argparse
import pathlib
import re
import statistics
import subprocess
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEF = re.compile(r"^(\s*)(%[\w.]+) = (tosa\.(?!const)[\w.]+)\b.*-> (tensor<[^>]*>)")


def observe_every_activation(text: str, observer: str) -> str:
    """Inserts an observer after every non-constant TOSA op result and makes
    later uses read the observed value."""
    lines = text.splitlines()
    out = []
    renames = {}
    next_id = 0
    for line in lines:
        for old, new in renames.items():
            line = re.sub(re.escape(old) + r"\b", new, line)
        out.append(line)
        match = DEF.match(line)
        if match and "tensor<" in match.group(4) and "xf32>" in match.group(4):
            indent, value, _, type_ = match.groups()
            observed = f"%observed{next_id}"
            out.append(f"{indent}{observed} = qfx.observe {value} id {next_id} "
                       f"spec(#qfx.observer<{observer}>) : {type_}")
            renames[value] = observed
            next_id += 1
    return "\n".join(out) + "\n"


def timed(command: list) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quant-run", default=str(ROOT / "build/bin/quant-run"))
    parser.add_argument("--model", default=str(ROOT / "test/Inputs/models/cnn.mlir"))
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    model = pathlib.Path(args.model)
    calib = np.load(model.with_suffix(".calib.npy"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        reps = -(-args.samples // len(calib))
        samples = np.concatenate([calib] * reps)[: args.samples]
        np.save(tmp / "many.npy", samples)
        np.save(tmp / "one.npy", samples[:1])
        np.save(tmp / "input.npy", samples[0])
        observed = {}
        for observer in ("minmax", "histogram"):
            path = tmp / f"{observer}.mlir"
            path.write_text(observe_every_activation(model.read_text(), observer))
            observed[observer] = path
        count = observed["minmax"].read_text().count("qfx.observe")

        inference, per_sample = [], {o: [] for o in observed}
        for _ in range(args.rounds):
            result = subprocess.run(
                [args.quant_run, str(model), f"--input={tmp / 'input.npy'}", "--bench=50"],
                check=True, capture_output=True, text=True).stdout
            inference.append(float(re.search(r"median ([0-9.]+) ms", result).group(1)))
            for observer, path in observed.items():
                base = [args.quant_run, str(path), "-o", str(tmp / "out.mlir")]
                one = timed(base + [f"--calibrate={tmp / 'one.npy'}"])
                many = timed(base + [f"--calibrate={tmp / 'many.npy'}"])
                per_sample[observer].append((many - one) / (args.samples - 1) * 1000)

    float_ms = statistics.median(inference)
    print(f"model {model.name}: {count} observed activations, "
          f"{args.samples} samples, {args.rounds} interleaved rounds (medians)")
    print(f"  float inference:            {float_ms:.4f} ms/sample")
    for observer, times in per_sample.items():
        ms = statistics.median(times)
        print(f"  calibration ({observer:9}):  {ms:.4f} ms/sample = "
              f"{ms / float_ms:.2f}x one inference")


if __name__ == "__main__":
    main()
