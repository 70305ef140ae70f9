// OctoMap files and point clouds into occupied octree cells (issue 17 item 2). OctoMap's own
// header readers print to stderr and accept inconsistent headers, so the header is parsed here
// (with file and line in every message) and only the node data goes to OctoMap's reader.
#include "gjk/robots/occupancy.hpp"

#include "gjk/robots/parse_number.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <octomap/OcTree.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace gjk::robots {
namespace {

namespace fs = std::filesystem;

std::string lowercase_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::ifstream open_or_throw(const std::string& path, const char* what) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw OccupancyError(std::string(what) + " '" + path + "' is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OccupancyError(std::string(what) + " '" + path + "': cannot open the file");
  return in;
}

/// Shortened for messages: a 100 MB token is not echoed whole.
std::string shown(std::string_view text) {
  constexpr size_t kMax = 40;
  return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() &&
           (line[i] == ' ' || line[i] == '\t' || line[i] == ',' || line[i] == '\r'))
      ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != ',' &&
           line[i] != '\r')
      ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

double finite_number(std::string_view text, const std::string& where, const char* field) {
  const ParsedNumber n = parse_double(text);
  if (n.status != NumberStatus::Ok || !std::isfinite(n.value))
    throw OccupancyError(where + ": " + field + ": expected a finite number, got '" + shown(text) +
                         "'");
  return n.value;
}

// --- OctoMap -------------------------------------------------------------------------------

struct OctomapHeader {
  std::string id;
  double resolution = 0.0;
  long long size = -1;
};

/// The header of a .bt/.ot file up to and including its "data" line.
OctomapHeader read_octomap_header(std::istream& in, const std::string& path, bool binary) {
  const std::string expected = binary ? "# Octomap OcTree binary file" : "# Octomap OcTree file";
  std::string line;
  int line_number = 1;
  if (!std::getline(in, line) || line.rfind(expected, 0) != 0)
    throw OccupancyError(path + ":1: not an OctoMap " + std::string(binary ? ".bt" : ".ot") +
                         " file (the first line must be '" + expected + "')");
  OctomapHeader header;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string where = path + ":" + std::to_string(line_number);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto fields = split_fields(line);
    if (fields.empty()) continue;
    if (fields[0] == "data") {
      if (header.id.empty()) throw OccupancyError(where + ": 'data' before the 'id' line");
      if (header.id != "OcTree")
        throw OccupancyError(path + ": octree type '" + shown(header.id) +
                             "' is not supported (only OcTree; convert ColorOcTree and others "
                             "with OctoMap's convert_octree)");
      if (!(header.resolution > 0.0))
        throw OccupancyError(where + ": 'data' before a positive 'res' line");
      if (header.size < 0) throw OccupancyError(where + ": 'data' before the 'size' line");
      return header;
    }
    if (fields.size() != 2)
      throw OccupancyError(where + ": expected 'KEY VALUE', got '" + shown(line) + "'");
    if (fields[0] == "id") {
      header.id = std::string(fields[1]);
    } else if (fields[0] == "res") {
      header.resolution = finite_number(fields[1], where, "res");
      if (!(header.resolution > 0.0))
        throw OccupancyError(where + ": res: must be positive, got " + std::string(fields[1]));
    } else if (fields[0] == "size") {
      const double size = finite_number(fields[1], where, "size");
      if (!(size >= 0.0) || size != std::floor(size) || size > 1e15)
        throw OccupancyError(where + ": size: expected a node count, got " +
                             std::string(fields[1]));
      header.size = static_cast<long long>(size);
    } else {
      throw OccupancyError(where + ": unknown header key '" + shown(fields[0]) + "'");
    }
  }
  throw OccupancyError(path + ": the header has no 'data' line (truncated file?)");
}

OccupiedCells cells_of(const octomap::OcTree& tree) {
  OccupiedCells cells;
  cells.resolution = tree.getResolution();
  for (auto it = tree.begin_leafs(), end = tree.end_leafs(); it != end; ++it) {
    if (!tree.isNodeOccupied(*it)) continue;
    // From the key in double precision (the iterator's coordinates are floats).
    const octomap::OcTreeKey key = it.getKey();
    const unsigned depth = it.getDepth();
    cells.centres.emplace_back(tree.keyToCoord(key[0], depth), tree.keyToCoord(key[1], depth),
                               tree.keyToCoord(key[2], depth));
    cells.half_sizes.push_back(0.5 * tree.getNodeSize(depth));
  }
  return cells;
}

}  // namespace

