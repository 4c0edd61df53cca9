"""A BERT-style encoder, written the way HuggingFace writes BertLayer
(Q/K/V Linear, `x.size()[:-1] + (heads, size)` views, matmul, scaling by
sqrt(head size), functional softmax, GELU feed-forward, residual LayerNorm),
through qfx and PyTorch 1.13 FX on the same data, static and dynamic; and
the whole model from token ids, with BertEmbeddings (word, position and
token type embeddings, LayerNorm) in front.
Needs torch (Debian's python3-torch: run with /usr/bin/python3).
"""

import copy
import json
import math
import warnings

import pytest
import torch

import qfx

nn = torch.nn


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.size = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(0.1)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.heads, self.size)
        return x.view(new_x_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states):
        query = self.transpose_for_scores(self.query(hidden_states))
        key = self.transpose_for_scores(self.key(hidden_states))
        value = self.transpose_for_scores(self.value(hidden_states))
        scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(self.size)
        probs = self.dropout(nn.functional.softmax(scores, dim=-1))
        context = torch.matmul(probs, value).permute(0, 2, 1, 3).contiguous()
        return context.view(context.size()[:-2] + (self.heads * self.size,))


class EncoderLayer(nn.Module):
    def __init__(self, hidden=64, heads=4, intermediate=128):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.attention_output = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, intermediate)
        self.activation = nn.GELU()
        self.output = nn.Linear(intermediate, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        attended = self.attention_norm(self.dropout(self.attention_output(self.attention(x))) + x)
        hidden = self.activation(self.intermediate(attended))
        return self.output_norm(self.dropout(self.output(hidden)) + attended)


class Embeddings(nn.Module):
    """HuggingFace's BertEmbeddings, with the position ids a buffer of the
    sequence's length (PyTorch's tracer cannot slice a buffer by a traced
    size; qfx's can: test_huggingface_position_ids_export)."""

    def __init__(self, vocab=200, hidden=64, positions=16):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=0)
        self.position_embeddings = nn.Embedding(positions, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.register_buffer("position_ids", torch.arange(positions).expand((1, -1)))

    def forward(self, input_ids):
        token_type_ids = torch.zeros_like(input_ids)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings += self.position_embeddings(self.position_ids)
        return self.dropout(self.LayerNorm(embeddings))


def bert():
    """Embeddings and two encoder layers, and token-id samples."""
    torch.manual_seed(0)
    model = nn.Sequential(Embeddings(), EncoderLayer(), EncoderLayer()).eval()
    generator = torch.Generator().manual_seed(1)
    samples = [torch.randint(0, 200, (1, 16), generator=generator) for _ in range(8)]
    return model, samples[:6], samples[6:]


def embedding_mapping(mapping):
    """`mapping` with float_qparams_weight_only_qconfig for the embeddings, as
    PyTorch's docs quantize them."""
    from torch.ao.quantization import float_qparams_weight_only_qconfig

    return mapping.set_object_type(nn.Embedding, float_qparams_weight_only_qconfig)


def encoder():
    torch.manual_seed(0)
    model = nn.Sequential(EncoderLayer(), EncoderLayer()).eval()
    with torch.no_grad():
        for norm in (m for m in model.modules() if isinstance(m, nn.LayerNorm)):
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.5, 0.5)
    generator = torch.Generator().manual_seed(1)
    samples = [torch.randn(1, 16, 64, generator=generator) for _ in range(8)]
    return model, samples[:6], samples[6:]


pytestmark = pytest.mark.usefixtures("onednn")


def torch_static(model, calibration, mapping=None):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    prepared = prepare_fx(copy.deepcopy(model), mapping or get_default_qconfig_mapping("x86"),
                          (calibration[0],))
    for x in calibration:
        prepared(x)
    return prepared, convert_fx(copy.deepcopy(prepared))


def output_steps(ours, theirs):
    values = theirs.flatten().unique()
    step = (values[1:] - values[:-1]).min()
    return (ours - theirs).abs() / step


