// Boxes of shapes and the AABB tree (issue 17 item 8).
#include "gjk/broadphase.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>

namespace gjk {

namespace {

/// Shared by both overloads. Without hints a hull's box is the one kept at construction when the
/// pose does not turn it, else one pass over its vertices.
Aabb shape_box(const Shape& shape, const Pose& pose, std::array<int, 6>* hints) {
  const Eigen::Matrix3d& r = pose.linear();
  // Half-extent along world axis k of each core, from its support in +-e_k, which is the row
  // r.row(k) in the shape frame.
  const Vec3 half = std::visit(
      [&](const auto& g) -> Vec3 {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, Sphere>) {
          return Vec3::Constant(g.radius);
        } else if constexpr (std::is_same_v<G, Box>) {
          return r.cwiseAbs() * g.half_extents;
        } else if constexpr (std::is_same_v<G, Capsule>) {
          return (r.col(2).cwiseAbs() * g.half_length).array() + g.radius;
        } else if constexpr (std::is_same_v<G, Cylinder>) {
          // A disc of radius R normal to axis a reaches R * sqrt(1 - a_k^2) along e_k.
          const Vec3 axis = r.col(2);
          Vec3 h;
          for (int k = 0; k < 3; ++k)
            h[k] = g.half_length * std::abs(axis[k]) +
                   g.radius * std::sqrt(std::max(0.0, 1.0 - axis[k] * axis[k]));
          return h;
        } else {
          return Vec3::Zero();  // handled below: hulls need both signs separately
        }
      },
      shape.geometry);
  Aabb box;
  if (const auto* hull = std::get_if<ConvexPolytope>(&shape.geometry)) {
    Vec3 lo, hi;
    const int count = static_cast<int>(hull->vertices().size());
    if (hints != nullptr) {
      for (int k = 0; k < 3; ++k) {
        const Vec3 d = r.row(k).transpose();
        int& h_up = (*hints)[static_cast<size_t>(2 * k)];
        int& h_down = (*hints)[static_cast<size_t>(2 * k + 1)];
        h_up = hull->support_index_climbing(d, h_up >= 0 && h_up < count ? h_up : -1);
        h_down = hull->support_index_climbing(-d, h_down >= 0 && h_down < count ? h_down : -1);
        hi[k] = d.dot(hull->vertices()[static_cast<size_t>(h_up)]);
        lo[k] = d.dot(hull->vertices()[static_cast<size_t>(h_down)]);
      }
    } else if (r == Eigen::Matrix3d::Identity()) {
      // The hull's own box, kept at construction (a mesh query asks for it on every call).
      std::tie(lo, hi) = hull->local_bounds();
    } else if (count > 0) {
      // One pass for the six extremes instead of six scans (issue 18: a convex shape against a
      // mesh spent half its time here). Each coordinate is the dot product a scan compares,
      // so the box is the same.
      const Vec3 r0 = r.row(0).transpose(), r1 = r.row(1).transpose(), r2 = r.row(2).transpose();
      const auto carried = [&](const Vec3& v) { return Vec3(r0.dot(v), r1.dot(v), r2.dot(v)); };
      lo = hi = carried(hull->vertices()[0]);
      for (const Vec3& v : hull->vertices()) {
        const Vec3 p = carried(v);
        lo = lo.cwiseMin(p);
        hi = hi.cwiseMax(p);
      }
    } else {
      lo = hi = Vec3::Zero();
    }
    box = Aabb(lo + pose.translation(), hi + pose.translation());
  } else {
    box = Aabb(pose.translation() - half, pose.translation() + half);
  }
  box.min().array() -= shape.inflation;
  box.max().array() += shape.inflation;
  return box;
}

}  // namespace

Aabb bounding_box(const Shape& shape, const Pose& pose) {
  return shape_box(shape, pose, nullptr);
}

Aabb bounding_box(const Shape& shape, const Pose& pose, std::array<int, 6>& hints) {
  return shape_box(shape, pose, &hints);
}

namespace {

/// Surface area: the usual cost of a box in a bounding-volume tree (the chance a random ray or
/// box query hits it).
double area(const Aabb& box) {
  const Vec3 e = box.sizes();
  return 2.0 * (e.x() * e.y() + e.y() * e.z() + e.z() * e.x());
}

}  // namespace

int AabbTree::allocate() {
  if (free_ >= 0) {
    const int n = free_;
    free_ = nodes_[static_cast<size_t>(n)].id;
    nodes_[static_cast<size_t>(n)] = Node{};
    return n;
  }
  nodes_.emplace_back();
  return static_cast<int>(nodes_.size()) - 1;
}

void AabbTree::release(int node) {
  nodes_[static_cast<size_t>(node)] = Node{};
  nodes_[static_cast<size_t>(node)].left = -2;  // marks a free node
  nodes_[static_cast<size_t>(node)].id = free_;
  free_ = node;
}

