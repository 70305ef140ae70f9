#!/usr/bin/env python3
"""Seed 001's Tables I-VI beside the paper's, from a gjk_bench JSON output.

usage: seed001_table.py results.json [> tables.md]

The input is a run of `gjk_bench --benchmark_filter=^2d/ --benchmark_out=FILE
--benchmark_out_format=json` (with or without repetitions: medians are used when present).
The paper's appendix gives average ns per query on its machine for Box2D, SAT and its binary /
distance GJK without and with hill climbing ("HCS"); only ratios to Box2D compare across
machines. Rows pair the paper's algorithms with this benchmark's engines: Box2D = `box2d`
(b2Distance, its overlap test for collision), SAT = `sat`, ours without HCS = `libgjk-bf`,
ours with HCS = `libgjk-hc`.
"""

from __future__ import annotations

import json
import sys
from typing import Dict, Tuple

CLASSES = ("Distant", "Overlapping", "Touching")
# Seed 001, appendix Tables I-VI (ns): per size, per algorithm, the distance columns then the
# collision columns, each (Distant, Overlapping, Touching). SAT has no distance columns.
PAPER: Dict[int, Dict[str, Tuple[Tuple[float, ...], Tuple[float, ...]]]] = {
    4: {
        "box2d": ((96.77, 84.93, 151.92), (96.77, 84.93, 151.92)),
        "sat": ((), (99.62, 203.92, 170.26)),
        "libgjk-bf": ((63.85, 62.99, 118.61), (13.45, 40.63, 104.05)),
        "libgjk-hc": ((54.92, 54.95, 126.73), (19.22, 51.54, 111.59)),
    },
    8: {
        "box2d": ((154.77, 99.63, 163.24), (154.77, 99.63, 163.24)),
        "sat": ((), (137.83, 414.83, 359.05)),
        "libgjk-bf": ((106.25, 74.25, 111.90), (18.50, 51.58, 92.18)),
        "libgjk-hc": ((86.13, 42.07, 78.21), (16.90, 39.13, 77.63)),
    },
    12: {
        "box2d": ((221.77, 98.62, 210.26), (221.77, 98.62, 210.26)),
        "sat": ((), (274.01, 714.44, 572.71)),
        "libgjk-bf": ((184.58, 89.60, 108.69), (25.89, 67.62, 46.81)),
        "libgjk-hc": ((119.69, 54.34, 46.52), (18.37, 49.10, 36.89)),
    },
    16: {
        "box2d": ((362.73, 168.27, 307.07), (362.73, 168.27, 307.07)),
        "sat": ((), (342.67, 1156.10, 885.26)),
        "libgjk-bf": ((229.68, 108.19, 213.41), (35.49, 85.96, 154.20)),
        "libgjk-hc": ((139.18, 51.67, 101.88), (20.98, 51.23, 104.03)),
    },
    20: {
        "box2d": ((240.20, 141.63, 381.77), (240.20, 141.63, 381.77)),
        "sat": ((), (321.73, 1755.92, 1364.87)),
        "libgjk-bf": ((221.33, 124.68, 325.81), (44.15, 56.04, 162.70)),
        "libgjk-hc": ((131.98, 37.95, 100.88), (23.84, 33.00, 102.61)),
    },
    24: {
        "box2d": ((183.96, 171.54, 519.16), (183.96, 171.54, 519.16)),
        "sat": ((), (327.45, 2375.39, 1757.84)),
        "libgjk-bf": ((169.26, 152.61, 440.28), (54.47, 127.93, 63.94)),
        "libgjk-hc": ((83.41, 66.83, 44.02), (25.25, 64.97, 36.56)),
    },
}
ENGINES = ("box2d", "sat", "libgjk-bf", "libgjk-hc")
LABELS = {
    "box2d": "Box2D",
    "sat": "SAT",
    "libgjk-bf": "ours without HCS (libgjk-bf)",
    "libgjk-hc": "ours with HCS (libgjk-hc)",
}


def load(path: str) -> Dict[Tuple[str, str, int, str], float]:
    """(query, class, size, engine) -> median ns per query of the 2d rows."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    out: Dict[Tuple[str, str, int, str], float] = {}
    for b in data["benchmarks"]:
        if aggregates and b.get("aggregate_name") != "median":
            continue
        parts = b.get("run_name", b["name"]).split("/")
        if len(parts) != 5 or parts[0] != "2d" or "per_query" not in b:
            continue
        out[(parts[1], parts[2], int(parts[3]), parts[4])] = b["per_query"] * 1e9
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    t = load(sys.argv[1])
    for query, column in (("collide", 1), ("distance", 0)):
        print(f"{query}: ns per query here / the paper's; in parentheses Box2D's time / the "
              "cell's (above 1: faster than Box2D), here and in the paper\n")
        print("| size | algorithm | " + " | ".join(CLASSES) + " |")
        print("|---:|---|" + "---:|" * len(CLASSES))
        for size, paper in PAPER.items():
            for engine in ENGINES:
                if not paper[engine][column]:
                    continue
                cells = []
                for k, cls in enumerate(CLASSES):
                    here = t.get((query, cls, size, engine))
                    box2d_here = t.get((query, cls, size, "box2d"))
                    theirs = paper[engine][column][k]
                    box2d_theirs = paper["box2d"][column][k]
                    if here is None or box2d_here is None:
                        cells.append("-")
                        continue
                    cells.append(f"{here:,.0f} / {theirs:,.0f} ({box2d_here / here:.2f} / "
                                 f"{box2d_theirs / theirs:.2f})")
                print(f"| {size} | {LABELS[engine]} | " + " | ".join(cells) + " |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
