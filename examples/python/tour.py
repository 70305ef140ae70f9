#!/usr/bin/env python3
"""A tour of libgjk from Python, to read top to bottom (and run: every step prints).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/tour.py

1. The engine: convex shapes at 4x4 poses, exact distances with witness points.
2. Batches: many poses at once as (N, 4, 4) arrays, the GIL released.
3. A robot: URDF, joint limits, forward kinematics, point Jacobians.
4. Robot-scene distances and their gradients with respect to the joints.
5. The collision world: obstacles, allowed collisions, attached objects; per-thread contexts.
6. Clearance along a path (the numbers of the gjk-clearance tool).
7. Planning: the velocity inversion of seed 002, OMPL with certified motions.
"""

from __future__ import annotations

import os
import threading

import numpy as np

import libgjk
from libgjk import planner, robots

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
MODELS = os.environ.get("GJK_SHARED_ROBOT_MODELS",
                        os.path.join(SOURCE, "..", "shared", "robot-models"))
np.set_printoptions(precision=4, suppress=True)

# ---------------------------------------------------------------------------------------------
# 1. The engine. Shapes are values; poses are 4x4 homogeneous arrays (libgjk.pose builds one from
#    a position and a w-x-y-z quaternion, pose_rpy from roll-pitch-yaw).
box = libgjk.Box([0.5, 0.5, 0.5])  # half extents
ball = libgjk.Sphere(0.25)
hull = libgjk.ConvexPolytope.from_points(np.random.default_rng(1).normal(size=(40, 3)))
r = libgjk.distance(box, np.eye(4), ball, libgjk.pose([2.0, 0.0, 0.0]))
print("1. box-ball distance", r.distance, "witnesses", r.point_on_a, r.point_on_b,
      "status", r.status.name)
p = libgjk.penetration(box, np.eye(4), hull, libgjk.pose_rpy([0.5, 0, 0], [0, 0, 0.3]))
print("   box-hull overlap: EPA depth", round(p.depth, 6), "along", p.normal)

# ---------------------------------------------------------------------------------------------
# 2. Batches: one call for many poses; results are dicts of arrays.
xs = np.linspace(1.0, 3.0, 5)
poses = np.stack([libgjk.pose([x, 0.0, 0.0]) for x in xs])  # (5, 4, 4)
batch = libgjk.distance_batch(box, np.eye(4), ball, poses)
print("2. batch distances", batch["distance"])

# ---------------------------------------------------------------------------------------------
# 3. A robot. q is a (num_positions,) array in position_names order.
panda = robots.RobotModel.from_urdf(os.path.join(MODELS, "panda", "panda.urdf"))
print("3.", panda)
print("   joints", panda.position_names)
print("   lower limits", panda.lower_limits)
srdf = robots.load_srdf(os.path.join(MODELS, "panda", "panda.srdf"), panda)
q = robots.named_state(panda, srdf, "ready", base=np.full(8, 0.02))  # fingers 2 cm apart
hand = panda.link_poses(q)["panda_hand"]  # {link name: (4, 4)}; forward_kinematics: (L, 4, 4)
print("   hand at 'ready'", hand[:3, 3])
J = panda.point_jacobian(q, "panda_hand", hand[:3, 3])  # (6, 8): linear rows, then angular
print("   hand point Jacobian, linear rows\n", J[:3])

# ---------------------------------------------------------------------------------------------
# 4. Distances to a scene, with gradients d distance / d q (seed 002 eq. 7).
boxes = robots.load_scene(os.path.join(SOURCE, "robots", "scenes", "panda_boxes.yaml"))
pairs = robots.robot_scene_distances(panda, boxes, q)  # every (link shape, box) pair
print(f"4. {len(pairs)} pairs; closest overall: "
      f"{robots.minimum_distance(panda, boxes, q).label_a} at "
      f"{robots.minimum_distance(panda, boxes, q).distance:.4f} m (the base: no joint moves it)")
moving = min((p for p in pairs if np.linalg.norm(p.gradient) > 1e-6), key=lambda p: p.distance)
print(f"   closest pair that q moves: {moving.label_a} / {moving.name_b} at "
      f"{moving.distance:.4f} m, gradient {moving.gradient}")
step = 1e-3 * moving.gradient / np.linalg.norm(moving.gradient)
after = next(p for p in robots.robot_scene_distances(panda, boxes, q + step)
             if (p.shape, p.obstacle) == (moving.shape, moving.obstacle))
