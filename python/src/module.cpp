// libgjk._core: the pybind11 extension behind the Python package libgjk (issue 12).
#include "bindings.hpp"
#include "robots_common.hpp"
#include "world.hpp"

#include <gjk/version.hpp>

#include <stdexcept>

namespace gjk_python {

namespace {
Enums* g_enums = nullptr;  // leaked on purpose: the module is never unloaded
}  // namespace

py::object make_enum(const char* name, std::initializer_list<std::pair<const char*, int>> members,
                     const char* doc, py::module_& m) {
  py::list items;
  for (const auto& [key, value] : members) items.append(py::make_tuple(key, value));
  py::object cls = py::module_::import("enum").attr("IntEnum")(name, items);
  cls.attr("__module__") = m.attr("__name__");
  cls.attr("__doc__") = doc;
  m.attr(name) = cls;
  return cls;
}

const Enums& enums() {
  return *g_enums;
}

void bind_enums(py::module_& m) {
  // Real enum.IntEnum classes (not pybind11's enum type): they pickle, compare with ints and
  // with the int8 status arrays the batch calls return, and print as Status.Converged.
  g_enums = new Enums;
  g_enums->status = make_enum(
      "Status", {{"Converged", 0}, {"MaxIterations", 1}, {"Degenerate", 2}, {"InvalidInput", 3}},
      "How a query ended. Anything but Converged: read the bounds before "
      "trusting the value.",
      m);
  g_enums->feature =
      make_enum("Feature", {{"Unknown", 0}, {"Vertex", 1}, {"Edge", 2}, {"Face", 3}, {"Curved", 4}},
                "Feature of a body on which its witness point lies.", m);
  g_enums->simplex_solver =
      make_enum("SimplexSolver",
                {{"SignedVolumes", 0}, {"Johnson", 1}, {"RefineSet", 2}, {"RefineSetFixed", 3}},
                "Sub-distance solver of GJK's simplex step (all give the same answers).", m);
  g_enums->support_method =
      make_enum("SupportMethod", {{"BruteForce", 0}, {"HillClimbing", 1}, {"Auto", 2}},
                "How a convex polytope's support vertex is found.", m);
  for (int i = 0; i < 4; ++i) g_enums->status_members.push_back(g_enums->status(i));
  for (int i = 0; i < 5; ++i) g_enums->feature_members.push_back(g_enums->feature(i));
}

}  // namespace gjk_python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  m.doc() = "libgjk's C++ engine (GJK/EPA proximity queries); use it through the package libgjk.";
  // std::invalid_argument becomes ValueError with the C++ message (pybind11's default);
  // std::logic_error (GjkEpa used before its shapes are set) becomes RuntimeError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::logic_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  m.def("version", &gjk::version, "The version of the linked C++ library, \"MAJOR.MINOR.PATCH\".");
  gjk_python::bind_enums(m);
  gjk_python::bind_engine(m);
  py::module_ planar = m.def_submodule("planar", "The 2D barycode GJK engine (seed 001).");
  gjk_python::bind_planar(planar);
  gjk_python::bind_gjk_epa(m);
  py::module_ robots = m.def_submodule(
      "robots", "URDF robots, kinematics, scenes, robot distances, SRDF and the collision world.");
  gjk_python::bind_robots(robots);
  gjk_python::bind_world(robots);
  py::module_ planner = m.def_submodule(
      "planner", "Velocity inversion (seed 002 eq. 6), OMPL planning, certified motion checks.");
  gjk_python::bind_planner(planner);
  py::module_ analysis = m.def_submodule(
      "analysis", "Offline clearance analysis of path shards (the gjk::analysis layer).");
  gjk_python::bind_analysis(analysis);
  gjk_python::bind_replay(analysis);
}
