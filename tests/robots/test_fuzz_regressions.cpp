// Regressions found by the fuzz targets of the robots front ends (fuzz/fuzz_urdf.cpp,
// fuzz/fuzz_scene.cpp, scripts/fuzz.sh).
#include <gtest/gtest.h>
#include <gjk/robots/robot_model.hpp>

#include <string>

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

}  // namespace
