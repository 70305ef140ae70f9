// Degenerate inputs: they must not hang, crash or return NaN, and the answers must be right.
//
// Point, segment, collinear and coplanar hulls; duplicated and interior points; identical
// shapes in the same pose; exactly touching faces, edges and vertices; huge (1e6) and tiny
// (1e-6) scales; bodies 1e6 away from the origin; NaN/Inf inputs; hull adjacency sanity.
// Every query result is checked for its status and for NaN fields.
#include <gtest/gtest.h>

#include <gjk/gjk.hpp>
#include "datasets.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using gjk::Box;
using gjk::Capsule;
using gjk::ConvexPolytope;
using gjk::Cylinder;
using gjk::Pose;
using gjk::QueryOptions;
using gjk::Shape;
using gjk::SimplexSolver;
using gjk::Sphere;
using gjk::Status;
using gjk::Vec3;
using Mat3 = Eigen::Matrix3d;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-9;        // distances at scale ~1
constexpr double kDepthTol = 1e-6;   // EPA depths at scale ~1
constexpr double kTouchTol = 1e-14;  // "exactly touching": distance and depth ~ rounding

using gjk::testing::kSolvers;

QueryOptions opts(SimplexSolver s) {
  QueryOptions o;
  o.solver = s;
  return o;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : gen_(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(gen_);
  }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }
  Vec3 vec(double lo, double hi) { return Vec3(uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)); }
  Mat3 rotation() {
    std::normal_distribution<double> n(0.0, 1.0);
    Eigen::Quaterniond q(n(gen_), n(gen_), n(gen_), n(gen_));
    q.normalize();
    return q.toRotationMatrix();
  }
  std::mt19937_64& engine() { return gen_; }

 private:
  std::mt19937_64 gen_;
};

using gjk::testing::at;
using gjk::testing::make_pose;

Vec3 closest_on_segment(const Vec3& x, const Vec3& a, const Vec3& b) {
  const Vec3 d = b - a;
  const double dd = d.squaredNorm();
  if (dd == 0.0) return a;
  return a + std::clamp((x - a).dot(d) / dd, 0.0, 1.0) * d;
}

// Segment-segment distance: best of the four endpoint projections and the interior
// stationary point (see test_primitives.cpp).
double segment_distance(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  double best = std::min(
      {(p0 - closest_on_segment(p0, q0, q1)).norm(), (p1 - closest_on_segment(p1, q0, q1)).norm(),
       (q0 - closest_on_segment(q0, p0, p1)).norm(), (q1 - closest_on_segment(q1, p0, p1)).norm()});
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.dot(d1), e = d2.dot(d2), b = d1.dot(d2), c = d1.dot(r), f = d2.dot(r);
  const double denom = a * e - b * b;
  if (a > 0 && e > 0 && denom > 1e-14 * a * e) {
    const double s = (b * f - c * e) / denom, t = (a * f - b * c) / denom;
    if (s >= 0 && s <= 1 && t >= 0 && t <= 1)
      best = std::min(best, (p0 + s * d1 - q0 - t * d2).norm());
  }
  return best;
}

