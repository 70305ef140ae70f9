// Planner (issue 5): OMPL state validity with the libgjk checker against an FCL checker on the
// same convex hulls and primitives; certified motion validation against OMPL's discrete
// validator at the coarsest resolution that misses no collision on the motion set; the full
// 4-DOF pyramid example at a 1 ms step.
//
// Both validity checkers run the same forward kinematics and check the same pairs (every link
// shape against every obstacle, then the model's self-collision pairs) in the same order and
// stop at the first pair in contact; no broad phase in either. Their answers are compared on
// every configuration (counter "disagree").
#include "bench.hpp"
#include "peers.hpp"

#include "gjk/planner/ompl.hpp"
#include "scenario.hpp"

#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <ompl/base/DiscreteMotionValidator.h>
#include <ompl/util/Console.h>

#include <memory>
#include <random>

namespace bench {
namespace {

namespace ob = ompl::base;
using gjk::planner::CollisionModel;

struct PlannerCase {
  std::string name;
  std::shared_ptr<const gjk::robots::RobotModel> model;
  std::shared_ptr<const gjk::robots::Scene> scene;
  gjk::planner::FixedPositions fixed;
  ob::SpaceInformationPtr si;
  std::shared_ptr<const CollisionModel> collision;
  std::shared_ptr<gjk::planner::StateValidityChecker> checker;
  std::vector<Eigen::VectorXd> configurations;                       ///< full joint vectors
  std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>> motions;  ///< between valid states
};

/// An FCL validity checker on the same shapes and pairs.
class FclChecker {
 public:
  explicit FclChecker(const CollisionModel& c) : c_(c), ws_(c.model()) {
    for (const auto& s : c.model().collision_shapes()) links_.push_back(to_fcl(s.shape));
    for (const auto& o : c.scene().obstacles) obstacles_.push_back(to_fcl(o.shape));
    poses_.resize(links_.size());
    request_.gjk_solver_type = fcl::GST_LIBCCD;
  }
  void set_solver(fcl::GJKSolverType t) { request_.gjk_solver_type = t; }
  /// The same bounding-ball pre-test as the libgjk checker, to compare the engines alone.
  void use_balls(bool on) { balls_ = on; }
  bool is_valid(const Eigen::VectorXd& q) {
    gjk::robots::forward_kinematics(c_.model(), q, ws_);
    centres_.resize(links_.size());
    for (size_t s = 0; s < links_.size(); ++s) {
      poses_[s] = gjk::robots::collision_pose(c_.model(), ws_, static_cast<int>(s));
      centres_[s] = poses_[s] * c_.shape_balls()[s].centre;
    }
    const auto& balls = c_.shape_balls();
    for (size_t s = 0; s < links_.size(); ++s) {
      for (size_t o = 0; o < obstacles_.size(); ++o) {
        const auto& ob = c_.obstacle_balls()[o];
        if (balls_ && (centres_[s] - ob.centre).norm() > balls[s].radius + ob.radius) continue;
        if (collide(links_[s].get(), poses_[s], obstacles_[o].get(), c_.scene().obstacles[o].pose))
          return false;
      }
    }
    for (const auto& [a, b] : c_.self_pairs()) {
      const auto ua = size_t(a), ub = size_t(b);
      if (balls_ && (centres_[ua] - centres_[ub]).norm() > balls[ua].radius + balls[ub].radius)
        continue;
      if (collide(links_[ua].get(), poses_[ua], links_[ub].get(), poses_[ub])) return false;
    }
    return true;
  }

