"""PyTorch FX → float TOSA 1.0 exporter.

`export_tosa(model, example_inputs)` traces an eval-mode `torch.nn.Module` with
torch.fx and prints a `func.func` of float TOSA ops (MLIR 22 syntax), the
input of qfx's quantization pipeline:

- weights become `tosa.const` constants;
- every op but constants carries `qfx.module_name`, the qualified name of the
  module it came from ("layer1.0.conv1"), or for functional calls and tensor
  methods the enclosing module ("" at the top level) and `qfx.node_name`, the
  FX node name ("add"); its location says the same for diagnostics
  (`loc("layer1.0.conv1")`, `loc("layer1.0"("add"))`); ops implementing a
  PyTorch node carry `qfx.origin = "<PyTorch type>"` ("torch.nn.Conv2d",
  "operator.add", ...);
- the function keeps PyTorch's shapes (NCHW) at its boundary; inside, values
  produced by convolutions and pools stay channels-last (NHWC, NLC for 1-D),
  and layout transposes are only inserted where a PyTorch op needs the
  PyTorch order (flatten, view, permute, Linear on a 4-D tensor, the result).
  Weight layouts (OHWI, depthwise HWCM) are folded into the constants.

Anything the exporter does not know raises `ExportError` naming the node,
the module it was called in and its target, or, not strict, runs in
PyTorch: a `qfx.host_call` op (a graph break, `_Exporter.break_graph`). See
docs/exporter.md.
"""

from __future__ import annotations

import math
import operator
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np

from qfx import _host
from qfx._memory_format import (QuantizedStrides, contiguous_strides, dense_strides, is_contiguous,
                                is_channels_last_contiguous, uses_contiguous_pool_kernel)
from qfx._tosa_text import (FLOAT32_MAX, Exported, ModuleCall, Tensor, TosaWriter, dense_f32,
                            format_f32)

# torch is imported on the first export (it takes a second to load and the
# rest of qfx does not need it); _load_torch() sets these module globals.
torch: Any = None
nn: Any = None
F: Any = None

__all__ = ["ExportError", "export_tosa"]


@dataclass(frozen=True)
class NonTraceable:
    """The modules PyTorch's prepare_custom_config names non-traceable
    (`non_traceable_module_names` / `_classes`): leaves of the trace, as
    PyTorch's tracer leaves them. One qfx exports (a Conv2d, ...) is
    quantized as PyTorch quantizes it; any other runs in PyTorch (a graph
    break), whether or not the export is strict."""

    names: frozenset = frozenset()
    classes: frozenset = frozenset()

    def __contains__(self, item: tuple) -> bool:
        """(qualified name, module) is non-traceable."""
        name, module = item
        return name in self.names or type(module) in self.classes


class ExportError(Exception):
    """A node of the traced graph cannot be exported to float TOSA.

    `node` is the FX node name, `module` the qualified name of the module the
    node belongs to ("" for the root; for call_module nodes the called
    module), `module_type` its PyTorch type and `target` the node's target."""

    def __init__(self, node, reason: str, module: str = "", module_type: str = ""):
        self.node = node.name
        self.op = node.op
        self.target = _target_name(node)
        self.module = module
        self.module_type = module_type
        self.reason = reason
        where = f"module '{module}'" if module else "the root module"
        if module_type:
            where += f" ({module_type})"
        super().__init__(
            f"cannot export node '{node.name}' ({node.op} target '{self.target}') in {where}: {reason}"
        )


# Layouts are permutations from PyTorch's dimension order to the held order:
# held dimension i is PyTorch dimension perm[i].
_NHWC = (0, 2, 3, 1)
_NLC = (0, 2, 1)
_NDHWC = (0, 2, 3, 4, 1)


def _identity(rank: int) -> tuple:
    return tuple(range(rank))


def _target_name(node) -> str:
    target = node.target
    if isinstance(target, str):
        return target
    return _qualified_name(target)


def _qualified_name(obj) -> str:
    """The public dotted name of a function or class, as PyTorch users write it."""
    if torch is not None:
        for namespace, prefix in (
            (torch, "torch"),
            (F, "torch.nn.functional"),
            (nn, "torch.nn"),
        ):
            name = getattr(obj, "__name__", None)
            if name and getattr(namespace, name, None) is obj:
                return f"{prefix}.{name}"
        # Wrapped functionals (F.max_pool2d is a boolean_dispatch closure
        # named "fn") are found by identity.
        for name, value in vars(F).items():
            if value is obj and not name.startswith("_"):
                return f"torch.nn.functional.{name}"
    if getattr(obj, "__module__", None) == "_operator":
        return f"operator.{obj.__name__}"
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    return f"{module}.{name}" if module else name


def _module_type_name(module) -> str:
    return _qualified_name(type(module))


class _Value:
    """An exported FX tensor: its SSA value in the held layout.

    A module attribute (get_attr) keeps its `array` and is printed as a
    tosa.const only where it is used, already in the layout and rank its
    user needs."""

    def __init__(self, tensor: Optional[Tensor], layout: tuple, torch_shape: tuple,
                 array: Optional[np.ndarray] = None, materialize: Optional[Callable] = None):
        self._tensor = tensor
        self.layout = layout
        self.torch_shape = torch_shape
        self.array = array
        self._materialize = materialize

    @property
    def tensor(self) -> Tensor:
        if self._tensor is None:
            self._tensor = self._materialize(self.array)
        return self._tensor

    @property
    def rank(self) -> int:
        return len(self.torch_shape)


def _affine(norm) -> tuple:
    """A normalization module's weight and bias as arrays (None without)."""
    return tuple(None if p is None else p.detach().cpu().numpy() for p in (norm.weight, norm.bias))


def _keeps_element_order(perm: Sequence[int], shape: Sequence[int]) -> bool:
    """True if transposing `shape` by `perm` only moves size-1 dimensions, so
    a reshape produces the same elements in the same order."""
    moved = [p for p in perm if shape[p] != 1]
    return moved == sorted(moved)


def _pair(v) -> tuple:
    if isinstance(v, (tuple, list)):
        return tuple(int(x) for x in v)
    return (int(v), int(v))


def _tuple(v, dims: int) -> tuple:
    """An int or a sequence of `dims` ints, as a tuple."""
    if isinstance(v, (tuple, list)):
        if len(v) != dims:
            raise ValueError(f"expected {dims} values, got {list(v)}")
        return tuple(int(x) for x in v)
    return (int(v),) * dims


def _window(dims: int, v, fill: int) -> tuple:
    """A pooling parameter as (H, W): a 1-D pool is a 2-D one over
    [N, 1, L, C], its H parameter `fill`."""
    return _pair(v) if dims == 2 else (fill, _single(v))


def _single(v) -> int:
    if isinstance(v, (tuple, list)):
        (v,) = v
    return int(v)


def _window_extent(in_size, pad_before, pad_after, out_size, stride, extent):
    """TOSA wants (in + pads - extent) divisible by stride exactly; PyTorch
    floors (or ceils). Returns (pad_after, rows to slice off the input) that
    give PyTorch's output size with an exact division."""
    needed = (out_size - 1) * stride + extent
    excess = in_size + pad_before + pad_after - needed
    if excess <= 0:  # ceil mode: windows hang over the end, pad them.
        return pad_after - excess, 0
    cut = min(excess, pad_after)
    return pad_after - cut, excess - cut


