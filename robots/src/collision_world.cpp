// The collision service (issue 17 items 5, 7, 8): the pair lists the allowed-collision matrix
// leaves, a broadphase over the obstacles, and the per-configuration queries. The path of a
// query: configuration -> link poses -> robot shapes' boxes -> candidate obstacles from the tree
// (ACM-filtered) -> narrow phase (convex: GJK with warm starts; mesh / cells: their BVH descent)
// with the best distance so far as the pruning bound.
#include "gjk/robots/collision_world.hpp"

#include "gjk/robots/obstacle_queries.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <iterator>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gjk::robots {
namespace {

/// 0, 1, ..., count - 1: every shape kept where it was.
std::vector<int> identity_sources(size_t count) {
  std::vector<int> sources(count);
  std::iota(sources.begin(), sources.end(), 0);
  return sources;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

/// World box of an obstacle: the engine's tight box for convex shapes, the transformed local
/// box of a mesh or cell set.
Aabb obstacle_box(const Obstacle& o) {
  if (o.kind() == ObstacleKind::Convex) return bounding_box(o.shape, o.pose);
  const Eigen::AlignedBox3d local =
      o.kind() == ObstacleKind::Mesh ? o.mesh->local_bounds() : o.cells->local_bounds();
  Aabb box;
  box.setEmpty();
  for (int corner = 0; corner < 8; ++corner)
    box.extend(o.pose * local.corner(static_cast<Eigen::AlignedBox3d::CornerType>(corner)));
  return box;
}

/// Whether an obstacle is convex with a shape that passes the engine's input checks (which
/// scan a hull's vertices: done once per obstacle, not per move).
bool obstacle_shape_ok(const Obstacle& o) {
  return o.kind() == ObstacleKind::Convex && prechecked::shape_ok(o.shape);
}

/// A fresh value for CollisionWorld::layout_stamp(): distinct across every world of the
/// process, so a context can never mistake another world's layout for its own.
std::uint64_t next_layout_stamp() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

/// The first of `count` new robot shape ids, unique in the process.
std::uint64_t next_shape_ids(size_t count) {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(count);
}

/// A pair's answer as closest() and distances() report it (the gradient is added apart).
void set_pair(ClosestPair& p, const SignedDistanceResult& r, int shape, int other, bool self) {
  p.self = self;
  p.pair.shape = shape;
  p.pair.obstacle = other;
  p.pair.distance = r.signed_distance;
  p.pair.point_on_link = r.point_on_a;
  p.pair.point_on_obstacle = r.point_on_b;
  p.pair.normal = r.normal;
  p.pair.status = r.status;
}

/// A lower bound on the signed distance between anything inside `a` and anything inside `b`:
/// the gap between the boxes, or, when they overlap, minus the shortest axis-aligned move that
/// separates the boxes (it separates the bodies inside too, so no penetration depth is larger).
double signed_box_bound(const Aabb& a, const Aabb& b) {
  const double gap = gjk::distance(a, b);
  if (gap > 0.0) return gap;
  // Along each axis, move a up past b's top or down past b's bottom, whichever is shorter.
  const Vec3 up = b.max() - a.min(), down = a.max() - b.min();
  return -up.cwiseMin(down).minCoeff();
}

/// A convex pair's signed distance: without the engine's per-call input checks when both sides
/// passed them once (`prechecked`: see WorldContext::prechecked_pose), else the checked query.
SignedDistanceResult convex_signed_distance(const Shape& a, const Pose& pa, const Shape& b,
                                            const Pose& pb, bool prechecked,
                                            const QueryOptions& query, WarmStart* warm) {
  if (prechecked) return gjk::prechecked::signed_distance(a, pa, b, pb, query, warm);
  return warm != nullptr ? gjk::signed_distance(a, pa, b, pb, query, *warm)
                         : gjk::signed_distance(a, pa, b, pb, query);
}

/// The same for the threshold query.
ThresholdResult convex_closer_than(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                   double threshold, bool prechecked, const QueryOptions& query,
                                   WarmStart* warm) {
  if (prechecked) return gjk::prechecked::closer_than(a, pa, b, pb, threshold, query, warm);
  return warm != nullptr ? gjk::closer_than(a, pa, b, pb, threshold, query, *warm)
                         : gjk::closer_than(a, pa, b, pb, threshold, query);
}

/// Most obstacles near the robot's box for which in_collision tests each shape against their
/// boxes instead of walking the tree once per shape. Counted with callgrind on the benchmark's
/// scenes (docs/benchmarks.md, issue 18): with 0-2 obstacles near the arm the tests are 2-6x
/// cheaper than the walks; with 3-5 in a tree of 100 boxes, whose small inner boxes end most
/// walks near the root, they cost more.
constexpr size_t kNearObstaclesMax = 2;
/// in_collision calls that walk the tree per shape without trying the robot's box first, after
/// that found more obstacles (the robot moves little between calls).
constexpr int kRobotBoxRetryCalls = 16;

Aabb grown(Aabb box, double margin) {
  if (margin > 0.0) {
    box.min().array() -= margin;
    box.max().array() += margin;
  }
  return box;
}

}  // namespace

CollisionWorld::CollisionWorld(RobotModel robot) : CollisionWorld(std::move(robot), Scene{}) {}

CollisionWorld::CollisionWorld(RobotModel robot, Scene scene)
    : robot_(std::move(robot)), scene_(std::move(scene)) {
  allowed_ = AllowedCollisionMatrix::from_adjacency(robot_);
  rebuild();
}

CollisionWorld::CollisionWorld(RobotModel robot, Scene scene, AllowedCollisionMatrix allowed)
    : robot_(std::move(robot)), scene_(std::move(scene)), allowed_(std::move(allowed)) {
  rebuild();
}

void CollisionWorld::set_base_pose(const Pose& pose) {
  robot_.set_base_pose(pose);
  model_.set_base_pose(pose);  // the pair lists and the obstacle tree do not depend on it
}

void CollisionWorld::set_allowed_collisions(AllowedCollisionMatrix allowed) {
  // Only the verdicts change: the robot's shapes, the obstacles' boxes and names and the tree
  // stay (a rebuild recomputed them all: 9 ms among 10,000 boxes).
  std::swap(allowed_, allowed);
  try {
    refresh_robot_shapes(identity_sources(shape_count_), true);
  } catch (...) {
    std::swap(allowed_, allowed);
    throw;
  }
}

namespace {

/// Room for `extra` more elements, growing geometrically (a plain reserve(size + 1) per add
/// would copy the whole vector every time).
template <class T>
void reserve_more(std::vector<T>& v, size_t extra) {
  if (v.capacity() - v.size() < extra) v.reserve(std::max(v.size() + extra, 2 * v.capacity()));
}

}  // namespace

void CollisionWorld::add_obstacle(Obstacle obstacle) {
  if (obstacle.object.empty()) obstacle.object = obstacle.name;
  check_new_obstacle(obstacle, "add_obstacle", true);
  add_obstacle_in_place(std::move(obstacle));
}

void CollisionWorld::check_new_obstacle(const Obstacle& obstacle, const char* edit,
                                        bool refuse_attached_object) const {
  if (name_in_use(obstacle.name))
    throw std::invalid_argument(std::string(edit) + ": the name '" + obstacle.name +
                                "' is already used");
  if (refuse_attached_object)
    for (const AttachedObject& a : scene_.attached)
      if (a.name == obstacle.object)
        throw std::invalid_argument(std::string(edit) + ": '" + obstacle.object +
                                    "' is the name of an attached object");
  if (!obstacle.pose.matrix().allFinite())
    throw std::invalid_argument(std::string(edit) + ": the pose of '" + obstacle.name +
                                "' is not finite");
}

void CollisionWorld::add_obstacle_in_place(Obstacle obstacle) {
  // In place: the new obstacle's row of checked pairs, box, leaf and names. The other pairs,
  // the robot model and the other leaves do not depend on it (a rebuild re-ran the matrix over
  // every pair and rebuilt the whole tree), and its index is new, so no context's warm start
  // is keyed by it.
  // Room first, for every container the add grows: after it only the box and the matrix row
  // can throw, and append_obstacle_rows takes them back, so a failed add (out of memory)
  // leaves the world as it was.
  const size_t index = scene_.obstacles.size();
  reserve_more(scene_.obstacles, 1);
  reserve_more(obstacle_row_, 1);
  const bool mentioned = allowed_.mentions(obstacle.object);
  if (mentioned) {
    reserve_more(mentioned_checked_, shape_count_);
    reserve_more(mentioned_row_obstacle_, 1);
  }
  reserve_more(obstacle_shape_ok_, 1);
  reserve_more(obstacle_prechecked_, 1);
  reserve_more(obstacle_boxes_, 1);
  reserve_more(obstacle_leaf_, 1);
  reserve_more(obstacle_name_hashes_, 1);
  obstacle_names_.reserve(obstacle_names_.size() + 2);
  tree_.reserve(1);
  append_obstacle_rows(obstacle, index, mentioned);
  scene_.obstacles.push_back(std::move(obstacle));
  index_name(index);
  obstacle_leaf_.push_back(tree_.insert(obstacle_boxes_.back(), static_cast<int>(index)));
  keep_tree_shallow();
}

void CollisionWorld::append_obstacle_rows(const Obstacle& obstacle, size_t index, bool mentioned) {
  const Aabb box = obstacle_box(obstacle);  // first: it throws on a bad shape
  if (mentioned) {
    append_mentioned_row(obstacle, shape_count_, mentioned_checked_);
    obstacle_row_.push_back(static_cast<int>(mentioned_row_obstacle_.size()));
    mentioned_row_obstacle_.push_back(static_cast<int>(index));
  } else {  // the usual case: a name the matrix does not know, so each shape's default
    obstacle_row_.push_back(-1);
  }
  append_obstacle_checks(obstacle, box);
}

void CollisionWorld::append_obstacle_checks(const Obstacle& obstacle, const Aabb& box) {
  obstacle_shape_ok_.push_back(obstacle_shape_ok(obstacle) ? 1 : 0);
  obstacle_prechecked_.push_back(obstacle_shape_ok_.back() && prechecked::pose_ok(obstacle.pose));
  obstacle_boxes_.push_back(box);
}

void CollisionWorld::append_mentioned_row(const Obstacle& obstacle, size_t shapes,
                                          std::vector<std::uint8_t>& rows) const {
  // The matrix's lookups build keys, so they can run out of memory half way through the row:
  // the row is taken back then.
  const size_t row_start = rows.size();
  try {
    for (size_t s = 0; s < shapes; ++s) rows.push_back(obstacle_pair_checked(s, obstacle.object));
  } catch (...) {
    rows.resize(row_start);
    throw;
  }
}

void CollisionWorld::drop_mentioned_row(size_t hole) {
  const int row = obstacle_row_[hole];
  if (row < 0) return;
  const size_t last_row = mentioned_row_obstacle_.size() - 1, r = static_cast<size_t>(row);
  if (r != last_row) {
    std::copy_n(mentioned_checked_.begin() + static_cast<std::ptrdiff_t>(last_row * shape_count_),
                shape_count_,
                mentioned_checked_.begin() + static_cast<std::ptrdiff_t>(r * shape_count_));
    const int moved = mentioned_row_obstacle_[last_row];
    mentioned_row_obstacle_[r] = moved;
    obstacle_row_[static_cast<size_t>(moved)] = row;
  }
  mentioned_row_obstacle_.pop_back();
  mentioned_checked_.resize(last_row * shape_count_);
  obstacle_row_[hole] = -1;
}

void CollisionWorld::remove_obstacle(const std::string& name) {
  std::vector<int>& gone = removal_scratch_;  // kept: a removal allocates nothing
  gone.clear();
  obstacle_names_.for_each(NameIndex::hash_of(name), named_by(name),
                           [&](int i) { gone.push_back(i); });
  if (gone.empty())
    throw std::invalid_argument("remove_obstacle: no obstacle named '" + name + "'");
  // Highest index first, each replaced by the last obstacle: O(shapes) per removal whatever N
  // (keeping the order moved every later obstacle, and re-keyed their names, tree ids and rows:
  // 190 us among 10,000 boxes), and any later index to remove is gone before it could move.
  std::sort(gone.rbegin(), gone.rend());
  for (const int index : gone) remove_obstacle_at(static_cast<size_t>(index));
}

void CollisionWorld::remove_obstacle_at(size_t hole) {
  const auto index = static_cast<int>(hole);
  unindex_name(hole);
  tree_.remove(obstacle_leaf_[hole]);
  drop_mentioned_row(hole);
  const size_t last = scene_.obstacles.size() - 1;
  if (hole != last) {
    relabel_name(last, hole);
    scene_.obstacles[hole] = std::move(scene_.obstacles[last]);
    obstacle_boxes_[hole] = obstacle_boxes_[last];
    obstacle_leaf_[hole] = obstacle_leaf_[last];
    obstacle_prechecked_[hole] = obstacle_prechecked_[last];
    obstacle_shape_ok_[hole] = obstacle_shape_ok_[last];
    obstacle_row_[hole] = obstacle_row_[last];
    if (obstacle_row_[hole] >= 0)
      mentioned_row_obstacle_[static_cast<size_t>(obstacle_row_[hole])] = index;
    tree_.relabel(obstacle_leaf_[hole], index);
  }
  scene_.obstacles.pop_back();
  obstacle_boxes_.pop_back();
  obstacle_leaf_.pop_back();
  obstacle_prechecked_.pop_back();
  obstacle_shape_ok_.pop_back();
  obstacle_row_.pop_back();
  obstacle_name_hashes_.pop_back();
  renumbered_[renumber_count_ % renumbered_.size()] = {static_cast<int>(last), index};
  ++renumber_count_;
}

void CollisionWorld::move_obstacle(const std::string& name, const Pose& pose) {
  if (!pose.matrix().allFinite())
    throw std::invalid_argument("move_obstacle: the pose for '" + name + "' is not finite");
  // Only the moved obstacles' boxes and flags change: the pair lists depend on names, not
  // poses (a full rebuild copied the robot model and re-ran the matrix over every pair, and it
  // retired every context's warm starts).
  bool found = false;
  obstacle_names_.for_each(NameIndex::hash_of(name), named_by(name), [&](int index) {
    found = true;
    const auto o = static_cast<size_t>(index);
    Obstacle& obstacle = scene_.obstacles[o];
    obstacle.pose = pose;
    obstacle_boxes_[o] = obstacle_box(obstacle);
    obstacle_leaf_[o] = tree_.move(obstacle_leaf_[o], obstacle_boxes_[o]);
    obstacle_prechecked_[o] = obstacle_shape_ok_[o] && prechecked::pose_ok(pose);
    keep_tree_shallow();
  });
  if (!found) throw std::invalid_argument("move_obstacle: no obstacle named '" + name + "'");
}

void CollisionWorld::attach(AttachedObject object) {
  bool taken = false;
  obstacle_names_.for_each(NameIndex::hash_of(object.name), named_by(object.name), [&](int i) {
    taken |= obstacles()[static_cast<size_t>(i)].object == object.name;
  });
  if (taken)
    throw ModelError("attached object '" + object.name + "': the name is used by an obstacle");
  attach_in_place(std::move(object));
}

void CollisionWorld::attach_in_place(AttachedObject object) {
  // In place: the object's shapes are appended to the model, the new shapes' pairs looked up;
  // the other verdicts, the obstacles' boxes and names and the tree stay (a rebuild copied the
  // robot model and recomputed them all: 117 us among 4 boxes, 9 ms among 10,000).
  reserve_more(scene_.attached, 1);
  const size_t old_count = shape_count_;
  std::vector<int> sources = identity_sources(old_count);
  sources.resize(old_count + object.shapes.size(), -1);
  model_.attach(object);  // its checks; a throw changes nothing
  try {
    refresh_robot_shapes(sources, false);
  } catch (...) {
    model_.detach(object.name);
    throw;
  }
  scene_.attached.push_back(std::move(object));
}

void CollisionWorld::attach_obstacle(const std::string& name, const std::string& link,
                                     const Eigen::VectorXd& q,
                                     std::vector<std::string> touch_links) {
  Workspace ws(robot_);
  forward_kinematics(robot_, q, ws);
  const Pose link_pose = ws.link_poses[static_cast<size_t>(robot_.link_index(link))];
  AttachedObject object;
  object.name = name;
  object.link = link;
  object.touch_links = std::move(touch_links);
  // The pieces in index order (the order of obstacles() a rebuild kept), found by name.
  std::vector<int> pieces;
  obstacle_names_.for_each(NameIndex::hash_of(name), named_by(name),
                           [&](int i) { pieces.push_back(i); });
  std::sort(pieces.begin(), pieces.end());
  for (const int i : pieces) {
    const Obstacle& o = scene_.obstacles[static_cast<size_t>(i)];
    if (o.kind() == ObstacleKind::Cells)
      throw std::invalid_argument("attach_obstacle: '" + o.name +
                                  "' is an occupancy map or a point cloud; convex obstacles, "
                                  "convex pieces and exact meshes can be attached");
    if (o.kind() == ObstacleKind::Mesh)
      object.add_mesh(o.mesh, link_pose.inverse() * o.pose);
    else
      object.add_shape(o.shape, link_pose.inverse() * o.pose);
  }
  if (object.shapes.empty())
    throw std::invalid_argument("attach_obstacle: no obstacle named '" + name + "'");
  // The obstacles go after the object is on the robot: a refused attachment changes nothing,
  // and the removal, with room for its indices, cannot fail.
  removal_scratch_.reserve(pieces.size());
  attach_in_place(std::move(object));
  remove_obstacle(name);
}

void CollisionWorld::detach(const std::string& name, const Eigen::VectorXd& q) {
  const auto it = std::find_if(scene_.attached.begin(), scene_.attached.end(),
                               [&](const AttachedObject& a) { return a.name == name; });
  if (it == scene_.attached.end())
    throw std::invalid_argument("detach: no attached object named '" + name + "'");
  Workspace ws(robot_);
  forward_kinematics(robot_, q, ws);
  const Pose link_pose = ws.link_poses[static_cast<size_t>(robot_.link_index(it->link))];
  std::vector<Obstacle> pieces;
  for (size_t k = 0; k < it->shapes.size(); ++k) {
    Obstacle o;
    o.name = it->shapes.size() == 1 ? name : name + "#" + std::to_string(k);
    o.object = name;
    if (it->is_mesh(k))
      o.mesh = it->meshes[k];  // back to an exact mesh obstacle (its shape is unused)
    else
      o.shape = it->shapes[k];
    o.pose = link_pose * it->poses[k];
    check_new_obstacle(o, "detach", false);  // its object is the one detached
    pieces.push_back(std::move(o));
  }
  // In place, as attach: the pieces are added as obstacles, then the object's shapes leave the
  // model (the others keep their order and their verdicts). Each step either completes or
  // changes nothing, and the pieces are taken back (the last indices: no other obstacle moves)
  // if a later one fails, so a failed detach (out of memory) leaves the world as it was.
  std::vector<int> sources;
  const auto& shapes = model_.collision_shapes();
  for (size_t s = 0; s < shapes.size(); ++s)
    if (shapes[s].attached_object != name) sources.push_back(static_cast<int>(s));
  const size_t first_piece = scene_.obstacles.size();
  try {
    for (Obstacle& o : pieces) add_obstacle_in_place(std::move(o));
    refresh_robot_shapes(sources, false);  // reads no new shape: before the model changes
  } catch (...) {
    while (scene_.obstacles.size() > first_piece) remove_obstacle_at(scene_.obstacles.size() - 1);
    throw;
  }
  model_.detach(name);
  scene_.attached.erase(it);
}

const std::string& CollisionWorld::part_name(int shape) const {
  const CollisionShape& c = model_.collision_shapes()[static_cast<size_t>(shape)];
  return c.attached_object.empty() ? model_.links()[static_cast<size_t>(c.link)].name
                                   : c.attached_object;
}

void CollisionWorld::rebuild() {
  model_ = robot_.with_attached(scene_.attached);
  obstacle_names_.clear();
  obstacle_name_hashes_.clear();
  for (size_t i = 0; i < scene_.obstacles.size(); ++i) {
    Obstacle& o = scene_.obstacles[i];
    if (o.object.empty()) o.object = o.name;  // a convex obstacle made in code is its own object
    if (name_in_use(o.name))                  // among the obstacles indexed so far
      throw std::invalid_argument("obstacle name '" + o.name + "' is used twice");
    index_name(i);
  }
  obstacle_shape_ok_.clear();
  obstacle_prechecked_.clear();
  obstacle_boxes_.clear();
  for (const Obstacle& o : scene_.obstacles) append_obstacle_checks(o, obstacle_box(o));
  shape_count_ = 0;
  obstacle_row_.clear();
  mentioned_checked_.clear();
  mentioned_row_obstacle_.clear();
  refresh_robot_shapes(std::vector<int>(model_.collision_shapes().size(), -1), true);
  build_tree();
}

std::uint8_t CollisionWorld::obstacle_pair_checked(size_t shape, const std::string& object) const {
  return allowed_.allowed(part_name(static_cast<int>(shape)), object) ? 0 : 1;
}

bool CollisionWorld::self_pair_checked(size_t i, size_t k) const {
  // Two shapes on different links (or a held object and a link) that the matrix does not
  // allow; a held object never collides with its own link or its touch links.
  const auto& shapes = model_.collision_shapes();
  const CollisionShape &a = shapes[i], &b = shapes[k];
  const bool object_a = !a.attached_object.empty(), object_b = !b.attached_object.empty();
  if (!object_a && !object_b && a.link == b.link) return false;
  if (object_a && object_b && a.attached_object == b.attached_object) return false;
  const auto touches = [](const CollisionShape& object, int link) {
    return link == object.link || std::find(object.touch_links.begin(), object.touch_links.end(),
                                            link) != object.touch_links.end();
  };
  if (object_a != object_b && (object_a ? touches(a, b.link) : touches(b, a.link))) return false;
  return !allowed_.allowed(part_name(static_cast<int>(i)), part_name(static_cast<int>(k)));
}

void CollisionWorld::refresh_robot_shapes(const std::vector<int>& sources, bool matrix_changed) {
  const size_t old_count = shape_count_, count = sources.size();
  const auto& shapes = model_.collision_shapes();
  // Everything is computed aside and swapped in at the end: a throw (the matrix's lookups can
  // run out of memory) leaves the world as it was.
  std::vector<Vec3> centres(count), halves(count);
  std::vector<std::uint8_t> prechecked(count), unmentioned(count);
  std::vector<int> renumbered(old_count, -1);  // old shape index -> new, -1 when gone
  std::vector<std::uint64_t> ids(count);
  const std::uint64_t first_id = next_shape_ids(count);
  for (size_t s = 0; s < count; ++s) {
    const int from = sources[s];
    ids[s] = from >= 0 ? shape_ids_[static_cast<size_t>(from)] : first_id + s;
    if (from >= 0) {
      const auto f = static_cast<size_t>(from);
      renumbered[f] = static_cast<int>(s);
      centres[s] = shape_local_centres_[f];
      halves[s] = shape_local_halves_[f];
      prechecked[s] = shape_prechecked_[f];
    } else {
      const Aabb local = bounding_box(shapes[s].shape, Pose::Identity());
      centres[s] = local.center();
      halves[s] = 0.5 * local.sizes();
      prechecked[s] = prechecked::shape_ok(shapes[s].shape) ? 1 : 0;
    }
    unmentioned[s] = from >= 0 && !matrix_changed
                         ? unmentioned_checked_[static_cast<size_t>(from)]
                         : (allowed_.allowed_by_default(part_name(static_cast<int>(s))) ? 0 : 1);
  }
  // A verdict is kept when both shapes (or the shape) were there and the matrix is the same:
  // it depends on names, links and touch links only.
  const auto kept = [&](size_t s) { return sources[s] >= 0 && !matrix_changed; };
  std::vector<std::pair<int, int>> pairs;
  if (!matrix_changed)
    for (const auto& [i, k] : self_pairs_) {
      const int a = renumbered[static_cast<size_t>(i)], b = renumbered[static_cast<size_t>(k)];
      if (a >= 0 && b >= 0) pairs.emplace_back(a, b);
    }
  for (size_t k = 0; k < count; ++k)
    for (size_t i = 0; i < k; ++i)
      if (!(kept(i) && kept(k)) && self_pair_checked(i, k))
        pairs.emplace_back(static_cast<int>(i), static_cast<int>(k));
  std::sort(pairs.begin(), pairs.end());  // the order a full rebuild lists them in
  // The rows of checked pairs of the obstacles the matrix names, each `count` long: kept
  // entries copied (the leading run of unmoved shapes as one block), new shapes' looked up. The
  // other obstacles share unmentioned_checked_, so a grasp costs nothing per obstacle.
  std::vector<std::uint8_t> rows;
  std::vector<int> obstacle_row, row_obstacle;
  if (matrix_changed) {
    obstacle_row.assign(scene_.obstacles.size(), -1);
    for (size_t o = 0; o < scene_.obstacles.size(); ++o) {
      if (!allowed_.mentions(scene_.obstacles[o].object)) continue;
      append_mentioned_row(scene_.obstacles[o], count, rows);
      obstacle_row[o] = static_cast<int>(row_obstacle.size());
      row_obstacle.push_back(static_cast<int>(o));
    }
  } else {
    size_t unmoved = 0;
    while (unmoved < count && sources[unmoved] == static_cast<int>(unmoved)) ++unmoved;
    rows.resize(mentioned_row_obstacle_.size() * count);
    for (size_t r = 0; r < mentioned_row_obstacle_.size(); ++r) {
      const std::uint8_t* from_row = mentioned_checked_.data() + r * old_count;
      std::uint8_t* row = rows.data() + r * count;
      const std::string& object =
          scene_.obstacles[static_cast<size_t>(mentioned_row_obstacle_[r])].object;
      std::copy_n(from_row, unmoved, row);
      for (size_t s = unmoved; s < count; ++s) {
        const int from = sources[s];
        row[s] = from >= 0 ? from_row[from] : obstacle_pair_checked(s, object);
      }
    }
  }
  shape_local_centres_.swap(centres);
  shape_local_halves_.swap(halves);
  shape_prechecked_.swap(prechecked);
  unmentioned_checked_.swap(unmentioned);
  self_pairs_.swap(pairs);
  mentioned_checked_.swap(rows);
  if (matrix_changed) {
    obstacle_row_.swap(obstacle_row);
    mentioned_row_obstacle_.swap(row_obstacle);
  }
  shape_ids_.swap(ids);
  shape_count_ = count;
  layout_stamp_ = next_layout_stamp();
}

void CollisionWorld::build_tree() {
  std::vector<std::pair<Aabb, int>> boxes;
  boxes.reserve(obstacle_boxes_.size());
  for (size_t o = 0; o < obstacle_boxes_.size(); ++o)
    boxes.emplace_back(obstacle_boxes_[o], static_cast<int>(o));
  tree_.build(boxes);  // balanced at once: queries are many
  obstacle_leaf_.assign(obstacle_boxes_.size(), -1);
  tree_.for_each_leaf([&](int id, int leaf) { obstacle_leaf_[static_cast<size_t>(id)] = leaf; });
}

void CollisionWorld::keep_tree_shallow() {
  // A balanced tree of N leaves is ceil(log2 N) deep; rebuild at twice that plus a margin, so a
  // rebuild (O(N log N)) is paid once per many insertions.
  int balanced = 1;
  while ((1 << balanced) < tree_.size()) ++balanced;
  if (tree_.height() <= 2 * balanced + 8) return;
  try {
    build_tree();
  } catch (const std::bad_alloc&) {
    // The edit that called this is complete and the tree valid, only deeper: a rebuild that
    // finds no memory waits for the next edit (build_tree changes nothing when it throws).
  }
}

void CollisionWorld::index_name(size_t i) {
  const Obstacle& o = scene_.obstacles[i];
  const std::uint32_t name_hash = NameIndex::hash_of(o.name);
  const std::uint32_t object_hash = o.object == o.name ? name_hash : NameIndex::hash_of(o.object);
  // One entry per distinct hash: an object name that shares the name's hash is found through
  // the same entry (named_by checks both), and a lookup never meets the obstacle twice.
  const NameHashes hashes{name_hash, object_hash, object_hash == name_hash};
  obstacle_names_.insert(hashes.name, static_cast<int>(i));
  if (!hashes.one_entry) obstacle_names_.insert(hashes.object, static_cast<int>(i));
  obstacle_name_hashes_.push_back(hashes);
}

bool CollisionWorld::name_in_use(const std::string& name) const {
  bool used = false;
  obstacle_names_.for_each(
      NameIndex::hash_of(name),
      [&](int i) { return scene_.obstacles[static_cast<size_t>(i)].name == name; },
      [&](int) { used = true; });
  return used;
}

void CollisionWorld::unindex_name(size_t i) {
  const NameHashes& hashes = obstacle_name_hashes_[i];
  obstacle_names_.erase(hashes.name, static_cast<int>(i));
  if (!hashes.one_entry) obstacle_names_.erase(hashes.object, static_cast<int>(i));
}

void CollisionWorld::relabel_name(size_t from, size_t to) {
  const NameHashes& hashes = obstacle_name_hashes_[from];
  obstacle_names_.relabel(hashes.name, static_cast<int>(from), static_cast<int>(to));
  if (!hashes.one_entry)
    obstacle_names_.relabel(hashes.object, static_cast<int>(from), static_cast<int>(to));
  obstacle_name_hashes_[to] = hashes;
}

// ---------------------------------------------------------------------------------------------

WorldContext::WorldContext(const CollisionWorld& world)
    : world_(&world),
      layout_stamp_(world.layout_stamp()),
      shape_ids_(world.shape_ids_),
      self_pairs_(world.self_pairs()),
      renumbered_seen_(world.renumber_count_),
      ws_(world.model()),
      poses_(world.model().collision_shapes().size(), Pose::Identity()),
      boxes_(world.model().collision_shapes().size()),
      loose_boxes_(world.model().collision_shapes().size()),
      tight_shape_(world.model().collision_shapes().size(), 0),
      box_hints_(world.model().collision_shapes().size(), kNoBoxHints),
      self_caches_(world.self_pairs().size()),
      self_hits_(world.self_pairs().size()) {
  // The table starts small and grows with the pairs actually queried: a robot among 10,000
  // obstacles meets a few hundred of its 170,000 pairs, and a table sized for all of them made
  // a new context cost 1.4 ms.
  const size_t slots = std::min(max_warm_slots(), kFirstWarmSlots);
  obstacle_warm_.resize(slots);
  obstacle_warm_owner_.assign(slots, 0);
  pose_prechecked_.assign(world.model().collision_shapes().size(), kUnchecked);
  obstacle_hits_.resize(slots);
}

namespace {

/// The slot of pair `key` in a table of `slots` (a power of two): one slot per pair when they
/// fit, otherwise Fibonacci hashing spreads neighbouring pairs.
size_t warm_slot(std::uint64_t key, size_t slots) {
  return key < slots ? static_cast<size_t>(key)
                     : static_cast<size_t>((key * 11400714819323198485ull) >> 16) & (slots - 1);
}

}  // namespace

size_t WorldContext::max_warm_slots() const {
  const size_t pairs = poses_.size() * world_->obstacles().size();
  size_t slots = 1;
  while (slots < pairs && slots < kMaxWarmSlots) slots *= 2;
  return slots;
}

void WorldContext::grow_warm_table() {
  const size_t slots = std::min(max_warm_slots(), 4 * obstacle_warm_.size());
  std::vector<WarmStart> warm(slots);
  std::vector<MeshPairHit> hits(slots);
  std::vector<std::uint64_t> owner(slots, 0);
  warm_slots_used_ = 0;
  for (size_t old = 0; old < obstacle_warm_.size(); ++old) {
    if (obstacle_warm_owner_[old] == 0) continue;
    const size_t slot = warm_slot(obstacle_warm_owner_[old] - 1, slots);
    if (owner[slot] != 0) continue;  // two pairs on one slot: the first keeps it
    owner[slot] = obstacle_warm_owner_[old];
    warm[slot] = std::move(obstacle_warm_[old]);
    hits[slot] = obstacle_hits_[old];
    ++warm_slots_used_;
  }
  obstacle_warm_ = std::move(warm);
  obstacle_hits_ = std::move(hits);
  obstacle_warm_owner_ = std::move(owner);
}

void WorldContext::check_layout(bool place) {
  // Removals first: the warm starts' keys still have the old shape count as their stride.
  if (world_->renumber_count_ != renumbered_seen_) forget_renumbered();
  if (world_->layout_stamp() != layout_stamp_) follow_layout(place);
}

void WorldContext::follow_world() {
  check_layout();
}

void WorldContext::follow_layout(bool place) {
  // Robot-side edits keep the links; only a world assigned over this one changes them.
  if (ws_.link_poses.size() != world_->model().links().size())
    throw std::logic_error(
        "WorldContext: the world's robot was replaced after this context was made; make a new "
        "WorldContext");
  const std::vector<std::uint64_t>& ids = world_->shape_ids_;
  const size_t count = ids.size(), old_count = shape_ids_.size();
  // Old shape index -> new, -1 when gone (the world keeps each shape's id through its edits).
  std::vector<int> renumbered(old_count, -1);
  {
    std::vector<std::pair<std::uint64_t, int>> by_id;
    by_id.reserve(count);
    for (size_t s = 0; s < count; ++s) by_id.emplace_back(ids[s], static_cast<int>(s));
    std::sort(by_id.begin(), by_id.end());
    for (size_t s = 0; s < old_count; ++s) {
      const auto it =
          std::lower_bound(by_id.begin(), by_id.end(),
                           std::make_pair(shape_ids_[s], std::numeric_limits<int>::min()));
      if (it != by_id.end() && it->first == shape_ids_[s]) renumbered[s] = it->second;
    }
  }
  std::vector<std::array<int, 6>> hints(count, kNoBoxHints);
  for (size_t s = 0; s < old_count; ++s)
    if (renumbered[s] >= 0) hints[static_cast<size_t>(renumbered[s])] = box_hints_[s];
  // Self pairs' warm starts: a pair of kept shapes in the same order keeps its own.
  const std::vector<std::pair<int, int>>& pairs = world_->self_pairs();
  std::vector<int> self_from(pairs.size(), -1);  // new self pair -> old, -1 when new
  {
    std::vector<std::pair<std::pair<int, int>, int>> old_pairs;  // as renumbered, sorted
    old_pairs.reserve(self_pairs_.size());
    for (size_t p = 0; p < self_pairs_.size(); ++p) {
      const int a = renumbered[static_cast<size_t>(self_pairs_[p].first)],
                b = renumbered[static_cast<size_t>(self_pairs_[p].second)];
      if (a >= 0 && b >= 0) old_pairs.push_back({{a, b}, static_cast<int>(p)});
    }
    std::sort(old_pairs.begin(), old_pairs.end());
    for (size_t p = 0; p < pairs.size(); ++p) {
      const auto it = std::lower_bound(old_pairs.begin(), old_pairs.end(),
                                       std::make_pair(pairs[p], std::numeric_limits<int>::min()));
      if (it != old_pairs.end() && it->first == pairs[p]) self_from[p] = it->second;
    }
  }
  std::vector<WarmStart> self_caches(pairs.size());
  std::vector<MeshPairHit> self_hits(pairs.size());
  // The obstacle pairs' table is keyed obstacle * shape count + shape: the pairs it holds are
  // re-keyed for the new count in place (one scan of the owners; no new table, whose WarmStarts
  // cost more than the whole grasp).
  std::vector<std::pair<std::uint64_t, size_t>> rekeyed;  // (new key, slot)
  rekeyed.reserve(warm_slots_used_);
  for (size_t slot = 0; slot < obstacle_warm_.size() && old_count > 0; ++slot) {
    if (obstacle_warm_owner_[slot] == 0) continue;
    const std::uint64_t key = obstacle_warm_owner_[slot] - 1;
    const int shape = renumbered[static_cast<size_t>(key % old_count)];
    if (shape >= 0)
      rekeyed.emplace_back(key / old_count * count + static_cast<std::uint64_t>(shape), slot);
  }
  std::vector<WarmStart> carried(rekeyed.size());
  std::vector<MeshPairHit> carried_hits(rekeyed.size());
  std::vector<Pose> poses(count, Pose::Identity());
  std::vector<Aabb> boxes(count), loose(count);
  std::vector<std::uint8_t> tight(count, 0), prechecked(count, kUnchecked);
  std::vector<std::uint64_t> shape_ids = ids;
  std::vector<std::pair<int, int>> self_pairs = pairs;
  // Nothing above changed the context; nothing below allocates or throws.
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (self_from[p] < 0) continue;
    self_caches[p] = std::move(self_caches_[static_cast<size_t>(self_from[p])]);
    self_hits[p] = self_hits_[static_cast<size_t>(self_from[p])];
  }
  for (size_t k = 0; k < rekeyed.size(); ++k) {
    carried[k] = std::move(obstacle_warm_[rekeyed[k].second]);
    carried_hits[k] = obstacle_hits_[rekeyed[k].second];
  }
  std::fill(obstacle_warm_owner_.begin(), obstacle_warm_owner_.end(), std::uint64_t{0});
  warm_slots_used_ = 0;
  for (size_t k = 0; k < rekeyed.size(); ++k) {
    const size_t slot = warm_slot(rekeyed[k].first, obstacle_warm_.size());
    if (obstacle_warm_owner_[slot] != 0) continue;  // two pairs on one slot: the first keeps it
    obstacle_warm_owner_[slot] = rekeyed[k].first + 1;
    obstacle_warm_[slot] = std::move(carried[k]);
    obstacle_hits_[slot] = carried_hits[k];
    ++warm_slots_used_;
  }
  poses_.swap(poses);
  boxes_.swap(boxes);
  loose_boxes_.swap(loose);
  tight_shape_.swap(tight);
  pose_prechecked_.swap(prechecked);
  box_hints_.swap(hints);
  self_caches_.swap(self_caches);
  self_hits_.swap(self_hits);
  shape_ids_.swap(shape_ids);
  self_pairs_.swap(self_pairs);
  tight_ = false;
  layout_stamp_ = world_->layout_stamp();
  if (place) place_shapes();
}

