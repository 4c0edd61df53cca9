"""Locating and running qfx's command-line tools."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

_REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


class ToolError(RuntimeError):
    """A qfx tool rejected its input; the message holds its diagnostics."""

    def __init__(self, tool: str, returncode: int, diagnostics: str):
        super().__init__(f"{tool} failed (exit {returncode}):\n{diagnostics}")
        self.tool = tool
        self.returncode = returncode
        self.diagnostics = diagnostics


def find_tool(name: str) -> pathlib.Path:
    """Returns the path of a qfx tool.

    Looks in $QFX_BUILD_DIR/bin, then in the source tree's build/bin, then on
    PATH. Raises FileNotFoundError naming every place it looked.
    """
    places = []
    build_dir = os.environ.get("QFX_BUILD_DIR")
    if build_dir:
        places.append(pathlib.Path(build_dir) / "bin" / name)
    places.append(_REPO_ROOT / "build" / "bin" / name)
    for place in places:
        if place.is_file() and os.access(place, os.X_OK):
            return place
    on_path = shutil.which(name)
    if on_path:
        return pathlib.Path(on_path)
    looked = ", ".join(str(p) for p in places)
    raise FileNotFoundError(
        f"cannot find the qfx tool '{name}': looked in {looked} and on PATH; "
        "build qfx with utils/setup.sh or set QFX_BUILD_DIR"
    )


def quant_opt(mlir: str, *args: str) -> str:
    """Runs quant-opt with `args` (passes and options) over the IR text `mlir`
    and returns the printed result. Raises ToolError with quant-opt's
    diagnostics if it fails."""
    tool = find_tool("quant-opt")
    result = subprocess.run(
        [str(tool), "-", *args],
        input=mlir,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise ToolError("quant-opt", result.returncode, result.stderr)
    return result.stdout
