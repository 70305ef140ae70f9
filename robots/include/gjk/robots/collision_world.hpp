// The collision service (issue 17): a robot, the obstacles of its cell (convex shapes, exact
// meshes, occupied cells), the allowed-collision matrix and the objects the robot holds, with a
// broadphase over the obstacles. It answers, per configuration, the questions the planner, the
// clearance analysis and the Python bindings ask: "is anything closer than d?", "which pair is
// closest, with its gradient?", "every pair within a cutoff".
//
// Model / context split, as for RobotModel / Workspace: a CollisionWorld is immutable while it
// is queried (edit it, then query it) and shared by threads; a WorldContext holds one thread's
// kinematics, warm starts and boxes. Obstacles are added, removed and moved in place: their
// leaves of the broadphase, their rows of the pair lists and their names change, nothing else,
// and contexts stay valid (a cell whose objects come, go and move while the robot runs). Edits that
// change the robot's shapes or the matrix (objects attached or detached, a new matrix) are in
// place too: the robot's new shapes are looked up in the matrix, every other verdict and the
// broadphase stay (a new matrix looks every pair up again). Contexts follow them at their next
// call, keeping the warm starts of the shapes that stayed. Moving the robot's base changes
// neither.
#pragma once

#include "gjk/broadphase.hpp"
#include "gjk/mesh_pair.hpp"
#include "gjk/robots/allowed_collisions.hpp"
#include "gjk/robots/distances.hpp"
#include "gjk/robots/name_index.hpp"
#include "gjk/robots/robot_model.hpp"
#include "gjk/robots/scene.hpp"

#include <Eigen/Core>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace gjk::robots {

/// The closest pair of a configuration: a robot shape and an obstacle, or two robot shapes.
struct ClosestPair {
  PairDistance pair;  ///< for a self pair, `obstacle` holds the second shape's index
  bool self = false;  ///< true: two robot shapes; false: a robot shape and an obstacle
};

class WorldContext;

/// A robot in its cell. Shape indices are those of model() (the URDF's collision elements, then
/// the attached objects' pieces); obstacle indices those of obstacles().
class CollisionWorld {
 public:
  /// The robot alone, its self-collisions filtered by adjacency (links joined by a joint).
  explicit CollisionWorld(RobotModel robot);
  /// The robot in a scene; the scene's `attached` objects are attached.
  CollisionWorld(RobotModel robot, Scene scene);
  /// The same with an allowed-collision matrix (e.g. acm_from_srdf).
  CollisionWorld(RobotModel robot, Scene scene, AllowedCollisionMatrix allowed);

  /// The URDF robot, without attached objects.
  const RobotModel& robot() const { return robot_; }
  /// The robot with its attached objects' pieces as collision shapes: what the queries use.
  const RobotModel& model() const { return model_; }
  /// The world's obstacles (convex, mesh, cells) at their poses.
  const std::vector<Obstacle>& obstacles() const { return scene_.obstacles; }
  /// The scene: obstacles() and attached().
  const Scene& scene() const { return scene_; }
  /// The objects the robot holds.
  const std::vector<AttachedObject>& attached() const { return scene_.attached; }
  /// The allowed-collision matrix (by link, obstacle and attached-object names).
  const AllowedCollisionMatrix& allowed_collisions() const { return allowed_; }

  /// Places the robot's root link in the world (the SRDF's virtual joint: a mobile base's pose,
  /// a robot on a table); RobotModel::set_base_pose's checks (throws ModelError). Contexts stay
  /// valid (their next update() uses the new pose).
  void set_base_pose(const Pose& pose);