void WorldContext::forget_renumbered() {
  // Removals moved obstacles to other indices, which key the warm starts: the removed
  // obstacle's and the moved one's pairs start cold (a stale warm start is only a worse start,
  // never a wrong answer). Further behind than the world's log, every pair starts cold.
  const auto& log = world_->renumbered_;
  if (world_->renumber_count_ - renumbered_seen_ > log.size()) {
    std::fill(obstacle_warm_owner_.begin(), obstacle_warm_owner_.end(), std::uint64_t{0});
    warm_slots_used_ = 0;
  } else {
    for (std::uint64_t k = renumbered_seen_; k < world_->renumber_count_; ++k) {
      const auto [from, to] = log[k % log.size()];
      for (size_t s = 0; s < poses_.size(); ++s) {
        for (const int o : {from, to}) {
          const std::uint64_t key = warm_key(static_cast<int>(s), o);
          const size_t slot = warm_slot(key, obstacle_warm_.size());
          if (obstacle_warm_owner_[slot] != key + 1) continue;
          obstacle_warm_owner_[slot] = 0;
          --warm_slots_used_;
        }
      }
    }
  }
  renumbered_seen_ = world_->renumber_count_;
}

size_t WorldContext::obstacle_slot(int shape, int obstacle) {
  const std::uint64_t key = warm_key(shape, obstacle);
  size_t slot = warm_slot(key, obstacle_warm_.size());
  if (obstacle_warm_owner_[slot] == key + 1) return slot;
  // A pair new to its slot. Below the cap the table grows rather than fill past half or evict
  // another pair's warm start; at the cap the newcomer takes the slot and starts cold.
  if ((obstacle_warm_owner_[slot] != 0 || 2 * (warm_slots_used_ + 1) > obstacle_warm_.size()) &&
      obstacle_warm_.size() < max_warm_slots()) {
    grow_warm_table();
    slot = warm_slot(key, obstacle_warm_.size());
  }
  if (obstacle_warm_owner_[slot] == 0) ++warm_slots_used_;
  obstacle_warm_owner_[slot] = key + 1;
  obstacle_warm_[slot].reset();
  obstacle_hits_[slot] = MeshPairHit{};
  return slot;
}

