// libgjk.robots: URDF models, kinematics, scenes, robot distances with gradients, SRDF and the
// allowed-collision matrix.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <gjk/analysis/clearance.hpp>
#include <gjk/robots/allowed_collisions.hpp>
#include <gjk/robots/distances.hpp>
#include <gjk/robots/robot_model.hpp>
#include <gjk/robots/scene.hpp>
#include <gjk/robots/srdf.hpp>
#include <gjk/robots/srdf_generator.hpp>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "robots_common.hpp"

namespace gjk_python {

namespace rb = gjk::robots;

// ---- shared helpers ---------------------------------------------------------------------------

Eigen::VectorXd to_joint_vector(py::handle obj, const char* name, long size) {
  const Rows a = as_float_array(obj, name);
  if (a.ndim() != 1 || (size >= 0 && a.shape(0) != size)) {
    throw py::value_error(std::string(name) + ": expected an array of shape (" +
                          (size >= 0 ? std::to_string(size) : std::string("n")) + ",), got shape " +
                          shape_string(a));
  }
  Eigen::VectorXd v(a.shape(0));
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    v[i] = a.data()[i];
    if (!std::isfinite(v[i])) {
      throw py::value_error(std::string(name) + ": entry " + std::to_string(i) +
                            " is not finite (" + std::to_string(v[i]) + ")");
    }
  }
  return v;
}

std::vector<Eigen::VectorXd> to_joint_rows(py::handle obj, const char* name, long size) {
  const Rows a = as_float_array(obj, name);
  if (a.ndim() != 2 || (size >= 0 && a.shape(1) != size)) {
    throw py::value_error(std::string(name) + ": expected an array of shape (M, " +
                          (size >= 0 ? std::to_string(size) : std::string("n")) + "), got shape " +
                          shape_string(a));
  }
  const auto m = static_cast<size_t>(a.shape(0)), n = static_cast<size_t>(a.shape(1));
  std::vector<Eigen::VectorXd> rows(m, Eigen::VectorXd(static_cast<Eigen::Index>(n)));
  const double* d = a.data();
  for (size_t r = 0; r < m; ++r) {
    for (size_t c = 0; c < n; ++c) {
      const double v = d[r * n + c];
      if (!std::isfinite(v)) {
        throw py::value_error(std::string(name) + ": row " + std::to_string(r) + ", column " +
                              std::to_string(c) + " is not finite");
      }
      rows[r][static_cast<Eigen::Index>(c)] = v;
    }
  }
  return rows;
}

py::array_t<double> from_vector(const Eigen::VectorXd& v) {
  py::array_t<double> out(v.size());
  std::copy(v.data(), v.data() + v.size(), out.mutable_data());
  return out;
}

void require_file(const std::string& path, const char* what) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return;
  const std::string message = std::string(what) + " not found";
  PyErr_SetObject(PyExc_FileNotFoundError,
                  py::make_tuple(ENOENT, message, path).ptr());  // str: "[Errno 2] ...: 'path'"
  throw py::error_already_set();
}

PairResult name_pair(const rb::RobotModel& model, const rb::Scene* scene,
                     const rb::PairDistance& pair, bool self) {
  PairResult r;
  r.pair = pair;
  r.self = self;
  const auto& shapes = model.collision_shapes();
  const auto link_of = [&](int s) -> std::string {
    const rb::CollisionShape& c = shapes[static_cast<size_t>(s)];
    return c.attached_object.empty() ? model.links()[static_cast<size_t>(c.link)].name
                                     : c.attached_object;
  };
  if (pair.shape < 0) return r;
  r.name_a = link_of(pair.shape);
  r.label_a = gjk::analysis::shape_label(model, pair.shape);
  if (self) {
    r.name_b = link_of(pair.obstacle);
    r.label_b = gjk::analysis::shape_label(model, pair.obstacle);
  } else if (scene != nullptr) {
    r.name_b = r.label_b = scene->obstacles[static_cast<size_t>(pair.obstacle)].name;
  }
  return r;
}

PairResult name_pair(const rb::CollisionWorld& world, const rb::ClosestPair& pair) {
  PairResult r;
  r.pair = pair.pair;
  r.self = pair.self;
  if (pair.pair.shape < 0) return r;
  r.name_a = world.part_name(pair.pair.shape);
  r.label_a = gjk::analysis::shape_label(world.model(), pair.pair.shape);
  if (pair.self) {
    r.name_b = world.part_name(pair.pair.obstacle);
    r.label_b = gjk::analysis::shape_label(world.model(), pair.pair.obstacle);
  } else {
    r.name_b = r.label_b = world.obstacles()[static_cast<size_t>(pair.pair.obstacle)].name;
  }
  return r;
}

