"""qfx's C API (include/qfx-c/QFX.h, libQFXCAPI.so) through ctypes: pass
pipelines, calibration, JIT-compiled models and ahead-of-time compilation
run in this process, as IREE's Python runtime loads its C API.

- `run_pipeline(mlir, pipeline)` parses IR text, runs a textual pass
  pipeline anchored on builtin.module and returns the printed result.
- `calibrate(mlir, sample_paths)` is `quant-run --calibrate`.
- `Model(mlir)` is a function compiled as quant-run compiles it; calling it
  runs it on NumPy arrays.
- `compile_to_file(mlir, output)` is `quant-compile`.
- `Model(mlir, record=True)` also records every named op's value on each
  call, and `extract_weights(mlir)` reads a stage's weights: the numeric
  suite (qfx.ns).
- `builtin_config(kind, name)` is the library's built-in configuration.

Diagnostics come back as records and, on failure, in a `ToolError` whose
text is laid out as the tools print them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pathlib
import shutil
import threading
from dataclasses import dataclass
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from qfx import _compiled, _host
from qfx.tools import ToolError

# IR text: str, or its UTF-8 bytes.
Text = Union[str, bytes]

_LIBRARY_NAME = "libQFXCAPI.so"
_VERSION = 9  # QFX_CAPI_VERSION
_REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
_SEVERITIES = ("error", "warning", "note", "remark")
# QfxDType's values index this.
_DTYPES = (np.float32, np.float16, np.int8, np.uint8, np.int32, np.int64)
_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic: `severity` ("error", "warning", "note", "remark"),
    `location` as MLIR prints it inside loc(...) (`"model.mlir":3:5`,
    `"layer1.0.conv1"`, `unknown`), `message`, and for a note the index of
    the diagnostic it belongs to (`parent`, else -1)."""

    severity: str
    location: str
    message: str
    parent: int

    def __str__(self) -> str:
        """As quant-opt prints it: `file:line:col: severity: message`, or
        `<unknown>:0: severity: loc("name"): message`."""
        location = self.location
        if location.startswith('"') and location.count('"') == 2 and not location.endswith('"'):
            path, _, rest = location[1:].partition('"')
            return f"{path}{rest}: {self.severity}: {self.message}"
        if location == "unknown":
            return f"<unknown>:0: {self.severity}: {self.message}"
        return f"<unknown>:0: {self.severity}: loc({location}): {self.message}"


class _QfxDiagnostic(ctypes.Structure):
    _fields_ = [("severity", ctypes.c_int), ("location", ctypes.c_char_p),
                ("message", ctypes.c_char_p), ("parent", ctypes.c_long)]


class _QfxTensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_size_t),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p)]


class _QfxRecordedValue(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("op_name", ctypes.c_char_p), ("value", _QfxTensor),
                ("quantized", ctypes.c_int), ("scale", ctypes.c_double),
                ("zero_point", ctypes.c_int64)]


class _QfxLayerTime(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("op_name", ctypes.c_char_p),
                ("seconds", ctypes.c_double)]


@dataclass(frozen=True)
class RecordedValue:
    """A value a recording `Model` recorded: the op's location name
    ("layer1.0.conv1", "layer1.0(add)"), the op that made it, its elements
    (float32, dequantized if quantized) and, if quantized per tensor, its
    (scale, zero point)."""

    name: str
    op_name: str
    value: np.ndarray
    qparams: Optional[Tuple[float, int]]


def _candidates() -> List[pathlib.Path]:
    """$QFX_BUILD_DIR/lib, the source tree's build/lib, then the lib/ beside
    the bin/ of the quant-opt on PATH (an installed qfx: cmake --install)."""
    places = []
    build_dir = os.environ.get("QFX_BUILD_DIR")
    if build_dir:
        places.append(pathlib.Path(build_dir) / "lib" / _LIBRARY_NAME)
    places.append(_REPO_ROOT / "build" / "lib" / _LIBRARY_NAME)
    tool = shutil.which("quant-opt")
    if tool:
        places.append(pathlib.Path(tool).resolve().parent.parent / "lib" / _LIBRARY_NAME)
    return places


