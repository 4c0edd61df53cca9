"""The bundled example (docs/example/digits) through the qfx pipeline.

Runs what utils/demo.sh runs on the committed float model: qfx-fuse +
qfx-prepare (PyTorch's default x86 configuration), quant-run --calibrate on the
200 committed calibration images, qfx-convert, qfx-lower to int8 TOSA, and
evaluates the float, the reference and the int8 model on all 360 held-out
images. The bar (issue 9): the quantized accuracy is within 1 point of float.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import qfx

REPO = pathlib.Path(__file__).resolve().parents[2]
DIGITS = REPO / "docs" / "example" / "digits"
PREPARE = ["--qfx-fuse", "--qfx-prepare=qconfig-mapping=default:x86 backend=x86"]


def _load_demo():
    spec = importlib.util.spec_from_file_location("qfx_demo", REPO / "utils" / "demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


demo = _load_demo()


def run(tool: str, *args) -> str:
    result = subprocess.run(
        [str(qfx.find_tool(tool)), *map(str, args)], capture_output=True, text=True
    )
    assert result.returncode == 0, f"{tool} {' '.join(map(str, args))}:\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """The demo's pipeline; returns the paths of every stage."""
    out = tmp_path_factory.mktemp("digits")
    p = {name: out / f"{name}.mlir" for name in (
        "observed", "calibrated", "reference", "int8",
        "observed-eval", "calibrated-eval", "reference-eval", "int8-eval")}
    run("quant-opt", DIGITS / "digits.mlir", *PREPARE, "-o", p["observed"])
    run("quant-run", p["observed"], f"--calibrate={DIGITS / 'calib.npy'}", "-o", p["calibrated"])
    run("quant-opt", p["calibrated"], "--qfx-convert", "-o", p["reference"])
    run("quant-opt", p["reference"], "--qfx-lower=backend=x86", "-o", p["int8"])
    run("quant-opt", DIGITS / "digits_eval.mlir", *PREPARE, "-o", p["observed-eval"])
    p["calibrated-eval"].write_text(
        demo.apply_stats(p["calibrated"].read_text(), p["observed-eval"].read_text()))
    run("quant-opt", p["calibrated-eval"], "--qfx-convert", "-o", p["reference-eval"])
    run("quant-opt", p["reference-eval"], "--qfx-lower=backend=x86", "-o", p["int8-eval"])
    tests = DIGITS / "test_inputs.npy"
    p["float-logits"] = out / "float-logits.npy"
    p["reference-logits"] = out / "reference-logits.npy"
    p["int8-logits"] = out / "int8-logits.npy"
    run("quant-run", DIGITS / "digits_eval.mlir", f"--input={tests}", "-o", p["float-logits"])
    run("quant-run", p["reference-eval"], f"--input={tests}", "-o", p["reference-logits"])
    run("quant-run", p["int8-eval"], f"--input={tests}", "-o", p["int8-logits"])
    p["out"] = out
    return p


def test_quantized_accuracy_within_one_point_of_float(pipeline):
    labels = np.load(DIGITS / "test_labels.npy")
    float_acc = demo.accuracy(np.load(pipeline["float-logits"]), labels)
    # quant-run's float model is PyTorch's float model.
    recorded = json.loads((DIGITS / "reference.json").read_text())
    assert float_acc == pytest.approx(recorded["float_accuracy"] * 100)
    for model in ("int8", "reference"):
        acc = demo.accuracy(np.load(pipeline[f"{model}-logits"]), labels)
        assert abs(acc - float_acc) <= 1.0, (
            f"qfx {model} accuracy {acc:.2f} % is more than 1 point from float {float_acc:.2f} %")


def test_quantized_model_is_pytorchs(pipeline):
    # PyTorch 1.13's prepare_fx / convert_fx of the same weights, calibrated
    # on the same images, predicts what qfx's int8 model predicts; at least
    # 99% of the logits are equal and the rest differ by at most one step of
    # the output's scale (0.196). They are not all identical: qfx's float
    # convolutions during calibration round differently from PyTorch's in the
    # last bit, so a few activation scales come out one float32 ulp apart,
    # which can move a value across a rounding boundary (docs/tutorial.md).
    for model in ("int8", "reference"):
        out = demo.torch_int8(DIGITS, np.load(pipeline[f"{model}-logits"]))
        agree = re.search(r"predictions agree on (\d+) of 360 images", out)
        assert agree and int(agree.group(1)) == 360, out
        differ = int(re.search(r"(\d+) of 3600 logits differ", out).group(1))
        assert differ <= 36, out
        worst = float(re.search(r"by at most ([0-9.e-]+)", out).group(1))
        assert worst <= 0.2, out


