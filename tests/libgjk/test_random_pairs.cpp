// Random polytope pairs against the independent qhull reference (support/reference.hpp), through
// every sub-distance solver. The reference of a pair is computed once and reused for the three
// solvers. Prints one summary line per solver (pairs, max errors, failures, runtime).
//
// Reproduce a single failing pair with gjk::testing::make_pair(kSeed, index, class): the failure
// messages name the class and index.
//
// Long runs (docs/reliability.md): GJK_RANDOM_PAIRS_PER_CLASS, GJK_RANDOM_SEED and
// GJK_RANDOM_MAX_POINTS override the count, the seed and the largest hull size (the reference's
// cost grows with |A| x |B|), e.g. 3,333,334 pairs per class of 4-16 points for 10 million.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "gjk/gjk.hpp"
#include "reference.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using gjk::Pose;
using gjk::Shape;
using gjk::SimplexSolver;
using gjk::Status;
using gjk::Vec3;
using namespace gjk::testing;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

const std::uint64_t kSeed = env_or("GJK_RANDOM_SEED", 0x6a6b5f7061697273ull);  // "jk_pairs"
const int kPairsPerClass = static_cast<int>(env_or("GJK_RANDOM_PAIRS_PER_CLASS", 3400));
const int kMaxPoints = static_cast<int>(env_or("GJK_RANDOM_MAX_POINTS", 200));

// Tolerances of the task, relative to the reference scale (size of the bodies, ~1).
constexpr double kDistanceTolerance = 1e-9;
constexpr double kDepthTolerance = 1e-6;
// Certified bracket and witness identities: a few hundred ulps of the problem's size.
constexpr double kRoundingTolerance = 1e-12;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Case {
  PolytopePair pair;
  Shape shape_a, shape_b;
  std::vector<Vec3> world_a, world_b;
  ReferenceHull hull_a, hull_b;
  ReferenceResult ref;
};

struct SolverStats {
  SimplexSolver solver = SimplexSolver::SignedVolumes;
  int pairs = 0;
  int failures = 0;  // pairs with at least one failed check
  double max_distance_error = 0.0;
  double max_depth_error = 0.0;
  double max_witness_surface =
      0.0;  // apart pairs: max |signed distance| of witnesses to the bodies
  double max_closest_point_error = 0.0;  // apart pairs: |(p_a - p_b) - reference closest point|
  double max_epa_witness_surface = 0.0;  // overlapping pairs
  double max_support_gap = 0.0;          // overlapping pairs: |h(normal) - depth|
  double max_normal_error = 0.0;         // overlapping pairs with a unique minimum facet
  std::map<std::string, int> statuses;   // "query:status" -> count, non-Converged only
  std::map<std::string, int> failed_checks;
  double seconds = 0.0;
};

// Collects the failures of one pair; reports the first few in full through gtest.
class Checker {
 public:
  Checker(SolverStats& stats, const Case& c, int& reported)
      : stats_(stats), case_(c), reported_(reported) {}

  void check(bool ok, const char* name, const std::string& detail = {}) {
    if (ok) return;
    failed_ = true;
    ++stats_.failed_checks[name];
    if (reported_ < 30) {
      ++reported_;
      ADD_FAILURE() << gjk::to_string(stats_.solver) << ": " << name << " failed on "
                    << case_.pair.describe() << " (reference signed distance "
                    << case_.ref.signed_distance << ")" << (detail.empty() ? "" : ": ") << detail;
    }
  }
  void status(const char* query, Status s) {
    if (s == Status::Converged) return;
    ++stats_.statuses[std::string(query) + ":" + gjk::to_string(s)];
    check(false, "status Converged", std::string(query) + " returned " + gjk::to_string(s));
  }
  bool failed() const { return failed_; }

 private:
  SolverStats& stats_;
  const Case& case_;
  int& reported_;
  bool failed_ = false;
};

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