def _load() -> ctypes.CDLL:
    # (Before the JIT's first model starts libomp's threads.)
    _compiled.default_omp_waiting()
    places = _candidates()
    for place in places:
        if place.is_file():
            library = ctypes.CDLL(str(place))
            break
    else:
        looked = ", ".join(str(p) for p in places)
        raise FileNotFoundError(
            f"cannot find qfx's C API library {_LIBRARY_NAME}: looked in {looked}; "
            "build qfx with utils/setup.sh or set QFX_BUILD_DIR")
    library.qfxGetCAPIVersion.restype = ctypes.c_int
    version = library.qfxGetCAPIVersion()
    if version != _VERSION:
        raise ImportError(f"{place}: C API version {version}, this package needs {_VERSION}")
    library.qfxSessionCreate.restype = ctypes.c_void_p
    library.qfxSessionAddResource.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                              ctypes.c_size_t]
    library.qfxSessionSetSourceFile.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    library.qfxSessionSetOutputFile.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    library.qfxGetNumParsedSources.restype = ctypes.c_size_t
    library.qfxGetNumParsedSources.argtypes = [ctypes.c_void_p]
    library.qfxSessionDestroy.argtypes = [ctypes.c_void_p]
    library.qfxRunPipeline.restype = ctypes.c_int
    library.qfxRunPipeline.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p,
        ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    library.qfxGetNumDiagnostics.restype = ctypes.c_size_t
    library.qfxGetNumDiagnostics.argtypes = [ctypes.c_void_p]
    library.qfxGetDiagnostic.restype = ctypes.c_int
    library.qfxGetDiagnostic.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.POINTER(_QfxDiagnostic)]
    library.qfxFreeString.argtypes = [ctypes.c_void_p]
    library.qfxGetBuiltinConfig.restype = ctypes.c_int
    library.qfxGetBuiltinConfig.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                            ctypes.POINTER(ctypes.c_void_p),
                                            ctypes.POINTER(ctypes.c_size_t)]
    source = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p]
    library.qfxCalibrate.restype = ctypes.c_int
    library.qfxCalibrate.argtypes = source + [
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, _PROGRESS,
        ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(ctypes.c_size_t)]
    for name in ("qfxModelCompile", "qfxModelCompileRecording", "qfxModelCompileProfiling"):
        getattr(library, name).restype = ctypes.c_int
        getattr(library, name).argtypes = source + [ctypes.c_char_p, ctypes.c_char_p,
                                                    ctypes.POINTER(ctypes.c_void_p)]
    library.qfxModelCompileCalibrating.restype = ctypes.c_int
    library.qfxModelCompileCalibrating.argtypes = source + [ctypes.c_char_p,
                                                            ctypes.POINTER(ctypes.c_void_p)]
    library.qfxModelCompileCalibratingWith.restype = ctypes.c_int
    library.qfxModelCompileCalibratingWith.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    library.qfxModelWriteStatistics.restype = ctypes.c_int
    library.qfxModelWriteStatistics.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(ctypes.c_size_t)]
    library.qfxModelGetNumObservers.restype = ctypes.c_size_t
    library.qfxModelGetNumObservers.argtypes = [ctypes.c_void_p]
    library.qfxBuildShadowStage.restype = ctypes.c_int
    library.qfxBuildShadowStage.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    library.qfxExtractWeights.restype = ctypes.c_int
    library.qfxExtractWeights.argtypes = source + [ctypes.c_char_p]
    library.qfxGetNumLayerTimes.restype = ctypes.c_size_t
    library.qfxGetNumLayerTimes.argtypes = [ctypes.c_void_p]
    library.qfxGetLayerTime.restype = ctypes.c_int
    library.qfxGetLayerTime.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.POINTER(_QfxLayerTime)]
    library.qfxGetNumRecordedValues.restype = ctypes.c_size_t
    library.qfxGetNumRecordedValues.argtypes = [ctypes.c_void_p]
    library.qfxGetRecordedValue.restype = ctypes.c_int
    library.qfxGetRecordedValue.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                            ctypes.POINTER(_QfxRecordedValue)]
    library.qfxModelDestroy.argtypes = [ctypes.c_void_p]
    library.qfxModelGetEntry.restype = ctypes.c_char_p
    library.qfxModelGetEntry.argtypes = [ctypes.c_void_p]
    for name in ("qfxModelGetNumInputs", "qfxModelGetNumResults"):
        getattr(library, name).restype = ctypes.c_size_t
        getattr(library, name).argtypes = [ctypes.c_void_p]
    for name in ("qfxModelGetInput", "qfxModelGetResult"):
        getattr(library, name).restype = ctypes.c_int
        getattr(library, name).argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                           ctypes.POINTER(_QfxTensor)]
    library.qfxModelRun.restype = ctypes.c_int
    library.qfxModelRun.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.POINTER(_QfxTensor), ctypes.c_size_t,
                                    ctypes.POINTER(_QfxTensor), ctypes.c_size_t]
    library.qfxCompileToFile.restype = ctypes.c_int
    library.qfxCompileToFile.argtypes = source + [ctypes.c_char_p] * 5
    library.qfxGetBufferStats.argtypes = [ctypes.POINTER(ctypes.c_size_t)] * 3
    library.qfxSetHostCallback.argtypes = [_host._CALLBACK, ctypes.c_void_p]
    return library


