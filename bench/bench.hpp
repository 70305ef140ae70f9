// Shared pieces of gjk_bench: configuration, the per-query counter, and the agreement table.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace bench {

/// Data set sizes (main() shrinks them for --quick) and fixed seeds.
struct Config {
  int pairs_2d = 1000;   ///< per (vertex count, class): seed 001's 1000 cases per type
  int pairs_3d = 1000;   ///< per (point count, class)
  int sequences = 50;    ///< tracking sequences per (hull size, class)
  int steps = 20;        ///< poses per tracking sequence (seed 004's sequence length)
  bool verbose = false;  ///< --check: one line per data set, not only the summary
};
Config& config();

constexpr std::uint64_t kSeed2d = 0x5EED001;
constexpr std::uint64_t kSeed3d = 0x5EED002;
constexpr std::uint64_t kSeedTracking = 0x5EED004;

inline const std::vector<int>& sizes_2d() {
  static const std::vector<int> s{4, 8, 12, 16, 20, 24};
  return s;
}
inline const std::vector<int>& sizes_3d() {
  static const std::vector<int> s{8, 16, 32, 64, 128, 256, 512};
  return s;
}
inline const std::vector<int>& sizes_tracking() {
  static const std::vector<int> s{10, 20, 50, 100, 200, 500};
  return s;
}

/// Reports time per query: "ns_per_query" (shown as e.g. 253ns; seconds in JSON) and items/s.
inline void set_per_query_counters(benchmark::State& state, std::size_t queries_per_iteration) {
  const double n = static_cast<double>(queries_per_iteration);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(queries_per_iteration));
  state.counters["per_query"] = benchmark::Counter(
      n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

/// One timed iteration runs `fn` over every item of a data set (the 2D, 3D, mixed and cold
/// tracking pairs; the mesh rows' poses), with the per-query counters.
template <class Pair, class Fn>
void time_pairs(benchmark::State& state, const std::vector<Pair>& pairs, Fn fn) {
  double sink = 0.0;
  for (auto _ : state) {
    for (const Pair& p : pairs) sink += fn(p);
    benchmark::DoNotOptimize(sink);
  }
  set_per_query_counters(state, pairs.size());
}

/// One engine's pass over a cell's data set, returning a sum of its answers (kept, so that the
/// queries cannot be optimised away).
using Pass = std::function<double()>;

/// Side by side (issue 18): every engine of one cell over the same data, on the same allocation,
/// in one benchmark. One iteration is as many rounds as engines; each round runs every engine
/// once, in an order shuffled anew, so that no engine always runs first or after the same one (a
/// fixed cyclic rotation, which keeps each engine's predecessor, showed the same code 6-30 %
/// apart). The shuffles start from a fresh random seed at every call: with one fixed seed every
/// repetition replayed the same orders, and an engine's place in the cell's list then biased its
/// time by up to 1.47x the same code's at another place, the same way in every repetition
/// (docs/benchmarks.md, session 50). An engine's turn is one pass untimed, which brings its own
/// data back into cache as in its per-engine row, then one timed pass. Counter `<engine>` is the
/// median of its timed passes in ns per query (`queries` per pass). The per-engine rows time each
/// engine in its own benchmark, seconds apart: there the same code's rows have differed by up
/// to 1.6x on this shared machine (docs/benchmarks.md, session 49).
inline void time_side_by_side(benchmark::State& state, std::size_t queries,
                              const std::vector<std::pair<std::string, Pass>>& passes) {
  const std::size_t count = passes.size();
  std::vector<std::vector<double>> ns(count);
  std::vector<std::size_t> order(count);
  for (std::size_t e = 0; e < count; ++e) order[e] = e;
  std::mt19937 rng(std::random_device{}());
  double sink = 0.0;
  for (auto _ : state) {
    for (std::size_t round = 0; round < count; ++round) {
      std::shuffle(order.begin(), order.end(), rng);
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t e = order[k];
        sink += passes[e].second();  // warm-up: the other engines' passes evicted this one's data
        const auto start = std::chrono::steady_clock::now();
        sink += passes[e].second();
        benchmark::DoNotOptimize(sink);
        const auto stop = std::chrono::steady_clock::now();
        ns[e].push_back(std::chrono::duration<double, std::nano>(stop - start).count() /
                        static_cast<double>(queries));
      }
    }
  }
  for (std::size_t e = 0; e < count; ++e) {
    std::vector<double>& t = ns[e];
    if (t.empty()) continue;
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    state.counters[passes[e].first] = t[t.size() / 2];
  }
  set_per_query_counters(state, 2 * queries * count * count);
}

/// The pass of an engine called once per pair, as time_pairs calls it (`pairs` must outlive it).
template <class Pair, class Fn>
Pass pass_over(const std::vector<Pair>& pairs, Fn fn) {
  return [&pairs, fn] {
    double sum = 0.0;
    for (const Pair& p : pairs) sum += fn(p);
    return sum;
  };
}

/// time_side_by_side over `pairs` with engines called per pair.
template <class Pair, class Fn>
void time_side_by_side(benchmark::State& state, const std::vector<Pair>& pairs,
                       const std::vector<std::pair<std::string, Fn>>& engines) {
  std::vector<std::pair<std::string, Pass>> passes;
  for (const auto& [name, fn] : engines) passes.emplace_back(name, pass_over(pairs, fn));
  time_side_by_side(state, pairs.size(), passes);
}

