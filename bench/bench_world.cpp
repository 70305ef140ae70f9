// The collision world against FCL's broadphase (issue 17 items 8-9): the Panda (fingers at
// 0.02 m) among N = 1 ... 10,000 random boxes, and the Panda in its cell (robots/scenes/
// panda_cell.yaml: an exact shelf mesh, a voxelised point cloud, boxes, a held part). Per
// configuration: FK + validity, FK + minimum distance.
//
// What each engine gets (built once, outside the timed loop):
//  - libgjk: a gjk::robots::CollisionWorld and one WorldContext; per state ctx.update(q) then
//    ctx.in_collision(0.0) or ctx.closest(inf, {}, gradient = false) (signed distance, no
//    gradient: FCL computes none). "robot-world" worlds allow every robot-robot pair in the ACM
//    (no self-collision: what FCL is given); "+self" rows use the SRDF's ACM.
//  - FCL 0.7: one fcl::DynamicAABBTreeCollisionManagerd over the obstacles (setup() once) and one
//    over the robot's shapes (fcl::Convexd on the same hulls, fcl::Boxd for the held part); per
//    state the same FK (gjk::robots::forward_kinematics), setTransform + computeAABB of every
//    robot object, robot manager update(), then env.collide(&robot, ...) with
//    DefaultCollisionFunction (one contact: stops at the first) or env.distance(&robot, ...) with
//    DefaultDistanceFunction (stops at the first pair at distance <= 0; unsigned), both wrapped
//    by a filter that skips the (shape, obstacle) pairs libgjk's ACM leaves out (none in these
//    worlds apart from what the SRDF says), so both check the same pairs. Obstacles: fcl::Boxd,
//    the shelf as fcl::BVHModel<OBBRSSd> on the same triangles, the bin as fcl::OcTreed on an
//    octomap::OcTree built from the same point cloud as robots/src/occupancy.cpp voxelize().
//    Solver: GST_LIBCCD (FCL's default) or GST_INDEP.
//
// --check --sections=world: per state, both engines' validity and distance against a brute
// force over every (robot shape, obstacle primitive) pair with gjk::distance (one flat polytope
// per triangle, one box per cell).
//
// world/ur5_cell: the UR5 with exact link meshes (LinkMeshRepresentation::Mesh: its non-convex
// links as triangles) on a 25 cm pedestal in the same cell without the held part; FCL gets each
// link's triangles as an fcl::BVHModel<OBBRSSd> (what MoveIt's FCL checker builds from a URDF
// mesh). The brute force then runs over every (link triangle, obstacle primitive) pair.
//
// world/sparse/N: the same N boxes at a fixed density (10 per 13.5 m^3, the region growing as
// N^(1/3)), so that what grows with N is the broadphase, not the number of boxes at the arm.
#include "bench.hpp"
#include "peers.hpp"

