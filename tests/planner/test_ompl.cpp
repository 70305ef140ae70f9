// OMPL integration: the validity checker against a brute-force evaluation of every pair, the
// valid direction, certified motions against dense sampling and OMPL's discrete validator
// (including a thin obstacle the discrete one steps over), planning end to end, threads.
#include <gjk/planner/ompl.hpp>

#include "datasets.hpp"

#include <ompl/base/DiscreteMotionValidator.h>
#include <ompl/base/ScopedState.h>
#include <ompl/geometric/SimpleSetup.h>
#include <ompl/geometric/planners/rrt/RRTConnect.h>
#include <ompl/util/Console.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

using namespace gjk;
using namespace gjk::planner;
namespace ob = ompl::base;
namespace og = ompl::geometric;

namespace {

const std::string kFourDof = std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf";
const std::string kPyramids = std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml";
const std::string kPanda = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf";

struct OmplSetup {
  std::shared_ptr<const robots::RobotModel> model;
  std::shared_ptr<const robots::Scene> scene;
  ob::SpaceInformationPtr si;
  std::shared_ptr<const CollisionModel> collision;
  std::shared_ptr<StateValidityChecker> checker;
  std::shared_ptr<CertifiedMotionValidator> motions;
};

OmplSetup make_setup(robots::RobotModel model, robots::Scene scene,
                     CollisionSettings settings = {}) {
  ompl::msg::setLogLevel(ompl::msg::LOG_WARN);
  OmplSetup s;
  s.model = std::make_shared<const robots::RobotModel>(std::move(model));
  s.scene = std::make_shared<const robots::Scene>(std::move(scene));
  s.si = std::make_shared<ob::SpaceInformation>(make_state_space(*s.model));
  s.collision = std::make_shared<const CollisionModel>(s.model, s.scene, settings);
  s.checker = std::make_shared<StateValidityChecker>(s.si, s.collision);
  s.motions = std::make_shared<CertifiedMotionValidator>(s.si, s.collision);
  s.si->setStateValidityChecker(s.checker);
  s.si->setMotionValidator(s.motions);
  s.si->setup();
  return s;
}

Eigen::VectorXd random_q(gjk::testing::Rng& rng, const robots::RobotModel& model) {
  const Eigen::VectorXd lo = model.lower_limits(), hi = model.upper_limits();
  Eigen::VectorXd q(model.num_positions());
  for (int i = 0; i < q.size(); ++i) q[i] = rng.uniform(lo[i], hi[i]);
  return q;
}

void set_state(ob::State* state, const Eigen::VectorXd& q) {
  auto* s = state->as<ob::RealVectorStateSpace::StateType>();
  for (int i = 0; i < q.size(); ++i) s->values[i] = q[i];
}

/// The minimum signed distance over every obstacle and self pair, pair by pair with the engine's
/// plain signed_distance (no pruning, no caches): the reference for clearance().
double brute_force_clearance(const CollisionModel& c, const Eigen::VectorXd& q) {
  robots::Workspace ws(c.model());
  robots::forward_kinematics(c.model(), q, ws);
  const auto& shapes = c.model().collision_shapes();
  double best = std::numeric_limits<double>::infinity();
  for (size_t s = 0; s < shapes.size(); ++s) {
    for (const auto& o : c.scene().obstacles) {
      best = std::min(
          best, signed_distance(shapes[s].shape, robots::collision_pose(c.model(), ws, int(s)),
                                o.shape, o.pose)
                    .signed_distance);
    }
  }
  for (const auto& [a, b] : c.self_pairs()) {
    best = std::min(
        best, signed_distance(shapes[size_t(a)].shape, robots::collision_pose(c.model(), ws, a),
                              shapes[size_t(b)].shape, robots::collision_pose(c.model(), ws, b))
                  .signed_distance);
  }
  return best;
}

/// Randomly placed and turned boxes around an arm of the given reach.
robots::Scene boxes_around(gjk::testing::Rng& rng, int count, double reach) {
  robots::Scene scene;
  for (int i = 0; i < count; ++i) {
    robots::Obstacle o;
    o.name = "box" + std::to_string(i);
    const double size = 0.12 * reach;
    o.shape = Box{Vec3(rng.uniform(0.25, 1) * size, rng.uniform(0.25, 1) * size,
                       rng.uniform(0.25, 1) * size)};
    const double r = rng.uniform(0.35, 0.9) * reach, a = rng.uniform(-M_PI, M_PI);
    o.pose = Pose::Identity();
    o.pose.translation() = Vec3(r * std::cos(a), r * std::sin(a), rng.uniform(0.05, 1.2) * reach);
    o.pose.linear() = Eigen::AngleAxisd(rng.uniform(0, M_PI), rng.unit_vector()).toRotationMatrix();
    scene.obstacles.push_back(o);
  }
  return scene;
}

robots::Scene panda_boxes(gjk::testing::Rng& rng, int count) {
  return boxes_around(rng, count, 0.85);
}

}  // namespace

