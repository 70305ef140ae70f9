// The three sub-distance solvers of simplex.hpp against a brute-force closest point on the
// simplex hull, on tens of thousands of random and near-degenerate simplices of 1 to 4 points.
//
// The brute force (long double) takes the nearest of: every vertex, the projection of the origin
// on every edge and every face when it falls inside, and the origin itself when it lies inside
// a tetrahedron. Every candidate is a point of the hull, so the minimum is never below the true
// distance (up to long-double rounding) and equals it up to the conditioning of the best
// feature.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "gjk/simplex.hpp"
#include "simplex_common.hpp"  // the GJK loop's step solver (libgjk/src)

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using gjk::Simplex;
using gjk::SimplexSolver;
using gjk::SupportPoint;
using gjk::Vec3;
using gjk::testing::Rng;

using LVec = Eigen::Matrix<long double, 3, 1>;

constexpr std::uint64_t kSeed = 0x6a6b5f736f6c7665ull;  // "jk_solve"
constexpr int kPerKindAndSize = 1000;

// v against the brute force, relative to the coordinates' magnitude S = max |w_i|.
constexpr double kPointTolerance = 1e-12;
// Barycentric identities: sum == 1, sum lambda_i w_i == v.
constexpr double kLambdaSumTolerance = 1e-12;
// The origin counts as on the tetrahedron's boundary (enclosure not checked) within this * S.
constexpr double kBoundaryMargin = 1e-12;

struct BruteForce {
  Vec3 v = Vec3::Zero();
  double distance = 0.0;
  bool tetrahedron = false;
  /// Tetrahedra: min over faces of the origin's signed distance to the face plane (> 0 inside).
  double margin = 0.0;
};

LVec to_long(const Vec3& p) {
  return p.cast<long double>();
}

BruteForce brute_force(const std::vector<Vec3>& points) {
  const int n = static_cast<int>(points.size());
  std::vector<LVec> p;
  for (const Vec3& x : points) p.push_back(to_long(x));
  LVec best = p[0];
  long double best2 = best.squaredNorm();
  auto consider = [&](const LVec& q) {
    const long double d2 = q.squaredNorm();
    if (d2 < best2) {
      best2 = d2;
      best = q;
    }
  };
  for (int i = 1; i < n; ++i) consider(p[static_cast<size_t>(i)]);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const LVec& a = p[static_cast<size_t>(i)];
      const LVec d = p[static_cast<size_t>(j)] - a;
      const long double dd = d.squaredNorm();
      if (!(dd > 0)) continue;
      const long double t = -a.dot(d) / dd;
      if (t > 0 && t < 1) consider(a + t * d);
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      for (int k = j + 1; k < n; ++k) {
        const LVec& a = p[static_cast<size_t>(i)];
        const LVec e1 = p[static_cast<size_t>(j)] - a, e2 = p[static_cast<size_t>(k)] - a;
        const long double g11 = e1.dot(e1), g12 = e1.dot(e2), g22 = e2.dot(e2);
        const long double r1 = -a.dot(e1), r2 = -a.dot(e2);
        const long double det = g11 * g22 - g12 * g12;
        if (!(det > 0)) continue;
        const long double s = (r1 * g22 - r2 * g12) / det, t = (g11 * r2 - g12 * r1) / det;
        if (s >= 0 && t >= 0 && s + t <= 1) consider(a + s * e1 + t * e2);
      }
    }
  }
  BruteForce out;
  if (n == 4) {
    out.tetrahedron = true;
    // The origin's signed distance to each face plane (positive inside). A tetrahedron flat to
    // 1e-10 of its longest edge cubed is treated as the union of its faces (its hull), and the
    // origin as on its boundary (margin 0: enclosure is not checked there).
    const LVec& p0 = p[0];
    const long double d = (p[1] - p0).dot((p[2] - p0).cross(p[3] - p0));
    long double longest = 0;
    for (int i = 0; i < 4; ++i) {
      for (int j = i + 1; j < 4; ++j)
        longest = std::max(longest, (p[static_cast<size_t>(i)] - p[static_cast<size_t>(j)]).norm());
    }
    long double margin = 0;
    if (std::abs(d) > 1e-10L * longest * longest * longest) {
      // Face j = (a, b, c) with normal n = (b - a) x (c - a): the opposite vertex lies at
      // n.(p_j - a) (= +-D), the origin at -n.a, both measured from the face (small edge vectors
      // times one large coordinate: accurate for small simplices far from the origin too).
      static constexpr int faces[4][4] = {{1, 2, 3, 0}, {0, 2, 3, 1}, {0, 1, 3, 2}, {0, 1, 2, 3}};
      margin = std::numeric_limits<long double>::infinity();
      for (const auto& f : faces) {
        const LVec& a = p[static_cast<size_t>(f[0])];
        const LVec n = (p[static_cast<size_t>(f[1])] - a).cross(p[static_cast<size_t>(f[2])] - a);
        const long double vertex_side = n.dot(p[static_cast<size_t>(f[3])] - a);
        const long double origin_side = -n.dot(a);
        margin = std::min(margin, (vertex_side > 0 ? origin_side : -origin_side) / n.norm());
      }
    }
    out.margin = static_cast<double>(margin);
    if (margin > 0) {
      best = LVec::Zero();
      best2 = 0;
    }
  }
  out.v = best.cast<double>();
  out.distance = static_cast<double>(std::sqrt(best2));
  return out;
}

