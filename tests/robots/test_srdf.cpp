// SRDF parsing against the real Panda SRDF (counted independently from the file text), the
// allowed-collision matrix, named states and groups, error messages (file, line, value), and the
// MoveIt-style disable_collisions generator checked on fresh random samples.
#include <gtest/gtest.h>

#include "gjk/queries.hpp"
#include "gjk/robots/allowed_collisions.hpp"
#include "gjk/robots/distances.hpp"
#include "gjk/robots/srdf.hpp"
#include "gjk/robots/srdf_generator.hpp"

#include <clocale>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

namespace {

using namespace gjk;
using namespace gjk::robots;
namespace fs = std::filesystem;

const std::string kShared = GJK_SHARED_ROBOT_MODELS_DIR;
const std::string kPandaUrdf = kShared + "/panda/panda.urdf";
const std::string kPandaSrdf = kShared + "/panda/panda.srdf";

const RobotModel& panda() {
  static const RobotModel model = RobotModel::from_urdf_file(kPandaUrdf);
  return model;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using NamePair = std::pair<std::string, std::string>;
NamePair ordered(const std::string& a, const std::string& b) {
  return a < b ? NamePair{a, b} : NamePair{b, a};
}

/// The file's disable_collisions pairs, read with a regex (not with the parser under test).
std::set<NamePair> disabled_in_text(const std::string& text) {
  std::set<NamePair> out;
  const std::regex element(R"re(<disable_collisions\s+link1="([^"]+)"\s+link2="([^"]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), element);
       it != std::sregex_iterator(); ++it) {
    out.insert(ordered((*it)[1].str(), (*it)[2].str()));
  }
  return out;
}

std::set<NamePair> adjacent_names(const RobotModel& model) {
  std::set<NamePair> out;
  for (const auto& [a, b] : adjacent_link_pairs(model)) {
    out.insert(ordered(model.links()[static_cast<size_t>(a)].name,
                       model.links()[static_cast<size_t>(b)].name));
  }
  return out;
}

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("gjk_srdf_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  fs::path path_;
};

TEST(Srdf, PandaDisableCollisionsMatchTheFile) {
  const std::string text = read_text(kPandaSrdf);
  size_t elements = 0;
  for (size_t at = text.find("<disable_collisions"); at != std::string::npos;
       at = text.find("<disable_collisions", at + 1))
    ++elements;
  const Srdf srdf = load_srdf(kPandaSrdf, panda());
  EXPECT_EQ(srdf.robot_name, "panda");
  EXPECT_GT(elements, 0u);
  EXPECT_EQ(srdf.disabled_collisions.size(), elements);
  std::set<NamePair> parsed;
  for (const DisabledCollision& d : srdf.disabled_collisions) {
    parsed.insert(ordered(d.link1, d.link2));
    EXPECT_TRUE(d.reason == "Adjacent" || d.reason == "Never" || d.reason == "Default") << d.reason;
  }
  EXPECT_EQ(parsed, disabled_in_text(text));

  ASSERT_EQ(srdf.virtual_joints.size(), 1u);
  EXPECT_EQ(srdf.virtual_joints[0].type, "floating");
  EXPECT_EQ(srdf.virtual_joints[0].child_link, "panda_link0");
  ASSERT_EQ(srdf.end_effectors.size(), 1u);
  EXPECT_EQ(srdf.end_effectors[0].parent_link, "panda_link8");
  EXPECT_EQ(srdf.end_effectors[0].parent_group, "panda_arm");
  EXPECT_EQ(srdf.groups.size(), 3u);
  EXPECT_EQ(srdf.group_states.size(), 5u);
}

TEST(Srdf, AcmAllowsExactlyTheFilePairsAndAdjacentLinks) {
  const RobotModel& model = panda();
  const Srdf srdf = load_srdf(kPandaSrdf, model);
  const AllowedCollisionMatrix acm = acm_from_srdf(model, srdf);
  const std::set<NamePair> in_file = disabled_in_text(read_text(kPandaSrdf));
  const std::set<NamePair> adjacent = adjacent_names(model);
  for (size_t a = 0; a < model.links().size(); ++a) {
    for (size_t b = a + 1; b < model.links().size(); ++b) {
      const NamePair p = ordered(model.links()[a].name, model.links()[b].name);
      const bool expected = in_file.count(p) > 0 || adjacent.count(p) > 0;
      EXPECT_EQ(acm.allowed(p.first, p.second), expected) << p.first << " " << p.second;
      EXPECT_EQ(acm.allowed(p.second, p.first), expected);
    }
  }
  // The shape pairs left to check are those whose links the matrix does not allow.
  for (const auto& [i, k] : self_collision_pairs(model, acm)) {
    const auto& s = model.collision_shapes();
    EXPECT_FALSE(
        acm.allowed(model.links()[static_cast<size_t>(s[static_cast<size_t>(i)].link)].name,
                    model.links()[static_cast<size_t>(s[static_cast<size_t>(k)].link)].name));
  }
}

TEST(Srdf, AdjacencyMatrixAgreesWithSelfCollisionPairs) {
  for (const std::string& urdf : {kPandaUrdf, kShared + "/panda/panda_primitives.urdf"}) {
    const RobotModel model = RobotModel::from_urdf_file(urdf);
    EXPECT_EQ(self_collision_pairs(model, AllowedCollisionMatrix::from_adjacency(model)),
              self_collision_pairs(model, {}, true))
        << urdf;
  }
}

TEST(Srdf, NamedStatesHaveTheFileValues) {
  const RobotModel& model = panda();
  const Srdf srdf = load_srdf(kPandaSrdf, model);
  const Eigen::VectorXd ready = named_state(model, srdf, "ready");
  const std::map<std::string, double> in_file = {{"panda_joint1", 0.0},  {"panda_joint2", -0.785},
                                                 {"panda_joint3", 0.0},  {"panda_joint4", -2.356},
                                                 {"panda_joint5", 0.0},  {"panda_joint6", 1.571},
                                                 {"panda_joint7", 0.785}};
  ASSERT_EQ(ready.size(), model.num_positions());
  for (int i = 0; i < model.num_positions(); ++i) {
    const std::string& name = model.position_names()[static_cast<size_t>(i)];
    const auto it = in_file.find(name);
    EXPECT_EQ(ready[i], it != in_file.end() ? it->second : 0.0) << name;
  }
  // Entries the state does not name come from `base`.
  const Eigen::VectorXd base = Eigen::VectorXd::Constant(model.num_positions(), 0.02);
  const Eigen::VectorXd with_base = named_state(model, srdf, "ready", &base);
  const Eigen::VectorXd open = named_state(model, srdf, "open", &base);
  for (int i = 0; i < model.num_positions(); ++i) {
    const std::string& name = model.position_names()[static_cast<size_t>(i)];
    EXPECT_EQ(with_base[i], in_file.count(name) ? in_file.at(name) : 0.02) << name;
    EXPECT_EQ(open[i], name == "panda_finger_joint1" ? 0.035 : 0.02) << name;
  }
  model.check_configuration(ready);
  // The mimic finger's value is not a position of its own: dropped.
  for (const GroupState& s : srdf.group_states) {
    for (const auto& [joint, value] : s.joint_values) EXPECT_NE(joint, "panda_finger_joint2");
  }
  try {
    (void)named_state(model, srdf, "folded");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("folded"), std::string::npos) << what;
    for (const char* known : {"ready", "extended", "transport", "open", "close"})
      EXPECT_NE(what.find(known), std::string::npos) << what;
  }
  const Eigen::VectorXd wrong(3);
  EXPECT_THROW((void)named_state(model, srdf, "ready", &wrong), std::invalid_argument);
}

