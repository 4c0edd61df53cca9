"""Accuracy-driven mixed precision: `qfx.auto_quantize`.

Quantizes a model as `prepare_fx` / `convert_fx` do, then, while its score
(`eval_fn`, higher is better) is more than `max_drop` below the float
model's, takes the layers the numeric suite finds most sensitive one at a
time, most sensitive first, and tries per-channel weights (when the
QConfigMapping's are per-tensor), then float, keeping each change that
raises the score; once within budget it tries each float layer quantized
again (as it was before) and keeps it so when the budget still holds. This is the accuracy-aware tuning of Intel
Neural Compressor and NNCF over qfx's QConfigMapping: a layer kept float is
`set_module_name(name, None)`, a layer moved to per-channel weights gets its
QConfig with a per-channel weight observer.

    result = qfx.auto_quantize(model, "default:qnnpack", calibration, eval_fn, max_drop=0.2)
    result.model              # the QuantizedModel that meets the budget (if any does)
    print(result)             # the sensitivity ranking and every decision with its score

Sensitivity is each layer's own error: `qfx.ns.add_shadow_loggers` runs
every int8 pattern on the float model's values, and the layers are ranked
by the SQNR of their outputs against float, lowest first. A layer is a
quantized pattern named by its last op (`layer1.relu1` for conv1 + bn1 +
relu1); its modules (the Conv2d or Linear it starts from, through batch
norm and ReLU modules) are what the decision names. Patterns of functional
calls (`torch.matmul`, `F.softmax`, `operator.add`) have no module name and
are ranked but not changed.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from qfx import config as _config
from qfx.quantize_fx import FloatOpWarning, QuantizedModel, convert_fx, prepare_fx

__all__ = ["auto_quantize", "AutoQuantizeResult", "Decision"]


@dataclass(frozen=True)
class Decision:
    """One trial: `action` ("quantize" for the starting point, "per_channel",
    "float", or "requantize" when a float layer is tried in int8 again)
    applied to `layer` (its modules in `modules`), the score the model then
    had, and whether the change was kept."""

    layer: str
    modules: Tuple[str, ...]
    action: str
    score: float
    kept: bool

    def __str__(self) -> str:
        verdict = "kept" if self.kept else "dropped"
        what = f"{self.layer} ({', '.join(self.modules)})" if self.modules else self.layer
        return f"{self.action:10} {what}: score {self.score:.2f} ({verdict})"


@dataclass
class AutoQuantizeResult:
    """What `auto_quantize` found.

    - `model`: the best QuantizedModel tried (the one that meets the budget,
      with the fewest changes, when one does).
    - `qconfig_mapping`: the `qfx.QConfigMapping` it was quantized with.
    - `float_score`, `score`: `eval_fn` of the float and of that model.
    - `max_drop`, `within_budget`: the budget and whether `score` meets it.
    - `float_layers`, `per_channel_layers`: the modules changed.
    - `sensitivity`: (layer, SQNR in dB) of the first int8 model, lowest
      first.
    - `decisions`: every trial in order.
    """

    model: QuantizedModel
    qconfig_mapping: "_config.QConfigMapping"
    float_score: float
    score: float
    max_drop: float
    within_budget: bool
    float_layers: List[str] = field(default_factory=list)
    per_channel_layers: List[str] = field(default_factory=list)
    sensitivity: List[Tuple[str, float]] = field(default_factory=list)
    decisions: List[Decision] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"float {self.float_score:.2f}, quantized {self.score:.2f} "
                 f"(drop {self.float_score - self.score:.2f}, budget {self.max_drop:.2f}: "
                 f"{'met' if self.within_budget else 'NOT met'}); "
                 f"float layers: {', '.join(self.float_layers) or 'none'}; "
                 f"per-channel layers: {', '.join(self.per_channel_layers) or 'none'}",
                 "sensitivity (SQNR dB, lowest first): "
                 + ", ".join(f"{name} {sqnr:.1f}" for name, sqnr in self.sensitivity[:8])
                 + (", ..." if len(self.sensitivity) > 8 else ""),
                 "decisions:"]
        lines += [f"  {d}" for d in self.decisions]
        return "\n".join(lines)


def _mapping(qconfig_mapping: Any) -> "_config.QConfigMapping":
    """A fresh qfx.QConfigMapping of anything prepare_fx takes."""
    if isinstance(qconfig_mapping, _config.QConfigMapping):
        return _config.QConfigMapping.from_dict(qconfig_mapping.to_dict())
    if type(qconfig_mapping).__module__.split(".")[0] == "torch":
        return _config.from_torch(qconfig_mapping)
    if isinstance(qconfig_mapping, (str, dict)):
        return _config.QConfigMapping.from_dict(qconfig_mapping)
    raise TypeError("qconfig_mapping: expected a qfx or torch QConfigMapping, its dict or a "
                    f"preset name, got {type(qconfig_mapping).__name__}")


def _per_channel(qconfig: Any) -> Optional[Any]:
    """`qconfig` with a per-channel weight observer in place of a per-tensor
    one (same dtype, range and eps), or None if its weights are not
    per-tensor affine or symmetric int8."""
    if qconfig is None or qconfig.weight is None:
        return None
    weight = qconfig.weight
    if weight.observer.__name__ not in ("MinMaxObserver", "MovingAverageMinMaxObserver"):
        return None
    if weight.qscheme not in ("per_tensor_symmetric", "per_tensor_affine"):
        return None
    kwargs = dict(weight.kwargs)
    kwargs.pop("averaging_constant", None)
    kwargs["qscheme"] = weight.qscheme.replace("per_tensor", "per_channel")
    spec = _config.PerChannelMinMaxObserver.with_args(**kwargs)
    return _config.QConfig(activation=qconfig.activation, weight=spec)


_FOLLOWERS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "ReLU", "ReLU6", "Hardtanh")
_ROOTS = ("Conv1d", "Conv2d", "Conv3d", "Linear")


def _layer_modules(model: Any) -> Callable[[str], Tuple[str, ...]]:
    """A function from a layer name of the numeric suite to the qualified
    names of the modules of its pattern: the leaf module it names and,
    back through batch norm and ReLU modules, the Conv or Linear it starts
    from; () for functional calls and non-leaf modules."""
    import torch

    modules = dict(model.named_modules())
    try:
        graph = torch.fx.symbolic_trace(model).graph
    except Exception:  # a model FX cannot trace: each layer is its own module
        graph = None
    producer: Dict[str, Optional[str]] = {}
    if graph is not None:
        for node in graph.nodes:
            if node.op != "call_module":
                continue
            source = node.args[0] if node.args else None
            single = (getattr(source, "op", None) == "call_module"
                      and len(getattr(source, "users", ())) == 1)
            producer[str(node.target)] = str(source.target) if single else None

    def modules_of(layer: str) -> Tuple[str, ...]:
        name = re.sub(r"\(.*\)$", "", layer)
        module = modules.get(name)
        if not name or module is None or any(True for _ in module.children()):
            return ()
        chain = [name]
        while type(modules[chain[-1]]).__name__ in _FOLLOWERS:
            previous = producer.get(chain[-1])
            if previous is None or type(modules[previous]).__name__ not in _FOLLOWERS + _ROOTS:
                break
            chain.append(previous)
        return tuple(reversed(chain))

    return modules_of


def _sensitivity(model: Any, quantized: QuantizedModel,
                 samples: Sequence[tuple]) -> List[Tuple[str, float]]:
    """(layer, SQNR dB) of each int8 pattern's own error, lowest first."""
    from qfx import ns

    import torch

    shadow = ns.add_shadow_loggers("fp32", model, "int8", quantized, ns.OutputLogger)
    for sample in samples:
        shadow(*sample)
    results = ns.extract_shadow_logger_info(shadow, ns.OutputLogger, "int8")
    ranking = []
    for layer, by_type in results.items():
        values = by_type["node_output"]
        a = torch.cat([v.flatten() for v in values["fp32"][0]["values"]])
        b = torch.cat([v.flatten() for v in values["int8"][0]["values"]])
        sqnr = float(ns.compute_sqnr(a, b))
        ranking.append((layer, sqnr if not math.isnan(sqnr) else math.inf))
    return sorted(ranking, key=lambda item: item[1])