class _Exporter:
    def __init__(self, gm, root, recorded: dict, scope: dict,
                 weight_observers: Optional[dict] = None, quantizable=frozenset(),
                 strict: bool = True, non_traceable: NonTraceable = NonTraceable()):
        self.gm = gm
        self.non_traceable = non_traceable
        # strict: the nodes qfx cannot express are an ExportError (naming
        # each); otherwise each runs in PyTorch (a graph break,
        # `break_graph`), in `host_calls`.
        self.strict = strict
        self.host_calls: list = []
        # (node, reason) of each node qfx cannot express.
        self.breaks: list = []
        # Module types prepare_fx's prepare_custom_config maps to their
        # quantizable form (m_multihead_attention).
        self.quantizable = quantizable
        self.recorded = recorded
        self.scope = scope
        # The traced-through modules too, to name the owner of a functional call.
        # A shared observer (PyTorch shares one between an op's input and
        # output) has several names.
        self.modules = dict(root.named_modules(remove_duplicate=False))
        self.w = TosaWriter()
        self.torch_strides = QuantizedStrides(gm, self.modules, recorded,
                                              getattr(root, "_observed_node_names", None))
        self.env: dict = {}
        self.converted: dict = {}
        self.args: list = []
        self.results: list = []
        # Integer arguments indexing embeddings: argument name -> rows.
        self.index_bounds: dict = {}
        # Tensor name -> (the PyTorch observer recorded on it, its statistics).
        self.torch_observers: dict = {}
        # Weight fake quantizers of a QAT model (see _qat_to_float).
        self.weight_observers: dict = weight_observers or {}
        # Modules the graph calls more than once (torchvision's ResNet blocks
        # apply one ReLU twice): each call is located at its node too.
        calls: dict = {}
        for node in gm.graph.nodes:
            if node.op == "call_module":
                calls[node.target] = calls.get(node.target, 0) + 1
        self.called_again = {target for target, count in calls.items() if count > 1}

    # ----- helpers --------------------------------------------------------

    def fail(self, node, reason: str):
        if node.op == "call_module":
            module = self.modules.get(node.target)
            module_type = _module_type_name(module) if module is not None else ""
            raise ExportError(node, reason, node.target, module_type)
        owner = self.scope.get(node, "")
        owner_module = self.modules.get(owner)
        owner_type = _module_type_name(owner_module) if owner_module is not None else ""
        raise ExportError(node, reason, owner, owner_type)

    def tensor_arg(self, node, arg) -> _Value:
        value = self.env.get(arg) if isinstance(arg, torch.fx.Node) else None
        if not isinstance(value, _Value):
            self.fail(node, f"expected a tensor operand, got {arg!r}")
        return value

    def constant_arg(self, node, arg, what: str) -> np.ndarray:
        """A module attribute passed to a functional op (F.linear's weight):
        its array, known at export time."""
        value = self.env.get(arg) if isinstance(arg, torch.fx.Node) else None
        if not isinstance(value, _Value) or value.array is None:
            self.fail(node, f"expected the {what} to be a module parameter or buffer, got {arg!r}")
        return value.array

    def static(self, node, arg):
        """A Python value (int, float, tuple of ints) known at export time."""
        if isinstance(arg, torch.fx.Node):
            value = self.env.get(arg)
            if isinstance(value, _Value):
                self.fail(node, f"expected a static value, got the tensor '{arg.name}'")
            return value
        if isinstance(arg, (tuple, list)):
            return type(arg)(self.static(node, a) for a in arg)
        return arg

    def out_shape(self, node) -> tuple:
        return tuple(self.recorded[node].shape)

    def in_layout(self, node, value: _Value, layout: tuple, loc: str) -> Tensor:
        """`value` held in `layout`, converting (once per node and layout)."""
        if value.layout == layout:
            return value.tensor
        key = (id(value), layout)
        if key in self.converted:
            return self.converted[key][1]
        plain = value.torch_shape
        held_shape = [plain[d] for d in layout]
        perm = [value.layout.index(d) for d in layout]
        if value.array is not None:  # a constant: fold the layout change
            out = value._materialize(np.transpose(value.array, layout))
        elif _keeps_element_order(perm, value.tensor.shape):
            out = self.w.reshape(value.tensor, held_shape, loc, None)
        else:
            out = self.w.transpose(value.tensor, perm, loc, None)
        self.converted[key] = (value, out)
        return out

    def plain(self, node, value: _Value, loc: str) -> Tensor:
        return self.in_layout(node, value, _identity(value.rank), loc)

    def const_in_layout(self, array: np.ndarray, layout: tuple, loc: str, hint: str) -> Tensor:
        return self.w.const(np.transpose(np.asarray(array, np.float32), layout), loc, hint)

    # ----- driver ---------------------------------------------------------

    def run(self, func_name: str) -> Exported:
        # Tensors whose values depend on a model input (shapes do not); the
        # others computing integer tensors (position ids: buffers, arange,
        # their slices) are constants, the values the example run computed.
        dynamic = set()
        for node in self.gm.graph.nodes:
            if node.op == "placeholder" or (
                    node.target not in _SHAPE_ONLY_FUNCTIONS
                    and any(a in dynamic for a in node.all_input_nodes)):
                if not isinstance(self.recorded.get(node), (int, float, bool, torch.Size)):
                    dynamic.add(node)
            elif node.op != "output" and self.integer_constant(node):
                continue
            if node.op == "placeholder":
                self.placeholder(node)
            elif node.op == "output":
                self.output(node)
            elif node.op == "get_attr":
                self.get_attr(node)
            elif node.op in ("call_module", "call_function", "call_method"):
                self.call(node, node in dynamic)
            else:
                self.fail(node, f"unknown FX node kind '{node.op}'")
        # Modules declared non-traceable run in PyTorch even when strict.
        breaks = [(n, r) for n, r in self.breaks if r != _NON_TRACEABLE]
        if self.strict and breaks:
            node, reason = breaks[0]
            if len(breaks) > 1:
                reason += (f"; and {len(breaks) - 1} more node(s) qfx cannot express: "
                           + "; ".join(f"'{n.name}' ({_target_name(n)}): {r}"
                                       for n, r in breaks[1:]))
            self.fail(node, reason)
        return Exported(self.w.function(func_name, self.args, self.results), self.w.resources)

    def call(self, node, dynamic: bool):
        """Exports a call_module / call_function / call_method node; one qfx
        cannot express runs in PyTorch (break_graph; strict, `run` raises
        after the last node, naming each)."""
        export = getattr(self, node.op)
        # (A PyTorch observer is never a break: it carries statistics.)
        if node.op == "call_module" and _is_observer(self.modules[node.target]):
            return export(node)
        mark, converted, bounds = self.w.mark(), len(self.converted), dict(self.index_bounds)
        try:
            export(node)
        except ExportError as error:
            if error.node != node.name:
                raise
            # Forget what the failed export printed.
            self.w.rollback(mark)
            for key in list(self.converted)[converted:]:
                del self.converted[key]
            self.index_bounds = bounds
            self.env.pop(node, None)
            self.breaks.append((node, error.reason))
            self.break_graph(node, error.reason, dynamic)

    def break_graph(self, node, reason: str, dynamic: bool):
        """`node` runs in PyTorch: a `qfx.host_call` whose inputs are the
        tensors among its arguments (in PyTorch's layout) and whose results
        are the tensors of its result (tuples, lists and dicts of them, as
        the example run gave). A node that depends on no model input is
        what the example run computed instead: a constant, or a Python
        value. PyTorch's reference model runs such a node in float, on
        dequantized inputs; so does qfx's (the op is float to qfx-prepare)."""
        result = self.recorded[node]
        if not dynamic:
            if isinstance(result, torch.Tensor) and result.dtype == torch.float32:
                array = result.detach().cpu().numpy()
                self.env[node] = _Value(None, _identity(array.ndim), tuple(array.shape), array,
                                        lambda a: self.w.const(a, node.name, node.name))
                return
            if not isinstance(result, torch.Tensor):
                self.env[node] = result
                return
        loc = (self.module_location(node) if node.op == "call_module"
               else self.node_location(node))
        inputs: list = []

        def hold(value):
            """An argument with the program's tensors replaced by Inputs."""
            if isinstance(value, torch.fx.Node):
                held = self.env.get(value)
                if any(v.array is None for v in _values(held)):
                    return hold(held)
                return self.recorded[value] if value in self.recorded else held
            if isinstance(value, _Value):
                if value.array is not None:
                    return torch.from_numpy(np.array(value.array))
                if value.tensor.element not in _host.ELEMENTS:
                    self.fail(node, f"{reason}; it cannot run in PyTorch either: an input is "
                              f"a tensor of {value.tensor.element}")
                inputs.append(value)
                return _host.Input(len(inputs) - 1)
            if isinstance(value, (tuple, list)):
                return type(value)(hold(v) for v in value)
            if isinstance(value, dict):
                return {k: hold(v) for k, v in value.items()}
            return value

        args, kwargs = hold(tuple(node.args)), hold(dict(node.kwargs))
        outputs: list = []

        def held_result(value):
            """`result` with each tensor replaced by its _Value."""
            if isinstance(value, torch.Tensor):
                element = _HOST_ELEMENTS.get(value.dtype)
                if element is None:
                    self.fail(node, f"{reason}; it cannot run in PyTorch either: it returns a "
                              f"tensor of {value.dtype} (float32, int64, int32 and bool cross "
                              "between compiled parts)")
                outputs.append((tuple(value.shape), element))
                return len(outputs) - 1
            if isinstance(value, (tuple, list)):
                return tuple(held_result(v) for v in value)
            if isinstance(value, dict):
                return {k: held_result(v) for k, v in value.items()}
            if value is None:
                return None
            self.fail(node, f"{reason}; it cannot run in PyTorch either: it returns a "
                      f"{type(value).__name__} computed from the model's inputs (only tensors "
                      "cross between compiled parts)")

        structure = held_result(result)
        if not outputs:
            self.fail(node, f"{reason}; it cannot run in PyTorch either: it returns no tensor")
        if node.op == "call_module":
            module = self.modules[node.target]
            function, callee = module, _module_type_name(module)
        elif node.op == "call_method":
            function, callee = _host.Method(node.target), f"torch.Tensor.{node.target}"
        else:
            function, callee = node.target, _qualified_name(node.target)
        owner = node.target if node.op == "call_module" else self.scope.get(node, "")
        call = _host.HostCall(callee, node.name, owner, reason, function, args, kwargs,
                              [(_host.ELEMENTS[v.tensor.element], v.torch_shape)
                               for v in inputs],
                              [(_host.ELEMENTS[e], shape) for shape, e in outputs])
        tensors = self.w.host_call(callee, len(self.host_calls),
                                   [self.plain(node, v, loc) for v in inputs], outputs, loc,
                                   callee)
        self.host_calls.append(call)

        def place(value):
            if isinstance(value, int):
                tensor = tensors[value]
                return _Value(tensor, _identity(len(tensor.shape)), tensor.shape)
            if isinstance(value, tuple):
                return tuple(place(v) for v in value)
            if isinstance(value, dict):
                return {k: place(v) for k, v in value.items()}
            return value

        self.env[node] = place(structure)

    def integer_constant(self, node) -> bool:
        """Holds `node`'s recorded value as a constant if it is an int64,
        int32 or bool tensor (the caller knows it depends on no model input;
        a causal mask, `torch.tril(...).bool()`, is one)."""
        value = self.recorded.get(node)
        if not isinstance(value, torch.Tensor) or value.dtype not in (torch.int64, torch.int32,
                                                                      torch.bool):
            return False
        array = value.detach().cpu().numpy()
        loc = self.node_location(node) if node.op != "get_attr" else node.target
        self.env[node] = _Value(None, _identity(array.ndim), tuple(array.shape), array,
                                lambda a: self.w.int_const(a, loc, node.name))
        return True

    def placeholder(self, node):
        value = self.recorded[node]
        element = _INPUT_ELEMENTS.get(value.dtype) if isinstance(value, torch.Tensor) else None
        if element is None:
            self.fail(node, "model inputs must be float32, int64 or int32 tensors, got "
                      + (f"a tensor of {value.dtype}" if isinstance(value, torch.Tensor)
                         else type(value).__name__))
        shape = tuple(value.shape)
        tensor = Tensor(self.w.fresh(node.name), shape, element)
        self.args.append((tensor, node.name))
        self.env[node] = _Value(tensor, _identity(len(shape)), shape)

    @property
    def arg_tensors(self) -> list:
        return [t for t, _ in self.args]

    def output(self, node):
        for out in _flatten((node.args[0],)):
            value = self.env.get(out) if isinstance(out, torch.fx.Node) else None
            # A module's tuple returned as the model's (LSTMCell's (h, c),
            # LSTM's (output, (h_n, c_n))), flattened.
            values = (_flatten(value) if isinstance(value, (tuple, dict))
                      else (self.tensor_arg(node, out),))
            for v in values:
                if not isinstance(v, _Value):
                    self.fail(node, f"expected a tensor or a tuple of tensors, got {out!r}")
                self.results.append(self.plain(node, v, "output"))

    def get_attr(self, node):
        value = self.recorded[node]
        if not isinstance(value, torch.Tensor) or value.dtype != torch.float32:
            self.fail(node, "only float32 tensor attributes can be exported")
        array = value.detach().cpu().numpy()
        self.env[node] = _Value(None, _identity(array.ndim), tuple(array.shape), array,
                                lambda a: self.w.const(a, node.target, node.name))

    def set_tensor(self, node, tensor: Tensor, layout: tuple):
        result = self.recorded[node]
        if not isinstance(result, torch.Tensor) or (result.dtype, tensor.element) not in (
                (torch.float32, "f32"), (torch.bool, "i1")):
            self.fail(node, "only float32 tensor results can be exported (and the bool ones of "
                      "comparisons)")
        shape = tuple(result.shape)
        expected = tuple(shape[d] for d in layout)
        if tensor.shape != expected:  # an exporter bug, not a user error
            raise AssertionError(
                f"{node.name}: exported shape {tensor.shape}, PyTorch's {shape} held as {expected}"
            )
        self.env[node] = _Value(tensor, layout, shape)

    def alias(self, node, src: _Value):
        self.env[node] = src

    # ----- call_module ----------------------------------------------------

    def call_module(self, node):
        module = self.modules[node.target]
        if _is_observer(module):
            return self.torch_observer(node, module)
        if type(module) in _RECURRENT_MODULES:
            return self.recurrent(node, module)
        if type(module) is nn.EmbeddingBag:
            return self.m_embedding_bag(node, module)
        if type(module) is nn.MultiheadAttention:
            return self.m_multihead_attention(node, module)
        handler = _MODULE_HANDLERS.get(type(module))
        if handler is None and _is_fused_module(module):
            handler = _Exporter.m_fused
        if handler is None and (node.target, module) in self.non_traceable:
            self.fail(node, _NON_TRACEABLE)
        if handler is None:
            self.fail(node, "unsupported module type")
        if node.kwargs or len(node.args) != 1:
            self.fail(node, "expected a single tensor argument")
        x = self.tensor_arg(node, node.args[0])
        handler(self, node, module, x, self.module_location(node), _module_type_name(module))

    def module_location(self, node):
        """A call_module node's location: its module, or for a module called
        again, the module and the node (ModuleCall)."""
        if node.target in self.called_again:
            return ModuleCall(node.target, node.name)
        return node.target

    def torch_observer(self, node, module):
        """An observer (or fake quantizer) of a model PyTorch prepared: the
        identity, recording the observer and its statistics on the op
        producing the observed value (`qfx.torch_observer`, which
        qfx-import-statistics reads). Observed constants get no record: qfx
        computes their statistics from the constant itself."""
        x = self.tensor_arg(node, node.args[0])
        self.alias(node, x)
        if x.array is not None:
            return
        observer = getattr(module, "activation_post_process", module)  # a FakeQuantize's
        parts = [f'name = "{node.target}"', f'type = "{type(module).__name__}"']
        stats = _observer_statistics(observer)
        if stats is not None:
            parts.append(f"stats = {stats}")
        elif hasattr(observer, "min_val"):
            self.fail(node, f"PyTorch's observer {node.target} ({type(observer).__name__}) has "
                      "seen no data: calibrate the prepared model before converting it")
        # A value observed again through an alias: PyTorch observes a
        # Dropout's output with an observer of its own and requantizes there.
        # qfx has one value, observed once (its producer's qparams, which
        # it may share with the producer's input): the first record stays.
        # PyTorch also observes a value once per observer type its users ask
        # for (a matmul's histogram and a softmax's fixed qparams): qfx does
        # too, and imports the statistics, which a record without (a fixed
        # qparams observer) gives way to.
        earlier = self.torch_observers.get(x.tensor.name)
        if earlier is not None and not (earlier[1] is None and stats is not None):
            if earlier[1] != stats:
                warnings.warn(f"PyTorch's observers {earlier[0]} and {node.target} observe the "
                              f"same value with different statistics (PyTorch requantizes at "
                              f"'{node.args[0].name}'); qfx's model has one value there, with "
                              f"the qparams of {earlier[0]}", stacklevel=2)
            return
        self.torch_observers[x.tensor.name] = (node.target, stats)
        self.w.annotate(x.tensor, "qfx.torch_observer", f"{{{', '.join(parts)}}}")

    def tag_weight(self, weight: Tensor, loc: str):
        """The weight of a module a QAT module became: the statistics of its
        weight fake quantizer (qfx.torch_observer, as on activations)."""
        observer = self.weight_observers.get(loc.module if isinstance(loc, ModuleCall) else loc)
        if observer is None:
            return
        name, kind, stats = observer
        parts = [f'name = "{name}"', f'type = "{kind}"']
        if stats is not None:
            parts.append(f"stats = {stats}")
        self.w.annotate(weight, "qfx.torch_observer", f"{{{', '.join(parts)}}}")

    def m_linear(self, node, m, x, loc, origin):
        weight = m.weight.detach().cpu().numpy()
        bias = m.bias.detach().cpu().numpy() if m.bias is not None else np.zeros(m.out_features, np.float32)
        self.linear(node, x, weight, bias, loc, origin)

    def linear(self, node, x: _Value, weight, bias, loc, origin):
        if x.rank < 1:
            self.fail(node, "Linear needs a tensor of rank >= 1")
        features = x.torch_shape[-1]
        rows = int(np.prod(x.torch_shape[:-1], dtype=np.int64))
        a = self.w.reshape(self.plain(node, x, loc), (1, rows, features), loc, None)
        y = self.linear_rows(a, weight, bias, loc, origin, node.name)
        y = self.w.reshape(y, tuple(x.torch_shape[:-1]) + (weight.shape[0],), loc, None)
        self.set_tensor(node, y, _identity(x.rank))

    def linear_rows(self, a: Tensor, weight, bias, loc, origin, hint: str,
                    part_of: Optional[str] = None) -> Tensor:
        """A Linear of `[1, rows, in]` `a`: tosa.matmul with the constant
        weight^T and the zero zero points, then the add of the bias:
        `[1, rows, out]`, PyTorch's Linear pattern. With `part_of`, the two
        ops carry `qfx.part_of` that type instead of an origin."""
        w = self.w
        rows, out_features = a.shape[1], weight.shape[0]
        b = w.const(weight.T[None, :, :], loc, f"{hint}_weight")
        self.tag_weight(b, loc)
        mm = self.part_of(w.op("matmul", [a, b, w.zero_point(loc), w.zero_point(loc)],
                               (1, rows, out_features), loc, origin, hint=hint), part_of)
        c = w.const(bias.reshape(1, 1, out_features), loc, f"{hint}_bias")
        return self.part_of(w.op("add", [mm, c], mm.shape, loc, origin, hint=hint), part_of)

    def m_conv2d(self, node, m, x, loc, origin):
        if x.rank != 4:
            self.fail(node, f"Conv2d expects a 4-D (NCHW) input, got rank {x.rank}")
        src = self.in_layout(node, x, _NHWC, loc)
        self.conv_nhwc(node, m, src, _pair(m.kernel_size), _pair(m.stride), _pair(m.dilation),
                       self.conv_padding(node, m, 2), m.weight.detach().cpu().numpy(), loc, origin,
                       self.out_shape(node)[2:])

    def m_conv1d(self, node, m, x, loc, origin):
        if x.rank != 3:
            self.fail(node, f"Conv1d expects a 3-D (NCL) input, got rank {x.rank}")
        src = self.in_layout(node, x, _NLC, loc)  # N, L, C
        n, length, c = src.shape
        src4 = self.w.reshape(src, (n, 1, length, c), loc, None)
        (pad_l, pad_r), = self.conv_padding(node, m, 1)
        weight = m.weight.detach().cpu().numpy()[:, :, None, :]  # O, I/g, 1, K
        y = self.conv_core(node, m, src4, (1, _single(m.kernel_size)), (1, _single(m.stride)),
                           (1, _single(m.dilation)), ((0, 0), (pad_l, pad_r)), weight, loc, origin,
                           (1, self.out_shape(node)[2]))
        out = self.w.reshape(y, (n, y.shape[2], y.shape[3]), loc, None)
        self.set_tensor(node, out, _NLC)

    def m_conv_transpose2d(self, node, m, x, loc, origin):
        if x.rank != 4:
            self.fail(node, f"ConvTranspose2d expects a 4-D (NCHW) input, got rank {x.rank}")
        y = self.conv_transpose(node, m, self.in_layout(node, x, _NHWC, loc), 2,
                                m.weight.detach().cpu().numpy(), loc, origin)
        self.set_tensor(node, y, _NHWC)

    def m_conv_transpose1d(self, node, m, x, loc, origin):
        if x.rank != 3:
            self.fail(node, f"ConvTranspose1d expects a 3-D (NCL) input, got rank {x.rank}")
        src = self.in_layout(node, x, _NLC, loc)
        n, length, c = src.shape
        y = self.conv_transpose(node, m, self.w.reshape(src, (n, 1, length, c), loc, None), 1,
                                m.weight.detach().cpu().numpy()[:, :, None, :], loc, origin)
        self.set_tensor(node, self.w.reshape(y, (n, y.shape[2], y.shape[3]), loc, None), _NLC)

    def m_conv_transpose3d(self, node, m, x, loc, origin):
        """The composite "torch.nn.ConvTranspose3d" (TOSA has no 3-D
        transposed conv) of the NDHWC input, PyTorch's [I, O, KD, KH, KW]
        weight as [O, KD, KH, KW, I] and the bias; attributes `stride`,
        `padding`, `output_padding`. Its body is the transposed conv as a
        conv3d: per spatial axis, stride - 1 zeros after each input element
        (reshape, pad, reshape, slice) and kernel - 1 - padding zeros at each
        end (+ output_padding at the far end), then tosa.conv3d (stride 1)
        with the kernel reversed along its spatial axes. Every tosa.pad is of
        a rank-3 view (MLIR 22's validation rejects the !tosa.shape<8> of a
        4-D pad). Groups 1, no dilation."""
        if x.rank != 5:
            self.fail(node, f"ConvTranspose3d expects a 5-D (NCDHW) input, got rank {x.rank}")
        if m.padding_mode != "zeros":
            self.fail(node, f"padding_mode '{m.padding_mode}' is not supported (only 'zeros')")
        if m.groups != 1:
            self.fail(node, "grouped transposed convolutions are not supported")
        if any(d != 1 for d in _tuple(m.dilation, 3)):
            self.fail(node, "dilated transposed convolutions are not supported")
        weight = m.weight.detach().cpu().numpy()
        kernel = weight.shape[2:]
        stride, padding, extra = (_tuple(v, 3) for v in (m.stride, m.padding, m.output_padding))
        if any(p >= k for p, k in zip(padding, kernel)):
            self.fail(node, "a padding as large as the kernel is not supported")
        w = self.w
        out_channels = weight.shape[1]
        bias = (m.bias.detach().cpu().numpy() if m.bias is not None
                else np.zeros(out_channels, np.float32))
        wc = w.const(weight.transpose(1, 2, 3, 4, 0), loc, f"{node.name}_weight")
        self.tag_weight(wc, loc)

        def pad(t, axis, before, after):
            """Zeros before and after `axis` of t, as a pad of a rank-3 view."""
            if not before and not after:
                return t
            shape = list(t.shape)
            view = [int(np.prod(shape[:axis])), shape[axis], int(np.prod(shape[axis + 1:]))]
            padding_shape = w.const_shape([0, 0, before, after, 0, 0], loc)
            shape[axis] += before + after
            padded = w.op("pad", [w.reshape(t, view, loc, None),
                                  (padding_shape, "!tosa.shape<6>"), w.zero_point(loc)],
                          (view[0], shape[axis], view[2]), loc, None, hint="pad")
            return w.reshape(padded, shape, loc, None)

        def build(t, kernel_weight, bias_value):
            for axis, s_, k, p, q in zip((1, 2, 3), stride, kernel, padding, extra):
                if s_ > 1:  # [.., size, ..] -> [.., size, s, ..] -> [.., size * s, ..]
                    shape = list(t.shape)
                    spread = pad(w.reshape(t, shape[:axis + 1] + [1] + shape[axis + 1:], loc,
                                           None), axis + 1, 0, s_ - 1)
                    shape[axis] *= s_
                    t = w.reshape(spread, shape, loc, None)
                    shape[axis] -= s_ - 1
                    t = w.slice(t, (0,) * 5, shape, loc, None)
                t = pad(t, axis, k - 1 - p, k - 1 - p + q)
            for axis in (1, 2, 3):
                kernel_weight = w.op("reverse", [kernel_weight], kernel_weight.shape, loc, None,
                                     attrs=f"axis = {axis} : i32", hint="flipped")
            out = [size - k + 1 for size, k in zip(t.shape[1:4], kernel)]
            attrs = ("acc_type = f32, pad = array<i64: 0, 0, 0, 0, 0, 0>, "
                     "stride = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>")
            return w.op("conv3d", [t, kernel_weight, bias_value, w.zero_point(loc),
                                   w.zero_point(loc)],
                        (t.shape[0], *out, out_channels), loc, None, attrs=attrs, hint="conv3d")

        def ints(values):
            return f"array<i64: {', '.join(map(str, values))}>"

        attrs = (f"stride = {ints(stride)}, padding = {ints(padding)}, "
                 f"output_padding = {ints(extra)}")
        y = w.composite("torch.nn.ConvTranspose3d",
                        [self.in_layout(node, x, _NDHWC, loc), wc,
                         w.const(bias, loc, f"{node.name}_bias")],
                        loc, origin, build, attrs, hint=node.name)
        self.set_tensor(node, y, _NDHWC)

    def conv_transpose(self, node, m, src: Tensor, dims: int, weight, loc, origin) -> Tensor:
        """tosa.transpose_conv2d of an NHWC tensor (a 1-d one as [N, 1, L,
        C]) with PyTorch's [I, O, KH, KW] weight as [O, KH, KW, I]; PyTorch's
        padding p and output_padding q are TOSA's out_pad (-p, -p + q) per
        axis. Groups 1, no dilation (TOSA's op has none)."""
        if m.padding_mode != "zeros":
            self.fail(node, f"padding_mode '{m.padding_mode}' is not supported (only 'zeros')")
        if m.groups != 1:
            self.fail(node, "grouped transposed convolutions are not supported")
        kernel, stride = weight.shape[2:], (1,) * (2 - dims) + _tuple(m.stride, dims)
        padding = (0,) * (2 - dims) + _tuple(m.padding, dims)
        extra = (0,) * (2 - dims) + _tuple(m.output_padding, dims)
        if any(d != 1 for d in _tuple(m.dilation, dims)):
            self.fail(node, "dilated transposed convolutions are not supported")
        if any(p >= k for p, k in zip(padding, kernel)):
            self.fail(node, "a padding as large as the kernel is not supported")
        out_pad = [v for p, q in zip(padding, extra) for v in (-p, -p + q)]
        n, h, wd, _ = src.shape
        out_channels = weight.shape[1]
        out_hw = [(size - 1) * st + lo + hi + k
                  for size, st, k, lo, hi in zip((h, wd), stride, kernel, out_pad[::2],
                                                 out_pad[1::2])]
        bias = (m.bias.detach().cpu().numpy() if m.bias is not None
                else np.zeros(out_channels, np.float32))
        w = self.w
        wc = w.const(weight.transpose(1, 2, 3, 0), loc, f"{node.name}_weight")
        self.tag_weight(wc, loc)
        attrs = (f"acc_type = f32, out_pad = array<i64: {', '.join(map(str, out_pad))}>, "
                 f"stride = array<i64: {stride[0]}, {stride[1]}>")
        return w.op("transpose_conv2d", [src, wc, w.const(bias, loc, f"{node.name}_bias"),
                                         w.zero_point(loc), w.zero_point(loc)],
                    (n, out_hw[0], out_hw[1], out_channels), loc, origin, attrs=attrs,
                    hint=node.name)

    def conv_padding(self, node, m, dims: int):
        if m.padding_mode != "zeros":
            self.fail(node, f"padding_mode '{m.padding_mode}' is not supported (only 'zeros')")
        kernel, dilation = _tuple(m.kernel_size, dims), _tuple(m.dilation, dims)
        if isinstance(m.padding, str):
            if m.padding == "valid":
                return tuple((0, 0) for _ in range(dims))
            # 'same': PyTorch puts the odd element of padding at the end.
            pads = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
        return tuple((p, p) for p in _tuple(m.padding, dims))

    def pool3d(self, node, x: _Value, kernel, loc, origin, name):
        """Average pooling over non-overlapping 3-D windows (stride = kernel,
        no padding, sizes divisible) as the composite `name`
        ("torch.nn.AvgPool3d" or "torch.nn.AdaptiveAvgPool3d"; TOSA has no
        3-D pooling): on NDHWC, per spatial axis a reshape splitting it, a
        reduce_sum and a reshape, then times 1/count. Attributes `kernel`
        and `channels_last`: PyTorch's quantized model holds the operand
        channels-last (its kernel for that layout averages differently)."""
        if x.rank != 5:
            self.fail(node, f"3-D pooling expects a 5-D (NCDHW) input, got rank {x.rank}")
        for size, k in zip(x.torch_shape[2:], kernel):
            if size % k:
                self.fail(node, f"3-D average pooling of {size} by windows of {k} is not "
                          "supported (only whole, non-overlapping windows)")
        w = self.w

        def build(arg):
            t = arg
            for axis, k in zip((1, 2, 3), kernel):
                shape = list(t.shape)
                split = shape[:axis] + [shape[axis] // k, k] + shape[axis + 1:]
                summed = split[:axis + 1] + [1] + split[axis + 2:]
                t = w.op("reduce_sum", [w.reshape(t, split, loc, None)], summed, loc, None,
                         attrs=f"axis = {axis + 1} : i32", hint="sum")
                shape[axis] //= k
                t = w.reshape(t, shape, loc, None)
            count = int(np.prod(kernel))
            return w.mul(t, _scalar(w, t, 1.0 / count, loc, "inverse_count"), t.shape, loc, None)

        source = node.all_input_nodes[0]
        strides = self.torch_strides.read(source)
        channels_last = strides is not None and is_channels_last_contiguous(
            self.recorded[source].shape, strides)
        y = w.composite(name, self.in_layout(node, x, _NDHWC, loc), loc, origin, build,
                        f"kernel = array<i64: {', '.join(map(str, kernel))}>, "
                        f"channels_last = {'true' if channels_last else 'false'}",
                        hint=node.name)
        self.set_tensor(node, y, _NDHWC)

    def m_avgpool3d(self, node, m, x, loc, origin):
        kernel = _tuple(m.kernel_size, 3)
        stride = _tuple(m.stride if m.stride is not None else m.kernel_size, 3)
        if stride != kernel or any(_tuple(m.padding, 3)) or m.divisor_override is not None:
            self.fail(node, "AvgPool3d is supported with stride = kernel_size, no padding and no "
                      "divisor_override")
        self.pool3d(node, x, kernel, loc, origin, "torch.nn.AvgPool3d")

    def m_adaptive_avgpool3d(self, node, m, x, loc, origin):
        """Output sizes that divide the input: windows of input / output."""
        sizes, out = x.torch_shape[2:], self.out_shape(node)[2:]
        if x.rank != 5 or any(s % o for s, o in zip(sizes, out)):
            self.fail(node, f"adaptive 3-D average pooling from {list(sizes)} to {list(out)} is "
                      "supported for 5-D inputs and output sizes that divide the input")
        self.pool3d(node, x, tuple(s // o for s, o in zip(sizes, out)), loc, origin,
                    "torch.nn.AdaptiveAvgPool3d")

    def m_conv3d(self, node, m, x, loc, origin):
        """tosa.conv3d on NDHWC with the [O, KD, KH, KW, I] weight (groups 1),
        windows trimmed to PyTorch's output size as in 2-D."""
        if x.rank != 5:
            self.fail(node, f"Conv3d expects a 5-D (NCDHW) input, got rank {x.rank}")
        if m.groups != 1:
            self.fail(node, "Conv3d with groups is not supported")
        w = self.w
        src = self.in_layout(node, x, _NDHWC, loc)
        n, *sizes, c = src.shape
        kernel, stride, dilation = (_tuple(v, 3) for v in (m.kernel_size, m.stride, m.dilation))
        pads, cuts = [], []
        for size, (before, after), out, s_, k, d in zip(
                sizes, self.conv_padding(node, m, 3), self.out_shape(node)[2:], stride, kernel,
                dilation):
            after, cut = _window_extent(size, before, after, out, s_, d * (k - 1) + 1)
            pads += [before, after]
            cuts.append(cut)
        src = w.slice(src, (0,) * 5, (n, *(s_ - c_ for s_, c_ in zip(sizes, cuts)), c), loc,
                      None)
        weight = m.weight.detach().cpu().numpy()
        out_channels = weight.shape[0]
        bias = (m.bias.detach().cpu().numpy() if m.bias is not None
                else np.zeros(out_channels, np.float32))
        wc = w.const(weight.transpose(0, 2, 3, 4, 1), loc, f"{node.name}_weight")
        self.tag_weight(wc, loc)
        attrs = (f"acc_type = f32, pad = array<i64: {', '.join(map(str, pads))}>, "
                 f"stride = array<i64: {', '.join(map(str, stride))}>, "
                 f"dilation = array<i64: {', '.join(map(str, dilation))}>")
        out_shape = (n, *self.out_shape(node)[2:], out_channels)
        y = w.op("conv3d", [src, wc, w.const(bias, loc, f"{node.name}_bias"), w.zero_point(loc),
                            w.zero_point(loc)], out_shape, loc, origin, attrs=attrs,
                 hint=node.name)
        self.set_tensor(node, y, _NDHWC)

    def conv_nhwc(self, node, m, src, kernel, stride, dilation, pads, weight, loc, origin, out_hw):
        y = self.conv_core(node, m, src, kernel, stride, dilation, pads, weight, loc, origin, out_hw)
        self.set_tensor(node, y, _NHWC)

    def conv_core(self, node, m, src: Tensor, kernel, stride, dilation, pads, weight, loc, origin, out_hw):
        """Convolution of an NHWC tensor with PyTorch's OIHW weight; returns NHWC."""
        w = self.w
        n, h, wd, c = src.shape
        groups = m.groups
        out_channels = weight.shape[0]
        extents = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
        (pt, pb0), (pl, pr0) = pads
        pb, cut_h = _window_extent(h, pt, pb0, out_hw[0], stride[0], extents[0])
        pr, cut_w = _window_extent(wd, pl, pr0, out_hw[1], stride[1], extents[1])
        src = w.slice(src, (0, 0, 0, 0), (n, h - cut_h, wd - cut_w, c), loc, None)
        bias = m.bias.detach().cpu().numpy() if m.bias is not None else np.zeros(out_channels, np.float32)
        attrs = (
            f"acc_type = f32, pad = array<i64: {pt}, {pb}, {pl}, {pr}>, "
            f"stride = array<i64: {stride[0]}, {stride[1]}>, "
            f"dilation = array<i64: {dilation[0]}, {dilation[1]}>"
        )
        out_shape = (n, out_hw[0], out_hw[1], out_channels)

        def conv(op, inp, wt, b, hint):
            wc = w.const(wt, loc, f"{hint}_weight")
            self.tag_weight(wc, loc)
            bc = w.const(b, loc, f"{hint}_bias")
            zi = w.zero_point(loc)
            zw = w.zero_point(loc)
            shape = out_shape[:3] + (b.shape[0],)
            return w.op(op, [inp, wc, bc, zi, zw], shape, loc, origin, attrs=attrs, hint=hint)

        if groups == 1:
            return conv("conv2d", src, weight.transpose(0, 2, 3, 1), bias, node.name)
        if groups == c and out_channels % c == 0:
            # Depthwise: output channel c*M + m reads input channel c: HWCM.
            mult = out_channels // c
            hwcm = weight.reshape(c, mult, kernel[0], kernel[1]).transpose(2, 3, 0, 1)
            return conv("depthwise_conv2d", src, hwcm, bias, node.name)
        # Other groups: one conv2d whose weight is block diagonal (zero
        # outside each output channel's group). The zeros change no sum, no
        # per-channel weight range (observers take min(min, 0), max(max, 0))
        # and no int8 accumulator, so batch norm folds and every pass sees a
        # plain conv2d, at the cost of `groups` times the multiplications.
        per_in, per_out = c // groups, out_channels // groups
        dense = np.zeros((out_channels, kernel[0], kernel[1], c), np.float32)
        for g in range(groups):
            dense[g * per_out:(g + 1) * per_out, :, :, g * per_in:(g + 1) * per_in] = \
                weight[g * per_out:(g + 1) * per_out].transpose(0, 2, 3, 1)
        return conv("conv2d", src, dense, bias, node.name)

    def m_batchnorm(self, node, m, x, loc, origin):
        """Eval-mode batch norm as the composite named by its module: the
        body multiplies by invstd * weight and adds bias - mean * that, per
        channel, as PyTorch's float kernel; the attributes carry the
        parameters (PyTorch's quantized kernel computes its own per-channel
        constants from them) and the channel `axis` of the operand as held.
        After a conv or linear, qfx-fuse folds it into the weights."""
        kind = type(m)  # handlers are found by exact type
        expected = {nn.BatchNorm1d: (2, 3), nn.BatchNorm2d: (4,), nn.BatchNorm3d: (5,)}[kind]
        if x.rank not in expected:
            self.fail(node, f"{origin} expects rank {' or '.join(map(str, expected))}, got {x.rank}")
        if m.running_mean is None or m.running_var is None:
            self.fail(node, "batch norm without running statistics normalizes with batch statistics "
                            "even in eval mode; not supported")
        # PyTorch's eval kernel computes the same per-channel scale and shift in float32.
        with torch.no_grad():
            invstd = 1.0 / torch.sqrt(m.running_var.float() + m.eps)
            scale = invstd * (m.weight if m.weight is not None else 1.0)
            shift = (m.bias if m.bias is not None else 0.0) - m.running_mean * scale
        c = scale.shape[0]
        plain_shape = [1] * x.rank
        plain_shape[1] = c
        scale = scale.cpu().numpy().astype(np.float32).reshape(plain_shape)
        shift = shift.cpu().numpy().astype(np.float32).reshape(plain_shape)

        def build(arg):
            sc = self.const_in_layout(scale, x.layout, loc, f"{node.name}_scale")
            y = self.w.mul(arg, sc, arg.shape, loc, None)
            sh = self.const_in_layout(shift, x.layout, loc, f"{node.name}_shift")
            return self.w.op("add", [y, sh], arg.shape, loc, None, hint="add")

        def param(t):
            return dense_f32(t.detach().float().cpu().numpy())

        attrs = [f"axis = {x.layout.index(1)} : i64", f"eps = {format_f32(m.eps)} : f32",
                 f"running_mean = {param(m.running_mean)}", f"running_var = {param(m.running_var)}"]
        if m.weight is not None:
            attrs.append(f"weight = {param(m.weight)}")
        if m.bias is not None:
            attrs.append(f"bias = {param(m.bias)}")
        y = self.w.composite(_qualified_name(kind), x.tensor, loc, origin, build,
                             ", ".join(attrs), hint=node.name)
        self.set_tensor(node, y, x.layout)

    def clamp(self, node, x: _Value, lo, hi, loc, origin):
        self.set_tensor(node, self.w.clamp(x.tensor, lo, hi, loc, origin), x.layout)

    def m_fused(self, node, m, x, loc, origin):
        """A fused module of torch.nn.intrinsic (fuse_fx's LinearReLU,
        ConvReLU2d, BNReLU2d): its modules in order, all at its location,
        each with its own type as origin. PyTorch's tracer keeps it one
        call, and qfx-fuse fuses it again."""
        for part in m:
            handler = _MODULE_HANDLERS.get(type(part))
            if handler is None:
                self.fail(node, f"unsupported module type {_module_type_name(part)} in "
                          f"{_module_type_name(m)}")
            handler(self, node, part, x, loc, _module_type_name(part))
            x = self.env[node]

    def m_relu(self, node, m, x, loc, origin):
        self.clamp(node, x, 0.0, FLOAT32_MAX, loc, origin)

    def m_relu6(self, node, m, x, loc, origin):
        self.clamp(node, x, 0.0, 6.0, loc, origin)

    def m_hardtanh(self, node, m, x, loc, origin):
        self.clamp(node, x, m.min_val, m.max_val, loc, origin)

    def unary(self, node, x: _Value, opname, loc, origin):
        y = self.w.op(opname, [x.tensor], x.tensor.shape, loc, origin, hint=node.name)
        self.set_tensor(node, y, x.layout)

    def m_sigmoid(self, node, m, x, loc, origin):
        self.unary(node, x, "sigmoid", loc, origin)

    def m_tanh(self, node, m, x, loc, origin):
        self.unary(node, x, "tanh", loc, origin)

    def composite(self, node, x: _Value, name: str, loc, origin, **params):
        """`name`'s qfx.composite on x, its body from _COMPOSITES[name] and
        its composite_attributes from `params`."""
        build = _COMPOSITES[name]
        attrs = ", ".join(f"{key} = {format_f32(value)} : f32" for key, value in params.items())
        y = self.w.composite(name, x.tensor, loc, origin,
                             lambda arg: build(self.w, arg, loc, **params), attrs or None,
                             hint=node.name)
        self.set_tensor(node, y, x.layout)

    def mean(self, node, x: _Value, dims, keepdim: bool, loc, origin):
        """torch.mean over `dims` as the composite "torch.mean": reduce_sum
        over the held axes, times 1/N, then the reduced axes dropped unless
        `keepdim`. Its attributes: the operand's `axes`, `keepdim`,
        `averages_integers` (how PyTorch's quantized kernel computes it) and,
        per held axis, PyTorch's dimension (`torch_dims`) and the stride of
        the float tensor PyTorch sums (`torch_strides`: the order of its
        additions, qfx-lower-mean)."""
        dims = sorted({d % x.rank for d in dims})
        axes = sorted(x.layout.index(d) for d in dims)
        count = int(np.prod([x.torch_shape[d] for d in dims]))
        kept = [d for d in x.layout if d not in dims or keepdim]
        layout = tuple(sorted(kept).index(d) for d in kept)
        out_held = tuple(1 if d in dims else x.torch_shape[d] for d in kept)
        if not out_held:
            self.fail(node, "mean over every dimension (a 0-d result) is not supported")

        def build(arg):
            t, shape = arg, list(arg.shape)
            for axis in axes:
                shape[axis] = 1
                t = self.w.op("reduce_sum", [t], tuple(shape), loc, None,
                              attrs=f"axis = {axis} : i32", hint="sum")
            t = self.w.mul(t, _scalar(self.w, t, 1.0 / count, loc, "inverse_count"), t.shape,
                           loc, None)
            return self.w.reshape(t, out_held, loc, None)

        # PyTorch's quantized mean averages the stored integers of a
        # contiguous tensor over its innermost dimensions; otherwise (as over
        # any dimension of a quantized convolution's channels-last output) it
        # dequantizes into the operand's suggested memory format, averages in
        # float and quantizes again.
        shape = x.torch_shape
        strides = self.torch_strides.read(node.all_input_nodes[0]) or contiguous_strides(shape)
        integers = is_contiguous(shape, strides) and dims == list(range(x.rank - len(dims), x.rank))
        summed = dense_strides(shape, strides)

        def array(values):
            return f"array<i64: {', '.join(map(str, values))}>"
        attrs = (f"axes = {array(axes)}, keepdim = {'true' if keepdim else 'false'}, "
                 f"averages_integers = {'true' if integers else 'false'}, "
                 f"torch_dims = {array(x.layout)}, "
                 f"torch_strides = {array(summed[d] for d in x.layout)}")
        y = self.w.composite("torch.mean", x.tensor, loc, origin, build, attrs, hint=node.name)
        self.set_tensor(node, y, layout)

    def m_hardswish(self, node, m, x, loc, origin):
        self.composite(node, x, "torch.nn.Hardswish", loc, origin)

    def m_hardsigmoid(self, node, m, x, loc, origin):
        self.composite(node, x, "torch.nn.Hardsigmoid", loc, origin)

    def m_silu(self, node, m, x, loc, origin):
        self.composite(node, x, "torch.nn.SiLU", loc, origin)

    def m_leaky_relu(self, node, m, x, loc, origin):
        self.composite(node, x, "torch.nn.LeakyReLU", loc, origin,
                       negative_slope=float(m.negative_slope))

    def m_elu(self, node, m, x, loc, origin):
        self.composite(node, x, "torch.nn.ELU", loc, origin, alpha=float(m.alpha))

    def m_gelu(self, node, m, x, loc, origin):
        if m.approximate != "none":
            self.fail(node, f"GELU with approximate='{m.approximate}' is not supported")
        self.composite(node, x, "torch.nn.GELU", loc, origin)

    def m_prelu(self, node, m, x, loc, origin):
        """The composite "torch.nn.PReLU": x > 0 ? x : weight * x, one weight
        or one per channel (dimension 1; tracing has checked the count), as a
        constant of the body."""
        weight = m.weight.detach().float().cpu().numpy()
        shape = [1] * x.rank
        if weight.size != 1:
            shape[1] = weight.size

        def build(arg):
            slope = self.const_in_layout(weight.reshape(shape), x.layout, loc, f"{node.name}_weight")
            return _positive_or(self.w, arg, self.w.mul(arg, slope, arg.shape, loc, None), loc)

        y = self.w.composite("torch.nn.PReLU", x.tensor, loc, origin, build, hint=node.name)
        self.set_tensor(node, y, x.layout)

    def m_softmax(self, node, m, x, loc, origin):
        if m.dim is None:
            self.fail(node, "Softmax without dim (the legacy implicit choice) is not supported")
        self.softmax(node, x, m.dim, loc, origin)

    def softmax(self, node, x: _Value, dim: int, loc, origin):
        """The composite "torch.nn.Softmax" of `x` over PyTorch's `dim`
        (_softmax)."""
        y = _softmax(self.w, x.tensor, x.layout.index(dim % x.rank),
                     dim % x.rank == x.rank - 1, loc, origin, node.name)
        self.set_tensor(node, y, x.layout)

    def m_layer_norm(self, node, m, x, loc, origin):
        self.layer_norm(node, x, tuple(m.normalized_shape), *_affine(m), float(m.eps), loc,
                        origin)

    def layer_norm(self, node, x: _Value, normalized_shape, weight, bias, eps, loc, origin):
        """The composite "torch.nn.LayerNorm" over the trailing dimensions
        `normalized_shape`: (x - mean) * rsqrt(var + eps) (biased variance),
        times weight plus bias (constants of the body, float as in PyTorch's
        quantized kernel). Attributes: the operand's held `axes`, `eps` (f64,
        PyTorch's double), `torch_order` where the held operand keeps the
        normalized dimensions innermost in PyTorch's order (its rows are
        PyTorch's: qfx-lower-layer-norm computes PyTorch's float kernel on
        them) and, when the module has them, `weight` and `bias` in the
        operand's held layout (what qfx-lower's int8 kernel reads)."""
        k = len(normalized_shape)
        if tuple(x.torch_shape[x.rank - k:]) != tuple(normalized_shape):
            self.fail(node, f"layer_norm over {list(normalized_shape)} does not match the "
                      f"input's trailing dimensions {list(x.torch_shape)}")
        dims = range(x.rank - k, x.rank)
        axes = sorted(x.layout.index(d) for d in dims)
        count = int(np.prod(normalized_shape))
        plain = (1,) * (x.rank - k) + tuple(normalized_shape)
        w = self.w

        def average(t):
            shape = list(t.shape)
            for axis in axes:
                shape[axis] = 1
                t = w.op("reduce_sum", [t], tuple(shape), loc, None, attrs=f"axis = {axis} : i32",
                         hint="sum")
            return w.mul(t, _scalar(w, t, 1.0 / count, loc, "inverse_count"), t.shape, loc, None)

        def build(arg):
            y = _normalized(w, arg, average, eps, loc)
            if weight is not None:
                y = w.mul(y, self.const_in_layout(weight.reshape(plain), x.layout, loc,
                                                  f"{node.name}_weight"), arg.shape, loc, None)
            if bias is not None:
                y = w.op("add", [y, self.const_in_layout(bias.reshape(plain), x.layout, loc,
                                                         f"{node.name}_bias")],
                         arg.shape, loc, None, hint="add")
            return y

        attrs = (f"axes = array<i64: {', '.join(map(str, axes))}>, "
                 f"eps = {float(eps):.17e} : f64")
        if axes == list(dims) and [x.layout[a] for a in axes] == list(dims):
            attrs += ", torch_order = true"
        for name, value in (("weight", weight), ("bias", bias)):
            if value is not None:
                held = np.transpose(np.asarray(value, np.float32).reshape(plain), x.layout)
                attrs += f", {name} = {dense_f32(held)}"
        y = w.composite("torch.nn.LayerNorm", x.tensor, loc, origin, build, attrs,
                        hint=node.name)
        self.set_tensor(node, y, x.layout)

    def m_instance_norm(self, node, m, x, loc, origin):
        if m.track_running_stats:
            self.fail(node, "instance norm with track_running_stats (running statistics in eval "
                      "mode) is not supported")
        self.group_norm(node, x, x.torch_shape[1], *_affine(m), float(m.eps),
                        _module_type_name(m), loc, origin)

    def m_group_norm(self, node, m, x, loc, origin):
        self.group_norm(node, x, m.num_groups, *_affine(m), float(m.eps), "torch.nn.GroupNorm",
                        loc, origin)

    def group_norm(self, node, x: _Value, groups: int, weight, bias, eps, name, loc, origin):
        """The composite `name` ("torch.nn.GroupNorm", "torch.nn.InstanceNorm2d",
        ...): the channels in `groups` groups, each normalized over its
        channels and every position ((x - mean) * rsqrt(biased var + eps)),
        times weight plus bias per channel (constants of the body, float as in
        PyTorch's quantized kernels). Attributes: `groups`, `eps` (f64,
        PyTorch's double), the operand's held channel `axis` and, when the
        module has them, `weight` and `bias` (one value per channel)."""
        if x.rank < 2 or x.torch_shape[1] % groups:
            self.fail(node, f"{groups} groups do not divide the {x.torch_shape[1]} channels of "
                      f"a tensor of shape {list(x.torch_shape)}")
        w = self.w
        n, c = x.torch_shape[:2]
        per_group = int(np.prod(x.torch_shape[1:], dtype=np.int64)) // groups
        channel_shape = (1, c) + (1,) * (x.rank - 2)
        to_plain = [x.layout.index(d) for d in range(x.rank)]

        def average(t):
            total = w.op("reduce_sum", [t], (n, groups, 1), loc, None, attrs="axis = 2 : i32",
                         hint="sum")
            return w.mul(total, _scalar(w, total, 1.0 / per_group, loc, "inverse_count"),
                         total.shape, loc, None)

        def build(arg):
            grouped = w.reshape(w.transpose(arg, to_plain, loc, None), (n, groups, per_group),
                                loc, None)
            y = w.reshape(_normalized(w, grouped, average, eps, loc), x.torch_shape, loc, None)
            if weight is not None:
                y = w.mul(y, w.const(weight.reshape(channel_shape), loc, f"{node.name}_weight"),
                          y.shape, loc, None)
            if bias is not None:
                y = w.op("add", [y, w.const(bias.reshape(channel_shape), loc, f"{node.name}_bias")],
                         y.shape, loc, None, hint="add")
            return w.transpose(y, x.layout, loc, None)

        attrs = (f"axis = {x.layout.index(1)} : i64, groups = {groups} : i64, "
                 f"eps = {float(eps):.17e} : f64")
        for key, value in (("weight", weight), ("bias", bias)):
            if value is not None:
                attrs += f", {key} = {dense_f32(np.asarray(value, np.float32).reshape(-1))}"
        y = w.composite(name, x.tensor, loc, origin, build, attrs, hint=node.name)
        self.set_tensor(node, y, x.layout)

    def bilinear(self, node, x: _Value, out, align_corners: bool, scales, loc, origin):
        """Bilinear interpolation of a 4-D tensor as the composite
        "torch.nn.functional.interpolate" (attributes `mode`,
        `align_corners`): on NHWC, a matmul by the [N, W_out, W] weights over
        W (transposed there), then by the [N, H_out, H] weights over H, which
        sums as PyTorch's kernel does: h0 * (w0 * a + w1 * b) + h1 * (...)."""
        if x.rank != 4:
            self.fail(node, f"bilinear interpolation expects a 4-D input, got rank {x.rank}")
        w = self.w
        n, c, h, wd = x.torch_shape
        out_h, out_w = out[2], out[3]
        src = self.in_layout(node, x, _NHWC, loc)
        weights_h = _bilinear_weights(h, out_h, align_corners, scales[0])
        weights_w = _bilinear_weights(wd, out_w, align_corners, scales[1])

        def along(t, weights, rows, cols, hint):
            """`weights` [out, in] times t [N, in, cols] -> [N, out, cols]."""
            batched = np.ascontiguousarray(np.broadcast_to(weights, (n,) + weights.shape))
            return w.op("matmul", [w.const(batched, loc, hint), t, w.zero_point(loc),
                                   w.zero_point(loc)], (n, rows, cols), loc, None, hint=hint)

        def build(arg):
            y = w.reshape(w.transpose(arg, (0, 2, 1, 3), loc, None), (n, wd, h * c), loc, None)
            y = along(y, weights_w, out_w, h * c, "columns")
            y = w.transpose(w.reshape(y, (n, out_w, h, c), loc, None), (0, 2, 1, 3), loc, None)
            y = along(w.reshape(y, (n, h, out_w * c), loc, None), weights_h, out_h, out_w * c,
                      "rows")
            return w.reshape(y, (n, out_h, out_w, c), loc, None)

        attrs = f'mode = "bilinear", align_corners = {"true" if align_corners else "false"}'
        y = w.composite("torch.nn.functional.interpolate", src, loc, origin, build, attrs,
                        hint=node.name)
        self.set_tensor(node, y, _NHWC)

    def m_embedding(self, node, m, x, loc, origin):
        if m.max_norm is not None:
            self.fail(node, "Embedding with max_norm (it renormalizes its weight in place) is "
                      "not supported")
        self.embedding(node, x, m.weight.detach().cpu().numpy(), loc, origin)

    def embedding(self, node, indices: _Value, weight: np.ndarray, loc, origin):
        """The composite (indices, weight) of an embedding lookup: the rows
        of the [V, D] weight (`lookup`), in the indices' shape + [D]. The
        weight is an operand (quantized weight only, per row)."""
        rows, dim = weight.shape
        self.check_indices(node, indices, rows)
        shape = indices.torch_shape
        table = self.w.const(weight, loc, "weight")
        y = self.w.composite(
            "torch.nn.Embedding", [self.plain(node, indices, loc), table], loc, origin,
            lambda ids, t: self.w.reshape(self.lookup(ids, t, rows, dim, loc), [*shape, dim], loc,
                                          None),
            hint="embedding")
        self.set_tensor(node, y, _identity(len(shape) + 1))

    def check_indices(self, node, indices: _Value, rows: int):
        """Integer indices that are a model input or a constant. An index out
        of range is an IndexError for PyTorch (constant indices raised it in
        the example run already): a model input records its bound
        (`qfx.index_bound` on the argument, checked by qfx's Python calls)."""
        element = indices.tensor.element
        if element not in ("i64", "i32"):
            self.fail(node, f"expected int64 or int32 indices, got a tensor of {element}")
        if indices.array is None and indices.tensor in self.arg_tensors:
            bound = min(rows, self.index_bounds.get(indices.tensor.name, rows))
            self.index_bounds[indices.tensor.name] = bound
            self.w.annotate(indices.tensor, "qfx.index_bound", f"{bound} : i64")
        elif indices.array is None:
            self.fail(node, "indices computed by the model are not supported (a model input or "
                      "a constant)")

    def lookup(self, ids: Tensor, table: Tensor, rows: int, dim: int, loc) -> Tensor:
        """The body of a lookup: `ids` flattened to [1, N], clamped into [0,
        rows) (a guard: the rows read stay inside the table), tosa.gather
        of the [1, rows, dim] table: [1, N, dim]."""
        w = self.w
        count = int(np.prod(ids.shape, dtype=np.int64))
        flat = w.clamp(w.reshape(ids, [1, count], loc, None), 0, rows - 1, loc, None)
        return w.op("gather", [w.reshape(table, [1, rows, dim], loc, None), flat],
                    [1, count, dim], loc, None, hint="gather")

    def m_multihead_attention(self, node, m):
        """nn.MultiheadAttention as self-attention (query, key and value the
        same tensor, need_weights=False, no masks, no bias_kv or zero_attn),
        batch first or sequence first, as one of two computations:

        - by default, `qfx.composite "torch.nn.MultiheadAttention"` of the
          input, results (output, None) as the module returns them. The body
          is PyTorch's computation in float: the input projection
          (in_proj_weight, in_proj_bias), the attention (`attention_heads`),
          the output projection. PyTorch's tables have no pattern for it: it
          stays float, as in PyTorch.
        - where prepare_fx's `prepare_custom_config` maps the module to
          `torch.ao.nn.quantizable.MultiheadAttention` (`self.quantizable`),
          that module's computation: Linears linear_Q, linear_K and linear_V
          (the rows of in_proj), then `qfx.composite
          "torch.ao.nn.quantizable.MultiheadAttention"` of (q, k, v), the
          attention in float, then the Linear out_proj. The Linears are
          located at the module and its child (`loc("attn"("linear_Q"))`),
          carry the module's scope and, as `qfx.part_of`, its type, so that
          they match the backend's Linear pattern and take the module's
          qconfig, as the quantizable module's children take their
          parent's: a static qconfig quantizes them as PyTorch's quantized
          MultiheadAttention does, the attention between them staying
          float."""
        loc, origin = self.module_location(node), _module_type_name(m)
        a = self.args_kwargs(node, ["query", "key", "value", "key_padding_mask", "need_weights",
                                    "attn_mask", "average_attn_weights"],
                             {"key_padding_mask": None, "need_weights": True, "attn_mask": None,
                              "average_attn_weights": True})
        if not a["query"] is a["key"] is a["value"]:
            self.fail(node, "only self-attention (query, key and value the same tensor) is "
                      "supported")
        if a["need_weights"] is not False or a["key_padding_mask"] is not None or \
                a["attn_mask"] is not None:
            self.fail(node, "only need_weights=False without masks is supported")
        if m.bias_k is not None or m.add_zero_attn or not m._qkv_same_embed_dim:
            self.fail(node, "only attention without bias_kv, zero_attn or separate key/value "
                      "sizes is supported")
        x = self.tensor_arg(node, a["query"])
        if x.rank != 3:
            self.fail(node, "expected a 3-D input (batched attention)")
        shape = x.torch_shape
        embed = shape[2]
        rows = shape[0] * shape[1]
        w = self.w
        weight = m.in_proj_weight.detach().cpu().numpy()
        bias = (m.in_proj_bias.detach().cpu().numpy() if m.in_proj_bias is not None
                else np.zeros(3 * embed, np.float32))
        out_weight = m.out_proj.weight.detach().cpu().numpy()
        out_bias = (m.out_proj.bias.detach().cpu().numpy() if m.out_proj.bias is not None
                    else np.zeros(embed, np.float32))

        def attention(q, k, v):
            return self.attention_heads(q, k, v, m.num_heads, shape, m.batch_first, loc)

        if type(m) in self.quantizable:
            def child(name):
                if isinstance(loc, ModuleCall):
                    return ModuleCall(loc[0], f"{loc[1]}.{name}")
                return ModuleCall(loc, name)

            src = w.reshape(self.plain(node, x, loc), [1, rows, embed], loc, None)
            q, k, v = (self.linear_rows(src, weight[j * embed:(j + 1) * embed],
                                        bias[j * embed:(j + 1) * embed], child(name), None,
                                        f"{node.name}_{name}", part_of=origin)
                       for j, name in enumerate(["linear_Q", "linear_K", "linear_V"]))
            core = w.composite("torch.ao.nn.quantizable.MultiheadAttention", [q, k, v], loc,
                               origin, attention, hint=f"{node.name}_attention")
            y = self.linear_rows(core, out_weight, out_bias, child("out_proj"), None,
                                 f"{node.name}_out_proj", part_of=origin)
            y = w.reshape(y, shape, loc, None)
        else:
            def build(arg):
                src = w.reshape(arg, [1, rows, embed], loc, None)
                qkv = self.linear_rows(src, weight, bias, loc, None, "in_proj")
                q, k, v = (w.slice(qkv, [0, 0, j * embed], [1, rows, embed], loc, None)
                           for j in range(3))
                out = self.linear_rows(attention(q, k, v), out_weight, out_bias, loc, None,
                                       "out_proj")
                return w.reshape(out, shape, loc, None)

            y = w.composite("torch.nn.MultiheadAttention", [self.plain(node, x, loc)], loc,
                            origin, build, hint=node.name)
        self.env[node] = (_Value(y, _identity(3), y.shape), None)

    def attention_heads(self, q, k, v, heads: int, shape, batch_first: bool, loc) -> Tensor:
        """PyTorch's attention of `[1, rows, embed]` q, k and v in the layout
        of the module's input `shape` ([batch, length, embed] batch first,
        else [length, batch, embed]): per head, `softmax(q / sqrt(d) k^T) v`
        (q times 1/sqrt(head size), softmax the composite of `_softmax`), the
        heads concatenated again: `[1, rows, embed]` in the same layout."""
        w = self.w
        embed = shape[2]
        size = embed // heads
        batch, length = (shape[0], shape[1]) if batch_first else (shape[1], shape[0])
        group = batch * heads

        def split(t):
            """[batch * heads, length, size]: PyTorch's view and transpose."""
            if batch_first:
                t = w.transpose(w.reshape(t, [batch, length, heads, size], loc, None),
                                [0, 2, 1, 3], loc, None)
                return w.reshape(t, [group, length, size], loc, None)
            return w.transpose(w.reshape(t, [length, group, size], loc, None), [1, 0, 2],
                               loc, None)

        q = w.mul(split(q), w.const(np.full((1, 1, 1), 1 / math.sqrt(size), np.float32), loc,
                                    "scale"), (group, length, size), loc, None)
        k, v = split(k), split(v)
        zero = [w.zero_point(loc), w.zero_point(loc)]
        scores = w.op("matmul", [q, w.transpose(k, [0, 2, 1], loc, None), *zero],
                      (group, length, length), loc, None, hint="scores")
        # PyTorch's F.softmax(scores, dim=-1): its last-dimension kernel.
        probs = _softmax(w, scores, 2, True, loc, None, "probs")
        out = w.op("matmul", [probs, v, *zero], (group, length, size), loc, None,
                   hint="attention")
        if batch_first:
            out = w.transpose(w.reshape(out, [batch, heads, length, size], loc, None),
                              [0, 2, 1, 3], loc, None)
        else:
            out = w.transpose(out, [1, 0, 2], loc, None)
        return w.reshape(out, [1, batch * length, embed], loc, None)

    def m_embedding_bag(self, node, m):
        """nn.EmbeddingBag (no padding_idx, no max_norm) as `qfx.composite
        "torch.nn.EmbeddingBag"` with attribute `mode`:

        - of 2-D indices [bags, bag size]: of (indices, weight); the gathered
          rows [bags, size, D] reduced over the bag (reduce_sum, times 1/size
          for mean, reduce_max);
        - of 1-D indices and `offsets` (where each bag starts; with
          `include_last_offset` the last offset ends the last bag), or with
          `per_sample_weights` (mode sum, as PyTorch; 2-D indices become 1-D
          ones with offsets): of (indices, weight, offsets[,
          per_sample_weights]) with attribute `include_last_offset`. The
          body: each bag's membership of every index position (a mask from
          comparisons), the weighted rows summed per bag by a matmul with
          it (divided by the bag's size for mean), or their masked maximum;
          an empty bag is 0."""
        loc, origin = self.module_location(node), _module_type_name(m)
        a = self.args_kwargs(node, ["input", "offsets", "per_sample_weights"],
                             {"offsets": None, "per_sample_weights": None})
        if m.max_norm is not None or m.padding_idx is not None:
            self.fail(node, "EmbeddingBag with max_norm or padding_idx is not supported")
        indices = self.tensor_arg(node, a["input"])
        rows, dim = m.weight.shape
        self.check_indices(node, indices, rows)
        w = self.w
        weight = w.const(m.weight.detach().cpu().numpy(), loc, "weight")
        offsets, samples = a["offsets"], a["per_sample_weights"]
        if offsets is None and samples is None:
            if indices.rank != 2:
                self.fail(node, "EmbeddingBag of 1-D indices needs offsets")
            bags, size = indices.torch_shape

            def build(ids, table):
                gathered = w.reshape(self.lookup(ids, table, rows, dim, loc), [bags, size, dim],
                                     loc, None)
                if m.mode == "max":
                    pooled = w.op("reduce_max", [gathered], [bags, 1, dim], loc, None,
                                  attrs="axis = 1 : i32", hint="max")
                else:
                    pooled = w.op("reduce_sum", [gathered], [bags, 1, dim], loc, None,
                                  attrs="axis = 1 : i32", hint="sum")
                    if m.mode == "mean":
                        pooled = w.mul(pooled, w.const(np.full((1, 1, 1), 1.0 / size, np.float32),
                                                       loc, "inverse_size"), pooled.shape, loc,
                                       None)
                return w.reshape(pooled, [bags, dim], loc, None)

            y = w.composite("torch.nn.EmbeddingBag", [self.plain(node, indices, loc), weight],
                            loc, origin, build, attrs=f'mode = "{m.mode}"', hint="embedding_bag")
            self.set_tensor(node, y, _identity(2))
            return
        if samples is not None and m.mode != "sum":
            self.fail(node, "per_sample_weights are supported for mode 'sum' only (as PyTorch)")
        ids = self.plain(node, indices, loc)
        last = bool(m.include_last_offset)
        if offsets is None:
            # 2-D indices with per-sample weights: bags of equal size.
            if indices.rank != 2:
                self.fail(node, "EmbeddingBag of 1-D indices needs offsets")
            bags, size = indices.torch_shape
            ids = w.reshape(ids, [bags * size], loc, None)
            offsets_t = w.int_const(np.arange(0, bags * size, size, dtype=np.int64), loc,
                                    "offsets")
            last = False
        else:
            offsets_v = self.tensor_arg(node, offsets)
            if indices.rank != 1 or offsets_v.rank != 1:
                self.fail(node, "EmbeddingBag with offsets takes 1-D indices and 1-D offsets")
            # An offset is a position in the indices or their end.
            self.check_indices(node, offsets_v, indices.torch_shape[0] + 1)
            offsets_t = self.plain(node, offsets_v, loc)
            bags = offsets_v.torch_shape[0] - (1 if last else 0)
        count = ids.shape[0]
        operands = [ids, weight, offsets_t]
        if samples is not None:
            weights_v = self.tensor_arg(node, samples)
            if weights_v.tensor.element != "f32" or weights_v.torch_shape not in (
                    (count,), tuple(indices.torch_shape)):
                self.fail(node, "per_sample_weights must be a float32 tensor of the indices' shape")
            operands.append(w.reshape(self.plain(node, weights_v, loc), [count], loc, None))
        element = offsets_t.element

        def build(ids, table, starts_all, *weights):
            n_off = starts_all.shape[0]
            starts = w.reshape(w.slice(starts_all, (0,), (bags,), loc, None), [bags, 1], loc,
                               None)
            if last:
                ends = w.slice(starts_all, (1,), (bags,), loc, None)
            else:
                end = w.int_const(np.array([count], dtype=np.int64 if element == "i64"
                                           else np.int32), loc, "end")
                ends = (w.concat([w.slice(starts_all, (1,), (n_off - 1,), loc, None), end], 0,
                                 loc, None) if n_off > 1 else end)
            ends = w.reshape(ends, [bags, 1], loc, None)
            positions = w.int_const(np.arange(count, dtype=np.int64 if element == "i64"
                                              else np.int32).reshape(1, count), loc, "positions")
            inside = w.op("logical_and", [
                w.op("greater_equal", [positions, starts], [bags, count], loc, None,
                     hint="started", element="i1"),
                w.op("greater", [ends, positions], [bags, count], loc, None, hint="unended",
                     element="i1")], [bags, count], loc, None, hint="member", element="i1")
            gathered = self.lookup(ids, table, rows, dim, loc)  # [1, count, dim]
            if weights:
                gathered = w.mul(gathered, w.reshape(weights[0], [1, count, 1], loc, None),
                                 gathered.shape, loc, None)
            one = w.const(np.ones((1, 1), np.float32), loc, "one")
            zero = w.const(np.zeros((1, 1), np.float32), loc, "zero")
            mask = w.op("select", [inside, one, zero], [bags, count], loc, None, hint="mask")
            sizes = w.op("reduce_sum", [mask], [bags, 1], loc, None, attrs="axis = 1 : i32",
                         hint="size")
            if m.mode == "max":
                lowest = w.const(np.full((1, 1, 1), -np.inf, np.float32), loc, "lowest")
                chosen = w.op("select", [w.reshape(inside, [bags, count, 1], loc, None),
                                         gathered, lowest], [bags, count, dim], loc, None,
                              hint="chosen")
                pooled = w.reshape(w.op("reduce_max", [chosen], [bags, 1, dim], loc, None,
                                        attrs="axis = 1 : i32", hint="max"), [bags, dim], loc,
                                   None)
                empty = w.op("greater", [one, sizes], [bags, 1], loc, None, hint="empty",
                             element="i1")
                return w.op("select", [empty, zero, pooled], [bags, dim], loc, None,
                            hint="pooled")
            zp = [w.zero_point(loc), w.zero_point(loc)]
            pooled = w.reshape(w.op("matmul", [w.reshape(mask, [1, bags, count], loc, None),
                                               gathered, *zp], [1, bags, dim], loc, None,
                                    hint="sum"), [bags, dim], loc, None)
            if m.mode == "mean":
                inverse = w.op("reciprocal", [w.op("maximum", [sizes, one], [bags, 1], loc,
                                                   None, hint="size")],
                               [bags, 1], loc, None, hint="inverse_size")
                pooled = w.mul(pooled, inverse, pooled.shape, loc, None)
            return pooled

        attrs = f'mode = "{m.mode}", include_last_offset = {"true" if last else "false"}'
        y = w.composite("torch.nn.EmbeddingBag", operands, loc, origin, build, attrs=attrs,
                        hint="embedding_bag")
        self.set_tensor(node, y, _identity(2))

    def recurrent(self, node, m):
        """nn.LSTM and nn.GRU (either direction or both, no projection;
        initial states given or zero) and nn.LSTMCell, nn.GRUCell,
        nn.RNNCell: a `qfx.composite` named by the module of the inputs (the
        input and the states given), whose body is PyTorch's CPU
        computation, unrolled over the (static) sequence; results as the
        module returns them (LSTM: output, h_n, c_n; GRU: output, h_n). A
        sequence module projects the whole sequence's input at once per layer
        and direction (x W_ih^T + b_ih, one matmul, as PyTorch does before
        the steps); each step projects the hidden state (h W_hh^T + b_hh). The
        reverse direction steps from the last input to the first; the
        directions' outputs are concatenated along the features, their final
        states interleaved (layer 0 forward, layer 0 reverse, ...), as in
        PyTorch. A dynamic qconfig quantizes every matmul of the body
        (qfx-prepare), as PyTorch's quantized recurrent modules quantize each
        projection."""
        loc, origin = self.module_location(node), _module_type_name(m)
        if node.kwargs or len(node.args) not in (1, 2):
            self.fail(node, "expected the input and optionally the initial state")
        x = self.tensor_arg(node, node.args[0])
        states = node.args[1] if len(node.args) == 2 else None
        hidden, w = m.hidden_size, self.w
        is_sequence = isinstance(m, (nn.LSTM, nn.GRU))
        is_gru = isinstance(m, (nn.GRU, nn.GRUCell))
        gates = 4 if isinstance(m, (nn.LSTM, nn.LSTMCell)) else 3 if is_gru else 1
        layers = m.num_layers if is_sequence else 1
        directions = 2 if is_sequence and m.bidirectional else 1
        if is_sequence:
            if getattr(m, "proj_size", 0):
                self.fail(node, f"{type(m).__name__} with proj_size is not supported")
            if x.rank != 3:
                self.fail(node, "expected a batched (3-D) input")
            steps, batch = x.torch_shape[:2][::-1] if m.batch_first else x.torch_shape[:2]
        else:
            if x.rank != 2:
                self.fail(node, "expected a batched (2-D) input")
            steps, batch = 1, x.torch_shape[0]
        state_values = []
        if states is not None:
            given = states if isinstance(states, (tuple, list)) else (states,)
            state_values = [self.tensor_arg(node, v) for v in given]
            if len(state_values) != (2 if gates == 4 else 1):
                self.fail(node, "expected the module's initial state")

        def param(name, layer):
            """Layer `layer`'s parameter (a sequence module's layer 2k + 1 is
            layer k's reverse direction)."""
            suffix = f"_l{layer // directions}{'_reverse' if layer % directions else ''}"
            value = getattr(m, name + suffix if is_sequence else name, None)
            if value is None:  # bias=False
                return np.zeros(gates * hidden, np.float32)
            return value.detach().cpu().numpy()

        def project(a, name, layer, rows):
            """a [rows, in] times weight^T plus bias: [rows, out]."""
            weight, bias = param(f"weight_{name}", layer), param(f"bias_{name}", layer)
            a = w.reshape(a, [1, rows, a.shape[-1]], loc, None)
            b = w.const(weight.T[None, :, :], loc, "weight")
            mm = w.op("matmul", [a, b, w.zero_point(loc), w.zero_point(loc)],
                      (1, rows, weight.shape[0]), loc, None, hint="matmul")
            y = w.op("add", [mm, w.const(bias.reshape(1, 1, -1), loc, "bias")], mm.shape,
                     loc, None, hint="add")
            return w.reshape(y, [rows, weight.shape[0]], loc, None)

        def chunk(t, k):
            return w.slice(t, [0, k * hidden], [batch, hidden], loc, None)

        def unary(op, t):
            return w.op(op, [t], t.shape, loc, None, hint=op)

        def add(a, b):
            return w.op("add", [a, b], a.shape, loc, None, hint="add")

        def mul(a, b):
            return w.mul(a, b, a.shape, loc, None)

        def step(inputs, layer, h, c):
            """One step of the cell (PyTorch's RNN.cpp), `inputs` the
            input's projection: (h, c)."""
            recurrent = project(h, "hh", layer, batch)
            if is_gru:
                reset = unary("sigmoid", add(chunk(recurrent, 0), chunk(inputs, 0)))
                update = unary("sigmoid", add(chunk(recurrent, 1), chunk(inputs, 1)))
                new = unary("tanh", add(chunk(inputs, 2), mul(chunk(recurrent, 2), reset)))
                difference = w.op("sub", [h, new], h.shape, loc, None, hint="sub")
                return add(mul(difference, update), new), None
            total = add(recurrent, inputs)
            if isinstance(m, nn.RNNCell):
                if m.nonlinearity == "tanh":
                    return unary("tanh", total), None
                return w.clamp(total, 0.0, FLOAT32_MAX, loc, None), None
            i, f = unary("sigmoid", chunk(total, 0)), unary("sigmoid", chunk(total, 1))
            g, o = unary("tanh", chunk(total, 2)), unary("sigmoid", chunk(total, 3))
            c = add(mul(f, c), mul(i, g))
            return mul(o, unary("tanh", c)), c

        def initial(given, k, layer):
            """State k (h, c) of `layer` (with its direction, as in h_0):
            given or zeros."""
            if k >= len(given):
                return w.const(np.zeros((batch, hidden), np.float32), loc, "state")
            if not is_sequence:
                return given[k]
            t = w.slice(given[k], [layer, 0, 0], [1, batch, hidden], loc, None)
            return w.reshape(t, [batch, hidden], loc, None)

        def build(seq, *given):
            state_count = 2 if gates == 4 else 1
            if not is_sequence:
                h, c = (initial(given, k, 0) if k < state_count else None for k in (0, 1))
                h, c = step(project(seq, "ih", 0, batch), 0, h, c)
                return h if c is None else (h, c)
            if m.batch_first:
                seq = w.transpose(seq, [1, 0, 2], loc, None)
            finals = []
            for layer in range(layers):
                directed = []
                for index in range(layer * directions, (layer + 1) * directions):
                    inputs = project(seq, "ih", index, steps * batch)
                    h, c = (initial(given, k, index) if k < state_count else None
                            for k in (0, 1))
                    outputs = [None] * steps
                    for t in (reversed(range(steps)) if index % directions else range(steps)):
                        h, c = step(w.slice(inputs, [t * batch, 0], [batch, gates * hidden],
                                            loc, None), index, h, c)
                        outputs[t] = w.reshape(h, [1, batch, hidden], loc, None)
                    directed.append(outputs[0] if steps == 1 else
                                    w.concat(outputs, 0, loc, None))
                    finals.append([w.reshape(v, [1, batch, hidden], loc, None)
                                   for v in (h, c)[:state_count]])
                seq = directed[0] if directions == 1 else w.concat(directed, 2, loc, None)
            if m.batch_first:
                seq = w.transpose(seq, [1, 0, 2], loc, None)
            stacked = [finals[0][k] if len(finals) == 1 else
                       w.concat([f[k] for f in finals], 0, loc, None) for k in range(state_count)]
            return (seq, *stacked)

        operands = [self.plain(node, v, loc) for v in [x, *state_values]]
        results = w.composite(f"torch.nn.{type(m).__name__}", operands, loc, origin, build,
                              hint=node.name)
        values = [_Value(t, _identity(len(t.shape)), t.shape)
                  for t in (results if isinstance(results, tuple) else (results,))]
        self.env[node] = (values[0] if len(values) == 1 else
                          (values[0], tuple(values[1:])) if len(values) == 3 else tuple(values))

    def matmul(self, node, a: _Value, b: _Value, loc, origin):
        """A matmul of two tensors of rank >= 2 with the same batch
        dimensions: the composite "torch.matmul" of the two (a Linear is a
        tosa.matmul with a constant: a table has one row per pattern), its
        body one tosa.matmul over [B, M, K] x [B, K, N]. A constant operand
        (a parameter: `x @ self.w`) is marked `qfx.tensor_operand`: PyTorch
        observes it as an activation."""
        if a.rank < 2 or b.rank < 2 or a.torch_shape[:-2] != b.torch_shape[:-2]:
            self.fail(node, f"matmul of shapes {list(a.torch_shape)} and {list(b.torch_shape)} "
                      "is supported only with the same batch dimensions, both of rank >= 2")
        if a.array is not None and b.array is not None:
            self.fail(node, "matmul of two constants is not supported")
        w = self.w
        operands = [self.plain(node, v, loc) for v in (a, b)]
        for value, operand in zip((a, b), operands):
            if value.array is not None:
                w.annotate(operand, "qfx.tensor_operand", "unit")
        batch = int(np.prod(a.torch_shape[:-2], dtype=np.int64))
        (m, k), n = a.torch_shape[-2:], b.torch_shape[-1]
        out = self.out_shape(node)

        def build(lhs, rhs):
            lhs = w.reshape(lhs, (batch, m, k), loc, None)
            rhs = w.reshape(rhs, (batch, k, n), loc, None)
            y = w.op("matmul", [lhs, rhs, w.zero_point(loc), w.zero_point(loc)], (batch, m, n),
                     loc, None, hint="matmul")
            return w.reshape(y, out, loc, None)

        y = w.composite("torch.matmul", operands, loc, origin, build, hint=node.name)
        self.set_tensor(node, y, _identity(len(out)))

    def m_identity(self, node, m, x, loc, origin):
        self.alias(node, x)

    def m_flatten(self, node, m, x, loc, origin):
        self.reshape_to(node, x, loc, origin)

    def m_maxpool(self, node, m, x, loc, origin):
        dims = 1 if isinstance(m, nn.MaxPool1d) else 2
        if m.return_indices:
            self.fail(node, f"{origin} with return_indices is not supported")
        stride = _window(dims, m.stride if m.stride is not None else m.kernel_size, 1)
        self.max_pool(node, x, _window(dims, m.kernel_size, 1), stride,
                      _window(dims, m.padding, 0), _window(dims, m.dilation, 1), loc, origin)

    def m_avgpool(self, node, m, x, loc, origin):
        dims = 1 if isinstance(m, nn.AvgPool1d) else 2
        if getattr(m, "divisor_override", None) is not None:
            self.fail(node, f"{origin} with divisor_override is not supported")
        stride = _window(dims, m.stride if m.stride is not None else m.kernel_size, 1)
        self.avg_pool(node, x, _window(dims, m.kernel_size, 1), stride,
                      _window(dims, m.padding, 0), m.count_include_pad, m.ceil_mode, loc,
                      origin)

    def m_adaptive_avgpool(self, node, m, x, loc, origin):
        self.adaptive_avg_pool(node, x, loc, origin)

    # ----- pools ----------------------------------------------------------

    def pool_input(self, node, x: _Value, loc) -> Tensor:
        """The pool's operand as NHWC: a 4-D input, or a 3-D one (1-D
        pooling) as [N, 1, L, C]."""
        if x.rank == 3:
            n, length, c = (x.torch_shape[d] for d in _NLC)
            return self.w.reshape(self.in_layout(node, x, _NLC, loc), (n, 1, length, c), loc, None)
        if x.rank != 4:
            self.fail(node, f"pooling expects a 4-D (NCHW) or 3-D (NCL) input, got rank {x.rank}")
        return self.in_layout(node, x, _NHWC, loc)

    def pool_out_shape(self, node) -> tuple:
        """The pool's result shape as NCHW (NCL as [N, C, 1, L])."""
        out = self.out_shape(node)
        return out if len(out) == 4 else (out[0], out[1], 1, out[2])

    def set_pooled(self, node, y: Tensor, loc):
        if len(self.out_shape(node)) == 3:
            n, _, length, c = y.shape
            self.set_tensor(node, self.w.reshape(y, (n, length, c), loc, None), _NLC)
        else:
            self.set_tensor(node, y, _NHWC)

    def max_pool(self, node, x, kernel, stride, padding, dilation, loc, origin):
        if dilation != (1, 1):
            self.fail(node, "max pooling with dilation is not supported (TOSA max_pool2d has none)")
        src = self.pool_input(node, x, loc)
        n, h, wd, c = src.shape
        out = self.pool_out_shape(node)
        pb, cut_h = _window_extent(h, padding[0], padding[0], out[2], stride[0], kernel[0])
        pr, cut_w = _window_extent(wd, padding[1], padding[1], out[3], stride[1], kernel[1])
        src = self.w.slice(src, (0, 0, 0, 0), (n, h - cut_h, wd - cut_w, c), loc, None)
        attrs = (f"kernel = array<i64: {kernel[0]}, {kernel[1]}>, "
                 f"stride = array<i64: {stride[0]}, {stride[1]}>, "
                 f"pad = array<i64: {padding[0]}, {pb}, {padding[1]}, {pr}>")
        y = self.w.op("max_pool2d", [src], (n, out[2], out[3], c), loc, origin, attrs=attrs, hint=node.name)
        self.set_pooled(node, y, loc)

    def avg_pool(self, node, x, kernel, stride, padding, count_include_pad, ceil_mode, loc,
                 origin):
        w = self.w
        src = self.pool_input(node, x, loc)
        n, h, wd, c = src.shape
        out = self.pool_out_shape(node)
        pads = [padding[0], padding[0], padding[1], padding[1]]
        if count_include_pad and any(pads):
            # TOSA's average never counts padding; PyTorch counts the zeros of
            # `padding` (not the ceil-mode overhang), so pad with real zeros.
            # (tosa.pad of a 4-D tensor fails MLIR 22's level check, concat does not.)
            # The concats are part of the pool: its QConfig is theirs.
            def zeros(shape):
                return w.const(np.zeros(shape, np.float32), loc, "zeros")
            if padding[0]:
                z = zeros((n, padding[0], wd, c))
                src = self.part_of(w.concat([z, src, z], 1, loc, None), origin)
            if padding[1]:
                z = zeros((n, src.shape[1], padding[1], c))
                src = self.part_of(w.concat([z, src, z], 2, loc, None), origin)
            n, h, wd, c = src.shape
            pads = [0, 0, 0, 0]
        pb, cut_h = _window_extent(h, pads[0], pads[1], out[2], stride[0], kernel[0])
        pr, cut_w = _window_extent(wd, pads[2], pads[3], out[3], stride[1], kernel[1])
        src = w.slice(src, (0, 0, 0, 0), (n, h - cut_h, wd - cut_w, c), loc, None)
        # PyTorch's qnnpack engine takes a pool without ceil_mode.
        self.emit_avg_pool(node, src, kernel, stride, (pads[0], pb, pads[2], pr), (out[2], out[3]),
                           loc, origin, self.pool_kernel(node, "avg_pool2d"), not ceil_mode)

    def pad(self, node, x: _Value, pads, mode: str, value, loc, origin):
        """F.pad: per padded dimension (the last first, as `pads` lists
        them), a slice where a pad is negative, then a concat of the pieces
        the mode adds (constant blocks; reflected, replicated or wrapped
        slices) around the tensor. Data movement, exact; every op carries
        the pad's origin, which PyTorch's tables have no pattern for (float
        on the dequantized tensor, as in PyTorch). (Not tosa.pad: MLIR 22's
        validation rejects its !tosa.shape<8> padding of a 4-D tensor.)"""
        if (not isinstance(pads, (tuple, list)) or len(pads) % 2
                or not all(isinstance(p, int) for p in pads) or len(pads) // 2 > x.rank):
            self.fail(node, f"pad {pads!r}: expected pairs of ints for at most {x.rank} "
                      "dimensions")
        if mode not in ("constant", "reflect", "replicate", "circular"):
            self.fail(node, f"pad mode {mode!r} is not supported")
        if mode != "constant" and value not in (None, 0, 0.0):
            self.fail(node, f"a value with pad mode {mode!r}")
        w = self.w
        t, torch_shape = x.tensor, list(x.torch_shape)

        def piece(t, axis, start, size):
            begin, shape = [0] * len(t.shape), list(t.shape)
            begin[axis], shape[axis] = start, size
            return w.slice(t, begin, shape, loc, origin)

        for k in range(len(pads) // 2):
            d = x.rank - 1 - k
            axis = x.layout.index(d)
            before, after = pads[2 * k], pads[2 * k + 1]
            if before < 0 or after < 0:  # a crop
                first, last = max(-before, 0), t.shape[axis] - max(-after, 0)
                if last <= first:
                    self.fail(node, f"pad {pads!r} leaves nothing of a dimension of "
                              f"{torch_shape[d]}")
                t = piece(t, axis, first, last - first)
                before, after = max(before, 0), max(after, 0)
            n = t.shape[axis]
            if mode in ("reflect", "circular") and (before >= n + (mode == "circular")
                                                     or after >= n + (mode == "circular")):
                self.fail(node, f"{mode} padding of {max(before, after)} on a dimension of {n}")
            if mode == "constant":
                def block(size):
                    shape = list(t.shape)
                    shape[axis] = size
                    return w.const(np.full(shape, value or 0.0, np.float32), loc, "pad")
                left = [block(before)] if before else []
                right = [block(after)] if after else []
            elif mode == "reflect":
                left = [piece(t, axis, i, 1) for i in range(before, 0, -1)]
                right = [piece(t, axis, n - 2 - i, 1) for i in range(after)]
            elif mode == "replicate":
                left = [piece(t, axis, 0, 1)] * before
                right = [piece(t, axis, n - 1, 1)] * after
            else:
                left = [piece(t, axis, n - before, before)] if before else []
                right = [piece(t, axis, 0, after)] if after else []
            if left or right:
                t = w.concat(left + [t] + right, axis, loc, origin)
        if t is x.tensor:
            self.alias(node, x)
        else:
            self.set_tensor(node, t, x.layout)

    def part_of(self, tensor: Tensor, origin: Optional[str]) -> Tensor:
        """`tensor`, whose op is a part of the PyTorch op `origin` without
        being its TOSA form, marked `qfx.part_of`: it takes that op's QConfig."""
        if origin is not None:
            self.w.annotate(tensor, "qfx.part_of", f'"{origin}"')
        return tensor

    def pool_kernel(self, node, name: str) -> Optional[str]:
        """`qfx.torch_kernel` of the average pool `node` (its operand the
        node's first): the kernel PyTorch's quantized model runs on a
        contiguous operand, None for a channels-last one."""
        source = node.all_input_nodes[0]
        strides = self.torch_strides.read(source)
        if strides is None or not uses_contiguous_pool_kernel(self.recorded[source].shape, strides):
            return None
        return f"{name}_contiguous"

    def emit_avg_pool(self, node, src, kernel, stride, pads, out_hw, loc, origin, torch_kernel,
                      qnnpack):
        self.set_pooled(node, self.avg_pool_op(node, src, kernel, stride, pads, out_hw, loc,
                                               origin, torch_kernel, qnnpack), loc)

    def avg_pool_op(self, node, src, kernel, stride, pads, out_hw, loc, origin,
                    torch_kernel: Optional[str], qnnpack: bool = False) -> Tensor:
        """The tosa.avg_pool2d; `torch_kernel` its `qfx.torch_kernel`, and
        `qnnpack` whether PyTorch's qnnpack engine averages it with qnnpack's
        kernel (`qfx.qnnpack_pool`)."""
        w = self.w
        n, _, _, c = src.shape
        zi = w.zero_point(loc)
        zo = w.zero_point(loc)
        attrs = (f"acc_type = f32, kernel = array<i64: {kernel[0]}, {kernel[1]}>, "
                 f"stride = array<i64: {stride[0]}, {stride[1]}>, "
                 f"pad = array<i64: {pads[0]}, {pads[1]}, {pads[2]}, {pads[3]}>")
        if torch_kernel:
            attrs += f', qfx.torch_kernel = "{torch_kernel}"'
        if qnnpack:
            attrs += ", qfx.qnnpack_pool"
        return w.op("avg_pool2d", [src, zi, zo], (n, out_hw[0], out_hw[1], c), loc, origin,
                    attrs=attrs, hint=node.name)

    def adaptive_avg_pool(self, node, x, loc, origin):
        src = self.pool_input(node, x, loc)
        n, h, wd, c = src.shape
        out = self.pool_out_shape(node)
        torch_kernel = self.pool_kernel(node, "adaptive_avg_pool2d")
        if h % out[2] == 0 and wd % out[3] == 0:
            kernel = (h // out[2], wd // out[3])
            # PyTorch's qnnpack engine takes an even pool that is not the
            # identity.
            self.emit_avg_pool(node, src, kernel, kernel, (0, 0, 0, 0), (out[2], out[3]), loc,
                               origin, torch_kernel, kernel != (1, 1))
            return
        # PyTorch's windows, [floor(i * size / o), ceil((i + 1) * size / o)),
        # differ in size where o does not divide size: one op, a composite
        # whose body pools each output position's window (a slice) and
        # concatenates them.
        def windows(size, o):
            return [((i * size) // o, -(-((i + 1) * size) // o)) for i in range(o)]

        def build(arg):
            rows = []
            for h0, h1 in windows(h, out[2]):
                cells = []
                for w0, w1 in windows(wd, out[3]):
                    window = self.w.slice(arg, (0, h0, w0, 0), (n, h1 - h0, w1 - w0, c), loc,
                                          None)
                    kernel = (h1 - h0, w1 - w0)
                    cells.append(self.avg_pool_op(node, window, kernel, kernel, (0, 0, 0, 0),
                                                  (1, 1), loc, None, torch_kernel))
                rows.append(cells[0] if len(cells) == 1 else self.w.concat(cells, 2, loc, None))
            return rows[0] if len(rows) == 1 else self.w.concat(rows, 1, loc, None)

        y = self.w.composite("torch.nn.AdaptiveAvgPool2d", src, loc, origin, build,
                             hint=node.name)
        self.set_pooled(node, y, loc)

    # ----- shape ops ------------------------------------------------------

    def reshape_to(self, node, x: _Value, loc, origin):
        shape = self.out_shape(node)
        perm = [x.layout.index(d) for d in range(x.rank)]
        if _keeps_element_order(perm, x.tensor.shape):
            src = x.tensor  # held order already is PyTorch's element order
        else:
            src = self.plain(node, x, loc)
        y = self.w.reshape(src, shape, loc, origin)
        self.set_tensor(node, y, _identity(len(shape)))

    def permute_to(self, node, x: _Value, dims: Sequence[int], loc, origin):
        dims = [d % x.rank for d in dims]
        # plain = held.transpose(to_plain); result = plain.transpose(dims).
        to_plain = [x.layout.index(d) for d in range(x.rank)]
        perm = [to_plain[d] for d in dims]
        y = self.w.transpose(x.tensor, perm, loc, origin)
        self.set_tensor(node, y, _identity(x.rank))

    # ----- elementwise binary ---------------------------------------------

    def binary(self, node, opname, a, b, loc, origin):
        operands, layout, held = self.elementwise_operands(node, (a, b), loc)
        if opname == "mul":
            y = self.w.mul(operands[0], operands[1], held, loc, origin)
        else:
            y = self.w.op(opname, operands, held, loc, origin, hint=node.name)
            if opname == "add" and self.mixes_memory_formats(node):
                self.w.annotate(y, "qfx.torch_kernel", '"add_scalar_loop"')
        self.set_tensor(node, y, layout)

    def mixes_memory_formats(self, node) -> bool:
        """Whether PyTorch's quantized model holds the two tensor operands of
        `node`, of one shape, dense in different memory formats (one
        contiguous, one channels-last): its x86 add kernel then runs
        TensorIterator's scalar loop on every element, which dequantizes as
        (q - z) * s, not as its vector code's fma (docs/convert-and-lower.md).
        Marked `qfx.torch_kernel = "add_scalar_loop"` on the add for
        qfx-lower."""
        args = node.args[:2]
        if len(args) != 2 or not all(isinstance(a, torch.fx.Node) for a in args):
            return False
        shapes = [tuple(self.recorded[a].shape) if isinstance(self.recorded.get(a), torch.Tensor)
                  else None for a in args]
        strides = [self.torch_strides.read(a) for a in args]
        if None in strides or None in shapes or shapes[0] != shapes[1]:
            return False
        shape = shapes[0]
        formats = [{f for f, dense in (("contiguous", is_contiguous(shape, s)),
                                       ("channels_last", is_channels_last_contiguous(shape, s)))
                    if dense} for s in strides]
        return all(formats) and not formats[0] & formats[1]

    def elementwise_operands(self, node, values: Sequence, loc):
        """The operands `values` (values or numbers) of an elementwise op as
        tensors of the output's rank in one layout (the first operand's of
        that rank that is not the identity), that layout, and the output's
        shape held in it."""
        out_shape = self.out_shape(node)
        rank = len(out_shape)
        layout = _identity(rank)
        for operand in values:
            if isinstance(operand, _Value) and operand.rank == rank and operand.layout != layout:
                layout = operand.layout
                break
        operands = []
        for operand in values:
            if isinstance(operand, _Value):
                t = operand.tensor if operand.layout == layout else None
                if t is None:
                    if operand.rank == rank:
                        t = self.in_layout(node, operand, layout, loc)
                    elif operand.array is not None:
                        full = operand.array.reshape((1,) * (rank - operand.rank) + operand.torch_shape)
                        t = operand._materialize(np.transpose(full, layout))
                    else:
                        plain = self.plain(node, operand, loc)
                        full = (1,) * (rank - operand.rank) + operand.torch_shape
                        t = self.w.reshape(plain, full, loc, None)
                        t = self.w.transpose(t, layout, loc, None)
            elif isinstance(operand, (int, float)) and not isinstance(operand, bool):
                t = self.w.const(np.full((1,) * rank, operand, np.float32), loc, "scalar")
            else:
                self.fail(node, f"unsupported operand {operand!r}")
            if isinstance(operand, _Value) and operand.array is not None:
                # A module attribute: a tensor argument to PyTorch, unlike a number.
                self.w.annotate(t, "qfx.tensor_operand", "unit")
            operands.append(t)
        return operands, layout, tuple(out_shape[d] for d in layout)

    def concat(self, node, tensors, dim, loc, origin):
        values = [self.tensor_arg(node, t) for t in tensors]
        rank = values[0].rank
        layout = next((v.layout for v in values if v.layout != _identity(rank)), _identity(rank))
        srcs = [self.in_layout(node, v, layout, loc) for v in values]
        for value, src in zip(values, srcs):
            if value.array is not None:  # a tensor argument to PyTorch (ViT's class token)
                self.w.annotate(src, "qfx.tensor_operand", "unit")
        axis = layout.index(dim % rank)
        y = self.w.concat(srcs, axis, loc, origin)
        self.set_tensor(node, y, layout)

    # ----- call_function / call_method ------------------------------------

    def getitem(self, node) -> bool:
        """`pieces[i]` of a tuple of tensors (chunk, split), or indexing a
        tensor with ints and unit-step slices (`x[:, 0]`, `x[..., :8]`): a
        slice (and a reshape for the dropped dimensions), both without
        origin: PyTorch quantizes no op there. False for shape arithmetic."""
        container = self.env.get(node.args[0]) if isinstance(node.args[0], torch.fx.Node) else None
        index = self.static(node, node.args[1])
        if isinstance(container, (tuple, dict)) and _values(container):
            self.env[node] = container[index]
            return True
        if not isinstance(container, _Value):
            return False
        x = container
        items = list(index) if isinstance(index, tuple) else [index]
        if sum(item is Ellipsis for item in items) > 1:
            self.fail(node, "indexing with more than one Ellipsis")
        if Ellipsis in items:
            at = items.index(Ellipsis)
            items[at:at + 1] = [slice(None)] * (x.rank - len(items) + 1)
        items += [slice(None)] * (x.rank - len(items))
        start, size, dropped = [], [], False
        for item, extent in zip(items, x.torch_shape):
            if isinstance(item, int) and not isinstance(item, bool):
                if not -extent <= item < extent:
                    self.fail(node, f"index {item} out of range for a dimension of {extent}")
                start.append(item % extent)
                size.append(1)
                dropped = True
            elif isinstance(item, slice) and item.step in (None, 1):
                first, stop, _ = item.indices(extent)
                start.append(first)
                size.append(max(stop - first, 0))
            else:
                self.fail(node, f"indexing with {item!r} is not supported (ints and slices of "
                          "step 1)")
        if 0 in size:
            self.fail(node, "indexing to an empty tensor is not supported")
        piece = _Value(self.w.slice(x.tensor, [start[d] for d in x.layout],
                                    [size[d] for d in x.layout], self.node_location(node), None),
                       x.layout, tuple(size))
        if dropped:
            self.reshape_to(node, piece, self.node_location(node), None)
        else:
            self.set_tensor(node, piece.tensor, x.layout)
        return True

    def field(self, node) -> bool:
        """`result.values` of a named tuple of tensors a graph break
        returned (torch.topk's): its element at the field's position. False
        for anything else."""
        container = self.env.get(node.args[0]) if isinstance(node.args[0], torch.fx.Node) else None
        if not isinstance(container, tuple) or not _values(container):
            return False
        recorded = self.recorded.get(node.args[0])
        position = next((k for k, v in enumerate(recorded or ()) if v is self.recorded[node]),
                        None)
        if position is None:
            self.fail(node, f"field {node.args[1]!r} of a tuple is not one of its elements")
        self.env[node] = container[position]
        return True

    def split(self, node, x: _Value, sizes: Sequence[int], dim: int, loc, origin):
        """chunk / split along `dim`: one slice per piece, with the call's
        origin. PyTorch's tables have no pattern for either: PyTorch runs
        them on the dequantized tensor, and a quantized user of a piece
        observes the piece (it does not share the split tensor's qparams)."""
        dim %= x.rank
        if sum(sizes) != x.torch_shape[dim]:
            self.fail(node, f"pieces of {list(sizes)} do not split a dimension of "
                      f"{x.torch_shape[dim]}")
        pieces, first = [], 0
        for size in sizes:
            start = [0] * x.rank
            start[dim] = first
            shape = list(x.torch_shape)
            shape[dim] = size
            tensor = self.w.slice(x.tensor, [start[d] for d in x.layout],
                                  [shape[d] for d in x.layout], loc, origin)
            pieces.append(_Value(tensor, x.layout, tuple(shape)))
            first += size
        self.env[node] = tuple(pieces)

    def is_shape_arithmetic(self, node) -> bool:
        if node.op == "call_method":
            return node.target in _STATIC_METHODS
        if node.target is getattr:
            return len(node.args) == 2 and node.args[1] in ("shape", "ndim")
        if node.target in _STATIC_FUNCTIONS:
            return not any(isinstance(self.env.get(a), _Value) for a in node.all_input_nodes)
        return False

    def call_function(self, node):
        target = node.target
        if target is operator.getitem and self.getitem(node):
            return
        if target is getattr and self.field(node):
            return
        if self.is_shape_arithmetic(node):
            self.static_call(node)
            return
        handler = _FUNCTION_HANDLERS.get(target) or _NAMED_FUNCTION_HANDLERS.get(
            _qualified_name(target))
        if handler is None:
            self.fail(node, "unsupported function")
        origin = _qualified_name(target)
        handler(self, node, self.node_location(node), _FUNCTIONAL_NAMES.get(origin, origin))

    def call_method(self, node):
        if self.is_shape_arithmetic(node):
            self.static_call(node)
            return
        handler = _METHOD_HANDLERS.get(node.target)
        if handler is None:
            self.fail(node, "unsupported tensor method")
        handler(self, node, self.node_location(node), f"torch.Tensor.{node.target}")

    def node_location(self, node) -> tuple:
        """A functional call or tensor method is located at its enclosing
        module (the qualified name, "" at the top level) and its FX node:
        `loc("layer1.0"("add"))`."""
        return (self.scope.get(node, ""), node.name)

    def static_call(self, node):
        """Shape arithmetic (x.size(0), x.shape[1] * 2): a Python value known
        from the traced shapes, not a tensor computation."""
        result = self.recorded[node]
        if isinstance(result, torch.Tensor):
            self.fail(node, "expected a shape value, got a tensor")
        if isinstance(result, torch.Size):
            result = tuple(result)
        self.env[node] = result

    def args_kwargs(self, node, names: Sequence[str], defaults: dict):
        """Binds positional and keyword arguments by PyTorch's parameter names."""
        bound = dict(defaults)
        for name, arg in zip(names, node.args):
            bound[name] = arg
        if len(node.args) > len(names):
            self.fail(node, "too many positional arguments")
        for key, arg in node.kwargs.items():
            if key not in names and key not in defaults:
                self.fail(node, f"unsupported keyword argument '{key}'")
            bound[key] = arg
        missing = [n for n in names if n not in bound]
        if missing:
            self.fail(node, f"missing argument '{missing[0]}'")
        return bound


def _f_add(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "other"], {"alpha": 1})
    if ex.static(node, a["alpha"]) != 1:
        ex.fail(node, "add with alpha != 1 is not supported")
    ex.binary(node, "add", _operand(ex, node, a["input"]), _operand(ex, node, a["other"]), loc, origin)


def _f_mul(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "other"], {})
    ex.binary(node, "mul", _operand(ex, node, a["input"]), _operand(ex, node, a["other"]), loc, origin)


def _f_div(ex, node, loc, origin):
    """True division: the composite "torch.div", whose body multiplies by the
    reciprocal (TOSA has no float division) and which qfx-lower-division
    computes as PyTorch does, x / y rounded once. By a number: one input,
    the number its `divisor` attribute (and a constant of the body); else
    the dividend and divisor as two inputs of the output's rank. A number
    divided by a tensor is PyTorch's `Tensor.__rtruediv__`, the tensor's
    reciprocal times the number: so written."""
    a = ex.args_kwargs(node, ["input", "other", "rounding_mode"], {"rounding_mode": None})
    if ex.static(node, a["rounding_mode"]) is not None:
        ex.fail(node, "division with a rounding_mode is not supported")
    x, other = _operand(ex, node, a["input"]), _operand(ex, node, a["other"])
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        if not isinstance(x, _Value):
            ex.fail(node, f"unsupported dividend {x!r}")
        if other == 0:
            ex.fail(node, "division by the number 0 is not supported")
        ex.composite(node, x, "torch.div", loc, origin, divisor=float(other))
        return
    if not isinstance(other, _Value) or other.array is not None:
        ex.fail(node, f"unsupported divisor {other!r}")
    if not isinstance(x, _Value):
        inverse = ex.w.op("reciprocal", [other.tensor], other.tensor.shape, loc, origin,
                          hint="reciprocal")
        ex.binary(node, "mul", x, _Value(inverse, other.layout, other.torch_shape), loc, origin)
        return
    operands, layout, held = ex.elementwise_operands(node, (x, other), loc)
    w = ex.w

    def build(dividend, divisor):
        inverse = w.op("reciprocal", [divisor], divisor.shape, loc, None, hint="reciprocal")
        return w.mul(dividend, inverse, held, loc, None)

    ex.set_tensor(node, w.composite("torch.div", operands, loc, origin, build, hint=node.name),
                  layout)


def _f_softmax(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "dim", "_stacklevel", "dtype"],
                       {"dim": None, "_stacklevel": 3, "dtype": None})
    if ex.static(node, a["dim"]) is None or ex.static(node, a["dtype"]) is not None:
        ex.fail(node, "softmax is supported with a dim and no dtype")
    ex.softmax(node, ex.tensor_arg(node, a["input"]), ex.static(node, a["dim"]), loc, origin)


def _operand(ex, node, arg):
    if isinstance(arg, torch.fx.Node):
        value = ex.env.get(arg)
        return value
    return arg


# Comparisons: TOSA's op and whether it takes the operands swapped (a < b is
# b > a); "ne" is the negation of "equal".
_COMPARISONS = {"gt": ("greater", False), "ge": ("greater_equal", False),
                "lt": ("greater", True), "le": ("greater_equal", True),
                "eq": ("equal", False), "ne": ("equal", False)}


def _compare_fn(name: str):
    """x > y (and the others) on float tensors and numbers: a bool tensor
    (i1), exact. PyTorch quantizes no comparison: float ops here too."""
    opname, swapped = _COMPARISONS[name]

    def handler(ex, node, loc, origin):
        a = ex.args_kwargs(node, ["input", "other"], {})
        x, y = _operand(ex, node, a["input"]), _operand(ex, node, a["other"])
        for operand in (x, y):
            if isinstance(operand, _Value) and operand.tensor.element != "f32":
                ex.fail(node, f"comparing a tensor of {operand.tensor.element} is not supported "
                        "(float32 tensors)")
        operands, layout, held = ex.elementwise_operands(node, (x, y), loc)
        if swapped:
            operands.reverse()
        out = ex.w.op(opname, operands, held, loc, origin, hint=node.name, element="i1")
        if name == "ne":
            out = ex.w.op("logical_not", [out], held, loc, None, hint=node.name, element="i1")
        ex.set_tensor(node, out, layout)
    return handler


def _logical_fn(opname: str):
    """&, |, ^ and ~ of bool tensors (comparisons' results): TOSA's
    logical ops."""
    def handler(ex, node, loc, origin):
        values = [_operand(ex, node, arg) for arg in node.args]
        if not values or len(values) > 2 or not all(
                isinstance(v, _Value) and v.tensor.element == "i1" for v in values) or node.kwargs:
            ex.fail(node, "logical ops of bool tensors only are supported")
        operands, layout, held = ex.elementwise_operands(node, values, loc)
        ex.set_tensor(node, ex.w.op(opname, operands, held, loc, origin, hint=node.name,
                                    element="i1"), layout)
    return handler


def _f_masked_fill(ex, node, loc, origin):
    """x.masked_fill(mask, value): torch.where(mask, value, x)."""
    a = ex.args_kwargs(node, ["input", "mask", "value"], {})
    x, mask = _operand(ex, node, a["input"]), _operand(ex, node, a["mask"])
    value = ex.static(node, a["value"])
    if not isinstance(x, _Value) or x.tensor.element != "f32":
        ex.fail(node, "masked_fill of a tensor other than float32 is not supported")
    if not isinstance(mask, _Value) or mask.tensor.element != "i1":
        ex.fail(node, "masked_fill with a mask other than a bool tensor is not supported")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        ex.fail(node, f"masked_fill with the value {value!r} is not supported (a number)")
    operands, layout, held = ex.elementwise_operands(node, (mask, float(value), x), loc)
    ex.set_tensor(node, ex.w.op("select", operands, held, loc, origin, hint=node.name), layout)


def _f_where(ex, node, loc, origin):
    """torch.where(condition, x, y) of a bool tensor and float tensors or
    numbers: tosa.select (exact; PyTorch quantizes no where)."""
    a = ex.args_kwargs(node, ["condition", "input", "other"], {})
    condition = _operand(ex, node, a["condition"])
    if not isinstance(condition, _Value) or condition.tensor.element != "i1":
        ex.fail(node, "torch.where with a condition other than a bool tensor is not supported")
    x, y = _operand(ex, node, a["input"]), _operand(ex, node, a["other"])
    for operand in (x, y):
        if isinstance(operand, _Value) and operand.tensor.element != "f32":
            ex.fail(node, f"torch.where of a tensor of {operand.tensor.element} is not supported "
                    "(float32 tensors and numbers)")
    operands, layout, held = ex.elementwise_operands(node, (condition, x, y), loc)
    ex.set_tensor(node, ex.w.op("select", operands, held, loc, origin, hint=node.name), layout)


def _f_cat(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["tensors", "dim"], {"dim": 0})
    ex.concat(node, a["tensors"], ex.static(node, a["dim"]), loc, origin)


def _f_reshape_like(ex, node, loc, origin):
    ex.reshape_to(node, ex.tensor_arg(node, node.args[0]), loc, origin)


def _f_permute(ex, node, loc, origin):
    x = ex.tensor_arg(node, node.args[0])
    dims = node.args[1:] if node.op == "call_method" else node.args[1:2]
    if "dims" in node.kwargs:
        dims = [node.kwargs["dims"]]
    dims = ex.static(node, list(dims))
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = list(dims[0])
    ex.permute_to(node, x, dims, loc, origin)


def _f_transpose(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "dim0", "dim1"], {})
    x = ex.tensor_arg(node, a["input"])
    d0, d1 = ex.static(node, a["dim0"]) % x.rank, ex.static(node, a["dim1"]) % x.rank
    dims = list(range(x.rank))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    ex.permute_to(node, x, dims, loc, origin)


def _f_t(ex, node, loc, origin):
    """x.t() / torch.t(x): a 2-D tensor transposed (fewer dimensions: itself)."""
    x = ex.tensor_arg(node, node.args[0] if node.args else node.kwargs.get("input"))
    if x.rank > 2:
        ex.fail(node, f"t() of a {x.rank}-D tensor (PyTorch takes at most 2-D)")
    if x.rank < 2:
        ex.alias(node, x)
    else:
        ex.permute_to(node, x, [1, 0], loc, origin)


def _f_embedding(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "weight", "padding_idx", "max_norm", "norm_type",
                              "scale_grad_by_freq", "sparse"],
                       {"padding_idx": None, "max_norm": None, "norm_type": 2.0,
                        "scale_grad_by_freq": False, "sparse": False})
    if ex.static(node, a["max_norm"]) is not None:
        ex.fail(node, "embedding with max_norm (it renormalizes the weight in place) is not "
                "supported")
    ex.embedding(node, ex.tensor_arg(node, a["input"]), ex.constant_arg(node, a["weight"], "weight"),
                 loc, origin)


def _f_linear(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "weight", "bias"], {"bias": None})
    weight = ex.constant_arg(node, a["weight"], "weight")
    bias = (ex.constant_arg(node, a["bias"], "bias") if a["bias"] is not None
            else np.zeros(weight.shape[0], np.float32))
    ex.linear(node, ex.tensor_arg(node, a["input"]), weight, bias, loc, origin)


def _functional_conv(dims: int):
    """F.conv1d / F.conv2d with parameter weights: the module's export, on
    a stand-in module holding the call's arguments."""
    def handler(ex, node, loc, origin):
        import types

        a = ex.args_kwargs(node, ["input", "weight", "bias", "stride", "padding", "dilation",
                                  "groups"],
                           {"bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1})
        weight = ex.constant_arg(node, a["weight"], "weight")
        bias = ex.constant_arg(node, a["bias"], "bias") if a["bias"] is not None else None
        conv = types.SimpleNamespace(
            weight=torch.from_numpy(weight), bias=None if bias is None else torch.from_numpy(bias),
            kernel_size=tuple(weight.shape[2:]), stride=ex.static(node, a["stride"]),
            padding=ex.static(node, a["padding"]), dilation=ex.static(node, a["dilation"]),
            groups=int(ex.static(node, a["groups"])), padding_mode="zeros")
        export = {1: ex.m_conv1d, 2: ex.m_conv2d, 3: ex.m_conv3d}[dims]
        export(node, conv, ex.tensor_arg(node, a["input"]), loc, origin)
    return handler


def _f_matmul(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "other"], {})
    ex.matmul(node, ex.tensor_arg(node, a["input"]), ex.tensor_arg(node, a["other"]), loc, origin)


def _f_layer_norm(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "normalized_shape", "weight", "bias", "eps"],
                       {"weight": None, "bias": None, "eps": 1e-5})
    shape = ex.static(node, a["normalized_shape"])
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    weight, bias = ((ex.constant_arg(node, a[k], k) if a[k] is not None else None)
                    for k in ("weight", "bias"))
    ex.layer_norm(node, ex.tensor_arg(node, a["input"]), shape, weight, bias,
                  float(ex.static(node, a["eps"])), loc, origin)


def _split_like(count: str):
    """chunk / split: the pieces PyTorch made, as slices."""
    def handler(ex, node, loc, origin):
        a = ex.args_kwargs(node, ["input", count, "dim"], {"dim": 0})
        dim = ex.static(node, a["dim"])
        ex.split(node, ex.tensor_arg(node, a["input"]),
                 [piece.shape[dim] for piece in ex.recorded[node]], dim, loc, origin)
    return handler


def _f_group_norm(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "num_groups", "weight", "bias", "eps"],
                       {"weight": None, "bias": None, "eps": 1e-5})
    weight, bias = ((ex.constant_arg(node, a[k], k) if a[k] is not None else None)
                    for k in ("weight", "bias"))
    ex.group_norm(node, ex.tensor_arg(node, a["input"]), int(ex.static(node, a["num_groups"])),
                  weight, bias, float(ex.static(node, a["eps"])), "torch.nn.GroupNorm", loc,
                  origin)


