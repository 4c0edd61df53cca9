#!/usr/bin/python3
# ===- train.py - trains the Fashion-MNIST benchmark models ---------------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
"""Trains the models of fashion.py on Fashion-MNIST's 60,000 training images
and writes their weights beside this file (NAME.pt, a state_dict) and their
float accuracy on the 10,000 test images (float.json).

    nice -n 10 /usr/bin/python3 docs/example/fashion/train.py [--models resnet,vit]

Adam with a one-cycle learning-rate schedule, batch 128, no augmentation;
each model has its own epoch count (EPOCHS). Fixed seeds and
torch.use_deterministic_algorithms: the same machine and PyTorch give the
same weights; another CPU may change the last bits of training.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import fashion  # noqa: E402

EPOCHS = {"resnet": 3, "mobilenet": 4, "vit": 6, "lstm": 4}
LEARNING_RATE = {"resnet": 3e-3, "mobilenet": 3e-3, "vit": 2e-3, "lstm": 3e-3}
BATCH = 128


def accuracy(model: torch.nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    """Top-1 in percent, batches of 1000; convolutional models run channels-
    last (PyTorch's contiguous depthwise convolutions take minutes here)."""
    model.eval()
    layout = (torch.channels_last if any(isinstance(m, torch.nn.Conv2d) for m in model.modules())
              else torch.contiguous_format)
    model = model.to(memory_format=layout)
    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(x[i:i + 1000]).contiguous(memory_format=layout))
                            for i in range(0, len(x), 1000)])
    return float((logits.argmax(1).numpy() == y).mean() * 100)


def train(name: str, x: np.ndarray, y: np.ndarray) -> torch.nn.Module:
    torch.manual_seed(0)
    model = fashion.MODELS[name]()
    # Channels-last halves the time of PyTorch's CPU convolutions in training
    # (depthwise ones most); the weights are the same tensors either way.
    convolutional = any(isinstance(m, torch.nn.Conv2d) for m in model.modules())
    if convolutional:
        model = model.to(memory_format=torch.channels_last)
    epochs = EPOCHS[name]
    steps = epochs * ((len(x) + BATCH - 1) // BATCH)
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE[name])
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, LEARNING_RATE[name],
                                                   total_steps=steps)
    generator = torch.Generator().manual_seed(1)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        start = time.monotonic()
        order = torch.randperm(len(x), generator=generator).numpy()
        total = 0.0
        for i in range(0, len(x), BATCH):
            batch = order[i:i + BATCH]
            images = torch.from_numpy(x[batch])
            if convolutional:
                images = images.contiguous(memory_format=torch.channels_last)
            loss = loss_fn(model(images), torch.from_numpy(y[batch]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += float(loss) * len(batch)
        print(f"{name} epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f}, "
              f"{time.monotonic() - start:.0f} s", flush=True)
    return model.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(fashion.MODELS),
                        help="comma-separated names of fashion.MODELS (default: all)")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in fashion.MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; expected {', '.join(fashion.MODELS)}")
    torch.use_deterministic_algorithms(True)
    x_train, y_train = fashion.load("train")
    x_test, y_test = fashion.load("test")
    results_path = fashion.HERE / "float.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    for name in names:
        model = train(name, x_train, y_train)
        torch.save(model.to(memory_format=torch.contiguous_format).state_dict(),
                   fashion.weights_path(name))
        results[name] = round(accuracy(model, x_test, y_test), 2)
        print(f"{name}: {results[name]:.2f} % float top-1 on the test set", flush=True)
        results_path.write_text(json.dumps(dict(sorted(results.items())), indent=2) + "\n")


if __name__ == "__main__":
    main()
