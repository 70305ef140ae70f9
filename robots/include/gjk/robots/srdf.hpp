// SRDF (MoveIt's Semantic Robot Description Format): planning groups, named states, virtual and
// passive joints, end effectors and the link pairs whose collisions are not checked. Every name
// is checked against the RobotModel the SRDF describes.
#pragma once

#include "gjk/robots/allowed_collisions.hpp"
#include "gjk/robots/robot_model.hpp"

#include <Eigen/Core>

#include <optional>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gjk::robots {

/// An SRDF that cannot be used; what() is "FILE:LINE: message" naming the element, attribute
/// and value.
class SrdfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `<disable_collisions link1 link2 reason>`.
struct DisabledCollision {
  std::string link1;   ///< a model link
  std::string link2;   ///< another model link
  std::string reason;  ///< MoveIt's words: Adjacent, Default, Always, Never, User (free text)
};

/// `<group_state name group>`: a named configuration of a group.
struct GroupState {
  std::string name;   ///< the state's name (e.g. "ready")
  std::string group;  ///< the group it belongs to (an SrdfGroup name)
  /// Values of model joints that have a position of their own (values given for fixed joints,
  /// mimic joints and virtual joints are checked as numbers and then dropped).
  std::vector<std::pair<std::string, double>> joint_values;
  /// Values of virtual joints, in MoveIt's variable order: planar (x, y, theta), floating
  /// (x, y, z, qx, qy, qz, qw).
  std::vector<std::pair<std::string, std::vector<double>>> virtual_joint_values;
};

/// `<group name>`: links, joints, chains (base, tip) and subgroups, as written.
struct SrdfGroup {
  std::string name;                                         ///< the group's name
  std::vector<std::string> links;                           ///< `<link name>`s
  std::vector<std::string> joints;                          ///< `<joint name>`s
  std::vector<std::pair<std::string, std::string>> chains;  ///< (base_link, tip_link)
  std::vector<std::string> subgroups;                       ///< `<group name>`s inside
};

/// `<virtual_joint name type parent_frame child_link>`.
struct VirtualJoint {
  std::string name;          ///< the joint's name (group states and groups may use it)
  std::string type;          ///< fixed, floating or planar
  std::string parent_frame;  ///< an external frame, e.g. "world"
  std::string child_link;    ///< a model link (usually the root)
};

/// `<end_effector name parent_link group parent_group>` (parent_group may be empty).
struct EndEffector {
  std::string name;          ///< the end effector's name
  std::string parent_link;   ///< the model link it is attached to
  std::string group;         ///< the group of its own links and joints
  std::string parent_group;  ///< the group it belongs to (may be empty)
};

/// The parsed SRDF, in file order.
struct Srdf {
  std::string robot_name;                              ///< `<robot name>` (not checked)
  std::vector<DisabledCollision> disabled_collisions;  ///< link pairs not checked
  std::vector<SrdfGroup> groups;                       ///< planning groups
  std::vector<GroupState> group_states;                ///< named configurations
  std::vector<VirtualJoint> virtual_joints;            ///< the robot's attachment to the world
  std::vector<EndEffector> end_effectors;              ///< end effectors
  std::vector<std::string> passive_joints;  ///< top-level `<passive_joint>`s (as MoveIt reads)
};

/// Reads and checks an SRDF file against `model`. Throws SrdfError.
Srdf load_srdf(const std::string& path, const RobotModel& model);
/// The same from SRDF text; `name` stands for the file in messages.
Srdf parse_srdf(const std::string& xml, const RobotModel& model,
                const std::string& name = "<string>");

/// Adjacent links (AllowedCollisionMatrix::from_adjacency) plus the SRDF's disable_collisions.
AllowedCollisionMatrix acm_from_srdf(const RobotModel& model, const Srdf& srdf);

/// Joints of a group that have a position (q entry), in RobotModel position order: its explicit
/// joints, the parent joints of its links, the joints on each chain's path between base and tip,
/// and its subgroups' joints. Throws std::invalid_argument for an unknown group.
std::vector<std::string> group_joints(const RobotModel& model, const Srdf& srdf,
                                      const std::string& group);

/// q (model.num_positions() entries) with the named group state's values, the other entries from
/// `base` (or 0 when null). The first group state of that name wins. Throws
/// std::invalid_argument for an unknown state (listing the known ones) or a base of wrong size.
Eigen::VectorXd named_state(const RobotModel& model, const Srdf& srdf, const std::string& state,
                            const Eigen::VectorXd* base = nullptr);

/// The pose a virtual joint's values give its child link in its parent frame: fixed (no values)
/// identity; planar (x, y, theta) a translation in the xy plane and a turn about z; floating
/// (x, y, z, qx, qy, qz, qw) a translation and a quaternion (normalised). Throws
/// std::invalid_argument for a wrong count or a non-finite value.
Pose virtual_joint_pose(const VirtualJoint& joint, const std::vector<double>& values);

/// The SRDF's virtual joint whose child is the model's root link, or null.
const VirtualJoint* root_virtual_joint(const RobotModel& model, const Srdf& srdf);

/// The base pose (RobotModel::set_base_pose) a named group state gives the root's virtual joint,
/// or nothing when the state has no value for it. Throws std::invalid_argument for an unknown
/// state.
std::optional<Pose> named_base_pose(const RobotModel& model, const Srdf& srdf,
                                    const std::string& state);

/// Throws std::invalid_argument when the root's virtual joint cannot reach `pose`: a fixed one
/// only the identity, a planar one only translations in xy and turns about z (tolerance 1e-9);
/// a floating one, or none, any pose.
void check_base_pose(const RobotModel& model, const Srdf& srdf, const Pose& pose);

/// SRDF text for `srdf`: robot name, virtual joints, groups, group states, end effectors,
/// passive joints and disable_collisions (with reasons). Numbers are written locale-independently
/// in their shortest round-trip form.
std::string write_srdf(const Srdf& srdf);

}  // namespace gjk::robots
