"""The strides PyTorch 1.13's quantized model gives each traced tensor.

PyTorch picks a kernel by its operand's memory format: an average pool of a
channels-last tensor (a quantized convolution's output) averages `q - zp`
and adds the zero point after rounding, one of a contiguous (NCHW) tensor
adds it before rounding (`avg_pool2d`) or averages the stored integers
(`adaptive_avg_pool2d`, `adaptive_avg_pool3d`), and they differ on ties.
qfx holds tensors in its own layouts, so the exporter asks this module
which format PyTorch's lowered model would have.

The rules are those of PyTorch's quantized CPU kernels: a quantized
convolution (1-, 2-, 3-D, transposed too) and batch norm write
channels-last; Linear, matmul, layer norm, ELU, mean, softmax, stack,
embeddings and recurrent modules write contiguous tensors; views (reshape, flatten, squeeze, unsqueeze, permute, transpose, chunk,
split, indexing) keep their operand's strides as `Tensor.view` computes
them, or copy to contiguous; cat keeps a format all its operands share; every
other op writes its first tensor operand's format. Ops no table of PyTorch's
quantizes (chunk, split, indexing, torch.reshape) run in float, and the
quantize after them writes their result densely. Measured on PyTorch 1.13
for convolutions, batch norm, Linear, layer norm, ELU, cat, views and
elementwise ops (`test_memory_format.py` checks the layout PyTorch's
converted model hands its pools); the other contiguous outputs are what
their kernels allocate, unmeasured here. A convolution or batch norm left in
float keeps its operand's format instead. A model PyTorch prepared names
the nodes it quantizes (`_observed_node_names`, what its convert swaps for
quantized modules); in a float model (qfx.prepare_fx: this module runs
before QConfigs are resolved) they are assumed quantized.
"""

from __future__ import annotations

import operator
from typing import Optional, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

Strides = tuple

_CHANNELS_LAST_MODULES = (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d,
                          nn.ConvTranspose2d, nn.ConvTranspose3d, nn.BatchNorm2d,
                          nn.BatchNorm3d)
_CONTIGUOUS_MODULES = (nn.Linear, nn.LayerNorm, nn.ELU, nn.Softmax, nn.Embedding,
                       nn.EmbeddingBag, nn.MultiheadAttention, nn.LSTM, nn.GRU, nn.RNN,
                       nn.LSTMCell, nn.GRUCell, nn.RNNCell)
# The identity in PyTorch's quantized model (observers are there in a model
# PyTorch prepared).
_OBSERVERS = (torch.ao.quantization.ObserverBase, torch.ao.quantization.FakeQuantizeBase)
_IDENTITY_MODULES = (nn.Identity, nn.Dropout) + _OBSERVERS
_CHANNELS_LAST_FUNCTIONS = {F.conv1d, F.conv2d, F.conv3d}
_CONTIGUOUS_FUNCTIONS = {F.linear, F.layer_norm, F.elu, F.softmax, torch.softmax, torch.matmul,
                         torch.bmm, operator.matmul, torch.mean, torch.stack, F.embedding}
_CONTIGUOUS_METHODS = {"matmul", "mean", "softmax", "contiguous"}
_VIEWS = {torch.flatten, torch.reshape, torch.squeeze, torch.unsqueeze}
_VIEW_METHODS = {"flatten", "view", "reshape", "squeeze", "squeeze_", "unsqueeze", "unsqueeze_"}
_PERMUTES = {torch.permute, torch.transpose}
_PERMUTE_METHODS = {"permute", "transpose"}
_CATS = {torch.cat, torch.concat}
# Ops no BackendConfig of PyTorch's quantizes: they run on dequantized
# tensors, and the quantize after them allocates the result densely in its
# suggested format.
_FLOAT_FUNCTIONS = {operator.getitem, torch.chunk, torch.split, torch.reshape, torch.permute}
_FLOAT_METHODS = {"chunk", "split", "flatten"}
_VIEW_MODULES = (nn.Flatten, nn.Unflatten)
_FLOAT_MODULES = _VIEW_MODULES


