// Shapes, poses, options, results, the convex and mesh queries and the batch calls.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <gjk/batch.hpp>
#include <gjk/broadphase.hpp>
#include <gjk/mesh.hpp>
#include <gjk/queries.hpp>
#include <gjk/results.hpp>
#include <gjk/shapes.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"

namespace gjk_python {

namespace {

// Python sees each geometry as its own class, all subclasses of Shape, so a query takes any of
// them by reference (no copy of a polytope's vertices per call) and isinstance() works.
struct PySphere : gjk::Shape {};
struct PyBox : gjk::Shape {};
struct PyCapsule : gjk::Shape {};
struct PyCylinder : gjk::Shape {};
struct PyPolytope : gjk::Shape {};

template <class Wrapper, class G>
Wrapper make_shape(G geometry, double inflation) {
  Wrapper w;
  w.geometry = std::move(geometry);
  w.inflation = inflation;
  gjk::validate(w);  // std::invalid_argument (ValueError) naming the bad field
  return w;
}

// The geometry of `s` as an object of its Python class (a copy).
py::object geometry_object(const gjk::Shape& s) {
  return std::visit(
      [](const auto& g) -> py::object {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, gjk::Sphere>) return py::cast(make_shape<PySphere>(g, 0));
        if constexpr (std::is_same_v<G, gjk::Box>) return py::cast(make_shape<PyBox>(g, 0));
        if constexpr (std::is_same_v<G, gjk::Capsule>) return py::cast(make_shape<PyCapsule>(g, 0));
        if constexpr (std::is_same_v<G, gjk::Cylinder>) {
          return py::cast(make_shape<PyCylinder>(g, 0));
        }
        if constexpr (std::is_same_v<G, gjk::ConvexPolytope>) {
          return py::cast(make_shape<PyPolytope>(g, 0));
        }
      },
      s.geometry);
}

}  // namespace

py::object typed_shape(const gjk::Shape& s) {
  py::object g = geometry_object(s);
  g.cast<gjk::Shape&>().inflation = s.inflation;  // a fresh copy: setting its inflation is safe
  return g;
}

namespace {

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

std::string shape_repr(const gjk::Shape& s) {
  std::string body = std::visit(
      [](const auto& g) -> std::string {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, gjk::Sphere>) return "Sphere(radius=" + fmt(g.radius);
        if constexpr (std::is_same_v<G, gjk::Box>) {
          return "Box(half_extents=[" + fmt(g.half_extents.x()) + ", " + fmt(g.half_extents.y()) +
                 ", " + fmt(g.half_extents.z()) + "]";
        }
        if constexpr (std::is_same_v<G, gjk::Capsule>) {
          return "Capsule(radius=" + fmt(g.radius) + ", half_length=" + fmt(g.half_length);
        }
        if constexpr (std::is_same_v<G, gjk::Cylinder>) {
          return "Cylinder(radius=" + fmt(g.radius) + ", half_length=" + fmt(g.half_length);
        }
        if constexpr (std::is_same_v<G, gjk::ConvexPolytope>) {
          return "ConvexPolytope(<" + std::to_string(g.vertices().size()) + " vertices>";
        }
      },
      s.geometry);
  if (s.inflation != 0.0) body += ", inflation=" + fmt(s.inflation);
  return body + ")";
}

template <class T>
const T& geometry_as(const gjk::Shape& s) {
  return std::get<T>(s.geometry);
}

const gjk::QueryOptions kDefaultOptions{};
const gjk::QueryOptions& opts(Opt<gjk::QueryOptions> o) {
  return o ? *o : kDefaultOptions;
}

py::array_t<std::int64_t> triangles_array(const std::vector<std::array<std::uint32_t, 3>>& t) {
  py::array_t<std::int64_t> out({static_cast<py::ssize_t>(t.size()), py::ssize_t{3}});
  std::int64_t* d = out.mutable_data();
  for (size_t i = 0; i < t.size(); ++i) {
    for (size_t k = 0; k < 3; ++k) d[3 * i + k] = t[i][k];
  }
  return out;
}

// ---- poses ----------------------------------------------------------------------------------

py::array_t<double> make_pose_quat(ArrayLike position, ArrayLike quaternion) {
  const gjk::Vec3 p = to_vec3(position, "position");
  const Rows q = as_float_array(quaternion, "quaternion_wxyz");
  if (q.ndim() != 1 || q.shape(0) != 4) {
    throw py::value_error("quaternion_wxyz: expected an array of shape (4,), got shape " +
                          shape_string(q));
  }
  Eigen::Quaterniond quat(q.data()[0], q.data()[1], q.data()[2], q.data()[3]);
  const double n = quat.norm();
  if (!std::isfinite(n) || n < 1e-12) {
    throw py::value_error("quaternion_wxyz: must be finite and non-zero");
  }
  quat.coeffs() /= n;  // rounding in callers' quaternions is normal; a zero one is not
  gjk::Pose pose = gjk::Pose::Identity();
  pose.linear() = quat.toRotationMatrix();
  pose.translation() = p;
  return from_pose(pose);
}

