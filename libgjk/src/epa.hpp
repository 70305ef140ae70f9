// Expanding Polytope Algorithm (seed 000 section 3, Alg. 3, eqs. 32-35).
//
// Starts from GJK's final simplex. When that is not a full tetrahedron (seed 000 footnote 4) it
// is grown by supports in well-chosen directions: a segment gets a third point off its line, a
// triangle the taller of the supports along its two normals. If the Minkowski
// difference has no extent along some direction (flat bodies in contact), the depth along that
// direction is its support value and EPA is not needed.
#pragma once

#include "gjk/results.hpp"
#include "gjk/simplex.hpp"
#include "gjk_loop.hpp"
#include "minkowski.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

namespace gjk::detail {

struct EpaOutcome {
  double depth = 0.0;           ///< of the cores
  Vec3 normal = Vec3::UnitX();  ///< A's frame, from A towards B
  Vec3 point_on_a = Vec3::Zero();
  Vec3 point_on_b = Vec3::Zero();
  double lower_bound = 0.0;  ///< certified: the polytope's nearest face (it lies inside A-B)
  double upper_bound = 0.0;  ///< certified: the smallest support value seen (a valid translation)
  int iterations = 0;
  Status status = Status::Converged;
};

struct EpaFace {
  std::array<int, 3> vertex{};
  std::array<int, 3> neighbour{};       // face across edge e = (vertex[e], vertex[e+1])
  std::array<int, 3> neighbour_edge{};  // that edge's index in the neighbour
  Vec3 normal = Vec3::Zero();
  double distance = 0.0;  // signed distance of the face plane from the origin
  bool alive = true;
};

/// A start polytope's faces: face f's corners, and the twin of its edge e (corner e -> corner
/// e + 1) as 3 * face + edge.
template <int Faces>
struct EpaStartLayout {
  int corner[Faces][3];
  int twin[Faces][3];
};
/// Every twin runs the same edge the other way and names its twin back.
template <int Faces>
constexpr bool linked_both_ways(const EpaStartLayout<Faces>& t) {
  for (int f = 0; f < Faces; ++f) {
    for (int e = 0; e < 3; ++e) {
      if (t.twin[f][e] < 0) return false;
      const int g = t.twin[f][e] / 3, h = t.twin[f][e] % 3;
      if (t.twin[g][h] != 3 * f + e || t.corner[g][h] != t.corner[f][(e + 1) % 3] ||
          t.corner[g][(h + 1) % 3] != t.corner[f][e])
        return false;
    }
  }
  return true;
}
/// The twins of a closed surface's faces, found from their corners (-1 where none is).
template <int Faces>
constexpr EpaStartLayout<Faces> with_twins(const int (&corner)[Faces][3]) {
  EpaStartLayout<Faces> t{};
  for (int f = 0; f < Faces; ++f) {
    for (int e = 0; e < 3; ++e) {
      t.corner[f][e] = corner[f][e];
      t.twin[f][e] = -1;
    }
  }
  for (int f = 0; f < Faces; ++f) {
    for (int e = 0; e < 3; ++e) {
      for (int g = 0; g < Faces; ++g) {
        for (int h = 0; h < 3; ++h) {
          if (corner[g][h] == corner[f][(e + 1) % 3] && corner[g][(h + 1) % 3] == corner[f][e])
            t.twin[f][e] = 3 * g + h;
        }
      }
    }
  }
  return t;
}
/// The start tetrahedron over vertices 0-3, outward when vertex 3 lies on the positive side of
/// (1 - 0) x (2 - 0), and when it lies on the negative side.
inline constexpr int kEpaPositiveCorners[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
inline constexpr int kEpaNegativeCorners[4][3] = {{0, 1, 2}, {1, 0, 3}, {2, 1, 3}, {0, 2, 3}};
inline constexpr EpaStartLayout<4> kEpaPositiveStart = with_twins(kEpaPositiveCorners);
inline constexpr EpaStartLayout<4> kEpaNegativeStart = with_twins(kEpaNegativeCorners);
/// The start octahedron over vertices 0-5, the supports along +u, -u, +v, -v, +w, -w of a
/// right-handed frame (u, v, w): one face per octant, outward (the corners of an octant with an
/// odd number of minus signs run the other way round).
inline constexpr int kEpaOctahedronCorners[8][3] = {{0, 2, 4}, {0, 5, 2}, {0, 4, 3}, {0, 3, 5},
                                                    {1, 4, 2}, {1, 2, 5}, {1, 3, 4}, {1, 5, 3}};
inline constexpr EpaStartLayout<8> kEpaOctahedronStart = with_twins(kEpaOctahedronCorners);
static_assert(linked_both_ways(kEpaPositiveStart) && linked_both_ways(kEpaNegativeStart) &&
              linked_both_ways(kEpaOctahedronStart));

class EpaPolytope {
 public:
  std::vector<SupportPoint> vertices;
  std::vector<EpaFace> faces;
  /// Per face of run_epa's polytope: its distance while alive, +inf once removed. The nearest
  /// face is searched in this dense array, not in the 80-byte faces (issue 18: that scan was
  /// a third of EPA's own time at 64 vertices).
  std::vector<double> key;

  void clear() {
    vertices.clear();
    faces.clear();
    key.clear();
  }

  /// Adds a face and computes its outward plane. Returns its index.
  int add_face(int a, int b, int c) {
    faces.emplace_back();
    set_face(faces.back(), a, b, c);
    key.push_back(faces.back().distance);
    return static_cast<int>(faces.size()) - 1;
  }

  /// Removes face f (seen from a new vertex, or expanded).
  void kill(int f) {
    faces[static_cast<size_t>(f)].alive = false;
    key[static_cast<size_t>(f)] = std::numeric_limits<double>::infinity();
  }

  /// Sets a face's corners and computes its outward plane (neighbours untouched).
  void set_face(EpaFace& f, int a, int b, int c) const {
    f.vertex = {a, b, c};
    f.alive = true;
    const Vec3& pa = vertices[static_cast<size_t>(a)].w;
    const Vec3 n =
        (vertices[static_cast<size_t>(b)].w - pa).cross(vertices[static_cast<size_t>(c)].w - pa);
    const double length = n.norm();
    const double longest2 = std::max(
        {(vertices[static_cast<size_t>(b)].w - pa).squaredNorm(),
         (vertices[static_cast<size_t>(c)].w - pa).squaredNorm(),
         (vertices[static_cast<size_t>(c)].w - vertices[static_cast<size_t>(b)].w).squaredNorm()});
    if (length > 1e-12 * longest2) {
      f.normal = n / length;
      f.distance = f.normal.dot(pa);
    } else {
      // A sliver (collinear corners): its normal is rounding noise. Never the closest face,
      // never expanded, never used for witness points.
      f.normal.setZero();
      f.distance = std::numeric_limits<double>::infinity();
    }
  }

  /// The alive face nearest the origin (the first on ties), a sliver only when no other face is
  /// alive, -1 when none is. The minimum is a vectorised reduction and the index a search for
  /// it: fewer instructions and mispredicted branches per EPA query than a compare-and-keep loop
  /// or four running minima (issue 18, callgrind at 8, 64 and 512 vertices).
  int closest_alive_face() const {
    if (!key.empty()) {
      const double nearest =
          Eigen::Map<const Eigen::ArrayXd>(key.data(), static_cast<Eigen::Index>(key.size()))
              .minCoeff();
      if (nearest < std::numeric_limits<double>::infinity()) {
        return static_cast<int>(std::find(key.begin(), key.end(), nearest) - key.begin());
      }
    }
    for (size_t i = 0; i < faces.size(); ++i) {  // only slivers (+inf) left, or nothing
      if (faces[i].alive) return static_cast<int>(i);
    }
    return -1;
  }

  /// The start tetrahedron's faces over vertices 0-3, outward when `positive` (vertex 3 lies on
  /// the positive side of (1 - 0) x (2 - 0)), linked as kEpaPositiveStart or kEpaNegativeStart say.
  void add_start_tetrahedron(bool positive) {
    add_start_faces(positive ? kEpaPositiveStart : kEpaNegativeStart);
  }

  /// A start polytope's faces over the vertices already added, linked as `layout` says.
  template <int Faces>
  void add_start_faces(const EpaStartLayout<Faces>& layout) {
    for (size_t f = 0; f < Faces; ++f) {
      const auto& corner = layout.corner[f];
      EpaFace& face = faces[static_cast<size_t>(add_face(corner[0], corner[1], corner[2]))];
      for (size_t e = 0; e < 3; ++e) {
        face.neighbour[e] = layout.twin[f][e] / 3;
        face.neighbour_edge[e] = layout.twin[f][e] % 3;
      }
    }
  }
};

struct EpaWorkspace {
  EpaPolytope poly;
  std::vector<std::pair<int, int>> horizon;
  std::vector<int> vertex_map, face_map;  // renumbering when a polytope is stored in a cache
};

// One per thread: its vectors keep their capacity from query to query, so EPA stops allocating
// once a thread has seen its largest polytope.
inline EpaWorkspace& epa_workspace() {
  thread_local EpaWorkspace workspace;
  return workspace;
}

inline Vec3 any_perpendicular(const Vec3& d) {
  const Vec3 axis = std::abs(d.x()) < std::abs(d.y())
                        ? (std::abs(d.x()) < std::abs(d.z()) ? Vec3::UnitX() : Vec3::UnitZ())
                        : (std::abs(d.y()) < std::abs(d.z()) ? Vec3::UnitY() : Vec3::UnitZ());
  return d.cross(axis).normalized();
}

/// Barycentric coordinates of p's projection on face f's plane, not clamped (may be negative).
inline std::array<double, 3> raw_barycentric(const EpaPolytope& poly, const EpaFace& f,
                                             const Vec3& p) {
  const Vec3& a = poly.vertices[static_cast<size_t>(f.vertex[0])].w;
  const Vec3& b = poly.vertices[static_cast<size_t>(f.vertex[1])].w;
  const Vec3& c = poly.vertices[static_cast<size_t>(f.vertex[2])].w;
  const Vec3 n = (b - a).cross(c - a);
  const double area = n.squaredNorm();
  std::array<double, 3> l{1.0 / 3, 1.0 / 3, 1.0 / 3};
  if (!(area > 0.0)) return l;
  l[0] = n.dot((b - p).cross(c - p)) / area;
  l[1] = n.dot((c - p).cross(a - p)) / area;
  l[2] = 1.0 - l[0] - l[1];
  return l;
}

/// Barycentric coordinates of p's projection on face f, clamped into the triangle.
inline std::array<double, 3> face_barycentric(const EpaPolytope& poly, const EpaFace& f,
                                              const Vec3& p) {
  std::array<double, 3> l = raw_barycentric(poly, f, p);
  // Rounding can put p a hair outside the face; clamp and renormalise.
  double sum = 0.0;
  for (double& x : l) sum += (x = std::max(x, 0.0));
  for (double& x : l) x /= sum;
  return l;
}

/// The face that holds p = the origin's projection on the nearest face `best`. A facet of the
/// Minkowski difference with more than three vertices (the parallelogram of an edge-edge
/// contact, a polygon face of A minus a vertex of B) is split into coplanar triangles, and p
/// may lie in a neighbour of `best`: the clamped coordinates on `best` would then give witness
/// points that do not realise the depth (point_on_a - point_on_b != depth * normal). Among the
/// live faces whose plane passes through p within `tolerance`, take the one p is deepest in.
inline int face_holding(const EpaPolytope& poly, int best, const Vec3& p, double tolerance) {
  const EpaFace& f = poly.faces[static_cast<size_t>(best)];
  auto depth_inside = [&](const EpaFace& g) {
    const std::array<double, 3> l = raw_barycentric(poly, g, p);
    return std::min({l[0], l[1], l[2]});
  };
  double chosen_inside = depth_inside(f);
  int chosen = best;
  if (chosen_inside >= 0.0) return chosen;
  for (size_t i = 0; i < poly.faces.size(); ++i) {
    const EpaFace& g = poly.faces[i];
    if (!g.alive || !(std::abs(g.normal.dot(p) - g.distance) <= tolerance) ||
        g.normal.dot(f.normal) <= 0.0)
      continue;
    const double inside = depth_inside(g);
    if (inside > chosen_inside) {
      chosen_inside = inside;
      chosen = static_cast<int>(i);
    }
  }
  return chosen;
}

template <class MD>
EpaOutcome finish_flat(const MD&, const Simplex& s, const Vec3& normal, double depth) {
  // The difference is flat along `normal`: the origin lies on its boundary within `depth`.
  EpaOutcome out;
  out.normal = normal;
  out.depth = std::max(depth, 0.0);
  out.point_on_a = s.point_on_a();
  out.point_on_b = out.point_on_a - out.depth * normal;
  out.lower_bound = out.upper_bound = out.depth;
  return out;
}

/// Grows GJK's simplex (which holds the origin, up to rounding) into a polytope enclosing it.
/// Returns false with `flat` filled when the Minkowski difference is flat.
template <class MD>
bool initial_polytope(const MD& md, Simplex s, double flat_tolerance, EpaPolytope& poly,
                      EpaOutcome& flat) {
  // Index of a point of q within flat_tolerance of p, or -1.
  auto coincident = [&](const SupportPoint& p, const Simplex& q) {
    for (int i = 0; i < q.size; ++i) {
      if ((p.w - q.points[static_cast<size_t>(i)].w).norm() <= flat_tolerance) return i;
    }
    return -1;
  };
  auto distinct = [&](const SupportPoint& p, const Simplex& q) { return coincident(p, q) < 0; };
  // Coincident points (a warm start's repeated vertex pairs, or points rounding apart) would
  // give the segment below a zero axis and the triangle a zero normal, which finish_flat would
  // report as the contact normal: keep one of each, with their summed weight.
  {
    Simplex unique;
    for (int i = 0; i < s.size; ++i) {
      const SupportPoint& p = s.points[static_cast<size_t>(i)];
      const int same = coincident(p, unique);
      if (same >= 0) {
        unique.lambda[static_cast<size_t>(same)] += s.lambda[static_cast<size_t>(i)];
      } else {
        unique.lambda[static_cast<size_t>(unique.size)] = s.lambda[static_cast<size_t>(i)];
        unique.push_back(p);
      }
    }
    s = unique;
  }
  // A flat tetrahedron: keep a face whose triangle holds the origin's projection.
  if (s.size == 4) {
    const Vec3 e1 = s.points[1].w - s.points[0].w, e2 = s.points[2].w - s.points[0].w,
               e3 = s.points[3].w - s.points[0].w;
    const double volume = std::abs(e1.dot(e2.cross(e3)));
    const double longest = std::max(
        {e1.norm(), e2.norm(), e3.norm(), (e2 - e1).norm(), (e3 - e1).norm(), (e3 - e2).norm()});
    if (volume <= 1e-12 * longest * longest * longest) {
      static constexpr int faces[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
      double best_area = -1.0;
      Simplex best;
      for (const auto& f : faces) {
        Simplex t;
        for (int i : f) t.push_back(s.points[static_cast<size_t>(i)]);
        const Vec3 n = (t.points[1].w - t.points[0].w).cross(t.points[2].w - t.points[0].w);
        const double area = n.norm();
        if (area <= best_area) continue;
        Simplex probe = t;
        Vec3 v;
        solve_signed_volumes(probe, v);
        if (v.norm() <= flat_tolerance) {
          best_area = area;
          best = t;
        }
      }
      if (best_area < 0.0) {  // rounding: fall back to the largest face
        s.size = 3;
      } else {
        s = best;
      }
    }
  }
  if (s.size == 3) {  // collinear corners: keep the segment between the two farthest apart
    const Vec3 e01 = s.points[1].w - s.points[0].w, e02 = s.points[2].w - s.points[0].w;
    const Vec3 e12 = s.points[2].w - s.points[1].w;
    const double longest2 = std::max({e01.squaredNorm(), e02.squaredNorm(), e12.squaredNorm()});
    if (e01.cross(e02).norm() <= 1e-12 * longest2) {
      if (e02.squaredNorm() == longest2) {
        s.points[1] = s.points[2];
      } else if (e12.squaredNorm() == longest2) {
        s.points[0] = s.points[2];
      }
      s.size = 2;
    }
  }
  if (s.size == 1) {
    const Vec3 axes[6] = {Vec3::UnitX(),  -Vec3::UnitX(), Vec3::UnitY(),
                          -Vec3::UnitY(), Vec3::UnitZ(),  -Vec3::UnitZ()};
    for (const Vec3& d : axes) {
      const SupportPoint p = md.support(d);
      if (distinct(p, s)) {
        s.push_back(p);
        break;
      }
    }
    if (s.size == 1) {  // the difference is a single point at the origin
      flat = finish_flat(md, s, Vec3::UnitX(), 0.0);
      return false;
    }
  }
  if (s.size == 2) {
    const Vec3 axis = (s.points[1].w - s.points[0].w).normalized();
    const Vec3 u = any_perpendicular(axis), t = axis.cross(u);
    const Vec3 dirs[6] = {u, -u, t, -t, (u + t).normalized(), -(u + t).normalized()};
    double best_offset = flat_tolerance;
    SupportPoint best;
    for (const Vec3& d : dirs) {
      const SupportPoint p = md.support(d);
      const Vec3 rel = p.w - s.points[0].w;
      const double offset = (rel - rel.dot(axis) * axis).norm();
      if (offset > best_offset) {
        best_offset = offset;
        best = p;
      }
    }
    if (best_offset <= flat_tolerance) {  // the difference is a segment through the origin
      flat = finish_flat(md, s, u, 0.0);
      return false;
    }
    s.push_back(best);
  }
  if (s.size == 3) {
    Vec3 n = (s.points[1].w - s.points[0].w).cross(s.points[2].w - s.points[0].w);
    n.normalize();
    const SupportPoint up = md.support(n), down = md.support(-n);
    const double base = n.dot(s.points[0].w);
    const double height_up = n.dot(up.w) - base, height_down = base - n.dot(down.w);
    if (height_up <= flat_tolerance || height_down <= flat_tolerance || !distinct(up, s) ||
        !distinct(down, s)) {
      // The difference does not extend beyond the triangle's plane on one side: the origin is
      // on its boundary there, at depth = support value along that normal.
      Simplex t = s;
      Vec3 v;
      solve_signed_volumes(t, v);
      flat = height_up <= height_down ? finish_flat(md, t, n, n.dot(up.w))
                                      : finish_flat(md, t, -n, -n.dot(down.w));
      return false;
    }
    // Close the triangle with the taller apex. The origin lies in the triangle, so it lies on a
    // face of this tetrahedron: a start polytope that is convex and contains it, which EPA needs
    // (a bipyramid over the triangle is not convex unless its apex axis pierces the triangle).
    s.push_back(height_up >= height_down ? up : down);
  }
  // Tetrahedron: orient so that every face normal points away from the centroid.
  for (int i = 0; i < 4; ++i) poly.vertices.push_back(s.points[static_cast<size_t>(i)]);
  const Vec3& a = s.points[0].w;
  poly.add_start_tetrahedron((s.points[1].w - a).dot((s.points[2].w - a).cross(s.points[3].w - a)) >
                             0.0);
  return true;
}

/// octahedron_start's depth along -u, as a fraction of the cores' bounding radii, under which a
/// pair of climbing hulls goes to GJK at once. The octahedron held the origin in 70 % of the
/// benchmark's overlapping 128-vertex pairs below it and 98 % of those above; on the cold
/// 100-vertex Drift steps, 13 % and 90 %.
constexpr double kOctahedronMinDepth = 0.1;

/// A start polytope for a cold query without GJK: the supports of A - B along +-u, +-v, +-w,
/// with u the direction of A - B's centre from the origin, as an octahedron (seed 000's EPA
/// needs only a polytope of A - B points around the origin; GJK's simplex is one, found by a
/// distance loop of 5-10 iterations). The origin lies between A - B's centre and its support
/// along -u, so when the pair overlaps by a fair part of its size the octahedron holds it (on
/// the benchmark's overlapping pairs of sphere hulls: 61 % at 8 vertices, 91 % at 64, 97 % at
/// 512). True with the polytope in `poly` when it is convex and the origin lies inside every
/// face by more than `margin`, which also proves the overlap (`center`: md.center(), and its
/// norm). False otherwise, with the octahedron's face nearest the origin (or the support along
/// -u, GJK's own first support) in `gjk_start` as the start simplex of the GJK the caller then
/// runs, so that the supports taken here are not lost.
template <class MD>
bool octahedron_start(const MD& md, const Vec3& center, double center_norm, double margin,
                      EpaPolytope& poly, WarmStart& gjk_start) {
  const Vec3 u = center_norm > 0.0 ? Vec3(center / center_norm) : Vec3::UnitX();
  poly.clear();
  const SupportPoint toward = md.support(-u);
  const auto hand_over = [&](std::initializer_list<const SupportPoint*> points) {
    gjk_start.size = 0;
    for (const SupportPoint* p : points) {
      const auto k = static_cast<size_t>(gjk_start.size++);
      gjk_start.index_a[k] = p->index_a;
      gjk_start.index_b[k] = p->index_b;
    }
    return false;
  };
  // Not past the origin along -u: apart or touching along u, no polytope around the origin.
  const double depth_along = toward.w.dot(-u);
  if (!(depth_along > margin)) return hand_over({&toward});
  // A shallow overlap (less than a tenth of the bounding radii along -u) often leaves the origin
  // outside the octahedron, and climbing hulls pay dearly for the five supports (box against a
  // 100-vertex hull 1.10x the time with them); a hull small enough to scan pays little and
  // still gains (57 % of the benchmark's 8-vertex pairs that shallow hold the origin).
  if (md.climbs() && depth_along < kOctahedronMinDepth * md.bounds()) {
    return hand_over({&toward});
  }
  const Vec3 v = u.unitOrthogonal();
  const Vec3 w = u.cross(v);
  poly.vertices.push_back(md.support(u));
  poly.vertices.push_back(toward);
  for (const Vec3& d : {v, Vec3(-v), w, Vec3(-w)}) poly.vertices.push_back(md.support(d));
  poly.add_start_faces(kEpaOctahedronStart);
  bool holds = true;
  size_t nearest = 0;
  for (size_t f = 0; f < poly.faces.size(); ++f) {
    const EpaFace& face = poly.faces[f];
    if (face.distance < poly.faces[nearest].distance) nearest = f;
    // Slivers (coincident supports, as on boxes) have an infinite distance and fail here.
    holds = holds && face.distance > margin && face.distance < HUGE_VAL;
    // Convex: the three corners off the face (vertex k's opposite is k ^ 1) lie inside it.
    for (const int k : face.vertex) {
      holds = holds &&
              face.normal.dot(poly.vertices[static_cast<size_t>(k ^ 1)].w) < face.distance - margin;
    }
  }
  if (holds) return true;
  const EpaFace& face = poly.faces[nearest];
  if (!(face.distance < HUGE_VAL)) return hand_over({&toward});
  return hand_over({&poly.vertices[static_cast<size_t>(face.vertex[0])],
                    &poly.vertices[static_cast<size_t>(face.vertex[1])],
                    &poly.vertices[static_cast<size_t>(face.vertex[2])]});
}

/// Walks from `face` (entered across its edge `edge`) marking faces visible from w dead and
/// collecting the horizon: the live faces' edges bordering the dead region.
inline void silhouette(EpaPolytope& poly, int face, int edge, const Vec3& w, double margin,
                       std::vector<std::pair<int, int>>& horizon) {
  EpaFace& f = poly.faces[static_cast<size_t>(face)];
  if (!f.alive) return;
  if (f.normal.dot(w) - f.distance > margin) {
    poly.kill(face);
    const int e1 = (edge + 1) % 3, e2 = (edge + 2) % 3;
    silhouette(poly, f.neighbour[static_cast<size_t>(e1)],
               f.neighbour_edge[static_cast<size_t>(e1)], w, margin, horizon);
    silhouette(poly, poly.faces[static_cast<size_t>(face)].neighbour[static_cast<size_t>(e2)],
               poly.faces[static_cast<size_t>(face)].neighbour_edge[static_cast<size_t>(e2)], w,
               margin, horizon);
  } else {
    horizon.emplace_back(face, edge);
  }
}

/// EPA's convergence tolerance on the depth (absolute).
template <class MD>
double epa_tolerance(const QueryOptions& options, double scale) {
  return (MD::curved ? options.epa_tolerance : options.tolerance) * scale + touch_tolerance(scale);
}

/// The answer from the polytope's nearest face `best` once its support plane has met it: depth,
/// normal and the witness points of seed 000 eq. 35.
template <class MD>
void finish_on_face(const MD& md, const EpaPolytope& poly, int best, double tolerance,
                    const QueryOptions& options, double scale, EpaOutcome& out) {
  const EpaFace& f = poly.faces[static_cast<size_t>(best)];
  out.normal = f.normal;
  out.depth = out.lower_bound;
  // Witness points from the face holding the origin's projection (a coplanar neighbour of f
  // when the nearest facet of the difference is not a triangle).
  const Vec3 projection = f.distance * f.normal;
  const EpaFace& holder =
      poly.faces[static_cast<size_t>(face_holding(poly, best, projection, tolerance))];
  const std::array<double, 3> raw = raw_barycentric(poly, holder, projection);
  if (std::min({raw[0], raw[1], raw[2]}) < -1e-9) {
    // The polytope covers only part of the facet of A-B it converged on, and the projection
    // lies outside it. Depth and normal are final; for witness points, move B just past
    // contact along the normal and take GJK's closest points there (exact on a facet).
    const double gap = 1e-6 * scale;
    MD separated = md;
    separated.translation += (out.depth + gap) * f.normal;
    const GjkOutcome g = run_gjk(separated, options, GjkMode::Distance);
    if (!g.overlap) {
      out.point_on_a = g.simplex.point_on_a();
      out.point_on_b = g.simplex.point_on_b() - (out.depth + gap) * f.normal;
      return;
    }
  }
  const std::array<double, 3> l = face_barycentric(poly, holder, projection);
  out.point_on_a.setZero();
  out.point_on_b.setZero();
  for (int i = 0; i < 3; ++i) {  // seed 000 eq. 35
    out.point_on_a += l[static_cast<size_t>(i)] *
                      poly.vertices[static_cast<size_t>(holder.vertex[static_cast<size_t>(i)])].a;
    out.point_on_b += l[static_cast<size_t>(i)] *
                      poly.vertices[static_cast<size_t>(holder.vertex[static_cast<size_t>(i)])].b;
  }
}

/// Stores the live faces of a converged polytope, and the vertices they use, in the pair's cache
/// (WarmStart::polytope_vertices and polytope_faces), the face `nearest` (the answer's) first:
/// tracked_epa tests that one before the others. Leaves them empty if a vertex has no index (a
/// curved core) or the surface is not closed (a rounding-level stop).
inline void remember_polytope(const EpaPolytope& poly, int nearest, EpaWorkspace& ws,
                              WarmStart& cache) {
  cache.polytope_vertices.clear();
  cache.polytope_faces.clear();
  ws.vertex_map.assign(poly.vertices.size(), -1);
  ws.face_map.assign(poly.faces.size(), -1);
  const auto first = static_cast<size_t>(nearest);
  if (nearest < 0 || first >= poly.faces.size() || !poly.faces[first].alive) return;
  int live = 1;
  ws.face_map[first] = 0;
  for (size_t f = 0; f < poly.faces.size(); ++f) {
    if (poly.faces[f].alive && f != first) ws.face_map[f] = live++;
  }
  // Each live face goes to its slot in face_map (the nearest to 0).
  cache.polytope_faces.resize(static_cast<size_t>(live));
  cache.polytope_vertices.reserve(poly.vertices.size());
  for (size_t index = 0; index < poly.faces.size(); ++index) {
    const EpaFace& f = poly.faces[index];
    if (!f.alive) continue;
    std::array<int, 6>& stored = cache.polytope_faces[static_cast<size_t>(ws.face_map[index])];
    for (size_t e = 0; e < 3; ++e) {
      const auto v = static_cast<size_t>(f.vertex[e]);
      const int across = ws.face_map[static_cast<size_t>(f.neighbour[e])];
      const SupportPoint& p = poly.vertices[v];
      if (across < 0 || p.index_a < 0 || p.index_b < 0) {
        cache.polytope_vertices.clear();
        cache.polytope_faces.clear();
        return;
      }
      if (ws.vertex_map[v] < 0) {
        ws.vertex_map[v] = static_cast<int>(cache.polytope_vertices.size());
        cache.polytope_vertices.push_back({p.index_a, p.index_b});
      }
      stored[e] = ws.vertex_map[v];
      stored[e + 3] = 4 * across + f.neighbour_edge[e];
    }
  }
}

/// Starts the hill climbs of the support along `face`'s normal at the best of the face's own
/// vertices (A's furthest along the normal, B's furthest against it) and, on hulls of 256
/// vertices or more, the support of the nearest of 26 fixed directions (PolytopeCore::start_near).
/// The default start, the last support, lies wherever the previous face was: EPA's faces face every
/// way, and each climbing step waits on the one before, so a long walk costs more time than its
/// instruction count says: starting at the face's vertices alone took 1.2x this time on 512-vertex
/// hulls (docs/benchmarks.md, issue 18).
template <class MD>
void start_climbs_on_face(const MD& md, const EpaPolytope& poly, const EpaFace& face) {
  int start_a = -1, start_b = -1;
  double top_a = -std::numeric_limits<double>::infinity();
  double low_b = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    const SupportPoint& p = poly.vertices[static_cast<size_t>(face.vertex[static_cast<size_t>(k)])];
    const double along_a = p.a.dot(face.normal), along_b = p.b.dot(face.normal);
    if (along_a > top_a) {
      top_a = along_a;
      start_a = p.index_a;
    }
    if (along_b < low_b) {
      low_b = along_b;
      start_b = p.index_b;
    }
  }
  md.start_climbs_near(face.normal, start_a, start_b);
}

/// EPA's expansion loop (seed 000 Alg. 3) from the start polytope in the workspace, and the
/// answer.
template <class MD>
EpaOutcome expand_polytope(const MD& md, const QueryOptions& options, double scale,
                           WarmStart* cache) {
  const double tolerance = epa_tolerance<MD>(options, scale);
  EpaWorkspace& workspace = epa_workspace();
  EpaPolytope& poly = workspace.poly;
  EpaOutcome out;
  std::vector<std::pair<int, int>>& horizon = workspace.horizon;
  // A face counts as seen from the new vertex only if the vertex is clearly beyond its plane:
  // faces that are coplanar up to rounding (A-B of boxes and symmetric hulls has many) stay,
  // which keeps the polytope convex instead of carving zero-area faces into it.
  const double visibility_margin = touch_tolerance(scale);
  int best = -1;
  int iteration = 0;
  // Every support value h(n) bounds the depth from above, and B translated by h(n) n no longer
  // overlaps A: the best one is the answer when the face bound has not met it (curved cores, or
  // a stop on the iteration cap), so the caller still gets a valid translation and its bracket.
  double best_upper = std::numeric_limits<double>::infinity();
  Vec3 upper_normal = Vec3::UnitX();
  SupportPoint upper_support;
  out.status = Status::MaxIterations;
  for (; iteration < options.max_epa_iterations; ++iteration) {
    best = poly.closest_alive_face();
    // Only slivers left (infinite distance, zero normal): no face plane to expand or answer
    // with. Their normal would pass the test below (0 - inf) and become the answer's.
    if (best < 0 || !(poly.faces[static_cast<size_t>(best)].distance < HUGE_VAL)) {
      out.status = Status::Degenerate;
      break;
    }
    const EpaFace closest = poly.faces[static_cast<size_t>(best)];
    if (md.climbs()) start_climbs_on_face(md, poly, closest);
    const SupportPoint w = md.support(closest.normal);
    const double support_distance = closest.normal.dot(w.w);
    if (support_distance < best_upper) {
      best_upper = support_distance;
      upper_normal = closest.normal;
      upper_support = w;
    }
    // Converged: the support plane along the face normal is within tolerance of the face
    // (the depth lies between the face's distance and any support value).
    if (support_distance - closest.distance <= tolerance) {
      out.status = Status::Converged;
      break;
    }
    bool repeated = false;
    if (!MD::curved) {
      for (const SupportPoint& p : poly.vertices) {
        if (p.index_a == w.index_a && p.index_b == w.index_b) repeated = true;
      }
    }
    if (repeated) {
      // Seed 000 Alg. 3 stops here. On a convex polytope a repeated vertex cannot lie beyond a
      // face by more than rounding, so this only happens on rounding-level slivers.
      out.status = Status::Degenerate;
      break;
    }
    // Expand (Fig. 12): remove the faces visible from w, cone the horizon to w.
    const int apex = static_cast<int>(poly.vertices.size());
    poly.vertices.push_back(w);
    horizon.clear();
    poly.kill(best);
    for (int e = 0; e < 3; ++e) {
      silhouette(poly, closest.neighbour[static_cast<size_t>(e)],
                 closest.neighbour_edge[static_cast<size_t>(e)], w.w, visibility_margin, horizon);
    }
    const size_t first_new = poly.faces.size();
    for (const auto& [face, edge] : horizon) {
      const EpaFace& g = poly.faces[static_cast<size_t>(face)];
      const int p = g.vertex[static_cast<size_t>(edge)],
                q = g.vertex[static_cast<size_t>((edge + 1) % 3)];
      const int created = poly.add_face(q, p, apex);
      poly.faces[static_cast<size_t>(created)].neighbour[0] = face;
      poly.faces[static_cast<size_t>(created)].neighbour_edge[0] = edge;
      poly.faces[static_cast<size_t>(face)].neighbour[static_cast<size_t>(edge)] = created;
      poly.faces[static_cast<size_t>(face)].neighbour_edge[static_cast<size_t>(edge)] = 0;
    }
    // New face (q, p, apex): its edge 1 (p -> apex) borders the new face whose q equals p. The
    // walk above meets the horizon in order, so that is the next new face (Bullet's expand links
    // the same way); any other order, which rounding could give, is searched for.
    bool linked = true;
    const size_t created_count = poly.faces.size() - first_new;
    for (size_t k = 0; k < created_count; ++k) {
      const size_t f = first_new + k;
      const int p = poly.faces[f].vertex[1];
      size_t g = first_new + (k + 1) % created_count;
      if (poly.faces[g].vertex[0] != p) {
        g = first_new;
        while (g < poly.faces.size() && poly.faces[g].vertex[0] != p) ++g;
        if (g == poly.faces.size()) {
          linked = false;
          break;
        }
      }
      poly.faces[f].neighbour[1] = static_cast<int>(g);
      poly.faces[f].neighbour_edge[1] = 2;
      poly.faces[g].neighbour[2] = static_cast<int>(f);
      poly.faces[g].neighbour_edge[2] = 1;
    }
    if (!linked || horizon.size() < 3) {  // broken horizon (rounding on a sliver): stop here
      out.status = Status::Degenerate;
      break;
    }
  }
  out.iterations = iteration;
  if (out.status != Status::Converged) best = poly.closest_alive_face();  // last one was expanded
  if (best < 0) return out;
  const EpaFace& f = poly.faces[static_cast<size_t>(best)];
  // A sliver's infinite distance bounds nothing; the overlap itself bounds the depth by 0.
  out.lower_bound = f.distance < HUGE_VAL ? std::max(f.distance, 0.0) : 0.0;
  if (!(best_upper < HUGE_VAL)) {  // stopped before any support: still a valid translation
    upper_support = md.support(upper_normal);
    best_upper = upper_normal.dot(upper_support.w);
  }
  out.upper_bound = std::max(best_upper, out.lower_bound);
  if (out.status != Status::Converged) {
    if (out.upper_bound - out.lower_bound <= tolerance) out.status = Status::Converged;
    out.normal = upper_normal;
    out.depth = out.upper_bound;
    out.point_on_a = upper_support.a;
    out.point_on_b = upper_support.a - out.depth * upper_normal;
    return out;
  }
  finish_on_face(md, poly, best, tolerance, options, scale, out);
  if (cache != nullptr && !MD::curved) remember_polytope(poly, best, workspace, *cache);
  return out;
}

/// EPA from GJK's final simplex (which holds the origin): the pair's polytope goes into
/// `cache` when it converges.
template <class MD>
EpaOutcome run_epa(const MD& md, const Simplex& gjk_simplex, const QueryOptions& options,
                   double scale, WarmStart* cache = nullptr) {
  EpaPolytope& poly = epa_workspace().poly;
  poly.clear();
  if (cache != nullptr) {  // replaced by this query's polytope when it converges
    cache->polytope_vertices.clear();
    cache->polytope_faces.clear();
  }
  EpaOutcome out;
  if (!initial_polytope(md, gjk_simplex, touch_tolerance(scale) * 16, poly, out)) {
    return out;  // flat difference: answered directly
  }
  return expand_polytope(md, options, scale, cache);
}

/// EPA from octahedron_start's polytope, with no GJK: false when that start does not hold the
/// origin (the caller then runs GJK from `gjk_start`, and run_epa).
template <class MD>
bool run_epa_from_octahedron(const MD& md, const QueryOptions& options, EpaOutcome& out,
                             WarmStart& gjk_start) {
  const Vec3 center = md.center();
  const double center_norm = center.norm();
  const double scale = std::max(md.scale_around(center_norm), DBL_MIN);
  if (!octahedron_start(md, center, center_norm, touch_tolerance(scale), epa_workspace().poly,
                        gjk_start)) {
    return false;
  }
  out = expand_polytope(md, options, scale, nullptr);
  return true;
}

/// Penetration tracking (seed 004 section 5), made exact. The cached polytope's vertices,
/// re-evaluated at the new poses, are points of C = A - B. Its faces form a closed surface
/// (every edge is checked to meet its twin). If every face still has the origin strictly on its
/// inner side, each face's radial image on the unit sphere is positively oriented, so the
/// surface winds around the origin at least once, and so does it around every point closer to
/// the origin than the nearest face plane: that ball lies inside the convex hull of the
/// vertices, hence inside C, and the nearest plane's distance is a lower bound on the depth
/// (convexity of the moved polytope is not needed). Every support value h_C(n) is an upper
/// bound. When the nearest face's support plane meets it within EPA's tolerance the answer is
/// final, with one support call and no GJK. False (the caller then runs GJK and EPA as without a
/// cache) when the polytope does not fit, has lost the origin, or its nearest face no longer
/// supports A - B. Seed 004's own shortcut keeps the last witness face while the
/// origin stays near it, which is not exact for deep or rotating overlaps (its Fig. 6(b)).
template <class MD>
bool tracked_epa(const MD& md, WarmStart& cache, const QueryOptions& options, EpaOutcome& out) {
  if constexpr (MD::curved) {
    return false;
  } else {
    const size_t vertex_count = cache.polytope_vertices.size();
    const size_t face_count = cache.polytope_faces.size();
    if (face_count < 4 || vertex_count < 4) return false;
    const double scale = std::max(md.scale(), DBL_MIN);
    const double touch = touch_tolerance(scale);
    EpaWorkspace& ws = epa_workspace();
    EpaPolytope& poly = ws.poly;
    poly.vertices.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) {
      const std::array<int, 2>& v = cache.polytope_vertices[i];
      if (!md.vertex_pair(v[0], v[1], poly.vertices[i])) return false;
    }
    poly.faces.resize(face_count);
    poly.key.clear();  // the nearest face is found below; nothing here reads key
    const auto vertices = static_cast<unsigned>(vertex_count);
    const auto faces = static_cast<unsigned>(face_count);
    const double tolerance = epa_tolerance<MD>(options, scale);
    // The last answer's face (stored first, remember_polytope) before the others: when its
    // support plane has left it, the nearest face's usually has too, and the query goes to GJK
    // and EPA without the planes of every face (failed checks took 88 % of the tracked 500-vertex
    // Deep pairs' checks, each after all of them). A refusal here only costs that pair the
    // tracking; an acceptance is decided below, by the nearest face, as before.
    const std::array<int, 6>& stored_first = cache.polytope_faces[0];
    for (size_t e = 0; e < 3; ++e) {
      if (static_cast<unsigned>(stored_first[e]) >= vertices) return false;
    }
    EpaFace& first = poly.faces[0];
    poly.set_face(first, stored_first[0], stored_first[1], stored_first[2]);
    if (!(first.distance > touch) || !(first.distance < HUGE_VAL)) return false;
    const SupportPoint first_support = md.support(first.normal);
    if (!(first.normal.dot(first_support.w) - first.distance <= tolerance)) return false;
    int best = -1;
    for (size_t f = 0; f < face_count; ++f) {
      const std::array<int, 6>& stored = cache.polytope_faces[f];
      for (size_t e = 0; e < 3; ++e) {
        // The edge (stored[e], stored[e + 1]) and its twin, which must run the other way and
        // point back: the surface is then closed, whatever the cache holds. (Unsigned
        // comparisons reject negative entries too.)
        const auto twin = static_cast<unsigned>(stored[e + 3]);
        const unsigned h = twin & 3u;
        if (static_cast<unsigned>(stored[e]) >= vertices || (twin >> 2) >= faces || h == 3u)
          return false;
        const std::array<int, 6>& across = cache.polytope_faces[twin >> 2];
        if (across[h + 3] != static_cast<int>(4 * f + e) || across[h] != stored[(e + 1) % 3] ||
            across[(h + 1) % 3] != stored[e])
          return false;
      }
      // Only planes are needed here (nothing expands this polytope): its faces keep no links.
      EpaFace& face = poly.faces[f];
      if (f > 0) poly.set_face(face, stored[0], stored[1], stored[2]);  // face 0's is set above
      // Strictly inside, beyond rounding: a sliver (infinite distance) or a face the origin has
      // crossed ends the tracking.
      if (!(face.distance > touch) || !(face.distance < HUGE_VAL)) return false;
      if (best < 0 || face.distance < poly.faces[static_cast<size_t>(best)].distance)
        best = static_cast<int>(f);
    }
    const EpaFace& nearest = poly.faces[static_cast<size_t>(best)];
    const SupportPoint w = best == 0 ? first_support : md.support(nearest.normal);
    const double upper = nearest.normal.dot(w.w);
    // A miss goes to GJK and a cold EPA, which stores a fresh polytope. Expanding the moved one
    // instead was measured slower (issue 18, UR5 clearance run: 1,830 M instructions against
    // 1,790 M): expansions add vertices near the contact but never remove stale ones, so the
    // stored polytope, and every later check of it, grows along the path.
    if (!(upper - nearest.distance <= tolerance)) return false;
    cache.hint_a = w.index_a;  // the contact's vertices: where the next climbs start
    cache.hint_b = w.index_b;
    out = EpaOutcome{};
    out.lower_bound = nearest.distance;
    out.upper_bound = std::max(upper, out.lower_bound);
    out.iterations = 0;
    out.status = Status::Converged;
    finish_on_face(md, poly, best, tolerance, options, scale, out);
    return true;
  }
}

}  // namespace gjk::detail
