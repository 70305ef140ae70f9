// 2D: seed 001's benchmark (section IV, Tables I-VI). gjk::planar (barycode GJK, brute-force
// or hill-climbing support) against Box2D's b2Distance, on the same counter-clockwise polygons.
//
// What each engine gets, per pair (all built once, outside the timed loop):
//  - libgjk: two gjk::planar::ConvexPolygon (hull vertices, CCW, double) and two Isometry2d poses;
//  - Box2D: b2DistanceProxy on the same vertices converted to float, b2Transform poses (float),
//    useRadii = false and a fresh b2SimplexCache (count = 0: cold) per query. Box2D has no
//    boolean query: its collision row is b2Distance with b2TestOverlap's threshold
//    (distance < 10 * b2_epsilon), as seed 001 did.
//  - sat (collision only): the plain separating axis test seed 001 compares with, on the double
//    vertices and poses (sat_collide below).
//  - 3d-* (seed 001's 3D comparisons: its Tables I-VI run the 2D sets through Bullet, FCL and
//    openGJK): the 3D engines of peers.hpp, each as in the 3D rows, on each polygon extruded to a
//    prism (2n vertices, z in +-its bounding radius) with the 2D pose as a rotation about z.
//    Both prisms straddle z = 0, so the 3D distance is the 2D one. A prism rather than the flat
//    polygon: two flat polygons in one plane give a flat Minkowski difference, which 3D engines
//    are not built for (an overlapping pair has no tetrahedron around the origin).
// The libgjk-bf, -hc and -refine rows run seed 001's GJK alone (Options::axes_first off) with
// the support method their name gives. The rows "libgjk" are the default queries: distance with
// SupportMethod::Auto, and collision with the axis test with margins first on polygons of up to
// kAxesFirstMaxVertices vertices together, then GJK.
#include "bench.hpp"
#include "datasets_bench.hpp"
#include "peers.hpp"

#include <gjk/planar.hpp>

#include <box2d/b2_distance.h>
#include <box2d/b2_math.h>
#include <box2d/b2_settings.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

