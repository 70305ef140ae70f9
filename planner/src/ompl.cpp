// OMPL integration: validity with exact clearance, certified motions, clearance objectives.
#include "gjk/planner/ompl.hpp"

#include "gjk/planner/velocity_inversion.hpp"
#include "gjk/queries.hpp"
#include "gjk/robots/obstacle_queries.hpp"

#include <ompl/base/objectives/PathLengthOptimizationObjective.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ob = ompl::base;

namespace gjk::planner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// How far past the margin the valid-direction search aims, so the proposed state is valid
/// with room to spare rather than on the boundary (metres).
constexpr double kValidDirectionSlack = 0.01;
constexpr int kValidDirectionIterations = 8;

/// Largest distance from the link frame's origin to any point of the collision shape.
double extent_from_link_origin(const robots::CollisionShape& c) {
  const Shape& s = c.shape;
  auto corner_max = [&](const std::vector<Vec3>& points) {
    double r = 0.0;
    for (const Vec3& p : points) r = std::max(r, (c.origin * p).norm());
    return r;
  };
  double core = 0.0;
  if (const auto* sphere = std::get_if<Sphere>(&s.geometry)) {
    core = c.origin.translation().norm() + sphere->radius;
  } else if (const auto* box = std::get_if<Box>(&s.geometry)) {
    std::vector<Vec3> corners;
    for (int i = 0; i < 8; ++i) {
      corners.emplace_back((i & 1 ? 1 : -1) * box->half_extents.x(),
                           (i & 2 ? 1 : -1) * box->half_extents.y(),
                           (i & 4 ? 1 : -1) * box->half_extents.z());
    }
    core = corner_max(corners);
  } else if (const auto* capsule = std::get_if<Capsule>(&s.geometry)) {
    core = corner_max({Vec3(0, 0, -capsule->half_length), Vec3(0, 0, capsule->half_length)}) +
           capsule->radius;
  } else if (const auto* cylinder = std::get_if<Cylinder>(&s.geometry)) {
    // Every point is within the rim circles' reach: |centre| + sqrt(r² + h²).
    core = c.origin.translation().norm() + std::hypot(cylinder->radius, cylinder->half_length);
  } else if (const auto* hull = std::get_if<ConvexPolytope>(&s.geometry)) {
    core = corner_max(hull->vertices());
  }
  return core + s.inflation;
}

CollisionModel::BoundingBall bounding_ball(const Shape& s) {
  const robots::ObstacleBall b = robots::shape_ball(s);
  return {b.centre, b.radius};
}

double largest_magnitude(double lower, double upper) {
  return std::max(std::abs(lower), std::abs(upper));
}

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {

/// Model position indices not held fixed; checks the fixed names and values.
std::vector<int> active_positions_of(const robots::RobotModel& model, const FixedPositions& fixed,
                                     Eigen::VectorXd* template_q) {
  const auto& names = model.position_names();
  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();
  Eigen::VectorXd q = (lower.array().isFinite() && upper.array().isFinite())
                          .select(0.5 * (lower + upper), Eigen::VectorXd::Zero(lower.size()));
  for (const auto& [name, value] : fixed) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      throw PlannerError("fixed position '" + name + "': '" + model.name() +
                         "' has no joint position of that name");
    const int i = static_cast<int>(it - names.begin());
    if (!std::isfinite(value) || value < lower[i] || value > upper[i])
      throw PlannerError("fixed position '" + name + "' = " + std::to_string(value) +
                         ": outside its limits [" + std::to_string(lower[i]) + ", " +
                         std::to_string(upper[i]) + "]");
    q[i] = value;
  }
  std::vector<int> active;
  for (int i = 0; i < model.num_positions(); ++i) {
    if (!fixed.count(names[static_cast<size_t>(i)])) active.push_back(i);
  }
  if (active.empty())
    throw PlannerError("'" + model.name() + "' has no joint position left to plan for");
  if (template_q) *template_q = q;
  return active;
}

}  // namespace

