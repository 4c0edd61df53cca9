"""Printing float TOSA 1.0 (MLIR 22 syntax) as text, one op at a time.

The exporter builds its function body through `TosaWriter`; every op gets a
location, every op but constants `qfx.module_name` (and `qfx.node_name`)
naming the same module (and FX node), and ops that implement a PyTorch node
a `qfx.origin`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Dict, Iterable, Iterator, Optional, Sequence

import numpy as np

FLOAT32_MAX = float(np.finfo(np.float32).max)


@dataclasses.dataclass(frozen=True)
class Tensor:
    """An SSA value of type tensor<...xf32> (or another element type)."""

    name: str
    shape: tuple
    element: str = "f32"

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.element)


def tensor_type(shape: Sequence[int], element: str = "f32") -> str:
    dims = "".join(f"{int(d)}x" for d in shape)
    return f"tensor<{dims}{element}>"


def format_f32(value) -> str:
    """A float32 as an MLIR literal that parses back to the same bits.

    Nine significant digits identify every finite float32, and the decimal
    lies far enough from the rounding boundary that MLIR's parse through
    double cannot land on the other side. Non-finite values use the hex
    bit-pattern form."""
    v = np.float32(value)
    if np.isfinite(v):
        return "%.8e" % float(v)
    return "0x%08X" % int(v.view(np.uint32))


# Larger constants are printed as MLIR's hex blob (the little-endian bytes of
# the float32 values): exact, a third of the size and fast to print/parse.
# A TosaWriter's constants of that size are resources instead (below).
HEX_BLOB_MIN_ELEMENTS = 4096

_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


@dataclasses.dataclass
class Exported:
    """An exported module: its text, whose weights are `dense_resource<key>`
    attributes, and the float32 arrays of those keys (C-contiguous), as
    torch-mlir's FX importer hands weights to MLIR. The library takes the
    arrays by reference (`qfx._capi`); `full_text` is the self-contained
    text, the resources as hex in its dialect_resources section."""

    text: str
    resources: Dict[str, np.ndarray]

    def chunks(self) -> Iterator[bytes]:
        """`full_text` in pieces, one resource at a time (a stage file is
        written so, never whole in memory)."""
        yield self.text.encode()
        if not self.resources:
            return
        yield b"\n{-#\n  dialect_resources: {\n    builtin: {\n"
        last = len(self.resources) - 1
        for index, (key, values) in enumerate(self.resources.items()):
            # A blob is its alignment (4, little-endian) and then its bytes.
            yield (f'      {key}: "0x04000000'.encode()
                   + values.astype("<f4", copy=False).tobytes().hex().upper().encode()
                   + (b'"\n' if index == last else b'",\n'))
        yield b"    }\n  }\n#-}\n"

    def full_text(self) -> str:
        return b"".join(self.chunks()).decode()


def _is_splat(values: np.ndarray) -> bool:
    """Whether the float32 `values` are one bit pattern repeated."""
    bits = values.view(np.uint32)
    return values.size > 0 and bool(np.all(bits == bits.flat[0]))


def dense_f32(values: np.ndarray) -> str:
    """dense<...> : tensor<...xf32> holding `values` exactly as float32."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    if _is_splat(values):
        body = format_f32(values.flat[0])
    elif values.size >= HEX_BLOB_MIN_ELEMENTS:
        body = '"0x' + values.astype("<f4").tobytes().hex().upper() + '"'
    else:
        body = _nested(values)
    return f"dense<{body}> : {tensor_type(values.shape)}"


def _nested(values: np.ndarray) -> str:
    if values.ndim == 1:
        if np.all(np.isfinite(values)):  # format_f32's, in one formatting
            return "[" + ", ".join(["%.8e"] * values.size) % tuple(
                values.astype(np.float64).tolist()) + "]"
        return "[" + ", ".join(format_f32(v) for v in values) + "]"
    return "[" + ", ".join(_nested(v) for v in values) + "]"


