#!/usr/bin/python3
"""Side-by-side timing of two gjk_bench builds (an A/B on a noisy, shared machine).

Usage: /usr/bin/python3 bench/ab_bench.py FILTER ROUNDS BEFORE AFTER [--min-time S] [--minimum]

Runs the two benchmark binaries BEFORE and AFTER in turn (ABAB..., then BABA... on odd rounds),
ROUNDS times each, on the rows FILTER selects (a Google Benchmark regex), each round from fresh
copies of both files (where a binary's pages land matters: one copy of the same gjk_bench ran
sbs/track/collide/Far/10 at 56 ns, three others at 38; session 62), and prints per row the
median real time of each build in microseconds and their ratio (before / after: above 1 means
AFTER is faster). With --minimum, the minimum of the rounds instead of the median. docs/
benchmarks.md quotes its tables.

Exit status: 0 printed; 2 usage error; 3 a binary failed or printed no benchmark.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

UNIT_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def run_once(binary: Path, row_filter: str, min_time: float) -> Dict[str, float]:
    """One run of `binary`: each selected row's real time, us."""
    args = [str(binary), f"--benchmark_filter={row_filter}", "--benchmark_format=json",
            f"--benchmark_min_time={min_time}"]
    r = subprocess.run(args, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        print(f"ab_bench: {binary} exited {r.returncode}: {r.stderr.strip()}", file=sys.stderr)
        sys.exit(3)
    try:
        # Google Benchmark prints nothing when the filter matches no row.
        rows = json.loads(r.stdout)["benchmarks"] if r.stdout.strip() else []
    except (ValueError, KeyError) as e:
        print(f"ab_bench: {binary} printed no benchmark JSON ({e})", file=sys.stderr)
        sys.exit(3)
    if not rows:
        print(f"ab_bench: no row of {binary} matches '{row_filter}'", file=sys.stderr)
        sys.exit(3)
    return {row["name"]: row["real_time"] * UNIT_TO_US[row["time_unit"]] for row in rows}


def main() -> None:
    """Parses the command line, runs the rounds, prints the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("filter", help="Google Benchmark row regex")
    parser.add_argument("rounds", type=int, help="runs of each build (alternating)")
    parser.add_argument("before", type=Path, help="gjk_bench of the base build")
    parser.add_argument("after", type=Path, help="gjk_bench of the changed build")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="--benchmark_min_time per row and run, s (default 0.2)")
    parser.add_argument("--minimum", action="store_true",
                        help="report each build's minimum over the rounds, not the median")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"rounds must be at least 1, got {args.rounds}")
    for binary in (args.before, args.after):
        if not binary.is_file():
            parser.error(f"{binary}: no such file")

    # By position, so that a build compared with itself (a noise floor) keeps two columns.
    builds = (args.before, args.after)
    times: List[Dict[str, List[float]]] = [{}, {}]
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="ab_bench_") as scratch:
            copies = []
            for b, label in enumerate(("before", "after")):
                copy = Path(scratch) / label
                shutil.copy2(builds[b], copy)
                copies.append(copy)
            for b in ((0, 1) if r % 2 == 0 else (1, 0)):
                for name, us in run_once(copies[b], args.filter, args.min_time).items():
                    times[b].setdefault(name, []).append(us)
    pick = min if args.minimum else statistics.median
    print(f"{'row':70s} {'before us':>10s} {'after us':>10s} {'ratio':>6s}")
    for name, before in times[0].items():
        after = times[1].get(name)
        if not after:
            print(f"{name:70s} {pick(before):10.2f} {'-':>10s} {'-':>6s}")
            continue
        b, a = pick(before), pick(after)
        print(f"{name:70s} {b:10.2f} {a:10.2f} {b / a:6.2f}")


if __name__ == "__main__":
    main()
