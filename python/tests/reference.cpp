// Reference answers for the Python tests: reads cases from stdin, one per line,
//   <query> <threshold> <shape A> <pose A: 16 numbers, row-major> <shape B> <pose B>
// with a shape written as  sphere r infl | box hx hy hz infl | capsule r h infl |
// cylinder r h infl | polytope n x1 y1 z1 ... infl, and prints each answer's numbers with 17
// significant digits (exact round trip), so the test can demand bit-identical results.
#include <gjk/queries.hpp>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

gjk::Shape read_shape(std::istream& in) {
  std::string kind;
  in >> kind;
  gjk::Shape s;
  if (kind == "sphere") {
    gjk::Sphere g;
    in >> g.radius;
    s = gjk::Shape(g);
  } else if (kind == "box") {
    gjk::Box g;
    in >> g.half_extents.x() >> g.half_extents.y() >> g.half_extents.z();
    s = gjk::Shape(g);
  } else if (kind == "capsule") {
    gjk::Capsule g;
    in >> g.radius >> g.half_length;
    s = gjk::Shape(g);
  } else if (kind == "cylinder") {
    gjk::Cylinder g;
    in >> g.radius >> g.half_length;
    s = gjk::Shape(g);
  } else if (kind == "polytope") {
    size_t n = 0;
    in >> n;
    std::vector<gjk::Vec3> p(n);
    for (auto& v : p) in >> v.x() >> v.y() >> v.z();
    s = gjk::Shape(gjk::ConvexPolytope::from_points(p));
  } else {
    throw std::runtime_error("unknown shape " + kind);
  }
  in >> s.inflation;
  return s;
}

gjk::Pose read_pose(std::istream& in) {
  gjk::Pose pose = gjk::Pose::Identity();
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) in >> pose.matrix()(r, c);
  }
  return pose;
}

void put(double v) {
  std::printf(" %.17g", v);
}
void put(const gjk::Vec3& v) {
  put(v.x());
  put(v.y());
  put(v.z());
}

}  // namespace

int main() {
  std::string query;
  while (std::cin >> query) {
    double threshold = 0;
    std::cin >> threshold;
    const gjk::Shape a = read_shape(std::cin);
    const gjk::Pose pa = read_pose(std::cin);
    const gjk::Shape b = read_shape(std::cin);
    const gjk::Pose pb = read_pose(std::cin);
    if (query == "distance") {
      const auto r = gjk::distance(a, pa, b, pb);
      put(r.distance);
      put(r.lower_bound);
      put(r.upper_bound);
      put(r.point_on_a);
      put(r.point_on_b);
      put(r.normal);
      std::printf(" %d %d %d", r.collision ? 1 : 0, r.iterations, static_cast<int>(r.status));
    } else if (query == "signed_distance") {
      const auto r = gjk::signed_distance(a, pa, b, pb);
      put(r.signed_distance);
      put(r.point_on_a);
      put(r.point_on_b);
      put(r.normal);
      std::printf(" %d %d", r.iterations, static_cast<int>(r.status));
    } else if (query == "penetration") {
      const auto r = gjk::penetration(a, pa, b, pb);
      std::printf(" %d", r.collision ? 1 : 0);
      put(r.depth);
      put(r.normal);
      put(r.point_on_a);
      put(r.point_on_b);
      put(r.lower_bound);
      put(r.upper_bound);
      std::printf(" %d %d", r.iterations, static_cast<int>(r.status));
    } else if (query == "collide") {
      const auto r = gjk::collide(a, pa, b, pb);
      std::printf(" %d", r.collision ? 1 : 0);
      put(r.separating_direction);
      std::printf(" %d %d", r.iterations, static_cast<int>(r.status));
    } else if (query == "closer_than") {
      const auto r = gjk::closer_than(a, pa, b, pb, threshold);
      std::printf(" %d", r.closer ? 1 : 0);
      put(r.lower_bound);
      put(r.upper_bound);
      std::printf(" %d %d", r.iterations, static_cast<int>(r.status));
    } else {
      std::fprintf(stderr, "unknown query %s\n", query.c_str());
      return 1;
    }
    std::printf("\n");
  }
  return 0;
}
