// Adversarial cases with exact answers; see adversarial.hpp. Every configuration is built in a
// local frame where its answer has a closed form (or is left to the qhull reference), then both
// bodies get the same random rigid motion, which changes no distance but makes every coordinate
// inexact and every direction generic.
#include "adversarial.hpp"

#include "datasets.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <utility>

namespace gjk::testing {

namespace {

using Mat3 = Eigen::Matrix3d;
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kPi = 3.14159265358979323846;
// Seeds of the families (mixed with the copy and configuration indices).
constexpr std::uint64_t kSeedFlat = 0xADF1A7;
constexpr std::uint64_t kSeedParallel = 0xADBA4A11;
constexpr std::uint64_t kSeedContact = 0xADC047AC7;
constexpr std::uint64_t kSeedCoincident = 0xADC01AC1;
constexpr std::uint64_t kSeedOffset = 0xAD0FF5E7;
constexpr std::uint64_t kSeedCoplanar = 0xADC0F1A;
constexpr std::uint64_t kSeedCycling = 0xADC7C1E;

// The relative contact distances of the issue: 1e-12 .. 1e-3, apart (+) and overlapping (-).
const double kSeparations[] = {1e-12, 1e-9, 1e-6, 1e-3};

Mat3 axis_angle(const Vec3& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}
Mat3 yaw(double angle) {
  return axis_angle(Vec3::UnitZ(), angle);
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0e", v);
  return buf;
}

// Half-height of a rotated box below (or above) its centre: sum_j |R(2, j)| h_j.
double box_half_height(const Mat3& r, const Vec3& h) {
  return std::abs(r(2, 0)) * h.x() + std::abs(r(2, 1)) * h.y() + std::abs(r(2, 2)) * h.z();
}

// Distance from the centre of a rotated cylinder to its lowest point: the axis a = R e_z
// contributes h |a_z|, the rim r |a_xy| (not r sqrt(1 - a_z^2), which is 1.5e-8 r when a_z is
// 1 - eps: the first version of this generator had that error, and libgjk's certified lower
// bound said so).
double cylinder_half_height(const Mat3& r, double radius, double half_length) {
  return half_length * std::abs(r(2, 2)) + radius * std::hypot(r(0, 2), r(1, 2));
}

// Radius of a ball around the shape's frame origin that holds it.
double extent(const Shape& s) {
  const double core = std::visit(
      [](const auto& g) -> double {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, Sphere>) {
          return g.radius;
        } else if constexpr (std::is_same_v<G, Box>) {
          return g.half_extents.norm();
        } else if constexpr (std::is_same_v<G, Capsule>) {
          return g.half_length + g.radius;
        } else if constexpr (std::is_same_v<G, Cylinder>) {
          return std::hypot(g.radius, g.half_length);
        } else {
          double m = 0.0;
          for (const Vec3& v : g.vertices()) m = std::max(m, v.norm());
          return m;
        }
      },
      s.geometry);
  return core + s.inflation;
}

bool curved(const Shape& s) {
  return std::holds_alternative<Cylinder>(s.geometry);
}

Shape polytope(const std::vector<Vec3>& points) {
  return Shape(ConvexPolytope::from_points(points));
}

std::vector<Vec3> square(double half, double angle, double z = 0.0) {
  std::vector<Vec3> p;
  const Mat3 r = yaw(angle);
  for (const double x : {-half, half}) {
    for (const double y : {-half, half}) p.push_back(r * Vec3(x, y, z));
  }
  return p;
}

class Suite {
 public:
  explicit Suite(std::vector<AdversarialCase>& out) : out_(out) {}

  // Adds a case built in a local frame: both bodies get the same random rigid motion (uniform
  // rotation; translation uniform in [-2, 2]^3, or of length `offset` in a random direction).
  // `expected` is the analytic signed distance; NaN asks the qhull reference (polytopes and
  // boxes only), evaluated on the moved, rounded world vertices.
  void add(Rng& rng, const std::string& family, const std::string& name, const Shape& a,
           const Pose& la, const Shape& b, const Pose& lb, double expected, const std::string& why,
           double offset = 0.0, double extra_tolerance = 0.0) {
    const Mat3 r = rng.rotation();
    const Vec3 t = offset > 0.0 ? Vec3(offset * rng.unit_vector())
                                : Vec3(rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-2, 2));
    const Pose motion = make_pose(r, t);
    add_exact(family, name, a, motion * la, b, motion * lb, expected, why, extra_tolerance,
              (la.translation() - lb.translation()).norm());
  }

