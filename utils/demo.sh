#!/usr/bin/env bash
# The main job: sets up and builds qfx, then quantizes the bundled example
# model (docs/example/digits: a small CNN trained on the 8x8 handwritten digits
# of sklearn) with the qfx pipeline and reports accuracy, size and speed:
#
#   prepare    quant-opt --qfx-fuse --qfx-prepare    float TOSA -> observed
#   calibrate  quant-run --calibrate=calib.npy       -> calibrated
#   convert    quant-opt --qfx-convert               -> reference model
#   lower      quant-opt --qfx-lower=backend=x86     -> int8 TOSA
#   evaluate   quant-run on the 360 held-out digits: float, reference, int8
#   compare    quant-run --compare: per-layer error of the int8 model
#   bench      quant-run --bench: latency of float, fused float, reference
#              and int8 (quant-run's JIT: on CPUs with AVX-512 VNNI, AVX2 or
#              AArch64 SDOT the int8 convolutions and Linear run qfx-codegen's
#              kernels, everything else LLVM-compiled linalg loops)
#
# The intermediate IR is left in $QFX_DEMO_OUT (default build/demo).
# QFX_DEMO_SKIP_SETUP=1 skips utils/setup.sh (the tests use it);
# QFX_DEMO_BENCH=N sets the --bench run count (default 2000).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${QFX_BUILD_DIR:-$ROOT/build}
if [ "${QFX_DEMO_SKIP_SETUP:-0}" != 1 ]; then
  "$ROOT/utils/setup.sh" >&2
fi

DIGITS="$ROOT/docs/example/digits"
OUT=${QFX_DEMO_OUT:-$BUILD/demo}
BENCH_RUNS=${QFX_DEMO_BENCH:-2000}
QUANT_OPT="$BUILD/bin/quant-opt"
QUANT_RUN="$BUILD/bin/quant-run"
PY=/usr/bin/python3
DEMO_PY="$ROOT/utils/demo.py"
# PyTorch's default x86 post-training configuration, as prepare_fx applies it.
PREPARE=(--qfx-fuse --qfx-prepare="qconfig-mapping=default:x86 backend=x86")
rm -rf "$OUT"
mkdir -p "$OUT"

step() { printf '\n== %s\n' "$*"; }
# Prints a command (arguments with spaces quoted, paths relative) and runs it.
show() {
  local shown=() arg
  for arg in "$@"; do
    if [[ "$arg" == *" "* ]]; then shown+=("\"$arg\""); else shown+=("$arg"); fi
  done
  printf '$ %s\n' "${shown[*]}" | sed "s|$ROOT/||g; s|$BUILD/|build/|g"
  "$@"
}

echo "qfx demo: post-training int8 quantization of docs/example/digits"
echo "(a 3-conv CNN trained on sklearn's 8x8 digits; test set: 360 held-out images)"

step "1. prepare: fold batch norm and fuse conv+relu, then insert observers (PyTorch's default x86 QConfigMapping)"
show "$QUANT_OPT" "$DIGITS/digits.mlir" --qfx-fuse --mlir-print-debuginfo -o "$OUT/fused.mlir"
show "$QUANT_OPT" "$OUT/fused.mlir" "${PREPARE[1]}" --mlir-print-debuginfo -o "$OUT/observed.mlir"
echo "   $(grep -c '= qfx.observe ' "$OUT/observed.mlir") observers"

step "2. calibrate: run the observed model on 200 training images"
show "$QUANT_RUN" "$OUT/observed.mlir" --calibrate="$DIGITS/calib.npy" -o "$OUT/calibrated.mlir"

step "3. convert: observers become quantize/dequantize (the reference model)"
show "$QUANT_OPT" "$OUT/calibrated.mlir" --qfx-convert --mlir-print-debuginfo -o "$OUT/reference.mlir"

step "4. lower: the reference model to int8 TOSA (integer conv/matmul, requantized as onednn)"
# Patterns qfx-lower cannot lower stay in float, each with a "runs in float"
# remark on stderr; every pattern of this model lowers.
show "$QUANT_OPT" "$OUT/reference.mlir" --qfx-lower=backend=x86 --mlir-print-debuginfo -o "$OUT/int8.mlir" \
  2> "$OUT/lower-remarks.txt"
cat "$OUT/lower-remarks.txt"
float_ops=$(grep -c 'runs in float' "$OUT/lower-remarks.txt" || true)
int8_gemms=$(grep -cE 'qfx\.contract (conv2d|depthwise_conv2d|transpose_conv2d|matmul) ' "$OUT/int8.mlir" || true)
echo "   $int8_gemms int8 conv2d/matmul with int32 accumulators, requantized in float32" \
  "as PyTorch's onednn kernels; $float_ops op(s) left in float"

