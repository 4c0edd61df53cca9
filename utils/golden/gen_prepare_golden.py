#!/usr/bin/env python3
"""Golden data for qfx-prepare: the observers PyTorch 1.13's prepare_fx puts
into the test models, and what they collect.

For every model of utils/export_test_models.py and every configuration below
(x86 and qnnpack with their default QConfigMappings, and three other mappings
read from test/Transforms/Inputs/parity-mapping-*.json, qfx's JSON format),
runs torch.ao.quantization.quantize_fx.prepare_fx with the backend's config,
calibrates on NAME.calib.npy (one sample at a time, as quant-run does) and
writes one JSON file per (model, configuration):

  {"model": ..., "config": ..., "observers": [
     {"observer": CLASS, "dtype": ..., "qscheme": ..., "reduce_range": ...,
      "quant_min": ..., "quant_max": ..., "ch_axis": ..., "values": [FX names],
      "min": [...], "max": [...], "scale": ..., "zero_point": ...,
      "histogram_sum": ..., "histogram_centroid": ...}, ...]}

One entry per observer instance (instances that PyTorch shares between
several values are one entry listing all of them). Weights are not in
prepare_fx's graph for module calls: for every quantized weighted module the
entry is the QConfig's weight observer run on the module's (fused) weight, as
convert_fx does, with "values": ["<module>.weight"].

utils/golden/check_prepare_golden.py compares a model prepared by qfx-prepare
and calibrated by quant-run with these files (test/Transforms/
qfx-prepare-parity.test). Regenerate with:

    /usr/bin/python3 utils/golden/gen_prepare_golden.py
"""

from __future__ import annotations

import importlib
import json
import operator  # noqa: F401 (object types such as operator.add)
import pathlib
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.ao.quantization import QConfigMapping, get_default_qconfig_mapping
from torch.ao.quantization import qconfig as qconfigs
from torch.ao.quantization.backend_config import get_qnnpack_backend_config
from torch.ao.quantization.backend_config.x86 import get_x86_backend_config
from torch.ao.quantization.quantize_fx import prepare_fx
from torch.ao.quantization.quantize import is_activation_post_process

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "utils"))

import export_test_models  # noqa: E402

INPUTS = REPO / "test" / "Transforms" / "Inputs"
MODELS_DIR = REPO / "test" / "Inputs" / "models"
OUT = INPUTS / "prepare-golden"

# name -> (qfx's qconfig-mapping option, backend)
CONFIGS = {
    "x86": ("default:x86", "x86"),
    "qnnpack": ("default:qnnpack", "qnnpack"),
    "mapping-x86": ("parity-mapping-x86.json", "x86"),
    "mapping-qnnpack": ("parity-mapping-qnnpack.json", "qnnpack"),
    # Fused modules (LinearReLU, ConvReLU2d) whose modules' object types are
    # None take the global QConfig (update_qconfig_for_fusion) and are
    # counted as their first module's type.
    "mapping-fused": ("parity-mapping-fused.json", "x86"),
}

# Configurations that leave a model nothing to observe.
NOTHING_OBSERVED = {("sigmoid_head", "mapping-fused")}

BACKEND_CONFIGS = {"x86": get_x86_backend_config, "qnnpack": get_qnnpack_backend_config}


def resolve_type(name: str):
    """"torch.nn.Conv2d" -> the class; "operator.add" -> the function."""
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def to_qconfig(value):
    if value is None:
        return None
    if isinstance(value, str):
        return getattr(qconfigs, value)
    raise ValueError(f"parity mappings use QConfig preset names only, got {value!r}")


def load_mapping(option: str) -> QConfigMapping:
    """qfx's mapping JSON (preset QConfigs only) as PyTorch's QConfigMapping."""
    if option.startswith("default:"):
        return get_default_qconfig_mapping(option.split(":", 1)[1])
    doc = json.loads((INPUTS / option).read_text())
    mapping = QConfigMapping()
    if "" in doc:
        mapping.set_global(to_qconfig(doc[""]))
    for name, qc in doc.get("object_type", []):
        mapping.set_object_type(resolve_type(name), to_qconfig(qc))
    for regex, qc in doc.get("module_name_regex", []):
        mapping.set_module_name_regex(regex, to_qconfig(qc))
    for name, qc in doc.get("module_name", []):
        mapping.set_module_name(name, to_qconfig(qc))
    for name, type_name, index, qc in doc.get("module_name_object_type_order", []):
        mapping.set_module_name_object_type_order(name, resolve_type(type_name), index, to_qconfig(qc))
    return mapping


