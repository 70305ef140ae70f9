// Broadphase: axis-aligned boxes of shapes and a bounding-volume tree over them (issue 17
// item 8). The collision world keeps one tree over its obstacles and asks it, per robot shape,
// either for every box within a margin (validity) or for boxes in order of their gap, pruned by
// the best distance found so far (minimum distance), so the cost grows with the depth of the
// tree, not with the number of obstacles.
#pragma once

#include "gjk/shapes.hpp"

#include <Eigen/Geometry>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace gjk {

/// An axis-aligned box in the world frame.
using Aabb = Eigen::AlignedBox3d;

/// The smallest axis-aligned box holding `shape` at `pose` (exact: the shape's support in the
/// six axis directions, inflation included).
Aabb bounding_box(const Shape& shape, const Pose& pose);

/// The same, for a shape that moves a little between calls (a robot link along a path): hull
/// supports by hill climbing from `hints` (the six supporting vertices of the last call,
/// updated), a few steps instead of six scans of every vertex. Any hints give the same box;
/// start with -1 (no hint: the climb starts at the precomputed support of the nearest of 26 fixed
/// directions).
Aabb bounding_box(const Shape& shape, const Pose& pose, std::array<int, 6>& hints);

namespace detail {
/// Squared gap between two boxes (0 when they touch or overlap).
inline double squared_box_gap(const Aabb& a, const Aabb& b) {
  return (a.min() - b.max()).cwiseMax(b.min() - a.max()).cwiseMax(0.0).squaredNorm();
}
}  // namespace detail

/// Euclidean distance between two boxes; 0 when they touch or overlap. A lower bound on the
/// distance between anything the boxes hold. Inline: the world's pair loops call it per pair.
inline double distance(const Aabb& a, const Aabb& b) {
  return std::sqrt(detail::squared_box_gap(a, b));
}

/// A bounding-volume tree of axis-aligned boxes, each leaf one caller id (Bullet's dbvt and
/// Box2D's dynamic tree are the model). build() makes a balanced tree at once (median splits
/// on the longest axis); insert() and remove() edit it one box at a time, insert() with tree
/// rotations that shrink the boxes on its way up (as Box2D v3's tree does). Queries are const,
/// allocate nothing unless the tree is more than 64 levels deep, and may run from several
/// threads at once.
class AabbTree {
 public:
  /// Replaces the contents with these boxes (ids are the caller's, need not be distinct). Built
  /// aside and swapped in: when it throws (out of memory) the tree is as it was.
  void build(const std::vector<std::pair<Aabb, int>>& boxes);
  /// Adds one box; returns its leaf handle (for remove()).
  int insert(const Aabb& box, int id);
  /// Makes room for `boxes` more insert() calls that allocate nothing (so cannot throw): callers
  /// that must not be left half-edited reserve before they change anything.
  void reserve(int boxes);
  /// Removes the leaf returned by insert() (or listed by for_each_leaf()).
  void remove(int leaf);
  /// Gives a leaf a new box (a moved object): removes it and inserts it again, so the tree
  /// keeps insert()'s placement rather than stretching the old one's ancestors. Without
  /// rotations: moves are the frequent edit, and rotating on them cost 10-50% more per move
  /// for queries no faster on a tree churned by moves. Returns the
  /// leaf's new handle (the old one is no longer valid), or -1 when `leaf` is not a leaf.
  int move(int leaf, const Aabb& box);
  /// Gives a leaf another caller id (the caller renumbered its objects); false when `leaf` is
  /// not a leaf.
  bool relabel(int leaf, int id);
  /// Calls f(id, leaf) for every leaf: the handles remove() and move() take.
  template <class F>
  void for_each_leaf(F&& f) const {
    for (size_t n = 0; n < nodes_.size(); ++n)
      if (is_leaf(static_cast<int>(n))) f(nodes_[n].id, static_cast<int>(n));
  }
  /// Empties the tree.
  void clear();
  /// Number of boxes.
  int size() const { return leaves_; }
  /// Number of edges from a leaf to the root (0 for the root), by its parents: O(depth); -1
  /// when `leaf` is not a leaf.
  int depth(int leaf) const;
  /// Depth of the deepest leaf (0 for one leaf, -1 when empty). O(1): callers that insert one
  /// box at a time check it to rebuild a tree grown deep (the rotations keep sorted insertions
  /// shallow, but boxes that each hold every earlier one still make a chain).
  int height() const;

  /// Calls f(id) for every box that touches or overlaps `box`, until f returns false.
  template <class F>
  void query(const Aabb& box, F&& f) const;

