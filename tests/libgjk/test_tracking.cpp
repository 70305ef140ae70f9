// Hill-climbing support and warm start (seed 004 sections 3.2-4, seed 002 sections 4.1-4.3):
// the same answers as the brute-force, cold queries on every step of tracked sequences.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "datasets.hpp"
#include "datasets_bench.hpp"
#include "gjk/queries.hpp"

namespace {

using namespace gjk;
using gjk::testing::TrackingClass;

TEST(HillClimbing, FindsTheScanSupportFromAnyHint) {
  gjk::testing::Rng rng(0x41c1);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = rng.log_uniform_int(4, 600);
    const ConvexPolytope hull = ConvexPolytope::from_points(
        gjk::testing::random_polytope_points(rng, n, gjk::testing::PointDistribution::Mixed));
    const int vertices = static_cast<int>(hull.vertices().size());
    for (int q = 0; q < 50; ++q) {
      const Vec3 d = rng.unit_vector();
      const int hint = rng.uniform_int(0, vertices - 1);
      const int climbed = hull.support_index_climbing(d, hint);
      const int scanned = hull.support_index(d);
      ASSERT_EQ(hull.vertices()[climbed].dot(d), hull.vertices()[scanned].dot(d))
          << "hull of " << n << " points, hint " << hint;
      ++checked;
    }
  }
  // Flat hulls climb along their polygon, segments between their ends.
  const ConvexPolytope square =
      ConvexPolytope::from_points({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}});
  EXPECT_EQ(square.vertices()[square.support_index_climbing(Vec3(1, 1, 0.3), 0)], Vec3(1, 1, 0));
  EXPECT_GE(checked, 15000);
}

// climb_start starts at the support of the preset direction (-1, 0, 1)^3 \ 0 nearest d (largest
// cosine), or at the candidate when that lies at least as far along d: checked against the
// nearest preset found by comparing all 26 cosines and its support found by the scan. Random
// unit directions, and the presets themselves (exact axes and diagonals, scaled).
TEST(HillClimbing, ClimbStartIsTheNearestPresetsSupportOrTheCandidate) {
  gjk::testing::Rng rng(0x5747);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = rng.log_uniform_int(4, 600);
    const ConvexPolytope hull = ConvexPolytope::from_points(
        gjk::testing::random_polytope_points(rng, n, gjk::testing::PointDistribution::Mixed));
    const auto& v = hull.vertices();
    const int vertices = static_cast<int>(v.size());
    std::vector<Vec3> presets;
    for (int x = -1; x <= 1; ++x)
      for (int y = -1; y <= 1; ++y)
        for (int z = -1; z <= 1; ++z)
          if (x != 0 || y != 0 || z != 0) presets.emplace_back(x, y, z);
    for (int q = 0; q < 76; ++q) {
      // 50 random unit directions, then each preset scaled by a random factor.
      const Vec3 d = q < 50 ? rng.unit_vector()
                            : Vec3(presets[static_cast<size_t>(q - 50)] * rng.uniform(1e-3, 1e3));
      const int candidate = q % 5 == 0 ? -1 : rng.uniform_int(0, vertices - 1);
      size_t nearest = 0;
      for (size_t k = 1; k < presets.size(); ++k) {
        if (presets[k].dot(d) / presets[k].norm() >
            presets[nearest].dot(d) / presets[nearest].norm())
          nearest = k;
      }
      const int preset_support = hull.support_index(presets[nearest]);
      const int expected = candidate >= 0 && v[static_cast<size_t>(candidate)].dot(d) >=
                                                 v[static_cast<size_t>(preset_support)].dot(d)
                               ? candidate
                               : preset_support;
      ASSERT_EQ(hull.climb_start(d, candidate), expected)
          << "hull of " << n << " points, direction " << d.transpose();
      // The climb from there still ends on a vertex as far along d as the scan's.
      const int climbed = hull.support_index_climbing(d, hull.climb_start(d, candidate));
      ASSERT_EQ(v[static_cast<size_t>(climbed)].dot(d),
                v[static_cast<size_t>(hull.support_index(d))].dot(d));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 200 * 76);
}