// ---- simplex generators --------------------------------------------------------------------

enum class Kind {
  Random,          // points in a ball of radius ~1 around a random centre
  AroundOrigin,    // centred on the origin: tetrahedra often enclose it
  Collinear,       // on a line passing near the origin
  Coplanar,        // in a plane passing near the origin
  Coincident,      // exact duplicates among the points
  NearCoincident,  // duplicates moved by ~1e-13 .. 1e-9 relative
  Sliver,          // the last point within 1e-12 .. 1e-6 relative of the others' affine hull
  OnFeature,       // the origin on a vertex, edge or face (up to rounding)
  Tiny,            // coordinates of 1e-9 .. 1e-5
  Huge,            // coordinates of 1e5 .. 1e9
  FarAndSmall,     // a simplex of size 1e-7 .. 1e-3 at distance ~1
};
constexpr Kind kKinds[] = {Kind::Random,   Kind::AroundOrigin, Kind::Collinear,
                           Kind::Coplanar, Kind::Coincident,   Kind::NearCoincident,
                           Kind::Sliver,   Kind::OnFeature,    Kind::Tiny,
                           Kind::Huge,     Kind::FarAndSmall};

const char* name(Kind k) {
  switch (k) {
    case Kind::Random:
      return "Random";
    case Kind::AroundOrigin:
      return "AroundOrigin";
    case Kind::Collinear:
      return "Collinear";
    case Kind::Coplanar:
      return "Coplanar";
    case Kind::Coincident:
      return "Coincident";
    case Kind::NearCoincident:
      return "NearCoincident";
    case Kind::Sliver:
      return "Sliver";
    case Kind::OnFeature:
      return "OnFeature";
    case Kind::Tiny:
      return "Tiny";
    case Kind::Huge:
      return "Huge";
    case Kind::FarAndSmall:
      return "FarAndSmall";
  }
  return "?";
}

Vec3 cube(Rng& rng, double half) {
  return Vec3(rng.uniform(-half, half), rng.uniform(-half, half), rng.uniform(-half, half));
}

