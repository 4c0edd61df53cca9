"""PyTorch-style post-training quantization: `prepare_fx` and `convert_fx`.

The API of `torch.ao.quantization.quantize_fx`, over qfx's library:

    prepared = qfx.prepare_fx(model, qconfig_mapping, example_inputs)
    for x in calibration_data:
        prepared(x)                          # observes x
    quantized = qfx.convert_fx(prepared)     # convert, lower to int8
    y = quantized(x)

Everything runs in this process, through qfx's C API (`qfx._capi`); no tool
is started. `prepare_fx` exports the eval-mode model to float TOSA
(`qfx.export_tosa`), writes the QConfigMapping and the BackendConfig to a
working directory and runs `qfx-fuse` and `qfx-prepare` (observed.mlir).
Calls of the prepared model run the observed model, whose observers see
their values (the statistics accumulate in this process, as PyTorch's
observers' do), and return its outputs. `convert_fx` writes the statistics
(calibrated.mlir), runs `qfx-convert` (reference.mlir) and `qfx-lower`
(int8.mlir) and compiles the int8 program. With `record_samples`, calls
write their inputs as `.npy` files instead and `convert_fx` calibrates on
them all (as `quant-run --calibrate`).

What runs where, and what it costs:

- Models take inputs of the shapes of `example_inputs` (float32, torch
  tensors or NumPy arrays) and return torch tensors when given torch
  tensors, NumPy arrays otherwise; for other shapes of the same ranks they
  compile a program at their first call (`_Shapes`: the prepared model's
  observes into the same observers).
- A stage runs as quant-run runs it: JIT-compiled once in this process
  (linalg loops compiled by LLVM at -O3 for this machine's CPU, and
  qfx-codegen's kernels for the Linear and Conv2d layers' int8 chains on
  CPUs that have them: AVX-512 VNNI, else AVX2; SMMLA or SDOT on AArch64),
  then called on the arrays' memory. `run_samples(samples)` runs many
  samples (stacked along a new leading axis) one after another through it.
- The prepared model's calls return the outputs of the observed model
  (`outputs="jit"`, the default), compiled for calibration at the first
  call; `outputs=None` returns nothing, `outputs="torch"` the PyTorch
  model's own float outputs (which the exported model matches to about
  1e-5).
- The quantized model runs the int8 program: `convert_fx` lowers the
  reference model with `qfx-lower{backend=B}` (the backend the model was
  prepared with) to int8 TOSA (int8.mlir): integer convolutions and matmuls
  with int32 accumulators, `tosa.rescale` requantization, integer pooling
  and lookup tables, quantizing the float inputs once and dequantizing the
  outputs once. Its outputs are those of PyTorch's quantized (`convert_fx`)
  model. `save` also compiles it ahead of time into a shared library
  (libmodel.so, with its C header model.h; as `quant-compile --target=host`,
  which starts clang to link it), and `load` uses that library when it can
  (same int8.mlir, a CPU with the features it was compiled for) and
  JIT-compiles int8.mlir otherwise. Both give the same outputs, bit for bit.
- Both models are `torch.nn.Module`s (composition, hooks, deepcopy); the
  quantized model pickles (`torch.save`) and its `state_dict` holds the
  program (see `QuantizedModel`).
- A pattern qfx-lower cannot lower (no backend pattern for the op, a
  weight it cannot use, ...) stays as in the reference model: dequantize,
  float op, quantize. qfx-lower says so in a "runs in float" remark;
  `convert_fx` collects them in `QuantizedModel.float_ops` and warns
  (`FloatOpWarning`).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import threading
import warnings
import weakref
import zipfile
from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from qfx import _compiled, _host, _stagefiles
from qfx import config as _config
from qfx.config._torch import qconfig_mapping_from_torch
from qfx._tosa_text import Exported
from qfx.exporter import NonTraceable, export_with_outputs
from qfx import _capi
from qfx.tools import ToolError

__all__ = ["fuse_fx", "prepare_fx", "prepare_qat_fx", "get_default_qat_qconfig_mapping", "convert_fx",
           "convert_to_reference_fx", "load", "PreparedModel", "QuantizedModel", "ReferenceModel",
           "FloatOp", "FloatOpWarning", "RecompileWarning"]

STAGES = ("float", "observed", "calibrated", "reference", "int8")
_MANIFEST = "qfx_model.json"
_GRAPH_BREAKS = "graph_breaks.pt"
_FORMAT = "qfx-quantized-model"
# Version 1 (before the int8 stage): float, observed, calibrated, reference.
_VERSION = 2
_BACKEND_FILE = "backend_config.json"
_OUTPUT_MODES = ("jit", "torch", None)
# The stages pickles and state_dict carry of a QuantizedModel.
_SERIALIZED_STAGES = ("int8",)
# The input shapes besides example_inputs' a quantized model keeps compiled.
_SHAPE_CACHE = 8
# The attributes every torch.nn.Module has (hooks, training, ...).
_MODULE_KEYS = frozenset(vars(torch.nn.Module()))


# ----- helpers ------------------------------------------------------------


def _is_torch_tensor(x: Any) -> bool:
    return isinstance(x, torch.Tensor)


def _is_torch_object(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] == "torch"


def _as_tuple(inputs: Any) -> tuple:
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs)
    return (inputs,)


def _to_numpy(x: Any, what: str) -> np.ndarray:
    if _is_torch_tensor(x):
        return x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return x
    raise TypeError(f"{what}: expected a torch.Tensor or a numpy.ndarray, got {type(x).__name__}")


def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


class FloatOpWarning(UserWarning):
    """`convert_fx` left some ops of the quantized model in float: graph
    breaks running in PyTorch, or patterns qfx-lower could not lower to int8
    (see `QuantizedModel.float_ops`)."""


class RecompileWarning(UserWarning):
    """A quantized model compiles its program for input shapes other than
    `example_inputs`' (said once per model)."""


@dataclass(frozen=True)
class FloatOp:
    """An op that runs in float in the int8 model: a graph break (op
    "qfx.host_call": a node running in PyTorch), or one whose pattern
    qfx-lower kept as in the reference model (dequantize, float op,
    quantize), saying why in a "runs in float" remark.

    - `op`: the op's name ("tosa.add"; "qfx.fused conv2d_relu" for a fused
      region).
    - `location`: its location, the PyTorch module's qualified name for an
      exported model ("layer1.0.conv1"), or the remark's file:line:col.
    - `origin`: the PyTorch type the exporter recorded ("torch.nn.Hardswish"),
      or None.
    - `reason`: why it was not lowered ("backend 'onednn' has no pattern for
      it").
    """

    op: str
    location: str
    origin: Optional[str]
    reason: str

    def __str__(self) -> str:
        origin = f" ({self.origin})" if self.origin else ""
        return f"{self.op} at '{self.location}'{origin}: {self.reason}"


_REMARK = re.compile(r"^(?P<where>.*?): remark: (?:loc\((?P<loc>.*?)\): )?"
                     r"runs in float: (?P<reason>.*)$")
_DIAGNOSTIC = re.compile(r"^.*?: (?:remark|note|warning|error): ")
# The op a note prints, after "see current operation: " on the same line or,
# for an op with regions printed whole, on the next.
_CURRENT_OP = re.compile(r"see current operation: ?$|see current operation: (?:%[^=]*= )?\"?"
                         r"(?P<op>[\w.]+)\"?(?: \"(?P<kind>[\w.]+)\")?")
_NEXT_LINE_OP = re.compile(r"^(?:%[^=]*= )?\"?(?P<op>[\w.]+)\"?(?: \"(?P<kind>[\w.]+)\")?")
_ORIGIN = re.compile(r'qfx\.origin = "([^"]*)"')


def _float_ops(remarks: str) -> List[FloatOp]:
    """The "runs in float" remarks of qfx-lower's diagnostics (each possibly
    followed by a note printing the op)."""
    found = []
    current = None
    op_follows = False
    for line in remarks.splitlines():
        match = _REMARK.match(line)
        if match:
            if current:
                found.append(FloatOp(**current))
            loc = match.group("loc")
            if loc and loc.startswith('"') and loc.endswith('"'):
                loc = loc[1:-1]
            current = {"op": "?", "location": loc or match.group("where"), "origin": None,
                       "reason": match.group("reason")}
            continue
        if current is None:
            continue
        if _DIAGNOSTIC.match(line) and "see current operation:" not in line:
            found.append(FloatOp(**current))
            current = None
            continue
        op = _NEXT_LINE_OP.match(line) if op_follows else _CURRENT_OP.search(line)
        op_follows = bool(op) and not op.group("op") and current["op"] == "?"
        if op and op.group("op") and current["op"] == "?":
            current["op"] = op.group("op") + (f" {op.group('kind')}" if op.group("kind") else "")
            origin = _ORIGIN.search(line)
            if origin:
                current["origin"] = origin.group(1)
    if current:
        found.append(FloatOp(**current))
    return found


def _pipeline(directory: pathlib.Path, source: Union[str, Exported], result: str,
              passes: str) -> str:
    """Runs `passes` (a textual pass list on builtin.module) over the file
    `source` in `directory`, or over an exported module (written to
    float.mlir on a thread, see _stagefiles; its weights handed to the
    library by reference), in this process (qfx's C API), which writes the
    result to `result` (with locations, as `quant-opt -o` would); returns
    the diagnostics as quant-opt prints them. Raises ToolError on failure.
    A stage's text is hundreds of MB: the library reads and writes the
    files itself, and never parses the file it wrote last."""
    resources = None
    if isinstance(source, Exported):
        exported, source = source, "float.mlir"
        _stagefiles.write(directory / source, exported.chunks())
        mlir, resources = exported.text.encode(), exported.resources
    else:
        _stagefiles.wait(directory / source)
        mlir = directory / source
    _, diagnostics = _capi.run_pipeline(mlir, f"builtin.module({passes})", source_name=source,
                                        resources=resources, output_file=directory / result)
    return _capi.format_diagnostics(diagnostics)


def _option(directory: pathlib.Path, option: str) -> str:
    """A configuration option for a pass: a built-in name as it is, a file
    of the working directory (the options name them relative to it) by its
    absolute path, quoted."""
    path = directory / option
    return _capi.quote_option(str(path.resolve()) if path.is_file() else option)


def _prepare_passes(directory: pathlib.Path, qconfig_option: str, backend_option: str,
                    engine: Optional[str] = None, torch_prepared: bool = False) -> str:
    """qfx-fuse and qfx-prepare. A model PyTorch prepared is fused already: a
    batch norm left after a conv is PyTorch's conv + batch norm pattern, not
    one to fold (fold-batch-norm=false)."""
    backend = _option(directory, backend_option)
    fold = " fold-batch-norm=false" if torch_prepared else ""
    return (f"qfx-fuse{{backend={backend}{fold}}},"
            f"qfx-prepare{{qconfig-mapping={_option(directory, qconfig_option)} "
            f"backend={backend}" + (f" engine={engine}" if engine else "") + "}")


def _torch_engine() -> Optional[str]:
    """`torch.backends.quantized.engine`, the engine whose numerics a model
    prepared without a backend_config follows (as PyTorch's quantized kernels
    do): x86, fbgemm, qnnpack or onednn; None for "none"."""
    engine = torch.backends.quantized.engine
    return engine if engine in ("x86", "fbgemm", "qnnpack", "onednn") else None


def _lower(directory: pathlib.Path, backend_option: str) -> Tuple[str, List[FloatOp]]:
    """qfx-lower of reference.mlir in `directory` into int8.mlir; returns its
    remarks and the ops they leave in float."""
    with _step("lowering to int8 (qfx-lower)"):
        remarks = _pipeline(directory, "reference.mlir", "int8.mlir",
                            f"func.func(qfx-lower{{backend={_option(directory, backend_option)}}})")
    return remarks, _float_ops(remarks)


def _convert_passes(directory: pathlib.Path, convert: "_ConvertOptions",
                    convert_pass: str = "qfx-convert") -> str:
    """The passes from calibrated.mlir to reference.mlir: `convert_pass`,
    after qfx-apply-convert-mapping for a convert-time QConfigMapping."""
    if convert.mapping is None:
        return convert_pass
    return (f"qfx-apply-convert-mapping{{qconfig-mapping={_option(directory, convert.mapping)} "
            f"prepare-qconfig-mapping={_option(directory, convert.prepare_mapping)} "
            f"backend={_option(directory, convert.backend)}}},{convert_pass}")


def _convert_to_reference(directory: pathlib.Path, convert: "_ConvertOptions",
                          convert_pass: str = "qfx-convert") -> None:
    """calibrated.mlir in `directory` -> reference.mlir (_convert_passes)."""
    with _step("converting (qfx-convert)"):
        _pipeline(directory, "calibrated.mlir", "reference.mlir",
                  _convert_passes(directory, convert, convert_pass))


def _convert_and_lower(directory: pathlib.Path,
                       convert: "_ConvertOptions") -> Tuple[str, List[FloatOp]]:
    """_convert_to_reference, then `_lower`."""
    _convert_to_reference(directory, convert)
    return _lower(directory, convert.backend)