namespace bench {
namespace {

namespace gt = gjk::testing;
namespace pl = gjk::planar;

struct Body2 {
  pl::ConvexPolygon polygon;
  std::vector<b2Vec2> b2_vertices;  ///< the polygon's vertices in float, same order
  std::unique_ptr<Body3> prism;     ///< the polygon extruded, for the 3d-* rows
};

struct Pair2 {
  const Body2* a = nullptr;
  const Body2* b = nullptr;
  pl::Pose2 pose_a = pl::Pose2::Identity(), pose_b = pl::Pose2::Identity();
  b2DistanceInput b2_input{};  ///< proxies on the float vertices, float transforms
  Pair3 prisms;                ///< the two prisms, posed by rotations about z
  double exact_distance = 0.0;
  std::uint64_t index = 0;
};

struct Data2 {
  int n = 0;
  gt::PairClass kind = gt::PairClass::Distant;
  std::deque<Body2> bodies;  // deque: proxies point into the vertex vectors
  std::vector<Pair2> pairs;
};

b2Transform to_b2(const pl::Pose2& pose) {
  b2Transform t;
  t.p.Set(static_cast<float>(pose.translation().x()), static_cast<float>(pose.translation().y()));
  t.q.s = static_cast<float>(pose.linear()(1, 0));
  t.q.c = static_cast<float>(pose.linear()(0, 0));
  return t;
}

const Body2& add_body(Data2& d, const std::vector<gt::Vec2>& points) {
  Body2& body = d.bodies.emplace_back();
  body.polygon = pl::ConvexPolygon::from_points(points);
  if (body.polygon.size() != static_cast<int>(points.size())) {
    throw std::logic_error("bench 2D: a generated polygon lost vertices in its hull");
  }
  std::vector<Vec3> prism;
  const double half_height = body.polygon.bounding_radius();
  for (const pl::Vec2& v : body.polygon.vertices()) {
    body.b2_vertices.emplace_back(static_cast<float>(v.x()), static_cast<float>(v.y()));
    prism.emplace_back(v.x(), v.y(), -half_height);
    prism.emplace_back(v.x(), v.y(), half_height);
  }
  body.prism = make_body3(prism);
  return body;
}

/// The planar pose as a 3D one: rotation about z, translation in z = 0.
Pose lift(const pl::Pose2& pose) {
  Pose out = Pose::Identity();
  out.linear().topLeftCorner<2, 2>() = pose.linear();
  out.translation().head<2>() = pose.translation();
  return out;
}

std::unique_ptr<Data2> build2(int n, gt::PairClass kind) {
  auto d = std::make_unique<Data2>();
  d->n = n;
  d->kind = kind;
  const std::vector<gt::PolygonPair> source =
      gt::make_polygon_pairs(kSeed2d, config().pairs_2d, n, kind);
  d->pairs.reserve(source.size());
  for (const gt::PolygonPair& s : source) {
    Pair2 p;
    p.a = &add_body(*d, s.points_a);
    p.b = &add_body(*d, s.points_b);
    p.pose_a = s.pose_a;
    p.pose_b = s.pose_b;
    p.b2_input.proxyA.Set(p.a->b2_vertices.data(), static_cast<int32>(p.a->b2_vertices.size()),
                          0.0f);
    p.b2_input.proxyB.Set(p.b->b2_vertices.data(), static_cast<int32>(p.b->b2_vertices.size()),
                          0.0f);
    p.b2_input.transformA = to_b2(s.pose_a);
    p.b2_input.transformB = to_b2(s.pose_b);
    p.b2_input.useRadii = false;
    p.prisms = make_pair3(*p.a->prism, lift(s.pose_a), *p.b->prism, lift(s.pose_b));
    p.exact_distance = s.distance;
    p.index = s.index;
    d->pairs.push_back(p);
  }
  return d;
}

// One data set at a time: benchmarks are registered grouped by data set.
const Data2& data2(int n, gt::PairClass kind) {
  static std::unique_ptr<Data2> cache;
  if (!cache || cache->n != n || cache->kind != kind) {
    cache.reset();
    cache = build2(n, kind);
  }
  return *cache;
}

// ---- engines --------------------------------------------------------------------------------

template <pl::SupportMethod M, pl::SubDistance S>
const pl::Options& planar_options() {
  static const pl::Options options = [] {
    pl::Options o;
    o.support = M;
    o.sub_distance = S;
    o.axes_first = false;  // the rows named by support method time seed 001's GJK alone
    return o;
  }();
  return options;
}

template <pl::SupportMethod M, pl::SubDistance S = pl::SubDistance::Barycode>
double planar_distance(const Pair2& p) {
  return pl::distance(p.a->polygon, p.pose_a, p.b->polygon, p.pose_b, planar_options<M, S>())
      .distance;
}

template <pl::SupportMethod M, pl::SubDistance S = pl::SubDistance::Barycode>
double planar_collide(const Pair2& p) {
  return pl::collide(p.a->polygon, p.pose_a, p.b->polygon, p.pose_b, planar_options<M, S>())
                 .collision
             ? 1.0
             : 0.0;
}

double planar_distance_default(const Pair2& p) {
  return pl::distance(p.a->polygon, p.pose_a, p.b->polygon, p.pose_b).distance;
}

double planar_collide_default(const Pair2& p) {
  return pl::collide(p.a->polygon, p.pose_a, p.b->polygon, p.pose_b).collision ? 1.0 : 0.0;
}

/// The 3D engine row `name` of `query` (peers.hpp's table).
Fn3 engine3(const char* name, Query query) {
  for (const Engine3& e : engines3())
    if (e.query == query && std::strcmp(e.name, name) == 0) return e.fn;
  throw std::logic_error(std::string("bench 2D: no 3D engine row ") + name);
}

/// A 3D engine on the pair's prisms (seed 001's 3D comparisons).
template <const char* Name, Query Q>
double on_prisms(const Pair2& p) {
  static const Fn3 fn = engine3(Name, Q);
  return fn(p.prisms);
}

constexpr char kLibgjkSv[] = "libgjk-sv";
constexpr char kLibgjk[] = "libgjk";
constexpr char kBulletPairDetector[] = "bullet-pairdetector";
constexpr char kFclCcd[] = "fcl-ccd";
constexpr char kCcdMpr[] = "ccd-mpr";

double box2d_distance(const Pair2& p) {
  b2SimplexCache cache;
  cache.count = 0;
  b2DistanceOutput out;
  b2Distance(&out, &cache, &p.b2_input);
  return out.distance;
}

double box2d_collide(const Pair2& p) {
  b2SimplexCache cache;
  cache.count = 0;
  b2DistanceOutput out;
  b2Distance(&out, &cache, &p.b2_input);
  return out.distance < 10.0f * b2_epsilon ? 1.0 : 0.0;  // b2TestOverlap's test
}

// The separating axis test seed 001 benchmarks beside its binary GJK (Tables I-VI, "SAT";
// its reference [6]): the pair is apart when one edge normal of either polygon separates
// them, i.e. every vertex of the other polygon lies strictly beyond that edge's line. Written
// here as the plain textbook method, as a baseline (no library offers it for polygons of more
// than 8 vertices: Box2D's b2PolygonShape holds at most 8): B is carried into A's frame, normals
// are computed on the fly, and each axis stops at the first vertex that is not beyond it.
// Double precision, so it agrees with the exact answer on distant and overlapping pairs.
bool sat_separated_by_edges(const pl::Vec2* a, int na, const pl::Vec2* b, int nb) {
  for (int i = 0; i < na; ++i) {
    const pl::Vec2& p = a[i];
    const pl::Vec2 edge = a[i + 1 < na ? i + 1 : 0] - p;
    const pl::Vec2 normal(edge.y(), -edge.x());  // outward for a counter-clockwise polygon
    bool separating = true;
    for (int j = 0; j < nb && separating; ++j) separating = normal.dot(b[j] - p) > 0.0;
    if (separating) return true;
  }
  return false;
}

double sat_collide(const Pair2& p) {
  constexpr int kMaxVertices = 64;
  const auto& a = p.a->polygon.vertices();
  const auto& b = p.b->polygon.vertices();
  if (b.size() > static_cast<size_t>(kMaxVertices))
    throw std::logic_error("sat: too many vertices");
  const pl::Pose2 b_in_a = p.pose_a.inverse() * p.pose_b;
  pl::Vec2 moved[kMaxVertices];
  for (size_t j = 0; j < b.size(); ++j) moved[j] = b_in_a * b[j];
  const int na = static_cast<int>(a.size()), nb = static_cast<int>(b.size());
  if (sat_separated_by_edges(a.data(), na, moved, nb)) return 0.0;
  return sat_separated_by_edges(moved, nb, a.data(), na) ? 0.0 : 1.0;
}

using Fn2 = double (*)(const Pair2&);
struct Engine2 {
  const char* name;
  Query query;
  Fn2 fn;
  double tolerance;  ///< agreement tolerance (distance); the first engine of a query is libgjk's
                     ///< reference
};

constexpr double kFloatTolerance = 1e-5;  // Box2D computes in float

// To add a row, add an entry: it is timed and checked on every 2D data set.
const std::vector<Engine2>& engines2() {
  static const std::vector<Engine2> e{
      // what a user gets: default options (SupportMethod::Auto scans below
      // pl::kHillClimbingMinVertices vertices and climbs from there)
      {"libgjk", Query::Distance, planar_distance_default, 1e-9},
      {"libgjk-bf", Query::Distance, planar_distance<pl::SupportMethod::BruteForce>, 1e-9},
      {"libgjk-hc", Query::Distance, planar_distance<pl::SupportMethod::HillClimbing>, 1e-9},
      // seed 002 section 3.1's fixed-size refine_set in place of the barycode (scan support)
      {"libgjk-refine-bf", Query::Distance,
       planar_distance<pl::SupportMethod::BruteForce, pl::SubDistance::RefineSet>, 1e-9},
      {"box2d", Query::Distance, box2d_distance, kFloatTolerance},
      // what a user gets: the edge-normal axis test first up to pl::kAxesFirstMaxVertices
      // vertices together, then GJK with SupportMethod::Auto
      {"libgjk", Query::Collide, planar_collide_default, 0.0},
      {"libgjk-bf", Query::Collide, planar_collide<pl::SupportMethod::BruteForce>, 0.0},
      {"libgjk-hc", Query::Collide, planar_collide<pl::SupportMethod::HillClimbing>, 0.0},
      {"libgjk-refine-bf", Query::Collide,
       planar_collide<pl::SupportMethod::BruteForce, pl::SubDistance::RefineSet>, 0.0},
      {"box2d", Query::Collide, box2d_collide, 0.0},
      {"sat", Query::Collide, sat_collide, 0.0},
      // seed 001's 3D comparisons, on the prisms (libgjk's own 3D engine too)
      {"3d-libgjk-sv", Query::Distance, on_prisms<kLibgjkSv, Query::Distance>, 1e-9},
      {"3d-bullet-pairdetector", Query::Distance, on_prisms<kBulletPairDetector, Query::Distance>,
       kDistanceTolerance},
      {"3d-fcl-ccd", Query::Distance, on_prisms<kFclCcd, Query::Distance>, kDistanceTolerance},
      {"3d-libgjk", Query::Collide, on_prisms<kLibgjk, Query::Collide>, 0.0},
      {"3d-fcl-ccd", Query::Collide, on_prisms<kFclCcd, Query::Collide>, 0.0},
      {"3d-ccd-mpr", Query::Collide, on_prisms<kCcdMpr, Query::Collide>, 0.0},
  };
  return e;
}

const gt::PairClass kClasses[] = {gt::PairClass::Distant, gt::PairClass::Touching,
                                  gt::PairClass::Overlapping};

void run2(benchmark::State& state, int n, gt::PairClass kind, Fn2 fn) {
  time_pairs(state, data2(n, kind).pairs, fn);
}

}  // namespace

void register_2d() {
  for (const int n : sizes_2d()) {
    for (const gt::PairClass kind : kClasses) {
      for (const Engine2& e : engines2()) {
        const std::string name = std::string("2d/") + to_string(e.query) + "/" +
                                 gt::to_string(kind) + "/" + std::to_string(n) + "/" + e.name;
        const Fn2 fn = e.fn;
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
          run2(s, n, kind, fn);
        })->Unit(benchmark::kMicrosecond);
      }
      for (const Query q : {Query::Distance, Query::Collide}) {
        register_side_by_side(
            "2d", q, std::string(gt::to_string(kind)) + "/" + std::to_string(n), engines2(),
            [](const Engine2&) { return true; },
            [=]() -> const std::vector<Pair2>& { return data2(n, kind).pairs; });
      }
    }
  }
}

