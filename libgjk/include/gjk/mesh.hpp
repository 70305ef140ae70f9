// Non-convex geometry for the engine (issue 17 items 1-2): exact triangle meshes and sets of
// boxes (the occupied cells of an octree or a voxelised point cloud), each under a bounding-
// volume hierarchy of axis-aligned boxes whose leaves are single primitives. A query between a
// convex shape and one of them descends the hierarchy and runs the convex engine (GJK, EPA) on
// the leaves it cannot prune, so answers are exact (the minimum over every primitive), not an
// approximation of the surface.
//
// What "overlap" means: a TriangleMesh is a surface (it need not be closed), so a shape inside a
// closed mesh without touching a triangle is at a positive distance from it. A BoxSet is the
// union of solid boxes. When the shape overlaps, signed_distance() reports minus the deepest
// penetration into any single primitive: exact for one primitive, a lower bound on the depth
// into a union of cells (the depth out of the whole union can be larger).
#pragma once

#include "gjk/broadphase.hpp"
#include "gjk/results.hpp"
#include "gjk/shapes.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace gjk {

/// Bounding-volume hierarchy over primitives, stored depth-first (a node's left child follows
/// it). Built once by median splits; shared by TriangleMesh and BoxSet.
class PrimitiveTree {
 public:
  /// One node: its box and either a primitive (leaf) or its right child.
  struct Node {
    Vec3 lower;  ///< the box's lower corner
    Vec3 upper;  ///< the box's upper corner
    /// Leaf: the primitive index; inner node: the index of the right child (left is next).
    std::uint32_t index = 0;
    bool leaf = false;  ///< a leaf holds one primitive
  };
  /// Builds over the primitives' boxes (one per primitive).
  explicit PrimitiveTree(const std::vector<Aabb>& boxes = {});
  /// The nodes, root first, depth-first.
  const std::vector<Node>& nodes() const { return nodes_; }
  /// Box of everything (empty when there are no primitives).
  Aabb bounds() const;

 private:
  std::uint32_t build(std::vector<std::uint32_t>& order, std::vector<Vec3>& centres,
                      const std::vector<Aabb>& boxes, size_t begin, size_t end);
  std::vector<Node> nodes_;
};

/// Oriented node volume of a TriangleMesh (issue 17 item 9): a rectangle swept by a sphere, i.e.
/// every point within `radius` of the rectangle centred at `centre` with half lengths `half_u`,
/// `half_v` along the first two columns of `axes` (orthonormal; the third is its normal). Used
/// by the mesh-vs-mesh distance descent, where flat patches fit far tighter than in boxes.
struct alignas(64) RectangleSweptSphere {
  Eigen::Matrix3d axes = Eigen::Matrix3d::Identity();  ///< columns: u, v, normal
  Vec3 centre = Vec3::Zero();                          ///< the rectangle's centre
  double half_u = 0.0;                                 ///< half length along u
  double half_v = 0.0;                                 ///< half length along v
  double radius = 0.0;                                 ///< the swept sphere's radius
};

/// A triangle mesh in its own frame; a surface, open or closed, any topology.
class TriangleMesh {
 public:
  /// Checks the input (at least one triangle, finite coordinates, indices in range, no triangle
  /// with repeated indices) and builds the hierarchy. Throws std::invalid_argument naming the
  /// bad triangle or vertex. Zero-area triangles are accepted (they are segments or points).
  static TriangleMesh from_triangles(std::vector<Vec3> vertices,
                                     std::vector<std::array<std::uint32_t, 3>> triangles);

  /// The vertices, in the mesh's frame.
  const std::vector<Vec3>& vertices() const { return vertices_; }
  /// The triangles as indices into vertices().
  const std::vector<std::array<std::uint32_t, 3>>& triangles() const { return triangles_; }
  /// Box of the mesh in its own frame.
  Aabb local_bounds() const { return tree_.bounds(); }
  /// The hierarchy over the triangles.
  const PrimitiveTree& tree() const { return tree_; }
  /// One volume per node of tree() (same order), each containing the node's triangles.
  const std::vector<RectangleSweptSphere>& node_volumes() const { return volumes_; }