TEST(Srdf, GroupJoints) {
  const RobotModel& model = panda();
  const Srdf srdf = load_srdf(kPandaSrdf, model);
  const std::vector<std::string> arm = {"panda_joint1", "panda_joint2", "panda_joint3",
                                        "panda_joint4", "panda_joint5", "panda_joint6",
                                        "panda_joint7"};
  EXPECT_EQ(group_joints(model, srdf, "panda_arm"), arm);
  EXPECT_EQ(group_joints(model, srdf, "hand"), std::vector<std::string>{"panda_finger_joint1"});
  std::vector<std::string> both = arm;
  both.push_back("panda_finger_joint1");
  EXPECT_EQ(group_joints(model, srdf, "panda_arm_hand"), both);
  EXPECT_THROW((void)group_joints(model, srdf, "legs"), std::invalid_argument);

  // A chain through the common root (tip of one branch to tip of another) and a subgroup cycle.
  const Srdf other = parse_srdf(R"(<robot name="panda">
  <group name="fingers"><chain base_link="panda_leftfinger" tip_link="panda_rightfinger"/></group>
  <group name="a"><link name="panda_link3"/><group name="b"/></group>
  <group name="b"><joint name="panda_joint6"/><group name="a"/></group>
</robot>)",
                                model);
  EXPECT_EQ(group_joints(model, other, "fingers"),
            std::vector<std::string>{"panda_finger_joint1"});  // joint2 is a mimic
  EXPECT_EQ(group_joints(model, other, "a"),
            (std::vector<std::string>{"panda_joint3", "panda_joint6"}));
}

