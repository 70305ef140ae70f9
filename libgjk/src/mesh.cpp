// Queries between a convex shape and a triangle mesh or a box set (issue 17 items 1-2): descend
// the primitives' hierarchy in the mesh's frame against the shape's box there, and run the
// convex loops (seed 000 Alg. 1-3) on each leaf that survives the pruning.
#include "gjk/mesh.hpp"

#include "pair_results.hpp"
#include "rss.hpp"
#include "triangle_core.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gjk {

// ---------------------------------------------------------------------------------------------
// The hierarchy

PrimitiveTree::PrimitiveTree(const std::vector<Aabb>& boxes) {
  if (boxes.empty()) return;
  std::vector<std::uint32_t> order(boxes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::vector<Vec3> centres(boxes.size());
  for (size_t i = 0; i < boxes.size(); ++i) centres[i] = boxes[i].center();
  nodes_.reserve(2 * boxes.size() - 1);
  build(order, centres, boxes, 0, boxes.size());
}

std::uint32_t PrimitiveTree::build(std::vector<std::uint32_t>& order, std::vector<Vec3>& centres,
                                   const std::vector<Aabb>& boxes, size_t begin, size_t end) {
  const auto at = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  if (end - begin == 1) {
    const Aabb& b = boxes[order[begin]];
    nodes_[at] = Node{b.min(), b.max(), order[begin], true};
    return at;
  }
  // Median split of the centres along their widest axis: a balanced tree, depth log2(n).
  Aabb spread;
  spread.setEmpty();
  for (size_t i = begin; i < end; ++i) spread.extend(centres[order[i]]);
  int axis = 0;
  spread.sizes().maxCoeff(&axis);
  const size_t mid = begin + (end - begin) / 2;
  std::nth_element(
      order.begin() + static_cast<std::ptrdiff_t>(begin),
      order.begin() + static_cast<std::ptrdiff_t>(mid),
      order.begin() + static_cast<std::ptrdiff_t>(end),
      [&](std::uint32_t a, std::uint32_t b) { return centres[a][axis] < centres[b][axis]; });
  const std::uint32_t left = build(order, centres, boxes, begin, mid);
  const std::uint32_t right = build(order, centres, boxes, mid, end);
  nodes_[at].lower = nodes_[left].lower.cwiseMin(nodes_[right].lower);
  nodes_[at].upper = nodes_[left].upper.cwiseMax(nodes_[right].upper);
  nodes_[at].index = right;
  nodes_[at].leaf = false;
  return at;
}

Aabb PrimitiveTree::bounds() const {
  if (nodes_.empty()) {
    Aabb empty;
    empty.setEmpty();
    return empty;
  }
  return Aabb(nodes_[0].lower, nodes_[0].upper);
}

TriangleMesh TriangleMesh::from_triangles(std::vector<Vec3> vertices,
                                          std::vector<std::array<std::uint32_t, 3>> triangles) {
  if (triangles.empty()) throw std::invalid_argument("triangle mesh: no triangles");
  for (size_t v = 0; v < vertices.size(); ++v)
    if (!vertices[v].allFinite())
      throw std::invalid_argument("triangle mesh: vertex " + std::to_string(v) +
                                  " has a non-finite coordinate");
  std::vector<Aabb> boxes;
  boxes.reserve(triangles.size());
  for (size_t t = 0; t < triangles.size(); ++t) {
    const auto& tri = triangles[t];
    for (const std::uint32_t i : tri)
      if (i >= vertices.size())
        throw std::invalid_argument("triangle mesh: triangle " + std::to_string(t) +
                                    " uses vertex " + std::to_string(i) + " of " +
                                    std::to_string(vertices.size()));
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2])
      throw std::invalid_argument("triangle mesh: triangle " + std::to_string(t) +
                                  " repeats a vertex index");
    Aabb box(vertices[tri[0]], vertices[tri[0]]);
    box.extend(vertices[tri[1]]);
    box.extend(vertices[tri[2]]);
    boxes.push_back(box);
  }
  TriangleMesh mesh;
  mesh.vertices_ = std::move(vertices);
  mesh.triangles_ = std::move(triangles);
  mesh.tree_ = PrimitiveTree(boxes);
  // Node volumes: a subtree is a contiguous run of nodes (depth-first), so each node's
  // triangles are the leaves from it to the end of its right child's run.
  const auto& nodes = mesh.tree_.nodes();
  std::vector<std::uint32_t> end(nodes.size());
  for (size_t i = nodes.size(); i-- > 0;)
    end[i] = nodes[i].leaf ? static_cast<std::uint32_t>(i + 1) : end[nodes[i].index];
  mesh.volumes_.resize(nodes.size());
  std::vector<Vec3> points;
  for (size_t i = 0; i < nodes.size(); ++i) {
    points.clear();
    for (size_t j = i; j < end[i]; ++j)
      if (nodes[j].leaf)
        for (const std::uint32_t k : mesh.triangles_[nodes[j].index])
          points.push_back(mesh.vertices_[k]);
    mesh.volumes_[i] = detail::fit_rss(points.data(), points.size());
  }
  return mesh;
}