  /// Replaces the allowed-collision matrix: every pair's verdict is looked up again, O(pairs);
  /// the shapes, boxes, names and broadphase stay. Contexts follow at their next call.
  void set_allowed_collisions(AllowedCollisionMatrix allowed);
  /// Adds an obstacle as the last index; throws std::invalid_argument (and changes nothing)
  /// when its name is already used, it is an attached object's name or its pose is not finite.
  /// O(log N): its broadphase leaf (and a row of checked pairs, O(shapes), only when the matrix
  /// names its object); contexts stay valid and keep their warm starts.
  void add_obstacle(Obstacle obstacle);
  /// Removes every obstacle whose name or object is `name`; throws std::invalid_argument when
  /// there is none. Each removed index is taken by the last obstacle (as std::vector's
  /// swap-and-pop: the other indices stay). O(log N) per obstacle (plus O(shapes) when the
  /// matrix names its object), no rebuild;
  /// contexts stay valid (the moved obstacle's pairs start cold).
  void remove_obstacle(const std::string& name);
  /// Moves the obstacles whose name or object is `name` to `pose`; throws std::invalid_argument
  /// when there is none or the pose is not finite (then nothing moves). Updates their boxes in
  /// the broadphase, O(log N) per obstacle; contexts stay valid and keep their warm starts (the
  /// moved pairs' last simplices are good starts for a small move).
  void move_obstacle(const std::string& name, const Pose& pose);
  /// Attaches an object to a link (RobotModel::attach's checks, and its name must not be an
  /// obstacle's object; throws ModelError and changes nothing). Its shapes come after the
  /// robot's; only their pairs are looked up in the matrix: O(shapes x (shapes + M)), M the
  /// obstacles the matrix names (the others share one row of checked pairs: nothing per
  /// obstacle). Contexts follow at their next call.
  void attach(AttachedObject object);
  /// Moves the obstacle(s) `name` (convex, convex pieces or an exact mesh) from the world onto
  /// `link`, keeping their world pose at configuration q (a grasp); the pieces keep the order
  /// of their indices. Throws for an unknown name or an occupancy map / point cloud (changing
  /// nothing). The obstacles leave as remove_obstacle() removes them (swap and pop).
  void attach_obstacle(const std::string& name, const std::string& link, const Eigen::VectorXd& q,
                       std::vector<std::string> touch_links = {});
  /// Puts an attached object back into the world as obstacles, at its pose for configuration
  /// q: named as the object when it has one piece, NAME#K otherwise, added as add_obstacle()
  /// adds them. Throws std::invalid_argument (changing nothing) when no object has this name
  /// or a piece's name is an obstacle's. Contexts follow at their next call.
  void detach(const std::string& name, const Eigen::VectorXd& q);

  /// Robot shape pairs checked for self-collision (not allowed by the matrix).
  const std::vector<std::pair<int, int>>& self_pairs() const { return self_pairs_; }
  /// Whether the pair (robot shape, obstacle) is checked (not allowed by the matrix).
  bool checked(int shape, int obstacle) const {
    const int row = obstacle_row_[static_cast<size_t>(obstacle)];
    return (row < 0 ? unmentioned_checked_[static_cast<size_t>(shape)]
                    : mentioned_checked_[static_cast<size_t>(row) * shape_count_ +
                                         static_cast<size_t>(shape)]) != 0;
  }
  /// The name the matrix knows a robot shape by: its link, or its attached object.
  const std::string& part_name(int shape) const;
  /// The broadphase over the obstacles (user ids are obstacle indices).
  const AabbTree& obstacle_tree() const { return tree_; }
  /// World box of each obstacle (the tree's leaves), by obstacle index.
  const std::vector<Aabb>& obstacle_boxes() const { return obstacle_boxes_; }
  /// Changes with every edit of the robot's shapes or the matrix (attach, detach,
  /// attach_obstacle, set_allowed_collisions; not with adding, removing or moving obstacles or
  /// set_base_pose); distinct across worlds. A WorldContext follows such an edit at its next
  /// call (or WorldContext::follow_world()).
  std::uint64_t layout_stamp() const { return layout_stamp_; }

