// Meshes and occupancy against FCL (issue 17 item 9): a convex shape against a triangle mesh
// (libgjk TriangleMesh, FCL BVHModel<OBBRSS>) and against the occupied cells of an octree
// (libgjk BoxSet, FCL OcTree on the same octomap::OcTree), distance and collision, on seeded
// poses; and the agreement of both with a brute-force minimum over every triangle / cell.
//
// What each engine gets (built once, outside the timed loop):
//  - libgjk: gjk::TriangleMesh::from_triangles / gjk::BoxSet::from_boxes (identity pose), the
//    shape as gjk::Shape, default QueryOptions.
//  - FCL 0.7: the same vertices and triangles in fcl::BVHModel<fcl::OBBRSSd> (FCL's usual choice
//    for distance); fcl::OcTree<double> on the same octomap tree; the shape as fcl::Boxd /
//    Sphered / Capsuled / Convexd (the same hull as libgjk's polytope, via make_body3). Called
//    through fcl::distance (enable_nearest_points = true, so FCL computes witness points like
//    libgjk does) and fcl::collide (default request: one contact, no contact data), with the
//    solver GST_LIBCCD or GST_INDEP.
#include "bench.hpp"
#include "peers.hpp"

#include "gjk/mesh_pair.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/geometry/octree/octree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>
#include <octomap/OcTree.h>

#include <algorithm>
#include <array>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace bench {
namespace {

constexpr std::uint64_t kSeedMesh = 0x5EED0179;
/// Poses per case: 1000, 100 with --quick (read when the data are first built).
int poses_per_case() {
  return config().pairs_3d;
}

using Triangles = std::vector<std::array<std::uint32_t, 3>>;

/// A convex shape in both engines' forms.
struct Convex {
  std::string name;
  gjk::Shape shape;
  std::shared_ptr<fcl::CollisionGeometryd> fcl;
  std::unique_ptr<Body3> body;  ///< keeps the polytope's FCL data alive
};

/// Uniform random rotation from a normalised 4D Gaussian (own generator: reproducible).
Eigen::Matrix3d random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  Eigen::Quaterniond q(n(rng), n(rng), n(rng), n(rng));
  q.normalize();
  return q.toRotationMatrix();
}

Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  Vec3 v(n(rng), n(rng), n(rng));
  return v.normalized();
}

Convex make_box(const Vec3& half) {
  return {"box", gjk::Shape(gjk::Box{half}), std::make_shared<fcl::Boxd>(2.0 * half), nullptr};
}
Convex make_sphere(double r) {
  return {"sphere", gjk::Shape(gjk::Sphere{r}), std::make_shared<fcl::Sphered>(r), nullptr};
}
Convex make_capsule(double r, double half_length) {
  // FCL's lz is the whole segment length.
  return {"capsule", gjk::Shape(gjk::Capsule{r, half_length}),
          std::make_shared<fcl::Capsuled>(r, 2.0 * half_length), nullptr};
}
Convex make_polytope(int points, double radius, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.3, 1.0);
  std::vector<Vec3> p;
  for (int i = 0; i < points; ++i) p.push_back(radius * u(rng) * random_unit(rng));
  Convex c{"polytope" + std::to_string(points), gjk::Shape(), nullptr, make_body3(p)};
  c.shape = c.body->shape;
  c.fcl = c.body->fcl;
  return c;
}

// ---- Data: meshes ---------------------------------------------------------------------------

/// Every triangle of every mesh in the file (node transforms applied), duplicate vertices
/// joined; triangles that repeat an index after joining are dropped (from_triangles rejects
/// them and they are zero-area anyway).
void load_triangles(const std::string& path, std::vector<Vec3>& vertices, Triangles& triangles) {
  Assimp::Importer importer;
  const aiScene* scene =
      importer.ReadFile(path, aiProcess_JoinIdenticalVertices | aiProcess_Triangulate);
  if (scene == nullptr || scene->mRootNode == nullptr)
    throw std::runtime_error("mesh '" + path + "': " + importer.GetErrorString());
  struct Walk {
    const aiScene* scene;
    std::vector<Vec3>& v;
    Triangles& t;
    void operator()(const aiNode* node, const aiMatrix4x4& parent) {
      const aiMatrix4x4 transform = parent * node->mTransformation;
      for (unsigned m = 0; m < node->mNumMeshes; ++m) {
        const aiMesh* mesh = scene->mMeshes[node->mMeshes[m]];
        const auto base = static_cast<std::uint32_t>(v.size());
        for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
          const aiVector3D p = transform * mesh->mVertices[i];
          v.emplace_back(p.x, p.y, p.z);
        }
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
          const aiFace& face = mesh->mFaces[f];
          if (face.mNumIndices != 3) continue;
          const std::array<std::uint32_t, 3> tri{base + face.mIndices[0], base + face.mIndices[1],
                                                 base + face.mIndices[2]};
          if (tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2]) t.push_back(tri);
        }
      }
      for (unsigned c = 0; c < node->mNumChildren; ++c) (*this)(node->mChildren[c], transform);
    }
  };
  Walk{scene, vertices, triangles}(scene->mRootNode, aiMatrix4x4());
  if (triangles.empty()) throw std::runtime_error("mesh '" + path + "': no triangles");
}

