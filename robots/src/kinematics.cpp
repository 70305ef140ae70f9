// Forward kinematics and point Jacobians on the joint tree (joints in topological order).
#include "gjk/robots/robot_model.hpp"

#include <cmath>
#include <string>

namespace gjk::robots {

namespace {

/// child.linear() = joint_frame.linear() * R(axis, angle) for a revolute joint. Most arms' axes
/// are a coordinate axis of the joint frame (the Panda's, UR5's and iiwa's are y or z), where the
/// product mixes two columns; others take Eigen's angle-axis matrix.
inline void rotate_about_axis(const Pose& joint_frame, const Vec3& axis, double angle,
                              Pose& child) {
  const auto frame = joint_frame.linear();
  auto out = child.linear();
  const double c = std::cos(angle), s = std::sin(angle);
  for (int k = 0; k < 3; ++k) {
    const double sign = axis[k];
    if (std::abs(sign) != 1.0 || axis[(k + 1) % 3] != 0.0 || axis[(k + 2) % 3] != 0.0) continue;
    // Rotation by +-angle about unit axis k: columns i = k+1 and j = k+2 turn in their plane.
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    const double sk = sign * s;
    out.col(k) = frame.col(k);
    out.col(i) = c * frame.col(i) + sk * frame.col(j);
    out.col(j) = c * frame.col(j) - sk * frame.col(i);
    return;
  }
  out.noalias() = frame * Eigen::AngleAxisd(angle, axis).toRotationMatrix();
}

}  // namespace

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
    Pose& joint_frame = ws.joint_poses[i];
    compose_poses(ws.link_poses[static_cast<size_t>(j.parent_link)], j.origin, joint_frame);
    Pose& child = ws.link_poses[static_cast<size_t>(j.child_link)];
    if (j.type == JointType::Fixed) {
      child = joint_frame;
      continue;
    }
    const double value = j.mimic_multiplier * q[j.q_index] + j.mimic_offset;
    if (j.type == JointType::Prismatic) {
      child.linear() = joint_frame.linear();
      child.translation().noalias() = joint_frame.linear() * (value * j.axis);
      child.translation() += joint_frame.translation();
    } else {
      rotate_about_axis(joint_frame, j.axis, value, child);
      child.translation() = joint_frame.translation();
    }
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

void point_jacobian_linear(const RobotModel& model, const Workspace& ws, int link,
                           const Vec3& point_world,
                           Eigen::Ref<Eigen::Matrix<double, 3, Eigen::Dynamic>> out) {
  if (out.cols() != model.num_positions())
    throw ModelError("point_jacobian_linear: the output has " + std::to_string(out.cols()) +
                     " columns, robot '" + model.name() + "' " +
                     std::to_string(model.num_positions()) + " positions");
  out.setZero();
  // Every moving joint between the link and the root moves the point (mimics add to their source).
  for_each_moving_joint(model, ws, link, point_world,
                        [&](const Joint& j, const Vec3&, const Vec3& velocity) {
                          out.col(j.q_index) += j.mimic_multiplier * velocity;
                        });
}

Eigen::Matrix<double, 6, Eigen::Dynamic> point_jacobian(const RobotModel& model,
                                                        const Workspace& ws, int link,
                                                        const Vec3& point_world) {
  Eigen::Matrix<double, 6, Eigen::Dynamic> jac(6, model.num_positions());
  point_jacobian_linear(model, ws, link, point_world, jac.topRows<3>());
  // A revolute joint turns the link about its axis (mimics add to their source).
  jac.bottomRows<3>().setZero();
  for_each_moving_joint(model, ws, link, point_world,
                        [&](const Joint& j, const Vec3& axis, const Vec3&) {
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