void check_2d() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const int n : sizes_2d()) {
    for (const gt::PairClass kind : kClasses) {
      const Data2& d = data2(n, kind);
      std::vector<double> reference_distance, reference_collide;
      for (const Pair2& p : d.pairs) {
        reference_distance.push_back(planar_distance<pl::SupportMethod::BruteForce>(p));
        reference_collide.push_back(planar_collide<pl::SupportMethod::BruteForce>(p));
      }
      for (const Engine2& e : engines2()) {
        AgreementBuilder b("2D", e.query, gt::to_string(kind), n, e.name, e.tolerance);
        for (std::size_t i = 0; i < d.pairs.size(); ++i) {
          const Pair2& p = d.pairs[i];
          const bool distance = e.query == Query::Distance;
          const double exact = distance                         ? p.exact_distance
                               : kind == gt::PairClass::Distant ? 0.0
                               : kind == gt::PairClass::Overlapping
                                   ? 1.0
                                   : nan;  // touching: either answer
          b.add(e.fn(p), distance ? reference_distance[i] : reference_collide[i], exact,
                reference_distance[i], [&] {
                  return "make_polygon_pair(0x" + hex(kSeed2d) + ", " + std::to_string(p.index) +
                         ", " + std::to_string(n) + ", " + gt::to_string(kind) +
                         "), exact distance " + num(p.exact_distance);
                });
        }
        agreement_results().push_back(b.result());
      }
    }
  }
}

}  // namespace bench
