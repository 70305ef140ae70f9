// Result types of the proximity queries. Every result says how the algorithm ended.
#pragma once

#include "gjk/shapes.hpp"

#include <array>
#include <limits>
#include <vector>

namespace gjk {

/// How a query ended. Anything but Converged means: read the bounds before trusting the value.
enum class Status {
  Converged,      ///< termination test met within the tolerances
  MaxIterations,  ///< iteration cap hit: the value is the best found, the bounds still hold
  Degenerate,     ///< numerical stall (no progress, flat simplex): best value found returned
  InvalidInput,   ///< NaN/Inf in a pose or shape parameter, or a negative size: nothing computed
};

/// Which sub-distance solver GJK uses for the simplex step. All give the same answers.
enum class SimplexSolver {
  SignedVolumes,  ///< Montanari et al. signed volumes with projections (default, most robust)
  Johnson,        ///< Johnson's recursion with bit-indexed subsets (seed 004 section 3.3)
  RefineSet,      ///< geometric refine_set / nu_compute (seed 002 section 3)
  /// seed 002 as published (Figs. 3 and 7): a fixed set of three points, one dropped and the
  /// new support added per iteration (the final simplex is still reduced to v's feature)
  RefineSetFixed,
};

/// How a convex polytope's support vertex is found.
enum class SupportMethod {
  BruteForce,    ///< scan every vertex (seed 000 eq. 7)
  HillClimbing,  ///< walk the hull's vertex adjacency from a hint (seed 004 section 3.2)
  Auto,          ///< hill climbing from kHillClimbingMinVertices vertices up, from
                 ///< kHillClimbingMinVerticesWarm with a warm start's hint, and from
                 ///< kHillClimbingMinVerticesBoolean in a cold collide() of bare cores
};

/// Hull size from which SupportMethod::Auto climbs instead of scanning (measured crossover,
/// docs/benchmarks.md).
constexpr int kHillClimbingMinVertices = 64;
/// The same for a query given a WarmStart: the climb starts at the last support vertex, a step
/// or two from the new one, where a cold climb must first find a start (measured crossover of
/// the warm tracking rows: climbing wins from 50 vertices, ties at 20; the 4-DOF example's
/// 32-vertex link hulls take 5-12 % less time in distances).
constexpr int kHillClimbingMinVerticesWarm = 32;
/// The same for a cold collide() of cores without radii, whose direction loop turns by large
/// angles between supports (cross products, not closest points), so a climb walks far. Measured
/// on the benchmark's sphere hulls against the scan: at 64 vertices the scan is faster in cache
/// and out of it, at 128 a tie, from 256 climbing is 1.2-2x faster in cache (docs/benchmarks.md).
constexpr int kHillClimbingMinVerticesBoolean = 256;

/// Feature of a body on which its witness point lies (seed 002 section 3).
enum class Feature { Unknown, Vertex, Edge, Face, Curved };

const char* to_string(Status status);
const char* to_string(SimplexSolver solver);
const char* to_string(Feature feature);

/// Query settings. Caps below 1 and negative or non-finite tolerances make every query return
/// Status::InvalidInput (never an exception).
struct QueryOptions {
  SimplexSolver solver =
      SimplexSolver::SignedVolumes;             ///< sub-distance solver (all give the same answers)
  SupportMethod support = SupportMethod::Auto;  ///< support on hulls: scan or hill climbing
  int max_iterations = 128;      ///< GJK iterations; the polytope case needs far fewer
  int max_epa_iterations = 512;  ///< EPA expansions (each adds one vertex)
  /// Relative duality-gap tolerance: GJK stops once upper - lower <= tolerance * scale, where
  /// scale is the size of the Minkowski difference. Polytopes usually stop earlier on a
  /// repeated support vertex (seed 002 section 2), which is exact.
  double tolerance = 1e-12;
  double epa_tolerance = 1e-10;  ///< relative, for EPA on curved (cylinder) cores
};

/// Caller-owned warm-start cache for one tracked pair (seed 004 sections 3-5, seed 002 4.3):
/// the last simplex as support-vertex indices of each body, the hill-climbing hints and, while
/// the pair overlaps, its last EPA polytope. Pass the same cache to every query of the pair as
/// it moves; answers equal a cold query's within the tolerances, only faster. A cache holding
/// indices that do not fit the shapes (another pair's) is ignored, never trusted. Not
/// thread-safe: one cache per pair per thread.
struct WarmStart {
  int size = 0;                   ///< vertices of the cached simplex; 0 = cold
  std::array<int, 4> index_a{};   ///< hull vertex indices of A in the cached simplex
  std::array<int, 4> index_b{};   ///< hull vertex indices of B in the cached simplex
  Vec3 direction = Vec3::Zero();  ///< last closest point of A-B (A's frame): curved cores' start
  /// Hill-climbing start on A: a vertex index, or below 0 for none (a default or reset cache:
  /// the query picks its climbs' starts as a cold one does).
  int hint_a = -1;
  int hint_b = -1;  ///< hill-climbing start on B, as hint_a
  /// Penetration tracking (seed 004 section 5): the vertices of the last converged EPA polytope
  /// of penetration() or signed_distance(), as (index in A, index in B); empty when the pair was
  /// last found apart or its cores are curved. Moved with the bodies, they are still points of
  /// A - B, so while every face keeps the origin inside, the nearest face bounds the depth from
  /// below and one support along its normal from above: when the two meet, the query needs
  /// neither GJK nor EPA's expansion. Checked at every use, never trusted.
  std::vector<std::array<int, 2>> polytope_vertices;
  /// Faces of that polytope: three indices into polytope_vertices (counter-clockwise seen from
  /// outside), then for each edge (vertex e to vertex e + 1) the face across it, as
  /// 4 * face + that face's edge.
  std::vector<std::array<int, 6>> polytope_faces;
  /// Forgets the pair: the next query starts cold. Keeps the polytope's storage, so a reused
  /// cache allocates nothing.
  void reset() {
    size = 0;
    index_a = {};
    index_b = {};
    direction = Vec3::Zero();
    hint_a = hint_b = -1;
    polytope_vertices.clear();
    polytope_faces.clear();
  }
};

/// Boolean collision (seed 000 Alg. 2, seed 001 Alg. 6).
struct CollisionResult {
  bool collision = false;             ///< the bodies touch or overlap
  int iterations = 0;                 ///< GJK iterations
  Status status = Status::Converged;  ///< how the loop ended
  /// When separated: a unit direction n (world frame, from A towards B) with the bodies on
  /// opposite sides of a plane normal to n. Zero when in collision.
  Vec3 separating_direction = Vec3::Zero();
};

/// Separation distance with witness points (seed 000 Alg. 1, eqs. 29-31).
struct DistanceResult {
  /// Euclidean distance between the bodies; 0 when they touch or overlap.
  double distance = 0.0;
  /// Certified bracket: the true distance lies in [lower_bound, upper_bound] (GJK's duality
  /// gap), whatever the status, except for InvalidInput.
  double lower_bound = 0.0;
  double upper_bound =
      std::numeric_limits<double>::infinity();  ///< certified upper bound (the distance of the
                                                ///< witness points)
  Vec3 point_on_a = Vec3::Zero();               ///< world frame
  Vec3 point_on_b = Vec3::Zero();               ///< world frame
  /// Unit vector from A towards B: (point_on_b - point_on_a) / distance when apart. When the
  /// bodies overlap it is zero (ask penetration() for a direction).
  Vec3 normal = Vec3::Zero();
  bool collision = false;                   ///< the bodies touch or overlap (distance <= tolerance)
  Feature feature_on_a = Feature::Unknown;  ///< feature of A at its witness point
  Feature feature_on_b = Feature::Unknown;  ///< feature of B at its witness point
  int simplex_size = 0;  ///< vertices of the final simplex: 1 vertex, 2 edge, 3 face of A-B
  int iterations = 0;    ///< GJK iterations
  Status status = Status::Converged;  ///< how the loop ended
};

/// Penetration by EPA (seed 000 section 3, Alg. 3, eqs. 32-35).
struct PenetrationResult {
  bool collision = false;  ///< false: the bodies are apart, depth is 0 and nothing else is set
  /// Length of the minimum translation of B that ends the overlap (seed 000 eq. 32).
  double depth = 0.0;
  /// Unit direction of that translation (from A towards B): moving B by depth * normal makes
  /// the bodies touch. point_on_a - point_on_b == depth * normal (seed 000 eq. 33).
  Vec3 normal = Vec3::Zero();
  Vec3 point_on_a = Vec3::Zero();  ///< A's point deepest inside B (world frame)
  Vec3 point_on_b = Vec3::Zero();  ///< B's point deepest inside A (world frame)
  /// Certified bracket on the depth. EPA's polytope lies inside A-B, so its nearest face is a
  /// lower bound; every support value is an upper bound. They meet on convergence; on curved
  /// cores or at the iteration cap `depth` is the upper bound, whose translation does separate.
  double lower_bound = 0.0;
  double upper_bound = 0.0;  ///< upper bound on the depth
  /// GJK + EPA iterations; 0 when a WarmStart's tracked polytope answered (seed 004 section 5);
  /// EPA's alone when a cold query of bare cores started EPA from an octahedron of supports.
  int iterations = 0;
  Status status = Status::Converged;  ///< how the loops ended
};

/// Signed distance: distance when apart, minus the penetration depth when overlapping.
struct SignedDistanceResult {
  double signed_distance =
      0.0;  ///< distance when apart (> 0), minus the depth when overlapping (< 0)
  Vec3 point_on_a = Vec3::Zero();  ///< witness point on A, world frame
  Vec3 point_on_b = Vec3::Zero();  ///< witness point on B, world frame
  /// Unit direction from A towards B in which the signed distance grows fastest (moving B).
  Vec3 normal = Vec3::Zero();
  int iterations = 0;  ///< GJK (+ EPA) iterations; 0 when a tracked EPA polytope answered
  Status status = Status::Converged;  ///< how the loops ended
};

/// Answer of "are they closer than threshold?".
struct ThresholdResult {
  bool closer = false;       ///< true: distance < threshold (certified by an upper bound)
  double lower_bound = 0.0;  ///< certified lower bound on the distance
  double upper_bound =
      std::numeric_limits<double>::infinity();  ///< certified upper bound on the distance
  int iterations = 0;                           ///< GJK iterations
  Status status = Status::Converged;            ///< how the loop ended
};

}  // namespace gjk