@pytest.mark.parametrize("statistics", ["pytorch", "qfx"])
def test_static_encoder_matches_pytorch(statistics):
    model, calibration, tests = encoder()
    prepared, theirs = torch_static(model, calibration)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        if statistics == "pytorch":
            quantized = qfx.convert_fx(prepared, (calibration[0],))
        else:
            ours = qfx.prepare_fx(model, "default:x86", (calibration[0],), outputs=None)
            for x in calibration:
                ours(x)
            quantized = qfx.convert_fx(ours)
    # What PyTorch leaves in float too: the division before the softmax
    # (PyTorch quantizes neither it nor functional softmax) and GELU.
    assert sorted({op.origin for op in quantized.float_ops}) == ["operator.truediv",
                                                                 "torch.nn.GELU"]
    with torch.no_grad():
        steps = torch.stack([output_steps(quantized(x), theirs(x)) for x in tests])
    assert steps.max() <= 1.0 + 1e-4
    # With PyTorch's statistics the int8 arithmetic is the same; with qfx's,
    # the histogram observers see float values of another summation order.
    assert (steps < 1e-3).float().mean() >= (1.0 if statistics == "pytorch" else 0.9)


class SoftmaxAfterLinear(nn.Module):
    """F.softmax over the last dim after a Linear: PyTorch quantizes the
    Linear and leaves the softmax float, so the model's output is PyTorch's
    float softmax."""

    def __init__(self, length):
        super().__init__()
        self.linear = nn.Linear(16, length)

    def forward(self, x):
        return nn.functional.softmax(self.linear(x) * 4.0, dim=-1)


@pytest.mark.parametrize("length", [1, 3, 8, 13, 128])
def test_float_softmax_equals_pytorchs_bit_for_bit(length):
    # Rows shorter than a vector, one vector, a partial last vector, many
    # vectors (qfx-lower-softmax; with the composite's body, glibc's expf and
    # a sequential sum, outputs differed by ulps).
    torch.manual_seed(0)
    model = SoftmaxAfterLinear(length).eval()
    samples = [torch.randn(2, 5, 16) for _ in range(3)]
    prepared, theirs = torch_static(model, samples[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared, (samples[0],))
    with torch.no_grad():
        for x in samples:
            expected, got = theirs(x), ours(x)
            assert not expected.is_quantized
            assert torch.equal(got.view(torch.int32), expected.view(torch.int32))


class LayerNormAfterLinear(nn.Module):
    """A float LayerNorm over `shape` (the trailing dimensions) after an int8
    Linear, affine or not, on rows of nearly equal values when `flat`."""

    def __init__(self, shape, affine, flat):
        super().__init__()
        self.shape, self.flat = shape, flat
        self.linear = nn.Linear(16, math.prod(shape))
        self.norm = nn.LayerNorm(shape, elementwise_affine=affine)
        if affine:
            with torch.no_grad():
                self.norm.weight.uniform_(0.5, 1.5)
                self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        y = self.linear(x)
        if self.flat:
            y = 1.0 + 1e-3 * y
        return self.norm(y.reshape(y.shape[:-1] + tuple(self.shape)))


@pytest.mark.parametrize("shape, affine, flat", [
    ([1], True, False), ([5], False, False), ([8], True, False), ([20], True, True),
    ([128], False, True), ([129], True, False), ([300], True, False), ([4, 5], True, False),
    ([2056], True, False)])
def test_float_layer_norm_equals_pytorchs_bit_for_bit(shape, affine, flat):
    # Rows shorter than a vector, a partial last vector, a partial chunk of
    # 16 vectors, several chunks merged by the cascade (300: 2 levels; 2056:
    # 17 chunks, 5 levels), two normalized dimensions, with and without
    # weights, on nearly equal values (cancellation): qfx-lower-layer-norm.
    # With the composite's body (mean, then mean of the squared deviations,
    # rsqrt), outputs differed by ulps, by many after cancellation.
    from torch.ao.quantization import get_default_qconfig_mapping

    torch.manual_seed(0)
    model = LayerNormAfterLinear(shape, affine, flat).eval()
    samples = [torch.randn(2, 3, 16) for _ in range(3)]
    mapping = get_default_qconfig_mapping("x86").set_object_type(nn.LayerNorm, None)
    prepared, theirs = torch_static(model, samples[:2], mapping)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared, (samples[0],))
    assert [op.origin for op in ours.float_ops] == ["torch.nn.LayerNorm"]
    with torch.no_grad():
        for x in samples:
            expected, got = theirs(x), ours(x)
            assert not expected.is_quantized
            assert torch.equal(got.view(torch.int32), expected.view(torch.int32))