  // Adds a case in the given world poses, with no extra motion.
  void add_exact(const std::string& family, const std::string& name, const Shape& a,
                 const Pose& pose_a, const Shape& b, const Pose& pose_b, double expected,
                 const std::string& why, double extra_tolerance = 0.0, double separation = -1.0) {
    AdversarialCase c;
    c.family = family;
    c.name = family + "/" + name + "/#" + std::to_string(out_.size());
    c.a = a;
    c.b = b;
    c.pose_a = pose_a;
    c.pose_b = pose_b;
    c.why = why;
    if (separation < 0.0) separation = (pose_a.translation() - pose_b.translation()).norm();
    if (std::isnan(expected)) {
      const ReferenceResult ref =
          reference_query(world_vertices(a, c.pose_a), world_vertices(b, c.pose_b));
      expected = ref.signed_distance;
      c.from_qhull = true;
    }
    c.expected = expected;
    const double ea = extent(a), eb = extent(b);
    c.size = ea + eb;
    const double magnitude =
        std::max({1.0, c.pose_a.translation().norm() + ea, c.pose_b.translation().norm() + eb});
    c.tolerance = kRoundingUlps * kEps * magnitude + extra_tolerance;
    if (curved(a) || curved(b)) {
      // GJK/EPA on a curved core stop on a relative gap (QueryOptions defaults).
      const double size = ea + eb + separation;
      c.tolerance += (expected > 0.0 ? 4e-12 : 4e-10) * size;
    }
    out_.push_back(std::move(c));
  }

 private:
  std::vector<AdversarialCase>& out_;
};

// ---- (a) flat and needle-like Minkowski differences -----------------------------------------

void flat_family(Suite& suite, int copy) {
  const std::string f = "flat";
  Rng rng(mix_seed(kSeedFlat, static_cast<std::uint64_t>(copy)));
  // Coplanar squares touching edge to vertex/edge: A - B is a flat polygon containing (or 0..1e-3
  // from) the origin in its plane. In-plane overlap of flat bodies is contact: signed distance 0.
  for (const double s : {0.0, 1e-12, 1e-9, 1e-6, 1e-3, -1e-3}) {
    const double psi = rng.uniform(0, kPi / 2);
    const double reach = 0.5 * (std::abs(std::cos(psi)) + std::abs(std::sin(psi)));
    suite.add(rng, f, "coplanar-squares/sep=" + fmt(s), polytope(square(1.0, 0.0)),
              Pose::Identity(), polytope(square(0.5, psi)),
              at(Vec3(1.0 + s + reach, rng.uniform(-0.3, 0.3), 0.0)), std::max(s, 0.0),
              "flat CSO, origin in its plane");
  }
  // A flat square against a box: A - B is a slab; depth is along the square's normal.
  for (const double rel : kSeparations) {
    for (const double sign : {1.0, -1.0}) {
      const double s = sign * rel;
      const Vec3 h(0.3, 0.2, 0.1);
      suite.add(rng, f, "square-box/sep=" + fmt(s), polytope(square(1.0, 0.0)), Pose::Identity(),
                Shape(Box{h}), make_pose(yaw(rng.uniform(0, kPi)), Vec3(0, 0, h.z() + s)), s,
                "flat body against a solid");
    }
  }
  // Segments crossing at angle phi (down to 1e-9 rad: nearly parallel) at height h, and exactly
  // parallel segments side by side: A - B is a parallelogram or a segment.
  for (const double phi : {kPi / 2, 0.3, 1e-3, 1e-6, 1e-9, 0.0}) {
    for (const double h : {0.0, 1e-12, 1e-9, 1e-6, 1e-3}) {
      const double x0 = rng.uniform(-0.1, 0.1);
      const Vec3 dir(std::cos(phi), std::sin(phi), 0.0);
      // phi == 0: side by side in the plane z = 0, h apart in y.
      const Vec3 c = phi == 0.0 ? Vec3(x0, h, 0.0) : Vec3(x0, 0.0, h);
      const bool capsule = copy % 2 == 1 && phi == kPi / 2;
      const Shape a =
          capsule ? Shape(Capsule{0.0, 1.0}) : polytope({Vec3(-1, 0, 0), Vec3(1, 0, 0)});
      const Pose la =
          capsule ? make_pose(axis_angle(Vec3::UnitY(), kPi / 2), Vec3::Zero()) : Pose::Identity();
      suite.add(rng, f, "segments/phi=" + fmt(phi) + "/h=" + fmt(h), a, la,
                polytope({c - 0.8 * dir, c + 0.8 * dir}), Pose::Identity(), h,
                "A - B is a parallelogram of area ~sin(phi) or a segment");
    }
  }
  // Plates 2e-9 thick stacked, and needles 2e-9 wide crossing.
  for (const double s : {1e-12, 1e-10, 1e-9, 1e-6, -1e-12, -1e-10, -1e-9}) {
    suite.add(rng, f, "plates/sep=" + fmt(s), Shape(Box{Vec3(1, 1, 1e-9)}), Pose::Identity(),
              Shape(Box{Vec3(0.7, 0.6, 1e-9)}),
              make_pose(yaw(rng.uniform(0, kPi)),
                        Vec3(rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), 2e-9 + s)),
              s, "A - B 4e-9 thick: a nearly flat box");
    suite.add(rng, f, "needles/sep=" + fmt(s), Shape(Box{Vec3(1, 1e-9, 1e-9)}), Pose::Identity(),
              Shape(Box{Vec3(1e-9, 1, 1e-9)}),
              make_pose(yaw(rng.uniform(-0.2, 0.2)), Vec3(rng.uniform(-0.2, 0.2), 0, 2e-9 + s)), s,
              "needles 2e-9 wide crossing");
  }
}