/// A height field z = h(x, y) over [-1, 1]^2, two triangles per grid square: a rolling terrain
/// (an open surface, like a scanned floor or a shelf board seen from above).
void make_terrain(int n, std::vector<Vec3>& vertices, Triangles& triangles) {
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const double x = -1.0 + 2.0 * i / n, y = -1.0 + 2.0 * j / n;
      vertices.emplace_back(
          x, y, 0.08 * std::sin(3.0 * x) * std::cos(2.0 * y) + 0.03 * std::sin(9.0 * x + 7.0 * y));
    }
  const auto at = [n](int i, int j) { return static_cast<std::uint32_t>(j * (n + 1) + i); };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
}

struct MeshCase {
  std::string name;
  gjk::TriangleMesh mesh;
  std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> fcl;
  std::vector<gjk::Shape> triangles;  ///< one flat polytope per triangle, for brute force
  std::vector<Pose> poses;            ///< shape poses (the mesh sits at the identity)
};

/// Poses: a random point on a random triangle, moved 0.05-0.5 m along the triangle's normal
/// (either side, so some end up inside closed meshes or beyond thin parts), random rotation.
std::vector<Pose> poses_near(const std::vector<Vec3>& v, const Triangles& t, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, t.size() - 1);
  std::uniform_real_distribution<double> u(0.0, 1.0), offset(0.05, 0.5);
  std::vector<Pose> poses;
  while (static_cast<int>(poses.size()) < poses_per_case()) {
    const auto& tri = t[pick(rng)];
    double a = u(rng), b = u(rng);
    if (a + b > 1.0) a = 1.0 - a, b = 1.0 - b;
    const Vec3 p = v[tri[0]] + a * (v[tri[1]] - v[tri[0]]) + b * (v[tri[2]] - v[tri[0]]);
    const Vec3 n = (v[tri[1]] - v[tri[0]]).cross(v[tri[2]] - v[tri[0]]);
    if (!(n.norm() > 1e-12)) continue;  // zero-area triangle: no normal
    Pose pose = Pose::Identity();
    pose.linear() = random_rotation(rng);
    pose.translation() = p + (u(rng) < 0.5 ? -1.0 : 1.0) * offset(rng) * n.normalized();
    poses.push_back(pose);
  }
  return poses;
}

std::unique_ptr<MeshCase> make_mesh_case(std::string name, std::vector<Vec3> v, Triangles t,
                                         std::uint64_t seed) {
  auto c = std::make_unique<MeshCase>();
  c->name = std::move(name) + "_" + std::to_string(t.size());
  c->poses = poses_near(v, t, seed);
  std::vector<fcl::Triangle> ft;
  for (const auto& tri : t) {
    ft.emplace_back(tri[0], tri[1], tri[2]);
    c->triangles.emplace_back(
        gjk::ConvexPolytope::from_hull_vertices({v[tri[0]], v[tri[1]], v[tri[2]]}));
  }
  c->fcl = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
  c->fcl->beginModel(static_cast<int>(t.size()), static_cast<int>(v.size()));
  c->fcl->addSubModel(std::vector<fcl::Vector3d>(v.begin(), v.end()), ft);
  c->fcl->endModel();
  c->mesh = gjk::TriangleMesh::from_triangles(std::move(v), std::move(t));
  return c;
}

