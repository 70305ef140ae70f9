// Penetration tracking (seed 004 section 5): a WarmStart keeps the pair's last EPA polytope, and
// while its moved faces still certify the depth the query answers without GJK or EPA's
// expansion. Checked against the qhull reference of A - B on every step of tracked overlapping
// motions, against cold queries, and with forged caches that must never change an answer.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "gjk/queries.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

namespace {

using namespace gjk;
namespace gt = gjk::testing;

std::vector<Vec3> world_points(const std::vector<Vec3>& local, const Pose& pose) {
  std::vector<Vec3> out;
  out.reserve(local.size());
  for (const Vec3& p : local) out.push_back(pose * p);
  return out;
}

/// A body of the tracked pairs: the shape and, for polytopes and boxes, its vertices (local
/// frame) for the reference; rounded bodies have none and are checked against cold queries.
struct Body {
  Shape shape;
  std::vector<Vec3> points;
};

Body hull_body(gt::Rng& rng, int n) {
  std::vector<Vec3> points = gt::sphere_polytope_points(rng, n);
  const Vec3 stretch(rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5));
  for (Vec3& p : points) p = p.cwiseProduct(stretch);
  return {ConvexPolytope::from_points(points), points};
}

Body box_body(gt::Rng& rng) {
  const Vec3 h(rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0));
  return {Box{h}, gt::box_corners(h)};
}

Body make_body(gt::Rng& rng, int kind) {
  switch (kind) {
    case 0:
      return hull_body(rng, 8);
    case 1:
      return hull_body(rng, 24);
    case 2:
      return hull_body(rng, 80);
    case 3:
      return box_body(rng);
    case 4:
      return {Sphere{rng.uniform(0.3, 0.8)}, {}};
    default:
      return {Capsule{rng.uniform(0.2, 0.5), rng.uniform(0.3, 0.8)}, {}};
  }
}

/// B starts inside A's reach and moves at constant velocity, turning by up to `max_angle`
/// radians a step: it slides through the overlap, deepening and leaving it.
std::vector<Pose> overlapping_motion(gt::Rng& rng, int steps, double max_angle) {
  std::vector<Pose> poses;
  Pose pose = Pose::Identity();
  pose.linear() = rng.rotation();
  pose.translation() = rng.unit_vector() * rng.uniform(0.3, 1.2);
  const Vec3 velocity = rng.unit_vector() * rng.uniform(0.005, 0.04);
  const Vec3 axis = rng.unit_vector();
  const double angle = rng.uniform(-max_angle, max_angle);
  const Eigen::Matrix3d turn = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
  for (int s = 0; s < steps; ++s) {
    poses.push_back(pose);
    pose.linear() = turn * pose.linear();
    pose.translation() += velocity;
  }
  return poses;
}

void expect_realises_depth(const PenetrationResult& p) {
  EXPECT_NEAR(p.normal.norm(), 1.0, 1e-12);
  EXPECT_LE((p.point_on_a - p.point_on_b - p.depth * p.normal).norm(), 1e-9)
      << "witness points do not realise the depth " << p.depth;
}

