// The engine's queries between a convex robot shape and any obstacle (convex shape, exact
// triangle mesh, occupied cells): one dispatch on the obstacle's kind, used by the distances,
// the planner's checkers and the clearance analysis alike.
#pragma once

#include "gjk/mesh.hpp"
#include "gjk/queries.hpp"
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

/// Bounding sphere of the obstacle in the world: centre and radius (for coarse culling).
struct ObstacleBall {
  Vec3 centre = Vec3::Zero();  ///< world frame
  double radius = 0.0;         ///< every point of the obstacle is within it
};

/// A sphere containing the obstacle at its pose.
ObstacleBall bounding_ball(const Obstacle& obstacle);

/// A sphere containing a convex shape, in the shape's own frame.
ObstacleBall shape_ball(const Shape& shape);

}  // namespace gjk::robots
