// Pieces shared by the convex-pair queries (queries.cpp) and the mesh and cell-set queries
// (mesh.cpp): input checks, the dispatch of a shape to its core, the relative frame, and the
// mapping of the loops' outcome (cores' distance, EPA) to the public results.
#pragma once

#include "epa.hpp"
#include "gjk_loop.hpp"
#include "minkowski.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <variant>

namespace gjk::detail {

/// Both poses finite, with proper rotations: orthonormal columns (within 1e-6) forming a
/// right-handed frame. Every query checks two poses, so the two run side by side in the two
/// lanes of Eigen's 2-double packets, branch-free (issue 18: 157 instructions per pose at
/// first, 113 as a scalar branch-free pass, ~55 in pairs).
inline bool poses_are_valid(const Pose& p, const Pose& q) {
  using Lanes = Eigen::Array2d;  // lane 0: p, lane 1: q
  const auto& m = p.matrix();
  const auto& n = q.matrix();
  const auto entry = [&](int row, int col) { return Lanes(m(row, col), n(row, col)); };
  const Lanes x0 = entry(0, 0), x1 = entry(1, 0), x2 = entry(2, 0);
  const Lanes y0 = entry(0, 1), y1 = entry(1, 1), y2 = entry(2, 1);
  const Lanes z0 = entry(0, 2), z1 = entry(1, 2), z2 = entry(2, 2);
  const Lanes t0 = entry(0, 3), t1 = entry(1, 3), t2 = entry(2, 3);
  // x * 0 is 0 exactly when x is finite; a sum of such products is 0 exactly when all are.
  const Lanes zeros = (x0 * 0.0 + x1 * 0.0 + x2 * 0.0) + (y0 * 0.0 + y1 * 0.0 + y2 * 0.0) +
                      (z0 * 0.0 + z1 * 0.0 + z2 * 0.0) + (t0 * 0.0 + t1 * 0.0 + t2 * 0.0);
  // With finite entries a column's squared norm is never NaN (an overflow makes it +inf), so
  // the packed max, which may drop a NaN, cannot hide a bad column; a dot product is NaN only
  // through an overflow, which an infinite norm already rejects.
  const Lanes norms = (x0 * x0 + x1 * x1 + x2 * x2 - 1.0)
                          .abs()
                          .max((y0 * y0 + y1 * y1 + y2 * y2 - 1.0).abs())
                          .max((z0 * z0 + z1 * z1 + z2 * z2 - 1.0).abs());
  const Lanes dots = (x0 * y0 + x1 * y1 + x2 * y2)
                         .abs()
                         .max((x0 * z0 + x1 * z1 + x2 * z2).abs())
                         .max((y0 * z0 + y1 * z1 + y2 * z2).abs());
  // det = (x cross y) . z, the same products as Eigen's cross and dot.
  const Lanes det = (x1 * y2 - x2 * y1) * z0 + (x2 * y0 - x0 * y2) * z1 + (x0 * y1 - x1 * y0) * z2;
  constexpr double kTol = kRotationTolerance;
  const Lanes worst = norms.max(dots);
  const double zeros_p = zeros(0), zeros_q = zeros(1), worst_p = worst(0), worst_q = worst(1),
               det_p = det(0), det_q = det(1);
  // Plain comparisons combined with & (no short-circuit branches); NaN fails each.
  return (zeros_p == 0.0) & (zeros_q == 0.0) & (worst_p <= kTol) & (worst_q <= kTol) &
         (det_p > 0.0) & (det_q > 0.0);
}

inline bool pose_is_valid(const Pose& pose) {
  return poses_are_valid(pose, pose);
}

/// A size is valid when finite and >= 0 (false for NaN).
inline bool size_is_valid(double x) {
  return x >= 0.0 && x <= DBL_MAX;
}

/// The geometry part of shape_is_valid.
template <class G>
bool geometry_is_valid(const G& g) {
  if constexpr (std::is_same_v<G, Sphere>) {
    return size_is_valid(g.radius);
  } else if constexpr (std::is_same_v<G, Box>) {
    return size_is_valid(g.half_extents.x()) && size_is_valid(g.half_extents.y()) &&
           size_is_valid(g.half_extents.z());
  } else if constexpr (std::is_same_v<G, Capsule> || std::is_same_v<G, Cylinder>) {
    return size_is_valid(g.radius) && size_is_valid(g.half_length);
  } else {
    return !g.vertices().empty();
  }
}

/// validate(shape) without the exception (convex_polytope.cpp; keep the two in step): sizes
/// finite and >= 0, a polytope with vertices. Inline and branch-light: it runs on every query,
/// and the out-of-line validate() with its try block cost ~90 instructions per pair (issue 18).
inline bool shape_is_valid(const Shape& shape) {
  return size_is_valid(shape.inflation) &&
         std::visit([](const auto& g) { return geometry_is_valid(g); }, shape.geometry);
}

/// Calls f(core, radius) with the shape's core and the radius of the ball swept around it.
/// `climb_from`: PolytopeCore's.
template <class F>
decltype(auto) with_core(const Shape& shape, SupportMethod method, int hint, F&& f,
                         int climb_from = kHillClimbingMinVertices) {
  return std::visit(
      [&](const auto& g) -> decltype(auto) {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, Sphere>) {
          return f(PointCore{}, g.radius + shape.inflation);
        } else if constexpr (std::is_same_v<G, Box>) {
          return f(BoxCore{g.half_extents}, shape.inflation);
        } else if constexpr (std::is_same_v<G, Capsule>) {
          return f(SegmentCore{g.half_length}, g.radius + shape.inflation);
        } else if constexpr (std::is_same_v<G, Cylinder>) {
          return f(CylinderCore{g.radius, g.half_length}, shape.inflation);
        } else {
          return f(PolytopeCore(g, method, hint, climb_from), shape.inflation);
        }
      },
      shape.geometry);
}

