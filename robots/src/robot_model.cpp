// URDF loading with urdfdom: the kinematic tree in topological order, joint limits and mimics,
// and collision elements as convex shapes (meshes through assimp and the engine's hull).
#include "gjk/robots/robot_model.hpp"

#include "gjk/broadphase.hpp"
#include "gjk/robots/mesh_loader.hpp"
#include "urdf_document.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <system_error>
#include <unordered_map>

namespace gjk::robots {
namespace {

namespace fs = std::filesystem;

// TinyXML 2.6 (under urdfdom) skips a UTF-8 sequence by the length its lead byte announces, so a
// sequence cut short at the end of the text carries it past the terminating NUL (a heap overread
// found by fuzz_urdf). XML text is UTF-8 unless declared otherwise: check it before parsing and
// name the place.
void check_utf8_text(const std::string& text, const std::string& name) {
  int line = 1;
  size_t line_start = 0;
  auto fail = [&](size_t at, const std::string& what) {
    std::ostringstream msg;
    msg << "URDF '" << name << "', line " << line << ", column " << at - line_start + 1 << ": "
        << what << " (URDF text must be UTF-8)";
    throw ModelError(msg.str());
  };
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      ++line;
      line_start = ++i;
      continue;
    }
    if (byte == 0) fail(i, "a NUL byte");
    if (byte < 0x80) {
      ++i;
      continue;
    }
    // RFC 3629: lead byte, length, and the range of the second byte (no overlong forms, no
    // surrogates, nothing above U+10FFFF).
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (byte >= 0xC2 && byte <= 0xDF) {
      length = 2;
    } else if (byte >= 0xE0 && byte <= 0xEF) {
      length = 3;
      if (byte == 0xE0) low = 0xA0;
      if (byte == 0xED) high = 0x9F;
    } else if (byte >= 0xF0 && byte <= 0xF4) {
      length = 4;
      if (byte == 0xF0) low = 0x90;
      if (byte == 0xF4) high = 0x8F;
    }
    auto hex = [byte] {
      char digits[8];
      std::snprintf(digits, sizeof digits, "0x%02X", static_cast<unsigned>(byte));
      return std::string(digits);
    };
    if (length == 0) fail(i, "invalid UTF-8 byte " + hex());
    for (size_t k = 1; k < length; ++k) {
      const auto next = i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
      if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF)) {
        fail(i, "invalid UTF-8: the " + std::to_string(length) +
                    "-byte sequence starting with byte " + hex() + " is cut short or malformed");
      }
    }
    i += length;
  }
}

Pose to_pose(const urdf::Pose& p) {
  Pose pose = Pose::Identity();
  double x, y, z, w;
  p.rotation.getQuaternion(x, y, z, w);
  pose.linear() = Eigen::Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  pose.translation() = Vec3(p.position.x, p.position.y, p.position.z);
  return pose;
}

// fs::exists(path) throws for errors other than "not found" (a name too long, a loop of links,
// no permission: fuzz_urdf found the first); here they are answers, not exceptions.
bool exists_quietly(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec) && !ec;
}

