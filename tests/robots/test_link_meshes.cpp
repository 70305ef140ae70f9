// Exact link meshes in the collision world (issue 17 item 1, LinkMeshRepresentation::Mesh): the
// UR5's non-convex links kept as triangles, against a reference over every triangle. The
// reference measures each triangle (a flat polytope) against each obstacle, triangle or cell
// with the engine's convex pair queries, skipping only triangles whose box is already farther
// than the best so far (a box gap is a lower bound): no hierarchy, no hull shortcut, no
// broadphase, no warm start. Robot-obstacle pairs (convex, mesh and cell obstacles) and self
// pairs (mesh against mesh), closest(), in_collision() at several margins, distances() within
// a cutoff, and the gradient against finite differences.
#include "gjk/robots/collision_world.hpp"

#include "gjk/robots/obstacle_queries.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace gjk;
using namespace gjk::robots;

const std::string kShared = GJK_SHARED_ROBOT_MODELS_DIR;
const std::string kScenes = GJK_ROBOT_SCENES_DIR;
constexpr double kInf = std::numeric_limits<double>::infinity();

RobotModel ur5(LinkMeshRepresentation representation) {
  UrdfOptions options;
  options.meshes = representation;
  return RobotModel::from_urdf_file(kShared + "/ur5/ur5.urdf", options);
}

/// A set's primitives in the world: each a convex shape at the identity, with its box.
struct WorldPrimitives {
  std::vector<Shape> shapes;
  std::vector<Pose> poses;
  std::vector<Aabb> boxes;
};

WorldPrimitives triangles_of(const TriangleMesh& mesh, const Pose& pose) {
  WorldPrimitives out;
  for (const auto& t : mesh.triangles()) {
    std::vector<Vec3> v{pose * mesh.vertices()[t[0]], pose * mesh.vertices()[t[1]],
                        pose * mesh.vertices()[t[2]]};
    Aabb box(v[0], v[0]);
    box.extend(v[1]);
    box.extend(v[2]);
    out.shapes.emplace_back(ConvexPolytope::from_hull_vertices(std::move(v)));
    out.poses.push_back(Pose::Identity());
    out.boxes.push_back(box);
  }
  return out;
}

WorldPrimitives cells_of(const BoxSet& cells, const Pose& pose) {
  WorldPrimitives out;
  for (size_t k = 0; k < cells.centres().size(); ++k) {
    Pose p = pose;
    p.translation() = pose * cells.centres()[k];
    out.shapes.emplace_back(Box{cells.half_extents()[k]});
    out.poses.push_back(p);
    out.boxes.push_back(bounding_box(out.shapes.back(), p));
  }
  return out;
}

WorldPrimitives convex_of(const Shape& shape, const Pose& pose) {
  WorldPrimitives out;
  out.shapes.push_back(shape);
  out.poses.push_back(pose);
  out.boxes.push_back(bounding_box(shape, pose));
  return out;
}

/// A robot element or an obstacle as its primitives: triangles, cells, or the convex shape.
WorldPrimitives primitives(const CollisionShape& c, const Pose& pose) {
  return c.mesh ? triangles_of(*c.mesh, pose) : convex_of(c.shape, pose);
}

WorldPrimitives primitives(const Obstacle& o) {
  switch (o.kind()) {
    case ObstacleKind::Mesh:
      return triangles_of(*o.mesh, o.pose);
    case ObstacleKind::Cells:
      return cells_of(*o.cells, o.pose);
    case ObstacleKind::Convex:
      break;
  }
  return convex_of(o.shape, o.pose);
}

/// Minimum signed distance over every pair of primitives. A pair whose boxes are apart by at
/// least the best so far (and apart at all) cannot beat it.
double brute_force(const WorldPrimitives& a, const WorldPrimitives& b) {
  double best = kInf;
  for (size_t i = 0; i < a.shapes.size(); ++i)
    for (size_t k = 0; k < b.shapes.size(); ++k) {
      const double gap = gjk::distance(a.boxes[i], b.boxes[k]);
      if (gap > 0.0 && gap >= best) continue;
      best = std::min(
          best,
          gjk::signed_distance(a.shapes[i], a.poses[i], b.shapes[k], b.poses[k]).signed_distance);
    }
  return best;
}

