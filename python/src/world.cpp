// libgjk.robots.CollisionWorld, WorldContext and clearance_along (the analysis layer's analyse(),
// so the answers are gjk-clearance's).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <gjk/analysis/clearance.hpp>
#include <gjk/mesh.hpp>
#include <gjk/robots/collision_world.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "robots_common.hpp"
#include "world.hpp"

namespace gjk_python {

namespace rb = gjk::robots;

std::shared_ptr<const rb::CollisionWorld> snapshot(PyWorld& w) {
  py::gil_scoped_release release;
  std::shared_lock lock(w.mutex);
  return std::make_shared<const rb::CollisionWorld>(*w.world);
}

namespace {

/// libgjk.robots.WorldContext: one thread's kinematics and warm starts over a world.
struct PyContext {
  std::shared_ptr<PyWorld> world;
  ContextSlot slot;
};

// Runs `f(context, world)` without the GIL, the world locked shared and the slot exclusively,
// after update(q) when q is given. f must not touch Python objects.
template <class F>
auto query(PyWorld& w, ContextSlot& s, const Eigen::VectorXd* q, F&& f) {
  py::gil_scoped_release release;
  std::shared_lock lock(w.mutex);
  std::lock_guard<std::mutex> guard(s.mutex);
  if (!s.context || s.generation != w.generation) {
    // Refused before the new context is kept: a second call without q must not answer from a
    // context that never had a configuration.
    if (q == nullptr) throw std::logic_error("WorldContext: call update(q) first (or pass q)");
    s.context = std::make_unique<rb::WorldContext>(*w.world);
    s.generation = w.generation;
  }
  if (q != nullptr) s.context->update(*q);
  return f(*s.context, static_cast<const rb::CollisionWorld&>(*w.world));
}

// Edits the world exclusively (waiting for running queries without holding the GIL). The C++
// contexts stay valid across every edit: obstacles are read at query time, and after attaching,
// detaching or a new matrix a context follows the world's new shapes at its next call (placed at
// its last configuration, warm starts kept). Only set_base_pose retires them: the base pose is
// part of update(q), so a context's next query after it needs a q.
enum class Retire : bool { No, Yes };
template <class F>
void edit(PyWorld& w, F&& f, Retire retire = Retire::No) {
  py::gil_scoped_release release;
  std::unique_lock lock(w.mutex);
  f(*w.world);
  if (retire == Retire::Yes) ++w.generation;
}

// Reads the world (shared lock) with the GIL held: no edit can be waiting on the GIL, since
// edits release it before locking.
template <class F>
auto read(PyWorld& w, F&& f) {
  std::shared_lock lock(w.mutex);
  return f(static_cast<const rb::CollisionWorld&>(*w.world));
}

long dof(const rb::CollisionWorld& w) {
  return w.model().num_positions();
}

std::unique_ptr<Eigen::VectorXd> optional_q(py::handle q, const rb::CollisionWorld& w) {
  if (q.is_none()) return nullptr;
  return std::make_unique<Eigen::VectorXd>(to_joint_vector(q, "q", dof(w)));
}

gjk::QueryOptions query_options(Opt<gjk::QueryOptions> o) {
  return o ? *o : gjk::QueryOptions{};
}

void check_not_nan(double v, const char* name) {
  if (std::isnan(v)) throw py::value_error(std::string(name) + ": must not be NaN");
}

rb::Obstacle make_obstacle(const std::string& name, py::handle geometry, py::handle pose) {
  rb::Obstacle o;
  o.name = name;
  o.pose = pose.is_none() ? gjk::Pose::Identity() : to_pose(pose, "pose");
  if (py::isinstance<gjk::TriangleMesh>(geometry)) {
    o.mesh =
        std::make_shared<const gjk::TriangleMesh>(py::cast<const gjk::TriangleMesh&>(geometry));
  } else if (py::isinstance<gjk::BoxSet>(geometry)) {
    o.cells = std::make_shared<const gjk::BoxSet>(py::cast<const gjk::BoxSet&>(geometry));
  } else if (py::isinstance<gjk::Shape>(geometry)) {
    o.shape = py::cast<const gjk::Shape&>(geometry);
  } else {
    throw py::value_error("geometry: expected a Shape, TriangleMesh or BoxSet, got " +
                          std::string(py::str(py::type::handle_of(geometry).attr("__name__"))));
  }
  return o;
}

// The queries shared by CollisionWorld (its own context) and WorldContext.
py::object in_collision(PyWorld& w, ContextSlot& s, py::handle q, double margin,
                        Opt<gjk::QueryOptions> options) {
  check_not_nan(margin, "margin");
  const auto v = read(w, [&](const rb::CollisionWorld& cw) { return optional_q(q, cw); });
  const gjk::QueryOptions o = query_options(options);
  return py::bool_(query(w, s, v.get(), [&](rb::WorldContext& c, const rb::CollisionWorld&) {
    return c.in_collision(margin, o);
  }));
}

py::object closest(PyWorld& w, ContextSlot& s, py::handle q, double cutoff, bool gradient,
                   Opt<gjk::QueryOptions> options) {
  check_not_nan(cutoff, "cutoff");
  const auto v = read(w, [&](const rb::CollisionWorld& cw) { return optional_q(q, cw); });
  const gjk::QueryOptions o = query_options(options);
  PairResult r = query(w, s, v.get(), [&](rb::WorldContext& c, const rb::CollisionWorld& cw) {
    return name_pair(cw, c.closest(cutoff, o, gradient));
  });
  if (r.pair.shape < 0) return py::none();
  return py::cast(std::move(r));
}

py::object distances(PyWorld& w, ContextSlot& s, py::handle q, double cutoff, bool self,
                     bool gradients, bool as_arrays, Opt<gjk::QueryOptions> options) {
  check_not_nan(cutoff, "cutoff");
  const auto v = read(w, [&](const rb::CollisionWorld& cw) { return optional_q(q, cw); });
  const gjk::QueryOptions o = query_options(options);
  long n = 0;
  std::vector<PairResult> out =
      query(w, s, v.get(), [&](rb::WorldContext& c, const rb::CollisionWorld& cw) {
        std::vector<rb::ClosestPair> pairs;
        c.distances(cutoff, self, gradients, o, pairs);
        std::vector<PairResult> named;
        named.reserve(pairs.size());
        for (const rb::ClosestPair& p : pairs) named.push_back(name_pair(cw, p));
        n = dof(cw);
        return named;
      });
  if (as_arrays) return pairs_as_arrays(out, gradients ? n : -1);
  return py::cast(std::move(out));
}

// closest() at every row of `path` with one context (warm starts follow the path), as arrays.
py::dict closest_along(PyWorld& w, ContextSlot& s, ArrayLike path, double cutoff, bool gradient,
                       Opt<gjk::QueryOptions> options) {
  check_not_nan(cutoff, "cutoff");
  const long n = read(w, [](const rb::CollisionWorld& cw) { return dof(cw); });
  const std::vector<Eigen::VectorXd> rows = to_joint_rows(path, "path", n);
  const gjk::QueryOptions o = query_options(options);
  std::vector<PairResult> out;
  {
    py::gil_scoped_release release;
    std::shared_lock lock(w.mutex);
    std::lock_guard<std::mutex> guard(s.mutex);
    if (!s.context || s.generation != w.generation) {
      s.context = std::make_unique<rb::WorldContext>(*w.world);
      s.generation = w.generation;
    }
    out.reserve(rows.size());
    for (const Eigen::VectorXd& q : rows) {
      s.context->update(q);
      out.push_back(name_pair(*w.world, s.context->closest(cutoff, o, gradient)));
    }
  }
  py::dict d = pairs_as_arrays(out, gradient ? n : -1);
  // No pair within the cutoff: distance inf, indices -1 (as clearance_along), not the defaults.
  auto dist = d["distance"].cast<py::array_t<double>>();
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].pair.shape < 0) dist.mutable_data()[i] = std::numeric_limits<double>::infinity();
  }
  return d;
}

