"""Converting torch.ao.quantization objects to qfx's (`from_torch`).

PyTorch objects are named by their public names, as the golden data and the
C++ presets name them: classes `torch.nn.Conv2d`, functions
`torch.nn.functional.conv2d`, `torch.add`, `operator.add`; tensor methods
stay bare strings in a QConfigMapping ("reshape") and are `Tensor.reshape`
in backend patterns. Backend patterns become TOSA patterns through
backend_config.torch_to_tosa().
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional, Tuple

from qfx.config.observer import OBSERVERS, ObserverSpec


def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is optional
        raise ImportError("from_torch needs PyTorch (Debian's python3-torch)") from None
    return torch


@functools.lru_cache(maxsize=None)
def _public_names() -> Dict[int, Tuple[str, Any]]:
    """id(object) -> (public name, object); the first namespace wins
    (F.conv2d is torch.conv2d and is named by F), as in
    utils/golden/gen_config_golden.py."""
    import importlib
    import operator

    torch = _torch()
    namespaces = [
        ("torch.nn", "torch.nn"),
        ("torch.nn.intrinsic", "torch.nn.intrinsic"),
        ("torch.nn.intrinsic.qat", "torch.nn.intrinsic.qat"),
        ("torch.nn.qat", "torch.nn.qat"),
        ("torch.nn.functional", "torch.nn.functional"),
        ("torch", "torch"),
        ("torch._C._nn", None),
        ("operator", None),
    ]
    names: Dict[int, Tuple[str, Any]] = {}
    for prefix, module_name in namespaces:
        if prefix == "operator":
            namespace = operator
        elif prefix == "torch._C._nn":
            namespace = torch._C._nn
        else:
            namespace = importlib.import_module(module_name)
        for attr in sorted(dir(namespace)):
            if attr.startswith("__"):
                continue
            obj = getattr(namespace, attr, None)
            if callable(obj) and not isinstance(obj, type(torch)):
                names.setdefault(id(obj), (f"{prefix}.{attr}", obj))
    return names


def torch_object_name(obj: Any, field: str, method_prefix: str = "") -> str:
    """The public name of a PyTorch class or function; strings (method
    names, or names PyTorch does not have) get `method_prefix`."""
    if isinstance(obj, str):
        return method_prefix + obj
    entry = _public_names().get(id(obj))
    if entry is None or entry[1] is not obj:
        raise TypeError(f"{field}: {obj!r} is not a class or function of torch, torch.nn, "
                        "torch.nn.functional or operator; use its name as a string")
    return entry[0]


def _is_torch_ao(value: Any, *names: str) -> bool:
    cls = type(value)
    return cls.__module__.startswith("torch.ao.quantization") and cls.__name__ in names


def is_torch_observer(value: Any) -> bool:
    if _is_torch_ao(value, "_PartialWrapper"):
        return True
    return (isinstance(value, type) and value.__module__.startswith("torch.ao.quantization")
            and (value.__name__ in OBSERVERS or value.__name__ in _FAKE_QUANTIZERS))


# Fake quantizers by name: the quant_min/quant_max their constructor passes
# to the observer when neither is given.
_FAKE_QUANTIZERS = {"FakeQuantize": (None, None), "FusedMovingAvgObsFakeQuantize": (0, 255),
                    "FixedQParamsFakeQuantize": (None, None)}


def _fake_quantize_observer(name: str, kwargs: Dict[str, Any], field: str) -> ObserverSpec:
    """The observer `name(**kwargs)` (a fake quantizer) constructs and takes
    its qparams from: its `observer` argument, called with the remaining
    arguments and, when both are set, quant_min and quant_max."""
    kwargs = dict(kwargs)
    observer = kwargs.pop("observer", None)
    if observer is None:
        if name == "FixedQParamsFakeQuantize":
            raise ValueError(f"{field}: FixedQParamsFakeQuantize needs an observer argument")
        from torch.ao.quantization import MovingAverageMinMaxObserver

        observer = MovingAverageMinMaxObserver
    default_min, default_max = _FAKE_QUANTIZERS[name]
    quant_min, quant_max = kwargs.pop("quant_min", default_min), kwargs.pop("quant_max", default_max)
    if quant_min is not None and quant_max is not None:
        kwargs.update(quant_min=quant_min, quant_max=quant_max)
    inner = observer_from_torch(observer, f"{field}.observer")
    return ObserverSpec(inner.observer, {**inner.kwargs, **kwargs}, field)


def observer_from_torch(value: Any, field: str = "observer",
                        fake_quantizers: bool = False) -> ObserverSpec:
    """`SomeObserver.with_args(...)` or an observer class -> ObserverSpec.
    With `fake_quantizers`, a fake quantizer (FakeQuantize,
    FusedMovingAvgObsFakeQuantize, FixedQParamsFakeQuantize) becomes the
    observer it wraps: the qparams of a model trained with fake quantization
    (prepare_qat_fx) come from that observer's statistics."""
    if _is_torch_ao(value, "_PartialWrapper"):
        if value.callable_args:
            raise ValueError(f"{field}: with_callable_args is not supported, got {value!r}")
        cls, args, kwargs = value.p.func, value.p.args, dict(value.p.keywords)
        if args:
            raise ValueError(f"{field}: positional observer arguments are not supported, "
                             f"got {args!r}")
    else:
        cls, kwargs = value, {}
    name = getattr(cls, "__name__", repr(cls))
    from_torch_ao = getattr(cls, "__module__", "").startswith("torch.ao.quantization")
    if from_torch_ao and name in _FAKE_QUANTIZERS:
        if fake_quantizers:
            return _fake_quantize_observer(name, kwargs, field)
        raise ValueError(f"{field}: {name} is a fake quantizer, for training (QAT); qfx does not "
                         "train: prepare and train the model with PyTorch's prepare_qat_fx and "
                         "convert it with qfx.convert_fx")
    if name not in OBSERVERS or not from_torch_ao:
        raise ValueError(f"{field}: unsupported observer {name}; qfx has {', '.join(OBSERVERS)} "
                         "(RecordingObserver is not supported)")
    return ObserverSpec(OBSERVERS[name], kwargs, field)


