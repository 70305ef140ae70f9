// Benchmark data sets: see datasets_bench.hpp.
#include "datasets_bench.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <variant>

namespace gjk::testing {

namespace {

// Unit vector of the plane, uniform in angle, by rejection from the square.
Vec2 unit_vector_2d(Rng& rng) {
  for (;;) {
    const Vec2 p(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
    const double r2 = p.squaredNorm();
    if (r2 <= 1.0 && r2 > 1e-6) return p / std::sqrt(r2);
  }
}

double cross2(const Vec2& a, const Vec2& b) {
  return a.x() * b.y() - a.y() * b.x();
}

// Counter-clockwise order of directions by angle in [0, 2 pi), without atan2.
bool angle_less(const Vec2& a, const Vec2& b) {
  const bool upper_a = a.y() > 0.0 || (a.y() == 0.0 && a.x() > 0.0);
  const bool upper_b = b.y() > 0.0 || (b.y() == 0.0 && b.x() > 0.0);
  if (upper_a != upper_b) return upper_a;
  return cross2(a, b) > 0.0;
}

template <class V>
size_t argmax_along(const std::vector<V>& points, const V& d) {
  size_t best = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    if (points[i].dot(d) > points[best].dot(d)) best = i;
  }
  return best;
}

template <class V>
V mean_of(const std::vector<V>& points) {
  V sum = V::Zero();
  for (const V& p : points) sum += p;
  return sum / static_cast<double>(points.size());
}

std::vector<Vec2> transform_2d(const Pose2& pose, const std::vector<Vec2>& points) {
  std::vector<Vec2> out;
  out.reserve(points.size());
  for (const Vec2& p : points) out.push_back(pose.linear() * p + pose.translation());
  return out;
}

// Random rotation by an angle uniform in [0, max_angle] about a uniform random axis.
Eigen::Matrix3d small_rotation(Rng& rng, double max_angle) {
  const Vec3 axis = rng.unit_vector();
  return Eigen::AngleAxisd(rng.uniform(0.0, max_angle), axis).toRotationMatrix();
}

constexpr double kPi = 3.14159265358979323846;

// A random facet of `hull` (not a sliver): its outward unit normal and a point strictly inside
// it (barycentric weights of at least 1/30), in the hull's frame.
void facet_point(Rng& rng, const ConvexPolytope& hull, Vec3& normal, Vec3& point) {
  const auto& triangles = hull.triangles();
  if (triangles.empty()) throw std::logic_error("facet_point: flat point set");
  for (;;) {
    const auto& t =
        triangles[static_cast<size_t>(rng.uniform_int(0, static_cast<int>(triangles.size()) - 1))];
    const Vec3& v0 = hull.vertices()[t[0]];
    const Vec3& v1 = hull.vertices()[t[1]];
    const Vec3& v2 = hull.vertices()[t[2]];
    normal = (v1 - v0).cross(v2 - v0);
    const double length = normal.norm();
    if (length < 1e-6) continue;  // skip slivers
    normal /= length;
    if (normal.dot(v0 - hull.center()) < 0.0) normal = -normal;
    double w0 = rng.uniform(0.1, 1.0), w1 = rng.uniform(0.1, 1.0), w2 = rng.uniform(0.1, 1.0);
    const double sum = w0 + w1 + w2;
    point = (w0 * v0 + w1 * v1 + w2 * v2) / sum;
    return;
  }
}

// The point of `shape` (rotated by `rotation`, untranslated) farthest along `d` (unit); exact
// for every shape the mixed pairs use (no ties: the draws are continuous).
Vec3 farthest_along(const gjk::Shape& shape, const Eigen::Matrix3d& rotation, const Vec3& d) {
  const Vec3 local = rotation.transpose() * d;
  if (const auto* box = std::get_if<gjk::Box>(&shape.geometry)) {
    const Vec3& h = box->half_extents;
    return rotation * Vec3(local.x() >= 0 ? h.x() : -h.x(), local.y() >= 0 ? h.y() : -h.y(),
                           local.z() >= 0 ? h.z() : -h.z());
  }
  if (const auto* sphere = std::get_if<gjk::Sphere>(&shape.geometry)) return sphere->radius * d;
  if (const auto* capsule = std::get_if<gjk::Capsule>(&shape.geometry)) {
    const Vec3 end(0.0, 0.0, local.z() >= 0 ? capsule->half_length : -capsule->half_length);
    return rotation * end + capsule->radius * d;
  }
  const auto& v = std::get<gjk::ConvexPolytope>(shape.geometry).vertices();
  return rotation * v[argmax_along(v, local)];
}

}  // namespace

std::vector<Vec2> random_polygon_points(Rng& rng, int n) {
  if (n < 3) throw std::invalid_argument("random_polygon_points: need >= 3 vertices");
  const double min_cos_gap = -std::sqrt(0.5);  // gaps up to 3/4 pi
  std::vector<Vec2> dirs(static_cast<size_t>(n));
  for (;;) {
    for (Vec2& d : dirs) d = unit_vector_2d(rng);
    std::sort(dirs.begin(), dirs.end(), angle_less);
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) {
      const Vec2& a = dirs[static_cast<size_t>(i)];
      const Vec2& b = dirs[static_cast<size_t>((i + 1) % n)];
      ok = cross2(a, b) > 1e-3 && a.dot(b) >= min_cos_gap;
    }
    if (ok) break;
  }
  const Vec2 scale(rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5));
  for (Vec2& d : dirs) d = d.cwiseProduct(scale);
  return dirs;
}

