"""QConfig and its presets (torch.ao.quantization.qconfig)."""

from __future__ import annotations

import json
from collections import namedtuple
from typing import Any, Dict, List, Optional, Tuple

from qfx.config import _golden
from qfx.config._types import check_keys, join_path
from qfx.config.observer import ObserverLike, ObserverSpec, as_observer_spec

# The named QConfigs of torch/ao/quantization/qconfig.py that qfx has: those
# made of observers (docs/Config.md). Their contents come from the golden data.
QCONFIG_PRESET_NAMES: Tuple[str, ...] = (
    "default_qconfig",
    "default_per_channel_qconfig",
    "default_dynamic_qconfig",
    "float16_dynamic_qconfig",
    "float16_static_qconfig",
    "per_channel_dynamic_qconfig",
    "float_qparams_weight_only_qconfig",
    "float_qparams_weight_only_qconfig_4bit",
    "default_reuse_input_qconfig",
    "default_symmetric_qnnpack_qconfig",
    "default_per_channel_symmetric_qnnpack_qconfig",
)

DEFAULT_QCONFIG_BACKENDS: Tuple[str, ...] = ("x86", "fbgemm", "qnnpack", "onednn")

# The named observers of torch/ao/quantization/observer.py, by where PyTorch
# uses them: (QConfig preset, field), or (object type of the default x86
# mapping, field) for the fixed-qparams observers. default_histogram_observer
# appears in no preset and is left out.
OBSERVER_PRESETS: Dict[str, Tuple[str, str]] = {
    "default_observer": ("default_qconfig", "activation"),
    "default_weight_observer": ("default_qconfig", "weight"),
    "default_per_channel_weight_observer": ("default_per_channel_qconfig", "weight"),
    "default_placeholder_observer": ("float_qparams_weight_only_qconfig", "activation"),
    "default_dynamic_quant_observer": ("default_dynamic_qconfig", "activation"),
    "default_float_qparams_observer": ("float_qparams_weight_only_qconfig", "weight"),
    "default_float_qparams_observer_4bit": ("float_qparams_weight_only_qconfig_4bit", "weight"),
    "weight_observer_range_neg_127_to_127": ("default_symmetric_qnnpack_qconfig", "weight"),
    "per_channel_weight_observer_range_neg_127_to_127": (
        "default_per_channel_symmetric_qnnpack_qconfig", "weight"),
    "default_reuse_input_observer": ("default_reuse_input_qconfig", "activation"),
    "default_fixed_qparams_range_0to1_observer": ("torch.nn.Sigmoid", "activation"),
    "default_fixed_qparams_range_neg1to1_observer": ("torch.nn.Tanh", "activation"),
    "default_affine_fixed_qparams_observer": ("torch.nn.Sigmoid", "activation"),
    "default_symmetric_fixed_qparams_observer": ("torch.nn.Tanh", "activation"),
}


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """How to observe an op's activations and weight, as torch's QConfig:
    ``QConfig(activation=MinMaxObserver.with_args(dtype=qint8), weight=...)``.

    Both fields are stored as ObserverSpecs (an observer class means the
    class with no arguments)."""

    activation: ObserverSpec
    weight: ObserverSpec

    def __new__(cls, activation: ObserverLike, weight: ObserverLike) -> "QConfig":
        return super().__new__(cls, as_observer_spec(activation, "activation"),
                               as_observer_spec(weight, "weight"))

    def to_dict(self) -> Dict[str, Any]:
        return {"activation": self.activation.to_dict(), "weight": self.weight.to_dict()}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, **kwargs)

    @classmethod
    def from_dict(cls, d: Any, field: str = "") -> "QConfig":
        """A QConfig from its dict or a preset name, as quant-opt reads it."""
        if isinstance(d, str):
            if d not in QCONFIG_PRESET_NAMES:
                raise ValueError(f"{field or 'qconfig'}: unknown qconfig preset {d!r}; expected "
                                 f"one of {', '.join(QCONFIG_PRESET_NAMES)}")
            return get_qconfig_preset(d)
        check_keys(d, ("activation", "weight"), field or "qconfig",
                   'a qconfig {"activation": OBSERVER, "weight": OBSERVER}')
        specs = []
        for key in ("activation", "weight"):
            if key not in d:
                raise ValueError(f"{field or 'qconfig'}: missing key {key!r} in a qconfig")
            specs.append(ObserverSpec.from_dict(d[key], join_path(field, key)))
        return cls(*specs)


def qconfig_to_dict(qconfig: Optional[QConfig]) -> Optional[Dict[str, Any]]:
    return None if qconfig is None else qconfig.to_dict()


def qconfig_from_dict(d: Any, field: str) -> Optional[QConfig]:
    return None if d is None else QConfig.from_dict(d, field)


def as_qconfig(value: Any, field: str) -> Optional[QConfig]:
    """A QConfig (or None) from ours, a torch QConfig, or a preset name."""
    if value is None or isinstance(value, QConfig):
        return value
    if isinstance(value, str):
        return QConfig.from_dict(value, field)
    from qfx.config._torch import is_torch_qconfig, qconfig_from_torch

    if is_torch_qconfig(value):
        return qconfig_from_torch(value, field)
    raise TypeError(f"{field}: expected a QConfig or None, got {type(value).__name__} {value!r}")


def get_qconfig_preset(name: str) -> QConfig:
    """The QConfig PyTorch names `name` (e.g. "default_per_channel_qconfig")."""
    if name not in QCONFIG_PRESET_NAMES:
        raise ValueError(f"unknown qconfig preset {name!r}; expected one of "
                         f"{', '.join(QCONFIG_PRESET_NAMES)}")
    return QConfig.from_dict(_golden.load("qconfig_presets.json")["presets"][name], name)


def get_observer_preset(name: str) -> ObserverSpec:
    """The observer PyTorch names `name` (e.g. "default_weight_observer")."""
    if name not in OBSERVER_PRESETS:
        raise ValueError(f"unknown observer preset {name!r}; expected one of "
                         f"{', '.join(OBSERVER_PRESETS)}")
    source, field = OBSERVER_PRESETS[name]
    if source in QCONFIG_PRESET_NAMES:
        return getattr(get_qconfig_preset(source), field)
    entries = dict(_golden.load("qconfig_mappings.json")["x86"]["object_type"])
    return getattr(QConfig.from_dict(entries[source], name), field)


def get_default_qconfig(backend: str = "x86", version: int = 0) -> QConfig:
    """torch's get_default_qconfig(backend): the post-training default QConfig."""
    if backend not in DEFAULT_QCONFIG_BACKENDS:
        raise ValueError(f"backend: unknown backend {backend!r}; expected one of "
                         f"{', '.join(DEFAULT_QCONFIG_BACKENDS)}")
    if version != 0:
        raise ValueError(f"version: qfx has PyTorch 1.13's version 0 only, got {version!r}")
    data = _golden.load("qconfig_presets.json")["get_default_qconfig"][backend]
    return QConfig.from_dict(data, f"get_default_qconfig({backend!r})")


def __getattr__(name: str) -> Any:
    # The presets are module attributes, as in torch.ao.quantization.qconfig,
    # read on first use.
    if name in QCONFIG_PRESET_NAMES:
        return get_qconfig_preset(name)
    if name in OBSERVER_PRESETS:
        return get_observer_preset(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(list(globals()) + list(QCONFIG_PRESET_NAMES) + list(OBSERVER_PRESETS))