/// Every checked pair of the world at ctx's configuration: robot-obstacle pairs, then self pairs.
struct ReferencePair {
  int a = -1, b = -1;
  bool self = false;
  double signed_distance = kInf;
};

std::vector<ReferencePair> reference_pairs(const CollisionWorld& world, const WorldContext& ctx) {
  const auto& shapes = world.model().collision_shapes();
  std::vector<WorldPrimitives> robot;
  for (size_t s = 0; s < shapes.size(); ++s)
    robot.push_back(primitives(shapes[s], ctx.shape_poses()[s]));
  std::vector<ReferencePair> out;
  for (size_t o = 0; o < world.obstacles().size(); ++o) {
    const WorldPrimitives obstacle = primitives(world.obstacles()[o]);
    for (size_t s = 0; s < shapes.size(); ++s)
      if (world.checked(static_cast<int>(s), static_cast<int>(o)))
        out.push_back(
            {static_cast<int>(s), static_cast<int>(o), false, brute_force(robot[s], obstacle)});
  }
  for (const auto& [a, b] : world.self_pairs())
    out.push_back({a, b, true, brute_force(robot[size_t(a)], robot[size_t(b)])});
  return out;
}

double minimum(const std::vector<ReferencePair>& pairs) {
  double best = kInf;
  for (const ReferencePair& p : pairs) best = std::min(best, p.signed_distance);
  return best;
}

/// `full` trials scaled by GJK_TEST_CASE_FRACTION (scripts/test.sh --sanitize sets 0.2: the
/// sanitizers look for memory errors, not rare geometry), at least `minimum`.
int trials(int full, int minimum) {
  const char* text = std::getenv("GJK_TEST_CASE_FRACTION");
  double fraction = 1.0;
  if (text != nullptr) (void)std::from_chars(text, text + std::strlen(text), fraction);
  return std::max(minimum, static_cast<int>(std::lround(full * fraction)));
}

Eigen::VectorXd random_q(const RobotModel& model, std::mt19937& rng) {
  Eigen::VectorXd q(model.num_positions());
  const Eigen::VectorXd lo = model.lower_limits(), hi = model.upper_limits();
  for (int i = 0; i < q.size(); ++i)
    q[i] = std::uniform_real_distribution<double>(std::max(lo[i], -3.2), std::min(hi[i], 3.2))(rng);
  return q;
}

/// The UR5's reach (0.85 m) holds random boxes, spheres and capsules, the shipped shelf (an
/// exact, non-convex mesh) and a block of occupied cells.
Scene ur5_cell(std::mt19937& rng) {
  std::uniform_real_distribution<double> pos(-0.7, 0.7), size(0.02, 0.1), angle(-3.0, 3.0);
  Scene scene;
  for (int i = 0; i < 9; ++i) {
    Obstacle o;
    o.name = o.object = "o" + std::to_string(i);
    if (i % 3 == 0)
      o.shape = Box{Vec3(size(rng), size(rng), size(rng))};
    else if (i % 3 == 1)
      o.shape = Sphere{size(rng)};
    else
      o.shape = Capsule{size(rng), size(rng)};
    o.pose.translation() = Vec3(pos(rng), pos(rng), 0.4 + 0.5 * pos(rng));
    o.pose.linear() =
        Eigen::AngleAxisd(angle(rng), Vec3(pos(rng), pos(rng), 1).normalized()).toRotationMatrix();
    scene.obstacles.push_back(std::move(o));
  }
  Scene shelf = load_scene(kScenes + "/panda_cell.yaml");
  for (Obstacle& o : shelf.obstacles) {
    if (o.kind() != ObstacleKind::Mesh) continue;
    o.pose.translation() = Vec3(0.45, -0.2, 0.0);
    scene.obstacles.push_back(std::move(o));
    break;
  }
  std::vector<Vec3> centres, halves;
  for (int x = 0; x < 3; ++x)
    for (int y = 0; y < 3; ++y) {
      centres.emplace_back(-0.4 + 0.05 * x, 0.3 + 0.05 * y, 0.3 + 0.05 * ((x + y) % 2));
      halves.emplace_back(Vec3::Constant(0.025));
    }
  Obstacle cells;
  cells.name = cells.object = "cells";
  cells.cells = std::make_shared<const BoxSet>(BoxSet::from_boxes(centres, halves));
  scene.obstacles.push_back(std::move(cells));
  return scene;
}

