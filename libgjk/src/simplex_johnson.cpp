// Johnson's distance sub-algorithm with bit-indexed subsets (seed 004 section 3.3).
//
// Subset m holds vertex x_i iff bit i of m is set. The cofactors obey
//   Delta_i({x_i}) = 1,
//   Delta_j(Y + x_j) = sum_{i in Y} Delta_i(Y) * (x_i . x_k - x_i . x_j),  k = lowest index in Y,
// and the nearest point lies in the affine hull of the subset Y with (seed 002 eq. 4)
//   (a) Delta(Y) > 0, (b) Delta_i(Y) > 0 for i in Y, (c) Delta_j(Y + x_j) <= 0 for j not in Y,
// its barycentric coordinates being lambda_i = Delta_i(Y) / Delta(Y) (seed 002 eq. 2).
#include "simplex_common.hpp"

#include <bitset>

namespace gjk {

bool solve_johnson(Simplex& s, Vec3& v) {
  const int n = s.size;
  const int full = (1 << n) - 1;
  double dot[4][4];
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      dot[i][j] = dot[j][i] = s.points[static_cast<size_t>(i)].w.dot(s.points[static_cast<size_t>(j)].w);
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
        if ((y >> i) & 1) sum += delta[y][i] * (dot[i][k] - dot[i][j]);
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
        sub.v += sub.lambda[static_cast<size_t>(sub.count - 1)] * s.points[static_cast<size_t>(i)].w;
      }
    }
    sub.norm2 = sub.v.squaredNorm();
    return sub;
  };
  auto interior = [&](int m) {  // conditions (a) and (b)
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
      const detail::SubSimplex inside = closest_of(m);
      for (int i = 0; i < 4; ++i) s.lambda[static_cast<size_t>(i)] = inside.lambda[static_cast<size_t>(i)];
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
