"""The quantized model's compiled int8 program.

convert_fx compiles int8.mlir once, in this process (qfx's C API, as
quant-run compiles it); calls and run_samples run it, with no tool and no
process. save also compiles it ahead of time (libmodel.so, model.h, as
quant-compile does) and load uses that library, called through ctypes, when
it can, and compiles int8.mlir in-process otherwise. The outputs equal
quant-run's bit for bit (also checked for every parity model in
test_quantize_fx.py). Needs torch (Debian's python3-torch: run with
/usr/bin/python3).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

import qfx
from qfx import _capi
from qfx import _compiled
from qfx import quantize_fx

nn = torch.nn


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(
        a.view(np.uint32), b.view(np.uint32))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 6)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def samples(shape, count, seed):
    return np.random.default_rng(seed).standard_normal((count, *shape)).astype(np.float32)


@pytest.fixture(scope="module")
def mlp():
    torch.manual_seed(7)
    model = MLP().eval()
    prepared = qfx.prepare_fx(model, "default:x86", (torch.zeros(4, 16),), outputs=None)
    for x in samples((4, 16), 8, seed=1):
        prepared(x)
    return qfx.convert_fx(prepared)


@pytest.fixture
def no_tools(monkeypatch):
    """Any attempt to start a process (quant-run, quant-compile, ...) fails."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a process was started: {args[0] if args else kwargs}")
    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


@pytest.fixture
def compile_count(monkeypatch):
    """Counts the in-process compilations of a stage (quantize_fx._jit)."""
    calls = []
    real = quantize_fx._jit

    def jit(directory, stage, signature, host):
        calls.append(stage)
        return real(directory, stage, signature, host)
    monkeypatch.setattr(quantize_fx, "_jit", jit)
    return calls


# ----- convert_fx compiles, calls run the program ----------------------------------


def test_convert_fx_compiles_the_int8_program_in_process(mlp):
    assert isinstance(mlp._function, _capi.Model) and mlp._function.entry == "main"
    assert mlp._function.inputs == [(np.float32, (4, 16))]
    assert mlp._function.results == [(np.float32, (4, 6))]
    assert not (mlp.workdir / "libmodel.so").exists()  # save compiles it


def test_prepare_fx_and_convert_fx_start_no_process(no_tools):
    # Exporting, preparing, the prepared model's float outputs, calibrating,
    # converting, lowering and compiling all run in this process.
    torch.manual_seed(11)
    model = MLP().eval()
    prepared = qfx.prepare_fx(model, "default:x86", (torch.zeros(4, 16),))
    xs = samples((4, 16), 4, seed=12)
    for x in xs:
        y = prepared(x)
        np.testing.assert_allclose(y, model(torch.from_numpy(x)).detach().numpy(), atol=1e-5)
    assert prepared.run_samples(xs).shape == (4, 4, 6)
    quantized = qfx.convert_fx(prepared)
    assert quantized(xs[0]).shape == (4, 6)


def test_calls_run_no_tool(mlp, no_tools):
    # The old path started quant-run (a JIT compilation, 0.3-0.5 s) per call.
    xs = samples((4, 16), 20, seed=2)
    outputs = [mlp(x) for x in xs]
    batched = mlp.run_samples(xs)
    assert batched.shape == (20, 4, 6) and batched.dtype == np.float32
    for x, y, b in zip(xs, outputs, batched):
        assert same_bits(y, b)
    assert isinstance(mlp(torch.from_numpy(xs[0])), torch.Tensor)
    assert isinstance(mlp.run_samples(torch.from_numpy(xs)), torch.Tensor)


def test_outputs_are_quant_runs_bit_for_bit(mlp, tmp_path):
    xs = samples((4, 16), 6, seed=3)
    np.save(tmp_path / "x.npy", xs[0])
    subprocess.run([str(qfx.find_tool("quant-run")), str(mlp.workdir / "int8.mlir"),
                    f"--input={tmp_path / 'x.npy'}", "-o", str(tmp_path / "y.npy")], check=True)
    assert same_bits(mlp(xs[0]), np.load(tmp_path / "y.npy"))
    # The library save compiles ahead of time computes the same.
    mlp.save(tmp_path / "saved")
    loaded = qfx.load(tmp_path / "saved")
    assert isinstance(loaded._function, _compiled.CompiledFunction)
    assert same_bits(loaded.run_samples(xs), mlp.run_samples(xs))