 private:
  friend class WorldContext;
  void rebuild();
  /// Removes obstacle `hole`, whose index the last obstacle takes (allocates nothing).
  void remove_obstacle_at(size_t hole);
  /// add_obstacle() after its checks (detach() adds pieces named after an attached object).
  void add_obstacle_in_place(Obstacle obstacle);
  /// Throws std::invalid_argument, naming `edit`, when a new obstacle's name is in use, its
  /// object is an attached object's name (when `refuse_attached_object`) or its pose is not
  /// finite.
  void check_new_obstacle(const Obstacle& obstacle, const char* edit,
                          bool refuse_attached_object) const;
  /// Appends an obstacle's shape and pose checks and its box.
  void append_obstacle_checks(const Obstacle& obstacle, const Aabb& box);
  /// attach() after its name check (attach_obstacle's object takes its obstacles' name).
  void attach_in_place(AttachedObject object);
  /// 1 when the pair (robot shape, obstacle object) is checked by the matrix, else 0.
  std::uint8_t obstacle_pair_checked(size_t shape, const std::string& object) const;
  /// Whether robot shapes i < k of model_ are a checked self pair.
  bool self_pair_checked(size_t i, size_t k) const;
  /// After the robot's shapes or the matrix changed: shape s of the new layout was shape
  /// sources[s] (-1: a new shape, read from model_ at s). Kept shapes keep their boxes and,
  /// unless the matrix changed, their verdicts (self pairs, obstacle rows); only the rest is
  /// looked up. Obstacles' boxes, names and the tree are untouched. Contexts follow. A
  /// throw leaves the world as it was.
  void refresh_robot_shapes(const std::vector<int>& sources, bool matrix_changed);
  /// Appends the row of checked pairs of an obstacle whose object the matrix names, one
  /// matrix lookup for each of `shapes` shapes; a throw takes it back.
  void append_mentioned_row(const Obstacle& obstacle, size_t shapes,
                            std::vector<std::uint8_t>& rows) const;
  /// Appends obstacle `index`'s entry in obstacle_row_ (and its row when the matrix names its
  /// object: `mentioned`), its shape and pose checks and its box; needs shape_count_ of the
  /// current model. The caller reserves the room for them first.
  void append_obstacle_rows(const Obstacle& obstacle, size_t index, bool mentioned);
  /// Takes out the row of checked pairs of the obstacle at `hole`, if it has one (the last row
  /// takes its place).
  void drop_mentioned_row(size_t hole);
  /// The balanced broadphase over obstacle_boxes_, and obstacle_leaf_.
  void build_tree();
  /// Rebuilds the tree when boxes placed one at a time made it much deeper than a balanced
  /// tree (insertion's rotations keep most orders shallow, but not boxes that each hold the
  /// earlier ones; a deep tree slows every query and, past 64 levels, allocates).
  void keep_tree_shallow();
  /// Adds obstacle i's name and object to obstacle_names_ and appends their hashes to
  /// obstacle_name_hashes_ (i is the next index: every caller indexes a new last obstacle).
  void index_name(size_t i);
  /// Whether an indexed obstacle has this name (its own name; object names may repeat).
  bool name_in_use(const std::string& name) const;
  /// Takes them out of obstacle_names_.
  void unindex_name(size_t i);
  /// Obstacle `from`'s names now give index `to`, and its hashes are at `to`.
  void relabel_name(size_t from, size_t to);
  /// Whether an obstacle index has `name` as its name or its object's name.
  auto named_by(const std::string& name) const {
    return [this, &name](int i) {
      const Obstacle& o = scene_.obstacles[static_cast<size_t>(i)];
      return o.name == name || o.object == name;
    };
  }

