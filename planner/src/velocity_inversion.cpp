// Velocity inversion with obstacle avoidance (seed 002 section 4.4, eq. 6 and 7).
#include "gjk/planner/velocity_inversion.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>
#include <variant>

namespace gjk::planner {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void check_options(const VelocityInversionOptions& o) {
  auto fail = [](const char* field, double value, const char* want) {
    std::ostringstream s;
    s << "VelocityInversionOptions." << field << " = " << value << ": " << want;
    throw PlannerError(s.str());
  };
  if (!std::isfinite(o.k)) fail("k", o.k, "must be finite");
  if (!(o.field.d0 > 0) || !std::isfinite(o.field.d0)) fail("field.d0", o.field.d0, "must be > 0");
  if (!(o.field.min_distance > 0) || !(o.field.min_distance < o.field.d0))
    fail("field.min_distance", o.field.min_distance, "must be in (0, d0)");
  if (!(o.singular_threshold >= 0) || !std::isfinite(o.singular_threshold))
    fail("singular_threshold", o.singular_threshold, "must be >= 0");
  if (!(o.max_damping >= 0) || !std::isfinite(o.max_damping))
    fail("max_damping", o.max_damping, "must be >= 0");
  if (!(o.position_gain >= 0) || !std::isfinite(o.position_gain))
    fail("position_gain", o.position_gain, "must be >= 0");
}

/// λ² of the damped pseudo-inverse for the smallest singular value σ of J: 0 above the
/// threshold ε, growing smoothly to λ_max² at σ = 0, λ² = (1 − (σ/ε)²) λ_max².
double damping(double sigma_min, const VelocityInversionOptions& o) {
  if (!(sigma_min < o.singular_threshold)) return 0.0;
  const double r = sigma_min / o.singular_threshold;
  return (1.0 - r * r) * o.max_damping * o.max_damping;
}

/// Eq. 6 with J⁺ from the SVD: J⁺ = Σ σ/(σ² + λ²) v uᵀ, and the null-space projector
/// I − J⁺J = I − Σ σ²/(σ² + λ²) v vᵀ. Any J, also exactly singular and undamped.
void svd_solve(const Eigen::Matrix<double, 3, Eigen::Dynamic>& jm, const Eigen::VectorXd& grad,
               const Vec3& task_velocity, const VelocityInversionOptions& o, Eigen::VectorXd& qdot,
               double& sigma_min) {
  const Eigen::Index n = jm.cols();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(jm, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd& sigma = svd.singularValues();
  sigma_min = sigma.size() > 0 ? sigma[sigma.size() - 1] : 0.0;
  const double lambda2 = damping(sigma_min, o);
  Eigen::VectorXd tracking = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd null_motion = o.k * grad;
  for (int i = 0; i < sigma.size(); ++i) {
    const double s = sigma[i];
    const double denom = s * s + lambda2;
    if (denom <= 0.0) continue;  // exactly singular direction, undamped: leave it out
    const Eigen::VectorXd v = svd.matrixV().col(i);
    tracking += (s / denom) * svd.matrixU().col(i).dot(task_velocity) * v;
    null_motion -= (s * s / denom) * v.dot(o.k * grad) * v;
  }
  qdot = tracking + null_motion;
}

/// The same in closed form through the 3×3 matrix A = J Jᵀ + λ² I (σ² are the eigenvalues of
/// J Jᵀ): J⁺ = Jᵀ A⁻¹ and I − J⁺J = I − Jᵀ A⁻¹ J. Equal to svd_solve up to rounding, without
/// the SVD of the 3×n J and its allocations (issue 18 item 4: the SVD was 14 % of the 4-DOF
/// example's steps). Returns false, leaving the SVD to the caller, when J has fewer than 3
/// columns (then J Jᵀ has zero eigenvalues that are not singular values of J) or A is too close
/// to singular to solve (undamped, nearly singular J).
bool damped_solve(const Eigen::Matrix<double, 3, Eigen::Dynamic>& jm, const Eigen::VectorXd& grad,
                  const Vec3& task_velocity, const VelocityInversionOptions& o,
                  Eigen::VectorXd& qdot, double& sigma_min) {
  if (jm.cols() < 3) return false;
  const Eigen::Matrix3d jjt = jm * jm.transpose();
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(jjt, Eigen::EigenvaluesOnly);
  if (eig.info() != Eigen::Success) return false;
  const Vec3& e = eig.eigenvalues();  // ascending
  const double sigma = std::sqrt(std::max(e[0], 0.0));
  const double lambda2 = damping(sigma, o);
  // A's condition number within 1e10: the solve keeps 6 digits at worst.
  if (!(e[0] + lambda2 > 1e-10 * e[2])) return false;
  Eigen::Matrix3d a = jjt;
  a.diagonal().array() += lambda2;
  const Eigen::LDLT<Eigen::Matrix3d> ldlt(a);
  const Vec3 kg_task = jm * (o.k * grad);
  qdot.noalias() = jm.transpose() * ldlt.solve(task_velocity);
  qdot += o.k * grad;
  qdot.noalias() -= jm.transpose() * ldlt.solve(kg_task);
  sigma_min = sigma;
  return true;
}

}  // namespace

double pair_potential(double distance, const PotentialField& field) {
  if (distance > field.d0) return 0.0;
  const double d = std::max(distance, field.min_distance);
  const double e = 1.0 / d - 1.0 / field.d0;
  return 0.5 * e * e;
}

double pair_potential_slope(double distance, const PotentialField& field) {
  if (distance > field.d0) return 0.0;
  const double d = std::max(distance, field.min_distance);
  return (1.0 / field.d0 - 1.0 / d) / (d * d);
}

namespace {

/// total_potential() into `p`, with `closest` as scratch (solve() reuses both: no allocation).
void total_potential_into(const robots::RobotModel& model, size_t num_obstacles,
                          const std::vector<robots::PairDistance>& pairs,
                          const PotentialField& field, std::vector<int>& closest, Potential& p) {
  const int n = model.num_positions();
  // closest[link * obstacles + obstacle]: the index of that (link, obstacle)'s closest shape pair
  closest.assign(model.links().size() * num_obstacles, -1);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const robots::PairDistance& d = pairs[i];
    if (d.distance > field.d0) continue;
    if (d.shape < 0 || d.shape >= static_cast<int>(model.collision_shapes().size()) ||
        d.obstacle < 0 || static_cast<size_t>(d.obstacle) >= num_obstacles)
      throw PlannerError("total_potential: pair " + std::to_string(i) +
                         " names a shape or obstacle outside the model and scene");
    const size_t link = static_cast<size_t>(model.collision_shapes()[d.shape].link);
    int& slot = closest[link * num_obstacles + static_cast<size_t>(d.obstacle)];
    if (slot < 0 || d.distance < pairs[static_cast<size_t>(slot)].distance)
      slot = static_cast<int>(i);
  }
  p.value = 0.0;
  p.gradient.setZero(n);
  for (int i : closest) {
    if (i < 0) continue;
    const robots::PairDistance& d = pairs[static_cast<size_t>(i)];
    if (d.gradient.size() != n)
      throw PlannerError("total_potential: a pair within d0 has no distance gradient");
    p.value += pair_potential(d.distance, field);
    p.gradient += pair_potential_slope(d.distance, field) * d.gradient;  // ∇U = U'(d) ∇d
  }
}

}  // namespace