void run_solver(const Case& c, SolverStats& stats, int& reported) {
  gjk::QueryOptions options;
  options.solver = stats.solver;
  const ReferenceResult& ref = c.ref;
  const double scale = ref.scale;
  const double tol_d = kDistanceTolerance * scale;
  const double tol_p = kDepthTolerance * scale;
  const double tol_r = kRoundingTolerance * scale;
  const double s = ref.signed_distance;
  const double true_distance = std::max(s, 0.0);
  const bool apart = s > tol_d;
  const bool overlapping = s < -tol_d;
  const Pose& pa = c.pair.pose_a;
  const Pose& pb = c.pair.pose_b;
  Checker check(stats, c, reported);
  ++stats.pairs;

  // distance()
  const gjk::DistanceResult d = gjk::distance(c.shape_a, pa, c.shape_b, pb, options);
  check.status("distance", d.status);
  const double distance_error = std::abs(d.distance - true_distance);
  stats.max_distance_error = std::max(stats.max_distance_error, distance_error);
  check.check(distance_error <= tol_d, "distance", "got " + fmt(d.distance));
  check.check(d.lower_bound <= true_distance + tol_r && true_distance <= d.upper_bound + tol_r,
              "bracket", "[" + fmt(d.lower_bound) + ", " + fmt(d.upper_bound) + "]");
  if (apart) check.check(!d.collision, "distance collision flag", "collision reported");
  if (overlapping) check.check(d.collision, "distance collision flag", "no collision reported");
  if (!d.collision && true_distance > 0.0) {
    const double surface_a = std::abs(c.hull_a.signed_distance(d.point_on_a));
    const double surface_b = std::abs(c.hull_b.signed_distance(d.point_on_b));
    stats.max_witness_surface = std::max({stats.max_witness_surface, surface_a, surface_b});
    check.check(surface_a <= tol_d && surface_b <= tol_d, "witness on surface",
                fmt(surface_a) + " / " + fmt(surface_b));
    check.check(std::abs((d.point_on_a - d.point_on_b).norm() - d.distance) <= tol_r,
                "|p_a - p_b| == distance");
    check.check(std::abs(d.normal.norm() - 1.0) <= 1e-12 &&
                    (d.point_on_b - d.point_on_a - d.distance * d.normal).norm() <= tol_r,
                "distance normal");
    const double closest_error = ((d.point_on_a - d.point_on_b) - ref.closest_cso_point).norm();
    stats.max_closest_point_error = std::max(stats.max_closest_point_error, closest_error);
    check.check(closest_error <= tol_d, "closest point of A - B", fmt(closest_error));
  }

  // collide()
  const gjk::CollisionResult col = gjk::collide(c.shape_a, pa, c.shape_b, pb, options);
  check.status("collide", col.status);
  if (apart) check.check(!col.collision, "collide flag", "collision reported");
  if (overlapping) check.check(col.collision, "collide flag", "no collision reported");
  if (!col.collision) {
    // A separating direction: A's support along n lies below B's lowest point along n.
    const double gap = -cso_support(c.world_a, c.world_b, col.separating_direction);
    check.check(std::abs(col.separating_direction.norm() - 1.0) <= 1e-12 && gap >= -tol_r,
                "separating direction", "B - A extends " + fmt(gap) + " along it");
  }

  // penetration()
  const gjk::PenetrationResult p = gjk::penetration(c.shape_a, pa, c.shape_b, pb, options);
  check.status("penetration", p.status);
  if (apart) check.check(!p.collision, "penetration collision flag", "collision reported");
  if (overlapping) {
    check.check(p.collision, "penetration collision flag", "no collision reported");
    const double depth_error = std::abs(p.depth - ref.depth);
    stats.max_depth_error = std::max(stats.max_depth_error, depth_error);
    check.check(depth_error <= tol_p, "depth",
                "got " + fmt(p.depth) + ", reference " + fmt(ref.depth));
    check.check(std::abs(p.normal.norm() - 1.0) <= 1e-12, "penetration normal unit");
    const double support_gap = std::abs(cso_support(c.world_a, c.world_b, p.normal) - ref.depth);
    stats.max_support_gap = std::max(stats.max_support_gap, support_gap);
    check.check(support_gap <= tol_p, "h(normal) == depth", fmt(support_gap));
    if (ref.unique_normal) {
      const double normal_error = (p.normal - ref.normal).norm();
      stats.max_normal_error = std::max(stats.max_normal_error, normal_error);
      check.check(normal_error <= 1e-6, "penetration normal", fmt(normal_error));
    }
    check.check((p.point_on_a - p.point_on_b - p.depth * p.normal).norm() <= tol_r,
                "p_a - p_b == depth * normal",
                fmt((p.point_on_a - p.point_on_b - p.depth * p.normal).norm()));
    const double surface_a = std::abs(c.hull_a.signed_distance(p.point_on_a));
    const double surface_b = std::abs(c.hull_b.signed_distance(p.point_on_b));
    stats.max_epa_witness_surface = std::max({stats.max_epa_witness_surface, surface_a, surface_b});
    check.check(surface_a <= tol_p && surface_b <= tol_p, "EPA witness on surface",
                fmt(surface_a) + " / " + fmt(surface_b));
  } else if (p.collision) {  // touching: at most a rounding-level depth
    check.check(p.depth <= tol_d, "touching depth", fmt(p.depth));
  }

  // signed_distance(): the reference value, and continuous with the two other queries.
  const gjk::SignedDistanceResult sd = gjk::signed_distance(c.shape_a, pa, c.shape_b, pb, options);
  check.status("signed_distance", sd.status);
  check.check(std::abs(sd.signed_distance - s) <= (s >= -tol_d ? tol_d : tol_p), "signed distance",
              fmt(sd.signed_distance));
  const double expected_sd = p.collision ? -p.depth : d.distance;
  check.check(std::abs(sd.signed_distance - expected_sd) <= tol_r, "signed distance continuity",
              fmt(sd.signed_distance) + " vs " + fmt(expected_sd));

  // closer_than() on either side of the true distance.
  auto threshold = [&](double t, bool expect_closer) {
    const gjk::ThresholdResult r = gjk::closer_than(c.shape_a, pa, c.shape_b, pb, t, options);
    check.status("closer_than", r.status);
    check.check(r.closer == expect_closer, "closer_than", "threshold " + fmt(t));
    check.check(r.lower_bound <= true_distance + tol_r && true_distance <= r.upper_bound + tol_r,
                "closer_than bounds", "[" + fmt(r.lower_bound) + ", " + fmt(r.upper_bound) + "]");
  };
  if (apart) {
    const double margin = std::max(1e-6 * scale, 1e-3 * true_distance);
    threshold(true_distance + margin, true);
    threshold(true_distance > margin ? true_distance - margin : 0.5 * true_distance, false);
  } else if (overlapping) {
    threshold(1e-6 * scale, true);
    threshold(0.0, true);  // overlap counts as closer
  } else {
    threshold(tol_d + 1e-6 * scale, true);
  }

  if (check.failed()) ++stats.failures;
}

