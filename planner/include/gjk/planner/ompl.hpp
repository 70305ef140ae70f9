// OMPL integration (OMPL 1.5): drop-in state validity checking with exact clearance and a valid
// direction, certified motion validation by conservative advancement, and clearance objectives,
// all on the libgjk engine. States are ompl::base::RealVectorStateSpace states holding the joint
// positions being planned for, in the model's order (make_state_space builds such a space);
// positions held fixed (CollisionSettings::fixed_positions) are filled in by the checkers.
#pragma once

#include "gjk/planner/errors.hpp"
#include "gjk/robots/collision_world.hpp"
#include "gjk/robots/distances.hpp"
#include "gjk/robots/robot_model.hpp"
#include "gjk/robots/scene.hpp"

#include <ompl/base/MotionValidator.h>
#include <ompl/base/OptimizationObjective.h>
#include <ompl/base/SpaceInformation.h>
#include <ompl/base/StateValidityChecker.h>
#include <ompl/base/objectives/StateCostIntegralObjective.h>
#include <ompl/base/spaces/RealVectorStateSpace.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gjk::planner {

/// Joint positions held at a value and left out of the planning space (a gripper's fingers,
/// say), by position name.
using FixedPositions = std::map<std::string, double>;

/// A joint space over the model's positions that are not fixed, in model order, with the
/// model's position limits as bounds (continuous joints get [-pi, pi]) and the position names
/// as dimension names. Throws PlannerError on an unknown name or a value outside its limits.
std::shared_ptr<ompl::base::RealVectorStateSpace> make_state_space(
    const robots::RobotModel& model, const FixedPositions& fixed = {});

/// What makes a state valid. Shared by the validity checker and the motion validator so both
/// judge the same way.
struct CollisionSettings {
  /// States with a pair closer than this are invalid (0: only overlapping pairs). Exactly at
  /// the margin counts as valid for isValid(state) and invalid for motions (a certificate needs
  /// distance strictly above the margin to advance).
  double margin = 0.0;
  /// Check pairs of links as well as link-obstacle pairs.
  bool self_collision = true;
  /// Link pairs (by name) never checked against each other; adjacent links are always skipped.
  std::vector<std::pair<std::string, std::string>> allowed_self_pairs;
  /// Positions held fixed (not in the OMPL state); pass the same map to make_state_space.
  FixedPositions fixed_positions;
  QueryOptions query;  ///< settings of every distance query
};

/// The robot, its scene and the pairs to check: immutable and shared between threads.
class CollisionModel {
 public:
  /// Precomputes the checked pairs and bounding balls for `model` among `scene`.
  CollisionModel(std::shared_ptr<const robots::RobotModel> model,
                 std::shared_ptr<const robots::Scene> scene, CollisionSettings settings = {});
  /// The same over a collision world (meshes, cells, the allowed-collision matrix, attached
  /// objects). settings.allowed_self_pairs are added to the world's matrix;
  /// settings.self_collision = false leaves self pairs out.
  CollisionModel(std::shared_ptr<const robots::CollisionWorld> world,
                 CollisionSettings settings = {});
  /// The robot, with the world's attached objects as collision shapes.
  const robots::RobotModel& model() const { return world_->model(); }
  /// The obstacles (and attached objects).
  const robots::Scene& scene() const { return world_->scene(); }
  /// The collision world the checks query.
  const robots::CollisionWorld& world() const { return *world_; }
  /// The settings given at construction.
  const CollisionSettings& settings() const { return settings_; }
  /// Self-collision pairs checked (collision shape indices): those the world's allowed-collision
  /// matrix does not allow (adjacent links by default), none without self_collision.
  const std::vector<std::pair<int, int>>& self_pairs() const { return self_pairs_; }
  /// Model position index of each OMPL state dimension.
  const std::vector<int>& active_positions() const { return active_; }
  /// The full joint vector for an OMPL state's values (fixed positions filled in).
  Eigen::VectorXd full_configuration(const double* state_values) const;

  /// Upper bound on how fast any point of collision shape `shape` moves per unit change of each
  /// joint position, in any configuration: lever[shape][q] (metres per radian for revolute
  /// joints, 1 for prismatic ones). Used by conservative advancement.
  const std::vector<Eigen::VectorXd>& levers() const { return levers_; }