/// A ball around a shape's core, as the threshold loop's exit bounds the cores
/// (MinkowskiDifference::ball_centers and ball_bounds; keep the two in step): its centre in the
/// shape's frame and in the world, its radius, and the radius swept around the core. A hull's
/// is its smallest enclosing ball. Hulls and boxes, the common obstacles and links, before the
/// general dispatch; every core but a hull's is centred on its frame's origin, so its world
/// centre is the pose's translation, with no product. `inner` is the radius of a ball around
/// the same centre inside the core (a hull's inner_radius(), a box's smallest half extent; 0
/// for points and segments): collide()'s deep-overlap exit.
struct CoreBall {
  Vec3 center = Vec3::Zero();
  Vec3 world_center = Vec3::Zero();
  double bound = 0.0;
  double radius = 0.0;
  double inner = 0.0;
};

[[gnu::always_inline]] inline CoreBall core_ball(const Shape& shape, const Pose& pose) {
  if (const auto* hull = std::get_if<ConvexPolytope>(&shape.geometry)) {
    return {hull->ball_center(), pose.linear() * hull->ball_center() + pose.translation(),
            hull->ball_radius(), shape.inflation, hull->inner_radius()};
  }
  const Vec3 origin = pose.translation();
  if (const auto* box = std::get_if<Box>(&shape.geometry)) {
    const BoxCore core{box->half_extents};
    return {Vec3::Zero(), origin, core.bound(), shape.inflation, inner_radius_of(core)};
  }
  return std::visit(
      [&](const auto& g) -> CoreBall {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, Sphere>) {
          return {Vec3::Zero(), origin, PointCore{}.bound(), g.radius + shape.inflation};
        } else if constexpr (std::is_same_v<G, Capsule>) {
          return {Vec3::Zero(), origin, SegmentCore{g.half_length}.bound(),
                  g.radius + shape.inflation};
        } else if constexpr (std::is_same_v<G, Cylinder>) {
          const CylinderCore core{g.radius, g.half_length};
          return {Vec3::Zero(), origin, core.bound(), shape.inflation, inner_radius_of(core)};
        } else if constexpr (std::is_same_v<G, Box>) {
          const BoxCore core{g.half_extents};
          return {Vec3::Zero(), origin, core.bound(), shape.inflation, inner_radius_of(core)};
        } else {
          return {g.ball_center(), pose * g.ball_center(), g.ball_radius(), shape.inflation,
                  g.inner_radius()};
        }
      },
      shape.geometry);
}