std::string resolve_mesh(const std::string& uri, const std::string& base_dir,
                         const std::vector<std::string>& package_dirs, const std::string& where) {
  std::string path = uri;
  const std::string file_scheme = "file://";
  if (path.rfind(file_scheme, 0) == 0) path = path.substr(file_scheme.size());
  const std::string package_scheme = "package://";
  if (path.rfind(package_scheme, 0) == 0) {
    const std::string rest = path.substr(package_scheme.size());
    const size_t slash = rest.find('/');
    const std::string package = rest.substr(0, slash);
    const std::string inside = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
    if (package.empty() || inside.empty()) {
      throw ModelError(where + ": '" + uri +
                       "' must name a package and a file inside it (package://PACKAGE/PATH)");
    }
    // Where ROS looks: the given folders, then ROS_PACKAGE_PATH (ROS 1) and AMENT_PREFIX_PATH
    // (ROS 2, <prefix>/share/PACKAGE), then the URDF's own folder (robot description packages
    // copied without their package layout).
    std::vector<fs::path> tried;
    const auto try_dir = [&](const fs::path& package_root) -> std::string {
      const fs::path candidate = package_root / inside;
      tried.push_back(package_root);
      return exists_quietly(candidate) ? candidate.string() : std::string();
    };
    const auto env_list = [](const char* variable) {
      std::vector<std::string> dirs;
      const char* value = std::getenv(variable);
      for (std::string list = value ? value : ""; !list.empty();) {
        const size_t colon = list.find(':');
        if (colon != 0) dirs.push_back(list.substr(0, colon));
        list = colon == std::string::npos ? std::string() : list.substr(colon + 1);
      }
      return dirs;
    };
    for (const std::string& dir : package_dirs) {
      if (auto found = try_dir(fs::path(dir) / package); !found.empty()) return found;
      if (auto found = try_dir(dir); !found.empty()) return found;  // a path into the package
    }
    for (const std::string& dir : env_list("ROS_PACKAGE_PATH")) {
      if (fs::path(dir).filename() == package) {
        if (auto found = try_dir(dir); !found.empty()) return found;
      }
      if (auto found = try_dir(fs::path(dir) / package); !found.empty()) return found;
    }
    for (const std::string& prefix : env_list("AMENT_PREFIX_PATH")) {
      if (auto found = try_dir(fs::path(prefix) / "share" / package); !found.empty()) return found;
    }
    if (auto found = try_dir(base_dir.empty() ? fs::path(".") : fs::path(base_dir)); !found.empty())
      return found;
    // Long names are shortened: the message must fit a terminal line or two.
    const auto shorten = [](const std::string& text) {
      return text.size() <= 160
                 ? text
                 : text.substr(0, 120) + "...(" + std::to_string(text.size()) + " bytes)";
    };
    std::string searched;
    for (const fs::path& dir : tried) searched += "\n    " + shorten((dir / inside).string());
    throw ModelError(where + ": cannot find '" + shorten(uri) + "': package '" + shorten(package) +
                     "' is not in the package search path. Tried:" + searched +
                     "\n  Give the folder that holds the package with --package-dir DIR (tools) or "
                     "package_dirs (RobotModel::from_urdf_file), or set ROS_PACKAGE_PATH or "
                     "AMENT_PREFIX_PATH.");
  }
  const fs::path p(path);
  const fs::path resolved = p.is_absolute() ? p : fs::path(base_dir) / p;
  std::error_code ec;
  if (!fs::exists(resolved, ec)) {
    throw ModelError(where + ": mesh file '" + resolved.string() + "' " +
                     (ec ? "cannot be accessed: " + ec.message() : std::string("does not exist")));
  }
  return resolved.string();
}

/// Sets every shape's origin_is_identity from its origin: the one place that decides it, run
/// on every model a builder returns (collision_pose() takes the link's pose when it is set).
void note_identity_origins(std::vector<CollisionShape>& shapes) {
  for (CollisionShape& c : shapes)
    c.origin_is_identity = c.origin.matrix() == Pose::Identity().matrix();
}

}  // namespace

LinkMeshRepresentation parse_link_mesh_representation(const std::string& text,
                                                      const std::string& what) {
  if (text == "hull") return LinkMeshRepresentation::Hull;
  if (text == "pieces") return LinkMeshRepresentation::Pieces;
  if (text == "mesh") return LinkMeshRepresentation::Mesh;
  throw ModelError(what + ": expected 'hull', 'pieces' or 'mesh', got '" + text + "'");
}

void UrdfOptions::add_link_mesh(const std::string& link_equals_representation) {
  const auto eq = link_equals_representation.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ModelError("link mesh '" + link_equals_representation +
                     "': expected LINK=REPRESENTATION, e.g. forearm_link=mesh");
  const std::string link = link_equals_representation.substr(0, eq);
  link_meshes.emplace_back(
      link, parse_link_mesh_representation(link_equals_representation.substr(eq + 1),
                                           "link mesh '" + link_equals_representation + "'"));
}

