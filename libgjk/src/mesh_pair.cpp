// Queries between a triangle mesh and a second non-convex set, a triangle mesh or a box set
// (issue 17 item 1): simultaneous descent of both primitive hierarchies (BVH-vs-BVH traversal in
// the style of Larsen, Gottschalk, Lin and Manocha, "Fast proximity queries with swept sphere
// volumes", 1999, here with AABBs carried across frames), every pair of subtrees pruned by the
// best distance so far; the convex loops (seed 000 Alg. 1-3) run on the pairs of primitives that
// survive. Distance descends best first (smallest bound next); collision and threshold queries
// depth first, nearer pair of children first (they stop at the first pair that decides).
//
// Bounding volumes: each tree keeps axis-aligned boxes in its own frame. A pair of nodes is
// bounded below by the larger of two box gaps: B's box carried into A's frame (its centre moved,
// its half extents through |R|) against A's box, and A's box carried into B's frame against B's.
// Each carried box contains the node, so each gap is a lower bound; taking the larger is nearly
// as sharp as an oriented-box separating-axis test on the six face axes and costs two small
// matrix products (measured on a Panda link against the shelf: 10x fewer triangle pairs and
// node pairs than B's box carried into A's frame alone). At the leaves the primitives' own
// boxes (triangle vertices moved into the other frame) and the gap between each triangle's
// plane and the other primitive cut off most pairs before GJK runs (the plane gap: 3x fewer
// GJK calls for a gripper above a terrain). Every query between two meshes also bounds each
// pair of nodes by their rectangle swept spheres (rss.hpp, built with the mesh): a flat patch
// (a terrain's, a gripper's palm) fits a thin volume at any orientation, where its box carried
// across frames grows with the rotation (issue 17 item 9, the hand above the terrain, depth
// first: 3.6x fewer node pairs than with boxes alone, 7,900 -> 2,200). The smaller tree's
// boxes and volumes are carried into the other's frame on first use (CarriedCache). Distance
// bounds two volumes along the direction between two points of their rectangles found by
// alternating projection (as sharp as their separating axes, at a third of the cost); the
// touching questions by the separating axes, which stop at the first that separates (see
// BoundOrder).
#include "gjk/mesh_pair.hpp"

#include "pair_results.hpp"
#include "rss.hpp"
#include "triangle_core.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace gjk {
namespace {

using detail::GjkMode;
using detail::GjkOutcome;
using detail::TriangleCore;
using Node = PrimitiveTree::Node;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A pair of nodes (one per tree) waiting on the stack, with its lower bound.
struct PairEntry {
  std::uint32_t a;
  std::uint32_t b;
  double bound;
};

/// Depth-first stack of node pairs. Each step pops one pair and pushes at most two, each one
/// level deeper in one tree, so the stack never holds more than depth(A) + depth(B) + 1 entries;
/// median-split trees are ceil(log2 n) deep, so 256 entries hold any pair that fits in memory.
struct PairStack {
  std::array<PairEntry, 256> items;
  int size = 0;
  void push(std::uint32_t a, std::uint32_t b, double bound) {
    items[static_cast<size_t>(size++)] = {a, b, bound};
  }
  PairEntry pop() { return items[static_cast<size_t>(--size)]; }
  bool empty() const { return size == 0; }
};

double box_gap2(const Vec3& lower_a, const Vec3& upper_a, const Vec3& lower_b,
                const Vec3& upper_b) {
  return (lower_b - upper_a).cwiseMax(lower_a - upper_b).cwiseMax(0.0).squaredNorm();
}

/// Lower bound on the distance between triangle p and a convex set q (a triangle or a box, by
/// its interval along a direction): the gap between their intervals along p's unit normal (a
/// separating-axis bound, valid along any direction, so a sliver's inaccurate normal only
/// weakens it). Cheap next to GJK, and sharp where box gaps are weakest: nearly parallel faces
/// side by side (a gripper above a floor, a link along a shelf board), where the boxes of many
/// pairs come nearer than the nearest pair's distance but their planes do not.
template <class Interval>
double plane_gap(const Vec3& p0, const Vec3& p1, const Vec3& p2, Interval&& interval) {
  const Vec3 n = (p1 - p0).cross(p2 - p0);
  const double length = n.norm();
  if (!(length > 0.0)) return 0.0;
  const Vec3 u = n / length;
  const double x0 = u.dot(p0), x1 = u.dot(p1), x2 = u.dot(p2);
  const std::pair<double, double> q = interval(u);
  return std::max({0.0, q.first - std::max({x0, x1, x2}), std::min({x0, x1, x2}) - q.second});
}

/// The second set's primitives are triangles of a mesh.
struct MeshB {
  const TriangleMesh& mesh;
  size_t count() const { return mesh.triangles().size(); }
};

/// The second set's primitives are solid boxes.
struct CellsB {
  const BoxSet& cells;
  size_t count() const { return cells.centres().size(); }
};

/// Squared gap between two axis-aligned boxes, written out (Eigen's expression chains of
/// 3-vectors were not all inlined in this hot loop).
inline double gap2(const Vec3& lower_a, const Vec3& upper_a, const Vec3& lower_b,
                   const Vec3& upper_b) {
  double sum = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double g = std::max({0.0, lower_b[k] - upper_a[k], lower_a[k] - upper_b[k]});
    sum += g * g;
  }
  return sum;
}

