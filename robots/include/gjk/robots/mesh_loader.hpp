// Mesh files (STL, DAE, OBJ, ... through assimp) to convex polytopes, convex pieces or exact
// triangles (issue 17 item 1: the representation is a per-geometry choice).
#pragma once

#include "gjk/shapes.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gjk::robots {

/// Loads every vertex of every mesh in `path` (node transforms applied), scales it per axis and
/// returns the convex hull. Throws std::runtime_error naming the file when it cannot be read,
/// has no triangles, or holds non-finite coordinates.
ConvexPolytope load_convex_mesh(const std::string& path, const Vec3& scale = Vec3::Ones());

/// A mesh file's triangles: node transforms and the scale applied, identical vertices joined.
struct MeshTriangles {
  std::vector<Vec3> vertices;                           ///< in the file's frame, scaled
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< indices into vertices
  /// For each triangle, the connected shell it belongs to (triangles that share a vertex, within
  /// one mesh of the file, are in the same shell); shells are numbered from 0 in file order.
  std::vector<std::uint32_t> shell;
  std::uint32_t shells = 0;  ///< number of shells
};

/// Loads every triangle of `path` (an exact mesh obstacle or link). Polygons are triangulated;
/// points and lines are ignored. Throws std::runtime_error naming the file when it cannot be
/// read, has no triangles or holds non-finite coordinates, and, when `require_manifold`, when an
/// edge is shared by more than two triangles (naming the edge's end points and the triangles).
MeshTriangles load_mesh_triangles(const std::string& path, const Vec3& scale = Vec3::Ones(),
                                  bool require_manifold = true);

/// Convex pieces: the hull of each shell of the file (the usual output of a convex
/// decomposition tool such as V-HACD or CoACD: one closed convex shell, or one object, per
/// piece). Throws like load_mesh_triangles.
std::vector<ConvexPolytope> load_convex_pieces(const std::string& path,
                                               const Vec3& scale = Vec3::Ones());

}  // namespace gjk::robots