Potential total_potential(const robots::RobotModel& model, size_t num_obstacles,
                          const std::vector<robots::PairDistance>& pairs,
                          const PotentialField& field) {
  std::vector<int> closest;
  Potential p;
  total_potential_into(model, num_obstacles, pairs, field, closest, p);
  return p;
}

VelocityInversion::VelocityInversion(const robots::RobotModel& model, const robots::Scene& scene,
                                     EndEffector end_effector, VelocityInversionOptions options)
    : model_(model),
      scene_(scene),
      end_effector_(std::move(end_effector)),
      options_(options),
      lower_(model.lower_limits()),
      upper_(model.upper_limits()),
      ws_(model),
      cache_(model, scene) {
  if (end_effector_.link < 0 || end_effector_.link >= static_cast<int>(model.links().size())) {
    throw PlannerError("VelocityInversion: end-effector link index " +
                       std::to_string(end_effector_.link) + " is not a link of '" + model.name() +
                       "'");
  }
  if (!end_effector_.offset.allFinite())
    throw PlannerError("VelocityInversion: end-effector offset is not finite");
  check_options(options_);
  distance_options_.gradients = true;  // every pair: the CSV wants all distances, ∇H the near ones
  distance_options_.query = options_.query;
  step_.qdot = Eigen::VectorXd::Zero(model.num_positions());
  for (const robots::CollisionShape& c : model.collision_shapes())
    shape_balls_.push_back(robots::shape_ball(c.shape));  // a mesh element's hull holds it
}

