// No heap allocation inside a query: every operator new in this binary is counted, and the
// queries run between two readings of the counter.
#include <gtest/gtest.h>

#include "datasets.hpp"
#include "gjk/planar.hpp"
#include "gjk/queries.hpp"
#include "replaced_operator_new.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations{0};
}

bool test_allocation_allowed() {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return true;
}

namespace {

using namespace gjk;

TEST(Allocation, QueriesDoNotAllocate) {
  gjk::testing::Rng rng(0xa110c);
  std::vector<Shape> shapes;
  for (int n : {4, 12, 40, 200, 600}) {
    shapes.emplace_back(ConvexPolytope::from_points(gjk::testing::random_polytope_points(rng, n)));
  }
  shapes.emplace_back(Sphere{0.4});
  shapes.emplace_back(Box{Vec3(0.3, 0.5, 0.2)});
  shapes.emplace_back(Capsule{0.2, 0.5});
  shapes.emplace_back(Cylinder{0.3, 0.4});
  shapes.emplace_back(inflated(Box{Vec3(0.3, 0.5, 0.2)}, 0.05));
  std::vector<std::pair<Pose, Pose>> poses;
  for (int i = 0; i < 200; ++i)
    poses.emplace_back(gjk::testing::random_pose(rng, 1.5), gjk::testing::random_pose(rng, 1.5));

  // One round first: EPA keeps a per-thread workspace that is allocated on its first use, and
  // the caches' tracked polytopes grow to their largest size.
  WarmStart cache, penetration_cache;
  auto run = [&](double& sink) {
    for (const Shape& a : shapes) {
      for (const Shape& b : shapes) {
        cache.reset();  // keeps the storage
        penetration_cache.reset();
        for (const auto& [pa, pb] : poses) {
          for (SupportMethod m : {SupportMethod::BruteForce, SupportMethod::HillClimbing}) {
            QueryOptions o;
            o.support = m;
            sink += distance(a, pa, b, pb, o).distance;
            sink += collide(a, pa, b, pb, o).collision;
            sink += closer_than(a, pa, b, pb, 0.1, o).closer;
            sink += signed_distance(a, pa, b, pb, o).signed_distance;
            sink += penetration(a, pa, b, pb, o).depth;
            sink += distance(a, pa, b, pb, o, cache).distance;
            sink += penetration(a, pa, b, pb, o, penetration_cache).depth;
            sink += signed_distance(a, pa, b, pb, o, penetration_cache).signed_distance;
          }
        }
      }
    }
  };
  double sink = 0.0;
  run(sink);
  const long before = g_allocations.load();
  run(sink);
  const long after = g_allocations.load();
  EXPECT_EQ(after - before, 0) << "heap allocations during "
                               << 2 * 8 * poses.size() * shapes.size() * shapes.size()
                               << " queries (sink " << sink << ")";

  const auto square = planar::ConvexPolygon::from_points({{0, 0}, {1, 0}, {1, 1}, {0, 1}});
  const long before2 = g_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    const auto pb = planar::make_pose(planar::Vec2(0.5 + 0.002 * i, 0.3), 0.01 * i);
    sink += planar::distance(square, planar::Pose2::Identity(), square, pb).distance;
    sink += planar::collide(square, planar::Pose2::Identity(), square, pb).collision;
  }
  EXPECT_EQ(g_allocations.load() - before2, 0);
}

}  // namespace
