// Robot model from URDF (urdfdom) with convex collision shapes, and its kinematics.
//
// Model / workspace split (as Pinocchio does): RobotModel is immutable after loading and shared
// by threads; Workspace holds the per-configuration results (link poses) and belongs to one thread.
#pragma once

#include "gjk/mesh.hpp"
#include "gjk/shapes.hpp"

#include <Eigen/Core>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gjk::robots {

/// A URDF or configuration that cannot be used; what() names the file, element and value.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class JointType { Revolute, Continuous, Prismatic, Fixed };

/// A URDF joint.
struct Joint {
  std::string name;                   ///< as in the URDF
  JointType type = JointType::Fixed;  ///< revolute, continuous, prismatic or fixed
  int parent_link = -1;               ///< index into RobotModel::links()
  int child_link = -1;                ///< index into RobotModel::links()
  Pose origin = Pose::Identity();     ///< child frame in the parent link frame at q = 0
  Vec3 axis = Vec3::UnitZ();          ///< unit, in the joint (child) frame
  double lower = 0.0;                 ///< lower position limit (continuous: -inf)
  double upper = 0.0;                 ///< upper position limit (continuous: +inf)
  int q_index = -1;                   ///< position in q; -1 for fixed joints
  double mimic_multiplier = 1.0;      ///< `<mimic>`: value = multiplier * q[q_index] + offset
  double mimic_offset = 0.0;          ///< see mimic_multiplier
  bool is_mimic = false;  ///< a `<mimic>` joint: follows another joint, has no position of its own
};

/// A URDF link.
struct Link {
  std::string name;       ///< as in the URDF
  int parent_joint = -1;  ///< -1 for the root
};

/// One collision element fixed on a link: a convex shape, or an exact triangle mesh.
struct CollisionShape {
  int link = -1;  ///< index into RobotModel::links()
  /// Convex shape in the shape frame. For a mesh element, the hull of its triangles: a bound
  /// that boxes, balls and early exits use (nothing outside the hull can touch the mesh).
  Shape shape;
  /// Exact triangles in the shape frame (LinkMeshRepresentation::Mesh), or null: then `shape`
  /// is the geometry. A mesh is a surface, as for mesh obstacles (see gjk/mesh.hpp).
  std::shared_ptr<const TriangleMesh> mesh{};
  Pose origin = Pose::Identity();  ///< shape frame in the link frame
  /// `origin` is exactly the identity (most URDF collision elements): collision_pose() is then
  /// the link's pose, without the product. RobotModel sets it for every shape it builds; false
  /// is always correct (the product is taken).
  bool origin_is_identity = false;
  std::string description;  ///< e.g. "mesh meshes/collision/link1.stl" or "box"
  /// Empty for the URDF's own elements; the attached object's name for a shape the robot holds.
  std::string attached_object;
  /// For an attached object's shape: the links allowed to touch it (indices into links()).
  std::vector<int> touch_links;
};

/// An object the robot holds (a grasped part, a tool): convex pieces or exact triangle meshes
/// fixed on a link, which move with it, collide with the world and with the rest of the robot
/// except the touch links.
struct AttachedObject {
  std::string name;                      ///< unique among obstacles and attached objects
  std::string link;                      ///< the link it is fixed to
  std::vector<Shape> shapes;             ///< one per piece: the convex piece, or a mesh's hull
  std::vector<Pose> poses;               ///< each piece's frame in the link frame
  std::vector<std::string> touch_links;  ///< links allowed to touch it (the gripper's fingers)
  /// Empty when every piece is convex; otherwise one entry per piece: the exact triangles of a
  /// mesh piece (queried as CollisionShape::mesh, a surface), null for a convex piece. A mesh
  /// piece's `shapes` entry must enclose the triangles (add_mesh stores their hull): boxes and
  /// early exits use it as a bound.
  std::vector<std::shared_ptr<const TriangleMesh>> meshes{};

  /// Appends a convex piece at `pose` in the link frame.
  void add_shape(Shape shape, const Pose& pose);
  /// Appends an exact mesh piece at `pose` in the link frame, with the hull of its vertices
  /// (qhull) as its bounding shape. Throws std::invalid_argument for a null mesh.
  void add_mesh(std::shared_ptr<const TriangleMesh> mesh, const Pose& pose);
  /// Whether piece k is an exact mesh.
  bool is_mesh(std::size_t k) const { return k < meshes.size() && meshes[k] != nullptr; }
};

