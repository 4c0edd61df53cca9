"""Graph breaks: the PyTorch nodes a compiled model runs in Python.

The exporter turns each node it cannot express into a `qfx.host_call` op
(see docs/exporter.md, "Graph breaks") and records here what runs it: a
`HostCall`. A `Host` holds a model's calls; while a compiled program runs
(`_capi.Model`, `_capi.calibrate`), it is the calling thread's host callback
(`qfxSetHostCallback`): the program hands it the op's id and its buffers,
it runs the node on the inputs in PyTorch and writes the results.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, List, Sequence, Tuple

import numpy as np

# qfx.host_call's element types and their NumPy dtypes.
ELEMENTS = {"f32": np.float32, "i64": np.int64, "i32": np.int32, "i1": np.bool_}

_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int64,
                             ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t)


class GraphBreakError(RuntimeError):
    """A node running in PyTorch between compiled parts of a model failed,
    or returned tensors of other shapes or dtypes than the example run
    (the compiled program's shapes are static)."""


@dataclass(frozen=True)
class Input:
    """The place of the `index`-th tensor input in a node's arguments."""

    index: int


@dataclass(repr=False)
class HostCall:
    """One graph break: the FX node `node` (in module `module`) computing
    `callee`, exported as `qfx.host_call "callee" id N`, and why qfx did
    not compile it (`reason`). `function(*args, **kwargs)` runs it, `args`
    and `kwargs` holding `Input`s where the program's tensors go; its result
    flattens (tuples, lists, dict values) to tensors of `outputs`' (dtype,
    shape); `inputs` are the program's tensors' (dtype, shape)."""

    callee: str
    node: str
    module: str
    reason: str
    function: Callable[..., Any]
    args: tuple
    kwargs: dict
    inputs: List[Tuple[Any, Tuple[int, ...]]]
    outputs: List[Tuple[Any, Tuple[int, ...]]]

    def __str__(self) -> str:
        where = f"module '{self.module}'" if self.module else "the root module"
        return f"{self.callee} (node '{self.node}' in {where}): {self.reason}"

    def __repr__(self) -> str:
        return f"<graph break {self}>"

    def run(self, tensors: Sequence[Any]) -> List[Any]:
        """The node's result on `tensors`, flattened."""
        import torch

        def fill(value):
            if isinstance(value, Input):
                return tensors[value.index]
            if isinstance(value, (tuple, list)):
                return type(value)(fill(v) for v in value)
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            return value

        with torch.no_grad():
            return flatten(self.function(*fill(self.args), **fill(self.kwargs)))


class Method:
    """Calls the method `name` of its first argument: a call_method node's
    function (picklable, unlike a lambda)."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, obj: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(obj, self.name)(*args, **kwargs)


def save(host: "Host", path: Any) -> None:
    """Writes the host's calls with torch.save (pickle: functions by their
    qualified names, modules with their parameters)."""
    import torch

    try:
        torch.save(host.calls, path)
    except Exception as error:
        raise ValueError(f"{path}: cannot save the graph breaks ("
                         + ", ".join(call.node for call in host.calls)
                         + f"): {type(error).__name__}: {error}") from error


def load(path: Any) -> "Host":
    """The Host `save` wrote to `path`. Unpickling runs code named in the
    file, as torch.load does: load only directories you trust."""
    import torch

    try:
        calls = torch.load(path)
    except Exception as error:
        raise ValueError(f"{path}: cannot load the graph breaks: {type(error).__name__}: "
                         f"{error} (their functions must be importable here)") from error
    if not isinstance(calls, list) or not all(isinstance(c, HostCall) for c in calls):
        raise ValueError(f"{path}: expected a list of qfx HostCalls")
    return Host(calls)


def flatten(value: Any) -> List[Any]:
    """The leaves of tuples, lists and dict values, in order; None is no
    leaf."""
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in flatten(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in flatten(v)]
    return [] if value is None else [value]


def _array(address: int, dtype: Any, shape: Tuple[int, ...]) -> np.ndarray:
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.empty(shape, dtype)
    buffer = (ctypes.c_char * (count * np.dtype(dtype).itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype).reshape(shape)


_current = threading.local()


class Host:
    """A model's graph breaks, by id; `installed(library)` makes them the
    thread's host callback for a call of the library."""

    def __init__(self, calls: Sequence[HostCall]):
        self.calls = list(calls)
        # The first exception of a call, per thread (a model may run on
        # several at once).
        self._errors = threading.local()
        self._callback = _CALLBACK(self._run)

    def __bool__(self) -> bool:
        return bool(self.calls)

    def __deepcopy__(self, memo: dict) -> "Host":
        return Host(copy.deepcopy(self.calls, memo))

    def _run(self, _user: Any, call_id: int, buffers: Any, count: int) -> int:
        try:
            self._call(call_id, buffers, count)
            return 0
        except BaseException as error:  # noqa: B902 - reported after the program returns
            self._errors.error = error
            return 1

    def _call(self, call_id: int, buffers: Any, count: int) -> None:
        import torch

        if not 0 <= call_id < len(self.calls):
            raise GraphBreakError(f"the program called host call {call_id}; this model has "
                                  f"{len(self.calls)}")
        call = self.calls[call_id]
        if count != len(call.inputs) + len(call.outputs):
            raise GraphBreakError(f"{call}: the program passed {count} buffers, expected "
                                  f"{len(call.inputs)} inputs and {len(call.outputs)} results")
        # Copies: the node may write its inputs in place; the program's
        # buffers are read-only to it.
        tensors = [torch.from_numpy(_array(buffers[k], dtype, shape).copy())
                   for k, (dtype, shape) in enumerate(call.inputs)]
        try:
            results = call.run(tensors)
        except Exception as error:
            raise GraphBreakError(f"{call}: PyTorch raised {type(error).__name__}: "
                                  f"{error}") from error
        if len(results) != len(call.outputs):
            raise GraphBreakError(f"{call}: returned {len(results)} values, the example run "
                                  f"{len(call.outputs)}")
        first = len(call.inputs)
        for k, (result, (dtype, shape)) in enumerate(zip(results, call.outputs)):
            if (not isinstance(result, torch.Tensor) or tuple(result.shape) != shape
                    or result.numpy().dtype != np.dtype(dtype)):
                got = (f"{result.dtype} {list(result.shape)}" if isinstance(result, torch.Tensor)
                       else type(result).__name__)
                raise GraphBreakError(
                    f"{call}: result {k} is {got}, the compiled program expects "
                    f"{np.dtype(dtype).name} {list(shape)} (its shapes are the example run's)")
            np.copyto(_array(buffers[first + k], dtype, shape), result.detach().numpy())

    @contextlib.contextmanager
    def installed(self, library: Any) -> Iterator[None]:
        """This host is the thread's host callback during the block (the
        enclosing one again after it); the first exception a call raised in
        it is raised after it (the program has failed then)."""
        self._errors.error = None
        previous = getattr(_current, "host", None)
        _current.host = self
        library.qfxSetHostCallback(self._callback, None)
        try:
            yield
        finally:
            _current.host = previous
            library.qfxSetHostCallback(previous._callback if previous else _CALLBACK(), None)
        error, self._errors.error = self._errors.error, None
        if error is not None:
            raise error
