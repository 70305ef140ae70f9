// A triangle as a core of the convex loops (seed 000 eq. 10: support by comparison), shared by
// the shape-vs-mesh queries (mesh.cpp) and the mesh-vs-mesh / mesh-vs-cells queries
// (mesh_pair.cpp).
#pragma once

#include "minkowski.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>

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

}  // namespace gjk::detail
