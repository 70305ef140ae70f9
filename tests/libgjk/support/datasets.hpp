// Seeded, deterministic data sets for the tests and benchmarks of libgjk.
//
// Every random number comes from std::mt19937_64, whose output sequence is fixed by the C++
// standard, turned into doubles and integers by the arithmetic below (never by the
// implementation-defined std::uniform_*_distribution or std::normal_distribution). Directions and
// rotations are drawn by rejection sampling, which needs only +, *, / and sqrt (all correctly
// rounded in IEEE 754), so points, poses and pairs are bit-identical on every conforming
// platform. The only libm calls are log/exp in the log-uniform draws; a last-ulp difference
// there can only change an integer size when a draw falls within an ulp of a bucket boundary.
//
// Pairs are generated independently from (seed, index): pair i of a data set can be rebuilt
// alone, which is what a minimal reproducer needs.
#pragma once

#include "gjk/results.hpp"
#include "gjk/shapes.hpp"

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gjk::testing {

/// Mixes a seed and a stream index into a well-spread 64-bit seed (SplitMix64 finaliser).
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t index);

/// Every simplex solver: the tests run each query through all of them.
inline constexpr std::array<SimplexSolver, 4> kSolvers = {
    SimplexSolver::SignedVolumes, SimplexSolver::Johnson, SimplexSolver::RefineSet,
    SimplexSolver::RefineSetFixed};

/// Deterministic random source: mt19937_64 with portable conversions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t next_u64() { return engine_(); }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  /// Uniform integer in [lo, hi] (inclusive), unbiased (rejection).
  int uniform_int(int lo, int hi);
  /// Log-uniform in [lo, hi], lo > 0.
  double log_uniform(double lo, double hi);
  /// Integer n in [lo, hi] with P(n) proportional to log((n + 1) / n): the integer part of a
  /// log-uniform draw in [lo, hi + 1).
  int log_uniform_int(int lo, int hi);
  /// True with probability p.
  bool chance(double p) { return uniform01() < p; }
  /// Uniform in the unit ball (rejection from the cube).
  Vec3 in_unit_ball();
  /// Uniform on the unit sphere (rejection from the cube, then normalised).
  Vec3 unit_vector();
  /// Uniform random rotation (unit quaternion uniform on S^3, by rejection from the 4-cube).
  Eigen::Matrix3d rotation();

 private:
  std::mt19937_64 engine_;
};

/// Where the points of a random polytope lie.
enum class PointDistribution {
  OnSphere,  ///< all on the unit sphere: every point is a hull vertex
  InBall,    ///< uniform in the unit ball: many interior points
  Mixed,     ///< each point on the sphere or in the ball with probability 1/2
};

const char* to_string(PointDistribution distribution);

/// N points of a random convex polytope in its local frame: points of the unit sphere (or ball)
/// scaled per axis by `axis_scale`, centred at the origin. The first four points always span a
/// tetrahedron of volume >= 2% of the regular one inscribed in the same sphere, so the point set
/// is solid (3D hull) whatever N >= 4.
std::vector<Vec3> random_polytope_points(
    Rng& rng, int num_points, PointDistribution distribution = PointDistribution::OnSphere,
    const Vec3& axis_scale = Vec3::Ones());

/// The benchmark set of the issue: `num_points` points uniform on the unit sphere.
inline std::vector<Vec3> sphere_polytope_points(Rng& rng, int num_points) {
  return random_polytope_points(rng, num_points, PointDistribution::OnSphere);
}

/// Random rigid pose: uniform rotation, translation uniform in the cube [-extent, extent]^3.
Pose random_pose(Rng& rng, double translation_extent = 1.0);

/// The 8 corners of the box [-h, h] (corner i takes +h along axis k when bit k of i is set).
inline std::vector<Vec3> box_corners(const Vec3& h) {
  std::vector<Vec3> c;
  for (int i = 0; i < 8; ++i)
    c.emplace_back(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z());
  return c;
}

