"""pytest set-up shared by qfx's Python tests."""

import os

# The sanitizer run (QFX_SANITIZE=1 utils/test.sh) starts the interpreter
# with the AddressSanitizer runtime preloaded, for the instrumented
# libQFXCAPI.so it loads. The runtime is loaded now; the instrumented tools
# the tests start (quant-run, quant-compile) link their own and refuse a
# second, so they must not inherit the preload; and they check leaks, which
# the interpreter does not.
os.environ.pop("LD_PRELOAD", None)
if "QFX_TOOLS_ASAN_OPTIONS" in os.environ:
    os.environ["ASAN_OPTIONS"] = os.environ.pop("QFX_TOOLS_ASAN_OPTIONS")
