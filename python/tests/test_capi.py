"""qfx's C API from Python (qfx._capi): pipelines, calibration, JIT-compiled
models and ahead-of-time compilation in this process."""

import pathlib
import subprocess

import numpy as np
import pytest
import torch

import qfx
from qfx import _capi
from qfx.exporter import export_with_outputs

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "example" / "mlp.mlir"
RESIDUAL = ROOT / "test" / "Inputs" / "models" / "residual.mlir"
RUNTIME = ROOT / "test" / "Runtime" / "Inputs"


def test_run_pipeline_gives_quant_opts_result():
    text, diagnostics = _capi.run_pipeline(RESIDUAL.read_text(),
                                           "builtin.module(qfx-prepare-pipeline{backend=x86})",
                                           debug_info=False)
    assert diagnostics == []
    assert text == qfx.quant_opt(RESIDUAL.read_text(), "--qfx-fuse", "--qfx-prepare")
    assert "qfx.observe" in text


def test_a_stage_the_session_printed_is_not_parsed_again():
    prepare = "builtin.module(qfx-prepare-pipeline{backend=x86})"
    observed, _ = _capi.run_pipeline(RESIDUAL.read_text(), prepare)
    parsed = _capi.parsed_sources()
    # Given back, the text is the module the session kept: cloned, so a
    # pipeline changing it leaves the kept one as it was.
    again, _ = _capi.run_pipeline(observed, "builtin.module(symbol-dce)")
    assert _capi.parsed_sources() == parsed
    assert again == observed
    dropped, _ = _capi.run_pipeline(observed, "builtin.module(qfx-lower-observers,symbol-dce)")
    assert _capi.parsed_sources() == parsed
    assert "qfx.observe" not in dropped and "qfx.observe" in observed
    # Anything else is parsed: another text, or one printed without locations.
    other = observed + "\n"
    assert _capi.run_pipeline(other, "builtin.module()")[0] == observed
    assert _capi.parsed_sources() == parsed + 1
    plain, _ = _capi.run_pipeline(RESIDUAL.read_text(), prepare, debug_info=False)
    _capi.run_pipeline(plain, "builtin.module()", debug_info=False)
    assert _capi.parsed_sources() == parsed + 3


def test_stages_go_through_files_the_library_reads_and_writes(tmp_path):
    # A stage printed into a file (qfxSessionSetOutputFile) is the text the
    # call would return; given back as the source file, it is not parsed,
    # nor through a hard link; changed, it is.
    prepare = "builtin.module(qfx-prepare-pipeline{backend=x86})"
    observed = tmp_path / "observed.mlir"
    text, _ = _capi.run_pipeline(RESIDUAL.read_text(), prepare, output_file=observed)
    assert text is None
    assert observed.read_text() == _capi.run_pipeline(RESIDUAL.read_text(), prepare)[0]
    _capi.run_pipeline(RESIDUAL.read_text(), prepare, output_file=observed)
    parsed = _capi.parsed_sources()
    linked = tmp_path / "linked.mlir"
    linked.hardlink_to(observed)
    dropped = tmp_path / "dropped.mlir"
    _capi.run_pipeline(linked, "builtin.module(symbol-dce)", output_file=dropped)
    assert _capi.parsed_sources() == parsed
    assert dropped.read_text() == observed.read_text()
    dropped.write_text(dropped.read_text() + "\n")
    assert _capi.run_pipeline(dropped, "builtin.module()")[0] == observed.read_bytes()
    assert _capi.parsed_sources() == parsed + 1
    # The file's name is the source name of its locations and diagnostics.
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {")
    with pytest.raises(qfx.ToolError, match="bad.mlir:1:"):
        _capi.run_pipeline(bad, "builtin.module()", source_name=str(bad))
    with pytest.raises(qfx.ToolError, match="cannot read '.*missing.mlir'"):
        _capi.run_pipeline(tmp_path / "missing.mlir", "builtin.module()")
    # An output that cannot be written is an error, and no file is left.
    with pytest.raises(qfx.ToolError, match="no/such/dir"):
        _capi.run_pipeline(RESIDUAL.read_text(), prepare,
                           output_file=tmp_path / "no" / "such" / "dir" / "x.mlir")
    assert not (tmp_path / "no").exists()
    # Each offer is for the next call only.
    assert _capi.run_pipeline("module {}", "builtin.module()", debug_info=False)[0] == "module {\n}\n\n"


def test_weights_are_given_by_reference():
    # The exporter's large weights are resources: the text names them, the
    # arrays go to the library as they are; the result is the full text's.
    model = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 3), torch.nn.ReLU()).eval()
    x = torch.randn(1, 16, 8, 8)
    exported = export_with_outputs(model, (x,))[0]
    (key, weight), = exported.resources.items()
    assert f"dense_resource<{key}> : tensor<32x3x3x16xf32>" in exported.text
    assert weight.dtype == np.float32 and weight.shape == (32, 3, 3, 16)
    assert "dense_resource" not in exported.text.split(f"dense_resource<{key}>", 1)[1]  # bias: small
    pipeline = "builtin.module(qfx-prepare-pipeline{backend=x86})"
    # An array must be C-contiguous (its bytes are read as they lie).
    with pytest.raises(ValueError, match="C-contiguous"):
        _capi.run_pipeline(exported.text, pipeline, resources={key: weight.T})
    by_reference, _ = _capi.run_pipeline(exported.text, pipeline, resources=exported.resources)
    as_text, _ = _capi.run_pipeline(exported.full_text(), pipeline)
    assert by_reference == as_text and "dense_resource" not in by_reference
    # Again in the same session, with the same keys: each call parses into a
    # new context (one that had seen a key would rename it).
    again, _ = _capi.run_pipeline(exported.text, pipeline, resources=exported.resources)
    assert again == by_reference
    # Without the bytes, the resource is an error at its op.
    with pytest.raises(qfx.ToolError, match=f"dense_resource<{key}> has no data"):
        _capi.run_pipeline(exported.text, pipeline)
    # export_tosa's text holds them (quant-opt reads it).
    full = qfx.export_tosa(model, (x,))
    assert "dialect_resources" in full
    assert "dense_resource" not in qfx.quant_opt(full, "--qfx-materialize-resources")


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


