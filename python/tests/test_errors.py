"""Bad input raises ValueError (or RuntimeError for misuse) naming the argument; never a crash."""

from __future__ import annotations

import numpy as np
import pytest

import libgjk

S = libgjk.Sphere(0.5)


@pytest.mark.parametrize(
    "pose, message",
    [
        (np.full((4, 4), np.nan), r"pose_a: pose has a non-finite entry at \(0, 0\)"),
        (np.where(np.eye(4) == 1, np.inf, 0.0), "non-finite"),
        (np.eye(3), r"pose_a: expected an array of shape \(4, 4\), got shape \(3, 3\)"),
        (np.eye(4)[None], r"got shape \(1, 4, 4\)"),
        (np.zeros(16), r"got shape \(16,\)"),
        (np.array([["a"] * 4] * 4), "expected a numeric array, got dtype <U1"),
        (np.eye(4, dtype=complex), "expected a numeric array, got dtype complex128"),
        (np.array([[object()] * 4] * 4), "numeric array, got dtype object"),
        ("not a pose", "pose_a"),
        (None, "pose_a"),
        (2 * np.eye(4), r"last row must be \[0, 0, 0, 1\]"),
        (np.diag([2.0, 1.0, 1.0, 1.0]), "not a rotation"),
        (np.diag([-1.0, 1.0, 1.0, 1.0]), "not a rotation"),
    ],
)
def test_bad_pose(pose: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        libgjk.distance(S, pose, S, np.eye(4))


def test_bad_second_pose_is_named() -> None:
    with pytest.raises(ValueError, match="pose_b"):
        libgjk.collide(S, np.eye(4), S, np.eye(5))


def test_accepted_dtypes_and_layouts() -> None:
    want = libgjk.distance(S, np.eye(4), S, libgjk.pose([3, 0, 0])).distance
    p = libgjk.pose([3, 0, 0])
    for other in (
        p.astype(np.float32),
        p.astype(np.int64),
        np.asfortranarray(p),  # column-major: copied, not misread
        np.ascontiguousarray(np.pad(p, 1)[1:-1, 1:-1]),
        p.tolist(),
        p.astype(">f8"),  # big-endian
    ):
        assert libgjk.distance(S, np.eye(4), S, other).distance == want
    big = np.zeros((8, 8))
    big[::2, ::2] = p  # a strided view of the same pose
    assert not big[::2, ::2].flags.c_contiguous
    assert libgjk.distance(S, np.eye(4), S, big[::2, ::2]).distance == want
    assert libgjk.distance(S, np.eye(4), S, p.T.T).distance == want


def test_shape_errors() -> None:
    with pytest.raises(ValueError, match="radius"):
        libgjk.Sphere(-1)
    with pytest.raises(ValueError):
        libgjk.Sphere(float("nan"))
    with pytest.raises(ValueError, match=r"half_extents: expected an array of shape \(3,\)"):
        libgjk.Box([1, 2])
    with pytest.raises(ValueError, match="non-finite"):
        libgjk.Box([1, np.nan, 2])
    with pytest.raises(ValueError):
        libgjk.Capsule(0.1, -1)
    with pytest.raises(ValueError):
        libgjk.Cylinder(-0.1, 1)
    with pytest.raises(ValueError, match=r"points: expected an array of shape \(N, 3\)"):
        libgjk.ConvexPolytope.from_points(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="points: row 1 has a non-finite coordinate"):
        libgjk.ConvexPolytope.from_points([[0, 0, 0], [np.nan, 0, 0]])
    with pytest.raises(ValueError):  # the C++ message: empty point set
        libgjk.ConvexPolytope.from_points(np.zeros((0, 3)))
    with pytest.raises(ValueError):
        libgjk.inflated(S, -2)
    with pytest.raises(TypeError):
        libgjk.distance("sphere", np.eye(4), S, np.eye(4))


def test_mesh_and_box_set_errors() -> None:
    v = np.eye(3)
    with pytest.raises(ValueError, match="triangles: expected an integer array"):
        libgjk.TriangleMesh.from_triangles(v, np.array([[0.0, 1.0, 2.0]]))
    with pytest.raises(ValueError, match="index out of range"):
        libgjk.TriangleMesh.from_triangles(v, [[0, 1, -2]])
    with pytest.raises(ValueError):  # the C++ check: index past the vertices
        libgjk.TriangleMesh.from_triangles(v, [[0, 1, 3]])
    with pytest.raises(ValueError, match=r"triangles: expected an array of shape \(M, 3\)"):
        libgjk.TriangleMesh.from_triangles(v, [[0, 1]])
    with pytest.raises(ValueError):
        libgjk.BoxSet.from_boxes([[0, 0, 0]], [[1, 1, -1]])
    with pytest.raises(ValueError):
        libgjk.BoxSet.from_boxes([[0, 0, 0]], [[1, 1, 1], [1, 1, 1]])


def test_helpers_errors() -> None:
    with pytest.raises(ValueError, match="quaternion_wxyz"):
        libgjk.pose([0, 0, 0], [0, 0, 0, 0])
    with pytest.raises(ValueError, match=r"quaternion_wxyz: expected an array of shape \(4,\)"):
        libgjk.pose([0, 0, 0], [1, 0, 0])
    with pytest.raises(ValueError, match="position"):
        libgjk.pose_rpy([0, np.inf, 0], [0, 0, 0])
    with pytest.raises(ValueError, match="pose"):
        libgjk.check_pose(np.ones((4, 4)))


def test_batch_errors() -> None:
    good = np.repeat(np.eye(4)[None], 3, axis=0)
    with pytest.raises(ValueError, match="different numbers of poses"):
        libgjk.distance_batch(S, good, S, good[:2])
    with pytest.raises(ValueError, match=r"poses_b: expected an array of shape \(N, 4, 4\)"):
        libgjk.distance_batch(S, good, S, np.zeros((3, 3, 3)))
    bad = good.copy()
    bad[1, 0, 0] = np.nan
    with pytest.raises(ValueError, match=r"poses_a\[1\]: pose has a non-finite entry"):
        libgjk.distance_batch(S, bad, S, good)
    with pytest.raises(ValueError, match="numeric array"):
        libgjk.collide_batch(S, good.astype(str), S, good)


def test_gjk_epa_misuse() -> None:
    g = libgjk.GjkEpa()
    with pytest.raises(RuntimeError, match="set both shapes"):
        g.are_in_collision()
    with pytest.raises(ValueError, match="vertices"):
        g.set_shape_a(np.zeros((3, 4)))


def test_fast_calls_equal_converting_calls() -> None:
    """The single queries' fast path (float64 C-contiguous poses, bound shape classes) and the
    converting path (lists, Fortran order, int dtypes, keywords, Python subclasses) agree."""

    class MySphere(libgjk.Sphere):
        pass

    a, b = libgjk.Sphere(0.3), libgjk.Box([0.5, 0.4, 0.3])
    pa = libgjk.pose([0.1, 0.2, 0.3], [0.9, 0.1, -0.3, 0.2])
    pb = libgjk.pose([1.1, -0.4, 0.2], [0.2, 0.7, 0.1, -0.5])
    opts = libgjk.QueryOptions()
    for f in (libgjk.distance, libgjk.signed_distance, libgjk.collide, libgjk.penetration):
        ref = repr(f(a, pa, b, pb))
        assert repr(f(a, pa.tolist(), b, np.asfortranarray(pb))) == ref
        assert repr(f(MySphere(0.3), pa, b, pb)) == ref
        assert repr(f(a=a, pose_a=pa, b=b, pose_b=pb, options=opts, warm_start=None)) == ref
        assert repr(f(a, pa, b, pb, opts, libgjk.WarmStart())) == ref
        with pytest.raises(ValueError, match=r"pose_b: pose has a non-finite entry at \(1, 2\)"):
            bad = pb.copy()
            bad[1, 2] = np.nan
            f(a, pa, b, bad)
        with pytest.raises(TypeError):
            f(a, pa, b)
        with pytest.raises(TypeError):
            f(a, pa, b, pb, nonsense=1)
    assert libgjk.closer_than(a, pa, b, pb, 5).closer == libgjk.closer_than(a, pa, b, pb, 5.0).closer
    assert libgjk.closer_than(a, pa, b, pb, threshold=0.01).closer is False
    assert libgjk.distance(a, np.eye(4, dtype=int), b, pb).distance == libgjk.distance(
        a, np.eye(4), b, pb).distance


def test_batch_reports_the_first_invalid_pose_on_any_thread_count() -> None:
    good = np.repeat(np.eye(4)[None], 1000, axis=0)
    pa, pb = good.copy(), good.copy()
    pa[950, 3, 3] = 2.0
    pb[900, 0, 0] = np.inf
    pa[901] = np.diag([2.0, 1.0, 1.0, 1.0])
    for threads in (1, 2, 0):
        for f in (libgjk.distance_batch, libgjk.signed_distance_batch, libgjk.collide_batch):
            with pytest.raises(ValueError, match=r"^poses_b\[900\]: pose has a non-finite"):
                f(S, pa, S, pb, threads=threads)
