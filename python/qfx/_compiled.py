"""Running a model compiled ahead of time by quant-compile, in-process.

`quant-compile int8.mlir --target=host --name=qfx_model -o libmodel.so
--header=model.h` writes a shared library exporting `_mlir_ciface_qfx_model`,
MLIR's C interface: one pointer to a memref descriptor per input, then one
per output, which the compiled code writes into caller-allocated buffers.
`CompiledFunction` loads it with ctypes and calls it on NumPy arrays.

The signature (dtype and static shape of every input and output) is read
from the function type of the entry point in the MLIR the library was
compiled from; the header quant-compile wrote must state the same, or the
library is not the one that MLIR gives (`header_signature`).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import pathlib
import platform
import re
import uuid
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

# The exported name: _mlir_ciface_qfx_model, and the header's qfx_qfx_model.
FUNCTION = "qfx_model"
LIBRARY = "libmodel.so"
HEADER = "model.h"
TARGET = "host"

# The variables by which a user chooses how libomp's threads wait between
# parallel regions.
_OMP_WAITING = ("OMP_WAIT_POLICY", "KMP_BLOCKTIME", "KMP_LIBRARY")


def default_omp_waiting() -> None:
    """The kernels' OpenMP threads (libomp's) spin for 1 ms after a
    parallel region, then sleep (KMP_BLOCKTIME=1, as quant-run sets it;
    libomp reads it when the first compiled model starts its threads),
    unless the user chose. Waking sleeping threads costs a small kernel more
    than its work; spinning for ever burns a core while the process idles
    or PyTorch computes (docs/codegen.md). Only libomp reads KMP_ variables:
    PyTorch's OpenMP runtime (libgomp) is left as the user set it."""
    if not any(name in os.environ for name in _OMP_WAITING):
        os.environ["KMP_BLOCKTIME"] = "1"


# The kernels' OpenMP runtime (libomp; the JIT loads it, saved libraries
# link it) and set_num_threads's count.
_LIBOMP = "libomp.so.5"
_libomp_handle: Optional[ctypes.CDLL] = None
_threads: Optional[int] = None


def _libomp() -> ctypes.CDLL:
    """libomp, loaded once (the instance compiled models use), after its
    waiting is chosen: it reads its variables when first called."""
    global _libomp_handle
    if _libomp_handle is None:
        default_omp_waiting()
        _libomp_handle = ctypes.CDLL(_LIBOMP)
        _libomp_handle.omp_get_max_threads.restype = ctypes.c_int
        _libomp_handle.omp_set_num_threads.argtypes = [ctypes.c_int]
    return _libomp_handle


def set_num_threads(count: int) -> None:
    """The number of OpenMP threads qfx's kernels use in every later call
    of a compiled model (and in calibration), from whichever thread calls
    it, as torch.set_num_threads sets PyTorch's; it overrides
    OMP_NUM_THREADS. PyTorch's own threads are not changed."""
    global _threads
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"set_num_threads expects a positive int, got {count!r}")
    _threads = count
    apply_num_threads()


def get_num_threads() -> int:
    """The number of OpenMP threads qfx's kernels use: set_num_threads's
    count, else OMP_NUM_THREADS's (default: the cores)."""
    return _threads if _threads is not None else _libomp().omp_get_max_threads()


def apply_num_threads() -> None:
    """Gives the calling thread set_num_threads's count (libomp keeps one
    per thread), before it runs compiled code."""
    if _threads is not None:
        _libomp().omp_set_num_threads(_threads)


# MLIR element types the C interface carries, as quant-compile names them
# (the NumPy dtype names).
_ELEMENT_DTYPES = {"f32": "float32", "f16": "float16", "i8": "int8", "ui8": "uint8",
                   "i32": "int32", "i64": "int64"}


class TensorSpec(NamedTuple):
    """The dtype (a NumPy dtype name) and static shape of one argument."""

    dtype: str
    shape: Tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join(str(d) for d in self.shape)}]"


Signature = Tuple[List[TensorSpec], List[TensorSpec]]


# ----- the signature in the MLIR ---------------------------------------------


def _skip_string(text: str, i: int) -> int:
    """The index after the string literal starting at text[i] == '"'."""
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    raise ValueError("unterminated string literal")