void WorldContext::update(const Eigen::VectorXd& q) {
  // After an edit the new layout's shapes are placed once, at q, not first at the last update's
  // link poses too. A rejected q leaves them at those, as a query without update() would.
  check_layout(/*place=*/false);
  try {
    forward_kinematics(world_->model(), q, ws_);
  } catch (...) {
    place_shapes();
    throw;
  }
  place_shapes();
}

void WorldContext::place_shapes() {
  const auto& shapes = world_->model().collision_shapes();
  for (size_t s = 0; s < poses_.size(); ++s) {
    const Pose& link = ws_.link_poses[static_cast<size_t>(shapes[s].link)];
    Pose& pose = poses_[s];
    if (shapes[s].origin_is_identity) {
      pose = link;  // most URDF collision elements sit at their link's frame
    } else {
      compose_poses(link, shapes[s].origin, pose);
    }
    // The shape's own box carried into the world: O(1), at most sqrt(3) times wider per axis
    // than the tight box; enough for validity, where the narrow phase decides anyway.
    Vec3 centre = pose.translation();
    centre.noalias() += pose.linear() * world_->shape_local_centres_[s];
    Vec3 half;
    half.noalias() = pose.linear().cwiseAbs() * world_->shape_local_halves_[s];
    loose_boxes_[s] = Aabb(centre - half, centre + half);
  }
  // The engine's input checks once per shape and configuration (when first needed) instead of
  // once per pair.
  std::fill(pose_prechecked_.begin(), pose_prechecked_.end(), std::uint8_t{kUnchecked});
  tight_ = false;
  std::fill(tight_shape_.begin(), tight_shape_.end(), std::uint8_t{0});
}

