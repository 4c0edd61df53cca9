"""Stage files written on threads (qfx._stagefiles): whole or absent, errors
raised at the flush, and linked (not copied) into a converted model's
working directory."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import qfx  # noqa: E402
from qfx import _stagefiles  # noqa: E402


def test_a_write_is_whole_once_waited_for(tmp_path):
    data = os.urandom(1 << 20) * 64  # 64 MB: the write takes a while
    path = tmp_path / "big.mlir"
    _stagefiles.write(path, data)
    _stagefiles.wait(path)
    assert path.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.mlir"]  # no .partial left
    assert not _stagefiles._pending


def test_pieces_are_written_in_order(tmp_path):
    path = tmp_path / "pieces.mlir"
    _stagefiles.write(path, (bytes([k]) * 1000 for k in range(3)))
    _stagefiles.flush()
    assert path.read_bytes() == b"\0" * 1000 + b"\1" * 1000 + b"\2" * 1000


def test_a_failed_write_raises_at_the_flush(tmp_path):
    _stagefiles.write(tmp_path / "missing" / "x.mlir", b"x")
    with pytest.raises(FileNotFoundError):
        _stagefiles.flush()
    _stagefiles.flush()  # reported once


def test_a_link_keeps_its_bytes_when_the_source_is_written_again(tmp_path):
    source, target = tmp_path / "a.mlir", tmp_path / "b.mlir"
    _stagefiles.write(source, b"first")
    _stagefiles.link(source, target)  # waits for the write
    assert os.stat(source).st_ino == os.stat(target).st_ino
    _stagefiles.write(source, b"second")  # replaces the file, not its bytes
    _stagefiles.flush()
    assert (source.read_bytes(), target.read_bytes()) == (b"second", b"first")


def test_the_workdirs_are_whole_when_prepare_and_convert_return():
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
    x = torch.randn(1, 3, 8, 8)
    prepared = qfx.prepare_fx(model, "default:x86", (x,), outputs=None)
    assert not _stagefiles._pending
    prepared(x)
    quantized = qfx.convert_fx(prepared)
    assert not _stagefiles._pending
    for stage in ("float", "observed"):
        ours, theirs = quantized.workdir / f"{stage}.mlir", prepared.workdir / f"{stage}.mlir"
        assert os.stat(ours).st_ino == os.stat(theirs).st_ino  # linked, not copied
    for stage in ("calibrated", "reference", "int8"):
        assert "module" in quantized.mlir(stage) and "func.func @main" in quantized.mlir(stage)
    assert not list(quantized.workdir.glob("*.partial"))


def test_stages_go_to_the_library_as_files(monkeypatch, tmp_path):
    # A stage is hundreds of MB: the exporter's text goes to the library as
    # bytes (its weights by reference); every later stage the library
    # writes into its file and reads back from it, never through Python.
    from qfx import _capi

    seen = []
    for name in ("run_pipeline", "calibrate"):
        def recording(mlir, *args, _original=getattr(_capi, name), _name=name, **kwargs):
            result = _original(mlir, *args, **kwargs)
            seen.append((_name, type(mlir).__name__ if isinstance(mlir, bytes) else
                         pathlib.Path(mlir).name, pathlib.Path(kwargs["output_file"]).name,
                         result if _name == "calibrate" else result[0]))
            return result
        monkeypatch.setattr(_capi, name, recording)
    model = torch.nn.Sequential(torch.nn.Conv2d(8, 64, 3), torch.nn.ReLU()).eval()
    x = torch.randn(1, 8, 8, 8)
    for record_samples in (True, False):
        seen.clear()
        prepared = qfx.prepare_fx(model, "default:x86", (x,), outputs=None,
                                  record_samples=record_samples)
        prepared(x)
        parsed = _capi.parsed_sources()
        qfx.convert_fx(prepared)
        assert seen == [("run_pipeline", "bytes", "observed.mlir", None)] + (
            [("calibrate", "observed.mlir", "calibrated.mlir", None)] if record_samples
            else []) + [("run_pipeline", "calibrated.mlir", "reference.mlir", None),
                        ("run_pipeline", "reference.mlir", "int8.mlir", None)]
        # Each stage the library wrote went to the next call (the int8 stage
        # to the JIT's) without being parsed, but for the statistics of
        # calls observed in this process: the prepared model's calibration
        # writes them from a context of its own, which the session does not
        # keep (the calibration may go before its next call).
        assert _capi.parsed_sources() == parsed + (not record_samples)