def _f_instance_norm(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "running_mean", "running_var", "weight", "bias",
                              "use_input_stats", "momentum", "eps"],
                       {"running_mean": None, "running_var": None, "weight": None, "bias": None,
                        "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})
    if not ex.static(node, a["use_input_stats"]):
        ex.fail(node, "instance_norm with running statistics is not supported")
    x = ex.tensor_arg(node, a["input"])
    if x.rank not in (3, 4, 5):
        ex.fail(node, f"instance_norm expects a 3-D to 5-D input, got rank {x.rank}")
    weight, bias = ((ex.constant_arg(node, a[k], k) if a[k] is not None else None)
                    for k in ("weight", "bias"))
    ex.group_norm(node, x, x.torch_shape[1], weight, bias, float(ex.static(node, a["eps"])),
                  f"torch.nn.InstanceNorm{x.rank - 2}d", loc, origin)


def _bilinear_weights(in_size: int, out_size: int, align_corners: bool, scale) -> np.ndarray:
    """The [out, in] matrix of PyTorch's linear interpolation along one
    dimension (area_pixel_compute_source_index: half-pixel centres clamped
    at 0, or corners aligned; `scale` the scale_factor given, if any)."""
    if align_corners:
        ratio = (np.float32(in_size - 1) / np.float32(out_size - 1) if out_size > 1
                 else np.float32(0))
    else:
        ratio = np.float32(1.0 / scale) if scale else np.float32(in_size) / np.float32(out_size)
    weights = np.zeros((out_size, in_size), np.float32)
    for dst in range(out_size):
        if align_corners:
            src = ratio * np.float32(dst)
        else:
            src = max(ratio * (np.float32(dst) + np.float32(0.5)) - np.float32(0.5), np.float32(0))
        i0 = int(src)
        i1 = i0 + (1 if i0 < in_size - 1 else 0)
        l1 = np.float32(src - i0)
        weights[dst, i0] += np.float32(1) - l1
        weights[dst, i1] += l1
    return weights


def _f_interpolate(ex, node, loc, origin):
    """Nearest-neighbour upsampling by integer factors: per spatial
    dimension, a new axis after it, tiled `factor` times, merged back
    (exactly PyTorch's floor(dst * (1 / factor)) for the factors that occur).
    Bilinear (4-D): the composite "torch.nn.functional.interpolate" whose body
    multiplies by PyTorch's interpolation matrices along H, then W."""
    a = ex.args_kwargs(node, ["input", "size", "scale_factor", "mode", "align_corners",
                              "recompute_scale_factor", "antialias"],
                       {"size": None, "scale_factor": None, "mode": "nearest",
                        "align_corners": None, "recompute_scale_factor": None,
                        "antialias": False})
    _interpolate(ex, node, ex.tensor_arg(node, a["input"]), ex.static(node, a["mode"]),
                 ex.static(node, a["scale_factor"]), ex.static(node, a["align_corners"]),
                 ex.static(node, a["recompute_scale_factor"]), ex.static(node, a["antialias"]),
                 loc, origin)


def _f_pad(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "pad", "mode", "value"],
                       {"mode": "constant", "value": None})
    ex.pad(node, ex.tensor_arg(node, a["input"]), ex.static(node, a["pad"]),
           ex.static(node, a["mode"]), ex.static(node, a["value"]), loc, origin)


