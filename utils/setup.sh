#!/usr/bin/env bash
# Installs what qfx needs on Debian 12 (only the packages that are missing),
# then configures and builds qfx and its tests. Safe to run again: it installs
# nothing that is there and rebuilds only what changed.
#
#   utils/setup.sh             # build into ./build
#   QFX_BUILD_DIR=/tmp/b utils/setup.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${QFX_BUILD_DIR:-$ROOT/build}

PACKAGES=(
  cmake ninja-build
  clang-22 lld-22 clang-format-22
  llvm-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libomp-dev  # the OpenMP runtime of qfx-codegen's parallel kernels
  libgtest-dev libbenchmark-dev
  libdnnl-dev  # oneDNN, the speed peer of utils/bench/gemm_vs_peers.py
  # AArch64 kernels are cross-compiled and tested under qemu user mode.
  qemu-user gcc-aarch64-linux-gnu libc6-arm64-cross
  python3 python3-numpy python3-pytest
  # The PyTorch oracle: the exporter and parity tests run against it.
  python3-torch
  python3-sklearn  # the digits of the bundled example (docs/example/digits)
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "qfx setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
# Everything the test suites run: quant-opt, the GoogleTest binaries and the
# generated docs the docs test compares against.
ninja -C "$BUILD" qfx-test-depends