TEST(LinkMeshes, Ur5LinksLoadAsTrianglesInsideTheirHulls) {
  const RobotModel model = ur5(LinkMeshRepresentation::Mesh);
  int meshes = 0;
  for (const CollisionShape& c : model.collision_shapes()) {
    if (!c.mesh) continue;
    ++meshes;
    EXPECT_NE(c.description.find(" triangles"), std::string::npos) << c.description;
    EXPECT_GT(c.mesh->triangles().size(), 100u) << c.description;
    // The hull bounds the triangles in every direction (it is what boxes and early outs use).
    const auto* hull = std::get_if<ConvexPolytope>(&c.shape.geometry);
    ASSERT_NE(hull, nullptr);
    std::mt19937 rng(3);
    std::normal_distribution<double> g;
    for (int d = 0; d < 200; ++d) {
      const Vec3 dir(g(rng), g(rng), g(rng));
      double mesh_max = -kInf, hull_max = -kInf;
      for (const Vec3& v : c.mesh->vertices()) mesh_max = std::max(mesh_max, dir.dot(v));
      for (const Vec3& v : hull->vertices()) hull_max = std::max(hull_max, dir.dot(v));
      ASSERT_LE(mesh_max, hull_max + 1e-12 * dir.norm()) << c.description;
    }
  }
  EXPECT_EQ(meshes, 7);  // every UR5 link's collision element is a mesh
  // The name is checked and the error says what the choices are.
  UrdfOptions unknown;
  unknown.link_meshes = {{"no_such_link", LinkMeshRepresentation::Mesh}};
  EXPECT_THROW((void)RobotModel::from_urdf_file(kShared + "/ur5/ur5.urdf", unknown), ModelError);
}

TEST(LinkMeshes, Ur5WorldMatchesTheReferenceOverEveryTriangle) {
  std::mt19937 rng(17);
  const Scene scene = ur5_cell(rng);
  const CollisionWorld world(ur5(LinkMeshRepresentation::Mesh), scene);
  const CollisionWorld hull_world(ur5(LinkMeshRepresentation::Hull), scene);
  ASSERT_FALSE(world.self_pairs().empty());
  WorldContext ctx(world), hull_ctx(hull_world);
  std::vector<ClosestPair> within;
  int colliding = 0, hull_only_nearer = 0, self_closest = 0;
  const int kTrials = trials(40, 10);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Eigen::VectorXd q = random_q(world.model(), rng);
    ctx.update(q);
    const std::vector<ReferencePair> expected = reference_pairs(world, ctx);
    const double best = minimum(expected);
    const ClosestPair got = ctx.closest();
    ASSERT_NEAR(got.pair.distance, best, 1e-9) << "trial " << trial;
    self_closest += got.self;
    colliding += best < 0.0;
    for (const double margin : {0.0, 0.01, 0.05}) {
      if (std::abs(best - margin) < 1e-9) continue;  // a tie the tolerance may decide either way
      ASSERT_EQ(ctx.in_collision(margin), best < margin)
          << "trial " << trial << " margin " << margin;
    }
    // Every pair within the cutoff, each with its own exact distance.
    constexpr double kCutoff = 0.08;
    ctx.distances(kCutoff, true, false, {}, within);
    size_t expected_within = 0;
    for (const ReferencePair& p : expected) {
      if (!(p.signed_distance < kCutoff)) continue;
      ++expected_within;
      const auto it = std::find_if(within.begin(), within.end(), [&](const ClosestPair& c) {
        return c.self == p.self && c.pair.shape == p.a && c.pair.obstacle == p.b;
      });
      ASSERT_NE(it, within.end()) << "trial " << trial << " pair " << p.a << "," << p.b;
      ASSERT_NEAR(it->pair.distance, p.signed_distance, 1e-9) << "trial " << trial;
    }
    ASSERT_EQ(within.size(), expected_within) << "trial " << trial;
    // The witness points are as far apart as the distance says.
    if (got.pair.distance > 1e-6) {
      ASSERT_NEAR((got.pair.point_on_obstacle - got.pair.point_on_link).norm(), got.pair.distance,
                  1e-9);
    }
    hull_ctx.update(q);
    hull_only_nearer += hull_ctx.closest().pair.distance < best - 1e-3;
  }
  // The cases reach collisions and free states, and the hulls would have been wrong in some.
  EXPECT_GT(colliding, 0);
  EXPECT_LT(colliding, kTrials);
  EXPECT_GT(hull_only_nearer, 0);
  RecordProperty("colliding", colliding);
  RecordProperty("self_closest", self_closest);
  RecordProperty("hull_only_nearer", hull_only_nearer);
}

