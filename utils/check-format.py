#!/usr/bin/env python3
"""Fails if any C++ file of qfx is not formatted as clang-format wants.

Usage: check-format.py --clang-format CLANG_FORMAT SOURCE_ROOT
"""

import argparse
import pathlib
import subprocess
import sys

# The folders whose C++ qfx owns (build trees and generated files excluded).
OWNED = ["include", "lib", "tools", "test", "python", "utils", "bench"]
SUFFIXES = {".cpp", ".h", ".c"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clang-format", required=True)
    parser.add_argument("root", type=pathlib.Path)
    args = parser.parse_args()

    files = sorted(
        path
        for folder in OWNED
        if (args.root / folder).is_dir()
        for path in (args.root / folder).rglob("*")
        if path.suffix in SUFFIXES and path.is_file()
    )
    if not files:
        print(f"error: no C++ files found under {args.root}", file=sys.stderr)
        return 1
    unformatted = []
    for path in files:
        result = subprocess.run(
            [args.clang_format, "--dry-run", "-Werror", str(path)],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            unformatted.append(path.relative_to(args.root))
    if unformatted:
        print("these files are not clang-formatted:", file=sys.stderr)
        for path in unformatted:
            print(f"  {path}", file=sys.stderr)
        return 1
    print(f"{len(files)} files formatted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
