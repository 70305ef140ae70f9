"""Type stub of libgjk.planner (hand-written; keep in step with python/src/planner.cpp)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .robots import CollisionWorld, PairDistance, RobotModel, Scene

F64 = npt.NDArray[np.float64]

class PlannerError(ValueError): ...

def pair_potential(distance: float, d0: float = 0.5, min_distance: float = 1e-4) -> float: ...
def pair_potential_slope(
    distance: float, d0: float = 0.5, min_distance: float = 1e-4
) -> float: ...

class VelocityStep:
    @property
    def qdot(self) -> F64: ...
    @property
    def end_effector(self) -> F64: ...
    @property
    def potential(self) -> float: ...
    @property
    def sigma_min(self) -> float: ...
    @property
    def frozen_joints(self) -> int: ...
    @property
    def distance_seconds(self) -> float: ...

class VelocityInversion:
    def __init__(
        self,
        model: RobotModel,
        scene: Scene,
        end_effector: Union[str, int],
        offset: npt.ArrayLike = ...,
        k: float = -1.0,
        d0: float = 0.5,
        min_distance: float = 1e-4,
        singular_threshold: float = 0.05,
        max_damping: float = 0.05,
        position_gain: float = 0.0,
        joint_limits: bool = True,
    ) -> None: ...
    def solve(
        self,
        q: npt.ArrayLike,
        desired_velocity: npt.ArrayLike,
        desired_position: npt.ArrayLike,
        dt: float,
    ) -> VelocityStep: ...
    def distances(self) -> List[PairDistance]: ...
    @property
    def end_effector_position(self) -> F64: ...
    @property
    def model(self) -> RobotModel: ...
    @property
    def scene(self) -> Scene: ...
    def simulate(
        self,
        q0: npt.ArrayLike,
        trajectory: Callable[[float], Tuple[npt.ArrayLike, npt.ArrayLike]],
        dt: float = 1e-3,
        duration: float = 1.0,
        record_every: int = 1,
    ) -> Dict[str, Any]: ...

class PlanResult:
    @property
    def solved(self) -> bool: ...
    @property
    def status(self) -> str: ...
    @property
    def joint_names(self) -> List[str]: ...
    @property
    def path(self) -> F64: ...
    @property
    def full_path(self) -> F64: ...
    @property
    def length(self) -> float: ...
    @property
    def plan_seconds(self) -> float: ...
    @property
    def simplify_seconds(self) -> float: ...
    @property
    def valid_motions(self) -> int: ...
    @property
    def invalid_motions(self) -> int: ...

def plan(
    world: CollisionWorld,
    start: npt.ArrayLike,
    goal: npt.ArrayLike,
    planner: str = "rrtconnect",
    time_limit: float = 5.0,
    margin: float = 0.0,
    fixed: Mapping[str, float] = ...,
    seed: Optional[int] = None,
    simplify: bool = True,
    self_collision: bool = True,
    max_iterations: int = 0,
) -> PlanResult: ...

class MotionCertificate:
    @property
    def valid(self) -> bool: ...
    @property
    def step_limit(self) -> bool: ...
    @property
    def steps(self) -> int: ...
    @property
    def pair_queries(self) -> int: ...
    @property
    def last_valid(self) -> float: ...
    @property
    def min_clearance(self) -> float: ...
    def __bool__(self) -> bool: ...

class MotionValidator:
    def __init__(
        self,
        world: CollisionWorld,
        margin: float = 0.0,
        fixed: Mapping[str, float] = ...,
        self_collision: bool = True,
        max_steps: int = 20000,
    ) -> None: ...
    @property
    def joint_names(self) -> List[str]: ...
    def certify(self, q1: npt.ArrayLike, q2: npt.ArrayLike) -> MotionCertificate: ...
    def is_valid(self, q: npt.ArrayLike) -> bool: ...
