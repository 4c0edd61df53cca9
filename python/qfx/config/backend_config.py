"""BackendConfig and friends (torch.ao.quantization.backend_config), over
the TOSA op names the exporter emits.

The built-in tables are not written out here. x86, fbgemm, qnnpack and onednn
are PyTorch 1.13's own tables, read from the golden data PyTorch wrote
(test/Unit/Config/golden/backend_configs.json), translated to TOSA patterns by
the torch → TOSA correspondence below, which `from_torch` uses as well; only
the `tosa` table, which PyTorch does not have, lists its dtype configs. The
tests compare every table with the one lib/Config builds.
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from qfx.config._types import (
    DTYPE_RANGES,
    QUANTIZED_DTYPES,
    check_bool,
    check_int,
    check_keys,
    check_number,
    check_str,
    dtype_name,
    join_path,
)
from qfx.config.observer import ObserverLike, ObserverSpec, as_observer_spec

MAX_PATTERN_LENGTH = 3


class ObservationType(enum.Enum):
    """How a pattern's output is observed (torch's ObservationType)."""

    OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT = "output_use_different_observer_as_input"
    OUTPUT_SHARE_OBSERVER_WITH_INPUT = "output_share_observer_with_input"

    @classmethod
    def parse(cls, value: Any, field: str) -> "ObservationType":
        if isinstance(value, ObservationType):
            return value
        if type(value).__name__ == "ObservationType" and hasattr(value, "name"):
            return cls[value.name]  # torch's enum
        if isinstance(value, str):
            for member in cls:
                if value in (member.value, member.name):
                    return member
        raise ValueError(f"{field}: unknown observation type {value!r}; expected "
                         "output_use_different_observer_as_input or "
                         "output_share_observer_with_input")


@dataclass(frozen=True)
class DTypeWithConstraints:
    """A dtype and the range and scale bounds a QConfig must meet for it."""

    dtype: Optional[str] = None
    quant_min_lower_bound: Optional[int] = None
    quant_max_upper_bound: Optional[int] = None
    scale_min_lower_bound: Optional[float] = None
    scale_max_upper_bound: Optional[float] = None

    def __post_init__(self) -> None:
        self.validate("dtype_with_constraints")

    def validate(self, field: str) -> None:
        if self.dtype is None:
            raise ValueError(f"{field}: missing dtype")
        object.__setattr__(self, "dtype", dtype_name(self.dtype, join_path(field, "dtype")))
        for key in ("quant_min_lower_bound", "quant_max_upper_bound"):
            value = getattr(self, key)
            if value is not None:
                check_int(value, join_path(field, key))
        for key in ("scale_min_lower_bound", "scale_max_upper_bound"):
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, check_number(value, join_path(field, key)))
        if self.dtype not in QUANTIZED_DTYPES:
            if not self.is_unconstrained():
                raise ValueError(f"{field}: {self.dtype} takes no quantization range or "
                                 "scale bounds")
            return
        lo, hi = DTYPE_RANGES[self.dtype]
        for key in ("quant_min_lower_bound", "quant_max_upper_bound"):
            value = getattr(self, key)
            if value is not None and not lo <= value <= hi:
                raise ValueError(f"{join_path(field, key)}: {value} is outside {self.dtype}'s "
                                 f"range [{lo}, {hi}]")
        qmin, qmax = self.quant_min_lower_bound, self.quant_max_upper_bound
        if qmin is not None and qmax is not None and qmin >= qmax:
            raise ValueError(f"{field}: expected quant_min_lower_bound < quant_max_upper_bound, "
                             f"got {qmin} and {qmax}")
        for key in ("scale_min_lower_bound", "scale_max_upper_bound"):
            value = getattr(self, key)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{join_path(field, key)}: expected {key} > 0, got {value:g}")
        smin, smax = self.scale_min_lower_bound, self.scale_max_upper_bound
        if smin is not None and smax is not None and smin > smax:
            raise ValueError(f"{field}: expected scale_min_lower_bound <= scale_max_upper_bound, "
                             f"got {smin:g} and {smax:g}")

    def is_unconstrained(self) -> bool:
        return all(getattr(self, k) is None for k in _BOUNDS)

    def to_dict(self) -> Union[str, Dict[str, Any]]:
        """The dtype's name, or {"dtype": ..., bounds...} when constrained."""
        if self.is_unconstrained():
            return self.dtype
        result: Dict[str, Any] = {"dtype": self.dtype}
        for key in _BOUNDS:
            if getattr(self, key) is not None:
                result[key] = getattr(self, key)
        return result

    @classmethod
    def from_dict(cls, d: Any, field: str) -> "DTypeWithConstraints":
        if isinstance(d, DTypeWithConstraints):
            return d
        if not isinstance(d, dict):
            return _make_dtype_with_constraints(field, dtype=dtype_name(d, field))
        check_keys(d, ("dtype",) + _BOUNDS, field, "a dtype with constraints")
        if "dtype" not in d:
            raise ValueError(f"{field}: missing key \"dtype\" in a dtype with constraints")
        return _make_dtype_with_constraints(field, **d)


