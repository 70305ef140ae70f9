// Convex shapes as plain value types with a support mapping (seed 000 eqs. 6-7).
//
// Every shape is a "core" plus a radius: the body is the Minkowski sum of the core with a ball
// of that radius. A sphere is a point core, a capsule a segment core; any shape can be inflated
// further with `inflated(shape, r)`. The engine runs GJK/EPA on the cores and accounts for the
// radii analytically, which is both exact (no curved support in the loop) and faster.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gjk {

using Vec3 = Eigen::Vector3d;
using Pose = Eigen::Isometry3d;

/// Ball of `radius` around the frame origin. Core: a point.
struct Sphere {
  double radius = 0.0;  ///< >= 0
};

/// Axis-aligned box in its own frame, centred at the origin.
struct Box {
  Vec3 half_extents = Vec3::Zero();  ///< >= 0 in each axis
};

/// Segment from (0,0,-half_length) to (0,0,+half_length), inflated by `radius`.
struct Capsule {
  double radius = 0.0;       ///< >= 0
  double half_length = 0.0;  ///< >= 0; the segment runs from z = -half_length to +half_length
};

/// Solid cylinder around the z axis, centred at the origin.
struct Cylinder {
  double radius = 0.0;       ///< >= 0
  double half_length = 0.0;  ///< >= 0; z in [-half_length, half_length]
};

/// Convex hull of a point set, with the vertex adjacency of the hull (for hill climbing,
/// seed 004 section 3.2) and its triangulated faces. Built with qhull: interior and duplicate
/// points are dropped; degenerate (coplanar, collinear, single-point) sets are accepted and
/// keep their extreme points, with no faces.
class ConvexPolytope {
 public:
  ConvexPolytope() = default;

  /// Builds the hull of `points`. Throws std::invalid_argument naming the first non-finite
  /// coordinate, or when `points` is empty.
  static ConvexPolytope from_points(const std::vector<Vec3>& points);

  /// Takes vertices that are already the extreme points of a convex set, without a hull
  /// computation; adjacency is left empty (support then scans all vertices). For callers that
  /// built the hull themselves; no check is made that the points are in convex position.
  static ConvexPolytope from_hull_vertices(std::vector<Vec3> vertices);

  /// Takes a solid convex polyhedron given by its vertices and outward-oriented triangles (every
  /// vertex on some triangle), without a hull computation: adjacency comes from the triangles'
  /// edges. For callers that know the hull's structure (a pyramid over a convex polygon) where
  /// qhull's merging of large coplanar faces would take minutes. No convexity check is made;
  /// throws std::invalid_argument for non-finite vertices, fewer than 4 vertices, no triangles
  /// or an index out of range.
  static ConvexPolytope from_hull_faces(std::vector<Vec3> vertices,
                                        std::vector<std::array<std::uint32_t, 3>> triangles);

  /// The same hull with every coordinate multiplied by `factor` (> 0): adjacency and faces are
  /// kept, nothing is recomputed. Exact for a power of two when no coordinate over- or
  /// underflows; the queries use it to bring pairs of extreme size to unit size.
  ConvexPolytope scaled(double factor) const;

