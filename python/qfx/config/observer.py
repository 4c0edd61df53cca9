"""Observers, as torch.ao.quantization.observer names them.

A qfx observer class is a specification: `MinMaxObserver.with_args(...)`
returns an `ObserverSpec` (torch's `_PartialWrapper`) that a QConfig holds and
that quant-run's calibration runtime executes. The classes themselves are not
instantiated; the arguments each one takes are PyTorch 1.13's constructor
arguments that qfx implements (lib/Numerics/ObserverSpec.cpp, whose checks
`ObserverSpec.validate` repeats so that errors surface in Python).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Dict, FrozenSet, Mapping, Optional, Type, Union

from qfx.config._types import (
    DTYPE_RANGES,
    QUANTIZED_DTYPES,
    check_bool,
    check_int,
    check_number,
    dtype_name,
    join_path,
    qscheme_name,
)

# Every argument an observer may take, in the order the JSON writer of
# lib/Config/ConfigJSON.cpp knows them, with its kind.
OBSERVER_ARGS: Dict[str, str] = {
    "dtype": "dtype",
    "qscheme": "qscheme",
    "reduce_range": "bool",
    "quant_min": "int",
    "quant_max": "int",
    "eps": "number",
    "ch_axis": "int",
    "averaging_constant": "number",
    "bins": "int",
    "upsample_rate": "int",
    "scale": "number",
    "zero_point": "int",
    "compute_dtype": "dtype",
}

_CALIBRATING_ARGS = frozenset({"dtype", "qscheme", "reduce_range", "quant_min", "quant_max", "eps"})


class ObserverBase:
    """The base of qfx's observer classes (torch's ObserverBase).

    Subclasses list the constructor arguments they take in `ARGS`."""

    ARGS: ClassVar[FrozenSet[str]] = frozenset()
    # Whether the observer computes qparams (calibrating and fixed-qparams
    # observers), which makes its dtype, qscheme and range checked.
    _COMPUTES_QPARAMS: ClassVar[bool] = False
    _CALIBRATES: ClassVar[bool] = False
    _PER_CHANNEL: ClassVar[bool] = False
    _DEFAULT_DTYPE: ClassVar[str] = "quint8"

    def __new__(cls, *args: Any, **kwargs: Any) -> "ObserverBase":
        raise TypeError(
            f"{cls.__name__} is a specification that quant-run executes, not an "
            f"observer module; use {cls.__name__}.with_args(...) in a QConfig"
        )

    @classmethod
    def with_args(cls, **kwargs: Any) -> "ObserverSpec":
        """The observer with these constructor arguments (torch's with_args)."""
        return ObserverSpec(cls, kwargs, complete=False)


class ObserverSpec:
    """An observer class with its arguments: what `Observer.with_args(...)`
    returns. Immutable; `with_args` returns a new spec with more arguments."""

    __slots__ = ("_observer", "_kwargs")

    def __init__(self, observer: Type[ObserverBase], kwargs: Optional[Mapping[str, Any]] = None,
                 field: str = "", complete: bool = True):
        if not (isinstance(observer, type) and issubclass(observer, ObserverBase)
                and observer in OBSERVERS.values()):
            raise TypeError(f"{field or 'observer'}: expected one of qfx's observer classes "
                            f"({', '.join(OBSERVERS)}), got {observer!r}")
        normalized: Dict[str, Any] = {}
        for key, value in (kwargs or {}).items():
            normalized[key] = _normalize_arg(observer, key, value, field)
        self._observer = observer
        self._kwargs = normalized
        self.validate(field, complete)

    @property
    def observer(self) -> Type[ObserverBase]:
        """The observer class."""
        return self._observer

    @property
    def kwargs(self) -> Dict[str, Any]:
        """The arguments given (a copy); omitted ones take PyTorch's defaults."""
        return dict(self._kwargs)

    def with_args(self, **kwargs: Any) -> "ObserverSpec":
        merged = dict(self._kwargs)
        merged.update(kwargs)
        return ObserverSpec(self._observer, merged, complete=False)

    # The effective values, as lib/Numerics/ObserverSpec.cpp computes them.
    @property
    def dtype(self) -> str:
        return self._kwargs.get("dtype", self._observer._DEFAULT_DTYPE)

    @property
    def qscheme(self) -> str:
        default = "per_channel_affine" if self._observer._PER_CHANNEL else "per_tensor_affine"
        return self._kwargs.get("qscheme", default)

    @property
    def reduce_range(self) -> bool:
        return self._kwargs.get("reduce_range", False)

    def validate(self, field: str = "", complete: bool = True) -> None:
        """Raises ValueError if quant-opt would reject this observer.

        `with_args` checks with complete=False, which leaves out the arguments
        that must come together (quant_min with quant_max, FixedQParamsObserver's
        scale and zero_point) so that they may be given in chained calls; a
        QConfig and to_dict() check the whole spec."""
        cls = self._observer
        where = f"{field}: " if field else ""
        prefix = f"{where}{cls.__name__}: "
        if not cls._COMPUTES_QPARAMS:
            return
        dtype = self.dtype
        if dtype not in QUANTIZED_DTYPES:
            raise ValueError(prefix + f"expected dtype quint8, qint8, qint32 or quint4x2, got {dtype}")
        qscheme = self.qscheme
        per_channel = qscheme.startswith("per_channel")
        if cls._PER_CHANNEL and not per_channel:
            raise ValueError(prefix + f"expected a per-channel qscheme, got {qscheme}")
        if not cls._PER_CHANNEL and per_channel:
            raise ValueError(prefix + "expected qscheme per_tensor_affine or "
                             f"per_tensor_symmetric, got {qscheme}")
        qmin = self._kwargs.get("quant_min")
        qmax = self._kwargs.get("quant_max")
        if (qmin is None) != (qmax is None) and complete:
            raise ValueError(prefix + "quant_min and quant_max must be given together")
        if qmin is not None and qmax is not None:
            if qmin >= qmax:
                raise ValueError(prefix + f"expected quant_min < quant_max, got [{qmin}, {qmax}]")
            if qmin > 0 or qmax < 0:
                raise ValueError(prefix + f"the range [{qmin}, {qmax}] must include 0")
            lo, hi = DTYPE_RANGES[dtype]
            if qmin < lo or qmax > hi:
                raise ValueError(prefix + f"the range [{qmin}, {qmax}] is outside {dtype}'s "
                                 f"range [{lo}, {hi}]")
        symmetric = qscheme in ("per_tensor_symmetric", "per_channel_symmetric")
        if (cls._CALIBRATES and cls is not HistogramObserver and self.reduce_range
                and symmetric and dtype == "quint8"):
            raise ValueError(prefix + "cannot reduce range for symmetric quantization with quint8")
        eps = self._kwargs.get("eps")
        if eps is not None and not (math.isfinite(eps) and eps > 0):
            raise ValueError(prefix + f"expected eps > 0, got {eps:g}")
        c = self._kwargs.get("averaging_constant")
        if c is not None and not (0 < c <= 1):
            raise ValueError(prefix + f"expected 0 < averaging_constant <= 1, got {c:g}")
        for key in ("bins", "upsample_rate"):
            v = self._kwargs.get(key)
            if v is not None and v < 1:
                raise ValueError(prefix + f"expected {key} >= 1, got {v}")
        if cls is FixedQParamsObserver:
            scale = self._kwargs.get("scale")
            zero_point = self._kwargs.get("zero_point")
            if (scale is None or zero_point is None) and complete:
                raise ValueError(prefix + "scale and zero_point are required")
            if scale is not None and not (math.isfinite(scale) and scale > 0):
                raise ValueError(prefix + f"expected scale > 0, got {scale:g}")
            lo = qmin if qmin is not None else 0
            hi = qmax if qmax is not None else 255
            if zero_point is not None and not lo <= zero_point <= hi:
                raise ValueError(prefix + f"zero_point {zero_point} is outside [{lo}, {hi}]")

    def to_dict(self) -> Dict[str, Any]:
        """{"observer": CLASS, ARG: VALUE, ...}: the arguments given, as quant-opt reads them."""
        self.validate()
        result: Dict[str, Any] = {"observer": self._observer.__name__}
        for key in OBSERVER_ARGS:
            if key in self._kwargs:
                result[key] = self._kwargs[key]
        return result

    @classmethod
    def from_dict(cls, d: Any, field: str = "") -> "ObserverSpec":
        """Reads an observer as quant-opt does; errors name the JSON path `field`."""
        if not isinstance(d, dict):
            raise TypeError(f"{field or 'observer'}: expected an observer "
                            f'{{"observer": CLASS, ...}} (a dict), got {type(d).__name__} {d!r}')
        if "observer" not in d:
            raise ValueError(f"{field or 'observer'}: missing key \"observer\" (the observer's "
                             "class name, e.g. \"MinMaxObserver\")")
        name = d["observer"]
        observer = OBSERVERS.get(name) if isinstance(name, str) else None
        if observer is None:
            raise ValueError(f"{join_path(field, 'observer')}: unknown observer {name!r}; "
                             f"expected one of {', '.join(OBSERVERS)}")
        kwargs = {k: v for k, v in d.items() if k != "observer"}
        return cls(observer, kwargs, field)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, type) and issubclass(other, ObserverBase) and other in OBSERVERS.values():
            other = ObserverSpec(other)
        if not isinstance(other, ObserverSpec):
            return NotImplemented
        return self._observer is other._observer and self._kwargs == other._kwargs

    def __hash__(self) -> int:
        return hash((self._observer, tuple(sorted(self._kwargs.items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "observer")
        return f"{self._observer.__name__}.with_args({args})"


def _normalize_arg(observer: Type[ObserverBase], key: str, value: Any, field: str) -> Any:
    path = join_path(field, key)
    if key not in OBSERVER_ARGS:
        raise TypeError(f"{path}: {observer.__name__} has no argument {key!r}; qfx's observers "
                        f"take {', '.join(OBSERVER_ARGS)}")
    if key not in observer.ARGS:
        takes = ", ".join(a for a in OBSERVER_ARGS if a in observer.ARGS) or "no arguments"
        raise TypeError(f"{path}: {observer.__name__} takes no argument {key!r} "
                        f"(it takes {takes})")
    kind = OBSERVER_ARGS[key]
    if kind == "dtype":
        return dtype_name(value, path)
    if kind == "qscheme":
        return qscheme_name(value, path)
    if kind == "bool":
        return check_bool(value, path)
    if kind == "int":
        return check_int(value, path)
    return check_number(value, path)


class MinMaxObserver(ObserverBase):
    """Running min/max of a tensor (torch.ao.quantization.MinMaxObserver)."""

    ARGS = _CALIBRATING_ARGS
    _COMPUTES_QPARAMS = True
    _CALIBRATES = True


class MovingAverageMinMaxObserver(ObserverBase):
    """Exponential moving averages of min and max."""

    ARGS = _CALIBRATING_ARGS | {"averaging_constant"}
    _COMPUTES_QPARAMS = True
    _CALIBRATES = True


class PerChannelMinMaxObserver(ObserverBase):
    """Min/max along `ch_axis`."""

    ARGS = _CALIBRATING_ARGS | {"ch_axis"}
    _COMPUTES_QPARAMS = True
    _CALIBRATES = True
    _PER_CHANNEL = True


class MovingAveragePerChannelMinMaxObserver(ObserverBase):
    """Moving-average min/max along `ch_axis`."""

    ARGS = _CALIBRATING_ARGS | {"ch_axis", "averaging_constant"}
    _COMPUTES_QPARAMS = True
    _CALIBRATES = True
    _PER_CHANNEL = True


class HistogramObserver(ObserverBase):
    """A histogram and PyTorch's L2 search for the best range."""

    ARGS = _CALIBRATING_ARGS | {"bins", "upsample_rate"}
    _COMPUTES_QPARAMS = True
    _CALIBRATES = True


class PlaceholderObserver(ObserverBase):
    """Records nothing; carries a dtype (float16, dynamic quantization)."""

    ARGS = frozenset({"dtype", "compute_dtype"})
    _DEFAULT_DTYPE = "float32"


class NoopObserver(ObserverBase):
    """Observes nothing (float16 by default)."""

    ARGS = frozenset({"dtype"})
    _DEFAULT_DTYPE = "float16"


class FixedQParamsObserver(ObserverBase):
    """Fixed scale and zero point (sigmoid, tanh)."""

    ARGS = frozenset({"dtype", "qscheme", "quant_min", "quant_max", "scale", "zero_point"})
    _COMPUTES_QPARAMS = True


class ReuseInputObserver(ObserverBase):
    """The output reuses the input's observer (reshape)."""

    ARGS = frozenset()


OBSERVERS: Dict[str, Type[ObserverBase]] = {
    cls.__name__: cls
    for cls in (
        MinMaxObserver,
        MovingAverageMinMaxObserver,
        PerChannelMinMaxObserver,
        MovingAveragePerChannelMinMaxObserver,
        HistogramObserver,
        PlaceholderObserver,
        NoopObserver,
        FixedQParamsObserver,
        ReuseInputObserver,
    )
}

ObserverLike = Union[ObserverSpec, Type[ObserverBase]]


def as_observer_spec(value: Any, field: str) -> ObserverSpec:
    """An ObserverSpec from a spec, an observer class or a torch observer."""
    if isinstance(value, ObserverSpec):
        value.validate(field)
        return value
    if isinstance(value, type) and issubclass(value, ObserverBase):
        return ObserverSpec(value, None, field)
    from qfx.config._torch import is_torch_observer, observer_from_torch

    if is_torch_observer(value):
        return observer_from_torch(value, field)
    raise TypeError(f"{field}: expected an observer (e.g. MinMaxObserver or "
                    f"MinMaxObserver.with_args(...)), got {type(value).__name__} {value!r}")