#include "gjk/robots/collision_world.hpp"
#include "gjk/robots/occupancy.hpp"
#include "gjk/robots/srdf.hpp"

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/broadphase/default_broadphase_callbacks.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/geometry/octree/octree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision_object.h>
#include <octomap/OcTree.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace bench {
namespace {

using gjk::Pose;
using gjk::Vec3;
using gjk::robots::AllowedCollisionMatrix;
using gjk::robots::CollisionWorld;
using gjk::robots::ObstacleKind;
using gjk::robots::RobotModel;
using gjk::robots::Scene;
using gjk::robots::WorldContext;

constexpr std::uint64_t kSeedWorld = 0x5EED0178;
constexpr double kInf = std::numeric_limits<double>::infinity();
const std::vector<int>& obstacle_counts() {
  static const std::vector<int> n{1, 10, 100, 1000, 10000};
  return n;
}
/// States: 200 along the path and 1000 random (20 and 50 with --quick).
int path_states() {
  return config().pairs_3d >= 1000 ? 200 : 20;
}
int random_states() {
  return config().pairs_3d >= 1000 ? 1000 : 50;
}

const RobotModel& panda() {
  static const RobotModel m =
      RobotModel::from_urdf_file(std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf");
  return m;
}
const RobotModel& ur5_meshes() {
  static const RobotModel m = [] {
    gjk::robots::UrdfOptions options;
    options.meshes = gjk::robots::LinkMeshRepresentation::Mesh;
    return RobotModel::from_urdf_file(std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/ur5/ur5.urdf",
                                      options);
  }();
  return m;
}
const gjk::robots::Srdf& panda_srdf() {
  static const gjk::robots::Srdf s = gjk::robots::load_srdf(
      std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.srdf", panda());
  return s;
}

/// A random configuration inside the limits (clamped to +-pi), fingers at 0.02 m.
Eigen::VectorXd random_q(const RobotModel& model, std::mt19937_64& rng) {
  Eigen::VectorXd q(model.num_positions());
  for (int i = 0; i < q.size(); ++i) {
    const double lo = std::max(model.lower_limits()[i], -M_PI),
                 hi = std::min(model.upper_limits()[i], M_PI);
    q[i] = std::uniform_real_distribution<double>(lo, hi)(rng);
    if (model.position_names()[static_cast<size_t>(i)].find("finger") != std::string::npos)
      q[i] = 0.02;
  }
  return q;
}

/// bench_robots.cpp's smooth path: `count` states between two random configurations.
std::vector<Eigen::VectorXd> smooth_path(const RobotModel& model, std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  const Eigen::VectorXd a = random_q(model, rng), b = random_q(model, rng);
  std::vector<Eigen::VectorXd> path;
  for (int k = 0; k < count; ++k) path.push_back(a + (b - a) * (k / (count - 1.0)));
  return path;
}

std::vector<Eigen::VectorXd> random_configurations(const RobotModel& model, std::uint64_t seed,
                                                   int count) {
  std::mt19937_64 rng(seed);
  std::vector<Eigen::VectorXd> out;
  for (int k = 0; k < count; ++k) out.push_back(random_q(model, rng));
  return out;
}

/// `acm` with every pair of robot parts (links and held objects) allowed: robot-world only.
AllowedCollisionMatrix without_self(AllowedCollisionMatrix acm, const RobotModel& model,
                                    const std::vector<gjk::robots::AttachedObject>& held) {
  std::vector<std::string> parts;
  for (const auto& l : model.links()) parts.push_back(l.name);
  for (const auto& a : held) parts.push_back(a.name);
  for (size_t i = 0; i < parts.size(); ++i)
    for (size_t k = i; k < parts.size(); ++k) acm.set_allowed(parts[i], parts[k], true);
  return acm;
}

// ---- FCL ------------------------------------------------------------------------------------

std::shared_ptr<fcl::CollisionGeometryd> mesh_to_fcl(const gjk::TriangleMesh& mesh) {
  std::vector<fcl::Triangle> t;
  for (const auto& tri : mesh.triangles()) t.emplace_back(tri[0], tri[1], tri[2]);
  auto m = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
  m->beginModel(static_cast<int>(t.size()), static_cast<int>(mesh.vertices().size()));
  m->addSubModel(std::vector<fcl::Vector3d>(mesh.vertices().begin(), mesh.vertices().end()), t);
  m->endModel();
  return m;
}

/// The cell's bin as voxelize() builds it: every point inserted as occupied, then pruned.
std::shared_ptr<fcl::CollisionGeometryd> cloud_to_fcl(const std::string& path, double resolution,
                                                      size_t expected_cells) {
  auto tree = std::make_shared<octomap::OcTree>(resolution);
  for (const Vec3& p : gjk::robots::load_point_cloud(path))
    tree->updateNode(octomap::point3d(static_cast<float>(p.x()), static_cast<float>(p.y()),
                                      static_cast<float>(p.z())),
                     true, true);
  tree->updateInnerOccupancy();
  tree->prune();
  size_t cells = 0;
  for (auto it = tree->begin_leafs(), end = tree->end_leafs(); it != end; ++it)
    cells += tree->isNodeOccupied(*it) ? 1 : 0;
  if (cells != expected_cells)
    throw std::runtime_error("octree of " + path + ": " + std::to_string(cells) +
                             " occupied leaves, libgjk's BoxSet has " +
                             std::to_string(expected_cells));
  return std::make_shared<fcl::OcTreed>(tree);
}

/// Which part an FCL object is: robot shape `index` or obstacle `index`.
struct Tag {
  bool robot = false;
  int index = 0;
};

/// FCL's view of a world: robot shapes and obstacles in two dynamic AABB trees.
class FclWorld {
 public:
  /// `world`'s ACM decides the pairs (the same as libgjk's robot-world queries); `cloud` is the
  /// point-cloud file of the (at most one) Cells obstacle.
  FclWorld(const CollisionWorld& world, const std::string& cloud = "")
      : world_(world), ws_(world.model()) {
    const auto& shapes = world.model().collision_shapes();
    const auto& obstacles = world.obstacles();
    tags_.reserve(shapes.size() + obstacles.size());
    for (size_t s = 0; s < shapes.size(); ++s) {
      tags_.push_back({true, static_cast<int>(s)});
      robot_objects_.push_back(std::make_unique<fcl::CollisionObjectd>(
          shapes[s].mesh ? mesh_to_fcl(*shapes[s].mesh) : to_fcl(shapes[s].shape),
          Pose::Identity()));
      robot_objects_.back()->setUserData(&tags_.back());
      robot_.registerObject(robot_objects_.back().get());
    }
    for (size_t o = 0; o < obstacles.size(); ++o) {
      const auto& ob = obstacles[o];
      std::shared_ptr<fcl::CollisionGeometryd> g;
      if (ob.kind() == ObstacleKind::Convex) g = to_fcl(ob.shape);
      if (ob.kind() == ObstacleKind::Mesh) g = mesh_to_fcl(*ob.mesh);
      if (ob.kind() == ObstacleKind::Cells)
        g = cloud_to_fcl(cloud, 0.02, ob.cells->centres().size());
      tags_.push_back({false, static_cast<int>(o)});
      env_objects_.push_back(std::make_unique<fcl::CollisionObjectd>(g, ob.pose));
      env_objects_.back()->computeAABB();
      env_objects_.back()->setUserData(&tags_.back());
      env_.registerObject(env_objects_.back().get());
    }
    env_.setup();
    robot_.setup();
  }
  void set_solver(fcl::GJKSolverType t) { solver_ = t; }
  /// An obstacle moved as a user moves it in FCL: new transform, its AABB, its leaf of the
  /// manager (DynamicAABBTreeCollisionManager::update(obj)).
  void move_obstacle(size_t o, const Pose& pose) {
    env_objects_[o]->setTransform(pose);
    env_objects_[o]->computeAABB();
    env_.update(env_objects_[o].get());
  }
  /// A new object in the manager and out again (its pairs are checked as obstacle 0's are).
  void add_and_remove(const std::shared_ptr<fcl::CollisionGeometryd>& geometry, const Pose& pose,
                      const std::function<void()>& between) {
    fcl::CollisionObjectd visitor(geometry, pose);
    visitor.computeAABB();
    visitor.setUserData(&tags_[robot_objects_.size()]);  // obstacle 0's tag
    env_.registerObject(&visitor);
    between();
    env_.unregisterObject(&visitor);
  }

  void update(const Eigen::VectorXd& q) {
    gjk::robots::forward_kinematics(world_.model(), q, ws_);
    for (size_t s = 0; s < robot_objects_.size(); ++s) {
      robot_objects_[s]->setTransform(
          gjk::robots::collision_pose(world_.model(), ws_, static_cast<int>(s)));
      robot_objects_[s]->computeAABB();
    }
    robot_.update();
  }
  bool collide() {
    Data<fcl::DefaultCollisionData<double>> data;
    data.self = this;
    data.data.request.gjk_solver_type = solver_;
    env_.collide(&robot_, &data, &FclWorld::collide_callback);
    return data.data.result.isCollision();
  }
  /// FCL's minimum distance (0 when something touches: FCL stops there; -1 on overlap).
  double distance() {
    Data<fcl::DefaultDistanceData<double>> data;
    data.self = this;
    data.data.request.gjk_solver_type = solver_;
    env_.distance(&robot_, &data, &FclWorld::distance_callback);
    return data.data.result.min_distance;
  }

 private:
  template <class D>
  struct Data {
    D data;  ///< what the default callbacks get
    FclWorld* self = nullptr;
  };
  bool checked(fcl::CollisionObjectd* a, fcl::CollisionObjectd* b) const {
    const auto* ta = static_cast<const Tag*>(a->getUserData());
    const auto* tb = static_cast<const Tag*>(b->getUserData());
    if (ta->robot == tb->robot) return false;
    return ta->robot ? world_.checked(ta->index, tb->index) : world_.checked(tb->index, ta->index);
  }
  static bool collide_callback(fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* p) {
    auto* d = static_cast<Data<fcl::DefaultCollisionData<double>>*>(p);
    if (!d->self->checked(a, b)) return d->data.done;
    return fcl::DefaultCollisionFunction<double>(a, b, &d->data);
  }
  static bool distance_callback(fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* p,
                                double& dist) {
    auto* d = static_cast<Data<fcl::DefaultDistanceData<double>>*>(p);
    if (!d->self->checked(a, b)) {
      dist = d->data.result.min_distance;
      return d->data.done;
    }
    return fcl::DefaultDistanceFunction<double>(a, b, &d->data, dist);
  }

  const CollisionWorld& world_;
  gjk::robots::Workspace ws_;
  std::vector<Tag> tags_;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> robot_objects_, env_objects_;
  fcl::DynamicAABBTreeCollisionManagerd robot_, env_;
  fcl::GJKSolverType solver_ = fcl::GST_LIBCCD;
};

// ---- Data -----------------------------------------------------------------------------------

/// One world in its three forms, with the states to query.
struct WorldCase {
  std::string name;
  std::unique_ptr<CollisionWorld> robot_world;  ///< robot-world pairs only (what FCL gets)
  std::unique_ptr<CollisionWorld> with_self;    ///< the SRDF's ACM: self pairs too
  std::unique_ptr<FclWorld> fcl;
  std::vector<std::vector<Eigen::VectorXd>> states;  ///< [0] the path; [1] random (cell only)
};

/// N boxes with centres uniform in x, y in [-1.5 s, 1.5 s], z in 0.75 + [-0.75 s, 0.75 s].
Scene random_boxes(int n, std::uint64_t seed, double s) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> xy(-1.5 * s, 1.5 * s), z(0.75 - 0.75 * s, 0.75 + 0.75 * s),
      h(0.02, 0.1);
  std::normal_distribution<double> g;
  Scene scene;
  for (int i = 0; i < n; ++i) {
    Pose p = Pose::Identity();
    Eigen::Quaterniond r(g(rng), g(rng), g(rng), g(rng));
    p.linear() = r.normalized().toRotationMatrix();
    p.translation() = Vec3(xy(rng), xy(rng), z(rng));
    const Vec3 half(h(rng), h(rng), h(rng));
    scene.obstacles.push_back({"box" + std::to_string(i), gjk::Box{half}, p});
  }
  return scene;
}

/// Scaling worlds: N boxes in the fixed 3 x 3 x 1.5 m region around the arm (`sparse` false),
/// or at a fixed density of 10 boxes per 13.5 m^3 (`sparse`: the region grows as N^(1/3), so
/// the number of boxes near the arm stays about the same).
const WorldCase& scaling_case(size_t k, bool sparse = false) {
  static std::map<std::pair<size_t, bool>, std::unique_ptr<WorldCase>> cases;
  auto& c = cases[{k, sparse}];
  if (!c) {
    const int n = obstacle_counts()[k];
    c = std::make_unique<WorldCase>();
    c->name = (sparse ? "sparse " : "") + std::to_string(n);
    const Scene scene =
        random_boxes(n, kSeedWorld + static_cast<std::uint64_t>(n) + (sparse ? 7 : 0),
                     sparse ? std::cbrt(n / 10.0) : 1.0);
    c->robot_world = std::make_unique<CollisionWorld>(
        panda(), scene, without_self(AllowedCollisionMatrix{}, panda(), {}));
    c->with_self = std::make_unique<CollisionWorld>(
        panda(), scene, gjk::robots::acm_from_srdf(panda(), panda_srdf()));
    c->fcl = std::make_unique<FclWorld>(*c->robot_world);
    c->states.push_back(smooth_path(panda(), kSeedWorld + 1, path_states()));
  }
  return *c;
}

const WorldCase& cell_case() {
  static const std::unique_ptr<WorldCase> c = [] {
    auto w = std::make_unique<WorldCase>();
    w->name = "panda_cell";
    const std::string dir = GJK_ROBOT_SCENES_DIR;
    const Scene scene = gjk::robots::load_scene(dir + "/panda_cell.yaml");
    const AllowedCollisionMatrix acm = gjk::robots::acm_from_srdf(panda(), panda_srdf());
    w->robot_world = std::make_unique<CollisionWorld>(panda(), scene,
                                                      without_self(acm, panda(), scene.attached));
    w->with_self = std::make_unique<CollisionWorld>(panda(), scene, acm);
    w->fcl = std::make_unique<FclWorld>(*w->robot_world, dir + "/clouds/parts_bin.pcd");
    w->states.push_back(smooth_path(panda(), kSeedWorld + 2, path_states()));
    w->states.push_back(random_configurations(panda(), kSeedWorld + 3, random_states()));
    return w;
  }();
  return *c;
}

/// A collision-free straight joint-space path of `count` states (a path a planner returns):
/// the first pair of random configurations (from `seed`) whose `count` states along the segment
/// are all clear of `world`'s obstacles.
std::vector<Eigen::VectorXd> free_path(const CollisionWorld& world, std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  WorldContext ctx(world);
  std::vector<Eigen::VectorXd> path(static_cast<size_t>(count));
  for (int attempt = 0; attempt < 100000; ++attempt) {
    const Eigen::VectorXd a = random_q(world.model(), rng), b = random_q(world.model(), rng);
    bool free = true;
    for (int k = 0; k < count && free; ++k) {
      path[static_cast<size_t>(k)] = a + (b - a) * (k / (count - 1.0));
      ctx.update(path[static_cast<size_t>(k)]);
      free = !ctx.in_collision(0.0);
    }
    if (free) return path;
  }
  throw std::runtime_error("free_path: no collision-free segment in 100000 attempts");
}

/// Issue 18 item 4's scene: the Panda among the four boxes of robots/scenes/panda_boxes.yaml (the
/// clearance tool's default scene), robot-world pairs with the fingers at 0.02 m.
const WorldCase& panda_boxes_case() {
  static const std::unique_ptr<WorldCase> c = [] {
    auto w = std::make_unique<WorldCase>();
    w->name = "panda_boxes";
    const Scene scene =
        gjk::robots::load_scene(std::string(GJK_ROBOT_SCENES_DIR) + "/panda_boxes.yaml");
    const AllowedCollisionMatrix acm = gjk::robots::acm_from_srdf(panda(), panda_srdf());
    w->robot_world = std::make_unique<CollisionWorld>(panda(), scene,
                                                      without_self(acm, panda(), scene.attached));
    w->with_self = std::make_unique<CollisionWorld>(panda(), scene, acm);
    w->fcl = std::make_unique<FclWorld>(*w->robot_world);
    w->states.push_back(free_path(*w->robot_world, kSeedWorld + 6, path_states()));
    w->states.push_back(random_configurations(panda(), kSeedWorld + 7, random_states()));
    return w;
  }();
  return *c;
}

/// The UR5 with exact link meshes in the Panda's cell (its held part left out: no hand here),
/// on a pedestal so that its stretched-out poses clear the table.
const WorldCase& ur5_cell_case() {
  static const std::unique_ptr<WorldCase> c = [] {
    auto w = std::make_unique<WorldCase>();
    w->name = "ur5_cell (mesh links)";
    const std::string dir = GJK_ROBOT_SCENES_DIR;
    Scene scene = gjk::robots::load_scene(dir + "/panda_cell.yaml");
    scene.attached.clear();
    w->robot_world = std::make_unique<CollisionWorld>(
        ur5_meshes(), scene, without_self(AllowedCollisionMatrix{}, ur5_meshes(), {}));
    w->with_self = std::make_unique<CollisionWorld>(ur5_meshes(), scene);  // adjacency ACM
    Pose pedestal = Pose::Identity();  // the arm on a 25 cm pedestal above the table
    pedestal.translation() = Vec3(0.0, 0.0, 0.25);
    w->robot_world->set_base_pose(pedestal);
    w->with_self->set_base_pose(pedestal);
    w->fcl = std::make_unique<FclWorld>(*w->robot_world, dir + "/clouds/parts_bin.pcd");
    w->states.push_back(smooth_path(ur5_meshes(), kSeedWorld + 4, path_states()));
    w->states.push_back(random_configurations(ur5_meshes(), kSeedWorld + 5, random_states()));
    return w;
  }();
  return *c;
}

// ---- Timed loops ----------------------------------------------------------------------------

enum class Run {
  GjkCollide,
  GjkCollideSelf,
  FclCollideCcd,
  FclCollideIndep,
  GjkClosest,
  GjkClosestSelf,
  GjkClosestShuffled,
  GjkClosestFresh,
  GjkContextOnly,
  FclDistanceCcd,
  FclDistanceIndep,
  GjkUpdateOnly,
  FclUpdateOnly,
  GjkCollideThenClosest,
};

void time_run(benchmark::State& state, const WorldCase& c, size_t set, Run run) {
  const auto& states = c.states[set];
  const CollisionWorld& world =
      run == Run::GjkCollideSelf || run == Run::GjkClosestSelf ? *c.with_self : *c.robot_world;
  // One context for all passes (warm starts carry over; the wrap from the last state back to the
  // first is one jump in 200).
  WorldContext ctx(world);
  std::vector<size_t> order(states.size());
  std::iota(order.begin(), order.end(), 0);
  if (run == Run::GjkClosestShuffled) std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
  if (run == Run::FclCollideIndep || run == Run::FclDistanceIndep)
    c.fcl->set_solver(fcl::GST_INDEP);
  else
    c.fcl->set_solver(fcl::GST_LIBCCD);
  double sink = 0.0;
  for (auto _ : state) {
    for (const size_t i : order) {
      const Eigen::VectorXd& q = states[i];
      switch (run) {
        case Run::GjkCollide:
        case Run::GjkCollideSelf:
          ctx.update(q);
          sink += ctx.in_collision(0.0) ? 1.0 : 0.0;
          break;
        case Run::GjkClosest:
        case Run::GjkClosestSelf:
        case Run::GjkClosestShuffled:
          ctx.update(q);
          sink += ctx.closest(kInf, {}, false).pair.distance;
          break;
        case Run::GjkClosestFresh: {
          WorldContext fresh(world);
          fresh.update(q);
          sink += fresh.closest(kInf, {}, false).pair.distance;
          break;
        }
        case Run::GjkContextOnly: {
          WorldContext fresh(world);
          sink += static_cast<double>(fresh.shape_poses().size());
          break;
        }
        case Run::FclCollideCcd:
        case Run::FclCollideIndep:
          c.fcl->update(q);
          sink += c.fcl->collide() ? 1.0 : 0.0;
          break;
        case Run::FclDistanceCcd:
        case Run::FclDistanceIndep:
          c.fcl->update(q);
          sink += c.fcl->distance();
          break;
        case Run::GjkCollideThenClosest:  // FCL's answer: 0 at the first contact, else the minimum
          ctx.update(q);
          sink += ctx.in_collision(0.0) ? 0.0 : ctx.closest(kInf, {}, false).pair.distance;
          break;
        case Run::GjkUpdateOnly:
          ctx.update(q);
          sink += ctx.shape_poses()[0].translation().x();  // FK, poses, loose boxes
          break;
        case Run::FclUpdateOnly:
          c.fcl->update(q);
          sink += 1.0;
          break;
      }
    }
    benchmark::DoNotOptimize(sink);
  }
  set_per_query_counters(state, states.size());
}

const std::vector<std::pair<std::string, Run>>& runs() {
  static const std::vector<std::pair<std::string, Run>> r{
      {"collide/libgjk", Run::GjkCollide},
      {"collide/libgjk+self", Run::GjkCollideSelf},
      {"collide/fcl-ccd", Run::FclCollideCcd},
      {"collide/fcl-indep", Run::FclCollideIndep},
      {"distance/libgjk", Run::GjkClosest},
      {"distance/libgjk+self", Run::GjkClosestSelf},
      {"distance/libgjk-shuffled", Run::GjkClosestShuffled},
      {"distance/libgjk-fresh-context", Run::GjkClosestFresh},
      {"context/libgjk", Run::GjkContextOnly},
      {"distance/fcl-ccd", Run::FclDistanceCcd},
      {"distance/fcl-indep", Run::FclDistanceIndep},
      {"distance/libgjk-collide-first", Run::GjkCollideThenClosest},
      {"update/libgjk", Run::GjkUpdateOnly},
      {"update/fcl", Run::FclUpdateOnly},
  };
  return r;
}

// ---- Brute force ----------------------------------------------------------------------------

/// Every obstacle as its primitives at world poses: a convex shape, one flat polytope per
/// triangle, one box per cell.
std::vector<std::vector<std::pair<gjk::Shape, Pose>>> primitives(const CollisionWorld& world) {
  std::vector<std::vector<std::pair<gjk::Shape, Pose>>> out;
  for (const auto& o : world.obstacles()) {
    out.emplace_back();
    if (o.kind() == ObstacleKind::Convex) out.back().emplace_back(o.shape, o.pose);
    if (o.kind() == ObstacleKind::Mesh) {
      const auto& v = o.mesh->vertices();
      for (const auto& t : o.mesh->triangles())
        out.back().emplace_back(
            gjk::Shape(gjk::ConvexPolytope::from_hull_vertices({v[t[0]], v[t[1]], v[t[2]]})),
            o.pose);
    }
    if (o.kind() == ObstacleKind::Cells) {
      for (size_t i = 0; i < o.cells->centres().size(); ++i) {
        Pose p = Pose::Identity();
        p.translation() = o.cells->centres()[i];
        out.back().emplace_back(gjk::Shape(gjk::Box{o.cells->half_extents()[i]}), o.pose * p);
      }
    }
  }
  return out;
}

/// Prints one Markdown row per (case, state set): counts and errors against brute force.
void check_case(const WorldCase& c, size_t set, const std::string& label) {
  const CollisionWorld& world = *c.robot_world;
  const auto prims = primitives(world);
  size_t primitive_count = 0;
  for (const auto& p : prims) primitive_count += p.size();
  const auto& shapes = world.model().collision_shapes();
  WorldContext ctx(world), self_ctx(*c.with_self);
  int colliding = 0, self_colliding = 0, gjk_wrong = 0, fcl_ccd_wrong = 0, fcl_indep_wrong = 0;
  int gjk_off = 0, ccd_off = 0, indep_off = 0;
  double gjk_err = 0.0, ccd_err = 0.0, indep_err = 0.0, min_d = kInf, candidates = 0.0;
  std::vector<std::vector<gjk::Aabb>> prim_boxes;
  for (const auto& p : prims) {
    prim_boxes.emplace_back();
    for (const auto& [shape, pose] : p) prim_boxes.back().push_back(gjk::bounding_box(shape, pose));
  }
  for (const Eigen::VectorXd& q : c.states[set]) {
    ctx.update(q);
    for (size_t s = 0; s < shapes.size(); ++s)
      world.obstacle_tree().query(ctx.shape_boxes()[s], [&](int) {
        candidates += 1.0;
        return true;
      });
    // A robot shape as its primitives: the convex shape, or one flat polytope per triangle.
    double brute = kInf;
    for (size_t s = 0; s < shapes.size(); ++s) {
      std::vector<std::pair<gjk::Shape, Pose>> robot_prims;
      if (shapes[s].mesh) {
        const auto& v = shapes[s].mesh->vertices();
        for (const auto& t : shapes[s].mesh->triangles())
          robot_prims.emplace_back(
              gjk::Shape(gjk::ConvexPolytope::from_hull_vertices({v[t[0]], v[t[1]], v[t[2]]})),
              ctx.shape_poses()[s]);
      } else {
        robot_prims.emplace_back(shapes[s].shape, ctx.shape_poses()[s]);
      }
      for (size_t o = 0; o < prims.size(); ++o) {
        if (!world.checked(static_cast<int>(s), static_cast<int>(o))) continue;
        for (const auto& [robot_shape, robot_pose] : robot_prims) {
          const gjk::Aabb robot_box = gjk::bounding_box(robot_shape, robot_pose);
          for (size_t k = 0; k < prims[o].size(); ++k) {
            // A box gap is a lower bound on the distance: such a pair cannot beat `brute`.
            if (gjk::distance(robot_box, prim_boxes[o][k]) >= brute) continue;
            brute = std::min(
                brute, gjk::distance(robot_shape, robot_pose, prims[o][k].first, prims[o][k].second)
                           .distance);
          }
        }
      }
    }
    min_d = std::min(min_d, brute);
    const bool hit = brute <= 0.0;
    colliding += hit ? 1 : 0;
    gjk_wrong += ctx.in_collision(0.0) != hit ? 1 : 0;
    const double g = std::max(0.0, ctx.closest(kInf, {}, false).pair.distance);
    gjk_err = std::max(gjk_err, std::abs(g - brute));
    gjk_off += std::abs(g - brute) > 1e-9 ? 1 : 0;
    self_ctx.update(q);
    self_colliding += self_ctx.in_collision(0.0) ? 1 : 0;
    c.fcl->update(q);
    for (const auto solver : {fcl::GST_LIBCCD, fcl::GST_INDEP}) {
      c.fcl->set_solver(solver);
      const bool fcl_hit = c.fcl->collide();
      const double f = std::max(0.0, c.fcl->distance());
      const double e = std::abs(f - brute);
      if (solver == fcl::GST_LIBCCD) {
        fcl_ccd_wrong += fcl_hit != hit ? 1 : 0;
        ccd_err = std::max(ccd_err, e);
        ccd_off += e > 1e-6 ? 1 : 0;
      } else {
        fcl_indep_wrong += fcl_hit != hit ? 1 : 0;
        indep_err = std::max(indep_err, e);
        indep_off += e > 1e-6 ? 1 : 0;
      }
    }
  }
  std::printf(
      "| %s | %s | %zu | %zu | %zu | %.1f | %d | %d | %.3g | %d | %.3g (%d) | %d | %.3g (%d) | %d "
      "| %.3g (%d) |\n",
      c.name.c_str(), label.c_str(), world.obstacles().size(), primitive_count,
      c.states[set].size(), candidates / static_cast<double>(c.states[set].size()), colliding,
      self_colliding, min_d, gjk_wrong, gjk_err, gjk_off, fcl_ccd_wrong, ccd_err, ccd_off,
      fcl_indep_wrong, indep_err, indep_off);
  std::fflush(stdout);
}

/// 64 poses on a circle in front of the Panda, turning about z: where the moved or added box goes.
std::vector<Pose> poses_in_front() {
  std::vector<Pose> poses(64, Pose::Identity());
  for (size_t k = 0; k < poses.size(); ++k) {
    const double t =
        2.0 * std::acos(-1.0) * static_cast<double>(k) / static_cast<double>(poses.size());
    poses[k].translation() = Vec3(0.5 + 0.2 * std::cos(t), 0.2 * std::sin(t), 0.6);
    poses[k].linear() = Eigen::AngleAxisd(t, Vec3::UnitZ()).toRotationMatrix();
  }
  return poses;
}

/// The Panda with its SRDF among n random boxes, one world per (run kind, n): the runs edit it.
CollisionWorld& edited_world(std::map<int, std::unique_ptr<CollisionWorld>>& worlds, int n,
                             std::uint64_t seed) {
  auto& world = worlds[n];
  if (!world)
    world = std::make_unique<CollisionWorld>(
        panda(), random_boxes(n, seed + static_cast<std::uint64_t>(n), 1.0),
        gjk::robots::acm_from_srdf(panda(), panda_srdf()));
  return *world;
}

/// One obstacle moved every control cycle (a tracked object in the cell): the move alone, a
/// cycle of move + update(q) + in_collision() on one long-lived context, and the same cycle with
/// a new context per move (what a caller had to do while every edit retired the contexts).
enum class MoveRun { Move, Cycle, CycleNewContext, FclMove, FclCycle };

void time_move(benchmark::State& state, int n, MoveRun run) {
  static std::map<int, std::unique_ptr<CollisionWorld>> worlds;
  CollisionWorld& world = edited_world(worlds, n, kSeedWorld + 11);
  static const std::vector<Eigen::VectorXd> path = smooth_path(panda(), kSeedWorld + 1, 64);
  const std::vector<Pose> poses = poses_in_front();  // box0 circling in front of the arm
  size_t i = 0;
  double sink = 0.0;
  if (run == MoveRun::FclMove || run == MoveRun::FclCycle) {  // FCL moving the same box
    static std::map<int, std::unique_ptr<FclWorld>> fcl_worlds;
    auto& fcl_world = fcl_worlds[n];
    if (!fcl_world) fcl_world = std::make_unique<FclWorld>(world);
    for (auto _ : state) {
      fcl_world->move_obstacle(0, poses[i % poses.size()]);
      if (run == MoveRun::FclCycle) {
        fcl_world->update(path[i % path.size()]);
        sink += fcl_world->collide() ? 1.0 : 0.0;
      }
      ++i;
    }
    benchmark::DoNotOptimize(sink);
    set_per_query_counters(state, 1);
    return;
  }
  const std::string moved = world.obstacles()[0].name;
  WorldContext ctx(world);
  for (auto _ : state) {
    world.move_obstacle(moved, poses[i % poses.size()]);
    const Eigen::VectorXd& q = path[i % path.size()];
    if (run == MoveRun::Cycle) {
      ctx.update(q);
      sink += ctx.in_collision(0.0) ? 1.0 : 0.0;
    } else if (run == MoveRun::CycleNewContext) {
      WorldContext fresh(world);
      fresh.update(q);
      sink += fresh.in_collision(0.0) ? 1.0 : 0.0;
    }
    ++i;
  }
  benchmark::DoNotOptimize(sink);
  set_per_query_counters(state, 1);
}

/// An obstacle added and removed again every control cycle (an object that comes into the cell
/// and goes): the edits alone, a cycle of add + update(q) + in_collision() + remove on one
/// long-lived context, the same with a new context after the addition (what a caller had to do
/// while every edit retired the contexts), and FCL's manager doing the same
/// (registerObject / unregisterObject, with its update(q) + collide() between).
enum class EditRun { Edit, Cycle, CycleNewContext, FclEdit, FclCycle };

void time_edit(benchmark::State& state, int n, EditRun run) {
  static std::map<int, std::unique_ptr<CollisionWorld>> worlds;
  static std::map<int, std::unique_ptr<FclWorld>> fcl_worlds;
  CollisionWorld& world = edited_world(worlds, n, kSeedWorld + 13);
  static const std::vector<Eigen::VectorXd> path = smooth_path(panda(), kSeedWorld + 1, 64);
  const Vec3 half(0.05, 0.04, 0.03);
  const std::vector<Pose> poses = poses_in_front();  // where the visitor appears
  size_t i = 0;
  double sink = 0.0;
  if (run == EditRun::FclEdit || run == EditRun::FclCycle) {
    auto& fcl_world = fcl_worlds[n];
    if (!fcl_world) fcl_world = std::make_unique<FclWorld>(world);
    const auto box = std::make_shared<fcl::Boxd>(2.0 * half);
    for (auto _ : state) {
      const Eigen::VectorXd& q = path[i % path.size()];
      fcl_world->add_and_remove(box, poses[i % poses.size()], [&] {
        if (run == EditRun::FclCycle) {
          fcl_world->update(q);
          sink += fcl_world->collide() ? 1.0 : 0.0;
        }
      });
      ++i;
    }
    benchmark::DoNotOptimize(sink);
    set_per_query_counters(state, 1);
    return;
  }
  gjk::robots::Obstacle visitor;
  visitor.name = "visitor";
  visitor.shape = gjk::Box{half};
  WorldContext ctx(world);
  for (auto _ : state) {
    visitor.pose = poses[i % poses.size()];
    world.add_obstacle(visitor);
    const Eigen::VectorXd& q = path[i % path.size()];
    if (run == EditRun::Cycle) {
      ctx.update(q);
      sink += ctx.in_collision(0.0) ? 1.0 : 0.0;
    } else if (run == EditRun::CycleNewContext) {
      WorldContext fresh(world);
      fresh.update(q);
      sink += fresh.in_collision(0.0) ? 1.0 : 0.0;
    }
    world.remove_obstacle(visitor.name);
    ++i;
  }
  benchmark::DoNotOptimize(sink);
  set_per_query_counters(state, 1);
}

/// A part picked up and put back every cycle (pick and place): attach_obstacle() takes the box
/// from the obstacles onto the hand, detach() puts it back at the hand's pose. The validity rows
/// query while the part is held: a new context each cycle (Cycle), or one context that follows
/// the grasps and releases, keeping its warm starts (Follow).
enum class GraspRun { GraspRelease, Cycle, Follow };

void time_grasp(benchmark::State& state, int n, GraspRun run) {
  static std::map<int, std::unique_ptr<CollisionWorld>> worlds;
  const bool fresh = worlds.find(n) == worlds.end();
  CollisionWorld& world = edited_world(worlds, n, kSeedWorld + 17);
  static const std::vector<Eigen::VectorXd> path = smooth_path(panda(), kSeedWorld + 1, 64);
  const std::vector<std::string> touch{"panda_leftfinger", "panda_rightfinger"};
  if (fresh) {  // the part between the fingers at the path's first configuration
    gjk::robots::Workspace ws(panda());
    gjk::robots::forward_kinematics(panda(), path[0], ws);
    gjk::robots::Obstacle part;
    part.name = "part";
    part.shape = gjk::Box{Vec3(0.02, 0.02, 0.02)};
    part.pose = ws.link_poses[static_cast<size_t>(panda().link_index("panda_hand"))];
    part.pose.translation() += part.pose.linear() * Vec3(0, 0, 0.1);
    world.add_obstacle(part);
  }
  size_t i = 0;
  double sink = 0.0;
  WorldContext follower(world);
  for (auto _ : state) {
    const Eigen::VectorXd& q = path[i % path.size()];
    world.attach_obstacle("part", "panda_hand", q, touch);
    if (run == GraspRun::Cycle) {
      WorldContext ctx(world);
      ctx.update(q);
      sink += ctx.in_collision(0.0) ? 1.0 : 0.0;
    } else if (run == GraspRun::Follow) {
      follower.update(q);
      sink += follower.in_collision(0.0) ? 1.0 : 0.0;
    }
    world.detach("part", q);
    ++i;
  }
  benchmark::DoNotOptimize(sink);
  set_per_query_counters(state, 1);
}

}  // namespace

namespace {

// world/tree/N/ORDER/QUERY: the obstacle tree alone (gjk::AabbTree), N random boxes (half sides
// 0.05-0.5 m) at a fixed density (centres in a cube of side 2 N^(1/3) m), made by build()
// ("built"), by insert() in random order ("random") or in the order of their lowest x
// ("sorted"), or built and then moved 5 N times by move() to new random boxes ("moved").
// QUERY: "overlap" = query() with a 0.6 m cube, "nearest" = nearest() with no bound, per probe,
// over 1,000 probes. world/tree/N/insert: insert() of the N boxes in random order into an empty
// tree, per box. What differs between orders is the tree's shape: the same boxes, the same
// probes and answers.
enum class TreeOrder { Built, Random, Sorted, Moved };

struct TreeCase {
  std::vector<std::pair<gjk::Aabb, int>> boxes;
  std::vector<gjk::Aabb> probes;
  double extent = 0.0;
};

gjk::Aabb random_tree_box(std::mt19937_64& rng, double extent) {
  std::uniform_real_distribution<double> centre(-extent, extent), half(0.05, 0.5);
  const Vec3 c(centre(rng), centre(rng), centre(rng));
  const Vec3 h(half(rng), half(rng), half(rng));
  return gjk::Aabb(c - h, c + h);
}

const TreeCase& tree_case(int n) {
  static std::map<int, TreeCase> cases;
  auto [it, fresh] = cases.try_emplace(n);
  if (fresh) {
    TreeCase& c = it->second;
    c.extent = std::cbrt(static_cast<double>(n));
    std::mt19937_64 rng(0x7ee + static_cast<unsigned>(n));
    for (int i = 0; i < n; ++i) c.boxes.emplace_back(random_tree_box(rng, c.extent), i);
    std::uniform_real_distribution<double> centre(-c.extent, c.extent);
    for (int i = 0; i < 1000; ++i) {
      const Vec3 p(centre(rng), centre(rng), centre(rng));
      c.probes.emplace_back(p - Vec3::Constant(0.3), p + Vec3::Constant(0.3));
    }
  }
  return it->second;
}

gjk::AabbTree make_tree(const TreeCase& c, TreeOrder order) {
  gjk::AabbTree tree;
  if (order == TreeOrder::Built || order == TreeOrder::Moved) tree.build(c.boxes);
  if (order == TreeOrder::Random) {
    for (const auto& [box, id] : c.boxes) tree.insert(box, id);
  } else if (order == TreeOrder::Sorted) {
    auto sorted = c.boxes;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.first.min().x() < b.first.min().x(); });
    for (const auto& [box, id] : sorted) tree.insert(box, id);
  } else if (order == TreeOrder::Moved) {
    std::vector<int> leaf(c.boxes.size());
    tree.for_each_leaf([&](int id, int handle) { leaf[static_cast<size_t>(id)] = handle; });
    std::mt19937_64 rng(0xb0b);
    std::uniform_int_distribution<size_t> pick(0, c.boxes.size() - 1);
    for (size_t k = 0; k < 5 * c.boxes.size(); ++k) {
      const size_t i = pick(rng);
      leaf[i] = tree.move(leaf[i], random_tree_box(rng, c.extent));
    }
  }
  return tree;
}

