// The broadphase (issue 17 item 8) against brute force: shape boxes against dense surface
// samples and polytope vertices, tree queries and nearest-first searches against loops over
// every box, through builds, inserts and removals.
#include <gtest/gtest.h>

#include "datasets.hpp"

#include "gjk/broadphase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

namespace {

using gjk::Aabb;
using gjk::AabbTree;
using gjk::Pose;
using gjk::Shape;
using gjk::Vec3;
using namespace gjk::testing;

/// Points of the shape's surface in its frame: dense for the curved ones, the vertices (exact)
/// for boxes and hulls.
std::vector<Vec3> surface_samples(const Shape& shape, Rng& rng) {
  std::vector<Vec3> out;
  std::visit(
      [&](const auto& g) {
        using G = std::decay_t<decltype(g)>;
        if constexpr (std::is_same_v<G, gjk::Sphere>) {
          for (int i = 0; i < 4000; ++i) out.push_back(g.radius * rng.unit_vector());
        } else if constexpr (std::is_same_v<G, gjk::Box>) {
          for (int i = 0; i < 8; ++i)
            out.emplace_back(i & 1 ? g.half_extents.x() : -g.half_extents.x(),
                             i & 2 ? g.half_extents.y() : -g.half_extents.y(),
                             i & 4 ? g.half_extents.z() : -g.half_extents.z());
        } else if constexpr (std::is_same_v<G, gjk::Capsule>) {
          for (int i = 0; i < 4000; ++i)
            out.push_back(g.radius * rng.unit_vector() +
                          Vec3(0, 0, i % 2 ? g.half_length : -g.half_length));
        } else if constexpr (std::is_same_v<G, gjk::Cylinder>) {
          for (int i = 0; i < 4000; ++i) {
            const double a = rng.uniform(0, 2 * M_PI);
            out.emplace_back(g.radius * std::cos(a), g.radius * std::sin(a),
                             i % 2 ? g.half_length : -g.half_length);
          }
        } else {
          out = g.vertices();
        }
      },
      shape.geometry);
  return out;
}

TEST(Broadphase, BoundingBoxIsTheTightBoxOfTheShape) {
  Rng rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const bool curved = trial % 5 == 0 || trial % 5 == 2 || trial % 5 == 3;
    const auto make = [&]() -> Shape {
      switch (trial % 5) {
        case 0:
          return gjk::Sphere{rng.uniform(0.1, 1)};
        case 1:
          return gjk::Box{Vec3(rng.uniform(0.1, 1), rng.uniform(0.1, 1), rng.uniform(0.1, 1))};
        case 2:
          return gjk::Capsule{rng.uniform(0.1, 1), rng.uniform(0.1, 1)};
        case 3:
          return gjk::Cylinder{rng.uniform(0.1, 1), rng.uniform(0.1, 1)};
        default:
          return gjk::ConvexPolytope::from_points(random_polytope_points(rng, 30));
      }
    };
    const Shape shape = make();
    const Pose pose = random_pose(rng, 3.0);
    const Aabb box = gjk::bounding_box(shape, pose);
    Aabb sampled;
    sampled.setEmpty();
    for (const Vec3& p : surface_samples(shape, rng)) sampled.extend(pose * p);
    // Contains every sample; tight to the vertices exactly, to the curved samples within their
    // sampling density.
    const double slack = curved ? 0.05 : 1e-12;
    EXPECT_TRUE((box.min().array() <= sampled.min().array() + 1e-12).all()) << trial;
    EXPECT_TRUE((box.max().array() >= sampled.max().array() - 1e-12).all()) << trial;
    EXPECT_LT((box.min() - sampled.min()).cwiseAbs().maxCoeff(), slack) << trial;
    EXPECT_LT((box.max() - sampled.max()).cwiseAbs().maxCoeff(), slack) << trial;
    // Inflation grows every side by the radius.
    const Aabb fat = gjk::bounding_box(gjk::inflated(shape, 0.25), pose);
    EXPECT_NEAR((fat.min() - box.min()).maxCoeff(), -0.25, 1e-12);
    EXPECT_NEAR((fat.max() - box.max()).minCoeff(), 0.25, 1e-12);
  }
}

