// Shapes, poses, options, results, the convex and mesh queries and the batch calls.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <gjk/broadphase.hpp>
#include <gjk/mesh.hpp>
#include <gjk/mesh_pair.hpp>
#include <gjk/queries.hpp>
#include <gjk/results.hpp>
#include <gjk/shapes.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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

// The two pose arrays of a batch, checked for shape and count with the GIL held; the poses
// themselves are checked by the worker threads as they read them (pose_rows_valid), and only
// when one fails are they read again in order here, to raise the first error as a loop would.
struct BatchInput {
  BatchPoses a, b;
  size_t n = 1;
  gjk::Pose single_a = gjk::Pose::Identity(), single_b = gjk::Pose::Identity();

  BatchInput(ArrayLike poses_a, ArrayLike poses_b)
      : a(batch_poses(poses_a, "poses_a")), b(batch_poses(poses_b, "poses_b")) {
    if (!a.single && !b.single && a.count != b.count) {
      throw py::value_error("poses_a and poses_b: different numbers of poses (" +
                            std::to_string(a.count) + " and " + std::to_string(b.count) + ")");
    }
    if (!a.single) n = static_cast<size_t>(a.count);
    if (!b.single) n = static_cast<size_t>(b.count);
    if (a.single) single_a = pose_from_rows(a.array.data(), "poses_a", -1);
    if (b.single) single_b = pose_from_rows(b.array.data(), "poses_b", -1);
  }

  /// Raises the ValueError of the first invalid pose, pair by pair (A before B).
  void raise_first_invalid() const {
    for (size_t i = 0; i < n; ++i) {
      const long k = static_cast<long>(i);
      if (!a.single) pose_from_rows(a.array.data() + 16 * i, "poses_a", k);
      if (!b.single) pose_from_rows(b.array.data() + 16 * i, "poses_b", k);
    }
  }

  /// Calls query(i, pose_a, pose_b) for every pair, on `threads` threads (0: every hardware
  /// thread) without the GIL; chunks of 32 pairs from a shared cursor, as gjk::distance_batch.
  /// Raises the first invalid pose's ValueError after the workers finish.
  template <class Query>
  void run(unsigned threads, Query&& query) const {
    static const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    if (threads == 0) threads = hardware;
    constexpr size_t kChunk = 32;
    std::atomic<size_t> cursor{0};
    std::atomic<bool> invalid{false};
    const double* da = a.array.data();
    const double* db = b.array.data();
    auto work = [&] {
      gjk::Pose pa = single_a, pb = single_b;
      for (;;) {
        const size_t begin = cursor.fetch_add(kChunk);
        if (begin >= n) return;
        const size_t end = std::min(begin + kChunk, n);
        for (size_t i = begin; i < end; ++i) {
          if (!a.single) {
            if (!pose_rows_valid(da + 16 * i)) {
              invalid = true;
              continue;
            }
            set_pose_rows(da + 16 * i, pa);
          }
          if (!b.single) {
            if (!pose_rows_valid(db + 16 * i)) {
              invalid = true;
              continue;
            }
            set_pose_rows(db + 16 * i, pb);
          }
          query(i, pa, pb);
        }
      }
    };
    {
      py::gil_scoped_release release;
      const unsigned workers =
          static_cast<unsigned>(std::min<size_t>(threads, (n + kChunk - 1) / kChunk));
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
      work();
      for (std::thread& t : pool) t.join();
    }
    if (invalid) raise_first_invalid();
  }
};

template <class T>
py::array_t<T> column(size_t n) {
  return py::array_t<T>(static_cast<py::ssize_t>(n));
}
py::array_t<double> rows3(size_t n) {
  return py::array_t<double>({static_cast<py::ssize_t>(n), py::ssize_t{3}});
}

// Output columns are allocated with the GIL and written by the workers through raw pointers
// taken once (array_t::mutable_data() checks writeability on every call).
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