Eigen::Matrix2d random_rotation_2d(Rng& rng) {
  const Vec2 cs = unit_vector_2d(rng);
  Eigen::Matrix2d r;
  r << cs.x(), -cs.y(), cs.y(), cs.x();
  return r;
}

std::string PolygonPair::describe() const {
  std::ostringstream s;
  s << "2D " << to_string(kind) << " #" << index << " (seed 0x" << std::hex << seed << std::dec
    << ", " << to_string(contact) << ", " << points_a.size() << " x " << points_b.size()
    << " vertices, distance " << distance << ")";
  return s.str();
}

PolygonPair make_polygon_pair(std::uint64_t seed, std::uint64_t index, int n, PairClass kind) {
  Rng rng(mix_seed(mix_seed(mix_seed(seed, index), static_cast<std::uint64_t>(kind)),
                   static_cast<std::uint64_t>(n)));
  PolygonPair pair;
  pair.kind = kind;
  pair.seed = seed;
  pair.index = index;
  pair.points_a = random_polygon_points(rng, n);
  pair.points_b = random_polygon_points(rng, n);
  pair.pose_a.linear() = random_rotation_2d(rng);
  pair.pose_a.translation() = Vec2(rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0));
  Pose2 rotated_b = Pose2::Identity();
  rotated_b.linear() = random_rotation_2d(rng);

  const std::vector<Vec2> world_a = transform_2d(pair.pose_a, pair.points_a);
  const std::vector<Vec2> world_b0 = transform_2d(rotated_b, pair.points_b);
  Vec2 translation = Vec2::Zero();

  if (kind == PairClass::Overlapping) {
    pair.contact = ContactKind::Interior;
    const Vec2 d = unit_vector_2d(rng);
    const Vec2 a_star = world_a[argmax_along(world_a, d)];
    const Vec2 b_star = world_b0[argmax_along(world_b0, Vec2(-d))];
    const double f = rng.log_uniform(1e-3, 1.0);
    const Vec2 p = a_star + f * (mean_of(world_a) - a_star);
    const Vec2 q = b_star + rng.uniform(0.0, 1.0) * (mean_of(world_b0) - b_star);
    translation = p - q;
    pair.distance = 0.0;
  } else {
    const double gap = kind == PairClass::Distant ? rng.log_uniform(0.01, 2.0)
                       : rng.chance(1.0 / 3.0)    ? 0.0
                                                  : rng.uniform01() * 1e-9;
    const bool edge_vertex = kind == PairClass::Distant || rng.chance(0.5);
    Vec2 d, p;
    if (edge_vertex) {
      // A point strictly inside edge (i, i+1) of A and the edge's outward normal.
      pair.contact = ContactKind::FaceVertex;
      const int i = rng.uniform_int(0, n - 1);
      const Vec2& v0 = world_a[static_cast<size_t>(i)];
      const Vec2& v1 = world_a[static_cast<size_t>((i + 1) % n)];
      const Vec2 e = v1 - v0;
      d = Vec2(e.y(), -e.x()).normalized();  // CCW polygon: the outward normal is on the right
      p = v0 + rng.uniform(0.1, 0.9) * e;
    } else {
      pair.contact = ContactKind::VertexVertex;
      d = unit_vector_2d(rng);
      p = world_a[argmax_along(world_a, d)];
    }
    const Vec2 b_star = world_b0[argmax_along(world_b0, Vec2(-d))];
    translation = p + gap * d - b_star;
    pair.distance = gap;
  }
  pair.pose_b.linear() = rotated_b.linear();
  pair.pose_b.translation() = translation;
  return pair;
}

