#!/usr/bin/env bash
# Runs the fuzz targets (tools/fuzzers) for longer than the tests do, on the
# sanitizer build (AddressSanitizer + UndefinedBehaviorSanitizer, every qfx
# library instrumented for coverage), and prints each target's executions.
#
#   utils/fuzz.sh                 # every target, 10 minutes each
#   utils/fuzz.sh 3600 ir         # one target for an hour
#
# Corpora grow in build-sanitize/fuzz/<target>/corpus, starting from the
# committed seeds in test/Fuzz/Inputs/<target>; a crash leaves its input in
# build-sanitize/fuzz/<target>/ and ends that target with a non-zero status.
# Copy such an input into test/Fuzz/Inputs/<target>/ as crash-<what> (the
# tests then run it every time) and fix the bug.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=${1:-600}
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(npy config ir)
[[ $SECONDS_EACH =~ ^[1-9][0-9]*$ ]] ||
  { echo "fuzz.sh: the first argument is seconds per target, not '$SECONDS_EACH'" >&2; exit 2; }

export QFX_SANITIZE=1
BUILD=${QFX_BUILD_DIR:-$ROOT/build-sanitize}
QFX_BUILD_DIR="$BUILD" "$ROOT/utils/setup.sh" >&2
# As utils/test.sh sets them (allow_user_poisoning: see there).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0}
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

status=0
for target in "${TARGETS[@]}"; do
  fuzzer="$BUILD/bin/qfx-$target-fuzzer"
  seeds="$ROOT/test/Fuzz/Inputs/$target"
  [ -x "$fuzzer" ] && [ -d "$seeds" ] ||
    { echo "fuzz.sh: no fuzz target '$target' (expected npy, config or ir)" >&2; exit 2; }
  work="$BUILD/fuzz/$target"
  mkdir -p "$work/corpus"
  echo "== $target: $SECONDS_EACH s" >&2
  if "$fuzzer" "$work/corpus" "$seeds" -max_total_time="$SECONDS_EACH" \
    -artifact_prefix="$work/" -print_final_stats=1 >"$work/log" 2>&1; then
    result=ok
  else
    result="CRASH (input and report in $work/)"
    status=1
  fi
  runs=$(grep -o '^Done [0-9]* runs in [0-9]* second' "$work/log" | tail -1 || true)
  echo "$target: ${runs:-no summary} — $result; corpus $(ls "$work/corpus" | wc -l) inputs"
done
exit "$status"
