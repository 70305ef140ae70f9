// Convex hull construction with qhull (reentrant C API). The hull's triangulated facets give the
// vertex adjacency used by hill climbing (seed 002 section 4.2, seed 003 appendix build the
// same edge data by brute force; qhull does it in O(n log n)).
#include "gjk/shapes.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "minkowski.hpp"  // detail::prefetch_for_climbing
#include "qhull_wrapper.hpp"

namespace gjk {
namespace {

// Affine dimension of a point set, from the spread along its principal axes. A direction whose
// extent is below `relative_flatness` times the largest extent counts as flat: such sets are
// not solid enough for a 3D hull and are handled as polygons, segments or points.
constexpr double kRelativeFlatness = 1e-14;

struct PrincipalFrame {
  double unit;           // largest |coordinate|: the frame works on points / unit
  Vec3 origin;           // mean of points / unit
  Eigen::Matrix3d axes;  // columns, largest extent first
  Vec3 extents;          // max - min along each axis, in units of `unit`
  /// Coordinates of p along the axes, in units of `unit` (of the order of 1).
  Vec3 local(const Vec3& p) const { return axes.transpose() * (p / unit - origin); }
};

PrincipalFrame principal_frame(const std::vector<Vec3>& points) {
  // Work on the points divided by their largest coordinate: the covariance of raw coordinates
  // overflows from about 1e154 and underflows to zero below 1e-154 (denormal point sets then
  // got arbitrary axes and reached qhull with a degenerate input).
  double unit = 0.0;
  for (const Vec3& p : points) unit = std::max(unit, p.cwiseAbs().maxCoeff());
  if (!(unit > 0.0)) unit = 1.0;
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : points) mean += p / unit;
  mean /= static_cast<double>(points.size());
  Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
  for (const Vec3& p : points) cov += (p / unit - mean) * (p / unit - mean).transpose();
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(cov);
  PrincipalFrame frame;
  frame.unit = unit;
  frame.origin = mean;
  // Eigen sorts eigenvalues ascending; we want the largest spread first.
  for (int k = 0; k < 3; ++k) frame.axes.col(k) = eig.eigenvectors().col(2 - k);
  for (int k = 0; k < 3; ++k) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (const Vec3& p : points) {
      const double s = frame.axes.col(k).dot(p / unit - mean);
      lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
    frame.extents[k] = hi - lo;
  }
  return frame;
}

/// Where the support of (x, y, z) in {-1, 0, 1}^3 (not 0) sits in direction_supports_: the grid
/// enumerated z fastest, without the origin (grid entry 13). The one place that layout is written.
constexpr size_t direction_entry(int x, int y, int z) {
  const int grid = (x + 1) * 9 + (y + 1) * 3 + (z + 1);
  return static_cast<size_t>(grid - (grid > 13 ? 1 : 0));
}
static_assert(direction_entry(-1, -1, -1) == 0 && direction_entry(1, 1, 1) == 25 &&
              direction_entry(0, 0, -1) == 12 && direction_entry(0, 0, 1) == 13);

// The smallest ball around a point set: Welzl's algorithm with Gärtner's move-to-front
// heuristic (E. Welzl, "Smallest enclosing disks (balls and ellipsoids)", 1991; B. Gärtner,
// "Fast and robust smallest enclosing balls", ESA 1999). The hull's bounding ball: every
// far-pair exit (collide()'s balls, the threshold loop's, the robot broadphase's) tests it;
// around the vertices' mean it is a median 1.2x wider (up to 1.5x) for 10 points on a sphere.
struct EnclosingBall {
  Vec3 center = Vec3::Zero();
  double radius2 = -1.0;  // below 0: the empty ball
};

/// The smallest ball with `boundary[0..count)` (at most 4 affinely independent points) on its
/// sphere. Nearly dependent points (a flat triangle, a flat tetrahedron) get the ball of their
/// farthest pair instead: the caller takes the final radius from the centre, so a centre off
/// the optimum costs tightness, never containment.
EnclosingBall ball_through(const std::array<Vec3, 4>& boundary, int count) {
  const auto diametral = [&](int n) {
    EnclosingBall best;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const Vec3 c = 0.5 * (boundary[static_cast<size_t>(i)] + boundary[static_cast<size_t>(j)]);
        const double r2 = (boundary[static_cast<size_t>(i)] - c).squaredNorm();
        if (r2 > best.radius2) best = {c, r2};
      }
    }
    return best;
  };
  if (count == 0) return {};
  if (count == 1) return {boundary[0], 0.0};
  if (count == 2) return diametral(2);
  const Vec3 u = boundary[1] - boundary[0];
  const Vec3 v = boundary[2] - boundary[0];
  const double u2 = u.squaredNorm(), v2 = v.squaredNorm();
  if (count == 3) {
    // Circumcentre in the triangle's plane.
    const Vec3 w = u.cross(v);
    const double w2 = w.squaredNorm();
    if (!(w2 > 1e-20 * u2 * v2)) return diametral(3);
    const Vec3 offset = (u2 * v.cross(w) + v2 * w.cross(u)) / (2.0 * w2);
    return {boundary[0] + offset, offset.squaredNorm()};
  }
  // Circumcentre of the tetrahedron.
  const Vec3 t = boundary[3] - boundary[0];
  const double t2 = t.squaredNorm();
  const double det = u.dot(v.cross(t));
  if (!(std::abs(det) > 1e-10 * std::sqrt(u2 * v2 * t2))) return diametral(4);
  const Vec3 offset = (u2 * v.cross(t) + v2 * t.cross(u) + t2 * u.cross(v)) / (2.0 * det);
  return {boundary[0] + offset, offset.squaredNorm()};
}

