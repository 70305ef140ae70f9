// SRDF reading (tinyxml2, for the line numbers in messages), checking and writing.
#include "gjk/robots/srdf.hpp"

#include "gjk/robots/parse_number.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_map>

namespace gjk::robots {
namespace {

using tinyxml2::XMLElement;

/// The model's names and the file name, for checks and messages.
class Checker {
 public:
  Checker(const RobotModel& model, const std::string& file) : model_(model), file_(file) {
    for (size_t i = 0; i < model.links().size(); ++i)
      links_.emplace(model.links()[i].name, static_cast<int>(i));
    for (size_t i = 0; i < model.joints().size(); ++i)
      joints_.emplace(model.joints()[i].name, static_cast<int>(i));
  }

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw SrdfError(file_ + ":" + std::to_string(line) + ": " + message);
  }

  static std::string tag(const XMLElement* e) { return std::string("<") + e->Name() + ">"; }

  std::string required(const XMLElement* e, const char* attribute) const {
    const char* value = e->Attribute(attribute);
    if (value == nullptr) {
      fail(e->GetLineNum(), tag(e) + " has no '" + attribute + "' attribute");
    }
    return value;
  }

  std::string link(const XMLElement* e, const char* attribute) const {
    std::string name = required(e, attribute);
    if (links_.count(name) == 0) {
      fail(e->GetLineNum(), tag(e) + " " + attribute + "='" + name + "': no link '" + name +
                                "' in robot '" + model_.name() + "'");
    }
    return name;
  }

  /// A model joint or one of the SRDF's virtual joints (MoveIt lets groups and states name them).
  std::string joint(const XMLElement* e, const char* attribute,
                    const std::set<std::string>& virtual_joints) const {
    std::string name = required(e, attribute);
    if (joints_.count(name) == 0 && virtual_joints.count(name) == 0) {
      fail(e->GetLineNum(), tag(e) + " " + attribute + "='" + name + "': no joint '" + name +
                                "' in robot '" + model_.name() + "'");
    }
    return name;
  }

  /// Index of a model joint, -1 for a virtual joint.
  int joint_index(const std::string& name) const {
    const auto it = joints_.find(name);
    return it == joints_.end() ? -1 : it->second;
  }

 private:
  const RobotModel& model_;
  std::string file_;
  std::unordered_map<std::string, int> links_, joints_;
};

/// Whitespace-separated tokens (multi-DOF virtual joints take several values).
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::strchr(" \t\r\n", text[i]) != nullptr) ++i;
    const size_t start = i;
    while (i < text.size() && std::strchr(" \t\r\n", text[i]) == nullptr) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

SrdfGroup read_group(const XMLElement* e, const Checker& check,
                     const std::set<std::string>& virtual_joints) {
  SrdfGroup group;
  group.name = check.required(e, "name");
  for (const XMLElement* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "link") {
      group.links.push_back(check.link(c, "name"));
    } else if (tag == "joint") {
      group.joints.push_back(check.joint(c, "name", virtual_joints));
    } else if (tag == "chain") {
      group.chains.emplace_back(check.link(c, "base_link"), check.link(c, "tip_link"));
    } else if (tag == "group") {
      group.subgroups.push_back(check.required(c, "name"));  // checked once all groups are read
    }
  }
  return group;
}

/// Values a virtual joint takes in a group state, in MoveIt's variable order.
size_t virtual_joint_arity(const std::string& type) {
  if (type == "planar") return 3;    // x, y, theta
  if (type == "floating") return 7;  // trans_x, trans_y, trans_z, rot_x, rot_y, rot_z, rot_w
  return 0;                          // fixed
}