BoxSet BoxSet::from_boxes(std::vector<Vec3> centres, std::vector<Vec3> half_extents) {
  if (centres.size() != half_extents.size())
    throw std::invalid_argument("box set: " + std::to_string(centres.size()) + " centres but " +
                                std::to_string(half_extents.size()) + " half extents");
  if (centres.empty()) throw std::invalid_argument("box set: no boxes");
  std::vector<Aabb> boxes;
  boxes.reserve(centres.size());
  for (size_t i = 0; i < centres.size(); ++i) {
    if (!centres[i].allFinite())
      throw std::invalid_argument("box set: box " + std::to_string(i) + " has a non-finite centre");
    if (!half_extents[i].allFinite() || !(half_extents[i].minCoeff() > 0.0))
      throw std::invalid_argument("box set: box " + std::to_string(i) +
                                  " needs positive finite half extents");
    boxes.emplace_back(centres[i] - half_extents[i], centres[i] + half_extents[i]);
  }
  BoxSet set;
  set.centres_ = std::move(centres);
  set.half_extents_ = std::move(half_extents);
  set.tree_ = PrimitiveTree(boxes);
  return set;
}

// ---------------------------------------------------------------------------------------------
// Leaves as cores of the convex loops

namespace {

using detail::GjkMode;
using detail::GjkOutcome;
using detail::TriangleCore;

/// The triangles of a mesh: each leaf a TriangleCore in the mesh frame.
struct MeshLeaves {
  const TriangleMesh& mesh;
  TriangleCore core(std::uint32_t t) const {
    const auto& tri = mesh.triangles()[t];
    return TriangleCore(mesh.vertices()[tri[0]], mesh.vertices()[tri[1]], mesh.vertices()[tri[2]]);
  }
  Vec3 offset(std::uint32_t) const { return Vec3::Zero(); }
  /// The triangle's own box in A's frame (tighter than its leaf box carried over).
  Aabb box_in(const detail::PairFrame& f, std::uint32_t t) const {
    const auto& tri = mesh.triangles()[t];
    Aabb b;
    b.setEmpty();
    for (const std::uint32_t v : tri)
      b.extend(Vec3(f.rotation * mesh.vertices()[v] + f.translation));
    return b;
  }
  static constexpr bool tight_leaf_box = true;
  size_t count() const { return mesh.triangles().size(); }
};

/// The boxes of a set: each leaf a box core centred at its cell's centre.
struct CellLeaves {
  const BoxSet& cells;
  detail::BoxCore core(std::uint32_t b) const { return detail::BoxCore{cells.half_extents()[b]}; }
  Vec3 offset(std::uint32_t b) const { return cells.centres()[b]; }
  Aabb box_in(const detail::PairFrame&, std::uint32_t) const { return Aabb(); }  // unused
  static constexpr bool tight_leaf_box = false;  // a cell is its leaf box: nothing tighter
  size_t count() const { return cells.centres().size(); }
};

double box_gap(const Aabb& a, const Aabb& b) {
  return (a.min() - b.max()).cwiseMax(b.min() - a.max()).cwiseMax(0.0).norm();
}

/// Depth-first stack of (node, lower bound) entries: a median-split tree of n leaves is
/// ceil(log2 n) deep, so 128 entries hold any tree that fits in memory.
struct NodeStack {
  std::array<std::pair<std::uint32_t, double>, 128> items;
  int size = 0;
  void push(std::uint32_t n, double bound) { items[static_cast<size_t>(size++)] = {n, bound}; }
  std::pair<std::uint32_t, double> pop() { return items[static_cast<size_t>(--size)]; }
  bool empty() const { return size == 0; }
};

/// Everything a traversal needs: the shape's core and radius, the leaves, the frames.
template <class CoreA, class Leaves>
struct Traversal {
  const CoreA& core_a;
  double radius_a;
  const Leaves& leaves;
  const PrimitiveTree& tree;
  const Pose& pose_a;
  detail::PairFrame frame;  ///< mesh frame -> A's frame
  Aabb box;                 ///< A (inflated) in the mesh frame
  const QueryOptions& options;
  Aabb local_box;                ///< A (inflated) in its own frame
  Eigen::Matrix3d abs_rotation;  ///< |frame.rotation|: carries half extents into A's frame

