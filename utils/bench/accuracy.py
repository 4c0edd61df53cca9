#!/usr/bin/python3
# ===- accuracy.py - int8 accuracy on Fashion-MNIST: qfx vs PyTorch -------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
"""Top-1 accuracy on Fashion-MNIST's 10,000 test images of the four models of
docs/example/fashion (trained by its train.py, weights committed): float,
PyTorch 1.13's int8 model (FX prepare_fx / convert_fx) and qfx's int8 program
(qfx.prepare_fx / convert_fx), per configuration, with the share of test
images on which qfx's and PyTorch's int8 predictions agree and the lowest
per-layer SQNR of qfx's int8 model against float (qfx.ns, on the first 100
test images).

Configurations (--configs, comma-separated; default all):

  x86-pc-hist       PyTorch's default x86 QConfigMapping: histogram
                    activations (reduce_range), per-channel symmetric weights;
                    the native BackendConfig, onednn engine
  x86-pc-minmax     the same with MinMaxObserver activations
  x86-pt-hist       per-tensor weights (default_weight_observer)
  x86-pt-minmax
  qnnpack-pt-hist   PyTorch's default qnnpack QConfigMapping (histogram, per-
                    tensor weights, no reduce_range); the qnnpack
                    BackendConfig, qnnpack engine
  qnnpack-pt-minmax
  qnnpack-pc-hist   per-channel weights (default_per_channel_weight_observer)
  qnnpack-pc-minmax
  x86-dynamic       dynamic quantization (default_dynamic_qconfig) of Linear
                    and LSTM, onednn engine (7-bit activations)
  qnnpack-dynamic   the same on qnnpack (8-bit activations)

Each QConfigMapping is PyTorch's default one for the backend with the chosen
observers in place of its default QConfig (LayerNorm keeps float weights,
softmax and sigmoid their fixed qparams). Static configurations calibrate on
--calibrate training images (a fixed random choice) in batches of --batch;
both int8 models run in batches of --batch, so qfx's compiled model has that
batch size. The CNNs have no dynamic rows (PyTorch quantizes only their
final Linear dynamically) and the LSTM only dynamic ones (PyTorch 1.13's
tables quantize nn.LSTM only dynamically).

With --statistics both (the default) each static row also gives qfx's
int8 accuracy when it takes PyTorch's calibration (qfx.convert_fx of
PyTorch's prepared model, qfx-import-statistics) and that model's
agreement with PyTorch: differences left there are arithmetic, the rest
calibration.

  /usr/bin/python3 utils/bench/accuracy.py [--models resnet,mobilenet,vit,lstm]
      [--configs x86-pc-hist,...] [--calibrate 1000] [--batch 100]
      [--test 10000] [--statistics both|qfx] [--sqnr] [--json FILE]

--sqnr prints the per-layer SQNR table of each row's qfx int8 model.

--auto-quantize BUDGET runs qfx.auto_quantize on each row instead (static
configurations): its eval_fn is top-1 on 2,000 training images that are not
calibration images (the validation set), its budget BUDGET points of that;
the table gives the chosen model's top-1 on the test images, its drop from
float and the layers it changed.

Needs qfx built (QFX_BUILD_DIR or build/) and Debian's dataset-fashion-mnist.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import pathlib
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

os.environ.setdefault("GLOG_minloglevel", "2")  # PyTorch's qnnpack warns on every dynamic call
import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "docs" / "example" / "fashion"))
import fashion  # noqa: E402
import train  # noqa: E402
import qfx  # noqa: E402
import qfx.ns  # noqa: E402

STATIC_CONFIGS = ("x86-pc-hist", "x86-pc-minmax", "x86-pt-hist", "x86-pt-minmax",
                  "qnnpack-pt-hist", "qnnpack-pt-minmax", "qnnpack-pc-hist", "qnnpack-pc-minmax")
DYNAMIC_CONFIGS = ("x86-dynamic", "qnnpack-dynamic")
CONFIGS = STATIC_CONFIGS + DYNAMIC_CONFIGS
# Which configurations apply to which model (see the docstring).
MODEL_CONFIGS = {"resnet": STATIC_CONFIGS, "mobilenet": STATIC_CONFIGS, "vit": CONFIGS,
                 "lstm": DYNAMIC_CONFIGS}


@dataclass
class Config:
    """One row's quantization: PyTorch's QConfigMapping and BackendConfig,
    the engine both run with, and qfx's name of the same BackendConfig."""

    name: str
    engine: str
    qconfig_mapping: Any
    torch_backend_config: Any
    qfx_backend_config: str
    dynamic: bool


