// Public queries: validate, dispatch the shape pair once to the templated GJK/EPA loops, then
// add the cores' radii back analytically and map the answer to the world frame.
#include "gjk/queries.hpp"
#include "box_sat.hpp"

#include "pair_results.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <type_traits>

namespace gjk {
namespace {

using detail::GjkMode;
using detail::GjkOutcome;
using detail::options_valid;
using detail::penetration_from;
using detail::pose_is_valid;
using detail::relative_frame;
using detail::with_core;

template <class F>
decltype(auto) with_pair(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                         const QueryOptions& options, const WarmStart* cache, F&& f,
                         int climb_from = kHillClimbingMinVertices) {
  const detail::PairFrame frame = relative_frame(pose_a, pose_b);
  const int hint_a = cache != nullptr ? cache->hint_a : -1,
            hint_b = cache != nullptr ? cache->hint_b : -1;
  return with_core(
      a, options.support, hint_a,
      [&](const auto& core_a, double radius_a) -> decltype(auto) {
        return with_core(
            b, options.support, hint_b,
            [&](const auto& core_b, double radius_b) -> decltype(auto) {
              using MD = detail::MinkowskiDifference<std::decay_t<decltype(core_a)>,
                                                     std::decay_t<decltype(core_b)>>;
              const MD md{core_a, core_b, frame.rotation, frame.translation};
              return f(md, radius_a, radius_b);
            },
            climb_from);
      },
      climb_from);
}

/// A shape whose core is its whole body (no radius swept around it): collide() answers a pair of
/// them with the boolean loop, not a threshold on the cores' distance.
bool has_bare_core(const Shape& shape) {
  return shape.inflation == 0.0 && !std::holds_alternative<Sphere>(shape.geometry) &&
         !std::holds_alternative<Capsule>(shape.geometry);
}

/// run_gjk with the pair's warm-start cache read before and updated after.
template <class MD>
GjkOutcome gjk_tracked(const MD& md, const QueryOptions& options, GjkMode mode, double threshold,
                       WarmStart* cache) {
  const GjkOutcome g = detail::run_gjk(md, options, mode, threshold, cache);
  if (cache != nullptr) detail::remember(g, *cache);
  return g;
}

/// Whether collide() may answer "apart" from the bounding balls alone (pair_balls). Rounded
/// shapes, a threshold (`contact`) on the cores' distance, as the threshold loop's own exit: a
/// lower bound at or above it and positive. Bare cores as the boolean loop's: a gap that clears
/// the touching distance (touching counts). The gap without its slack first: most pairs whose
/// balls meet end at that comparison.
[[gnu::always_inline]] inline bool balls_apart(const detail::PairBalls& balls,
                                               const QueryOptions& options, bool boolean,
                                               double threshold) {
  const double rough_gap = balls.center_norm - balls.bounds;
  if (!boolean) {
    if (!(rough_gap >= threshold)) return false;
    const double gap = balls.gap();
    return gap >= threshold && gap > 0.0;
  }
  const double touch = detail::touch_tolerance(balls.center_norm + balls.bounds);
  return rough_gap > touch && detail::clears_touch(balls.gap(), options, touch);
}

/// The cache after an answer by the balls: the centres' direction (in A's frame, as the loops'
/// v: from the origin towards A - B) as the next start, no polytope to track into overlap. The
/// boolean loop keeps its cached vertex pairs (valid starts) but not an enclosing tetrahedron;
/// the threshold loop (rounded shapes) starts from the direction, whose one-support exit a far
/// pair usually takes.
void remember_balls(const Vec3& separating_direction, const Pose& pose_a, bool boolean,
                    WarmStart& cache) {
  // R^T v as three column dot products: Eigen's product of the transposed block of the pose's
  // 4x4 matrix was an out-of-line call of 51 instructions per far warm query (session 57).
  // The separating direction points from A towards B; negating after the rotation gives the
  // same bits as rotating its negation, without a second division by the centres' distance.
  const auto rotation = pose_a.linear();
  cache.direction =
      -Vec3(rotation.col(0).dot(separating_direction), rotation.col(1).dot(separating_direction),
            rotation.col(2).dot(separating_direction));
  if (!boolean || cache.size == 4) cache.size = 0;
  cache.polytope_vertices.clear();
  cache.polytope_faces.clear();
}

/// collide()'s answer from the balls, tested in the world frame before the relative frame and
/// the shapes' dispatch (a far pair then costs 640 instructions, not 850; session 55): true, with
/// `r` filled, when they are apart or their inner balls meet. Out of line, so that the pairs whose
/// balls meet pay a call and the test, not a larger collide_checked (with the test inlined, GCC
/// stopped inlining the shape dispatch there: 106 more instructions per query on the tracked
/// 10-vertex pairs that drift into overlap).
[[gnu::noinline]] bool collide_by_balls(const Shape& a, const Pose& pose_a, const Shape& b,
                                        const Pose& pose_b, const QueryOptions& options,
                                        WarmStart* cache, CollisionResult& r) {
  const detail::PairBalls balls = detail::pair_balls(a, pose_a, b, pose_b);
  const bool boolean = !(balls.radii > 0.0);
  const double contact = balls.radii + detail::touch_tolerance(balls.center_norm + balls.bounds);
  if (!balls_apart(balls, options, boolean, contact)) {
    // Deep pairs: the inner balls meet, so the shapes share a point. The cache is left as it
    // was: its vertex pairs stay valid starts, and a tracked penetration polytope is checked
    // whole before any use (tracked_epa).
    if (!balls.inner_balls_meet()) return false;
    r.collision = true;
    r.iterations = 0;
    return true;
  }
  r.collision = false;
  r.iterations = 0;
  r.separating_direction = balls.between * (1.0 / balls.center_norm);
  if (cache != nullptr) remember_balls(r.separating_direction, pose_a, boolean, *cache);
  return true;
}

}  // namespace

static CollisionResult collide_checked(const Shape& a, const Pose& pose_a, const Shape& b,
                                       const Pose& pose_b, const QueryOptions& options,
                                       WarmStart* cache) {
  CollisionResult r;
  // Far pairs: answered by the bounding balls before any frame is built, the plane between the
  // balls as the certificate (session 55).
  if (collide_by_balls(a, pose_a, b, pose_b, options, cache, r)) return r;
  return with_pair(
      a, pose_a, b, pose_b, options, cache,
      [&](const auto& md, double radius_a, double radius_b) {
        const double radii = radius_a + radius_b;
        // Rounded shapes collide when the cores come within the radii: a threshold query on the
        // cores; bare cores use the boolean early exits of seed 001 Alg. 6.
        // Touching counts: contact within the touching tolerance of the cores' size is collision.
        // (md.scale() only when there are radii: bare cores do not need it here.)
        // The normal is that of the plane that certified the verdict, not the last closest
        // point's direction (at a 1e-9 gap that one can miss by 1e-7:
        // tests/libgjk/test_collide_verdicts.cpp).
        const auto report = [&](bool collision, const Vec3& normal, int iterations, Status status) {
          r.collision = collision;
          r.iterations = iterations;
          r.status = status;
          if (!collision) r.separating_direction = pose_a.linear() * normal;
          return r;
        };
        if (radii > 0.0) {
          const double contact = radii + detail::touch_tolerance(md.scale());
          const GjkOutcome g = gjk_tracked(md, options, GjkMode::Threshold, contact, cache);
          const bool collision = g.overlap || g.lower < contact;
          return report(collision, collision ? Vec3::Zero() : detail::certified_normal(g),
                        g.iterations, g.status);
        }
        // Two bare boxes, cold: the separating axes decide most pairs without a support call
        // (box_sat.hpp); GJK the rest.
        if constexpr (std::is_same_v<
                          std::decay_t<decltype(md)>,
                          detail::MinkowskiDifference<detail::BoxCore, detail::BoxCore>>) {
          if (cache == nullptr) {
            Vec3 normal;
            const detail::BoxSatVerdict verdict =
                detail::box_box_sat(md.a.half_extents, md.b.half_extents, md.rotation,
                                    md.translation, detail::touch_tolerance(md.scale()), normal);
            if (verdict != detail::BoxSatVerdict::Undecided) {
              return report(verdict == detail::BoxSatVerdict::Collide, normal, 0,
                            Status::Converged);
            }
          }
        }
        const detail::BooleanOutcome b = detail::run_boolean(md, options, cache);
        return report(b.collision, b.normal, b.iterations, b.status);
      },
      cache == nullptr && has_bare_core(a) && has_bare_core(b) ? kHillClimbingMinVerticesBoolean
                                                               : kHillClimbingMinVertices);
}

static DistanceResult distance_checked(const Shape& a, const Pose& pose_a, const Shape& b,
                                       const Pose& pose_b, const QueryOptions& options,
                                       WarmStart* cache) {
  return with_pair(
      a, pose_a, b, pose_b, options, cache, [&](const auto& md, double radius_a, double radius_b) {
        return detail::distance_from(md, gjk_tracked(md, options, GjkMode::Distance, 0.0, cache),
                                     radius_a, radius_b, pose_a);
      });
}

static PenetrationResult penetration_checked(const Shape& a, const Pose& pose_a, const Shape& b,
                                             const Pose& pose_b, const QueryOptions& options,
                                             WarmStart* cache) {
  PenetrationResult r;
  return with_pair(
      a, pose_a, b, pose_b, options, cache, [&](const auto& md, double radius_a, double radius_b) {
        if (cache != nullptr && !cache->polytope_faces.empty()) {
          detail::EpaOutcome tracked;
          if (detail::tracked_epa(md, *cache, options, tracked)) {
            return detail::penetration_from_epa(tracked, 0, Status::Converged, radius_a, radius_b,
                                                pose_a);
          }
        }
        // Cold queries on bare cores start EPA from an octahedron of supports when it holds the
        // origin, without GJK, and GJK from its nearest face (or its support along minus the
        // centre) when it does not (epa.hpp, octahedron_start). Warm ones keep GJK, whose warm
        // start is cheap and whose polytope the cache tracks; rounded cores mostly overlap by
        // less than their radii.
        WarmStart octahedron_face;
        if constexpr (!std::decay_t<decltype(md)>::curved) {
          detail::EpaOutcome direct;
          if (cache == nullptr && radius_a + radius_b == 0.0 &&
              detail::run_epa_from_octahedron(md, options, direct, octahedron_face)) {
            return detail::penetration_from_epa(direct, 0, Status::Converged, 0.0, 0.0, pose_a);
          }
        }
        const GjkOutcome g =
            octahedron_face.size > 0
                ? detail::run_gjk(md, options, GjkMode::Distance, 0.0, &octahedron_face)
                : gjk_tracked(md, options, GjkMode::Distance, 0.0, cache);
        if (!g.overlap && g.upper > radius_a + radius_b) {
          r.iterations = g.iterations;
          r.status = g.status;
          return r;  // apart: no penetration
        }
        return penetration_from(md, g, radius_a, radius_b, pose_a, options, cache);
      });
}

/// signed_distance after the input checks (shared with prechecked::signed_distance).
static SignedDistanceResult signed_distance_checked(const Shape& a, const Pose& pose_a,
                                                    const Shape& b, const Pose& pose_b,
                                                    const QueryOptions& options, WarmStart* cache) {
  return with_pair(
      a, pose_a, b, pose_b, options, cache, [&](const auto& md, double radius_a, double radius_b) {
        // Penetration tracking first: a pair that overlapped at its last query usually still
        // does, and the moved polytope answers it without GJK (seed 004 section 5).
        if (cache != nullptr && !cache->polytope_faces.empty()) {
          detail::EpaOutcome tracked;
          if (detail::tracked_epa(md, *cache, options, tracked)) {
            return detail::signed_from_penetration(detail::penetration_from_epa(
                tracked, 0, Status::Converged, radius_a, radius_b, pose_a));
          }
        }
        // No octahedron start here, unlike penetration(): from it, a cold signed distance of
        // bare cores took 1.01-1.09x the time on the benchmark's distant and touching pairs
        // (half of the distant 8-vertex pairs pass the origin along -u and built an octahedron
        // that cannot hold it; 13 % with the shallow gate for every hull) for 0.95-0.99x on the
        // overlapping ones (session 64), and robots mostly ask it of separated pairs.
        return detail::signed_distance_from(md,
                                            gjk_tracked(md, options, GjkMode::Distance, 0.0, cache),
                                            radius_a, radius_b, pose_a, options, cache);
      });
}

/// closer_than after the input checks but the threshold's (shared with prechecked::closer_than).
static ThresholdResult closer_than_checked(const Shape& a, const Pose& pose_a, const Shape& b,
                                           const Pose& pose_b, double threshold,
                                           const QueryOptions& options, WarmStart* cache) {
  ThresholdResult r;
  if (std::isnan(threshold)) {
    r.status = Status::InvalidInput;
    return r;
  }
  return with_pair(
      a, pose_a, b, pose_b, options, cache, [&](const auto& md, double radius_a, double radius_b) {
        const double radii = radius_a + radius_b;
        const GjkOutcome g = gjk_tracked(md, options, GjkMode::Threshold, threshold + radii, cache);
        r.iterations = g.iterations;
        r.status = g.status;
        r.lower_bound = std::max(0.0, g.lower - radii);
        r.upper_bound = std::max(0.0, g.upper - radii);
        r.closer = g.overlap || g.upper - radii < threshold;
        return r;
      });
}

namespace {

// Issue 15 item 8: the loops square lengths and multiply three of them (signed volumes), so a
// pair much larger than 1e76 or smaller than 1e-76 over- or underflows and was answered wrongly
// (unit spheres 2e154 apart "collided"; bodies of size 1e-100 were "separated"). Such a pair is
// multiplied by a power of two, which is exact, to unit size before the loops, and the answer
// divided back. Inside the window nothing changes (one comparison per query).
constexpr int kSafeExponent = 240;  // |magnitude| in [2^-240, 2^240] ~ [5.7e-73, 1.8e72]

/// Largest coordinate or size of a geometry's frame-independent extent (0 for a bare point).
template <class G>
double geometry_magnitude(const G& g) {
  if constexpr (std::is_same_v<G, Sphere>) {
    return g.radius;
  } else if constexpr (std::is_same_v<G, Box>) {
    return g.half_extents.cwiseAbs().maxCoeff();
  } else if constexpr (std::is_same_v<G, Capsule> || std::is_same_v<G, Cylinder>) {
    return std::max(g.radius, g.half_length);
  } else {
    return std::max(g.center().cwiseAbs().maxCoeff(), g.bounding_radius());
  }
}

/// What the checks need of a shape, from one dispatch on its type: whether it is valid, and its
/// magnitude (the largest of geometry_magnitude and the inflation).
struct ShapeFacts {
  bool valid;
  double magnitude;
};

ShapeFacts shape_facts(const Shape& shape) {
  return std::visit(
      [&](const auto& g) {
        return ShapeFacts{detail::size_is_valid(shape.inflation) && detail::geometry_is_valid(g),
                          std::max(geometry_magnitude(g), shape.inflation)};
      },
      shape.geometry);
}

/// The power of two that brings a pair of magnitude m (largest size or coordinate) to unit
/// size, as an exponent; 0 inside the safe window.
int rescale_exponent(double m) {
  if (!(m > 0.0) || !std::isfinite(m)) return 0;
  // ilogb(m) > 240 exactly when m >= 2^241, and < -240 when m < 2^-240: two comparisons decide
  // the common case without the libm call (issue 18).
  static_assert(kSafeExponent == 240,
                "the bounds below are 2^(kSafeExponent + 1), 2^-kSafeExponent");
  if (m < 0x1p241 && m >= 0x1p-240) return 0;
  const int e = std::ilogb(m);
  return e > kSafeExponent || e < -kSafeExponent ? -e : 0;
}

Shape scaled_shape(const Shape& shape, double f) {
  Shape out = shape;
  out.inflation *= f;
  std::visit(
      [&](auto& g) {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, Sphere>) {
          g.radius *= f;
        } else if constexpr (std::is_same_v<G, Box>) {
          g.half_extents *= f;
        } else if constexpr (std::is_same_v<G, Capsule> || std::is_same_v<G, Cylinder>) {
          g.radius *= f;
          g.half_length *= f;
        } else {
          g = g.scaled(f);
        }
      },
      out.geometry);
  return out;
}

Pose scaled_pose(const Pose& pose, double f) {
  Pose out = pose;
  out.translation() *= f;
  return out;
}

/// The answer back in the caller's units; an answer that is not representable there (it
/// overflows) is reported as InvalidInput rather than as a converged infinity.
template <class R>
void unscale(R& r, double back) {
  bool finite = true;
  const auto length = [&](double& x) {
    x *= back;
    finite = finite && !std::isinf(x);
  };
  const auto point = [&](Vec3& p) {
    p *= back;
    finite = finite && !p.array().isInf().any();
  };
  if constexpr (std::is_same_v<R, DistanceResult>) {
    length(r.distance);
    length(r.lower_bound);
    length(r.upper_bound);
    point(r.point_on_a);
    point(r.point_on_b);
  } else if constexpr (std::is_same_v<R, PenetrationResult>) {
    length(r.depth);
    length(r.lower_bound);
    length(r.upper_bound);
    point(r.point_on_a);
    point(r.point_on_b);
  } else if constexpr (std::is_same_v<R, SignedDistanceResult>) {
    length(r.signed_distance);
    point(r.point_on_a);
    point(r.point_on_b);
  } else if constexpr (std::is_same_v<R, ThresholdResult>) {
    length(r.lower_bound);
    length(r.upper_bound);
  }
  if (!finite) r.status = Status::InvalidInput;
}

/// The answer to inputs that fail the checks.
template <class R>
R invalid_input() {
  R r;
  r.status = Status::InvalidInput;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if constexpr (std::is_same_v<R, DistanceResult>) r.upper_bound = r.lower_bound = nan;
  if constexpr (std::is_same_v<R, SignedDistanceResult>) r.signed_distance = nan;
  return r;
}

/// Checks the inputs, then runs `query(a, pa, b, pb, factor)` on the pair, brought to unit size
/// when it lies outside the safe window, and maps the answer back. The checks and the window
/// share one dispatch per shape (issue 18: validating, sizing and dispatching each shape apart
/// were about 200 instructions of a 1,400-instruction query).
template <class Query>
auto checked_in_safe_range(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           const QueryOptions& options, Query&& query) {
  using Result = decltype(query(a, pa, b, pb, 1.0));
  // Sizes are validated in the caller's units: scaling down by 2^e can flush a tiny negative
  // size (-1e-300) to -0, which would then pass as valid (fuzz_queries found this).
  const ShapeFacts fa = shape_facts(a), fb = shape_facts(b);
  const bool options_ok = options_valid(options), poses_ok = detail::poses_are_valid(pa, pb);
  if (!(fa.valid & fb.valid & options_ok & poses_ok)) return invalid_input<Result>();
  const int e =
      rescale_exponent(std::max({fa.magnitude, fb.magnitude, pa.translation().cwiseAbs().maxCoeff(),
                                 pb.translation().cwiseAbs().maxCoeff()}));
  if (e == 0) return query(a, pa, b, pb, 1.0);
  const double f = std::ldexp(1.0, e);
  auto r = query(scaled_shape(a, f), scaled_pose(pa, f), scaled_shape(b, f), scaled_pose(pb, f), f);
  if (r.status != Status::InvalidInput) unscale(r, std::ldexp(1.0, -e));
  return r;
}

}  // namespace

