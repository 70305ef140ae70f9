// Obstacle scenes: convex shapes, exact triangle meshes and occupied octree cells with poses,
// loaded from a YAML file.
#pragma once

#include "gjk/mesh.hpp"
#include "gjk/robots/robot_model.hpp"
#include "gjk/shapes.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::robots {

/// How an obstacle's geometry is held (issue 17 items 1-2).
enum class ObstacleKind {
  Convex,  ///< a convex shape (`shape`): a primitive, a hull, or one convex piece of a mesh
  Mesh,    ///< exact triangles under a bounding-volume hierarchy (`mesh`)
  Cells,   ///< occupied octree cells: an OctoMap or a voxelised point cloud (`cells`)
};

/// A named obstacle at a pose.
struct Obstacle {
  std::string name;  ///< unique within the scene ("shelf", or "shelf#2" for a convex piece)
  Shape shape;       ///< Convex: the shape in the obstacle's frame
  Pose pose = Pose::Identity();  ///< obstacle frame in the world
  /// The scene entry it comes from ("shelf" for every piece of the shelf); empty means `name`.
  std::string object{};
  std::shared_ptr<const TriangleMesh> mesh{};  ///< Mesh: the triangles in the obstacle's frame
  std::shared_ptr<const BoxSet> cells{};       ///< Cells: the cells in the obstacle's frame

  /// Which of shape, mesh and cells holds the geometry.
  ObstacleKind kind() const {
    return mesh ? ObstacleKind::Mesh : cells ? ObstacleKind::Cells : ObstacleKind::Convex;
  }
};

/// The obstacles of a robot cell, and the objects the robot holds.
struct Scene {
  std::vector<Obstacle> obstacles;       ///< in file order
  std::vector<AttachedObject> attached;  ///< `attached:` entries (RobotModel::with_attached)
};

/// A scene file that cannot be used. what() names the file, the line and the field, e.g.
/// "scenes/two.yaml:12: obstacles[1].apex: expected 3 numbers, got 2".
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Loads a YAML scene file (format in robots/scenes/README.md). Mesh, OctoMap and point-cloud
/// paths are relative to the scene file. Throws SceneError.
Scene load_scene(const std::string& path);

/// The same from YAML text; `name` is used in messages and `base_dir` resolves mesh paths.
Scene parse_scene(const std::string& yaml_text, const std::string& name,
                  const std::string& base_dir);

}  // namespace gjk::robots
