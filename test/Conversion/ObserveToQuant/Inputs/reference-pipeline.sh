#!/usr/bin/env bash
# Runs the reference pipeline on an exported test model and compares its
# output with PyTorch 1.13's convert_to_reference_fx output.
# Usage: reference-pipeline.sh QUANT_OPT QUANT_RUN PYTHON QFX_SRC MODEL BACKEND OUTDIR [ATOL]
# ATOL (default 1e-6) is the absolute tolerance on top of 1e-5 relative.
set -euo pipefail
quant_opt=$1 quant_run=$2 python=$3 src=$4 model=$5 backend=$6 out=$7
atol=${8:-1e-6}
models=$src/test/Inputs/models
mkdir -p "$out"
"$quant_opt" "$models/$model.mlir" --qfx-fuse="backend=$backend" \
  --qfx-prepare="qconfig-mapping=default:$backend backend=$backend" \
  -o "$out/$model-$backend.observed.mlir"
"$quant_run" "$out/$model-$backend.observed.mlir" \
  --calibrate="$models/$model.calib.npy" -o "$out/$model-$backend.calibrated.mlir"
"$quant_opt" "$out/$model-$backend.calibrated.mlir" --qfx-convert \
  -o "$out/$model-$backend.reference.mlir"
"$quant_run" "$out/$model-$backend.reference.mlir" \
  --input="$models/$model.input.npy" -o "$out/$model-$backend.npy"
"$python" "$src/utils/npy-compare.py" "$out/$model-$backend.npy" \
  "$models/$model.reference-$backend.npy" --rtol 1e-5 --atol "$atol"