// d distance / d q of the closest pair against central differences, where the closest pair is
// the same pair at q - h e_i, q and q + h e_i and the distance is smooth there (its second
// difference is at rounding level: no switch of triangle in between).
TEST(LinkMeshes, GradientOfAMeshPairMatchesFiniteDifferences) {
  std::mt19937 rng(29);
  const Scene scene = ur5_cell(rng);
  const CollisionWorld world(ur5(LinkMeshRepresentation::Mesh), scene);
  WorldContext ctx(world);
  int compared = 0, mesh_pairs = 0;
  constexpr double h = 1e-6;
  for (int trial = 0; trial < 60 && compared < 40; ++trial) {
    const Eigen::VectorXd q = random_q(world.model(), rng);
    ctx.update(q);
    const ClosestPair c = ctx.closest();
    if (c.pair.shape < 0 || !(c.pair.distance > 1e-3)) continue;  // overlap: depth, not distance
    mesh_pairs += world.model().collision_shapes()[size_t(c.pair.shape)].mesh != nullptr;
    for (int i = 0; i < q.size(); ++i) {
      Eigen::VectorXd qp = q, qm = q;
      qp[i] += h;
      qm[i] -= h;
      ctx.update(qp);
      const ClosestPair p = ctx.closest(kInf, {}, false);
      ctx.update(qm);
      const ClosestPair m = ctx.closest(kInf, {}, false);
      const auto same = [&](const ClosestPair& x) {
        return x.self == c.self && x.pair.shape == c.pair.shape &&
               x.pair.obstacle == c.pair.obstacle;
      };
      if (!same(p) || !same(m)) continue;
      const double second = p.pair.distance - 2.0 * c.pair.distance + m.pair.distance;
      if (std::abs(second) > 1e-10) continue;
      const double fd = (p.pair.distance - m.pair.distance) / (2.0 * h);
      ASSERT_NEAR(c.pair.gradient[i], fd, 1e-6) << "trial " << trial << " joint " << i;
      ++compared;
    }
  }
  EXPECT_GE(compared, 20);
  EXPECT_GT(mesh_pairs, 0);
}

