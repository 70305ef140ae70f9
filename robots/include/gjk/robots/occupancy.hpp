// Occupancy obstacles: OctoMap files and point clouds, read into the occupied cells of an octree
// (axis-aligned cubes of the octree's own sizes: a pruned octree keeps large free-of-detail
// blocks as single cells). The engine takes the cells as plain boxes (gjk::BoxSet); file formats
// stay here, in the robots layer.
#pragma once

#include "gjk/shapes.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::robots {

/// An occupancy file or point cloud that cannot be used; what() names the file, the line or
/// record, and the value.
class OccupancyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Occupied cells of an octree: cube i is centred at centres[i] with half size half_sizes[i].
struct OccupiedCells {
  std::vector<Vec3> centres;       ///< in the file's frame
  std::vector<double> half_sizes;  ///< > 0; a multiple of resolution / 2 by a power of two
  double resolution = 0.0;         ///< edge of the smallest cell
};

/// Reads an OctoMap file: `.bt` (binary, occupied/free bits) or `.ot` (full, with
/// probabilities; a node is occupied above the tree's own occupancy threshold). Only the `OcTree`
/// type is read (ColorOcTree and others are named in the error). Throws OccupancyError.
OccupiedCells load_octomap(const std::string& path);

/// Reads a point cloud: `.xyz`/`.txt`/`.pts` (three numbers per line, `#` comments; extra
/// columns such as colours are ignored), `.pcd` (ASCII PCD with x y z fields) or `.ply` (ASCII or
/// binary, through assimp). A row with a NaN, an infinity or too few numbers is an error naming
/// the line. Throws OccupancyError.
std::vector<Vec3> load_point_cloud(const std::string& path);

/// Voxelises points into an octree of the given resolution (OctoMap: every point's cell occupied,
/// then pruned so that 8 occupied siblings become one cell). `name` is used in messages.
/// Throws OccupancyError for a resolution that is not positive and finite, or a point outside
/// the octree's range (+-32768 cells).
OccupiedCells voxelize(const std::vector<Vec3>& points, double resolution,
                       const std::string& name = "<points>");

}  // namespace gjk::robots
