#!/usr/bin/env python3
"""Helpers of utils/demo.sh (a Fashion-MNIST model, docs/example/fashion) and
of the digits example's tests; NumPy, and torch and qfx for the fashion-*
commands.

    demo.py fashion-data OUT [--model resnet] [--images N] [--calibrate N] [--batch B]
        Exports the model's committed weights (docs/example/fashion/NAME.pt)
        to float TOSA with qfx.export_tosa: OUT/float.mlir (batch 1) and
        OUT/float-batch.mlir (batch B); writes OUT/calib.npy (the first
        --calibrate images of a fixed shuffle of the training set, one
        sample each), OUT/test_inputs.npy and OUT/test_labels.npy (the
        first N of the 10,000 test images, N a multiple of B) and
        OUT/model.txt (the model's name).
    demo.py evaluate OUT
        Runs OUT/float-batch.mlir, reference-batch.mlir and int8-batch.mlir
        (compiled in this process as quant-run compiles them) on the test
        images, B at a time, and writes their logits to OUT/float-logits.npy,
        reference-logits.npy and int8-logits.npy.
    demo.py peers OUT [--runs R] [--rounds K]
        PyTorch 1.13's int8 model of the same float model (prepare_fx /
        convert_fx, default x86 QConfigMapping, onednn engine, calibrated on
        OUT/calib.npy one image at a time): its accuracy on OUT's test
        images and its agreement with qfx's (OUT/int8-logits.npy), the
        three models' sizes, then latency per image (batch 1) and per batch
        (batch B) of qfx's int8 program (OUT/int8.mlir, OUT/int8-batch.mlir,
        compiled in this process as quant-run compiles them), PyTorch's int8
        model and PyTorch's float model (TorchScript, frozen, oneDNN), timed
        in K interleaved rounds of R calls each (medians).

    demo.py apply-stats CALIBRATED OBSERVED -o OUT
        Copies the statistics that `quant-run --calibrate` wrote into the
        qfx.observe ops of CALIBRATED into the same observers of OBSERVED (a
        model prepared the same way, e.g. another batch size of the same
        model). Observers are matched in order and must have the same ids and
        specs; anything else is an error.
    demo.py accuracy LOGITS.npy LABELS.npy
        Prints the top-1 accuracy in percent.
    demo.py size FLOAT.mlir QUANTIZED.mlir
        Prints the bytes of constants the two models use (dead constants
        excluded), by element type: float32 in the float model; in the
        quantized model, int8 weights plus int32 biases and requantization
        multipliers (int8.mlir), or the float32 constants and per-channel
        scales that remain (reference.mlir).
    demo.py torch-int8 DIGITS_DIR [--qfx-logits LOGITS.npy]
        Prints PyTorch 1.13's int8 accuracy on the test set, computed now
        (prepare_fx / convert_fx on the committed weights), or read from
        DIGITS_DIR/reference.json when torch is not installed; given qfx's
        logits, also (on a second line) how many predictions and logits
        agree with PyTorch's.
    demo.py bench-summary DIR
        Reads the `quant-run --bench` outputs DIR/bench-MODEL-ROUND.txt of
        the models float, fused, reference and int8 and prints each model's
        latency (the lowest of its rounds' medians: noise only adds time)
        and the ratios of the int8 and the reference model's to the float
        model's.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pathlib
import re
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
FASHION = ROOT / "docs" / "example" / "fashion"
_OBSERVE = re.compile(r"qfx\.observe\s+%[\w.$#-]+\s+id\s+(\d+)\s+spec\(")


def _closing_paren(text: str, start: int) -> int:
    """The index of the ')' closing the '(' just before `start`."""
    depth = 1
    for i in range(start, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced parentheses after offset %d" % start)


def _observers(text: str) -> list[dict]:
    """Every qfx.observe of `text`: its id, spec and stats and their spans."""
    found = []
    for match in _OBSERVE.finditer(text):
        spec_end = _closing_paren(text, match.end())
        entry = {
            "id": int(match.group(1)),
            "spec": text[match.end() : spec_end],
            "spec_end": spec_end + 1,  # just after the spec's ')'
            "stats": None,
            "stats_span": None,
        }
        rest = text[spec_end + 1 :]
        stripped = rest.lstrip(" ")
        if stripped.startswith("stats("):
            open_at = spec_end + 1 + (len(rest) - len(stripped)) + len("stats(")
            close_at = _closing_paren(text, open_at)
            entry["stats"] = text[open_at:close_at]
            entry["stats_span"] = (spec_end + 1, close_at + 1)
        found.append(entry)
    return found


def apply_stats(calibrated: str, observed: str) -> str:
    """Returns `observed` with the statistics of `calibrated`'s observers."""
    source = _observers(calibrated)
    target = _observers(observed)
    if not source:
        raise ValueError("the calibrated model has no qfx.observe ops")
    if len(source) != len(target):
        raise ValueError(
            f"the calibrated model has {len(source)} observers, the observed model {len(target)}"
        )
    for index, (s, t) in enumerate(zip(source, target)):
        if s["id"] != t["id"] or s["spec"] != t["spec"]:
            raise ValueError(
                f"observer {index} differs: id {s['id']} spec({s['spec']}) in the calibrated "
                f"model, id {t['id']} spec({t['spec']}) in the observed model"
            )
    pieces = []
    position = 0
    for s, t in zip(source, target):
        if t["stats_span"]:
            begin, end = t["stats_span"]
        else:
            begin = end = t["spec_end"]
        pieces.append(observed[position:begin])
        if s["stats"] is not None:
            pieces.append(f" stats({s['stats']})")
        position = end
    pieces.append(observed[position:])
    return "".join(pieces)