std::shared_ptr<ob::RealVectorStateSpace> make_state_space(const robots::RobotModel& model,
                                                           const FixedPositions& fixed) {
  const std::vector<int> active = active_positions_of(model, fixed, nullptr);
  const auto n = static_cast<unsigned>(active.size());
  auto space = std::make_shared<ob::RealVectorStateSpace>(n);
  ob::RealVectorBounds bounds(n);
  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();
  for (unsigned d = 0; d < n; ++d) {
    const int i = active[d];
    bounds.low[d] = std::isfinite(lower[i]) ? lower[i] : -M_PI;
    bounds.high[d] = std::isfinite(upper[i]) ? upper[i] : M_PI;
    space->setDimensionName(d, model.position_names()[static_cast<size_t>(i)]);
  }
  space->setBounds(bounds);
  return space;
}

// ---------------------------------------------------------------------------------------------

namespace {

/// The world of a robot and a scene with the default matrix (adjacent links allowed).
std::shared_ptr<const robots::CollisionWorld> default_world(
    const std::shared_ptr<const robots::RobotModel>& model,
    const std::shared_ptr<const robots::Scene>& scene) {
  if (!model) throw PlannerError("CollisionModel: no robot model");
  if (!scene) throw PlannerError("CollisionModel: no scene");
  return std::make_shared<const robots::CollisionWorld>(*model, *scene);
}

}  // namespace

CollisionModel::CollisionModel(std::shared_ptr<const robots::RobotModel> model,
                               std::shared_ptr<const robots::Scene> scene,
                               CollisionSettings settings)
    : world_(default_world(model, scene)), settings_(std::move(settings)) {
  initialise();
}

CollisionModel::CollisionModel(std::shared_ptr<const robots::CollisionWorld> world,
                               CollisionSettings settings)
    : world_(std::move(world)), settings_(std::move(settings)) {
  if (!world_) throw PlannerError("CollisionModel: no collision world");
  initialise();
}

void CollisionModel::initialise() {
  if (!std::isfinite(settings_.margin) || settings_.margin < 0)
    throw PlannerError("CollisionSettings.margin = " + std::to_string(settings_.margin) +
                       ": must be finite and >= 0");
  if (!settings_.allowed_self_pairs.empty() || !settings_.self_collision) {
    // The settings change the matrix: the checks run on a copy of the world that has them.
    auto world = std::make_shared<robots::CollisionWorld>(*world_);
    robots::AllowedCollisionMatrix allowed = world->allowed_collisions();
    for (const auto& [a, b] : settings_.allowed_self_pairs) {
      world->robot().link_index(a);  // unknown names are errors (ModelError names them)
      world->robot().link_index(b);
      allowed.set_allowed(a, b, true);
    }
    if (!settings_.self_collision) {  // no self pairs at all: every robot part may touch
      std::vector<std::string> parts;
      for (int s = 0; s < static_cast<int>(world->model().collision_shapes().size()); ++s)
        parts.push_back(world->part_name(s));
      for (const std::string& a : parts)
        for (const std::string& b : parts) allowed.set_allowed(a, b, true);
    }
    world->set_allowed_collisions(std::move(allowed));
    world_ = std::move(world);
  }
  if (settings_.self_collision) self_pairs_ = world_->self_pairs();
  const robots::RobotModel& model = world_->model();
  active_ = active_positions_of(model, settings_.fixed_positions, &template_q_);
  for (const auto& c : model.collision_shapes()) shape_balls_.push_back(bounding_ball(c.shape));
  for (const auto& o : world_->obstacles()) {
    const robots::ObstacleBall b = robots::bounding_ball(o);
    obstacle_balls_.push_back({b.centre, b.radius});
  }

  // Levers for conservative advancement: a point p of a shape on link L, seen from joint j on
  // L's chain, is at most (sum of the joint offsets below j) + (prismatic travel below j) +
  // (the shape's extent) from j's axis, whatever the configuration (triangle inequality).
  const int n = model.num_positions();
  const auto& joints = model.joints();
  const auto& links = model.links();
  levers_.assign(model.collision_shapes().size(), Eigen::VectorXd::Zero(n));
  for (size_t s = 0; s < model.collision_shapes().size(); ++s) {
    const robots::CollisionShape& c = model.collision_shapes()[s];
    double reach = extent_from_link_origin(c);  // from the current joint frame down to the shape
    for (int link = c.link; link >= 0;) {
      const int ji = links[static_cast<size_t>(link)].parent_joint;
      if (ji < 0) break;
      const robots::Joint& j = joints[static_cast<size_t>(ji)];
      if (j.q_index >= 0) {
        const double m = std::abs(j.mimic_multiplier);
        // Revolute: |dp/dq| = |axis × (p − o_j)| <= reach. Prismatic: the whole subtree slides.
        levers_[s][j.q_index] += m * (j.type == robots::JointType::Prismatic ? 1.0 : reach);
        if (j.type == robots::JointType::Prismatic)
          reach += m * largest_magnitude(j.lower, j.upper) + std::abs(j.mimic_offset);
      }
      reach += j.origin.translation().norm();
      link = j.parent_link;
    }
  }
}

