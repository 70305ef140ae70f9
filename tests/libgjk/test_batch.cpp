// Batch queries give exactly the single-pair answers, in order, on any number of threads.
#include <gtest/gtest.h>

#include "gjk/batch.hpp"

#include <random>

namespace {

using namespace gjk;

std::vector<Shape> make_shapes(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Shape> shapes;
  for (int i = 0; i < 20; ++i) {
    std::vector<Vec3> pts;
    const int n = 4 + i * 10;
    for (int k = 0; k < n; ++k) pts.emplace_back(u(rng), u(rng), u(rng));
    shapes.emplace_back(ConvexPolytope::from_points(pts));
  }
  shapes.emplace_back(Sphere{0.5});
  shapes.emplace_back(Box{Vec3(0.3, 0.4, 0.5)});
  shapes.emplace_back(Capsule{0.2, 0.6});
  shapes.emplace_back(Cylinder{0.3, 0.5});
  return shapes;
}

TEST(Batch, MatchesSingleQueriesOnAnyThreadCount) {
  std::mt19937_64 rng(99);
  const std::vector<Shape> shapes = make_shapes(rng);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::uniform_int_distribution<size_t> pick(0, shapes.size() - 1);
  std::vector<PairQuery> pairs;
  for (int i = 0; i < 3000; ++i) {
    PairQuery q;
    q.a = &shapes[pick(rng)];
    q.b = &shapes[pick(rng)];
    q.pose_a.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    q.pose_b.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    q.pose_b.translation() = Vec3(u(rng), u(rng), u(rng));
    pairs.push_back(q);
  }
  for (unsigned threads : {1u, 2u, 4u, 0u}) {
    const auto d = distance_batch(pairs, {}, threads);
    const auto s = signed_distance_batch(pairs, {}, threads);
    const auto c = collide_batch(pairs, {}, threads);
    ASSERT_EQ(d.size(), pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
      const PairQuery& q = pairs[i];
      const DistanceResult one = distance(*q.a, q.pose_a, *q.b, q.pose_b);
      EXPECT_EQ(d[i].distance, one.distance) << i;
      EXPECT_EQ(d[i].point_on_a, one.point_on_a) << i;
      EXPECT_EQ(s[i].signed_distance,
                signed_distance(*q.a, q.pose_a, *q.b, q.pose_b).signed_distance)
          << i;
      EXPECT_EQ(c[i].collision, collide(*q.a, q.pose_a, *q.b, q.pose_b).collision) << i;
    }
  }
}

TEST(Batch, RejectsNullShapesNamingThePair) {
  const Shape sphere = Sphere{1.0};
  std::vector<PairQuery> pairs(3);
  for (auto& p : pairs) p.a = p.b = &sphere;
  pairs[2].b = nullptr;
  try {
    distance_batch(pairs);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pair 2"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(distance_batch({}).empty());
}

}  // namespace