RobotModel RobotModel::from_urdf_file(const std::string& path,
                                      const std::vector<std::string>& package_dirs) {
  UrdfOptions options;
  options.package_dirs = package_dirs;
  return from_urdf_file(path, options);
}

RobotModel RobotModel::from_urdf_string(const std::string& xml, const std::string& base_dir,
                                        const std::string& name,
                                        const std::vector<std::string>& package_dirs) {
  UrdfOptions options;
  options.package_dirs = package_dirs;
  return from_urdf_string(xml, base_dir, name, options);
}

RobotModel RobotModel::from_urdf_file(const std::string& path, const UrdfOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw ModelError("URDF '" + path + "': is a directory, not a URDF file");
  }
  std::ifstream in(path);
  if (!in) throw ModelError("URDF '" + path + "': cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  return from_urdf_string(text.str(), fs::path(path).parent_path().string(), path, options);
}

RobotModel RobotModel::from_urdf_string(const std::string& xml, const std::string& base_dir,
                                        const std::string& name, const UrdfOptions& options) {
  const std::vector<std::string>& package_dirs = options.package_dirs;
  check_utf8_text(xml, name);
  detail::check_xml_nesting(xml, name);
  const detail::DeclaredUrdf declared = detail::read_declared(xml, name);
  // urdfdom reports through console_bridge (stderr) and skips what it cannot read; its messages
  // go into our errors instead of the user's terminal.
  std::string urdfdom_says;
  urdf::ModelInterfaceSharedPtr urdf_model;
  {
    struct Capture : console_bridge::OutputHandler {
      std::string* text;
      explicit Capture(std::string* t) : text(t) {}
      void log(const std::string& message, console_bridge::LogLevel, const char*, int) override {
        if (!text->empty()) *text += "; ";
        *text += message;
      }
    } capture(&urdfdom_says);
    static std::mutex console_mutex;  // the handler is process-wide
    const std::lock_guard<std::mutex> lock(console_mutex);
    console_bridge::useOutputHandler(&capture);
    try {
      urdf_model = urdf::parseURDF(xml);
    } catch (...) {
      console_bridge::restorePreviousOutputHandler();
      throw;
    }
    console_bridge::restorePreviousOutputHandler();
  }
  const std::string urdfdom_note = urdfdom_says.empty() ? "" : " (urdfdom: " + urdfdom_says + ")";
  if (!urdf_model) {
    throw ModelError("URDF '" + name + "': urdfdom could not read it" +
                     (urdfdom_says.empty()
                          ? " (unknown joint type, missing link or joint reference)"
                          : urdfdom_note));
  }
  // Everything declared must have been loaded: a dropped collision element would make a link
  // invisible to every clearance and validity check.
  for (const std::string& link_name : declared.link_order) {
    const detail::DeclaredLink& link = declared.links.at(link_name);
    const urdf::LinkConstSharedPtr loaded = urdf_model->getLink(link_name);
    if (!loaded) {
      throw ModelError("URDF '" + name + "', line " + std::to_string(link.line) + ": link '" +
                       link_name + "' was not loaded" + urdfdom_note);
    }
    const auto kind = [](const urdf::Geometry* g) -> std::string {
      if (g == nullptr) return "";
      switch (g->type) {
        case urdf::Geometry::SPHERE:
          return "sphere";
        case urdf::Geometry::BOX:
          return "box";
        case urdf::Geometry::CYLINDER:
          return "cylinder";
        case urdf::Geometry::MESH:
          return "mesh";
        default:
          return "?";
      }
    };
    const auto& got = loaded->collision_array;
    for (size_t k = 0; k < link.collisions.size(); ++k) {
      const bool same =
          k < got.size() && got[k] && kind(got[k]->geometry.get()) == link.collisions[k].geometry;
      if (same) continue;
      const std::string geometry = link.collisions[k].geometry.empty()
                                       ? "an empty <geometry>"
                                       : "<" + link.collisions[k].geometry + ">";
      throw ModelError("URDF '" + name + "', line " + std::to_string(link.collisions[k].line) +
                       ": link '" + link_name + "', collision " + std::to_string(k) + " (" +
                       geometry + ") could not be read" +
                       (urdfdom_says.empty() ? std::string(": supported geometries are box, "
                                                           "cylinder, sphere and mesh")
                                             : urdfdom_note));
    }
  }
  // urdfdom links own their children (shared_ptr): a joint graph with a cycle, which urdfdom
  // accepts (a joint from a link to itself), would keep its links alive after we reject it.
  struct ReleaseLinks {
    urdf::ModelInterface& model;
    ~ReleaseLinks() {
      for (auto& entry : model.links_) {
        entry.second->child_links.clear();
        entry.second->child_joints.clear();
        entry.second->parent_joint.reset();
      }
    }
  } release_links{*urdf_model};
  const urdf::LinkConstSharedPtr root = urdf_model->getRoot();
  if (!root) throw ModelError("URDF '" + name + "': no root link");

  RobotModel model;
  model.name_ = urdf_model->getName();
  std::unordered_map<std::string, int> link_ids;
  std::unordered_map<std::string, int> joint_ids;
  std::vector<urdf::LinkConstSharedPtr> ordered;  // links in topological order
  std::vector<urdf::LinkConstSharedPtr> stack{root};
  while (!stack.empty()) {
    urdf::LinkConstSharedPtr link = stack.back();
    stack.pop_back();
    // urdfdom accepts a joint whose child is its own parent link (or an ancestor of it): the
    // walk would then loop forever, growing the stack.
    if (link_ids.count(link->name) != 0) {
      throw ModelError("URDF '" + name + "': the joints do not form a tree (link '" + link->name +
                       "' is reached twice)");
    }
    link_ids[link->name] = static_cast<int>(ordered.size());
    ordered.push_back(link);
    // Children reversed so that the first child is visited first (stable, readable order).
    for (auto it = link->child_links.rbegin(); it != link->child_links.rend(); ++it)
      stack.push_back(*it);
  }
  if (ordered.size() < declared.link_order.size()) {
    for (const std::string& link_name : declared.link_order) {
      if (link_ids.count(link_name) != 0) continue;
      throw ModelError("URDF '" + name + "', line " +
                       std::to_string(declared.links.at(link_name).line) + ": link '" + link_name +
                       "' is not connected to the root link '" + root->name +
                       "' by joints (a joint from a link to itself, or links joined only to each "
                       "other)");
    }
  }
  for (const auto& link : ordered) model.links_.push_back(Link{link->name, -1});

  // Joints in the order of their child links (parents come first).
  std::vector<urdf::JointConstSharedPtr> mimics;
  for (size_t i = 1; i < ordered.size(); ++i) {
    const urdf::JointConstSharedPtr uj = ordered[i]->parent_joint;
    if (!uj)
      throw ModelError("URDF '" + name + "': link '" + ordered[i]->name + "' has no parent joint");
    const std::string where = "URDF '" + name + "', joint '" + uj->name + "'";
    Joint j;
    j.name = uj->name;
    const auto parent = link_ids.find(uj->parent_link_name);
    const auto child = link_ids.find(uj->child_link_name);
    if (parent == link_ids.end() || child == link_ids.end())
      throw ModelError(where + ": links '" + uj->parent_link_name + "' -> '" + uj->child_link_name +
                       "' are not both in the tree");
    j.parent_link = parent->second;
    j.child_link = child->second;
    j.origin = to_pose(uj->parent_to_joint_origin_transform);
    const Vec3 axis(uj->axis.x, uj->axis.y, uj->axis.z);
    switch (uj->type) {
      case urdf::Joint::REVOLUTE:
        j.type = JointType::Revolute;
        break;
      case urdf::Joint::CONTINUOUS:
        j.type = JointType::Continuous;
        break;
      case urdf::Joint::PRISMATIC:
        j.type = JointType::Prismatic;
        break;
      case urdf::Joint::FIXED:
        j.type = JointType::Fixed;
        break;
      case urdf::Joint::FLOATING:
        throw ModelError(where + ": joint type 'floating' is not supported");
      case urdf::Joint::PLANAR:
        throw ModelError(where + ": joint type 'planar' is not supported");
      default:
        throw ModelError(where + ": unknown joint type");
    }
    if (j.type != JointType::Fixed) {
      if (!axis.allFinite() || axis.norm() < 1e-12) {
        std::ostringstream msg;
        msg << where << ": axis (" << axis.transpose() << ") is not a direction";
        throw ModelError(msg.str());
      }
      j.axis = axis.normalized();
    }
    if (j.type == JointType::Continuous) {
      j.lower = -std::numeric_limits<double>::infinity();
      j.upper = std::numeric_limits<double>::infinity();
    } else if (j.type != JointType::Fixed) {
      if (!uj->limits)
        throw ModelError(where + ": <limit> is required for a revolute or prismatic joint");
      j.lower = uj->limits->lower;
      j.upper = uj->limits->upper;
      if (!(j.lower <= j.upper)) {
        std::ostringstream msg;
        msg << where << ": limit lower " << j.lower << " > upper " << j.upper;
        throw ModelError(msg.str());
      }
    }
    if (j.type != JointType::Fixed && uj->mimic) {
      j.is_mimic = true;
      j.mimic_multiplier = uj->mimic->multiplier;
      j.mimic_offset = uj->mimic->offset;
      mimics.push_back(uj);
    }
    model.links_[static_cast<size_t>(j.child_link)].parent_joint =
        static_cast<int>(model.joints_.size());
    joint_ids[j.name] = static_cast<int>(model.joints_.size());
    model.joints_.push_back(j);
  }
  // Configuration vectors follow the URDF document order of the movable joints (what a user
  // reads in the file, and what ROS's joint_states and MoveIt use), not the tree walk, which
  // orders siblings by urdfdom's name-sorted maps.
  std::vector<Joint*> movable;
  for (Joint& j : model.joints_) {
    if (j.type != JointType::Fixed && !j.is_mimic) movable.push_back(&j);
  }
  std::unordered_map<std::string, size_t> document_position;
  for (size_t i = 0; i < declared.joints.size(); ++i)
    document_position.emplace(declared.joints[i].name, i);
  std::stable_sort(movable.begin(), movable.end(), [&](const Joint* a, const Joint* b) {
    const auto pa = document_position.find(a->name), pb = document_position.find(b->name);
    const size_t ia = pa == document_position.end() ? SIZE_MAX : pa->second;
    const size_t ib = pb == document_position.end() ? SIZE_MAX : pb->second;
    return ia < ib;
  });
  for (Joint* j : movable) {
    j->q_index = model.num_positions_++;
    model.position_names_.push_back(j->name);
  }
  for (const auto& uj : mimics) {
    Joint& j = model.joints_[static_cast<size_t>(joint_ids.at(uj->name))];
    const auto target = joint_ids.find(uj->mimic->joint_name);
    if (target == joint_ids.end() ||
        model.joints_[static_cast<size_t>(target->second)].q_index < 0) {
      throw ModelError("URDF '" + name + "', joint '" + j.name + "': mimics '" +
                       uj->mimic->joint_name +
                       "', which is not an independent joint of this model");
    }
    j.q_index = model.joints_[static_cast<size_t>(target->second)].q_index;
  }

  // Collision elements, each mesh as its hull or its convex pieces (options.link_meshes).
  for (const auto& entry : options.link_meshes) {
    const std::string& link_name = entry.first;  // a plain reference: lambdas capture it
    if (std::none_of(ordered.begin(), ordered.end(),
                     [&](const auto& l) { return l->name == link_name; }))
      throw ModelError("URDF '" + name + "': link_meshes names link '" + link_name +
                       "', which the URDF does not have");
  }
  for (size_t li = 0; li < ordered.size(); ++li) {
    const auto& link = ordered[li];
    LinkMeshRepresentation mesh_representation = options.meshes;
    for (const auto& [link_name, representation] : options.link_meshes)
      if (link_name == link->name) mesh_representation = representation;
    size_t k = 0;
    for (const urdf::CollisionSharedPtr& c : link->collision_array) {
      const std::string where =
          "URDF '" + name + "', link '" + link->name + "', collision " + std::to_string(k++);
      if (!c || !c->geometry) throw ModelError(where + ": no geometry");
      CollisionShape shape;
      shape.link = static_cast<int>(li);
      shape.origin = to_pose(c->origin);
      if (c->geometry->type == urdf::Geometry::MESH &&
          mesh_representation == LinkMeshRepresentation::Pieces) {
        const auto& m = static_cast<const urdf::Mesh&>(*c->geometry);
        const std::string file = resolve_mesh(m.filename, base_dir, package_dirs, where);
        std::vector<ConvexPolytope> pieces;
        try {
          pieces = load_convex_pieces(file, Vec3(m.scale.x, m.scale.y, m.scale.z));
        } catch (const std::exception& e) {
          throw ModelError(where + ": " + e.what());
        }
        for (size_t p = 0; p < pieces.size(); ++p) {
          CollisionShape piece = shape;
          piece.shape = std::move(pieces[p]);
          piece.description = "mesh " + m.filename + " piece " + std::to_string(p);
          try {
            validate(piece.shape);
          } catch (const std::invalid_argument& e) {
            throw ModelError(where + ", piece " + std::to_string(p) + ": " + e.what());
          }
          model.collisions_.push_back(std::move(piece));
        }
        continue;
      }
      if (c->geometry->type == urdf::Geometry::MESH &&
          mesh_representation == LinkMeshRepresentation::Mesh) {
        const auto& m = static_cast<const urdf::Mesh&>(*c->geometry);
        const std::string file = resolve_mesh(m.filename, base_dir, package_dirs, where);
        try {
          // A link's mesh is queried as a surface, so a non-manifold edge (common in exported
          // robot meshes) changes nothing and is accepted, unlike for obstacles.
          MeshTriangles t = load_mesh_triangles(file, Vec3(m.scale.x, m.scale.y, m.scale.z), false);
          shape.shape = ConvexPolytope::from_points(t.vertices);
          shape.mesh = std::make_shared<const TriangleMesh>(
              TriangleMesh::from_triangles(std::move(t.vertices), std::move(t.triangles)));
        } catch (const std::exception& e) {
          throw ModelError(where + ": " + e.what());
        }
        shape.description = "mesh " + m.filename + " triangles";
        model.collisions_.push_back(std::move(shape));
        continue;
      }
      switch (c->geometry->type) {
        case urdf::Geometry::SPHERE: {
          const auto& s = static_cast<const urdf::Sphere&>(*c->geometry);
          shape.shape = Sphere{s.radius};
          shape.description = "sphere";
          break;
        }
        case urdf::Geometry::BOX: {
          const auto& b = static_cast<const urdf::Box&>(*c->geometry);
          shape.shape = Box{0.5 * Vec3(b.dim.x, b.dim.y, b.dim.z)};
          shape.description = "box";
          break;
        }
        case urdf::Geometry::CYLINDER: {
          const auto& cy = static_cast<const urdf::Cylinder&>(*c->geometry);
          shape.shape = Cylinder{cy.radius, 0.5 * cy.length};
          shape.description = "cylinder";
          break;
        }
        case urdf::Geometry::MESH: {
          const auto& m = static_cast<const urdf::Mesh&>(*c->geometry);
          const std::string file = resolve_mesh(m.filename, base_dir, package_dirs, where);
          try {
            shape.shape = load_convex_mesh(file, Vec3(m.scale.x, m.scale.y, m.scale.z));
          } catch (const std::exception& e) {
            throw ModelError(where + ": " + e.what());
          }
          shape.description = "mesh " + m.filename;
          break;
        }
        default:
          throw ModelError(where + ": unsupported geometry type");
      }
      try {
        validate(shape.shape);
      } catch (const std::invalid_argument& e) {
        throw ModelError(where + ": " + e.what());
      }
      model.collisions_.push_back(std::move(shape));
    }
  }
  note_identity_origins(model.collisions_);
  return model;
}