GroupState read_group_state(const XMLElement* e, const Checker& check, const RobotModel& model,
                            const std::set<std::string>& groups,
                            const std::set<std::string>& virtual_joints,
                            const std::vector<VirtualJoint>& virtual_list) {
  GroupState state;
  state.name = check.required(e, "name");
  state.group = check.required(e, "group");
  if (groups.count(state.group) == 0) {
    check.fail(e->GetLineNum(), "<group_state name='" + state.name + "'> group='" + state.group +
                                    "': no group '" + state.group + "' in the SRDF");
  }
  for (const XMLElement* j = e->FirstChildElement("joint"); j != nullptr;
       j = j->NextSiblingElement("joint")) {
    const std::string name = check.joint(j, "name", virtual_joints);
    const std::string text = check.required(j, "value");
    const std::vector<std::string> values = tokens(text);
    const int index = check.joint_index(name);
    std::vector<double> numbers;
    bool numbers_ok = true;
    for (const std::string& token : values) {
      const ParsedNumber parsed = parse_double(token);
      if (parsed.status != NumberStatus::Ok || !std::isfinite(parsed.value)) numbers_ok = false;
      numbers.push_back(parsed.value);
    }
    if (!numbers_ok || values.empty()) {
      check.fail(j->GetLineNum(), "<joint name='" + name + "'> in <group_state name='" +
                                      state.name + "'>: value='" + text +
                                      "' is not a list of finite numbers");
    }
    if (index < 0) {
      // A virtual joint takes one value per variable (planar 3, floating 7, fixed none).
      const auto v = std::find_if(virtual_list.begin(), virtual_list.end(),
                                  [&](const VirtualJoint& x) { return x.name == name; });
      const size_t arity = virtual_joint_arity(v->type);
      if (values.size() != arity) {
        check.fail(j->GetLineNum(), "<joint name='" + name + "'> in <group_state name='" +
                                        state.name + "'>: value='" + text + "' has " +
                                        std::to_string(values.size()) + " numbers; a " + v->type +
                                        " virtual joint takes " + std::to_string(arity) +
                                        (v->type == "planar"     ? " (x y theta)"
                                         : v->type == "floating" ? " (x y z qx qy qz qw)"
                                                                 : ""));
      }
      if (v->type == "floating") {
        const double norm = std::sqrt(numbers[3] * numbers[3] + numbers[4] * numbers[4] +
                                      numbers[5] * numbers[5] + numbers[6] * numbers[6]);
        if (std::abs(norm - 1.0) > 1e-3) {
          check.fail(j->GetLineNum(), "<joint name='" + name + "'> in <group_state name='" +
                                          state.name + "'>: value='" + text +
                                          "': the quaternion (qx qy qz qw) is not unit length");
        }
      }
      state.virtual_joint_values.emplace_back(name, std::move(numbers));
      continue;
    }
    if (values.size() != 1) {
      check.fail(j->GetLineNum(), "<joint name='" + name + "'> in <group_state name='" +
                                      state.name + "'>: value='" + text +
                                      "' must be one number for a model joint");
    }
    const double value = numbers[0];
    const Joint& joint = model.joints()[static_cast<size_t>(index)];
    // Fixed joints (MoveIt SRDFs list them) and mimic joints (they follow their leader) have no
    // value of their own.
    if (joint.type == JointType::Fixed || joint.is_mimic || joint.q_index < 0) continue;
    state.joint_values.emplace_back(name, value);
  }
  return state;
}

}  // namespace