py::array_t<bool> in_collision_along(PyWorld& w, ContextSlot& s, ArrayLike path, double margin,
                                     Opt<gjk::QueryOptions> options) {
  check_not_nan(margin, "margin");
  const long n = read(w, [](const rb::CollisionWorld& cw) { return dof(cw); });
  const std::vector<Eigen::VectorXd> rows = to_joint_rows(path, "path", n);
  const gjk::QueryOptions o = query_options(options);
  py::array_t<bool> out(static_cast<py::ssize_t>(rows.size()));
  bool* d = out.mutable_data();
  {
    py::gil_scoped_release release;
    std::shared_lock lock(w.mutex);
    std::lock_guard<std::mutex> guard(s.mutex);
    if (!s.context || s.generation != w.generation) {
      s.context = std::make_unique<rb::WorldContext>(*w.world);
      s.generation = w.generation;
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      s.context->update(rows[i]);
      d[i] = s.context->in_collision(margin, o);
    }
  }
  return out;
}

// Keeps each state's worst pair (analyse() with wants_pairs() false).
struct WorstSink : gjk::analysis::AnalysisSink {
  std::vector<gjk::analysis::StateRecord> states;
  void on_state(const gjk::analysis::StateRecord& s) override { states.push_back(s); }
};

py::dict clearance_along(PyWorld& w, ArrayLike path, double cutoff, int threads, size_t block_size,
                         double margin) {
  check_not_nan(cutoff, "cutoff");
  check_not_nan(margin, "margin");
  if (threads < 1) throw py::value_error("threads: must be >= 1");
  if (block_size < 1) throw py::value_error("block_size: must be >= 1");
  if (margin > cutoff) throw py::value_error("margin: must not exceed the cutoff");
  const long n = read(w, [](const rb::CollisionWorld& cw) { return dof(cw); });
  std::vector<gjk::analysis::PathState> states;
  {
    std::vector<Eigen::VectorXd> rows = to_joint_rows(path, "path", n);
    states.resize(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      states[i].line = static_cast<long>(i) + 1;
      states[i].q = std::move(rows[i]);
    }
  }
  WorstSink sink;
  gjk::analysis::Analysis totals;
  std::vector<std::string> obstacle_names, shape_labels;
  {
    py::gil_scoped_release release;
    std::shared_lock lock(w.mutex);
    // The analysis checks each state itself and reports a bad one by throwing ModelError.
    gjk::analysis::AnalysisOptions options;
    options.threads = threads;
    options.block_size = block_size;
    options.cutoff = cutoff;
    options.margin = margin;
    totals = gjk::analysis::analyse(*w.world, states, options, &sink);
    for (const auto& o : w.world->obstacles()) obstacle_names.push_back(o.name);
    for (int s = 0; s < static_cast<int>(w.world->model().collision_shapes().size()); ++s)
      shape_labels.push_back(gjk::analysis::shape_label(w.world->model(), s));
  }
  const auto m = static_cast<py::ssize_t>(sink.states.size());
  py::array_t<double> distance(m), pl({m, py::ssize_t{3}}), po({m, py::ssize_t{3}}),
      normal({m, py::ssize_t{3}});
  py::array_t<std::int32_t> pair({m, py::ssize_t{2}});
  py::array_t<std::int64_t> count(m);
  py::array_t<std::int8_t> status(m);
  double *d = distance.mutable_data(), *a = pl.mutable_data(), *b = po.mutable_data(),
         *nn = normal.mutable_data();
  std::int32_t* pr = pair.mutable_data();
  std::int64_t* c = count.mutable_data();
  std::int8_t* st = status.mutable_data();
  py::list labels, obstacles;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 0; i < sink.states.size(); ++i) {
    const gjk::analysis::StateRecord& s = sink.states[i];
    const bool has = s.has_worst();
    d[i] = has ? s.worst.distance : std::numeric_limits<double>::infinity();
    pr[2 * i] = has ? s.worst.shape : -1;
    pr[2 * i + 1] = has ? s.worst.obstacle : -1;
    c[i] = static_cast<std::int64_t>(s.pairs);
    st[i] = static_cast<std::int8_t>(s.worst.status);
    for (size_t k = 0; k < 3; ++k) {
      const auto e = static_cast<Eigen::Index>(k);
      a[3 * i + k] = has ? s.worst.point_on_link[e] : nan;
      b[3 * i + k] = has ? s.worst.point_on_obstacle[e] : nan;
      nn[3 * i + k] = has ? s.worst.normal[e] : nan;
    }
    labels.append(has ? py::object(py::str(shape_labels[static_cast<size_t>(s.worst.shape)]))
                      : py::object(py::none()));
    obstacles.append(
        has ? py::object(py::str(obstacle_names[static_cast<size_t>(s.worst.obstacle)]))
            : py::object(py::none()));
  }
  py::dict out;
  out["distance"] = distance;
  out["pair"] = pair;
  out["point_on_link"] = pl;
  out["point_on_obstacle"] = po;
  out["normal"] = normal;
  out["status"] = status;
  out["pairs"] = count;
  out["shape_label"] = labels;
  out["obstacle"] = obstacles;
  out["minimum"] = totals.overall.found() ? totals.overall.pair.distance
                                          : std::numeric_limits<double>::infinity();
  out["minimum_state"] = totals.overall.state;
  out["states_in_collision"] = totals.states_in_collision;
  out["states_below_margin"] = totals.states_below_margin;
  return out;
}

}  // namespace

