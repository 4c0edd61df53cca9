"""qfx.auto_quantize: the sensitivity ranking, per-channel and float
fallbacks, the budget, the fewest changes, and bad arguments.
Needs torch (Debian's python3-torch)."""

from __future__ import annotations

import pytest
import torch

import qfx

nn = torch.nn


def outlier_mlp() -> nn.Module:
    """An MLP whose first Linear has one weight of 1000 (on an input that is
    always 0, so the float model does not see it): per-tensor int8 weights
    round every other weight of that layer to 0, per-channel ones only those
    of its row."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                          nn.Linear(32, 4))
    with torch.no_grad():
        model[0].weight[0, 0] = 1000.0
    return model.eval()


def data(seed: int, count: int = 4):
    generator = torch.Generator().manual_seed(seed)
    samples = [torch.randn(100, 16, generator=generator) for _ in range(count)]
    for x in samples:
        x[:, 0] = 0.0
    return samples


CALIBRATION = data(1)
TEST = data(2)


def agreement(model) -> float:
    """Top-1 agreement with the float model on the test inputs, in percent."""
    reference = outlier_mlp()
    with torch.no_grad():
        same = sum(int((model(x).argmax(1) == reference(x).argmax(1)).sum()) for x in TEST)
    return 100.0 * same / sum(len(x) for x in TEST)


PER_TENSOR = "default:qnnpack"  # histogram activations, per-tensor weights


def test_plain_quantization_misses_the_budget():
    prepared = qfx.prepare_fx(outlier_mlp(), PER_TENSOR, (CALIBRATION[0],), outputs=None)
    for x in CALIBRATION:
        prepared(x)
    assert agreement(qfx.convert_fx(prepared)) < 95


def test_per_channel_weights_for_the_sensitive_layer():
    result = qfx.auto_quantize(outlier_mlp(), PER_TENSOR, CALIBRATION, agreement, max_drop=5.0)
    assert result.within_budget and result.float_score == 100.0
    assert result.score >= 95.0 and result.score == agreement(result.model)
    # The numeric suite ranks the outlier layer (Linear 0 + ReLU 1, named by
    # its last op) first; per-channel weights bring it within budget;
    # nothing is left float.
    assert result.sensitivity[0][0] == "1"
    assert result.per_channel_layers == ["0", "1"] and result.float_layers == []
    assert [(d.layer, d.modules, d.action, d.kept) for d in result.decisions] == [
        ("(every layer)", (), "quantize", True), ("1", ("0", "1"), "per_channel", True)]
    entries = dict((name, qconfig) for name, qconfig in
                   result.qconfig_mapping.to_dict()["module_name"])
    assert entries["0"]["weight"]["observer"] == "PerChannelMinMaxObserver"
    assert entries["0"]["weight"]["qscheme"] == "per_channel_symmetric"  # as the per-tensor one
    assert "per_channel 1 (0, 1): score" in str(result)


def test_float_when_per_channel_is_not_enough():
    # Per-channel weights still lose the outlier row's other weights: a
    # 2-point budget needs the layer in float, and going back to per-channel
    # afterwards leaves the budget again.
    result = qfx.auto_quantize(outlier_mlp(), PER_TENSOR, CALIBRATION, agreement, max_drop=2.0)
    assert result.within_budget and result.score >= 98.0
    assert result.float_layers == ["0", "1"] and result.per_channel_layers == []
    assert [(d.layer, d.action, d.kept) for d in result.decisions] == [
        ("(every layer)", "quantize", True), ("1", "per_channel", True), ("1", "float", True),
        ("1", "requantize", False)]
    assert result.decisions[-1].score < 98.0


def test_float_fallback_when_per_channel_is_not_an_option():
    # Per-channel weights already (x86): the only fallback is float.
    mapping = qfx.get_default_qconfig_mapping("x86")
    result = qfx.auto_quantize(outlier_mlp(), mapping, CALIBRATION, agreement, max_drop=2.0,
                               float_score=100.0)
    assert {d.action for d in result.decisions} <= {"quantize", "float", "requantize"}
    assert result.within_budget == (result.score >= 98.0)
    assert result.per_channel_layers == []
    assert [[name, None] for name in result.float_layers] == \
        result.qconfig_mapping.to_dict()["module_name"]


def test_a_met_budget_changes_nothing():
    result = qfx.auto_quantize(outlier_mlp(), PER_TENSOR, CALIBRATION, agreement, max_drop=100.0)
    assert result.within_budget and len(result.decisions) == 1
    assert result.float_layers == [] and result.per_channel_layers == []


def test_bad_arguments():
    model = outlier_mlp()
    with pytest.raises(ValueError, match="max_drop must be a number >= 0, got -1"):
        qfx.auto_quantize(model, PER_TENSOR, CALIBRATION, agreement, max_drop=-1)
    with pytest.raises(ValueError, match="needs calibration samples"):
        qfx.auto_quantize(model, PER_TENSOR, [], agreement, max_drop=1)
    with pytest.raises(TypeError, match="eval_fn must be callable"):
        qfx.auto_quantize(model, PER_TENSOR, CALIBRATION, 97.0, max_drop=1)
    with pytest.raises(TypeError, match="eval_fn must return a number, got str"):
        qfx.auto_quantize(model, PER_TENSOR, CALIBRATION, lambda m: "good", max_drop=1)
    with pytest.raises(TypeError, match="qconfig_mapping: expected a qfx or torch QConfigMapping"):
        qfx.auto_quantize(model, 3, CALIBRATION, agreement, max_drop=1)


def test_pytorchs_equalization_config_is_refused():
    from torch.ao.quantization import QConfigMapping
    from torch.ao.quantization.fx._equalize import default_equalization_qconfig

    with pytest.raises(NotImplementedError, match="input-weight equalization"):
        qfx.prepare_fx(outlier_mlp(), PER_TENSOR, (CALIBRATION[0],),
                       _equalization_config=QConfigMapping().set_global(
                           default_equalization_qconfig))