def _mapping_with(backend: str, qconfig: Any) -> Any:
    """PyTorch's default QConfigMapping for `backend` with `qconfig` wherever
    it has its default QConfig (and its activation observer where LayerNorm
    has it)."""
    from torch.ao.quantization import QConfig, get_default_qconfig_mapping

    mapping = get_default_qconfig_mapping(backend)
    default = mapping.global_qconfig
    mapping.set_global(qconfig)
    for key, value in list(mapping.object_type_qconfigs.items()):
        if value is default:
            mapping.set_object_type(key, qconfig)
        elif value is not None and value.activation is default.activation:
            mapping.set_object_type(key, QConfig(activation=qconfig.activation,
                                                 weight=value.weight))
    return mapping


def make_config(name: str) -> Config:
    """The configuration named `name` (one of CONFIGS)."""
    from torch.ao import quantization as tq
    from torch.ao.quantization.backend_config import (get_native_backend_config,
                                                      get_qnnpack_backend_config)

    if name not in CONFIGS:
        raise ValueError(f"unknown configuration {name!r}; expected one of {', '.join(CONFIGS)}")
    backend = name.split("-")[0]
    engine = "qnnpack" if backend == "qnnpack" else "onednn"
    torch_backend = get_qnnpack_backend_config() if backend == "qnnpack" \
        else get_native_backend_config()
    qfx_backend = "qnnpack" if backend == "qnnpack" else "onednn"
    if name.endswith("dynamic"):
        mapping = (tq.QConfigMapping()
                   .set_object_type(torch.nn.Linear, tq.default_dynamic_qconfig)
                   .set_object_type(torch.nn.LSTM, tq.default_dynamic_qconfig))
        return Config(name, engine, mapping, torch_backend, qfx_backend, True)
    _, weights, observer = name.split("-")
    activation = {"hist": tq.HistogramObserver, "minmax": tq.MinMaxObserver}[observer]
    weight = {"pc": tq.default_per_channel_weight_observer,
              "pt": tq.default_weight_observer}[weights]
    qconfig = tq.QConfig(activation=activation.with_args(reduce_range=backend == "x86"),
                         weight=weight)
    return Config(name, engine, _mapping_with(backend, qconfig), torch_backend, qfx_backend,
                  False)


# ----- running the models ---------------------------------------------------


def batches(x: np.ndarray, batch: int) -> List[torch.Tensor]:
    if len(x) % batch:
        raise ValueError(f"{len(x)} images do not split into batches of {batch}")
    return [torch.from_numpy(x[i:i + batch]) for i in range(0, len(x), batch)]


def logits_of(run: Callable[[torch.Tensor], Any], inputs: Sequence[torch.Tensor]) -> np.ndarray:
    with torch.no_grad():
        return np.concatenate([np.asarray(torch.as_tensor(run(x)).detach()) for x in inputs])


def top1(logits: np.ndarray, labels: np.ndarray) -> float:
    return float((logits.argmax(1) == labels).mean() * 100)


def agreement(a: np.ndarray, b: np.ndarray) -> float:
    return float((a.argmax(1) == b.argmax(1)).mean() * 100)


def calibration_set(count: int, batch: int) -> List[torch.Tensor]:
    """`count` training images chosen with a fixed seed, in batches."""
    x, _ = fashion.load("train")
    order = np.random.default_rng(0).permutation(len(x))[:count]
    return batches(np.ascontiguousarray(x[order]), batch)


def validation_set(count: int, batch: int) -> Tuple[List[torch.Tensor], np.ndarray]:
    """`count` training images after the calibration images of the same
    shuffle (never calibrated on), in batches, and their labels."""
    x, y = fashion.load("train")
    order = np.random.default_rng(0).permutation(len(x))[-count:]
    return batches(np.ascontiguousarray(x[order]), batch), y[order]


