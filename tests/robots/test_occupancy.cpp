// OctoMap files and point clouds into occupied cells (issue 17 item 2). The maps are written by
// OctoMap itself (its own writer, a second path through the format); the expected cells come
// from the voxels the test inserted, not from the loader's iteration.
#include "gjk/robots/occupancy.hpp"

#include <gtest/gtest.h>
#include <octomap/OcTree.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <tuple>

namespace {

namespace fs = std::filesystem;
using gjk::Vec3;
using gjk::robots::OccupancyError;
using gjk::robots::OccupiedCells;

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("gjk_occupancy_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

double volume(const OccupiedCells& c) {
  double v = 0.0;
  for (double h : c.half_sizes) v += 8.0 * h * h * h;
  return v;
}

bool inside_some_cell(const OccupiedCells& c, const Vec3& p) {
  for (size_t i = 0; i < c.centres.size(); ++i)
    if (((p - c.centres[i]).cwiseAbs().array() <= c.half_sizes[i] * (1 + 1e-6)).all()) return true;
  return false;
}

/// Integer voxel indices at the resolution, for the cells the test inserts.
using Voxel = std::tuple<int, int, int>;

Vec3 voxel_centre(const Voxel& v, double res) {
  return Vec3((std::get<0>(v) + 0.5) * res, (std::get<1>(v) + 0.5) * res,
              (std::get<2>(v) + 0.5) * res);
}

/// A map with a solid, octree-aligned 4x4x4 block (prunes to one cell) and scattered voxels.
std::set<Voxel> sample_voxels() {
  std::set<Voxel> voxels;
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y)
      for (int z = 0; z < 4; ++z) voxels.insert({x, y, z});
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> coord(-40, 40);
  for (int i = 0; i < 300; ++i) voxels.insert({coord(rng), coord(rng), coord(rng)});
  return voxels;
}

void expect_cells_are_the_voxels(const OccupiedCells& cells, const std::set<Voxel>& voxels,
                                 double res) {
  EXPECT_NEAR(volume(cells), static_cast<double>(voxels.size()) * res * res * res, 1e-9);
  for (const Voxel& v : voxels) EXPECT_TRUE(inside_some_cell(cells, voxel_centre(v, res)));
  // The aligned block became one cell of edge 4 * res (OctoMap's pruning).
  double largest = 0.0;
  for (double h : cells.half_sizes) largest = std::max(largest, h);
  EXPECT_NEAR(largest, 2.0 * res, 1e-9);
}

octomap::OcTree make_tree(const std::set<Voxel>& voxels, double res) {
  octomap::OcTree tree(res);
  for (const Voxel& v : voxels) {
    const Vec3 c = voxel_centre(v, res);
    tree.updateNode(octomap::point3d(float(c.x()), float(c.y()), float(c.z())), true);
  }
  // A few free cells: in the .ot file they are nodes, but not obstacles.
  tree.updateNode(octomap::point3d(10.0f, 10.0f, 10.0f), false);
  tree.prune();
  return tree;
}

TEST(Occupancy, BinaryOctomapHoldsExactlyTheOccupiedVoxels) {
  TempDir tmp;
  const double res = 0.05;  // a power of two times 0.05 stays exact in OctoMap's float keys
  const auto voxels = sample_voxels();
  octomap::OcTree tree = make_tree(voxels, res);
  const std::string path = tmp.path("map.bt");
  ASSERT_TRUE(tree.writeBinary(path));
  const OccupiedCells cells = gjk::robots::load_octomap(path);
  EXPECT_DOUBLE_EQ(cells.resolution, res);
  expect_cells_are_the_voxels(cells, voxels, res);
  EXPECT_FALSE(inside_some_cell(cells, Vec3(10.01, 10.01, 10.01)));
}

TEST(Occupancy, FullOctomapHoldsExactlyTheOccupiedVoxels) {
  TempDir tmp;
  const double res = 0.1;
  const auto voxels = sample_voxels();
  octomap::OcTree tree = make_tree(voxels, res);
  const std::string path = tmp.path("map.ot");
  ASSERT_TRUE(tree.write(path));
  const OccupiedCells cells = gjk::robots::load_octomap(path);
  expect_cells_are_the_voxels(cells, voxels, res);
  EXPECT_FALSE(inside_some_cell(cells, Vec3(10.01, 10.01, 10.01)));
}

TEST(Occupancy, BadOctomapFilesNameTheProblem) {
  TempDir tmp;
  octomap::OcTree tree = make_tree(sample_voxels(), 0.05);
  const std::string good = tmp.path("good.bt");
  ASSERT_TRUE(tree.writeBinary(good));
  const std::string bytes = read_bytes(good);
  const std::string header_end = "data\n";
  const size_t data_at = bytes.find(header_end) + header_end.size();
  struct Case {
    std::string name, text, fragment;
  };
  const std::vector<Case> cases = {
      {"truncated.bt", bytes.substr(0, data_at + (bytes.size() - data_at) / 2),
       "truncated or corrupt"},
      {"nodata.bt", bytes.substr(0, data_at - header_end.size()), "no 'data' line"},
      {"text.bt", "hello\n", ":1: not an OctoMap .bt file"},
      {"color.bt", "# Octomap OcTree binary file\nid ColorOcTree\nsize 1\nres 0.1\ndata\n",
       "octree type 'ColorOcTree' is not supported"},
      {"res.bt", "# Octomap OcTree binary file\nid OcTree\nsize 1\nres -0.1\ndata\n",
       ":4: res: must be positive"},
      {"resnan.bt", "# Octomap OcTree binary file\nid OcTree\nsize 1\nres nan\ndata\n",
       ":4: res: expected a finite number, got 'nan'"},
      {"key.bt", "# Octomap OcTree binary file\nid OcTree\ncolour 3\n", ":3: unknown header key"},
      {"empty.bt", "# Octomap OcTree binary file\nid OcTree\nsize 0\nres 0.1\ndata\n",
       "no occupied cell"},
      {"map.vdb", "x", "expected a .bt or .ot file"},
  };
  for (const Case& c : cases) {
    const std::string path = tmp.write(c.name, c.text);
    try {
      gjk::robots::load_octomap(path);
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const OccupancyError& e) {
      EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos)
          << c.name << ": " << e.what();
    }
  }
  EXPECT_THROW(gjk::robots::load_octomap(tmp.path("missing.bt")), OccupancyError);
  fs::create_directories(tmp.path("dir.bt"));
  try {
    gjk::robots::load_octomap(tmp.path("dir.bt"));
    ADD_FAILURE();
  } catch (const OccupancyError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST(Occupancy, PointCloudFormatsReadTheSamePoints) {
  TempDir tmp;
  const std::vector<Vec3> expected = {{0.1, 0.2, 0.3}, {-1.5, 2.25, 1e-3}, {4, 5, 6}};
  const std::string xyz =
      tmp.write("cloud.xyz", "# x y z r g b\n0.1 0.2 0.3 255 0 0\n\n-1.5,2.25,1e-3\r\n4 5 6\n");
  const std::string pcd = tmp.write(
      "cloud.pcd",
      "# .PCD v0.7\nVERSION 0.7\nFIELDS y x z rgb\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\n"
      "WIDTH 3\nHEIGHT 1\nPOINTS 3\nDATA ascii\n0.2 0.1 0.3 0\n2.25 -1.5 1e-3 0\n5 4 6 0\n");
  const std::string ply = tmp.write("cloud.ply",
                                    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                                    "property float y\nproperty float z\nend_header\n"
                                    "0.1 0.2 0.3\n-1.5 2.25 1e-3\n4 5 6\n");
  for (const std::string& path : {xyz, pcd, ply}) {
    const auto points = gjk::robots::load_point_cloud(path);
    ASSERT_EQ(points.size(), expected.size()) << path;
    for (size_t i = 0; i < points.size(); ++i)
      EXPECT_LT((points[i] - expected[i]).norm(), 1e-6) << path << " point " << i;
  }
}

TEST(Occupancy, BadPointCloudsNameTheLine) {
  TempDir tmp;
  struct Case {
    std::string name, text, fragment;
  };
  const std::vector<Case> cases = {
      {"nan.xyz", "0 0 0\n1 nan 2\n", "nan.xyz:2: y: expected a finite number, got 'nan'"},
      {"short.xyz", "0 0 0\n1 2\n", "short.xyz:2: expected at least 3 numbers, got 2"},
      {"huge.xyz", "1e999 0 0\n", ":1: x: expected a finite number"},
      {"empty.xyz", "# nothing\n", "no points"},
      {"bin.pcd", "FIELDS x y z\nDATA binary\n", ":2: only 'DATA ascii'"},
      {"nofield.pcd", "FIELDS x y\nDATA ascii\n", ":1: FIELDS has no 'z' field"},
      {"cloud.las", "x", "unknown extension '.las'"},
  };
  for (const Case& c : cases) {
    const std::string path = tmp.write(c.name, c.text);
    try {
      gjk::robots::load_point_cloud(path);
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const OccupancyError& e) {
      EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos)
          << c.name << ": " << e.what();
    }
  }
}

TEST(Occupancy, VoxelisedCloudCoversEveryPointWithDisjointCells) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<Vec3> points;
  for (int i = 0; i < 2000; ++i) points.emplace_back(u(rng), u(rng), 0.2 * u(rng));
  const double res = 0.04;
  const OccupiedCells cells = gjk::robots::voxelize(points, res, "cloud");
  for (const Vec3& p : points) ASSERT_TRUE(inside_some_cell(cells, p)) << p.transpose();
  // Disjoint: the union's volume equals the sum of the cells' volumes, checked on a fine grid.
  for (size_t i = 0; i < cells.centres.size(); ++i)
    for (size_t j = i + 1; j < cells.centres.size(); ++j) {
      const Vec3 gap = (cells.centres[i] - cells.centres[j]).cwiseAbs().array() -
                       (cells.half_sizes[i] + cells.half_sizes[j]);
      ASSERT_GT(gap.maxCoeff(), -1e-9) << "cells " << i << " and " << j << " overlap";
    }
  // A dense aligned block of points becomes fewer, larger cells.
  std::vector<Vec3> block;
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 8; ++y)
      for (int z = 0; z < 8; ++z)
        block.emplace_back((x + 0.5) * res, (y + 0.5) * res, (z + 0.5) * res);
  const OccupiedCells pruned = gjk::robots::voxelize(block, res, "block");
  EXPECT_EQ(pruned.centres.size(), 1u);
  EXPECT_NEAR(pruned.half_sizes.at(0), 4.0 * res, 1e-9);

  EXPECT_THROW(gjk::robots::voxelize(points, 0.0, "cloud"), OccupancyError);
  try {
    gjk::robots::voxelize({Vec3(0, 0, 0), Vec3(1e6, 0, 0)}, 0.01, "far");
    ADD_FAILURE();
  } catch (const OccupancyError& e) {
    EXPECT_NE(std::string(e.what()).find("far: point 1 (1e+06, 0, 0) is outside"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
