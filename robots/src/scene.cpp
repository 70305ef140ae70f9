// Scene loading (format: robots/scenes/README.md). Every problem becomes a SceneError naming the
// file, the 1-based line and the field path; no input makes the loader crash or return garbage.
#include "gjk/robots/scene.hpp"
#include "gjk/robots/parse_number.hpp"

#include "gjk/gjk_epa.hpp"
#include "gjk/robots/mesh_loader.hpp"
#include "gjk/robots/occupancy.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::robots {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kCommonKeys = {"name",         "type", "inflation", "position",
                                              "rotation_xyz", "rpy",  "quaternion"};
const std::map<std::string, std::vector<std::string>> kTypeKeys = {
    {"box", {"half_extents"}},
    {"sphere", {"radius"}},
    {"capsule", {"radius", "half_length"}},
    {"cylinder", {"radius", "half_length"}},
    {"pyramid", {"base", "apex"}},
    {"convex", {"points"}},
    {"mesh", {"file", "scale", "representation"}},
    {"octomap", {"file"}},
    {"point_cloud", {"file", "resolution"}},
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

/// What a node is, for "expected X, got Y" messages.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar: {
      std::string text = node.Scalar();
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      return "'" + text + "'";
    }
  }
  return "something else";
}

class Parser {
 public:
  Parser(std::string name, std::string base_dir)
      : name_(std::move(name)), base_dir_(std::move(base_dir)) {}

  Scene parse(const std::string& text) {
    // The document structure is checked with the event parser first: yaml-cpp 0.7's LoadAll()
    // loops forever, allocating, on a stray ',' at block level (jbeder/yaml-cpp#1040; fixed
    // upstream by PR #1319). The parser then reports document after document starting at the
    // same token, which is how it is recognised here; YAML::Load reads one document only.
    YAML::Node root;
    try {
      check_documents(text);
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {  // ParserException and the rest, with their mark
      fail(e.mark, "", "YAML syntax error: " + e.msg);
    }
    if (root.IsNull()) {
      fail(YAML::Mark(), "", "empty scene: expected a map with an 'obstacles' list");
    }
    if (!root.IsMap()) {
      fail(root.Mark(), "", "expected a map with an 'obstacles' list, got " + describe(root));
    }
    check_keys(root, "", {"obstacles", "attached"});
    const YAML::Node list = root["obstacles"];
    if (!list) fail(root.Mark(), "obstacles", "missing (use 'obstacles: []' for an empty scene)");
    if (!list.IsSequence()) {
      fail(mark(list, root), "obstacles", "expected a list of obstacles, got " + describe(list));
    }
    Scene scene;
    std::map<std::string, int> first_line;  // obstacle name -> line where it was defined
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = "obstacles[" + std::to_string(i) + "]";
      std::vector<Obstacle> parts = obstacle(list[i], list, path);
      const YAML::Node name_node = list[i]["name"];
      const auto [it, inserted] =
          first_line.emplace(parts.front().object, mark(name_node, list[i]).line + 1);
      if (!inserted) {
        fail(mark(name_node, list[i]), path + ".name",
             "duplicate obstacle name '" + parts.front().object + "' (first used on line " +
                 std::to_string(it->second) + ")");
      }
      for (Obstacle& part : parts) scene.obstacles.push_back(std::move(part));
    }
    if (const YAML::Node held = root["attached"]) {
      if (!held.IsSequence())
        fail(mark(held, root), "attached", "expected a list of objects, got " + describe(held));
      for (std::size_t i = 0; i < held.size(); ++i) {
        const std::string path = "attached[" + std::to_string(i) + "]";
        const YAML::Node node = held[i];
        std::vector<Obstacle> parts = obstacle(node, held, path, true);
        AttachedObject object;
        object.name = parts.front().object;
        if (first_line.count(object.name) != 0)
          fail(mark(node["name"], node), path + ".name",
               "'" + object.name + "' is also the name of an obstacle (first used on line " +
                   std::to_string(first_line[object.name]) + ")");
        first_line.emplace(object.name, mark(node["name"], node).line + 1);
        const YAML::Node link = node["link"];
        if (!link) fail(node.Mark(), path + ".link", "missing (the link that holds the object)");
        if (!link.IsScalar() || link.Scalar().empty())
          fail(mark(link, node), path + ".link", "expected a link name, got " + describe(link));
        object.link = link.Scalar();
        if (const YAML::Node touch = node["touch_links"]) {
          if (!touch.IsSequence())
            fail(mark(touch, node), path + ".touch_links",
                 "expected a list of link names, got " + describe(touch));
          for (std::size_t k = 0; k < touch.size(); ++k) {
            if (!touch[k].IsScalar() || touch[k].Scalar().empty())
              fail(mark(touch[k], touch), path + ".touch_links[" + std::to_string(k) + "]",
                   "expected a link name, got " + describe(touch[k]));
            object.touch_links.push_back(touch[k].Scalar());
          }
        }
        for (Obstacle& part : parts) {
          if (part.kind() == ObstacleKind::Cells)
            fail(node.Mark(), path + ".type",
                 "an attached object must be a primitive, a hull, convex pieces or an exact "
                 "mesh, not an occupancy map or a point cloud");
          if (part.kind() == ObstacleKind::Mesh)
            object.add_mesh(std::move(part.mesh), part.pose);
          else
            object.add_shape(std::move(part.shape), part.pose);
        }
        scene.attached.push_back(std::move(object));
      }
    }
    return scene;
  }

