// The collision world (issue 17): broadphase answers against brute force over every pair, the
// allowed-collision matrix against the SRDF's list, attached objects moving with their link,
// and the world's edits. References: the engine's pairwise queries over ALL (shape, obstacle)
// and self pairs, without the tree, the matrix's pruning or the threshold shortcuts.
#include "gjk/robots/collision_world.hpp"

#include "gjk/robots/obstacle_queries.hpp"
#include "gjk/robots/srdf.hpp"
#include "world_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace {

using namespace gjk;
using namespace gjk::robots;

const std::string kShared = GJK_SHARED_ROBOT_MODELS_DIR;
const std::string kScenes = GJK_ROBOT_SCENES_DIR;

RobotModel panda() {
  return RobotModel::from_urdf_file(kShared + "/panda/panda.urdf");
}

Eigen::VectorXd random_q(const RobotModel& model, std::mt19937& rng) {
  Eigen::VectorXd q(model.num_positions());
  const Eigen::VectorXd lo = model.lower_limits(), hi = model.upper_limits();
  for (int i = 0; i < q.size(); ++i)
    q[i] = std::uniform_real_distribution<double>(lo[i], hi[i])(rng);
  return q;
}

/// Small random boxes, spheres and capsules in a 2 m cube around the arm.
Scene random_obstacles(std::mt19937& rng, int count, double max_size = 0.08) {
  std::uniform_real_distribution<double> pos(-1.0, 1.0), size(0.01, max_size), angle(-3.0, 3.0);
  Scene scene;
  for (int i = 0; i < count; ++i) {
    Obstacle o;
    o.name = o.object = "o" + std::to_string(i);
    switch (i % 3) {
      case 0:
        o.shape = Box{Vec3(size(rng), size(rng), size(rng))};
        break;
      case 1:
        o.shape = Sphere{size(rng)};
        break;
      default:
        o.shape = Capsule{size(rng), size(rng)};
        break;
    }
    o.pose.translation() = Vec3(pos(rng), pos(rng), 0.5 + 0.5 * pos(rng));
    o.pose.linear() =
        Eigen::AngleAxisd(angle(rng), Vec3(pos(rng), pos(rng), 1).normalized()).toRotationMatrix();
    scene.obstacles.push_back(std::move(o));
  }
  return scene;
}

using gjk::testing::brute_force_minimum;
using gjk::testing::expect_same_pairs;

TEST(CollisionWorld, ClosestAndInCollisionEqualBruteForceOverEveryPair) {
  std::mt19937 rng(11);
  for (const int count : {1, 10, 100, 1000}) {
    CollisionWorld world(panda(), random_obstacles(rng, count));
    WorldContext ctx(world);
    for (int trial = 0; trial < 40; ++trial) {
      ctx.update(random_q(world.robot(), rng));
      const double expected = brute_force_minimum(world, ctx);
      const ClosestPair best = ctx.closest();
      ASSERT_NEAR(best.pair.distance, expected, 1e-9) << count << " obstacles, trial " << trial;
      for (const double margin : {0.0, 0.01, 0.05})
        ASSERT_EQ(ctx.in_collision(margin), expected < margin)
            << count << " obstacles, trial " << trial << ", margin " << margin << ", minimum "
            << expected;
    }
  }
}

// in_collision first asks the tree for the obstacles near the whole robot; with at most two it
// tests each shape against their boxes, with more it walks the tree per shape and skips the
// robot-wide query for the next calls. Validity alone (loose boxes), 1-8 obstacles up to 0.3 m
// across, so both ways run, in and out of collision, and contexts pass from one to the other.
TEST(CollisionWorld, InCollisionEqualsBruteForceWithFewOrManyObstaclesNearTheArm) {
  std::mt19937 rng(47);
  for (const int count : {1, 2, 3, 5, 8}) {
    CollisionWorld world(panda(), random_obstacles(rng, count, 0.3));
    WorldContext ctx(world);
    int colliding = 0;
    constexpr int kTrials = 300;
    for (int trial = 0; trial < kTrials; ++trial) {
      ctx.update(random_q(world.robot(), rng));
      const double expected = brute_force_minimum(world, ctx);
      const double margin = trial % 2 == 0 ? 0.0 : 0.05;
      colliding += expected < margin;
      ASSERT_EQ(ctx.in_collision(margin), expected < margin)
          << count << " obstacles, trial " << trial << ", margin " << margin << ", minimum "
          << expected;
    }
    if (count <= 2) {  // the tests of each shape against the near boxes decide both ways
      EXPECT_GT(colliding, kTrials / 20) << count << " obstacles";
      EXPECT_LT(colliding, kTrials - kTrials / 20) << count << " obstacles";
    }
  }
}

// Deep overlaps (obstacles up to 0.4 m across, robot links inside them, self overlaps): the
// deepest pair is found however the boxes nest (a box inside another along an axis needs a
// longer move to separate than the overlap of the two intervals).
TEST(CollisionWorld, DeepestPenetrationEqualsBruteForce) {
  std::mt19937 rng(29);
  for (const int count : {5, 50, 500}) {
    CollisionWorld world(panda(), random_obstacles(rng, count, 0.4));
    WorldContext ctx(world);
    int colliding = 0;
    for (int trial = 0; trial < 60; ++trial) {
      ctx.update(random_q(world.robot(), rng));
      const double expected = brute_force_minimum(world, ctx);
      colliding += expected < 0.0;
      ASSERT_NEAR(ctx.closest().pair.distance, expected, 1e-9)
          << count << " obstacles, trial " << trial;
    }
    EXPECT_GT(colliding, 10) << count << " obstacles";
  }
}

TEST(CollisionWorld, DistancesListEveryCheckedPairWithinTheCutoff) {
  std::mt19937 rng(12);
  CollisionWorld world(panda(), random_obstacles(rng, 200));
  WorldContext ctx(world);
  std::vector<ClosestPair> pairs;
  for (int trial = 0; trial < 20; ++trial) {
    ctx.update(random_q(world.robot(), rng));
    const double cutoff = 0.1;
    ctx.distances(cutoff, true, false, {}, pairs);
    size_t expected = 0;
    const auto& shapes = world.model().collision_shapes();
    for (size_t s = 0; s < shapes.size(); ++s)
      for (size_t o = 0; o < world.obstacles().size(); ++o)
        if (world.checked(int(s), int(o)) &&
            signed_distance(shapes[s].shape, ctx.shape_poses()[s], world.obstacles()[o], {})
                    .signed_distance < cutoff)
          ++expected;
    for (const auto& [a, b] : world.self_pairs())
      if (signed_distance(shapes[size_t(a)].shape, ctx.shape_poses()[size_t(a)],
                          shapes[size_t(b)].shape, ctx.shape_poses()[size_t(b)])
              .signed_distance < cutoff)
        ++expected;
    ASSERT_EQ(pairs.size(), expected) << "trial " << trial;
    for (const ClosestPair& p : pairs) EXPECT_LT(p.pair.distance, cutoff);
  }
}