/// Welzl's recursion over points[0..end) with `count` boundary points fixed; a point found
/// outside moves to the front, where the next passes meet it first. Depth at most 4.
EnclosingBall move_to_front_ball(std::vector<Vec3>& points, size_t end,
                                 std::array<Vec3, 4>& boundary, int count) {
  EnclosingBall ball = ball_through(boundary, count);
  if (count == 4) return ball;
  for (size_t i = 0; i < end; ++i) {
    // A relative margin: points on the sphere up to rounding are inside.
    if (ball.radius2 >= 0.0 &&
        (points[i] - ball.center).squaredNorm() <= ball.radius2 * (1.0 + 1e-12)) {
      continue;
    }
    boundary[static_cast<size_t>(count)] = points[i];
    ball = move_to_front_ball(points, i, boundary, count + 1);
    std::rotate(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(i),
                points.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  }
  return ball;
}

/// The centre of the smallest ball around `vertices` (not empty, finite). Worked in units of a
/// power of two near the largest coordinate, so that squared lengths neither overflow nor
/// underflow; the order is shuffled with a fixed seed (expected linear time, same answer on
/// every run).
Vec3 smallest_ball_center(const std::vector<Vec3>& vertices) {
  double largest = 0.0;
  for (const Vec3& v : vertices) largest = std::max(largest, v.cwiseAbs().maxCoeff());
  if (!(largest > 0.0)) return Vec3::Zero();
  const int exponent = std::ilogb(largest);
  std::vector<Vec3> points;
  points.reserve(vertices.size());
  for (const Vec3& v : vertices)
    points.emplace_back(std::ldexp(v.x(), -exponent), std::ldexp(v.y(), -exponent),
                        std::ldexp(v.z(), -exponent));
  std::mt19937_64 order(0x5eed);
  std::shuffle(points.begin(), points.end(), order);
  std::array<Vec3, 4> boundary{Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  const EnclosingBall ball = move_to_front_ball(points, points.size(), boundary, 0);
  const Vec3& c = ball.center;
  return {std::ldexp(c.x(), exponent), std::ldexp(c.y(), exponent), std::ldexp(c.z(), exponent)};
}
}  // namespace

ConvexPolytope ConvexPolytope::from_points(const std::vector<Vec3>& points) {
  if (points.empty()) throw std::invalid_argument("ConvexPolytope: empty point set");
  for (size_t i = 0; i < points.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(points[i][k])) {
        std::ostringstream msg;
        msg << "ConvexPolytope: point " << i << " coordinate "
            << "xyz"[k] << " is not finite (" << points[i][k] << ")";
        throw std::invalid_argument(msg.str());
      }
    }
  }

  const PrincipalFrame frame = principal_frame(points);
  const double largest = frame.extents[0];
  int dimension = 0;
  for (int k = 0; k < 3; ++k) {
    if (frame.extents[k] > kRelativeFlatness * largest && frame.extents[k] > 0.0) dimension = k + 1;
  }

  ConvexPolytope hull;
  std::vector<std::uint32_t> hull_ids;                         // indices into `points`
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // in `points` ids

  // qhull's own flatness test is stricter than ours near the threshold: when it finds the set
  // flat (it throws), the set is handled one dimension lower, which drops only a spread qhull
  // cannot resolve.
  for (;; --dimension) {
    hull_ids.clear();
    edges.clear();
    if (dimension == 0) {
      hull_ids.push_back(0);
      break;
    }
    if (dimension == 1) {
      size_t lo = 0, hi = 0;
      for (size_t i = 1; i < points.size(); ++i) {
        if (frame.local(points[i]).x() < frame.local(points[lo]).x()) lo = i;
        if (frame.local(points[i]).x() > frame.local(points[hi]).x()) hi = i;
      }
      hull_ids = {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi)};
      edges.emplace_back(hull_ids[0], hull_ids[1]);
      if (lo == hi) {  // the spread vanished in rounding: one point after all
        hull_ids.pop_back();
        edges.clear();
        dimension = 0;
      }
      break;
    }
    const int dim = dimension;
    std::vector<double> coords;
    coords.reserve(points.size() * static_cast<size_t>(dim));
    for (const Vec3& p : points) {
      const Vec3 q = frame.local(p);
      for (int k = 0; k < dim; ++k) coords.push_back(q[k]);
    }
    std::vector<std::array<std::uint32_t, 3>> tris;
    try {
      detail::run_qhull(coords, dim, "Qt", [&](qhT* qh, facetT* facet) {
        std::array<std::uint32_t, 3> ids{};
        int n = 0;
        vertexT *vertex, **vertexp;
        FOREACHvertex_(facet->vertices) {
          if (n < 3)
            ids[static_cast<size_t>(n)] = static_cast<std::uint32_t>(qh_pointid(qh, vertex->point));
          ++n;
        }
        if (dim == 2 && n == 2) {
          edges.emplace_back(ids[0], ids[1]);
        } else if (dim == 3 && n == 3) {
          // Orient the triangle so its normal points out of the hull (qhull's normal is outward).
          const Vec3& a = points[ids[0]];
          const Vec3 normal = (points[ids[1]] - a).cross(points[ids[2]] - a);
          Vec3 qh_normal = Vec3::Zero();
          for (int k = 0; k < 3; ++k) qh_normal += facet->normal[k] * frame.axes.col(k);
          if (normal.dot(qh_normal) < 0) std::swap(ids[1], ids[2]);
          tris.push_back(ids);
        }
      });
    } catch (const std::runtime_error&) {
      continue;  // flat for qhull: one dimension lower
    }
    for (const auto& t : tris) {
      for (int e = 0; e < 3; ++e)
        edges.emplace_back(t[static_cast<size_t>(e)], t[static_cast<size_t>((e + 1) % 3)]);
    }
    for (const auto& e : edges) {
      hull_ids.push_back(e.first);
      hull_ids.push_back(e.second);
    }
    std::sort(hull_ids.begin(), hull_ids.end());
    hull_ids.erase(std::unique(hull_ids.begin(), hull_ids.end()), hull_ids.end());
    hull.triangles_ = std::move(tris);
    break;
  }
  hull.dimension_ = dimension;

  // Renumber from point ids to hull vertex indices.
  std::vector<std::uint32_t> new_index(points.size(), 0);
  hull.vertices_.reserve(hull_ids.size());
  for (size_t i = 0; i < hull_ids.size(); ++i) {
    new_index[hull_ids[i]] = static_cast<std::uint32_t>(i);
    hull.vertices_.push_back(points[hull_ids[i]]);
  }
  for (auto& t : hull.triangles_) {
    for (auto& id : t) id = new_index[id];
  }
  std::vector<std::vector<std::uint32_t>> neighbours(hull.vertices_.size());
  for (const auto& e : edges) {
    const std::uint32_t a = new_index[e.first], b = new_index[e.second];
    if (a == b) continue;
    neighbours[a].push_back(b);
    neighbours[b].push_back(a);
  }
  hull.adjacency_offsets_.push_back(0);
  for (auto& list : neighbours) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    hull.adjacency_.insert(hull.adjacency_.end(), list.begin(), list.end());
    hull.adjacency_offsets_.push_back(static_cast<std::uint32_t>(hull.adjacency_.size()));
  }
  // Mean of terms divided first: a sum of coordinates near DBL_MAX would overflow.
  Vec3 center = Vec3::Zero();
  for (const Vec3& v : hull.vertices_) center += v / static_cast<double>(hull.vertices_.size());
  hull.center_ = center;
  hull.compute_bounding_radius();
  return hull;
}

