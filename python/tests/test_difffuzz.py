"""utils/difffuzz.py: a fixed slice of generated models compares qfx with
PyTorch 1.13 as `utils/difffuzz.sh` does, each with the result it is known
to have; every reproducer a fixed finding left (difffuzz/*.json) passes.

A seed whose result changes fails: a new finding is a regression (or a
generator change, which must update the slice), and a known finding that
stops reproducing must leave KNOWN.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import pytest
import torch

REPO = pathlib.Path(__file__).resolve().parents[2]
REPRODUCERS = sorted((pathlib.Path(__file__).parent / "difffuzz").glob("*.json"))


def _load_difffuzz():
    spec = importlib.util.spec_from_file_location("qfx_difffuzz", REPO / "utils" / "difffuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


difffuzz = _load_difffuzz()

SLICE = range(40)
# Open findings in the slice: seed -> (status, why it is not fixed yet).
KNOWN = {}


@pytest.fixture(autouse=True)
def keep_engine():
    engine = torch.backends.quantized.engine
    yield
    torch.backends.quantized.engine = engine


@pytest.mark.parametrize("seed", SLICE)
def test_generated_model(seed):
    result = difffuzz.run_case(difffuzz.generate(seed))
    expected = {KNOWN[seed][0]} if seed in KNOWN else {"ok", "skip"}
    assert result["status"] in expected, (result, difffuzz.render(difffuzz.generate(seed)))


@pytest.mark.parametrize("path", REPRODUCERS, ids=[p.stem for p in REPRODUCERS])
def test_fixed_finding(path):
    spec = json.loads(path.read_text())["spec"]
    result = difffuzz.run_case(spec)
    assert result["status"] == "ok", (result, difffuzz.render(spec))


def test_cancellation_in_a_float_output_is_a_skip():
    # The mean of a layer norm over its own axis is float32 rounding noise
    # (about 1e-8): no quantized model can be compared with it (seed 130832).
    spec = {"seed": 130832, "input": [2, 7, 8], "output": None, "backend": "qnnpack",
            "engine": "qnnpack", "mode": "dynamic", "mapping": [],
            "ops": [{"kind": "linear", "in": [0], "inf": 8, "out": 32, "bias": True},
                    {"kind": "layer_norm", "in": [1], "d": 32},
                    {"kind": "transpose", "in": [2]}, {"kind": "mean", "in": [3]}]}
    result = difffuzz.run_case(spec)
    assert result["status"] == "skip" and "cancellation" in result["why"], result


def test_generated_models_are_valid_and_shrinkable():
    # Every generated spec has consistent shapes and renders; removing any
    # op leaves a valid spec or none; pruning keeps only what the output uses.
    for seed in range(200):
        spec = difffuzz.generate(seed)
        assert difffuzz.infer(spec) is not None, seed
        compile(difffuzz.render(spec), "<model>", "exec")
        assert difffuzz.prune(spec)["ops"] == spec["ops"], seed
        for n in range(1, len(spec["ops"]) + 1):
            smaller = difffuzz.without(spec, n)
            assert smaller is None or (difffuzz.infer(smaller) is not None
                                       and len(smaller["ops"]) < len(spec["ops"])), (seed, n)


def test_a_crash_is_a_finding(tmp_path, monkeypatch):
    # The runner reads which seed a dead child was in.
    monkeypatch.setattr(difffuzz, "__file__", str(tmp_path / "dies.py"))
    (tmp_path / "dies.py").write_text("import os, sys\nprint('start 7', flush=True)\nos.abort()\n")
    results, dead, _ = difffuzz.run_in_child([], timeout=60)
    assert results == [] and dead == 7


def _differing_from(monkeypatch, first_cut, modules):
    """Makes qfx's outputs differ from PyTorch's on every cut of `first_cut`
    ops or more, PyTorch's converted model a module with `modules`."""
    import torch.nn as nn

    cut_length = []

    def torch_quantized(spec, model, calibration, tests):
        cut_length.append(len(spec["ops"]))
        return None, nn.ModuleDict(modules), 0, [torch.zeros(1) for _ in tests]

    def qfx_outputs(prepared, example, tests):
        return None, [torch.full((1,), float(cut_length[-1] >= first_cut)) for _ in tests]

    monkeypatch.setattr(difffuzz, "torch_quantized", torch_quantized)
    monkeypatch.setattr(difffuzz, "qfx_outputs", qfx_outputs)


DYNAMIC_MATMUL = {"seed": 162871, "input": [2, 8, 16], "output": None, "backend": "x86",
                  "engine": "onednn", "mode": "dynamic", "mapping": [],
                  "ops": [{"kind": "transpose", "in": [0]}, {"kind": "matmul", "in": [1, 1]},
                          {"kind": "act", "in": [2], "module": "nn.Tanh()"},
                          {"kind": "linear", "in": [3], "inf": 16, "out": 4, "bias": True}]}


def test_a_difference_first_seen_at_a_float_matmul_is_documented(monkeypatch):
    # The ops after a documented difference (a float matmul in another
    # order than PyTorch's BLAS) amplify it: the case is a skip, not a
    # finding (difffuzz 162871: a dynamic Linear quantized the matmul's
    # ulps a step apart; 162789: a float layer norm after it).
    _differing_from(monkeypatch, 2, {})
    assert "op 2's output (matmul)" in difffuzz.first_difference(DYNAMIC_MATMUL)
    _differing_from(monkeypatch, 1, {})  # first at the transpose: not documented
    assert difffuzz.first_difference(DYNAMIC_MATMUL) is None
    _differing_from(monkeypatch, 4, {"m4": torch.nn.Linear(16, 4)})  # a float Linear
    assert "op 4's output (linear)" in difffuzz.first_difference(DYNAMIC_MATMUL)
    _differing_from(monkeypatch, 4, {"m4": torch.nn.Identity()})  # not a float Linear
    assert difffuzz.first_difference(DYNAMIC_MATMUL) is None
    _differing_from(monkeypatch, 9, {})  # no cut differs
    assert difffuzz.first_difference(DYNAMIC_MATMUL) is None


def test_a_located_skip_is_counted_and_logged(monkeypatch, capsys, tmp_path):
    import argparse

    results = [{"seed": 5, "status": "skip", "located": True, "why": "the first difference is op 2"},
               {"seed": 6, "status": "ok"}]
    monkeypatch.setattr(difffuzz, "run_in_child", lambda args, timeout: (results, None, ""))
    args = argparse.Namespace(seed=5, count=2, seconds=0, no_shrink=True, shrink_seconds=0,
                              out=str(tmp_path))
    assert difffuzz.run(args) == 0
    out = capsys.readouterr().out
    assert "seed 5: located: the first difference is op 2" in out
    assert "2 cases, 0 findings (located 1, ok 1)" in out
