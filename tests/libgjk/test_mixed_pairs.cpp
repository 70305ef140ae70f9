// The mixed pairs of the benchmark (issue 18 item 4: a box, sphere or capsule against a
// 100-point hull, an 8-point hull against a 512-point one): the distance the generator builds
// in, checked against the reference oracle (qhull of A - B on world points, independent of the
// construction and of GJK; for a sphere or capsule, the distance from the origin to the hull of
// A's vertices minus the core's points, by brute force over that hull's facets) and against
// libgjk's distance() and collide().
#include <gtest/gtest.h>

#include <gjk/gjk.hpp>

#include "datasets_bench.hpp"
#include "reference.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace {

namespace gt = gjk::testing;
using gjk::Pose;
using gjk::Vec3;

constexpr std::uint64_t kSeedMixed = 0x5EED018;

std::vector<Vec3> world_points(const std::vector<Vec3>& local, const Pose& pose) {
  std::vector<Vec3> out;
  for (const Vec3& p : local) out.push_back(pose * p);
  return out;
}

/// Distance from the origin to the hull of `points`, by brute force over its facets (qhull's,
/// through ConvexPolytope); 0 when the origin is inside.
double origin_to_hull(const std::vector<Vec3>& points) {
  const gjk::ConvexPolytope hull = gjk::ConvexPolytope::from_points(points);
  const auto& v = hull.vertices();
  bool inside = true;
  double nearest = std::numeric_limits<double>::infinity();
  for (const auto& t : hull.triangles()) {
    Vec3 normal = (v[t[1]] - v[t[0]]).cross(v[t[2]] - v[t[0]]);
    if (normal.dot(v[t[0]] - hull.center()) < 0.0) normal = -normal;
    if (normal.dot(-v[t[0]]) > 0.0) inside = false;  // the origin is beyond this facet's plane
    nearest = std::min(
        nearest, gt::closest_point_on_triangle(Vec3::Zero(), v[t[0]], v[t[1]], v[t[2]]).norm());
  }
  return inside ? 0.0 : nearest;
}

/// B's core as world points and the radius around it: a box's corners, a sphere's centre, a
/// capsule's two ends, a hull's vertices.
std::vector<Vec3> core_points(const gjk::Shape& shape, const Pose& pose, double& radius) {
  radius = 0.0;
  if (const auto* box = std::get_if<gjk::Box>(&shape.geometry))
    return world_points(gt::box_corners(box->half_extents), pose);
  if (const auto* sphere = std::get_if<gjk::Sphere>(&shape.geometry)) {
    radius = sphere->radius;
    return {pose.translation()};
  }
  if (const auto* capsule = std::get_if<gjk::Capsule>(&shape.geometry)) {
    radius = capsule->radius;
    return {pose * Vec3(0, 0, capsule->half_length), pose * Vec3(0, 0, -capsule->half_length)};
  }
  return world_points(std::get<gjk::ConvexPolytope>(shape.geometry).vertices(), pose);
}

TEST(MixedPairs, KnownDistancesMatchTheReferenceAndTheQueries) {
  const gt::MixedKind kinds[] = {gt::MixedKind::BoxHull, gt::MixedKind::SphereHull,
                                 gt::MixedKind::CapsuleHull, gt::MixedKind::SmallLargeHull,
                                 gt::MixedKind::BoxOnBox};
  const gt::PairClass classes[] = {gt::PairClass::Distant, gt::PairClass::Touching,
                                   gt::PairClass::Overlapping};
  int checked = 0;
  for (const gt::MixedKind kind : kinds) {
    for (const gt::PairClass cls : classes) {
      for (std::uint64_t i = 0; i < 60; ++i) {
        const gt::MixedPair p = gt::make_mixed_pair(kSeedMixed, i, kind, cls);
        SCOPED_TRACE(p.describe());
        // A round B's distance is its core's minus its radius (overlapping: the core may still be
        // apart from A, so only the sign is checked).
        double radius = 0.0;
        const std::vector<Vec3> core_b = core_points(p.b, p.pose_b, radius);
        double radius_a = 0.0;  // A is a hull or (box-on-box) a box
        const std::vector<Vec3> world_a = core_points(p.a, p.pose_a, radius_a);
        double ref_distance = 0.0;
        if (core_b.size() >= 4) {
          const gt::ReferenceResult ref = gt::reference_query(world_a, core_b);
          ref_distance = ref.overlap ? -ref.depth : ref.distance;
        } else {
          std::vector<Vec3> difference;
          for (const Vec3& a : world_a) {
            for (const Vec3& b : core_b) difference.push_back(a - b);
          }
          ref_distance = origin_to_hull(difference) - radius;
        }
        const gjk::DistanceResult d = gjk::distance(p.a, p.pose_a, p.b, p.pose_b);
        const bool collides = gjk::collide(p.a, p.pose_a, p.b, p.pose_b).collision;
        if (cls == gt::PairClass::Overlapping) {
          EXPECT_LT(ref_distance, -1e-3);  // B's point is 0.01-0.3 below a facet of A
          EXPECT_EQ(d.distance, 0.0);
          EXPECT_TRUE(collides);
        } else {
          EXPECT_NEAR(ref_distance, p.distance, 1e-9);
          EXPECT_NEAR(d.distance, p.distance, 1e-9);
          if (cls == gt::PairClass::Distant) {
            EXPECT_GE(p.distance, 0.01);
            EXPECT_FALSE(collides);
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 5 * 3 * 60);
}

TEST(MixedPairs, ArePortableAndNamed) {
  const gt::MixedPair a =
      gt::make_mixed_pair(kSeedMixed, 7, gt::MixedKind::CapsuleHull, gt::PairClass::Distant);
  const gt::MixedPair b =
      gt::make_mixed_pair(kSeedMixed, 7, gt::MixedKind::CapsuleHull, gt::PairClass::Distant);
  EXPECT_EQ(a.distance, b.distance);  // rebuilt from (seed, index) alone
  EXPECT_TRUE(a.pose_b.isApprox(b.pose_b, 0.0));
  EXPECT_NE(a.describe().find("capsule-hull100"), std::string::npos);
  EXPECT_EQ(std::string(gt::to_string(gt::MixedKind::SmallLargeHull)), "hull8-hull512");
  EXPECT_EQ(
      std::get<gjk::ConvexPolytope>(
          gt::make_mixed_pair(kSeedMixed, 0, gt::MixedKind::SmallLargeHull, gt::PairClass::Touching)
              .a.geometry)
          .vertices()
          .size(),
      512u);
}

}  // namespace