py::array_t<double> make_pose_rpy(ArrayLike position, ArrayLike rpy) {
  const gjk::Vec3 p = to_vec3(position, "position");
  const gjk::Vec3 a = to_vec3(rpy, "rpy");
  // URDF's convention: fixed axes, roll about x first, then pitch about y, then yaw about z.
  gjk::Pose pose = gjk::Pose::Identity();
  pose.linear() =
      (Eigen::AngleAxisd(a.z(), gjk::Vec3::UnitZ()) * Eigen::AngleAxisd(a.y(), gjk::Vec3::UnitY()) *
       Eigen::AngleAxisd(a.x(), gjk::Vec3::UnitX()))
          .toRotationMatrix();
  pose.translation() = p;
  return from_pose(pose);
}

// ---- batches --------------------------------------------------------------------------------

// Poses for a batch: (N, 4, 4), or (4, 4) used for every pair.
struct BatchPoses {
  Rows array;
  bool single = false;
  py::ssize_t count = 0;
};

BatchPoses batch_poses(ArrayLike obj, const char* name) {
  BatchPoses b;
  b.array = as_float_array(obj, name);
  if (b.array.ndim() == 2 && b.array.shape(0) == 4 && b.array.shape(1) == 4) {
    b.single = true;
    b.count = -1;
  } else if (b.array.ndim() == 3 && b.array.shape(1) == 4 && b.array.shape(2) == 4) {
    b.count = b.array.shape(0);
  } else {
    throw py::value_error(std::string(name) + ": expected an array of shape (N, 4, 4) or (4, 4), " +
                          "got shape " + shape_string(b.array));
  }
  return b;
}

std::vector<gjk::PairQuery> batch_pairs(const gjk::Shape& a, ArrayLike poses_a, const gjk::Shape& b,
                                        ArrayLike poses_b) {
  const BatchPoses pa = batch_poses(poses_a, "poses_a");
  const BatchPoses pb = batch_poses(poses_b, "poses_b");
  py::ssize_t n = 1;
  if (!pa.single && !pb.single && pa.count != pb.count) {
    throw py::value_error("poses_a and poses_b: different numbers of poses (" +
                          std::to_string(pa.count) + " and " + std::to_string(pb.count) + ")");
  }
  if (!pa.single) n = pa.count;
  if (!pb.single) n = pb.count;
  std::vector<gjk::PairQuery> pairs(static_cast<size_t>(n));
  const gjk::Pose single_a =
      pa.single ? pose_from_rows(pa.array.data(), "poses_a", -1) : gjk::Pose::Identity();
  const gjk::Pose single_b =
      pb.single ? pose_from_rows(pb.array.data(), "poses_b", -1) : gjk::Pose::Identity();
  const double* da = pa.array.data();
  const double* db = pb.array.data();
  for (py::ssize_t i = 0; i < n; ++i) {
    gjk::PairQuery& q = pairs[static_cast<size_t>(i)];
    q.a = &a;
    q.b = &b;
    q.pose_a = pa.single ? single_a : pose_from_rows(da + 16 * i, "poses_a", i);
    q.pose_b = pb.single ? single_b : pose_from_rows(db + 16 * i, "poses_b", i);
  }
  return pairs;
}

template <class T>
py::array_t<T> column(size_t n) {
  return py::array_t<T>(static_cast<py::ssize_t>(n));
}
py::array_t<double> rows3(size_t n) {
  return py::array_t<double>({static_cast<py::ssize_t>(n), py::ssize_t{3}});
}

// Output columns are written through raw pointers taken once: array_t::mutable_data() checks
// writeability on every call, which cost ~80 ns per pair when called per element.
struct Columns {
  py::dict dict;
  double* f64(const char* name, size_t n) {
    auto a = column<double>(n);
    dict[name] = a;
    return a.mutable_data();
  }
  double* vec3(const char* name, size_t n) {
    auto a = rows3(n);
    dict[name] = a;
    return a.mutable_data();
  }
  template <class T>
  T* of(const char* name, size_t n) {
    auto a = column<T>(n);
    dict[name] = a;
    return a.mutable_data();
  }
};

void put3(double* d, size_t i, const gjk::Vec3& v) {
  d[3 * i] = v.x();
  d[3 * i + 1] = v.y();
  d[3 * i + 2] = v.z();
}

