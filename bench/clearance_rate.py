#!/usr/bin/env python3
"""End-to-end clearance throughput (issue 18 item 4): states per second of the installed
`gjk-clearance` command for the Panda, the UR5 and the iiwa among the boxes of
robots/scenes/panda_boxes.yaml, as a user runs it (process start, URDF and mesh loading, path
parsing, the analysis, the per-state CSV), on 1 and 2 threads.

Each robot gets a seeded smooth joint path inside its limits (cubic blends between random
waypoints, a state every few milliradians, as a planner's interpolated output looks), written
as CSV with a header of joint names. Every run is repeated and the median wall time is kept.

    /usr/bin/python3 bench/clearance_rate.py --tool build/tools/gjk-clearance \\
        --models ../shared/robot-models --states 200000 --repeats 3
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (name, URDF under --models, extra arguments)
ROBOTS = [
    ("panda", "panda/panda.urdf", ["--fixed", "panda_finger_joint1=0.02"]),
    ("ur5", "ur5/ur5.urdf", []),
    ("iiwa", "kuka_iiwa14/lbr_iiwa_14_r820.urdf", []),
]


def joints(tool: Path, urdf: Path, extra: list[str]) -> list[dict[str, float]]:
    """The path's columns: the robot's movable joints with their limits, less the fixed ones."""
    out = subprocess.run(
        [str(tool), "--urdf", str(urdf), "--list-joints", "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    held = {a.split("=")[0] for a in extra if "=" in a}
    return [j for j in json.loads(out.stdout) if j["name"] not in held]


def write_path(path: Path, limits: list[dict[str, float]], states: int, seed: int) -> None:
    """A smooth path through random waypoints (smoothstep blends), `states` rows."""
    rng = random.Random(seed)
    per_segment = 500
    segments = (states + per_segment - 1) // per_segment

    def waypoint() -> list[float]:
        out = []
        for j in limits:
            lo, hi = float(j["lower"]), float(j["upper"])
            if not (hi > lo) or hi - lo > 20.0:  # continuous joints
                lo, hi = -3.14, 3.14
            margin = 0.05 * (hi - lo)
            out.append(rng.uniform(lo + margin, hi - margin))
        return out

    points = [waypoint() for _ in range(segments + 1)]
    with path.open("w", encoding="ascii") as f:
        f.write(",".join(j["name"] for j in limits) + "\n")
        written = 0
        for s in range(segments):
            a, b = points[s], points[s + 1]
            for k in range(per_segment):
                if written == states:
                    break
                t = k / per_segment
                w = t * t * (3.0 - 2.0 * t)
                f.write(",".join(f"{x + w * (y - x):.9f}" for x, y in zip(a, b)) + "\n")
                written += 1


def run(command: list[str]) -> float:
    """Wall time of one run in seconds; the command must succeed (exit 0 or 1: collisions)."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{command[0]} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", type=Path, default=ROOT / "build/tools/gjk-clearance")
    parser.add_argument("--models", type=Path, default=ROOT.parent / "shared/robot-models")
    parser.add_argument("--scene", type=Path, default=ROOT / "robots/scenes/panda_boxes.yaml")
    parser.add_argument("--states", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.states < 1 or args.repeats < 1:
        sys.exit("--states and --repeats must be at least 1")

    print(
        "| robot | states | threads | median wall s | start-up s (1-state path) "
        "| states/s | states/s after start-up |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for index, (name, urdf_rel, extra) in enumerate(ROBOTS):
            urdf = args.models / urdf_rel
            path = Path(tmp) / f"{name}.csv"
            limits = joints(args.tool, urdf, extra)
            write_path(path, limits, args.states, seed=1000 + index)
            one_state = Path(tmp) / f"{name}_one.csv"
            write_path(one_state, limits, 1, seed=1000 + index)
            states_out = Path(tmp) / f"{name}_states.csv"
            for threads in (1, 2):
                command = [
                    str(args.tool), "--urdf", str(urdf), "--scene", str(args.scene),
                    "--path", str(path), "--threads", str(threads),
                    "--states-out", str(states_out), "--no-progress", *extra,
                ]  # fmt: skip
                times = [run(command) for _ in range(args.repeats)]
                median = statistics.median(times)
                start_command = list(command)
                start_command[start_command.index(str(path))] = str(one_state)
                start_up = statistics.median(run(start_command) for _ in range(args.repeats))
                print(
                    f"| {name} | {args.states} | {threads} | {median:.3f} | {start_up:.3f} | "
                    f"{args.states / median:,.0f} | {args.states / (median - start_up):,.0f} |"
                )
                sys.stdout.flush()


if __name__ == "__main__":
    main()
