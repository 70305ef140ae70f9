// Mesh files (STL, DAE, OBJ, ... through assimp) to convex polytopes.
#pragma once

#include "gjk/shapes.hpp"

#include <string>

namespace gjk::robots {

/// Loads every vertex of every mesh in `path` (node transforms applied), scales it per axis and
/// returns the convex hull. Throws std::runtime_error naming the file when it cannot be read,
/// has no triangles, or holds non-finite coordinates.
ConvexPolytope load_convex_mesh(const std::string& path, const Vec3& scale = Vec3::Ones());

}  // namespace gjk::robots
