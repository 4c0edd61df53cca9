#!/usr/bin/python3
# ===- gen_numerics_golden.py - Golden data for qfx Numerics from PyTorch -===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# Writes test/Unit/Numerics/golden/numerics_golden.json: quantize /
# dequantize / fake-quantize results and observer qparams computed by
# PyTorch 1.13 (Debian's python3-torch), which QFXNumericsTests compares with
# qfx bit for bit. Regenerate with:
#
#   /usr/bin/python3 utils/golden/gen_numerics_golden.py \
#       test/Unit/Numerics/golden/numerics_golden.json
#
# Every float32 is stored as its uint32 bit pattern, every python float
# (double) as a "%.17g" string, so that all values round-trip exactly.
#
# ===----------------------------------------------------------------------===#

import itertools
import json
import struct
import sys
import warnings

import torch
from torch.ao.quantization import observer as tob

warnings.filterwarnings("ignore")
torch.manual_seed(20221028)
torch.set_num_threads(1)

DTYPES = {
    "quint8": torch.quint8,
    "qint8": torch.qint8,
    "qint32": torch.qint32,
    "quint4x2": torch.quint4x2,
}
QSCHEMES = {
    "per_tensor_affine": torch.per_tensor_affine,
    "per_tensor_symmetric": torch.per_tensor_symmetric,
    "per_channel_affine": torch.per_channel_affine,
    "per_channel_symmetric": torch.per_channel_symmetric,
    "per_channel_affine_float_qparams": torch.per_channel_affine_float_qparams,
}


def bits(t):
    """float32 tensor -> list of uint32 bit patterns."""
    t = t.detach().to(torch.float32).contiguous().reshape(-1)
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in t.tolist()]


def dstr(v):
    return "%.17g" % v


