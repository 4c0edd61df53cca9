#!/usr/bin/env python3
"""int8 convolution speed: qfx-codegen's conv kernels against oneDNN 2.6 and
PyTorch 1.13's quantized Conv2d (onednn engine), side by side.

For each shape (NHWC, batch 1; SHAPES below)
  - conv:        conv2d 1x56x56x64 -> 64 output channels, 3x3, padding 1;
  - depthwise:   depthwise conv2d 1x56x56x128, 3x3, padding 1, channel
                 multiplier 1;
  - stem:        resnet's and googlenet's 1x224x224x3 -> 64, 7x7, stride 2;
  - pointwise28, pointwise14, pointwise7: googlenet's 1x1 convolutions
                 256 -> 128 at 28x28, 512 -> 160 at 14x14, 832 -> 384 at 7x7;
in interleaved rounds (the machine is shared and noisy), it times
  - qfx: an int8 TOSA Conv2d chain (s8 input with a zero point, s8 weights,
    int32 bias, then a per-channel requantization to int8: in float32 with a
    float bias as PyTorch's onednn engine, or with --requantization integer
    a second int32 bias and tosa.rescale), as the codegen tests generate it
    (test/Codegen/Inputs/matmul-cases.py), compiled by quant-run with
    qfx-codegen (--codegen=host) and timed with quant-run --bench;
  - oneDNN: its convolution_forward, u8 nhwc source x s8 weights (the layout
    it picks, reordered once before timing) with s32 bias and per-channel
    output scales to s8 nhwc; groups = channels for depthwise
    (utils/bench/onednn_conv.cpp, ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI);
  - PyTorch: torch.ao.nn.quantized.Conv2d (quint8 channels_last input,
    qint8 per-channel weights, float bias; groups = channels for depthwise),
    engine onednn;
and prints the median time of each over the rounds in ms and as GOPS
(2 x multiply-accumulates), and qfx's speed relative to each peer ("speed vs
oneDNN", "speed vs torch": the peer's time / qfx's time, above 1: qfx is
faster).

Usage (from the repository root, after ./utils/setup.sh):
  /usr/bin/python3 utils/bench/conv_vs_peers.py [--rounds 3] [--runs 20]
      [--threads 1,2] [--requantization float|integer] [--shapes conv,stem,...]

Threads: OMP_NUM_THREADS for qfx's kernels (OpenMP) and oneDNN,
torch.set_num_threads for PyTorch.

What it shares with gemm_vs_peers.py is in utils/bench/peers.py.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import peers  # noqa: E402  (utils/bench/peers.py, next to this script)

# name -> (kind, (N, H, W, C, O or channel multiplier, KH, KW, stride,
# pad [t, b, l, r], dilation)), the tuples of matmul-cases.py's CONVS and
# DEPTHWISE.
SHAPES = {
    "conv": ("conv", (1, 56, 56, 64, 64, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1))),
    "depthwise": ("depthwise", (1, 56, 56, 128, 1, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1))),
    "stem": ("conv", (1, 224, 224, 3, 64, 7, 7, (2, 2), (3, 2, 3, 2), (1, 1))),
    # googlenet's pointwise convolutions: few rows, long rows (inception3b,
    # inception4b, inception5b's first branch).
    "pointwise28": ("conv", (1, 28, 28, 256, 128, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1))),
    "pointwise14": ("conv", (1, 14, 14, 512, 160, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1))),
    "pointwise7": ("conv", (1, 7, 7, 832, 384, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1))),
}
# matmul-cases.py's epilogue by index: 0 is per channel (index % 2 == 0) with a
# bias (rescale: index % 3 != 2; float: index % 5 != 4), without the 2^f
# multiply (rescale) or a clamp narrower than the type's.
CASE_INDEX = 0


def geometry(kind: str, conv: tuple) -> dict:
    """Output channels, groups, output size and multiply-accumulates."""
    n, h, w, c, o_or_mult, kh, kw, stride, pad, dilation = conv
    oh = (h + pad[0] + pad[1] - kh) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - kw) // stride[1] + 1
    # TOSA wants the padded size to fit the windows exactly; oneDNN and
    # PyTorch get pad[0] on every side, which must give the same output.
    assert (stride[0] == stride[1] and pad[0] == pad[2] and dilation == (1, 1) and
            (h + 2 * pad[0] - kh) // stride[0] + 1 == oh and
            (w + 2 * pad[0] - kw) // stride[0] + 1 == ow), \
        "oneDNN and PyTorch are given a symmetric stride and padding, no dilation"
    o, groups = (o_or_mult, 1) if kind == "conv" else (c * o_or_mult, c)
    macs = n * oh * ow * o * kh * kw * (c // groups)
    return dict(n=n, h=h, w=w, c=c, o=o, k=kh, stride=stride[0], pad=pad[0], groups=groups,
                macs=macs)


def time_onednn(binary: pathlib.Path, g: dict, runs: int, threads: int) -> tuple:
    """The median in ms, and the implementation and weight layout chosen."""
    args = [g[key] for key in ("n", "h", "w", "c", "o", "k", "k", "stride", "pad", "groups")]
    out = peers.run_onednn(binary, args, runs, threads)
    return float(out.stdout), out.stderr.strip()


def time_torch(g: dict, runs: int, threads: int) -> float:
    torch = peers.torch_onednn(threads)
    c, o, groups = g["c"], g["o"], g["groups"]
    conv = torch.ao.nn.quantized.Conv2d(c, o, g["k"], stride=g["stride"], padding=g["pad"],
                                        groups=groups)
    w = torch.quantize_per_channel(torch.randn(o, c // groups, g["k"], g["k"]),
                                   torch.full((o,), 0.02, dtype=torch.double),
                                   torch.zeros(o, dtype=torch.long), 0, torch.qint8)
    conv.set_weight_bias(w, torch.zeros(o))
    conv.scale, conv.zero_point = 0.05, 64
    x = torch.quantize_per_tensor(torch.rand(g["n"], c, g["h"], g["w"]), 1 / 255, 0,
                                  torch.quint8).contiguous(memory_format=torch.channels_last)
    return peers.median_ms(lambda: conv(x), runs)


def main() -> int:
    parser = peers.parser(__doc__)
    parser.add_argument("--shapes", default=",".join(SHAPES),
                        help=f"a comma-separated subset of {','.join(SHAPES)} (default: all)")
    args = parser.parse_args()
    names = args.shapes.split(",")
    unknown = [name for name in names if name not in SHAPES]
    if unknown:
        parser.error(f"unknown shape(s) {','.join(unknown)}; choose from {','.join(SHAPES)}")
    threads = peers.thread_counts(args.threads)
    if peers.quant_run_missing():
        return 1
    cases = peers.load_case_writer()
    rng = np.random.default_rng(0)
    geometries = {name: geometry(*SHAPES[name]) for name in names}
    chosen = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        peers.build("onednn_conv.cpp", tmp / "onednn_conv", "-ldnnl")
        models = {}
        for name in names:
            kind, conv = SHAPES[name]
            writer = cases.conv_case if kind == "conv" else cases.depthwise_case
            text, input_shape = writer(rng, conv, CASE_INDEX,
                                       peers.epilogue(cases, args.requantization))
            model, data = tmp / f"{name}.mlir", tmp / f"{name}.npy"
            model.write_text(text)
            np.save(data, rng.integers(-128, 128, size=input_shape).astype(np.int8))
            models[name] = (model, data)

        def onednn(name: str, t: int) -> float:
            """oneDNN's median, noting the implementation it chose."""
            ms, impl = time_onednn(tmp / "onednn_conv", geometries[name], args.runs, t)
            chosen.setdefault(name, impl)
            return ms

        samples = peers.interleaved_rounds(args.rounds, names, threads, {
            "qfx": lambda name, t: peers.time_qfx(*models[name], args.runs, t),
            "onednn": onednn,
            "torch": lambda name, t: time_torch(geometries[name], args.runs, t),
        })
    print(f"medians of {args.rounds} interleaved rounds of {args.runs} runs; NHWC int8, batch 1")
    rows = []
    for name in names:
        kind, conv = SHAPES[name]
        g = geometries[name]
        label = (f"conv {g['n']}x{g['h']}x{g['w']}x{g['c']}->{g['o']}" if kind == "conv" else
                 f"depthwise {g['n']}x{g['h']}x{g['w']}x{g['c']} x{g['o'] // g['c']}")
        for t in threads:
            ms = peers.medians(samples, name, t)
            gops = [2 * g["macs"] / v / 1e6 for v in ms]
            rows.append([label, t, *ms, *gops, ms[1] / ms[0], ms[2] / ms[0]])
    peers.print_table([("shape", 28, ""), ("thr", 3, ""), ("qfx ms", 8, ".3f"),
                       ("oneDNN ms", 9, ".3f"), ("torch ms", 8, ".3f"), ("qfx", 6, ".0f"),
                       ("oneDNN", 6, ".0f"), ("torch", 6, ".0f"),
                       ("speed vs oneDNN", 15, ".2f"), ("speed vs torch", 14, ".2f")], rows)
    print("qfx/oneDNN/torch without 'ms': GOPS (2 x MACs).")
    print(peers.SPEED_NOTE)
    for name in names:
        print(f"oneDNN for {name}: {chosen[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