Vec3 VelocityInversion::end_effector_position() const {
  return ws_.link_poses[static_cast<size_t>(end_effector_.link)] * end_effector_.offset;
}

void VelocityInversion::update_distances(double skip_above) {
  const auto& shapes = model_.collision_shapes();
  const size_t obstacles = scene_.obstacles.size();
  const size_t count = shapes.size() * obstacles;
  // Skipping needs every pair's last exact answer and pose (not before the first solve).
  const bool may_skip = std::isfinite(skip_above) && exact_pose_.size() == count;
  // The bound below is exact arithmetic's; this covers its rounding and GJK's tolerance.
  const double margin = 1e-9 + 1e-6 * std::abs(skip_above);
  pairs_.resize(count);
  exact_pose_.resize(count);
  // As robot_scene_distances (every pair, the same calls: the same answers), pair by pair.
  for (size_t s = 0; s < shapes.size(); ++s) {
    const Pose pose = robots::collision_pose(model_, ws_, static_cast<int>(s));
    for (size_t o = 0; o < obstacles; ++o) {
      const size_t k = s * obstacles + o;
      robots::PairDistance& d = pairs_[k];
      if (may_skip) {
        // The distance to a fixed obstacle changes by at most how far the shape moved (issue
        // 18 item 4: most pairs of the 4-DOF example stay beyond d0).
        const double moved = robots::ball_motion_bound(shape_balls_[s], exact_pose_[k], pose);
        if (d.distance - moved > skip_above + margin) continue;
      }
      WarmStart* warm =
          options_.warm_start ? cache_.get(static_cast<int>(s), static_cast<int>(o)) : nullptr;
      // Distance and gradient (seed 002 eq. 7); d's gradient storage is reused.
      robots::shape_obstacle_distance(model_, ws_, scene_, static_cast<int>(s), pose,
                                      static_cast<int>(o), distance_options_, warm, d);
      exact_pose_[k] = pose;
    }
  }
}

const VelocityStep& VelocityInversion::solve(const Eigen::VectorXd& q, const Vec3& desired_velocity,
                                             const Vec3& desired_position, double dt) {
  return solve(q, desired_velocity, desired_position, dt, std::numeric_limits<double>::infinity());
}

const VelocityStep& VelocityInversion::solve(const Eigen::VectorXd& q, const Vec3& desired_velocity,
                                             const Vec3& desired_position, double dt,
                                             double exact_below) {
  const int n = model_.num_positions();
  robots::forward_kinematics(model_, q, ws_);  // validates q
  const Vec3 x = end_effector_position();

  const auto t0 = Clock::now();
  // Pairs within d0 drive ∇H: never skipped. NaN: every pair exact.
  update_distances(std::isnan(exact_below) ? std::numeric_limits<double>::infinity()
                                           : std::max(options_.field.d0, exact_below));
  step_.distance_seconds = seconds_since(t0);

  total_potential_into(model_, scene_.obstacles.size(), pairs_, options_.field, closest_,
                       potential_);
  const Potential& h = potential_;
  step_.potential = h.value;
  step_.end_effector = x;

  // The end effector's position Jacobian into reused storage (resize keeps it: no allocation).
  jacobian_.resize(3, n);
  robots::point_jacobian_linear(model_, ws_, end_effector_.link, x, jacobian_);
  const Vec3 task_velocity = desired_velocity + options_.position_gain * (desired_position - x);

  // Joints about to cross a limit are frozen: their column leaves J and their entry leaves ∇H, so
  // the remaining joints take over the task (repeated until no free joint crosses a limit). A
  // frozen joint stays frozen, so its column and entry are zeroed once, in place.
  frozen_.assign(static_cast<size_t>(n), false);
  Eigen::Matrix<double, 3, Eigen::Dynamic>& jm = jacobian_;
  gradient_ = h.gradient;
  Eigen::VectorXd& grad = gradient_;
  Eigen::VectorXd& qdot = step_.qdot;
  qdot.resize(n);
  double sigma_min = 0.0;
  for (int round = 0; round <= n; ++round) {
    for (int j = 0; j < n; ++j) {
      if (frozen_[static_cast<size_t>(j)]) {
        jm.col(j).setZero();
        grad[j] = 0.0;
      }
    }
    if (!damped_solve(jm, grad, task_velocity, options_, qdot, sigma_min))
      svd_solve(jm, grad, task_velocity, options_, qdot, sigma_min);

    if (!options_.joint_limits || !(dt > 0)) break;
    bool newly_frozen = false;
    for (int j = 0; j < n; ++j) {
      const double next = q[j] + qdot[j] * dt;
      if (!frozen_[static_cast<size_t>(j)] && (next > upper_[j] || next < lower_[j])) {
        frozen_[static_cast<size_t>(j)] = true;
        newly_frozen = true;
      }
    }
    if (!newly_frozen) break;
  }
  step_.frozen_joints = static_cast<int>(std::count(frozen_.begin(), frozen_.end(), true));
  step_.sigma_min = sigma_min;
  return step_;
}

