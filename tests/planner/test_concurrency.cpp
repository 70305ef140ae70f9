// Several threads on shared, immutable models at once: the batch API, the OMPL validity checker
// and certified motion validator (one instance shared, as OMPL's parallel planners do), and
// per-thread velocity inversion and robot-scene distances. Every answer must equal the
// single-threaded one. Run under ThreadSanitizer by `scripts/test.sh --tsan`.
#include <gjk/batch.hpp>
#include <gjk/planner/ompl.hpp>
#include <gjk/planner/velocity_inversion.hpp>

#include "datasets.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace gjk;
namespace ob = ompl::base;

namespace {

const std::string kFourDof = std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf";
const std::string kPyramids = std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml";

}  // namespace

TEST(Concurrency, SharedModelsGiveTheSingleThreadedAnswers) {
  auto model =
      std::make_shared<const robots::RobotModel>(robots::RobotModel::from_urdf_file(kFourDof));
  auto scene = std::make_shared<const robots::Scene>(robots::load_scene(kPyramids));
  auto si = std::make_shared<ob::SpaceInformation>(planner::make_state_space(*model));
  const auto collision = planner::install_collision_checking(si, model, scene);
  const auto checker =
      std::static_pointer_cast<planner::StateValidityChecker>(si->getStateValidityChecker());
  const auto* motions =
      static_cast<const planner::CertifiedMotionValidator*>(si->getMotionValidator().get());

  gjk::testing::Rng rng(3);
  std::vector<Eigen::VectorXd> qs;
  for (int i = 0; i < 60; ++i) {
    Eigen::VectorXd q(4);
    for (int k = 0; k < 4; ++k) q[k] = rng.uniform(-3.0, 3.0);
    qs.push_back(q);
  }
  std::vector<PairQuery> pairs;
  std::vector<Shape> hulls;
  hulls.reserve(40);
  for (int i = 0; i < 40; ++i)
    hulls.push_back(ConvexPolytope::from_points(gjk::testing::sphere_polytope_points(rng, 20)));
  for (int i = 0; i + 1 < 40; ++i) {
    pairs.push_back({&hulls[size_t(i)], gjk::testing::random_pose(rng, 2.0), &hulls[size_t(i + 1)],
                     gjk::testing::random_pose(rng, 2.0)});
  }

  // Single-threaded references.
  std::vector<double> clearance, certified;
  for (size_t i = 0; i < qs.size(); ++i) {
    clearance.push_back(checker->closest(qs[i]).pair.distance);
    const Eigen::VectorXd next = qs[i] + 0.1 * (qs[(i + 1) % qs.size()] - qs[i]);
    certified.push_back(motions->certify(qs[i], next).valid);
  }
  const std::vector<DistanceResult> batch = distance_batch(pairs, {}, 1);
  planner::VelocityInversion reference(*model, *scene,
                                       {model->link_index("end_effector"), Vec3::Zero()});
  const Eigen::VectorXd qdot = reference.solve(qs[0], Vec3(0, -0.1, 0), Vec3::Zero(), 1e-3).qdot;

  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      planner::VelocityInversion mine(*model, *scene,
                                      {model->link_index("end_effector"), Vec3::Zero()});
      for (int rep = 0; rep < 2; ++rep) {
        for (size_t i = size_t(t); i < qs.size(); i += 2) {
          // Warm starts differ between pooled contexts: equal up to rounding, not bit for bit.
          if (std::abs(checker->closest(qs[i]).pair.distance - clearance[i]) > 1e-12) ++mismatches;
          const Eigen::VectorXd next = qs[i] + 0.1 * (qs[(i + 1) % qs.size()] - qs[i]);
          if (motions->certify(qs[i], next).valid != bool(certified[i])) ++mismatches;
        }
        // The batch API spawns its own threads from inside these ones.
        const auto mine_batch = distance_batch(pairs, {}, 2);
        for (size_t i = 0; i < pairs.size(); ++i)
          if (std::abs(mine_batch[i].distance - batch[i].distance) > 1e-12) ++mismatches;
        if ((mine.solve(qs[0], Vec3(0, -0.1, 0), Vec3::Zero(), 1e-3).qdot - qdot).norm() > 1e-9)
          ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}
