// Velocity inversion (seed 002 eq. 6): the potential against its definition and finite
// differences, pure tracking against the exact answer, the null-space term, damping at a
// singularity, joint limits, and bad input.
#include <gjk/planner/velocity_inversion.hpp>

#include "datasets.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace gjk;
using namespace gjk::planner;
using gjk::robots::RobotModel;
using gjk::robots::Scene;

namespace {

const std::string kUrdf = std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf";
const std::string kScene = std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml";

Eigen::VectorXd random_q(gjk::testing::Rng& rng, int n, double extent = M_PI) {
  Eigen::VectorXd q(n);
  for (int i = 0; i < n; ++i) q[i] = rng.uniform(-extent, extent);
  return q;
}

/// H(q) straight from the definition: per (link, obstacle) the minimum over the link's shapes of
/// the signed distance, computed pair by pair with the engine (no caches, no gradients).
double potential_by_definition(const RobotModel& model, const Scene& scene,
                               const Eigen::VectorXd& q, const PotentialField& field) {
  robots::Workspace ws(model);
  robots::forward_kinematics(model, q, ws);
  std::vector<double> d(model.links().size() * scene.obstacles.size(),
                        std::numeric_limits<double>::infinity());
  for (size_t s = 0; s < model.collision_shapes().size(); ++s) {
    const auto& c = model.collision_shapes()[s];
    for (size_t o = 0; o < scene.obstacles.size(); ++o) {
      const double sd = signed_distance(c.shape, robots::collision_pose(model, ws, int(s)),
                                        scene.obstacles[o].shape, scene.obstacles[o].pose)
                            .signed_distance;
      double& slot = d[static_cast<size_t>(c.link) * scene.obstacles.size() + o];
      slot = std::min(slot, sd);
    }
  }
  double h = 0.0;
  for (double x : d) {
    if (x <= field.d0)
      h += 0.5 * std::pow(1.0 / std::max(x, field.min_distance) - 1.0 / field.d0, 2);
  }
  return h;
}

}  // namespace

TEST(Potential, MatchesTheSeedsFormulaAndItsDerivative) {
  PotentialField f;
  f.d0 = 0.5;
  EXPECT_EQ(pair_potential(0.6, f), 0.0);
  EXPECT_EQ(pair_potential_slope(0.6, f), 0.0);
  EXPECT_NEAR(pair_potential(0.5, f), 0.0, 1e-15);  // continuous at d0
  EXPECT_NEAR(pair_potential(0.25, f), 0.5 * (4.0 - 2.0) * (4.0 - 2.0), 1e-12);
  for (double d = 0.01; d < 0.5; d += 0.0137) {
    const double h = 1e-7;
    const double fd = (pair_potential(d + h, f) - pair_potential(d - h, f)) / (2 * h);
    EXPECT_NEAR(pair_potential_slope(d, f), fd, 1e-5 * std::abs(fd) + 1e-6) << d;
    EXPECT_LT(pair_potential_slope(d, f), 0.0);  // pushes apart
  }
  // Touching and penetrating pairs stay finite and keep pushing apart.
  EXPECT_TRUE(std::isfinite(pair_potential(-0.1, f)));
  EXPECT_LT(pair_potential_slope(-0.1, f), 0.0);
}

