"""utils/bench/native_coverage.py: every op of PyTorch 1.13's native
BackendConfig belongs to an op family of the coverage report (or is listed
with the reason it is not covered), and a family's row says what happened."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "utils" / "bench"))

import native_coverage  # noqa: E402


def test_every_native_op_belongs_to_a_family():
    assert native_coverage.check() == []
    assert len(native_coverage.native_ops()) > 100


def test_fused_and_qat_modules_count_for_their_float_family():
    family_of = native_coverage.family_of
    assert family_of("torch.ao.nn.intrinsic.modules.fused.ConvBnReLU3d") == "conv3d"
    assert family_of("torch.nn.intrinsic.qat.modules.linear_fused.LinearBn1d") == "linear"
    assert family_of("torch.ao.nn.qat.modules.embedding_ops.EmbeddingBag") == "embedding_bag"
    assert family_of("torch.nn.modules.conv.Conv2d") is None  # listed as nn.Conv2d


# Besides the two, the families whose ops the exporter learned with the
# report: parity with PyTorch's quantized model through qfx's whole pipeline.
@pytest.mark.parametrize("name", [
    "add", "hardswish", "functional_conv1d", "functional_conv2d", "functional_linear", "relu",
    "clamp", "squeeze", "repeat", "repeat_interleave", "stack", "dropout", "max_pool1d",
    "avg_pool1d", "adaptive_avg_pool1d", "matmul", "softmax", "layer_norm", "group_norm",
    "instance_norm1d", "instance_norm2d", "instance_norm3d", "mean", "interpolate",
    "interpolate_bilinear", "conv3d", "functional_conv3d", "avg_pool3d", "adaptive_avg_pool3d",
    "embedding", "LSTM", "LSTMCell", "GRUCell", "RNNCell", "conv_transpose1d", "conv_transpose3d",
    "conv_transpose2d", "embedding_bag"])
def test_a_supported_family_passes(name):
    family = {f.name: f for f in native_coverage.FAMILIES}[name]
    row = native_coverage.one(family, "qfx")
    assert (row["exported"], row["quantized"], row["parity"]) == (True, True, True), row


def test_an_unexported_family_fails_with_the_reason():
    family = native_coverage.Family(
        "unsupported", [], native_coverage.after_conv(lambda m, y: y.cumsum(1)), (1, 3, 4, 4))
    row = native_coverage.one(family, "qfx")
    assert not row["exported"] and "cumsum" in row["why"]
