"""qfx.ns, PyTorch's FX numeric suite for qfx: weights and layer outputs of a
PyTorch float model against qfx's int8 model, under PyTorch's names and in
its NSResultsType. Needs torch (run with /usr/bin/python3)."""

from __future__ import annotations

import warnings

import pytest
import torch

import qfx
import qfx.ns as ns

nn = torch.nn


class Block(nn.Module):
    """Conv-BN-ReLU, a residual add, one ReLU applied twice (torchvision's
    BasicBlock does), a Linear head."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(6)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(6, 6, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(6)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)) + y)
        return self.fc(y.mean((2, 3)))


@pytest.fixture(scope="module")
def models():
    torch.manual_seed(3)
    model = Block().eval()
    with torch.no_grad():
        for bn in (model.bn1, model.bn2):
            bn.running_mean.uniform_(-0.3, 0.3)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.uniform_(0.5, 1.5)
    generator = torch.Generator().manual_seed(4)
    data = [torch.randn(1, 3, 6, 6, generator=generator) for _ in range(6)]
    prepared = qfx.prepare_fx(model, "default:x86", (data[0],), outputs=None)
    for x in data[:4]:
        prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantized = qfx.convert_fx(prepared)
    return model, quantized, data[4:]


def test_extract_weights_gives_folded_float_and_dequantized_int8_weights(models):
    model, quantized, _ = models
    results = ns.extract_weights("fp32", model, "int8", quantized)
    assert list(results) == ["conv1", "conv2", "fc"]
    # conv1's float weight is PyTorch's, batch norm folded, held OHWI.
    scale = model.bn1.weight / torch.sqrt(model.bn1.running_var + model.bn1.eps)
    folded = (model.conv1.weight * scale[:, None, None, None]).permute(0, 2, 3, 1).detach()
    fp32 = results["conv1"]["weight"]["fp32"][0]
    assert fp32["type"] == "weight" and fp32["ref_node_name"] == "conv1"
    assert torch.allclose(fp32["values"][0], folded, rtol=1e-6, atol=1e-7)
    # int8: per-channel symmetric weights, each within half a step.
    int8 = results["conv1"]["weight"]["int8"][0]["values"][0]
    step = folded.abs().flatten(1).max(1).values / 127.5
    assert ((int8 - folded).abs().flatten(1).max(1).values <= step / 2 + 1e-7).all()
    ns.extend_logger_results_with_comparison(results, "fp32", "int8", ns.compute_sqnr, "sqnr")
    for layer in results.values():
        assert 30 < float(layer["weight"]["int8"][0]["sqnr"][0]) < 60


def test_loggers_compare_each_layer_of_the_float_model_with_the_int8_model(models):
    model, quantized, tests = models
    logged_fp32, logged_int8 = ns.add_loggers("fp32", model, "int8", quantized, ns.OutputLogger)
    outputs = []
    for x in tests:
        with torch.no_grad():
            assert torch.equal(logged_fp32(x), model(x))
        outputs.append(logged_int8(x))
        assert torch.equal(outputs[-1], quantized(x))
    results = ns.extract_logger_info(logged_fp32, logged_int8, ns.OutputLogger, "int8")
    # The int8 model's layers in order: each pattern named by its last op
    # (conv1+bn1+relu by the first ReLU call, conv2+bn2 by bn2, add+relu by
    # the second ReLU call), the mean, the head.
    assert list(results) == ["relu(relu)", "bn2", "relu(relu_1)", "(mean)", "fc"]
    for layer, entry in results.items():
        fp32, int8 = entry["node_output"]["fp32"][0], entry["node_output"]["int8"][0]
        assert len(fp32["values"]) == len(int8["values"]) == len(tests)
        assert fp32["ref_node_name"] == layer and fp32["type"] == "node_output"
    # The float values are PyTorch's, in qfx's layout (NHWC in the body).
    with torch.no_grad():
        y = model.relu(model.bn1(model.conv1(tests[0])))
    assert torch.equal(results["relu(relu)"]["node_output"]["fp32"][0]["values"][0],
                       y.permute(0, 2, 3, 1))
    # The int8 values are the int8 program's: its output is the last one.
    assert torch.equal(results["fc"]["node_output"]["int8"][0]["values"][1], outputs[1])
    ns.extend_logger_results_with_comparison(results, "fp32", "int8", ns.compute_sqnr, "sqnr")
    for entry in results.values():
        sqnrs = entry["node_output"]["int8"][0]["sqnr"]
        assert len(sqnrs) == len(tests) and all(15 < float(s) < 60 for s in sqnrs)
    table = ns.sqnr_table(results, "fp32", "int8")
    assert table.splitlines()[0].split() == ["SQNR", "(dB)", "type", "layer"]
    assert len(table.splitlines()) == 1 + len(results)


def test_shadow_loggers_give_each_layer_its_own_error(models):
    model, quantized, tests = models
    logged_fp32, logged_int8 = ns.add_loggers("fp32", model, "int8", quantized)
    shadow = ns.add_shadow_loggers("fp32", model, "int8", quantized, ns.OutputLogger)
    for x in tests:
        logged_fp32(x)
        logged_int8(x)
        with torch.no_grad():
            assert torch.equal(shadow(x), model(x))  # the float model's output
    chained = ns.extract_logger_info(logged_fp32, logged_int8, ns.OutputLogger, "int8")
    own = ns.extract_shadow_logger_info(shadow, ns.OutputLogger, "int8")
    assert list(own) == list(chained)

    def int8_values(results, layer):
        return results[layer]["node_output"]["int8"][0]["values"]

    # The first layer reads the model's input in both: the same values.
    for a, b in zip(int8_values(own, "relu(relu)"), int8_values(chained, "relu(relu)")):
        assert torch.equal(a, b)
    # The mean in the shadow reads the float model's value of the second
    # ReLU, quantized with the int8 model's qparams there: its output is the
    # mean of those quantized values, within one of its own steps.
    (scale, zero_point), (mean_scale, _) = (qparams(quantized, layer, tests[0])
                                            for layer in ("relu(relu_1)", "(mean)"))
    for relu_1, mean in zip(own["relu(relu_1)"]["node_output"]["fp32"][0]["values"],
                            int8_values(own, "(mean)")):
        fed = (torch.clamp(torch.round(relu_1 / scale) + zero_point, -128, 127)
               - zero_point) * scale
        assert (fed.mean((1, 2)) - mean).abs().max() <= mean_scale * 1.001
    # The layers after the first differ from the chained ones (their inputs
    # were the int8 model's values there) and are closer to the float model
    # (the mean averages the difference away here, and the head after it).
    ns.extend_logger_results_with_comparison(own, "fp32", "int8", ns.compute_sqnr, "sqnr")
    ns.extend_logger_results_with_comparison(chained, "fp32", "int8", ns.compute_sqnr, "sqnr")

    def mean_sqnr(results, layer):
        return sum(float(s) for s in results[layer]["node_output"]["int8"][0]["sqnr"]) / len(tests)

    for layer in ["bn2", "relu(relu_1)"]:
        assert not any(torch.equal(a, b) for a, b in zip(int8_values(own, layer),
                                                          int8_values(chained, layer)))
        assert mean_sqnr(own, layer) > mean_sqnr(chained, layer)


def qparams(quantized, layer, x):
    """The (scale, zero point) the int8 program records for `layer`'s value
    (its int8 storage: signed)."""
    from qfx import _capi

    recording = _capi.Model(quantized.mlir("int8"), record=True)
    recording([x.numpy()])
    return next(v.qparams for v in recording.recorded if v.name == layer)


def test_comparison_functions_are_pytorchs():
    from torch.ao.ns.fx import utils

    torch.manual_seed(0)
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    assert torch.allclose(ns.compute_sqnr(x, y), utils.compute_sqnr(x, y))
    assert torch.allclose(ns.compute_normalized_l2_error(x, y),
                          utils.compute_normalized_l2_error(x, y))
    assert torch.allclose(ns.compute_cosine_similarity(x, y),
                          utils.compute_cosine_similarity(x, y))


def test_numeric_suite_errors(models):
    model, quantized, tests = models
    with pytest.raises(ValueError, match="different names"):
        ns.add_loggers("a", model, "a", quantized)
    with pytest.raises(ValueError, match="should_log_inputs"):
        ns.add_loggers("a", model, "b", quantized, should_log_inputs=True)
    with pytest.raises(TypeError, match="expected a PyTorch float model or a qfx.QuantizedModel"):
        ns.add_loggers("a", model, "b", object())
    with pytest.raises(ValueError, match="logs with OutputLogger"):
        ns.add_loggers("a", model, "b", quantized, logger_cls=dict)
    a, b = ns.add_loggers("a", model, "b", quantized)
    a(tests[0])
    with pytest.raises(ValueError, match="a was called 1 times and b 0"):
        ns.extract_logger_info(a, b, ns.OutputLogger, "b")
    other = Block().eval()
    with pytest.raises(ValueError, match="not the model int8 was quantized from"):
        ns.extract_weights("fp32", other, "int8", quantized)
    with pytest.raises(TypeError, match="int8 must be a qfx.QuantizedModel"):
        ns.add_shadow_loggers("fp32", model, "int8", other)
    with pytest.raises(TypeError, match="takes the model add_shadow_loggers returned"):
        ns.extract_shadow_logger_info(a, ns.OutputLogger, "b")


def test_a_linear_inside_the_model_is_compared():
    # The int8 program computes a Linear as a rank-3 matmul ([1, N, C] for
    # PyTorch's [N, C]): its values are compared all the same.
    torch.manual_seed(5)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()
    data = [torch.randn(10, 8) for _ in range(3)]
    prepared = qfx.prepare_fx(model, "default:x86", (data[0],), outputs=None)
    for x in data:
        prepared(x)
    quantized = qfx.convert_fx(prepared)
    logged_fp32, logged_int8 = ns.add_loggers("fp32", model, "int8", quantized, ns.OutputLogger)
    logged_fp32(data[0])
    logged_int8(data[0])
    results = ns.extract_logger_info(logged_fp32, logged_int8, ns.OutputLogger, "int8")
    assert list(results) == ["1", "2"]
    int8 = results["1"]["node_output"]["int8"][0]["values"][0]
    assert int8.shape == (10, 16)
    with torch.no_grad():
        assert float(ns.compute_sqnr(model[1](model[0](data[0])), int8)) > 20
