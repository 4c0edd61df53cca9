"""The Fashion-MNIST loader and models of docs/example/fashion (shared by its
training script, utils/bench/accuracy.py and the demo).
Needs torch and Debian's dataset-fashion-mnist (utils/setup.sh installs both).
"""

from __future__ import annotations

import gzip
import json
import pathlib
import sys

import numpy as np
import pytest
REPO = pathlib.Path(__file__).resolve().parents[2]
FASHION = REPO / "docs" / "example" / "fashion"
sys.path.insert(0, str(FASHION))
import fashion  # noqa: E402


def write_idx(path: pathlib.Path, array: np.ndarray, magic: bytes = None) -> None:
    header = magic if magic is not None else bytes([0, 0, 8, array.ndim])
    header += b"".join(d.to_bytes(4, "big") for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def test_read_idx_round_trip(tmp_path):
    data = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    write_idx(tmp_path / "x.gz", data)
    assert np.array_equal(fashion.read_idx(tmp_path / "x.gz"), data)


def test_read_idx_rejects_bad_files(tmp_path):
    data = np.zeros((2, 3), np.uint8)
    write_idx(tmp_path / "int.gz", data, magic=bytes([0, 0, 0x0C, 2]))
    with pytest.raises(ValueError, match="not an IDX file of unsigned bytes"):
        fashion.read_idx(tmp_path / "int.gz")
    with gzip.open(tmp_path / "short.gz", "wb") as f:
        f.write(bytes([0, 0, 8, 2]) + (2).to_bytes(4, "big") + (3).to_bytes(4, "big") + b"\0")
    with pytest.raises(ValueError, match=r"IDX shape \[2, 3\] needs 6 bytes of data, the file "
                       "has 1"):
        fashion.read_idx(tmp_path / "short.gz")
    with gzip.open(tmp_path / "empty.gz", "wb") as f:
        f.write(b"")
    with pytest.raises(ValueError, match="an empty file"):
        fashion.read_idx(tmp_path / "empty.gz")


def test_load_without_the_data_set_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("QFX_FASHION_MNIST", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="install Debian's dataset-fashion-mnist"):
        fashion.load("test")
    with pytest.raises(ValueError, match="split must be 'train' or 'test'"):
        fashion.load("validation")


def test_load_reads_the_installed_data_set():
    x, y = fashion.load("test")
    assert x.shape == (10000, 1, 28, 28) and x.dtype == np.float32
    assert y.shape == (10000,) and y.dtype == np.int64
    assert np.array_equal(np.bincount(y), [1000] * 10)  # the test set is balanced
    # Normalized with the training set's statistics.
    x_train, _ = fashion.load("train")
    assert x_train.shape == (60000, 1, 28, 28)
    assert abs(float(x_train.mean())) < 1e-3 and abs(float(x_train.std()) - 1) < 1e-3


@pytest.mark.parametrize("name", list(fashion.MODELS))
def test_committed_weights_give_the_recorded_float_accuracy(name):
    # float.json is what train.py measured after training; the committed
    # weights must still give it, and stay small.
    assert fashion.weights_path(name).stat().st_size < 1_000_000
    import train

    accuracy = train.accuracy(fashion.load_model(name), *fashion.load("test"))
    assert round(accuracy, 2) == json.loads((FASHION / "float.json").read_text())[name]


def test_load_model_errors():
    with pytest.raises(ValueError, match="unknown model 'alexnet'; expected one of resnet"):
        fashion.load_model("alexnet")
