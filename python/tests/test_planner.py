"""libgjk.planner: velocity inversion (seed 002 eq. 6), OMPL planning, certified motions."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import libgjk
from libgjk import planner, robots

from conftest import SCENES_DIR

TWO_PYRAMIDS = os.path.join(SCENES_DIR, "two_pyramids.yaml")
SEED_Q = np.radians([0.0, 90.0, -150.0, -30.0])
# gjk-plan's four_dof preset: through a pyramid if taken straight.
FOUR_DOF_START = np.array([0.0, np.radians(90), np.radians(-150), np.radians(-30)])
FOUR_DOF_GOAL = np.array([0.0, 1.2, 1.9, 1.0])


@pytest.fixture(scope="module")
def pyramids() -> robots.Scene:
    return robots.load_scene(TWO_PYRAMIDS)


@pytest.fixture(scope="module")
def pyramid_world(four_dof: robots.RobotModel, pyramids: robots.Scene) -> robots.CollisionWorld:
    return robots.CollisionWorld(four_dof, pyramids)


def test_pair_potential() -> None:
    assert planner.pair_potential(0.6, d0=0.5) == 0.0
    assert planner.pair_potential(0.25, d0=0.5) == pytest.approx(0.5 * (4 - 2) ** 2)
    h = 1e-7
    d = 0.3
    fd = (planner.pair_potential(d + h) - planner.pair_potential(d - h)) / (2 * h)
    assert planner.pair_potential_slope(d) == pytest.approx(fd, rel=1e-6)
    assert planner.pair_potential(-1.0) == planner.pair_potential(1e-4)  # clamped


def test_velocity_inversion_step(four_dof: robots.RobotModel, pyramids: robots.Scene) -> None:
    inv = planner.VelocityInversion(four_dof, pyramids, "end_effector")
    x0 = four_dof.link_poses(SEED_Q)["end_effector"][:3, 3]
    v = np.array([0.0, -0.1, 0.0])
    step = inv.solve(SEED_Q, v, x0, 1e-3)
    assert step.qdot.shape == (4,)
    assert np.allclose(step.end_effector, x0)
    assert np.array_equal(inv.end_effector_position, step.end_effector)
    assert step.sigma_min > 0 and step.frozen_joints == 0
    # Without the potential (k = 0, H = 0 here anyway when farther than d0) the end effector
    # moves as asked: J qdot = v (damped least squares, away from singularities).
    jac = four_dof.point_jacobian(SEED_Q, "end_effector", x0)[:3]
    plain = planner.VelocityInversion(four_dof, pyramids, "end_effector", k=0.0)
    assert np.allclose(jac @ plain.solve(SEED_Q, v, x0, 1e-3).qdot, v, atol=1e-9)
    pairs = inv.distances()
    assert len(pairs) == len(four_dof.collision_shapes) * 2
    assert step.potential >= 0
    assert inv.model.name == four_dof.name and len(inv.scene) == 2
    index = planner.VelocityInversion(four_dof, pyramids, four_dof.link_index("end_effector"))
    assert np.array_equal(index.solve(SEED_Q, v, x0, 1e-3).qdot, step.qdot)


def test_velocity_inversion_errors(four_dof: robots.RobotModel, pyramids: robots.Scene) -> None:
    with pytest.raises(robots.ModelError):
        planner.VelocityInversion(four_dof, pyramids, "no_such_link")
    with pytest.raises(ValueError, match="end_effector"):
        planner.VelocityInversion(four_dof, pyramids, 3.5)
    with pytest.raises(ValueError, match="k: must be finite"):
        planner.VelocityInversion(four_dof, pyramids, "end_effector", k=np.nan)
    with pytest.raises(planner.PlannerError):
        planner.VelocityInversion(four_dof, pyramids, "end_effector", d0=-1.0)
    inv = planner.VelocityInversion(four_dof, pyramids, "end_effector")
    with pytest.raises(ValueError, match="desired_velocity"):
        inv.solve(SEED_Q, [0, np.nan, 0], [0, 0, 0], 1e-3)
    with pytest.raises(ValueError, match=r"q: expected an array of shape \(4,\)"):
        inv.solve(np.zeros(5), [0, 0, 0], [0, 0, 0], 1e-3)


def test_simulate_matches_python_loop(four_dof: robots.RobotModel, pyramids: robots.Scene) -> None:
    """simulate() with a Python trajectory = the same Euler loop written in Python, bit for bit."""
    x0 = four_dof.link_poses(SEED_Q)["end_effector"][:3, 3]
    v = np.array([0.0, -0.1, 0.0])

    def trajectory(t: float) -> tuple[np.ndarray, np.ndarray]:
        return x0 + t * v, v

    dt, duration = 1e-2, 1.0
    sim = planner.VelocityInversion(four_dof, pyramids, "end_effector").simulate(
        SEED_Q, trajectory, dt=dt, duration=duration, record_every=10)
    assert sim["steps"] == 100 and sim["q"].shape == (11, 4)
    assert sim["link_obstacle_distance"].shape == (11, len(four_dof.links), 2)
    inv = planner.VelocityInversion(four_dof, pyramids, "end_effector")
    q = SEED_Q.copy()
    lo, hi = four_dof.lower_limits, four_dof.upper_limits
    clearance = np.inf
    for i in range(sim["steps"] + 1):
        xd, vd = trajectory(i * dt)
        step = inv.solve(q, vd, xd, dt)
        clearance = min(clearance, min(p.distance for p in inv.distances()))
        if i == sim["steps"]:
            break
        q = np.minimum(np.maximum(q + step.qdot * dt, lo), hi)
    assert clearance == sim["min_clearance"]
    assert np.array_equal(q, sim["q"][-1])
    with pytest.raises(planner.PlannerError, match="dt"):
        inv.simulate(SEED_Q, trajectory, dt=-1.0)
    with pytest.raises(ValueError, match="trajectory"):
        inv.simulate(SEED_Q, lambda t: (x0,), dt=0.1, duration=0.2)
    with pytest.raises(ZeroDivisionError):
        inv.simulate(SEED_Q, lambda t: 1 / 0, dt=0.1, duration=0.2)


def test_plan_four_dof(pyramid_world: robots.CollisionWorld) -> None:
    result = planner.plan(pyramid_world, FOUR_DOF_START, FOUR_DOF_GOAL, time_limit=10.0, seed=1)
    assert result.solved, result.status
    assert result.joint_names == ["joint1", "joint2", "joint3", "joint4"]
    path = result.path
    assert path.ndim == 2 and path.shape[1] == 4 and path.shape[0] >= 2
    assert np.allclose(path[0], FOUR_DOF_START) and np.allclose(path[-1], FOUR_DOF_GOAL)
    assert np.array_equal(result.full_path, path)  # nothing fixed
    assert result.length > 0 and result.plan_seconds > 0
    # The straight motion collides (the pyramids are in the way), so the planner both accepted
    # and rejected motions.
    assert result.valid_motions > 0 and result.invalid_motions > 0
    # Every segment certified free, every waypoint valid.
    check = planner.MotionValidator(pyramid_world)
    for a, b in zip(path[:-1], path[1:]):
        cert = check.certify(a, b)
        assert cert.valid and cert.last_valid == 1.0 and cert.steps > 0
        assert cert.min_clearance > 0
    assert all(check.is_valid(q) for q in path)
    # The straight motion crosses a pyramid: not certified, and bool(cert) says so.
    straight = check.certify(FOUR_DOF_START, FOUR_DOF_GOAL)
    assert not straight and 0 <= straight.last_valid < 1
    clearance = robots.clearance_along(pyramid_world, path)
    assert np.all(clearance["distance"] > 0)


def test_plan_panda_with_fixed_finger(panda_cell: robots.CollisionWorld) -> None:
    start = np.array([0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4])
    goal = start + np.array([0.4, 0.1, 0.0, 0.1, 0.0, 0.0, 0.0])
    result = planner.plan(panda_cell, start, goal, time_limit=10.0,
                          fixed={"panda_finger_joint1": 0.02})
    assert result.solved, result.status
    assert result.path.shape[1] == 7 and result.full_path.shape[1] == 8
    assert np.all(result.full_path[:, 7] == 0.02)


def test_plan_errors(pyramid_world: robots.CollisionWorld) -> None:
    with pytest.raises(ValueError, match=r"start: expected an array of shape \(4,\)"):
        planner.plan(pyramid_world, np.zeros(3), FOUR_DOF_GOAL)
    with pytest.raises(ValueError, match="not finite"):
        planner.plan(pyramid_world, [0, np.nan, 0, 0], FOUR_DOF_GOAL)
    with pytest.raises(planner.PlannerError, match="outside its limits"):
        planner.plan(pyramid_world, [0, 0, 0, 9.0], FOUR_DOF_GOAL)
    with pytest.raises(planner.PlannerError, match="expected rrtconnect"):
        planner.plan(pyramid_world, FOUR_DOF_START, FOUR_DOF_GOAL, planner="astar")
    with pytest.raises(planner.PlannerError, match="time_limit"):
        planner.plan(pyramid_world, FOUR_DOF_START, FOUR_DOF_GOAL, time_limit=0)
    with pytest.raises(planner.PlannerError, match="unknown|no_joint"):
        planner.plan(pyramid_world, FOUR_DOF_START, FOUR_DOF_GOAL, fixed={"no_joint": 0.0})
    # A goal whose hand is inside a small ball: the message names the pair.
    inside = FOUR_DOF_START
    world = robots.CollisionWorld(pyramid_world.robot, robots.load_scene(TWO_PYRAMIDS))
    tip = pyramid_world.robot.link_poses(inside)["end_effector"][:3, 3]
    world.add_obstacle("block", libgjk.Sphere(0.05), libgjk.pose(tip))
    with pytest.raises(planner.PlannerError, match="goal is in collision: .* / block"):
        planner.plan(world, FOUR_DOF_GOAL, inside)
    with pytest.raises(ValueError, match="margin"):
        planner.MotionValidator(pyramid_world, margin=-1.0)


def test_planning_runs_without_the_gil(pyramid_world: robots.CollisionWorld) -> None:
    """An optimizing planner uses its whole time limit in C++; meanwhile the main thread keeps
    running Python (it could not if the GIL were held), and a second plan runs alongside."""
    results: dict[str, planner.PlanResult] = {}

    def work(name: str, limit: float) -> None:
        results[name] = planner.plan(pyramid_world, FOUR_DOF_START, FOUR_DOF_GOAL, planner=name,
                                     time_limit=limit)

    threads = [threading.Thread(target=work, args=("rrtstar", 0.5)),
               threading.Thread(target=work, args=("rrtconnect", 10.0))]
    for t in threads:
        t.start()
    ticks = 0
    while threads[0].is_alive():
        ticks += 1
        sum(range(100))  # pure Python: needs the GIL
    for t in threads:
        t.join()
    assert ticks > 1000
    # RRT* may or may not find a path in 0.5 s on a loaded machine; it uses all of it either way.
    assert sorted(results) == ["rrtconnect", "rrtstar"] and results["rrtconnect"].solved
    assert results["rrtstar"].plan_seconds >= 0.45


def test_plan_max_iterations(pyramid_world: robots.CollisionWorld) -> None:
    """max_iterations ends a plan before its time limit: joint2 alone planned, the others held
    where link 3 dips into pyramid_low at joint2 = 2.25847, so no path joins the two sides (the
    C++ test PlanArm.NoPathInTimeIsAResultNotAnError); enough iterations still solve a plan
    that has a path."""
    held = {"joint1": 0.0, "joint3": -2.0655, "joint4": -0.5433}
    short = planner.plan(pyramid_world, [2.25847 - 0.3], [2.25847 + 0.3], fixed=held,
                         time_limit=120.0, max_iterations=200)
    assert not short.solved and short.plan_seconds < 60.0
    enough = planner.plan(pyramid_world, FOUR_DOF_START, FOUR_DOF_GOAL, time_limit=120.0,
                          max_iterations=100000)
    assert enough.solved, enough.status
    with pytest.raises(TypeError):
        planner.plan(pyramid_world, FOUR_DOF_START, FOUR_DOF_GOAL, max_iterations=-1)


def test_simulate_in_a_thread_while_others_read(four_dof: robots.RobotModel,
                                                pyramids: robots.Scene) -> None:
    """simulate() holds the inversion while its Python trajectory runs: another thread reading
    the same inversion waits for it instead of deadlocking on the GIL."""
    inv = planner.VelocityInversion(four_dof, pyramids, "end_effector")
    x0 = four_dof.link_poses(SEED_Q)["end_effector"][:3, 3]
    done: list[dict] = []

    def run() -> None:
        done.append(inv.simulate(SEED_Q, lambda t: (x0, np.zeros(3)), dt=1e-3, duration=0.3))

    thread = threading.Thread(target=run)
    thread.start()
    for _ in range(20):
        inv.distances()
        inv.end_effector_position
    thread.join(timeout=60)
    assert not thread.is_alive() and done[0]["steps"] == 300
