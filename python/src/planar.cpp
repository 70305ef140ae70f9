// The 2D engine (libgjk._core.planar, seed 001) and the stateful GJK_EPA class (seed 000).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <gjk/gjk_epa.hpp>
#include <gjk/planar.hpp>

#include <mutex>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"

namespace gjk_python {

namespace {

namespace pl = gjk::planar;

const pl::Options kDefaultPlanarOptions{};
py::object* g_sub_distance = nullptr;  // planar.SubDistance; leaked, like the module

// GjkEpa holds its shapes and answers: every call (setters too) takes its lock with the GIL
// released, so Python threads sharing one object serialise instead of racing on its state.
struct LockedGjkEpa {
  explicit LockedGjkEpa(const gjk::QueryOptions& o) : g(o) {}
  gjk::GjkEpa g;
  std::mutex mu;
};

template <class F>
auto locked(LockedGjkEpa& self, F&& f) {
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(self.mu);
  return f(self.g);
}

py::array_t<double> from_pose2(const pl::Pose2& pose) {
  py::array_t<double> out({3, 3});
  double* d = out.mutable_data();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) d[3 * r + c] = pose.matrix()(r, c);
  }
  return out;
}

}  // namespace

void bind_planar(py::module_& m) {
  using py::arg;
  m.def(
      "pose",
      [](ArrayLike position, double angle) {
        const Rows p = as_float_array(position, "position");
        if (p.ndim() != 1 || p.shape(0) != 2) {
          throw py::value_error("position: expected an array of shape (2,), got shape " +
                                shape_string(p));
        }
        const pl::Vec2 v(p.data()[0], p.data()[1]);
        if (!v.allFinite() || !std::isfinite(angle)) {
          throw py::value_error("position, angle: must be finite");
        }
        return from_pose2(pl::make_pose(v, angle));
      },
      arg("position"), arg("angle") = 0.0,
      "3x3 planar pose from a (2,) position and a counter-clockwise angle (radians).");

  g_sub_distance = new py::object(make_enum(
      "SubDistance", {{"Barycode", 0}, {"RefineSet", 1}},
      "The 2D simplex step: seed 001's barycode (Algs. 2-5) or seed 002's fixed-size refine_set "
      "(section 3.1). Both give the same answers.",
      m));
  py::class_<pl::Options>(m, "Options", "Settings of the 2D queries.")
      .def(py::init<>(), "The defaults.")
      .def_readwrite("max_iterations", &pl::Options::max_iterations, "Iteration cap.")
      .def_readwrite("tolerance", &pl::Options::tolerance, "Relative duality-gap tolerance.")
      .def_property(
          "support", [](const pl::Options& o) { return enums().support_method(int(o.support)); },
          [](pl::Options& o, py::handle v) {
            o.support = enum_from_py<gjk::SupportMethod>(v, 3, "support");
          },
          "Support: scan or hill climbing (SupportMethod).")
      .def_property(
          "sub_distance",
          [](const pl::Options& o) { return (*g_sub_distance)(int(o.sub_distance)); },
          [](pl::Options& o, py::handle v) {
            o.sub_distance = enum_from_py<pl::SubDistance>(v, 2, "sub_distance");
          },
          "The simplex step (SubDistance): seed 001's barycode or seed 002's refine_set.")
      .def_readwrite("axes_first", &pl::Options::axes_first,
                     "collide() only: test the polygons' edge normals as separating axes before "
                     "GJK when both have 3 or more vertices and 16 or fewer together (the same "
                     "verdicts, faster on small polygons). False runs seed 001's Alg. 6 alone.");

  py::class_<pl::ConvexPolygon>(m, "ConvexPolygon",
                                "Convex polygon with counter-clockwise vertices (2D qhull hull).")
      .def_static(
          "from_points",
          [](ArrayLike points) {
            auto p = to_points2(points, "points");
            py::gil_scoped_release release;
            return pl::ConvexPolygon::from_points(p);
          },
          arg("points"), "Hull of an (N, 2) array of points (N >= 1).")
      .def_property_readonly(
          "vertices",
          [](const pl::ConvexPolygon& poly) {
            py::array_t<double> out({static_cast<py::ssize_t>(poly.size()), py::ssize_t{2}});
            for (int i = 0; i < poly.size(); ++i) {
              out.mutable_data()[2 * i] = poly.vertices()[static_cast<size_t>(i)].x();
              out.mutable_data()[2 * i + 1] = poly.vertices()[static_cast<size_t>(i)].y();
            }
            return out;
          },
          "(N, 2) vertices, counter-clockwise.")
      .def("__len__", &pl::ConvexPolygon::size, "Number of vertices.");

  py::class_<pl::DistanceResult>(m, "DistanceResult", "Answer of planar.distance().")
      .def_readonly("distance", &pl::DistanceResult::distance, "Distance; 0 when touching.")
      .def_readonly("lower_bound", &pl::DistanceResult::lower_bound, "Certified lower bound.")
      .def_readonly("upper_bound", &pl::DistanceResult::upper_bound, "Certified upper bound.")
      .def_property_readonly(
          "point_on_a", [](const pl::DistanceResult& r) { return from_vec2(r.point_on_a); },
          "Witness point on A, (2,).")
      .def_property_readonly(
          "point_on_b", [](const pl::DistanceResult& r) { return from_vec2(r.point_on_b); },
          "Witness point on B, (2,).")
      .def_property_readonly(
          "normal", [](const pl::DistanceResult& r) { return from_vec2(r.normal); },
          "Unit vector from A towards B; zero when overlapping.")
      .def_readonly("collision", &pl::DistanceResult::collision, "They touch or overlap.")
      .def_property_readonly(
          "feature_on_a", [](const pl::DistanceResult& r) { return to_py(r.feature_on_a); },
          "Feature of A at the witness point.")
      .def_property_readonly(
          "feature_on_b", [](const pl::DistanceResult& r) { return to_py(r.feature_on_b); },
          "Feature of B at the witness point.")
      .def_readonly("simplex_size", &pl::DistanceResult::simplex_size,
                    "Simplex points (1-3; 0 when the inner discs answered).")
      .def_readonly("iterations", &pl::DistanceResult::iterations, "GJK iterations.")
      .def_property_readonly(
          "status", [](const pl::DistanceResult& r) { return to_py(r.status); }, "Status.");
  py::class_<pl::CollisionResult>(m, "CollisionResult", "Answer of planar.collide().")
      .def_readonly("collision", &pl::CollisionResult::collision, "They touch or overlap.")
      .def_readonly("iterations", &pl::CollisionResult::iterations, "GJK iterations.")
      .def_property_readonly(
          "status", [](const pl::CollisionResult& r) { return to_py(r.status); }, "Status.");

  m.def(
      "distance",
      [](const pl::ConvexPolygon& a, ArrayLike pa, const pl::ConvexPolygon& b, ArrayLike pb,
         Opt<pl::Options> o) {
        const pl::Pose2 A = to_pose2(pa, "pose_a"), B = to_pose2(pb, "pose_b");
        py::gil_scoped_release release;
        return pl::distance(a, A, b, B, o ? *o : kDefaultPlanarOptions);
      },
      arg("a"), arg("pose_a"), arg("b"), arg("pose_b"), arg("options") = py::none(),
      "Distance between two polygons at 3x3 poses (seed 001 Alg. 1, barycode sub-distance).");
  m.def(
      "collide",
      [](const pl::ConvexPolygon& a, ArrayLike pa, const pl::ConvexPolygon& b, ArrayLike pb,
         Opt<pl::Options> o) {
        const pl::Pose2 A = to_pose2(pa, "pose_a"), B = to_pose2(pb, "pose_b");
        py::gil_scoped_release release;
        return pl::collide(a, A, b, B, o ? *o : kDefaultPlanarOptions);
      },
      arg("a"), arg("pose_a"), arg("b"), arg("pose_b"), arg("options") = py::none(),
      "Whether two polygons intersect (seed 001 Alg. 6).");
}