// ---- (b) near-parallel faces ----------------------------------------------------------------

void parallel_family(Suite& suite, int copy) {
  const std::string f = "parallel";
  Rng rng(mix_seed(kSeedParallel, static_cast<std::uint64_t>(copy)));
  const Vec3 ha(2, 2, 0.5), hb(0.4, 0.3, 0.2);
  for (const double theta : {1e-9, 1e-7, 1e-5, 1e-3}) {
    for (const double s : {0.0, 1e-9, 1e-6, 1e-3, -1e-9, -1e-6, -1e-3}) {
      // B tilted by theta about a random horizontal axis, lowest vertex at height s above A's
      // top face (s < 0: pushed in; depth s along A's normal: A's face extends far around).
      const double az = rng.uniform(0, 2 * kPi);
      const Mat3 r =
          yaw(rng.uniform(0, 2 * kPi)) * axis_angle(Vec3(std::cos(az), std::sin(az), 0), theta);
      const Vec3 c(rng.uniform(-1, 1), rng.uniform(-1, 1), ha.z() + s + box_half_height(r, hb));
      const std::string name = "box-on-box/theta=" + fmt(theta) + "/sep=" + fmt(s);
      const char* why = "nearly parallel faces: GJK/EPA faces of area ~0 in A - B";
      suite.add(rng, f, name, Shape(Box{ha}), Pose::Identity(), Shape(Box{hb}), make_pose(r, c), s,
                why);
      suite.add(rng, f, name + "/swapped", Shape(Box{hb}), make_pose(r, c), Shape(Box{ha}),
                Pose::Identity(), s, why);
    }
  }
}

// ---- (c) contact at 1e-12 .. 1e-3, and (e) the same at 1e-3 size 1e6 away ---------------------

