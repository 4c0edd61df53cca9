"""utils/bench/convert_scale.py: a small run gives one row per framework,
each step's time and peak memory as MB and as a multiple of the weights."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_a_small_run_gives_the_table(tmp_path, python_env):
    table = tmp_path / "scale.md"
    done = subprocess.run([sys.executable, str(REPO / "utils" / "bench" / "convert_scale.py"),
                           "--models", "resnet18", "--size", "32", "--calibrate", "1",
                           "--markdown", str(table)],
                          capture_output=True, text=True, env=python_env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = table.read_text().splitlines()
    assert lines[0] == ("| model | parameters | float weights | framework | prepare | calibrate "
                        "| convert | first call |")
    cell = r"[0-9.]+ s, [0-9]+ MB \([0-9.]+x\)"
    for row, framework in zip(lines[2:], ("qfx", "PyTorch FX")):
        assert re.fullmatch(rf"\| resnet18 \| 11\.7 M \| 45 MB \| {framework} "
                            rf"\| {cell} \| {cell} \| {cell} \| {cell} \|", row), row
    assert len(lines) == 4