def _compile(directory: pathlib.Path) -> dict:
    """Compiles int8.mlir in `directory` ahead of time into libmodel.so and
    model.h (`quant-compile --target=host --name=qfx_model`); returns the
    record of it the manifest keeps."""
    source = directory / "int8.mlir"
    _stagefiles.wait(source)
    with _step("compiling int8.mlir ahead of time (libmodel.so)"):
        _capi.compile_to_file(source, directory / _compiled.LIBRARY,
                              header=directory / _compiled.HEADER, source_name="int8.mlir",
                              target=_compiled.TARGET, export_name=_compiled.FUNCTION)
    return _compiled.compile_record(source)


def _jit(directory: pathlib.Path, stage: str, signature: "_Signature",
         host: _host.Host) -> _capi.Model:
    """The stage's @main compiled in this process, checked to take the
    model's inputs (shapes and dtypes) and return float32 tensors of its
    output shapes; `host` runs its graph breaks."""
    with _step(f"compiling {stage}.mlir"):
        _stagefiles.wait(directory / f"{stage}.mlir")
        model = _capi.Model(directory / f"{stage}.mlir", f"{stage}.mlir",
                            entry="main", host=host)
    _check_signature(model, f"{stage}.mlir", signature)
    return model


def _check_signature(model: _capi.Model, source: str, signature: "_Signature") -> None:
    """ValueError unless the compiled `model` takes the signature's inputs
    (shapes and dtypes) and returns float32 tensors of its output shapes."""
    expected = (signature.input_specs(), [(np.float32, s) for s in signature.outputs])
    if (model.inputs, model.results) != expected:
        raise ValueError(f"@{model.entry} of {source} does not have the model's signature "
                         f"({signature.inputs} -> {signature.outputs})")


def _open_library(directory: pathlib.Path, signature: "_Signature") -> _compiled.CompiledFunction:
    """The compiled int8 program in `directory` (libmodel.so, model.h,
    int8.mlir), checked against the model's signature: @main of int8.mlir
    must take the model's inputs and return float32 tensors of its output
    shapes, and the header must state that same signature under
    _mlir_ciface_qfx_model.
    ValueError if not; OSError if the library does not load or lacks the
    function."""
    inputs, outputs = _compiled.function_signature((directory / "int8.mlir").read_text())
    expected = ([_compiled.TensorSpec(d, s) for d, s in zip(signature.input_dtypes,
                                                            signature.inputs)],
                [_compiled.TensorSpec("float32", s) for s in signature.outputs])
    if (inputs, outputs) != expected:
        raise ValueError("@main of int8.mlir takes " + _specs_text(inputs) + " and returns "
                         + _specs_text(outputs) + "; the model's signature is "
                         + _specs_text(expected[0]) + " -> " + _specs_text(expected[1]))
    header = directory / _compiled.HEADER
    name, h_inputs, h_outputs = _compiled.header_signature(header.read_text())
    if (name, h_inputs, h_outputs) != (_compiled.FUNCTION, inputs, outputs):
        raise ValueError(f"{_compiled.HEADER} declares _mlir_ciface_{name}: "
                         + _specs_text(h_inputs) + " -> " + _specs_text(h_outputs)
                         + f"; int8.mlir compiles to _mlir_ciface_{_compiled.FUNCTION}: "
                         + _specs_text(inputs) + " -> " + _specs_text(outputs))
    return _compiled.CompiledFunction(directory / _compiled.LIBRARY, name, inputs, outputs)


def _specs_text(specs: Sequence[Any]) -> str:
    return "(" + ", ".join(str(s) for s in specs) + ")"


def _warn_float_ops(float_ops: List[FloatOp], stacklevel: int) -> None:
    if not float_ops:
        return
    shown = "; ".join(str(op) for op in float_ops[:5])
    more = f"; and {len(float_ops) - 5} more" if len(float_ops) > 5 else ""
    warnings.warn(f"{len(float_ops)} op(s) of the quantized model run in float (graph breaks "
                  "running in PyTorch, patterns qfx-lower could not lower to int8; see "
                  f"QuantizedModel.float_ops): {shown}{more}",
                  FloatOpWarning, stacklevel=stacklevel + 1)


class _Signature:
    """The static shapes of the model's inputs and outputs, the inputs'
    dtypes (float32, or int64 / int32 indices, with the number of rows of the
    embeddings an index input indexes: its values must lie in [0, bound)),
    and how the PyTorch model nested its outputs (`structure`: an output's
    index for a tensor, a list of structures for a tuple, as an LSTM's
    (output, (h_n, c_n)), `{"dict": [[key, structure], ...]}` for a dict, as
    torchvision's segmentation models' {"out": ...}). Outputs are float32."""

    INPUT_DTYPES = ("float32", "int64", "int32")

    def __init__(self, inputs: List[Tuple[int, ...]], outputs: List[Tuple[int, ...]],
                 structure: Any, input_dtypes: Optional[List[str]] = None,
                 index_bounds: Optional[List[Optional[int]]] = None,
                 input_names: Optional[List[Optional[str]]] = None):
        self.inputs = [tuple(s) for s in inputs]
        self.outputs = [tuple(s) for s in outputs]
        self.structure = structure
        self.input_dtypes = list(input_dtypes or ["float32"] * len(self.inputs))
        self.index_bounds = list(index_bounds or [None] * len(self.inputs))
        # The names calls may give inputs by (the model's forward's
        # parameters); None for one that only goes by position.
        self.input_names = list(input_names or [None] * len(self.inputs))

    def __eq__(self, other: Any) -> bool:
        """Same inputs (shapes, dtypes, index bounds; names aside) and
        outputs."""
        def key(signature: _Signature) -> tuple:
            return (signature.inputs, signature.input_dtypes, signature.index_bounds,
                    signature.outputs, signature.structure)

        return isinstance(other, _Signature) and key(self) == key(other)

    def __str__(self) -> str:
        inputs = ", ".join(f"{_shape_text(s)} {d}" for s, d in zip(self.inputs, self.input_dtypes))
        return f"({inputs}) -> ({', '.join(_shape_text(s) for s in self.outputs)})"

    def to_dict(self) -> dict:
        inputs = []
        for shape, dtype, bound, name in zip(self.inputs, self.input_dtypes, self.index_bounds,
                                             self.input_names):
            entry = {"shape": list(shape), "dtype": dtype}
            if bound is not None:
                entry["index_bound"] = bound
            if name is not None:
                entry["name"] = name
            inputs.append(entry)
        return {
            "inputs": inputs,
            "outputs": [{"shape": list(s), "dtype": "float32"} for s in self.outputs],
            "structure": self.structure,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "_Signature":
        for entry, allowed in [(e, cls.INPUT_DTYPES) for e in d["inputs"]] + \
                [(e, ("float32",)) for e in d["outputs"]]:
            if entry.get("dtype") not in allowed:
                raise ValueError(f"unsupported dtype {entry.get('dtype')!r} in the manifest")
            bound = entry.get("index_bound")
            if bound is not None and (type(bound) is not int or bound <= 0):
                raise ValueError(f"index_bound {bound!r} in the manifest: expected a positive "
                                 "integer")
            if not isinstance(entry.get("name", ""), str):
                raise ValueError(f"input name {entry['name']!r} in the manifest: expected a "
                                 "string")
        # Manifests before nested outputs say whether the model returned one
        # tensor or a tuple.
        structure = d["structure"] if "structure" in d else (
            0 if d["single_output"] else list(range(len(d["outputs"]))))
        leaves = _leaves(structure)
        if None in leaves or sorted(leaves) != list(range(len(d["outputs"]))):
            raise ValueError(f"structure {structure!r}: expected each output's index once, "
                             "nested in lists and {\"dict\": [[key, structure], ...]}")
        return cls([e["shape"] for e in d["inputs"]], [e["shape"] for e in d["outputs"]],
                   structure, [e["dtype"] for e in d["inputs"]],
                   [e.get("index_bound") for e in d["inputs"]],
                   [e.get("name") for e in d["inputs"]])

    def bind(self, inputs: tuple, kwargs: dict, what: str) -> tuple:
        """The inputs of a call in order, `kwargs` given by name as the
        model's forward takes them; TypeError as Python's for an unknown,
        repeated or missing one."""
        if not kwargs:
            return inputs
        missing = object()
        args = list(inputs) + [missing] * (len(self.inputs) - len(inputs))
        for key, value in kwargs.items():
            if key not in self.input_names:
                named = [n for n in self.input_names if n is not None]
                raise TypeError(f"{what} got an unexpected keyword argument {key!r} (its inputs "
                                "by name: " + (", ".join(named) or "none") + ")")
            index = self.input_names.index(key)
            if index < len(inputs):
                raise TypeError(f"{what} got multiple values for input {key!r}")
            args[index] = value
        absent = [self.input_names[k] or str(k) for k, a in enumerate(args) if a is missing]
        if absent:
            raise TypeError(f"{what} is missing input(s) " + ", ".join(absent))
        return tuple(args)

    def input_specs(self) -> List[Tuple[Any, Tuple[int, ...]]]:
        """(NumPy dtype, shape) of each input."""
        return [(np.dtype(d), s) for d, s in zip(self.input_dtypes, self.inputs)]

    def check_inputs(self, inputs: tuple, what: str, lead: Optional[int] = None) -> List[np.ndarray]:
        """The inputs as C-ordered arrays of the model's dtypes;
        ValueError/TypeError for a wrong count, dtype or shape, IndexError
        for an index outside its embedding. With `lead`, each input has a
        leading sample axis (of any length if lead == -1, the same for
        all)."""
        if len(inputs) != len(self.inputs):
            raise ValueError(f"{what}: the model takes {len(self.inputs)} input(s), "
                             f"{len(inputs)} given")
        arrays = []
        count = None
        for index, (x, shape) in enumerate(zip(inputs, self.inputs)):
            a = _to_numpy(x, f"{what}: input {index}")
            dtype, bound = self.input_dtypes[index], self.index_bounds[index]
            if a.dtype != np.dtype(dtype):
                raise TypeError(f"{what}: input {index} has dtype {a.dtype}; the model takes "
                                f"{dtype}")
            if lead is None:
                if tuple(a.shape) != shape:
                    hint = ""
                    if a.ndim == len(shape) and tuple(a.shape[1:]) == shape[1:]:
                        hint = ("; the batch size is fixed: run_samples takes samples of this "
                                "shape stacked along a new leading axis")
                    raise ValueError(f"{what}: input {index} has shape {_shape_text(a.shape)}; the "
                                     f"model was prepared for {_shape_text(shape)} (example_inputs)"
                                     + hint)
            else:
                if a.ndim != len(shape) + 1 or tuple(a.shape[1:]) != shape:
                    raise ValueError(
                        f"{what}: input {index} has shape {_shape_text(a.shape)}; expected "
                        f"[N, {', '.join(map(str, shape))}] (samples of shape {_shape_text(shape)} "
                        "stacked along a new leading axis)")
                if count is not None and a.shape[0] != count:
                    raise ValueError(f"{what}: inputs have different sample counts "
                                     f"({count} and {a.shape[0]})")
                count = a.shape[0]
            if bound is not None and a.size and (a.min() < 0 or a.max() >= bound):
                bad = a.min() if a.min() < 0 else a.max()
                raise IndexError(f"{what}: input {index} holds index {bad}, out of range [0, "
                                 f"{bound}) (an embedding's rows, or an EmbeddingBag's offsets "
                                 "up to its indices' count)")
            arrays.append(np.ascontiguousarray(a))
        if lead is not None and count == 0:
            raise ValueError(f"{what}: no samples given")
        return arrays

    def wrap_outputs(self, outputs: List[np.ndarray], as_torch: bool) -> Any:
        if as_torch:
            outputs = [torch.from_numpy(o) for o in outputs]
        def rebuild(structure: Any) -> Any:
            if isinstance(structure, list):
                return tuple(rebuild(s) for s in structure)
            if isinstance(structure, dict):
                return {key: rebuild(s) for key, s in structure["dict"]}
            return outputs[structure]

        return rebuild(self.structure)


def _leaves(structure: Any) -> List[Any]:
    """The output indices of a signature's structure, in order."""
    if isinstance(structure, list):
        return [leaf for s in structure for leaf in _leaves(s)]
    if isinstance(structure, dict):
        entries = structure.get("dict")
        if len(structure) != 1 or not isinstance(entries, list) or not all(
                isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) for e in entries):
            return [None]
        return [leaf for _, s in entries for leaf in _leaves(s)]
    return [structure] if isinstance(structure, int) and not isinstance(structure, bool) else [None]


def _make_workdir(workdir: Any, owner: Any) -> pathlib.Path:
    if workdir is not None:
        path = pathlib.Path(workdir).resolve()
        path.mkdir(parents=True, exist_ok=True)
        return path
    path = pathlib.Path(tempfile.mkdtemp(prefix="qfx-"))
    weakref.finalize(owner, shutil.rmtree, str(path), True)
    return path


def _holds_torch_qconfigs(mapping: dict) -> bool:
    """Whether a qconfig dict holds PyTorch QConfig objects (its global
    entry, or the last element of an entry of its lists), not qfx's JSON
    form."""
    qconfigs = [mapping.get("")]
    for key, entries in mapping.items():
        if key and isinstance(entries, (list, tuple)):
            qconfigs += [entry[-1] for entry in entries
                         if isinstance(entry, (list, tuple)) and entry]
    return any(_is_torch_object(q) for q in qconfigs if q is not None)