_BOUNDS: Tuple[str, ...] = ("quant_min_lower_bound", "quant_max_upper_bound",
                            "scale_min_lower_bound", "scale_max_upper_bound")


def _make_dtype_with_constraints(field: str, **kwargs: Any) -> DTypeWithConstraints:
    # Builds without __post_init__'s generic field name, then validates under `field`.
    d = object.__new__(DTypeWithConstraints)
    for key in ("dtype",) + _BOUNDS:
        object.__setattr__(d, key, kwargs.get(key))
    d.validate(field)
    return d


DTypeLike = Union[str, DTypeWithConstraints, Any]

_DTYPE_CONFIG_KEYS: Tuple[str, ...] = ("input_dtype", "output_dtype", "weight_dtype",
                                       "bias_dtype", "is_dynamic")


class DTypeConfig:
    """The dtypes a pattern supports (torch's DTypeConfig): input, output and
    weight dtypes, each optionally with constraints; bias dtype; is_dynamic.
    Only the fields given are checked."""

    def __init__(self, input_dtype: Optional[DTypeLike] = None,
                 output_dtype: Optional[DTypeLike] = None,
                 weight_dtype: Optional[DTypeLike] = None,
                 bias_dtype: Optional[Any] = None,
                 is_dynamic: Optional[bool] = None, *, _field: str = "dtype_config"):
        self.input_dtype_with_constraints = _optional_constraints(input_dtype,
                                                                  join_path(_field, "input_dtype"))
        self.output_dtype_with_constraints = _optional_constraints(
            output_dtype, join_path(_field, "output_dtype"))
        self.weight_dtype_with_constraints = _optional_constraints(
            weight_dtype, join_path(_field, "weight_dtype"))
        self.bias_dtype: Optional[str] = (None if bias_dtype is None
                                          else dtype_name(bias_dtype, join_path(_field, "bias_dtype")))
        self.is_dynamic: Optional[bool] = (None if is_dynamic is None
                                           else check_bool(is_dynamic, join_path(_field, "is_dynamic")))

    @property
    def input_dtype(self) -> Optional[str]:
        d = self.input_dtype_with_constraints
        return None if d is None else d.dtype

    @property
    def output_dtype(self) -> Optional[str]:
        d = self.output_dtype_with_constraints
        return None if d is None else d.dtype

    @property
    def weight_dtype(self) -> Optional[str]:
        d = self.weight_dtype_with_constraints
        return None if d is None else d.dtype

    def to_dict(self) -> Dict[str, Any]:
        result: Dict[str, Any] = {}
        for key, d in (("input_dtype", self.input_dtype_with_constraints),
                       ("output_dtype", self.output_dtype_with_constraints),
                       ("weight_dtype", self.weight_dtype_with_constraints)):
            if d is not None:
                result[key] = d.to_dict()
        if self.bias_dtype is not None:
            result["bias_dtype"] = self.bias_dtype
        if self.is_dynamic is not None:
            result["is_dynamic"] = self.is_dynamic
        return result

    @classmethod
    def from_dict(cls, d: Any, field: str = "dtype_config") -> "DTypeConfig":
        check_keys(d, _DTYPE_CONFIG_KEYS, field, "a dtype config")
        return cls(**d, _field=field)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DTypeConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items())
        return f"DTypeConfig({args})"


def _optional_constraints(value: Any, field: str) -> Optional[DTypeWithConstraints]:
    if value is None:
        return None
    if type(value).__name__ == "DTypeWithConstraints" and not isinstance(value, DTypeWithConstraints):
        # torch's DTypeWithConstraints
        if getattr(value, "dtype", None) is None:
            return None
        return _make_dtype_with_constraints(field, **{k: getattr(value, k, None)
                                                      for k in ("dtype",) + _BOUNDS})
    return DTypeWithConstraints.from_dict(value, field)