def test_int8_model_is_integer_tosa(pipeline):
    # Every pattern lowers (no remark): the convolutions and the matmul are
    # int8 contractions (qfx.contract) requantized in float32 as PyTorch's
    # onednn engine does (#qfx.requantize); expanded to plain TOSA
    # (emit-tosa), int8 convolutions and a matmul with int32 accumulators,
    # then tosa.cast of the accumulator, add, mul, add, clamp, tosa.cast; the
    # other float ops are the input's quantize and the output's dequantize
    # (and the exporter's layout reshapes around them), and the nn.Flatten
    # PyTorch runs in float between a dequantize and the Linear's quantize,
    # requantized so: (q - z) * s (sub, mul), times 1 / s_out, clamp, cast. With
    # requantization=integer it is TOSA's integer profile: tosa.rescale and no
    # float op besides those. Both compute what the reference model computes,
    # to within one step (here: exactly).
    quant_opt = str(qfx.find_tool("quant-opt"))
    result = subprocess.run([quant_opt, str(pipeline["reference"]), "--qfx-lower=backend=x86",
                             "-o", "/dev/null"], capture_output=True, text=True)
    assert result.returncode == 0 and "runs in float" not in result.stderr, result.stderr
    text = pipeline["int8"].read_text()
    assert len(re.findall(r"qfx\.contract conv2d .*#qfx\.requantize.*-> tensor<[0-9x]*xi8>",
                          text)) == 3
    assert len(re.findall(r"qfx\.contract matmul .*#qfx\.requantize.*-> tensor<[0-9x]*xi8>",
                          text)) == 1
    expanded = subprocess.run([quant_opt, str(pipeline["reference"]),
                               "--qfx-lower=backend=x86 emit-tosa=true"],
                              capture_output=True, text=True, check=True).stdout
    assert len(re.findall(r"tosa\.conv2d .*-> tensor<[0-9x]*xi32>", expanded)) == 3
    assert len(re.findall(r"tosa\.matmul .*-> tensor<[0-9x]*xi32>", expanded)) == 1
    assert len(re.findall(r"tosa\.cast %\S+ : \(tensor<[0-9x]*xi32>\) -> tensor<[0-9x]*xf32>",
                          expanded)) == 4
    for program in (text, expanded):
        float_ops = {m.group(1) for m in re.finditer(r"= ([\w.]+) .*-> tensor<[0-9x]*xf32>",
                                                     program)}
        assert float_ops <= {"tosa.reshape", "quant.dcast", "tosa.cast", "tosa.add", "tosa.mul",
                             "tosa.clamp", "tosa.sub"}, float_ops
    integer = subprocess.run([quant_opt, str(pipeline["reference"]),
                              "--qfx-lower=backend=x86 requantization=integer emit-tosa=true"],
                             capture_output=True, text=True, check=True).stdout
    assert "tosa.rescale" in integer
    float_ops = {m.group(1) for m in re.finditer(r"= ([\w.]+) .*-> tensor<[0-9x]*xf32>", integer)}
    assert float_ops <= {"tosa.reshape", "quant.dcast"}, float_ops
    i = np.load(pipeline["int8-logits"])
    r = np.load(pipeline["reference-logits"])
    steps = np.abs(i - r) / 0.19624294340610504
    assert steps.max() <= 1.001 and (steps < 1e-3).mean() >= 0.99


def test_quantization_changes_the_outputs(pipeline):
    # The reference model really is quantized: its logits differ from float,
    # by about what 8-bit activations allow.
    f = np.load(pipeline["float-logits"])
    r = np.load(pipeline["int8-logits"])
    assert not np.array_equal(f, r)
    sqnr = 10 * np.log10(np.sum(f.astype(np.float64) ** 2) / np.sum((f - r).astype(np.float64) ** 2))
    assert 20 < sqnr < 60
    text = pipeline["reference-eval"].read_text()
    assert "quant.qcast" in text and "!quant.uniform<i8:f32:0," in text


