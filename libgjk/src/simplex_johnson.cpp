// Johnson's distance sub-algorithm with bit-indexed subsets (seed 004 section 3.3).
//
// Subset m holds vertex x_i iff bit i of m is set. The cofactors obey
//   Delta_i({x_i}) = 1,
//   Delta_j(Y + x_j) = sum_{i in Y} Delta_i(Y) * (x_i . x_k - x_i . x_j),  k = lowest index in Y,
// and the nearest point lies in the affine hull of the subset Y with (seed 002 eq. 4)
//   (a) Delta(Y) > 0, (b) Delta_i(Y) > 0 for i in Y, (c) Delta_j(Y + x_j) <= 0 for j not in Y,
// its barycentric coordinates being lambda_i = Delta_i(Y) / Delta(Y) (seed 002 eq. 2).
#include "simplex_common.hpp"

#include <algorithm>
#include <bitset>
#include <cmath>

namespace gjk {

bool solve_johnson(Simplex& s, Vec3& v) {
  const int n = s.size;
  const int full = (1 << n) - 1;
  // The recursion's factors x_i . x_k - x_i . x_j, evaluated as x_i . (x_k - x_j): the same
  // numbers without the cancellation of two dot products of order |x|^2, which cost a small
  // simplex far from the origin most of its digits.
  double factor[4][4][4] = {};
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < n; ++k) {
      for (int j = 0; j < n; ++j) {
        factor[i][k][j] = s.points[static_cast<size_t>(i)].w.dot(
            s.points[static_cast<size_t>(k)].w - s.points[static_cast<size_t>(j)].w);
      }
    }
  }
  double delta[16][4] = {};
  // Subsets in increasing numeric order: every proper subset of m is numerically smaller.
  for (int m = 1; m <= full; ++m) {
    if ((m & (m - 1)) == 0) {  // singleton
      for (int i = 0; i < n; ++i) delta[m][i] = (m >> i) & 1 ? 1.0 : 0.0;
      continue;
    }
    for (int j = 0; j < n; ++j) {
      if (!((m >> j) & 1)) continue;
      const int y = m & ~(1 << j);
      int k = 0;
      while (!((y >> k) & 1)) ++k;
      double sum = 0.0;
      for (int i = 0; i < n; ++i) {
        if ((y >> i) & 1) sum += delta[y][i] * factor[i][k][j];
      }
      delta[m][j] = sum;
    }
  }

  auto closest_of = [&](int m) {
    detail::SubSimplex sub;
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
      if ((m >> i) & 1) total += delta[m][i];
    }
    for (int i = 0; i < n; ++i) {
      if ((m >> i) & 1) {
        sub.add(i, delta[m][i] / total);
        sub.v +=
            sub.lambda[static_cast<size_t>(sub.count - 1)] * s.points[static_cast<size_t>(i)].w;
      }
    }
    sub.norm2 = sub.v.squaredNorm();
    return sub;
  };
  // A flat tetrahedron cannot enclose the origin. Its cofactors Delta_i are then rounding noise
  // (degree-6 polynomials in the coordinates whose rounding error dwarfs their true size, of
  // order (6 V)^2), and the noise can make all four positive while the origin lies off the
  // plane: a face-face contact at a 1e-10 gap was reported as an overlap. Same flatness test
  // as the other two solvers (signed volume against the cube of the longest edge).
  bool flat = false;
  if (n == 4) {
    const Vec3& x0 = s.points[0].w;
    const double volume6 =
        std::abs((s.points[1].w - x0).dot((s.points[2].w - x0).cross(s.points[3].w - x0)));
    const double scale = detail::max_edge_length(s);
    flat = !(volume6 > detail::kDegenerateRelative * scale * scale * scale);
  }
  // Likewise a (near-)collinear triple has no interior: its cofactors are noise too, and noise
  // of the right sign chose the face with meaningless weights (v off by up to its size).
  bool collinear[16] = {};
  for (int m = 1; m <= full; ++m) {
    if (std::bitset<4>(static_cast<unsigned>(m)).count() != 3) continue;
    int id[3], k = 0;
    for (int i = 0; i < n; ++i) {
      if ((m >> i) & 1) id[k++] = i;
    }
    const Vec3& x0 = s.points[static_cast<size_t>(id[0])].w;
    const Vec3& x1 = s.points[static_cast<size_t>(id[1])].w;
    const Vec3& x2 = s.points[static_cast<size_t>(id[2])].w;
    const double scale = std::max({(x1 - x0).norm(), (x2 - x0).norm(), (x2 - x1).norm()});
    collinear[m] = !((x1 - x0).cross(x2 - x0).norm() > detail::kDegenerateRelative * scale * scale);
  }
  auto interior = [&](int m) {  // conditions (a) and (b)
    if ((m == full && n == 4 && flat) || collinear[m]) return false;
    for (int i = 0; i < n; ++i) {
      if (((m >> i) & 1) && !(delta[m][i] > 0.0)) return false;
    }
    return true;
  };

  for (int m = 1; m <= full; ++m) {
    if (!interior(m)) continue;
    bool nearest = true;  // condition (c)
    for (int j = 0; j < n && nearest; ++j) {
      if (!((m >> j) & 1) && delta[m | (1 << j)][j] > 0.0) nearest = false;
    }
    if (!nearest) continue;
    if (m == full && n == 4) {  // origin inside the tetrahedron
      // The four cofactors Delta_i(full) keep few digits when the tetrahedron is thin or the
      // origin near a face (their barycentric coordinates were 3e-10 off, or claimed an
      // enclosure for an origin on the boundary). Confirm with the signed volumes taken
      // relative to x_0, and report those as the coordinates; unconfirmed, the origin is on
      // the boundary within rounding and a face (the backup procedure below) is the answer.
      const Vec3& x0 = s.points[0].w;
      const Vec3 e1 = s.points[1].w - x0, e2 = s.points[2].w - x0, e3 = s.points[3].w - x0;
      const double volume = e1.dot(e2.cross(e3));
      double c[4] = {0.0, (-x0).dot(e2.cross(e3)), e1.dot((-x0).cross(e3)), e1.dot(e2.cross(-x0))};
      c[0] = volume - c[1] - c[2] - c[3];
      bool confirmed = true;
      for (int i = 0; i < 4; ++i) confirmed = confirmed && c[i] / volume > 0.0;
      if (!confirmed) continue;
      for (int i = 0; i < 4; ++i) s.lambda[static_cast<size_t>(i)] = c[i] / volume;
      v.setZero();
      return true;
    }
    detail::apply(s, closest_of(m), v);
    return false;
  }

  // Backup procedure (GJK 1988 section V): rounding left no subset meeting (a)-(c); take the
  // subset with all-positive cofactors whose affine nearest point is closest to the origin.
  detail::SubSimplex best;
  for (int m = 1; m <= full; ++m) {
    if (m == full && n == 4) continue;
    if (interior(m)) {
      const detail::SubSimplex candidate = closest_of(m);
      if (candidate.norm2 < best.norm2) best = candidate;
    }
  }
  detail::apply(s, best, v);
  return false;
}

}  // namespace gjk