def torch_prepare(model: torch.nn.Module, config: Config, example: Tuple[torch.Tensor, ...],
                  calibration: Sequence[torch.Tensor]) -> Any:
    """PyTorch's prepared (and, for static configurations, calibrated) model."""
    from torch.ao.quantization.quantize_fx import prepare_fx

    torch.backends.quantized.engine = config.engine
    prepared = prepare_fx(copy.deepcopy(model), config.qconfig_mapping, example,
                          backend_config=config.torch_backend_config)
    if not config.dynamic:
        with torch.no_grad():
            for x in calibration:
                prepared(x)
    return prepared.eval()


def contiguous_before_hardtanh(model: Any) -> Any:
    """PyTorch 1.13's quantized hardtanh (nn.ReLU6 on a quint8 tensor) on
    the qnnpack engine reads a channels-last input as if it were contiguous
    and returns wrong values, and qnnpack's quantized convolutions return
    channels-last tensors: a converted model with a ReLU6 after a
    convolution computes garbage there. This makes each ReLU6's input
    contiguous (the values it is meant to compute; in place)."""
    graph = model.graph
    modules = dict(model.named_modules())
    for node in list(graph.nodes):
        if node.op == "call_module" and isinstance(modules[str(node.target)],
                                                   (torch.nn.ReLU6, torch.nn.Hardtanh)):
            with graph.inserting_before(node):
                contiguous = graph.call_method("contiguous", (node.args[0],))
            node.replace_input_with(node.args[0], contiguous)
    graph.lint()
    model.recompile()
    return model


def torch_convert(prepared: Any, config: Config) -> Any:
    """PyTorch's int8 model (on qnnpack with `contiguous_before_hardtanh`)."""
    from torch.ao.quantization.quantize_fx import convert_fx

    torch.backends.quantized.engine = config.engine
    converted = convert_fx(copy.deepcopy(prepared), backend_config=config.torch_backend_config)
    return contiguous_before_hardtanh(converted) if config.engine == "qnnpack" else converted


def qfx_quantize(model: torch.nn.Module, config: Config, example: Tuple[torch.Tensor, ...],
                 calibration: Sequence[torch.Tensor], **prepare_options: Any) -> Any:
    """qfx's int8 model, calibrated by qfx on `calibration`."""
    torch.backends.quantized.engine = config.engine
    prepared = qfx.prepare_fx(model, config.qconfig_mapping, example,
                              backend_config=config.qfx_backend_config,
                              outputs=None, **prepare_options)
    if not config.dynamic:
        for x in calibration:
            prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        return qfx.convert_fx(prepared)


def qfx_from_torch_statistics(torch_prepared: Any, config: Config,
                              example: Tuple[torch.Tensor, ...]) -> Any:
    """qfx's int8 model with PyTorch's calibration (qfx-import-statistics)."""
    torch.backends.quantized.engine = config.engine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        return qfx.convert_fx(torch_prepared, example, config.torch_backend_config)


def layer_sqnr(model: torch.nn.Module, quantized: Any,
               inputs: Sequence[torch.Tensor]) -> List[Tuple[str, float]]:
    """(layer, SQNR in dB) of qfx's int8 model against float, per layer, in
    program order (qfx.ns.add_loggers)."""
    logged_float, logged_int8 = qfx.ns.add_loggers("fp32", model, "int8", quantized,
                                                   qfx.ns.OutputLogger)
    for x in inputs:
        logged_float(x)
        logged_int8(x)
    results = qfx.ns.extract_logger_info(logged_float, logged_int8, qfx.ns.OutputLogger, "int8")
    rows = []
    for layer, by_type in results.items():
        values = by_type["node_output"]
        a = torch.cat([v.flatten() for v in values["fp32"][0]["values"]])
        b = torch.cat([v.flatten() for v in values["int8"][0]["values"]])
        rows.append((layer, float(qfx.ns.compute_sqnr(a, b))))
    return rows


@dataclass
class Row:
    model: str
    config: str
    float_top1: float
    torch_top1: float
    qfx_top1: float
    agree: float
    qfx_torch_stats_top1: Optional[float] = None
    agree_torch_stats: Optional[float] = None
    min_sqnr: Optional[float] = None
    min_sqnr_layer: str = ""
    note: str = ""
    float_ops: List[str] = field(default_factory=list)
    sqnr: List[Tuple[str, float]] = field(default_factory=list)
    seconds: float = 0.0