def auto_quantize(model: Any, qconfig_mapping: Any, calibration: Sequence[Any],
                  eval_fn: Callable[[Any], float], max_drop: float, *,
                  example_inputs: Any = None, backend_config: Any = None,
                  sensitivity_samples: int = 4, max_trials: int = 32,
                  float_score: Optional[float] = None) -> AutoQuantizeResult:
    """Post-training quantization within `max_drop` of the float score.

    - `model`: a torch.nn.Module in eval mode (as for `prepare_fx`).
    - `qconfig_mapping`, `backend_config`: as for `prepare_fx`; the starting
      point.
    - `calibration`: the calibration samples, each an input tensor or a
      tuple of them (one call of the prepared model each).
    - `eval_fn(m)`: the score of a model, higher is better (top-1 in
      percent, say); called with the float `model` and with each candidate
      `QuantizedModel` (which takes inputs of `example_inputs`' shapes).
    - `max_drop`: the largest `float score - quantized score` accepted.
    - `example_inputs`: default the first calibration sample.
    - `sensitivity_samples`: how many calibration samples the numeric suite
      ranks layers on; `max_trials`: how many quantized models to try at most
      (each is prepared, calibrated, converted and scored).
    - `float_score`: the float model's score, if known (else eval_fn(model)).

    Returns an `AutoQuantizeResult` whose `model` meets the budget when any
    model tried did (`within_budget`), and whose `decisions` say what was
    tried. ValueError for a negative budget or no calibration samples,
    TypeError for an `eval_fn` that is not callable or returns no number.
    """
    if not callable(eval_fn):
        raise TypeError(f"eval_fn must be callable, got {type(eval_fn).__name__}")
    if not isinstance(max_drop, (int, float)) or isinstance(max_drop, bool) or max_drop < 0:
        raise ValueError(f"max_drop must be a number >= 0, got {max_drop!r}")
    samples = [s if isinstance(s, tuple) else (s,) for s in calibration]
    if not samples:
        raise ValueError("auto_quantize needs calibration samples")
    if max_trials < 1 or sensitivity_samples < 1:
        raise ValueError("max_trials and sensitivity_samples must be at least 1")
    base = _mapping(qconfig_mapping)
    example = example_inputs if example_inputs is not None else samples[0]

    def score_of(m: Any) -> float:
        value = eval_fn(m)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(f"eval_fn must return a number, got {type(value).__name__}")
        return float(value)

    def quantize(changes: Dict[str, Optional[Any]]) -> Tuple[QuantizedModel, float]:
        mapping = _mapping(base)
        for name, qconfig in changes.items():
            mapping.set_module_name(name, qconfig)
        prepared = prepare_fx(model, mapping, example, backend_config=backend_config, outputs=None)
        for sample in samples:
            prepared(*sample)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FloatOpWarning)
            quantized = convert_fx(prepared)
        return quantized, score_of(quantized)

    reference = score_of(model) if float_score is None else float(float_score)
    changes: Dict[str, Optional[Any]] = {}  # module name -> QConfig (None: float)
    # Layers made float -> their modules and what they had before.
    floated: Dict[str, Tuple[Tuple[str, ...], Dict[str, Any]]] = {}
    best, score = quantize(changes)
    decisions = [Decision("(every layer)", (), "quantize", score, True)]
    trials = 1
    sensitivity = _sensitivity(model, best, samples[:sensitivity_samples])
    modules_of = _layer_modules(model)
    named = dict(model.named_modules())
    per_channel = _per_channel(base.global_qconfig)

    def within() -> bool:
        return reference - score <= max_drop

    for layer, _ in sensitivity:
        if within() or trials >= max_trials:
            break
        modules = modules_of(layer)
        if not modules or any(m in changes for m in modules):
            continue
        options: List[Tuple[str, Optional[Any]]] = []
        if per_channel is not None and any(type(named[m]).__name__ in _ROOTS for m in modules):
            options.append(("per_channel", per_channel))
        options.append(("float", None))
        # Per-channel weights first; float too if the budget is still missed.
        for action, qconfig in options:
            if within() or trials >= max_trials:
                break
            trial = dict(changes, **{m: qconfig for m in modules})
            candidate, candidate_score = quantize(trial)
            trials += 1
            kept = candidate_score > score
            decisions.append(Decision(layer, modules, action, candidate_score, kept))
            if kept:
                if action == "float":
                    floated[layer] = (modules, {m: changes[m] for m in modules if m in changes})
                changes, best, score = trial, candidate, candidate_score

    # The fewest float layers: each back to what it had, if the budget holds.
    if within():
        for layer, (modules, before) in reversed(list(floated.items())):
            if trials >= max_trials:
                break
            trial = {m: q for m, q in changes.items() if m not in modules}
            trial.update(before)
            candidate, candidate_score = quantize(trial)
            trials += 1
            kept = reference - candidate_score <= max_drop
            decisions.append(Decision(layer, modules, "requantize", candidate_score, kept))
            if kept:
                changes, best, score = trial, candidate, candidate_score

    final = _mapping(base)
    for name, qconfig in changes.items():
        final.set_module_name(name, qconfig)
    return AutoQuantizeResult(
        model=best, qconfig_mapping=final, float_score=reference, score=score,
        max_drop=float(max_drop), within_budget=within(),
        float_layers=[m for m, q in changes.items() if q is None],
        per_channel_layers=[m for m, q in changes.items() if q is not None],
        sensitivity=sensitivity, decisions=decisions)
