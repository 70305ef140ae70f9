// One dispatch on the obstacle's kind (issue 17): convex obstacles go to the convex engine with
// their warm start, meshes and cells to the engine's bounding-volume hierarchies.
#include "gjk/robots/obstacle_queries.hpp"

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

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

/// The answer for (B, A) from the answer for (A, B): witness points exchanged, normal reversed.
SignedDistanceResult swapped(SignedDistanceResult r) {
  std::swap(r.point_on_a, r.point_on_b);
  r.normal = -r.normal;
  return r;
}

DistanceResult swapped(DistanceResult r) {
  std::swap(r.point_on_a, r.point_on_b);
  std::swap(r.feature_on_a, r.feature_on_b);
  r.normal = -r.normal;
  return r;
}

/// What a mesh element's hull says when it is not closer: the hull's lower bound holds for the
/// mesh inside it, its upper bound does not.
ThresholdResult not_closer_than_hull(ThresholdResult hull) {
  hull.upper_bound = std::numeric_limits<double>::infinity();
  return hull;
}

/// A mesh element against an obstacle of any kind, signed or not (Result picks the query).
template <class Result>
Result mesh_element_query(const TriangleMesh& mesh, const Pose& pose, const Obstacle& obstacle,
                          const QueryOptions& options, double max_distance, MeshPairHit* hit) {
  constexpr bool kSigned = std::is_same_v<Result, SignedDistanceResult>;
  switch (obstacle.kind()) {
    case ObstacleKind::Mesh:
      if constexpr (kSigned)
        return gjk::signed_distance(mesh, pose, *obstacle.mesh, obstacle.pose, options, hit,
                                    max_distance);
      else
        return gjk::distance(mesh, pose, *obstacle.mesh, obstacle.pose, options, hit, max_distance);
    case ObstacleKind::Cells:
      if constexpr (kSigned)
        return gjk::signed_distance(mesh, pose, *obstacle.cells, obstacle.pose, options, hit,
                                    max_distance);
      else
        return gjk::distance(mesh, pose, *obstacle.cells, obstacle.pose, options, hit,
                             max_distance);
    case ObstacleKind::Convex:
      break;
  }
  // The engine measures a convex shape against a mesh; the element is the mesh here.
  PrimitiveHit triangle{hit ? hit->primitive_a : -1};
  Result r;
  if constexpr (kSigned)
    r = swapped(gjk::signed_distance(obstacle.shape, obstacle.pose, mesh, pose, options, &triangle,
                                     max_distance));
  else
    r = swapped(
        gjk::distance(obstacle.shape, obstacle.pose, mesh, pose, options, &triangle, max_distance));
  if (hit) *hit = MeshPairHit{triangle.primitive, -1};
  return r;
}

/// Two robot elements, at least one of them a mesh.
template <class Result>
Result mesh_elements_query(const CollisionShape& a, const Pose& pose_a, const CollisionShape& b,
                           const Pose& pose_b, const QueryOptions& options, double max_distance,
                           MeshPairHit* hit) {
  constexpr bool kSigned = std::is_same_v<Result, SignedDistanceResult>;
  const auto query = [&](const auto& x, const Pose& px, const auto& y, const Pose& py,
                         auto* pair_hit) {
    if constexpr (kSigned)
      return gjk::signed_distance(x, px, y, py, options, pair_hit, max_distance);
    else
      return gjk::distance(x, px, y, py, options, pair_hit, max_distance);
  };
  if (a.mesh && b.mesh) return query(*a.mesh, pose_a, *b.mesh, pose_b, hit);
  if (b.mesh) {
    PrimitiveHit triangle{hit ? hit->primitive_b : -1};
    Result r = query(a.shape, pose_a, *b.mesh, pose_b, &triangle);
    if (hit) *hit = MeshPairHit{-1, triangle.primitive};
    return r;
  }
  PrimitiveHit triangle{hit ? hit->primitive_a : -1};
  Result r = swapped(query(b.shape, pose_b, *a.mesh, pose_a, &triangle));
  if (hit) *hit = MeshPairHit{triangle.primitive, -1};
  return r;
}

}  // namespace