/// A node's box carried into another frame by `frame` (its centre moved, its half extents
/// through |R|): a box in that frame containing the node.
inline void carry_box(const Node& n, const detail::PairFrame& frame,
                      const Eigen::Matrix3d& abs_rotation, Vec3& lower, Vec3& upper) {
  for (int r = 0; r < 3; ++r) {
    double centre = frame.translation[r], half = 0.0;
    for (int col = 0; col < 3; ++col) {
      centre += frame.rotation(r, col) * (0.5 * (n.lower[col] + n.upper[col]));
      half += abs_rotation(r, col) * (0.5 * (n.upper[col] - n.lower[col]));
    }
    lower[r] = centre - half;
    upper[r] = centre + half;
  }
}

/// The smaller mesh's nodes carried into the other mesh's frame (box: centre moved, half
/// extents through |R|; volume: axes and centre moved), and the larger mesh's boxes carried
/// into the smaller's frame, each part on its first use in a query: a collision query that ends
/// after a few dozen node pairs carries a few dozen boxes, not the whole tree, and a node met
/// again (a terrain node pairs with 7 nodes of the hand on average) is carried once. Per
/// thread, so repeated queries do not allocate; a part is current when its stamp is the
/// query's.
struct CarriedCache {
  std::vector<Vec3> lower;
  std::vector<Vec3> upper;
  std::vector<RectangleSweptSphere> volumes;
  std::vector<std::uint32_t> box_stamp;
  std::vector<std::uint32_t> volume_stamp;
  std::vector<Vec3> large_lower;  ///< the larger mesh's boxes in the smaller's frame
  std::vector<Vec3> large_upper;
  std::vector<std::uint32_t> large_stamp;
  std::uint32_t current = 0;

  void start(size_t small_count, size_t large_count) {
    if (box_stamp.size() < small_count) {
      lower.resize(small_count);
      upper.resize(small_count);
      volumes.resize(small_count);
      box_stamp.resize(small_count, 0);
      volume_stamp.resize(small_count, 0);
    }
    if (large_stamp.size() < large_count) {
      large_lower.resize(large_count);
      large_upper.resize(large_count);
      large_stamp.resize(large_count, 0);
    }
    if (++current == 0) {  // wrapped: forget every stamp
      std::fill(box_stamp.begin(), box_stamp.end(), 0u);
      std::fill(volume_stamp.begin(), volume_stamp.end(), 0u);
      std::fill(large_stamp.begin(), large_stamp.end(), 0u);
      current = 1;
    }
  }
};

CarriedCache& carried_cache() {
  static thread_local CarriedCache cache;
  return cache;
}

/// Which bound a node pair tries first, and which bound of the volumes: for distance the
/// volumes first (flat patches at any distance), by the gap along the direction of one
/// alternating projection (rss_projection_bound), then the boxes; for the touching questions
/// (collision, threshold, deepest pair) the boxes first, where most pairs are pruned by the
/// cheaper boxes, then the volumes' separating axes (rss_lower_bound, which stops at the first
/// axis that separates). Measured in instructions per query (callgrind, the meshpair
/// benchmark's 1000 poses): collision 5 % fewer on the terrain and 3 % on the shelf with boxes
/// first; the separating axes in collision 9 % fewer on the terrain and 22 % on the shelf than
/// the projection. Distance with the projection instead of the separating axes: 27 % fewer on
/// the terrain (1.83 M -> 1.33 M; node pairs bounded 2,258 -> 1,959), 17 % more on the shelf
/// (0.28 M -> 0.33 M), and 1.70x faster on the terrain, 5 % slower on the shelf (interleaved
/// medians). Without the boxes the projection alone saves another 12 % on the terrain but
/// takes 3.7x the shelf's instructions (its boards are axis-aligned: their boxes are tight).
enum class BoundOrder { VolumesFirst, BoxesFirst };

/// Everything a traversal needs: both sets, both trees and the two relative frames.
template <class SetB>
struct PairTraversal {
  const TriangleMesh& a;
  const SetB& b;
  const PrimitiveTree& tree_a;
  const PrimitiveTree& tree_b;
  const Pose& pose_a;
  const QueryOptions& options;
  detail::PairFrame ab;    ///< B's frame -> A's frame
  Eigen::Matrix3d abs_ab;  ///< |ab.rotation|
  detail::PairFrame ba;    ///< A's frame -> B's frame
  Eigen::Matrix3d abs_ba;  ///< |ba.rotation|
  /// Gap below which two primitives may count as touching: the loops' touching tolerance at
  /// the size of the whole pair (at least that of any pair of primitives). Collision, "closer
  /// than 0" and the deepest-pair search open every pair of boxes within it, so they agree with
  /// distance(), which reports 0 for primitives that touch within the tolerance.
  double touch = 0.0;
  /// Two meshes: the node volumes, and whether A's tree (the smaller) is the one carried into
  /// the other's frame (see node_bound).
  const std::vector<RectangleSweptSphere>* volumes_a = nullptr;
  const std::vector<RectangleSweptSphere>* volumes_b = nullptr;
  bool carry_a = false;
  CarriedCache* cache = nullptr;

