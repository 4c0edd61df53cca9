"""Dtypes and qschemes, by the names qfx's JSON uses (torch's without "torch.")."""

from __future__ import annotations

from typing import Any, Dict, Tuple

# The dtypes of docs/Config.md, canonical spelling first.
DTYPES: Tuple[str, ...] = ("quint8", "qint8", "qint32", "quint4x2", "float16", "float32")
_DTYPE_ALIASES: Dict[str, str] = {"half": "float16", "float": "float32"}
QUANTIZED_DTYPES: Tuple[str, ...] = ("quint8", "qint8", "qint32", "quint4x2")
QSCHEMES: Tuple[str, ...] = (
    "per_tensor_affine",
    "per_tensor_symmetric",
    "per_channel_affine",
    "per_channel_symmetric",
    "per_channel_affine_float_qparams",
)

# The full range of each quantized dtype.
DTYPE_RANGES: Dict[str, Tuple[int, int]] = {
    "quint8": (0, 255),
    "qint8": (-128, 127),
    "qint32": (-(2**31), 2**31 - 1),
    "quint4x2": (0, 15),
}


def _strip_torch(value: Any) -> Any:
    """torch.qint8 / torch.per_tensor_affine -> their names; other values as given.

    Duck-typed so that qfx does not import torch."""
    if isinstance(value, str):
        return value
    if type(value).__module__ == "torch" and type(value).__name__ in ("dtype", "qscheme"):
        text = str(value)
        if text.startswith("torch."):
            return text[len("torch."):]
    return value


def dtype_name(value: Any, field: str) -> str:
    """The canonical name of a dtype given as a string or a torch.dtype.

    Raises TypeError for other types and ValueError for unknown dtypes, both
    naming `field`."""
    name = _strip_torch(value)
    if not isinstance(name, str):
        raise TypeError(f"{field}: expected a dtype (a string such as 'qint8' or a "
                        f"torch.dtype), got {type(value).__name__} {value!r}")
    name = _DTYPE_ALIASES.get(name, name)
    if name not in DTYPES:
        raise ValueError(f"{field}: unknown dtype {name!r}; expected one of "
                         + ", ".join(DTYPES))
    return name


def qscheme_name(value: Any, field: str) -> str:
    """The name of a qscheme given as a string or a torch.qscheme."""
    name = _strip_torch(value)
    if not isinstance(name, str):
        raise TypeError(f"{field}: expected a qscheme (a string such as "
                        f"'per_tensor_affine' or a torch.qscheme), got "
                        f"{type(value).__name__} {value!r}")
    if name not in QSCHEMES:
        raise ValueError(f"{field}: unknown qscheme {name!r}; expected one of "
                         + ", ".join(QSCHEMES))
    return name


def check_int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field}: expected an integer, got {type(value).__name__} {value!r}")
    return int(value)


def check_number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{field}: expected a number, got {type(value).__name__} {value!r}")
    return float(value)


def check_bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{field}: expected True or False, got {type(value).__name__} {value!r}")
    return value


def check_str(value: Any, field: str, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{field}: expected {what} (a string), got {type(value).__name__} {value!r}")
    return value


def check_keys(d: Any, allowed: Tuple[str, ...], field: str, what: str) -> dict:
    """`d` as a dict whose keys are all in `allowed`."""
    if not isinstance(d, dict):
        raise TypeError(f"{field}: expected {what} (a dict), got {type(d).__name__} {d!r}")
    for key in d:
        if key not in allowed:
            expected = ", ".join(f'"{k}"' for k in allowed)
            raise ValueError(f"{field}: unknown key {key!r} in {what}; expected {expected}")
    return d


def join_path(path: str, child: str) -> str:
    if child.startswith("["):
        return path + child
    return f"{path}.{child}" if path else child
