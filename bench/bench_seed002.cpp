// Seed 002's own comparisons, in its settings (section 4.4, Tables 2 and 3), for its four
// algorithms and for libgjk's default:
//  - Table 2, static: two polytopes of N1 / N2 random points on the unit sphere (Fig. 11), their
//    unit balls 5 sqrt(3) apart (the distance the paper gives for Table 3), random orientations;
//    N1 / N2 = 8/8, 10/20, ..., 250/300 as in the paper.
//  - Table 3, tracking: A static; B moves along 10 poses, each a translation by 1 unit along a
//    random direction and a turn of 10 degrees about a random axis (Fig. 13); N1 / N2 = 10/20 ..
//    200/240.
// The algorithms, as QueryOptions (every one exact; the agreement check compares them):
//  - original: GJK of Fig. 1 (Johnson's sub-algorithm, every vertex scanned);
//  - ours: the published refine_set (SimplexSolver::RefineSetFixed, Figs. 3 and 7), scanned;
//  - cameron: Johnson with hill climbing on the vertex adjacency (section 4.1);
//  - ours+cameron: RefineSetFixed with hill climbing;
//  - enhanced (Table 3 only): ours+cameron with the pair's last simplex and support vertices
//    cached from step to step (section 4.3; a gjk::WarmStart);
//  - libgjk: the defaults (signed volumes, SupportMethod::Auto), cold; and libgjk-warm with the
//    cache (Table 3).
// Besides the time per query each row reports `iterations`, the mean GJK iterations.
#include "bench.hpp"
#include "datasets.hpp"
#include "reference.hpp"

#include <gjk/gjk.hpp>

#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bench {
namespace {

namespace gt = gjk::testing;
using gjk::Pose;
using gjk::Vec3;

constexpr std::uint64_t kSeedSeed002 = 0x5EED0020;
const std::vector<std::pair<int, int>> kTable2Sizes = {
    {8, 8},   {10, 20},   {20, 30},   {30, 40},   {40, 50},
    {50, 60}, {100, 120}, {150, 180}, {200, 240}, {250, 300}};
const std::vector<std::pair<int, int>> kTable3Sizes = {
    {10, 20}, {20, 30}, {30, 40}, {40, 50}, {50, 60}, {100, 120}, {150, 180}, {200, 240}};
constexpr int kTable3Steps = 10;
constexpr double kTable3Turn = 10.0 * 3.14159265358979323846 / 180.0;

struct Variant {
  const char* name;
  gjk::SimplexSolver solver;
  gjk::SupportMethod support;
  bool warm;
};
const Variant kVariants[] = {
    {"original", gjk::SimplexSolver::Johnson, gjk::SupportMethod::BruteForce, false},
    {"ours", gjk::SimplexSolver::RefineSetFixed, gjk::SupportMethod::BruteForce, false},
    {"cameron", gjk::SimplexSolver::Johnson, gjk::SupportMethod::HillClimbing, false},
    {"ours+cameron", gjk::SimplexSolver::RefineSetFixed, gjk::SupportMethod::HillClimbing, false},
    {"enhanced", gjk::SimplexSolver::RefineSetFixed, gjk::SupportMethod::HillClimbing, true},
    {"libgjk", gjk::SimplexSolver::SignedVolumes, gjk::SupportMethod::Auto, false},
    {"libgjk-warm", gjk::SimplexSolver::SignedVolumes, gjk::SupportMethod::Auto, true},
};

gjk::QueryOptions options_of(const Variant& v) {
  gjk::QueryOptions o;
  o.solver = v.solver;
  o.support = v.support;
  return o;
}

/// One data set: bodies, and sequences of poses of B (length 1 for Table 2).
struct Data {
  int n1 = 0, n2 = 0;
  bool tracking = false;
  std::vector<gjk::Shape> a, b;  // one pair of bodies per sequence
  std::vector<Pose> pose_a;
  std::vector<std::vector<Pose>> poses_b;
  std::vector<std::vector<Vec3>> points_a, points_b;  // local, for the reference
  std::size_t queries() const { return poses_b.size() * poses_b.front().size(); }
};

std::unique_ptr<Data> build(int n1, int n2, bool tracking) {
  auto d = std::make_unique<Data>();
  d->n1 = n1;
  d->n2 = n2;
  d->tracking = tracking;
  // Table 2: config().pairs_3d pairs; Table 3: pairs_3d / 10 sequences of 10 steps (the same
  // number of queries).
  const int count = tracking ? std::max(1, config().pairs_3d / kTable3Steps) : config().pairs_3d;
  const double apart = 5.0 * std::sqrt(3.0);
  for (int i = 0; i < count; ++i) {
    gt::Rng rng(gt::mix_seed(kSeedSeed002, static_cast<std::uint64_t>(i) * 1024 +
                                               static_cast<std::uint64_t>(n1) * 2 +
                                               (tracking ? 1 : 0)));
    d->points_a.push_back(gt::sphere_polytope_points(rng, n1));
    d->points_b.push_back(gt::sphere_polytope_points(rng, n2));
    d->a.emplace_back(gjk::ConvexPolytope::from_points(d->points_a.back()));
    d->b.emplace_back(gjk::ConvexPolytope::from_points(d->points_b.back()));
    Pose pa = Pose::Identity();
    pa.linear() = rng.rotation();
    d->pose_a.push_back(pa);
    Pose pb = Pose::Identity();
    pb.linear() = rng.rotation();
    pb.translation() = apart * rng.unit_vector();
    std::vector<Pose> seq{pb};
    if (tracking) {
      for (int s = 1; s < kTable3Steps; ++s) {
        // Fig. 13: a step of 1 unit along a random direction, a 10-degree turn about the body's
        // centre around a random axis.
        pb.translation() += rng.unit_vector();
        pb.linear() =
            Eigen::AngleAxisd(kTable3Turn, rng.unit_vector()).toRotationMatrix() * pb.linear();
        seq.push_back(pb);
      }
    }
    d->poses_b.push_back(std::move(seq));
  }
  return d;
}

const Data& data(int n1, int n2, bool tracking) {
  static std::unique_ptr<Data> cache;
  if (!cache || cache->n1 != n1 || cache->n2 != n2 || cache->tracking != tracking) {
    cache.reset();
    cache = build(n1, n2, tracking);
  }
  return *cache;
}

/// Runs the whole data set once through `variant`; returns the sum of distances and adds the
/// iterations. Each sequence starts from a cleared cache (warm variants).
template <class Visit>
void run_all(const Data& d, const Variant& variant, Visit&& visit) {
  const gjk::QueryOptions options = options_of(variant);
  gjk::WarmStart cache;
  for (std::size_t i = 0; i < d.poses_b.size(); ++i) {
    cache.reset();
    for (const Pose& pb : d.poses_b[i]) {
      const gjk::DistanceResult r =
          variant.warm ? gjk::distance(d.a[i], d.pose_a[i], d.b[i], pb, options, cache)
                       : gjk::distance(d.a[i], d.pose_a[i], d.b[i], pb, options);
      visit(i, pb, r);
    }
  }
}

void run(benchmark::State& state, int n1, int n2, bool tracking, const Variant& variant) {
  const Data& d = data(n1, n2, tracking);
  long iterations = 0;
  run_all(d, variant, [&](std::size_t, const Pose&, const gjk::DistanceResult& r) {
    iterations += r.iterations;
  });
  double sink = 0.0;
  for (auto _ : state) {
    run_all(d, variant,
            [&](std::size_t, const Pose&, const gjk::DistanceResult& r) { sink += r.distance; });
    benchmark::DoNotOptimize(sink);
  }
  set_per_query_counters(state, d.queries());
  state.counters["iterations"] = static_cast<double>(iterations) / static_cast<double>(d.queries());
}

std::string size_name(int n1, int n2) {
  return std::to_string(n1) + "x" + std::to_string(n2);
}

}  // namespace