  PairTraversal(const TriangleMesh& mesh_a, const SetB& set_b, const PrimitiveTree& b_tree,
                const Pose& a_pose, const Pose& b_pose, const QueryOptions& query_options)
      : a(mesh_a),
        b(set_b),
        tree_a(mesh_a.tree()),
        tree_b(b_tree),
        pose_a(a_pose),
        options(query_options),
        ab(detail::relative_frame(a_pose, b_pose)),
        abs_ab(ab.rotation.cwiseAbs()),
        ba(detail::relative_frame(b_pose, a_pose)),
        abs_ba(ba.rotation.cwiseAbs()) {
    const Aabb box_a = tree_a.bounds(), box_b = tree_b.bounds();
    const Vec3 centre_b = ab.rotation * box_b.center() + ab.translation;
    touch = detail::touch_tolerance(0.5 * box_a.sizes().norm() + 0.5 * box_b.sizes().norm() +
                                    (centre_b - box_a.center()).norm());
    if constexpr (std::is_same_v<SetB, MeshB>) {
      volumes_a = &mesh_a.node_volumes();
      volumes_b = &set_b.mesh.node_volumes();
      carry_a = volumes_a->size() <= volumes_b->size();
      cache = &carried_cache();
      cache->start(std::min(volumes_a->size(), volumes_b->size()),
                   std::max(volumes_a->size(), volumes_b->size()));
    }
  }

  /// Node k of `tree`'s box carried by (frame, abs_rotation), from the cache when carried
  /// already in this query (see CarriedCache).
  void cached_box(const PrimitiveTree& tree, std::uint32_t k, const detail::PairFrame& frame,
                  const Eigen::Matrix3d& abs_rotation, std::vector<std::uint32_t>& stamps,
                  std::vector<Vec3>& lowers, std::vector<Vec3>& uppers, const Vec3*& lower,
                  const Vec3*& upper) const {
    if (stamps[k] != cache->current) {
      carry_box(tree.nodes()[k], frame, abs_rotation, lowers[k], uppers[k]);
      stamps[k] = cache->current;
    }
    lower = &lowers[k];
    upper = &uppers[k];
  }

  /// The box of node k of the carried tree, in the other mesh's frame.
  void carried_box(std::uint32_t k, const Vec3*& lower, const Vec3*& upper) const {
    CarriedCache& c = *cache;
    cached_box(carry_a ? tree_a : tree_b, k, carry_a ? ba : ab, carry_a ? abs_ba : abs_ab,
               c.box_stamp, c.lower, c.upper, lower, upper);
  }

  /// The box of node k of the other (larger) tree, in the carried tree's frame.
  void large_box(std::uint32_t k, const Vec3*& lower, const Vec3*& upper) const {
    CarriedCache& c = *cache;
    cached_box(carry_a ? tree_b : tree_a, k, carry_a ? ab : ba, carry_a ? abs_ab : abs_ba,
               c.large_stamp, c.large_lower, c.large_upper, lower, upper);
  }

  /// The volume of node k of the carried tree, in the other mesh's frame.
  const RectangleSweptSphere& carried_volume(std::uint32_t k) const {
    CarriedCache& c = *cache;
    if (c.volume_stamp[k] != c.current) {
      const detail::PairFrame& frame = carry_a ? ba : ab;
      c.volumes[k] =
          detail::carry((carry_a ? *volumes_a : *volumes_b)[k], frame.rotation, frame.translation);
      c.volume_stamp[k] = c.current;
    }
    return c.volumes[k];
  }