  /// Lower bound on the distance from A to anything in the node: the larger of the box gaps
  /// in the mesh's frame (A's box there against the node's) and in A's frame (A's own box
  /// against the node's box carried over). Two frames cut off far more than either alone when
  /// A is long and turned (a link), as an oriented-box test would.
  double lower_bound(const PrimitiveTree::Node& node) const {
    const Vec3 g = (node.lower - box.max()).cwiseMax(box.min() - node.upper).cwiseMax(0.0);
    const Vec3 centre = frame.rotation * (0.5 * (node.lower + node.upper)) + frame.translation;
    const Vec3 half = abs_rotation * (0.5 * (node.upper - node.lower));
    const Vec3 h =
        (centre - half - local_box.max()).cwiseMax(local_box.min() - (centre + half)).cwiseMax(0.0);
    return std::sqrt(std::max(g.squaredNorm(), h.squaredNorm()));
  }
  /// For a leaf: the primitive's own box in A's frame when it is tighter than the node's.
  double leaf_bound(const PrimitiveTree::Node& node, double node_bound) const {
    if constexpr (Leaves::tight_leaf_box) {
      return std::max(node_bound, box_gap(leaves.box_in(frame, node.index), local_box));
    } else {
      return node_bound;
    }
  }
  std::uint32_t left_of(const PrimitiveTree::Node& node) const {
    return static_cast<std::uint32_t>(&node - tree.nodes().data()) + 1;
  }

  /// Runs f(md) on leaf `primitive` as a Minkowski difference in A's frame.
  template <class F>
  decltype(auto) with_leaf(std::uint32_t primitive, F&& f) const {
    const auto core_b = leaves.core(primitive);
    using MD = detail::MinkowskiDifference<CoreA, std::decay_t<decltype(core_b)>>;
    const MD md{core_a, core_b, frame.rotation,
                frame.translation + frame.rotation * leaves.offset(primitive)};
    return f(md);
  }

  DistanceResult leaf_distance(std::uint32_t primitive) const {
    return with_leaf(primitive, [&](const auto& md) {
      return detail::distance_from(md, detail::run_gjk(md, options, GjkMode::Distance), radius_a,
                                   0.0, pose_a);
    });
  }

