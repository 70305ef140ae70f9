// One planning call: OMPL over the planned joints of a collision world's robot, with the libgjk
// validity checker and certified motion validator, checked start and goal, a planner by name,
// simplification and timings. gjk-plan and libgjk.planner.plan() both plan through it.
#pragma once

#include "gjk/planner/errors.hpp"
#include "gjk/planner/ompl.hpp"
#include "gjk/robots/collision_world.hpp"

#include <Eigen/Core>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gjk::planner {

/// How plan_arm plans.
struct PlanOptions {
  /// OMPL planner: "rrtconnect", "rrtstar", "bitstar" or "prmstar" (planner_names()). The
  /// optimizing ones use the whole time_limit with a length + clearance objective.
  std::string planner = "rrtconnect";
  /// Planning time limit, s: finite and > 0.
  double time_limit = 5.0;
  /// Required clearance, m (finite, >= 0): states closer than this to an obstacle or, with
  /// self_collision, to another link are invalid, and motions must stay above it.
  double margin = 0.0;
  /// Positions held at a value and left out of the planned joints (a gripper's fingers, say),
  /// by position name.
  FixedPositions fixed;
  /// Seed of OMPL's random generator. The generator is process-global and OMPL can seed it only
  /// before its first random number, so it is seeded once per process (seed_rng_once): the first
  /// call with a seed applies it, later seeds are ignored. Unset: OMPL's own seed.
  std::optional<unsigned> seed;
  /// Also stop after this many evaluations of the planner's termination condition (about one
  /// per planner iteration; 0: no limit). With a seed, a plan that ends this way, or by finding
  /// a path, is the same on a loaded machine as on an idle one; a time limit alone makes the
  /// outcome depend on the machine's speed.
  unsigned max_iterations = 0;
  /// Shorten the path found with OMPL's simplifier (certified motions only).
  bool simplify = true;
  /// Check pairs of links (those the world's allowed-collision matrix does not allow) as well
  /// as link-obstacle pairs.
  bool self_collision = true;
};

/// What plan_arm found.
struct PlanResult {
  /// An exact solution was found within the time limit.
  bool solved = false;
  /// OMPL's planner status, as text ("Exact solution", "Timeout", ...).
  std::string status;
  /// The planned joints (the entries of every `path` waypoint), in model order.
  std::vector<std::string> joint_names;
  /// Waypoints over the planned joints, start to goal (empty when not solved).
  std::vector<Eigen::VectorXd> path;
  /// The same waypoints as full joint vectors, the fixed positions filled in.
  std::vector<Eigen::VectorXd> full_path;
  /// Joint-space length of the path: the sum of the Euclidean norms of its segments.
  double length = 0.0;
  /// Wall time spent planning, s.
  double plan_seconds = 0.0;
  /// Wall time spent simplifying, s (0 without simplification).
  double simplify_seconds = 0.0;
  /// Motions the motion validator accepted while planning and simplifying.
  unsigned valid_motions = 0;
  /// Motions the motion validator rejected while planning and simplifying.
  unsigned invalid_motions = 0;
};

/// The planner names PlanOptions::planner accepts.
const std::vector<std::string>& planner_names();

/// The joints plan_arm plans for `model` with `fixed` held: the model's positions less the fixed
/// ones, in model order. Throws PlannerError on an unknown fixed name or a value outside its
/// limits.
std::vector<std::string> planned_joints(const robots::RobotModel& model,
                                        const FixedPositions& fixed);

/// Seeds OMPL's process-global random generator if no call has seeded it yet in this process;
/// returns whether it did. Thread-safe.
bool seed_rng_once(unsigned seed);

/// Plans a collision-free motion of the world's robot from `start` to `goal` (values of the
/// planned joints, planned_joints(world->model(), options.fixed)). Every motion the planner
/// accepts is certified by conservative advancement. Throws PlannerError naming the field and
/// value for bad options (time_limit, margin, planner, an unknown fixed joint), a start or goal
/// of the wrong size, not finite or outside a joint's limits (naming the joint), or in
/// collision or closer than the margin (naming the pair). No path in time is not an error:
/// the result has solved false. Thread-safe: concurrent calls share nothing but the world. The
/// first call sets OMPL's log level to warnings (OMPL prints its progress messages otherwise).
PlanResult plan_arm(std::shared_ptr<const robots::CollisionWorld> world,
                    const Eigen::VectorXd& start, const Eigen::VectorXd& goal,
                    const PlanOptions& options = {});

/// The same on a copy of `world`.
PlanResult plan_arm(const robots::CollisionWorld& world, const Eigen::VectorXd& start,
                    const Eigen::VectorXd& goal, const PlanOptions& options = {});

}  // namespace gjk::planner