step "5. evaluate on the test set"
# digits_eval.mlir is the same model exported with batch 360, so one quant-run
# call runs the whole test set. It is prepared the same way and gets the
# statistics of the batch-1 calibration above, then converted and lowered.
show "$QUANT_OPT" "$DIGITS/digits_eval.mlir" "${PREPARE[@]}" --mlir-print-debuginfo -o "$OUT/observed-eval.mlir"
"$PY" "$DEMO_PY" apply-stats "$OUT/calibrated.mlir" "$OUT/observed-eval.mlir" -o "$OUT/calibrated-eval.mlir"
"$QUANT_OPT" "$OUT/calibrated-eval.mlir" --qfx-convert --mlir-print-debuginfo -o "$OUT/reference-eval.mlir"
"$QUANT_OPT" "$OUT/reference-eval.mlir" --qfx-lower=backend=x86 --mlir-print-debuginfo -o "$OUT/int8-eval.mlir"
show "$QUANT_RUN" "$DIGITS/digits_eval.mlir" --input="$DIGITS/test_inputs.npy" -o "$OUT/float-logits.npy"
show "$QUANT_RUN" "$OUT/reference-eval.mlir" --input="$DIGITS/test_inputs.npy" -o "$OUT/reference-logits.npy"
show "$QUANT_RUN" "$OUT/int8-eval.mlir" --input="$DIGITS/test_inputs.npy" -o "$OUT/int8-logits.npy"
echo "   int8 TOSA vs reference model logits:"
"$PY" "$ROOT/utils/npy-compare.py" "$OUT/int8-logits.npy" "$OUT/reference-logits.npy" --exact \
  | sed 's/^/   /' || true
float_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/float-logits.npy" "$DIGITS/test_labels.npy")
ref_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/reference-logits.npy" "$DIGITS/test_labels.npy")
int8_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/int8-logits.npy" "$DIGITS/test_labels.npy")
torch_out=$("$PY" "$DEMO_PY" torch-int8 "$DIGITS" --qfx-logits "$OUT/int8-logits.npy")
torch_acc=${torch_out%%$'\n'*}
torch_agree=""
[[ "$torch_out" == *$'\n'* ]] && torch_agree=${torch_out#*$'\n'}

step "6. compare: the int8 model against float, layer by layer, on test image 0"
# Against the exported float model: an int8 pattern (conv1 + bn1 + relu1) is
# named by its last op, whose value it computes ("relu1"), and compared
# dequantized (with its recorded qparams) with that op's float value.
"$PY" -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:1])" \
  "$DIGITS/test_inputs.npy" "$OUT/x0.npy"
show "$QUANT_RUN" "$DIGITS/digits.mlir" --compare="$OUT/int8.mlir" --input="$OUT/x0.npy"

step "7. bench: latency per image (batch 1): float, float after fusion, reference, int8; two interleaved rounds"
# quant-run JIT-compiles each model. With its default --codegen=host,
# qfx-codegen replaces the int8 model's conv2d and matmul chains with native
# kernels when this CPU has AVX-512 VNNI or AVX2 (their loops on OpenMP
# threads for large GEMMs) or AArch64's SDOT (one thread), and the float
# models' convolutions and Linear with float kernels; everything else (and
# the reference model, whose weights are dequantized every call) is linalg
# loops compiled and vectorized by LLVM, on the calling thread (max pools
# get kernels of their own). The line
# below counts the int8 kernels this CPU gets.
kernels=$("$QUANT_OPT" "$OUT/int8.mlir" --qfx-codegen=target=host | grep -cE 'call @qfx_(vnni|avx2|sdot)_(matmul|depthwise)_' || true)
echo "   qfx-codegen on this CPU: $kernels of $int8_gemms int8 conv2d/matmul run as native int8 kernels"
for round in 1 2; do
  for model in float fused reference int8; do
    case $model in
      float) file="$DIGITS/digits.mlir" ;;
      fused) file="$OUT/fused.mlir" ;;
      reference) file="$OUT/reference.mlir" ;;
      int8) file="$OUT/int8.mlir" ;;
    esac
    show "$QUANT_RUN" "$file" --input="$OUT/x0.npy" --bench="$BENCH_RUNS" | tee "$OUT/bench-$model-$round.txt"
  done
done
latency=$("$PY" "$DEMO_PY" bench-summary "$OUT")

step "summary (docs/example/digits, 360 test images)"
printf '  float accuracy                  %s %%\n' "$float_acc"
printf '  qfx int8 accuracy (int8 TOSA)   %s %%\n' "$int8_acc"
printf '  qfx reference model accuracy    %s %%  (quantize/dequantize around float ops)\n' "$ref_acc"
printf '  PyTorch 1.13 int8 accuracy      %s  (prepare_fx/convert_fx, default x86 qconfig, onednn engine)\n' "$torch_acc"
[ -n "$torch_agree" ] && printf '    %s\n' "$torch_agree"
printf '  model size                      %s\n' "$("$PY" "$DEMO_PY" size "$DIGITS/digits.mlir" "$OUT/int8.mlir")"
printf '  latency per image (batch 1)     %s\n' "$latency"
cat <<'EOF'

  The int8 model (int8.mlir) computes with integers: int8 convolutions and
  matmul with int32 accumulators, requantized to int8 between layers in
  float32 as PyTorch's onednn kernels do; besides that only the input's
  quantize and the output's dequantize (and the layout reshapes around them)
  are float. On a CPU with AVX-512 VNNI, AVX2 or AArch64 SDOT, quant-run runs
  its convolutions and its Linear as qfx-codegen's native int8 kernels (count
  in step 7; on one thread at this size: threads only pay off for larger
  GEMMs), and the float models' convolutions and Linear as float kernels;
  pooling, the other int8 ops and the reference model run as linalg loops
  compiled and vectorized by LLVM, on one thread. Latencies are medians and
  vary on a busy machine.
EOF
