// Robots (issue 4): forward kinematics plus every link-obstacle signed distance with its
// gradient, per configuration along a smooth joint path, cold and warm-started (one
// DistanceCache carried along the path). Scenes: the 4-DOF arm of seed 002 among its two
// pyramids, and a 7-DOF arm (Panda) among 10 boxes.
#include "bench.hpp"

#include "gjk/robots/distances.hpp"

#include <memory>
#include <random>

namespace bench {
namespace {

using gjk::robots::DistanceCache;
using gjk::robots::RobotModel;
using gjk::robots::Scene;
using gjk::robots::Workspace;

struct RobotCase {
  std::string name;
  RobotModel model;
  Scene scene;
  std::vector<Eigen::VectorXd> path;
};

/// A smooth path: 200 configurations between two random ones inside the limits.
std::vector<Eigen::VectorXd> smooth_path(const RobotModel& model, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto random_q = [&] {
    Eigen::VectorXd q(model.num_positions());
    for (int i = 0; i < q.size(); ++i) {
      const double lo = std::max(model.lower_limits()[i], -M_PI),
                   hi = std::min(model.upper_limits()[i], M_PI);
      q[i] = std::uniform_real_distribution<double>(lo, hi)(rng);
    }
    return q;
  };
  const Eigen::VectorXd a = random_q(), b = random_q();
  std::vector<Eigen::VectorXd> path;
  for (int k = 0; k < 200; ++k) path.push_back(a + (b - a) * (k / 199.0));
  return path;
}

const RobotCase& four_dof() {
  static const RobotCase c = [] {
    RobotCase r{"four_dof_pyramids",
                RobotModel::from_urdf_file(std::string(GJK_ROBOT_MODELS_DIR) +
                                           "/four_dof/four_dof_arm.urdf"),
                gjk::robots::load_scene(std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml"),
                {}};
    r.path = smooth_path(r.model, 44);
    return r;
  }();
  return c;
}

const RobotCase& panda_boxes() {
  static const RobotCase c = [] {
    RobotCase r{
        "panda_10_boxes",
        RobotModel::from_urdf_file(std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf"),
        Scene{},
        {}};
    std::mt19937_64 rng(10);
    std::uniform_real_distribution<double> u(-0.8, 0.8), h(0.03, 0.15);
    for (int i = 0; i < 10; ++i) {
      gjk::Pose p = gjk::Pose::Identity();
      p.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
      p.translation() = gjk::Vec3(u(rng), u(rng), 0.6 + 0.5 * u(rng));
      r.scene.obstacles.push_back(
          {"box" + std::to_string(i), gjk::Box{gjk::Vec3(h(rng), h(rng), h(rng))}, p});
    }
    r.path = smooth_path(r.model, 77);
    return r;
  }();
  return c;
}

void run(benchmark::State& state, const RobotCase& c, bool warm) {
  Workspace ws(c.model);
  DistanceCache cache(c.model, c.scene);
  std::vector<gjk::robots::PairDistance> distances;
  double sink = 0.0;
  for (auto _ : state) {
    if (warm) cache = DistanceCache(c.model, c.scene);  // each pass tracks the path from its start
    for (const Eigen::VectorXd& q : c.path) {
      gjk::robots::forward_kinematics(c.model, q, ws);
      for (const auto& d :
           gjk::robots::robot_scene_distances(c.model, ws, c.scene, {}, warm ? &cache : nullptr)) {
        sink += d.distance + d.gradient[0];
      }
    }
    benchmark::DoNotOptimize(sink);
  }
  set_per_query_counters(state, c.path.size());
}

}  // namespace

void register_robots() {
  for (const RobotCase* c : {&four_dof(), &panda_boxes()}) {
    for (bool warm : {false, true}) {
      benchmark::RegisterBenchmark(
          ("robots/fk+distances/" + c->name + "/" + (warm ? "warm" : "cold")).c_str(),
          [c, warm](benchmark::State& s) { run(s, *c, warm); });
    }
  }
}

}  // namespace bench