TEST(Srdf, WriteReadRoundTrip) {
  const RobotModel& model = panda();
  const Srdf srdf = load_srdf(kPandaSrdf, model);
  const Srdf again = parse_srdf(write_srdf(srdf), model);
  EXPECT_EQ(again.robot_name, srdf.robot_name);
  ASSERT_EQ(again.disabled_collisions.size(), srdf.disabled_collisions.size());
  for (size_t i = 0; i < srdf.disabled_collisions.size(); ++i) {
    EXPECT_EQ(again.disabled_collisions[i].link1, srdf.disabled_collisions[i].link1);
    EXPECT_EQ(again.disabled_collisions[i].link2, srdf.disabled_collisions[i].link2);
    EXPECT_EQ(again.disabled_collisions[i].reason, srdf.disabled_collisions[i].reason);
  }
  ASSERT_EQ(again.group_states.size(), srdf.group_states.size());
  for (size_t i = 0; i < srdf.group_states.size(); ++i)
    EXPECT_EQ(again.group_states[i].joint_values, srdf.group_states[i].joint_values);
  ASSERT_EQ(again.groups.size(), srdf.groups.size());
  EXPECT_EQ(again.groups[2].subgroups, srdf.groups[2].subgroups);
  EXPECT_EQ(again.virtual_joints.size(), 1u);
  EXPECT_EQ(again.end_effectors.size(), 1u);
  // Names are escaped.
  Srdf odd;
  odd.robot_name = "a<b>&\"c'";
  EXPECT_EQ(parse_srdf(write_srdf(odd), model).robot_name, odd.robot_name);
}

TEST(Srdf, ValuesIgnoreTheLocaleAndFixedJoints) {
  const char* previous = std::setlocale(LC_ALL, nullptr);
  const std::string saved = previous != nullptr ? previous : "C";
  if (std::setlocale(LC_ALL, "de_DE.UTF-8") == nullptr) GTEST_SKIP() << "no de_DE.UTF-8 locale";
  Srdf srdf;
  try {
    srdf = parse_srdf(R"(<robot name="panda"><group name="arm"><joint name="panda_joint1"/></group>
  <group_state name="s" group="arm">
    <joint name="panda_joint1" value="0.25"/>
    <joint name="panda_joint8" value="1.5"/>
    <joint name="panda_finger_joint2" value="0.01"/>
  </group_state></robot>)",
                      panda());
  } catch (...) {
    std::setlocale(LC_ALL, saved.c_str());
    throw;
  }
  std::setlocale(LC_ALL, saved.c_str());
  ASSERT_EQ(srdf.group_states.size(), 1u);
  EXPECT_EQ(srdf.group_states[0].joint_values,
            (std::vector<std::pair<std::string, double>>{{"panda_joint1", 0.25}}));
}

struct BadSrdf {
  const char* label;
  std::string text;   // line numbers count from 1 at the first character
  int line;           // expected line in the message
  std::string value;  // expected in the message
};

