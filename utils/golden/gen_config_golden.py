#!/usr/bin/python3
"""Dumps PyTorch 1.13's quantization configuration as qfx's golden data.

Regenerate (from the repository root, with Debian's python3-torch):

    /usr/bin/python3 utils/golden/gen_config_golden.py test/Unit/Config/golden

Writes, in qfx's JSON format (docs/Config.md):
  qconfig_presets.json    the named QConfigs of qconfig.py that are made of
                          observers, and get_default_qconfig(backend)
  qconfig_mappings.json   get_default_qconfig_mapping(backend)
  resolution.json         QConfigs PyTorch's own lookup functions pick for
                          call_function / call_module / call_method nodes
                          under a few QConfigMappings
  backend_configs.json    the x86, fbgemm, qnnpack and native backend tables, with
                          patterns by public names in forward order and
                          dtype configs as indices into "dtype_configs"
  qconfig_support.json    whether PyTorch's prepare accepts a QConfig for a
                          dtype config (_is_pattern_dtype_config_and_qconfig_
                          supported_by_backend on a one-node graph)
"""

import importlib
import json
import operator
import os
import sys
import warnings

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.intrinsic as nni
import torch.nn.intrinsic.qat as nniqat
import torch.nn.qat as nnqat
from torch.ao.quantization import QConfigMapping, get_default_qconfig
from torch.ao.quantization import qconfig as qconfig_module
from torch.ao.quantization.backend_config import (
    BackendConfig,
    BackendPatternConfig,
    DTypeConfig,
    DTypeWithConstraints,
    get_fbgemm_backend_config,
    get_native_backend_config,
    get_qnnpack_backend_config,
)
from torch.ao.quantization.backend_config.x86 import get_x86_backend_config
from torch.ao.quantization.fx.qconfig_mapping_utils import (
    maybe_adjust_qconfig_for_module_name_object_type_order,
)
from torch.ao.quantization.observer import _PartialWrapper
from torch.ao.quantization.qconfig import QConfig
from torch.ao.quantization.qconfig_mapping import get_default_qconfig_mapping
from torch.ao.quantization.qconfig_mapping_utils import (
    get_object_type_qconfig,
    maybe_adjust_qconfig_for_module_type_or_name,
)
from torch.ao.quantization.utils import _parent_name

fx_prepare = importlib.import_module("torch.ao.quantization.fx.prepare")

BACKENDS = ["x86", "fbgemm", "qnnpack", "onednn"]

# The QConfigs of qconfig.py whose activation and weight are observers (the
# others hold fake quantizers or debugging observers, which qfx leaves out).
QCONFIG_PRESETS = [
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
]

OBSERVERS = {
    "MinMaxObserver",
    "MovingAverageMinMaxObserver",
    "PerChannelMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver",
    "HistogramObserver",
    "PlaceholderObserver",
    "NoopObserver",
    "FixedQParamsObserver",
    "ReuseInputObserver",
}


def torch_name(value):
    """'torch.quint8' -> 'quint8', 'torch.per_tensor_affine' -> ..."""
    text = str(value)
    assert text.startswith("torch."), text
    return text[len("torch."):]


def observer_json(ctr):
    """An observer constructor (class or Observer.with_args(...)) as JSON."""
    if isinstance(ctr, _PartialWrapper):
        assert not ctr.p.args and not ctr.callable_args, ctr
        cls, kwargs = ctr.p.func, dict(ctr.p.keywords)
    else:
        cls, kwargs = ctr, {}
    assert cls.__name__ in OBSERVERS, cls
    result = {"observer": cls.__name__}
    for key, value in kwargs.items():
        if isinstance(value, (torch.dtype, torch.qscheme)):
            result[key] = torch_name(value)
        else:
            assert isinstance(value, (bool, int, float)), (key, value)
            result[key] = value
    return result


def qconfig_json(qconfig):
    if qconfig is None:
        return None
    return {
        "activation": observer_json(qconfig.activation),
        "weight": observer_json(qconfig.weight),
    }


# Public names of the objects PyTorch's tables and mappings refer to, first
# namespace wins (F.conv2d is torch.conv2d: it is named by F).
NAMESPACES = [
    ("torch.nn", nn),
    ("torch.nn.intrinsic", nni),
    ("torch.nn.intrinsic.qat", nniqat),
    ("torch.nn.qat", nnqat),
    ("torch.nn.functional", F),
    ("torch", torch),
    ("torch._C._nn", torch._C._nn),
    ("operator", operator),
]
_NAMES = {}
for prefix, namespace in NAMESPACES:
    for attr in sorted(dir(namespace)):
        if attr.startswith("__"):
            continue
        obj = getattr(namespace, attr, None)
        if callable(obj) and not isinstance(obj, type(torch)):
            _NAMES.setdefault(id(obj), f"{prefix}.{attr}")


