"""qfx's prepared and quantized models as torch.nn.Modules: composition,
hooks, modes, devices, copies, pickles (torch.save / torch.load in a fresh
process) and state_dict round trips."""

from __future__ import annotations

import copy
import gc
import pickle
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch

import qfx
from qfx import ns

nn = torch.nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.relu(self.conv(x))), 1))


def data(count, seed, shape=(2, 3, 8, 8)):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=generator) for _ in range(count)]


def convert(calibration, model=None):
    if model is None:
        torch.manual_seed(0)
        model = SmallCNN().eval()
    prepared = qfx.prepare_fx(model, "default:x86", (calibration[0],), backend_config="x86",
                              outputs=None)
    for x in calibration:
        prepared(x)
    return qfx.convert_fx(prepared)


@pytest.fixture(scope="module")
def quantized():
    return convert(data(4, 1))


def test_prepared_and_quantized_models_are_modules(quantized):
    x = data(1, 2)[0]
    y = quantized(x)
    assert isinstance(quantized, nn.Module) and list(quantized.parameters()) == []
    # They compose, and their outputs stay the program's.
    head = nn.Sequential(quantized, nn.Softmax(dim=1))
    assert torch.equal(head(x), torch.softmax(y, dim=1))
    # Hooks see the call's inputs and outputs.
    seen = []
    handle = quantized.register_forward_hook(lambda m, i, o: seen.append((i[0], o)))
    quantized(x)
    handle.remove()
    assert len(seen) == 1 and seen[0][0] is x and torch.equal(seen[0][1], y)
    # Modes and grad contexts change nothing they compute.
    assert quantized.train() is quantized and quantized.training
    assert torch.equal(quantized(x), y)
    assert quantized.eval() is quantized and not quantized.training
    with torch.no_grad():
        assert torch.equal(quantized(x), y)
    with torch.inference_mode():
        assert torch.equal(quantized(x), y)
    assert torch.equal(quantized(x.requires_grad_()), y)

    torch.manual_seed(0)
    user_model = SmallCNN().eval()
    prepared = qfx.prepare_fx(user_model, "default:x86", (x,), outputs="torch")
    assert isinstance(prepared, nn.Module) and list(prepared.parameters()) == []
    # The user's model is not the prepared model's submodule: .train() of
    # the prepared model leaves it in eval mode.
    prepared.train()
    assert not user_model.training
    nn.Sequential(prepared)(x)  # recorded through Module.__call__
    assert prepared.num_samples == 1


def test_a_qfx_model_is_not_a_pytorch_model(quantized):
    with pytest.raises(TypeError, match="a qfx model already"):
        qfx.prepare_fx(quantized, "default:x86", (data(1, 2)[0],))
    # The numeric suite tells them apart too.
    with pytest.raises(TypeError, match="must be the PyTorch float model"):
        ns.extract_weights("float", quantized, "int8", quantized)


def test_moving_to_another_device_or_dtype_raises(quantized):
    x = data(1, 3)[0]
    y = quantized(x)
    assert quantized.to("cpu") is quantized and quantized.float() is quantized
    assert quantized.to(torch.float32) is quantized and quantized.cpu() is quantized
    for move in (lambda m: m.half(), lambda m: m.double(), lambda m: m.to(torch.bfloat16),
                 lambda m: m.to("meta"), lambda m: m.to("meta", torch.float32)):
        with pytest.raises(NotImplementedError, match="on the CPU on float32 tensors"):
            move(quantized)
    assert torch.equal(quantized(x), y)


def test_deepcopy_is_independent_of_the_original():
    calibration = data(4, 4)
    original = convert(calibration)
    x = data(1, 5)[0]
    y = original(x)
    original.register_forward_pre_hook(lambda m, i: None)
    copied = copy.deepcopy(original)
    assert copied.workdir != original.workdir and len(copied._forward_pre_hooks) == 1
    assert copied.mlir("int8") == original.mlir("int8")
    assert copied.signature == original.signature and copied.float_ops == original.float_ops
    del original
    gc.collect()  # removes the original's working directory
    assert torch.equal(copied(x), y)
    assert copied.mlir("float")  # the copy's stage files are its own


