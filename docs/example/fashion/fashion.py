# ===- fashion.py - Fashion-MNIST data and the benchmark's models ---------===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
"""Fashion-MNIST (Debian's dataset-fashion-mnist) and the four models trained
on it: the data loader and model definitions shared by the training script
(train.py beside this file), the accuracy benchmark
(utils/bench/accuracy.py) and the demo (utils/demo.py).

The data set: 60,000 training and 10,000 test images of 28x28 grey pixels,
ten classes of clothing, as the four gzip'd IDX files of
/usr/share/datasets/fashion-mnist (`QFX_FASHION_MNIST` overrides the folder).
`load("train")` / `load("test")` give float32 images [N, 1, 28, 28],
normalized with the training set's mean and deviation, and int64 labels [N].

The models (`MODELS`, each a `torch.nn.Module` taking [B, 1, 28, 28]):

  resnet     a residual CNN with batch norm: conv stem, two residual blocks
             (stride 2, 1x1 projection shortcuts), global average pool, Linear
  mobilenet  MobileNetV2-style: a stride-2 stem, inverted residuals (1x1
             expansion, depthwise 3x3, 1x1 projection, batch norm, ReLU6,
             skip adds), global average pool, Linear
  vit        a small vision transformer: 4x4 patches (a stride-4 convolution),
             a class token and position embeddings, two pre-norm encoder
             layers (LayerNorm, 4-head softmax attention written as
             HuggingFace writes it, GELU feed-forward), a Linear head
  lstm       an LSTM reading the image's 28 rows as a sequence of 28
             features, a Linear on its last output

`load_model(name)` builds one and loads the committed weights (NAME.pt beside
this file).
"""

from __future__ import annotations

import gzip
import math
import os
import pathlib
from typing import Callable, Dict, Tuple

import numpy as np
import torch
import torch.nn as nn

HERE = pathlib.Path(__file__).resolve().parent
DATA_DIR = pathlib.Path("/usr/share/datasets/fashion-mnist")
CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
           "Sneaker", "Bag", "Ankle boot")
# The training images' mean and standard deviation (of pixels scaled to 0..1).
MEAN, STD = 0.2860, 0.3530
_FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
          "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def data_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("QFX_FASHION_MNIST", DATA_DIR))