ConvexPolytope ConvexPolytope::from_hull_vertices(std::vector<Vec3> vertices) {
  if (vertices.empty()) throw std::invalid_argument("ConvexPolytope: empty vertex set");
  for (size_t i = 0; i < vertices.size(); ++i) {
    if (!vertices[i].allFinite()) {
      throw std::invalid_argument("ConvexPolytope: vertex " + std::to_string(i) + " is not finite");
    }
  }
  ConvexPolytope hull;
  const PrincipalFrame frame = principal_frame(vertices);
  for (int k = 0; k < 3; ++k) {
    if (frame.extents[k] > kRelativeFlatness * frame.extents[0] && frame.extents[k] > 0.0)
      hull.dimension_ = k + 1;
  }
  Vec3 center = Vec3::Zero();
  for (const Vec3& v : vertices) center += v / static_cast<double>(vertices.size());
  hull.center_ = center;
  hull.vertices_ = std::move(vertices);
  hull.adjacency_offsets_.assign(hull.vertices_.size() + 1, 0);
  hull.compute_bounding_radius();
  return hull;
}

ConvexPolytope ConvexPolytope::from_hull_faces(
    std::vector<Vec3> vertices, std::vector<std::array<std::uint32_t, 3>> triangles) {
  if (vertices.size() < 4 || triangles.empty()) {
    throw std::invalid_argument(
        "ConvexPolytope::from_hull_faces: a solid needs at least 4 "
        "vertices and some triangles");
  }
  for (size_t i = 0; i < vertices.size(); ++i) {
    if (!vertices[i].allFinite()) {
      throw std::invalid_argument("ConvexPolytope: vertex " + std::to_string(i) + " is not finite");
    }
  }
  std::vector<std::vector<std::uint32_t>> neighbours(vertices.size());
  for (size_t t = 0; t < triangles.size(); ++t) {
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t a = triangles[t][static_cast<size_t>(e)];
      const std::uint32_t b = triangles[t][static_cast<size_t>((e + 1) % 3)];
      if (a >= vertices.size() || b >= vertices.size()) {
        throw std::invalid_argument("ConvexPolytope::from_hull_faces: triangle " +
                                    std::to_string(t) + " has a vertex index out of range");
      }
      neighbours[a].push_back(b);
      neighbours[b].push_back(a);
    }
  }
  ConvexPolytope hull;
  hull.dimension_ = 3;
  hull.adjacency_offsets_.push_back(0);
  for (auto& list : neighbours) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    hull.adjacency_.insert(hull.adjacency_.end(), list.begin(), list.end());
    hull.adjacency_offsets_.push_back(static_cast<std::uint32_t>(hull.adjacency_.size()));
  }
  Vec3 center = Vec3::Zero();
  for (const Vec3& v : vertices) center += v / static_cast<double>(vertices.size());
  hull.center_ = center;
  hull.vertices_ = std::move(vertices);
  hull.triangles_ = std::move(triangles);
  hull.compute_bounding_radius();
  return hull;
}