class _Session:
    """One C API session per thread (an MLIR context is not shared)."""

    _library: Optional[ctypes.CDLL] = None
    _local = threading.local()

    @classmethod
    def get(cls) -> Tuple[ctypes.CDLL, int]:
        if cls._library is None:
            cls._library = _load()
        session = getattr(cls._local, "session", None)
        if session is None:
            session = cls._library.qfxSessionCreate()
            if not session:
                raise MemoryError("qfxSessionCreate failed")
            cls._local.session = session
        return cls._library, session


def _diagnostics(library: ctypes.CDLL, session: int) -> List[Diagnostic]:
    records = []
    for index in range(library.qfxGetNumDiagnostics(session)):
        record = _QfxDiagnostic()
        if library.qfxGetDiagnostic(session, index, ctypes.byref(record)) != 0:
            raise AssertionError(f"qfxGetDiagnostic({index}) failed")
        records.append(Diagnostic(_SEVERITIES[record.severity],
                                  record.location.decode(errors="replace"),
                                  record.message.decode(errors="replace"), record.parent))
    return records


def format_diagnostics(diagnostics: List[Diagnostic]) -> str:
    return "".join(f"{d}\n" for d in diagnostics)


def quote_option(value: str) -> str:
    """A pass option value, quoted for a textual pipeline."""
    if '"' in value:
        raise ValueError(f"a pass option value cannot contain '\"': {value!r}")
    return f'"{value}"'


def _take_string(library: ctypes.CDLL, output: ctypes.c_void_p, length: int,
                 raw: bool = False) -> Text:
    """The library's string (freed): bytes if `raw`, else str."""
    try:
        data = ctypes.string_at(output, length)
        return data if raw else data.decode()
    finally:
        library.qfxFreeString(output)


Source = Union[str, bytes, os.PathLike]


def _source(library: ctypes.CDLL, session: int, mlir: Source) -> Optional[bytes]:
    """IR for the session's next call: str, bytes as they are (UTF-8), or a
    file (a path), which the library reads itself (qfxSessionSetSourceFile;
    the call is then given NULL). A stage is hundreds of MB: callers that
    have it in a file pass the path, so that it never sits in this
    process's memory."""
    if isinstance(mlir, os.PathLike):
        if library.qfxSessionSetSourceFile(session, os.fsencode(mlir)) != 0:
            raise ToolError("qfxSessionSetSourceFile", 1,
                            format_diagnostics(_diagnostics(library, session)))
        return None
    return mlir if isinstance(mlir, bytes) else mlir.encode()


def _output(library: ctypes.CDLL, session: int, path: Optional[os.PathLike]) -> None:
    """Has the session's next call print into the file `path`
    (qfxSessionSetOutputFile), if given."""
    if path is not None and library.qfxSessionSetOutputFile(session, os.fsencode(path)) != 0:
        raise ToolError("qfxSessionSetOutputFile", 1,
                        format_diagnostics(_diagnostics(library, session)))


