"""Graph breaks: what the exporter cannot express runs in PyTorch between
the compiled parts of the model (qfx.host_call), in float on dequantized
inputs as in PyTorch's reference model, and the model's outputs are
PyTorch's. Needs torch (Debian's python3-torch: run with /usr/bin/python3).
"""

import copy
import math
import warnings

import numpy as np
import pytest
import torch
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx as torch_convert_fx
from torch.ao.quantization.quantize_fx import prepare_fx as torch_prepare_fx

import qfx

nn = torch.nn
F = torch.nn.functional


def swish_plus_half(x):
    """A Python function FX does not trace into (torch.fx.wrap)."""
    return x * torch.sigmoid(x) + 0.5


def keep(x, mask):
    """A Python function of a float and a bool tensor."""
    return x * mask


def positives(x):
    """A result whose shape depends on the data."""
    return x[x > 0]


def checked(x):
    if bool((x > 100).any()):
        raise ValueError("an input above 100")
    return x * 2


torch.fx.wrap("swish_plus_half")
torch.fx.wrap("keep")
torch.fx.wrap("positives")
torch.fx.wrap("checked")


class Breaks(nn.Module):
    """A conv, then torch.where on a comparison (native), a Python function
    of a tensor and a mask, a Linear, torch.topk, torch.sort and a Python
    function, then a Linear: four nodes the exporter does not know, between
    quantized layers."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 8 * 8, 16)
        self.head = nn.Linear(4, 10)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = torch.where(y > 0.3, y, 0.1 * y)
        y = keep(y, y > 0.5)
        z = self.fc(y.flatten(1))
        top = torch.topk(z, 4).values
        ordered = torch.sort(top, dim=1)[0]
        return self.head(swish_plus_half(ordered))


BREAKS = [(f"{__name__}.keep", "keep"), ("torch.topk", "topk"), ("torch.sort", "sort"),
          (f"{__name__}.swish_plus_half", "swish_plus_half")]


def data(count, seed):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(1, 3, 8, 8, generator=generator) for _ in range(count)]


def with_pytorchs_statistics(model, example, calibration):
    """PyTorch FX's quantized `model` (x86 mapping) calibrated on
    `calibration`, and qfx's convert_fx of the same prepared model."""
    prepared = torch_prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"), example)
    with torch.no_grad():
        for x in calibration:
            prepared(x)
    theirs = torch_convert_fx(copy.deepcopy(prepared))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared, example)
    return ours, theirs


def assert_equal_outputs(ours, theirs, inputs):
    with torch.no_grad():
        for x in inputs:
            mine, reference = ours(x), theirs(x)
            if isinstance(reference, torch.Tensor):
                mine, reference = (mine,), (reference,)
            for a, b in zip(mine, reference, strict=True):
                assert torch.equal(a, b)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return Breaks().eval()


def test_breaks_are_listed_with_their_reasons(model):
    prepared = qfx.prepare_fx(model, get_default_qconfig_mapping("x86"), (data(1, 1)[0],),
                              backend_config="x86")
    assert [(c.callee, c.node) for c in prepared.graph_breaks] == BREAKS
    assert all(c.reason == "unsupported function" for c in prepared.graph_breaks)
    observed = prepared.mlir("observed")
    assert observed.count("qfx.host_call") == len(BREAKS)
    # A bool mask and topk's indices cross as tensors too.
    assert "(tensor<1x8x8x8xf32>, tensor<1x8x8x8xi1>) -> tensor<1x8x8x8xf32>" in observed
    assert "-> (tensor<1x4xf32>, tensor<1x4xi64>)" in observed

    for x in data(8, 2):
        prepared(x)
    with pytest.warns(qfx.FloatOpWarning, match="graph break"):
        quantized = qfx.convert_fx(prepared)
    assert [(f.op, f.origin) for f in quantized.float_ops[:len(BREAKS)]] == [
        ("qfx.host_call", callee) for callee, _ in BREAKS]
    assert quantized.float_ops[0].location == "(keep)"
    assert quantized.float_ops[0].reason == "runs in PyTorch (a graph break): unsupported function"