std::string fmt(const Vec3& v) {
  std::ostringstream s;
  s << std::setprecision(17) << "(" << v.x() << ", " << v.y() << ", " << v.z() << ")";
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// No NaN in any field; the status is the expected one.

bool finite(const Vec3& v) {
  return v.allFinite();
}

::testing::AssertionResult sane(const gjk::DistanceResult& r, Status want = Status::Converged) {
  if (r.status != want)
    return ::testing::AssertionFailure() << "status " << gjk::to_string(r.status);
  if (!std::isfinite(r.distance) || std::isnan(r.lower_bound) || std::isnan(r.upper_bound) ||
      !finite(r.point_on_a) || !finite(r.point_on_b) || !finite(r.normal)) {
    return ::testing::AssertionFailure()
           << "NaN/Inf field: distance " << r.distance << " bounds [" << r.lower_bound << ", "
           << r.upper_bound << "] pa " << fmt(r.point_on_a) << " pb " << fmt(r.point_on_b) << " n "
           << fmt(r.normal);
  }
  if (r.lower_bound > r.distance || r.upper_bound < r.distance) {
    return ::testing::AssertionFailure()
           << "bracket [" << r.lower_bound << ", " << r.upper_bound << "] misses " << r.distance;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult sane(const gjk::PenetrationResult& r, Status want = Status::Converged) {
  if (r.status != want)
    return ::testing::AssertionFailure() << "status " << gjk::to_string(r.status);
  if (!std::isfinite(r.depth) || !finite(r.normal) || !finite(r.point_on_a) ||
      !finite(r.point_on_b)) {
    return ::testing::AssertionFailure()
           << "NaN/Inf field: depth " << r.depth << " n " << fmt(r.normal) << " pa "
           << fmt(r.point_on_a) << " pb " << fmt(r.point_on_b);
  }
  if (r.collision && std::abs(r.normal.norm() - 1.0) > 1e-12) {
    return ::testing::AssertionFailure() << "normal not unit: " << fmt(r.normal);
  }
  if (r.depth < 0) return ::testing::AssertionFailure() << "negative depth " << r.depth;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult sane(const gjk::SignedDistanceResult& r,
                                Status want = Status::Converged) {
  if (r.status != want)
    return ::testing::AssertionFailure() << "status " << gjk::to_string(r.status);
  if (!std::isfinite(r.signed_distance) || !finite(r.normal) || !finite(r.point_on_a) ||
      !finite(r.point_on_b)) {
    return ::testing::AssertionFailure() << "NaN/Inf field: sd " << r.signed_distance;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult sane(const gjk::CollisionResult& r, Status want = Status::Converged) {
  if (r.status != want)
    return ::testing::AssertionFailure() << "status " << gjk::to_string(r.status);
  if (!finite(r.separating_direction)) return ::testing::AssertionFailure() << "NaN direction";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult sane(const gjk::ThresholdResult& r, Status want = Status::Converged) {
  if (r.status != want)
    return ::testing::AssertionFailure() << "status " << gjk::to_string(r.status);
  if (std::isnan(r.lower_bound) || std::isnan(r.upper_bound)) {
    return ::testing::AssertionFailure() << "NaN bound";
  }
  return ::testing::AssertionSuccess();
}

// All five queries on one pair, checked for sanity; returns the distance and penetration.
struct AllResults {
  gjk::DistanceResult d;
  gjk::PenetrationResult p;
  gjk::SignedDistanceResult s;
  gjk::CollisionResult c;
};

AllResults run_all(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                   const QueryOptions& o) {
  AllResults r;
  EXPECT_NO_THROW({
    r.d = gjk::distance(a, pa, b, pb, o);
    r.p = gjk::penetration(a, pa, b, pb, o);
    r.s = gjk::signed_distance(a, pa, b, pb, o);
    r.c = gjk::collide(a, pa, b, pb, o);
  });
  EXPECT_TRUE(sane(r.d)) << "distance";
  EXPECT_TRUE(sane(r.p)) << "penetration";
  EXPECT_TRUE(sane(r.s)) << "signed_distance";
  EXPECT_TRUE(sane(r.c)) << "collide";
  EXPECT_TRUE(sane(gjk::closer_than(a, pa, b, pb, 0.1, o))) << "closer_than";
  return r;
}

// Checks a pair against its analytic signed distance (negative: depth).
void expect_signed(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                   const QueryOptions& o, double expected, double tol_distance = kTol,
                   double tol_depth = kDepthTol) {
  const AllResults r = run_all(a, pa, b, pb, o);
  if (expected > 0) {
    EXPECT_NEAR(r.d.distance, expected, tol_distance);
    EXPECT_NEAR(r.s.signed_distance, expected, tol_distance);
    EXPECT_FALSE(r.c.collision);
    EXPECT_FALSE(r.p.collision);
    EXPECT_NEAR((r.d.point_on_b - r.d.point_on_a).norm(), r.d.distance, tol_distance);
  } else {
    EXPECT_EQ(r.d.distance, 0.0);
    EXPECT_TRUE(r.d.collision);
    EXPECT_TRUE(r.c.collision);
    EXPECT_TRUE(r.p.collision);
    EXPECT_NEAR(r.p.depth, -expected, tol_depth);
    EXPECT_NEAR(r.s.signed_distance, expected, tol_depth);
    EXPECT_LE((r.p.point_on_a - r.p.point_on_b - r.p.depth * r.p.normal).norm(), tol_depth)
        << "point_on_a - point_on_b != depth * normal";
  }
}

// ---------------------------------------------------------------------------------------------
// Degenerate hulls

TEST(DegenerateHull, SinglePoint) {
  const Vec3 p(0.3, -0.2, 0.7);
  const ConvexPolytope hull = ConvexPolytope::from_points({p, p, p});
  ASSERT_EQ(hull.vertices().size(), 1u);
  EXPECT_EQ(hull.dimension(), 0);
  EXPECT_TRUE(hull.triangles().empty());
  EXPECT_EQ(hull.vertices()[0], p);
  EXPECT_EQ(hull.center(), p);

  Rng rng(0xde9001);
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    for (int i = 0; i < 300; ++i) {
      const Pose pose = make_pose(rng.rotation(), rng.vec(-1, 1));
      const Vec3 world_p = pose * p;
      // Point vs sphere (exact: both cores are points).
      const double r = rng.uniform(0.1, 1.0);
      const Vec3 c = rng.vec(-2, 2);
      expect_signed(hull, pose, Sphere{r}, at(c), opts(solver), (c - world_p).norm() - r, kTol,
                    kTol);
      // Point vs point.
      const Vec3 q = rng.vec(-2, 2);
      const AllResults pp =
          run_all(hull, pose, ConvexPolytope::from_points({q}), Pose::Identity(), opts(solver));
      EXPECT_NEAR(pp.d.distance, (q - world_p).norm(), kTol);
      EXPECT_NEAR((pp.d.point_on_a - world_p).norm(), 0.0, kTol);
      EXPECT_NEAR((pp.d.point_on_b - q).norm(), 0.0, kTol);
      // Point inside a box: depth = distance to the nearest face.
      const Vec3 h = rng.vec(0.5, 1.0);
      const Vec3 local = rng.vec(-0.45, 0.45);
      const Pose box_pose = make_pose(rng.rotation(), rng.vec(-1, 1));
      const Pose hull_pose = at(box_pose * local - p);  // puts the hull's point at `local`
      expect_signed(Box{h}, box_pose, hull, hull_pose, opts(solver),
                    -(h - local.cwiseAbs()).minCoeff());
    }
    // A point in the same place as another point: touching, depth 0.
    const AllResults same = run_all(hull, Pose::Identity(), hull, Pose::Identity(), opts(solver));
    EXPECT_EQ(same.d.distance, 0.0);
    EXPECT_TRUE(same.d.collision);
    EXPECT_TRUE(same.c.collision);
    EXPECT_NEAR(same.p.depth, 0.0, kTouchTol);
    EXPECT_NEAR(same.s.signed_distance, 0.0, kTouchTol);
  }
}

TEST(DegenerateHull, TwoPointsAndCollinearSets) {
  const Vec3 a(-0.5, 0.2, 0.1), b(0.7, -0.3, 0.4);
  const ConvexPolytope seg = ConvexPolytope::from_points({a, b});
  ASSERT_EQ(seg.vertices().size(), 2u);
  EXPECT_EQ(seg.dimension(), 1);
  EXPECT_TRUE(seg.triangles().empty());

  // 60 collinear points (with duplicates) keep only the two extremes.
  std::vector<Vec3> line;
  for (int i = 0; i <= 50; ++i) line.push_back(a + (b - a) * (i / 50.0));
  for (int i = 0; i < 10; ++i) line.push_back(a + (b - a) * 0.5);
  std::shuffle(line.begin(), line.end(), std::mt19937_64(7));
  const ConvexPolytope collinear = ConvexPolytope::from_points(line);
  ASSERT_EQ(collinear.vertices().size(), 2u);
  EXPECT_EQ(collinear.dimension(), 1);
  const std::set<std::pair<double, double>> want{{a.x(), a.y()}, {b.x(), b.y()}};
  std::set<std::pair<double, double>> got;
  for (const Vec3& v : collinear.vertices()) got.insert({v.x(), v.y()});
  EXPECT_EQ(got.size(), 2u);
  for (const Vec3& v : collinear.vertices()) {
    EXPECT_TRUE((v - a).norm() < 1e-15 || (v - b).norm() < 1e-15) << fmt(v);
  }

  Rng rng(0xde9002);
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    for (int i = 0; i < 300; ++i) {
      const Pose pose = make_pose(rng.rotation(), rng.vec(-1, 1));
      const Vec3 wa = pose * a, wb = pose * b;
      const double r = rng.uniform(0.05, 0.8);
      const Vec3 c = rng.vec(-2, 2);
      expect_signed(collinear, pose, Sphere{r}, at(c), opts(solver),
                    (c - closest_on_segment(c, wa, wb)).norm() - r, kTol, kTol);
      // Segment vs segment (two-point hulls).
      const Vec3 q0 = rng.vec(-1.5, 1.5), q1 = rng.vec(-1.5, 1.5);
      const double want_d = segment_distance(wa, wb, q0, q1);
      const AllResults ss =
          run_all(seg, pose, ConvexPolytope::from_points({q0, q1}), Pose::Identity(), opts(solver));
      EXPECT_NEAR(ss.d.distance, want_d, kTol);
    }
  }
}

// Distance from x to a convex polygon (vertices in order, coplanar).
double point_polygon_distance(const Vec3& x, const std::vector<Vec3>& poly) {
  const Vec3 n = (poly[1] - poly[0]).cross(poly[2] - poly[0]).normalized();
  const Vec3 proj = x - n.dot(x - poly[0]) * n;
  bool inside = true;
  for (size_t i = 0; i < poly.size(); ++i) {
    const Vec3& p = poly[i];
    const Vec3& q = poly[(i + 1) % poly.size()];
    if ((q - p).cross(proj - p).dot(n) < 0) inside = false;
  }
  if (inside) return std::abs(n.dot(x - poly[0]));
  double best = kInf;
  for (size_t i = 0; i < poly.size(); ++i) {
    best = std::min(best, (x - closest_on_segment(x, poly[i], poly[(i + 1) % poly.size()])).norm());
  }
  return best;
}

TEST(DegenerateHull, CoplanarPolygons) {
  // A square with edge midpoints, interior points and duplicates: 4 vertices.
  std::vector<Vec3> pts = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
  const std::vector<Vec3> corners = pts;
  for (int i = 0; i < 4; ++i) pts.push_back(0.5 * (corners[i] + corners[(i + 1) % 4]));
  Rng rng(0xde9003);
  for (int i = 0; i < 30; ++i)
    pts.push_back(Vec3(rng.uniform(-0.9, 0.9), rng.uniform(-0.9, 0.9), 0));
  for (int i = 0; i < 4; ++i) pts.push_back(corners[static_cast<size_t>(i)]);
  std::shuffle(pts.begin(), pts.end(), rng.engine());
  const ConvexPolytope square = ConvexPolytope::from_points(pts);
  EXPECT_EQ(square.dimension(), 2);
  EXPECT_TRUE(square.triangles().empty());
  ASSERT_EQ(square.vertices().size(), 4u);
  for (const Vec3& v : square.vertices()) {
    EXPECT_EQ(std::abs(v.x()), 1.0);
    EXPECT_EQ(std::abs(v.y()), 1.0);
  }
  // The polygon's adjacency is its 4 edges.
  EXPECT_EQ(square.adjacency().size(), 8u);

  // A regular 7-gon in a tilted plane against spheres.
  const int n = 7;
  std::vector<Vec3> gon_local;
  for (int i = 0; i < n; ++i) {
    gon_local.emplace_back(0.8 * std::cos(2 * M_PI * i / n), 0.8 * std::sin(2 * M_PI * i / n), 0);
  }
  std::vector<Vec3> with_centre = gon_local;
  with_centre.push_back(Vec3::Zero());
  const ConvexPolytope gon = ConvexPolytope::from_points(with_centre);
  EXPECT_EQ(gon.vertices().size(), static_cast<size_t>(n));
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    for (int i = 0; i < 300; ++i) {
      const Pose pose = make_pose(rng.rotation(), rng.vec(-0.5, 0.5));
      std::vector<Vec3> world;
      for (const Vec3& v : gon_local) world.push_back(pose * v);
      const Vec3 c = rng.vec(-1.5, 1.5);
      const double r = rng.uniform(0.05, 0.5);
      const double d = point_polygon_distance(c, world) - r;
      if (std::abs(d) < 1e-6) continue;
      if (d > 0 || point_polygon_distance(c, world) > 0) {
        // Sphere apart, or overlapping with its centre off the polygon: exact either way.
        expect_signed(gon, pose, Sphere{r}, at(c), opts(solver), d, kTol, kTol);
      }
    }
    // A flat square inside a box, parallel to a face: to separate, push it out through the
    // nearest face (h_z - |z0|) or slide it sideways out (h_x + 1, h_y + 1).
    const Vec3 h(1.5, 2.0, 0.6);
    for (double z0 : {0.0, 0.2, -0.35, 0.55}) {
      expect_signed(Box{h}, Pose::Identity(), square, at(Vec3(0.1, -0.2, z0)), opts(solver),
                    -std::min({h.z() - std::abs(z0), h.x() + 1 - 0.1, h.y() + 1 - 0.2}));
    }
    // Two coplanar overlapping squares: the overlap has no thickness, depth 0 along the normal.
    const AllResults flat =
        run_all(square, Pose::Identity(), square, at(Vec3(0.5, 0.3, 0.0)), opts(solver));
    EXPECT_TRUE(flat.c.collision);
    EXPECT_TRUE(flat.d.collision);
    EXPECT_NEAR(flat.p.depth, 0.0, kTouchTol);
    if (flat.p.collision) {
      EXPECT_NEAR(std::abs(flat.p.normal.z()), 1.0, 1e-12);
    }
    // The same squares one above the other: distance = the gap.
    expect_signed(square, Pose::Identity(), square, at(Vec3(0.5, 0.3, 0.25)), opts(solver), 0.25);
  }
}

TEST(DegenerateHull, DuplicateAndInteriorPointsAreDropped) {
  Rng rng(0xde9004);
  for (int trial = 0; trial < 50; ++trial) {
    const Vec3 h = rng.vec(0.1, 2.0);
    std::vector<Vec3> pts;
    for (const Vec3& c : gjk::testing::box_corners(h)) {
      for (int k = 0; k < 3; ++k) pts.push_back(c);  // every corner three times
    }
    for (int i = 0; i < 100; ++i) pts.push_back(rng.vec(-0.99, 0.99).cwiseProduct(h));  // interior
    std::shuffle(pts.begin(), pts.end(), rng.engine());
    const Mat3 rot = rng.rotation();
    for (Vec3& p : pts) p = rot * p;
    const ConvexPolytope hull = ConvexPolytope::from_points(pts);
    EXPECT_EQ(hull.dimension(), 3);
    ASSERT_EQ(hull.vertices().size(), 8u) << "trial " << trial;
    EXPECT_EQ(hull.triangles().size(), 12u);
    // Each vertex is a distinct corner; each has 3 box-edge neighbours plus face diagonals.
    std::set<std::vector<double>> seen;
    for (const Vec3& v : hull.vertices()) {
      const Vec3 local = rot.transpose() * v;
      EXPECT_LT((local.cwiseAbs() - h).cwiseAbs().maxCoeff(), 1e-12) << fmt(local);
      seen.insert({std::round(local.x() / h.x()), std::round(local.y() / h.y()),
                   std::round(local.z() / h.z())});
    }
    EXPECT_EQ(seen.size(), 8u);
  }
}

// ---------------------------------------------------------------------------------------------
// The hull's bounding ball is the smallest enclosing ball (Welzl's algorithm, convex_polytope.cpp)

/// The smallest ball around `points` by brute force: among the balls with 1-4 of the points on
/// their sphere (diametral, circumcircle, circumsphere, each solved as a linear system) that
/// hold all points, the smallest radius.
double brute_force_smallest_radius(const std::vector<Vec3>& points) {
  const size_t n = points.size();
  double best = kInf;
  const auto consider = [&](const Vec3& c, double r) {
    if (!std::isfinite(r) || !(r < best)) return;
    for (const Vec3& p : points) {
      if ((p - c).norm() > r * (1.0 + 1e-9) + 1e-12) return;
    }
    best = r;
  };
  for (size_t i = 0; i < n; ++i) {
    consider(points[i], 0.0);
    for (size_t j = i + 1; j < n; ++j) {
      consider(0.5 * (points[i] + points[j]), 0.5 * (points[i] - points[j]).norm());
      for (size_t k = j + 1; k < n; ++k) {
        const Vec3 u = points[j] - points[i], v = points[k] - points[i];
        Eigen::Matrix2d m;
        m << u.dot(u), u.dot(v), u.dot(v), v.dot(v);
        if (std::abs(m.determinant()) > 1e-12 * u.squaredNorm() * v.squaredNorm()) {
          const Eigen::Vector2d st = m.fullPivLu().solve(0.5 * Eigen::Vector2d(u.dot(u), v.dot(v)));
          const Vec3 c = points[i] + st.x() * u + st.y() * v;
          consider(c, (points[i] - c).norm());
        }
        for (size_t l = k + 1; l < n; ++l) {
          Mat3 a;
          a.row(0) = 2.0 * u.transpose();
          a.row(1) = 2.0 * v.transpose();
          a.row(2) = 2.0 * (points[l] - points[i]).transpose();
          if (std::abs(a.determinant()) < 1e-9 * std::pow(a.norm(), 3)) continue;
          const Vec3 offset = a.fullPivLu().solve(
              Vec3(u.squaredNorm(), v.squaredNorm(), (points[l] - points[i]).squaredNorm()));
          consider(points[i] + offset, offset.norm());
        }
      }
    }
  }
  return best;
}

TEST(BoundingBall, SmallestEnclosingBallAgainstBruteForce) {
  // Hulls of 4-9 points (qhull) and raw vertex sets of 1-9 points, uniform in a box, on a
  // sphere, a cluster with one far point, coplanar, collinear, with duplicates: the ball around
  // ball_center() of radius ball_radius() holds every vertex, is the smallest one (brute force
  // over 1-4 boundary points), lies in the hull, and is never wider than the ball around the
  // mean (center(), bounding_radius()), which is left as it was.
  Rng rng(0xba11);
  int cases = 0, tighter_than_mean = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int kind = trial % 6;
    const int n = rng.integer(kind == 0 ? 4 : 1, 9);
    std::vector<Vec3> pts;
    const Vec3 offset = rng.vec(-10.0, 10.0);
    for (int i = 0; i < n; ++i) {
      Vec3 p = rng.vec(-1.0, 1.0);
      if (kind == 1) p = p.normalized();
      if (kind == 2) p = i == 0 ? Vec3(3.0, 0.5, 0.0) : 0.2 * p;
      if (kind == 3) p.z() = 0.0;
      if (kind == 4) p = Vec3(1.0, 2.0, -0.5) * p.x();
      if (kind == 5 && i > 0 && i % 2 == 0) p = pts.back() - offset;
      pts.push_back(p + offset);
    }
    const ConvexPolytope hull = kind == 0 || (kind == 1 && n >= 4)
                                    ? ConvexPolytope::from_points(pts)
                                    : ConvexPolytope::from_hull_vertices(pts);
    const std::vector<Vec3>& v = hull.vertices();
    const std::string what = "trial " + std::to_string(trial) + " kind " + std::to_string(kind);
    double farthest = 0.0, mean_radius = 0.0;
    Vec3 mean = Vec3::Zero();
    for (const Vec3& p : v) mean += p / static_cast<double>(v.size());
    for (const Vec3& p : v) {
      farthest = std::max(farthest, (p - hull.ball_center()).norm());
      mean_radius = std::max(mean_radius, (p - mean).norm());
    }
    EXPECT_LE(farthest, hull.ball_radius() * (1.0 + 1e-15)) << what;
    const double smallest = brute_force_smallest_radius(v);
    EXPECT_LE(hull.ball_radius(), smallest * (1.0 + 1e-9) + 1e-12) << what;
    EXPECT_GE(hull.ball_radius(), smallest * (1.0 - 1e-9)) << what;
    EXPECT_LT((hull.center() - mean).norm(), 1e-12) << what;
    EXPECT_NEAR(hull.bounding_radius(), mean_radius, 1e-12) << what;
    EXPECT_LE(hull.ball_radius(), hull.bounding_radius()) << what;
    if (hull.ball_radius() < 0.99 * hull.bounding_radius()) ++tighter_than_mean;
    for (const auto& t : hull.triangles()) {  // the centre on the inner side of every face
      const Vec3 normal = (v[t[1]] - v[t[0]]).cross(v[t[2]] - v[t[0]]);
      EXPECT_LE(normal.normalized().dot(hull.ball_center() - v[t[0]]), 1e-9) << what;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 3000);
  EXPECT_GT(tighter_than_mean, 1000);
}

TEST(BoundingBall, ExtremeMagnitudesAndKnownBalls) {
  // A box's ball is its half-diagonal around its centre, its inner ball its smallest half
  // extent; a regular octahedron's are its circumradius and 1/sqrt(3) of it; a hull without
  // faces (from_hull_vertices) has no inner ball; coordinates of 1e150 and 1e-150 neither
  // overflow nor underflow; scaled() scales both balls.
  for (const double scale : {1e-150, 1e-6, 1.0, 1e6, 1e150}) {
    const Vec3 h = Vec3(1.0, 2.0, 3.0) * scale;
    const Vec3 centre = Vec3(5.0, -7.0, 2.0) * scale;
    std::vector<Vec3> corners;
    for (const Vec3& c : gjk::testing::box_corners(h)) corners.push_back(c + centre);
    corners.push_back(centre + 0.5 * h);  // an interior point moves the mean, not the ball
    const ConvexPolytope box = ConvexPolytope::from_hull_vertices(corners);
    EXPECT_NEAR(box.ball_radius() / h.norm(), 1.0, 1e-14) << scale;
    EXPECT_LT((box.ball_center() - centre).norm() / h.norm(), 1e-14) << scale;
    EXPECT_GT(box.bounding_radius(), box.ball_radius()) << scale;
    const ConvexPolytope doubled = box.scaled(2.0);
    EXPECT_EQ(doubled.ball_radius(), 2.0 * box.ball_radius()) << scale;
    EXPECT_EQ(doubled.ball_center(), 2.0 * box.ball_center()) << scale;
    EXPECT_EQ(box.inner_radius(), 0.0) << scale;
    const ConvexPolytope solid = ConvexPolytope::from_points(corners);  // with its faces
    EXPECT_LE(solid.inner_radius(), scale) << scale;
    EXPECT_NEAR(solid.inner_radius() / scale, 1.0, 1e-12) << scale;
    EXPECT_EQ(solid.scaled(2.0).inner_radius(), 2.0 * solid.inner_radius()) << scale;
    std::vector<Vec3> octahedron;
    for (int k = 0; k < 3; ++k) {
      for (const double s : {-1.0, 1.0}) octahedron.push_back(centre + s * scale * Vec3::Unit(k));
    }
    octahedron.push_back(centre + 0.9 * scale * Vec3::UnitX());  // off-centre weight
    const ConvexPolytope o = ConvexPolytope::from_hull_vertices(octahedron);
    EXPECT_NEAR(o.ball_radius() / scale, 1.0, 1e-14) << scale;
    const double inscribed = scale / std::sqrt(3.0);
    const ConvexPolytope solid_o = ConvexPolytope::from_points(octahedron);
    EXPECT_LE(solid_o.inner_radius(), inscribed) << scale;
    EXPECT_NEAR(solid_o.inner_radius() / inscribed, 1.0, 1e-12) << scale;
  }
}

/// The largest distance r such that the ball of radius r around `c` lies inside the hull of
/// `points`, by brute force over the hull's supporting planes: every plane through three points
/// with all points on one side (within `tolerance`), its distance from c in long double. 0 when
/// no three points span a supporting plane with c inside (a flat set).
double brute_force_inner_radius(const std::vector<Vec3>& points, const Vec3& c, double tolerance) {
  using V = Eigen::Matrix<long double, 3, 1>;
  const size_t n = points.size();
  long double best = kInf;
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      for (size_t k = j + 1; k < n; ++k) {
        const V p = points[i].cast<long double>();
        const V normal =
            (points[j].cast<long double>() - p).cross(points[k].cast<long double>() - p);
        const long double length = normal.norm();
        if (!(length > 0.0L)) continue;
        const V unit = normal / length;
        long double lo = 0.0L, hi = 0.0L;
        for (const Vec3& q : points) {
          const long double h = unit.dot(q.cast<long double>() - p);
          lo = std::min(lo, h);
          hi = std::max(hi, h);
        }
        if (lo < -tolerance && hi > tolerance) continue;  // points on both sides: not a face
        const long double inside = unit.dot(c.cast<long double>() - p);
        best = std::min(best, std::abs(inside));
        any = true;
      }
    }
  }
  return any ? static_cast<double>(best) : 0.0;
}

TEST(InnerBall, InsideTheHullAgainstBruteForceFaces) {
  // inner_radius(): the ball of that radius around ball_center() lies inside the hull (never
  // beyond a supporting plane found by brute force over vertex triples) and is no more than
  // rounding below the largest such ball. Hulls of 4-12 points: uniform in a box, on a sphere,
  // flattened to 1e-3, needles, grid points with coplanar faces, far from the origin.
  Rng rng(0x1a4e);
  int solid = 0, positive = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int kind = trial % 6;
    const int n = rng.integer(4, 12);
    const Vec3 offset = kind == 5 ? rng.vec(-1e4, 1e4) : rng.vec(-3.0, 3.0);
    std::vector<Vec3> pts;
    for (int i = 0; i < n; ++i) {
      Vec3 p = rng.vec(-1.0, 1.0);
      if (kind == 1) p = p.normalized();
      if (kind == 2) p.z() *= 1e-3;
      if (kind == 3) p = Vec3(50.0 * p.x(), 0.1 * p.y(), 0.1 * p.z());
      if (kind == 4) p = p.array().round().matrix();
      pts.push_back(p + offset);
    }
    if (kind == 4) {
      for (const Vec3& c : gjk::testing::box_corners(Vec3(1, 1, 1))) pts.push_back(c + offset);
    }
    const ConvexPolytope hull = ConvexPolytope::from_points(pts);
    const std::string what = "trial " + std::to_string(trial) + " kind " + std::to_string(kind);
    if (hull.dimension() < 3) {
      EXPECT_EQ(hull.inner_radius(), 0.0) << what;
      continue;
    }
    ++solid;
    const double size = hull.ball_radius() + hull.ball_center().cwiseAbs().maxCoeff();
    const double reference =
        brute_force_inner_radius(hull.vertices(), hull.ball_center(), 1e-13 * size);
    EXPECT_GE(hull.inner_radius(), 0.0) << what;
    EXPECT_LE(hull.inner_radius(), reference + 1e-13 * size) << what;
    EXPECT_GE(hull.inner_radius(), reference - 1e-9 * size) << what;
    positive += hull.inner_radius() > 0.0 ? 1 : 0;
  }
  EXPECT_GT(solid, 2400);
  EXPECT_GT(positive, 2000);
}

// ---------------------------------------------------------------------------------------------
// Hull adjacency sanity on random hulls

TEST(DegenerateHull, AdjacencyIsSymmetricAndCoversTriangleEdges) {
  Rng rng(0xde9005);
  int hulls = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Vec3> pts;
    const int kind = trial % 4;
    const int n = rng.integer(4, 80);
    for (int i = 0; i < n; ++i) {
      Vec3 p = rng.vec(-1, 1);
      if (kind == 1) p.normalize();                   // all on a sphere: every point a vertex
      if (kind == 2) p = p.array().round().matrix();  // integer grid: many coplanar points
      pts.push_back(p);
    }
    if (kind == 3) pts.insert(pts.end(), pts.begin(), pts.begin() + n / 2);  // duplicates
    if (kind == 2) {  // make sure the grid set is solid
      for (const Vec3& c : gjk::testing::box_corners(Vec3(1, 1, 1))) pts.push_back(c);
    }
    const ConvexPolytope hull = ConvexPolytope::from_points(pts);
    if (hull.dimension() < 3) continue;
    ++hulls;
    SCOPED_TRACE("trial " + std::to_string(trial));
    const auto& verts = hull.vertices();
    const auto& adj = hull.adjacency();
    const auto& off = hull.adjacency_offsets();
    const size_t nv = verts.size();
    ASSERT_EQ(off.size(), nv + 1);
    EXPECT_EQ(off.front(), 0u);
    EXPECT_EQ(off.back(), adj.size());
    auto neighbours = [&](std::uint32_t i) {
      return std::set<std::uint32_t>(adj.begin() + off[i], adj.begin() + off[i + 1]);
    };
    for (std::uint32_t i = 0; i < nv; ++i) {
      ASSERT_LE(off[i], off[i + 1]);
      const auto ni = neighbours(i);
      EXPECT_EQ(ni.size(), static_cast<size_t>(off[i + 1] - off[i])) << "duplicate neighbour";
      EXPECT_EQ(ni.count(i), 0u) << "self loop at " << i;
      EXPECT_GE(ni.size(), 3u) << "a solid hull's vertex has at least 3 neighbours";
      for (std::uint32_t j : ni) {
        ASSERT_LT(j, nv);
        EXPECT_EQ(neighbours(j).count(i), 1u) << "adjacency not symmetric: " << i << "-" << j;
      }
    }
    std::set<std::pair<std::uint32_t, std::uint32_t>> tri_edges;
    for (const auto& t : hull.triangles()) {
      const Vec3 normal = (verts[t[1]] - verts[t[0]]).cross(verts[t[2]] - verts[t[0]]);
      EXPECT_GT(normal.norm(), 0.0) << "zero-area triangle";
      for (int e = 0; e < 3; ++e) {
        const std::uint32_t p = t[static_cast<size_t>(e)], q = t[static_cast<size_t>((e + 1) % 3)];
        ASSERT_LT(p, nv);
        EXPECT_EQ(neighbours(p).count(q), 1u) << "triangle edge " << p << "-" << q << " missing";
        tri_edges.insert({std::min(p, q), std::max(p, q)});
      }
      // Outward orientation: every input point is on the inner side of every triangle.
      const Vec3 unit = normal.normalized();
      double worst = -kInf;
      for (const Vec3& p : pts) worst = std::max(worst, unit.dot(p - verts[t[0]]));
      EXPECT_LE(worst, 1e-12) << "a point lies outside a hull face (or the face points inward)";
    }
    // Every adjacency edge is a triangle edge, and Euler's formula holds (V - E + F = 2).
    EXPECT_EQ(tri_edges.size(), adj.size() / 2);
    EXPECT_EQ(static_cast<long>(nv) - static_cast<long>(tri_edges.size()) +
                  static_cast<long>(hull.triangles().size()),
              2);
    // Vertices are input points, and support_index agrees with a brute-force scan.
    for (const Vec3& v : verts) {
      EXPECT_TRUE(std::any_of(pts.begin(), pts.end(), [&](const Vec3& p) { return p == v; }));
    }
    for (int k = 0; k < 20; ++k) {
      const Vec3 d = rng.vec(-1, 1);
      double best = -kInf;
      for (const Vec3& p : pts) best = std::max(best, p.dot(d));
      EXPECT_NEAR(verts[static_cast<size_t>(hull.support_index(d))].dot(d), best, 1e-12);
    }
  }
  EXPECT_GT(hulls, 250);
}