std::vector<PolygonPair> make_polygon_pairs(std::uint64_t seed, int count, int n, PairClass kind) {
  std::vector<PolygonPair> pairs;
  pairs.reserve(static_cast<size_t>(std::max(count, 0)));
  for (int i = 0; i < count; ++i)
    pairs.push_back(make_polygon_pair(seed, static_cast<std::uint64_t>(i), n, kind));
  return pairs;
}

PolytopePair make_sphere_pair(std::uint64_t seed, std::uint64_t index, int n, PairClass kind) {
  if (kind != PairClass::Distant) {
    PairOptions options;
    options.min_points = options.max_points = n;
    options.distribution = PointDistribution::OnSphere;
    options.min_axis_scale = options.max_axis_scale = 1.0;
    return make_pair(mix_seed(seed, static_cast<std::uint64_t>(n)), index, kind, options);
  }
  Rng rng(mix_seed(mix_seed(mix_seed(seed, index), static_cast<std::uint64_t>(kind)),
                   static_cast<std::uint64_t>(n)));
  PolytopePair pair;
  pair.kind = kind;
  pair.contact = ContactKind::FaceVertex;
  pair.seed = seed;
  pair.index = index;
  pair.points_a = sphere_polytope_points(rng, n);
  pair.points_b = sphere_polytope_points(rng, n);
  pair.pose_a = random_pose(rng, 3.0);
  const Eigen::Matrix3d rotation_b = rng.rotation();
  pair.gap = rng.log_uniform(0.01, 2.0);

  Vec3 normal, point;
  facet_point(rng, ConvexPolytope::from_points(pair.points_a), normal, point);
  const Vec3 d = pair.pose_a.linear() * normal;
  const Vec3 p = pair.pose_a * point;
  std::vector<Vec3> world_b0;
  world_b0.reserve(pair.points_b.size());
  for (const Vec3& q : pair.points_b) world_b0.push_back(rotation_b * q);
  const Vec3 b_star = world_b0[argmax_along(world_b0, Vec3(-d))];
  pair.direction = d;
  pair.pose_b.linear() = rotation_b;
  pair.pose_b.translation() = p + pair.gap * d - b_star;
  return pair;
}

std::vector<PolytopePair> make_sphere_pairs(std::uint64_t seed, int count, int n, PairClass kind) {
  std::vector<PolytopePair> pairs;
  pairs.reserve(static_cast<size_t>(std::max(count, 0)));
  for (int i = 0; i < count; ++i)
    pairs.push_back(make_sphere_pair(seed, static_cast<std::uint64_t>(i), n, kind));
  return pairs;
}

