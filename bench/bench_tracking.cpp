// 3D tracking: seed 004 section 4 (Figs. 4-5) and seed 002 Table 3. Sequences of 20 poses of a
// moving body B near a static body A (hulls of 10..500 points on the unit sphere), small
// constant-velocity translations and rotations up to 6 (Far) or 12 (Near, Drift, Deep) degrees per
// step; Drift slides into overlap and Deep starts in it (the penetration rows, seed 004 section 5).
// Every query is timed in sequence order, one TrackCache per sequence.
#include "datasets_bench.hpp"
#include "peers.hpp"
#include "reference.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

namespace bench {
namespace {

namespace gt = gjk::testing;

struct DataTrack {
  int n = 0;
  gt::TrackingClass kind = gt::TrackingClass::Far;
  int steps = 0;
  std::vector<std::unique_ptr<Body3>> bodies;
  std::vector<Pair3> pairs;  ///< sequence after sequence, `steps` pairs each
};

std::unique_ptr<DataTrack> build_tracking(int n, gt::TrackingClass kind) {
  auto d = std::make_unique<DataTrack>();
  d->n = n;
  d->kind = kind;
  d->steps = config().steps;
  for (int i = 0; i < config().sequences; ++i) {
    const gt::TrackingSequence s =
        gt::make_tracking_sequence(kSeedTracking, static_cast<std::uint64_t>(i), n, kind, d->steps);
    d->bodies.push_back(make_body3(s.points_a));
    const Body3& a = *d->bodies.back();
    d->bodies.push_back(make_body3(s.points_b));
    const Body3& b = *d->bodies.back();
    for (int step = 0; step < d->steps; ++step) {
      Pair3 p = make_pair3(a, s.pose_a, b, s.poses_b[static_cast<std::size_t>(step)]);
      p.seed = kSeedTracking;
      p.index = s.index;
      p.size = n;
      p.step = step;
      p.kind = static_cast<int>(kind);
      d->pairs.push_back(std::move(p));
    }
  }
  return d;
}

const DataTrack& data_tracking(int n, gt::TrackingClass kind) {
  static std::unique_ptr<DataTrack> cache;
  if (!cache || cache->n != n || cache->kind != kind) {
    cache.reset();
    cache = build_tracking(n, kind);
  }
  return *cache;
}

/// A tracking row: either a cold engine (called as in the static benchmark) or a warm one,
/// handed the sequence's TrackCache.
struct EngineTrack {
  std::string name;
  Query query;
  Fn3 cold;      ///< or nullptr
  FnTrack warm;  ///< or nullptr
  double tolerance;
};

// libgjk warm-started (seed 004 section 4): the sequence's cache carries the last simplex and
// the support hints from step to step.
template <gjk::SupportMethod M>
double gjk_distance_warm(const Pair3& p, TrackCache& c) {
  static const gjk::QueryOptions o = [] {
    gjk::QueryOptions options;
    options.support = M;
    return options;
  }();
  return gjk::distance(p.a->shape, p.pose_a, p.b->shape, p.pose_b, o, c.gjk).distance;
}

double gjk_collide_warm(const Pair3& p, TrackCache& c) {
  return gjk::collide(p.a->shape, p.pose_a, p.b->shape, p.pose_b, {}, c.gjk).collision ? 1.0 : 0.0;
}

// Penetration tracking (seed 004 section 5): the cache also carries the last EPA polytope.
double gjk_penetration_warm(const Pair3& p, TrackCache& c) {
  return gjk::penetration(p.a->shape, p.pose_a, p.b->shape, p.pose_b, {}, c.gjk).depth;
}

const std::vector<EngineTrack>& tracking_engines() {
  static const std::vector<EngineTrack> rows = [] {
    // Cold rows, taken from the static table by (query, name), in this order.
    static const std::pair<Query, const char*> kColdRows[] = {
        {Query::Distance, "libgjk-sv"},
        {Query::Distance, "libgjk-sv-bf"},
        {Query::Distance, "libgjk-sv-hc"},
        {Query::Distance, "libgjk-johnson-bf"},
        {Query::Distance, "libgjk-johnson-hc"},
        {Query::Distance, "libgjk-refine-bf"},
        {Query::Distance, "libgjk-refine-hc"},
        {Query::Distance, "fcl-ccd"},
        {Query::Distance, "fcl-indep"},
        {Query::Distance, "bullet-gjkepa2"},
        {Query::Distance, "bullet-pairdetector"},
        {Query::Collide, "libgjk"},
        {Query::Collide, "fcl-ccd"},
        {Query::Collide, "ccd-gjk"},
        {Query::Collide, "ccd-mpr"},
        {Query::Penetration, "libgjk"},
        {Query::Penetration, "bullet-epa"},
    };
    std::vector<EngineTrack> r;
    for (const auto& [query, name] : kColdRows) {
      for (const Engine3& e : engines3()) {
        if (e.query == query && std::strcmp(e.name, name) == 0)
          r.push_back({e.name, e.query, e.fn, nullptr, e.tolerance});
      }
    }
    using M = gjk::SupportMethod;
    r.push_back({"libgjk-sv-bf-warm", Query::Distance, nullptr, gjk_distance_warm<M::BruteForce>,
                 kLibgjkTolerance});
    r.push_back({"libgjk-sv-hc-warm", Query::Distance, nullptr, gjk_distance_warm<M::HillClimbing>,
                 kLibgjkTolerance});
    r.push_back({"libgjk-warm", Query::Collide, nullptr, gjk_collide_warm, 0.0});
    r.push_back(
        {"libgjk-warm", Query::Penetration, nullptr, gjk_penetration_warm, kLibgjkTolerance});
    return r;
  }();
  return rows;
}

const gt::TrackingClass kClasses[] = {gt::TrackingClass::Far, gt::TrackingClass::Near,
                                      gt::TrackingClass::Drift, gt::TrackingClass::Deep};

// Penetration rows run where the bodies overlap (Drift's later steps, Deep), the others where
// they do not only overlap (Far, Near, Drift).
bool row_applies(const EngineTrack& e, gt::TrackingClass kind) {
  return e.query == Query::Penetration
             ? kind == gt::TrackingClass::Drift || kind == gt::TrackingClass::Deep
             : kind != gt::TrackingClass::Deep;
}

void run_cold(benchmark::State& state, int n, gt::TrackingClass kind, Fn3 fn) {
  time_pairs(state, data_tracking(n, kind).pairs, fn);
}

// One pass of a warm engine: sequences in order; the cache is reset at the first step of each.
double warm_pass(const DataTrack& d, FnTrack fn) {
  double sum = 0.0;
  TrackCache cache{};
  for (std::size_t i = 0; i < d.pairs.size(); ++i) {
    if (i % static_cast<std::size_t>(d.steps) == 0) cache.gjk.reset();  // keeps its storage
    cache.step = d.pairs[i].step;
    sum += fn(d.pairs[i], cache);
  }
  return sum;
}

void run_warm(benchmark::State& state, int n, gt::TrackingClass kind, FnTrack fn) {
  const DataTrack& d = data_tracking(n, kind);
  double sink = 0.0;
  for (auto _ : state) {
    sink += warm_pass(d, fn);
    benchmark::DoNotOptimize(sink);
  }
  set_per_query_counters(state, d.pairs.size());
}

}  // namespace

void register_tracking() {
  for (const int n : sizes_tracking()) {
    for (const gt::TrackingClass kind : kClasses) {
      for (const EngineTrack& e : tracking_engines()) {
        if (!row_applies(e, kind)) continue;
        const std::string name = std::string("track/") + to_string(e.query) + "/" +
                                 gt::to_string(kind) + "/" + std::to_string(n) + "/" + e.name;
        benchmark::internal::Benchmark* b;
        if (e.warm != nullptr) {
          const FnTrack fn = e.warm;
          b = benchmark::RegisterBenchmark(name.c_str(),
                                           [=](benchmark::State& s) { run_warm(s, n, kind, fn); });
        } else {
          const Fn3 fn = e.cold;
          b = benchmark::RegisterBenchmark(name.c_str(),
                                           [=](benchmark::State& s) { run_cold(s, n, kind, fn); });
        }
        b->Unit(benchmark::kMicrosecond);
      }
      for (const Query q : {Query::Distance, Query::Collide, Query::Penetration}) {
        std::vector<const EngineTrack*> cell;
        for (const EngineTrack& e : tracking_engines())
          if (e.query == q && row_applies(e, kind)) cell.push_back(&e);
        if (cell.empty()) continue;
        const std::string name = std::string("sbs/track/") + to_string(q) + "/" +
                                 gt::to_string(kind) + "/" + std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
          const DataTrack& d = data_tracking(n, kind);
          std::vector<std::pair<std::string, Pass>> passes;
          for (const EngineTrack* e : cell) {
            passes.emplace_back(e->name, e->warm != nullptr
                                             ? Pass([&d, fn = e->warm] { return warm_pass(d, fn); })
                                             : pass_over(d.pairs, e->cold));
          }
          time_side_by_side(s, d.pairs.size(), passes);
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

void check_tracking() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const int n : sizes_tracking()) {
    for (const gt::TrackingClass kind : kClasses) {
      const DataTrack& d = data_tracking(n, kind);
      const char* cls = gt::to_string(kind);
      std::vector<double> ref_distance, ref_collide, ref_depth, signed_distance, exact, exact_depth;
      for (const Pair3& p : d.pairs) {
        // The reference oracle (qhull of A - B) on the first two sequences of hulls up to 200
        // points (its cost grows with N^2): the exact distance, 0 when they overlap.
        if (p.index < 2 && n <= 200) {
          std::vector<Vec3> wa, wb;
          for (const Vec3& v : p.a->polytope().vertices()) wa.push_back(p.pose_a * v);
          for (const Vec3& v : p.b->polytope().vertices()) wb.push_back(p.pose_b * v);
          const gt::ReferenceResult r = gt::reference_query(wa, wb);
          exact.push_back(r.overlap ? 0.0 : r.distance);
          exact_depth.push_back(r.overlap ? r.depth : 0.0);
        } else {
          exact.push_back(nan);
          exact_depth.push_back(nan);
        }
        ref_distance.push_back(gjk_distance_sv(p));
        ref_collide.push_back(gjk_collide(p));
        ref_depth.push_back(gjk_penetration(p));
        signed_distance.push_back(ref_distance.back() > 0.0 ? ref_distance.back()
                                                            : -ref_depth.back());
      }
      for (const EngineTrack& e : tracking_engines()) {
        if (!row_applies(e, kind)) continue;
        AgreementBuilder b("3D tracking", e.query, cls, n, e.name, e.tolerance);
        TrackCache cache{};
        for (std::size_t i = 0; i < d.pairs.size(); ++i) {
          const Pair3& p = d.pairs[i];
          if (i % static_cast<std::size_t>(d.steps) == 0) cache = TrackCache{};
          cache.step = p.step;
          const double answer = e.warm != nullptr ? e.warm(p, cache) : e.cold(p);
          const bool distance = e.query == Query::Distance;
          const bool depth = e.query == Query::Penetration;
          const double exact_answer = depth ? exact_depth[i]
                                      : distance || std::isnan(exact[i])
                                          ? exact[i]
                                          : (exact[i] > 1e-6 ? 0.0 : 1.0);
          b.add(answer,
                depth      ? ref_depth[i]
                : distance ? ref_distance[i]
                           : ref_collide[i],
                exact_answer, signed_distance[i], [&] {
                  return "make_tracking_sequence(0x" + hex(p.seed) + ", " +
                         std::to_string(p.index) + ", " + std::to_string(n) + ", " + cls +
                         ") step " + std::to_string(p.step);
                });
        }
        agreement_results().push_back(b.result());
      }
    }
  }
}

}  // namespace bench
