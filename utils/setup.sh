#!/usr/bin/env bash
# Installs what qfx needs on Debian 12 (only the packages that are missing),
# then configures and builds qfx and its tests. Safe to run again: it installs
# nothing that is there and rebuilds only what changed.
#
#   utils/setup.sh                # packages, then build into ./build
#   QFX_BUILD_DIR=/tmp/b utils/setup.sh
#   utils/setup.sh --fresh-check  # only the packages of utils/fresh-debian-test.sh
#   QFX_SANITIZE=1 utils/setup.sh # AddressSanitizer + UndefinedBehaviorSanitizer
#                                 # build, with fuzzing coverage, in ./build-sanitize
#   QFX_SANITIZE=thread utils/setup.sh  # ThreadSanitizer build in ./build-tsan
#
# Every package the build, the tests, the demo and the benchmarks use is named
# here: a fresh machine has nothing else. Packages are installed with
# --no-install-recommends, so a package that is only recommended by one named
# here must be named itself; utils/check-setup.py (run by the tests) fails when
# a named package recommends one that is neither named here nor listed in
# NOT_NEEDED with the reason. docs/BuildAndTest.md says what each one is for.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SANITIZE=${QFX_SANITIZE:-0}
if [ "$SANITIZE" = 1 ]; then
  BUILD=${QFX_BUILD_DIR:-$ROOT/build-sanitize}
  # Every qfx library and tool (Debian's libLLVM/libMLIR stay as they are):
  # LLVM's HandleLLVMOptions adds -fsanitize=address,undefined and, for the
  # fuzzers' guidance, -fsanitize=fuzzer-no-link.
  BUILD_FLAGS=(-DLLVM_USE_SANITIZER="Address;Undefined" -DLLVM_USE_SANITIZE_COVERAGE=ON)
elif [ "$SANITIZE" = thread ]; then
  BUILD=${QFX_BUILD_DIR:-$ROOT/build-tsan}
  # Every qfx library and tool, and the code the JIT compiles (lib/Runtime).
  BUILD_FLAGS=(-DLLVM_USE_SANITIZER=Thread)
elif [ "$SANITIZE" = 0 ]; then
  BUILD=${QFX_BUILD_DIR:-$ROOT/build}
  BUILD_FLAGS=()
else
  echo "setup.sh: QFX_SANITIZE must be 0, 1 or thread, not '$SANITIZE'" >&2
  exit 2
fi

PACKAGES=(
  # The build: CMake + Ninja, clang-22 and lld, Debian's LLVM/MLIR 22
  # (libMLIR.so, mlir-tblgen, FileCheck and lit), clang-format-22 for the
  # format test and the generated-docs check.
  cmake ninja-build
  clang-22 lld-22 clang-format-22
  llvm-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # The OpenMP runtime of qfx-codegen's parallel kernels (and its
  # ThreadSanitizer support, libarcher.so, for QFX_SANITIZE=thread).
  libomp-dev
  libgtest-dev  # test/Unit
  # libFuzzer and the sanitizer runtimes: tools/fuzzers, QFX_SANITIZE=1
  # and thread.
  libclang-rt-22-dev
  libbenchmark-dev  # bench/ (Google Benchmark)
  libdnnl-dev  # oneDNN, the speed peer of utils/bench/*_vs_peers.py
  # AArch64 kernels are cross-compiled and tested under qemu user mode.
  # gcc-aarch64-linux-gnu only recommends the target's C headers and static
  # libc (libc6-dev-arm64-cross); without them the test drivers do not compile.
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  valgrind  # test/Transforms/qfx-fuse-memcheck.test
  python3 python3-numpy python3-pytest
  # test/Examples/python-install.test: pip installs the package from python/
  # (offline, with Debian's setuptools as the build backend).
  python3-pip python3-setuptools
  # The PyTorch oracle: the exporter, parity tests, demo and benchmarks run it.
  python3-torch
  # The BLAS python3-torch recommends (libopenblas0; the OpenMP build, so that
  # torch.set_num_threads sizes it): without it Debian's reference BLAS runs
  # PyTorch's float matmuls and 1x1 convolutions about 5x slower (resnet50's
  # calibration sample: 817 ms, 228 ms with OpenBLAS), and the benchmarks'
  # PyTorch peers would not be what a default install runs.
  libopenblas0-openmp
  # torchvision's architectures (built with weights=None): the real models of
  # utils/bench and of the resnet18 calibration-memory measurement.
  python3-torchvision
  python3-sklearn  # the digits of the bundled example (docs/example/digits)
  # Fashion-MNIST (60,000 training and 10,000 test images, 28x28, 10 classes):
  # the real data of the accuracy benchmark (utils/bench/accuracy.py), its
  # training script and the demo.
  dataset-fashion-mnist
)

# Only for utils/fresh-debian-test.sh, which builds a minimal Debian 12 in a
# folder to run the tests where nothing but these packages is installed.
FRESH_CHECK_PACKAGES=(debootstrap debian-archive-keyring)

# What packages named above recommend and qfx does not use (checked by
# utils/check-setup.py), as "package: reason" lines.
NOT_NEEDED=(
  "gcc: cmake's default C compiler; qfx builds with clang-22"
  "make: cmake's default generator; qfx builds with Ninja"
  "clang-tools-22: clang-tidy and friends; no test or script runs them"
  "ocl-icd-opencl-dev: oneDNN's OpenCL engine; the benchmarks use its CPU engine"
  "qemu-user-binfmt: runs foreign binaries without naming qemu; the tests call qemu-aarch64"
  "python3-pygments: pytest's coloured tracebacks"
  "libtorch-dev: PyTorch's C++ headers; nothing builds against libtorch"
  "build-essential: PyTorch's C++ extension builder; no test builds one"
  "pybind11-dev: PyTorch's C++ extension builder's bindings; no test builds one"
  "python3-nose: sklearn's own tests"
  "python3-matplotlib: sklearn's plotting"
  "gdb: valgrind's --vgdb link to a debugger; the memcheck test debugs nothing"
  "valgrind-dbg: valgrind's own debug symbols"
  "gnupg: debootstrap checks signatures with gpgv, which apt depends on"
  "python3-av: torchvision's video reading; only its model architectures are used"
  "arch-test: debootstrap's check of foreign architectures; the check builds the host's"
  "python3-dev: pip's builds of C extensions; qfx's package is pure Python"
)

install_missing() {
  local pkg missing=()
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  ((${#missing[@]})) || return 0
  echo "qfx setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

case "${1:-}" in
  "") ;;
  --fresh-check) install_missing "${FRESH_CHECK_PACKAGES[@]}"; exit 0 ;;
  *) echo "setup.sh: unknown option '$1' (expected none or --fresh-check)" >&2; exit 2 ;;
esac

install_missing "${PACKAGES[@]}"

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3 "${BUILD_FLAGS[@]}"
fi
# Everything the test suites run: quant-opt, the GoogleTest binaries and the
# generated docs the docs test compares against.
ninja -C "$BUILD" qfx-test-depends
