#!/usr/bin/env bash
# Runs the whole pipeline to int8 TOSA on an exported test model and compares
# its output with PyTorch 1.13's quantized model (convert_fx) on the int8 grid.
# Usage: int8-pipeline.sh QUANT_OPT QUANT_RUN PYTHON QFX_SRC MODEL BACKEND OUTDIR [GOLDEN]
# GOLDEN (default "quantized") names the golden output: MODEL.GOLDEN-BACKEND.npy.
set -euo pipefail
quant_opt=$1 quant_run=$2 python=$3 src=$4 model=$5 backend=$6 out=$7
golden=${8:-quantized}
models=$src/test/Inputs/models
base=$out/$model-$backend
mkdir -p "$out"
"$quant_opt" "$models/$model.mlir" --qfx-fuse="backend=$backend" \
  --qfx-prepare="qconfig-mapping=default:$backend backend=$backend" \
  -o "$base.observed.mlir"
"$quant_run" "$base.observed.mlir" --calibrate="$models/$model.calib.npy" \
  -o "$base.calibrated.mlir"
"$quant_opt" "$base.calibrated.mlir" --qfx-convert -o "$base.reference.mlir"
# Every pattern of these models lowers: no "runs in float" remark.
"$quant_opt" "$base.reference.mlir" --qfx-lower="backend=$backend" \
  -o "$base.int8.mlir" 2> "$base.remarks"
if [ -s "$base.remarks" ]; then cat "$base.remarks"; exit 1; fi
# No float op is left between the input's quantize and the output's
# dequantize, and the TOSA is valid for the integer and float profiles.
if grep -E '(tosa\.(conv2d|depthwise_conv2d|matmul|avg_pool2d|max_pool2d|sigmoid)|qfx\.contract).*xf32' \
  "$base.int8.mlir"; then exit 1; fi
"$quant_opt" "$base.int8.mlir" --tosa-attach-target=profiles=pro_int,pro_fp \
  --tosa-validate -o /dev/null
"$quant_run" "$base.int8.mlir" --input="$models/$model.input.npy" -o "$base.npy"
# The same program gives the same integers on every run, and qfx-codegen's
# native kernels (quant-run's default where the machine has them) give what
# the generic lowering gives.
"$quant_run" "$base.int8.mlir" --input="$models/$model.input.npy" -o "$base.again.npy"
"$python" "$src/utils/npy-compare.py" "$base.npy" "$base.again.npy" --exact
"$quant_run" "$base.int8.mlir" --input="$models/$model.input.npy" --codegen=none \
  -o "$base.generic.npy"
"$python" "$src/utils/npy-compare.py" "$base.npy" "$base.generic.npy" --exact
"$python" "$src/utils/npy-compare.py" "$base.npy" \
  "$models/$model.$golden-$backend.npy" \
  --qparams "$models/$model.quantized-$backend.json" --min-equal 0.99 --max-steps 1