def accuracy(logits: np.ndarray, labels: np.ndarray) -> float:
    logits = logits.reshape(len(labels), -1)
    return float((logits.argmax(axis=1) == labels).mean()) * 100.0


_DTYPE_BYTES = {"f32": 4, "f16": 2, "i8": 1, "ui8": 1, "i32": 4, "i64": 8}
_CONST = re.compile(r"^\s*(%[\w.$#-]+) = \"tosa\.const\"\(\).*-> tensor<([0-9x]*)x?(\w+)>")


def constant_bytes(text: str) -> dict[str, int]:
    """Bytes of the tosa.const tensors that have a use and of contraction
    epilogues, by element type, and of per-channel scales of !quant.uniform
    types (float32 each)."""
    lines = text.splitlines()
    sizes: dict[str, int] = {}
    for line in lines:
        match = _CONST.match(line)
        if not match:
            continue
        name, dims, dtype = match.groups()
        uses = len(re.findall(re.escape(name) + r"(?![\w.$#-])", text)) - 1
        if uses == 0:
            continue
        count = 1
        for d in filter(None, dims.split("x")):
            count *= int(d)
        sizes[dtype] = sizes.get(dtype, 0) + count * _DTYPE_BYTES.get(dtype, 4)
    # A contraction's epilogue carries its bias and requantization constants
    # as attributes: float32 each (#qfx.requantize), or int32 bias and
    # multipliers and int8 shifts (#qfx.rescale).
    epilogue_types = {
        "requantize": {"bias": "f32", "multipliers": "f32"},
        "rescale": {"bias": "i32", "multipliers": "i32", "shifts": "i8"},
    }
    for match in re.finditer(r"#qfx\.(requantize|rescale)<([^>]*)>", text):
        for field, dtype in epilogue_types[match.group(1)].items():
            values = re.search(rf"\b{field} = \[([^\]]*)\]", match.group(2))
            if values and values.group(1).strip():
                count = len(values.group(1).split(","))
                sizes[dtype] = sizes.get(dtype, 0) + count * _DTYPE_BYTES[dtype]
    # A per-axis type prints its scales once per use; count each scast once.
    scales = 0
    for match in re.finditer(r"quant\.scast [^\n]*?!quant\.uniform<[^{}>]*\{([^}]*)\}", text):
        scales += len(match.group(1).split(","))
    if scales:
        sizes["per-channel scales"] = scales * 4
    return sizes


def torch_int8(digits: pathlib.Path, qfx_logits: np.ndarray | None) -> str:
    """PyTorch 1.13's int8 accuracy on the test set and, given qfx's logits,
    how far qfx's quantized model is from PyTorch's."""
    try:
        import torch
    except ImportError:
        reference = json.loads((digits / "reference.json").read_text())
        return (
            f"{reference['torch_int8_accuracy'] * 100:.2f} %  "
            "(torch is not installed: as recorded in reference.json)"
        )
    import warnings

    # torch 1.13's observers warn that reduce_range will be deprecated.
    warnings.filterwarnings("ignore", message=".*reduce_range will be deprecated.*")
    sys.path.insert(0, str(digits))
    import make_digits  # noqa: E402

    model = make_digits.DigitsCNN()
    model.load_state_dict(torch.load(digits / "digits_state.pt"))
    model.eval()
    calib = np.load(digits / "calib.npy")
    x_test = np.load(digits / "test_inputs.npy")
    y_test = np.load(digits / "test_labels.npy")
    logits = make_digits.torch_int8_logits(model, calib, x_test)
    text = f"{accuracy(logits, y_test):.2f} %"
    if qfx_logits is not None:
        agree = int((logits.argmax(axis=1) == qfx_logits.argmax(axis=1)).sum())
        differ = int((np.abs(logits - qfx_logits) > 1e-5).sum())
        text += (
            f"\nqfx vs PyTorch int8: predictions agree on {agree} of {len(y_test)} images; "
            f"{differ} of {logits.size} logits differ, by at most "
            f"{np.abs(logits - qfx_logits).max():.3g}"
        )
    return text


