// Products without cancellation loss, by fused multiply-adds (Kahan): shared by the 3D loop's
// near-contact refinement (gjk_loop.hpp) and the 2D engine's (planar.cpp).
#pragma once

#include "gjk/shapes.hpp"

#include <cmath>

namespace gjk::detail {

/// a * b - c * d to within 1.5 ulps (Kahan's fused-multiply-add form): no cancellation loss.
inline double difference_of_products(double a, double b, double c, double d) {
  const double cd = c * d;
  return std::fma(a, b, -cd) + std::fma(-c, d, cd);
}

/// p x q, every component within 1.5 ulps of the exact one.
inline Vec3 accurate_cross(const Vec3& p, const Vec3& q) {
  return Vec3(difference_of_products(p.y(), q.z(), p.z(), q.y()),
              difference_of_products(p.z(), q.x(), p.x(), q.z()),
              difference_of_products(p.x(), q.y(), p.y(), q.x()));
}

}  // namespace gjk::detail
