"""What utils/bench/gemm_vs_peers.py and conv_vs_peers.py share: the case
generator of the codegen tests, building the C++ bench programs, timing qfx
(quant-run --bench), oneDNN (a bench program) and PyTorch (a quantized op),
the interleaved rounds and their medians, and the table; for the model
benchmarks also how far qfx's outputs are from PyTorch's, in its steps.

Not a script: the two benchmarks import it from their own directory.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time
from typing import Callable, Hashable, Iterable, Sequence

REPO = pathlib.Path(__file__).resolve().parents[2]
BENCH = REPO / "utils" / "bench"
QUANT_RUN = REPO / "build" / "bin" / "quant-run"
PEERS = ("qfx", "onednn", "torch")

# What a "speed vs PEER" column holds, for the footnotes.
SPEED_NOTE = "speed vs PEER: PEER's time / qfx's time (above 1: qfx is faster)."


def parser(doc: str) -> argparse.ArgumentParser:
    """The command line both benchmarks share: --rounds, --runs, --threads,
    --requantization (each script adds its own --shapes)."""
    result = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    result.add_argument("--rounds", type=int, default=3)
    result.add_argument("--runs", type=int, default=20)
    result.add_argument("--threads", default="1,2")
    result.add_argument("--requantization", choices=("float", "integer"), default="float",
                        help="qfx's epilogue: float (PyTorch's engines' float32 "
                             "requantization, what qfx-lower writes for x86; default) or "
                             "integer (tosa.rescale, qfx-lower's requantization=integer)")
    return result


def epilogue(cases, requantization: str):
    """matmul-cases.py's epilogue writer for --requantization."""
    return cases.float_epilogue if requantization == "float" else cases.epilogue


def thread_counts(spec: str) -> list:
    """--threads "1,2" -> [1, 2]."""
    return [int(t) for t in spec.split(",")]


def quant_run_missing() -> bool:
    """True (after saying so on stderr) when quant-run has not been built."""
    if QUANT_RUN.exists():
        return False
    print(f"{QUANT_RUN} is missing: run ./utils/setup.sh first", file=sys.stderr)
    return True


def load_case_writer():
    """The generator of int8 TOSA matmul and conv chains the codegen tests use
    (test/Codegen/Inputs/matmul-cases.py)."""
    path = REPO / "test" / "Codegen" / "Inputs" / "matmul-cases.py"
    spec = importlib.util.spec_from_file_location("matmul_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(source: str, output: pathlib.Path, *flags: str) -> None:
    """Compiles utils/bench/SOURCE to OUTPUT with clang++-22 -O2."""
    subprocess.run(["clang++-22", "-O2", "-std=c++17", str(BENCH / source), "-o", str(output),
                    *flags], check=True)


def thread_env(threads: int, **extra: str) -> dict:
    """The environment with OMP_NUM_THREADS=THREADS (and EXTRA) set."""
    return dict(os.environ, OMP_NUM_THREADS=str(threads), **extra)


def time_qfx(model: pathlib.Path, data: pathlib.Path, runs: int, threads: int,
             codegen: str = "host") -> float:
    """quant-run's median over RUNS runs of MODEL on DATA with qfx-codegen
    (--codegen=CODEGEN), in ms."""
    out = subprocess.run([str(QUANT_RUN), str(model), f"--input={data}", f"--codegen={codegen}",
                          f"--bench={runs}"], check=True, capture_output=True, text=True,
                         env=thread_env(threads)).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def run_onednn(binary: pathlib.Path, args: Iterable, runs: int, threads: int,
               isa: str = "AVX512_CORE_VNNI") -> subprocess.CompletedProcess:
    """Runs a oneDNN bench program as BINARY ARGS... RUNS, limited to ISA
    (ONEDNN_MAX_CPU_ISA; empty: oneDNN's choice, AMX where there is one); its
    stdout is the median in ms."""
    extra = {"ONEDNN_MAX_CPU_ISA": isa} if isa else {}
    return subprocess.run([str(binary), *map(str, args), str(runs)], check=True,
                          capture_output=True, text=True, env=thread_env(threads, **extra))


def torch_onednn(threads: int):
    """torch, with the onednn quantized engine and THREADS threads."""
    import torch
    torch.backends.quantized.engine = "onednn"
    torch.set_num_threads(threads)
    return torch


def qfx_int8(model, example, calibration) -> tuple:
    """qfx's prepared and int8 models of `model` (x86 default mapping):
    prepare_fx on `example`, a call per calibration sample, convert_fx with
    its float-op warnings silenced."""
    import warnings

    import qfx
    prepared = qfx.prepare_fx(model, "default:x86", (example,), outputs=None)
    for sample in calibration:
        prepared(sample)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return prepared, qfx.convert_fx(prepared)


def median_ms(op: Callable[[], object], runs: int, warmup: int = 3) -> float:
    """The median over RUNS timed calls of OP, after WARMUP untimed ones, in ms."""
    for _ in range(warmup):
        op()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        op()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def interleaved_rounds(rounds: int, shapes: Sequence[Hashable], threads: Sequence[int],
                       timers: dict) -> dict:
    """Times every shape, thread count and peer once per round, peers
    interleaved (the machine is shared and noisy). TIMERS maps a peer to
    timer(shape, threads) -> ms, in the order they run. Returns
    {(shape, peer, threads): [ms per round]}."""
    samples = {}
    for _ in range(rounds):
        for shape in shapes:
            for t in threads:
                for peer, timer in timers.items():
                    samples.setdefault((shape, peer, t), []).append(timer(shape, t))
    return samples


def model_medians(models: dict, inputs: tuple, rounds: int, runs: int) -> dict:
    """Whole models on the same inputs, interleaved: {name: the median of
    each round's median_ms of models[name](*inputs)}, under torch.no_grad."""
    import torch
    with torch.no_grad():
        samples = interleaved_rounds(
            rounds, [None], [0],
            {name: (lambda _s, _t, f=f: median_ms(lambda: f(*inputs), runs))
             for name, f in models.items()})
    return {name: statistics.median(samples[(None, name, 0)]) for name in models}


def medians(samples: dict, shape: Hashable, t: int, peers: Sequence[str] = PEERS) -> list:
    """The median of each of PEERS' samples for SHAPE on T threads."""
    return [statistics.median(samples[(shape, peer, t)]) for peer in peers]


def output_steps(ours, theirs):
    """|ours - theirs| in PyTorch's output steps, and the step: the smallest
    gap between distinct values of `theirs` (PyTorch's int8 model's
    dequantized output), 1 if it has one value."""
    values = theirs.flatten().unique()
    step = (values[1:] - values[:-1]).min().item() if values.numel() > 1 else 1.0
    return (ours - theirs).abs() / step, step


def print_table(columns: Sequence[tuple], rows: Iterable[Sequence]) -> None:
    """COLUMNS are (title, width, format spec); each row's cells are formatted
    by their column's spec and right-aligned to its width, columns separated
    by one space."""
    print(" ".join(f"{title:>{width}}" for title, width, _ in columns))
    for row in rows:
        print(" ".join(f"{format(cell, spec):>{width}}"
                       for (_, width, spec), cell in zip(columns, row)))