class Divisions(nn.Module):
    """Divisions PyTorch leaves float after int8 Linears: by a number whose
    reciprocal is not a power of two (an attention's sqrt(32)), by a tensor,
    by a broadcast column, and a number by a tensor."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x):
        y, z = self.a(x), self.b(x)
        positive = torch.sigmoid(z) + 1
        return y / math.sqrt(32), y / positive, 3.0 / positive, y / z[:, :1]


def test_float_division_equals_pytorchs_bit_for_bit():
    # qfx-lower-division: x / y rounded once (the composite's body, a
    # multiply by the reciprocal, put many of y / sqrt(32) an ulp off).
    torch.manual_seed(0)
    samples = [torch.randn(4, 16) for _ in range(3)]
    prepared, theirs = torch_static(Divisions().eval(), samples[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared, (samples[0],))
    assert [op.origin for op in ours.float_ops] == ["operator.truediv"] * 4
    with torch.no_grad():
        for x in samples:
            for expected, got in zip(theirs(x), ours(x)):
                assert torch.equal(got.view(torch.int32), expected.view(torch.int32))


def test_static_encoder_of_256_equals_pytorch_with_its_statistics():
    # encoder_vs_torch.py's default shape (2 layers of 256, 4 heads, sequence
    # 128): every output equal. Some were steps apart while the float kernels
    # (the attention matmuls, softmax) dequantized with the fma of PyTorch's
    # add kernel instead of Tensor.dequantize()'s (q - z) * s.
    torch.manual_seed(0)
    model = nn.Sequential(EncoderLayer(256, 4, 1024), EncoderLayer(256, 4, 1024)).eval()
    generator = torch.Generator().manual_seed(1)
    samples = [torch.randn(1, 128, 256, generator=generator) for _ in range(5)]
    prepared, theirs = torch_static(model, samples[:4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared, (samples[0],))
    with torch.no_grad():
        assert torch.equal(ours(samples[4]), theirs(samples[4]))


def test_qfx_quantize_dynamic_matches_pytorchs():
    from torch.ao.quantization import quantize_dynamic

    model, calibration, tests = encoder()
    for spec in (None, {nn.Linear}, {"0.intermediate", "1.output"}):
        theirs = quantize_dynamic(copy.deepcopy(model), spec, dtype=torch.qint8)
        ours = qfx.quantize_dynamic(model, spec, example_inputs=(calibration[0],))
        assert ours.float_ops == []
        with torch.no_grad():
            for x in tests:
                torch.testing.assert_close(ours(x), theirs(x), rtol=0, atol=1e-5)
    with pytest.raises(ValueError, match="inplace"):
        qfx.quantize_dynamic(model, inplace=True, example_inputs=(calibration[0],))
    with pytest.raises(ValueError, match="dtype"):
        qfx.quantize_dynamic(model, dtype=torch.float16, example_inputs=(calibration[0],))


def test_dynamic_encoder_matches_quantize_dynamic():
    from torch.ao.quantization import QConfigMapping, default_dynamic_qconfig, quantize_dynamic
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    model, calibration, tests = encoder()
    mapping = QConfigMapping().set_object_type(nn.Linear, default_dynamic_qconfig)
    theirs = convert_fx(prepare_fx(copy.deepcopy(model), mapping, (calibration[0],)))
    eager = quantize_dynamic(copy.deepcopy(model), {nn.Linear}, dtype=torch.qint8)
    quantized = qfx.convert_fx(qfx.prepare_fx(model, mapping, (calibration[0],), outputs=None))
    assert quantized.float_ops == []
    with torch.no_grad():
        for x in tests:
            assert torch.equal(theirs(x), eager(x))
            torch.testing.assert_close(quantized(x), theirs(x), rtol=0, atol=1e-5)


@pytest.mark.parametrize("statistics", ["pytorch", "qfx"])
def test_static_bert_from_token_ids_matches_pytorch(statistics):
    from torch.ao.quantization import get_default_qconfig_mapping

    model, calibration, tests = bert()
    mapping = embedding_mapping(get_default_qconfig_mapping("x86"))
    prepared, theirs = torch_static(model, calibration, mapping)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        if statistics == "pytorch":
            quantized = qfx.convert_fx(prepared, (calibration[0],))
        else:
            ours = qfx.prepare_fx(model, mapping, (calibration[0],), outputs=None)
            for x in calibration:
                ours(x)
            quantized = qfx.convert_fx(ours)
    assert sorted({op.origin for op in quantized.float_ops}) == ["operator.truediv",
                                                                 "torch.nn.GELU"]
    assert quantized.signature.input_dtypes == ["int64"]
    with torch.no_grad():
        steps = torch.stack([output_steps(quantized(x), theirs(x)) for x in tests])
    assert steps.max() <= 1.0 + 1e-4
    assert (steps < 1e-3).float().mean() >= (1.0 if statistics == "pytorch" else 0.9)


def test_dynamic_bert_from_token_ids_matches_pytorch():
    from torch.ao.quantization import QConfigMapping, default_dynamic_qconfig
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    model, calibration, tests = bert()
    mapping = embedding_mapping(QConfigMapping().set_object_type(nn.Linear,
                                                                 default_dynamic_qconfig))
    theirs = convert_fx(prepare_fx(copy.deepcopy(model), mapping, (calibration[0],)))
    quantized = qfx.convert_fx(qfx.prepare_fx(model, mapping, (calibration[0],), outputs=None))
    assert quantized.float_ops == []
    with torch.no_grad():
        for x in tests:
            torch.testing.assert_close(quantized(x), theirs(x), rtol=0, atol=1e-5)


def test_token_ids_out_of_range_raise_index_error_as_in_pytorch():
    model, calibration, _ = bert()
    quantized = qfx.convert_fx(qfx.prepare_fx(model, embedding_mapping(
        torch.ao.quantization.QConfigMapping()), (calibration[0],), outputs=None))
    bad = calibration[0].clone()
    bad[0, 3] = 200
    with pytest.raises(IndexError):
        model(bad)
    with pytest.raises(IndexError, match=r"index 200, out of range \[0, 200\)"):
        quantized(bad)
    with pytest.raises(TypeError, match="dtype float32; the model takes int64"):
        quantized(calibration[0].float())


def test_huggingface_position_ids_export():
    """HuggingFace slices its position-ids buffer by the traced sequence
    length (PyTorch 1.13's own tracer cannot): the slice is a constant."""

    class HuggingFaceEmbeddings(Embeddings):
        def __init__(self):
            super().__init__(positions=32)

        def forward(self, input_ids):
            seq_length = input_ids.size(1)
            position_ids = self.position_ids[:, :seq_length]
            embeddings = self.word_embeddings(input_ids)
            return embeddings + self.position_embeddings(position_ids)

    torch.manual_seed(0)
    model = HuggingFaceEmbeddings().eval()
    ids = torch.randint(0, 200, (2, 16))
    quantized = qfx.convert_fx(qfx.prepare_fx(model, embedding_mapping(
        torch.ao.quantization.QConfigMapping()), (ids,), outputs=None))
    text = quantized.mlir("float")
    assert "qfx.index_bound = 200 : i64" in text
    assert "dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi64>" in text
    with torch.no_grad():
        reference = model(ids)
    # Weight-only 8-bit rows: each embedding within half of its widest row's
    # step, (max - min) / 255.
    half_steps = sum(float((w.max(1).values - w.min(1).values).max()) / 255 / 2
                     for w in (model.word_embeddings.weight, model.position_embeddings.weight))
    assert (quantized(ids) - reference).abs().max() <= half_steps + 1e-6


class LanguageModel(nn.Module):
    """The LSTM language model of PyTorch's dynamic quantization tutorial:
    Embedding, a 2-layer LSTM, a Linear decoder."""

    def __init__(self, vocab=300, embedding=32, hidden=48):
        super().__init__()
        self.encoder = nn.Embedding(vocab, embedding)
        self.rnn = nn.LSTM(embedding, hidden, num_layers=2, dropout=0.5)
        self.decoder = nn.Linear(hidden, vocab)
        self.dropout = nn.Dropout(0.5)

    def forward(self, tokens):
        output, _ = self.rnn(self.dropout(self.encoder(tokens)))
        return self.decoder(self.dropout(output))


def test_lstm_language_model_matches_quantize_dynamic():
    """Each projection of the LSTM quantized on each call as PyTorch's
    quantized LSTM does (the input's of the whole sequence at once, the
    hidden state's per step); the cells' float arithmetic differs from
    ATen's vectorized sigmoid and tanh by an ulp here and there, which
    the next step's quantization of the hidden state can round to another
    step: measured 4e-7 at most, against 1e-2 between the dynamic and the
    float model."""
    from torch.ao.quantization import quantize_dynamic

    torch.manual_seed(0)
    model = LanguageModel().eval()
    generator = torch.Generator().manual_seed(2)
    tokens = [torch.randint(0, 300, (12, 2), generator=generator) for _ in range(3)]
    theirs = quantize_dynamic(copy.deepcopy(model), dtype=torch.qint8)
    ours = qfx.quantize_dynamic(model, example_inputs=(tokens[0],))
    assert ours.float_ops == []
    text = ours.mlir("int8")
    # 2 layers x (the sequence's projection + 12 steps) + the decoder.
    assert text.count("qfx.choose_qparams") == 27
    with torch.no_grad():
        for x in tokens:
            difference = (ours(x) - theirs(x)).abs().max()
            assert difference <= 1e-6, difference
            assert (model(x) - theirs(x)).abs().max() > 1e-3  # the bound means something


class Recurrent(nn.Module):
    """A GRU or LSTM layer returning all its results, with or without the
    initial state as a second input."""

    def __init__(self, rnn, with_state):
        super().__init__()
        self.rnn, self.with_state = rnn, with_state
        self.lstm = isinstance(rnn, nn.LSTM)  # also once quantized

    def forward(self, x, state):
        if not self.with_state:
            return self.rnn(x)
        return self.rnn(x, (state, 0.5 * state) if self.lstm else state)


@pytest.mark.parametrize("make_rnn, with_state", [
    (lambda: nn.GRU(8, 6), False),
    (lambda: nn.GRU(8, 6, num_layers=2, batch_first=True), True),
    (lambda: nn.LSTM(8, 6, num_layers=2), True),
    (lambda: nn.LSTM(8, 6, num_layers=2, bidirectional=True), True),
    (lambda: nn.GRU(8, 6, bidirectional=True, batch_first=True), False),
], ids=["gru", "gru-2-layers-batch-first-h0", "lstm-2-layers-h0-c0",
        "lstm-bidirectional-2-layers-h0-c0", "gru-bidirectional"])
def test_recurrent_sequences_match_quantize_dynamic(make_rnn, with_state, tmp_path):
    """nn.GRU (eager quantize_dynamic's, not in the native BackendConfig),
    both directions and initial states: within the LSTM's bound of PyTorch's dynamic
    modules (4e-7 measured); results nested as the module nests them, also
    after save and load. (The weights come from the seed, not from the
    random state at collection, which depends on the tests collected before.)"""
    from torch.ao.quantization import quantize_dynamic

    torch.manual_seed(0)
    rnn = make_rnn()
    model = Recurrent(rnn, with_state).eval()
    batch_first = rnn.batch_first
    example = (torch.randn((3, 5, 8) if batch_first else (5, 3, 8)),
               torch.randn(rnn.num_layers * (2 if rnn.bidirectional else 1), 3, 6))
    theirs = quantize_dynamic(copy.deepcopy(model), dtype=torch.qint8)
    ours = qfx.quantize_dynamic(model, example_inputs=example)
    assert ours.float_ops == []
    ours.save(tmp_path / "saved")
    loaded = qfx.load(tmp_path / "saved")
    with torch.no_grad():
        for _ in range(3):
            inputs = tuple(torch.randn_like(t) for t in example)
            results, expected = ours(*inputs), theirs(*inputs)
            torch.testing.assert_close(results, expected, rtol=0, atol=1e-6)
            assert all(torch.equal(a, b) for a, b in zip(_leaves(loaded(*inputs)),
                                                          _leaves(results)))
            assert [type(v) for v in loaded(*inputs)] == [type(v) for v in results]
            floats = model(*inputs)[0]
            assert (results[0] - floats).abs().max() > 1e-3  # the bound means something
    manifest_path = tmp_path / "saved" / "qfx_model.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["structure"] == ([0, [1, 2]] if rnn.__class__ is nn.LSTM else [0, 1])
    for bad in ([0, [1, 1]], [0, "1"], [0, True], 7):
        manifest["structure"] = bad
        manifest_path.write_text(json.dumps(manifest))
        with pytest.raises(ValueError, match="expected each output's index once"):
            qfx.load(tmp_path / "saved")


def _leaves(values):
    if isinstance(values, tuple):
        return [leaf for v in values for leaf in _leaves(v)]
    return [values]


def test_gru_stays_float_in_fx_as_in_pytorch():
    """PyTorch's native BackendConfig has no GRU: prepare_fx with a dynamic
    qconfig for it leaves it float in PyTorch's FX and in qfx's."""
    from torch.ao.quantization import QConfigMapping, default_dynamic_qconfig

    model = Recurrent(nn.GRU(8, 6), False).eval()
    mapping = QConfigMapping().set_object_type(nn.GRU, default_dynamic_qconfig)
    example = (torch.randn(5, 3, 8), torch.zeros(1))
    quantized = qfx.convert_fx(qfx.prepare_fx(model, mapping, example, outputs=None))
    assert quantized.float_ops == []  # no pattern: nothing qfx-lower failed to lower
    assert "qfx.choose_qparams" not in quantized.mlir("int8")
    dynamic = qfx.quantize_dynamic(model, {nn.GRU}, example_inputs=example)
    assert dynamic.mlir("int8").count("qfx.choose_qparams") == 6  # the sequence's + 5 steps'
    # An LSTM qfx cannot express runs in PyTorch (a graph break), in float.
    projected = qfx.quantize_dynamic(Recurrent(nn.LSTM(8, 6, proj_size=3), False).eval(),
                                     example_inputs=example)
    assert [(c.callee, c.reason) for c in projected.graph_breaks] == [
        ("torch.nn.LSTM", "LSTM with proj_size is not supported")]


def test_vision_transformer_exports_and_quantizes():
    """torchvision's VisionTransformer (small): the class token expanded and
    concatenated (a tensor argument to PyTorch), the position embedding
    added, nn.MultiheadAttention (self-attention, need_weights=False) as a
    float composite, `x, _ = attention(...)` unpacked, `x[:, 0]`. PyTorch
    1.13's own tracer cannot trace it on Python 3.11; qfx exports it within
    float rounding of PyTorch and quantizes it, leaving in float what
    PyTorch's tables have no pattern for (MultiheadAttention, GELU)."""
    from torchvision.models.vision_transformer import VisionTransformer

    torch.manual_seed(0)
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                              hidden_dim=32, mlp_dim=64, num_classes=10).eval()
    with torch.no_grad():
        model.heads.head.weight.normal_(0, 0.5)
    generator = torch.Generator().manual_seed(1)
    samples = [torch.randn(1, 3, 32, 32, generator=generator) for _ in range(6)]
    prepared = qfx.prepare_fx(model, torch.ao.quantization.get_default_qconfig_mapping("x86"),
                              (samples[0],))
    with torch.no_grad():
        torch.testing.assert_close(prepared(samples[0]), model(samples[0]), rtol=0, atol=1e-5)
    assert '"torch.nn.MultiheadAttention"' in prepared.mlir("float")
    for x in samples[1:4]:
        prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        quantized = qfx.convert_fx(prepared)
    assert sorted({op.origin for op in quantized.float_ops}) == ["torch.nn.GELU",
                                                                 "torch.nn.MultiheadAttention"]
    # The int8 program against qfx's reference model (quantize/dequantize
    # around float ops, PyTorch's reference semantics), as PyTorch's int8
    # model cannot be built here: within one output step.
    from qfx import _capi

    reference = _capi.Model(quantized.mlir("reference"), "reference.mlir", entry="main")
    for x in samples[4:]:
        expected = torch.from_numpy(reference([x.numpy()])[0])
        values = expected.flatten().unique()
        steps = (quantized(x) - expected).abs() / (values[1:] - values[:-1]).min()
        assert steps.max() <= 1 + 1e-4


