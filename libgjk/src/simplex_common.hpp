// Helpers shared by the sub-distance solvers: a candidate sub-simplex (kept vertices by position
// in the input, their barycentric weights) and the step that writes it back into the Simplex.
#pragma once

#include "gjk/simplex.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gjk::detail {

struct SubSimplex {
  int count = 0;
  std::array<int, 4> index{};      // positions in the input simplex, increasing
  std::array<double, 4> lambda{};  // barycentric weights, positive, summing to 1
  Vec3 v = Vec3::Zero();
  double norm2 = std::numeric_limits<double>::infinity();

  void add(int position, double weight) {
    index[static_cast<size_t>(count)] = position;
    lambda[static_cast<size_t>(count)] = weight;
    ++count;
  }
};

/// Square of the largest edge length of the simplex.
inline double max_edge_length2(const Simplex& s) {
  double longest2 = 0.0;
  for (int i = 0; i < s.size; ++i) {
    for (int j = i + 1; j < s.size; ++j) {
      longest2 = std::max(
          longest2,
          (s.points[static_cast<size_t>(i)].w - s.points[static_cast<size_t>(j)].w).squaredNorm());
    }
  }
  return longest2;
}

/// Largest edge length of the simplex, the scale for degeneracy thresholds.
inline double max_edge_length(const Simplex& s) {
  return std::sqrt(max_edge_length2(s));
}

/// Relative size below which a segment, triangle or tetrahedron counts as degenerate (its
/// length, area or volume against the cube of the longest edge).
constexpr double kDegenerateRelative = 1e-13;

/// Writes the chosen sub-simplex of `in` into `out` (input order kept), touching only the kept
/// points: the GJK loop solves into a second buffer and keeps `in` as its fallback.
inline void apply_into(const Simplex& in, const SubSimplex& sub, Simplex& out, Vec3& v) {
  for (int k = 0; k < sub.count; ++k) {
    out.points[static_cast<size_t>(k)] =
        in.points[static_cast<size_t>(sub.index[static_cast<size_t>(k)])];
    out.lambda[static_cast<size_t>(k)] = sub.lambda[static_cast<size_t>(k)];
  }
  out.size = sub.count;
  v = sub.v;
}

/// Replaces the simplex by the chosen sub-simplex, keeping the input order.
inline void apply(Simplex& s, const SubSimplex& sub, Vec3& v) {
  Simplex out;
  apply_into(s, sub, out, v);
  s = out;
}

/// The vertex of `s` nearest the origin, as a sub-simplex (the fallback of every solver).
inline SubSimplex nearest_vertex(const Simplex& s, const int* positions, int count) {
  SubSimplex best;
  for (int k = 0; k < count; ++k) {
    const Vec3& p = s.points[static_cast<size_t>(positions[k])].w;
    if (p.squaredNorm() < best.norm2) {
      best = SubSimplex{};
      best.add(positions[k], 1.0);
      best.v = p;
      best.norm2 = p.squaredNorm();
    }
  }
  return best;
}

/// solve_signed_volumes reading `in` and writing the reduced simplex to `out` (which must not
/// be `in`); `in` is left as it was. Same answers as solve_signed_volumes.
bool solve_signed_volumes_into(const Simplex& in, Simplex& out, Vec3& v);

/// The GJK loop's step by signed volumes: `in` is the previous reduced simplex plus the new
/// support, last, which lies strictly below the previous |v| along v (|v|^2 is previous_norm2).
/// Searches only the sub-simplices holding the new support (the answer is on one of them); falls
/// back to solve_signed_volumes_into when rounding leaves none of them nearer than
/// previous_norm2. Same contract as solve_signed_volumes_into.
bool solve_signed_volumes_step(const Simplex& in, Simplex& out, Vec3& v, double previous_norm2);

}  // namespace gjk::detail
