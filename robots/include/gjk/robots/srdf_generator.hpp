// The disable_collisions list of an SRDF, computed the way MoveIt's Setup Assistant does: link
// pairs that are adjacent, in collision at the default configuration, (almost) always in
// collision, or never in collision over many random configurations need no self-collision check.
#pragma once

#include "gjk/robots/robot_model.hpp"
#include "gjk/robots/srdf.hpp"

#include <vector>

namespace gjk::robots {

/// Generated disable_collisions and the number of random configurations behind them.
struct CollisionMatrixReport {
  std::vector<DisabledCollision> disabled;  ///< link1 < link2 by name, sorted by (link1, link2)
  int samples = 0;                          ///< random configurations checked
};

/// Fraction of samples in collision from which a pair is "Always" (MoveIt's default, 0.95).
inline constexpr double kAlwaysInCollisionFraction = 0.95;

/// Classifies every pair of links that have collision shapes (links without shapes are skipped),
/// first reason that applies, in MoveIt's words:
///  - "Adjacent": at most one moving joint between them (the self_collision_pairs rule);
///  - "Default": in collision at the default configuration (q = 0 clamped into the limits);
///  - "Always": in collision in at least kAlwaysInCollisionFraction of `samples` uniform random
///    configurations within the joint limits (continuous joints: [-pi, pi]), seeded by `seed`;
///  - "Never": in collision in none of them.
/// Two links collide when any shape of one collides with any shape of the other (gjk::collide;
/// touching counts). Pairs that collide only sometimes are left out (they need checking).
/// "Never" is statistical: on the Panda, link2-link6 and link2-link7 collide in about 0.1% of
/// uniform configurations, so 2000 samples call them "Never" for some seeds (2, 3, 6 of 1-8);
/// 10000 samples (the Setup Assistant's default density) classified them right for seeds 1-8.
CollisionMatrixReport generate_disabled_collisions(const RobotModel& model, int samples,
                                                   unsigned seed);

}  // namespace gjk::robots