const Aabb& WorldContext::tight_box(size_t s) {
  if (!tight_shape_[s]) {
    boxes_[s] = bounding_box(world_->model().collision_shapes()[s].shape, poses_[s], box_hints_[s]);
    tight_shape_[s] = 1;
  }
  return boxes_[s];
}

void WorldContext::ensure_tight_boxes() {
  if (tight_) return;
  for (size_t s = 0; s < poses_.size(); ++s) (void)tight_box(s);
  tight_ = true;
}

const std::vector<Aabb>& WorldContext::shape_boxes() {
  check_layout();
  ensure_tight_boxes();
  return boxes_;
}

bool WorldContext::in_collision(double margin, const QueryOptions& query) {
  check_layout();
  // Loose boxes unless a distance query already made tight ones: validity needs no more.
  const std::vector<Aabb>& boxes = tight_ ? boxes_ : loose_boxes_;
  const auto& shapes = world_->model().collision_shapes();
  const auto& obstacles = world_->obstacles();
  const bool options_ok = prechecked::options_ok(query);
  bool found = false;
  // The narrow phase of shape s and obstacle o; true to go on.
  const auto free_pair = [&](size_t s, int o) {
    if (!world_->checked(static_cast<int>(s), o)) return true;
    WarmStart* warm = obstacle_warm_start(static_cast<int>(s), o);
    const auto uo = static_cast<size_t>(o);
    const Obstacle& obstacle = obstacles[uo];
    found = (convex_pair(shapes[s], obstacle)
                 ? convex_closer_than(shapes[s].shape, poses_[s], obstacle.shape, obstacle.pose,
                                      margin, options_ok && prechecked_pair(s, uo), query, warm)
                 : closer_than(shapes[s], poses_[s], obstacle, margin, query, warm))
                .closer;
    return !found;
  };
  // One tree query with the box around every shape first: when it finds few obstacles, each
  // shape tests only their boxes instead of walking the tree again. The same pairs in the same
  // order: a shape's box lies inside the robot's, and the tree visits leaves in the same order
  // (issue 18: with 10 random boxes around the Panda the 17 walks were 3/4 of this call, and
  // the robot's box meets 0 or 1 of them).
  std::array<int, kNearObstaclesMax> near{};
  size_t near_count = 0;
  bool few = false;
  Aabb robot_box;  // empty
  if (skip_robot_box_query_ > 0) {
    --skip_robot_box_query_;
  } else {
    for (const Aabb& box : boxes) robot_box.extend(box);
    few = !shapes.empty() && robot_box.min().allFinite() && robot_box.max().allFinite();
  }
  if (few) {
    world_->obstacle_tree().query(grown(robot_box, margin), [&](int o) {
      few = near_count < near.size();
      if (few) near[near_count++] = o;
      return few;
    });
    if (!few) skip_robot_box_query_ = kRobotBoxRetryCalls;
  }
  if (few) {
    const auto& obstacle_boxes = world_->obstacle_boxes();
    for (size_t s = 0; s < shapes.size() && !found; ++s) {
      const Aabb shape_box = grown(boxes[s], margin);
      for (size_t i = 0; i < near_count && !found; ++i) {
        const int o = near[i];
        if (shape_box.intersects(obstacle_boxes[static_cast<size_t>(o)])) free_pair(s, o);
      }
    }
  } else {
    for (size_t s = 0; s < shapes.size() && !found; ++s)
      world_->obstacle_tree().query(grown(boxes[s], margin),
                                    [&](int o) { return free_pair(s, o); });
  }
  for (size_t i = 0; i < world_->self_pairs().size() && !found; ++i) {
    const auto [a, b] = world_->self_pairs()[i];
    const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
    if (gjk::distance(boxes[ua], boxes[ub]) > margin) continue;
    found = (convex_pair(shapes[ua], shapes[ub])
                 ? convex_closer_than(shapes[ua].shape, poses_[ua], shapes[ub].shape, poses_[ub],
                                      margin, options_ok && prechecked_self(ua, ub), query,
                                      &self_caches_[i])
                 : closer_than(shapes[ua], poses_[ua], shapes[ub], poses_[ub], margin, query,
                               &self_caches_[i]))
                .closer;
  }
  return found;
}

