#!/usr/bin/env python3
"""Check that every README code block marked as a snippet is the verbatim body of its program.

A block is marked by the line ``<!-- snippet: PATH -->`` right before its opening fence. The body
of PATH is the text between ``// --- README snippet`` and ``// --- end of snippet``, less the
``// clang-format off/on`` lines, dedented. The programs are compiled and run against the
installed package by scripts/check-install.sh, so a README snippet that drifts from them is one
that nobody compiles: this check fails instead.

Usage: check_readme_snippets.py [REPOSITORY_ROOT]   (exit 0 when all match, 1 otherwise)
"""
from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

MARKER = re.compile(r"^<!-- snippet: (\S+) -->$")


def program_snippet(path: Path) -> list[str]:
    """Return the dedented snippet lines of a program, or raise ValueError naming the file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if "// --- README snippet" in line]
    ends = [i for i, line in enumerate(lines) if "// --- end of snippet" in line]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError(f"{path}: needs exactly one '// --- README snippet' ... "
                         "'// --- end of snippet' pair")
    body = [line for line in lines[starts[0] + 1:ends[0]]
            if line.strip() not in ("// clang-format off", "// clang-format on")]
    return textwrap.dedent("\n".join(body)).splitlines()


def readme_blocks(readme: Path) -> list[tuple[int, str, list[str]]]:
    """Return (line number, program path, code lines) for every marked block of the README."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    blocks = []
    for i, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            raise ValueError(f"{readme}:{i + 1}: snippet marker not followed by a code fence")
        end = i + 2
        while end < len(lines) and lines[end] != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"{readme}:{i + 2}: code fence never closed")
        blocks.append((i + 1, match.group(1), lines[i + 2:end]))
    return blocks


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    readme = root / "README.md"
    try:
        blocks = readme_blocks(readme)
        if not blocks:
            print(f"{readme}: no snippet markers found", file=sys.stderr)
            return 1
        failures = 0
        for line_number, relative, code in blocks:
            expected = program_snippet(root / relative)
            if code != expected:
                failures += 1
                print(f"{readme}:{line_number}: block differs from {relative}", file=sys.stderr)
                for want, got in zip(expected + [""] * len(code), code + [""] * len(expected)):
                    if want != got:
                        print(f"  program: {want!r}\n  README:  {got!r}", file=sys.stderr)
                        break
        print(f"{len(blocks) - failures} of {len(blocks)} README snippets match their programs")
        return 1 if failures else 0
    except (OSError, ValueError) as error:
        print(error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
