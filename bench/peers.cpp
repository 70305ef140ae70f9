// 3D engines: see peers.hpp for what each one gets.
#include "peers.hpp"

#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>

#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

namespace bench {

std::unique_ptr<Body3> make_body3(const std::vector<Vec3>& points) {
  return make_body3(gjk::Shape(gjk::ConvexPolytope::from_points(points)));
}

std::unique_ptr<Body3> make_body3(gjk::Shape shape) {
  auto body = std::make_unique<Body3>();
  body->shape = std::move(shape);
  body->fcl = to_fcl(body->shape);
  body->bullet = to_bullet(body->shape);
  if (!body->bullet) throw std::invalid_argument("make_body3: inflated shapes are not mapped");
  return body;
}

namespace {

btTransform to_bullet(const Pose& pose) {
  const Eigen::Matrix3d& r = pose.linear();
  const btMatrix3x3 basis(r(0, 0), r(0, 1), r(0, 2), r(1, 0), r(1, 1), r(1, 2), r(2, 0), r(2, 1),
                          r(2, 2));
  return btTransform(
      basis, btVector3(pose.translation().x(), pose.translation().y(), pose.translation().z()));
}

CcdBody to_ccd(const Body3& body, const Pose& pose) {
  CcdBody c;
  c.shape = &body.shape;
  const auto* hull = std::get_if<gjk::ConvexPolytope>(&body.shape.geometry);
  c.vertices = hull != nullptr ? &hull->vertices() : nullptr;
  c.rotation = pose.linear();
  c.translation = pose.translation();
  c.centre = pose * (hull != nullptr ? hull->center() : Vec3::Zero());
  return c;
}

}  // namespace

Pair3 make_pair3(const Body3& a, const Pose& pose_a, const Body3& b, const Pose& pose_b) {
  Pair3 p;
  p.a = &a;
  p.b = &b;
  p.pose_a = pose_a;
  p.pose_b = pose_b;
  p.bt_a = to_bullet(pose_a);
  p.bt_b = to_bullet(pose_b);
  p.ccd_a = to_ccd(a, pose_a);
  p.ccd_b = to_ccd(b, pose_b);
  return p;
}

// ---- libgjk ---------------------------------------------------------------------------------

namespace {

template <gjk::SimplexSolver S, gjk::SupportMethod M = gjk::SupportMethod::Auto>
const gjk::QueryOptions& gjk_options() {
  static const gjk::QueryOptions options = [] {
    gjk::QueryOptions o;
    o.solver = S;
    o.support = M;
    return o;
  }();
  return options;
}

template <gjk::SimplexSolver S, gjk::SupportMethod M = gjk::SupportMethod::Auto>
double gjk_distance(const Pair3& p) {
  return gjk::distance(p.a->shape, p.pose_a, p.b->shape, p.pose_b, gjk_options<S, M>()).distance;
}

template <gjk::SupportMethod M>
double gjk_collide_with(const Pair3& p) {
  return gjk::collide(p.a->shape, p.pose_a, p.b->shape, p.pose_b,
                      gjk_options<gjk::SimplexSolver::SignedVolumes, M>())
                 .collision
             ? 1.0
             : 0.0;
}

}  // namespace

double gjk_distance_sv(const Pair3& p) {
  return gjk_distance<gjk::SimplexSolver::SignedVolumes>(p);
}

double gjk_collide(const Pair3& p) {
  return gjk::collide(p.a->shape, p.pose_a, p.b->shape, p.pose_b).collision ? 1.0 : 0.0;
}

double gjk_penetration(const Pair3& p) {
  const gjk::PenetrationResult r = gjk::penetration(p.a->shape, p.pose_a, p.b->shape, p.pose_b);
  return r.collision ? r.depth : 0.0;
}

double gjk_signed_distance(const Pair3& p) {
  return gjk::signed_distance(p.a->shape, p.pose_a, p.b->shape, p.pose_b).signed_distance;
}

// ---- FCL ------------------------------------------------------------------------------------

namespace {

template <fcl::GJKSolverType T>
double fcl_distance(const Pair3& p) {
  fcl::DistanceRequestd request;
  request.gjk_solver_type = T;
  fcl::DistanceResultd result;
  fcl::distance(p.a->fcl.get(), p.pose_a, p.b->fcl.get(), p.pose_b, request, result);
  return std::max(0.0, result.min_distance);  // FCL reports -1 (or a negative value) on overlap
}

template <fcl::GJKSolverType T>
double fcl_collide(const Pair3& p) {
  fcl::CollisionRequestd request;
  request.gjk_solver_type = T;
  fcl::CollisionResultd result;
  return fcl::collide(p.a->fcl.get(), p.pose_a, p.b->fcl.get(), p.pose_b, request, result) > 0
             ? 1.0
             : 0.0;
}

// Penetration through FCL's collide with contacts (libccd solver: MPR penetration).
double fcl_penetration(const Pair3& p) {
  fcl::CollisionRequestd request;
  request.enable_contact = true;
  request.num_max_contacts = 1;
  fcl::CollisionResultd result;
  if (fcl::collide(p.a->fcl.get(), p.pose_a, p.b->fcl.get(), p.pose_b, request, result) == 0)
    return 0.0;
  return result.getContact(0).penetration_depth;
}

// ---- libccd ---------------------------------------------------------------------------------

void ccd_support(const void* object, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const CcdBody& body = *static_cast<const CcdBody*>(object);
  const Vec3 d = body.rotation.transpose() * Vec3(dir->v[0], dir->v[1], dir->v[2]);
  if (body.vertices == nullptr) {  // a primitive
    const Vec3 w = body.rotation * local_support(*body.shape, d) + body.translation;
    ccdVec3Set(out, w.x(), w.y(), w.z());
    return;
  }
  const std::vector<Vec3>& v = *body.vertices;
  std::size_t best = 0;
  double best_dot = v[0].dot(d);
  for (std::size_t i = 1; i < v.size(); ++i) {
    const double x = v[i].dot(d);
    if (x > best_dot) {
      best_dot = x;
      best = i;
    }
  }
  const Vec3 w = body.rotation * v[best] + body.translation;
  ccdVec3Set(out, w.x(), w.y(), w.z());
}

void ccd_centre(const void* object, ccd_vec3_t* out) {
  const CcdBody& body = *static_cast<const CcdBody*>(object);
  ccdVec3Set(out, body.centre.x(), body.centre.y(), body.centre.z());
}

const ccd_t& ccd_settings() {
  static const ccd_t settings = make_ccd_settings(ccd_support, ccd_centre);
  return settings;
}

}  // namespace

ccd_t make_ccd_settings(ccd_support_fn support, ccd_center_fn centre) {
  ccd_t c;
  CCD_INIT(&c);
  c.support1 = support;
  c.support2 = support;
  c.center1 = centre;
  c.center2 = centre;
  c.max_iterations = 1000;
  return c;
}

namespace {

double ccd_gjk_intersect(const Pair3& p) {
  return ccdGJKIntersect(&p.ccd_a, &p.ccd_b, &ccd_settings()) ? 1.0 : 0.0;
}

double ccd_mpr_intersect(const Pair3& p) {
  return ccdMPRIntersect(&p.ccd_a, &p.ccd_b, &ccd_settings()) ? 1.0 : 0.0;
}

double ccd_gjk_penetration(const Pair3& p) {
  ccd_real_t depth = 0;
  ccd_vec3_t dir, pos;
  return ccdGJKPenetration(&p.ccd_a, &p.ccd_b, &ccd_settings(), &depth, &dir, &pos) == 0 ? depth
                                                                                         : 0.0;
}

double ccd_mpr_penetration(const Pair3& p) {
  ccd_real_t depth = 0;
  ccd_vec3_t dir, pos;
  return ccdMPRPenetration(&p.ccd_a, &p.ccd_b, &ccd_settings(), &depth, &dir, &pos) == 0 ? depth
                                                                                         : 0.0;
}

// ---- Bullet ---------------------------------------------------------------------------------

btVector3 bullet_guess(const Pair3& p) {
  return p.bt_b.getOrigin() - p.bt_a.getOrigin();
}

double bullet_distance(const Pair3& p) {
  btGjkEpaSolver2::sResults r;
  if (!btGjkEpaSolver2::Distance(p.a->bullet.get(), p.bt_a, p.b->bullet.get(), p.bt_b,
                                 bullet_guess(p), r))
    return 0.0;  // the cores overlap
  // Distance() works on the cores: the margins (a sphere's or capsule's radius; 0 for hulls and
  // boxes) come off.
  return std::max(0.0, r.distance - p.a->bullet->getMargin() - p.b->bullet->getMargin());
}

double bullet_penetration(const Pair3& p) {
  btGjkEpaSolver2::sResults r;
  return btGjkEpaSolver2::Penetration(p.a->bullet.get(), p.bt_a, p.b->bullet.get(), p.bt_b,
                                      bullet_guess(p), r)
             ? -r.distance
             : 0.0;
}

// GJK for the cores' distance, EPA when they overlap (without margins: these come off here, as
// in bullet_distance; a rounded pair's signed distance is its cores' less the radii).
double bullet_signed_distance(const Pair3& p) {
  btGjkEpaSolver2::sResults r;
  if (!btGjkEpaSolver2::SignedDistance(p.a->bullet.get(), p.bt_a, p.b->bullet.get(), p.bt_b,
                                       bullet_guess(p), r))
    return 0.0;  // GJK and EPA both failed: the cores touch
  return r.distance - p.a->bullet->getMargin() - p.b->bullet->getMargin();
}

// Bullet's default convex-convex pipeline (btConvexConvexAlgorithm): GJK with the Voronoi
// simplex solver, EPA when they overlap (then the distance is negative: clamped to 0).
double bullet_pair_detector(const Pair3& p) {
  btVoronoiSimplexSolver simplex;
  btGjkEpaPenetrationDepthSolver epa;
  btGjkPairDetector detector(p.a->bullet.get(), p.b->bullet.get(), &simplex, &epa);
  btGjkPairDetector::ClosestPointInput input;
  input.m_transformA = p.bt_a;
  input.m_transformB = p.bt_b;
  btPointCollector output;
  detector.getClosestPoints(input, output, nullptr);
  return output.m_hasResult ? std::max<double>(0.0, output.m_distance) : 0.0;
}

}  // namespace

const std::vector<Engine3>& engines3() {
  using S = gjk::SimplexSolver;
  using M = gjk::SupportMethod;
  // To add a row (e.g. libgjk with QueryOptions::support = HillClimbing), add an entry: it is
  // timed and checked on every 3D static data set.
  static const std::vector<Engine3> e{
      {"libgjk-sv", Query::Distance, gjk_distance<S::SignedVolumes>, kLibgjkTolerance},
      {"libgjk-johnson", Query::Distance, gjk_distance<S::Johnson>, kLibgjkTolerance},
      {"libgjk-refine", Query::Distance, gjk_distance<S::RefineSet>, kLibgjkTolerance},
      // The seeds' comparison (seed 002 Tables 2-3, seed 004 Fig. 3): each sub-distance solver
      // with the scan and with hill climbing, whatever the hull size.
      {"libgjk-sv-bf", Query::Distance, gjk_distance<S::SignedVolumes, M::BruteForce>,
       kLibgjkTolerance},
      {"libgjk-sv-hc", Query::Distance, gjk_distance<S::SignedVolumes, M::HillClimbing>,
       kLibgjkTolerance},
      {"libgjk-johnson-bf", Query::Distance, gjk_distance<S::Johnson, M::BruteForce>,
       kLibgjkTolerance},
      {"libgjk-johnson-hc", Query::Distance, gjk_distance<S::Johnson, M::HillClimbing>,
       kLibgjkTolerance},
      {"libgjk-refine-bf", Query::Distance, gjk_distance<S::RefineSet, M::BruteForce>,
       kLibgjkTolerance},
      {"libgjk-refine-hc", Query::Distance, gjk_distance<S::RefineSet, M::HillClimbing>,
       kLibgjkTolerance},
      {"fcl-ccd", Query::Distance, fcl_distance<fcl::GST_LIBCCD>, kDistanceTolerance},
      {"fcl-indep", Query::Distance, fcl_distance<fcl::GST_INDEP>, kDistanceTolerance},
      {"bullet-gjkepa2", Query::Distance, bullet_distance, kDistanceTolerance},
      {"bullet-pairdetector", Query::Distance, bullet_pair_detector, kDistanceTolerance},
      {"libgjk", Query::Collide, gjk_collide, 0.0},
      {"libgjk-bf", Query::Collide, gjk_collide_with<M::BruteForce>, 0.0},
      {"libgjk-hc", Query::Collide, gjk_collide_with<M::HillClimbing>, 0.0},
      {"fcl-ccd", Query::Collide, fcl_collide<fcl::GST_LIBCCD>, 0.0},
      {"fcl-indep", Query::Collide, fcl_collide<fcl::GST_INDEP>, 0.0},
      {"ccd-gjk", Query::Collide, ccd_gjk_intersect, 0.0},
      {"ccd-mpr", Query::Collide, ccd_mpr_intersect, 0.0},
      {"libgjk", Query::Penetration, gjk_penetration, kLibgjkTolerance},
      {"bullet-epa", Query::Penetration, bullet_penetration, kDepthTolerance},
      {"ccd-epa", Query::Penetration, ccd_gjk_penetration, kDepthTolerance},
      {"ccd-mpr", Query::Penetration, ccd_mpr_penetration, kDepthTolerance},
      {"fcl-ccd", Query::Penetration, fcl_penetration, kDepthTolerance},
      {"libgjk", Query::SignedDistance, gjk_signed_distance, kLibgjkTolerance},
      {"bullet-gjkepa2", Query::SignedDistance, bullet_signed_distance, kDepthTolerance},
      // No FCL row: FCL 0.7's signed distance (libccd's GJK, its own EPA) aborts on the touching
      // 16-vertex set, on an assertion in ComputeVisiblePatch that the polytope face is visible
      // (FCL issues 322 and 578; Debian builds it with assertions on).
  };
  return e;
}

void check_engines3(const std::string& section, const std::vector<Pair3>& pairs, const char* cls,
                    int size, const std::function<bool(const Engine3&)>& keep,
                    const ExactAnswers& exact,
                    const std::function<std::string(const Pair3&)>& describe) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> ref_distance, ref_collide, ref_depth;
  for (const Pair3& p : pairs) {
    ref_distance.push_back(gjk_distance_sv(p));
    ref_collide.push_back(gjk_collide(p));
    ref_depth.push_back(exact.overlapping ? gjk_penetration(p) : 0.0);
  }
  for (const Engine3& e : engines3()) {
    if (!keep(e)) continue;
    AgreementBuilder b(section, e.query, cls, size, e.name, e.tolerance);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const Pair3& p = pairs[i];
      const double signed_distance = exact.overlapping ? -ref_depth[i] : ref_distance[i];
      double reference = 0.0, known = nan;
      switch (e.query) {
        case Query::Distance:
          reference = ref_distance[i];
          known = p.exact_distance;
          break;
        case Query::Collide:
          reference = ref_collide[i];
          known = exact.verdict(ref_depth[i]);
          break;
        case Query::Penetration:
          reference = ref_depth[i];
          known = i < exact.depth.size() ? exact.depth[i] : nan;
          break;
        case Query::SignedDistance:
          reference = signed_distance;
          known = exact.overlapping ? (i < exact.depth.size() ? -exact.depth[i] : nan)
                                    : p.exact_distance;
          break;
      }
      b.add(e.fn(p), reference, known, signed_distance, [&] { return describe(p); });
    }
    agreement_results().push_back(b.result());
  }
}