def scalar(value):
    if isinstance(value, torch.Tensor):
        return value.tolist()
    if isinstance(value, torch.dtype):
        return str(value).replace("torch.", "")
    if isinstance(value, torch.qscheme):
        return str(value).replace("torch.", "")
    return value


def describe(observer) -> dict:
    """The observer's class, effective arguments and statistics."""
    entry = {"observer": type(observer).__name__}
    for attr in ("dtype", "qscheme", "reduce_range", "quant_min", "quant_max", "ch_axis"):
        if hasattr(observer, attr):
            entry[attr] = scalar(getattr(observer, attr))
    if hasattr(observer, "eps") and isinstance(observer.eps, torch.Tensor):
        entry["eps"] = float(observer.eps)
    if hasattr(observer, "compute_dtype") and observer.compute_dtype is not None:
        entry["compute_dtype"] = scalar(observer.compute_dtype)
    name = type(observer).__name__
    if name == "FixedQParamsObserver":
        entry["scale"] = float(observer.scale)
        entry["zero_point"] = int(observer.zero_point)
    elif hasattr(observer, "min_val") and observer.min_val.numel() > 0:
        entry["min"] = np.atleast_1d(observer.min_val.detach().numpy()).astype(float).tolist()
        entry["max"] = np.atleast_1d(observer.max_val.detach().numpy()).astype(float).tolist()
    if name == "HistogramObserver" and observer.histogram.numel() > 0:
        # The 2048 counts in brief: their sum and centroid (in bins).
        counts = observer.histogram.detach().double().numpy()
        entry["histogram_sum"] = float(counts.sum())
        entry["histogram_centroid"] = float((counts * np.arange(len(counts))).sum() / counts.sum())
    return entry


def observed_name(node, modules) -> str:
    while node.op == "call_module" and is_activation_post_process(modules[node.target]):
        node = node.args[0]
    return str(node.target) if node.op == "call_module" else node.name


def weighted_module(module):
    """The module holding the weight (the conv or linear of a fused module)."""
    if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear, nn.ConvTranspose2d)):
        return module
    if isinstance(module, nn.Sequential) and len(module) and hasattr(module[0], "weight"):
        return module[0]
    return None


def golden(model_name: str, config_name: str) -> dict:
    mapping_option, backend = CONFIGS[config_name]
    model, x, _ = export_test_models.build(model_name)
    calib = np.load(MODELS_DIR / f"{model_name}.calib.npy")
    prepared = prepare_fx(model, load_mapping(mapping_option), (x,),
                          backend_config=BACKEND_CONFIGS[backend]())
    with torch.no_grad():
        for sample in calib:
            prepared(torch.from_numpy(sample))
    modules = dict(prepared.named_modules(remove_duplicate=False))

    instances: dict = {}
    order: list = []
    quantized_modules: list = []
    for node in prepared.graph.nodes:
        if node.op != "call_module":
            continue
        module = modules[node.target]
        if is_activation_post_process(module):
            key = id(module)
            if key not in instances:
                instances[key] = (module, [])
                order.append(key)
            name = observed_name(node.args[0], modules)
            if name not in instances[key][1]:
                instances[key][1].append(name)
            continue
        weighted = weighted_module(module)
        qconfig = getattr(module, "qconfig", None)
        inputs_observed = any(
            isinstance(a, torch.fx.Node) and a.op == "call_module"
            and is_activation_post_process(modules[a.target]) for a in node.args)
        if weighted is not None and qconfig is not None and inputs_observed:
            quantized_modules.append((node.target, weighted, qconfig))

    observers = []
    for key in order:
        module, values = instances[key]
        entry = describe(module)
        entry["values"] = values
        observers.append(entry)
    for target, weighted, qconfig in quantized_modules:
        observer = qconfig.weight()
        observer(weighted.weight.detach())
        entry = describe(observer)
        entry["values"] = [f"{target}.weight"]
        observers.append(entry)
    return {
        "model": model_name,
        "config": config_name,
        "qconfig_mapping": mapping_option,
        "backend": backend,
        "observers": observers,
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for model_name in export_test_models.MODELS:
        for config_name in CONFIGS:
            if (model_name, config_name) in NOTHING_OBSERVED:
                continue
            doc = golden(model_name, config_name)
            path = OUT / f"{model_name}.{config_name}.json"
            path.write_text(json.dumps(doc, indent=1) + "\n")
            print(f"wrote {path.relative_to(REPO)}: {len(doc['observers'])} observers")


if __name__ == "__main__":
    main()