TEST(CollisionWorld, SrdfMatrixRemovesExactlyTheListedSelfPairs) {
  const RobotModel robot = panda();
  const Srdf srdf = load_srdf(kShared + "/panda/panda.srdf", robot);
  CollisionWorld world(robot, Scene{}, acm_from_srdf(robot, srdf));
  const auto listed = [&](const std::string& a, const std::string& b) {
    for (const auto& d : srdf.disabled_collisions)
      if ((d.link1 == a && d.link2 == b) || (d.link1 == b && d.link2 == a)) return true;
    return false;
  };
  const CollisionWorld adjacency_only(robot);
  int removed = 0;
  for (const auto& [a, b] : adjacency_only.self_pairs()) {
    const bool kept = std::find(world.self_pairs().begin(), world.self_pairs().end(),
                                std::pair<int, int>(a, b)) != world.self_pairs().end();
    EXPECT_EQ(kept, !listed(world.part_name(a), world.part_name(b)))
        << world.part_name(a) << " / " << world.part_name(b);
    removed += kept ? 0 : 1;
  }
  EXPECT_GT(removed, 0);
  // Today's known problem: with closed fingers the fingers touch. The SRDF allows that pair.
  // The arm's seven joints, then the fingers (one position: the second finger mimics the first).
  Eigen::VectorXd ready = Eigen::VectorXd::Zero(robot.num_positions());
  ready.head<7>() << 0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4;
  WorldContext with_srdf(world), without(adjacency_only);
  with_srdf.update(ready);
  without.update(ready);
  EXPECT_TRUE(without.in_collision());
  EXPECT_FALSE(with_srdf.in_collision());
}

TEST(CollisionWorld, AttachedObjectMovesWithItsLinkAndCollidesWithWorldAndRobot) {
  const RobotModel robot = panda();
  const Srdf srdf = load_srdf(kShared + "/panda/panda.srdf", robot);
  AttachedObject part;
  part.name = "part";
  part.link = "panda_hand";
  part.shapes = {Box{Vec3(0.02, 0.02, 0.06)}};
  part.poses = {Pose(Eigen::Translation3d(0, 0, 0.12))};
  part.touch_links = {"panda_leftfinger", "panda_rightfinger"};
  CollisionWorld world(robot, Scene{}, acm_from_srdf(robot, srdf));
  world.attach(part);
  ASSERT_EQ(world.model().collision_shapes().size(), robot.collision_shapes().size() + 1);
  const int object_shape = static_cast<int>(robot.collision_shapes().size());
  EXPECT_EQ(world.part_name(object_shape), "part");

  std::mt19937 rng(5);
  WorldContext ctx(world);
  Workspace ws(robot);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::VectorXd q = random_q(robot, rng);
    ctx.update(q);
    forward_kinematics(robot, q, ws);
    const Pose expected = ws.link_poses[size_t(robot.link_index("panda_hand"))] * part.poses[0];
    ASSERT_TRUE(ctx.shape_poses()[size_t(object_shape)].isApprox(expected, 1e-12));
  }
  // The object pairs: with every link but the hand and the touch links.
  for (const auto& [a, b] : world.self_pairs()) {
    if (b != object_shape) continue;
    const std::string& other = world.part_name(a);
    EXPECT_NE(other, "panda_hand");
    EXPECT_NE(other, "panda_leftfinger");
  }
  // A small sphere where the object is (but clear of the hand) collides only with the object.
  Eigen::VectorXd ready = Eigen::VectorXd::Constant(robot.num_positions(), 0.02);  // fingers
  ready.head<7>() << 0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4;
  ctx.update(ready);
  const Vec3 tip = ctx.shape_poses()[size_t(object_shape)] * Vec3(0, 0, 0.05);
  Obstacle probe;
  probe.name = probe.object = "probe";
  probe.shape = Sphere{0.005};
  probe.pose.translation() = tip;
  world.add_obstacle(probe);
  WorldContext held(world);
  held.update(ready);
  EXPECT_TRUE(held.in_collision());
  EXPECT_EQ(held.closest().pair.shape, object_shape);

  // Detached, the object stays where the hand left it, as an obstacle.
  world.detach("part", ready);
  EXPECT_EQ(world.model().collision_shapes().size(), robot.collision_shapes().size());
  const auto it = std::find_if(world.obstacles().begin(), world.obstacles().end(),
                               [](const Obstacle& o) { return o.name == "part"; });
  ASSERT_NE(it, world.obstacles().end());
  EXPECT_TRUE(it->pose.isApprox(ctx.shape_poses()[size_t(object_shape)], 1e-12));
  // And attaching it again from the world at the same configuration restores the same pose.
  world.attach_obstacle("part", "panda_hand", ready, {"panda_leftfinger", "panda_rightfinger"});
  WorldContext again(world);
  again.update(ready);
  EXPECT_TRUE(again.shape_poses()[size_t(object_shape)].isApprox(
      ctx.shape_poses()[size_t(object_shape)], 1e-12));
}

TEST(CollisionWorld, MatrixEntriesFilterObstaclePairsAndEditsAreChecked) {
  const RobotModel robot = panda();
  Scene scene = load_scene(kScenes + "/panda_boxes.yaml");
  CollisionWorld world(robot, scene);
  const int table = 0;
  ASSERT_EQ(world.obstacles()[table].name, "table");
  EXPECT_TRUE(world.checked(0, table));
  AllowedCollisionMatrix acm = world.allowed_collisions();
  acm.set_allowed("panda_link0", "table", true);
  world.set_allowed_collisions(acm);
  for (size_t s = 0; s < world.model().collision_shapes().size(); ++s)
    EXPECT_EQ(world.checked(int(s), table), world.part_name(int(s)) != "panda_link0");

  EXPECT_THROW(world.add_obstacle(world.obstacles()[1]), std::invalid_argument);
  EXPECT_THROW(world.remove_obstacle("no_such_obstacle"), std::invalid_argument);
  EXPECT_THROW(world.detach("nothing", Eigen::VectorXd::Zero(robot.num_positions())),
               std::invalid_argument);
  world.remove_obstacle("shelf");
  EXPECT_EQ(world.obstacles().size(), scene.obstacles.size() - 1);
}

