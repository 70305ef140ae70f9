"""libgjk.robots: models, kinematics, Jacobians, scenes, distances, SRDF and the ACM."""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

import libgjk
from libgjk import robots

from conftest import FOUR_DOF_URDF, PANDA_READY, PANDA_SRDF, PANDA_URDF, SCENES_DIR

TWO_PYRAMIDS = os.path.join(SCENES_DIR, "two_pyramids.yaml")
PANDA_CELL = os.path.join(SCENES_DIR, "panda_cell.yaml")
SEED_Q = np.radians([0.0, 90.0, -150.0, -30.0])  # the seed 002 initial pose of the 4-DOF arm


# ---- model -----------------------------------------------------------------------------------


def test_panda_model(panda: robots.RobotModel) -> None:
    assert panda.name == "panda"
    assert panda.num_positions == 8  # 7 arm joints + one finger (the other mimics it)
    assert panda.position_names[:7] == ["panda_joint%d" % i for i in range(1, 8)]
    assert panda.position_names[7] == "panda_finger_joint1"
    lower, upper = panda.lower_limits, panda.upper_limits
    assert lower.shape == upper.shape == (8,) and lower.dtype == np.float64
    assert np.all(lower < upper)
    assert lower[3] == pytest.approx(-3.0718) and upper[3] == pytest.approx(-0.0698)
    assert len(panda.links) == len(panda.link_names) == 13
    assert panda.link_names[0] == "panda_link0"
    joints = {j.name: j for j in panda.joints}
    assert joints["panda_joint1"].type == "revolute"
    assert joints["panda_finger_joint2"].is_mimic
    assert joints["panda_joint1"].q_index == 0
    assert joints["panda_joint1"].origin.shape == (4, 4)
    assert np.allclose(joints["panda_joint1"].axis, [0, 0, 1])
    assert panda.link_index("panda_hand") == panda.link_names.index("panda_hand")
    assert panda.joint_names[panda.joint_index("panda_joint4")] == "panda_joint4"
    shapes = panda.collision_shapes
    assert len(shapes) > 0
    for c in shapes:
        assert isinstance(c.shape, libgjk.Shape)
        assert c.origin.shape == (4, 4)
        assert 0 <= c.link < 13 and c.attached_object == ""
    assert panda.shape_label(0).endswith("#0")
    with pytest.raises(ValueError, match="out of range"):
        panda.shape_label(len(shapes))
    assert "RobotModel('panda'" in repr(panda)


def test_link_mesh_representation() -> None:
    hull = robots.RobotModel.from_urdf(FOUR_DOF_URDF, meshes="hull")
    pieces = robots.RobotModel.from_urdf(FOUR_DOF_URDF, meshes="pieces")
    assert len(pieces.collision_shapes) >= len(hull.collision_shapes)
    per_link = robots.RobotModel.from_urdf(FOUR_DOF_URDF, link_meshes={"link1": "pieces"})
    assert len(per_link.collision_shapes) >= len(hull.collision_shapes)
    with pytest.raises(ValueError, match="expected 'hull', 'pieces' or 'mesh'"):
        robots.RobotModel.from_urdf(FOUR_DOF_URDF, meshes="convex")
    with pytest.raises(robots.ModelError, match="no_such_link"):
        robots.RobotModel.from_urdf(FOUR_DOF_URDF, link_meshes={"no_such_link": "hull"})


def test_paths_may_be_pathlib(panda: robots.RobotModel) -> None:
    import pathlib

    assert robots.RobotModel.from_urdf(pathlib.Path(FOUR_DOF_URDF)).num_positions == 4
    assert len(robots.load_scene(pathlib.Path(TWO_PYRAMIDS))) == 2
    assert robots.load_srdf(pathlib.Path(PANDA_SRDF), panda).robot_name == "panda"


