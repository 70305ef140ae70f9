// 3D mixed pairs (issue 18 item 4): what robots query. A box, a sphere or a capsule against a
// 100-point hull, an 8-point hull against a 512-point one, and a box on a box face to face (a
// body resting on a table); distant (exact distance known),
// touching (0 or at most 1e-9 apart, known) and overlapping pairs (make_mixed_pair in
// tests/libgjk/support/datasets_bench.hpp). Every engine gets its own primitives (peers.hpp:
// fcl::Boxd / Sphered / Capsuled, btBoxShape / btSphereShape / btCapsuleShapeZ, analytic
// supports for libccd) and the same hulls and poses. Rows: mixed/QUERY/CLASS/KIND/ENGINE; the
// engines are those of the 3D static section without libgjk's other sub-distance solvers.
#include "datasets_bench.hpp"
#include "peers.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

namespace bench {
namespace {

namespace gt = gjk::testing;

constexpr std::uint64_t kSeedMixed = 0x5EED018;

const gt::MixedKind kKinds[] = {gt::MixedKind::BoxHull, gt::MixedKind::SphereHull,
                                gt::MixedKind::CapsuleHull, gt::MixedKind::SmallLargeHull,
                                gt::MixedKind::BoxOnBox};
const gt::PairClass kClasses[] = {gt::PairClass::Distant, gt::PairClass::Touching,
                                  gt::PairClass::Overlapping};

struct DataMixed {
  gt::MixedKind kind = gt::MixedKind::BoxHull;
  gt::PairClass cls = gt::PairClass::Distant;
  std::vector<std::unique_ptr<Body3>> bodies;
  std::vector<Pair3> pairs;
};

std::unique_ptr<DataMixed> build_mixed(gt::MixedKind kind, gt::PairClass cls) {
  auto d = std::make_unique<DataMixed>();
  d->kind = kind;
  d->cls = cls;
  d->pairs.reserve(static_cast<std::size_t>(config().pairs_3d));
  for (int i = 0; i < config().pairs_3d; ++i) {
    gt::MixedPair s = gt::make_mixed_pair(kSeedMixed, static_cast<std::uint64_t>(i), kind, cls);
    d->bodies.push_back(make_body3(std::move(s.a)));
    const Body3& a = *d->bodies.back();
    d->bodies.push_back(make_body3(std::move(s.b)));
    const Body3& b = *d->bodies.back();
    Pair3 p = make_pair3(a, s.pose_a, b, s.pose_b);
    p.exact_distance = s.distance;
    p.seed = kSeedMixed;
    p.index = s.index;
    p.kind = static_cast<int>(cls);
    d->pairs.push_back(std::move(p));
  }
  return d;
}

// One data set at a time: benchmarks are registered grouped by data set.
const DataMixed& data_mixed(gt::MixedKind kind, gt::PairClass cls) {
  static std::unique_ptr<DataMixed> cache;
  if (!cache || cache->kind != kind || cache->cls != cls) {
    cache.reset();
    cache = build_mixed(kind, cls);
  }
  return *cache;
}

/// The static section's engines, without libgjk's Johnson and refine_set rows (the solvers'
/// comparison is the static section's; here the question is libgjk against its peers).
bool in_mixed(const Engine3& e, gt::PairClass cls) {
  if (e.query == Query::Penetration && cls != gt::PairClass::Overlapping) return false;
  return std::strstr(e.name, "johnson") == nullptr && std::strstr(e.name, "refine") == nullptr;
}

std::string row_name(const Engine3& e, gt::MixedKind kind, gt::PairClass cls) {
  return std::string("mixed/") + to_string(e.query) + "/" + gt::to_string(cls) + "/" +
         gt::to_string(kind) + "/" + e.name;
}

std::string describe(const Pair3& p, gt::MixedKind kind, gt::PairClass cls) {
  return "make_mixed_pair(0x" + hex(p.seed) + ", " + std::to_string(p.index) + ", " +
         gt::to_string(kind) + ", " + gt::to_string(cls) + "), exact distance " +
         num(p.exact_distance);
}

}  // namespace

void register_mixed() {
  for (const gt::MixedKind kind : kKinds) {
    for (const gt::PairClass cls : kClasses) {
      for (const Engine3& e : engines3()) {
        if (!in_mixed(e, cls)) continue;
        const Fn3 fn = e.fn;
        benchmark::RegisterBenchmark(row_name(e, kind, cls).c_str(), [=](benchmark::State& s) {
          time_pairs(s, data_mixed(kind, cls).pairs, fn);
        })->Unit(benchmark::kMicrosecond);
      }
      for (const Query q :
           {Query::Distance, Query::Collide, Query::Penetration, Query::SignedDistance}) {
        register_side_by_side(
            "mixed", q, std::string(gt::to_string(cls)) + "/" + gt::to_string(kind), engines3(),
            [cls](const Engine3& e) { return in_mixed(e, cls); },
            [=]() -> const std::vector<Pair3>& { return data_mixed(kind, cls).pairs; });
      }
    }
  }
}

void check_mixed() {
  for (const gt::MixedKind kind : kKinds) {
    for (const gt::PairClass cls : kClasses) {
      ExactAnswers exact;
      exact.overlapping = cls == gt::PairClass::Overlapping;
      // Unambiguous pairs only: apart by >= 0.01, or B's point >= 0.01 inside A.
      exact.verdict = [cls](double) {
        return cls == gt::PairClass::Distant       ? 0.0
               : cls == gt::PairClass::Overlapping ? 1.0
                                                   : std::nan("");
      };
      // The agreement table's size column holds the kind's larger hull.
      check_engines3(
          std::string("mixed ") + gt::to_string(kind), data_mixed(kind, cls).pairs,
          gt::to_string(cls), kind == gt::MixedKind::SmallLargeHull ? 512 : 100,
          [cls](const Engine3& e) { return in_mixed(e, cls); }, exact,
          [kind, cls](const Pair3& p) { return describe(p, kind, cls); });
    }
  }
}

}  // namespace bench
