// Seeded data sets: see datasets.hpp for the portability rules followed here.
#include "datasets.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gjk::testing {

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t index) {
  // SplitMix64 (Steele, Lea, Flood 2014) applied to seed + (index + 1) * golden gamma.
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int Rng::uniform_int(int lo, int hi) {
  if (hi < lo) throw std::invalid_argument("Rng::uniform_int: empty range");
  const std::uint64_t range = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
  // Largest multiple of `range` representable: draws at or above it are rejected (no bias).
  const std::uint64_t bound = (std::numeric_limits<std::uint64_t>::max() / range) * range;
  std::uint64_t x;
  do {
    x = engine_();
  } while (x >= bound);
  return static_cast<int>(static_cast<std::int64_t>(lo) + static_cast<std::int64_t>(x % range));
}

double Rng::log_uniform(double lo, double hi) {
  if (!(lo > 0.0) || hi < lo) throw std::invalid_argument("Rng::log_uniform: need 0 < lo <= hi");
  const double value = lo * std::exp(uniform01() * std::log(hi / lo));
  return std::min(std::max(value, lo), hi);
}

int Rng::log_uniform_int(int lo, int hi) {
  if (lo < 1 || hi < lo) throw std::invalid_argument("Rng::log_uniform_int: need 1 <= lo <= hi");
  const double x = lo * std::exp(uniform01() * std::log((hi + 1.0) / lo));
  return std::min(std::max(static_cast<int>(std::floor(x)), lo), hi);
}

Vec3 Rng::in_unit_ball() {
  for (;;) {
    const Vec3 p(uniform(-1.0, 1.0), uniform(-1.0, 1.0), uniform(-1.0, 1.0));
    if (p.squaredNorm() <= 1.0) return p;
  }
}

Vec3 Rng::unit_vector() {
  for (;;) {
    const Vec3 p(uniform(-1.0, 1.0), uniform(-1.0, 1.0), uniform(-1.0, 1.0));
    const double r2 = p.squaredNorm();
    if (r2 <= 1.0 && r2 > 1e-6) return p / std::sqrt(r2);
  }
}

Eigen::Matrix3d Rng::rotation() {
  for (;;) {
    const double w = uniform(-1.0, 1.0), x = uniform(-1.0, 1.0), y = uniform(-1.0, 1.0),
                 z = uniform(-1.0, 1.0);
    const double r2 = w * w + x * x + y * y + z * z;
    if (r2 <= 1.0 && r2 > 1e-6) {
      const double inv = 1.0 / std::sqrt(r2);
      return Eigen::Quaterniond(w * inv, x * inv, y * inv, z * inv).toRotationMatrix();
    }
  }
}

const char* to_string(PointDistribution distribution) {
  switch (distribution) {
    case PointDistribution::OnSphere:
      return "OnSphere";
    case PointDistribution::InBall:
      return "InBall";
    case PointDistribution::Mixed:
      return "Mixed";
  }
  return "?";
}

const char* to_string(PairClass kind) {
  switch (kind) {
    case PairClass::Distant:
      return "Distant";
    case PairClass::Touching:
      return "Touching";
    case PairClass::Overlapping:
      return "Overlapping";
  }
  return "?";
}

const char* to_string(ContactKind kind) {
  switch (kind) {
    case ContactKind::VertexVertex:
      return "VertexVertex";
    case ContactKind::FaceVertex:
      return "FaceVertex";
    case ContactKind::FaceFace:
      return "FaceFace";
    case ContactKind::Lateral:
      return "Lateral";
    case ContactKind::Interior:
      return "Interior";
  }
  return "?";
}

namespace {

Vec3 draw_point(Rng& rng, PointDistribution distribution) {
  switch (distribution) {
    case PointDistribution::OnSphere:
      return rng.unit_vector();
    case PointDistribution::InBall:
      return rng.in_unit_ball();
    case PointDistribution::Mixed:
      return rng.chance(0.5) ? rng.unit_vector() : rng.in_unit_ball();
  }
  return rng.unit_vector();
}

// Regular tetrahedron inscribed in the unit sphere: volume 8 / (9 sqrt 3).
constexpr double kRegularTetraVolume = 0.51320024660218524;

}  // namespace

std::vector<Vec3> random_polytope_points(Rng& rng, int num_points, PointDistribution distribution,
                                         const Vec3& axis_scale) {
  if (num_points < 4) throw std::invalid_argument("random_polytope_points: need >= 4 points");
  std::vector<Vec3> points;
  points.reserve(static_cast<size_t>(num_points));
  // A solid start: redraw the first four until they span a fat enough tetrahedron.
  for (;;) {
    points.clear();
    for (int i = 0; i < 4; ++i) points.push_back(draw_point(rng, distribution));
    const double volume =
        std::abs(
            (points[1] - points[0]).dot((points[2] - points[0]).cross(points[3] - points[0]))) /
        6.0;
    if (volume >= 0.02 * kRegularTetraVolume) break;
  }
  for (int i = 4; i < num_points; ++i) points.push_back(draw_point(rng, distribution));
  for (Vec3& p : points) p = p.cwiseProduct(axis_scale);
  return points;
}

Pose random_pose(Rng& rng, double translation_extent) {
  Pose pose = Pose::Identity();
  pose.linear() = rng.rotation();
  pose.translation() = Vec3(rng.uniform(-translation_extent, translation_extent),
                            rng.uniform(-translation_extent, translation_extent),
                            rng.uniform(-translation_extent, translation_extent));
  return pose;
}

std::vector<Vec3> transform_points(const Pose& pose, const std::vector<Vec3>& points) {
  std::vector<Vec3> out;
  out.reserve(points.size());
  for (const Vec3& p : points) out.push_back(pose.linear() * p + pose.translation());
  return out;
}

std::string PolytopePair::describe() const {
  std::ostringstream s;
  s << to_string(kind) << " #" << index << " (seed 0x" << std::hex << seed << std::dec << ", "
    << to_string(contact) << ", " << points_a.size() << " x " << points_b.size() << " points, gap "
    << gap << ")";
  return s.str();
}

namespace {

// Outward unit normal of a random hull facet of `points` (local frame).
Vec3 random_facet_normal(Rng& rng, const std::vector<Vec3>& points) {
  const ConvexPolytope hull = ConvexPolytope::from_points(points);
  const auto& triangles = hull.triangles();
  if (triangles.empty()) throw std::logic_error("random_facet_normal: flat point set");
  for (;;) {
    const auto& t =
        triangles[static_cast<size_t>(rng.uniform_int(0, static_cast<int>(triangles.size()) - 1))];
    const Vec3& a = hull.vertices()[t[0]];
    const Vec3 n = (hull.vertices()[t[1]] - a).cross(hull.vertices()[t[2]] - a);
    const double length = n.norm();
    if (length > 1e-9) return n / length;  // skip qhull's zero-area triangles of merged facets
  }
}

size_t argmax_along(const std::vector<Vec3>& points, const Vec3& d) {
  size_t best = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    if (points[i].dot(d) > points[best].dot(d)) best = i;
  }
  return best;
}

Vec3 mean_of(const std::vector<Vec3>& points) {
  Vec3 sum = Vec3::Zero();
  for (const Vec3& p : points) sum += p;
  return sum / static_cast<double>(points.size());
}

}  // namespace