Srdf parse_srdf(const std::string& xml, const RobotModel& model, const std::string& name) {
  const Checker check(model, name);
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    const char* what = doc.ErrorStr();
    check.fail(doc.ErrorLineNum(),
               std::string("malformed XML (") + (what != nullptr ? what : "parse error") + ")");
  }
  const XMLElement* robot = doc.RootElement();
  if (robot == nullptr) check.fail(1, "no root element");
  if (std::strcmp(robot->Name(), "robot") != 0) {
    check.fail(robot->GetLineNum(),
               std::string("root element is <") + robot->Name() + ">, not <robot>");
  }
  Srdf srdf;
  if (const char* robot_name = robot->Attribute("name")) srdf.robot_name = robot_name;

  // Virtual joints and groups first: other elements may name them before they appear.
  std::set<std::string> virtual_names;
  for (const XMLElement* e = robot->FirstChildElement("virtual_joint"); e != nullptr;
       e = e->NextSiblingElement("virtual_joint")) {
    VirtualJoint v;
    v.name = check.required(e, "name");
    v.type = check.required(e, "type");
    if (v.type != "fixed" && v.type != "floating" && v.type != "planar") {
      check.fail(e->GetLineNum(), "<virtual_joint name='" + v.name + "'> type='" + v.type +
                                      "': not fixed, floating or planar");
    }
    v.parent_frame = check.required(e, "parent_frame");
    v.child_link = check.link(e, "child_link");
    virtual_names.insert(v.name);
    srdf.virtual_joints.push_back(std::move(v));
  }
  std::set<std::string> group_names;
  for (const XMLElement* e = robot->FirstChildElement("group"); e != nullptr;
       e = e->NextSiblingElement("group")) {
    srdf.groups.push_back(read_group(e, check, virtual_names));
    group_names.insert(srdf.groups.back().name);
  }
  for (const XMLElement* e = robot->FirstChildElement("group"); e != nullptr;
       e = e->NextSiblingElement("group")) {
    for (const XMLElement* c = e->FirstChildElement("group"); c != nullptr;
         c = c->NextSiblingElement("group")) {
      const std::string sub = check.required(c, "name");
      if (group_names.count(sub) == 0) {
        check.fail(c->GetLineNum(), "<group name='" + check.required(e, "name") +
                                        "'> subgroup name='" + sub + "': no group '" + sub +
                                        "' in the SRDF");
      }
    }
  }

  for (const XMLElement* e = robot->FirstChildElement(); e != nullptr;
       e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "disable_collisions") {
      DisabledCollision d;
      d.link1 = check.link(e, "link1");
      d.link2 = check.link(e, "link2");
      if (const char* reason = e->Attribute("reason")) d.reason = reason;
      srdf.disabled_collisions.push_back(std::move(d));
    } else if (tag == "group_state") {
      srdf.group_states.push_back(
          read_group_state(e, check, model, group_names, virtual_names, srdf.virtual_joints));
    } else if (tag == "end_effector") {
      EndEffector ee;
      ee.name = check.required(e, "name");
      ee.parent_link = check.link(e, "parent_link");
      ee.group = check.required(e, "group");
      if (const char* parent_group = e->Attribute("parent_group")) ee.parent_group = parent_group;
      for (const std::string* g : {&ee.group, &ee.parent_group}) {
        if (!g->empty() && group_names.count(*g) == 0) {
          check.fail(e->GetLineNum(), "<end_effector name='" + ee.name + "'> " +
                                          (g == &ee.group ? "group" : "parent_group") + "='" + *g +
                                          "': no group '" + *g + "' in the SRDF");
        }
      }
      srdf.end_effectors.push_back(std::move(ee));
    } else if (tag == "passive_joint") {
      srdf.passive_joints.push_back(check.joint(e, "name", virtual_names));
    }
    // Other elements (enable_collisions, link_sphere_approximations, joint_property, ...) carry
    // nothing this library uses.
  }
  return srdf;
}

Srdf load_srdf(const std::string& path, const RobotModel& model) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw SrdfError(path + ":0: cannot read the SRDF file (" +
                    (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file") +
                    ")");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw SrdfError(path + ":0: cannot read the SRDF file");
  return parse_srdf(text.str(), model, path);
}

AllowedCollisionMatrix acm_from_srdf(const RobotModel& model, const Srdf& srdf) {
  AllowedCollisionMatrix acm = AllowedCollisionMatrix::from_adjacency(model);
  for (const DisabledCollision& d : srdf.disabled_collisions)
    acm.set_allowed(d.link1, d.link2, true);
  return acm;
}