def _write_qconfig_mapping(mapping: Any, workdir: pathlib.Path,
                           name: str = "qconfig_mapping.json", what: str = "prepare_fx") -> str:
    """The qconfig-mapping option of a pass: a preset name or a file `name`
    written to `workdir`."""
    if mapping is None:
        raise TypeError(f"{what}: qconfig_mapping is required (a qfx.QConfigMapping, a torch "
                        "QConfigMapping or a preset such as 'default:x86')")
    if isinstance(mapping, str):
        _config.QConfigMapping.from_dict(mapping)  # ValueError for an unknown preset
        return mapping
    if isinstance(mapping, dict) and _holds_torch_qconfigs(mapping):
        # PyTorch's qconfig dict (prepare_fx's older argument, or
        # QConfigMapping.to_dict()): torch's own reading of it, converted.
        from torch.ao.quantization import QConfigMapping as TorchQConfigMapping
        mapping = _config.from_torch(TorchQConfigMapping.from_dict(mapping))
    elif isinstance(mapping, dict):
        mapping = _config.QConfigMapping.from_dict(mapping)
    elif not isinstance(mapping, _config.QConfigMapping):
        converted = _config.from_torch(mapping) if _is_torch_object(mapping) else None
        if not isinstance(converted, _config.QConfigMapping):
            raise TypeError(f"{what}: qconfig_mapping must be a QConfigMapping (qfx's or "
                            f"torch's) or a preset string, got {type(mapping).__name__}")
        mapping = converted
    mapping.save(workdir / name)
    return name


# PyTorch's prepare_fx and convert_fx default to get_native_backend_config(),
# which qfx's "onednn" table is (x86.py's and fbgemm.py's equal it but for
# layer norm).
_DEFAULT_BACKEND = "onednn"


def _write_backend_config(backend: Any, workdir: pathlib.Path, what: str = "prepare_fx") -> str:
    """The backend option of qfx-prepare and qfx-lower: a built-in table's
    name or a file written to `workdir`."""
    if backend is None:  # PyTorch's default: native.py's table
        return _DEFAULT_BACKEND
    if isinstance(backend, str):
        _config.get_backend_config(backend)  # ValueError for an unknown name
        return backend
    if not isinstance(backend, _config.BackendConfig):
        converted = _config.from_torch(backend) if _is_torch_object(backend) else None
        if not isinstance(converted, _config.BackendConfig):
            raise TypeError(f"{what}: backend_config must be a BackendConfig (qfx's or "
                            f"torch's) or a backend name, got {type(backend).__name__}")
        backend = converted
    backend.save(workdir / _BACKEND_FILE)
    return _BACKEND_FILE


# ----- other input shapes ----------------------------------------------------


def _fingerprint(model: Any) -> str:
    """A digest of `model`'s parameters and buffers (names, dtypes, shapes,
    bytes): it changes when one is replaced or written, also through
    `.data`, which no version counter sees."""
    digest = hashlib.blake2b(digest_size=32)
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        digest.update(f"{name}:{t.dtype}:{tuple(t.shape)};".encode())
        digest.update(t.detach().reshape(-1).contiguous().view(torch.uint8).numpy())
    return digest.hexdigest()


@dataclass(frozen=True)
class _ConvertOptions:
    """How a model converts: its backend option and, for a convert-time
    QConfigMapping (convert_fx's `qconfig_mapping`), that mapping's option
    and the prepare-time one (files of the working directory, or presets)."""

    backend: str
    mapping: Optional[str] = None
    prepare_mapping: Optional[str] = None

    def files(self) -> List[str]:
        return [o for o in (self.backend, self.mapping, self.prepare_mapping) if o]


@dataclass
class _Source:
    """What a quantized model needs to compile for other input shapes: the
    PyTorch model to export again (the model qfx.prepare_fx was given, or
    the model PyTorch prepared), how it was exported and prepared, whether
    the statistics come from its PyTorch observers (else from the model's
    calibrated stage), and `_fingerprint` of it when it was exported."""

    model: Any
    quantizable: frozenset
    non_traceable: NonTraceable
    strict: bool
    qconfig_option: str
    backend_option: str
    engine: Optional[str]
    torch_statistics: bool
    fingerprint: Optional[str]

    def __deepcopy__(self, memo: dict) -> "_Source":
        # (a prepared model's copy: its model is a copy too)
        model = copy.deepcopy(self.model, memo)
        unchanged = _fingerprint(self.model) == self.fingerprint
        return _Source(model, self.quantizable, self.non_traceable, self.strict,
                       self.qconfig_option,
                       self.backend_option, self.engine, self.torch_statistics,
                       _fingerprint(model) if unchanged else None)


class _Shapes:
    """A quantized model's programs for input shapes other than
    `example_inputs'`, each compiled at its first call: the PyTorch model
    exported at those shapes, prepared as at first, its observers given the
    first calibration's statistics (qfx-copy-statistics; a model PyTorch
    prepared: its observers', qfx-import-statistics), converted, lowered and
    compiled. The `_SHAPE_CACHE` shapes used last stay compiled."""

    def __init__(self, source: Optional[_Source], compile: Optional[Callable] = None,
                 warned: bool = False):
        self.source = source
        # compile(inputs, shapes) -> (signature, program, its directory); by
        # default a quantized model's (`_compile`).
        self.compile = compile
        # input shapes -> (signature, compiled program, working directory)
        self.compiled: "OrderedDict[tuple, Tuple[_Signature, Any, pathlib.Path]]" = OrderedDict()
        self.lock = threading.Lock()
        self.warned = warned
        self.count = 0

    def __deepcopy__(self, memo: dict) -> "_Shapes":
        # A quantized model's copy exports the same PyTorch model (the
        # user's, not copied), and compiles its own programs.
        return _Shapes(self.source)

    def get(self, model: "QuantizedModel", inputs: tuple,
            shapes: tuple) -> Tuple["_Signature", Any]:
        with self.lock:
            entry = self.compiled.get(shapes)
            if entry is None:
                entry = (self.compile(inputs, shapes) if self.compile
                         else self._compile(model, inputs, shapes))
                self.compiled[shapes] = entry
            self.compiled.move_to_end(shapes)
            while len(self.compiled) > _SHAPE_CACHE:
                shutil.rmtree(self.compiled.popitem(last=False)[1][2], ignore_errors=True)
            return entry[0], entry[1]

    def _compile(self, model: "QuantizedModel", inputs: tuple,
                 shapes: tuple) -> Tuple["_Signature", Any, pathlib.Path]:
        directory = model.workdir / "shapes" / str(self.count)
        signature, host = _export_and_prepare(self.source, model, inputs, shapes, directory,
                                              self, stacklevel=6)
        self.count += 1
        try:
            statistics = ("qfx-import-statistics" if self.source.torch_statistics else
                          "qfx-copy-statistics{from="
                          + _capi.quote_option(str(model.workdir / "calibrated.mlir")) + "}")
            with _step("taking the calibration's statistics"):
                _pipeline(directory, "observed.mlir", "calibrated.mlir", statistics)
            _convert_and_lower(directory, model._convert)
            function = _jit(directory, "int8", signature, host)
            _stagefiles.flush()
        except BaseException:
            _stagefiles.flush(raise_errors=False)
            shutil.rmtree(directory, ignore_errors=True)
            raise
        return signature, function, directory


def _export_and_prepare(source: _Source, model: "_Model", inputs: tuple, shapes: tuple,
                        directory: pathlib.Path, warned: Any,
                        stacklevel: int) -> Tuple["_Signature", _host.Host]:
    """Exports `source`'s PyTorch model at the shapes of `inputs` (another
    batch size, ...) and prepares it as `prepare_fx` did, into
    observed.mlir in `directory` (created); the signature at those shapes
    and the export's graph breaks. RuntimeError if the PyTorch model changed
    since it was first exported, ValueError if it does not take such
    inputs. The first time per `warned` (an object with a `warned` flag)
    says so with a RecompileWarning (`stacklevel` naming the user's call)."""
    what = ", ".join(map(_shape_text, shapes))
    if _fingerprint(source.model) != source.fingerprint:
        raise RuntimeError(
            f"{type(model).__name__}: cannot compile for input shapes {what}: the PyTorch model "
            "it was prepared from has changed since (a parameter or buffer was replaced or "
            "written), and exporting it again would quantize other weights; prepare and "
            "convert it again, or call the model with the shapes of example_inputs")
    tensors = tuple(torch.from_numpy(np.ascontiguousarray(x)) if isinstance(x, np.ndarray)
                    else x.detach() for x in inputs)
    try:
        with _step(f"exporting the model for input shapes {what}"):
            float_mlir, result, index_bounds, host = export_with_outputs(
                source.model, tensors, quantizable=source.quantizable, strict=source.strict,
                non_traceable=source.non_traceable)
        signature = _signature(tensors, result, index_bounds, type(model).__name__,
                               model.signature.input_names)
    except Exception as error:
        raise ValueError(
            f"{type(model).__name__}: inputs of shapes {what} (example_inputs: "
            + ", ".join(map(_shape_text, model.signature.inputs))
            + f"): exporting the PyTorch model at them failed: {type(error).__name__}: "
            f"{error}") from error
    if not warned.warned:
        warned.warned = True
        warnings.warn(f"the {type(model).__name__} compiles its program for input shapes {what} "
                      f"(its programs have static shapes; it keeps the {_SHAPE_CACHE} shapes "
                      "used last compiled, besides example_inputs')", RecompileWarning,
                      stacklevel=stacklevel)
    directory.mkdir(parents=True)
    try:
        options = {source.qconfig_option, source.backend_option}
        options.update(getattr(model, "_convert", _ConvertOptions("")).files())
        for option in options:
            if (model.workdir / option).is_file():
                shutil.copyfile(model.workdir / option, directory / option)
        with _step("fusing and preparing (qfx-fuse, qfx-prepare)"):
            _pipeline(directory, float_mlir, "observed.mlir",
                      _prepare_passes(directory, source.qconfig_option, source.backend_option,
                                      source.engine, source.torch_statistics))
    except BaseException:
        _stagefiles.flush(raise_errors=False)
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return signature, host


def _input_shapes(inputs: tuple, signature: "_Signature") -> Optional[tuple]:
    """The shapes of `inputs` if they are tensors or arrays of the
    signature's count, ranks and dtypes (a call another program of the model
    could take), else None."""
    if len(inputs) != len(signature.inputs):
        return None
    shapes = []
    for x, shape, dtype in zip(inputs, signature.inputs, signature.input_dtypes):
        if not isinstance(x, (np.ndarray, torch.Tensor)) or x.ndim != len(shape):
            return None
        if (str(x.dtype) if isinstance(x, np.ndarray) else str(x.dtype)[len("torch."):]) != dtype:
            return None
        shapes.append(tuple(x.shape))
    return tuple(shapes)


# ----- the models -----------------------------------------------------------


class _Model(torch.nn.Module):
    """What the prepared and the quantized model share: a `torch.nn.Module`
    whose `forward` runs a compiled stage; the signature, the working
    directory with the stage files.

    As modules they compose (`nn.Sequential`, as submodules), take hooks,
    `.eval()` / `.train()` (which change nothing they compute: they are
    eval-mode programs), `torch.no_grad()` and `torch.inference_mode()`;
    they hold no parameters. They run on the CPU on float32 (and index)
    tensors: `.to()`, `.cuda()`, `.half()`, ... to another device or dtype
    raise NotImplementedError instead of doing nothing."""

    _run_stage = "float"
    # The attributes preserved from the model (prepare / convert custom
    # configs' preserved_attributes).
    _preserved: Tuple[str, ...] = ()
    # What __deepcopy__ gives the copy anew (compiled code is shared).
    _not_copied: Tuple[str, ...] = ("workdir", "_function", "_profiling")

    def __init__(self, workdir: pathlib.Path, signature: _Signature, host: _host.Host):
        torch.nn.Module.__init__(self)
        self.workdir = workdir
        self.signature = signature
        self.host = host
        self._function: Any = None

    @property
    def graph_breaks(self) -> List[_host.HostCall]:
        """The nodes that run in PyTorch between the compiled parts (graph
        breaks), in program order; each says why qfx did not compile it."""
        return list(self.host.calls)

    def _run(self, arrays: List[np.ndarray],
             outputs: Optional[List[np.ndarray]] = None) -> List[np.ndarray]:
        """Runs the stage (`_run_stage`), compiled at the first run."""
        if self._function is None:
            self._function = _jit(self.workdir, self._run_stage, self.signature, self.host)
        return self._function(arrays, outputs)

    def _stage_path(self, stage: str) -> pathlib.Path:
        if stage not in STAGES:
            raise ValueError(f"unknown stage {stage!r}; expected one of {', '.join(STAGES)}")
        path = self.workdir / f"{stage}.mlir"
        _stagefiles.wait(path)
        if not path.is_file():
            raise ValueError(f"this model has no {stage!r} stage"
                             + (" (call qfx.convert_fx first)" if stage in STAGES[2:] else ""))
        return path

    def mlir(self, stage: str) -> str:
        """The IR text of one stage: "float" (the exported TOSA), "observed"
        (after qfx-fuse and qfx-prepare), "calibrated" (observers with their
        statistics), "reference" (after qfx-convert) or "int8" (after
        qfx-lower: the int8 TOSA program the quantized model runs)."""
        return self._stage_path(stage).read_text()

    def run_samples(self, samples: Any) -> Any:
        """Runs many samples: `samples` holds, per input, an array (or
        tensor) whose leading axis indexes samples, each of the input's shape
        — a single array for a one-input model, else a tuple. Returns the
        outputs stacked the same way (torch tensors if given torch tensors).
        The samples run one after another through the compiled stage (the
        float model for a prepared model, which records nothing)."""
        inputs = _as_tuple(samples)
        arrays = self.signature.check_inputs(inputs, "run_samples", lead=-1)
        count = arrays[0].shape[0]
        outputs = [np.empty((count,) + shape, np.float32) for shape in self.signature.outputs]
        for index in range(count):
            self._run([a[index] for a in arrays], [o[index] for o in outputs])
        return self.signature.wrap_outputs(outputs, any(map(_is_torch_tensor, inputs)))

    def _run_one(self, inputs: tuple, what: str) -> Tuple[List[np.ndarray], bool]:
        arrays = self.signature.check_inputs(inputs, what)
        return arrays, any(map(_is_torch_tensor, inputs))

    def __deepcopy__(self, memo: dict) -> "_Model":
        # The copy gets its own working directory, of links to this one's
        # files (stage files and samples are replaced, never changed in
        # place), and shares the compiled program, which never changes.
        # Graph breaks call back into their PyTorch nodes: the copy's nodes
        # are copies, and its program is compiled for them at its first call.
        copied = type(self).__new__(type(self))
        memo[id(self)] = copied
        work = _make_workdir(None, copied)
        _stagefiles.flush()
        for root, directories, files in os.walk(self.workdir):
            if root == str(self.workdir) and "shapes" in directories:
                directories.remove("shapes")  # other shapes' programs: compiled again
            target = work / pathlib.Path(root).relative_to(self.workdir)
            for name in directories:
                (target / name).mkdir()
            for name in files:
                _stagefiles.link(pathlib.Path(root) / name, target / name)
        state = {k: v for k, v in self.__dict__.items() if k not in self._not_copied}
        copied.__dict__.update(copy.deepcopy(state, memo))
        copied.__dict__.update(workdir=work, _function=None if self.host else self._function,
                               _profiling=None)
        return copied

    def _apply(self, fn: Any) -> "_Model":
        # Module.to / cuda / half / double / ... all apply `fn` to every
        # tensor; the program's tensors are in the compiled code, so see
        # what `fn` would make of a float32 CPU tensor.
        moved = fn(torch.zeros(1))
        if moved.device.type != "cpu" or moved.dtype != torch.float32:
            raise NotImplementedError(
                f"a qfx {type(self).__name__} runs compiled code on the CPU on float32 tensors; "
                f"it cannot move to device {moved.device} / dtype {moved.dtype}")
        return super()._apply(fn)