ConvexPolytope ConvexPolytope::scaled(double factor) const {
  ConvexPolytope copy = *this;
  for (Vec3& v : copy.vertices_) v *= factor;
  copy.center_ *= factor;
  copy.bounding_radius_ *= factor;
  copy.ball_center_ *= factor;
  copy.ball_radius_ *= factor;
  copy.inner_radius_ *= factor;
  // Supports of fixed directions do not change with a scale.
  return copy;
}

namespace {

/// A lower bound on the distance from `c` to the segment [p, q], less its rounding.
double segment_distance_below(const Vec3& p, const Vec3& q, const Vec3& c, double magnitude) {
  const Vec3 e = q - p;
  const double length = e.stableNorm();
  const double t = length > 0.0 ? std::clamp((e / length).dot(c - p) / length, 0.0, 1.0) : 0.0;
  return (p + t * e - c).stableNorm() - 16.0 * DBL_EPSILON * 2.0 * magnitude;
}

/// The largest ball around `c` that no face crosses, less rounding: `c` inside a closed surface
/// of triangles whose vertices are hull vertices, the ball stays inside it, hence inside the
/// hull. A face's distance is bounded below by its plane's: the normal (the cross product of
/// its unit edges) turns by up to ~8 eps / sine rad, which moves that distance by that times
/// |v - c| (at most 3.5 x the largest coordinate), and v - c itself carries eps (|v| + |c|). A
/// sliver (sine below 1e-3, where that turn can cost the whole ball) may take instead its
/// longest edge's distance less its height over that edge. 0 when a face does not have c
/// strictly inside, or there are none.
double inner_radius_around(const std::vector<Vec3>& vertices,
                           const std::vector<std::array<std::uint32_t, 3>>& triangles,
                           const Vec3& c) {
  if (triangles.empty()) return 0.0;
  double inner = std::numeric_limits<double>::infinity();
  for (const auto& t : triangles) {
    const Vec3 &p = vertices[t[0]], &q = vertices[t[1]], &r = vertices[t[2]];
    double magnitude = c.cwiseAbs().maxCoeff();
    for (const Vec3* v : {&p, &q, &r}) magnitude = std::max(magnitude, v->cwiseAbs().maxCoeff());
    // Unit edges first: products of raw coordinates would overflow from 1e154.
    const Vec3 e1 = q - p, e2 = r - p;
    const double l1 = e1.stableNorm(), l2 = e2.stableNorm(), l3 = (r - q).stableNorm();
    if (!(l1 > 0.0) || !(l2 > 0.0) || !(l3 > 0.0)) {  // a point or a segment: its edges
      inner = std::min({inner, segment_distance_below(p, q, c, magnitude),
                        segment_distance_below(p, r, c, magnitude),
                        segment_distance_below(q, r, c, magnitude)});
      continue;
    }
    const Vec3 n = (e1 / l1).cross(e2 / l2);
    const double sine = n.norm();
    double bound = -std::numeric_limits<double>::infinity();
    if (sine > 0.0) {
      const Vec3 unit = n / sine;
      double distance = std::numeric_limits<double>::infinity();
      for (const Vec3* v : {&p, &q, &r}) distance = std::min(distance, unit.dot(*v - c));
      bound = distance - 32.0 * DBL_EPSILON * (1.0 / sine + 1.0) * 2.0 * magnitude;
    }
    if (sine < 1e-3) {
      // Every point of a sliver lies within its height (twice its area over the longest edge)
      // of that edge: the better of the two bounds.
      const double longest = std::max({l1, l2, l3});
      const double height = l1 * l2 * (sine + 16.0 * DBL_EPSILON) / longest * (1.0 + 1e-6);
      const Vec3 *from = &p, *to = &q;
      if (longest == l2) from = &p, to = &r;
      if (longest == l3) from = &q, to = &r;
      bound = std::max(bound, segment_distance_below(*from, *to, c, magnitude) - height);
    }
    inner = std::min(inner, bound);
  }
  return inner > 0.0 && std::isfinite(inner) ? inner : 0.0;
}

}  // namespace