print(f"   a 1e-3 step along the gradient: {moving.distance:.6f} -> {after.distance:.6f} m")

# ---------------------------------------------------------------------------------------------
# 5. The collision world: the Panda in a cell (a mesh shelf, voxels from a point cloud, boxes),
#    the SRDF's allowed collisions, a part in the gripper. Queries release the GIL.
cell = robots.load_scene(os.path.join(SOURCE, "robots", "scenes", "panda_cell.yaml"))
world = robots.CollisionWorld(panda, cell, robots.acm_from_srdf(panda, srdf))
print("5.", world, "obstacles:", world.obstacle_names)
# The base stands on the table 1 cm above it; let the matrix allow that pair (an override).
acm = world.allowed_collisions
acm.allow("panda_link0", "table")
world.set_allowed_collisions(acm)
c = world.closest(q)
print(f"   closest {c.label_a} / {c.label_b} at {c.distance:.4f} m; in collision within 1 cm:",
      world.in_collision(q, margin=0.01))
world.add_obstacle("post", libgjk.Cylinder(0.03, 0.4), libgjk.pose(hand[:3, 3] + [0.1, 0, 0]))
post = min((p for p in world.distances(q) if p.name_b == "post"), key=lambda p: p.distance)
print(f"   a post added next to the hand: {post.label_a} / post at {post.distance:.4f} m")
world.remove_obstacle("post")


# Several threads: one WorldContext each (its own warm starts); they run in parallel.
def sweep(out: list, joint: int) -> None:
    context = robots.WorldContext(world)
    for angle in np.linspace(-0.5, 0.5, 50):
        qq = q.copy()
        qq[joint] += angle
        out.append(context.closest(qq, gradient=False).distance)


results: list[list[float]] = [[] for _ in range(3)]
threads = [threading.Thread(target=sweep, args=(results[k], k)) for k in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("   three threads, minimum clearance per sweep:", [round(min(r), 4) for r in results])

# ---------------------------------------------------------------------------------------------
# 6. Clearance along a path: (M, num_positions) in, per-state arrays out.
path = np.linspace(q, q + np.array([1.2, 0.3, 0, 0.4, 0, 0, 0, 0]), 200)
along = robots.clearance_along(world, path)
i = along["minimum_state"]
print(f"6. path of {len(path)} states: minimum {along['minimum']:.4f} m at state {i} "
      f"({along['shape_label'][i]} / {along['obstacle'][i]})")
# clearance_along measures every pair (gjk-clearance's per-pair output); for the closest pair
# per state only, self pairs included, one call walks the path with warm starts:
fast = world.closest_along(path)
print(f"   closest pair per state, self pairs too: minimum {fast['distance'].min():.4f} m; "
      f"states within 2 cm: {world.in_collision_along(path, margin=0.02).sum()}")

# ---------------------------------------------------------------------------------------------
# 7. Planning. The velocity inversion of seed 002 (eq. 6) on its 4-DOF arm and two pyramids:
arm = robots.RobotModel.from_urdf(os.path.join(SOURCE, "robots", "models", "four_dof",
                                               "four_dof_arm.urdf"))
pyramids = robots.load_scene(os.path.join(SOURCE, "robots", "scenes", "two_pyramids.yaml"))
q_arm = np.radians([0.0, 90.0, -150.0, -30.0])
inversion = planner.VelocityInversion(arm, pyramids, "end_effector", k=-1.0, d0=0.5)
ee = arm.link_poses(q_arm)["end_effector"][:3, 3]
s = inversion.solve(q_arm, [0.0, -0.1, 0.0], ee, dt=1e-3)
print("7. eq. 6 joint velocity", s.qdot, "potential", round(s.potential, 4))

# OMPL with libgjk's checkers: every accepted motion is certified by conservative advancement.
arm_world = robots.CollisionWorld(arm, pyramids)
result = planner.plan(arm_world, q_arm, [0.0, 1.2, 1.9, 1.0], planner="rrtconnect",
                      time_limit=5.0)
print(f"   planned: {result.solved}, {len(result.path)} waypoints, length {result.length:.3f}")
check = planner.MotionValidator(arm_world)
print("   every segment certified:",
      all(check.certify(a, b).valid for a, b in zip(result.path[:-1], result.path[1:])),
      "; the straight motion:", bool(check.certify(q_arm, [0.0, 1.2, 1.9, 1.0])))