Eigen::VectorXd RobotModel::lower_limits() const {
  Eigen::VectorXd l(num_positions_);
  for (const Joint& j : joints_) {
    if (j.q_index >= 0 && !j.is_mimic) l[j.q_index] = j.lower;
  }
  return l;
}

Eigen::VectorXd RobotModel::upper_limits() const {
  Eigen::VectorXd u(num_positions_);
  for (const Joint& j : joints_) {
    if (j.q_index >= 0 && !j.is_mimic) u[j.q_index] = j.upper;
  }
  return u;
}

void AttachedObject::add_shape(Shape shape, const Pose& pose) {
  if (!meshes.empty()) meshes.push_back(nullptr);
  shapes.push_back(std::move(shape));
  poses.push_back(pose);
}

void AttachedObject::add_mesh(std::shared_ptr<const TriangleMesh> mesh, const Pose& pose) {
  if (!mesh) throw std::invalid_argument("AttachedObject::add_mesh: null mesh");
  meshes.resize(shapes.size());  // earlier pieces are convex
  shapes.push_back(ConvexPolytope::from_points(mesh->vertices()));
  meshes.push_back(std::move(mesh));
  poses.push_back(pose);
}

RobotModel RobotModel::with_attached(const std::vector<AttachedObject>& objects) const {
  RobotModel out = *this;
  for (const AttachedObject& object : objects) out.attach(object);
  return out;
}