const std::vector<std::unique_ptr<MeshCase>>& mesh_cases() {
  static const auto cases = [] {
    std::vector<std::unique_ptr<MeshCase>> out;
    // Real collision meshes. The shared folder has no visual (thousands-of-triangles) meshes:
    // the largest Panda link (300 triangles) and the largest mesh there (UR5 upper arm).
    for (const auto& [name, file] :
         {std::pair<std::string, std::string>{"panda_link1", "/panda/meshes/collision/link1.stl"},
          {"ur5_upperarm", "/ur5/meshes/collision/upperarm.stl"}}) {
      std::vector<Vec3> v;
      Triangles t;
      load_triangles(std::string(GJK_SHARED_ROBOT_MODELS_DIR) + file, v, t);
      out.push_back(make_mesh_case(name, std::move(v), std::move(t), kSeedMesh + out.size()));
    }
    std::vector<Vec3> v;
    Triangles t;
    make_terrain(70, v, t);  // 9800 triangles
    out.push_back(make_mesh_case("terrain", std::move(v), std::move(t), kSeedMesh + 2));
    return out;
  }();
  return cases;
}

/// Shapes against meshes: about a robot link's size or a gripper's.
const std::vector<Convex>& mesh_shapes() {
  static const auto shapes = [] {
    std::vector<Convex> s;
    s.push_back(make_box(Vec3(0.05, 0.03, 0.04)));
    s.push_back(make_sphere(0.05));
    s.push_back(make_capsule(0.03, 0.08));
    s.push_back(make_polytope(30, 0.06, kSeedMesh + 10));
    return s;
  }();
  return shapes;
}

// ---- Data: occupancy ------------------------------------------------------------------------

struct CellCase {
  std::string name;
  std::shared_ptr<const octomap::OcTree> octree;
  gjk::BoxSet cells;
  std::shared_ptr<fcl::OcTreed> fcl;
  std::vector<Pose> poses;
};

/// A 4-cell-thick rolling surface at 0.02 m (a voxelised floor / scanned terrain), inserted with
/// updateNode and pruned as a mapping pipeline would; cells are the occupied leaves.
const CellCase& cell_case() {
  static const CellCase c = [] {
    auto tree = std::make_shared<octomap::OcTree>(0.02);
    for (int j = 0; j < 130; ++j)
      for (int i = 0; i < 130; ++i) {
        const double x = -1.3 + 0.02 * (i + 0.5), y = -1.3 + 0.02 * (j + 0.5);
        const double z = 0.15 * std::sin(2.5 * x) * std::cos(2.0 * y) + 0.05 * std::sin(6.0 * y);
        for (int k = 0; k < 4; ++k)
          tree->updateNode(octomap::point3d(static_cast<float>(x), static_cast<float>(y),
                                            static_cast<float>(z - 0.02 * k)),
                           true);
      }
    tree->updateInnerOccupancy();
    tree->prune();
    std::vector<Vec3> centres, halves;
    for (auto it = tree->begin_leafs(), end = tree->end_leafs(); it != end; ++it) {
      if (!tree->isNodeOccupied(*it)) continue;
      const octomap::point3d p = it.getCoordinate();
      centres.emplace_back(p.x(), p.y(), p.z());
      halves.push_back(Vec3::Constant(it.getSize() / 2.0));
    }
    std::mt19937_64 rng(kSeedMesh + 20);
    std::uniform_int_distribution<size_t> pick(0, centres.size() - 1);
    std::uniform_real_distribution<double> offset(0.05, 0.5);
    std::vector<Pose> poses;
    for (int i = 0; i < poses_per_case(); ++i) {
      Pose pose = Pose::Identity();
      pose.linear() = random_rotation(rng);
      pose.translation() = centres[pick(rng)] + offset(rng) * random_unit(rng);
      poses.push_back(pose);
    }
    const std::string name = "octree_" + std::to_string(centres.size()) + "_cells";
    return CellCase{name, tree, gjk::BoxSet::from_boxes(std::move(centres), std::move(halves)),
                    std::make_shared<fcl::OcTreed>(tree), std::move(poses)};
  }();
  return c;
}

/// Shapes against cells: a forearm-sized box and capsule.
const std::vector<Convex>& cell_shapes() {
  static const auto shapes = [] {
    std::vector<Convex> s;
    s.push_back(make_box(Vec3(0.04, 0.05, 0.12)));
    s.push_back(make_capsule(0.05, 0.12));
    return s;
  }();
  return shapes;
}

