"""Type stub of libgjk._core (hand-written; keep in step with python/src/*.cpp)."""

from __future__ import annotations

import enum
from typing import Any, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

from . import analysis as analysis
from . import planar as planar
from . import planner as planner
from . import robots as robots

ArrayLike = npt.ArrayLike
F64 = npt.NDArray[np.float64]

def version() -> str: ...

class Status(enum.IntEnum):
    Converged = 0
    MaxIterations = 1
    Degenerate = 2
    InvalidInput = 3

class Feature(enum.IntEnum):
    Unknown = 0
    Vertex = 1
    Edge = 2
    Face = 3
    Curved = 4

class SimplexSolver(enum.IntEnum):
    SignedVolumes = 0
    Johnson = 1
    RefineSet = 2
    RefineSetFixed = 3

class SupportMethod(enum.IntEnum):
    BruteForce = 0
    HillClimbing = 1
    Auto = 2

class GjkEpaState(enum.IntEnum):
    Unknown = 0
    Collision = 1
    PenetrationKnown = 2
    Separated = 3
    ClosestPointsKnown = 4

class Shape:
    def __init__(self, geometry: Shape, inflation: float = 0.0) -> None: ...
    @property
    def inflation(self) -> float: ...
    @property
    def geometry(self) -> Shape: ...
    @property
    def kind(self) -> str: ...

class Sphere(Shape):
    def __init__(self, radius: float, inflation: float = 0.0) -> None: ...
    @property
    def radius(self) -> float: ...

class Box(Shape):
    def __init__(self, half_extents: ArrayLike, inflation: float = 0.0) -> None: ...
    @property
    def half_extents(self) -> F64: ...

class Capsule(Shape):
    def __init__(self, radius: float, half_length: float, inflation: float = 0.0) -> None: ...
    @property
    def radius(self) -> float: ...
    @property
    def half_length(self) -> float: ...

class Cylinder(Shape):
    def __init__(self, radius: float, half_length: float, inflation: float = 0.0) -> None: ...
    @property
    def radius(self) -> float: ...
    @property
    def half_length(self) -> float: ...

class ConvexPolytope(Shape):
    @staticmethod
    def from_points(points: ArrayLike, inflation: float = 0.0) -> ConvexPolytope: ...
    @property
    def vertices(self) -> F64: ...
    @property
    def triangles(self) -> npt.NDArray[np.int64]: ...
    @property
    def dimension(self) -> int: ...

def inflated(shape: Shape, radius: float) -> Shape: ...
def pose(position: ArrayLike, quaternion_wxyz: ArrayLike = (1, 0, 0, 0)) -> F64: ...
def pose_rpy(position: ArrayLike, rpy: ArrayLike = (0, 0, 0)) -> F64: ...
def check_pose(pose: ArrayLike) -> F64: ...
def rotation_xyz(gamma_x: float, gamma_y: float, gamma_z: float) -> F64: ...
def pose_from_xyz(position: ArrayLike, angles_xyz: ArrayLike) -> F64: ...

class QueryOptions:
    solver: SimplexSolver
    support: SupportMethod
    max_iterations: int
    max_epa_iterations: int
    tolerance: float
    epa_tolerance: float
    def __init__(self) -> None: ...

class WarmStart:
    def __init__(self) -> None: ...
    def reset(self) -> None: ...
    @property
    def size(self) -> int: ...

class PrimitiveHit:
    primitive: int
    def __init__(self, primitive: int = -1) -> None: ...

class MeshPairHit:
    primitive_a: int
    primitive_b: int
    def __init__(self, primitive_a: int = -1, primitive_b: int = -1) -> None: ...

class CollisionResult:
    @property
    def collision(self) -> bool: ...
    @property
    def iterations(self) -> int: ...
    @property
    def status(self) -> Status: ...
    @property
    def separating_direction(self) -> F64: ...

class DistanceResult:
    @property
    def distance(self) -> float: ...
    @property
    def lower_bound(self) -> float: ...
    @property
    def upper_bound(self) -> float: ...
    @property
    def point_on_a(self) -> F64: ...
    @property
    def point_on_b(self) -> F64: ...
    @property
    def normal(self) -> F64: ...
    @property
    def collision(self) -> bool: ...
    @property
    def feature_on_a(self) -> Feature: ...
    @property
    def feature_on_b(self) -> Feature: ...
    @property
    def simplex_size(self) -> int: ...
    @property
    def iterations(self) -> int: ...
    @property
    def status(self) -> Status: ...

class PenetrationResult:
    @property
    def collision(self) -> bool: ...
    @property
    def depth(self) -> float: ...
    @property
    def normal(self) -> F64: ...
    @property
    def point_on_a(self) -> F64: ...
    @property
    def point_on_b(self) -> F64: ...
    @property
    def lower_bound(self) -> float: ...
    @property
    def upper_bound(self) -> float: ...
    @property
    def iterations(self) -> int: ...
    @property
    def status(self) -> Status: ...

class SignedDistanceResult:
    @property
    def signed_distance(self) -> float: ...
    @property
    def point_on_a(self) -> F64: ...
    @property
    def point_on_b(self) -> F64: ...
    @property
    def normal(self) -> F64: ...
    @property
    def iterations(self) -> int: ...
    @property
    def status(self) -> Status: ...

class ThresholdResult:
    @property
    def closer(self) -> bool: ...
    @property
    def lower_bound(self) -> float: ...
    @property
    def upper_bound(self) -> float: ...
    @property
    def iterations(self) -> int: ...
    @property
    def status(self) -> Status: ...

class TriangleMesh:
    @staticmethod
    def from_triangles(vertices: ArrayLike, triangles: ArrayLike) -> TriangleMesh: ...
    @property
    def vertices(self) -> F64: ...
    @property
    def triangles(self) -> npt.NDArray[np.int64]: ...