def test_evaluation_copy_is_the_calibrated_model(pipeline):
    # The batch-360 copy, given the batch-1 calibration's statistics, computes
    # what the batch-1 model computes, image by image: the reference model to
    # float rounding, the int8 model exactly.
    x = np.load(DIGITS / "test_inputs.npy")
    for model, atol in (("reference", 1e-5), ("int8", 0)):
        batched = np.load(pipeline[f"{model}-logits"])
        for i in (0, 137, 359):
            np.save(pipeline["out"] / "x.npy", x[i : i + 1])
            run("quant-run", pipeline[model], f"--input={pipeline['out'] / 'x.npy'}",
                "-o", pipeline["out"] / "y.npy")
            np.testing.assert_allclose(np.load(pipeline["out"] / "y.npy")[0], batched[i],
                                       rtol=0, atol=atol)


def test_apply_stats_copies_every_statistic(pipeline):
    calibrated = demo._observers(pipeline["calibrated"].read_text())
    copied = demo._observers(pipeline["calibrated-eval"].read_text())
    assert [o["stats"] for o in calibrated] == [o["stats"] for o in copied]
    assert all(o["stats"] for o in calibrated)
    # Applying them again replaces them (a model that has statistics).
    again = demo.apply_stats(pipeline["calibrated"].read_text(),
                             pipeline["calibrated-eval"].read_text())
    assert again == pipeline["calibrated-eval"].read_text()


def test_apply_stats_refuses_other_observers(pipeline):
    calibrated = pipeline["calibrated"].read_text()
    observed = pipeline["observed"].read_text()
    index = next(i for i, o in enumerate(demo._observers(observed)) if o["id"] == 2)
    with pytest.raises(ValueError, match=rf"observer {index} differs: id 2 .* id 9 "):
        demo.apply_stats(calibrated, observed.replace(" id 2 spec(", " id 9 spec(", 1))
    with pytest.raises(ValueError, match="has no qfx.observe ops"):
        demo.apply_stats((DIGITS / "digits.mlir").read_text(), observed)


def test_model_size_counts_live_constants(pipeline):
    f = demo.constant_bytes((DIGITS / "digits.mlir").read_text())
    r = demo.constant_bytes(pipeline["reference"].read_text())
    weights = 16 * 9 + 32 * 9 * 16 + 32 * 9 * 32 + 128 * 10
    assert r["i8"] == weights
    assert f["f32"] >= 4 * weights
    assert r["per-channel scales"] == 4 * (16 + 32 + 32 + 10)
    # The int8 model: int8 weights (and zero points), int32 zero biases, the
    # float requantization's bias and multipliers (per channel) and zero
    # points.
    i = demo.constant_bytes(pipeline["int8"].read_text())
    assert weights <= i["i8"] < weights + 512
    assert set(i) == {"i8", "i32", "f32"}
    assert i["f32"] >= 2 * 4 * (16 + 32 + 32 + 10)