void RobotModel::attach(const AttachedObject& object) {
  const std::string what = "attached object '" + object.name + "'";
  if (object.name.empty()) throw ModelError("an attached object has no name");
  for (const CollisionShape& c : collisions_)
    if (c.attached_object == object.name) throw ModelError(what + ": the name is already used");
  if (object.shapes.empty()) throw ModelError(what + ": no shapes");
  if (object.shapes.size() != object.poses.size())
    throw ModelError(what + ": " + std::to_string(object.shapes.size()) + " shapes but " +
                     std::to_string(object.poses.size()) + " poses");
  const auto known = [&](const std::string& link, const char* field) {
    for (const Link& l : links_)
      if (l.name == link) return;
    throw ModelError(what + ": " + field + " '" + link + "' is not a link of robot '" + name_ +
                     "'");
  };
  known(object.link, "link");
  for (const std::string& touch : object.touch_links) known(touch, "touch link");
  if (!object.meshes.empty() && object.meshes.size() != object.shapes.size())
    throw ModelError(what + ": " + std::to_string(object.shapes.size()) + " shapes but " +
                     std::to_string(object.meshes.size()) +
                     " mesh entries (give none, or one per piece)");
  // Built aside and appended at the end, so that a throw leaves the model as it was.
  std::vector<CollisionShape> pieces;
  pieces.reserve(object.shapes.size());
  for (size_t k = 0; k < object.shapes.size(); ++k) {
    try {
      validate(object.shapes[k]);
    } catch (const std::invalid_argument& e) {
      throw ModelError(what + ": shape " + std::to_string(k) + ": " + e.what());
    }
    if (!object.poses[k].matrix().allFinite())
      throw ModelError(what + ": pose " + std::to_string(k) + " is not finite");
    CollisionShape c;
    c.link = link_index(object.link);
    c.shape = object.shapes[k];
    c.origin = object.poses[k];
    c.description = "attached " + object.name + " (" + shape_name(object.shapes[k]) + ")";
    if (object.is_mesh(k)) {
      // The bound must hold, or boxes and early exits would skip real contacts: a cheap check
      // of the mesh's box against the shape's box (catches a placeholder shape).
      const Aabb mesh_box = object.meshes[k]->local_bounds();
      const Aabb shape_box = bounding_box(object.shapes[k], Pose::Identity());
      const double slack = 1e-9 * std::max(1.0, shape_box.diagonal().norm());
      if (!((mesh_box.min().array() >= shape_box.min().array() - slack).all() &&
            (mesh_box.max().array() <= shape_box.max().array() + slack).all()))
        throw ModelError(what + ": shape " + std::to_string(k) +
                         " does not enclose its mesh (use AttachedObject::add_mesh, which "
                         "stores the mesh's hull)");
      c.mesh = object.meshes[k];
      c.description = "attached " + object.name + " (mesh, " +
                      std::to_string(object.meshes[k]->triangles().size()) + " triangles)";
    }
    c.attached_object = object.name;
    for (const std::string& touch : object.touch_links) c.touch_links.push_back(link_index(touch));
    pieces.push_back(std::move(c));
  }
  note_identity_origins(pieces);
  collisions_.reserve(collisions_.size() + pieces.size());
  std::move(pieces.begin(), pieces.end(), std::back_inserter(collisions_));
}