ClosestPair WorldContext::closest(double cutoff, const QueryOptions& query, bool gradient) {
  check_layout();
  const auto& shapes = world_->model().collision_shapes();
  const auto& obstacles = world_->obstacles();
  const bool options_ok = prechecked::options_ok(query);
  ClosestPair best;
  deferred_.clear();
  best.pair.distance = cutoff;
  // The pruning bound: pairs whose boxes are at least this far apart cannot beat the best. Once
  // the best pair overlaps, every pair whose boxes touch may overlap deeper.
  const auto bound = [&] {
    return best.pair.distance > 0.0 ? best.pair.distance
                                    : std::nextafter(0.0, 1.0);  // boxes that touch only
  };
  const auto take = [&](const SignedDistanceResult& r, int a, int b, bool self) {
    if (!(r.signed_distance < best.pair.distance) || r.status == Status::InvalidInput) return;
    set_pair(best, r, a, b, self);
  };
  // Shapes nearest the obstacles first, by the gap between their loose box and the nearest
  // checked obstacle's box (a lower bound on their distance): the first exact distances are
  // small, so the bound prunes the other shapes before their tight boxes (hill climbing) and
  // narrow phases are computed.
  shape_order_.clear();
  for (size_t s = 0; s < shapes.size(); ++s) {
    double gap = cutoff;
    world_->obstacle_tree().nearest(loose_boxes_[s], gap, [&](int o, double box_gap) {
      if (world_->checked(static_cast<int>(s), o) && box_gap < gap) gap = box_gap;
      return gap;
    });
    if (gap < cutoff) shape_order_.emplace_back(gap, static_cast<int>(s));
  }
  std::sort(shape_order_.begin(), shape_order_.end());
  for (const auto& [loose_gap, shape] : shape_order_) {
    if (!(loose_gap < bound())) break;  // sorted: no later shape can beat the best either
    const auto s = static_cast<size_t>(shape);
    world_->obstacle_tree().nearest(tight_box(s), bound(), [&](int o, double box_gap) {
      if (!world_->checked(static_cast<int>(s), o) || box_gap >= bound()) return bound();
      // Once the best pair overlaps, a pair whose boxes overlap less cannot be deeper.
      if (best.pair.distance < 0.0 &&
          signed_box_bound(boxes_[s], world_->obstacle_boxes()[static_cast<size_t>(o)]) >=
              best.pair.distance)
        return bound();
      const Obstacle& obstacle = obstacles[static_cast<size_t>(o)];
      if (shapes[s].mesh) {
        // A link mesh lies inside its hull: the hull's signed distance is a lower bound. The
        // triangles wait until every cheaper pair has tightened the best (see below).
        const double hull = signed_distance(shapes[s].shape, poses_[s], obstacle, query,
                                            obstacle_warm_start(static_cast<int>(s), o), bound())
                                .signed_distance;
        if (hull < best.pair.distance) deferred_.push_back({hull, static_cast<int>(s), o, -1});
        return bound();
      }
      if (!convex_pair(shapes[s], obstacle)) {
        // Meshes and cells prune their own hierarchy by the best so far (+inf: nothing nearer).
        take(signed_distance(shapes[s], poses_[s], obstacle, query, nullptr, bound(),
                             &obstacle_hits_[obstacle_slot(static_cast<int>(s), o)]),
             static_cast<int>(s), o, false);
        return bound();
      }
      WarmStart* warm = obstacle_warm_start(static_cast<int>(s), o);
      const bool fast = options_ok && prechecked_pair(s, static_cast<size_t>(o));
      // A threshold query decides cheaply whether the pair can beat the best at all.
      if (std::isfinite(best.pair.distance) && best.pair.distance > 0.0 &&
          !convex_closer_than(shapes[s].shape, poses_[s], obstacle.shape, obstacle.pose,
                              best.pair.distance, fast, query, warm)
               .closer)
        return bound();
      take(convex_signed_distance(shapes[s].shape, poses_[s], obstacle.shape, obstacle.pose, fast,
                                  query, warm),
           static_cast<int>(s), o, false);
      return bound();
    });
  }
  for (size_t i = 0; i < world_->self_pairs().size(); ++i) {
    const auto [a, b] = world_->self_pairs()[i];
    const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
    if (gjk::distance(loose_boxes_[ua], loose_boxes_[ub]) >= bound() ||
        signed_box_bound(tight_box(ua), tight_box(ub)) >= best.pair.distance)
      continue;
    if (!convex_pair(shapes[ua], shapes[ub])) {
      const double hulls = gjk::signed_distance(shapes[ua].shape, poses_[ua], shapes[ub].shape,
                                                poses_[ub], query, self_caches_[i])
                               .signed_distance;
      if (hulls < best.pair.distance) deferred_.push_back({hulls, a, b, static_cast<int>(i)});
      continue;
    }
    const bool fast = options_ok && prechecked_self(ua, ub);
    if (std::isfinite(best.pair.distance) && best.pair.distance > 0.0 &&
        !convex_closer_than(shapes[ua].shape, poses_[ua], shapes[ub].shape, poses_[ub],
                            best.pair.distance, fast, query, &self_caches_[i])
             .closer)
      continue;
    take(convex_signed_distance(shapes[ua].shape, poses_[ua], shapes[ub].shape, poses_[ub], fast,
                                query, &self_caches_[i]),
         a, b, true);
  }
  // The pairs with a link mesh, nearest hull first, while their bound can beat the best.
  std::sort(deferred_.begin(), deferred_.end(),
            [](const DeferredPair& x, const DeferredPair& y) { return x.bound < y.bound; });
  for (const DeferredPair& d : deferred_) {
    if (!(d.bound < best.pair.distance)) break;
    const auto ua = static_cast<size_t>(d.a);
    if (d.self_index >= 0) {
      const auto ub = static_cast<size_t>(d.b);
      take(signed_distance(shapes[ua], poses_[ua], shapes[ub], poses_[ub], query, nullptr, bound(),
                           &self_hits_[static_cast<size_t>(d.self_index)]),
           d.a, d.b, true);
    } else {
      take(signed_distance(shapes[ua], poses_[ua], obstacles[static_cast<size_t>(d.b)], query,
                           nullptr, bound(), &obstacle_hits_[obstacle_slot(d.a, d.b)]),
           d.a, d.b, false);
    }
  }
  deferred_.clear();
  if (best.pair.shape < 0) {
    best.pair.distance = kInf;
    return best;
  }
  if (gradient) add_gradient(best);
  return best;
}