py::dict pairs_as_arrays(const std::vector<PairResult>& pairs, long dof) {
  const auto n = static_cast<py::ssize_t>(pairs.size());
  py::array_t<double> distance(n), pa({n, py::ssize_t{3}}), pb({n, py::ssize_t{3}}),
      normal({n, py::ssize_t{3}});
  py::array_t<std::int32_t> shape(n), other(n);
  py::array_t<bool> self(n);
  py::array_t<std::int8_t> status(n);
  py::list name_a, name_b;
  double *d = distance.mutable_data(), *a = pa.mutable_data(), *b = pb.mutable_data(),
         *nn = normal.mutable_data();
  std::int32_t *s = shape.mutable_data(), *o = other.mutable_data();
  bool* sf = self.mutable_data();
  std::int8_t* st = status.mutable_data();
  py::dict out;
  double* g = nullptr;
  if (dof >= 0) {
    py::array_t<double> gradient({n, static_cast<py::ssize_t>(dof)});
    g = gradient.mutable_data();
    out["gradient"] = gradient;
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    const rb::PairDistance& p = pairs[i].pair;
    d[i] = p.distance;
    s[i] = p.shape;
    o[i] = p.obstacle;
    sf[i] = pairs[i].self;
    st[i] = static_cast<std::int8_t>(p.status);
    for (int k = 0; k < 3; ++k) {
      a[3 * i + static_cast<size_t>(k)] = p.point_on_link[k];
      b[3 * i + static_cast<size_t>(k)] = p.point_on_obstacle[k];
      nn[3 * i + static_cast<size_t>(k)] = p.normal[k];
    }
    if (g != nullptr) {
      const size_t row = i * static_cast<size_t>(dof);
      for (long k = 0; k < dof; ++k) {
        g[row + static_cast<size_t>(k)] = k < p.gradient.size() ? p.gradient[k] : std::nan("");
      }
    }
    name_a.append(pairs[i].name_a);
    name_b.append(pairs[i].name_b);
  }
  out["distance"] = distance;
  out["shape"] = shape;
  out["other"] = other;
  out["self"] = self;
  out["point_a"] = pa;
  out["point_b"] = pb;
  out["normal"] = normal;
  out["status"] = status;
  out["name_a"] = name_a;
  out["name_b"] = name_b;
  return out;
}

namespace {

const char* joint_type_name(rb::JointType t) {
  switch (t) {
    case rb::JointType::Revolute:
      return "revolute";
    case rb::JointType::Continuous:
      return "continuous";
    case rb::JointType::Prismatic:
      return "prismatic";
    case rb::JointType::Fixed:
      return "fixed";
  }
  return "fixed";
}

rb::LinkMeshRepresentation representation(const std::string& text, const std::string& where) {
  try {
    return rb::parse_link_mesh_representation(text, where);
  } catch (const rb::ModelError& e) {
    throw py::value_error(e.what());  // a bad argument, not a bad model file
  }
}

// A link by name or index, checked.
int link_arg(const rb::RobotModel& model, py::handle link) {
  if (py::isinstance<py::str>(link)) return model.link_index(py::cast<std::string>(link));
  if (!py::isinstance<py::int_>(link)) {
    throw py::value_error("link: expected a link name (str) or index (int)");
  }
  const long i = py::cast<long>(link);
  if (i < 0 || i >= static_cast<long>(model.links().size())) {
    throw py::value_error("link: index " + std::to_string(i) + " out of range (the model has " +
                          std::to_string(model.links().size()) + " links)");
  }
  return static_cast<int>(i);
}

rb::Workspace kinematics(const rb::RobotModel& model, py::handle q) {
  const Eigen::VectorXd v = to_joint_vector(q, "q", model.num_positions());
  rb::Workspace ws(model);
  {
    py::gil_scoped_release release;
    rb::forward_kinematics(model, v, ws);
  }
  return ws;
}

py::array_t<double> poses_array(const std::vector<gjk::Pose>& poses) {
  py::array_t<double> out({static_cast<py::ssize_t>(poses.size()), py::ssize_t{4}, py::ssize_t{4}});
  double* d = out.mutable_data();
  for (size_t i = 0; i < poses.size(); ++i) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c)
        d[16 * i + static_cast<size_t>(4 * r + c)] = poses[i].matrix()(r, c);
    }
  }
  return out;
}

py::array_t<double> matrix_array(const Eigen::MatrixXd& m) {
  py::array_t<double> out({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  double* d = out.mutable_data();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    for (Eigen::Index c = 0; c < m.cols(); ++c) d[r * m.cols() + c] = m(r, c);
  }
  return out;
}

rb::DistanceOptions distance_options(double cutoff, bool gradients, Opt<gjk::QueryOptions> query) {
  if (std::isnan(cutoff)) throw py::value_error("cutoff: must not be NaN");
  rb::DistanceOptions o;
  o.cutoff = cutoff;
  o.gradients = gradients;
  if (query) o.query = *query;
  return o;
}

}  // namespace

