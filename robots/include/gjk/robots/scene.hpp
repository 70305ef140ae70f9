// Obstacle scenes: convex obstacles with poses, loaded from a YAML file.
#pragma once

#include "gjk/shapes.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::robots {

/// A named convex obstacle at a pose.
struct Obstacle {
  std::string name;              ///< unique within the scene
  Shape shape;                   ///< in the obstacle's frame
  Pose pose = Pose::Identity();  ///< obstacle frame in the world
};

/// The obstacles of a robot cell.
struct Scene {
  std::vector<Obstacle> obstacles;  ///< in file order
};

/// A scene file that cannot be used. what() names the file, the line and the field, e.g.
/// "scenes/two.yaml:12: obstacles[1].apex: expected 3 numbers, got 2".
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Loads a YAML scene file (format in robots/scenes/README.md). Mesh paths are relative to the
/// scene file. Throws SceneError.
Scene load_scene(const std::string& path);

/// The same from YAML text; `name` is used in messages and `base_dir` resolves mesh paths.
Scene parse_scene(const std::string& yaml_text, const std::string& name,
                  const std::string& base_dir);

}  // namespace gjk::robots
