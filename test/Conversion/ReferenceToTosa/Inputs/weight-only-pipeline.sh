#!/usr/bin/env bash
# Weight-only quantization of the mlp's Linear layers, end to end: prepare with
# a weight-only QConfigMapping and BackendConfig, convert, lower, run; the
# reference and the lowered model must both equal PyTorch 1.13's reference
# model bit for bit (golden: utils/golden/gen_weight_only_golden.py).
# Usage: weight-only-pipeline.sh QUANT_OPT QUANT_RUN PYTHON QFX_SRC DTYPE OUTDIR
set -euo pipefail
quant_opt=$1 quant_run=$2 python=$3 src=$4 dtype=$5 out=$6
models=$src/test/Inputs/models
inputs=$src/test/Conversion/ReferenceToTosa/Inputs
backend=$inputs/weight-only-backend.json
base=$out/mlp-$dtype
mkdir -p "$out"
"$quant_opt" "$models/mlp.mlir" --qfx-fuse="backend=$backend" \
  --qfx-prepare="qconfig-mapping=$inputs/weight-only-$dtype.json backend=$backend" \
  -o "$base.observed.mlir"
# Only weights are observed, and they are observed by qfx-convert.
"$quant_opt" "$base.observed.mlir" --qfx-convert -o "$base.reference.mlir"
"$quant_opt" "$base.reference.mlir" --qfx-lower="backend=$backend" \
  -o "$base.lowered.mlir" 2> "$base.remarks"
if [ -s "$base.remarks" ]; then cat "$base.remarks"; exit 1; fi
for stage in reference lowered; do
  "$quant_run" "$base.$stage.mlir" --input="$models/mlp.input.npy" -o "$base.$stage.npy"
  "$python" "$src/utils/npy-compare.py" "$base.$stage.npy" \
    "$models/mlp.weight_only_$dtype.npy" --exact
done