// The batch calls run the single-pair queries themselves (each answer is bit for bit the
// single query's, as gjk::distance_batch's) and write every answer straight into the output
// arrays: no gjk::PairQuery or result vectors in between.
py::dict distance_batch(const gjk::Shape& a, ArrayLike poses_a, const gjk::Shape& b,
                        ArrayLike poses_b, Opt<gjk::QueryOptions> options, unsigned threads) {
  const BatchInput in(poses_a, poses_b);
  const size_t n = in.n;
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
  const gjk::QueryOptions& o = opts(options);
  in.run(threads, [&](size_t i, const gjk::Pose& A, const gjk::Pose& B) {
    const gjk::DistanceResult r = gjk::distance(a, A, b, B, o);
    dist[i] = r.distance;
    lower[i] = r.lower_bound;
    upper[i] = r.upper_bound;
    put3(pa, i, r.point_on_a);
    put3(pb, i, r.point_on_b);
    put3(normal, i, r.normal);
    collision[i] = r.collision;
    status[i] = static_cast<std::int8_t>(r.status);
    iterations[i] = r.iterations;
    simplex[i] = static_cast<std::int8_t>(r.simplex_size);
  });
  return c.dict;
}

py::dict signed_distance_batch(const gjk::Shape& a, ArrayLike poses_a, const gjk::Shape& b,
                               ArrayLike poses_b, Opt<gjk::QueryOptions> options,
                               unsigned threads) {
  const BatchInput in(poses_a, poses_b);
  const size_t n = in.n;
  Columns c;
  double* sd = c.f64("signed_distance", n);
  double* pa = c.vec3("point_on_a", n);
  double* pb = c.vec3("point_on_b", n);
  double* normal = c.vec3("normal", n);
  std::int8_t* status = c.of<std::int8_t>("status", n);
  std::int32_t* iterations = c.of<std::int32_t>("iterations", n);
  const gjk::QueryOptions& o = opts(options);
  in.run(threads, [&](size_t i, const gjk::Pose& A, const gjk::Pose& B) {
    const gjk::SignedDistanceResult r = gjk::signed_distance(a, A, b, B, o);
    sd[i] = r.signed_distance;
    put3(pa, i, r.point_on_a);
    put3(pb, i, r.point_on_b);
    put3(normal, i, r.normal);
    status[i] = static_cast<std::int8_t>(r.status);
    iterations[i] = r.iterations;
  });
  return c.dict;
}

py::dict collide_batch(const gjk::Shape& a, ArrayLike poses_a, const gjk::Shape& b,
                       ArrayLike poses_b, Opt<gjk::QueryOptions> options, unsigned threads) {
  const BatchInput in(poses_a, poses_b);
  const size_t n = in.n;
  Columns c;
  bool* collision = c.of<bool>("collision", n);
  double* sep = c.vec3("separating_direction", n);
  std::int8_t* status = c.of<std::int8_t>("status", n);
  std::int32_t* iterations = c.of<std::int32_t>("iterations", n);
  const gjk::QueryOptions& o = opts(options);
  in.run(threads, [&](size_t i, const gjk::Pose& A, const gjk::Pose& B) {
    const gjk::CollisionResult r = gjk::collide(a, A, b, B, o);
    collision[i] = r.collision;
    put3(sep, i, r.separating_direction);
    status[i] = static_cast<std::int8_t>(r.status);
    iterations[i] = r.iterations;
  });
  return c.dict;
}

// ---- fast entry points of the single-pair convex queries ------------------------------------
// A call through pybind11's dispatcher costs about 0.3 us (argument vectors, type lookups that
// hash type names, the overload loop), as much as a sphere-box query. collide, distance,
// penetration, signed_distance and closer_than are therefore METH_FASTCALL functions that
// handle the common call themselves: shapes of the bound classes, float64 C-contiguous (4, 4)
// poses passing pose_rows_valid (the checks of to_pose), options and warm_start None or of
// their exact classes, by position or keyword. Any other call (meshes, box sets, array-likes to
// convert, invalid poses, wrong arguments) goes unchanged to the pybind11 overload set above,
// so conversions, checks and error messages stay exactly those of the bindings.

struct FastTypes {
  PyTypeObject* shapes[6] = {};  // Shape, Sphere, Box, Capsule, Cylinder, ConvexPolytope
  PyTypeObject* options = nullptr;
  PyTypeObject* warm_start = nullptr;
};
FastTypes g_fast;

// The C++ object of a pybind11 instance of exactly `type` (nullptr when not constructed).
void* bound_value(PyObject* o) {
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  if (!inst->simple_layout || !inst->simple_holder_constructed) return nullptr;
  return inst->simple_value_holder[0];
}