  /// Calls f(id, gap) for boxes with gap = distance(box, leaf) < bound, nearer subtrees first;
  /// f returns the new bound (the best distance it found so far), which prunes the rest.
  /// Returns the last bound.
  template <class F>
  double nearest(const Aabb& box, double bound, F&& f) const;

 private:
  struct Node {
    Aabb box;
    int parent = -1;
    int left = -1;  ///< -1: a leaf
    int right = -1;
    /// A leaf's caller id; an inner node's height (its deepest leaf's distance), kept here so
    /// a node stays 64 bytes; the next free node when on the free list.
    int id = -1;
  };
  int subtree_height(int node) const {
    const Node& n = nodes_[static_cast<size_t>(node)];
    return n.left < 0 ? 0 : n.id;
  }
  /// Whether `node` is a leaf handle (in range, not an inner node, not on the free list).
  bool is_leaf(int node) const {
    return node >= 0 && node < static_cast<int>(nodes_.size()) &&
           nodes_[static_cast<size_t>(node)].left == -1;
  }
  int allocate();
  void release(int node);
  int build_range(std::vector<std::pair<Aabb, int>>& boxes, size_t begin, size_t end, int parent);
  int insert_leaf(const Aabb& box, int id, bool rotate_nodes);
  /// Recomputes an inner node's box and height from its children.
  void refit(int node);
  /// Swaps a child of `node` with a grandchild on the other side when that shrinks the inner
  /// child's box (its own box stays).
  void rotate(int node);
  void refit_upwards(int node, bool rotate_nodes);

  std::vector<Node> nodes_;
  int root_ = -1;
  int free_ = -1;
  int leaves_ = 0;

  /// A traversal stack: on the call's stack up to 64 entries, beyond that on the heap (only
  /// for trees far out of balance).
  template <class T = int>
  class Stack {
   public:
    void push(T n) {
      if (size_ < fixed_.size()) {
        fixed_[size_++] = n;
      } else {
        overflow_.push_back(n);
        ++size_;
      }
    }
    T pop() {
      --size_;
      if (size_ >= fixed_.size()) {
        const T n = overflow_.back();
        overflow_.pop_back();
        return n;
      }
      return fixed_[size_];
    }
    bool empty() const { return size_ == 0; }

   private:
    std::array<T, 64> fixed_;  // not zeroed: only pushed entries are read (a 64-entry memset
                               // per query was a quarter of in_collision's own time)
    std::vector<T> overflow_;
    size_t size_ = 0;
  };
};

template <class F>
void AabbTree::query(const Aabb& box, F&& f) const {
  if (root_ < 0) return;
  Stack<> stack;
  stack.push(root_);
  while (!stack.empty()) {
    const Node& node = nodes_[static_cast<size_t>(stack.pop())];
    if (!node.box.intersects(box)) continue;
    if (node.left < 0) {
      if (!f(node.id)) return;
      continue;
    }
    stack.push(node.right);
    stack.push(node.left);
  }
}

template <class F>
double AabbTree::nearest(const Aabb& box, double bound, F&& f) const {
  if (root_ < 0) return bound;
  // Depth-first, nearer child first: the first leaves reached are close ones, so the bound
  // tightens early and prunes most of the tree. Inner nodes compare squared gaps (each node's
  // computed once, when its parent is opened; no square root), kept with a relative margin so
  // that rounding never prunes a node the exact test would keep; leaves take the exact test.
  const auto may_beat = [&](double gap2) {
    return gap2 == 0.0 ? bound > 0.0 : !(gap2 > bound * bound * (1.0 + 1e-12));
  };
  struct Entry {  // trivial, so the stack's storage is left uninitialised
    int node;
    double gap2;
  };
  Stack<Entry> stack;
  stack.push({root_, detail::squared_box_gap(nodes_[static_cast<size_t>(root_)].box, box)});
  while (!stack.empty()) {
    const auto [index, gap2] = stack.pop();
    if (!may_beat(gap2)) continue;
    const Node& node = nodes_[static_cast<size_t>(index)];
    if (node.left < 0) {
      const double gap = std::sqrt(gap2);
      if (gap < bound) bound = f(node.id, gap);
      continue;
    }
    const double left = detail::squared_box_gap(nodes_[static_cast<size_t>(node.left)].box, box);
    const double right = detail::squared_box_gap(nodes_[static_cast<size_t>(node.right)].box, box);
    if (left <= right) {
      stack.push({node.right, right});
      stack.push({node.left, left});
    } else {
      stack.push({node.left, left});
      stack.push({node.right, right});
    }
  }
  return bound;
}

}  // namespace gjk
