// Regressions found by the fuzz targets (fuzz/, scripts/fuzz.sh). Each test names the target
// and what it found; the input is the decoded form of the crash file.
#include <gtest/gtest.h>
#include <gjk/gjk.hpp>

#include "datasets.hpp"
#include "epa.hpp"           // libgjk/src: EPA from a given start simplex (last test)
#include "pair_results.hpp"  // libgjk/src: relative_frame

#include <cfloat>
#include <cmath>
#include <vector>

namespace {

using gjk::ConvexPolytope;
using gjk::Pose;
using gjk::Vec3;

// fuzz_queries: a point set whose whole spread is a denormal (3e-323) made from_points throw
// std::runtime_error from qhull (undocumented): the covariance underflowed to zero, so the
// principal axes were arbitrary and the set reached qhull as a 3D hull.
TEST(FuzzRegressions, DenormalSpreadIsASegmentNotAQhullError) {
  std::vector<Vec3> points(36, Vec3::Zero());
  points.insert(points.begin(), Vec3(2.9643938750474793e-323, 0, 0));
  ConvexPolytope hull;
  ASSERT_NO_THROW(hull = ConvexPolytope::from_points(points));
  EXPECT_LE(hull.dimension(), 1);
  EXPECT_LE(hull.vertices().size(), 2u);
  Pose far = Pose::Identity();
  far.translation() = Vec3(3, 0, 0);
  const gjk::DistanceResult d = gjk::distance(hull, Pose::Identity(), gjk::Sphere{1.0}, far);
  EXPECT_EQ(d.status, gjk::Status::Converged);
  EXPECT_NEAR(d.distance, 2.0, 1e-15);
}

// The same scale problem at the other end: coordinates near DBL_MAX overflowed the covariance
// and the mean (inf - inf = NaN axes).
TEST(FuzzRegressions, HugeCoordinatesKeepAFiniteFrame) {
  const double big = 1e300;
  const std::vector<Vec3> points = {Vec3(big, 0, 0),  Vec3(-big, 0, 0), Vec3(0, big, 0),
                                    Vec3(0, -big, 0), Vec3(0, 0, big),  Vec3(0, 0, -big)};
  ConvexPolytope hull;
  ASSERT_NO_THROW(hull = ConvexPolytope::from_points(points));
  EXPECT_EQ(hull.dimension(), 3);
  EXPECT_EQ(hull.vertices().size(), 6u);
  EXPECT_TRUE(hull.center().allFinite());
  const std::vector<Vec3> at_max = {Vec3(DBL_MAX, DBL_MAX, 0), Vec3(DBL_MAX, 0, 0),
                                    Vec3(0, DBL_MAX, 0)};
  ASSERT_NO_THROW(hull = ConvexPolytope::from_points(at_max));
  EXPECT_TRUE(hull.center().allFinite());
  EXPECT_EQ(hull.vertices().size(), 3u);
}

// fuzz_queries: rounded bodies whose cores are 1.3e-159 apart (a one-point hull next to a
// sphere's centre) got a penetration normal of length 0.99999977: |v| was computed from squares
// that underflow to denormals, and the normal is -v / |v|.
TEST(FuzzRegressions, NormalIsUnitWhenTheCoresAreDenormallyClose) {
  const std::vector<Vec3> point = {
      Vec3(2.5865632712266097e-231, -1.3264653105993759e-159, -6.683323687823615e-234)};
  const gjk::Shape a = gjk::inflated(ConvexPolytope::from_points(point), 1.2252964426877471);
  const gjk::Shape b = gjk::inflated(gjk::Sphere{0.0}, 0.055731225296442692);
  Pose pose = Pose::Identity();
  pose.linear() = Eigen::Quaterniond(0.5, 0.5, 0.5, 0.5).toRotationMatrix();
  pose.translation() = Vec3(-3.4160737812911726, -3.4160737812911726, -3.4160737812911726);
  const gjk::PenetrationResult p = gjk::penetration(a, pose, b, pose);
  ASSERT_EQ(p.status, gjk::Status::Converged);
  EXPECT_TRUE(p.collision);
  EXPECT_NEAR(p.depth, 1.2252964426877471 + 0.055731225296442692, 1e-15);
  EXPECT_NEAR(p.normal.norm(), 1.0, 1e-15);
  const gjk::SignedDistanceResult s = gjk::signed_distance(a, pose, b, pose);
  EXPECT_NEAR(s.normal.norm(), 1.0, 1e-15);
  EXPECT_NEAR(s.signed_distance, -p.depth, 1e-15);
}

// fuzz_queries (scripts/fuzz.sh, 42,265 executions into a one-hour run): a warm-start cache
// whose direction holds a finite but huge component (1.8e308) made |v|^2 overflow; the distance
// came back inf with status Converged, the depth NaN. The cached direction is now rescaled before
// use, and a non-finite one is ignored. Input: a point (sphere of radius 0) against a cylinder,
// the cache as the target decoded it.
TEST(FuzzRegressions, HugeWarmStartDirectionIsOnlyADirection) {
  const gjk::Shape a = gjk::Sphere{0.0};
  const gjk::Shape b = gjk::Cylinder{3.625, 1.4375};
  auto pose = [](double x, double y, double z, double qw, double qx, double qy, double qz) {
    Pose p = Pose::Identity();
    p.linear() = Eigen::Quaterniond(qw, qx, qy, qz).normalized().toRotationMatrix();
    p.translation() = Vec3(x, y, z);
    return p;
  };
  const Pose pa =
      pose(-0.42190581597222221, -12.129792209201389, -5.5902520616319444, 0.50511100751910687,
           -0.25903128590723412, -0.25255550375955332, 0.78356963986938344);
  const Pose pb =
      pose(12.551698025173609, -13.500986111111111, -13.500986111111111, 0.01803926007358958,
           0.57725632235486668, 0.57725632235486668, 0.57725632235486668);
  const double cold = gjk::distance(a, pa, b, pb).distance;
  ASSERT_TRUE(std::isfinite(cold));
  for (const double component : {DBL_MAX, -DBL_MAX, 1e300, 1e-300, 0.0, HUGE_VAL, std::nan("")}) {
    for (const auto solver : gjk::testing::kSolvers) {
      gjk::QueryOptions options;
      options.solver = solver;
      gjk::WarmStart cache;
      cache.size = 1;
      cache.index_a = {26, 26, 6, 6};
      cache.index_b = {26, 6, 6, 6};
      cache.hint_a = 6;
      cache.hint_b = 68;
      cache.direction = Vec3(-0.0625, -5.6875, component);
      gjk::WarmStart for_distance = cache, for_penetration = cache, for_collide = cache,
                     for_signed = cache;
      const gjk::DistanceResult d = gjk::distance(a, pa, b, pb, options, for_distance);
      EXPECT_EQ(d.status, gjk::Status::Converged) << component;
      EXPECT_NEAR(d.distance, cold, 1e-10 * cold) << component;
      const gjk::PenetrationResult p = gjk::penetration(a, pa, b, pb, options, for_penetration);
      EXPECT_EQ(p.status, gjk::Status::Converged) << component;
      EXPECT_FALSE(p.collision) << component;
      EXPECT_TRUE(std::isfinite(p.depth)) << component;
      const gjk::CollisionResult c = gjk::collide(a, pa, b, pb, options, for_collide);
      EXPECT_EQ(c.status, gjk::Status::Converged) << component;
      EXPECT_FALSE(c.collision) << component;
      const gjk::SignedDistanceResult s = gjk::signed_distance(a, pa, b, pb, options, for_signed);
      EXPECT_NEAR(s.signed_distance, cold, 1e-10 * cold) << component;
      // What the queries leave in the cache is a usable, finite state.
      EXPECT_TRUE(for_distance.direction.allFinite()) << component;
    }
  }
}

// fuzz_queries (78,976 executions into a one-hour run): a flat box core (half extents 9.6e-4 x
// 4.4e-4 x 0) against a flat triangle, the cores overlapping by 4.2e-4. distance() with a cache
// left the touching simplex in it; penetration() with that cache restarted from it, stalled
// 2.1e-13 from the origin with no separating plane, reported the cores apart (depth = the
// inflation; bare cores: no penetration at all), while the cold query found 4.2e-4. A warm start
// that ends undecided now falls back to the cold start. Exact poses from the target's verbose
// output (their rotation matrices: the quaternions round).
TEST(FuzzRegressions, WarmStartThatStallsUndecidedFallsBackToCold) {
  auto pose = [](std::initializer_list<double> r) {
    Pose p = Pose::Identity();
    auto it = r.begin();
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) p.linear()(i, j) = *it++;
    }
    p.translation() = Vec3(-15.85731140572137, -15.85731140572137, -15.85731140572137);
    return p;
  };
  const Pose pa = pose({0.4483093922651934, 0, 0.89387845303867408, 0.89387845303867408, 0,
                        -0.44830939226519345, 0, 1, 0});
  const Pose pb = pose({0.26789641924983143, -0.94061409425496345, -0.20851051350479488,
                        -0.20851051350479488, -0.26789641924983121, 0.94061409425496345,
                        -0.94061409425496345, -0.20851051350479488, -0.26789641924983121});
  std::vector<Vec3> points = {Vec3(6.875, -2.6875, -6.125), Vec3(0, 0.75, 0), Vec3(0, -6.1875, 0)};
  points.resize(13, Vec3::Zero());
  const gjk::Shape triangle = ConvexPolytope::from_points(points);
  // The cores' depth from the feature reference (tests/libgjk/support/reference.hpp) on the
  // world-frame box corners and triangle: 4.2026422602781111e-4.
  const double core_depth = 4.2026422602781111e-4;
  for (const double inflation : {0.0, 0.041897233201581036}) {
    const gjk::Shape box =
        gjk::inflated(gjk::Box{Vec3(0.00096354166666666669, 0.00043750000000000001, 0)}, inflation);
    for (const auto solver : gjk::testing::kSolvers) {
      gjk::QueryOptions options;
      options.solver = solver;
      const gjk::PenetrationResult cold = gjk::penetration(box, pa, triangle, pb, options);
      EXPECT_NEAR(cold.depth, core_depth + inflation, 1e-11);
      // The cache as the target decoded it (its size -1 makes it a direction hint only).
      gjk::WarmStart cache;
      cache.size = -1;
      cache.index_a = {47, 47, 47, 5};
      cache.index_b = {47, 47, 5, 5};
      cache.hint_a = cache.hint_b = 5;
      cache.direction = Vec3(5.625, 5.625, 5.625);
      (void)gjk::distance(box, pa, triangle, pb, options, cache);
      // Each query starts from the cache the distance query left.
      gjk::WarmStart for_distance = cache, for_penetration = cache, for_signed = cache;
      const gjk::DistanceResult again = gjk::distance(box, pa, triangle, pb, options, for_distance);
      EXPECT_TRUE(again.collision) << inflation;
      const gjk::PenetrationResult warm =
          gjk::penetration(box, pa, triangle, pb, options, for_penetration);
      EXPECT_EQ(warm.status, gjk::Status::Converged);
      EXPECT_TRUE(warm.collision);
      EXPECT_NEAR(warm.depth, core_depth + inflation, 1e-11) << "inflation " << inflation;
      const gjk::SignedDistanceResult sd =
          gjk::signed_distance(box, pa, triangle, pb, options, for_signed);
      EXPECT_NEAR(sd.signed_distance, -(core_depth + inflation), 1e-11);
    }
  }
}