const gjk::Shape* fast_shape(PyObject* o) {
  const PyTypeObject* t = Py_TYPE(o);
  for (int k = 0; k < 6; ++k) {
    if (g_fast.shapes[k] != t) continue;
    void* v = bound_value(o);
    if (v == nullptr) return nullptr;
    switch (k) {
      case 1:
        return static_cast<PySphere*>(v);
      case 2:
        return static_cast<PyBox*>(v);
      case 3:
        return static_cast<PyCapsule*>(v);
      case 4:
        return static_cast<PyCylinder*>(v);
      case 5:
        return static_cast<PyPolytope*>(v);
      default:
        return static_cast<gjk::Shape*>(v);
    }
  }
  return nullptr;
}

// None or absent: true with *out = nullptr; an instance of exactly `type`: true with *out set.
template <class T>
bool fast_optional(PyObject* o, PyTypeObject* type, T** out) {
  *out = nullptr;
  if (o == nullptr || o == Py_None) return true;
  if (Py_TYPE(o) != type) return false;
  *out = static_cast<T*>(bound_value(o));
  return *out != nullptr;
}

bool fast_pose(PyObject* o, gjk::Pose& pose) {
  const auto& api = py::detail::npy_api::get();
  if (!api.PyArray_Check_(o)) return false;
  const py::detail::PyArray_Proxy* a = py::detail::array_proxy(o);
  const py::detail::PyArrayDescr_Proxy* d = py::detail::array_descriptor_proxy(a->descr);
  constexpr int kFlags =
      py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if (a->nd != 2 || a->dimensions[0] != 4 || a->dimensions[1] != 4 ||
      (a->flags & kFlags) != kFlags || d->type_num != py::detail::npy_api::NPY_DOUBLE_ ||
      d->byteorder != '=') {
    return false;
  }
  const auto* m = reinterpret_cast<const double*>(a->data);
  if (!pose_rows_valid(m)) return false;
  set_pose_rows(m, pose);
  return true;
}

template <class R>
PyObject* fast_result(R&& r) {
  static const py::detail::type_info* const type = py::detail::get_type_info(typeid(R));
  return py::detail::type_caster_generic::cast(
             &r, py::return_value_policy::move, nullptr, type,
             [](const void* p) -> void* { return new R(*static_cast<const R*>(p)); },
             [](const void* p) -> void* {
               return new R(std::move(*const_cast<R*>(static_cast<const R*>(p))));
             })
      .ptr();
}

struct FastCollide {
  static constexpr const char* kName = "collide";
  static constexpr bool kThreshold = false;
  static gjk::CollisionResult run(const gjk::Shape& a, const gjk::Pose& A, const gjk::Shape& b,
                                  const gjk::Pose& B, double, const gjk::QueryOptions& o,
                                  gjk::WarmStart* ws) {
    return ws ? gjk::collide(a, A, b, B, o, *ws) : gjk::collide(a, A, b, B, o);
  }
};
struct FastDistance {
  static constexpr const char* kName = "distance";
  static constexpr bool kThreshold = false;
  static gjk::DistanceResult run(const gjk::Shape& a, const gjk::Pose& A, const gjk::Shape& b,
                                 const gjk::Pose& B, double, const gjk::QueryOptions& o,
                                 gjk::WarmStart* ws) {
    return ws ? gjk::distance(a, A, b, B, o, *ws) : gjk::distance(a, A, b, B, o);
  }
};
struct FastPenetration {
  static constexpr const char* kName = "penetration";
  static constexpr bool kThreshold = false;
  static gjk::PenetrationResult run(const gjk::Shape& a, const gjk::Pose& A, const gjk::Shape& b,
                                    const gjk::Pose& B, double, const gjk::QueryOptions& o,
                                    gjk::WarmStart* ws) {
    return ws ? gjk::penetration(a, A, b, B, o, *ws) : gjk::penetration(a, A, b, B, o);
  }
};
struct FastSignedDistance {
  static constexpr const char* kName = "signed_distance";
  static constexpr bool kThreshold = false;
  static gjk::SignedDistanceResult run(const gjk::Shape& a, const gjk::Pose& A, const gjk::Shape& b,
                                       const gjk::Pose& B, double, const gjk::QueryOptions& o,
                                       gjk::WarmStart* ws) {
    return ws ? gjk::signed_distance(a, A, b, B, o, *ws) : gjk::signed_distance(a, A, b, B, o);
  }
};
struct FastCloserThan {
  static constexpr const char* kName = "closer_than";
  static constexpr bool kThreshold = true;
  static gjk::ThresholdResult run(const gjk::Shape& a, const gjk::Pose& A, const gjk::Shape& b,
                                  const gjk::Pose& B, double threshold, const gjk::QueryOptions& o,
                                  gjk::WarmStart* ws) {
    return ws ? gjk::closer_than(a, A, b, B, threshold, o, *ws)
              : gjk::closer_than(a, A, b, B, threshold, o);
  }
};

