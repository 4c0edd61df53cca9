"""The committed golden configuration data that the presets are read from.

test/Unit/Config/golden/ is written from PyTorch 1.13 by
utils/golden/gen_config_golden.py, and lib/Config's unit tests check the C++
presets against the same files: reading them here gives Python the same
presets without a second hand-written table.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
from typing import Any

_REPO_ROOT = pathlib.Path(__file__).resolve().parents[3]


def golden_dir() -> pathlib.Path:
    """$QFX_SOURCE_DIR/test/Unit/Config/golden, else the source tree's."""
    root = os.environ.get("QFX_SOURCE_DIR")
    return (pathlib.Path(root) if root else _REPO_ROOT) / "test" / "Unit" / "Config" / "golden"


@functools.lru_cache(maxsize=None)
def load(name: str) -> Any:
    path = golden_dir() / name
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(
            f"qfx reads its configuration presets from PyTorch's golden data, {path}, "
            "which is missing: use qfx from its source tree (pip install -e python/) "
            "or set QFX_SOURCE_DIR to it"
        ) from None
