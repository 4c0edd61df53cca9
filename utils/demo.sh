#!/usr/bin/env bash
# The main job: sets up and builds qfx, then quantizes the bundled example
# model (docs/example/digits: a small CNN trained on the 8x8 handwritten digits
# of sklearn) with the qfx pipeline and reports accuracy, size and speed:
#
#   prepare    quant-opt --qfx-fuse --qfx-prepare    float TOSA -> observed
#   calibrate  quant-run --calibrate=calib.npy       -> calibrated
#   convert    quant-opt --qfx-convert               -> reference model
#   evaluate   quant-run on the 360 held-out digits, float and reference
#   compare    quant-run --compare: per-layer error of the reference model
#   bench      quant-run --bench: latency of float, fused float and reference
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
show "$QUANT_OPT" "$DIGITS/digits.mlir" --qfx-fuse -o "$OUT/fused.mlir"
show "$QUANT_OPT" "$OUT/fused.mlir" "${PREPARE[1]}" -o "$OUT/observed.mlir"
echo "   $(grep -c '= qfx.observe ' "$OUT/observed.mlir") observers"

step "2. calibrate: run the observed model on 200 training images"
show "$QUANT_RUN" "$OUT/observed.mlir" --calibrate="$DIGITS/calib.npy" -o "$OUT/calibrated.mlir"

step "3. convert: observers become quantize/dequantize (the reference model)"
show "$QUANT_OPT" "$OUT/calibrated.mlir" --qfx-convert -o "$OUT/reference.mlir"

step "4. evaluate on the test set"
# digits_eval.mlir is the same model exported with batch 360, so one quant-run
# call runs the whole test set. It is prepared the same way and gets the
# statistics of the batch-1 calibration above, then converted.
show "$QUANT_OPT" "$DIGITS/digits_eval.mlir" "${PREPARE[@]}" -o "$OUT/observed-eval.mlir"
"$PY" "$DEMO_PY" apply-stats "$OUT/calibrated.mlir" "$OUT/observed-eval.mlir" -o "$OUT/calibrated-eval.mlir"
"$QUANT_OPT" "$OUT/calibrated-eval.mlir" --qfx-convert -o "$OUT/reference-eval.mlir"
show "$QUANT_RUN" "$DIGITS/digits_eval.mlir" --input="$DIGITS/test_inputs.npy" -o "$OUT/float-logits.npy"
show "$QUANT_RUN" "$OUT/reference-eval.mlir" --input="$DIGITS/test_inputs.npy" -o "$OUT/reference-logits.npy"
float_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/float-logits.npy" "$DIGITS/test_labels.npy")
ref_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/reference-logits.npy" "$DIGITS/test_labels.npy")
torch_out=$("$PY" "$DEMO_PY" torch-int8 "$DIGITS" --qfx-logits "$OUT/reference-logits.npy")
torch_acc=${torch_out%%$'\n'*}
torch_agree=""
[[ "$torch_out" == *$'\n'* ]] && torch_agree=${torch_out#*$'\n'}

step "5. compare: the reference model against float, layer by layer, on test image 0"
# Against the fused float model (batch norm folded, conv+relu in one region,
# all float), so that a layer's name means the same value in both: in the
# exported model "conv1" is the convolution before batch norm and relu.
"$PY" -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:1])" \
  "$DIGITS/test_inputs.npy" "$OUT/x0.npy"
show "$QUANT_RUN" "$OUT/fused.mlir" --compare="$OUT/reference.mlir" --input="$OUT/x0.npy"

step "6. bench: latency per image (batch 1): float, float after fusion, reference; two interleaved rounds"
for round in 1 2; do
  for model in float fused reference; do
    case $model in
      float) file="$DIGITS/digits.mlir" ;;
      fused) file="$OUT/fused.mlir" ;;
      reference) file="$OUT/reference.mlir" ;;
    esac
    show "$QUANT_RUN" "$file" --input="$OUT/x0.npy" --bench="$BENCH_RUNS" | tee "$OUT/bench-$model-$round.txt"
  done
done
latency=$("$PY" "$DEMO_PY" bench-summary "$OUT")

step "summary (docs/example/digits, 360 test images)"
printf '  float accuracy                  %s %%\n' "$float_acc"
printf '  qfx int8 (reference) accuracy   %s %%\n' "$ref_acc"
printf '  PyTorch 1.13 int8 accuracy      %s  (prepare_fx/convert_fx, default x86 qconfig, onednn engine)\n' "$torch_acc"
[ -n "$torch_agree" ] && printf '    %s\n' "$torch_agree"
printf '  model size                      %s\n' "$("$PY" "$DEMO_PY" size "$DIGITS/digits.mlir" "$OUT/reference.mlir")"
printf '  latency per image (batch 1)     %s\n' "$latency"
cat <<'EOF'

  Native int8 kernels (qfx-lower, qfx-codegen) are not built yet: the quantized
  model runs as the simulated reference model (dequantize -> float op ->
  quantize around every layer, all in float), so the latency ratios above are
  those of the simulation, not of int8 code; expect no speed-up until
  qfx-codegen lands.
EOF