Eigen::VectorXd CollisionModel::full_configuration(const double* state_values) const {
  Eigen::VectorXd q = template_q_;
  for (size_t d = 0; d < active_.size(); ++d) q[active_[d]] = state_values[d];
  return q;
}

// ---------------------------------------------------------------------------------------------

struct QueryContext {
  explicit QueryContext(const CollisionModel& c)
      : world(c.world()),
        ws(c.model()),
        obstacle_caches(c.model(), c.scene()),
        self_caches(c.self_pairs().size()),
        poses(c.model().collision_shapes().size(), Pose::Identity()),
        q(c.model().num_positions()) {}
  robots::WorldContext world;  ///< validity and closest pair (broadphase, matrix, warm starts)
  robots::Workspace ws;        ///< the rest: conservative advancement
  robots::DistanceCache obstacle_caches;
  std::vector<WarmStart> self_caches;
  std::vector<Pose> poses;    ///< collision shapes in the world at the last configuration
  std::vector<Vec3> centres;  ///< their bounding balls' centres in the world
  Eigen::VectorXd q;

  void update(const CollisionModel& c, const Eigen::VectorXd& config) {
    robots::forward_kinematics(c.model(), config, ws);
    centres.resize(poses.size());
    for (size_t s = 0; s < poses.size(); ++s) {
      poses[s] = robots::collision_pose(c.model(), ws, static_cast<int>(s));
      centres[s] = poses[s] * c.shape_balls()[s].centre;
    }
  }
  /// Lower bounds on pair distances from the bounding balls (negative when they overlap).
  double ball_gap_to_obstacle(const CollisionModel& c, size_t s, size_t o) const {
    return (centres[s] - c.obstacle_balls()[o].centre).norm() - c.shape_balls()[s].radius -
           c.obstacle_balls()[o].radius;
  }
  double ball_gap_between(const CollisionModel& c, size_t a, size_t b) const {
    return (centres[a] - centres[b]).norm() - c.shape_balls()[a].radius - c.shape_balls()[b].radius;
  }
};

ContextPool::ContextPool(std::shared_ptr<const CollisionModel> collision)
    : collision_(std::move(collision)) {}
ContextPool::~ContextPool() = default;

ContextPool::Lease::Lease(ContextPool& pool, std::unique_ptr<QueryContext> context)
    : pool_(pool), context_(std::move(context)) {}
ContextPool::Lease::~Lease() {
  std::lock_guard<std::mutex> lock(pool_.mutex_);
  pool_.free_.push_back(std::move(context_));
}