/// A U-shaped bracket (three boxes' surfaces, 36 triangles): non-convex, so its hull would fill
/// the notch between the arms.
std::shared_ptr<const TriangleMesh> bracket() {
  std::vector<Vec3> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  const auto box = [&](const Vec3& lo, const Vec3& hi) {
    const auto base = static_cast<std::uint32_t>(vertices.size());
    for (int i = 0; i < 8; ++i)
      vertices.emplace_back(i & 1 ? hi.x() : lo.x(), i & 2 ? hi.y() : lo.y(),
                            i & 4 ? hi.z() : lo.z());
    // Two triangles per face, corners indexed by the bits above.
    const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                             {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : faces) {
      triangles.push_back({base + f[0], base + f[1], base + f[2]});
      triangles.push_back({base + f[0], base + f[2], base + f[3]});
    }
  };
  box(Vec3(-0.08, -0.015, 0.0), Vec3(0.08, 0.015, 0.03));   // the base
  box(Vec3(-0.08, -0.015, 0.03), Vec3(-0.05, 0.015, 0.2));  // two arms, 10 cm apart
  box(Vec3(0.05, -0.015, 0.03), Vec3(0.08, 0.015, 0.2));
  return std::make_shared<const TriangleMesh>(
      TriangleMesh::from_triangles(std::move(vertices), std::move(triangles)));
}

// Issue 17 item 7: an attached object may be an exact mesh. The bracket held by the UR5's last
// link (links as hulls) against the reference over its triangles: obstacles (convex, the mesh
// shelf, cells) and the robot's links; it moves with the link, and detach / attach_obstacle
// keep it a mesh.
TEST(LinkMeshes, AttachedMeshMovesWithItsLinkAndMatchesTheReference) {
  std::mt19937 rng(41);
  const Scene scene = ur5_cell(rng);
  const RobotModel robot = ur5(LinkMeshRepresentation::Hull);
  const Pose grip = Pose(Eigen::Translation3d(0, 0.05, 0.02));
  AttachedObject part;
  part.name = "bracket";
  part.link = "wrist_3_link";
  part.add_mesh(bracket(), grip);
  ASSERT_TRUE(part.is_mesh(0));
  AttachedObject as_hull = part;  // the same piece as its hull, for contrast
  as_hull.meshes.clear();
  CollisionWorld world(robot, scene), hull_world(robot, scene);
  world.attach(part);
  hull_world.attach(as_hull);
  const int object = static_cast<int>(robot.collision_shapes().size());
  const CollisionShape& held = world.model().collision_shapes()[size_t(object)];
  ASSERT_NE(held.mesh, nullptr);
  EXPECT_EQ(held.description, "attached bracket (mesh, 36 triangles)");
  EXPECT_EQ(hull_world.model().collision_shapes()[size_t(object)].mesh, nullptr);

  WorldContext ctx(world), hull_ctx(hull_world);
  Workspace ws(robot);
  int colliding = 0, hull_nearer = 0, object_closest = 0;
  const int kTrials = trials(60, 20);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Eigen::VectorXd q = random_q(robot, rng);
    ctx.update(q);
    forward_kinematics(robot, q, ws);
    ASSERT_TRUE(ctx.shape_poses()[size_t(object)].isApprox(
        ws.link_poses[size_t(robot.link_index("wrist_3_link"))] * grip, 1e-12));
    const std::vector<ReferencePair> expected = reference_pairs(world, ctx);
    const double best = minimum(expected);
    const ClosestPair got = ctx.closest();
    ASSERT_NEAR(got.pair.distance, best, 1e-9) << "trial " << trial;
    if (std::abs(best) > 1e-9) {  // a tie the tolerance may decide either way
      ASSERT_EQ(ctx.in_collision(), best < 0.0) << "trial " << trial;
    }
    colliding += best < 0.0;
    object_closest += got.pair.shape == object || (got.self && got.pair.obstacle == object);
    // The bracket's own pairs: the hull is never farther, and sometimes nearer (the notch).
    hull_ctx.update(q);
    std::vector<ClosestPair> mesh_pairs, hull_pairs;
    ctx.distances(kInf, true, false, {}, mesh_pairs);
    hull_ctx.distances(kInf, true, false, {}, hull_pairs);
    ASSERT_EQ(mesh_pairs.size(), hull_pairs.size());
    for (size_t i = 0; i < mesh_pairs.size(); ++i) {
      const ClosestPair& m = mesh_pairs[i];
      if (m.pair.shape != object && !(m.self && m.pair.obstacle == object)) continue;
      ASSERT_LE(hull_pairs[i].pair.distance, m.pair.distance + 1e-9) << "trial " << trial;
      hull_nearer += hull_pairs[i].pair.distance < m.pair.distance - 1e-3;
    }
  }
  EXPECT_GT(colliding, 0);
  EXPECT_GT(object_closest, 0);
  EXPECT_GT(hull_nearer, 0);

  // Detached it is a mesh obstacle where the link left it; attached again it is a mesh piece.
  const Eigen::VectorXd q = random_q(robot, rng);
  ctx.update(q);
  const Pose placed = ctx.shape_poses()[size_t(object)];
  const double held_distance = ctx.closest().pair.distance;
  world.detach("bracket", q);  // ctx follows at its next call (CollisionWorld::layout_stamp)
  const auto it = std::find_if(world.obstacles().begin(), world.obstacles().end(),
                               [](const Obstacle& o) { return o.name == "bracket"; });
  ASSERT_NE(it, world.obstacles().end());
  EXPECT_EQ(it->kind(), ObstacleKind::Mesh);
  EXPECT_TRUE(it->pose.isApprox(placed, 1e-12));
  world.attach_obstacle("bracket", "wrist_3_link", q);
  ASSERT_EQ(world.attached().size(), 1u);
  EXPECT_TRUE(world.attached()[0].is_mesh(0));
  EXPECT_TRUE(world.attached()[0].poses[0].isApprox(grip, 1e-12));
  WorldContext again(world);
  again.update(q);
  EXPECT_NEAR(again.closest().pair.distance, held_distance, 1e-12);
  ctx.update(q);
  EXPECT_NEAR(ctx.closest().pair.distance, held_distance, 1e-12);
}

