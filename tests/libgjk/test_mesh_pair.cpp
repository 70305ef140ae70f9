// Exactness of the mesh-vs-mesh and mesh-vs-cells queries (gjk/mesh_pair.hpp, issue 17 item 1)
// against brute force over every pair of primitives with engine-free references: the distance
// of two triangles from their vertex-triangle and edge-edge pairs plus an edge-crosses-triangle
// test, the distance of a triangle and a box likewise, and the penetration depths of both from
// the separating-axis candidates (the facet normals of the Minkowski difference). Thousands of
// random poses: far, near, touching at a vertex, overlapping, one mesh inside the other's box,
// coplanar faces touching, zero-area triangles, closed meshes (tessellated sphere and box, the
// shelf of robots/scenes) and open ones (terrain, triangle soup), and the swapped call. The
// node volumes of the distance descent (rectangle swept spheres) are checked on their own: each
// contains its node's triangles, and their pair bound never exceeds the brute-force distance.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "reference.hpp"

#include "gjk/mesh_pair.hpp"
#include "rss.hpp"  // libgjk/src: the node volumes' bound, tested against brute force

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {

using gjk::Aabb;
using gjk::BoxSet;
using gjk::MeshPairHit;
using gjk::Pose;
using gjk::TriangleMesh;
using gjk::Vec3;
using namespace gjk::testing;
using Tri = std::array<Vec3, 3>;
using Indices = std::vector<std::array<std::uint32_t, 3>>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- Meshes ----------------------------------------------------------------------------------

/// A closed UV sphere: `rings` latitude bands, `segments` around, one vertex per pole.
TriangleMesh uv_sphere(double radius, int rings, int segments) {
  std::vector<Vec3> v{Vec3(0, 0, radius), Vec3(0, 0, -radius)};
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const double theta = M_PI * i / rings, phi = 2.0 * M_PI * j / segments;
      v.emplace_back(radius * std::sin(theta) * std::cos(phi),
                     radius * std::sin(theta) * std::sin(phi), radius * std::cos(theta));
    }
  const auto at = [segments](int i, int j) {
    return static_cast<std::uint32_t>(2 + (i - 1) * segments + (j % segments));
  };
  Indices t;
  for (int j = 0; j < segments; ++j) {
    t.push_back({0, at(1, j), at(1, j + 1)});
    t.push_back({1, at(rings - 1, j + 1), at(rings - 1, j)});
    for (int i = 1; i + 1 < rings; ++i) {
      t.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      t.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  }
  return TriangleMesh::from_triangles(std::move(v), std::move(t));
}

/// A closed box surface [-h, h], each face split into n x n squares of two triangles.
TriangleMesh box_surface(const Vec3& h, int n) {
  std::vector<Vec3> v;
  Indices t;
  for (int axis = 0; axis < 3; ++axis)
    for (const double side : {-1.0, 1.0}) {
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      const auto base = static_cast<std::uint32_t>(v.size());
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
          Vec3 p;
          p[axis] = side * h[axis];
          p[u] = h[u] * (-1.0 + 2.0 * i / n);
          p[w] = h[w] * (-1.0 + 2.0 * j / n);
          v.push_back(p);
        }
      const auto id = [base, n](int i, int j) {
        return base + static_cast<std::uint32_t>(i * (n + 1) + j);
      };
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          t.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
          t.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
        }
    }
  return TriangleMesh::from_triangles(std::move(v), std::move(t));
}

/// An open height field z = bump sin(3x) cos(4y) over [-1, 1]^2 (bump 0: a flat square).
TriangleMesh terrain(int n, double bump, double half = 1.0) {
  std::vector<Vec3> v;
  Indices t;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      const double x = half * (-1.0 + 2.0 * i / n), y = half * (-1.0 + 2.0 * j / n);
      v.emplace_back(x, y, bump * std::sin(3.0 * x) * std::cos(4.0 * y));
    }
  const auto id = [n](int i, int j) { return static_cast<std::uint32_t>(i * (n + 1) + j); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      t.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      t.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return TriangleMesh::from_triangles(std::move(v), std::move(t));
}

/// Random triangles in [-0.6, 0.6]^3, a fifth of them zero-area (a segment: the third vertex
/// at the first one's position, or exactly at the middle of the first edge) and some slivers.
TriangleMesh soup(Rng& rng, int count) {
  std::vector<Vec3> v;
  Indices t;
  for (int k = 0; k < count; ++k) {
    const Vec3 c(rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6));
    const double size = rng.log_uniform(0.02, 0.5);
    const auto base = static_cast<std::uint32_t>(v.size());
    v.push_back(c + size * rng.unit_vector());
    v.push_back(c + size * rng.unit_vector());
    const double kind = rng.uniform01();
    if (kind < 0.1) {
      v.push_back(v[base]);  // a segment (distinct index, same position)
    } else if (kind < 0.2) {
      v.push_back(0.5 * (v[base] + v[base + 1]));  // collinear
    } else if (kind < 0.3) {
      v.push_back(0.5 * (v[base] + v[base + 1]) + 1e-7 * rng.unit_vector());  // sliver
    } else {
      v.push_back(c + size * rng.unit_vector());
    }
    t.push_back({base, base + 1, base + 2});
  }
  return TriangleMesh::from_triangles(std::move(v), std::move(t));
}

/// A binary STL (robots/scenes/meshes/shelf.stl), identical vertices joined.
TriangleMesh read_stl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  char header[80];
  std::uint32_t count = 0;
  in.read(header, 80);
  in.read(reinterpret_cast<char*>(&count), 4);
  std::vector<Vec3> v;
  Indices t;
  std::map<std::tuple<float, float, float>, std::uint32_t> index;
  for (std::uint32_t f = 0; f < count && in.good(); ++f) {
    float data[12];
    std::uint16_t attributes = 0;
    in.read(reinterpret_cast<char*>(data), sizeof data);
    in.read(reinterpret_cast<char*>(&attributes), 2);
    std::array<std::uint32_t, 3> tri{};
    for (int k = 0; k < 3; ++k) {
      const auto key = std::make_tuple(data[3 + 3 * k], data[4 + 3 * k], data[5 + 3 * k]);
      const auto [it, fresh] = index.emplace(key, static_cast<std::uint32_t>(v.size()));
      if (fresh) v.emplace_back(std::get<0>(key), std::get<1>(key), std::get<2>(key));
      tri[static_cast<size_t>(k)] = it->second;
    }
    if (tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2]) t.push_back(tri);
  }
  return TriangleMesh::from_triangles(std::move(v), std::move(t));
}

