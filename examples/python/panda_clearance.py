#!/usr/bin/env python3
"""Clearance of a Franka Panda along a joint path in its cell, with a plot.

The cell is robots/scenes/panda_cell.yaml (a table, a shelf as an exact mesh, a parts bin seen
by a depth camera as voxels, a wall; the robot holds a part), the allowed collisions come from
the Panda's SRDF, and the path is the one examples/clearance/make_panda_path.py writes (a tour
of five waypoints). The numbers are gjk-clearance's: libgjk.robots.clearance_along runs the
same analysis.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/panda_clearance.py [OUT_DIR] [--states N]

Writes OUT_DIR/panda_clearance.png (default OUT_DIR: out) and prints the worst states.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from libgjk import robots

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
MODELS = os.environ.get("GJK_SHARED_ROBOT_MODELS",
                        os.path.join(SOURCE, "..", "shared", "robot-models"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default="out", help="output folder (default: out)")
    parser.add_argument("--states", type=int, default=2000, help="states along the path")
    args = parser.parse_args()

    # 1. The robot, its semantic description (allowed collisions) and the cell.
    panda = robots.RobotModel.from_urdf(os.path.join(MODELS, "panda", "panda.urdf"))
    srdf = robots.load_srdf(os.path.join(MODELS, "panda", "panda.srdf"), panda)
    scene = robots.load_scene(os.path.join(SOURCE, "robots", "scenes", "panda_cell.yaml"))
    acm = robots.acm_from_srdf(panda, srdf)
    acm.allow("panda_link0", "table")  # the base is bolted to the table, 1 cm above it
    world = robots.CollisionWorld(panda, scene, acm)
    print(f"{panda.name}: {panda.num_positions} joints; cell: "
          f"{', '.join(o.name + ' (' + o.kind + ')' for o in world.obstacles)}; holding "
          f"{', '.join(a.name for a in world.attached)}")

    # 2. The path: the example generator's CSV, read as gjk-clearance reads it.
    with tempfile.TemporaryDirectory() as tmp:
        file = os.path.join(tmp, "panda_path.csv")
        with open(file, "w") as f:
            subprocess.run([sys.executable, os.path.join(SOURCE, "examples", "clearance",
                                                         "make_panda_path.py"), str(args.states)],
                           stdout=f, check=True)
        path = robots.read_path(file, panda)
    q, t = path["q"], path["time"]
    print(f"path: {len(q)} states over {t[-1]:.3f} s")

    # 3. Clearance at every state: the worst pair, its witness points and normal.
    start = time.perf_counter()
    c = robots.clearance_along(world, q, threads=2)
    seconds = time.perf_counter() - start
    distance = c["distance"]
    print(f"clearance of {len(q)} states in {seconds * 1e3:.1f} ms "
          f"({seconds / len(q) * 1e6:.1f} us per state)")
    i = c["minimum_state"]
    print(f"minimum {c['minimum']:.4f} m at state {i} (t = {t[i]:.3f} s): "
          f"{c['shape_label'][i]} / {c['obstacle'][i]}, witness points "
          f"{np.round(c['point_on_link'][i], 4)} and {np.round(c['point_on_obstacle'][i], 4)}")
    print(f"{c['states_in_collision']} states in collision")
    by_obstacle = {name: distance[[o == name for o in c["obstacle"]]] for name in set(c["obstacle"])}
    for name, values in sorted(by_obstacle.items(), key=lambda kv: kv[1].min()):
        print(f"  worst pair with {name}: {len(values)} states, closest {values.min():.4f} m")

    # 4. The plot (matplotlib without a display).
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(args.out, exist_ok=True)
    fig, ax = plt.subplots(figsize=(9, 4))
    for name in sorted(by_obstacle):
        mask = np.array([o == name for o in c["obstacle"]])
        ax.scatter(t[mask], distance[mask], s=2, label=f"closest: {name}")
    ax.plot(t, distance, color="0.6", linewidth=0.5, zorder=0)
    ax.axhline(0.0, color="red", linewidth=0.8)
    ax.annotate(f"{c['minimum']:.3f} m", (t[i], distance[i]), textcoords="offset points",
                xytext=(10, -10))
    ax.set_xlabel("t (s)")
    ax.set_ylabel("clearance (m)")
    ax.set_title("Panda in panda_cell.yaml: clearance of the worst pair per state")
    ax.legend(loc="upper right", markerscale=4, fontsize=8)
    fig.tight_layout()
    png = os.path.join(args.out, "panda_clearance.png")
    fig.savefig(png, dpi=120)
    print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
