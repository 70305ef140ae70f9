"""libgjk: exact convex proximity queries (GJK/EPA) from Python and NumPy.

Poses are 4x4 homogeneous NumPy arrays (any numeric dtype, copied to float64; last row
[0, 0, 0, 1], rotation block orthonormal). Results are objects whose vectors are NumPy (3,)
arrays; the batch calls return dicts of arrays. The engine runs without the GIL, so Python
threads querying at once run in parallel.

Submodules: ``libgjk.robots`` (URDF models, kinematics, scenes, robot distances with
gradients, SRDF, the collision world, clearance along paths), ``libgjk.planner`` (velocity
inversion, OMPL planning, certified motions) and ``libgjk.planar`` (the 2D engine).

    >>> import libgjk, numpy as np
    >>> r = libgjk.distance(libgjk.Box([1, 1, 1]), np.eye(4),
    ...                     libgjk.Sphere(0.5), libgjk.pose([3, 0, 0]))
    >>> r.distance
    1.5
"""

from __future__ import annotations

from . import _core, planar, planner, robots
from ._core import (
    BoxSet,
    Capsule,
    ClosestPoints,
    CollisionResult,
    ConvexPolytope,
    Cylinder,
    DistanceResult,
    Feature,
    GjkEpa,
    GjkEpaState,
    MeshPairHit,
    Penetration,
    PenetrationResult,
    PrimitiveHit,
    QueryOptions,
    Shape,
    SignedDistanceResult,
    SimplexSolver,
    Sphere,
    Status,
    SupportMethod,
    ThresholdResult,
    TriangleMesh,
    Box,
    WarmStart,
    bounding_box,
    check_pose,
    closer_than,
    collide,
    collide_batch,
    distance,
    distance_batch,
    inflated,
    penetration,
    pose,
    pose_from_xyz,
    pose_rpy,
    rotation_xyz,
    signed_distance,
    signed_distance_batch,
)

__version__: str = _core.version()
"""Version of the linked C++ library (gjk::version())."""

__all__ = [
    "Box",
    "BoxSet",
    "Capsule",
    "ClosestPoints",
    "CollisionResult",
    "ConvexPolytope",
    "Cylinder",
    "DistanceResult",
    "Feature",
    "GjkEpa",
    "GjkEpaState",
    "MeshPairHit",
    "Penetration",
    "PenetrationResult",
    "PrimitiveHit",
    "QueryOptions",
    "Shape",
    "SignedDistanceResult",
    "SimplexSolver",
    "Sphere",
    "Status",
    "SupportMethod",
    "ThresholdResult",
    "TriangleMesh",
    "WarmStart",
    "bounding_box",
    "check_pose",
    "closer_than",
    "collide",
    "collide_batch",
    "distance",
    "distance_batch",
    "inflated",
    "penetration",
    "planar",
    "planner",
    "pose",
    "pose_from_xyz",
    "pose_rpy",
    "robots",
    "rotation_xyz",
    "signed_distance",
    "signed_distance_batch",
    "__version__",
]