class PreparedModel(_Model):
    """The observed model `prepare_fx` returns (PyTorch's `ObservedGraphModule`).

    Calling it with inputs of the shapes of `example_inputs` (or other
    shapes of their ranks: see `_compile_shapes`) runs the observed model
    (observed.mlir, compiled for calibration at the first call): every observer sees the call's values, and the statistics
    accumulate in this process, as PyTorch's observers' do; `convert_fx`
    converts with the statistics of every call so far. What a call returns:

    - `outputs="jit"` (default): the observed model's outputs (the float
      model after qfx-fuse: batch norm folded into its convolution, as in
      PyTorch's prepared model).
    - `outputs=None`: None.
    - `outputs="torch"`: the PyTorch model's float outputs.

    With `record_samples` (prepare_fx's option) a call instead writes its
    inputs to the working directory (`.npy` files) and returns the float
    model's outputs (float.mlir, compiled at the first call; None for
    `outputs=None`, without compiling), and `convert_fx` calibrates on all
    the files, as `quant-run --calibrate` does.

    `num_samples` counts the calls observed (or recorded); `run_samples`
    runs the float model on many samples at once, observing nothing;
    `mlir("float")` / `mlir("observed")` give the IR.
    """

    # Replaced in a copy: the calibration's compiled programs and their lock.
    _not_copied = _Model._not_copied + ("_calibration", "_calibration_lock", "_shapes")

    def __init__(self, model: Any, workdir: pathlib.Path, signature: _Signature,
                 qconfig_option: str, backend_option: str, outputs: Optional[str],
                 host: _host.Host, record_samples: bool = False):
        super().__init__(workdir, signature, host)
        # The user's model, for outputs="torch"; not a submodule (the
        # prepared model's .train() / state_dict are not the user model's).
        self.__dict__["_model"] = model
        self.qconfig_mapping = qconfig_option
        self.backend_config = backend_option
        self.outputs = outputs
        self.record_samples = record_samples
        self.num_samples = 0
        # The observed model compiled for calibration (at the first call),
        # and the stage it is compiled from: observed.mlir, or in a copy the
        # statistics the original had gathered.
        self._calibration: Optional[_capi.Model] = None
        self._calibration_lock = threading.Lock()
        self._calibration_source = "observed.mlir"
        # Calls of other input shapes: the model exported and prepared at
        # them, its calibration observing into `_calibration`'s observers
        # (input shapes -> signature, compiled program), compiled at their
        # first call; prepare_fx gives the model the source to export.
        self._shapes = _Shapes(None)
        self._source: Optional[_Source] = None

    @property
    def outputs(self) -> Optional[str]:
        return self._outputs

    @outputs.setter
    def outputs(self, mode: Optional[str]) -> None:
        if mode not in _OUTPUT_MODES:
            raise ValueError(f"outputs must be 'jit', 'torch' or None, got {mode!r}")
        self._outputs = mode

    def _sample_dir(self, index: int) -> pathlib.Path:
        return self.workdir / "samples" / f"input{index}"

    def _observe(self, inputs: tuple, shapes: Optional[tuple]) -> Tuple[_Signature, list, list]:
        """Runs the observed model on one call's inputs, observing: the
        model of `example_inputs`' shapes, or for other `shapes` the model
        exported and prepared at them (compiled at their first call),
        observing into the same observers. Returns the signature, the
        inputs as arrays and the outputs."""
        with self._calibration_lock:
            if self._calibration is None:
                source = self._calibration_source
                with _step(f"compiling {source} for calibration"):
                    _stagefiles.wait(self.workdir / source)
                    calibration = _capi.Model(self.workdir / source, source, calibrate=True,
                                              host=self.host)
                _check_signature(calibration, source, self.signature)
                self._calibration = calibration
            signature, calibration = self.signature, self._calibration
            if shapes is not None:
                signature, calibration = self._shapes.get(self, inputs, shapes)
            arrays = signature.check_inputs(inputs, "prepared model")
            outputs = calibration(arrays)
            self.num_samples += 1
        return signature, arrays, outputs

    def _compile_shapes(self, inputs: tuple, shapes: tuple) -> Tuple[_Signature, Any,
                                                                     pathlib.Path]:
        """`_Shapes`' compile for a prepared model: the observed model at
        `shapes`, calibrating into `_calibration`'s observers."""
        directory = self.workdir / "shapes" / str(self._shapes.count)
        signature, host = _export_and_prepare(self._source, self, inputs, shapes, directory,
                                              self._shapes, stacklevel=7)
        self._shapes.count += 1
        try:
            with _step("compiling observed.mlir for calibration"):
                calibration = _capi.Model(directory / "observed.mlir", "observed.mlir",
                                          calibrate=True, host=host,
                                          calibrate_with=self._calibration)
            _check_signature(calibration, "observed.mlir", signature)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        return signature, calibration, directory

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        inputs = self.signature.bind(inputs, kwargs, "prepared model")
        as_torch = any(map(_is_torch_tensor, inputs))
        if self.record_samples:
            arrays, _ = self._run_one(inputs, "prepared model")
            for k, a in enumerate(arrays):
                directory = self._sample_dir(k)
                directory.mkdir(parents=True, exist_ok=True)
                np.save(directory / f"{self.num_samples:09d}.npy", a)
            self.num_samples += 1
            signature = self.signature
            outs = self._run(arrays) if self.outputs == "jit" else None
        else:
            shapes = _input_shapes(inputs, self.signature) if self._source else None
            if shapes == tuple(self.signature.inputs):
                shapes = None
            signature, arrays, outs = self._observe(inputs, shapes)
        if self.outputs is None:
            return None
        if self.outputs == "torch":
            with torch.no_grad():
                result = self._model(*[torch.from_numpy(a) for a in arrays])
            outs = [t.detach().numpy() for t in _as_tuple(result)]
        return signature.wrap_outputs(outs, as_torch)

    def _write_statistics(self, path: pathlib.Path) -> bool:
        """Writes the observed model with the statistics of the calls so far
        to `path`; False (nothing written) if no call was observed since
        the model was prepared, copied or converted."""
        with self._calibration_lock:
            if self._calibration is None:
                return False
            self._calibration.write_statistics(output_file=path)
            return True

    def _statistics_file(self) -> Optional[pathlib.Path]:
        """The observed model with the statistics of every call so far, as
        a file of the working directory (None if no call was observed); the
        compiled calibration is freed (convert_fx needs its memory), and the
        next call goes on from that file, compiling it."""
        path = self.workdir / "observing.mlir"
        with self._calibration_lock:
            if self._calibration is not None:
                self._calibration.write_statistics(output_file=path)
                self._calibration, self._calibration_source = None, path.name
                # (the other shapes' calibrations observed into it)
                self._shapes = _Shapes(self._source, self._compile_shapes,
                                       self._shapes.warned)
                shutil.rmtree(self.workdir / "shapes", ignore_errors=True)
            return path if self._calibration_source == path.name else None

    def __deepcopy__(self, memo: dict) -> "PreparedModel":
        # The copy continues from the statistics gathered so far.
        copied = super().__deepcopy__(memo)
        copied._calibration, copied._calibration_lock = None, threading.Lock()
        copied._shapes = _Shapes(copied._source, copied._compile_shapes)
        if self._write_statistics(copied.workdir / "observing.mlir"):
            copied._calibration_source = "observing.mlir"
        return copied

    def __getstate__(self) -> dict:
        raise TypeError("a qfx PreparedModel cannot be pickled (torch.save): its statistics "
                        "live in this process's compiled program (or its samples in files); "
                        "convert it first (QuantizedModel pickles), or copy.deepcopy it in "
                        "this process")

    def __repr__(self) -> str:
        return (f"PreparedModel(inputs={self.signature.inputs}, "
                f"qconfig_mapping={self.qconfig_mapping!r}, backend={self.backend_config!r}, "
                f"samples={self.num_samples}, workdir='{self.workdir}')")


@dataclass(frozen=True)
class LayerTime:
    """One row of a Profile: the layer (its location name, "(rest)" for
    the ops after the last one), the op making its value, its median time
    and its share of the profiled total."""

    layer: str
    op: str
    median_ms: float
    share: float


@dataclass(frozen=True)
class Profile:
    """`QuantizedModel.profile`'s result: `layers` in program order, the
    median total of the profiled runs and of the model without the timing
    hooks (`plain_ms`), over `runs` runs. str() is quant-run --profile's
    table."""

    layers: List[LayerTime]
    total_ms: float
    plain_ms: float
    runs: int

    def __str__(self) -> str:
        lines = [f"profile: {self.runs} runs: median {self.total_ms:.4f} ms profiled, "
                 f"{self.plain_ms:.4f} ms without the hooks",
                 f"{'median ms':>12}  {'share':>6}  {'op':22}  layer"]
        lines += [f"{t.median_ms:12.4f}  {100 * t.share:5.1f}%  {t.op:22}  {t.layer}"
                  for t in self.layers]
        return "\n".join(lines)


class ReferenceModel(_Model):
    """The model `convert_to_reference_fx` returns: PyTorch's reference
    quantized model.

    Calling it runs the reference program (reference.mlir, `qfx-convert`'s
    output), compiled in this process at the first call: each quantized op
    dequantizes its int8 inputs, computes in float32 and quantizes its
    output, where PyTorch's `convert_to_reference_fx` model has quantize /
    dequantize nodes; its outputs equal that model's within 1e-5 on the
    test models (float sums in another order, which can also move a value
    across a rounding boundary: then one output step; see
    docs/convert-and-lower.md). It takes the shapes of `example_inputs`
    only.

    - `float_ops`: its graph breaks (nodes running in PyTorch), as
      `QuantizedModel.float_ops` lists them.
    - `backend_config`, `mlir(stage)` ("float" to "reference"),
      `run_samples`, `graph_breaks`: as the quantized model's.

    A `torch.nn.Module` (see `_Model`); `copy.deepcopy` shares the compiled
    program. It does not pickle: convert the prepared model with
    `convert_fx` for one that does.
    """

    _run_stage = "reference"

    def __init__(self, workdir: pathlib.Path, signature: _Signature, backend_option: str,
                 float_ops: List[FloatOp], host: _host.Host):
        super().__init__(workdir, signature, host)
        self.backend_config = backend_option
        self.float_ops = list(float_ops)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        inputs = self.signature.bind(inputs, kwargs, "reference model")
        arrays, as_torch = self._run_one(inputs, "reference model")
        return self.signature.wrap_outputs(self._run(arrays), as_torch)

    def __getstate__(self) -> dict:
        raise TypeError("a qfx ReferenceModel cannot be pickled (torch.save); the model "
                        "convert_fx returns can")

    def __repr__(self) -> str:
        return (f"ReferenceModel(inputs={self.signature.inputs}, "
                f"backend={self.backend_config!r}, workdir='{self.workdir}')")