// Public entry points: cold, or warm with the pair's cache; all through checked_in_safe_range.

CollisionResult collide(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return collide_checked(sa, spa, sb, spb, o, nullptr);
      });
}
CollisionResult collide(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o, WarmStart& cache) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return collide_checked(sa, spa, sb, spb, o, &cache);
      });
}
DistanceResult distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return distance_checked(sa, spa, sb, spb, o, nullptr);
      });
}
DistanceResult distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o, WarmStart& cache) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return distance_checked(sa, spa, sb, spb, o, &cache);
      });
}
PenetrationResult penetration(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                              const QueryOptions& o) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return penetration_checked(sa, spa, sb, spb, o, nullptr);
      });
}
PenetrationResult penetration(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                              const QueryOptions& o, WarmStart& cache) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return penetration_checked(sa, spa, sb, spb, o, &cache);
      });
}
SignedDistanceResult signed_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                     const QueryOptions& o) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return signed_distance_checked(sa, spa, sb, spb, o, nullptr);
      });
}
SignedDistanceResult signed_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                     const QueryOptions& o, WarmStart& cache) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double) {
        return signed_distance_checked(sa, spa, sb, spb, o, &cache);
      });
}
ThresholdResult closer_than(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double threshold, const QueryOptions& o) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double f) {
        return closer_than_checked(sa, spa, sb, spb, threshold * f, o, nullptr);
      });
}
ThresholdResult closer_than(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double threshold, const QueryOptions& o, WarmStart& cache) {
  return checked_in_safe_range(
      a, pa, b, pb, o,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double f) {
        return closer_than_checked(sa, spa, sb, spb, threshold * f, o, &cache);
      });
}