def _m_pad(mode: str):
    """nn.ZeroPad2d, nn.ConstantPad*d, nn.ReflectionPad*d, nn.ReplicationPad*d:
    F.pad with the module's padding (and value)."""
    def handler(ex, node, m, x, loc, origin):
        ex.pad(node, x, tuple(m.padding), mode, getattr(m, "value", None), loc, origin)
    return handler


def _m_upsample(ex, node, m, x, loc, origin):
    """nn.Upsample (and UpsamplingNearest2d / UpsamplingBilinear2d, which
    set its attributes): F.interpolate with the module's arguments. Its
    origin, the module, has no pattern in PyTorch's tables: float, as
    there."""
    _interpolate(ex, node, x, m.mode, m.scale_factor, m.align_corners,
                 getattr(m, "recompute_scale_factor", None), False, loc, origin)


def _interpolate(ex, node, x, mode, scale, align_corners, recompute, antialias, loc, origin):
    if mode not in ("nearest", "bilinear") or antialias:
        ex.fail(node, f"interpolate with mode '{mode}' is not supported ('nearest', 'bilinear')")
    out = ex.out_shape(node)
    if mode == "bilinear":
        if recompute:
            scale = None
        scales = (scale, scale) if not isinstance(scale, (tuple, list)) else tuple(scale)
        ex.bilinear(node, x, out, bool(align_corners), scales, loc, origin)
        return
    for d in range(2, x.rank):
        if out[d] % x.torch_shape[d]:
            ex.fail(node, f"nearest interpolation from {x.torch_shape[d]} to {out[d]} is not "
                    "supported (only integer factors)")
    w = ex.w
    value = x
    for d in range(2, x.rank):
        factor = out[d] // x.torch_shape[d]
        if factor == 1:
            continue
        axis = value.layout.index(d)
        split = list(value.tensor.shape)
        split.insert(axis + 1, 1)
        tiled = w.reshape(value.tensor, split, loc, origin)
        multiples = [1] * len(split)
        multiples[axis + 1] = factor
        shape = w.const_shape(multiples, loc)
        split[axis + 1] = factor
        tiled = w.op("tile", [tiled, (shape, f"!tosa.shape<{len(split)}>")], split, loc, origin,
                     hint=node.name)
        merged = list(value.tensor.shape)
        merged[axis] *= factor
        torch_shape = list(value.torch_shape)
        torch_shape[d] *= factor
        value = _Value(w.reshape(tiled, merged, loc, origin), value.layout, tuple(torch_shape))
    if value is x:
        ex.alias(node, x)
    else:
        ex.set_tensor(node, value.tensor, value.layout)


