#!/usr/bin/env bash
# Runs qfx's dynamic quantization (or float16) flow on an exported test model
# and compares its output with PyTorch 1.13's convert_fx model on the same
# quantized engine (golden data: utils/golden/gen_dynamic_models_golden.py,
# whose docstring says what each engine computes).
# Usage: dynamic-pipeline.sh QUANT_OPT QUANT_RUN PYTHON QFX_SRC MODEL CONFIG ENGINE OUTDIR [STAGE]
# CONFIG: dynamic or fp16 (the QConfigMapping MODEL.CONFIG.qconfig-mapping.json:
#         nn.Linear, and for mlp its fused nn.ReLU, to default_dynamic_qconfig
#         or float16_dynamic_qconfig)
# ENGINE: onednn (qfx backend x86) or qnnpack (qfx backend qnnpack)
# STAGE:  reference (default) compares the reference model (qfx-convert);
#         int8 also lowers it with qfx-lower and compares that.
set -euo pipefail
quant_opt=$1 quant_run=$2 python=$3 src=$4 model=$5 config=$6 engine=$7 out=$8
stage=${9:-reference}
models=$src/test/Inputs/models
golden=$models/$model.$config-$engine.npy
base=$out/$model-$config-$engine
mkdir -p "$out"

# PyTorch 1.13's onednn kernel honours linear_dynamic's reduce_range=True
# (7-bit activations, [0, 127]); qnnpack ignores it (8 bits, [0, 255]).
case $engine in
  onednn) backend=x86 reduce_range=true ;;
  qnnpack) backend=qnnpack reduce_range=false ;;
  *) echo "unknown engine '$engine': expected onednn or qnnpack" >&2; exit 2 ;;
esac

# Tolerances, all absolute (rtol 0): an output near 0 is a difference of
# terms up to 2 in size and carries their rounding, not its own.
case $config-$stage in
  dynamic-reference | dynamic-int8)
    # Same integers, float32 evaluated in another order: the reference model
    # computes dequantize(X) x dequantize(W) in float, qfx-lower int32
    # accumulators in the engine's order (the int8 stage is then compared
    # exactly, below). 2^-22 is 2 ulps of 2, the largest
    # |x|.|w| + |b| sum of these layers (1.95). Worst measured: 6.0e-8
    # (reference, mlp and cnn), 3.0e-8 (int8, onednn). It is 12x below the
    # smallest accumulator step sx * sw (2.9e-6) and 1000x below what one
    # activation quantized to a neighbouring integer changes (2.3e-4): a
    # different zero point, rounding or 7/8-bit range fails.
    tolerance=(--rtol 0 --atol 2.4e-7) ;;
  fp16-reference | fp16-int8)
    # PyTorch 1.13's reference model rounds each Linear's activation to
    # float16 but keeps the weight float32 (its PlaceholderObserver weight
    # has no qscheme, so the reference Linear skips it); qfx rounds both.
    # The gap is the weight's fp16 rounding, sum_i |x_i| |w_i - fp16(w_i)|:
    # up to 3.9e-4 in these layers (mlp fc1); worst measured 1.6e-4 (mlp),
    # 4.9e-5 (cnn), 1.7e-5 (sigmoid_head). That is as large as the whole
    # fp16 effect (golden vs float model: up to 8.5e-5), so this guards
    # the flow, not fp16 parity.
    tolerance=(--rtol 0 --atol 4e-4) ;;
  *) echo "unknown config '$config' or stage '$stage': expected dynamic or fp16, reference or int8" >&2
     exit 2 ;;
esac

"$quant_opt" "$models/$model.mlir" --qfx-fuse="backend=$backend" \
  --qfx-prepare="qconfig-mapping=$models/$model.$config.qconfig-mapping.json backend=$backend" \
  -o "$base.observed.mlir" 2> "$base.prepare.remarks" || { cat "$base.prepare.remarks"; exit 1; }
# The weights are observed; a model whose only observers were dynamic
# activations would have nothing to calibrate.
if grep -q 'qfx.observe' "$base.observed.mlir"; then
  "$quant_run" "$base.observed.mlir" --calibrate="$models/$model.calib.npy" \
    -o "$base.calibrated.mlir"
else
  cp "$base.observed.mlir" "$base.calibrated.mlir"
fi
"$quant_opt" "$base.calibrated.mlir" --qfx-convert="dynamic-reduce-range=$reduce_range" \
  -o "$base.reference.mlir"
"$quant_run" "$base.reference.mlir" --input="$models/$model.input.npy" -o "$base.reference.npy"
"$python" "$src/utils/npy-compare.py" "$base.reference.npy" "$golden" "${tolerance[@]}"
[ "$stage" = int8 ] || exit 0

"$quant_opt" "$base.reference.mlir" --qfx-lower="backend=$backend" \
  -o "$base.int8.mlir" 2> "$base.lower.remarks"
if [ -s "$base.lower.remarks" ]; then cat "$base.lower.remarks"; exit 1; fi
"$quant_opt" "$base.int8.mlir" --tosa-attach-target=profiles=pro_int,pro_fp \
  --tosa-validate -o /dev/null
"$quant_run" "$base.int8.mlir" --input="$models/$model.input.npy" -o "$base.int8.npy"
if [ "$config" = dynamic ]; then
  # Every Linear is an int8 matmul contraction with int32 accumulators.
  grep -q 'qfx.contract matmul .*xi8>.*-> tensor<[0-9x]*xi32>' "$base.int8.mlir"
  if grep -E '(tosa.matmul|qfx.contract) .*xf32' "$base.int8.mlir"; then exit 1; fi
  # qfx-lower quantizes and scales as the engine's kernel does (QNNPACK's
  # float scales; oneDNN's reciprocals of PyTorch's double scale, fused
  # zero point and bias in the accumulator's domain): bit-exact.
  "$python" "$src/utils/npy-compare.py" "$base.int8.npy" "$golden" --exact
else
  # An fp16 Linear has nothing to lower: it stays float, with the same result.
  "$python" "$src/utils/npy-compare.py" "$base.int8.npy" "$base.reference.npy" --exact
  "$python" "$src/utils/npy-compare.py" "$base.int8.npy" "$golden" "${tolerance[@]}"
fi