SignedDistanceResult signed_distance(const CollisionShape& element, const Pose& pose,
                                     const Obstacle& obstacle, const QueryOptions& options,
                                     WarmStart* warm, double max_distance, MeshPairHit* hit) {
  if (element.mesh)
    return mesh_element_query<SignedDistanceResult>(*element.mesh, pose, obstacle, options,
                                                    max_distance, hit);
  PrimitiveHit primitive{hit ? hit->primitive_b : -1};
  SignedDistanceResult r =
      signed_distance(element.shape, pose, obstacle, options, warm, max_distance, &primitive);
  if (hit) *hit = MeshPairHit{-1, primitive.primitive};
  return r;
}

DistanceResult distance(const CollisionShape& element, const Pose& pose, const Obstacle& obstacle,
                        const QueryOptions& options, WarmStart* warm, double max_distance) {
  if (element.mesh)
    return mesh_element_query<DistanceResult>(*element.mesh, pose, obstacle, options, max_distance,
                                              nullptr);
  return distance(element.shape, pose, obstacle, options, warm, max_distance);
}

ThresholdResult closer_than(const CollisionShape& element, const Pose& pose,
                            const Obstacle& obstacle, double threshold, const QueryOptions& options,
                            WarmStart* warm) {
  // A mesh element's hull first: usually far, and then the answer (the warm start is the hull's).
  const ThresholdResult hull = closer_than(element.shape, pose, obstacle, threshold, options, warm);
  if (!element.mesh || !hull.closer || hull.status == Status::InvalidInput)
    return element.mesh ? not_closer_than_hull(hull) : hull;
  switch (obstacle.kind()) {
    case ObstacleKind::Mesh:
      return gjk::closer_than(*element.mesh, pose, *obstacle.mesh, obstacle.pose, threshold,
                              options);
    case ObstacleKind::Cells:
      return gjk::closer_than(*element.mesh, pose, *obstacle.cells, obstacle.pose, threshold,
                              options);
    case ObstacleKind::Convex:
      break;
  }
  return gjk::closer_than(obstacle.shape, obstacle.pose, *element.mesh, pose, threshold, options);
}

SignedDistanceResult signed_distance(const CollisionShape& a, const Pose& pose_a,
                                     const CollisionShape& b, const Pose& pose_b,
                                     const QueryOptions& options, WarmStart* warm,
                                     double max_distance, MeshPairHit* hit) {
  if (a.mesh || b.mesh)
    return mesh_elements_query<SignedDistanceResult>(a, pose_a, b, pose_b, options, max_distance,
                                                     hit);
  return warm ? gjk::signed_distance(a.shape, pose_a, b.shape, pose_b, options, *warm)
              : gjk::signed_distance(a.shape, pose_a, b.shape, pose_b, options);
}

DistanceResult distance(const CollisionShape& a, const Pose& pose_a, const CollisionShape& b,
                        const Pose& pose_b, const QueryOptions& options, WarmStart* warm) {
  if (a.mesh || b.mesh)
    return mesh_elements_query<DistanceResult>(a, pose_a, b, pose_b, options,
                                               std::numeric_limits<double>::infinity(), nullptr);
  return warm ? gjk::distance(a.shape, pose_a, b.shape, pose_b, options, *warm)
              : gjk::distance(a.shape, pose_a, b.shape, pose_b, options);
}

ThresholdResult closer_than(const CollisionShape& a, const Pose& pose_a, const CollisionShape& b,
                            const Pose& pose_b, double threshold, const QueryOptions& options,
                            WarmStart* warm) {
  // The hulls first (the elements' shapes): exact for convex elements, a bound for meshes.
  const ThresholdResult hulls =
      warm ? gjk::closer_than(a.shape, pose_a, b.shape, pose_b, threshold, options, *warm)
           : gjk::closer_than(a.shape, pose_a, b.shape, pose_b, threshold, options);
  const bool meshes = a.mesh || b.mesh;
  if (!meshes) return hulls;
  if (!hulls.closer || hulls.status == Status::InvalidInput) return not_closer_than_hull(hulls);
  if (a.mesh && b.mesh)
    return gjk::closer_than(*a.mesh, pose_a, *b.mesh, pose_b, threshold, options);
  if (b.mesh) return gjk::closer_than(a.shape, pose_a, *b.mesh, pose_b, threshold, options);
  return gjk::closer_than(b.shape, pose_b, *a.mesh, pose_a, threshold, options);
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
    b.centre = hull->ball_center();  // the smallest enclosing ball
    b.radius = hull->ball_radius();
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
