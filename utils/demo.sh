#!/usr/bin/env bash
# The main job: sets up and builds qfx, then runs quant-opt over the bundled
# example model (docs/example/mlp.mlir), validates it as float TOSA and prints
# its IR. Later stages (quantize, calibrate, compile, run) join here as they
# land.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${QFX_BUILD_DIR:-$ROOT/build}
"$ROOT/utils/setup.sh" >&2

echo "== quant-opt docs/example/mlp.mlir (validated as float TOSA) ==" >&2
"$BUILD/bin/quant-opt" "$ROOT/docs/example/mlp.mlir" \
  --tosa-attach-target="profiles=pro_fp" --tosa-validate