// ---- Engines --------------------------------------------------------------------------------

template <class Target>
double gjk_distance(const Convex& s, const Pose& pose, const Target& target) {
  return gjk::distance(s.shape, pose, target, Pose::Identity()).distance;
}
template <class Target>
double gjk_collide(const Convex& s, const Pose& pose, const Target& target) {
  return gjk::collide(s.shape, pose, target, Pose::Identity()).collision ? 1.0 : 0.0;
}

template <fcl::GJKSolverType T>
double fcl_distance(const Convex& s, const Pose& pose, const fcl::CollisionGeometryd* target) {
  fcl::DistanceRequestd request(true);  // enable_nearest_points
  request.gjk_solver_type = T;
  fcl::DistanceResultd result;
  fcl::distance(s.fcl.get(), pose, target, fcl::Transform3d::Identity(), request, result);
  return std::max(0.0, result.min_distance);  // FCL reports -1 or a negative value on overlap
}
template <fcl::GJKSolverType T>
double fcl_collide(const Convex& s, const Pose& pose, const fcl::CollisionGeometryd* target) {
  fcl::CollisionRequestd request;
  request.gjk_solver_type = T;
  fcl::CollisionResultd result;
  return fcl::collide(s.fcl.get(), pose, target, fcl::Transform3d::Identity(), request, result) > 0
             ? 1.0
             : 0.0;
}

/// One engine on one target: answer(shape, pose).
struct Row {
  std::string engine;
  Query query;
  std::function<double(const Convex&, const Pose&)> answer;
};

template <class Target>
std::vector<Row> rows(const Target& target, const fcl::CollisionGeometryd* fcl_target) {
  return {
      {"libgjk", Query::Distance,
       [&target](const Convex& s, const Pose& p) { return gjk_distance(s, p, target); }},
      {"fcl-ccd", Query::Distance,
       [fcl_target](const Convex& s, const Pose& p) {
         return fcl_distance<fcl::GST_LIBCCD>(s, p, fcl_target);
       }},
      {"fcl-indep", Query::Distance,
       [fcl_target](const Convex& s, const Pose& p) {
         return fcl_distance<fcl::GST_INDEP>(s, p, fcl_target);
       }},
      {"libgjk", Query::Collide,
       [&target](const Convex& s, const Pose& p) { return gjk_collide(s, p, target); }},
      {"fcl-ccd", Query::Collide,
       [fcl_target](const Convex& s, const Pose& p) {
         return fcl_collide<fcl::GST_LIBCCD>(s, p, fcl_target);
       }},
      {"fcl-indep", Query::Collide,
       [fcl_target](const Convex& s, const Pose& p) {
         return fcl_collide<fcl::GST_INDEP>(s, p, fcl_target);
       }},
  };
}

void time_row(benchmark::State& state, const Row& row, const Convex& s,
              const std::vector<Pose>& poses) {
  time_pairs(state, poses, [&](const Pose& p) { return row.answer(s, p); });
}

// ---- Agreement ------------------------------------------------------------------------------

/// Brute force: the minimum of the convex-convex distance over every primitive (no hierarchy,
/// no pruning), one flat polytope per triangle or one box per cell.
double brute_force(const Convex& s, const Pose& pose, const std::vector<gjk::Shape>& primitives,
                   const std::vector<Pose>& primitive_poses) {
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < primitives.size(); ++i)
    best = std::min(best, gjk::distance(s.shape, pose, primitives[i], primitive_poses[i]).distance);
  return best;
}

// Engine-free references for spheres and capsules (no GJK anywhere): the point-triangle and
// point-box distances in closed form, and for a segment the minimum over t of the distance from
// its point at t, a convex function of t, found by golden-section search.

/// Closest point of triangle abc to p (Ericson, Real-Time Collision Detection, 5.1.5).
double point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return ap.norm();
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return bp.norm();
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return (p - (a + d1 / (d1 - d3) * ab)).norm();
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return cp.norm();
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return (p - (a + d2 / (d2 - d6) * ac)).norm();
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
    return (p - (b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b))).norm();
  const double denom = 1.0 / (va + vb + vc);
  return (p - (a + ab * (vb * denom) + ac * (vc * denom))).norm();
}

double point_box(const Vec3& p, const Vec3& centre, const Vec3& half) {
  return ((p - centre).cwiseAbs() - half).cwiseMax(0.0).norm();
}

