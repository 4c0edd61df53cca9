#!/usr/bin/env bash
# Differential testing of qfx against PyTorch on generated models
# (utils/difffuzz.py): runs new seeds for SECONDS (default 600) on the plain
# build, shrinks each finding and writes it to ./difffuzz-findings/.
# Extra arguments go to `difffuzz.py run` (--seed N, --count N, --out DIR).
# Exits non-zero if anything was found.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_TO_RUN=${1:-600}
shift || true
export QFX_BUILD_DIR=${QFX_BUILD_DIR:-$ROOT/build}
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
[ -x "$QFX_BUILD_DIR/bin/quant-opt" ] || { echo "difffuzz.sh: build qfx first (./utils/test.sh or ninja -C $QFX_BUILD_DIR)" >&2; exit 2; }
exec /usr/bin/python3 "$ROOT/utils/difffuzz.py" run --seconds "$SECONDS_TO_RUN" "$@"