def _f_clamp(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "min", "max"], {"min": None, "max": None})
    lo, hi = ex.static(node, a["min"]), ex.static(node, a["max"])
    if not all(v is None or isinstance(v, (int, float)) for v in (lo, hi)):
        ex.fail(node, "clamp with tensor bounds is not supported")
    ex.clamp(node, ex.tensor_arg(node, a["input"]), -FLOAT32_MAX if lo is None else float(lo),
             FLOAT32_MAX if hi is None else float(hi), loc, origin)


def _f_stack(ex, node, loc, origin):
    """torch.stack: each tensor with a new axis `dim`, concatenated there."""
    a = ex.args_kwargs(node, ["tensors", "dim"], {"dim": 0})
    values = [ex.tensor_arg(node, t) for t in a["tensors"]]
    rank = values[0].rank + 1
    dim = ex.static(node, a["dim"]) % rank
    parts = []
    for v in values:
        shape = list(v.torch_shape)
        shape.insert(dim, 1)
        parts.append(ex.w.reshape(ex.plain(node, v, loc), shape, loc, origin))
    ex.set_tensor(node, ex.w.concat(parts, dim, loc, origin), _identity(rank))


def _tile(ex, node, x, multiples, loc, origin):
    """tosa.tile of x (held as is) by PyTorch-order `multiples`."""
    held = [multiples[d] for d in x.layout]
    shape = ex.w.const_shape(held, loc)
    out = tuple(n * m for n, m in zip(x.tensor.shape, held))
    return ex.w.op("tile", [x.tensor, (shape, f"!tosa.shape<{len(held)}>")], out, loc, origin,
                   hint=node.name)


