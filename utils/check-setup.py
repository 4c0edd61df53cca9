#!/usr/bin/env python3
"""Checks that utils/setup.sh names every package qfx needs, as far as this
machine can tell, and that docs/BuildAndTest.md lists what it installs.

setup.sh installs with --no-install-recommends, so a package that one of its
packages only recommends is missing on a fresh machine even where a developer's
machine has it (the aarch64 cross compiler recommends its C headers: the qemu
tests once failed on every fresh machine and passed on ours). So each
recommendation of an installed package that setup.sh names must itself be
named in setup.sh or be in its NOT_NEEDED list with a reason. Fails, listing
every problem, when:
  - a package in PACKAGES is not installed (run utils/setup.sh);
  - an installed named package recommends a package that is neither named nor
    in NOT_NEEDED (no alternative of an "a | b" recommendation is);
  - a NOT_NEEDED entry is recommended by no named package (when all are
    installed, so that every recommendation is known);
  - docs/BuildAndTest.md's package table differs from setup.sh's packages.

usage: check-setup.py [REPO_ROOT]
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
SETUP = ROOT / "utils" / "setup.sh"
DOC = ROOT / "docs" / "BuildAndTest.md"
NAME = r"[a-z0-9][a-z0-9+.\-]+"


def bash_array(text: str, name: str) -> list[str]:
    """The words of `name=( ... )` in setup.sh, without comments."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{name}=(")), None)
    if start is None:
        sys.exit(f"check-setup: {SETUP}: no {name}=( ... ) array")
    first = lines[start][len(name) + 2:]
    if first.rstrip().endswith(")"):  # NAME=(a b c)
        body = [first.rstrip()[:-1]]
    else:
        end = lines.index(")", start)
        body = [first] + lines[start + 1:end]
    body = "\n".join(line if line.lstrip().startswith('"') else line.split("#", 1)[0]
                     for line in body)
    return re.findall(r'"[^"]*"|\S+', body)


def installed_recommends(packages: list[str]) -> dict[str, str]:
    """Package -> its Recommends field, for the installed ones."""
    result = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package}\t${db:Status-Abbrev}\t${Recommends}\n", *packages],
        capture_output=True, text=True)
    recommends = {}
    for line in result.stdout.splitlines():
        name, status, field = (line.split("\t") + ["", ""])[:3]
        if status.startswith("ii"):
            recommends[name] = field
    return recommends


def main() -> int:
    text = SETUP.read_text()
    packages = bash_array(text, "PACKAGES")
    fresh_check = bash_array(text, "FRESH_CHECK_PACKAGES")
    not_needed = {}
    for entry in bash_array(text, "NOT_NEEDED"):
        name, _, reason = entry.strip('"').partition(":")
        if not reason.strip():
            sys.exit(f"check-setup: {SETUP}: NOT_NEEDED entry {entry} gives no reason")
        not_needed[name.strip()] = reason.strip()
    named = set(packages) | set(fresh_check)
    problems = []

    recommends = installed_recommends(sorted(named))
    for pkg in packages:
        if pkg not in recommends:
            problems.append(f"{pkg} is named in PACKAGES but not installed: run utils/setup.sh")
    used = set()
    for pkg, field in sorted(recommends.items()):
        for group in filter(None, (g.strip() for g in field.split(","))):
            choices = [re.match(NAME, c.strip()).group(0) for c in group.split("|")]
            used.update(choices)
            if not any(c in named or c in not_needed for c in choices):
                problems.append(
                    f"{pkg} recommends {group}, which setup.sh neither installs nor lists in "
                    "NOT_NEEDED: add it to PACKAGES if anything uses it, else to NOT_NEEDED "
                    "with the reason")
    if named <= set(recommends):
        for pkg in sorted(set(not_needed) - used):
            problems.append(f"NOT_NEEDED names {pkg}, which no package in setup.sh recommends")

    listed = set(re.findall(rf"^\| `({NAME})` \|", DOC.read_text(), re.M))
    for pkg in sorted(named - listed):
        problems.append(f"{DOC.relative_to(ROOT)}: the package table does not list {pkg}")
    for pkg in sorted(listed - named):
        problems.append(f"{DOC.relative_to(ROOT)}: the package table lists {pkg}, "
                        "which setup.sh does not install")

    for problem in problems:
        print(f"check-setup: {problem}")
    if not problems:
        print(f"check-setup: {len(named)} packages named, {len(recommends)} installed, "
              f"{len(not_needed)} recommendations not needed; docs agree")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
