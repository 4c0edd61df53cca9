"""PyTorch's FX numeric suite (`torch.ao.ns._numeric_suite_fx`) for qfx.

The same functions under the same names, comparing a PyTorch float model with
the int8 model qfx made of it, layer by layer:

    import qfx.ns as ns

    weights = ns.extract_weights("fp32", float_model, "int8", quantized)
    logged_fp32, logged_int8 = ns.add_loggers("fp32", float_model, "int8", quantized,
                                              ns.OutputLogger)
    for x in data:
        logged_fp32(x)
        logged_int8(x)
    activations = ns.extract_logger_info(logged_fp32, logged_int8, ns.OutputLogger, "int8")
    ns.extend_logger_results_with_comparison(activations, "fp32", "int8",
                                             ns.compute_sqnr, "sqnr")

Results have PyTorch's layout (NSResultsType): `{layer: {"weight" or
"node_output": {model name: [{"type", "values", "ref_node_name",
"prev_node_name", "ref_node_target_type", "prev_node_target_type",
"index_within_arg", "index_of_arg", "fqn", "qparams"}]}}}`, `values` a list
of torch tensors (one per call for activations), ordered as the int8 model
computes them.

Layers are named by qfx's locations (`"layer1.0.conv1"`, `"layer1.0(add)"`
for a functional call, `"layer1.0.relu(layer1_0_relu_1)"` for the second
call of a module; see docs/exporter.md). A quantized pattern (conv, batch
norm, ReLU) is one layer named by its last op, compared with the float
model's value there. The int8 model's values are its integers dequantized
(recorded in the compiled program: qfxModelCompileRecording); the float
model's are PyTorch's own, from running qfx's trace of it, held in qfx's
layout (NHWC after a convolution). Weights are compared as qfx quantizes
them: the float weights after batch norm folding and the dequantized int8
weights, in qfx's layouts (OHWI; a Linear's transposed).

Without error propagation (`add_shadow_loggers`): the int8 program with
each pattern computing on the float model's values (qfx's float stage,
quantized to the pattern's input type) instead of the int8 values before
it, logged next to the float model's own values, gives each layer's own
error:

    shadow = ns.add_shadow_loggers("fp32", float_model, "int8", quantized, ns.OutputLogger)
    for x in data:
        shadow(x)
    own = ns.extract_shadow_logger_info(shadow, ns.OutputLogger, "int8")
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Dict, List, Optional, Tuple


from qfx import _capi
from qfx.quantize_fx import QuantizedModel, _Model

__all__ = ["OutputLogger", "extract_weights", "add_loggers", "extract_logger_info", "sqnr_table",
           "add_shadow_loggers", "extract_shadow_logger_info",
           "extend_logger_results_with_comparison", "compute_sqnr",
           "compute_normalized_l2_error", "compute_cosine_similarity"]

NSResultsType = Dict[str, Dict[str, Dict[str, List[Dict[str, Any]]]]]


def _torch():
    import torch

    return torch


class OutputLogger:
    """The logger class `add_loggers` and `extract_logger_info` take (as
    PyTorch's `OutputLogger`, which they accept too): every value of each
    call is recorded, as PyTorch's logger records one layer's."""


def _check_logger(logger_cls: Any) -> None:
    if logger_cls is OutputLogger or getattr(logger_cls, "__name__", "") == "OutputLogger":
        return
    raise ValueError(f"qfx's numeric suite logs with OutputLogger, got {logger_cls!r}")


def _is_torch_module(model: Any) -> bool:
    """A PyTorch model (qfx's models are torch.nn.Modules too)."""
    torch = _torch()
    return isinstance(model, torch.nn.Module) and not isinstance(model, _Model)


class _Logged:
    """A model `add_loggers` returned: calling it runs the model and logs
    every layer's output. `model_name` names its results; `logs` holds, by
    layer name, the values of each call and what computed them."""

    def __init__(self, model_name: str):
        if not isinstance(model_name, str):
            raise TypeError(f"model names are strings, got {model_name!r}")
        self.model_name = model_name
        # layer -> (target type, position, [values])
        self.logs: Dict[str, Tuple[str, int, List[Any]]] = {}
        self.calls = 0

    def _log(self, name: str, target_type: str, position: int, value: Any) -> None:
        entry = self.logs.setdefault(name, (target_type, position, []))
        entry[2].append(value)


class _LoggedTorch(_Logged):
    """A PyTorch float model run through qfx's trace of it, each node's
    output held in qfx's layout under qfx's name for it."""

    def __init__(self, model_name: str, model: Any):
        super().__init__(model_name)
        if model.training:
            raise ValueError(f"{model_name}: call .eval() on the float model first")
        self.model = model
        self._traced: Optional[tuple] = None
        self._shapes: Optional[list] = None

    def __call__(self, *inputs: Any) -> Any:
        from qfx.exporter import named_values

        torch = _torch()
        inputs = tuple(torch.as_tensor(x) for x in inputs)
        shapes = [tuple(x.shape) for x in inputs]
        if self._traced is None or shapes != self._shapes:
            self._traced, self._shapes = named_values(self.model, inputs), shapes
        gm, names = self._traced
        logged = self
        types = {node: _node_type(gm, node) for node in names}

        class Recorder(torch.fx.Interpreter):
            def run_node(self, node):
                result = super().run_node(node)
                named = names.get(node)
                if named is not None and isinstance(result, torch.Tensor):
                    name, layout = named
                    held = result.detach().permute(*layout) if result.dim() == len(layout) \
                        else result.detach()
                    logged._log(name, types[node], len(logged.logs), held.contiguous().clone())
                return result

        with torch.no_grad():
            output = Recorder(gm).run(*inputs)
        self.calls += 1
        return output


def _node_type(gm: Any, node: Any) -> str:
    """PyTorch's target type string of a node, as the numeric suite gives it."""
    if node.op == "call_module":
        module = gm.get_submodule(node.target)
        return f"{type(module).__module__}.{type(module).__qualname__}"
    if node.op == "call_function":
        return f"{getattr(node.target, '__module__', '')}.{getattr(node.target, '__name__', node.target)}"
    return str(node.target)


class _LoggedQfx(_Logged):
    """A qfx model's int8 program (or its shadow stage) compiled to record
    every named value."""

    def __init__(self, model_name: str, model: QuantizedModel, shadow: bool = False):
        super().__init__(model_name)
        self.model = model
        program = model.mlir("int8")
        if shadow:
            program = _capi.shadow_stage(model.mlir("float"), program)
        self._recording = _capi.Model(program, "int8.mlir", record=True,
                                       host=model.host)

    def __call__(self, *inputs: Any) -> Any:
        arrays, as_torch = self.model._run_one(inputs, f"{self.model_name}")
        outputs = self._recording(arrays)
        torch = _torch()
        for position, value in enumerate(self._recording.recorded):
            self._log(value.name, value.op_name, position, torch.from_numpy(value.value))
        self.calls += 1
        return self.model.signature.wrap_outputs(outputs, as_torch)


def _logged(name: str, model: Any) -> _Logged:
    if isinstance(model, QuantizedModel):
        return _LoggedQfx(name, model)
    if _is_torch_module(model):
        return _LoggedTorch(name, model)
    raise TypeError(f"{name}: expected a PyTorch float model or a qfx.QuantizedModel, got "
                    f"{type(model).__name__}")


def add_loggers(name_a: str, model_a: Any, name_b: str, model_b: Any,
                logger_cls: Callable = OutputLogger,
                should_log_inputs: bool = False) -> Tuple[_Logged, _Logged]:
    """Models that log every layer's output on each call: `model_a` and
    `model_b` are each a PyTorch float model (eval mode) or a
    `qfx.QuantizedModel` (its int8 program). Call both on the same inputs,
    then `extract_logger_info`. Inputs are not logged (`should_log_inputs`
    must be False)."""
    _check_logger(logger_cls)
    if should_log_inputs:
        raise ValueError("add_loggers: qfx logs layer outputs only (should_log_inputs=False)")
    if name_a == name_b:
        raise ValueError(f"add_loggers: the two models need different names, got {name_a!r} twice")
    return _logged(name_a, model_a), _logged(name_b, model_b)


def _result(kind: str, layer: str, target_type: str, values: List[Any],
            qparams: Any = None) -> Dict[str, Any]:
    fqn = re.sub(r"\(.*\)$", "", layer)
    return {"type": kind, "values": values, "ref_node_name": layer, "prev_node_name": layer,
            "ref_node_target_type": target_type, "prev_node_target_type": target_type,
            "index_within_arg": 0, "index_of_arg": 0, "fqn": fqn, "qparams": qparams}


def _unit_leading(shape: Tuple[int, ...], target: Tuple[int, ...]) -> bool:
    """`shape` is `target` with one or more leading dimensions of size 1."""
    extra = len(shape) - len(target)
    return extra > 0 and all(d == 1 for d in shape[:extra]) and tuple(shape[extra:]) == tuple(target)


def extract_logger_info(model_a: _Logged, model_b: _Logged, logger_cls: Callable,
                        model_name_to_use_for_layer_names: str) -> NSResultsType:
    """The values both logged models logged for the layers they share (the
    same name, the same shape on every call), in the order
    `model_name_to_use_for_layer_names`'s model computed them. ValueError if
    the models were not called equally often."""
    _check_logger(logger_cls)
    for model in (model_a, model_b):
        if not isinstance(model, _Logged):
            raise TypeError("extract_logger_info takes the models add_loggers returned")
    if model_name_to_use_for_layer_names not in (model_a.model_name, model_b.model_name):
        raise ValueError(f"extract_logger_info: no model named "
                         f"{model_name_to_use_for_layer_names!r}")
    if model_a.calls != model_b.calls or model_a.calls == 0:
        raise ValueError(f"extract_logger_info: {model_a.model_name} was called {model_a.calls} "
                         f"times and {model_b.model_name} {model_b.calls}; call both on the "
                         "same inputs")
    order = model_a if model_name_to_use_for_layer_names == model_a.model_name else model_b
    results: NSResultsType = {}
    for layer in sorted(order.logs, key=lambda name: order.logs[name][1]):
        entries = [m.logs.get(layer) for m in (model_a, model_b)]
        if any(e is None or len(e[2]) != m.calls for e, m in zip(entries, (model_a, model_b))):
            continue
        values = [list(entries[0][2]), list(entries[1][2])]
        # A Linear computes as a rank-3 matmul in the int8 program ([1, N, C]
        # for PyTorch's [N, C]): the same values with leading unit dims.
        for side in (0, 1):
            other = values[1 - side]
            values[side] = [v.reshape(o.shape) if _unit_leading(v.shape, o.shape) else v
                            for v, o in zip(values[side], other)]
        if any(a.shape != b.shape for a, b in zip(*values)):
            continue
        results[layer] = {"node_output": {
            m.model_name: [_result("node_output", layer, e[0], v)]
            for m, e, v in zip((model_a, model_b), entries, values)}}
    return results


class _Shadow:
    """The model `add_shadow_loggers` returned: each call runs the float
    model (`a`, logged) and the int8 model's shadow stage (`b`, logged) on
    the same inputs and returns the float model's output."""

    def __init__(self, a: _Logged, b: _Logged):
        self.a, self.b = a, b

    def __call__(self, *inputs: Any) -> Any:
        self.b(*inputs)
        return self.a(*inputs)


def add_shadow_loggers(name_a: str, model_a: Any, name_b: str, model_b: QuantizedModel,
                       logger_cls: Callable = OutputLogger,
                       should_log_inputs: bool = False) -> _Shadow:
    """`model_b`'s int8 layers shadowing `model_a`, the PyTorch float model
    it was quantized from: each int8 pattern runs on the float model's values
    (quantized to its input's type), so that its logged output carries its
    own error only. Call it on data, then `extract_shadow_logger_info`."""
    _check_logger(logger_cls)
    if should_log_inputs:
        raise ValueError("add_shadow_loggers: qfx logs layer outputs only "
                         "(should_log_inputs=False)")
    if name_a == name_b:
        raise ValueError(f"add_shadow_loggers: the two models need different names, got "
                         f"{name_a!r} twice")
    if not isinstance(model_b, QuantizedModel):
        raise TypeError(f"add_shadow_loggers: {name_b} must be a qfx.QuantizedModel, got "
                        f"{type(model_b).__name__}")
    a = _logged(name_a, model_a)
    return _Shadow(a, _LoggedQfx(name_b, model_b, shadow=True))


def extract_shadow_logger_info(model_a_shadows_b: _Shadow, logger_cls: Callable,
                               model_name_to_use_for_layer_names: str) -> NSResultsType:
    """The float model's and the shadowing int8 layers' logged values, as
    `extract_logger_info` gives them."""
    if not isinstance(model_a_shadows_b, _Shadow):
        raise TypeError("extract_shadow_logger_info takes the model add_shadow_loggers returned")
    return extract_logger_info(model_a_shadows_b.a, model_a_shadows_b.b, logger_cls,
                               model_name_to_use_for_layer_names)


def extract_weights(model_name_a: str, model_a: Any, model_name_b: str,
                    model_b: QuantizedModel) -> NSResultsType:
    """The weights of each layer of `model_b` (a QuantizedModel) as int8
    (dequantized, from its reference stage) and of `model_a`, the PyTorch
    float model it was quantized from, as qfx quantized them (batch norm
    folded, from `model_b`'s calibrated stage, after checking that
    `model_a` exports to `model_b`'s float stage); in qfx's layouts."""
    if not isinstance(model_b, QuantizedModel):
        raise TypeError(f"extract_weights: {model_name_b} must be a qfx.QuantizedModel, got "
                        f"{type(model_b).__name__}")
    if not _is_torch_module(model_a):
        raise TypeError(f"extract_weights: {model_name_a} must be the PyTorch float model "
                        f"{model_name_b} was quantized from, got {type(model_a).__name__}")
    _check_source(model_name_a, model_a, model_name_b, model_b)
    torch = _torch()
    float_weights = _capi.extract_weights(model_b.mlir("calibrated"), "calibrated.mlir")
    int8_weights = _capi.extract_weights(model_b.mlir("reference"), "reference.mlir")
    by_name: Dict[str, List[Any]] = {}
    for w in float_weights:
        by_name.setdefault(w.name, []).append(w)
    results: NSResultsType = {}
    for w in int8_weights:
        candidates = by_name.get(w.name, [])
        match = next((f for f in candidates if f.value.shape == w.value.shape), None)
        if match is None:
            continue
        candidates.remove(match)
        results[w.name] = {"weight": {
            model_name_a: [_result("weight", w.name, match.op_name,
                                   [torch.from_numpy(match.value)])],
            model_name_b: [_result("weight", w.name, w.op_name, [torch.from_numpy(w.value)],
                                   w.qparams)]}}
    return results


def _check_source(name_a: str, model_a: Any, name_b: str, model_b: QuantizedModel) -> None:
    """ValueError unless `model_a` exports to `model_b`'s float stage (the
    PyTorch observers a model PyTorch calibrated records are left out)."""
    from qfx.exporter import export_tosa

    torch = _torch()
    if model_a.training:
        raise ValueError(f"{name_a}: call .eval() on the float model first")
    example = tuple(torch.zeros(shape) for shape in model_b.signature.inputs)
    strip = re.compile(r",? ?qfx\.torch_observer = \{[^{}]*(\{[^{}]*\}[^{}]*)*\}")
    exported = strip.sub("", export_tosa(model_a, example))
    if exported != strip.sub("", model_b.mlir("float")):
        raise ValueError(f"extract_weights: {name_a} is not the model {name_b} was quantized from "
                         "(it does not export to its float stage)")


def extend_logger_results_with_comparison(results: NSResultsType, model_name_1: str,
                                          model_name_2: str,
                                          comparison_fn: Callable[[Any, Any], Any],
                                          comparison_name: str) -> None:
    """Adds `comparison_fn(value of model 1, value of model 2)` for every
    value pair under `comparison_name` to model 2's results, in place, as
    PyTorch's does."""
    for by_type in results.values():
        for by_model in by_type.values():
            for name in (model_name_1, model_name_2):
                if name not in by_model:
                    raise ValueError(f"{name} not found in results")
            for result_2 in by_model[model_name_2]:
                result_1 = next((r for r in by_model[model_name_1]
                                 if r["index_within_arg"] == result_2["index_within_arg"]
                                 and r["index_of_arg"] == result_2["index_of_arg"]), None)
                if result_1 is None:
                    raise ValueError(f"no value of {model_name_1} for "
                                     f"{result_2['ref_node_name']}")
                result_2[comparison_name] = [comparison_fn(a, b) for a, b in
                                             zip(result_1["values"], result_2["values"])]


def compute_sqnr(x: Any, y: Any) -> Any:
    """20 log10(|x| / |x - y|), in dB (PyTorch's; inf where equal)."""
    torch = _torch()
    x, y = torch.as_tensor(x).float(), torch.as_tensor(y).float()
    return 20 * torch.log10(torch.norm(x) / torch.norm(x - y))


def compute_normalized_l2_error(x: Any, y: Any) -> Any:
    """sqrt(sum((x - y)^2) / sum(x^2))."""
    torch = _torch()
    x, y = torch.as_tensor(x).float(), torch.as_tensor(y).float()
    return torch.sqrt(((x - y) ** 2).sum() / (x ** 2).sum())


def compute_cosine_similarity(x: Any, y: Any) -> Any:
    """The cosine similarity of x and y, flattened."""
    torch = _torch()
    x, y = torch.as_tensor(x).float(), torch.as_tensor(y).float()
    return torch.nn.functional.cosine_similarity(x.reshape(1, -1), y.reshape(1, -1))


def sqnr_table(results: NSResultsType, model_name_1: str, model_name_2: str) -> str:
    """A text table of `results` (weights or outputs): per layer, the SQNR in
    dB of model 2 against model 1 over all logged values, in order."""
    lines = [f"{'SQNR (dB)':>10}  {'type':11}  layer"]
    for layer, by_type in results.items():
        for kind, by_model in by_type.items():
            a = _torch().cat([v.flatten() for v in by_model[model_name_1][0]["values"]])
            b = _torch().cat([v.flatten() for v in by_model[model_name_2][0]["values"]])
            sqnr = float(compute_sqnr(a, b))
            lines.append(f"{sqnr:10.2f}  {kind:11}  {layer}" if math.isfinite(sqnr)
                         else f"{'inf':>10}  {kind:11}  {layer}")
    return "\n".join(lines)