def test_a_model_with_breaks_saves_and_loads(model, tmp_path):
    """The breaks are pickled (torch.save); the program has no library (it
    calls back into Python) and compiles when loaded."""
    prepared = qfx.prepare_fx(model, get_default_qconfig_mapping("x86"), (data(1, 1)[0],),
                              outputs=None)
    for x in data(8, 2):
        prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        quantized = qfx.convert_fx(prepared)
    quantized.save(tmp_path / "saved")
    saved = sorted(p.name for p in (tmp_path / "saved").iterdir())
    assert "graph_breaks.pt" in saved and "libmodel.so" not in saved
    loaded = qfx.load(tmp_path / "saved")
    assert [(c.callee, c.node) for c in loaded.graph_breaks] == BREAKS
    assert loaded.float_ops == quantized.float_ops
    for x in data(4, 5):
        assert torch.equal(loaded(x), quantized(x))
    (tmp_path / "saved" / "graph_breaks.pt").write_bytes(b"not a pickle")
    with pytest.raises(ValueError, match="graph_breaks.pt: cannot load the graph breaks"):
        qfx.load(tmp_path / "saved")


def test_strict_names_each_break(model):
    with pytest.raises(qfx.ExportError) as failure:
        qfx.prepare_fx(model, get_default_qconfig_mapping("x86"), (data(1, 1)[0],),
                       strict=True)
    assert failure.value.node == "keep"
    message = str(failure.value)
    assert message.startswith(f"cannot export node 'keep' (call_function target '{__name__}.keep') "
                              f"in the root module ({__name__}.Breaks): unsupported function; and "
                              "3 more node(s) qfx cannot express: ")
    for callee, node in BREAKS[1:]:
        assert f"'{node}' ({callee}): unsupported function" in message


def test_outputs_equal_pytorchs_with_its_statistics(model):
    """PyTorch's own statistics imported: the int8 arithmetic around the
    breaks, and the breaks themselves, are PyTorch's, bit for bit."""
    ours, theirs = with_pytorchs_statistics(model, (data(1, 1)[0],), data(8, 2))
    assert len(ours.graph_breaks) == len(BREAKS)
    assert_equal_outputs(ours, theirs, data(40, 3))


def test_outputs_within_a_step_of_pytorchs_with_qfxs_calibration(model):
    _, theirs = with_pytorchs_statistics(model, (data(1, 1)[0],), data(8, 2))
    prepared = qfx.prepare_fx(model, get_default_qconfig_mapping("x86"), (data(1, 1)[0],),
                              outputs=None)
    for x in data(8, 2):
        prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(prepared)
    step = theirs.head.scale
    with torch.no_grad():
        for x in data(40, 3):
            assert (ours(x) - theirs(x)).abs().max().item() <= step * 1.001


class Masks(nn.Module):
    """Comparisons (operators, functions, methods), logical ops and
    torch.where with tensors and numbers."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8 * 8 * 8, 16)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = torch.where(y > 0.3, y, 0.1 * y)
        z = self.conv2(y)
        mask = ~((z <= 0.5) | (z != z)) & torch.ge(z, -3) ^ z.eq(0.25)
        w = torch.where(z.lt(0.2), torch.zeros_like(z) + 1.5, z)
        w = torch.where(torch.logical_not(mask), w, -1.0)
        return self.fc(w.flatten(1))


def test_comparisons_logical_ops_and_where_are_native():
    torch.manual_seed(2)
    model = Masks().eval()
    example = (data(1, 1)[0],)
    ours, theirs = with_pytorchs_statistics(model, example, data(8, 2))
    assert ours.graph_breaks == []
    int8 = ours.mlir("int8")
    for op in ("tosa.greater ", "tosa.greater_equal", "tosa.equal", "tosa.logical_not",
               "tosa.logical_or", "tosa.logical_and", "tosa.logical_xor", "tosa.select"):
        assert op in int8, op
    assert_equal_outputs(ours, theirs, data(40, 3))


class Upsampling(nn.Module):
    """nn.Upsample has no pattern in PyTorch's tables (F.interpolate has):
    it runs in float on the dequantized tensor in both."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.nearest = nn.Upsample(scale_factor=2)
        self.bilinear = nn.UpsamplingBilinear2d(scale_factor=2)
        self.sized = nn.Upsample(size=(20, 20), mode="bilinear", align_corners=False)
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = self.conv(x)
        return self.head(self.sized(self.bilinear(torch.relu(self.nearest(y)))))