TEST(Broadphase, HintedBoundingBoxEqualsTheScannedOneAlongAPathAndFromAnyHints) {
  Rng rng(12);
  const Shape hull = gjk::ConvexPolytope::from_points(random_polytope_points(rng, 200));
  std::array<int, 6> hints{};
  Pose pose = random_pose(rng, 1.0);
  for (int step = 0; step < 2000; ++step) {
    if (step % 100 == 0) {
      pose = random_pose(rng, 1.0);                       // a jump: the hints are stale
      for (int& h : hints) h = rng.uniform_int(-5, 500);  // even out of range
    } else {                                              // a small motion
      pose.linear() = pose.linear() * Eigen::AngleAxisd(0.02, rng.unit_vector()).toRotationMatrix();
      pose.translation() += 0.01 * rng.unit_vector();
    }
    const Aabb scanned = gjk::bounding_box(hull, pose);
    const Aabb climbed = gjk::bounding_box(hull, pose, hints);
    ASSERT_EQ(scanned.min(), climbed.min()) << step;
    ASSERT_EQ(scanned.max(), climbed.max()) << step;
  }
}

TEST(Broadphase, HullBoxesEqualTheVerticesExtremesAtIdentityAndTurnedPoses) {
  // The identity rotation reads the box kept at construction (ConvexPolytope::local_bounds), a
  // turned one takes all six extremes in one pass: both must equal, bit for bit, the extremes
  // of each row of the rotation dotted with every vertex, and the hinted (climbing) box.
  Rng rng(13);
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<Vec3> points;
    switch (trial % 6) {
      case 0:  // flat: a polygon in a random plane
        for (const Vec3& p : random_polytope_points(rng, 4 + trial % 40))
          points.emplace_back(p.x(), p.y(), 0.0);
        break;
      case 1:  // a segment and a point
        points = {rng.unit_vector(), -rng.unit_vector()};
        if (trial % 12 == 1) points.resize(1);
        break;
      case 2:  // ties: a cube's corners, every extreme shared by four vertices
        for (int i = 0; i < 8; ++i)
          points.emplace_back(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
        break;
      default:
        points = random_polytope_points(rng, 4 + trial % 300);
        for (Vec3& p : points) p *= std::pow(10.0, rng.uniform(-6, 6));
    }
    const gjk::ConvexPolytope hull = gjk::ConvexPolytope::from_points(points);
    Vec3 lower = Vec3::Constant(std::numeric_limits<double>::infinity()), upper = -lower;
    for (const Vec3& v : hull.vertices()) {
      lower = lower.cwiseMin(v);
      upper = upper.cwiseMax(v);
    }
    const auto [kept_lower, kept_upper] = hull.local_bounds();
    ASSERT_EQ(kept_lower, lower) << trial;
    ASSERT_EQ(kept_upper, upper) << trial;
    for (const bool turned : {false, true}) {
      Pose pose = random_pose(rng, 3.0);
      if (!turned) pose.linear().setIdentity();
      Vec3 reference_lower, reference_upper;
      for (int k = 0; k < 3; ++k) {
        const Vec3 row = pose.linear().row(k).transpose();
        reference_lower[k] = std::numeric_limits<double>::infinity();
        reference_upper[k] = -reference_lower[k];
        for (const Vec3& v : hull.vertices()) {
          reference_lower[k] = std::min(reference_lower[k], row.dot(v));
          reference_upper[k] = std::max(reference_upper[k], row.dot(v));
        }
      }
      const Aabb box = gjk::bounding_box(hull, pose);
      ASSERT_EQ(box.min(), reference_lower + pose.translation()) << trial << " " << turned;
      ASSERT_EQ(box.max(), reference_upper + pose.translation()) << trial << " " << turned;
      std::array<int, 6> hints{};
      hints.fill(-1);
      const Aabb climbed = gjk::bounding_box(hull, pose, hints);
      ASSERT_EQ(box.min(), climbed.min()) << trial << " " << turned;
      ASSERT_EQ(box.max(), climbed.max()) << trial << " " << turned;
    }
  }
}