def _group_end(text: str, i: int) -> int:
    """The index after the bracket group ((), <>, [] or {}) opening at i.
    String literals are skipped and '->' is not a bracket."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if c == "-" and text.startswith("->", i):
            i += 2
            continue
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced brackets")


def _split_top_level(text: str) -> List[str]:
    """`text` split at commas outside brackets and strings."""
    parts, start, i = [], 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if c in "(<[{":
            i = _group_end(text, i)
            continue
        if c == ",":
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_TYPE_HEAD = re.compile(r"\s*([!\w.]+)")


def _read_type(text: str, i: int) -> Tuple[str, int]:
    """The type starting at text[i] (leading spaces skipped), and the index
    after it."""
    match = _TYPE_HEAD.match(text, i)
    if not match:
        raise ValueError(f"expected a type at {text[i:i + 40]!r}")
    end = match.end()
    if end < len(text) and text[end] == "<":
        end = _group_end(text, end)
    return text[match.start(1):end], end


_TENSOR = re.compile(r"^tensor<((?:\d+x)*)(\w+)>$")


def _tensor_spec(type_text: str, what: str) -> TensorSpec:
    match = _TENSOR.match(type_text)
    if not match or match.group(2) not in _ELEMENT_DTYPES:
        raise ValueError(f"{what} has type {type_text}: expected a statically shaped tensor of "
                         f"{', '.join(_ELEMENT_DTYPES)}")
    shape = tuple(int(d) for d in match.group(1).split("x") if d)
    return TensorSpec(_ELEMENT_DTYPES[match.group(2)], shape)


def function_signature(mlir: str, entry: str = "main") -> Signature:
    """The inputs and results of `func.func @entry` in the IR text `mlir`,
    read from its function type. ValueError if there is no such function or
    a type is not a static tensor of an element type the C interface
    carries."""
    header = re.compile(r"func\.func\s+(?:(?:public|private|nested)\s+)?@(?:"
                        + re.escape(entry) + r'|"' + re.escape(entry) + r'")\s*\(')
    match = header.search(mlir)
    if not match:
        raise ValueError(f"the model has no func.func @{entry}")
    where = f"@{entry}"
    try:
        open_paren = match.end() - 1
        args_end = _group_end(mlir, open_paren)
        inputs = []
        for index, arg in enumerate(_split_top_level(mlir[open_paren + 1:args_end - 1])):
            colon = arg.find(":")
            if colon < 0:
                raise ValueError(f"argument {index} has no type: {arg!r}")
            type_text, _ = _read_type(arg, colon + 1)
            inputs.append(_tensor_spec(type_text, f"input {index} of {where}"))
        rest = mlir[args_end:]
        arrow = re.match(r"\s*->\s*", rest)
        outputs: List[TensorSpec] = []
        if arrow:
            at = arrow.end()
            if rest[at] == "(":
                results = _split_top_level(rest[at + 1:_group_end(rest, at) - 1])
                types = [_read_type(r, 0)[0] for r in results]
            else:
                types = [_read_type(rest, at)[0]]
            outputs = [_tensor_spec(t, f"result {k} of {where}") for k, t in enumerate(types)]
    except (ValueError, IndexError) as error:
        raise ValueError(f"the function type of {where}: {error}") from None
    return inputs, outputs


# ----- the header ------------------------------------------------------------

_DECLARATION = re.compile(r"^void _mlir_ciface_(\w+)\(", re.MULTILINE)
_ARGUMENT_LINE = re.compile(r"^ \*   (in|out)(\d+): (\w+)\[([0-9, ]*)\]( \(written\))?$",
                            re.MULTILINE)


def header_signature(text: str) -> Tuple[str, List[TensorSpec], List[TensorSpec]]:
    """The exported name, inputs and outputs a quant-compile header states
    (its `_mlir_ciface_NAME` declaration and its `*   in0: float32[1, 8]`
    comment lines). ValueError if it states them incompletely."""
    declaration = _DECLARATION.search(text)
    if not declaration:
        raise ValueError("no _mlir_ciface_ declaration")
    found: Dict[str, Dict[int, TensorSpec]] = {"in": {}, "out": {}}
    for match in _ARGUMENT_LINE.finditer(text):
        kind, index = match.group(1), int(match.group(2))
        shape = tuple(int(d) for d in match.group(4).split(",") if d.strip())
        found[kind][index] = TensorSpec(match.group(3), shape)
    lists = []
    for kind in ("in", "out"):
        specs = found[kind]
        if sorted(specs) != list(range(len(specs))):
            raise ValueError(f"the {kind}N lines are not numbered 0 to {len(specs) - 1}")
        lists.append([specs[k] for k in range(len(specs))])
    return declaration.group(1), lists[0], lists[1]


# ----- compiling and what a library was compiled for ------------------------------


def source_digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cpu_description() -> Dict[str, object]:
    """This machine's architecture and CPU feature flags (/proc/cpuinfo's
    `flags`, `Features` on AArch64; None where there is none). A library
    compiled for `host` may use every feature of the CPU it was compiled on."""
    flags: Optional[List[str]] = None
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("flags", "Features"):
                flags = sorted(set(value.split()))
                break
    except OSError:
        pass
    return {"machine": platform.machine(), "cpu_flags": flags}


def runs_here(record: Dict[str, object]) -> Optional[str]:
    """None if a library compiled on the machine `record` describes
    (`cpu_description()` then) can run on this one; else why not."""
    here = cpu_description()
    if record.get("machine") != here["machine"]:
        return (f"it was compiled for {record.get('machine')!r}, this machine is "
                f"{here['machine']!r}")
    theirs, ours = record.get("cpu_flags"), here["cpu_flags"]
    if theirs is None or ours is None:
        return "the CPU features it was compiled for are not known"
    missing = sorted(set(theirs) - set(ours))
    if missing:
        shown = ", ".join(missing[:8]) + (", ..." if len(missing) > 8 else "")
        return f"it was compiled on a CPU with features this one lacks ({shown})"
    return None


def compile_record(source: pathlib.Path) -> Dict[str, object]:
    """What the manifest records about a library compiled from `source` on
    this machine."""
    record: Dict[str, object] = {"library": LIBRARY, "header": HEADER, "function": FUNCTION,
                                 "target": TARGET, "source": source.name,
                                 "source_sha256": source_digest(source)}
    record.update(cpu_description())
    return record


# ----- calling it --------------------------------------------------------------

_DESCRIPTORS: Dict[int, type] = {}


def _descriptor_type(rank: int) -> type:
    """MLIR's memref descriptor of `rank`: {allocated, aligned, offset,
    sizes[rank], strides[rank]} (the header's qfx_memref_Nd)."""
    if rank not in _DESCRIPTORS:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        _DESCRIPTORS[rank] = type(f"qfx_memref_{rank}d", (ctypes.Structure,),
                                  {"_fields_": fields})
    return _DESCRIPTORS[rank]


def _c_order_strides(shape: Sequence[int]) -> List[int]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return strides[::-1]


class CompiledFunction:
    """`_mlir_ciface_NAME` of a quant-compile shared library, called on NumPy
    arrays of the signature it was compiled with.

    OSError if the library does not load or does not export the function.
    It is opened through a link with a name of its own, removed
    once open: the dynamic loader identifies libraries by path, so opening a
    recompiled library at a path opened before would return the old one.
    ctypes never unloads a library; each stays mapped until the process
    exits."""

    def __init__(self, library: pathlib.Path, name: str, inputs: Sequence[TensorSpec],
                 outputs: Sequence[TensorSpec]):
        self.library = pathlib.Path(library)
        self.name = name
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        alias = self.library.with_name(f".{self.library.stem}-{uuid.uuid4().hex}.so")
        try:
            os.link(self.library, alias)
        except OSError:
            alias.write_bytes(self.library.read_bytes())
        default_omp_waiting()
        try:
            handle = ctypes.CDLL(str(alias))
        except OSError as error:
            detail = str(error).replace(f"{alias}: ", "")
            raise OSError(f"{self.library.name} does not load: {detail}") from None
        finally:
            alias.unlink()
        try:
            self._function = getattr(handle, f"_mlir_ciface_{name}")
        except AttributeError:
            raise OSError(f"{self.library.name} does not export _mlir_ciface_{name}") from None
        self._function.restype = None
        specs = self.inputs + self.outputs
        self._function.argtypes = [ctypes.POINTER(_descriptor_type(len(s.shape))) for s in specs]
        self._layouts = [(_descriptor_type(len(s.shape)), np.dtype(s.dtype), s.shape,
                          _c_order_strides(s.shape)) for s in specs]

    def __call__(self, arrays: Sequence[np.ndarray],
                 outputs: Optional[Sequence[np.ndarray]] = None) -> List[np.ndarray]:
        """Runs the function on `arrays` (one per input, of exactly the
        input's dtype and shape) and returns its outputs, written into
        `outputs` if given (C-contiguous arrays of the outputs' dtypes and
        shapes), else into new arrays. The inputs are copied first:
        bufferization may let the compiled code write into its arguments, and
        the caller's arrays (maybe a torch tensor's memory) must not change."""
        count = len(self.inputs)
        if len(arrays) != count:
            raise ValueError(f"_mlir_ciface_{self.name} takes {count} input(s), "
                             f"{len(arrays)} given")
        if outputs is None:
            outputs = [np.empty(shape, dtype) for _, dtype, shape, _ in self._layouts[count:]]
        elif len(outputs) != len(self.outputs):
            raise ValueError(f"_mlir_ciface_{self.name} writes {len(self.outputs)} output(s), "
                             f"{len(outputs)} given")
        buffers = []
        for k, (array, (_, dtype, shape, _)) in enumerate(zip(arrays, self._layouts)):
            if array.dtype != dtype or array.shape != shape:
                raise ValueError(f"_mlir_ciface_{self.name}: input {k} must be "
                                 f"{TensorSpec(dtype.name, shape)}, got "
                                 f"{TensorSpec(array.dtype.name, array.shape)}")
            buffers.append(np.array(array, dtype=dtype, order="C", copy=True))
        for k, (array, (_, dtype, shape, _)) in enumerate(zip(outputs, self._layouts[count:])):
            if (array.dtype != dtype or array.shape != shape or not array.flags.c_contiguous
                    or not array.flags.writeable):
                raise ValueError(f"_mlir_ciface_{self.name}: output {k} must be a writable "
                                 f"C-contiguous {TensorSpec(dtype.name, shape)}")
        apply_num_threads()
        descriptors = []
        for buffer, (descriptor, _, shape, strides) in zip(buffers + list(outputs),
                                                           self._layouts):
            address = buffer.ctypes.data
            if shape:
                descriptors.append(ctypes.byref(descriptor(address, address, 0, tuple(shape),
                                                           tuple(strides))))
            else:
                descriptors.append(ctypes.byref(descriptor(address, address, 0)))
        self._function(*descriptors)
        return list(outputs)