TEST(Potential, GradientMatchesFiniteDifferencesOfTheDefinition) {
  const RobotModel model = RobotModel::from_urdf_file(kUrdf);
  const Scene scene = robots::load_scene(kScene);
  PotentialField field;
  gjk::testing::Rng rng(11);
  robots::Workspace ws(model);
  robots::DistanceOptions options;
  int checked = 0, tried = 0;
  double worst = 0.0;
  while (checked < 300 && tried < 20000) {
    ++tried;
    const Eigen::VectorXd q = random_q(rng, 4, 2.8);
    robots::forward_kinematics(model, q, ws);
    const auto pairs = robots::robot_scene_distances(model, ws, scene, options);
    const Potential p = total_potential(model, scene.obstacles.size(), pairs, field);
    double min_d = std::numeric_limits<double>::infinity();
    for (const auto& d : pairs) min_d = std::min(min_d, d.distance);
    // Finite differences need H smooth around q: no pair near contact or near d0, and no link
    // whose two closest shapes are nearly tied for an obstacle (the minimum would switch).
    bool smooth = p.value > 0 && min_d > 0.05;
    for (const auto& d : pairs) smooth = smooth && std::abs(d.distance - field.d0) > 0.01;
    for (const auto& a : pairs) {
      for (const auto& b : pairs) {
        const int la = model.collision_shapes()[size_t(a.shape)].link;
        const int lb = model.collision_shapes()[size_t(b.shape)].link;
        if (a.shape != b.shape && la == lb && a.obstacle == b.obstacle && a.distance < field.d0)
          smooth = smooth && std::abs(a.distance - b.distance) > 0.01;
      }
    }
    if (!smooth) continue;
    EXPECT_NEAR(p.value, potential_by_definition(model, scene, q, field), 1e-9 * (1 + p.value));
    for (int k = 0; k < 4; ++k) {
      const double h = 1e-6;
      Eigen::VectorXd qp = q, qm = q;
      qp[k] += h;
      qm[k] -= h;
      const double fd = (potential_by_definition(model, scene, qp, field) -
                         potential_by_definition(model, scene, qm, field)) /
                        (2 * h);
      // The closest shape of a link can switch inside the stencil; skip those rare cases.
      const double err = std::abs(p.gradient[k] - fd) / (1.0 + std::abs(fd));
      worst = std::max(worst, err);
      EXPECT_LT(err, 1e-4) << "q = " << q.transpose() << " k = " << k << " analytic "
                           << p.gradient[k] << " fd " << fd;
    }
    ++checked;
  }
  EXPECT_GE(checked, 300);
  std::cout << "potential gradient vs finite differences: " << checked * 4
            << " partials, worst relative error " << worst << "\n";
}

TEST(VelocityInversion, PureTrackingIsExactAwayFromSingularities) {
  const RobotModel model = RobotModel::from_urdf_file(kUrdf);
  const Scene empty;
  VelocityInversion inv(model, empty, {model.link_index("end_effector"), Vec3::Zero()});
  gjk::testing::Rng rng(5);
  int checked = 0;
  for (int i = 0; i < 2000; ++i) {
    const Eigen::VectorXd q = random_q(rng, 4);
    const Vec3 v = rng.unit_vector() * rng.uniform(0.01, 1.0);
    const VelocityStep& step = inv.solve(q, v, Vec3::Zero(), 0.0);
    if (step.sigma_min < inv.options().singular_threshold) continue;  // damped there
    const Eigen::MatrixXd j =
        robots::point_jacobian(model, inv.workspace(), model.link_index("end_effector"),
                               step.end_effector)
            .topRows<3>();
    EXPECT_LT((j * step.qdot - v).norm(), 1e-10 * (1 + v.norm())) << q.transpose();
    // Minimum norm: no component in J's null space when there is no potential.
    const Eigen::MatrixXd pinv = j.completeOrthogonalDecomposition().pseudoInverse();
    EXPECT_LT((step.qdot - pinv * v).norm(), 1e-9) << q.transpose();
    ++checked;
  }
  EXPECT_GT(checked, 1500);
}

TEST(VelocityInversion, NullSpaceTermLeavesTheEndEffectorVelocityAlone) {
  const RobotModel model = RobotModel::from_urdf_file(kUrdf);
  const Scene scene = robots::load_scene(kScene);
  VelocityInversion inv(model, scene, {model.link_index("end_effector"), Vec3::Zero()});
  gjk::testing::Rng rng(6);
  int with_potential = 0;
  for (int i = 0; i < 3000; ++i) {
    const Eigen::VectorXd q = random_q(rng, 4);
    const Vec3 v = rng.unit_vector() * 0.1;
    const VelocityStep& step = inv.solve(q, v, Vec3::Zero(), 0.0);
    if (step.sigma_min < inv.options().singular_threshold || step.potential == 0.0) continue;
    const Eigen::MatrixXd j =
        robots::point_jacobian(model, inv.workspace(), model.link_index("end_effector"),
                               step.end_effector)
            .topRows<3>();
    const double scale = 1.0 + step.qdot.norm();
    EXPECT_LT((j * step.qdot - v).norm(), 1e-9 * scale) << q.transpose();
    ++with_potential;
  }
  EXPECT_GT(with_potential, 200);
}