class QuantizedModel(_Model):
    """The model `convert_fx` returns (or `qfx.load` reads).

    Calling it runs the int8 TOSA program (int8.mlir, `qfx-lower`'s output):
    the float inputs are quantized once, convolutions and matmuls run on int8
    values with int32 accumulators, requantized as PyTorch's engine for the
    backend does, and the outputs are dequantized once. Its outputs are those of
    PyTorch's quantized (`convert_fx`) model. The program is compiled once
    in this process, as quant-run compiles it, or is the library `save`
    compiled ahead of time when `qfx.load` can use it (the same code: their
    outputs are equal bit for bit). The code is quant-run's lowering for
    this CPU: linalg loops compiled by LLVM, and qfx-codegen's kernels
    (AVX-512 VNNI or AArch64 SDOT) for Linear, Conv2d and depthwise Conv2d
    layers on CPUs that have them.

    Calls take inputs of the shapes of `example_inputs`, or of other
    shapes of the same ranks and dtypes, for which the model compiles
    another program at their first call (warning once, `RecompileWarning`;
    see `_Shapes`) if it has the PyTorch model it was converted from,
    unchanged (not after `load`, unpickling or `load_state_dict`);
    `run_samples` runs samples stacked along a new leading axis one after
    another through the function of `example_inputs`' shapes.

    - `float_ops`: the graph breaks (nodes running in PyTorch,
      `graph_breaks`), then the `FloatOp`s qfx-lower could not lower ("runs
      in float" remarks); they run as in the reference model, dequantize ->
      float op -> quantize. Empty when the whole model is int8.
    - `remarks`: qfx-lower's diagnostics as it printed them ("" if none).
    - `backend_config`: the backend the model was prepared and lowered with:
      a built-in table's name, or "backend_config.json" (a file in the
      working directory) for a BackendConfig object.
    - `mlir(stage)` returns the IR of "float", "observed", "calibrated",
      "reference" and "int8"; `save(dir)` writes them with a manifest that
      `qfx.load` reads.

    A `torch.nn.Module` (see `_Model`): `copy.deepcopy` shares the compiled
    program; pickles (`torch.save`) and `state_dict()["_extra_state"]`
    hold what `save` writes with only the int8 stage, as a zip archive (the
    library is compiled at the first); unpickling and `load_state_dict`
    read it as `qfx.load` reads a directory.
    """

    _run_stage = "int8"

    def __init__(self, workdir: pathlib.Path, signature: _Signature, backend_option: str,
                 remarks: str, float_ops: List[FloatOp], compiled: Optional[dict] = None,
                 library: Any = None, host: Optional[_host.Host] = None):
        """`compiled`: the record of a saved libmodel.so; `library`: the int8
        program (the loaded library, or int8.mlir compiled in-process);
        without it, int8.mlir is compiled here. `host`: the graph breaks."""
        super().__init__(workdir, signature, host if host is not None else _host.Host([]))
        self.backend_config = backend_option
        self._convert = _ConvertOptions(backend_option)
        self.remarks = remarks
        self.float_ops = list(float_ops)
        self._compile_record = dict(compiled) if compiled else None
        self._function = (library if library is not None
                          else _jit(workdir, "int8", signature, self.host))
        self._profiling: Any = None
        # Programs for other input shapes; convert_fx gives the model its
        # source (a loaded model has none: it cannot export again).
        self._shapes = _Shapes(None)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        inputs = self.signature.bind(inputs, kwargs, "quantized model")
        shapes = _input_shapes(inputs, self.signature) if self._shapes.source else None
        if shapes is None or shapes == tuple(self.signature.inputs):
            arrays, as_torch = self._run_one(inputs, "quantized model")
            return self.signature.wrap_outputs(self._run(arrays), as_torch)
        signature, function = self._shapes.get(self, inputs, shapes)
        arrays = signature.check_inputs(inputs, "quantized model")
        return signature.wrap_outputs(function(arrays), any(map(_is_torch_tensor, inputs)))

    def profile(self, *inputs: Any, runs: int = 20) -> "Profile":
        """Times the int8 program per layer on `inputs` (`quant-run
        --profile`): `runs` runs after three warm-up runs, each layer's
        median (the ops from the previous named value to its own), in
        program order, next to the median of the model without the timing
        hooks. The profiling program is compiled at the first call."""
        arrays, _ = self._run_one(inputs, "profile")
        if not isinstance(runs, int) or runs < 1:
            raise ValueError(f"profile: runs must be a positive int, got {runs!r}")
        if self._profiling is None:
            self._profiling = _capi.Model(self.mlir("int8"), "int8.mlir", profile=True,
                                          host=self.host)
        import time

        times: dict = {}
        totals, plain = [], []
        for run in range(runs + 3):
            self._profiling(arrays)
            start = time.perf_counter()
            self._run(arrays)
            seconds = time.perf_counter() - start
            if run < 3:  # warm-up
                continue
            plain.append(seconds)
            totals.append(sum(t for _, _, t in self._profiling.layer_times))
            for name, op, t in self._profiling.layer_times:
                times.setdefault(name, (op, []))[1].append(t)
        total = float(np.median(totals))
        layers = [LayerTime(name, op, 1000 * float(np.median(ts)),
                            float(np.median(ts)) / total if total else 0.0)
                  for name, (op, ts) in times.items()]
        return Profile(layers, 1000 * total, 1000 * float(np.median(plain)), runs)

    def save(self, directory: Any) -> None:
        """Writes float.mlir, observed.mlir (not for a model PyTorch
        calibrated: it has none), calibrated.mlir, reference.mlir,
        int8.mlir, the int8 program compiled ahead of time for this machine
        (libmodel.so and its header model.h, compiled at the first save),
        backend_config.json (for a BackendConfig object) and
        qfx_model.json (input and output shapes and dtypes, the backend,
        qfx-lower's remarks, what the library was compiled from and for) to
        `directory`, created if needed. A model with graph breaks has no
        library (its program calls back into Python): its breaks' nodes are
        pickled to graph_breaks.pt (torch.save)."""
        self._write(pathlib.Path(directory),
                    [s for s in STAGES if (self.workdir / f"{s}.mlir").is_file()])

    def _write(self, directory: pathlib.Path, stages: Sequence[str]) -> None:
        """`save` of the stages `stages`."""
        directory.mkdir(parents=True, exist_ok=True)
        # A program with graph breaks calls back into Python: no library
        # ahead of time; the breaks' nodes are pickled (torch.save).
        if self._compile_record is None and not self.host:
            self._compile_record = _compile(self.workdir)
        for stage in stages:
            shutil.copyfile(self._stage_path(stage), directory / f"{stage}.mlir")
        for name in (_compiled.LIBRARY, _compiled.HEADER) if not self.host else ():
            shutil.copyfile(self.workdir / name, directory / name)
        if self.backend_config == _BACKEND_FILE:
            shutil.copyfile(self.workdir / _BACKEND_FILE, directory / _BACKEND_FILE)
        manifest = {"format": _FORMAT, "version": _VERSION,
                    "stages": {s: f"{s}.mlir" for s in stages},
                    "backend": self.backend_config}
        manifest.update(self.signature.to_dict())
        manifest["remarks"] = self.remarks
        manifest["float_ops"] = [asdict(op) for op in self.float_ops]
        manifest["compiled"] = self._compile_record
        if self.host:
            _host.save(self.host, directory / _GRAPH_BREAKS)
            manifest["graph_breaks"] = _GRAPH_BREAKS
        (directory / _MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")

    # ----- copies: deepcopy, pickle (torch.save), state_dict ---------------

    def _serialized(self) -> bytes:
        """The model as pickles and state_dict hold it: what `save` writes
        with only the int8 stage, as an uncompressed zip archive."""
        buffer = io.BytesIO()
        with tempfile.TemporaryDirectory(prefix="qfx-") as tmp:
            self._write(pathlib.Path(tmp), _SERIALIZED_STAGES)
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
                for path in sorted(pathlib.Path(tmp).iterdir()):
                    archive.write(path, path.name)
        return buffer.getvalue()

    def _load_serialized(self, data: bytes, what: str,
                         signature: Optional[_Signature] = None) -> None:
        """Makes this model the one `_serialized` wrote into `data` (as
        `load` reads a directory); with `signature`, ValueError unless the
        serialized model has it. Hooks and the training flag stay."""
        module_state = {k: v for k, v in self.__dict__.items() if k in _MODULE_KEYS}
        old_workdir = self.__dict__.get("workdir")
        with tempfile.TemporaryDirectory(prefix="qfx-") as tmp:
            try:
                with zipfile.ZipFile(io.BytesIO(data)) as archive:
                    for info in archive.infolist():
                        name = info.filename
                        if "/" in name or "\\" in name or name in ("", ".", "..") \
                                or info.is_dir():
                            raise ValueError(f"member {name!r} is not a file name")
                        (pathlib.Path(tmp) / name).write_bytes(archive.read(info))
            except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as error:
                raise ValueError(f"{what}: not a serialized qfx QuantizedModel (a zip archive "
                                 f"of its stages and manifest): {error}") from None
            _load_into(self, pathlib.Path(tmp), None, signature)
        self.__dict__.update(module_state)
        if old_workdir is not None and old_workdir != self.workdir:
            shutil.rmtree(old_workdir, ignore_errors=True)

    def __getstate__(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k in _MODULE_KEYS}
        state["_qfx_serialized"] = self._serialized()
        state["_qfx_preserved"] = {name: getattr(self, name) for name in self._preserved}
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        data = state.pop("_qfx_serialized", None)
        if not isinstance(data, bytes):
            raise ValueError("unpickling a QuantizedModel: the pickle holds no serialized qfx "
                             "model")
        preserved = state.pop("_qfx_preserved", {})
        self._load_serialized(data, "unpickling a QuantizedModel")
        self.__dict__.update({k: v for k, v in state.items() if k in _MODULE_KEYS})
        if not isinstance(preserved, dict):
            raise ValueError("unpickling a QuantizedModel: its preserved attributes are not a dict")
        _preserve(self, preserved)

    def get_extra_state(self) -> torch.Tensor:
        """`state_dict()`'s entry `_extra_state`: the whole model (its
        int8 program with the weights and qparams in it, the compiled
        library, the manifest) as a uint8 tensor, the archive a pickle
        holds. Not yet PyTorch's per-layer `weight` / `scale` /
        `zero_point` entries."""
        return torch.frombuffer(bytearray(self._serialized()), dtype=torch.uint8)

    def set_extra_state(self, state: Any) -> None:
        """`load_state_dict`: this model becomes the one `state` (another
        QuantizedModel's `_extra_state`) holds, which must take and return
        tensors of this model's shapes (ValueError otherwise)."""
        if not isinstance(state, torch.Tensor) or state.dtype != torch.uint8 or state.dim() != 1:
            raise TypeError("load_state_dict: _extra_state of a QuantizedModel is a 1-d uint8 "
                            f"tensor, got {type(state).__name__}"
                            + (f" {state.dtype} of shape {list(state.shape)}"
                               if isinstance(state, torch.Tensor) else ""))
        self._load_serialized(state.contiguous().numpy().tobytes(), "load_state_dict",
                              self.signature)

    def __repr__(self) -> str:
        return (f"QuantizedModel(inputs={self.signature.inputs}, "
                f"backend={self.backend_config!r}, float_ops={len(self.float_ops)}, "
                f"workdir='{self.workdir}')")


# ----- the API ---------------------------------------------------------------


def _check_example_inputs(example_inputs: Any, what: str) -> tuple:
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    for index, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.int64,
                                                               torch.int32):
            raise TypeError(f"{what}: example_inputs[{index}]: expected a float32 (or int64 / "
                            "int32 index) torch.Tensor, got "
                            + (f"a tensor of {x.dtype}" if isinstance(x, torch.Tensor)
                               else type(x).__name__))
    return example_inputs


def _input_names(model: Any, count: int) -> List[Optional[str]]:
    """The names `model`'s forward takes its first `count` inputs by (as
    PyTorch's traced model does, its placeholders'); None for an input
    that goes by position only (a positional-only or *args parameter)."""
    import inspect

    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        return [None] * count
    names: List[Optional[str]] = []
    for parameter in parameters:
        if len(names) == count or parameter.kind == parameter.VAR_POSITIONAL:
            break
        names.append(parameter.name if parameter.kind == parameter.POSITIONAL_OR_KEYWORD
                     else None)
    return names + [None] * (count - len(names))


def _signature(example_inputs: tuple, result: Any, index_bounds: list, what: str,
               input_names: List[Optional[str]]) -> _Signature:
    """The shapes and dtypes of a model's inputs (`index_bounds` from the
    exporter), their names, and the shapes of its outputs `result`."""
    results: List[Any] = []

    def structure(value: Any) -> Any:
        if isinstance(value, (tuple, list)):
            return [structure(v) for v in value]
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"dict": [[k, structure(v)] for k, v in value.items()]}
        if not isinstance(value, torch.Tensor) or value.dtype != torch.float32:
            raise TypeError(f"{what}: the model must return a float32 tensor or (nested) "
                            "tuples, lists or dicts with string keys of them")
        results.append(value)
        return len(results) - 1

    nesting = structure(result)
    return _Signature([tuple(x.shape) for x in example_inputs],
                      [tuple(r.shape) for r in results], nesting,
                      input_dtypes=[str(x.dtype).replace("torch.", "") for x in example_inputs],
                      index_bounds=index_bounds, input_names=input_names)


