"""Robots: URDF models and kinematics, scenes, robot distances with gradients, SRDF, the
allowed-collision matrix and the collision world.

Joint vectors ``q`` are ``(num_positions,)`` arrays in ``RobotModel.position_names`` order; poses
are ``(4, 4)`` homogeneous arrays in the world frame. Queries release the GIL.

    >>> from libgjk import robots
    >>> panda = robots.RobotModel.from_urdf("panda.urdf")          # doctest: +SKIP
    >>> world = robots.CollisionWorld(panda, robots.load_scene("cell.yaml"))  # doctest: +SKIP
    >>> world.closest(q).distance                                   # doctest: +SKIP
"""

from __future__ import annotations

from ._core import robots as _robots

AllowedCollisionMatrix = _robots.AllowedCollisionMatrix
AttachedObject = _robots.AttachedObject
CollisionShape = _robots.CollisionShape
CollisionWorld = _robots.CollisionWorld
Joint = _robots.Joint
Link = _robots.Link
ModelError = _robots.ModelError
Obstacle = _robots.Obstacle
PairDistance = _robots.PairDistance
PathError = _robots.PathError
RobotModel = _robots.RobotModel
Scene = _robots.Scene
SceneError = _robots.SceneError
Srdf = _robots.Srdf
SrdfError = _robots.SrdfError
WorldContext = _robots.WorldContext
acm_from_srdf = _robots.acm_from_srdf
check_base_pose = _robots.check_base_pose
clearance_along = _robots.clearance_along
generate_disabled_collisions = _robots.generate_disabled_collisions
group_joints = _robots.group_joints
load_scene = _robots.load_scene
load_srdf = _robots.load_srdf
minimum_distance = _robots.minimum_distance
named_base_pose = _robots.named_base_pose
named_state = _robots.named_state
parse_scene = _robots.parse_scene
parse_srdf = _robots.parse_srdf
read_path = _robots.read_path
robot_scene_distances = _robots.robot_scene_distances
self_collision_pairs = _robots.self_collision_pairs
self_distances = _robots.self_distances

__all__ = [
    "AllowedCollisionMatrix",
    "AttachedObject",
    "CollisionShape",
    "CollisionWorld",
    "Joint",
    "Link",
    "ModelError",
    "Obstacle",
    "PairDistance",
    "PathError",
    "RobotModel",
    "Scene",
    "SceneError",
    "Srdf",
    "SrdfError",
    "WorldContext",
    "acm_from_srdf",
    "check_base_pose",
    "clearance_along",
    "generate_disabled_collisions",
    "group_joints",
    "load_scene",
    "load_srdf",
    "minimum_distance",
    "named_base_pose",
    "named_state",
    "parse_scene",
    "parse_srdf",
    "read_path",
    "robot_scene_distances",
    "self_collision_pairs",
    "self_distances",
]