 private:
  /// Records where each document starts; ignores everything else.
  struct DocumentStarts : YAML::EventHandler {
    std::vector<YAML::Mark> starts;
    void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  };

  /// Fails unless `text` holds at most one YAML document. Reads at most two documents.
  void check_documents(const std::string& text) const {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts handler;
    while (handler.starts.size() < 2 && parser.HandleNextDocument(handler)) {
    }
    if (handler.starts.size() < 2) return;
    const YAML::Mark& first = handler.starts[0];
    const YAML::Mark& second = handler.starts[1];
    // A real second document starts with "---". Anything else is a token the parser could not
    // use; it then reports an empty document at that token again and again.
    const std::size_t at = static_cast<std::size_t>(std::max(0, second.pos));
    if (second.pos == first.pos || text.compare(at, 3, "---") != 0) {
      const std::string token = at < text.size() ? std::string(1, text[at]) : "end of input";
      fail(second, "", "YAML syntax error: unexpected '" + token + "'");
    }
    fail(second, "", "expected one YAML document, found another one here");
  }

  [[noreturn]] void fail(const YAML::Mark& at, const std::string& path,
                         const std::string& message) const {
    std::string text = name_ + ":" + std::to_string(at.line >= 0 ? at.line + 1 : 1) + ": ";
    if (!path.empty()) text += path + ": ";
    throw SceneError(text + message);
  }

  /// The node's position, or its parent's when the node has none (missing or synthesised).
  static YAML::Mark mark(const YAML::Node& node, const YAML::Node& parent) {
    if (node && node.Mark().line >= 0) return node.Mark();
    return parent.Mark();
  }