  /// A ball holding the body: centre in the body's frame, radius. Lets far pairs be passed over
  /// without a GJK query.
  struct BoundingBall {
    Vec3 centre = Vec3::Zero();  ///< centre in the link frame
    double radius = 0.0;         ///< radius (covers the inflated shape)
  };
  /// One bounding ball per collision shape (pre-test before GJK).
  const std::vector<BoundingBall>& shape_balls() const { return shape_balls_; }
  /// Obstacle balls with the centre in the world.
  const std::vector<BoundingBall>& obstacle_balls() const { return obstacle_balls_; }

 private:
  void initialise();

  std::shared_ptr<const robots::CollisionWorld> world_;
  CollisionSettings settings_;
  std::vector<std::pair<int, int>> self_pairs_;
  std::vector<Eigen::VectorXd> levers_;
  std::vector<int> active_;
  Eigen::VectorXd template_q_;
  std::vector<BoundingBall> shape_balls_,
      obstacle_balls_;  ///< fixed positions set, the rest overwritten per state
};

/// The closest pair at a configuration: a link shape against an obstacle, or two link shapes.
using ClosestPair = robots::ClosestPair;

/// Per-thread scratch (kinematics workspace, warm-start caches); lent out by a pool so the
/// OMPL classes stay thread-safe as OMPL requires.
struct QueryContext;

/// Per-thread query contexts (workspaces, warm starts), lent out so that the OMPL classes stay
/// thread-safe; a context returns to the pool when its Lease ends.
class ContextPool {
 public:
  /// A pool for `collision`; contexts are created on demand.
  explicit ContextPool(std::shared_ptr<const CollisionModel> collision);
  ~ContextPool();
  /// A borrowed context; returned to the pool on destruction.
  class Lease {
   public:
    /// Takes `context` from `pool`.
    Lease(ContextPool& pool, std::unique_ptr<QueryContext> context);
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    /// The context.
    QueryContext& operator*() const { return *context_; }
    /// The context.
    QueryContext* operator->() const { return context_.get(); }

   private:
    ContextPool& pool_;
    std::unique_ptr<QueryContext> context_;
  };
  /// Borrows a context (creates one when all are in use).
  Lease acquire();

 private:
  std::shared_ptr<const CollisionModel> collision_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<QueryContext>> free_;
};

/// ompl::base::StateValidityChecker on the engine. isValid() answers with threshold queries
/// that stop at the first pair closer than the margin; clearance() is the exact minimum signed
/// distance over link-obstacle (and self) pairs, negative when penetrating (EXACT clearance);
/// the four-argument isValid() also proposes a valid state along the clearance gradient.
class StateValidityChecker : public ompl::base::StateValidityChecker {
 public:
  /// Checks states of `si` against `collision` (the space must come from make_state_space).
  StateValidityChecker(const ompl::base::SpaceInformationPtr& si,
                       std::shared_ptr<const CollisionModel> collision);

  /// True when every checked pair is farther apart than the margin.
  bool isValid(const ompl::base::State* state) const override;
  /// As isValid(state), and `dist` = the state's exact clearance.
  bool isValid(const ompl::base::State* state, double& dist) const override;
  /// As isValid(state, dist); when invalid, proposes in `validState` a state moved along the
  /// clearance gradient out of collision (`validStateAvailable`).
  bool isValid(const ompl::base::State* state, double& dist, ompl::base::State* validState,
               bool& validStateAvailable) const override;
  /// Exact minimum signed distance over the checked pairs; -inf for invalid states.
  double clearance(const ompl::base::State* state) const override;
  /// As clearance(state), and proposes a valid state when the state is invalid.
  double clearance(const ompl::base::State* state, ompl::base::State* validState,
                   bool& validStateAvailable) const override;

  /// The closest pair with its gradient d clearance / d q (full joint vectors from here on).
  ClosestPair closest(const Eigen::VectorXd& q) const;
  /// isValid on a full joint vector.
  bool is_valid(const Eigen::VectorXd& q) const;
  /// The full joint vector of a state (fixed positions filled in).
  Eigen::VectorXd to_vector(const ompl::base::State* state) const;
  /// The collision model checked against.
  const CollisionModel& collision() const { return *collision_; }

 private:
  bool direction_to_valid(const Eigen::VectorXd& q, const ClosestPair& closest,
                          ompl::base::State* valid_state) const;