std::vector<Vec3> make_simplex(Rng& rng, Kind kind, int n) {
  std::vector<Vec3> p(static_cast<size_t>(n));
  switch (kind) {
    case Kind::Random: {
      const Vec3 c = cube(rng, 2.0);
      for (Vec3& x : p) x = c + rng.in_unit_ball();
      break;
    }
    case Kind::AroundOrigin:
      for (Vec3& x : p) x = rng.unit_vector() * rng.uniform(0.2, 1.0);
      break;
    case Kind::Collinear: {
      const Vec3 c = cube(rng, 0.5), u = rng.unit_vector();
      for (Vec3& x : p) x = c + rng.uniform(-1.0, 1.0) * u;
      break;
    }
    case Kind::Coplanar: {
      const Vec3 c = cube(rng, 0.5), u = rng.unit_vector();
      Vec3 w = rng.unit_vector();
      w = (w - w.dot(u) * u).normalized();
      for (Vec3& x : p) x = c + rng.uniform(-1.0, 1.0) * u + rng.uniform(-1.0, 1.0) * w;
      break;
    }
    case Kind::Coincident:
    case Kind::NearCoincident: {
      const Vec3 c = cube(rng, 1.0);
      for (Vec3& x : p) x = c + rng.in_unit_ball();
      // Copy a random earlier point over each later one with probability 1/2 (at least once).
      bool copied = false;
      for (int i = 1; i < n; ++i) {
        if (rng.chance(0.5) || (!copied && i == n - 1)) {
          p[static_cast<size_t>(i)] = p[static_cast<size_t>(rng.uniform_int(0, i - 1))];
          if (kind == Kind::NearCoincident) {
            p[static_cast<size_t>(i)] += rng.log_uniform(1e-13, 1e-9) * rng.unit_vector();
          }
          copied = true;
        }
      }
      break;
    }
    case Kind::Sliver: {
      const Vec3 c = cube(rng, 0.7);
      for (Vec3& x : p) x = c + rng.in_unit_ball();
      if (n >= 2) {
        // The last point: an affine combination of the others, nudged off their hull.
        std::vector<double> weights(static_cast<size_t>(n - 1));
        double sum = 0.0;
        for (double& w : weights) sum += (w = rng.uniform(-0.5, 1.5));
        if (std::abs(sum) < 0.1) sum = weights[0] += 1.0;
        Vec3 q = Vec3::Zero();
        for (int i = 0; i < n - 1; ++i)
          q += weights[static_cast<size_t>(i)] / sum * p[static_cast<size_t>(i)];
        p[static_cast<size_t>(n - 1)] = q + rng.log_uniform(1e-16, 1e-6) * rng.unit_vector();
      }
      break;
    }
    case Kind::OnFeature: {
      const Vec3 c = cube(rng, 1.0);
      for (Vec3& x : p) x = c + rng.in_unit_ball();
      // A random point of a random sub-simplex moved to the origin.
      const int k = rng.uniform_int(1, std::min(n, 3));
      std::vector<int> ids;
      for (int i = 0; i < n; ++i) ids.push_back(i);
      for (int i = 0; i < k; ++i)
        std::swap(ids[static_cast<size_t>(i)], ids[static_cast<size_t>(rng.uniform_int(i, n - 1))]);
      std::vector<double> weights(static_cast<size_t>(k));
      double sum = 0.0;
      for (double& w : weights) sum += (w = rng.uniform(0.05, 1.0));
      Vec3 q = Vec3::Zero();
      for (int i = 0; i < k; ++i)
        q += weights[static_cast<size_t>(i)] / sum *
             p[static_cast<size_t>(ids[static_cast<size_t>(i)])];
      for (Vec3& x : p) x -= q;
      break;
    }
    case Kind::Tiny:
    case Kind::Huge: {
      const double scale =
          kind == Kind::Tiny ? rng.log_uniform(1e-9, 1e-5) : rng.log_uniform(1e5, 1e9);
      const Vec3 c = cube(rng, 2.0 * scale);
      for (Vec3& x : p) x = c + scale * rng.in_unit_ball();
      break;
    }
    case Kind::FarAndSmall: {
      const Vec3 c = rng.unit_vector() * rng.uniform(0.5, 2.0);
      const double size = rng.log_uniform(1e-7, 1e-3);
      for (Vec3& x : p) x = c + size * rng.in_unit_ball();
      break;
    }
  }
  return p;
}

// ---- the checks -----------------------------------------------------------------------------