TEST(Srdf, ErrorsNameFileLineAndValue) {
  const std::string head = "<?xml version=\"1.0\"?>\n<robot name=\"panda\">\n";  // lines 1-2
  const std::string arm =
      "  <group name=\"arm\"><chain base_link=\"panda_link0\" "
      "tip_link=\"panda_link8\"/></group>\n";  // line 3
  const auto state = [&](const std::string& joint, const std::string& value) {
    return head + arm + "  <group_state name=\"s\" group=\"arm\">\n    <joint name=\"" + joint +
           "\" value=\"" + value + "\"/>\n  </group_state>\n</robot>\n";  // joint on line 5
  };
  const std::vector<BadSrdf> cases = {
      // tinyxml2 points at the element left open
      {"xml", head + "  <group name=\"arm\">\n</robot>\n", 3, "group"},
      {"root", "<?xml version=\"1.0\"?>\n\n<robo name=\"panda\"/>\n", 3, "robo"},
      {"disable",
       head + "\n  <disable_collisions link1=\"panda_link1\" link2=\"panda_link99\"/>\n</robot>", 4,
       "panda_link99"},
      {"state_group",
       head + arm + "  <group_state name=\"s\" group=\"no_such_group\">\n</group_state></robot>", 4,
       "no_such_group"},
      {"state_joint", state("panda_joint99", "0"), 5, "panda_joint99"},
      {"nan", state("panda_joint1", "nan"), 5, "nan"},
      {"inf", state("panda_joint1", "-inf"), 5, "-inf"},
      {"overflow", state("panda_joint1", "1e999"), 5, "1e999"},
      {"comma", state("panda_joint1", "0,5"), 5, "0,5"},
      {"text", state("panda_joint1", "abc"), 5, "abc"},
      {"two", state("panda_joint1", "1 2"), 5, "1 2"},
      {"empty", state("panda_joint1", ""), 5, "value=''"},
      {"vj_type",
       head + "  <virtual_joint name=\"v\" type=\"wobbly\" parent_frame=\"world\" "
              "child_link=\"panda_link0\"/>\n</robot>",
       3, "wobbly"},
      {"vj_child",
       head + "\n  <virtual_joint name=\"v\" type=\"fixed\" parent_frame=\"world\" "
              "child_link=\"nowhere\"/>\n</robot>",
       4, "nowhere"},
      {"group_link",
       head + "  <group name=\"g\">\n    <link name=\"ghost_link\"/>\n</group></robot>", 4,
       "ghost_link"},
      {"group_joint",
       head + "  <group name=\"g\">\n\n    <joint name=\"ghost_joint\"/>\n</group></robot>", 5,
       "ghost_joint"},
      {"chain",
       head + "  <group name=\"g\">\n    <chain base_link=\"panda_link0\" tip_link=\"tip\"/>\n"
              "</group></robot>",
       4, "tip"},
      {"subgroup",
       head + "  <group name=\"g\">\n    <group name=\"ghost_group\"/>\n</group></robot>", 4,
       "ghost_group"},
      {"missing_attribute", head + "  <disable_collisions link1=\"panda_link1\"/>\n</robot>", 3,
       "link2"},
      {"ee_group",
       head + "  <end_effector name=\"e\" parent_link=\"panda_link8\" group=\"nope\"/>\n</robot>",
       3, "nope"},
      {"passive", head + "  <passive_joint name=\"ghost_passive\"/>\n</robot>", 3, "ghost_passive"},
  };
  const TempDir dir;
  for (const BadSrdf& c : cases) {
    const std::string path = dir.write(std::string(c.label) + ".srdf", c.text);
    try {
      (void)load_srdf(path, panda());
      ADD_FAILURE() << c.label << ": no exception";
    } catch (const SrdfError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(path + ":" + std::to_string(c.line) + ": ", 0), 0u)
          << c.label << ": " << what;
      EXPECT_NE(what.find(c.value), std::string::npos) << c.label << ": " << what;
    }
  }
  // Missing file: named, no line to point at.
  const std::string missing = (fs::temp_directory_path() / "gjk_no_such_file.srdf").string();
  try {
    (void)load_srdf(missing, panda());
    ADD_FAILURE() << "no exception";
  } catch (const SrdfError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(missing + ":0: ", 0), 0u) << e.what();
  }
  // parse_srdf names its text with `name`.
  try {
    (void)parse_srdf("<robot><disable_collisions link1=\"x\" link2=\"panda_link1\"/></robot>",
                     panda(), "inline.srdf");
    ADD_FAILURE() << "no exception";
  } catch (const SrdfError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("inline.srdf:1: ", 0), 0u) << e.what();
  }
}

