// Random polytope pairs against independent exact references (support/reference.hpp), through
// every sub-distance solver. The reference of a pair is computed once and reused for the three
// solvers. Prints one summary line per solver (pairs, max errors, failures, runtime).
//
// Two references, neither sharing code with the engine: the qhull one (explicit Minkowski
// difference) and the feature one (vertex-facet / edge-edge pairs and separating axes, hulls by
// brute force, no qhull). By default every pair gets the qhull reference and, when both bodies
// have at most kFeatureMaxPoints points, the feature reference as well, and the two must agree;
// GJK_RANDOM_REFERENCE=features checks against the feature reference alone (qhull only for pairs
// with a larger body), which is what makes 10 million pairs affordable.
//
// Reproduce a single failing pair with gjk::testing::make_pair(kSeed, index, class): the failure
// messages name the class and index.
//
// Long runs (docs/reliability.md): GJK_RANDOM_PAIRS_PER_CLASS, GJK_RANDOM_SEED and
// GJK_RANDOM_MAX_POINTS override the count, the seed and the largest hull size;
// GJK_RANDOM_REFERENCE (both | features | qhull) the reference; GJK_RANDOM_THREADS the number of
// worker threads (pair indices are split into contiguous blocks; results do not depend on it).
// E.g. 3,333,334 pairs per class of 4-16 points for 10 million.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "gjk/gjk.hpp"
#include "reference.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
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
  ReferenceHull hull_a, hull_b;  // for the witness checks: qhull's, or brute force's
  ReferenceResult ref;           // the reference the solvers are checked against
  bool has_feature_ref = false;  // "both" mode, small bodies: the feature reference as well
  ReferenceResult feature_ref;
  bool feature_only = false;  // ref is the feature reference (no qhull involved)
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

// Failure messages of one worker; the first few are reported in full through gtest at the end.
struct Messages {
  std::vector<std::string> first;
  int total = 0;
  void add(std::string message) {
    ++total;
    if (first.size() < 30) first.push_back(std::move(message));
  }
};

// Collects the failures of one pair.
class Checker {
 public:
  Checker(SolverStats& stats, const Case& c, Messages& messages)
      : stats_(stats), case_(c), messages_(messages) {}