  std::shared_ptr<const CollisionModel> collision_;
  mutable ContextPool pool_;
};

/// Settings of the certified motion check.
struct CertifiedMotionOptions {
  /// A motion whose certification would need more configurations than this is rejected
  /// (reported as not certified), so a motion grazing an obstacle cannot stall the planner: a
  /// pair at distance d from the margin moving at B lets the motion advance by d/B per step.
  int max_steps = 20000;
};

/// Statistics of one certified check (for benchmarks and diagnostics).
struct MotionCertificate {
  bool valid = false;          ///< the whole motion is certified free of collision
  bool step_limit = false;     ///< rejected because max_steps ran out
  int steps = 0;               ///< configurations at which distances were computed
  int pair_queries = 0;        ///< distance queries over all pairs and configurations
  double last_valid = 0.0;     ///< in [0, 1]: the motion is certified free on [0, last_valid]
  double min_clearance = 0.0;  ///< smallest clearance seen at the checked configurations
};

/// ompl::base::MotionValidator that certifies the whole straight joint-space motion between two
/// states by conservative advancement: at a configuration with pair distance d, no point of the
/// link can move more than B·Δs along the next Δs of the motion (B from the levers and |Δq|), so
/// the pair stays clear for Δs < (d − margin)/B. Stepping by the smallest such Δs over all pairs
/// leaves no gap between checked configurations: no collision can be missed, unlike OMPL's
/// DiscreteMotionValidator at any resolution.
class CertifiedMotionValidator : public ompl::base::MotionValidator {
 public:
  /// Certifies motions of `si` against `collision` by conservative advancement.
  CertifiedMotionValidator(const ompl::base::SpaceInformationPtr& si,
                           std::shared_ptr<const CollisionModel> collision,
                           CertifiedMotionOptions options = {});

  /// True when the straight motion from s1 to s2 is certified collision-free.
  bool checkMotion(const ompl::base::State* s1, const ompl::base::State* s2) const override;
  /// As checkMotion(s1, s2); when it is not, `last_valid` holds the last certified state and
  /// its fraction of the motion.
  bool checkMotion(const ompl::base::State* s1, const ompl::base::State* s2,
                   std::pair<ompl::base::State*, double>& lastValid) const override;

  /// The certificate for the motion q1 -> q2 (full joint vectors).
  MotionCertificate certify(const Eigen::VectorXd& q1, const Eigen::VectorXd& q2) const;

 private:
  std::shared_ptr<const CollisionModel> collision_;
  CertifiedMotionOptions options_;
  mutable ContextPool pool_;
};

/// Path cost that penalises low clearance with the potential of seed 002 section 4.4:
/// cost(state) = ½ (1/c − 1/d0)² for clearance c ≤ d0 (c clamped to min_clearance), else 0,
/// integrated along the path (StateCostIntegralObjective). Uses the space's validity checker's
/// clearance(), so install a gjk::planner::StateValidityChecker first.
class ClearanceObjective : public ompl::base::StateCostIntegralObjective {
 public:
  /// The potential of seed 002 over pairs within `d0` (m) of each other, integrated along paths.
  explicit ClearanceObjective(const ompl::base::SpaceInformationPtr& si, double d0 = 0.5,
                              double min_clearance = 1e-3);
  /// Potential of one state (0 when every pair is farther than d0).
  ompl::base::Cost stateCost(const ompl::base::State* s) const override;

 private:
  double d0_;
  double min_clearance_;
};

/// Path length plus `weight` times the ClearanceObjective: short paths that keep away from
/// obstacles.
ompl::base::OptimizationObjectivePtr make_length_clearance_objective(
    const ompl::base::SpaceInformationPtr& si, double weight = 0.1, double d0 = 0.5);

/// Installs the checker and the certified motion validator on `si` (and calls si->setup()).
std::shared_ptr<const CollisionModel> install_collision_checking(
    const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const robots::RobotModel> model,
    std::shared_ptr<const robots::Scene> scene, CollisionSettings settings = {});

/// The same over a collision world (meshes, cells, SRDF matrix, attached objects).
std::shared_ptr<const CollisionModel> install_collision_checking(
    const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const robots::CollisionWorld> world,
    CollisionSettings settings = {});

}  // namespace gjk::planner
