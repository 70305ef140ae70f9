// 3D engines of gjk_bench: one hull in every engine's representation, a pair with its poses in
// every engine's form, and the engine tables (timed and checked on the same data).
//
// What each engine gets (built once per body / pair, outside the timed loop):
//  - libgjk: gjk::Shape holding a gjk::ConvexPolytope (qhull hull of the points: vertices,
//    adjacency, triangles) and two Isometry3d poses.
//  - FCL 0.7: fcl::Convexd on the same hull vertices and triangles (so FCL builds its vertex
//    neighbour graph and walks it for hulls of more than 32 vertices), the same Isometry3d poses
//    (fcl::Transform3d is that type); called through fcl::distance / fcl::collide on the
//    geometries (its narrow-phase dispatch), with default requests apart from the solver type.
//  - libccd 2.1 (called directly): a support function scanning the same hull vertices in the
//    body's frame (direction rotated in, vertex rotated and translated out), and the world centre
//    of the vertices for MPR (a primitive: its analytic support, local_support, and its centre);
//    default ccd_t tolerances, first direction ccdFirstDirDefault, max_iterations 1000. The
//    packaged 2.1 has no ccdGJKDist: no libccd distance row.
//  - Bullet 3.24 (the double-precision build, BT_USE_DOUBLE_PRECISION): btConvexHullShape on the
//    same hull vertices with margin 0 (btBoxShape with margin 0, btSphereShape, btCapsuleShapeZ
//    for primitives), btTransform poses; btGjkEpaSolver2 with the guess
//    origin(B) - origin(A) (what btGjkEpaPenetrationDepthSolver passes), and btGjkPairDetector
//    with btVoronoiSimplexSolver + btGjkEpaPenetrationDepthSolver (Bullet's default pipeline).
// Nobody gets pre-transformed vertices.
#pragma once

#include "bench.hpp"

#include <gjk/gjk.hpp>

#include <btBulletCollisionCommon.h>
#include <ccd/ccd.h>
#include <fcl/geometry/shape/convex.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace bench {

using gjk::Pose;
using gjk::Vec3;

/// One convex body (a hull, or a primitive of the mixed pairs) in every engine's form.
struct Body3 {
  gjk::Shape shape;
  std::shared_ptr<fcl::CollisionGeometryd> fcl;
  std::unique_ptr<btConvexShape> bullet;
  /// The hull; throws std::bad_variant_access for a primitive.
  const gjk::ConvexPolytope& polytope() const {
    return std::get<gjk::ConvexPolytope>(shape.geometry);
  }
};

/// Builds the hull of `points` (qhull, via gjk::ConvexPolytope) and hands it to every engine.
std::unique_ptr<Body3> make_body3(const std::vector<Vec3>& points);
/// Hands `shape` (a hull, box, sphere, capsule or cylinder without inflation) to every engine.
std::unique_ptr<Body3> make_body3(gjk::Shape shape);

/// The libccd settings every libccd row uses: CCD_INIT defaults, max_iterations 1000, and the
/// caller's support and centre callbacks (for both bodies).
ccd_t make_ccd_settings(ccd_support_fn support, ccd_center_fn centre);

/// libccd's view of a placed body: the hull vertices (null for a primitive, which `shape`
/// gives) and the pose (no transformed copy).
struct CcdBody {
  const gjk::Shape* shape = nullptr;
  const std::vector<Vec3>* vertices = nullptr;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Vec3 translation = Vec3::Zero();
  Vec3 centre = Vec3::Zero();  ///< world frame, for MPR
};

/// A pair of placed bodies in every engine's form.
struct Pair3 {
  const Body3* a = nullptr;
  const Body3* b = nullptr;
  Pose pose_a = Pose::Identity(), pose_b = Pose::Identity();
  btTransform bt_a, bt_b;
  CcdBody ccd_a, ccd_b;
  double exact_distance = std::numeric_limits<double>::quiet_NaN();  ///< when the data set knows it
  std::uint64_t seed = 0, index = 0;
  int size = 0, step = 0;
  int kind = 0;
};

Pair3 make_pair3(const Body3& a, const Pose& pose_a, const Body3& b, const Pose& pose_b);

/// Per-sequence state of a tracking engine: value-initialised before the first step of each
/// sequence and handed to every query of that sequence, in order. Cold engines ignore it.
/// WARM START: the lead adds libgjk's caller-owned per-pair cache here (e.g. `gjk::PairCache
/// gjk;`) and a tracking row that passes it to the query (see tracking_engines() in
/// bench_tracking.cpp).
struct TrackCache {
  int step = 0;
  gjk::WarmStart gjk;  ///< libgjk's per-pair warm-start cache
};

using Fn3 = double (*)(const Pair3&);
using FnTrack = double (*)(const Pair3&, TrackCache&);

struct Engine3 {
  const char* name;
  Query query;
  Fn3 fn;
  double tolerance;  ///< agreement tolerance; the first engine of each query is libgjk's reference
};

/// Static engines (3D static and, through cold<>, tracking). Answers: distance (0 when the
/// bodies overlap), 0/1 for collide, depth (0 when apart) for penetration.
const std::vector<Engine3>& engines3();

// libgjk rows, exposed for the tracking table and the reference answers.
double gjk_distance_sv(const Pair3& p);
double gjk_collide(const Pair3& p);
double gjk_penetration(const Pair3& p);
double gjk_signed_distance(const Pair3& p);

/// What a data set knows of its pairs' answers besides Pair3::exact_distance (check_engines3).
struct ExactAnswers {
  bool overlapping = false;  ///< every pair overlaps: libgjk's depth is the penetration reference
  /// A pair's exact verdict (1 collides, 0 apart, NaN ambiguous), given libgjk's depth for it.
  std::function<double(double)> verdict;
  std::vector<double> depth;  ///< exact depths, NaN where unknown; empty: none known
};

/// The agreement check of one 3D data set: every engine of engines3() that `keep` accepts, on
/// `pairs`, against libgjk's answers and the exact ones; one row each in agreement_results().
void check_engines3(const std::string& section, const std::vector<Pair3>& pairs, const char* cls,
                    int size, const std::function<bool(const Engine3&)>& keep,
                    const ExactAnswers& exact,
                    const std::function<std::string(const Pair3&)>& describe);

constexpr double kDistanceTolerance = 1e-6;
constexpr double kDepthTolerance = 1e-4;
constexpr double kLibgjkTolerance = 1e-9;

/// The point of `shape` (its own frame) farthest along `d`: the analytic support of a primitive,
/// a scan of a hull's vertices; the inflation is added along d. libccd's support callbacks.
Vec3 local_support(const gjk::Shape& shape, const Vec3& d);

/// The same convex shape as a Bullet shape (margin 0 for boxes, cylinders and hulls; a sphere's
/// or capsule's radius is its margin); inflated shapes are not mapped (null).
std::unique_ptr<btConvexShape> to_bullet(const gjk::Shape& shape);

/// The same convex shape as an FCL geometry (box, sphere, cylinder, capsule, or fcl::Convexd on
/// the hull's vertices and triangles); inflated shapes are not mapped (throws).
std::shared_ptr<fcl::CollisionGeometryd> to_fcl(const gjk::Shape& shape);

}  // namespace bench
