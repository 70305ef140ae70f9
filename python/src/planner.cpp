// libgjk.planner: the velocity inversion of seed 002 (eq. 6), OMPL planning with the libgjk
// checkers (gjk::planner::plan_arm), and the certified motion check.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <gjk/planner/ompl.hpp>
#include <gjk/planner/plan.hpp>
#include <gjk/planner/velocity_inversion.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "robots_common.hpp"
#include "world.hpp"

namespace gjk_python {

namespace {

namespace rb = gjk::robots;
namespace gp = gjk::planner;
namespace ob = ompl::base;

// ---- velocity inversion -----------------------------------------------------------------------

/// Owns the model and scene the C++ object refers to, and serialises its use (one solve at a
/// time: it holds the warm starts of one trajectory).
struct PyInversion {
  std::shared_ptr<const rb::RobotModel> model;
  std::shared_ptr<const rb::Scene> scene;
  std::unique_ptr<gp::VelocityInversion> inversion;
  std::mutex mutex;
};

int link_index(const rb::RobotModel& model, py::handle link) {
  if (py::isinstance<py::str>(link)) return model.link_index(py::cast<std::string>(link));
  if (!py::isinstance<py::int_>(link))
    throw py::value_error("end_effector: expected a link name (str) or index (int)");
  const long i = py::cast<long>(link);
  if (i < 0 || i >= static_cast<long>(model.links().size()))
    throw py::value_error("end_effector: link index " + std::to_string(i) + " out of range");
  return static_cast<int>(i);
}

double finite(double v, const char* name) {
  if (!std::isfinite(v)) throw py::value_error(std::string(name) + ": must be finite");
  return v;
}

py::dict simulation_dict(const gp::SimulationResult& r, size_t links, size_t obstacles, long dof) {
  const auto n = static_cast<py::ssize_t>(r.samples.size());
  py::array_t<double> t(n), q({n, static_cast<py::ssize_t>(dof)}), ee({n, py::ssize_t{3}}),
      desired({n, py::ssize_t{3}}), error(n), potential(n),
      lod({n, static_cast<py::ssize_t>(links), static_cast<py::ssize_t>(obstacles)});
  double *pt = t.mutable_data(), *pq = q.mutable_data(), *pe = ee.mutable_data(),
         *pd = desired.mutable_data(), *perr = error.mutable_data(), *pp = potential.mutable_data(),
         *pl = lod.mutable_data();
  for (size_t i = 0; i < r.samples.size(); ++i) {
    const gp::SimulationSample& s = r.samples[i];
    pt[i] = s.t;
    for (long k = 0; k < dof; ++k)
      pq[i * static_cast<size_t>(dof) + static_cast<size_t>(k)] = s.q[k];
    for (size_t k = 0; k < 3; ++k) {
      pe[3 * i + k] = s.end_effector[static_cast<Eigen::Index>(k)];
      pd[3 * i + k] = s.desired[static_cast<Eigen::Index>(k)];
    }
    perr[i] = s.tracking_error;
    pp[i] = s.potential;
    std::copy(s.link_obstacle_distance.begin(), s.link_obstacle_distance.end(),
              pl + i * links * obstacles);
  }
  py::dict out;
  out["t"] = t;
  out["q"] = q;
  out["end_effector"] = ee;
  out["desired"] = desired;
  out["tracking_error"] = error;
  out["potential"] = potential;
  out["link_obstacle_distance"] = lod;
  out["min_clearance"] = r.min_clearance;
  out["max_tracking_error"] = r.max_tracking_error;
  out["collided"] = r.collided;
  out["steps"] = r.steps;
  out["total_seconds"] = r.total_seconds;
  out["distance_seconds"] = r.distance_seconds;
  return out;
}

// ---- OMPL -------------------------------------------------------------------------------------

/// The checkers of a world for OMPL: its state space (fixed positions left out), space
/// information with the libgjk validity checker and certified motion validator installed.
struct Checking {
  std::shared_ptr<const rb::CollisionWorld> world;
  std::shared_ptr<ob::RealVectorStateSpace> space;
  ob::SpaceInformationPtr si;
  std::shared_ptr<const gp::CollisionModel> collision;
  std::shared_ptr<gp::StateValidityChecker> checker;
  std::unique_ptr<gp::CertifiedMotionValidator> certifier;

