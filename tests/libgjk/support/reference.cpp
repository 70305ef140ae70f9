// The exact reference: explicit Minkowski difference + qhull + brute-force closest points.
// Deliberately shares no code with the engine (libgjk/src); see reference.hpp.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace gjk::testing {

Vec3 closest_point_on_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double length2 = ab.squaredNorm();
  if (!(length2 > 0.0)) return a;
  const double t = (p - a).dot(ab) / length2;
  if (t <= 0.0) return a;
  if (t >= 1.0) return b;
  return a + t * ab;
}

Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  // Brute force over the features, which is robust by construction: every candidate is a point
  // of the triangle (so none is nearer than the true closest point, up to rounding), and the
  // true closest point is among them (an edge point, or the interior projection when that
  // falls inside). Region misclassification by rounding near an edge costs at most the
  // rounding, since both the edge and the face candidate are then (nearly) optimal.
  Vec3 best = closest_point_on_segment(p, a, b);
  double best2 = (best - p).squaredNorm();
  for (const Vec3& q : {closest_point_on_segment(p, b, c), closest_point_on_segment(p, c, a)}) {
    const double d2 = (q - p).squaredNorm();
    if (d2 < best2) {
      best = q;
      best2 = d2;
    }
  }
  const Vec3 n = (b - a).cross(c - a);
  const double n2 = n.squaredNorm();
  const double longest2 =
      std::max({(b - a).squaredNorm(), (c - a).squaredNorm(), (c - b).squaredNorm()});
  // Degenerate (collinear, coincident) triangles have no interior: the edges said it all.
  if (!(n2 > 1e-24 * longest2 * longest2)) return best;
  const Vec3 q = p - (n.dot(p - a) / n2) * n;  // projection on the plane
  // Barycentric coordinates of q from the signed sub-areas.
  const double u = n.dot((b - q).cross(c - q)) / n2;
  const double v = n.dot((c - q).cross(a - q)) / n2;
  const double w = 1.0 - u - v;
  if (u >= 0.0 && v >= 0.0 && w >= 0.0) {
    const Vec3 inside = u * a + v * b + w * c;  // a point of the triangle, whatever the rounding
    if ((inside - p).squaredNorm() < best2) best = inside;
  }
  return best;
}

void closest_points_between_segments(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                                     Vec3& on_p, Vec3& on_q) {
  double best2 = std::numeric_limits<double>::infinity();
  auto consider = [&](const Vec3& x, const Vec3& y) {
    const double d2 = (x - y).squaredNorm();
    if (d2 < best2) {
      best2 = d2;
      on_p = x;
      on_q = y;
    }
  };
  consider(p0, closest_point_on_segment(p0, q0, q1));
  consider(p1, closest_point_on_segment(p1, q0, q1));
  consider(closest_point_on_segment(q0, p0, p1), q0);
  consider(closest_point_on_segment(q1, p0, p1), q1);
  // Both parameters interior: the common perpendicular of the two lines, from the cross-product
  // form (conditioned by 1 / sin of the angle, not its square as the normal equations are).
  // Each candidate is then polished by projecting back onto the segments.
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = q0 - p0;
  const Vec3 n = d1.cross(d2);
  const double n2 = n.squaredNorm();
  if (n2 > 1e-24 * d1.squaredNorm() * d2.squaredNorm()) {
    const double s = r.cross(d2).dot(n) / n2;
    const double t = r.cross(d1).dot(n) / n2;
    if (s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0) {
      const Vec3 x = p0 + s * d1, y = q0 + t * d2;
      consider(x, y);
      const Vec3 y1 = closest_point_on_segment(x, q0, q1);
      consider(x, y1);
      consider(closest_point_on_segment(y1, p0, p1), y1);
    }
  }
}