  RobotModel robot_;
  RobotModel model_;
  Scene scene_;
  AllowedCollisionMatrix allowed_;
  std::vector<std::pair<int, int>> self_pairs_;
  size_t shape_count_ = 0;  ///< model_'s collision shapes
  /// Which (shape, obstacle) pairs are checked. Most obstacles' objects are not named by the
  /// matrix, and all those share one row: each shape's default (unmentioned_checked_). Only
  /// obstacles the matrix names have a row of their own, so a grasp re-lays out those rows
  /// alone, not one per obstacle (87 % of a grasp among 10,000 boxes did).
  std::vector<std::uint8_t> unmentioned_checked_;
  /// Per obstacle: its row in mentioned_checked_, or -1 for unmentioned_checked_.
  std::vector<int> obstacle_row_;
  /// The rows of the obstacles the matrix names, each shape_count_ long.
  std::vector<std::uint8_t> mentioned_checked_;
  std::vector<int> mentioned_row_obstacle_;  ///< each row's obstacle index
  AabbTree tree_;
  std::vector<Aabb> obstacle_boxes_;
  std::vector<int> obstacle_leaf_;  ///< each obstacle's leaf handle in tree_ (for moves)
  /// Obstacle indices by name and by object name (move_obstacle: no scan of the scene).
  NameIndex obstacle_names_;
  /// Each obstacle's name hashes, so that a removal or a renumbering hashes no string again.
  struct NameHashes {
    std::uint32_t name = 0, object = 0;
    bool one_entry = true;  ///< equal hashes (as when object == name): indexed once
  };
  std::vector<NameHashes> obstacle_name_hashes_;
  std::vector<int> removal_scratch_;  ///< remove_obstacle's indices, kept to reuse its memory
  std::uint64_t layout_stamp_ = 0;
  /// Per robot shape: an id it keeps through every edit (a new shape takes a new one, unique in
  /// the process, so a world and its copy never share one for different shapes), by which a
  /// WorldContext carries its warm starts across a change of the robot's shapes.
  std::vector<std::uint64_t> shape_ids_;
  /// The last removals, (index the last obstacle moved from, index it moved to; equal when
  /// the last was removed), at renumber_count_ % size: contexts drop those pairs' warm starts,
  /// which are keyed by index.
  std::array<std::pair<int, int>, 64> renumbered_{};
  std::uint64_t renumber_count_ = 0;
  // Per shape and obstacle, what every WorldContext reads: computed once per edit here rather
  // than in each context's constructor (a hull's box is six support scans; with the Panda's 17
  // shapes that made a context cost 11 us).
  std::vector<Vec3> shape_local_centres_;          ///< centre of each shape's tight box, own frame
  std::vector<Vec3> shape_local_halves_;           ///< half sizes of that box
  std::vector<std::uint8_t> shape_prechecked_;     ///< per shape: prechecked::shape_ok
  std::vector<std::uint8_t> obstacle_prechecked_;  ///< per obstacle: convex, shape and pose ok
  std::vector<std::uint8_t> obstacle_shape_ok_;    ///< per obstacle: convex and shape ok
};

/// One thread's state for querying a world: kinematics, robot shapes' poses and boxes, warm
/// starts. Create one per thread; it must not outlive the world. It stays valid through every
/// edit of the world. Adding, removing and moving obstacles are read at query time. After an
/// edit of the robot's shapes or the matrix (CollisionWorld::layout_stamp() changed: attach,
/// detach, attach_obstacle, set_allowed_collisions) its next call follows the new layout: the
/// shapes it had keep their warm starts, and a new shape (an object just grasped) is placed at
/// the last update's link poses, so a query without update() answers for that configuration
/// holding the object. After set_base_pose, update() again (the shapes' poses include the base).
class WorldContext {
 public:
  /// Empty warm starts and workspace for `world`.
  explicit WorldContext(const CollisionWorld& world);

  /// Forward kinematics for q (validated; throws ModelError), the robot shapes' poses and
  /// loose boxes (each shape's own box carried into the world, O(1)). Call before the queries
  /// below; the tight boxes the distance queries prune with are computed when first needed.
  void update(const Eigen::VectorXd& q);

  /// Whether some checked pair (robot-obstacle or self) is closer than `margin` (overlap
  /// counts): threshold queries that stop as soon as each pair is decided, and the first pair
  /// found ends the search.
  bool in_collision(double margin = 0.0, const QueryOptions& query = {});

