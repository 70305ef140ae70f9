// Velocity inversion with obstacle avoidance for redundant arms (seed 002, section 4.4):
//   q̇ = J⁺ ẋ_e + k (I − J⁺ J) ∇H(q)                                   (seed 002 eq. 6)
//   H = Σ_ij U_ij,  U_ij = ½ (1/d_ij − 1/d0)² for d_ij ≤ d0, else 0
// J is the end effector's 3×n position Jacobian, J⁺ a damped pseudo-inverse, k < 0 descends H,
// and ∇d_ij comes from the robots layer's distance gradients (seed 002 eq. 7).
#pragma once

#include "gjk/planner/errors.hpp"
#include "gjk/robots/distances.hpp"
#include "gjk/robots/obstacle_queries.hpp"
#include "gjk/robots/robot_model.hpp"
#include "gjk/robots/scene.hpp"

#include <Eigen/Core>

#include <functional>
#include <string>
#include <vector>

namespace gjk::planner {

/// The artificial potential of one (obstacle, link) pair (seed 002 section 4.4).
struct PotentialField {
  double d0 = 0.5;  ///< influence distance: pairs farther than this contribute nothing
  /// Distances below this are treated as this value, so the potential and its gradient stay
  /// finite (and point away) when a pair touches or penetrates.
  double min_distance = 1e-4;
};

/// U(d) = ½ (1/d − 1/d0)² for d ≤ d0, else 0.
double pair_potential(double distance, const PotentialField& field);
/// dU/dd = (1/d0 − 1/d) / d² for d ≤ d0, else 0 (seed 002, gradient of U_ij).
double pair_potential_slope(double distance, const PotentialField& field);

/// H and ∇H. As in the seed, d_ij is the distance between obstacle i and link j: a link with
/// several collision shapes counts once, through its closest shape (so a joint housing and the
/// link body next to it do not double the field). Pairs within d0 must carry their gradient.
struct Potential {
  double value = 0.0;        ///< H(q)
  Eigen::VectorXd gradient;  ///< dH/dq, one entry per joint position
};
Potential total_potential(const robots::RobotModel& model, size_t num_obstacles,
                          const std::vector<robots::PairDistance>& pairs,
                          const PotentialField& field);

/// The tracked point: `offset` in the frame of `link`.
struct EndEffector {
  int link = -1;               ///< link index of the end effector
  Vec3 offset = Vec3::Zero();  ///< point of that link, link frame
};

/// Settings of the velocity inversion (seed 002 eq. 6).
struct VelocityInversionOptions {
  double k = -1.0;       ///< null-space gain; negative descends H (the seed uses −1)
  PotentialField field;  ///< the potential H and its range d0
  /// Damped least squares: below `singular_threshold` for the smallest singular value of J the
  /// damping grows smoothly to `max_damping` (λ² = (1 − (σ/ε)²) λ_max²), so J⁺ stays bounded
  /// through singularities at the price of a tracking error there.
  double singular_threshold = 0.05;
  double max_damping = 0.05;  ///< largest damping of the pseudo-inverse near singularities
  /// Closed-loop correction: ẋ_e is replaced by ẋ_d + K (x_d − x). K = 0 is eq. 6 as printed;
  /// K > 0 removes the drift of the explicit integrator (the usual CLIK form).
  double position_gain = 0.0;
  bool joint_limits = true;  ///< joints that would cross a limit within dt are frozen
  /// Engine settings of every link-obstacle distance (support method, simplex solver).
  QueryOptions query;
  /// Start each pair's GJK from its last simplex (seed 002 section 3, tracking); off, every
  /// distance starts cold (the original GJK's initialization, for comparisons as seed 002
  /// Fig. 15 makes them).
  bool warm_start = true;
};

/// What one velocity-inversion solve found.
struct VelocityStep {
  Eigen::VectorXd qdot;              ///< joint velocities, one per position
  Vec3 end_effector = Vec3::Zero();  ///< at the solved configuration
  double potential = 0.0;            ///< H(q)
  double sigma_min = 0.0;            ///< smallest singular value of J
  int frozen_joints = 0;             ///< joints held at a limit this step
  double distance_seconds = 0.0;     ///< wall time spent in distance queries this step
};

/// Solves eq. 6 at a configuration. Owns a kinematics workspace and the warm-start caches of
/// every (shape, obstacle) pair, so successive solves along a trajectory track the closest
/// features (seed 004 section 4). One instance per thread; model and scene must outlive it.
class VelocityInversion {
 public:
  /// Inverts velocities for `model` among `scene`; both must outlive the object. Throws
  /// PlannerError for bad options or end effector.
  VelocityInversion(const robots::RobotModel& model, const robots::Scene& scene,
                    EndEffector end_effector, VelocityInversionOptions options = {});

