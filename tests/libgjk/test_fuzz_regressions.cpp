// Regressions found by the fuzz targets (fuzz/, scripts/fuzz.sh). Each test names the target
// and what it found; the input is the decoded form of the crash file.
#include <gtest/gtest.h>
#include <gjk/gjk.hpp>

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

}  // namespace