  Checking(std::shared_ptr<const rb::CollisionWorld> w, const gp::FixedPositions& fixed,
           double margin, bool self_collision, int max_steps)
      : world(std::move(w)) {
    if (!(margin >= 0) || !std::isfinite(margin))
      throw gp::PlannerError("margin = " + std::to_string(margin) + ": must be finite and >= 0");
    if (max_steps < 1) throw gp::PlannerError("max_steps: must be >= 1");
    space = gp::make_state_space(world->model(), fixed);
    si = std::make_shared<ob::SpaceInformation>(space);
    gp::CollisionSettings settings;
    settings.margin = margin;
    settings.self_collision = self_collision;
    settings.fixed_positions = fixed;
    collision = gp::install_collision_checking(si, world, settings);
    checker = std::static_pointer_cast<gp::StateValidityChecker>(si->getStateValidityChecker());
    gp::CertifiedMotionOptions options;
    options.max_steps = max_steps;
    certifier = std::make_unique<gp::CertifiedMotionValidator>(si, collision, options);
  }
  unsigned dim() const { return space->getDimension(); }
  std::vector<std::string> planned() const {
    std::vector<std::string> n;
    for (unsigned i = 0; i < dim(); ++i) n.push_back(space->getDimensionName(i));
    return n;
  }
  /// Full joint vector of planned values `v` (dim entries), fixed positions filled in.
  Eigen::VectorXd full(const Eigen::VectorXd& v) const {
    return collision->full_configuration(v.data());
  }
};

py::array_t<double> rows_array(const std::vector<Eigen::VectorXd>& rows, size_t cols) {
  py::array_t<double> out({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(cols)});
  double* d = out.mutable_data();
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t k = 0; k < cols; ++k) d[i * cols + k] = rows[i][static_cast<Eigen::Index>(k)];
  return out;
}

/// A MotionValidator as Python holds it (the world copy and the OMPL objects it needs).
struct PyMotionValidator {
  std::unique_ptr<Checking> checking;
  double margin = 0.0;
};

}  // namespace