class Attention(nn.Module):
    """nn.MultiheadAttention as self-attention, returning its output."""

    def __init__(self, attention):
        super().__init__()
        self.attention = attention

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


class EagerAttention(nn.Module):
    """The same in PyTorch's eager mode quantization, whose default custom
    module mapping makes nn.MultiheadAttention PyTorch's quantizable and
    then quantized MultiheadAttention."""

    def __init__(self, attention):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.attention = attention
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        return self.dequant(self.attention(x, x, x, need_weights=False)[0])


def _quantizable_attention_config():
    from torch.ao.quantization.fx.custom_config import PrepareCustomConfig

    return PrepareCustomConfig().set_float_to_observed_mapping(
        nn.MultiheadAttention, torch.ao.nn.quantizable.MultiheadAttention)


def _eager_quantized_attention(attention, qconfig, calibration):
    """PyTorch's quantized MultiheadAttention of a sequence-first `attention`
    (eager mode: PyTorch 1.13's FX cannot observe the module's tuple
    output), calibrated on `calibration`."""
    model = EagerAttention(copy.deepcopy(attention)).eval()
    model.qconfig = qconfig
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepared = torch.ao.quantization.prepare(model)
        for x in calibration:
            prepared(x)
        return torch.ao.quantization.convert(prepared)


