#!/usr/bin/env python3
"""Python overhead of libgjk (issue 12): a loop of single distance() calls and distance_batch()
against the same queries in C++ (gjk_python_overhead_cpp, python/bench/overhead.cpp).

Usage (from the repository root, after building):
    PYTHONPATH=build/python /usr/bin/python3 python/bench/overhead.py \
        build/python/gjk_python_overhead_cpp [n] [rounds]
Prints a Markdown table: ns per query for C++ and Python, and their ratio.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from typing import Callable

import numpy as np

import libgjk


def random_poses(rng: np.random.Generator, n: int, spread: float) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.stack([libgjk.pose(p, qi) for p, qi in zip(rng.uniform(-spread, spread, (n, 3)), q)])


def best_of(reps: int, f: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    cpp = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rng = np.random.default_rng(2026)
    points = rng.normal(size=(64, 3)) * 0.3
    pairs = {
        "sphere_box": (libgjk.Sphere(0.3), libgjk.Box([0.5, 0.4, 0.3])),
        "capsule_cylinder": (libgjk.Capsule(0.2, 0.5), libgjk.Cylinder(0.3, 0.4)),
        "polytope": (libgjk.ConvexPolytope.from_points(points),) * 2,
    }
    print(
        f"n = {n} pairs per row; {rounds} alternating rounds of C++ (best of 5 runs) and "
        "Python (best of 3); the fastest of each side; ns per query"
    )
    print()
    print("| pair | C++ loop | Python loop | ratio | C++ batch 1 thr | Python batch 1 thr "
          "| ratio | C++ batch all thr | Python batch all thr | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (a, b) in pairs.items():
            pa, pb = random_poses(rng, n, 0.8), random_poses(rng, n, 0.8)
            poses_file = os.path.join(tmp, "poses.bin")
            np.concatenate([pa, pb]).astype("<f8").tofile(poses_file)
            args = [cpp, name, poses_file, str(n)]
            if name == "polytope":
                points_file = os.path.join(tmp, "points.bin")
                points.astype("<f8").tofile(points_file)
                args += [points_file, str(len(points))]
            distance = libgjk.distance

            def loop() -> None:
                for i in range(n):
                    distance(a, pa[i], b, pb[i])

            # C++ and Python alternate, `rounds` times, and each side keeps its fastest run: on a
            # shared machine a load spike then hits both sides rather than one of them.
            c: dict[str, float] = {}
            py_loop = py_b1 = py_b0 = float("inf")
            for _ in range(rounds):
                out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
                for k, v in (line.split() for line in out.splitlines()):
                    c[k] = min(c.get(k, float("inf")), float(v)) if k != "checksum" else float(v)
                py_loop = min(py_loop, best_of(3, loop) / n * 1e9)
                py_b1 = min(
                    py_b1, best_of(3, lambda: libgjk.distance_batch(a, pa, b, pb, threads=1)) / n * 1e9
                )
                py_b0 = min(
                    py_b0, best_of(3, lambda: libgjk.distance_batch(a, pa, b, pb, threads=0)) / n * 1e9
                )
            # Same pairs as C++: its checksum is the sum of its loop's distances, in order.
            loop_sum = sum(float(x) for x in libgjk.distance_batch(a, pa, b, pb)["distance"])
            assert c["checksum"] == loop_sum, (c["checksum"], loop_sum)
            print(
                f"| {name} | {c['loop_ns']:.0f} | {py_loop:.0f} | {py_loop / c['loop_ns']:.2f}x "
                f"| {c['batch1_ns']:.0f} | {py_b1:.0f} | {py_b1 / c['batch1_ns']:.2f}x "
                f"| {c['batch_all_ns']:.0f} | {py_b0:.0f} | {py_b0 / c['batch_all_ns']:.2f}x |"
            )


if __name__ == "__main__":
    main()