def int_repr(q):
    """Integer values of a quantized tensor (unpacks quint4x2 nibbles)."""
    raw = q.int_repr().reshape(-1).tolist()
    if q.dtype != torch.quint4x2:
        return raw
    n = q.numel()
    return [(raw[i // 2] >> (4 * (i % 2))) & 15 for i in range(n)]


# ---------------------------------------------------------------------------
# Quantize / dequantize / fake-quantize
# ---------------------------------------------------------------------------

def quantize_input(scale):
    base = torch.randn(40) * 3
    # Exact half-way points (ties), both signs, zero, -0, outliers.
    ties = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5,
                         -128.5, 7.5, 8.5], dtype=torch.float32) * scale
    edge = torch.tensor([0.0, -0.0, 1e4, -1e4, 3e9, -3e9, 1e-30, 65.3],
                        dtype=torch.float32)
    return torch.cat([base, ties.to(torch.float32), edge])


def per_tensor_quantize_cases():
    cases = []
    for name, dtype in DTYPES.items():
        info = {"quint8": (0, 255), "qint8": (-128, 127),
                "qint32": (-2**31, 2**31 - 1), "quint4x2": (0, 15)}[name]
        for scale in [0.0214854861, 1.0 / 3.0, 2.0]:
            for zp in sorted({info[0], 0, (info[0] + info[1]) // 2 + 1, 3}):
                if not (info[0] <= zp <= info[1]):
                    continue
                x = quantize_input(scale)
                q = torch.quantize_per_tensor(x, scale, zp, dtype)
                case = {"dtype": name, "scale": dstr(scale),
                        "zero_point": zp, "input": bits(x),
                        "quantized": int_repr(q),
                        "dequantized": bits(q.dequantize())}
                fq = []
                ranges = [info]
                if name in ("quint8", "qint8"):
                    ranges += [(info[0] // 2, info[1] // 2)]
                if name == "quint8":
                    ranges += [(0, 15)]
                for qmin, qmax in ranges:
                    if not (qmin <= zp <= qmax) or name == "quint4x2":
                        continue
                    out = torch.fake_quantize_per_tensor_affine(
                        x, scale, zp, qmin, qmax)
                    fq.append({"quant_min": qmin, "quant_max": qmax,
                               "output": bits(out)})
                case["fake_quantized"] = fq
                cases.append(case)
    return cases


def per_channel_quantize_cases():
    cases = []
    shapes = [([4, 3, 2, 2], 0), ([4, 3, 2, 2], 1), ([4, 3, 2, 2], 3),
              ([5, 6], -1), ([6], 0)]
    for (shape, axis), (name, dtype) in itertools.product(
            shapes, [("quint8", torch.quint8), ("qint8", torch.qint8),
                     ("qint32", torch.qint32)]):
        lo, hi = {"quint8": (0, 255), "qint8": (-128, 127),
                  "qint32": (-2**31, 2**31 - 1)}[name]
        x = torch.randn(shape) * 2
        channels = shape[axis]
        scales = (torch.rand(channels, dtype=torch.float64) * 0.05 + 1e-3)
        zps = torch.randint(max(lo, -20), min(hi, 200), (channels,))
        # quantize_per_channel takes no negative axis; qfx does.
        q = torch.quantize_per_channel(x, scales, zps, axis % len(shape),
                                       dtype)
        case = {"dtype": name, "shape": shape, "axis": axis,
                "scales": [dstr(s) for s in scales.tolist()],
                "zero_points": zps.tolist(), "input": bits(x),
                "quantized": int_repr(q),
                "dequantized": bits(q.dequantize())}
        if name != "qint32":
            fscales = scales.to(torch.float32)
            out = torch.fake_quantize_per_channel_affine(
                x, fscales, zps.to(torch.int32),
                axis if axis >= 0 else len(shape) + axis, lo, hi)
            case["fake_quantized"] = [{"quant_min": lo, "quant_max": hi,
                                       "output": bits(out)}]
        cases.append(case)
    # per_channel_affine_float_qparams (embedding tables): float zero points.
    for name, dtype in [("quint8", torch.quint8),
                        ("quint4x2", torch.quint4x2)]:
        x = torch.randn(6, 8)
        obs = tob.PerChannelMinMaxObserver(
            ch_axis=0, dtype=dtype,
            qscheme=torch.per_channel_affine_float_qparams)
        obs(x)
        scales, zps = obs.calculate_qparams()
        q = torch.quantize_per_channel(x, scales.to(torch.float64), zps, 0,
                                       dtype)
        cases.append({"dtype": name, "shape": [6, 8], "axis": 0,
                      "scales": [dstr(s) for s in scales.tolist()],
                      "float_zero_points": bits(zps), "input": bits(x),
                      "quantized": int_repr(q),
                      "dequantized": bits(q.dequantize())})
    return cases


# ---------------------------------------------------------------------------
# Observers
# ---------------------------------------------------------------------------

def per_tensor_datasets():
    g = {}
    g["normal"] = [torch.randn(64)]
    g["uniform"] = [torch.rand(64) * 4 - 1]
    g["all_positive"] = [torch.rand(64) * 3 + 0.5]
    g["all_negative"] = [-(torch.rand(64) * 2 + 0.1)]
    g["all_zero"] = [torch.zeros(32)]
    g["repeated"] = [torch.full((24,), 0.7)]
    g["repeated_negative_int"] = [torch.full((16,), -3.0)]
    g["tiny_range"] = [1.0 + torch.randn(48) * 1e-7]
    g["tiny_around_zero"] = [torch.randn(48) * 1e-9]
    g["outliers"] = [torch.cat([torch.randn(62) * 0.1,
                                torch.tensor([1e3, -50.0])])]
    g["wide"] = [torch.randn(64) * 1e4]
    g["growing"] = [torch.randn(48) * 0.5, torch.randn(48) * 2 + 1,
                    torch.randn(48) * 8 - 3]
    g["fractional_bounds"] = [torch.rand(64) * 8.6 - 2.7,
                              torch.rand(64) * 3 - 0.4,
                              torch.rand(64) * 12.2 - 6.1]
    g["shrinking"] = [torch.randn(48) * 5, torch.randn(48) * 0.2]
    g["repeated_then_spread"] = [torch.full((16,), 1.25),
                                 torch.randn(48)]
    g["large"] = [torch.randn(2048) * 1.5 + 0.3]
    return g


def per_channel_datasets():
    g = {}
    g["conv_weight"] = ([6, 3, 3, 3], [torch.randn(6, 3, 3, 3) * 0.3])
    w = torch.randn(8, 16) * 0.2
    w[2] = 0.0
    w[5] = -w[5].abs() - 0.01
    w[6] = 0.5
    g["linear_weight"] = ([8, 16], [w])
    g["activation_growing"] = ([2, 4, 3, 3],
                               [torch.randn(2, 4, 3, 3),
                                torch.randn(2, 4, 3, 3) * 3 + 1,
                                torch.rand(2, 4, 3, 3) * 0.5])
    g["channels_last"] = ([5, 4], [torch.randn(5, 4), torch.randn(5, 4) * 4])
    g["tiny_channels"] = ([3, 5], [1.0 + torch.randn(3, 5) * 1e-7])
    return g


def dtype_variants(per_channel):
    """(dtype, qscheme, reduce_range, quant_min, quant_max) combinations."""
    schemes = (["per_channel_affine", "per_channel_symmetric",
                "per_channel_affine_float_qparams"] if per_channel
               else ["per_tensor_affine", "per_tensor_symmetric"])
    out = []
    for dtype, scheme, rr in itertools.product(DTYPES, schemes,
                                               [False, True]):
        out.append((dtype, scheme, rr, None, None))
    for dtype, qmin, qmax in [("quint8", 0, 15), ("quint8", 0, 127),
                              ("qint8", -8, 7), ("qint8", -127, 127),
                              ("quint8", 0, 254), ("qint32", -1000, 1000)]:
        for scheme, rr in itertools.product(schemes, [False, True]):
            out.append((dtype, scheme, rr, qmin, qmax))
    return out


def make_observer(cls, dtype, scheme, rr, qmin, qmax, extra):
    kwargs = dict(dtype=DTYPES[dtype], qscheme=QSCHEMES[scheme],
                  reduce_range=rr, **extra)
    if qmin is not None:
        kwargs["quant_min"] = qmin
        kwargs["quant_max"] = qmax
    return cls(**kwargs)


def run_observer(obs, batches):
    for b in batches:
        obs(b)
    scale, zp = obs.calculate_qparams()
    return scale, zp


KIND_OF = {
    tob.MinMaxObserver: "minmax",
    tob.MovingAverageMinMaxObserver: "moving_average_minmax",
    tob.PerChannelMinMaxObserver: "per_channel_minmax",
    tob.MovingAveragePerChannelMinMaxObserver:
        "moving_average_per_channel_minmax",
    tob.HistogramObserver: "histogram",
}


def observer_case(cls, variant, extra, dataset, shape, batches):
    dtype, scheme, rr, qmin, qmax = variant
    try:
        obs = make_observer(cls, dtype, scheme, rr, qmin, qmax, extra)
        scale, zp = run_observer(obs, batches)
    except Exception:  # a combination PyTorch rejects
        return None
    args = {"dtype": dtype, "qscheme": scheme, "reduce_range": rr}
    if qmin is not None:
        args["quant_min"] = qmin
        args["quant_max"] = qmax
    for k, v in extra.items():
        args[k] = dstr(v) if isinstance(v, float) else v
    case = {"observer": KIND_OF[cls], "args": args, "dataset": dataset,
            "min_vals": bits(obs.min_val), "max_vals": bits(obs.max_val),
            "scales": bits(scale)}
    if scheme == "per_channel_affine_float_qparams":
        case["float_zero_points"] = bits(zp)
    else:
        case["zero_points"] = [int(v) for v in zp.reshape(-1).tolist()]
    if cls is tob.HistogramObserver and obs.bins <= 64:
        case["histogram"] = bits(obs.histogram)
    return case


MULTI_BATCH = ("growing", "fractional_bounds", "shrinking",
               "repeated_then_spread")


def observer_cases(pt_data, pc_data):
    cases = []
    variants = dtype_variants(False)
    basic = [v for v in variants if v[3] is None]
    for dataset, batches in pt_data.items():
        vs = variants if dataset in ("normal", "outliers") else basic
        observers = [(tob.MinMaxObserver, {}),
                     (tob.MovingAverageMinMaxObserver, {})]
        if dataset in MULTI_BATCH:
            observers.append((tob.MovingAverageMinMaxObserver,
                              {"averaging_constant": 0.3}))
        if dataset.startswith("tiny") or dataset.startswith("all_zero"):
            observers.append((tob.MinMaxObserver, {"eps": 1e-3}))
        for v in vs:
            for cls, extra in observers:
                c = observer_case(cls, v, extra, dataset, None, batches)
                if c:
                    cases.append(c)
    # Histogram: the full PyTorch search is slow in python; use small grids on
    # every dataset and the default 2048 bins on a few. Histograms themselves
    # are kept for the first variants only, to keep the file small.
    for dataset, batches in pt_data.items():
        hist_variants = variants if dataset == "normal" else basic
        for i, v in enumerate(hist_variants):
            c = observer_case(tob.HistogramObserver, v,
                              {"bins": 64, "upsample_rate": 16}, dataset,
                              None, batches)
            if c:
                if i >= 2:
                    del c["histogram"]
                cases.append(c)
    for dataset in ["normal", "outliers", "growing", "fractional_bounds",
                    "large", "repeated_then_spread", "all_positive"]:
        for v in [("quint8", "per_tensor_affine", False, None, None),
                  ("qint8", "per_tensor_symmetric", False, None, None),
                  ("quint8", "per_tensor_affine", True, None, None)]:
            c = observer_case(tob.HistogramObserver, v, {}, dataset, None,
                              pt_data[dataset])
            if c:
                cases.append(c)
    for dataset in ["growing", "shrinking", "large"]:
        c = observer_case(tob.HistogramObserver,
                          ("quint8", "per_tensor_affine", False, None, None),
                          {"bins": 256, "upsample_rate": 4}, dataset, None,
                          pt_data[dataset])
        cases.append(c)
    pc_variants = dtype_variants(True)
    pc_basic = [v for v in pc_variants if v[3] is None]
    for dataset, (shape, batches) in pc_data.items():
        axes = [0, 1] if len(shape) > 1 else [0]
        if dataset == "channels_last":
            axes = [-1, 0]
        for axis in axes:
            full = dataset == "conv_weight" and axis == 0
            for cls, extra in [
                    (tob.PerChannelMinMaxObserver, {"ch_axis": axis}),
                    (tob.MovingAveragePerChannelMinMaxObserver,
                     {"ch_axis": axis, "averaging_constant": 0.25})]:
                for v in pc_variants if full else pc_basic:
                    c = observer_case(cls, v, extra, dataset, shape, batches)
                    if c:
                        cases.append(c)
    return cases


def group_by_spec(cases):
    """Groups the results of one observer spec on several datasets."""
    groups = {}
    for c in cases:
        key = json.dumps([c["observer"], c["args"]], sort_keys=True)
        group = groups.setdefault(key, {"observer": c["observer"],
                                        "args": c["args"], "results": []})
        result = {k: v for k, v in c.items()
                  if k not in ("observer", "args")}
        group["results"].append(result)
    return list(groups.values())


def cascade_sum_cases():
    cases = []
    for n in [1, 5, 7, 8, 33, 100, 1000, 2048]:
        x = torch.rand(n) * torch.tensor([1e-3, 1.0, 1e3])[
            torch.randint(0, 3, (n,))]
        cases.append({"input": bits(x), "sum": bits(x.sum().reshape(1))[0]})
    return cases


def main():
    out_path = sys.argv[1]
    pt_data = per_tensor_datasets()
    pc_data = per_channel_datasets()
    golden = {
        "torch_version": torch.__version__,
        "quantize_per_tensor": per_tensor_quantize_cases(),
        "quantize_per_channel": per_channel_quantize_cases(),
        "datasets": {k: {"batches": [bits(b) for b in v]}
                     for k, v in pt_data.items()},
        "channel_datasets": {k: {"shape": s, "batches": [bits(b) for b in v]}
                             for k, (s, v) in pc_data.items()},
        "observers": group_by_spec(observer_cases(pt_data, pc_data)),
        "cascade_sum": cascade_sum_cases(),
    }
    with open(out_path, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
