// Support mappings of the shape cores and of their Minkowski difference (seed 000 eqs. 6-11).
//
// The loop works in A's frame: B's pose relative to A is computed once per query, A's support
// needs no transform, and B's support costs one rotation of the direction into B's frame and
// one transform of the returned point (seed 000 eqs. 8-9). Coordinates stay small even when both
// bodies sit far from the world origin, which keeps the arithmetic exact-ish at 1e6 offsets.
#pragma once

#include "gjk/results.hpp"
#include "gjk/shapes.hpp"
#include "gjk/simplex.hpp"

#include <cfloat>
#include <cmath>
#include <type_traits>

namespace gjk::detail {

/// Distance below which two cores count as touching: a few ulps of the problem's size.
inline double touch_tolerance(double scale) {
  return 64.0 * DBL_EPSILON * scale;
}

// Each core: support(direction, point&) -> vertex index (-1 for a point of a curved surface),
// center() an interior point, bound() the radius of a ball around center() holding the core,
// and `curved` when its support is not a finite vertex set.

// feature(d, index): the feature of the core that supports direction d (unit, body frame), given
// the supporting vertex `index` found by support(): the set of core points maximising <x, d>.
// Ties count within kFeatureAngle (radians): a face is reported when d is within that angle of
// its normal.
constexpr double kFeatureAngle = 1e-9;

struct PointCore {
  static constexpr bool curved = false;
  int support(const Vec3&, Vec3& p) const {
    p.setZero();
    return 0;
  }
  Feature feature(const Vec3&, int) const { return Feature::Vertex; }
  bool vertex(int index, Vec3& p) const {
    p.setZero();
    return index == 0;
  }
  Vec3 center() const { return Vec3::Zero(); }
  double bound() const { return 0.0; }
};

struct SegmentCore {  // (0,0,+-h)
  static constexpr bool curved = false;
  double half_length;
  int support(const Vec3& d, Vec3& p) const {
    const bool top = d.z() >= 0.0;
    p = Vec3(0.0, 0.0, top ? half_length : -half_length);
    return top ? 1 : 0;
  }
  Vec3 center() const { return Vec3::Zero(); }
  double bound() const { return half_length; }
  Feature feature(const Vec3& d, int) const {
    return std::abs(d.z()) <= kFeatureAngle ? Feature::Edge : Feature::Vertex;
  }
  bool vertex(int index, Vec3& p) const {
    p = Vec3(0.0, 0.0, index == 1 ? half_length : -half_length);
    return index == 0 || index == 1;
  }
};

struct BoxCore {
  static constexpr bool curved = false;
  Vec3 half_extents;
  int support(const Vec3& d, Vec3& p) const {
    int index = 0;
    for (int k = 0; k < 3; ++k) {
      const bool positive = d[k] >= 0.0;
      p[k] = positive ? half_extents[k] : -half_extents[k];
      index |= positive ? (1 << k) : 0;
    }
    return index;
  }
  Vec3 center() const { return Vec3::Zero(); }
  double bound() const { return half_extents.norm(); }
  Feature feature(const Vec3& d, int) const {
    int flat = 0;  // axes along which d has no component: the supporting set spans them
    for (int k = 0; k < 3; ++k) flat += std::abs(d[k]) <= kFeatureAngle ? 1 : 0;
    return flat >= 2 ? Feature::Face : flat == 1 ? Feature::Edge : Feature::Vertex;
  }
  bool vertex(int index, Vec3& p) const {
    for (int k = 0; k < 3; ++k) p[k] = (index >> k) & 1 ? half_extents[k] : -half_extents[k];
    return index >= 0 && index < 8;
  }
};

struct CylinderCore {
  static constexpr bool curved = true;
  double radius;
  double half_length;
  int support(const Vec3& d, Vec3& p) const {
    const double radial = std::hypot(d.x(), d.y());
    const double z = d.z() >= 0.0 ? half_length : -half_length;
    if (radial > 0.0) {
      p = Vec3(radius * d.x() / radial, radius * d.y() / radial, z);
    } else {
      p = Vec3(0.0, 0.0, z);  // cap centre: a support point of the whole cap
    }
    return -1;
  }
  Vec3 center() const { return Vec3::Zero(); }
  double bound() const { return std::hypot(radius, half_length); }
  Feature feature(const Vec3& d, int) const {
    return std::hypot(d.x(), d.y()) <= kFeatureAngle ? Feature::Face : Feature::Curved;
  }
  bool vertex(int, Vec3&) const { return false; }  // no vertices: warm start uses a direction
};

/// Index of the first vertex maximising <v, d>: ConvexPolytope::support_index, inline so a small
/// hull's scan is not a call per support (issue 18: the scan was 21 % of an 8-vertex distance
/// query). Plain and sequential: two-lane and SSE2 versions (two vertices per register) cost
/// more at 8-32 vertices, where the predicted branch of the sequential scan is nearly free and
/// the lanes' compare-and-blend chain and final merge are not (docs/benchmarks.md, issue 18
/// items 2-3).
inline int scan_support(const Vec3* v, int n, const Vec3& d) {
  int best = 0;
  double best_dot = v[0].dot(d);
  for (int i = 1; i < n; ++i) {
    const double x = v[i].dot(d);
    if (x > best_dot) {
      best_dot = x;
      best = i;
    }
  }
  return best;
}

/// Asks the processor to start loading the hull's vertices and adjacency (software prefetch; no
/// effect on results). Out of line, in convex_polytope.cpp, so PolytopeCore's inlined
/// constructor only gains a call.
void prefetch_for_climbing(const ConvexPolytope& hull);

/// A cold climb starts at the last support alone while that vertex lies at least this fraction
/// of the bounding radius out from the centre along the new direction; below, at the better of it
/// and the support of the nearest of 26 fixed directions (ConvexPolytope::climb_start). On hulls
/// of kClimbFromHintCosMinVertices vertices and more.
constexpr double kClimbFromHintCos = 0.7;
/// Below this size only a last support behind the centre (at or below 0 along the direction)
/// counts as far. The Panda's cold link-box distances took 1.03-1.06x the time with the fraction
/// test (0.4 or 0.7) on its 72-220-vertex link hulls and 1.01x with this one (session 53); long,
/// thin links, whose supports across the link lie well inside the bounding radius, are the
/// likely reason.
constexpr int kClimbFromHintCosMinVertices = 256;
/// Hull size from which a cold climb that turns far starts over (PolytopeCore::start_for_turn):
/// every hull Auto climbs without a warm start. Overlapping distances, whose directions swing,
/// take 0.66-0.89x the time at 64-200 vertices, in and out of cache (session 53,
/// docs/benchmarks.md); the threshold was 256 while the start scored all 26 supports.
constexpr int kFarTurnRestartMinVertices = kHillClimbingMinVertices;
/// Hull size from which EPA's starts at a face vertex are compared with the support of the
/// nearest of 26 fixed directions. Below it, out of cache, that comparison cost EPA 3-6 % at
/// 64-128 vertices (in cache it saved 5-7 %; session 53), and the robots' link hulls (72-220
/// vertices in the shared models) stay on the plain path (docs/benchmarks.md, issue 18).
constexpr int kEpaStartPresetsMinVertices = 256;

/// How far a valid pose's rotation may be from orthonormal: each column's squared norm within
/// this of 1, each pair of columns' dot product within it of 0 (poses_are_valid).
constexpr double kRotationTolerance = 1e-6;

/// A bound on the error of a ball test's |centre difference| - bounds, from `lengths` (the
/// centres' offsets in their frames, the bounds and the centre distance) and `translations`
/// (what the frames' offsets add): a few ulps of every magnitude the centres add up (at 1e7 from
/// the origin that exceeds the touching distance), and the stretch of a ball by the rotations a
/// valid pose may carry (~1.5 kRotationTolerance each; B is seen through two of them). Shared
/// by the world-frame test (PairBalls, pair_results.hpp) and the threshold loop's (A's frame).
inline double ball_test_slack(double lengths, double translations) {
  return 16.0 * DBL_EPSILON * (lengths + translations) + 8.0 * kRotationTolerance * lengths;
}

struct PolytopeCore {
  static constexpr bool curved = false;
  const ConvexPolytope* polytope;
  bool climb;        // hill climbing (seed 004 section 3.2) instead of the scan
  mutable int hint;  // last support vertex: where the next climb starts (per query, not shared)
  // Climbs that turn far start over: a hull climbed without a warm start (a tracked pair's
  // directions turn little, and the test's few instructions showed in those queries).
  bool restart_far;
  // Inlined by force: one is built per body per query, and GCC stopped inlining it into the
  // queries' nested dispatch lambdas when it grew (10 M instructions of calls in a 20,000-state
  // clearance run).
  // `climb_from`: Auto's threshold without a warm start's hint (kHillClimbingMinVertices, or
  // kHillClimbingMinVerticesBoolean for a cold collide()).
  [[gnu::always_inline]] PolytopeCore(const ConvexPolytope& p, SupportMethod method, int start = -1,
                                      int climb_from = kHillClimbingMinVertices)
      : polytope(&p), hint(start) {
    const int n = static_cast<int>(p.vertices().size());
    climb = method == SupportMethod::HillClimbing ||
            (method == SupportMethod::Auto &&
             n >= (start >= 0 ? kHillClimbingMinVerticesWarm : climb_from));
    restart_far = climb && start < 0 && n >= kFarTurnRestartMinVertices;
    // A cold query's hull may be out of cache, and each climbing step's loads wait on the last
    // step's: loads issued now overlap (2x at 128-512 vertices on the 1,000-pair benchmark sets,
    // docs/benchmarks.md). A warm start's hull was just used. collide()'s pairs that the
    // bounding balls answer never get here (queries.cpp, collide_by_balls); closer_than()'s do,
    // and issue these loads before the threshold loop's own ball test.
    if (climb && start < 0) prefetch_for_climbing(p);
  }
  int support(const Vec3& d, Vec3& p) const {
    const auto& v = polytope->vertices();
    int i;
    if (climb) {
      int start = hint;
      if (restart_far && start >= 0) start = start_for_turn(d, start);
      i = polytope->support_index_climbing(d, start);
    } else {
      i = scan_support(v.data(), static_cast<int>(v.size()), d);
    }
    hint = i;
    p = v[static_cast<size_t>(i)];
    return i;
  }
  /// The start of a climb along `d` from the last support `last`. GJK's directions on
  /// overlapping pairs, and its first few on any static pair, turn by large angles: the last
  /// support is then many edges from the next one, and each climbing step waits on the one
  /// before. `last` counts as far when it lies less than kClimbFromHintCos of the bounding radius
  /// out from the centre along d (below kClimbFromHintCosMinVertices: when it lies behind the
  /// centre). Out of line, so that the inlined support of the hulls that never call it stays as
  /// small as before.
  [[gnu::noinline]] int start_for_turn(const Vec3& d, int last) const {
    const double out =
        (polytope->vertices()[static_cast<size_t>(last)] - polytope->center()).dot(d);
    const double radius = polytope->bounding_radius();
    const double cos_far =
        static_cast<int>(polytope->vertices().size()) < kClimbFromHintCosMinVertices
            ? 0.0
            : kClimbFromHintCos;
    const bool far =
        out <= 0.0 || out * out < cos_far * cos_far * radius * radius * d.squaredNorm();
    return far ? polytope->climb_start(d, last) : last;
  }
  /// Starts the next climb along `d` at vertex `candidate` (below 0: where it was), near the
  /// answer but not on it; on hulls of kEpaStartPresetsMinVertices or more, at the better of it
  /// and the nearest fixed direction's support. Nothing for a core that scans.
  void start_near(const Vec3& d, int candidate) const {
    if (!climb) return;
    if (static_cast<int>(polytope->vertices().size()) >= kEpaStartPresetsMinVertices) {
      hint = polytope->climb_start(d, candidate);
    } else if (candidate >= 0) {
      hint = candidate;
    }
  }
  bool vertex(int index, Vec3& p) const {
    if (index < 0 || index >= static_cast<int>(polytope->vertices().size())) return false;
    p = polytope->vertices()[static_cast<size_t>(index)];
    return true;
  }
  Vec3 center() const { return polytope->center(); }
  double bound() const { return polytope->bounding_radius(); }
  /// Neighbours of the supporting vertex that tie with it: none, a vertex; one, an edge (hull
  /// vertices are extreme points, so an edge holds no third one); two or more, a face.
  Feature feature(const Vec3& d, int index) const {
    const auto& v = polytope->vertices();
    const auto& offsets = polytope->adjacency_offsets();
    const double top = v[static_cast<size_t>(index)].dot(d);
    const double slack = kFeatureAngle * std::max(bound(), DBL_MIN);
    int ties = 0;
    if (offsets.back() == 0) {  // no adjacency (from_hull_vertices): scan
      for (size_t i = 0; i < v.size(); ++i)
        ties += (static_cast<int>(i) != index && v[i].dot(d) >= top - slack) ? 1 : 0;
    } else {
      for (std::uint32_t k = offsets[static_cast<size_t>(index)];
           k < offsets[static_cast<size_t>(index) + 1]; ++k) {
        ties += v[polytope->adjacency()[k]].dot(d) >= top - slack ? 1 : 0;
      }
    }
    return ties >= 2 ? Feature::Face : ties == 1 ? Feature::Edge : Feature::Vertex;
  }
};

/// A core's smallest enclosing ball, which the far-pair exits test: a hull's ball_center() and
/// ball_radius() (tighter than the ball around its mean, center()); every other core's ball is
/// already centred on center().
struct CoreBallInFrame {
  Vec3 center;
  double radius;
};
template <class Core>
[[gnu::always_inline]] inline CoreBallInFrame smallest_ball_of(const Core& core) {
  if constexpr (std::is_same_v<Core, PolytopeCore>) {
    return {core.polytope->ball_center(), core.polytope->ball_radius()};
  } else {
    return {core.center(), core.bound()};
  }
}

/// The radius of a ball around smallest_ball_of(core).center inside the core: a hull's
/// inner_radius(), a box's smallest half extent, a cylinder's smaller size; 0 for points,
/// segments and every other core. The deep-pair exits test it.
template <class Core>
[[gnu::always_inline]] inline double inner_radius_of(const Core& core) {
  if constexpr (std::is_same_v<Core, PolytopeCore>) {
    return core.polytope->inner_radius();
  } else if constexpr (std::is_same_v<Core, BoxCore>) {
    return core.half_extents.minCoeff();
  } else if constexpr (std::is_same_v<Core, CylinderCore>) {
    return std::min(core.radius, core.half_length);
  } else {
    return 0.0;
  }
}

/// A - B with B placed in A's frame by x_A = rotation * x_B + translation.
template <class CoreA, class CoreB>
struct MinkowskiDifference {
  const CoreA& a;
  const CoreB& b;
  Eigen::Matrix3d rotation;
  Vec3 translation;

