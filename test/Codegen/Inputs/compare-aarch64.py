#!/usr/bin/env python3
"""Cross-compiles each case with quant-compile --target=TARGET (aarch64-dotprod:
SDOT kernels, aarch64-i8mm: SMMLA kernels), checks that qfx-codegen replaced
every matmul, conv2d, depthwise_conv2d and max_pool2d of a random case (quant-opt; a
model's average pools are depthwise convolutions that stay) and that the
object uses the target's instruction where an int8 matmul or conv2d became a
kernel, links
it into a small C program with
aarch64-linux-gnu-gcc, runs it under qemu-aarch64 -cpu max and checks that its
output equals quant-run's generic lowering of the same case on this machine.

Usage: compare-aarch64.py QUANT_OPT QUANT_COMPILE QUANT_RUN DIR CASES_FILE [TARGET]
TARGET: aarch64-dotprod (default) or aarch64-i8mm.
CASES_FILE: one case a line, NAME (DIR/NAME.mlir on DIR/NAME.npy) or
NAME MODEL.mlir INPUT.npy. Models of one input and one output.
"""

import pathlib
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
C_TYPES = {"int8": "int8_t", "float32": "float"}
INSTRUCTIONS = {"aarch64-dotprod": "sdot", "aarch64-i8mm": "smmla"}
PREFIXES = {"aarch64-dotprod": "qfx_sdot_", "aarch64-i8mm": "qfx_i8mm_"}
# The ops qfx-codegen's kernels replace (TOSA contractions once written as
# qfx.contract).
KERNEL_OPS = ("qfx.contract", "tosa.matmul", "tosa.conv2d", "tosa.depthwise_conv2d",
              "tosa.max_pool2d")

DRIVER = """#include <stdio.h>
#include "model.h"
static {in_type} in[{inputs}];
static {out_type} out[{outputs}];
int main(int argc, char **argv) {{
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(in, sizeof in, 1, f) != 1) return 3;
  fclose(f);
  qfx_model(in, out);
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out, sizeof out, 1, f) != 1) return 4;
  fclose(f);
  return 0;
}}
"""


def main() -> int:
    quant_opt, quant_compile, quant_run = sys.argv[1:4]
    directory = pathlib.Path(sys.argv[4])
    cases = [line.split() for line in pathlib.Path(sys.argv[5]).read_text().splitlines()
             if line.strip()]
    target = sys.argv[6] if len(sys.argv) > 6 else "aarch64-dotprod"
    instruction = INSTRUCTIONS[target]
    failures = 0
    for case in cases:
        name = case[0]
        model, data = ((directory / f"{name}.mlir", directory / f"{name}.npy") if len(case) == 1
                       else (pathlib.Path(case[1]), pathlib.Path(case[2])))
        work = directory / f"{name}.{target}"
        work.mkdir(exist_ok=True)
        expected_path = work / "expected.npy"
        subprocess.run([quant_run, str(model), f"--input={data}", "--codegen=none",
                        "-o", str(expected_path)], check=True)
        expected = np.load(expected_path)
        subprocess.run([quant_compile, str(model), f"--target={target}", "--name=model",
                        "-o", str(work / "model.o"), f"--header={work / 'model.h'}"], check=True)
        source = model.read_text()
        lowered = subprocess.run([quant_opt, str(model), "--qfx-tosa-to-contract",
                                  f"--qfx-codegen=target={target}"],
                                 check=True, capture_output=True, text=True).stdout
        if len(case) == 1 and any(op in lowered for op in KERNEL_OPS):
            print(f"{name}: qfx-codegen did not replace every kernel op")
            failures += 1
            continue
        disassembly = subprocess.run(["llvm-objdump", "-d", str(work / "model.o")], check=True,
                                     capture_output=True, text=True).stdout
        # (A float convolution's kernel multiplies floats.)
        if PREFIXES[target] + "matmul_" in lowered and instruction not in disassembly:
            print(f"{name}: the object has no {instruction} instruction")
            failures += 1
            continue
        inputs = np.load(data)
        (work / "driver.c").write_text(DRIVER.format(
            in_type=C_TYPES[inputs.dtype.name], inputs=inputs.size,
            out_type=C_TYPES[expected.dtype.name], outputs=expected.size))
        subprocess.run(["aarch64-linux-gnu-gcc", "-O1", "-static", f"-I{work}",
                        str(work / "driver.c"), str(work / "model.o"),
                        str(HERE / "memref-copy.c"), "-lm", "-o", str(work / "run")],
                       check=True)
        inputs.tofile(work / "input.bin")
        subprocess.run(["qemu-aarch64", "-cpu", "max", str(work / "run"), str(work / "input.bin"),
                        str(work / "output.bin")], check=True)
        actual = np.fromfile(work / "output.bin", dtype=expected.dtype).reshape(expected.shape)
        equal = actual.tobytes() == expected.tobytes()  # bit for bit
        print(f"{name}: {list(expected.shape)} {'equal' if equal else 'DIFFERENT'}")
        failures += not equal
    print(f"{len(cases) - failures} of {len(cases)} cases equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
