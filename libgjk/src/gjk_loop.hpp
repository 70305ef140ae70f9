// The GJK main loop, shared by the boolean, distance and threshold queries (seed 000 Alg. 1-2,
// seed 001 Alg. 1 and 6). Templated on the Minkowski difference so each support call inlines.
#pragma once

#include "fma_products.hpp"
#include "gjk/results.hpp"
#include "gjk/simplex.hpp"
#include "minkowski.hpp"
#include "simplex_common.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>

namespace gjk::detail {

enum class GjkMode {
  Distance,   ///< run to convergence
  Boolean,    ///< stop at the first separating plane or enclosing simplex
  Threshold,  ///< stop once the bounds decide "distance < threshold"
};

struct GjkOutcome {
  Simplex simplex;        ///< final simplex (A's frame), lambdas set
  Vec3 v = Vec3::Zero();  ///< closest point of the cores' difference to the origin
  double lower = 0.0;     ///< certified lower bound on the cores' distance
  /// The direction whose support plane gave `lower`: every x in A - B has
  /// x.lower_v >= lower |lower_v|, so -lower_v / |lower_v| is a certified separating normal
  /// (from A towards B) whenever lower > 0. Near contact it is not v's direction: v is good to
  /// ~eps |w| / |v| only, and the loop's last v need not be the one that set the bound.
  Vec3 lower_v = Vec3::Zero();
  double upper = 0.0;    ///< |v|, an upper bound
  bool overlap = false;  ///< the cores touch or overlap (origin enclosed, or |v| ~ 0)
  int iterations = 0;
  Status status = Status::Converged;
  double scale = 1.0;         ///< size of the Minkowski difference, for tolerances
  double touch_distance = 0;  ///< below this the cores count as touching
  /// Answered "closer" by the inner balls (run_gjk's deep-pair exit): no simplex, v zero, the
  /// warm-start cache left as it was.
  bool by_inner_balls = false;
};

/// What a cold boolean query reports (run_boolean): the verdict and, when apart, the normal of a
/// certified separating plane. A verdict needs neither GjkOutcome's simplex with its witness
/// points nor the bounds' values (issue 18: building and moving the 460-byte outcome, and the
/// square roots of bounds nobody reads, were a fifth of a one-support query's instructions).
struct BooleanOutcome {
  bool collision = false;      ///< the cores touch or overlap
  Vec3 normal = Vec3::Zero();  ///< when apart: unit normal (A's frame, from A towards B), or 0
  int iterations = 0;
  Status status = Status::Converged;
};

/// True when the origin lies inside tetrahedron (w, A, B, C), given that it lies between
/// triangle ABC's plane and w and projects inside ABC (seed 001 Fig. 2(b) lifted to 3D: only the
/// three side faces through w need a test).
inline bool side_faces_enclose_origin(const Simplex& s, const Vec3& w) {
  const Vec3 a = s.points[0].w - w, b = s.points[1].w - w, c = s.points[2].w - w;
  const Vec3 o = -w;
  const double orientation = a.dot(b.cross(c));
  if (orientation == 0.0) return false;
  // For each side face, the origin must lie on the same side as the opposite base vertex.
  const double s_ab = a.dot(b.cross(o)) * orientation;  // face (w, A, B) vs C
  const double s_bc = b.dot(c.cross(o)) * orientation;  // face (w, B, C) vs A
  const double s_ca = c.dot(a.cross(o)) * orientation;  // face (w, C, A) vs B
  return s_ab > 0.0 && s_bc > 0.0 && s_ca > 0.0;
}

/// Drops the points of weight 0 that SimplexSolver::RefineSetFixed keeps in its set, so the
/// final simplex is v's feature, as every solver reports it (features, witness points, EPA).
inline void drop_unweighted(Simplex& s) {
  int kept = 0;
  for (int i = 0; i < s.size; ++i) {
    if (!(s.lambda[static_cast<size_t>(i)] > 0.0) && s.size < 4) continue;
    s.points[static_cast<size_t>(kept)] = s.points[static_cast<size_t>(i)];
    s.lambda[static_cast<size_t>(kept)] = s.lambda[static_cast<size_t>(i)];
    ++kept;
  }
  s.size = kept;
}

// refine_projection's work near contact (gjk_loop.cpp: out of line, as it is rarely needed).
void refine_projection_near_contact(Simplex& s, Vec3& v, double size2, double vv);

/// Recomputes v, the origin's projection on the solved edge or triangle simplex, from cross
/// products, and its barycentric coordinates from v. The solvers' v = sum lambda_i w_i carries
/// an absolute error of ~eps * |w|, so near contact (|v| ~ 1e-9 of the size) its direction is
/// off by ~1e-7 rad: too coarse to pick the right support among nearly coplanar vertices (faces
/// 1e-9 rad from parallel, nearly parallel edges), and GJK stopped 1e-11 .. 1e-8 away from the
/// answer, or found no certified lower bound. For an edge [p, q], v = e x (p x q) / |e|^2 with
/// p x q from fused multiply-adds is accurate to a few ulps of |v|; for a triangle the normal's
/// direction is accurate to ~eps / sin(smallest angle). The refined v is kept only when it lies
/// in the simplex (barycentric coordinates >= -8 eps), so it stays a point of A - B.
/// (Found by the adversarial suite, tests/libgjk/test_adversarial.cpp.)
/// The test is inline and the work out of line: the loop calls this every step, and far from
/// contact it returns at once (the call itself cost about 40 instructions a step, issue 18).
[[gnu::always_inline]] inline void refine_projection(Simplex& s, Vec3& v) {
  if (s.size < 2 || s.size > 3) return;
  double size2 = 0.0;
  for (int i = 0; i < s.size; ++i)
    size2 = std::max(size2, s.points[static_cast<size_t>(i)].w.squaredNorm());
  // Far from contact (|v| > 1e-3 of the simplex's distance from the origin) v's direction is
  // already good to 1e-13 rad: skip the work.
  const double vv = v.squaredNorm();
  if (!(vv < 1e-6 * size2)) return;
  refine_projection_near_contact(s, v, size2, vv);
}

/// |v| when v.norm() came out as `plain`: below ~1e-154 the squares are denormal and the norm
/// loses digits, so -v / |v| (every query's normal or separating direction) would not be unit;
/// cores that close are rare, so the rescaling norm runs only then.
inline double norm_without_underflow(const Vec3& v, double plain) {
  return plain < 1e-150 && plain > 0.0 ? v.stableNorm() : plain;
}

/// The unit normal of the plane that certified `g.lower` (from A towards B: -lower_v, the
/// GjkOutcome::lower_v convention), or zero when there is none.
inline Vec3 certified_normal(const GjkOutcome& g) {
  const double norm = norm_without_underflow(g.lower_v, g.lower_v.norm());
  return norm > 0.0 ? Vec3(-g.lower_v / norm) : Vec3::Zero();
}

inline bool repeats_a_vertex(const Simplex& s, const SupportPoint& w) {
  for (int i = 0; i < s.size; ++i) {
    const SupportPoint& p = s.points[static_cast<size_t>(i)];
    if (p.index_a == w.index_a && p.index_b == w.index_b) return true;
  }
  return false;
}

/// Copies the used part of a simplex: its `size` points and their weights (issue 18: the whole
/// 4-point array was copied when the final simplex sat in the spare buffer, 1.3 % of a
/// clearance run).
inline void copy_used(const Simplex& from, Simplex& to) {
  to.size = from.size;
  for (int i = 0; i < from.size; ++i) {
    to.points[static_cast<size_t>(i)] = from.points[static_cast<size_t>(i)];
    to.lambda[static_cast<size_t>(i)] = from.lambda[static_cast<size_t>(i)];
  }
}

/// Rebuilds the cached simplex of a tracked pair at the pair's new poses (seed 004 section 4:
/// the same vertex pairs, moved). Returns false, leaving `s` empty, when the cache is empty or
/// does not fit these shapes.
template <class MD>
bool warm_simplex(const MD& md, const WarmStart& cache, Simplex& s) {
  s.size = 0;
  if (cache.size < 1 || cache.size > 4) return false;
  for (int i = 0; i < cache.size; ++i) {
    SupportPoint p;
    if (!md.vertex_pair(cache.index_a[static_cast<size_t>(i)],
                        cache.index_b[static_cast<size_t>(i)], p)) {
      s.size = 0;
      return false;
    }
    s.push_back(p);
  }
  return true;
}

/// Stores the final simplex for the next query of the pair, and its first point's vertices as
/// the hill-climbing hints (an answer by bounding balls has no simplex: the hints stay).
inline void remember(const GjkOutcome& g, WarmStart& cache) {
  if (g.by_inner_balls) return;  // its vertex pairs are still valid starts
  cache.size = g.simplex.size;
  for (int i = 0; i < g.simplex.size; ++i) {
    cache.index_a[static_cast<size_t>(i)] = g.simplex.points[static_cast<size_t>(i)].index_a;
    cache.index_b[static_cast<size_t>(i)] = g.simplex.points[static_cast<size_t>(i)].index_b;
  }
  cache.direction = g.v;
  if (g.simplex.size > 0) {
    cache.hint_a = std::max(g.simplex.points[0].index_a, 0);
    cache.hint_b = std::max(g.simplex.points[0].index_b, 0);
  }
  if (!g.overlap) {  // apart: no polytope to track into the next overlap
    cache.polytope_vertices.clear();
    cache.polytope_faces.clear();
  }
}

/// A certified lower bound on the cores' distance that clears the touching distance, with the
/// loop's relative tolerance: only such a bound may end a boolean query as "apart" (touching
/// counts as collision).
inline bool clears_touch(double lower, const QueryOptions& options, double touch) {
  return lower - options.tolerance * lower > touch;
}

/// The one-support exit of the boolean and threshold queries: the first support w0, taken along
/// -start, already bounds the distance from below by w0.start / |start| (every x in A-B has
/// x.start >= w0.start; seed 001 Alg. 6 applied to the start direction; issue 18 item 3: a
/// distant pair is decided by one support call, not two and a simplex step). Taken only when
/// that bound answers the query as the loop's own tests would: a boolean query's bound must
/// clear the touching distance, a threshold query's must reach the threshold and be positive.
/// Fills `out` (start as v, with length |w0|, an upper bound, so -v / upper is the certified
/// separating normal) and returns true when it does.
inline bool separated_by_start(const Vec3& start, const Vec3& w0, const QueryOptions& options,
                               GjkMode mode, double touch, double threshold, GjkOutcome& out) {
  const double start_norm = start.norm();
  const double lower = start.dot(w0) / start_norm;
  const bool decided = mode == GjkMode::Boolean     ? clears_touch(lower, options, touch)
                       : mode == GjkMode::Threshold ? lower >= threshold && lower > 0.0
                                                    : false;
  if (!decided) return false;
  out.upper = w0.norm();
  out.lower = std::min(lower, out.upper);
  out.v = start * (out.upper / start_norm);
  out.lower_v = out.v;
  out.iterations = 1;
  return true;
}

/// GJK (seed 000 Alg. 1-2, seed 001 Alg. 1 and 6), the exact loop: the closest point of the
/// simplex by the chosen sub-distance solver. Cold boolean queries go through run_boolean.
template <class MD>
GjkOutcome run_gjk(const MD& md, const QueryOptions& options, GjkMode mode, double threshold = 0.0,
                   const WarmStart* warm = nullptr) {
  GjkOutcome out;
  const Vec3 center = md.center();
  const double center_norm = center.norm();
  out.scale = std::max(md.scale_around(center_norm), DBL_MIN);
  out.touch_distance = touch_tolerance(out.scale);
  const double touch = out.touch_distance;
  // A threshold query whose bounding balls are at least the threshold apart ends here with no
  // support call: the balls' gap is the certified lower bound, the line of centres its direction
  // (lower_v), upper the farthest apart two points of the balls can be; the simplex stays
  // empty. closer_than() tests here, in A's frame, where the centres' difference costs a few
  // products on top of the relative frame that the loop needs anyway; collide() tests earlier,
  // in the world frame (queries.cpp, collide_by_balls). The collision world's validity checks,
  // whose pairs already passed its box test and whose balls mostly meet, took 1.03-1.09x the
  // time with the world-frame test (session 55); a quarter of them end here.
  // The balls are the cores' smallest enclosing ones (a hull's around ball_center(), not around
  // the mean that starts the loop).
  if (mode == GjkMode::Threshold) {
    const Vec3 between = md.ball_centers();
    const double between_norm = between.norm();
    if (between_norm - md.ball_bounds() >= threshold) {
      const double gap = md.balls_gap(between_norm);
      if (gap >= threshold && gap > 0.0) {
        out.lower = gap;
        out.upper = md.balls_span(between_norm);
        out.lower_v = between;
        out.v = between * (out.upper / between_norm);
        out.iterations = 0;
        return out;
      }
    } else if (const double inners = md.inner_bounds(); between_norm - inners < threshold) {
      // Deep pairs: the cores are no farther apart than their inner balls, which answers
      // "closer" when that is below the threshold (0 when the balls meet: overlap).
      const double upper = std::max(0.0, between_norm - inners + md.balls_slack(between_norm));
      if (upper < threshold) {
        out.upper = upper;
        out.overlap = !(upper > 0.0);
        out.by_inner_balls = true;
        out.iterations = 0;
        return out;
      }
    }
  }
  // Two simplex buffers: each step solves the current one (plus w) into the other and swaps on
  // progress, so the fallback to the previous simplex needs no copy of it (issue 18: copying
  // and rebuilding the 340-byte simplex on every step cost ~10 % of a small query).
  Simplex spare;
  Simplex* current = &out.simplex;
  Simplex* next = &spare;
  Simplex& first = out.simplex;  // the warm start and the first support fill the output buffer

  Vec3 v;
  const bool warm_started = warm != nullptr && warm_simplex(md, *warm, first);
  if (warm_started) {
    // Tracking: the last simplex, moved with the bodies, is usually within a step of the new
    // answer. Any set of A-B vertices is a valid start; reduce it like any other simplex.
    bool inside;
    if (options.solver == SimplexSolver::SignedVolumes) {
      inside = solve_signed_volumes_into(first, spare, v);  // no rebuild-and-copy of `first`
      std::swap(current, next);
    } else {
      inside = solve_simplex(options.solver, first, v);
    }
    if (inside) {
      out.overlap = true;  // slid into overlap: the enclosing tetrahedron goes to EPA as is
      out.iterations = 1;
      if (current != &out.simplex) copy_used(*current, out.simplex);
      return out;
    }
  } else {
    // Seed 002 section 3.1(b): start from the support towards the origin from the difference of
    // the centres, where the closest points usually are; a tracked curved pair starts from its
    // last closest direction.
    // The cached v is used as a direction only, rescaled: a cache holding a huge (or
    // non-finite) vector must not overflow the supports (fuzz_queries: a direction component of
    // 1.8e308 made |v|^2 infinite and the distance inf, the depth NaN).
    Vec3 start = center;
    if (warm != nullptr && warm->direction.allFinite()) {
      const double largest = warm->direction.cwiseAbs().maxCoeff();
      if (largest > touch) start = warm->direction / largest;
    }
    if (!(start.squaredNorm() > touch * touch)) start = Vec3::UnitX();
    first.push_back(md.support(-start));
    first.lambda[0] = 1.0;
    v = first.points[0].w;
    // A boolean query may end here (separated_by_start), when the bound also exceeds what the
    // loop could still call touching (|v| <= touch, or the stop test with lower <= 0 needing
    // |v| (1 - tolerance) <= touch): the loop, which never sees |v| < lower, would then have
    // reported the pair apart as well, unless rounding stopped it (no progress, the iteration
    // cap) before it found a plane of its own, where the certified plane is the better answer.
    // A threshold query (collide() of rounded shapes, closer_than()) likewise, when the bound
    // reaches its threshold: the loop's own exit for a certified "not closer".
    if (mode != GjkMode::Distance &&
        separated_by_start(start, v, options, mode, touch, threshold, out))
      return out;
  }
  double v_norm = v.norm();
  out.upper = v_norm;

  int k = 0;
  for (; k < options.max_iterations; ++k) {
    Simplex& s = *current;
    if (v_norm <= touch) {  // the simplex reaches the origin: touching or overlapping
      out.overlap = true;
      break;
    }
    const SupportPoint w = md.support(-v);
    const double vw = v.dot(w.w);
    const double plane = vw / v_norm;  // every x in A-B has x.v >= w.v
    if (plane > out.lower) {
      out.lower = plane;
      out.lower_v = v;
    }
    // A separating plane (seed 001 Alg. 6) ends a boolean query only when it clears the
    // touching distance, as the start's exit does: touching counts as collision. A plane
    // within it goes on to the distance's own stop tests (the plain vw > 0 exit reported 6-8 %
    // of the exactly touching pairs of the 3D benchmark set apart while distance() found them
    // touching: rounding leaves vw ~ 1e-17 on either side).
    if (mode == GjkMode::Boolean && vw > 0.0 && clears_touch(out.lower, options, touch)) break;
    // Threshold: a certified lower bound at or above the threshold answers "not closer". It
    // must be positive: overlap counts as closer, so closer_than(0) (and any threshold <= 0)
    // has to run until a separating plane (lower > 0) or the overlap is found.
    if (mode == GjkMode::Threshold && out.lower >= threshold && out.lower > 0.0) break;
    // Seed 001 Alg. 1: stop when w is no further than v along -v, up to the tolerance.
    if (v_norm - out.lower <= options.tolerance * v_norm + touch) break;
    // Seed 002 section 2: a recurring support vertex means the simplex cannot improve.
    if (!MD::curved && repeats_a_vertex(s, w)) break;
    // The test needs the origin to project inside the triangle: always so for a reduced
    // simplex of three points, not for RefineSetFixed's set when v is on an edge or vertex.
    if (mode == GjkMode::Boolean && s.size == 3 && s.lambda[0] > 0.0 && s.lambda[1] > 0.0 &&
        s.lambda[2] > 0.0 && side_faces_enclose_origin(s, w.w)) {
      out.overlap = true;
      s.push_back(w);  // keep the enclosing tetrahedron for EPA
      break;
    }
    s.push_back(w);  // s is now the input of the step; its first size - 1 points and lambdas
                     // are still the previous simplex
    Simplex& n = *next;
    Vec3 next_v;
    bool inside;
    if (options.solver == SimplexSolver::SignedVolumes) {
      // The step solver: w is strictly below |v| along v here (the stop tests above).
      inside = solve_signed_volumes_step(s, n, next_v, v_norm * v_norm);
    } else {
      n = s;
      inside = solve_simplex(options.solver, n, next_v);
    }
    if (inside) {
      out.overlap = true;
      v.setZero();
      v_norm = 0.0;
      std::swap(current, next);
      break;
    }
    refine_projection(n, next_v);
    const double next_norm = next_v.norm();
    if (!(next_norm < v_norm)) {
      // No strict progress: rounding has taken over. The previous simplex is the better one.
      --s.size;
      const bool tight = v_norm - out.lower <= 1e-9 * out.scale;
      out.status = tight ? Status::Converged : Status::Degenerate;
      break;
    }
    std::swap(current, next);
    v = next_v;
    v_norm = next_norm;
    out.upper = v_norm;
    if (mode == GjkMode::Threshold && v_norm < threshold) break;
  }
  // The stop test above passes with no separating plane (lower <= 0) only when |v| <= touch +
  // tolerance * |v|: touching or overlapping, exactly as the test at the top of the loop, which
  // |v| can miss by the relative tolerance. fuzz_queries found |v| = 2.08e-13 (touch 2.07e-13)
  // reported apart, so penetration() took flat cores overlapping by 4.2e-4 for touching.
  if (!out.overlap && !(out.lower > 0.0) && v_norm <= touch + options.tolerance * v_norm) {
    out.overlap = true;
  }
  // A warm start that ends with neither a separating plane nor the origin reached has not
  // decided the pair: the moved simplex can stall next to the origin (fuzz_queries: flat cores
  // overlapping by 4.2e-4 stalled 2.1e-13 from it, starting from the touching simplex of the
  // previous query, and were reported apart). Decide it as a query without a cache would.
  if (current != &out.simplex) copy_used(*current, out.simplex);
  if (options.solver == SimplexSolver::RefineSetFixed) drop_unweighted(out.simplex);
  if (warm_started && !out.overlap && !(out.lower > 0.0)) {
    // Assigned, not returned directly: with every return naming `out` the compiler constructs
    // it in place (a returned GjkOutcome was moved, 1.8 % of a clearance run).
    out = run_gjk(md, options, mode, threshold, nullptr);
    return out;
  }
  out.iterations = k + 1;
  if (k == options.max_iterations) out.status = Status::MaxIterations;
  v_norm = norm_without_underflow(v, v_norm);
  out.v = v;
  out.upper = v_norm;
  if (out.overlap) out.lower = out.upper = 0.0;
  out.lower = std::min(out.lower, out.upper);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The boolean query without closest points (issue 18 item 3: "a boolean path that beats MPR
// without losing GJK's exactness on touching pairs").
//
// A boolean query needs a search direction per step, not the closest point of the simplex: the
// direction from the simplex's nearest feature towards the origin comes from cross products of
// its edges, as in MPR and in game-engine GJK, with no sub-distance solve, no witness points and
// no square root (one division per step, off the critical path, for the descent guard). Such a
// loop decides only with a certificate, checked in its own arithmetic:
//  - apart: a support plane that keeps all of A - B more than the touching distance from the
//    origin (seed 001 Alg. 6's separating plane, with the exact loop's margin);
//  - overlap: a tetrahedron of support points with the origin inside each of its four faces by
//    more than the touching distance and more than the rounding of the face test.
// Everything else (touching within the tolerance, a repeated vertex, a flat simplex, a step
// that does not descend, the iteration cap) hands its simplex to the exact loop as a warm start,
// which decides the pair. The verdicts are the exact loop's and distance()'s on every pair of
// tests/libgjk/test_collide_verdicts.cpp; only the separating direction differs (any certified
// one, not the closest points' direction).

/// A boolean query's simplex: the points of A - B and their vertex indices, without the
/// witness points (newest point last).
struct BareSimplex {
  std::array<Vec3, 4> w;
  std::array<int, 4> index_a{}, index_b{};
  int size = 0;

  void push_back(const SupportPoint& p) {
    const auto i = static_cast<size_t>(size++);
    w[i] = p.w;
    index_a[i] = p.index_a;
    index_b[i] = p.index_b;
  }
  bool holds(const SupportPoint& p) const {
    for (int i = 0; i < size; ++i) {
      const auto k = static_cast<size_t>(i);
      if (index_a[k] == p.index_a && index_b[k] == p.index_b) return true;
    }
    return false;
  }
  /// Keeps the points at `first` and `second` (in this order), dropping the rest.
  void keep(int first, int second) {
    const auto f = static_cast<size_t>(first), s = static_cast<size_t>(second);
    const Vec3 wf = w[f], ws = w[s];
    const int af = index_a[f], bf = index_b[f], as = index_a[s], bs = index_b[s];
    w[0] = wf;
    index_a[0] = af;
    index_b[0] = bf;
    w[1] = ws;
    index_a[1] = as;
    index_b[1] = bs;
    size = 2;
  }
  void keep_newest() {
    const auto n = static_cast<size_t>(size - 1);
    w[0] = w[n];
    index_a[0] = index_a[n];
    index_b[0] = index_b[n];
    size = 1;
  }
  void drop(int i) {  // keeps the order of the others, so the newest stays last
    for (int k = i; k + 1 < size; ++k) {
      const auto to = static_cast<size_t>(k), from = static_cast<size_t>(k + 1);
      w[to] = w[from];
      index_a[to] = index_a[from];
      index_b[to] = index_b[from];
    }
    --size;
  }
};

/// Direction from line AB towards the origin, times |AB|^2: AO |AB|^2 - AB (AB.AO).
inline Vec3 towards_origin_from_line(const Vec3& ab, const Vec3& ao, double ab_ao) {
  return ao * ab.squaredNorm() - ab * ab_ao;
}

/// The edge or vertex of a simplex whose newest point is a = w[size - 1], seen from the origin
/// past edge AB: keeps [B, A] and the direction off the edge, or [A] and AO.
inline void reduce_to_edge_or_newest(BareSimplex& x, int b_index, const Vec3& ab, const Vec3& ao,
                                     Vec3& d) {
  const double ab_ao = ab.dot(ao);
  if (ab_ao > 0.0) {
    d = towards_origin_from_line(ab, ao, ab_ao);
    x.keep(b_index, x.size - 1);
  } else {
    d = ao;
    x.keep_newest();
  }
}

/// Triangle [C, B, A], A newest: the nearest feature to the origin among those containing A
/// (the only candidates: the origin lies past B and C's plane along the last direction) and
/// the direction from it towards the origin. Returns false when the origin lies in the
/// triangle's plane (touching territory: the exact loop decides).
inline bool reduce_triangle(BareSimplex& x, Vec3& d) {
  const Vec3 a = x.w[2];
  const Vec3 ab = x.w[1] - a, ac = x.w[0] - a, ao = -a;
  const Vec3 abc = ab.cross(ac);
  if (abc.cross(ac).dot(ao) > 0.0) {  // beyond edge AC, outside the triangle
    const double ac_ao = ac.dot(ao);
    if (ac_ao > 0.0) {
      d = towards_origin_from_line(ac, ao, ac_ao);
      x.keep(0, 2);
      return true;
    }
    reduce_to_edge_or_newest(x, 1, ab, ao, d);
    return true;
  }
  if (ab.cross(abc).dot(ao) > 0.0) {  // beyond edge AB
    reduce_to_edge_or_newest(x, 1, ab, ao, d);
    return true;
  }
  const double side = abc.dot(ao);
  if (side == 0.0) return false;
  d = side > 0.0 ? abc : Vec3(-abc);
  return true;
}

/// The origin lies inside face (p, q, r) of a tetrahedron whose fourth vertex is `opposite` by
/// more than `touch` and more than the face test's rounding (`rounding2`: its square bound).
/// The face's outward side must be certain too: on a flat tetrahedron (four vertices of one face
/// of A - B, a face-face contact) `opposite` lies within rounding of the face's plane, every
/// face's orientation is a coin toss, and a point just off that plane could pass as inside all
/// four (the clang build found make_sphere_pair(129, 16, Touching), 6e-10 apart, reported
/// colliding from a cached tetrahedron of volume 1e-17).
inline bool origin_deep_behind_face(const Vec3& p, const Vec3& q, const Vec3& r,
                                    const Vec3& opposite, double touch, double rounding2) {
  Vec3 n = (q - p).cross(r - p);
  const double side = n.dot(opposite - p);
  if (!(side * side > rounding2)) return false;  // orientation within rounding: undecided
  if (side > 0.0) n = -n;                        // outward
  const double s = -n.dot(p);                    // n.(0 - p): negative when the origin is inside
  return s < 0.0 && s * s > touch * touch * n.squaredNorm() && s * s > rounding2;
}

/// Tetrahedron [D, C, B, A], A newest. Returns 1 when it encloses the origin with the margins of
/// origin_deep_behind_face on all four faces (overlap, certified), 0 when the origin lies past
/// a face through A (x and d reduced to that face's nearest feature), -1 when undecided.
inline int reduce_tetrahedron(BareSimplex& x, Vec3& d, double touch) {
  const Vec3 a = x.w[3];
  const Vec3 ab = x.w[2] - a, ac = x.w[1] - a, ad = x.w[0] - a, ao = -a;
  const Vec3 n_abc = ab.cross(ac), n_acd = ac.cross(ad), n_adb = ad.cross(ab);
  const double orientation = n_abc.dot(ad);  // the three normals share its sign towards the inside
  if (orientation == 0.0) return -1;
  const double outward = orientation > 0.0 ? -1.0 : 1.0;
  const int beyond = outward * n_abc.dot(ao) > 0.0   ? 0  // drop D
                     : outward * n_acd.dot(ao) > 0.0 ? 2  // drop B
                     : outward * n_adb.dot(ao) > 0.0 ? 1  // drop C
                                                     : -1;
  if (beyond >= 0) {
    x.drop(beyond);
    return reduce_triangle(x, d) ? 0 : -1;
  }
  // The rounding of n.p on points of norm <= R is below ~16 eps R^3 (the differences, the cross
  // product and the dot product each add a few ulps of R, R^2, R^3).
  double r2 = 0.0;
  for (const Vec3& p : x.w) r2 = std::max(r2, p.squaredNorm());
  const double rounding2 = 256.0 * DBL_EPSILON * DBL_EPSILON * r2 * r2 * r2;
  const Vec3 &pa = x.w[3], &pb = x.w[2], &pc = x.w[1], &pd = x.w[0];
  return origin_deep_behind_face(pa, pb, pc, pd, touch, rounding2) &&
                 origin_deep_behind_face(pa, pc, pd, pb, touch, rounding2) &&
                 origin_deep_behind_face(pa, pd, pb, pc, touch, rounding2) &&
                 origin_deep_behind_face(pb, pc, pd, pa, touch, rounding2)
             ? 1
             : -1;
}

/// Iteration cap of the direction loop; a pair still open after it goes to the exact loop.
constexpr int kDirectionLoopIterations = 32;

/// The boolean query on polygonal cores by directions (see above), from the first direction
/// `start` (of norm `start_norm`) with the touching distance `touch`; with `start_only`, only
/// the one-support exit is tried. Returns true with `out` answered (after the one-support exit
/// `x` holds that support, after an overlap the enclosing tetrahedron), or false with the
/// simplex reached in `x`; `iterations` counts the support calls.
template <class MD>
bool boolean_by_directions(const MD& md, const QueryOptions& options, Vec3 start, double start_norm,
                           double touch, BooleanOutcome& out, BareSimplex& x, int& iterations,
                           bool start_only = false) {
  static_assert(!MD::curved, "the certificates need a finite vertex set");
  // The start of the exact loop (seed 002 section 3.1(b)), with its one-support exit
  // (separated_by_start, with the start's norm from the caller).
  if (!(start_norm > touch)) {
    start = Vec3::UnitX();
    start_norm = 1.0;
  }
  SupportPoint s = md.support(-start);
  iterations = 1;
  x.push_back(s);
  const double inverse_start_norm = 1.0 / start_norm;
  if (clears_touch(start.dot(s.w) * inverse_start_norm, options, touch)) {
    out.normal = start * -inverse_start_norm;
    out.iterations = 1;
    return true;
  }
  if (start_only) return false;
  Vec3 d = -s.w;
  double dd = d.squaredNorm();
  double feature_distance2 = dd;  // squared distance from the origin to the simplex's feature
  const int cap = std::min(options.max_iterations, kDirectionLoopIterations);
  while (iterations < cap) {
    if (!(dd > 0.0)) break;  // the origin on the simplex's feature: touching territory
    s = md.support(d);
    ++iterations;
    const double wd = s.w.dot(d);
    if (wd < 0.0) {  // every x in A - B has x.d <= w.d < 0: a separating plane
      const double d_norm = std::sqrt(dd);
      const double lower = -wd / d_norm;
      if (!clears_touch(lower, options, touch)) break;  // within touching distance
      out.normal = d / d_norm;
      out.iterations = iterations;
      return true;
    }
    // No new vertex, or none measurably past the simplex's feature (whose points all have the
    // same x.d): rounding has the last word, which is the exact loop's to settle.
    if (x.holds(s) || wd - x.w[0].dot(d) <= options.tolerance * std::abs(wd)) break;
    x.push_back(s);
    if (x.size == 2) {
      const Vec3 ao = -x.w[1];
      reduce_to_edge_or_newest(x, 0, x.w[0] - x.w[1], ao, d);
    } else if (x.size == 3) {
      if (!reduce_triangle(x, d)) break;
    } else {
      const int verdict = reduce_tetrahedron(x, d, touch);
      if (verdict < 0) break;
      if (verdict > 0) {
        out.collision = true;
        out.iterations = iterations;
        return true;
      }
    }
    // GJK's distance to the simplex falls at every step. Reducing by directions keeps the
    // feature nearest the origin among those through the newest point, and for a tetrahedron
    // only the first face the origin lies beyond, so a step can go uphill and the loop cycle
    // (pair 946 of the Distant 8-vertex set went round 7 supports). An uphill step hands over.
    dd = d.squaredNorm();
    const double offset = x.w[static_cast<size_t>(x.size - 1)].dot(d);
    if (!(offset * offset < feature_distance2 * dd)) break;  // no division on the branch
    feature_distance2 = offset * offset / dd;
  }
  return false;
}

/// The cached tetrahedron of a pair last found overlapping, at the new poses, still encloses the
/// origin with reduce_tetrahedron's margins (seed 004 section 5's tracking shortcut, with the
/// boolean's certificate). Leaves the tetrahedron in `x`.
template <class MD>
bool still_encloses_origin(const MD& md, const WarmStart& cache, double touch, BareSimplex& x) {
  x.size = 0;
  for (int i = 0; i < 4; ++i) {
    SupportPoint p;
    const auto k = static_cast<size_t>(i);
    if (!md.vertex_pair(cache.index_a[k], cache.index_b[k], p)) return false;
    x.push_back(p);
  }
  Vec3 unused;
  return reduce_tetrahedron(x, unused, touch) > 0;
}

/// The vertex pairs of `x` as a warm start's simplex (the exact loop's, or the pair's cache).
inline void store_indices(const BareSimplex& x, WarmStart& w) {
  w.size = x.size;
  for (int i = 0; i < x.size; ++i) {
    const auto k = static_cast<size_t>(i);
    w.index_a[k] = x.index_a[k];
    w.index_b[k] = x.index_b[k];
  }
}

/// Stores a direction-loop answer in the pair's cache: the certifying simplex (the support
/// behind the plane, or the enclosing tetrahedron), the plane's direction as the next start,
/// and the support hints.
inline void remember_certificate(const BooleanOutcome& out, const BareSimplex& x,
                                 WarmStart& cache) {
  store_indices(x, cache);
  const auto newest = static_cast<size_t>(x.size - 1);
  cache.hint_a = std::max(x.index_a[newest], 0);
  cache.hint_b = std::max(x.index_b[newest], 0);
  // The exact loop's v points from the origin to A - B: opposite the normal (A towards B).
  cache.direction = out.collision ? Vec3::Zero() : Vec3(-out.normal);
  if (!out.collision) {  // apart: no polytope to track into the next overlap
    cache.polytope_vertices.clear();
    cache.polytope_faces.clear();
  }
}

/// The boolean query, cold or warm (`cache`: the pair's warm start, read and updated). On
/// polygonal cores of ordinary size it goes by directions first (boolean_by_directions); the
/// rest, and whatever that leaves open, runs the exact loop.
///
/// Warm, it follows seed 004 section 4's tracking with the boolean's certificates: a tetrahedron
/// that enclosed the origin at the last query is tested again first (an overlap kept costs no
/// support call), then one support along the last separating normal, which usually separates
/// again after a small motion; failing both, the exact loop runs from the cached simplex (without
/// one, the direction loop runs from the cached normal and hands its simplex over). The
/// cache keeps what certified the answer: the support behind the plane, the enclosing
/// tetrahedron, or the exact loop's final simplex.
template <class MD>
BooleanOutcome run_boolean(const MD& md, const QueryOptions& options, WarmStart* cache = nullptr) {
  const auto verdict_of = [&](const GjkOutcome& g, int earlier_iterations) {
    if (cache != nullptr) remember(g, *cache);
    BooleanOutcome out;
    out.collision = g.overlap || g.lower <= 0.0;
    if (!out.collision) out.normal = certified_normal(g);
    out.iterations = g.iterations + earlier_iterations;
    out.status = g.status;
    return out;
  };
  if constexpr (!MD::curved) {
    const Vec3 center = md.center();
    const double center_norm = center.norm();
    const double scale = std::max(md.scale_around(center_norm), DBL_MIN);
    // The certificates square third powers of lengths (the rounding bound, R^6): keep them far
    // from over- and underflow.
    if (scale > 0x1p-100 && scale < 0x1p100) {
      const double touch = touch_tolerance(scale);
      BooleanOutcome out;
      BareSimplex x;
      if (cache != nullptr && cache->size == 4 && still_encloses_origin(md, *cache, touch, x)) {
        out.collision = true;
        out.iterations = 1;  // a simplex step, as the exact loop counts a warm start found inside
        return out;          // the cache already holds this tetrahedron
      }
      Vec3 start = center;
      double start_norm = center_norm;
      if (cache != nullptr && cache->direction.allFinite()) {
        // As the exact loop reads it: a direction only, rescaled so that a huge cached vector
        // cannot overflow the supports.
        const double largest = cache->direction.cwiseAbs().maxCoeff();
        if (largest > touch) {
          start = cache->direction / largest;
          start_norm = start.norm();
        }
      }
      x.size = 0;
      int iterations = 0;
      // A tracked pair with a cached simplex tries one support along its last plane's normal. One
      // without (its last answers came from the balls) runs the whole direction loop from the
      // cached direction, like a cold query: one support and then the exact loop from that
      // direction took 1.2-1.7x the time on the Drift sets at 200-500 vertices (session 62).
      const bool tracked_simplex = cache != nullptr && cache->size > 0;
      if (boolean_by_directions(md, options, start, start_norm, touch, out, x, iterations,
                                tracked_simplex)) {
        if (cache != nullptr) remember_certificate(out, x, *cache);
        return out;
      }
      // A tracked pair whose last plane no longer separates is near contact: the exact loop from
      // the cached simplex, the last answer's feature, converges in a step or two (on the
      // Drift sets into overlap, the direction loop from scratch took 1.5-1.7x as long).
      if (tracked_simplex) return verdict_of(run_gjk(md, options, GjkMode::Boolean, 0.0, cache), 1);
      WarmStart local;  // the simplex reached, as a warm start of the exact loop
      WarmStart& handover = cache != nullptr ? *cache : local;
      store_indices(x, handover);
      return verdict_of(run_gjk(md, options, GjkMode::Boolean, 0.0, &handover), iterations);
    }
  }
  return verdict_of(run_gjk(md, options, GjkMode::Boolean, 0.0, cache), 0);
}

}  // namespace gjk::detail
