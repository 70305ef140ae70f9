// Robot-scene distances and their gradients (seed 002 eq. 7).
#include "gjk/robots/distances.hpp"

#include "gjk/robots/obstacle_queries.hpp"

#include <algorithm>
#include <cmath>

namespace gjk::robots {
namespace {

void fill(const SignedDistanceResult& r, int first, int second, PairDistance& d) {
  d.shape = first;
  d.obstacle = second;
  d.distance = r.signed_distance;
  d.point_on_link = r.point_on_a;
  d.point_on_obstacle = r.point_on_b;
  d.normal = r.normal;
  d.status = r.status;
}

}  // namespace

void shape_obstacle_distance(const RobotModel& model, const Workspace& ws, const Scene& scene,
                             int shape, const Pose& shape_pose, int obstacle,
                             const DistanceOptions& options, WarmStart* warm, PairDistance& out) {
  const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(shape)];
  const Obstacle& o = scene.obstacles[static_cast<size_t>(obstacle)];
  const SignedDistanceResult r = signed_distance(c, shape_pose, o, options.query, warm);
  fill(r, shape, obstacle, out);
  if (options.gradients) {
    // The link's witness point moves with the link: d(distance)/dq = -n . dp/dq (seed 002 eq. 7).
    // resize() keeps the storage when the size is right: no allocation after the first call.
    out.gradient.resize(model.num_positions());
    out.gradient.setZero();
    add_point_derivative(model, ws, c.link, r.point_on_a, r.normal, -1.0, out.gradient);
  } else {
    out.gradient.resize(0);
  }
}

void robot_scene_distances(const RobotModel& model, const Workspace& ws, const Scene& scene,
                           const DistanceOptions& options, DistanceCache* cache,
                           std::vector<PairDistance>& out) {
  size_t count = 0;
  const int shapes = static_cast<int>(model.collision_shapes().size());
  const int obstacles = static_cast<int>(scene.obstacles.size());
  for (int s = 0; s < shapes; ++s) {
    const Pose shape_pose = collision_pose(model, ws, s);  // once per shape, not per pair
    for (int o = 0; o < obstacles; ++o) {
      if (std::isfinite(options.cutoff)) {
        const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(s)];
        const Obstacle& obstacle = scene.obstacles[static_cast<size_t>(o)];
        const ThresholdResult near =
            closer_than(c, shape_pose, obstacle, options.cutoff, options.query);
        if (!near.closer) continue;  // certified farther than the cutoff
      }
      if (count == out.size()) out.emplace_back();
      shape_obstacle_distance(model, ws, scene, s, shape_pose, o, options,
                              cache != nullptr ? cache->get(s, o) : nullptr, out[count++]);
    }
  }
  out.resize(count);
}

std::vector<PairDistance> robot_scene_distances(const RobotModel& model, const Workspace& ws,
                                                const Scene& scene, const DistanceOptions& options,
                                                DistanceCache* cache) {
  std::vector<PairDistance> out;
  robot_scene_distances(model, ws, scene, options, cache, out);
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
    const Pose shape_pose = collision_pose(model, ws, s);
    for (int o = 0; o < obstacles; ++o) {
      if (std::isfinite(bound)) {
        const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(s)];
        const Obstacle& obstacle = scene.obstacles[static_cast<size_t>(o)];
        // Early exit: a pair that cannot beat the best so far needs no exact distance.
        const ThresholdResult near = closer_than(c, shape_pose, obstacle, bound, options.query);
        if (!near.closer) continue;
      }
      PairDistance d;
      shape_obstacle_distance(model, ws, scene, s, shape_pose, o, exact,
                              cache != nullptr ? cache->get(s, o) : nullptr, d);
      if (best.shape < 0 || d.distance < best.distance) {
        best = std::move(d);
        bound = std::max(best.distance, 0.0);  // overlap: every pair must still be checked
        if (best.distance < 0.0) bound = std::numeric_limits<double>::infinity();
      }
    }
  }
  if (best.shape >= 0 && options.gradients) {
    best.gradient = Eigen::VectorXd::Zero(model.num_positions());
    add_point_derivative(model, ws, model.collision_shapes()[static_cast<size_t>(best.shape)].link,
                         best.point_on_link, best.normal, -1.0, best.gradient);
  }
  return best;
}