def _writes_stage_files(function: Any) -> Any:
    """`function`, returning or raising once the stage files it wrote (on
    threads, see _stagefiles) are on disk."""
    import functools

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            result = function(*args, **kwargs)
        except BaseException:
            _stagefiles.flush(raise_errors=False)  # the function's error comes first
            raise
        _stagefiles.flush()
        return result

    return wrapper


def _custom_config(config: Any, cls: Any, what: str) -> Any:
    """`config` as PyTorch's custom config class `cls` (given as one or as
    its dict); TypeError naming `what` otherwise."""
    if isinstance(config, dict):
        config = cls.from_dict(config)
    if not isinstance(config, cls):
        raise TypeError(f"{what} must be a {cls.__name__} or its dict, got "
                        f"{type(config).__name__}")
    return config


def _prepare_custom_config(prepare_custom_config: Any) -> Tuple[frozenset, NonTraceable,
                                                                Tuple[str, ...]]:
    """What qfx implements of `prepare_custom_config` (a PyTorch
    PrepareCustomConfig or its dict): the float module types it maps to an
    observed custom module, the non-traceable module names and classes, and
    the names of the preserved attributes.
    qfx knows one custom module mapping, PyTorch's own for attention:
    nn.MultiheadAttention to torch.ao.nn.quantizable.MultiheadAttention
    (static). Anything else raises NotImplementedError naming it."""
    if prepare_custom_config is None:
        return frozenset(), NonTraceable(), ()
    from torch.ao.quantization.fx.custom_config import PrepareCustomConfig
    from torch.ao.quantization.quant_type import QuantType

    config = _custom_config(prepare_custom_config, PrepareCustomConfig,
                            "prepare_fx: prepare_custom_config")
    unsupported = [name for name in ("standalone_module_names", "standalone_module_classes",
                                     "input_quantized_indexes", "output_quantized_indexes")
                   if getattr(config, name)]
    if unsupported:
        raise NotImplementedError("prepare_fx: prepare_custom_config: qfx does not implement "
                                  + ", ".join(unsupported) + " (only non-traceable modules, "
                                  "preserved attributes and the float to observed mapping of "
                                  "nn.MultiheadAttention)")
    swaps = set()
    quantizable = (torch.nn.MultiheadAttention, torch.ao.nn.quantizable.MultiheadAttention)
    for quant_type, mapping in config.float_to_observed_mapping.items():
        for float_class, observed_class in mapping.items():
            if (float_class, observed_class) != quantizable or quant_type != QuantType.STATIC:
                raise NotImplementedError(
                    f"prepare_fx: prepare_custom_config maps {float_class.__name__} to "
                    f"{observed_class.__module__}.{observed_class.__name__} "
                    f"({quant_type.name.lower()}); the one custom module qfx implements is "
                    "nn.MultiheadAttention to torch.ao.nn.quantizable.MultiheadAttention "
                    "(static)")
            swaps.add(float_class)
    return (frozenset(swaps), NonTraceable(frozenset(config.non_traceable_module_names),
                                           frozenset(config.non_traceable_module_classes)),
            tuple(config.preserved_attributes))


def _check_convert_custom_config(convert_custom_config: Any) -> Tuple[str, ...]:
    """`convert_custom_config` (a PyTorch ConvertCustomConfig or its dict)
    may map the quantizable MultiheadAttention to PyTorch's quantized one,
    as PyTorch's convert_fx needs (qfx needs nothing there), and name
    preserved attributes, which it returns. Anything else raises
    NotImplementedError naming it."""
    if convert_custom_config is None:
        return ()
    from torch.ao.quantization.fx.custom_config import ConvertCustomConfig

    config = _custom_config(convert_custom_config, ConvertCustomConfig,
                            "convert_fx: convert_custom_config")
    quantized = (torch.ao.nn.quantizable.MultiheadAttention,
                 torch.ao.nn.quantized.MultiheadAttention)
    for mapping in config.observed_to_quantized_mapping.values():
        for observed_class, quantized_class in mapping.items():
            if (observed_class, quantized_class) != quantized:
                raise NotImplementedError(
                    f"convert_fx: convert_custom_config maps {observed_class.__name__} to "
                    f"{quantized_class.__module__}.{quantized_class.__name__}; the one custom "
                    "module qfx implements is torch.ao.nn.quantizable.MultiheadAttention")
    return tuple(config.preserved_attributes)


def _preserved_values(source: Any, names: Sequence[str]) -> dict:
    """PyTorch's preserved attributes: `source`'s attributes `names`, the
    same objects (AttributeError for one it lacks, as PyTorch's)."""
    return {name: getattr(source, name) for name in names}


def _preserve(target: "_Model", values: dict) -> None:
    """Sets the preserved attributes `values` on `target`, which remembers
    their names (a QuantizedModel pickles them)."""
    for name, value in values.items():
        setattr(target, name, value)
    target._preserved = tuple(dict.fromkeys(target._preserved + tuple(values)))


@_writes_stage_files
def prepare_fx(model: Any, qconfig_mapping: Any, example_inputs: Any,
               prepare_custom_config: Any = None, backend_config: Any = None, *,
               outputs: Optional[str] = "jit", workdir: Any = None,
               record_samples: bool = False,
               _equalization_config: Any = None,
               _follow_engine: bool = False, strict: bool = False) -> PreparedModel:
    """qfx's `torch.ao.quantization.quantize_fx.prepare_fx` (post-training).

    - `model`: a torch.nn.Module in eval mode (ValueError otherwise); it is
      exported with `qfx.export_tosa`, which raises `qfx.ExportError` for a
      module or function it does not support.
    - `qconfig_mapping`: a `qfx.QConfigMapping`, a torch QConfigMapping
      (converted with `qfx.from_torch`), its dict (qfx's JSON form, or
      PyTorch's qconfig dict of QConfig objects: `{"": default_qconfig}`,
      `QConfigMapping.to_dict()`), or a preset such as "default:x86".
    - `example_inputs`: a tuple of float32 tensors; they fix the shapes every
      call takes.
    - `prepare_custom_config`: a torch PrepareCustomConfig or its dict.
      qfx implements PyTorch's own custom module for attention:
      `set_float_to_observed_mapping(nn.MultiheadAttention,
      torch.ao.nn.quantizable.MultiheadAttention)` quantizes the attention's
      input and output projections (the Linears linear_Q, linear_K,
      linear_V and out_proj, with the module's qconfig), the attention
      between them staying float. PyTorch 1.13 implements it in eager mode
      only, and drops `batch_first` there; qfx keeps it (see
      docs/python.md). Non-traceable module names and classes
      (`set_non_traceable_module_names` / `_classes`) are leaves of the
      trace, as in PyTorch's: one qfx does not export runs in PyTorch (a
      graph break, strict or not). Other entries raise
      NotImplementedError.
    - `backend_config`: a `qfx.BackendConfig`, a torch BackendConfig, or a
      built-in table's name; default "onednn", the table of PyTorch's
      native.py, which PyTorch's prepare_fx defaults to. Without it the
      numerics (requantization, dynamic range) follow
      `torch.backends.quantized.engine` as PyTorch's kernels do, read here
      (the module's `qfx.engine`); with it, that table's engine.
    - `outputs`: what calls of the prepared model return ("jit", None or
      "torch", see `PreparedModel`).
    - `record_samples`: calls write their inputs to the working directory
      and `convert_fx` calibrates on the files, instead of each call
      observing in this process (see `PreparedModel`).
    - `workdir`: where the stage files and samples go; default a temporary
      directory removed with the model.
    - `strict`: a node the exporter cannot express (an unknown function,
      method or module, arguments it does not support) raises
      `qfx.ExportError`. Without it (the default) such a node runs in
      PyTorch between the compiled parts of the model (a graph break),
      in float on dequantized inputs as in PyTorch's reference model;
      `graph_breaks` lists them with the reason, and `convert_fx` warns
      (`FloatOpWarning`).
    - `_equalization_config` (PyTorch's input-weight equalization) is not
      implemented: given, it raises NotImplementedError (docs/accuracy.md
      says what it does on real models).

    Runs `qfx-fuse{backend=B}` and `qfx-prepare{...}` in this process; a
    failing pass raises `qfx.ToolError` with its diagnostics.
    """
    if _equalization_config is not None:
        raise NotImplementedError(
            "prepare_fx: qfx does not implement PyTorch 1.13's input-weight equalization "
            "(_equalization_config); on the Fashion-MNIST benchmark PyTorch's takes a residual "
            "CNN from 90.45 % to 52.0 % and raises on depthwise convolutions and 3-D Linear "
            "inputs (docs/accuracy.md); qfx.auto_quantize is qfx's accuracy tool")
    if not isinstance(model, torch.nn.Module) or isinstance(model, _Model):
        raise TypeError(f"prepare_fx expects a PyTorch torch.nn.Module, got "
                        f"{type(model).__name__}" + (" (a qfx model already)"
                                                     if isinstance(model, _Model) else ""))
    training = [name or "the model" for name, m in model.named_modules() if m.training]
    if training:
        raise ValueError("prepare_fx is post-training quantization: call model.eval() first ("
                         + ", ".join(training[:5]) + (", ..." if len(training) > 5 else "")
                         + " in training mode)")
    example_inputs = _check_example_inputs(example_inputs, "prepare_fx")
    if outputs not in _OUTPUT_MODES:
        raise ValueError(f"outputs must be 'jit', 'torch' or None, got {outputs!r}")

    quantizable, non_traceable, preserved = _prepare_custom_config(prepare_custom_config)
    preserved = _preserved_values(model, preserved)  # AttributeError before anything else
    fingerprint = _fingerprint(model)
    with _step("exporting the model"):
        float_mlir, result, index_bounds, host = export_with_outputs(
            model, example_inputs, quantizable=quantizable, strict=strict,
            non_traceable=non_traceable)
    signature = _signature(example_inputs, result, index_bounds, "prepare_fx",
                           _input_names(model, len(example_inputs)))

    prepared = PreparedModel.__new__(PreparedModel)
    directory = _make_workdir(workdir, prepared)
    qconfig_option = _write_qconfig_mapping(qconfig_mapping, directory)
    backend_option = _write_backend_config(backend_config, directory)
    shutil.rmtree(directory / "samples", ignore_errors=True)  # a reused workdir's old samples
    engine = _torch_engine() if backend_config is None or _follow_engine else None
    with _step("fusing and preparing (qfx-fuse, qfx-prepare)"):
        _pipeline(directory, float_mlir, "observed.mlir",
                  _prepare_passes(directory, qconfig_option, backend_option, engine))
    PreparedModel.__init__(prepared, model, directory, signature, qconfig_option,
                           backend_option, outputs, host, record_samples)
    prepared._source = _Source(model, quantizable, non_traceable, strict, qconfig_option,
                               backend_option, engine, False, fingerprint)
    prepared._shapes = _Shapes(prepared._source, prepared._compile_shapes)
    _preserve(prepared, preserved)
    return prepared


def _torch_backend_config(backend_config: Any, what: str) -> Any:
    """PyTorch's BackendConfig for a function that runs PyTorch's own flow:
    PyTorch's object as it is, a table's name as PyTorch's table, None as
    None; qfx's BackendConfig is TypeError."""
    from torch.ao.quantization import backend_config as torch_backends
    from torch.ao.quantization.backend_config.x86 import get_x86_backend_config

    if isinstance(backend_config, str):
        tables = {"x86": get_x86_backend_config,
                  "fbgemm": torch_backends.get_fbgemm_backend_config,
                  "qnnpack": torch_backends.get_qnnpack_backend_config,
                  "onednn": torch_backends.get_native_backend_config,
                  "native": torch_backends.get_native_backend_config}
        if backend_config not in tables:
            raise ValueError(f"{what}: backend {backend_config!r}: expected one of "
                             + ", ".join(tables))
        return tables[backend_config]()
    if isinstance(backend_config, _config.BackendConfig):
        raise TypeError(f"{what} runs PyTorch's flow: give it PyTorch's BackendConfig or a "
                        "table's name, not qfx's")
    return backend_config


def prepare_qat_fx(model: Any, qconfig_mapping: Any, example_inputs: Any,
                   prepare_custom_config: Any = None, backend_config: Any = None) -> Any:
    """PyTorch's `prepare_qat_fx`: quantization-aware training runs in
    PyTorch, so the result is PyTorch's prepared GraphModule with its fake
    quantizers (train it as usual), which `qfx.convert_fx` converts, the
    shapes of `example_inputs` kept with it (a PyTorch-prepared model needs
    them otherwise). `qconfig_mapping` is PyTorch's (its fake-quantizing
    QConfigs: `torch.ao.quantization.get_default_qat_qconfig_mapping`) or
    its dict; `backend_config` PyTorch's or a table's name."""
    from torch.ao.quantization.quantize_fx import prepare_qat_fx as torch_prepare_qat_fx

    if isinstance(qconfig_mapping, (str, _config.QConfigMapping)):
        raise TypeError("prepare_qat_fx trains in PyTorch: give it PyTorch's QConfigMapping with "
                        "fake quantizers (torch.ao.quantization.get_default_qat_qconfig_mapping), "
                        f"not {qconfig_mapping!r}")
    example_inputs = _check_example_inputs(example_inputs, "prepare_qat_fx")
    prepared = torch_prepare_qat_fx(model, qconfig_mapping, example_inputs, prepare_custom_config,
                                    _torch_backend_config(backend_config, "prepare_qat_fx"))
    prepared._qfx_example_inputs = tuple(x.detach().clone() for x in example_inputs)
    # (kept by the GraphModule's deepcopy, which keeps only these names)
    prepared.preserved_attr_names = set(prepared.preserved_attr_names) | {"_qfx_example_inputs"}
    return prepared