// The GIL is released around the engine call, as in the pybind11 bindings: Python threads
// querying at once run in parallel (tests/test_batch_threads.py).
struct WithoutGil {
  PyThreadState* state = PyEval_SaveThread();
  WithoutGil() = default;
  WithoutGil(const WithoutGil&) = delete;
  WithoutGil& operator=(const WithoutGil&) = delete;
  ~WithoutGil() { PyEval_RestoreThread(state); }
};

template <class Q>
PyObject* fast_query(PyObject* slow, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  constexpr Py_ssize_t kParams = Q::kThreshold ? 7 : 6;
  static const char* const kNames[7] = {"a",
                                        "pose_a",
                                        "b",
                                        "pose_b",
                                        Q::kThreshold ? "threshold" : "options",
                                        Q::kThreshold ? "options" : "warm_start",
                                        "warm_start"};
  PyObject* p[7] = {};
  const auto fallback = [&] { return PyObject_Vectorcall(slow, args, nargs, kwnames); };
  if (nargs > kParams) return fallback();
  for (Py_ssize_t i = 0; i < nargs; ++i) p[i] = args[i];
  if (kwnames != nullptr) {
    const Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t j = 0; j < nk; ++j) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, j);
      Py_ssize_t k = 0;
      while (k < kParams && PyUnicode_CompareWithASCIIString(key, kNames[k]) != 0) ++k;
      if (k == kParams || p[k] != nullptr) return fallback();
      p[k] = args[nargs + j];
    }
  }
  constexpr int kOpt = Q::kThreshold ? 5 : 4;
  if (p[0] == nullptr || p[1] == nullptr || p[2] == nullptr || p[3] == nullptr) return fallback();
  const gjk::Shape* a = fast_shape(p[0]);
  const gjk::Shape* b = fast_shape(p[2]);
  gjk::QueryOptions* options = nullptr;
  gjk::WarmStart* ws = nullptr;
  double threshold = 0.0;
  if (Q::kThreshold) {
    if (p[4] == nullptr || !PyFloat_CheckExact(p[4])) return fallback();
    threshold = PyFloat_AS_DOUBLE(p[4]);
  }
  gjk::Pose A, B;
  if (a == nullptr || b == nullptr || !fast_optional(p[kOpt], g_fast.options, &options) ||
      !fast_optional(p[kOpt + 1], g_fast.warm_start, &ws) || !fast_pose(p[1], A) ||
      !fast_pose(p[3], B)) {
    return fallback();
  }
  try {
    auto r = [&] {
      const WithoutGil nogil;
      return Q::run(*a, A, *b, B, threshold, options ? *options : kDefaultOptions, ws);
    }();
    return fast_result(std::move(r));
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::invalid_argument& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// Replaces m.<Q::kName> (the pybind11 overload set, kept as the fallback) by its fast front,
// with the same name, module and docstring.
template <class Q>
void install_fast(py::module_& m) {
  const py::object slow = m.attr(Q::kName);
  static PyMethodDef def{Q::kName,
                         reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(
                             static_cast<_PyCFunctionFastWithKeywords>(&fast_query<Q>))),
                         METH_FASTCALL | METH_KEYWORDS, nullptr};
  // Leaked on purpose, like the module: the function object may outlive static destructors.
  def.ml_doc = (new std::string(py::str(slow.attr("__doc__"))))->c_str();
  PyObject* f = PyCFunction_NewEx(&def, slow.ptr(), m.attr("__name__").ptr());
  if (f == nullptr) throw py::error_already_set();
  m.attr(Q::kName) = py::reinterpret_steal<py::object>(f);
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
            o.solver = enum_from_py<gjk::SimplexSolver>(v, 4, "solver");
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

  py::class_<gjk::MeshPairHit>(m, "MeshPairHit", R"doc(
Which pair of primitives (triangle of the first mesh, triangle or box of the second set) gave a
mesh-vs-mesh or mesh-vs-cells answer (-1: none); on entry, the pair tried first (a warm start
along a path). Keep one per tracked pair of sets.)doc")
      .def(py::init<int, int>(), arg("primitive_a") = -1, arg("primitive_b") = -1,
           "A hit, optionally seeded with a pair of primitives.")
      .def_readwrite("primitive_a", &gjk::MeshPairHit::primitive_a,
                     "Triangle of the first mesh, or -1.")
      .def_readwrite("primitive_b", &gjk::MeshPairHit::primitive_b,
                     "Triangle or box of the second set, or -1.");

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

  // ---- mesh vs mesh / box set (gjk/mesh_pair.hpp)
  // ------------------------------------------------
  const char* kMeshPairDoc =
      "A TriangleMesh against a TriangleMesh or BoxSet (exact minimum over every pair of "
      "primitives; when they touch, minus the deepest penetration of a single pair). hit: a "
      "MeshPairHit receiving the nearest pair (and seeding the search); max_distance: pairs of "
      "subtrees this far apart are never opened (+inf distance when nothing is nearer).";
  auto bind_mesh_pair = [&](auto tag) {
    using Target = typename decltype(tag)::type;
    m.def(
        "distance",
        [](const gjk::TriangleMesh& a, ArrayLike p, const Target& t, ArrayLike tp,
           Opt<gjk::QueryOptions> o, Opt<gjk::MeshPairHit> hit, double max_distance) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::distance(a, A, t, B, opts(o), hit.get(), max_distance);
        },
        arg("mesh"), arg("pose"), arg("target"), arg("target_pose"), arg("options") = py::none(),
        arg("hit") = py::none(), arg("max_distance") = std::numeric_limits<double>::infinity(),
        kMeshPairDoc);
    m.def(
        "signed_distance",
        [](const gjk::TriangleMesh& a, ArrayLike p, const Target& t, ArrayLike tp,
           Opt<gjk::QueryOptions> o, Opt<gjk::MeshPairHit> hit, double max_distance) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::signed_distance(a, A, t, B, opts(o), hit.get(), max_distance);
        },
        arg("mesh"), arg("pose"), arg("target"), arg("target_pose"), arg("options") = py::none(),
        arg("hit") = py::none(), arg("max_distance") = std::numeric_limits<double>::infinity(),
        kMeshPairDoc);
    m.def(
        "collide",
        [](const gjk::TriangleMesh& a, ArrayLike p, const Target& t, ArrayLike tp,
           Opt<gjk::QueryOptions> o, Opt<gjk::MeshPairHit> hit) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::collide(a, A, t, B, opts(o), hit.get());
        },
        arg("mesh"), arg("pose"), arg("target"), arg("target_pose"), arg("options") = py::none(),
        arg("hit") = py::none(),
        "Whether any triangle of the mesh touches any primitive of the target; stops at the "
        "first such pair, which `hit` (a MeshPairHit or None) receives.");
    m.def(
        "closer_than",
        [](const gjk::TriangleMesh& a, ArrayLike p, const Target& t, ArrayLike tp, double threshold,
           Opt<gjk::QueryOptions> o) {
          const gjk::Pose A = to_pose(p, "pose"), B = to_pose(tp, "target_pose");
          py::gil_scoped_release release;
          return gjk::closer_than(a, A, t, B, threshold, opts(o));
        },
        arg("mesh"), arg("pose"), arg("target"), arg("target_pose"), arg("threshold"),
        arg("options") = py::none(),
        "Whether the distance from the mesh to the target is below threshold (touching counts).");
  };
  bind_mesh_pair(MeshTag{});
  bind_mesh_pair(CellsTag{});

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

  // ---- fast fronts of the convex queries (see fast_query) --------------------------------------
  const char* kShapeClasses[6] = {"Shape",   "Sphere",   "Box",
                                  "Capsule", "Cylinder", "ConvexPolytope"};
  for (int k = 0; k < 6; ++k) {
    g_fast.shapes[k] = reinterpret_cast<PyTypeObject*>(m.attr(kShapeClasses[k]).ptr());
  }
  g_fast.options = reinterpret_cast<PyTypeObject*>(m.attr("QueryOptions").ptr());
  g_fast.warm_start = reinterpret_cast<PyTypeObject*>(m.attr("WarmStart").ptr());
  install_fast<FastCollide>(m);
  install_fast<FastDistance>(m);
  install_fast<FastPenetration>(m);
  install_fast<FastSignedDistance>(m);
  install_fast<FastCloserThan>(m);
}

}  // namespace gjk_python
