// Mesh loading through assimp; the hull (and its adjacency) comes from the engine.
#include "gjk/robots/mesh_loader.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <stdexcept>

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

}  // namespace

ConvexPolytope load_convex_mesh(const std::string& path, const Vec3& scale) {
  if (!scale.allFinite() || (scale.array() == 0.0).any()) {
    throw std::runtime_error("mesh '" + path + "': scale must be finite and non-zero");
  }
  Assimp::Importer importer;
  // Keep only what the hull needs: positions. Joining identical vertices shrinks the hull input.
  const aiScene* scene =
      importer.ReadFile(path, aiProcess_JoinIdenticalVertices | aiProcess_Triangulate);
  if (scene == nullptr || scene->mRootNode == nullptr) {
    throw std::runtime_error("mesh '" + path + "': cannot read (" + importer.GetErrorString() +
                             ")");
  }
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