def test_missing_files_raise_file_not_found(panda: robots.RobotModel) -> None:
    with pytest.raises(FileNotFoundError) as e:
        robots.RobotModel.from_urdf("/no/such/robot.urdf")
    assert e.value.filename == "/no/such/robot.urdf"
    with pytest.raises(FileNotFoundError, match="scene file not found"):
        robots.load_scene("/no/such/scene.yaml")
    with pytest.raises(FileNotFoundError, match="SRDF file not found"):
        robots.load_srdf("/no/such/robot.srdf", panda)


def test_bad_urdf_is_model_error() -> None:
    with pytest.raises(robots.ModelError) as e:
        robots.RobotModel.from_urdf_string("<robot name='x'><link name='a'/>", name="bad.urdf")
    assert isinstance(e.value, ValueError)
    assert "bad.urdf" in str(e.value)


SMALL_URDF = """<robot name="two_link">
  <link name="base"/>
  <link name="upper"><collision><geometry><box size="0.1 0.1 1"/></geometry>
    <origin xyz="0 0 0.5"/></collision></link>
  <link name="lower"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="prismatic"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 1"/><axis xyz="0 0 1"/><limit lower="0" upper="0.5" effort="1" velocity="1"/>
  </joint>
</robot>"""


def test_from_urdf_string_primitives() -> None:
    m = robots.RobotModel.from_urdf_string(SMALL_URDF)
    assert m.name == "two_link" and m.num_positions == 2
    assert m.position_names == ["shoulder", "elbow"]
    assert np.array_equal(m.lower_limits, [-3, 0]) and np.array_equal(m.upper_limits, [3, 0.5])
    kinds = [c.shape.kind for c in m.collision_shapes]
    assert kinds == ["box", "sphere"]
    assert np.allclose(m.collision_shapes[0].shape.half_extents, [0.05, 0.05, 0.5])
    assert np.allclose(m.collision_shapes[0].origin[:3, 3], [0, 0, 0.5])
    # Hand-computed: rotate by a about +y, then slide 1 + s along the rotated z axis.
    a, s = 0.7, 0.2
    poses = m.forward_kinematics([a, s])
    tip = (1 + s) * np.array([np.sin(a), 0.0, np.cos(a)])
    assert np.allclose(poses[2][:3, 3], tip, atol=1e-15, rtol=0)


def test_forward_kinematics_by_hand(four_dof: robots.RobotModel) -> None:
    """The 4-DOF arm (links 2, 1, 0.6, 0.4; yaw then three pitches about +x) at a general q."""
    q = np.array([0.3, 1.1, -2.0, 0.4])
    a2, a3, a4 = q[1], q[1] + q[2], q[1] + q[2] + q[3]
    # Pitch by a about +x takes +z to (0, -sin a, cos a); the yaw q1 then turns about +z.
    y = -(np.sin(a2) + 0.6 * np.sin(a3) + 0.4 * np.sin(a4))
    z = 2.0 + np.cos(a2) + 0.6 * np.cos(a3) + 0.4 * np.cos(a4)
    want = np.array([-y * np.sin(q[0]), y * np.cos(q[0]), z])
    poses = four_dof.link_poses(q)
    assert np.allclose(poses["end_effector"][:3, 3], want, atol=1e-14, rtol=0)
    rot = poses["end_effector"][:3, :3]
    c1, s1, ca, sa = np.cos(q[0]), np.sin(q[0]), np.cos(a4), np.sin(a4)
    rz = np.array([[c1, -s1, 0], [s1, c1, 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, ca, -sa], [0, sa, ca]])
    assert np.allclose(rot, rz @ rx, atol=1e-14, rtol=0)
    # The seed's "destination" from its initial pose (robots/models/four_dof header).
    ee = four_dof.link_poses(SEED_Q)["end_effector"][:3, 3]
    assert np.allclose(ee, [0.0, -0.0804, 2.3], atol=1e-4)
    stacked = four_dof.forward_kinematics(q)
    assert stacked.shape == (len(four_dof.links), 4, 4)
    for name, pose in poses.items():
        assert np.array_equal(stacked[four_dof.link_index(name)], pose)
    assert np.array_equal(stacked[0], np.eye(4))
    qs = np.stack([q, SEED_Q, np.zeros(4)])
    batch = four_dof.forward_kinematics_batch(qs)
    assert batch.shape == (3, len(four_dof.links), 4, 4)
    for k in range(3):
        assert np.array_equal(batch[k], four_dof.forward_kinematics(qs[k]))
    with pytest.raises(ValueError, match=r"qs: expected an array of shape \(M, 4\)"):
        four_dof.forward_kinematics_batch(q)
    cp = four_dof.collision_poses(q)
    assert cp.shape == (len(four_dof.collision_shapes), 4, 4)