// Cold climbs on hulls of 64 vertices and more start over at the nearest preset's support when
// the direction turns far (PolytopeCore::start_for_turn, with its two turn tests either side of
// 256 vertices): the answers stay the scan's. Sizes either side of each threshold, every class
// of the benchmark's sphere pairs; the Distant class's distance is known exactly.
TEST(HillClimbing, ColdClimbsThatTurnFarGiveTheScansAnswers) {
  using gjk::testing::PairClass;
  int checked = 0;
  for (int n : {63, 64, 100, 127, 128, 200, 255, 256}) {
    for (PairClass kind : {PairClass::Distant, PairClass::Touching, PairClass::Overlapping}) {
      for (std::uint64_t index = 0; index < 40; ++index) {
        const auto pair = gjk::testing::make_sphere_pair(0x7e57, index, n, kind);
        SCOPED_TRACE(pair.describe());
        const Shape a = ConvexPolytope::from_points(pair.points_a);
        const Shape b = ConvexPolytope::from_points(pair.points_b);
        QueryOptions scan, climb;
        scan.support = SupportMethod::BruteForce;
        climb.support = SupportMethod::Auto;
        const DistanceResult d_scan = distance(a, pair.pose_a, b, pair.pose_b, scan);
        const DistanceResult d_climb = distance(a, pair.pose_a, b, pair.pose_b, climb);
        ASSERT_EQ(d_climb.status, Status::Converged);
        EXPECT_EQ(d_climb.collision, d_scan.collision);
        EXPECT_NEAR(d_climb.distance, d_scan.distance, 1e-12);
        if (kind == PairClass::Distant) {
          EXPECT_NEAR(d_climb.distance, pair.gap, 1e-12);
        }
        const PenetrationResult p_scan = penetration(a, pair.pose_a, b, pair.pose_b, scan);
        const PenetrationResult p_climb = penetration(a, pair.pose_a, b, pair.pose_b, climb);
        EXPECT_EQ(p_climb.collision, p_scan.collision);
        EXPECT_NEAR(p_climb.depth, p_scan.depth, 1e-12);
        EXPECT_EQ(collide(a, pair.pose_a, b, pair.pose_b, climb).collision, d_scan.collision);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 8 * 3 * 40);
}

double distance_tolerance(double scale) {
  return 1e-9 * scale;
}

TEST(WarmStart, TrackedSequencesMatchColdQueries) {
  int steps = 0, warm_overlaps = 0, collide_steps = 0;
  double max_error = 0.0;
  for (TrackingClass kind : {TrackingClass::Far, TrackingClass::Near, TrackingClass::Drift}) {
    for (int n : {10, 40, 150, 500}) {
      for (int index = 0; index < 12; ++index) {
        const auto seq = gjk::testing::make_tracking_sequence(
            0x77ac, static_cast<std::uint64_t>(index), n, kind);
        const Shape a = ConvexPolytope::from_points(seq.points_a);
        const Shape b = ConvexPolytope::from_points(seq.points_b);
        for (SupportMethod method : {SupportMethod::BruteForce, SupportMethod::HillClimbing}) {
          QueryOptions options;
          options.support = method;
          WarmStart distance_cache, signed_cache, closer_cache, collide_cache;
          for (const Pose& pose_b : seq.poses_b) {
            SCOPED_TRACE(seq.describe());
            const DistanceResult cold = distance(a, seq.pose_a, b, pose_b);
            const DistanceResult warm = distance(a, seq.pose_a, b, pose_b, options, distance_cache);
            ASSERT_EQ(warm.status, Status::Converged);
            EXPECT_EQ(warm.collision, cold.collision);
            EXPECT_NEAR(warm.distance, cold.distance, distance_tolerance(1.0));
            max_error = std::max(max_error, std::abs(warm.distance - cold.distance));
            if (!cold.collision) {
              EXPECT_NEAR((warm.point_on_a - warm.point_on_b).norm(), warm.distance, 1e-9);
              EXPECT_LE(warm.lower_bound, cold.distance + 1e-12);
              EXPECT_GE(warm.upper_bound, cold.distance - 1e-12);
            }
            const SignedDistanceResult sd_cold = signed_distance(a, seq.pose_a, b, pose_b);
            const SignedDistanceResult sd_warm =
                signed_distance(a, seq.pose_a, b, pose_b, options, signed_cache);
            EXPECT_NEAR(sd_warm.signed_distance, sd_cold.signed_distance, 1e-9);
            warm_overlaps += sd_cold.signed_distance < 0 ? 1 : 0;
            const ThresholdResult near =
                closer_than(a, seq.pose_a, b, pose_b, 0.05, options, closer_cache);
            if (std::abs(cold.distance - 0.05) > 1e-9) {
              EXPECT_EQ(near.closer, cold.distance < 0.05);
            }
            // collide() along the motion: its cache passes through answers by the balls (far and
            // deep steps), the direction loop and the exact loop.
            const CollisionResult hit = collide(a, seq.pose_a, b, pose_b, options, collide_cache);
            if (cold.collision || cold.distance > 1e-9) {
              EXPECT_EQ(hit.collision, cold.collision);
              ++collide_steps;
            }
            ++steps;
          }
        }
      }
    }
  }
  std::printf("warm start: %d tracked steps (%d overlapping), max |warm - cold| distance %.3g\n",
              steps, warm_overlaps, max_error);
  EXPECT_GT(warm_overlaps, 100);  // the Drift class must really slide into overlap
  EXPECT_GT(collide_steps, steps * 9 / 10);
}

TEST(WarmStart, ADefaultCacheHoldsNoClimbingHint) {
  // A default or reset cache holds no hint: its first query starts its climbs as a cold query
  // does (from the nearest fixed direction's support, restarting on far turns), not from vertex
  // 0, which may lie across the hull (issue 18: a first tracked penetration query of 100-vertex
  // hulls took 1.3x the cold one's time).
  EXPECT_LT(WarmStart{}.hint_a, 0);
  EXPECT_LT(WarmStart{}.hint_b, 0);
  gjk::testing::Rng rng(0x41);
  const ConvexPolytope polytope =
      ConvexPolytope::from_points(gjk::testing::sphere_polytope_points(rng, 200));
  const Shape hull = polytope;
  WarmStart cache;
  Pose near_pose = Pose::Identity();
  // Between the inner balls' reach and the enclosing balls': the loops answer and set hints.
  near_pose.translation() = Vec3(polytope.inner_radius() + polytope.ball_radius(), 0.0, 0.0);
  ASSERT_GT(collide(hull, Pose::Identity(), hull, near_pose, {}, cache).iterations, 0);
  EXPECT_GE(cache.hint_a, 0);
  EXPECT_GE(cache.hint_b, 0);
  // An answer by the bounding balls keeps them (a tracked pair comes back near where it left).
  const int hint_a = cache.hint_a, hint_b = cache.hint_b;
  Pose far_pose = Pose::Identity();
  far_pose.translation() = Vec3(5.0, 1.0, 0.0);
  const CollisionResult far = collide(hull, Pose::Identity(), hull, far_pose, {}, cache);
  ASSERT_FALSE(far.collision);
  EXPECT_EQ(far.iterations, 0);
  EXPECT_EQ(cache.hint_a, hint_a);
  EXPECT_EQ(cache.hint_b, hint_b);
  // Every query of a default cache gives the cold answer (penetration: EPA's climbs too).
  for (int trial = 0; trial < 50; ++trial) {
    const Pose pose_b = gjk::testing::random_pose(rng, 1.0);
    WarmStart fresh;
    const PenetrationResult warm = penetration(hull, Pose::Identity(), hull, pose_b, {}, fresh);
    const PenetrationResult cold = penetration(hull, Pose::Identity(), hull, pose_b);
    ASSERT_EQ(warm.collision, cold.collision);
    EXPECT_NEAR(warm.depth, cold.depth, 1e-9);
  }
  cache.reset();
  EXPECT_LT(cache.hint_a, 0);
  EXPECT_LT(cache.hint_b, 0);
}

TEST(WarmStart, ForeignOrStaleCachesAreIgnored) {
  gjk::testing::Rng rng(5);
  const Shape big = ConvexPolytope::from_points(gjk::testing::sphere_polytope_points(rng, 300));
  const Shape small = ConvexPolytope::from_points(gjk::testing::sphere_polytope_points(rng, 6));
  Pose pb = Pose::Identity();
  pb.translation() = Vec3(3, 0.2, 0.1);
  WarmStart cache;
  distance(big, Pose::Identity(), big, pb, {}, cache);  // indices up to ~300
  ASSERT_GT(cache.size, 0);
  // The same cache on a pair whose hulls have 6 vertices: indices out of range, ignored.
  const DistanceResult d = distance(small, Pose::Identity(), small, pb, {}, cache);
  EXPECT_NEAR(d.distance, distance(small, Pose::Identity(), small, pb).distance, 1e-12);
  WarmStart garbage;
  garbage.size = 4;
  garbage.index_a = {-5, 1000000, 2, 3};
  garbage.hint_a = -7;
  garbage.hint_b = 1 << 30;
  const DistanceResult g = distance(big, Pose::Identity(), big, pb, {}, garbage);
  EXPECT_NEAR(g.distance, distance(big, Pose::Identity(), big, pb).distance, 1e-12);
  // Primitives and curved cores keep a cache too.
  WarmStart prim;
  for (int step = 0; step < 20; ++step) {
    Pose p = Pose::Identity();
    p.translation() = Vec3(2.0 - 0.1 * step, 0.05 * step, 0.0);
    const double cold =
        signed_distance(Cylinder{0.5, 1.0}, Pose::Identity(), Box{Vec3(0.3, 0.3, 0.3)}, p)
            .signed_distance;
    const double warm =
        signed_distance(Cylinder{0.5, 1.0}, Pose::Identity(), Box{Vec3(0.3, 0.3, 0.3)}, p, {}, prim)
            .signed_distance;
    EXPECT_NEAR(warm, cold, 1e-6) << "step " << step;
  }
}

}  // namespace