/// Which answer an engine gives, for the agreement check.
enum class Query { Distance, Collide, Penetration, SignedDistance };
const char* to_string(Query q);

/// Registers `sbs/<section>/<query>/<cell>`: the engines of `engines` answering `query` that
/// `keep` accepts, side by side over `pairs()` (called when the benchmark runs: data sets are
/// built lazily, one at a time). Nothing when no engine is left.
template <class Engine, class Keep, class GetPairs>
void register_side_by_side(const std::string& section, Query query, const std::string& cell,
                           const std::vector<Engine>& engines, Keep keep, GetPairs pairs) {
  std::vector<std::pair<std::string, decltype(Engine::fn)>> chosen;
  for (const Engine& e : engines)
    if (e.query == query && keep(e)) chosen.emplace_back(e.name, e.fn);
  if (chosen.empty()) return;
  const std::string name = "sbs/" + section + "/" + to_string(query) + "/" + cell;
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
    time_side_by_side(s, pairs(), chosen);
  })->Unit(benchmark::kMicrosecond);
}

/// Agreement of one engine with libgjk (and with the exact answer where the data set knows it)
/// over one data set. Values: distances or depths; collisions as 0/1.
struct Agreement {
  std::string section;  ///< "2D", "3D static", "3D tracking"
  Query query = Query::Distance;
  std::string cls;  ///< pair class
  int size = 0;     ///< vertex / point count
  std::string engine;
  int count = 0;
  int disagreements = 0;  ///< |engine - libgjk| > tolerance (booleans: differ)
  double max_error =
      0.0;  ///< max |engine - libgjk| (booleans: max |signed distance| of a differing pair)
  std::string worst;    ///< description of the pair of max_error
  int exact_known = 0;  ///< pairs whose exact answer is known
  int exact_failures =
      0;  ///< |engine - exact| > tolerance (booleans: wrong on an unambiguous pair)
  double max_exact_error = 0.0;
  double tolerance = 0.0;
};

/// 0x-less hex, and a number with 3 significant digits, for pair descriptions.
std::string hex(std::uint64_t v);
std::string num(double v, int digits = 3);

/// Accumulates one engine's answers on one data set.
class AgreementBuilder {
 public:
  AgreementBuilder(std::string section, Query query, std::string cls, int size, std::string engine,
                   double tolerance);
  /// `reference`: libgjk's answer; `exact`: NaN when unknown; `signed_distance`: libgjk's signed
  /// distance of the pair (for booleans: how far from contact a differing pair is). `describe`
  /// is called only for a new worst pair.
  template <class Describe>
  void add(double answer, double reference, double exact, double signed_distance,
           Describe&& describe) {
    ++a_.count;
    const bool boolean = a_.query == Query::Collide;
    const double error = boolean ? (answer != reference ? std::abs(signed_distance) : -1.0)
                                 : std::abs(answer - reference);
    const bool differs = boolean ? answer != reference : !(error <= a_.tolerance);
    if (differs) ++a_.disagreements;
    if (differs && (error > a_.max_error || a_.worst.empty())) {
      a_.max_error = std::max(a_.max_error, error);
      a_.worst = describe() + ": answer " + num(answer, 10) + ", libgjk " + num(reference, 10);
    } else if (!boolean) {
      a_.max_error = std::max(a_.max_error, error);
    }
    if (!std::isnan(exact)) {
      ++a_.exact_known;
      const double e = std::abs(answer - exact);
      if (boolean ? answer != exact : !(e <= a_.tolerance)) ++a_.exact_failures;
      if (!boolean) a_.max_exact_error = std::max(a_.max_exact_error, e);
    }
  }
  const Agreement& result() const { return a_; }

 private:
  Agreement a_;
};

/// Each section registers its benchmarks (grouped by data set, built lazily, one at a time) and
/// runs its agreement check into agreement_results().
void register_2d();
void check_2d();
void register_static_3d();
void check_static_3d();
void register_mixed();  // 3D mixed pairs: primitives and small hulls against hulls
void check_mixed();
void register_tracking();
/// Robots: FK + all link-obstacle distances per configuration (bench_robots.cpp).
void register_robots();
void register_planner();
void check_tracking();
/// Adversarial geometry and peer-issue cases vs exact answers (bench_adversarial.cpp); prints its
/// own table (wrong / NaN / threw / crashed / hung per engine and family).
void check_adversarial();
/// Meshes and octree cells vs FCL (bench_mesh.cpp, issue 17 item 9); check prints its own table.
void register_mesh();
void check_mesh();
/// The collision world vs FCL's broadphase: N random boxes and the Panda cell (bench_world.cpp,
/// issue 17 items 8-9); check prints its own table.
void register_world();
/// distance_batch on 1 and 2 threads against a loop of single queries (bench_batch.cpp).
void register_batch();
void check_world();
/// Seed 002's Tables 2-3 in the paper's settings: its four algorithms and libgjk's default
/// (bench_seed002.cpp).
void register_seed002();
void check_seed002();

/// Collected by the check runs, printed as Markdown by print_agreement().
std::vector<Agreement>& agreement_results();
void print_agreement(const std::vector<Agreement>& rows, bool verbose);

}  // namespace bench