void bind_robots(py::module_& m) {
  using py::arg;
  const double inf = std::numeric_limits<double>::infinity();

  // Library exceptions: ValueError subclasses (bad input), carrying the C++ message.
  py::register_exception<rb::ModelError>(m, "ModelError", PyExc_ValueError).attr("__doc__") =
      "A URDF, joint vector or model use that cannot work (names the file, "
      "element, joint and value).";
  py::register_exception<rb::SceneError>(m, "SceneError", PyExc_ValueError).attr("__doc__") =
      "A scene file that cannot be used (names the file, line and field).";
  py::register_exception<rb::SrdfError>(m, "SrdfError", PyExc_ValueError).attr("__doc__") =
      "An SRDF that cannot be used (FILE:LINE: names the element and value).";
  py::register_exception<gjk::analysis::PathError>(m, "PathError", PyExc_ValueError)
      .attr("__doc__") = "A joint path that cannot be used.";

  // ---- model ----------------------------------------------------------------------------------
  py::class_<rb::Joint>(m, "Joint", "A URDF joint (read-only).")
      .def_readonly("name", &rb::Joint::name, "Name, as in the URDF.")
      .def_property_readonly(
          "type", [](const rb::Joint& j) { return joint_type_name(j.type); },
          "'revolute', 'continuous', 'prismatic' or 'fixed'.")
      .def_readonly("parent_link", &rb::Joint::parent_link, "Index into RobotModel.links.")
      .def_readonly("child_link", &rb::Joint::child_link, "Index into RobotModel.links.")
      .def_property_readonly(
          "origin", [](const rb::Joint& j) { return from_pose(j.origin); },
          "(4, 4) child frame in the parent link's frame at q = 0.")
      .def_property_readonly(
          "axis", [](const rb::Joint& j) { return from_vec3(j.axis); },
          "(3,) unit axis in the joint frame.")
      .def_readonly("lower", &rb::Joint::lower, "Lower limit (continuous: -inf).")
      .def_readonly("upper", &rb::Joint::upper, "Upper limit (continuous: +inf).")
      .def_readonly("q_index", &rb::Joint::q_index,
                    "Position in q (-1 for fixed joints; a mimic joint's leader's index).")
      .def_readonly("is_mimic", &rb::Joint::is_mimic, "Follows another joint (<mimic>).")
      .def_readonly("mimic_multiplier", &rb::Joint::mimic_multiplier, "<mimic multiplier>.")
      .def_readonly("mimic_offset", &rb::Joint::mimic_offset, "<mimic offset>.")
      .def("__repr__", [](const rb::Joint& j) {
        return "Joint('" + j.name + "', " + joint_type_name(j.type) + ")";
      });

  py::class_<rb::Link>(m, "Link", "A URDF link (read-only).")
      .def_readonly("name", &rb::Link::name, "Name, as in the URDF.")
      .def_readonly("parent_joint", &rb::Link::parent_joint,
                    "Index into RobotModel.joints; -1 for the root.")
      .def("__repr__", [](const rb::Link& l) { return "Link('" + l.name + "')"; });

  py::class_<rb::CollisionShape>(m, "CollisionShape",
                                 "A collision element fixed on a link: a convex shape, or exact "
                                 "triangles (read-only).")
      .def_readonly("link", &rb::CollisionShape::link, "Index into RobotModel.links.")
      .def_property_readonly(
          "shape", [](const rb::CollisionShape& c) { return typed_shape(c.shape); },
          "The convex shape in its own frame (a Sphere, Box, ... ConvexPolytope; a copy); for a "
          "mesh element, the hull of its triangles.")
      .def_property_readonly(
          "mesh",
          [](const rb::CollisionShape& c) -> const gjk::TriangleMesh* { return c.mesh.get(); },
          py::return_value_policy::reference_internal,
          "The exact triangles of a link loaded with meshes='mesh' (a TriangleMesh in the shape "
          "frame), else None.")
      .def_property_readonly(
          "origin", [](const rb::CollisionShape& c) { return from_pose(c.origin); },
          "(4, 4) shape frame in the link frame.")
      .def_readonly("description", &rb::CollisionShape::description,
                    "What the URDF says it is, e.g. 'mesh meshes/collision/link1.stl' or 'box'.")
      .def_readonly("attached_object", &rb::CollisionShape::attached_object,
                    "'' for the URDF's shapes; the attached object's name otherwise.")
      .def_readonly("touch_links", &rb::CollisionShape::touch_links,
                    "Attached shapes: links (indices) allowed to touch it.");

  py::class_<rb::RobotModel>(m, "RobotModel", R"doc(
A robot from a URDF: links, joints (with limits) and convex collision shapes, with forward
kinematics and point Jacobians. Immutable; safe to share between threads. Joint vectors `q` are
(num_positions,) arrays in position_names order (the URDF's movable, non-mimic joints).)doc")
      .def_static(
          "from_urdf",
          [](const std::filesystem::path& file, const std::vector<std::string>& package_dirs,
             const std::string& meshes, const std::map<std::string, std::string>& link_meshes) {
            const std::string path = file.string();
            require_file(path, "URDF file");
            rb::UrdfOptions o;
            o.package_dirs = package_dirs;
            o.meshes = representation(meshes, "meshes");
            for (const auto& [link, rep] : link_meshes)
              o.link_meshes.emplace_back(link, representation(rep, "link_meshes['" + link + "']"));
            py::gil_scoped_release release;
            return rb::RobotModel::from_urdf_file(path, o);
          },
          arg("path"), arg("package_dirs") = std::vector<std::string>{}, arg("meshes") = "hull",
          arg("link_meshes") = std::map<std::string, std::string>{}, R"doc(
Loads a URDF file. `package://NAME/...` mesh URIs resolve in `package_dirs`; relative mesh paths
against the URDF's folder. `meshes` is how link meshes are represented: 'hull' (one convex hull
per mesh, the default), 'pieces' (one hull per shell of the file, e.g. a V-HACD output) or
'mesh' (the exact triangles, non-convex links not inflated);
`link_meshes` overrides it per link name. FileNotFoundError when `path` does not exist,
ModelError (a ValueError) for a bad URDF or mesh.)doc")
      .def_static(
          "from_urdf_string",
          [](const std::string& xml, const std::string& base_dir, const std::string& name,
             const std::vector<std::string>& package_dirs, const std::string& meshes) {
            rb::UrdfOptions o;
            o.package_dirs = package_dirs;
            o.meshes = representation(meshes, "meshes");
            py::gil_scoped_release release;
            return rb::RobotModel::from_urdf_string(xml, base_dir, name, o);
          },
          arg("xml"), arg("base_dir") = ".", arg("name") = "<string>",
          arg("package_dirs") = std::vector<std::string>{}, arg("meshes") = "hull",
          "The same from URDF text; `base_dir` resolves relative mesh paths, `name` is used in "
          "messages.")
      .def_property_readonly("name", &rb::RobotModel::name, "The URDF robot name.")
      .def_property_readonly("num_positions", &rb::RobotModel::num_positions,
                             "Entries of a joint vector q.")
      .def_property_readonly("position_names", &rb::RobotModel::position_names,
                             "Names of the joints of q, in q order.")
      .def_property_readonly(
          "lower_limits", [](const rb::RobotModel& r) { return from_vector(r.lower_limits()); },
          "(num_positions,) lower limits in q order.")
      .def_property_readonly(
          "upper_limits", [](const rb::RobotModel& r) { return from_vector(r.upper_limits()); },
          "(num_positions,) upper limits in q order.")
      .def_property_readonly("links", &rb::RobotModel::links, "Links, parents first (copies).")
      .def_property_readonly("joints", &rb::RobotModel::joints, "Joints, parents first (copies).")
      .def_property_readonly(
          "link_names",
          [](const rb::RobotModel& r) {
            std::vector<std::string> n;
            for (const auto& l : r.links()) n.push_back(l.name);
            return n;
          },
          "Names of the links, in links order (the rows of forward_kinematics).")
      .def_property_readonly(
          "joint_names",
          [](const rb::RobotModel& r) {
            std::vector<std::string> n;
            for (const auto& j : r.joints()) n.push_back(j.name);
            return n;
          },
          "Names of every joint (fixed ones too), in joints order.")
      .def_property_readonly("collision_shapes", &rb::RobotModel::collision_shapes,
                             "The collision shapes of all links (copies).")
      .def("link_index", &rb::RobotModel::link_index, arg("name"),
           "Index of a link by name (ModelError when absent).")
      .def("joint_index", &rb::RobotModel::joint_index, arg("name"),
           "Index of a joint by name (ModelError when absent).")
      .def(
          "shape_label",
          [](const rb::RobotModel& r, int shape) {
            if (shape < 0 || shape >= static_cast<int>(r.collision_shapes().size()))
              throw py::value_error("shape: index " + std::to_string(shape) + " out of range");
            return gjk::analysis::shape_label(r, shape);
          },
          arg("shape"), "'LINK#K': collision shape `shape` as gjk-clearance names it.")
      .def_property(
          "base_pose", [](const rb::RobotModel& r) { return from_pose(r.base_pose()); },
          [](rb::RobotModel& r, py::handle pose) { r.set_base_pose(to_pose(pose, "base_pose")); },
          "(4, 4) pose of the root link in the world (the SRDF's virtual joint; identity by "
          "default). Setting it checks the rotation (ModelError); worlds built from this model "
          "before keep their copy (use CollisionWorld.set_base_pose).")
      .def(
          "check_configuration",
          [](const rb::RobotModel& r, ArrayLike q, double tolerance) {
            r.check_configuration(to_joint_vector(q, "q", r.num_positions()), tolerance);
          },
          arg("q"), arg("tolerance") = 1e-9,
          "Raises ModelError when q is outside the joint limits (by more than tolerance).")
      .def(
          "forward_kinematics",
          [](const rb::RobotModel& r, ArrayLike q) {
            return poses_array(kinematics(r, q).link_poses);
          },
          arg("q"),
          "(L, 4, 4) world pose of every link at q, in links order (the root at the identity). "
          "ModelError for q outside the limits.")
      .def(
          "forward_kinematics_batch",
          [](const rb::RobotModel& r, ArrayLike qs) {
            const std::vector<Eigen::VectorXd> rows = to_joint_rows(qs, "qs", r.num_positions());
            const size_t links = r.links().size();
            py::array_t<double> out({static_cast<py::ssize_t>(rows.size()),
                                     static_cast<py::ssize_t>(links), py::ssize_t{4},
                                     py::ssize_t{4}});
            double* d = out.mutable_data();
            {
              py::gil_scoped_release release;
              rb::Workspace ws(r);
              for (size_t i = 0; i < rows.size(); ++i) {
                rb::forward_kinematics(r, rows[i], ws);
                for (size_t l = 0; l < links; ++l) {
                  const Eigen::Matrix4d& m4 = ws.link_poses[l].matrix();
                  for (int a = 0; a < 4; ++a)
                    for (int b = 0; b < 4; ++b)
                      d[(i * links + l) * 16 + static_cast<size_t>(4 * a + b)] = m4(a, b);
                }
              }
            }
            return out;
          },
          arg("qs"),
          "(M, L, 4, 4) link poses for every row of `qs` ((M, num_positions)), in one call "
          "without the GIL. ModelError names a row outside the limits.")
      .def(
          "link_poses",
          [](const rb::RobotModel& r, ArrayLike q) {
            const rb::Workspace ws = kinematics(r, q);
            py::dict out;
            for (size_t i = 0; i < ws.link_poses.size(); ++i)
              out[py::str(r.links()[i].name)] = from_pose(ws.link_poses[i]);
            return out;
          },
          arg("q"), "{link name: (4, 4) world pose} at q.")
      .def(
          "collision_poses",
          [](const rb::RobotModel& r, ArrayLike q) {
            const rb::Workspace ws = kinematics(r, q);
            std::vector<gjk::Pose> poses;
            for (int s = 0; s < static_cast<int>(r.collision_shapes().size()); ++s)
              poses.push_back(rb::collision_pose(r, ws, s));
            return poses_array(poses);
          },
          arg("q"), "(S, 4, 4) world pose of every collision shape at q.")
      .def(
          "point_jacobian",
          [](const rb::RobotModel& r, ArrayLike q, py::handle link, ArrayLike point) {
            const int l = link_arg(r, link);
            const gjk::Vec3 p = to_vec3(point, "point");
            const rb::Workspace ws = kinematics(r, q);
            return matrix_array(rb::point_jacobian(r, ws, l, p));
          },
          arg("q"), arg("link"), arg("point"), R"doc(
(6, num_positions) geometric Jacobian at q of the point fixed on `link` (name or index) that is
at `point` (world coordinates) at q: rows 0-2 the point's linear velocity, rows 3-5 the link's
angular velocity, world frame, per unit of each q entry.)doc")
      .def("__repr__", [](const rb::RobotModel& r) {
        return "RobotModel('" + r.name() + "', " + std::to_string(r.num_positions()) +
               " positions, " + std::to_string(r.links().size()) + " links, " +
               std::to_string(r.collision_shapes().size()) + " collision shapes)";
      });

  // ---- scenes ---------------------------------------------------------------------------------
  py::class_<rb::Obstacle>(m, "Obstacle", "A named obstacle of a scene (read-only).")
      .def_readonly("name", &rb::Obstacle::name, "Unique name ('shelf', or 'shelf#2' for a piece).")
      .def_property_readonly(
          "object", [](const rb::Obstacle& o) { return o.object.empty() ? o.name : o.object; },
          "The scene entry it comes from (its name unless it is one piece of an entry).")
      .def_property_readonly(
          "pose", [](const rb::Obstacle& o) { return from_pose(o.pose); },
          "(4, 4) obstacle frame in the world.")
      .def_property_readonly(
          "kind",
          [](const rb::Obstacle& o) {
            switch (o.kind()) {
              case rb::ObstacleKind::Mesh:
                return "mesh";
              case rb::ObstacleKind::Cells:
                return "cells";
              case rb::ObstacleKind::Convex:
                break;
            }
            return "convex";
          },
          "'convex', 'mesh' (exact triangles) or 'cells' (octree cells / voxels).")
      .def_property_readonly(
          "shape",
          [](const rb::Obstacle& o) -> py::object {
            if (o.kind() != rb::ObstacleKind::Convex) return py::none();
            return typed_shape(o.shape);
          },
          "The convex shape in the obstacle's frame (None for meshes and cells).")
      .def_property_readonly(
          "mesh",
          [](const rb::Obstacle& o) -> py::object {
            return o.mesh ? py::cast(*o.mesh) : py::none();
          },
          "The TriangleMesh (a copy) of a mesh obstacle, else None.")
      .def_property_readonly(
          "cells",
          [](const rb::Obstacle& o) -> py::object {
            return o.cells ? py::cast(*o.cells) : py::none();
          },
          "The BoxSet (a copy) of a cells obstacle, else None.")
      .def("__repr__", [](const rb::Obstacle& o) { return "Obstacle('" + o.name + "')"; });

  py::class_<rb::AttachedObject>(m, "AttachedObject", R"doc(
An object the robot holds: convex pieces or exact triangle meshes fixed on a link, with the links
allowed to touch it.)doc")
      .def(py::init([](const std::string& name, const std::string& link, const py::list& shapes,
                       std::vector<ArrayLike> poses, const std::vector<std::string>& touch_links) {
             if (!poses.empty() && poses.size() != shapes.size())
               throw py::value_error("AttachedObject: " + std::to_string(shapes.size()) +
                                     " shapes but " + std::to_string(poses.size()) + " poses");
             rb::AttachedObject a;
             a.name = name;
             a.link = link;
             for (size_t i = 0; i < shapes.size(); ++i) {
               const gjk::Pose pose = poses.empty() || poses[i].h.is_none()
                                          ? gjk::Pose::Identity()
                                          : to_pose(poses[i], "poses");
               const py::handle item = shapes[i];
               if (py::isinstance<gjk::TriangleMesh>(item))
                 a.add_mesh(std::make_shared<const gjk::TriangleMesh>(
                                item.cast<const gjk::TriangleMesh&>()),
                            pose);
               else
                 try {
                   a.add_shape(item.cast<gjk::Shape>(), pose);
                 } catch (const py::cast_error&) {
                   throw py::type_error("AttachedObject: shapes[" + std::to_string(i) + "] is a " +
                                        std::string(py::str(item.get_type())) +
                                        ", not a libgjk shape or TriangleMesh");
                 }
             }
             a.touch_links = touch_links;
             return a;
           }),
           arg("name"), arg("link"), arg("shapes"), arg("poses") = std::vector<ArrayLike>{},
           arg("touch_links") = std::vector<std::string>{},
           "`shapes` (convex shapes, or TriangleMesh for exact mesh pieces, whose hull becomes "
           "their bound) in the link frame at `poses` ((4, 4) each; default identity).")
      .def_readonly("name", &rb::AttachedObject::name, "Unique name.")
      .def_readonly("link", &rb::AttachedObject::link, "The link it is fixed to.")
      .def_property_readonly(
          "shapes",
          [](const rb::AttachedObject& a) {
            py::list l;
            for (const auto& s : a.shapes) l.append(typed_shape(s));
            return l;
          },
          "Its convex pieces; for a mesh piece, the hull of its triangles (copies).")
      .def_property_readonly(
          "meshes",
          [](const rb::AttachedObject& a) {
            py::list l;
            for (size_t k = 0; k < a.shapes.size(); ++k)
              l.append(a.is_mesh(k) ? py::cast(*a.meshes[k]) : py::none());
            return l;
          },
          "Per piece: its exact triangles (a TriangleMesh copy), or None for a convex piece.")
      .def_property_readonly(
          "poses",
          [](const rb::AttachedObject& a) {
            py::list l;
            for (const auto& p : a.poses) l.append(from_pose(p));
            return l;
          },
          "Each piece's (4, 4) frame in the link frame.")
      .def_readonly("touch_links", &rb::AttachedObject::touch_links, "Links allowed to touch it.");

  py::class_<rb::Scene>(m, "Scene", "Obstacles of a robot cell and the objects the robot holds.")
      .def(py::init<>(), "An empty scene.")
      .def_readonly("obstacles", &rb::Scene::obstacles, "Obstacles, in file order (copies).")
      .def_readonly("attached", &rb::Scene::attached, "The `attached:` entries (copies).")
      .def_property_readonly(
          "obstacle_names",
          [](const rb::Scene& s) {
            std::vector<std::string> n;
            for (const auto& o : s.obstacles) n.push_back(o.name);
            return n;
          },
          "Names of the obstacles, in order.")
      .def("__len__", [](const rb::Scene& s) { return s.obstacles.size(); })
      .def("__repr__", [](const rb::Scene& s) {
        return "Scene(" + std::to_string(s.obstacles.size()) + " obstacles, " +
               std::to_string(s.attached.size()) + " attached)";
      });

  m.def(
      "load_scene",
      [](const std::filesystem::path& file) {
        const std::string path = file.string();
        require_file(path, "scene file");
        py::gil_scoped_release release;
        return rb::load_scene(path);
      },
      arg("path"), R"doc(
Loads a YAML scene file (format: robots/scenes/README.md); mesh, OctoMap and point-cloud paths
are relative to it. FileNotFoundError when it does not exist, SceneError (a ValueError) naming
the line and field for a bad file.)doc");
  m.def(
      "parse_scene",
      [](const std::string& text, const std::string& name, const std::string& base_dir) {
        py::gil_scoped_release release;
        return rb::parse_scene(text, name, base_dir);
      },
      arg("text"), arg("name") = "<string>", arg("base_dir") = ".",
      "A scene from YAML text; `name` is used in messages, `base_dir` resolves file paths.");

  // ---- distances ------------------------------------------------------------------------------
  py::class_<PairResult>(m, "PairDistance", R"doc(
The signed distance of one robot pair: a robot collision shape (`shape`) against an obstacle
(`obstacle`) or, when `self_pair`, against another robot shape (`obstacle` is then its shape
index). Points are in the world frame; `normal` is unit, from the robot shape towards the other
part; `gradient` is d distance / d q (None when not computed).)doc")
      .def_property_readonly(
          "distance", [](const PairResult& r) { return r.pair.distance; },
          "Signed distance (negative: penetration depth).")
      .def_property_readonly(
          "shape", [](const PairResult& r) { return r.pair.shape; },
          "Robot collision shape index (-1: no pair within the cutoff).")
      .def_property_readonly(
          "obstacle", [](const PairResult& r) { return r.pair.obstacle; },
          "Obstacle index, or the second shape's index for a self pair.")
      .def_readonly("self_pair", &PairResult::self, "True for two robot shapes.")
      .def_readonly("name_a", &PairResult::name_a, "The robot shape's link (or attached object).")
      .def_readonly("name_b", &PairResult::name_b,
                    "The obstacle's name, or the second shape's link.")
      .def_readonly("label_a", &PairResult::label_a, "The robot shape as 'LINK#K'.")
      .def_readonly("label_b", &PairResult::label_b,
                    "The obstacle's name, or the second shape as 'LINK#K'.")
      .def_property_readonly(
          "point_a", [](const PairResult& r) { return from_vec3(r.pair.point_on_link); },
          "(3,) witness point on the robot shape, world frame.")
      .def_property_readonly(
          "point_b", [](const PairResult& r) { return from_vec3(r.pair.point_on_obstacle); },
          "(3,) witness point on the other part, world frame.")
      .def_property_readonly(
          "normal", [](const PairResult& r) { return from_vec3(r.pair.normal); },
          "(3,) unit normal from the robot shape towards the other part.")
      .def_property_readonly(
          "gradient",
          [](const PairResult& r) -> py::object {
            if (r.pair.gradient.size() == 0) return py::none();
            return from_vector(r.pair.gradient);
          },
          "(num_positions,) d distance / d q, or None when gradients were not asked for.")
      .def_property_readonly(
          "status", [](const PairResult& r) { return to_py(r.pair.status); },
          "The engine's Status for the pair.")
      .def("__repr__", [](const PairResult& r) {
        return "PairDistance(" + r.label_a + " / " + r.label_b + ", " +
               std::to_string(r.pair.distance) + ")";
      });

  m.def(
      "robot_scene_distances",
      [](const rb::RobotModel& model, const rb::Scene& scene, ArrayLike q, double cutoff,
         bool gradients, Opt<gjk::QueryOptions> query) {
        const Eigen::VectorXd v = to_joint_vector(q, "q", model.num_positions());
        const rb::DistanceOptions o = distance_options(cutoff, gradients, query);
        std::vector<PairResult> out;
        {
          py::gil_scoped_release release;
          rb::Workspace ws(model);
          rb::forward_kinematics(model, v, ws);
          for (const rb::PairDistance& p : rb::robot_scene_distances(model, ws, scene, o))
            out.push_back(name_pair(model, &scene, p, false));
        }
        return out;
      },
      arg("model"), arg("scene"), arg("q"), arg("cutoff") = inf, arg("gradients") = true,
      arg("options") = py::none(), R"doc(
Every (robot shape, obstacle) pair of `model` in `scene` at q whose distance is within `cutoff`,
as PairDistance objects in (shape, obstacle) order, with gradients d distance / d q (seed 002
eq. 7: -J_p(q)^T n) unless `gradients` is False.)doc");
  m.def(
      "minimum_distance",
      [](const rb::RobotModel& model, const rb::Scene& scene, ArrayLike q, double cutoff,
         bool gradients, Opt<gjk::QueryOptions> query) -> py::object {
        const Eigen::VectorXd v = to_joint_vector(q, "q", model.num_positions());
        const rb::DistanceOptions o = distance_options(cutoff, gradients, query);
        PairResult r;
        {
          py::gil_scoped_release release;
          rb::Workspace ws(model);
          rb::forward_kinematics(model, v, ws);
          r = name_pair(model, &scene, rb::minimum_distance(model, ws, scene, o), false);
        }
        if (r.pair.shape < 0) return py::none();
        return py::cast(std::move(r));
      },
      arg("model"), arg("scene"), arg("q"), arg("cutoff") = inf, arg("gradients") = true,
      arg("options") = py::none(),
      "The closest (robot shape, obstacle) pair at q with its gradient; None when no pair is "
      "within `cutoff`.");
  m.def(
      "self_collision_pairs",
      [](const rb::RobotModel& model,
         const std::vector<std::pair<std::string, std::string>>& allowed, bool exclude_adjacent) {
        return rb::self_collision_pairs(model, allowed, exclude_adjacent);
      },
      arg("model"), arg("allowed") = std::vector<std::pair<std::string, std::string>>{},
      arg("exclude_adjacent") = true, R"doc(
Pairs of collision shape indices (i, j) to check for self-collision: shapes on different links,
except the link pairs in `allowed` (names, either order) and, with `exclude_adjacent`, links at
most one moving joint apart.)doc");
  m.def(
      "self_collision_pairs",
      [](const rb::RobotModel& model, const rb::AllowedCollisionMatrix& acm) {
        return rb::self_collision_pairs(model, acm);
      },
      arg("model"), arg("acm"),
      "The shape pairs on different links whose contact the matrix does not allow.");
  m.def(
      "self_distances",
      [](const rb::RobotModel& model, ArrayLike q,
         std::optional<std::vector<std::pair<int, int>>> pairs, double cutoff, bool gradients,
         Opt<gjk::QueryOptions> query) {
        const Eigen::VectorXd v = to_joint_vector(q, "q", model.num_positions());
        const rb::DistanceOptions o = distance_options(cutoff, gradients, query);
        const auto shapes = static_cast<int>(model.collision_shapes().size());
        std::vector<std::pair<int, int>> list =
            pairs ? *pairs : rb::self_collision_pairs(model, {}, true);
        for (const auto& [a, b] : list) {
          if (a < 0 || b < 0 || a >= shapes || b >= shapes) {
            throw py::value_error("pairs: shape index out of range in (" + std::to_string(a) +
                                  ", " + std::to_string(b) + "); the model has " +
                                  std::to_string(shapes) + " collision shapes");
          }
        }
        std::vector<PairResult> out;
        {
          py::gil_scoped_release release;
          rb::Workspace ws(model);
          rb::forward_kinematics(model, v, ws);
          for (const rb::PairDistance& p : rb::self_distances(model, ws, list, o))
            out.push_back(name_pair(model, nullptr, p, true));
        }
        return out;
      },
      arg("model"), arg("q"), arg("pairs") = py::none(), arg("cutoff") = inf,
      arg("gradients") = true, arg("options") = py::none(), R"doc(
Signed distances of robot shape pairs at q (default: self_collision_pairs(model)), as
PairDistance objects with self_pair True; the gradient accounts for both links moving.)doc");

  // ---- allowed collisions, SRDF ---------------------------------------------------------------
  py::class_<rb::AllowedCollisionMatrix>(m, "AllowedCollisionMatrix", R"doc(
Which pairs of named parts (links, obstacles, attached objects) may touch (MoveIt's ACM). A pair
entry wins over the per-name defaults; symmetric. An empty matrix allows nothing.)doc")
      .def(py::init<>(), "An empty matrix (nothing allowed).")
      .def_static("from_adjacency", &rb::AllowedCollisionMatrix::from_adjacency, arg("model"),
                  "Links at most one moving joint apart allowed.")
      .def("allowed", &rb::AllowedCollisionMatrix::allowed, arg("a"), arg("b"),
           "Whether contact between parts a and b is allowed.")
      .def("set_allowed", &rb::AllowedCollisionMatrix::set_allowed, arg("a"), arg("b"),
           arg("allowed"), "Sets the pair entry (either order).")
      .def(
          "allow",
          [](rb::AllowedCollisionMatrix& acm, const std::string& a, const std::string& b) {
            acm.set_allowed(a, b, true);
          },
          arg("a"), arg("b"), "Allows contact between a and b (a pair entry).")
      .def(
          "disallow",
          [](rb::AllowedCollisionMatrix& acm, const std::string& a, const std::string& b) {
            acm.set_allowed(a, b, false);
          },
          arg("a"), arg("b"), "Forbids contact between a and b (a pair entry, wins over defaults).")
      .def("set_default", &rb::AllowedCollisionMatrix::set_default, arg("name"), arg("allowed"),
           "Every pair involving `name` allowed (or not) unless a pair entry says otherwise.")
      .def("remove_default", &rb::AllowedCollisionMatrix::remove_default, arg("name"),
           "Drops the default of `name`.")
      .def("remove", &rb::AllowedCollisionMatrix::remove, arg("a"), arg("b"),
           "Drops the pair entry of a and b.")
      .def("allowed_pairs", &rb::AllowedCollisionMatrix::allowed_pairs,
           "The pair entries that allow contact, (first <= second), sorted.")
      .def("__len__", &rb::AllowedCollisionMatrix::size, "Number of pair entries.")
      .def(
          "copy", [](const rb::AllowedCollisionMatrix& a) { return a; }, "A copy.");

  py::class_<rb::Srdf>(m, "Srdf", "A parsed SRDF (MoveIt's semantic robot description).")
      .def_readonly("robot_name", &rb::Srdf::robot_name, "<robot name>.")
      .def_property_readonly(
          "group_names",
          [](const rb::Srdf& s) {
            std::vector<std::string> n;
            for (const auto& g : s.groups) n.push_back(g.name);
            return n;
          },
          "Names of the planning groups, in file order.")
      .def_property_readonly(
          "group_states",
          [](const rb::Srdf& s) {
            py::list l;
            for (const auto& g : s.group_states) {
              py::dict values;
              for (const auto& [j, v] : g.joint_values) values[py::str(j)] = v;
              l.append(py::make_tuple(g.name, g.group, values));
            }
            return l;
          },
          "(name, group, {joint: value}) of every <group_state>, in file order.")
      .def_property_readonly(
          "disabled_collisions",
          [](const rb::Srdf& s) {
            py::list l;
            for (const auto& d : s.disabled_collisions)
              l.append(py::make_tuple(d.link1, d.link2, d.reason));
            return l;
          },
          "(link1, link2, reason) of every <disable_collisions>.")
      .def_readonly("passive_joints", &rb::Srdf::passive_joints, "Top-level <passive_joint>s.");

  m.def(
      "load_srdf",
      [](const std::filesystem::path& file, const rb::RobotModel& model) {
        const std::string path = file.string();
        require_file(path, "SRDF file");
        py::gil_scoped_release release;
        return rb::load_srdf(path, model);
      },
      arg("path"), arg("model"),
      "Reads an SRDF and checks its names against `model`: FileNotFoundError, or SrdfError (a "
      "ValueError) naming the line.");
  m.def("parse_srdf", &rb::parse_srdf, arg("xml"), arg("model"), arg("name") = "<string>",
        "The same from SRDF text.");
  m.def("acm_from_srdf", &rb::acm_from_srdf, arg("model"), arg("srdf"),
        "Adjacent links plus the SRDF's disable_collisions.");
  m.def("group_joints", &rb::group_joints, arg("model"), arg("srdf"), arg("group"),
        "Joints of a group that have a position, in q order (ValueError for an unknown group).");
  m.def(
      "named_state",
      [](const rb::RobotModel& model, const rb::Srdf& srdf, const std::string& state,
         std::optional<ArrayLike> base) {
        if (base && !base->h.is_none()) {
          const Eigen::VectorXd b = to_joint_vector(*base, "base", model.num_positions());
          return from_vector(rb::named_state(model, srdf, state, &b));
        }
        return from_vector(rb::named_state(model, srdf, state));
      },
      arg("model"), arg("srdf"), arg("state"), arg("base") = py::none(),
      "q with the SRDF group state's values, the other entries from `base` (or 0).");
  m.def(
      "named_base_pose",
      [](const rb::RobotModel& model, const rb::Srdf& srdf,
         const std::string& state) -> py::object {
        const std::optional<gjk::Pose> pose = rb::named_base_pose(model, srdf, state);
        if (!pose) return py::none();
        return from_pose(*pose);
      },
      arg("model"), arg("srdf"), arg("state"),
      "(4, 4) base pose a group state gives the root's planar (x y theta) or floating "
      "(x y z qx qy qz qw) virtual joint, or None when it gives none.");
  m.def(
      "check_base_pose",
      [](const rb::RobotModel& model, const rb::Srdf& srdf, py::handle pose) {
        rb::check_base_pose(model, srdf, to_pose(pose, "pose"));
      },
      arg("model"), arg("srdf"), arg("pose"),
      "ValueError when the root's virtual joint cannot reach `pose` (fixed: identity only; "
      "planar: xy and yaw only).");
  m.def(
      "generate_disabled_collisions",
      [](const rb::RobotModel& model, int samples, unsigned seed) {
        rb::CollisionMatrixReport report;  // a negative `samples` is a ValueError from C++
        {
          py::gil_scoped_release release;
          report = rb::generate_disabled_collisions(model, samples, seed);
        }
        py::list l;
        for (const auto& d : report.disabled) l.append(py::make_tuple(d.link1, d.link2, d.reason));
        return l;
      },
      arg("model"), arg("samples") = 10000, arg("seed") = 1u, R"doc(
The SRDF disable_collisions a robot needs, computed as MoveIt's Setup Assistant does (the
`gjk-srdf` tool's engine): (link1, link2, reason) with link1 < link2, sorted, reason one of
Adjacent (at most one moving joint between them), Default (in collision at q = 0 clamped into
the limits), Always (in collision in >= 95% of `samples` uniform random configurations, seeded
by `seed`) or Never (in none of them). Pairs that collide only sometimes are left out.)doc");
}

}  // namespace gjk_python