ContextPool::Lease ContextPool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      std::unique_ptr<QueryContext> c = std::move(free_.back());
      free_.pop_back();
      return Lease(*this, std::move(c));
    }
  }
  return Lease(*this, std::make_unique<QueryContext>(*collision_));
}

// ---------------------------------------------------------------------------------------------

namespace {

bool finite_within_bounds(const robots::RobotModel& model, const Eigen::VectorXd& q) {
  if (q.size() != model.num_positions() || !q.allFinite()) return false;
  try {
    model.check_configuration(q);
  } catch (const robots::ModelError&) {
    return false;
  }
  return true;
}

/// True when some checked pair is closer than the margin (the world's broadphase and threshold
/// queries, each stopping as soon as its bounds decide: seed 001 Fig. 2(b) lifted to 3D).
bool any_pair_too_close(const CollisionModel& c, QueryContext& ctx, const Eigen::VectorXd& q) {
  ctx.world.update(q);
  return ctx.world.in_collision(c.settings().margin, c.settings().query);
}

/// The closest checked pair (signed distance) with its gradient.
ClosestPair closest_pair(const CollisionModel& c, QueryContext& ctx, const Eigen::VectorXd& q) {
  ctx.world.update(q);
  return ctx.world.closest(kInf, c.settings().query, true);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

StateValidityChecker::StateValidityChecker(const ob::SpaceInformationPtr& si,
                                           std::shared_ptr<const CollisionModel> collision)
    : ob::StateValidityChecker(si), collision_(std::move(collision)), pool_(collision_) {
  if (!collision_) throw PlannerError("StateValidityChecker: no collision model");
  if (si->getStateDimension() != collision_->active_positions().size())
    throw PlannerError("StateValidityChecker: the state space has " +
                       std::to_string(si->getStateDimension()) + " dimensions, '" +
                       collision_->model().name() + "' has " +
                       std::to_string(collision_->active_positions().size()) +
                       " joint positions to plan for (make_state_space with the same fixed "
                       "positions builds the matching space)");
  specs_.clearanceComputationType = ob::StateValidityCheckerSpecs::EXACT;
  specs_.hasValidDirectionComputation = true;
}

Eigen::VectorXd StateValidityChecker::to_vector(const ob::State* state) const {
  return collision_->full_configuration(state->as<ob::RealVectorStateSpace::StateType>()->values);
}

bool StateValidityChecker::is_valid(const Eigen::VectorXd& q) const {
  if (!finite_within_bounds(collision_->model(), q)) return false;
  auto ctx = pool_.acquire();
  return !any_pair_too_close(*collision_, *ctx, q);
}

ClosestPair StateValidityChecker::closest(const Eigen::VectorXd& q) const {
  if (!finite_within_bounds(collision_->model(), q)) {
    ClosestPair none;
    none.pair.distance = -kInf;
    none.pair.status = Status::InvalidInput;
    return none;
  }
  auto ctx = pool_.acquire();
  return closest_pair(*collision_, *ctx, q);
}

bool StateValidityChecker::isValid(const ob::State* state) const {
  return is_valid(to_vector(state));
}

bool StateValidityChecker::isValid(const ob::State* state, double& dist) const {
  dist = clearance(state);
  return dist > collision_->settings().margin;  // exact clearance decides; false on NaN
}

double StateValidityChecker::clearance(const ob::State* state) const {
  return closest(to_vector(state)).pair.distance;
}

bool StateValidityChecker::direction_to_valid(const Eigen::VectorXd& q0, const ClosestPair& start,
                                              ob::State* valid_state) const {
  const double target = collision_->settings().margin + kValidDirectionSlack;
  const std::vector<int>& active = collision_->active_positions();
  Eigen::VectorXd q = q0;
  ClosestPair c = start;
  for (int i = 0; i < kValidDirectionIterations; ++i) {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(q.size());  // only the planned positions move
    for (int k : active) g[k] = c.pair.gradient.size() == q.size() ? c.pair.gradient[k] : 0.0;
    const double g2 = g.squaredNorm();
    if (!(g2 > 0) || !std::isfinite(c.pair.distance)) return false;
    // Newton step on the linearised clearance: d + gᵀδ = target with δ along g.
    q += ((target - c.pair.distance) / g2) * g;
    auto* s = valid_state->as<ob::RealVectorStateSpace::StateType>();
    for (size_t d = 0; d < active.size(); ++d) s->values[d] = q[active[d]];
    si_->enforceBounds(valid_state);
    q = to_vector(valid_state);
    if (is_valid(q)) return true;
    c = closest(q);
  }
  return false;
}

double StateValidityChecker::clearance(const ob::State* state, ob::State* validState,
                                       bool& validStateAvailable) const {
  const Eigen::VectorXd q = to_vector(state);
  const ClosestPair c = closest(q);
  validStateAvailable = false;  // (fixed positions never move: the search is in the state space)
  if (c.pair.distance <= collision_->settings().margin && validState)
    validStateAvailable = direction_to_valid(q, c, validState);
  return c.pair.distance;
}

bool StateValidityChecker::isValid(const ob::State* state, double& dist, ob::State* validState,
                                   bool& validStateAvailable) const {
  dist = clearance(state, validState, validStateAvailable);
  return dist > collision_->settings().margin;
}

// ---------------------------------------------------------------------------------------------

CertifiedMotionValidator::CertifiedMotionValidator(const ob::SpaceInformationPtr& si,
                                                   std::shared_ptr<const CollisionModel> collision,
                                                   CertifiedMotionOptions options)
    : ob::MotionValidator(si),
      collision_(std::move(collision)),
      options_(options),
      pool_(collision_) {
  if (!collision_) throw PlannerError("CertifiedMotionValidator: no collision model");
  if (options_.max_steps < 1)
    throw PlannerError("CertifiedMotionOptions.max_steps = " + std::to_string(options_.max_steps) +
                       ": must be >= 1");
}

MotionCertificate CertifiedMotionValidator::certify(const Eigen::VectorXd& q1,
                                                    const Eigen::VectorXd& q2) const {
  MotionCertificate cert;
  cert.min_clearance = kInf;
  const CollisionModel& c = *collision_;
  if (!finite_within_bounds(c.model(), q1) || !finite_within_bounds(c.model(), q2)) return cert;

  const auto& shapes = c.model().collision_shapes();
  const auto& obstacles = c.scene().obstacles;
  const double margin = c.settings().margin;
  const QueryOptions& query = c.settings().query;

  // B_s: how far any point of shape s can move per unit of the motion parameter.
  const Eigen::VectorXd dq = q2 - q1;
  std::vector<double> speed(shapes.size());
  for (size_t s = 0; s < shapes.size(); ++s) speed[s] = c.levers()[s].dot(dq.cwiseAbs());

  // Each pair carries its own horizon: the motion parameter up to which it is certified clear
  // (d − margin)/B past where it was last measured. Only pairs whose horizon has been reached are
  // measured again, so far pairs cost one query per motion and the near pair sets the pace.
  struct Tracked {
    int a, b;  ///< shape index; obstacle index (or second shape for self pairs)
    bool self;
    double speed;
    double horizon = 0.0;
    int self_index = -1;  ///< index into c.self_pairs() (its warm start) for a self pair
  };
  std::vector<Tracked> pairs;
  pairs.reserve(shapes.size() * obstacles.size() + c.self_pairs().size());
  for (size_t a = 0; a < shapes.size(); ++a) {
    for (size_t o = 0; o < obstacles.size(); ++o)
      if (c.world().checked(static_cast<int>(a), static_cast<int>(o)))
        pairs.push_back({static_cast<int>(a), static_cast<int>(o), false, speed[a]});
  }
  for (size_t k = 0; k < c.self_pairs().size(); ++k) {
    const auto [a, b] = c.self_pairs()[k];
    // Joints upstream of both links move them together: only the others change the distance.
    const Eigen::VectorXd& la = c.levers()[static_cast<size_t>(a)];
    const Eigen::VectorXd& lb = c.levers()[static_cast<size_t>(b)];
    double relative = 0.0;
    for (int j = 0; j < dq.size(); ++j) {
      const bool moves_a = la[j] > 0, moves_b = lb[j] > 0;
      if (moves_a != moves_b) relative += std::abs(dq[j]) * (moves_a ? la[j] : lb[j]);
    }
    pairs.push_back({a, b, true, relative, 0.0, static_cast<int>(k)});
  }

  auto ctx = pool_.acquire();
  double previous = 0.0;
  while (cert.steps < options_.max_steps) {
    double s = kInf;
    for (const Tracked& p : pairs) s = std::min(s, p.horizon);
    if (s > 1.0) {  // every pair certified clear past the end of the motion
      cert.valid = true;
      cert.last_valid = 1.0;
      return cert;
    }
    ctx->q = q1 + s * dq;
    ctx->update(c, ctx->q);
    ++cert.steps;
    for (size_t i = 0; i < pairs.size(); ++i) {
      Tracked& p = pairs[i];
      if (p.horizon > s) continue;
      const auto ua = static_cast<size_t>(p.a), ub = static_cast<size_t>(p.b);
      // The gap between the bounding balls is a lower bound on the distance. When it is at least
      // the balls' size it is within a factor of 3 of the exact distance: good enough to
      // certify a horizon without a GJK query. (A small gap would certify tiny steps only.)
      const double ball_gap =
          p.self ? ctx->ball_gap_between(c, ua, ub) : ctx->ball_gap_to_obstacle(c, ua, ub);
      const double ball_sizes =
          c.shape_balls()[ua].radius +
          (p.self ? c.shape_balls()[ub].radius : c.obstacle_balls()[ub].radius);
      if (ball_gap > margin + ball_sizes) {
        p.horizon = p.speed > 0 ? s + (ball_gap - margin) / p.speed : kInf;
        continue;
      }
      WarmStart* warm = p.self ? &ctx->self_caches[static_cast<size_t>(p.self_index)]
                               : ctx->obstacle_caches.get(p.a, p.b);
      DistanceResult r;
      bool exact = true;
      if (shapes[ua].mesh || (p.self && shapes[ub].mesh)) {
        // A link mesh lies inside its hull, so the hulls' distance is a lower bound: when it
        // clears the margin it certifies a horizon (a shorter one) without the triangles. The
        // warm start is the hulls' (the triangle queries take none).
        r = p.self ? distance(shapes[ua].shape, ctx->poses[ua], shapes[ub].shape, ctx->poses[ub],
                              query, *warm)
                   : robots::distance(shapes[ua].shape, ctx->poses[ua], obstacles[ub], query, warm);
        exact = r.status == Status::InvalidInput || !(r.distance > margin);
      }
      if (exact) {
        r = p.self ? robots::distance(shapes[ua], ctx->poses[ua], shapes[ub], ctx->poses[ub], query,
                                      warm)
                   : robots::distance(shapes[ua], ctx->poses[ua], obstacles[ub], query, warm);
      }
      ++cert.pair_queries;
      const double d = r.status == Status::InvalidInput ? -kInf : r.distance;
      cert.min_clearance = std::min(cert.min_clearance, d);
      if (!(d > margin)) {
        cert.last_valid = previous;  // the last configuration at which every pair was clear
        return cert;
      }
      p.horizon = p.speed > 0 ? s + (d - margin) / p.speed : kInf;
    }
    previous = s;
  }
  cert.step_limit = true;
  cert.last_valid = previous;
  return cert;
}

bool CertifiedMotionValidator::checkMotion(const ob::State* s1, const ob::State* s2) const {
  const MotionCertificate cert = certify(
      collision_->full_configuration(s1->as<ob::RealVectorStateSpace::StateType>()->values),
      collision_->full_configuration(s2->as<ob::RealVectorStateSpace::StateType>()->values));
  (cert.valid ? valid_ : invalid_)++;
  return cert.valid;
}

bool CertifiedMotionValidator::checkMotion(const ob::State* s1, const ob::State* s2,
                                           std::pair<ob::State*, double>& lastValid) const {
  const MotionCertificate cert = certify(
      collision_->full_configuration(s1->as<ob::RealVectorStateSpace::StateType>()->values),
      collision_->full_configuration(s2->as<ob::RealVectorStateSpace::StateType>()->values));
  if (cert.valid) {
    valid_++;
    return true;
  }
  invalid_++;
  if (lastValid.first) si_->getStateSpace()->interpolate(s1, s2, cert.last_valid, lastValid.first);
  lastValid.second = cert.last_valid;
  return false;
}

// ---------------------------------------------------------------------------------------------

ClearanceObjective::ClearanceObjective(const ob::SpaceInformationPtr& si, double d0,
                                       double min_clearance)
    : ob::StateCostIntegralObjective(si, true), d0_(d0), min_clearance_(min_clearance) {
  if (!(d0 > 0) || !std::isfinite(d0))
    throw PlannerError("ClearanceObjective: d0 = " + std::to_string(d0) + ": must be > 0");
  if (!(min_clearance > 0) || !(min_clearance < d0))
    throw PlannerError("ClearanceObjective: min_clearance = " + std::to_string(min_clearance) +
                       ": must be in (0, d0)");
  setCostToGoHeuristic(&ob::goalRegionCostToGo);
  description_ = "gjk clearance potential";
}

ob::Cost ClearanceObjective::stateCost(const ob::State* s) const {
  PotentialField field;
  field.d0 = d0_;
  field.min_distance = min_clearance_;
  const double c = si_->getStateValidityChecker()->clearance(s);
  return ob::Cost(pair_potential(std::isnan(c) ? -kInf : c, field));
}

ob::OptimizationObjectivePtr make_length_clearance_objective(const ob::SpaceInformationPtr& si,
                                                             double weight, double d0) {
  if (!(weight >= 0) || !std::isfinite(weight))
    throw PlannerError("make_length_clearance_objective: weight = " + std::to_string(weight) +
                       ": must be finite and >= 0");
  auto combined = std::make_shared<ob::MultiOptimizationObjective>(si);
  combined->addObjective(std::make_shared<ob::PathLengthOptimizationObjective>(si), 1.0);
  combined->addObjective(std::make_shared<ClearanceObjective>(si, d0), weight);
  return combined;
}

std::shared_ptr<const CollisionModel> install_collision_checking(
    const ob::SpaceInformationPtr& si, std::shared_ptr<const robots::RobotModel> model,
    std::shared_ptr<const robots::Scene> scene, CollisionSettings settings) {
  auto collision = std::make_shared<const CollisionModel>(std::move(model), std::move(scene),
                                                          std::move(settings));
  si->setStateValidityChecker(std::make_shared<StateValidityChecker>(si, collision));
  si->setMotionValidator(std::make_shared<CertifiedMotionValidator>(si, collision));
  si->setup();
  return collision;
}

std::shared_ptr<const CollisionModel> install_collision_checking(
    const ob::SpaceInformationPtr& si, std::shared_ptr<const robots::CollisionWorld> world,
    CollisionSettings settings) {
  auto collision = std::make_shared<const CollisionModel>(std::move(world), std::move(settings));
  si->setStateValidityChecker(std::make_shared<StateValidityChecker>(si, collision));
  si->setMotionValidator(std::make_shared<CertifiedMotionValidator>(si, collision));
  si->setup();
  return collision;
}

}  // namespace gjk::planner