void WorldContext::distances(double cutoff, bool self, bool gradients, const QueryOptions& query,
                             std::vector<ClosestPair>& out) {
  check_layout();
  // Without a cutoff every checked pair is measured: the boxes would prune nothing.
  if (std::isfinite(cutoff)) ensure_tight_boxes();
  const auto& shapes = world_->model().collision_shapes();
  const auto& obstacles = world_->obstacles();
  const bool options_ok = prechecked::options_ok(query);
  size_t count = 0;
  const auto push = [&](const SignedDistanceResult& r, int a, int b, bool is_self) {
    if (count == out.size()) out.emplace_back();
    ClosestPair& p = out[count++];
    set_pair(p, r, a, b, is_self);
    if (gradients)
      add_gradient(p);
    else
      p.pair.gradient.resize(0);
  };
  if (!std::isfinite(cutoff)) {  // every obstacle, in file order, without walking the tree
    candidates_.resize(obstacles.size());
    std::iota(candidates_.begin(), candidates_.end(), 0);
  }
  for (size_t s = 0; s < shapes.size(); ++s) {
    if (std::isfinite(cutoff)) {
      candidates_.clear();
      world_->obstacle_tree().query(grown(boxes_[s], cutoff), [&](int o) {
        candidates_.push_back(o);
        return true;
      });
      std::sort(candidates_.begin(), candidates_.end());  // file order: deterministic output
    }
    for (const int o : candidates_) {
      if (!world_->checked(static_cast<int>(s), o)) continue;
      SignedDistanceResult r;
      if (measure_obstacle_pair(s, o, cutoff, options_ok, query, r))
        push(r, static_cast<int>(s), o, false);
    }
  }
  if (self) {
    for (size_t i = 0; i < world_->self_pairs().size(); ++i) {
      const auto [a, b] = world_->self_pairs()[i];
      const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
      if (std::isfinite(cutoff) && gjk::distance(boxes_[ua], boxes_[ub]) > cutoff) continue;
      if (!convex_pair(shapes[ua], shapes[ub])) {
        const SignedDistanceResult r = signed_distance(
            shapes[ua], poses_[ua], shapes[ub], poses_[ub], query, nullptr, cutoff, &self_hits_[i]);
        if (r.signed_distance < cutoff || !std::isfinite(cutoff)) push(r, a, b, true);
        continue;
      }
      const bool fast = options_ok && prechecked_self(ua, ub);
      if (std::isfinite(cutoff) &&
          !convex_closer_than(shapes[ua].shape, poses_[ua], shapes[ub].shape, poses_[ub], cutoff,
                              fast, query, &self_caches_[i])
               .closer)
        continue;
      push(convex_signed_distance(shapes[ua].shape, poses_[ua], shapes[ub].shape, poses_[ub], fast,
                                  query, &self_caches_[i]),
           a, b, true);
    }
  }
  out.resize(count);
}