// fuzz_queries (CI run of stop 22): a sphere of radius -1e-300 against a hull reaching 4.6e294
// was answered as valid. The pair is scaled by 2^-979 into the safe window (issue 15 item 8),
// which flushed the negative radius to -0 before validation. Sizes are now checked first.
TEST(FuzzRegressions, TinyNegativeSizeIsInvalidEvenWhenThePairIsRescaled) {
  const std::vector<Vec3> points = {Vec3(7.1385075015145267e-159, 2.7251545780867634e-159, 0),
                                    Vec3(0, 4.3830984000646427e-193, -4.6428918422029304e+294),
                                    Vec3(6.1912848277304128e-318, 0, 0), Vec3::Zero()};
  const gjk::Shape hull = ConvexPolytope::from_points(points);
  const gjk::Shape negative_radius = gjk::Sphere{-1e-300};
  const gjk::Shape negative_inflation = gjk::inflated(gjk::Sphere{0.0}, -1e-300);
  for (const gjk::Shape* bad : {&negative_radius, &negative_inflation}) {
    for (const bool bad_first : {true, false}) {
      const gjk::Shape& a = bad_first ? *bad : hull;
      const gjk::Shape& b = bad_first ? hull : *bad;
      const Pose id = Pose::Identity();
      gjk::WarmStart cache;
      EXPECT_EQ(gjk::distance(a, id, b, id).status, gjk::Status::InvalidInput);
      EXPECT_EQ(gjk::distance(a, id, b, id, {}, cache).status, gjk::Status::InvalidInput);
      EXPECT_EQ(gjk::collide(a, id, b, id).status, gjk::Status::InvalidInput);
      EXPECT_EQ(gjk::penetration(a, id, b, id).status, gjk::Status::InvalidInput);
      EXPECT_EQ(gjk::signed_distance(a, id, b, id).status, gjk::Status::InvalidInput);
      EXPECT_EQ(gjk::closer_than(a, id, b, id, 1.0).status, gjk::Status::InvalidInput);
    }
  }
  // The same radius on a pair inside the window was always rejected; a valid tiny sphere
  // against the huge hull is still answered.
  EXPECT_EQ(gjk::distance(gjk::Sphere{1e-300}, Pose::Identity(), hull, Pose::Identity()).status,
            gjk::Status::Converged);
}

