#include "scenario.hpp"

#include "data_paths.hpp"

#include <cmath>

namespace gjk::examples {

std::string FourDofScenario::default_urdf() {
  return gjk::tools::data_dir() + "/robots/models/four_dof/four_dof_arm.urdf";
}
std::string FourDofScenario::default_scene() {
  return gjk::tools::data_dir() + "/robots/scenes/two_pyramids.yaml";
}

FourDofScenario FourDofScenario::load(const std::string& urdf_path, const std::string& scene_path) {
  FourDofScenario s{robots::RobotModel::from_urdf_file(urdf_path),
                    robots::load_scene(scene_path),
                    {},
                    {},
                    Vec3::Zero()};
  s.end_effector.link = s.model.link_index("end_effector");
  if (s.end_effector.link < 0)
    throw robots::ModelError(urdf_path + ": the 4-DOF scenario needs a link 'end_effector'");
  if (s.model.num_positions() != 4)
    throw robots::ModelError(urdf_path + ": the 4-DOF scenario needs 4 joint positions, got " +
                             std::to_string(s.model.num_positions()));
  const double deg = M_PI / 180.0;
  s.q0 = Eigen::Vector4d(0.0, 90.0 * deg, -150.0 * deg, -30.0 * deg);
  robots::Workspace ws(s.model);
  robots::forward_kinematics(s.model, s.q0, ws);
  s.x0 = ws.link_poses[static_cast<size_t>(s.end_effector.link)].translation();
  return s;
}

planner::EndEffectorTrajectory FourDofScenario::trajectory() const {
  const Vec3 start = x0;
  return [start](double t, Vec3& position, Vec3& velocity) {
    if (t <= kTurnTime) {
      velocity = Vec3(0.0, -kSpeed, 0.0);
      position = start + t * velocity;
    } else {
      velocity = Vec3(0.0, 0.0, t <= kEndTime ? kSpeed : 0.0);
      const double climb = std::min(t, kEndTime) - kTurnTime;
      position = start + Vec3(0.0, -kSpeed * kTurnTime, kSpeed * climb);
    }
  };
}

planner::VelocityInversionOptions FourDofScenario::options(double k, double position_gain) const {
  planner::VelocityInversionOptions o;
  o.k = k;
  o.field.d0 = 0.5;
  o.position_gain = position_gain;
  return o;
}

planner::SimulationResult FourDofScenario::run(double k, double dt, double position_gain,
                                               int record_every) const {
  return run(options(k, position_gain), dt, record_every);
}

planner::SimulationResult FourDofScenario::run(const planner::VelocityInversionOptions& settings,
                                               double dt, int record_every) const {
  planner::VelocityInversion inversion(model, scene, end_effector, settings);
  planner::SimulationOptions sim;
  sim.dt = dt;
  sim.duration = kEndTime;
  sim.record_every = record_every;
  return planner::simulate(inversion, q0, trajectory(), sim);
}

}  // namespace gjk::examples
