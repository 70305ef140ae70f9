"""Type stub of libgjk.planar (the 2D engine)."""

from __future__ import annotations

import enum
from typing import Optional

import numpy as np
import numpy.typing as npt

from ._core import Feature, Status, SupportMethod

F64 = npt.NDArray[np.float64]

def pose(position: npt.ArrayLike, angle: float = 0.0) -> F64: ...

class SubDistance(enum.IntEnum):
    Barycode = 0
    RefineSet = 1

class Options:
    max_iterations: int
    tolerance: float
    support: SupportMethod
    sub_distance: SubDistance
    axes_first: bool
    def __init__(self) -> None: ...

class ConvexPolygon:
    @staticmethod
    def from_points(points: npt.ArrayLike) -> ConvexPolygon: ...
    @property
    def vertices(self) -> F64: ...
    def __len__(self) -> int: ...

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

class CollisionResult:
    @property
    def collision(self) -> bool: ...
    @property
    def iterations(self) -> int: ...
    @property
    def status(self) -> Status: ...

def distance(
    a: ConvexPolygon,
    pose_a: npt.ArrayLike,
    b: ConvexPolygon,
    pose_b: npt.ArrayLike,
    options: Optional[Options] = None,
) -> DistanceResult: ...
def collide(
    a: ConvexPolygon,
    pose_a: npt.ArrayLike,
    b: ConvexPolygon,
    pose_b: npt.ArrayLike,
    options: Optional[Options] = None,
) -> CollisionResult: ...