void time_tree_query(benchmark::State& state, int n, TreeOrder order, bool nearest) {
  const TreeCase& c = tree_case(n);
  const gjk::AabbTree tree = make_tree(c, order);
  size_t sink = 0;
  for (auto _ : state) {
    for (const gjk::Aabb& probe : c.probes) {
      if (nearest) {
        sink += static_cast<size_t>(tree.nearest(probe, std::numeric_limits<double>::infinity(),
                                                 [](int, double gap) { return gap; }) *
                                    1e3);
      } else {
        tree.query(probe, [&](int id) {
          sink += static_cast<size_t>(id);
          return true;
        });
      }
    }
  }
  benchmark::DoNotOptimize(sink);
  state.counters["height"] = tree.height();
  set_per_query_counters(state, c.probes.size());
}

void time_tree_insert(benchmark::State& state, int n) {
  const TreeCase& c = tree_case(n);
  gjk::AabbTree tree;
  for (auto _ : state) {
    tree.clear();
    tree.reserve(n);
    for (const auto& [box, id] : c.boxes) tree.insert(box, id);
    benchmark::DoNotOptimize(tree.height());
  }
  set_per_query_counters(state, c.boxes.size());
}

void register_tree_rows() {
  for (const int n : {1000, 10000, 100000}) {
    const std::string prefix = "world/tree/" + std::to_string(n) + "/";
    benchmark::RegisterBenchmark((prefix + "insert").c_str(),
                                 [n](benchmark::State& state) { time_tree_insert(state, n); });
    for (const auto& [order_name, order] :
         {std::pair{"built", TreeOrder::Built}, std::pair{"random", TreeOrder::Random},
          std::pair{"sorted", TreeOrder::Sorted}, std::pair{"moved", TreeOrder::Moved}})
      for (const bool nearest : {false, true})
        benchmark::RegisterBenchmark(
            (prefix + order_name + (nearest ? "/nearest" : "/overlap")).c_str(),
            [n, order = order, nearest](benchmark::State& state) {
              time_tree_query(state, n, order, nearest);
            });
  }
}

}  // namespace