def _result(library: ctypes.CDLL, output: ctypes.c_void_p, length: int, mlir: Source,
            path: Optional[os.PathLike]) -> Optional[Text]:
    """A printing call's result: None if it printed into the file `path`,
    else its text (bytes unless `mlir` was str)."""
    if path is not None:
        return None
    return _take_string(library, output, length, not isinstance(mlir, str))


def _optional(text: Optional[str]) -> Optional[bytes]:
    return text.encode() if text else None


def _give_resources(library: ctypes.CDLL, session: int,
                    resources: Optional[Mapping[str, np.ndarray]]) -> None:
    """Offers the bytes of `dense_resource` keys to the session's next call
    (qfxSessionAddResource), by reference: the arrays (C-contiguous) must
    live until that call returns."""
    for key, values in (resources or {}).items():
        if not values.flags.c_contiguous:
            raise ValueError(f"resource {key}: the array must be C-contiguous")
    for key, values in (resources or {}).items():
        if library.qfxSessionAddResource(session, key.encode(), values.ctypes.data,
                                         values.nbytes) != 0:
            raise ToolError("qfxSessionAddResource", 1,
                            format_diagnostics(_diagnostics(library, session)))


def run_pipeline(mlir: Source, pipeline: str, source_name: str = "<source>",
                 debug_info: bool = True,
                 resources: Optional[Mapping[str, np.ndarray]] = None,
                 output_file: Optional[os.PathLike] = None
                 ) -> Tuple[Optional[Text], List[Diagnostic]]:
    """Runs `pipeline` ("builtin.module(qfx-fuse,qfx-prepare{...})") over the
    IR `mlir` (text, or a file: see _source) in this process; returns the
    printed result (with locations if `debug_info`; str if `mlir` is str,
    else bytes; None if printed into `output_file`) and the diagnostics.
    `resources` holds the bytes of the text's `dense_resource` keys (an
    exporter's `Exported.resources`), taken by reference. Raises ToolError
    with the diagnostics if parsing, the pipeline or a pass fails."""
    library, session = _Session.get()
    source = _source(library, session, mlir)
    _give_resources(library, session, resources)
    _output(library, session, output_file)
    output = ctypes.c_void_p()
    length = ctypes.c_size_t()
    status = library.qfxRunPipeline(session, source, len(source or b""),
                                    source_name.encode(), pipeline.encode(), int(debug_info),
                                    ctypes.byref(output), ctypes.byref(length))
    diagnostics = _diagnostics(library, session)
    if status != 0:
        raise ToolError(f"qfx pipeline {pipeline}", status, format_diagnostics(diagnostics))
    return _result(library, output, length.value, mlir, output_file), diagnostics


def parsed_sources() -> int:
    """How many sources this thread's session has parsed
    (qfxGetNumParsedSources: a stage the session printed last and is given
    back is cloned, not parsed)."""
    library, session = _Session.get()
    return library.qfxGetNumParsedSources(session)


def builtin_config(kind: str, name: str = "") -> str:
    """qfxGetBuiltinConfig: the library's built-in configuration as JSON
    text ("backend_config" NAME, or "torch_to_tosa"). ValueError for an
    unknown kind or name."""
    library, session = _Session.get()
    output = ctypes.c_void_p()
    length = ctypes.c_size_t()
    if library.qfxGetBuiltinConfig(session, kind.encode(), name.encode(), ctypes.byref(output),
                                   ctypes.byref(length)) != 0:
        raise ValueError("; ".join(d.message for d in _diagnostics(library, session)))
    return _take_string(library, output, length.value)


def buffer_stats() -> Tuple[int, int, int]:
    """The buffer cache of compiled programs (process-wide): bytes handed out
    now, the most handed out at once since reset_buffer_peak, bytes kept
    for reuse (qfxGetBufferStats)."""
    library, _ = _Session.get()
    values = [ctypes.c_size_t() for _ in range(3)]
    library.qfxGetBufferStats(*[ctypes.byref(v) for v in values])
    return tuple(v.value for v in values)


