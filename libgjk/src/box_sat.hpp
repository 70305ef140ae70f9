// The boolean query of two bare boxes by separating axes, before GJK: box pairs are the commonest
// in a robot cell (links' boxes against tables and shelves), and FCL answers them this way in
// 0.53x the time of libgjk's GJK on distant pairs (session 64, run 28).
#pragma once

#include "minkowski.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace gjk::detail {

enum class BoxSatVerdict { Apart, Collide, Undecided };

/// Two boxes (A at the origin of its frame, B placed by md.rotation, md.translation) are
/// disjoint exactly when one of 15 axes separates their projections: A's three face normals,
/// B's three, and the nine cross products of an edge direction of each (the separating-axis
/// theorem for convex polyhedra). Apart when some axis shows a gap beyond the touching distance
/// plus a bound on the rounding of the projections (then `normal`, in A's frame, is that unit
/// axis pointing from A towards B); Collide when every axis shows the projections overlapping by
/// more than that bound (touching counts as collision, as in collide()); Undecided otherwise (a
/// gap within the bounds), for GJK to decide.
inline BoxSatVerdict box_box_sat(const Vec3& a, const Vec3& b, const Eigen::Matrix3d& rotation,
                                 const Vec3& t, double touch, Vec3& normal) {
  Eigen::Matrix3d abs_r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) abs_r(i, j) = std::abs(rotation(i, j));
  }
  // Every projection and radius below is a sum of at most six products of numbers no larger
  // than the pair's extent (rotation entries at most 1), so each is off by less than a few
  // ulps of that extent; 32 of them bound it. B's radii on its own and the cross axes assume
  // orthonormal columns, which a valid pose has only within 1e-6 (pair_results.hpp,
  // poses_are_valid): the columns' largest deviation, times the extent, is added.
  double skew = 0.0;
  for (int j = 0; j < 3; ++j) {
    for (int k = j; k < 3; ++k) {
      skew = std::max(skew, std::abs(rotation.col(j).dot(rotation.col(k)) - (j == k ? 1.0 : 0.0)));
    }
  }
  const double extent = t.cwiseAbs().sum() + a.sum() + b.sum();
  const double rounding = (32.0 * DBL_EPSILON + 4.0 * skew) * extent;
  const double apart_margin = touch + rounding;
  // Nearly parallel edges (a cross axis shorter than kParallel) give no axis of their own: their
  // pair is within kParallel of an exactly parallel one, where the face normals decide (two
  // boxes with a parallel edge pair have the other cross products among their face normals),
  // and every point moves by at most kParallel x the extent between the two, so the overlaps
  // must clear that too.
  constexpr double kParallel = 1e-9;
  const double overlap_margin = rounding + 2.0 * kParallel * extent;
  bool all_overlap = true;
  // A's face normals: B's centre projects to t_i, B's radius on e_i is sum_j b_j |R_ij|.
  for (int i = 0; i < 3; ++i) {
    const double gap = std::abs(t[i]) - (a[i] + abs_r.row(i).dot(b));
    if (gap > apart_margin) {
      normal = Vec3::Zero();
      normal[i] = t[i] > 0.0 ? 1.0 : -1.0;
      return BoxSatVerdict::Apart;
    }
    all_overlap = all_overlap && gap < -overlap_margin;
  }
  // B's face normals (columns of the rotation).
  for (int j = 0; j < 3; ++j) {
    const double along = rotation.col(j).dot(t);
    const double gap = std::abs(along) - (abs_r.col(j).dot(a) + b[j]);
    if (gap > apart_margin) {
      normal = along > 0.0 ? Vec3(rotation.col(j)) : Vec3(-rotation.col(j));
      return BoxSatVerdict::Apart;
    }
    all_overlap = all_overlap && gap < -overlap_margin;
  }
  // Edge pairs: axis e_i x R_j, whose length is the part of R_j off e_i. Its gap is in units of
  // that length, so the touching distance scales with it while the rounding does not.
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double length = std::hypot(rotation(i1, j), rotation(i2, j));
      const double along = t[i2] * rotation(i1, j) - t[i1] * rotation(i2, j);
      const double radius_a = a[i1] * abs_r(i2, j) + a[i2] * abs_r(i1, j);
      const double radius_b = b[j1] * abs_r(i, j2) + b[j2] * abs_r(i, j1);
      const double gap = std::abs(along) - (radius_a + radius_b);
      if (gap > touch * length + rounding) {
        Vec3 axis = Vec3::Zero();  // e_i x R_j
        axis[i1] = -rotation(i2, j);
        axis[i2] = rotation(i1, j);
        normal = axis / (along > 0.0 ? length : -length);
        return BoxSatVerdict::Apart;
      }
      all_overlap = all_overlap && (length <= kParallel || gap < -overlap_margin);
    }
  }
  return all_overlap ? BoxSatVerdict::Collide : BoxSatVerdict::Undecided;
}

}  // namespace gjk::detail