def get_default_qat_qconfig_mapping(backend: str = "x86", version: int = 1) -> Any:
    """PyTorch's `get_default_qat_qconfig_mapping(backend, version)`, as
    PyTorch's QConfigMapping: quantization-aware training runs in PyTorch
    (`prepare_qat_fx`), and its fake quantizers are PyTorch's."""
    from torch.ao.quantization import get_default_qat_qconfig_mapping as torch_mapping

    return torch_mapping(backend, version)


def fuse_fx(model: Any, fuse_custom_config: Any = None, backend_config: Any = None) -> Any:
    """PyTorch's `fuse_fx`, for scripts that fuse before `prepare_fx`: the
    result is PyTorch's fused GraphModule (Conv2d + BatchNorm2d + ReLU as
    `ConvReLU2d` with the batch norm folded, ...), in the mode `model` was
    in (PyTorch builds the fused modules in training mode), which
    `qfx.prepare_fx` takes as it takes the unfused model; qfx's own fusion
    happens in `prepare_fx` either way. `backend_config` is PyTorch's
    BackendConfig or the name of one of its tables ("x86", "fbgemm",
    "qnnpack", "onednn"/"native"); qfx's BackendConfig is not PyTorch's
    (TypeError)."""
    from torch.ao.quantization.quantize_fx import fuse_fx as torch_fuse_fx

    fused = torch_fuse_fx(model, fuse_custom_config,
                          _torch_backend_config(backend_config, "fuse_fx"))
    return fused.train(model.training)


@_writes_stage_files
def convert_fx(prepared: Any, example_inputs: Any = None, backend_config: Any = None,
               convert_custom_config: Any = None, *, strict: bool = False,
               qconfig_mapping: Any = None, _remove_qconfig: bool = True) -> QuantizedModel:
    """qfx's `torch.ao.quantization.quantize_fx.convert_fx`, of a model
    `qfx.prepare_fx` prepared or of one PyTorch's `prepare_fx` prepared.

    A `qfx.prepare_fx` model (`example_inputs` and `backend_config` must be
    None: it has both) is calibrated on every sample it has recorded, as
    `quant-run --calibrate` calibrates (calibrated.mlir; progress on a
    terminal's stderr), converted with `qfx-convert` (reference.mlir),
    lowered with `qfx-lower{backend=B}` (int8.mlir), B being the backend
    given to `prepare_fx`, and compiled, all in this process. The prepared
    model stays usable: more calls record more samples, and converting again
    calibrates from scratch on all of them. A model that observes no
    activation (dynamic or weight-only quantization) converts without
    samples; ValueError if one that does has none.

    A PyTorch GraphModule from `torch.ao.quantization.quantize_fx.prepare_fx`,
    in eval mode and calibrated, quantizes with PyTorch's calibration instead
    of qfx's: it is exported with its observers (`example_inputs` fix the
    shapes, as for `prepare_fx`; the observers do not see them), prepared by
    qfx with the QConfigMapping it was prepared with and `backend_config`
    (default "onednn", as PyTorch's), and `qfx-import-statistics` gives each of
    qfx's observers the statistics of PyTorch's observer of the same value
    (calibrated.mlir); converting, lowering and compiling follow as above.
    Its int8 outputs are then those of PyTorch's own `convert_fx` of that
    model (see docs/python.md). Where qfx observes a value PyTorch's model
    does not, `qfx.ToolError` names it. The PyTorch model is not changed.

    A GraphModule from `prepare_qat_fx`, trained and in eval mode, converts
    the same way, as PyTorch's `convert_fx` converts it: each QAT module
    becomes its float module (`to_float()`: batch norm folded with its
    running statistics), its weight fake quantizer observes the float weight
    once more and gives the weight's qparams, and the activation fake
    quantizers' observers give theirs. The int8 program is PyTorch's.
    `strict` is `prepare_fx`'s, for the export of such a model: without
    it, nodes qfx cannot express run in PyTorch (graph breaks).

    `qconfig_mapping` (qfx's or PyTorch's) is PyTorch's convert-time
    QConfigMapping: the ops it sets to None stay float
    (`qfx-apply-convert-mapping`); it may only turn QConfigs of the prepare
    mapping to None (`qfx.ToolError` otherwise). `_remove_qconfig` changes
    nothing: qfx's model carries no `qconfig` attributes.

    The result runs the int8 TOSA program (see `QuantizedModel`). Patterns
    qfx-lower cannot lower run in float: they are listed in
    `QuantizedModel.float_ops` and reported with a `FloatOpWarning`.
    `qfx.ToolError` with the tool's diagnostics if a step fails.

    `convert_custom_config` (a torch ConvertCustomConfig or its dict) may
    map torch.ao.nn.quantizable.MultiheadAttention to
    torch.ao.nn.quantized.MultiheadAttention, as PyTorch's needs; qfx
    converts what prepare_fx's `prepare_custom_config` made without it.
    Other entries raise NotImplementedError.
    """
    return _convert(QuantizedModel, "convert_fx", prepared, example_inputs, backend_config,
                    convert_custom_config, strict, qconfig_mapping)


def convert_to_reference_fx(prepared: Any, example_inputs: Any = None, backend_config: Any = None,
                            convert_custom_config: Any = None, *, strict: bool = False,
                            qconfig_mapping: Any = None,
                            _remove_qconfig: bool = True) -> "ReferenceModel":
    """qfx's `torch.ao.quantization.quantize_fx.convert_to_reference_fx`:
    `convert_fx` up to the reference model (reference.mlir, `qfx-convert`'s
    output: each quantized op dequantizes its int8 inputs, computes in float
    and quantizes its output, where PyTorch's reference model has quantize /
    dequantize nodes), which the returned `ReferenceModel` runs compiled in
    this process. The arguments are `convert_fx`'s."""
    return _convert(ReferenceModel, "convert_to_reference_fx", prepared, example_inputs,
                    backend_config, convert_custom_config, strict, qconfig_mapping)


def _convert(model_class: type, what: str, prepared: Any, example_inputs: Any,
             backend_config: Any, convert_custom_config: Any, strict: bool,
             qconfig_mapping: Any) -> Any:
    """convert_fx (`model_class` QuantizedModel) or convert_to_reference_fx
    (ReferenceModel), named `what` in errors."""
    preserved = _preserved_values(prepared, _check_convert_custom_config(convert_custom_config))
    if _is_torch_prepared(prepared):
        quantized = _convert_torch_prepared(model_class, what, prepared, example_inputs,
                                            backend_config, strict, qconfig_mapping)
        _preserve(quantized, preserved)
        _warn_float_ops(quantized.float_ops, stacklevel=3)
        return quantized
    if not isinstance(prepared, PreparedModel):
        raise TypeError(f"{what} expects the model qfx.prepare_fx or PyTorch's prepare_fx "
                        f"returned, got {type(prepared).__name__}")
    if strict:
        raise ValueError(f"{what}: strict is for a model PyTorch prepared; give it to "
                         "qfx.prepare_fx")
    if example_inputs is not None or backend_config is not None:
        raise ValueError(f"{what}: example_inputs and backend_config are for a model PyTorch "
                         "prepared; qfx.prepare_fx's model has both already")
    quantized = model_class.__new__(model_class)
    directory = _make_workdir(None, quantized)
    for stage in ("float", "observed"):
        _stagefiles.link(prepared.workdir / f"{stage}.mlir", directory / f"{stage}.mlir")
    observed_nothing = (prepared._calibration is not None
                        and prepared._calibration.num_observers == 0)
    if prepared.record_samples and prepared.num_samples:
        sources = [str(prepared._sample_dir(k)) for k in range(len(prepared.signature.inputs))]
        _capi.calibrate(directory / "observed.mlir", sources, source_name="observed.mlir",
                        progress=_progress_printer(), host=prepared.host,
                        output_file=directory / "calibrated.mlir")
    elif prepared.num_samples and (statistics := prepared._statistics_file()):
        _stagefiles.link(statistics, directory / "calibrated.mlir")
    else:
        # Dynamic and weight-only quantization observe no activation: the
        # observed model converts as it is (qfx-convert fails on an
        # observer that needed data).
        _stagefiles.link(directory / "observed.mlir", directory / "calibrated.mlir")
    backend_option = prepared.backend_config
    for option in (backend_option, prepared.qconfig_mapping):  # files, for other shapes
        if (prepared.workdir / option).is_file():
            shutil.copyfile(prepared.workdir / option, directory / option)
    convert = _convert_options(qconfig_mapping, prepared.qconfig_mapping, backend_option,
                               directory, what, fake_quantizers=False)
    try:
        _finish_conversion(quantized, directory, prepared.signature, convert, prepared.host)
    except ToolError as error:
        if prepared.num_samples or "has no statistics" not in error.diagnostics:
            raise
        raise ValueError(f"{what}: no calibration samples, and the model observes "
                         "activations; call the prepared model on calibration data first:\n"
                         f"{error.diagnostics}") from None
    if isinstance(quantized, QuantizedModel):
        quantized._shapes = _Shapes(prepared._source)
    _preserve(quantized, preserved)
    if observed_nothing:
        warnings.warn(f"{what}: the QConfigMapping and BackendConfig observe nothing in this "
                      "model, so nothing is quantized: the converted model runs the float "
                      f"model (as PyTorch's {what} returns it)", FloatOpWarning, stacklevel=3)
    _warn_float_ops(quantized.float_ops, stacklevel=3)
    return quantized


def quantize_dynamic(model: Any, qconfig_spec: Any = None, dtype: Any = None, mapping: Any = None,
                     inplace: bool = False, *, example_inputs: Any) -> QuantizedModel:
    """qfx's `torch.ao.quantization.quantize_dynamic`: weights quantized
    ahead of time, activations on each call.

    - `qconfig_spec`: a set of module types and/or qualified module names to
      quantize with `dtype`, or a dict from those to QConfigs (torch's);
      default, as PyTorch's: Linear, LSTM, GRU, LSTMCell, RNNCell, GRUCell.
    - `dtype`: `torch.qint8` (the default; `torch.float16` is refused: PyTorch
      1.13 here has no fp16 dynamic Linear to check qfx's against).
    - `example_inputs` (keyword, required, unlike PyTorch's): qfx compiles
      for the shapes of these inputs.
    - `mapping` (eager module swaps) and `inplace` have no qfx meaning:
      given, they raise ValueError. The PyTorch model is never changed.

    It is `convert_fx(prepare_fx(model, mapping, example_inputs))` with the
    QConfigMapping the spec stands for (no calibration: dynamic patterns
    need none), over PyTorch's native table plus the row for nn.GRU that
    eager mode's dynamic mapping has and the native table lacks (so
    `qfx.prepare_fx` leaves a GRU float, as PyTorch's FX does). LSTM and GRU
    (unidirectional), LSTMCell, GRUCell and RNNCell quantize each projection
    as PyTorch's dynamic modules.
    """
    from torch.ao.quantization import QConfigMapping, default_dynamic_qconfig

    if mapping is not None:
        raise ValueError("quantize_dynamic: `mapping` (which quantized module replaces which) "
                         "has no meaning for qfx, which compiles the whole model")
    if inplace:
        raise ValueError("quantize_dynamic: qfx returns a compiled model and never changes the "
                         "PyTorch model; inplace=True is not supported")
    if dtype not in (None, torch.qint8):
        raise ValueError(f"quantize_dynamic: dtype must be torch.qint8, got {dtype}")
    nn = torch.nn
    if qconfig_spec is None:
        qconfig_spec = {nn.Linear, nn.LSTM, nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell}
    if isinstance(qconfig_spec, (set, frozenset, list, tuple)):
        qconfig_spec = {key: default_dynamic_qconfig for key in qconfig_spec}
    if not isinstance(qconfig_spec, dict):
        raise TypeError("quantize_dynamic: qconfig_spec must be a set of module types or names, "
                        f"or a dict from them to QConfigs, got {type(qconfig_spec).__name__}")
    torch_mapping = QConfigMapping()
    for key, entry in qconfig_spec.items():
        if isinstance(key, str):
            torch_mapping.set_module_name(key, entry)
        else:
            torch_mapping.set_object_type(key, entry)
    return convert_fx(prepare_fx(model, torch_mapping, example_inputs,
                                 backend_config=_dynamic_backend(), outputs=None,
                                 _follow_engine=True))


def _dynamic_backend() -> "_config.BackendConfig":
    """quantize_dynamic's table: the default (native) one and an nn.GRU row
    configured as its nn.LSTM row (PyTorch's eager dynamic mapping swaps
    both)."""
    backend = _config.get_backend_config(_DEFAULT_BACKEND)
    gru = dict(backend.lookup("torch.nn.LSTM").to_dict(), pattern=["torch.nn.GRU"])
    return backend.set_name(f"{_DEFAULT_BACKEND}+GRU").set_backend_pattern_config(
        _config.BackendPatternConfig.from_dict(gru, "torch.nn.GRU"))