namespace {

// Runs qhull on 3D points with `options`, calling on_facet(qh, facet) for every facet. Throws
// std::runtime_error with qhull's message on failure.
template <class FacetFn>
void run_qhull_3d(const std::vector<Vec3>& points, const char* options, FacetFn&& on_facet) {
  std::vector<double> coords;
  coords.reserve(points.size() * 3);
  for (const Vec3& p : points) {
    coords.push_back(p.x());
    coords.push_back(p.y());
    coords.push_back(p.z());
  }
  qhT qh_storage;
  qhT* qh = &qh_storage;
  char* err_text = nullptr;
  size_t err_size = 0;
  FILE* err_file = open_memstream(&err_text, &err_size);
  QHULL_LIB_CHECK
  qh_zero(qh, err_file);
  std::string command = std::string("qhull ") + options;
  const int exit_code =
      qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(),
                   /*ismalloc=*/False, command.data(), /*outfile=*/nullptr, err_file);
  if (exit_code == 0) {
    facetT* facet;
    FORALLfacets {
      on_facet(qh, facet);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong, totlong;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(err_file);
  const std::string message = err_text ? std::string(err_text, err_size) : std::string();
  std::free(err_text);
  if (exit_code != 0) {
    throw std::runtime_error("reference qhull failed (code " + std::to_string(exit_code) +
                             "): " + message);
  }
}

}  // namespace

ReferenceHull ReferenceHull::build(const std::vector<Vec3>& points) {
  if (points.size() < 4) throw std::runtime_error("ReferenceHull: need at least 4 points");
  ReferenceHull hull;
  hull.points_ = points;
  std::vector<char> used(points.size(), 0);
  run_qhull_3d(points, "Qt", [&](qhT* qh, facetT* facet) {
    Facet f;
    int n = 0;
    vertexT *vertex, **vertexp;
    FOREACHvertex_(facet->vertices) {
      if (n < 3) f.vertex[static_cast<size_t>(n)] = qh_pointid(qh, vertex->point);
      ++n;
    }
    if (n != 3) throw std::runtime_error("ReferenceHull: qhull returned a non-triangular facet");
    f.normal = Vec3(facet->normal[0], facet->normal[1], facet->normal[2]);
    f.offset = facet->offset;
    const Vec3& a = points[static_cast<size_t>(f.vertex[0])];
    const Vec3 cross = (points[static_cast<size_t>(f.vertex[1])] - a)
                           .cross(points[static_cast<size_t>(f.vertex[2])] - a);
    if (cross.dot(f.normal) < 0.0) std::swap(f.vertex[1], f.vertex[2]);
    for (int id : f.vertex) used[static_cast<size_t>(id)] = 1;
    hull.facets_.push_back(f);
  });
  for (size_t i = 0; i < points.size(); ++i) {
    if (used[i]) hull.vertex_ids_.push_back(static_cast<int>(i));
  }
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : points) mean += p;
  mean /= static_cast<double>(points.size());
  for (const Vec3& p : points) hull.radius_ = std::max(hull.radius_, (p - mean).norm());
  return hull;
}

ReferenceHull ReferenceHull::build_brute_force(const std::vector<Vec3>& points) {
  if (points.size() < 4) throw std::runtime_error("ReferenceHull: need at least 4 points");
  ReferenceHull hull;
  hull.points_ = points;
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : points) mean += p;
  mean /= static_cast<double>(points.size());
  for (const Vec3& p : points) hull.radius_ = std::max(hull.radius_, (p - mean).norm());
  const double size = std::max(hull.radius_, std::numeric_limits<double>::min());
  const int n = static_cast<int>(points.size());
  std::vector<char> used(points.size(), 0);
  for (int i = 0; i < n; ++i) {
    const Vec3& a = points[static_cast<size_t>(i)];
    for (int j = i + 1; j < n; ++j) {
      for (int k = j + 1; k < n; ++k) {
        const Vec3 normal =
            (points[static_cast<size_t>(j)] - a).cross(points[static_cast<size_t>(k)] - a);
        const double length = normal.norm();
        if (!(length > 1e-12 * size * size)) continue;  // (nearly) collinear: no plane
        const Vec3 unit = normal / length;
        // Signed heights of the other points over the plane; the triple is a facet when all of
        // them are on one side up to rounding (both sides only for a flat set).
        double above = 0.0, below = 0.0;
        for (int m = 0; m < n; ++m) {
          const double h = unit.dot(points[static_cast<size_t>(m)] - a);
          above = std::max(above, h);
          below = std::min(below, h);
        }
        const double tolerance = 1e-12 * size;
        for (const double side : {1.0, -1.0}) {
          if ((side > 0.0 ? above : -below) > tolerance) continue;
          Facet f;
          f.vertex = side > 0.0 ? std::array<int, 3>{i, j, k} : std::array<int, 3>{i, k, j};
          f.normal = side * unit;
          f.offset = -f.normal.dot(a);
          hull.facets_.push_back(f);
          used[static_cast<size_t>(i)] = used[static_cast<size_t>(j)] =
              used[static_cast<size_t>(k)] = 1;
        }
      }
    }
  }
  if (hull.facets_.empty()) throw std::runtime_error("ReferenceHull: no solid triangle");
  for (size_t i = 0; i < points.size(); ++i) {
    if (used[i]) hull.vertex_ids_.push_back(static_cast<int>(i));
  }
  return hull;
}

