#!/usr/bin/env python3
"""Markdown tables of gjk_bench's side-by-side benchmarks (the `sbs/` rows) from its JSON output.

Each `sbs/<section>/<query>/<class>/<size>` benchmark runs every engine of one cell in turn over
the same pairs (bench.hpp, time_side_by_side); its counter `<engine>` is that engine's median ns
per query. With repetitions the median aggregate is used. Per cell the tables give every
engine's time, libgjk's default row (what a user gets: `libgjk-sv` for 3D distance, `libgjk`
otherwise; in tracking the warm rows `libgjk-sv-hc-warm` and `libgjk-warm`), the fastest peer
library and the ratio peer / libgjk (above 1: libgjk is faster by that factor). Rows of
libgjk's other settings and the benchmark's own separating-axis test (`sat`) are shown but are
not peers.

usage: sbs_table.py results.json [> tables.md]
       sbs_table.py --bench path/to/gjk_bench [--filter REGEX] [--quick]
                    (runs the side-by-side rows, 3 repetitions, then prints their tables)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import OrderedDict
from typing import Dict, Tuple

# libgjk's default row where it is not `libgjk`.
DEFAULT_ROW = {("3d", "distance"): "libgjk-sv", ("mixed", "distance"): "libgjk-sv",
               ("track", "distance"): "libgjk-sv-hc-warm", ("track", "collide"): "libgjk-warm",
               ("track", "penetration"): "libgjk-warm"}
TITLES = {"2d": "2D (seed 001)", "3d": "3D static (seed 002 Table 2 setting)",
          "mixed": "3D mixed pairs (issue 18 item 4)",
          "track": "3D tracking (seed 004 section 4; peers cold, libgjk warm)"}
# Numeric fields of a benchmark's JSON that are not engine counters.
NOT_ENGINES = {"per_query", "items_per_second", "iterations", "repetitions", "repetition_index",
               "threads", "family_index", "per_family_instance_index", "real_time", "cpu_time"}


def is_peer(engine: str) -> bool:
    return not engine.startswith("libgjk") and not engine.startswith("3d-libgjk") and engine != "sat"


Tables = Dict[Tuple[str, str], Dict[Tuple[str, str], Dict[str, float]]]


def load(path: str) -> Tuple[dict, Tables]:
    with open(path) as f:
        data = json.load(f)
    have_aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    tables: Tables = OrderedDict()  # (section, query) -> (class, size) -> {engine: ns}
    for b in data["benchmarks"]:
        if have_aggregates and b.get("aggregate_name") != "median":
            continue
        parts = b.get("run_name", b["name"]).split("/")
        if len(parts) != 5 or parts[0] != "sbs":
            continue
        _, section, query, cls, size = parts
        cells = {k: v for k, v in b.items()
                 if isinstance(v, (int, float)) and k not in NOT_ENGINES}
        tables.setdefault((section, query), OrderedDict())[(cls, size)] = cells
    return data.get("context", {}), tables


def fmt(ns: float) -> str:
    return f"{ns:,.0f}"


def run_bench(bench: str, pattern: str, quick: bool) -> Tuple[dict, Tables]:
    """Runs gjk_bench's side-by-side rows (no shell) and loads its JSON output."""
    with tempfile.TemporaryDirectory(prefix="sbs_") as directory:
        out = os.path.join(directory, "sbs.json")
        command = [bench, f"--benchmark_filter={pattern}", "--benchmark_repetitions=3",
                   "--benchmark_report_aggregates_only=true", f"--benchmark_out={out}",
                   "--benchmark_out_format=json"] + (["--quick"] if quick else [])
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        return load(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", help="gjk_bench JSON output with sbs/ rows")
    parser.add_argument("--bench", help="run this gjk_bench first")
    parser.add_argument("--filter", default="^sbs/", help="benchmark filter for --bench")
    parser.add_argument("--quick", action="store_true", help="gjk_bench --quick (smoke run)")
    args = parser.parse_args()
    if (args.results is None) == (args.bench is None):
        parser.error("give either a JSON file or --bench")
    if args.bench is None:
        context, tables = load(args.results)
    else:
        context, tables = run_bench(args.bench, args.filter, args.quick)
    if not tables:
        sys.exit(f"sbs_table.py: no sbs/ rows in {args.results or 'the run of ' + args.bench}")
    print(f"Run: {context.get('date', '?')}, {context.get('num_cpus', '?')} CPUs at "
          f"{context.get('mhz_per_cpu', '?')} MHz, load average {context.get('load_avg', '?')}\n")
    for (section, query), table in tables.items():
        default = DEFAULT_ROW.get((section, query), "libgjk")
        names = []
        for cells in table.values():
            names += [e for e in cells if e not in names]
        print(f"#### Side by side: {TITLES.get(section, section)}, {query}\n")
        print("median ns per query, every engine of a cell in turn over the same pairs; "
              f"ratio = fastest peer / {default} (above 1: libgjk faster)\n")
        print("| class | size | " + " | ".join(names) + " | fastest peer | ratio |")
        print("|---|---|" + "---:|" * len(names) + "---|---:|")
        wins = total = 0
        for (cls, size), cells in table.items():
            row = [fmt(cells[e]) if e in cells else "" for e in names]
            peers = {e: t for e, t in cells.items() if is_peer(e)}
            mine = cells.get(default)
            if peers and mine:
                best = min(peers, key=peers.get)
                ratio = peers[best] / mine
                wins += ratio >= 1.0
                total += 1
                tail = [best, f"{ratio:.2f}"]
            else:
                tail = ["", ""]
            print(f"| {cls} | {size} | " + " | ".join(row + tail) + " |")
        print(f"\n{default} at least as fast as every peer in {wins} of {total} cells.\n")


if __name__ == "__main__":
    main()