  /// Lower bound on the distance between nodes i of A and j of B, used by every descent; once
  /// it reaches `limit` the rest is skipped (the pair is pruned whatever else is found).
  /// Two meshes: the larger of the rectangle swept spheres' bound (far sharper on flat patches)
  /// and the boxes' (sharper on boxy parts: a shelf's boards), the smaller tree's node carried
  /// into the other's frame, in the given order (see BoundOrder). Mesh against cells: the
  /// boxes (lower_bound).
  template <BoundOrder order = BoundOrder::BoxesFirst>
  double node_bound(std::uint32_t i, std::uint32_t j, double limit) const {
    const Node& na = node_a(i);
    const Node& nb = node_b(j);
    if constexpr (std::is_same_v<SetB, MeshB>) {
      // `moved` is the carried tree's node, `fixed` the other's, in the fixed node's frame.
      const std::uint32_t moved_index = carry_a ? i : j;
      const Node& fixed = carry_a ? nb : na;
      const RectangleSweptSphere& fixed_volume = carry_a ? (*volumes_b)[j] : (*volumes_a)[i];
      double volumes = 0.0;
      if constexpr (order == BoundOrder::VolumesFirst) {
        volumes = detail::rss_projection_bound(carried_volume(moved_index), fixed_volume);
        if (!(volumes < limit)) return volumes;
      }
      const Vec3 *lower = nullptr, *upper = nullptr;
      carried_box(moved_index, lower, upper);
      const double in_fixed = gap2(*lower, *upper, fixed.lower, fixed.upper);
      if (!(in_fixed < limit * limit)) return std::max(volumes, std::sqrt(in_fixed));
      // The fixed node's box carried into the moved tree's frame, against the moved node's.
      const Node& moved = carry_a ? na : nb;
      const Vec3 *fixed_lower = nullptr, *fixed_upper = nullptr;
      large_box(carry_a ? j : i, fixed_lower, fixed_upper);
      const double in_moved = gap2(*fixed_lower, *fixed_upper, moved.lower, moved.upper);
      const double boxes = std::sqrt(std::max(in_fixed, in_moved));
      if constexpr (order == BoundOrder::BoxesFirst) {
        if (!(boxes < limit)) return boxes;
        volumes = detail::rss_lower_bound(carried_volume(moved_index), fixed_volume, limit);
      }
      return std::max(volumes, boxes);
    } else {
      (void)limit;
      return lower_bound(na, nb);
    }
  }

  /// Lower bound on the distance between anything in node na of A and anything in node nb of B
  /// (see the file comment).
  double lower_bound(const Node& na, const Node& nb) const {
    const Vec3 centre_b = ab.rotation * (0.5 * (nb.lower + nb.upper)) + ab.translation;
    const Vec3 half_b = abs_ab * (0.5 * (nb.upper - nb.lower));
    const double in_a = box_gap2(na.lower, na.upper, centre_b - half_b, centre_b + half_b);
    const Vec3 centre_a = ba.rotation * (0.5 * (na.lower + na.upper)) + ba.translation;
    const Vec3 half_a = abs_ba * (0.5 * (na.upper - na.lower));
    const double in_b = box_gap2(centre_a - half_a, centre_a + half_a, nb.lower, nb.upper);
    return std::sqrt(std::max(in_a, in_b));
  }

  const Node& node_a(std::uint32_t i) const { return tree_a.nodes()[i]; }
  const Node& node_b(std::uint32_t i) const { return tree_b.nodes()[i]; }

  /// Which tree to open at an inner pair: the larger box (by its diagonal), so both sides shrink
  /// at about the same rate; a leaf is never opened.
  static bool open_a(const Node& na, const Node& nb) {
    if (na.leaf) return false;
    if (nb.leaf) return true;
    return (na.upper - na.lower).squaredNorm() >= (nb.upper - nb.lower).squaredNorm();
  }

  /// Pushes the two children of the pair (a, b) with their bounds, the nearer on top (it is
  /// popped first, so the best distance tightens early, pruning more of the rest).
  template <class Keep>
  void push_children(PairStack& stack, std::uint32_t ia, std::uint32_t ib, double limit,
                     Keep&& keep) const {
    const Node& na = node_a(ia);
    const Node& nb = node_b(ib);
    std::uint32_t a1 = ia, a2 = ia, b1 = ib, b2 = ib;
    if (open_a(na, nb)) {
      a1 = ia + 1;
      a2 = na.index;
    } else {
      b1 = ib + 1;
      b2 = nb.index;
    }
    const double bound1 = node_bound(a1, b1, limit);
    const double bound2 = node_bound(a2, b2, limit);
    if (bound1 <= bound2) {
      if (keep(bound2)) stack.push(a2, b2, bound2);
      if (keep(bound1)) stack.push(a1, b1, bound1);
    } else {
      if (keep(bound1)) stack.push(a1, b1, bound1);
      if (keep(bound2)) stack.push(a2, b2, bound2);
    }
  }

  /// Depth-first descent, nearer pair of children first, over the node pairs whose bound
  /// passes keep(bound) (bounds computed up to `limit`; with kLimitDrops the caller lowers it
  /// as it goes, and a pair is checked again when popped). leaf(primitive_a, primitive_b) runs
  /// on each pair of primitives reached and returns true to end the descent. Returns whether a
  /// leaf ended it.
  template <bool kLimitDrops = false, class Keep, class Leaf>
  bool depth_first(const double& limit, Keep&& keep, Leaf&& leaf) const {
    PairStack stack;
    const double root = node_bound(0, 0, limit);
    if (keep(root)) stack.push(0, 0, root);
    while (!stack.empty()) {
      const PairEntry e = stack.pop();
      if constexpr (kLimitDrops) {
        if (!keep(e.bound)) continue;  // the limit has dropped since it was pushed
      }
      const Node& na = node_a(e.a);
      const Node& nb = node_b(e.b);
      if (!(na.leaf && nb.leaf)) {
        push_children(stack, e.a, e.b, limit, keep);
        continue;
      }
      if (leaf(na.index, nb.index)) return true;
    }
    return false;
  }