const char* to_string(MixedKind kind) {
  switch (kind) {
    case MixedKind::BoxHull:
      return "box-hull100";
    case MixedKind::SphereHull:
      return "sphere-hull100";
    case MixedKind::CapsuleHull:
      return "capsule-hull100";
    case MixedKind::SmallLargeHull:
      return "hull8-hull512";
    case MixedKind::BoxOnBox:
      return "box-on-box";
  }
  return "?";
}

std::string MixedPair::describe() const {
  std::ostringstream s;
  s << "make_mixed_pair(0x" << std::hex << seed << std::dec << ", " << index << ", "
    << to_string(kind) << ", " << to_string(cls) << "), exact distance " << distance;
  return s.str();
}

MixedPair make_mixed_pair(std::uint64_t seed, std::uint64_t index, MixedKind kind, PairClass cls) {
  Rng rng(mix_seed(mix_seed(mix_seed(seed, index), static_cast<std::uint64_t>(cls)),
                   static_cast<std::uint64_t>(kind) + 32));
  MixedPair pair;
  pair.kind = kind;
  pair.cls = cls;
  pair.seed = seed;
  pair.index = index;
  // The table's facets (two triangles a face) place B on one of its faces.
  Vec3 table = Vec3::Zero();  // drawn for box-on-box only: the other sets keep their pairs
  if (kind == MixedKind::BoxOnBox) {
    table = Vec3(rng.uniform(0.4, 1.0), rng.uniform(0.4, 1.0), rng.uniform(0.4, 1.0));
  }
  const ConvexPolytope hull_a = kind == MixedKind::BoxOnBox
                                    ? ConvexPolytope::from_points(box_corners(table))
                                    : ConvexPolytope::from_points(sphere_polytope_points(
                                          rng, kind == MixedKind::SmallLargeHull ? 512 : 100));
  switch (kind) {
    case MixedKind::BoxHull:
    case MixedKind::BoxOnBox:
      pair.b = gjk::Shape(
          gjk::Box{Vec3(rng.uniform(0.1, 0.6), rng.uniform(0.1, 0.6), rng.uniform(0.1, 0.6))});
      break;
    case MixedKind::SphereHull:
      pair.b = gjk::Shape(gjk::Sphere{rng.uniform(0.1, 0.6)});
      break;
    case MixedKind::CapsuleHull: {
      const double radius = rng.uniform(0.05, 0.3);
      pair.b = gjk::Shape(gjk::Capsule{radius, rng.uniform(0.1, 0.6)});
      break;
    }
    case MixedKind::SmallLargeHull: {
      std::vector<Vec3> points = sphere_polytope_points(rng, 8);
      for (Vec3& q : points) q *= 0.5;
      pair.b = gjk::Shape(ConvexPolytope::from_points(points));
      break;
    }
  }
  pair.pose_a = random_pose(rng, 3.0);
  Eigen::Matrix3d rotation_b = rng.rotation();
  double gap = 0.0;
  switch (cls) {
    case PairClass::Distant:
      gap = rng.log_uniform(0.01, 2.0);
      break;
    case PairClass::Touching:
      gap = rng.uniform01() < 1.0 / 3.0 ? 0.0 : rng.log_uniform(1e-12, 1e-9);
      break;
    case PairClass::Overlapping:
      gap = -rng.log_uniform(0.01, 0.3);
      break;
  }
  Vec3 normal, point;
  facet_point(rng, hull_a, normal, point);
  if (kind == MixedKind::BoxOnBox) {  // face to face: B's axes A's, turned about the normal
    rotation_b = pair.pose_a.linear() *
                 Eigen::AngleAxisd(rng.uniform(0.0, 2.0 * M_PI), normal).toRotationMatrix();
  }
  const Vec3 d = pair.pose_a.linear() * normal;
  const Vec3 b_star = farthest_along(pair.b, rotation_b, Vec3(-d));
  pair.pose_b.linear() = rotation_b;
  pair.pose_b.translation() = pair.pose_a * point + gap * d - b_star;
  pair.a = kind == MixedKind::BoxOnBox ? gjk::Shape(gjk::Box{table}) : gjk::Shape(hull_a);
  pair.distance = std::max(gap, 0.0);
  return pair;
}

