// Benchmark data sets built on the generators of datasets.hpp: 2D polygon pairs (seed 001's
// design), 3D sphere-polytope pairs with a known distance (seed 002 Table 2's setting), and
// tracking sequences (seed 004 section 4). Same portability rules as datasets.hpp: every draw
// comes from gjk::testing::Rng, pair i of a set is rebuilt from (seed, index) alone.
#pragma once

#include "datasets.hpp"

#include "gjk/shapes.hpp"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cstdint>
#include <string>
#include <vector>

namespace gjk::testing {

// ---------------------------------------------------------------------------------------------
// 2D: seed 001 section IV. Random convex polygons with exactly n vertices, three classes.

using Vec2 = Eigen::Vector2d;
using Pose2 = Eigen::Isometry2d;

/// n points in strictly convex position, counter-clockwise: random angles on the unit circle
/// (no angular gap wider than 3/4 pi, none narrower than 1e-3), scaled per axis by [0.5, 1.5].
/// Every point is a vertex of their hull.
std::vector<Vec2> random_polygon_points(Rng& rng, int n);

/// Uniform random rotation angle's (cos, sin), by rejection from the square (no libm).
Eigen::Matrix2d random_rotation_2d(Rng& rng);

struct PolygonPair {
  PairClass kind = PairClass::Distant;
  ContactKind contact = ContactKind::FaceVertex;  ///< FaceVertex here means edge-vertex
  std::uint64_t seed = 0;
  std::uint64_t index = 0;
  std::vector<Vec2> points_a, points_b;  ///< local frames, CCW, all hull vertices
  Pose2 pose_a = Pose2::Identity(), pose_b = Pose2::Identity();
  /// Distant and Touching: the exact distance (up to rounding of the placement). Overlapping:
  /// 0 (the pair shares a point strictly inside both bodies).
  double distance = 0.0;
  std::string describe() const;
};

/// Pair `index` of the 2D set `seed` with n-gons:
///  - Distant: a vertex of B placed at `distance` (log-uniform in [0.01, 2]) above a point
///    inside an edge of A, along the edge's outward normal (distance known exactly);
///  - Touching: the same with a gap of 0 (1/3 of the pairs) or in (0, 1e-9], the contact being
///    edge-vertex or vertex-vertex (supports along a random direction made to meet);
///  - Overlapping: a point inside B (between a vertex and the centroid) put on a point inside A
///    a log-uniform fraction in [1e-3, 1] of the way from a vertex to A's centroid.
/// A has a random rotation and a translation in [-3, 3]^2; B a random rotation.
PolygonPair make_polygon_pair(std::uint64_t seed, std::uint64_t index, int n, PairClass kind);

std::vector<PolygonPair> make_polygon_pairs(std::uint64_t seed, int count, int n, PairClass kind);

// ---------------------------------------------------------------------------------------------
// 3D static: polytopes from n points on the unit sphere (seed 002 Table 2), known distances.

/// Pair `index` of the set `seed` with two n-point sphere polytopes (every point a vertex).
///  - Distant: FaceVertex contact: a vertex of B at `gap` (log-uniform in [0.01, 2]) above a
///    point inside a facet of A, along the facet's outward normal, so `gap` IS the distance
///    (make_pair's Distant class only bounds it from below);
///  - Touching, Overlapping: make_pair() with n points on the unit sphere, no axis scaling.
PolytopePair make_sphere_pair(std::uint64_t seed, std::uint64_t index, int n, PairClass kind);

std::vector<PolytopePair> make_sphere_pairs(std::uint64_t seed, int count, int n, PairClass kind);

// ---------------------------------------------------------------------------------------------
// 3D mixed pairs: the shapes robots query (issue 18 item 4), with known distances.

enum class MixedKind {
  BoxHull,         ///< a box (half extents in [0.1, 0.6]) and a 100-point sphere polytope
  SphereHull,      ///< a sphere (radius in [0.1, 0.6]) and a 100-point sphere polytope
  CapsuleHull,     ///< a capsule (radius [0.05, 0.3], half length [0.1, 0.6]) and a 100-point one
  SmallLargeHull,  ///< an 8-point polytope on the sphere of radius 0.5 and a 512-point one
  /// a box (half extents in [0.1, 0.6]) on a face of another (the table: half extents in
  /// [0.4, 1.0]), face to face, turned about the face's normal: a body resting on a surface
  BoxOnBox,
};

/// "box-hull100", "sphere-hull100", "capsule-hull100", "hull8-hull512", "box-on-box".
const char* to_string(MixedKind kind);

struct MixedPair {
  MixedKind kind = MixedKind::BoxHull;
  PairClass cls = PairClass::Distant;
  std::uint64_t seed = 0, index = 0;
  gjk::Shape a;  ///< the sphere polytope (100 or 512 points of the unit sphere), or the table
  gjk::Shape b;  ///< the primitive, or the 8-point polytope
  Pose pose_a = Pose::Identity(), pose_b = Pose::Identity();
  /// The exact distance (up to rounding of the placement): `gap` apart, 0 when overlapping.
  double distance = 0.0;
  std::string describe() const;
};

/// Pair `index` of the mixed set `seed`. A gets a random pose (translation in [-3, 3]^3), B a
/// random rotation (box-on-box: A's, turned about the facet's normal); then B's point farthest
/// along -n, where n is the outward normal of a random
/// facet of A, is put at `gap` along n from a point inside that facet:
///  - Distant: gap log-uniform in [0.01, 2], which IS the distance (the facet's plane and the
///    parallel plane through B's point separate them, and those two points are gap apart);
///  - Touching: gap 0 (a third of the pairs) or log-uniform in [1e-12, 1e-9];
///  - Overlapping: gap -[0.01, 0.3] (log-uniform): B's point lies that far below the facet,
///    within the ball of radius 0.76 around A's centre (inside every such hull), so the distance
///    is 0.
MixedPair make_mixed_pair(std::uint64_t seed, std::uint64_t index, MixedKind kind, PairClass cls);

// ---------------------------------------------------------------------------------------------
// 3D tracking: seed 004 section 4 (Figs. 4-5) and seed 002 section 4.4 (Table 3).

enum class TrackingClass {
  Far,    ///< centres about 3 diameters apart, rotation up to 6 degrees per step
  Near,   ///< centres 1.1-1.4 diameters apart, rotation up to 12 degrees per step
  Drift,  ///< starts 1.2 diameters apart and drifts into overlap; rotation up to 12 degrees
  Deep,   ///< starts overlapping, 0.7 to 0.3 diameters apart; rotation up to 12 degrees
};

const char* to_string(TrackingClass kind);

/// A static body A and a moving body B (n points on the unit sphere each: diameter 2) over
/// `steps` poses. B moves with a constant velocity (per-sequence random direction) and turns by
/// a random angle up to the class maximum about a random axis at every step. Far and Near keep
/// the centres more than 1.05 diameters apart (never overlapping); Drift's centres go from 1.2
/// to 0.4 diameters apart, so the later steps overlap; Deep's from 0.7 to 0.3 (seed 004 section
/// 5: tracking penetration).
struct TrackingSequence {
  TrackingClass kind = TrackingClass::Far;
  std::uint64_t seed = 0;
  std::uint64_t index = 0;
  std::vector<Vec3> points_a, points_b;  ///< local frames
  Pose pose_a = Pose::Identity();
  std::vector<Pose> poses_b;  ///< one per step
  std::string describe() const;
};

TrackingSequence make_tracking_sequence(std::uint64_t seed, std::uint64_t index, int n,
                                        TrackingClass kind, int steps = 20);

std::vector<TrackingSequence> make_tracking_sequences(std::uint64_t seed, int count, int n,
                                                      TrackingClass kind, int steps = 20);

}  // namespace gjk::testing