double ReferenceHull::support(const Vec3& direction) const {
  double best = -std::numeric_limits<double>::infinity();
  for (const Vec3& p : points_) best = std::max(best, p.dot(direction));
  return best;
}

double ReferenceHull::max_plane_value(const Vec3& p) const {
  double best = -std::numeric_limits<double>::infinity();
  for (const Facet& f : facets_) best = std::max(best, f.normal.dot(p) + f.offset);
  return best;
}

Vec3 ReferenceHull::closest_boundary_point(const Vec3& p) const {
  Vec3 best = p;
  double best2 = std::numeric_limits<double>::infinity();
  for (const Facet& f : facets_) {
    const Vec3 q = closest_point_on_triangle(p, points_[static_cast<size_t>(f.vertex[0])],
                                             points_[static_cast<size_t>(f.vertex[1])],
                                             points_[static_cast<size_t>(f.vertex[2])]);
    const double d2 = (q - p).squaredNorm();
    if (d2 < best2) {
      best2 = d2;
      best = q;
    }
  }
  return best;
}

double ReferenceHull::signed_distance(const Vec3& p) const {
  const double plane = max_plane_value(p);
  if (plane <= 0.0) return plane;  // inside: the nearest boundary point is on a facet plane
  return (closest_boundary_point(p) - p).norm();
}

double cso_support(const std::vector<Vec3>& world_a, const std::vector<Vec3>& world_b,
                   const Vec3& n) {
  double max_a = -std::numeric_limits<double>::infinity();
  double min_b = std::numeric_limits<double>::infinity();
  for (const Vec3& a : world_a) max_a = std::max(max_a, a.dot(n));
  for (const Vec3& b : world_b) min_b = std::min(min_b, b.dot(n));
  return max_a - min_b;
}

namespace {

std::vector<Vec3> hull_vertices(const ReferenceHull& hull) {
  std::vector<Vec3> vertices;
  for (int i : hull.vertex_ids()) vertices.push_back(hull.points()[static_cast<size_t>(i)]);
  return vertices;
}

}  // namespace