void ConvexPolytope::compute_bounding_radius() {
  const auto radius_around = [&](const Vec3& c) {
    double r = 0.0;
    for (const Vec3& v : vertices_) r = std::max(r, (v - c).stableNorm());  // no overflow at 1e155
    return r;
  };
  bounding_radius_ = radius_around(center_);
  // The smallest enclosing ball, unless rounding left it wider than the mean's ball; either way
  // the radius is measured from the centre kept, so the ball holds every vertex.
  ball_center_ = smallest_ball_center(vertices_);
  ball_radius_ = radius_around(ball_center_);
  if (!(ball_radius_ < bounding_radius_)) {
    ball_center_ = center_;
    ball_radius_ = bounding_radius_;
  }
  inner_radius_ = inner_radius_around(vertices_, triangles_, ball_center_);
  // Supports of the 26 directions of the cube's faces, edges and corners (hill-climbing starts).
  for (int x = -1; x <= 1; ++x) {
    for (int y = -1; y <= 1; ++y) {
      for (int z = -1; z <= 1; ++z) {
        if (x == 0 && y == 0 && z == 0) continue;
        direction_supports_[direction_entry(x, y, z)] =
            static_cast<std::uint32_t>(support_index(Vec3(x, y, z)));
      }
    }
  }
}