Vec3 local_support(const gjk::Shape& s, const Vec3& d) {
  const double n = d.norm();
  const Vec3 u = n > 0.0 ? Vec3(d / n) : Vec3::UnitX();
  const Vec3 core = std::visit(
      [&](const auto& g) -> Vec3 {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, gjk::Sphere>) {
          return g.radius * u;
        } else if constexpr (std::is_same_v<G, gjk::Box>) {
          const Vec3& h = g.half_extents;
          return Vec3(d.x() >= 0 ? h.x() : -h.x(), d.y() >= 0 ? h.y() : -h.y(),
                      d.z() >= 0 ? h.z() : -h.z());
        } else if constexpr (std::is_same_v<G, gjk::Capsule>) {
          return Vec3(0, 0, d.z() >= 0 ? g.half_length : -g.half_length) + g.radius * u;
        } else if constexpr (std::is_same_v<G, gjk::Cylinder>) {
          const double radial = std::hypot(d.x(), d.y());
          const double z = d.z() >= 0 ? g.half_length : -g.half_length;
          return radial > 0.0 ? Vec3(g.radius * d.x() / radial, g.radius * d.y() / radial, z)
                              : Vec3(0, 0, z);
        } else {
          const std::vector<Vec3>& v = g.vertices();
          std::size_t best = 0;
          for (std::size_t i = 1; i < v.size(); ++i) {
            if (v[i].dot(d) > v[best].dot(d)) best = i;
          }
          return v[best];
        }
      },
      s.geometry);
  return core + s.inflation * u;
}

