#!/usr/bin/env bash
# The main job: sets up and builds qfx, then quantizes a residual CNN trained
# on Fashion-MNIST (docs/example/fashion: weights committed, trained by its
# train.py; Debian's dataset-fashion-mnist) with the qfx pipeline and reports
# accuracy, size and speed against PyTorch 1.13:
#
#   export     demo.py fashion-data: the model as float TOSA (qfx.export_tosa)
#              at batch 1 and at batch 100; calibration and test images as .npy
#   prepare    quant-opt --qfx-fuse --qfx-prepare    float TOSA -> observed
#   calibrate  quant-run --calibrate=calib.npy       -> calibrated
#   convert    quant-opt --qfx-convert               -> reference model
#   lower      quant-opt --qfx-lower=backend=x86     -> int8 TOSA
#   evaluate   demo.py evaluate: float, reference and int8 at batch 100
#              (compiled in-process as quant-run compiles them) on the
#              10,000 test images
#   compare    quant-run --compare: per-layer error of the int8 model
#   bench      quant-run --bench: latency of float, fused float, reference
#              and int8 (quant-run's JIT: on CPUs with AVX-512 VNNI, AVX2 or
#              AArch64 SDOT the int8 convolutions and Linear run qfx-codegen's
#              kernels, everything else LLVM-compiled linalg loops)
#   peers      demo.py peers: PyTorch's int8 model (prepare_fx / convert_fx,
#              the same calibration images) and its accuracy; latency per
#              image and per batch of qfx int8, PyTorch int8 and PyTorch float
#
# The intermediate IR is left in $QFX_DEMO_OUT (default build/demo).
# QFX_DEMO_SKIP_SETUP=1 skips utils/setup.sh (the tests use it);
# QFX_DEMO_BENCH=N sets the --bench run count (default 500);
# QFX_DEMO_IMAGES=N evaluates the first N test images (default all 10,000);
# QFX_DEMO_PEER_RUNS=N times N calls per round in the peers step (default 50).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${QFX_BUILD_DIR:-$ROOT/build}
if [ "${QFX_DEMO_SKIP_SETUP:-0}" != 1 ]; then
  "$ROOT/utils/setup.sh" >&2
fi

OUT=${QFX_DEMO_OUT:-$BUILD/demo}
BENCH_RUNS=${QFX_DEMO_BENCH:-500}
IMAGES=${QFX_DEMO_IMAGES:-10000}
PEER_RUNS=${QFX_DEMO_PEER_RUNS:-50}
QUANT_OPT="$BUILD/bin/quant-opt"
QUANT_RUN="$BUILD/bin/quant-run"
PY=/usr/bin/python3
DEMO_PY="$ROOT/utils/demo.py"
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" QFX_BUILD_DIR="$BUILD"
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
  # Under the sanitizer test run (python/tests/conftest.py) the interpreter
  # needs the sanitizer runtime preloaded to load the instrumented C API;
  # the tools link their own.
  if [ "$1" = "$PY" ] && [ -n "${QFX_PYTHON_LD_PRELOAD:-}" ]; then
    LD_PRELOAD="$QFX_PYTHON_LD_PRELOAD" ASAN_OPTIONS="${QFX_PYTHON_ASAN_OPTIONS:-}" "$@"
  else
    "$@"
  fi
}

echo "qfx demo: post-training int8 quantization of a residual CNN trained on Fashion-MNIST"
echo "(docs/example/fashion/resnet.pt; test set: the first $IMAGES of Fashion-MNIST's 10,000 test images)"

step "0. export: the trained model as float TOSA (batch 1 and 100), calibration and test images as .npy"
show "$PY" "$DEMO_PY" fashion-data "$OUT" --images "$IMAGES" --calibrate 500 --batch 100

step "1. prepare: fold batch norm and fuse conv+relu, then insert observers (PyTorch's default x86 QConfigMapping)"
show "$QUANT_OPT" "$OUT/float.mlir" --qfx-fuse --mlir-print-debuginfo -o "$OUT/fused.mlir"
show "$QUANT_OPT" "$OUT/fused.mlir" "${PREPARE[1]}" --mlir-print-debuginfo -o "$OUT/observed.mlir"
echo "   $(grep -c '= qfx.observe ' "$OUT/observed.mlir") observers"

step "2. calibrate: run the observed model on 500 training images"
show "$QUANT_RUN" "$OUT/observed.mlir" --calibrate="$OUT/calib.npy" -o "$OUT/calibrated.mlir"

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
echo "   $int8_gemms int8 convolutions/matmuls with int32 accumulators, requantized in float32" \
  "as PyTorch's onednn kernels; $float_ops op(s) left in float"

