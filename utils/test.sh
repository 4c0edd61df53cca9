#!/usr/bin/env bash
# Runs every qfx test suite: lit (regression tests, the GoogleTest binaries,
# the docs and format checks) and pytest (python/). Sets up and builds first.
# Ends with one line "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${QFX_BUILD_DIR:-$ROOT/build}
"$ROOT/utils/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }

RESULTS="$BUILD/test-results"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

/usr/lib/llvm-22/bin/lit -sv "$BUILD/test" --xunit-xml-output "$RESULTS/lit.xml"
lit_status=$?

QFX_BUILD_DIR="$BUILD" /usr/bin/python3 -m pytest "$ROOT/python" -q \
  -p no:cacheprovider --junitxml "$RESULTS/pytest.xml"
pytest_status=$?

/usr/bin/python3 "$ROOT/utils/summarize-tests.py" \
  --runner lit "$lit_status" "$RESULTS/lit.xml" \
  --runner pytest "$pytest_status" "$RESULTS/pytest.xml"