PatternLike = Union[str, Sequence[str]]

_INPUT_ROLES: Tuple[str, ...] = ("weight", "bias")


def _pattern(pattern: Any, field: str) -> Tuple[str, ...]:
    if isinstance(pattern, str):
        ops: Tuple[Any, ...] = (pattern,)
    elif isinstance(pattern, (list, tuple)):
        ops = tuple(pattern)
        if not 1 <= len(ops) <= MAX_PATTERN_LENGTH:
            raise ValueError(f"{field}: expected 1 to {MAX_PATTERN_LENGTH} ops, got {len(ops)}")
    else:
        raise TypeError(f"{field}: expected an op name or a list of 1 to {MAX_PATTERN_LENGTH} "
                        f"op names, got {type(pattern).__name__} {pattern!r}")
    for i, op in enumerate(ops):
        check_str(op, f"{field}[{i}]" if len(ops) > 1 or not isinstance(pattern, str) else field,
                  "an op name")
        if not op:
            raise ValueError(f"{field}: expected op names, got an empty name")
    return ops


class BackendPatternConfig:
    """What a backend can do with one pattern: 1–3 op names in forward order
    (each op's result feeds the next; PyTorch writes them reversed and nested).

    Beside torch's fields, a TOSA pattern says where its weight and bias enter
    (`set_input_roles`, torch's `_set_input_type_to_index`) and names the qfx
    rewrites for it: `set_root_op`, `set_fused_op`, `set_fuser`,
    `set_reference_lowering` (torch's root module, fused module, fuser method
    and reference quantized module)."""

    def __init__(self, pattern: PatternLike):
        self.pattern: Tuple[str, ...] = _pattern(pattern, "pattern")
        self.observation_type = ObservationType.OUTPUT_USE_DIFFERENT_OBSERVER_AS_INPUT
        self.dtype_configs: List[DTypeConfig] = []
        self.root_op: Optional[str] = None
        self.fused_op: Optional[str] = None
        self.fuser: Optional[str] = None
        self.reference_lowering: Optional[str] = None
        self.input_roles: Dict[str, Tuple[int, int]] = {}
        self.num_tensor_args_to_observation_type: Dict[int, ObservationType] = {}
        self.overwrite_output_observer: Optional[ObserverSpec] = None

    def set_observation_type(
            self, observation_type: Union[ObservationType, str]) -> "BackendPatternConfig":
        self.observation_type = ObservationType.parse(observation_type, "observation_type")
        return self

    def add_dtype_config(self, dtype_config: DTypeConfig) -> "BackendPatternConfig":
        if not isinstance(dtype_config, DTypeConfig):
            from qfx.config._torch import dtype_config_from_torch, is_torch_dtype_config

            if not is_torch_dtype_config(dtype_config):
                raise TypeError(f"dtype_configs: expected a DTypeConfig, got "
                                f"{type(dtype_config).__name__} {dtype_config!r}")
            dtype_config = dtype_config_from_torch(dtype_config)
        self.dtype_configs.append(dtype_config)
        return self

    def set_dtype_configs(self, dtype_configs: Iterable[DTypeConfig]) -> "BackendPatternConfig":
        self.dtype_configs = []
        for d in dtype_configs:
            self.add_dtype_config(d)
        return self

    def set_root_op(self, root_op: str) -> "BackendPatternConfig":
        check_str(root_op, "root_op", "an op name")
        if root_op not in self.pattern:
            raise ValueError(f"root_op: {root_op!r} is not an op of the pattern "
                             f"{list(self.pattern)}")
        self.root_op = root_op
        return self

    def set_fused_op(self, fused_op: str) -> "BackendPatternConfig":
        self.fused_op = check_str(fused_op, "fused_op", "a fused op name")
        return self

    def set_fuser(self, fuser: str) -> "BackendPatternConfig":
        self.fuser = check_str(fuser, "fuser", "a fusion rewrite name")
        return self

    def set_reference_lowering(self, reference_lowering: str) -> "BackendPatternConfig":
        self.reference_lowering = check_str(reference_lowering, "reference_lowering",
                                            "a reference lowering name")
        return self

    def set_input_roles(self, input_roles: Dict[str, Sequence[int]]) -> "BackendPatternConfig":
        """{"weight": (op index, operand index), "bias": (...)}."""
        check_keys(input_roles, _INPUT_ROLES, "input_roles", "input roles")
        roles: Dict[str, Tuple[int, int]] = {}
        for role, ref in input_roles.items():
            field = f"input_roles.{role}"
            if not isinstance(ref, (list, tuple)) or len(ref) != 2:
                raise ValueError(f"{field}: expected [OP INDEX, OPERAND INDEX], got {ref!r}")
            op_index = check_int(ref[0], field + "[0]")
            operand_index = check_int(ref[1], field + "[1]")
            if op_index < 0 or operand_index < 0:
                raise ValueError(f"{field}: expected indices >= 0, got {list(ref)}")
            if op_index >= len(self.pattern):
                raise ValueError(f"{field}: op index {op_index} is outside the pattern of "
                                 f"{len(self.pattern)} ops")
            roles[role] = (op_index, operand_index)
        self.input_roles = roles
        return self

    def set_num_tensor_args_to_observation_type(
            self, mapping: Dict[int, Union[ObservationType, str]]) -> "BackendPatternConfig":
        if not isinstance(mapping, dict):
            raise TypeError("num_tensor_args_to_observation_type: expected a dict "
                            f"{{NUMBER OF TENSOR ARGS: OBSERVATION TYPE}}, got {mapping!r}")
        result: Dict[int, ObservationType] = {}
        for count, value in mapping.items():
            field = f"num_tensor_args_to_observation_type[{count!r}]"
            if isinstance(count, str) and count.isdigit():
                count = int(count)
            check_int(count, field)
            if count < 0:
                raise ValueError(f"{field}: expected a number of tensor arguments >= 0")
            result[count] = ObservationType.parse(value, field)
        self.num_tensor_args_to_observation_type = result
        return self

    def set_overwrite_output_observer(self, observer: ObserverLike) -> "BackendPatternConfig":
        self.overwrite_output_observer = as_observer_spec(observer, "overwrite_output_observer")
        return self

    def to_dict(self) -> Dict[str, Any]:
        result: Dict[str, Any] = {
            "pattern": self.pattern[0] if len(self.pattern) == 1 else list(self.pattern),
            "observation_type": self.observation_type.value,
            "dtype_configs": [d.to_dict() for d in self.dtype_configs],
        }
        for key in ("root_op", "fused_op", "fuser", "reference_lowering"):
            if getattr(self, key) is not None:
                result[key] = getattr(self, key)
        if self.input_roles:
            result["input_roles"] = {role: list(ref) for role, ref in self.input_roles.items()}
        if self.num_tensor_args_to_observation_type:
            result["num_tensor_args_to_observation_type"] = {
                str(k): v.value for k, v in sorted(self.num_tensor_args_to_observation_type.items())}
        if self.overwrite_output_observer is not None:
            result["overwrite_output_observer"] = self.overwrite_output_observer.to_dict()
        return result

    @classmethod
    def from_dict(cls, d: Any, field: str = "") -> "BackendPatternConfig":
        where = field or "backend pattern config"
        check_keys(d, _PATTERN_CONFIG_KEYS, where, "a backend pattern config")
        if "pattern" not in d:
            raise ValueError(f"{where}: missing key \"pattern\" in a backend pattern config")
        try:
            config = cls(_pattern(d["pattern"], join_path(field, "pattern")))
            if "observation_type" in d:
                config.observation_type = ObservationType.parse(
                    d["observation_type"], join_path(field, "observation_type"))
            dtype_configs = d.get("dtype_configs", [])
            if not isinstance(dtype_configs, list):
                raise TypeError(f"{join_path(field, 'dtype_configs')}: expected a list of dtype "
                                "configs")
            config.dtype_configs = [
                DTypeConfig.from_dict(c, join_path(field, f"dtype_configs[{i}]"))
                for i, c in enumerate(dtype_configs)]
            setters = {"root_op": config.set_root_op, "fused_op": config.set_fused_op,
                       "fuser": config.set_fuser, "reference_lowering": config.set_reference_lowering,
                       "input_roles": config.set_input_roles,
                       "num_tensor_args_to_observation_type":
                           config.set_num_tensor_args_to_observation_type}
            for key, setter in setters.items():
                if key in d:
                    setter(d[key])
            if "overwrite_output_observer" in d:
                config.overwrite_output_observer = ObserverSpec.from_dict(
                    d["overwrite_output_observer"], join_path(field, "overwrite_output_observer"))
        except (TypeError, ValueError) as e:
            message = str(e)
            if field and not message.startswith(field):
                raise type(e)(f"{field}.{message}") from None
            raise
        return config

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BackendPatternConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"BackendPatternConfig({self.to_dict()!r})"


