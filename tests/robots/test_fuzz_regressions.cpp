// Regressions found by the fuzz targets of the robots front ends (fuzz/fuzz_urdf.cpp,
// fuzz/fuzz_scene.cpp, scripts/fuzz.sh).
#include <gtest/gtest.h>
#include <gjk/robots/robot_model.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

using gjk::robots::ModelError;
using gjk::robots::RobotModel;

// fuzz_urdf: a joint whose child is its own parent link passes urdfdom, and the loader's walk
// of the link tree then looped forever (a timeout, memory growing without bound).
TEST(FuzzRegressions, JointFromALinkToItselfIsAModelError) {
  const std::string xml = R"(<robot name="m">
  <link name="base"/><link name="l1"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/></joint>
</robot>)";
  try {
    (void)RobotModel::from_urdf_string(xml, ".", "self_loop.urdf");
    FAIL() << "loaded a URDF whose joints do not form a tree";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("do not form a tree"), std::string::npos) << e.what();
  }
}

// fuzz_urdf (scripts/fuzz.sh, 576,117 executions into a 30-minute run): a URDF ending in the
// lead byte of a 3-byte UTF-8 sequence ("...<me\xEFsh\xEF") made TinyXML, under urdfdom, skip
// past the terminating NUL: a heap-buffer-overflow read (ASan) in TiXmlBase::ReadName. The loader
// now checks the text is UTF-8 first and names the line and column.
TEST(FuzzRegressions, TruncatedUtf8IsAModelErrorWithItsPlace) {
  const std::string head = "<robot name=\"m\">\n  <link name=\"base\">\n    <geometr\xEF\xEFy>";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + "\xEF<me\xEFsh\xEF", "line 3, column 13"},  // the fuzzer's ending
      {head, "line 3, column 13"},                        // cut short mid-text
      {"<robot name=\"m\"/>\xC3", "line 1, column 18"},   // 2-byte lead at the very end
      {"<robot name=\"m\"/>\xF0\x9F\x98", "line 1, column 18"},
      {"<robot name=\"m\">\n\xC0\xAF</robot>", "line 2, column 1"},      // overlong '/'
      {"<robot name=\"m\">\n\xED\xA0\x80</robot>", "line 2, column 1"},  // a surrogate
      {std::string("<robot name=\"m\">\0</robot>", 25), "NUL byte"},
  };
  for (const auto& [xml, place] : cases) {
    try {
      (void)RobotModel::from_urdf_string(xml, ".", "bad.urdf");
      ADD_FAILURE() << "loaded text that is not UTF-8: " << place;
    } catch (const ModelError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("bad.urdf"), std::string::npos) << message;
      EXPECT_NE(message.find(place), std::string::npos) << message;
      EXPECT_NE(message.find("UTF-8"), std::string::npos) << message;
    }
  }
  // Well-formed UTF-8 (2-, 3- and 4-byte sequences in a comment and a name) still loads.
  const RobotModel model = RobotModel::from_urdf_string(
      "<robot name=\"m\"><!-- \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 -->"
      "<link name=\"b\xC3\xA4se\"/></robot>",
      ".", "good.urdf");
  EXPECT_EQ(model.links().size(), 1u);
}

// fuzz_urdf (958,224 executions into a 20-minute run): a mesh file name longer than the system
// allows made std::filesystem::exists throw filesystem_error ("File name too long"), an
// undocumented exception. It is now a ModelError naming the file and the reason, and a
// package:// URI that cannot be looked up is "cannot resolve".
TEST(FuzzRegressions, OverlongMeshFileNameIsAModelError) {
  const std::string long_name(5000, 'm');
  for (const std::string& uri :
       {"meshes/" + long_name + ".stl", "package://pkg/" + long_name + ".stl"}) {
    const std::string xml =
        "<robot name=\"m\"><link name=\"base\"><collision><geometry><mesh "
        "filename=\"" +
        uri + "\"/></geometry></collision></link></robot>";
    try {
      (void)RobotModel::from_urdf_string(xml, ".", "long.urdf");
      ADD_FAILURE() << "loaded a mesh with a 5000-character name";
    } catch (const ModelError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("long.urdf"), std::string::npos) << message.substr(0, 200);
      const bool names_reason = message.find("cannot be accessed") != std::string::npos ||
                                message.find("cannot find") != std::string::npos;
      EXPECT_TRUE(names_reason) << message.substr(0, 200);
    }
  }
}

}  // namespace
