#!/usr/bin/env python3
"""Compares a model prepared by qfx-prepare and calibrated by quant-run with
what PyTorch 1.13's prepare_fx observes (utils/golden/gen_prepare_golden.py).

Each PyTorch observer instance must correspond to exactly one qfx observer
id: the same observer class and arguments (the per-channel axis is left out:
it is PyTorch's layout there, TOSA's here) and the same statistics after
calibration on the same samples (min/max per tensor or per channel, and the
histogram's sum and centroid), within --rtol. Observers that collect nothing
(fixed qparams, placeholders) must agree on their arguments and the value
they observe... by arguments only; every id must be matched.

With --observed OBSERVED.mlir (the model qfx-prepare wrote, printed with
--mlir-print-debuginfo --mlir-print-local-scope), each id must also observe
the same values as its PyTorch observer, named as PyTorch names them: the
module of a module call, the FX node of a functional call (read from the
locations), the argument's name, "<module>.weight" for a weight. The
importer's layout glue (transposes and reshapes without qfx.origin) stands
for its input; a qfx.fused region is named after its first op if that is a
module call (PyTorch's fused module), else after its last op.

Usage: check_prepare_golden.py CALIBRATED.mlir GOLDEN.json
           [--observed OBSERVED.mlir] [--rtol R]
Exits 1 and lists what does not match.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

import numpy as np

KINDS = {
    "MinMaxObserver": "minmax",
    "MovingAverageMinMaxObserver": "moving_average_minmax",
    "PerChannelMinMaxObserver": "per_channel_minmax",
    "MovingAveragePerChannelMinMaxObserver": "moving_average_per_channel_minmax",
    "HistogramObserver": "histogram",
    "PlaceholderObserver": "placeholder",
    "NoopObserver": "noop",
    "FixedQParamsObserver": "fixed_qparams",
    "ReuseInputObserver": "reuse_input",
}

OBSERVE = re.compile(
    r"qfx\.observe %\S+ id (\d+) spec\(#qfx\.observer<([^>]*)>\)"
    r"(?: stats\(#qfx\.(\w+)<(.*?)>\))? :")


def parse_list(text: str):
    return [float(v) for v in text.strip("[] ").split(",") if v.strip()]


def parse_stats(kind: str, body: str) -> dict:
    fields = dict(re.findall(r"(\w+) = (\[[^\]]*\]|[^,\]]+)", body))
    stats = {"min": parse_list(fields["min"]), "max": parse_list(fields["max"])}
    if kind == "histogram":
        counts = np.array(parse_list(fields["counts"]), dtype=np.float64)
        stats["histogram_sum"] = float(counts.sum())
        stats["histogram_centroid"] = float((counts * np.arange(len(counts))).sum() / counts.sum())
    return stats


def parse_observers(text: str) -> dict:
    """id -> {"kind", "args", "stats"} of every qfx.observe."""
    observers = {}
    for m in OBSERVE.finditer(text):
        ident = int(m.group(1))
        kind, *args = [a.strip() for a in m.group(2).split(",")]
        parsed = dict(a.split(" = ", 1) for a in args)
        stats = parse_stats(m.group(3), m.group(4)) if m.group(3) else None
        observers.setdefault(ident, {"kind": kind, "args": parsed, "stats": stats})
    return observers


LOC_ITEM = re.compile(r'"((?:[^"\\]|\\.)*)"(?:\("((?:[^"\\]|\\.)*)"\))?')
TOP_OP = re.compile(r'^    (%[\w]+) = "?([\w.]+)"?(.*)$')
TRAILING_LOC = re.compile(r'loc\((.*)\)\s*$')


def parse_loc(text: str):
    """[(module, node or None)] of a printed location (several for fused)."""
    return [(m.group(1), m.group(2)) for m in LOC_ITEM.finditer(text)]


def parse_observed(text: str) -> dict:
    """id -> set of the names of the values its qfx.observe ops observe."""
    lines = text.splitlines()
    args = {}
    defs = {}  # ssa -> (op, origin, first operand, locs)
    for i, line in enumerate(lines):
        if line.startswith("  func.func"):
            for m in re.finditer(r'(%arg\d+): [^,)]*? loc\(("[^"]*")\)', line):
                args[m.group(1)] = parse_loc(m.group(2))[0][0]
            continue
        m = TOP_OP.match(line)
        if not m:
            continue
        ssa, op, rest = m.groups()
        operand = re.search(r"%[\w]+", rest)
        origin = re.search(r'qfx\.origin = "([^"]*)"', rest)
        loc_line = line
        if op == "qfx.fused":  # the location follows the region
            j = i + 1
            while not lines[j].startswith("    }"):
                j += 1
            loc_line = lines[j]
            origin = None
        loc = TRAILING_LOC.search(loc_line)
        defs[ssa] = (op, origin.group(1) if origin else None,
                     operand.group(0) if operand else None,
                     parse_loc(loc.group(1)) if loc else [], rest)
    has_origins = any(d[1] for d in defs.values()) or "qfx.origin" in text

    def name(ssa: str) -> str:
        if ssa in args:
            return args[ssa]
        op, origin, operand, locs, _ = defs[ssa]
        if op == "qfx.observe" or (
                has_origins and origin is None and op in ("tosa.transpose", "tosa.reshape")):
            return name(operand)
        if op == "tosa.const":
            return f"{locs[0][0]}.weight" if locs else "?"
        if not locs:
            return "?"
        module, node = locs[0]
        if op == "qfx.fused" and node is not None:
            module, node = locs[-1]
        return node if node is not None else module

    observed: dict = {}
    for ssa, (op, _, operand, _, rest) in defs.items():
        if op != "qfx.observe":
            continue
        ident = int(re.search(r" id (\d+) ", rest).group(1))
        observed.setdefault(ident, set()).add(name(operand))
    return observed


def effective(kind: str, args: dict) -> dict:
    per_channel = kind.startswith("per_channel") or "per_channel" in kind
    defaults = {
        "dtype": "float32" if kind == "placeholder" else "quint8",
        "qscheme": "per_channel_affine" if per_channel else "per_tensor_affine",
        "reduce_range": "false",
    }
    return {**defaults, **args}


def spec_mismatch(golden: dict, ours: dict) -> str:
    kind = KINDS.get(golden["observer"])
    if kind != ours["kind"]:
        return f"observer {ours['kind']} is not {golden['observer']}"
    args = effective(ours["kind"], ours["args"])
    for key in ("dtype", "qscheme", "compute_dtype"):
        if key in golden and golden[key] != args.get(key):
            return f"{key} {args.get(key)} is not {golden[key]}"
    if "reduce_range" in golden and str(golden["reduce_range"]).lower() != args["reduce_range"]:
        return f"reduce_range {args['reduce_range']} is not {golden['reduce_range']}"
    for key in ("quant_min", "quant_max", "zero_point"):
        if key in args and key in golden and int(args[key]) != int(golden[key]):
            return f"{key} {args[key]} is not {golden[key]}"
    for key in ("eps", "scale"):
        if key in args and key in golden and not np.isclose(float(args[key]), golden[key], rtol=1e-6):
            return f"{key} {args[key]} is not {golden[key]}"
    return ""


def stats_mismatch(golden: dict, ours: dict, rtol: float) -> str:
    stats = ours["stats"]
    if "min" not in golden:
        return "" if stats is None else "collected statistics PyTorch's does not"
    if stats is None:
        return "collected no statistics"
    for key in ("min", "max"):
        a, b = np.array(stats[key]), np.array(golden[key])
        if a.shape != b.shape:
            return f"{len(a)} {key} values, PyTorch has {len(b)}"
        if not np.allclose(a, b, rtol=rtol, atol=rtol * max(1.0, np.abs(b).max())):
            return f"{key} {a.tolist()} is not {b.tolist()}"
    for key in ("histogram_sum", "histogram_centroid"):
        if key in golden and not np.isclose(stats.get(key, np.nan), golden[key], rtol=1e-3):
            return f"{key} {stats.get(key)} is not {golden[key]}"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("calibrated")
    parser.add_argument("golden")
    parser.add_argument("--observed", help="the prepared model, with locations")
    parser.add_argument("--rtol", type=float, default=1e-4)
    args = parser.parse_args()
    names = parse_observed(open(args.observed).read()) if args.observed else None

    ours = parse_observers(open(args.calibrated).read())
    golden = json.load(open(args.golden))
    unmatched = dict(ours)
    failures = []
    for entry in golden["observers"]:
        values = ", ".join(entry["values"])
        reasons = []
        match = None
        for ident, observer in unmatched.items():
            why = spec_mismatch(entry, observer) or stats_mismatch(entry, observer, args.rtol)
            if not why:
                match = ident
                break
            reasons.append(f"id {ident}: {why}")
        if match is None:
            failures.append(f"PyTorch's {entry['observer']} of {values}: no qfx observer matches\n    "
                            + "\n    ".join(reasons))
            continue
        if names is not None and names.get(match) != set(entry["values"]):
            failures.append(f"PyTorch's {entry['observer']} of {values} matches id {match}, "
                            f"which observes {', '.join(sorted(names.get(match, [])))}")
        print(f"{entry['observer']:>26} of {values}: id {match}")
        del unmatched[match]
    for ident, observer in unmatched.items():
        failures.append(f"qfx observer id {ident} ({observer['kind']}) has no PyTorch counterpart")
    print(f"{golden['model']} / {golden['config']}: {len(golden['observers'])} PyTorch observers, "
          f"{len(ours)} qfx observer ids, {len(failures)} mismatches")
    for failure in failures:
        print("mismatch: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