  std::array<Vec3, 3> triangle_a(std::uint32_t t) const {
    const auto& tri = a.triangles()[t];
    return {a.vertices()[tri[0]], a.vertices()[tri[1]], a.vertices()[tri[2]]};
  }

  /// Runs f(md) on the pair of primitives (ta, tb), as a Minkowski difference in A's frame, when
  /// the primitives' own boxes pass keep(gap) (their gap, a lower bound on their distance).
  /// Returns whether f ran.
  template <class Keep, class F>
  bool with_leaf_pair(std::uint32_t ta, std::uint32_t tb, Keep&& keep, F&& f) const {
    const std::array<Vec3, 3> pa = triangle_a(ta);
    if constexpr (std::is_same_v<SetB, MeshB>) {
      // B's triangle moved into A's frame once: the tight box test and the loops both use it.
      const auto& tri = b.mesh.triangles()[tb];
      const auto& v = b.mesh.vertices();
      const Vec3 q0 = ab.rotation * v[tri[0]] + ab.translation;
      const Vec3 q1 = ab.rotation * v[tri[1]] + ab.translation;
      const Vec3 q2 = ab.rotation * v[tri[2]] + ab.translation;
      const Vec3 lo_a = pa[0].cwiseMin(pa[1]).cwiseMin(pa[2]);
      const Vec3 hi_a = pa[0].cwiseMax(pa[1]).cwiseMax(pa[2]);
      const Vec3 lo_b = q0.cwiseMin(q1).cwiseMin(q2), hi_b = q0.cwiseMax(q1).cwiseMax(q2);
      if (!keep(std::sqrt(box_gap2(lo_a, hi_a, lo_b, hi_b)))) return false;
      const auto interval_a = [&pa](const Vec3& u) {
        const double x0 = u.dot(pa[0]), x1 = u.dot(pa[1]), x2 = u.dot(pa[2]);
        return std::make_pair(std::min({x0, x1, x2}), std::max({x0, x1, x2}));
      };
      const auto interval_b = [&q0, &q1, &q2](const Vec3& u) {
        const double x0 = u.dot(q0), x1 = u.dot(q1), x2 = u.dot(q2);
        return std::make_pair(std::min({x0, x1, x2}), std::max({x0, x1, x2}));
      };
      if (!keep(std::max(plane_gap(pa[0], pa[1], pa[2], interval_b),
                         plane_gap(q0, q1, q2, interval_a))))
        return false;
      const TriangleCore core_a(pa[0], pa[1], pa[2]);
      const TriangleCore core_b(q0, q1, q2);
      using MD = detail::MinkowskiDifference<TriangleCore, TriangleCore>;
      const MD md{core_a, core_b, Eigen::Matrix3d::Identity(), Vec3::Zero()};
      f(md);
    } else {
      // A's triangle moved into B's frame: its box there against the cell (which is its own
      // axis-aligned box) is the exact gap of the two boxes in B's frame.
      const Vec3& c = b.cells.centres()[tb];
      const Vec3& h = b.cells.half_extents()[tb];
      const Vec3 p0 = ba.rotation * pa[0] + ba.translation;
      const Vec3 p1 = ba.rotation * pa[1] + ba.translation;
      const Vec3 p2 = ba.rotation * pa[2] + ba.translation;
      const Vec3 lo = p0.cwiseMin(p1).cwiseMin(p2), hi = p0.cwiseMax(p1).cwiseMax(p2);
      if (!keep(std::sqrt(box_gap2(lo, hi, c - h, c + h)))) return false;
      const auto interval_cell = [&c, &h](const Vec3& u) {
        const double mid = u.dot(c), half = u.cwiseAbs().dot(h);
        return std::make_pair(mid - half, mid + half);
      };
      if (!keep(plane_gap(p0, p1, p2, interval_cell))) return false;
      const TriangleCore core_a(pa[0], pa[1], pa[2]);
      const detail::BoxCore core_b{h};
      using MD = detail::MinkowskiDifference<TriangleCore, detail::BoxCore>;
      const MD md{core_a, core_b, ab.rotation, ab.translation + ab.rotation * c};
      f(md);
    }
    return true;
  }