def is_torch_qconfig(value: Any) -> bool:
    return _is_torch_ao(value, "QConfig", "QConfigDynamic")


def qconfig_from_torch(value: Any, field: str = "qconfig", fake_quantizers: bool = False):
    """A torch QConfig -> qfx's; fake quantizers as in observer_from_torch."""
    from qfx.config.qconfig import QConfig

    return QConfig(observer_from_torch(value.activation, f"{field}.activation", fake_quantizers),
                   observer_from_torch(value.weight, f"{field}.weight", fake_quantizers))


def qconfig_mapping_from_torch(value: Any, fake_quantizers: bool = False):
    """A torch QConfigMapping -> qfx's; fake quantizers as in
    observer_from_torch (a QAT mapping, for the model prepare_qat_fx
    prepared with it)."""
    from qfx.config.qconfig_mapping import QConfigMapping

    def qconfig(q: Any, field: str):
        return None if q is None else qconfig_from_torch(q, field, fake_quantizers)

    mapping = QConfigMapping()
    mapping.set_global(qconfig(value.global_qconfig, '""'))
    for t, q in value.object_type_qconfigs.items():
        name = torch_object_name(t, "object_type")
        mapping.set_object_type(name, qconfig(q, f"object_type[{name!r}]"))
    for r, q in value.module_name_regex_qconfigs.items():
        mapping.set_module_name_regex(r, qconfig(q, f"module_name_regex[{r!r}]"))
    for n, q in value.module_name_qconfigs.items():
        mapping.set_module_name(n, qconfig(q, f"module_name[{n!r}]"))
    for (n, t, i), q in value.module_name_object_type_order_qconfigs.items():
        name = torch_object_name(t, "module_name_object_type_order")
        mapping.set_module_name_object_type_order(
            n, name, i, qconfig(q, f"module_name_object_type_order[{(n, name, i)!r}]"))
    return mapping


def is_torch_dtype_config(value: Any) -> bool:
    return _is_torch_ao(value, "DTypeConfig")


def dtype_config_from_torch(value: Any):
    from qfx.config.backend_config import DTypeConfig

    return DTypeConfig(value.input_dtype_with_constraints, value.output_dtype_with_constraints,
                       value.weight_dtype_with_constraints, value.bias_dtype, value.is_dynamic)


def _forward_pattern(pattern: Any) -> List[str]:
    """PyTorch's reversed, nested pattern (ReLU, (BN, Conv)) in forward order."""
    if isinstance(pattern, tuple):
        if len(pattern) != 2:
            raise ValueError(f"pattern: expected PyTorch's (op, inner pattern) pairs, "
                             f"got {pattern!r}")
        return _forward_pattern(pattern[1]) + _forward_pattern(pattern[0])
    return [torch_object_name(pattern, "pattern", method_prefix="Tensor.")]


def _pattern_config_dict(c: Any) -> Dict[str, Any]:
    d: Dict[str, Any] = {
        "observation_type": c.observation_type.name.lower(),
        "dtype_configs": [dtype_config_from_torch(dc).to_dict() for dc in c.dtype_configs],
    }
    if c._num_tensor_args_to_observation_type:
        d["num_tensor_args_to_observation_type"] = {
            str(k): v.name.lower() for k, v in c._num_tensor_args_to_observation_type.items()}
    if c._overwrite_output_observer is not None:
        d["overwrite_output_observer"] = observer_from_torch(
            c._overwrite_output_observer, "overwrite_output_observer").to_dict()
    return d