// ---------------------------------------------------------------------------------------------
// Identical shapes in the same pose

TEST(DegenerateContact, IdenticalShapesSamePose) {
  Rng rng(0xde9006);
  const double a = 0.7;  // octahedron |x|+|y|+|z| <= a: A - A = 2A, depth 2a/sqrt(3)
  const ConvexPolytope octa = ConvexPolytope::from_points(
      {{a, 0, 0}, {-a, 0, 0}, {0, a, 0}, {0, -a, 0}, {0, 0, a}, {0, 0, -a}});
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    for (int i = 0; i < 40; ++i) {
      const Pose pose = i == 0 ? Pose::Identity() : make_pose(rng.rotation(), rng.vec(-2, 2));
      const Vec3 h = rng.vec(0.1, 1.0);
      const double r = rng.uniform(0.1, 1.0), hl = rng.uniform(0.1, 1.0);
      const double infl = rng.uniform(0.01, 0.2);
      struct Case {
        const char* name;
        Shape shape;
        double depth;
        double tol;
      };
      const Case cases[] = {
          {"box", Box{h}, 2 * h.minCoeff(), kDepthTol},
          {"hull of box", ConvexPolytope::from_points(gjk::testing::box_corners(h)),
           2 * h.minCoeff(), kDepthTol},
          {"sphere", Sphere{r}, 2 * r, kTol},
          {"capsule", Capsule{r, hl}, 2 * r, kDepthTol},
          {"cylinder", Cylinder{r, hl}, 2 * std::min(r, hl), 1e-6},
          {"octahedron", octa, 2 * a / std::sqrt(3.0), kDepthTol},
          {"inflated box", gjk::inflated(Box{h}, infl), 2 * (h.minCoeff() + infl), kDepthTol},
      };
      for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        if (std::string(c.name) != "cylinder") {
          expect_signed(c.shape, pose, c.shape, pose, opts(solver), -c.depth, kTol, c.tol);
          continue;
        }
        // Coaxial identical cylinders: every radial direction is a minimum, so EPA's lower
        // bound (an inscribed polytope) cannot close on the curved rim within the iteration
        // cap. The answer is the upper bound, exact here; the status must say the bracket is
        // open rather than claim convergence, and the bracket must hold the true depth.
        // When the cap and the side nearly tie, the same holds for the cap depth: the bracket
        // must then hold the truth and the depth lie in it.
        const gjk::PenetrationResult p =
            gjk::penetration(c.shape, pose, c.shape, pose, opts(solver));
        EXPECT_TRUE(p.collision);
        EXPECT_TRUE(p.status == Status::Converged || p.status == Status::MaxIterations)
            << gjk::to_string(p.status);
        EXPECT_LE(p.lower_bound, c.depth + 1e-9);
        EXPECT_GE(p.upper_bound, c.depth - 1e-9);
        EXPECT_GE(p.depth, p.lower_bound);
        EXPECT_LE(p.depth, p.upper_bound);
        if (p.status == Status::Converged || std::abs(r - hl) > 0.01) {
          EXPECT_NEAR(p.depth, c.depth, c.tol) << "r " << r << " hl " << hl;
        }
        EXPECT_LE((p.point_on_a - p.point_on_b - p.depth * p.normal).norm(), c.tol);
        const gjk::SignedDistanceResult sd =
            gjk::signed_distance(c.shape, pose, c.shape, pose, opts(solver));
        EXPECT_EQ(sd.signed_distance, -p.depth);
      }
    }
  }
}

