"""Planning: the velocity inversion of seed 002 (eq. 6), OMPL planning with the libgjk checkers
(every accepted motion certified by conservative advancement), and the certified motion check.
Planning and solving release the GIL."""

from __future__ import annotations

from ._core import planner as _planner

MotionCertificate = _planner.MotionCertificate
MotionValidator = _planner.MotionValidator
PlanResult = _planner.PlanResult
PlannerError = _planner.PlannerError
VelocityInversion = _planner.VelocityInversion
VelocityStep = _planner.VelocityStep
pair_potential = _planner.pair_potential
pair_potential_slope = _planner.pair_potential_slope
plan = _planner.plan

__all__ = [
    "MotionCertificate",
    "MotionValidator",
    "PlanResult",
    "PlannerError",
    "VelocityInversion",
    "VelocityStep",
    "pair_potential",
    "pair_potential_slope",
    "plan",
]