@pytest.mark.parametrize("batch_first, bias", [(False, True), (False, False), (True, True)])
def test_quantizable_multihead_attention_equals_pytorchs(batch_first, bias):
    """prepare_custom_config mapping nn.MultiheadAttention to PyTorch's
    quantizable MultiheadAttention quantizes the input and output
    projections (int8 Linears with the module's qconfig) and leaves the
    attention between them float: PyTorch's quantized MultiheadAttention,
    output for output, with qfx's own calibration. PyTorch 1.13 drops
    `batch_first` when it makes the quantizable module (its batch-first
    output is not attention); qfx keeps it and equals PyTorch's
    sequence-first module on the transposed input."""
    torch.manual_seed(0)
    engine = torch.backends.quantized.engine
    torch.backends.quantized.engine = "onednn"
    try:
        attention = nn.MultiheadAttention(48, 6, bias=bias).eval()
        generator = torch.Generator().manual_seed(2)
        samples = [torch.randn(12, 3, 48, generator=generator) for _ in range(6)]
        qconfig = torch.ao.quantization.get_default_qconfig("onednn")
        theirs = _eager_quantized_attention(attention, qconfig, samples[:4])

        ours_attention = copy.deepcopy(attention)
        if batch_first:
            ours_attention.batch_first = True
        layout = (lambda x: x.transpose(0, 1)) if batch_first else (lambda x: x)
        prepared = qfx.prepare_fx(Attention(ours_attention).eval(),
                                  torch.ao.quantization.QConfigMapping().set_global(qconfig),
                                  (layout(samples[0]),), _quantizable_attention_config(),
                                  outputs=None)
        for x in samples[:4]:
            prepared(layout(x))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qfx.FloatOpWarning)
            quantized = qfx.convert_fx(prepared)
    finally:
        torch.backends.quantized.engine = engine
    assert [op.op for op in quantized.float_ops] == [
        "qfx.composite torch.ao.nn.quantizable.MultiheadAttention"]
    assert quantized.mlir("int8").count("qfx.contract") == 4  # the four int8 Linears
    for x in samples[4:]:
        expected = theirs(x)
        step = expected.flatten().unique().diff().min()
        steps = (layout(quantized(layout(x))) - expected).abs() / step
        # Every output equal, as docs/python.md says.
        assert steps.max() < 1e-3


