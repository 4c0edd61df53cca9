#!/usr/bin/python3
# ===- detection.py - torchvision detection with a qfx-quantized backbone -===#
#
# Part of the qfx project.
#
# ===----------------------------------------------------------------------===#
#
# Detection the way PyTorch users quantize it: the backbone (feature
# extractor, with its FPN; dict outputs) is traced and quantized, and the
# data-dependent rest (anchors, box decoding, NMS, transforms) stays in
# PyTorch, which calls the quantized backbone as a submodule. For
# torchvision's fasterrcnn_mobilenet_v3_large_320_fpn and
# ssdlite320_mobilenet_v3_large (weights=None, batch-norm statistics
# randomized, score threshold 0 so that random weights detect something),
# on fixed-size images, qfx and PyTorch 1.13 FX (x86 mapping, onednn
# engine) quantize the same backbone on the same calibration images, and it
# prints: the share of backbone outputs equal to PyTorch's int8 backbone's
# with PyTorch's statistics imported, whether the two detectors' detections
# (boxes, scores, labels) are then identical, per test image how many of the
# PyTorch-quantized detector's 20 best detections qfx's finds with its own
# calibration (same label, IoU >= 0.9) and the largest score difference
# among them, and the backbones' median latency. PyTorch's int8 backbone
# returns channels-last tensors, on which the float heads round differently
# (random weights give many equal scores, whose order that changes): the
# reference detector makes them contiguous, as qfx's are. Usage:
#
#   /usr/bin/python3 utils/bench/detection.py [--models a,b] [--images 4]
#
# ===----------------------------------------------------------------------===#

import argparse
import copy
import pathlib
import statistics
import sys
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

MODELS = "fasterrcnn_mobilenet_v3_large_320_fpn,ssdlite320_mobilenet_v3_large"


def build(name: str):
    import torch
    import torchvision

    torch.manual_seed(0)
    model = getattr(torchvision.models.detection, name)(weights=None,
                                                         weights_backbone=None).eval()
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    heads = getattr(model, "roi_heads", model)
    heads.score_thresh = 0.0
    return model


def with_backbone(model, backbone):
    """A copy of `model` calling `backbone` (any callable) for its features."""
    import torch

    class Backbone(torch.nn.Module):
        def __init__(self, run, out_channels):
            super().__init__()
            self.run = run
            if out_channels is not None:  # (Faster R-CNN's heads read it)
                self.out_channels = out_channels

        def forward(self, x):
            return self.run(x)

    def contiguous(x):
        return {k: v.contiguous() for k, v in backbone(x).items()}

    detector = copy.deepcopy(model)
    detector.backbone = Backbone(contiguous, getattr(model.backbone, "out_channels", None))
    return detector


def matched(mine: dict, reference: dict, top: int) -> tuple:
    """How many of the reference's `top` best detections (or all, if fewer)
    `mine` has (same label, IoU >= 0.9), out of how many, and the largest
    score difference among them."""
    from torchvision.ops import box_iou

    found, worst = 0, 0.0
    top = min(top, len(reference["boxes"]))
    iou = box_iou(reference["boxes"][:top], mine["boxes"])
    for k in range(top):
        same = (mine["labels"] == reference["labels"][k]) & (iou[k] >= 0.9)
        if same.any():
            found += 1
            j = int(iou[k].masked_fill(~same, -1).argmax())
            worst = max(worst, abs(float(mine["scores"][j] - reference["scores"][k])))
    return found, top, worst


def median_ms(function, x, runs=20) -> float:
    import torch

    times = []
    with torch.no_grad():
        for run in range(runs + 3):
            start = time.perf_counter()
            function(x)
            if run >= 3:
                times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def one(name: str, args) -> int:
    import torch
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    import qfx

    model = build(name)
    generator = torch.Generator().manual_seed(1)
    size = 320
    calibration = [torch.rand(3, size, size, generator=generator) for _ in range(args.images)]
    tests = [torch.rand(3, size, size, generator=generator) for _ in range(args.images)]
    # What the backbone sees: the transformed (normalized, resized) batch.
    batches = [model.transform([image])[0].tensors for image in calibration]
    mapping = get_default_qconfig_mapping("x86")
    theirs_prepared = prepare_fx(copy.deepcopy(model.backbone), mapping, (batches[0],))
    with torch.no_grad():
        for batch in batches:
            theirs_prepared(batch)
    theirs = convert_fx(copy.deepcopy(theirs_prepared))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = qfx.convert_fx(theirs_prepared, (batches[0],))
        own = qfx.prepare_fx(model.backbone, mapping, (batches[0],), outputs=None)
        for batch in batches:
            own(batch)
        own = qfx.convert_fx(own)
    print(f"{name}: backbone input {list(batches[0].shape)}, outputs "
          + ", ".join(f"{k} {list(v.shape)}" for k, v in ours(batches[0]).items())
          + f"; graph breaks {len(ours.graph_breaks)}", flush=True)
    equal = []
    with torch.no_grad():
        for image in tests:
            batch = model.transform([image])[0].tensors
            a, b = ours(batch), theirs(batch)
            equal += [(a[k] == b[k]).float().mean().item() for k in a]
    print(f"  PyTorch's statistics: backbone outputs equal to PyTorch int8's: "
          f"{100 * min(equal):.2f} % (worst output and image)")
    failed = min(equal) < 1.0
    reference = with_backbone(model, theirs)
    mine = with_backbone(model, ours)
    with torch.no_grad():
        identical = all(all(torch.equal(x[k], y[k]) for k in ("boxes", "scores", "labels"))
                        for x, y in ((mine([i])[0], reference([i])[0]) for i in tests))
    print(f"  PyTorch's statistics: detections {'identical' if identical else 'differ'} on "
          f"{len(tests)} images")
    failed |= not identical
    for label, backbone in (("qfx's calibration", own),):
        mine = with_backbone(model, backbone)
        found, worst = [], 0.0
        with torch.no_grad():
            for image in tests:
                count, top, score = matched(mine([image])[0], reference([image])[0], 20)
                found.append(f"{count}/{top}")
                worst = max(worst, score)
        print(f"  {label}: of PyTorch int8's 20 best detections per image (all if fewer), "
              f"qfx's detector finds {', '.join(map(str, found))}; largest score difference {worst:.3g}")
    batch = model.transform([tests[0]])[0].tensors
    print(f"  backbone latency: qfx {median_ms(ours, batch):.2f} ms, PyTorch int8 "
          f"{median_ms(theirs, batch):.2f} ms, PyTorch float "
          f"{median_ms(model.backbone, batch):.2f} ms ({torch.get_num_threads()} thread(s))",
          flush=True)
    return int(failed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--images", type=int, default=4)
    args = parser.parse_args()
    import torch

    import qfx

    torch.backends.quantized.engine = "onednn"
    torch.set_num_threads(1)
    qfx.set_num_threads(1)
    return max(one(name, args) for name in args.models.split(","))


if __name__ == "__main__":
    sys.exit(main())