// A sphere at the centre of a box and on its symmetry planes: GJK's terminal simplex is flat
// (a segment or triangle through the origin) and EPA must grow it correctly.
TEST(DegenerateContact, SphereAtBoxCentreAndSymmetryPlanes) {
  const Shape box = Box{Vec3(1, 1, 1)};
  const double r = 0.3;
  const Vec3 centres[] = {{0, 0, 0},        {0.5, 0.5, 0.5}, {0.5, 0.5, 0},   {0.3, 0.3, 0.1},
                          {0.2, 0.1, -0.2}, {0, 0.4, 0},     {0.5, 0.2, -0.5}};
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    for (const Vec3& c : centres) {
      SCOPED_TRACE("sphere r=0.3 at " + fmt(c) + " in box h=(1,1,1)");
      expect_signed(box, Pose::Identity(), Sphere{r}, at(c), opts(solver),
                    -(r + 1.0 - c.cwiseAbs().maxCoeff()));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Exactly touching faces, edges and vertices

void expect_touching(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                     const QueryOptions& o, bool exact) {
  const AllResults r = run_all(a, pa, b, pb, o);
  const double tol = exact ? 0.0 : kTouchTol;
  EXPECT_LE(r.d.distance, tol);
  EXPECT_LE(std::abs(r.s.signed_distance), kTouchTol);
  EXPECT_LE(r.p.depth, kTouchTol);
  EXPECT_TRUE(r.d.collision) << "touching counts as collision (distance " << r.d.distance << ")";
  EXPECT_TRUE(r.c.collision) << "collide(): touching counts as collision";
  EXPECT_TRUE(gjk::closer_than(a, pa, b, pb, 1e-9, o).closer);
  if (exact) {
    EXPECT_TRUE(r.p.collision);
  }
}

TEST(DegenerateContact, ExactlyTouching) {
  const Shape unit = Box{Vec3(1, 1, 1)};
  const Shape hull = ConvexPolytope::from_points(gjk::testing::box_corners(Vec3(1, 1, 1)));
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    const QueryOptions o = opts(solver);
    for (const Shape* b : {&unit, &hull}) {
      SCOPED_TRACE(gjk::shape_name(*b));
      {
        SCOPED_TRACE("face-face");
        expect_touching(unit, Pose::Identity(), *b, at(Vec3(2, 0.3, -0.4)), o, true);
      }
      {
        SCOPED_TRACE("edge-edge");
        expect_touching(unit, Pose::Identity(), *b, at(Vec3(2, 2, 0.5)), o, true);
      }
      {
        SCOPED_TRACE("vertex-vertex");
        expect_touching(unit, Pose::Identity(), *b, at(Vec3(-2, 2, -2)), o, true);
      }
      {
        SCOPED_TRACE("edge on face (B rotated 45 deg about z)");
        const Pose pb = gjk::pose_from_xyz(Vec3(1 + std::sqrt(2.0), 0.2, 0), Vec3(0, 0, M_PI / 4));
        expect_touching(unit, Pose::Identity(), *b, pb, o, false);
      }
      {
        SCOPED_TRACE("vertex on face (B's corner on A's +x face)");
        const Pose pb = make_pose(
            Eigen::Quaterniond::FromTwoVectors(Vec3(-1, -1, -1), -Vec3::UnitX()).toRotationMatrix(),
            Vec3(1 + std::sqrt(3.0), 0.1, 0.1));
        expect_touching(unit, Pose::Identity(), *b, pb, o, false);
      }
    }
    {
      SCOPED_TRACE("sphere-sphere");
      expect_touching(Sphere{1.0}, Pose::Identity(), Sphere{0.5}, at(Vec3(0, 1.5, 0)), o, true);
    }
    {
      SCOPED_TRACE("sphere on box face");
      expect_touching(unit, Pose::Identity(), Sphere{0.5}, at(Vec3(0.2, -0.3, 1.5)), o, true);
    }
    {
      SCOPED_TRACE("crossed capsules");
      expect_touching(Capsule{0.25, 1.0}, Pose::Identity(), Capsule{0.25, 1.0},
                      gjk::pose_from_xyz(Vec3(0.5, 0, 0), Vec3(M_PI / 2, 0, 0)), o, false);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Scales and far-away bodies

// Random pair and its analytic distance/depth at unit scale, scaled by s.
struct ScaledCase {
  Shape a, b;
  Pose pa, pb;
  double expected;   // signed distance
  bool exact_depth;  // depth does not need EPA
};

ScaledCase scaled_case(Rng& rng, int kind, double s) {
  ScaledCase c;
  const Pose pa = make_pose(rng.rotation(), rng.vec(-1, 1) * s);
  const Pose pb = make_pose(rng.rotation(), rng.vec(-1, 1) * s);
  c.pa = pa;
  c.pb = pb;
  if (kind == 0) {  // sphere - sphere
    const double ra = rng.uniform(0.1, 0.8) * s, rb = rng.uniform(0.1, 0.8) * s;
    c.a = Sphere{ra};
    c.b = Sphere{rb};
    c.expected = (pb.translation() - pa.translation()).norm() - ra - rb;
    c.exact_depth = true;
  } else if (kind == 1) {  // box - sphere, centre outside the box
    const Vec3 h = rng.vec(0.1, 1.0) * s;
    const double r = rng.uniform(0.1, 0.8) * s;
    const Vec3 local = pa.inverse() * pb.translation();
    const Vec3 q = local.cwiseMax(-h).cwiseMin(h);
    c.a = Box{h};
    c.b = Sphere{r};
    c.expected = (local - q).norm() - r;
    c.exact_depth = (local - q).norm() > 0;
    if (!c.exact_depth) c.expected = -(r + (h - local.cwiseAbs()).minCoeff());
  } else {  // capsule - capsule
    const Capsule ca{rng.uniform(0.05, 0.4) * s, rng.uniform(0.1, 1.0) * s};
    const Capsule cb{rng.uniform(0.05, 0.4) * s, rng.uniform(0.1, 1.0) * s};
    c.a = ca;
    c.b = cb;
    const Vec3 ea = pa.linear() * Vec3(0, 0, ca.half_length);
    const Vec3 eb = pb.linear() * Vec3(0, 0, cb.half_length);
    // Differences of translations first: exact-ish whatever the offset.
    const Vec3 t = pb.translation() - pa.translation();
    c.expected = segment_distance(-ea, ea, t - eb, t + eb) - ca.radius - cb.radius;
    c.exact_depth = true;
  }
  return c;
}

TEST(DegenerateScale, HugeAndTinyShapes) {
  for (double s : {1e6, 1e-6}) {
    Rng rng(0xde9007);
    for (SimplexSolver solver : kSolvers) {
      SCOPED_TRACE(std::string(gjk::to_string(solver)) + " scale " + std::to_string(s));
      int failures = 0;
      for (int i = 0; i < 600; ++i) {
        const ScaledCase c = scaled_case(rng, i % 3, s);
        const gjk::SignedDistanceResult r =
            gjk::signed_distance(c.a, c.pa, c.b, c.pb, opts(solver));
        const double rel = c.expected > 0 || c.exact_depth ? 1e-9 : kDepthTol;
        if (!sane(r) || !(std::abs(r.signed_distance - c.expected) <= rel * s)) {
          if (failures++ < 5) {
            ADD_FAILURE() << "case " << i << " kind " << i % 3 << ": signed distance "
                          << r.signed_distance << " want " << c.expected << " status "
                          << gjk::to_string(r.status);
          }
        }
        if (c.expected > 0) {
          const gjk::DistanceResult d = gjk::distance(c.a, c.pa, c.b, c.pb, opts(solver));
          EXPECT_TRUE(sane(d));
          EXPECT_NEAR(d.distance, c.expected, 1e-9 * s);
          EXPECT_NEAR((d.point_on_b - d.point_on_a).norm(), d.distance, 1e-9 * s);
          EXPECT_FALSE(d.collision);
          EXPECT_FALSE(gjk::collide(c.a, c.pa, c.b, c.pb, opts(solver)).collision);
        }
      }
      EXPECT_EQ(failures, 0);
      // Hulls: the scaled problem's answer is s times the unit problem's.
      Rng hull_rng(0xde9008);
      for (int i = 0; i < 100; ++i) {
        std::vector<Vec3> pa_pts, pb_pts;
        for (int k = 0; k < 12; ++k) pa_pts.push_back(hull_rng.vec(-0.6, 0.6));
        for (int k = 0; k < 12; ++k) pb_pts.push_back(hull_rng.vec(-0.6, 0.6));
        const Mat3 ra = hull_rng.rotation(), rb = hull_rng.rotation();
        const Vec3 ta = hull_rng.vec(-1, 1), tb = hull_rng.vec(-1, 1);
        std::vector<Vec3> pa_s = pa_pts, pb_s = pb_pts;
        for (Vec3& p : pa_s) p *= s;
        for (Vec3& p : pb_s) p *= s;
        const double unit =
            gjk::signed_distance(ConvexPolytope::from_points(pa_pts), make_pose(ra, ta),
                                 ConvexPolytope::from_points(pb_pts), make_pose(rb, tb),
                                 opts(solver))
                .signed_distance;
        const gjk::SignedDistanceResult scaled = gjk::signed_distance(
            ConvexPolytope::from_points(pa_s), make_pose(ra, ta * s),
            ConvexPolytope::from_points(pb_s), make_pose(rb, tb * s), opts(solver));
        EXPECT_TRUE(sane(scaled));
        EXPECT_NEAR(scaled.signed_distance / s, unit, unit > 0 ? 1e-9 : kDepthTol)
            << "hull case " << i;
      }
    }
  }
}

TEST(DegenerateScale, UnitBodiesFarFromOrigin) {
  const Vec3 offset(1e6, -1e6, 1e6);
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    Rng rng(0xde9009);
    int failures = 0;
    for (int i = 0; i < 900; ++i) {
      ScaledCase c = scaled_case(rng, i % 3, 1.0);
      // Move both bodies far away. The reference used differences of the translations (or the
      // sphere centre in the box frame), so recompute it from the rounded far poses.
      c.pa.translation() += offset;
      c.pb.translation() += offset;
      const ScaledCase recomputed = [&] {
        ScaledCase r = c;
        const Vec3 t = c.pb.translation() - c.pa.translation();  // exact (Sterbenz)
        if (i % 3 == 0) {
          r.expected = t.norm() - std::get<Sphere>(c.a.geometry).radius -
                       std::get<Sphere>(c.b.geometry).radius;
        } else if (i % 3 == 1) {
          const Vec3 h = std::get<Box>(c.a.geometry).half_extents;
          const double rad = std::get<Sphere>(c.b.geometry).radius;
          const Vec3 local = c.pa.linear().transpose() * t;
          const Vec3 q = local.cwiseMax(-h).cwiseMin(h);
          r.expected = (local - q).norm() > 0 ? (local - q).norm() - rad
                                              : -(rad + (h - local.cwiseAbs()).minCoeff());
        } else {
          const Capsule ca = std::get<Capsule>(c.a.geometry), cb = std::get<Capsule>(c.b.geometry);
          const Vec3 ea = c.pa.linear() * Vec3(0, 0, ca.half_length);
          const Vec3 eb = c.pb.linear() * Vec3(0, 0, cb.half_length);
          r.expected = segment_distance(-ea, ea, t - eb, t + eb) - ca.radius - cb.radius;
        }
        return r;
      }();
      const AllResults r = run_all(c.a, c.pa, c.b, c.pb, opts(solver));
      const double tol = recomputed.expected > 0 || c.exact_depth ? kTol : kDepthTol;
      if (!(std::abs(r.s.signed_distance - recomputed.expected) <= tol)) {
        if (failures++ < 5) {
          ADD_FAILURE() << "case " << i << ": signed distance " << r.s.signed_distance << " want "
                        << recomputed.expected;
        }
      }
      if (recomputed.expected > 1e-6) {
        EXPECT_NEAR(r.d.distance, recomputed.expected, kTol);
        // World witness points carry the 1e6 offset: ~1e-10 rounding per coordinate.
        EXPECT_NEAR((r.d.point_on_b - r.d.point_on_a).norm(), r.d.distance, 1e-9);
        EXPECT_LT((r.d.point_on_a - offset).norm(), 10.0);
      }
    }
    EXPECT_EQ(failures, 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Invalid input

TEST(DegenerateInput, NaNAndInfGiveInvalidInputWithoutThrowing) {
  const Shape good = Box{Vec3(1, 1, 1)};
  const Pose good_pose = at(Vec3(3, 0, 0));
  std::vector<std::pair<std::string, Pose>> bad_poses;
  {
    Pose p = Pose::Identity();
    p.translation().x() = kNaN;
    bad_poses.emplace_back("NaN translation", p);
    p = Pose::Identity();
    p.translation().z() = kInf;
    bad_poses.emplace_back("Inf translation", p);
    p = Pose::Identity();
    p.linear()(1, 2) = kNaN;
    bad_poses.emplace_back("NaN rotation", p);
    p = Pose::Identity();
    p.linear()(0, 0) = -kInf;
    bad_poses.emplace_back("Inf rotation", p);
  }
  std::vector<std::pair<std::string, Shape>> bad_shapes = {
      {"sphere radius NaN", Sphere{kNaN}},
      {"sphere radius Inf", Sphere{kInf}},
      {"sphere radius negative", Sphere{-1.0}},
      {"box half extent NaN", Box{Vec3(1, kNaN, 1)}},
      {"box half extent Inf", Box{Vec3(kInf, 1, 1)}},
      {"box half extent negative", Box{Vec3(1, 1, -0.5)}},
      {"capsule radius NaN", Capsule{kNaN, 1.0}},
      {"capsule half_length negative", Capsule{0.5, -1.0}},
      {"cylinder radius Inf", Cylinder{kInf, 1.0}},
      {"cylinder half_length NaN", Cylinder{1.0, kNaN}},
      {"inflation NaN", Shape{Box{Vec3(1, 1, 1)}, kNaN}},
      {"inflation negative", gjk::inflated(Sphere{1.0}, -2.0)},
      {"inflation Inf", gjk::inflated(Capsule{0.5, 0.5}, kInf)},
      {"empty polytope", ConvexPolytope()},
  };
  struct Input {
    std::string what;
    Shape a, b;
    Pose pa, pb;
  };
  std::vector<Input> inputs;
  for (const auto& [name, pose] : bad_poses) {
    inputs.push_back({name + " on A", good, good, pose, good_pose});
    inputs.push_back({name + " on B", good, Sphere{0.5}, good_pose, pose});
  }
  for (const auto& [name, shape] : bad_shapes) {
    inputs.push_back({name + " as A", shape, good, Pose::Identity(), good_pose});
    inputs.push_back({name + " as B", good, shape, Pose::Identity(), good_pose});
  }
  for (SimplexSolver solver : kSolvers) {
    const QueryOptions o = opts(solver);
    for (const Input& in : inputs) {
      SCOPED_TRACE(in.what + " / " + gjk::to_string(solver));
      gjk::DistanceResult d;
      gjk::PenetrationResult p;
      gjk::SignedDistanceResult s;
      gjk::CollisionResult c;
      gjk::ThresholdResult t;
      ASSERT_NO_THROW({
        d = gjk::distance(in.a, in.pa, in.b, in.pb, o);
        p = gjk::penetration(in.a, in.pa, in.b, in.pb, o);
        s = gjk::signed_distance(in.a, in.pa, in.b, in.pb, o);
        c = gjk::collide(in.a, in.pa, in.b, in.pb, o);
        t = gjk::closer_than(in.a, in.pa, in.b, in.pb, 0.5, o);
      });
      EXPECT_EQ(d.status, Status::InvalidInput);
      EXPECT_EQ(p.status, Status::InvalidInput);
      EXPECT_EQ(s.status, Status::InvalidInput);
      EXPECT_EQ(c.status, Status::InvalidInput);
      EXPECT_EQ(t.status, Status::InvalidInput);
      // "Nothing else set": no claim of collision, no direction, no witness points.
      EXPECT_FALSE(d.collision);
      EXPECT_FALSE(p.collision);
      EXPECT_FALSE(c.collision);
      EXPECT_FALSE(t.closer);
      EXPECT_TRUE(d.normal.isZero() && p.normal.isZero() && s.normal.isZero());
      EXPECT_TRUE(d.point_on_a.isZero() && d.point_on_b.isZero());
      EXPECT_TRUE(p.point_on_a.isZero() && p.point_on_b.isZero());
      EXPECT_EQ(p.depth, 0.0);
      EXPECT_TRUE(c.separating_direction.isZero());
      // Documented InvalidInput outputs: the distance bracket and the signed distance are NaN
      // so that they cannot be mistaken for answers.
      EXPECT_TRUE(std::isnan(d.lower_bound) && std::isnan(d.upper_bound));
      EXPECT_TRUE(std::isnan(s.signed_distance));
    }
    // A NaN threshold is invalid too.
    const gjk::ThresholdResult t =
        gjk::closer_than(good, Pose::Identity(), good, good_pose, kNaN, o);
    EXPECT_EQ(t.status, Status::InvalidInput);
    EXPECT_FALSE(t.closer);
  }
}

// The pose check (both poses in one packed pass since issue 18) against an independent one:
// Eigen's R^T R - I and determinant. Proper rotations, rotations with one entry off by a little
// (1e-9, accepted) or a lot (1e-4 and more, rejected), reflections, scaled and skewed frames,
// NaN, Inf and overflowing (1e200) entries in each of the 12 places, on A, on B and on both.
TEST(DegenerateInput, PoseChecksMatchAnIndependentRotationTest) {
  const auto reference = [](const Pose& pose) {
    const Mat3 r = pose.linear();
    if (!r.allFinite() || !pose.translation().allFinite()) return false;
    const double off = (r.transpose() * r - Mat3::Identity()).cwiseAbs().maxCoeff();
    return off <= 1e-6 && r.determinant() > 0.0;
  };
  Rng rng(0x9053);
  std::vector<Pose> poses;
  for (int i = 0; i < 400; ++i) {
    Pose p = make_pose(rng.rotation(), rng.vec(-5, 5));
    const int row = rng.integer(0, 2), col = rng.integer(0, 3);
    switch (i % 10) {
      case 0:  // as made
        break;
      case 1:  // rounding-sized error: accepted
        p.matrix()(row, col) += rng.uniform(-1e-9, 1e-9);
        break;
      case 2:  // a real error in one entry: rejected when in the rotation
        p.matrix()(row, col) +=
            (rng.integer(0, 1) ? 1.0 : -1.0) * std::pow(10.0, rng.uniform(-4, 0));
        break;
      case 3:  // reflection
        p.linear().col(col % 3) *= -1.0;
        break;
      case 4:  // uniform scale
        p.linear() *= rng.uniform(0.5, 2.0);
        break;
      case 5:  // skew: one column leaning on another
        p.linear().col(0) = (p.linear().col(0) + 1e-3 * p.linear().col(1)).normalized();
        break;
      case 6:
        p.matrix()(row, col) = kNaN;
        break;
      case 7:
        p.matrix()(row, col) = rng.integer(0, 1) ? kInf : -kInf;
        break;
      case 8:  // finite, but its squares overflow
        p.matrix()(row, col) = rng.integer(0, 1) ? 1e200 : -1e200;
        break;
      default:  // a permutation of the axes: orthonormal, either handedness
        p.linear() = Mat3(p.linear().rowwise().reverse());
        break;
    }
    poses.push_back(p);
  }
  const Shape box = Box{Vec3(0.5, 0.5, 0.5)};
  const Pose good = make_pose(rng.rotation(), Vec3(0, 0, 3));
  int accepted = 0, rejected = 0;
  for (size_t i = 0; i < poses.size(); ++i) {
    const Pose& p = poses[i];
    const Pose& q = poses[(i * 7 + 3) % poses.size()];
    const bool p_ok = reference(p), q_ok = reference(q);
    (p_ok ? accepted : rejected) += 1;
    SCOPED_TRACE("pose " + std::to_string(i));
    const auto invalid = [&](const Pose& a, const Pose& b) {
      return gjk::collide(box, a, box, b).status == Status::InvalidInput;
    };
    EXPECT_EQ(invalid(p, good), !p_ok);
    EXPECT_EQ(invalid(good, p), !p_ok);
    EXPECT_EQ(invalid(p, q), !(p_ok && q_ok));
    EXPECT_EQ(gjk::distance(box, good, box, p).status == Status::InvalidInput, !p_ok);
  }
  // Both kinds were exercised.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 150);
}

TEST(DegenerateInput, FromPointsRejectsNonFiniteAndEmpty) {
  std::vector<Vec3> pts = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  for (double bad : {kNaN, kInf, -kInf}) {
    for (int coord = 0; coord < 3; ++coord) {
      std::vector<Vec3> p = pts;
      p[3][coord] = bad;
      try {
        (void)ConvexPolytope::from_points(p);
        ADD_FAILURE() << "no exception for " << bad << " in point 3";
      } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("point 3"), std::string::npos)
            << "message should name the point: " << msg;
      } catch (...) {
        ADD_FAILURE() << "wrong exception type";
      }
    }
  }
  EXPECT_THROW((void)ConvexPolytope::from_points({}), std::invalid_argument);
  EXPECT_THROW((void)ConvexPolytope::from_hull_vertices({}), std::invalid_argument);
  EXPECT_THROW((void)ConvexPolytope::from_hull_vertices({Vec3(kNaN, 0, 0)}), std::invalid_argument);
  EXPECT_THROW(gjk::validate(Sphere{kNaN}), std::invalid_argument);
  EXPECT_NO_THROW(gjk::validate(Sphere{0.0}));  // a zero-size sphere is a point: valid
}

// Zero-size primitives are valid degenerate shapes: a zero sphere is a point, a zero box a
// point, a zero-radius capsule a segment, a flat box a rectangle.
TEST(DegenerateInput, ZeroSizePrimitives) {
  Rng rng(0xde900a);
  for (SimplexSolver solver : kSolvers) {
    SCOPED_TRACE(gjk::to_string(solver));
    for (int i = 0; i < 200; ++i) {
      const Vec3 c = rng.vec(-2, 2);
      const double r = rng.uniform(0.1, 0.5);
      const Vec3 h = rng.vec(0.2, 1.0);
      const Vec3 q = c.cwiseMax(-h).cwiseMin(h);
      if ((c - q).norm() < 1e-3) continue;
      // Point (zero sphere) vs box, point (zero box) vs sphere.
      expect_signed(Box{h}, Pose::Identity(), Sphere{0.0}, at(c), opts(solver), (c - q).norm());
      expect_signed(Box{Vec3::Zero()}, at(c), Sphere{r}, Pose::Identity(), opts(solver),
                    c.norm() - r, kTol, kTol);
      // Zero-radius capsule = segment along z.
      const double hl = rng.uniform(0.1, 1.0);
      const Vec3 s = closest_on_segment(c, Vec3(0, 0, -hl), Vec3(0, 0, hl));
      expect_signed(Capsule{0.0, hl}, Pose::Identity(), Sphere{r}, at(c), opts(solver),
                    (c - s).norm() - r, kTol, kTol);
      // Flat box (zero z extent) vs sphere.
      const Vec3 hf(h.x(), h.y(), 0.0);
      const Vec3 qf = c.cwiseMax(-hf).cwiseMin(hf);
      if (std::abs((c - qf).norm() - r) > 1e-6) {  // centre never in the flat box: exact
        expect_signed(Box{hf}, Pose::Identity(), Sphere{r}, at(c), opts(solver),
                      (c - qf).norm() - r, kTol, kTol);
      }
    }
  }
}

}  // namespace
