// The engine's queries between a convex robot shape and any obstacle (convex shape, exact
// triangle mesh, occupied cells): one dispatch on the obstacle's kind, used by the distances,
// the planner's checkers and the clearance analysis alike.
#pragma once

#include "gjk/mesh.hpp"
#include "gjk/mesh_pair.hpp"
#include "gjk/queries.hpp"
#include "gjk/robots/robot_model.hpp"
#include "gjk/robots/scene.hpp"

#include <limits>

namespace gjk::robots {

/// Signed distance from `shape` at `pose` to the obstacle (a mesh is a surface and cells a union
/// of boxes: see gjk/mesh.hpp for what "overlap" means there). `warm` is used for convex
/// obstacles only and may be null. For meshes and cells, parts at least `max_distance` away
/// are pruned and +inf is returned when nothing is nearer (a caller's best so far), and `hit`
/// (may be null) is their warm start (gjk::PrimitiveHit); convex obstacles ignore both.
SignedDistanceResult signed_distance(const Shape& shape, const Pose& pose, const Obstacle& obstacle,
                                     const QueryOptions& options, WarmStart* warm = nullptr,
                                     double max_distance = std::numeric_limits<double>::infinity(),
                                     PrimitiveHit* hit = nullptr);

/// Distance (0 when overlapping) with witness points; `warm` and `max_distance` as for
/// signed_distance.
DistanceResult distance(const Shape& shape, const Pose& pose, const Obstacle& obstacle,
                        const QueryOptions& options, WarmStart* warm = nullptr,
                        double max_distance = std::numeric_limits<double>::infinity());

/// Whether the distance is below `threshold` (overlap counts), stopping as soon as it is known.
ThresholdResult closer_than(const Shape& shape, const Pose& pose, const Obstacle& obstacle,
                            double threshold, const QueryOptions& options,
                            WarmStart* warm = nullptr);

// Robot collision elements (CollisionShape): a convex shape, or a link's exact triangles
// (CollisionShape::mesh, a surface). The queries below pick the engine's query for each
// combination; a mesh element is first tested through its hull where that can end the query
// (nothing outside the hull can touch the mesh).

/// Signed distance from a robot element at `pose` to the obstacle. `warm` serves convex pairs
/// only; `hit` (may be null) the pairs with a mesh or cells: primitive_a is the element's
/// triangle, primitive_b the obstacle's triangle or cell. `max_distance` as above (pairs with a
/// mesh or cells only).
SignedDistanceResult signed_distance(const CollisionShape& element, const Pose& pose,
                                     const Obstacle& obstacle, const QueryOptions& options,
                                     WarmStart* warm = nullptr,
                                     double max_distance = std::numeric_limits<double>::infinity(),
                                     MeshPairHit* hit = nullptr);

/// Distance (0 when overlapping) from a robot element to the obstacle, with witness points.
DistanceResult distance(const CollisionShape& element, const Pose& pose, const Obstacle& obstacle,
                        const QueryOptions& options, WarmStart* warm = nullptr,
                        double max_distance = std::numeric_limits<double>::infinity());

/// Whether a robot element is closer than `threshold` to the obstacle (overlap counts).
ThresholdResult closer_than(const CollisionShape& element, const Pose& pose,
                            const Obstacle& obstacle, double threshold, const QueryOptions& options,
                            WarmStart* warm = nullptr);

/// Signed distance between two robot elements (a self pair); witness points and normal from `a`
/// towards `b`. `warm`, `max_distance` and `hit` as for an element and an obstacle.
SignedDistanceResult signed_distance(const CollisionShape& a, const Pose& pose_a,
                                     const CollisionShape& b, const Pose& pose_b,
                                     const QueryOptions& options, WarmStart* warm = nullptr,
                                     double max_distance = std::numeric_limits<double>::infinity(),
                                     MeshPairHit* hit = nullptr);

/// Distance (0 when overlapping) between two robot elements.
DistanceResult distance(const CollisionShape& a, const Pose& pose_a, const CollisionShape& b,
                        const Pose& pose_b, const QueryOptions& options, WarmStart* warm = nullptr);

/// Whether two robot elements are closer than `threshold` (overlap counts; threshold 0 asks
/// "touching?").
ThresholdResult closer_than(const CollisionShape& a, const Pose& pose_a, const CollisionShape& b,
                            const Pose& pose_b, double threshold, const QueryOptions& options,
                            WarmStart* warm = nullptr);

/// Whether the element and the obstacle are both convex: one GJK query with a warm start, whose
/// distance ignores `max_distance` (the callers' pruning differs from the hierarchies').
inline bool convex_pair(const CollisionShape& element, const Obstacle& obstacle) {
  return !element.mesh && obstacle.kind() == ObstacleKind::Convex;
}

/// Whether both robot elements are convex (see the obstacle overload).
inline bool convex_pair(const CollisionShape& a, const CollisionShape& b) {
  return !a.mesh && !b.mesh;
}

/// Bounding sphere of the obstacle in the world: centre and radius (for coarse culling).
struct ObstacleBall {
  Vec3 centre = Vec3::Zero();  ///< world frame
  double radius = 0.0;         ///< every point of the obstacle is within it
};

/// A sphere containing the obstacle at its pose.
ObstacleBall bounding_ball(const Obstacle& obstacle);

/// A sphere containing a convex shape, in the shape's own frame.
ObstacleBall shape_ball(const Shape& shape);

/// How far any point of a shape inside `ball` (its shape_ball, shape frame) can have moved
/// between the poses `before` and `now`: the centre's displacement plus the radius times the
/// rotation's change (spectral norm <= Frobenius norm). The distance to anything that stayed
/// put changes by at most this (distance is 1-Lipschitz in each body's points).
inline double ball_motion_bound(const ObstacleBall& ball, const Pose& before, const Pose& now) {
  return (now * ball.centre - before * ball.centre).norm() +
         ball.radius * (now.linear() - before.linear()).norm();
}

}  // namespace gjk::robots
