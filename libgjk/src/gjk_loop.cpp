// The GJK loop's out-of-line parts (gjk_loop.hpp).
#include "gjk_loop.hpp"

namespace gjk::detail {

void refine_projection_near_contact(Simplex& s, Vec3& v, double size2, double vv) {
  constexpr double slack = -8.0 * DBL_EPSILON;
  if (s.size == 3 && !(s.lambda[0] > 0.0 && s.lambda[1] > 0.0 && s.lambda[2] > 0.0)) {
    // The fixed-size set of SimplexSolver::RefineSetFixed: v lies on an edge or a vertex of the
    // triangle. Refine on that feature (a copy; rare: that solver, near contact), weights written
    // back in place.
    Simplex feature = s;
    drop_unweighted(feature);
    if (feature.size != 2) return;  // a vertex: v is the point itself
    refine_projection(feature, v);
    for (int i = 0, k = 0; i < 3; ++i) {
      if (s.lambda[static_cast<size_t>(i)] > 0.0) {
        s.lambda[static_cast<size_t>(i)] = feature.lambda[static_cast<size_t>(k++)];
      }
    }
    return;
  }
  if (s.size == 2) {
    const Vec3& p = s.points[0].w;
    const Vec3& q = s.points[1].w;
    const Vec3 e = q - p;
    const double ee = e.squaredNorm();
    if (!(ee > 0.0)) return;
    const double t = -p.dot(e) / ee;
    if (!(t >= slack && 1.0 - t >= slack)) return;
    v = e.cross(accurate_cross(p, q)) / ee;
    s.lambda[0] = 1.0 - t;
    s.lambda[1] = t;
  } else if (s.size == 3) {
    const Vec3& a = s.points[0].w;
    const Vec3 e1 = s.points[1].w - a, e2 = s.points[2].w - a;
    const Vec3 n = e1.cross(e2);
    const double nn = n.squaredNorm();
    if (!(nn > 0.0)) return;
    // Use the normal only when its direction beats v's: eps |e1||e2| / |n| < eps |w| / |v|.
    if (!(e1.squaredNorm() * e2.squaredNorm() * vv < size2 * nn)) return;
    const double offset = (n.dot(a) + n.dot(s.points[1].w) + n.dot(s.points[2].w)) / 3.0;
    const Vec3 x = (offset / nn) * n;
    const Vec3 d = x - a;
    const double l1 = d.cross(e2).dot(n) / nn, l2 = e1.cross(d).dot(n) / nn;
    const double l0 = 1.0 - l1 - l2;
    if (!(l0 >= slack && l1 >= slack && l2 >= slack)) return;
    v = x;
    s.lambda[0] = l0;
    s.lambda[1] = l1;
    s.lambda[2] = l2;
  }
}

}  // namespace gjk::detail
