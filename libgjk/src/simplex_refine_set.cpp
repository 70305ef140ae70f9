// The geometric sub-distance step of seed 002 section 3 (Liu et al.): nu_compute() finds the
// point nearest the origin on a segment (eq. 5) or triangle (eq. 4, Table 1, Fig. 8), and
// refine_set() picks the tetrahedron faces that separate the origin from the opposite vertex
// (the plane test of section 3.2(b), eq. 3). Two forms: solve_refine_set reduces the set to the
// feature v lies on, as the other solvers do (a drop-in solver for the shared GJK loop), and
// solve_refine_set_fixed is the scheme as published (Figs. 3 and 7): a set of three points that
// drops one point and adds the new support each iteration, whatever feature v lies on.
//
// Departures from the seed, both for exactness: when several faces separate, the seed discards
// the subsets holding the farthest point; we run nu_compute on every separating face and keep
// the nearest result (seed 000 case c does the same). And seed 002's Delta_3 of eq. (4) reads
// "(P2.P1 - P3.P2)"; the recursion it is taken from gives (P2.P1 - P2.P3), used here. For
// precision, the Deltas of eqs. (4)-(5) are evaluated in equivalent forms free of the
// cancellation of large dot products (see segment_weights and nu_triangle).
#include "simplex_common.hpp"

#include <cmath>
#include <utility>