TEST(OmplStateSpace, BoundsAndNamesComeFromTheModel) {
  const auto model = robots::RobotModel::from_urdf_file(kPanda);
  const auto space = make_state_space(model);
  ASSERT_EQ(space->getDimension(), unsigned(model.num_positions()));
  for (unsigned i = 0; i < space->getDimension(); ++i) {
    EXPECT_EQ(space->getBounds().low[i], model.lower_limits()[i]);
    EXPECT_EQ(space->getBounds().high[i], model.upper_limits()[i]);
    EXPECT_EQ(space->getDimensionName(i), model.position_names()[i]);
  }
}

TEST(OmplValidityChecker, AgreesWithBruteForceOnEveryPair) {
  struct Case {
    std::string name;
    robots::RobotModel model;
    robots::Scene scene;
    int configs;
  };
  gjk::testing::Rng rng(21);
  std::vector<Case> cases;
  cases.push_back({"four_dof", robots::RobotModel::from_urdf_file(kFourDof),
                   robots::load_scene(kPyramids), 3000});
  cases.push_back({"panda", robots::RobotModel::from_urdf_file(kPanda), panda_boxes(rng, 10), 600});
  for (auto& c : cases) {
    OmplSetup s = make_setup(c.model, c.scene);
    ob::ScopedState<> state(s.si);
    int valid = 0, invalid = 0;
    double worst = 0.0;
    for (int i = 0; i < c.configs; ++i) {
      const Eigen::VectorXd q = random_q(rng, *s.model);
      set_state(state.get(), q);
      const double reference = brute_force_clearance(*s.collision, q);
      const double clearance = s.checker->clearance(state.get());
      worst = std::max(worst, std::abs(clearance - reference));
      EXPECT_NEAR(clearance, reference, 1e-9) << c.name << " q = " << q.transpose();
      if (std::abs(reference) > 1e-9) {
        EXPECT_EQ(s.checker->isValid(state.get()), reference > 0) << c.name << " " << reference;
        double dist = 0;
        EXPECT_EQ(s.checker->isValid(state.get(), dist), reference > 0);
        EXPECT_NEAR(dist, reference, 1e-9);
      }
      (reference > 0 ? valid : invalid)++;
    }
    EXPECT_GT(valid, c.configs / 10) << c.name;
    EXPECT_GT(invalid, c.configs / 10) << c.name;
    std::cout << c.name << ": " << c.configs << " configurations (" << valid << " valid, "
              << invalid << " in collision), worst |clearance - brute force| = " << worst << "\n";
  }
}

TEST(OmplValidityChecker, RejectsOutOfBoundsAndNonFiniteStates) {
  OmplSetup s =
      make_setup(robots::RobotModel::from_urdf_file(kFourDof), robots::load_scene(kPyramids));
  ob::ScopedState<> state(s.si);
  set_state(state.get(), Eigen::Vector4d(0, 0, 0, 4.0));  // joint 4 past pi
  EXPECT_FALSE(s.checker->isValid(state.get()));
  EXPECT_EQ(s.checker->clearance(state.get()), -std::numeric_limits<double>::infinity());
  set_state(state.get(), Eigen::Vector4d(0, std::nan(""), 0, 0));
  EXPECT_FALSE(s.checker->isValid(state.get()));
  double dist = 0;
  EXPECT_FALSE(s.checker->isValid(state.get(), dist));
}

