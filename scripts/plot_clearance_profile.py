#!/usr/bin/python3
"""Clearance profile of a planned path (tools/plan, gjk-plan): clearance against arc length.

usage: /usr/bin/python3 scripts/plot_clearance_profile.py PROFILE.csv OUT.png
Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_clearance_profile.py: {sys.argv[1]} has no rows")
    arc = [float(r["arc_length"]) for r in rows]
    clearance = [float(r["clearance"]) for r in rows]
    i_min = min(range(len(rows)), key=lambda i: clearance[i])
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.plot(arc, clearance, linewidth=1.8, label="minimum link-obstacle distance")
    ax.axhline(0.0, color="red", linewidth=1.0)
    ax.plot([arc[i_min]], [clearance[i_min]], "o", color="black")
    ax.annotate(f"min {clearance[i_min]:.3f} m\n{rows[i_min]['link']} / {rows[i_min]['obstacle']}",
                (arc[i_min], clearance[i_min]), textcoords="offset points", xytext=(10, 10),
                fontsize=8)
    # Which pair is the closest, as coloured bands along the bottom.
    pairs = sorted({(r["link"], r["obstacle"]) for r in rows})
    colors = {p: f"C{1 + i % 9}" for i, p in enumerate(pairs)}  # C0 is the curve
    for i in range(len(rows) - 1):
        ax.axvspan(arc[i], arc[i + 1], ymin=0, ymax=0.03,
                   color=colors[(rows[i]["link"], rows[i]["obstacle"])], linewidth=0)
    for p in pairs:
        ax.plot([], [], color=colors[p], linewidth=6, label=f"closest: {p[0]} / {p[1]}")
    ax.set_xlabel("arc length along the path (joint space) [rad]")
    ax.set_ylabel("clearance [m]")
    ax.set_title(sys.argv[1].split("/")[-1].replace("_clearance.csv", "") + ": clearance along the path")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