def measure(name: str, config_name: str, test: Tuple[List[torch.Tensor], np.ndarray],
            calibration: List[torch.Tensor], float_top1: float, statistics: str) -> Row:
    """One row of the table."""
    start = time.monotonic()
    model = fashion.load_model(name)
    config = make_config(config_name)
    inputs, labels = test
    example = (inputs[0],)
    torch_prepared = torch_prepare(model, config, example, calibration)
    torch_logits = logits_of(torch_convert(torch_prepared, config), inputs)
    quantized = qfx_quantize(model, config, example, calibration)
    qfx_logits = logits_of(quantized, inputs)
    row = Row(name, config_name, float_top1, top1(torch_logits, labels),
              top1(qfx_logits, labels), agreement(qfx_logits, torch_logits),
              float_ops=[str(op) for op in quantized.float_ops])
    if statistics == "both" and not config.dynamic:
        try:
            imported = qfx_from_torch_statistics(torch_prepared, config, example)
        except qfx.ToolError as error:
            # qfx observes a value differently from PyTorch (docs/accuracy.md).
            row.note = "PyTorch's statistics not importable: " + next(
                (line.split("error: ", 1)[1] for line in error.diagnostics.splitlines()
                 if "error: " in line), str(error))
        else:
            imported_logits = logits_of(imported, inputs)
            row.qfx_torch_stats_top1 = top1(imported_logits, labels)
            row.agree_torch_stats = agreement(imported_logits, torch_logits)
    row.sqnr = layer_sqnr(model, quantized, inputs[:1])
    finite = [(s, layer) for layer, s in row.sqnr if math.isfinite(s)]
    if finite:
        row.min_sqnr, row.min_sqnr_layer = min(finite)
    row.seconds = time.monotonic() - start
    return row


@dataclass
class AutoRow:
    model: str
    config: str
    float_top1: float
    plain_top1: float
    auto_top1: float
    budget: float
    within_budget_on_validation: bool
    float_layers: List[str]
    per_channel_layers: List[str]
    trials: int
    report: str
    seconds: float


def measure_auto(name: str, config_name: str, test: Tuple[List[torch.Tensor], np.ndarray],
                 calibration: List[torch.Tensor], float_top1: float, budget: float,
                 validation: Tuple[List[torch.Tensor], np.ndarray]) -> AutoRow:
    """One row of the --auto-quantize table."""
    start = time.monotonic()
    model = fashion.load_model(name)
    config = make_config(config_name)
    torch.backends.quantized.engine = config.engine
    inputs, labels = test

    def validation_top1(m: Any) -> float:
        return top1(logits_of(m, validation[0]), validation[1])

    result = qfx.auto_quantize(model, config.qconfig_mapping, calibration, validation_top1,
                               budget, backend_config=config.qfx_backend_config)
    plain = qfx_quantize(model, config, (inputs[0],), calibration)
    return AutoRow(name, config_name, float_top1, top1(logits_of(plain, inputs), labels),
                   top1(logits_of(result.model, inputs), labels), budget,
                   result.within_budget, result.float_layers, result.per_channel_layers,
                   len(result.decisions), str(result), time.monotonic() - start)


def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def auto_table(rows: Sequence[AutoRow]) -> str:
    """The --auto-quantize rows as a Markdown table."""
    return _markdown(
        ("model", "config", "float", "qfx int8", "drop", "auto_quantize", "drop", "float layers",
         "per-channel layers", "trials"),
        [(r.model, r.config, f"{r.float_top1:.2f}", f"{r.plain_top1:.2f}",
          f"{r.float_top1 - r.plain_top1:.2f}", f"{r.auto_top1:.2f}",
          f"{r.float_top1 - r.auto_top1:.2f}", ", ".join(r.float_layers) or "—",
          ", ".join(r.per_channel_layers) or "—", str(r.trials)) for r in rows])