def test_multihead_attention_float_export_either_layout():
    """The float composite (no custom config) computes PyTorch's
    nn.MultiheadAttention batch first and sequence first; a None qconfig on
    a quantizable one leaves its projections float too."""
    torch.manual_seed(0)
    for batch_first in (False, True):
        attention = nn.MultiheadAttention(32, 4, batch_first=batch_first).eval()
        model = Attention(attention).eval()
        x = torch.randn(5, 7, 32)
        prepared = qfx.prepare_fx(model, "default:x86", (x,), outputs="torch")
        assert '"torch.nn.MultiheadAttention"' in prepared.mlir("float")
        with torch.no_grad():
            torch.testing.assert_close(prepared(x), model(x), rtol=0, atol=1e-5)
    mapping = torch.ao.quantization.get_default_qconfig_mapping("x86").set_module_name(
        "attention", None)
    prepared = qfx.prepare_fx(model, mapping, (x,), _quantizable_attention_config(),
                              outputs="torch")
    assert "qfx.observe" not in prepared.mlir("observed")
    with torch.no_grad():
        torch.testing.assert_close(prepared(x), model(x), rtol=0, atol=1e-5)


def test_custom_configs_qfx_does_not_implement_raise():
    from torch.ao.quantization.fx.custom_config import ConvertCustomConfig, PrepareCustomConfig

    model = Attention(nn.MultiheadAttention(16, 2).eval()).eval()
    x = torch.randn(3, 2, 16)
    with pytest.raises(NotImplementedError, match="standalone_module_names"):
        qfx.prepare_fx(model, "default:x86", (x,),
                       PrepareCustomConfig().set_standalone_module_name("attention", None,
                                                                        (x,), None, None))
    with pytest.raises(NotImplementedError, match="maps LSTM to"):
        qfx.prepare_fx(model, "default:x86", (x,), PrepareCustomConfig()
                       .set_float_to_observed_mapping(nn.LSTM, torch.ao.nn.quantizable.LSTM))
    with pytest.raises(TypeError, match="PrepareCustomConfig or its dict"):
        qfx.prepare_fx(model, "default:x86", (x,), ["attention"])
    as_dict = {"float_to_observed_custom_module_class": {
        "static": {nn.MultiheadAttention: torch.ao.nn.quantizable.MultiheadAttention}}}
    prepared = qfx.prepare_fx(model, "default:x86", (x,), as_dict, outputs=None)
    assert "torch.ao.nn.quantizable.MultiheadAttention" in prepared.mlir("float")
    prepared(x)
    with pytest.raises(NotImplementedError, match="maps LSTM to"):
        qfx.convert_fx(prepared, convert_custom_config=ConvertCustomConfig()
                       .set_observed_to_quantized_mapping(torch.ao.nn.quantizable.LSTM,
                                                          torch.ao.nn.quantized.LSTM))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        qfx.convert_fx(prepared, convert_custom_config=ConvertCustomConfig()
                       .set_observed_to_quantized_mapping(
                           torch.ao.nn.quantizable.MultiheadAttention,
                           torch.ao.nn.quantized.MultiheadAttention))