TEST(PenetrationTracking, TrackedDepthsMatchTheReferenceAndColdEpa) {
  gt::Rng rng(0x7e9a);
  int overlapping = 0, tracked = 0, referenced = 0, tracked_signed = 0;
  long cold_iterations = 0, warm_iterations = 0;
  double worst_reference = 0.0, worst_cold = 0.0;
  const int kinds = 6;
  for (int kind_a = 0; kind_a < kinds; ++kind_a) {
    for (int kind_b = 0; kind_b < kinds; ++kind_b) {
      for (int sequence = 0; sequence < 6; ++sequence) {
        const Body a = make_body(rng, kind_a), b = make_body(rng, kind_b);
        const Pose pose_a = gt::random_pose(rng, 2.0);
        // Smooth (up to 3 degrees a step) and jerky (up to 25) motions.
        const double max_angle = (sequence % 2 == 0 ? 3.0 : 25.0) * M_PI / 180.0;
        std::vector<Pose> motion = overlapping_motion(rng, 40, max_angle);
        WarmStart cache, signed_cache;
        for (size_t step = 0; step < motion.size(); ++step) {
          const Pose pose_b = pose_a * motion[step];
          const PenetrationResult cold = penetration(a.shape, pose_a, b.shape, pose_b);
          const PenetrationResult warm = penetration(a.shape, pose_a, b.shape, pose_b, {}, cache);
          const SignedDistanceResult signed_cold =
              signed_distance(a.shape, pose_a, b.shape, pose_b);
          const SignedDistanceResult signed_warm =
              signed_distance(a.shape, pose_a, b.shape, pose_b, {}, signed_cache);
          SCOPED_TRACE(::testing::Message() << "shapes " << kind_a << " x " << kind_b
                                            << ", sequence " << sequence << ", step " << step);
          ASSERT_EQ(warm.status, Status::Converged);
          ASSERT_EQ(warm.collision, cold.collision);
          EXPECT_NEAR(signed_warm.signed_distance, signed_cold.signed_distance, 1e-9);
          if (!cold.collision) continue;
          ++overlapping;
          tracked += warm.iterations == 0 ? 1 : 0;
          tracked_signed += signed_warm.iterations == 0 ? 1 : 0;
          // From scratch as the tracked query would be without its polytope: GJK and EPA (the
          // cold query may start EPA from an octahedron instead, without GJK's iterations).
          WarmStart fresh;
          cold_iterations += penetration(a.shape, pose_a, b.shape, pose_b, {}, fresh).iterations;
          warm_iterations += warm.iterations;
          EXPECT_NEAR(warm.depth, cold.depth, 1e-9);
          worst_cold = std::max(worst_cold, std::abs(warm.depth - cold.depth));
          EXPECT_LE(warm.lower_bound, warm.depth + 1e-15);
          EXPECT_GE(warm.upper_bound, warm.depth - 1e-15);
          expect_realises_depth(warm);
          if (a.points.empty() || b.points.empty()) continue;
          const gt::ReferenceResult ref =
              gt::reference_query(world_points(a.points, pose_a), world_points(b.points, pose_b));
          if (!ref.overlap) continue;  // touching within rounding
          ++referenced;
          EXPECT_NEAR(warm.depth, ref.depth, 1e-9);
          EXPECT_LE(warm.lower_bound, ref.depth + 1e-12);
          EXPECT_GE(warm.upper_bound, ref.depth - 1e-12);
          worst_reference = std::max(worst_reference, std::abs(warm.depth - ref.depth));
        }
      }
    }
  }
  std::printf(
      "penetration tracking: %d overlapping steps (%d against the reference), %d answered by "
      "the moved polytope as it was (%d in signed_distance); GJK + EPA iterations %ld warm, %ld "
      "cold; max |depth - reference| %.3g, max |warm - cold| %.3g\n",
      overlapping, referenced, tracked, tracked_signed, warm_iterations, cold_iterations,
      worst_reference, worst_cold);
  EXPECT_GT(referenced, 1500);
  // The shortcut must really be taken: a third of these steps (smooth and 25-degree jerky
  // motions alike) keep their nearest face, and the tracked queries iterate far less.
  EXPECT_GT(tracked, overlapping / 3);
  EXPECT_GT(tracked_signed, overlapping / 3);
  EXPECT_LT(warm_iterations, cold_iterations / 2);
}