 private:
  std::vector<Vec3> vertices_;
  std::vector<std::array<std::uint32_t, 3>> triangles_;
  PrimitiveTree tree_;
  std::vector<RectangleSweptSphere> volumes_;
};

/// Solid axis-aligned boxes (in the set's frame), e.g. the occupied cells of an octree.
class BoxSet {
 public:
  /// Checks the input (same sizes, at least one box, finite centres, positive finite half
  /// extents) and builds the hierarchy. Throws std::invalid_argument naming the bad box.
  static BoxSet from_boxes(std::vector<Vec3> centres, std::vector<Vec3> half_extents);

  /// The boxes' centres, in the set's frame.
  const std::vector<Vec3>& centres() const { return centres_; }
  /// The boxes' half extents (same order as centres()).
  const std::vector<Vec3>& half_extents() const { return half_extents_; }
  /// Box of every cell in the set's frame.
  Aabb local_bounds() const { return tree_.bounds(); }
  /// The hierarchy over the boxes.
  const PrimitiveTree& tree() const { return tree_; }

 private:
  std::vector<Vec3> centres_;
  std::vector<Vec3> half_extents_;
  PrimitiveTree tree_;
};

/// Which primitive gave a mesh or cell-set answer (-1 when none, e.g. nothing within reach).
/// Also a warm start for distance queries along a path: a primitive given on entry is tried
/// first, so its distance prunes the descent from the start (the nearest triangle rarely
/// changes between neighbouring configurations). Keep one per tracked pair.
struct PrimitiveHit {
  int primitive = -1;  ///< triangle or box index; on entry, the one to try first (-1: none)
};

/// Exact distance from a convex shape to the nearest triangle, with witness points and normal
/// (from the shape towards the mesh). `hit` (optional) receives the triangle. Subtrees at least
/// `max_distance` away are never opened (a caller's best distance so far): when nothing is
/// nearer, the result has distance = +inf, lower_bound = max_distance and hit -1.
DistanceResult distance(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                        const Pose& mesh_pose, const QueryOptions& options = {},
                        PrimitiveHit* hit = nullptr,
                        double max_distance = std::numeric_limits<double>::infinity());
/// Whether the shape touches any triangle; stops at the first.
CollisionResult collide(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                        const Pose& mesh_pose, const QueryOptions& options = {});
/// Distance when apart; minus the deepest penetration into a single triangle when touching.
/// `max_distance` as for distance() (+inf signed distance when nothing is nearer).
SignedDistanceResult signed_distance(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                                     const Pose& mesh_pose, const QueryOptions& options = {},
                                     PrimitiveHit* hit = nullptr,
                                     double max_distance = std::numeric_limits<double>::infinity());
/// Whether the distance to the mesh is below `threshold`, pruning every subtree whose box is
/// at least that far; stops at the first triangle that decides it.
ThresholdResult closer_than(const Shape& shape, const Pose& pose, const TriangleMesh& mesh,
                            const Pose& mesh_pose, double threshold,
                            const QueryOptions& options = {});

/// The same four queries against the union of a BoxSet's boxes.
DistanceResult distance(const Shape& shape, const Pose& pose, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options = {},
                        PrimitiveHit* hit = nullptr,
                        double max_distance = std::numeric_limits<double>::infinity());
CollisionResult collide(const Shape& shape, const Pose& pose, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options = {});
SignedDistanceResult signed_distance(const Shape& shape, const Pose& pose, const BoxSet& cells,
                                     const Pose& cells_pose, const QueryOptions& options = {},
                                     PrimitiveHit* hit = nullptr,
                                     double max_distance = std::numeric_limits<double>::infinity());
ThresholdResult closer_than(const Shape& shape, const Pose& pose, const BoxSet& cells,
                            const Pose& cells_pose, double threshold,
                            const QueryOptions& options = {});

}  // namespace gjk