def bench_summary(directory: pathlib.Path) -> str:
    latency = {}
    for model in ("float", "fused", "reference", "int8"):
        medians = []
        for path in sorted(directory.glob(f"bench-{model}-*.txt")):
            match = re.search(r"median ([0-9.]+) ms", path.read_text())
            if not match:
                raise ValueError(f"{path}: no 'median ... ms' in quant-run --bench output")
            medians.append(float(match.group(1)))
        if not medians:
            raise ValueError(f"{directory}: no bench-{model}-*.txt")
        latency[model] = min(medians)
    f, u, r, i = latency["float"], latency["fused"], latency["reference"], latency["int8"]
    return (
        f"float {f:.4f} ms, float after fusion {u:.4f} ms, reference {r:.4f} ms, "
        f"int8 {i:.4f} ms; int8/float = {i / f:.3g}x, reference/float = {r / f:.3g}x "
        "(quant-run JIT, default --codegen=host)"
    )


def _fashion():
    sys.path.insert(0, str(FASHION))
    sys.path.insert(0, str(ROOT / "python"))
    import fashion

    return fashion


def fashion_data(out: pathlib.Path, model_name: str, images: int, calibrate: int,
                 batch: int) -> None:
    """The `fashion-data` command (see the module's docstring)."""
    import torch

    import qfx

    fashion = _fashion()
    if not 0 < images <= 10000 or images % batch:
        raise ValueError(f"--images must be in 1..10000 and a multiple of --batch ({batch}), "
                         f"got {images}")
    if not 0 < calibrate <= 60000:
        raise ValueError(f"--calibrate must be in 1..60000, got {calibrate}")
    model = fashion.load_model(model_name)
    x_train, _ = fashion.load("train")
    order = np.random.default_rng(0).permutation(len(x_train))[:calibrate]
    np.save(out / "calib.npy", np.ascontiguousarray(x_train[order][:, None]))
    x_test, y_test = fashion.load("test")
    np.save(out / "test_inputs.npy", x_test[:images])
    np.save(out / "test_labels.npy", y_test[:images])
    for name, size in (("float", 1), ("float-batch", batch)):
        text = qfx.export_tosa(model, (torch.zeros(size, 1, 28, 28),), func_name="main")
        (out / f"{name}.mlir").write_text(text)
    (out / "model.txt").write_text(model_name + "\n")


def _batch_size(out: pathlib.Path) -> int:
    match = re.search(r"tensor<(\d+)x1x28x28xf32>", (out / "float-batch.mlir").read_text())
    if not match:
        raise ValueError(f"{out / 'float-batch.mlir'}: no input of type tensor<Bx1x28x28xf32>")
    return int(match.group(1))


def evaluate(out: pathlib.Path) -> None:
    """The `evaluate` command (see the module's docstring)."""
    sys.path.insert(0, str(ROOT / "python"))
    from qfx import _capi

    batch = _batch_size(out)
    x_test = np.load(out / "test_inputs.npy")
    for stage in ("float", "reference", "int8"):
        program = _capi.Model((out / f"{stage}-batch.mlir").read_text(), f"{stage}-batch.mlir",
                              entry="main")
        logits = [program([np.ascontiguousarray(x_test[i:i + batch])])[0]
                  for i in range(0, len(x_test), batch)]
        np.save(out / f"{stage}-logits.npy", np.concatenate(logits))


def _median_rounds(runs: dict, rounds: int, calls: int) -> dict:
    """{name: median over `rounds` of each round's median of `calls` timed
    calls} in ms, the runs interleaved round by round (after a warm-up)."""
    for run in runs.values():
        for _ in range(3):
            run()
    samples: dict = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            times = []
            for _ in range(calls):
                start = time.perf_counter()
                run()
                times.append((time.perf_counter() - start) * 1e3)
            samples[name].append(statistics.median(times))
    return {name: statistics.median(values) for name, values in samples.items()}