def test_demo_script(tmp_path):
    # utils/demo.sh on the Fashion-MNIST resnet, evaluated on the first 1000
    # test images, with short benchmarks.
    env = dict(os.environ, QFX_DEMO_SKIP_SETUP="1", QFX_DEMO_BENCH="20", QFX_DEMO_IMAGES="1000",
               QFX_DEMO_PEER_RUNS="3", QFX_DEMO_OUT=str(tmp_path))
    result = subprocess.run([str(REPO / "utils" / "demo.sh")], capture_output=True, text=True,
                            env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    float_acc = float(re.search(r"float accuracy\s+([0-9.]+) %", out).group(1))
    int8_acc = float(re.search(r"qfx int8 accuracy \(int8 TOSA\)\s+([0-9.]+) %", out).group(1))
    assert float_acc > 85 and abs(float_acc - int8_acc) <= 1.0
    assert re.search(r"qfx reference model accuracy\s+[0-9.]+ %", out)
    torch_acc = float(re.search(r"PyTorch 1.13 int8 accuracy\s+([0-9.]+) %", out).group(1))
    assert abs(torch_acc - int8_acc) <= 1.0
    agree = int(re.search(r"predictions agree on (\d+) of 1000 images", out).group(1))
    assert agree >= 990
    assert re.search(r"model size\s+float [0-9.]+ KB; quantized [0-9.]+ KB \(f32 [0-9.]+ KB, i32 [0-9.]+ KB, "
                     r"i8 [0-9.]+ KB\)", out)
    assert re.search(r"PyTorch state_dict: float [0-9.]+ KB, int8 [0-9.]+ KB", out)
    assert re.search(r"int8/float = [0-9.]+x, reference/float = [0-9.]+x \(quant-run JIT", out)
    for what in (r"per image \(batch 1\)", "per batch of 100"):
        assert re.search(rf"latency {what}: qfx int8 [0-9.]+ ms; PyTorch int8 [0-9.]+ ms "
                         rf"\([0-9.]+x qfx's\), PyTorch float [0-9.]+ ms \([0-9.]+x qfx's\)", out)
    assert "0 op(s) left in float" in out
    # qfx-codegen's kernels for the 7 convolutions, the average pool's
    # depthwise convolution and the Linear when this CPU has AVX-512 VNNI
    # (and BW), AVX2 or AArch64's dot product, none otherwise.
    from qfx._compiled import cpu_description

    flags = set(cpu_description()["cpu_flags"] or ())
    kernels = "9" if flags & {"avx512_vnni", "avx2", "asimddp"} else "0"
    assert (f"qfx-codegen on this CPU: {kernels} of 9 int8 convolutions/matmuls run as native "
            "int8 kernels") in out
    assert "as qfx-codegen's native int8 kernels" in out
    # The per-layer comparison of the int8 model names the model's layers:
    # each pattern by its last op (layer1.conv1 + bn1 + relu1 computes relu1).
    assert re.search(r"qfx.contract\s+layer1.relu1\n", out)
    assert not re.search(r"\s(layer1.conv1|layer1.bn1)\n", out)


def test_committed_models_are_the_committed_weights():
    # digits.mlir and digits_eval.mlir are qfx.export_tosa of digits_state.pt
    # (what demo.py quantizes with PyTorch), and reference.json's float
    # accuracy is PyTorch's on the committed test set.
    import sys

    import torch

    sys.path.insert(0, str(DIGITS))
    try:
        import make_digits
    finally:
        sys.path.remove(str(DIGITS))
    model = make_digits.DigitsCNN()
    model.load_state_dict(torch.load(DIGITS / "digits_state.pt"))
    model.eval()
    for name, batch in (("digits.mlir", 1), ("digits_eval.mlir", 360)):
        assert make_digits.export(model, batch) == (DIGITS / name).read_text(), name
    x = torch.from_numpy(np.load(DIGITS / "test_inputs.npy"))
    with torch.no_grad():
        acc = make_digits.accuracy(model(x), np.load(DIGITS / "test_labels.npy"))
    assert acc == json.loads((DIGITS / "reference.json").read_text())["float_accuracy"]


TUTORIAL = REPO / "docs" / "tutorial.md"


def test_tutorial_command_line(tmp_path):
    # docs/tutorial.md's shell blocks, in order, as written (the work folder
    # and the tool folder substituted), then its claims about the results.
    script = "\n".join(re.findall(r"```sh\n(.*?)```", TUTORIAL.read_text(), re.S))
    tools = str(qfx.find_tool("quant-opt").parent) + "/"
    script = script.replace("T=/tmp/digits", f"T={tmp_path}").replace("build/bin/", tools)
    result = subprocess.run(["bash", "-e", "-c", script], cwd=REPO, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.findall(r"^([0-9.]+)$", result.stdout, re.M) == ["99.44", "99.44", "99.44"]
    assert re.search(r"qfx.contract\s+relu1\n", result.stdout)
    assert len(re.findall(r"^bench: ", result.stdout, re.M)) == 2
    # Every pattern lowers: qfx-lower prints no remark.
    assert "runs in float" not in result.stderr
    assert "qfx.contract conv2d" in (tmp_path / "int8.mlir").read_text()
    # The int8 program computes the reference model's logits.
    assert np.array_equal(np.load(tmp_path / "int8.npy"), np.load(tmp_path / "reference.npy"))
    # Every weight (3 convs, the Linear) has its per-channel observer.
    observed = (tmp_path / "observed.mlir").read_text()
    assert len(re.findall(r"= qfx\.observe .*per_channel_minmax", observed)) == 4


def test_tutorial_python(tmp_path, capsys):
    (block,) = re.findall(r"```python\n(.*?)```", TUTORIAL.read_text(), re.S)
    (tmp_path / "docs").symlink_to(REPO / "docs")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(block, str(TUTORIAL), "exec"), {"__name__": "tutorial"})
    finally:
        os.chdir(cwd)
        sys.path[:] = [p for p in sys.path if p != "docs/example/digits"]
    out = capsys.readouterr().out
    assert "label 7 int8 7 float 7" in out
    error = float(re.search(r"max \|int8 - float\| ([0-9.e-]+)", out).group(1))
    assert 0 < error < 0.2