void AabbTree::clear() {
  nodes_.clear();
  root_ = -1;
  free_ = -1;
  leaves_ = 0;
}

void AabbTree::build(const std::vector<std::pair<Aabb, int>>& boxes) {
  AabbTree fresh;
  if (!boxes.empty()) {
    std::vector<std::pair<Aabb, int>> work(boxes);
    fresh.nodes_.reserve(2 * boxes.size());
    fresh.root_ = fresh.build_range(work, 0, work.size(), -1);
    fresh.leaves_ = static_cast<int>(boxes.size());
  }
  *this = std::move(fresh);
}

void AabbTree::reserve(int boxes) {
  // An insert takes a leaf and at most one new inner node; geometric growth keeps repeated
  // reservations of one box amortised O(1).
  const size_t needed = nodes_.size() + 2 * static_cast<size_t>(std::max(boxes, 0));
  if (needed > nodes_.capacity()) nodes_.reserve(std::max(needed, 2 * nodes_.capacity()));
}

int AabbTree::build_range(std::vector<std::pair<Aabb, int>>& boxes, size_t begin, size_t end,
                          int parent) {
  const int n = allocate();
  nodes_[static_cast<size_t>(n)].parent = parent;
  if (end - begin == 1) {
    nodes_[static_cast<size_t>(n)].box = boxes[begin].first;
    nodes_[static_cast<size_t>(n)].id = boxes[begin].second;
    return n;
  }
  // Split at the median of the box centres along the axis where the centres spread most.
  Aabb centres;
  centres.setEmpty();
  for (size_t i = begin; i < end; ++i) centres.extend(boxes[i].first.center());
  int axis = 0;
  centres.sizes().maxCoeff(&axis);
  const size_t mid = begin + (end - begin) / 2;
  std::nth_element(boxes.begin() + static_cast<std::ptrdiff_t>(begin),
                   boxes.begin() + static_cast<std::ptrdiff_t>(mid),
                   boxes.begin() + static_cast<std::ptrdiff_t>(end),
                   [axis](const auto& a, const auto& b) {
                     return a.first.center()[axis] < b.first.center()[axis];
                   });
  const int left = build_range(boxes, begin, mid, n);
  const int right = build_range(boxes, mid, end, n);
  Node& node = nodes_[static_cast<size_t>(n)];  // after the recursion: nodes_ may have grown
  node.left = left;
  node.right = right;
  node.box = nodes_[static_cast<size_t>(left)].box.merged(nodes_[static_cast<size_t>(right)].box);
  node.id = 1 + std::max(subtree_height(left), subtree_height(right));
  return n;
}

void AabbTree::refit(int node) {
  Node& n = nodes_[static_cast<size_t>(node)];
  n.box = nodes_[static_cast<size_t>(n.left)].box.merged(nodes_[static_cast<size_t>(n.right)].box);
  n.id = 1 + std::max(subtree_height(n.left), subtree_height(n.right));
}

void AabbTree::rotate(int node) {
  Node& a = nodes_[static_cast<size_t>(node)];
  // A tree rotation (Kopta et al., "Fast, effective BVH updates for animated scenes", 2012; Box2D
  // v3's b2RotateNodes): swap one child of this node with a grandchild on the other side when
  // that shrinks the inner child's box. This node's box is unchanged (same leaves below), so
  // the walk up is as before; the insertion's area-greedy placement is corrected where later
  // insertions made it poor, which an area-blind AVL rotation does not do (measured: its
  // queries on a tree of 10,000 random insertions were 5x slower than without rotations).
  int best_child = -1, best_grandchild = -1;
  double best_saving = 0.0;
  for (const int side : {0, 1}) {
    const int inner = side == 0 ? a.right : a.left;
    const int other = side == 0 ? a.left : a.right;
    const Node& in = nodes_[static_cast<size_t>(inner)];
    if (in.left < 0) continue;
    const double inner_area = area(in.box);
    const Aabb& other_box = nodes_[static_cast<size_t>(other)].box;
    // Swapping `other` with one grandchild leaves the inner node holding `other` and the
    // remaining grandchild.
    for (const int g : {in.left, in.right}) {
      const int remaining = g == in.left ? in.right : in.left;
      const double saving =
          inner_area - area(other_box.merged(nodes_[static_cast<size_t>(remaining)].box));
      if (saving > best_saving) {
        best_saving = saving;
        best_child = other;
        best_grandchild = g;
      }
    }
  }
  if (best_child < 0) return;
  const int inner = a.left == best_child ? a.right : a.left;
  Node& in = nodes_[static_cast<size_t>(inner)];
  (a.left == best_child ? a.left : a.right) = best_grandchild;
  (in.left == best_grandchild ? in.left : in.right) = best_child;
  nodes_[static_cast<size_t>(best_grandchild)].parent = node;
  nodes_[static_cast<size_t>(best_child)].parent = inner;
  refit(inner);
  refit(node);  // the box stays; the height may change
}

