// Pieces of the extension module libgjk._core, one function per part of the library.
#pragma once

#include <pybind11/pybind11.h>
#include <gjk/results.hpp>
#include <gjk/shapes.hpp>

#include <string>
#include <vector>

namespace gjk_python {

namespace py = pybind11;

/// The Python enum.IntEnum classes mirroring the C++ enums, created once at import.
struct Enums {
  py::object status;          ///< gjk::Status
  py::object feature;         ///< gjk::Feature
  py::object simplex_solver;  ///< gjk::SimplexSolver
  py::object support_method;  ///< gjk::SupportMethod
  py::object gjk_epa_state;   ///< gjk::GjkEpa::State
  /// Members by value, so a result's status is a list lookup, not an enum constructor call.
  std::vector<py::object> status_members, feature_members;
};
/// The enums (valid after bind_enums); never destroyed, like the module.
const Enums& enums();

/// Creates an enum.IntEnum class `name` in module `m` with the given members.
py::object make_enum(const char* name, std::initializer_list<std::pair<const char*, int>> members,
                     const char* doc, py::module_& m);

void bind_enums(py::module_& m);
void bind_engine(py::module_& m);
void bind_planar(py::module_& m);
void bind_gjk_epa(py::module_& m);

/// `s` as an object of its Python class (Sphere, Box, ... with its inflation), a copy.
py::object typed_shape(const gjk::Shape& s);

/// Status value as the Python enum member.
inline py::object to_py(gjk::Status s) {
  return enums().status_members.at(static_cast<size_t>(s));
}
/// Feature value as the Python enum member.
inline py::object to_py(gjk::Feature f) {
  return enums().feature_members.at(static_cast<size_t>(f));
}

/// A Python int or enum member converted to the C++ enum, range-checked (ValueError).
template <class E>
E enum_from_py(py::handle value, int count, const char* name) {
  int v = 0;
  try {
    v = py::cast<int>(py::int_(py::reinterpret_borrow<py::object>(value)));
  } catch (const py::error_already_set&) {
    throw py::value_error(std::string(name) + ": expected an int or enum member");
  } catch (const py::cast_error&) {
    throw py::value_error(std::string(name) + ": expected an int or enum member");
  }
  if (v < 0 || v >= count) {
    throw py::value_error(std::string(name) + ": value " + std::to_string(v) + " out of range");
  }
  return static_cast<E>(v);
}

/// An optional reference argument (options, caches) that takes None at once. A plain `T*`
/// argument refuses None in pybind11's first, no-conversion pass over the overloads; the second
/// pass then tries implicit conversions of every argument of every overload and costs ~3 us per
/// call, more than most queries.
template <class T>
struct Opt {
  T* ptr = nullptr;
  explicit operator bool() const { return ptr != nullptr; }
  T& operator*() const { return *ptr; }
  T* get() const { return ptr; }
};

}  // namespace gjk_python

namespace pybind11::detail {
template <class T>
struct type_caster<gjk_python::Opt<T>> {
  PYBIND11_TYPE_CASTER(gjk_python::Opt<T>,
                       const_name("Optional[") + make_caster<T>::name + const_name("]"));
  bool load(handle src, bool convert) {
    if (src.is_none()) {
      value.ptr = nullptr;
      return true;
    }
    make_caster<T> inner;
    if (!inner.load(src, convert)) return false;
    value.ptr = &cast_op<T&>(inner);  // the object held by `src`, which outlives the call
    return true;
  }
  static handle cast(const gjk_python::Opt<T>&, return_value_policy, handle) {
    return none().release();
  }
};
}  // namespace pybind11::detail