TEST(OmplValidityChecker, ValidDirectionLeadsOutOfCollision) {
  OmplSetup s =
      make_setup(robots::RobotModel::from_urdf_file(kFourDof), robots::load_scene(kPyramids));
  ASSERT_TRUE(s.checker->getSpecs().hasValidDirectionComputation);
  ASSERT_EQ(s.checker->getSpecs().clearanceComputationType, ob::StateValidityCheckerSpecs::EXACT);
  gjk::testing::Rng rng(31);
  ob::ScopedState<> state(s.si), fixed(s.si);
  int colliding = 0, proposed = 0;
  for (int i = 0; i < 4000 && colliding < 400; ++i) {
    const Eigen::VectorXd q = random_q(rng, *s.model);
    set_state(state.get(), q);
    double dist = 0;
    bool available = false;
    if (s.checker->isValid(state.get(), dist, fixed.get(), available)) {
      EXPECT_FALSE(available);
      continue;
    }
    ++colliding;
    if (!available) continue;
    ++proposed;
    EXPECT_TRUE(s.checker->isValid(fixed.get())) << q.transpose();
    EXPECT_TRUE(s.si->satisfiesBounds(fixed.get()));
  }
  EXPECT_GE(colliding, 400);
  EXPECT_GT(proposed, colliding / 2) << proposed << " of " << colliding;
  std::cout << "valid direction: a valid state proposed for " << proposed << " of " << colliding
            << " colliding states\n";
}

TEST(CertifiedMotion, RejectsAThinObstacleTheDiscreteValidatorStepsOver) {
  // The arm stretched horizontally (q2 = 90 deg, links along -y at z = 2) yaws from -0.4 to 0.56
  // rad through a 2 mm plate in the x = 0 plane across its links.
  robots::Scene scene;
  robots::Obstacle plate;
  plate.name = "plate";
  plate.shape = Box{Vec3(0.001, 0.3, 0.3)};
  plate.pose = Pose::Identity();
  plate.pose.translation() = Vec3(0.0, -1.5, 2.0);
  scene.obstacles.push_back(plate);
  OmplSetup s = make_setup(robots::RobotModel::from_urdf_file(kFourDof), scene);
  const Eigen::Vector4d q1(-0.4, M_PI / 2, 0, 0), q2(0.56, M_PI / 2, 0, 0);
  ob::ScopedState<> a(s.si), b(s.si), last(s.si);
  set_state(a.get(), q1);
  set_state(b.get(), q2);
  ASSERT_TRUE(s.checker->isValid(a.get()));
  ASSERT_TRUE(s.checker->isValid(b.get()));
  ASSERT_FALSE(s.checker->is_valid(Eigen::Vector4d(0, M_PI / 2, 0, 0)));  // the plate is in the way

  EXPECT_FALSE(s.motions->checkMotion(a.get(), b.get()));
  std::pair<ob::State*, double> last_valid(last.get(), -1.0);
  EXPECT_FALSE(s.motions->checkMotion(a.get(), b.get(), last_valid));
  EXPECT_GT(last_valid.second, 0.0);
  EXPECT_LT(last_valid.second, 0.4 / 0.96);  // before the arm reaches the plate at yaw 0
  EXPECT_TRUE(s.checker->isValid(last.get()));
  EXPECT_TRUE(s.motions->checkMotion(a.get(), last.get()));  // certified up to there

  // OMPL's discrete validator at a coarse resolution (6 segments of 0.16 rad: yaw -0.08, 0.08
  // are checked, the plate is hit only for |yaw| < 0.05) misses the plate.
  s.si->setStateValidityCheckingResolution(0.1601 / s.si->getMaximumExtent());
  s.si->setup();
  ob::DiscreteMotionValidator discrete(s.si);
  EXPECT_TRUE(discrete.checkMotion(a.get(), b.get()));
  // ... and catches it only when fine enough.
  s.si->setStateValidityCheckingResolution(0.005 / s.si->getMaximumExtent());
  s.si->setup();
  ob::DiscreteMotionValidator fine(s.si);
  EXPECT_FALSE(fine.checkMotion(a.get(), b.get()));
}