/// The two cores' balls in the world frame, before any relative frame is built: collide()'s
/// far pairs are answered from them alone. A ball is the same in every frame, so the
/// test needs the two centres carried to the world, not B's rotation in A's frame
/// (relative_frame, ~100 instructions) nor the dispatch to the loops.
struct PairBalls {
  Vec3 between;             ///< world frame: B's core centre minus A's
  double center_norm;       ///< |between|
  double bounds;            ///< the two cores' bound()s
  double radii;             ///< the radii swept around the cores
  double inners;            ///< the two cores' inner radii (CoreBall::inner)
  Vec3 center_a, center_b;  ///< the core centres in their shapes' frames
  const Pose* pose_a;
  const Pose* pose_b;
  /// A bound on the error of center_norm - bounds against the balls as the loops see them
  /// (ball_test_slack), computed only for pairs that may be answered.
  double slack() const {
    return ball_test_slack(
        center_a.cwiseAbs().sum() + center_b.cwiseAbs().sum() + bounds + center_norm,
        pose_a->translation().cwiseAbs().sum() + pose_b->translation().cwiseAbs().sum());
  }
  /// A lower bound on the cores' distance (negative when the balls meet).
  double gap() const { return center_norm - bounds - slack(); }
  /// An upper bound on the cores' distance.
  double span() const { return center_norm + bounds + slack(); }
  /// The inner balls (radii swept around them included) meet: the shapes share a point. The
  /// slack bounds the centres' distance's rounding; the inner radii carry their own margin.
  /// The comparison without it first: most pairs whose outer balls meet end there.
  bool inner_balls_meet() const {
    return center_norm < inners + radii && center_norm + slack() <= inners + radii;
  }
};

[[gnu::always_inline]] inline PairBalls pair_balls(const Shape& a, const Pose& pose_a,
                                                   const Shape& b, const Pose& pose_b) {
  const CoreBall ball_a = core_ball(a, pose_a), ball_b = core_ball(b, pose_b);
  PairBalls p;
  p.between = ball_b.world_center - ball_a.world_center;
  p.center_norm = p.between.norm();
  p.bounds = ball_a.bound + ball_b.bound;
  p.radii = ball_a.radius + ball_b.radius;
  p.inners = ball_a.inner + ball_b.inner;
  p.center_a = ball_a.center;
  p.center_b = ball_b.center;
  p.pose_a = &pose_a;
  p.pose_b = &pose_b;
  return p;
}

/// The pair as seen by the loops: B's pose in A's frame, and the two radii.
struct PairFrame {
  Eigen::Matrix3d rotation;  // B -> A
  Vec3 translation;
};

inline PairFrame relative_frame(const Pose& pose_a, const Pose& pose_b) {
  const Eigen::Matrix3d ra_t = pose_a.linear().transpose();
  // Difference the translations before rotating: exact-ish when both sit far from the origin.
  return {ra_t * pose_b.linear(), ra_t * (pose_b.translation() - pose_a.translation())};
}

/// Feature of each body at the witness points: the feature supporting the separating plane
/// (A's along the normal, B's against it), from the supporting vertex in the final simplex.
/// On a rounded body vertices and edges become curved surface patches; faces stay flat.
template <class MD>
void set_features(const MD& md, const GjkOutcome& g, double radius_a, double radius_b,
                  DistanceResult& r) {
  const Vec3 n = -g.v / g.upper;  // A's frame, from A towards B
  const Feature core_a = md.a.feature(n, g.simplex.points[0].index_a);
  const Feature core_b = md.b.feature(md.rotation.transpose() * (-n), g.simplex.points[0].index_b);
  auto rounded = [](Feature f, double radius) {
    return radius > 0.0 && (f == Feature::Vertex || f == Feature::Edge) ? Feature::Curved : f;
  };
  r.feature_on_a = rounded(core_a, radius_a);
  r.feature_on_b = rounded(core_b, radius_b);
}