/// Rows `prefix/N/name` for N in 4 to 10,000 boxes, each calling time(state, N, run).
template <class Run>
void register_edit_rows(const std::string& prefix,
                        std::initializer_list<std::pair<const char*, Run>> rows,
                        void (*time)(benchmark::State&, int, Run)) {
  for (const int n : {4, 100, 1000, 10000})
    for (const auto& [name, run] : rows)
      benchmark::RegisterBenchmark(
          (prefix + "/" + std::to_string(n) + "/" + name).c_str(),
          [n, run = run, time](benchmark::State& state) { time(state, n, run); });
}

void register_world() {
  register_tree_rows();
  register_edit_rows<EditRun>("world/edit",
                              {{"add+remove", EditRun::Edit},
                               {"add+validity+remove", EditRun::Cycle},
                               {"add+new-context+validity+remove", EditRun::CycleNewContext},
                               {"fcl-add+remove", EditRun::FclEdit},
                               {"fcl-add+validity+remove", EditRun::FclCycle}},
                              &time_edit);
  register_edit_rows<GraspRun>("world/grasp",
                               {{"grasp+release", GraspRun::GraspRelease},
                                {"grasp+new-context+validity+release", GraspRun::Cycle},
                                {"grasp+validity+release", GraspRun::Follow}},
                               &time_grasp);
  register_edit_rows<MoveRun>("world/move",
                              {{"move_obstacle", MoveRun::Move},
                               {"move+validity", MoveRun::Cycle},
                               {"move+new-context+validity", MoveRun::CycleNewContext},
                               {"fcl-move", MoveRun::FclMove},
                               {"fcl-move+validity", MoveRun::FclCycle}},
                              &time_move);
  for (size_t k = 0; k < obstacle_counts().size(); ++k)
    for (size_t r = 0; r < runs().size(); ++r)
      benchmark::RegisterBenchmark(
          ("world/boxes/" + std::to_string(obstacle_counts()[k]) + "/" + runs()[r].first).c_str(),
          [k, r](benchmark::State& state) {
            time_run(state, scaling_case(k), 0, runs()[r].second);
          });
  for (size_t k = 0; k < obstacle_counts().size(); ++k)
    for (size_t r = 0; r < runs().size(); ++r) {
      const std::string& name = runs()[r].first;
      if (name.find("+self") != std::string::npos || name.find("-shuffled") != std::string::npos ||
          name.find("-fresh") != std::string::npos || name.find("context/") == 0)
        continue;
      benchmark::RegisterBenchmark(
          ("world/sparse/" + std::to_string(obstacle_counts()[k]) + "/" + name).c_str(),
          [k, r](benchmark::State& state) {
            time_run(state, scaling_case(k, true), 0, runs()[r].second);
          });
    }
  for (size_t set = 0; set < 2; ++set)
    for (size_t r = 0; r < runs().size(); ++r)
      benchmark::RegisterBenchmark(
          (std::string("world/cell/") + (set == 0 ? "path" : "random") + "/" + runs()[r].first)
              .c_str(),
          [set, r](benchmark::State& state) {
            time_run(state, cell_case(), set, runs()[r].second);
          });
  for (size_t set = 0; set < 2; ++set)
    for (size_t r = 0; r < runs().size(); ++r)
      benchmark::RegisterBenchmark((std::string("world/panda_boxes/") +
                                    (set == 0 ? "path" : "random") + "/" + runs()[r].first)
                                       .c_str(),
                                   [set, r](benchmark::State& state) {
                                     time_run(state, panda_boxes_case(), set, runs()[r].second);
                                   });
  for (size_t set = 0; set < 2; ++set)
    for (size_t r = 0; r < runs().size(); ++r)
      benchmark::RegisterBenchmark(
          (std::string("world/ur5_cell/") + (set == 0 ? "path" : "random") + "/" + runs()[r].first)
              .c_str(),
          [set, r](benchmark::State& state) {
            time_run(state, ur5_cell_case(), set, runs()[r].second);
          });
}