ReferenceResult reference_query(const ReferenceHull& a, const ReferenceHull& b,
                                double unique_margin) {
  ReferenceResult r;
  r.scale = std::max({1.0, a.radius(), b.radius()});
  const std::vector<Vec3> verts_a = hull_vertices(a), verts_b = hull_vertices(b);
  std::vector<Vec3> cso;
  cso.reserve(verts_a.size() * verts_b.size());
  for (const Vec3& p : verts_a) {
    for (const Vec3& q : verts_b) cso.push_back(p - q);
  }
  r.cso_points = static_cast<int>(cso.size());
  const ReferenceHull hull = ReferenceHull::build(cso);
  r.cso_facets = static_cast<int>(hull.facets().size());

  // The plane values at the origin are the offsets: all negative <=> origin inside.
  double max_offset = -std::numeric_limits<double>::infinity();
  for (const auto& f : hull.facets()) max_offset = std::max(max_offset, f.offset);
  r.overlap = !(max_offset > 0.0);

  if (!r.overlap) {
    const Vec3 c = hull.closest_boundary_point(Vec3::Zero());
    r.closest_cso_point = c;
    r.distance = c.norm();
    r.signed_distance = r.distance;
    if (r.distance > 0.0) r.normal = -c / r.distance;
    return r;
  }

  // Inside: the nearest facet plane. Refine the candidates' plane distances with the brute-force
  // support function of A - B (exact along a facet normal, independent of qhull's offsets).
  double coarse = std::numeric_limits<double>::infinity();
  for (const auto& f : hull.facets()) coarse = std::min(coarse, -f.offset);
  struct Candidate {
    Vec3 normal;
    double depth;
  };
  std::vector<Candidate> candidates;
  const double window = unique_margin + 1e-9 * r.scale;
  for (const auto& f : hull.facets()) {
    if (-f.offset <= coarse + window)
      candidates.push_back({f.normal, cso_support(verts_a, verts_b, f.normal)});
  }
  const auto best =
      std::min_element(candidates.begin(), candidates.end(),
                       [](const Candidate& x, const Candidate& y) { return x.depth < y.depth; });
  r.depth = std::max(best->depth, 0.0);
  r.normal = best->normal;
  r.signed_distance = -r.depth;
  r.second_depth = std::numeric_limits<double>::infinity();
  for (const auto& f : hull.facets()) {
    if ((f.normal - r.normal).norm() > 1e-6) r.second_depth = std::min(r.second_depth, -f.offset);
  }
  r.unique_normal = r.second_depth > r.depth + unique_margin;
  return r;
}