TEST(CertifiedMotion, SoundAgainstDenseSampling) {
  gjk::testing::Rng rng(41);
  for (const bool panda : {false, true}) {
    OmplSetup s =
        panda ? make_setup(robots::RobotModel::from_urdf_file(kPanda), panda_boxes(rng, 8))
              : make_setup(robots::RobotModel::from_urdf_file(kFourDof), boxes_around(rng, 8, 2.5));
    int certified = 0, rejected = 0, missed_by_dense = 0, tested = 0;
    const int motions = panda ? 60 : 300;
    while (tested < motions) {
      const Eigen::VectorXd q1 = random_q(rng, *s.model);
      if (!s.checker->is_valid(q1)) continue;
      Eigen::VectorXd q2 = q1;
      for (int i = 0; i < q2.size(); ++i) q2[i] += rng.uniform(-1.5, 1.5);
      q2 = q2.cwiseMax(s.model->lower_limits()).cwiseMin(s.model->upper_limits());
      if (!s.checker->is_valid(q2)) continue;
      ++tested;
      const MotionCertificate cert = s.motions->certify(q1, q2);
      const int samples = 1000;
      bool dense_collision = false;
      for (int k = 0; k <= samples && !dense_collision; ++k)
        dense_collision = !s.checker->is_valid(q1 + (q2 - q1) * (double(k) / samples));
      if (cert.valid) {
        ++certified;
        EXPECT_FALSE(dense_collision)
            << "certified motion collides: " << q1.transpose() << " -> " << q2.transpose();
      } else {
        ++rejected;
        if (!dense_collision && !cert.step_limit) ++missed_by_dense;  // a graze between samples
      }
    }
    EXPECT_GT(certified, motions / 10);
    EXPECT_GT(rejected, motions / 20);
    EXPECT_LE(missed_by_dense, rejected / 10);
    std::cout << (panda ? "panda" : "four_dof") << ": " << tested << " motions, " << certified
              << " certified, " << rejected << " rejected (" << missed_by_dense
              << " of those with no collision among 1001 dense samples)\n";
  }
}

TEST(OmplPlanning, FourDofPathAroundThePyramidsIsCertified) {
  OmplSetup s =
      make_setup(robots::RobotModel::from_urdf_file(kFourDof), robots::load_scene(kPyramids));
  og::SimpleSetup ss(s.si);
  ob::ScopedState<> start(s.si), goal(s.si);
  const double deg = M_PI / 180;
  set_state(start.get(), Eigen::Vector4d(0, 90 * deg, -150 * deg, -30 * deg));
  set_state(goal.get(), Eigen::Vector4d(0, -40 * deg, -60 * deg, -40 * deg));
  ss.setStartAndGoalStates(start, goal);
  ss.setPlanner(std::make_shared<og::RRTConnect>(s.si));
  ss.getProblemDefinition()->setOptimizationObjective(make_length_clearance_objective(s.si));
  ASSERT_TRUE(ss.solve(10.0));
  ASSERT_TRUE(ss.haveExactSolutionPath());
  ss.simplifySolution();
  og::PathGeometric& path = ss.getSolutionPath();
  ASSERT_TRUE(path.check());
  for (size_t i = 0; i + 1 < path.getStateCount(); ++i) {
    EXPECT_TRUE(s.motions->checkMotion(path.getState(i), path.getState(i + 1)));
  }
  path.interpolate(500);
  for (size_t i = 0; i < path.getStateCount(); ++i) {
    EXPECT_GT(s.checker->clearance(path.getState(i)), 0.0);
  }
}