 private:
  bool collide(const fcl::CollisionGeometryd* a, const gjk::Pose& pa,
               const fcl::CollisionGeometryd* b, const gjk::Pose& pb) {
    fcl::CollisionResultd result;
    return fcl::collide(a, pa, b, pb, request_, result) > 0;
  }
  const CollisionModel& c_;
  gjk::robots::Workspace ws_;
  std::vector<std::shared_ptr<fcl::CollisionGeometryd>> links_, obstacles_;
  std::vector<gjk::Pose> poses_;
  std::vector<gjk::Vec3> centres_;
  fcl::CollisionRequestd request_;
  bool balls_ = false;
};

PlannerCase make_case(const std::string& name, gjk::robots::RobotModel model,
                      gjk::robots::Scene scene, gjk::planner::FixedPositions fixed,
                      std::uint64_t seed) {
  ompl::msg::setLogLevel(ompl::msg::LOG_WARN);
  PlannerCase c;
  c.name = name;
  c.model = std::make_shared<const gjk::robots::RobotModel>(std::move(model));
  c.scene = std::make_shared<const gjk::robots::Scene>(std::move(scene));
  c.fixed = fixed;
  c.si = std::make_shared<ob::SpaceInformation>(gjk::planner::make_state_space(*c.model, fixed));
  gjk::planner::CollisionSettings settings;
  settings.fixed_positions = fixed;
  c.collision = gjk::planner::install_collision_checking(c.si, c.model, c.scene, settings);
  c.checker =
      std::static_pointer_cast<gjk::planner::StateValidityChecker>(c.si->getStateValidityChecker());
  std::mt19937_64 rng(seed);
  ob::ScopedState<> state(c.si);
  auto random_state = [&] {
    const auto& bounds = c.si->getStateSpace()->as<ob::RealVectorStateSpace>()->getBounds();
    for (unsigned i = 0; i < c.si->getStateDimension(); ++i)
      state[i] = std::uniform_real_distribution<double>(bounds.low[i], bounds.high[i])(rng);
    return c.checker->to_vector(state.get());
  };
  for (int i = 0; i < 1000; ++i) c.configurations.push_back(random_state());
  // Motions between valid states, 0.3 to 1 rad per joint on average (planner-sized steps):
  // 70 that are free and 30 that collide (by the certified validator), so that a discrete
  // validator has something to miss.
  const auto* certified =
      static_cast<const gjk::planner::CertifiedMotionValidator*>(c.si->getMotionValidator().get());
  int free = 0, colliding = 0;
  for (int tries = 0; (free < 70 || colliding < 30) && tries < 1000000; ++tries) {
    const Eigen::VectorXd a = random_state();
    if (!c.checker->is_valid(a)) continue;
    Eigen::VectorXd b = random_state();
    b = a + (b - a).normalized() * std::uniform_real_distribution<double>(0.3, 1.0)(rng) *
                std::sqrt(double(c.si->getStateDimension()));
    b = b.cwiseMax(c.model->lower_limits()).cwiseMin(c.model->upper_limits());
    if (!c.checker->is_valid(b)) continue;
    const bool ok = certified->certify(a, b).valid;
    if (ok && free < 70) {
      ++free;
      c.motions.emplace_back(a, b);
    } else if (!ok && colliding < 30) {
      ++colliding;
      c.motions.emplace_back(a, b);
    }
  }
  return c;
}

const PlannerCase& four_dof_case() {
  static const PlannerCase c = make_case(
      "four_dof_pyramids",
      gjk::robots::RobotModel::from_urdf_file(std::string(GJK_ROBOT_MODELS_DIR) +
                                              "/four_dof/four_dof_arm.urdf"),
      gjk::robots::load_scene(std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml"), {}, 5);
  return c;
}

const PlannerCase& panda_case() {
  static const PlannerCase c =
      make_case("panda_boxes",
                gjk::robots::RobotModel::from_urdf_file(std::string(GJK_SHARED_ROBOT_MODELS_DIR) +
                                                        "/panda/panda.urdf"),
                gjk::robots::load_scene(std::string(GJK_ROBOT_SCENES_DIR) + "/panda_boxes.yaml"),
                {{"panda_finger_joint1", 0.02}}, 6);
  return c;
}

void validity_gjk(benchmark::State& state, const PlannerCase& c) {
  int valid = 0;
  for (auto _ : state) {
    valid = 0;
    for (const auto& q : c.configurations) valid += c.checker->is_valid(q);
    benchmark::DoNotOptimize(valid);
  }
  set_per_query_counters(state, c.configurations.size());
  state.counters["valid_share"] = double(valid) / double(c.configurations.size());
  state.counters["obstacle_pairs"] =
      double(c.model->collision_shapes().size() * c.scene->obstacles.size());
  state.counters["self_pairs"] = double(c.collision->self_pairs().size());
}

void validity_fcl(benchmark::State& state, const PlannerCase& c, fcl::GJKSolverType solver,
                  bool balls) {
  FclChecker fcl_checker(*c.collision);
  fcl_checker.set_solver(solver);
  fcl_checker.use_balls(balls);
  int disagree = 0, valid = 0;
  for (const auto& q : c.configurations)
    disagree += fcl_checker.is_valid(q) != c.checker->is_valid(q);
  for (auto _ : state) {
    valid = 0;
    for (const auto& q : c.configurations) valid += fcl_checker.is_valid(q);
    benchmark::DoNotOptimize(valid);
  }
  set_per_query_counters(state, c.configurations.size());
  state.counters["valid_share"] = double(valid) / double(c.configurations.size());
  state.counters["disagree"] = disagree;
}

/// The coarsest resolution (as a fraction of the space's extent) at which OMPL's discrete
/// validator rejects every motion of the set that the certified validator rejects.
double resolution_missing_nothing(const PlannerCase& c, ob::SpaceInformation& si) {
  const auto* certified =
      static_cast<const gjk::planner::CertifiedMotionValidator*>(c.si->getMotionValidator().get());
  std::vector<bool> reject;
  for (const auto& [a, b] : c.motions) reject.push_back(!certified->certify(a, b).valid);
  ob::ScopedState<> s1(c.si), s2(c.si);
  for (double fraction : {0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002, 0.0001}) {
    si.setStateValidityCheckingResolution(fraction);
    si.setup();
    ob::DiscreteMotionValidator discrete(&si);
    bool misses = false;
    for (size_t i = 0; i < c.motions.size() && !misses; ++i) {
      if (!reject[i]) continue;
      for (unsigned k = 0; k < c.si->getStateDimension(); ++k) {
        s1[k] = c.motions[i].first[c.collision->active_positions()[k]];
        s2[k] = c.motions[i].second[c.collision->active_positions()[k]];
      }
      misses = discrete.checkMotion(s1.get(), s2.get());
    }
    if (!misses) return fraction;
  }
  return 0.0001;
}

void motion_certified(benchmark::State& state, const PlannerCase& c) {
  const auto* certified =
      static_cast<const gjk::planner::CertifiedMotionValidator*>(c.si->getMotionValidator().get());
  int valid = 0;
  double configurations = 0;
  for (auto _ : state) {
    valid = 0;
    configurations = 0;
    for (const auto& [a, b] : c.motions) {
      const auto cert = certified->certify(a, b);
      valid += cert.valid;
      configurations += cert.steps;
    }
  }
  set_per_query_counters(state, c.motions.size());
  state.counters["valid_share"] = double(valid) / double(c.motions.size());
  state.counters["configs_per_motion"] = configurations / double(c.motions.size());
}

/// fraction <= 0: the coarsest resolution that misses no collision of the motion set.
void motion_discrete(benchmark::State& state, const PlannerCase& c, double fraction) {
  auto si = std::make_shared<ob::SpaceInformation>(c.si->getStateSpace());
  si->setStateValidityChecker(c.checker);
  if (fraction <= 0) fraction = resolution_missing_nothing(c, *si);
  si->setStateValidityCheckingResolution(fraction);
  si->setup();
  ob::DiscreteMotionValidator discrete(si);
  std::vector<std::pair<ob::ScopedState<>, ob::ScopedState<>>> states;
  for (const auto& [a, b] : c.motions) {
    ob::ScopedState<> s1(si), s2(si);
    for (unsigned k = 0; k < si->getStateDimension(); ++k) {
      s1[k] = a[c.collision->active_positions()[k]];
      s2[k] = b[c.collision->active_positions()[k]];
    }
    states.emplace_back(s1, s2);
  }
  int valid = 0;
  for (auto _ : state) {
    valid = 0;
    for (const auto& [s1, s2] : states) valid += discrete.checkMotion(s1.get(), s2.get());
  }
  set_per_query_counters(state, c.motions.size());
  state.counters["valid_share"] = double(valid) / double(c.motions.size());
  state.counters["resolution"] = fraction;  // of the space's maximum extent
  state.counters["segment_rad"] = fraction * si->getMaximumExtent();
}

void four_dof_example(benchmark::State& state) {
  static const gjk::examples::FourDofScenario s = gjk::examples::FourDofScenario::load();
  double share = 0.0;
  for (auto _ : state) {
    const auto r = s.run(-1.0, 1e-3, 0.0, 1000);
    share = r.distance_seconds / r.total_seconds;
    benchmark::DoNotOptimize(r.min_clearance);
  }
  state.counters["distance_share"] = share;
}

}  // namespace

void register_planner() {
  // Cases are built lazily inside the benchmarks so a filtered run pays only for what it runs.
  const std::pair<const char*, const PlannerCase& (*)()> cases[] = {
      {"four_dof_pyramids", &four_dof_case}, {"panda_boxes", &panda_case}};
  for (const auto& [name, get] : cases) {
    benchmark::RegisterBenchmark((std::string("planner/validity/") + name + "/libgjk").c_str(),
                                 [get = get](benchmark::State& s) { validity_gjk(s, get()); });
    benchmark::RegisterBenchmark(
        (std::string("planner/validity/") + name + "/fcl-ccd").c_str(),
        [get = get](benchmark::State& s) { validity_fcl(s, get(), fcl::GST_LIBCCD, false); });
    benchmark::RegisterBenchmark(
        (std::string("planner/validity/") + name + "/fcl-ccd+balls").c_str(),
        [get = get](benchmark::State& s) { validity_fcl(s, get(), fcl::GST_LIBCCD, true); });
    benchmark::RegisterBenchmark(
        (std::string("planner/validity/") + name + "/fcl-indep").c_str(),
        [get = get](benchmark::State& s) { validity_fcl(s, get(), fcl::GST_INDEP, false); });
    benchmark::RegisterBenchmark((std::string("planner/motion/") + name + "/certified").c_str(),
                                 [get = get](benchmark::State& s) { motion_certified(s, get()); });
    benchmark::RegisterBenchmark(
        (std::string("planner/motion/") + name + "/discrete_missing_nothing").c_str(),
        [get = get](benchmark::State& s) { motion_discrete(s, get(), 0.0); });
    benchmark::RegisterBenchmark(
        (std::string("planner/motion/") + name + "/discrete_ompl_default").c_str(),
        [get = get](benchmark::State& s) { motion_discrete(s, get(), 0.01); });
  }
  benchmark::RegisterBenchmark("planner/four_dof_example/k-1/dt_1ms", four_dof_example)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace bench
