// Forward kinematics and point Jacobians on the joint tree (joints in topological order).
#include "gjk/robots/robot_model.hpp"

namespace gjk::robots {

void forward_kinematics(const RobotModel& model, const Eigen::VectorXd& q, Workspace& ws) {
  model.check_configuration(q);
  const auto& joints = model.joints();
  ws.link_poses.resize(model.links().size());
  ws.joint_poses.resize(joints.size());
  ws.link_poses[0] = model.base_pose();  // the root link's place in the world (virtual joint)
  for (size_t i = 0; i < joints.size(); ++i) {
    const Joint& j = joints[i];
    // Joint frame at q: parent link pose * fixed origin; the motion happens about / along the
    // axis expressed in this frame, so the axis is also the world axis of the joint's motion.
    const Pose joint_frame = ws.link_poses[static_cast<size_t>(j.parent_link)] * j.origin;
    ws.joint_poses[i] = joint_frame;
    Pose motion = Pose::Identity();
    if (j.type != JointType::Fixed) {
      const double value = j.mimic_multiplier * q[j.q_index] + j.mimic_offset;
      if (j.type == JointType::Prismatic) {
        motion.translation() = value * j.axis;
      } else {
        motion.linear() = Eigen::AngleAxisd(value, j.axis).toRotationMatrix();
      }
    }
    ws.link_poses[static_cast<size_t>(j.child_link)] = joint_frame * motion;
  }
}

namespace {

/// Calls f(joint, world axis, velocity of the point per unit joint value) for every moving joint
/// between `link` and the root.
template <class F>
void for_each_moving_joint(const RobotModel& model, const Workspace& ws, int link,
                           const Vec3& point_world, F&& f) {
  const auto& joints = model.joints();
  for (int ji = model.links()[static_cast<size_t>(link)].parent_joint; ji >= 0;
       ji = model.links()[static_cast<size_t>(joints[static_cast<size_t>(ji)].parent_link)]
                .parent_joint) {
    const Joint& j = joints[static_cast<size_t>(ji)];
    if (j.type == JointType::Fixed) continue;
    const Pose& frame = ws.joint_poses[static_cast<size_t>(ji)];
    const Vec3 axis = frame.linear() * j.axis;
    f(j, axis,
      j.type == JointType::Prismatic ? axis : Vec3(axis.cross(point_world - frame.translation())));
  }
}

}  // namespace

Eigen::Matrix<double, 6, Eigen::Dynamic> point_jacobian(const RobotModel& model,
                                                        const Workspace& ws, int link,
                                                        const Vec3& point_world) {
  Eigen::Matrix<double, 6, Eigen::Dynamic> jac =
      Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.num_positions());
  // Every moving joint between the link and the root moves the point (mimics add to their source).
  for_each_moving_joint(model, ws, link, point_world,
                        [&](const Joint& j, const Vec3& axis, const Vec3& velocity) {
                          jac.col(j.q_index).head<3>() += j.mimic_multiplier * velocity;
                          if (j.type != JointType::Prismatic)
                            jac.col(j.q_index).tail<3>() += j.mimic_multiplier * axis;
                        });
  return jac;
}

void add_point_derivative(const RobotModel& model, const Workspace& ws, int link,
                          const Vec3& point_world, const Vec3& direction, double scale,
                          Eigen::Ref<Eigen::VectorXd> out) {
  for_each_moving_joint(model, ws, link, point_world,
                        [&](const Joint& j, const Vec3&, const Vec3& velocity) {
                          out[j.q_index] += scale * j.mimic_multiplier * direction.dot(velocity);
                        });
}

}  // namespace gjk::robots