_OBJECTS = {}
for prefix, namespace in NAMESPACES:
    for attr in sorted(dir(namespace)):
        obj = getattr(namespace, attr, None)
        if id(obj) in _NAMES and _NAMES[id(obj)] == f"{prefix}.{attr}":
            _OBJECTS[f"{prefix}.{attr}"] = obj


def obj(name):
    """The PyTorch object a public name names, or the name itself for names
    PyTorch does not have ("tosa.conv2d", "MyModel")."""
    if name.startswith(("torch.", "operator.")):
        return _OBJECTS[name]
    return name


def object_name(obj, method_prefix=""):
    """A type, function or method name as a string; methods (PyTorch's string
    keys) get `method_prefix`."""
    if isinstance(obj, str):
        return method_prefix + obj
    return _NAMES[id(obj)]


def mapping_json(mapping):
    d = mapping.to_dict()
    return {
        "": qconfig_json(d[""]),
        "object_type": [[object_name(t), qconfig_json(q)] for t, q in d["object_type"]],
        "module_name_regex": [[r, qconfig_json(q)] for r, q in d["module_name_regex"]],
        "module_name": [[n, qconfig_json(q)] for n, q in d["module_name"]],
        "module_name_object_type_order": [
            [n, object_name(t), i, qconfig_json(q)]
            for n, t, i, q in d["module_name_object_type_order"]
        ],
    }


def gen_qconfig_presets():
    presets = {name: qconfig_json(getattr(qconfig_module, name)) for name in QCONFIG_PRESETS}
    defaults = {b: qconfig_json(get_default_qconfig(b)) for b in BACKENDS}
    return {"presets": presets, "get_default_qconfig": defaults}


def gen_qconfig_mappings():
    return {b: mapping_json(get_default_qconfig_mapping(b)) for b in BACKENDS}


# --- resolution --------------------------------------------------------------

Q = qconfig_module


def resolution_mappings():
    """QConfigMappings over PyTorch's types and functions, and over strings
    for op names PyTorch does not have (it compares object types by
    equality, so a string behaves like one more type)."""
    parents = (
        QConfigMapping()
        .set_global(Q.default_qconfig)
        .set_object_type(obj("torch.nn.Conv2d"), Q.default_per_channel_qconfig)
        .set_object_type(obj("tosa.conv2d"), Q.default_dynamic_qconfig)
        .set_object_type(obj("torch.nn.functional.linear"), None)
        .set_object_type(obj("torch.nn.Linear"), Q.float16_static_qconfig)
        .set_object_type(obj("torch.nn.Conv2d"), Q.default_symmetric_qnnpack_qconfig)
        .set_module_name_regex(r"features\.1\..*", Q.default_reuse_input_qconfig)
        .set_module_name_regex(r"head.*", None)
        .set_module_name_regex(r"head\.fc[0-9]+", Q.float16_static_qconfig)
        .set_module_name_regex(r"block\d+\.conv$", Q.per_channel_dynamic_qconfig)
        .set_module_name("features", Q.default_per_channel_qconfig)
        .set_module_name("features.0", None)
        .set_module_name("features.1.conv", Q.float16_dynamic_qconfig)
        .set_module_name("", Q.default_dynamic_qconfig)
        .set_module_name("classifier", get_default_qconfig("qnnpack"))
        .set_module_name("features.0", get_default_qconfig("x86"))
        .set_module_name_object_type_order(
            "features.1", obj("torch.nn.functional.linear"), 0, Q.default_qconfig)
        .set_module_name_object_type_order(
            "features.1", obj("torch.nn.functional.linear"), 1, None)
        .set_module_name_object_type_order(
            "features", obj("torch.nn.Conv2d"), 2, Q.per_channel_dynamic_qconfig)
        .set_module_name_object_type_order(
            "", obj("torch.add"), 0, get_default_qconfig("onednn"))
        .set_module_name_object_type_order(
            "head", obj("tosa.conv2d"), 1, Q.default_qconfig)
    )
    no_global = (
        QConfigMapping()
        .set_module_name_regex(r"a.*", Q.default_qconfig)
        .set_module_name_regex(r"a\.b.*", Q.float16_static_qconfig)
        .set_module_name_regex(r"a.*", Q.default_per_channel_qconfig)
        .set_module_name_regex(r"[xy]+\.(conv|fc)[0-9]*", Q.default_dynamic_qconfig)
        .set_object_type(obj("torch.add"), Q.default_qconfig)
        .set_object_type("reshape", Q.default_reuse_input_qconfig)
        .set_module_name("a.b", None)
        .set_module_name("x", Q.float16_dynamic_qconfig)
        .set_module_name_object_type_order("a.b", obj("torch.add"), 0, Q.default_qconfig)
        .set_module_name_object_type_order("x", obj("torch.nn.Linear"), 1, None)
    )
    return {
        "parents_regexes_overrides": parents,
        "no_global": no_global,
        "default_x86": get_default_qconfig_mapping("x86"),
    }


