// Tests of the test oracles themselves (support/reference.hpp): the feature reference and the
// brute-force hull against closed forms and against the qhull reference, and the segment-segment
// closest points against dense sampling. An oracle that is wrong passes wrong engines, so each
// oracle is checked on thousands of random and degenerate inputs, engine-free.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace {

using gjk::Vec3;
using namespace gjk::testing;

constexpr double kEps = std::numeric_limits<double>::epsilon();

std::vector<Vec3> box_corners(const Vec3& lo, const Vec3& hi) {
  std::vector<Vec3> corners;
  for (int i = 0; i < 8; ++i) {
    corners.emplace_back(i & 1 ? hi.x() : lo.x(), i & 2 ? hi.y() : lo.y(), i & 4 ? hi.z() : lo.z());
  }
  return corners;
}

// Signed distance of two axis-aligned boxes, in closed form: apart, the norm of the per-axis
// gaps; overlapping, minus the smallest per-axis overlap.
double box_signed_distance(const Vec3& lo_a, const Vec3& hi_a, const Vec3& lo_b, const Vec3& hi_b) {
  Vec3 gap;
  for (int k = 0; k < 3; ++k) gap[k] = std::max(lo_b[k] - hi_a[k], lo_a[k] - hi_b[k]);
  if (gap.maxCoeff() > 0.0) return gap.cwiseMax(0.0).norm();
  return gap.maxCoeff();  // the least negative: minus the smallest overlap
}

// Boxes with coplanar faces (4 points per face: triangulations differ between the two hulls),
// placed so that every feature pair type is the closest one: face-face, edge-edge (parallel),
// vertex-vertex, and overlaps, with gaps from 0 to 1 and exact contact. A common rigid motion
// makes every coordinate inexact.
TEST(FeatureReference, MatchesClosedFormOnBoxPairs) {
  Rng rng(0x626f78);
  int cases = 0;
  double worst = 0.0;
  for (int i = 0; i < 3000; ++i) {
    const Vec3 half_a(rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0));
    const Vec3 half_b(rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0));
    // Per axis: apart by a gap (0 = touching), or overlapping (|offset| < sum of half sizes).
    Vec3 offset;
    for (int k = 0; k < 3; ++k) {
      const double reach = half_a[k] + half_b[k];
      const int kind = rng.uniform_int(0, 3);
      const double gap = kind == 0   ? 0.0
                         : kind == 1 ? rng.log_uniform(1e-9, 1.0)
                                     : -rng.uniform(0.0, 2.0 * reach);
      offset[k] = (rng.chance(0.5) ? 1.0 : -1.0) * (reach + gap);
    }
    const Vec3 lo_a = -half_a, hi_a = half_a, lo_b = offset - half_b, hi_b = offset + half_b;
    const double expected = box_signed_distance(lo_a, hi_a, lo_b, hi_b);
    const gjk::Pose motion = random_pose(rng, 2.0);
    const auto world_a = transform_points(motion, box_corners(lo_a, hi_a));
    const auto world_b = transform_points(motion, box_corners(lo_b, hi_b));
    const ReferenceResult features = feature_reference_query(
        ReferenceHull::build_brute_force(world_a), ReferenceHull::build_brute_force(world_b));
    const ReferenceResult qhull = reference_query(world_a, world_b);
    // The inputs are rounded once (coordinates up to ~4): a few ulps of that.
    const double tolerance = 64 * kEps * 4.0;
    worst = std::max(worst, std::abs(features.signed_distance - expected));
    ASSERT_NEAR(features.signed_distance, expected, tolerance) << "case " << i;
    ASSERT_NEAR(qhull.signed_distance, expected, tolerance) << "case " << i;
    if (expected > tolerance) {
      // The closest point of A - B has the closed-form per-axis gaps, in the moved frame.
      Vec3 gap;
      for (int k = 0; k < 3; ++k) {
        gap[k] = lo_b[k] - hi_a[k] > 0.0   ? -(lo_b[k] - hi_a[k])
                 : lo_a[k] - hi_b[k] > 0.0 ? lo_a[k] - hi_b[k]
                                           : 0.0;
      }
      EXPECT_LT((features.closest_cso_point - motion.linear() * gap).norm(), tolerance)
          << "case " << i;
      EXPECT_FALSE(features.overlap);
    }
    if (expected < -tolerance) {
      EXPECT_TRUE(features.overlap);
      // Moving B by depth * normal ends the overlap: h_{A-B}(normal) == depth.
      EXPECT_NEAR(cso_support(world_a, world_b, features.normal), features.depth, tolerance);
    }
    ++cases;
  }
  EXPECT_EQ(cases, 3000);
  std::printf("[reference] box pairs: worst |feature reference - closed form| %.3g\n", worst);
}