TEST(LinkMeshes, AttachedMeshErrorsNameTheProblem) {
  const RobotModel robot = ur5(LinkMeshRepresentation::Hull);
  AttachedObject part;
  part.name = "bracket";
  part.link = "wrist_3_link";
  EXPECT_THROW(part.add_mesh(nullptr, Pose::Identity()), std::invalid_argument);
  part.add_shape(Sphere{0.01}, Pose::Identity());
  part.add_mesh(bracket(), Pose::Identity());
  ASSERT_EQ(part.meshes.size(), 2u);
  EXPECT_FALSE(part.is_mesh(0));
  EXPECT_NO_THROW((void)robot.with_attached({part}));
  // A shape that does not enclose its mesh would let boxes and early exits miss contacts.
  AttachedObject placeholder = part;
  placeholder.shapes[1] = Sphere{0.01};
  try {
    (void)robot.with_attached({placeholder});
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("shape 1 does not enclose its mesh"), std::string::npos)
        << e.what();
  }
  AttachedObject uneven = part;
  uneven.meshes.pop_back();
  EXPECT_THROW((void)robot.with_attached({uneven}), ModelError);

  // In a scene file: an exact mesh may be held; cells may not.
  const std::string mesh_entry =
      "obstacles: []\nattached:\n  - name: shelf_part\n    link: wrist_3_link\n    type: mesh\n"
      "    file: meshes/shelf.stl\n    scale: [0.1, 0.1, 0.1]\n    representation: mesh\n";
  const Scene scene = parse_scene(mesh_entry, "held.yaml", kScenes);
  ASSERT_EQ(scene.attached.size(), 1u);
  EXPECT_TRUE(scene.attached[0].is_mesh(0));
  EXPECT_NO_THROW(CollisionWorld(robot, scene));
  const std::string cloud_entry =
      "obstacles: []\nattached:\n  - name: bin\n    link: wrist_3_link\n    type: point_cloud\n"
      "    file: clouds/parts_bin.pcd\n    resolution: 0.02\n";
  try {
    (void)parse_scene(cloud_entry, "held.yaml", kScenes);
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("held.yaml:3: attached[0].type"), std::string::npos)
        << e.what();
  }
}

}  // namespace
