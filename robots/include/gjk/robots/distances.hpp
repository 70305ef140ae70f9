// Robot-scene distances: every (link shape, obstacle) pair's signed distance, witness points,
// normal, and the gradient of the distance with respect to the joint vector (seed 002 eq. 7,
// for any URDF tree: grad d = -J_p(q)^T n, with J_p the Jacobian of the link's witness point and
// n the unit normal from the link towards the obstacle).
#pragma once

#include "gjk/queries.hpp"
#include "gjk/robots/robot_model.hpp"
#include "gjk/robots/scene.hpp"

#include <limits>
#include <vector>

namespace gjk::robots {

/// The distance between one link collision shape and one obstacle, with its gradient.
struct PairDistance {
  int shape = -1;                         ///< index into model.collision_shapes()
  int obstacle = -1;                      ///< index into scene.obstacles
  double distance = 0.0;                  ///< signed: negative is the penetration depth
  Vec3 point_on_link = Vec3::Zero();      ///< world frame
  Vec3 point_on_obstacle = Vec3::Zero();  ///< world frame
  Vec3 normal = Vec3::Zero();             ///< unit, from the link towards the obstacle
  Eigen::VectorXd gradient;               ///< d distance / d q (empty unless requested)
  Status status = Status::Converged;      ///< the engine's status for the pair
};

/// Settings of the robot-scene distance queries.
struct DistanceOptions {
  /// Pairs certified farther than this are left out without an exact distance (a threshold
  /// query decides them). Infinity: every pair is computed.
  double cutoff = std::numeric_limits<double>::infinity();
  bool gradients = true;  ///< compute d distance / d q (needs the Jacobians)
  QueryOptions query;     ///< settings of every engine query
};

/// Warm-start caches for every (shape, obstacle) pair of one robot and scene, for tracking a
/// smooth joint path (seed 004 section 4). One per thread.
class DistanceCache {
 public:
  DistanceCache() = default;
  /// Empty warm starts for every (shape, obstacle) pair of `model` and `scene`.
  DistanceCache(const RobotModel& model, const Scene& scene)
      : obstacles_(scene.obstacles.size()),
        caches_(model.collision_shapes().size() * scene.obstacles.size()) {}
  /// The warm start of one pair, or null when the indices are out of range.
  WarmStart* get(int shape, int obstacle) {
    const size_t i = static_cast<size_t>(shape) * obstacles_ + static_cast<size_t>(obstacle);
    return i < caches_.size() ? &caches_[i] : nullptr;
  }

 private:
  size_t obstacles_ = 0;
  std::vector<WarmStart> caches_;
};

/// All (link shape, obstacle) pairs within the cutoff, for the configuration `ws` holds (call
/// forward_kinematics first). `cache` may be null (cold queries).
std::vector<PairDistance> robot_scene_distances(const RobotModel& model, const Workspace& ws,
                                                const Scene& scene,
                                                const DistanceOptions& options = {},
                                                DistanceCache* cache = nullptr);

/// The same into `out`, reusing its storage: no allocation once `out` has held as many pairs
/// (the form for a control loop).
void robot_scene_distances(const RobotModel& model, const Workspace& ws, const Scene& scene,
                           const DistanceOptions& options, DistanceCache* cache,
                           std::vector<PairDistance>& out);

/// One (link shape, obstacle) pair's exact signed distance into `out`: witness points, normal,
/// status and, when options.gradients, d distance / d q (seed 002 eq. 7); the per-pair step of
/// robot_scene_distances, for a caller that chooses its own pairs (VelocityInversion skips pairs
/// certified far). `shape_pose` must be collision_pose(model, ws, shape) at the configuration in
/// `ws`; `shape` and `obstacle` must index model.collision_shapes() and scene.obstacles (not
/// checked: this runs for every pair of every control step). options.cutoff is not used. `warm`
/// is the pair's warm start (e.g. DistanceCache::get(shape, obstacle)), or null for a cold query.
/// Allocates nothing when `out.gradient` already has num_positions() entries (or gradients are
/// off).
void shape_obstacle_distance(const RobotModel& model, const Workspace& ws, const Scene& scene,
                             int shape, const Pose& shape_pose, int obstacle,
                             const DistanceOptions& options, WarmStart* warm, PairDistance& out);

/// The closest (link shape, obstacle) pair, with its gradient. Pairs are pruned with threshold
/// queries against the best distance found so far (early exit), so only pairs that can beat it
/// get an exact distance. Returns shape == -1 when nothing is within the cutoff.
PairDistance minimum_distance(const RobotModel& model, const Workspace& ws, const Scene& scene,
                              const DistanceOptions& options = {}, DistanceCache* cache = nullptr);

/// Pairs of collision shapes (indices into model.collision_shapes()) to check for
/// self-collision: shapes on different links, except link pairs listed in `allowed` (by name,
/// either order; names are checked) and, when `exclude_adjacent`, links joined by fixed joints and
/// at most one moving joint (neighbours whose shapes touch at the joint by construction).
std::vector<std::pair<int, int>> self_collision_pairs(
    const RobotModel& model, const std::vector<std::pair<std::string, std::string>>& allowed = {},
    bool exclude_adjacent = true);

/// Signed distances of the given shape pairs at the configuration in `ws`. In each result
/// `shape` is the first shape, `obstacle` the second one's shape index, the normal points from the
/// first towards the second, and the gradient accounts for both links moving.
std::vector<PairDistance> self_distances(const RobotModel& model, const Workspace& ws,
                                         const std::vector<std::pair<int, int>>& pairs,
                                         const DistanceOptions& options = {});

}  // namespace gjk::robots
