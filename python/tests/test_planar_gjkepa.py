"""The 2D engine (libgjk.planar) and the GJK_EPA class of seed 000."""

from __future__ import annotations

import math

import numpy as np
import pytest

import libgjk
import libgjk.planar as planar


def test_planar_polygons() -> None:
    square = planar.ConvexPolygon.from_points([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]])
    assert len(square) == 4 and square.vertices.shape == (4, 2)
    r = planar.distance(square, planar.pose([0, 0]), square, planar.pose([3, 0.25]))
    assert r.distance == 2.0 and r.status == libgjk.Status.Converged and not r.collision
    assert np.array_equal(r.normal, [1.0, 0.0]) and r.point_on_a[0] == 1.0
    assert r.lower_bound <= r.distance <= r.upper_bound
    moved = planar.pose([0.5, 0.5], 0.3)
    assert planar.collide(square, planar.pose([0, 0]), square, moved).collision
    rotated = planar.distance(square, planar.pose([0, 0]), square, planar.pose([3, 0], math.pi / 4))
    # Rotated about its corner (0, 0): its vertex (0, 1) is at x = 3 - sqrt(1/2).
    assert rotated.distance == pytest.approx(2 - math.sqrt(0.5), abs=1e-12)
    o = planar.Options()
    o.support = libgjk.SupportMethod.HillClimbing
    o.max_iterations = 32
    hc = planar.distance(square, np.eye(3), square, planar.pose([3, 0.25]), o)
    assert hc.distance == 2.0


def test_planar_sub_distance_steps_agree(rng: np.random.Generator) -> None:
    """Seed 002's fixed-size refine_set and seed 001's barycode give the same answers."""
    o = planar.Options()
    assert o.sub_distance == planar.SubDistance.Barycode
    refine = planar.Options()
    refine.sub_distance = planar.SubDistance.RefineSet
    assert refine.sub_distance is planar.SubDistance.RefineSet
    for _ in range(200):
        a = planar.ConvexPolygon.from_points(rng.normal(size=(12, 2)))
        b = planar.ConvexPolygon.from_points(rng.normal(size=(9, 2)))
        pose_b = planar.pose(rng.uniform(-4, 4, size=2), rng.uniform(0, 2 * math.pi))
        d0 = planar.distance(a, np.eye(3), b, pose_b, o)
        d1 = planar.distance(a, np.eye(3), b, pose_b, refine)
        assert d1.distance == pytest.approx(d0.distance, abs=1e-12)
        assert d1.simplex_size <= 3 and d1.collision == d0.collision
        assert planar.collide(a, np.eye(3), b, pose_b, refine).collision == d0.collision
    with pytest.raises(ValueError, match="sub_distance"):
        refine.sub_distance = 2


def test_planar_collide_axis_test_keeps_the_verdicts(rng: np.random.Generator) -> None:
    """The edge-normal axis test in front of GJK gives GJK's verdicts, touching included."""
    gjk_only = planar.Options()
    assert gjk_only.axes_first is True
    gjk_only.axes_first = False
    square = planar.ConvexPolygon.from_points([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    for gap, colliding in [(0.0, True), (1e-9, False), (-1e-9, True)]:
        pose_b = planar.pose([2 + gap, 0.5])  # edge against edge
        assert planar.collide(square, np.eye(3), square, pose_b).collision is colliding
        assert planar.collide(square, np.eye(3), square, pose_b, gjk_only).collision is colliding
    for _ in range(300):
        a = planar.ConvexPolygon.from_points(rng.normal(size=(7, 2)))
        b = planar.ConvexPolygon.from_points(rng.normal(size=(5, 2)))
        pose_b = planar.pose(rng.uniform(-3, 3, size=2), rng.uniform(0, 2 * math.pi))
        expected = planar.distance(a, np.eye(3), b, pose_b).distance <= 0.0
        assert planar.collide(a, np.eye(3), b, pose_b).collision == expected
        assert planar.collide(a, np.eye(3), b, pose_b, gjk_only).collision == expected


def test_planar_errors() -> None:
    tri = planar.ConvexPolygon.from_points([[0, 0], [1, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"pose_a: expected an array of shape \(3, 3\)"):
        planar.distance(tri, np.eye(4), tri, np.eye(3))
    with pytest.raises(ValueError, match="pose_b: planar pose's last row"):
        planar.collide(tri, np.eye(3), tri, 2 * np.eye(3))
    with pytest.raises(ValueError, match="non-finite"):
        planar.distance(tri, np.full((3, 3), np.nan), tri, np.eye(3))
    with pytest.raises(ValueError, match=r"points: expected an array of shape \(N, 2\)"):
        planar.ConvexPolygon.from_points(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        planar.ConvexPolygon.from_points(np.zeros((0, 2)))


def test_gjk_epa_class() -> None:
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)
    g = libgjk.GjkEpa()
    g.set_shape_a(cube)
    g.set_shape_b(cube + [3, 0, 0])
    assert g.state == libgjk.GjkEpaState.Unknown
    assert not g.are_in_collision() and g.state == libgjk.GjkEpaState.Separated
    d = g.get_distance()
    assert d is not None and d.distance == 2.0 and d.point_on_b[0] == 3.0
    assert g.state == libgjk.GjkEpaState.ClosestPointsKnown
    assert g.get_penetration() is None
    g.set_shape_b_transformed(cube - 0.5, [0, 0, math.pi / 4], [1.2, 0.5, 0.5])
    assert g.are_in_collision()
    p = g.get_penetration()
    assert p is not None and p.depth > 0 and g.get_distance() is None
    assert np.allclose(p.point_on_a - p.point_on_b, p.vector)
    assert g.last_status == libgjk.Status.Converged
    g.set_shape_a(libgjk.Sphere(0.5), libgjk.pose([5, 0, 0]))
    g.set_shape_a_transformed(cube, [0.1, 0.2, 0.3], [0, 0, 0])
    assert g.are_in_collision()