  /// The distance descent, best first: the pair with the smallest bound is opened next (a
  /// binary heap), so no pair whose bound exceeds the answer is ever opened, and the first
  /// pair popped at or beyond the best distance ends the search. Measured against depth first with
  /// the nearer child first: 2.3x fewer node pairs on a Panda link by the shelf (443 -> 190 per
  /// query, GJK calls 100 -> 23), 1.5x on the hand above the terrain (2,190 -> 1,490).
  template <class Measure>
  void descend(const DistanceResult& best, Measure&& measure, bool hinted, int hint_a,
               int hint_b) const {
    static thread_local std::vector<PairEntry> heap;  // kept: no allocation once grown
    heap.clear();
    const auto later = [](const PairEntry& x, const PairEntry& y) { return x.bound > y.bound; };
    const auto push = [&later](const PairEntry& p) {
      heap.push_back(p);
      std::push_heap(heap.begin(), heap.end(), later);
    };
    // The top replaced by p, sifted down (std::push_heap's order: no parent above a child).
    // An opened pair taken from the heap leaves it as its farther child enters: one sift
    // instead of a pop and a push.
    const auto replace_top = [](PairEntry p) {
      const size_t n = heap.size();
      size_t i = 0;
      for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && heap[child + 1].bound < heap[child].bound) ++child;
        if (!(heap[child].bound < p.bound)) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = p;
    };
    const auto pop_top = [&replace_top]() {
      const PairEntry last = heap.back();
      heap.pop_back();
      if (!heap.empty()) replace_top(last);
    };
    constexpr BoundOrder order = BoundOrder::VolumesFirst;
    PairEntry e{0, 0, node_bound<order>(0, 0, best.distance)};
    bool have = e.bound < best.distance;  // e: the pair to open next, held out of the heap
    while (have || !heap.empty()) {
      const bool on_top = !have;  // e is the heap's top, still in it
      if (on_top) e = heap.front();
      have = false;
      if (!(e.bound < best.distance)) break;  // every other pair is farther still
      const Node& na = node_a(e.a);
      const Node& nb = node_b(e.b);
      if (na.leaf && nb.leaf) {
        if (on_top) pop_top();
        if (hinted && static_cast<int>(na.index) == hint_a && static_cast<int>(nb.index) == hint_b)
          continue;  // measured first
        measure(na.index, nb.index, best.distance);
        if (best.distance == 0.0) break;  // touching: nothing is nearer
        continue;
      }
      std::uint32_t a1 = e.a, a2 = e.a, b1 = e.b, b2 = e.b;
      if (open_a(na, nb)) {
        a1 = e.a + 1;
        a2 = na.index;
      } else {
        b1 = e.b + 1;
        b2 = nb.index;
      }
      PairEntry near{a1, b1, node_bound<order>(a1, b1, best.distance)};
      PairEntry far{a2, b2, node_bound<order>(a2, b2, best.distance)};
      if (far.bound < near.bound) std::swap(near, far);
      if (far.bound < best.distance) {
        if (on_top)
          replace_top(far);
        else
          push(far);
      } else if (on_top) {
        pop_top();
      }
      if (!(near.bound < best.distance)) continue;
      // The nearer child is opened next without a trip through the heap when nothing there is
      // nearer (most steps of a descent): half the heap operations, same order.
      if (heap.empty() || !(heap.front().bound < near.bound)) {
        e = near;
        have = true;
      } else {
        push(near);
      }
    }
  }

  DistanceResult distance(MeshPairHit* hit, double max_distance) const {
    DistanceResult best;
    best.distance = max_distance;  // only pairs nearer than this are of interest
    int found_a = -1, found_b = -1;
    double lower = kInf;
    int iterations = 0;
    const auto measure = [&](std::uint32_t ta, std::uint32_t tb, double limit) {
      with_leaf_pair(
          ta, tb, [limit](double gap) { return gap < limit; },
          [&](const auto& md) {
            const DistanceResult r = detail::distance_from(
                md, detail::run_gjk(md, options, GjkMode::Distance), 0.0, 0.0, pose_a);
            iterations += r.iterations;
            lower = std::min(lower, r.lower_bound);
            if (r.distance < best.distance) {
              best = r;
              found_a = static_cast<int>(ta);
              found_b = static_cast<int>(tb);
            }
          });
    };
    // Warm start: the caller's last pair first, so its distance prunes from the root.
    const int hint_a = hit != nullptr ? hit->primitive_a : -1;
    const int hint_b = hit != nullptr ? hit->primitive_b : -1;
    const bool hinted = hint_a >= 0 && static_cast<size_t>(hint_a) < a.triangles().size() &&
                        hint_b >= 0 && static_cast<size_t>(hint_b) < b.count();
    if (hinted)
      measure(static_cast<std::uint32_t>(hint_a), static_cast<std::uint32_t>(hint_b), kInf);
    if constexpr (std::is_same_v<SetB, MeshB>) {
      descend(best, measure, hinted, hint_a, hint_b);
    } else {
      // Mesh against cells: depth first, nearer pair of children first. Best first opened 8 %
      // fewer instructions' worth of pairs here but ran 10-20 % slower (the octree's 29,506
      // cells: jumping between subtrees costs more in cache misses than it saves).
      depth_first<true>(
          best.distance, [&best](double bound) { return bound < best.distance; },
          [&](std::uint32_t ta, std::uint32_t tb) {
            if (hinted && static_cast<int>(ta) == hint_a && static_cast<int>(tb) == hint_b)
              return false;  // measured first
            measure(ta, tb, best.distance);
            return best.distance == 0.0;  // touching: nothing is nearer
          });
    }
    best.iterations = iterations;
    best.lower_bound = std::min(lower, best.distance);
    if (found_a < 0) {  // nothing nearer than max_distance: say so, the bound as certificate
      best.distance = kInf;
      best.lower_bound = max_distance;
    }
    if (hit != nullptr) {
      hit->primitive_a = found_a;
      hit->primitive_b = found_b;
    }
    return best;
  }

  CollisionResult collide(MeshPairHit* hit) const {
    CollisionResult out;
    if (hit != nullptr) *hit = MeshPairHit{};
    const double slack = touch;
    const auto touching = [slack](double bound) { return bound <= slack; };
    depth_first(slack, touching, [&](std::uint32_t ta, std::uint32_t tb) {
      bool contact = false;
      with_leaf_pair(ta, tb, touching, [&](const auto& md) {
        // Touching counts, with distance()'s tolerance: a threshold query at the touching
        // distance ends as early as the boolean one (at a separating plane with that margin)
        // and calls a pair in contact exactly when the distance loop would report 0.
        const GjkOutcome g =
            detail::run_gjk(md, options, GjkMode::Threshold, detail::touch_tolerance(md.scale()));
        out.iterations += g.iterations;
        if (g.status != Status::Converged) out.status = g.status;
        contact = g.overlap || g.upper <= g.touch_distance;
      });
      if (contact) {
        out.collision = true;
        if (hit != nullptr) *hit = MeshPairHit{static_cast<int>(ta), static_cast<int>(tb)};
      }
      return contact;
    });
    return out;
  }

  ThresholdResult closer_than(double threshold) const {
    ThresholdResult out;
    out.lower_bound = kInf;
    // Prune only beyond the threshold: at threshold 0 the question is "touching?", and a pair
    // whose boxes touch must be opened. Pruned pairs' bounds certify the lower bound.
    const double reach = std::max(threshold, 0.0) + touch;  // see `touch`
    const auto keep = [&out, reach](double bound) {
      if (bound <= reach) return true;
      out.lower_bound = std::min(out.lower_bound, bound);
      return false;
    };
    depth_first(reach, keep, [&](std::uint32_t ta, std::uint32_t tb) {
      bool closer = false;
      with_leaf_pair(ta, tb, keep, [&](const auto& md) {
        // At least the touching distance: touching pairs count as closer, as distance()
        // reports them at 0 (and "closer than 0" asks "touching?").
        const GjkOutcome g =
            detail::run_gjk(md, options, GjkMode::Threshold,
                            std::max(threshold, detail::touch_tolerance(md.scale())));
        out.iterations += g.iterations;
        if (g.status != Status::Converged) out.status = g.status;
        out.lower_bound = std::min(out.lower_bound, std::max(0.0, g.lower));
        out.upper_bound = std::min(out.upper_bound, std::max(0.0, g.upper));
        closer = g.overlap || g.upper < threshold || g.upper <= g.touch_distance;
      });
      if (closer) {
        out.closer = true;
        out.lower_bound = 0.0;  // pairs not visited may be nearer still
      }
      return closer;
    });
    return out;
  }

  /// The deepest penetration of a single pair of primitives among those that touch.
  SignedDistanceResult deepest(MeshPairHit* hit) const {
    SignedDistanceResult best;
    best.signed_distance = kInf;
    int iterations = 0;
    const double slack = touch;
    const auto touching = [slack](double bound) { return bound <= slack; };
    depth_first(slack, touching, [&](std::uint32_t ta, std::uint32_t tb) {
      with_leaf_pair(ta, tb, touching, [&](const auto& md) {
        if (best.signed_distance < 0.0 &&
            detail::cannot_be_deeper(detail::penetration_upper_bound(md), md.scale(),
                                     best.signed_distance))
          return;  // cannot replace the deepest pair: no GJK, no EPA
        const SignedDistanceResult r = detail::signed_distance_from(
            md, detail::run_gjk(md, options, GjkMode::Distance), 0.0, 0.0, pose_a, options);
        iterations += r.iterations;
        if (r.signed_distance < best.signed_distance) {
          best = r;
          if (hit != nullptr) *hit = MeshPairHit{static_cast<int>(ta), static_cast<int>(tb)};
        }
      });
      return false;  // every touching pair
    });
    best.iterations = iterations;
    return best;
  }

  SignedDistanceResult signed_distance(MeshPairHit* hit, double max_distance) const {
    const DistanceResult d = distance(hit, max_distance);
    SignedDistanceResult r;
    r.signed_distance = d.distance;
    r.point_on_a = d.point_on_a;
    r.point_on_b = d.point_on_b;
    r.normal = d.normal;
    r.iterations = d.iterations;
    r.status = d.status;
    if (d.distance > 0.0) return r;  // apart, or nothing within max_distance (+inf)
    MeshPairHit touching_pair = hit != nullptr ? *hit : MeshPairHit{};
    SignedDistanceResult deep = deepest(hit);
    deep.iterations += d.iterations;
    // The pair found touching has a box gap of exactly 0 up to rounding; should the boxes of a
    // pair that GJK counts as touching (within its tolerance) be pruned, the touching answer
    // stands (signed distance 0 at the distance query's witnesses).
    if (!(deep.signed_distance <= 0.0)) {
      if (hit != nullptr) *hit = touching_pair;
      return r;
    }
    return deep;
  }
};

