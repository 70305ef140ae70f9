#!/usr/bin/env python3
"""The 4-DOF arm of seed 002 section 4.4 avoiding two pyramids, from Python.

The C++ example (examples/four_dof_pyramids) integrates the velocity inversion of eq. 6,

    qdot = J+ xdot_e + k (I - J+ J) grad H(q),

with explicit Euler steps along the seed's end-effector path (0.1 m/s along -y until
t = 6.7 s, then along +z until 16.7 s), once with avoidance (k = -1) and once without (k = 0).
This script writes that loop in Python with the bound pieces (forward kinematics, the velocity
inversion step, the robot-scene distances), so every line of the algorithm is visible, and
reports the same minimum clearance.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/four_dof_pyramids.py \
        [--check-cpp build/examples/four_dof_pyramids]

With --check-cpp it also runs the C++ example and checks that both agree: the minimum
clearance of the Python loop equals the C++ integrator's (libgjk.planner's simulate(), the code
path of the C++ example) to 1e-12, and the C++ example's printed minimum and its CSV samples
match the Python run to the digits they are written with.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from libgjk import planner, robots

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
URDF = os.path.join(SOURCE, "robots", "models", "four_dof", "four_dof_arm.urdf")
SCENE = os.path.join(SOURCE, "robots", "scenes", "two_pyramids.yaml")

TURN_TIME, END_TIME, SPEED = 6.7, 16.7, 0.1  # the seed's path (FourDofScenario)


def trajectory(x0: np.ndarray):
    """Desired end-effector (position, velocity) at time t, as the C++ scenario computes it."""

    def at(t: float) -> tuple[np.ndarray, np.ndarray]:
        if t <= TURN_TIME:
            velocity = np.array([0.0, -SPEED, 0.0])
            return x0 + t * velocity, velocity
        velocity = np.array([0.0, 0.0, SPEED if t <= END_TIME else 0.0])
        climb = min(t, END_TIME) - TURN_TIME
        return x0 + np.array([0.0, -SPEED * TURN_TIME, SPEED * climb]), velocity

    return at


def run(model: robots.RobotModel, scene: robots.Scene, k: float, dt: float) -> dict:
    """Eq. 6 integrated in Python: one solve per step, q += qdot dt, joints kept in limits."""
    inversion = planner.VelocityInversion(model, scene, "end_effector", k=k, d0=0.5)
    q = np.radians([0.0, 90.0, -150.0, -30.0])  # the seed's initial pose
    x0 = model.link_poses(q)["end_effector"][:3, 3]
    path = trajectory(x0)
    lower, upper = model.lower_limits, model.upper_limits
    steps = int(round(END_TIME / dt))
    clearance, closest, max_error = np.inf, None, 0.0
    for i in range(steps + 1):
        t = i * dt
        xd, vd = path(t)
        step = inversion.solve(q, vd, xd, dt)
        max_error = max(max_error, float(np.linalg.norm(step.end_effector - xd)))
        for pair in inversion.distances():  # every (link shape, pyramid) pair at this q
            if pair.distance < clearance:
                clearance, closest = pair.distance, (pair.name_a, pair.name_b, t)
        if i == steps:
            break
        q = np.minimum(np.maximum(q + step.qdot * dt, lower), upper)
    return {"k": k, "min_clearance": clearance, "closest": closest, "max_error": max_error,
            "q": q, "end_effector": step.end_effector, "x0": x0, "steps": steps}


def check_against_cpp(program: str, model: robots.RobotModel, scene: robots.Scene,
                      runs: list[dict], dt: float) -> None:
    """Runs the C++ example and compares its numbers with the Python runs."""
    for r in runs:
        # The C++ integrator itself (gjk::planner::simulate, which the C++ example calls).
        inversion = planner.VelocityInversion(model, scene, "end_effector", k=r["k"], d0=0.5)
        sim = inversion.simulate(np.radians([0.0, 90.0, -150.0, -30.0]), trajectory(r["x0"]),
                                 dt=dt, duration=END_TIME, record_every=100)
        difference = abs(sim["min_clearance"] - r["min_clearance"])
        print(f"k = {r['k']:g}: C++ simulate() minimum clearance {sim['min_clearance']:.17g}, "
              f"Python loop {r['min_clearance']:.17g} (difference {difference:.1e})")
        assert difference <= 1e-12, "the Python loop does not reproduce the C++ integrator"
        assert np.allclose(sim["q"][-1], r["q"], rtol=0, atol=1e-12)
    with tempfile.TemporaryDirectory() as out:
        text = subprocess.run([program, "--no-plots", "-o", out], check=True,
                              capture_output=True, text=True).stdout
        printed = re.findall(r"minimum clearance\s+(-?[0-9.]+) m \((\S+) / (\S+),", text)
        assert len(printed) == len(runs), text
        for r, (value, link, obstacle) in zip(runs, printed):
            # Printed with 4 decimals.
            assert abs(float(value) - r["min_clearance"]) <= 0.5e-4 + 1e-12, (value, r)
            assert (link, obstacle) == r["closest"][:2], (link, obstacle, r["closest"])
        for r in runs:
            with open(os.path.join(out, "four_dof_k%g.csv" % r["k"])) as f:
                rows = list(csv.DictReader(f))
            # The CSV's recorded samples (10 significant digits) against simulate()'s samples.
            inversion = planner.VelocityInversion(model, scene, "end_effector", k=r["k"], d0=0.5)
            every = int(round((float(rows[1]["t"]) - float(rows[0]["t"])) / dt))
            sim = inversion.simulate(np.radians([0.0, 90.0, -150.0, -30.0]),
                                     trajectory(r["x0"]), dt=dt, duration=END_TIME,
                                     record_every=every)
            assert len(rows) == len(sim["t"])
            csv_min = np.array([float(row["min_distance"]) for row in rows])
            ours = sim["link_obstacle_distance"].reshape(len(rows), -1).min(axis=1)
            assert np.allclose(csv_min, ours, rtol=1e-9, atol=1e-12)
            q_csv = np.array([[float(row[n]) for n in model.position_names] for row in rows])
            assert np.allclose(q_csv, sim["q"], rtol=1e-9, atol=1e-12)
    print("the C++ example agrees (printed minimum to 4 decimals, CSV samples to 10 digits)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dt", type=float, default=1e-3, help="integration step, s")
    parser.add_argument("--check-cpp", metavar="PROGRAM",
                        help="the built C++ example (build/examples/four_dof_pyramids)")
    args = parser.parse_args()

    model = robots.RobotModel.from_urdf(URDF)
    scene = robots.load_scene(SCENE)
    runs = [run(model, scene, k, args.dt) for k in (-1.0, 0.0)]
    x0 = runs[0]["x0"]
    print("4-DOF arm, seed 002 section 4.4: start pose (0, 90, -150, -30) deg, end effector at "
          f"({x0[0]:.4f}, {x0[1]:.4f}, {x0[2]:.4f})")
    for r in runs:
        link, obstacle, t = r["closest"]
        state = "COLLIDES" if r["min_clearance"] <= 0 else "collision-free"
        ee = r["end_effector"]
        print(f"\nk = {r['k']:g}  {state}\n"
              f"  minimum clearance   {r['min_clearance']:.4f} m ({link} / {obstacle}, "
              f"t = {t:.2f} s)\n"
              f"  max tracking error  {r['max_error']:.2e} m\n"
              f"  end effector at end ({ee[0]:.4f}, {ee[1]:.4f}, {ee[2]:.4f})\n"
              f"  {r['steps']} steps")
    if args.check_cpp:
        print()
        check_against_cpp(args.check_cpp, model, scene, runs, args.dt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