TEST(PenetrationTracking, TheAnswersFaceIsStoredFirst) {
  // tracked_epa tests the stored face 0 before the others (a miss there skips the planes of
  // the rest): it must be the converged answer's face, the polytope's nearest.
  gt::Rng rng(0xface);
  int stored = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Body a = hull_body(rng, rng.uniform_int(8, 120));
    const Body b = trial % 3 == 0 ? box_body(rng) : hull_body(rng, rng.uniform_int(8, 60));
    const Pose pose_a = gt::random_pose(rng, 1.0);
    Pose pose_b = gt::random_pose(rng, 1.0);
    pose_b.translation() = pose_a.translation() + rng.unit_vector() * rng.uniform(0.0, 0.8);
    WarmStart cache;
    const PenetrationResult p = penetration(a.shape, pose_a, b.shape, pose_b, {}, cache);
    if (!p.collision || cache.polytope_faces.empty()) continue;
    ++stored;
    // Indices are into the hulls' own vertices (a box's: corner i takes +h along axis k when
    // bit k of i is set, as box_corners).
    const auto& va = std::get<ConvexPolytope>(a.shape.geometry).vertices();
    const std::vector<Vec3> vb = std::holds_alternative<Box>(b.shape.geometry)
                                     ? b.points
                                     : std::get<ConvexPolytope>(b.shape.geometry).vertices();
    std::vector<double> plane_distance;
    for (const auto& f : cache.polytope_faces) {
      Vec3 w[3];
      for (size_t e = 0; e < 3; ++e) {
        const auto& pair = cache.polytope_vertices[static_cast<size_t>(f[e])];
        w[e] =
            pose_a * va[static_cast<size_t>(pair[0])] - pose_b * vb[static_cast<size_t>(pair[1])];
      }
      const Vec3 n = (w[1] - w[0]).cross(w[2] - w[0]).normalized();
      plane_distance.push_back(std::abs(n.dot(w[0])));
    }
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    const double nearest = *std::min_element(plane_distance.begin(), plane_distance.end());
    EXPECT_NEAR(plane_distance[0], nearest, 1e-12);
    EXPECT_NEAR(plane_distance[0], p.lower_bound, 1e-12);
  }
  EXPECT_GT(stored, 150);
}

/// The pair's real cache after one overlapping query, and the cold answer at a second pose.
struct ForgeCase {
  Shape a, b;
  Pose pose_a, pose_b;
  WarmStart real;
  PenetrationResult cold;
};

ForgeCase forge_case(gt::Rng& rng) {
  ForgeCase c;
  c.a = ConvexPolytope::from_points(gt::sphere_polytope_points(rng, rng.uniform_int(6, 60)));
  c.b = rng.uniform_int(0, 1) == 0
            ? Shape(Box{Vec3(rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8))})
            : Shape(ConvexPolytope::from_points(gt::sphere_polytope_points(rng, 20)));
  c.pose_a = gt::random_pose(rng, 1.0);
  do {  // two overlapping poses a small motion apart
    Pose start = c.pose_a;
    start.translation() += rng.unit_vector() * rng.uniform(0.1, 0.5);
    c.real.reset();
    penetration(c.a, c.pose_a, c.b, start, {}, c.real);
    c.pose_b = start;
    c.pose_b.translation() += rng.unit_vector() * 0.05;
    c.pose_b.linear() =
        Eigen::AngleAxisd(0.1, rng.unit_vector()).toRotationMatrix() * start.linear();
    c.cold = penetration(c.a, c.pose_a, c.b, c.pose_b);
  } while (!c.cold.collision || c.real.polytope_faces.empty());
  return c;
}