MODULE_NAMES = ["", "features", "features.0", "features.0.conv", "features.1",
                "features.1.conv", "features.10", "featuresX", "head", "head.fc1",
                "headless", "classifier.fc", "block3.conv", "block3.conv.x",
                "a", "a.b", "a.b.c", "ab", "x", "x.fc", "x.fc2", "yx.conv1"]
FUNCTIONS = ["torch.nn.functional.linear", "torch.add", "tosa.conv2d"]
MODULE_TYPES = ["torch.nn.Conv2d", "torch.nn.Linear", "torch.nn.Sigmoid",
                "MyModel"]
METHODS = ["reshape", "sigmoid"]
INDICES = [0, 1, 2]


def resolve_call_function(mapping, path, target, module_type, index):
    # generate_qconfig_map, node.op == "call_function".
    qconfig = get_object_type_qconfig(mapping, target, mapping.global_qconfig)
    qconfig = maybe_adjust_qconfig_for_module_type_or_name(
        mapping, module_type, path, qconfig)
    return maybe_adjust_qconfig_for_module_name_object_type_order(
        mapping, path, target, index, qconfig)


def resolve_call_module(mapping, target, module_type, index):
    # generate_qconfig_map, node.op == "call_module": counted in the parent.
    qconfig = maybe_adjust_qconfig_for_module_type_or_name(
        mapping, module_type, target, mapping.global_qconfig)
    parent, _ = _parent_name(target)
    return maybe_adjust_qconfig_for_module_name_object_type_order(
        mapping, parent, module_type, index, qconfig)


def resolve_call_method(mapping, path, method, module_type):
    # generate_qconfig_map, node.op == "call_method".
    qconfig = maybe_adjust_qconfig_for_module_type_or_name(
        mapping, method, path, mapping.global_qconfig)
    return maybe_adjust_qconfig_for_module_type_or_name(
        mapping, module_type, path, qconfig)


def gen_resolution():
    qconfigs = []

    def qconfig_index(qconfig):
        if qconfig is None:
            return None
        j = qconfig_json(qconfig)
        if j not in qconfigs:
            qconfigs.append(j)
        return qconfigs.index(j)

    cases = {}
    for name, mapping in resolution_mappings().items():
        queries = []
        for path in MODULE_NAMES:
            for target in FUNCTIONS:
                for module_type in ["torch.nn.Conv2d", "MyModel"]:
                    for index in INDICES:
                        q = resolve_call_function(mapping, path, obj(target), obj(module_type), index)
                        queries.append(["call_function", path, target, module_type,
                                        index, qconfig_index(q)])
            for module_type in MODULE_TYPES[:3]:
                for index in INDICES:
                    q = resolve_call_module(mapping, path, obj(module_type), index)
                    queries.append(["call_module", path, module_type, index,
                                    qconfig_index(q)])
            for method in METHODS:
                for module_type in MODULE_TYPES[1:3]:
                    q = resolve_call_method(mapping, path, method, obj(module_type))
                    queries.append(["call_method", path, method, module_type,
                                    qconfig_index(q)])
        cases[name] = {"mapping": mapping_json(mapping), "queries": queries}
    return {"qconfigs": qconfigs, "cases": cases}


# --- backend tables ----------------------------------------------------------


def forward_pattern(pattern):
    """PyTorch's reversed, nested pattern (ReLU, (BN, Conv)) in forward
    order: [Conv, BN, ReLU]."""
    if isinstance(pattern, tuple):
        assert len(pattern) == 2, pattern
        return forward_pattern(pattern[1]) + forward_pattern(pattern[0])
    return [object_name(pattern, "Tensor.")]


