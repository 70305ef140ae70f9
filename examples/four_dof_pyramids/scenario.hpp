// The 4-DOF pyramid scenario of seed 002 section 4.4: the arm, the two pyramids, the seed's
// initial pose and end-effector path, and one run of the velocity inversion (eq. 6) over it.
// Shared by the example program, its tests and the benchmark.
#pragma once

#include <gjk/planner/velocity_inversion.hpp>
#include <gjk/robots/robot_model.hpp>
#include <gjk/robots/scene.hpp>

#include <string>

namespace gjk::examples {

struct FourDofScenario {
  robots::RobotModel model;
  robots::Scene scene;
  planner::EndEffector end_effector;
  Eigen::VectorXd q0;  ///< the seed's initial pose (0, 90, -150, -30) degrees
  Vec3 x0;             ///< the end effector at q0

  /// Loads the project's 4-DOF arm and two-pyramid scene (paths default to the source tree).
  static FourDofScenario load(const std::string& urdf_path = default_urdf(),
                              const std::string& scene_path = default_scene());
  static std::string default_urdf();
  static std::string default_scene();

  /// The seed's end-effector path: speed 0.1 along -y until t = 6.7, then along +z until 16.7.
  planner::EndEffectorTrajectory trajectory() const;
  static constexpr double kTurnTime = 6.7;
  static constexpr double kEndTime = 16.7;
  static constexpr double kSpeed = 0.1;

  /// The seed's settings: d0 = 0.5, the given k; position_gain closes the loop (0 = eq. 6 as
  /// printed).
  planner::VelocityInversionOptions options(double k, double position_gain) const;

  /// One run over the whole path with a fixed step.
  planner::SimulationResult run(double k, double dt, double position_gain, int record_every) const;
  /// The same with any settings (engine options, warm start), e.g. options(k, gain) changed.
  planner::SimulationResult run(const planner::VelocityInversionOptions& settings, double dt,
                                int record_every) const;
};

}  // namespace gjk::examples