/// Caps below 1 would end the loops before they start and report the starting guess as
/// converged; NaN or negative tolerances would never (or always) stop them.
inline bool options_valid(const QueryOptions& o) {
  return o.max_iterations >= 1 && o.max_epa_iterations >= 1 && o.tolerance >= 0.0 &&
         std::isfinite(o.tolerance) && o.epa_tolerance >= 0.0 && std::isfinite(o.epa_tolerance);
}

/// The penetration result of EPA's outcome on the cores, radii added back, in the world frame.
inline PenetrationResult penetration_from_epa(const EpaOutcome& e, int gjk_iterations,
                                              Status gjk_status, double radius_a, double radius_b,
                                              const Pose& pose_a) {
  PenetrationResult r;
  r.collision = true;
  const double radii = radius_a + radius_b;
  r.depth = e.depth + radii;
  r.normal = pose_a.linear() * e.normal;
  r.point_on_a = pose_a * Vec3(e.point_on_a + radius_a * e.normal);
  r.point_on_b = pose_a * Vec3(e.point_on_b - radius_b * e.normal);
  r.iterations = gjk_iterations + e.iterations;
  r.status = gjk_status != Status::Converged ? gjk_status : e.status;
  r.lower_bound = e.lower_bound + radii;
  r.upper_bound = e.upper_bound + radii;
  return r;
}

/// Cores that GJK found touching: its simplex came within the touching distance of the origin
/// with v != 0. An origin inside A - B is no deeper than A - B's support value along any
/// direction (the depth is the least of them), so one support along -v bounds the depth; when
/// that bound is within the touching distance too, the cores touch, both ways, and need no EPA,
/// which would build its polytope around an origin on the boundary (on the benchmark's exactly
/// touching 8-vertex pairs a signed distance took 1.75x a distance query's time for it). True
/// with `normal` = -v / |v| (as the apart-within-radii answer's) and the depth bound in
/// `depth_bound`; false when the simplex holds the origin (v = 0: no direction) or the support
/// plane lies deeper (flat cores overlapping by 4.2e-4 stalled 2.1e-13 from the origin in
/// fuzz_queries: their bound is the overlap, and EPA measures it).
template <class MD>
bool touching_without_epa(const MD& md, const GjkOutcome& g, Vec3& normal, double& depth_bound) {
  const double largest = g.v.cwiseAbs().maxCoeff();
  if (!(largest > 0.0)) return false;
  const Vec3 n = Vec3(g.v / largest).normalized();
  depth_bound = -md.support(-n).w.dot(n);  // A - B lies in {x : x.n >= -depth_bound}
  normal = -n;
  return depth_bound <= g.touch_distance;
}

/// Penetration of two overlapping (or touching) cores plus their radii, in world frame. With a
/// cache, EPA's converged polytope is kept in it for penetration tracking (tracked_epa).
template <class MD>
PenetrationResult penetration_from(const MD& md, const GjkOutcome& g, double radius_a,
                                   double radius_b, const Pose& pose_a, const QueryOptions& options,
                                   WarmStart* cache = nullptr) {
  if (g.overlap) {
    Vec3 normal;
    double depth_bound;
    if (!touching_without_epa(md, g, normal, depth_bound)) {
      return penetration_from_epa(run_epa(md, g.simplex, options, g.scale, cache), g.iterations,
                                  g.status, radius_a, radius_b, pose_a);
    }
    if (cache != nullptr) {  // no polytope to track, as after a flat EPA
      cache->polytope_vertices.clear();
      cache->polytope_faces.clear();
    }
    // Depth between 0 (or the cores' distance, at most |v|, below it) and the bound: the bound,
    // whose translation separates, with the witness points realising it.
    const double core_depth = std::max(0.0, depth_bound);
    PenetrationResult r;
    r.collision = true;
    r.depth = radius_a + radius_b + core_depth;
    r.normal = pose_a.linear() * normal;
    const Vec3 on_a = g.simplex.point_on_a();
    r.point_on_a = pose_a * Vec3(on_a + radius_a * normal);
    r.point_on_b = pose_a * Vec3(on_a - (core_depth + radius_b) * normal);
    r.iterations = g.iterations;
    r.status = g.status;
    r.lower_bound = radius_a + radius_b;
    r.upper_bound = r.depth;
    return r;
  }
  // Cores apart but within the radii: the depth is exact from the core distance.
  PenetrationResult r;
  r.collision = true;
  const Vec3 normal = -g.v / g.upper;
  r.depth = radius_a + radius_b - g.upper;
  r.normal = pose_a.linear() * normal;
  r.point_on_a = pose_a * Vec3(g.simplex.point_on_a() + radius_a * normal);
  r.point_on_b = pose_a * Vec3(g.simplex.point_on_b() - radius_b * normal);
  r.iterations = g.iterations;
  r.status = g.status;
  r.lower_bound = r.upper_bound = r.depth;
  return r;
}