def reset_buffer_peak() -> None:
    """Starts a new peak of buffer_stats from the bytes handed out now."""
    library, _ = _Session.get()
    library.qfxResetBufferPeak()


def calibrate(mlir: Source, sample_paths: Sequence[str], source_name: str = "<source>",
              entry: Optional[str] = None,
              progress: Optional[Callable[[int, int], None]] = None,
              host: Optional[_host.Host] = None,
              output_file: Optional[os.PathLike] = None) -> Optional[Text]:
    """`quant-run --calibrate`: calibrates the observers of the observed IR
    `mlir` on samples (per argument, a .npy file whose leading axis indexes
    samples or a directory of .npy files, one per sample) and returns the
    calibrated IR, with locations (str if `mlir` is str, else bytes; None
    if printed into `output_file`); `mlir` may be a file (see _source).
    `progress(done, total)` is called after each sample; `host` runs the
    model's graph breaks (qfx.host_call). ToolError names a bad sample, file
    or observer; a failing graph break raises its GraphBreakError."""
    library, session = _Session.get()
    source = _source(library, session, mlir)
    _output(library, session, output_file)
    paths = (ctypes.c_char_p * len(sample_paths))(*[str(p).encode() for p in sample_paths])
    callback = _PROGRESS(lambda _, done, total: progress(done, total)) if progress else \
        _PROGRESS()
    output = ctypes.c_void_p()
    length = ctypes.c_size_t()
    _compiled.apply_num_threads()
    with _hosted(library, host):
        status = library.qfxCalibrate(session, source, len(source or b""), source_name.encode(),
                                      _optional(entry), paths, len(sample_paths), callback, None,
                                      1, ctypes.byref(output), ctypes.byref(length))
    if status != 0:
        raise ToolError("qfx calibration", status,
                        format_diagnostics(_diagnostics(library, session)))
    return _result(library, output, length.value, mlir, output_file)


def _hosted(library: ctypes.CDLL, host: Optional[_host.Host]) -> Any:
    """The block runs with `host` as the thread's host callback (if given),
    and raises the exception a graph break raised in it."""
    return host.installed(library) if host is not None else contextlib.nullcontext()


def _signature(library: ctypes.CDLL, handle: int, getter: str,
               count: int) -> List[Tuple[type, Tuple[int, ...]]]:
    specs = []
    for index in range(count):
        tensor = _QfxTensor()
        if getattr(library, getter)(handle, index, ctypes.byref(tensor)) != 0:
            raise AssertionError(f"{getter}({index}) failed")
        specs.append((_DTYPES[tensor.dtype], tuple(tensor.shape[d] for d in range(tensor.rank))))
    return specs


