#!/usr/bin/env python3
"""Runs each case with quant-run --codegen=none and --codegen=TARGET and checks
that the outputs are identical and that qfx-codegen replaced every matmul,
conv2d, depthwise_conv2d and max_pool2d with a TARGET kernel; for the shared* cases (two
chains of the same shape), that both call one kernel.

Usage: compare-codegen.py QUANT_OPT QUANT_RUN DIR CASES_FILE [TARGET [FLAG...]]
TARGET: x86-64-avx512vnni (default), x86-64-avx2 or x86-64-amx; FLAGs are
passed to the TARGET run of quant-run (e.g. --emulate-amx), except
--packed-for=PACKING: both runs take the case with its weights packed for
the PACKING target's kernels first (qfx-pack-weights), which the TARGET
kernels read and the generic lowering ignores.
"""

import pathlib
import re
import subprocess
import sys

import numpy as np

# The ops qfx-codegen's kernels replace (TOSA contractions once written as
# qfx.contract).
KERNEL_OPS = ("qfx.contract", "tosa.matmul", "tosa.conv2d", "tosa.depthwise_conv2d",
              "tosa.max_pool2d")


def main() -> int:
    quant_opt, quant_run = sys.argv[1], sys.argv[2]
    directory = pathlib.Path(sys.argv[3])
    cases = pathlib.Path(sys.argv[4]).read_text().split()
    target = sys.argv[5] if len(sys.argv) > 5 else "x86-64-avx512vnni"
    flags = [flag for flag in sys.argv[6:] if not flag.startswith("--packed-for=")]
    packing = [flag.split("=", 1)[1] for flag in sys.argv[6:] if flag.startswith("--packed-for=")]
    prefix = {"x86-64-avx512vnni": "qfx_vnni_", "x86-64-avx2": "qfx_avx2_",
              "x86-64-amx": "qfx_amx_"}[target]
    failures = 0
    for name in cases:
        model, data = directory / f"{name}.mlir", directory / f"{name}.npy"
        if packing:
            packed = directory / f"{name}.packed.mlir"
            subprocess.run([quant_opt, str(model), "--qfx-tosa-to-contract",
                            f"--qfx-pack-weights=target={packing[0]}", "-o", str(packed)],
                           check=True)
            model = packed
        lowered = subprocess.run([quant_opt, str(model), "--qfx-tosa-to-contract",
                                  f"--qfx-codegen=target={target}"],
                                 check=True, capture_output=True, text=True).stdout
        if prefix not in lowered or any(op in lowered for op in KERNEL_OPS):
            print(f"{name}: qfx-codegen did not use the {target} kernels")
            failures += 1
            continue
        # The kernels @main calls (AMX's dispatch calls its _tiles and _vnni, and
        # qfx_amx_ready).
        called = {callee for callee in re.findall(r"call @(qfx_\w+)\(", lowered)
                  if not callee.endswith(("_tiles", "_vnni", "_ready"))}
        if name.startswith("shared") and len(called) != 1:
            print(f"{name}: two chains of the same shape call {sorted(called)}, not one kernel")
            failures += 1
            continue
        outputs = {}
        for codegen in ("none", target):
            out = directory / f"{name}.{codegen}.npy"
            subprocess.run([quant_run, str(model), f"--input={data}", f"--codegen={codegen}",
                            "-o", str(out)] + (flags if codegen == target else []),
                           check=True)
            outputs[codegen] = np.load(out)
        # Bit for bit (a float kernel's -0.0 is not the generic lowering's 0.0).
        equal = (outputs["none"].shape == outputs[target].shape
                 and outputs["none"].tobytes() == outputs[target].tobytes())
        print(f"{name}: {list(outputs[target].shape)} {'equal' if equal else 'DIFFERENT'}")
        failures += not equal
    print(f"{len(cases) - failures} of {len(cases)} cases equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