TEST(Broadphase, BoxDistanceIsTheGapBetweenBoxes) {
  const Aabb a(Vec3(0, 0, 0), Vec3(1, 1, 1));
  EXPECT_EQ(gjk::distance(a, Aabb(Vec3(0.5, 0.5, 0.5), Vec3(2, 2, 2))), 0.0);
  EXPECT_EQ(gjk::distance(a, Aabb(Vec3(1, 0, 0), Vec3(2, 1, 1))), 0.0);  // touching
  EXPECT_NEAR(gjk::distance(a, Aabb(Vec3(4, 5, 0), Vec3(5, 6, 1))), 5.0, 1e-15);
}

Aabb random_box(Rng& rng, double extent) {
  const Vec3 c(rng.uniform(-extent, extent), rng.uniform(-extent, extent),
               rng.uniform(-extent, extent));
  const Vec3 h(rng.log_uniform(0.01, 1), rng.log_uniform(0.01, 1), rng.log_uniform(0.01, 1));
  return Aabb(c - h, c + h);
}

void expect_tree_matches(const AabbTree& tree, const std::vector<std::pair<Aabb, int>>& live,
                         Rng& rng) {
  // The height kept in the nodes equals the deepest leaf found by walking up from every leaf.
  int deepest = -1;
  tree.for_each_leaf([&](int, int leaf) { deepest = std::max(deepest, tree.depth(leaf)); });
  ASSERT_EQ(tree.height(), deepest);
  for (int q = 0; q < 50; ++q) {
    const Aabb probe = random_box(rng, 10);
    std::multiset<int> expected, got;
    for (const auto& [b, id] : live)
      if (b.intersects(probe)) expected.insert(id);
    tree.query(probe, [&](int id) {
      got.insert(id);
      return true;
    });
    ASSERT_EQ(got, expected);
    // Nearest: the callback's "distance" of a leaf is its box gap plus a per-id offset, so the
    // minimum is not simply the nearest box and pruning must use the returned bound.
    const auto cost = [](int id, double gap) { return gap + 0.01 * (id % 7); };
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [b, id] : live) best = std::min(best, cost(id, gjk::distance(b, probe)));
    double found = std::numeric_limits<double>::infinity();
    tree.nearest(probe, found, [&](int id, double gap) {
      found = std::min(found, cost(id, gap));
      return found;
    });
    ASSERT_EQ(found, best);
  }
}

TEST(Broadphase, TreeQueriesEqualBruteForceThroughBuildsInsertsAndRemovals) {
  Rng rng(5);
  for (const int count : {1, 2, 10, 100, 2000}) {
    std::vector<std::pair<Aabb, int>> boxes;
    for (int i = 0; i < count; ++i) boxes.emplace_back(random_box(rng, 10), i);
    AabbTree built;
    built.build(boxes);
    EXPECT_EQ(built.size(), count);
    EXPECT_LE(built.height(), static_cast<int>(std::ceil(std::log2(count))) + 1);
    expect_tree_matches(built, boxes, rng);

    AabbTree grown;
    std::vector<int> handles;
    for (const auto& [b, id] : boxes) handles.push_back(grown.insert(b, id));
    expect_tree_matches(grown, boxes, rng);
    // Remove every third box (and insert new ones), then compare again.
    std::vector<std::pair<Aabb, int>> live;
    for (size_t i = 0; i < boxes.size(); ++i) {
      if (i % 3 == 0) {
        grown.remove(handles[i]);
      } else {
        live.push_back(boxes[i]);
      }
    }
    for (int k = 0; k < count / 4; ++k) {
      const Aabb b = random_box(rng, 10);
      grown.insert(b, count + k);
      live.emplace_back(b, count + k);
    }
    EXPECT_EQ(grown.size(), static_cast<int>(live.size()));
    expect_tree_matches(grown, live, rng);
  }
}

