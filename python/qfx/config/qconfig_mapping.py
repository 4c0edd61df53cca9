"""QConfigMapping (torch.ao.quantization.qconfig_mapping)."""

from __future__ import annotations

import functools
import json
import re
from collections import OrderedDict
from typing import Any, Dict, Optional, Tuple

from qfx.config import _golden
from qfx.config._types import check_int, check_keys, check_str
from qfx.config.qconfig import (
    DEFAULT_QCONFIG_BACKENDS,
    QConfig,
    as_qconfig,
    qconfig_from_dict,
    qconfig_to_dict,
)

_KEYS: Tuple[str, ...] = ("", "object_type", "module_name_regex", "module_name",
                          "module_name_object_type_order")


def _object_type_name(object_type: Any, field: str) -> str:
    """Object types are strings: op names ("tosa.conv2d"), PyTorch's public
    names ("torch.nn.Conv2d"), bare method names ("reshape"). PyTorch classes
    and functions are accepted and named as the golden data names them."""
    if isinstance(object_type, str):
        if not object_type:
            raise ValueError(f"{field}: expected an object type, got an empty string")
        _warn_if_unknown(object_type, field)
        return object_type
    from qfx.config._torch import torch_object_name

    return torch_object_name(object_type, field)


def _warn_if_unknown(name: str, field: str) -> None:
    """Warns about a string naming nothing PyTorch has (a misspelt
    "torch.nn.Conv2D" or "reshap"), which no op would ever match: a
    "torch." or "operator." name must be a public class or function, a bare
    name a Tensor method. Other names (op names of a dialect) are not
    checked, nor anything without PyTorch installed."""
    if "." in name and not name.startswith(("torch.", "operator.")):
        return
    try:
        public, methods = _known_object_types()
    except ImportError:  # pragma: no cover - torch is optional
        return
    known = public if "." in name else methods
    if name in known:
        return
    import difflib
    import warnings

    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    what = "public class or function of PyTorch" if "." in name else "Tensor method"
    warnings.warn(f"{field}: {name!r} is no {what}: no op matches it{hint}", UserWarning,
                  stacklevel=4)


@functools.lru_cache(maxsize=None)
def _known_object_types() -> Tuple[frozenset, frozenset]:
    """PyTorch's public class and function names, and the bare names of
    Tensor methods (with the default mappings' method names: PyTorch's also
    name "hardsigmoid", no method)."""
    import torch
    from qfx.config._torch import _public_names

    public = frozenset(name for name, _ in _public_names().values())
    methods = {attr for attr in dir(torch.Tensor) if not attr.startswith("__")}
    methods.update(entry[0] for mapping in _golden.load("qconfig_mappings.json").values()
                   for entry in mapping["object_type"] if "." not in entry[0])
    return public, frozenset(methods)


def _posix_regex_problem(regex: str) -> Optional[str]:
    """Why quant-opt cannot match `regex`, or None. quant-opt translates
    Python's syntax to POSIX extended regexes and rejects what it cannot
    translate (translatePythonRegex in lib/Config/QConfigMapping.cpp)."""
    in_bracket = False
    bracket_start = 0
    i, e = 0, len(regex)
    while i < e:
        c = regex[i]
        if c == "\\":
            if i + 1 == e:
                return "ends with a lone backslash"
            i += 1
            nxt = regex[i]
            if nxt in "dDwWsS":
                if in_bracket and nxt in "DWS":
                    return f"the escape \\{nxt} inside [...] is not supported"
            elif nxt not in "nt":
                if nxt.isascii() and nxt.isalnum():
                    return (f"the escape \\{nxt} is not supported (qfx matches module names "
                            "with POSIX extended regexes)")
                if in_bracket and nxt in "]^-":
                    return f"the escape \\{nxt} inside [...] is not supported"
        elif in_bracket:
            if c == "]" and i != bracket_start:
                in_bracket = False
        elif c == "[":
            in_bracket = True
            if i + 1 < e and regex[i + 1] == "^":
                i += 1
            bracket_start = i + 1
        elif c == "(" and i + 1 < e and regex[i + 1] == "?":
            return "(?...) groups are not supported"
        elif (c == "?" and i > 0 and regex[i - 1] in "*+?}"
              and not (i > 1 and regex[i - 2] == "\\")):
            return "lazy quantifiers are not supported"
        i += 1
    if in_bracket:
        return "unterminated [...]"
    return None