  /// The closest checked pair (signed distance) with its gradient d distance / d q; pairs that
  /// cannot beat the best so far are pruned by the broadphase and by threshold queries. Pairs
  /// farther than `cutoff` are left out; `pair.shape == -1` when none is within it.
  ClosestPair closest(double cutoff = std::numeric_limits<double>::infinity(),
                      const QueryOptions& query = {}, bool gradient = true);

  /// Every checked robot-obstacle pair within `cutoff` (and, with `self`, every self pair
  /// within it), with gradients when asked, into `out` (its storage reused).
  void distances(double cutoff, bool self, bool gradients, const QueryOptions& query,
                 std::vector<ClosestPair>& out);

  /// One robot-obstacle pair's signed distance at the last update, as distances() measures it
  /// (the same warm start and cutoff test), with its gradient when asked, into `out`; false
  /// (and `out` untouched) when the pair is beyond `cutoff`. For callers that skip pairs they
  /// can bound themselves (the clearance analysis). Throws std::out_of_range for a bad index.
  bool pair_distance(int shape, int obstacle, double cutoff, bool gradient,
                     const QueryOptions& query, ClosestPair& out);

  /// The workspace of the last update (link poses).
  const Workspace& workspace() const { return ws_; }
  /// Brings the context up to the world's edits, as update() and every query do first: after
  /// a grasp, a release or a new matrix, shape_poses() then lists the world's current shapes
  /// (placed at the last update's configuration). Throws std::logic_error when the world's robot
  /// itself was replaced (a world assigned over this one): make a new context.
  void follow_world();
  /// World pose of each robot shape at the last update, in the layout the context last followed
  /// (after a robot-side edit, call follow_world() or a query first).
  const std::vector<Pose>& shape_poses() const { return poses_; }
  /// Tight world box of each robot shape at the last update (computed on first use).
  const std::vector<Aabb>& shape_boxes();
  /// The world this context queries.
  const CollisionWorld& world() const { return *world_; }

 private:
  void add_gradient(ClosestPair& best) const;
  /// The slot of (robot shape, obstacle) in the warm-start tables: direct-mapped, growing with
  /// the pairs queried up to one slot per pair or kMaxWarmSlots, so a world of 10,000
  /// obstacles does not hold a cache per pair; at the cap a slot taken over by another pair
  /// starts cold. A pointer into the tables is valid until the next call.
  size_t obstacle_slot(int shape, int obstacle);
  /// The warm-start key of (shape, obstacle), obstacle-major: an added obstacle's pairs take
  /// new keys and every other key stays.
  std::uint64_t warm_key(int shape, int obstacle) const {
    return static_cast<std::uint64_t>(obstacle) * poses_.size() + static_cast<std::uint64_t>(shape);
  }
  /// Quadruples the tables (up to max_warm_slots()), keeping every pair's warm start.
  void grow_warm_table();
  /// (shape, obstacle)'s signed distance into `r`, as distances() measures it; false when the
  /// pair is certified beyond a finite `cutoff` (then `r` is not set).
  bool measure_obstacle_pair(size_t shape, int obstacle, double cutoff, bool options_ok,
                             const QueryOptions& query, SignedDistanceResult& r);
  /// Makes boxes_ the tight boxes of the last update (hill climbing from the last supports).
  void ensure_tight_boxes();
  /// Shape s's tight box for the last update, computed on first use.
  const Aabb& tight_box(size_t s);
  WarmStart* obstacle_warm_start(int shape, int obstacle) {
    return &obstacle_warm_[obstacle_slot(shape, obstacle)];
  }
  /// Whether a convex (shape, obstacle) or self pair passed the engine's input checks once
  /// (gjk::prechecked): its queries skip them.
  bool prechecked_pair(size_t shape, size_t obstacle) {
    // The flags are the world's, kept with each edit; the bound only guards an index beyond
    // them (it no longer stands for "added after this context was made").
    return obstacle < world_->obstacle_prechecked_.size() &&
           world_->obstacle_prechecked_[obstacle] && prechecked_pose(shape);
  }
  bool prechecked_self(size_t a, size_t b) { return prechecked_pose(a) && prechecked_pose(b); }
  /// Shape s's checks at the last update, made when one of its pairs is first queried (a
  /// validity query that prunes every pair by boxes checks nothing).
  bool prechecked_pose(size_t s) {
    if (pose_prechecked_[s] == kUnchecked)
      pose_prechecked_[s] =
          world_->shape_prechecked_[s] && prechecked::pose_ok(poses_[s]) ? kOk : kNotOk;
    return pose_prechecked_[s] == kOk;
  }