bool valid(const Pose& pose_a, const Pose& pose_b, const QueryOptions& options) {
  return detail::options_valid(options) && detail::poses_are_valid(pose_a, pose_b);
}

template <class SetB>
DistanceResult distance_between(const TriangleMesh& a, const Pose& pose_a, const SetB& b,
                                const PrimitiveTree& tree_b, const Pose& pose_b,
                                const QueryOptions& options, MeshPairHit* hit,
                                double max_distance) {
  if (!valid(pose_a, pose_b, options) || std::isnan(max_distance)) {
    DistanceResult r;
    r.status = Status::InvalidInput;
    r.upper_bound = r.lower_bound = std::numeric_limits<double>::quiet_NaN();
    if (hit != nullptr) *hit = MeshPairHit{};
    return r;
  }
  return PairTraversal<SetB>(a, b, tree_b, pose_a, pose_b, options).distance(hit, max_distance);
}

template <class SetB>
CollisionResult collide_between(const TriangleMesh& a, const Pose& pose_a, const SetB& b,
                                const PrimitiveTree& tree_b, const Pose& pose_b,
                                const QueryOptions& options, MeshPairHit* hit) {
  if (!valid(pose_a, pose_b, options)) {
    CollisionResult r;
    r.status = Status::InvalidInput;
    if (hit != nullptr) *hit = MeshPairHit{};
    return r;
  }
  return PairTraversal<SetB>(a, b, tree_b, pose_a, pose_b, options).collide(hit);
}

