// The 2D engine of seed 001 (Zhang et al., "Barycode-based GJK Algorithm"): convex polygons,
// GJK distance with the barycode sub-distance algorithm (Algs. 1-5), the collision-only exit
// conditions (Alg. 6, Fig. 2), hill-climbing support on counter-clockwise polygons, and closest
// points with the separating direction (the paper's "Level 3").
#pragma once

#include "gjk/results.hpp"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <vector>

namespace gjk::planar {

using Vec2 = Eigen::Vector2d;
using Pose2 = Eigen::Isometry2d;

/// Pose from a position and a rotation angle (radians, counter-clockwise).
Pose2 make_pose(const Vec2& position, double angle);

/// Convex polygon with counter-clockwise vertices (qhull 2D hull of a point set: interior,
/// duplicate and collinear boundary points dropped). One or two points make a point or segment.
class ConvexPolygon {
 public:
  ConvexPolygon() = default;
  /// Throws std::invalid_argument when `points` is empty or holds a non-finite coordinate.
  static ConvexPolygon from_points(const std::vector<Vec2>& points);

  /// The hull's vertices, counter-clockwise.
  const std::vector<Vec2>& vertices() const { return vertices_; }
  /// Mean of the vertices (an interior point).
  const Vec2& center() const { return center_; }
  /// Largest distance from center() to a vertex (computed once, at construction).
  double bounding_radius() const { return bounding_radius_; }
  /// Radius of a disc around center() inside the polygon: the smallest distance from it to an
  /// edge's line, less a margin for rounding (0 for a point or a segment). collide() calls two
  /// polygons whose inner discs meet colliding without a support call.
  double inner_radius() const { return inner_radius_; }
  /// Number of vertices.
  int size() const { return static_cast<int>(vertices_.size()); }

  /// Index of a vertex maximising <v, d> by scanning all vertices.
  int support_brute_force(const Vec2& d) const;
  /// Same, by hill climbing from `hint` along the CCW boundary (seed 001 section II; seed 004
  /// section 3.2 in 2D): <v, d> is unimodal around a convex polygon.
  int support_hill_climbing(const Vec2& d, int hint) const;

 private:
  std::vector<Vec2> vertices_;
  Vec2 center_ = Vec2::Zero();
  double bounding_radius_ = 0.0;
  double inner_radius_ = 0.0;
};

using gjk::SupportMethod;

/// Smallest polygon for which SupportMethod::Auto climbs instead of scanning. Measured side by
/// side on seed 001's data (docs/benchmarks.md, session 50): the branch-free scan is as fast as
/// climbing or faster at 4 and 8 vertices, climbing faster from 12 (its walk mispredicts a branch
/// where the scan's conditional moves do not; at 4 vertices it was 0.85x the scan's time only
/// while the scan's running maximum branched).
constexpr int kHillClimbingMinVertices = 12;

/// The simplex step of the 2D loop. Both give the same answers.
enum class SubDistance {
  Barycode,   ///< seed 001 Algs. 2-5: the simplex reduced to v's feature, newest vertex first
  RefineSet,  ///< seed 002 section 3.1 as published: a fixed set of two points; with the new
              ///< support, the triangle's edge separating the origin from the third point is
              ///< kept (line test of Fig. 5) and v found on it (eq. 5)
};

/// Most vertices of the two polygons together for which collide() tries their edge normals as
/// separating axes before GJK (Options::axes_first). Measured in docs/benchmarks.md (issue 18,
/// seed 001's data sets): up to 8 + 8 the axis test with early exits is faster than GJK on
/// distant, touching and overlapping pairs; at 12 + 12 it still wins on distant and touching
/// pairs but loses on overlapping ones (most axes scan several vertices before their exit).
constexpr int kAxesFirstMaxVertices = 16;

/// Settings of the 2D queries.
struct Options {
  int max_iterations = 64;   ///< iteration cap (Status::MaxIterations when reached)
  double tolerance = 1e-12;  ///< relative duality gap (seed 001 Alg. 1's epsilon)
  SupportMethod support = SupportMethod::Auto;       ///< scan or hill climbing (seed 001)
  SubDistance sub_distance = SubDistance::Barycode;  ///< the simplex step
  /// collide() only: when both polygons have 3 vertices or more and kAxesFirstMaxVertices or
  /// fewer together, test their edge normals as separating axes first (seed 001's SAT, with early
  /// exits). An axis decides only with a margin: a gap beyond the touching distance (apart), or
  /// every axis overlapping by more than the rounding of its test (overlap); anything closer goes
  /// to GJK (Alg. 6), so the verdicts are GJK's. False runs Alg. 6 alone.
  bool axes_first = true;
};

/// Distance between two convex polygons (seed 001, Alg. 1).
struct DistanceResult {
  double distance = 0.0;                    ///< 0 when they touch or overlap
  double lower_bound = 0.0;                 ///< certified lower bound
  double upper_bound = 0.0;                 ///< certified upper bound
  Vec2 point_on_a = Vec2::Zero();           ///< world frame
  Vec2 point_on_b = Vec2::Zero();           ///< closest point on B
  Vec2 normal = Vec2::Zero();               ///< unit, from A towards B; zero when they overlap
  bool collision = false;                   ///< they touch or overlap
  Feature feature_on_a = Feature::Unknown;  ///< feature of A at the witness point
  Feature feature_on_b = Feature::Unknown;  ///< feature of B at the witness point
  int simplex_size = 0;                     ///< points of the final simplex (1-3; 0: inner discs)
  int iterations = 0;                       ///< GJK iterations
  Status status = Status::Converged;        ///< how the loop ended
};

/// Whether two convex polygons intersect (seed 001, Alg. 6).
struct CollisionResult {
  bool collision = false;             ///< they touch or overlap
  int iterations = 0;                 ///< GJK iterations
  Status status = Status::Converged;  ///< how the loop ended
};

/// Seed 001 Alg. 1 with the barycode sub-distance of Algs. 2-5. Polygons whose inner discs
/// (ConvexPolygon::inner_radius()) meet are answered without the loop: distance 0, a common
/// point on the line of centres as both witness points, Feature::Face (an interior point) on
/// both, 0 iterations and simplex points.
DistanceResult distance(const ConvexPolygon& a, const Pose2& pose_a, const ConvexPolygon& b,
                        const Pose2& pose_b, const Options& options = {});

/// Seed 001 Alg. 6: exits at the first separating line clearing the touching distance or when
/// the new support falls in the vertical angle of the current edge (Fig. 2(b)); small polygons
/// try their edge normals first (Options::axes_first). Touching counts as collision, as
/// distance() == 0 does. Polygons whose inner discs (inner_radius()) meet are colliding with 0
/// iterations, before either test.
CollisionResult collide(const ConvexPolygon& a, const Pose2& pose_a, const ConvexPolygon& b,
                        const Pose2& pose_b, const Options& options = {});

}  // namespace gjk::planar