void bind_gjk_epa(py::module_& m) {
  using gjk::GjkEpa;
  using py::arg;
  m.def(
      "rotation_xyz",
      [](double gx, double gy, double gz) {
        const Eigen::Matrix3d r = gjk::rotation_xyz(gx, gy, gz);
        py::array_t<double> out({3, 3});
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 3; ++j) out.mutable_data()[3 * i + j] = r(i, j);
        }
        return out;
      },
      arg("gamma_x"), arg("gamma_y"), arg("gamma_z"),
      "Seed 000 eq. (38): R = Rx(gx) Ry(gy) Rz(gz) as a 3x3 array.");
  m.def(
      "pose_from_xyz",
      [](ArrayLike position, ArrayLike angles) {
        return from_pose(
            gjk::pose_from_xyz(to_vec3(position, "position"), to_vec3(angles, "angles_xyz")));
      },
      arg("position"), arg("angles_xyz"), "4x4 pose from a position and seed-000 XYZ angles.");

  py::object state = py::module_::import("enum").attr("IntEnum")(
      "GjkEpaState",
      py::make_tuple(py::make_tuple("Unknown", 0), py::make_tuple("Collision", 1),
                     py::make_tuple("PenetrationKnown", 2), py::make_tuple("Separated", 3),
                     py::make_tuple("ClosestPointsKnown", 4)));
  state.attr("__module__") = m.attr("__name__");
  state.attr("__doc__") = "Seed 000 Fig. 14: the state of GjkEpa after its last query.";
  m.attr("GjkEpaState") = state;

  py::class_<GjkEpa::ClosestPoints>(m, "ClosestPoints", "GjkEpa.get_distance()'s answer.")
      .def_property_readonly(
          "point_on_a", [](const GjkEpa::ClosestPoints& c) { return from_vec3(c.point_on_a); },
          "On A, world frame.")
      .def_property_readonly(
          "point_on_b", [](const GjkEpa::ClosestPoints& c) { return from_vec3(c.point_on_b); },
          "On B, world frame.")
      .def_readonly("distance", &GjkEpa::ClosestPoints::distance, "Their distance.");
  py::class_<GjkEpa::Penetration>(m, "Penetration", "GjkEpa.get_penetration()'s answer.")
      .def_property_readonly(
          "vector", [](const GjkEpa::Penetration& p) { return from_vec3(p.vector); },
          "rho_A - rho_B (eq. 33): translate B by it to end the overlap.")
      .def_property_readonly(
          "point_on_a", [](const GjkEpa::Penetration& p) { return from_vec3(p.point_on_a); },
          "Deepest point of A inside B.")
      .def_property_readonly(
          "point_on_b", [](const GjkEpa::Penetration& p) { return from_vec3(p.point_on_b); },
          "Deepest point of B inside A.")
      .def_readonly("depth", &GjkEpa::Penetration::depth, "Penetration depth.");

  py::class_<LockedGjkEpa>(m, "GjkEpa", R"doc(
The stateful GJK_EPA class of seed 000: two shapes set from vertex arrays (or any Shape and
pose), queried for collision, distance and penetration; remembers the last answers until a shape
changes (Fig. 14). One object per thread.)doc")
      .def(py::init([](Opt<gjk::QueryOptions> o) {
             return std::make_unique<LockedGjkEpa>(o ? *o : gjk::QueryOptions{});
           }),
           arg("options") = py::none(), "A pair with no shapes yet; options apply to every query.")
      .def(
          "set_shape_a",
          [](LockedGjkEpa& g, ArrayLike vertices) {
            auto v = to_points3(vertices, "vertices");
            locked(g, [&](GjkEpa& e) { e.set_shape_a(v); });
          },
          arg("vertices"), "A = hull of (N, 3) vertices in the world frame.")
      .def(
          "set_shape_b",
          [](LockedGjkEpa& g, ArrayLike vertices) {
            auto v = to_points3(vertices, "vertices");
            locked(g, [&](GjkEpa& e) { e.set_shape_b(v); });
          },
          arg("vertices"), "B = hull of (N, 3) vertices in the world frame.")
      .def(
          "set_shape_a",
          [](LockedGjkEpa& g, const gjk::Shape& s, ArrayLike pose) {
            const gjk::Pose p = to_pose(pose, "pose");
            locked(g, [&](GjkEpa& e) { e.set_shape_a(s, p); });
          },
          arg("shape"), arg("pose"), "A = any shape at a 4x4 pose.")
      .def(
          "set_shape_b",
          [](LockedGjkEpa& g, const gjk::Shape& s, ArrayLike pose) {
            const gjk::Pose p = to_pose(pose, "pose");
            locked(g, [&](GjkEpa& e) { e.set_shape_b(s, p); });
          },
          arg("shape"), arg("pose"), "B = any shape at a 4x4 pose.")
      .def(
          "set_shape_a_transformed",
          [](LockedGjkEpa& g, ArrayLike v, ArrayLike angles, ArrayLike position) {
            auto pts = to_points3(v, "vertices");
            const gjk::Vec3 a = to_vec3(angles, "angles_xyz"), p = to_vec3(position, "position");
            locked(g, [&](GjkEpa& e) { e.set_shape_a_transformed(pts, a, p); });
          },
          arg("vertices"), arg("angles_xyz"), arg("position"),
          "A = hull of local vertices rotated by XYZ angles (eq. 38) and moved to position.")
      .def(
          "set_shape_b_transformed",
          [](LockedGjkEpa& g, ArrayLike v, ArrayLike angles, ArrayLike position) {
            auto pts = to_points3(v, "vertices");
            const gjk::Vec3 a = to_vec3(angles, "angles_xyz"), p = to_vec3(position, "position");
            locked(g, [&](GjkEpa& e) { e.set_shape_b_transformed(pts, a, p); });
          },
          arg("vertices"), arg("angles_xyz"), arg("position"),
          "B = hull of local vertices rotated by XYZ angles (eq. 38) and moved to position.")
      .def(
          "are_in_collision",
          [](LockedGjkEpa& g) { return locked(g, [](GjkEpa& e) { return e.are_in_collision(); }); },
          "Algorithm 2. RuntimeError when a shape has not been set.")
      .def(
          "get_distance",
          [](LockedGjkEpa& g) { return locked(g, [](GjkEpa& e) { return e.get_distance(); }); },
          "Closest points (Algorithm 1), or None when the shapes collide.")
      .def(
          "get_penetration",
          [](LockedGjkEpa& g) { return locked(g, [](GjkEpa& e) { return e.get_penetration(); }); },
          "Penetration (Algorithm 3), or None when the shapes do not collide.")
      .def_property_readonly(
          "state",
          [state](LockedGjkEpa& g) {
            return state(static_cast<int>(locked(g, [](GjkEpa& e) { return e.state(); })));
          },
          "GjkEpaState of the last query.")
      .def_property_readonly(
          "last_status",
          [](LockedGjkEpa& g) {
            return to_py(locked(g, [](GjkEpa& e) { return e.last_status(); }));
          },
          "Status of the last algorithm run.");
}

}  // namespace gjk_python