// Virtual joints (issue 17 item 4): the root's base pose from group states (MoveIt's variable
// order), what each joint type can reach, and the errors for wrong value counts.
TEST(Srdf, VirtualJointBasePoses) {
  const std::string head = "<?xml version=\"1.0\"?>\n<robot name=\"panda\">\n";
  const auto srdf_with = [&](const std::string& type, const std::string& value) {
    return head + "  <virtual_joint name=\"base\" type=\"" + type +
           "\" parent_frame=\"world\" child_link=\"panda_link0\"/>\n"
           "  <group name=\"arm\"><chain base_link=\"panda_link0\" tip_link=\"panda_link8\"/>"
           "</group>\n"
           "  <group_state name=\"parked\" group=\"arm\">\n"
           "    <joint name=\"base\" value=\"" +
           value +
           "\"/>\n"
           "    <joint name=\"panda_joint4\" value=\"-1.5\"/>\n"
           "  </group_state>\n</robot>\n";
  };
  const RobotModel& model = panda();
  {
    const Srdf planar = parse_srdf(srdf_with("planar", "1 -2 0.5"), model);
    const std::optional<Pose> pose = named_base_pose(model, planar, "parked");
    ASSERT_TRUE(pose.has_value());
    EXPECT_TRUE(pose->translation().isApprox(Vec3(1, -2, 0), 0.0));
    EXPECT_TRUE(
        pose->linear().isApprox(Eigen::AngleAxisd(0.5, Vec3::UnitZ()).toRotationMatrix(), 1e-15));
    EXPECT_EQ(named_state(model, planar, "parked")[3], -1.5);
    EXPECT_NO_THROW(check_base_pose(model, planar, *pose));
    Pose lifted = *pose;
    lifted.translation().z() = 0.1;
    EXPECT_THROW(check_base_pose(model, planar, lifted), std::invalid_argument);
    Pose tilted = *pose;
    tilted.linear() = Eigen::AngleAxisd(0.2, Vec3::UnitX()).toRotationMatrix();
    EXPECT_THROW(check_base_pose(model, planar, tilted), std::invalid_argument);
    // The values survive writing and reading.
    const Srdf again = parse_srdf(write_srdf(planar), model);
    ASSERT_EQ(again.group_states.size(), 1u);
    EXPECT_EQ(again.group_states[0].virtual_joint_values,
              planar.group_states[0].virtual_joint_values);
  }
  {
    // Floating: x y z qx qy qz qw; a quaternion of 90 degrees about y.
    const double h = std::sqrt(0.5);
    std::ostringstream value;
    value.precision(17);
    value << "0.5 0.25 1 0 " << h << " 0 " << h;
    const Srdf floating = parse_srdf(srdf_with("floating", value.str()), model);
    const Pose pose = *named_base_pose(model, floating, "parked");
    EXPECT_TRUE(pose.translation().isApprox(Vec3(0.5, 0.25, 1.0), 0.0));
    EXPECT_LT((pose.linear() - Eigen::AngleAxisd(std::acos(0.0), Vec3::UnitY()).toRotationMatrix())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-15);
    EXPECT_NO_THROW(check_base_pose(model, floating, pose));
  }
  {
    // MoveIt's Panda SRDF: a floating virtual joint (any pose); its states give no base values.
    const Srdf moveit = load_srdf(kPandaSrdf, model);
    ASSERT_NE(root_virtual_joint(model, moveit), nullptr);
    EXPECT_EQ(root_virtual_joint(model, moveit)->type, "floating");
    EXPECT_FALSE(named_base_pose(model, moveit, "ready").has_value());
    Pose moved = Pose::Identity();
    moved.translation() = Vec3(0.5, -1.0, 0.3);
    moved.linear() = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
    EXPECT_NO_THROW(check_base_pose(model, moveit, moved));
    EXPECT_THROW((void)named_base_pose(model, moveit, "no_such_state"), std::invalid_argument);
    // A fixed one keeps the root at its parent frame.
    const Srdf fixed = parse_srdf(head +
                                      "  <virtual_joint name=\"base\" type=\"fixed\" "
                                      "parent_frame=\"world\" child_link=\"panda_link0\"/>\n"
                                      "</robot>\n",
                                  model);
    EXPECT_NO_THROW(check_base_pose(model, fixed, Pose::Identity()));
    try {
      check_base_pose(model, fixed, moved);
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("is fixed"), std::string::npos) << e.what();
    }
    // No virtual joint on the root: any pose.
    EXPECT_NO_THROW(check_base_pose(model, parse_srdf(head + "</robot>\n", model), moved));
  }
  // Wrong counts and a non-unit quaternion name the file, line and value.
  const TempDir dir;
  const std::vector<std::pair<std::string, std::string>> bad = {{"planar", "1 2"},
                                                                {"planar", "1 2 3 4"},
                                                                {"floating", "0 0 0 0 0 0"},
                                                                {"floating", "0 0 0 0 0 0 2"},
                                                                {"fixed", "0"},
                                                                {"planar", "1 nan 0"}};
  for (const auto& [type, value] : bad) {
    const std::string path = dir.write("vj.srdf", srdf_with(type, value));
    try {
      (void)load_srdf(path, model);
      ADD_FAILURE() << type << " '" << value << "': no exception";
    } catch (const SrdfError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(path + ":6: ", 0), 0u) << what;
      EXPECT_NE(what.find(value), std::string::npos) << what;
    }
  }
}