def test_quantizable_multihead_attention_called_twice():
    """A quantizable MultiheadAttention the graph calls twice: each call's
    Linears are located at the module and the call (`loc("attention"(
    "attention_1.linear_Q"))`), both take the module's qconfig, and the int8
    model stays near the float one."""

    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = nn.MultiheadAttention(16, 2, batch_first=True)

        def forward(self, x):
            y = self.attention(x, x, x, need_weights=False)[0]
            return self.attention(y, y, y, need_weights=False)[0]

    torch.manual_seed(0)
    model = Twice().eval()
    samples = [torch.randn(2, 5, 16) for _ in range(5)]
    prepared = qfx.prepare_fx(model, "default:x86", (samples[0],),
                              _quantizable_attention_config(), outputs=None)
    float_mlir = prepared.mlir("float")
    for call in ("attention", "attention_1"):
        for child in ("linear_Q", "linear_K", "linear_V", "out_proj"):
            assert f'loc("attention"("{call}.{child}"))' in float_mlir, (call, child)
    for x in samples[:4]:
        prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        quantized = qfx.convert_fx(prepared)
    assert len(quantized.float_ops) == 2  # the two calls' float attention
    assert quantized.mlir("int8").count("qfx.contract") == 8
    with torch.no_grad():
        error = (quantized(samples[4]) - model(samples[4])).abs().max().item()
    assert error < 0.02, error  # 0.0086 on outputs up to 0.14


