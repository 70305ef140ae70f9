"""The 2D barycode GJK engine (seed 001): convex polygons at 3x3 homogeneous poses."""

from __future__ import annotations

from ._core import planar as _planar

CollisionResult = _planar.CollisionResult
ConvexPolygon = _planar.ConvexPolygon
DistanceResult = _planar.DistanceResult
Options = _planar.Options
SubDistance = _planar.SubDistance
collide = _planar.collide
distance = _planar.distance
pose = _planar.pose

__all__ = [
    "CollisionResult",
    "ConvexPolygon",
    "DistanceResult",
    "Options",
    "SubDistance",
    "collide",
    "distance",
    "pose",
]