TEST(AllowedCollisionMatrix, PairEntriesDefaultsAndRemoval) {
  AllowedCollisionMatrix acm;
  EXPECT_FALSE(acm.allowed("a", "b"));
  EXPECT_FALSE(acm.allowed("a", "a"));
  acm.set_allowed("b", "a", true);
  EXPECT_TRUE(acm.allowed("a", "b"));
  EXPECT_TRUE(acm.allowed("b", "a"));
  acm.set_allowed("a", "a", true);
  EXPECT_TRUE(acm.allowed("a", "a"));
  EXPECT_EQ(acm.size(), 2u);

  // A default covers every pair of its name, unless a pair entry says otherwise.
  acm.set_default("box", true);
  EXPECT_TRUE(acm.allowed("box", "a"));
  EXPECT_TRUE(acm.allowed("c", "box"));
  acm.set_allowed("box", "c", false);
  EXPECT_FALSE(acm.allowed("c", "box"));
  EXPECT_TRUE(acm.allowed("d", "box"));
  acm.set_default("a", false);  // both have defaults: allowed only if both allow
  EXPECT_FALSE(acm.allowed("a", "box"));
  EXPECT_TRUE(acm.allowed("a", "b"));  // pair entry wins over a's default
  acm.set_default("a", true);
  EXPECT_TRUE(acm.allowed("a", "box"));
  EXPECT_TRUE(acm.allowed("a", "zzz"));
  acm.remove_default("a");
  EXPECT_FALSE(acm.allowed("a", "zzz"));

  EXPECT_EQ(acm.size(), 3u);
  EXPECT_EQ(acm.allowed_pairs(), (std::vector<NamePair>{{"a", "a"}, {"a", "b"}}));
  acm.remove("a", "b");
  acm.remove("x", "y");  // absent: nothing happens
  EXPECT_FALSE(acm.allowed("b", "a"));
  EXPECT_EQ(acm.size(), 2u);
  acm.remove("c", "box");
  EXPECT_TRUE(acm.allowed("box", "c"));  // back to box's default
  EXPECT_EQ(acm.allowed_pairs(), (std::vector<NamePair>{{"a", "a"}}));
}