def dtype_with_constraints_json(d):
    bounds = {
        "quant_min_lower_bound": d.quant_min_lower_bound,
        "quant_max_upper_bound": d.quant_max_upper_bound,
        "scale_min_lower_bound": d.scale_min_lower_bound,
        "scale_max_upper_bound": d.scale_max_upper_bound,
    }
    bounds = {k: v for k, v in bounds.items() if v is not None}
    if not bounds:
        return torch_name(d.dtype)
    return {"dtype": torch_name(d.dtype), **bounds}


def dtype_config_json(c):
    result = {}
    for key, d in [("input_dtype", c.input_dtype_with_constraints),
                   ("output_dtype", c.output_dtype_with_constraints),
                   ("weight_dtype", c.weight_dtype_with_constraints)]:
        if d.dtype is not None:
            result[key] = dtype_with_constraints_json(d)
    if c.bias_dtype is not None:
        result["bias_dtype"] = torch_name(c.bias_dtype)
    if c.is_dynamic is not None:
        result["is_dynamic"] = c.is_dynamic
    return result


def pattern_config_json(c, dtype_config_index):
    result = {
        "pattern": forward_pattern(c.pattern),
        "observation_type": c.observation_type.name.lower(),
        "dtype_configs": [dtype_config_index(d) for d in c.dtype_configs],
    }
    if c._num_tensor_args_to_observation_type:
        result["num_tensor_args_to_observation_type"] = {
            str(k): v.name.lower()
            for k, v in c._num_tensor_args_to_observation_type.items()}
    if c._overwrite_output_observer is not None:
        result["overwrite_output_observer"] = observer_json(c._overwrite_output_observer)
    return result


def gen_backend_configs():
    tables = {"x86": get_x86_backend_config(),
              "fbgemm": get_fbgemm_backend_config(),
              "qnnpack": get_qnnpack_backend_config(),
              "native": get_native_backend_config()}
    # Dtype configs are listed once and referred to by index.
    dtype_configs = []

    def dtype_config_index(d):
        j = dtype_config_json(d)
        if j not in dtype_configs:
            dtype_configs.append(j)
        return dtype_configs.index(j)

    result = {name: [pattern_config_json(c, dtype_config_index) for c in t.configs.values()]
              for name, t in tables.items()}
    result["dtype_configs"] = dtype_configs
    return result


# --- QConfig support ---------------------------------------------------------


class _ObservedHandler:
    """Stands in for the QuantizeHandler of an op with observed inputs and
    output."""

    def input_output_observed(self):
        return True


def _one_node_graph(with_weight, with_bias):
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    if with_weight:
        args = (x, graph.placeholder("w"))
        if with_bias:
            args = args + (graph.placeholder("b"),)
        node = graph.call_function(F.linear, args)
        pattern = F.linear
    else:
        node = graph.call_function(torch.sigmoid, (x,))
        pattern = torch.sigmoid
    graph.output(node)
    return node, pattern