void contact_family(Suite& suite, const std::string& f, Rng& rng, double scale, double offset) {
  for (const double rel : kSeparations) {
    for (const double sign : {1.0, -1.0}) {
      const double s = sign * rel * scale;
      const std::string sep = "/sep=" + fmt(sign * rel);
      // Box on a larger box: face, edge or vertex of B down on A's top face, well inside it.
      for (const char* kind : {"face", "edge", "vertex"}) {
        const Vec3 ha =
            scale * Vec3(rng.uniform(0.6, 1), rng.uniform(0.6, 1), rng.uniform(0.3, 0.6));
        const Vec3 hb =
            scale * Vec3(rng.uniform(0.1, 0.3), rng.uniform(0.1, 0.3), rng.uniform(0.1, 0.3));
        const std::string k = kind;
        const Mat3 r = k == "face"   ? yaw(rng.uniform(0, 2 * kPi))
                       : k == "edge" ? Mat3(yaw(rng.uniform(0, 2 * kPi)) *
                                            axis_angle(Vec3::UnitX(), rng.uniform(0.3, 1.2)))
                                     : rng.rotation();
        const double room_x = ha.x() - hb.norm(), room_y = ha.y() - hb.norm();
        const Vec3 c(rng.uniform(-room_x, room_x), rng.uniform(-room_y, room_y),
                     ha.z() + s + box_half_height(r, hb));
        suite.add(rng, f, "box-box/" + k + sep, Shape(Box{ha}), Pose::Identity(), Shape(Box{hb}),
                  make_pose(r, c), s, "box " + k + " on a box face", offset);
      }
      // Hull on hull: random points below / above z = 0, each with a square in the plane z = 0
      // (turned independently), so the contact is face on face through a polygon.
      {
        std::vector<Vec3> pa = square(0.3 * scale, rng.uniform(0, kPi));
        std::vector<Vec3> pb = square(0.3 * scale, rng.uniform(0, kPi));
        while (pa.size() < 20 || pb.size() < 20) {
          const Vec3 p = rng.in_unit_ball();
          if (p.z() < -0.05 && pa.size() < 20) pa.push_back(scale * p);
          if (p.z() > 0.05 && pb.size() < 20) pb.push_back(scale * p);
        }
        suite.add(rng, f, "hull-hull" + sep, polytope(pa), Pose::Identity(), polytope(pb),
                  at(Vec3(0, 0, s)), s, "hull faces in contact through a polygon", offset);
      }
      // Sphere on a box face, edge or vertex: centre outside the box at distance r + s along a
      // direction of the feature's normal cone.
      for (const char* kind : {"face", "edge", "vertex"}) {
        const Vec3 h = scale * Vec3(rng.uniform(0.3, 1), rng.uniform(0.3, 1), rng.uniform(0.3, 1));
        const double radius = scale * rng.uniform(0.1, 0.5);
        const std::string k = kind;
        Vec3 p, n;
        if (k == "face") {
          p = Vec3(rng.uniform(-0.9, 0.9) * h.x(), rng.uniform(-0.9, 0.9) * h.y(), h.z());
          n = Vec3::UnitZ();
        } else if (k == "edge") {
          p = Vec3(rng.uniform(-0.9, 0.9) * h.x(), h.y(), h.z());
          n = Vec3(0, rng.uniform(0.1, 1), rng.uniform(0.1, 1)).normalized();
        } else {
          p = h;
          n = Vec3(rng.uniform(0.1, 1), rng.uniform(0.1, 1), rng.uniform(0.1, 1)).normalized();
        }
        suite.add(rng, f, "sphere-box/" + k + sep, Shape(Box{h}), Pose::Identity(),
                  Shape(Sphere{radius}), at(p + (radius + s) * n), s, "sphere on a box " + k,
                  offset);
      }
      // Cylinder standing, lying or tilted on a large box face.
      for (const char* kind : {"standing", "lying", "tilted"}) {
        const Vec3 ha = scale * Vec3(1, 1, 0.5) * rng.uniform(0.8, 1.2);
        const double radius = scale * rng.uniform(0.1, 0.3);
        const double half = scale * rng.uniform(0.1, 0.3);
        const std::string k = kind;
        const Mat3 r = k == "standing" ? yaw(rng.uniform(0, 2 * kPi))
                       : k == "lying"
                           ? Mat3(yaw(rng.uniform(0, 2 * kPi)) * axis_angle(Vec3::UnitX(), kPi / 2))
                           : rng.rotation();
        const double room = 0.8 * ha.x() - 2 * (radius + half);
        const Vec3 c(rng.uniform(-room, room), rng.uniform(-room, room),
                     ha.z() + s + cylinder_half_height(r, radius, half));
        suite.add(rng, f, "cylinder-box/" + k + sep, Shape(Box{ha}), Pose::Identity(),
                  Shape(Cylinder{radius, half}), make_pose(r, c), s,
                  "cylinder " + k + " on a box face (curved core)", offset);
      }
      // Capsules crossing, or parallel (exactly, or 1e-9 rad apart) one above the other.
      for (const char* kind : {"crossing", "parallel", "nearly-parallel"}) {
        const double r1 = scale * rng.uniform(0.05, 0.3), r2 = scale * rng.uniform(0.05, 0.3);
        const double h1 = scale * rng.uniform(0.3, 1), h2 = scale * rng.uniform(0.3, 1);
        const std::string k = kind;
        const double phi = k == "crossing"   ? rng.uniform(0.2, kPi - 0.2)
                           : k == "parallel" ? 0.0
                                             : 1e-9;
        const Mat3 to_x = axis_angle(Vec3::UnitY(), kPi / 2);
        const double x0 = rng.uniform(-0.2, 0.2) * h1;
        suite.add(rng, f, "capsule-capsule/" + k + sep, Shape(Capsule{r1, h1}),
                  make_pose(to_x, Vec3::Zero()), Shape(Capsule{r2, h2}),
                  make_pose(yaw(phi) * to_x, Vec3(x0, 0, r1 + r2 + s)), s, "capsule segments " + k,
                  offset);
      }
    }
  }
}

// ---- (d) coincident shapes ------------------------------------------------------------------