py::dict distance_batch(const gjk::Shape& a, ArrayLike poses_a, const gjk::Shape& b,
                        ArrayLike poses_b, Opt<gjk::QueryOptions> options, unsigned threads) {
  const std::vector<gjk::PairQuery> pairs = batch_pairs(a, poses_a, b, poses_b);
  std::vector<gjk::DistanceResult> r;
  {
    py::gil_scoped_release release;
    r = gjk::distance_batch(pairs, opts(options), threads);
  }
  const size_t n = r.size();
  Columns c;
  double* dist = c.f64("distance", n);
  double* lower = c.f64("lower_bound", n);
  double* upper = c.f64("upper_bound", n);
  double* pa = c.vec3("point_on_a", n);
  double* pb = c.vec3("point_on_b", n);
  double* normal = c.vec3("normal", n);
  bool* collision = c.of<bool>("collision", n);
  std::int8_t* status = c.of<std::int8_t>("status", n);
  std::int32_t* iterations = c.of<std::int32_t>("iterations", n);
  std::int8_t* simplex = c.of<std::int8_t>("simplex_size", n);
  for (size_t i = 0; i < n; ++i) {
    dist[i] = r[i].distance;
    lower[i] = r[i].lower_bound;
    upper[i] = r[i].upper_bound;
    put3(pa, i, r[i].point_on_a);
    put3(pb, i, r[i].point_on_b);
    put3(normal, i, r[i].normal);
    collision[i] = r[i].collision;
    status[i] = static_cast<std::int8_t>(r[i].status);
    iterations[i] = r[i].iterations;
    simplex[i] = static_cast<std::int8_t>(r[i].simplex_size);
  }
  return c.dict;
}

py::dict signed_distance_batch(const gjk::Shape& a, ArrayLike poses_a, const gjk::Shape& b,
                               ArrayLike poses_b, Opt<gjk::QueryOptions> options,
                               unsigned threads) {
  const std::vector<gjk::PairQuery> pairs = batch_pairs(a, poses_a, b, poses_b);
  std::vector<gjk::SignedDistanceResult> r;
  {
    py::gil_scoped_release release;
    r = gjk::signed_distance_batch(pairs, opts(options), threads);
  }
  const size_t n = r.size();
  Columns c;
  double* sd = c.f64("signed_distance", n);
  double* pa = c.vec3("point_on_a", n);
  double* pb = c.vec3("point_on_b", n);
  double* normal = c.vec3("normal", n);
  std::int8_t* status = c.of<std::int8_t>("status", n);
  std::int32_t* iterations = c.of<std::int32_t>("iterations", n);
  for (size_t i = 0; i < n; ++i) {
    sd[i] = r[i].signed_distance;
    put3(pa, i, r[i].point_on_a);
    put3(pb, i, r[i].point_on_b);
    put3(normal, i, r[i].normal);
    status[i] = static_cast<std::int8_t>(r[i].status);
    iterations[i] = r[i].iterations;
  }
  return c.dict;
}

py::dict collide_batch(const gjk::Shape& a, ArrayLike poses_a, const gjk::Shape& b,
                       ArrayLike poses_b, Opt<gjk::QueryOptions> options, unsigned threads) {
  const std::vector<gjk::PairQuery> pairs = batch_pairs(a, poses_a, b, poses_b);
  std::vector<gjk::CollisionResult> r;
  {
    py::gil_scoped_release release;
    r = gjk::collide_batch(pairs, opts(options), threads);
  }
  const size_t n = r.size();
  Columns c;
  bool* collision = c.of<bool>("collision", n);
  double* sep = c.vec3("separating_direction", n);
  std::int8_t* status = c.of<std::int8_t>("status", n);
  std::int32_t* iterations = c.of<std::int32_t>("iterations", n);
  for (size_t i = 0; i < n; ++i) {
    collision[i] = r[i].collision;
    put3(sep, i, r[i].separating_direction);
    status[i] = static_cast<std::int8_t>(r[i].status);
    iterations[i] = r[i].iterations;
  }
  return c.dict;
}

}  // namespace

