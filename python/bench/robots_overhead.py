#!/usr/bin/env python3
"""Python overhead of the collision world (issue 12): a loop of WorldContext.closest(q) (forward
kinematics, broadphase, closest pair with its gradient) over a Panda path in
robots/scenes/panda_cell.yaml, against the same loop in C++ (gjk_python_robot_reference --time,
python/tests/robot_reference.cpp), on the same states; and clearance_along() per state.

Usage (from the repository root, after building gjk_python and gjk_python_robot_reference):
    PYTHONPATH=build/python /usr/bin/python3 python/bench/robots_overhead.py \
        build/python/gjk_python_robot_reference [states]
Prints a Markdown table: microseconds per state, C++ and Python, and their ratio.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

from libgjk import robots

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.environ.get("GJK_SHARED_ROBOT_MODELS", os.path.join(ROOT, "..", "shared", "robot-models"))
URDF = os.path.join(MODELS, "panda", "panda.urdf")
SRDF = os.path.join(MODELS, "panda", "panda.srdf")
SCENE = os.path.join(ROOT, "robots", "scenes", "panda_cell.yaml")


def main() -> int:
    program = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    panda = robots.RobotModel.from_urdf(URDF)
    srdf = robots.load_srdf(SRDF, panda)
    world = robots.CollisionWorld(panda, robots.load_scene(SCENE), robots.acm_from_srdf(panda, srdf))
    # A smooth path inside the limits (warm starts matter, as along a real trajectory).
    lo, hi = panda.lower_limits, panda.upper_limits
    s = np.linspace(0.0, 1.0, n)[:, None]
    path = lo + (hi - lo) * (0.3 + 0.4 * (0.5 + 0.5 * np.sin(2 * np.pi * s * np.arange(1, 9) / 4)))
    text = "".join(" ".join(repr(float(v)) for v in q) + "\n" for q in path)
    out = subprocess.run([program, URDF, SCENE, SRDF, "--time", "5"], input=text,
                         capture_output=True, text=True, check=True).stdout.split()
    cpp_ns, cpp_sum = float(out[0]), float(out[1])

    best, total = np.inf, 0.0
    for _ in range(3):
        context = robots.WorldContext(world)
        t0 = time.perf_counter()
        total = 0.0
        for q in path:
            total += context.closest(q).distance
        best = min(best, (time.perf_counter() - t0) / n * 1e9)
    assert total == cpp_sum, (total, cpp_sum)  # the same queries, bit for bit

    one_call = np.inf
    for _ in range(3):
        context = robots.WorldContext(world)
        t0 = time.perf_counter()
        result = context.closest_along(path, gradient=True)
        one_call = min(one_call, (time.perf_counter() - t0) / n * 1e9)
    assert sum(result["distance"].tolist()) == cpp_sum  # added in order, as the C++ loop does

    along = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        robots.clearance_along(world, path)
        along = min(along, (time.perf_counter() - t0) / n * 1e9)

    print(f"{n} states of the Panda in panda_cell.yaml (SRDF matrix), us per state, best runs:\n")
    print("| call | C++ | Python | ratio |")
    print("|---|---|---|---|")
    print(f"| WorldContext closest(q) loop | {cpp_ns / 1e3:.1f} | {best / 1e3:.1f} | "
          f"{best / cpp_ns:.2f}x |")
    print(f"| WorldContext closest_along(path) (one call) | {cpp_ns / 1e3:.1f} | "
          f"{one_call / 1e3:.1f} | {one_call / cpp_ns:.2f}x |")
    print(f"| clearance_along (every pair, 1 thread) | | {along / 1e3:.1f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