void coincident_family(Suite& suite, int copy) {
  const std::string f = "coincident";
  Rng rng(mix_seed(kSeedCoincident, static_cast<std::uint64_t>(copy)));
  for (const double t : {0.0, 1e-15, 1e-12, 1e-9}) {
    const std::string name = "/shift=" + fmt(t);
    const char* why = "A - B symmetric about the origin: every face at the same depth";
    {
      // Box - box = box of twice the half extents, centred at -d.
      const Vec3 h(rng.uniform(0.2, 1), rng.uniform(0.2, 1), rng.uniform(0.2, 1));
      const Vec3 d = t * rng.unit_vector();
      const Vec3 depths = 2 * h - d.cwiseAbs();
      suite.add(rng, f, "box" + name, Shape(Box{h}), Pose::Identity(), Shape(Box{h}), at(d),
                -depths.minCoeff(), why);
    }
    {
      const double r = rng.uniform(0.2, 1);
      const Vec3 d = t * rng.unit_vector();
      suite.add(rng, f, "sphere" + name, Shape(Sphere{r}), Pose::Identity(), Shape(Sphere{r}),
                at(d), -(2 * r - d.norm()), why);
    }
    {
      // Cylinder - cylinder = cylinder of radius 2r, half length 2h (disc x segment).
      const double r = rng.uniform(0.2, 1), h = rng.uniform(0.2, 1);
      const Vec3 d = t * rng.unit_vector();
      suite.add(rng, f, "cylinder" + name, Shape(Cylinder{r, h}), Pose::Identity(),
                Shape(Cylinder{r, h}), at(d),
                -std::min(2 * r - d.head<2>().norm(), 2 * h - std::abs(d.z())), why);
    }
    {
      // Capsule - capsule = segment of half length 2h inflated by 2r.
      const double r = rng.uniform(0.2, 1), h = rng.uniform(0.2, 1);
      const Vec3 d = t * rng.unit_vector();
      suite.add(rng, f, "capsule" + name, Shape(Capsule{r, h}), Pose::Identity(),
                Shape(Capsule{r, h}), at(d), -(2 * r - d.head<2>().norm()), why);
    }
    {
      // Random hull on itself: the depth is its minimum width (qhull reference).
      const std::vector<Vec3> p = random_polytope_points(
          rng, 12, PointDistribution::OnSphere,
          Vec3(rng.uniform(0.3, 1), rng.uniform(0.3, 1), rng.uniform(0.3, 1)));
      suite.add(rng, f, "hull" + name, polytope(p), Pose::Identity(), polytope(p),
                at(t * rng.unit_vector()), std::numeric_limits<double>::quiet_NaN(), why);
    }
    {
      // Flat square on itself, shifted in its plane: contact, signed distance 0.
      const double psi = rng.uniform(0, kPi);
      const Vec3 d = yaw(rng.uniform(0, 2 * kPi)) * Vec3(t, 0, 0);
      suite.add(rng, f, "flat-square" + name, polytope(square(0.5, psi)), Pose::Identity(),
                polytope(square(0.5, psi)), at(d), 0.0, "flat A - B with the origin inside");
    }
  }
}

// ---- (f) thousands of nearly coplanar points ------------------------------------------------

void coplanar_family(Suite& suite, int copy) {
  const std::string f = "coplanar";
  Rng rng(mix_seed(kSeedCoplanar, static_cast<std::uint64_t>(copy)));
  // A spherical cap: 2000 points of the sphere of radius R = 100 centred at (0, 0, -R), over the
  // unit disc (sag 5e-3: nearly coplanar, yet every point is a hull vertex), plus the apex.
  const double big_r = 100.0;
  std::vector<Vec3> cap{Vec3::Zero()};
  while (cap.size() < 2001) {
    const double x = rng.uniform(-1, 1), y = rng.uniform(-1, 1);
    const double rr = x * x + y * y;
    if (rr > 1.0) continue;
    cap.emplace_back(x, y, -rr / (big_r + std::sqrt(big_r * big_r - rr)));  // sqrt(R^2-r^2) - R
  }
  const Shape cap_shape = polytope(cap);
  const Vec3 centre(0, 0, -big_r);
  // The cap's points lie on the sphere only to ~R eps: allow for it.
  const double cap_slack = 4 * big_r * kEps;
  for (const double rel : kSeparations) {
    for (const double sign : {1.0, -1.0}) {
      const double s = sign * rel;
      const std::string sep = "/sep=" + fmt(s);
      // A box over the apex, bottom face horizontal: the apex is the highest point.
      const Vec3 hb(0.2, 0.3, 0.1);
      suite.add(rng, f, "cap-box" + sep, cap_shape, Pose::Identity(), Shape(Box{hb}),
                make_pose(yaw(rng.uniform(0, kPi)),
                          Vec3(rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05), hb.z() + s)),
                s, "2001 nearly coplanar hull vertices under a flat face", 0.0, cap_slack);
      // Spheres over random cap points along the sphere's normal there, which lies in the hull's
      // normal cone at that vertex (all points are on the sphere).
      for (int k = 0; k < 3; ++k) {
        const Vec3& v = cap[static_cast<std::size_t>(rng.uniform_int(0, 2000))];
        const Vec3 n = (v - centre).normalized();
        const double radius = 0.05;
        suite.add(rng, f, "cap-sphere" + sep, cap_shape, Pose::Identity(), Shape(Sphere{radius}),
                  at(v + (radius + s) * n), s, "sphere over one of 2001 nearly coplanar vertices",
                  0.0, cap_slack);
      }
      // Cap on cap, apex to apex (apart only: overlapping caps have no closed form here).
      if (s > 0) {
        suite.add(rng, f, "cap-cap" + sep, cap_shape, Pose::Identity(), cap_shape,
                  make_pose(axis_angle(Vec3::UnitX(), kPi), Vec3(0, 0, s)), s,
                  "two 2001-vertex nearly flat hulls apex to apex", 0.0, cap_slack);
      }
    }
  }
}

// ---- (g) configurations where GJK cycles or stalls ------------------------------------------

double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  return (p - closest_point_on_triangle(p, a, b, c)).norm();
}