std::vector<std::string> group_joints(const RobotModel& model, const Srdf& srdf,
                                      const std::string& group) {
  const auto find_group = [&](const std::string& name) -> const SrdfGroup* {
    for (const SrdfGroup& g : srdf.groups)
      if (g.name == name) return &g;
    return nullptr;
  };
  if (find_group(group) == nullptr) {
    std::string known;
    for (const SrdfGroup& g : srdf.groups) known += (known.empty() ? "" : ", ") + g.name;
    throw std::invalid_argument("no group '" + group + "' in the SRDF (groups: " + known + ")");
  }
  const auto& links = model.links();
  const auto& joints = model.joints();
  const auto link_index = [&](const std::string& name) -> int {
    for (size_t i = 0; i < links.size(); ++i)
      if (links[i].name == name) return static_cast<int>(i);
    return -1;
  };
  const auto ancestors = [&](int link) {  // joints from the link up to the root
    std::vector<int> out;
    for (int j = links[static_cast<size_t>(link)].parent_joint; j >= 0;
         j = links[static_cast<size_t>(joints[static_cast<size_t>(j)].parent_link)].parent_joint)
      out.push_back(j);
    return out;
  };

  std::set<int> members;  // model joint indices
  std::set<std::string> visited;
  std::function<void(const SrdfGroup&)> collect = [&](const SrdfGroup& g) {
    if (!visited.insert(g.name).second) return;  // a subgroup cycle adds nothing new
    for (const std::string& name : g.joints) {
      for (size_t j = 0; j < joints.size(); ++j)
        if (joints[j].name == name) members.insert(static_cast<int>(j));
    }
    for (const std::string& name : g.links) {
      const int l = link_index(name);
      if (l >= 0 && links[static_cast<size_t>(l)].parent_joint >= 0)
        members.insert(links[static_cast<size_t>(l)].parent_joint);
    }
    for (const auto& [base, tip] : g.chains) {
      const int b = link_index(base), t = link_index(tip);
      if (b < 0 || t < 0) continue;
      // The tree path between base and tip (through their common ancestor, as MoveIt allows).
      const std::vector<int> from_base = ancestors(b), from_tip = ancestors(t);
      for (int j : from_tip)
        if (std::find(from_base.begin(), from_base.end(), j) == from_base.end()) members.insert(j);
      for (int j : from_base)
        if (std::find(from_tip.begin(), from_tip.end(), j) == from_tip.end()) members.insert(j);
    }
    for (const std::string& sub : g.subgroups) {
      if (const SrdfGroup* s = find_group(sub)) collect(*s);
    }
  };
  collect(*find_group(group));

  std::vector<std::pair<int, std::string>> ordered;
  for (int j : members) {
    const Joint& joint = joints[static_cast<size_t>(j)];
    if (joint.q_index >= 0 && !joint.is_mimic && joint.type != JointType::Fixed)
      ordered.emplace_back(joint.q_index, joint.name);
  }
  std::sort(ordered.begin(), ordered.end());
  std::vector<std::string> out;
  for (auto& [q, name] : ordered) out.push_back(std::move(name));
  return out;
}

Eigen::VectorXd named_state(const RobotModel& model, const Srdf& srdf, const std::string& state,
                            const Eigen::VectorXd* base) {
  const int n = model.num_positions();
  if (base != nullptr && base->size() != n) {
    throw std::invalid_argument("named_state: base has " + std::to_string(base->size()) +
                                " entries, the model has " + std::to_string(n) + " positions");
  }
  for (const GroupState& s : srdf.group_states) {
    if (s.name != state) continue;
    Eigen::VectorXd q = base != nullptr ? *base : Eigen::VectorXd::Zero(n);
    for (const auto& [joint, value] : s.joint_values) {
      q[model.joints()[static_cast<size_t>(model.joint_index(joint))].q_index] = value;
    }
    return q;
  }
  std::vector<std::string> known;
  for (const GroupState& s : srdf.group_states) {
    if (std::find(known.begin(), known.end(), s.name) == known.end()) known.push_back(s.name);
  }
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  throw std::invalid_argument("no group state '" + state + "' in the SRDF (states: " + list + ")");
}

Pose virtual_joint_pose(const VirtualJoint& joint, const std::vector<double>& values) {
  const size_t arity = virtual_joint_arity(joint.type);
  if (values.size() != arity) {
    throw std::invalid_argument("virtual joint '" + joint.name + "' (" + joint.type + ") takes " +
                                std::to_string(arity) + " values, not " +
                                std::to_string(values.size()));
  }
  for (const double v : values) {
    if (!std::isfinite(v))
      throw std::invalid_argument("virtual joint '" + joint.name + "': a value is not finite");
  }
  Pose pose = Pose::Identity();
  if (joint.type == "planar") {
    pose.translation() = Vec3(values[0], values[1], 0.0);
    pose.linear() = Eigen::AngleAxisd(values[2], Vec3::UnitZ()).toRotationMatrix();
  } else if (joint.type == "floating") {
    const Eigen::Quaterniond rotation(values[6], values[3], values[4], values[5]);
    if (rotation.norm() < 1e-9)
      throw std::invalid_argument("virtual joint '" + joint.name + "': zero quaternion");
    pose.translation() = Vec3(values[0], values[1], values[2]);
    pose.linear() = rotation.normalized().toRotationMatrix();
  }
  return pose;
}

const VirtualJoint* root_virtual_joint(const RobotModel& model, const Srdf& srdf) {
  const std::string& root = model.links().front().name;
  for (const VirtualJoint& v : srdf.virtual_joints)
    if (v.child_link == root) return &v;
  return nullptr;
}