int RobotModel::detach(const std::string& object) {
  if (object.empty()) return 0;  // the URDF's own shapes have no object name
  const auto kept =
      std::remove_if(collisions_.begin(), collisions_.end(),
                     [&](const CollisionShape& c) { return c.attached_object == object; });
  const auto removed = static_cast<int>(collisions_.end() - kept);
  collisions_.erase(kept, collisions_.end());
  return removed;
}

int RobotModel::link_index(const std::string& link_name) const {
  for (size_t i = 0; i < links_.size(); ++i) {
    if (links_[i].name == link_name) return static_cast<int>(i);
  }
  throw ModelError("robot '" + name_ + "': no link named '" + link_name + "'");
}

int RobotModel::joint_index(const std::string& joint_name) const {
  for (size_t i = 0; i < joints_.size(); ++i) {
    if (joints_[i].name == joint_name) return static_cast<int>(i);
  }
  throw ModelError("robot '" + name_ + "': no joint named '" + joint_name + "'");
}

void RobotModel::check_configuration(const Eigen::VectorXd& q, double tolerance) const {
  if (q.size() != num_positions_) {
    throw ModelError("robot '" + name_ + "': configuration has " + std::to_string(q.size()) +
                     " values, expected " + std::to_string(num_positions_));
  }
  for (const Joint& j : joints_) {
    if (j.q_index < 0 || j.is_mimic) continue;
    const double value = q[j.q_index];
    if (!std::isfinite(value) || value < j.lower - tolerance || value > j.upper + tolerance) {
      std::ostringstream msg;
      msg << "robot '" << name_ << "': joint '" << j.name << "' (q[" << j.q_index
          << "]) = " << value;
      if (!std::isfinite(value)) {
        msg << " is not finite";
      } else {
        msg << " is outside its limits [" << j.lower << ", " << j.upper << "]";
      }
      throw ModelError(msg.str());
    }
  }
}

void RobotModel::set_base_pose(const Pose& pose) {
  const Eigen::Matrix3d r = pose.linear();
  const Vec3 t = pose.translation();
  const auto fail = [&](const std::string& why) {
    std::ostringstream msg;
    msg.precision(17);
    msg << "robot '" << name_ << "': base pose " << why << " (translation " << t.transpose()
        << ", rotation rows " << r.row(0) << " | " << r.row(1) << " | " << r.row(2) << ")";
    throw ModelError(msg.str());
  };
  if (!r.allFinite() || !t.allFinite()) fail("is not finite");
  const double error = (r.transpose() * r - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (error > 1e-6) fail("has a rotation that is not orthonormal");
  if (r.determinant() < 0.0) fail("has a reflection (determinant -1), not a rotation");
  Pose clean = Pose::Identity();
  clean.translation() = t;
  // Rounded input (a quaternion with 6 digits) is re-orthonormalised so that the link frames
  // the engine receives are rotations to machine precision; exact input is kept bit for bit.
  clean.linear() = error > 1e-12 ? Eigen::Quaterniond(r).normalized().toRotationMatrix() : r;
  base_pose_ = clean;
}

}  // namespace gjk::robots
