// A failed add_obstacle (out of memory) leaves the world as it was. Every operator new of this
// binary counts down, and the allocation that finds the count at zero throws std::bad_alloc:
// an add is tried with the failure at its 1st, 2nd, ... allocation until it succeeds, and after
// each failure the world must still hold the same obstacles, names, boxes and tree, and answer
// as before.
#include "gjk/robots/collision_world.hpp"

#include "world_reference.hpp"

#include <gtest/gtest.h>

#include "../libgjk/support/replaced_operator_new.hpp"

#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <vector>

namespace {
std::atomic<long> g_allocations_left{-1};  // -1: never fail
}

bool test_allocation_allowed() {
  return !(g_allocations_left.load(std::memory_order_relaxed) >= 0 &&
           g_allocations_left.fetch_sub(1, std::memory_order_relaxed) == 0);
}

namespace {

using namespace gjk;
using namespace gjk::robots;

Obstacle box_obstacle(const std::string& name, const std::string& object, const Vec3& at) {
  Obstacle o;
  o.name = name;
  o.object = object;
  o.shape = Box{Vec3(0.05, 0.08, 0.04)};
  o.pose.translation() = at;
  return o;
}

RobotModel panda() {
  return RobotModel::from_urdf_file(std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf");
}

/// Twelve boxes box0..box11 (each its own object) around the arm, placed by `seed`.
Scene twelve_boxes(unsigned seed) {
  Scene scene;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> pos(-0.8, 0.8);
  for (int k = 0; k < 12; ++k)
    scene.obstacles.push_back(box_obstacle("box" + std::to_string(k), "box" + std::to_string(k),
                                           Vec3(pos(rng), pos(rng), 0.4 + 0.5 * pos(rng))));
  return scene;
}

/// A configuration with the elbow and wrist bent, clear of the base.
Eigen::VectorXd bent_arm(const RobotModel& robot) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(robot.num_positions());
  q[3] = -1.5;
  q[5] = 1.5;
  return q;
}

/// A two-piece object "held" in the hand, touching the fingers.
AttachedObject held_in_hand() {
  AttachedObject held;
  held.name = "held";
  held.link = "panda_hand";
  held.touch_links = {"panda_leftfinger", "panda_rightfinger"};
  held.add_shape(Box{Vec3(0.02, 0.02, 0.05)}, Pose(Eigen::Translation3d(0, 0, 0.1)));
  held.add_shape(Sphere{0.03}, Pose(Eigen::Translation3d(0, 0, 0.16)));
  return held;
}

/// Runs `step` with its 1st, 2nd, ... allocation failing until it succeeds, calling
/// `after_failure(where)` after each failure (`where` names the step and the allocation).
/// Returns the number of failures.
int fail_each_allocation_in_turn(const std::string& what, const std::function<void()>& step,
                                 const std::function<void(const std::string&)>& after_failure) {
  int failures = 0;
  for (long fail_at = 0;; ++fail_at) {
    g_allocations_left = fail_at;
    try {
      step();
      g_allocations_left = -1;
      return failures;
    } catch (const std::bad_alloc&) {
      g_allocations_left = -1;
      ++failures;
      after_failure(what + " failing at allocation " + std::to_string(fail_at));
    }
    if (fail_at >= 1000) {
      ADD_FAILURE() << what << " never succeeded";
      return failures;
    }
  }
}

using Edit = std::pair<std::string, std::function<void()>>;

/// The robot-side edits in order: attach `held`, attach obstacle box1 to the hand, the matrix
/// `other`, detach both (all at q). The edits refer to their arguments, which must outlive them.
std::vector<Edit> grasps_and_matrix(CollisionWorld& world, const Eigen::VectorXd& q,
                                    const AttachedObject& held,
                                    const AllowedCollisionMatrix& other) {
  return {
      {"attach", [&] { world.attach(held); }},
      {"attach_obstacle", [&] { world.attach_obstacle("box1", "panda_hand", q); }},
      {"set_allowed_collisions", [&] { world.set_allowed_collisions(other); }},
      {"detach held", [&] { world.detach("held", q); }},
      {"detach box1", [&] { world.detach("box1", q); }},
  };
}

struct Snapshot {
  std::vector<std::string> names;
  std::vector<std::string> objects;
  size_t boxes = 0;
  double closest = 0.0;
  int closest_obstacle = -1;
};

Snapshot take(const CollisionWorld& world, const Eigen::VectorXd& q) {
  Snapshot s;
  for (const Obstacle& o : world.obstacles()) {
    s.names.push_back(o.name);
    s.objects.push_back(o.object);
  }
  s.boxes = world.obstacle_boxes().size();
  WorldContext ctx(world);
  ctx.update(q);
  const ClosestPair c = ctx.closest();
  s.closest = c.pair.distance;
  s.closest_obstacle = c.self ? -1 : c.pair.obstacle;
  return s;
}

void expect_same(const Snapshot& a, const Snapshot& b, const std::string& where) {
  EXPECT_EQ(a.names, b.names) << where;
  EXPECT_EQ(a.objects, b.objects) << where;
  EXPECT_EQ(a.boxes, b.boxes) << where;
  EXPECT_EQ(a.closest, b.closest) << where;
  EXPECT_EQ(a.closest_obstacle, b.closest_obstacle) << where;
}

// Adds obstacles one by one (a name the matrix mentions, so its row is looked up pair by pair,
// and plain ones), each with every allocation it makes failing in turn. Enough adds that the
// tree is rebuilt on the way.
TEST(WorldOutOfMemory, AFailedAddLeavesTheWorldAsItWas) {
  const RobotModel robot = panda();
  AllowedCollisionMatrix acm = AllowedCollisionMatrix::from_adjacency(robot);
  acm.set_allowed("panda_hand", "mentioned", true);
  CollisionWorld world(robot, Scene{}, acm);
  const Eigen::VectorXd q = bent_arm(robot);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> pos(-0.8, 0.8);
  int failures = 0;
  for (int k = 0; k < 40; ++k) {
    const std::string name = "box" + std::to_string(k);
    const Obstacle o = box_obstacle(name, k % 4 == 0 ? "mentioned" : name,
                                    Vec3(pos(rng), pos(rng), 0.4 + 0.5 * pos(rng)));
    const Snapshot before = take(world, q);
    failures += fail_each_allocation_in_turn(
        name, [&] { world.add_obstacle(o); },
        [&](const std::string& where) { expect_same(take(world, q), before, where); });
    ASSERT_EQ(world.obstacles().size(), static_cast<size_t>(k + 1));
    EXPECT_THROW(world.add_obstacle(o), std::invalid_argument) << "the name is in use";
  }
  EXPECT_GT(failures, 40);  // each add allocates at least once; some grow every container
  // After all the failed attempts the world answers as one built from the same obstacles.
  Scene scene;
  scene.obstacles = world.obstacles();
  const CollisionWorld fresh(robot, scene, acm);
  const Snapshot edited = take(world, q), built = take(fresh, q);
  EXPECT_EQ(edited.names, built.names);
  EXPECT_EQ(edited.closest, built.closest);
  EXPECT_EQ(edited.closest_obstacle, built.closest_obstacle);
  world.remove_obstacle("mentioned");
  EXPECT_EQ(world.obstacles().size(), 30u);
}

// The robot-side edits, each with every allocation it makes failing in turn: attaching a new
// object (named by the matrix, so its obstacle rows are looked up), attaching an obstacle,
// detaching (its pieces come back as obstacles) and a new matrix. After each failure the world
// has the same obstacles, robot shapes, self pairs, checked pairs and layout, and answers as
// before.
TEST(WorldOutOfMemory, AFailedGraspReleaseOrMatrixLeavesTheWorldAsItWas) {
  const RobotModel robot = panda();
  AllowedCollisionMatrix acm = AllowedCollisionMatrix::from_adjacency(robot);
  acm.set_allowed("part", "box1", true);
  acm.set_allowed("held", "box2", true);
  acm.set_allowed("panda_link2", "held", true);
  CollisionWorld world(robot, twelve_boxes(11), acm);
  const Eigen::VectorXd q = bent_arm(robot);
  const auto layout = [&] {
    std::vector<std::string> out;
    for (const CollisionShape& c : world.model().collision_shapes())
      out.push_back(c.description + "@" + std::to_string(c.link));
    for (const auto& [a, b] : world.self_pairs())
      out.push_back(std::to_string(a) + "-" + std::to_string(b));
    std::string rows;
    for (size_t o = 0; o < world.obstacles().size(); ++o)
      for (size_t s = 0; s < world.model().collision_shapes().size(); ++s)
        rows += world.checked(static_cast<int>(s), static_cast<int>(o)) ? '1' : '0';
    out.push_back(rows);
    out.push_back(std::to_string(world.layout_stamp()));
    out.push_back(std::to_string(world.attached().size()));
    return out;
  };
  const AttachedObject held = held_in_hand();
  AllowedCollisionMatrix other = acm;
  other.set_allowed("panda_link4", "box3", true);
  other.set_allowed("panda_link1", "panda_link5", true);
  std::vector<Edit> edits = grasps_and_matrix(world, q, held, other);
  edits.emplace_back("set_allowed_collisions back", [&] { world.set_allowed_collisions(acm); });
  int failures = 0;
  for (const auto& [what, edit] : edits) {
    const Snapshot before = take(world, q);
    const std::vector<std::string> before_layout = layout();
    failures += fail_each_allocation_in_turn(what, edit, [&](const std::string& where) {
      expect_same(take(world, q), before, where);
      EXPECT_EQ(layout(), before_layout) << where;
    });
    EXPECT_NE(layout(), before_layout) << what;
  }
  EXPECT_GT(failures, 30);
  // After the failed attempts and the edits, the world answers as one built afresh.
  const CollisionWorld fresh(robot, world.scene(), world.allowed_collisions());
  const Snapshot edited = take(world, q), built = take(fresh, q);
  EXPECT_EQ(edited.names, built.names);
  EXPECT_EQ(edited.closest, built.closest);
  EXPECT_EQ(world.self_pairs(), fresh.self_pairs());
}

// A context follows each robot-side edit at its next call (WorldContext::follow_layout), here
// update(q), with every allocation of that call failing in turn: a failure leaves the context on
// the old layout, and the call that succeeds answers as a new context made after the edit.
TEST(WorldOutOfMemory, AContextThatFailsToFollowAnEditIsLeftAsItWas) {
  const RobotModel robot = panda();
  AllowedCollisionMatrix acm = AllowedCollisionMatrix::from_adjacency(robot);
  acm.set_allowed("panda_link2", "held", true);
  CollisionWorld world(robot, twelve_boxes(13), acm);
  const Eigen::VectorXd q = bent_arm(robot);
  const AttachedObject held = held_in_hand();
  AllowedCollisionMatrix other = acm;
  other.set_allowed("panda_link4", "box3", true);
  const std::vector<Edit> edits = grasps_and_matrix(world, q, held, other);
  WorldContext follower(world);
  follower.update(q);
  std::vector<ClosestPair> listed;
  follower.distances(0.5, true, false, {}, listed);  // warm starts for the edits to carry
  int failures = 0;
  for (const auto& [what, edit] : edits) {
    const size_t shapes_before = follower.shape_poses().size();
    edit();
    failures += fail_each_allocation_in_turn(
        what, [&] { follower.update(q); },
        [&](const std::string& where) {
          EXPECT_EQ(follower.shape_poses().size(), shapes_before) << where;
        });
    WorldContext made_after(world);
    made_after.update(q);
    ASSERT_EQ(follower.shape_poses().size(), world.model().collision_shapes().size()) << what;
    EXPECT_NEAR(follower.closest().pair.distance, made_after.closest().pair.distance, 1e-12)
        << what;
    std::vector<ClosestPair> mine, theirs;
    follower.distances(0.5, true, false, {}, mine);
    made_after.distances(0.5, true, false, {}, theirs);
    gjk::testing::expect_same_pairs(mine, theirs, what);
  }
  EXPECT_GT(failures, 20);
}

}  // namespace