std::optional<Pose> named_base_pose(const RobotModel& model, const Srdf& srdf,
                                    const std::string& state) {
  const VirtualJoint* root = root_virtual_joint(model, srdf);
  for (const GroupState& s : srdf.group_states) {
    if (s.name != state) continue;
    if (root == nullptr) return std::nullopt;
    for (const auto& [joint, values] : s.virtual_joint_values)
      if (joint == root->name) return virtual_joint_pose(*root, values);
    return std::nullopt;
  }
  (void)named_state(model, srdf, state);  // throws, listing the known states
  return std::nullopt;
}

void check_base_pose(const RobotModel& model, const Srdf& srdf, const Pose& pose) {
  const VirtualJoint* root = root_virtual_joint(model, srdf);
  if (root == nullptr || root->type == "floating") return;
  const Eigen::Matrix3d r = pose.linear();
  const Vec3 t = pose.translation();
  constexpr double kTolerance = 1e-9;
  std::ostringstream where;
  where.precision(17);
  where << "base pose (translation " << t.transpose() << ")";
  if (root->type == "fixed") {
    if (t.cwiseAbs().maxCoeff() > kTolerance ||
        (r - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() > kTolerance) {
      throw std::invalid_argument(where.str() + ": the SRDF's virtual joint '" + root->name +
                                  "' is fixed: the root link '" + root->child_link +
                                  "' stays at the frame '" + root->parent_frame +
                                  "' (identity pose)");
    }
    return;
  }
  // planar: moves in the parent frame's xy plane and turns about its z axis.
  if (std::abs(t.z()) > kTolerance || std::abs(r(2, 2) - 1.0) > kTolerance) {
    throw std::invalid_argument(where.str() + ": the SRDF's virtual joint '" + root->name +
                                "' is planar: z must be 0 and the rotation about z only");
  }
}

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace

std::string write_srdf(const Srdf& srdf) {
  std::ostringstream out;
  const auto q = [](const std::string& s) { return "\"" + escape(s) + "\""; };
  out << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out << "<robot name=" << q(srdf.robot_name) << ">\n";
  for (const VirtualJoint& v : srdf.virtual_joints) {
    out << "  <virtual_joint name=" << q(v.name) << " type=" << q(v.type)
        << " parent_frame=" << q(v.parent_frame) << " child_link=" << q(v.child_link) << "/>\n";
  }
  for (const SrdfGroup& g : srdf.groups) {
    out << "  <group name=" << q(g.name) << ">\n";
    for (const std::string& l : g.links) out << "    <link name=" << q(l) << "/>\n";
    for (const std::string& j : g.joints) out << "    <joint name=" << q(j) << "/>\n";
    for (const auto& [base, tip] : g.chains)
      out << "    <chain base_link=" << q(base) << " tip_link=" << q(tip) << "/>\n";
    for (const std::string& s : g.subgroups) out << "    <group name=" << q(s) << "/>\n";
    out << "  </group>\n";
  }
  for (const GroupState& s : srdf.group_states) {
    out << "  <group_state name=" << q(s.name) << " group=" << q(s.group) << ">\n";
    for (const auto& [joint, value] : s.joint_values)
      out << "    <joint name=" << q(joint) << " value=\"" << number(value) << "\"/>\n";
    for (const auto& [joint, values] : s.virtual_joint_values) {
      out << "    <joint name=" << q(joint) << " value=\"";
      for (size_t k = 0; k < values.size(); ++k) out << (k > 0 ? " " : "") << number(values[k]);
      out << "\"/>\n";
    }
    out << "  </group_state>\n";
  }
  for (const EndEffector& e : srdf.end_effectors) {
    out << "  <end_effector name=" << q(e.name) << " parent_link=" << q(e.parent_link)
        << " group=" << q(e.group);
    if (!e.parent_group.empty()) out << " parent_group=" << q(e.parent_group);
    out << "/>\n";
  }
  for (const std::string& p : srdf.passive_joints)
    out << "  <passive_joint name=" << q(p) << "/>\n";
  for (const DisabledCollision& d : srdf.disabled_collisions) {
    out << "  <disable_collisions link1=" << q(d.link1) << " link2=" << q(d.link2)
        << " reason=" << q(d.reason) << "/>\n";
  }
  out << "</robot>\n";
  return out.str();
}

}  // namespace gjk::robots
