// `--base-pose X,Y,Z,ROLL,PITCH,YAW`: where the robot's root link stands in the world (the SRDF's
// virtual joint), shared by gjk-plan and gjk-clearance so both read a path in the same frame.
#pragma once

#include <gjk/shapes.hpp>

#include "number_list.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::tools {

/// Parses six comma-separated finite numbers, metres and radians (roll, pitch, yaw about the
/// fixed x, y, z axes: R = Rz(yaw) Ry(pitch) Rx(roll), the URDF convention). Throws
/// std::invalid_argument naming the option and the value.
inline Pose parse_base_pose(const std::string& text, const std::string& option = "--base-pose") {
  const std::vector<double> v = parse_number_list(text, option);
  if (v.size() != 6) {
    throw std::invalid_argument(option + ": expected 6 values X,Y,Z,ROLL,PITCH,YAW (m, rad), got " +
                                std::to_string(v.size()));
  }
  Pose pose = Pose::Identity();
  pose.translation() = Vec3(v[0], v[1], v[2]);
  pose.linear() = (Eigen::AngleAxisd(v[5], Vec3::UnitZ()) * Eigen::AngleAxisd(v[4], Vec3::UnitY()) *
                   Eigen::AngleAxisd(v[3], Vec3::UnitX()))
                      .toRotationMatrix();
  return pose;
}

}  // namespace gjk::tools