namespace gjk {
namespace {

using detail::SubSimplex;

// Segment X1 X2 (eq. 5): Delta_1 = X2.X2 - X2.X1, Delta_2 = X1.X1 - X2.X1, lambda_i = Delta_i /
// Delta. Evaluated as X2.(X2 - X1) and X1.(X1 - X2): the same numbers without the cancellation of
// two dot products of order |X|^2 (a short segment far from the origin kept no correct digit).
struct SegmentWeights {
  double d1, d2;
};
SegmentWeights segment_weights(const Vec3& x1, const Vec3& x2) {
  const Vec3 e = x2 - x1;
  return {x2.dot(e), -x1.dot(e)};
}

SubSimplex vertex(const Simplex& s, int i) {
  SubSimplex out;
  out.add(i, 1.0);
  out.v = s.points[static_cast<size_t>(i)].w;
  out.norm2 = out.v.squaredNorm();
  return out;
}

SubSimplex edge(const Simplex& s, int i, int j, SegmentWeights w) {
  // Keep the input order (simplex.hpp): Table 1 / Fig. 8 name the edge ends a, b in cyclic
  // order, which puts the higher position first when the odd corner is the middle one.
  if (i > j) {
    std::swap(i, j);
    std::swap(w.d1, w.d2);
  }
  SubSimplex out;
  const double total = w.d1 + w.d2;
  out.add(i, w.d1 / total);
  out.add(j, w.d2 / total);
  out.v = out.lambda[0] * s.points[static_cast<size_t>(i)].w +
          out.lambda[1] * s.points[static_cast<size_t>(j)].w;
  out.norm2 = out.v.squaredNorm();
  return out;
}

// nu_compute on a segment: the seed's three sign variations of lambda.
SubSimplex nu_segment(const Simplex& s, int i, int j) {
  const SegmentWeights w =
      segment_weights(s.points[static_cast<size_t>(i)].w, s.points[static_cast<size_t>(j)].w);
  if (w.d1 + w.d2 <= 0.0) {  // coincident points
    const int both[2] = {i, j};
    return detail::nearest_vertex(s, both, 2);
  }
  if (w.d1 <= 0.0) return vertex(s, j);
  if (w.d2 <= 0.0) return vertex(s, i);
  return edge(s, i, j, w);
}

SubSimplex nearest(const SubSimplex& a, const SubSimplex& b) {
  return b.norm2 < a.norm2 ? b : a;
}

// nu_compute on a triangle P1 P2 P3 (positions i1, i2, i3).
SubSimplex nu_triangle(const Simplex& s, int i1, int i2, int i3, double scale) {
  const Vec3& p1 = s.points[static_cast<size_t>(i1)].w;
  const Vec3& p2 = s.points[static_cast<size_t>(i2)].w;
  const Vec3& p3 = s.points[static_cast<size_t>(i3)].w;
  // Eq. (4)'s Delta_i, evaluated in their equivalent cross-product form: with n = (P2 - P1) x
  // (P3 - P1), Delta = |n|^2 and Delta_i = n . ((P_j - O') x (P_k - O')) for the origin's
  // projection O' (any point on the normal through O gives the same value, P1 - O included).
  // As printed, eq. (4) sums products of dot products of order |P|^4 down to |n|^2: for a
  // small or thin triangle far from the origin the signs of Table 1 were rounding noise.
  const Vec3 e2 = p2 - p1, e3 = p3 - p1;
  const Vec3 n = e2.cross(e3);
  const double total = n.squaredNorm();
  const double d2 = n.dot(e3.cross(p1));  // n . ((O - P1) x (P3 - P1))
  const double d3 = n.dot(p1.cross(e2));  // n . ((P2 - P1) x (O - P1))
  const double d1 = total - d2 - d3;
  // Degenerate when the area |n| is below the floor (the signed-volumes solver's test; the
  // seed's form compared the squared area, whose rounding noise was ten orders above it).
  const double area_floor = detail::kDegenerateRelative * scale * scale;
  if (!(total > 0.0) || !(std::sqrt(total) > area_floor)) {
    // Collinear or coincident points: the nearest point is on an edge.
    return nearest(nearest(nu_segment(s, i1, i2), nu_segment(s, i1, i3)), nu_segment(s, i2, i3));
  }
  const bool pos[3] = {d1 > 0.0, d2 > 0.0, d3 > 0.0};
  const int positives = pos[0] + pos[1] + pos[2];
  if (positives == 3) {  // Situation (A): nu on the face
    SubSimplex out;
    out.add(i1, d1 / total);
    out.add(i2, d2 / total);
    out.add(i3, d3 / total);
    out.v = out.lambda[0] * p1 + out.lambda[1] * p2 + out.lambda[2] * p3;
    out.norm2 = out.v.squaredNorm();
    return out;
  }
  // Name the triangle's corners so that the odd one out is "c" (Fig. 8 draws it as P3).
  const int ids[3] = {i1, i2, i3};
  int odd = 0;
  for (int k = 0; k < 3; ++k) {
    if ((positives == 2 && !pos[k]) || (positives == 1 && pos[k])) odd = k;
  }
  const int a = ids[(odd + 1) % 3], b = ids[(odd + 2) % 3], c = ids[odd];
  const Vec3& pa = s.points[static_cast<size_t>(a)].w;
  const Vec3& pb = s.points[static_cast<size_t>(b)].w;
  const Vec3& pc = s.points[static_cast<size_t>(c)].w;
  if (positives == 2) {
    // Situation (B): lambda_c < 0, nu on edge ab or at its ends, regions (i)-(iii).
    const SegmentWeights wab = segment_weights(pa, pb);
    if (wab.d2 <= 0.0) return vertex(s, a);  // (i)
    if (wab.d1 <= 0.0) return vertex(s, b);  // (ii)
    return edge(s, a, b, wab);               // (iii)
  }
  if (positives == 1) {
    // Situation (C): lambda_c > 0 only, regions (i)-(v) around vertex c.
    const SegmentWeights wac = segment_weights(pa, pc);
    const SegmentWeights wbc = segment_weights(pb, pc);
    if (wac.d1 > 0.0 && wac.d2 > 0.0) return edge(s, a, c, wac);  // (ii)
    if (wbc.d1 > 0.0 && wbc.d2 > 0.0) return edge(s, b, c, wbc);  // (iv)
    if (wac.d2 <= 0.0) return vertex(s, a);                       // (i)
    if (wbc.d2 <= 0.0) return vertex(s, b);                       // (v)
    return vertex(s, c);                                          // (iii)
  }
  // Situation (D) cannot occur in exact arithmetic; rounding can produce it on slivers.
  return nearest(nearest(nu_segment(s, i1, i2), nu_segment(s, i1, i3)), nu_segment(s, i2, i3));
}

// refine_set on a tetrahedron (section 3.2(b)): face (i, j, k) with plane f(x) = n.x + K
// separates the origin from the opposite vertex l when f(0) * f(P_l) <= 0 (eq. 3); f(0) / f(P_l)
// is the origin's barycentric coordinate for P_l. nu_compute runs on every separating face and
// the nearest result wins (`face` is its row of kFaces). No separating face: the origin is
// inside, and `weights` / `total` are its barycentric coordinates.
constexpr int kFaces[4][4] = {{1, 2, 3, 0}, {0, 2, 3, 1}, {0, 1, 3, 2}, {0, 1, 2, 3}};

struct TetrahedronStep {
  bool separated = false;
  int face = -1;
  SubSimplex nearest;
  double weights[4] = {0.0, 0.0, 0.0, 0.0};
  double total = 0.0;
};

TetrahedronStep refine_tetrahedron(const Simplex& s, double scale) {
  TetrahedronStep out;
  const double volume_floor = detail::kDegenerateRelative * scale * scale * scale;
  for (int f = 0; f < 4; ++f) {
    const Vec3& pi = s.points[static_cast<size_t>(kFaces[f][0])].w;
    const Vec3& pj = s.points[static_cast<size_t>(kFaces[f][1])].w;
    const Vec3& pk = s.points[static_cast<size_t>(kFaces[f][2])].w;
    const Vec3& pl = s.points[static_cast<size_t>(kFaces[f][3])].w;
    const Vec3 n = (pj - pi).cross(pk - pi);
    const double k = -n.dot(pi);
    const double at_vertex = n.dot(pl) + k;  // N of eq. (3)
    const bool flat = std::abs(at_vertex) <= volume_floor;
    out.weights[kFaces[f][3]] = k / at_vertex;  // share of vertex l in the origin (volume ratio)
    out.total += flat ? 0.0 : out.weights[kFaces[f][3]];
    // Eq. (3)'s product f(0) * f(P_l) <= 0 as a sign test: the product is of order
    // |P|^6 and underflowed to 0 for bodies of size 1e-53 (fuzz_queries), which read as
    // "separates" and stalled GJK next to the origin of an overlapping pair.
    const bool separates = k == 0.0 || at_vertex == 0.0 || (k < 0.0) != (at_vertex < 0.0);
    if (flat || separates) {
      out.separated = true;
      const SubSimplex candidate = nu_triangle(s, kFaces[f][0], kFaces[f][1], kFaces[f][2], scale);
      if (candidate.norm2 < out.nearest.norm2) {
        out.nearest = candidate;
        out.face = f;
      }
    }
  }
  return out;
}

/// The origin inside the tetrahedron: its barycentric coordinates, v = 0.
void enclose(Simplex& s, const TetrahedronStep& step, Vec3& v) {
  for (int i = 0; i < 4; ++i) s.lambda[static_cast<size_t>(i)] = step.weights[i] / step.total;
  v.setZero();
}

/// Writes nu_compute's result into the set without dropping any point (the fixed-size set of
/// seed 002 Figs. 3 and 7): the points off v's feature get weight 0.
void apply_keeping_all(Simplex& s, const SubSimplex& result, Vec3& v) {
  for (int i = 0; i < s.size; ++i) s.lambda[static_cast<size_t>(i)] = 0.0;
  for (int k = 0; k < result.count; ++k) {
    s.lambda[static_cast<size_t>(result.index[static_cast<size_t>(k)])] =
        result.lambda[static_cast<size_t>(k)];
  }
  v = result.v;
}

}  // namespace

bool solve_refine_set(Simplex& s, Vec3& v) {
  const double scale = detail::max_edge_length(s);
  SubSimplex result;
  switch (s.size) {
    case 1:
      result = vertex(s, 0);
      break;
    case 2:
      result = nu_segment(s, 0, 1);
      break;
    case 3:
      result = nu_triangle(s, 0, 1, 2, scale);
      break;
    default: {
      const TetrahedronStep step = refine_tetrahedron(s, scale);
      if (!step.separated) {
        enclose(s, step, v);
        return true;
      }
      result = step.nearest;
      break;
    }
  }
  detail::apply(s, result, v);
  return false;
}

bool solve_refine_set_fixed(Simplex& s, Vec3& v) {
  const double scale = detail::max_edge_length(s);
  if (s.size < 4) {
    // The set is still filling up to its three points (Fig. 7's initial_set): nu_compute on
    // it as it is, every point kept.
    const SubSimplex result = s.size == 1   ? vertex(s, 0)
                              : s.size == 2 ? nu_segment(s, 0, 1)
                                            : nu_triangle(s, 0, 1, 2, scale);
    apply_keeping_all(s, result, v);
    return false;
  }
  const TetrahedronStep step = refine_tetrahedron(s, scale);
  if (!step.separated) {
    enclose(s, step, v);
    return true;
  }
  // Drop the vertex opposite the chosen face and keep the face's three points, in input order
  // (kFaces lists each face's positions increasing), whatever feature of it v lies on.
  // In place: kept[k] >= k, so no point is overwritten before it is moved.
  const int* kept = kFaces[step.face];
  for (int k = 0; k < 3; ++k) {
    s.points[static_cast<size_t>(k)] = s.points[static_cast<size_t>(kept[k])];
    s.lambda[static_cast<size_t>(k)] = 0.0;
  }
  s.size = 3;
  for (int k = 0; k < step.nearest.count; ++k) {
    const int position = step.nearest.index[static_cast<size_t>(k)];
    const int slot = position - (position > kept[3] ? 1 : 0);  // the input minus the dropped one
    s.lambda[static_cast<size_t>(slot)] = step.nearest.lambda[static_cast<size_t>(k)];
  }
  v = step.nearest.v;
  return false;
}

}  // namespace gjk