  /// Forgets the warm starts of obstacles removed or moved to another index since the last
  /// call, and follows a change of the robot's shapes or the matrix (follow_layout); `place`
  /// as there.
  void check_layout(bool place = true);
  /// After attach, detach, attach_obstacle or set_allowed_collisions: the per-shape state of the
  /// world's new layout. Kept shapes (by CollisionWorld::shape_ids_) keep their warm starts with
  /// the obstacles and with each other; new shapes start cold, placed at the last update's link
  /// poses. All computed aside and swapped in: a throw leaves the context on its old layout.
  /// Without `place` the shapes are left unplaced (identity poses) for a caller that places
  /// them next.
  void follow_layout(bool place = true);
  /// Each shape's pose and loose box from the link poses in ws_.
  void place_shapes();
  void forget_renumbered();
  /// One slot per (shape, obstacle) pair of the world as it is now, a power of two, at most
  /// kMaxWarmSlots.
  size_t max_warm_slots() const;

  const CollisionWorld* world_;
  std::uint64_t layout_stamp_;                   ///< the world's layout this context's state fits
  std::vector<std::uint64_t> shape_ids_;         ///< that layout's shape ids
  std::vector<std::pair<int, int>> self_pairs_;  ///< that layout's self pairs (self_caches_)
  std::uint64_t renumbered_seen_;                ///< the world's renumber_count_ at the last query
  Workspace ws_;
  std::vector<Pose> poses_;
  std::vector<Aabb> boxes_;        ///< tight boxes, valid when tight_
  std::vector<Aabb> loose_boxes_;  ///< each shape's local box carried into the world
  enum : std::uint8_t { kUnchecked, kOk, kNotOk };
  std::vector<std::uint8_t> pose_prechecked_;  ///< per shape: that and its pose at the last update
  bool tight_ = false;                         ///< every shape's tight box is valid
  std::vector<std::uint8_t> tight_shape_;      ///< per shape: boxes_[s] is valid
  std::vector<std::pair<double, int>> shape_order_;  ///< closest(): (loose gap, shape)
  std::vector<std::array<int, 6>> box_hints_;        ///< hull supports of the last boxes (climbing)
  /// No supports yet: the first box of a shape scans.
  static constexpr std::array<int, 6> kNoBoxHints{-1, -1, -1, -1, -1, -1};
  static constexpr size_t kFirstWarmSlots = 256;
  static constexpr size_t kMaxWarmSlots = 65536;
  size_t warm_slots_used_ = 0;  ///< slots holding a pair
  std::vector<WarmStart> obstacle_warm_;
  std::vector<MeshPairHit> obstacle_hits_;  ///< pairs with a mesh or cells: last nearest primitives
  std::vector<std::uint64_t> obstacle_warm_owner_;  ///< pair key + 1 per slot; 0 = empty
  std::vector<WarmStart> self_caches_;
  std::vector<MeshPairHit> self_hits_;  ///< self pairs with a mesh: last nearest triangles
  std::vector<int> candidates_;
  /// closest(): a pair with a link mesh, waiting with its hulls' signed distance as a bound.
  struct DeferredPair {
    double bound;
    int a, b;        ///< robot shape; obstacle (or second shape)
    int self_index;  ///< index into self_pairs(), -1 for a robot-obstacle pair
  };
  std::vector<DeferredPair> deferred_;
  /// in_collision calls left that skip the robot-box query: it found too many obstacles
  /// last time (a dense cell, where each shape's own tree walk is cheaper).
  int skip_robot_box_query_ = 0;
};

}  // namespace gjk::robots