def peers(out: pathlib.Path, runs: int, rounds: int) -> str:
    """The `peers` command (see the module's docstring)."""
    import warnings

    import torch
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    from qfx import _capi

    warnings.filterwarnings("ignore", message=".*reduce_range will be deprecated.*")
    fashion = _fashion()
    model = fashion.load_model((out / "model.txt").read_text().strip())
    torch.backends.quantized.engine = "onednn"
    torch.set_num_threads(os.cpu_count() or 1)
    calib = torch.from_numpy(np.load(out / "calib.npy"))
    x_test = torch.from_numpy(np.load(out / "test_inputs.npy"))
    y_test = np.load(out / "test_labels.npy")
    prepared = prepare_fx(model, get_default_qconfig_mapping("x86"), (calib[0],))
    with torch.no_grad():
        for x in calib:
            prepared(x)
        torch_int8 = convert_fx(prepared)
        logits = torch.cat([torch_int8(x_test[i:i + 500]) for i in range(0, len(x_test), 500)])
    logits = logits.numpy()
    qfx_logits = np.load(out / "int8-logits.npy").reshape(logits.shape)
    agree = int((logits.argmax(axis=1) == qfx_logits.argmax(axis=1)).sum())
    lines = [f"{accuracy(logits, y_test):.2f} %",
             f"qfx vs PyTorch int8: predictions agree on {agree} of {len(y_test)} images "
             f"({agree / len(y_test) * 100:.2f} %)"]

    def state_kb(module: torch.nn.Module) -> float:
        buffer = io.BytesIO()
        torch.save(module.state_dict(), buffer)
        return buffer.getbuffer().nbytes / 1024

    lines.append(f"PyTorch state_dict: float {state_kb(model):.1f} KB, int8 "
                 f"{state_kb(torch_int8):.1f} KB")

    batch = _batch_size(out)
    latency = {}
    for label, size, stage in (("per image (batch 1)", 1, "int8"),
                               (f"per batch of {batch}", batch, "int8-batch")):
        x = x_test[:size].contiguous()
        program = _capi.Model((out / f"{stage}.mlir").read_text(), f"{stage}.mlir", entry="main")
        x_np = x.numpy()
        with torch.no_grad():
            frozen = torch.jit.optimize_for_inference(
                torch.jit.freeze(torch.jit.trace(model, (x,), check_trace=False)))
            times = _median_rounds({"qfx int8": lambda: program([x_np]),
                                    "PyTorch int8": lambda: torch_int8(x),
                                    "PyTorch float": lambda: frozen(x)}, rounds, runs)
        latency[label] = times
    for label, times in latency.items():
        mine = times["qfx int8"]
        parts = ", ".join(f"{name} {ms:.3f} ms ({ms / mine:.2f}x qfx's)"
                          for name, ms in times.items() if name != "qfx int8")
        lines.append(f"latency {label}: qfx int8 {mine:.3f} ms; {parts}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("apply-stats")
    p.add_argument("calibrated")
    p.add_argument("observed")
    p.add_argument("-o", dest="output", required=True)
    p = sub.add_parser("accuracy")
    p.add_argument("logits")
    p.add_argument("labels")
    p = sub.add_parser("size")
    p.add_argument("float_model")
    p.add_argument("quantized_model")
    p = sub.add_parser("torch-int8")
    p.add_argument("digits")
    p.add_argument("--qfx-logits")
    p = sub.add_parser("bench-summary")
    p.add_argument("dir")
    p = sub.add_parser("fashion-data")
    p.add_argument("out")
    p.add_argument("--model", default="resnet")
    p.add_argument("--images", type=int, default=10000)
    p.add_argument("--calibrate", type=int, default=500)
    p.add_argument("--batch", type=int, default=100)
    p = sub.add_parser("evaluate")
    p.add_argument("out")
    p = sub.add_parser("peers")
    p.add_argument("out")
    p.add_argument("-o", dest="output", required=True, help="also write the lines here")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    if args.command == "apply-stats":
        text = apply_stats(
            pathlib.Path(args.calibrated).read_text(), pathlib.Path(args.observed).read_text()
        )
        pathlib.Path(args.output).write_text(text)
    elif args.command == "accuracy":
        print(f"{accuracy(np.load(args.logits), np.load(args.labels)):.2f}")
    elif args.command == "size":
        f = constant_bytes(pathlib.Path(args.float_model).read_text())
        r = constant_bytes(pathlib.Path(args.quantized_model).read_text())
        f_total, r_total = sum(f.values()), sum(r.values())
        parts = ", ".join(f"{k} {v / 1024:.1f} KB" for k, v in sorted(r.items()))
        print(
            f"float {f_total / 1024:.1f} KB; quantized {r_total / 1024:.1f} KB ({parts}); "
            f"{f_total / r_total:.2f}x smaller"
        )
    elif args.command == "torch-int8":
        qfx_logits = np.load(args.qfx_logits) if args.qfx_logits else None
        print(torch_int8(pathlib.Path(args.digits), qfx_logits))
    elif args.command == "bench-summary":
        print(bench_summary(pathlib.Path(args.dir)))
    elif args.command == "fashion-data":
        fashion_data(pathlib.Path(args.out), args.model, args.images, args.calibrate, args.batch)
    elif args.command == "evaluate":
        evaluate(pathlib.Path(args.out))
    elif args.command == "peers":
        text = peers(pathlib.Path(args.out), args.runs, args.rounds)
        pathlib.Path(args.output).write_text(text + "\n")
        print(text)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ValueError, OSError) as error:
        print(f"demo.py: error: {error}", file=sys.stderr)
        sys.exit(1)