TEST(PenetrationTracking, ForgedPolytopesAreNeverTrusted) {
  gt::Rng rng(0xf09e);
  int forged = 0, answered_by_forgery = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const ForgeCase c = forge_case(rng);
    const int vertices = static_cast<int>(c.real.polytope_vertices.size());
    const int faces = static_cast<int>(c.real.polytope_faces.size());
    for (int way = 0; way < 7; ++way) {
      WarmStart cache = c.real;
      switch (way) {
        case 0:  // vertices shuffled: a closed surface through other points of A - B
          for (int i = vertices - 1; i > 0; --i)
            std::swap(cache.polytope_vertices[static_cast<size_t>(i)],
                      cache.polytope_vertices[static_cast<size_t>(rng.uniform_int(0, i))]);
          break;
        case 1:  // every face turned inside out (twins still consistent)
          for (auto& f : cache.polytope_faces) {
            std::swap(f[0], f[1]);
            // edge 0 keeps its twin reversed; edges 1 and 2 swap their twins
            std::swap(f[4], f[5]);
          }
          break;
        case 2:  // one twin link broken: the surface has a hole
          cache.polytope_faces[static_cast<size_t>(rng.uniform_int(0, faces - 1))]
                              [static_cast<size_t>(rng.uniform_int(3, 5))] = 0;
          break;
        case 3:  // indices out of range
          cache.polytope_vertices[static_cast<size_t>(rng.uniform_int(0, vertices - 1))] = {1 << 20,
                                                                                            -3};
          break;
        case 4:  // random entries everywhere
          for (auto& f : cache.polytope_faces)
            for (int& x : f) x = rng.uniform_int(-2, 4 * faces + 2);
          break;
        case 5:  // a face dropped: the rest no longer closes
          cache.polytope_faces.pop_back();
          break;
        default:  // another pair's polytope (its indices may fit these hulls)
          cache = forge_case(rng).real;
          break;
      }
      ++forged;
      const PenetrationResult p = penetration(c.a, c.pose_a, c.b, c.pose_b, {}, cache);
      SCOPED_TRACE(::testing::Message() << "trial " << trial << ", forgery " << way);
      ASSERT_TRUE(p.collision);
      EXPECT_NEAR(p.depth, c.cold.depth, 1e-9);
      EXPECT_LE(p.lower_bound, c.cold.depth + 1e-12);
      EXPECT_GE(p.upper_bound, c.cold.depth - 1e-12);
      expect_realises_depth(p);
      answered_by_forgery += p.iterations == 0 ? 1 : 0;
    }
  }
  std::printf("forged caches: %d, answered by a (still certified) forged polytope: %d\n", forged,
              answered_by_forgery);
}

TEST(PenetrationTracking, LeavingTheOverlapDropsThePolytope) {
  const Shape a = Box{Vec3(1, 1, 1)}, b = Box{Vec3(0.5, 0.5, 0.5)};
  WarmStart cache;
  Pose pb = Pose::Identity();
  pb.translation() = Vec3(1.2, 0.1, 0.0);
  const PenetrationResult first = penetration(a, Pose::Identity(), b, pb, {}, cache);
  ASSERT_TRUE(first.collision);
  EXPECT_NEAR(first.depth, 0.3, 1e-12);
  EXPECT_FALSE(cache.polytope_faces.empty());
  pb.translation().x() = 1.25;  // the same contact face, shallower: answered by the polytope
  const PenetrationResult second = penetration(a, Pose::Identity(), b, pb, {}, cache);
  EXPECT_EQ(second.iterations, 0);
  EXPECT_NEAR(second.depth, 0.25, 1e-12);
  pb.translation().x() = 2.0;  // apart
  const PenetrationResult apart = penetration(a, Pose::Identity(), b, pb, {}, cache);
  EXPECT_FALSE(apart.collision);
  EXPECT_TRUE(cache.polytope_faces.empty());
  EXPECT_TRUE(cache.polytope_vertices.empty());
  // Curved cores keep no polytope: their vertices have no indices.
  WarmStart curved;
  penetration(Cylinder{0.5, 1.0}, Pose::Identity(), b, Pose::Identity(), {}, curved);
  EXPECT_TRUE(curved.polytope_faces.empty());
  cache.polytope_faces.resize(3);
  cache.reset();
  EXPECT_TRUE(cache.polytope_faces.empty());
}