int ConvexPolytope::support_index(const Vec3& direction) const {
  int best = 0;
  double best_dot = vertices_[0].dot(direction);
  const int n = static_cast<int>(vertices_.size());
  for (int i = 1; i < n; ++i) {
    const double d = vertices_[static_cast<size_t>(i)].dot(direction);
    if (d > best_dot) {
      best_dot = d;
      best = i;
    }
  }
  return best;
}

int ConvexPolytope::support_index_climbing(const Vec3& direction, int hint) const {
  const int n = static_cast<int>(vertices_.size());
  if (adjacency_.empty()) return support_index(direction);
  // Start from the hint: the last support, or a tracked pair's last query's, is usually a few
  // edges from the answer (seed 004 section 3.2: a step costs about the vertex degree). Without
  // one, from climb_start's support of the nearest fixed direction. Callers whose direction
  // turned far pass climb_start's pick as the hint (PolytopeCore::support, EPA's faces):
  // scanning the 26 on every call cost tracked queries more than the walk it saved (issue 18).
  int current = hint;
  if (hint < 0 || hint >= n) current = climb_start(direction, -1);
  double best = vertices_[static_cast<size_t>(current)].dot(direction);
  // Steepest ascent; each step strictly increases <v, d>, so at most n steps.
  for (int step = 0; step < n; ++step) {
    int next = current;
    for (std::uint32_t k = adjacency_offsets_[static_cast<size_t>(current)];
         k < adjacency_offsets_[static_cast<size_t>(current) + 1]; ++k) {
      const double value = vertices_[adjacency_[k]].dot(direction);
      if (value > best) {
        best = value;
        next = static_cast<int>(adjacency_[k]);
      }
    }
    if (next == current) break;
    current = next;
  }
  return current;
}

std::pair<Vec3, Vec3> ConvexPolytope::local_bounds() const {
  // The supports of +-e_k are support_index of that axis, so the box is the one a scan along
  // +-e_k finds, coordinate for coordinate.
  if (vertices_.empty()) return {Vec3::Zero(), Vec3::Zero()};
  const auto at = [&](int x, int y, int z) -> const Vec3& {
    return vertices_[direction_supports_[direction_entry(x, y, z)]];
  };
  return {Vec3(at(-1, 0, 0).x(), at(0, -1, 0).y(), at(0, 0, -1).z()),
          Vec3(at(1, 0, 0).x(), at(0, 1, 0).y(), at(0, 0, 1).z())};
}

