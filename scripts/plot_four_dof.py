#!/usr/bin/python3
"""Plots of the 4-DOF pyramid example (examples/four_dof_pyramids), from the CSVs it writes.

usage: /usr/bin/python3 scripts/plot_four_dof.py OUT_DIR

Writes into OUT_DIR:
  four_dof_clearance.png  minimum link-obstacle distance and tracking error against time,
                          k = -1 against k = 0
  four_dof_frames.png     the arm and the pyramids seen along x (the motion is in the y-z
                          plane) at several instants, like seed 002 Fig. 14
  four_dof_joints.png     joint angles against time
Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

# Link radii of the arm (robots/models/four_dof/four_dof_arm.urdf), for drawing widths.
LINK_RADIUS = {"link1": 0.08, "link2": 0.07, "link3": 0.06, "link4": 0.05}
D0 = 0.5


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def column(rows, name):
    return [float(r[name]) if r[name] != "" else math.nan for r in rows]


def hull_2d(points):
    """Convex hull (monotone chain) of 2D points, counter-clockwise."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


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


def plot_frames(out, runs):
    frames = read_csv(os.path.join(out, "four_dof_frames.csv"))
    obstacles = read_csv(os.path.join(out, "four_dof_obstacles.csv"))
    tags = [tag for tag, _ in runs]
    fig, axes = plt.subplots(1, len(tags), figsize=(6.5 * len(tags), 6.5), squeeze=False)
    cmap = plt.get_cmap("viridis")
    for ax, (tag, rows) in zip(axes[0], runs):
        names = sorted({r["obstacle"] for r in obstacles})
        for name in names:
            pts = [(float(r["y"]), float(r["z"])) for r in obstacles if r["obstacle"] == name]
            hull = hull_2d(pts)
            ax.fill([p[0] for p in hull], [p[1] for p in hull], color="tab:red", alpha=0.35)
            cy = sum(p[0] for p in hull) / len(hull)
            ax.text(cy, min(p[1] for p in hull) - 0.12, name, ha="center", fontsize=8, color="darkred")
        instants = sorted({float(r["t"]) for r in frames if r["run"] == tag})
        for i, t in enumerate(instants):
            color = cmap(i / max(1, len(instants) - 1))
            pts = [r for r in frames if r["run"] == tag and float(r["t"]) == t]
            by_name = {r["point"]: (float(r["y"]), float(r["z"])) for r in pts}
            chain = ["link1", "link2", "link3", "link4", "end_effector"]
            for a, b in zip(chain, chain[1:]):
                if a in by_name and b in by_name:
                    width = LINK_RADIUS.get(a, 0.04) * 2 * 72 / 1.0 / 4.0  # points, roughly to scale
                    ax.plot([by_name[a][0], by_name[b][0]], [by_name[a][1], by_name[b][1]],
                            color=color, linewidth=width, solid_capstyle="round", alpha=0.85)
            ax.plot([by_name[c][0] for c in chain[1:4]], [by_name[c][1] for c in chain[1:4]], "o",
                    color="black", markersize=3)
            ax.plot([], [], color=color, linewidth=4, label=f"t = {t:.2f} s")
        ee_y = column(rows, "ee_y")
        ee_z = column(rows, "ee_z")
        ax.plot(ee_y, ee_z, color="black", linewidth=1.0, linestyle="--", label="end-effector path")
        ax.set_title(run_label(tag))
        ax.set_xlabel("y [m]")
        ax.set_ylabel("z [m]")
        ax.set_aspect("equal")
        ax.set_xlim(-2.1, 0.5)
        ax.set_ylim(0.0, 3.6)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize=7)
    fig.suptitle("The arm seen along x at several instants (pyramids in red)")
    fig.tight_layout()
    path = os.path.join(out, "four_dof_frames.png")
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
    plot_frames(out, runs)
    plot_joints(out, runs)


if __name__ == "__main__":
    main()