struct Stats {
  SimplexSolver solver;
  int simplices = 0;
  int failures = 0;
  int enclosed_checked = 0;
  int enclosed = 0;
  double max_point_error = 0.0;  // |v - v_ref| / S
  double max_lambda_error = 0.0;
  std::map<std::string, int> failed;  // "kind/size check" -> count
  std::map<std::string, int> reported;
  std::map<std::string, double> max_point_error_by_kind;
  std::map<std::string, double> max_lambda_error_by_kind;
};

std::string describe(const std::vector<Vec3>& p) {
  std::ostringstream s;
  s.precision(17);
  for (const Vec3& x : p) s << " (" << x.x() << ", " << x.y() << ", " << x.z() << ")";
  return s.str();
}

bool run(SimplexSolver solver, const std::vector<Vec3>& points, Simplex& s, Vec3& v) {
  s = Simplex{};
  for (size_t i = 0; i < points.size(); ++i) {
    SupportPoint sp;
    sp.w = points[i];
    sp.a = points[i];
    sp.b = Vec3::Zero();
    sp.index_a = static_cast<int>(i);  // to check that the kept points keep their order
    sp.index_b = 0;
    s.push_back(sp);
  }
  switch (solver) {
    case SimplexSolver::SignedVolumes:
      return gjk::solve_signed_volumes(s, v);
    case SimplexSolver::Johnson:
      return gjk::solve_johnson(s, v);
    case SimplexSolver::RefineSet:
      return gjk::solve_refine_set(s, v);
    case SimplexSolver::RefineSetFixed:
      return gjk::solve_refine_set_fixed(s, v);
  }
  return false;
}

void check_one(Stats& st, Kind kind, const std::vector<Vec3>& points, const BruteForce& ref,
               int& reported) {
  Simplex s;
  Vec3 v;
  const bool enclosed = run(st.solver, points, s, v);
  ++st.simplices;
  double S = 0.0;
  for (const Vec3& x : points) S = std::max(S, x.norm());
  if (!(S > 0.0)) S = 1.0;  // all points at the origin
  std::vector<std::string> errors;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) errors.push_back(what);
  };

  const double point_error = (v - ref.v).norm() / S;
  st.max_point_error = std::max(st.max_point_error, point_error);
  double& kind_error = st.max_point_error_by_kind[name(kind)];
  kind_error = std::max(kind_error, point_error);
  expect(point_error <= kPointTolerance, "v");
  // The published refine_set keeps a set of three points (all of them below four): it drops
  // exactly one point of a tetrahedron and none of a smaller set; points off v's feature keep
  // weight 0. The other solvers reduce the set to v's feature, every weight positive.
  const bool fixed_size = st.solver == SimplexSolver::RefineSetFixed;
  if (fixed_size && !enclosed) {
    expect(s.size == std::min(3, static_cast<int>(points.size())), "fixed-size set");
  }
  expect(s.size >= 1 && s.size <= static_cast<int>(points.size()), "size");
  double sum = 0.0;
  Vec3 combination = Vec3::Zero();
  bool positive = true, ordered = true;
  for (int i = 0; i < s.size; ++i) {
    const double l = s.lambda[static_cast<size_t>(i)];
    positive = positive && (l > 0.0 || (fixed_size && l == 0.0));
    sum += l;
    combination += l * s.points[static_cast<size_t>(i)].w;
    if (i > 0)
      ordered = ordered && s.points[static_cast<size_t>(i)].index_a >
                               s.points[static_cast<size_t>(i - 1)].index_a;
    const int id = s.points[static_cast<size_t>(i)].index_a;
    expect(id >= 0 && id < static_cast<int>(points.size()) &&
               s.points[static_cast<size_t>(i)].w == points[static_cast<size_t>(id)],
           "kept point is an input point");
  }
  const double lambda_error = std::max(std::abs(sum - 1.0), (combination - v).norm() / S);
  st.max_lambda_error = std::max(st.max_lambda_error, lambda_error);
  double& kind_lambda = st.max_lambda_error_by_kind[name(kind)];
  kind_lambda = std::max(kind_lambda, lambda_error);
  expect(positive, "lambdas positive");
  expect(ordered, "input order kept");
  expect(std::abs(sum - 1.0) <= kLambdaSumTolerance, "lambdas sum to 1");
  expect((combination - v).norm() <= kLambdaSumTolerance * S, "lambdas reproduce v");
  expect((s.closest_point() - v).norm() <= kLambdaSumTolerance * S, "Simplex::closest_point");

  if (enclosed) {
    ++st.enclosed;
    expect(points.size() == 4 && s.size == 4, "enclosed keeps the tetrahedron");
    expect(v.isZero(0.0), "enclosed => v == 0");
  }
  if (ref.tetrahedron) {
    if (ref.margin > kBoundaryMargin * S) {
      ++st.enclosed_checked;
      expect(enclosed, "origin inside => enclosed");
    } else if (ref.margin < -kBoundaryMargin * S) {
      ++st.enclosed_checked;
      expect(!enclosed, "origin outside => not enclosed");
    }
  } else {
    expect(!enclosed, "only tetrahedra enclose");
  }

  if (!errors.empty()) {
    ++st.failures;
    for (const std::string& e : errors)
      ++st.failed[std::string(name(kind)) + "/" + std::to_string(points.size()) + " " + e];
    const std::string key = std::string(gjk::to_string(st.solver)) + name(kind) + errors.front();
    if (reported < 40 && ++st.reported[key] <= 2) {
      ++reported;
      std::ostringstream msg;
      msg.precision(17);
      msg << gjk::to_string(st.solver) << " on " << name(kind) << " simplex of " << points.size()
          << ":" << describe(points) << "\n  v = (" << v.transpose() << "), reference ("
          << ref.v.transpose() << "), |v - ref| / S = " << point_error << ", enclosed " << enclosed
          << ", margin " << ref.margin << ", kept " << s.size << "; failed:";
      for (const std::string& e : errors) msg << " [" << e << "]";
      ADD_FAILURE() << msg.str();
    }
  }
}

