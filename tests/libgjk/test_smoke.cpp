#include <gtest/gtest.h>

#include "datasets.hpp"
#include "gjk/gjk.hpp"
using namespace gjk;
TEST(Smoke, SpheresApart) {
  Pose pa = Pose::Identity(), pb = Pose::Identity();
  pb.translation() = Vec3(3, 0, 0);
  for (auto solver : gjk::testing::kSolvers) {
    QueryOptions o;
    o.solver = solver;
    auto d = distance(Sphere{1.0}, pa, Sphere{0.5}, pb, o);
    EXPECT_NEAR(d.distance, 1.5, 1e-12);
    auto bx = distance(Box{Vec3(1, 1, 1)}, pa, Box{Vec3(0.5, 0.5, 0.5)}, pb, o);
    EXPECT_NEAR(bx.distance, 1.5, 1e-12) << to_string(solver);
    pb.translation() = Vec3(1.2, 0.3, 0.1);
    auto p = penetration(Box{Vec3(1, 1, 1)}, pa, Box{Vec3(0.5, 0.5, 0.5)}, pb, o);
    EXPECT_TRUE(p.collision);
    EXPECT_NEAR(p.depth, 0.3, 1e-12);
    pb.translation() = Vec3(3, 0, 0);
  }
}
