#!/usr/bin/env python3
"""Seed 002's Tables 2 and 3 beside the paper's, from a gjk_bench JSON output.

usage: seed002_table.py results.json [> tables.md]

The input is a run of `gjk_bench --benchmark_filter=^seed002/ --benchmark_out=FILE
--benchmark_out_format=json` (with or without repetitions: medians are used when present).
Cells: median ns per query, mean GJK iterations, and the speed-up over the paper's reference
algorithm in the same row (its time / the cell's: above 1 is faster). The paper's times are
whole-problem milliseconds in MATLAB 5.2 on a 266 MHz Pentium II, so only its speed-ups compare.
"""

from __future__ import annotations

import json
import sys
from typing import Callable, Dict, List, Tuple

# Seed 002, Table 2 (ms): original GJK, our modification, Cameron's, ours plus Cameron's.
PAPER_TABLE2: Dict[str, Tuple[float, float, float, float]] = {
    "8x8": (16, 17, 30, 31),
    "10x20": (30, 30, 55, 60),
    "20x30": (80, 70, 80, 75),
    "30x40": (105, 100, 110, 105),
    "40x50": (210, 205, 175, 150),
    "50x60": (95, 100, 85, 90),
    "100x120": (445, 480, 250, 220),
    "150x180": (440, 430, 145, 130),
    "200x240": (380, 385, 250, 255),
    "250x300": (480, 480, 220, 220),
}
# Seed 002, Table 3 (ms): the paper gives original vs ours+Cameron's for the first four sizes and
# ours+Cameron's vs the enhanced version (cached supporting vertices) for the last four.
PAPER_TABLE3_FIRST: Dict[str, Tuple[float, float]] = {
    "10x20": (666, 358),
    "20x30": (1726, 424),
    "30x40": (946, 462),
    "40x50": (2096, 522),
}
PAPER_TABLE3_SECOND: Dict[str, Tuple[float, float]] = {
    "50x60": (1250, 458),
    "100x120": (2650, 582),
    "150x180": (6074, 668),
    "200x240": (5250, 800),
}

Cell = Tuple[float, float]  # ns per query, mean iterations


def load(path: str) -> Tuple[dict, Dict[str, Dict[str, Dict[str, Cell]]]]:
    """Returns the run context and table -> size -> variant -> (ns, iterations)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    tables: Dict[str, Dict[str, Dict[str, Cell]]] = {}
    for b in data["benchmarks"]:
        if aggregates and b.get("aggregate_name") != "median":
            continue
        parts = b.get("run_name", b["name"]).split("/")
        if len(parts) != 4 or parts[0] != "seed002" or "per_query" not in b:
            continue
        _, table, size, variant = parts
        cell = (b["per_query"] * 1e9, b.get("iterations", float("nan")))
        tables.setdefault(table, {}).setdefault(size, {})[variant] = cell
    return data.get("context", {}), tables


def fmt(cell: Cell, reference: float) -> str:
    ns, iterations = cell
    return f"{ns:,.0f} ns, {iterations:.2f} it ({reference / ns:.2f}x)"


def markdown(
    rows: Dict[str, Dict[str, Cell]],
    variants: List[str],
    extra: List[str],
    extras: Callable[[str, Dict[str, Cell]], List[str]],
) -> List[str]:
    """One table: a row per size, a cell per variant, then the `extra` columns from `extras`."""
    out = [
        "| N1 / N2 | " + " | ".join(variants + extra) + " |",
        "|---|" + "---:|" * (len(variants) + len(extra)),
    ]
    for size, cells in rows.items():
        reference = cells["original"][0]
        row = [fmt(cells[v], reference) for v in variants] + extras(size, cells)
        out.append(f"| {size.replace('x', ' / ')} | " + " | ".join(row) + " |")
    return out


def table2(rows: Dict[str, Dict[str, Cell]]) -> List[str]:
    def paper(size: str, cells: Dict[str, Cell]) -> List[str]:
        times = PAPER_TABLE2[size]
        return [", ".join(f"{times[0] / t:.2f}x" for t in times[1:])]

    variants = ["original", "ours", "cameron", "ours+cameron", "libgjk"]
    return markdown(rows, variants, ["paper: ours, cameron, ours+cameron"], paper)


def table3(rows: Dict[str, Dict[str, Cell]]) -> List[str]:
    def gains(size: str, cells: Dict[str, Cell]) -> List[str]:
        warm_gain = cells["ours+cameron"][0] / cells["enhanced"][0]
        if size in PAPER_TABLE3_FIRST:
            first = PAPER_TABLE3_FIRST[size]
            paper = f"ours+cameron {first[0] / first[1]:.2f}x original"
        else:
            second = PAPER_TABLE3_SECOND[size]
            paper = f"enhanced {second[0] / second[1]:.2f}x ours+cameron"
        return [f"{warm_gain:.2f}x", paper]

    variants = ["original", "ours+cameron", "enhanced", "libgjk", "libgjk-warm"]
    return markdown(rows, variants, ["enhanced over ours+cameron", "paper"], gains)


def main() -> None:
    context, tables = load(sys.argv[1])
    print(
        f"Run: {context.get('date', '?')}, {context.get('num_cpus', '?')} CPUs, load average "
        f"{context.get('load_avg', '?')}. Cells: median ns per query, mean GJK iterations, "
        "(speed-up over `original` in the same row).\n"
    )
    if "table2" in tables:
        print("Table 2 (static):\n")
        print("\n".join(table2(tables["table2"])) + "\n")
    if "table3" in tables:
        print("Table 3 (tracking, 10 steps of 1 unit and 10 degrees):\n")
        print("\n".join(table3(tables["table3"])) + "\n")


if __name__ == "__main__":
    main()
