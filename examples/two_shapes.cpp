// two_shapes: the smallest complete libgjk program.
//
// Builds a box and a convex polytope (a small pyramid: the hull of a few points), asks how far
// apart they are, then pushes them into each other and asks how deep they overlap.
//
//   ./two_shapes
#include <gjk/gjk.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

void print_vec(const char* label, const gjk::Vec3& v) {
  std::printf("  %-22s (%+.6f, %+.6f, %+.6f)\n", label, v.x(), v.y(), v.z());
}

}  // namespace

int main() {
  // Shape A: a box 2 x 1 x 1 (half extents 1, 0.5, 0.5), centred at the origin, not rotated.
  const gjk::Shape box = gjk::Box{gjk::Vec3(1.0, 0.5, 0.5)};
  const gjk::Pose box_pose = gjk::Pose::Identity();

  // Shape B: the convex hull of some points (qhull drops the interior point (0,0,0.1)).
  const gjk::Shape hull = gjk::ConvexPolytope::from_points(
      {{0.5, 0.0, 0.0}, {-0.3, 0.4, 0.0}, {-0.3, -0.4, 0.0}, {0.0, 0.0, 0.6}, {0.0, 0.0, 0.1}});
  // Placed at x = 3 and turned 90 degrees about z (angles about x, y, z as in seed 000 eq. 38).
  gjk::Pose hull_pose = gjk::pose_from_xyz(gjk::Vec3(3.0, 0.0, 0.0), gjk::Vec3(0.0, 0.0, M_PI / 2));

  // 1. Apart: distance, closest points (world frame) and the unit normal from A towards B.
  const gjk::DistanceResult d = gjk::distance(box, box_pose, hull, hull_pose);
  std::printf("Apart (hull at x = 3):\n");
  std::printf("  %-22s %.6f  (status: %s)\n", "distance", d.distance, gjk::to_string(d.status));
  print_vec("closest point on box", d.point_on_a);
  print_vec("closest point on hull", d.point_on_b);
  print_vec("normal (box -> hull)", d.normal);

  // 2. Overlapping: move the hull to x = 1.2; its nearest corner is now 0.2 inside the box.
  hull_pose.translation() = gjk::Vec3(1.2, 0.0, 0.0);
  const gjk::PenetrationResult p = gjk::penetration(box, box_pose, hull, hull_pose);
  std::printf("\nOverlapping (hull at x = 1.2): collision = %s\n", p.collision ? "yes" : "no");
  std::printf("  %-22s %.6f  (status: %s)\n", "penetration depth", p.depth,
              gjk::to_string(p.status));
  print_vec("normal (box -> hull)", p.normal);
  print_vec("deepest point of box", p.point_on_a);
  print_vec("deepest point of hull", p.point_on_b);
  std::printf("  (moving the hull by depth * normal makes the two just touch)\n");

  // 3. Signed distance: positive when apart, minus the depth when overlapping.
  const double sd = gjk::signed_distance(box, box_pose, hull, hull_pose).signed_distance;
  std::printf("  %-22s %.6f\n", "signed distance", sd);
  return 0;
}