/// The distance result of cores whose GJK outcome is `g`, radii added back (seed 000 eqs.
/// 29-31), in the world frame.
template <class MD>
DistanceResult distance_from(const MD& md, const GjkOutcome& g, double radius_a, double radius_b,
                             const Pose& pose_a) {
  DistanceResult r;
  const double radii = radius_a + radius_b;
  r.iterations = g.iterations;
  r.status = g.status;
  r.simplex_size = g.simplex.size;
  Vec3 on_a = g.simplex.point_on_a(), on_b = g.simplex.point_on_b();
  if (!g.overlap) set_features(md, g, radius_a, radius_b, r);
  if (g.overlap || g.upper <= radii) {
    r.collision = true;
    r.distance = 0.0;
    r.lower_bound = r.upper_bound = 0.0;
    if (!g.overlap) {  // rounded bodies overlapping: report the cores' mid-gap points
      const Vec3 n = -g.v / g.upper;
      on_a += radius_a * n;
      on_b -= radius_b * n;
    }
  } else {
    const Vec3 n = -g.v / g.upper;  // from A towards B
    on_a += radius_a * n;
    on_b -= radius_b * n;
    r.distance = g.upper - radii;
    r.upper_bound = r.distance;
    r.lower_bound = std::max(0.0, g.lower - radii);
    r.normal = pose_a.linear() * n;
    r.collision = r.distance <= g.touch_distance;
  }
  r.point_on_a = pose_a * on_a;
  r.point_on_b = pose_a * on_b;
  return r;
}

/// The signed distance of overlapping bodies: minus the depth.
inline SignedDistanceResult signed_from_penetration(const PenetrationResult& p) {
  SignedDistanceResult r;
  r.signed_distance = -p.depth;
  r.point_on_a = p.point_on_a;
  r.point_on_b = p.point_on_b;
  r.normal = p.normal;
  r.iterations = p.iterations;
  r.status = p.status;
  return r;
}

/// The signed distance of cores whose GJK outcome is `g`: the distance when apart, else minus
/// EPA's depth (its polytope kept in `cache`, if given).
template <class MD>
SignedDistanceResult signed_distance_from(const MD& md, const GjkOutcome& g, double radius_a,
                                          double radius_b, const Pose& pose_a,
                                          const QueryOptions& options, WarmStart* cache = nullptr) {
  SignedDistanceResult r;
  const double radii = radius_a + radius_b;
  if (!g.overlap && g.upper > radii) {
    const Vec3 n = -g.v / g.upper;
    r.signed_distance = g.upper - radii;
    r.point_on_a = pose_a * Vec3(g.simplex.point_on_a() + radius_a * n);
    r.point_on_b = pose_a * Vec3(g.simplex.point_on_b() - radius_b * n);
    r.normal = pose_a.linear() * n;
    r.iterations = g.iterations;
    r.status = g.status;
    return r;
  }
  return signed_from_penetration(
      penetration_from(md, g, radius_a, radius_b, pose_a, options, cache));
}

}  // namespace gjk::detail