// ---- Engine-free references ------------------------------------------------------------------

Tri world_triangle(const TriangleMesh& m, const Pose& pose, size_t i) {
  const auto& t = m.triangles()[i];
  return {pose * m.vertices()[t[0]], pose * m.vertices()[t[1]], pose * m.vertices()[t[2]]};
}

/// Whether segment [s0, s1] crosses the plane of triangle t at a point of t (coplanar segments
/// are left to the edge-edge and vertex-triangle distances, which are 0 when they meet).
bool segment_crosses(const Vec3& s0, const Vec3& s1, const Tri& t) {
  const Vec3 n = (t[1] - t[0]).cross(t[2] - t[0]);
  const double d0 = n.dot(s0 - t[0]), d1 = n.dot(s1 - t[0]);
  if ((d0 > 0.0 && d1 > 0.0) || (d0 < 0.0 && d1 < 0.0) || d0 == d1) return false;
  const Vec3 x = s0 + (d0 / (d0 - d1)) * (s1 - s0);
  // Inside when on the inner side of every edge (signs along n, so the point's rounding off the
  // plane does not matter); a crossing right at an edge is also found by the edge-edge
  // distances.
  for (size_t e = 0; e < 3; ++e)
    if (n.dot((t[(e + 1) % 3] - t[e]).cross(x - t[e])) < 0.0) return false;
  return true;
}

/// Distance between two (possibly zero-area) triangles: 0 when an edge of one crosses the
/// other, else the least vertex-triangle or edge-edge distance (the closest points of two convex
/// polygons lie on such a pair).
double triangle_distance(const Tri& p, const Tri& q) {
  for (size_t e = 0; e < 3; ++e) {
    if (segment_crosses(p[e], p[(e + 1) % 3], q) || segment_crosses(q[e], q[(e + 1) % 3], p))
      return 0.0;
  }
  double d = kInf;
  for (size_t i = 0; i < 3; ++i) {
    d = std::min(d, (p[i] - closest_point_on_triangle(p[i], q[0], q[1], q[2])).norm());
    d = std::min(d, (q[i] - closest_point_on_triangle(q[i], p[0], p[1], p[2])).norm());
    for (size_t j = 0; j < 3; ++j) {
      Vec3 on_p, on_q;
      closest_points_between_segments(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3], on_p, on_q);
      d = std::min(d, (on_p - on_q).norm());
    }
  }
  return d;
}

/// A convex body for the depth oracle: its points, the normals of its faces and its edges.
struct Polytope {
  std::vector<Vec3> points;
  std::vector<Vec3> face_normals;
  std::vector<Vec3> edges;
  double support(const Vec3& u) const {
    double s = -kInf;
    for (const Vec3& p : points) s = std::max(s, p.dot(u));
    return s;
  }
};

Polytope triangle_polytope(const Tri& t) {
  Polytope p;
  p.points.assign(t.begin(), t.end());
  const Vec3 n = (t[1] - t[0]).cross(t[2] - t[0]);
  if (n.norm() > 0.0) p.face_normals.push_back(n);
  for (size_t e = 0; e < 3; ++e) p.edges.push_back(t[(e + 1) % 3] - t[e]);
  return p;
}

/// Penetration depth of two overlapping convex polytopes: the least support of A - B over the
/// candidate facet normals of A - B (faces of each, both ways, and edge-edge cross products),
/// which is the minimum translation that separates them. 0 when no candidate exists (collinear
/// segments, whose difference is flat in every direction).
double depth(const Polytope& a, const Polytope& b) {
  std::vector<Vec3> axes = a.face_normals;
  axes.insert(axes.end(), b.face_normals.begin(), b.face_normals.end());
  for (const Vec3& ea : a.edges)
    for (const Vec3& eb : b.edges) {
      const Vec3 c = ea.cross(eb);
      if (c.norm() > 1e-12 * ea.norm() * eb.norm()) axes.push_back(c);
    }
  double best = kInf;
  for (Vec3 u : axes) {
    u.normalize();
    for (const Vec3& w : {u, Vec3(-u)}) best = std::min(best, a.support(w) + b.support(-w));
  }
  return axes.empty() ? 0.0 : std::max(0.0, best);
}

/// A box of a BoxSet in the world: centre, axes (columns) and half extents.
struct WorldBox {
  Vec3 centre;
  Eigen::Matrix3d axes;
  Vec3 half;
  Vec3 corner(int i) const {
    return centre + axes * Vec3(i & 1 ? half.x() : -half.x(), i & 2 ? half.y() : -half.y(),
                                i & 4 ? half.z() : -half.z());
  }
  double distance_to(const Vec3& p) const {
    const Vec3 local = axes.transpose() * (p - centre);
    return (local.cwiseAbs() - half).cwiseMax(0.0).norm();
  }
  Polytope polytope() const {
    Polytope p;
    for (int i = 0; i < 8; ++i) p.points.push_back(corner(i));
    for (int k = 0; k < 3; ++k) {
      p.face_normals.push_back(axes.col(k));
      p.edges.push_back(axes.col(k));
    }
    return p;
  }
};

