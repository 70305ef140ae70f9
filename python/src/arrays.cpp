#include "arrays.hpp"

#include <cmath>
#include <sstream>

namespace gjk_python {

std::string shape_string(const py::array& a) {
  std::ostringstream s;
  s << "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (i > 0) s << ", ";
    s << a.shape(i);
  }
  if (a.ndim() == 1) s << ",";
  s << ")";
  return s.str();
}

Rows as_float_array(py::handle obj, const char* name) {
  // Fast path: already float64 and C-contiguous (the common case inside loops): no copy.
  if (Rows::check_(obj)) return py::reinterpret_borrow<Rows>(obj);
  py::array a;
  try {
    a = py::array::ensure(obj);
  } catch (const py::error_already_set&) {
  }
  if (!a) {
    throw py::value_error(std::string(name) + ": expected an array-like of numbers, got " +
                          std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  // Object, string, complex and datetime arrays would be converted (or fail) unpredictably by
  // forcecast; only numbers that convert exactly or by rounding to float64 are accepted.
  const char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    throw py::value_error(std::string(name) + ": expected a numeric array, got dtype " +
                          std::string(py::str(a.dtype())));
  }
  return Rows::ensure(a);  // copies non-contiguous or non-float64 input
}

namespace {

void check_shape(const py::array& a, const char* name, std::initializer_list<py::ssize_t> shape,
                 const char* expected) {
  bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
  py::ssize_t i = 0;
  for (py::ssize_t n : shape) {
    if (!ok) break;
    ok = n < 0 || a.shape(i) == n;
    ++i;
  }
  if (!ok) {
    throw py::value_error(std::string(name) + ": expected an array of shape " + expected +
                          ", got shape " + shape_string(a));
  }
}

std::string where(const char* name, long index) {
  return index < 0 ? std::string(name) : std::string(name) + "[" + std::to_string(index) + "]";
}

}  // namespace

bool pose_rows_valid(const double* m) {
  // Branch-free: x * 0 is 0 for finite x and NaN for inf or NaN.
  double zero = 0.0;
  for (int i = 0; i < 12; ++i) zero += m[i] * 0.0;
  bool ok = zero == 0.0;
  ok &= m[12] == 0.0 && m[13] == 0.0 && m[14] == 0.0 && m[15] == 1.0;
  // R = m's upper-left 3x3 block (row-major); a non-rotation (a scale, a shear) would give
  // silently wrong distances: |R^T R - I| <= 1e-6 entrywise and det R >= 0.
  const auto r = [m](int row, int col) { return m[4 * row + col]; };
  for (int i = 0; i < 3; ++i) {
    for (int j = i; j < 3; ++j) {
      const double g = r(0, i) * r(0, j) + r(1, i) * r(1, j) + r(2, i) * r(2, j);
      ok &= std::abs(g - (i == j ? 1.0 : 0.0)) <= 1e-6;
    }
  }
  const double det = r(0, 0) * (r(1, 1) * r(2, 2) - r(1, 2) * r(2, 1)) -
                     r(0, 1) * (r(1, 0) * r(2, 2) - r(1, 2) * r(2, 0)) +
                     r(0, 2) * (r(1, 0) * r(2, 1) - r(1, 1) * r(2, 0));
  ok &= det >= 0.0;
  return ok;
}

void set_pose_rows(const double* m, gjk::Pose& pose) {
  Eigen::Matrix4d& mat = pose.matrix();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) mat(r, c) = m[4 * r + c];
  }
  mat.row(3) << 0.0, 0.0, 0.0, 1.0;
}

gjk::Pose pose_from_rows(const double* m, const char* name, long index) {
  gjk::Pose pose;
  if (pose_rows_valid(m)) {
    set_pose_rows(m, pose);
    return pose;
  }
  // Invalid: say why.
  for (int i = 0; i < 16; ++i) {
    if (!std::isfinite(m[i])) {
      throw py::value_error(where(name, index) + ": pose has a non-finite entry at (" +
                            std::to_string(i / 4) + ", " + std::to_string(i % 4) + ")");
    }
  }
  if (m[12] != 0.0 || m[13] != 0.0 || m[14] != 0.0 || m[15] != 1.0) {
    throw py::value_error(where(name, index) + ": pose's last row must be [0, 0, 0, 1]");
  }
  throw py::value_error(where(name, index) +
                        ": pose's upper-left 3x3 block is not a rotation (orthonormal, det +1)");
}

gjk::Pose to_pose(py::handle obj, const char* name) {
  const Rows a = as_float_array(obj, name);
  check_shape(a, name, {4, 4}, "(4, 4)");
  return pose_from_rows(a.data(), name, -1);
}

