"""pytest set-up shared by qfx's Python tests."""

import os

import pytest

# The sanitizer run (QFX_SANITIZE=1 utils/test.sh) starts the interpreter
# with the AddressSanitizer runtime preloaded, for the instrumented
# libQFXCAPI.so it loads. The runtime is loaded now; the instrumented tools
# the tests start (quant-run, quant-compile) link their own and refuse a
# second, so they must not inherit the preload; and they check leaks, which
# the interpreter does not. A script a test starts that runs the
# interpreter on the C API (utils/demo.sh) finds the interpreter's preload
# and options in QFX_PYTHON_LD_PRELOAD and QFX_PYTHON_ASAN_OPTIONS.
preload = os.environ.pop("LD_PRELOAD", None)
if preload:
    os.environ["QFX_PYTHON_LD_PRELOAD"] = preload
    os.environ["QFX_PYTHON_ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "")
if "QFX_TOOLS_ASAN_OPTIONS" in os.environ:
    os.environ["ASAN_OPTIONS"] = os.environ.pop("QFX_TOOLS_ASAN_OPTIONS")

# The reference is PyTorch 1.13's kernels as they run without AMX: on a CPU
# with AMX (Sapphire Rapids), Debian's PyTorch 1.13 lets oneDNN pick its AMX
# kernels, which abort in a quantized convolution of the torchvision tests and
# round an int8 Linear's near-tie outputs another way (1 of 400,000 outputs
# one step off in test_requantization_matches_pytorch_near_ties). oneDNN
# reads this before its first kernel; the scripts the tests start inherit it.
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_VNNI")

# The plain run of utils/test.sh tests an installed copy (QFX_TEST_INSTALLED:
# cmake --install'ed qfx in prefix/, the pip-installed package in site/):
# the package, the C API and the tools must come from there.
if "QFX_TEST_INSTALLED" in os.environ:
    import pathlib

    import qfx
    from qfx import _capi

    installed = pathlib.Path(os.environ["QFX_TEST_INSTALLED"]).resolve()
    for what, path in (("the qfx package", qfx.__file__),
                       ("quant-run", qfx.find_tool("quant-run")),
                       ("the C API", _capi._Session.get()[0]._name)):
        if not pathlib.Path(path).resolve().is_relative_to(installed):
            raise RuntimeError(f"{what} is {path}, not the installed copy in {installed}")


def _engine(name):
    """A fixture running its test on PyTorch's quantized engine `name`,
    restoring the engine after."""
    @pytest.fixture
    def fixture():
        import torch
        saved = torch.backends.quantized.engine
        torch.backends.quantized.engine = name
        yield
        torch.backends.quantized.engine = saved
    return fixture


@pytest.fixture
def python_env():
    """The environment for a Python interpreter a test starts on qfx: this
    checkout's package first on its path and, in the sanitizer run, the
    interpreter's preload and options back (see above)."""
    import pathlib

    import qfx
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(qfx.__file__).parents[1]))
    if "QFX_PYTHON_LD_PRELOAD" in env:
        env["LD_PRELOAD"] = env["QFX_PYTHON_LD_PRELOAD"]
        env["ASAN_OPTIONS"] = env["QFX_PYTHON_ASAN_OPTIONS"]
    return env


onednn = _engine("onednn")
qnnpack = _engine("qnnpack")