namespace {

struct Ball {
  Vec3 center;
  double radius;
};

Ball triangle_ball(const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 center = (a + b + c) / 3.0;
  return {center, std::max({(a - center).norm(), (b - center).norm(), (c - center).norm()})};
}

// The hull's edges (each once, as point index pairs), from its triangulated facets.
std::vector<std::array<int, 2>> hull_edges(const ReferenceHull& hull) {
  std::vector<std::array<int, 2>> edges;
  for (const auto& f : hull.facets()) {
    for (int e = 0; e < 3; ++e) {
      const int i = f.vertex[static_cast<size_t>(e)],
                j = f.vertex[static_cast<size_t>((e + 1) % 3)];
      edges.push_back({std::min(i, j), std::max(i, j)});
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

}  // namespace

ReferenceResult feature_reference_query(const ReferenceHull& a, const ReferenceHull& b,
                                        double unique_margin) {
  ReferenceResult r;
  r.scale = std::max({1.0, a.radius(), b.radius()});
  const std::vector<Vec3> verts_a = hull_vertices(a), verts_b = hull_vertices(b);
  const auto edges_a = hull_edges(a), edges_b = hull_edges(b);
  auto point_a = [&](int i) -> const Vec3& { return a.points()[static_cast<size_t>(i)]; };
  auto point_b = [&](int j) -> const Vec3& { return b.points()[static_cast<size_t>(j)]; };

  // Separating axes. For a cross product both signs come from one pass over the vertices:
  // h(n) = max_a - min_b and h(-n) = max_b - min_a.
  struct Axis {
    Vec3 normal;
    double h;
  };
  std::vector<Axis> axes;
  bool separated = false;
  auto project = [](const std::vector<Vec3>& points, const Vec3& n, double& lo, double& hi) {
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (const Vec3& p : points) {
      const double x = p.dot(n);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  };
  auto add_axis = [&](const Vec3& n) {
    double lo_a, hi_a, lo_b, hi_b;
    project(verts_a, n, lo_a, hi_a);
    project(verts_b, n, lo_b, hi_b);
    axes.push_back({n, hi_a - lo_b});
    axes.push_back({-n, hi_b - lo_a});
    if (hi_a - lo_b < 0.0 || hi_b - lo_a < 0.0) separated = true;
  };
  for (const auto& f : a.facets()) {
    if (separated) break;
    add_axis(f.normal);
  }
  for (const auto& f : b.facets()) {
    if (separated) break;
    add_axis(f.normal);
  }
  for (const auto& ea : edges_a) {
    if (separated) break;
    const Vec3 da = point_a(ea[1]) - point_a(ea[0]);
    for (const auto& eb : edges_b) {
      const Vec3 db = point_b(eb[1]) - point_b(eb[0]);
      const Vec3 cross = da.cross(db);
      const double length = cross.norm();
      // Parallel edges span no facet of A - B (faces containing them are candidates already).
      if (!(length > 1e-13 * da.norm() * db.norm())) continue;
      add_axis(cross / length);
      if (separated) break;
    }
  }

  if (!separated) {
    const auto best = std::min_element(axes.begin(), axes.end(),
                                       [](const Axis& x, const Axis& y) { return x.h < y.h; });
    r.overlap = true;
    r.depth = std::max(best->h, 0.0);
    r.normal = best->normal;
    r.signed_distance = -r.depth;
    r.second_depth = std::numeric_limits<double>::infinity();
    for (const Axis& axis : axes) {
      if ((axis.normal - r.normal).norm() > 1e-6) r.second_depth = std::min(r.second_depth, axis.h);
    }
    r.unique_normal = r.second_depth > r.depth + unique_margin;
    return r;
  }

  // Apart: the nearest feature pair, skipping pairs whose bounding balls are already too far.
  double best2 = std::numeric_limits<double>::infinity();
  Vec3 best_a = Vec3::Zero(), best_b = Vec3::Zero();
  auto consider = [&](const Vec3& x, const Vec3& y) {
    const double d2 = (x - y).squaredNorm();
    if (d2 < best2) {
      best2 = d2;
      best_a = x;
      best_b = y;
    }
  };
  auto too_far = [&](const Ball& x, const Ball& y) {
    const double gap = (x.center - y.center).norm() - x.radius - y.radius;
    return gap > 0.0 && gap * gap > best2;
  };
  for (const auto& f : b.facets()) {
    const Vec3 &p = point_b(f.vertex[0]), &q = point_b(f.vertex[1]), &s = point_b(f.vertex[2]);
    const Ball ball = triangle_ball(p, q, s);
    for (const Vec3& v : verts_a) {
      if (!too_far(ball, {v, 0.0})) consider(v, closest_point_on_triangle(v, p, q, s));
    }
  }
  for (const auto& f : a.facets()) {
    const Vec3 &p = point_a(f.vertex[0]), &q = point_a(f.vertex[1]), &s = point_a(f.vertex[2]);
    const Ball ball = triangle_ball(p, q, s);
    for (const Vec3& v : verts_b) {
      if (!too_far(ball, {v, 0.0})) consider(closest_point_on_triangle(v, p, q, s), v);
    }
  }
  for (const auto& ea : edges_a) {
    const Vec3 &p0 = point_a(ea[0]), &p1 = point_a(ea[1]);
    const Ball ball_a{0.5 * (p0 + p1), 0.5 * (p1 - p0).norm()};
    for (const auto& eb : edges_b) {
      const Vec3 &q0 = point_b(eb[0]), &q1 = point_b(eb[1]);
      if (too_far(ball_a, {0.5 * (q0 + q1), 0.5 * (q1 - q0).norm()})) continue;
      Vec3 on_a, on_b;
      closest_points_between_segments(p0, p1, q0, q1, on_a, on_b);
      consider(on_a, on_b);
    }
  }
  r.closest_cso_point = best_a - best_b;
  r.distance = r.closest_cso_point.norm();
  r.signed_distance = r.distance;
  if (r.distance > 0.0) r.normal = -r.closest_cso_point / r.distance;
  return r;
}

ReferenceResult reference_query(const std::vector<Vec3>& world_a, const std::vector<Vec3>& world_b,
                                double unique_margin) {
  return reference_query(ReferenceHull::build(world_a), ReferenceHull::build(world_b),
                         unique_margin);
}

}  // namespace gjk::testing
