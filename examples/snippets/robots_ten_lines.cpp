// README "Robots in ten lines", as a complete program: the Panda in its ready pose against the
// boxes of a scene, every (link shape, obstacle) distance with its gradient.
//   robots_ten_lines [panda.urdf] [scene.yaml]
#include <gjk/robots/distances.hpp>
#include <gjk/robots/scene.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

using namespace gjk::robots;

int main(int argc, char** argv) try {
  const std::string urdf = argc > 1 ? argv[1] : "../shared/robot-models/panda/panda.urdf";
  const std::string scene_yaml = argc > 2 ? argv[2] : "robots/scenes/panda_boxes.yaml";

  // --- README snippet ---
  // clang-format off
  RobotModel arm = RobotModel::from_urdf_file(urdf);                 // meshes -> convex hulls
  Scene scene = load_scene(scene_yaml);                               // file:line errors
  Workspace ws(arm);                                                  // one per thread
  Eigen::VectorXd q = Eigen::VectorXd::Constant(arm.num_positions(), 0.02);  // fingers 2 cm
  q.head<7>() << 0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4;     // ready pose
  forward_kinematics(arm, q, ws);                                     // checks size, NaN, limits
  gjk::Vec3 point = ws.link_poses[arm.link_index("panda_hand")].translation();
  auto jac = point_jacobian(arm, ws, arm.link_index("panda_hand"), point);
  DistanceCache cache(arm, scene);                                    // warm start along a path
  double closest = INFINITY;
  for (const PairDistance& d : robot_scene_distances(arm, ws, scene, {}, &cache))
    closest = std::fmin(closest, d.distance);                         // d.normal, d.gradient
  // clang-format on
  // --- end of snippet ---

  std::printf(
      "%s: %d positions, %zu collision shapes; hand at (%.3f, %.3f, %.3f), Jacobian %ldx%ld\n",
      arm.name().c_str(), arm.num_positions(), arm.collision_shapes().size(), point.x(), point.y(),
      point.z(), static_cast<long>(jac.rows()), static_cast<long>(jac.cols()));
  std::printf("closest robot-obstacle distance in the ready pose: %.4f m\n", closest);
  // robots/scenes/panda_boxes.yaml says every box is clear of the arm in the ready pose; the
  // table's top is 1 cm below link0, so nothing is farther than that.
  return closest > 0.0 && closest < 0.05 && jac.rows() == 6 && jac.cols() == q.size() ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "robots_ten_lines: %s\n", e.what());
  return 3;
}
