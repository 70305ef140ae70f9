// Public queries: validate, dispatch the shape pair once to the templated GJK/EPA loops, then
// add the cores' radii back analytically and map the answer to the world frame.
#include "gjk/queries.hpp"

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
using detail::shape_is_valid;
using detail::with_core;

template <class F>
decltype(auto) with_pair(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                         const QueryOptions& options, const WarmStart* cache, F&& f) {
  const detail::PairFrame frame = relative_frame(pose_a, pose_b);
  const int hint_a = cache != nullptr ? cache->hint_a : -1,
            hint_b = cache != nullptr ? cache->hint_b : -1;
  return with_core(
      a, options.support, hint_a, [&](const auto& core_a, double radius_a) -> decltype(auto) {
        return with_core(b, options.support, hint_b,
                         [&](const auto& core_b, double radius_b) -> decltype(auto) {
                           using MD = detail::MinkowskiDifference<std::decay_t<decltype(core_a)>,
                                                                  std::decay_t<decltype(core_b)>>;
                           const MD md{core_a, core_b, frame.rotation, frame.translation};
                           return f(md, radius_a, radius_b);
                         });
      });
}

/// run_gjk with the pair's warm-start cache read before and updated after.
template <class MD>
GjkOutcome gjk_tracked(const MD& md, const QueryOptions& options, GjkMode mode, double threshold,
                       WarmStart* cache) {
  const GjkOutcome g = detail::run_gjk(md, options, mode, threshold, cache);
  if (cache != nullptr) {
    const int hint_a = g.simplex.size > 0 ? std::max(g.simplex.points[0].index_a, 0) : 0;
    const int hint_b = g.simplex.size > 0 ? std::max(g.simplex.points[0].index_b, 0) : 0;
    detail::remember(g, *cache, hint_a, hint_b);
  }
  return g;
}

bool inputs_valid(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                  const QueryOptions& options) {
  return options_valid(options) && pose_is_valid(pose_a) && pose_is_valid(pose_b) &&
         shape_is_valid(a) && shape_is_valid(b);
}

}  // namespace

static CollisionResult collide_impl(const Shape& a, const Pose& pose_a, const Shape& b,
                                    const Pose& pose_b, const QueryOptions& options,
                                    WarmStart* cache) {
  CollisionResult r;
  if (!inputs_valid(a, pose_a, b, pose_b, options)) {
    r.status = Status::InvalidInput;
    return r;
  }
  return with_pair(
      a, pose_a, b, pose_b, options, cache, [&](const auto& md, double radius_a, double radius_b) {
        const double radii = radius_a + radius_b;
        // Rounded shapes collide when the cores come within the radii: a threshold query on the
        // cores; bare cores use the boolean early exits of seed 001 Alg. 6.
        // Touching counts: contact within the touching tolerance of the cores' size is collision.
        // (md.scale() only when there are radii: bare cores do not need it here.)
        const double contact = radii > 0.0 ? radii + detail::touch_tolerance(md.scale()) : 0.0;
        const GjkOutcome g = radii > 0.0
                                 ? gjk_tracked(md, options, GjkMode::Threshold, contact, cache)
                                 : gjk_tracked(md, options, GjkMode::Boolean, 0.0, cache);
        r.iterations = g.iterations;
        r.status = g.status;
        r.collision = g.overlap || (radii > 0.0 ? g.lower < contact : g.lower <= 0.0);
        // The plane that certified the verdict, not the last closest point's direction (at a
        // 1e-9 gap that one can miss by 1e-7: tests/libgjk/test_collide_verdicts.cpp).
        if (!r.collision) {
          const double norm = detail::norm_without_underflow(g.lower_v, g.lower_v.norm());
          if (norm > 0.0) r.separating_direction = pose_a.linear() * (-g.lower_v / norm);
        }
        return r;
      });
}