class Model:
    """A function of a model's IR compiled to native code in this process,
    as quant-run compiles it: `entry` (default: the module's only public
    function), the int8 kernels for `target` (default: this machine).
    `inputs` and `results` list each tensor's NumPy dtype and shape. Calls
    take arrays of those dtypes and shapes and return new arrays, or write
    into `results` given. ToolError if it does not compile or run.

    With `record`, every call also records the value each op with a named
    location produces (`qfxModelCompileRecording`); `recorded` then holds
    the last call's, in program order (a list of RecordedValue). With
    `profile`, every call times each layer (`qfxModelCompileProfiling`);
    `layer_times` then holds the last call's (name, op, seconds), in program
    order, the last "(rest)". With `calibrate` (an observed module),
    every call also hands what each qfx.observe sees to its observer
    (`qfxModelCompileCalibrating`); `write_statistics` gives the module
    with the statistics of the calls so far, `num_observers` counts the
    module's qfx.observe ops; with `calibrate_with`
    (a calibrating Model of the same model at other shapes), the calls
    observe into that model's observers
    (`qfxModelCompileCalibratingWith`). `host`
    runs the model's graph breaks (qfx.host_call ops; a model with some
    fails without it)."""

    def __init__(self, mlir: Source, source_name: str = "<source>", entry: Optional[str] = None,
                 target: Optional[str] = None, record: bool = False, profile: bool = False,
                 host: Optional[_host.Host] = None, calibrate: bool = False,
                 calibrate_with: Optional["Model"] = None):
        library, session = _Session.get()
        self.host = host
        self._library = library
        if record + profile + calibrate > 1:
            raise ValueError("a model records values, times layers or calibrates, one of them")
        self.record, self.profile = record, profile
        self.recorded: List[RecordedValue] = []
        self.layer_times: List[Tuple[str, str, float]] = []
        source = _source(library, session, mlir)
        handle = ctypes.c_void_p()
        if calibrate_with is not None and not calibrate:
            raise ValueError("calibrate_with is for a calibrating model (calibrate=True)")
        if calibrate:
            if target is not None:
                raise ValueError("a calibrating model is compiled for this machine")
            if calibrate_with is not None:
                status = library.qfxModelCompileCalibratingWith(
                    session, calibrate_with._handle, source, len(source or b""),
                    source_name.encode(), _optional(entry), ctypes.byref(handle))
            else:
                status = library.qfxModelCompileCalibrating(
                    session, source, len(source or b""), source_name.encode(),
                    _optional(entry), ctypes.byref(handle))
        else:
            compile_model = (library.qfxModelCompileRecording if record else
                             library.qfxModelCompileProfiling if profile else
                             library.qfxModelCompile)
            status = compile_model(session, source, len(source or b""), source_name.encode(),
                                   _optional(entry), _optional(target), ctypes.byref(handle))
        if status != 0:
            raise ToolError(f"qfx JIT compilation of {source_name}", status,
                            format_diagnostics(_diagnostics(library, session)))
        self._handle = handle.value
        self.entry = library.qfxModelGetEntry(self._handle).decode()
        self.inputs = _signature(library, self._handle, "qfxModelGetInput",
                                 library.qfxModelGetNumInputs(self._handle))
        self.results = _signature(library, self._handle, "qfxModelGetResult",
                                  library.qfxModelGetNumResults(self._handle))

    @property
    def num_observers(self) -> int:
        """A calibrating model's qfx.observe ops (qfxModelGetNumObservers)."""
        return self._library.qfxModelGetNumObservers(self._handle)

    def write_statistics(self, output_file: Optional[os.PathLike] = None) -> Optional[str]:
        """A calibrating model's module with the statistics of its calls so
        far, with locations (qfxModelWriteStatistics): its text, or None
        when printed into `output_file`."""
        library, session = _Session.get()
        _output(library, session, output_file)
        output, length = ctypes.c_void_p(), ctypes.c_size_t()
        status = library.qfxModelWriteStatistics(session, self._handle, 1, ctypes.byref(output),
                                                 ctypes.byref(length))
        if status != 0:
            raise ToolError("qfx statistics", status,
                            format_diagnostics(_diagnostics(library, session)))
        return _result(library, output, length.value, "", output_file)

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle:
            self._library.qfxModelDestroy(handle)
            self._handle = None

    @staticmethod
    def _tensors(arrays: Sequence[np.ndarray]) -> ctypes.Array:
        tensors = (_QfxTensor * max(len(arrays), 1))()
        for tensor, array in zip(tensors, arrays):
            dtype = next((k for k, t in enumerate(_DTYPES) if array.dtype == t), None)
            if dtype is None:
                raise TypeError(f"the compiled model does not take {array.dtype} arrays")
            tensor.dtype = dtype
            tensor.rank = array.ndim
            tensor.shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
            tensor.data = array.ctypes.data
        return tensors

    def __call__(self, inputs: Sequence[np.ndarray],
                 results: Optional[Sequence[np.ndarray]] = None) -> List[np.ndarray]:
        inputs = [np.ascontiguousarray(a) for a in inputs]
        if results is None:
            results = [np.empty(shape, dtype) for dtype, shape in self.results]
        for array in results:
            if not array.flags.c_contiguous or not array.flags.writeable:
                raise ValueError("the compiled model writes its results into writable C-order "
                                 "arrays")
        library, session = _Session.get()
        _compiled.apply_num_threads()
        with _hosted(library, self.host):
            status = library.qfxModelRun(session, self._handle, self._tensors(inputs),
                                         len(inputs), self._tensors(results), len(results))
        if status != 0:
            raise ToolError(f"qfx model @{self.entry}", status,
                            format_diagnostics(_diagnostics(library, session)))
        if self.record:
            self.recorded = _recorded_values(library, session)
        if self.profile:
            self.layer_times = []
            for index in range(library.qfxGetNumLayerTimes(session)):
                time = _QfxLayerTime()
                if library.qfxGetLayerTime(session, index, ctypes.byref(time)) != 0:
                    raise AssertionError(f"qfxGetLayerTime({index}) failed")
                self.layer_times.append((time.name.decode(), time.op_name.decode(), time.seconds))
        return list(results)


