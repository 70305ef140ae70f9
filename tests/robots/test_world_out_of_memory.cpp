// A failed add_obstacle (out of memory) leaves the world as it was. Every operator new of this
// binary counts down, and the allocation that finds the count at zero throws std::bad_alloc:
// an add is tried with the failure at its 1st, 2nd, ... allocation until it succeeds, and after
// each failure the world must still hold the same obstacles, names, boxes and tree, and answer
// as before.
#include "gjk/robots/collision_world.hpp"

#include <gtest/gtest.h>

#include "../libgjk/support/replaced_operator_new.hpp"

#include <atomic>
#include <cstdlib>
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
  const RobotModel robot =
      RobotModel::from_urdf_file(std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf");
  AllowedCollisionMatrix acm = AllowedCollisionMatrix::from_adjacency(robot);
  acm.set_allowed("panda_hand", "mentioned", true);
  CollisionWorld world(robot, Scene{}, acm);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(robot.num_positions());
  q[3] = -1.5;
  q[5] = 1.5;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> pos(-0.8, 0.8);
  int failures = 0;
  for (int k = 0; k < 40; ++k) {
    const std::string name = "box" + std::to_string(k);
    const Obstacle o = box_obstacle(name, k % 4 == 0 ? "mentioned" : name,
                                    Vec3(pos(rng), pos(rng), 0.4 + 0.5 * pos(rng)));
    const Snapshot before = take(world, q);
    for (long fail_at = 0;; ++fail_at) {
      g_allocations_left = fail_at;
      try {
        world.add_obstacle(o);
        g_allocations_left = -1;
        break;
      } catch (const std::bad_alloc&) {
        g_allocations_left = -1;
        ++failures;
        expect_same(take(world, q), before,
                    name + " failing at allocation " + std::to_string(fail_at));
      }
      ASSERT_LT(fail_at, 1000) << "add_obstacle never succeeded";
    }
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

}  // namespace