def test_quantizable_multihead_attention_dynamic():
    """With a dynamic qconfig, the quantizable MultiheadAttention's four
    Linears are dynamic int8 Linears: one choice of qparams per call for
    the shared input of linear_Q/K/V, one for out_proj's."""
    torch.manual_seed(0)
    model = Attention(nn.MultiheadAttention(32, 4, batch_first=True).eval()).eval()
    x = torch.randn(2, 7, 32)
    mapping = torch.ao.quantization.QConfigMapping().set_global(
        torch.ao.quantization.default_dynamic_qconfig)
    quantized = qfx.convert_fx(qfx.prepare_fx(model, mapping, (x,),
                                              _quantizable_attention_config(), outputs=None))
    int8 = quantized.mlir("int8")
    assert int8.count("qfx.contract") == 4
    assert int8.count("qfx.choose_qparams") == 2
    with torch.no_grad():
        error = (quantized(x) - model(x)).abs().max().item()
    assert error < 0.05, error  # 0.017 on outputs up to 0.44


def test_encoder_at_other_batch_sizes_and_lengths_equals_pytorch():
    """Converted at [1, 16, 64], the model compiles for other batch sizes and
    sequence lengths at their first call (exported again, PyTorch's
    statistics imported again); every output equals PyTorch's."""
    model, calibration, _ = encoder()
    prepared, theirs = torch_static(model, calibration)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared, (calibration[0],))
    generator = torch.Generator().manual_seed(2)
    with pytest.warns(qfx.RecompileWarning, match=r"input shapes \[3, 16, 64\]"):
        ours(torch.randn(3, 16, 64, generator=generator))
    with warnings.catch_warnings():
        warnings.simplefilter("error", qfx.RecompileWarning)  # said once
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        for shape in ((3, 16, 64), (2, 9, 64), (1, 16, 64)):
            x = torch.randn(*shape, generator=generator)
            with torch.no_grad():
                assert torch.equal(ours(x), theirs(x))