TEST(SubDistanceSolvers, MatchBruteForceOnRandomAndDegenerateSimplices) {
  std::vector<Stats> stats(gjk::testing::kSolvers.size());
  for (size_t k = 0; k < stats.size(); ++k) stats[k].solver = gjk::testing::kSolvers[k];
  int reported = 0;
  std::map<std::string, int> generated;
  for (Kind kind : kKinds) {
    for (int n = 1; n <= 4; ++n) {
      Rng rng(gjk::testing::mix_seed(
          kSeed, static_cast<std::uint64_t>(kind) * 8 + static_cast<std::uint64_t>(n)));
      const int count = n == 1 ? kPerKindAndSize / 10 : kPerKindAndSize;
      for (int i = 0; i < count; ++i) {
        const std::vector<Vec3> points = make_simplex(rng, kind, n);
        const BruteForce ref = brute_force(points);
        ++generated[name(kind)];
        for (Stats& st : stats) check_one(st, kind, points, ref, reported);
      }
    }
  }
  for (const Stats& st : stats) {
    std::printf(
        "[solvers] %-13s simplices %d  max |v - v_ref|/S %.3g  max lambda error %.3g  enclosure "
        "checked %d (enclosed %d)  failures %d\n",
        gjk::to_string(st.solver), st.simplices, st.max_point_error, st.max_lambda_error,
        st.enclosed_checked, st.enclosed, st.failures);
    std::printf("[solvers] %-13s max |v - v_ref|/S, lambda error by kind:",
                gjk::to_string(st.solver));
    for (const auto& [kind, error] : st.max_point_error_by_kind) {
      std::printf(" %s %.2g, %.2g;", kind.c_str(), error, st.max_lambda_error_by_kind.at(kind));
    }
    std::printf("\n");
    for (const auto& [what, count] : st.failed) {
      std::printf("[solvers] %-13s failed %s: %d\n", gjk::to_string(st.solver), what.c_str(),
                  count);
    }
    EXPECT_EQ(st.failures, 0) << gjk::to_string(st.solver);
  }
}

