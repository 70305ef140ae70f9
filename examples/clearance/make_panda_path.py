#!/usr/bin/env python3
"""Writes a long Panda joint path for timing gjk-clearance: N states (default 10000) linearly
interpolated through five waypoints inside the joint limits, with a header and a time column.

Usage: python3 examples/clearance/make_panda_path.py [N] > /tmp/panda_path.csv
"""
import math
import sys

# panda_joint1..7 (rad) and panda_finger_joint1 (m); the first is the "ready" pose.
WAYPOINTS = [
    [0.0, -math.pi / 4, 0.0, -3 * math.pi / 4, 0.0, math.pi / 2, math.pi / 4, 0.0],
    [0.9, 0.3, 0.0, -2.2, 0.0, 2.4, math.pi / 4, 0.04],
    [-0.8, 0.5, 0.3, -1.6, 0.5, 2.0, -0.5, 0.02],
    [-1.5, -0.3, -0.4, -2.6, -0.8, 1.2, 1.5, 0.0],
    [0.0, -math.pi / 4, 0.0, -3 * math.pi / 4, 0.0, math.pi / 2, math.pi / 4, 0.0],
]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    names = ["panda_joint%d" % j for j in range(1, 8)] + ["panda_finger_joint1"]
    print("t," + ",".join(names))
    segments = len(WAYPOINTS) - 1
    for i in range(n):
        s = segments * i / max(n - 1, 1)
        k = min(int(s), segments - 1)
        f = s - k
        q = [a + f * (b - a) for a, b in zip(WAYPOINTS[k], WAYPOINTS[k + 1])]
        print("%.4f," % (i * 0.001) + ",".join("%.9f" % v for v in q))


if __name__ == "__main__":
    main()