class Padding(nn.Module):
    """F.pad in every mode and the padding modules: data movement (slices,
    constants, concats), float as in PyTorch, whose tables have no pattern
    for them."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.zero = nn.ZeroPad2d((1, 2, 0, 1))
        self.reflect = nn.ReflectionPad2d(2)
        self.replicate = nn.ReplicationPad2d((0, 1, 3, 0))
        self.conv2 = nn.Conv2d(8, 4, 3)

    def forward(self, x):
        y = self.zero(self.conv(x))
        y = F.pad(y, (1, 1, 2, 0), mode="circular")
        y = F.pad(self.reflect(y), (-1, 2, 1, -2), value=0.75)
        y = F.pad(torch.relu(self.replicate(y)), (1, 0, 0, 0, 1, 1), mode="constant")
        y = F.pad(y.flatten(2), (3, 3), mode="reflect")
        return self.conv2(y.view(1, 10, 12, 23)[:, :8])


class Products(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.w = nn.Parameter(torch.randn(8, 6))
        self.v = nn.Parameter(torch.randn(5, 4))

    def forward(self, x):
        y = self.fc(x)
        return torch.matmul(self.v, y), torch.matmul(y.t(), y), y @ self.w, y @ torch.t(y)


def test_matmul_with_a_parameter_and_transposes():
    """torch.matmul (which PyTorch quantizes) of a parameter and of x.t():
    PyTorch's int8 matmul, bit for bit; `@` (operator.matmul, float in
    PyTorch) in float: qfx's summation order, within float rounding."""
    torch.manual_seed(5)
    model = Products().eval()
    example = (torch.randn(4, 8),)
    calibration = [torch.randn(4, 8) for _ in range(8)]
    ours, theirs = with_pytorchs_statistics(model, example, calibration)
    assert ours.graph_breaks == []
    with torch.no_grad():
        for _ in range(20):
            x = torch.randn(4, 8)
            mine, reference = ours(x), theirs(x)
            assert torch.equal(mine[0], reference[0]) and torch.equal(mine[1], reference[1])
            for a, b in zip(mine[2:], reference[2:]):
                torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)


