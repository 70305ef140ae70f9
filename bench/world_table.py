#!/usr/bin/env python3
"""Markdown tables of the collision-world benchmarks (docs/benchmarks.md, issue 17 items 8-9):
median time per state of libgjk and FCL (GST_LIBCCD, GST_INDEP) from gjk_bench's JSON output,
the ratios FCL / libgjk, and the colliding-state counts from `gjk_bench --check --sections=world`.

    python3 bench/world_table.py world.json check.txt            # N boxes, the cells, panda_boxes
    python3 bench/world_table.py --sparse world.json check.txt   # the fixed-density worlds
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def medians(path: Path) -> dict[str, float]:
    """run name -> median seconds per state (rows without a per-state counter are skipped)."""
    out: dict[str, float] = {}
    for b in json.loads(path.read_text())["benchmarks"]:
        if b.get("aggregate_name") == "median" and "per_query" in b:
            out[b["run_name"]] = float(b["per_query"])
    return out


def colliding(path: Path) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """(world, state set) -> colliding states (brute force) / states; world -> box-overlap pairs."""
    out: dict[tuple[str, str], str] = {}
    overlap: dict[str, str] = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 15 and cells[4].isdigit():
            out[(cells[0], cells[1])] = f"{cells[6]} / {cells[4]}"
            overlap[cells[0]] = cells[5]
    return out, overlap


def main() -> int:
    args = sys.argv[1:]
    want_sparse = "--sparse" in args
    args = [a for a in args if a != "--sparse"]
    t = medians(Path(args[0]))
    hits, overlap = colliding(Path(args[1])) if len(args) > 1 else ({}, {})
    ns = lambda v: f"{v * 1e9:,.0f}"  # noqa: E731
    ratio = lambda peer, mine: f"{peer / mine:.2f}" + ("" if peer / mine >= 2 else " *")  # noqa: E731
    sparse = [n for n in (1, 10, 100, 1000, 10000) if f"world/sparse/{n}/collide/libgjk" in t]
    if want_sparse:
        print("| N (fixed density) | region side x, y (m) | libgjk in_collision ns | FCL collide ccd ns "
              "| ratio | libgjk closest ns | FCL distance ccd ns | ratio | FCL distance indep ns "
              "| ratio | in_collision, then closest if free ns | libgjk update ns | FCL update ns "
              "| box-overlap pairs per state | colliding states |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in sparse:
            b = f"world/sparse/{n}"
            c, cc = t[b + "/collide/libgjk"], t[b + "/collide/fcl-ccd"]
            d, dc, di = (t[b + "/distance/" + e] for e in ("libgjk", "fcl-ccd", "fcl-indep"))
            print(f"| {n} | {3 * (n / 10) ** (1 / 3):.2f} | {ns(c)} | {ns(cc)} | {ratio(cc, c)} | "
                  f"{ns(d)} | {ns(dc)} | {ratio(dc, d)} | {ns(di)} | {ratio(di, d)} | "
                  f"{ns(t[b + '/distance/libgjk-collide-first'])} | {ns(t[b + '/update/libgjk'])} | "
                  f"{ns(t[b + '/update/fcl'])} | {overlap.get(f'sparse {n}', '')} | "
                  f"{hits.get((f'sparse {n}', 'path'), '')} |")
        return 0
    rows = [(f"world/boxes/{n}", str(n), (str(n), "path")) for n in (1, 10, 100, 1000, 10000)]
    rows += [(f"world/cell/{s}", f"cell, {s}", ("panda_cell", s)) for s in ("path", "random")]
    rows += [(f"world/panda_boxes/{s}", f"panda_boxes.yaml, {s}", ("panda_boxes", s))
             for s in ("path", "random")]
    rows += [(f"world/ur5_cell/{s}", f"UR5 mesh links in the cell, {s}",
              ("ur5_cell (mesh links)", s)) for s in ("path", "random")]
    print("| N | libgjk in_collision ns | FCL collide ccd ns | ratio | FCL collide indep ns | ratio "
          "| libgjk closest ns | FCL distance ccd ns | ratio | FCL distance indep ns | ratio "
          "| colliding states |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for base, label, key in rows:
        if base + "/collide/libgjk" not in t:
            continue
        c, cc, ci = (t[base + "/collide/" + e] for e in ("libgjk", "fcl-ccd", "fcl-indep"))
        d, dc, di = (t[base + "/distance/" + e] for e in ("libgjk", "fcl-ccd", "fcl-indep"))
        hit = hits.get((key[0], key[1]), "")
        print(f"| {label} | {ns(c)} | {ns(cc)} | {ratio(cc, c)} | {ns(ci)} | {ratio(ci, c)} | "
              f"{ns(d)} | {ns(dc)} | {ratio(dc, d)} | {ns(di)} | {ratio(di, d)} | {hit} |")
    print()
    print("| N | libgjk update(q) ns | FCL update ns (FK, setTransform, computeAABB, manager "
          "update) |")
    print("|---|---:|---:|")
    for base, label, _ in rows:
        if base + "/update/libgjk" in t:
            print(f"| {label} | {ns(t[base + '/update/libgjk'])} | {ns(t[base + '/update/fcl'])} |")
    print()
    print("| N | libgjk+self in_collision ns | libgjk+self closest ns | closest, shuffled order ns "
          "| closest, fresh context per state ns | context construction alone ns | in_collision, then closest if free ns |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for base, label, _ in rows:
        if base + "/collide/libgjk+self" not in t:
            continue
        print(f"| {label} | {ns(t[base + '/collide/libgjk+self'])} | "
              f"{ns(t[base + '/distance/libgjk+self'])} | "
              f"{ns(t[base + '/distance/libgjk-shuffled'])} | "
              f"{ns(t[base + '/distance/libgjk-fresh-context'])} | "
              f"{ns(t[base + '/context/libgjk'])} | "
              f"{ns(t[base + '/distance/libgjk-collide-first'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