def pytorch_supports(qconfig, dtype_config, with_weight, with_bias):
    node, pattern = _one_node_graph(with_weight, with_bias)
    pattern_config = BackendPatternConfig(pattern).add_dtype_config(dtype_config)
    if with_weight:
        pattern_config._set_input_type_to_index({"weight": 1, "bias": 2})
    backend_config = BackendConfig("golden").set_backend_pattern_config(pattern_config)
    target_dtype = fx_prepare.get_target_activation_dtype_for_node(
        node, qconfig, 0, 0, [], [], _ObservedHandler(), {}, {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fx_prepare._is_pattern_dtype_config_and_qconfig_supported_by_backend(
            pattern, [node], {node.name: target_dtype}, qconfig, backend_config)


def custom_dtype_configs():
    quint8_0_127 = DTypeWithConstraints(dtype=torch.quint8, quant_min_lower_bound=0,
                                        quant_max_upper_bound=127)
    qint8_sym = DTypeWithConstraints(dtype=torch.qint8, quant_min_lower_bound=-127,
                                     quant_max_upper_bound=127)
    quint8_scale = DTypeWithConstraints(dtype=torch.quint8, scale_min_lower_bound=1e-5)
    return [
        DTypeConfig(input_dtype=quint8_0_127, output_dtype=quint8_0_127,
                    weight_dtype=torch.qint8, bias_dtype=torch.float),
        DTypeConfig(input_dtype=torch.quint8, output_dtype=torch.quint8,
                    weight_dtype=qint8_sym, bias_dtype=torch.float),
        DTypeConfig(input_dtype=quint8_scale, output_dtype=quint8_scale),
        DTypeConfig(input_dtype=torch.float16, output_dtype=torch.float16,
                    weight_dtype=torch.float16, bias_dtype=torch.float16),
        DTypeConfig(input_dtype=torch.quint8, output_dtype=torch.quint8,
                    weight_dtype=torch.qint8),
        DTypeConfig(input_dtype=torch.qint8, output_dtype=torch.qint8,
                    weight_dtype=qint8_sym, bias_dtype=torch.float),
    ]


def custom_qconfigs():
    """QConfigs that exercise the constraint checks beyond the presets."""
    from torch.ao.quantization.observer import (
        MinMaxObserver,
        MovingAverageMinMaxObserver,
        default_fixed_qparams_range_0to1_observer,
        default_weight_observer,
        per_channel_weight_observer_range_neg_127_to_127,
        weight_observer_range_neg_127_to_127,
    )
    return {
        "fixed_qparams_range_0to1": QConfig(
            activation=default_fixed_qparams_range_0to1_observer,
            weight=default_weight_observer),
        "qint8_minmax_eps_1e-5": QConfig(
            activation=MinMaxObserver.with_args(dtype=torch.qint8, eps=1e-5),
            weight=weight_observer_range_neg_127_to_127),
        "moving_average_reduce_range": QConfig(
            activation=MovingAverageMinMaxObserver.with_args(reduce_range=True),
            weight=per_channel_weight_observer_range_neg_127_to_127),
        "quint8_full_range": QConfig(
            activation=MinMaxObserver.with_args(quant_min=0, quant_max=255),
            weight=MinMaxObserver.with_args(dtype=torch.qint8, quant_min=-100,
                                            quant_max=100)),
    }


def gen_qconfig_support():
    dtype_configs = []
    for table in [get_x86_backend_config(), get_qnnpack_backend_config(),
                  get_native_backend_config()]:
        for c in table.configs.values():
            for d in c.dtype_configs:
                if dtype_config_json(d) not in [dtype_config_json(e) for e in dtype_configs]:
                    dtype_configs.append(d)
    dtype_configs += custom_dtype_configs()
    qconfigs = {name: getattr(qconfig_module, name) for name in QCONFIG_PRESETS}
    for backend in BACKENDS:
        qconfigs["get_default_qconfig:" + backend] = get_default_qconfig(backend)
    qconfigs.update(custom_qconfigs())
    cases = []
    for name, qconfig in qconfigs.items():
        for index, d in enumerate(dtype_configs):
            for with_weight, with_bias in [(False, False), (True, False), (True, True)]:
                cases.append([name, index, with_weight, with_bias,
                              pytorch_supports(qconfig, d, with_weight, with_bias)])
    return {
        "qconfigs": {name: qconfig_json(q) for name, q in qconfigs.items()},
        "dtype_configs": [dtype_config_json(d) for d in dtype_configs],
        "cases": cases,
    }


def write(out_dir, name, data):
    """One line per element of the top-level lists and of their dicts' lists,
    to keep the files small and their diffs readable."""
    path = os.path.join(out_dir, name)

    def dump(value, depth):
        if depth < 3 and isinstance(value, dict) and value:
            items = [json.dumps(k) + ": " + dump(v, depth + 1) for k, v in sorted(value.items())]
            return "{\n" + ",\n".join(items) + "\n}"
        if depth < 3 and isinstance(value, list) and value:
            return "[\n" + ",\n".join(json.dumps(v, sort_keys=True, separators=(",", ":"))
                                       for v in value) + "\n]"
        return json.dumps(value, sort_keys=True, separators=(",", ":"))

    with open(path, "w") as f:
        f.write(dump(data, 0))
        f.write("\n")
    print("wrote", path)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    assert torch.__version__.startswith("1.13"), torch.__version__
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    warnings.simplefilter("ignore")
    write(out_dir, "qconfig_presets.json", gen_qconfig_presets())
    write(out_dir, "qconfig_mappings.json", gen_qconfig_mappings())
    write(out_dir, "resolution.json", gen_resolution())
    write(out_dir, "backend_configs.json", gen_backend_configs())
    write(out_dir, "qconfig_support.json", gen_qconfig_support())


if __name__ == "__main__":
    main()
