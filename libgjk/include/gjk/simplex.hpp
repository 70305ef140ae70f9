// The GJK simplex and the interchangeable sub-distance solvers that reduce it.
//
// A solver receives 1-4 points of the Minkowski difference A - B and must
//   - find the point v of their convex hull closest to the origin,
//   - keep only the smallest subset whose hull contains v (in the original order),
//   - store v's barycentric coordinates in `lambda` (positive, summing to 1),
// and report whether the origin lies inside a full tetrahedron (the bodies overlap).
// All the solvers give the same v on the same input; they differ in speed and in the seeds'
// derivations they follow.
#pragma once

#include "gjk/results.hpp"
#include "gjk/shapes.hpp"

#include <array>

namespace gjk {

/// One vertex of the Minkowski difference with the body points that made it (eq. 11):
/// w = a - b. Indices are the support vertices' indices in each body (-1 on curved cores), so a
/// repeated support can be recognised exactly (seed 002 section 2) and cached for warm start.
struct SupportPoint {
  Vec3 w = Vec3::Zero();  ///< Minkowski difference point a - b
  Vec3 a = Vec3::Zero();  ///< support point of A
  Vec3 b = Vec3::Zero();  ///< support point of B
  int index_a = -1;       ///< hull vertex index of a (-1: not a hull)
  int index_b = -1;       ///< hull vertex index of b
};

/// The GJK simplex: 1 to 4 support points.
struct Simplex {
  std::array<SupportPoint, 4> points;  ///< the first `size` are used
  std::array<double, 4> lambda{};      ///< barycentric coordinates of v after solving
  int size = 0;                        ///< number of points (0-4)

  /// Appends a point (size must be < 4).
  void push_back(const SupportPoint& p) { points[static_cast<size_t>(size++)] = p; }
  /// sum_i lambda_i * w_i (seed 000 eq. 29)
  Vec3 closest_point() const;
  /// sum_i lambda_i * a_i and sum_i lambda_i * b_i (seed 000 eqs. 30-31)
  Vec3 point_on_a() const;
  /// The closest point on B from the barycentric weights (see point_on_a()).
  Vec3 point_on_b() const;
};

/// Signed volumes with projection onto the best-conditioned coordinate plane (Montanari,
/// Petrinic and Barbieri, ACM TOG 2017). Top-down: solve the full simplex first, descend only
/// into the faces/edges whose sub-volume sign disagrees. Returns true when the origin is inside
/// a tetrahedron (v = 0).
bool solve_signed_volumes(Simplex& simplex, Vec3& v);

/// Johnson's sub-algorithm: the Delta cofactors of every subset, indexed by bitmask, computed by
/// the recursion of seed 004 section 3.3, and the subset chosen by the conditions of seed 002
/// eq. (4). Falls back to GJK's backup procedure (best valid subset) when rounding leaves no
/// subset satisfying all conditions.
bool solve_johnson(Simplex& simplex, Vec3& v);

/// The geometric refine_set / nu_compute of seed 002 section 3: tetrahedron faces tested as
/// separating planes (eq. 3), the triangle's Delta weights (eq. 4) classified by the sign
/// situations of Table 1 and the sub-cases of Fig. 8.
bool solve_refine_set(Simplex& simplex, Vec3& v);

/// Seed 002's scheme as published (Figs. 3 and 7): the set is not reduced to v's feature but
/// kept at three points (a triangle; fewer only while it fills up). Given the set plus the new
/// support, refine_set drops the vertex opposite the separating face with the nearest v and
/// keeps that face whole; points off v's feature keep weight 0 (the one departure from the
/// solver contract above: lambdas are >= 0, not > 0).
bool solve_refine_set_fixed(Simplex& simplex, Vec3& v);

/// Dispatch on the enum (one switch per simplex step; not in the support hot path).
bool solve_simplex(SimplexSolver solver, Simplex& simplex, Vec3& v);

}  // namespace gjk