// move(): a built tree whose leaves move (small steps and jumps, many times each), found by
// for_each_leaf, answers as brute force over the current boxes and keeps its depth usable.
TEST(Broadphase, MovedLeavesKeepQueriesExact) {
  Rng rng(9);
  for (const int count : {1, 3, 50, 1000}) {
    std::vector<std::pair<Aabb, int>> boxes;
    for (int i = 0; i < count; ++i) boxes.emplace_back(random_box(rng, 10), i);
    AabbTree tree;
    tree.build(boxes);
    std::vector<int> leaf(static_cast<size_t>(count), -1);
    tree.for_each_leaf([&](int id, int handle) { leaf[static_cast<size_t>(id)] = handle; });
    for (int handle : leaf) ASSERT_GE(handle, 0);
    for (int step = 0; step < 20 * count; ++step) {
      const auto i = static_cast<size_t>(rng.uniform(0, count - 1e-9));
      Aabb& b = boxes[i].first;
      if (step % 5 == 0) {
        b = random_box(rng, 10);  // a jump
      } else {
        const Vec3 d(rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2));
        b = Aabb(b.min() + d, b.max() + d);
      }
      leaf[i] = tree.move(leaf[i], b);
      ASSERT_GE(leaf[i], 0);
    }
    EXPECT_EQ(tree.size(), count);
    EXPECT_EQ(tree.move(-1, boxes[0].first), -1);  // not a leaf
    EXPECT_LE(tree.height(), 4 * static_cast<int>(std::ceil(std::log2(count + 1))) + 2) << count;
    expect_tree_matches(tree, boxes, rng);
    int listed = 0;
    tree.for_each_leaf([&](int id, int handle) {
      EXPECT_EQ(leaf[static_cast<size_t>(id)], handle);
      ++listed;
    });
    EXPECT_EQ(listed, count);
    // relabel(): new ids for every leaf (a caller that renumbered its objects), same boxes.
    tree.for_each_leaf([&](int id, int handle) { ASSERT_TRUE(tree.relabel(handle, 3 * id + 1)); });
    for (auto& [b, id] : boxes) id = 3 * id + 1;
    expect_tree_matches(tree, boxes, rng);
    EXPECT_FALSE(tree.relabel(-1, 0));
  }
}

TEST(Broadphase, SortedInsertionStaysShallowAndExact) {
  // Boxes inserted in sorted order along a line, the worst order for the insertion's greedy
  // descent alone (62 levels for 10,000 boxes without rotations): the rotations keep the tree
  // within twice a balanced tree's depth, and queries stay exact.
  Rng rng(8);
  AabbTree tree;
  std::vector<std::pair<Aabb, int>> live;
  for (int i = 0; i < 5000; ++i) {
    const Aabb b(Vec3(i, 0, 0), Vec3(i + 0.5, 0.5, 0.5));
    tree.insert(b, i);
    live.emplace_back(b, i);
    ASSERT_LE(tree.height(), 2 * static_cast<int>(std::ceil(std::log2(i + 1))) + 1) << i;
  }
  expect_tree_matches(tree, live, rng);
  Aabb probe(Vec3(2500.2, 0, 0), Vec3(2500.3, 1, 1));
  int hits = 0;
  tree.query(probe, [&](int id) {
    EXPECT_EQ(id, 2500);
    ++hits;
    return true;
  });
  EXPECT_EQ(hits, 1);
}

TEST(Broadphase, NestedInsertionMakesAChainThatStillAnswersExactly) {
  // Each box holds every earlier one: every insertion stops at the root and no rotation shrinks
  // a box, so the tree is a chain (what the collision world's depth check rebuilds). Queries
  // deeper than the traversal's fixed stack must still be exact.
  Rng rng(12);
  AabbTree tree;
  std::vector<std::pair<Aabb, int>> live;
  for (int i = 0; i < 300; ++i) {
    const double h = 0.01 * (i + 1);
    const Aabb b(Vec3(-h, -h, -h), Vec3(h, h, h));
    tree.insert(b, i);
    live.emplace_back(b, i);
  }
  EXPECT_EQ(tree.height(), 299);
  expect_tree_matches(tree, live, rng);
}

}  // namespace