_PATTERN_CONFIG_KEYS: Tuple[str, ...] = (
    "pattern", "observation_type", "dtype_configs", "root_op", "fused_op", "fuser",
    "reference_lowering", "input_roles", "num_tensor_args_to_observation_type",
    "overwrite_output_observer")


class BackendConfig:
    """A named set of BackendPatternConfigs; setting a pattern again replaces
    its config in place."""

    def __init__(self, name: str = ""):
        self.name: str = check_str(name, "name", "a backend name")
        self._configs: List[BackendPatternConfig] = []

    def set_name(self, name: str) -> "BackendConfig":
        self.name = check_str(name, "name", "a backend name")
        return self

    def set_backend_pattern_config(self, config: BackendPatternConfig) -> "BackendConfig":
        if not isinstance(config, BackendPatternConfig):
            raise TypeError(f"expected a BackendPatternConfig, got {type(config).__name__}")
        for i, existing in enumerate(self._configs):
            if existing.pattern == config.pattern:
                self._configs[i] = config
                return self
        self._configs.append(config)
        return self

    def set_backend_pattern_configs(self, configs: Iterable[BackendPatternConfig]) -> "BackendConfig":
        for config in configs:
            self.set_backend_pattern_config(config)
        return self

    @property
    def configs(self) -> List[BackendPatternConfig]:
        """The pattern configs in registration order."""
        return list(self._configs)

    def lookup(self, pattern: PatternLike) -> Optional[BackendPatternConfig]:
        ops = _pattern(pattern, "pattern")
        for config in self._configs:
            if config.pattern == ops:
                return config
        return None

    def to_dict(self) -> Dict[str, Any]:
        """The JSON document quant-opt's backend option reads."""
        return {"name": self.name, "configs": [c.to_dict() for c in self._configs]}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, **kwargs)

    def save(self, path: Any) -> None:
        with open(path, "w") as f:
            f.write(self.to_json(indent=1))
            f.write("\n")

    @classmethod
    def from_dict(cls, d: Any) -> "BackendConfig":
        """A BackendConfig from its dict or a built-in table's name."""
        if isinstance(d, str):
            return get_backend_config(d)
        check_keys(d, ("name", "configs"), "backend config", "a backend config")
        config = cls(d.get("name", ""))
        configs = d.get("configs", [])
        if not isinstance(configs, list):
            raise TypeError("configs: expected a list of backend pattern configs")
        for i, c in enumerate(configs):
            config.set_backend_pattern_config(BackendPatternConfig.from_dict(c, f"configs[{i}]"))
        return config

    @classmethod
    def from_json(cls, text: str) -> "BackendConfig":
        return cls.from_dict(json.loads(text))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BackendConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"BackendConfig(name={self.name!r}, {len(self._configs)} patterns)"


