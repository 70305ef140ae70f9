#!/usr/bin/env python3
"""Markdown tables from a gjk_bench JSON output (--benchmark_out=FILE --benchmark_out_format=json).

Cells: median ns per query (the "per_query" counter of the median aggregate, or of the single
run without repetitions) and, in parentheses, the ratio engine / libgjk baseline: above 1 means
libgjk is faster by that factor. The baseline is the first libgjk row of the query (libgjk-bf in
2D, libgjk-sv for 3D distance, libgjk for collide and penetration). The last column is the
fastest peer (non-libgjk engine) divided by the baseline.

usage: bench_table.py results.json [> tables.md]
"""
import json
import sys
from collections import OrderedDict


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = OrderedDict()  # (section, query) -> OrderedDict((class, size) -> OrderedDict(engine -> ns))
    engines = OrderedDict()  # (section, query) -> ordered engine names
    have_aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    for b in data["benchmarks"]:
        if have_aggregates and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        parts = name.split("/")
        if len(parts) != 5 or "per_query" not in b:
            continue
        section, query, cls, size, engine = parts
        if section not in TITLES:  # world/, robots/, batch/ ... rows have their own scripts
            continue
        key = (section, query)
        # The mixed section's fourth part names the pair's shapes (box-hull100, ...), not a size.
        size_key = size if section == "mixed" else int(size)
        rows.setdefault(key, OrderedDict()).setdefault((cls, size_key), OrderedDict())[engine] = b["per_query"] * 1e9
        engines.setdefault(key, OrderedDict())[engine] = None
    return data.get("context", {}), rows, engines


TITLES = {"2d": "2D (seed 001)", "3d": "3D static (seed 002 Table 2 setting)",
          "mixed": "3D mixed pairs (issue 18 item 4)", "track": "3D tracking, cold (seed 004 section 4)"}


def main():
    context, rows, engines = load(sys.argv[1])
    print(f"Run: {context.get('date', '?')}, {context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz, "
          f"load average {context.get('load_avg', '?')}, library build {context.get('library_build_type', '?')}\n")
    for (section, query), table in rows.items():
        names = list(engines[(section, query)])
        baseline = next((e for e in names if e.startswith("libgjk")), names[0])
        print(f"### {TITLES.get(section, section)}: {query}\n")
        print(f"ns per query (median); in parentheses engine / {baseline} (above 1: libgjk faster)\n")
        print("| class | size | " + " | ".join(names) + " | best peer / " + baseline + " |")
        print("|---|---:|" + "---:|" * (len(names) + 1))
        for (cls, size), cells in table.items():
            base = cells.get(baseline)
            out = []
            for e in names:
                if e not in cells:
                    out.append("-")
                elif base and e != baseline:
                    out.append(f"{cells[e]:.0f} ({cells[e] / base:.2f})")
                else:
                    out.append(f"{cells[e]:.0f}")
            peers = [cells[e] for e in names if not e.startswith("libgjk") and e in cells]
            best = f"{min(peers) / base:.2f}" if peers and base else "-"
            print(f"| {cls} | {size} | " + " | ".join(out) + f" | {best} |")
        print()


if __name__ == "__main__":
    main()
