"""libgjk.robots.CollisionWorld, WorldContext and clearance_along (against gjk-clearance)."""

from __future__ import annotations

import csv
import os
import subprocess
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import libgjk
from libgjk import robots

from conftest import PANDA_READY, PANDA_SRDF, PANDA_URDF, ROBOT_MODELS_DIR, SCENES_DIR

PANDA_CELL = os.path.join(SCENES_DIR, "panda_cell.yaml")


def panda_path(n: int) -> np.ndarray:
    """n states through the waypoints of examples/clearance/make_panda_path.py."""
    waypoints = np.array(
        [
            [0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4, 0.0],
            [0.9, 0.3, 0.0, -2.2, 0.0, 2.4, np.pi / 4, 0.04],
            [-0.8, 0.5, 0.3, -1.6, 0.5, 2.0, -0.5, 0.02],
            [-1.5, -0.3, -0.4, -2.6, -0.8, 1.2, 1.5, 0.0],
        ]
    )
    s = np.linspace(0, len(waypoints) - 1, n)
    k = np.minimum(s.astype(int), len(waypoints) - 2)
    f = (s - k)[:, None]
    return waypoints[k] + f * (waypoints[k + 1] - waypoints[k])


def test_world_basics(panda_cell: robots.CollisionWorld, panda: robots.RobotModel) -> None:
    w = panda_cell
    assert w.num_positions == 8
    assert w.robot.num_positions == 8
    # The attached part's piece is a collision shape of the queried model.
    assert len(w.model.collision_shapes) == len(panda.collision_shapes) + 1
    assert w.model.collision_shapes[-1].attached_object == "part"
    assert [a.name for a in w.attached] == ["part"]
    assert "table" in w.obstacle_names and len(w.obstacles) == len(w.obstacle_names)
    assert w.part_name(len(w.model.collision_shapes) - 1) == "part"
    assert len(w.self_pairs) > 0
    assert w.allowed_collisions.allowed("panda_link0", "panda_link1")
    table = w.obstacle_names.index("table")
    link0_shape = next(i for i, c in enumerate(w.model.collision_shapes) if c.link == 0)
    assert isinstance(w.checked(link0_shape, table), bool)
    with pytest.raises(ValueError, match="out of range"):
        w.checked(999, 0)
    assert "CollisionWorld('panda'" in repr(w)


def test_queries(panda_cell: robots.CollisionWorld) -> None:
    q = PANDA_READY
    c = panda_cell.closest(q)
    assert c is not None and c.gradient.shape == (8,)
    assert c.name_a and c.name_b and c.label_a.startswith(c.name_a)
    assert np.isclose(np.linalg.norm(c.normal), 1.0)
    assert not panda_cell.in_collision(q)
    assert panda_cell.in_collision(q, margin=c.distance + 1e-6)
    assert not panda_cell.in_collision(q, margin=c.distance - 1e-6)
    assert panda_cell.closest(q, gradient=False).gradient is None
    assert panda_cell.closest(q, cutoff=c.distance / 2) is None
    pairs = panda_cell.distances(q)
    assert min(p.distance for p in pairs) == c.distance or c.self_pair
    with_self = panda_cell.distances(q, self_pairs=True)
    assert len(with_self) > len(pairs) and any(p.self_pair for p in with_self)
    arrays = panda_cell.distances(q, self_pairs=True, as_arrays=True)
    assert arrays["distance"].shape == (len(with_self),)
    assert arrays["gradient"].shape == (len(with_self), 8)
    assert arrays["point_a"].shape == (len(with_self), 3)
    assert np.array_equal(arrays["distance"], [p.distance for p in with_self])
    assert list(arrays["self"]) == [p.self_pair for p in with_self]
    assert arrays["name_b"] == [p.name_b for p in with_self]
    assert "gradient" not in panda_cell.distances(q, gradients=False, as_arrays=True)


def test_closest_gradient_matches_finite_differences(panda_cell: robots.CollisionWorld) -> None:
    q = PANDA_READY.copy()
    c = panda_cell.closest(q)
    h = 1e-6
    for i in range(7):
        dq = np.zeros(8)
        dq[i] = h
        d = []
        for s in (1, -1):
            pairs = panda_cell.distances(q + s * dq, self_pairs=True, gradients=False)
            d.append(next(p.distance for p in pairs
                          if (p.shape, p.obstacle, p.self_pair) == (c.shape, c.obstacle, c.self_pair)))
        assert c.gradient[i] == pytest.approx((d[0] - d[1]) / (2 * h), abs=2e-6)