  DistanceResult distance(PrimitiveHit* hit, double max_distance) const {
    DistanceResult best;
    best.distance = max_distance;  // only leaves nearer than this are of interest
    int found = -1;
    double lower = std::numeric_limits<double>::infinity();
    int iterations = 0;
    // Warm start: the caller's last primitive first, so its distance prunes from the root.
    const int hint = hit != nullptr ? hit->primitive : -1;
    if (hint >= 0 && static_cast<size_t>(hint) < leaves.count()) {
      const DistanceResult r = leaf_distance(static_cast<std::uint32_t>(hint));
      iterations += r.iterations;
      lower = std::min(lower, r.lower_bound);
      if (r.distance < best.distance) {
        best = r;
        found = hint;
      }
    }
    NodeStack stack;
    stack.push(0, lower_bound(tree.nodes()[0]));
    while (!stack.empty()) {
      const auto [at, bound] = stack.pop();
      if (!(bound < best.distance)) continue;  // cannot beat the best leaf
      const PrimitiveTree::Node& node = tree.nodes()[at];
      if (!node.leaf) {
        const std::uint32_t left = left_of(node), right = node.index;
        const double left_bound = lower_bound(tree.nodes()[left]);
        const double right_bound = lower_bound(tree.nodes()[right]);
        if (left_bound <= right_bound) {  // nearer child on top: tightens the best early
          stack.push(right, right_bound);
          stack.push(left, left_bound);
        } else {
          stack.push(left, left_bound);
          stack.push(right, right_bound);
        }
        continue;
      }
      if (static_cast<int>(node.index) == hint || !(leaf_bound(node, bound) < best.distance))
        continue;
      const DistanceResult r = leaf_distance(node.index);
      iterations += r.iterations;
      lower = std::min(lower, r.lower_bound);
      if (r.distance < best.distance) {
        best = r;
        found = static_cast<int>(node.index);
        if (best.distance == 0.0) break;  // touching: nothing is nearer
      }
    }
    best.iterations = iterations;
    best.lower_bound = std::min(lower, best.distance);
    if (found < 0) {  // nothing nearer than max_distance: say so, the bound as certificate
      best.distance = std::numeric_limits<double>::infinity();
      best.lower_bound = max_distance;
    }
    if (hit != nullptr) hit->primitive = found;
    return best;
  }

  CollisionResult collide() const {
    CollisionResult out;
    NodeStack stack;
    stack.push(0, 0.0);
    while (!stack.empty()) {
      const PrimitiveTree::Node& node = tree.nodes()[stack.pop().first];
      const double bound = lower_bound(node);
      if (bound > 0.0) continue;
      if (!node.leaf) {
        stack.push(node.index, 0.0);
        stack.push(left_of(node), 0.0);
        continue;
      }
      if (leaf_bound(node, bound) > 0.0) continue;
      const bool hit = with_leaf(node.index, [&](const auto& md) {
        // As for convex pairs: rounded shapes by a threshold on the cores, bare cores by the
        // boolean early exits (seed 001 Alg. 6); touching counts.
        const auto verdict = [&](bool collision, int iterations, Status status) {
          out.iterations += iterations;
          if (status != Status::Converged) out.status = status;
          return collision;
        };
        if (radius_a > 0.0) {
          const double contact = radius_a + detail::touch_tolerance(md.scale());
          const GjkOutcome g = detail::run_gjk(md, options, GjkMode::Threshold, contact);
          return verdict(g.overlap || g.lower < contact, g.iterations, g.status);
        }
        const detail::BooleanOutcome b = detail::run_boolean(md, options);
        return verdict(b.collision, b.iterations, b.status);
      });
      if (hit) {
        out.collision = true;
        return out;
      }
    }
    return out;
  }

  ThresholdResult closer_than(double threshold) const {
    ThresholdResult out;
    out.lower_bound = std::numeric_limits<double>::infinity();
    NodeStack stack;
    stack.push(0, 0.0);
    while (!stack.empty()) {
      const PrimitiveTree::Node& node = tree.nodes()[stack.pop().first];
      double bound = lower_bound(node);
      if (node.leaf) bound = leaf_bound(node, bound);
      // Prune only beyond the threshold: at threshold 0 the question is "touching?", and a
      // node whose box touches the shape's box must be opened.
      if (!(bound <= threshold)) {
        out.lower_bound = std::min(out.lower_bound, bound);
        continue;
      }
      if (!node.leaf) {
        stack.push(node.index, 0.0);
        stack.push(left_of(node), 0.0);
        continue;
      }
      const bool closer = with_leaf(node.index, [&](const auto& md) {
        const GjkOutcome g = detail::run_gjk(md, options, GjkMode::Threshold, threshold + radius_a);
        out.iterations += g.iterations;
        if (g.status != Status::Converged) out.status = g.status;
        out.lower_bound = std::min(out.lower_bound, std::max(0.0, g.lower - radius_a));
        out.upper_bound = std::min(out.upper_bound, std::max(0.0, g.upper - radius_a));
        return g.overlap || g.upper - radius_a < threshold;
      });
      if (closer) {
        out.closer = true;
        out.lower_bound = 0.0;  // leaves not visited may be nearer still
        return out;
      }
    }
    return out;
  }