def _fmt(value: Optional[float], digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    return _markdown(
        ("model", "config", "float", "PyTorch int8", "qfx int8", "qfx − PyTorch", "agree %",
         "qfx int8, PyTorch's stats", "agree %", "lowest layer SQNR dB"),
        [(r.model, r.config, f"{r.float_top1:.2f}", f"{r.torch_top1:.2f}", f"{r.qfx_top1:.2f}",
          f"{r.qfx_top1 - r.torch_top1:+.2f}", f"{r.agree:.2f}", _fmt(r.qfx_torch_stats_top1),
          _fmt(r.agree_torch_stats), f"{_fmt(r.min_sqnr, 1)} ({r.min_sqnr_layer})")
         for r in rows])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(fashion.MODELS))
    parser.add_argument("--configs", default="",
                        help="comma-separated configurations (default: each model's all)")
    parser.add_argument("--calibrate", type=int, default=1000,
                        help="training images to calibrate on (default 1000)")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--test", type=int, default=10000,
                        help="test images to evaluate (default all 10,000)")
    parser.add_argument("--statistics", choices=("both", "qfx"), default="both")
    parser.add_argument("--sqnr", action="store_true", help="print per-layer SQNR tables")
    parser.add_argument("--json", type=pathlib.Path, help="also write the rows here")
    parser.add_argument("--auto-quantize", type=float, metavar="BUDGET",
                        help="run qfx.auto_quantize with this budget (points) instead")
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    for m in models:
        if m not in fashion.MODELS:
            parser.error(f"unknown model {m!r}; expected one of {', '.join(fashion.MODELS)}")
    configs = [c for c in args.configs.split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            parser.error(f"unknown configuration {c!r}; expected one of {', '.join(CONFIGS)}")
    if not 0 < args.test <= 10000 or args.test % args.batch:
        parser.error(f"--test must be in 1..10000 and a multiple of --batch ({args.batch})")
    if args.calibrate <= 0 or args.calibrate % args.batch:
        parser.error(f"--calibrate must be a positive multiple of --batch ({args.batch})")

    x_test, y_test = fashion.load("test")
    test = (batches(x_test[:args.test], args.batch), y_test[:args.test])
    calibration = calibration_set(args.calibrate, args.batch)
    if args.auto_quantize is not None:
        validation = validation_set(2000, args.batch)
        auto_rows = []
        for name in models:
            float_top1 = train.accuracy(fashion.load_model(name), x_test[:args.test],
                                        y_test[:args.test])
            for config_name in configs or MODEL_CONFIGS[name]:
                if config_name not in STATIC_CONFIGS or config_name not in MODEL_CONFIGS[name]:
                    continue
                row = measure_auto(name, config_name, test, calibration, float_top1,
                                   args.auto_quantize, validation)
                auto_rows.append(row)
                print(f"# {name} {config_name} ({row.seconds:.0f} s):\n{row.report}",
                      file=sys.stderr, flush=True)
                if args.json:
                    args.json.write_text(json.dumps([asdict(r) for r in auto_rows], indent=1)
                                         + "\n")
        print(auto_table(auto_rows))
        return 0
    rows = []
    for name in models:
        float_top1 = train.accuracy(fashion.load_model(name), x_test[:args.test],
                                    y_test[:args.test])
        for config_name in configs or MODEL_CONFIGS[name]:
            if config_name not in MODEL_CONFIGS[name]:
                print(f"# {name}: {config_name} does not apply (see --help)", file=sys.stderr)
                continue
            row = measure(name, config_name, test, calibration, float_top1, args.statistics)
            rows.append(row)
            print(f"# {name} {config_name}: float {row.float_top1:.2f}, PyTorch "
                  f"{row.torch_top1:.2f}, qfx {row.qfx_top1:.2f}, agree {row.agree:.2f} "
                  f"({row.seconds:.0f} s)", file=sys.stderr, flush=True)
            if row.float_ops:
                print(f"#   float ops: {'; '.join(row.float_ops)}", file=sys.stderr)
            if row.note:
                print(f"#   {row.note}", file=sys.stderr)
            if args.json:  # after every row: a long run keeps what it measured
                args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
            if args.sqnr:
                print(f"\n{name} {config_name}: SQNR of qfx int8 against float, per layer")
                for layer, sqnr in row.sqnr:
                    print(f"  {sqnr:7.2f}  {layer}")
    print(table(rows))
    notes = [f"- {r.model} {r.config}: {r.note}" for r in rows if r.note]
    if notes:
        print("\n" + "\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
