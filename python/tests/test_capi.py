"""qfx's C API from Python (qfx._capi): pipelines in this process."""

import pathlib
import subprocess

import pytest
import torch

import qfx
from qfx import _capi

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "example" / "mlp.mlir"
RESIDUAL = ROOT / "test" / "Inputs" / "models" / "residual.mlir"


def test_run_pipeline_gives_quant_opts_result():
    text, diagnostics = _capi.run_pipeline(RESIDUAL.read_text(),
                                           "builtin.module(qfx-prepare-pipeline{backend=x86})",
                                           debug_info=False)
    assert diagnostics == []
    assert text == qfx.quant_opt(RESIDUAL.read_text(), "--qfx-fuse", "--qfx-prepare")
    assert "qfx.observe" in text


def test_run_pipeline_returns_remarks_as_records():
    mapping = ROOT / "test" / "Tools" / "Inputs" / "residual-names-mapping.json"
    _, diagnostics = _capi.run_pipeline(
        RESIDUAL.read_text(),
        f"builtin.module(qfx-prepare{{qconfig-mapping={_capi.quote_option(str(mapping))}}})")
    conv2 = [i for i, d in enumerate(diagnostics)
             if d.severity == "remark" and d.location == '"conv2"']
    assert len(conv2) == 1
    remark = diagnostics[conv2[0]]
    assert remark.message.startswith("not quantized: its QConfig is null (module 'conv2'")
    note = diagnostics[conv2[0] + 1]
    assert (note.severity, note.parent) == ("note", conv2[0])
    assert "see current operation" in note.message and "tosa.conv2d" in note.message
    # Laid out as quant-opt prints it.
    assert str(remark).startswith('<unknown>:0: remark: loc("conv2"): not quantized')


def test_run_pipeline_errors_are_tool_errors():
    with pytest.raises(qfx.ToolError) as failure:
        _capi.run_pipeline("func.func @f( {", "builtin.module(qfx-fuse)", source_name="bad.mlir")
    assert "bad.mlir:1:14: error: expected non-function type" in failure.value.diagnostics
    with pytest.raises(qfx.ToolError, match="'qfx-nope' does not refer to a registered pass"):
        _capi.run_pipeline(EXAMPLE.read_text(), "builtin.module(qfx-nope)")
    with pytest.raises(qfx.ToolError, match="backend: nope: cannot read the backend config"):
        _capi.run_pipeline(EXAMPLE.read_text(), "builtin.module(qfx-fuse{backend=nope})")
    with pytest.raises(ValueError, match="cannot contain"):
        _capi.quote_option('a"b')


class _MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 8)
        self.relu = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def test_prepare_and_convert_run_no_quant_opt(monkeypatch):
    """qfx-fuse, qfx-prepare, qfx-convert and qfx-lower run in this process:
    no quant-opt is started (calibration and compilation still run
    quant-run and quant-compile)."""
    started = []
    run = subprocess.run

    def record(args, *rest, **kwargs):
        started.append(pathlib.Path(str(args[0])).name)
        return run(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", record)
    torch.manual_seed(0)
    model = _MLP().eval()
    prepared = qfx.prepare_fx(model, "default:x86", (torch.zeros(2, 16),), outputs=None)
    prepared(torch.randn(2, 16))
    quantized = qfx.convert_fx(prepared)
    assert quantized(torch.randn(2, 16)).shape == (2, 4)
    assert "quant-opt" not in started
    assert started, "the test records nothing"