void bind_world(py::module_& m) {
  using py::arg;
  const double inf = std::numeric_limits<double>::infinity();

  py::class_<PyWorld, std::shared_ptr<PyWorld>>(m, "CollisionWorld", R"doc(
A robot in its cell: the obstacles (convex shapes, exact meshes, occupied cells), the
allowed-collision matrix, the objects the robot holds, and a broadphase over the obstacles.

Queries take a joint vector q ((num_positions,) array) and run without the GIL. The world's own
query methods share one WorldContext (warm starts) and run one at a time; for queries from
several threads at once give each thread a WorldContext(world). Edits (add_obstacle, attach...)
wait for running queries. Contexts stay valid through them and keep their warm starts: after
attach, detach or a new matrix they follow the robot's new shapes; after set_base_pose their
next query needs a q.)doc")
      .def(py::init([](const rb::RobotModel& robot, std::optional<rb::Scene> scene,
                       std::optional<rb::AllowedCollisionMatrix> acm) {
             auto w = std::make_shared<PyWorld>();
             py::gil_scoped_release release;
             if (acm) {
               w->world =
                   std::make_shared<rb::CollisionWorld>(robot, scene ? *scene : rb::Scene{}, *acm);
             } else if (scene) {
               w->world = std::make_shared<rb::CollisionWorld>(robot, *scene);
             } else {
               w->world = std::make_shared<rb::CollisionWorld>(robot);
             }
             return w;
           }),
           arg("robot"), arg("scene") = py::none(), arg("acm") = py::none(), R"doc(
The robot (a RobotModel), optionally in a Scene (whose `attached` objects are attached), with an
AllowedCollisionMatrix (default: adjacent links allowed; e.g. acm_from_srdf(model, srdf)).)doc")
      .def_property_readonly(
          "robot", [](PyWorld& w) { return read(w, [](const auto& cw) { return cw.robot(); }); },
          "The URDF robot, without attached objects (a copy).")
      .def_property_readonly(
          "model", [](PyWorld& w) { return read(w, [](const auto& cw) { return cw.model(); }); },
          "The robot with the attached objects' pieces as collision shapes: what the queries "
          "use; its shape indices are those of the results (a copy).")
      .def_property_readonly(
          "num_positions",
          [](PyWorld& w) { return read(w, [](const auto& cw) { return dof(cw); }); },
          "Entries of q.")
      .def_property_readonly(
          "obstacles",
          [](PyWorld& w) { return read(w, [](const auto& cw) { return cw.obstacles(); }); },
          "The obstacles at their poses (copies).")
      .def_property_readonly(
          "obstacle_names",
          [](PyWorld& w) {
            return read(w, [](const rb::CollisionWorld& cw) {
              std::vector<std::string> n;
              for (const auto& o : cw.obstacles()) n.push_back(o.name);
              return n;
            });
          },
          "Names of the obstacles, in index order.")
      .def_property_readonly(
          "attached",
          [](PyWorld& w) { return read(w, [](const auto& cw) { return cw.attached(); }); },
          "The objects the robot holds (copies).")
      .def_property_readonly(
          "allowed_collisions",
          [](PyWorld& w) {
            return read(w, [](const auto& cw) { return cw.allowed_collisions(); });
          },
          "The allowed-collision matrix (a copy; change it with set_allowed_collisions).")
      .def_property_readonly(
          "self_pairs",
          [](PyWorld& w) { return read(w, [](const auto& cw) { return cw.self_pairs(); }); },
          "Robot shape pairs (i, j) checked for self-collision.")
      .def(
          "checked",
          [](PyWorld& w, int shape, int obstacle) {
            return read(w, [&](const rb::CollisionWorld& cw) {
              const auto shapes = static_cast<int>(cw.model().collision_shapes().size());
              const auto obstacles = static_cast<int>(cw.obstacles().size());
              if (shape < 0 || shape >= shapes || obstacle < 0 || obstacle >= obstacles)
                throw py::value_error("checked: shape or obstacle index out of range");
              return cw.checked(shape, obstacle);
            });
          },
          arg("shape"), arg("obstacle"),
          "Whether the (robot shape, obstacle) pair is checked (not allowed by the matrix).")
      .def(
          "part_name",
          [](PyWorld& w, int shape) {
            return read(w, [&](const rb::CollisionWorld& cw) {
              if (shape < 0 || shape >= static_cast<int>(cw.model().collision_shapes().size()))
                throw py::value_error("shape: index out of range");
              return cw.part_name(shape);
            });
          },
          arg("shape"), "The name the matrix knows a robot shape by: its link or attached object.")
      .def(
          "set_base_pose",
          [](PyWorld& w, py::handle pose) {
            const gjk::Pose p = to_pose(pose, "pose");
            edit(
                w, [&](rb::CollisionWorld& cw) { cw.set_base_pose(p); }, Retire::Yes);
          },
          arg("pose"),
          "Places the robot's root link in the world (the SRDF's virtual joint); ModelError for a "
          "pose that is not a rotation and translation.")
      .def_property_readonly(
          "base_pose",
          [](PyWorld& w) {
            return read(
                w, [](const rb::CollisionWorld& cw) { return from_pose(cw.robot().base_pose()); });
          },
          "(4, 4) pose of the robot's root link in the world.")
      .def(
          "set_allowed_collisions",
          [](PyWorld& w, rb::AllowedCollisionMatrix acm) {
            edit(w, [&](rb::CollisionWorld& cw) { cw.set_allowed_collisions(std::move(acm)); });
          },
          arg("acm"), "Replaces the allowed-collision matrix. Contexts stay valid.")
      .def(
          "add_obstacle",
          [](PyWorld& w, const std::string& name, py::handle geometry, py::object pose) {
            rb::Obstacle o = make_obstacle(name, geometry, pose);
            edit(w, [&](rb::CollisionWorld& cw) { cw.add_obstacle(std::move(o)); });
          },
          arg("name"), arg("geometry"), arg("pose") = py::none(),
          "Adds an obstacle: a Shape, TriangleMesh or BoxSet at `pose` ((4, 4), default identity); "
          "ValueError when the name is taken. In place: contexts stay valid.")
      .def(
          "remove_obstacle",
          [](PyWorld& w, const std::string& name) {
            edit(w, [&](rb::CollisionWorld& cw) { cw.remove_obstacle(name); });
          },
          arg("name"),
          "Removes the obstacle(s) named (or whose scene entry is) `name`; each removed index is "
          "taken by the last obstacle. In place: contexts stay valid.")
      .def(
          "move_obstacle",
          [](PyWorld& w, const std::string& name, ArrayLike pose) {
            const gjk::Pose p = to_pose(pose, "pose");
            edit(w, [&](rb::CollisionWorld& cw) { cw.move_obstacle(name, p); });
          },
          arg("name"), arg("pose"), "Moves the obstacle(s) `name` to `pose` ((4, 4)).")
      .def(
          "attach",
          [](PyWorld& w, rb::AttachedObject object) {
            edit(w, [&](rb::CollisionWorld& cw) { cw.attach(std::move(object)); });
          },
          arg("object"),
          "Attaches an AttachedObject to its link (ModelError for a bad link). Contexts stay "
          "valid: their next query holds the object at their last configuration.")
      .def(
          "attach_obstacle",
          [](PyWorld& w, const std::string& name, const std::string& link, ArrayLike q,
             std::vector<std::string> touch_links) {
            const Eigen::VectorXd v =
                to_joint_vector(q, "q", read(w, [](const auto& cw) { return dof(cw); }));
            edit(w, [&](rb::CollisionWorld& cw) {
              cw.attach_obstacle(name, link, v, std::move(touch_links));
            });
          },
          arg("name"), arg("link"), arg("q"), arg("touch_links") = std::vector<std::string>{},
          "Moves the convex obstacle(s) `name` onto `link`, keeping their world pose at q (a "
          "grasp). Contexts stay valid.")
      .def(
          "detach",
          [](PyWorld& w, const std::string& name, ArrayLike q) {
            const Eigen::VectorXd v =
                to_joint_vector(q, "q", read(w, [](const auto& cw) { return dof(cw); }));
            edit(w, [&](rb::CollisionWorld& cw) { cw.detach(name, v); });
          },
          arg("name"), arg("q"),
          "Puts an attached object back into the world as obstacles, at its pose for q. Contexts "
          "stay valid.")
      .def(
          "in_collision",
          [](PyWorld& w, ArrayLike q, double margin, Opt<gjk::QueryOptions> o) {
            return in_collision(w, w.own, q, margin, o);
          },
          arg("q"), arg("margin") = 0.0, arg("options") = py::none(),
          "Whether some checked pair (robot-obstacle or self) is closer than `margin` at q.")
      .def(
          "closest",
          [](PyWorld& w, ArrayLike q, double cutoff, bool gradient, Opt<gjk::QueryOptions> o) {
            return closest(w, w.own, q, cutoff, gradient, o);
          },
          arg("q"), arg("cutoff") = inf, arg("gradient") = true, arg("options") = py::none(),
          "The closest checked pair at q (a PairDistance with names, witness points, normal and "
          "gradient), or None when nothing is within `cutoff`.")
      .def(
          "distances",
          [](PyWorld& w, ArrayLike q, double cutoff, bool self, bool gradients, bool as_arrays,
             Opt<gjk::QueryOptions> o) {
            return distances(w, w.own, q, cutoff, self, gradients, as_arrays, o);
          },
          arg("q"), arg("cutoff") = inf, arg("self_pairs") = false, arg("gradients") = true,
          arg("as_arrays") = false, arg("options") = py::none(), R"doc(
Every checked robot-obstacle pair within `cutoff` at q (and self pairs with `self_pairs`): a list of
PairDistance, or with `as_arrays` a dict of arrays: distance (N,), shape (N,), other (N,),
self (N,), point_a/point_b/normal (N, 3), gradient (N, num_positions) when computed,
status (N,) int8, name_a/name_b lists.)doc")
      .def(
          "closest_along",
          [](PyWorld& w, ArrayLike path, double cutoff, bool gradient, Opt<gjk::QueryOptions> o) {
            return closest_along(w, w.own, path, cutoff, gradient, o);
          },
          arg("path"), arg("cutoff") = inf, arg("gradient") = false, arg("options") = py::none(),
          R"doc(
closest(q) at every row of `path` ((M, num_positions)) in one call without the GIL, warm
started along the path: a dict of arrays as distances(as_arrays=True) gives, one row per state
(distance inf and shape -1 where nothing is within `cutoff`).)doc")
      .def(
          "in_collision_along",
          [](PyWorld& w, ArrayLike path, double margin, Opt<gjk::QueryOptions> o) {
            return in_collision_along(w, w.own, path, margin, o);
          },
          arg("path"), arg("margin") = 0.0, arg("options") = py::none(),
          "in_collision(q, margin) at every row of `path` ((M, num_positions)): an (M,) bool "
          "array, in one call without the GIL.")
      .def("__repr__", [](PyWorld& w) {
        return read(w, [](const rb::CollisionWorld& cw) {
          return "CollisionWorld('" + cw.robot().name() + "', " +
                 std::to_string(cw.obstacles().size()) + " obstacles, " +
                 std::to_string(cw.attached().size()) + " attached)";
        });
      });

  py::class_<PyContext>(m, "WorldContext", R"doc(
One thread's state for querying a CollisionWorld: kinematics, warm starts, boxes. Create one per
thread (a context is locked while it answers, so sharing one only serialises). Every query takes
q (or None to reuse the last update()). It stays valid through every edit of the world; after a
grasp, a release or a new matrix, None answers for the last q with what the robot holds now, and
after set_base_pose the next query needs a q.)doc")
      .def(py::init([](std::shared_ptr<PyWorld> w) {
             auto c = std::make_unique<PyContext>();
             c->world = std::move(w);
             return c;
           }),
           arg("world"), "A context over `world` (cold warm starts).")
      .def_property_readonly(
          "world", [](const PyContext& c) { return c.world; }, "The world it queries.")
      .def(
          "update",
          [](PyContext& c, ArrayLike q) {
            const auto v = read(*c.world, [&](const auto& cw) { return optional_q(q, cw); });
            if (!v) throw py::value_error("q: expected an array, got None");
            query(*c.world, c.slot, v.get(),
                  [](rb::WorldContext&, const rb::CollisionWorld&) { return 0; });
          },
          arg("q"), "Forward kinematics and shape poses for q (ModelError outside the limits).")
      .def(
          "in_collision",
          [](PyContext& c, py::object q, double margin, Opt<gjk::QueryOptions> o) {
            return in_collision(*c.world, c.slot, q, margin, o);
          },
          arg("q"), arg("margin") = 0.0, arg("options") = py::none(),
          "As CollisionWorld.in_collision, on this context.")
      .def(
          "closest",
          [](PyContext& c, py::object q, double cutoff, bool gradient, Opt<gjk::QueryOptions> o) {
            return closest(*c.world, c.slot, q, cutoff, gradient, o);
          },
          arg("q"), arg("cutoff") = inf, arg("gradient") = true, arg("options") = py::none(),
          "As CollisionWorld.closest, on this context.")
      .def(
          "distances",
          [](PyContext& c, py::object q, double cutoff, bool self, bool gradients, bool as_arrays,
             Opt<gjk::QueryOptions> o) {
            return distances(*c.world, c.slot, q, cutoff, self, gradients, as_arrays, o);
          },
          arg("q"), arg("cutoff") = inf, arg("self_pairs") = false, arg("gradients") = true,
          arg("as_arrays") = false, arg("options") = py::none(),
          "As CollisionWorld.distances, on this context.")
      .def(
          "closest_along",
          [](PyContext& c, ArrayLike path, double cutoff, bool gradient, Opt<gjk::QueryOptions> o) {
            return closest_along(*c.world, c.slot, path, cutoff, gradient, o);
          },
          arg("path"), arg("cutoff") = inf, arg("gradient") = false, arg("options") = py::none(),
          "As CollisionWorld.closest_along, on this context.")
      .def(
          "in_collision_along",
          [](PyContext& c, ArrayLike path, double margin, Opt<gjk::QueryOptions> o) {
            return in_collision_along(*c.world, c.slot, path, margin, o);
          },
          arg("path"), arg("margin") = 0.0, arg("options") = py::none(),
          "As CollisionWorld.in_collision_along, on this context.")
      .def(
          "shape_poses",
          [](PyContext& c) {
            const std::vector<gjk::Pose> poses = query(
                *c.world, c.slot, nullptr, [](rb::WorldContext& x, const rb::CollisionWorld&) {
                  x.follow_world();
                  return x.shape_poses();
                });
            py::list out;
            for (const auto& p : poses) out.append(from_pose(p));
            return out;
          },
          "(4, 4) world pose of each robot shape at the last update, for the shapes the robot has "
          "now.");

  m.def(
      "read_path",
      [](const std::filesystem::path& path_file, const rb::RobotModel& model,
         const std::map<std::string, double>& fixed) {
        const std::string file = path_file.string();
        require_file(file, "path file");
        gjk::analysis::PathOptions options;
        for (const auto& [name, value] : fixed) options.fixed.push_back({name, value});
        gjk::analysis::Path path;
        {
          py::gil_scoped_release release;
          gjk::analysis::check_fixed_joints(model, options.fixed);
          path = gjk::analysis::read_path_file(file, model, options);
        }
        const auto m = static_cast<py::ssize_t>(path.states.size());
        const auto n = static_cast<size_t>(model.num_positions());
        py::array_t<double> q({m, static_cast<py::ssize_t>(n)}), t(m);
        py::array_t<std::int64_t> line(m);
        for (size_t i = 0; i < path.states.size(); ++i) {
          for (size_t k = 0; k < n; ++k)
            q.mutable_data()[i * n + k] = path.states[i].q[static_cast<Eigen::Index>(k)];
          t.mutable_data()[i] = path.states[i].time;
          line.mutable_data()[i] = path.states[i].line;
        }
        py::list errors;
        for (size_t i = 0; i < path.errors.size(); ++i)
          errors.append(py::make_tuple(path.errors[i].line, path.errors[i].message));
        py::dict out;
        out["q"] = q;
        out["time"] = t;
        out["line"] = line;
        out["errors"] = errors;
        out["has_time"] = path.has_time;
        return out;
      },
      py::arg("file"), py::arg("model"), py::arg("fixed") = std::map<std::string, double>{},
      R"doc(
Reads a joint path file as gjk-clearance does (CSV with an optional header of joint names and a
`t` column, or OMPL's printAsMatrix): a dict with q (M, num_positions), time (M,), line (M,),
has_time, and errors [(line, message)] for the rows left out. `fixed` holds joints the file
has no column for ({name: value}). FileNotFoundError, or PathError (a ValueError) for a bad
header.)doc");

  m.def(
      "clearance_along",
      [](std::shared_ptr<PyWorld> w, ArrayLike path, double cutoff, int threads, size_t block_size,
         double margin) { return clearance_along(*w, path, cutoff, threads, block_size, margin); },
      arg("world"), arg("path"), arg("cutoff") = inf, arg("threads") = 1, arg("block_size") = 256,
      arg("margin") = -inf, R"doc(
Clearance of the world's robot at every state of `path` ((M, num_positions) array): the
analysis layer's analyse(), so the numbers are gjk-clearance's on the same world and states
(deterministic for any `threads`). Returns a dict: distance (M,) (the worst pair's signed
distance, inf when none is within `cutoff`), pair (M, 2) int32 (shape, obstacle; -1 when none),
point_on_link, point_on_obstacle, normal (M, 3) (NaN when none), status (M,) int8, pairs (M,)
(pairs measured), shape_label and obstacle (lists of names or None), minimum, minimum_state,
states_in_collision, states_below_margin. ModelError for a state outside the joint limits.)doc");
}

}  // namespace gjk_python
