// An independent exact reference ("oracle") for the proximity of two convex polytopes.
//
// Nothing here calls the libgjk engine: the Minkowski difference A - B is built explicitly as
// the point set {a_i - b_j}, its convex hull is taken with qhull (reentrant C API), and then
//   - origin outside the hull: distance = min over hull triangles of the point-triangle
//     distance (closest_point_on_triangle below), with the closest point of A - B;
//   - origin inside: penetration depth = min over hull facet planes of the plane's distance
//     from the origin, with that facet's outward normal.
// Each body's own hull (qhull again) gives a brute-force signed distance of any point to the
// body, to check that witness points lie on the surfaces.
//
// Cost: qhull of |A| * |B| points; compute one ReferenceResult per pair and reuse it.
//
// A second reference, feature_reference_query(), needs no Minkowski difference and no qhull
// (with hulls from ReferenceHull::build_brute_force): it enumerates the feature pairs of the two
// bodies (vertex-facet, facet-vertex, edge-edge distances; face normals and edge-edge cross
// products as separating-axis candidates). It is ~10x cheaper on small hulls, which is what makes
// the 10-million-pair run affordable; the ctest run checks the two references against each other.
#pragma once

#include "gjk/shapes.hpp"

#include <array>
#include <vector>

namespace gjk::testing {

/// Closest point to `p` on the segment [a, b] (a degenerate segment returns a).
Vec3 closest_point_on_segment(const Vec3& p, const Vec3& a, const Vec3& b);

/// Closest point to `p` on the solid triangle (a, b, c), by Voronoi-region classification
/// (Ericson, Real-Time Collision Detection, section 5.1.5) with a guard for degenerate
/// (collinear or coincident) triangles, which fall back to the nearest of the three edges.
Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// Closest points between the segments [p0, p1] and [q0, q1]: the unconstrained solution when
/// both of its parameters lie in [0, 1], else the best of the four endpoint-to-segment pairs.
/// Every candidate is a pair of points of the segments and the optimum is among them, so the
/// result is exact up to rounding even for (nearly) parallel or degenerate segments.
void closest_points_between_segments(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                                     Vec3& on_p, Vec3& on_q);

/// A convex hull computed by qhull ("Qt": triangulated facets).
class ReferenceHull {
 public:
  struct Facet {
    std::array<int, 3> vertex{};  ///< indices into points(), counter-clockwise seen from outside
    Vec3 normal = Vec3::Zero();   ///< outward unit normal (qhull's hyperplane)
    double offset = 0.0;          ///< normal . x + offset == 0 on the facet, < 0 inside
  };

  /// Throws std::runtime_error when qhull fails (e.g. a flat point set).
  static ReferenceHull build(const std::vector<Vec3>& points);

  /// The same hull without qhull, by brute force over all point triples (O(n^4): for small
  /// sets, n <= ~30). A triple is a facet when no other point lies above its plane by more than
  /// 1e-12 of the set's size; on a face with 4+ coplanar points every triangle of the face is
  /// kept (overlapping facets are harmless to every query here). Throws std::runtime_error for
  /// fewer than 4 points or a set with no solid triangle.
  static ReferenceHull build_brute_force(const std::vector<Vec3>& points);

  const std::vector<Vec3>& points() const { return points_; }
  const std::vector<Facet>& facets() const { return facets_; }

  /// max over the points of <p, direction> (the support function h).
  double support(const Vec3& direction) const;

  /// Largest facet plane value normal . p + offset: <= 0 inside, and then minus the distance to
  /// the boundary; > 0 outside (a lower bound on the distance there).
  double max_plane_value(const Vec3& p) const;

  /// Exact signed distance of p to the hull's boundary: > 0 outside (distance to the solid, by
  /// the nearest triangle), < 0 inside (minus the distance to the nearest facet plane).
  double signed_distance(const Vec3& p) const;

  /// Point of the boundary nearest p (by brute force over the triangles).
  Vec3 closest_boundary_point(const Vec3& p) const;

  /// Indices (into points()) of the points that are hull vertices, increasing.
  const std::vector<int>& vertex_ids() const { return vertex_ids_; }

  /// Largest distance of a point from the points' mean: the size of the body.
  double radius() const { return radius_; }

 private:
  std::vector<Vec3> points_;
  std::vector<Facet> facets_;
  std::vector<int> vertex_ids_;
  double radius_ = 0.0;
};

/// max_i <a_i, n> - min_j <b_j, n>: the support function of A - B, by brute force.
double cso_support(const std::vector<Vec3>& world_a, const std::vector<Vec3>& world_b,
                   const Vec3& n);

struct ReferenceResult {
  bool overlap = false;          ///< the origin is inside A - B (some facet plane is not > 0)
  double distance = 0.0;         ///< when apart
  double depth = 0.0;            ///< when overlapping
  double signed_distance = 0.0;  ///< distance, or -depth
  /// Apart: the point of A - B nearest the origin (so B - A's is its negation).
  Vec3 closest_cso_point = Vec3::Zero();
  /// Unit vector from A towards B: apart, -closest / |closest|; overlapping, the outward normal
  /// of the facet of A - B nearest the origin (moving B by depth * normal ends the overlap).
  Vec3 normal = Vec3::Zero();
  /// Overlapping: true when every facet plane within `unique_margin` of the minimum has (within
  /// 1e-6) the same normal, so the minimum translation direction is well defined.
  bool unique_normal = true;
  /// Overlapping: distance of the nearest facet plane whose normal differs from `normal`.
  double second_depth = 0.0;
  double scale = 1.0;  ///< max(1, radius of A, radius of B): the size tolerances are relative to
  int cso_points = 0;  ///< |A| * |B|
  int cso_facets = 0;
};

/// The reference for two polytopes given by their hulls (built from world-frame points). The
/// difference is built from the hull vertices of each body: every vertex of A - B is a difference
/// of vertices, so interior points would only slow qhull down. `unique_margin` is the depth gap
/// under which two facets count as co-minimal.
ReferenceResult reference_query(const ReferenceHull& a, const ReferenceHull& b,
                                double unique_margin = 1e-6);

/// The same result from the features of the two hulls, without building A - B:
///   - overlap test and depth by separating axes: h(n) = max_a <a, n> - min_b <b, n> over the
///     unit facet normals of A and of B (negated) and the normalised cross products of every
///     edge pair (both signs). Every facet normal of A - B is among them, and h(n) >= depth for
///     any unit n when the origin is inside A - B, so the minimum is the depth exactly; the
///     origin is outside exactly when some candidate has h(n) < 0;
///   - apart: distance = min over vertex-facet, facet-vertex and edge-edge pairs (bounding-ball
///     pruning), since the closest points of two polytopes lie on such a pair.
/// Facets and edges are those of the given hulls (triangulated: diagonals of coplanar faces
/// only add candidates that are never better than the true ones). `cso_points` and
/// `cso_facets` are left 0.
ReferenceResult feature_reference_query(const ReferenceHull& a, const ReferenceHull& b,
                                        double unique_margin = 1e-6);

/// Same, from world-frame point sets (any points: interior ones are fine).
ReferenceResult reference_query(const std::vector<Vec3>& world_a, const std::vector<Vec3>& world_b,
                                double unique_margin = 1e-6);

}  // namespace gjk::testing
