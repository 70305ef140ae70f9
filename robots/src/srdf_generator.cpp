#include "gjk/robots/srdf_generator.hpp"

#include "gjk/queries.hpp"
#include "gjk/robots/allowed_collisions.hpp"
#include "gjk/robots/obstacle_queries.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>

namespace gjk::robots {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct LinkPair {
  int a = -1, b = -1;  // link indices
  int collisions = 0;  // samples in collision
  std::string reason;  // empty while undecided
};

/// Whether any shape of one link touches any shape of the other at the poses in `ws`.
bool links_collide(const RobotModel& model, const Workspace& ws,
                   const std::vector<std::vector<int>>& shapes_of, int a, int b) {
  const auto& shapes = model.collision_shapes();
  for (int i : shapes_of[static_cast<size_t>(a)]) {
    const Pose pi = collision_pose(model, ws, i);
    for (int k : shapes_of[static_cast<size_t>(b)]) {
      const CollisionShape &a = shapes[static_cast<size_t>(i)], &b = shapes[static_cast<size_t>(k)];
      const Pose pk = collision_pose(model, ws, k);
      // Threshold 0 asks "touching?" of pairs with a link mesh, as collide() does for convex ones.
      if (convex_pair(a, b) ? collide(a.shape, pi, b.shape, pk).collision
                            : closer_than(a, pi, b, pk, 0.0, QueryOptions{}).closer)
        return true;
    }
  }
  return false;
}

}  // namespace

CollisionMatrixReport generate_disabled_collisions(const RobotModel& model, int samples,
                                                   unsigned seed) {
  if (samples < 0)
    throw std::invalid_argument("generate_disabled_collisions: samples: must be >= 0, got " +
                                std::to_string(samples));
  const auto& links = model.links();
  std::vector<std::vector<int>> shapes_of(links.size());
  for (size_t s = 0; s < model.collision_shapes().size(); ++s)
    shapes_of[static_cast<size_t>(model.collision_shapes()[s].link)].push_back(static_cast<int>(s));

  std::vector<std::vector<char>> adjacent(links.size(), std::vector<char>(links.size(), 0));
  for (const auto& [a, b] : adjacent_link_pairs(model))
    adjacent[static_cast<size_t>(a)][static_cast<size_t>(b)] = 1;

  std::vector<LinkPair> pairs;
  for (size_t a = 0; a < links.size(); ++a) {
    if (shapes_of[a].empty()) continue;
    for (size_t b = a + 1; b < links.size(); ++b) {
      if (shapes_of[b].empty()) continue;
      LinkPair p;
      p.a = static_cast<int>(a);
      p.b = static_cast<int>(b);
      if (adjacent[a][b]) p.reason = "Adjacent";
      pairs.push_back(p);
    }
  }

  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();
  const int n = model.num_positions();
  Workspace ws(model);
  const Eigen::VectorXd q0 = Eigen::VectorXd::Zero(n).cwiseMax(lower).cwiseMin(upper);
  forward_kinematics(model, q0, ws);
  for (LinkPair& p : pairs) {
    if (p.reason.empty() && links_collide(model, ws, shapes_of, p.a, p.b)) p.reason = "Default";
  }

  std::mt19937_64 rng(seed);
  std::vector<std::uniform_real_distribution<double>> ranges;
  for (int i = 0; i < n; ++i) {
    // Continuous joints have infinite limits: one turn covers every pose.
    const double lo = std::isfinite(lower[i]) ? lower[i] : -kPi;
    const double hi = std::isfinite(upper[i]) ? upper[i] : kPi;
    ranges.emplace_back(lo, std::max(lo, hi));
  }
  const int always_needed =
      static_cast<int>(std::ceil(kAlwaysInCollisionFraction * static_cast<double>(samples)));
  Eigen::VectorXd q(n);
  for (int s = 0; s < samples; ++s) {
    for (int i = 0; i < n; ++i) q[i] = ranges[static_cast<size_t>(i)](rng);
    forward_kinematics(model, q, ws);
    const int remaining = samples - s;  // this sample included
    for (LinkPair& p : pairs) {
      if (!p.reason.empty()) continue;
      // Once a pair has collided and can no longer reach "Always", its fate is settled.
      if (p.collisions > 0 && p.collisions + remaining < always_needed) continue;
      if (links_collide(model, ws, shapes_of, p.a, p.b)) ++p.collisions;
    }
  }

  CollisionMatrixReport report;
  report.samples = samples;
  for (LinkPair& p : pairs) {
    if (p.reason.empty() && samples > 0) {
      if (p.collisions >= always_needed) {
        p.reason = "Always";
      } else if (p.collisions == 0) {
        p.reason = "Never";
      }
    }
    if (p.reason.empty()) continue;
    std::string l1 = links[static_cast<size_t>(p.a)].name,
                l2 = links[static_cast<size_t>(p.b)].name;
    if (l2 < l1) std::swap(l1, l2);
    report.disabled.push_back({l1, l2, p.reason});
  }
  std::sort(report.disabled.begin(), report.disabled.end(),
            [](const DisabledCollision& x, const DisabledCollision& y) {
              return std::tie(x.link1, x.link2) < std::tie(y.link1, y.link2);
            });
  return report;
}

}  // namespace gjk::robots