def test_inputs_are_left_alone_and_any_layout_is_taken(mlp):
    x = samples((4, 16), 1, seed=4)[0]
    before = x.copy()
    y = mlp(x)
    assert same_bits(x, before)
    # A non-contiguous view and a Fortran-ordered copy give the same outputs.
    wide = np.zeros((4, 32), np.float32)
    wide[:, ::2] = x
    assert same_bits(mlp(wide[:, ::2]), y)
    assert same_bits(mlp(np.asfortranarray(x)), y)
    tensor = torch.from_numpy(x.copy())
    mlp(tensor)
    assert torch.equal(tensor, torch.from_numpy(before))


def test_bad_inputs_give_clear_errors(mlp, no_tools):
    # Another shape of the same rank compiles another program, if the model
    # takes it (test_module.py); this one's first Linear does not.
    with pytest.raises(ValueError, match=r"inputs of shapes \[4, 8\] \(example_inputs: \[4, 16\]\): "
                       "exporting the PyTorch model at them failed: RuntimeError: mat1 and mat2"):
        mlp(np.zeros((4, 8), np.float32))
    with pytest.raises(ValueError, match=r"input 0 has shape \[4, 16, 1\]; the model was "
                       r"prepared for \[4, 16\] \(example_inputs\)$"):
        mlp(np.zeros((4, 16, 1), np.float32))
    with pytest.raises(TypeError, match="input 0 has dtype float64; the model takes float32"):
        mlp(np.zeros((4, 16)))
    with pytest.raises(TypeError, match="input 0 has dtype int64"):
        mlp(torch.zeros(4, 16, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"takes 1 input\(s\), 2 given"):
        mlp(np.zeros((4, 16), np.float32), np.zeros((4, 16), np.float32))
    with pytest.raises(ValueError, match=r"takes 1 input\(s\), 0 given"):
        mlp()
    with pytest.raises(ValueError, match=r"expected \[N, 4, 16\]"):
        mlp.run_samples(np.zeros((4, 16), np.float32))
    with pytest.raises(ValueError, match="no samples"):
        mlp.run_samples(np.zeros((0, 4, 16), np.float32))
    # The compiled program's own checks (the C API's), below the model's.
    with pytest.raises(qfx.ToolError, match=r"input 0 of @main: expected float32\[4, 16\], "
                       r"got int32\[4, 16\]"):
        mlp._function([np.zeros((4, 16), np.int32)])
    with pytest.raises(qfx.ToolError, match=r"result 0 of @main: expected float32\[4, 6\], "
                       r"got float32\[6, 4\]"):
        mlp._function([np.zeros((4, 16), np.float32)], [np.zeros((6, 4), np.float32)])
    with pytest.raises(qfx.ToolError, match=r"@main has 1 inputs, 2 given"):
        mlp._function([np.zeros((4, 16), np.float32)] * 2)
    with pytest.raises(TypeError, match="does not take float64 arrays"):
        mlp._function([np.zeros((4, 16))])
    with pytest.raises(ValueError, match="writable C-order arrays"):
        mlp._function([np.zeros((4, 16), np.float32)], [np.zeros((6, 4), np.float32).T])


# ----- save and load ----------------------------------------------------------------


def test_save_writes_the_library_and_load_uses_it(mlp, tmp_path, monkeypatch):
    mlp.save(tmp_path / "saved")
    saved = tmp_path / "saved"
    header = (saved / "model.h").read_text()
    assert "void _mlir_ciface_qfx_model(qfx_memref_2d *in0, qfx_memref_2d *out0);" in header
    assert " *   in0: float32[4, 16]\n" in header and " *   out0: float32[4, 6] (written)" in header
    assert (saved / "libmodel.so").read_bytes() == (mlp.workdir / "libmodel.so").read_bytes()
    assert (saved / "model.h").read_text() == (mlp.workdir / "model.h").read_text()
    manifest = json.loads((saved / "qfx_model.json").read_text())
    record = manifest["compiled"]
    assert record["library"] == "libmodel.so" and record["header"] == "model.h"
    assert record["function"] == "qfx_model" and record["target"] == "host"
    assert record["source"] == "int8.mlir"
    assert record["source_sha256"] == _compiled.source_digest(saved / "int8.mlir")
    assert record["machine"] and record == mlp._compile_record

    # Loading starts no process: the saved library runs as it is.
    xs = samples((4, 16), 5, seed=5)
    with monkeypatch.context() as patch:
        def refuse(*args, **kwargs):
            raise AssertionError("load started a process")
        patch.setattr(subprocess, "run", refuse)
        loaded = qfx.load(saved)
        assert same_bits(loaded.run_samples(xs), mlp.run_samples(xs))
        assert same_bits(loaded(xs[0]), mlp(xs[0]))
    assert loaded._function.library == loaded.workdir / "libmodel.so"
    assert loaded._function.name == "qfx_model"
    assert loaded._function.inputs == [_compiled.TensorSpec("float32", (4, 16))]
    assert loaded._function.outputs == [_compiled.TensorSpec("float32", (4, 6))]
    assert loaded._compile_record == record
    # The directory may go: the library was copied to the working directory.
    shutil.rmtree(saved)
    assert same_bits(loaded(xs[0]), mlp(xs[0]))
    loaded.save(tmp_path / "again")
    assert json.loads((tmp_path / "again" / "qfx_model.json").read_text())["compiled"] == record


def break_library_garbage(saved, manifest):
    (saved / "libmodel.so").write_bytes(b"not an ELF file")


def break_library_missing(saved, manifest):
    (saved / "libmodel.so").unlink()


def break_header_missing(saved, manifest):
    (saved / "model.h").unlink()


def break_record_missing(saved, manifest):  # saved before qfx compiled models
    del manifest["compiled"]
    (saved / "libmodel.so").unlink()
    (saved / "model.h").unlink()


def break_other_cpu(saved, manifest):
    manifest["compiled"]["cpu_flags"] = manifest["compiled"]["cpu_flags"] + ["qfx_future_isa"]


def break_other_machine(saved, manifest):
    manifest["compiled"]["machine"] = "riscv64"


def break_int8_edited(saved, manifest):
    (saved / "int8.mlir").write_text((saved / "int8.mlir").read_text() + "\n")


def break_header_disagrees(saved, manifest):
    header = (saved / "model.h").read_text()
    (saved / "model.h").write_text(header.replace("in0: float32[4, 16]", "in0: float32[4, 17]"))


def break_wrong_function(saved, manifest):
    # A library of another model's function, with a header to match: it
    # loads, but has no _mlir_ciface_qfx_model.
    source = saved / "other.mlir"
    source.write_text("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "  return %x : tensor<4xf32>\n}\n")
    subprocess.run([str(qfx.find_tool("quant-compile")), str(source), "--name=other",
                    "-o", str(saved / "libmodel.so"), f"--header={saved / 'other.h'}"],
                   check=True, capture_output=True)


@pytest.mark.parametrize("damage, why", [
    (break_library_garbage, "libmodel.so: libmodel.so does not load: file too short"),
    (break_library_missing, "libmodel.so: libmodel.so is missing"),
    (break_header_missing, "libmodel.so: model.h is missing"),
    (break_record_missing, "does not record a compiled library"),
    (break_other_cpu, r"CPU with features this one lacks \(qfx_future_isa\)"),
    (break_other_machine, "compiled for 'riscv64'"),
    (break_int8_edited, "int8.mlir changed after it was compiled"),
    (break_header_disagrees, r"model.h declares .*float32\[4, 17\]"),
    (break_wrong_function, "libmodel.so does not export _mlir_ciface_qfx_model"),
])
def test_load_compiles_when_the_library_cannot_be_used(mlp, tmp_path, compile_count,
                                                       monkeypatch, damage, why):
    saved = tmp_path / "saved"
    mlp.save(saved)
    manifest = json.loads((saved / "qfx_model.json").read_text())
    damage(saved, manifest)
    (saved / "qfx_model.json").write_text(json.dumps(manifest))

    loaded = qfx.load(saved)
    assert compile_count == ["int8"]  # int8.mlir compiled in-process
    assert loaded._compile_record is None
    xs = samples((4, 16), 3, seed=6)
    assert same_bits(loaded.run_samples(xs), mlp.run_samples(xs))
    # Saving it again writes a library load takes as it is.
    loaded.save(tmp_path / "fixed")
    record = loaded._compile_record
    assert record["source_sha256"] == _compiled.source_digest(loaded.workdir / "int8.mlir")
    assert record["cpu_flags"] == _compiled.cpu_description()["cpu_flags"]
    del compile_count[:]
    qfx.load(tmp_path / "fixed")
    assert compile_count == []

    # If compiling fails too, the error says why for both.
    def fail(mlir, source_name, entry=None, host=None):
        raise qfx.ToolError(f"qfx JIT compilation of {source_name}", 1, "no memory left\n")
    monkeypatch.setattr(_capi, "Model", fail)
    with pytest.raises(qfx.ToolError) as failure:
        qfx.load(saved)
    message = failure.value.diagnostics
    assert message.startswith(f"{saved}: cannot use the saved libmodel.so: ")
    assert re.search(why, message), message
    assert message.endswith("; compiling int8.mlir failed:\nno memory left\n")


def test_load_of_a_version_1_directory_compiles(tmp_path, compile_count):
    torch.manual_seed(8)
    prepared = qfx.prepare_fx(MLP().eval(), "default:x86", (torch.zeros(4, 16),), outputs=None)
    for x in samples((4, 16), 4, seed=9):
        prepared(x)
    quantized = qfx.convert_fx(prepared)
    old = tmp_path / "old"
    quantized.save(old)
    for name in ("int8.mlir", "libmodel.so", "model.h"):
        (old / name).unlink()
    manifest = json.loads((old / "qfx_model.json").read_text())
    for key in ("backend", "remarks", "float_ops", "compiled"):
        del manifest[key]
    del manifest["stages"]["int8"]
    del manifest["structure"]  # version 1 said whether the output was one tensor
    manifest["single_output"] = True
    manifest["version"] = 1
    (old / "qfx_model.json").write_text(json.dumps(manifest))
    del compile_count[:]
    loaded = qfx.load(old, backend_config="x86")
    assert compile_count == ["int8"]
    xs = samples((4, 16), 3, seed=10)
    assert same_bits(loaded.run_samples(xs), quantized.run_samples(xs))


# ----- the signature ----------------------------------------------------------------


def test_function_signature_reads_the_function_type():
    mlir = """#loc1 = loc("x")
module attributes {foo = "a, b (c)"} {
  func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
  func.func @main(%arg0: tensor<1x3x8x8xf32> {tf.name = "a,(b"} loc(#loc1),
                  %arg1: tensor<4xi8> loc("y"("m.py":3:1)), %arg2: tensor<f16>)
      -> (tensor<1x10xf32> {res.attr = 1 : i32}, tensor<2x2xui8>, tensor<3xi64>)
      attributes {qfx.note = "-> tensor<9xf32>"} {
    return
  }
}
"""
    inputs, outputs = _compiled.function_signature(mlir)
    spec = _compiled.TensorSpec
    assert inputs == [spec("float32", (1, 3, 8, 8)), spec("int8", (4,)), spec("float16", ())]
    assert outputs == [spec("float32", (1, 10)), spec("uint8", (2, 2)), spec("int64", (3,))]
    assert _compiled.function_signature(mlir, "helper") == ([spec("float32", (2,))],
                                                            [spec("float32", (2,))])
    assert str(inputs[0]) == "float32[1, 3, 8, 8]" and str(inputs[2]) == "float16[]"
    # One result without parentheses, and a function without results.
    assert _compiled.function_signature(
        'func.func @main(%x: tensor<2x3xi32> loc("x")) -> tensor<6xi32> {') == (
        [spec("int32", (2, 3))], [spec("int32", (6,))])
    assert _compiled.function_signature("func.func @main() {") == ([], [])


def test_function_signature_errors():
    with pytest.raises(ValueError, match="no func.func @main"):
        _compiled.function_signature("func.func @other() {")
    with pytest.raises(ValueError, match=r"input 0 of @main has type tensor<\?x4xf32>: expected "
                       r"a statically shaped tensor of f32, f16, i8, ui8, i32, i64"):
        _compiled.function_signature("func.func @main(%x: tensor<?x4xf32>) {")
    with pytest.raises(ValueError, match=r"result 1 of @main has type tensor<4xbf16>"):
        _compiled.function_signature(
            "func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xbf16>) {")
    with pytest.raises(ValueError, match=r"input 0 of @main has type memref<4xf32>"):
        _compiled.function_signature("func.func @main(%x: memref<4xf32>) {")
    with pytest.raises(ValueError, match="the function type of @main: unbalanced"):
        _compiled.function_signature("func.func @main(%x: tensor<4xf32>")


def test_header_signature_is_the_function_type(mlp):
    name, inputs, outputs = _compiled.header_signature((mlp.workdir / "model.h").read_text())
    assert name == "qfx_model"
    assert (inputs, outputs) == _compiled.function_signature(mlp.mlir("int8"))
    with pytest.raises(ValueError, match="no _mlir_ciface_ declaration"):
        _compiled.header_signature("/* nothing */")
    with pytest.raises(ValueError, match="inN lines are not numbered"):
        _compiled.header_signature("void _mlir_ciface_m(qfx_memref_1d *in1);\n"
                                   " *   in1: float32[2]\n")


def test_runs_here():
    here = _compiled.cpu_description()
    assert _compiled.runs_here(dict(here)) is None
    if here["cpu_flags"]:
        fewer = dict(here, cpu_flags=here["cpu_flags"][:3])
        assert _compiled.runs_here(fewer) is None
    assert "not known" in _compiled.runs_here(dict(here, cpu_flags=None))
    assert "compiled for 'sparc'" in _compiled.runs_here(dict(here, machine="sparc"))


def test_loading_bounds_omp_spinning_unless_chosen(mlp, monkeypatch, tmp_path):
    # The kernels' threads (libomp's) spin 1 ms after a parallel region, then
    # sleep: loading a compiled model sets KMP_BLOCKTIME=1, as quant-run
    # does, but leaves a choice the user made, and sets nothing PyTorch's
    # OpenMP runtime reads. (qfx._capi asks the same when it loads the C
    # API.)
    mlp.save(tmp_path / "saved")
    loaded = qfx.load(tmp_path / "saved")  # keeps its working directory
    library = loaded._function

    def load():
        _compiled.CompiledFunction(library.library, library.name, library.inputs,
                                   library.outputs)

    for name in ("OMP_WAIT_POLICY", "KMP_BLOCKTIME", "KMP_LIBRARY"):
        monkeypatch.delenv(name, raising=False)
    load()
    assert os.environ["KMP_BLOCKTIME"] == "1"
    assert "OMP_WAIT_POLICY" not in os.environ
    for name, value in (("OMP_WAIT_POLICY", "passive"), ("KMP_BLOCKTIME", "20"),
                        ("KMP_LIBRARY", "turnaround")):
        for other in ("OMP_WAIT_POLICY", "KMP_BLOCKTIME", "KMP_LIBRARY"):
            monkeypatch.delenv(other, raising=False)
        monkeypatch.setenv(name, value)
        load()
        assert {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "KMP_BLOCKTIME",
                                                "KMP_LIBRARY")} == {
            k: (value if k == name else None)
            for k in ("OMP_WAIT_POLICY", "KMP_BLOCKTIME", "KMP_LIBRARY")}