// fuzz_queries (scripts/fuzz.sh, a 400 s run): a segment-like hull against a cylinder, both
// inflated by 660 and overlapping, scaled by 2^-231. The refine-set solver tested eq. (3) as
// the product f(0) * f(P_l) <= 0, of order |P|^6, which underflowed to 0 below a size of ~1e-53:
// the tetrahedron around the origin read as "separated", GJK stalled and the depth lost the
// cores' 1.94. Every solver must answer the same depth at every scale of the safe window.
TEST(FuzzRegressions, EveryScaleOfTheWindowGivesTheSameDepth) {
  const std::vector<Vec3> points = {{-0.0010501968503537009, -0.0016406249999999999, 0.000234375},
                                    {0.00013877952627905515, -0.0016406249999999999, 0.000234375},
                                    {-0.00031791338543677166, -0.0016406249999999999, 0.000234375}};
  const double inflation = 660.07905138339925;
  Pose pose = Pose::Identity();
  pose.linear() = Eigen::Quaterniond(0.5, 0.5, 0.5, 0.5).toRotationMatrix();
  pose.translation() = Vec3::Constant(1075.7784901336779);
  // Both inflations plus the cores' depth: the segment (x through 0 at y = -0.00164, inside the
  // cylinder) leaves it radially, through the side nearest it.
  const double depth = 2 * inflation + (1.9375 - 0.0016406249999999999);
  for (const auto solver : gjk::testing::kSolvers) {
    gjk::QueryOptions options;
    options.solver = solver;
    for (int k = -240; k <= 240; k += 6) {
      const double f = std::ldexp(1.0, k);
      std::vector<Vec3> scaled;
      for (const Vec3& p : points) scaled.push_back(p * f);
      const gjk::Shape a = gjk::inflated(ConvexPolytope::from_hull_vertices(scaled), inflation * f);
      const gjk::Shape b = gjk::inflated(gjk::Cylinder{1.9375 * f, 1.9375 * f}, inflation * f);
      Pose scaled_pose = pose;
      scaled_pose.translation() *= f;
      const gjk::PenetrationResult p = gjk::penetration(a, scaled_pose, b, scaled_pose, options);
      ASSERT_EQ(p.status, gjk::Status::Converged) << "solver " << int(solver) << " k " << k;
      EXPECT_NEAR(p.depth / f, depth, 1e-9) << "solver " << int(solver) << " k " << k;
    }
  }
}

