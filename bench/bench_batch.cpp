// Batch throughput (issue 18 item 5): gjk::distance_batch on 1 and 2 threads against a loop of
// single gjk::distance calls, on the same pairs, results stored in both. The pairs are those of
// the 3D static rows (seed 002 Table 2 setting: sphere polytopes, distant pairs of a given size),
// repeated to 10,000 queries per iteration so a thread's share is large against its start-up.
#include "bench.hpp"
#include "datasets_bench.hpp"

#include "gjk/batch.hpp"
#include "gjk/gjk.hpp"

#include <memory>
#include <string>
#include <vector>

namespace bench {
namespace {

namespace gt = gjk::testing;

constexpr int kQueries = 10000;

struct BatchData {
  int n = 0;
  std::vector<std::unique_ptr<gjk::Shape>> shapes;
  std::vector<gjk::PairQuery> queries;
};

const BatchData& batch_data(int n) {
  static std::unique_ptr<BatchData> cache;
  if (!cache || cache->n != n) {
    auto d = std::make_unique<BatchData>();
    d->n = n;
    const int distinct = std::min(config().pairs_3d, kQueries);
    std::vector<gjk::PairQuery> pairs;
    for (int i = 0; i < distinct; ++i) {
      const gt::PolytopePair s =
          gt::make_sphere_pair(kSeed3d, static_cast<std::uint64_t>(i), n, gt::PairClass::Distant);
      d->shapes.push_back(
          std::make_unique<gjk::Shape>(gjk::ConvexPolytope::from_points(s.points_a)));
      const gjk::Shape* a = d->shapes.back().get();
      d->shapes.push_back(
          std::make_unique<gjk::Shape>(gjk::ConvexPolytope::from_points(s.points_b)));
      pairs.push_back(gjk::PairQuery{a, s.pose_a, d->shapes.back().get(), s.pose_b});
    }
    for (int i = 0; i < kQueries; ++i)
      d->queries.push_back(pairs[static_cast<size_t>(i) % pairs.size()]);
    cache = std::move(d);
  }
  return *cache;
}

}  // namespace

void register_batch() {
  for (const int n : {8, 32, 512}) {
    const std::string prefix = "batch/distance/" + std::to_string(n) + "/";
    benchmark::RegisterBenchmark((prefix + "loop").c_str(), [n](benchmark::State& state) {
      const BatchData& d = batch_data(n);
      std::vector<gjk::DistanceResult> out(d.queries.size());
      const gjk::QueryOptions options;
      for (auto _ : state) {
        for (size_t i = 0; i < d.queries.size(); ++i) {
          const gjk::PairQuery& q = d.queries[i];
          out[i] = gjk::distance(*q.a, q.pose_a, *q.b, q.pose_b, options);
        }
        benchmark::DoNotOptimize(out.data());
      }
      set_per_query_counters(state, d.queries.size());
    });
    for (const unsigned threads : {1u, 2u}) {
      benchmark::RegisterBenchmark((prefix + "batch/threads:" + std::to_string(threads)).c_str(),
                                   [n, threads](benchmark::State& state) {
                                     const BatchData& d = batch_data(n);
                                     for (auto _ : state) {
                                       std::vector<gjk::DistanceResult> out =
                                           gjk::distance_batch(d.queries, {}, threads);
                                       benchmark::DoNotOptimize(out.data());
                                     }
                                     set_per_query_counters(state, d.queries.size());
                                   })
          // The batch's own threads do the work: wall time is what a caller waits for.
          ->UseRealTime();
    }
  }
}

}  // namespace bench