  /// Joint velocity at q tracking the desired end-effector velocity (and position, used when
  /// position_gain > 0). `dt` is the step the caller will integrate with (for joint limits).
  /// Throws robots::ModelError on a bad q (size, NaN, outside limits).
  const VelocityStep& solve(const Eigen::VectorXd& q, const Vec3& desired_velocity,
                            const Vec3& desired_position, double dt);
  /// The same, for a caller that needs exact distances only below `exact_below` (simulate():
  /// its minimum clearance so far, between recorded samples). A pair certified farther than
  /// both d0 and `exact_below` (its last exact distance less a bound on its link shape's motion
  /// since then) is not queried: it adds nothing to H, and distances() keeps its last exact
  /// value, which is above that bound too. The motion is the same as solve()'s (issue 18 item 4).
  const VelocityStep& solve(const Eigen::VectorXd& q, const Vec3& desired_velocity,
                            const Vec3& desired_position, double dt, double exact_below);

  /// Every (shape, obstacle) pair at the last solved configuration (signed distances), in
  /// robot_scene_distances' order. After solve() with `exact_below`, pairs skipped as certified
  /// far hold their last exact answer.
  const std::vector<robots::PairDistance>& distances() const { return pairs_; }
  /// Kinematics of the last step.
  const robots::Workspace& workspace() const { return ws_; }
  /// The options given.
  const VelocityInversionOptions& options() const { return options_; }
  /// The robot.
  const robots::RobotModel& model() const { return model_; }
  /// The obstacles.
  const robots::Scene& scene() const { return scene_; }
  /// End-effector position after the last forward kinematics, world frame.
  Vec3 end_effector_position() const;

 private:
  const robots::RobotModel& model_;
  const robots::Scene& scene_;
  EndEffector end_effector_;
  VelocityInversionOptions options_;
  Eigen::VectorXd lower_, upper_;  ///< joint limits, read once (solve() runs every control step)
  robots::Workspace ws_;
  robots::DistanceCache cache_;
  robots::DistanceOptions distance_options_;
  std::vector<robots::PairDistance> pairs_;
  VelocityStep step_;
  /// Bounding ball of each collision shape, shape frame.
  std::vector<robots::ObstacleBall> shape_balls_;
  /// Per pair: the shape's world pose at the pair's last exact distance (empty before a solve).
  std::vector<Pose> exact_pose_;
  // Scratch of solve(), kept so that a step allocates nothing (issue 18 item 4).
  Eigen::Matrix<double, 3, Eigen::Dynamic> jacobian_;
  Eigen::VectorXd gradient_;
  std::vector<bool> frozen_;
  std::vector<int> closest_;
  Potential potential_;

  /// Fills pairs_ at the configuration in ws_, skipping pairs certified above `skip_above`.
  void update_distances(double skip_above);
};

/// A desired end-effector path: position and velocity at time t.
using EndEffectorTrajectory = std::function<void(double t, Vec3& position, Vec3& velocity)>;

/// Settings of simulate().
struct SimulationOptions {
  double dt = 1e-3;       ///< fixed step of the explicit Euler integrator
  double duration = 1.0;  ///< simulated time
  int record_every = 1;   ///< keep one sample every this many steps (the last step is kept)
};

/// One recorded instant of a simulation.
struct SimulationSample {
  double t = 0.0;                    ///< time, s
  Eigen::VectorXd q;                 ///< joint positions
  Vec3 end_effector = Vec3::Zero();  ///< end-effector position
  Vec3 desired = Vec3::Zero();       ///< desired end-effector position
  double tracking_error = 0.0;       ///< |x − x_d|
  double potential = 0.0;            ///< potential H
  /// Minimum signed distance per (link, obstacle): index link * obstacles + obstacle, links in
  /// model order; +inf for links without collision shapes.
  std::vector<double> link_obstacle_distance;
};

/// The outcome of simulate().
struct SimulationResult {
  std::vector<SimulationSample> samples;  ///< recorded instants
  double min_clearance = 0.0;             ///< over every step (not only recorded ones)
  double max_tracking_error = 0.0;        ///< over every step
  bool collided = false;                  ///< some step had a pair at distance <= 0
  int steps = 0;                          ///< integration steps taken
  double total_seconds = 0.0;             ///< wall time of the whole loop
  double distance_seconds = 0.0;          ///< of which in distance queries
};

/// Integrates q̇ from eq. 6 with a fixed step from q0 over the trajectory.
SimulationResult simulate(VelocityInversion& inversion, const Eigen::VectorXd& q0,
                          const EndEffectorTrajectory& trajectory,
                          const SimulationOptions& options);

}  // namespace gjk::planner