std::vector<std::pair<int, int>> self_collision_pairs(
    const RobotModel& model, const std::vector<std::pair<std::string, std::string>>& allowed,
    bool exclude_adjacent) {
  const size_t links = model.links().size();
  // Moving joints between the root and each link, to count those between two links.
  auto moving_ancestors = [&](int link) {
    std::vector<int> chain;  // joint indices from the link up to the root
    for (int j = model.links()[static_cast<size_t>(link)].parent_joint; j >= 0;
         j = model.links()[static_cast<size_t>(model.joints()[static_cast<size_t>(j)].parent_link)]
                 .parent_joint) {
      if (model.joints()[static_cast<size_t>(j)].type != JointType::Fixed) chain.push_back(j);
    }
    return chain;
  };
  std::vector<std::vector<bool>> skip(links, std::vector<bool>(links, false));
  for (const auto& [a, b] : allowed) {
    const int la = model.link_index(a), lb = model.link_index(b);
    skip[static_cast<size_t>(la)][static_cast<size_t>(lb)] =
        skip[static_cast<size_t>(lb)][static_cast<size_t>(la)] = true;
  }
  if (exclude_adjacent) {
    for (size_t a = 0; a < links; ++a) {
      const std::vector<int> ca = moving_ancestors(static_cast<int>(a));
      for (size_t b = a + 1; b < links; ++b) {
        const std::vector<int> cb = moving_ancestors(static_cast<int>(b));
        // Moving joints on the path between a and b: those in exactly one of the two chains.
        int between = 0;
        for (int j : ca) between += std::find(cb.begin(), cb.end(), j) == cb.end() ? 1 : 0;
        for (int j : cb) between += std::find(ca.begin(), ca.end(), j) == ca.end() ? 1 : 0;
        if (between <= 1) skip[a][b] = skip[b][a] = true;
      }
    }
  }
  std::vector<std::pair<int, int>> pairs;
  const auto& shapes = model.collision_shapes();
  // An attached object's pieces collide with every link but their own and the touch links,
  // adjacent or not (an object in the hand can hit the forearm), and with other objects.
  const auto touches = [](const CollisionShape& object, int link) {
    return link == object.link || std::find(object.touch_links.begin(), object.touch_links.end(),
                                            link) != object.touch_links.end();
  };
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (size_t k = i + 1; k < shapes.size(); ++k) {
      const CollisionShape &a = shapes[i], &b = shapes[k];
      const int la = a.link, lb = b.link;
      const bool object_a = !a.attached_object.empty(), object_b = !b.attached_object.empty();
      if (object_a || object_b) {
        if (object_a && object_b) {
          if (a.attached_object == b.attached_object) continue;
        } else if (object_a ? touches(a, lb) : touches(b, la)) {
          continue;
        }
      } else if (la == lb || skip[static_cast<size_t>(la)][static_cast<size_t>(lb)]) {
        continue;
      }
      pairs.emplace_back(static_cast<int>(i), static_cast<int>(k));
    }
  }
  return pairs;
}

std::vector<PairDistance> self_distances(const RobotModel& model, const Workspace& ws,
                                         const std::vector<std::pair<int, int>>& pairs,
                                         const DistanceOptions& options) {
  std::vector<PairDistance> out;
  const auto& shapes = model.collision_shapes();
  for (const auto& [first, second] : pairs) {
    const CollisionShape& a = shapes[static_cast<size_t>(first)];
    const CollisionShape& b = shapes[static_cast<size_t>(second)];
    const Pose pa = collision_pose(model, ws, first), pb = collision_pose(model, ws, second);
    if (std::isfinite(options.cutoff) &&
        !closer_than(a, pa, b, pb, options.cutoff, options.query).closer) {
      continue;
    }
    const SignedDistanceResult r = signed_distance(a, pa, b, pb, options.query);
    PairDistance d;
    fill(r, first, second, d);
    if (options.gradients) {
      // Both witness points move: d(distance)/dq = n . (dp_b/dq - dp_a/dq).
      d.gradient = Eigen::VectorXd::Zero(model.num_positions());
      add_point_derivative(model, ws, a.link, r.point_on_a, r.normal, -1.0, d.gradient);
      add_point_derivative(model, ws, b.link, r.point_on_b, r.normal, 1.0, d.gradient);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace gjk::robots
