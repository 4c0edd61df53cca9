"""utils/bench/accuracy.py: its configurations are PyTorch's, its workaround
for PyTorch's qnnpack ReLU6 is needed and works, and a small run gives a
table. Needs torch and Debian's dataset-fashion-mnist.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import pathlib
import sys

import pytest
import torch

import qfx

REPO = pathlib.Path(__file__).resolve().parents[2]


def _load_accuracy():
    spec = importlib.util.spec_from_file_location("qfx_accuracy",
                                                  REPO / "utils" / "bench" / "accuracy.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


accuracy = _load_accuracy()


@pytest.fixture(autouse=True)
def keep_engine():
    engine = torch.backends.quantized.engine
    yield
    torch.backends.quantized.engine = engine


@pytest.mark.parametrize("name,backend", [("x86-pc-hist", "x86"), ("qnnpack-pt-hist", "qnnpack")])
def test_default_rows_are_pytorchs_default_mappings(name, backend):
    from torch.ao.quantization import get_default_qconfig_mapping

    config = accuracy.make_config(name)
    assert (qfx.from_torch(config.qconfig_mapping).to_dict()
            == qfx.from_torch(get_default_qconfig_mapping(backend)).to_dict())


def test_other_rows_change_only_the_observers():
    mapping = qfx.from_torch(accuracy.make_config("qnnpack-pc-minmax").qconfig_mapping).to_dict()
    by_type = dict(mapping["object_type"])
    minmax = {"observer": "MinMaxObserver", "reduce_range": False}
    assert mapping[""] == by_type["torch.nn.Conv2d"] == by_type["torch.nn.Linear"] == {
        "activation": minmax,
        "weight": {"observer": "PerChannelMinMaxObserver", "dtype": "qint8",
                   "qscheme": "per_channel_symmetric"}}
    # LayerNorm keeps its float weights, softmax its fixed qparams.
    assert by_type["torch.nn.LayerNorm"] == {"activation": minmax,
                                             "weight": {"observer": "PlaceholderObserver"}}
    assert by_type["torch.nn.Softmax"]["activation"]["observer"] == "FixedQParamsObserver"
    # x86 rows reduce the activations' range.
    x86 = qfx.from_torch(accuracy.make_config("x86-pt-minmax").qconfig_mapping).to_dict()
    assert x86[""]["activation"] == dict(minmax, reduce_range=True)
    with pytest.raises(ValueError, match="unknown configuration 'x86-pc-kl'"):
        accuracy.make_config("x86-pc-kl")


def test_qnnpack_relu6_workaround():
    # PyTorch 1.13's quantized ReLU6 on qnnpack reads the channels-last output
    # of a quantized convolution as contiguous; the benchmark's PyTorch rows
    # make its input contiguous first.
    from torch.ao.quantization.quantize_fx import convert_fx

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(16, 48, 1), torch.nn.ReLU6()).eval()
    x = torch.randn(4, 16, 14, 14)
    config = accuracy.make_config("qnnpack-pt-minmax")
    prepared = accuracy.torch_prepare(model, config, (x,), [x])
    with torch.no_grad():
        expected = model(x)
        broken = convert_fx(copy.deepcopy(prepared), backend_config=config.torch_backend_config)
        fixed = accuracy.torch_convert(prepared, config)
        assert (broken(x) - expected).abs().max() > 1.0
        assert (fixed(x) - expected).abs().max() < 0.1


def test_a_small_run(tmp_path, capsys):
    out = tmp_path / "rows.json"
    assert accuracy.main(["--models", "resnet", "--configs", "x86-pc-minmax", "--test", "200",
                          "--calibrate", "200", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["model"] == "resnet" and row["config"] == "x86-pc-minmax"
    # Min/max observers see the same extremes in both flows: PyTorch's and
    # qfx's int8 models agree on every image.
    assert row["agree"] == 100.0 and row["agree_torch_stats"] == 100.0
    assert abs(row["qfx_top1"] - row["float_top1"]) < 3
    assert row["min_sqnr"] > 10 and row["sqnr"]
    assert "| resnet | x86-pc-minmax |" in capsys.readouterr().out


def test_bad_arguments():
    with pytest.raises(SystemExit):
        accuracy.main(["--test", "150"])  # not a multiple of --batch
    with pytest.raises(SystemExit):
        accuracy.main(["--models", "alexnet"])


def test_a_small_auto_quantize_run(tmp_path, capsys):
    out = tmp_path / "rows.json"
    assert accuracy.main(["--models", "resnet", "--configs", "x86-pt-minmax", "--test", "200",
                          "--calibrate", "200", "--auto-quantize", "50", "--json",
                          str(out)]) == 0
    (row,) = json.loads(out.read_text())
    # A budget of 50 points is met by plain quantization: one trial, no change.
    assert row["within_budget_on_validation"] and row["trials"] == 1
    assert row["auto_top1"] == row["plain_top1"]
    assert row["float_layers"] == [] and row["per_channel_layers"] == []
    assert "| resnet | x86-pt-minmax |" in capsys.readouterr().out
