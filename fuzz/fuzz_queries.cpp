// Fuzz target: the proximity queries, checked against properties rather than for crashes only.
//
// The input bytes become two bodies and two poses. A body is either raw (vertex coordinates as
// arbitrary doubles: NaN, Inf, 1e300, 1e-300, ...) or structured (a well-scaled random hull, a
// degenerate point set, a primitive, any of them inflated), so the fuzzer reaches both the input
// checks and the deep GJK/EPA code. Bad input must give Status::InvalidInput without a throw;
// on finite, well-scaled input every Converged answer is checked against an independent
// support function of each body (dual certificates of distance and depth), and for symmetry,
// rigid-motion invariance, agreement between the queries, warm start = cold start, and
// 1-Lipschitz continuity of the signed distance along a straight approach through contact.
#include "fuzz_common.hpp"

#include <gjk/queries.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

using gjk::Pose;
using gjk::Status;
using gjk::Vec3;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Relative tolerances (times the problem's size S). GJK on polytopes is exact to rounding; the
// cylinder's curved core converges to a relative duality gap of 1e-12 and EPA on it to 1e-10,
// so depths get a looser bound than distances.
constexpr double kDistanceTol = 1e-9;
constexpr double kDepthTol = 1e-8;

struct Body {
  std::optional<gjk::Shape> shape;  // empty: construction rejected the input (allowed)
  std::vector<Vec3> points;         // polytope: the input points (their hull is the body)
  bool valid = true;                // every number finite and every size >= 0
  bool well_scaled = true;          // valid, and sizes within [1e-6, 1e6]: properties apply
  double radius = 0.0;              // radius of a ball around the frame origin holding the body
};

double raw_double(FuzzedDataProvider& in) {
  std::uint64_t bits = in.ConsumeIntegral<std::uint64_t>();
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// A coordinate from a table of awkward values, or a small number.
double special_double(FuzzedDataProvider& in) {
  static constexpr std::array<double, 16> table = {0.0,     1.0,    -1.0,         0.5,  -2.0, 1e300,
                                                   -1e300,  1e-300, -1e-300,      kNaN, kInf, -kInf,
                                                   DBL_MAX, 1e-8,   DBL_TRUE_MIN, 1e8};
  const std::uint8_t code = in.ConsumeIntegral<std::uint8_t>();
  if (code < table.size()) return table[code];
  return (static_cast<int>(code) - 136) / 16.0;
}

/// A size in [0, scale] (a quarter of them exactly 0: degenerate primitives).
double size_in(FuzzedDataProvider& in, double scale) {
  const std::uint8_t b = in.ConsumeIntegral<std::uint8_t>();
  return b < 64 ? 0.0 : scale * (b - 63) / 192.0;
}

double scale_of(FuzzedDataProvider& in) {
  static constexpr std::array<double, 6> scales = {1e-3, 0.1, 1.0, 1.0, 10.0, 1e3};
  return scales[in.ConsumeIntegral<std::uint8_t>() % scales.size()];
}

/// FUZZ_VERBOSE=1 prints the decoded input, to turn a crash file into a regression test.
bool verbose() {
  static const bool on = std::getenv("FUZZ_VERBOSE") != nullptr;
  return on;
}

void finish_points(Body& body, bool hull_vertices) {
  if (verbose()) {
    std::fprintf(stderr, "%s of %zu points:\n", hull_vertices ? "hull vertices" : "from_points",
                 body.points.size());
    for (const Vec3& p : body.points)
      std::fprintf(stderr, "  {%.17g, %.17g, %.17g},\n", p.x(), p.y(), p.z());
  }
  body.well_scaled = true;
  double largest = 0.0;
  for (const Vec3& p : body.points) {
    if (!p.allFinite()) {
      body.valid = body.well_scaled = false;
      break;
    }
    largest = std::max(largest, p.norm());
  }
  if (body.well_scaled) body.well_scaled = largest <= 1e6;
  body.radius = largest;
  try {
    body.shape = hull_vertices ? gjk::ConvexPolytope::from_hull_vertices(body.points)
                               : gjk::ConvexPolytope::from_points(body.points);
  } catch (const std::invalid_argument&) {
    // Documented for non-finite coordinates and empty sets; anything else is a finding.
    FUZZ_CHECK(!body.valid || body.points.empty(), "from_points rejected finite points");
    body.shape.reset();
  }
  if (body.shape) FUZZ_CHECK(body.valid, "from_points accepted non-finite points");
}

Body make_body(FuzzedDataProvider& in) {
  Body body;
  const std::uint8_t kind = in.ConsumeIntegral<std::uint8_t>();
  const double inflation_scale = (kind & 0x80) ? scale_of(in) : 0.0;
  switch (kind % 6) {
    case 0: {  // raw doubles
      const int n = in.ConsumeIntegralInRange<int>(1, 64);
      for (int i = 0; i < n; ++i)
        body.points.emplace_back(raw_double(in), raw_double(in), raw_double(in));
      finish_points(body, false);
      break;
    }
    case 1: {  // awkward values
      const int n = in.ConsumeIntegralInRange<int>(1, 64);
      for (int i = 0; i < n; ++i)
        body.points.emplace_back(special_double(in), special_double(in), special_double(in));
      finish_points(body, false);
      break;
    }
    case 2:
    case 3: {  // a well-scaled random point set, possibly flat, collinear, a point or repeated
      const double s = scale_of(in);
      const Vec3 offset = s *
                          Vec3(in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>(),
                               in.ConsumeIntegral<std::int8_t>()) /
                          64.0;
      const std::uint8_t flags = in.ConsumeIntegral<std::uint8_t>();
      const int n = in.ConsumeIntegralInRange<int>(1, 64);
      Vec3 first = Vec3::Zero();
      for (int i = 0; i < n; ++i) {
        Vec3 p(in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>(),
               in.ConsumeIntegral<std::int8_t>());
        if (flags & 1) p.z() = 0.0;          // coplanar
        if (flags & 2) p.y() = p.z() = 0.0;  // collinear
        if (i == 0) first = p;
        if ((flags & 4) && i % 2 == 1) p = first;  // repeated points
        body.points.push_back(offset + s * p / 127.0);
      }
      if (flags & 8) {  // a tiny perturbation: nearly flat or nearly coincident hulls
        for (Vec3& p : body.points) p.x() += s * 1e-11 * in.ConsumeIntegral<std::int8_t>();
      }
      finish_points(body, kind % 6 == 3);
      break;
    }
    case 4: {  // a primitive of well-scaled sizes (zeros allowed: points, segments, plates)
      const double s = scale_of(in);
      const std::uint8_t type = in.ConsumeIntegral<std::uint8_t>() % 4;
      const double r = size_in(in, s), h = size_in(in, s);
      if (type == 0) body.shape = gjk::Shape(gjk::Sphere{r});
      if (type == 1) body.shape = gjk::Shape(gjk::Box{Vec3(r, h, size_in(in, s))});
      if (type == 2) body.shape = gjk::Shape(gjk::Capsule{r, h});
      if (type == 3) body.shape = gjk::Shape(gjk::Cylinder{r, h});
      body.radius =
          type == 1 ? std::get<gjk::Box>(body.shape->geometry).half_extents.norm() : r + h;
      break;
    }
    default: {  // a primitive with awkward sizes: negative, NaN and Inf are invalid input
      const std::uint8_t type = in.ConsumeIntegral<std::uint8_t>() % 4;
      const double r = special_double(in), h = special_double(in), z = special_double(in);
      if (type == 0) body.shape = gjk::Shape(gjk::Sphere{r});
      if (type == 1) body.shape = gjk::Shape(gjk::Box{Vec3(r, h, z)});
      if (type == 2) body.shape = gjk::Shape(gjk::Capsule{r, h});
      if (type == 3) body.shape = gjk::Shape(gjk::Cylinder{r, h});
      const bool has_z = type == 1, has_h = type != 0;
      auto ok = [](double x) { return std::isfinite(x) && x >= 0.0; };
      body.valid = ok(r) && (!has_h || ok(h)) && (!has_z || ok(z));
      auto scaled = [](double x) { return x == 0.0 || (x >= 1e-6 && x <= 1e6); };
      body.well_scaled = body.valid && scaled(r) && (!has_h || scaled(h)) && (!has_z || scaled(z));
      body.radius = std::abs(r) + (has_h ? std::abs(h) : 0.0) + (has_z ? std::abs(z) : 0.0);
      break;
    }
  }
  if (body.shape && inflation_scale > 0.0) {
    const std::uint8_t b = in.ConsumeIntegral<std::uint8_t>();
    const double inflation = b == 255   ? -inflation_scale
                             : b == 254 ? kNaN
                                        : inflation_scale * b / 253.0;
    body.shape = gjk::inflated(*body.shape, inflation);
    body.valid = body.valid && inflation >= 0.0;
    body.well_scaled = body.well_scaled && inflation >= 0.0;
    body.radius += std::abs(inflation);
  }
  if (verbose() && body.shape) {
    std::fprintf(stderr, "body: %s inflation %.17g radius %.17g valid %d well_scaled %d\n",
                 gjk::shape_name(*body.shape).c_str(), body.shape->inflation, body.radius,
                 body.valid, body.well_scaled);
    std::visit(
        [](const auto& g) {
          using G = std::decay_t<decltype(g)>;
          if constexpr (std::is_same_v<G, gjk::Box>) {
            std::fprintf(stderr, "  half_extents %.17g %.17g %.17g\n", g.half_extents.x(),
                         g.half_extents.y(), g.half_extents.z());
          } else if constexpr (std::is_same_v<G, gjk::Capsule> ||
                               std::is_same_v<G, gjk::Cylinder>) {
            std::fprintf(stderr, "  radius %.17g half_length %.17g\n", g.radius, g.half_length);
          } else if constexpr (std::is_same_v<G, gjk::Sphere>) {
            std::fprintf(stderr, "  radius %.17g\n", g.radius);
          }
        },
        body.shape->geometry);
  }
  // A body too small to measure is not a rounding test: skip the properties (not the checks
  // for crashes and invalid input).
  if (!(body.radius >= 1e-6)) body.well_scaled = false;
  return body;
}

/// A rotation from four bytes (a quaternion; all zero is the identity).
Eigen::Matrix3d rotation_of(FuzzedDataProvider& in) {
  Eigen::Quaterniond q(in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>(),
                       in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>());
  if (q.squaredNorm() == 0.0) return Eigen::Matrix3d::Identity();
  return q.normalized().toRotationMatrix();
}

struct PoseInput {
  Pose pose = Pose::Identity();
  bool finite = true;  // no NaN/Inf anywhere
  bool proper = true;  // a rotation by construction (raw matrices may or may not pass)
};

PoseInput make_pose(FuzzedDataProvider& in, double size) {
  PoseInput p;
  const std::uint8_t kind = in.ConsumeIntegral<std::uint8_t>();
  if (kind < 200) {  // structured: offsets of the order of the bodies' size
    p.pose.linear() = rotation_of(in);
    p.pose.translation() =
        size *
        Vec3(in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>(),
             in.ConsumeIntegral<std::int8_t>()) /
        48.0;
  } else if (kind < 230) {  // awkward translation
    p.pose.linear() = rotation_of(in);
    p.pose.translation() = Vec3(special_double(in), special_double(in), special_double(in));
    p.proper = true;
  } else {  // a raw matrix
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) p.pose.matrix()(r, c) = special_double(in);
    p.proper = false;
  }
  p.finite = p.pose.matrix().allFinite();
  return p;
}

/// Support value h(n) = max over the body of n . x, in the world frame, computed here from the
/// input (the points, not the library's hull), independently of the engine.
double support(const Body& body, const Pose& pose, const Vec3& n) {
  const Vec3 local = pose.linear().transpose() * n;
  const double along = n.dot(pose.translation()) + body.shape->inflation * n.norm();
  return along + std::visit(
                     [&](const auto& g) -> double {
                       using G = std::decay_t<decltype(g)>;
                       if constexpr (std::is_same_v<G, gjk::Sphere>) {
                         return g.radius * local.norm();
                       } else if constexpr (std::is_same_v<G, gjk::Box>) {
                         return local.cwiseAbs().dot(g.half_extents);
                       } else if constexpr (std::is_same_v<G, gjk::Capsule>) {
                         return g.half_length * std::abs(local.z()) + g.radius * local.norm();
                       } else if constexpr (std::is_same_v<G, gjk::Cylinder>) {
                         return g.half_length * std::abs(local.z()) +
                                g.radius * std::hypot(local.x(), local.y());
                       } else {
                         double best = -kInf;
                         for (const Vec3& v : body.points) best = std::max(best, local.dot(v));
                         return best;
                       }
                     },
                     body.shape->geometry);
}

/// h_{A-B}(u) = h_A(u) + h_B(-u): how far A reaches past B along u. For separated bodies
/// -h_{A-B}(u) is a lower bound on the distance for every unit u; for overlapping ones h_{A-B}(u)
/// is an upper bound on the depth.
double overlap_along(const Body& a, const Pose& pa, const Body& b, const Pose& pb, const Vec3& u) {
  return support(a, pa, u) + support(b, pb, -u);
}

/// Radius of the ball swept around the shape's core (sphere and capsule radius plus inflation).
double ball_radius(const Body& body) {
  double r = body.shape->inflation;
  if (const auto* s = std::get_if<gjk::Sphere>(&body.shape->geometry)) r += s->radius;
  if (const auto* c = std::get_if<gjk::Capsule>(&body.shape->geometry)) r += c->radius;
  return r;
}

bool unit(const Vec3& n) {
  return std::abs(n.norm() - 1.0) <= 1e-9;
}

/// A tracked EPA polytope from the input (WarmStart::polytope_*), never to be trusted: random
/// entries, or a closed tetrahedron or octahedron (consistent twins, so only the geometric
/// certificate stands between it and the answer) on random vertex pairs.
void forge_polytope(FuzzedDataProvider& in, gjk::WarmStart& cache) {
  static const std::vector<std::array<int, 3>> kTetrahedron = {
      {0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
  static const std::vector<std::array<int, 3>> kOctahedron = {
      {0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  const int mode = in.ConsumeIntegralInRange<int>(0, 3);
  if (mode == 0) return;
  if (mode == 1) {
    const int vertices = in.ConsumeIntegralInRange<int>(0, 8);
    for (int i = 0; i < vertices; ++i)
      cache.polytope_vertices.push_back(
          {in.ConsumeIntegralInRange<int>(-2, 70), in.ConsumeIntegralInRange<int>(-2, 70)});
    const int faces = in.ConsumeIntegralInRange<int>(0, 8);
    for (int f = 0; f < faces; ++f) {
      std::array<int, 6> face{};
      for (int& x : face) x = in.ConsumeIntegralInRange<int>(-2, 30);
      cache.polytope_faces.push_back(face);
    }
    return;
  }
  const auto& triangles = mode == 2 ? kTetrahedron : kOctahedron;
  const int vertices = mode == 2 ? 4 : 6;
  for (int i = 0; i < vertices; ++i)
    cache.polytope_vertices.push_back(
        {in.ConsumeIntegralInRange<int>(0, 70), in.ConsumeIntegralInRange<int>(0, 70)});
  for (const auto& t : triangles) cache.polytope_faces.push_back({t[0], t[1], t[2], -1, -1, -1});
  for (size_t f = 0; f < triangles.size(); ++f) {
    for (size_t e = 0; e < 3; ++e) {  // the twin of edge (p, q) runs (q, p)
      const int p = triangles[f][e], q = triangles[f][(e + 1) % 3];
      for (size_t g = 0; g < triangles.size(); ++g) {
        for (size_t h = 0; h < 3; ++h) {
          if (triangles[g][h] == q && triangles[g][(h + 1) % 3] == p)
            cache.polytope_faces[f][e + 3] = static_cast<int>(4 * g + h);
        }
      }
    }
  }
}

struct Checker {
  const Body& a;
  const Body& b;
  gjk::QueryOptions options;
  std::vector<Vec3> probes;  // unit directions for the dual certificates

  /// The problem's size at these poses: every absolute tolerance is relative to it.
  double size(const Pose& pa, const Pose& pb) const {
    return a.radius + b.radius + (pa.translation() - pb.translation()).norm() + 1e-300;
  }

  /// Tolerance of the witnesses' offsets from the supporting planes of the normal (and of the
  /// separation along the normal, a lower bound that meets the distance only at the exact
  /// normal) when the normal is (pb - pa) / gap. A witness error e tilts the normal by up to
  /// 2 e / gap, which moves a supporting plane by that times the size. GJK reports Converged
  /// within a duality gap of 1e-9 of the size (a stall) and, on the cylinder's curved core,
  /// the witnesses converge only like the square root of the gap (EPA: of 1e-10); anything else
  /// is exact to rounding.
  double witness_tolerance(const Pose& pa, const Pose& pb, double gap) const {
    const double s = size(pa, pb);
    auto curved = [](const Body& x) {
      return std::holds_alternative<gjk::Cylinder>(x.shape->geometry);
    };
    const double e = (curved(a) || curved(b) ? std::sqrt(kDistanceTol) : kDistanceTol) * s;
    return e + 2.0 * e * s / gap;
  }

  /// Witness points must lie on their bodies: checked directly on the primitives.
  void check_on_body(const Body& body, const Pose& pose, const Vec3& world, double tol) const {
    const Vec3 x = pose.inverse() * world;
    const double r = ball_radius(body);
    const double outside = std::visit(
        [&](const auto& g) -> double {
          using G = std::decay_t<decltype(g)>;
          if constexpr (std::is_same_v<G, gjk::Sphere>) {
            return x.norm() - r;
          } else if constexpr (std::is_same_v<G, gjk::Box>) {
            return (x.cwiseAbs() - g.half_extents).cwiseMax(0.0).norm() - r;
          } else if constexpr (std::is_same_v<G, gjk::Capsule>) {
            return Vec3(x.x(), x.y(), std::max(std::abs(x.z()) - g.half_length, 0.0)).norm() - r;
          } else if constexpr (std::is_same_v<G, gjk::Cylinder>) {
            const double radial = std::max(std::hypot(x.x(), x.y()) - g.radius, 0.0);
            return std::hypot(radial, std::max(std::abs(x.z()) - g.half_length, 0.0)) - r;
          } else {
            return 0.0;  // a hull: the supporting-plane checks stand in for this one
          }
        },
        body.shape->geometry);
    FUZZ_CHECK(outside <= tol, "witness %.17g %.17g %.17g is %g outside its %s (tol %g)", world.x(),
               world.y(), world.z(), outside, gjk::shape_name(*body.shape).c_str(), tol);
  }

  /// Distance and its witnesses. Returns the distance (or -1 when not converged).
  double check_distance(const gjk::DistanceResult& d, const Pose& pa, const Pose& pb) const {
    if (d.status != Status::Converged) return -1.0;
    const double tol = kDistanceTol * size(pa, pb);
    FUZZ_CHECK(std::isfinite(d.distance) && d.distance >= 0.0, "distance %g", d.distance);
    FUZZ_CHECK(d.lower_bound <= d.distance + tol && d.distance <= d.upper_bound + tol,
               "bracket [%g, %g] misses %g", d.lower_bound, d.upper_bound, d.distance);
    FUZZ_CHECK(d.point_on_a.allFinite() && d.point_on_b.allFinite(), "witness not finite");
    if (d.distance > tol) {
      FUZZ_CHECK(unit(d.normal), "normal |n| = %.17g", d.normal.norm());
      const double gap = (d.point_on_b - d.point_on_a).norm();
      FUZZ_CHECK(std::abs(gap - d.distance) <= tol, "|pb - pa| = %.17g, distance %.17g (tol %g)",
                 gap, d.distance, tol);
      FUZZ_CHECK((d.point_on_b - d.point_on_a - d.distance * d.normal).norm() <= tol,
                 "pb - pa is not distance * normal");
      // The witnesses lie on the supporting planes of the normal, and the normal certifies the
      // distance: no direction separates the bodies by more.
      const double ha = support(a, pa, d.normal), hb = support(b, pb, -d.normal);
      // The normal is (pb - pa) / distance: witness errors of tol tilt it by up to
      // 2 tol / distance, which moves a supporting plane by that times the size.
      check_on_body(a, pa, d.point_on_a, tol);
      check_on_body(b, pb, d.point_on_b, tol);
      const double wtol = witness_tolerance(pa, pb, d.distance);
      FUZZ_CHECK(std::abs(d.normal.dot(d.point_on_a) - ha) <= wtol,
                 "point_on_a off A's supporting plane by %g (tol %g)",
                 d.normal.dot(d.point_on_a) - ha, wtol);
      FUZZ_CHECK(std::abs(-d.normal.dot(d.point_on_b) - hb) <= wtol,
                 "point_on_b off B's supporting plane by %g (tol %g)",
                 -d.normal.dot(d.point_on_b) - hb, wtol);
      FUZZ_CHECK(std::abs(-(ha + hb) - d.distance) <= wtol,
                 "separation along the normal %.17g, distance %.17g (tol %g)", -(ha + hb),
                 d.distance, wtol);
    }
    for (const Vec3& u : probes) {
      FUZZ_CHECK(-overlap_along(a, pa, b, pb, u) <= d.distance + tol,
                 "direction (%g %g %g) separates by %.17g > distance %.17g", u.x(), u.y(), u.z(),
                 -overlap_along(a, pa, b, pb, u), d.distance);
    }
    return d.distance;
  }

  /// Penetration: depth, normal, witnesses, and minimality over the probe directions.
  void check_penetration(const gjk::PenetrationResult& p, double distance, const Pose& pa,
                         const Pose& pb) const {
    if (p.status != Status::Converged) return;
    const double tol = kDepthTol * size(pa, pb);
    FUZZ_CHECK(std::isfinite(p.depth) && p.depth >= 0.0, "depth %g", p.depth);
    if (distance > tol) FUZZ_CHECK(!p.collision, "penetration at distance %g", distance);
    if (!p.collision) {
      FUZZ_CHECK(p.depth == 0.0, "depth %g without penetration", p.depth);
      return;
    }
    FUZZ_CHECK(distance <= kDistanceTol * size(pa, pb), "penetration %g at distance %g", p.depth,
               distance);
    FUZZ_CHECK(unit(p.normal), "penetration normal |n| = %.17g", p.normal.norm());
    FUZZ_CHECK(p.lower_bound <= p.depth + tol && p.depth <= p.upper_bound + tol,
               "depth bracket [%g, %g] misses %g", p.lower_bound, p.upper_bound, p.depth);
    FUZZ_CHECK((p.point_on_a - p.point_on_b - p.depth * p.normal).norm() <= tol,
               "pa - pb is not depth * normal");
    const double ha = support(a, pa, p.normal), hb = support(b, pb, -p.normal);
    check_on_body(a, pa, p.point_on_a, tol);
    check_on_body(b, pb, p.point_on_b, tol);
    // EPA's normal is a face normal of the polytope it built, exact to rounding on flat cores;
    // rounded bodies whose cores are apart take GJK's direction of the cores' gap instead.
    const double core_gap = ball_radius(a) + ball_radius(b) - p.depth;
    double wtol = witness_tolerance(pa, pb, core_gap > 0.0 ? core_gap : size(pa, pb));
    wtol = std::max(wtol, tol);
    FUZZ_CHECK(std::abs(p.normal.dot(p.point_on_a) - ha) <= wtol, "point_on_a off A's plane by %g",
               p.normal.dot(p.point_on_a) - ha);
    FUZZ_CHECK(std::abs(-p.normal.dot(p.point_on_b) - hb) <= wtol, "point_on_b off B's plane by %g",
               -p.normal.dot(p.point_on_b) - hb);
    FUZZ_CHECK(std::abs(ha + hb - p.depth) <= wtol,
               "overlap along the normal %.17g, depth %.17g (tol %g)", ha + hb, p.depth, wtol);
    for (const Vec3& u : probes) {
      FUZZ_CHECK(p.depth <= overlap_along(a, pa, b, pb, u) + tol,
                 "depth %.17g not minimal: direction (%g %g %g) needs only %.17g (tol %g)", p.depth,
                 u.x(), u.y(), u.z(), overlap_along(a, pa, b, pb, u), tol);
    }
  }

  /// All queries at one pair of poses, cold and warm; returns the signed distance, or NaN when
  /// some query did not converge.
  double check_pair(const Pose& pa, const Pose& pb, gjk::WarmStart& cache,
                    bool thresholds = true) const {
    const double s = size(pa, pb), tol = kDistanceTol * s, dtol = kDepthTol * s;
    if (verbose()) {
      auto print = [](const char* name, const Pose& p) {
        const Eigen::Quaterniond q(p.linear());
        std::fprintf(stderr, "  %s: t {%.17g, %.17g, %.17g} q {%.17g, %.17g, %.17g, %.17g}\n", name,
                     p.translation().x(), p.translation().y(), p.translation().z(), q.w(), q.x(),
                     q.y(), q.z());
        // The matrix itself: the quaternion above rounds, which matters near degenerate contact.
        const auto& m = p.linear();
        std::fprintf(
            stderr, "    R {%.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g}\n",
            m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2));
      };
      std::fprintf(stderr, "pair (solver %d, support %d):\n", static_cast<int>(options.solver),
                   static_cast<int>(options.support));
      print("pose_a", pa);
      print("pose_b", pb);
    }
    const gjk::DistanceResult d = gjk::distance(*a.shape, pa, *b.shape, pb, options);
    const gjk::DistanceResult dw = gjk::distance(*a.shape, pa, *b.shape, pb, options, cache);
    FUZZ_CHECK(d.status != Status::InvalidInput, "valid input rejected");
    const double dist = check_distance(d, pa, pb);
    const double dist_warm = check_distance(dw, pa, pb);
    if (dist >= 0.0 && dist_warm >= 0.0) {
      FUZZ_CHECK(std::abs(dist - dist_warm) <= tol, "warm distance %.17g, cold %.17g", dist_warm,
                 dist);
    }

    const gjk::PenetrationResult p = gjk::penetration(*a.shape, pa, *b.shape, pb, options);
    const gjk::PenetrationResult pw = gjk::penetration(*a.shape, pa, *b.shape, pb, options, cache);
    check_penetration(p, dist, pa, pb);
    check_penetration(pw, dist, pa, pb);
    if (p.status == Status::Converged && pw.status == Status::Converged) {
      FUZZ_CHECK(std::abs(p.depth - pw.depth) <= dtol, "warm depth %.17g, cold %.17g", pw.depth,
                 p.depth);
    }

    const gjk::CollisionResult c = gjk::collide(*a.shape, pa, *b.shape, pb, options);
    const gjk::CollisionResult cw = gjk::collide(*a.shape, pa, *b.shape, pb, options, cache);
    for (const gjk::CollisionResult* r : {&c, &cw}) {
      if (r->status != Status::Converged) continue;
      if (dist > tol) FUZZ_CHECK(!r->collision, "collide true at distance %.17g", dist);
      if (p.status == Status::Converged && p.depth > dtol)
        FUZZ_CHECK(r->collision, "collide false at depth %.17g", p.depth);
      if (!r->collision) {
        FUZZ_CHECK(unit(r->separating_direction), "separating direction not unit");
        const double overlap = overlap_along(a, pa, b, pb, r->separating_direction);
        FUZZ_CHECK(overlap <= tol, "separating direction overlaps by %g (tol %g)", overlap, tol);
      }
    }

    const gjk::SignedDistanceResult sd = gjk::signed_distance(*a.shape, pa, *b.shape, pb, options);
    const gjk::SignedDistanceResult sdw =
        gjk::signed_distance(*a.shape, pa, *b.shape, pb, options, cache);
    for (const gjk::SignedDistanceResult* r : {&sd, &sdw}) {
      if (r->status != Status::Converged) continue;
      FUZZ_CHECK(std::isfinite(r->signed_distance), "signed distance %g", r->signed_distance);
      if (dist > tol) {
        FUZZ_CHECK(std::abs(r->signed_distance - dist) <= tol, "signed %.17g, distance %.17g",
                   r->signed_distance, dist);
      }
      if (p.status == Status::Converged && p.collision) {
        FUZZ_CHECK(std::abs(r->signed_distance + p.depth) <= dtol, "signed %.17g, depth %.17g",
                   r->signed_distance, p.depth);
      }
      if (r->signed_distance < -dtol) FUZZ_CHECK(dist <= tol, "negative while apart");
      if (r->signed_distance > dtol && p.status == Status::Converged)
        FUZZ_CHECK(!p.collision || p.depth <= dtol, "positive while penetrating");
    }

    // Thresholds either side of the distance (and through zero) must be decided correctly.
    if (thresholds && dist >= 0.0) {
      for (const double t : {dist - 2 * tol - 0.1 * s, dist - 2 * tol, dist + 2 * tol,
                             dist + 0.5 * s, 0.0, -1.0, kInf, -kInf}) {
        const gjk::ThresholdResult r = gjk::closer_than(*a.shape, pa, *b.shape, pb, t, options);
        const gjk::ThresholdResult rw =
            gjk::closer_than(*a.shape, pa, *b.shape, pb, t, options, cache);
        for (const gjk::ThresholdResult* q : {&r, &rw}) {
          if (q->status != Status::Converged) continue;
          FUZZ_CHECK(q->lower_bound <= dist + tol && dist <= q->upper_bound + tol,
                     "threshold bracket [%g, %g] misses %g", q->lower_bound, q->upper_bound, dist);
          if (std::abs(dist - t) > tol && !(t <= 0.0 && dist <= tol)) {
            FUZZ_CHECK(q->closer == (dist < t), "closer_than(%.17g) = %d at distance %.17g", t,
                       q->closer, dist);
          }
        }
      }
    }
    if (sd.status != Status::Converged || d.status != Status::Converged ||
        p.status != Status::Converged)
      return kNaN;
    return sd.signed_distance;
  }
};

void expect_invalid(const gjk::Shape& a, const Pose& pa, const gjk::Shape& b, const Pose& pb,
                    const gjk::QueryOptions& options) {
  gjk::WarmStart cache;
  FUZZ_CHECK(gjk::distance(a, pa, b, pb, options).status == Status::InvalidInput, "distance");
  FUZZ_CHECK(gjk::distance(a, pa, b, pb, options, cache).status == Status::InvalidInput, "warm");
  FUZZ_CHECK(gjk::collide(a, pa, b, pb, options).status == Status::InvalidInput, "collide");
  FUZZ_CHECK(gjk::collide(a, pa, b, pb, options, cache).status == Status::InvalidInput, "warm");
  FUZZ_CHECK(gjk::penetration(a, pa, b, pb, options).status == Status::InvalidInput, "penetration");
  FUZZ_CHECK(gjk::penetration(a, pa, b, pb, options, cache).status == Status::InvalidInput, "warm");
  FUZZ_CHECK(gjk::signed_distance(a, pa, b, pb, options).status == Status::InvalidInput, "signed");
  FUZZ_CHECK(gjk::signed_distance(a, pa, b, pb, options, cache).status == Status::InvalidInput,
             "warm signed");
  FUZZ_CHECK(gjk::closer_than(a, pa, b, pb, 1.0, options).status == Status::InvalidInput, "closer");
  FUZZ_CHECK(gjk::closer_than(a, pa, b, pb, 1.0, options, cache).status == Status::InvalidInput,
             "warm closer");
}

/// Any input that is not known to be valid: the queries must return, without throwing.
void run_all(const gjk::Shape& a, const Pose& pa, const gjk::Shape& b, const Pose& pb,
             const gjk::QueryOptions& options) {
  gjk::WarmStart cache;
  (void)gjk::distance(a, pa, b, pb, options, cache);
  (void)gjk::penetration(a, pa, b, pb, options, cache);
  (void)gjk::signed_distance(a, pa, b, pb, options);
  (void)gjk::collide(a, pa, b, pb, options, cache);
  (void)gjk::closer_than(a, pa, b, pb, 0.5, options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  gjk::QueryOptions options;
  const std::uint8_t opt = in.ConsumeIntegral<std::uint8_t>();
  options.solver = static_cast<gjk::SimplexSolver>(opt % 4);
  options.support = static_cast<gjk::SupportMethod>((opt / 4) % 3);

  const Body a = make_body(in);
  const Body b = make_body(in);
  if (!a.shape || !b.shape) return 0;  // construction rejected the input, as documented
  const double scale = std::max(a.radius + b.radius, 1e-3);
  const PoseInput pa = make_pose(in, std::isfinite(scale) ? scale : 1.0);
  const PoseInput pb = make_pose(in, std::isfinite(scale) ? scale : 1.0);

  try {
    if (!a.valid || !b.valid || !pa.finite || !pb.finite) {
      expect_invalid(*a.shape, pa.pose, *b.shape, pb.pose, options);
      return 0;
    }
    {
      // NaN threshold is invalid input; any valid pair answers the rest without throwing.
      FUZZ_CHECK(gjk::closer_than(*a.shape, pa.pose, *b.shape, pb.pose, kNaN, options).status ==
                     Status::InvalidInput,
                 "closer_than(NaN)");
    }
    const bool checked = a.well_scaled && b.well_scaled && pa.proper && pb.proper &&
                         pa.pose.translation().norm() <= 1e6 && pb.pose.translation().norm() <= 1e6;
    if (!checked) {
      run_all(*a.shape, pa.pose, *b.shape, pb.pose, options);
      return 0;
    }

    Checker check{a, b, options, {}};
    // Probe directions: the axes, the line of centres and a few from the input.
    for (int k = 0; k < 3; ++k) {
      check.probes.push_back(Vec3::Unit(k));
      check.probes.push_back(-Vec3::Unit(k));
    }
    const Vec3 centres = pb.pose.translation() - pa.pose.translation();
    if (centres.norm() > 0.0) check.probes.push_back(centres.normalized());
    for (int k = 0; k < 3; ++k) {
      const Vec3 u(in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>(),
                   in.ConsumeIntegral<std::int8_t>());
      if (u.norm() > 0.0) check.probes.push_back(u.normalized());
    }

    // A warm-start cache from the input: indices that may or may not fit must never be trusted.
    gjk::WarmStart cache;
    if (in.ConsumeBool()) {
      cache.size = in.ConsumeIntegralInRange<int>(-1, 5);
      for (int k = 0; k < 4; ++k) {
        cache.index_a[static_cast<size_t>(k)] = in.ConsumeIntegralInRange<int>(-2, 70);
        cache.index_b[static_cast<size_t>(k)] = in.ConsumeIntegralInRange<int>(-2, 70);
      }
      cache.hint_a = in.ConsumeIntegralInRange<int>(-2, 70);
      cache.hint_b = in.ConsumeIntegralInRange<int>(-2, 70);
      cache.direction = Vec3(special_double(in), special_double(in), special_double(in));
      if (!cache.direction.allFinite()) cache.direction.setZero();  // a cache holds finite data
      forge_polytope(in, cache);
      if (verbose()) {
        std::fprintf(stderr,
                     "cache: size %d index_a {%d %d %d %d} index_b {%d %d %d %d} hint_a %d "
                     "hint_b %d direction {%.17g, %.17g, %.17g}\n",
                     cache.size, cache.index_a[0], cache.index_a[1], cache.index_a[2],
                     cache.index_a[3], cache.index_b[0], cache.index_b[1], cache.index_b[2],
                     cache.index_b[3], cache.hint_a, cache.hint_b, cache.direction.x(),
                     cache.direction.y(), cache.direction.z());
      }
    }

    const double sd = check.check_pair(pa.pose, pb.pose, cache);

    // Symmetry: swapping the bodies changes nothing but the direction of the normal.
    Checker swapped{b, a, options, check.probes};
    gjk::WarmStart swapped_cache;
    const double sd_swapped = swapped.check_pair(pb.pose, pa.pose, swapped_cache);
    const double tol = kDepthTol * check.size(pa.pose, pb.pose);
    if (!std::isnan(sd) && !std::isnan(sd_swapped)) {
      FUZZ_CHECK(std::abs(sd - sd_swapped) <= tol, "A-B %.17g, B-A %.17g (tol %g)", sd, sd_swapped,
                 tol);
    }

    // Invariance: one rigid motion applied to both poses.
    Pose motion = Pose::Identity();
    motion.linear() = rotation_of(in);
    motion.translation() =
        scale *
        Vec3(in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>(),
             in.ConsumeIntegral<std::int8_t>()) /
        16.0;
    gjk::WarmStart moved_cache;
    const double sd_moved = check.check_pair(motion * pa.pose, motion * pb.pose, moved_cache);
    const double moved_tol = tol + kDepthTol * motion.translation().norm();
    if (!std::isnan(sd) && !std::isnan(sd_moved)) {
      FUZZ_CHECK(std::abs(sd - sd_moved) <= moved_tol, "moved %.17g, original %.17g (tol %g)",
                 sd_moved, sd, moved_tol);
    }

    // The whole double range (issue 15 item 8): the pair multiplied by 2^k (exact) answers the
    // signed distance times 2^k, or InvalidInput when that is not representable. k keeps every
    // nonzero size normal (denormal inputs have lost digits before any query).
    if (!std::isnan(sd)) {
      const int k = in.ConsumeIntegralInRange<int>(-1000, 1000);
      const double s = check.size(pa.pose, pb.pose);
      const double f = std::ldexp(1.0, k);
      if (std::isfinite(s * f) && s * f > 1e-280 && s * f < 1e280) {
        const auto grow = [f](const gjk::Shape& shape) {
          gjk::Shape out = shape;
          out.inflation *= f;
          std::visit(
              [f](auto& g) {
                using G = std::decay_t<decltype(g)>;
                if constexpr (std::is_same_v<G, gjk::Sphere>) {
                  g.radius *= f;
                } else if constexpr (std::is_same_v<G, gjk::Box>) {
                  g.half_extents *= f;
                } else if constexpr (std::is_same_v<G, gjk::Capsule> ||
                                     std::is_same_v<G, gjk::Cylinder>) {
                  g.radius *= f;
                  g.half_length *= f;
                } else {
                  g = g.scaled(f);
                }
              },
              out.geometry);
          return out;
        };
        Pose qa = pa.pose, qb = pb.pose;
        qa.translation() *= f;
        qb.translation() *= f;
        const auto r = gjk::signed_distance(grow(*a.shape), qa, grow(*b.shape), qb, options);
        if (r.status != Status::InvalidInput) {
          FUZZ_CHECK(std::isfinite(r.signed_distance) &&
                         std::abs(r.signed_distance - sd * f) <= 4 * tol * f,
                     "scaled by 2^%d: %.17g, expected %.17g (tol %g)", k, r.signed_distance, sd * f,
                     4 * tol * f);
        }
      }
    }

    // A straight approach of B through A: the signed distance is 1-Lipschitz in B's position.
    if (in.ConsumeBool()) {
      Vec3 u = centres.norm() > 0.0 ? centres.normalized() : Vec3::UnitX();
      const Vec3 lateral =
          scale *
          Vec3(in.ConsumeIntegral<std::int8_t>(), in.ConsumeIntegral<std::int8_t>(),
               in.ConsumeIntegral<std::int8_t>()) /
          256.0;
      const int steps = 20;
      const double length = 2.4 * scale, step = length / steps;
      const Vec3 start = pa.pose.translation() + lateral + 1.2 * scale * u;
      gjk::WarmStart path_cache;
      double previous = kNaN;
      for (int k = 0; k <= steps; ++k) {
        Pose p = pb.pose;
        p.translation() = start - k * step * u;
        // The approach skips the threshold queries: they are checked at the input poses, and
        // 16 queries per step would dominate the run time.
        const double now = check.check_pair(pa.pose, p, path_cache, false);
        const double path_tol = kDepthTol * check.size(pa.pose, p);
        if (!std::isnan(previous) && !std::isnan(now)) {
          FUZZ_CHECK(std::abs(now - previous) <= step * (1 + 1e-12) + path_tol,
                     "step %d: signed distance jumps from %.17g to %.17g (step %g)", k, previous,
                     now, step);
        }
        previous = now;
      }
    }
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "a query threw: %s", e.what());
  }
  return 0;
}
