"""qfx: PyTorch's graph-mode post-training quantization, compiled with MLIR.

The package calls qfx's library in-process through its C API (qfx._capi,
libQFXCAPI.so, loaded with ctypes). Its configuration API (qfx.config,
re-exported here) mirrors torch.ao.quantization and writes the JSON the
passes read; prepare_fx / convert_fx take a PyTorch model to an int8 TOSA
program, which the quantized model runs compiled in this process (or, after
save / load, as a shared library compiled ahead of time); see
docs/python.md. `quant_opt` and `find_tool` run the command-line tools.
"""

from typing import Any, List

from qfx.tools import ToolError, find_tool, quant_opt
from qfx.exporter import ExportError, export_tosa
from qfx._host import GraphBreakError, HostCall
from qfx.quantize_fx import (FloatOp, FloatOpWarning, LayerTime, PreparedModel, Profile,
                             QuantizedModel, RecompileWarning, ReferenceModel, convert_fx,
                             convert_to_reference_fx, fuse_fx, get_default_qat_qconfig_mapping,
                             load, prepare_fx, prepare_qat_fx, quantize_dynamic)
from qfx.auto_quantize import AutoQuantizeResult, Decision, auto_quantize
from qfx import config
from qfx._compiled import get_num_threads, set_num_threads
from qfx.config import *  # noqa: F401,F403 - the torch.ao.quantization-style names
from qfx.config import OBSERVER_PRESETS as _OBSERVER_PRESETS
from qfx.config import QCONFIG_PRESET_NAMES as _QCONFIG_PRESET_NAMES
from qfx.config import __all__ as _config_all

__all__ = ["ToolError", "find_tool", "quant_opt", "ExportError", "export_tosa",
           "GraphBreakError", "HostCall",
           "fuse_fx", "prepare_fx", "prepare_qat_fx", "get_default_qat_qconfig_mapping", "convert_fx",
           "convert_to_reference_fx",
           "quantize_dynamic", "load", "PreparedModel", "QuantizedModel", "ReferenceModel", "FloatOp",
           "FloatOpWarning", "RecompileWarning", "Profile", "LayerTime", "auto_quantize", "AutoQuantizeResult",
           "Decision", "config", "set_num_threads", "get_num_threads"] + list(_config_all)


def __getattr__(name: str) -> Any:
    # qfx.default_qconfig and the other QConfig and observer presets, read on
    # first use.
    if name in _QCONFIG_PRESET_NAMES or name in _OBSERVER_PRESETS or name == "TORCH_TO_TOSA":
        return getattr(config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_QCONFIG_PRESET_NAMES) | set(_OBSERVER_PRESETS))