// The GJK loop's step solver (solve_signed_volumes_step) searches only the sub-simplices that
// hold the new support. Its input is therefore built as the loop builds it: a reduced simplex
// (the full solver's output on a random or degenerate set) plus a point strictly below |v| along
// v, from far below down to 1e-13 relative (the new support nearly on the old simplex's plane,
// where rounding decides). Checked as the full solver is: v against the brute force, the
// lambdas, the kept points; and that the new point is kept whenever v moved off the old
// simplex's distance.
TEST(SubDistanceSolvers, StepSolverMatchesBruteForceOnGjkSteps) {
  Rng rng(gjk::testing::mix_seed(kSeed, 0x57e9));
  int steps = 0, failures = 0, newest_dropped = 0, enclosed_count = 0, reported = 0;
  double max_point_error = 0.0;
  for (Kind kind : kKinds) {
    for (int previous_size = 1; previous_size <= 3; ++previous_size) {
      for (int i = 0; i < kPerKindAndSize; ++i) {
        Simplex previous;
        Vec3 v;
        if (run(SimplexSolver::SignedVolumes, make_simplex(rng, kind, previous_size), previous, v))
          continue;
        const double v2 = v.squaredNorm();
        double S = 0.0;
        for (int k = 0; k < previous.size; ++k)
          S = std::max(S, previous.points[static_cast<size_t>(k)].w.norm());
        if (!(v2 > 1e-24 * S * S)) continue;  // the loop stops at the origin (its touch distance)
        // w = a point of the old simplex's hull (so its plane through v), moved down along v by
        // a depth from 1e-13 to 2 |v|, and sideways by up to 2 S.
        const Vec3 unit = v / std::sqrt(v2);
        Vec3 sideways = rng.unit_vector();
        sideways -= sideways.dot(unit) * unit;
        const double depth = std::sqrt(v2) * rng.log_uniform(1e-13, 2.0);
        const Vec3 w = v - depth * unit + rng.uniform(0.0, 2.0) * S * sideways;
        if (!(v.dot(w) < v2)) continue;  // the loop's own condition, after rounding
        std::vector<Vec3> points;
        for (int k = 0; k < previous.size; ++k)
          points.push_back(previous.points[static_cast<size_t>(k)].w);
        points.push_back(w);
        Simplex in;
        for (size_t k = 0; k < points.size(); ++k) {
          SupportPoint sp;
          sp.w = sp.a = points[k];
          sp.index_a = static_cast<int>(k);
          in.push_back(sp);
        }
        Simplex out;
        Vec3 step_v;
        const bool enclosed = gjk::detail::solve_signed_volumes_step(in, out, step_v, v2);
        const BruteForce ref = brute_force(points);
        ++steps;
        enclosed_count += enclosed ? 1 : 0;
        const double scale = std::max({S, w.norm(), 1e-300});
        // Steps with w nearly on the old simplex's plane make the nearest point ill-conditioned
        // along that plane (the distance changes by the square of the move): the brute force
        // itself cannot tell the old vertex from an edge point 1e-10 away. So the distance is
        // checked to 1e-12, and the point to what that distance allows (|v - v*|^2 <= |v|^2 -
        // |v*|^2 for v in the hull), 1e-6.
        const double distance_error = std::abs(step_v.norm() - ref.distance) / scale;
        max_point_error = std::max(max_point_error, distance_error);
        const bool point_ok =
            distance_error <= kPointTolerance && (step_v - ref.v).norm() <= 1e-6 * scale;
        double sum = 0.0;
        Vec3 combination = Vec3::Zero();
        bool positive = true, ordered = true, newest_kept = false;
        for (int k = 0; k < out.size; ++k) {
          const double l = out.lambda[static_cast<size_t>(k)];
          positive = positive && l > 0.0;
          sum += l;
          combination += l * out.points[static_cast<size_t>(k)].w;
          const int id = out.points[static_cast<size_t>(k)].index_a;
          ordered = ordered && (k == 0 || id > out.points[static_cast<size_t>(k - 1)].index_a) &&
                    out.points[static_cast<size_t>(k)].w == points[static_cast<size_t>(id)];
          newest_kept = newest_kept || id == static_cast<int>(points.size()) - 1;
        }
        // Away from rounding (the new distance clearly below the old), w is on the answer.
        const bool clear_progress = ref.distance < (1.0 - 1e-6) * std::sqrt(v2);
        newest_dropped += clear_progress && !newest_kept ? 1 : 0;
        const bool ok = point_ok && out.size >= 1 && positive && ordered &&
                        std::abs(sum - 1.0) <= kLambdaSumTolerance &&
                        (combination - step_v).norm() <= kLambdaSumTolerance * scale &&
                        (enclosed ? step_v.isZero(0.0) && out.size == 4
                                  : !(ref.tetrahedron && ref.margin > kBoundaryMargin * scale)) &&
                        !(enclosed && ref.margin < -kBoundaryMargin * scale) &&
                        !(clear_progress && !newest_kept);
        if (!ok) {
          ++failures;
          if (reported++ < 10) {
            ADD_FAILURE() << "step on " << name(kind) << " from " << previous.size
                          << " points:" << describe(points) << "\n  v = (" << step_v.transpose()
                          << "), reference (" << ref.v.transpose()
                          << "), ||v| - d| / S = " << distance_error << ", enclosed " << enclosed
                          << ", kept " << out.size << ", newest kept " << newest_kept;
          }
        }
      }
    }
  }
  std::printf("[solvers] step: %d steps, %d enclosed, max ||v| - d_ref|/S %.3g, failures %d\n",
              steps, enclosed_count, max_point_error, failures);
  EXPECT_GT(steps, 20000);
  EXPECT_EQ(newest_dropped, 0);
  EXPECT_EQ(failures, 0);
}