TEST(OmplValidityChecker, ThreadsShareOneChecker) {
  OmplSetup s = make_setup(robots::RobotModel::from_urdf_file(kPanda), [] {
    gjk::testing::Rng rng(7);
    return panda_boxes(rng, 10);
  }());
  gjk::testing::Rng rng(8);
  std::vector<Eigen::VectorXd> qs;
  for (int i = 0; i < 400; ++i) qs.push_back(random_q(rng, *s.model));
  std::vector<double> expected;
  for (const auto& q : qs) expected.push_back(s.checker->closest(q).pair.distance);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 3; ++rep) {
        for (size_t i = static_cast<size_t>(t); i < qs.size(); i += 2) {
          const double d = s.checker->closest(qs[i]).pair.distance;
          if (std::abs(d - expected[i]) > 1e-9) ++mismatches;
          if (s.checker->is_valid(qs[i]) != (expected[i] > 0) && std::abs(expected[i]) > 1e-9)
            ++mismatches;
          if (i + 1 < qs.size()) s.motions->certify(qs[i], qs[i] + 0.05 * (qs[i + 1] - qs[i]));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ClearanceObjective, PenalisesOnlyStatesWithinD0) {
  OmplSetup s =
      make_setup(robots::RobotModel::from_urdf_file(kFourDof), robots::load_scene(kPyramids));
  ClearanceObjective objective(s.si, 0.5);
  gjk::testing::Rng rng(9);
  ob::ScopedState<> state(s.si);
  int near = 0, far = 0;
  for (int i = 0; i < 500; ++i) {
    set_state(state.get(), random_q(rng, *s.model));
    const double c = s.checker->clearance(state.get());
    const double cost = objective.stateCost(state.get()).value();
    if (c > 0.5) {
      EXPECT_EQ(cost, 0.0);
      ++far;
    } else {
      EXPECT_NEAR(cost, 0.5 * std::pow(1 / std::max(c, 1e-3) - 2.0, 2), 1e-9);
      ++near;
    }
  }
  EXPECT_GT(near, 10);
  EXPECT_GT(far, 10);
  EXPECT_THROW(ClearanceObjective(s.si, -1.0), PlannerError);
}

TEST(PlanArmExample, PlansCertifiedPathsForBothPresets) {
  for (const char* robot : {"four_dof", "panda"}) {
    const std::string out = ::testing::TempDir() + "gjk_plan_" + robot;
    const std::string command = std::string(GJK_PLAN_EXE) + " --robot " + robot +
                                " --no-plots -o '" + out + "' > '" + out + ".log' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream log(out + ".log");
    std::stringstream text;
    text << log.rdbuf();
    EXPECT_NE(text.str().find("certified segments"), std::string::npos) << text.str();
    std::ifstream csv(out + "/plan_" + robot + "_clearance.csv");
    std::string line;
    int rows = -1;  // header
    while (std::getline(csv, line)) ++rows;
    EXPECT_EQ(rows, 1000) << robot;
  }
  // A start in collision is refused with the pair named.
  const std::string bad = std::string(GJK_PLAN_EXE) +
                          " --robot four_dof --start=0,2.4,0.5,0.3 --no-plots -o " +
                          ::testing::TempDir() + " 2>&1";
  FILE* pipe = popen(bad.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) output += buffer;
  EXPECT_EQ(WEXITSTATUS(pclose(pipe)), 3);  // input error (tools/common/exit_codes.hpp)
  EXPECT_NE(output.find("start is in collision: link"), std::string::npos) << output;
}

TEST(OmplSetup, BadSettingsAreRejectedNamingTheField) {
  auto model =
      std::make_shared<const robots::RobotModel>(robots::RobotModel::from_urdf_file(kPanda));
  auto scene = std::make_shared<const robots::Scene>();
  auto message = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const PlannerError& e) {
      return e.what();
    }
    return "no exception";
  };
  EXPECT_NE(message([&] {
              make_state_space(*model, {{"no_such_joint", 0.0}});
            }).find("'no_such_joint'"),
            std::string::npos);
  EXPECT_NE(message([&] {
              make_state_space(*model, {{"panda_finger_joint1", 0.5}});
            }).find("outside its limits"),
            std::string::npos);
  CollisionSettings negative;
  negative.margin = -0.1;
  EXPECT_NE(message([&] { CollisionModel(model, scene, negative); }).find("margin"),
            std::string::npos);
  EXPECT_NE(message([&] { CollisionModel(nullptr, scene); }).find("no robot model"),
            std::string::npos);
  // A space that does not match the model's planned positions.
  auto wrong = std::make_shared<ob::SpaceInformation>(make_state_space(*model));  // 8 positions
  CollisionSettings fingers_fixed;
  fingers_fixed.fixed_positions = {{"panda_finger_joint1", 0.02}};
  auto collision = std::make_shared<const CollisionModel>(model, scene, fingers_fixed);
  EXPECT_NE(message([&] { StateValidityChecker(wrong, collision); }).find("dimensions"),
            std::string::npos);
  CertifiedMotionOptions no_steps;
  no_steps.max_steps = 0;
  EXPECT_NE(
      message([&] { CertifiedMotionValidator(wrong, collision, no_steps); }).find("max_steps"),
      std::string::npos);
}