class CausalSelfAttention(nn.Module):
    """GPT-2's attention as nanoGPT writes it: a bool causal-mask buffer,
    masked_fill with -inf, softmax, then a torch.where on the mask."""

    def __init__(self, size=32, heads=4, length=8):
        super().__init__()
        self.heads, self.size, self.length = heads, size, length
        self.qkv = nn.Linear(size, 3 * size)
        self.proj = nn.Linear(size, size)
        self.register_buffer("bias", torch.tril(torch.ones(length, length)).bool()
                             .view(1, 1, length, length))

    def forward(self, x):
        # (No tuple unpacking, no arithmetic on traced sizes: PyTorch 1.13's
        # FX on Python 3.11 traces neither.)
        qkv = self.qkv(x).split(self.size, dim=2)
        shape = (1, self.length, self.heads, self.size // self.heads)
        q, k, v = (qkv[j].view(shape).transpose(1, 2) for j in range(3))
        att = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(self.size // self.heads))
        att = att.masked_fill(self.bias == 0, float("-inf"))
        att = torch.where(self.bias, F.softmax(att, dim=-1), 0.0)
        y = torch.matmul(att, v).transpose(1, 2).contiguous().view(1, self.length, self.size)
        return self.proj(y)


def test_causal_attention_with_a_bool_mask_is_native():
    torch.manual_seed(6)
    model = CausalSelfAttention().eval()
    example = (torch.randn(1, 8, 32),)
    calibration = [torch.randn(1, 8, 32) for _ in range(8)]
    ours, theirs = with_pytorchs_statistics(model, example, calibration)
    assert ours.graph_breaks == []
    assert "xi1>" in ours.mlir("int8")  # the mask, a bool constant
    assert_equal_outputs(ours, theirs, [torch.randn(1, 8, 32) for _ in range(20)])


class Pieces(nn.Module):
    """PyTorch has no pattern for chunk or split: it runs them on the
    dequantized tensor, and add, mean and mul observe each piece. (qfx's
    slices had no origin, so the pieces shared the conv's qparams.)"""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        y = self.conv(x)
        halves = torch.chunk(y, 2, dim=1)
        parts = y.split([3, 5], dim=1)
        return halves[0] + halves[1], parts[0].mean(1, keepdim=True) * parts[1]


@pytest.mark.parametrize("module, seed", [(Upsampling, 3), (Padding, 4), (Pieces, 7)],
                         ids=["upsample", "padding", "chunk_and_split"])
def test_native_ops_equal_pytorchs(module, seed):
    """Each module's ops, compiled (no graph break), equal PyTorch's
    convert_fx with its statistics."""
    torch.manual_seed(seed)
    ours, theirs = with_pytorchs_statistics(module().eval(), (data(1, 1)[0],), data(8, 2))
    assert ours.graph_breaks == []
    assert_equal_outputs(ours, theirs, data(20, 3))


class DataDependent(nn.Module):
    def forward(self, x):
        return positives(x) * 2


class Raising(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return checked(self.fc(x))


def test_a_break_that_changes_its_shape_or_raises_is_an_error():
    x = torch.tensor([[1.0, -1.0, 2.0, -2.0]])
    prepared = qfx.prepare_fx(DataDependent().eval(), "default:x86", (x,))
    assert prepared(x).tolist() == [2.0, 4.0]
    with pytest.raises(qfx.GraphBreakError, match=r"node 'positives' .*: result 0 is torch.float32 "
                       r"\[3\], the compiled program expects float32 \[2\]"):
        prepared(torch.tensor([[1.0, 1.0, 2.0, -2.0]]))

    prepared = qfx.prepare_fx(Raising().eval(), "default:x86", (x,))
    with pytest.raises(qfx.GraphBreakError, match="PyTorch raised ValueError: an input above 100") \
            as failure:
        prepared(torch.full((1, 4), 1000.0))
    assert isinstance(failure.value.__cause__, ValueError)
    # The model still runs after a failure.
    assert prepared(x).shape == (1, 4)


class DictOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = self.conv(x)
        return {"out": y, "aux": [torch.relu(y), y.mean(1)]}


def test_dict_and_list_outputs_keep_their_structure():
    torch.manual_seed(1)
    model = DictOutput().eval()
    x = data(1, 4)[0]
    prepared = qfx.prepare_fx(model, "default:x86", (x,))
    assert prepared.graph_breaks == []
    result = prepared(x)
    expected = model(x)
    assert list(result) == ["out", "aux"] and isinstance(result["aux"], tuple)
    np.testing.assert_allclose(result["out"].numpy(), expected["out"].detach().numpy(),
                               atol=1e-5)
    np.testing.assert_allclose(result["aux"][1].numpy(), expected["aux"][1].detach().numpy(),
                               atol=1e-5)


class CheckedFirst(Raising):
    def forward(self, x):
        return self.fc(checked(x))


def test_breaks_run_on_several_threads_at_once():
    """Each thread runs the model with its own host callback; a failure on
    one thread is that thread's."""
    import threading

    x = torch.tensor([[1.0, -1.0, 2.0, -2.0]])
    prepared = qfx.prepare_fx(CheckedFirst().eval(), "default:x86", (x,), outputs=None)
    prepared(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        quantized = qfx.convert_fx(prepared)
    expected = quantized(x)
    failures, results = [], []

    def work(k):
        for _ in range(20):
            if k == 0:
                try:
                    quantized(torch.full((1, 4), 1000.0))
                except qfx.GraphBreakError:
                    failures.append(k)
            else:
                results.append(torch.equal(quantized(x), expected))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [0] * 20 and results == [True] * 60


class SignFlip(nn.Module):
    """Python control flow on a tensor's value: torch.fx cannot trace it."""

    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return -x


class WithUntraceable(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.flip = SignFlip()
        self.conv2 = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        return self.conv2(self.flip(torch.relu(self.conv1(x))))


@pytest.mark.parametrize("by", ["name", "class"])
def test_non_traceable_modules_run_in_pytorch_as_in_pytorchs_prepared_model(by):
    """prepare_custom_config's non-traceable module names and classes are
    leaves of qfx's trace as of PyTorch's; one qfx does not export runs in
    PyTorch (in float, between quantized convolutions), also with strict."""
    from torch.ao.quantization.fx.custom_config import PrepareCustomConfig

    torch.manual_seed(0)
    model = WithUntraceable().eval()
    custom = (PrepareCustomConfig().set_non_traceable_module_names(["flip"]) if by == "name"
              else PrepareCustomConfig().set_non_traceable_module_classes([SignFlip]))
    example, calibration = (data(1, 1)[0],), data(6, 2)
    prepared = qfx.prepare_fx(model, get_default_qconfig_mapping("x86"), example, custom,
                              strict=True)
    assert [(c.callee, c.node, c.reason) for c in prepared.graph_breaks] == [
        (f"{__name__}.SignFlip", "flip", "non-traceable module (prepare_custom_config)")]
    # With PyTorch's statistics, PyTorch's outputs.
    theirs = torch_prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"), example,
                              custom)
    with torch.no_grad():
        for x in calibration:
            theirs(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qfx.FloatOpWarning)
        ours = qfx.convert_fx(theirs, example)
    # (PyTorch 1.13's table leaves torch.relu after a Conv2d module float too.)
    assert [(op.op, op.origin) for op in ours.float_ops] == [
        ("qfx.host_call", f"{__name__}.SignFlip"), ("tosa.clamp", "torch.relu")]
    assert_equal_outputs(ours, torch_convert_fx(copy.deepcopy(theirs)), data(8, 3))
    # Without the declaration, tracing fails in qfx as in PyTorch.
    with pytest.raises(torch.fx.proxy.TraceError, match="control flow"):
        qfx.prepare_fx(model, get_default_qconfig_mapping("x86"), example)