void bind_engine(py::module_& m) {
  using gjk::Shape;
  using py::arg;

  // ---- shapes --------------------------------------------------------------------------------
  py::class_<Shape>(m, "Shape", R"doc(
A convex shape: a geometry (Sphere, Box, Capsule, Cylinder, ConvexPolytope) plus an inflation
radius swept around it. Shapes are immutable values; Sphere(...) etc. are subclasses of Shape,
and inflated(shape, r) returns a Shape with a larger inflation.)doc")
      .def(py::init([](const Shape& geometry, double inflation) {
             Shape s = geometry;
             s.inflation += inflation;
             gjk::validate(s);
             return s;
           }),
           arg("geometry"), arg("inflation") = 0.0,
           "The geometry of `geometry` with inflation geometry.inflation + `inflation`.")
      .def_property_readonly(
          "inflation", [](const Shape& s) { return s.inflation; },
          "Radius swept around the core geometry (>= 0).")
      .def_property_readonly("geometry", &geometry_object,
                             "The core geometry without inflation, as its own class (a copy).")
      .def_property_readonly("kind", &gjk::shape_name,
                             "\"sphere\", \"box\", \"capsule\", \"cylinder\" or \"polytope\".")
      .def("__repr__", &shape_repr);

  py::class_<PySphere, Shape>(m, "Sphere", "Ball of `radius` around the frame origin.")
      .def(py::init(
               [](double r, double infl) { return make_shape<PySphere>(gjk::Sphere{r}, infl); }),
           arg("radius"), arg("inflation") = 0.0,
           "Ball of `radius` (>= 0); ValueError for a negative or non-finite radius.")
      .def_property_readonly(
          "radius", [](const PySphere& s) { return geometry_as<gjk::Sphere>(s).radius; },
          "The radius.");
  py::class_<PyBox, Shape>(m, "Box", "Axis-aligned box centred at its frame's origin.")
      .def(py::init([](ArrayLike half_extents, double infl) {
             gjk::Box g;
             g.half_extents = to_vec3(half_extents, "half_extents");
             return make_shape<PyBox>(g, infl);
           }),
           arg("half_extents"), arg("inflation") = 0.0,
           "Box with the given (3,) half extents (>= 0 each).")
      .def_property_readonly(
          "half_extents",
          [](const PyBox& s) { return from_vec3(geometry_as<gjk::Box>(s).half_extents); },
          "Half extents as a (3,) array.");
  py::class_<PyCapsule, Shape>(m, "Capsule",
                               "Segment from z = -half_length to +half_length inflated by radius.")
      .def(py::init([](double r, double h, double infl) {
             return make_shape<PyCapsule>(gjk::Capsule{r, h}, infl);
           }),
           arg("radius"), arg("half_length"), arg("inflation") = 0.0,
           "Capsule around the z axis (radius, half_length >= 0).")
      .def_property_readonly(
          "radius", [](const PyCapsule& s) { return geometry_as<gjk::Capsule>(s).radius; },
          "The radius.")
      .def_property_readonly(
          "half_length",
          [](const PyCapsule& s) { return geometry_as<gjk::Capsule>(s).half_length; },
          "Half the length of the core segment.");
  py::class_<PyCylinder, Shape>(m, "Cylinder", "Solid cylinder around the z axis, centred.")
      .def(py::init([](double r, double h, double infl) {
             return make_shape<PyCylinder>(gjk::Cylinder{r, h}, infl);
           }),
           arg("radius"), arg("half_length"), arg("inflation") = 0.0,
           "Cylinder with z in [-half_length, half_length] (radius, half_length >= 0).")
      .def_property_readonly(
          "radius", [](const PyCylinder& s) { return geometry_as<gjk::Cylinder>(s).radius; },
          "The radius.")
      .def_property_readonly(
          "half_length",
          [](const PyCylinder& s) { return geometry_as<gjk::Cylinder>(s).half_length; },
          "Half the height.");
  py::class_<PyPolytope, Shape>(m, "ConvexPolytope",
                                "Convex hull of a point set (qhull), with its vertex adjacency.")
      .def_static(
          "from_points",
          [](ArrayLike points, double infl) {
            std::vector<gjk::Vec3> p = to_points3(points, "points");
            gjk::ConvexPolytope hull;
            {
              py::gil_scoped_release release;
              hull = gjk::ConvexPolytope::from_points(p);
            }
            return make_shape<PyPolytope>(std::move(hull), infl);
          },
          arg("points"), arg("inflation") = 0.0,
          "Hull of an (N, 3) array of points (N >= 1; interior and duplicate points dropped).")
      .def_property_readonly(
          "vertices",
          [](const PyPolytope& s) {
            return from_points3(geometry_as<gjk::ConvexPolytope>(s).vertices());
          },
          "The hull's vertices as an (N, 3) array.")
      .def_property_readonly(
          "triangles",
          [](const PyPolytope& s) {
            return triangles_array(geometry_as<gjk::ConvexPolytope>(s).triangles());
          },
          "Outward triangles of the hull as an (M, 3) int64 array (empty when flat).")
      .def_property_readonly(
          "dimension",
          [](const PyPolytope& s) { return geometry_as<gjk::ConvexPolytope>(s).dimension(); },
          "Affine dimension of the points: 0 point, 1 segment, 2 polygon, 3 solid.");

  m.def(
      "inflated",
      [](const Shape& s, double r) {
        Shape out = gjk::inflated(s, r);
        gjk::validate(out);
        return out;
      },
      arg("shape"), arg("radius"), "The shape grown by `radius` in every direction (a new Shape).");

  // ---- poses ---------------------------------------------------------------------------------
  m.def("pose", &make_pose_quat, arg("position"),
        arg("quaternion_wxyz") = py::make_tuple(1, 0, 0, 0),
        "4x4 pose from a (3,) position and a (4,) quaternion (w, x, y, z), normalised here.");
  m.def("pose_rpy", &make_pose_rpy, arg("position"), arg("rpy") = py::make_tuple(0, 0, 0),
        "4x4 pose from a (3,) position and URDF roll-pitch-yaw angles (radians, fixed axes x, y, "
        "z: R = Rz(yaw) Ry(pitch) Rx(roll)).");
  m.def(
      "check_pose", [](ArrayLike p) { return from_pose(to_pose(p, "pose")); }, arg("pose"),
      "The pose as the engine reads it (a float64 (4, 4) copy); ValueError when it is not a "
      "finite rigid transform with last row [0, 0, 0, 1].");

  // ---- options and caches ----------------------------------------------------------------------
  py::class_<gjk::QueryOptions>(m, "QueryOptions",
                                "Query settings. Bad values make queries return "
                                "Status.InvalidInput, not raise.")
      .def(py::init<>(), "The defaults.")
      .def_property(
          "solver",
          [](const gjk::QueryOptions& o) { return enums().simplex_solver(int(o.solver)); },
          [](gjk::QueryOptions& o, py::handle v) {
            o.solver = enum_from_py<gjk::SimplexSolver>(v, 3, "solver");
          },
          "Sub-distance solver (SimplexSolver).")
      .def_property(
          "support",
          [](const gjk::QueryOptions& o) { return enums().support_method(int(o.support)); },
          [](gjk::QueryOptions& o, py::handle v) {
            o.support = enum_from_py<gjk::SupportMethod>(v, 3, "support");
          },
          "Support on hulls (SupportMethod).")
      .def_readwrite("max_iterations", &gjk::QueryOptions::max_iterations, "GJK iteration cap.")
      .def_readwrite("max_epa_iterations", &gjk::QueryOptions::max_epa_iterations,
                     "EPA expansion cap.")
      .def_readwrite("tolerance", &gjk::QueryOptions::tolerance,
                     "Relative duality-gap tolerance of GJK.")
      .def_readwrite("epa_tolerance", &gjk::QueryOptions::epa_tolerance,
                     "Relative tolerance of EPA on curved cores.");

  py::class_<gjk::WarmStart>(m, "WarmStart", R"doc(
Warm-start cache for one tracked pair: pass the same object to every query of the pair as it
moves; answers equal a cold query's, only faster. One cache per pair and per thread.)doc")
      .def(py::init<>(), "A cold cache.")
      .def("reset", &gjk::WarmStart::reset, "Forget the pair: the next query starts cold.")
      .def_readonly("size", &gjk::WarmStart::size, "Vertices of the cached simplex (0 = cold).");

  py::class_<gjk::PrimitiveHit>(m, "PrimitiveHit", R"doc(
Which triangle or box gave a mesh or box-set answer (-1: none); on entry, the one tried first
(a warm start along a path).)doc")
      .def(py::init<int>(), arg("primitive") = -1, "A hit, optionally seeded with a primitive.")
      .def_readwrite("primitive", &gjk::PrimitiveHit::primitive, "Triangle or box index, or -1.");

  // ---- results -------------------------------------------------------------------------------
  py::class_<gjk::CollisionResult>(m, "CollisionResult", "Answer of collide().")
      .def_readonly("collision", &gjk::CollisionResult::collision, "The bodies touch or overlap.")
      .def_readonly("iterations", &gjk::CollisionResult::iterations, "GJK iterations.")
      .def_property_readonly(
          "status", [](const gjk::CollisionResult& r) { return to_py(r.status); }, "Status.")
      .def_property_readonly(
          "separating_direction",
          [](const gjk::CollisionResult& r) { return from_vec3(r.separating_direction); },
          "Unit direction from A towards B normal to a separating plane; zero when colliding.")
      .def("__repr__", [](const gjk::CollisionResult& r) {
        return "CollisionResult(collision=" + std::string(r.collision ? "True" : "False") +
               ", status=" + gjk::to_string(r.status) + ")";
      });

  py::class_<gjk::DistanceResult>(m, "DistanceResult", "Answer of distance().")
      .def_readonly("distance", &gjk::DistanceResult::distance, "Distance; 0 when touching.")
      .def_readonly("lower_bound", &gjk::DistanceResult::lower_bound,
                    "Certified lower bound on the distance.")
      .def_readonly("upper_bound", &gjk::DistanceResult::upper_bound,
                    "Certified upper bound on the distance.")
      .def_property_readonly(
          "point_on_a", [](const gjk::DistanceResult& r) { return from_vec3(r.point_on_a); },
          "Witness point on A, world frame, (3,).")
      .def_property_readonly(
          "point_on_b", [](const gjk::DistanceResult& r) { return from_vec3(r.point_on_b); },
          "Witness point on B, world frame, (3,).")
      .def_property_readonly(
          "normal", [](const gjk::DistanceResult& r) { return from_vec3(r.normal); },
          "Unit vector from A towards B; zero when overlapping.")
      .def_readonly("collision", &gjk::DistanceResult::collision, "The bodies touch or overlap.")
      .def_property_readonly(
          "feature_on_a", [](const gjk::DistanceResult& r) { return to_py(r.feature_on_a); },
          "Feature of A at its witness point.")
      .def_property_readonly(
          "feature_on_b", [](const gjk::DistanceResult& r) { return to_py(r.feature_on_b); },
          "Feature of B at its witness point.")
      .def_readonly("simplex_size", &gjk::DistanceResult::simplex_size,
                    "Vertices of the final simplex.")
      .def_readonly("iterations", &gjk::DistanceResult::iterations, "GJK iterations.")
      .def_property_readonly(
          "status", [](const gjk::DistanceResult& r) { return to_py(r.status); }, "Status.")
      .def("__repr__", [](const gjk::DistanceResult& r) {
        return "DistanceResult(distance=" + fmt(r.distance) +
               ", status=" + gjk::to_string(r.status) + ")";
      });

  py::class_<gjk::PenetrationResult>(m, "PenetrationResult", "Answer of penetration() (EPA).")
      .def_readonly("collision", &gjk::PenetrationResult::collision,
                    "False: apart, nothing else set.")
      .def_readonly("depth", &gjk::PenetrationResult::depth, "Penetration depth.")
      .def_property_readonly(
          "normal", [](const gjk::PenetrationResult& r) { return from_vec3(r.normal); },
          "Unit direction (A towards B) of the minimum translation of B.")
      .def_property_readonly(
          "point_on_a", [](const gjk::PenetrationResult& r) { return from_vec3(r.point_on_a); },
          "A's point deepest inside B.")
      .def_property_readonly(
          "point_on_b", [](const gjk::PenetrationResult& r) { return from_vec3(r.point_on_b); },
          "B's point deepest inside A.")
      .def_readonly("lower_bound", &gjk::PenetrationResult::lower_bound,
                    "Certified lower bound on the depth.")
      .def_readonly("upper_bound", &gjk::PenetrationResult::upper_bound,
                    "Certified upper bound on the depth.")
      .def_readonly("iterations", &gjk::PenetrationResult::iterations, "GJK + EPA iterations.")
      .def_property_readonly(
          "status", [](const gjk::PenetrationResult& r) { return to_py(r.status); }, "Status.")
      .def("__repr__", [](const gjk::PenetrationResult& r) {
        return "PenetrationResult(collision=" + std::string(r.collision ? "True" : "False") +
               ", depth=" + fmt(r.depth) + ", status=" + gjk::to_string(r.status) + ")";
      });

  py::class_<gjk::SignedDistanceResult>(m, "SignedDistanceResult", "Answer of signed_distance().")
      .def_readonly("signed_distance", &gjk::SignedDistanceResult::signed_distance,
                    "Distance when apart, minus the depth when overlapping.")
      .def_property_readonly(
          "point_on_a", [](const gjk::SignedDistanceResult& r) { return from_vec3(r.point_on_a); },
          "Witness point on A.")
      .def_property_readonly(
          "point_on_b", [](const gjk::SignedDistanceResult& r) { return from_vec3(r.point_on_b); },
          "Witness point on B.")
      .def_property_readonly(
          "normal", [](const gjk::SignedDistanceResult& r) { return from_vec3(r.normal); },
          "Direction (A towards B) in which the signed distance grows fastest.")
      .def_readonly("iterations", &gjk::SignedDistanceResult::iterations, "Iterations.")
      .def_property_readonly(
          "status", [](const gjk::SignedDistanceResult& r) { return to_py(r.status); }, "Status.")
      .def("__repr__", [](const gjk::SignedDistanceResult& r) {
        return "SignedDistanceResult(signed_distance=" + fmt(r.signed_distance) +
               ", status=" + gjk::to_string(r.status) + ")";
      });

  py::class_<gjk::ThresholdResult>(m, "ThresholdResult", "Answer of closer_than().")
      .def_readonly("closer", &gjk::ThresholdResult::closer, "distance < threshold (certified).")
      .def_readonly("lower_bound", &gjk::ThresholdResult::lower_bound,
                    "Certified lower bound on the distance.")
      .def_readonly("upper_bound", &gjk::ThresholdResult::upper_bound,
                    "Certified upper bound on the distance.")
      .def_readonly("iterations", &gjk::ThresholdResult::iterations, "GJK iterations.")
      .def_property_readonly(
          "status", [](const gjk::ThresholdResult& r) { return to_py(r.status); }, "Status.")
      .def("__repr__", [](const gjk::ThresholdResult& r) {
        return "ThresholdResult(closer=" + std::string(r.closer ? "True" : "False") +
               ", status=" + gjk::to_string(r.status) + ")";
      });

  // ---- non-convex geometry ---------------------------------------------------------------------
  py::class_<gjk::TriangleMesh>(m, "TriangleMesh",
                                "Triangle mesh (a surface, open or closed) under a box tree.")
      .def_static(
          "from_triangles",
          [](ArrayLike vertices, ArrayLike triangles) {
            auto v = to_points3(vertices, "vertices");
            auto t = to_triangles(triangles, "triangles");
            py::gil_scoped_release release;
            return gjk::TriangleMesh::from_triangles(std::move(v), std::move(t));
          },
          arg("vertices"), arg("triangles"),
          "Mesh from (N, 3) float vertices and (M, 3) integer triangles (indices into vertices).")
      .def_property_readonly(
          "vertices", [](const gjk::TriangleMesh& t) { return from_points3(t.vertices()); },
          "(N, 3) vertices in the mesh's frame.")
      .def_property_readonly(
          "triangles", [](const gjk::TriangleMesh& t) { return triangles_array(t.triangles()); },
          "(M, 3) int64 triangles.");
  py::class_<gjk::BoxSet>(m, "BoxSet", "Union of solid axis-aligned boxes (e.g. octree cells).")
      .def_static(
          "from_boxes",
          [](ArrayLike centres, ArrayLike half_extents) {
            auto c = to_points3(centres, "centres");
            auto h = to_points3(half_extents, "half_extents");
            py::gil_scoped_release release;
            return gjk::BoxSet::from_boxes(std::move(c), std::move(h));
          },
          arg("centres"), arg("half_extents"),
          "Boxes from (N, 3) centres and (N, 3) positive half extents.")
      .def_property_readonly(
          "centres", [](const gjk::BoxSet& b) { return from_points3(b.centres()); },
          "(N, 3) centres in the set's frame.")
      .def_property_readonly(
          "half_extents", [](const gjk::BoxSet& b) { return from_points3(b.half_extents()); },
          "(N, 3) half extents.");

  m.def(
      "bounding_box",
      [](const Shape& s, ArrayLike pose) {
        const gjk::Aabb box = gjk::bounding_box(s, to_pose(pose, "pose"));
        return py::make_tuple(from_vec3(box.min()), from_vec3(box.max()));
      },
      arg("shape"), arg("pose"), "Exact axis-aligned box (lower, upper) of the shape at `pose`.");

  // ---- convex queries --------------------------------------------------------------------------
  // Poses are converted (and checked) with the GIL held; the engine runs without it, so Python
  // threads querying at once run in parallel.
  const char* kPairArgs =
      "a, b: shapes; pose_a, pose_b: 4x4 poses; options: QueryOptions or None; warm_start: a "
      "WarmStart of this pair, updated, or None.";
  m.def(
      "collide",
      [](const Shape& a, ArrayLike pa, const Shape& b, ArrayLike pb, Opt<gjk::QueryOptions> o,
         Opt<gjk::WarmStart> ws) {
        const gjk::Pose A = to_pose(pa, "pose_a"), B = to_pose(pb, "pose_b");
        py::gil_scoped_release release;
        return ws ? gjk::collide(a, A, b, B, opts(o), *ws) : gjk::collide(a, A, b, B, opts(o));
      },
      arg("a"), arg("pose_a"), arg("b"), arg("pose_b"), arg("options") = py::none(),
      arg("warm_start") = py::none(),
      (std::string("Boolean collision with early exit (touching counts). ") + kPairArgs).c_str());
  m.def(
      "distance",
      [](const Shape& a, ArrayLike pa, const Shape& b, ArrayLike pb, Opt<gjk::QueryOptions> o,
         Opt<gjk::WarmStart> ws) {
        const gjk::Pose A = to_pose(pa, "pose_a"), B = to_pose(pb, "pose_b");
        py::gil_scoped_release release;
        return ws ? gjk::distance(a, A, b, B, opts(o), *ws) : gjk::distance(a, A, b, B, opts(o));
      },
      arg("a"), arg("pose_a"), arg("b"), arg("pose_b"), arg("options") = py::none(),
      arg("warm_start") = py::none(),
      (std::string("Distance, witness points and certified bounds (GJK). ") + kPairArgs).c_str());
  m.def(
      "penetration",
      [](const Shape& a, ArrayLike pa, const Shape& b, ArrayLike pb, Opt<gjk::QueryOptions> o,
         Opt<gjk::WarmStart> ws) {
        const gjk::Pose A = to_pose(pa, "pose_a"), B = to_pose(pb, "pose_b");
        py::gil_scoped_release release;
        return ws ? gjk::penetration(a, A, b, B, opts(o), *ws)
                  : gjk::penetration(a, A, b, B, opts(o));
      },
      arg("a"), arg("pose_a"), arg("b"), arg("pose_b"), arg("options") = py::none(),
      arg("warm_start") = py::none(),
      (std::string("Penetration depth and direction by EPA (collision False when apart). ") +
       kPairArgs)
          .c_str());
  m.def(
      "signed_distance",
      [](const Shape& a, ArrayLike pa, const Shape& b, ArrayLike pb, Opt<gjk::QueryOptions> o,
         Opt<gjk::WarmStart> ws) {
        const gjk::Pose A = to_pose(pa, "pose_a"), B = to_pose(pb, "pose_b");
        py::gil_scoped_release release;
        return ws ? gjk::signed_distance(a, A, b, B, opts(o), *ws)
                  : gjk::signed_distance(a, A, b, B, opts(o));
      },
      arg("a"), arg("pose_a"), arg("b"), arg("pose_b"), arg("options") = py::none(),
      arg("warm_start") = py::none(),
      (std::string("Distance when apart, minus the depth when overlapping. ") + kPairArgs).c_str());
  m.def(
      "closer_than",
      [](const Shape& a, ArrayLike pa, const Shape& b, ArrayLike pb, double threshold,
         Opt<gjk::QueryOptions> o, Opt<gjk::WarmStart> ws) {
        const gjk::Pose A = to_pose(pa, "pose_a"), B = to_pose(pb, "pose_b");
        py::gil_scoped_release release;
        return ws ? gjk::closer_than(a, A, b, B, threshold, opts(o), *ws)
                  : gjk::closer_than(a, A, b, B, threshold, opts(o));
      },
      arg("a"), arg("pose_a"), arg("b"), arg("pose_b"), arg("threshold"),
      arg("options") = py::none(), arg("warm_start") = py::none(),
      (std::string("Whether the distance is below `threshold` (overlap counts), deciding with "
                   "GJK's bounds only. ") +
       kPairArgs)
          .c_str());

  // ---- shape vs mesh / box set
  // -------------------------------------------------------------------
  const char* kMeshDoc =
      "Shape against a TriangleMesh or BoxSet (exact minimum over the primitives). hit: a "
      "PrimitiveHit receiving the nearest primitive (and seeding the search); max_distance: "
      "subtrees this far are never opened (+inf distance when nothing is nearer).";
  auto bind_nonconvex = [&](auto tag) {
    using Target = typename decltype(tag)::type;
    m.def(
        "distance",
        [](const Shape& s, ArrayLike p, const Target& t, ArrayLike tp, Opt<gjk::QueryOptions> o,
           Opt<gjk::PrimitiveHit> hit, double max_distance) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::distance(s, A, t, B, opts(o), hit.get(), max_distance);
        },
        arg("shape"), arg("pose"), arg("target"), arg("target_pose"), arg("options") = py::none(),
        arg("hit") = py::none(), arg("max_distance") = std::numeric_limits<double>::infinity(),
        kMeshDoc);
    m.def(
        "signed_distance",
        [](const Shape& s, ArrayLike p, const Target& t, ArrayLike tp, Opt<gjk::QueryOptions> o,
           Opt<gjk::PrimitiveHit> hit, double max_distance) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::signed_distance(s, A, t, B, opts(o), hit.get(), max_distance);
        },
        arg("shape"), arg("pose"), arg("target"), arg("target_pose"), arg("options") = py::none(),
        arg("hit") = py::none(), arg("max_distance") = std::numeric_limits<double>::infinity(),
        kMeshDoc);
    m.def(
        "collide",
        [](const Shape& s, ArrayLike p, const Target& t, ArrayLike tp, Opt<gjk::QueryOptions> o) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::collide(s, A, t, B, opts(o));
        },
        arg("shape"), arg("pose"), arg("target"), arg("target_pose"), arg("options") = py::none(),
        "Whether the shape touches any primitive of the mesh or box set.");
    m.def(
        "closer_than",
        [](const Shape& s, ArrayLike p, const Target& t, ArrayLike tp, double threshold,
           Opt<gjk::QueryOptions> o) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::closer_than(s, A, t, B, threshold, opts(o));
        },
        arg("shape"), arg("pose"), arg("target"), arg("target_pose"), arg("threshold"),
        arg("options") = py::none(),
        "Whether the distance to the mesh or box set is below threshold.");
  };
  struct MeshTag {
    using type = gjk::TriangleMesh;
  };
  struct CellsTag {
    using type = gjk::BoxSet;
  };
  bind_nonconvex(MeshTag{});
  bind_nonconvex(CellsTag{});

  // ---- batches ---------------------------------------------------------------------------------
  const char* kBatchArgs =
      " poses_a, poses_b: (N, 4, 4) arrays (or one (4, 4) pose for every pair); threads: 0 = "
      "every hardware thread, 1 = the calling thread. Each answer is exactly the single query's; "
      "status is an int8 array of Status values.";
  m.def("distance_batch", &distance_batch, arg("shape_a"), arg("poses_a"), arg("shape_b"),
        arg("poses_b"), arg("options") = py::none(), arg("threads") = 0u,
        (std::string("distance() for N pairs at once, as a dict of arrays: distance, lower_bound, "
                     "upper_bound (N,); point_on_a, point_on_b, normal (N, 3); collision (N,) "
                     "bool; status, simplex_size (N,) int8; iterations (N,) int32.") +
         kBatchArgs)
            .c_str());
  m.def("signed_distance_batch", &signed_distance_batch, arg("shape_a"), arg("poses_a"),
        arg("shape_b"), arg("poses_b"), arg("options") = py::none(), arg("threads") = 0u,
        (std::string("signed_distance() for N pairs: dict with signed_distance (N,), point_on_a, "
                     "point_on_b, normal (N, 3), status (N,) int8, iterations (N,) int32.") +
         kBatchArgs)
            .c_str());
  m.def("collide_batch", &collide_batch, arg("shape_a"), arg("poses_a"), arg("shape_b"),
        arg("poses_b"), arg("options") = py::none(), arg("threads") = 0u,
        (std::string("collide() for N pairs: dict with collision (N,) bool, separating_direction "
                     "(N, 3), status (N,) int8, iterations (N,) int32.") +
         kBatchArgs)
            .c_str());
}

}  // namespace gjk_python