// mentions() and allowed_by_default() (the collision world's one lookup per added obstacle)
// against a reference kept beside random edits: a name is mentioned exactly when it has a
// default or a pair entry names it, and for every name the matrix does not mention,
// allowed(a, name) == allowed_by_default(a).
TEST(AllowedCollisionMatrix, MentionsFollowEveryEditAndUnmentionedNamesTakeTheDefault) {
  const std::vector<std::string> names{"a", "b", "c", "box", "link", "zz"};
  std::mt19937 rng(5);
  AllowedCollisionMatrix acm;
  std::map<std::pair<std::string, std::string>, bool> entries;
  std::map<std::string, bool> defaults;
  const auto pick = [&] { return names[std::uniform_int_distribution<size_t>(0, 5)(rng)]; };
  for (int step = 0; step < 3000; ++step) {
    const std::string a = pick(), b = pick();
    const auto key = a <= b ? std::make_pair(a, b) : std::make_pair(b, a);
    const bool value = rng() % 2 == 0;
    switch (rng() % 4) {
      case 0:
        acm.set_allowed(a, b, value);
        entries[key] = value;
        break;
      case 1:
        acm.remove(a, b);
        entries.erase(key);
        break;
      case 2:
        acm.set_default(a, value);
        defaults[a] = value;
        break;
      default:
        acm.remove_default(a);
        defaults.erase(a);
        break;
    }
    for (const std::string& name : names) {
      bool mentioned = defaults.count(name) != 0;
      for (const auto& [pair, v] : entries) mentioned |= pair.first == name || pair.second == name;
      ASSERT_EQ(acm.mentions(name), mentioned) << name << " at step " << step;
      if (mentioned) continue;
      for (const std::string& other : names)
        ASSERT_EQ(acm.allowed(other, name), acm.allowed_by_default(other)) << other << ", " << name;
    }
    ASSERT_EQ(acm.size(), entries.size());
  }
}

TEST(AllowedCollisionMatrix, FromAdjacencyOnPanda) {
  const RobotModel& model = panda();
  const AllowedCollisionMatrix acm = AllowedCollisionMatrix::from_adjacency(model);
  EXPECT_TRUE(acm.allowed("panda_link3", "panda_link4"));
  EXPECT_TRUE(acm.allowed("panda_link7", "panda_hand"));  // fixed joints between: adjacent
  EXPECT_TRUE(acm.allowed("panda_hand", "panda_leftfinger"));
  EXPECT_TRUE(acm.allowed("panda_leftfinger", "panda_link7"));
  EXPECT_FALSE(acm.allowed("panda_leftfinger", "panda_rightfinger"));  // two prismatic joints
  EXPECT_FALSE(acm.allowed("panda_link3", "panda_link5"));
  EXPECT_EQ(acm.size(), adjacent_names(model).size());
}

/// Whether any shape of link `a` touches any shape of link `b` at the poses in ws.
bool links_touch(const RobotModel& model, const Workspace& ws, int a, int b) {
  const auto& shapes = model.collision_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i].link != a) continue;
    for (size_t k = 0; k < shapes.size(); ++k) {
      if (shapes[k].link != b) continue;
      if (collide(shapes[i].shape, collision_pose(model, ws, static_cast<int>(i)), shapes[k].shape,
                  collision_pose(model, ws, static_cast<int>(k)))
              .collision)
        return true;
    }
  }
  return false;
}

