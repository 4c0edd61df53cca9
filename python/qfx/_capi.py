"""qfx's C API (include/qfx-c/QFX.h, libQFXCAPI.so) through ctypes: pass
pipelines run in this process, as IREE's Python runtime loads its C API.

`run_pipeline(mlir, pipeline)` parses IR text, runs a textual pass pipeline
anchored on builtin.module and returns the printed result; diagnostics come
back as records and, on failure, in a `ToolError` whose text is laid out as
`quant-opt` prints them.
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import shutil
import threading
from dataclasses import dataclass
from typing import List, Optional, Tuple

from qfx.tools import ToolError

_LIBRARY_NAME = "libQFXCAPI.so"
_VERSION = 2  # QFX_CAPI_VERSION
_REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
_SEVERITIES = ("error", "warning", "note", "remark")


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


def run_pipeline(mlir: str, pipeline: str, source_name: str = "<source>",
                 debug_info: bool = True) -> Tuple[str, List[Diagnostic]]:
    """Runs `pipeline` ("builtin.module(qfx-fuse,qfx-prepare{...})") over the
    IR text `mlir` in this process; returns the printed result (with
    locations if `debug_info`) and the diagnostics. Raises ToolError with
    the diagnostics if parsing, the pipeline or a pass fails."""
    library, session = _Session.get()
    source = mlir.encode()
    output = ctypes.c_void_p()
    length = ctypes.c_size_t()
    status = library.qfxRunPipeline(session, source, len(source), source_name.encode(),
                                    pipeline.encode(), int(debug_info), ctypes.byref(output),
                                    ctypes.byref(length))
    diagnostics = _diagnostics(library, session)
    if status != 0:
        raise ToolError(f"qfx pipeline {pipeline}", status, format_diagnostics(diagnostics))
    try:
        text = ctypes.string_at(output, length.value).decode()
    finally:
        library.qfxFreeString(output)
    return text, diagnostics
