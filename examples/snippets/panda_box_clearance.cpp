// The Panda's clearance to a box, checked against a value computed independently: the consumer
// check of scripts/check-install.sh (exits 1 when the two disagree).
//   panda_box_clearance [panda.urdf]
// The box is a 2 m x 2 m table whose top face is 5 cm below the robot's base. Every collision
// shape of the Panda is a convex hull of mesh vertices or a box, and every vertex lies above the
// table and inside its footprint, so the exact distance from the arm to the table is the lowest
// vertex's height above the top face: no GJK involved.
#include <gjk/robots/distances.hpp>
#include <gjk/robots/scene.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <variant>
#include <vector>

using namespace gjk::robots;

int main(int argc, char** argv) try {
  const std::string urdf = argc > 1 ? argv[1] : "../shared/robot-models/panda/panda.urdf";
  const RobotModel arm = RobotModel::from_urdf_file(urdf);
  const double top = -0.05, half = 1.0, thickness = 0.02;

  Scene scene;
  Obstacle table;
  table.name = "table";
  table.shape = gjk::Box{gjk::Vec3(half, half, thickness / 2)};
  table.pose.translation() = gjk::Vec3(0, 0, top - thickness / 2);
  scene.obstacles.push_back(table);

  // The ready pose with the fingers 2 cm open.
  Eigen::VectorXd q = Eigen::VectorXd::Constant(arm.num_positions(), 0.02);
  q.head<7>() << 0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4;
  Workspace ws(arm);
  forward_kinematics(arm, q, ws);
  const PairDistance d = minimum_distance(arm, ws, scene);

  double lowest = INFINITY;
  for (const CollisionShape& cs : arm.collision_shapes()) {
    std::vector<gjk::Vec3> vertices;
    if (const auto* hull = std::get_if<gjk::ConvexPolytope>(&cs.shape.geometry)) {
      vertices = hull->vertices();
    } else if (const auto* box = std::get_if<gjk::Box>(&cs.shape.geometry)) {
      for (int corner = 0; corner < 8; ++corner)
        vertices.push_back(box->half_extents.cwiseProduct(
            gjk::Vec3(corner & 1 ? 1 : -1, corner & 2 ? 1 : -1, corner & 4 ? 1 : -1)));
    }
    if (vertices.empty() || cs.shape.inflation != 0.0) {
      std::fprintf(stderr, "panda_box_clearance: shape '%s' is not a plain hull or box\n",
                   cs.description.c_str());
      return 1;
    }
    const gjk::Pose pose = ws.link_poses[static_cast<size_t>(cs.link)] * cs.origin;
    for (const gjk::Vec3& v : vertices) {
      const gjk::Vec3 w = pose * v;
      if (std::abs(w.x()) > half || std::abs(w.y()) > half) {
        std::fprintf(stderr, "panda_box_clearance: a vertex is outside the table's footprint\n");
        return 1;
      }
      lowest = std::fmin(lowest, w.z() - top);
    }
  }
  const std::string link =
      d.shape >= 0 ? arm.links()[static_cast<size_t>(
                                     arm.collision_shapes()[static_cast<size_t>(d.shape)].link)]
                         .name
                   : "none";
  std::printf("Panda (%s) to the table: %.9f m (closest link %s); lowest hull vertex: %.9f m\n",
              urdf.c_str(), d.distance, link.c_str(), lowest);
  const bool ok = d.shape >= 0 && std::abs(d.distance - lowest) < 1e-6 && lowest > 0.0;
  if (!ok) std::fprintf(stderr, "panda_box_clearance: FAILED: the two values disagree\n");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "panda_box_clearance: %s\n", e.what());
  return 3;
}