void cycling_family(Suite& suite, int copy) {
  const std::string f = "cycling";
  Rng rng(mix_seed(kSeedCycling, static_cast<std::uint64_t>(copy)));
  // A point (sphere of radius 0 or 0.01) near a long thin triangle: above its interior or just
  // outside its long edge. A - B is the triangle itself: a flat sliver.
  for (const double w : {1e-3, 1e-6, 1e-9}) {
    for (const bool outside : {false, true}) {
      for (const double h : {1e-12, 1e-9, 1e-6}) {
        const Vec3 ta(-0.5, 0, 0), tb(0.5, 0, 0), tc(rng.uniform(-0.4, 0.4), w, 0);
        const double x = rng.uniform(-0.3, 0.3);
        const Vec3 p = outside ? Vec3(x, -rng.uniform(1e-12, 1e-9), h)
                               : Vec3(x, 0.5 * w * (1 - std::abs(x) / 0.5) * 0.5, h);
        const double radius = copy % 2 == 0 ? 0.0 : 0.01;
        const double d = point_triangle_distance(p, ta, tb, tc);
        suite.add(rng, f,
                  std::string("thin-triangle/") + (outside ? "outside" : "above") + "/w=" + fmt(w) +
                      "/h=" + fmt(h),
                  polytope({ta, tb, tc}), Pose::Identity(), Shape(Sphere{radius}), at(p),
                  d - radius, "long thin triangle: sliver simplices");
      }
    }
  }
  // A point 1e-15 .. 1e-9 off a face of a tetrahedron, at the face's centroid, next to an edge or
  // next to a vertex, outside or inside: the origin almost on a face of A - B.
  for (const char* kind : {"centroid", "edge", "vertex"}) {
    for (const double rel : {1e-15, 1e-12, 1e-9}) {
      for (const double sign : {1.0, -1.0}) {
        std::vector<Vec3> t{Vec3(1, 0, -0.3), Vec3(-0.5, 0.8, -0.3), Vec3(-0.5, -0.8, -0.3),
                            Vec3(0, 0, 1)};
        for (Vec3& v : t) v += 0.1 * rng.in_unit_ball();
        const int face[4][3] = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
        const int fi = rng.uniform_int(0, 3);
        const Vec3 &a = t[face[fi][0]], &b = t[face[fi][1]], &c = t[face[fi][2]];
        const Vec3 opposite = t[6 - face[fi][0] - face[fi][1] - face[fi][2]];
        Vec3 n = (b - a).cross(c - a).normalized();
        if (n.dot(opposite - a) > 0) n = -n;  // outward
        const std::string k = kind;
        const Vec3 q = k == "centroid" ? Vec3((a + b + c) / 3)
                       : k == "edge"   ? Vec3((0.5 - 1e-9) * a + (0.5 - 1e-9) * b + 2e-9 * c)
                                       : Vec3((1 - 2e-9) * a + 1e-9 * b + 1e-9 * c);
        const Vec3 p = q + sign * rel * n;
        // Exact answer: outside, the nearest face triangle; inside, minus the nearest plane.
        double outside_distance = std::numeric_limits<double>::infinity();
        double inside_depth = std::numeric_limits<double>::infinity();
        bool inside = true;
        for (const auto& fc : face) {
          const Vec3 &u = t[fc[0]], &v = t[fc[1]], &w = t[fc[2]];
          const Vec3 o = t[6 - fc[0] - fc[1] - fc[2]];
          Vec3 m = (v - u).cross(w - u).normalized();
          if (m.dot(o - u) > 0) m = -m;
          const double plane = m.dot(p - u);
          if (plane > 0) inside = false;
          inside_depth = std::min(inside_depth, -plane);
          outside_distance = std::min(outside_distance, point_triangle_distance(p, u, v, w));
        }
        suite.add(rng, f, "tetra-point/" + k + "/off=" + fmt(sign * rel), polytope(t),
                  Pose::Identity(), Shape(Sphere{0.0}), at(p),
                  inside ? -inside_depth : outside_distance,
                  "origin within 1e-15..1e-9 of a face of A - B");
      }
    }
  }
  // Box edges crossing at 1e-9 .. 1e-3 rad (both boxes stood on an edge): A - B has a sliver
  // face. Apart: analytic; overlapping: the qhull reference.
  for (const double psi : {1e-9, 1e-6, 1e-3}) {
    for (const double s : {1e-9, 1e-6, 0.0, -1e-9, -1e-6}) {
      const Vec3 h(0.5, 0.3, 0.3);
      const Mat3 ra = axis_angle(Vec3::UnitX(), kPi / 4);
      const Mat3 rb = yaw(psi) * ra;
      const double top = box_half_height(ra, h);
      const Vec3 c(0, 0, top + s + box_half_height(rb, h));
      suite.add(rng, f, "edge-edge/psi=" + fmt(psi) + "/sep=" + fmt(s), Shape(Box{h}),
                make_pose(ra, Vec3::Zero()), Shape(Box{h}), make_pose(rb, c),
                s >= 0 ? s : std::numeric_limits<double>::quiet_NaN(),
                "edges crossing at a tiny angle: sliver face in A - B");
    }
  }
  // Long thin triangles in parallel planes, turned by 1e-9 .. 0.5 rad: flat, nearly
  // coincident sliver A - B.
  for (const double w : {1e-3, 1e-6}) {
    for (const double phi : {1e-9, 1e-6, 1e-3, 0.5}) {
      for (const double s : {0.0, 1e-12, 1e-9, 1e-6}) {
        const std::vector<Vec3> tri{Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, w, 0)};
        suite.add(rng, f, "thin-triangles/w=" + fmt(w) + "/phi=" + fmt(phi) + "/sep=" + fmt(s),
                  polytope(tri), Pose::Identity(), polytope(tri),
                  make_pose(yaw(phi), Vec3(0, 0, s)), s, "two slivers nearly on top of each other");
      }
    }
  }
}

