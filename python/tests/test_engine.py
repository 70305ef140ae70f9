"""Shapes, poses, the five convex queries, warm starts, meshes and box sets."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from conftest import random_pose, run_reference

import libgjk
from libgjk import Status


def test_version_matches_cpp() -> None:
    assert libgjk.__version__ == libgjk._core.version()
    assert len(libgjk.__version__.split(".")) == 3


def test_shapes_and_properties() -> None:
    s = libgjk.Sphere(0.5)
    assert isinstance(s, libgjk.Shape) and s.radius == 0.5 and s.kind == "sphere"
    b = libgjk.Box([1, 2, 3])
    assert b.half_extents.tolist() == [1, 2, 3] and b.kind == "box"
    c = libgjk.Capsule(0.2, 0.7)
    assert (c.radius, c.half_length, c.kind) == (0.2, 0.7, "capsule")
    y = libgjk.Cylinder(0.3, 0.4)
    assert (y.radius, y.half_length, y.kind) == (0.3, 0.4, "cylinder")
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)
    p = libgjk.ConvexPolytope.from_points(np.vstack([cube, [[0.5, 0.5, 0.5]]]))
    assert p.vertices.shape == (8, 3) and p.dimension == 3 and p.triangles.shape == (12, 3)
    assert sorted(map(tuple, p.vertices)) == sorted(map(tuple, cube))
    i = libgjk.inflated(b, 0.25)
    assert type(i) is libgjk.Shape and i.inflation == 0.25 and i.kind == "box"
    assert isinstance(i.geometry, libgjk.Box) and i.geometry.inflation == 0
    assert libgjk.Shape(s, 0.1).inflation == 0.1
    assert libgjk.inflated(libgjk.Sphere(1, inflation=0.5), 0.5).inflation == 1.0
    assert "Sphere(radius=0.5" in repr(s)


def test_pose_helpers() -> None:
    p = libgjk.pose([1, 2, 3])
    assert np.array_equal(p, np.array([[1, 0, 0, 1], [0, 1, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1.0]]))
    half = math.sqrt(0.5)
    q = libgjk.pose([0, 0, 0], [half, 0, 0, half])  # 90 degrees about z
    assert np.allclose(q[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    assert np.allclose(libgjk.pose([0, 0, 0], [2, 0, 0, 0]), np.eye(4))  # normalised
    r = libgjk.pose_rpy([0, 0, 0], [0, 0, math.pi / 2])
    assert np.allclose(r, q, atol=1e-15)
    # URDF: roll about x first, then pitch about y, both fixed axes: R = Ry(p) Rx(r).
    rp = libgjk.pose_rpy([0, 0, 0], [math.pi / 2, math.pi / 2, 0])
    assert np.allclose(rp[:3, :3] @ [0, 1, 0], [1, 0, 0], atol=1e-15)
    assert np.allclose(libgjk.pose_from_xyz([1, 2, 3], [0, 0, 0]), libgjk.pose([1, 2, 3]))
    assert libgjk.rotation_xyz(0.1, 0.2, 0.3).shape == (3, 3)


def test_sphere_sphere_closed_form(rng: np.random.Generator) -> None:
    a, b = libgjk.Sphere(0.3), libgjk.Sphere(0.45)
    for _ in range(200):
        pa, pb = random_pose(rng, 3), random_pose(rng, 3)
        centre = np.linalg.norm(pb[:3, 3] - pa[:3, 3])
        r = libgjk.distance(a, pa, b, pb)
        assert r.status == Status.Converged
        assert r.distance == pytest.approx(max(centre - 0.75, 0.0), abs=1e-14)
        assert r.lower_bound <= r.distance <= r.upper_bound
        s = libgjk.signed_distance(a, pa, b, pb)
        assert s.signed_distance == pytest.approx(centre - 0.75, abs=1e-12)


def test_box_box_face_distance_exact() -> None:
    a, b = libgjk.Box([1, 1, 1]), libgjk.Box([0.5, 0.5, 0.5])
    for gap in (0.25, 1.0, 3.5):
        r = libgjk.distance(a, np.eye(4), b, libgjk.pose([1.5 + gap, 0.1, -0.2]))
        assert r.distance == gap and r.status == Status.Converged and not r.collision
        # The distance is exact; the witness points come from barycentric weights (rounding).
        assert np.allclose(r.normal, [1.0, 0.0, 0.0], atol=1e-14)
        assert r.point_on_a[0] == pytest.approx(1.0, abs=1e-14)
        assert r.point_on_b[0] == pytest.approx(1.0 + gap, abs=1e-14)


def test_queries_agree_with_each_other(rng: np.random.Generator) -> None:
    shapes = [
        libgjk.Sphere(0.3),
        libgjk.Box([0.3, 0.2, 0.4]),
        libgjk.Capsule(0.15, 0.3),
        libgjk.Cylinder(0.2, 0.3),
        libgjk.ConvexPolytope.from_points(rng.normal(size=(30, 3)) * 0.3),
        libgjk.inflated(libgjk.Box([0.1, 0.1, 0.1]), 0.1),
    ]
    for _ in range(300):
        a, b = shapes[rng.integers(len(shapes))], shapes[rng.integers(len(shapes))]
        pa, pb = random_pose(rng, 0.6), random_pose(rng, 0.6)
        d = libgjk.distance(a, pa, b, pb)
        c = libgjk.collide(a, pa, b, pb)
        p = libgjk.penetration(a, pa, b, pb)
        s = libgjk.signed_distance(a, pa, b, pb)
        t = libgjk.closer_than(a, pa, b, pb, 0.2)
        assert c.collision == d.collision == p.collision
        if d.collision:
            assert s.signed_distance == pytest.approx(-p.depth, abs=1e-9)
            assert p.depth >= 0 and t.closer
            assert np.allclose(p.point_on_a - p.point_on_b, p.depth * p.normal, atol=1e-9)
        else:
            assert s.signed_distance == pytest.approx(d.distance, abs=1e-9)
            assert np.linalg.norm(c.separating_direction) == pytest.approx(1.0)
            assert t.closer == (d.distance < 0.2)
            assert np.linalg.norm(d.point_on_b - d.point_on_a) == pytest.approx(d.distance)
        assert isinstance(d.status, Status) and isinstance(d.feature_on_a, libgjk.Feature)


def _shape_text(kind: str, rng: np.random.Generator) -> tuple[libgjk.Shape, str]:
    infl = float(rng.choice([0.0, 0.05]))
    if kind == "sphere":
        r = float(rng.uniform(0.1, 0.5))
        return libgjk.Sphere(r, infl), f"sphere {r!r} {infl!r}"
    if kind == "box":
        h = rng.uniform(0.1, 0.5, size=3)
        return libgjk.Box(h, infl), "box " + " ".join(repr(float(x)) for x in h) + f" {infl!r}"
    if kind == "capsule":
        r, h = (float(x) for x in rng.uniform(0.1, 0.4, size=2))
        return libgjk.Capsule(r, h, infl), f"capsule {r!r} {h!r} {infl!r}"
    if kind == "cylinder":
        r, h = (float(x) for x in rng.uniform(0.1, 0.4, size=2))
        return libgjk.Cylinder(r, h, infl), f"cylinder {r!r} {h!r} {infl!r}"
    pts = rng.normal(size=(int(rng.integers(4, 80)), 3)) * 0.3
    text = " ".join(repr(float(x)) for x in pts.ravel())
    return libgjk.ConvexPolytope.from_points(pts, infl), f"polytope {len(pts)} {text} {infl!r}"


def _pose_text(p: np.ndarray) -> str:
    return " ".join(repr(float(x)) for x in p.ravel())


def _numbers(query: str, r: Any) -> list[float]:
    def v(a: np.ndarray) -> list[float]:
        return [float(x) for x in a]

    if query == "distance":
        return [r.distance, r.lower_bound, r.upper_bound, *v(r.point_on_a), *v(r.point_on_b),
                *v(r.normal), r.collision, r.iterations, int(r.status)]  # fmt: skip
    if query == "signed_distance":
        return [r.signed_distance, *v(r.point_on_a), *v(r.point_on_b), *v(r.normal),
                r.iterations, int(r.status)]  # fmt: skip
    if query == "penetration":
        return [r.collision, r.depth, *v(r.normal), *v(r.point_on_a), *v(r.point_on_b),
                r.lower_bound, r.upper_bound, r.iterations, int(r.status)]  # fmt: skip
    if query == "collide":
        return [r.collision, *v(r.separating_direction), r.iterations, int(r.status)]
    return [r.closer, r.lower_bound, r.upper_bound, r.iterations, int(r.status)]


def test_bit_identical_to_cpp(reference_program: str, rng: np.random.Generator) -> None:
    """Every query on 500 random pairs of every kind equals the C++ answer bit for bit."""
    kinds = ["sphere", "box", "capsule", "cylinder", "polytope"]
    queries = ["distance", "signed_distance", "penetration", "collide", "closer_than"]
    lines, expected_calls = [], []
    for i in range(500):
        a, ta = _shape_text(kinds[i % 5], rng)
        b, tb = _shape_text(kinds[(i // 5) % 5], rng)
        pa, pb = random_pose(rng, 0.5), random_pose(rng, 0.5)
        q = queries[(i // 25) % 5]
        threshold = float(rng.uniform(0, 0.5))
        lines.append(f"{q} {threshold!r} {ta} {_pose_text(pa)} {tb} {_pose_text(pb)}")
        expected_calls.append((q, a, pa, b, pb, threshold))
    reference = run_reference(reference_program, lines)
    assert len(reference) == len(lines)
    for (q, a, pa, b, pb, threshold), want in zip(expected_calls, reference):
        if q == "closer_than":
            got = libgjk.closer_than(a, pa, b, pb, threshold)
        else:
            got = getattr(libgjk, q)(a, pa, b, pb)
        assert _numbers(q, got) == want, q


def test_options_and_enums() -> None:
    o = libgjk.QueryOptions()
    assert o.solver == libgjk.SimplexSolver.SignedVolumes and o.support == libgjk.SupportMethod.Auto
    a, b = libgjk.Box([1, 1, 1]), libgjk.Box([0.5, 0.5, 0.5])
    pb = libgjk.pose_rpy([2.2, 0.3, 0.1], [0.3, 0.2, 0.1])
    base = libgjk.distance(a, np.eye(4), b, pb).distance
    for solver in libgjk.SimplexSolver:
        o.solver = solver
        assert libgjk.distance(a, np.eye(4), b, pb, o).distance == pytest.approx(base, abs=1e-12)
    o.solver = 1  # plain ints work too
    assert o.solver is libgjk.SimplexSolver.Johnson
    with pytest.raises(ValueError, match="solver"):
        o.solver = 7
    o.max_iterations = 0  # bad options: InvalidInput, not an exception (the C++ contract)
    assert libgjk.distance(a, np.eye(4), b, pb, o).status == Status.InvalidInput
    assert Status.Converged == 0 and Status(3) is Status.InvalidInput


def test_warm_start_tracks_a_moving_pair(rng: np.random.Generator) -> None:
    a = libgjk.ConvexPolytope.from_points(rng.normal(size=(200, 3)))
    b = libgjk.ConvexPolytope.from_points(rng.normal(size=(200, 3)))
    ws = libgjk.WarmStart()
    assert ws.size == 0
    for t in np.linspace(0, 1, 50):
        pb = libgjk.pose_rpy([4 - 2 * t, 0.5, 0], [t, 0.5 * t, 0])
        warm = libgjk.distance(a, np.eye(4), b, pb, warm_start=ws)
        cold = libgjk.distance(a, np.eye(4), b, pb)
        assert warm.distance == pytest.approx(cold.distance, abs=1e-9)
    assert ws.size > 0
    ws.reset()
    assert ws.size == 0
    for q in ("collide", "penetration", "signed_distance"):
        getattr(libgjk, q)(a, np.eye(4), b, libgjk.pose([1, 0, 0]), None, ws)
    assert libgjk.closer_than(a, np.eye(4), b, np.eye(4), 0.1, warm_start=ws).closer


def _cube_mesh() -> libgjk.TriangleMesh:
    v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    hull = libgjk.ConvexPolytope.from_points(v)
    return libgjk.TriangleMesh.from_triangles(hull.vertices, hull.triangles)


def test_triangle_mesh_queries() -> None:
    mesh = _cube_mesh()
    assert mesh.vertices.shape == (8, 3) and mesh.triangles.shape == (12, 3)
    s = libgjk.Sphere(0.5)
    hit = libgjk.PrimitiveHit()
    r = libgjk.distance(s, libgjk.pose([3, 0, 0]), mesh, np.eye(4), hit=hit)
    assert r.distance == pytest.approx(1.5, abs=1e-14) and 0 <= hit.primitive < 12
    far = libgjk.distance(s, libgjk.pose([3, 0, 0]), mesh, np.eye(4), max_distance=1.0)
    assert far.distance == math.inf
    # A surface: a small sphere inside the closed cube is 0.5 away from the nearest face.
    assert libgjk.distance(s, np.eye(4), mesh, np.eye(4)).distance == pytest.approx(0.5)
    assert not libgjk.collide(s, np.eye(4), mesh, np.eye(4)).collision
    assert libgjk.collide(s, libgjk.pose([1.2, 0, 0]), mesh, np.eye(4)).collision
    assert libgjk.closer_than(s, libgjk.pose([3, 0, 0]), mesh, np.eye(4), 1.6).closer
    sd = libgjk.signed_distance(s, libgjk.pose([1.2, 0, 0]), mesh, np.eye(4))
    assert sd.signed_distance == pytest.approx(-0.3, abs=1e-9)


def test_box_set_queries() -> None:
    cells = libgjk.BoxSet.from_boxes([[0, 0, 0], [2, 0, 0]], [[0.5, 0.5, 0.5]] * 2)
    assert cells.centres.shape == (2, 3) and cells.half_extents.shape == (2, 3)
    s = libgjk.Sphere(0.25)
    hit = libgjk.PrimitiveHit()
    r = libgjk.distance(s, libgjk.pose([2, 0, 1.5]), cells, np.eye(4), hit=hit)
    assert r.distance == pytest.approx(0.75, abs=1e-14) and hit.primitive == 1
    assert libgjk.collide(s, libgjk.pose([1, 0, 0]), cells, np.eye(4)).collision is False
    assert libgjk.closer_than(s, libgjk.pose([1, 0, 0]), cells, np.eye(4), 0.3).closer
    assert libgjk.signed_distance(s, np.eye(4), cells, np.eye(4)).signed_distance < 0


def _box_mesh(half: list[float]) -> libgjk.TriangleMesh:
    h = np.asarray(half, dtype=float)
    v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float) * h
    hull = libgjk.ConvexPolytope.from_points(v)
    return libgjk.TriangleMesh.from_triangles(hull.vertices, hull.triangles)


def test_mesh_pair_distance_equals_the_solid_boxes_when_apart(rng: np.random.Generator) -> None:
    """Closed convex surfaces that are apart are as far apart as the solids they bound: the
    mesh-vs-mesh answer against GJK on the two boxes, over random poses."""
    ha, hb = [0.5, 0.3, 0.2], [0.25, 0.4, 0.35]
    mesh_a, mesh_b = _box_mesh(ha), _box_mesh(hb)
    box_a, box_b = libgjk.Box(ha), libgjk.Box(hb)
    carried = libgjk.MeshPairHit(3, 5)
    apart = 0
    for _ in range(300):
        pa, pb = random_pose(rng, 1.0), random_pose(rng, 1.0)
        solid = libgjk.distance(box_a, pa, box_b, pb)
        hit = libgjk.MeshPairHit()
        r = libgjk.distance(mesh_a, pa, mesh_b, pb, hit=hit)
        assert r.status == libgjk.Status.Converged
        if solid.distance > 1e-9:
            apart += 1
            assert r.distance == pytest.approx(solid.distance, abs=1e-12)
            assert np.linalg.norm(r.point_on_b - r.point_on_a) == pytest.approx(r.distance, abs=1e-12)
            assert 0 <= hit.primitive_a < 12 and 0 <= hit.primitive_b < 12
            # A hit carried from another pose (a warm start) changes nothing but rounding: the
            # closest feature (an edge of two triangles) may be reached through the other one.
            warm = libgjk.distance(mesh_a, pa, mesh_b, pb, hit=carried).distance
            assert warm == pytest.approx(r.distance, abs=4e-16)
        else:
            # The surfaces may still be apart (one box inside the other) but never farther.
            assert r.distance <= max(ha + hb) * 4
        touching = libgjk.collide(mesh_a, pa, mesh_b, pb).collision
        assert touching == (r.distance <= 1e-12)
        assert libgjk.closer_than(mesh_a, pa, mesh_b, pb, r.distance + 1e-6).closer
        sd = libgjk.signed_distance(mesh_a, pa, mesh_b, pb)
        if touching:
            assert sd.signed_distance <= 1e-12
        else:
            assert sd.signed_distance == pytest.approx(r.distance, abs=1e-12)
    assert apart > 100


def test_mesh_against_box_set_is_the_nearest_box(rng: np.random.Generator) -> None:
    centres = rng.uniform(-1.0, 1.0, size=(6, 3))
    halves = rng.uniform(0.05, 0.2, size=(6, 3))
    cells = libgjk.BoxSet.from_boxes(centres, halves)
    mesh = _box_mesh([0.2, 0.15, 0.1])
    box = libgjk.Box([0.2, 0.15, 0.1])
    checked = 0
    for _ in range(200):
        pose = random_pose(rng, 1.5)
        per_box = [
            libgjk.distance(box, pose, libgjk.Box(h), libgjk.pose(c)).distance
            for c, h in zip(centres, halves)
        ]
        hit = libgjk.MeshPairHit()
        r = libgjk.distance(mesh, pose, cells, np.eye(4), hit=hit)
        if min(per_box) > 1e-9:
            checked += 1
            assert r.distance == pytest.approx(min(per_box), abs=1e-12)
            assert per_box[hit.primitive_b] == pytest.approx(min(per_box), abs=1e-12)
        assert libgjk.collide(mesh, pose, cells, np.eye(4)).collision == (r.distance <= 1e-12)
        t = libgjk.closer_than(mesh, pose, cells, np.eye(4), 0.1)
        assert t.closer == (r.distance < 0.1)
    assert checked > 50
    far = libgjk.distance(mesh, libgjk.pose([10, 0, 0]), cells, np.eye(4), max_distance=1.0)
    assert far.distance == math.inf


def test_mesh_pair_errors() -> None:
    mesh = _box_mesh([0.5, 0.5, 0.5])
    bad = np.eye(4)
    bad[0, 3] = np.nan
    with pytest.raises(ValueError, match="pose"):
        libgjk.distance(mesh, bad, mesh, np.eye(4))
    with pytest.raises(ValueError, match="target_pose"):
        libgjk.collide(mesh, np.eye(4), mesh, np.zeros((3, 3)))
    r = libgjk.closer_than(mesh, np.eye(4), mesh, libgjk.pose([3, 0, 0]), math.nan)
    assert r.status == libgjk.Status.InvalidInput


def test_bounding_box() -> None:
    lo, hi = libgjk.bounding_box(libgjk.Sphere(1), libgjk.pose([1, 2, 3]))
    assert lo.tolist() == [0, 1, 2] and hi.tolist() == [2, 3, 4]


def test_docstrings_everywhere() -> None:
    import inspect

    for mod in (
        libgjk._core,
        libgjk._core.planar,
        libgjk._core.robots,
        libgjk._core.planner,
        libgjk._core.analysis,
    ):
        for name, obj in vars(mod).items():
            if name.startswith("_") or not callable(obj):
                continue
            assert obj.__doc__, name
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and not isinstance(member, (int, str)):
                        assert getattr(member, "__doc__", None), f"{name}.{attr}"


def test_stub_lists_every_binding() -> None:
    """_core.pyi (hand-written) names exactly the module's public classes and functions."""
    import ast
    from pathlib import Path

    submodules = {"planar", "robots", "planner", "analysis"}
    for module, stub in (
        (libgjk._core, "_core.pyi"),
        (libgjk._core.planar, "planar.pyi"),
        (libgjk._core.robots, "robots.pyi"),
        (libgjk._core.planner, "planner.pyi"),
    ):
        tree = ast.parse((Path(libgjk.__file__).parent / stub).read_text())
        stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        public = {n for n in dir(module) if not n.startswith("_") and n not in submodules}
        assert public == stubbed, (stub, public ^ stubbed)
    # analysis.pyi stubs libgjk.analysis: the bindings of _core.analysis plus the Python driver.
    import importlib

    driver_module = importlib.import_module("libgjk.analysis")
    tree = ast.parse((Path(libgjk.__file__).parent / "analysis.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    stubbed |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    stubbed = {n for n in stubbed if not n.startswith("_")}  # stub-only helper types
    core = {n for n in dir(libgjk._core.analysis) if not n.startswith("_")}
    driver = set(driver_module.__all__)
    assert core <= driver and driver == stubbed, driver ^ stubbed