std::unique_ptr<btConvexShape> to_bullet(const gjk::Shape& s) {
  if (s.inflation != 0.0) return nullptr;
  return std::visit(
      [](const auto& g) -> std::unique_ptr<btConvexShape> {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, gjk::Sphere>) {
          return std::make_unique<btSphereShape>(g.radius);
        } else if constexpr (std::is_same_v<G, gjk::Box>) {
          auto b = std::make_unique<btBoxShape>(
              btVector3(g.half_extents.x(), g.half_extents.y(), g.half_extents.z()));
          b->setMargin(0.0);
          return b;
        } else if constexpr (std::is_same_v<G, gjk::Capsule>) {
          return std::make_unique<btCapsuleShapeZ>(g.radius, 2 * g.half_length);
        } else if constexpr (std::is_same_v<G, gjk::Cylinder>) {
          auto c = std::make_unique<btCylinderShapeZ>(btVector3(g.radius, g.radius, g.half_length));
          c->setMargin(0.0);
          return c;
        } else {
          auto h = std::make_unique<btConvexHullShape>();
          for (const Vec3& v : g.vertices()) h->addPoint(btVector3(v.x(), v.y(), v.z()), false);
          h->recalcLocalAabb();
          h->setMargin(0.0);
          return h;
        }
      },
      s.geometry);
}

