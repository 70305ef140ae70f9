// 3D static: polytopes of N points on the unit sphere (seed 002 Table 2's setting), N = 8..512,
// distant (exact distance known), touching (distance <= 1e-9, known) and overlapping pairs.
// Distance (libgjk's three sub-distance solvers, FCL with either solver, Bullet), collision
// (libgjk, FCL, libccd GJK and MPR) and, on overlapping pairs, penetration (libgjk's EPA, Bullet's
// EPA, libccd's EPA and MPR, FCL's contact). Engines and what they get: peers.hpp.
#include "datasets_bench.hpp"
#include "peers.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace bench {
namespace {

namespace gt = gjk::testing;

struct Data3 {
  int n = 0;
  gt::PairClass kind = gt::PairClass::Distant;
  std::vector<std::unique_ptr<Body3>> bodies;
  std::vector<Pair3> pairs;
};

std::unique_ptr<Data3> build3(int n, gt::PairClass kind) {
  auto d = std::make_unique<Data3>();
  d->n = n;
  d->kind = kind;
  d->pairs.reserve(static_cast<std::size_t>(config().pairs_3d));
  for (int i = 0; i < config().pairs_3d; ++i) {
    const gt::PolytopePair s =
        gt::make_sphere_pair(kSeed3d, static_cast<std::uint64_t>(i), n, kind);
    d->bodies.push_back(make_body3(s.points_a));
    const Body3& a = *d->bodies.back();
    d->bodies.push_back(make_body3(s.points_b));
    const Body3& b = *d->bodies.back();
    Pair3 p = make_pair3(a, s.pose_a, b, s.pose_b);
    p.exact_distance = kind == gt::PairClass::Overlapping ? 0.0 : s.gap;
    p.seed = kSeed3d;
    p.index = s.index;
    p.size = n;
    p.kind = static_cast<int>(kind);
    d->pairs.push_back(std::move(p));
  }
  return d;
}

// One data set at a time: benchmarks are registered grouped by data set.
const Data3& data3(int n, gt::PairClass kind) {
  static std::unique_ptr<Data3> cache;
  if (!cache || cache->n != n || cache->kind != kind) {
    cache.reset();
    cache = build3(n, kind);
  }
  return *cache;
}

const gt::PairClass kClasses[] = {gt::PairClass::Distant, gt::PairClass::Touching,
                                  gt::PairClass::Overlapping};

void run3(benchmark::State& state, int n, gt::PairClass kind, Fn3 fn) {
  time_pairs(state, data3(n, kind).pairs, fn);
}

bool applies(Query q, gt::PairClass kind) {
  return q != Query::Penetration || kind == gt::PairClass::Overlapping;
}

std::string describe(const Pair3& p, const char* cls) {
  return "make_sphere_pair(0x" + hex(p.seed) + ", " + std::to_string(p.index) + ", " +
         std::to_string(p.size) + ", " + cls + "), exact distance " + num(p.exact_distance);
}

// World-frame hull vertices, for the reference oracle.
std::vector<Vec3> world_vertices(const Body3& body, const Pose& pose) {
  std::vector<Vec3> out;
  for (const Vec3& v : body.polytope().vertices()) out.push_back(pose * v);
  return out;
}

}  // namespace

void register_static_3d() {
  for (const int n : sizes_3d()) {
    for (const gt::PairClass kind : kClasses) {
      for (const Engine3& e : engines3()) {
        if (!applies(e.query, kind)) continue;
        const std::string name = std::string("3d/") + to_string(e.query) + "/" +
                                 gt::to_string(kind) + "/" + std::to_string(n) + "/" + e.name;
        const Fn3 fn = e.fn;
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
          run3(s, n, kind, fn);
        })->Unit(benchmark::kMicrosecond);
      }
      for (const Query q :
           {Query::Distance, Query::Collide, Query::Penetration, Query::SignedDistance}) {
        if (!applies(q, kind)) continue;
        register_side_by_side(
            "3d", q, std::string(gt::to_string(kind)) + "/" + std::to_string(n), engines3(),
            [](const Engine3&) { return true; },
            [=]() -> const std::vector<Pair3>& { return data3(n, kind).pairs; });
      }
    }
  }
}

void check_static_3d() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const int n : sizes_3d()) {
    for (const gt::PairClass kind : kClasses) {
      const Data3& d = data3(n, kind);
      const char* cls = gt::to_string(kind);
      ExactAnswers exact;
      exact.overlapping = kind == gt::PairClass::Overlapping;
      // Unambiguous pairs only: apart by >= 0.01, or overlapping by more than 1e-6.
      exact.verdict = [kind](double depth) {
        return kind == gt::PairClass::Distant                       ? 0.0
               : kind == gt::PairClass::Overlapping && depth > 1e-6 ? 1.0
                                                                    : std::nan("");
      };
      // The exact depth from the reference oracle (qhull of A - B) on the first 100 overlapping
      // pairs of the smaller sizes (its cost grows with N^2).
      const std::size_t oracle_pairs =
          exact.overlapping && n <= 128 ? std::min<std::size_t>(100, d.pairs.size()) : 0;
      for (std::size_t i = 0; i < d.pairs.size(); ++i) {
        const Pair3& p = d.pairs[i];
        exact.depth.push_back(i < oracle_pairs ? gt::reference_query(world_vertices(*p.a, p.pose_a),
                                                                     world_vertices(*p.b, p.pose_b))
                                                     .depth
                                               : nan);
      }
      check_engines3(
          "3D static", d.pairs, cls, n, [kind](const Engine3& e) { return applies(e.query, kind); },
          exact, [cls](const Pair3& p) { return describe(p, cls); });
    }
  }
}

}  // namespace bench