void check_world() {
  std::printf(
      "\n## Collision world: validity and minimum distance vs brute force (robot-world pairs)\n\n"
      "| world | states | obstacles | primitives | n | box-overlap pairs per state | colliding "
      "(brute force) | libgjk+self colliding | min distance | libgjk validity wrong | libgjk max "
      "err (> 1e-9) | FCL ccd validity wrong | FCL ccd max err (> 1e-6) | FCL indep validity "
      "wrong | FCL indep max err (> 1e-6) |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  {
    std::string hulls;
    for (const auto& cs : panda().collision_shapes())
      if (const auto* h = std::get_if<gjk::ConvexPolytope>(&cs.shape.geometry))
        hulls += " " + std::to_string(h->vertices().size());
    std::printf("<!-- Panda hull vertex counts:%s -->\n", hulls.c_str());
  }
  {
    std::string parts;
    for (const auto& o : cell_case().robot_world->obstacles())
      parts += " " + o.name + "=" +
               std::to_string(o.kind() == ObstacleKind::Mesh    ? o.mesh->triangles().size()
                              : o.kind() == ObstacleKind::Cells ? o.cells->centres().size()
                                                                : 1);
    size_t pairs = 0;
    const CollisionWorld& w = *cell_case().robot_world;
    for (size_t s = 0; s < w.model().collision_shapes().size(); ++s)
      for (size_t o = 0; o < w.obstacles().size(); ++o)
        pairs += w.checked(static_cast<int>(s), static_cast<int>(o)) ? 1 : 0;
    std::printf(
        "<!-- cell primitives:%s; robot shapes %zu; checked robot-obstacle pairs %zu; SRDF self "
        "pairs %zu -->\n",
        parts.c_str(), w.model().collision_shapes().size(), pairs,
        cell_case().with_self->self_pairs().size());
  }
  for (size_t k = 0; k < obstacle_counts().size(); ++k) check_case(scaling_case(k), 0, "path");
  for (size_t k = 0; k < obstacle_counts().size(); ++k)
    check_case(scaling_case(k, true), 0, "path");
  check_case(cell_case(), 0, "path");
  check_case(cell_case(), 1, "random");
  check_case(panda_boxes_case(), 0, "path");
  check_case(panda_boxes_case(), 1, "random");
  check_case(ur5_cell_case(), 0, "path");
  check_case(ur5_cell_case(), 1, "random");
}

}  // namespace bench