gjk::planar::Pose2 to_pose2(py::handle obj, const char* name) {
  const Rows a = as_float_array(obj, name);
  check_shape(a, name, {3, 3}, "(3, 3)");
  const double* m = a.data();
  for (int i = 0; i < 9; ++i) {
    if (!std::isfinite(m[i])) {
      throw py::value_error(std::string(name) + ": pose has a non-finite entry at (" +
                            std::to_string(i / 3) + ", " + std::to_string(i % 3) + ")");
    }
  }
  if (m[6] != 0.0 || m[7] != 0.0 || m[8] != 1.0) {
    throw py::value_error(std::string(name) + ": planar pose's last row must be [0, 0, 1]");
  }
  gjk::planar::Pose2 pose = gjk::planar::Pose2::Identity();
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) pose.matrix()(r, c) = m[3 * r + c];
  }
  const Eigen::Matrix2d gram = pose.linear().transpose() * pose.linear();
  if ((gram - Eigen::Matrix2d::Identity()).cwiseAbs().maxCoeff() > 1e-6 ||
      pose.linear().determinant() < 0) {
    throw py::value_error(std::string(name) +
                          ": planar pose's upper-left 2x2 block is not a rotation");
  }
  return pose;
}

gjk::Vec3 to_vec3(py::handle obj, const char* name) {
  const Rows a = as_float_array(obj, name);
  check_shape(a, name, {3}, "(3,)");
  const gjk::Vec3 v(a.data()[0], a.data()[1], a.data()[2]);
  if (!v.allFinite()) throw py::value_error(std::string(name) + ": non-finite entry");
  return v;
}

std::vector<gjk::Vec3> to_points3(py::handle obj, const char* name) {
  const Rows a = as_float_array(obj, name);
  check_shape(a, name, {-1, 3}, "(N, 3)");
  std::vector<gjk::Vec3> points(static_cast<size_t>(a.shape(0)));
  const double* d = a.data();
  for (size_t i = 0; i < points.size(); ++i) {
    points[i] = gjk::Vec3(d[3 * i], d[3 * i + 1], d[3 * i + 2]);
    if (!points[i].allFinite()) {
      throw py::value_error(std::string(name) + ": row " + std::to_string(i) +
                            " has a non-finite coordinate");
    }
  }
  return points;
}

std::vector<gjk::planar::Vec2> to_points2(py::handle obj, const char* name) {
  const Rows a = as_float_array(obj, name);
  check_shape(a, name, {-1, 2}, "(N, 2)");
  std::vector<gjk::planar::Vec2> points(static_cast<size_t>(a.shape(0)));
  const double* d = a.data();
  for (size_t i = 0; i < points.size(); ++i) {
    points[i] = gjk::planar::Vec2(d[2 * i], d[2 * i + 1]);
    if (!points[i].allFinite()) {
      throw py::value_error(std::string(name) + ": row " + std::to_string(i) +
                            " has a non-finite coordinate");
    }
  }
  return points;
}

std::vector<std::array<std::uint32_t, 3>> to_triangles(py::handle obj, const char* name) {
  py::array a;
  try {
    a = py::array::ensure(obj);
  } catch (const py::error_already_set&) {
  }
  if (!a || (a.dtype().kind() != 'i' && a.dtype().kind() != 'u')) {
    throw py::value_error(std::string(name) + ": expected an integer array of shape (M, 3)");
  }
  using Ints = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
  const Ints t = Ints::ensure(a);
  check_shape(t, name, {-1, 3}, "(M, 3)");
  std::vector<std::array<std::uint32_t, 3>> triangles(static_cast<size_t>(t.shape(0)));
  const std::int64_t* d = t.data();
  for (size_t i = 0; i < triangles.size(); ++i) {
    for (size_t k = 0; k < 3; ++k) {
      const std::int64_t v = d[3 * i + k];
      if (v < 0 || v > 0xffffffffLL) {
        throw py::value_error(std::string(name) + ": triangle " + std::to_string(i) +
                              " has an index out of range: " + std::to_string(v));
      }
      triangles[i][k] = static_cast<std::uint32_t>(v);
    }
  }
  return triangles;
}

py::array_t<double> from_vec3(const gjk::Vec3& v) {
  py::array_t<double> out(3);
  double* d = out.mutable_data();
  d[0] = v.x();
  d[1] = v.y();
  d[2] = v.z();
  return out;
}

py::array_t<double> from_vec2(const gjk::planar::Vec2& v) {
  py::array_t<double> out(2);
  out.mutable_data()[0] = v.x();
  out.mutable_data()[1] = v.y();
  return out;
}

py::array_t<double> from_pose(const gjk::Pose& pose) {
  py::array_t<double> out({4, 4});
  double* d = out.mutable_data();
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) d[4 * r + c] = pose.matrix()(r, c);
  }
  return out;
}

py::array_t<double> from_points3(const std::vector<gjk::Vec3>& points) {
  py::array_t<double> out({static_cast<py::ssize_t>(points.size()), py::ssize_t{3}});
  double* d = out.mutable_data();
  for (size_t i = 0; i < points.size(); ++i) {
    for (int k = 0; k < 3; ++k) d[3 * i + static_cast<size_t>(k)] = points[i][k];
  }
  return out;
}

}  // namespace gjk_python