// Nearest rotation to a matrix printed in a thread (via the quaternion).
Mat3 orthonormal(const Mat3& m) {
  return Eigen::Quaterniond(m).normalized().toRotationMatrix();
}

}  // namespace

std::vector<AdversarialCase> peer_issue_cases() {
  std::vector<AdversarialCase> out;
  Suite suite(out);
  const std::string f = "peer";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    // FCL #493: 0.5 cubes sharing one rotation, kissing face to face (EPA threw "origin is
    // outside of the polytope").
    const Mat3 r = orthonormal(
        (Mat3() << 0.96193976625564348026, 0.15401279915737359216, 0.22572537250328919556,
         -0.19134171618254486313, 0.96936494951283913579, 0.15401279915737359216,
         -0.19509032201612822033, -0.19134171618254486313, 0.96193976625564348026)
            .finished());
    const Vec3 t1(2.0770063995786869349, 0.48468247475641951239, 1.1543291419087275962);
    const Vec3 t2(2, 0, 1.25), h(0.25, 0.25, 0.25);
    const Vec3 q = (r.transpose() * (t2 - t1)).cwiseAbs() - 2 * h;
    const double exact = q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    suite.add_exact(f, "fcl493-box-box", Shape(Box{h}), make_pose(r, t1), Shape(Box{h}),
                    make_pose(r, t2), exact, "FCL #493: EPA threw on kissing boxes");
  }
  // FCL #545: small cube (side 0.2, assumed) on the diagonal of a unit cube, touching three faces
  // from inside: depth 0.2 along a face normal (FCL: sqrt(3) x 0.2 along the diagonal).
  for (const bool hull : {false, true}) {
    const Shape big =
        hull ? polytope(box_corners(Vec3(0.5, 0.5, 0.5))) : Shape(Box{Vec3(0.5, 0.5, 0.5)});
    suite.add_exact(f, std::string("fcl545-cube-diagonal/") + (hull ? "hull" : "box"), big,
                    Pose::Identity(), Shape(Box{Vec3(0.1, 0.1, 0.1)}), at(Vec3(0.4, 0.4, 0.4)),
                    -0.2, "FCL #545: depth sqrt(3) too large along the diagonal");
  }
  // libccd #25: cubes of side 2 stacked 1.9 apart (GJK penetration: depth 0, NaN direction);
  // libccd #49: the same touching exactly (MPR divided by a zero depth).
  for (const bool hull : {false, true}) {
    const Shape cube = hull ? polytope(box_corners(Vec3(1, 1, 1))) : Shape(Box{Vec3(1, 1, 1)});
    const std::string k = hull ? "hull" : "box";
    suite.add_exact(f, "ccd25-stacked-cubes/" + k, cube, Pose::Identity(), cube,
                    at(Vec3(0, 0, 1.9)), -0.1, "libccd #25: NaN direction");
    suite.add_exact(f, "ccd49-touching-cubes/" + k, cube, Pose::Identity(), cube, at(Vec3(0, 0, 2)),
                    0.0, "libccd #49: division by a zero depth");
  }
  // FCL #127: sphere (r 1) and box 10 x 2 x 10 at (0, 5, 3): distance 3 (wrong witnesses in
  // FCL); the cylinder of the title (r 1, length 2, assumed) likewise.
  suite.add_exact(f, "fcl127-sphere-box", Shape(Sphere{1.0}), Pose::Identity(),
                  Shape(Box{Vec3(5, 1, 5)}), at(Vec3(0, 5, 3)), 3.0, "FCL #127: witness points");
  suite.add_exact(f, "fcl127-cylinder-box", Shape(Cylinder{1.0, 1.0}), Pose::Identity(),
                  Shape(Box{Vec3(5, 1, 5)}), at(Vec3(0, 5, 3)), 3.0, "FCL #127: witness points");
  // FCL #275: spheres r 20 and 10 at 40 apart (signed distance gave 25), and overlapping.
  suite.add_exact(f, "fcl275-spheres-apart", Shape(Sphere{20}), Pose::Identity(), Shape(Sphere{10}),
                  at(Vec3(0, 40, 0)), 10.0, "FCL #275: signed distance 25");
  suite.add_exact(f, "fcl275-spheres-overlap", Shape(Sphere{20}), Pose::Identity(),
                  Shape(Sphere{10}), at(Vec3(0, 25, 0)), -5.0, "FCL #275: signed distance");
  // coal #37: cylinder and box near touching (no convergence); lying, standing, tilted.
  {
    const Vec3 h(0.5, 0.5, 0.25);
    const double radius = 0.1, half = 0.2;
    for (const double tilt : {0.0, kPi / 2, 0.7}) {
      const Mat3 r = axis_angle(Vec3::UnitX(), tilt);
      for (const double gap : {1e-9, -1e-9, 1e-6, -1e-6}) {
        suite.add_exact(
            f, "coal37-cylinder-box/tilt=" + fmt(tilt) + "/gap=" + fmt(gap), Shape(Box{h}),
            Pose::Identity(), Shape(Cylinder{radius, half}),
            make_pose(r, Vec3(0.05, -0.02, h.z() + cylinder_half_height(r, radius, half) + gap)),
            gap, "coal #37: GJK did not converge near touching");
      }
    }
  }
  // coal #604: two boxes a few mm apart (distance wrong with a loose gjk_tolerance).
  {
    const Mat3 r1 = orthonormal((Mat3() << 0.9999195703, 0.01021849413, 0.007512347878,
                                 -0.01021878248, 0.9999477869, -3.329855922e-17, -0.007511955635,
                                 -7.676704888e-05, 0.9999717819)
                                    .finished());
    const Mat3 r2 =
        orthonormal((Mat3() << 0.9998670967, -0.01297708324, 0.009868343982, 0.01297771517,
                     0.9999157859, 5.255670031e-17, -0.009867512928, 0.0001280685574, 0.9999513067)
                        .finished());
    suite.add_exact(f, "coal604-box-box", Shape(Box{Vec3(0.1815, 0.1385, 0.1815)}),
                    make_pose(r1, Vec3(1.503354966, -0.8531707835, 0.7700092418)),
                    Shape(Box{Vec3(0.1815, 0.1815, 0.1385)}),
                    make_pose(r2, Vec3(1.48838308, -1.102020834, 0.4497073799)), nan,
                    "coal #604: distance wrong with a loose tolerance");
  }
  // MuJoCo #3383: random separated hull pairs (seed 7) reported at distance 0.
  {
    Rng rng(7);
    for (int i = 0; i < 40; ++i) {
      const auto pa = random_polytope_points(rng, rng.uniform_int(8, 30), PointDistribution::Mixed,
                                             Vec3(0.2, 0.1, 0.15));
      const auto pb = random_polytope_points(rng, rng.uniform_int(8, 30), PointDistribution::Mixed,
                                             Vec3(0.1, 0.2, 0.15));
      suite.add_exact(f, "mujoco3383-hulls", polytope(pa), random_pose(rng, 0.3), polytope(pb),
                      random_pose(rng, 0.3), nan, "MuJoCo #3383: separated pairs at distance 0");
    }
  }
  return out;
}

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names{"flat",   "parallel", "contact", "coincident",
                                              "offset", "coplanar", "cycling", "peer"};
  return names;
}