// Not inlined into support_index_climbing: its call is the rare path there.
[[gnu::noinline]] int ConvexPolytope::climb_start(const Vec3& direction, int candidate) const {
  // The preset nearest `direction` (largest cosine) has d's signs on the axes it uses, and uses
  // the m axes of largest |d_i| for the m in 1..3 that maximises their sum / sqrt(m). Chosen by
  // selects, with no dot product: scoring all 26 presets' supports along d cost 525 instructions
  // per cold climb (issue 18), where the walk from the nearest one's support takes a step or two
  // more.
  const double ax = std::abs(direction.x()), ay = std::abs(direction.y()),
               az = std::abs(direction.z());
  constexpr double kRoot2 = 0.70710678118654752440, kRoot3 = 0.57735026918962576451;
  // Axis masks (x = 4, y = 2, z = 1) and their scores; the first maximum wins.
  int mask = 4;
  double score = ax;
  const auto offer = [&](int m, double s) {
    const bool better = s > score;
    mask = better ? m : mask;
    score = better ? s : score;
  };
  offer(2, ay);
  offer(1, az);
  offer(6, (ax + ay) * kRoot2);
  offer(5, (ax + az) * kRoot2);
  offer(3, (ay + az) * kRoot2);
  offer(7, (ax + ay + az) * kRoot3);
  const auto sign = [](double x) { return x < 0.0 ? -1 : 1; };
  const int sx = (mask & 4) != 0 ? sign(direction.x()) : 0,
            sy = (mask & 2) != 0 ? sign(direction.y()) : 0,
            sz = (mask & 1) != 0 ? sign(direction.z()) : 0;
  const int start = static_cast<int>(direction_supports_[direction_entry(sx, sy, sz)]);
  const int n = static_cast<int>(vertices_.size());
  if (candidate < 0 || candidate >= n) return start;
  return vertices_[static_cast<size_t>(candidate)].dot(direction) >=
                 vertices_[static_cast<size_t>(start)].dot(direction)
             ? candidate
             : start;
}

namespace detail {

void prefetch_for_climbing(const ConvexPolytope& hull) {
  const auto lines = [](const void* data, size_t bytes) {
    const char* p = static_cast<const char*>(data);
#if defined(__GNUC__) || defined(__clang__)
    for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(p + offset);
#else
    (void)p;
    (void)bytes;
#endif
  };
  lines(hull.vertices().data(), hull.vertices().size() * sizeof(Vec3));
  lines(hull.adjacency_offsets().data(), hull.adjacency_offsets().size() * sizeof(std::uint32_t));
  lines(hull.adjacency().data(), hull.adjacency().size() * sizeof(std::uint32_t));
}

}  // namespace detail

void validate(const Shape& shape) {
  auto check = [](double value, const char* what) {
    if (!std::isfinite(value) || value < 0.0) {
      std::ostringstream msg;
      msg << what << " must be finite and >= 0 (got " << value << ")";
      throw std::invalid_argument(msg.str());
    }
  };
  check(shape.inflation, "inflation");
  std::visit(
      [&](const auto& g) {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, Sphere>) {
          check(g.radius, "sphere radius");
        } else if constexpr (std::is_same_v<G, Box>) {
          for (int k = 0; k < 3; ++k) check(g.half_extents[k], "box half extent");
        } else if constexpr (std::is_same_v<G, Capsule>) {
          check(g.radius, "capsule radius");
          check(g.half_length, "capsule half_length");
        } else if constexpr (std::is_same_v<G, Cylinder>) {
          check(g.radius, "cylinder radius");
          check(g.half_length, "cylinder half_length");
        } else {
          if (g.vertices().empty()) throw std::invalid_argument("polytope has no vertices");
        }
      },
      shape.geometry);
}

std::string shape_name(const Shape& shape) {
  static const char* names[] = {"sphere", "box", "capsule", "cylinder", "polytope"};
  return names[shape.geometry.index()];
}

}  // namespace gjk
