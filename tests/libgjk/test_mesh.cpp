// Exactness of the mesh and cell-set queries (issue 17 items 1-2) against brute force over every
// primitive with engine-free references: closed forms for spheres (point-triangle, point-box),
// and the qhull Minkowski-difference oracle (support/reference.hpp) for boxes and polytopes
// against each triangle or cell. Thousands of random poses per geometry, with many touching and
// overlapping cases (shapes placed on the surface, inside, and at random).
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "reference.hpp"

#include "gjk/mesh.hpp"
#include "gjk/queries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace {

using gjk::Aabb;
using gjk::BoxSet;
using gjk::Pose;
using gjk::Shape;
using gjk::TriangleMesh;
using gjk::Vec3;
using namespace gjk::testing;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A non-convex open surface: a bumpy height field z = f(x, y) over [-1, 1]^2.
TriangleMesh terrain(int n, double bump) {
  std::vector<Vec3> v;
  std::vector<std::array<std::uint32_t, 3>> t;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      const double x = -1.0 + 2.0 * i / n, y = -1.0 + 2.0 * j / n;
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

/// Random triangles in a cube, some slivers and some tiny: a soup with no structure.
TriangleMesh soup(Rng& rng, int count) {
  std::vector<Vec3> v;
  std::vector<std::array<std::uint32_t, 3>> t;
  for (int k = 0; k < count; ++k) {
    const Vec3 c(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    const double size = rng.log_uniform(0.01, 0.6);
    const auto base = static_cast<std::uint32_t>(v.size());
    v.push_back(c + size * rng.unit_vector());
    v.push_back(c + size * rng.unit_vector());
    if (rng.chance(0.1)) {  // a sliver: third vertex almost on the first edge
      v.push_back(0.5 * (v[base] + v[base + 1]) + 1e-7 * rng.unit_vector());
    } else {
      v.push_back(c + size * rng.unit_vector());
    }
    t.push_back({base, base + 1, base + 2});
  }
  return TriangleMesh::from_triangles(std::move(v), std::move(t));
}

std::vector<Vec3> box_corners(const Vec3& c, const Vec3& h) {
  std::vector<Vec3> out;
  for (int i = 0; i < 8; ++i)
    out.push_back(c + Vec3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
  return out;
}

/// A test shape: the engine's shape and, for the oracle, either a sphere (centre + radius) or
/// the points of a polytope in its own frame.
struct TestShape {
  Shape shape;
  bool is_sphere = false;
  double radius = 0.0;
  std::vector<Vec3> points;  // polytope or box corners, shape frame
};

TestShape random_shape(Rng& rng, int kind) {
  TestShape s;
  if (kind == 0) {
    s.radius = rng.uniform(0.02, 0.3);
    s.shape = gjk::Sphere{s.radius};
    s.is_sphere = true;
  } else if (kind == 1) {
    const Vec3 h(rng.uniform(0.02, 0.3), rng.uniform(0.02, 0.3), rng.uniform(0.02, 0.3));
    s.shape = gjk::Box{h};
    s.points = box_corners(Vec3::Zero(), h);
  } else {
    s.points = random_polytope_points(rng, rng.uniform_int(4, 12), PointDistribution::OnSphere,
                                      Vec3(0.25, 0.15, 0.2));
    s.shape = gjk::ConvexPolytope::from_points(s.points);
  }
  return s;
}

/// Signed distance between a solid polytope (its hull) and a triangle, engine-free: apart, the
/// minimum over vertex-triangle, vertex-polytope and edge-edge pairs (the closest points of two
/// polytopes lie on such a pair); overlapping, minus the smallest support of the Minkowski
/// difference over the separating-axis candidates (the hull's facet normals, the triangle's
/// normal both ways, and every edge-edge cross product), which is the penetration depth.
double polytope_triangle_signed(const ReferenceHull& hull, const std::array<Vec3, 3>& tri) {
  std::vector<std::pair<Vec3, Vec3>> edges;
  std::vector<Vec3> axes;
  for (const auto& f : hull.facets()) {
    axes.push_back(f.normal);
    for (int e = 0; e < 3; ++e)
      edges.emplace_back(
          hull.points()[static_cast<size_t>(f.vertex[static_cast<size_t>(e)])],
          hull.points()[static_cast<size_t>(f.vertex[static_cast<size_t>((e + 1) % 3)])]);
  }
  const Vec3 n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
  if (n.norm() > 0.0) {
    axes.push_back(n.normalized());
    axes.push_back(-n.normalized());
  }
  for (const auto& [p, q] : edges)
    for (int e = 0; e < 3; ++e) {
      const Vec3 c =
          (q - p).cross(tri[static_cast<size_t>((e + 1) % 3)] - tri[static_cast<size_t>(e)]);
      if (c.norm() > 1e-12 * (q - p).norm()) {
        axes.push_back(c.normalized());
        axes.push_back(-c.normalized());
      }
    }
  double depth = std::numeric_limits<double>::infinity();
  for (const Vec3& axis : axes) {
    const double lowest_tri = std::min({tri[0].dot(axis), tri[1].dot(axis), tri[2].dot(axis)});
    depth = std::min(depth, hull.support(axis) - lowest_tri);
  }
  if (depth >= 0.0) return -depth;  // no axis separates: overlapping (or touching)
  double d = std::numeric_limits<double>::infinity();
  for (const Vec3& p : hull.points())
    d = std::min(d, (p - closest_point_on_triangle(p, tri[0], tri[1], tri[2])).norm());
  for (const Vec3& t : tri) d = std::min(d, std::max(0.0, hull.signed_distance(t)));
  for (const auto& [p, q] : edges)
    for (int e = 0; e < 3; ++e) {
      Vec3 on_p, on_q;
      closest_points_between_segments(p, q, tri[static_cast<size_t>(e)],
                                      tri[static_cast<size_t>((e + 1) % 3)], on_p, on_q);
      d = std::min(d, (on_p - on_q).norm());
    }
  return d;
}

struct Expected {
  double signed_distance = kInf;
  double distance = kInf;
};

Expected brute_force_mesh(const TestShape& s, const Pose& pose, const TriangleMesh& mesh,
                          const Pose& mesh_pose) {
  Expected e;
  std::optional<ReferenceHull> hull;
  if (!s.is_sphere) hull = ReferenceHull::build_brute_force(transform_points(pose, s.points));
  for (const auto& t : mesh.triangles()) {
    const std::array<Vec3, 3> tri = {mesh_pose * mesh.vertices()[t[0]],
                                     mesh_pose * mesh.vertices()[t[1]],
                                     mesh_pose * mesh.vertices()[t[2]]};
    const double sd = s.is_sphere
                          ? (pose.translation() -
                             closest_point_on_triangle(pose.translation(), tri[0], tri[1], tri[2]))
                                    .norm() -
                                s.radius
                          : polytope_triangle_signed(*hull, tri);
    e.signed_distance = std::min(e.signed_distance, sd);
  }
  e.distance = std::max(0.0, e.signed_distance);
  return e;
}

Expected brute_force_cells(const TestShape& s, const Pose& pose, const BoxSet& cells) {
  // Cells in the world frame (identity set pose): the sphere's closed form is for axis-aligned
  // boxes. Polytopes against each cell by the feature oracle (no engine, no qhull).
  Expected e;
  std::optional<ReferenceHull> hull;
  if (!s.is_sphere) hull = ReferenceHull::build_brute_force(transform_points(pose, s.points));
  for (size_t i = 0; i < cells.centres().size(); ++i) {
    const Vec3 c = cells.centres()[i], h = cells.half_extents()[i];
    double sd;
    if (s.is_sphere) {
      const Vec3 p = pose.translation();
      const Vec3 q = p.cwiseMax(c - h).cwiseMin(c + h);
      const double outside = (p - q).norm();
      sd = outside > 0.0
               ? outside - s.radius
               : -(std::min((p - (c - h)).minCoeff(), ((c + h) - p).minCoeff()) + s.radius);
    } else {
      sd = feature_reference_query(*hull, ReferenceHull::build_brute_force(box_corners(c, h)))
               .signed_distance;
    }
    e.signed_distance = std::min(e.signed_distance, sd);
  }
  e.distance = std::max(0.0, e.signed_distance);
  return e;
}

/// Poses that sample far, near, touching and overlapping: centres uniform in a box slightly
/// larger than the geometry, half of them pulled onto a random primitive's vertex.
Pose sample_pose(Rng& rng, const Aabb& bounds, const std::vector<Vec3>& anchors) {
  Pose pose = Pose::Identity();
  pose.linear() = rng.rotation();
  if (rng.chance(0.5)) {
    const Vec3 lo = bounds.min().array() - 0.4, hi = bounds.max().array() + 0.4;
    pose.translation() =
        Vec3(rng.uniform(lo.x(), hi.x()), rng.uniform(lo.y(), hi.y()), rng.uniform(lo.z(), hi.z()));
  } else {
    const Vec3& a = anchors[static_cast<size_t>(rng.uniform_int(0, int(anchors.size()) - 1))];
    pose.translation() = a + rng.uniform(0.0, 0.5) * rng.unit_vector();
  }
  return pose;
}

void check_against(const char* what, const gjk::DistanceResult& d,
                   const gjk::SignedDistanceResult& sd, const gjk::CollisionResult& c,
                   const Expected& e, int trial) {
  SCOPED_TRACE(std::string(what) + " trial " + std::to_string(trial));
  ASSERT_EQ(d.status, gjk::Status::Converged);
  EXPECT_NEAR(d.distance, e.distance, 1e-9);
  EXPECT_NEAR(sd.signed_distance, e.signed_distance, 1e-8);
  if (e.distance > 1e-9) {
    EXPECT_FALSE(c.collision);
    EXPECT_NEAR((d.point_on_b - d.point_on_a).norm(), d.distance, 1e-9);
    EXPECT_LE(d.lower_bound, e.distance + 1e-12);
    EXPECT_GE(d.upper_bound, e.distance - 1e-9);
  }
  if (e.signed_distance < -1e-9) {
    EXPECT_TRUE(c.collision);
  }
}

TEST(MeshQueries, DistanceSignedDistanceAndCollisionEqualBruteForceOverEveryTriangle) {
  Rng rng(17);
  const TriangleMesh terrain_mesh = terrain(8, 0.25);
  const TriangleMesh soup_mesh = soup(rng, 60);
  int overlapping = 0, apart = 0;
  gjk::PrimitiveHit carried;  // a warm-start hint carried from trial to trial
  for (const TriangleMesh* mesh : {&terrain_mesh, &soup_mesh}) {
    carried.primitive = 7;  // valid in both meshes
    for (int trial = 0; trial < case_count(1500); ++trial) {
      const int kind = trial % 3;
      const TestShape s = random_shape(rng, kind);
      const Pose mesh_pose = trial % 2 == 0 ? Pose::Identity() : random_pose(rng, 0.5);
      std::vector<Vec3> anchors;
      for (const Vec3& v : mesh->vertices()) anchors.push_back(mesh_pose * v);
      Aabb world_bounds;
      world_bounds.setEmpty();
      for (const Vec3& a : anchors) world_bounds.extend(a);
      const Pose pose = sample_pose(rng, world_bounds, anchors);
      const Expected e = brute_force_mesh(s, pose, *mesh, mesh_pose);
      gjk::PrimitiveHit hit;
      const auto d = gjk::distance(s.shape, pose, *mesh, mesh_pose, {}, &hit);
      // Warm start with the previous trial's triangle (unrelated to this pose): same answer.
      const auto warm = gjk::distance(s.shape, pose, *mesh, mesh_pose, {}, &carried);
      EXPECT_NEAR(warm.distance, e.distance, 1e-9) << "trial " << trial;
      EXPECT_GE(carried.primitive, 0);
      const auto sd = gjk::signed_distance(s.shape, pose, *mesh, mesh_pose);
      const auto c = gjk::collide(s.shape, pose, *mesh, mesh_pose);
      check_against(kind == 0 ? "sphere" : kind == 1 ? "box" : "polytope", d, sd, c, e, trial);
      ASSERT_GE(hit.primitive, 0);
      // With a bound (a caller's best so far): the same answer below it, +inf above it.
      for (const double bound : {0.05, 0.2}) {
        if (std::abs(e.distance - bound) < 1e-9) {
          continue;
        }
        const auto bounded = gjk::distance(s.shape, pose, *mesh, mesh_pose, {}, nullptr, bound);
        const auto bounded_sd =
            gjk::signed_distance(s.shape, pose, *mesh, mesh_pose, {}, nullptr, bound);
        if (e.distance < bound) {
          EXPECT_NEAR(bounded.distance, e.distance, 1e-9) << "trial " << trial;
          EXPECT_NEAR(bounded_sd.signed_distance, e.signed_distance, 1e-8) << "trial " << trial;
        } else {
          EXPECT_EQ(bounded.distance, kInf) << "trial " << trial;
          EXPECT_EQ(bounded_sd.signed_distance, kInf) << "trial " << trial;
          EXPECT_EQ(bounded.lower_bound, bound);
        }
      }
      // Threshold 0 asks "touching or overlapping?".
      if (std::abs(e.signed_distance) > 1e-9) {
        EXPECT_EQ(gjk::closer_than(s.shape, pose, *mesh, mesh_pose, 0.0).closer,
                  e.signed_distance < 0.0)
            << "trial " << trial;
      }
      (e.signed_distance < 0 ? overlapping : apart) += 1;
      // closer_than agrees with the exact distance away from the threshold.
      for (const double threshold : {0.01, 0.1, 0.3}) {
        if (std::abs(e.distance - threshold) < 1e-9) {
          continue;
        }
        const auto t = gjk::closer_than(s.shape, pose, *mesh, mesh_pose, threshold);
        EXPECT_EQ(t.closer, e.distance < threshold) << "trial " << trial << " t " << threshold;
        EXPECT_LE(t.lower_bound, e.distance + 1e-12);
        EXPECT_GE(t.upper_bound, e.distance - 1e-9);
      }
    }
  }
  // The sampling must exercise both sides.
  EXPECT_GT(overlapping, 500 * case_fraction());
  EXPECT_GT(apart, 1000 * case_fraction());
}

TEST(MeshQueries, WitnessPointsLieOnTheShapeAndOnTheNearestTriangle) {
  Rng rng(3);
  const TriangleMesh mesh = terrain(6, 0.3);
  for (int trial = 0; trial < 500; ++trial) {
    TestShape s = random_shape(rng, 0);
    Pose pose = Pose::Identity();
    pose.translation() = Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.65, 1.2));
    gjk::PrimitiveHit hit;
    const auto d = gjk::distance(s.shape, pose, mesh, Pose::Identity(), {}, &hit);
    ASSERT_GT(d.distance, 0.0);
    const auto& tri = mesh.triangles()[static_cast<size_t>(hit.primitive)];
    const Vec3 q = closest_point_on_triangle(d.point_on_b, mesh.vertices()[tri[0]],
                                             mesh.vertices()[tri[1]], mesh.vertices()[tri[2]]);
    EXPECT_LT((q - d.point_on_b).norm(), 1e-9);
    EXPECT_NEAR((d.point_on_a - pose.translation()).norm(), s.radius, 1e-9);
    EXPECT_NEAR(d.normal.norm(), 1.0, 1e-12);
  }
}

TEST(MeshQueries, SphereInsideAClosedMeshIsApartFromItsSurface) {
  // A mesh is a surface: a ball floating inside a closed box mesh touches nothing.
  std::vector<Vec3> v = box_corners(Vec3::Zero(), Vec3::Ones());
  std::vector<std::array<std::uint32_t, 3>> t = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6},
                                                 {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7},
                                                 {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  const TriangleMesh cube = TriangleMesh::from_triangles(v, t);
  const auto d = gjk::distance(gjk::Sphere{0.5}, Pose::Identity(), cube, Pose::Identity());
  EXPECT_NEAR(d.distance, 0.5, 1e-12);
  EXPECT_FALSE(gjk::collide(gjk::Sphere{0.5}, Pose::Identity(), cube, Pose::Identity()).collision);
  EXPECT_TRUE(gjk::collide(gjk::Sphere{1.2}, Pose::Identity(), cube, Pose::Identity()).collision);
}

TEST(CellQueries, DistanceAndSignedDistanceEqualBruteForceOverEveryCell) {
  Rng rng(29);
  // A voxel blob: 0.1 m cells on a grid, plus some coarser (merged) cells like an octree's.
  std::vector<Vec3> centres, halves;
  for (int k = 0; k < 150; ++k) {
    const Vec3 cell(rng.uniform_int(-6, 6), rng.uniform_int(-6, 6), rng.uniform_int(-3, 3));
    const bool coarse = rng.chance(0.1);
    centres.push_back(0.1 * cell + (coarse ? Vec3::Constant(0.05) : Vec3::Zero()));
    halves.push_back(Vec3::Constant(coarse ? 0.1 : 0.05));
  }
  const BoxSet cells = BoxSet::from_boxes(centres, halves);
  int overlapping = 0;
  for (int trial = 0; trial < case_count(1500); ++trial) {
    const int kind = trial % 3;
    const TestShape s = random_shape(rng, kind);
    const Pose pose = sample_pose(rng, cells.local_bounds(), centres);
    const Expected e = brute_force_cells(s, pose, cells);
    const auto d = gjk::distance(s.shape, pose, cells, Pose::Identity());
    const auto sd = gjk::signed_distance(s.shape, pose, cells, Pose::Identity());
    const auto c = gjk::collide(s.shape, pose, cells, Pose::Identity());
    check_against(kind == 0 ? "sphere" : kind == 1 ? "box" : "polytope", d, sd, c, e, trial);
    overlapping += e.signed_distance < 0 ? 1 : 0;
    if (std::abs(e.signed_distance) > 1e-9) {
      EXPECT_EQ(gjk::closer_than(s.shape, pose, cells, Pose::Identity(), 0.0).closer,
                e.signed_distance < 0.0)
          << "trial " << trial;
    }
    for (const double threshold : {0.02, 0.2}) {
      if (std::abs(e.distance - threshold) < 1e-9) continue;
      EXPECT_EQ(gjk::closer_than(s.shape, pose, cells, Pose::Identity(), threshold).closer,
                e.distance < threshold)
          << "trial " << trial;
    }
  }
  EXPECT_GT(overlapping, 400 * case_fraction());
}

TEST(CellQueries, SetPoseMovesEveryCell) {
  const BoxSet cells = BoxSet::from_boxes({Vec3(1, 0, 0), Vec3(3, 0, 0)},
                                          {Vec3::Constant(0.5), Vec3::Constant(0.5)});
  Pose set_pose = Pose::Identity();
  set_pose.linear() = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()).toRotationMatrix();
  set_pose.translation() = Vec3(0, 0, 1);
  // The far cell is now centred at (0, 3, 1): a unit sphere at (0, 5, 1) is 0.5 away.
  Pose at_sphere = Pose::Identity();
  at_sphere.translation() = Vec3(0, 5, 1);
  EXPECT_NEAR(gjk::distance(gjk::Sphere{1.0}, at_sphere, cells, set_pose).distance, 0.5, 1e-12);
}