// Random hulls of 4-32 points in arbitrary relative poses (not only the generator's classes):
// the two references, built by different methods, agree to rounding.
TEST(FeatureReference, AgreesWithQhullReferenceOnRandomHulls) {
  Rng rng(0x68756c6c);
  double worst_distance = 0.0, worst_depth = 0.0;
  int overlapping = 0;
  const int cases = case_count(3000);
  for (int i = 0; i < cases; ++i) {
    const auto size = [&] { return rng.uniform_int(4, 32); };
    const auto distribution = static_cast<PointDistribution>(rng.uniform_int(0, 2));
    const Vec3 scale_a(rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5));
    const Vec3 scale_b(rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5));
    const auto a = transform_points(random_pose(rng, 1.0),
                                    random_polytope_points(rng, size(), distribution, scale_a));
    const auto b = transform_points(random_pose(rng, 1.5),
                                    random_polytope_points(rng, size(), distribution, scale_b));
    const ReferenceResult features = feature_reference_query(ReferenceHull::build_brute_force(a),
                                                             ReferenceHull::build_brute_force(b));
    const ReferenceResult qhull = reference_query(a, b);
    ASSERT_EQ(features.overlap, qhull.overlap) << "case " << i;
    const double tolerance = 1e-13 * qhull.scale;
    if (qhull.overlap) {
      ++overlapping;
      worst_depth = std::max(worst_depth, std::abs(features.depth - qhull.depth));
      ASSERT_NEAR(features.depth, qhull.depth, tolerance) << "case " << i;
      if (qhull.unique_normal && features.unique_normal) {
        EXPECT_LT((features.normal - qhull.normal).norm(), 1e-9) << "case " << i;
      }
    } else {
      worst_distance = std::max(worst_distance, std::abs(features.distance - qhull.distance));
      ASSERT_NEAR(features.distance, qhull.distance, tolerance) << "case " << i;
      EXPECT_LT((features.closest_cso_point - qhull.closest_cso_point).norm(), 1e-9)
          << "case " << i;
    }
  }
  // Both branches exercised in earnest.
  EXPECT_GT(overlapping, cases / 10);
  EXPECT_LT(overlapping, cases - cases / 10);
  std::printf(
      "[reference] random hulls: %d overlapping of %d; worst distance gap %.3g, depth %.3g\n",
      overlapping, cases, worst_distance, worst_depth);
}