# --- The torch → TOSA correspondence ------------------------------------------


@dataclass(frozen=True)
class TorchToTOSAPattern:
    """One TOSA pattern of the built-in tables: the PyTorch patterns (public
    names, forward order) it stands for, and its TOSA-only fields."""

    tosa_pattern: Tuple[str, ...]
    torch_patterns: Tuple[Tuple[str, ...], ...]
    root_op: Optional[str] = None
    weight: Optional[Tuple[int, int]] = None
    bias: Optional[Tuple[int, int]] = None
    fused_op: Optional[str] = None
    fuser: Optional[str] = None
    reference_lowering: Optional[str] = None


def _builtin_json(kind: str, name: str = "") -> Any:
    """qfx's library's built-in configuration (qfxGetBuiltinConfig)."""
    from qfx import _capi  # the C API loads libMLIR: only when needed
    return json.loads(_capi.builtin_config(kind, name))


_torch_to_tosa: Optional[Tuple[TorchToTOSAPattern, ...]] = None


def torch_to_tosa() -> Tuple[TorchToTOSAPattern, ...]:
    """The torch → TOSA correspondence of the built-in tables
    (docs/Config.md), from qfx's library (lib/Config): one entry per TOSA
    pattern, in the library's order, with the PyTorch patterns that become
    it."""
    global _torch_to_tosa
    if _torch_to_tosa is None:
        grouped: Dict[Tuple[str, ...], Dict[str, Any]] = {}
        for entry in _builtin_json("torch_to_tosa"):
            tosa = tuple(entry["tosa_pattern"])
            group = grouped.setdefault(tosa, {"entry": entry, "torch": []})
            group["torch"].append(tuple(entry["torch_pattern"]))
        result = []
        for tosa, group in grouped.items():
            entry = group["entry"]
            roles = entry.get("input_roles", {})
            result.append(TorchToTOSAPattern(
                tosa, tuple(group["torch"]), entry.get("root_op"),
                tuple(roles["weight"]) if "weight" in roles else None,
                tuple(roles["bias"]) if "bias" in roles else None,
                entry.get("fused_op"), entry.get("fuser"), entry.get("reference_lowering")))
        _torch_to_tosa = tuple(result)
    return _torch_to_tosa


