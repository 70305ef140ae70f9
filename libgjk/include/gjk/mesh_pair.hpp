// Queries between two non-convex sets (issue 17 item 1, "optionally for robot links"): a triangle
// mesh against another triangle mesh (a link mesh against a shelf), or against a BoxSet (a link
// mesh against an octomap's occupied cells). Both hierarchies are descended together, pair of
// nodes by pair of nodes, and the convex engine runs on the pairs of primitives (two triangles,
// or a triangle and a box) that the pruning leaves, so answers are exact: the minimum over every
// pair of primitives, not an approximation of the surfaces.
//
// Semantics follow the shape-against-mesh queries of gjk/mesh.hpp: a TriangleMesh is a surface
// (open or closed), so a mesh floating inside a closed mesh without touching a triangle is at a
// positive distance; a BoxSet is the union of solid boxes. When the sets overlap,
// signed_distance() reports minus the deepest penetration of any single pair of primitives (two
// triangles, or a triangle and a box): exact per pair. Two triangles that cross each other
// penetrate by the shortest translation that ends their crossing, usually small; it is not the
// depth of one solid into another (a surface has no inside).
#pragma once

#include "gjk/mesh.hpp"
#include "gjk/results.hpp"

#include <limits>

namespace gjk {

/// Which pair of primitives gave a mesh-vs-mesh or mesh-vs-cells answer (-1 when none, e.g.
/// nothing within reach). Also a warm start for distance queries along a path: a pair given on
/// entry is measured first and its distance bounds the descent from the start (the nearest pair
/// rarely changes between neighbouring configurations). Keep one per tracked pair of sets.
struct MeshPairHit {
  int primitive_a = -1;  ///< triangle of the first mesh; on entry, with primitive_b, the pair to
                         ///< try first (-1: none)
  int primitive_b = -1;  ///< triangle (or box) of the second set
};

/// Exact distance between two triangle meshes: the minimum over every pair of triangles, with
/// witness points (world frame) on the reported triangles and the normal from `a` towards `b`.
/// `hit` (optional) receives the closest pair and, on entry, seeds the search (see MeshPairHit).
/// Pairs of subtrees at least `max_distance` apart are never opened (a caller's best distance so
/// far): when nothing is nearer, the result has distance = +inf, lower_bound = max_distance and
/// hit -1. Bad poses or options give Status::InvalidInput.
DistanceResult distance(const TriangleMesh& a, const Pose& pose_a, const TriangleMesh& b,
                        const Pose& pose_b, const QueryOptions& options = {},
                        MeshPairHit* hit = nullptr,
                        double max_distance = std::numeric_limits<double>::infinity());
/// Whether any triangle of `a` touches any triangle of `b`; stops at the first such pair, which
/// `hit` (optional) receives.
CollisionResult collide(const TriangleMesh& a, const Pose& pose_a, const TriangleMesh& b,
                        const Pose& pose_b, const QueryOptions& options = {},
                        MeshPairHit* hit = nullptr);
/// Distance when apart; minus the deepest penetration of a single pair of triangles when they
/// touch (see the file comment). `hit` and `max_distance` as for distance().
SignedDistanceResult signed_distance(const TriangleMesh& a, const Pose& pose_a,
                                     const TriangleMesh& b, const Pose& pose_b,
                                     const QueryOptions& options = {}, MeshPairHit* hit = nullptr,
                                     double max_distance = std::numeric_limits<double>::infinity());
/// Whether the distance between the meshes is below `threshold`, pruning every pair of subtrees
/// at least that far apart; stops at the first pair of triangles that decides it. Threshold 0
/// asks "touching?" (touching counts as closer, as for convex pairs).
ThresholdResult closer_than(const TriangleMesh& a, const Pose& pose_a, const TriangleMesh& b,
                            const Pose& pose_b, double threshold, const QueryOptions& options = {});

/// Exact distance from a triangle mesh to the union of a BoxSet's boxes (a link mesh against
/// an octomap's cells); as distance() for two meshes, primitive_b being a box index.
DistanceResult distance(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options = {},
                        MeshPairHit* hit = nullptr,
                        double max_distance = std::numeric_limits<double>::infinity());
/// Whether any triangle of `a` touches any box; stops at the first such pair.
CollisionResult collide(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                        const Pose& cells_pose, const QueryOptions& options = {},
                        MeshPairHit* hit = nullptr);
/// Distance when apart; minus the deepest penetration of a single triangle into a single box
/// when they touch: exact per pair, a lower bound on the depth into the union of cells.
SignedDistanceResult signed_distance(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                                     const Pose& cells_pose, const QueryOptions& options = {},
                                     MeshPairHit* hit = nullptr,
                                     double max_distance = std::numeric_limits<double>::infinity());
/// Whether the distance from the mesh to the cells is below `threshold`.
ThresholdResult closer_than(const TriangleMesh& a, const Pose& pose_a, const BoxSet& cells,
                            const Pose& cells_pose, double threshold,
                            const QueryOptions& options = {});

}  // namespace gjk