template <class SetB>
ThresholdResult closer_than_between(const TriangleMesh& a, const Pose& pose_a, const SetB& b,
                                    const PrimitiveTree& tree_b, const Pose& pose_b,
                                    double threshold, const QueryOptions& options) {
  if (!valid(pose_a, pose_b, options) || std::isnan(threshold)) {
    ThresholdResult r;
    r.status = Status::InvalidInput;
    return r;
  }
  return PairTraversal<SetB>(a, b, tree_b, pose_a, pose_b, options).closer_than(threshold);
}

template <class SetB>
SignedDistanceResult signed_distance_between(const TriangleMesh& a, const Pose& pose_a,
                                             const SetB& b, const PrimitiveTree& tree_b,
                                             const Pose& pose_b, const QueryOptions& options,
                                             MeshPairHit* hit, double max_distance) {
  if (!valid(pose_a, pose_b, options) || std::isnan(max_distance)) {
    SignedDistanceResult r;
    r.status = Status::InvalidInput;
    r.signed_distance = std::numeric_limits<double>::quiet_NaN();
    if (hit != nullptr) *hit = MeshPairHit{};
    return r;
  }
  return PairTraversal<SetB>(a, b, tree_b, pose_a, pose_b, options)
      .signed_distance(hit, max_distance);
}

}  // namespace

DistanceResult distance(const TriangleMesh& a, const Pose& pose_a, const TriangleMesh& b,
                        const Pose& pose_b, const QueryOptions& options, MeshPairHit* hit,
                        double max_distance) {
  return distance_between(a, pose_a, MeshB{b}, b.tree(), pose_b, options, hit, max_distance);
}
CollisionResult collide(const TriangleMesh& a, const Pose& pose_a, const TriangleMesh& b,
                        const Pose& pose_b, const QueryOptions& options, MeshPairHit* hit) {
  return collide_between(a, pose_a, MeshB{b}, b.tree(), pose_b, options, hit);
}
SignedDistanceResult signed_distance(const TriangleMesh& a, const Pose& pose_a,
                                     const TriangleMesh& b, const Pose& pose_b,
                                     const QueryOptions& options, MeshPairHit* hit,
                                     double max_distance) {
  return signed_distance_between(a, pose_a, MeshB{b}, b.tree(), pose_b, options, hit, max_distance);
}
ThresholdResult closer_than(const TriangleMesh& a, const Pose& pose_a, const TriangleMesh& b,
                            const Pose& pose_b, double threshold, const QueryOptions& options) {
  return closer_than_between(a, pose_a, MeshB{b}, b.tree(), pose_b, threshold, options);
}

DistanceResult distance(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options, MeshPairHit* hit,
                        double max_distance) {
  return distance_between(a, pose_a, CellsB{cells}, cells.tree(), cells_pose, options, hit,
                          max_distance);
}
CollisionResult collide(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options, MeshPairHit* hit) {
  return collide_between(a, pose_a, CellsB{cells}, cells.tree(), cells_pose, options, hit);
}
SignedDistanceResult signed_distance(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                                     const Pose& cells_pose, const QueryOptions& options,
                                     MeshPairHit* hit, double max_distance) {
  return signed_distance_between(a, pose_a, CellsB{cells}, cells.tree(), cells_pose, options, hit,
                                 max_distance);
}
ThresholdResult closer_than(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                            const Pose& cells_pose, double threshold, const QueryOptions& options) {
  return closer_than_between(a, pose_a, CellsB{cells}, cells.tree(), cells_pose, threshold,
                             options);
}

}  // namespace gjk