  /// The hull's vertices (the extreme input points).
  const std::vector<Vec3>& vertices() const { return vertices_; }
  /// Vertex i's neighbours are adjacency()[adjacency_offsets()[i] .. adjacency_offsets()[i+1]).
  const std::vector<std::uint32_t>& adjacency() const { return adjacency_; }
  /// Offsets into adjacency(), one per vertex plus one.
  const std::vector<std::uint32_t>& adjacency_offsets() const { return adjacency_offsets_; }
  /// Outward-oriented triangles of the hull (indices into vertices()); empty when flat.
  const std::vector<std::array<std::uint32_t, 3>>& triangles() const { return triangles_; }
  /// Mean of the vertices: an interior point, used to seed GJK's first direction.
  const Vec3& center() const { return center_; }
  /// Affine dimension of the point set: 0 point, 1 segment, 2 polygon, 3 solid.
  int dimension() const { return dimension_; }
  /// Largest distance from center() to a vertex (computed once, at construction).
  double bounding_radius() const { return bounding_radius_; }
  /// Centre of the smallest ball around the vertices (Welzl's algorithm, at construction): the
  /// ball the queries' far-pair exits test. It lies in the hull but may lie on its boundary (a
  /// needle's is the midpoint of its long edge), so GJK starts from center() instead.
  const Vec3& ball_center() const { return ball_center_; }
  /// Largest distance from ball_center() to a vertex: the smallest enclosing ball's radius, at
  /// most bounding_radius().
  double ball_radius() const { return ball_radius_; }
  /// Radius of a ball around ball_center() inside the hull: the smallest distance from that
  /// centre to a face's plane, less a margin for rounding (0 for a hull without faces: flat, or
  /// from_hull_vertices()). collide() calls two shapes whose inner balls meet colliding
  /// without a support call.
  double inner_radius() const { return inner_radius_; }

  /// Index of a vertex maximising <v, direction> (seed 000 eq. 7), by a linear scan.
  int support_index(const Vec3& direction) const;
  /// The same by hill climbing (seed 004 section 3.2; seed 002 sections 4.1-4.2): from `hint`,
  /// move to the neighbour with the largest <v, direction> until none improves. On a convex
  /// hull's edge graph a local maximum is global. Falls back to the scan without adjacency.
  int support_index_climbing(const Vec3& direction, int hint) const;
  /// Where a climb along `direction` should start: the precomputed support of the fixed
  /// direction in (-1, 0, 1)^3 (not 0) nearest `direction`, or `candidate` (when it names a
  /// vertex) if that lies at least as far along it. For callers whose directions jump between
  /// calls (EPA's face normals), where the last support can be far from the next one and each
  /// climbing step waits on the one before.
  int climb_start(const Vec3& direction, int candidate) const;
  /// The smallest box around the vertices in the hull's own frame (lower and upper corners),
  /// read from the supports of +-x, +-y, +-z kept at construction: no scan.
  std::pair<Vec3, Vec3> local_bounds() const;

 private:
  void compute_bounding_radius();

  // What every query reads first, together: the vertices, the mean and its ball (GJK's start,
  // the loops' scale), the smallest ball (the far-pair exits) and the inner ball (the deep ones).
  std::vector<Vec3> vertices_;
  Vec3 center_ = Vec3::Zero();
  double bounding_radius_ = 0.0;
  double ball_radius_ = 0.0;
  Vec3 ball_center_ = Vec3::Zero();
  double inner_radius_ = 0.0;
  std::vector<std::uint32_t> adjacency_;
  std::vector<std::uint32_t> adjacency_offsets_;
  std::vector<std::array<std::uint32_t, 3>> triangles_;
  std::array<std::uint32_t, 26> direction_supports_{};
  int dimension_ = 0;
};

using Geometry = std::variant<Sphere, Box, Capsule, Cylinder, ConvexPolytope>;

/// A geometry with an extra inflation radius (0 for the plain geometry).
struct Shape {
  Geometry geometry;       ///< the core shape
  double inflation = 0.0;  ///< radius swept around the core (>= 0)

  Shape() : geometry(Sphere{}) {}
  template <class G, class = std::enable_if_t<!std::is_same_v<std::decay_t<G>, Shape>>>
  /// Any geometry, optionally inflated by `inflation_radius`.
  Shape(G&& g, double inflation_radius = 0.0)  // NOLINT: implicit from any geometry is intended
      : geometry(std::forward<G>(g)), inflation(inflation_radius) {}
};

/// The shape grown by `radius` in every direction.
inline Shape inflated(Shape shape, double radius) {
  shape.inflation += radius;
  return shape;
}

/// Throws std::invalid_argument with a message naming the field when a shape's parameters are
/// negative or not finite. Queries call it on entry; cheap.
void validate(const Shape& shape);

/// Short human-readable name: "sphere", "box", "capsule", "cylinder", "polytope".
std::string shape_name(const Shape& shape);

}  // namespace gjk
