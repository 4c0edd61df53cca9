"""The committed golden configuration data that the presets are read from.

test/Unit/Config/golden/ is written from PyTorch 1.13 by
utils/golden/gen_config_golden.py, and lib/Config's unit tests check the C++
presets against the same files: reading them here gives Python the same
presets without a second hand-written table. The package ships them:
qfx/config/golden is a link to that directory in the source tree, and
`pip install` copies the files into the installed package.
"""

from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

_GOLDEN_DIR = pathlib.Path(__file__).resolve().parent / "golden"


def golden_dir() -> pathlib.Path:
    """The package's golden data."""
    return _GOLDEN_DIR


@functools.lru_cache(maxsize=None)
def load(name: str) -> Any:
    path = golden_dir() / name
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(
            f"qfx reads its configuration presets from PyTorch's golden data, {path}, "
            "which is missing: the package was installed without its data files"
        ) from None