TEST(VelocityInversion, PairsSkippedWithExactBelowAreCertifiedFarAndKeepTheMotion) {
  // solve() with `exact_below` (simulate() between samples) leaves out pairs certified beyond
  // d0 and exact_below: along a random walk the motion matches solve()'s, and every pair it did
  // not recompute is, exactly, farther than both.
  const RobotModel model = RobotModel::from_urdf_file(kUrdf);
  const Scene scene = robots::load_scene(kScene);
  const EndEffector ee{model.link_index("end_effector"), Vec3::Zero()};
  VelocityInversion all(model, scene, ee), some(model, scene, ee);
  gjk::testing::Rng rng(18);
  Eigen::VectorXd q(4);
  q << 0.0, M_PI / 2, -150.0 * M_PI / 180, -30.0 * M_PI / 180;  // seed 002's start
  const double d0 = all.options().field.d0;
  size_t skipped = 0, pairs = 0;
  for (int i = 0; i < 3000; ++i) {
    for (int j = 0; j < 4; ++j) q[j] = std::clamp(q[j] + rng.uniform(-0.01, 0.01), -3.0, 3.0);
    const Vec3 v = rng.unit_vector() * 0.1;
    const double exact_below = i % 7 == 0 ? 0.6 : -1.0;
    const VelocityStep a = all.solve(q, v, Vec3::Zero(), 1e-3);
    const VelocityStep& b = some.solve(q, v, Vec3::Zero(), 1e-3, exact_below);
    EXPECT_LT((a.qdot - b.qdot).norm(), 1e-9 * (1.0 + a.qdot.norm())) << i;
    EXPECT_NEAR(a.potential, b.potential, 1e-9 * (1.0 + a.potential)) << i;
    ASSERT_EQ(all.distances().size(), some.distances().size());
    for (size_t k = 0; k < all.distances().size(); ++k) {
      const double exact = all.distances()[k].distance, kept = some.distances()[k].distance;
      ++pairs;
      if (std::abs(exact - kept) <= 1e-9) continue;  // recomputed (or unmoved)
      ++skipped;
      EXPECT_GT(exact, std::max(d0, exact_below)) << "step " << i << " pair " << k;
      EXPECT_GT(kept, std::max(d0, exact_below)) << "step " << i << " pair " << k;
    }
  }
  EXPECT_GT(skipped, pairs / 4);  // the walk keeps most pairs beyond d0
}

TEST(VelocityInversion, TrackingErrorOfTheFixedStepIntegratorIsFirstOrder) {
  // A known answer: with no obstacles the end effector must follow a straight line; explicit
  // Euler on eq. 6 drifts by O(dt), so halving dt halves the error.
  const RobotModel model = RobotModel::from_urdf_file(kUrdf);
  const Scene empty;
  const double deg = M_PI / 180;
  const Eigen::Vector4d q0(0.3, 60 * deg, -100 * deg, -20 * deg);
  robots::Workspace ws(model);
  robots::forward_kinematics(model, q0, ws);
  const Vec3 x0 =
      ws.link_poses[static_cast<size_t>(model.link_index("end_effector"))].translation();
  const Vec3 v(0.05, -0.08, 0.06);
  auto line = [&](double t, Vec3& x, Vec3& xd) {
    xd = v;
    x = x0 + t * v;
  };
  double previous = 0.0;
  for (double dt : {4e-3, 2e-3, 1e-3}) {
    VelocityInversion inv(model, empty, {model.link_index("end_effector"), Vec3::Zero()});
    SimulationOptions sim;
    sim.dt = dt;
    sim.duration = 5.0;
    sim.record_every = 1000;
    const SimulationResult r = simulate(inv, q0, line, sim);
    EXPECT_LT(r.max_tracking_error, 0.5 * dt) << dt;  // bound: 0.5 m/s · dt over this path
    EXPECT_FALSE(r.collided);
    if (previous > 0) {
      EXPECT_NEAR(previous / r.max_tracking_error, 2.0, 0.2) << dt;
    }
    previous = r.max_tracking_error;
  }
  // The closed-loop form removes the drift.
  VelocityInversionOptions closed;
  closed.position_gain = 20.0;
  VelocityInversion inv(model, empty, {model.link_index("end_effector"), Vec3::Zero()}, closed);
  SimulationOptions sim;
  sim.dt = 1e-3;
  sim.duration = 5.0;
  const SimulationResult r = simulate(inv, q0, line, sim);
  EXPECT_LT(r.samples.back().tracking_error, 0.05 * previous);
}

