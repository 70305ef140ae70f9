// Broadphase: axis-aligned boxes of shapes and a bounding-volume tree over them (issue 17
// item 8). The collision world keeps one tree over its obstacles and asks it, per robot shape,
// either for every box within a margin (validity) or for boxes in order of their gap, pruned by
// the best distance found so far (minimum distance), so the cost grows with the depth of the
// tree, not with the number of obstacles.
#pragma once

#include "gjk/shapes.hpp"

#include <Eigen/Geometry>

#include <array>
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
/// updated), a few steps instead of six scans of every vertex. Any hints are valid (start
/// with zeros); the box is the same.
Aabb bounding_box(const Shape& shape, const Pose& pose, std::array<int, 6>& hints);

/// Euclidean distance between two boxes; 0 when they touch or overlap. A lower bound on the
/// distance between anything the boxes hold.
double distance(const Aabb& a, const Aabb& b);

/// A bounding-volume tree of axis-aligned boxes, each leaf one caller id (Bullet's dbvt and
/// Box2D's dynamic tree are the model). build() makes a balanced tree at once (median splits
/// on the longest axis); insert() and remove() edit it one box at a time. Queries are const,
/// allocate nothing unless the tree is more than 64 levels deep, and may run from several
/// threads at once.
class AabbTree {
 public:
  /// Replaces the contents with these boxes (ids are the caller's, need not be distinct).
  void build(const std::vector<std::pair<Aabb, int>>& boxes);
  /// Adds one box; returns its leaf handle (for remove()).
  int insert(const Aabb& box, int id);
  /// Removes the leaf returned by insert() (or found by leaf_of()).
  void remove(int leaf);
  /// Empties the tree.
  void clear();
  /// Number of boxes.
  int size() const { return leaves_; }
  /// Depth of the deepest leaf (0 for one leaf, -1 when empty).
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
    int id = -1;  ///< caller id of a leaf; next free node when on the free list
  };
  int allocate();
  void release(int node);
  int build_range(std::vector<std::pair<Aabb, int>>& boxes, size_t begin, size_t end, int parent);
  void refit_upwards(int node);

  std::vector<Node> nodes_;
  int root_ = -1;
  int free_ = -1;
  int leaves_ = 0;

  /// A traversal stack: on the call's stack up to 64 entries, beyond that on the heap (only
  /// for trees far out of balance).
  class Stack {
   public:
    void push(int n) {
      if (size_ < fixed_.size()) {
        fixed_[size_++] = n;
      } else {
        overflow_.push_back(n);
        ++size_;
      }
    }
    int pop() {
      --size_;
      if (size_ >= fixed_.size()) {
        const int n = overflow_.back();
        overflow_.pop_back();
        return n;
      }
      return fixed_[size_];
    }
    bool empty() const { return size_ == 0; }

   private:
    std::array<int, 64> fixed_{};
    std::vector<int> overflow_;
    size_t size_ = 0;
  };
};

template <class F>
void AabbTree::query(const Aabb& box, F&& f) const {
  if (root_ < 0) return;
  Stack stack;
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
  // tightens early and prunes most of the tree.
  Stack stack;
  stack.push(root_);
  while (!stack.empty()) {
    const Node& node = nodes_[static_cast<size_t>(stack.pop())];
    const double gap = distance(node.box, box);
    if (!(gap < bound)) continue;
    if (node.left < 0) {
      bound = f(node.id, gap);
      continue;
    }
    const Node& left = nodes_[static_cast<size_t>(node.left)];
    const Node& right = nodes_[static_cast<size_t>(node.right)];
    const bool left_first = distance(left.box, box) <= distance(right.box, box);
    stack.push(left_first ? node.right : node.left);
    stack.push(left_first ? node.left : node.right);
  }
  return bound;
}

}  // namespace gjk