// The brute-force hull has the same vertices as qhull's, every qhull facet lies in one of its
// facet planes, and the two give the same signed distance to random points.
TEST(ReferenceHullBruteForce, SameHullAsQhull) {
  Rng rng(0x627275);
  for (int i = 0; i < 500; ++i) {
    const int n = rng.uniform_int(4, 32);
    std::vector<Vec3> points;
    if (i % 5 == 0) {
      // A box with face-centre and edge-midpoint points: coplanar faces, collinear edges.
      const Vec3 half(rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0));
      points = box_corners(-half, half);
      for (int k = 0; k < 3; ++k) {
        Vec3 c = Vec3::Zero();
        c[k] = half[k];
        points.push_back(c);
        points.push_back(-c);
      }
      points.push_back(Vec3(half.x(), half.y(), 0.0));
      points = transform_points(random_pose(rng, 1.0), points);
    } else {
      points = transform_points(random_pose(rng, 1.0),
                                random_polytope_points(rng, n, PointDistribution::Mixed,
                                                       Vec3(1.0, rng.uniform(0.2, 1.0), 0.5)));
    }
    const ReferenceHull brute = ReferenceHull::build_brute_force(points);
    const ReferenceHull qhull = ReferenceHull::build(points);
    if (i % 5 != 0) {  // qhull keeps coplanar face points of a box as vertices or not: skip
      EXPECT_EQ(brute.vertex_ids(), qhull.vertex_ids()) << "case " << i;
    }
    for (const auto& f : qhull.facets()) {
      const bool found = std::any_of(brute.facets().begin(), brute.facets().end(), [&](auto& g) {
        return (g.normal - f.normal).norm() < 1e-9 && std::abs(g.offset - f.offset) < 1e-9;
      });
      EXPECT_TRUE(found) << "case " << i << ": qhull facet plane missing";
    }
    for (int k = 0; k < 20; ++k) {
      const Vec3 p = 2.0 * rng.in_unit_ball() + points[0];
      EXPECT_NEAR(brute.signed_distance(p), qhull.signed_distance(p), 1e-12) << "case " << i;
    }
  }
}

// Segment pairs of every kind (generic, parallel, collinear, crossing, degenerate to points)
// against dense sampling of both parameters: the result is never beaten by the samples and
// never below the true minimum (its points lie on the segments).
TEST(ClosestPointsBetweenSegments, MatchDenseSampling) {
  Rng rng(0x736567);
  for (int i = 0; i < 2000; ++i) {
    Vec3 p0 = rng.in_unit_ball(), p1 = rng.in_unit_ball(), q0 = rng.in_unit_ball(),
         q1 = rng.in_unit_ball();
    switch (i % 5) {
      case 1:  // parallel
        q1 = q0 + rng.uniform(-2.0, 2.0) * (p1 - p0);
        break;
      case 2:  // collinear, overlapping or not
        q0 = p0 + rng.uniform(-1.0, 2.0) * (p1 - p0);
        q1 = p0 + rng.uniform(-1.0, 2.0) * (p1 - p0);
        break;
      case 3:  // a point and a segment, or two points
        p1 = p0;
        if (rng.chance(0.3)) q1 = q0;
        break;
      case 4:  // crossing: the midpoints coincide
        q0 = 0.5 * (p0 + p1) + (q0 - q1) * 0.5;
        q1 = q0 - (q0 - 0.5 * (p0 + p1)) * 2.0;
        break;
      default:
        break;
    }
    Vec3 on_p, on_q;
    closest_points_between_segments(p0, p1, q0, q1, on_p, on_q);
    const double got = (on_p - on_q).norm();
    // On the segments (up to rounding).
    EXPECT_LT((closest_point_on_segment(on_p, p0, p1) - on_p).norm(), 1e-14) << "case " << i;
    EXPECT_LT((closest_point_on_segment(on_q, q0, q1) - on_q).norm(), 1e-14) << "case " << i;
    // Dense sampling, refined: the sampled minimum over a 200 x 200 grid, then the exact optimum
    // of one segment against the other's best sample.
    double sampled = std::numeric_limits<double>::infinity();
    for (int s = 0; s <= 200; ++s) {
      const Vec3 x = p0 + (s / 200.0) * (p1 - p0);
      const Vec3 y = closest_point_on_segment(x, q0, q1);
      sampled = std::min(sampled, (x - y).norm());
    }
    EXPECT_LE(got, sampled + 1e-14) << "case " << i;
    // The grid over p with exact projection on q is within |p1 - p0| / 200 of the optimum.
    EXPECT_GE(got, sampled - (p1 - p0).norm() / 200.0 - 1e-14) << "case " << i;
  }
}

}  // namespace