const char* to_string(TrackingClass kind) {
  switch (kind) {
    case TrackingClass::Far:
      return "Far";
    case TrackingClass::Near:
      return "Near";
    case TrackingClass::Drift:
      return "Drift";
    case TrackingClass::Deep:
      return "Deep";
  }
  return "?";
}

std::string TrackingSequence::describe() const {
  std::ostringstream s;
  s << "tracking " << to_string(kind) << " #" << index << " (seed 0x" << std::hex << seed
    << std::dec << ", " << points_a.size() << " x " << points_b.size() << " points, "
    << poses_b.size() << " steps)";
  return s.str();
}

TrackingSequence make_tracking_sequence(std::uint64_t seed, std::uint64_t index, int n,
                                        TrackingClass kind, int steps) {
  if (steps < 2) throw std::invalid_argument("make_tracking_sequence: need >= 2 steps");
  Rng rng(mix_seed(mix_seed(mix_seed(seed, index), static_cast<std::uint64_t>(kind) + 16),
                   static_cast<std::uint64_t>(n)));
  TrackingSequence seq;
  seq.kind = kind;
  seq.seed = seed;
  seq.index = index;
  seq.points_a = sphere_polytope_points(rng, n);
  seq.points_b = sphere_polytope_points(rng, n);
  seq.pose_a = random_pose(rng, 3.0);
  const double diameter = 2.0;
  const double max_angle = (kind == TrackingClass::Far ? 6.0 : 12.0) * kPi / 180.0;
  const Vec3 centre_a = seq.pose_a.translation();  // sphere points: the frame origin is the centre
  const Vec3 u = rng.unit_vector();

  Vec3 start, velocity;
  if (kind == TrackingClass::Drift || kind == TrackingClass::Deep) {
    // From 1.2 (Deep: 0.7) to 0.4 (0.3) diameters along u, with a small sideways drift.
    const double from = kind == TrackingClass::Drift ? 1.2 : 0.7;
    const double to = kind == TrackingClass::Drift ? 0.4 : 0.3;
    start = centre_a + from * diameter * u;
    Vec3 side = rng.unit_vector();
    side = (side - side.dot(u) * u).normalized();
    velocity = (-(from - to) * diameter * u) / (steps - 1) + 0.005 * diameter * side;
  } else {
    const double k = kind == TrackingClass::Far ? rng.uniform(2.5, 3.5) : rng.uniform(1.1, 1.4);
    start = centre_a + k * diameter * u;
    const double speed = 0.02 * diameter;
    for (;;) {  // constant velocity that keeps the centres more than 1.05 diameters apart
      velocity = speed * rng.unit_vector();
      bool ok = true;
      for (int s = 0; s < steps && ok; ++s)
        ok = (start + s * velocity - centre_a).norm() > 1.05 * diameter;
      if (ok) break;
    }
  }
  Eigen::Matrix3d rotation = rng.rotation();
  seq.poses_b.reserve(static_cast<size_t>(steps));
  for (int s = 0; s < steps; ++s) {
    if (s > 0) rotation = small_rotation(rng, max_angle) * rotation;
    Pose pose = Pose::Identity();
    pose.linear() = rotation;
    pose.translation() = start + s * velocity;
    seq.poses_b.push_back(pose);
  }
  return seq;
}

std::vector<TrackingSequence> make_tracking_sequences(std::uint64_t seed, int count, int n,
                                                      TrackingClass kind, int steps) {
  std::vector<TrackingSequence> out;
  out.reserve(static_cast<size_t>(std::max(count, 0)));
  for (int i = 0; i < count; ++i)
    out.push_back(make_tracking_sequence(seed, static_cast<std::uint64_t>(i), n, kind, steps));
  return out;
}

}  // namespace gjk::testing
