// One dispatch on the obstacle's kind (issue 17): convex obstacles go to the convex engine with
// their warm start, meshes and cells to the engine's bounding-volume hierarchies.
#include "gjk/robots/obstacle_queries.hpp"

#include <cmath>

namespace gjk::robots {

SignedDistanceResult signed_distance(const Shape& shape, const Pose& pose, const Obstacle& obstacle,
                                     const QueryOptions& options, WarmStart* warm,
                                     double max_distance, PrimitiveHit* hit) {
  switch (obstacle.kind()) {
    case ObstacleKind::Mesh:
      return gjk::signed_distance(shape, pose, *obstacle.mesh, obstacle.pose, options, hit,
                                  max_distance);
    case ObstacleKind::Cells:
      return gjk::signed_distance(shape, pose, *obstacle.cells, obstacle.pose, options, hit,
                                  max_distance);
    case ObstacleKind::Convex:
      break;
  }
  return warm ? gjk::signed_distance(shape, pose, obstacle.shape, obstacle.pose, options, *warm)
              : gjk::signed_distance(shape, pose, obstacle.shape, obstacle.pose, options);
}

DistanceResult distance(const Shape& shape, const Pose& pose, const Obstacle& obstacle,
                        const QueryOptions& options, WarmStart* warm, double max_distance) {
  switch (obstacle.kind()) {
    case ObstacleKind::Mesh:
      return gjk::distance(shape, pose, *obstacle.mesh, obstacle.pose, options, nullptr,
                           max_distance);
    case ObstacleKind::Cells:
      return gjk::distance(shape, pose, *obstacle.cells, obstacle.pose, options, nullptr,
                           max_distance);
    case ObstacleKind::Convex:
      break;
  }
  return warm ? gjk::distance(shape, pose, obstacle.shape, obstacle.pose, options, *warm)
              : gjk::distance(shape, pose, obstacle.shape, obstacle.pose, options);
}

ThresholdResult closer_than(const Shape& shape, const Pose& pose, const Obstacle& obstacle,
                            double threshold, const QueryOptions& options, WarmStart* warm) {
  switch (obstacle.kind()) {
    case ObstacleKind::Mesh:
      return gjk::closer_than(shape, pose, *obstacle.mesh, obstacle.pose, threshold, options);
    case ObstacleKind::Cells:
      return gjk::closer_than(shape, pose, *obstacle.cells, obstacle.pose, threshold, options);
    case ObstacleKind::Convex:
      break;
  }
  return warm ? gjk::closer_than(shape, pose, obstacle.shape, obstacle.pose, threshold, options,
                                 *warm)
              : gjk::closer_than(shape, pose, obstacle.shape, obstacle.pose, threshold, options);
}

namespace {

ObstacleBall ball_of_box(const Eigen::AlignedBox3d& box, const Pose& pose) {
  return {pose * box.center(), 0.5 * box.diagonal().norm()};
}

}  // namespace

ObstacleBall shape_ball(const Shape& s) {
  ObstacleBall b;
  if (const auto* sphere = std::get_if<Sphere>(&s.geometry)) {
    b.radius = sphere->radius;
  } else if (const auto* box = std::get_if<Box>(&s.geometry)) {
    b.radius = box->half_extents.norm();
  } else if (const auto* capsule = std::get_if<Capsule>(&s.geometry)) {
    b.radius = capsule->half_length + capsule->radius;
  } else if (const auto* cylinder = std::get_if<Cylinder>(&s.geometry)) {
    b.radius = std::hypot(cylinder->radius, cylinder->half_length);
  } else if (const auto* hull = std::get_if<ConvexPolytope>(&s.geometry)) {
    b.centre = hull->center();
    b.radius = hull->bounding_radius();
  }
  b.radius += s.inflation;
  return b;
}

ObstacleBall bounding_ball(const Obstacle& obstacle) {
  switch (obstacle.kind()) {
    case ObstacleKind::Mesh:
      return ball_of_box(obstacle.mesh->local_bounds(), obstacle.pose);
    case ObstacleKind::Cells:
      return ball_of_box(obstacle.cells->local_bounds(), obstacle.pose);
    case ObstacleKind::Convex:
      break;
  }
  ObstacleBall b = shape_ball(obstacle.shape);
  b.centre = obstacle.pose * b.centre;
  return b;
}

}  // namespace gjk::robots