def _escape(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"')


class ModuleCall(tuple):
    """One call of a module the graph calls more than once: located at the
    module and the call's FX node, `loc("layer1.0.relu"("layer1_0_relu_1"))`,
    so that each call's value has a name of its own, but scoped to the module
    alone (`qfx.module_name`), as its single call would be."""

    def __new__(cls, module: str, node: str):
        return super().__new__(cls, (module, node))

    @property
    def module(self) -> str:
        return self[0]


def location(name) -> str:
    """`loc("name")`, or for a (module, node) pair `loc("module"("node"))`:
    the enclosing module of a functional call and its FX node."""
    if isinstance(name, tuple):
        module, node = name
        return f'loc("{_escape(module)}"("{_escape(node)}"))'
    return f'loc("{_escape(name)}")'


def scope_attributes(name) -> list:
    """The `qfx.module_name` (and for a (module, node) pair `qfx.node_name`)
    attributes naming what `location(name)` names: QConfigMapping keys read
    them, never the location."""
    if isinstance(name, ModuleCall):
        return [f'qfx.module_name = "{_escape(name.module)}"']
    if isinstance(name, tuple):
        module, node = name
        return [f'qfx.module_name = "{_escape(module)}"', f'qfx.node_name = "{_escape(node)}"']
    return [f'qfx.module_name = "{_escape(name)}"']


_SSA_UNSAFE = re.compile(r"[^A-Za-z0-9_$.]")


class TosaWriter:
    """Accumulates the ops of one func.func body."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        # Large constants: resource key -> float32 values (see Exported).
        self.resources: Dict[str, np.ndarray] = {}
        self._used: set[str] = set()
        # Result name -> (the lines list holding its op, index, a function
        # printing the op with extra attributes), for `annotate`.
        self._defs: dict = {}
        # Result or argument name -> the attributes `annotate` added.
        self._extra_attrs: dict = {}

    def _define(self, name: str, render: Callable[[Sequence[str]], str]) -> None:
        self._defs[name] = (self.lines, len(self.lines), render)
        self.lines.append(render(()))

    def annotate(self, value: Tensor, name: str, attr: str) -> None:
        """Sets the discardable attribute `name = attr` (replacing one of that
        name) on the op defining `value` (printed already), or on the
        function argument it is."""
        extra = self._extra_attrs.setdefault(value.name, {})
        extra[name] = attr
        if value.name in self._defs:
            lines, index, render = self._defs[value.name]
            if lines is not self.lines:  # an op inside a composite's body
                raise AssertionError(f"{value.name}: cannot annotate an op of a region")
            lines[index] = render(self._extra(value.name))

    def _extra(self, name: str) -> list:
        return [f"{key} = {attr}" for key, attr in self._extra_attrs.get(name, {}).items()]

    def fresh(self, hint: str) -> str:
        base = _SSA_UNSAFE.sub("_", hint) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 0
        while name in self._used:
            k += 1
            name = f"{base}_{k}"
        self._used.add(name)
        return "%" + name

    def _attrs(self, attrs: Optional[str], origin: Optional[str], extra: Sequence[str] = ()) -> str:
        parts = [attrs] if attrs else []
        if origin is not None:
            parts.append(f'qfx.origin = "{origin}"')
        parts.extend(extra)
        return (" {" + ", ".join(parts) + "}") if parts else ""

    def const(self, values: np.ndarray, loc: str, hint: str) -> Tensor:
        values = np.asarray(values, dtype=np.float32)
        result = Tensor(self.fresh(hint), tuple(values.shape))
        head = f'{result.name} = "tosa.const"() <{{values = {self._elements(values, result)}}}>'
        tail = f": () -> {result.type} {location(loc)}"
        self._define(result.name, lambda extra: f"{head}{self._attrs(None, None, extra)} {tail}")
        return result

    def _elements(self, values: np.ndarray, result: Tensor) -> str:
        """The constant's attribute: a resource for a large non-splat array
        (its values by reference), else `dense_f32`."""
        values = np.ascontiguousarray(values)
        if values.size < HEX_BLOB_MIN_ELEMENTS or _is_splat(values):
            return dense_f32(values)
        key = _KEY_UNSAFE.sub("_", result.name[1:])
        while key in self.resources:
            key += "_"
        self.resources[key] = values
        return f"dense_resource<{key}> : {result.type}"

    def zero_point(self, loc: str) -> Tensor:
        return self.const(np.zeros((1,), np.float32), loc, "zp")

    def mul_shift(self, loc: str) -> Tensor:
        result = Tensor(self.fresh("mul_shift"), (1,), "i8")
        self.lines.append(
            f'{result.name} = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> '
            f": () -> {result.type} {location(loc)}"
        )
        return result

    def int_const(self, values: np.ndarray, loc: str, hint: str) -> Tensor:
        """A constant of int64 or int32 `values` (indices), or of bools."""
        values = np.asarray(values)
        element = {np.dtype(np.int64): "i64", np.dtype(np.int32): "i32",
                   np.dtype(np.bool_): "i1"}[values.dtype]
        result = Tensor(self.fresh(hint), tuple(values.shape), element)
        flat = values.reshape(-1)
        body = (str(flat[0].item()) if flat.size and np.all(flat == flat[0])
                else str(values.tolist()))
        if element == "i1":
            body = body.replace("True", "true").replace("False", "false")
        self._define(result.name, lambda extra: (
            f'{result.name} = "tosa.const"() <{{values = dense<{body}> : {result.type}}}>'
            f"{self._attrs(None, None, extra)} : () -> {result.type} {location(loc)}"))
        return result

    def const_shape(self, values: Iterable[int], loc: str) -> str:
        values = [int(v) for v in values]
        name = self.fresh("shape")
        n = len(values)
        self.lines.append(
            f"{name} = tosa.const_shape {{values = dense<[{', '.join(map(str, values))}]> "
            f": tensor<{n}xindex>}} : () -> !tosa.shape<{n}> {location(loc)}"
        )
        return name

    def op(
        self,
        opname: str,
        operands: Sequence,
        out_shape: Sequence[int],
        loc: str,
        origin: Optional[str],
        attrs: Optional[str] = None,
        hint: str = "v",
        element: str = "f32",
    ) -> Tensor:
        """Prints `%r = tosa.<opname> operands {attrs} : (types) -> type`.

        Operands are Tensors or (ssa name, type) pairs (for !tosa.shape)."""
        names, types = [], []
        for operand in operands:
            if isinstance(operand, Tensor):
                names.append(operand.name)
                types.append(operand.type)
            else:
                names.append(operand[0])
                types.append(operand[1])
        result = Tensor(self.fresh(hint), tuple(int(d) for d in out_shape), element)
        head = f"{result.name} = tosa.{opname} {', '.join(names)}"
        tail = f": ({', '.join(types)}) -> {result.type} {location(loc)}"
        scope = scope_attributes(loc)
        self._define(result.name,
                     lambda extra: f"{head}{self._attrs(attrs, origin, [*scope, *extra])} {tail}")
        return result

    def reshape(self, x: Tensor, shape: Sequence[int], loc: str, origin: Optional[str]) -> Tensor:
        shape = tuple(int(d) for d in shape)
        if shape == x.shape:
            return x
        s = self.const_shape(shape, loc)
        return self.op("reshape", [x, (s, f"!tosa.shape<{len(shape)}>")], shape, loc, origin,
                       hint="reshape", element=x.element)

    def transpose(self, x: Tensor, perms: Sequence[int], loc: str, origin: Optional[str]) -> Tensor:
        perms = [int(p) for p in perms]
        if perms == list(range(len(perms))):
            return x
        shape = [x.shape[p] for p in perms]
        return self.op(
            "transpose",
            [x],
            shape,
            loc,
            origin,
            attrs=f"perms = array<i32: {', '.join(map(str, perms))}>",
            hint="transpose",
            element=x.element,
        )

    def slice(
        self, x: Tensor, start: Sequence[int], size: Sequence[int], loc: str, origin: Optional[str]
    ) -> Tensor:
        if tuple(size) == x.shape:
            return x
        rank = len(x.shape)
        s = self.const_shape(start, loc)
        z = self.const_shape(size, loc)
        shape_type = f"!tosa.shape<{rank}>"
        return self.op("slice", [x, (s, shape_type), (z, shape_type)], size, loc, origin, hint="slice",
                       element=x.element)

    def concat(self, xs: Sequence[Tensor], axis: int, loc: str, origin: Optional[str]) -> Tensor:
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        return self.op("concat", xs, shape, loc, origin, attrs=f"axis = {int(axis)} : i32",
                       hint="concat", element=xs[0].element)

    def clamp(self, x: Tensor, lo, hi, loc: str, origin: Optional[str]) -> Tensor:
        if x.element == "f32":
            attrs = f"min_val = {format_f32(lo)} : f32, max_val = {format_f32(hi)} : f32"
        else:  # integers (indices)
            attrs = f"min_val = {int(lo)} : {x.element}, max_val = {int(hi)} : {x.element}"
        return self.op("clamp", [x], x.shape, loc, origin, attrs=attrs, hint="clamp",
                       element=x.element)

    def mul(self, a: Tensor, b: Tensor, out_shape, loc: str, origin: Optional[str]) -> Tensor:
        shift = self.mul_shift(loc)
        return self.op("mul", [a, b, shift], out_shape, loc, origin, hint="mul")

    def composite(self, name: str, x, loc: str, origin: Optional[str],
                  build: Callable[..., Tensor], attrs: Optional[str] = None,
                  hint: str = "v"):
        """Prints `%r = qfx.composite "NAME" (x...)` whose body is what `build`
        writes for the body's arguments (`x` is a Tensor or a sequence of
        them; `build` gets one argument per operand and returns the yielded
        Tensor, or a tuple of them: then the composite has one result per
        Tensor, and a tuple of them is returned). The composite carries
        `origin` and `composite_attributes = {attrs}`; the body's ops carry
        no origin (pass origin=None inside `build`)."""
        xs = [x] if isinstance(x, Tensor) else list(x)
        args = [Tensor(self.fresh("arg"), t.shape, t.element) for t in xs]
        outer, self.lines = self.lines, []
        y = build(*args)
        body, self.lines = self.lines, outer
        ys = list(y) if isinstance(y, (tuple, list)) else [y]
        result = Tensor(self.fresh(hint), ys[0].shape, ys[0].element)
        results = ([result] if len(ys) == 1 else
                   [Tensor(f"{result.name}#{k}", t.shape, t.element) for k, t in enumerate(ys)])
        head = result.name if len(ys) == 1 else f"{result.name}:{len(ys)}"
        result_types = ", ".join(t.type for t in ys)
        if len(ys) > 1:
            result_types = f"({result_types})"
        parts = [f"composite_attributes = {{{attrs}}}"] if attrs else []
        if origin is not None:
            parts.append(f'qfx.origin = "{origin}"')
        parts.extend(scope_attributes(loc))
        names = ", ".join(t.name for t in xs)
        types = ", ".join(t.type for t in xs)

        def render(extra):
            attributes = ", ".join([*parts, *extra])
            attributes = f" attributes {{{attributes}}}" if attributes else ""
            return (f'{head} = qfx.composite "{name}" ({names}){attributes} '
                    f": ({types}) -> {result_types} {{")

        self._define(result.name, render)
        self.lines.append(f"^bb0({', '.join(f'{a.name}: {a.type}' for a in args)}):")
        self.lines.extend("  " + line for line in body)
        self.lines.append(f"  qfx.yield {', '.join(t.name for t in ys)} : "
                          f"{', '.join(t.type for t in ys)} {location(loc)}")
        self.lines.append(f"}} {location(loc)}")
        return result if len(ys) == 1 else tuple(results)

    def host_call(self, callee: str, call_id: int, inputs: Sequence[Tensor],
                  outputs: Sequence[tuple], loc, origin: Optional[str]) -> list:
        """Prints `%r:N = qfx.host_call "CALLEE" id ID (inputs...)`, the
        outputs given as (shape, element) pairs; returns their Tensors."""
        name = self.fresh("host")
        results = ([Tensor(name, tuple(outputs[0][0]), outputs[0][1])] if len(outputs) == 1 else
                   [Tensor(f"{name}#{k}", tuple(shape), element)
                    for k, (shape, element) in enumerate(outputs)])
        head = name if len(outputs) == 1 else f"{name}:{len(outputs)}"
        result_types = ", ".join(t.type for t in results)
        text = (f'{head} = qfx.host_call "{_escape(callee)}" id {int(call_id)} '
                f"({', '.join(t.name for t in inputs)})")
        tail = (f" : ({', '.join(t.type for t in inputs)}) -> ({result_types}) "
                f"{location(loc)}")
        scope = scope_attributes(loc)
        # (`annotate` reaches a single result's op.)
        self._define(name, lambda extra: f"{text}{self._attrs(None, origin, [*scope, *extra])}"
                     f"{tail}")
        return results

    def mark(self) -> tuple:
        """Where the body is now, for `rollback`."""
        return len(self.lines), len(self._defs)

    def rollback(self, mark: tuple) -> None:
        """Forgets the ops printed since `mark` (an export that failed part
        way)."""
        lines, defs = mark
        del self.lines[lines:]
        for name in list(self._defs)[defs:]:
            del self._defs[name]

    def function(self, func_name: str, args: Sequence[tuple], results: Sequence[Tensor]) -> str:
        """The whole func.func; `args` are (Tensor, location name) pairs."""
        def param(t: Tensor, n: str) -> str:
            attrs = self._extra(t.name)
            attrs = f" {{{', '.join(attrs)}}}" if attrs else ""
            return f"{t.name}: {t.type}{attrs} {location(n)}"

        params = ", ".join(param(t, n) for t, n in args)
        result_types = ", ".join(t.type for t in results)
        if len(results) != 1:
            result_types = f"({result_types})"
        body = "\n".join("    " + line for line in self.lines)
        ret = (
            f"    return {', '.join(t.name for t in results)} : "
            f"{', '.join(t.type for t in results)} {location('output')}"
        )
        return (
            "module {\n"
            f"  func.func @{func_name}({params}) -> {result_types} {{\n"
            f"{body}\n{ret}\n"
            "  }\n"
            "}\n"
        )