/// Signed distance of a triangle and a solid box: when some candidate axis separates them, the
/// least vertex-box, corner-triangle or edge-edge distance; else minus the depth.
double triangle_box_signed(const Tri& t, const WorldBox& box) {
  const Polytope tp = triangle_polytope(t), bp = box.polytope();
  // Separating axes of a triangle and a box: the box's faces, the triangle's normal, and edge
  // cross products; the support gap along each is <= 0 for some axis iff they are apart.
  std::vector<Vec3> axes = bp.face_normals;
  axes.insert(axes.end(), tp.face_normals.begin(), tp.face_normals.end());
  for (const Vec3& ea : tp.edges)
    for (const Vec3& eb : bp.edges) {
      const Vec3 c = ea.cross(eb);
      if (c.norm() > 1e-12 * ea.norm() * eb.norm()) axes.push_back(c);
    }
  bool separated = false;
  for (Vec3 u : axes) {
    u.normalize();
    for (const Vec3& w : {u, Vec3(-u)}) separated |= tp.support(w) + bp.support(-w) < 0.0;
  }
  if (!separated) return -depth(tp, bp);
  double d = kInf;
  for (const Vec3& p : t) d = std::min(d, box.distance_to(p));
  static constexpr int kEdges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                        {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (int i = 0; i < 8; ++i) {
    const Vec3 c = box.corner(i);
    d = std::min(d, (c - closest_point_on_triangle(c, t[0], t[1], t[2])).norm());
  }
  for (const auto& e : kEdges)
    for (size_t j = 0; j < 3; ++j) {
      Vec3 on_p, on_q;
      closest_points_between_segments(box.corner(e[0]), box.corner(e[1]), t[j], t[(j + 1) % 3],
                                      on_p, on_q);
      d = std::min(d, (on_p - on_q).norm());
    }
  return d;
}

struct Expected {
  double distance = kInf;
  double signed_distance = kInf;
};

Expected brute_force(const TriangleMesh& a, const Pose& pa, const TriangleMesh& b, const Pose& pb) {
  std::vector<Tri> tb;
  for (size_t j = 0; j < b.triangles().size(); ++j) tb.push_back(world_triangle(b, pb, j));
  Expected e;
  for (size_t i = 0; i < a.triangles().size(); ++i) {
    const Tri p = world_triangle(a, pa, i);
    for (const Tri& q : tb) {
      const double d = triangle_distance(p, q);
      e.distance = std::min(e.distance, d);
      e.signed_distance = std::min(
          e.signed_distance, d > 0.0 ? d : -depth(triangle_polytope(p), triangle_polytope(q)));
    }
  }
  return e;
}

Expected brute_force(const TriangleMesh& a, const Pose& pa, const BoxSet& cells, const Pose& pc) {
  Expected e;
  for (size_t i = 0; i < a.triangles().size(); ++i) {
    const Tri p = world_triangle(a, pa, i);
    for (size_t k = 0; k < cells.centres().size(); ++k) {
      const WorldBox box{pc * cells.centres()[k], pc.linear(), cells.half_extents()[k]};
      e.signed_distance = std::min(e.signed_distance, triangle_box_signed(p, box));
    }
  }
  e.distance = std::max(0.0, e.signed_distance);
  return e;
}

// ---- Poses -----------------------------------------------------------------------------------

Pose translated(const Vec3& t) {
  Pose p = Pose::Identity();
  p.translation() = t;
  return p;
}

Vec3 world_vertex(Rng& rng, const TriangleMesh& m, const Pose& pose) {
  const auto i = static_cast<size_t>(rng.uniform_int(0, static_cast<int>(m.vertices().size()) - 1));
  return pose * m.vertices()[i];
}

/// B's pose for a trial with A at pose_a: far, near a vertex of A (B's vertex placed on it,
/// touching there, possibly crossing elsewhere, or moved off by a small gap), inside A's box,
/// or at random around A.
Pose sample_pose_b(Rng& rng, int kind, const TriangleMesh& a, const Pose& pose_a,
                   const TriangleMesh& b) {
  Pose pose = Pose::Identity();
  pose.linear() = rng.rotation();
  const Aabb box = a.local_bounds();
  switch (kind) {
    case 0: {  // far
      pose.translation() = pose_a * box.center() + rng.uniform(2.5, 4.0) * rng.unit_vector();
      break;
    }
    case 1: {  // vertex on vertex, then a gap of 0 or log-uniform up to 0.1 along a random way
      const Vec3 target = world_vertex(rng, a, pose_a);
      const auto j =
          static_cast<size_t>(rng.uniform_int(0, static_cast<int>(b.vertices().size()) - 1));
      pose.translation() = target - pose.linear() * b.vertices()[j];
      if (rng.chance(0.5)) pose.translation() += rng.log_uniform(1e-9, 0.1) * rng.unit_vector();
      break;
    }
    case 2: {  // centre inside A's box
      const Vec3 lo = box.min(), hi = box.max();
      pose.translation() = pose_a * Vec3(rng.uniform(lo.x(), hi.x()), rng.uniform(lo.y(), hi.y()),
                                         rng.uniform(lo.z(), hi.z()));
      break;
    }
    default: {  // around A, up to half a size beyond its box
      const Vec3 lo = box.min().array() - 0.5, hi = box.max().array() + 0.5;
      pose.translation() = pose_a * Vec3(rng.uniform(lo.x(), hi.x()), rng.uniform(lo.y(), hi.y()),
                                         rng.uniform(lo.z(), hi.z()));
      break;
    }
  }
  return pose;
}

// ---- Checks ----------------------------------------------------------------------------------

double tolerance(double value) {
  return 1e-9 * std::max(1.0, std::abs(value));
}

double distance_to_triangle(const Vec3& p, const Tri& t) {
  return (p - closest_point_on_triangle(p, t[0], t[1], t[2])).norm();
}

/// Everything the four queries must satisfy on one pose against the brute-force answer.
void check_pair(const TriangleMesh& a, const Pose& pa, const TriangleMesh& b, const Pose& pb,
                const Expected& e, MeshPairHit& carried, const std::string& where) {
  SCOPED_TRACE(where);
  MeshPairHit hit;
  const gjk::DistanceResult d = gjk::distance(a, pa, b, pb, {}, &hit);
  ASSERT_EQ(d.status, gjk::Status::Converged);
  EXPECT_NEAR(d.distance, e.distance, tolerance(e.distance));
  ASSERT_GE(hit.primitive_a, 0);
  ASSERT_GE(hit.primitive_b, 0);
  // Witnesses on the reported triangles, as far apart as the distance.
  const Tri ta = world_triangle(a, pa, static_cast<size_t>(hit.primitive_a));
  const Tri tb = world_triangle(b, pb, static_cast<size_t>(hit.primitive_b));
  EXPECT_LT(distance_to_triangle(d.point_on_a, ta), 1e-9);
  EXPECT_LT(distance_to_triangle(d.point_on_b, tb), 1e-9);
  EXPECT_NEAR((d.point_on_b - d.point_on_a).norm(), d.distance, tolerance(d.distance));
  EXPECT_NEAR(triangle_distance(ta, tb), e.distance, tolerance(e.distance));
  EXPECT_LE(d.lower_bound, e.distance + 1e-12);
  EXPECT_GE(d.upper_bound, e.distance - tolerance(e.distance));
  if (d.distance > 1e-9) {
    EXPECT_NEAR(d.normal.norm(), 1.0, 1e-12);
    EXPECT_LT((d.normal * d.distance - (d.point_on_b - d.point_on_a)).norm(), 1e-9);
  }
  // The swapped call: same distance, witnesses swapped, normal reversed.
  MeshPairHit swapped_hit;
  const gjk::DistanceResult s = gjk::distance(b, pb, a, pa, {}, &swapped_hit);
  EXPECT_NEAR(s.distance, e.distance, tolerance(e.distance));
  ASSERT_GE(swapped_hit.primitive_a, 0);
  EXPECT_LT(distance_to_triangle(
                s.point_on_a, world_triangle(b, pb, static_cast<size_t>(swapped_hit.primitive_a))),
            1e-9);
  EXPECT_LT(distance_to_triangle(
                s.point_on_b, world_triangle(a, pa, static_cast<size_t>(swapped_hit.primitive_b))),
            1e-9);
  EXPECT_NEAR((s.point_on_b - s.point_on_a).norm(), s.distance, tolerance(s.distance));
  // Warm start from an unrelated pair (the previous trial's): the same answer.
  const gjk::DistanceResult warm = gjk::distance(a, pa, b, pb, {}, &carried);
  EXPECT_NEAR(warm.distance, e.distance, tolerance(e.distance));
  EXPECT_GE(carried.primitive_a, 0);
  // ... and from the answer itself.
  MeshPairHit same = hit;
  EXPECT_NEAR(gjk::distance(a, pa, b, pb, {}, &same).distance, e.distance, tolerance(e.distance));
  // Signed distance: minus the deepest penetration of one pair of triangles when touching.
  const gjk::SignedDistanceResult sd = gjk::signed_distance(a, pa, b, pb);
  EXPECT_NEAR(sd.signed_distance, e.signed_distance, 1e-8);
  EXPECT_NEAR(gjk::signed_distance(b, pb, a, pa).signed_distance, e.signed_distance, 1e-8);
  // Collision and thresholds agree with the exact distance away from the boundary.
  MeshPairHit contact;
  const gjk::CollisionResult c = gjk::collide(a, pa, b, pb, {}, &contact);
  if (e.distance > 1e-9) {
    EXPECT_FALSE(c.collision);
  }
  if (e.signed_distance < -1e-9) {
    EXPECT_TRUE(c.collision);
  }
  // Touching counts, with the tolerance of distance(): contact exactly when it reports 0.
  EXPECT_EQ(c.collision, d.distance == 0.0);
  if (c.collision) {
    ASSERT_GE(contact.primitive_a, 0);
    EXPECT_LT(triangle_distance(world_triangle(a, pa, static_cast<size_t>(contact.primitive_a)),
                                world_triangle(b, pb, static_cast<size_t>(contact.primitive_b))),
              1e-9);
  }
  EXPECT_EQ(gjk::collide(b, pb, a, pa).collision, c.collision);
  for (const double threshold : {0.0, 0.01, 0.1, 0.5}) {
    if (std::abs(e.distance - threshold) < 1e-9) continue;
    const gjk::ThresholdResult t = gjk::closer_than(a, pa, b, pb, threshold);
    EXPECT_EQ(t.closer, threshold == 0.0 ? c.collision : e.distance < threshold)
        << "threshold " << threshold;
    EXPECT_LE(t.lower_bound, e.distance + 1e-12);
    EXPECT_GE(t.upper_bound, e.distance - 1e-9);
  }
  // A bound (a caller's best so far): the same answer below it, +inf above it.
  for (const double bound : {0.05, 0.3}) {
    if (std::abs(e.distance - bound) < 1e-9) continue;
    MeshPairHit bounded_hit;
    const gjk::DistanceResult r = gjk::distance(a, pa, b, pb, {}, &bounded_hit, bound);
    if (e.distance < bound) {
      EXPECT_NEAR(r.distance, e.distance, tolerance(e.distance));
      EXPECT_GE(bounded_hit.primitive_a, 0);
    } else {
      EXPECT_EQ(r.distance, kInf);
      EXPECT_EQ(r.lower_bound, bound);
      EXPECT_EQ(bounded_hit.primitive_a, -1);
      EXPECT_EQ(gjk::signed_distance(a, pa, b, pb, {}, nullptr, bound).signed_distance, kInf);
    }
  }
}

struct Counts {
  int apart = 0, touching = 0, overlapping = 0;
  void add(const Expected& e) {
    (e.signed_distance < -1e-9 ? overlapping : e.distance > 1e-9 ? apart : touching) += 1;
  }
};

TEST(MeshPairQueries, EqualBruteForceOverEveryPairOfTriangles) {
  Rng rng(1717);
  const TriangleMesh sphere = uv_sphere(0.45, 6, 8);              // closed, 80 triangles
  const TriangleMesh cube = box_surface(Vec3(0.6, 0.4, 0.3), 2);  // closed, 48
  const TriangleMesh hills = terrain(6, 0.25, 0.8);               // open, 72
  const TriangleMesh junk = soup(rng, 40);                        // open, degenerate triangles
  const std::vector<std::pair<const TriangleMesh*, const TriangleMesh*>> pairs = {
      {&sphere, &cube}, {&hills, &sphere}, {&cube, &hills},   {&junk, &sphere},
      {&hills, &junk},  {&cube, &cube},    {&sphere, &sphere}};
  Counts counts;
  MeshPairHit carried{3, 5};  // valid in every mesh
  const int trials = case_count(300);
  for (size_t m = 0; m < pairs.size(); ++m) {
    const TriangleMesh& a = *pairs[m].first;
    const TriangleMesh& b = *pairs[m].second;
    for (int trial = 0; trial < trials; ++trial) {
      const Pose pa = trial % 3 == 0 ? Pose::Identity() : random_pose(rng, 2.0);
      const Pose pb = sample_pose_b(rng, trial % 4, a, pa, b);
      const Expected e = brute_force(a, pa, b, pb);
      counts.add(e);
      check_pair(a, pa, b, pb, e, carried,
                 "pair " + std::to_string(m) + " trial " + std::to_string(trial));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // The sampling must exercise every side of contact.
  EXPECT_GT(counts.apart, 600 * case_fraction());
  EXPECT_GT(counts.overlapping, 600 * case_fraction());
  EXPECT_GT(counts.touching, 30 * case_fraction());
}

TEST(MeshPairQueries, OneMeshInsideAClosedMeshIsApartFromItsSurface) {
  // Surfaces: a small sphere floating inside a closed box touches none of its triangles.
  const TriangleMesh cube = box_surface(Vec3::Ones(), 3);
  const TriangleMesh ball = uv_sphere(0.3, 8, 12);
  Rng rng(5);
  MeshPairHit carried;
  for (int trial = 0; trial < case_count(100); ++trial) {
    Pose pb = Pose::Identity();
    pb.linear() = rng.rotation();
    pb.translation() = Vec3(rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6));
    const Expected e = brute_force(cube, Pose::Identity(), ball, pb);
    ASSERT_GT(e.distance, 0.05);
    check_pair(cube, Pose::Identity(), ball, pb, e, carried, "trial " + std::to_string(trial));
  }
  const gjk::DistanceResult centred = gjk::distance(cube, Pose::Identity(), ball, Pose::Identity());
  EXPECT_NEAR(centred.distance, 0.7, 1e-12);  // a pole of the ball faces a face of the cube
}

TEST(MeshPairQueries, CoplanarFacesTouchAndStackExactly) {
  // Flat squares: coplanar and overlapping (distance 0, depth 0: any lift separates them),
  // coplanar and apart (an in-plane gap), and stacked at an exact gap along the normal; and a
  // flat square lying on the top face of a box surface.
  const TriangleMesh square = terrain(3, 0.0, 0.5);
  const TriangleMesh cube = box_surface(Vec3(0.5, 0.5, 0.5), 2);
  Rng rng(11);
  MeshPairHit carried;
  int touching = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Pose pb = Pose::Identity();
    pb.linear() = Eigen::AngleAxisd(rng.uniform(0, 2 * M_PI), Vec3::UnitZ()).toRotationMatrix();
    const double lift = trial % 3 == 0 ? 0.0 : trial % 3 == 1 ? 0.5 : rng.uniform(0.0, 0.2);
    pb.translation() = Vec3(rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2), lift);
    const TriangleMesh& a = trial % 3 == 1 ? cube : square;
    const Expected e = brute_force(a, Pose::Identity(), square, pb);
    touching += e.distance == 0.0 ? 1 : 0;
    check_pair(a, Pose::Identity(), square, pb, e, carried, "trial " + std::to_string(trial));
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(touching, 60);
  // Stacked exactly: the distance is the lift, the signed distance too.
  EXPECT_NEAR(
      gjk::distance(square, Pose::Identity(), square, translated(Vec3(0.1, 0.2, 0.25))).distance,
      0.25, 1e-15);
  // Coplanar overlapping: touching, depth 0.
  const auto sd =
      gjk::signed_distance(square, Pose::Identity(), square, translated(Vec3(0.3, 0, 0)));
  EXPECT_NEAR(sd.signed_distance, 0.0, 1e-12);
  EXPECT_TRUE(
      gjk::collide(square, Pose::Identity(), square, translated(Vec3(0.3, 0, 0))).collision);
}

TEST(MeshPairQueries, ShelfAgainstALinkSizedMesh) {
  // The shelf of the Panda cell (96 triangles, closed compartments) against a tessellated box
  // of a link's size, placed inside compartments, against boards and around.
  const TriangleMesh shelf = read_stl(GJK_SHELF_STL);
  const TriangleMesh link = box_surface(Vec3(0.04, 0.05, 0.12), 1);
  Rng rng(23);
  MeshPairHit carried;
  Counts counts;
  for (int trial = 0; trial < 400; ++trial) {
    const Pose pb = sample_pose_b(rng, 1 + trial % 3, shelf, Pose::Identity(), link);
    const Expected e = brute_force(shelf, Pose::Identity(), link, pb);
    counts.add(e);
    check_pair(shelf, Pose::Identity(), link, pb, e, carried, "trial " + std::to_string(trial));
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(counts.apart, 100);
  EXPECT_GT(counts.overlapping, 50);
}

// ---- Mesh against cells ----------------------------------------------------------------------

void check_cells(const TriangleMesh& a, const Pose& pa, const BoxSet& cells, const Pose& pc,
                 const Expected& e, MeshPairHit& carried, const std::string& where) {
  SCOPED_TRACE(where);
  MeshPairHit hit;
  const gjk::DistanceResult d = gjk::distance(a, pa, cells, pc, {}, &hit);
  ASSERT_EQ(d.status, gjk::Status::Converged);
  EXPECT_NEAR(d.distance, e.distance, tolerance(e.distance));
  ASSERT_GE(hit.primitive_a, 0);
  ASSERT_GE(hit.primitive_b, 0);
  const Tri ta = world_triangle(a, pa, static_cast<size_t>(hit.primitive_a));
  const auto k = static_cast<size_t>(hit.primitive_b);
  const WorldBox box{pc * cells.centres()[k], pc.linear(), cells.half_extents()[k]};
  EXPECT_LT(distance_to_triangle(d.point_on_a, ta), 1e-9);
  EXPECT_LT(box.distance_to(d.point_on_b), 1e-9);
  EXPECT_NEAR((d.point_on_b - d.point_on_a).norm(), d.distance, tolerance(d.distance));
  EXPECT_NEAR(std::max(0.0, triangle_box_signed(ta, box)), e.distance, tolerance(e.distance));
  EXPECT_NEAR(gjk::distance(a, pa, cells, pc, {}, &carried).distance, e.distance,
              tolerance(e.distance));
  EXPECT_NEAR(gjk::signed_distance(a, pa, cells, pc).signed_distance, e.signed_distance, 1e-8);
  const gjk::CollisionResult c = gjk::collide(a, pa, cells, pc);
  if (e.distance > 1e-9) {
    EXPECT_FALSE(c.collision);
  }
  if (e.signed_distance < -1e-9) {
    EXPECT_TRUE(c.collision);
  }
  EXPECT_EQ(c.collision, d.distance == 0.0);
  for (const double threshold : {0.0, 0.02, 0.2}) {
    if (std::abs(e.distance - threshold) < 1e-9) continue;
    const gjk::ThresholdResult t = gjk::closer_than(a, pa, cells, pc, threshold);
    EXPECT_EQ(t.closer, threshold == 0.0 ? c.collision : e.distance < threshold)
        << "threshold " << threshold;
    EXPECT_LE(t.lower_bound, e.distance + 1e-12);
  }
  if (e.distance > 0.05 + 1e-9) {
    EXPECT_EQ(gjk::distance(a, pa, cells, pc, {}, nullptr, 0.05).distance, kInf);
  } else if (e.distance < 0.05 - 1e-9) {
    EXPECT_NEAR(gjk::distance(a, pa, cells, pc, {}, nullptr, 0.05).distance, e.distance,
                tolerance(e.distance));
  }
}

TEST(MeshCellQueries, EqualBruteForceOverEveryTriangleAndCell) {
  Rng rng(2929);
  // A voxel blob: 0.1 m cells on a grid, some coarser (merged) cells like an octree's.
  std::vector<Vec3> centres, halves;
  for (int k = 0; k < 120; ++k) {
    const Vec3 cell(rng.uniform_int(-6, 6), rng.uniform_int(-6, 6), rng.uniform_int(-3, 3));
    const bool coarse = rng.chance(0.1);
    centres.push_back(0.1 * cell + (coarse ? Vec3::Constant(0.05) : Vec3::Zero()));
    halves.push_back(Vec3::Constant(coarse ? 0.1 : 0.05));
  }
  const BoxSet cells = BoxSet::from_boxes(centres, halves);
  const TriangleMesh ball = uv_sphere(0.2, 5, 6);   // closed, 48 triangles
  const TriangleMesh plate = terrain(4, 0.1, 0.3);  // open, 32
  const TriangleMesh junk = soup(rng, 30);          // degenerate triangles
  const TriangleMesh cells_mesh_for_bounds = box_surface(Vec3(0.65, 0.65, 0.35), 1);
  Counts counts;
  MeshPairHit carried{2, 4};
  int trial = 0;
  for (const TriangleMesh* a : {&ball, &plate, &junk}) {
    for (int k = 0; k < case_count(150); ++k, ++trial) {
      const Pose pc = trial % 2 == 0 ? Pose::Identity() : random_pose(rng, 0.5);
      // A around the cells (the cells' box as the anchor mesh), sometimes on a cell's corner.
      Pose pa = sample_pose_b(rng, 1 + trial % 3, cells_mesh_for_bounds, pc, *a);
      if (trial % 5 == 0) {
        const auto i =
            static_cast<size_t>(rng.uniform_int(0, static_cast<int>(centres.size()) - 1));
        const auto j =
            static_cast<size_t>(rng.uniform_int(0, static_cast<int>(a->vertices().size()) - 1));
        pa.translation() = pc * (centres[i] + halves[i]) - pa.linear() * a->vertices()[j];
      }
      const Expected e = brute_force(*a, pa, cells, pc);
      counts.add(e);
      check_cells(*a, pa, cells, pc, e, carried, "trial " + std::to_string(trial));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  EXPECT_GT(counts.apart, 100 * case_fraction());
  EXPECT_GT(counts.overlapping, 100 * case_fraction());
}

// ---- Node volumes (rectangle swept spheres) of the distance descent ---------------------------

/// The triangles under each node of a mesh's tree (a subtree is a contiguous run of nodes).
std::vector<std::vector<std::uint32_t>> node_triangles(const TriangleMesh& m) {
  const auto& nodes = m.tree().nodes();
  std::vector<std::uint32_t> end(nodes.size());
  for (size_t i = nodes.size(); i-- > 0;)
    end[i] = nodes[i].leaf ? static_cast<std::uint32_t>(i + 1) : end[nodes[i].index];
  std::vector<std::vector<std::uint32_t>> out(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    for (size_t j = i; j < end[i]; ++j)
      if (nodes[j].leaf) out[i].push_back(nodes[j].index);
  return out;
}

/// Distance from p to the volume's rectangle, from its coordinates in the volume's frame.
double distance_to_rectangle(const gjk::RectangleSweptSphere& v, const Vec3& p) {
  const Vec3 x = v.axes.transpose() * (p - v.centre);
  const double du = std::max(0.0, std::abs(x.x()) - v.half_u);
  const double dv = std::max(0.0, std::abs(x.y()) - v.half_v);
  return std::sqrt(du * du + dv * dv + x.z() * x.z());
}

TEST(MeshNodeVolumes, ContainEveryTriangleOfTheirNode) {
  Rng rng(91);
  const std::vector<TriangleMesh> meshes = {
      uv_sphere(0.45, 6, 8), box_surface(Vec3(0.6, 0.4, 0.3), 2), terrain(6, 0.25, 0.8),
      soup(rng, 40), read_stl(GJK_SHELF_STL)};
  for (size_t m = 0; m < meshes.size(); ++m) {
    const TriangleMesh& mesh = meshes[m];
    const auto& volumes = mesh.node_volumes();
    ASSERT_EQ(volumes.size(), mesh.tree().nodes().size());
    const auto under = node_triangles(mesh);
    for (size_t i = 0; i < volumes.size(); ++i) {
      const auto& v = volumes[i];
      // Orthonormal axes: the bound projects on them as on a rotation's.
      ASSERT_LT((v.axes.transpose() * v.axes - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(),
                1e-14)
          << "mesh " << m << " node " << i;
      for (const std::uint32_t t : under[i])
        for (const std::uint32_t k : mesh.triangles()[t]) {
          ASSERT_LE(distance_to_rectangle(v, mesh.vertices()[k]), v.radius)
              << "mesh " << m << " node " << i << " triangle " << t;
        }
    }
    // Leaves are single triangles: flat, so their radius is only the padding.
    for (size_t i = 0; i < volumes.size(); ++i)
      if (mesh.tree().nodes()[i].leaf) {
        EXPECT_LT(volumes[i].radius, 1e-9) << "mesh " << m << " leaf " << i;
      }
  }
}

TEST(MeshNodeVolumes, PairBoundNeverExceedsTheDistanceOfTheNodesTriangles) {
  // Random pairs of nodes (one per mesh) under random poses, far, near, touching at a vertex
  // and overlapping: the bound of the two volumes (each carried to the world frame, as the
  // descent carries one into the other's frame) against the least distance over every pair of
  // their triangles (engine-free), and with a limit (the early exit must stay a lower bound).
  Rng rng(4242);
  const TriangleMesh sphere = uv_sphere(0.45, 6, 8);
  const TriangleMesh cube = box_surface(Vec3(0.6, 0.4, 0.3), 2);
  const TriangleMesh hills = terrain(6, 0.25, 0.8);
  const TriangleMesh junk = soup(rng, 40);
  const TriangleMesh shelf = read_stl(GJK_SHELF_STL);
  const std::vector<std::pair<const TriangleMesh*, const TriangleMesh*>> pairs = {
      {&sphere, &cube}, {&hills, &sphere}, {&cube, &hills}, {&junk, &sphere},
      {&hills, &junk},  {&cube, &cube},    {&shelf, &cube}};
  const int trials = case_count(300, 20);
  int checked = 0, touching = 0, sharp = 0, sharp_projected = 0;
  for (size_t m = 0; m < pairs.size(); ++m) {
    const TriangleMesh& a = *pairs[m].first;
    const TriangleMesh& b = *pairs[m].second;
    const auto under_a = node_triangles(a);
    const auto under_b = node_triangles(b);
    const int last_a = static_cast<int>(under_a.size()) - 1;
    const int last_b = static_cast<int>(under_b.size()) - 1;
    for (int trial = 0; trial < trials; ++trial) {
      const Pose pa = trial % 3 == 0 ? Pose::Identity() : random_pose(rng, 2.0);
      const Pose pb = sample_pose_b(rng, trial % 4, a, pa, b);
      for (int k = 0; k < 4; ++k) {
        // Small subtrees and large alike: uniform over nodes, and the roots for the poses that
        // touch at a vertex or put B inside A's box (kinds 1 and 2 of sample_pose_b).
        const bool roots = k == 0 && (trial % 4 == 1 || trial % 4 == 2);
        const auto i = static_cast<size_t>(roots ? 0 : rng.uniform_int(0, last_a));
        const auto j = static_cast<size_t>(roots ? 0 : rng.uniform_int(0, last_b));
        double d = kInf;
        for (const std::uint32_t ta : under_a[i])
          for (const std::uint32_t tb : under_b[j])
            d = std::min(d,
                         triangle_distance(world_triangle(a, pa, ta), world_triangle(b, pb, tb)));
        const auto va = gjk::detail::carry(a.node_volumes()[i], pa.linear(), pa.translation());
        const auto vb = gjk::detail::carry(b.node_volumes()[j], pb.linear(), pb.translation());
        const double bound = gjk::detail::rss_lower_bound(va, vb);
        ASSERT_LE(bound, d) << "pair " << m << " trial " << trial << " nodes " << i << ", " << j;
        ASSERT_NEAR(bound, gjk::detail::rss_lower_bound(vb, va), 1e-12);  // either way round
        const double limit = rng.uniform(0.0, 2.0 * d + 0.1);
        ASSERT_LE(gjk::detail::rss_lower_bound(va, vb, limit), d)
            << "pair " << m << " trial " << trial << " limit " << limit;
        ASSERT_GE(bound, 0.0);
        // The distance descent's bound: along one alternating projection's direction.
        const double projected = gjk::detail::rss_projection_bound(va, vb);
        ASSERT_LE(projected, d) << "pair " << m << " trial " << trial << " nodes " << i << ", "
                                << j;
        ASSERT_LE(gjk::detail::rss_projection_bound(vb, va), d);
        ASSERT_LE((gjk::detail::rss_projection_bound<3>(va, vb)), d);
        ASSERT_GE(projected, 0.0);
        ++checked;
        touching += d == 0.0 ? 1 : 0;
        sharp += d > 0.0 && bound > 0.5 * d ? 1 : 0;
        sharp_projected += d > 0.0 && projected > 0.5 * d ? 1 : 0;
      }
    }
  }
  // Every side of contact, and a bound that is not trivially 0.
  RecordProperty("node_pairs", checked);
  RecordProperty("touching", touching);
  RecordProperty("bound_above_half", sharp);
  RecordProperty("projection_bound_above_half", sharp_projected);
  EXPECT_GT(checked, 8000 * case_fraction());  // 7 x 300 x 4
  EXPECT_GT(touching, 500 * case_fraction());
  EXPECT_GT(sharp, 1000 * case_fraction());
  EXPECT_GT(sharp_projected, 1000 * case_fraction());
}

TEST(MeshNodeVolumes, FlatAndDegenerateSetsFitTightly) {
  // Coplanar triangles (a flat patch at any orientation), collinear points (zero-area
  // triangles on one line) and a single repeated point: the fit must stay finite and
  // orthonormal, flat sets must get a radius of only the padding.
  Rng rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Matrix3d r = rng.rotation();
    const Vec3 t = rng.uniform(-3.0, 3.0) * rng.unit_vector();
    std::vector<Vec3> flat, line;
    for (int k = 0; k < 12; ++k) {
      flat.push_back(r * Vec3(rng.uniform(-1.0, 1.0), rng.uniform(-0.2, 0.2), 0.0) + t);
      line.push_back(r * Vec3(rng.uniform(-1.0, 1.0), 0.0, 0.0) + t);
    }
    std::vector<Vec3> point(5, t);
    for (const std::vector<Vec3>* set : {&flat, &line, &point}) {
      const auto v = gjk::detail::fit_rss(set->data(), set->size());
      ASSERT_TRUE(v.axes.allFinite() && v.centre.allFinite());
      ASSERT_LT((v.axes.transpose() * v.axes - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(),
                1e-14);
      EXPECT_LT(v.radius, 1e-9) << "trial " << trial;
      for (const Vec3& p : *set) {
        ASSERT_LE(distance_to_rectangle(v, p), v.radius) << "trial " << trial;
      }
    }
    // Two parallel flat patches: the bound is their gap, exactly up to rounding.
    std::vector<Vec3> above;
    for (const Vec3& p : flat) above.push_back(p + 0.3 * r.col(2));
    const auto lower = gjk::detail::fit_rss(flat.data(), flat.size());
    const auto upper = gjk::detail::fit_rss(above.data(), above.size());
    EXPECT_NEAR(gjk::detail::rss_lower_bound(lower, upper), 0.3, 1e-9) << "trial " << trial;
    EXPECT_NEAR(gjk::detail::rss_projection_bound(lower, upper), 0.3, 1e-9) << "trial " << trial;
  }
}

TEST(MeshNodeVolumes, CrossedEdgesBoundIsTheirDistance) {
  // Two flat rectangles whose nearest features are two crossing edges (the rectangles lie on
  // either side of the slab between the edges' lines), at any orientation: the distance is the
  // edges' gap D, along the cross product of their directions, and no face axis of either
  // rectangle sees all of it. The bound must find it (the edge-edge axes), and never exceed it.
  Rng rng(15);
  int sharp = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Vec3 d1 = rng.unit_vector();
    Vec3 d2 = rng.unit_vector();
    if (d1.cross(d2).norm() < 0.2) continue;  // near parallel: a face axis decides
    const Vec3 n = d1.cross(d2).normalized();
    const double gap = rng.log_uniform(1e-3, 1.0);
    const Vec3 origin = rng.uniform(-3.0, 3.0) * rng.unit_vector();
    // Each rectangle spreads from its edge away from the other (a positive share of -n / +n).
    const Vec3 e1 =
        (-rng.uniform(0.2, 1.0) * n + rng.uniform(-1.0, 1.0) * n.cross(d1)).normalized();
    const Vec3 e2 = (rng.uniform(0.2, 1.0) * n + rng.uniform(-1.0, 1.0) * n.cross(d2)).normalized();
    const double l1 = rng.uniform(0.1, 1.0), l2 = rng.uniform(0.1, 1.0);
    const double w1 = rng.uniform(0.05, 1.0), w2 = rng.uniform(0.05, 1.0);
    const Vec3 p = origin - rng.uniform(-0.9, 0.9) * l1 * d1;  // edges cross inside both
    const Vec3 q = origin + gap * n - rng.uniform(-0.9, 0.9) * l2 * d2;
    const std::vector<Vec3> a = {p - l1 * d1, p + l1 * d1, p - l1 * d1 + w1 * e1,
                                 p + l1 * d1 + w1 * e1};
    const std::vector<Vec3> b = {q - l2 * d2, q + l2 * d2, q - l2 * d2 + w2 * e2,
                                 q + l2 * d2 + w2 * e2};
    const auto va = gjk::detail::fit_rss(a.data(), a.size());
    const auto vb = gjk::detail::fit_rss(b.data(), b.size());
    const double bound = gjk::detail::rss_lower_bound(va, vb);
    ASSERT_LE(bound, gap * (1.0 + 1e-12)) << "trial " << trial;
    EXPECT_GE(bound, gap - 1e-9) << "trial " << trial;
    ++sharp;
  }
  EXPECT_GT(sharp, 1500);
}

TEST(MeshPairQueries, BadPosesAreInvalidInput) {
  const TriangleMesh square = terrain(2, 0.0);
  const BoxSet cells = BoxSet::from_boxes({Vec3::Zero()}, {Vec3::Constant(0.5)});
  Pose bad = Pose::Identity();
  bad.translation().x() = NAN;
  MeshPairHit hit{0, 0};
  EXPECT_EQ(gjk::distance(square, bad, square, Pose::Identity(), {}, &hit).status,
            gjk::Status::InvalidInput);
  EXPECT_EQ(hit.primitive_a, -1);
  EXPECT_EQ(gjk::collide(square, Pose::Identity(), square, bad).status, gjk::Status::InvalidInput);
  EXPECT_EQ(gjk::closer_than(square, Pose::Identity(), cells, bad, 0.1).status,
            gjk::Status::InvalidInput);
  EXPECT_EQ(gjk::closer_than(square, Pose::Identity(), cells, Pose::Identity(), NAN).status,
            gjk::Status::InvalidInput);
  EXPECT_TRUE(
      std::isnan(gjk::signed_distance(square, bad, cells, Pose::Identity()).signed_distance));
  gjk::QueryOptions no_iterations;
  no_iterations.max_iterations = 0;
  EXPECT_EQ(gjk::distance(square, Pose::Identity(), cells, Pose::Identity(), no_iterations).status,
            gjk::Status::InvalidInput);
}

}  // namespace