def test_a_prepared_model_deepcopies_but_does_not_pickle():
    calibration = data(4, 6)
    torch.manual_seed(0)
    prepared = qfx.prepare_fx(SmallCNN().eval(), "default:x86", (calibration[0],),
                              backend_config="x86", outputs=None)
    for x in calibration[:2]:
        prepared(x)
    copied = copy.deepcopy(prepared)
    assert copied.workdir != prepared.workdir and copied.num_samples == 2
    assert copied._model is not prepared._model
    for x in calibration[2:]:
        copied(x)  # records in the copy only
    assert (prepared.num_samples, copied.num_samples) == (2, 4)
    torch.manual_seed(0)
    assert torch.equal(qfx.convert_fx(copied)(calibration[0]),
                       convert(calibration)(calibration[0]))
    with pytest.raises(TypeError, match="PreparedModel cannot be pickled"):
        pickle.dumps(prepared)


def test_torch_save_and_load_in_a_fresh_process(quantized, tmp_path, python_env):
    inputs = torch.stack(data(3, 7))
    torch.save(quantized, tmp_path / "model.pt")
    torch.save((inputs, quantized.run_samples(inputs)), tmp_path / "expected.pt")
    script = textwrap.dedent(f"""
        import torch
        model = torch.load({str(tmp_path / "model.pt")!r})
        inputs, expected = torch.load({str(tmp_path / "expected.pt")!r})
        assert type(model).__name__ == "QuantizedModel" and isinstance(model, torch.nn.Module)
        assert not model.training
        assert torch.equal(model.run_samples(inputs), expected)
        assert torch.equal(torch.nn.Sequential(model)(inputs[0]), expected[0])
        # The pickle carries the library compiled ahead of time.
        assert type(model._function).__name__ == "CompiledFunction"
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", script], env=python_env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    # A pickle holds the program, not the float stages.
    loaded = pickle.loads(pickle.dumps(quantized))
    assert loaded.mlir("int8") == quantized.mlir("int8")
    with pytest.raises(ValueError, match="no 'float' stage"):
        loaded.mlir("float")


def test_state_dict_carries_the_program(quantized, tmp_path):
    x = data(1, 8)[0]
    other = convert(data(4, 9))  # calibrated on other data: other outputs
    assert not torch.equal(other(x), quantized(x))
    state = quantized.state_dict()
    assert list(state) == ["_extra_state"] and state["_extra_state"].dtype == torch.uint8
    torch.save(state, tmp_path / "state.pt")
    handle = other.register_forward_hook(lambda m, i, o: None)
    other.load_state_dict(torch.load(tmp_path / "state.pt"))
    assert torch.equal(other(x), quantized(x))
    assert other.mlir("int8") == quantized.mlir("int8")
    assert len(other._forward_hooks) == 1  # hooks stay
    handle.remove()
    # Inside a container, under its name.
    outer = nn.Sequential(quantized, nn.ReLU())
    assert list(outer.state_dict()) == ["0._extra_state"]

    with pytest.raises(RuntimeError, match="Missing key.*_extra_state"):
        other.load_state_dict({})
    with pytest.raises(TypeError, match="1-d uint8 tensor, got Tensor torch.float32"):
        other.load_state_dict({"_extra_state": torch.zeros(3)})
    with pytest.raises(ValueError, match="load_state_dict: not a serialized qfx QuantizedModel"):
        other.load_state_dict({"_extra_state": torch.zeros(16, dtype=torch.uint8)})
    wider = convert(data(4, 10, shape=(3, 3, 8, 8)))
    with pytest.raises(ValueError, match=r"the saved model takes \(\[3, 3, 8, 8\] float32\)"):
        other.load_state_dict(wider.state_dict())
    assert torch.equal(other(x), quantized(x))  # failed loads changed nothing


def test_a_model_with_graph_breaks_copies_and_pickles():
    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(6, 6), nn.Linear(6, 3)

        def forward(self, x):
            return self.fc2(torch.topk(self.fc1(x), 6).values)

    torch.manual_seed(0)
    calibration = data(4, 11, shape=(2, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        quantized = convert(calibration, Broken().eval())
    assert [c.callee for c in quantized.graph_breaks] == ["torch.topk"]
    x = data(1, 12, shape=(2, 6))[0]
    y = quantized(x)
    copied = copy.deepcopy(quantized)
    assert copied.host is not quantized.host
    assert copied.host.calls[0] is not quantized.host.calls[0]
    assert torch.equal(copied(x), y)
    assert torch.equal(pickle.loads(pickle.dumps(quantized))(x), y)


def test_any_batch_size_through_one_converted_model(monkeypatch):
    """Prepared and calibrated at batch 2, the model runs batches of 1, 3 and
    16, each compiled at its first call with the first calibration's
    statistics: each sample's outputs are those of the batch-2 program."""
    quantized = convert(data(4, 13))
    pairs = torch.cat(data(8, 14))  # 16 samples
    expected = torch.cat([quantized(pairs[i:i + 2]) for i in range(0, 16, 2)])
    with pytest.warns(qfx.RecompileWarning, match=r"input shapes \[16, 3, 8, 8\]"):
        assert torch.equal(quantized(pairs), expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error", qfx.RecompileWarning)  # said once per model
        assert torch.equal(quantized(pairs[:3]), expected[:3])
        assert torch.equal(torch.from_numpy(quantized(pairs[5:6].numpy())), expected[5:6])
    assert list(quantized._shapes.compiled) == [((16, 3, 8, 8),), ((3, 3, 8, 8),),
                                                ((1, 3, 8, 8),)]
    # The shapes used last stay compiled; older ones go, with their files.
    monkeypatch.setattr(qfx.quantize_fx, "_SHAPE_CACHE", 2)
    oldest = quantized._shapes.compiled[((16, 3, 8, 8),)][2]
    assert torch.equal(quantized(pairs[:4]), expected[:4])
    assert list(quantized._shapes.compiled) == [((1, 3, 8, 8),), ((4, 3, 8, 8),)]
    assert not oldest.exists()
    # Other ranks and dtypes are not other shapes of the model.
    with pytest.raises(ValueError, match="has shape"):
        quantized(pairs[0])
    with pytest.raises(TypeError, match="dtype"):
        quantized(pairs.double())


def test_other_shapes_need_the_unchanged_pytorch_model():
    torch.manual_seed(0)
    model = SmallCNN().eval()
    quantized = convert(data(4, 15), model)
    x = data(1, 16, shape=(5, 3, 8, 8))[0]
    with torch.no_grad():
        model.fc.weight.data.mul_(2)  # no version counter sees writes through .data
    with pytest.raises(RuntimeError, match=r"shapes \[5, 3, 8, 8\]: the PyTorch model it was "
                                           "prepared from has changed since"):
        quantized(x)
    # A model read from a pickle or a state_dict has no PyTorch model.
    loaded = pickle.loads(pickle.dumps(quantized))
    with pytest.raises(ValueError, match=r"has shape \[5, 3, 8, 8\]; the model was prepared for"
                                         r".*the batch size is fixed: run_samples"):
        loaded(x)
    copied = copy.deepcopy(quantized)
    copied.load_state_dict(loaded.state_dict())
    with pytest.raises(ValueError, match="the model was prepared for"):
        copied(x)


class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x, bias):
        return self.fc(x) + bias


def test_inputs_by_name_as_pytorchs_traced_model_takes_them(tmp_path):
    """PyTorch's converted GraphModule takes its inputs by the names of the
    model's forward parameters; so do qfx's models, and saved ones."""
    torch.manual_seed(0)
    model = TwoInputs().eval()
    x, bias = data(1, 17, shape=(2, 6))[0], data(1, 18, shape=(2, 4))[0]
    prepared = qfx.prepare_fx(model, "default:x86", (x, bias), outputs="torch")
    assert torch.equal(prepared(x, bias=bias), model(x, bias))
    prepared(bias=bias, x=x)
    quantized = qfx.convert_fx(prepared)
    y = quantized(x, bias)
    assert torch.equal(quantized(bias=bias, x=x), y)
    assert torch.equal(quantized(x, bias=bias), y)
    quantized.save(tmp_path / "saved")
    assert torch.equal(qfx.load(tmp_path / "saved")(bias=bias, x=x), y)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'z' \(its inputs by name: "
                                        "x, bias\\)"):
        quantized(x, z=bias)
    with pytest.raises(TypeError, match="multiple values for input 'x'"):
        quantized(x, x=x)
    with pytest.raises(TypeError, match="missing input\\(s\\) bias"):
        quantized(x=x)


def test_prepared_calls_observe_in_this_process(tmp_path):
    """Each call runs the observed model, its observers seeing the call's
    values: no sample files; it returns the observed model's outputs; a
    call with a NaN fails and leaves the statistics as they were; a copy
    goes on from the statistics gathered so far."""
    calibration = data(5, 19)
    torch.manual_seed(0)
    model = SmallCNN().eval()
    prepared = qfx.prepare_fx(model, "default:x86", (calibration[0],), backend_config="x86",
                              workdir=tmp_path / "w")
    with torch.no_grad():
        assert torch.allclose(prepared(calibration[0]), model(calibration[0]), atol=1e-5)
    for x in calibration[1:3]:
        prepared(x)
    poisoned = calibration[3].clone()
    poisoned[0, 0, 0, 0] = float("nan")
    with pytest.raises(qfx.ToolError, match="calibration run 3: input 0 has 1 NaN or infinite"):
        prepared(poisoned)
    assert prepared.num_samples == 3
    assert not (tmp_path / "w" / "samples").exists()
    copied = copy.deepcopy(prepared)
    copied(calibration[3])
    assert (prepared.num_samples, copied.num_samples) == (3, 4)
    # As recorded and calibrated at once (quant-run --calibrate's way).
    for calls, observed in ((3, prepared), (4, copied)):
        recorded = qfx.prepare_fx(model, "default:x86", (calibration[0],), backend_config="x86",
                                  outputs=None, record_samples=True)
        for x in calibration[:calls]:
            recorded(x)
        assert qfx.convert_fx(observed).mlir("calibrated") == \
            qfx.convert_fx(recorded).mlir("calibrated")


def test_a_configuration_that_observes_nothing_converts_to_the_float_model():
    # PyTorch's convert_fx returns the float model then; qfx's says so.
    torch.manual_seed(0)
    model = SmallCNN().eval()
    x = data(1, 20)[0]
    prepared = qfx.prepare_fx(model, qfx.QConfigMapping(), (x,), outputs=None)
    prepared(x)
    with pytest.warns(qfx.FloatOpWarning, match="observe nothing in this model"):
        quantized = qfx.convert_fx(prepared)
    with torch.no_grad():
        assert torch.allclose(quantized(x), model(x), atol=1e-5)


def test_a_model_pytorchs_fuse_fx_fused_prepares_as_the_unfused_one():
    """qfx.fuse_fx is PyTorch's (the result in the model's mode); qfx's
    prepare_fx takes its fused modules, and the int8 model computes what
    the unfused model's does (names and the folded weights' last bits
    aside: PyTorch folded the batch norm here, qfx-fuse there)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 6 * 6, 10), nn.ReLU()).eval()
    with torch.no_grad():
        model[1].running_var.uniform_(0.5, 2.0)
    fused = qfx.fuse_fx(model, backend_config="x86")
    assert [type(m).__name__ for m in fused.children()] == ["ConvReLU2d", "Flatten", "LinearReLU"]
    assert not fused.training and not any(m.training for m in fused.modules())
    calibration = data(3, 21, shape=(1, 3, 8, 8))
    unfused, refused = (convert(calibration, m) for m in (model, fused))
    for x in calibration + data(3, 22, shape=(1, 3, 8, 8)):
        assert torch.equal(unfused(x), refused(x))
    with pytest.raises(TypeError, match="not qfx's"):
        qfx.fuse_fx(model, backend_config=qfx.get_backend_config("x86"))
    with pytest.raises(ValueError, match="backend 'tosa'"):
        qfx.fuse_fx(model, backend_config="tosa")


def test_preserved_attributes_are_kept_as_pytorchs_custom_configs_keep_them():
    """prepare_custom_config's preserved attributes are set on the prepared
    model and convert_custom_config's on the converted one, the same objects
    (PyTorch's convert keeps only those it names); the converted model
    pickles them. An attribute the model lacks is PyTorch's AttributeError."""
    from torch.ao.quantization.fx.custom_config import ConvertCustomConfig, PrepareCustomConfig

    torch.manual_seed(0)
    model = SmallCNN().eval()
    model.labels, model.scale, model.head = ["cat", "dog"], torch.ones(2), nn.ReLU().eval()
    example = data(1, 23)[0]
    prepared = qfx.prepare_fx(
        model, "default:x86", (example,), backend_config="x86",
        prepare_custom_config=PrepareCustomConfig().set_preserved_attributes(
            ["labels", "scale", "head"]))
    assert prepared.labels is model.labels and prepared.head is model.head
    prepared(example)
    assert not hasattr(qfx.convert_fx(prepared), "labels")
    quantized = qfx.convert_fx(
        prepared, convert_custom_config={"preserved_attributes": ["labels", "scale"]})
    assert quantized.labels is model.labels and quantized.scale is model.scale
    assert not hasattr(quantized, "head")
    loaded = pickle.loads(pickle.dumps(quantized))
    assert loaded.labels == ["cat", "dog"] and torch.equal(loaded.scale, model.scale)
    assert torch.equal(loaded(example), quantized(example))
    assert copy.deepcopy(quantized).labels == ["cat", "dog"]
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        qfx.convert_fx(prepared,
                       convert_custom_config=ConvertCustomConfig().set_preserved_attributes(
                           ["missing"]))
    with pytest.raises(AttributeError, match="'SmallCNN' object has no attribute 'missing'"):
        qfx.prepare_fx(model, "default:x86", (example,),
                       prepare_custom_config={"preserved_attributes": ["missing"]})


DROP_IN_MODEL = """
import torch, torch.nn as nn

class SignFlip(nn.Module):  # data-dependent control flow: not traceable
    def forward(self, x):
        return x * 2 if x.sum() > 0 else -x

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.flip = SignFlip()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x, scale):
        y = self.flip(self.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(self.pool(y), 1)) * scale
"""

DROP_IN_SCRIPT = """
import copy, sys
import torch
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.fx.custom_config import PrepareCustomConfig
from drop_in_model import Net
{imports}

torch.manual_seed(0)
model = Net().eval()
generator = torch.Generator().manual_seed(1)
batches = [torch.randn(4, 3, 8, 8, generator=generator) for _ in range(4)]
scale = torch.full((1, 4), 0.5)
custom = PrepareCustomConfig().set_non_traceable_module_names(["flip"])
prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"),
                      (batches[0], scale), custom)
with torch.no_grad():
    for x in batches:
        prepared(x, scale)
quantized = convert_fx(prepared)
torch.save(quantized, sys.argv[1])
outputs = []
with torch.no_grad():
    for batch in (4, 1, 3, 16):
        x = torch.randn(batch, 3, 8, 8, generator=generator)
        outputs.append((x, quantized(x, scale=scale)))
torch.save(outputs, sys.argv[2])
"""

# A fresh process: the model torch.save wrote runs as it did, at the shapes
# of example_inputs (without the PyTorch model, it compiles no others).
DROP_IN_LOAD = """
import sys, torch
quantized = torch.load(sys.argv[1])
x, y = torch.load(sys.argv[2])[0]
assert torch.equal(quantized(x, torch.full((1, 4), 0.5)), y)
print("ok")
"""


def test_a_pytorch_fx_script_runs_with_qfx_in_place_of_quantize_fx(tmp_path, python_env):
    """The issue's test of a drop-in: the same script with PyTorch's
    quantize_fx and with qfx's names (a non-traceable submodule, inputs by
    name, batch sizes 4 (example_inputs'), 1, 3 and 16 through one converted
    model, torch.save then torch.load in a fresh process); qfx's outputs are
    within one output step of PyTorch's."""
    (tmp_path / "drop_in_model.py").write_text(DROP_IN_MODEL)
    env = dict(python_env, PYTHONPATH=f"{python_env['PYTHONPATH']}:{tmp_path}")
    results = {}
    for name, imports in (
            ("torch", "from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx"),
            ("qfx", "from qfx import convert_fx, prepare_fx")):
        script = tmp_path / f"script_{name}.py"
        script.write_text(DROP_IN_SCRIPT.format(imports=imports))
        run = subprocess.run([sys.executable, str(script), str(tmp_path / f"{name}.pt"),
                              str(tmp_path / f"{name}-outputs.pt")], env=env,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        results[name] = torch.load(tmp_path / f"{name}-outputs.pt")
    (tmp_path / "load.py").write_text(DROP_IN_LOAD)
    run = subprocess.run([sys.executable, str(tmp_path / "load.py"), str(tmp_path / "qfx.pt"),
                          str(tmp_path / "qfx-outputs.pt")], env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
    for (x, theirs), (x_ours, ours) in zip(results["torch"], results["qfx"]):
        assert torch.equal(x, x_ours)
        step = theirs.flatten().unique().diff().min()
        # (qfx's own calibration: its output qparams may differ from
        # PyTorch's in the last bits, so values need not be equal.)
        assert (ours - theirs).abs().max() <= step * 1.0001


def test_calibration_batches_of_other_sizes_observe_into_the_same_observers():
    """A DataLoader's last batch is often shorter: the prepared model
    compiles the observed model for its shape at the first such call, and
    its observers are the same (one set of statistics, as PyTorch's
    observers see every call): an input value only the short batch has
    is in the statistics."""
    torch.manual_seed(0)
    model = SmallCNN().eval()
    batches = data(2, 23, shape=(4, 3, 8, 8)) + data(1, 24, shape=(3, 3, 8, 8))
    batches[2][1, 0, 0, 0] = 100.0  # only in the short batch
    prepared = qfx.prepare_fx(model, qfx.QConfigMapping().set_global(qfx.default_qconfig),
                              (batches[0],), backend_config="x86", outputs="jit")
    for x in batches[:2]:
        prepared(x)
    with pytest.warns(qfx.RecompileWarning, match=r"input shapes \[3, 3, 8, 8\]"):
        y = prepared(batches[2])
    with torch.no_grad():
        assert torch.allclose(y, model(batches[2]), atol=1e-4)
    assert prepared.num_samples == 3
    quantized = qfx.convert_fx(prepared)
    assert "max = 1.000000e+02" in quantized.mlir("calibrated")
    # Converting freed the calibrations; calls go on from the statistics
    # (compiling again, said once per model).
    with warnings.catch_warnings():
        warnings.simplefilter("error", qfx.RecompileWarning)
        prepared(batches[2])
    assert prepared.num_samples == 4
    assert qfx.convert_fx(prepared).mlir("calibrated") == quantized.mlir("calibrated")