void AabbTree::refit_upwards(int node, bool rotate_nodes) {
  for (int n = node; n >= 0;) {
    const Node& before = nodes_[static_cast<size_t>(n)];
    const Aabb old_box = before.box;
    const int old_height = before.id;
    refit(n);
    if (rotate_nodes) rotate(n);
    const Node& x = nodes_[static_cast<size_t>(n)];
    // A subtree whose box and height come out as they were leaves every ancestor as it was
    // (each is a function of its children alone; a rotation keeps the subtree's leaves, so its
    // box): an insertion inside an existing region stops a few levels up instead of at the root
    // (FCL's and Box2D's trees stop likewise).
    if (x.id == old_height && x.box.min() == old_box.min() && x.box.max() == old_box.max()) return;
    n = x.parent;
  }
}

int AabbTree::insert(const Aabb& box, int id) {
  return insert_leaf(box, id, true);
}

int AabbTree::insert_leaf(const Aabb& box, int id, bool rotate_nodes) {
  const int leaf = allocate();
  nodes_[static_cast<size_t>(leaf)].box = box;
  nodes_[static_cast<size_t>(leaf)].id = id;
  ++leaves_;
  if (root_ < 0) {
    root_ = leaf;
    return leaf;
  }
  // Descend towards the child whose box grows least in area (Box2D's insertion cost), stopping
  // where making a new sibling here is cheaper than going further down.
  int at = root_;
  while (nodes_[static_cast<size_t>(at)].left >= 0) {
    const Node& node = nodes_[static_cast<size_t>(at)];
    const double merged = area(node.box.merged(box));
    const double here = 2.0 * merged;
    const double inherited = 2.0 * (merged - area(node.box));
    const auto descend_cost = [&](int child) {
      const Aabb& c = nodes_[static_cast<size_t>(child)].box;
      const double grown = area(c.merged(box));
      return nodes_[static_cast<size_t>(child)].left < 0 ? grown + inherited
                                                         : grown - area(c) + inherited;
    };
    const double left_cost = descend_cost(node.left), right_cost = descend_cost(node.right);
    if (here < left_cost && here < right_cost) break;
    at = left_cost <= right_cost ? node.left : node.right;
  }
  const int sibling = at;
  const int old_parent = nodes_[static_cast<size_t>(sibling)].parent;
  const int parent = allocate();
  Node& p = nodes_[static_cast<size_t>(parent)];
  p.parent = old_parent;
  p.left = sibling;
  p.right = leaf;
  p.box = box.merged(nodes_[static_cast<size_t>(sibling)].box);
  p.id = 1 + subtree_height(sibling);
  nodes_[static_cast<size_t>(sibling)].parent = parent;
  nodes_[static_cast<size_t>(leaf)].parent = parent;
  if (old_parent < 0) {
    root_ = parent;
  } else {
    Node& op = nodes_[static_cast<size_t>(old_parent)];
    (op.left == sibling ? op.left : op.right) = parent;
  }
  // The new node first: when the descent stopped above the leaves, it pairs a subtree with a
  // leaf and is out of balance. Its ancestors then grow from their old boxes.
  if (rotate_nodes) rotate(parent);
  refit_upwards(old_parent, rotate_nodes);
  return leaf;
}

void AabbTree::remove(int leaf) {
  if (!is_leaf(leaf)) return;
  --leaves_;
  if (leaf == root_) {
    root_ = -1;
    release(leaf);
    return;
  }
  const int parent = nodes_[static_cast<size_t>(leaf)].parent;
  const Node& p = nodes_[static_cast<size_t>(parent)];
  const int sibling = p.left == leaf ? p.right : p.left;
  const int grand = p.parent;
  nodes_[static_cast<size_t>(sibling)].parent = grand;
  if (grand < 0) {
    root_ = sibling;
  } else {
    Node& g = nodes_[static_cast<size_t>(grand)];
    (g.left == parent ? g.left : g.right) = sibling;
    refit_upwards(grand, false);
  }
  release(parent);
  release(leaf);
}

int AabbTree::move(int leaf, const Aabb& box) {
  if (!is_leaf(leaf)) return -1;
  const int id = nodes_[static_cast<size_t>(leaf)].id;
  remove(leaf);
  return insert_leaf(box, id, false);
}

bool AabbTree::relabel(int leaf, int id) {
  if (!is_leaf(leaf)) return false;
  nodes_[static_cast<size_t>(leaf)].id = id;
  return true;
}

int AabbTree::depth(int leaf) const {
  if (!is_leaf(leaf)) return -1;
  int edges = 0;
  for (int n = nodes_[static_cast<size_t>(leaf)].parent; n >= 0;
       n = nodes_[static_cast<size_t>(n)].parent)
    ++edges;
  return edges;
}

int AabbTree::height() const {
  return root_ < 0 ? -1 : subtree_height(root_);
}

}  // namespace gjk
