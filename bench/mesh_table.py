#!/usr/bin/env python3
"""Markdown table of the mesh/octree benchmarks (docs/benchmarks.md, issue 17 item 9): median
time per query of libgjk and FCL (GST_LIBCCD, GST_INDEP) from gjk_bench's JSON output, the
ratios FCL / libgjk, and libgjk's agreement column from `gjk_bench --check --sections=mesh`;
then the mesh-vs-mesh and mesh-vs-cells rows (`meshpair/...`, one FCL row each).

    python3 bench/mesh_table.py mesh.json check.txt
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def medians(path: Path) -> dict[str, float]:
    """run name -> median seconds per query."""
    out: dict[str, float] = {}
    for b in json.loads(path.read_text())["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = float(b["per_query"])
    return out


def libgjk_errors(path: Path) -> dict[tuple[str, str, str], str]:
    """(target, shape, query) -> "max error (off)" of libgjk from the --check table."""
    out: dict[tuple[str, str, str], str] = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[3] == "libgjk":
            target = re.sub(r"_\d+(_cells)?$", "", cells[0])
            out[(target, cells[1], cells[2])] = f"{cells[8]} ({cells[9]})"
    return out


def main() -> int:
    times = medians(Path(sys.argv[1]))
    errors = libgjk_errors(Path(sys.argv[2])) if len(sys.argv) > 2 else {}
    print("| case | query | libgjk ns | FCL ccd ns | FCL indep ns | ccd / libgjk | indep / libgjk "
          "| libgjk max err (off) |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for name, mine in times.items():
        if not name.endswith("/libgjk") or name.startswith("meshpair/"):
            continue
        base = name[: -len("/libgjk")]
        ccd, indep = times.get(base + "/fcl-ccd"), times.get(base + "/fcl-indep")
        parts = base.split("/")  # mesh/TARGET/SHAPE/QUERY or octree/SHAPE/QUERY
        target, shape, query = (parts[1], parts[2], parts[3]) if parts[0] == "mesh" else (
            "octree", parts[1], parts[2])
        ratio = lambda peer: f"{peer / mine:.2f}" + (" **< 2**" if peer / mine < 2 else "")  # noqa: E731
        err = next((v for (t, s, q), v in errors.items()
                    if t.startswith(target.split("_")[0]) and s == shape and q == query), "")
        print(f"| {target} {shape} | {query} | {mine * 1e9:,.0f} | {ccd * 1e9:,.0f} | "
              f"{indep * 1e9:,.0f} | {ratio(ccd)} | {ratio(indep)} | {err} |")
    pairs = [(n, t) for n, t in times.items() if n.startswith("meshpair/") and n.endswith("/libgjk")]
    if pairs:
        print()
        print("| case | query | libgjk ns | FCL ns | FCL / libgjk |")
        print("|---|---|---:|---:|---:|")
        for name, mine in pairs:
            _, case, query, _ = name.split("/")
            fcl = times.get(name[: -len("/libgjk")] + "/fcl")
            ratio = f"{fcl / mine:.2f}" + (" **< 2**" if fcl / mine < 2 else "") if fcl else ""
            fcl_ns = f"{fcl * 1e9:,.0f}" if fcl else ""
            print(f"| {case} | {query} | {mine * 1e9:,.0f} | {fcl_ns} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
