// Known failures of peer libraries (FCL, libccd, coal/hpp-fcl, MuJoCo), each turned into a test of
// libgjk with the exact answer (issue 6, "peer failures as tests"). Inputs are the threads' own
// where they give them; otherwise the configuration the thread describes, as said next to it.
// Every query runs with the three simplex solvers.
#include <gtest/gtest.h>
#include <gjk/gjk.hpp>

#include "datasets.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

namespace {

using gjk::Box;
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

using gjk::testing::kSolvers;

QueryOptions opts(SimplexSolver s) {
  QueryOptions o;
  o.solver = s;
  return o;
}

using gjk::testing::at;
using gjk::testing::make_pose;

// Nearest rotation to a matrix printed with ~17 digits in a thread (via the quaternion), so
// the pose is orthonormal to rounding.
Mat3 rotation(const Mat3& m) {
  return Eigen::Quaterniond(m).normalized().toRotationMatrix();
}

std::vector<Vec3> world(const std::vector<Vec3>& local, const Pose& pose) {
  std::vector<Vec3> out;
  for (const Vec3& v : local) out.push_back(pose * v);
  return out;
}

// Exact signed distance between two boxes of the same orientation R: A - B is the box of half
// extents h_a + h_b centred at R^T (t_a - t_b); its signed distance function at the origin.
double aligned_boxes_signed_distance(const Vec3& ha, const Vec3& hb, const Mat3& r, const Vec3& ta,
                                     const Vec3& tb) {
  const Vec3 q = (r.transpose() * (tb - ta)).cwiseAbs() - (ha + hb);
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

bool finite(const gjk::PenetrationResult& p) {
  return std::isfinite(p.depth) && p.normal.allFinite() && p.point_on_a.allFinite() &&
         p.point_on_b.allFinite();
}

// FCL #493 "EPA failure - another example of an EPA exception when computing signed distance":
// FCL threw "The origin is outside of the polytope" on two 0.5 cubes (FCL sizes are full
// lengths) in the thread's poses, which share one rotation; they touch face to face (the
// offset is 0.5 along the boxes' y axis up to the printed digits).
TEST(PeerIssues, Fcl493BoxBoxKissingContact) {
  const Mat3 r =
      rotation((Mat3() << 0.96193976625564348026, 0.15401279915737359216, 0.22572537250328919556,
                -0.19134171618254486313, 0.96936494951283913579, 0.15401279915737359216,
                -0.19509032201612822033, -0.19134171618254486313, 0.96193976625564348026)
                   .finished());
  const Vec3 t1(2.0770063995786869349, 0.48468247475641951239, 1.1543291419087275962);
  const Vec3 t2(2, 0, 1.25);
  const Vec3 h(0.25, 0.25, 0.25);
  const double exact = aligned_boxes_signed_distance(h, h, r, t1, t2);
  EXPECT_LT(std::abs(exact), 1e-9);  // kissing contact
  for (const SimplexSolver s : kSolvers) {
    const gjk::SignedDistanceResult sd =
        gjk::signed_distance(Box{h}, make_pose(r, t1), Box{h}, make_pose(r, t2), opts(s));
    EXPECT_NEAR(sd.signed_distance, exact, 1e-14) << gjk::to_string(s);
    EXPECT_TRUE(sd.normal.allFinite());
    const gjk::PenetrationResult p =
        gjk::penetration(Box{h}, make_pose(r, t1), Box{h}, make_pose(r, t2), opts(s));
    EXPECT_TRUE(finite(p));
    EXPECT_LE(p.depth, 1e-14);
    const gjk::DistanceResult d =
        gjk::distance(Box{h}, make_pose(r, t1), Box{h}, make_pose(r, t2), opts(s));
    EXPECT_NEAR(d.distance, std::max(exact, 0.0), 1e-14);
    EXPECT_LE(d.lower_bound, std::max(exact, 0.0) + 1e-15);
  }
}

// FCL #495 "EPA failure - disagreement between EPA and GJK for kissing contact": 0.25 cubes
// stacked with an explicit separation of about machine epsilon; FCL's GJK called them touching,
// its EPA separated, and it threw. The thread's first pose (rotation and box verbatim below);
// FCL's own regression test for #493/#495 (test_fcl_signed_distance.cpp,
// test_distance_box_box_regression_tilted_kissing_contact) generalises it with that rotation:
// cubes of side 0.01 .. 1000, B on A's +y face at separations -1e-15 .. 1e-15 (times the side
// above 1). Same here, against the analytic signed distance of the placed boxes.
TEST(PeerIssues, Fcl495TiltedStackedCubesAtEpsilonSeparation) {
  const Mat3 r =
      rotation((Mat3() << 0.94096063217417758029, 0.29296840037289501035, 0.16959541586174811667,
                -0.23569836841299879326, 0.92661523595848427348, -0.29296840037289506586,
                -0.2429801799032638987, 0.23569836841299884878, 0.94096063217417758029)
                   .finished());
  int checked = 0;
  for (const double side : {0.01, 0.25, 0.5, 10.0, 1000.0}) {
    const Vec3 h = Vec3::Constant(side / 2);
    const Vec3 ta(0, 0, 5 * side);
    // Rounding of the placement (coordinates up to ~6 sides) and of the answers.
    const double tol = 32 * DBL_EPSILON * 6 * side;
    for (const double separation : {-1e-15, -2.5e-16, -1e-16, 0.0, 1e-16, 2.5e-16, 1e-15}) {
      const Vec3 tb = ta + r * Vec3(0, side + separation * std::max(1.0, side), 0);
      const double exact = aligned_boxes_signed_distance(h, h, r, ta, tb);
      for (const bool hulls : {false, true}) {
        const Shape a = hulls ? Shape(ConvexPolytope::from_points(gjk::testing::box_corners(h)))
                              : Shape(Box{h});
        const Shape b = a;
        for (const SimplexSolver s : kSolvers) {
          const gjk::SignedDistanceResult sd =
              gjk::signed_distance(a, make_pose(r, ta), b, make_pose(r, tb), opts(s));
          EXPECT_NEAR(sd.signed_distance, exact, tol)
              << "side " << side << " separation " << separation << ' ' << gjk::to_string(s);
          EXPECT_TRUE(sd.normal.allFinite() && sd.point_on_a.allFinite() &&
                      sd.point_on_b.allFinite());
          const gjk::PenetrationResult p =
              gjk::penetration(a, make_pose(r, ta), b, make_pose(r, tb), opts(s));
          EXPECT_TRUE(finite(p));
          EXPECT_LE(p.depth, std::max(-exact, 0.0) + tol);
          const gjk::DistanceResult d =
              gjk::distance(a, make_pose(r, ta), b, make_pose(r, tb), opts(s));
          EXPECT_NEAR(d.distance, std::max(exact, 0.0), tol);
          EXPECT_LE(d.lower_bound, std::max(exact, 0.0) + tol);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 5 * 7 * 2 * static_cast<int>(kSolvers.size()));
}

// FCL #545 "Normal and penetration depth in convex collision": a unit cube at the origin and a
// small cube centred on its diagonal at (0.4, 0.4, 0.4); with one of them an fcl::Convex, FCL
// returned the diagonal as the normal and a depth sqrt(3) times too large. The thread does not
// give the small cube's size: side 0.2 here, so it touches three faces from inside; the minimum
// translation is 0.2 along +x, +y or +z (three-way tie), the diagonal needs 0.2 sqrt(3).
TEST(PeerIssues, Fcl545CubeOnDiagonalDepthAlongAFaceNormal) {
  const Shape big_hull =
      ConvexPolytope::from_points(gjk::testing::box_corners(Vec3(0.5, 0.5, 0.5)));
  const Shape small_hull =
      ConvexPolytope::from_points(gjk::testing::box_corners(Vec3(0.1, 0.1, 0.1)));
  const Shape big_box = Box{Vec3(0.5, 0.5, 0.5)}, small_box = Box{Vec3(0.1, 0.1, 0.1)};
  const Pose pa = Pose::Identity(), pb = at(Vec3(0.4, 0.4, 0.4));
  for (const SimplexSolver s : kSolvers) {
    for (const auto& [a, b] : {std::pair{big_hull, small_box}, std::pair{big_hull, small_hull},
                               std::pair{big_box, small_hull}, std::pair{big_box, small_box}}) {
      const gjk::PenetrationResult p = gjk::penetration(a, pa, b, pb, opts(s));
      ASSERT_TRUE(p.collision);
      EXPECT_NEAR(p.depth, 0.2, 1e-14) << gjk::to_string(s);
      EXPECT_NEAR(p.normal.cwiseAbs().maxCoeff(), 1.0, 1e-12) << p.normal.transpose();
      EXPECT_GT(p.normal.maxCoeff(), 0.99);  // +x, +y or +z: pushes B out through a face
      EXPECT_EQ(p.status, Status::Converged);
    }
  }
}

// libccd #25 "GJK penetration issue": cubes of side 2 at (0,0,0) and (0,0,1.9); ccdGJKPenetration
// returned depth 0 and a NaN direction (MPR was right: 0.1 along z).
TEST(PeerIssues, Libccd25StackedCubes) {
  const Vec3 h(1, 1, 1);
  for (const SimplexSolver s : kSolvers) {
    for (const bool hulls : {false, true}) {
      const Shape a =
          hulls ? Shape(ConvexPolytope::from_points(gjk::testing::box_corners(h))) : Shape(Box{h});
      const gjk::PenetrationResult p =
          gjk::penetration(a, Pose::Identity(), a, at(Vec3(0, 0, 1.9)), opts(s));
      ASSERT_TRUE(finite(p));
      ASSERT_TRUE(p.collision);
      EXPECT_NEAR(p.depth, 0.1, 1e-14);
      EXPECT_NEAR(p.normal.z(), 1.0, 1e-14);
      EXPECT_NEAR((p.point_on_a - p.point_on_b - p.depth * p.normal).norm(), 0.0, 1e-14);
    }
  }
}

// libccd #49 "findPenetr() can divide by zero": MPR normalised a zero-length direction when the
// depth was exactly 0 (touching), returning NaN. The thread has no input: cubes touching face to
// face exactly, and overlapping by 1e-15 .. 1e-300 (denormal range) or apart by as little.
TEST(PeerIssues, Libccd49ZeroDepthNoNaN) {
  const Vec3 h(1, 1, 1);
  for (const SimplexSolver s : kSolvers) {
    for (const double e : {0.0, 1e-15, -1e-15, 1e-300, -1e-300}) {
      const Pose pb = at(Vec3(0, 0, 2 + e));
      const gjk::PenetrationResult p =
          gjk::penetration(Box{h}, Pose::Identity(), Box{h}, pb, opts(s));
      ASSERT_TRUE(finite(p)) << e;
      if (p.collision) {
        EXPECT_LE(p.depth, 1e-14);
        EXPECT_NEAR(p.normal.norm(), 1.0, 1e-12);
      }
      const gjk::SignedDistanceResult sd =
          gjk::signed_distance(Box{h}, Pose::Identity(), Box{h}, pb, opts(s));
      EXPECT_TRUE(std::isfinite(sd.signed_distance) && sd.normal.allFinite());
      EXPECT_NEAR(sd.signed_distance, e, 1e-14);
    }
  }
}

// FCL #127 "Wrong closest points between shapes (box, sphere, cylinder) in distance
// computations": the thread's sphere (radius 1, origin) and box (10 x 2 x 10 at (0, 5, 3)) gave
// the right distance 3 with wrong witness points. Expected: (0, 1, 0) on the sphere, (0, 4, 0) on
// the box. The cylinder of the title (no input given): radius 1, length 2 along z at the origin,
// same box; the witnesses are on the line y = 1 / y = 4 (line contact), 3 apart along y.
TEST(PeerIssues, Fcl127WitnessPointsBoxSphereCylinder) {
  const Shape box = Box{Vec3(5, 1, 5)};
  const Pose pb = at(Vec3(0, 5, 3));
  for (const SimplexSolver s : kSolvers) {
    const gjk::DistanceResult d = gjk::distance(Sphere{1.0}, Pose::Identity(), box, pb, opts(s));
    EXPECT_NEAR(d.distance, 3.0, 1e-14);
    EXPECT_NEAR((d.point_on_a - Vec3(0, 1, 0)).norm(), 0.0, 1e-14);
    EXPECT_NEAR((d.point_on_b - Vec3(0, 4, 0)).norm(), 0.0, 1e-14);
    EXPECT_NEAR((d.normal - Vec3(0, 1, 0)).norm(), 0.0, 1e-14);

    // Curved core: GJK stops once its gap is below QueryOptions::tolerance (1e-12) times the
    // size of A - B (~14 here), so the cylinder's answers are good to ~1.4e-11.
    const gjk::DistanceResult c =
        gjk::distance(Cylinder{1.0, 1.0}, Pose::Identity(), box, pb, opts(s));
    const double curved = 2e-11;
    EXPECT_NEAR(c.distance, 3.0, curved);
    EXPECT_NEAR(c.point_on_a.y(), 1.0, curved);
    EXPECT_NEAR(std::hypot(c.point_on_a.x(), c.point_on_a.y()), 1.0, curved);  // on the side
    EXPECT_LE(std::abs(c.point_on_a.z()), 1.0 + curved);
    EXPECT_NEAR(c.point_on_b.y(), 4.0, curved);  // on the box face
    EXPECT_NEAR((c.point_on_b - c.point_on_a - Vec3(0, 3, 0)).norm(), 0.0, curved);
    // A box rotated about z by 30 degrees: the nearest box feature is an edge.
    const Mat3 rz = Eigen::AngleAxisd(M_PI / 6, Vec3::UnitZ()).toRotationMatrix();
    const Pose pr = make_pose(rz, Vec3(0, 5, 3));
    const gjk::DistanceResult e = gjk::distance(Sphere{1.0}, Pose::Identity(), box, pr, opts(s));
    // Exact: distance from the origin to the rotated box, minus the radius.
    const Vec3 local = rz.transpose() * (Vec3::Zero() - Vec3(0, 5, 3));
    const Vec3 clamped = local.cwiseMax(-Vec3(5, 1, 5)).cwiseMin(Vec3(5, 1, 5));
    EXPECT_NEAR(e.distance, (local - clamped).norm() - 1.0, 1e-13);
    EXPECT_NEAR((e.point_on_b - pr * clamped).norm(), 0.0, 1e-13);
  }
}

// FCL #275 "Incorrect nearest points when using distance(...)": spheres of radius 20 and 10 at
// (0,0,0) and (0,40,0) with signed distance requested (GST_LIBCCD) gave distance 25 instead of
// 10, and witness points (0, 27.3, 0), (0, -13.7, 0) instead of (0, 20, 0), (0, 30, 0).
TEST(PeerIssues, Fcl275SphereSignedDistance) {
  for (const SimplexSolver s : kSolvers) {
    const gjk::SignedDistanceResult apart =
        gjk::signed_distance(Sphere{20}, Pose::Identity(), Sphere{10}, at(Vec3(0, 40, 0)), opts(s));
    EXPECT_EQ(apart.signed_distance, 10.0);
    EXPECT_EQ(apart.point_on_a, Vec3(0, 20, 0));
    EXPECT_EQ(apart.point_on_b, Vec3(0, 30, 0));
    const gjk::SignedDistanceResult overlap =
        gjk::signed_distance(Sphere{20}, Pose::Identity(), Sphere{10}, at(Vec3(0, 25, 0)), opts(s));
    EXPECT_NEAR(overlap.signed_distance, -5.0, 1e-13);
    EXPECT_NEAR((overlap.point_on_a - Vec3(0, 20, 0)).norm(), 0.0, 1e-13);
    EXPECT_NEAR((overlap.point_on_b - Vec3(0, 15, 0)).norm(), 0.0, 1e-13);
    EXPECT_NEAR((overlap.normal - Vec3(0, 1, 0)).norm(), 0.0, 1e-13);
  }
}

// FCL #243 "GJK with libccd hangs sometimes": ccdMPRIntersect looped forever (ODE box stack with
// cylinders; no input in the thread). Here: 2000 seeded cylinder-box and cylinder-cylinder
// poses within 1e-12 .. 1e-3 of contact; every query must return within its iteration caps
// with finite fields (a hang would time the test out).
TEST(PeerIssues, Fcl243NoHangNearContact) {
  gjk::testing::Rng rng(0x243);
  int cases = 0;
  for (int i = 0; i < 2000; ++i) {
    const Shape a =
        i % 2 == 0
            ? Shape(Box{Vec3(rng.uniform(0.05, 1), rng.uniform(0.05, 1), rng.uniform(0.05, 1))})
            : Shape(Cylinder{rng.uniform(0.05, 1), rng.uniform(0.05, 1)});
    const Shape b = Cylinder{rng.uniform(0.05, 1), rng.uniform(0.05, 1)};
    const Pose pa = gjk::testing::random_pose(rng, 1.0);
    Pose pb = gjk::testing::random_pose(rng, 1.0);
    // Move B along the centre line until the signed distance is ~ a random tiny value.
    const Vec3 dir = (pb.translation() - pa.translation()).normalized();
    const double target = (rng.chance(0.5) ? 1 : -1) * rng.log_uniform(1e-12, 1e-3);
    for (int k = 0; k < 3; ++k) {
      const double sd = gjk::signed_distance(a, pa, b, pb).signed_distance;
      pb.translation() += (target - sd) * dir;
    }
    for (const SimplexSolver s : kSolvers) {
      const QueryOptions o = opts(s);
      const gjk::CollisionResult c = gjk::collide(a, pa, b, pb, o);
      const gjk::DistanceResult d = gjk::distance(a, pa, b, pb, o);
      const gjk::PenetrationResult p = gjk::penetration(a, pa, b, pb, o);
      EXPECT_LE(c.iterations, o.max_iterations + 1);
      EXPECT_LE(d.iterations, o.max_iterations + 1);
      EXPECT_LE(p.iterations, o.max_iterations + o.max_epa_iterations + 2);
      EXPECT_TRUE(std::isfinite(d.distance) && finite(p));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 2000 * static_cast<int>(kSolvers.size()));
}

// coal #37 "GJK::evaluate does not converge": a cylinder and a box very close to each other hit
// the iteration cap (the thread's test input is not in it). Here: a cylinder lying on, standing
// on and tilted over a box face at separations and overlaps 1e-12 .. 1e-3; the exact signed
// distance is the gap; GJK must converge.
TEST(PeerIssues, Coal37CylinderBoxNearTouchingConverges) {
  const Vec3 h(0.5, 0.5, 0.25);
  const double radius = 0.1, half = 0.2;
  for (const double tilt : {0.0, M_PI / 2, 0.7}) {
    const Mat3 r = Eigen::AngleAxisd(tilt, Vec3::UnitX()).toRotationMatrix();
    const double low = half * std::abs(r(2, 2)) + radius * std::hypot(r(0, 2), r(1, 2));
    for (const double gap : {1e-12, 1e-9, 1e-6, 1e-3, -1e-12, -1e-9, -1e-6, -1e-3}) {
      const Pose pb = make_pose(r, Vec3(0.05, -0.02, h.z() + low + gap));
      for (const SimplexSolver s : kSolvers) {
        const gjk::SignedDistanceResult sd =
            gjk::signed_distance(Box{h}, Pose::Identity(), Cylinder{radius, half}, pb, opts(s));
        EXPECT_EQ(sd.status, Status::Converged) << tilt << " " << gap;
        // Curved core: GJK and EPA stop on their relative tolerances (1e-12, 1e-10).
        EXPECT_NEAR(sd.signed_distance, gap, gap > 0 ? 2e-12 : 2e-10) << tilt << " " << gap;
      }
    }
  }
}

// coal #604 "Incorrect distance result when using high gjk_tolerance": two boxes (0.363 x 0.277 x
// 0.363 and 0.363 x 0.363 x 0.277, thread poses) a few mm apart; with gjk_tolerance > 1e-6 coal's
// distance was far off. Ours must stay within the requested tolerance (relative to the size of
// A - B, QueryOptions::tolerance) of the exact distance (qhull reference) as it is loosened
// from 1e-12 to 1e-3, and the certified bracket must hold.
TEST(PeerIssues, Coal604DistanceWithinLoosenedTolerance) {
  const Mat3 r1 =
      rotation((Mat3() << 0.9999195703, 0.01021849413, 0.007512347878, -0.01021878248, 0.9999477869,
                -3.329855922e-17, -0.007511955635, -7.676704888e-05, 0.9999717819)
                   .finished());
  const Mat3 r2 =
      rotation((Mat3() << 0.9998670967, -0.01297708324, 0.009868343982, 0.01297771517, 0.9999157859,
                5.255670031e-17, -0.009867512928, 0.0001280685574, 0.9999513067)
                   .finished());
  const Pose p1 = make_pose(r1, Vec3(1.503354966, -0.8531707835, 0.7700092418));
  const Pose p2 = make_pose(r2, Vec3(1.48838308, -1.102020834, 0.4497073799));
  const Vec3 h1(0.1815, 0.1385, 0.1815), h2(0.1815, 0.1815, 0.1385);
  const gjk::testing::ReferenceResult ref = gjk::testing::reference_query(
      world(gjk::testing::box_corners(h1), p1), world(gjk::testing::box_corners(h2), p2));
  ASSERT_FALSE(ref.overlap);
  const double exact = ref.distance;
  for (const bool hulls : {false, true}) {
    const Shape a =
        hulls ? Shape(ConvexPolytope::from_points(gjk::testing::box_corners(h1))) : Shape(Box{h1});
    const Shape b =
        hulls ? Shape(ConvexPolytope::from_points(gjk::testing::box_corners(h2))) : Shape(Box{h2});
    for (const SimplexSolver s : kSolvers) {
      for (double tol = 1e-12; tol <= 1.001e-3; tol *= 10) {
        QueryOptions o = opts(s);
        o.tolerance = tol;
        const gjk::DistanceResult d = gjk::distance(a, p1, b, p2, o);
        // scale of the relative tolerance: the size of A - B (< 2 here)
        EXPECT_LE(std::abs(d.distance - exact), tol * 2 + 1e-14)
            << gjk::to_string(s) << " tolerance " << tol;
        EXPECT_LE(d.lower_bound, exact + 1e-14);
        EXPECT_GE(d.upper_bound, exact - 1e-14);
        EXPECT_FALSE(d.collision);
      }
    }
  }
}

// MuJoCo #3383 "mj_geomDistance returns exactly 0.0 for clearly separated convex mesh pairs": in
// 3.4% of 3000 random poses (seed 7) separated mesh pairs came back at distance 0, although a
// separating-plane certificate proved a gap of centimetres. Same experiment on our random hulls:
// a certificate computed without the engine (max over 130 sampled directions of the support gap)
// is a lower bound on the distance; ours must never be below it, and never 0 when it is > 0.
TEST(PeerIssues, Mujoco3383SeparatedHullsNeverZero) {
  gjk::testing::Rng rng(7);
  int separated = 0;
  std::vector<Vec3> directions;
  for (int i = 0; i < 128; ++i) directions.push_back(rng.unit_vector());
  for (int trial = 0; trial < 1500; ++trial) {
    const auto pa_pts = gjk::testing::random_polytope_points(
        rng, rng.uniform_int(8, 40), gjk::testing::PointDistribution::Mixed,
        Vec3(rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3)));
    const auto pb_pts = gjk::testing::random_polytope_points(
        rng, rng.uniform_int(8, 40), gjk::testing::PointDistribution::Mixed,
        Vec3(rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3)));
    const Pose pa = gjk::testing::random_pose(rng, 0.5);
    const Pose pb = gjk::testing::random_pose(rng, 0.5);
    const std::vector<Vec3> wa = world(pa_pts, pa), wb = world(pb_pts, pb);
    std::vector<Vec3> candidates = directions;
    candidates.push_back(pb.translation() - pa.translation());
    double certificate = -1.0;
    for (const Vec3& raw : candidates) {
      if (raw.norm() == 0.0) continue;
      const Vec3 n = raw.normalized();
      double max_a = -1e300, min_b = 1e300;
      for (const Vec3& p : wa) max_a = std::max(max_a, p.dot(n));
      for (const Vec3& p : wb) min_b = std::min(min_b, p.dot(n));
      certificate = std::max(certificate, min_b - max_a);
    }
    if (!(certificate > 0.0)) continue;
    ++separated;
    const Shape a = ConvexPolytope::from_points(pa_pts), b = ConvexPolytope::from_points(pb_pts);
    for (const SimplexSolver s : kSolvers) {
      const gjk::DistanceResult d = gjk::distance(a, pa, b, pb, opts(s));
      EXPECT_GT(d.distance, 0.0) << "trial " << trial;
      EXPECT_GE(d.distance, certificate - 1e-14) << "trial " << trial;
      EXPECT_FALSE(gjk::collide(a, pa, b, pb, opts(s)).collision) << "trial " << trial;
    }
  }
  std::printf("%d of 1500 pairs certified separated\n", separated);
  EXPECT_GT(separated, 300);
}

// https://github.com/FEniCS/dolfinx/issues/3653 ("GJK fails on simple convex hull"): dolfinx's
// compute_distance_gjk hit its iteration limit on a point against a 7-point hull. Points
// verbatim from the thread. Reference, independent of GJK: the distance from the point to every
// triangle of the point set (the nearest hull point lies on a hull facet, which is one of them,
// and every triangle lies inside the hull), with the point certified outside by a separating
// plane among the triangles' normals.
TEST(PeerIssues, Dolfinx3653PointAgainstSevenPointHull) {
  const Vec3 p0(44.2919, 39.7508, 18.8208);
  const std::vector<Vec3> p1 = {{46.0659, 38.6251, 16.3637}, {44.2764, 42.3867, 18.239},
                                {50.0397, 38.4649, 19.9843}, {47.1963, 40.4563, 19.1057},
                                {48.0266, 38.5593, 18.2475}, {45.1735, 40.495, 17.3336},
                                {48.0415, 40.4456, 18.1963}};
  double reference = 1e300, separation = -1e300;
  for (size_t i = 0; i < p1.size(); ++i) {
    for (size_t j = i + 1; j < p1.size(); ++j) {
      for (size_t k = j + 1; k < p1.size(); ++k) {
        const Vec3 c = gjk::testing::closest_point_on_triangle(p0, p1[i], p1[j], p1[k]);
        reference = std::min(reference, (p0 - c).norm());
        const Vec3 n = (p1[j] - p1[i]).cross(p1[k] - p1[i]);
        if (n.norm() == 0.0) continue;
        for (const Vec3& u : {n.normalized(), Vec3(-n.normalized())}) {
          double support = -1e300;
          for (const Vec3& q : p1) support = std::max(support, q.dot(u));
          separation = std::max(separation, p0.dot(u) - support);
        }
      }
    }
  }
  ASSERT_GT(separation, 0.0) << "the point is outside the hull";
  const Shape point = Sphere{0.0};
  const Shape hull = ConvexPolytope::from_points(p1);
  for (const SimplexSolver s : kSolvers) {
    const gjk::DistanceResult d = gjk::distance(hull, Pose::Identity(), point, at(p0), opts(s));
    EXPECT_EQ(d.status, Status::Converged);
    EXPECT_NEAR(d.distance, reference, 1e-12 * 50) << "solver " << static_cast<int>(s);
    EXPECT_LE(d.lower_bound, reference + 1e-10);
    EXPECT_LT(d.iterations, 64);
  }
  std::printf("dolfinx #3653: distance %.15g\n", reference);
}

// https://github.com/MattiaMontanari/openGJK/issues/3 ("Is this a numerical issue?"): two
// coplanar polygons (z = 0) that intersect, for which openGJK returned 0.508965. Vertices
// verbatim. Reference: the separating-axis test in the plane over the normals of every segment
// between two points of either polygon (a superset of the edges): the polygons intersect when
// none separates them.
TEST(PeerIssues, OpenGjk3CoplanarPolygonsIntersect) {
  const std::vector<Vec3> a = {{0.795121, -0.727851, 0.0},
                               {-0.178424, -0.989183, 0.0},
                               {-0.412644, -0.770664, 0.0},
                               {0.566564, 0.548772, 0.0}};
  const std::vector<Vec3> b = {
      {-0.211223, -0.511346, 0.0}, {-0.347973, 0.45872, 0.0}, {0.277308, 0.969689, 0.0}};
  double best_gap = -1e300;  // largest separation along any candidate axis
  for (const auto* poly : {&a, &b}) {
    for (size_t i = 0; i < poly->size(); ++i) {
      for (size_t j = i + 1; j < poly->size(); ++j) {
        const Vec3 e = (*poly)[j] - (*poly)[i];
        const Vec3 n = Vec3(-e.y(), e.x(), 0.0).normalized();
        double min_a = 1e300, max_a = -1e300, min_b = 1e300, max_b = -1e300;
        for (const Vec3& p : a)
          min_a = std::min(min_a, p.dot(n)), max_a = std::max(max_a, p.dot(n));
        for (const Vec3& p : b)
          min_b = std::min(min_b, p.dot(n)), max_b = std::max(max_b, p.dot(n));
        best_gap = std::max({best_gap, min_b - max_a, min_a - max_b});
      }
    }
  }
  ASSERT_LT(best_gap, 0.0) << "the reference finds them intersecting";
  const Shape pa = ConvexPolytope::from_points(a), pb = ConvexPolytope::from_points(b);
  for (const SimplexSolver s : kSolvers) {
    const gjk::DistanceResult d =
        gjk::distance(pa, Pose::Identity(), pb, Pose::Identity(), opts(s));
    EXPECT_TRUE(d.collision) << "solver " << static_cast<int>(s);
    EXPECT_EQ(d.distance, 0.0);
    EXPECT_TRUE(gjk::collide(pa, Pose::Identity(), pb, Pose::Identity(), opts(s)).collision);
  }
}

// https://github.com/dimforge/parry/issues/378 ("When EPA is stuck it returns pt2 in the wrong
// spot"): a capsule (segment (0, -0.25)..(0, 0.25), radius 0.5) on a cuboid of half extents
// (4, 0.5), the cuboid at (4.0, 1.5) - (6.0373735, 2.75) in the capsule's frame ("bad": touching)
// and at (4.0, 1.5) - (6.0373735, 2.7391) ("good": 0.0109 deep). parry put the cuboid's witness
// at its corner. The thread's 2D plane (x, y) is our (x, z) (our capsules lie along z); the
// cuboid gets a depth of 1 along y. Analytic answer: the capsule's lowest point (0, 0, -0.75)
// rests on the cuboid's top face, so the witnesses are that point and the point of the face
// straight below it.
TEST(PeerIssues, Parry378CapsuleOnCuboidWitnessUnderTheCapsule) {
  const Shape capsule = gjk::Capsule{0.5, 0.25};
  const Shape cuboid = Box{Vec3(4.0, 1.0, 0.5)};
  for (const double y : {2.75, 2.7391}) {
    const Vec3 centre(4.0 - 6.0373735, 0.0, 1.5 - y);
    const double top = centre.z() + 0.5;
    const double expected = -0.75 - top;  // signed distance: 0 (touching) or -0.0109
    for (const SimplexSolver s : kSolvers) {
      const auto r = gjk::signed_distance(capsule, Pose::Identity(), cuboid, at(centre), opts(s));
      EXPECT_EQ(r.status, Status::Converged);
      EXPECT_NEAR(r.signed_distance, expected, 1e-12) << "y = " << y;
      EXPECT_NEAR((r.point_on_a - Vec3(0, 0, -0.75)).norm(), 0.0, 1e-9) << "y = " << y;
      EXPECT_NEAR((r.point_on_b - Vec3(0, 0, top)).norm(), 0.0, 1e-9)
          << "y = " << y << ": the cuboid's witness " << r.point_on_b.transpose();
      EXPECT_NEAR(std::abs(r.normal.z()), 1.0, 1e-12);
    }
  }
}

// https://github.com/Genesis-Embodied-AI/genesis-world/pull/2525 (the issue's "Genesis #2525":
// GJK/EPA missed the contact of two spheres): A at the origin, radius 0.10; B at
// (0.08, 0.06, 0.06), radius 0.08 (values from the thread). Analytic: depth 0.18 - |c|, normal
// c / |c|, witnesses at the spheres' surfaces along it. Also as inflated points and as an
// inflated tetrahedron of zero size (the rounded-core path of the engine).
TEST(PeerIssues, Genesis2525OverlappingSpheresAreInContact) {
  const Vec3 c(0.08, 0.06, 0.06);
  const double depth = 0.18 - c.norm();
  const Vec3 n = c.normalized();
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {Sphere{0.10}, Sphere{0.08}},
      {gjk::inflated(Sphere{0.0}, 0.10), gjk::inflated(Sphere{0.0}, 0.08)},
      {gjk::inflated(ConvexPolytope::from_points({Vec3::Zero()}), 0.10), Sphere{0.08}}};
  for (const auto& [a, b] : pairs) {
    for (const SimplexSolver s : kSolvers) {
      EXPECT_TRUE(gjk::collide(a, Pose::Identity(), b, at(c), opts(s)).collision);
      const gjk::PenetrationResult p = gjk::penetration(a, Pose::Identity(), b, at(c), opts(s));
      EXPECT_TRUE(p.collision);
      EXPECT_NEAR(p.depth, depth, 1e-15);
      EXPECT_NEAR((p.normal - n).norm(), 0.0, 1e-15);
      EXPECT_NEAR((p.point_on_a - 0.10 * n).norm(), 0.0, 1e-15);
      EXPECT_NEAR((p.point_on_b - (c - 0.08 * n)).norm(), 0.0, 1e-15);
    }
  }
}

/// Largest separation of two planar point sets along the normals of every segment between two
/// points of either set (a superset of their hulls' edges): negative when the hulls intersect,
/// and then no line separates them.
double planar_separation(const std::vector<gjk::planar::Vec2>& a,
                         const std::vector<gjk::planar::Vec2>& b) {
  double best = -1e300;
  for (const auto* poly : {&a, &b}) {
    for (size_t i = 0; i < poly->size(); ++i) {
      for (size_t j = i + 1; j < poly->size(); ++j) {
        const gjk::planar::Vec2 e = (*poly)[j] - (*poly)[i];
        const gjk::planar::Vec2 n = gjk::planar::Vec2(-e.y(), e.x()).normalized();
        double min_a = 1e300, max_a = -1e300, min_b = 1e300, max_b = -1e300;
        for (const auto& p : a)
          min_a = std::min(min_a, p.dot(n)), max_a = std::max(max_a, p.dot(n));
        for (const auto& p : b)
          min_b = std::min(min_b, p.dot(n)), max_b = std::max(max_b, p.dot(n));
        best = std::max({best, min_b - max_a, min_a - max_b});
      }
    }
  }
  return best;
}

// https://github.com/RandyGaul/cute_headers/issues/256 ("PolytoPoly collision fail due to float
// precision error in c2GJK"): five diamonds around a sixth, four of them overlapping it by 2 at
// a vertex and one 1 apart, vertices verbatim. Reference: planar separating axes; the separated
// pair is vertex to vertex, 1 apart. Both the 2D engine (seed 001) and the 3D one (flat hulls).
TEST(PeerIssues, CuteHeaders256DiamondsTouchingAtVertices) {
  using gjk::planar::Vec2;
  const std::vector<Vec2> poly1 = {{40, 30}, {50, 40}, {40, 50}, {30, 40}};
  const std::vector<std::vector<Vec2>> others = {{{40, 48}, {50, 58}, {40, 68}, {30, 58}},
                                                 {{58, 30}, {68, 40}, {58, 50}, {48, 40}},
                                                 {{40, 12}, {50, 22}, {40, 32}, {30, 22}},
                                                 {{22, 30}, {32, 40}, {22, 50}, {12, 40}},
                                                 {{40, 51}, {50, 61}, {40, 71}, {30, 61}}};
  const auto flat = [](const std::vector<Vec2>& p) {
    std::vector<Vec3> out;
    for (const Vec2& v : p) out.emplace_back(v.x(), v.y(), 0.0);
    return out;
  };
  const auto a2 = gjk::planar::ConvexPolygon::from_points(poly1);
  const Shape a3 = ConvexPolytope::from_points(flat(poly1));
  for (size_t k = 0; k < others.size(); ++k) {
    const double separation = planar_separation(poly1, others[k]);
    const bool intersect = separation < 0;
    EXPECT_EQ(intersect, k < 4) << "reference, polygon " << k + 2;
    const auto b2 = gjk::planar::ConvexPolygon::from_points(others[k]);
    const auto d2 = gjk::planar::distance(a2, gjk::planar::Pose2::Identity(), b2,
                                          gjk::planar::Pose2::Identity());
    EXPECT_EQ(d2.collision, intersect) << "2D, polygon " << k + 2;
    EXPECT_EQ(
        gjk::planar::collide(a2, gjk::planar::Pose2::Identity(), b2, gjk::planar::Pose2::Identity())
            .collision,
        intersect)
        << "2D collide, polygon " << k + 2;
    if (!intersect) {
      EXPECT_NEAR(d2.distance, 1.0, 1e-12);
    }
    const Shape b3 = ConvexPolytope::from_points(flat(others[k]));
    for (const SimplexSolver s : kSolvers) {
      const auto d3 = gjk::distance(a3, Pose::Identity(), b3, Pose::Identity(), opts(s));
      EXPECT_EQ(d3.collision, intersect) << "3D, polygon " << k + 2;
      if (!intersect) {
        EXPECT_NEAR(d3.distance, 1.0, 1e-12);
      }
    }
  }
}

// https://github.com/kroitor/gjk.c/pull/5 ("precision test"): two nearly identical overlapping
// triangles that gjk.c called separated, vertices verbatim from the thread's output.
TEST(PeerIssues, GjkC5NearlyIdenticalTrianglesIntersect) {
  using gjk::planar::Vec2;
  const std::vector<Vec2> a = {{4.000009, 11.000008}, {5.000006, 4.999989}, {9.000001, 8.999997}};
  const std::vector<Vec2> b = {{4.000003, 11.000010}, {4.999989, 4.999999}, {8.999997, 8.999998}};
  ASSERT_LT(planar_separation(a, b), 0.0);
  const auto pa = gjk::planar::ConvexPolygon::from_points(a);
  const auto pb = gjk::planar::ConvexPolygon::from_points(b);
  const auto id = gjk::planar::Pose2::Identity();
  EXPECT_TRUE(gjk::planar::collide(pa, id, pb, id).collision);
  EXPECT_TRUE(gjk::planar::distance(pa, id, pb, id).collision);
  std::vector<Vec3> a3, b3;
  for (const Vec2& v : a) a3.emplace_back(v.x(), v.y(), 0.0);
  for (const Vec2& v : b) b3.emplace_back(v.x(), v.y(), 0.0);
  for (const SimplexSolver s : kSolvers) {
    EXPECT_TRUE(gjk::collide(ConvexPolytope::from_points(a3), Pose::Identity(),
                             ConvexPolytope::from_points(b3), Pose::Identity(), opts(s))
                    .collision);
  }
}

}  // namespace

namespace {

// https://github.com/RandyGaul/cute_headers/issues/160 ("cute_c2 Basic Collision Test Is
// Incorrect"): two axis-aligned rectangles of size ~100s at coordinates ~1000 that c2PolytoPoly
// called apart (float precision in c2GJK), vertices verbatim. Reference by hand: they overlap by
// 160 in x (-848..-688) and p0's y range 928..1056 lies inside p1's 736..1184, so the minimum
// translation is 160 along x (moving p1 by 256 along y is the other candidate).
TEST(PeerIssues, CuteHeaders160LargeRectanglesOverlap) {
  using gjk::planar::Vec2;
  const std::vector<Vec2> p0 = {{-568, 928}, {-568, 1056}, {-848, 1056}, {-848, 928}};
  const std::vector<Vec2> p1 = {{-688, 736}, {-688, 1184}, {-912, 1184}, {-912, 736}};
  const auto a2 = gjk::planar::ConvexPolygon::from_points(p0);
  const auto b2 = gjk::planar::ConvexPolygon::from_points(p1);
  const auto id2 = gjk::planar::Pose2::Identity();
  EXPECT_TRUE(gjk::planar::collide(a2, id2, b2, id2).collision);
  EXPECT_TRUE(gjk::planar::distance(a2, id2, b2, id2).collision);
  // 3D: the rectangles as boxes of equal thickness (their depth along z would be the full
  // thickness, so make it larger than 160 to keep x the minimum).
  const Shape a3 = gjk::Box{Vec3(140, 64, 500)};   // centre (-708, 992)
  const Shape b3 = gjk::Box{Vec3(112, 224, 500)};  // centre (-800, 960)
  Pose pa = Pose::Identity(), pb = Pose::Identity();
  pa.translation() = Vec3(-708, 992, 0);
  pb.translation() = Vec3(-800, 960, 0);
  for (const SimplexSolver s : kSolvers) {
    EXPECT_TRUE(gjk::collide(a3, pa, b3, pb, opts(s)).collision);
    const auto p = gjk::penetration(a3, pa, b3, pb, opts(s));
    ASSERT_TRUE(p.collision);
    EXPECT_NEAR(p.depth, 160.0, 1e-9);
    EXPECT_NEAR(std::abs(p.normal.x()), 1.0, 1e-12);
  }
}

// https://github.com/flexible-collision-library/fcl/issues/508 ("Wrong Box to Box distance with
// GST_LIBCCD solver"): two unit cubes, one translated by (0, 4, 0), the other at the identity;
// the thread expects 3.0 and FCL's libccd solver answered 3.16228. Reference: the face gap.
TEST(PeerIssues, Fcl508UnitCubesFourApart) {
  const Shape cube = gjk::Box{Vec3(0.5, 0.5, 0.5)};
  Pose moved = Pose::Identity();
  moved.translation() = Vec3(0, 4, 0);
  for (const SimplexSolver s : kSolvers) {
    const auto d = gjk::distance(cube, moved, cube, Pose::Identity(), opts(s));
    EXPECT_EQ(d.status, gjk::Status::Converged);
    EXPECT_NEAR(d.distance, 3.0, 1e-15);
    EXPECT_NEAR(d.point_on_a.y(), 3.5, 1e-15);
    EXPECT_NEAR(d.point_on_b.y(), 0.5, 1e-15);
    EXPECT_NEAR(d.normal.y(), -1.0, 1e-15);
    EXPECT_LE(d.lower_bound, 3.0);
    EXPECT_GE(d.upper_bound, 3.0);
  }
}

// FCL's box-box signed-distance regressions from its own test suite (test_fcl_signed_distance.cpp,
// "RealWorldRegression": FCL sizes are full lengths, values verbatim), each an exception or a
// wrong answer in FCL's libccd path when reported: #388 ("validateNearestFeatureOfPolytopeBeing
// Edge"), #395 ("triangle_size_is_zero"), #415 ("query point colinear with the edge"), #398 and
// #428 (axis-aligned boxes in contact). Reference: the qhull difference of the two boxes' corners.
// Every engine query must agree with it, for boxes and for the same boxes as hulls.
struct FclBoxPair {
  const char* issue;
  Vec3 size_a;
  Eigen::Matrix4d pose_a;
  Vec3 size_b;
  Eigen::Matrix4d pose_b;
};

Pose fcl_pose(const Eigen::Matrix4d& m) {
  return make_pose(rotation(m.topLeftCorner<3, 3>()), m.topRightCorner<3, 1>());
}

Eigen::Matrix4d translation(double x, double y, double z) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topRightCorner<3, 1>() = Vec3(x, y, z);
  return m;
}

TEST(PeerIssues, FclBoxBoxRegressions388And395And415And398And428) {
  const std::vector<FclBoxPair> cases = {
      {"#388", Vec3(0.03, 0.12, 0.1),
       (Eigen::Matrix4d() << -3.0627937852578681533e-08, -0.99999999999999888978,
        -2.8893865161583314238e-08, 0.63499979627350811029, 0.9999999999999980016,
        -3.0627939739957803544e-08, 6.4729926918527511769e-08, -0.48500002215636439651,
        -6.4729927722963847085e-08, -2.8893863029448751323e-08, 0.99999999999999711342,
        1.0778146458339641356, 0, 0, 0, 1)
           .finished(),
       Vec3(0.025, 0.35, 1.845),
       (Eigen::Matrix4d() << 0, -1, 0, 0.8, 1, 0, 0, -0.4575, 0, 0, 1, 1.0225, 0, 0, 0, 1)
           .finished()},
      {"#395", Vec3(0.46, 0.48, 0.01),
       translation(-0.72099999999999997424, -0.77200000000000001954, 0.81000000000000005329),
       Vec3(0.049521, 0.146, 0.0725),
       (Eigen::Matrix4d() << 0.10758262492983036718, -0.6624881850015212903,
        -0.74130653817877356637, -0.42677133002999478872, 0.22682184885125472595,
        -0.709614040775253474, 0.6670830248314786326, -0.76596851247746788882,
        -0.96797615037608542021, -0.23991106241273435495, 0.07392465377049164954,
        0.80746731400091054098, 0, 0, 0, 1)
           .finished()},
      {"#415", Vec3(0.49, 0.05, 0.21),
       (Eigen::Matrix4d() << 4.8966386501092529215e-12, -1, 0, -0.43999999999999994671, 1,
        4.8966386501092529215e-12, 0, -0.61499999999858001587, 0, 0, 1, 0.35499999999999998224, 0,
        0, 0, 1)
           .finished(),
       Vec3(0.035, 0.12, 0.03),
       (Eigen::Matrix4d() << 0.83512153565236335595, -0.55006546945762568868,
        -9.4542360608233572896e-16, -0.40653441507331000704, 0.55006546945762568868,
        0.83512153565236313391, 1.1787444236552387666e-15, -0.69166166923735727945,
        1.2902271444330665572e-16, -1.4878153530113264589e-15, 1, 0.43057093858718892276, 0, 0, 0,
        1)
           .finished()},
      {"#398", Vec3(0.614, 3, 0.37), translation(-0.675, 0, 0.9115), Vec3(0.494, 0.552, 0.01),
       translation(-0.692, 0, 0.935)},
      {"#428", Vec3(0.2, 0.33, 0.1),
       translation(-0.071000000000000035305, -0.77200000000000001954, 0.79999999999999993339),
       Vec3(0.452, 0.27, 0.6),
       translation(0.12099999999999999645, -0.78769605692727695523, 0.53422044196125151316)},
  };
  for (const FclBoxPair& c : cases) {
    SCOPED_TRACE(c.issue);
    const Vec3 ha = c.size_a / 2, hb = c.size_b / 2;
    const Pose pa = fcl_pose(c.pose_a), pb = fcl_pose(c.pose_b);
    const gjk::testing::ReferenceResult ref = gjk::testing::reference_query(
        world(gjk::testing::box_corners(ha), pa), world(gjk::testing::box_corners(hb), pb));
    const double scale = 1e-12 * std::max(1.0, ref.scale);
    for (const bool hulls : {false, true}) {
      const Shape a = hulls ? Shape(ConvexPolytope::from_points(gjk::testing::box_corners(ha)))
                            : Shape(Box{ha});
      const Shape b = hulls ? Shape(ConvexPolytope::from_points(gjk::testing::box_corners(hb)))
                            : Shape(Box{hb});
      for (const SimplexSolver s : kSolvers) {
        const gjk::SignedDistanceResult sd = gjk::signed_distance(a, pa, b, pb, opts(s));
        EXPECT_NEAR(sd.signed_distance, ref.signed_distance, scale)
            << gjk::to_string(s) << (hulls ? " hulls" : " boxes");
        EXPECT_TRUE(sd.normal.allFinite() && sd.point_on_a.allFinite() &&
                    sd.point_on_b.allFinite());
        const gjk::DistanceResult d = gjk::distance(a, pa, b, pb, opts(s));
        EXPECT_NEAR(d.distance, std::max(ref.signed_distance, 0.0), scale);
        EXPECT_LE(d.lower_bound, std::max(ref.signed_distance, 0.0) + scale);
        EXPECT_GE(d.upper_bound, std::max(ref.signed_distance, 0.0) - scale);
        if (ref.signed_distance > scale) {  // the witnesses lie on the boxes, as far apart
          EXPECT_NEAR((d.point_on_a - d.point_on_b).norm(), d.distance, scale);
          EXPECT_TRUE(((pa.inverse() * d.point_on_a).cwiseAbs() - ha).maxCoeff() <= scale);
          EXPECT_TRUE(((pb.inverse() * d.point_on_b).cwiseAbs() - hb).maxCoeff() <= scale);
        }
        if (std::abs(ref.signed_distance) > scale) {  // contact within rounding: either way
          EXPECT_EQ(gjk::collide(a, pa, b, pb, opts(s)).collision, ref.signed_distance < 0.0)
              << "exact " << ref.signed_distance;
        }
      }
    }
  }
}

// FCL #399 (point-to-triangle distance; its thread is not reachable from here). FCL PR #401,
// "Add PointToTriangleDistanceSquare which computes the distance more robustly", resolves it;
// its author's libccd #55 gives the input for the routine FCL copies (ccdVec3PointTriDist2),
// verbatim below: the origin against a triangle whose three vertices all have y < 0, so the
// distance is positive, yet libccd returned 0 without witness points (3.108e-16 squared with
// them). The origin projects inside the triangle; reference: its distance from the triangle's
// plane in long double, and the projection's barycentric coordinates checked positive.
TEST(PeerIssues, Fcl399Libccd55PointAboveANearlyFlatTriangle) {
  using Ld = Eigen::Matrix<long double, 3, 1>;
  const Vec3 a(0.06999979436939574029, -0.00000001708219171670, 1.02781464659664711903);
  const Vec3 b(0.06999979436939574029, -0.00000001708219171670, -0.81718535340335285433);
  const Vec3 c(-0.40000020563060423306, -0.00000002075754440556, 1.02781464312938330963);
  const Ld la = a.cast<long double>(), lb = b.cast<long double>(), lc = c.cast<long double>();
  const Ld n = (lb - la).cross(lc - la);
  const long double nn = n.squaredNorm();
  const Ld q = n * (la.dot(n) / nn);  // the origin's projection on the plane
  const long double u = (lb - q).cross(lc - q).dot(n) / nn, v = (lc - q).cross(la - q).dot(n) / nn;
  ASSERT_GT(u, 0.0L);
  ASSERT_GT(v, 0.0L);
  ASSERT_GT(1.0L - u - v, 0.0L) << "the origin projects inside the triangle";
  const double reference = static_cast<double>(std::abs(la.dot(n)) / std::sqrt(nn));
  const Shape point = Sphere{0.0};
  const Shape triangle = ConvexPolytope::from_points({a, b, c});
  for (const SimplexSolver s : kSolvers) {
    const gjk::DistanceResult d =
        gjk::distance(triangle, Pose::Identity(), point, Pose::Identity(), opts(s));
    EXPECT_EQ(d.status, Status::Converged) << gjk::to_string(s);
    // Within a few ulps of the triangle's 1.9 m extent (the error bound of docs/reliability.md),
    // about 1e-7 of this distance; libccd's answer was off by all of it.
    EXPECT_NEAR(d.distance, reference, 1e-15) << gjk::to_string(s);
    EXPECT_LE(d.lower_bound, reference + 1e-15);
    EXPECT_FALSE(
        gjk::collide(triangle, Pose::Identity(), point, Pose::Identity(), opts(s)).collision);
  }
  std::printf("fcl #399 / libccd #55: distance %.17g\n", reference);
}

}  // namespace