step "5. evaluate on the test set"
# float-batch.mlir is the same model exported with batch 100. It is prepared
# the same way and gets the statistics of the batch-1 calibration above, then
# converted and lowered; its float, reference and int8 stages run the test
# set, 100 images a call (and are timed per batch in step 8).
"$QUANT_OPT" "$OUT/float-batch.mlir" "${PREPARE[@]}" --mlir-print-debuginfo -o "$OUT/observed-batch.mlir"
"$PY" "$DEMO_PY" apply-stats "$OUT/calibrated.mlir" "$OUT/observed-batch.mlir" -o "$OUT/calibrated-batch.mlir"
"$QUANT_OPT" "$OUT/calibrated-batch.mlir" --qfx-convert --mlir-print-debuginfo -o "$OUT/reference-batch.mlir"
"$QUANT_OPT" "$OUT/reference-batch.mlir" --qfx-lower=backend=x86 --mlir-print-debuginfo -o "$OUT/int8-batch.mlir"
show "$PY" "$DEMO_PY" evaluate "$OUT"
echo "   int8 TOSA vs reference model logits:"
"$PY" "$ROOT/utils/npy-compare.py" "$OUT/int8-logits.npy" "$OUT/reference-logits.npy" --exact \
  | sed 's/^/   /' || true
float_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/float-logits.npy" "$OUT/test_labels.npy")
ref_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/reference-logits.npy" "$OUT/test_labels.npy")
int8_acc=$("$PY" "$DEMO_PY" accuracy "$OUT/int8-logits.npy" "$OUT/test_labels.npy")

step "6. compare: the int8 model against float, layer by layer, on test image 0"
# Against the exported float model: an int8 pattern (conv1 + bn1 + relu1) is
# named by its last op, whose value it computes ("relu1"), and compared
# dequantized (with its recorded qparams) with that op's float value.
"$PY" -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:1])" \
  "$OUT/test_inputs.npy" "$OUT/x0.npy"
show "$QUANT_RUN" "$OUT/float.mlir" --compare="$OUT/int8.mlir" --input="$OUT/x0.npy"

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
echo "   qfx-codegen on this CPU: $kernels of $int8_gemms int8 convolutions/matmuls run as native int8 kernels"
for round in 1 2; do
  for model in float fused reference int8; do
    case $model in
      float) file="$OUT/float.mlir" ;;
      fused) file="$OUT/fused.mlir" ;;
      reference) file="$OUT/reference.mlir" ;;
      int8) file="$OUT/int8.mlir" ;;
    esac
    show "$QUANT_RUN" "$file" --input="$OUT/x0.npy" --bench="$BENCH_RUNS" | tee "$OUT/bench-$model-$round.txt"
  done
done
latency=$("$PY" "$DEMO_PY" bench-summary "$OUT")

step "8. peers: PyTorch 1.13's int8 model (prepare_fx / convert_fx, default x86 qconfig, onednn engine, the same 500 calibration images); latency against PyTorch, interleaved rounds"
show "$PY" "$DEMO_PY" peers "$OUT" --runs "$PEER_RUNS" -o "$OUT/peers.txt"
torch_acc=$(sed -n 1p "$OUT/peers.txt")

step "summary (docs/example/fashion resnet, $IMAGES Fashion-MNIST test images)"
printf '  float accuracy                  %s %%\n' "$float_acc"
printf '  qfx int8 accuracy (int8 TOSA)   %s %%\n' "$int8_acc"
printf '  qfx reference model accuracy    %s %%  (quantize/dequantize around float ops)\n' "$ref_acc"
printf '  PyTorch 1.13 int8 accuracy      %s  (prepare_fx/convert_fx, default x86 qconfig, onednn engine)\n' "$torch_acc"
printf '    %s\n' "$(sed -n 2p "$OUT/peers.txt")"
printf '  model size                      %s\n' "$("$PY" "$DEMO_PY" size "$OUT/float.mlir" "$OUT/int8.mlir")"
printf '    %s\n' "$(sed -n 3p "$OUT/peers.txt")"
printf '  qfx stages, batch 1             %s\n' "$latency"
sed -n '4,$p' "$OUT/peers.txt" | sed 's/^/  /'
echo "  ONNX Runtime: not compared (its int8 peer needs a QDQ ONNX export this demo does not make yet)"
cat <<'EOF'

  The int8 model (int8.mlir) computes with integers: int8 convolutions and
  matmul with int32 accumulators, requantized to int8 between layers in
  float32 as PyTorch's onednn kernels do, and int8 residual adds computed as
  PyTorch's x86 kernels compute them; besides that only the input's quantize
  and the output's dequantize (and the layout reshapes around them) are
  float. On a CPU with AVX-512 VNNI, AVX2 or AArch64 SDOT, its
  convolutions and its Linear run as qfx-codegen's native int8 kernels (count
  in step 7), and the float models' convolutions and Linear as float kernels;
  pooling, adds, the other int8 ops and the reference model run as linalg
  loops compiled and vectorized by LLVM. PyTorch's float model is TorchScript,
  frozen and optimized for inference (oneDNN convolutions). Latencies are
  medians of interleaved rounds and vary on a busy machine.
EOF
