// Mesh loading through assimp; the hull (and its adjacency) comes from the engine.
#include "gjk/robots/mesh_loader.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <array>
#include <assimp/Importer.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace gjk::robots {
namespace {

void collect(const aiScene* scene, const aiNode* node, const aiMatrix4x4& parent,
             std::vector<Vec3>& points, std::size_t& triangles) {
  const aiMatrix4x4 transform = parent * node->mTransformation;
  for (unsigned m = 0; m < node->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[node->mMeshes[m]];
    for (unsigned f = 0; f < mesh->mNumFaces; ++f)
      triangles += mesh->mFaces[f].mNumIndices >= 3 ? 1 : 0;
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D p = transform * mesh->mVertices[v];
      points.emplace_back(p.x, p.y, p.z);
    }
  }
  for (unsigned c = 0; c < node->mNumChildren; ++c)
    collect(scene, node->mChildren[c], transform, points, triangles);
}

/// Union-find over vertex indices: shells are the connected components of shared vertices.
struct Shells {
  std::vector<std::uint32_t> parent;
  explicit Shells(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  std::uint32_t find(std::uint32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

void collect_triangles(const aiScene* scene, const aiNode* node, const aiMatrix4x4& parent,
                       const Vec3& scale, const std::string& path, MeshTriangles& out) {
  const aiMatrix4x4 transform = parent * node->mTransformation;
  for (unsigned m = 0; m < node->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[node->mMeshes[m]];
    // Weld by exact position within the mesh: assimp's JoinIdenticalVertices also compares
    // normals, so an STL's faces (one normal each) would stay apart and every face would be
    // its own shell.
    std::map<std::array<double, 3>, std::uint32_t> welded;
    std::vector<std::uint32_t> index(mesh->mNumVertices);
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D p = transform * mesh->mVertices[v];
      const Vec3 q = Vec3(p.x, p.y, p.z).cwiseProduct(scale);
      if (!q.allFinite())
        throw std::runtime_error("mesh '" + path + "': non-finite vertex coordinate");
      const auto [it, added] = welded.try_emplace({q.x(), q.y(), q.z()},
                                                  static_cast<std::uint32_t>(out.vertices.size()));
      if (added) out.vertices.push_back(q);
      index[v] = it->second;
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines (triangulated before)
      const std::array<std::uint32_t, 3> t = {index[face.mIndices[0]], index[face.mIndices[1]],
                                              index[face.mIndices[2]]};
      // A triangle with two equal corners has no area and is covered by its neighbours' edges.
      if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
      out.triangles.push_back(t);
    }
  }
  for (unsigned c = 0; c < node->mNumChildren; ++c)
    collect_triangles(scene, node->mChildren[c], transform, scale, path, out);
}

void check_manifold(const MeshTriangles& mesh, const std::string& path) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<size_t>> edges;
  for (size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) continue;  // degenerate
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t a = tri[static_cast<size_t>(k)],
                          b = tri[static_cast<size_t>((k + 1) % 3)];
      edges[{std::min(a, b), std::max(a, b)}].push_back(t);
    }
  }
  for (const auto& [edge, triangles] : edges) {
    if (triangles.size() <= 2) continue;
    std::ostringstream msg;
    const Vec3& p = mesh.vertices[edge.first];
    const Vec3& q = mesh.vertices[edge.second];
    msg << "mesh '" << path << "': non-manifold edge (" << p.x() << ", " << p.y() << ", " << p.z()
        << ") - (" << q.x() << ", " << q.y() << ", " << q.z() << ") is shared by "
        << triangles.size() << " triangles (";
    for (size_t i = 0; i < triangles.size() && i < 4; ++i) msg << (i ? ", " : "") << triangles[i];
    msg << (triangles.size() > 4 ? ", ..." : "")
        << "); repair the mesh, or load it as its hull or as convex pieces";
    throw std::runtime_error(msg.str());
  }
}

/// Reads a mesh file with identical vertices joined (which shrinks a hull's input and joins
/// shells) and polygons triangulated; the scene lives as long as `importer`.
const aiScene* read_mesh_file(Assimp::Importer& importer, const std::string& path,
                              const Vec3& scale) {
  if (!scale.allFinite() || (scale.array() == 0.0).any()) {
    throw std::runtime_error("mesh '" + path + "': scale must be finite and non-zero");
  }
  const aiScene* scene =
      importer.ReadFile(path, aiProcess_JoinIdenticalVertices | aiProcess_Triangulate);
  if (scene == nullptr || scene->mRootNode == nullptr) {
    throw std::runtime_error("mesh '" + path + "': cannot read (" + importer.GetErrorString() +
                             ")");
  }
  return scene;
}

}  // namespace

MeshTriangles load_mesh_triangles(const std::string& path, const Vec3& scale,
                                  bool require_manifold) {
  Assimp::Importer importer;
  const aiScene* scene = read_mesh_file(importer, path, scale);
  MeshTriangles out;
  collect_triangles(scene, scene->mRootNode, aiMatrix4x4(), scale, path, out);
  if (out.triangles.empty()) throw std::runtime_error("mesh '" + path + "': no triangles");
  if (require_manifold) check_manifold(out, path);
  // Shells: triangles joined through shared vertices (assimp joined identical ones per mesh).
  Shells shells(out.vertices.size());
  for (const auto& t : out.triangles) {
    shells.join(t[0], t[1]);
    shells.join(t[1], t[2]);
  }
  std::map<std::uint32_t, std::uint32_t> number;  // root -> shell number, in file order
  out.shell.reserve(out.triangles.size());
  for (const auto& t : out.triangles) {
    const auto root = shells.find(t[0]);
    const auto it = number.try_emplace(root, static_cast<std::uint32_t>(number.size())).first;
    out.shell.push_back(it->second);
  }
  out.shells = static_cast<std::uint32_t>(number.size());
  return out;
}

std::vector<ConvexPolytope> load_convex_pieces(const std::string& path, const Vec3& scale) {
  const MeshTriangles mesh = load_mesh_triangles(path, scale, false);
  std::vector<std::vector<Vec3>> points(mesh.shells);
  for (size_t t = 0; t < mesh.triangles.size(); ++t)
    for (const std::uint32_t v : mesh.triangles[t])
      points[mesh.shell[t]].push_back(mesh.vertices[v]);
  std::vector<ConvexPolytope> pieces;
  pieces.reserve(points.size());
  for (const auto& p : points) pieces.push_back(ConvexPolytope::from_points(p));
  return pieces;
}

ConvexPolytope load_convex_mesh(const std::string& path, const Vec3& scale) {
  Assimp::Importer importer;
  const aiScene* scene = read_mesh_file(importer, path, scale);
  std::vector<Vec3> points;
  std::size_t triangles = 0;
  collect(scene, scene->mRootNode, aiMatrix4x4(), points, triangles);
  if (triangles == 0 || points.empty())
    throw std::runtime_error("mesh '" + path + "': no triangles");
  for (Vec3& p : points) {
    p = p.cwiseProduct(scale);
    if (!p.allFinite())
      throw std::runtime_error("mesh '" + path + "': non-finite vertex coordinate");
  }
  return ConvexPolytope::from_points(points);
}

}  // namespace gjk::robots