PolytopePair make_pair(std::uint64_t seed, std::uint64_t index, PairClass kind,
                       const PairOptions& options) {
  Rng rng(mix_seed(mix_seed(seed, index), static_cast<std::uint64_t>(kind)));
  PolytopePair pair;
  pair.kind = kind;
  pair.seed = seed;
  pair.index = index;

  auto size = [&] {
    return options.log_uniform_sizes ? rng.log_uniform_int(options.min_points, options.max_points)
                                     : rng.uniform_int(options.min_points, options.max_points);
  };
  auto scale = [&] {
    return Vec3(rng.uniform(options.min_axis_scale, options.max_axis_scale),
                rng.uniform(options.min_axis_scale, options.max_axis_scale),
                rng.uniform(options.min_axis_scale, options.max_axis_scale));
  };
  const int n_a = size();
  const int n_b = size();
  const Vec3 scale_a = scale();
  const Vec3 scale_b = scale();
  pair.points_a = random_polytope_points(rng, n_a, options.distribution, scale_a);
  pair.points_b = random_polytope_points(rng, n_b, options.distribution, scale_b);
  pair.pose_a = random_pose(rng, options.translation_extent);
  Eigen::Matrix3d rotation_b = rng.rotation();

  switch (kind) {
    case PairClass::Distant:
      pair.contact = ContactKind::Lateral;
      pair.direction = rng.unit_vector();
      pair.gap = rng.log_uniform(options.min_gap, options.max_gap);
      break;
    case PairClass::Touching: {
      pair.contact = static_cast<ContactKind>(rng.uniform_int(0, 2));
      pair.gap = rng.chance(1.0 / 3.0) ? 0.0 : rng.uniform01() * options.touching_max_gap;
      if (pair.contact == ContactKind::VertexVertex) {
        pair.direction = rng.unit_vector();
      } else {
        pair.direction = pair.pose_a.linear() * random_facet_normal(rng, pair.points_a);
      }
      if (pair.contact == ContactKind::FaceFace) {
        // Turn B so that one of its facet normals points along -d, with a random twist about d.
        const Vec3 n_b = random_facet_normal(rng, pair.points_b);
        const Eigen::Quaterniond align = Eigen::Quaterniond::FromTwoVectors(n_b, -pair.direction);
        double c, s;
        for (;;) {
          c = rng.uniform(-1.0, 1.0);
          s = rng.uniform(-1.0, 1.0);
          const double r2 = c * c + s * s;
          if (r2 <= 1.0 && r2 > 1e-6) {
            const double inv = 1.0 / std::sqrt(r2);
            c *= inv;
            s *= inv;
            break;
          }
        }
        const Vec3& d = pair.direction;
        const Eigen::Quaterniond twist(c, s * d.x(), s * d.y(), s * d.z());
        rotation_b = (twist * align).normalized().toRotationMatrix();
      }
      break;
    }
    case PairClass::Overlapping:
      pair.contact = ContactKind::Interior;
      pair.direction = rng.unit_vector();
      pair.gap = rng.log_uniform(1e-6, 1.0);
      break;
  }

  const std::vector<Vec3> world_a = pair.world_a();
  Pose rotated_b = Pose::Identity();
  rotated_b.linear() = rotation_b;
  const std::vector<Vec3> world_b0 = transform_points(rotated_b, pair.points_b);
  const Vec3& d = pair.direction;
  const Vec3 a_star = world_a[argmax_along(world_a, d)];
  const Vec3 b_star = world_b0[argmax_along(world_b0, -d)];

  Vec3 translation;
  if (kind == PairClass::Overlapping) {
    // p strictly inside A (between a boundary point and the centroid), q in B: put q on p.
    const Vec3 p = a_star + pair.gap * (mean_of(world_a) - a_star);
    const Vec3 q = b_star + rng.uniform01() * (mean_of(world_b0) - b_star);
    translation = p - q;
  } else {
    // B's lowest point along d goes to A's highest plus the gap: the planes through them
    // separate the bodies by exactly `gap` along d, and (without a sideways shift) the two
    // support points realise that distance.
    translation = a_star - b_star + pair.gap * d;
    if (kind == PairClass::Distant) {
      Vec3 side = rng.unit_vector();
      side -= side.dot(d) * d;
      if (side.norm() > 1e-6)
        translation += rng.uniform(0.0, options.max_lateral) * side.normalized();
    }
  }
  pair.pose_b.linear() = rotation_b;
  pair.pose_b.translation() = translation;
  return pair;
}