SimulationResult simulate(VelocityInversion& inversion, const Eigen::VectorXd& q0,
                          const EndEffectorTrajectory& trajectory,
                          const SimulationOptions& options) {
  if (!(options.dt > 0) || !std::isfinite(options.dt))
    throw PlannerError("SimulationOptions.dt = " + std::to_string(options.dt) + ": must be > 0");
  if (!(options.duration >= 0) || !std::isfinite(options.duration))
    throw PlannerError("SimulationOptions.duration = " + std::to_string(options.duration) +
                       ": must be >= 0");
  if (options.record_every < 1)
    throw PlannerError("SimulationOptions.record_every = " + std::to_string(options.record_every) +
                       ": must be >= 1");

  const robots::RobotModel& model = inversion.model();
  const size_t links = model.links().size();
  const size_t obstacles = inversion.scene().obstacles.size();
  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();

  SimulationResult result;
  result.min_clearance = std::numeric_limits<double>::infinity();
  // A step longer than the motion would simulate nothing and report a clean run; a step so
  // short that the count overflows would fail inside the allocator (issue 15 item 13).
  constexpr double kMaxSteps = 1e8;
  if (options.duration > 0 && options.dt > options.duration) {
    std::ostringstream msg;
    msg << "SimulationOptions.dt = " << options.dt << " s is longer than the simulated time "
        << options.duration << " s: nothing would be simulated";
    throw PlannerError(msg.str());
  }
  if (options.duration / options.dt > kMaxSteps) {
    std::ostringstream msg;
    msg << "SimulationOptions.dt = " << options.dt << " s would take "
        << options.duration / options.dt << " steps to simulate " << options.duration
        << " s (at most " << kMaxSteps << "); use a larger dt";
    throw PlannerError(msg.str());
  }
  const int steps = static_cast<int>(std::llround(options.duration / options.dt));
  result.steps = steps;
  result.samples.reserve(static_cast<size_t>(steps / options.record_every + 2));

  Eigen::VectorXd q = q0;
  const auto start = Clock::now();
  for (int i = 0; i <= steps; ++i) {
    const double t = i * options.dt;
    Vec3 xd, vd;
    trajectory(t, xd, vd);
    // Recorded samples hold every pair's exact distance; between them only pairs that could
    // lower the minimum clearance (or act on H) are needed.
    const bool record = i % options.record_every == 0 || i == steps;
    const VelocityStep& step =
        inversion.solve(q, vd, xd, options.dt,
                        record ? std::numeric_limits<double>::infinity() : result.min_clearance);
    result.distance_seconds += step.distance_seconds;

    const double error = (step.end_effector - xd).norm();
    result.max_tracking_error = std::max(result.max_tracking_error, error);
    for (const robots::PairDistance& d : inversion.distances()) {
      result.min_clearance = std::min(result.min_clearance, d.distance);
    }

    if (record) {
      SimulationSample s;
      s.t = t;
      s.q = q;
      s.end_effector = step.end_effector;
      s.desired = xd;
      s.tracking_error = error;
      s.potential = step.potential;
      s.link_obstacle_distance.assign(links * obstacles, std::numeric_limits<double>::infinity());
      for (const robots::PairDistance& d : inversion.distances()) {
        const size_t link = static_cast<size_t>(model.collision_shapes()[d.shape].link);
        double& slot = s.link_obstacle_distance[link * obstacles + static_cast<size_t>(d.obstacle)];
        slot = std::min(slot, d.distance);
      }
      result.samples.push_back(std::move(s));
    }
    if (i == steps) break;
    q += step.qdot * options.dt;  // explicit Euler, fixed step
    // Limits hold exactly: freezing keeps joints inside up to rounding, which this removes.
    q = q.cwiseMax(lower).cwiseMin(upper);
  }
  result.total_seconds = seconds_since(start);
  result.collided = result.min_clearance <= 0.0;
  return result;
}

}  // namespace gjk::planner
