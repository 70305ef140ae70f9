// Robot-scene distances: gradients against finite differences (away from feature switches),
// cutoff and minimum-distance pruning against the full pair list, warm against cold.
#include <gtest/gtest.h>

#include "gjk/robots/distances.hpp"

#include <random>

namespace {

using namespace gjk;
using namespace gjk::robots;

const std::string kShared = GJK_SHARED_ROBOT_MODELS_DIR;

Obstacle pyramid(const std::string& name, const Vec3& base_centre, double half, double height) {
  std::vector<Vec3> points;
  for (int k = 0; k < 4; ++k) {
    points.push_back(base_centre + Vec3((k & 1) ? half : -half, (k & 2) ? half : -half, 0.0));
  }
  points.push_back(base_centre + Vec3(0, 0, height));
  return Obstacle{name, ConvexPolytope::from_points(points), Pose::Identity()};
}

Scene four_dof_scene() {
  Scene s;
  s.obstacles.push_back(pyramid("low", Vec3(0, -1.0, 1.2), 0.2, 0.4));
  s.obstacles.push_back(pyramid("high", Vec3(0.1, 0.5, 2.4), 0.2, 0.4));
  Pose p = Pose::Identity();
  p.translation() = Vec3(0.6, -0.3, 1.0);
  s.obstacles.push_back(Obstacle{"box", Box{Vec3(0.2, 0.3, 0.25)}, p});
  return s;
}

Scene boxes_around(std::mt19937_64& rng, int count) {
  std::uniform_real_distribution<double> u(-0.8, 0.8), h(0.03, 0.15);
  Scene s;
  for (int i = 0; i < count; ++i) {
    Pose p = Pose::Identity();
    p.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    p.translation() = Vec3(u(rng), u(rng), 0.6 + 0.5 * u(rng));
    s.obstacles.push_back(
        Obstacle{"box" + std::to_string(i), Box{Vec3(h(rng), h(rng), h(rng))}, p});
  }
  return s;
}

Eigen::VectorXd random_q(const RobotModel& model, std::mt19937_64& rng) {
  Eigen::VectorXd q(model.num_positions());
  for (int i = 0; i < q.size(); ++i) {
    const double lo = std::max(model.lower_limits()[i], -M_PI) + 1e-3;
    const double hi = std::min(model.upper_limits()[i], M_PI) - 1e-3;
    q[i] = std::uniform_real_distribution<double>(lo, hi)(rng);
  }
  return q;
}

double pair_distance(const RobotModel& model, const Scene& scene, const Eigen::VectorXd& q,
                     int shape, int obstacle) {
  Workspace ws(model);
  forward_kinematics(model, q, ws);
  const Obstacle& o = scene.obstacles[static_cast<size_t>(obstacle)];
  return signed_distance(model.collision_shapes()[static_cast<size_t>(shape)].shape,
                         collision_pose(model, ws, shape), o.shape, o.pose)
      .signed_distance;
}

struct RobotInScene {
  std::string name;
  RobotModel model;
  Scene scene;
};

std::vector<RobotInScene> robots_in_scenes() {
  std::mt19937_64 rng(3);
  std::vector<RobotInScene> s;
  s.push_back({"four_dof",
               RobotModel::from_urdf_file(std::string(GJK_ROBOT_MODELS_DIR) +
                                          "/four_dof/four_dof_arm.urdf"),
               four_dof_scene()});
  s.push_back(
      {"panda", RobotModel::from_urdf_file(kShared + "/panda/panda.urdf"), boxes_around(rng, 10)});
  s.push_back({"iiwa", RobotModel::from_urdf_file(kShared + "/kuka_iiwa14/lbr_iiwa_14_r820.urdf"),
               boxes_around(rng, 10)});
  return s;
}

TEST(RobotDistances, GradientsMatchFiniteDifferencesAwayFromFeatureSwitches) {
  std::mt19937_64 rng(17);
  const double h = 1e-6;
  int compared = 0, skipped = 0;
  double max_error = 0.0;
  for (const RobotInScene& setup : robots_in_scenes()) {
    SCOPED_TRACE(setup.name);
    Workspace ws(setup.model);
    for (int trial = 0; trial < 15; ++trial) {
      const Eigen::VectorXd q = random_q(setup.model, rng);
      forward_kinematics(setup.model, q, ws);
      for (const PairDistance& d : robot_scene_distances(setup.model, ws, setup.scene)) {
        ASSERT_EQ(d.gradient.size(), setup.model.num_positions());
        for (int i = 0; i < q.size(); ++i) {
          Eigen::VectorXd qp = q, qm = q;
          qp[i] += h, qm[i] -= h;
          const double f0 = d.distance;
          const double fp = pair_distance(setup.model, setup.scene, qp, d.shape, d.obstacle);
          const double fm = pair_distance(setup.model, setup.scene, qm, d.shape, d.obstacle);
          const double forward = (fp - f0) / h, backward = (f0 - fm) / h;
          // A feature switch (the witness jumps between features) shows as a kink: the one-sided
          // slopes disagree. Only smooth points are compared.
          if (std::abs(forward - backward) > 1e-4 * (1.0 + std::abs(forward))) {
            ++skipped;
            continue;
          }
          const double central = (fp - fm) / (2 * h);
          max_error = std::max(max_error, std::abs(d.gradient[i] - central));
          EXPECT_NEAR(d.gradient[i], central, 1e-5)
              << "pair " << d.shape << "/" << d.obstacle << " q" << i << " distance " << d.distance;
          ++compared;
        }
      }
    }
  }
  std::printf(
      "[gradient] %d partial derivatives compared (%d skipped at feature switches), max error "
      "%.3g\n",
      compared, skipped, max_error);
  EXPECT_GT(compared, 1000);
}

TEST(RobotDistances, CutoffMinimumAndWarmStartAgreeWithTheFullList) {
  std::mt19937_64 rng(23);
  for (const RobotInScene& setup : robots_in_scenes()) {
    SCOPED_TRACE(setup.name);
    Workspace ws(setup.model);
    DistanceCache cache(setup.model, setup.scene);
    Eigen::VectorXd q = random_q(setup.model, rng);
    const Eigen::VectorXd step = 0.02 * (random_q(setup.model, rng) - q);  // a smooth path
    for (int k = 0; k < 30; ++k) {
      q += step;
      q = q.cwiseMax(setup.model.lower_limits()).cwiseMin(setup.model.upper_limits());
      forward_kinematics(setup.model, q, ws);
      const auto all = robot_scene_distances(setup.model, ws, setup.scene);
      ASSERT_EQ(all.size(), setup.model.collision_shapes().size() * setup.scene.obstacles.size());
      const auto warm = robot_scene_distances(setup.model, ws, setup.scene, {}, &cache);
      ASSERT_EQ(warm.size(), all.size());
      double smallest = INFINITY;
      for (size_t i = 0; i < all.size(); ++i) {
        EXPECT_NEAR(warm[i].distance, all[i].distance, 1e-9);
        smallest = std::min(smallest, all[i].distance);
      }
      DistanceOptions cut;
      cut.cutoff = 0.1;
      size_t within = 0;
      for (const PairDistance& d : all) within += d.distance < cut.cutoff ? 1 : 0;
      EXPECT_EQ(robot_scene_distances(setup.model, ws, setup.scene, cut).size(), within);
      const PairDistance best = minimum_distance(setup.model, ws, setup.scene);
      EXPECT_NEAR(best.distance, smallest, 1e-12);
      EXPECT_EQ(best.gradient.size(), setup.model.num_positions());
    }
  }
}

TEST(RobotDistances, ShapeObstacleDistanceIsRobotSceneDistancesPairByPair) {
  // The per-pair function is robot_scene_distances' step: the same answers to the last bit, cold
  // and warm-started, and no allocation when the gradient already has its size.
  std::mt19937_64 rng(29);
  int compared = 0;
  for (const RobotInScene& setup : robots_in_scenes()) {
    SCOPED_TRACE(setup.name);
    const RobotModel& model = setup.model;
    const int shapes = static_cast<int>(model.collision_shapes().size());
    const int obstacles = static_cast<int>(setup.scene.obstacles.size());
    Workspace ws(model);
    DistanceCache list_cache(model, setup.scene), pair_cache(model, setup.scene);
    std::vector<PairDistance> list, pairs(static_cast<size_t>(shapes * obstacles));
    for (int trial = 0; trial < 20; ++trial) {
      forward_kinematics(model, random_q(model, rng), ws);
      // Odd trials warm-started (each side its own cache, fed the same queries).
      const bool warm = trial % 2 == 1;
      robot_scene_distances(model, ws, setup.scene, {}, warm ? &list_cache : nullptr, list);
      ASSERT_EQ(list.size(), pairs.size());
      for (int s = 0; s < shapes; ++s) {
        const Pose pose = collision_pose(model, ws, s);
        for (int o = 0; o < obstacles; ++o) {
          PairDistance& d = pairs[static_cast<size_t>(s * obstacles + o)];
          const double* storage = d.gradient.data();
          shape_obstacle_distance(model, ws, setup.scene, s, pose, o, DistanceOptions{},
                                  warm ? pair_cache.get(s, o) : nullptr, d);
          if (trial > 0) {
            EXPECT_EQ(d.gradient.data(), storage);  // the gradient's storage was reused
          }
          const PairDistance& e = list[static_cast<size_t>(s * obstacles + o)];
          EXPECT_EQ(d.shape, e.shape);
          EXPECT_EQ(d.obstacle, e.obstacle);
          EXPECT_EQ(d.distance, e.distance);
          EXPECT_EQ(d.point_on_link, e.point_on_link);
          EXPECT_EQ(d.point_on_obstacle, e.point_on_obstacle);
          EXPECT_EQ(d.normal, e.normal);
          EXPECT_EQ(d.status, e.status);
          ASSERT_EQ(d.gradient.size(), model.num_positions());
          EXPECT_EQ(d.gradient, e.gradient);
          ++compared;
        }
      }
    }
    // Without gradients the gradient is empty.
    DistanceOptions no_gradients;
    no_gradients.gradients = false;
    PairDistance d;
    shape_obstacle_distance(model, ws, setup.scene, 0, collision_pose(model, ws, 0), 0,
                            no_gradients, nullptr, d);
    EXPECT_EQ(d.gradient.size(), 0);
    EXPECT_EQ(d.distance, list.front().distance);
  }
  EXPECT_GT(compared, 1000);
}

TEST(RobotDistances, SelfCollisionPairsAndGradients) {
  const RobotModel panda = RobotModel::from_urdf_file(kShared + "/panda/panda.urdf");
  const auto pairs = self_collision_pairs(panda);
  // Neighbours are excluded: link1's shapes never pair with link0's or link2's.
  for (const auto& [a, b] : pairs) {
    const int la = panda.collision_shapes()[static_cast<size_t>(a)].link;
    const int lb = panda.collision_shapes()[static_cast<size_t>(b)].link;
    EXPECT_NE(la, lb);
    const std::string na = panda.links()[static_cast<size_t>(la)].name,
                      nb = panda.links()[static_cast<size_t>(lb)].name;
    EXPECT_FALSE((na == "panda_link1" && (nb == "panda_link0" || nb == "panda_link2")) ||
                 (nb == "panda_link1" && (na == "panda_link0" || na == "panda_link2")))
        << na << " / " << nb;
  }
  const auto fewer = self_collision_pairs(panda, {{"panda_link0", "panda_link5"}});
  EXPECT_LT(fewer.size(), pairs.size());
  EXPECT_THROW(self_collision_pairs(panda, {{"panda_link0", "no_such_link"}}), ModelError);

  std::mt19937_64 rng(31);
  Workspace ws(panda);
  const double h = 1e-6;
  int compared = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::VectorXd q = random_q(panda, rng);
    forward_kinematics(panda, q, ws);
    for (const PairDistance& d : self_distances(panda, ws, pairs)) {
      for (int i = 0; i < q.size(); ++i) {
        Eigen::VectorXd qp = q, qm = q;
        qp[i] += h, qm[i] -= h;
        Workspace wp(panda), wm(panda);
        forward_kinematics(panda, qp, wp);
        forward_kinematics(panda, qm, wm);
        const auto& a = panda.collision_shapes()[static_cast<size_t>(d.shape)];
        const auto& b = panda.collision_shapes()[static_cast<size_t>(d.obstacle)];
        const double fp = signed_distance(a.shape, collision_pose(panda, wp, d.shape), b.shape,
                                          collision_pose(panda, wp, d.obstacle))
                              .signed_distance;
        const double fm = signed_distance(a.shape, collision_pose(panda, wm, d.shape), b.shape,
                                          collision_pose(panda, wm, d.obstacle))
                              .signed_distance;
        const double forward = (fp - d.distance) / h, backward = (d.distance - fm) / h;
        if (std::abs(forward - backward) > 1e-4 * (1.0 + std::abs(forward)))
          continue;  // feature switch
        EXPECT_NEAR(d.gradient[i], (fp - fm) / (2 * h), 1e-5);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 500);
}

}  // namespace