  void check(bool ok, const char* name, const std::string& detail = {}) {
    if (ok) return;
    failed_ = true;
    ++stats_.failed_checks[name];
    std::ostringstream s;
    s << gjk::to_string(stats_.solver) << ": " << name << " failed on " << case_.pair.describe()
      << " (reference signed distance " << case_.ref.signed_distance << ")"
      << (detail.empty() ? "" : ": ") << detail;
    messages_.add(s.str());
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
  Messages& messages_;
  bool failed_ = false;
};

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

void run_solver(const Case& c, SolverStats& stats, Messages& messages) {
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
  Checker check(stats, c, messages);
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

enum class ReferenceMode { Both, Features, Qhull };

ReferenceMode reference_mode() {
  const char* v = std::getenv("GJK_RANDOM_REFERENCE");
  const std::string mode = v ? v : "both";
  if (mode == "both" || mode.empty()) return ReferenceMode::Both;
  if (mode == "features") return ReferenceMode::Features;
  if (mode == "qhull") return ReferenceMode::Qhull;
  throw std::invalid_argument("GJK_RANDOM_REFERENCE: expected both, features or qhull, got '" +
                              mode + "'");
}

// Largest body the brute-force hull (O(n^4)) and the feature reference take.
constexpr size_t kFeatureMaxPoints = 32;

Case make_case(std::uint64_t index, PairClass kind, ReferenceMode mode) {
  Case c;
  PairOptions options;
  options.max_points = std::max(options.min_points, kMaxPoints);
  c.pair = make_pair(kSeed, index, kind, options);
  c.shape_a = gjk::ConvexPolytope::from_points(c.pair.points_a);
  c.shape_b = gjk::ConvexPolytope::from_points(c.pair.points_b);
  c.world_a = c.pair.world_a();
  c.world_b = c.pair.world_b();
  const bool small = c.world_a.size() <= kFeatureMaxPoints && c.world_b.size() <= kFeatureMaxPoints;
  if (mode == ReferenceMode::Features && small) {
    c.hull_a = ReferenceHull::build_brute_force(c.world_a);
    c.hull_b = ReferenceHull::build_brute_force(c.world_b);
    c.ref = feature_reference_query(c.hull_a, c.hull_b);
    c.feature_only = true;
    return c;
  }
  c.hull_a = ReferenceHull::build(c.world_a);
  c.hull_b = ReferenceHull::build(c.world_b);
  c.ref = reference_query(c.hull_a, c.hull_b);
  if (mode == ReferenceMode::Both && small) {
    c.feature_ref = feature_reference_query(ReferenceHull::build_brute_force(c.world_a),
                                            ReferenceHull::build_brute_force(c.world_b));
    c.has_feature_ref = true;
  }
  return c;
}

// Everything one worker measures, merged at the end.
struct RunStats {
  std::vector<SolverStats> solvers;
  std::map<std::string, int> classes;  // reference classification per generated class
  int not_unique = 0;
  double reference_seconds = 0.0;
  int feature_only = 0;                     // pairs checked against the feature reference alone
  int cross_checked = 0;                    // pairs with both references
  double max_reference_disagreement = 0.0;  // |signed distance (qhull) - (features)|
  Messages messages;

  RunStats() {
    for (SimplexSolver solver : gjk::testing::kSolvers) {
      solvers.emplace_back();
      solvers.back().solver = solver;
    }
  }

  void merge(const RunStats& o) {
    for (size_t k = 0; k < solvers.size(); ++k) {
      SolverStats& s = solvers[k];
      const SolverStats& t = o.solvers[k];
      s.pairs += t.pairs;
      s.failures += t.failures;
      s.max_distance_error = std::max(s.max_distance_error, t.max_distance_error);
      s.max_depth_error = std::max(s.max_depth_error, t.max_depth_error);
      s.max_witness_surface = std::max(s.max_witness_surface, t.max_witness_surface);
      s.max_closest_point_error = std::max(s.max_closest_point_error, t.max_closest_point_error);
      s.max_epa_witness_surface = std::max(s.max_epa_witness_surface, t.max_epa_witness_surface);
      s.max_support_gap = std::max(s.max_support_gap, t.max_support_gap);
      s.max_normal_error = std::max(s.max_normal_error, t.max_normal_error);
      for (const auto& [name, count] : t.statuses) s.statuses[name] += count;
      for (const auto& [name, count] : t.failed_checks) s.failed_checks[name] += count;
      s.seconds += t.seconds;
    }
    for (const auto& [name, count] : o.classes) classes[name] += count;
    not_unique += o.not_unique;
    reference_seconds += o.reference_seconds;
    feature_only += o.feature_only;
    cross_checked += o.cross_checked;
    max_reference_disagreement = std::max(max_reference_disagreement, o.max_reference_disagreement);
    for (const std::string& m : o.messages.first) messages.add(m);
    messages.total += o.messages.total - static_cast<int>(o.messages.first.size());
  }
};

// Pairs [begin, end) of every class.
void run_block(int begin, int end, ReferenceMode mode, RunStats& run,
               std::atomic<long long>& done) {
  for (int i = begin; i < end; ++i) {
    for (PairClass kind : {PairClass::Distant, PairClass::Touching, PairClass::Overlapping}) {
      const auto start = Clock::now();
      const Case c = make_case(static_cast<std::uint64_t>(i), kind, mode);
      run.reference_seconds += seconds_since(start);
      const double s = c.ref.signed_distance, tol_d = kDistanceTolerance * c.ref.scale;
      ++run.classes[std::string(to_string(kind)) + (s > tol_d    ? "/apart"
                                                    : s < -tol_d ? "/overlap"
                                                                 : "/touch")];
      if (c.ref.overlap && s < -tol_d && !c.ref.unique_normal) ++run.not_unique;
      if (c.feature_only) ++run.feature_only;
      // The two references agree: exactly (rounding) on distances, to the depth tolerance's
      // rounding share on depths (facet normals are computed differently).
      if (c.has_feature_ref) {
        ++run.cross_checked;
        const double disagreement = std::abs(c.feature_ref.signed_distance - s);
        run.max_reference_disagreement = std::max(run.max_reference_disagreement, disagreement);
        if (!(disagreement <= kRoundingTolerance * c.ref.scale)) {
          run.messages.add("references disagree on " + c.pair.describe() + ": qhull " + fmt(s) +
                           ", features " + fmt(c.feature_ref.signed_distance));
        }
      }
      // The generator's promises, checked against the reference.
      bool promise_kept = true;
      switch (kind) {
        case PairClass::Distant:
          promise_kept = s >= c.pair.gap * (1 - 1e-9) - tol_d;
          break;
        case PairClass::Touching:
          promise_kept = std::abs(s - c.pair.gap) <= tol_d;
          break;
        case PairClass::Overlapping:
          promise_kept = s < 0.0;
          break;
      }
      if (!promise_kept) {
        run.messages.add("generator: " + c.pair.describe() + " has reference signed distance " +
                         fmt(s));
      }
      for (SolverStats& st : run.solvers) {
        const auto t0 = Clock::now();
        run_solver(c, st, run.messages);
        st.seconds += seconds_since(t0);
      }
    }
    ++done;
  }
}

TEST(RandomPairs, EverySolverMatchesTheExactReference) {
  const ReferenceMode mode = reference_mode();
  const int threads = std::max(1, static_cast<int>(env_or("GJK_RANDOM_THREADS", 1)));
  std::vector<RunStats> runs(static_cast<size_t>(threads));
  std::atomic<long long> done{0};
  const auto start = Clock::now();
  {
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      const int begin = static_cast<int>(static_cast<long long>(kPairsPerClass) * t / threads);
      const int end = static_cast<int>(static_cast<long long>(kPairsPerClass) * (t + 1) / threads);
      workers.emplace_back(run_block, begin, end, mode, std::ref(runs[static_cast<size_t>(t)]),
                           std::ref(done));
    }
    // Progress for long runs (a line every 10% on stderr), not for the ctest-sized one.
    if (kPairsPerClass >= 100000) {
      long long next = kPairsPerClass / 10;
      while (done.load() < kPairsPerClass) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (done.load() >= next) {
          std::fprintf(stderr, "[random-pairs] %lld / %d pairs per class, %.0f s\n", done.load(),
                       kPairsPerClass, seconds_since(start));
          next += kPairsPerClass / 10;
        }
      }
    }
    for (std::thread& w : workers) w.join();
  }
  RunStats run;
  for (const RunStats& r : runs) run.merge(r);
  for (const std::string& m : run.messages.first) ADD_FAILURE() << m;
  EXPECT_EQ(run.messages.total, 0) << "failure messages (the first 30 are above)";

  std::printf(
      "[random-pairs] %d pairs (seed 0x%llx), %d threads, %.1f s wall, reference %.2f s CPU; "
      "by class:",
      3 * kPairsPerClass, static_cast<unsigned long long>(kSeed), threads, seconds_since(start),
      run.reference_seconds);
  for (const auto& [name, count] : run.classes) std::printf(" %s %d", name.c_str(), count);
  std::printf("; overlaps without a unique minimum facet: %d\n", run.not_unique);
  std::printf(
      "[random-pairs] references: %d pairs against the feature reference alone, %d against both "
      "(largest disagreement %.3g), %d against qhull alone\n",
      run.feature_only, run.cross_checked, run.max_reference_disagreement,
      3 * kPairsPerClass - run.feature_only - run.cross_checked);
  for (const SolverStats& st : run.solvers) {
    std::printf(
        "[random-pairs] %-13s pairs %d  max distance error %.3g  max depth error %.3g  failures %d "
        " time %.2f s\n",
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