/// How a link's collision mesh becomes convex shapes (issue 17 item 1).
enum class LinkMeshRepresentation {
  Hull,    ///< the convex hull of every vertex: one shape, the fast default
  Pieces,  ///< one hull per shell of the file (a convex decomposition's output, e.g. V-HACD)
  /// The file's exact triangles under a bounding-volume hierarchy (CollisionShape::mesh): a
  /// non-convex link (the UR5's shoulder, the iiwa's links) is not inflated to its hull.
  Mesh,
};

/// "hull", "pieces" or "mesh" (the tools' --link-meshes, Python's `meshes=`). Throws
/// ModelError naming `what` and the text otherwise.
LinkMeshRepresentation parse_link_mesh_representation(const std::string& text,
                                                      const std::string& what);

/// Options of the URDF loader.
struct UrdfOptions {
  /// Folders holding ROS packages, for `package://NAME/rest` mesh URIs.
  std::vector<std::string> package_dirs;
  /// Representation of every link mesh, unless `link_meshes` names the link.
  LinkMeshRepresentation meshes = LinkMeshRepresentation::Hull;
  /// Per-link choice, by link name (names are checked against the URDF).
  std::vector<std::pair<std::string, LinkMeshRepresentation>> link_meshes;

  /// Adds a per-link choice written LINK=REPRESENTATION (the tools' --link-mesh); throws
  /// ModelError naming the text when it has no '=' or an unknown representation.
  void add_link_mesh(const std::string& link_equals_representation);
};

/// A URDF robot: links, joints and convex collision shapes, ready for kinematics and queries.
class RobotModel {
 public:
  /// Loads a URDF file. `package://NAME/rest` URIs are resolved as DIR/NAME/rest for each DIR of
  /// `package_dirs` (then as rest relative to the URDF); relative mesh paths against the URDF's
  /// folder. Every mesh becomes a convex hull. Throws ModelError.
  static RobotModel from_urdf_file(const std::string& path,
                                   const std::vector<std::string>& package_dirs = {});
  /// The same from URDF text; `base_dir` resolves relative mesh paths, `name` is used in messages.
  static RobotModel from_urdf_string(const std::string& xml, const std::string& base_dir,
                                     const std::string& name = "<string>",
                                     const std::vector<std::string>& package_dirs = {});
  /// Loads a URDF file with options: package folders and, per link, whether a mesh becomes its
  /// hull, its convex pieces (each piece a collision shape of the link, described as
  /// "mesh FILE piece K") or its exact triangles (described as "mesh FILE triangles").
  static RobotModel from_urdf_file(const std::string& path, const UrdfOptions& options);
  /// The same from URDF text.
  static RobotModel from_urdf_string(const std::string& xml, const std::string& base_dir,
                                     const std::string& name, const UrdfOptions& options);

  /// The URDF robot name.
  const std::string& name() const { return name_; }
  /// Joint positions in a configuration (movable, non-mimic joints).
  int num_positions() const { return num_positions_; }
  /// Links in topological order (parents first).
  const std::vector<Link>& links() const { return links_; }
  /// Joints in topological order: a joint's parent link is placed before it.
  const std::vector<Joint>& joints() const { return joints_; }
  /// Collision shapes of all links (one per URDF collision element).
  const std::vector<CollisionShape>& collision_shapes() const { return collisions_; }
  /// Names of the independent joints, in q order.
  const std::vector<std::string>& position_names() const { return position_names_; }
  /// Lower position limits, in configuration order.
  Eigen::VectorXd lower_limits() const;
  /// Upper position limits, in configuration order.
  Eigen::VectorXd upper_limits() const;

  /// A copy with the objects' shapes added as collision shapes of their links (CollisionShape::
  /// attached_object names the object). Throws ModelError for an unknown link or touch link, a
  /// duplicate name, or a piece count that differs from the pose count.
  RobotModel with_attached(const std::vector<AttachedObject>& objects) const;
  /// Adds the object's shapes as collision shapes of its link, after the existing ones, in
  /// place: with_attached() without the copy (the collision world's grasp). Same checks; when
  /// it throws, the model is as it was.
  void attach(const AttachedObject& object);
  /// Removes the collision shapes of the attached object `object` (the others keep their
  /// order); returns how many it removed, 0 when the model holds no such object.
  int detach(const std::string& object);

