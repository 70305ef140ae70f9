// Signed-volumes sub-distance solver (Montanari, Petrinic, Barbieri, "Improving the GJK
// algorithm for faster and more reliable distance queries between convex objects", ACM TOG
// 36(3), 2017). Barycentric coordinates are ratios of signed volumes (areas, lengths) of the
// simplex with the origin's projection substituted for one vertex; a coordinate whose sign
// disagrees with the whole simplex's names the facet to descend into. Projecting onto the
// coordinate plane (axis) of largest area (length) keeps the ratios well conditioned.
#include "simplex_common.hpp"

#include <cmath>

namespace gjk {
namespace {

using detail::SubSimplex;

// Plain comparisons combined with & and | (no short-circuit branches: which signs agree is
// data, and the four branches of && and || mispredicted about once per solver call).
bool same_sign(double a, double b) {
  return ((a > 0.0) & (b > 0.0)) | ((a < 0.0) & (b < 0.0));
}

// The axis of the largest |t_i|, the first on ties (as Eigen's maxCoeff), chosen by selects: the
// visitor's branches on the data mispredicted about once per triangle.
int largest_axis(const Vec3& t) {
  const double ax = std::abs(t.x()), ay = std::abs(t.y()), az = std::abs(t.z());
  const bool y_over_x = ay > ax;
  const double largest = y_over_x ? ay : ax;
  return az > largest ? 2 : static_cast<int>(y_over_x);
}

// Segment p[i0] p[i1].
// degenerate_length2 is the square of the degenerate length (no square root per call).
SubSimplex s1d(const Simplex& s, int i0, int i1, double degenerate_length2) {
  const Vec3& s1 = s.points[static_cast<size_t>(i0)].w;
  const Vec3& s2 = s.points[static_cast<size_t>(i1)].w;
  const Vec3 t = s2 - s1;
  const double tt = t.squaredNorm();
  const int both[2] = {i0, i1};
  if (tt <= degenerate_length2) return detail::nearest_vertex(s, both, 2);
  // Projection of the origin on the line, then 1D barycentric coordinates along the axis of
  // largest extent: lambda_1 = (p - s2)_I / (s1 - s2)_I, lambda_2 = (s1 - p)_I / (s1 - s2)_I.
  const Vec3 p = s2 - (s2.dot(t) / tt) * t;
  const int axis = largest_axis(t);
  const double mu = s1[axis] - s2[axis];
  const double c1 = p[axis] - s2[axis];
  const double c2 = s1[axis] - p[axis];
  SubSimplex out;
  if (same_sign(mu, c1) && same_sign(mu, c2)) {
    out.add(i0, c1 / mu);
    out.add(i1, c2 / mu);
    out.v = out.lambda[0] * s1 + out.lambda[1] * s2;
  } else {
    const int nearer = same_sign(mu, c1) ? i0 : i1;  // the origin projects beyond that end
    out.add(nearer, 1.0);
    out.v = s.points[static_cast<size_t>(nearer)].w;
  }
  out.norm2 = out.v.squaredNorm();
  return out;
}

SubSimplex best_of(const SubSimplex& a, const SubSimplex& b) {
  return b.norm2 < a.norm2 ? b : a;
}

// Squared degenerate length from the squared longest edge (issue 18: the solver took a square
// root per call for thresholds that compare fine squared).
constexpr double kDegenerate2 = detail::kDegenerateRelative * detail::kDegenerateRelative;

// A triangle's signed areas: mu, twice its area projected on the coordinate plane where that is
// largest, and c[i], the same with the origin's projection on its plane in place of vertex i.
// `flat` (nothing else set) when |n| <= k * scale^2, scale2 being the squared longest edge.
struct TriangleAreas {
  bool flat = true;
  double mu = 0.0;
  double c[3] = {0.0, 0.0, 0.0};
};

TriangleAreas triangle_areas(const Vec3& s1, const Vec3& s2, const Vec3& s3, double scale2) {
  TriangleAreas t;
  const Vec3 n = (s2 - s1).cross(s3 - s1);
  const double nn = n.squaredNorm();
  const double degenerate_area = detail::kDegenerateRelative * scale2;
  if (nn <= degenerate_area * degenerate_area) return t;
  t.flat = false;
  const Vec3 p = n * (s1.dot(n) / nn);  // origin projected on the triangle's plane
  const int drop = largest_axis(n);
  const int a = (drop + 1) % 3, b = (drop + 2) % 3;
  // Twice the signed area of (x, y, z) projected on the (a, b) plane; area(s1, s2, s3) == n[drop].
  auto area = [a, b](const Vec3& x, const Vec3& y, const Vec3& z) {
    return (y[a] - x[a]) * (z[b] - x[b]) - (y[b] - x[b]) * (z[a] - x[a]);
  };
  t.mu = n[drop];
  t.c[0] = area(p, s2, s3);
  t.c[1] = area(s1, p, s3);
  t.c[2] = area(s1, s2, p);
  return t;
}

// Triangle p[i0] p[i1] p[i2]; scale2 is the squared longest edge of the whole simplex.
SubSimplex s2d(const Simplex& s, int i0, int i1, int i2, double scale2) {
  const Vec3& s1 = s.points[static_cast<size_t>(i0)].w;
  const Vec3& s2 = s.points[static_cast<size_t>(i1)].w;
  const Vec3& s3 = s.points[static_cast<size_t>(i2)].w;
  const double degenerate_length2 = kDegenerate2 * scale2;
  const TriangleAreas t = triangle_areas(s1, s2, s3, scale2);
  if (t.flat) {
    // Collinear or coincident: the nearest point is on one of the edges.
    return best_of(best_of(s1d(s, i0, i1, degenerate_length2), s1d(s, i0, i2, degenerate_length2)),
                   s1d(s, i1, i2, degenerate_length2));
  }
  const double mu = t.mu;
  const double* c = t.c;
  if (same_sign(mu, c[0]) && same_sign(mu, c[1]) && same_sign(mu, c[2])) {
    SubSimplex out;
    out.add(i0, c[0] / mu);
    out.add(i1, c[1] / mu);
    out.add(i2, c[2] / mu);
    out.v = out.lambda[0] * s1 + out.lambda[1] * s2 + out.lambda[2] * s3;
    out.norm2 = out.v.squaredNorm();
    return out;
  }
  // Descend into each edge opposite a vertex whose coordinate has the wrong sign.
  SubSimplex best;
  if (!same_sign(mu, c[0])) best = best_of(best, s1d(s, i1, i2, degenerate_length2));
  if (!same_sign(mu, c[1])) best = best_of(best, s1d(s, i0, i2, degenerate_length2));
  if (!same_sign(mu, c[2])) best = best_of(best, s1d(s, i0, i1, degenerate_length2));
  return best;
}

double triple(const Vec3& x, const Vec3& y, const Vec3& z) {
  return x.dot(y.cross(z));
}

// A tetrahedron's cofactors: det and c[j], six times its signed volume and the same with the
// origin in place of vertex j; `flat` when |det| <= k * scale^3 (the signs then mean nothing).
struct TetrahedronVolumes {
  double det = 0.0;
  double c[4] = {0.0, 0.0, 0.0, 0.0};
  bool flat = true;
};

TetrahedronVolumes tetrahedron_volumes(const Simplex& s, double scale2) {
  const Vec3& s1 = s.points[0].w;
  const Vec3& s2 = s.points[1].w;
  const Vec3& s3 = s.points[2].w;
  const Vec3& s4 = s.points[3].w;
  // Taken relative to s1 (edges e_i = s_i - s1) rather than as triple(s2, s3, s4) etc.: those
  // are of order |s|^2 * size each and cancel down to det ~ size^3, so for a small simplex far
  // from the origin (size 1e-6 at distance 1) their rounding swamped det and the descent picked
  // the wrong face. Here c1..c3 and det are products of edges with one |s1| factor.
  const Vec3 e2 = s2 - s1, e3 = s3 - s1, e4 = s4 - s1;
  TetrahedronVolumes t;
  t.det = triple(e2, e3, e4);
  t.c[1] = triple(-s1, e3, e4);
  t.c[2] = triple(e2, -s1, e4);
  t.c[3] = triple(e2, e3, -s1);
  t.c[0] = t.det - t.c[1] - t.c[2] - t.c[3];
  // |det| <= k * scale^3: the one square root left, taken for tetrahedra only.
  t.flat = std::abs(t.det) <= detail::kDegenerateRelative * scale2 * std::sqrt(scale2);
  return t;
}

/// The solver proper: the chosen sub-simplex in `result`, or true (origin inside the
/// tetrahedron) with the four barycentric coordinates in `inside`.
bool solve(const Simplex& s, SubSimplex& result, std::array<double, 4>& inside) {
  const double scale2 = detail::max_edge_length2(s);
  switch (s.size) {
    case 1:
      result.add(0, 1.0);
      result.v = s.points[0].w;
      break;
    case 2:
      result = s1d(s, 0, 1, kDegenerate2 * scale2);
      break;
    case 3:
      result = s2d(s, 0, 1, 2, scale2);
      break;
    default: {
      const TetrahedronVolumes t = tetrahedron_volumes(s, scale2);
      const double det = t.det;
      const double* c = t.c;
      const bool flat = t.flat;
      if (!flat && same_sign(det, c[0]) && same_sign(det, c[1]) && same_sign(det, c[2]) &&
          same_sign(det, c[3])) {
        for (int j = 0; j < 4; ++j) inside[static_cast<size_t>(j)] = c[j] / det;
        return true;  // origin strictly inside the tetrahedron
      }
      // Descend into each face opposite a vertex whose cofactor disagrees (all faces when
      // the tetrahedron is flat and the signs mean nothing).
      static constexpr int faces[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
      for (int j = 0; j < 4; ++j) {
        if (flat || !same_sign(det, c[j])) {
          result = best_of(result, s2d(s, faces[j][0], faces[j][1], faces[j][2], scale2));
        }
      }
      break;
    }
  }
  return false;
}

// ---- The GJK step: the newest point is part of the answer -----------------------------------
//
// Inside the GJK loop the input is the previous reduced simplex plus the new support w, last,
// and w is strictly below the previous |v| along v (the loop stopped otherwise). The previous
// simplex's hull is then at least |v| from the origin, and so is every sub-simplex without w,
// while the new hull comes strictly closer: the answer lies on a sub-simplex that holds w. The
// descent below is solve()'s, with the candidates without w dropped: a tetrahedron's old face, a
// triangle's old edge, a segment's old end. A dropped candidate could only win by rounding,
// where the caller's fallback (the full solver) decides.

// When the candidate point v is nearer than `best`, makes `best` that candidate, its points still
// to add, and returns true; otherwise leaves `best` as it is. One struct, filled in place: the
// full solver's best_of() copied an 80-byte SubSimplex per candidate.
inline bool take_if_nearer(const Vec3& v, SubSimplex& best) {
  const double n2 = v.squaredNorm();
  if (!(n2 < best.norm2)) return false;
  best.count = 0;
  best.v = v;
  best.norm2 = n2;
  return true;
}

inline void offer_vertex(const Simplex& s, int i, SubSimplex& best) {
  if (take_if_nearer(s.points[static_cast<size_t>(i)].w, best)) best.add(i, 1.0);
}

// Segment p[i0] p[newest]: s1d without the end p[i0] alone.
inline void s1d_newest(const Simplex& s, int i0, int newest, double degenerate_length2,
                       SubSimplex& best) {
  const Vec3& s1 = s.points[static_cast<size_t>(i0)].w;
  const Vec3& s2 = s.points[static_cast<size_t>(newest)].w;
  const Vec3 t = s2 - s1;
  const double tt = t.squaredNorm();
  if (tt <= degenerate_length2) return offer_vertex(s, newest, best);
  const Vec3 p = s2 - (s2.dot(t) / tt) * t;
  const int axis = largest_axis(t);
  const double mu = s1[axis] - s2[axis];
  const double c1 = p[axis] - s2[axis];
  const double c2 = s1[axis] - p[axis];
  const bool in1 = same_sign(mu, c1), in2 = same_sign(mu, c2);
  if (!(in1 & in2)) return offer_vertex(s, newest, best);
  const double l1 = c1 / mu, l2 = c2 / mu;
  if (!take_if_nearer(l1 * s1 + l2 * s2, best)) return;
  best.add(i0, l1);
  best.add(newest, l2);
}

// Triangle p[i0] p[i1] p[newest] (i0 < i1 < newest): s2d without the edge p[i0] p[i1].
inline void s2d_newest(const Simplex& s, int i0, int i1, int newest, double scale2,
                       SubSimplex& best) {
  const Vec3& s1 = s.points[static_cast<size_t>(i0)].w;
  const Vec3& s2 = s.points[static_cast<size_t>(i1)].w;
  const Vec3& s3 = s.points[static_cast<size_t>(newest)].w;
  const double degenerate_length2 = kDegenerate2 * scale2;
  const TriangleAreas t = triangle_areas(s1, s2, s3, scale2);
  if (t.flat) {
    s1d_newest(s, i0, newest, degenerate_length2, best);
    s1d_newest(s, i1, newest, degenerate_length2, best);
    return;
  }
  const double mu = t.mu, c0 = t.c[0], c1 = t.c[1], c2 = t.c[2];
  const bool in0 = same_sign(mu, c0), in1 = same_sign(mu, c1), in2 = same_sign(mu, c2);
  if (in0 & in1 & in2) {
    const double l0 = c0 / mu, l1 = c1 / mu, l2 = c2 / mu;
    if (!take_if_nearer(l0 * s1 + l1 * s2 + l2 * s3, best)) return;
    best.add(i0, l0);
    best.add(i1, l1);
    best.add(newest, l2);
    return;
  }
  if (!in0) s1d_newest(s, i1, newest, degenerate_length2, best);
  if (!in1) s1d_newest(s, i0, newest, degenerate_length2, best);
}

}  // namespace

namespace detail {

bool solve_signed_volumes_step(const Simplex& in, Simplex& out, Vec3& v, double previous_norm2) {
  SubSimplex best;
  const int newest = in.size - 1;
  switch (in.size) {
    case 2:
      s1d_newest(in, 0, 1, kDegenerate2 * max_edge_length2(in), best);
      break;
    case 3:
      s2d_newest(in, 0, 1, 2, max_edge_length2(in), best);
      break;
    case 4: {
      const double scale2 = max_edge_length2(in);
      const TetrahedronVolumes t = tetrahedron_volumes(in, scale2);
      const double det = t.det, c0 = t.c[0], c1 = t.c[1], c2 = t.c[2], c3 = t.c[3];
      const bool flat = t.flat;
      const bool agree0 = same_sign(det, c0), agree1 = same_sign(det, c1),
                 agree2 = same_sign(det, c2), agree3 = same_sign(det, c3);
      if (!flat & agree0 & agree1 & agree2 & agree3) {
        out.points = in.points;
        out.size = 4;
        out.lambda = {c0 / det, c1 / det, c2 / det, c3 / det};
        v.setZero();
        return true;
      }
      // The faces with the newest point opposite a disagreeing vertex; the old face (opposite
      // the newest point) is dropped.
      if (flat || !agree0) s2d_newest(in, 1, 2, newest, scale2, best);
      if (flat || !agree1) s2d_newest(in, 0, 2, newest, scale2, best);
      if (flat || !agree2) s2d_newest(in, 0, 1, newest, scale2, best);
      break;
    }
    default:
      return solve_signed_volumes_into(in, out, v);
  }
  // Nothing with the newest point, or nothing nearer than the previous simplex: rounding has
  // the last word, and the full descent gives it.
  if (best.count == 0 || !(best.norm2 < previous_norm2))
    return solve_signed_volumes_into(in, out, v);
  apply_into(in, best, out, v);
  return false;
}

}  // namespace detail

bool solve_signed_volumes(Simplex& s, Vec3& v) {
  SubSimplex result;
  std::array<double, 4> inside{};
  if (solve(s, result, inside)) {
    s.lambda = inside;
    v.setZero();
    return true;
  }
  detail::apply(s, result, v);
  return false;
}

namespace detail {

bool solve_signed_volumes_into(const Simplex& in, Simplex& out, Vec3& v) {
  SubSimplex result;
  std::array<double, 4> inside{};
  if (solve(in, result, inside)) {
    out.points = in.points;
    out.size = in.size;
    out.lambda = inside;
    v.setZero();
    return true;
  }
  apply_into(in, result, out, v);
  return false;
}

}  // namespace detail
}  // namespace gjk
