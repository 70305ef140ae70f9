// NumPy <-> Eigen conversions with the checks every binding shares: shape, dtype, finiteness,
// homogeneous last row. Errors are ValueError (py::value_error) naming the argument and what was
// received, so a bad array never reaches the engine as a misread buffer.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <gjk/planar.hpp>
#include <gjk/shapes.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gjk_python {

namespace py = pybind11;

/// A Python argument taken as it is and converted (and checked) by the functions below; its own
/// type only so that signatures in help() read "numpy.typing.ArrayLike", not "handle".
struct ArrayLike {
  py::handle h;
  operator py::handle() const { return h; }  // NOLINT: implicit by design
};

using Rows = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// Converts `obj` to a C-contiguous float64 array (copying when needed) after checking that its
/// dtype is numeric (bool, integer or floating); throws ValueError naming `name` otherwise.
Rows as_float_array(py::handle obj, const char* name);
/// "(3, 4)": the shape of `a` as Python prints it.
std::string shape_string(const py::array& a);

/// A 4x4 homogeneous pose: finite, last row [0, 0, 0, 1], orthonormal rotation (1e-6).
gjk::Pose to_pose(py::handle obj, const char* name);
/// A 3x3 homogeneous planar pose: finite, last row [0, 0, 1], orthonormal rotation (1e-6).
gjk::planar::Pose2 to_pose2(py::handle obj, const char* name);
/// Checks the pose matrix at `m` (row-major 4x4) and builds the pose; ValueError naming
/// `name` (and `index` when >= 0) when pose_rows_valid(m) is false.
gjk::Pose pose_from_rows(const double* m, const char* name, long index);
/// Whether the row-major 4x4 matrix at `m` is a pose to_pose accepts (finite, last row
/// [0, 0, 0, 1], rotation block orthonormal to 1e-6 with det > 0); never throws, needs no GIL.
bool pose_rows_valid(const double* m);
/// Writes the row-major 4x4 matrix at `m` (checked by pose_rows_valid) into `pose`.
void set_pose_rows(const double* m, gjk::Pose& pose);

/// A finite 3-vector from a (3,) array-like.
gjk::Vec3 to_vec3(py::handle obj, const char* name);
/// Points as an (N, 3) array (N >= 1 unless `allow_empty`), finite.
std::vector<gjk::Vec3> to_points3(py::handle obj, const char* name);
/// Points as an (N, 2) array, finite.
std::vector<gjk::planar::Vec2> to_points2(py::handle obj, const char* name);
/// Triangles as an (M, 3) integer array with non-negative indices.
std::vector<std::array<std::uint32_t, 3>> to_triangles(py::handle obj, const char* name);

/// (3,) float64 array copied from `v`.
py::array_t<double> from_vec3(const gjk::Vec3& v);
/// (2,) float64 array copied from `v`.
py::array_t<double> from_vec2(const gjk::planar::Vec2& v);
/// (4, 4) float64 array of the pose's homogeneous matrix.
py::array_t<double> from_pose(const gjk::Pose& pose);
/// (N, 3) float64 array.
py::array_t<double> from_points3(const std::vector<gjk::Vec3>& points);

}  // namespace gjk_python

namespace pybind11::detail {
/// Accepts any object; the binding's converter reports what is wrong with it (ValueError).
template <>
struct type_caster<gjk_python::ArrayLike> {
  PYBIND11_TYPE_CASTER(gjk_python::ArrayLike, const_name("numpy.typing.ArrayLike"));
  bool load(handle src, bool /*convert*/) {
    value.h = src;
    return true;
  }
  static handle cast(const gjk_python::ArrayLike& a, return_value_policy, handle) {
    return a.h.inc_ref();
  }
};
}  // namespace pybind11::detail
