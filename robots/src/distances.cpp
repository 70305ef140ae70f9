// Robot-scene distances and their gradients (seed 002 eq. 7).
#include "gjk/robots/distances.hpp"

namespace gjk::robots {
namespace {

PairDistance exact_pair(const RobotModel& model, const Workspace& ws, const Scene& scene, int shape, int obstacle,
                        const DistanceOptions& options, DistanceCache* cache) {
  const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(shape)];
  const Obstacle& o = scene.obstacles[static_cast<size_t>(obstacle)];
  const Pose link_shape_pose = collision_pose(model, ws, shape);
  WarmStart* warm = cache != nullptr ? cache->get(shape, obstacle) : nullptr;
  const SignedDistanceResult r = warm != nullptr
                                     ? signed_distance(c.shape, link_shape_pose, o.shape, o.pose, options.query, *warm)
                                     : signed_distance(c.shape, link_shape_pose, o.shape, o.pose, options.query);
  PairDistance d;
  d.shape = shape;
  d.obstacle = obstacle;
  d.distance = r.signed_distance;
  d.point_on_link = r.point_on_a;
  d.point_on_obstacle = r.point_on_b;
  d.normal = r.normal;
  d.status = r.status;
  if (options.gradients) {
    // The link's witness point moves with the link: d(distance)/dq = -n . dp/dq (seed 002 eq. 7).
    const auto jac = point_jacobian(model, ws, c.link, r.point_on_a);
    d.gradient = -(jac.topRows<3>().transpose() * r.normal);
  }
  return d;
}

}  // namespace

std::vector<PairDistance> robot_scene_distances(const RobotModel& model, const Workspace& ws, const Scene& scene,
                                                const DistanceOptions& options, DistanceCache* cache) {
  std::vector<PairDistance> out;
  const int shapes = static_cast<int>(model.collision_shapes().size());
  const int obstacles = static_cast<int>(scene.obstacles.size());
  for (int s = 0; s < shapes; ++s) {
    for (int o = 0; o < obstacles; ++o) {
      if (std::isfinite(options.cutoff)) {
        const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(s)];
        const Obstacle& obstacle = scene.obstacles[static_cast<size_t>(o)];
        const ThresholdResult near =
            closer_than(c.shape, collision_pose(model, ws, s), obstacle.shape, obstacle.pose, options.cutoff, options.query);
        if (!near.closer) continue;  // certified farther than the cutoff
      }
      out.push_back(exact_pair(model, ws, scene, s, o, options, cache));
    }
  }
  return out;
}

PairDistance minimum_distance(const RobotModel& model, const Workspace& ws, const Scene& scene,
                              const DistanceOptions& options, DistanceCache* cache) {
  PairDistance best;
  double bound = options.cutoff;
  DistanceOptions exact = options;
  exact.gradients = false;
  const int shapes = static_cast<int>(model.collision_shapes().size());
  const int obstacles = static_cast<int>(scene.obstacles.size());
  for (int s = 0; s < shapes; ++s) {
    for (int o = 0; o < obstacles; ++o) {
      if (std::isfinite(bound)) {
        const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(s)];
        const Obstacle& obstacle = scene.obstacles[static_cast<size_t>(o)];
        // Early exit: a pair that cannot beat the best so far needs no exact distance.
        const ThresholdResult near =
            closer_than(c.shape, collision_pose(model, ws, s), obstacle.shape, obstacle.pose, bound, options.query);
        if (!near.closer) continue;
      }
      PairDistance d = exact_pair(model, ws, scene, s, o, exact, cache);
      if (best.shape < 0 || d.distance < best.distance) {
        best = std::move(d);
        bound = std::max(best.distance, 0.0);  // overlap: every pair must still be checked
        if (best.distance < 0.0) bound = std::numeric_limits<double>::infinity();
      }
    }
  }
  if (best.shape >= 0 && options.gradients) {
    const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(best.shape)];
    best.gradient = -(point_jacobian(model, ws, c.link, best.point_on_link).topRows<3>().transpose() * best.normal);
  }
  return best;
}

}  // namespace gjk::robots