def test_calibrate_gives_quant_runs_module(tmp_path):
    observed = RUNTIME / "observed.mlir"
    samples = RUNTIME / "calib-samples.npy"
    seen = []
    text = _capi.calibrate(observed.read_text(), [str(samples)], source_name=str(observed),
                           progress=lambda done, total: seen.append((done, total)))
    count = np.load(samples).shape[0]
    assert seen == [(k + 1, count) for k in range(count)]
    subprocess.run([str(qfx.find_tool("quant-run")), str(observed), f"--calibrate={samples}",
                    "-o", str(tmp_path / "calibrated.mlir")], check=True)
    assert text == (tmp_path / "calibrated.mlir").read_text()
    bad = np.zeros((2, 2, 3), np.float32)
    bad[1, 0, 0] = np.inf
    np.save(tmp_path / "bad.npy", bad)
    with pytest.raises(qfx.ToolError, match=r"calibration sample 1 of input 0 \(.*bad.npy\) has "
                       "1 NaN or infinite values"):
        _capi.calibrate(observed.read_text(), [str(tmp_path / "bad.npy")])
    with pytest.raises(qfx.ToolError, match="no sample sources given"):
        _capi.calibrate(observed.read_text(), [])


def test_model_runs_in_process():
    model = _capi.Model((RUNTIME / "add.mlir").read_text(), entry="main")
    assert model.entry == "main"
    assert model.inputs == [(np.float32, (2, 3))] * 2
    assert model.results == [(np.float32, (2, 3)), (np.int32, (2, 3))]
    x = np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5
    y = x + 1
    total, cast = model([x, y])
    np.testing.assert_array_equal(total, x + y)
    np.testing.assert_array_equal(cast, (x + y).astype(np.int32))
    # The inputs are left alone, a transposed view is taken as its values.
    assert np.array_equal(x, np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5)
    np.testing.assert_array_equal(model([x, np.ascontiguousarray(y.T).T])[0], x + y)
    with pytest.raises(qfx.ToolError, match="several public functions"):
        _capi.Model((RUNTIME / "add.mlir").read_text())
    with pytest.raises(qfx.ToolError, match="target 'sparc': expected host"):
        _capi.Model((RUNTIME / "add.mlir").read_text(), entry="main", target="sparc")


def test_compile_to_file_gives_quant_compiles_library(tmp_path):
    source = RUNTIME / "forward.mlir"
    _capi.compile_to_file(source.read_text(), tmp_path / "capi.so", source_name=str(source))
    subprocess.run([str(qfx.find_tool("quant-compile")), str(source), "-o",
                    str(tmp_path / "tool.so")], check=True)
    assert (tmp_path / "capi.h").read_text() == (tmp_path / "tool.h").read_text()
    assert (tmp_path / "capi.so").stat().st_size > 0
    with pytest.raises(qfx.ToolError, match=r"bad.exe: expected an object file"):
        _capi.compile_to_file(source.read_text(), tmp_path / "bad.exe")
    assert not (tmp_path / "bad.exe").exists() and not (tmp_path / "bad.h").exists()