std::shared_ptr<fcl::CollisionGeometryd> to_fcl(const gjk::Shape& shape) {
  if (shape.inflation != 0.0) throw std::invalid_argument("to_fcl: inflated shapes not mapped");
  if (const auto* box = std::get_if<gjk::Box>(&shape.geometry))
    return std::make_shared<fcl::Boxd>(2.0 * box->half_extents);
  if (const auto* sphere = std::get_if<gjk::Sphere>(&shape.geometry))
    return std::make_shared<fcl::Sphered>(sphere->radius);
  if (const auto* cyl = std::get_if<gjk::Cylinder>(&shape.geometry))
    return std::make_shared<fcl::Cylinderd>(cyl->radius, 2.0 * cyl->half_length);
  if (const auto* cap = std::get_if<gjk::Capsule>(&shape.geometry))
    return std::make_shared<fcl::Capsuled>(cap->radius, 2.0 * cap->half_length);
  const auto& hull = std::get<gjk::ConvexPolytope>(shape.geometry);
  auto vertices =
      std::make_shared<std::vector<fcl::Vector3d>>(hull.vertices().begin(), hull.vertices().end());
  auto faces = std::make_shared<std::vector<int>>();
  for (const auto& t : hull.triangles()) {
    faces->push_back(3);
    for (const std::uint32_t i : t) faces->push_back(static_cast<int>(i));
  }
  return std::make_shared<fcl::Convexd>(vertices, static_cast<int>(hull.triangles().size()), faces);
}

}  // namespace bench
