// Termination guarantees: every query loop is capped (GJK by max_iterations, EPA by
// max_epa_iterations, hill climbing by the vertex count). When a cap is hit the query returns
// the best bracket found with Status::MaxIterations: no exception, no NaN, and the bracket still
// holds the exact answer. Also bad option values.
#include <gjk/gjk.hpp>

#include "datasets.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace gjk;
using gjk::testing::make_pairs;

namespace {

bool finite(const Vec3& v) {
  return v.allFinite();
}

}  // namespace

TEST(Termination, GjkIterationCapReturnsAValidBracket) {
  const auto pairs = make_pairs(0x7e41, 600);
  int capped = 0, checked = 0;
  for (const auto& p : pairs) {
    const Shape a = ConvexPolytope::from_points(p.points_a),
                b = ConvexPolytope::from_points(p.points_b);
    const DistanceResult exact = distance(a, p.pose_a, b, p.pose_b);
    ASSERT_EQ(exact.status, Status::Converged) << p.describe();
    for (int cap : {1, 2, 3, 5, 8}) {
      for (SimplexSolver solver : gjk::testing::kSolvers) {
        QueryOptions o;
        o.max_iterations = cap;
        o.solver = solver;
        DistanceResult r;
        ASSERT_NO_THROW(r = distance(a, p.pose_a, b, p.pose_b, o)) << p.describe();
        ++checked;
        ASSERT_TRUE(r.status == Status::Converged || r.status == Status::MaxIterations ||
                    r.status == Status::Degenerate)
            << to_string(r.status) << " " << p.describe();
        ASSERT_TRUE(std::isfinite(r.distance) && finite(r.point_on_a) && finite(r.point_on_b))
            << p.describe();
        const double slack = 1e-9 * (1.0 + exact.distance);
        EXPECT_LE(r.lower_bound, exact.distance + slack) << cap << " " << p.describe();
        EXPECT_GE(r.upper_bound, exact.distance - slack) << cap << " " << p.describe();
        if (r.status == Status::MaxIterations) {
          ++capped;
          EXPECT_EQ(r.iterations, cap + 1);  // the starting support point counts as one
          // The reported distance is an achievable one: never below the exact distance.
          EXPECT_GE(r.distance, exact.distance - slack) << p.describe();
        } else if (r.status == Status::Converged) {
          EXPECT_NEAR(r.distance, exact.distance, 1e-9 * (1 + exact.distance)) << p.describe();
        }
      }
    }
  }
  EXPECT_GT(capped, checked / 4);  // the caps did bite
  std::cout << checked << " capped GJK queries, " << capped << " hit the cap\n";
}

TEST(Termination, EpaIterationCapReturnsAValidDepthBracket) {
  gjk::testing::PairOptions po;
  int capped = 0, checked = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    const auto p = gjk::testing::make_pair(0x7e42, i, gjk::testing::PairClass::Overlapping, po);
    const Shape a = ConvexPolytope::from_points(p.points_a),
                b = ConvexPolytope::from_points(p.points_b);
    const PenetrationResult exact = penetration(a, p.pose_a, b, p.pose_b);
    ASSERT_EQ(exact.status, Status::Converged) << p.describe();
    for (int cap : {1, 2, 4, 8}) {
      QueryOptions o;
      o.max_epa_iterations = cap;
      PenetrationResult r;
      ASSERT_NO_THROW(r = penetration(a, p.pose_a, b, p.pose_b, o)) << p.describe();
      ++checked;
      ASSERT_TRUE(std::isfinite(r.depth) && finite(r.normal) && finite(r.point_on_a))
          << p.describe();
      const double slack = 1e-9 * (1.0 + exact.depth);
      EXPECT_LE(r.lower_bound, exact.depth + slack) << cap << " " << p.describe();
      EXPECT_GE(r.upper_bound, exact.depth - slack) << cap << " " << p.describe();
      if (r.status == Status::MaxIterations) {
        ++capped;
        // The reported depth is an upper bound (a direction that does separate them).
        EXPECT_GE(r.depth, exact.depth - slack) << p.describe();
      } else {
        EXPECT_EQ(r.status, Status::Converged) << to_string(r.status) << " " << p.describe();
        EXPECT_NEAR(r.depth, exact.depth, 1e-9 * (1 + exact.depth)) << p.describe();
      }
    }
  }
  EXPECT_GT(capped, checked / 4);
  std::cout << checked << " capped EPA queries, " << capped << " hit the cap\n";
}

TEST(Termination, NonPositiveCapsAndBadTolerancesAreReportedNotLooped) {
  const Shape a = Box{Vec3(1, 1, 1)}, b = Sphere{0.5};
  Pose pb = Pose::Identity();
  pb.translation() = Vec3(3, 0, 0);
  std::vector<QueryOptions> bad;
  for (int cap : {0, -1}) {
    QueryOptions o;
    o.max_iterations = cap;
    bad.push_back(o);
    o = {};
    o.max_epa_iterations = cap;
    bad.push_back(o);
  }
  for (double tolerance : {std::nan(""), -1.0, HUGE_VAL}) {
    QueryOptions o;
    o.tolerance = tolerance;
    bad.push_back(o);
    o = {};
    o.epa_tolerance = tolerance;
    bad.push_back(o);
  }
  for (const QueryOptions& o : bad) {
    DistanceResult r;
    ASSERT_NO_THROW(r = distance(a, Pose::Identity(), b, pb, o));
    EXPECT_EQ(r.status, Status::InvalidInput);
    EXPECT_TRUE(std::isnan(r.lower_bound) && std::isnan(r.upper_bound));  // no usable bracket
    EXPECT_EQ(collide(a, Pose::Identity(), b, pb, o).status, Status::InvalidInput);
    EXPECT_EQ(penetration(a, Pose::Identity(), b, pb, o).status, Status::InvalidInput);
    EXPECT_EQ(signed_distance(a, Pose::Identity(), b, pb, o).status, Status::InvalidInput);
    EXPECT_EQ(closer_than(a, Pose::Identity(), b, pb, 1.0, o).status, Status::InvalidInput);
  }
}