void bind_planner(py::module_& m) {
  using py::arg;
  // PlannerError derives from std::invalid_argument; registered after the module's generic
  // translator, so it is tried first and keeps its own Python class.
  py::register_exception<gp::PlannerError>(m, "PlannerError", PyExc_ValueError).attr("__doc__") =
      "Bad planner options or arguments (names the field and value), or a "
      "start or goal in collision.";

  m.def(
      "pair_potential",
      [](double d, double d0, double min_distance) {
        return gp::pair_potential(d, gp::PotentialField{d0, min_distance});
      },
      arg("distance"), arg("d0") = 0.5, arg("min_distance") = 1e-4,
      "U(d) = 1/2 (1/d - 1/d0)^2 for d <= d0, else 0 (seed 002 section 4.4); d clamped to "
      "min_distance.");
  m.def(
      "pair_potential_slope",
      [](double d, double d0, double min_distance) {
        return gp::pair_potential_slope(d, gp::PotentialField{d0, min_distance});
      },
      arg("distance"), arg("d0") = 0.5, arg("min_distance") = 1e-4, "dU/dd.");

  py::class_<gp::VelocityStep>(m, "VelocityStep", "What one velocity-inversion solve found.")
      .def_property_readonly(
          "qdot", [](const gp::VelocityStep& s) { return from_vector(s.qdot); },
          "(num_positions,) joint velocities.")
      .def_property_readonly(
          "end_effector", [](const gp::VelocityStep& s) { return from_vec3(s.end_effector); },
          "(3,) end-effector position at the solved configuration.")
      .def_readonly("potential", &gp::VelocityStep::potential, "H(q).")
      .def_readonly("sigma_min", &gp::VelocityStep::sigma_min, "Smallest singular value of J.")
      .def_readonly("frozen_joints", &gp::VelocityStep::frozen_joints,
                    "Joints held at a limit this step.")
      .def_readonly("distance_seconds", &gp::VelocityStep::distance_seconds,
                    "Wall time of the distance queries, s.");

  py::class_<PyInversion>(m, "VelocityInversion", R"doc(
Velocity inversion with obstacle avoidance for redundant arms (seed 002 eq. 6):
qdot = J+ xdot_e + k (I - J+ J) grad H(q), H the sum over (obstacle, link) pairs of
1/2 (1/d - 1/d0)^2 within d0. Holds the warm starts of one trajectory: one per thread.)doc")
      .def(py::init([](const rb::RobotModel& model, const rb::Scene& scene, py::handle end_effector,
                       ArrayLike offset, double k, double d0, double min_distance,
                       double singular_threshold, double max_damping, double position_gain,
                       bool joint_limits) {
             auto p = std::make_unique<PyInversion>();
             p->model = std::make_shared<const rb::RobotModel>(model);
             p->scene = std::make_shared<const rb::Scene>(scene);
             gp::EndEffector ee;
             ee.link = link_index(*p->model, end_effector);
             ee.offset = to_vec3(offset, "offset");
             gp::VelocityInversionOptions o;
             o.k = finite(k, "k");
             o.field.d0 = d0;
             o.field.min_distance = min_distance;
             o.singular_threshold = singular_threshold;
             o.max_damping = max_damping;
             o.position_gain = position_gain;
             o.joint_limits = joint_limits;
             p->inversion = std::make_unique<gp::VelocityInversion>(*p->model, *p->scene, ee, o);
             return p;
           }),
           arg("model"), arg("scene"), arg("end_effector"),
           arg("offset") = std::vector<double>{0, 0, 0}, arg("k") = -1.0, arg("d0") = 0.5,
           arg("min_distance") = 1e-4, arg("singular_threshold") = 0.05, arg("max_damping") = 0.05,
           arg("position_gain") = 0.0, arg("joint_limits") = true, R"doc(
Tracks the point `offset` (link frame) of link `end_effector` (name or index) of `model` among
the obstacles of `scene` (both copied). k < 0 descends the potential (the seed uses -1); d0 is
its range; position_gain > 0 closes the loop on the position (0: eq. 6 as printed).
PlannerError (a ValueError) for bad options.)doc")
      .def(
          "solve",
          [](PyInversion& p, ArrayLike q, ArrayLike desired_velocity, ArrayLike desired_position,
             double dt) {
            const Eigen::VectorXd v = to_joint_vector(q, "q", p.model->num_positions());
            const gjk::Vec3 vd = to_vec3(desired_velocity, "desired_velocity");
            const gjk::Vec3 xd = to_vec3(desired_position, "desired_position");
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(p.mutex);
            return p.inversion->solve(v, vd, xd, dt);
          },
          arg("q"), arg("desired_velocity"), arg("desired_position"), arg("dt"),
          "Joint velocity at q tracking the desired end-effector velocity (and position when "
          "position_gain > 0); dt is the step the caller integrates with (joint limits).")
      .def(
          "distances",
          [](PyInversion& p) {
            // The lock is taken without the GIL: simulate() holds it while its trajectory
            // callback waits for the GIL.
            std::vector<PairResult> out;
            {
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(p.mutex);
              for (const rb::PairDistance& d : p.inversion->distances())
                out.push_back(name_pair(*p.model, p.scene.get(), d, false));
            }
            return out;
          },
          "Every (shape, obstacle) pair at the last solved configuration (PairDistance list).")
      .def_property_readonly(
          "end_effector_position",
          [](PyInversion& p) {
            gjk::Vec3 x;
            {
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(p.mutex);
              x = p.inversion->end_effector_position();
            }
            return from_vec3(x);
          },
          "(3,) end-effector position after the last solve.")
      .def_property_readonly(
          "model", [](const PyInversion& p) { return *p.model; }, "The robot (a copy).")
      .def_property_readonly(
          "scene", [](const PyInversion& p) { return *p.scene; }, "The obstacles (a copy).")
      .def(
          "simulate",
          [](PyInversion& p, ArrayLike q0, py::function trajectory, double dt, double duration,
             int record_every) {
            const Eigen::VectorXd q = to_joint_vector(q0, "q0", p.model->num_positions());
            // The trajectory is Python: each step takes the GIL for the call only.
            const gp::EndEffectorTrajectory traj = [&trajectory](double t, gjk::Vec3& x,
                                                                 gjk::Vec3& v) {
              py::gil_scoped_acquire acquire;
              py::object r = trajectory(t);
              py::tuple pair = py::cast<py::tuple>(r);
              if (pair.size() != 2)
                throw py::value_error("trajectory(t): expected (position, velocity)");
              x = to_vec3(pair[0], "trajectory position");
              v = to_vec3(pair[1], "trajectory velocity");
            };
            gp::SimulationOptions o;
            o.dt = dt;
            o.duration = duration;
            o.record_every = record_every;
            gp::SimulationResult r;
            {
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(p.mutex);
              r = gp::simulate(*p.inversion, q, traj, o);
            }
            return simulation_dict(r, p.model->links().size(), p.scene->obstacles.size(),
                                   p.model->num_positions());
          },
          arg("q0"), arg("trajectory"), arg("dt") = 1e-3, arg("duration") = 1.0,
          arg("record_every") = 1, R"doc(
Integrates eq. 6 with explicit Euler steps of dt from q0 over `duration` (gjk::planner::simulate).
`trajectory(t)` returns the desired end-effector (position, velocity), (3,) each. Returns a dict:
t, q, end_effector, desired, tracking_error, potential, link_obstacle_distance (S, links,
obstacles) per recorded sample, and min_clearance (over every step), max_tracking_error,
collided, steps, total_seconds, distance_seconds.)doc");

  // ---- OMPL planning --------------------------------------------------------------------------
  py::class_<gp::PlanResult>(m, "PlanResult", "What plan() found.")
      .def_readonly("solved", &gp::PlanResult::solved, "An exact solution was found in time.")
      .def_readonly("status", &gp::PlanResult::status, "OMPL's planner status, as text.")
      .def_readonly("joint_names", &gp::PlanResult::joint_names,
                    "The planned joints (the columns of `path`).")
      .def_property_readonly(
          "path", [](const gp::PlanResult& r) { return rows_array(r.path, r.joint_names.size()); },
          "(M, planned joints) waypoints (empty when not solved).")
      .def_property_readonly(
          "full_path",
          [](const gp::PlanResult& r) {
            return rows_array(r.full_path,
                              r.full_path.empty() ? 0 : static_cast<size_t>(r.full_path[0].size()));
          },
          "(M, num_positions) the same with the fixed positions filled in (for world queries).")
      .def_readonly("length", &gp::PlanResult::length, "Joint-space length of the path.")
      .def_readonly("plan_seconds", &gp::PlanResult::plan_seconds, "Time spent planning, s.")
      .def_readonly("simplify_seconds", &gp::PlanResult::simplify_seconds,
                    "Time spent simplifying, s.")
      .def_readonly("valid_motions", &gp::PlanResult::valid_motions,
                    "Motions the certified validator accepted while planning and simplifying.")
      .def_readonly("invalid_motions", &gp::PlanResult::invalid_motions,
                    "Motions the certified validator rejected.");

  m.def(
      "plan",
      [](std::shared_ptr<PyWorld> world, ArrayLike start, ArrayLike goal,
         const std::string& planner, double time_limit, double margin,
         const std::map<std::string, double>& fixed, std::optional<unsigned> seed, bool simplify,
         bool self_collision, unsigned max_iterations) {
        auto copy = snapshot(*world);
        // The sizes first, for the array messages of every binding ("start: expected an array
        // of shape (4,)"); plan_arm checks the rest.
        const auto dim = static_cast<long>(gp::planned_joints(copy->model(), fixed).size());
        gp::PlanOptions options;
        options.planner = planner;
        options.time_limit = time_limit;
        options.margin = margin;
        options.fixed = fixed;
        options.seed = seed;
        options.simplify = simplify;
        options.self_collision = self_collision;
        options.max_iterations = max_iterations;
        const Eigen::VectorXd s = to_joint_vector(start, "start", dim);
        const Eigen::VectorXd g = to_joint_vector(goal, "goal", dim);
        py::gil_scoped_release release;
        return gp::plan_arm(std::move(copy), s, g, options);
      },
      arg("world"), arg("start"), arg("goal"), arg("planner") = "rrtconnect",
      arg("time_limit") = 5.0, arg("margin") = 0.0, arg("fixed") = std::map<std::string, double>{},
      arg("seed") = py::none(), arg("simplify") = true, arg("self_collision") = true,
      arg("max_iterations") = 0u, R"doc(
Plans a collision-free joint motion of the world's robot with OMPL and the libgjk checkers
(gjk::planner::plan_arm, as gjk-plan does): every motion the planner accepts is certified by
conservative advancement.
`start` and `goal` hold the planned joints (the robot's positions less those in `fixed`, a
{joint: value} dict), in model order; `planner` is rrtconnect, rrtstar, bitstar or prmstar
(the optimizing ones use the whole time_limit with a length + clearance objective). `seed`
seeds OMPL's generator; OMPL allows that once per process, before its first random number, so
later seeds are ignored. `max_iterations` (0: none) also stops the planner after that many
iterations: with a seed, the outcome then does not depend on the machine's load, as a time limit
alone does. Runs without the GIL. PlannerError (a ValueError) for bad arguments
or a start/goal in collision; a PlanResult with solved False when no path was found in time.)doc");

  py::class_<gp::MotionCertificate>(m, "MotionCertificate", "Result of a certified motion check.")
      .def_readonly("valid", &gp::MotionCertificate::valid,
                    "The whole motion is certified free of collision.")
      .def_readonly("step_limit", &gp::MotionCertificate::step_limit,
                    "Rejected because max_steps ran out.")
      .def_readonly("steps", &gp::MotionCertificate::steps, "Configurations checked.")
      .def_readonly("pair_queries", &gp::MotionCertificate::pair_queries,
                    "Distance queries over all pairs and configurations.")
      .def_readonly("last_valid", &gp::MotionCertificate::last_valid,
                    "The motion is certified free on [0, last_valid].")
      .def_readonly("min_clearance", &gp::MotionCertificate::min_clearance,
                    "Smallest clearance at the checked configurations.")
      .def("__bool__", [](const gp::MotionCertificate& c) { return c.valid; });

  py::class_<PyMotionValidator>(m, "MotionValidator", R"doc(
The certified motion check of the OMPL integration (gjk::planner::CertifiedMotionValidator) over
a copy of a CollisionWorld: a straight joint-space motion is certified free by conservative
advancement, so no collision between checked configurations can be missed. Thread-safe.)doc")
      .def(py::init([](std::shared_ptr<PyWorld> world, double margin,
                       const std::map<std::string, double>& fixed, bool self_collision,
                       int max_steps) {
             auto p = std::make_unique<PyMotionValidator>();
             p->checking = std::make_unique<Checking>(snapshot(*world), fixed, margin,
                                                      self_collision, max_steps);
             p->margin = margin;
             return p;
           }),
           arg("world"), arg("margin") = 0.0, arg("fixed") = std::map<std::string, double>{},
           arg("self_collision") = true, arg("max_steps") = 20000,
           "Checks motions of the world's robot (copied now) with clearance above `margin`.")
      .def_property_readonly(
          "joint_names", [](const PyMotionValidator& p) { return p.checking->planned(); },
          "The planned joints (OMPL state dimensions).")
      .def(
          "certify",
          [](const PyMotionValidator& p, ArrayLike q1, ArrayLike q2) {
            const long n = p.checking->world->model().num_positions();
            const Eigen::VectorXd a = to_joint_vector(q1, "q1", n);
            const Eigen::VectorXd b = to_joint_vector(q2, "q2", n);
            p.checking->world->model().check_configuration(a);
            p.checking->world->model().check_configuration(b);
            py::gil_scoped_release release;
            return p.checking->certifier->certify(a, b);
          },
          arg("q1"), arg("q2"),
          "The certificate of the straight motion q1 -> q2 (full joint vectors, "
          "(num_positions,)).")
      .def(
          "is_valid",
          [](const PyMotionValidator& p, ArrayLike q) {
            const Eigen::VectorXd v =
                to_joint_vector(q, "q", p.checking->world->model().num_positions());
            p.checking->world->model().check_configuration(v);
            py::gil_scoped_release release;
            return p.checking->checker->is_valid(v);
          },
          arg("q"), "Whether the state q is valid (every checked pair farther than the margin).");
}

}  // namespace gjk_python