  static constexpr bool curved = CoreA::curved || CoreB::curved;

  /// Support of A - B in `direction` (seed 000 eq. 11).
  SupportPoint support(const Vec3& direction) const {
    SupportPoint s;
    s.index_a = a.support(direction, s.a);
    Vec3 b_local;
    s.index_b = b.support(-to_b(direction), b_local);
    s.b = placed(b_local);
    s.w = s.a - s.b;
    return s;
  }
  // The two rotations of every support, spelled out: GCC left Eigen's 3x3 products as calls
  // (about 40 instructions each with the spills) in the query's inlined loop (issue 18).
  /// A direction of A's frame in B's: rotation^T d.
  [[gnu::always_inline]] Vec3 to_b(const Vec3& d) const {
    return {rotation.col(0).dot(d), rotation.col(1).dot(d), rotation.col(2).dot(d)};
  }
  /// A point of B's frame in A's: rotation p + translation.
  [[gnu::always_inline]] Vec3 placed(const Vec3& p) const {
    return {
        rotation(0, 0) * p.x() + rotation(0, 1) * p.y() + rotation(0, 2) * p.z() + translation.x(),
        rotation(1, 0) * p.x() + rotation(1, 1) * p.y() + rotation(1, 2) * p.z() + translation.y(),
        rotation(2, 0) * p.x() + rotation(2, 1) * p.y() + rotation(2, 2) * p.z() + translation.z()};
  }
  /// The vertex of A - B made of A's vertex ia and B's vertex ib; false if either index does not
  /// name a vertex (a warm-start cache from another pair, or a curved core).
  bool vertex_pair(int ia, int ib, SupportPoint& s) const {
    Vec3 b_local;
    if (!a.vertex(ia, s.a) || !b.vertex(ib, b_local)) return false;
    s.b = placed(b_local);
    s.w = s.a - s.b;
    s.index_a = ia;
    s.index_b = ib;
    return true;
  }
  /// True when either core's support climbs (a hull at or above the Auto threshold).
  bool climbs() const {
    bool any = false;
    if constexpr (std::is_same_v<CoreA, PolytopeCore>) any = any || a.climb;
    if constexpr (std::is_same_v<CoreB, PolytopeCore>) any = any || b.climb;
    return any;
  }
  /// Starts the next support's hill climbs at A's vertex ia and B's vertex ib, near the answer
  /// along `direction` (A - B's; PolytopeCore::start_near). Other cores are left as they are.
  void start_climbs_near(const Vec3& direction, int ia, int ib) const {
    if constexpr (std::is_same_v<CoreA, PolytopeCore>) a.start_near(direction, ia);
    if constexpr (std::is_same_v<CoreB, PolytopeCore>) {
      if (b.climb) b.start_near(-to_b(direction), ib);
    }
  }
  Vec3 center() const { return a.center() - placed(b.center()); }
  /// Size of A - B around its centre: the scale of absolute tolerances.
  double scale() const { return scale_around(center().norm()); }
  /// The two cores' bound()s.
  double bounds() const { return a.bound() + b.bound(); }
  /// scale() from the norm of center(), which the caller already has.
  double scale_around(double center_norm) const { return bounds() + center_norm; }
  /// The far-pair exits' balls (smallest_ball_of): B's centre to A's in A's frame (as
  /// center()), and the two radii.
  Vec3 ball_centers() const {
    return smallest_ball_of(a).center - placed(smallest_ball_of(b).center);
  }
  double ball_bounds() const { return smallest_ball_of(a).radius + smallest_ball_of(b).radius; }
  /// The two cores' inner radii (inner_radius_of), around the same centres.
  double inner_bounds() const { return inner_radius_of(a) + inner_radius_of(b); }
  /// How far apart the two balls are (negative when they meet), given |ball_centers()|, less a
  /// bound on its error: a lower bound on the distance between the cores. The same bound as
  /// detail::PairBalls::slack() (pair_results.hpp), in A's frame.
  double balls_gap(double centers_norm) const {
    return centers_norm - ball_bounds() - balls_slack(centers_norm);
  }
  /// How far apart two points of the balls can be, given |ball_centers()|, plus the same bound:
  /// an upper bound on the distance between the cores.
  double balls_span(double centers_norm) const {
    return centers_norm + ball_bounds() + balls_slack(centers_norm);
  }
  /// A bound on the error of |ball_centers()| - ball_bounds() (ball_test_slack).
  double balls_slack(double centers_norm) const {
    return ball_test_slack(smallest_ball_of(a).center.cwiseAbs().sum() +
                               smallest_ball_of(b).center.cwiseAbs().sum() + ball_bounds() +
                               centers_norm,
                           translation.cwiseAbs().sum());
  }
};

}  // namespace gjk::detail
