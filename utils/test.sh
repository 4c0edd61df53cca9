#!/usr/bin/env bash
# Runs every qfx test suite: lit (regression tests, the GoogleTest binaries,
# the docs and format checks, the fuzz targets on their corpora for a few
# seconds each) and pytest (python/). Sets up and builds first. Ends with one
# line "N passed, N failed" and exits non-zero on any failure.
#
# QFX_SANITIZE=1 runs the same suites on the AddressSanitizer +
# UndefinedBehaviorSanitizer build (./build-sanitize) instead: any report
# fails the test that caused it. QFX_SANITIZE=both runs the plain build's
# suites, then the sanitizer build's, and sums them in the one line (CI).
# QFX_SANITIZE=thread runs them on the ThreadSanitizer build (./build-tsan).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "${QFX_SANITIZE:-0}" in
  0) MODES=(0) ;;
  1) MODES=(1) ;;
  both) MODES=(0 1) ;;
  thread) MODES=(thread) ;;
  *) echo "test.sh: QFX_SANITIZE must be 0, 1, both or thread, not '$QFX_SANITIZE'" >&2
     echo "0 passed, 1 failed"; exit 2 ;;
esac
((${#MODES[@]} == 1)) || [ -z "${QFX_BUILD_DIR:-}" ] ||
  { echo "test.sh: QFX_BUILD_DIR names one build; QFX_SANITIZE=both needs two" >&2
    echo "0 passed, 1 failed"; exit 2; }

summary=()
for mode in "${MODES[@]}"; do
  if [ "$mode" = 1 ]; then
    BUILD=${QFX_BUILD_DIR:-$ROOT/build-sanitize} suffix=" (sanitizers)"
  elif [ "$mode" = thread ]; then
    BUILD=${QFX_BUILD_DIR:-$ROOT/build-tsan} suffix=" (ThreadSanitizer)"
  else
    BUILD=${QFX_BUILD_DIR:-$ROOT/build} suffix=""
  fi
  RESULTS="$BUILD/test-results"
  rm -rf "$RESULTS"
  mkdir -p "$RESULTS"
  (
    export QFX_SANITIZE=$mode
    if [ "$mode" = 1 ]; then
      # Reports name file and line (llvm-symbolizer); the build already makes
      # every UBSan report fatal (-fno-sanitize-recover=all), as ASan's are.
      # allow_user_poisoning=0: LLVM's BumpPtrAllocator, inlined into our
      # instrumented code, poisons its slabs, and Debian's uninstrumented
      # libMLIR.so then allocates from them without unpoisoning: every MLIR
      # parse would be reported as a use-after-poison that is none.
      export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0}
      export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
      export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
    elif [ "$mode" = thread ]; then
      # Any report fails its test (TSan's exit code 66). Calls into TSan
      # from the uninstrumented libraries (libLLVM, libMLIR, libomp) are
      # not checked; the suppressions are explained in their file. libomp's
      # TSan tool, libarcher, tells TSan how the kernels' OpenMP regions
      # synchronize.
      export TSAN_OPTIONS=${TSAN_OPTIONS:-ignore_noninstrumented_modules=1:suppressions=$ROOT/utils/tsan-suppressions.txt}
      export OMP_TOOL_LIBRARIES
      OMP_TOOL_LIBRARIES=$(dirname "$(readlink -f /usr/lib/x86_64-linux-gnu/libomp.so.5)")/libarcher.so
    fi
    if ! QFX_BUILD_DIR="$BUILD" "$ROOT/utils/setup.sh"; then
      touch "$RESULTS/setup-failed"
      exit 0
    fi
    /usr/lib/llvm-22/bin/lit -sv "$BUILD/test" --xunit-xml-output "$RESULTS/lit.xml"
    echo $? >"$RESULTS/lit.status"
    PYTEST_ENV=()
    if [ "$mode" = thread ]; then
      PYTEST_ENV=(LD_PRELOAD="$(clang-22 -print-file-name=libclang_rt.tsan-x86_64.so)")
    elif [ "$mode" = 1 ]; then
      # Python loads the instrumented libQFXCAPI.so: the sanitizer runtime
      # must come first in the uninstrumented interpreter. Leaks are not
      # checked in the interpreter (its own would be reported);
      # python/tests/conftest.py gives the tools it starts the usual options
      # back, and drops the preload they must not inherit.
      PYTEST_ENV=(LD_PRELOAD="$(clang-22 -print-file-name=libclang_rt.asan-x86_64.so)"
                  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
                  QFX_TOOLS_ASAN_OPTIONS="$ASAN_OPTIONS")
    fi
    PYTEST_ARGS=("$ROOT/python" -q -p no:cacheprovider --junitxml "$RESULTS/pytest.xml")
    if [ "$mode" != 0 ]; then
      env "${PYTEST_ENV[@]}" QFX_BUILD_DIR="$BUILD" /usr/bin/python3 -m pytest "${PYTEST_ARGS[@]}"
    else
      # The plain build's Python tests run against an installed copy, outside
      # the source tree: qfx installed with cmake --install, the package
      # with pip, only the installed tools on PATH and no python/ on
      # sys.path (conftest.py checks that the tests use the installed copy).
      # The sanitizer run tests the source tree's.
      INSTALLED="$BUILD/installed"
      rm -rf "$INSTALLED" && mkdir -p "$INSTALLED"
      if cmake --install "$BUILD" --prefix "$INSTALLED/prefix" >"$INSTALLED/install.log" &&
         cp -rL "$ROOT/python" "$INSTALLED/python-src" &&
         /usr/bin/python3 -m pip install --no-build-isolation --no-deps --no-index \
           --target "$INSTALLED/site" "$INSTALLED/python-src" >"$INSTALLED/pip.log" 2>&1; then
        env -u QFX_BUILD_DIR PATH="$INSTALLED/prefix/bin:$PATH" PYTHONPATH="$INSTALLED/site" \
          QFX_TEST_INSTALLED="$INSTALLED" \
          /usr/bin/python3 -m pytest -o pythonpath= "${PYTEST_ARGS[@]}"
      else
        echo "test.sh: installing qfx into $INSTALLED failed (see its logs)" >&2
        false
      fi
    fi
    echo $? >"$RESULTS/pytest.status"
  )
  if [ -f "$RESULTS/setup-failed" ]; then
    summary+=(--runner "setup$suffix" 1 "$RESULTS/none.xml")
    continue
  fi
  for runner in lit pytest; do
    summary+=(--runner "$runner$suffix" "$(cat "$RESULTS/$runner.status" 2>/dev/null || echo 1)"
              "$RESULTS/$runner.xml")
  done
done
/usr/bin/python3 "$ROOT/utils/summarize-tests.py" "${summary[@]}"
