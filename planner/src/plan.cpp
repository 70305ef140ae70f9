// plan_arm: the OMPL planning call shared by gjk-plan and libgjk.planner.plan().
#include "gjk/planner/plan.hpp"

#include <ompl/base/PlannerTerminationCondition.h>
#include <ompl/base/ScopedState.h>
#include <ompl/base/terminationconditions/IterationTerminationCondition.h>
#include <ompl/geometric/SimpleSetup.h>
#include <ompl/geometric/planners/informedtrees/BITstar.h>
#include <ompl/geometric/planners/prm/PRMstar.h>
#include <ompl/geometric/planners/rrt/RRTConnect.h>
#include <ompl/geometric/planners/rrt/RRTstar.h>
#include <ompl/util/Console.h>
#include <ompl/util/RandomNumbers.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>

namespace gjk::planner {

namespace {

namespace ob = ompl::base;
namespace og = ompl::geometric;

ob::PlannerPtr make_planner(const std::string& name, const ob::SpaceInformationPtr& si) {
  if (name == "rrtconnect") return std::make_shared<og::RRTConnect>(si);
  if (name == "rrtstar") return std::make_shared<og::RRTstar>(si);
  if (name == "bitstar") return std::make_shared<og::BITstar>(si);
  if (name == "prmstar") return std::make_shared<og::PRMstar>(si);
  throw PlannerError("planner '" + name + "': expected rrtconnect, rrtstar, bitstar or prmstar");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Why `q` (a full joint vector) is not a valid state, naming the closest pair.
std::string describe_invalid(const StateValidityChecker& checker,
                             const robots::CollisionWorld& world, const Eigen::VectorXd& q,
                             const char* name, double margin) {
  const ClosestPair c = checker.closest(q);
  const auto shape_count = static_cast<int>(world.model().collision_shapes().size());
  // Only a computed pair may index the shapes (issue 15 item 6).
  const bool have_pair =
      c.pair.status != Status::InvalidInput && c.pair.shape >= 0 && c.pair.shape < shape_count &&
      c.pair.obstacle >= 0 &&
      (c.self ? c.pair.obstacle < shape_count : size_t(c.pair.obstacle) < world.obstacles().size());
  if (!have_pair) return std::string(name) + " is not a valid state";
  const std::string a = world.part_name(c.pair.shape);
  const std::string b =
      c.self ? world.part_name(c.pair.obstacle) : world.obstacles()[size_t(c.pair.obstacle)].name;
  std::ostringstream msg;
  if (c.pair.distance < 0.0) {
    msg << name << " is in collision: " << a << " / " << b << " at signed distance "
        << c.pair.distance << " m";
  } else {
    msg << name << " is closer than the margin " << margin << " m: " << a << " / " << b << " at "
        << c.pair.distance << " m";
  }
  return msg.str();
}

std::vector<std::string> dimension_names(const ob::RealVectorStateSpace& space) {
  std::vector<std::string> names;
  for (unsigned i = 0; i < space.getDimension(); ++i) names.push_back(space.getDimensionName(i));
  return names;
}

}  // namespace

const std::vector<std::string>& planner_names() {
  static const std::vector<std::string> names = {"rrtconnect", "rrtstar", "bitstar", "prmstar"};
  return names;
}

std::vector<std::string> planned_joints(const robots::RobotModel& model,
                                        const FixedPositions& fixed) {
  return dimension_names(*make_state_space(model, fixed));
}

bool seed_rng_once(unsigned seed) {
  static std::mutex mutex;
  static bool seeded = false;
  const std::lock_guard<std::mutex> lock(mutex);
  if (seeded) return false;
  ompl::RNG::setSeed(seed);
  seeded = true;
  return true;
}

PlanResult plan_arm(std::shared_ptr<const robots::CollisionWorld> world,
                    const Eigen::VectorXd& start, const Eigen::VectorXd& goal,
                    const PlanOptions& options) {
  if (!world) throw PlannerError("world: must not be null");
  if (!(options.time_limit > 0) || !std::isfinite(options.time_limit)) {
    std::ostringstream msg;
    msg << "time_limit = " << options.time_limit << ": must be a finite number > 0";
    throw PlannerError(msg.str());
  }
  if (!(options.margin >= 0) || !std::isfinite(options.margin))
    throw PlannerError("margin = " + std::to_string(options.margin) + ": must be finite and >= 0");
  const auto& names = planner_names();
  if (std::find(names.begin(), names.end(), options.planner) == names.end())
    make_planner(options.planner, nullptr);  // throws the message naming the choices
  if (options.seed) seed_rng_once(*options.seed);
  // Once: a global that concurrent plans would otherwise write while OMPL's logging reads it.
  static std::once_flag quiet;
  std::call_once(quiet, [] { ompl::msg::setLogLevel(ompl::msg::LOG_WARN); });

  auto space = make_state_space(world->model(), options.fixed);
  auto si = std::make_shared<ob::SpaceInformation>(space);
  CollisionSettings settings;
  settings.margin = options.margin;
  settings.self_collision = options.self_collision;
  settings.fixed_positions = options.fixed;
  const auto collision = install_collision_checking(si, world, settings);
  const auto checker =
      std::static_pointer_cast<StateValidityChecker>(si->getStateValidityChecker());

  PlanResult result;
  result.joint_names = dimension_names(*space);
  const auto dim = static_cast<Eigen::Index>(space->getDimension());
  const auto& bounds = space->getBounds();
  for (auto [v, name] : {std::pair{&start, "start"}, std::pair{&goal, "goal"}}) {
    if (v->size() != dim)
      throw PlannerError(std::string(name) + ": expected " + std::to_string(dim) +
                         " values (the planned joints), got " + std::to_string(v->size()));
    for (Eigen::Index i = 0; i < dim; ++i) {
      const double x = (*v)[i];
      const auto k = static_cast<size_t>(i);
      if (!(x >= bounds.low[k] && x <= bounds.high[k])) {
        std::ostringstream msg;
        msg << name << ": joint " << result.joint_names[k] << " = " << x
            << " is outside its limits [" << bounds.low[k] << ", " << bounds.high[k] << "]";
        throw PlannerError(msg.str());
      }
    }
  }
  for (auto [v, name] : {std::pair{&start, "start"}, std::pair{&goal, "goal"}}) {
    const Eigen::VectorXd q = collision->full_configuration(v->data());
    if (!checker->is_valid(q))
      throw PlannerError(describe_invalid(*checker, *world, q, name, options.margin));
  }

  ob::ScopedState<> a(space), b(space);
  for (Eigen::Index i = 0; i < dim; ++i) {
    a[static_cast<unsigned>(i)] = start[i];
    b[static_cast<unsigned>(i)] = goal[i];
  }
  og::SimpleSetup ss(si);
  ss.setStartAndGoalStates(a, b);
  ss.setPlanner(make_planner(options.planner, si));
  if (options.planner != "rrtconnect")
    ss.getProblemDefinition()->setOptimizationObjective(make_length_clearance_objective(si));
  const auto t0 = std::chrono::steady_clock::now();
  ob::PlannerTerminationCondition stop = ob::timedPlannerTerminationCondition(options.time_limit);
  std::optional<ob::IterationTerminationCondition> iterations;
  if (options.max_iterations > 0) {
    iterations.emplace(options.max_iterations);
    stop = ob::plannerOrTerminationCondition(stop, *iterations);
  }
  const ob::PlannerStatus status = ss.solve(stop);
  result.plan_seconds = seconds_since(t0);
  result.status = status.asString();
  result.solved = status == ob::PlannerStatus::EXACT_SOLUTION;
  if (result.solved) {
    if (options.simplify) {
      const auto t1 = std::chrono::steady_clock::now();
      ss.simplifySolution();
      result.simplify_seconds = seconds_since(t1);
    }
    const og::PathGeometric& path = ss.getSolutionPath();
    result.length = path.length();
    for (size_t i = 0; i < path.getStateCount(); ++i) {
      const auto* st = path.getState(i)->as<ob::RealVectorStateSpace::StateType>();
      result.path.push_back(Eigen::Map<const Eigen::VectorXd>(st->values, dim));
      result.full_path.push_back(collision->full_configuration(st->values));
    }
  }
  result.valid_motions = si->getMotionValidator()->getValidMotionCount();
  result.invalid_motions = si->getMotionValidator()->getInvalidMotionCount();
  return result;
}

PlanResult plan_arm(const robots::CollisionWorld& world, const Eigen::VectorXd& start,
                    const Eigen::VectorXd& goal, const PlanOptions& options) {
  return plan_arm(std::make_shared<const robots::CollisionWorld>(world), start, goal, options);
}

}  // namespace gjk::planner
