// README "API in ten lines", as a complete program: a hull and an inflated box, every query.
#include <gjk/gjk.hpp>
#include <gjk/version.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  // The points of the README's `points`: a unit-ish tetrahedron plus one interior point.
  const std::vector<gjk::Vec3> points = {
      {0, 0, 0}, {0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}, {0.05, 0.05, 0.05}};

  // --- README snippet (verbatim) ---
  // clang-format off
  gjk::Shape a = gjk::ConvexPolytope::from_points(points);      // qhull hull, adjacency
  gjk::Shape b = gjk::inflated(gjk::Box{gjk::Vec3(0.1, 0.2, 0.3)}, 0.01);
  gjk::Pose pa = gjk::Pose::Identity(), pb = gjk::pose_from_xyz({1, 0, 0}, {0, 0, M_PI / 4});

  gjk::DistanceResult d = gjk::distance(a, pa, b, pb);      // distance, point_on_a/b, normal,
                                                            // lower/upper bound, status
  gjk::PenetrationResult p = gjk::penetration(a, pa, b, pb); // EPA: depth, normal, witnesses
  double sd = gjk::signed_distance(a, pa, b, pb).signed_distance;
  bool near = gjk::closer_than(a, pa, b, pb, 0.05).closer;   // exits as soon as bounds decide
  // clang-format on
  // --- end of snippet ---

  std::printf("libgjk %s (compiled against %s)\n", gjk::version(), GJK_VERSION_STRING);
  std::printf("distance %.6f in [%.6f, %.6f], signed %.6f, depth %.6f, closer than 0.05: %s\n",
              d.distance, d.lower_bound, d.upper_bound, sd, p.depth, near ? "yes" : "no");
  // The box (half extents 0.1 x 0.2, turned 45 degrees about z, inflated by 0.01) is centred at
  // x = 1; the hull ends at x = 0.2. Its nearest corner in x is at 1 - (0.1 + 0.2) / sqrt(2) -
  // 0.01 = 0.7779, so the gap is about 0.578 (the hull's slanted face can only make it larger).
  const bool ok = d.status == gjk::Status::Converged && d.distance > 0.5 && d.distance < 0.6 &&
                  std::abs(sd - d.distance) < 1e-9 && !near;
  return ok ? 0 : 1;
}