# What a PyTorch BackendPatternConfig runs in PyTorch's flow: modules it
# swaps in and functions it calls. qfx lowers each pattern its own way, so
# it takes only PyTorch's own for the pattern.
_TORCH_CALLABLE_FIELDS = ("root_module", "qat_module", "reference_quantized_module",
                          "fused_module", "fuser_method", "_root_node_getter",
                          "_extra_inputs_getter")


def _pattern_configs(value: Any) -> list:
    # 1.13 keeps a dict by pattern; later versions a list.
    configs = value.configs
    return list(configs.values()) if isinstance(configs, dict) else list(configs)


def _same_callable(a: Any, b: Any) -> bool:
    """`a is b`, or two closures of the same code over the same values
    (PyTorch's tables build their fuser methods anew, as
    `_sequential_wrapper2(nni.ConvReLU2d)`, at each call)."""
    if a is b:
        return True
    code = getattr(a, "__code__", None)
    if code is None or code is not getattr(b, "__code__", None):
        return False
    cells_a, cells_b = a.__closure__ or (), b.__closure__ or ()
    return len(cells_a) == len(cells_b) and all(
        _same_callable(x.cell_contents, y.cell_contents) for x, y in zip(cells_a, cells_b))


def _callable_name(value: Any) -> str:
    return getattr(value, "__qualname__", None) or repr(value)


def _check_torch_callables(c: Any, native: Dict[Any, Any]) -> None:
    """NotImplementedError for a module or function of `c` that is not
    PyTorch's own for its pattern (in the native table)."""
    own = native.get(c.pattern)
    for field in _TORCH_CALLABLE_FIELDS:
        value = getattr(c, field, None)
        expected = getattr(own, field, None)
        if value is None or _same_callable(value, expected):
            continue
        raise NotImplementedError(
            f"BackendConfig: the pattern {c.pattern!r} has {field.lstrip('_')} "
            f"{_callable_name(value)}, not PyTorch's own for it ("
            + (_callable_name(expected) if expected is not None else "none")
            + "); qfx lowers each pattern its own way and cannot run a module or function "
            "of yours, so it refuses the table rather than ignore them")


def backend_config_from_torch(value: Any, name: Optional[str] = None):
    from torch.ao.quantization.backend_config import get_native_backend_config

    from qfx.config.backend_config import torch_patterns_to_tosa

    native = {c.pattern: c for c in _pattern_configs(get_native_backend_config())}
    configs = []
    for c in _pattern_configs(value):
        if getattr(c, "pattern", None) is None:
            raise ValueError("BackendConfig: a pattern config without a pattern (PyTorch's "
                             "complex format) is not supported")
        _check_torch_callables(c, native)
        pattern = tuple(_forward_pattern(c.pattern))
        configs.append((pattern, _pattern_config_dict(c)))
    return torch_patterns_to_tosa(name if name is not None else value.name, configs)


def from_torch(obj: Any) -> Any:
    """qfx's equivalent of a torch.ao.quantization object: QConfigMapping,
    QConfig, an observer (class or with_args), BackendConfig, DTypeConfig,
    DTypeWithConstraints, or a dtype/qscheme (its name)."""
    from qfx.config._types import _strip_torch
    from qfx.config.backend_config import ObservationType, _optional_constraints

    if obj is None:
        return None
    if _is_torch_ao(obj, "QConfigMapping"):
        return qconfig_mapping_from_torch(obj)
    if is_torch_qconfig(obj):
        return qconfig_from_torch(obj)
    if is_torch_observer(obj):
        return observer_from_torch(obj)
    if _is_torch_ao(obj, "BackendConfig"):
        return backend_config_from_torch(obj)
    if is_torch_dtype_config(obj):
        return dtype_config_from_torch(obj)
    if _is_torch_ao(obj, "DTypeWithConstraints"):
        return _optional_constraints(obj, "dtype_with_constraints")
    if _is_torch_ao(obj, "ObservationType"):
        return ObservationType[obj.name]
    name = _strip_torch(obj)
    if isinstance(name, str) and not isinstance(obj, str):
        return name
    raise TypeError(f"from_torch: cannot convert {type(obj).__module__}.{type(obj).__name__} "
                    f"{obj!r}; expected a torch.ao.quantization QConfigMapping, QConfig, "
                    "observer, BackendConfig, DTypeConfig, DTypeWithConstraints or a "
                    "dtype/qscheme")


__all__ = ["from_torch", "torch_object_name"]