def _method_expand(ex, node, loc, origin):
    """`x.expand(...)` of a constant (ViT's class token): the broadcast
    constant, still a tensor argument to PyTorch."""
    x = ex.tensor_arg(node, node.args[0])
    if x.array is None:
        ex.fail(node, "expand of a computed tensor is not supported (of a parameter it is)")
    array = np.ascontiguousarray(np.broadcast_to(x.array, ex.out_shape(node)))
    ex.env[node] = _Value(None, _identity(array.ndim), array.shape, array,
                          lambda a: ex.w.const(a, loc, node.name))


def _method_repeat(ex, node, loc, origin):
    x = ex.tensor_arg(node, node.args[0])
    sizes = ex.static(node, list(node.args[1:]))
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = list(sizes[0])
    if len(sizes) < x.rank:
        ex.fail(node, f"repeat needs at least {x.rank} sizes, got {len(sizes)}")
    if len(sizes) > x.rank:  # new leading dimensions
        lead = (1,) * (len(sizes) - x.rank)
        x = _Value(ex.w.reshape(ex.plain(node, x, loc), lead + x.torch_shape, loc, origin),
                   _identity(len(sizes)), lead + x.torch_shape)
    ex.set_tensor(node, _tile(ex, node, x, sizes, loc, origin), x.layout)