def shadow_stage(float_mlir: str, int8_mlir: str, entry: Optional[str] = None) -> str:
    """qfxBuildShadowStage: the int8 stage with each pattern computing on the
    float stage's values (text with locations, for `Model(..., record=True)`)."""
    library, session = _Session.get()
    float_source, int8_source = float_mlir.encode(), int8_mlir.encode()
    output, length = ctypes.c_void_p(), ctypes.c_size_t()
    status = library.qfxBuildShadowStage(session, float_source, len(float_source), int8_source,
                                         len(int8_source), _optional(entry),
                                         ctypes.byref(output), ctypes.byref(length))
    if status != 0:
        raise ToolError("qfx shadow stage", status,
                        format_diagnostics(_diagnostics(library, session)))
    return _take_string(library, output, length.value)


def extract_weights(mlir: Source, source_name: str = "<source>",
                    entry: Optional[str] = None) -> List[RecordedValue]:
    """The weights of a stage (qfxExtractWeights): an observed or calibrated
    stage's float weights, a reference stage's dequantized ones, named by
    location. ToolError if the module does not parse or has no such
    function."""
    library, session = _Session.get()
    source = _source(library, session, mlir)
    status = library.qfxExtractWeights(session, source, len(source or b""), source_name.encode(),
                                       _optional(entry))
    if status != 0:
        raise ToolError(f"qfx weights of {source_name}", status,
                        format_diagnostics(_diagnostics(library, session)))
    return _recorded_values(library, session)


def _recorded_values(library: ctypes.CDLL, session: int) -> List[RecordedValue]:
    """The session's recorded values, copied out of it."""
    values = []
    for index in range(library.qfxGetNumRecordedValues(session)):
        record = _QfxRecordedValue()
        if library.qfxGetRecordedValue(session, index, ctypes.byref(record)) != 0:
            raise AssertionError(f"qfxGetRecordedValue({index}) failed")
        tensor = record.value
        shape = tuple(tensor.shape[d] for d in range(tensor.rank))
        count = int(np.prod(shape, dtype=np.int64))
        data = np.ctypeslib.as_array(ctypes.cast(tensor.data, ctypes.POINTER(ctypes.c_float)),
                                     shape=(count,)) if count else np.empty(0, np.float32)
        values.append(RecordedValue(record.name.decode(), record.op_name.decode(),
                                    data.reshape(shape).copy(),
                                    (record.scale, record.zero_point) if record.quantized
                                    else None))
    return values


def compile_to_file(mlir: Source, output: str, header: Optional[str] = None,
                    source_name: str = "<source>", entry: Optional[str] = None,
                    target: Optional[str] = None, export_name: Optional[str] = None) -> None:
    """`quant-compile`: compiles `entry` of `mlir` for `target` (default
    host) to an object file or shared library `output` and its C header
    (`header`, default `output` with .h), exported as `export_name`.
    ToolError with the diagnostics if it fails; nothing is written then."""
    library, session = _Session.get()
    source = _source(library, session, mlir)
    status = library.qfxCompileToFile(session, source, len(source or b""), source_name.encode(),
                                      _optional(entry), _optional(target),
                                      _optional(export_name), str(output).encode(),
                                      _optional(str(header) if header else None))
    if status != 0:
        raise ToolError("qfx compilation", status,
                        format_diagnostics(_diagnostics(library, session)))
