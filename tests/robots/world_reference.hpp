// Brute-force reference for the collision world's queries, shared by the robots and planner
// tests: every checked pair measured by its own signed-distance query, no broadphase.
#pragma once

#include "gjk/robots/collision_world.hpp"
#include "gjk/robots/obstacle_queries.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace gjk::testing {

/// The minimum signed distance over every checked pair of `world` (robot-obstacle and self
/// pairs) at the configuration `ctx` was updated to.
inline double brute_force_minimum(const robots::CollisionWorld& world,
                                  const robots::WorldContext& ctx) {
  const auto& shapes = world.model().collision_shapes();
  double best = std::numeric_limits<double>::infinity();
  for (size_t s = 0; s < shapes.size(); ++s)
    for (size_t o = 0; o < world.obstacles().size(); ++o)
      if (world.checked(static_cast<int>(s), static_cast<int>(o)))
        best = std::min(best, robots::signed_distance(shapes[s].shape, ctx.shape_poses()[s],
                                                      world.obstacles()[o], {})
                                  .signed_distance);
  for (const auto& [a, b] : world.self_pairs())
    best =
        std::min(best, gjk::signed_distance(shapes[size_t(a)].shape, ctx.shape_poses()[size_t(a)],
                                            shapes[size_t(b)].shape, ctx.shape_poses()[size_t(b)])
                           .signed_distance);
  return best;
}

/// Two contexts' lists of pairs (WorldContext::distances) name the same pairs, in the same
/// order, at distances within 1e-12.
inline void expect_same_pairs(const std::vector<robots::ClosestPair>& mine,
                              const std::vector<robots::ClosestPair>& theirs,
                              const std::string& what) {
  ASSERT_EQ(mine.size(), theirs.size()) << what;
  for (size_t i = 0; i < mine.size(); ++i) {
    EXPECT_EQ(mine[i].pair.shape, theirs[i].pair.shape) << what;
    EXPECT_EQ(mine[i].pair.obstacle, theirs[i].pair.obstacle) << what;
    EXPECT_NEAR(mine[i].pair.distance, theirs[i].pair.distance, 1e-12) << what;
  }
}

}  // namespace gjk::testing
