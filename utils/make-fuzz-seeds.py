#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tools/fuzzers) into
test/Fuzz/Inputs/{npy,config,ir}: small .npy files of every dtype and version
qfx reads, configuration JSON from the tests, and one module per
`// -----` case of the pass tests, without their comments. Seeds that a
fuzzer once crashed on live beside them (named crash-*) and are kept.

usage: /usr/bin/python3 utils/make-fuzz-seeds.py
"""

import io
import re
import shutil
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "test" / "Fuzz" / "Inputs"

NPY = {
    "f32-2x3.npy": (np.arange(6, dtype=np.float32).reshape(2, 3), None),
    "i8-scalar.npy": (np.array(-3, np.int8), None),
    "u8-0x4.npy": (np.zeros((0, 4), np.uint8), None),
    "f16-v2.npy": (np.ones((3,), np.float16), (2, 0)),
    "i32-v3.npy": (np.arange(4, dtype=np.int32).reshape(2, 2, 1), (3, 0)),
    "i64-1x1.npy": (np.array([[7]], np.int64), None),
}
CONFIG = [
    "test/Transforms/Inputs/axis1-mapping.json",
    "test/Transforms/Inputs/priority-mapping.json",
    "test/Transforms/Inputs/regex-order-mapping.json",
    "test/Transforms/Inputs/qint8-mapping.json",
    "test/Unit/Config/Inputs/example_qconfig_mapping.json",
    "test/Conversion/ReferenceToTosa/Inputs/weight-only-backend.json",
]
IR = [
    "test/Dialect/QFX/ops.mlir",
    "test/Transforms/qfx-fuse.mlir",
    "test/Transforms/qfx-prepare.mlir",
    "test/Transforms/qfx-inline-fused.mlir",
    "test/Transforms/qfx-lower-observers.mlir",
    "test/Transforms/unusual-ir.mlir",
    "test/Conversion/ObserveToQuant/qfx-convert.mlir",
    "test/Conversion/ReferenceToTosa/qfx-lower.mlir",
    "test/Conversion/QuantToLinalg/qfx-lower-quant-to-linalg.mlir",
    "test/Codegen/qfx-codegen.mlir",
    "test/Runtime/Inputs/observed.mlir",
    "test/Runtime/Inputs/compare-reference.mlir",
    "test/Inputs/models/sigmoid_head.mlir",
]


def fresh(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if not old.name.startswith("crash-"):
            old.unlink()


def main() -> None:
    fresh(OUT / "npy")
    for name, (array, version) in NPY.items():
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, array, version=version)
        (OUT / "npy" / name).write_bytes(buffer.getvalue())
    fresh(OUT / "config")
    for source in CONFIG:
        shutil.copy(ROOT / source, OUT / "config" / Path(source).name)
    fresh(OUT / "ir")
    for source in IR:
        text = (ROOT / source).read_text()
        for index, case in enumerate(text.split("// -----")):
            case = "\n".join(line for line in case.splitlines()
                             if not re.match(r"\s*//", line)).strip()
            if case:
                (OUT / "ir" / f"{Path(source).stem}.{index}.mlir").write_text(case + "\n")


if __name__ == "__main__":
    main()
