#!/usr/bin/python3
"""Plots of the 4-DOF pyramid example (examples/four_dof_pyramids), from the CSVs it writes.

usage: /usr/bin/python3 scripts/plot_four_dof.py OUT_DIR

Writes into OUT_DIR:
  four_dof_clearance.png  minimum link-obstacle distance and tracking error against time,
                          k = -1 against k = 0
  four_dof_joints.png     joint angles against time
Needs matplotlib (Debian: python3-matplotlib). The picture of the arm at several instants,
four_dof_frames.png, is a snapshot of the 3D replay page (scripts/replay_screenshot.py), which
the example takes itself.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

D0 = 0.5


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def column(rows, name):
    return [float(r[name]) if r[name] != "" else math.nan for r in rows]


def run_label(tag):
    return {"k-1": "k = -1 (avoidance)", "k0": "k = 0 (no avoidance)"}.get(tag, tag.replace("k", "k = "))


def plot_clearance(out, runs):
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    for tag, rows in runs:
        t = column(rows, "t")
        style = "-" if tag != "k0" else "--"
        ax1.plot(t, column(rows, "min_distance"), style, label=run_label(tag), linewidth=1.8)
        ax2.semilogy(t, [max(e, 1e-12) for e in column(rows, "tracking_error")], style,
                     label=run_label(tag), linewidth=1.5)
    ax1.axhline(0.0, color="red", linewidth=1.0)
    ax1.axhline(D0, color="gray", linewidth=0.8, linestyle=":")
    ax1.text(0.1, D0 + 0.01, "d0 = 0.5 (potential's reach)", color="gray", fontsize=8)
    ax1.text(0.1, 0.01, "contact", color="red", fontsize=8)
    ax1.set_ylabel("minimum link-obstacle distance [m]")
    ax1.set_title("4-DOF arm past two pyramids (seed 002 sec. 4.4): clearance")
    ax1.legend(loc="lower right")
    ax1.grid(True, alpha=0.3)
    ax2.set_ylabel("end-effector tracking error [m]")
    ax2.set_xlabel("t [s]")
    ax2.axvline(6.7, color="gray", linewidth=0.8, linestyle=":")
    ax2.text(6.75, ax2.get_ylim()[0] * 2, "turn: -y to +z", color="gray", fontsize=8)
    ax2.legend(loc="lower right")
    ax2.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out, "four_dof_clearance.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_joints(out, runs):
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for tag, rows in runs:
        t = column(rows, "t")
        style = "-" if tag != "k0" else "--"
        for j, name in enumerate(["joint1", "joint2", "joint3", "joint4"]):
            ax.plot(t, [math.degrees(v) for v in column(rows, name)], style, color=f"C{j}",
                    label=f"{name} ({run_label(tag)})")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("joint angle [deg]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path = os.path.join(out, "four_dof_joints.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    runs = []
    for name in sorted(os.listdir(out)):
        if name.startswith("four_dof_k") and name.endswith(".csv"):
            runs.append((name[len("four_dof_"):-len(".csv")], read_csv(os.path.join(out, name))))
    runs.sort(key=lambda run: run[0] == "k0")  # the avoiding run first
    if not runs:
        sys.exit(f"plot_four_dof.py: no four_dof_k*.csv in {out}")
    plot_clearance(out, runs)
    plot_joints(out, runs)


if __name__ == "__main__":
    main()
