"""Batch calls equal loops of single queries; Python threads querying at once agree."""

from __future__ import annotations

import threading

import numpy as np
from conftest import random_pose

import libgjk


def _poses(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.stack([random_pose(rng, 1.0) for _ in range(n)])


def test_distance_batch_equals_loop(rng: np.random.Generator) -> None:
    a = libgjk.ConvexPolytope.from_points(rng.normal(size=(100, 3)) * 0.4)
    b = libgjk.inflated(libgjk.Capsule(0.1, 0.3), 0.05)
    n = 1000
    pa, pb = _poses(rng, n), _poses(rng, n)
    for threads in (1, 2, 0):
        out = libgjk.distance_batch(a, pa, b, pb, threads=threads)
        assert out["distance"].shape == (n,) and out["point_on_a"].shape == (n, 3)
        assert out["status"].dtype == np.int8 and out["collision"].dtype == bool
        for i in range(0, n, 7):
            r = libgjk.distance(a, pa[i], b, pb[i])
            assert out["distance"][i] == r.distance
            assert out["lower_bound"][i] == r.lower_bound
            assert out["upper_bound"][i] == r.upper_bound
            assert np.array_equal(out["point_on_a"][i], r.point_on_a)
            assert np.array_equal(out["point_on_b"][i], r.point_on_b)
            assert np.array_equal(out["normal"][i], r.normal)
            assert out["collision"][i] == r.collision
            assert out["status"][i] == r.status and out["iterations"][i] == r.iterations
            assert out["simplex_size"][i] == r.simplex_size


def test_other_batches_equal_loops(rng: np.random.Generator) -> None:
    a, b = libgjk.Box([0.3, 0.2, 0.1]), libgjk.Cylinder(0.2, 0.3)
    n = 300
    pa, pb = _poses(rng, n), _poses(rng, n)
    sd = libgjk.signed_distance_batch(a, pa, b, pb, threads=2)
    co = libgjk.collide_batch(a, pa, b, pb)
    for i in range(n):
        s = libgjk.signed_distance(a, pa[i], b, pb[i])
        assert sd["signed_distance"][i] == s.signed_distance
        assert np.array_equal(sd["normal"][i], s.normal)
        c = libgjk.collide(a, pa[i], b, pb[i])
        assert co["collision"][i] == c.collision
        assert np.array_equal(co["separating_direction"][i], c.separating_direction)


def test_batch_broadcasts_one_pose_and_accepts_strided(rng: np.random.Generator) -> None:
    a, b = libgjk.Sphere(0.2), libgjk.Box([0.1, 0.2, 0.3])
    pb = _poses(rng, 50)
    out = libgjk.distance_batch(a, np.eye(4), b, pb)
    strided = np.zeros((100, 4, 4))
    strided[::2] = pb
    out2 = libgjk.distance_batch(a, np.eye(4), b, strided[::2])  # non-contiguous: copied
    assert np.array_equal(out["distance"], out2["distance"])
    for i in range(50):
        assert out["distance"][i] == libgjk.distance(a, np.eye(4), b, pb[i]).distance
    empty = libgjk.distance_batch(a, np.zeros((0, 4, 4)), b, np.zeros((0, 4, 4)))
    assert empty["distance"].shape == (0,) and empty["normal"].shape == (0, 3)


def test_threads_give_the_same_answers(rng: np.random.Generator) -> None:
    shapes = [
        libgjk.ConvexPolytope.from_points(rng.normal(size=(300, 3))),
        libgjk.Cylinder(0.3, 0.5),
        libgjk.inflated(libgjk.Box([0.2, 0.3, 0.4]), 0.1),
    ]
    n = 400
    pa, pb = _poses(rng, n), _poses(rng, n)
    cases = [(shapes[i % 3], pa[i], shapes[(i + 1) % 3], pb[i]) for i in range(n)]
    expected = [libgjk.signed_distance(*c).signed_distance for c in cases]
    results: dict[int, list[float]] = {}
    errors: list[BaseException] = []
    shared = libgjk.GjkEpa()  # one object used by every thread: serialised, never corrupted

    def work(k: int) -> None:
        try:
            out = []
            for rep in range(3):
                for c in cases:
                    out.append(libgjk.signed_distance(*c).signed_distance)
                    if rep == 0 and len(out) % 50 == 0:
                        shared.set_shape_a(c[0], c[1])
                        shared.set_shape_b(c[2], c[3])
                        shared.are_in_collision()
            results[k] = out
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(6):
        assert results[k] == expected * 3