def contiguous_strides(shape: Sequence[int]) -> Strides:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def channels_last_strides(shape: Sequence[int]) -> Strides:
    """Dense strides with dimension 1 innermost (channels-last for 4-D and
    5-D tensors, a 1-D convolution's [N, C, L] output for 3-D)."""
    if len(shape) < 3:
        return contiguous_strides(shape)
    order = [0] + list(range(2, len(shape))) + [1]  # outermost first
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def _channels_last_order(rank: int) -> list:
    """The dimensions of a channels-last tensor, innermost first."""
    return [1] + list(range(rank - 1, 1, -1)) + [0]


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Tensor.is_contiguous(): dense in row-major order, size-1 dimensions
    skipped."""
    expected = 1
    for size, stride in reversed(list(zip(shape, strides))):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def dense_strides(shape: Sequence[int], strides: Sequence[int]) -> Strides:
    """The strides of `Tensor.dequantize()` of a tensor of these strides:
    dense in its suggested memory format."""
    return (channels_last_strides(shape) if suggests_channels_last(shape, strides)
            else contiguous_strides(shape))


def is_channels_last_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Tensor.is_contiguous(memory_format=torch.channels_last[_3d]) for a 4-D
    (5-D) tensor: dense with channels innermost, size-1 dimensions skipped."""
    if len(shape) not in (4, 5):
        return False
    expected = 1
    for d in _channels_last_order(len(shape)):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def suggests_channels_last(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Tensor.suggest_memory_format() is channels-last (PyTorch's
    is_channels_last_strides_2d / _3d)."""
    if len(shape) not in (4, 5) or strides[1] == 0:
        return False
    smallest = 0
    for d in _channels_last_order(len(shape)):
        if shape[d] == 0 or strides[d] < smallest:
            return False
        if d == 0 and smallest == strides[1]:
            return False
        smallest = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def view_strides(old_shape: Sequence[int], old_strides: Sequence[int],
                 new_shape: Sequence[int]) -> Optional[Strides]:
    """The strides `Tensor.view(new_shape)` gives (ATen's computeStride),
    or None where the view needs a copy."""
    if not old_shape:
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides) if view_d == -1 else None


def _first_module(m):
    """A fused module's (nni.ConvReLU2d, ...) first module, else m."""
    return m[0] if isinstance(m, nn.Sequential) and len(m) else m


class QuantizedStrides:
    """Per FX node of a traced model, the strides of the tensor (or tuple of
    tensors) PyTorch's quantized model computes there."""

    def __init__(self, gm, modules: dict, recorded: dict, observed: Optional[set] = None):
        """`observed`: the node names PyTorch's prepared model observes
        (None for a float model)."""
        self.modules = modules
        self.recorded = recorded
        self.observed = observed
        self.strides: dict = {}
        for node in gm.graph.nodes:
            self.strides[node] = self._compute(node)

    def of(self, node) -> Optional[Strides]:
        return self.strides.get(node) if isinstance(node, torch.fx.Node) else None

    def read(self, node) -> Optional[Strides]:
        """The strides a quantized op reads `node`'s tensor with: a float
        op's result quantized into its suggested format."""
        strides, shape = self.of(node), self._shape(node)
        if strides is None or shape is None or not self._runs_in_float(node):
            return strides
        return dense_strides(shape, strides)

    def _runs_in_float(self, node) -> bool:
        if node.op == "call_function":
            return node.target in _FLOAT_FUNCTIONS
        if node.op == "call_method":
            return node.target in _FLOAT_METHODS
        return node.op == "call_module" and isinstance(self.modules.get(node.target),
                                                       _FLOAT_MODULES)

    def _shape(self, node) -> Optional[tuple]:
        value = self.recorded.get(node)
        return tuple(value.shape) if isinstance(value, torch.Tensor) else None

    def _first_tensor(self, node):
        for arg in node.all_input_nodes:
            if isinstance(self.recorded.get(arg), torch.Tensor) and self.of(arg) is not None:
                return arg
        return None

    def _compute(self, node):
        value = self.recorded.get(node)
        if isinstance(value, (tuple, list)):
            return self._pieces(node, value)
        if not isinstance(value, torch.Tensor):
            return None
        shape = tuple(value.shape)
        if node.op == "placeholder":
            return tuple(value.stride())
        if node.op == "get_attr":
            return contiguous_strides(shape)
        if node.target is operator.getitem:
            return self._getitem(node, shape)
        kind = self._kind(node)
        if kind == "channels_last":
            return channels_last_strides(shape)
        if kind == "contiguous":
            return contiguous_strides(shape)
        source = self._first_tensor(node)
        if source is None:
            return contiguous_strides(shape)
        in_shape = self._shape(source)
        in_strides = self.of(source) if self._runs_in_float(node) else self.read(source)
        if kind == "identity":
            return in_strides
        if kind == "view":
            return view_strides(in_shape, in_strides, shape) or contiguous_strides(shape)
        if kind == "permute":
            return self._permuted(node, in_strides)
        if kind == "cat":
            operands = [a for a in node.all_input_nodes if self.of(a) is not None]
            formats = {suggests_channels_last(self._shape(a), self.read(a)) for a in operands}
            return (channels_last_strides(shape) if formats == {True}
                    else contiguous_strides(shape))
        if len(in_shape) == len(shape) and suggests_channels_last(in_shape, in_strides):
            return channels_last_strides(shape)
        return contiguous_strides(shape)

    def _quantized_layout(self, node) -> str:
        """A convolution's or batch norm's: channels-last where PyTorch
        quantizes it, its operand's format where it runs in float. Its
        convert quantizes a batch norm between a dequantize and a quantize
        whatever its QConfig (special_pattern_replacement): one configured
        None that reads an observer and whose users are observers."""
        if self.observed is None or node.name in self.observed:
            return "channels_last"
        m = _first_module(self.modules.get(node.target)) if node.op == "call_module" else None
        if (isinstance(m, (nn.BatchNorm2d, nn.BatchNorm3d)) and node.users
                and all(self._is_observer(n) for n in [node.args[0], *node.users])):
            return "channels_last"
        return "same"

    def _is_observer(self, node) -> bool:
        return (isinstance(node, torch.fx.Node) and node.op == "call_module"
                and isinstance(self.modules.get(node.target), _OBSERVERS))

    def _kind(self, node) -> str:
        if node.op == "call_module":
            m = _first_module(self.modules.get(node.target))
            if isinstance(m, _CHANNELS_LAST_MODULES):
                return self._quantized_layout(node)
            if isinstance(m, _CONTIGUOUS_MODULES):
                return "contiguous"
            if isinstance(m, _VIEW_MODULES):
                return "view"
            if isinstance(m, _IDENTITY_MODULES):
                return "identity"
            return "same"
        if node.op == "call_function":
            target = node.target
            if target in _CHANNELS_LAST_FUNCTIONS:
                return self._quantized_layout(node)
            if target in _CONTIGUOUS_FUNCTIONS:
                return "contiguous"
            if target in _VIEWS:
                return "view"
            if target in _PERMUTES:
                return "permute"
            if target in _CATS:
                return "cat"
            return "same"
        if node.op == "call_method":
            if node.target in _CONTIGUOUS_METHODS:
                return "contiguous"
            if node.target in _VIEW_METHODS:
                return "view"
            if node.target in _PERMUTE_METHODS:
                return "permute"
        return "same"

    def _permuted(self, node, strides: Strides) -> Strides:
        rank = len(strides)
        args = list(node.args[1:])
        if node.target in (torch.transpose, "transpose"):
            a, b = (args + [node.kwargs.get("dim0"), node.kwargs.get("dim1")])[:2]
            perm = list(range(rank))
            perm[a % rank], perm[b % rank] = perm[b % rank], perm[a % rank]
        else:
            dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            dims = dims or node.kwargs.get("dims", ())
            perm = [d % rank for d in dims]
        return tuple(strides[d] for d in perm)

    def _pieces(self, node, value) -> Optional[list]:
        """chunk / split: each piece a view with its operand's strides."""
        source = self._first_tensor(node)
        if source is None or not all(isinstance(v, torch.Tensor) for v in value):
            return None
        return [self.of(source)] * len(value)

    def _getitem(self, node, shape: tuple) -> Strides:
        container, index = node.args[0], node.args[1]
        strides = self.of(container)
        if isinstance(strides, list):
            return strides[index] if isinstance(index, int) else contiguous_strides(shape)
        if strides is None:
            return contiguous_strides(shape)
        items = list(index) if isinstance(index, tuple) else [index]
        if Ellipsis in items:
            at = items.index(Ellipsis)
            items[at:at + 1] = [slice(None)] * (len(strides) - len(items) + 1)
        items += [slice(None)] * (len(strides) - len(items))
        kept = [s for item, s in zip(items, strides) if not isinstance(item, int)]
        return tuple(kept) if len(kept) == len(shape) else contiguous_strides(shape)


def uses_contiguous_pool_kernel(shape: Sequence[int], strides: Strides) -> bool:
    """Whether PyTorch's quantized avg_pool2d / adaptive_avg_pool2d (1-D:
    on the operand unsqueezed to [N, C, 1, L]) runs its kernel for a
    contiguous operand: the operand is not channels-last contiguous."""
    shape, strides = list(shape), list(strides)
    if len(shape) == 3:
        shape.insert(2, 1)
        strides.insert(2, strides[2] * shape[3])
    return len(shape) == 4 and not is_channels_last_contiguous(shape, strides)
