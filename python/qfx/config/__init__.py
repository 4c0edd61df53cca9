"""qfx's configuration API, with torch.ao.quantization's names.

Everything here builds the JSON documents that quant-opt reads
(docs/Config.md): `QConfigMapping.to_dict()` / `to_json()` / `save()` for the
qconfig-mapping option, `BackendConfig.to_dict()` / ... for the backend
option. `from_torch` converts PyTorch's own objects. See docs/python.md.

Dtypes and qschemes are strings ("qint8", "per_tensor_symmetric"); the
constants below (`qfx.quint8`, ...) are those strings, and torch.dtype /
torch.qscheme objects are accepted wherever a dtype or qscheme is.
"""

from typing import Any, List

from qfx.config._torch import from_torch
from qfx.config._types import DTYPES, QSCHEMES
from qfx.config.backend_config import (
    BACKEND_CONFIG_NAMES,
    BackendConfig,
    BackendPatternConfig,
    DTypeConfig,
    DTypeWithConstraints,
    ObservationType,
    TorchToTOSAPattern,
    get_backend_config,
    get_fbgemm_backend_config,
    get_native_backend_config,
    get_onednn_backend_config,
    get_qnnpack_backend_config,
    get_tosa_backend_config,
    get_x86_backend_config,
    torch_to_tosa,
)
from qfx.config.observer import (
    FixedQParamsObserver,
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    NoopObserver,
    ObserverBase,
    ObserverSpec,
    PerChannelMinMaxObserver,
    PlaceholderObserver,
    ReuseInputObserver,
)
from qfx.config.qconfig import (
    OBSERVER_PRESETS,
    QCONFIG_PRESET_NAMES,
    QConfig,
    get_default_qconfig,
    get_observer_preset,
    get_qconfig_preset,
)
from qfx.config.qconfig_mapping import QConfigMapping, get_default_qconfig_mapping

quint8 = "quint8"
qint8 = "qint8"
qint32 = "qint32"
quint4x2 = "quint4x2"
float16 = "float16"
float32 = "float32"
per_tensor_affine = "per_tensor_affine"
per_tensor_symmetric = "per_tensor_symmetric"
per_channel_affine = "per_channel_affine"
per_channel_symmetric = "per_channel_symmetric"
per_channel_affine_float_qparams = "per_channel_affine_float_qparams"

__all__ = [
    "BACKEND_CONFIG_NAMES", "BackendConfig", "BackendPatternConfig", "DTYPES", "DTypeConfig",
    "DTypeWithConstraints", "FixedQParamsObserver", "HistogramObserver", "MinMaxObserver",
    "MovingAverageMinMaxObserver", "MovingAveragePerChannelMinMaxObserver", "NoopObserver",
    "OBSERVER_PRESETS", "ObservationType", "ObserverBase", "ObserverSpec", "PerChannelMinMaxObserver",
    "PlaceholderObserver", "QCONFIG_PRESET_NAMES", "QConfig", "QConfigMapping", "QSCHEMES",
    "ReuseInputObserver", "TorchToTOSAPattern", "from_torch",
    "get_backend_config", "get_default_qconfig", "get_default_qconfig_mapping",
    "get_fbgemm_backend_config", "get_native_backend_config", "get_onednn_backend_config",
    "get_observer_preset", "get_qconfig_preset", "get_qnnpack_backend_config", "get_tosa_backend_config",
    "get_x86_backend_config", "torch_to_tosa", "quint8", "qint8", "qint32", "quint4x2", "float16", "float32",
    "per_tensor_affine", "per_tensor_symmetric", "per_channel_affine", "per_channel_symmetric",
    "per_channel_affine_float_qparams",
]  # The QConfig and observer presets are module attributes too, read on first use.


def __getattr__(name: str) -> Any:
    # default_qconfig, default_weight_observer and the other presets, read
    # from the golden data on first use.
    if name in QCONFIG_PRESET_NAMES:
        return get_qconfig_preset(name)
    if name in OBSERVER_PRESETS:
        return get_observer_preset(name)
    if name == "TORCH_TO_TOSA":  # torch_to_tosa(), read from the library
        return torch_to_tosa()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(QCONFIG_PRESET_NAMES) | set(OBSERVER_PRESETS))