  /// An upper bound on how deep the shape, its radius included, reaches into `primitive`
  /// (detail::penetration_upper_bound). A cell's faces are normal to the cells' frame axes,
  /// along which the shape's box in that frame is exact: the overlap of the two boxes bounds the
  /// depth without a support of the shape (a hull's would climb six times per cell).
  template <class MD>
  double depth_bound(std::uint32_t primitive, const MD& md) const {
    if constexpr (std::is_same_v<Leaves, CellLeaves>) {
      const Vec3& centre = leaves.cells.centres()[primitive];
      const Vec3& half = leaves.cells.half_extents()[primitive];
      return (box.max() - (centre - half)).cwiseMin((centre + half) - box.min()).minCoeff();
    } else {
      return detail::penetration_upper_bound(md) + radius_a;
    }
  }

  /// The deepest penetration into a single primitive among those the shape touches.
  SignedDistanceResult deepest(PrimitiveHit* hit) const {
    SignedDistanceResult best;
    best.signed_distance = std::numeric_limits<double>::infinity();
    int iterations = 0;
    NodeStack stack;
    stack.push(0, 0.0);
    while (!stack.empty()) {
      const PrimitiveTree::Node& node = tree.nodes()[stack.pop().first];
      const double bound = lower_bound(node);
      if (bound > 0.0) continue;
      if (!node.leaf) {
        stack.push(node.index, 0.0);
        stack.push(left_of(node), 0.0);
        continue;
      }
      if (leaf_bound(node, bound) > 0.0) continue;
      bool skipped = false;
      const SignedDistanceResult r = with_leaf(node.index, [&](const auto& md) {
        if (best.signed_distance < 0.0 &&
            detail::cannot_be_deeper(depth_bound(node.index, md), md.scale(),
                                     best.signed_distance)) {
          skipped = true;  // cannot replace the deepest primitive: no GJK, no EPA
          return SignedDistanceResult{};
        }
        return detail::signed_distance_from(md, detail::run_gjk(md, options, GjkMode::Distance),
                                            radius_a, 0.0, pose_a, options);
      });
      if (skipped) continue;
      iterations += r.iterations;
      if (r.signed_distance < best.signed_distance) {
        best = r;
        if (hit != nullptr) hit->primitive = static_cast<int>(node.index);
      }
    }
    best.iterations = iterations;
    return best;
  }
};

bool valid(const Shape& shape, const Pose& pose, const Pose& other, const QueryOptions& options) {
  return detail::options_valid(options) && detail::poses_are_valid(pose, other) &&
         detail::shape_is_valid(shape);
}

/// Calls f(traversal) with the shape's core dispatched once for the whole descent.
template <class Leaves, class F>
decltype(auto) traverse(const Shape& shape, const Pose& pose, const Leaves& leaves,
                        const PrimitiveTree& tree, const Pose& tree_pose,
                        const QueryOptions& options, F&& f) {
  const Aabb box = bounding_box(shape, tree_pose.inverse(Eigen::Isometry) * pose);
  const Aabb local_box = bounding_box(shape, Pose::Identity());
  const detail::PairFrame frame = detail::relative_frame(pose, tree_pose);
  return detail::with_core(
      shape, options.support, -1, [&](const auto& core, double radius) -> decltype(auto) {
        using T = Traversal<std::decay_t<decltype(core)>, Leaves>;
        const T t{core,  radius, leaves,  tree,      pose,
                  frame, box,    options, local_box, frame.rotation.cwiseAbs()};
        return f(t);
      });
}

template <class Leaves>
DistanceResult distance_to(const Shape& shape, const Pose& pose, const Leaves& leaves,
                           const PrimitiveTree& tree, const Pose& tree_pose,
                           const QueryOptions& options, PrimitiveHit* hit, double max_distance) {
  if (!valid(shape, pose, tree_pose, options)) {
    DistanceResult r;
    r.status = Status::InvalidInput;
    r.upper_bound = r.lower_bound = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  return traverse(shape, pose, leaves, tree, tree_pose, options,
                  [&](const auto& t) { return t.distance(hit, max_distance); });
}

template <class Leaves>
CollisionResult collide_with(const Shape& shape, const Pose& pose, const Leaves& leaves,
                             const PrimitiveTree& tree, const Pose& tree_pose,
                             const QueryOptions& options) {
  if (!valid(shape, pose, tree_pose, options)) {
    CollisionResult r;
    r.status = Status::InvalidInput;
    return r;
  }
  return traverse(shape, pose, leaves, tree, tree_pose, options,
                  [&](const auto& t) { return t.collide(); });
}

template <class Leaves>
ThresholdResult closer_than_to(const Shape& shape, const Pose& pose, const Leaves& leaves,
                               const PrimitiveTree& tree, const Pose& tree_pose, double threshold,
                               const QueryOptions& options) {
  if (!valid(shape, pose, tree_pose, options) || std::isnan(threshold)) {
    ThresholdResult r;
    r.status = Status::InvalidInput;
    return r;
  }
  return traverse(shape, pose, leaves, tree, tree_pose, options,
                  [&](const auto& t) { return t.closer_than(threshold); });
}

template <class Leaves>
SignedDistanceResult signed_distance_to(const Shape& shape, const Pose& pose, const Leaves& leaves,
                                        const PrimitiveTree& tree, const Pose& tree_pose,
                                        const QueryOptions& options, PrimitiveHit* hit,
                                        double max_distance) {
  if (!valid(shape, pose, tree_pose, options)) {
    SignedDistanceResult r;
    r.status = Status::InvalidInput;
    r.signed_distance = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  return traverse(shape, pose, leaves, tree, tree_pose, options, [&](const auto& t) {
    const DistanceResult d = t.distance(hit, max_distance);
    if (d.distance > 0.0) {  // apart, or nothing within max_distance (+inf)
      SignedDistanceResult r;
      r.signed_distance = d.distance;
      r.point_on_a = d.point_on_a;
      r.point_on_b = d.point_on_b;
      r.normal = d.normal;
      r.iterations = d.iterations;
      r.status = d.status;
      return r;
    }
    SignedDistanceResult r = t.deepest(hit);
    r.iterations += d.iterations;
    return r;
  });
}

}  // namespace

DistanceResult distance(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                        const Pose& mesh_pose, const QueryOptions& options, PrimitiveHit* hit,
                        double max_distance) {
  return distance_to(shape, pose, MeshLeaves{mesh}, mesh.tree(), mesh_pose, options, hit,
                     max_distance);
}
CollisionResult collide(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                        const Pose& mesh_pose, const QueryOptions& options) {
  return collide_with(shape, pose, MeshLeaves{mesh}, mesh.tree(), mesh_pose, options);
}
SignedDistanceResult signed_distance(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                                     const Pose& mesh_pose, const QueryOptions& options,
                                     PrimitiveHit* hit, double max_distance) {
  return signed_distance_to(shape, pose, MeshLeaves{mesh}, mesh.tree(), mesh_pose, options, hit,
                            max_distance);
}
ThresholdResult closer_than(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                            const Pose& mesh_pose, double threshold, const QueryOptions& options) {
  return closer_than_to(shape, pose, MeshLeaves{mesh}, mesh.tree(), mesh_pose, threshold, options);
}

DistanceResult distance(const Shape& shape, const Pose& pose, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options, PrimitiveHit* hit,
                        double max_distance) {
  return distance_to(shape, pose, CellLeaves{cells}, cells.tree(), cells_pose, options, hit,
                     max_distance);
}
CollisionResult collide(const Shape& shape, const Pose& pose, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options) {
  return collide_with(shape, pose, CellLeaves{cells}, cells.tree(), cells_pose, options);
}
SignedDistanceResult signed_distance(const Shape& shape, const Pose& pose, const BoxSet& cells,
                                     const Pose& cells_pose, const QueryOptions& options,
                                     PrimitiveHit* hit, double max_distance) {
  return signed_distance_to(shape, pose, CellLeaves{cells}, cells.tree(), cells_pose, options, hit,
                            max_distance);
}
ThresholdResult closer_than(const Shape& shape, const Pose& pose, const BoxSet& cells,
                            const Pose& cells_pose, double threshold, const QueryOptions& options) {
  return closer_than_to(shape, pose, CellLeaves{cells}, cells.tree(), cells_pose, threshold,
                        options);
}

}  // namespace gjk