std::vector<Vec3> world_vertices(const Shape& shape, const Pose& pose) {
  std::vector<Vec3> out;
  if (const auto* p = std::get_if<ConvexPolytope>(&shape.geometry)) {
    for (const Vec3& v : p->vertices()) out.push_back(pose * v);
  } else if (const auto* b = std::get_if<Box>(&shape.geometry)) {
    for (int i = 0; i < 8; ++i) {
      const Vec3 sgn(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
      out.push_back(pose * Vec3(sgn.cwiseProduct(b->half_extents)));
    }
  }
  return out;
}

std::vector<AdversarialCase> adversarial_cases(int copies) {
  std::vector<AdversarialCase> out;
  Suite suite(out);
  for (int copy = 0; copy < copies; ++copy) {
    flat_family(suite, copy);
    parallel_family(suite, copy);
    {
      Rng rng(mix_seed(kSeedContact, static_cast<std::uint64_t>(copy)));
      contact_family(suite, "contact", rng, 1.0, 0.0);
    }
    coincident_family(suite, copy);
    {
      // 1e-3 sized shapes 1e6 from the origin: achievable accuracy ~1e6 * eps = 2.2e-10.
      Rng rng(mix_seed(kSeedOffset, static_cast<std::uint64_t>(copy)));
      contact_family(suite, "offset", rng, 1e-3, 1e6);
    }
    coplanar_family(suite, copy);
    cycling_family(suite, copy);
  }
  return out;
}

}  // namespace gjk::testing