def read_idx(path: pathlib.Path) -> np.ndarray:
    """An IDX file (optionally gzip'd) of unsigned bytes: a big-endian magic
    0x0000 08 NDIM, NDIM big-endian int32 sizes, then the data."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes (expected the magic "
                         f"00 00 08 NDIM, got {data[:4].hex(' ') or 'an empty file'})")
    ndim = data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path}: IDX header of {ndim} dimensions is cut short")
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    count = math.prod(shape)
    if len(data) - header != count:
        raise ValueError(f"{path}: IDX shape {list(shape)} needs {count} bytes of data, "
                         f"the file has {len(data) - header}")
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape)


def load(split: str) -> Tuple[np.ndarray, np.ndarray]:
    """Images float32 [N, 1, 28, 28] (normalized) and labels int64 [N] of
    the "train" (60,000) or "test" (10,000) split."""
    if split not in _FILES:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    folder = data_dir()
    paths = [folder / name for name in _FILES[split]]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise FileNotFoundError(
            f"Fashion-MNIST not found ({', '.join(missing)}): install Debian's "
            "dataset-fashion-mnist (utils/setup.sh does) or set QFX_FASHION_MNIST to its folder")
    images, labels = (read_idx(p) for p in paths)
    if images.ndim != 3 or images.shape[1:] != (28, 28) or labels.shape != images.shape[:1]:
        raise ValueError(f"{folder}: expected images [N, 28, 28] and labels [N], got "
                         f"{list(images.shape)} and {list(labels.shape)}")
    x = (images.astype(np.float32) / 255.0 - MEAN) / STD
    return x[:, None, :, :], labels.astype(np.int64)


# ----- the models -----------------------------------------------------------


def _conv_bn(cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout))


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock: two 3x3 conv-bn, a projection
    shortcut when the shape changes, ReLU after the add."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = (_conv_bn(cin, cout, 1, stride)
                           if stride != 1 or cin != cout else nn.Identity())
        self.relu2 = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.bn2(self.conv2(self.relu1(self.bn1(self.conv1(x)))))
        return self.relu2(out + self.downsample(x))


class ResNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.layer1 = BasicBlock(16, 32, 2)   # 14x14
        self.layer2 = BasicBlock(32, 64, 2)   # 7x7
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layer2(self.layer1(self.relu(self.bn1(self.conv1(x)))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expansion (when `expand` > 1), depthwise 3x3,
    1x1 linear projection, all with batch norm, ReLU6 after the first two;
    a skip add when stride is 1 and the channels match."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        layers = []
        if expand != 1:
            layers += [_conv_bn(cin, hidden, 1), nn.ReLU6()]
        layers += [_conv_bn(hidden, hidden, 3, stride, groups=hidden), nn.ReLU6(),
                   _conv_bn(hidden, cout, 1)]
        self.conv = nn.Sequential(*layers)
        self.use_skip = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.use_skip else self.conv(x)


class MobileNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Sequential(_conv_bn(1, 16, 3, 2), nn.ReLU6()),  # 14x14
            InvertedResidual(16, 16, 1, 1),
            InvertedResidual(16, 24, 1, 3),
            InvertedResidual(24, 24, 1, 3),
            InvertedResidual(24, 48, 2, 3),                   # 7x7
            InvertedResidual(48, 48, 1, 3),
            nn.Sequential(_conv_bn(48, 128, 1), nn.ReLU6()))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


class SelfAttention(nn.Module):
    """Softmax attention as HuggingFace's BertSelfAttention writes it."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads, self.size = heads, dim // heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size()[:-1] + (self.heads, self.size)).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.size)
        context = torch.matmul(nn.functional.softmax(scores, dim=-1), v)
        context = context.permute(0, 2, 1, 3).contiguous()
        return self.out(context.view(context.size()[:-2] + (self.heads * self.size,)))


class EncoderLayer(nn.Module):
    """A pre-norm transformer layer (ViT's)."""

    def __init__(self, dim: int, heads: int, hidden: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attention = SelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.gelu = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        return x + self.fc2(self.gelu(self.fc1(self.norm2(x))))


class ViT(nn.Module):
    def __init__(self, dim: int = 64, depth: int = 2, heads: int = 4, hidden: int = 128):
        super().__init__()
        self.patch = nn.Conv2d(1, dim, 4, 4)  # 7x7 patches of 4x4
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embedding = nn.Parameter(torch.randn(1, 50, dim) * 0.02)
        self.layers = nn.Sequential(*[EncoderLayer(dim, heads, hidden) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch(x).flatten(2).transpose(1, 2)          # [B, 49, dim]
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embedding
        x = self.norm(self.layers(x))
        return self.head(x[:, 0])


class RowLSTM(nn.Module):
    def __init__(self, hidden: int = 128):
        super().__init__()
        self.lstm = nn.LSTM(28, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.lstm(x.reshape(x.shape[0], 28, 28))[0]  # no tuple unpacking: FX traces it
        return self.fc(out[:, -1])


MODELS: Dict[str, Callable[[], nn.Module]] = {
    "resnet": ResNet, "mobilenet": MobileNet, "vit": ViT, "lstm": RowLSTM}


def weights_path(name: str) -> pathlib.Path:
    return HERE / f"{name}.pt"


def load_model(name: str) -> nn.Module:
    """Model `name` of MODELS with its committed weights, in eval mode."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; expected one of {', '.join(MODELS)}")
    path = weights_path(name)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no weights; train them with "
                                f"/usr/bin/python3 {HERE / 'train.py'} --models {name}")
    model = MODELS[name]()
    model.load_state_dict(torch.load(path))
    return model.eval()