@pytest.mark.parametrize(
    "q, message",
    [
        (np.zeros(3), r"q: expected an array of shape \(4,\), got shape \(3,\)"),
        (np.zeros((1, 4)), r"got shape \(1, 4\)"),
        (np.array([0.0, np.nan, 0.0, 0.0]), "entry 1 is not finite"),
        (np.array([0.0, np.inf, 0.0, 0.0]), "not finite"),
        (np.array(["a", "b", "c", "d"]), "expected a numeric array"),
        (None, "q"),
        ("q", "q"),
    ],
)
def test_bad_joint_vectors(four_dof: robots.RobotModel, q: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        four_dof.forward_kinematics(q)


def test_joint_vector_layouts(four_dof: robots.RobotModel) -> None:
    q = np.array([0.3, 1.1, -2.0, 0.4])
    want = four_dof.forward_kinematics(q)
    strided = np.zeros(8)
    strided[::2] = q
    for other in (q.tolist(), strided[::2], q[::-1][::-1], np.asfortranarray(q), q.astype(">f8")):
        assert np.array_equal(four_dof.forward_kinematics(other), want)
    assert np.array_equal(four_dof.forward_kinematics([0, 1, -2, 0]),
                          four_dof.forward_kinematics(np.array([0.0, 1.0, -2.0, 0.0])))


def test_outside_limits_is_model_error(panda: robots.RobotModel) -> None:
    q = PANDA_READY.copy()
    q[3] = 0.5  # joint 4 must stay below -0.0698
    with pytest.raises(robots.ModelError, match="panda_joint4"):
        panda.forward_kinematics(q)
    with pytest.raises(robots.ModelError):
        panda.check_configuration(q)
    panda.check_configuration(PANDA_READY)


def numeric_pose(model: robots.RobotModel, q: np.ndarray, link: int) -> np.ndarray:
    return model.forward_kinematics(q)[link]


def test_point_jacobian_matches_finite_differences(panda: robots.RobotModel) -> None:
    q = PANDA_READY.copy()
    link = panda.link_index("panda_hand")
    local = np.array([0.03, -0.02, 0.1, 1.0])
    pose = numeric_pose(panda, q, link)
    point = (pose @ local)[:3]
    jac = panda.point_jacobian(q, "panda_hand", point)
    assert jac.shape == (6, 8)
    assert np.array_equal(jac, panda.point_jacobian(q, link, point))
    h = 1e-6
    for i in range(8):
        dq = np.zeros(8)
        dq[i] = h
        plus, minus = numeric_pose(panda, q + dq, link), numeric_pose(panda, q - dq, link)
        linear = ((plus @ local)[:3] - (minus @ local)[:3]) / (2 * h)
        assert np.allclose(jac[:3, i], linear, atol=1e-8), i
        # Angular velocity: the axial vector of dR/dq R^T.
        w = (plus[:3, :3] - minus[:3, :3]) / (2 * h) @ pose[:3, :3].T
        assert np.allclose(jac[3:, i], [w[2, 1], w[0, 2], w[1, 0]], atol=1e-8), i
    with pytest.raises(robots.ModelError):
        panda.point_jacobian(q, "no_such_link", point)
    with pytest.raises(ValueError, match="out of range"):
        panda.point_jacobian(q, 99, point)
    with pytest.raises(ValueError, match="point"):
        panda.point_jacobian(q, link, [0.0, np.nan, 0.0])


# ---- scenes ----------------------------------------------------------------------------------


def test_load_scenes() -> None:
    pyramids = robots.load_scene(TWO_PYRAMIDS)
    assert len(pyramids) == 2 and len(pyramids.obstacles) == 2
    for o in pyramids.obstacles:
        assert o.kind == "convex" and isinstance(o.shape, libgjk.Shape)
        assert o.pose.shape == (4, 4) and o.mesh is None and o.cells is None
    cell = robots.load_scene(PANDA_CELL)
    kinds = {o.object: o.kind for o in cell.obstacles}
    assert kinds == {"table": "convex", "shelf": "mesh", "parts_bin": "cells", "wall": "convex"}
    shelf = next(o for o in cell.obstacles if o.object == "shelf")
    assert isinstance(shelf.mesh, libgjk.TriangleMesh) and shelf.shape is None
    assert np.allclose(shelf.pose[:3, 3], [0.5, 0.0, -0.01])
    assert isinstance(next(o for o in cell.obstacles if o.kind == "cells").cells, libgjk.BoxSet)
    assert [a.name for a in cell.attached] == ["part"]
    assert cell.attached[0].link == "panda_hand" and len(cell.attached[0].poses) == 1
    assert "panda_leftfinger" in cell.attached[0].touch_links


def test_parse_scene_and_errors() -> None:
    s = robots.parse_scene(
        "obstacles:\n  - name: ball\n    type: sphere\n    radius: 0.25\n"
        "    position: [1, 2, 3]\n",
        "inline.yaml",
    )
    assert s.obstacle_names == ["ball"]
    assert s.obstacles[0].shape.radius == 0.25
    assert np.array_equal(s.obstacles[0].pose[:3, 3], [1, 2, 3])
    with pytest.raises(robots.SceneError, match="inline.yaml:4") as e:
        robots.parse_scene(
            "obstacles:\n  - name: ball\n    type: sphere\n    radius: -1\n", "inline.yaml"
        )
    assert isinstance(e.value, ValueError)
    assert len(robots.Scene()) == 0


# ---- distances -------------------------------------------------------------------------------


def test_robot_scene_distances(four_dof: robots.RobotModel) -> None:
    scene = robots.load_scene(TWO_PYRAMIDS)
    pairs = robots.robot_scene_distances(four_dof, scene, SEED_Q)
    assert len(pairs) == len(four_dof.collision_shapes) * 2
    for p in pairs:
        assert not p.self_pair and p.gradient.shape == (4,)
        assert p.name_b in scene.obstacle_names
        assert p.name_a == four_dof.link_names[four_dof.collision_shapes[p.shape].link]
        assert p.status == libgjk.Status.Converged
        assert np.isclose(np.linalg.norm(p.normal), 1.0)
        assert np.isclose(np.linalg.norm(p.point_b - p.point_a), abs(p.distance))
    best = min(pairs, key=lambda p: p.distance)
    m = robots.minimum_distance(four_dof, scene, SEED_Q)
    assert m is not None and m.distance == best.distance
    assert (m.shape, m.obstacle) == (best.shape, best.obstacle)
    assert np.array_equal(m.gradient, best.gradient)
    near = robots.robot_scene_distances(four_dof, scene, SEED_Q, cutoff=best.distance + 1e-3)
    assert 1 <= len(near) < len(pairs)
    assert robots.minimum_distance(four_dof, scene, SEED_Q, cutoff=best.distance / 2) is None
    assert robots.robot_scene_distances(four_dof, scene, SEED_Q, gradients=False)[0].gradient is None
    with pytest.raises(ValueError, match="cutoff"):
        robots.robot_scene_distances(four_dof, scene, SEED_Q, cutoff=np.nan)


def test_distance_gradient_matches_finite_differences(four_dof: robots.RobotModel) -> None:
    scene = robots.load_scene(TWO_PYRAMIDS)
    q = SEED_Q + np.array([0.1, -0.05, 0.08, 0.02])
    pairs = robots.robot_scene_distances(four_dof, scene, q)
    h = 1e-6
    for p in pairs:
        for i in range(4):
            dq = np.zeros(4)
            dq[i] = h
            d = [
                next(
                    x.distance
                    for x in robots.robot_scene_distances(four_dof, scene, q + s * dq)
                    if (x.shape, x.obstacle) == (p.shape, p.obstacle)
                )
                for s in (1, -1)
            ]
            assert p.gradient[i] == pytest.approx((d[0] - d[1]) / (2 * h), abs=2e-6)


def test_self_distances(panda: robots.RobotModel) -> None:
    pairs = robots.self_collision_pairs(panda)
    assert len(pairs) > 0 and all(a < b for a, b in pairs)
    all_links = robots.self_collision_pairs(panda, exclude_adjacent=False)
    assert len(all_links) > len(pairs)
    fewer = robots.self_collision_pairs(panda, [("panda_link0", "panda_link6")])
    assert len(fewer) < len(pairs)
    acm_pairs = robots.self_collision_pairs(panda, robots.AllowedCollisionMatrix.from_adjacency(panda))
    assert sorted(acm_pairs) == sorted(pairs)
    q = PANDA_READY
    result = robots.self_distances(panda, q)
    assert len(result) == len(pairs)
    assert all(r.self_pair for r in result)
    h = 1e-6
    for r in sorted(result, key=lambda r: r.distance)[:3]:
        for i in range(7):
            dq = np.zeros(8)
            dq[i] = h
            d = [robots.self_distances(panda, q + s * dq, [(r.shape, r.obstacle)])[0].distance
                 for s in (1, -1)]
            assert r.gradient[i] == pytest.approx((d[0] - d[1]) / (2 * h), abs=2e-6)
    with pytest.raises(ValueError, match="out of range"):
        robots.self_distances(panda, q, [(0, 999)])


# ---- SRDF and ACM ----------------------------------------------------------------------------


def test_srdf(panda: robots.RobotModel) -> None:
    srdf = robots.load_srdf(PANDA_SRDF, panda)
    assert srdf.robot_name == "panda"
    assert "panda_arm" in srdf.group_names
    ready = robots.named_state(panda, srdf, "ready")
    assert np.allclose(ready[:7], PANDA_READY[:7], atol=1e-3)  # the SRDF has 3 decimals
    base = np.full(8, 0.03)
    assert robots.named_state(panda, srdf, "ready", base)[7] == 0.03
    assert robots.group_joints(panda, srdf, "panda_arm") == panda.position_names[:7]
    assert any(name == "ready" for name, _, _ in srdf.group_states)
    assert len(srdf.disabled_collisions) > 0
    with pytest.raises(ValueError, match="no group state 'nowhere'"):
        robots.named_state(panda, srdf, "nowhere")
    with pytest.raises(ValueError, match="no group 'legs'"):
        robots.group_joints(panda, srdf, "legs")
    with pytest.raises(robots.SrdfError) as e:
        robots.parse_srdf(
            '<robot name="panda"><disable_collisions link1="panda_link0" link2="nope" '
            'reason="Never"/></robot>',
            panda,
            "bad.srdf",
        )
    assert "bad.srdf:1" in str(e.value) and isinstance(e.value, ValueError)
    acm = robots.acm_from_srdf(panda, srdf)
    link1, link2, _ = srdf.disabled_collisions[0]
    assert acm.allowed(link1, link2)
    assert acm.allowed("panda_link0", "panda_link1")  # adjacent


def test_generate_disabled_collisions(panda: robots.RobotModel) -> None:
    """The SRDF generator from Python: the gjk-srdf tool's list on the same samples and seed, and
    close to MoveIt's own Panda SRDF."""
    generated = robots.generate_disabled_collisions(panda, samples=2000, seed=3)
    assert generated == sorted(generated) and all(a < b for a, b, _ in generated)
    assert {r for _, _, r in generated} <= {"Adjacent", "Default", "Always", "Never"}
    # Adjacent pairs are exactly the ones self_collision_pairs() leaves out for adjacency.
    names = panda.link_names
    every = robots.self_collision_pairs(panda, exclude_adjacent=False)
    checked = robots.self_collision_pairs(panda)
    link_of = [names[c.link] for c in panda.collision_shapes]
    adjacent = {tuple(sorted((link_of[a], link_of[b]))) for a, b in set(every) - set(checked)}
    assert {(a, b) for a, b, r in generated if r == "Adjacent"} == adjacent
    moveit = {tuple(sorted((a, b))) for a, b, _ in robots.load_srdf(PANDA_SRDF, panda).disabled_collisions}
    ours = {(a, b) for a, b, _ in generated}
    assert len(moveit & ours) >= len(moveit) - 3, sorted(moveit ^ ours)
    program = os.environ.get("GJK_SRDF", "")
    assert program and os.path.exists(program), "GJK_SRDF must name gjk-srdf (ctest)"
    out = subprocess.run(
        [program, "--urdf", PANDA_URDF, "--samples", "2000", "--seed", "3"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    tool = robots.parse_srdf(out, panda, "gjk-srdf output").disabled_collisions
    assert sorted(tool) == generated
    assert robots.generate_disabled_collisions(panda, samples=0) == [
        g for g in generated if g[2] in ("Adjacent", "Default")
    ]
    with pytest.raises(ValueError, match="samples: must be >= 0, got -1"):
        robots.generate_disabled_collisions(panda, samples=-1)


def test_allowed_collision_matrix() -> None:
    acm = robots.AllowedCollisionMatrix()
    assert len(acm) == 0 and not acm.allowed("a", "b")
    acm.allow("b", "a")
    assert acm.allowed("a", "b") and acm.allowed_pairs() == [("a", "b")]
    acm.set_default("c", True)
    assert acm.allowed("c", "x")
    acm.disallow("c", "x")  # a pair entry wins over the default
    assert not acm.allowed("x", "c") and acm.allowed("c", "y")
    acm.remove("c", "x")
    assert acm.allowed("c", "x")
    acm.remove_default("c")
    assert not acm.allowed("c", "x")
    acm.set_allowed("a", "b", False)
    assert not acm.allowed("a", "b") and len(acm) == 1
    copy = acm.copy()
    copy.allow("p", "q")
    assert not acm.allowed("p", "q")


# ---- agreement with the C++ layer, bit for bit --------------------------------------------


def test_bit_identical_with_cpp(panda: robots.RobotModel) -> None:
    program = os.environ.get("GJK_PYTHON_ROBOT_REFERENCE", "")
    assert program and os.path.exists(program), "GJK_PYTHON_ROBOT_REFERENCE must be set (ctest)"
    rng = np.random.default_rng(5)
    lo, hi = panda.lower_limits, panda.upper_limits
    qs = [PANDA_READY] + [lo + (hi - lo) * rng.uniform(0.1, 0.9, size=8) for _ in range(5)]
    scene_path = os.path.join(SCENES_DIR, "panda_boxes.yaml")
    out = subprocess.run(
        [program, PANDA_URDF, scene_path, PANDA_SRDF],
        input="".join(" ".join(repr(float(v)) for v in q) + "\n" for q in qs),
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    scene = robots.load_scene(scene_path)
    srdf = robots.load_srdf(PANDA_SRDF, panda)
    world = robots.CollisionWorld(panda, scene, robots.acm_from_srdf(panda, srdf))
    context = robots.WorldContext(world)  # warm starts in the same order as the C++ program
    for q, line in zip(qs, out):
        want = [float(x) for x in line.split()]
        got: list[float] = list(panda.forward_kinematics(q).ravel())
        c = context.closest(q)
        got += [c.distance, c.shape, c.obstacle, float(c.self_pair)]
        got += list(c.point_a) + list(c.point_b) + list(c.normal) + list(c.gradient)
        pairs = robots.robot_scene_distances(panda, scene, q)
        got.append(len(pairs))
        for p in pairs:
            got += [p.shape, p.obstacle, p.distance] + list(p.gradient)
        last = len(panda.links) - 1
        got += list(panda.point_jacobian(q, last, panda.forward_kinematics(q)[last][:3, 3]).ravel())
        assert len(got) == len(want)
        assert got == want  # bit-identical
