// Batch queries: a shared atomic cursor hands out chunks of pairs to worker threads, so uneven
// pair costs (a 500-vertex hull next to two spheres) still balance.
#include "gjk/batch.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

namespace gjk {
namespace {

/// std::thread::hardware_concurrency() (at least 1), asked once: it reads /sys on Linux
/// (~7 us), more than a small batch costs.
unsigned hardware_threads() {
  static const unsigned count = std::max(1u, std::thread::hardware_concurrency());
  return count;
}

template <class Result, class Query>
std::vector<Result> run_batch(const std::vector<PairQuery>& pairs, unsigned threads,
                              Query&& query) {
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].a == nullptr || pairs[i].b == nullptr) {
      throw std::invalid_argument("batch query: pair " + std::to_string(i) + " has a null shape");
    }
  }
  std::vector<Result> results(pairs.size());
  if (threads == 0) threads = hardware_threads();
  constexpr size_t kChunk = 32;
  std::atomic<size_t> cursor{0};
  auto work = [&] {
    for (;;) {
      const size_t begin = cursor.fetch_add(kChunk);
      if (begin >= pairs.size()) return;
      const size_t end = std::min(begin + kChunk, pairs.size());
      for (size_t i = begin; i < end; ++i) {
        const PairQuery& p = pairs[i];
        results[i] = query(*p.a, p.pose_a, *p.b, p.pose_b);
      }
    }
  };
  const unsigned workers =
      static_cast<unsigned>(std::min<size_t>(threads, (pairs.size() + kChunk - 1) / kChunk));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return results;
}

}  // namespace

std::vector<DistanceResult> distance_batch(const std::vector<PairQuery>& pairs,
                                           const QueryOptions& options, unsigned threads) {
  return run_batch<DistanceResult>(
      pairs, threads, [&](const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
        return distance(a, pa, b, pb, options);
      });
}

std::vector<SignedDistanceResult> signed_distance_batch(const std::vector<PairQuery>& pairs,
                                                        const QueryOptions& options,
                                                        unsigned threads) {
  return run_batch<SignedDistanceResult>(
      pairs, threads, [&](const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
        return signed_distance(a, pa, b, pb, options);
      });
}

std::vector<CollisionResult> collide_batch(const std::vector<PairQuery>& pairs,
                                           const QueryOptions& options, unsigned threads) {
  return run_batch<CollisionResult>(
      pairs, threads, [&](const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
        return collide(a, pa, b, pb, options);
      });
}

}  // namespace gjk