  /// Index of the link named `name`; throws ModelError listing nothing else when absent.
  int link_index(const std::string& name) const;
  /// Index of the joint named `name`; throws ModelError.
  int joint_index(const std::string& name) const;

  /// Throws ModelError when q has the wrong size, a NaN/Inf, or a value outside its joint's
  /// limits (by more than `tolerance`), naming the joint and the value.
  void check_configuration(const Eigen::VectorXd& q, double tolerance = 1e-9) const;

  /// Pose of the root link in the world frame (the SRDF's virtual joint; identity by default):
  /// forward kinematics starts from it, so link poses, Jacobians and distances are in the world.
  const Pose& base_pose() const { return base_pose_; }
  /// Places the root link in the world. Throws ModelError unless `pose` is finite with an
  /// orthonormal, right-handed rotation (tolerance 1e-6; a rotation off by more than 1e-12 is
  /// re-orthonormalised).
  void set_base_pose(const Pose& pose);

 private:
  std::string name_;
  std::vector<Link> links_;
  std::vector<Joint> joints_;
  std::vector<CollisionShape> collisions_;
  std::vector<std::string> position_names_;
  int num_positions_ = 0;
  Pose base_pose_ = Pose::Identity();
};

/// Per-thread results of the kinematics.
struct Workspace {
  std::vector<Pose> link_poses;   ///< world frame, one per link
  std::vector<Pose> joint_poses;  ///< joint frames in the world (the child frame at q)
  /// Scratch space sized for `model`.
  explicit Workspace(const RobotModel& model)
      : link_poses(model.links().size(), Pose::Identity()),
        joint_poses(model.joints().size(), Pose::Identity()) {}
};

/// Forward kinematics: every link's pose for configuration q (the root at base_pose()).
/// Validates q (check_configuration) and throws ModelError on bad input.
void forward_kinematics(const RobotModel& model, const Eigen::VectorXd& q, Workspace& ws);

/// Geometric Jacobian of a point fixed on `link` (given in world coordinates at the current
/// configuration, after forward_kinematics): rows 0-2 the point's linear velocity, rows 3-5 the
/// link's angular velocity, both in the world frame, per unit of each q.
Eigen::Matrix<double, 6, Eigen::Dynamic> point_jacobian(const RobotModel& model,
                                                        const Workspace& ws, int link,
                                                        const Vec3& point_world);

/// The linear rows of point_jacobian (the point's velocity per unit of each q, world frame) into
/// `out`, which must be 3 x num_positions() (throws ModelError otherwise). Allocates nothing: the
/// form for a control loop that reuses its Jacobian (VelocityInversion's end effector).
void point_jacobian_linear(const RobotModel& model, const Workspace& ws, int link,
                           const Vec3& point_world,
                           Eigen::Ref<Eigen::Matrix<double, 3, Eigen::Dynamic>> out);

/// out += scale * J_p^T direction for the point p fixed on `link` (J_p the linear rows of
/// point_jacobian), without forming J: the derivative of direction . p with respect to q.
/// `out` must have num_positions() entries. Allocates nothing.
void add_point_derivative(const RobotModel& model, const Workspace& ws, int link,
                          const Vec3& point_world, const Vec3& direction, double scale,
                          Eigen::Ref<Eigen::VectorXd> out);

/// out = a * b for rigid poses (`out` must not alias `a` or `b`). Eigen's general Transform
/// product is an out-of-line call that also rewrites the bottom row; kinematics composes poses
/// on every state of every query.
inline void compose_poses(const Pose& a, const Pose& b, Pose& out) {
  out.linear().noalias() = a.linear() * b.linear();
  out.translation().noalias() = a.linear() * b.translation();
  out.translation() += a.translation();
}

/// World pose of a collision shape after forward_kinematics.
inline Pose collision_pose(const RobotModel& model, const Workspace& ws, int shape_index) {
  const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(shape_index)];
  const Pose& link = ws.link_poses[static_cast<size_t>(c.link)];
  // The product with the identity gives the link's numbers (up to the sign of a zero), at the
  // cost of 36 multiplications: skip it.
  if (c.origin_is_identity) return link;
  Pose pose = Pose::Identity();
  compose_poses(link, c.origin, pose);
  return pose;
}

}  // namespace gjk::robots
