// A triangle as a core of the convex loops (seed 000 eq. 10: support by comparison), shared by
// the shape-vs-mesh queries (mesh.cpp) and the mesh-vs-mesh / mesh-vs-cells queries
// (mesh_pair.cpp).
#pragma once

#include "minkowski.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>
#include <type_traits>

namespace gjk::detail {

/// A triangle as a polytope core: three vertices, support by comparison (seed 000 eq. 10). The
/// centre and bounding radius are computed once per leaf: the loop asks for them repeatedly.
struct TriangleCore {
  static constexpr bool curved = false;
  std::array<Vec3, 3> p;
  Vec3 centre;
  double radius;
  explicit TriangleCore(const Vec3& a, const Vec3& b, const Vec3& c)
      : p{a, b, c},
        centre((a + b + c) / 3.0),
        radius(std::sqrt(std::max({(a - centre).squaredNorm(), (b - centre).squaredNorm(),
                                   (c - centre).squaredNorm()}))) {}
  int support(const Vec3& d, Vec3& out) const {
    const double d0 = p[0].dot(d), d1 = p[1].dot(d), d2 = p[2].dot(d);
    const int i = d0 >= d1 ? (d0 >= d2 ? 0 : 2) : (d1 >= d2 ? 1 : 2);
    out = p[static_cast<size_t>(i)];
    return i;
  }
  bool vertex(int index, Vec3& out) const {
    if (index < 0 || index > 2) return false;
    out = p[static_cast<size_t>(index)];
    return true;
  }
  Vec3 center() const { return centre; }
  double bound() const { return radius; }
  Feature feature(const Vec3& d, int index) const {
    const double top = p[static_cast<size_t>(index)].dot(d);
    const double slack = kFeatureAngle * std::max(bound(), DBL_MIN);
    int ties = 0;
    for (size_t i = 0; i < 3; ++i)
      ties += static_cast<int>(i) != index && p[i].dot(d) >= top - slack ? 1 : 0;
    return ties >= 2 ? Feature::Face : ties == 1 ? Feature::Edge : Feature::Vertex;
  }
};

/// Calls f(n) with the unit face normals of a core that bound a pair's penetration cheaply: a
/// triangle's normal, a box's three axes (in the core's frame); none for the other cores.
template <class Core, class F>
void face_axes(const Core& core, F&& f) {
  if constexpr (std::is_same_v<Core, TriangleCore>) {
    const Vec3 n = (core.p[1] - core.p[0]).cross(core.p[2] - core.p[0]);
    const double length = n.norm();
    if (length > 0.0) f(Vec3(n / length));
  } else if constexpr (std::is_same_v<Core, BoxCore>) {
    f(Vec3::UnitX());
    f(Vec3::UnitY());
    f(Vec3::UnitZ());
  }
}

/// An upper bound on how deep the cores of `md` overlap: A - B's support along a few unit axes
/// (both cores' face normals, face_axes), the smallest. When A - B holds the origin, its
/// boundary lies within h(n) = max n.(a - b) of the origin along every unit n, so the depth is
/// at most each h(n); when the cores are apart, their distance is at least -h(n). Either way a
/// pair's signed distance is at least minus this bound. The deepest-pair searches skip the EPA
/// of a pair that cannot beat the deepest found so far (Minkowski-difference faces come from
/// these normals, so for a triangle against a box the bound is often the depth itself).
template <class MD>
double penetration_upper_bound(const MD& md) {
  double bound = std::numeric_limits<double>::infinity();
  const auto along = [&](const Vec3& n) {
    bound = std::min({bound, n.dot(md.support(n).w), -n.dot(md.support(-n).w)});
  };
  face_axes(md.a, along);
  face_axes(md.b, [&](const Vec3& n) { along(md.rotation * n); });
  return bound;
}

/// Whether a pair whose signed distance is at least -bound cannot beat `deepest`, the (negative)
/// signed distance of the deepest pair found. The margin (1e-9 of the pair's size) covers the
/// rounding of the bound and of EPA's depth, which the agreement checks put below 1e-14 of it.
inline bool cannot_be_deeper(double bound, double scale, double deepest) {
  return bound + 1e-9 * scale < -deepest;
}

}  // namespace gjk::detail
