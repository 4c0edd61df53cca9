#!/usr/bin/env python3
"""Trains the bundled example model and writes it as float TOSA with its data.

Regenerate with (from the repository root, quant-opt built in build/bin):

    /usr/bin/python3 docs/example/digits/make_digits.py

The data are the 1797 8x8 handwritten digits that ship with Debian's
python3-sklearn (sklearn.datasets.load_digits), pixel values 0..16 scaled to
0..1. A stratified split (random_state 0) holds out 360 images as the test
set; the CNN trains on the other 1437 for 30 epochs with Adam (a few seconds
on one core). The model: three conv-batchnorm-relu blocks, two 2x2 max pools,
a Linear classifier (about 15k parameters):

    [1,1,8,8] conv 1->16 3x3 bn relu          8x8
              conv 16->32 3x3 bn relu pool    4x4
              conv 32->32 3x3 bn relu pool    2x2
              flatten linear 128->10

Writes into docs/example/digits/:
  digits.mlir         the float model, batch 1 (input [1,1,8,8], logits [1,10]),
                      exported by qfx.export_tosa; what the pipeline quantizes
  digits_eval.mlir    the same model exported with batch 360 (the test set
                      size), so one quant-run call evaluates the whole test set
  digits_state.pt     the trained weights (state_dict of DigitsCNN), so that
                      utils/demo.py can quantize the same model with PyTorch
  calib.npy           float32 [200,1,1,8,8]: 200 training images, each a
                      sample of digits.mlir's input (quant-run --calibrate)
  test_inputs.npy     float32 [360,1,8,8]: the held-out images, one batch
  test_labels.npy     int64 [360]: their labels
  reference.json      PyTorch 1.13's accuracy on the test set: the float model,
                      and the int8 model of torch's prepare_fx / convert_fx
                      (get_default_qconfig_mapping("x86"), calibrated on the
                      same 200 images one at a time, run on the onednn engine)

Everything is deterministic: fixed seeds, one thread,
torch.use_deterministic_algorithms(True). The float weights are exported
exactly; rerunning on another CPU may change the last bits of training.
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO / "python"))

from qfx import export_tosa, quant_opt  # noqa: E402

SEED = 0
TEST_SIZE = 360
CALIBRATION_SAMPLES = 200
EPOCHS = 30
BATCH = 32


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(32)
        self.relu3 = nn.ReLU()
        self.pool3 = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(x)))
        x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
        x = self.pool3(self.relu3(self.bn3(self.conv3(x))))
        return self.fc(self.flatten(x))


def load_data():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    return train_test_split(
        images, labels, test_size=TEST_SIZE, random_state=SEED, stratify=labels
    )


def train(x_train: np.ndarray, y_train: np.ndarray) -> DigitsCNN:
    torch.manual_seed(SEED)
    model = DigitsCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.from_numpy(x_train)
    y = torch.from_numpy(y_train)
    generator = torch.Generator().manual_seed(SEED)
    model.train()
    for _ in range(EPOCHS):
        order = torch.randperm(len(x), generator=generator)
        for start in range(0, len(x), BATCH):
            idx = order[start : start + BATCH]
            optimizer.zero_grad()
            loss_fn(model(x[idx]), y[idx]).backward()
            optimizer.step()
    return model.eval()


def accuracy(logits: torch.Tensor, labels: np.ndarray) -> float:
    return float((logits.argmax(dim=1).numpy() == labels).mean())


def torch_int8_logits(model: nn.Module, calib: np.ndarray, x_test: np.ndarray) -> np.ndarray:
    """PyTorch 1.13's own post-training quantization of the same model: its
    int8 model's logits on `x_test`."""
    import copy

    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    torch.backends.quantized.engine = "onednn"
    example = (torch.from_numpy(calib[0]),)
    prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"), example)
    with torch.no_grad():
        for sample in calib:
            prepared(torch.from_numpy(sample))
        quantized = convert_fx(prepared)
        return quantized(torch.from_numpy(x_test)).numpy()


def torch_int8_accuracy(model: nn.Module, calib: np.ndarray, x_test, y_test) -> float:
    logits = torch_int8_logits(model, calib, x_test)
    return float((logits.argmax(axis=1) == y_test).mean())


def export(model: nn.Module, batch: int) -> str:
    text = export_tosa(model, (torch.zeros(batch, 1, 8, 8),), func_name="main")
    # The exporter's output must be valid float TOSA.
    quant_opt(text, "--tosa-attach-target=profiles=pro_fp", "--tosa-validate")
    header = (
        f"// The bundled example model (batch {batch}): a CNN trained on the 8x8 digits\n"
        "// of sklearn.datasets.load_digits, exported by qfx.export_tosa.\n"
        "// Regenerate with: /usr/bin/python3 docs/example/digits/make_digits.py\n"
    )
    return header + text


def main() -> None:
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    np.random.seed(SEED)

    x_train, x_test, y_train, y_test = load_data()
    model = train(x_train, y_train)

    rng = np.random.default_rng(SEED)
    chosen = np.sort(rng.choice(len(x_train), CALIBRATION_SAMPLES, replace=False))
    calib = np.ascontiguousarray(x_train[chosen][:, None])  # [200, 1, 1, 8, 8]

    with torch.no_grad():
        float_acc = accuracy(model(torch.from_numpy(x_test)), y_test)
    int8_acc = torch_int8_accuracy(model, calib, x_test, y_test)

    torch.save(model.state_dict(), HERE / "digits_state.pt")
    (HERE / "digits.mlir").write_text(export(model, 1))
    (HERE / "digits_eval.mlir").write_text(export(model, TEST_SIZE))
    np.save(HERE / "calib.npy", calib.astype(np.float32))
    np.save(HERE / "test_inputs.npy", np.ascontiguousarray(x_test, dtype=np.float32))
    np.save(HERE / "test_labels.npy", y_test.astype(np.int64))
    reference = {
        "torch_version": torch.__version__,
        "test_samples": int(len(y_test)),
        "float_accuracy": float_acc,
        "torch_int8_accuracy": int8_acc,
        "torch_int8_qconfig_mapping": 'get_default_qconfig_mapping("x86")',
        "torch_int8_engine": "onednn",
        "calibration_samples": CALIBRATION_SAMPLES,
    }
    (HERE / "reference.json").write_text(json.dumps(reference, indent=2) + "\n")
    print(f"float accuracy {float_acc:.4f}, PyTorch int8 accuracy {int8_acc:.4f}")


if __name__ == "__main__":
    main()