// Hand-made cases with known answers, one per degeneracy, for every solver.
TEST(SubDistanceSolvers, KnownDegenerateCases) {
  struct Case {
    const char* what;
    std::vector<Vec3> points;
    Vec3 v;
    bool enclosed;
  };
  const std::vector<Case> cases = {
      {"coincident pair", {Vec3(1, 2, 3), Vec3(1, 2, 3)}, Vec3(1, 2, 3), false},
      {"segment through its interior", {Vec3(-1, 1, 0), Vec3(1, 1, 0)}, Vec3(0, 1, 0), false},
      {"collinear triangle", {Vec3(-1, 1, 0), Vec3(0, 1, 0), Vec3(2, 1, 0)}, Vec3(0, 1, 0), false},
      {"triangle over the origin",
       {Vec3(-1, -1, 2), Vec3(2, -1, 2), Vec3(-1, 2, 2)},
       Vec3(0, 0, 2),
       false},
      {"flat tetrahedron off the origin",
       {Vec3(-1, -1, 1e-10), Vec3(2, -1, 1e-10), Vec3(-1, 2, 1e-10), Vec3(0.1, 0.2, 1e-10)},
       Vec3(0, 0, 1e-10),
       false},
      {"tetrahedron around the origin",
       {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)},
       Vec3::Zero(),
       true},
      {"all four coincident",
       {Vec3(0, 0, 3), Vec3(0, 0, 3), Vec3(0, 0, 3), Vec3(0, 0, 3)},
       Vec3(0, 0, 3),
       false},
  };
  for (SimplexSolver solver : gjk::testing::kSolvers) {
    for (const Case& c : cases) {
      Simplex s;
      Vec3 v;
      const bool enclosed = run(solver, c.points, s, v);
      EXPECT_EQ(enclosed, c.enclosed) << gjk::to_string(solver) << ": " << c.what;
      EXPECT_LE((v - c.v).norm(), 1e-15 * (1 + c.v.norm()))
          << gjk::to_string(solver) << ": " << c.what;
    }
  }
}

}  // namespace