def _f_repeat_interleave(ex, node, loc, origin):
    """repeat_interleave by an int along `dim`: a new axis after `dim`,
    tiled, merged back (in PyTorch's order)."""
    a = ex.args_kwargs(node, ["input", "repeats", "dim", "output_size"],
                       {"dim": None, "output_size": None})
    x = ex.tensor_arg(node, a["input"])
    repeats, dim = ex.static(node, a["repeats"]), ex.static(node, a["dim"])
    if not isinstance(repeats, int) or dim is None:
        ex.fail(node, "repeat_interleave is supported with an int `repeats` and a `dim`")
    dim %= x.rank
    shape = list(x.torch_shape)
    shape.insert(dim + 1, 1)
    split = _Value(ex.w.reshape(ex.plain(node, x, loc), shape, loc, origin),
                   _identity(len(shape)), tuple(shape))
    multiples = [1] * len(shape)
    multiples[dim + 1] = repeats
    tiled = _tile(ex, node, split, multiples, loc, origin)
    ex.set_tensor(node, ex.w.reshape(tiled, ex.out_shape(node), loc, origin), _identity(x.rank))


def _f_identity(ex, node, loc, origin):
    ex.alias(node, ex.tensor_arg(node, node.args[0]))


def _f_dropout(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "p", "training", "inplace"],
                       {"p": 0.5, "training": True, "inplace": False})
    if ex.static(node, a["training"]):
        ex.fail(node, "dropout in training mode is not supported")
    ex.alias(node, ex.tensor_arg(node, a["input"]))


def _f_mean(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "dim", "keepdim", "dtype"],
                       {"dim": None, "keepdim": False, "dtype": None})
    if ex.static(node, a["dtype"]) is not None:
        ex.fail(node, "mean with a dtype is not supported")
    x = ex.tensor_arg(node, a["input"])
    dim = ex.static(node, a["dim"])
    dims = range(x.rank) if dim is None else [dim] if isinstance(dim, int) else dim
    ex.mean(node, x, dims, bool(ex.static(node, a["keepdim"])), loc, origin)


def _f_stochastic_depth(ex, node, loc, origin):
    # torchvision.ops.stochastic_depth drops whole rows only in training.
    a = ex.args_kwargs(node, ["input", "p", "mode", "training"], {"training": True})
    if ex.static(node, a["training"]) and ex.static(node, a["p"]) != 0.0:
        ex.fail(node, "stochastic depth in training mode is not supported (a graph traced in "
                "training mode, as prepare_qat_fx traces it, keeps training=True after .eval(): "
                "PyTorch's converted model drops rows at random too)")
    ex.alias(node, ex.tensor_arg(node, a["input"]))


def _unary_fn(kind):
    def handler(ex, node, loc, origin):
        x = ex.tensor_arg(node, node.args[0])
        if kind == "relu":
            ex.clamp(node, x, 0.0, FLOAT32_MAX, loc, origin)
        elif kind == "relu6":
            ex.clamp(node, x, 0.0, 6.0, loc, origin)
        else:
            ex.unary(node, x, kind, loc, origin)
    return handler


# The TOSA decompositions of the composites, PyTorch's float formulas
# (aten/src/ATen/native/cpu/Activation.cpp): each takes the writer, the
# body's argument, the location and the op's parameters, and returns the
# result. Body ops carry no qfx.origin: the composite does.
def _scalar(w, x, value, loc, hint):
    return w.const(np.full((1,) * len(x.shape), value, np.float32), loc, hint)


def _normalized(w, x, average, eps, loc):
    """(x - mean) * rsqrt(var + eps), the biased variance, with `average`
    reducing over the normalized axes (layer, group and instance norm)."""
    centered = w.op("sub", [x, average(x)], x.shape, loc, None, hint="centered")
    var = average(w.mul(centered, centered, x.shape, loc, None))
    shifted = w.op("add", [var, _scalar(w, var, eps, loc, "eps")], var.shape, loc, None,
                   hint="var_eps")
    return w.mul(centered, w.op("rsqrt", [shifted], var.shape, loc, None, hint="rstd"), x.shape,
                 loc, None)


def _hardsigmoid_body(w, x, loc):
    # min(max(x + 3, 0), 6) / 6
    t = w.op("add", [x, _scalar(w, x, 3.0, loc, "three")], x.shape, loc, None, hint="add")
    t = w.clamp(t, 0.0, 6.0, loc, None)
    return w.mul(t, _scalar(w, x, 1.0 / 6.0, loc, "sixth"), x.shape, loc, None)


def _hardswish_body(w, x, loc):
    # x * min(max(x + 3, 0), 6) / 6
    t = w.op("add", [x, _scalar(w, x, 3.0, loc, "three")], x.shape, loc, None, hint="add")
    t = w.clamp(t, 0.0, 6.0, loc, None)
    t = w.mul(x, t, x.shape, loc, None)
    return w.mul(t, _scalar(w, x, 1.0 / 6.0, loc, "sixth"), x.shape, loc, None)


def _positive_or(w, x, negative, loc):
    """x where x > 0, else `negative`."""
    ones = (1,) * len(x.shape)
    positive = w.op("greater", [x, w.const(np.zeros(ones, np.float32), loc, "zero")], x.shape,
                    loc, None, hint="positive", element="i1")
    return w.op("select", [positive, x, negative], x.shape, loc, None, hint="select")


def _leaky_relu_body(w, x, loc, negative_slope):
    # x > 0 ? x : x * negative_slope
    return _positive_or(w, x, w.mul(x, _scalar(w, x, negative_slope, loc, "slope"), x.shape,
                                    loc, None), loc)


def _elu_body(w, x, loc, alpha):
    # x > 0 ? x : (exp(x) - 1) * alpha
    e = w.op("exp", [x], x.shape, loc, None, hint="exp")
    e = w.op("sub", [e, _scalar(w, x, 1.0, loc, "one")], x.shape, loc, None, hint="sub")
    return _positive_or(w, x, w.mul(e, _scalar(w, x, alpha, loc, "alpha"), x.shape, loc, None),
                        loc)


def _silu_body(w, x, loc):
    # x * sigmoid(x)
    return w.mul(x, w.op("sigmoid", [x], x.shape, loc, None, hint="sigmoid"), x.shape, loc, None)


def _gelu_body(w, x, loc):
    # x * 0.5 * (1 + erf(x / sqrt(2)))
    t = w.mul(x, _scalar(w, x, float(np.float32(1.0 / np.sqrt(2.0))), loc, "rsqrt2"), x.shape,
              loc, None)
    t = w.op("erf", [t], x.shape, loc, None, hint="erf")
    t = w.op("add", [t, _scalar(w, x, 1.0, loc, "one")], x.shape, loc, None, hint="add")
    t = w.mul(x, w.mul(t, _scalar(w, x, 0.5, loc, "half"), x.shape, loc, None), x.shape, loc, None)
    return t


def _softmax(w, x: Tensor, axis: int, last_dim: bool, loc, origin, hint) -> Tensor:
    """The composite "torch.nn.Softmax" of `x` along its `axis`: exp(x - max)
    times the reciprocal of the sum, as PyTorch's float kernel computes it.
    `last_dim`: PyTorch's dim is the tensor's last, so PyTorch runs its
    last-dimension kernel (qfx-lower-softmax reproduces it)."""

    def build(arg):
        reduced = list(arg.shape)
        reduced[axis] = 1
        attrs = f"axis = {axis} : i32"
        top = w.op("reduce_max", [arg], reduced, loc, None, attrs=attrs, hint="max")
        e = w.op("exp", [w.op("sub", [arg, top], arg.shape, loc, None, hint="shifted")],
                 arg.shape, loc, None, hint="exp")
        total = w.op("reduce_sum", [e], reduced, loc, None, attrs=attrs, hint="sum")
        inverse = w.op("reciprocal", [total], reduced, loc, None, hint="inverse")
        return w.mul(e, inverse, arg.shape, loc, None)

    return w.composite("torch.nn.Softmax", x, loc, origin, build,
                       f"axis = {axis} : i64, last_dim = {str(last_dim).lower()}", hint=hint)


def _div_body(w, x, loc, divisor):
    # x times the float32 reciprocal of the float32 divisor.
    inverse = np.float32(1.0) / np.float32(divisor)
    return w.mul(x, _scalar(w, x, inverse, loc, "inverse"), x.shape, loc, None)


_COMPOSITES = {
    "torch.div": _div_body,
    "torch.nn.Hardsigmoid": _hardsigmoid_body,
    "torch.nn.Hardswish": _hardswish_body,
    "torch.nn.LeakyReLU": _leaky_relu_body,
    "torch.nn.ELU": _elu_body,
    "torch.nn.SiLU": _silu_body,
    "torch.nn.GELU": _gelu_body,
}


def _composite_fn(name, parameters=()):
    """The handler of a functional form of composite `name`; `parameters`
    are (argument name, default) pairs after the input. The last argument is
    `approximate` for F.gelu, `inplace` for the others."""
    last = ("approximate", "none") if name == "torch.nn.GELU" else ("inplace", False)

    def handler(ex, node, loc, origin):
        names = ["input"] + [p for p, _ in parameters] + [last[0]]
        a = ex.args_kwargs(node, names, {**dict(parameters), last[0]: last[1]})
        if last[0] == "approximate" and ex.static(node, a["approximate"]) != "none":
            ex.fail(node, f"approximate='{ex.static(node, a['approximate'])}' is not supported")
        params = {p: float(ex.static(node, a[p])) for p, _ in parameters}
        ex.composite(node, ex.tensor_arg(node, a["input"]), name, loc, origin, **params)
    return handler


def _f_hardtanh(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "min_val", "max_val", "inplace"],
                       {"min_val": -1.0, "max_val": 1.0, "inplace": False})
    ex.clamp(node, ex.tensor_arg(node, a["input"]), float(ex.static(node, a["min_val"])),
             float(ex.static(node, a["max_val"])), loc, origin)


# F.conv1d is torch.conv1d (and so on); PyTorch's tables name these as
# functionals.
_FUNCTIONAL_NAMES = {name: f"torch.nn.functional.{name[len('torch.'):]}" for name in (
    "torch.conv1d", "torch.conv2d", "torch.conv3d", "torch.avg_pool1d",
    "torch.adaptive_avg_pool1d")}


def _f_max_pool(dims: int):
    return lambda ex, node, loc, origin: _f_max_pool_nd(ex, node, loc, origin, dims)


def _f_avg_pool(dims: int):
    return lambda ex, node, loc, origin: _f_avg_pool_nd(ex, node, loc, origin, dims)


def _f_max_pool_nd(ex, node, loc, origin, dims):
    a = ex.args_kwargs(node, ["input", "kernel_size", "stride", "padding", "dilation", "ceil_mode",
                              "return_indices"],
                       {"stride": None, "padding": 0, "dilation": 1, "ceil_mode": False,
                        "return_indices": False})
    if ex.static(node, a["return_indices"]):
        ex.fail(node, f"max_pool{dims}d with return_indices is not supported")
    kernel = _window(dims, ex.static(node, a["kernel_size"]), 1)
    stride = ex.static(node, a["stride"])
    stride = kernel if stride is None or stride == [] or stride == () else _window(dims, stride, 1)
    ex.max_pool(node, ex.tensor_arg(node, a["input"]), kernel, stride,
                _window(dims, ex.static(node, a["padding"]), 0),
                _window(dims, ex.static(node, a["dilation"]), 1), loc, origin)


def _f_avg_pool_nd(ex, node, loc, origin, dims):
    a = ex.args_kwargs(node, ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                              "divisor_override"],
                       {"stride": None, "padding": 0, "ceil_mode": False, "count_include_pad": True,
                        "divisor_override": None})
    if ex.static(node, a["divisor_override"]) is not None:
        ex.fail(node, f"avg_pool{dims}d with divisor_override is not supported")
    kernel = _window(dims, ex.static(node, a["kernel_size"]), 1)
    stride = ex.static(node, a["stride"])
    stride = kernel if stride is None or stride == [] or stride == () else _window(dims, stride, 1)
    ex.avg_pool(node, ex.tensor_arg(node, a["input"]), kernel, stride,
                _window(dims, ex.static(node, a["padding"]), 0),
                bool(ex.static(node, a["count_include_pad"])),
                bool(ex.static(node, a["ceil_mode"])), loc, origin)


def _f_adaptive_avg_pool(ex, node, loc, origin):
    ex.adaptive_avg_pool(node, ex.tensor_arg(node, node.args[0]), loc, origin)


def _f_avg_pool3d(ex, node, loc, origin):
    a = ex.args_kwargs(node, ["input", "kernel_size", "stride", "padding", "ceil_mode",
                              "count_include_pad", "divisor_override"],
                       {"stride": None, "padding": 0, "ceil_mode": False, "count_include_pad": True,
                        "divisor_override": None})
    kernel = _tuple(ex.static(node, a["kernel_size"]), 3)
    stride = ex.static(node, a["stride"])
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, 3)
    if (stride != kernel or any(_tuple(ex.static(node, a["padding"]), 3))
            or ex.static(node, a["divisor_override"]) is not None):
        ex.fail(node, "avg_pool3d is supported with stride = kernel_size, no padding and no "
                "divisor_override")
    ex.pool3d(node, ex.tensor_arg(node, a["input"]), kernel, loc, origin, "torch.nn.AvgPool3d")


def _f_adaptive_avg_pool3d(ex, node, loc, origin):
    x = ex.tensor_arg(node, node.args[0])
    ex.m_adaptive_avgpool3d(node, None, x, loc, origin)


def _method_flatten(ex, node, loc, origin):
    ex.reshape_to(node, ex.tensor_arg(node, node.args[0]), loc, origin)


def _f32_list(values) -> str:
    return "[" + ", ".join(format_f32(v) for v in np.asarray(values, np.float32).ravel()) + "]"