static DistanceResult distance_impl(const Shape& a, const Pose& pose_a, const Shape& b,
                                    const Pose& pose_b, const QueryOptions& options,
                                    WarmStart* cache) {
  DistanceResult r;
  if (!inputs_valid(a, pose_a, b, pose_b, options)) {
    r.status = Status::InvalidInput;
    r.upper_bound = r.lower_bound = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  return with_pair(
      a, pose_a, b, pose_b, options, cache, [&](const auto& md, double radius_a, double radius_b) {
        return detail::distance_from(md, gjk_tracked(md, options, GjkMode::Distance, 0.0, cache),
                                     radius_a, radius_b, pose_a);
      });
}

static PenetrationResult penetration_impl(const Shape& a, const Pose& pose_a, const Shape& b,
                                          const Pose& pose_b, const QueryOptions& options,
                                          WarmStart* cache) {
  PenetrationResult r;
  if (!inputs_valid(a, pose_a, b, pose_b, options)) {
    r.status = Status::InvalidInput;
    return r;
  }
  return with_pair(a, pose_a, b, pose_b, options, cache,
                   [&](const auto& md, double radius_a, double radius_b) {
                     if (cache != nullptr && !cache->polytope_faces.empty()) {
                       detail::EpaOutcome tracked;
                       if (detail::tracked_epa(md, *cache, options, tracked)) {
                         return detail::penetration_from_epa(tracked, 0, Status::Converged,
                                                             radius_a, radius_b, pose_a);
                       }
                     }
                     const GjkOutcome g = gjk_tracked(md, options, GjkMode::Distance, 0.0, cache);
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
        return detail::signed_distance_from(md,
                                            gjk_tracked(md, options, GjkMode::Distance, 0.0, cache),
                                            radius_a, radius_b, pose_a, options, cache);
      });
}

static SignedDistanceResult signed_distance_impl(const Shape& a, const Pose& pose_a, const Shape& b,
                                                 const Pose& pose_b, const QueryOptions& options,
                                                 WarmStart* cache) {
  if (!inputs_valid(a, pose_a, b, pose_b, options)) {
    SignedDistanceResult r;
    r.status = Status::InvalidInput;
    r.signed_distance = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  return signed_distance_checked(a, pose_a, b, pose_b, options, cache);
}

/// closer_than after the input checks (shared with prechecked::closer_than).
static ThresholdResult closer_than_checked(const Shape& a, const Pose& pose_a, const Shape& b,
                                           const Pose& pose_b, double threshold,
                                           const QueryOptions& options, WarmStart* cache) {
  ThresholdResult r;
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

static ThresholdResult closer_than_impl(const Shape& a, const Pose& pose_a, const Shape& b,
                                        const Pose& pose_b, double threshold,
                                        const QueryOptions& options, WarmStart* cache) {
  if (!inputs_valid(a, pose_a, b, pose_b, options) || std::isnan(threshold)) {
    ThresholdResult r;
    r.status = Status::InvalidInput;
    return r;
  }
  return closer_than_checked(a, pose_a, b, pose_b, threshold, options, cache);
}

namespace {

// Issue 15 item 8: the loops square lengths and multiply three of them (signed volumes), so a
// pair much larger than 1e76 or smaller than 1e-76 over- or underflows and was answered wrongly
// (unit spheres 2e154 apart "collided"; bodies of size 1e-100 were "separated"). Such a pair is
// multiplied by a power of two, which is exact, to unit size before the loops, and the answer
// divided back. Inside the window nothing changes (one comparison per query).
constexpr int kSafeExponent = 240;  // |magnitude| in [2^-240, 2^240] ~ [5.7e-73, 1.8e72]

/// Largest coordinate or size of a shape's frame-independent extent (0 for a bare point).
double shape_magnitude(const Shape& shape) {
  const double core = std::visit(
      [](const auto& g) -> double {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, Sphere>) {
          return g.radius;
        } else if constexpr (std::is_same_v<G, Box>) {
          return g.half_extents.cwiseAbs().maxCoeff();
        } else if constexpr (std::is_same_v<G, Capsule> || std::is_same_v<G, Cylinder>) {
          return std::max(g.radius, g.half_length);
        } else {
          return std::max(g.center().cwiseAbs().maxCoeff(), g.bounding_radius());
        }
      },
      shape.geometry);
  return std::max(core, shape.inflation);
}

/// The power of two that brings the pair to unit size, or 0 when it is inside the window (or
/// not finite: the queries then report InvalidInput as before).
int rescale_exponent(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  const double m =
      std::max({shape_magnitude(a), shape_magnitude(b), pa.translation().cwiseAbs().maxCoeff(),
                pb.translation().cwiseAbs().maxCoeff()});
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

/// Runs `query(a, pa, b, pb, factor)` on the pair brought to unit size when it lies outside
/// the safe window, and maps the answer back.
template <class Query>
auto in_safe_range(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, Query&& query) {
  const int e = rescale_exponent(a, pa, b, pb);
  // Sizes are validated in the caller's units: scaling down by 2^e can flush a tiny negative
  // size (-1e-300) to -0, which would then pass as valid (fuzz_queries found this).
  if (e == 0 || !shape_is_valid(a) || !shape_is_valid(b)) return query(a, pa, b, pb, 1.0);
  const double f = std::ldexp(1.0, e);
  auto r = query(scaled_shape(a, f), scaled_pose(pa, f), scaled_shape(b, f), scaled_pose(pb, f), f);
  if (r.status != Status::InvalidInput) unscale(r, std::ldexp(1.0, -e));
  return r;
}

}  // namespace

// Public entry points: cold, or warm with the pair's cache; all through in_safe_range.

CollisionResult collide(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return collide_impl(sa, spa, sb, spb, o, nullptr); });
}
CollisionResult collide(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o, WarmStart& cache) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return collide_impl(sa, spa, sb, spb, o, &cache); });
}
DistanceResult distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return distance_impl(sa, spa, sb, spb, o, nullptr); });
}
DistanceResult distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const QueryOptions& o, WarmStart& cache) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return distance_impl(sa, spa, sb, spb, o, &cache); });
}
PenetrationResult penetration(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                              const QueryOptions& o) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return penetration_impl(sa, spa, sb, spb, o, nullptr); });
}
PenetrationResult penetration(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                              const QueryOptions& o, WarmStart& cache) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return penetration_impl(sa, spa, sb, spb, o, &cache); });
}
SignedDistanceResult signed_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                     const QueryOptions& o) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return signed_distance_impl(sa, spa, sb, spb, o, nullptr); });
}
SignedDistanceResult signed_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                     const QueryOptions& o, WarmStart& cache) {
  return in_safe_range(a, pa, b, pb,
                       [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb,
                           double) { return signed_distance_impl(sa, spa, sb, spb, o, &cache); });
}
ThresholdResult closer_than(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double threshold, const QueryOptions& o) {
  return in_safe_range(
      a, pa, b, pb,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double f) {
        return closer_than_impl(sa, spa, sb, spb, threshold * f, o, nullptr);
      });
}
ThresholdResult closer_than(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double threshold, const QueryOptions& o, WarmStart& cache) {
  return in_safe_range(
      a, pa, b, pb,
      [&](const Shape& sa, const Pose& spa, const Shape& sb, const Pose& spb, double f) {
        return closer_than_impl(sa, spa, sb, spb, threshold * f, o, &cache);
      });
}

namespace prechecked {

// A shape or pose inside [2^-240, 2^241) makes rescale_exponent return 0 for every pair of
// them: the pair's magnitude is the largest of four numbers, each below 2^241, and at least
// the shapes' own, each at least 2^-240.
bool shape_ok(const Shape& shape) {
  if (!shape_is_valid(shape)) return false;
  const double m = shape_magnitude(shape);
  return m >= 0x1p-240 && m < 0x1p241;
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
  if (std::isnan(threshold)) {
    ThresholdResult r;
    r.status = Status::InvalidInput;
    return r;
  }
  return closer_than_checked(a, pa, b, pb, threshold, o, cache);
}

}  // namespace prechecked

}  // namespace gjk