namespace prechecked {

// A shape or pose inside [2^-240, 2^241) makes rescale_exponent 0 for every pair of
// them: the pair's magnitude is the largest of four numbers, each below 2^241, and at least
// the shapes' own, each at least 2^-240.
bool shape_ok(const Shape& shape) {
  const ShapeFacts facts = shape_facts(shape);
  return facts.valid && facts.magnitude >= 0x1p-240 && facts.magnitude < 0x1p241;
}

bool pose_ok(const Pose& pose) {
  return pose_is_valid(pose) && pose.translation().cwiseAbs().maxCoeff() < 0x1p241;
}

bool options_ok(const QueryOptions& options) {
  return options_valid(options);
}

SignedDistanceResult signed_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                     const QueryOptions& o, WarmStart* cache) {
  assert(shape_ok(a) && shape_ok(b) && pose_ok(pa) && pose_ok(pb) && options_ok(o));
  return signed_distance_checked(a, pa, b, pb, o, cache);
}

ThresholdResult closer_than(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double threshold, const QueryOptions& o, WarmStart* cache) {
  assert(shape_ok(a) && shape_ok(b) && pose_ok(pa) && pose_ok(pb) && options_ok(o));
  return closer_than_checked(a, pa, b, pb, threshold, o, cache);
}

}  // namespace prechecked

}  // namespace gjk