TEST(MeshQueries, BadInputIsRejectedWithTheElementNamed) {
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { TriangleMesh::from_triangles({Vec3::Zero()}, {}); }).find("no triangles"),
            std::string::npos);
  EXPECT_NE(
      message([] {
        TriangleMesh::from_triangles({Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY()}, {{0, 1, 7}});
      }).find("triangle 0 uses vertex 7"),
      std::string::npos);
  EXPECT_NE(
      message([] {
        TriangleMesh::from_triangles({Vec3::Zero(), Vec3(NAN, 0, 0), Vec3::UnitY()}, {{0, 1, 2}});
      }).find("vertex 1"),
      std::string::npos);
  EXPECT_NE(message([] { BoxSet::from_boxes({Vec3::Zero()}, {Vec3(1, 0, 1)}); }).find("box 0"),
            std::string::npos);
  // Bad poses and shapes are InvalidInput, as for convex pairs.
  const TriangleMesh mesh = terrain(2, 0.1);
  Pose bad = Pose::Identity();
  bad.translation().x() = NAN;
  EXPECT_EQ(gjk::distance(gjk::Sphere{1}, bad, mesh, Pose::Identity()).status,
            gjk::Status::InvalidInput);
  EXPECT_EQ(gjk::signed_distance(gjk::Sphere{-1}, Pose::Identity(), mesh, Pose::Identity()).status,
            gjk::Status::InvalidInput);
}

}  // namespace
