// plan_arm (the planning call of gjk-plan and libgjk.planner.plan()): its paths checked
// independently of OMPL and of the planner's checkers, by brute force over every checked pair at
// each waypoint and at dense points between waypoints; start, goal and length against the
// request; every bad option or argument named in its error.
#include <gjk/planner/plan.hpp>
#include <gjk/robots/obstacle_queries.hpp>
#include <gjk/robots/srdf.hpp>

#include "world_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace gjk;
using namespace gjk::planner;

namespace {

const std::string kFourDof = std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf";
const std::string kPyramids = std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml";
const std::string kPandaBoxes = std::string(GJK_ROBOT_SCENES_DIR) + "/panda_boxes.yaml";
const std::string kPanda = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf";
const std::string kPandaSrdf = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.srdf";

// gjk-plan's presets: the straight joint-space motion between them collides (asserted below),
// so the planner has to go around.
Eigen::VectorXd four_dof_start() {
  const double deg = M_PI / 180.0;
  return (Eigen::VectorXd(4) << 0.0, 90 * deg, -150 * deg, -30 * deg).finished();
}
Eigen::VectorXd four_dof_goal() {
  return (Eigen::VectorXd(4) << 0.0, 1.2, 1.9, 1.0).finished();
}
Eigen::VectorXd panda_start() {
  return (Eigen::VectorXd(7) << 1.5, 0.5, 0.0, -1.6, 0.0, 2.1, 0.8).finished();
}
Eigen::VectorXd panda_goal() {
  return (Eigen::VectorXd(7) << -0.2, 0.9, 0.0, -1.0, 0.0, 1.9, 0.8).finished();
}

std::shared_ptr<const robots::CollisionWorld> four_dof_world() {
  return std::make_shared<const robots::CollisionWorld>(
      robots::RobotModel::from_urdf_file(kFourDof), robots::load_scene(kPyramids));
}

std::shared_ptr<const robots::CollisionWorld> panda_world() {
  const robots::RobotModel model = robots::RobotModel::from_urdf_file(kPanda);
  const robots::Srdf srdf = robots::load_srdf(kPandaSrdf, model);
  return std::make_shared<const robots::CollisionWorld>(model, robots::load_scene(kPandaBoxes),
                                                        robots::acm_from_srdf(model, srdf));
}

/// Brute force: the minimum signed distance over every checked pair of the world at full
/// configuration q (robot-obstacle and self pairs), each by its own signed-distance query.
double brute_force_minimum(const robots::CollisionWorld& world, const Eigen::VectorXd& q) {
  robots::WorldContext ctx(world);
  ctx.update(q);
  return gjk::testing::brute_force_minimum(world, ctx);
}

/// Full joint vector for planned values v: the planned joints by name, the fixed ones from
/// `fixed`, independently of the planner's own filling in.
Eigen::VectorXd full_vector(const robots::RobotModel& model, const std::vector<std::string>& names,
                            const Eigen::VectorXd& v, const FixedPositions& fixed) {
  Eigen::VectorXd q = Eigen::VectorXd::Constant(model.num_positions(), NAN);
  const auto& positions = model.position_names();
  for (size_t k = 0; k < positions.size(); ++k) {
    const auto planned = std::find(names.begin(), names.end(), positions[k]);
    if (planned != names.end())
      q[static_cast<Eigen::Index>(k)] = v[planned - names.begin()];
    else if (fixed.count(positions[k]) != 0)
      q[static_cast<Eigen::Index>(k)] = fixed.at(positions[k]);
  }
  return q;
}

/// Checks a solved plan against the request without the planner's checkers: start and goal,
/// length, full_path, and the brute-force clearance at each waypoint and every `step` (joint
/// space) along each segment above `margin`. Returns the smallest clearance seen.
double check_plan(const robots::CollisionWorld& world, const PlanResult& r,
                  const Eigen::VectorXd& start, const Eigen::VectorXd& goal,
                  const PlanOptions& options, double step) {
  EXPECT_TRUE(r.solved) << r.status;
  EXPECT_EQ(r.status, "Exact solution");
  if (!r.solved) return NAN;
  EXPECT_EQ(r.joint_names, planned_joints(world.model(), options.fixed));
  EXPECT_GE(r.path.size(), 2u);
  EXPECT_EQ(r.full_path.size(), r.path.size());
  EXPECT_EQ(r.path.front(), start);
  EXPECT_EQ(r.path.back(), goal);
  double length = 0.0;
  for (size_t i = 0; i + 1 < r.path.size(); ++i) length += (r.path[i + 1] - r.path[i]).norm();
  EXPECT_NEAR(r.length, length, 1e-12 * std::max(1.0, length));
  EXPECT_GT(r.plan_seconds, 0.0);
  EXPECT_GE(r.simplify_seconds, 0.0);
  EXPECT_GT(r.valid_motions, 0u);
  double lowest = std::numeric_limits<double>::infinity();
  int points = 0;
  for (size_t i = 0; i < r.path.size(); ++i) {
    const Eigen::VectorXd q = full_vector(world.model(), r.joint_names, r.path[i], options.fixed);
    EXPECT_EQ(r.full_path[i], q) << "waypoint " << i;
    const double d = brute_force_minimum(world, q);
    EXPECT_GE(d, options.margin) << "waypoint " << i;
    lowest = std::min(lowest, d);
    if (i + 1 == r.path.size()) break;
    const Eigen::VectorXd next =
        full_vector(world.model(), r.joint_names, r.path[i + 1], options.fixed);
    const int n = std::max(2, static_cast<int>(std::ceil((next - q).norm() / step)));
    for (int k = 1; k < n; ++k) {
      const Eigen::VectorXd m = q + (next - q) * (double(k) / n);
      const double dm = brute_force_minimum(world, m);
      EXPECT_GT(dm, options.margin) << "segment " << i << " at " << k << " / " << n;
      lowest = std::min(lowest, dm);
      ++points;
    }
  }
  std::cout << r.path.size() << " waypoints, length " << r.length << ", " << points
            << " interpolated points, lowest brute-force clearance " << lowest << " m\n";
  return lowest;
}

/// The straight motion from a to b passes through a collision (the problem needs a planner).
bool straight_motion_collides(const robots::CollisionWorld& world, const Eigen::VectorXd& a,
                              const Eigen::VectorXd& b) {
  for (int k = 0; k <= 200; ++k)
    if (brute_force_minimum(world, a + (b - a) * (k / 200.0)) < 0.0) return true;
  return false;
}

/// Runs f and returns the PlannerError's message ("" when none was thrown).
template <class F>
std::string planner_error(F&& f) {
  try {
    f();
  } catch (const PlannerError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PlanArm, FourDofAroundThePyramidsIsCollisionFreeByBruteForce) {
  const auto world = four_dof_world();
  ASSERT_TRUE(straight_motion_collides(*world, four_dof_start(), four_dof_goal()));
  for (const std::string& planner : {std::string("rrtconnect"), std::string("rrtstar")}) {
    SCOPED_TRACE(planner);
    PlanOptions options;
    options.planner = planner;
    options.seed = 1;
    options.time_limit = planner == "rrtconnect" ? 10.0 : 1.0;
    const PlanResult r = plan_arm(world, four_dof_start(), four_dof_goal(), options);
    EXPECT_EQ(r.joint_names, (std::vector<std::string>{"joint1", "joint2", "joint3", "joint4"}));
    check_plan(*world, r, four_dof_start(), four_dof_goal(), options, 0.005);
    if (planner == "rrtstar") {
      EXPECT_GE(r.plan_seconds, 0.9);  // optimizing: uses the whole time
    }
  }
}

TEST(PlanArm, MarginIsKeptAlongThePathAndUnsimplifiedPathsAreChecked) {
  // The copying overload, a margin, and no simplification (more, shorter segments).
  const auto world = four_dof_world();
  PlanOptions options;
  options.margin = 0.02;
  options.simplify = false;
  options.time_limit = 10.0;
  const PlanResult r = plan_arm(*world, four_dof_start(), four_dof_goal(), options);
  EXPECT_EQ(r.simplify_seconds, 0.0);
  const double lowest = check_plan(*world, r, four_dof_start(), four_dof_goal(), options, 0.005);
  EXPECT_GT(lowest, options.margin);
}

TEST(PlanArm, PandaWithFixedFingersIsCollisionFreeByBruteForce) {
  const auto world = panda_world();
  const FixedPositions fingers = {{"panda_finger_joint1", 0.02}};
  const std::vector<std::string> names = planned_joints(world->model(), fingers);
  ASSERT_TRUE(straight_motion_collides(*world,
                                       full_vector(world->model(), names, panda_start(), fingers),
                                       full_vector(world->model(), names, panda_goal(), fingers)));
  PlanOptions options;
  options.fixed = fingers;
  options.time_limit = 30.0;
  options.seed = 1;
  const PlanResult r = plan_arm(world, panda_start(), panda_goal(), options);
  ASSERT_EQ(r.joint_names.size(), 7u);
  for (const Eigen::VectorXd& q : r.full_path)
    EXPECT_EQ(q[world->model().num_positions() - 1], 0.02);
  check_plan(*world, r, panda_start(), panda_goal(), options, 0.01);
}

TEST(PlanArm, BadOptionsAndArgumentsNameTheFieldAndValue) {
  const auto world = four_dof_world();
  const Eigen::VectorXd s = four_dof_start(), g = four_dof_goal();
  const auto error = [&](const PlanOptions& o, const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return planner_error([&] { plan_arm(world, a, b, o); });
  };
  const auto with = [](auto set) {
    PlanOptions o;
    set(o);
    return o;
  };
  for (const double t : {0.0, -1.0, double(NAN), double(INFINITY)})
    EXPECT_NE(error(with([t](PlanOptions& o) { o.time_limit = t; }), s, g).find("time_limit = "),
              std::string::npos)
        << t;
  for (const double m : {-0.1, double(NAN), double(INFINITY)})
    EXPECT_NE(error(with([m](PlanOptions& o) { o.margin = m; }), s, g).find("margin = "),
              std::string::npos)
        << m;
  EXPECT_EQ(error(with([](PlanOptions& o) { o.planner = "astar"; }), s, g),
            "planner 'astar': expected rrtconnect, rrtstar, bitstar or prmstar");
  EXPECT_NE(error(with([](PlanOptions& o) {
                    o.fixed = {{"no_joint", 0.0}};
                  }),
                  s, g)
                .find("no_joint"),
            std::string::npos);
  EXPECT_EQ(error({}, Eigen::VectorXd::Zero(3), g),
            "start: expected 4 values (the planned joints), got 3");
  EXPECT_EQ(error({}, s, Eigen::VectorXd::Zero(5)),
            "goal: expected 4 values (the planned joints), got 5");
  Eigen::VectorXd out = s;
  out[3] = 9.0;
  EXPECT_EQ(error({}, out, g).rfind("start: joint joint4 = 9 is outside its limits [", 0), 0u)
      << error({}, out, g);
  EXPECT_EQ(error({}, s, out).rfind("goal: joint joint4 = 9 is outside its limits [", 0), 0u);
  out[3] = NAN;
  EXPECT_EQ(error({}, out, g).rfind("start: joint joint4 = nan is outside its limits [", 0), 0u)
      << error({}, out, g);
  // gjk-plan's hostile-input pose: link 3 inside pyramid_low.
  const Eigen::VectorXd inside = (Eigen::VectorXd(4) << 0, 2.25847, -2.0655, -0.5433).finished();
  ASSERT_LT(brute_force_minimum(*world, inside), 0.0);
  EXPECT_EQ(error({}, inside, g).rfind("start is in collision: link3 / pyramid_low at signed ", 0),
            0u)
      << error({}, inside, g);
  EXPECT_EQ(error({}, s, inside).rfind("goal is in collision: link3 / pyramid_low", 0), 0u);
  // A start that is free but closer than a large margin.
  const double clearance = brute_force_minimum(*world, s);
  ASSERT_GT(clearance, 0.0);
  const std::string close = error(with([&](PlanOptions& o) { o.margin = clearance + 0.01; }), s, g);
  EXPECT_EQ(close.rfind("start is closer than the margin ", 0), 0u) << close;
  // Nothing thrown for good arguments: the harness itself can tell an error from none.
  EXPECT_EQ(error(with([](PlanOptions& o) { o.time_limit = 10.0; }), s, g), "");
}

TEST(PlanArm, NoPathInTimeIsAResultNotAnError) {
  // Only joint2 planned, the others held where link 3 dips into pyramid_low (gjk-plan's
  // hostile-input pose): a one-dimensional space whose only route from below to above the
  // pyramid goes through it.
  const auto world = four_dof_world();
  const FixedPositions held = {{"joint1", 0.0}, {"joint3", -2.0655}, {"joint4", -0.5433}};
  const auto at = [](double joint2) {
    return (Eigen::VectorXd(4) << 0.0, joint2, -2.0655, -0.5433).finished();
  };
  const double inside = 2.25847;
  ASSERT_LT(brute_force_minimum(*world, at(inside)), 0.0);
  const double lo = world->model().lower_limits()[1], hi = world->model().upper_limits()[1];
  double below = NAN, above = NAN;
  for (double v = inside; v > lo && std::isnan(below); v -= 0.01)
    if (brute_force_minimum(*world, at(v)) > 0.01) below = v;
  for (double v = inside; v < hi && std::isnan(above); v += 0.01)
    if (brute_force_minimum(*world, at(v)) > 0.01) above = v;
  ASSERT_FALSE(std::isnan(below) || std::isnan(above)) << below << ", " << above;
  PlanOptions options;
  options.fixed = held;
  options.time_limit = 0.3;
  const PlanResult r = plan_arm(world, Eigen::VectorXd::Constant(1, below),
                                Eigen::VectorXd::Constant(1, above), options);
  EXPECT_EQ(r.joint_names, std::vector<std::string>{"joint2"});
  EXPECT_FALSE(r.solved);
  EXPECT_NE(r.status, "Exact solution");
  EXPECT_TRUE(r.path.empty() && r.full_path.empty());
  EXPECT_EQ(r.length, 0.0);
  EXPECT_GT(r.invalid_motions, 0u);
  EXPECT_GE(r.plan_seconds, 0.25);
}

TEST(PlanArm, MaxIterationsEndsAPlanBeforeItsTimeLimit) {
  // The problem above (no path exists) with a time limit far beyond what 200 iterations take:
  // the plan ends unsolved by the iteration count, not by the clock.
  const auto world = four_dof_world();
  const FixedPositions held = {{"joint1", 0.0}, {"joint3", -2.0655}, {"joint4", -0.5433}};
  PlanOptions options;
  options.fixed = held;
  options.time_limit = 120.0;
  options.max_iterations = 200;
  const auto at = [](double joint2) {
    return (Eigen::VectorXd(4) << 0.0, joint2, -2.0655, -0.5433).finished();
  };
  const double inside = 2.25847, below = inside - 0.3, above = inside + 0.3;
  ASSERT_LT(brute_force_minimum(*world, at(inside)), 0.0);
  ASSERT_GT(brute_force_minimum(*world, at(below)), 0.0);
  ASSERT_GT(brute_force_minimum(*world, at(above)), 0.0);
  const PlanResult r = plan_arm(world, Eigen::VectorXd::Constant(1, below),
                                Eigen::VectorXd::Constant(1, above), options);
  EXPECT_FALSE(r.solved);
  EXPECT_LT(r.plan_seconds, 60.0);
  // And a solvable plan still solves within its iterations.
  PlanOptions free_options;
  free_options.time_limit = 120.0;
  free_options.max_iterations = 100000;
  const PlanResult solved = plan_arm(world, four_dof_start(), four_dof_goal(), free_options);
  EXPECT_TRUE(solved.solved) << solved.status;
}

TEST(PlanArm, TheSeedIsAppliedOncePerProcess) {
  seed_rng_once(7);                // applied, or an earlier call of this process was
  EXPECT_FALSE(seed_rng_once(8));  // never twice
  EXPECT_FALSE(seed_rng_once(7));
}