def test_builtin_config_is_the_librarys():
    import json

    table = json.loads(_capi.builtin_config("backend_config", "x86"))
    assert table["name"] == "x86" and table == qfx.get_backend_config("x86").to_dict()
    patterns = json.loads(_capi.builtin_config("torch_to_tosa"))
    conv_relu = [p for p in patterns
                 if p["torch_pattern"] == ["torch.nn.Conv2d", "torch.nn.ReLU"]
                 and p["tosa_pattern"] == ["tosa.conv2d", "tosa.clamp"]]
    assert conv_relu == [{"torch_pattern": ["torch.nn.Conv2d", "torch.nn.ReLU"],
                          "tosa_pattern": ["tosa.conv2d", "tosa.clamp"],
                          "root_op": "tosa.conv2d", "fused_op": "conv2d_relu",
                          "fuser": "sequence", "reference_lowering": "contraction",
                          "input_roles": {"weight": [0, 1], "bias": [0, 2]}}]
    spec = next(s for s in qfx.torch_to_tosa() if s.tosa_pattern == ("tosa.conv2d", "tosa.clamp"))
    assert ("torch.nn.functional.conv2d", "torch.nn.functional.relu") in spec.torch_patterns
    assert (spec.weight, spec.bias, spec.fused_op) == ((0, 1), (0, 2), "conv2d_relu")
    assert qfx.TORCH_TO_TOSA == qfx.torch_to_tosa()
    with pytest.raises(ValueError, match="no built-in backend config 'arm'"):
        _capi.builtin_config("backend_config", "arm")
    with pytest.raises(ValueError, match="unknown kind 'tables'"):
        _capi.builtin_config("tables")


def test_a_model_runs_on_several_threads_at_once():
    """One JIT-compiled model called from 4 threads at once (ctypes drops
    the GIL; each thread has its own session for errors), each on its own
    input, gives what serial calls give; a thread's bad call does not
    disturb the others."""
    import threading

    # The residual test model in int8: qfx-codegen's kernels, on OpenMP
    # threads of their own where the CPU has them.
    models = ROOT / "test" / "Inputs" / "models"
    observed, _ = _capi.run_pipeline(
        RESIDUAL.read_text(),
        "builtin.module(qfx-prepare-pipeline{qconfig-mapping=default:x86 backend=x86})")
    calibrated = _capi.calibrate(observed, [str(models / "residual.calib.npy")])
    int8, _ = _capi.run_pipeline(calibrated, "builtin.module(qfx-quantize-pipeline{backend=x86})")
    assert "tosa.rescale" in int8
    model = _capi.Model(int8)
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal(shape).astype(dtype) for dtype, shape in model.inputs]
    per_thread = [[x * (t + 1) for x in inputs] for t in range(4)]
    expected = [model(args) for args in per_thread]
    failures = []

    def work(t):
        try:
            for call in range(200):
                if call % 50 == 0:  # an error in between changes nothing
                    with pytest.raises(qfx.ToolError, match="0 given"):
                        model([])
                for got, want in zip(model(per_thread[t]), expected[t]):
                    if not np.array_equal(got, want):
                        failures.append((t, call))
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append((t, repr(error)))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_a_call_frees_each_activation_after_its_last_use():
    """qfx-early-dealloc: a chain of 8 convolutions holds about four
    activations at once (the input's copy and its NHWC transpose, a layer's
    padded input and output: 270 KB), not every layer's until the call
    returns (730 KB without the pass)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    layers = [torch.nn.Conv2d(16, 16, 3, padding=1) for _ in range(8)]
    chain = torch.nn.Sequential(*layers).eval()
    x = torch.randn(1, 16, 32, 32)
    model = _capi.Model(qfx.export_tosa(chain, (x,)))
    activation = 16 * 32 * 32 * 4
    model([x.numpy()])
    live_before, _, _ = _capi.buffer_stats()
    _capi.reset_buffer_peak()
    model([x.numpy()])
    _, peak, _ = _capi.buffer_stats()
    assert activation <= peak - live_before < 6 * activation


def test_programs_reuse_their_buffers():
    """A compiled program's buffers come from the buffer cache: a call hands
    them all back, its peak is the same on every call, and the second call
    reuses the first's (the cache keeps at least the peak)."""
    model = _capi.Model(RESIDUAL.read_text())
    x = np.ones((2, 8, 6, 6), np.float32)
    peaks, kept = [], []
    for _ in range(2):
        live_before, _, _ = _capi.buffer_stats()
        _capi.reset_buffer_peak()
        model([x])
        live, peak, cached = _capi.buffer_stats()
        assert live == live_before
        peaks.append(peak - live_before)
        kept.append(cached)
    assert peaks[0] == peaks[1] > 0
    assert kept[0] >= peaks[0]
    # The second call took its buffers from the cache: it keeps no more.
    assert kept[1] == kept[0]
