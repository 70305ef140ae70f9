// Reference answers of the robots layer for the Python tests:
//   gjk_python_robot_reference URDF SCENE [SRDF]
// reads joint vectors from stdin, one per line, and prints for each, with 17 significant digits
// (exact round trip), on one line: every link pose (16 numbers each, row-major), the world's
// closest pair (one WorldContext for all lines, so its warm starts follow the lines in order:
// distance, shape, obstacle, self, point on the robot, other point, normal, gradient), the
// robot_scene_distances() pairs (count, then shape, obstacle, distance and gradient of each),
// and the point Jacobian (6 x n, row-major) of the last link's origin.
//   gjk_python_robot_reference URDF SCENE SRDF --time REPEATS
// instead times update() + closest() (with gradient) of one WorldContext over the joint vectors,
// REPEATS passes, and prints the best pass's nanoseconds per query and the sum of the distances
// of that pass (python/bench/robots_overhead.py compares the bindings with it).
#include <gjk/robots/collision_world.hpp>
#include <gjk/robots/distances.hpp>
#include <gjk/robots/srdf.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

void put(double v) {
  std::printf(" %.17g", v);
}
void put(const gjk::Vec3& v) {
  put(v.x());
  put(v.y());
  put(v.z());
}

}  // namespace

int main(int argc, char** argv) {
  namespace rb = gjk::robots;
  if (argc < 3) {
    std::cerr << "usage: gjk_python_robot_reference URDF SCENE [SRDF] < joint vectors\n";
    return 2;
  }
  const rb::RobotModel model = rb::RobotModel::from_urdf_file(argv[1]);
  const rb::Scene scene = rb::load_scene(argv[2]);
  const rb::AllowedCollisionMatrix acm =
      argc > 3 ? rb::acm_from_srdf(model, rb::load_srdf(argv[3], model))
               : rb::AllowedCollisionMatrix::from_adjacency(model);
  const rb::CollisionWorld world(model, scene, acm);
  rb::WorldContext context(world);
  if (argc > 5 && std::string(argv[4]) == "--time") {
    std::vector<Eigen::VectorXd> states;
    std::string text;
    while (std::getline(std::cin, text)) {
      std::istringstream in(text);
      Eigen::VectorXd q(model.num_positions());
      for (Eigen::Index i = 0; i < q.size(); ++i) in >> q[i];
      states.push_back(q);
    }
    const int repeats = std::atoi(argv[5]);
    double best = std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int r = 0; r < repeats; ++r) {
      rb::WorldContext fresh(world);  // every pass starts cold, as the Python loop does
      double s = 0.0;
      const auto t0 = std::chrono::steady_clock::now();
      for (const Eigen::VectorXd& q : states) {
        fresh.update(q);
        s += fresh.closest().pair.distance;
      }
      const double ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, ns / static_cast<double>(states.size()));
      sum = s;
    }
    std::printf("%.1f %.17g\n", best, sum);
    return 0;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    Eigen::VectorXd q(model.num_positions());
    for (Eigen::Index i = 0; i < q.size(); ++i) in >> q[i];
    rb::Workspace ws(model);
    rb::forward_kinematics(model, q, ws);
    for (const gjk::Pose& p : ws.link_poses)
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) put(p.matrix()(r, c));
    context.update(q);
    const rb::ClosestPair c = context.closest();
    put(c.pair.distance);
    put(c.pair.shape);
    put(c.pair.obstacle);
    put(c.self ? 1 : 0);
    put(c.pair.point_on_link);
    put(c.pair.point_on_obstacle);
    put(c.pair.normal);
    for (Eigen::Index i = 0; i < c.pair.gradient.size(); ++i) put(c.pair.gradient[i]);
    const auto pairs = rb::robot_scene_distances(model, ws, scene);
    put(static_cast<double>(pairs.size()));
    for (const rb::PairDistance& p : pairs) {
      put(p.shape);
      put(p.obstacle);
      put(p.distance);
      for (Eigen::Index i = 0; i < p.gradient.size(); ++i) put(p.gradient[i]);
    }
    const int last = static_cast<int>(model.links().size()) - 1;
    const auto jac =
        rb::point_jacobian(model, ws, last, ws.link_poses[static_cast<size_t>(last)].translation());
    for (Eigen::Index r = 0; r < jac.rows(); ++r)
      for (Eigen::Index k = 0; k < jac.cols(); ++k) put(jac(r, k));
    std::printf("\n");
  }
  return 0;
}