void register_seed002() {
  for (const bool tracking : {false, true}) {
    for (const auto& [n1, n2] : tracking ? kTable3Sizes : kTable2Sizes) {
      for (const Variant& v : kVariants) {
        if (v.warm && !tracking) continue;
        const std::string name = std::string("seed002/") + (tracking ? "table3/" : "table2/") +
                                 size_name(n1, n2) + "/" + v.name;
        const int a = n1, b = n2;
        const Variant* variant = &v;
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
          run(s, a, b, tracking, *variant);
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

void check_seed002() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const bool tracking : {false, true}) {
    for (const auto& [n1, n2] : tracking ? kTable3Sizes : kTable2Sizes) {
      const Data& d = data(n1, n2, tracking);
      // The exact distance (reference oracle: qhull of A - B) on the first 20 queries; libgjk's
      // default, cold, is the reference for all of them.
      std::vector<double> exact, reference;
      for (std::size_t i = 0; i < d.poses_b.size(); ++i) {
        for (const Pose& pb : d.poses_b[i]) {
          exact.push_back(exact.size() < 20 ? gt::reference_query(
                                                  gt::transform_points(d.pose_a[i], d.points_a[i]),
                                                  gt::transform_points(pb, d.points_b[i]))
                                                  .distance
                                            : nan);
          reference.push_back(gjk::distance(d.a[i], d.pose_a[i], d.b[i], pb).distance);
        }
      }
      for (const Variant& v : kVariants) {
        if (v.warm && !tracking) continue;
        AgreementBuilder b(tracking ? "seed 002 Table 3" : "seed 002 Table 2", Query::Distance,
                           "Apart", n1, std::string(v.name) + " (" + size_name(n1, n2) + ")", 1e-9);
        std::size_t k = 0;
        run_all(d, v, [&](std::size_t i, const Pose&, const gjk::DistanceResult& r) {
          b.add(r.distance, reference[k], exact[k], reference[k],
                [&] { return "sequence " + std::to_string(i) + " of " + size_name(n1, n2); });
          ++k;
        });
        agreement_results().push_back(b.result());
      }
    }
  }
}

}  // namespace bench