TEST(PenetrationStart, ColdAnswersMatchTheReferenceFromDeepToApart) {
  // A cold penetration() of bare hulls and boxes starts EPA from an octahedron of supports when
  // that holds the origin (deep pairs), else from GJK's simplex (shallow ones); a query with a
  // fresh cache always takes GJK's. Both must give the reference's depth and normal, whichever
  // start the pair got, from centres on top of each other to pairs just apart; signed_distance()
  // (GJK, then EPA from GJK's simplex), cold and with a fresh cache, the reference's signed
  // distance on the same pairs.
  gt::Rng rng(0x0c7a);
  int deep = 0, shallow = 0, apart = 0;
  double worst = 0.0;
  for (int trial = 0; trial < 1500; ++trial) {
    const Body a = trial % 5 == 0 ? box_body(rng) : hull_body(rng, rng.uniform_int(4, 150));
    const Body b = trial % 7 == 0 ? box_body(rng) : hull_body(rng, rng.uniform_int(4, 60));
    const Pose pose_a = gt::random_pose(rng, 1.0);
    Pose pose_b = gt::random_pose(rng, 1.0);
    const double offset = trial % 10 == 0 ? 0.0 : rng.uniform(0.0, 2.5);
    pose_b.translation() = pose_a.translation() + rng.unit_vector() * offset;
    const PenetrationResult cold = penetration(a.shape, pose_a, b.shape, pose_b);
    WarmStart fresh;
    const PenetrationResult from_gjk = penetration(a.shape, pose_a, b.shape, pose_b, {}, fresh);
    const SignedDistanceResult signed_cold = signed_distance(a.shape, pose_a, b.shape, pose_b);
    WarmStart fresh_signed;
    const SignedDistanceResult signed_from_gjk =
        signed_distance(a.shape, pose_a, b.shape, pose_b, {}, fresh_signed);
    const gt::ReferenceResult ref =
        gt::reference_query(world_points(a.points, pose_a), world_points(b.points, pose_b));
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ", offset " << offset);
    if (std::abs(ref.signed_distance) < 1e-9) continue;  // touching: either verdict is right
    EXPECT_EQ(signed_cold.status, Status::Converged);
    EXPECT_NEAR(signed_cold.signed_distance, ref.signed_distance, 1e-9 * ref.scale);
    EXPECT_NEAR(signed_cold.signed_distance, signed_from_gjk.signed_distance, 1e-9 * ref.scale);
    EXPECT_NEAR(signed_cold.normal.norm(), 1.0, 1e-12);
    EXPECT_LE((signed_cold.point_on_b - signed_cold.point_on_a -
               signed_cold.signed_distance * signed_cold.normal)
                  .norm(),
              1e-9)
        << "witness points do not realise the signed distance " << signed_cold.signed_distance;
    worst = std::max(worst, std::abs(signed_cold.signed_distance - ref.signed_distance));
    ASSERT_EQ(cold.collision, ref.overlap);
    ASSERT_EQ(from_gjk.collision, ref.overlap);
    if (!ref.overlap) {
      ++apart;
      continue;
    }
    (offset < 0.5 ? deep : shallow) += 1;
    EXPECT_EQ(cold.status, Status::Converged);
    EXPECT_NEAR(cold.depth, ref.depth, 1e-9 * ref.scale);
    EXPECT_NEAR(cold.depth, from_gjk.depth, 1e-9 * ref.scale);
    EXPECT_LE(cold.lower_bound, ref.depth + 1e-12 * ref.scale);
    EXPECT_GE(cold.upper_bound, ref.depth - 1e-12 * ref.scale);
    expect_realises_depth(cold);
    if (ref.unique_normal && ref.second_depth - ref.depth > 1e-6) {
      EXPECT_LE((cold.normal - ref.normal).norm(), 1e-6);
    }
    worst = std::max(worst, std::abs(cold.depth - ref.depth));
  }
  std::printf(
      "penetration starts: %d deep, %d shallow, %d apart; max |depth or signed distance - "
      "reference| %.3g\n",
      deep, shallow, apart, worst);
  EXPECT_GT(deep, 300);
  EXPECT_GT(shallow, 300);
  EXPECT_GT(apart, 100);
}