@contextlib.contextmanager
def _step(label: str) -> Iterator[None]:
    """Shows a long step on a terminal's stderr, as quant-run's calibration
    progress does: "qfx: LABEL..." while it runs, then its time (or that it
    failed); nothing when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield
        return
    import time
    start = time.monotonic()
    sys.stderr.write(f"qfx: {label}...")
    sys.stderr.flush()
    outcome = "failed"
    try:
        yield
        outcome = f"{time.monotonic() - start:.1f} s"
    finally:
        sys.stderr.write(f"\rqfx: {label}: {outcome}\n")
        sys.stderr.flush()


def _progress_printer() -> Optional[Any]:
    """A calibration progress callback that rewrites one line of a terminal
    stderr at most five times a second (quant-run's); None when stderr is
    not a terminal."""
    if not sys.stderr.isatty():
        return None
    import time
    start = time.monotonic()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < 0.2 and done != total:
            return
        last[0] = now
        rate = done / max(now - start, 1e-9)
        end = "\n" if done == total else ""
        sys.stderr.write(f"\rqfx: calibrating: {done}/{total} samples, {rate:.1f} samples/s{end}")
        sys.stderr.flush()

    return progress


def _convert_options(qconfig_mapping: Any, prepare_option: str, backend_option: str,
                     directory: pathlib.Path, what: str,
                     fake_quantizers: bool) -> _ConvertOptions:
    """The conversion's options; a convert-time QConfigMapping (qfx's or
    PyTorch's, fake quantizers read as their observers for a model PyTorch
    trained) written to `directory`."""
    if qconfig_mapping is None:
        return _ConvertOptions(backend_option)
    if _is_torch_object(qconfig_mapping) and not isinstance(qconfig_mapping, dict):
        qconfig_mapping = qconfig_mapping_from_torch(qconfig_mapping,
                                                     fake_quantizers=fake_quantizers)
    option = _write_qconfig_mapping(qconfig_mapping, directory, "convert_qconfig_mapping.json",
                                    what)
    return _ConvertOptions(backend_option, option, prepare_option)


def _finish_conversion(quantized: Any, directory: pathlib.Path,
                       signature: _Signature, convert: _ConvertOptions,
                       host: _host.Host) -> None:
    """calibrated.mlir in `directory` -> reference.mlir, then for a
    QuantizedModel int8.mlir; initializes `quantized` (a QuantizedModel or a
    ReferenceModel) over them, compiled in-process (`host`: its graph
    breaks)."""
    host_ops = [FloatOp("qfx.host_call", f"{c.module}({c.node})", c.callee,
                        f"runs in PyTorch (a graph break): {c.reason}") for c in host.calls]
    if isinstance(quantized, ReferenceModel):
        # PyTorch's reference model quantizes dynamic activations to 7 bits
        # on the fbgemm and x86 engines only (get_quantize_node_info), not
        # as its quantized kernels do (7 bits on onednn too).
        reduce = str(torch.backends.quantized.engine in ("fbgemm", "x86")).lower()
        _convert_to_reference(directory, convert,
                              f"qfx-convert{{dynamic-reduce-range={reduce}}}")
        ReferenceModel.__init__(quantized, directory, signature, convert.backend, host_ops,
                                host)
        return
    remarks, float_ops = _convert_and_lower(directory, convert)
    QuantizedModel.__init__(quantized, directory, signature, convert.backend, remarks,
                            host_ops + float_ops, host=host)
    quantized._convert = convert


def _is_torch_prepared(model: Any) -> bool:
    """A GraphModule PyTorch's prepare_fx or prepare_qat_fx returned."""
    return (isinstance(model, torch.fx.GraphModule)
            and hasattr(model, "_qconfig_mapping") and hasattr(model, "_is_qat"))


def _convert_torch_prepared(model_class: type, what: str, model: Any, example_inputs: Any,
                            backend_config: Any, strict: bool, qconfig_mapping: Any) -> Any:
    if example_inputs is None:
        example_inputs = getattr(model, "_qfx_example_inputs", None)  # qfx.prepare_qat_fx's
    if example_inputs is None:
        raise TypeError(f"{what} of a model PyTorch prepared needs example_inputs (the "
                        "shapes the quantized model takes)")
    if model.training:
        raise ValueError(f"{what}: call .eval() on PyTorch's prepared model first")
    example_inputs = _check_example_inputs(example_inputs, what)
    fingerprint = _fingerprint(model)
    # The modules PyTorch's tracer did not trace (leaves of its graph) are
    # leaves of qfx's trace too.
    custom = getattr(model, "_prepare_custom_config", None)
    if isinstance(custom, dict):
        from torch.ao.quantization.fx.custom_config import PrepareCustomConfig
        custom = PrepareCustomConfig.from_dict(custom)
    non_traceable = NonTraceable(frozenset(getattr(custom, "non_traceable_module_names", ())),
                                 frozenset(getattr(custom, "non_traceable_module_classes", ())))
    with _step("exporting the model"):
        float_mlir, result, index_bounds, host = export_with_outputs(
            model, example_inputs, strict=strict, non_traceable=non_traceable)
    signature = _signature(example_inputs, result, index_bounds, what,
                           _input_names(model, len(example_inputs)))
    quantized = model_class.__new__(model_class)
    directory = _make_workdir(None, quantized)
    mapping = qconfig_mapping_from_torch(model._qconfig_mapping, fake_quantizers=True)
    qconfig_option = _write_qconfig_mapping(mapping, directory)
    backend_option = _write_backend_config(backend_config, directory, what)
    engine = _torch_engine() if backend_config is None else None
    with _step("fusing, preparing and importing PyTorch's statistics"):
        _pipeline(directory, float_mlir, "calibrated.mlir",
                  _prepare_passes(directory, qconfig_option, backend_option, engine,
                                  torch_prepared=True)
                  + ",qfx-import-statistics")
    convert = _convert_options(qconfig_mapping, qconfig_option, backend_option, directory,
                               what, fake_quantizers=True)
    _finish_conversion(quantized, directory, signature, convert, host)
    if isinstance(quantized, QuantizedModel):
        quantized._shapes = _Shapes(_Source(model, frozenset(), non_traceable, strict,
                                            qconfig_option, backend_option, engine, True,
                                            fingerprint))
    return quantized


@_writes_stage_files
def load(directory: Any, backend_config: Any = None) -> QuantizedModel:
    """Reads a model `QuantizedModel.save` wrote. The files are copied to a
    working directory, so `directory` may change or go afterwards.

    Directories saved before the int8 stage existed (manifest version 1: no
    int8.mlir, no record of the backend) need `backend_config`, the backend
    the model was prepared with (a built-in name, a `qfx.BackendConfig` or a
    torch BackendConfig): their reference model is lowered with
    `qfx-lower` now (warning, like `convert_fx`, if ops stay in
    float). Without it they raise ValueError. Version 2 directories record
    their backend, and `backend_config` must be None.

    The compiled int8 program (libmodel.so) is used as saved, without
    recompiling, if the manifest records that it was compiled from this
    int8.mlir (its SHA-256) on a machine of the same architecture whose CPU
    features this one has, its header states @main's signature, and it
    loads. Otherwise (directories saved before qfx compiled models, a
    changed int8.mlir, another CPU) int8.mlir is compiled in this process;
    if that fails too, the error (`qfx.ToolError`) says why neither worked.
    A model with graph breaks unpickles them from graph_breaks.pt (as
    torch.load: load only directories you trust) and compiles int8.mlir.
    """
    quantized = QuantizedModel.__new__(QuantizedModel)
    _load_into(quantized, pathlib.Path(directory), backend_config)
    return quantized


def _load_into(quantized: QuantizedModel, directory: pathlib.Path, backend_config: Any,
               expected: Optional[_Signature] = None) -> None:
    """`load` of `directory` into `quantized` (initialized anew); with
    `expected`, ValueError before `quantized` changes unless the saved
    model has that signature."""
    manifest_path = directory / _MANIFEST
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{manifest_path}: no such file; not a directory written by "
                                "QuantizedModel.save")
    manifest = json.loads(manifest_path.read_text())
    version = manifest.get("version")
    if manifest.get("format") != _FORMAT or version not in (1, _VERSION):
        raise ValueError(f"{manifest_path}: not a qfx quantized model manifest this qfx reads "
                         f"(format {manifest.get('format')!r}, version {version!r}; expected "
                         f"{_FORMAT!r}, version 1 or {_VERSION})")
    if version == 1 and backend_config is None:
        raise ValueError(
            f"{manifest_path}: saved before qfx had the int8 stage (version 1: no int8.mlir, no "
            "record of the backend); pass the backend the model was prepared with, e.g. "
            f"qfx.load({str(directory)!r}, backend_config='x86'), to lower its reference model "
            "to int8 now, or convert the model again with qfx.convert_fx")
    if version == _VERSION and backend_config is not None:
        raise ValueError(f"{manifest_path}: the model records its backend "
                         f"({manifest.get('backend')!r}); backend_config is only for directories "
                         "saved before the int8 stage (version 1)")
    signature = _Signature.from_dict(manifest)
    if expected is not None and signature != expected:
        raise ValueError(f"{manifest_path}: the saved model takes {signature}; this one "
                         f"takes {expected}")
    work = _make_workdir(None, quantized)
    # Version 2 lists its stages (a model PyTorch calibrated has no observed
    # stage, a pickled one only the int8 stage); the int8 stage is always
    # there.
    stages = ([s for s in STAGES if s in manifest.get("stages", {})] if version == _VERSION
              else STAGES[:-1])
    if version == _VERSION and "int8" not in stages:
        raise ValueError(f"{manifest_path}: names no int8 stage")
    for stage in stages:
        source = directory / manifest["stages"].get(stage, f"{stage}.mlir")
        if not source.is_file():
            raise FileNotFoundError(f"{source}: the {stage} stage named by {manifest_path} "
                                    "is missing")
        shutil.copyfile(source, work / f"{stage}.mlir")
    host = None
    if version == 1:
        backend_option = _write_backend_config(backend_config, work, "load")
        remarks, float_ops = _lower(work, backend_option)
        _warn_float_ops(float_ops, stacklevel=2)
        record, library = None, None
    else:
        backend_option = manifest["backend"]
        if backend_option == _BACKEND_FILE:
            source = directory / _BACKEND_FILE
            if not source.is_file():
                raise FileNotFoundError(f"{source}: the BackendConfig named by {manifest_path} "
                                        "is missing")
            shutil.copyfile(source, work / _BACKEND_FILE)
        remarks = manifest.get("remarks", "")
        float_ops = [FloatOp(**op) for op in manifest.get("float_ops", [])]
        if "graph_breaks" in manifest:
            if manifest["graph_breaks"] != _GRAPH_BREAKS:
                raise ValueError(f"{manifest_path}: graph_breaks {manifest['graph_breaks']!r}: "
                                 f"expected {_GRAPH_BREAKS!r}")
            host = _host.load(directory / _GRAPH_BREAKS)
            record, library = None, _jit(work, "int8", signature, host)
        else:
            record, library = _load_library(directory, manifest.get("compiled"), work,
                                            signature)
    QuantizedModel.__init__(quantized, work, signature, backend_option, remarks, float_ops,
                            record, library, host)


def _saved_library_problem(directory: pathlib.Path, record: Any,
                           work: pathlib.Path) -> Optional[str]:
    """None if the library saved in `directory` may be used for the int8.mlir
    copied to `work`; else why not."""
    if not isinstance(record, dict):
        return f"{_MANIFEST} does not record a compiled library (saved by an older qfx)"
    for key in ("library", "header"):
        name = record.get(key)
        if name not in (_compiled.LIBRARY, _compiled.HEADER) or not (directory / name).is_file():
            return f"{name} is missing"
    if record.get("target") != _compiled.TARGET or record.get("function") != _compiled.FUNCTION:
        return (f"it was compiled for target {record.get('target')!r} as "
                f"{record.get('function')!r}, not for {_compiled.TARGET!r} as "
                f"{_compiled.FUNCTION!r}")
    if record.get("source_sha256") != _compiled.source_digest(work / "int8.mlir"):
        return "int8.mlir changed after it was compiled"
    return _compiled.runs_here(record)


def _load_library(directory: pathlib.Path, record: Any, work: pathlib.Path,
                  signature: _Signature) -> Tuple[Optional[dict], Any]:
    """The compiled int8 program for a model being loaded from `directory`
    into `work`, and the record of the library: the saved libmodel.so when
    it was compiled from this int8.mlir for a CPU like this one and loads,
    else int8.mlir compiled in this process (no record: `save` compiles a
    library). If neither works, the error says why for both."""
    problem = _saved_library_problem(directory, record, work)
    if problem is None:
        shutil.copyfile(directory / _compiled.LIBRARY, work / _compiled.LIBRARY)
        shutil.copyfile(directory / _compiled.HEADER, work / _compiled.HEADER)
        try:
            return dict(record), _open_library(work, signature)
        except (OSError, ValueError) as error:
            problem = str(error)
        for name in (_compiled.LIBRARY, _compiled.HEADER):
            (work / name).unlink()
    why = f"{directory}: cannot use the saved {_compiled.LIBRARY}: {problem}"
    try:
        return None, _jit(work, "int8", signature, _host.Host([]))
    except ToolError as error:
        raise ToolError(error.tool, error.returncode,
                        f"{why}; compiling int8.mlir failed:\n{error.diagnostics}") from None
    except ValueError as error:
        raise ValueError(f"{why}; compiling int8.mlir failed: {error}") from None