def torch_patterns_to_tosa(name: str, torch_configs: Sequence[Tuple[Tuple[str, ...], Dict[str, Any]]]
                           ) -> BackendConfig:
    """A TOSA BackendConfig from PyTorch pattern configs: (forward pattern of
    public names, {"observation_type", "dtype_configs",
    "num_tensor_args_to_observation_type", "overwrite_output_observer"} as
    dicts). Each TOSA pattern takes the configs of the PyTorch patterns it
    stands for, which must agree; PyTorch patterns without a TOSA form are
    left out."""
    by_pattern: Dict[Tuple[str, ...], Dict[str, Any]] = {}
    for pattern, config in torch_configs:
        by_pattern[tuple(pattern)] = config
    table = BackendConfig(name)
    for spec in torch_to_tosa():
        found = [(p, by_pattern[p]) for p in spec.torch_patterns if p in by_pattern]
        if not found:
            continue
        first_pattern, first = found[0]
        for pattern, config in found[1:]:
            if config != first:
                raise ValueError(
                    f"{list(spec.tosa_pattern)}: the PyTorch patterns {list(first_pattern)} and "
                    f"{list(pattern)} both map to this TOSA pattern but are configured "
                    f"differently ({first} vs {config})")
        d: Dict[str, Any] = dict(first)
        d["pattern"] = list(spec.tosa_pattern)
        for key in ("root_op", "fused_op", "fuser", "reference_lowering"):
            if getattr(spec, key) is not None:
                d[key] = getattr(spec, key)
        roles = {role: list(ref) for role, ref in (("weight", spec.weight), ("bias", spec.bias))
                 if ref is not None}
        if roles:
            d["input_roles"] = roles
        table.set_backend_pattern_config(
            BackendPatternConfig.from_dict(d, f"{name}: {list(spec.tosa_pattern)}"))
    return table


# --- Built-in tables ---------------------------------------------------------

BACKEND_CONFIG_NAMES: Tuple[str, ...] = ("x86", "fbgemm", "qnnpack", "onednn", "tosa")


def get_backend_config(name: str) -> BackendConfig:
    """A built-in table: x86, fbgemm, qnnpack, onednn or tosa, as qfx's
    library (lib/Config) defines it: PyTorch 1.13's get_x86_backend_config
    and friends (onednn: the native table, which 1.13's prepare_fx uses) for
    the patterns with a TOSA form, and qfx's own tosa table."""
    if name not in BACKEND_CONFIG_NAMES:
        raise ValueError(f"unknown backend config {name!r}; expected one of "
                         f"{', '.join(BACKEND_CONFIG_NAMES)}")
    return BackendConfig.from_dict(_builtin_json("backend_config", name))


def get_x86_backend_config() -> BackendConfig:
    """PyTorch's get_x86_backend_config(), over TOSA patterns."""
    return get_backend_config("x86")


def get_fbgemm_backend_config() -> BackendConfig:
    return get_backend_config("fbgemm")


def get_qnnpack_backend_config() -> BackendConfig:
    return get_backend_config("qnnpack")


def get_onednn_backend_config() -> BackendConfig:
    """PyTorch 1.13's native table (it has no onednn table; prepare_fx uses native)."""
    return get_backend_config("onednn")


def get_native_backend_config() -> BackendConfig:
    return get_backend_config("onednn")


def get_tosa_backend_config() -> BackendConfig:
    """qfx's table for portable int8 TOSA: qint8 activations, symmetric qint8
    weights in [-127, 127], qint32 bias."""
    return get_backend_config("tosa")