TEST(SrdfGenerator, PandaMatrixHoldsOnFreshSamples) {
  const RobotModel& model = panda();
  constexpr int kSamples = 2000;
  const CollisionMatrixReport report = generate_disabled_collisions(model, kSamples, 7u);
  EXPECT_EQ(report.samples, kSamples);

  std::set<int> with_shapes;
  for (const CollisionShape& s : model.collision_shapes()) with_shapes.insert(s.link);
  std::set<NamePair> adjacent_with_shapes;
  for (const auto& [a, b] : adjacent_link_pairs(model)) {
    if (with_shapes.count(a) && with_shapes.count(b)) {
      adjacent_with_shapes.insert(ordered(model.links()[static_cast<size_t>(a)].name,
                                          model.links()[static_cast<size_t>(b)].name));
    }
  }
  std::set<NamePair> generated_adjacent, never;
  std::map<NamePair, std::string> generated;
  for (const DisabledCollision& d : report.disabled) {
    EXPECT_LT(d.link1, d.link2);
    generated[{d.link1, d.link2}] = d.reason;
    if (d.reason == "Adjacent") generated_adjacent.insert({d.link1, d.link2});
    if (d.reason == "Never") never.insert({d.link1, d.link2});
  }
  EXPECT_EQ(generated_adjacent, adjacent_with_shapes);
  EXPECT_FALSE(never.empty());

  // Every "Never" pair stays apart on fresh configurations from another seed. Statistical: with
  // 2000 samples some generator seeds miss the ~0.1% collisions of link2-link6/link2-link7 (see
  // srdf_generator.hpp); seed 7 does not (checked against 10000 fresh samples too).
  std::mt19937_64 rng(20261125u);
  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();
  Workspace ws(model);
  std::map<NamePair, int> failures;
  for (int s = 0; s < kSamples; ++s) {
    Eigen::VectorXd q(model.num_positions());
    for (int i = 0; i < q.size(); ++i)
      q[i] = std::uniform_real_distribution<double>(lower[i], upper[i])(rng);
    forward_kinematics(model, q, ws);
    for (const NamePair& p : never) {
      if (links_touch(model, ws, model.link_index(p.first), model.link_index(p.second)))
        ++failures[p];
    }
  }
  for (const auto& [p, count] : failures)
    ADD_FAILURE() << p.first << " / " << p.second << " marked Never, in collision in " << count
                  << " of " << kSamples << " fresh samples";

  // Generated against shipped: what differs (numbers for the report).
  const Srdf shipped = load_srdf(kPandaSrdf, model);
  std::map<NamePair, std::string> in_file;
  for (const DisabledCollision& d : shipped.disabled_collisions)
    in_file[ordered(d.link1, d.link2)] = d.reason;
  std::map<std::string, int> by_reason;
  for (const auto& [p, reason] : generated) ++by_reason[reason];
  std::cout << "generated (" << kSamples << " samples, seed 7): " << generated.size()
            << " disabled pairs;";
  for (const auto& [reason, count] : by_reason) std::cout << " " << reason << " " << count;
  std::cout << "\nshipped panda.srdf: " << in_file.size() << " disabled pairs\n";
  int only_generated = 0, only_shipped = 0, reason_differs = 0;
  for (const auto& [p, reason] : generated) {
    const auto it = in_file.find(p);
    if (it == in_file.end()) {
      ++only_generated;
      std::cout << "  only generated: " << p.first << " " << p.second << " (" << reason << ")\n";
    } else if (it->second != reason) {
      ++reason_differs;
      std::cout << "  reason differs: " << p.first << " " << p.second << " generated " << reason
                << ", shipped " << it->second << "\n";
    }
  }
  for (const auto& [p, reason] : in_file) {
    if (generated.count(p) == 0) {
      ++only_shipped;
      std::cout << "  only shipped: " << p.first << " " << p.second << " (" << reason << ")\n";
    }
  }
  std::cout << "only generated " << only_generated << ", only shipped " << only_shipped
            << ", in both with different reasons " << reason_differs << "\n";

  // The generated list is an SRDF the parser reads back.
  Srdf written;
  written.robot_name = model.name();
  written.disabled_collisions = report.disabled;
  EXPECT_EQ(parse_srdf(write_srdf(written), model).disabled_collisions.size(),
            report.disabled.size());

  // Same seed, same answer.
  const CollisionMatrixReport again = generate_disabled_collisions(model, 200, 3u);
  const CollisionMatrixReport repeat = generate_disabled_collisions(model, 200, 3u);
  ASSERT_EQ(again.disabled.size(), repeat.disabled.size());
  for (size_t i = 0; i < again.disabled.size(); ++i)
    EXPECT_EQ(again.disabled[i].reason, repeat.disabled[i].reason);
}

}  // namespace