TEST(VelocityInversion, DampingKeepsJointSpeedsBoundedThroughASingularity) {
  const RobotModel model = RobotModel::from_urdf_file(kUrdf);
  const Scene empty;
  VelocityInversion inv(model, empty, {model.link_index("end_effector"), Vec3::Zero()});
  // q = 0: the arm stands straight up; a vertical end-effector velocity is unreachable.
  const VelocityStep& step = inv.solve(Eigen::VectorXd::Zero(4), Vec3(0, 0, 0.1), Vec3::Zero(), 0);
  EXPECT_LT(step.sigma_min, 1e-12);
  EXPECT_TRUE(step.qdot.allFinite());
  EXPECT_LT(step.qdot.norm(), 1e-9);  // nothing moves the tip along the arm: no wild motion
  // Slightly off the singularity the damped inverse stays bounded by 1/(2 λ_max).
  Eigen::VectorXd q = Eigen::VectorXd::Zero(4);
  q[2] = 1e-4;
  const VelocityStep& near = inv.solve(q, Vec3(0, 0, 0.1), Vec3::Zero(), 0);
  EXPECT_LT(near.qdot.norm(), 0.1 / (2 * inv.options().max_damping) + 1e-9);
}

TEST(VelocityInversion, JointLimitsHold) {
  // The 4-DOF arm with joint 4 limited to [-0.6, 0.6]: the seed's path drives joint 4 past it.
  std::ifstream in(kUrdf);
  std::stringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  const std::string joint4 = "<joint name=\"joint4\"";
  const size_t at = xml.find(joint4);
  ASSERT_NE(at, std::string::npos);
  const size_t limit = xml.find("<limit", at);
  const size_t end = xml.find("/>", limit);
  xml.replace(limit, end + 2 - limit,
              "<limit lower=\"-0.6\" upper=\"0.6\" effort=\"1\" velocity=\"1\"/>");
  const RobotModel model = RobotModel::from_urdf_string(
      xml, std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof", "four_dof_limited");
  ASSERT_DOUBLE_EQ(model.upper_limits()[3], 0.6);
  const Scene empty;
  VelocityInversion inv(model, empty, {model.link_index("end_effector"), Vec3::Zero()});
  const double deg = M_PI / 180;
  const Eigen::Vector4d q0(0, 90 * deg, -150 * deg, -30 * deg);
  robots::Workspace ws(model);
  robots::forward_kinematics(model, q0, ws);
  const Vec3 x0 =
      ws.link_poses[static_cast<size_t>(model.link_index("end_effector"))].translation();
  auto path = [&](double t, Vec3& x, Vec3& v) {
    v = Vec3(0, -0.1, 0);
    x = x0 + t * v;
  };
  SimulationOptions sim;
  sim.dt = 1e-3;
  sim.duration = 6.0;
  sim.record_every = 1;
  const SimulationResult r = simulate(inv, q0, path, sim);
  double lowest = 0.0;
  for (const auto& s : r.samples) {
    EXPECT_GE(s.q[3], -0.6);
    EXPECT_LE(s.q[3], 0.6);
    lowest = std::min(lowest, s.q[3]);
  }
  EXPECT_NEAR(lowest, -0.6, 1e-3);        // it reached the limit (to within a step) and stopped
  EXPECT_LT(r.max_tracking_error, 0.01);  // the other joints took over the task
}

TEST(VelocityInversion, BadInputIsRejectedWithTheFieldNamed) {
  const RobotModel model = RobotModel::from_urdf_file(kUrdf);
  const Scene empty;
  const EndEffector ee{model.link_index("end_effector"), Vec3::Zero()};
  auto expect_error = [&](VelocityInversionOptions o, const std::string& field) {
    try {
      VelocityInversion inv(model, empty, ee, o);
      FAIL() << "accepted bad " << field;
    } catch (const PlannerError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  VelocityInversionOptions o;
  o.field.d0 = 0;
  expect_error(o, "d0");
  o = {};
  o.k = std::nan("");
  expect_error(o, "k");
  o = {};
  o.max_damping = -1;
  expect_error(o, "max_damping");
  o = {};
  o.field.min_distance = 1.0;
  expect_error(o, "min_distance");
  EXPECT_THROW(VelocityInversion(model, empty, {99, Vec3::Zero()}), PlannerError);
  VelocityInversion inv(model, empty, ee);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(4);
  q[1] = std::nan("");
  EXPECT_THROW(inv.solve(q, Vec3::Zero(), Vec3::Zero(), 1e-3), robots::ModelError);
  EXPECT_THROW(inv.solve(Eigen::VectorXd::Zero(3), Vec3::Zero(), Vec3::Zero(), 1e-3),
               robots::ModelError);
  SimulationOptions sim;
  sim.dt = 0;
  auto still = [](double, Vec3& x, Vec3& v) { x = v = Vec3::Zero(); };
  EXPECT_THROW(simulate(inv, Eigen::VectorXd::Zero(4), still, sim), PlannerError);
}