def test_world_errors(panda_cell: robots.CollisionWorld) -> None:
    with pytest.raises(ValueError, match=r"q: expected an array of shape \(8,\)"):
        panda_cell.closest(np.zeros(7))
    with pytest.raises(ValueError, match="not finite"):
        panda_cell.in_collision(np.full(8, np.nan))
    q = PANDA_READY.copy()
    q[3] = 1.0
    with pytest.raises(robots.ModelError, match="panda_joint4"):
        panda_cell.closest(q)
    with pytest.raises(ValueError, match="margin"):
        panda_cell.in_collision(PANDA_READY, margin=np.nan)
    # Non-contiguous and integer-valued inputs are copied, not misread.
    strided = np.zeros(16)
    strided[::2] = PANDA_READY
    assert panda_cell.closest(strided[::2]).distance == panda_cell.closest(PANDA_READY).distance


def test_edits(panda: robots.RobotModel) -> None:
    world = robots.CollisionWorld(panda)
    assert world.obstacle_names == []
    assert world.closest(PANDA_READY) is not None  # self pairs only
    ball = libgjk.Sphere(0.1)
    world.add_obstacle("ball", ball, libgjk.pose([0.6, 0.0, 0.5]))
    context = robots.WorldContext(world)
    far = context.closest(PANDA_READY)
    assert world.obstacle_names == ["ball"]
    with pytest.raises(ValueError, match="already used"):
        world.add_obstacle("ball", ball)
    with pytest.raises(ValueError, match="expected a Shape, TriangleMesh or BoxSet"):
        world.add_obstacle("thing", 3.0)
    hand = (panda.link_poses(PANDA_READY)["panda_hand"])[:3, 3]
    world.move_obstacle("ball", libgjk.pose(hand + [0.0, 0.0, 0.3]))
    # A move keeps the context (no q needed: its last update stands) and it sees the new pose.
    near = context.closest(None)
    assert near.name_b == "ball" and near.distance < far.distance
    placed = robots.CollisionWorld(panda)
    placed.add_obstacle("ball", ball, libgjk.pose(hand + [0.0, 0.0, 0.3]))
    assert near.distance == pytest.approx(placed.closest(PANDA_READY).distance, abs=1e-12)
    assert world.in_collision(PANDA_READY, margin=near.distance + 1e-9)
    nan_pose = libgjk.pose(hand)
    nan_pose[0, 3] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        world.move_obstacle("ball", nan_pose)
    mesh = libgjk.TriangleMesh.from_triangles(
        [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]]
    )
    world.add_obstacle("tri", mesh, libgjk.pose([2, 2, 2]))
    assert [o.kind for o in world.obstacles] == ["convex", "mesh"]
    # Adding and removing obstacles keep the context: its last update stands.
    assert context.closest(None).distance == pytest.approx(near.distance, abs=1e-12)
    cells = libgjk.BoxSet.from_boxes([[0, 0, 0]], [[0.05, 0.05, 0.05]])
    world.add_obstacle("cells", cells, libgjk.pose([-2, 0, 0]))
    assert world.obstacles[2].kind == "cells"
    world.remove_obstacle("tri")
    assert world.obstacle_names == ["ball", "cells"]
    assert context.closest(None).distance == pytest.approx(near.distance, abs=1e-12)
    world.remove_obstacle("cells")
    with pytest.raises(ValueError, match="no obstacle named 'tri'"):
        world.remove_obstacle("tri")
    # Grasp the ball with the hand, then put it back. The context follows the robot's new
    # shapes: without a new configuration it answers at its last one, holding the ball.
    world.attach_obstacle("ball", "panda_hand", PANDA_READY, ["panda_hand"])
    assert world.obstacle_names == [] and [a.name for a in world.attached] == ["ball"]
    holding = robots.WorldContext(world)
    assert len(context.shape_poses()) == len(world.model.collision_shapes)
    assert context.closest(None).distance == pytest.approx(
        holding.closest(PANDA_READY).distance, abs=1e-12)
    assert np.allclose(context.shape_poses()[-1], holding.shape_poses()[-1], atol=1e-12)
    # A context never given a configuration refuses q=None, every time.
    idle = robots.WorldContext(world)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="update"):
            idle.closest(None)
    q2 = PANDA_READY.copy()
    q2[0] = 0.5
    world.detach("ball", q2)
    assert world.obstacle_names == ["ball"]
    moved = world.obstacles[0].pose[:3, 3]
    assert np.allclose(moved, panda.link_poses(q2)["panda_hand"][:3, :3] @
                       (panda.link_poses(PANDA_READY)["panda_hand"][:3, :3].T @
                        (hand + [0, 0, 0.3] - hand)) + panda.link_poses(q2)["panda_hand"][:3, 3])
    # Released, the ball is an obstacle again; the context still answers at its last q.
    assert context.closest(None).distance == pytest.approx(
        robots.WorldContext(world).closest(PANDA_READY).distance, abs=1e-12)
    with pytest.raises(ValueError, match="no attached object named 'ball'"):
        world.detach("ball", q2)
    part = robots.AttachedObject("tool", "panda_hand", [libgjk.Box([0.01, 0.01, 0.05])],
                                 [libgjk.pose([0, 0, 0.1])], ["panda_hand", "panda_leftfinger",
                                                               "panda_rightfinger"])
    world.attach(part)
    assert world.model.collision_shapes[-1].attached_object == "tool"
    with pytest.raises(robots.ModelError):
        world.attach(robots.AttachedObject("x", "no_link", [libgjk.Sphere(0.1)]))
    # An exact mesh piece: its hull is the bound, its triangles are what the queries use.
    vertices = np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]], dtype=float)
    tetra = libgjk.TriangleMesh.from_triangles(vertices, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    held = robots.AttachedObject("held_mesh", "panda_hand", [tetra, libgjk.Sphere(0.01)],
                                 [libgjk.pose([0, 0, 0.2]), libgjk.pose([0, 0, 0.3])])
    assert held.meshes[0] is not None and held.meshes[1] is None
    assert np.array_equal(held.meshes[0].vertices, vertices)
    world.attach(held)
    assert world.model.collision_shapes[-2].mesh is not None
    assert world.model.collision_shapes[-2].description == "attached held_mesh (mesh, 4 triangles)"
    with pytest.raises(TypeError, match=r"shapes\[0\] is a <class 'str'>"):
        robots.AttachedObject("bad", "panda_hand", ["box"])
    with pytest.raises(ValueError, match="1 shapes but 2 poses"):
        robots.AttachedObject("bad", "panda_hand", [tetra], [np.eye(4), np.eye(4)])
    acm = world.allowed_collisions
    acm.set_default("ball", True)
    world.set_allowed_collisions(acm)
    assert world.closest(PANDA_READY).name_b != "ball"
    # A fresh context needs a q before a query without one.
    with pytest.raises(RuntimeError, match="update"):
        robots.WorldContext(world).closest(None)


def test_context_update_then_query(panda_cell: robots.CollisionWorld) -> None:
    context = robots.WorldContext(panda_cell)
    context.update(PANDA_READY)
    assert context.closest(None).distance == panda_cell.closest(PANDA_READY).distance
    poses = context.shape_poses()
    assert len(poses) == len(panda_cell.model.collision_shapes) and poses[0].shape == (4, 4)
    assert context.world is not None


def test_threads_query_contexts_at_once(panda_cell: robots.CollisionWorld) -> None:
    path = panda_path(64)
    want = [robots.WorldContext(panda_cell).closest(q, gradient=False).distance for q in path]
    results: dict[int, list[float]] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            context = robots.WorldContext(panda_cell)
            # Cold start per state (a new context) gives the same bits as `want`.
            results[k] = [robots.WorldContext(panda_cell).closest(q, gradient=False).distance
                          for q in path]
            for q in path:
                assert context.in_collision(q) == (context.closest(q).distance < 0)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(4):
        assert results[k] == want
    # The world's own context is shared and locked: concurrent calls stay correct.
    shared: list[float] = []
    lock = threading.Lock()

    def shared_work() -> None:
        for q in path[:16]:
            d = panda_cell.closest(q).distance
            with lock:
                shared.append(d)

    threads = [threading.Thread(target=shared_work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(shared) == 48


def test_clearance_along_matches_gjk_clearance(panda_cell: robots.CollisionWorld,
                                               tmp_path: "os.PathLike[str]") -> None:
    program = os.environ.get("GJK_CLEARANCE", "")
    assert program and os.path.exists(program), "GJK_CLEARANCE must name gjk-clearance (ctest)"
    path = panda_path(300)
    path_file = os.path.join(tmp_path, "path.csv")
    with open(path_file, "w") as f:
        f.write(",".join(panda_cell.model.position_names) + "\n")
        for q in path:
            f.write(",".join(repr(float(v)) for v in q) + "\n")
    states_file = os.path.join(tmp_path, "states.csv")
    subprocess.run(
        [program, "--urdf", PANDA_URDF, "--scene", PANDA_CELL, "--srdf", PANDA_SRDF,
         "--path", path_file, "--states-out", states_file, "--threads", "2"],
        check=True, capture_output=True,
    )
    with open(states_file) as f:
        rows = list(csv.DictReader(f))
    got = robots.clearance_along(panda_cell, path)
    assert len(rows) == len(path) == got["distance"].shape[0]
    assert got["pair"].shape == (len(path), 2) and got["normal"].shape == (len(path), 3)
    names = panda_cell.obstacle_names
    for i, row in enumerate(rows):
        assert float(row["distance"]) == got["distance"][i]  # bit-identical
        assert row["shape"] == got["shape_label"][i]
        assert row["obstacle"] == got["obstacle"][i] == names[got["pair"][i, 1]]
        assert [float(row["link_" + a]) for a in "xyz"] == list(got["point_on_link"][i])
        assert [float(row["obstacle_" + a]) for a in "xyz"] == list(got["point_on_obstacle"][i])
        assert [float(row["normal_" + a]) for a in "xyz"] == list(got["normal"][i])
        assert int(row["pairs"]) == got["pairs"][i]
    assert got["minimum"] == got["distance"].min()
    assert got["distance"][got["minimum_state"]] == got["minimum"]
    # Deterministic for any thread count.
    assert np.array_equal(robots.clearance_along(panda_cell, path, threads=2)["distance"],
                          got["distance"])


def test_clearance_along_errors(panda_cell: robots.CollisionWorld) -> None:
    with pytest.raises(ValueError, match=r"path: expected an array of shape \(M, 8\)"):
        robots.clearance_along(panda_cell, np.zeros((3, 7)))
    bad = panda_path(4)
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="row 2, column 1 is not finite"):
        robots.clearance_along(panda_cell, bad)
    outside = panda_path(4)
    outside[1, 3] = 1.0
    with pytest.raises(robots.ModelError, match="panda_joint4"):
        robots.clearance_along(panda_cell, outside)
    with pytest.raises(ValueError, match="threads"):
        robots.clearance_along(panda_cell, panda_path(4), threads=0)
    empty = robots.clearance_along(panda_cell, np.zeros((0, 8)))
    assert empty["distance"].shape == (0,) and empty["minimum"] == np.inf
    far = robots.clearance_along(panda_cell, panda_path(4), cutoff=1e-9)
    none = np.isinf(far["distance"])  # nothing within the cutoff (state 2 is in collision)
    assert none.sum() == 3 and far["distance"][~none][0] < 0
    assert np.all(far["pair"][none] == -1) and np.all(np.isnan(far["normal"][none]))
    assert [far["shape_label"][i] for i in np.flatnonzero(none)] == [None] * 3


def test_read_path(panda: robots.RobotModel, tmp_path: "os.PathLike[str]") -> None:
    path = panda_path(5)
    file = os.path.join(tmp_path, "path.csv")
    with open(file, "w") as f:
        f.write("t," + ",".join(panda.position_names[:7]) + "\n")
        for i, q in enumerate(path):
            f.write(f"{i * 0.5}," + ",".join(repr(float(v)) for v in q[:7]) + "\n")
        f.write("9,1,2,abc,4,5,6,7\n")  # a bad row: reported, left out
    read = robots.read_path(file, panda, {"panda_finger_joint1": 0.01})
    assert read["q"].shape == (5, 8) and read["has_time"]
    assert np.array_equal(read["q"][:, :7], path[:, :7])
    assert np.all(read["q"][:, 7] == 0.01)
    assert np.array_equal(read["time"], np.arange(5) * 0.5)
    assert list(read["line"]) == [2, 3, 4, 5, 6]
    assert len(read["errors"]) == 1 and read["errors"][0][0] == 7
    with pytest.raises(robots.PathError, match="panda_finger_joint1"):
        robots.read_path(file, panda)  # the finger has no column and is not fixed
    with pytest.raises(robots.PathError, match="no_joint"):
        robots.read_path(file, panda, {"no_joint": 0.0})
    with pytest.raises(FileNotFoundError):
        robots.read_path(os.path.join(tmp_path, "missing.csv"), panda)


def test_clearance_along_layouts(panda_cell: robots.CollisionWorld) -> None:
    path = panda_path(40)
    want = robots.clearance_along(panda_cell, path)["distance"]
    wide = np.zeros((40, 16))
    wide[:, ::2] = path  # a strided view: copied, not misread
    for other in (np.asfortranarray(path), wide[:, ::2], path.tolist(), path.astype(">f8")):
        assert np.array_equal(robots.clearance_along(panda_cell, other)["distance"], want)
    with pytest.raises(ValueError, match="numeric"):
        robots.clearance_along(panda_cell, path.astype(complex))
    with pytest.raises(ValueError, match=r"\(M, 8\)"):
        robots.clearance_along(panda_cell, path[0])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(st.lists(st.floats(0.05, 0.95), min_size=8, max_size=8))
def test_closest_is_the_minimum_of_all_pairs(panda_cell: robots.CollisionWorld,
                                             fractions: list[float]) -> None:
    """Property: closest() (pruned by the broadphase and threshold queries) is the minimum of
    every checked pair, robot-obstacle and self, that distances() lists, for any q."""
    lo, hi = panda_cell.model.lower_limits, panda_cell.model.upper_limits
    q = lo + (hi - lo) * np.array(fractions)
    c = panda_cell.closest(q, gradient=False)
    everything = panda_cell.distances(q, self_pairs=True, gradients=False)
    # Equal up to rounding: closest() reaches its pair through threshold queries and distances()
    # by a full query from the start, so the two GJK runs end on different simplices of the same
    # feature and may differ in the last digits (6e-18 at a 3.4e-4 m gap, against the engine's
    # absolute accuracy of a few 1e-15 for metre-sized shapes).
    assert c is not None
    assert c.distance == pytest.approx(min(p.distance for p in everything), rel=0.0, abs=1e-14)
    assert panda_cell.in_collision(q) == (c.distance < 0)


def test_along_calls_equal_the_single_calls(panda_cell: robots.CollisionWorld) -> None:
    path = panda_path(30)
    context = robots.WorldContext(panda_cell)
    single = [context.closest(q, gradient=True) for q in path]
    along = robots.WorldContext(panda_cell).closest_along(path, gradient=True)
    assert np.array_equal(along["distance"], [c.distance for c in single])  # same warm starts
    assert np.array_equal(along["gradient"], np.stack([c.gradient for c in single]))
    assert np.array_equal(along["point_a"], np.stack([c.point_a for c in single]))
    assert along["name_b"] == [c.name_b for c in single]
    assert "gradient" not in panda_cell.closest_along(path)
    flags = panda_cell.in_collision_along(path, margin=0.02)
    assert flags.dtype == np.bool_ and flags.shape == (30,)
    assert list(flags) == [panda_cell.in_collision(q, margin=0.02) for q in path]
    assert list(robots.WorldContext(panda_cell).in_collision_along(path)) == \
        [c.distance < 0 for c in single]
    none = panda_cell.closest_along(path, cutoff=1e-9)
    free = none["shape"] == -1
    assert free.any() and np.all(np.isinf(none["distance"][free]))
    with pytest.raises(ValueError, match=r"\(M, 8\)"):
        panda_cell.closest_along(path[:, :7])
    bad = path.copy()
    bad[3, 3] = 1.0
    with pytest.raises(robots.ModelError, match="panda_joint4"):
        panda_cell.in_collision_along(bad)


def test_base_pose_moves_the_robot_like_the_inverse_moves_the_obstacles(
    panda: robots.RobotModel,
) -> None:
    """A robot at T among obstacles equals the robot at the origin among obstacles moved by T^-1."""
    base = libgjk.pose_rpy([0.4, -0.2, 0.1], [0.0, 0.0, 0.7])
    ball_pose = libgjk.pose([0.8, 0.3, 0.6])
    moved_robot = robots.CollisionWorld(panda)
    moved_robot.add_obstacle("ball", libgjk.Sphere(0.1), ball_pose)
    moved_robot.set_base_pose(base)
    assert np.array_equal(moved_robot.base_pose, base)
    moved_ball = robots.CollisionWorld(panda)
    moved_ball.add_obstacle("ball", libgjk.Sphere(0.1), np.linalg.inv(base) @ ball_pose)
    a = moved_robot.distances(PANDA_READY, as_arrays=True)
    b = moved_ball.distances(PANDA_READY, as_arrays=True)
    assert np.allclose(a["distance"], b["distance"], atol=1e-9)
    # The model's own base pose: forward kinematics starts from it.
    placed = robots.RobotModel.from_urdf(PANDA_URDF)
    placed.base_pose = base
    assert np.allclose(
        placed.forward_kinematics(PANDA_READY), base @ panda.forward_kinematics(PANDA_READY)
    )
    bad = np.eye(4)
    bad[0, 0] = 2.0
    with pytest.raises(ValueError, match="not a rotation"):
        placed.base_pose = bad
    with pytest.raises(ValueError):
        moved_robot.set_base_pose(np.full((4, 4), np.nan))


def test_srdf_virtual_joints(panda: robots.RobotModel) -> None:
    srdf = robots.parse_srdf(
        '<robot name="panda"><virtual_joint name="v" type="planar" parent_frame="world"'
        ' child_link="panda_link0"/><group name="arm"><joint name="panda_joint1"/></group>'
        '<group_state name="parked" group="arm"><joint name="v" value="1 2 0.5"/>'
        '<joint name="panda_joint1" value="0.1"/></group_state></robot>',
        panda,
    )
    pose = robots.named_base_pose(panda, srdf, "parked")
    assert pose is not None
    assert np.allclose(pose, libgjk.pose_rpy([1, 2, 0], [0, 0, 0.5]), atol=1e-15)
    robots.check_base_pose(panda, srdf, pose)
    with pytest.raises(ValueError, match="is planar"):
        robots.check_base_pose(panda, srdf, libgjk.pose([0, 0, 1]))
    moveit = robots.load_srdf(PANDA_SRDF, panda)
    assert robots.named_base_pose(panda, moveit, "ready") is None


def test_exact_link_meshes_are_never_nearer_than_their_hulls() -> None:
    """meshes='mesh' keeps the UR5's non-convex links as triangles: each link lies inside its
    hull, so no pair is nearer (or deeper) than with hulls, and some are clearly farther."""
    urdf = os.path.join(ROBOT_MODELS_DIR, "ur5", "ur5.urdf")
    mesh_model = robots.RobotModel.from_urdf(urdf, meshes="mesh")
    hull_model = robots.RobotModel.from_urdf(urdf)
    element = mesh_model.collision_shapes[2]
    assert element.mesh is not None and element.mesh.triangles.shape[1] == 3
    assert element.description.endswith(" triangles")
    assert hull_model.collision_shapes[2].mesh is None
    scene = robots.load_scene(os.path.join(SCENES_DIR, "panda_boxes.yaml"))
    exact = robots.CollisionWorld(mesh_model, scene)
    hulls = robots.CollisionWorld(hull_model, scene)
    rng = np.random.default_rng(5)
    lo, hi = mesh_model.lower_limits, mesh_model.upper_limits
    farther = 0
    for _ in range(25):
        q = rng.uniform(np.maximum(lo, -3.0), np.minimum(hi, 3.0))
        c = exact.closest(q, gradient=False)
        h = hulls.closest(q, gradient=False)
        assert c is not None and h is not None
        assert c.distance >= h.distance - 1e-12
        everything = exact.distances(q, self_pairs=True, gradients=False)
        assert c.distance == min(p.distance for p in everything)
        farther += c.distance > h.distance + 1e-3
    assert farther > 0