// fuzz_queries (stop 31's CI run, 676 executions in): a converged penetration with a zero normal
// (fuzz/fuzz_queries.cpp, "penetration normal |n| = 0"). The crash file was lost with that
// machine; reading EPA's start gave two ways to exactly that answer. The first is pinned here on
// the engine's own EPA: a start simplex holding one point twice (a warm start's cache can name
// the same vertex pair twice) had a zero segment axis, so the triangle grown from it had a zero
// normal, which the flat-difference exit reported as the contact normal, "converged". (The
// second, a polytope whose live faces are all slivers passing the convergence test with their
// zero normal, is guarded in run_epa; no input here reaches it.)
TEST(FuzzRegressions, RepeatedStartPointsStillGiveTheDepth) {
  std::vector<Vec3> cube;
  for (int k = 0; k < 8; ++k) cube.emplace_back(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
  const ConvexPolytope a = ConvexPolytope::from_points(cube);
  const ConvexPolytope b = ConvexPolytope::from_points(cube);
  gjk::testing::Rng rng(0x5717u);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Pose pose_b = Pose::Identity();
    pose_b.linear() = rng.rotation();
    pose_b.translation() =
        Vec3(rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5));
    const gjk::PenetrationResult reference = gjk::penetration(a, Pose::Identity(), b, pose_b);
    if (!reference.collision || reference.status != gjk::Status::Converged) continue;
    const auto support = gjk::SupportMethod::BruteForce;
    const gjk::detail::PolytopeCore core_a(a, support), core_b(b, support);
    const gjk::detail::PairFrame frame = gjk::detail::relative_frame(Pose::Identity(), pose_b);
    const gjk::detail::MinkowskiDifference<gjk::detail::PolytopeCore, gjk::detail::PolytopeCore> md{
        core_a, core_b, frame.rotation, frame.translation};
    // Any vertex pair of A - B, repeated 2, 3 and 4 times (all of them on the origin's side or
    // not: EPA must grow a polytope around the origin from whatever it is given).
    gjk::SupportPoint p;
    ASSERT_TRUE(md.vertex_pair(trial % 8, (trial / 8) % 8, p));
    for (int copies = 2; copies <= 4; ++copies) {
      gjk::Simplex start;
      for (int i = 0; i < copies; ++i) {
        start.push_back(p);
        start.lambda[static_cast<size_t>(i)] = 1.0 / copies;
      }
      const gjk::detail::EpaOutcome e = gjk::detail::run_epa(md, start, {}, md.scale());
      ASSERT_EQ(e.status, gjk::Status::Converged) << "trial " << trial << " copies " << copies;
      EXPECT_NEAR(e.normal.norm(), 1.0, 1e-12) << "trial " << trial << " copies " << copies;
      EXPECT_NEAR(e.depth, reference.depth, 1e-9) << "trial " << trial << " copies " << copies;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);  // most random placements of two unit cubes overlap
}

}  // namespace