Case make_case(std::uint64_t index, PairClass kind) {
  Case c;
  PairOptions options;
  options.max_points = std::max(options.min_points, kMaxPoints);
  c.pair = make_pair(kSeed, index, kind, options);
  c.shape_a = gjk::ConvexPolytope::from_points(c.pair.points_a);
  c.shape_b = gjk::ConvexPolytope::from_points(c.pair.points_b);
  c.world_a = c.pair.world_a();
  c.world_b = c.pair.world_b();
  c.hull_a = ReferenceHull::build(c.world_a);
  c.hull_b = ReferenceHull::build(c.world_b);
  c.ref = reference_query(c.hull_a, c.hull_b);
  return c;
}

TEST(RandomPairs, EverySolverMatchesTheQhullReference) {
  const SimplexSolver solvers[3] = {SimplexSolver::SignedVolumes, SimplexSolver::Johnson,
                                    SimplexSolver::RefineSet};
  std::vector<SolverStats> stats;
  for (SimplexSolver solver : solvers) {
    stats.emplace_back();
    stats.back().solver = solver;
  }
  int reported = 0;
  double reference_seconds = 0.0;
  std::map<std::string, int> classes;  // reference classification per generated class
  int not_unique = 0;

  for (int i = 0; i < kPairsPerClass; ++i) {
    for (PairClass kind : {PairClass::Distant, PairClass::Touching, PairClass::Overlapping}) {
      const auto start = Clock::now();
      const Case c = make_case(static_cast<std::uint64_t>(i), kind);
      reference_seconds += seconds_since(start);
      const double s = c.ref.signed_distance, tol_d = kDistanceTolerance * c.ref.scale;
      ++classes[std::string(to_string(kind)) + (s > tol_d    ? "/apart"
                                                : s < -tol_d ? "/overlap"
                                                             : "/touch")];
      if (c.ref.overlap && s < -tol_d && !c.ref.unique_normal) ++not_unique;
      // The generator's promises, checked against the reference.
      switch (kind) {
        case PairClass::Distant:
          EXPECT_GE(s, c.pair.gap * (1 - 1e-9) - tol_d) << c.pair.describe();
          break;
        case PairClass::Touching:
          EXPECT_NEAR(s, c.pair.gap, tol_d) << c.pair.describe();
          break;
        case PairClass::Overlapping:
          EXPECT_LT(s, 0.0) << c.pair.describe();
          break;
      }
      for (SolverStats& st : stats) {
        const auto t0 = Clock::now();
        run_solver(c, st, reported);
        st.seconds += seconds_since(t0);
      }
    }
  }

  std::printf("[random-pairs] %d pairs (seed 0x%llx), reference %.2f s; by class:",
              3 * kPairsPerClass, static_cast<unsigned long long>(kSeed), reference_seconds);
  for (const auto& [name, count] : classes) std::printf(" %s %d", name.c_str(), count);
  std::printf("; overlaps without a unique minimum facet: %d\n", not_unique);
  for (const SolverStats& st : stats) {
    std::printf(
        "[random-pairs] %-13s pairs %d  max distance error %.3g  max depth error %.3g  failures %d "
        " "
        "time %.2f s\n",
        gjk::to_string(st.solver), st.pairs, st.max_distance_error, st.max_depth_error, st.failures,
        st.seconds);
    std::printf(
        "[random-pairs] %-13s witness-surface %.3g  closest-point %.3g  EPA witness-surface %.3g  "
        "|h(n)-depth| %.3g  normal %.3g\n",
        gjk::to_string(st.solver), st.max_witness_surface, st.max_closest_point_error,
        st.max_epa_witness_surface, st.max_support_gap, st.max_normal_error);
    for (const auto& [name, count] : st.statuses) {
      std::printf("[random-pairs] %-13s non-Converged status %s: %d\n", gjk::to_string(st.solver),
                  name.c_str(), count);
    }
    for (const auto& [name, count] : st.failed_checks) {
      std::printf("[random-pairs] %-13s failed check '%s': %d\n", gjk::to_string(st.solver),
                  name.c_str(), count);
    }
    EXPECT_EQ(st.failures, 0) << gjk::to_string(st.solver);
    EXPECT_TRUE(st.statuses.empty()) << gjk::to_string(st.solver);
  }
}

}  // namespace