/// The pose with this rotation and translation.
inline Pose make_pose(const Eigen::Matrix3d& rotation, const Vec3& translation) {
  Pose p = Pose::Identity();
  p.linear() = rotation;
  p.translation() = translation;
  return p;
}
/// A pure translation.
inline Pose at(const Vec3& translation) {
  return make_pose(Eigen::Matrix3d::Identity(), translation);
}

/// Applies a pose to local points.
std::vector<Vec3> transform_points(const Pose& pose, const std::vector<Vec3>& points);

enum class PairClass {
  Distant,      ///< separated: distance >= gap > 0
  Touching,     ///< distance == gap in [0, 1e-9] by construction
  Overlapping,  ///< interiors overlap (they share a point strictly inside A)
};

const char* to_string(PairClass kind);

/// How a pair was brought into contact (Touching) or placed (the others).
enum class ContactKind {
  VertexVertex,  ///< supports of A and B along a random direction d made to (nearly) meet
  FaceVertex,    ///< d is an outward facet normal of A
  FaceFace,      ///< d is a facet normal of A and B is turned so one of its facets faces -d
  Lateral,       ///< Distant: separated by a slab of width gap along d, shifted sideways
  Interior,      ///< Overlapping: a point of B placed on a point inside A
};

const char* to_string(ContactKind kind);

struct PairOptions {
  int min_points = 4;
  int max_points = 200;
  bool log_uniform_sizes = true;  ///< sizes log-uniform in [min, max]; else uniform
  PointDistribution distribution = PointDistribution::Mixed;
  /// Per-axis scale of each body, uniform in [min_axis_scale, max_axis_scale] (1: unit sphere).
  double min_axis_scale = 0.3;
  double max_axis_scale = 1.5;
  double translation_extent = 3.0;  ///< of A's pose (B is placed relative to A)
  double min_gap = 1e-6;            ///< Distant: gap log-uniform in [min_gap, max_gap]
  double max_gap = 1.0;
  double max_lateral = 1.0;        ///< Distant: sideways shift up to this
  double touching_max_gap = 1e-9;  ///< Touching: gap 0 (1/3 of pairs) or uniform in (0, this]
};

/// Two polytopes (local points + poses) placed in a known relation.
struct PolytopePair {
  PairClass kind = PairClass::Distant;
  ContactKind contact = ContactKind::VertexVertex;
  std::uint64_t seed = 0;  ///< (seed, index) rebuild this pair with make_pair()
  std::uint64_t index = 0;
  std::vector<Vec3> points_a, points_b;  ///< local frames
  Pose pose_a = Pose::Identity(), pose_b = Pose::Identity();
  Vec3 direction = Vec3::UnitX();  ///< world unit direction d from A towards B used to place B
  /// Distant: a lower bound on the distance (the slab width). Touching: the distance itself
  /// (up to rounding of the placement). Overlapping: how far inside A (towards its centroid,
  /// as a fraction of the way) the shared point sits.
  double gap = 0.0;

  std::vector<Vec3> world_a() const { return transform_points(pose_a, points_a); }
  std::vector<Vec3> world_b() const { return transform_points(pose_b, points_b); }
  /// "Distant #12 (seed 0x..., FaceVertex, 37 x 5 points)", for failure messages.
  std::string describe() const;
};

/// Pair `index` of the data set `seed`, of class `kind`. Deterministic in all four arguments.
PolytopePair make_pair(std::uint64_t seed, std::uint64_t index, PairClass kind,
                       const PairOptions& options = {});

/// `count` pairs of data set `seed`, classes cycling Distant, Touching, Overlapping.
std::vector<PolytopePair> make_pairs(std::uint64_t seed, int count,
                                     const PairOptions& options = {});

/// The fraction of its cases a long brute-force test runs: GJK_TEST_CASE_FRACTION in (0, 1],
/// 1 when unset. scripts/test.sh sets 0.2 under the sanitizers, which look for memory and UB
/// errors rather than rare geometry (the brute-force references run ~30x slower there).
/// Invalid values throw std::invalid_argument naming the variable and the value.
double case_fraction();

/// `full` cases scaled by case_fraction(), at least `minimum`.
int case_count(int full, int minimum = 1);

}  // namespace gjk::testing