def _check_regex(regex: Any, field: str) -> None:
    check_str(regex, field, "a module name regex")
    problem = _posix_regex_problem(regex)
    if problem is not None:
        raise ValueError(f"{field}: regex {regex!r}: {problem}")
    try:
        re.compile(regex)
    except re.error as e:
        raise ValueError(f"{field}: invalid regex {regex!r}: {e}") from None


class QConfigMapping:
    """Which QConfig each op gets, with PyTorch's five kinds of keys.

    Priority, lowest first: global < object type < module name regex <
    module name < (module name, object type, index). Setting a key again
    replaces its QConfig in place; None means "do not quantize"."""

    def __init__(self) -> None:
        self.global_qconfig: Optional[QConfig] = None
        self.object_type_qconfigs: "OrderedDict[str, Optional[QConfig]]" = OrderedDict()
        self.module_name_regex_qconfigs: "OrderedDict[str, Optional[QConfig]]" = OrderedDict()
        self.module_name_qconfigs: "OrderedDict[str, Optional[QConfig]]" = OrderedDict()
        self.module_name_object_type_order_qconfigs: (
            "OrderedDict[Tuple[str, str, int], Optional[QConfig]]") = OrderedDict()

    def set_global(self, global_qconfig: Optional[QConfig]) -> "QConfigMapping":
        self.global_qconfig = as_qconfig(global_qconfig, '""')
        return self

    def set_object_type(self, object_type: Any, qconfig: Optional[QConfig]) -> "QConfigMapping":
        name = _object_type_name(object_type, "object_type")
        self.object_type_qconfigs[name] = as_qconfig(qconfig, f"object_type[{name!r}]")
        return self

    def set_module_name_regex(self, module_name_regex: str,
                              qconfig: Optional[QConfig]) -> "QConfigMapping":
        _check_regex(module_name_regex, "module_name_regex")
        self.module_name_regex_qconfigs[module_name_regex] = as_qconfig(
            qconfig, f"module_name_regex[{module_name_regex!r}]")
        return self

    def set_module_name(self, module_name: str, qconfig: Optional[QConfig]) -> "QConfigMapping":
        check_str(module_name, "module_name", "a module name")
        self.module_name_qconfigs[module_name] = as_qconfig(qconfig, f"module_name[{module_name!r}]")
        return self

    def set_module_name_object_type_order(self, module_name: str, object_type: Any, index: int,
                                          qconfig: Optional[QConfig]) -> "QConfigMapping":
        check_str(module_name, "module_name_object_type_order", "a module name")
        name = _object_type_name(object_type, "module_name_object_type_order")
        check_int(index, "module_name_object_type_order: index")
        if index < 0:
            raise ValueError(f"module_name_object_type_order: expected an order index >= 0, "
                             f"got {index}")
        key = (module_name, name, index)
        self.module_name_object_type_order_qconfigs[key] = as_qconfig(
            qconfig, f"module_name_object_type_order[{key!r}]")
        return self

    def to_dict(self) -> Dict[str, Any]:
        """The JSON document quant-opt's --qfx-annotate-qconfig reads (all five keys)."""
        return {
            "": qconfig_to_dict(self.global_qconfig),
            "object_type": [[t, qconfig_to_dict(q)] for t, q in self.object_type_qconfigs.items()],
            "module_name_regex": [[r, qconfig_to_dict(q)]
                                  for r, q in self.module_name_regex_qconfigs.items()],
            "module_name": [[n, qconfig_to_dict(q)] for n, q in self.module_name_qconfigs.items()],
            "module_name_object_type_order": [
                [n, t, i, qconfig_to_dict(q)]
                for (n, t, i), q in self.module_name_object_type_order_qconfigs.items()],
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, **kwargs)

    def save(self, path: Any) -> None:
        """Writes to_json() to `path`, for quant-opt's qconfig-mapping option."""
        with open(path, "w") as f:
            f.write(self.to_json(indent=1))
            f.write("\n")

    @classmethod
    def from_dict(cls, d: Any) -> "QConfigMapping":
        """A mapping from its dict or a preset string ("default:x86"), with
        quant-opt's checks; errors name the JSON path."""
        if isinstance(d, str):
            backend = d[len("default:"):] if d.startswith("default:") else None
            if backend not in DEFAULT_QCONFIG_BACKENDS:
                raise ValueError(f"unknown qconfig mapping preset {d!r}; expected one of "
                                 + ", ".join("default:" + b for b in DEFAULT_QCONFIG_BACKENDS))
            return get_default_qconfig_mapping(backend)
        check_keys(d, _KEYS, "qconfig mapping", "a qconfig mapping")
        mapping = cls()
        if "" in d:
            mapping.global_qconfig = qconfig_from_dict(d[""], '""')
        arity = {"object_type": 2, "module_name_regex": 2, "module_name": 2,
                 "module_name_object_type_order": 4}
        for section in _KEYS[1:]:
            entries = d.get(section, [])
            if not isinstance(entries, (list, tuple)):
                raise TypeError(f"{section}: expected a list, got {type(entries).__name__}")
            for i, entry in enumerate(entries):
                path = f"{section}[{i}]"
                if not isinstance(entry, (list, tuple)) or len(entry) != arity[section]:
                    shape = ("[NAME, TYPE, INDEX, QCONFIG|null]" if arity[section] == 4
                             else "[KEY, QCONFIG|null]")
                    raise ValueError(f"{path}: expected {shape}, got {entry!r}")
                qconfig = qconfig_from_dict(entry[-1], f"{path}[{arity[section] - 1}]")
                if section == "object_type":
                    mapping.set_object_type(check_str(entry[0], path + "[0]", "an object type"),
                                            qconfig)
                elif section == "module_name_regex":
                    _check_regex(entry[0], path + "[0]")
                    mapping.set_module_name_regex(entry[0], qconfig)
                elif section == "module_name":
                    mapping.set_module_name(check_str(entry[0], path + "[0]", "a module name"),
                                            qconfig)
                else:
                    check_str(entry[0], path + "[0]", "a module name")
                    check_str(entry[1], path + "[1]", "an object type")
                    check_int(entry[2], path + "[2]")
                    if entry[2] < 0:
                        raise ValueError(f"{path}[2]: expected an order index >= 0, got {entry[2]}")
                    mapping.set_module_name_object_type_order(entry[0], entry[1], entry[2], qconfig)
        return mapping

    @classmethod
    def from_json(cls, text: str) -> "QConfigMapping":
        return cls.from_dict(json.loads(text))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QConfigMapping):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"QConfigMapping({self.to_dict()!r})"


def get_default_qconfig_mapping(backend: str = "x86", version: int = 0) -> QConfigMapping:
    """torch's get_default_qconfig_mapping(backend) for x86, fbgemm, qnnpack
    or onednn, read from the golden data PyTorch wrote (the C++ presets are
    tested against the same file)."""
    if backend not in DEFAULT_QCONFIG_BACKENDS:
        raise ValueError(f"backend: unknown backend {backend!r}; expected one of "
                         f"{', '.join(DEFAULT_QCONFIG_BACKENDS)}")
    if version != 0:
        raise ValueError(f"version: qfx has PyTorch 1.13's version 0 only, got {version!r}")
    return QConfigMapping.from_dict(_golden.load("qconfig_mappings.json")[backend])