def test_set_num_threads_reaches_every_calling_thread(mlp, monkeypatch):
    # libomp keeps a thread count per thread: qfx.set_num_threads gives it to
    # whichever thread calls a model next, as torch.set_num_threads does
    # for PyTorch's threads.
    libomp = _compiled._libomp()
    default = libomp.omp_get_max_threads()
    count = default + 1
    monkeypatch.setattr(_compiled, "_threads", None)
    assert qfx.get_num_threads() == default
    x = samples((4, 16), 1, seed=3)[0]
    expected = mlp(x)
    try:
        qfx.set_num_threads(count)
        assert qfx.get_num_threads() == count
        seen = []

        def call():
            seen.append(libomp.omp_get_max_threads())
            seen.append(same_bits(mlp(x), expected))
            seen.append(libomp.omp_get_max_threads())

        thread = threading.Thread(target=call)
        thread.start()
        thread.join()
        assert seen == [default, True, count]
    finally:
        libomp.omp_set_num_threads(default)  # this thread's
    for bad in (0, -1, 2.0, "2", True, None):
        with pytest.raises(ValueError, match="positive int"):
            qfx.set_num_threads(bad)


IDLE_SCRIPT = """
import resource, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import importlib.util
from qfx import _capi
spec = importlib.util.spec_from_file_location("c", sys.argv[2])
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
model = _capi.Model(cases.case(np.random.default_rng(0), 256, 256, 256, 0))
x = np.zeros((1, 256, 256), np.int8)
for _ in range(20):
    model([x])
usage = resource.getrusage(resource.RUSAGE_SELF)
before = usage.ru_utime + usage.ru_stime
time.sleep(1.0)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(usage.ru_utime + usage.ru_stime - before)
"""


@pytest.mark.parametrize("policy", [None, "active"])
def test_an_idle_process_does_not_spin(policy, tmp_path, python_env):
    # After its last call, a process whose main thread sleeps uses next to
    # no CPU: the kernels' threads (a 256^3 GEMM's, on two) sleep 1 ms after
    # their last region. With OMP_WAIT_POLICY=active (the user's choice, and
    # qfx's default before) they spin for ever: a core for the whole second.
    env = {k: v for k, v in python_env.items()
           if k not in ("OMP_WAIT_POLICY", "KMP_BLOCKTIME", "KMP_LIBRARY")}
    env["OMP_NUM_THREADS"] = "2"
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    cases = pathlib.Path(__file__).parents[2] / "test" / "Codegen" / "Inputs" / "matmul-cases.py"
    script = tmp_path / "idle.py"
    script.write_text(IDLE_SCRIPT)
    out = subprocess.run([sys.executable, str(script), str(pathlib.Path(qfx.__file__).parents[1]),
                          str(cases)], env=env, check=True, capture_output=True, text=True)
    seconds = float(out.stdout.split()[-1])
    if policy:
        assert seconds > 0.3
    else:
        assert seconds < 0.1