class BoxSet:
    @staticmethod
    def from_boxes(centres: ArrayLike, half_extents: ArrayLike) -> BoxSet: ...
    @property
    def centres(self) -> F64: ...
    @property
    def half_extents(self) -> F64: ...

NonConvex = Union[TriangleMesh, BoxSet]

def bounding_box(shape: Shape, pose: ArrayLike) -> tuple[F64, F64]: ...
@overload
def collide(
    a: Shape,
    pose_a: ArrayLike,
    b: Shape,
    pose_b: ArrayLike,
    options: Optional[QueryOptions] = None,
    warm_start: Optional[WarmStart] = None,
) -> CollisionResult: ...
@overload
def collide(
    shape: Shape,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    options: Optional[QueryOptions] = None,
) -> CollisionResult: ...
@overload
def collide(
    mesh: TriangleMesh,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    options: Optional[QueryOptions] = None,
    hit: Optional[MeshPairHit] = None,
) -> CollisionResult: ...
@overload
def distance(
    a: Shape,
    pose_a: ArrayLike,
    b: Shape,
    pose_b: ArrayLike,
    options: Optional[QueryOptions] = None,
    warm_start: Optional[WarmStart] = None,
) -> DistanceResult: ...
@overload
def distance(
    shape: Shape,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    options: Optional[QueryOptions] = None,
    hit: Optional[PrimitiveHit] = None,
    max_distance: float = ...,
) -> DistanceResult: ...
@overload
def distance(
    mesh: TriangleMesh,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    options: Optional[QueryOptions] = None,
    hit: Optional[MeshPairHit] = None,
    max_distance: float = ...,
) -> DistanceResult: ...
def penetration(
    a: Shape,
    pose_a: ArrayLike,
    b: Shape,
    pose_b: ArrayLike,
    options: Optional[QueryOptions] = None,
    warm_start: Optional[WarmStart] = None,
) -> PenetrationResult: ...
@overload
def signed_distance(
    a: Shape,
    pose_a: ArrayLike,
    b: Shape,
    pose_b: ArrayLike,
    options: Optional[QueryOptions] = None,
    warm_start: Optional[WarmStart] = None,
) -> SignedDistanceResult: ...
@overload
def signed_distance(
    shape: Shape,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    options: Optional[QueryOptions] = None,
    hit: Optional[PrimitiveHit] = None,
    max_distance: float = ...,
) -> SignedDistanceResult: ...
@overload
def signed_distance(
    mesh: TriangleMesh,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    options: Optional[QueryOptions] = None,
    hit: Optional[MeshPairHit] = None,
    max_distance: float = ...,
) -> SignedDistanceResult: ...
@overload
def closer_than(
    a: Shape,
    pose_a: ArrayLike,
    b: Shape,
    pose_b: ArrayLike,
    threshold: float,
    options: Optional[QueryOptions] = None,
    warm_start: Optional[WarmStart] = None,
) -> ThresholdResult: ...
@overload
def closer_than(
    shape: Shape,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    threshold: float,
    options: Optional[QueryOptions] = None,
) -> ThresholdResult: ...
@overload
def closer_than(
    mesh: TriangleMesh,
    pose: ArrayLike,
    target: NonConvex,
    target_pose: ArrayLike,
    threshold: float,
    options: Optional[QueryOptions] = None,
) -> ThresholdResult: ...
def distance_batch(
    shape_a: Shape,
    poses_a: ArrayLike,
    shape_b: Shape,
    poses_b: ArrayLike,
    options: Optional[QueryOptions] = None,
    threads: int = 0,
) -> dict[str, npt.NDArray[Any]]: ...
def signed_distance_batch(
    shape_a: Shape,
    poses_a: ArrayLike,
    shape_b: Shape,
    poses_b: ArrayLike,
    options: Optional[QueryOptions] = None,
    threads: int = 0,
) -> dict[str, npt.NDArray[Any]]: ...
def collide_batch(
    shape_a: Shape,
    poses_a: ArrayLike,
    shape_b: Shape,
    poses_b: ArrayLike,
    options: Optional[QueryOptions] = None,
    threads: int = 0,
) -> dict[str, npt.NDArray[Any]]: ...

class ClosestPoints:
    @property
    def point_on_a(self) -> F64: ...
    @property
    def point_on_b(self) -> F64: ...
    @property
    def distance(self) -> float: ...

class Penetration:
    @property
    def vector(self) -> F64: ...
    @property
    def point_on_a(self) -> F64: ...
    @property
    def point_on_b(self) -> F64: ...
    @property
    def depth(self) -> float: ...

class GjkEpa:
    def __init__(self, options: Optional[QueryOptions] = None) -> None: ...
    @overload
    def set_shape_a(self, vertices: ArrayLike) -> None: ...
    @overload
    def set_shape_a(self, shape: Shape, pose: ArrayLike) -> None: ...
    @overload
    def set_shape_b(self, vertices: ArrayLike) -> None: ...
    @overload
    def set_shape_b(self, shape: Shape, pose: ArrayLike) -> None: ...
    def set_shape_a_transformed(
        self, vertices: ArrayLike, angles_xyz: ArrayLike, position: ArrayLike
    ) -> None: ...
    def set_shape_b_transformed(
        self, vertices: ArrayLike, angles_xyz: ArrayLike, position: ArrayLike
    ) -> None: ...
    def are_in_collision(self) -> bool: ...
    def get_distance(self) -> Optional[ClosestPoints]: ...
    def get_penetration(self) -> Optional[Penetration]: ...
    @property
    def state(self) -> GjkEpaState: ...
    @property
    def last_status(self) -> Status: ...