std::vector<PolytopePair> make_pairs(std::uint64_t seed, int count, const PairOptions& options) {
  std::vector<PolytopePair> pairs;
  pairs.reserve(static_cast<size_t>(std::max(count, 0)));
  static constexpr PairClass kClasses[3] = {PairClass::Distant, PairClass::Touching,
                                            PairClass::Overlapping};
  for (int i = 0; i < count; ++i) {
    pairs.push_back(make_pair(seed, static_cast<std::uint64_t>(i), kClasses[i % 3], options));
  }
  return pairs;
}

double case_fraction() {
  static const double fraction = [] {
    const char* text = std::getenv("GJK_TEST_CASE_FRACTION");
    if (text == nullptr || *text == '\0') return 1.0;
    double value = 0.0;
    const char* end = text + std::char_traits<char>::length(text);
    const auto [ptr, ec] = std::from_chars(text, end, value);  // locale-independent
    if (ec != std::errc() || ptr != end || !(value > 0.0 && value <= 1.0))
      throw std::invalid_argument(
          std::string("GJK_TEST_CASE_FRACTION: expected a number in (0, 1], got '") + text + "'");
    return value;
  }();
  return fraction;
}

int case_count(int full, int minimum) {
  return std::max(minimum, static_cast<int>(std::lround(full * case_fraction())));
}

}  // namespace gjk::testing
