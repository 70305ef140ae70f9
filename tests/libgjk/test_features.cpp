// Feature types at the witness points: the feature of each body that supports the separating
// plane, checked on contacts whose features are known by construction, for boxes and for the
// same boxes as hulls (both code paths), in random rigid placements of the pair.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "gjk/queries.hpp"

#include <random>

namespace {

using namespace gjk;

struct Placement {
  const char* name;
  Pose relative;  // B in A's frame
  Feature on_a, on_b;
};

TEST(Features, SupportingFeaturesOfBoxContacts) {
  const Vec3 h(0.5, 0.5, 0.5);
  const Shape boxes[2] = {Box{h}, ConvexPolytope::from_points(gjk::testing::box_corners(h))};
  std::vector<Placement> placements;
  Pose p = Pose::Identity();
  p.translation() = Vec3(0.2, 0.1, 1.5);  // face over face, offset
  placements.push_back({"face-face", p, Feature::Face, Feature::Face});
  p = Pose::Identity();
  // B's lowest corner straight below its centre: vertex of B on A's top face.
  p.linear() = Eigen::Quaterniond::FromTwoVectors(Vec3(-1, -1, -1).normalized(), -Vec3::UnitZ())
                   .toRotationMatrix();
  p.translation() = Vec3(0.1, -0.1, 0.5 + std::sqrt(0.75) + 0.3);
  placements.push_back({"face-vertex", p, Feature::Face, Feature::Vertex});
  p = Pose::Identity();
  p.linear() =
      Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()).toRotationMatrix();  // edge of B down, along x
  p.translation() = Vec3(0.3, 0.05, 0.5 + std::sqrt(0.5) + 0.2);
  placements.push_back({"face-edge", p, Feature::Face, Feature::Edge});
  // Crossed edges: A's edge along x at (x, 0.5, 0.5) supports n = (0,1,1)/sqrt2; B turned 90 deg
  // about n puts its own supporting edge (against n) along (0,1,-1), crossing A's above it.
  const Vec3 n = Vec3(0, 1, 1).normalized();
  p = Pose::Identity();
  p.linear() = Eigen::AngleAxisd(M_PI / 2, n).toRotationMatrix();
  p.translation() = n * (std::sqrt(2.0) + 0.25);
  placements.push_back({"edge-edge", p, Feature::Edge, Feature::Edge});

  std::mt19937_64 rng(11);
  for (const Placement& pl : placements) {
    SCOPED_TRACE(pl.name);
    for (int trial = 0; trial < 50; ++trial) {
      Pose world = Pose::Identity();
      world.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
      world.translation() = Vec3(std::uniform_real_distribution<double>(-2, 2)(rng), 0.3, -1.0);
      const Pose pa = world;
      const Pose pb = world * pl.relative;
      for (const Shape& a : boxes) {
        for (const Shape& b : boxes) {
          const DistanceResult d = distance(a, pa, b, pb);
          ASSERT_GT(d.distance, 0.1);
          EXPECT_EQ(d.feature_on_a, pl.on_a) << to_string(d.feature_on_a);
          EXPECT_EQ(d.feature_on_b, pl.on_b) << to_string(d.feature_on_b);
        }
      }
    }
  }
}

TEST(Features, RoundedAndCurvedBodies) {
  Pose pb = Pose::Identity();
  pb.translation() = Vec3(0, 0, 3);
  const DistanceResult spheres = distance(Sphere{1}, Pose::Identity(), Sphere{1}, pb);
  EXPECT_EQ(spheres.feature_on_a, Feature::Curved);
  const DistanceResult capped =
      distance(Cylinder{0.5, 1.0}, Pose::Identity(), Box{Vec3(1, 1, 0.2)}, pb);
  EXPECT_EQ(capped.feature_on_a, Feature::Face);  // cylinder cap under the box's bottom face
  EXPECT_EQ(capped.feature_on_b, Feature::Face);
  const DistanceResult rounded =
      distance(inflated(Box{Vec3(1, 1, 1)}, 0.1), Pose::Identity(), Sphere{0.5}, pb);
  EXPECT_EQ(rounded.feature_on_a, Feature::Face);  // inflated face stays flat
  pb.translation() = Vec3(3, 3, 3);
  const DistanceResult corner =
      distance(inflated(Box{Vec3(1, 1, 1)}, 0.1), Pose::Identity(), Sphere{0.5}, pb);
  EXPECT_EQ(corner.feature_on_a, Feature::Curved);  // rounded corner
}

}  // namespace