def _observer_statistics(observer) -> Optional[str]:
    """The statistics of a PyTorch observer as a qfx stats attribute, or None
    for an observer that keeps none or has seen no data."""
    min_val, max_val = getattr(observer, "min_val", None), getattr(observer, "max_val", None)
    if not isinstance(min_val, torch.Tensor) or not isinstance(max_val, torch.Tensor):
        return None
    low, high = min_val.detach().cpu().numpy(), max_val.detach().cpu().numpy()
    if low.size == 0 or not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        return None
    histogram = getattr(observer, "histogram", None)
    if isinstance(histogram, torch.Tensor):
        return (f"#qfx.histogram<min = {format_f32(low)}, max = {format_f32(high)}, "
                f"counts = {_f32_list(histogram.detach().cpu().numpy())}>")
    if low.ndim == 0:
        return f"#qfx.minmax<min = {format_f32(low)}, max = {format_f32(high)}>"
    return f"#qfx.per_channel_minmax<min = {_f32_list(low)}, max = {_f32_list(high)}>"


def _is_observer(module) -> bool:
    """An observer or fake quantizer PyTorch's prepare_fx inserted."""
    from torch.ao.quantization import FakeQuantizeBase, ObserverBase

    return isinstance(module, (ObserverBase, FakeQuantizeBase))


def _is_fused_module(module) -> bool:
    return isinstance(module, torch.nn.intrinsic._FusedModule)


_MODULE_HANDLERS: dict = {}
# Modules exported with their own argument handling (Exporter.recurrent).
def _flatten(values: tuple) -> tuple:
    """Nested tuples', lists' and dicts' leaves in order."""
    if isinstance(values, dict):
        values = tuple(values.values())
    return tuple(leaf for v in values
                 for leaf in (_flatten(v) if isinstance(v, (tuple, list, dict)) else (v,)))


def _values(held) -> list:
    """The _Values an env entry holds (itself, or in tuples and dicts)."""
    if isinstance(held, _Value):
        return [held]
    if isinstance(held, (tuple, list, dict)):
        return [v for v in _flatten(held) if isinstance(v, _Value)]
    return []


_RECURRENT_MODULES: set = set()
# The element type of each dtype a model input can have.
_INPUT_ELEMENTS: dict = {}
# The element type of each dtype a graph break's result can have.
_HOST_ELEMENTS: dict = {}
_FUNCTION_HANDLERS: dict = {}
_METHOD_HANDLERS: dict = {}
# Functions of other libraries (not imported here), by qualified name.
_NAMED_FUNCTION_HANDLERS = {
    "torchvision.ops.stochastic_depth.stochastic_depth": _f_stochastic_depth,
}
_STATIC_FUNCTIONS: set = set()
# Functions whose result depends on their tensor argument's shape alone
# (token_type_ids = torch.zeros_like(input_ids)).
_SHAPE_ONLY_FUNCTIONS: set = set()
_STATIC_METHODS = {"size", "dim"}


def _load_torch() -> None:
    global torch, nn, F
    if torch is not None:
        return
    try:
        import torch as torch_module
        import torch.fx  # noqa: F401
    except ImportError as error:
        raise ImportError(f"qfx.export_tosa needs PyTorch: {error}") from error
    torch, nn, F = torch_module, torch_module.nn, torch_module.nn.functional

    _INPUT_ELEMENTS.update({torch.float32: "f32", torch.int64: "i64", torch.int32: "i32"})
    _HOST_ELEMENTS.update(_INPUT_ELEMENTS)
    _HOST_ELEMENTS[torch.bool] = "i1"
    _RECURRENT_MODULES.update({nn.LSTM, nn.GRU, nn.LSTMCell, nn.GRUCell, nn.RNNCell})
    _MODULE_HANDLERS.update({
        nn.Linear: _Exporter.m_linear,
        nn.Conv1d: _Exporter.m_conv1d,
        nn.Conv2d: _Exporter.m_conv2d,
        nn.Conv3d: _Exporter.m_conv3d,
        nn.BatchNorm1d: _Exporter.m_batchnorm,
        nn.BatchNorm2d: _Exporter.m_batchnorm,
        nn.BatchNorm3d: _Exporter.m_batchnorm,
        nn.ReLU: _Exporter.m_relu,
        nn.ReLU6: _Exporter.m_relu6,
        nn.Hardtanh: _Exporter.m_hardtanh,
        nn.Sigmoid: _Exporter.m_sigmoid,
        nn.Tanh: _Exporter.m_tanh,
        nn.Hardswish: _Exporter.m_hardswish,
        nn.Hardsigmoid: _Exporter.m_hardsigmoid,
        nn.SiLU: _Exporter.m_silu,
        nn.LeakyReLU: _Exporter.m_leaky_relu,
        nn.PReLU: _Exporter.m_prelu,
        nn.ELU: _Exporter.m_elu,
        nn.GELU: _Exporter.m_gelu,
        nn.MaxPool1d: _Exporter.m_maxpool,
        nn.MaxPool2d: _Exporter.m_maxpool,
        nn.AvgPool1d: _Exporter.m_avgpool,
        nn.AvgPool2d: _Exporter.m_avgpool,
        nn.AdaptiveAvgPool1d: _Exporter.m_adaptive_avgpool,
        nn.AdaptiveAvgPool2d: _Exporter.m_adaptive_avgpool,
        nn.AvgPool3d: _Exporter.m_avgpool3d,
        nn.AdaptiveAvgPool3d: _Exporter.m_adaptive_avgpool3d,
        nn.Flatten: _Exporter.m_flatten,
        nn.Unflatten: _Exporter.m_flatten,
        nn.Dropout: _Exporter.m_identity,
        nn.Softmax: _Exporter.m_softmax,
        nn.LayerNorm: _Exporter.m_layer_norm,
        nn.InstanceNorm1d: _Exporter.m_instance_norm,
        nn.InstanceNorm2d: _Exporter.m_instance_norm,
        nn.InstanceNorm3d: _Exporter.m_instance_norm,
        nn.GroupNorm: _Exporter.m_group_norm,
        nn.Identity: _Exporter.m_identity,
        nn.Upsample: _m_upsample,
        nn.ZeroPad2d: _m_pad("constant"),
        nn.ConstantPad1d: _m_pad("constant"),
        nn.ConstantPad2d: _m_pad("constant"),
        nn.ConstantPad3d: _m_pad("constant"),
        nn.ReflectionPad1d: _m_pad("reflect"),
        nn.ReflectionPad2d: _m_pad("reflect"),
        nn.ReflectionPad3d: _m_pad("reflect"),
        nn.ReplicationPad1d: _m_pad("replicate"),
        nn.ReplicationPad2d: _m_pad("replicate"),
        nn.ReplicationPad3d: _m_pad("replicate"),
        nn.UpsamplingNearest2d: _m_upsample,
        nn.UpsamplingBilinear2d: _m_upsample,
        nn.Embedding: _Exporter.m_embedding,
        nn.ConvTranspose1d: _Exporter.m_conv_transpose1d,
        nn.ConvTranspose2d: _Exporter.m_conv_transpose2d,
        nn.ConvTranspose3d: _Exporter.m_conv_transpose3d,
    })

    _FUNCTION_HANDLERS.update({
        operator.add: _f_add,
        operator.iadd: _f_add,
        torch.add: _f_add,
        F.embedding: _f_embedding,
        operator.mul: _f_mul,
        operator.truediv: _f_div,
        torch.div: _f_div,
        F.softmax: _f_softmax,
        torch.softmax: _f_softmax,
        torch.mul: _f_mul,
        torch.cat: _f_cat,
        torch.mean: _f_mean,
        torch.concat: _f_cat,
        torch.flatten: _f_reshape_like,
        torch.reshape: _f_reshape_like,
        torch.permute: _f_permute,
        torch.transpose: _f_transpose,
        torch.relu: _unary_fn("relu"),
        F.relu: _unary_fn("relu"),
        F.relu6: _unary_fn("relu6"),
        F.hardtanh: _f_hardtanh,
        torch.sigmoid: _unary_fn("sigmoid"),
        F.sigmoid: _unary_fn("sigmoid"),
        torch.tanh: _unary_fn("tanh"),
        F.tanh: _unary_fn("tanh"),
        F.hardswish: _composite_fn("torch.nn.Hardswish"),
        F.hardsigmoid: _composite_fn("torch.nn.Hardsigmoid"),
        F.silu: _composite_fn("torch.nn.SiLU"),
        F.leaky_relu: _composite_fn("torch.nn.LeakyReLU", (("negative_slope", 0.01),)),
        F.elu: _composite_fn("torch.nn.ELU", (("alpha", 1.0),)),
        F.gelu: _composite_fn("torch.nn.GELU"),
        F.dropout: _f_dropout,
        F.linear: _f_linear,
        F.layer_norm: _f_layer_norm,
        F.interpolate: _f_interpolate,
        F.group_norm: _f_group_norm,
        F.instance_norm: _f_instance_norm,
        torch.matmul: _f_matmul,
        torch.bmm: _f_matmul,
        torch.where: _f_where,
        torch.masked_fill: _f_masked_fill,
        torch.t: _f_t,
        F.pad: _f_pad,
        operator.matmul: _f_matmul,
        F.conv1d: _functional_conv(1),
        F.conv2d: _functional_conv(2),
        F.conv3d: _functional_conv(3),
        torch.clamp: _f_clamp,
        torch.chunk: _split_like("chunks"),
        torch.split: _split_like("split_size_or_sections"),
        torch.squeeze: _f_reshape_like,
        torch.unsqueeze: _f_reshape_like,
        torch.stack: _f_stack,
        torch.repeat_interleave: _f_repeat_interleave,
        F.max_pool1d: _f_max_pool(1),
        F.max_pool2d: _f_max_pool(2),
        F.avg_pool1d: _f_avg_pool(1),
        F.avg_pool2d: _f_avg_pool(2),
        F.adaptive_avg_pool1d: _f_adaptive_avg_pool,
        F.adaptive_avg_pool2d: _f_adaptive_avg_pool,
        F.avg_pool3d: _f_avg_pool3d,
        F.adaptive_avg_pool3d: _f_adaptive_avg_pool3d,
    })

    for function, opname in ((operator.and_, "logical_and"), (operator.or_, "logical_or"),
                             (operator.xor, "logical_xor"), (operator.invert, "logical_not"),
                             (torch.logical_and, "logical_and"), (torch.logical_or, "logical_or"),
                             (torch.logical_xor, "logical_xor"),
                             (torch.logical_not, "logical_not")):
        _FUNCTION_HANDLERS[function] = _logical_fn(opname)
    for name in _COMPARISONS:
        _FUNCTION_HANDLERS[getattr(operator, name)] = _compare_fn(name)
        _FUNCTION_HANDLERS[getattr(torch, name)] = _compare_fn(name)
        _METHOD_HANDLERS[name] = _compare_fn(name)

    _METHOD_HANDLERS.update({
        "add": _f_add,
        "mul": _f_mul,
        "div": _f_div,
        "softmax": _f_softmax,
        "mean": _f_mean,
        "relu": _unary_fn("relu"),
        "relu_": _unary_fn("relu"),
        "sigmoid": _unary_fn("sigmoid"),
        "sigmoid_": _unary_fn("sigmoid"),
        "tanh": _unary_fn("tanh"),
        "tanh_": _unary_fn("tanh"),
        "clamp": _f_clamp,
        "chunk": _split_like("chunks"),
        "split": _split_like("split_size"),
        "detach": _f_identity,
        "detach_": _f_identity,
        "squeeze": _f_reshape_like,
        "squeeze_": _f_reshape_like,
        "unsqueeze": _f_reshape_like,
        "unsqueeze_": _f_reshape_like,
        "repeat": _method_repeat,
        "expand": _method_expand,
        "matmul": _f_matmul,
        "repeat_interleave": _f_repeat_interleave,
        "flatten": _method_flatten,
        "view": _method_flatten,
        "reshape": _method_flatten,
        "permute": _f_permute,
        "transpose": _f_transpose,
        "t": _f_t,
        "masked_fill": _f_masked_fill,
        "masked_fill_": _f_masked_fill,
        "contiguous": _f_identity,
    })

    _SHAPE_ONLY_FUNCTIONS.update({torch.zeros_like, torch.ones_like, torch.full_like})

    # torch._assert on shapes (ViT checks the image size) held when the
    # example inputs ran; the export is for those shapes.
    _STATIC_FUNCTIONS.update({getattr, operator.getitem, operator.add, operator.sub, operator.mul,
                              operator.floordiv, operator.eq, operator.ne, operator.lt,
                              operator.le, operator.gt, operator.ge, torch._assert})


def _unpacked_length(frame) -> Optional[int]:
    """How many values the instruction `frame` is executing unpacks, when it
    is a tuple unpacking (`a, b = x`), else None.

    torch 1.13's Proxy.__iter__ looks the instruction up as the
    (f_lasti // 2)-th of dis.get_instructions, which holds up to Python 3.10;
    3.11's inline caches take code units that get_instructions does not list,
    so the index lands on another instruction. The byte offset does not move."""
    import dis
    for inst in dis.get_instructions(frame.f_code):
        if inst.offset == frame.f_lasti:
            return inst.argval if inst.opname == "UNPACK_SEQUENCE" else None
    return None


# The reason a module named non-traceable runs in PyTorch.
_NON_TRACEABLE = "non-traceable module (prepare_custom_config)"


def _trace(model, non_traceable: NonTraceable = NonTraceable()):
    """torch.fx.symbolic_trace's graph, plus for every node the qualified
    name of the module whose forward created it (for error messages)."""

    class Unpacking:
        def __iter__(self):
            import inspect
            length = _unpacked_length(inspect.currentframe().f_back)
            if length is not None:
                return (self[i] for i in range(length))
            return self.tracer.iter(self)

        def __getattr__(self, name):  # `x.shape` is unpacked too
            return UnpackingAttribute(self, name)

    class UnpackingProxy(Unpacking, torch.fx.Proxy):
        pass

    class UnpackingAttribute(Unpacking, torch.fx.proxy.Attribute):
        pass

    class ScopeTracer(torch.fx.Tracer):
        def __init__(self):
            super().__init__()
            # Buffers are graph values (get_attr), so that indexing one with a
            # traced size traces (HuggingFace's position_ids[:, :seq_length]).
            self.proxy_buffer_attributes = True
            self.scope_stack: list = [""]
            self.node_scope: dict = {}

        def proxy(self, node):
            return UnpackingProxy(node, self)

        def is_leaf_module(self, m, qualified_name):
            return (_is_observer(m) or _is_fused_module(m) or (qualified_name, m) in non_traceable
                    or super().is_leaf_module(m, qualified_name))

        def call_module(self, m, forward, args, kwargs):
            self.scope_stack.append(self.path_of_module(m))
            try:
                return super().call_module(m, forward, args, kwargs)
            finally:
                self.scope_stack.pop()

        def create_node(self, *args, **kwargs):
            node = super().create_node(*args, **kwargs)
            self.node_scope[node] = self.scope_stack[-1]
            return node

    tracer = ScopeTracer()
    graph = tracer.trace(model)
    # GraphModule reuses `graph`, so the node keys stay valid.
    return torch.fx.GraphModule(tracer.root, graph), tracer.node_scope


def _record(gm, example_inputs) -> tuple:
    """Runs the traced graph once and keeps every node's result (its shape
    and, for shape arithmetic, its value); returns them and the outputs."""
    recorded: dict = {}

    class Recorder(torch.fx.Interpreter):
        def call_module(self, target, args, kwargs):
            # Observers must not see the example inputs: they hold the
            # statistics being exported.
            if _is_observer(self.fetch_attr(target)):
                return args[0]
            return super().call_module(target, args, kwargs)

        def run_node(self, n):
            result = super().run_node(n)
            recorded[n] = result
            return result

    with torch.no_grad():
        outputs = Recorder(gm).run(*example_inputs)
    return recorded, outputs


def export_tosa(model, example_inputs: tuple, *, func_name: str = "main") -> str:
    """Exports an eval-mode `torch.nn.Module` to float TOSA 1.0 MLIR text.

    `example_inputs` fixes the (static) input shapes: the function's
    arguments have exactly their shapes, in PyTorch's layout. Raises
    ExportError for the nodes it cannot export (naming the first and
    listing the others: the text has no Python to run them in, see
    `prepare_fx`'s graph breaks), ValueError for a model in training mode.

    A model PyTorch's `prepare_fx` prepared exports too: its observers are
    the identity, and each records its statistics on the op producing the
    value it observes (`qfx.torch_observer`, for qfx-import-statistics);
    the example inputs do not reach them.

    Weights of 4096 values or more are MLIR resources
    (`dense_resource<key>`), their bytes in the text's dialect_resources
    section, which `quant-opt --qfx-materialize-resources` and the C API
    read; `qfx.prepare_fx` hands them to the library without text."""
    return export_with_outputs(model, example_inputs, func_name=func_name)[0].full_text()


def export_with_outputs(model, example_inputs: tuple, *, func_name: str = "main",
                        quantizable=frozenset(), strict: bool = True,
                        non_traceable: NonTraceable = NonTraceable()) -> tuple:
    """`export_tosa`'s module (an `Exported`: text and resources), the
    model's outputs for `example_inputs`, per
    input the number of rows of the embeddings it indexes (None for an
    input that indexes none: its values must lie in [0, rows)), and the
    graph breaks' `_host.Host`. `quantizable`: the module types exported as
    their quantizable form (nn.MultiheadAttention, see
    _Exporter.m_multihead_attention). Without `strict`, a node the exporter
    cannot express runs in PyTorch (a graph break: a `qfx.host_call`, run by
    the Host) instead of raising ExportError; so does, strict or not, a
    module `non_traceable` names that qfx does not export (a leaf of the
    trace)."""
    _load_torch()
    if not isinstance(model, nn.Module):
        raise TypeError(f"export_tosa expects a torch.nn.Module, got {type(model).__name__}")
    if model.training:
        raise ValueError("export_tosa exports inference graphs: call model.eval() first")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)

    model, weight_observers = _qat_to_float(model)
    gm, node_scope = _trace(model, non_traceable)
    recorded, outputs = _record(gm, example_inputs)
    exporter = _Exporter(gm, model, recorded, node_scope, weight_observers, quantizable, strict,
                         non_traceable)
    exported = exporter.run(func_name)
    bounds = [exporter.index_bounds.get(t.name) for t in exporter.arg_tensors]
    return exported, outputs, bounds, _host.Host(exporter.host_calls)


def named_values(model, example_inputs: tuple) -> tuple:
    """For the numeric suite (qfx.ns): qfx's trace of an eval-mode float
    `model` (a GraphModule), and for each node computing a tensor, the name
    its ops' location gives its value (as recording models and `quant-run
    --compare` name it: "layer1.0.conv1", "layer1.0(add)",
    "layer1.0.relu(layer1_0_relu_1)") and the order of PyTorch's dimensions
    qfx holds the value in (NHWC after a convolution: (0, 2, 3, 1))."""
    _load_torch()
    gm, node_scope = _trace(model)
    recorded, _ = _record(gm, tuple(example_inputs))
    exporter = _Exporter(gm, model, recorded, node_scope)
    exporter.run("main")
    names = {}
    for node in gm.graph.nodes:
        value = exporter.env.get(node)
        if not isinstance(value, _Value) or value.array is not None:
            continue
        if node.op == "call_module":
            loc = exporter.module_location(node)
        elif node.op in ("call_function", "call_method"):
            loc = exporter.node_location(node)
        else:
            continue
        name = f"{loc[0]}({loc[1]})" if isinstance(loc, tuple) else loc
        names[node] = (name, value.layout)
    return gm, names


def _is_qat_module(module) -> bool:
    """A module prepare_qat_fx swapped in (torch.nn.qat, torch.nn.intrinsic.qat):
    a fake-quantized weight and a float equivalent."""
    return hasattr(module, "weight_fake_quant") and callable(getattr(module, "to_float", None))


def _qat_to_float(model) -> tuple:
    """`model` with each QAT module replaced as PyTorch's convert_fx replaces
    it (convert_weighted_module): `to_float()` (batch norm folded into the
    convolution with its running statistics), then the weight fake
    quantizer observes the float weight once more, and its statistics give
    the weight's qparams. Works on a copy: the caller's model and its
    fake quantizers stay as they are. Returns the model (`model` itself if
    it has no QAT module) and, by the qualified name of each float module
    holding a weight, its fake quantizer's name, type and statistics."""
    qat = [(name, m) for name, m in model.named_modules() if _is_qat_module(m)]
    if not qat:
        return model, {}
    import copy

    model = copy.deepcopy(model)
    modules = dict(model.named_modules())
    observers = {}
    for name, _ in qat:
        module = modules[name]
        fake_quant = module.weight_fake_quant
        float_module = module.to_float()
        # A fused float module (ConvReLU2d, LinearReLU) holds the weight in
        # its first child, as convert_fx's fused_module[0].
        root = float_module[0] if _is_fused_module(float_module) else float_module
        with torch.no_grad():
            fake_quant(root.weight)
        observer = getattr(fake_quant, "activation_post_process", fake_quant)
        observers[name] = (f"{name}.weight_fake_quant", type(fake_quant).__name__,
                                _observer_statistics(observer))
        parent_name, _, child = name.rpartition(".")
        setattr(modules[parent_name] if parent_name else model, child, float_module)
    return model, observers