  /// Rejects keys outside `allowed`, non-scalar keys and repeated keys.
  void check_keys(const YAML::Node& map, const std::string& path,
                  const std::vector<std::string>& allowed) const {
    std::set<std::string> seen;
    const std::string prefix = path.empty() ? "" : path + ".";
    for (const auto& entry : map) {
      const YAML::Node& key = entry.first;
      if (!key.IsScalar())
        fail(mark(key, map), path, "keys must be plain names, got " + describe(key));
      const std::string& k = key.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
        fail(mark(key, map), prefix + k, "unknown key (allowed here: " + join(allowed) + ")");
      }
      if (!seen.insert(k).second) fail(mark(key, map), prefix + k, "key given twice");
    }
  }

  double number(const YAML::Node& node, const YAML::Node& parent, const std::string& path) const {
    if (!node) fail(parent.Mark(), path, "missing");
    if (!node.IsScalar())
      fail(mark(node, parent), path, "expected a number, got " + describe(node));
    const std::string& text = node.Scalar();
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == ".inf" || lower == "+.inf" || lower == "-.inf" || lower == ".nan") {
      fail(mark(node, parent), path, "must be finite, got " + text);
    }
    // from_chars, not strtod: the global C locale (setlocale(LC_ALL, "") under de_DE) must not
    // turn "0.1" into an error.
    const ParsedNumber parsed = parse_double(text);
    if (parsed.status == NumberStatus::NotANumber) {
      fail(mark(node, parent), path, "expected a number, got " + describe(node));
    }
    const double value = parsed.value;
    if (parsed.status == NumberStatus::OutOfRange || !std::isfinite(value)) {
      fail(mark(node, parent), path, "must be finite, got " + text);
    }
    return value;
  }

  double non_negative(const YAML::Node& node, const YAML::Node& parent,
                      const std::string& path) const {
    const double value = number(node, parent, path);
    if (value < 0.0) fail(mark(node, parent), path, "must be >= 0, got " + node.Scalar());
    return value;
  }

  Vec3 vec3(const YAML::Node& node, const YAML::Node& parent, const std::string& path) const {
    if (!node) fail(parent.Mark(), path, "missing");
    if (!node.IsSequence()) {
      fail(mark(node, parent), path, "expected a list of 3 numbers, got " + describe(node));
    }
    if (node.size() != 3) {
      fail(mark(node, parent), path, "expected 3 numbers, got " + std::to_string(node.size()));
    }
    Vec3 v;
    for (std::size_t i = 0; i < 3; ++i) {
      v[static_cast<Eigen::Index>(i)] = number(node[i], node, path + "[" + std::to_string(i) + "]");
    }
    return v;
  }

  std::vector<Vec3> points(const YAML::Node& node, const YAML::Node& parent,
                           const std::string& path, std::size_t min_count) const {
    if (!node) fail(parent.Mark(), path, "missing");
    if (!node.IsSequence()) {
      fail(mark(node, parent), path, "expected a list of points [x, y, z], got " + describe(node));
    }
    if (node.size() < min_count) {
      fail(mark(node, parent), path,
           "expected at least " + std::to_string(min_count) + " points, got " +
               std::to_string(node.size()));
    }
    std::vector<Vec3> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      out.push_back(vec3(node[i], node, path + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  /// One obstacle, or one per convex piece for `representation: pieces`.
  std::vector<Obstacle> obstacle(const YAML::Node& node, const YAML::Node& parent,
                                 const std::string& path, bool attached = false) {
    if (!node.IsMap()) {
      fail(mark(node, parent), path, "expected an obstacle (a map), got " + describe(node));
    }
    // The type decides which keys are allowed, so read it first.
    const YAML::Node type_node = node["type"];
    if (!type_node) fail(node.Mark(), path + ".type", "missing");
    const auto type_it =
        type_node.IsScalar() ? kTypeKeys.find(type_node.Scalar()) : kTypeKeys.end();
    if (type_it == kTypeKeys.end()) {
      std::vector<std::string> types;
      for (const auto& entry : kTypeKeys) types.push_back(entry.first);
      fail(mark(type_node, node), path + ".type",
           "unknown obstacle type " + describe(type_node) + " (known: " + join(types) + ")");
    }
    const std::string& type = type_it->first;
    std::vector<std::string> allowed = kCommonKeys;
    allowed.insert(allowed.end(), type_it->second.begin(), type_it->second.end());
    if (attached) {
      allowed.push_back("link");
      allowed.push_back("touch_links");
    }
    check_keys(node, path, allowed);

    Obstacle obstacle;
    const YAML::Node name = node["name"];
    if (!name) fail(node.Mark(), path + ".name", "missing");
    if (!name.IsScalar() || name.Scalar().empty()) {
      fail(mark(name, node), path + ".name", "expected a non-empty name, got " + describe(name));
    }
    obstacle.name = name.Scalar();
    if (obstacle.name.find('#') != std::string::npos) {
      fail(mark(name, node), path + ".name",
           "'#' is reserved for the pieces of a mesh (shelf#0, shelf#1, ...), got '" +
               obstacle.name + "'");
    }
    obstacle.object = obstacle.name;

    const std::string p = path + ".";
    std::vector<ConvexPolytope> pieces;
    if (type == "box") {
      const Vec3 half = vec3(node["half_extents"], node, p + "half_extents");
      for (int i = 0; i < 3; ++i) {
        if (half[i] < 0.0) {
          fail(mark(node["half_extents"], node), p + "half_extents",
               "must be >= 0, got a negative component");
        }
      }
      obstacle.shape = Box{half};
    } else if (type == "sphere") {
      obstacle.shape = Sphere{non_negative(node["radius"], node, p + "radius")};
    } else if (type == "capsule") {
      obstacle.shape = Capsule{non_negative(node["radius"], node, p + "radius"),
                               non_negative(node["half_length"], node, p + "half_length")};
    } else if (type == "cylinder") {
      obstacle.shape = Cylinder{non_negative(node["radius"], node, p + "radius"),
                                non_negative(node["half_length"], node, p + "half_length")};
    } else if (type == "pyramid") {
      obstacle.shape = pyramid(node, path);
    } else if (type == "convex") {
      // Flat (coplanar, collinear) and single-point sets are valid shapes for the engine, and
      // gjk-query accepts them too: one documented behaviour (robots/scenes/README.md).
      const std::vector<Vec3> pts = points(node["points"], node, p + "points", 1);
      obstacle.shape = hull_of(pts, mark(node["points"], node), p + "points");
    } else if (type == "mesh") {
      const std::string representation = mesh_representation(node, path);
      if (representation == "hull") {
        obstacle.shape = mesh(node, path);
      } else if (representation == "mesh") {
        obstacle.mesh = exact_mesh(node, path);
      } else {
        pieces = convex_pieces(node, path);
      }
    } else if (type == "octomap") {
      obstacle.cells = octomap_cells(node, path);
    } else {  // point_cloud
      obstacle.cells = point_cloud_cells(node, path);
    }

    if (const YAML::Node inflation = node["inflation"]) {
      if (obstacle.kind() != ObstacleKind::Convex) {
        fail(mark(inflation, node), p + "inflation",
             "not supported for exact meshes and cells (inflate the convex robot shapes, or "
             "use representation: hull or pieces)");
      }
      obstacle.shape.inflation = non_negative(inflation, node, p + "inflation");
    }
    obstacle.pose = pose(node, path);
    if (!pieces.empty()) {
      // Convex pieces: one convex obstacle each, named NAME#K, sharing NAME as their object.
      std::vector<Obstacle> out;
      for (size_t k = 0; k < pieces.size(); ++k) {
        Obstacle piece = obstacle;
        piece.name = obstacle.name + "#" + std::to_string(k);
        piece.shape = Shape(std::move(pieces[k]), obstacle.shape.inflation);
        out.push_back(std::move(piece));
      }
      return out;
    }
    if (obstacle.kind() == ObstacleKind::Convex) {
      try {
        validate(obstacle.shape);
      } catch (const std::invalid_argument& e) {  // belt and braces: the checks above cover it
        fail(node.Mark(), path, e.what());
      }
    }
    return {obstacle};
  }

  std::string mesh_representation(const YAML::Node& node, const std::string& path) const {
    const YAML::Node r = node["representation"];
    if (!r) return "hull";
    if (!r.IsScalar() || (r.Scalar() != "hull" && r.Scalar() != "mesh" && r.Scalar() != "pieces"))
      fail(mark(r, node), path + ".representation",
           "expected hull, mesh or pieces, got " + describe(r));
    return r.Scalar();
  }

  /// The file named by `key`, resolved against the scene's folder; must exist.
  std::string data_file(const YAML::Node& node, const std::string& path, const char* what) const {
    const YAML::Node file = node["file"];
    if (!file) fail(node.Mark(), path + ".file", "missing");
    if (!file.IsScalar() || file.Scalar().empty()) {
      fail(mark(file, node), path + ".file", "expected a file name, got " + describe(file));
    }
    fs::path resolved(file.Scalar());
    if (resolved.is_relative() && !base_dir_.empty()) {
      resolved = (fs::path(base_dir_) / resolved).lexically_normal();
    }
    std::error_code ec;
    if (!fs::is_regular_file(resolved, ec)) {
      fail(mark(file, node), path + ".file",
           std::string(what) + " file '" + resolved.string() + "' not found");
    }
    return resolved.string();
  }

  Vec3 mesh_scale(const YAML::Node& node, const std::string& path) const {
    Vec3 scale = Vec3::Ones();
    if (const YAML::Node s = node["scale"]) {
      scale = s.IsSequence() ? vec3(s, node, path + ".scale")
                             : Vec3::Constant(number(s, node, path + ".scale"));
      if ((scale.array() <= 0.0).any()) {
        fail(mark(s, node), path + ".scale", "must be > 0");
      }
    }
    return scale;
  }

  std::shared_ptr<const TriangleMesh> exact_mesh(const YAML::Node& node,
                                                 const std::string& path) const {
    const std::string file = data_file(node, path, "mesh");
    const Vec3 scale = mesh_scale(node, path);  // its own errors name the scale, not the file
    try {
      MeshTriangles t = load_mesh_triangles(file, scale);
      return std::make_shared<const TriangleMesh>(
          TriangleMesh::from_triangles(std::move(t.vertices), std::move(t.triangles)));
    } catch (const std::exception& e) {
      fail(mark(node["file"], node), path + ".file", e.what());
    }
  }

  std::vector<ConvexPolytope> convex_pieces(const YAML::Node& node, const std::string& path) const {
    const std::string file = data_file(node, path, "mesh");
    const Vec3 scale = mesh_scale(node, path);
    try {
      return load_convex_pieces(file, scale);
    } catch (const std::exception& e) {
      fail(mark(node["file"], node), path + ".file", e.what());
    }
  }

  static std::shared_ptr<const BoxSet> box_set(const OccupiedCells& cells) {
    std::vector<Vec3> half_extents;
    half_extents.reserve(cells.half_sizes.size());
    for (const double h : cells.half_sizes) half_extents.push_back(Vec3::Constant(h));
    return std::make_shared<const BoxSet>(BoxSet::from_boxes(cells.centres, half_extents));
  }

  std::shared_ptr<const BoxSet> octomap_cells(const YAML::Node& node,
                                              const std::string& path) const {
    const std::string file = data_file(node, path, "octomap");
    try {
      return box_set(load_octomap(file));
    } catch (const std::exception& e) {
      fail(mark(node["file"], node), path + ".file", e.what());
    }
  }

  std::shared_ptr<const BoxSet> point_cloud_cells(const YAML::Node& node,
                                                  const std::string& path) const {
    const std::string file = data_file(node, path, "point cloud");
    const YAML::Node r = node["resolution"];
    if (!r) fail(node.Mark(), path + ".resolution", "missing (the voxel edge, in metres)");
    const double resolution = number(r, node, path + ".resolution");
    if (!(resolution > 0.0) || !std::isfinite(resolution))
      fail(mark(r, node), path + ".resolution", "must be a positive number of metres");
    try {
      return box_set(voxelize(load_point_cloud(file), resolution, file));
    } catch (const std::exception& e) {
      fail(mark(node["file"], node), path + ".file", e.what());
    }
  }

  ConvexPolytope hull_of(const std::vector<Vec3>& pts, const YAML::Mark& at,
                         const std::string& path) const {
    try {
      return ConvexPolytope::from_points(pts);
    } catch (const std::exception& e) {
      fail(at, path, std::string("cannot build the convex hull: ") + e.what());
    }
  }

  ConvexPolytope pyramid(const YAML::Node& node, const std::string& path) const {
    const YAML::Node base_node = node["base"];
    const std::vector<Vec3> base = points(base_node, node, path + ".base", 3);
    const Vec3 apex = vec3(node["apex"], node, path + ".apex");
    const YAML::Mark base_mark = mark(base_node, node);

    // Every check below is O(n log n) or better: a 100,000-point base must load in moments
    // (issue 15 item 4; the former pairwise checks were quadratic).
    double size = (apex - base[0]).norm();
    std::size_t far = 0;  // the base point farthest from base[0]
    for (std::size_t i = 0; i < base.size(); ++i) {
      const double d = (base[i] - base[0]).norm();
      if (d > size) size = d;
      if (d > (base[far] - base[0]).norm()) far = i;
    }
    if (!(size > 0.0) || !std::isfinite(size)) {
      fail(base_mark, path + ".base", "degenerate pyramid: all points coincide");
    }
    const double tol = 1e-9 * size;
    {  // coincident points: neighbours in lexicographic order (exact duplicates and near ones)
      std::vector<std::size_t> order(base.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      const auto less = [&](std::size_t a, std::size_t b) {
        return std::lexicographical_compare(base[a].data(), base[a].data() + 3, base[b].data(),
                                            base[b].data() + 3);
      };
      std::sort(order.begin(), order.end(), less);
      for (std::size_t k = 1; k < order.size(); ++k) {
        std::size_t i = order[k - 1], j = order[k];
        if ((base[i] - base[j]).norm() <= tol) {
          if (i > j) std::swap(i, j);
          fail(base_mark, path + ".base",
               "base points " + std::to_string(i) + " and " + std::to_string(j) + " coincide");
        }
      }
    }
    // Base plane: base[0], the point farthest from it, and the point farthest from that line
    // span the best-conditioned triangle found in linear time.
    const Vec3 axis = base[far] - base[0];
    Vec3 normal = Vec3::Zero();
    for (std::size_t i = 1; i < base.size(); ++i) {
      const Vec3 n = axis.cross(base[i] - base[0]);
      if (n.norm() > normal.norm()) normal = n;
    }
    if (normal.norm() <= 1e-12 * size * size) {
      fail(base_mark, path + ".base", "degenerate pyramid: base points are collinear");
    }
    normal.normalize();
    const double flat_tol = 1e-6 * size;
    for (std::size_t i = 0; i < base.size(); ++i) {
      if (std::abs(normal.dot(base[i] - base[0])) > flat_tol) {
        fail(mark(base_node[i], base_node), path + ".base[" + std::to_string(i) + "]",
             "base points are not coplanar");
      }
    }
    if (std::abs(normal.dot(apex - base[0])) <= flat_tol) {
      fail(mark(node["apex"], node), path + ".apex",
           "degenerate pyramid: apex lies in the base plane");
    }
    // The hull is known: the base polygon (every base point must be a corner) and the apex.
    // qhull would merge the 100,000 coplanar base points for minutes; a 2-D monotone chain
    // (Andrew's algorithm) orders the base in O(n log n) instead.
    const Vec3 u = axis.normalized(), v = normal.cross(u);
    std::vector<std::size_t> order(base.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto uv = [&](std::size_t i) {
      const Vec3 d = base[i] - base[0];
      return std::pair<double, double>(d.dot(u), d.dot(v));
    };
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return uv(a) < uv(b); });
    const auto cross = [&](std::size_t o, std::size_t a, std::size_t b) {
      const auto [ox, oy] = uv(o);
      const auto [ax, ay] = uv(a);
      const auto [bx, by] = uv(b);
      return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox);
    };
    std::vector<std::size_t> ring(2 * base.size());  // counter-clockwise about `normal`
    std::size_t k = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {  // lower chain
      while (k >= 2 && cross(ring[k - 2], ring[k - 1], order[i]) <= 0) --k;
      ring[k++] = order[i];
    }
    for (std::size_t i = order.size() - 1, lower = k + 1; i-- > 0;) {  // upper chain
      while (k >= lower && cross(ring[k - 2], ring[k - 1], order[i]) <= 0) --k;
      ring[k++] = order[i];
    }
    ring.resize(k - 1);  // the last point repeats the first
    if (ring.size() != base.size()) {
      std::vector<bool> corner(base.size(), false);
      for (const std::size_t i : ring) corner[i] = true;
      const std::size_t inside =
          static_cast<std::size_t>(std::find(corner.begin(), corner.end(), false) - corner.begin());
      fail(mark(base_node[inside], base_node), path + ".base[" + std::to_string(inside) + "]",
           "base polygon is not convex (this point lies inside the others' hull or on an edge)");
    }
    if (normal.dot(apex - base[0]) < 0) std::reverse(ring.begin(), ring.end());
    // Vertices: the ring, then the apex. Base triangles face away from the apex; the sides
    // (ring[i], ring[i+1], apex) face out because the ring turns counter-clockwise seen from
    // the apex.
    std::vector<Vec3> vertices;
    vertices.reserve(ring.size() + 1);
    for (const std::size_t i : ring) vertices.push_back(base[i]);
    vertices.push_back(apex);
    const auto m = static_cast<std::uint32_t>(ring.size());
    std::vector<std::array<std::uint32_t, 3>> triangles;
    triangles.reserve(2 * ring.size());
    for (std::uint32_t i = 1; i + 1 < m; ++i) triangles.push_back({0, i + 1, i});
    for (std::uint32_t i = 0; i < m; ++i) triangles.push_back({i, (i + 1) % m, m});
    return ConvexPolytope::from_hull_faces(std::move(vertices), std::move(triangles));
  }

  ConvexPolytope mesh(const YAML::Node& node, const std::string& path) const {
    const std::string file = data_file(node, path, "mesh");
    const Vec3 scale = mesh_scale(node, path);
    try {
      return load_convex_mesh(file, scale);
    } catch (const std::exception& e) {
      fail(mark(node["file"], node), path + ".file", e.what());
    }
  }

  Pose pose(const YAML::Node& node, const std::string& path) const {
    Pose pose = Pose::Identity();
    if (const YAML::Node position = node["position"]) {
      pose.translation() = vec3(position, node, path + ".position");
    }
    std::string given;  // the rotation key already seen
    for (const char* key : {"rotation_xyz", "rpy", "quaternion"}) {
      const YAML::Node value = node[key];
      if (!value) continue;
      const std::string field = path + "." + key;
      if (!given.empty()) {
        fail(mark(value, node), field,
             "give at most one of rotation_xyz, rpy, quaternion (" + given + " is also given)");
      }
      given = key;
      if (given == "rotation_xyz") {
        const Vec3 a = vec3(value, node, field);
        pose.linear() = rotation_xyz(a.x(), a.y(), a.z());
      } else if (given == "rpy") {
        const Vec3 a = vec3(value, node, field);
        pose.linear() =
            (Eigen::AngleAxisd(a.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(a.y(), Vec3::UnitY()) *
             Eigen::AngleAxisd(a.x(), Vec3::UnitX()))
                .toRotationMatrix();
      } else {
        if (!value.IsSequence() || value.size() != 4) {
          fail(mark(value, node), field,
               value.IsSequence()
                   ? "expected 4 numbers [w, x, y, z], got " + std::to_string(value.size())
                   : "expected a list of 4 numbers [w, x, y, z], got " + describe(value));
        }
        double q[4];
        for (std::size_t i = 0; i < 4; ++i) {
          q[i] = number(value[i], value, field + "[" + std::to_string(i) + "]");
        }
        Eigen::Quaterniond quat(q[0], q[1], q[2], q[3]);
        // stableNorm: [1e308, 0, 0, 0] and denormal quaternions are valid directions; only an
        // exact zero has none.
        const double norm = quat.coeffs().stableNorm();
        if (!(norm > 0.0) || !std::isfinite(norm)) {
          fail(mark(value, node), field,
               "quaternion [w, x, y, z] is all zeros: it gives no rotation (use [1, 0, 0, 0] for "
               "none)");
        }
        quat.coeffs() /= norm;
        pose.linear() = quat.toRotationMatrix();
      }
    }
    return pose;
  }

  std::string name_;
  std::string base_dir_;
};

}  // namespace

Scene parse_scene(const std::string& yaml_text, const std::string& name,
                  const std::string& base_dir) {
  return Parser(name, base_dir).parse(yaml_text);
}

Scene load_scene(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw SceneError(path + ": is a directory, not a scene file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot open scene file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SceneError(path + ": cannot read scene file");
  std::string base_dir = fs::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return parse_scene(text.str(), path, base_dir);
}

}  // namespace gjk::robots