bool WorldContext::measure_obstacle_pair(size_t s, int o, double cutoff, bool options_ok,
                                         const QueryOptions& query, SignedDistanceResult& r) {
  const CollisionShape& shape = world_->model().collision_shapes()[s];
  const Obstacle& obstacle = world_->obstacles()[static_cast<size_t>(o)];
  if (!convex_pair(shape, obstacle)) {
    r = signed_distance(shape, poses_[s], obstacle, query, nullptr, cutoff,
                        &obstacle_hits_[obstacle_slot(static_cast<int>(s), o)]);
    return r.signed_distance < cutoff || !std::isfinite(cutoff);
  }
  WarmStart* warm = obstacle_warm_start(static_cast<int>(s), o);
  const bool fast = options_ok && prechecked_pair(s, static_cast<size_t>(o));
  if (std::isfinite(cutoff) && !convex_closer_than(shape.shape, poses_[s], obstacle.shape,
                                                   obstacle.pose, cutoff, fast, query, warm)
                                    .closer)
    return false;
  r = convex_signed_distance(shape.shape, poses_[s], obstacle.shape, obstacle.pose, fast, query,
                             warm);
  return true;
}

bool WorldContext::pair_distance(int shape, int obstacle, double cutoff, bool gradient,
                                 const QueryOptions& query, ClosestPair& out) {
  check_layout();
  if (shape < 0 || static_cast<size_t>(shape) >= poses_.size() || obstacle < 0 ||
      static_cast<size_t>(obstacle) >= world_->obstacles().size()) {
    throw std::out_of_range("WorldContext::pair_distance: no pair (shape " + std::to_string(shape) +
                            ", obstacle " + std::to_string(obstacle) + ") in a world of " +
                            std::to_string(poses_.size()) + " shapes and " +
                            std::to_string(world_->obstacles().size()) + " obstacles");
  }
  SignedDistanceResult r;
  if (!measure_obstacle_pair(static_cast<size_t>(shape), obstacle, cutoff,
                             prechecked::options_ok(query), query, r))
    return false;
  set_pair(out, r, shape, obstacle, false);
  if (gradient)
    add_gradient(out);
  else
    out.pair.gradient.resize(0);
  return true;
}

void WorldContext::add_gradient(ClosestPair& best) const {
  // seed 002 eq. 7: grad d = -J_a(p_a)^T n (+ J_b(p_b)^T n when the other body is on the robot).
  const RobotModel& model = world_->model();
  Eigen::VectorXd& g = best.pair.gradient;
  g.resize(model.num_positions());
  g.setZero();
  const auto& shapes = model.collision_shapes();
  add_point_derivative(model, ws_, shapes[static_cast<size_t>(best.pair.shape)].link,
                       best.pair.point_on_link, best.pair.normal, -1.0, g);
  if (best.self)
    add_point_derivative(model, ws_, shapes[static_cast<size_t>(best.pair.obstacle)].link,
                         best.pair.point_on_obstacle, best.pair.normal, 1.0, g);
}

}  // namespace gjk::robots