TEST(CollisionWorld, PandaCellWithMeshShelfPointCloudAndGraspedPart) {
  const RobotModel robot = panda();
  const Scene cell = load_scene(kScenes + "/panda_cell.yaml");
  CollisionWorld world(robot, cell,
                       acm_from_srdf(robot, load_srdf(kShared + "/panda/panda.srdf", robot)));
  ASSERT_EQ(world.attached().size(), cell.attached.size());
  WorldContext ctx(world);
  std::mt19937 rng(21);
  int colliding = 0;
  for (int trial = 0; trial < 30; ++trial) {
    ctx.update(random_q(robot, rng));
    const double expected = brute_force_minimum(world, ctx);
    ASSERT_NEAR(ctx.closest().pair.distance, expected, 1e-9) << "trial " << trial;
    ASSERT_EQ(ctx.in_collision(), expected < 0.0) << "trial " << trial;
    colliding += expected < 0.0;
  }
  EXPECT_GT(colliding, 0);
  EXPECT_LT(colliding, 30);
}

}  // namespace

namespace {

// Issue 17 item 1: a link mesh as its convex pieces. The shelf (8 panels, each a closed shell)
// on a one-link robot: as a hull it fills the compartments, as pieces a ball in the lower
// compartment is free, at the distance of the nearest panel (brute force over the panels).
TEST(LinkMeshes, PiecesKeepTheCompartmentsFreeWhereTheHullFillsThem) {
  const std::string urdf =
      "<robot name='shelf_bot'><link name='base'><collision><geometry><mesh filename='" + kScenes +
      "/meshes/shelf.stl'/></geometry></collision></link></robot>";
  UrdfOptions pieces;
  pieces.link_meshes = {{"base", LinkMeshRepresentation::Pieces}};
  const RobotModel hull_bot = RobotModel::from_urdf_string(urdf, ".", "shelf_bot");
  const RobotModel pieces_bot = RobotModel::from_urdf_string(urdf, ".", "shelf_bot", pieces);
  ASSERT_EQ(hull_bot.collision_shapes().size(), 1u);
  ASSERT_EQ(pieces_bot.collision_shapes().size(), 8u);
  EXPECT_EQ(pieces_bot.collision_shapes()[3].description,
            "mesh " + kScenes + "/meshes/shelf.stl piece 3");
  // A 5 cm ball in the middle of the lower compartment (shelf frame: depth 0-0.35, z 0.02-0.35).
  Pose ball = Pose::Identity();
  ball.translation() = Vec3(0.17, 0.0, 0.18);
  const Shape sphere = Sphere{0.05};
  EXPECT_LT(
      gjk::signed_distance(hull_bot.collision_shapes()[0].shape, Pose::Identity(), sphere, ball)
          .signed_distance,
      0.0);
  double nearest = std::numeric_limits<double>::infinity();
  for (const CollisionShape& c : pieces_bot.collision_shapes())
    nearest = std::min(nearest, gjk::distance(c.shape, Pose::Identity(), sphere, ball).distance);
  // Panels: floor top at z 0.02, shelf board bottom at 0.35, back at x 0.33: nearest is the
  // floor (0.18 - 0.05 - 0.02 = 0.11).
  EXPECT_NEAR(nearest, 0.11, 1e-9);
  // A link name that is not in the URDF is an error that names it.
  UrdfOptions typo;
  typo.link_meshes = {{"bsae", LinkMeshRepresentation::Pieces}};
  try {
    (void)RobotModel::from_urdf_string(urdf, ".", "shelf_bot", typo);
    ADD_FAILURE() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'bsae'"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

/// The same scene with every obstacle moved by `t` (robot frame <- world frame when t is the
/// inverse base pose).
Scene moved(Scene scene, const Pose& t) {
  for (Obstacle& o : scene.obstacles) o.pose = t * o.pose;
  return scene;
}

}  // namespace

// A robot standing at T among obstacles is the robot at the origin among the obstacles moved by
// T^-1: every distance is the same, witness points map by T (an independent reference: no base
// pose in the second world).
TEST(BasePose, RobotMovedByTEqualsObstaclesMovedByTInverse) {
  std::mt19937 rng(23);
  const Scene scene = random_obstacles(rng, 60);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Pose base = Pose::Identity();
    base.translation() = Vec3(0.3 * unit(rng), 0.3 * unit(rng), 0.2 * unit(rng));
    base.linear() = Eigen::AngleAxisd(3.0 * unit(rng), Vec3(unit(rng), unit(rng), 1).normalized())
                        .toRotationMatrix();
    RobotModel placed = panda();
    placed.set_base_pose(base);
    CollisionWorld moved_robot(placed, scene);
    CollisionWorld moved_world(panda(), moved(scene, base.inverse()));
    WorldContext a(moved_robot), b(moved_world);
    for (int k = 0; k < 10; ++k) {
      const Eigen::VectorXd q = random_q(moved_robot.model(), rng);
      a.update(q);
      b.update(q);
      // Link poses: the base times the poses at the origin.
      for (size_t l = 0; l < a.workspace().link_poses.size(); ++l)
        ASSERT_TRUE(
            a.workspace().link_poses[l].isApprox(base * b.workspace().link_poses[l], 1e-12));
      const ClosestPair ca = a.closest(), cb = b.closest();
      ASSERT_NEAR(ca.pair.distance, cb.pair.distance, 1e-9) << "trial " << trial << " k " << k;
      EXPECT_NEAR(brute_force_minimum(moved_robot, a), ca.pair.distance, 1e-9);
      // Witness points of robot-obstacle pairs (self pairs such as the parallel finger faces
      // may have a continuum of closest points).
      if (ca.pair.shape == cb.pair.shape && ca.pair.obstacle == cb.pair.obstacle && !ca.self &&
          !cb.self) {
        EXPECT_LT((ca.pair.point_on_link - base * cb.pair.point_on_link).norm(), 1e-6);
        // The gradient does not depend on where the robot stands relative to the obstacles'
        // frame: the same joint motion moves both pairs the same way.
        EXPECT_LT((ca.pair.gradient - cb.pair.gradient).norm(), 1e-6);
      }
      EXPECT_EQ(a.in_collision(0.02), b.in_collision(0.02));
    }
  }
}

TEST(BasePose, BadPosesAreRejectedAndSetBasePoseMovesTheWorldRobot) {
  RobotModel model = panda();
  Pose bad = Pose::Identity();
  bad.linear()(0, 0) = 2.0;
  EXPECT_THROW(model.set_base_pose(bad), ModelError);
  bad = Pose::Identity();
  bad.translation().x() = std::nan("");
  EXPECT_THROW(model.set_base_pose(bad), ModelError);
  bad = Pose::Identity();
  bad.linear()(2, 2) = -1.0;  // a reflection
  try {
    model.set_base_pose(bad);
    ADD_FAILURE() << "no exception";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("reflection"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(model.base_pose().isApprox(Pose::Identity(), 0.0));  // unchanged by failures

  Scene scene;
  Obstacle wall;
  wall.name = wall.object = "wall";
  wall.shape = Box{Vec3(0.05, 2.0, 2.0)};
  wall.pose.translation() = Vec3(2.0, 0.0, 0.5);
  scene.obstacles.push_back(wall);
  CollisionWorld world(panda(), scene);
  WorldContext ctx(world);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(world.model().num_positions());
  q[3] = -1.5;  // panda_joint4's range excludes 0
  ctx.update(q);
  // Robot-wall distances only (without an SRDF the closed fingers count as a self collision).
  std::vector<ClosestPair> pairs;
  const auto nearest_wall = [&](WorldContext& c) {
    c.distances(std::numeric_limits<double>::infinity(), false, false, {}, pairs);
    double d = std::numeric_limits<double>::infinity();
    for (const ClosestPair& p : pairs) d = std::min(d, p.pair.distance);
    return d;
  };
  const double far = nearest_wall(ctx);
  Pose forward = Pose::Identity();
  forward.translation().x() = 1.0;
  world.set_base_pose(forward);
  WorldContext moved_ctx(world);
  moved_ctx.update(q);
  EXPECT_NEAR(nearest_wall(moved_ctx), far - 1.0, 1e-9);
}

namespace {

/// Every obstacle whose box overlaps `box`, by the tree and by a scan of the boxes.
void expect_tree_matches_boxes(const CollisionWorld& world, const Aabb& box,
                               const std::string& what) {
  std::vector<int> by_tree, by_scan;
  world.obstacle_tree().query(box, [&](int id) {
    by_tree.push_back(id);
    return true;
  });
  for (size_t o = 0; o < world.obstacle_boxes().size(); ++o)
    if (world.obstacle_boxes()[o].intersects(box)) by_scan.push_back(int(o));
  std::sort(by_tree.begin(), by_tree.end());
  EXPECT_EQ(by_tree, by_scan) << what;
}

Pose random_pose(std::mt19937& rng, const Vec3& centre, double reach) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Pose p = Pose::Identity();
  p.translation() = centre + reach * Vec3(unit(rng), unit(rng), unit(rng));
  p.linear() = Eigen::AngleAxisd(3.0 * unit(rng), Vec3(unit(rng), unit(rng), 1).normalized())
                   .toRotationMatrix();
  return p;
}

/// The tree's queries against a scan of the boxes, on four random probes of `size`.
void expect_random_probes_match(const CollisionWorld& world, std::mt19937& rng, double size,
                                const std::string& what) {
  for (int probe = 0; probe < 4; ++probe) {
    const Vec3 c = random_pose(rng, Vec3(0, 0, 0.5), 1.0).translation();
    expect_tree_matches_boxes(world, Aabb(c, c + Vec3::Constant(size)), what);
  }
}

/// A context after edits (updated to q) against brute force over every pair and against a
/// context of a world built afresh from the same scene and matrix; counts colliding states.
// `self`: the lists compared include the self pairs.
void check_edited_context(const CollisionWorld& world, WorldContext& ctx, const Eigen::VectorXd& q,
                          const std::string& what, int& colliding, bool self = false) {
  const double expected = brute_force_minimum(world, ctx);
  colliding += expected < 0.0;
  const ClosestPair best = ctx.closest();
  ASSERT_NEAR(best.pair.distance, expected, 1e-9) << what;
  for (const double margin : {0.0, 0.02}) {
    if (std::abs(expected - margin) > 1e-9) {
      ASSERT_EQ(ctx.in_collision(margin), expected < margin) << what << ", margin " << margin;
    }
  }
  CollisionWorld fresh(world.robot(), world.scene(), world.allowed_collisions());
  const int shapes = static_cast<int>(world.model().collision_shapes().size());
  const int obstacles = static_cast<int>(world.obstacles().size());
  for (int s = 0; s < shapes; ++s)
    for (int o = 0; o < obstacles; ++o)
      ASSERT_EQ(world.checked(s, o), fresh.checked(s, o)) << what << ", pair " << s << ", " << o;
  WorldContext fresh_ctx(fresh);
  fresh_ctx.update(q);
  ASSERT_NEAR(fresh_ctx.closest().pair.distance, best.pair.distance, 1e-12) << what;
  std::vector<ClosestPair> listed, fresh_listed;
  ctx.distances(0.15, self, false, {}, listed);
  fresh_ctx.distances(0.15, self, false, {}, fresh_listed);
  ASSERT_NO_FATAL_FAILURE(expect_same_pairs(listed, fresh_listed, what));
}

}  // namespace

// move_obstacle updates the broadphase in place and keeps the contexts: after each move (small
// steps of a tracked object, jumps across the cell, moves into the arm) one long-lived context
// answers as brute force over every pair does, and as a world built afresh from the same scene;
// the tree holds exactly the obstacles' new boxes.
TEST(MoveObstacle, ContextsSurviveMovesAndAnswerAsAFreshWorld) {
  std::mt19937 rng(41);
  for (const int count : {6, 300}) {
    CollisionWorld world(panda(), random_obstacles(rng, count, 0.3));
    const std::uint64_t stamp = world.layout_stamp();
    WorldContext ctx(world);
    Eigen::VectorXd q = random_q(world.robot(), rng);
    int colliding = 0;
    for (int trial = 0; trial < 80; ++trial) {
      const int moves = 1 + trial % 3;
      for (int m = 0; m < moves; ++m) {
        const size_t o =
            std::uniform_int_distribution<size_t>(0, world.obstacles().size() - 1)(rng);
        const Obstacle& obstacle = world.obstacles()[o];
        const Pose to = trial % 4 == 0 ? random_pose(rng, Vec3(0, 0, 0.5), 1.0)  // a jump
                        : trial % 4 == 1
                            ? random_pose(rng, ctx.workspace().link_poses.back().translation(),
                                          0.2)                                      // near the hand
                            : random_pose(rng, obstacle.pose.translation(), 0.02);  // a step
        world.move_obstacle(obstacle.name, to);
        ASSERT_TRUE(world.obstacles()[o].pose.isApprox(to, 0.0));
        ASSERT_TRUE(world.obstacle_boxes()[o].isApprox(bounding_box(obstacle.shape, to), 0.0));
      }
      EXPECT_EQ(world.layout_stamp(), stamp);
      if (trial % 2 == 0) q = random_q(world.robot(), rng);
      ctx.update(q);
      const std::string what = std::to_string(count) + " obstacles, trial " + std::to_string(trial);
      ASSERT_NO_FATAL_FAILURE(check_edited_context(world, ctx, q, what, colliding));
      expect_random_probes_match(world, rng, 0.3, what);
    }
    EXPECT_GT(colliding, 0) << count;
    EXPECT_EQ(world.obstacle_tree().size(), count);
  }
}

// add_obstacle and remove_obstacle edit the world in place and keep the contexts. Through random
// additions (single shapes, objects of two pieces, some named in the matrix, some next to the
// hand), removals (by a piece's name or by the object's) and moves, one long-lived context
// answers as brute force over every pair and as a world built afresh from the same scene and
// matrix does; the checked pairs, the boxes, the tree's ids and the name index follow every
// edit, and the tree stays shallow.
TEST(EditObstacles, ContextsSurviveAddsRemovesAndMovesAndAnswerAsAFreshWorld) {
  std::mt19937 rng(47);
  const RobotModel robot = panda();
  for (const int count : {0, 5, 200}) {
    AllowedCollisionMatrix acm = AllowedCollisionMatrix::from_adjacency(robot);
    for (size_t k = 0; k < 60; k += 3)  // names of obstacles added later
      acm.set_allowed(robot.links()[k % robot.links().size()].name, "n" + std::to_string(k), true);
    acm.set_allowed("panda_hand", "o1", true);
    CollisionWorld world(robot, random_obstacles(rng, count, 0.3), acm);
    const std::uint64_t stamp = world.layout_stamp();
    WorldContext ctx(world);
    Eigen::VectorXd q = random_q(robot, rng);
    ctx.update(q);
    int added = 0, removed = 0, colliding = 0;
    for (int trial = 0; trial < 70; ++trial) {
      const int op = std::uniform_int_distribution<int>(0, 9)(rng);
      const size_t n = world.obstacles().size();
      if (op < 4 || n == 0) {  // add
        const Scene made = random_obstacles(rng, 2, 0.3);
        const std::string name = "n" + std::to_string(added++);
        if (op == 0) {  // an object of two pieces
          for (size_t piece = 0; piece < 2; ++piece) {
            Obstacle o = made.obstacles[piece];
            o.name = name + "#" + std::to_string(piece);
            o.object = name;
            world.add_obstacle(o);
          }
        } else {
          Obstacle o = made.obstacles[0];
          o.name = name;
          o.object.clear();  // its own object
          if (op == 1)
            o.pose = random_pose(rng, ctx.workspace().link_poses.back().translation(), 0.2);
          world.add_obstacle(o);
          ASSERT_EQ(world.obstacles().back().object, name);
        }
      } else if (op < 7) {  // remove, by the piece's name or by its object's
        const Obstacle& o = world.obstacles()[std::uniform_int_distribution<size_t>(0, n - 1)(rng)];
        const std::string name = op == 4 ? o.object : o.name;
        // Each removed index, highest first, is taken by the last obstacle.
        std::vector<std::string> expected;
        std::vector<size_t> gone;
        for (size_t x = 0; x < n; ++x) {
          expected.push_back(world.obstacles()[x].name);
          if (world.obstacles()[x].name == name || world.obstacles()[x].object == name)
            gone.push_back(x);
        }
        for (auto x = gone.rbegin(); x != gone.rend(); ++x) {
          expected[*x] = expected.back();
          expected.pop_back();
        }
        world.remove_obstacle(name);
        std::vector<std::string> left;
        for (const Obstacle& x : world.obstacles()) left.push_back(x.name);
        ASSERT_EQ(left, expected) << "removing " << name;
        EXPECT_THROW(world.remove_obstacle(name), std::invalid_argument);
        ++removed;
      } else {  // move
        const size_t o = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
        const Pose to = random_pose(rng, world.obstacles()[o].pose.translation(), 0.1);
        world.move_obstacle(world.obstacles()[o].name, to);
        ASSERT_TRUE(world.obstacles()[o].pose.isApprox(to, 0.0));
      }
      ASSERT_EQ(world.layout_stamp(), stamp);
      if (trial % 2 == 0) q = random_q(robot, rng);
      ctx.update(q);
      const std::string what = std::to_string(count) + " obstacles first, trial " +
                               std::to_string(trial) + ", op " + std::to_string(op);
      const size_t obstacles = world.obstacles().size();
      ASSERT_EQ(world.obstacle_boxes().size(), obstacles) << what;
      ASSERT_EQ(world.obstacle_tree().size(), static_cast<int>(obstacles)) << what;
      for (size_t o = 0; o < obstacles; ++o) {
        const Obstacle& x = world.obstacles()[o];
        ASSERT_TRUE(world.obstacle_boxes()[o].isApprox(bounding_box(x.shape, x.pose), 0.0)) << what;
      }
      const auto balanced = static_cast<int>(std::ceil(std::log2(std::max<size_t>(2, obstacles))));
      EXPECT_LE(world.obstacle_tree().height(), 2 * balanced + 8) << what;
      expect_random_probes_match(world, rng, 0.4, what);
      ASSERT_NO_FATAL_FAILURE(check_edited_context(world, ctx, q, what, colliding));
    }
    EXPECT_GT(added, 5) << count;
    EXPECT_GT(removed, 5) << count;
    EXPECT_GT(colliding, 0) << count;
  }
}

// Grasps, releases and new matrices edit the world in place (the robot's new shapes looked up,
// the rest kept): after each of 60 random edits among them (attach a new object of one or two
// pieces, attach an obstacle, detach, a new matrix, add and remove obstacles between), the world
// has the same robot shapes, self pairs and checked pairs as a world built afresh from its
// scene and matrix, a new context matches brute force over every pair, and both worlds' contexts
// list the same pairs at the same distances. A refused edit changes nothing.
TEST(EditRobot, GraspsReleasesAndMatricesInPlaceAnswerAsAFreshWorld) {
  std::mt19937 rng(53);
  const RobotModel robot = panda();
  const Srdf srdf = load_srdf(kShared + "/panda/panda.srdf", robot);
  const std::vector<std::string> touch{"panda_leftfinger", "panda_rightfinger"};
  for (const int count : {3, 150}) {
    AllowedCollisionMatrix acm = acm_from_srdf(robot, srdf);
    acm.set_allowed("panda_link3", "o1", true);
    acm.set_allowed("held0", "panda_link5", true);  // objects attached later
    for (int k = 0; k < 6; ++k)
      acm.set_allowed("held" + std::to_string(k), "o" + std::to_string(k), true);
    CollisionWorld world(robot, random_obstacles(rng, count, 0.3), acm);
    int held = 0, attached = 0, detached = 0, matrices = 0, colliding = 0;
    // One context lives through every edit: it follows each new layout at its next call.
    WorldContext follower(world);
    Eigen::VectorXd follower_q;
    for (int trial = 0; trial < 60; ++trial) {
      Eigen::VectorXd q = random_q(robot, rng);
      const int op = std::uniform_int_distribution<int>(0, 7)(rng);
      std::string what = std::to_string(count) + " obstacles first, trial " +
                         std::to_string(trial) + ", op " + std::to_string(op);
      Workspace ws(robot);
      forward_kinematics(robot, q, ws);
      const Pose hand = ws.link_poses[static_cast<size_t>(robot.link_index("panda_hand"))];
      if (op <= 1) {  // a new object in the hand, of one or two pieces
        AttachedObject part;
        part.name = "held" + std::to_string(held++);
        part.link = "panda_hand";
        part.touch_links = touch;
        for (int piece = 0; piece <= op; ++piece)
          part.add_shape(Box{Vec3(0.02, 0.015, 0.03 + 0.01 * piece)},
                         Pose(Eigen::Translation3d(0.01 * piece, 0, 0.1 + 0.03 * piece)));
        world.attach(part);
        ++attached;
      } else if (op == 2 && !world.obstacles().empty()) {  // an obstacle, by its object's name
        const Obstacle& o = world.obstacles()[std::uniform_int_distribution<size_t>(
            0, world.obstacles().size() - 1)(rng)];
        const std::string name = o.object;
        world.attach_obstacle(name, "panda_link7", q, {});
        for (const Obstacle& left : world.obstacles()) ASSERT_NE(left.object, name) << what;
        ++attached;
      } else if ((op == 3 || op == 6) && !world.attached().empty()) {
        const std::string name = world
                                     .attached()[std::uniform_int_distribution<size_t>(
                                         0, world.attached().size() - 1)(rng)]
                                     .name;
        world.detach(name, q);
        ++detached;
      } else if (op == 4) {  // a new matrix: some link-obstacle and link-object entries flipped
        AllowedCollisionMatrix next = world.allowed_collisions();
        for (int k = 0; k < 4; ++k) {
          const std::string link =
              robot.links()[std::uniform_int_distribution<size_t>(0, robot.links().size() - 1)(rng)]
                  .name;
          const std::string other =
              k % 2 == 0 || world.attached().empty()
                  ? "o" + std::to_string(std::uniform_int_distribution<int>(0, 20)(rng))
                  : world.attached()[0].name;
          next.set_allowed(link, other, !next.allowed(link, other));
        }
        world.set_allowed_collisions(next);
        ++matrices;
      } else if (op == 5) {  // an obstacle next to the hand
        Obstacle o = random_obstacles(rng, 1, 0.1).obstacles[0];
        o.name = "near" + std::to_string(trial);
        o.object.clear();
        o.pose = random_pose(rng, hand.translation(), 0.15);
        world.add_obstacle(o);
      } else if (!world.obstacles().empty()) {
        world.remove_obstacle(world.obstacles()[0].name);
      }
      // Refused edits change nothing (the same layout, the same rows).
      const std::uint64_t stamp = world.layout_stamp();
      if (!world.attached().empty()) {
        AttachedObject again;
        again.name = world.attached()[0].name;  // taken
        again.link = "panda_hand";
        again.add_shape(Sphere{0.01}, Pose::Identity());
        EXPECT_THROW(world.attach(again), ModelError) << what;
      }
      AttachedObject bad_link;
      bad_link.name = "nowhere";
      bad_link.link = "no_such_link";
      bad_link.add_shape(Sphere{0.01}, Pose::Identity());
      EXPECT_THROW(world.attach(bad_link), ModelError) << what;
      EXPECT_THROW(world.attach_obstacle("no_such_obstacle", "panda_hand", q, {}),
                   std::invalid_argument)
          << what;
      ASSERT_EQ(world.layout_stamp(), stamp) << what;

      const CollisionWorld fresh(world.robot(), world.scene(), world.allowed_collisions());
      const auto& mine = world.model().collision_shapes();
      const auto& theirs = fresh.model().collision_shapes();
      ASSERT_EQ(mine.size(), theirs.size()) << what;
      for (size_t s = 0; s < mine.size(); ++s) {
        ASSERT_EQ(mine[s].link, theirs[s].link) << what;
        ASSERT_EQ(mine[s].attached_object, theirs[s].attached_object) << what;
        ASSERT_EQ(mine[s].description, theirs[s].description) << what;
        ASSERT_EQ(mine[s].touch_links, theirs[s].touch_links) << what;
        ASSERT_TRUE(mine[s].origin.isApprox(theirs[s].origin, 0.0)) << what;
        ASSERT_EQ(mine[s].origin_is_identity, theirs[s].origin_is_identity) << what;
      }
      ASSERT_EQ(world.self_pairs(), fresh.self_pairs()) << what;
      ASSERT_TRUE(std::is_sorted(world.self_pairs().begin(), world.self_pairs().end())) << what;
      ASSERT_EQ(world.obstacle_tree().size(), static_cast<int>(world.obstacles().size())) << what;
      for (size_t o = 0; o < world.obstacles().size(); ++o) {
        const Obstacle& x = world.obstacles()[o];
        ASSERT_TRUE(world.obstacle_boxes()[o].isApprox(bounding_box(x.shape, x.pose), 0.0)) << what;
      }
      expect_random_probes_match(world, rng, 0.4, what);
      WorldContext ctx(world);
      ctx.update(q);
      // The brute force, the fresh world's checked pairs and its context's lists, self pairs
      // included.
      ASSERT_NO_FATAL_FAILURE(check_edited_context(world, ctx, q, what, colliding, true));
      if (follower_q.size() > 0) {
        // Without an update, the follower answers for its last configuration with what the
        // robot holds now: as a new context updated there. So does it after an update refused
        // on its configuration (update() follows the edit, then places the shapes only once
        // it has the new link poses).
        if (trial % 3 == 0) {
          Eigen::VectorXd out_of_range = q;
          out_of_range[0] = 1e3;
          EXPECT_THROW(follower.update(out_of_range), ModelError) << what;
        }
        WorldContext at_last(world);
        at_last.update(follower_q);
        ASSERT_NEAR(follower.closest().pair.distance, at_last.closest().pair.distance, 1e-12)
            << what;
        ASSERT_EQ(follower.in_collision(0.02), at_last.in_collision(0.02)) << what;
        ASSERT_EQ(follower.shape_poses().size(), at_last.shape_poses().size()) << what;
        for (size_t s = 0; s < at_last.shape_poses().size(); ++s)
          ASSERT_TRUE(follower.shape_poses()[s].isApprox(at_last.shape_poses()[s], 0.0)) << what;
      }
      follower.update(q);
      follower_q = q;
      ASSERT_NO_FATAL_FAILURE(check_edited_context(world, follower, q, what, colliding, true))
          << what << ", the context that followed";
    }
    EXPECT_GT(attached, 8) << count;
    EXPECT_GT(detached, 6) << count;
    EXPECT_GT(matrices, 3) << count;
    EXPECT_GT(colliding, 0) << count;
  }
}

// A scene with a name used twice is refused whole; pieces of one object share the object's
// name but not their own, and an added obstacle may not take a name either way.
TEST(CollisionWorld, DuplicateObstacleNamesAreRefusedAndObjectNamesMayRepeat) {
  const RobotModel robot = panda();
  std::mt19937 rng(9);
  Scene scene = random_obstacles(rng, 4);
  scene.obstacles[0].object = scene.obstacles[1].object = "shelf";
  scene.obstacles[2].name = "o3";
  try {
    CollisionWorld world(robot, scene);
    FAIL() << "a scene naming two obstacles o3 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("obstacle name 'o3' is used twice"), std::string::npos)
        << e.what();
  }
  scene.obstacles[2].name = "o2";
  CollisionWorld world(robot, scene);
  ASSERT_EQ(world.obstacles().size(), 4u);
  Obstacle again = scene.obstacles[3];
  EXPECT_THROW(world.add_obstacle(again), std::invalid_argument);
  again.name = "shelf#3";
  again.object = "shelf";
  world.add_obstacle(again);
  world.remove_obstacle("shelf");  // the object's three pieces
  ASSERT_EQ(world.obstacles().size(), 2u);
  for (const Obstacle& o : world.obstacles()) EXPECT_NE(o.object, "shelf");
}

// The world's name index against a reference multimap, over a long random run of inserts,
// erases and relabels (many of them colliding at home slots in a table kept small, so the
// backward-shift deletion moves entries every few steps), ids stored under one and two names,
// and names forced to share hashes.
TEST(NameIndex, AnswersAsAMultimapThroughEveryEdit) {
  std::mt19937 rng(5);
  // With `colliding`, names get one of 3 hashes: the probe meets other names' ids, and one id's
  // two names may share a hash.
  for (const auto& [pool, colliding] :
       {std::pair{3, false}, {40, false}, {400, false}, {40, true}, {400, true}}) {
    const auto hash = [colliding = colliding](const std::string& n) {
      return colliding ? NameIndex::hash_of(n) % 3 : NameIndex::hash_of(n);
    };
    // An id's entries: one per distinct hash of its names, as the world stores its obstacles
    // (NameIndex's contract); the id stays named by all of them.
    const auto hashes_of = [&](const std::vector<std::string>& own) {
      std::vector<std::uint32_t> out{hash(own[0])};
      if (own.size() == 2 && hash(own[1]) != out[0]) out.push_back(hash(own[1]));
      return out;
    };
    std::vector<std::string> names;
    for (int k = 0; k < pool; ++k) names.push_back("name" + std::to_string(k));
    // The reference: each id's names (ids are the table's payload; the table asks for them).
    std::vector<std::vector<std::string>> names_of;
    NameIndex index;
    size_t entries = 0;
    const auto check = [&](const std::string& key, const std::string& what) {
      std::vector<int> found, expected;
      index.for_each(
          hash(key),
          [&](int id) {
            const auto& n = names_of[static_cast<size_t>(id)];
            return std::find(n.begin(), n.end(), key) != n.end();
          },
          [&](int id) { found.push_back(id); });
      for (size_t id = 0; id < names_of.size(); ++id)
        for (const std::string& n : names_of[id])
          if (n == key) expected.push_back(static_cast<int>(id));
      std::sort(found.begin(), found.end());
      ASSERT_EQ(found, expected) << what << ", key " << key;
    };
    for (int step = 0; step < 6000; ++step) {
      const int op = std::uniform_int_distribution<int>(0, 9)(rng);
      const std::string what = std::to_string(pool) + " names" + (colliding ? ", 3 hashes" : "") +
                               ", step " + std::to_string(step);
      if (op < 5 || names_of.empty()) {  // a new id under one or two names
        const auto id = static_cast<int>(names_of.size());
        std::vector<std::string> own{names[rng() % names.size()]};
        if (op == 0) own.push_back(names[rng() % names.size()]);
        if (own.size() == 2 && own[1] == own[0]) own.pop_back();
        for (const std::uint32_t h : hashes_of(own)) index.insert(h, id);
        entries += hashes_of(own).size();
        names_of.push_back(own);
      } else if (op < 9) {  // the world's removal: erase an id, the last id takes its number
        const size_t hole = rng() % names_of.size(), last = names_of.size() - 1;
        for (const std::uint32_t h : hashes_of(names_of[hole]))
          index.erase(h, static_cast<int>(hole));
        entries -= hashes_of(names_of[hole]).size();
        if (hole != last) {
          for (const std::uint32_t h : hashes_of(names_of[last]))
            index.relabel(h, static_cast<int>(last), static_cast<int>(hole));
          names_of[hole] = names_of[last];
        }
        names_of.pop_back();
      } else {  // erasing what is not there changes nothing
        index.erase(hash(names[rng() % names.size()]), static_cast<int>(names_of.size()) + 7);
      }
      ASSERT_EQ(index.size(), entries) << what;
      for (int probe = 0; probe < 3; ++probe)
        ASSERT_NO_FATAL_FAILURE(check(names[rng() % names.size()], what));
      ASSERT_NO_FATAL_FAILURE(check("absent", what));
    }
    for (const std::string& n : names) ASSERT_NO_FATAL_FAILURE(check(n, "at the end"));
  }
}

// Obstacles added one at a time in the worst order for an insertion that does not rotate
// (along a line, each beyond the last) keep the tree within twice a balanced tree's depth, and
// its queries exact.
// Two orders of boxes added one at a time: along a line (the tree's rotations keep it shallow)
// and nested, each box holding the earlier ones (a chain no rotation shortens: the world's depth
// check rebuilds it).
TEST(EditObstacles, ObstaclesAddedOneByOneKeepTheTreeShallow) {
  for (const bool nested : {false, true}) {
    CollisionWorld world(panda());
    for (int i = 0; i < 3000; ++i) {
      Obstacle o;
      o.name = "b" + std::to_string(i);
      const double half = nested ? 0.004 + 0.001 * i : 0.004;
      o.shape = Box{Vec3(half, half, half)};
      o.pose.translation() = nested ? Vec3(-1.5, 0.5, 0.5) : Vec3(-1.5 + 0.001 * i, 0.5, 0.5);
      world.add_obstacle(o);
      const int balanced = static_cast<int>(std::ceil(std::log2(std::max(2, i + 1))));
      ASSERT_LE(world.obstacle_tree().height(), 2 * balanced + 8) << nested << " " << i;
    }
    for (int probe = 0; probe < 30; ++probe) {
      const double x = -1.5 + 0.1 * probe;
      expect_tree_matches_boxes(world, Aabb(Vec3(x, 0.49, 0.49), Vec3(x + 0.05, 0.51, 0.51)),
                                "probe " + std::to_string(probe) + (nested ? " nested" : ""));
    }
  }
}

// A move to a finite pose whose rotation is not a rotation (scaled) takes the obstacle's pairs off
// the unchecked fast path: the engine's checks refuse them (closest() skips invalid pairs), and
// a move back to a valid pose makes the obstacle count again.
TEST(MoveObstacle, AScaledRotationIsCheckedNotTrusted) {
  const RobotModel robot = panda();
  CollisionWorld world(robot, load_scene(kScenes + "/panda_boxes.yaml"));
  WorldContext ctx(world);
  const Eigen::VectorXd q = 0.5 * (robot.lower_limits() + robot.upper_limits());
  ctx.update(q);
  Pose near_hand = Pose::Identity();
  near_hand.translation() = ctx.workspace().link_poses.back().translation() + Vec3(0, 0, 0.25);
  const std::string name = world.obstacles()[0].name;
  world.move_obstacle(name, near_hand);
  const ClosestPair valid = ctx.closest();
  ASSERT_EQ(valid.pair.obstacle, 0);
  Pose scaled = near_hand;
  scaled.linear() *= 2.0;
  world.move_obstacle(name, scaled);
  EXPECT_NE(ctx.closest().pair.obstacle, 0);
  world.move_obstacle(name, near_hand);
  EXPECT_EQ(ctx.closest().pair.obstacle, 0);
  EXPECT_EQ(ctx.closest().pair.distance, valid.pair.distance);
}

// Meshes and occupied cells move as convex obstacles do.
TEST(MoveObstacle, MeshShelfAndPointCloudInThePandaCell) {
  const RobotModel robot = panda();
  CollisionWorld world(robot, load_scene(kScenes + "/panda_cell.yaml"),
                       acm_from_srdf(robot, load_srdf(kShared + "/panda/panda.srdf", robot)));
  WorldContext ctx(world);
  std::mt19937 rng(43);
  int moved = 0;
  for (const Obstacle& o : world.scene().obstacles) moved += o.kind() != ObstacleKind::Convex;
  ASSERT_GE(moved, 2);  // the scene has a mesh and cells
  std::vector<Pose> home;
  for (const Obstacle& o : world.obstacles()) home.push_back(o.pose);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int trial = 0; trial < 30; ++trial) {
    for (size_t o = 0; o < world.obstacles().size(); ++o) {
      if (world.obstacles()[o].kind() == ObstacleKind::Convex) continue;
      Pose to = home[o];  // within 0.3 m of where the scene puts it, turned about z
      to.translation() += 0.3 * Vec3(unit(rng), unit(rng), unit(rng));
      to.linear() = Eigen::AngleAxisd(0.5 * unit(rng), Vec3::UnitZ()) * home[o].linear();
      world.move_obstacle(world.obstacles()[o].name, to);
    }
    ctx.update(random_q(robot, rng));
    const double expected = brute_force_minimum(world, ctx);
    ASSERT_NEAR(ctx.closest().pair.distance, expected, 1e-9) << "trial " << trial;
    ASSERT_EQ(ctx.in_collision(), expected < 0.0) << "trial " << trial;
  }
}

// Adding and removing obstacles keep a context; after an edit that changes the robot's shapes or
// pairs (a new matrix, a grasp, a release) it follows the new layout at its next call. Failed
// moves and additions change nothing.
TEST(MoveObstacle, ContextsFollowRobotEditsAndBadEditsChangeNothing) {
  const RobotModel robot = panda();
  CollisionWorld world(robot, load_scene(kScenes + "/panda_boxes.yaml"));
  const Eigen::VectorXd q = 0.5 * (robot.lower_limits() + robot.upper_limits());
  WorldContext ctx(world);
  ctx.update(q);
  const Obstacle first = world.obstacles()[0];
  Pose nan_pose = first.pose;
  nan_pose.translation().x() = std::nan("");
  EXPECT_THROW(world.move_obstacle(first.name, nan_pose), std::invalid_argument);
  EXPECT_THROW(world.move_obstacle("no_such_obstacle", first.pose), std::invalid_argument);
  EXPECT_TRUE(world.obstacles()[0].pose.isApprox(first.pose, 0.0));
  const double before = ctx.closest().pair.distance;

  // Adding and removing obstacles keep the layout (and the context); bad additions change
  // nothing.
  const std::uint64_t stamp = world.layout_stamp();
  const size_t count = world.obstacles().size();
  Obstacle probe = first;
  probe.name = probe.object = "probe";
  world.add_obstacle(probe);
  EXPECT_EQ(world.layout_stamp(), stamp);
  Obstacle bad = probe;
  bad.name = bad.object = "bad";
  bad.pose = nan_pose;
  EXPECT_THROW(world.add_obstacle(bad), std::invalid_argument);
  EXPECT_THROW(world.add_obstacle(probe), std::invalid_argument);  // the name is taken
  EXPECT_EQ(world.obstacles().size(), count + 1);
  EXPECT_EQ(world.obstacle_tree().size(), static_cast<int>(count + 1));
  ctx.update(q);
  EXPECT_NEAR(ctx.closest().pair.distance, before, 1e-12);  // the probe sits on box0
  world.remove_obstacle("probe");
  EXPECT_EQ(world.layout_stamp(), stamp);
  EXPECT_NEAR(ctx.closest().pair.distance, before, 1e-12);
  // A new matrix or a held object changes the robot's pairs and the stamp; the context follows.
  world.set_allowed_collisions(world.allowed_collisions());
  EXPECT_NE(world.layout_stamp(), stamp);
  EXPECT_NEAR(ctx.closest().pair.distance, before, 1e-12);
  world.attach_obstacle(first.name, "panda_hand", q);
  ASSERT_EQ(ctx.shape_poses().size() + 1, world.model().collision_shapes().size());
  ctx.follow_world();  // shape_poses() lists the shapes the robot has now
  ASSERT_EQ(ctx.shape_poses().size(), world.model().collision_shapes().size());
  WorldContext holding(world);
  holding.update(q);
  EXPECT_TRUE(ctx.shape_poses().back().isApprox(holding.shape_poses().back(), 1e-12));
  EXPECT_NEAR(ctx.closest().pair.distance, holding.closest().pair.distance, 1e-12);
  EXPECT_EQ(ctx.in_collision(), holding.in_collision());
  world.detach(first.name, q);
  EXPECT_NEAR(ctx.closest().pair.distance, before, 1e-12);
  ctx.update(q);
  EXPECT_NEAR(ctx.closest().pair.distance, before, 1e-12);
  // Another world's context never passes for this one's.
  CollisionWorld other(robot, load_scene(kScenes + "/panda_boxes.yaml"));
  EXPECT_NE(other.layout_stamp(), world.layout_stamp());
  // A world assigned over this one with another robot: the context cannot follow that.
  const RobotModel iiwa =
      RobotModel::from_urdf_file(kShared + "/kuka_iiwa14/lbr_iiwa_14_r820.urdf");
  ASSERT_NE(iiwa.links().size(), robot.links().size());
  world = CollisionWorld(iiwa, Scene{});
  try {
    ctx.update(q);
    ADD_FAILURE() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("robot was replaced"), std::string::npos) << e.what();
  }
}