OccupiedCells load_octomap(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  if (ext != ".bt" && ext != ".ot")
    throw OccupancyError("octomap '" + path + "': expected a .bt or .ot file, got '" + ext + "'");
  const bool binary = ext == ".bt";
  std::ifstream in = open_or_throw(path, "octomap");
  const OctomapHeader header = read_octomap_header(in, path, binary);
  if (header.size == 0)
    throw OccupancyError(path + ": no occupied cell (an empty map is not an obstacle)");
  octomap::OcTree tree(header.resolution);
  if (binary)
    tree.readBinaryData(in);
  else
    tree.readData(in);
  // A truncated or padded body shows as a node count that differs from the header's.
  if (static_cast<long long>(tree.size()) != header.size)
    throw OccupancyError(path + ": the header announces " + std::to_string(header.size) +
                         " nodes, the data holds " + std::to_string(tree.size()) +
                         " (truncated or corrupt file)");
  OccupiedCells cells = cells_of(tree);
  if (cells.centres.empty())
    throw OccupancyError(path + ": no occupied cell (an empty map is not an obstacle)");
  return cells;
}

std::vector<Vec3> load_point_cloud(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  std::vector<Vec3> points;
  if (ext == ".ply") {
    std::ifstream probe = open_or_throw(path, "point cloud");
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFile(path, 0);
    if (scene == nullptr)
      throw OccupancyError("point cloud '" + path + "': cannot read (" + importer.GetErrorString() +
                           ")");
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
      const aiMesh* mesh = scene->mMeshes[m];
      for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
        const aiVector3D p = mesh->mVertices[v];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
          throw OccupancyError(path + ": vertex " + std::to_string(v) +
                               " has a non-finite coordinate");
        points.emplace_back(p.x, p.y, p.z);
      }
    }
  } else if (ext == ".xyz" || ext == ".txt" || ext == ".pts" || ext == ".pcd") {
    std::ifstream in = open_or_throw(path, "point cloud");
    const bool pcd = ext == ".pcd";
    int column[3] = {0, 1, 2};
    bool in_data = !pcd;
    std::string line;
    long line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      const std::string where = path + ":" + std::to_string(line_number);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const auto fields = split_fields(line);
      if (fields.empty() || fields[0].front() == '#') continue;
      if (!in_data) {  // PCD header (PCL's format, version 0.7)
        if (fields[0] == "FIELDS") {
          for (int axis = 0; axis < 3; ++axis) {
            const char* name = axis == 0 ? "x" : axis == 1 ? "y" : "z";
            const auto at = std::find(fields.begin() + 1, fields.end(), name);
            if (at == fields.end())
              throw OccupancyError(where + ": FIELDS has no '" + name + "' field");
            column[axis] = static_cast<int>(at - fields.begin()) - 1;
          }
        } else if (fields[0] == "DATA") {
          if (fields.size() < 2 || fields[1] != "ascii")
            throw OccupancyError(where + ": only 'DATA ascii' PCD files are read (got '" +
                                 shown(line) +
                                 "'; convert binary files with PCL's "
                                 "pcl_convert_pcd_ascii_binary)");
          in_data = true;
        }
        continue;
      }
      const int needed = std::max({column[0], column[1], column[2]}) + 1;
      if (static_cast<int>(fields.size()) < needed)
        throw OccupancyError(where + ": expected at least " + std::to_string(needed) +
                             " numbers, got " + std::to_string(fields.size()));
      Vec3 p;
      for (int axis = 0; axis < 3; ++axis) {
        const char* name = axis == 0 ? "x" : axis == 1 ? "y" : "z";
        p[axis] = finite_number(fields[static_cast<size_t>(column[axis])], where, name);
      }
      points.push_back(p);
    }
    if (pcd && !in_data) throw OccupancyError(path + ": no 'DATA' line (not a PCD file?)");
  } else {
    throw OccupancyError("point cloud '" + path + "': unknown extension '" + ext +
                         "' (expected .xyz, .txt, .pts, .pcd or .ply)");
  }
  if (points.empty()) throw OccupancyError(path + ": no points");
  return points;
}

OccupiedCells voxelize(const std::vector<Vec3>& points, double resolution,
                       const std::string& name) {
  if (!(resolution > 0.0) || !std::isfinite(resolution))
    throw OccupancyError(name + ": resolution must be a positive number, got " +
                         std::to_string(resolution));
  if (points.empty()) throw OccupancyError(name + ": no points");
  octomap::OcTree tree(resolution);
  for (size_t i = 0; i < points.size(); ++i) {
    const Vec3& p = points[i];
    octomap::OcTreeKey key;
    if (!p.allFinite() || !tree.coordToKeyChecked(
                              octomap::point3d(static_cast<float>(p.x()), static_cast<float>(p.y()),
                                               static_cast<float>(p.z())),
                              key)) {
      std::ostringstream msg;
      msg << name << ": point " << i << " (" << p.x() << ", " << p.y() << ", " << p.z()
          << ") is outside the octree's range of +-" << 32768.0 * resolution << " m at resolution "
          << resolution << " m";
      throw OccupancyError(msg.str());
    }
    tree.updateNode(key, true, true);  // lazy: inner nodes are updated once, below
  }
  tree.updateInnerOccupancy();
  tree.prune();
  return cells_of(tree);
}

}  // namespace gjk::robots
