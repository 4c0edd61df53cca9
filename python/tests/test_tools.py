"""Tests of running qfx's tools from Python."""

import pathlib

import pytest

import qfx

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "example" / "mlp.mlir"


def test_quant_opt_round_trips_the_example_model():
    printed = qfx.quant_opt(EXAMPLE.read_text())
    assert "func.func @main" in printed
    assert 'qfx.origin = "torch.nn.Linear"' in printed
    # Printing is a fixed point: parsing the printed IR prints it again.
    assert qfx.quant_opt(printed) == printed


def test_quant_opt_runs_passes():
    printed = qfx.quant_opt(
        EXAMPLE.read_text(), "--tosa-attach-target=profiles=pro_fp", "--tosa-validate"
    )
    assert "tosa.matmul" in printed


def test_quant_opt_reports_diagnostics():
    bad = "func.func private @f() attributes {a = #qfx.observer<minmax, bins = 4>}"
    with pytest.raises(qfx.ToolError) as failure:
        qfx.quant_opt(bad)
    assert failure.value.returncode != 0
    assert "takes no argument 'bins'" in failure.value.diagnostics
    assert "<stdin>:1:" in failure.value.diagnostics


def test_find_tool_names_where_it_looked(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(FileNotFoundError, match="cannot find the qfx tool 'no-such-tool'"):
        qfx.find_tool("no-such-tool")