/// min over t in [0, 1] of f(t), f convex: golden section to the bracket's floating-point floor.
template <class F>
double minimise_convex(F&& f) {
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  double lo = 0.0, hi = 1.0, x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 80; ++i) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = f(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = f(x2);
    }
  }
  return std::min({f1, f2, f(0.0), f(1.0)});
}

/// The closed-form distance of a sphere or capsule to the nearest primitive; NaN for others.
/// `point_distance(q, i)` is the distance from point q to primitive i.
template <class PointDistance>
double closed_form(const Convex& s, const Pose& pose, size_t primitives,
                   PointDistance&& point_distance) {
  double best = std::numeric_limits<double>::infinity();
  if (const auto* sphere = std::get_if<gjk::Sphere>(&s.shape.geometry)) {
    for (size_t i = 0; i < primitives; ++i)
      best = std::min(best, point_distance(pose.translation(), i));
    return std::max(0.0, best - sphere->radius);
  }
  if (const auto* capsule = std::get_if<gjk::Capsule>(&s.shape.geometry)) {
    const Vec3 a = pose * Vec3(0, 0, -capsule->half_length),
               b = pose * Vec3(0, 0, capsule->half_length);
    for (size_t i = 0; i < primitives; ++i)
      best = std::min(
          best, minimise_convex([&](double t) { return point_distance(a + t * (b - a), i); }));
    return std::max(0.0, best - capsule->radius);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

/// Prints one Markdown row per (shape, engine, query): max |distance - reference| and the number
/// of poses off by more than 1e-6 m (collide: answers that differ from reference <= 0). The
/// reference is the closed form for spheres and capsules, else the GJK brute force; with the
/// closed form a "brute force (GJK per primitive)" row shows how far that one is from it.
template <class PointDistance>
void check_rows(const std::string& target, const std::vector<Convex>& shapes,
                const std::vector<Row>& engine_rows, const std::vector<Pose>& poses,
                const std::vector<gjk::Shape>& primitives, const std::vector<Pose>& primitive_poses,
                const gjk::PrimitiveTree& tree, PointDistance&& point_distance) {
  for (const Convex& s : shapes) {
    std::vector<double> exact, gjk_brute;
    int touching = 0, near = 0;
    double reach = 0.0;  // leaves whose box is nearer the shape's box than the answer
    bool closed = false;
    for (const Pose& p : poses) {
      gjk_brute.push_back(brute_force(s, p, primitives, primitive_poses));
      const double cf = closed_form(s, p, primitives.size(), point_distance);
      closed = !std::isnan(cf);
      exact.push_back(closed ? cf : gjk_brute.back());
      touching += exact.back() <= 0.0 ? 1 : 0;
      near += exact.back() > 0.0 && exact.back() < 0.05 ? 1 : 0;
      // An exact search that prunes by box gaps must run GJK on each of these leaves (distance
      // query; when touching, the leaves whose box overlaps): what the traversal cannot avoid.
      const gjk::Aabb box = gjk::bounding_box(s.shape, p);
      for (const auto& node : tree.nodes()) {
        if (!node.leaf) continue;
        const double g =
            (node.lower - box.max()).cwiseMax(box.min() - node.upper).cwiseMax(0.0).norm();
        reach += (exact.back() > 0.0 ? g < exact.back() : g <= 0.0) ? 1.0 : 0.0;
      }
    }
    std::printf("<!-- %s %s: mean leaves within reach of the shape's box %.1f -->\n",
                target.c_str(), s.name.c_str(), reach / static_cast<double>(poses.size()));
    const auto print = [&](const char* query, const std::string& engine, double max_error,
                           int off) {
      std::printf("| %s | %s | %s | %s | %s | %zu | %d | %d | %.3g | %d |\n", target.c_str(),
                  s.name.c_str(), query, engine.c_str(), closed ? "closed form" : "GJK brute force",
                  poses.size(), touching, near, max_error, off);
      std::fflush(stdout);
    };
    if (closed) {
      double max_error = 0.0;
      int off = 0;
      for (size_t i = 0; i < poses.size(); ++i) {
        const double e = std::abs(gjk_brute[i] - exact[i]);
        max_error = std::max(max_error, e);
        off += e > 1e-6 ? 1 : 0;
      }
      print("distance", "brute force (GJK per primitive)", max_error, off);
    }
    for (const Row& row : engine_rows) {
      double max_error = 0.0;
      int off = 0;
      for (size_t i = 0; i < poses.size(); ++i) {
        const double a = row.answer(s, poses[i]);
        const double e = row.query == Query::Distance ? std::abs(a - exact[i])
                                                      : std::abs(a - (exact[i] <= 0.0 ? 1.0 : 0.0));
        max_error = std::max(max_error, e);
        off += e > (row.query == Query::Distance ? 1e-6 : 0.0) ? 1 : 0;
      }
      print(to_string(row.query), row.engine, max_error, off);
    }
  }
}

// ---- Mesh against mesh, mesh against cells --------------------------------------------------
//
// A Panda link mesh (a robot link kept exact instead of its hull) moving near a static target:
// the shelf of the Panda cell (robots/scenes/meshes/shelf.stl, 96 triangles), the 9800-triangle
// terrain, and the octree cells. libgjk: gjk::distance / gjk::collide of gjk/mesh_pair.hpp;
// FCL: fcl::distance / fcl::collide on BVHModel<OBBRSSd> x BVHModel<OBBRSSd> (or x OcTree), the
// same requests as above. FCL's mesh-mesh traversal does its own triangle-triangle tests (no GJK
// solver is involved), so there is one FCL row per query.

struct LinkCase {
  std::string name;
  const MeshCase* link;  ///< the moving mesh
  const gjk::TriangleMesh* target_mesh = nullptr;
  const gjk::BoxSet* target_cells = nullptr;
  const fcl::CollisionGeometryd* target_fcl;
  std::vector<Pose> poses;  ///< of the link; the target sits at the identity
};

std::unique_ptr<MeshCase> load_case(const std::string& name, const std::string& path,
                                    std::uint64_t seed) {
  std::vector<Vec3> v;
  Triangles t;
  load_triangles(path, v, t);
  return make_mesh_case(name, std::move(v), std::move(t), seed);
}

/// The link's box centre at each of `anchors` (poses near the target's surface or cells).
std::vector<Pose> link_poses(const MeshCase& link, std::vector<Pose> anchors) {
  const Vec3 centre = link.mesh.local_bounds().center();
  for (Pose& p : anchors) p.translation() -= p.linear() * centre;
  return anchors;
}

const std::vector<LinkCase>& link_cases() {
  static const auto cases = [] {
    static const auto link1 =
        load_case("panda_link1",
                  std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/meshes/collision/link1.stl",
                  kSeedMesh + 30);
    static const auto hand = load_case(
        "panda_hand", std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/meshes/collision/hand.stl",
        kSeedMesh + 31);
    static const auto shelf =
        load_case("shelf", std::string(GJK_ROBOT_SCENES_DIR) + "/meshes/shelf.stl", kSeedMesh + 32);
    const MeshCase& terrain = *mesh_cases()[2];
    const CellCase& cells = cell_case();
    std::vector<LinkCase> out;
    out.push_back({"panda_link1_vs_shelf", link1.get(), &shelf->mesh, nullptr, shelf->fcl.get(),
                   link_poses(*link1, shelf->poses)});
    out.push_back({"panda_hand_vs_terrain", hand.get(), &terrain.mesh, nullptr, terrain.fcl.get(),
                   link_poses(*hand, terrain.poses)});
    out.push_back({"panda_hand_vs_octree", hand.get(), nullptr, &cells.cells, cells.fcl.get(),
                   link_poses(*hand, cells.poses)});
    return out;
  }();
  return cases;
}

double link_gjk_distance(const LinkCase& c, const Pose& pose) {
  return c.target_mesh != nullptr
             ? gjk::distance(c.link->mesh, pose, *c.target_mesh, Pose::Identity()).distance
             : gjk::distance(c.link->mesh, pose, *c.target_cells, Pose::Identity()).distance;
}
double link_gjk_collide(const LinkCase& c, const Pose& pose) {
  const bool hit =
      c.target_mesh != nullptr
          ? gjk::collide(c.link->mesh, pose, *c.target_mesh, Pose::Identity()).collision
          : gjk::collide(c.link->mesh, pose, *c.target_cells, Pose::Identity()).collision;
  return hit ? 1.0 : 0.0;
}
double link_fcl_distance(const LinkCase& c, const Pose& pose) {
  fcl::DistanceRequestd request(true);  // enable_nearest_points, as libgjk always returns them
  fcl::DistanceResultd result;
  fcl::distance(c.link->fcl.get(), pose, c.target_fcl, fcl::Transform3d::Identity(), request,
                result);
  return std::max(0.0, result.min_distance);
}
double link_fcl_collide(const LinkCase& c, const Pose& pose) {
  fcl::CollisionRequestd request;
  fcl::CollisionResultd result;
  return fcl::collide(c.link->fcl.get(), pose, c.target_fcl, fcl::Transform3d::Identity(), request,
                      result) > 0
             ? 1.0
             : 0.0;
}

struct LinkRow {
  const char* engine;
  Query query;
  double (*answer)(const LinkCase&, const Pose&);
};
constexpr LinkRow kLinkRows[] = {{"libgjk", Query::Distance, link_gjk_distance},
                                 {"fcl", Query::Distance, link_fcl_distance},
                                 {"libgjk", Query::Collide, link_gjk_collide},
                                 {"fcl", Query::Collide, link_fcl_collide}};

/// Brute force over every pair of primitives with the convex engine (one flat polytope per
/// triangle, one box per cell). Pairs whose bounding spheres are farther apart than the best so
/// far are skipped: the gap of the spheres is a lower bound on the pair's distance, so the
/// minimum is unchanged (exact), and the 2-million-pair terrain case stays affordable.
double link_brute_force(const LinkCase& c, const Pose& pose) {
  struct Primitive {
    gjk::Shape shape;
    Pose pose;
    Vec3 centre;
    double radius;
  };
  const auto spheres = [](const std::vector<Vec3>& points) {
    Vec3 centre = Vec3::Zero();
    for (const Vec3& p : points) centre += p;
    centre /= static_cast<double>(points.size());
    double radius = 0.0;
    for (const Vec3& p : points) radius = std::max(radius, (p - centre).norm());
    return std::make_pair(centre, radius);
  };
  std::vector<Primitive> a, b;
  const auto& va = c.link->mesh.vertices();
  for (size_t i = 0; i < c.link->triangles.size(); ++i) {
    const auto& t = c.link->mesh.triangles()[i];
    const auto cr = spheres({pose * va[t[0]], pose * va[t[1]], pose * va[t[2]]});
    a.push_back({c.link->triangles[i], pose, cr.first, cr.second});
  }
  if (c.target_mesh != nullptr) {
    const auto& vb = c.target_mesh->vertices();
    for (const auto& t : c.target_mesh->triangles()) {
      const auto cr = spheres({vb[t[0]], vb[t[1]], vb[t[2]]});
      b.push_back({gjk::ConvexPolytope::from_hull_vertices({vb[t[0]], vb[t[1]], vb[t[2]]}),
                   Pose::Identity(), cr.first, cr.second});
    }
  } else {
    for (size_t k = 0; k < c.target_cells->centres().size(); ++k) {
      Pose at = Pose::Identity();
      at.translation() = c.target_cells->centres()[k];
      b.push_back({gjk::Box{c.target_cells->half_extents()[k]}, at, at.translation(),
                   c.target_cells->half_extents()[k].norm()});
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (const Primitive& p : a)
    for (const Primitive& q : b) {
      if ((p.centre - q.centre).norm() - p.radius - q.radius >= best) continue;
      best = std::min(best, gjk::distance(p.shape, p.pose, q.shape, q.pose).distance);
    }
  return best;
}

void check_link_cases() {
  std::printf(
      "\n## Mesh against mesh and against cells: agreement with brute force over every pair\n\n"
      "| case | query | engine | poses | touching | within 0.05 m | max abs error | "
      "off (> 1e-6 m / wrong) |\n|---|---|---|---:|---:|---:|---:|---:|\n");
  for (const LinkCase& c : link_cases()) {
    std::vector<double> exact;
    int touching = 0, near = 0;
    for (const Pose& p : c.poses) {
      exact.push_back(link_brute_force(c, p));
      touching += exact.back() <= 0.0 ? 1 : 0;
      near += exact.back() > 0.0 && exact.back() < 0.05 ? 1 : 0;
    }
    for (const LinkRow& row : kLinkRows) {
      double max_error = 0.0;
      int off = 0;
      for (size_t i = 0; i < c.poses.size(); ++i) {
        const double a = row.answer(c, c.poses[i]);
        const double e = row.query == Query::Distance ? std::abs(a - exact[i])
                                                      : std::abs(a - (exact[i] <= 0.0 ? 1.0 : 0.0));
        max_error = std::max(max_error, e);
        off += e > (row.query == Query::Distance ? 1e-6 : 0.0) ? 1 : 0;
      }
      std::printf("| %s | %s | %s | %zu | %d | %d | %.3g | %d |\n", c.name.c_str(),
                  to_string(row.query), row.engine, c.poses.size(), touching, near, max_error, off);
      std::fflush(stdout);
    }
  }
}

}  // namespace

void register_mesh() {
  // Names are fixed (the data are built on first use, only when a mesh benchmark is selected).
  static const char* const meshes[] = {"panda_link1", "ur5_upperarm", "terrain"};
  static const char* const shapes[] = {"box", "sphere", "capsule", "polytope30"};
  static const char* const cell_shape_names[] = {"box", "capsule"};
  static const char* const engines[] = {"distance/libgjk", "distance/fcl-ccd", "distance/fcl-indep",
                                        "collide/libgjk",  "collide/fcl-ccd",  "collide/fcl-indep"};
  for (size_t m = 0; m < 3; ++m)
    for (size_t k = 0; k < 4; ++k)
      for (size_t r = 0; r < 6; ++r)
        benchmark::RegisterBenchmark(
            (std::string("mesh/") + meshes[m] + "/" + shapes[k] + "/" + engines[r]).c_str(),
            [m, k, r](benchmark::State& state) {
              const MeshCase& c = *mesh_cases()[m];
              time_row(state, rows(c.mesh, c.fcl.get())[r], mesh_shapes()[k], c.poses);
            });
  for (size_t k = 0; k < 2; ++k)
    for (size_t r = 0; r < 6; ++r)
      benchmark::RegisterBenchmark(
          (std::string("octree/") + cell_shape_names[k] + "/" + engines[r]).c_str(),
          [k, r](benchmark::State& state) {
            const CellCase& c = cell_case();
            time_row(state, rows(c.cells, c.fcl.get())[r], cell_shapes()[k], c.poses);
          });
  static const char* const link_case_names[] = {"panda_link1_vs_shelf", "panda_hand_vs_terrain",
                                                "panda_hand_vs_octree"};
  for (size_t m = 0; m < 3; ++m)
    for (size_t r = 0; r < 4; ++r)
      benchmark::RegisterBenchmark(
          (std::string("meshpair/") + link_case_names[m] + "/" + to_string(kLinkRows[r].query) +
           "/" + kLinkRows[r].engine)
              .c_str(),
          [m, r](benchmark::State& state) {
            const LinkCase& c = link_cases()[m];
            time_pairs(state, c.poses, [&](const Pose& p) { return kLinkRows[r].answer(c, p); });
          });
}

void check_mesh() {
  std::printf(
      "\n## Meshes and occupancy: agreement with brute force over every primitive\n\n"
      "| target | shape | query | engine | reference | poses | touching | within 0.05 m | "
      "max abs error | off (> 1e-6 m / wrong) |\n|---|---|---|---|---|---:|---:|---:|---:|---:|\n");
  for (const auto& c : mesh_cases()) {
    const std::vector<Pose> identity(c->triangles.size(), Pose::Identity());
    const auto& v = c->mesh.vertices();
    const auto& t = c->mesh.triangles();
    check_rows(c->name, mesh_shapes(), rows(c->mesh, c->fcl.get()), c->poses, c->triangles,
               identity, c->mesh.tree(), [&](const Vec3& p, size_t i) {
                 return point_triangle(p, v[t[i][0]], v[t[i][1]], v[t[i][2]]);
               });
  }
  const CellCase& c = cell_case();
  std::vector<gjk::Shape> boxes;
  std::vector<Pose> at;
  for (size_t i = 0; i < c.cells.centres().size(); ++i) {
    boxes.emplace_back(gjk::Box{c.cells.half_extents()[i]});
    Pose p = Pose::Identity();
    p.translation() = c.cells.centres()[i];
    at.push_back(p);
  }
  check_rows(c.name, cell_shapes(), rows(c.cells, c.fcl.get()), c.poses, boxes, at, c.cells.tree(),
             [&](const Vec3& p, size_t i) {
               return point_box(p, c.cells.centres()[i], c.cells.half_extents()[i]);
             });
  check_link_cases();
}

}  // namespace bench