TEST(PenetrationStart, RestingContactsAnswerTheContact) {
  // A body resting on a table: B (hull, box, sphere or capsule) placed exactly on the top face of
  // a box A, away from its edges, the pair moved by a random rigid transform. GJK reaches the
  // origin within the touching distance; one support along -v then bounds the depth by as
  // little, and penetration() and signed_distance() answer without EPA (pair_results.hpp,
  // touching_without_epa; whether EPA ran is not visible from outside: a flat EPA adds no
  // iterations). The answers must be the contact: depth and signed distance ~0 (the qhull
  // reference's too), the normal A's face normal, the witness points realising the depth.
  gt::Rng rng(0x70c4);
  const Vec3 table(1.5, 1.5, 0.5);
  const Body a{Box{table}, gt::box_corners(table)};
  int cases = 0, colliding = 0;
  for (int trial = 0; trial < 800; ++trial) {
    const int kind = trial % 4;
    // At most 0.7 across from B's origin, placed within 0.6 of the face's centre: B's lowest
    // point lies on the face, 0.2 or more from its edges.
    Body b;
    if (kind == 0) {
      std::vector<Vec3> points = gt::sphere_polytope_points(rng, rng.uniform_int(4, 60));
      for (Vec3& q : points) q *= 0.4;
      b = {ConvexPolytope::from_points(points), points};
    } else if (kind == 1) {
      const Vec3 h(rng.uniform(0.1, 0.4), rng.uniform(0.1, 0.4), rng.uniform(0.1, 0.4));
      b = {Box{h}, gt::box_corners(h)};
    } else if (kind == 2) {
      b = {Sphere{rng.uniform(0.2, 0.5)}, {}};
    } else {
      b = {Capsule{rng.uniform(0.1, 0.3), rng.uniform(0.2, 0.4)}, {}};
    }
    Pose local_b = Pose::Identity();
    local_b.linear() =
        kind == 3 ? Eigen::Matrix3d(Eigen::AngleAxisd(rng.uniform(0.0, 3.0), Vec3::UnitZ()) *
                                    Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()))
                  : rng.rotation();
    double lowest = 0.0;  // of B's surface below its origin, in the rotated frame
    if (kind == 2) {
      lowest = -std::get<Sphere>(b.shape.geometry).radius;
    } else if (kind == 3) {
      lowest = -std::get<Capsule>(b.shape.geometry).radius;
    } else {
      lowest = HUGE_VAL;
      for (const Vec3& p : b.points) lowest = std::min(lowest, Vec3(local_b.linear() * p).z());
    }
    local_b.translation() =
        Vec3(rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), table.z() - lowest);
    const Pose world = gt::random_pose(rng, 1.0);
    const Pose pose_a = world, pose_b = world * local_b;
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ", kind " << kind);
    ++cases;
    const SignedDistanceResult sd = signed_distance(a.shape, pose_a, b.shape, pose_b);
    EXPECT_LE(std::abs(sd.signed_distance), 1e-12);
    const PenetrationResult p = penetration(a.shape, pose_a, b.shape, pose_b);
    WarmStart fresh;
    const PenetrationResult from_gjk = penetration(a.shape, pose_a, b.shape, pose_b, {}, fresh);
    if (!b.points.empty()) {
      const gt::ReferenceResult ref =
          gt::reference_query(world_points(a.points, pose_a), world_points(b.points, pose_b));
      EXPECT_LE(std::abs(ref.signed_distance), 1e-12);
      EXPECT_NEAR(sd.signed_distance, ref.signed_distance, 1e-12);
    }
    EXPECT_EQ(p.collision, from_gjk.collision);
    if (!from_gjk.collision) continue;  // rounding left the cores 1e-16 apart: distance answers
    ++colliding;
    for (const PenetrationResult* r : {&p, &from_gjk}) {
      EXPECT_LE(r->depth, 1e-12);
      EXPECT_LE(r->lower_bound, r->depth);
      expect_realises_depth(*r);
      // A's top face is the only feature of A that B touches: the contact normal is its normal.
      EXPECT_GE(std::abs(r->normal.dot(pose_a.linear().col(2))), 1.0 - 1e-9);
    }
  }
  std::printf("resting contacts: %d, %d colliding\n", cases, colliding);
  EXPECT_GT(colliding, cases / 2);
}

}  // namespace
