// URDF loading, forward kinematics and point Jacobians: real arms from ../shared/robot-models
// and the project's 4-DOF arm, against an independent FK (urdfdom's tree walked recursively with
// 4x4 homogeneous matrices and Rodrigues' formula written out here) and against finite
// differences; bad input of every class.
#include <gtest/gtest.h>

#include "gjk/robots/robot_model.hpp"

#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>

namespace {

using namespace gjk;
using namespace gjk::robots;
using Mat4 = Eigen::Matrix4d;

const std::string kShared = GJK_SHARED_ROBOT_MODELS_DIR;

struct ArmCase {
  std::string file;
  size_t collisions;
  int positions;
};

const ArmCase kArms[] = {
    {kShared + "/panda/panda.urdf", 17, 8},
    {kShared + "/panda/panda_primitives.urdf", 39, 8},
    {kShared + "/ur5/ur5.urdf", 8, 6},
    {kShared + "/kuka_iiwa14/lbr_iiwa_14_r820.urdf", 8, 7},
    {std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf", 8, 4},
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---- independent FK ----------------------------------------------------------------------

Mat4 homogeneous(const urdf::Pose& p) {
  // Quaternion to matrix written out (not Eigen's conversion).
  double x, y, z, w;
  p.rotation.getQuaternion(x, y, z, w);
  const double n = std::sqrt(x * x + y * y + z * z + w * w);
  x /= n, y /= n, z /= n, w /= n;
  Mat4 m = Mat4::Identity();
  m(0, 0) = 1 - 2 * (y * y + z * z), m(0, 1) = 2 * (x * y - z * w), m(0, 2) = 2 * (x * z + y * w);
  m(1, 0) = 2 * (x * y + z * w), m(1, 1) = 1 - 2 * (x * x + z * z), m(1, 2) = 2 * (y * z - x * w);
  m(2, 0) = 2 * (x * z - y * w), m(2, 1) = 2 * (y * z + x * w), m(2, 2) = 1 - 2 * (x * x + y * y);
  m(0, 3) = p.position.x, m(1, 3) = p.position.y, m(2, 3) = p.position.z;
  return m;
}

Mat4 rodrigues(const Vec3& axis_in, double angle) {
  const Vec3 k = axis_in.normalized();
  Eigen::Matrix3d kx;
  kx << 0, -k.z(), k.y(), k.z(), 0, -k.x(), -k.y(), k.x(), 0;
  Mat4 m = Mat4::Identity();
  m.topLeftCorner<3, 3>() =
      Eigen::Matrix3d::Identity() + std::sin(angle) * kx + (1 - std::cos(angle)) * kx * kx;
  return m;
}

void walk(const urdf::LinkConstSharedPtr& link, const Mat4& pose,
          const std::map<std::string, double>& values, std::map<std::string, Mat4>& out) {
  out[link->name] = pose;
  for (const auto& joint : link->child_joints) {
    Mat4 motion = Mat4::Identity();
    double value = 0.0;
    if (joint->type != urdf::Joint::FIXED) {
      const std::string source = joint->mimic ? joint->mimic->joint_name : joint->name;
      value = values.at(source);
      if (joint->mimic) value = joint->mimic->multiplier * value + joint->mimic->offset;
    }
    const Vec3 axis(joint->axis.x, joint->axis.y, joint->axis.z);
    if (joint->type == urdf::Joint::PRISMATIC) {
      motion.block<3, 1>(0, 3) = value * axis.normalized();
    } else if (joint->type != urdf::Joint::FIXED) {
      motion = rodrigues(axis, value);
    }
    for (const auto& child : link->child_links) {
      if (child->name == joint->child_link_name) {
        walk(child, pose * homogeneous(joint->parent_to_joint_origin_transform) * motion, values,
             out);
      }
    }
  }
}

std::map<std::string, Mat4> reference_fk(const std::string& urdf_path, const RobotModel& model,
                                         const Eigen::VectorXd& q) {
  const auto urdf_model = urdf::parseURDF(read(urdf_path));
  std::map<std::string, double> values;
  for (int i = 0; i < model.num_positions(); ++i)
    values[model.position_names()[static_cast<size_t>(i)]] = q[i];
  std::map<std::string, Mat4> out;
  walk(urdf_model->getRoot(), Mat4::Identity(), values, out);
  return out;
}

Eigen::VectorXd random_configuration(const RobotModel& model, std::mt19937_64& rng) {
  const Eigen::VectorXd lo = model.lower_limits(), hi = model.upper_limits();
  Eigen::VectorXd q(model.num_positions());
  for (int i = 0; i < q.size(); ++i) {
    const double a = std::isfinite(lo[i]) ? lo[i] : -M_PI, b = std::isfinite(hi[i]) ? hi[i] : M_PI;
    q[i] = std::uniform_real_distribution<double>(a, b)(rng);
  }
  return q;
}

TEST(RobotModel, RealArmsLoadWithAllCollisionMeshesAsHulls) {
  for (const ArmCase& arm : kArms) {
    SCOPED_TRACE(arm.file);
    const RobotModel model = RobotModel::from_urdf_file(arm.file);
    EXPECT_EQ(model.collision_shapes().size(), arm.collisions);
    EXPECT_EQ(model.num_positions(), arm.positions);
    for (const CollisionShape& c : model.collision_shapes()) {
      if (const auto* hull = std::get_if<ConvexPolytope>(&c.shape.geometry)) {
        EXPECT_EQ(hull->dimension(), 3) << c.description;
        EXPECT_GE(hull->vertices().size(), 4u) << c.description;
        EXPECT_FALSE(hull->triangles().empty()) << c.description;
        // Real arms' link meshes are 0.1-0.3 m, the 4-DOF arm's column 2 m: a hull outside
        // 0.01-1.5 m means a unit problem (millimetres read as metres, or the reverse).
        EXPECT_GT(hull->bounding_radius(), 0.01) << c.description;
        EXPECT_LT(hull->bounding_radius(), 1.5) << c.description;
      }
    }
  }
}

TEST(RobotModel, ForwardKinematicsMatchesAnIndependentComputation) {
  std::mt19937_64 rng(4);
  double max_error = 0.0;
  int checked = 0;
  for (const ArmCase& arm : kArms) {
    SCOPED_TRACE(arm.file);
    const RobotModel model = RobotModel::from_urdf_file(arm.file);
    Workspace ws(model);
    for (int trial = 0; trial < 50; ++trial) {
      Eigen::VectorXd q = random_configuration(model, rng);
      if (trial == 0) {  // zero, clamped into the limits (the Panda's q4 excludes 0)
        q = Eigen::VectorXd::Zero(model.num_positions())
                .cwiseMax(model.lower_limits())
                .cwiseMin(model.upper_limits());
      }
      forward_kinematics(model, q, ws);
      const auto ref = reference_fk(arm.file, model, q);
      for (size_t l = 0; l < model.links().size(); ++l) {
        const Mat4 expected = ref.at(model.links()[l].name);
        const double error = (ws.link_poses[l].matrix() - expected).cwiseAbs().maxCoeff();
        max_error = std::max(max_error, error);
        EXPECT_LT(error, 1e-12) << model.links()[l].name;
        ++checked;
      }
    }
  }
  std::printf("[fk] %d link poses, max |FK - reference| %.3g\n", checked, max_error);
}

// Every kind of joint axis the FK has a path for: a coordinate axis of either sign (the fast
// column rotation), a skewed axis (the general rotation), continuous, prismatic along a skewed
// axis, a mimic, fixed joints with rotated origins, and a collision element off its link frame.
TEST(RobotModel, ForwardKinematicsOfEveryAxisKindMatchesTheReference) {
  std::string urdf = "<robot name='axes'><link name='l0'/>";
  const char* joints[][3] = {
      {"revolute", "1 0 0", "0.1 0.2 0.3"},   {"revolute", "-1 0 0", "0.3 -0.1 0.2"},
      {"revolute", "0 1 0", "-0.2 0.1 0.4"},  {"revolute", "0 -1 0", "0 0 0"},
      {"revolute", "0 0 -1", "0.5 0.1 0"},    {"continuous", "1 2 3", "0.2 -0.4 0.1"},
      {"prismatic", "0.3 -1 0.2", "0 0.1 0"}, {"fixed", "0 0 1", "1.2 0.3 -0.7"},
      {"revolute", "0 0 1", "0.1 0.1 0.1"}};
  const int n = static_cast<int>(std::size(joints));
  for (int i = 0; i < n; ++i) {
    const std::string parent = "l" + std::to_string(i), child = "l" + std::to_string(i + 1);
    urdf += "<link name='" + child +
            "'><collision><origin xyz='0.01 0.02 0.03' rpy='0.3 0.2 0.1'/><geometry><box "
            "size='0.1 0.2 0.3'/></geometry></collision></link>";
    urdf += std::string("<joint name='j") + std::to_string(i) + "' type='" + joints[i][0] +
            "'><parent link='" + parent + "'/><child link='" + child +
            "'/><origin xyz='0.1 0 0.2' " + "rpy='" + joints[i][2] + "'/><axis xyz='" +
            joints[i][1] + "'/><limit lower='-3' upper='3' effort='1' velocity='1'/>";
    if (i == n - 1) urdf += "<mimic joint='j0' multiplier='-0.7' offset='0.2'/>";
    urdf += "</joint>";
  }
  urdf += "</robot>";
  const std::filesystem::path file =
      std::filesystem::path(testing::TempDir()) / "every_axis_kind.urdf";
  std::ofstream(file) << urdf;
  const RobotModel model = RobotModel::from_urdf_file(file.string());
  ASSERT_EQ(model.joints().size(), static_cast<size_t>(n));
  std::mt19937_64 rng(11);
  Workspace ws(model);
  double max_error = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::VectorXd q = random_configuration(model, rng);
    forward_kinematics(model, q, ws);
    const auto ref = reference_fk(file.string(), model, q);
    for (size_t l = 0; l < model.links().size(); ++l) {
      const double error =
          (ws.link_poses[l].matrix() - ref.at(model.links()[l].name)).cwiseAbs().maxCoeff();
      max_error = std::max(max_error, error);
      EXPECT_LT(error, 1e-12) << model.links()[l].name << " trial " << trial;
    }
    for (size_t s = 0; s < model.collision_shapes().size(); ++s) {
      const CollisionShape& c = model.collision_shapes()[s];
      const Mat4 expected = ws.link_poses[static_cast<size_t>(c.link)].matrix() * c.origin.matrix();
      EXPECT_LT((collision_pose(model, ws, static_cast<int>(s)).matrix() - expected)
                    .cwiseAbs()
                    .maxCoeff(),
                1e-14);
    }
  }
  std::printf("[fk axes] max |FK - reference| %.3g\n", max_error);
}

TEST(RobotModel, PointJacobianMatchesFiniteDifferences) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> offset(-0.1, 0.1);
  double max_linear = 0.0, max_angular = 0.0;
  int checked = 0;
  for (const ArmCase& arm : kArms) {
    SCOPED_TRACE(arm.file);
    const RobotModel model = RobotModel::from_urdf_file(arm.file);
    Workspace ws(model), probe(model);
    const double h = 1e-6;
    for (int trial = 0; trial < 30; ++trial) {
      Eigen::VectorXd q = random_configuration(model, rng);
      // Keep the central difference inside the limits.
      const Eigen::VectorXd lo = (model.lower_limits().array() + 2 * h).matrix();
      const Eigen::VectorXd hi = (model.upper_limits().array() - 2 * h).matrix();
      q = q.cwiseMax(lo).cwiseMin(hi);
      forward_kinematics(model, q, ws);
      for (size_t l = 0; l < model.links().size(); ++l) {
        const Vec3 local(offset(rng), offset(rng), offset(rng));
        const Vec3 point = ws.link_poses[l] * local;
        const auto jac = point_jacobian(model, ws, static_cast<int>(l), point);
        for (int i = 0; i < model.num_positions(); ++i) {
          Eigen::VectorXd qp = q, qm = q;
          qp[i] += h, qm[i] -= h;
          forward_kinematics(model, qp, probe);
          const Vec3 p_plus = probe.link_poses[l] * local;
          const Eigen::Matrix3d r_plus = probe.link_poses[l].linear();
          forward_kinematics(model, qm, probe);
          const Vec3 p_minus = probe.link_poses[l] * local;
          const Eigen::Matrix3d r_minus = probe.link_poses[l].linear();
          const Vec3 linear = (p_plus - p_minus) / (2 * h);
          const Eigen::AngleAxisd delta(r_plus * r_minus.transpose());
          const Vec3 angular = delta.axis() * delta.angle() / (2 * h);
          max_linear = std::max(max_linear, (jac.col(i).head<3>() - linear).norm());
          max_angular = std::max(max_angular, (jac.col(i).tail<3>() - angular).norm());
          EXPECT_LT((jac.col(i).head<3>() - linear).norm(), 1e-7)
              << model.links()[l].name << " q" << i;
          EXPECT_LT((jac.col(i).tail<3>() - angular).norm(), 1e-7)
              << model.links()[l].name << " q" << i;
          ++checked;
        }
      }
    }
  }
  std::printf("[jacobian] %d columns, max error linear %.3g, angular %.3g\n", checked, max_linear,
              max_angular);
}

TEST(RobotModel, PointJacobianLinearIsPointJacobiansTopRows) {
  // The same sums in the same order: equal to the last bit, into a reused 3 x n matrix.
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> offset(-0.1, 0.1);
  int checked = 0;
  for (const ArmCase& arm : kArms) {
    SCOPED_TRACE(arm.file);
    const RobotModel model = RobotModel::from_urdf_file(arm.file);
    Workspace ws(model);
    Eigen::Matrix<double, 3, Eigen::Dynamic> linear =
        Eigen::Matrix<double, 3, Eigen::Dynamic>::Constant(3, model.num_positions(), 7.0);
    const double* storage = linear.data();
    for (int trial = 0; trial < 30; ++trial) {
      forward_kinematics(model, random_configuration(model, rng), ws);
      for (size_t l = 0; l < model.links().size(); ++l) {
        const Vec3 point = ws.link_poses[l] * Vec3(offset(rng), offset(rng), offset(rng));
        const auto jac = point_jacobian(model, ws, static_cast<int>(l), point);
        point_jacobian_linear(model, ws, static_cast<int>(l), point, linear);
        EXPECT_TRUE((linear.array() == jac.topRows<3>().array()).all())
            << model.links()[l].name << " trial " << trial;
        ++checked;
      }
    }
    EXPECT_EQ(linear.data(), storage);  // written in place
    // A block of a larger matrix works as well (point_jacobian's own use).
    Eigen::Matrix<double, 6, Eigen::Dynamic> six(6, model.num_positions());
    const int last = static_cast<int>(model.links().size()) - 1;
    const Vec3 tip = ws.link_poses.back().translation();
    point_jacobian_linear(model, ws, last, tip, six.topRows<3>());
    EXPECT_TRUE(
        (six.topRows<3>().array() == point_jacobian(model, ws, last, tip).topRows<3>().array())
            .all());
    Eigen::Matrix<double, 3, Eigen::Dynamic> wrong(3, model.num_positions() + 1);
    EXPECT_THROW(point_jacobian_linear(model, ws, last, tip, wrong), ModelError);
  }
  EXPECT_GT(checked, 1000);
}

TEST(RobotModel, OriginIsIdentityMarksExactlyTheIdentityOrigins) {
  // collision_pose() skips the product for these shapes: the flag must match the origin on
  // every model a builder returns (URDF, attached objects), and the pose must be the product's.
  RobotModel panda = RobotModel::from_urdf_file(kShared + "/panda/panda_primitives.urdf");
  AttachedObject part;
  part.name = "part";
  part.link = "panda_hand";
  part.add_shape(Box{Vec3(0.02, 0.03, 0.04)}, Pose::Identity());
  Pose shifted = Pose::Identity();
  shifted.translation() = Vec3(0.0, 0.0, 0.1);
  part.add_shape(Sphere{0.03}, shifted);
  std::vector<RobotModel> models;
  for (const ArmCase& arm : kArms) models.push_back(RobotModel::from_urdf_file(arm.file));
  models.push_back(panda.with_attached({part}));
  std::mt19937_64 rng(22);
  int identity = 0, other = 0;
  for (const RobotModel& model : models) {
    SCOPED_TRACE(model.name());
    Workspace ws(model);
    forward_kinematics(model, random_configuration(model, rng), ws);
    for (size_t s = 0; s < model.collision_shapes().size(); ++s) {
      const CollisionShape& c = model.collision_shapes()[s];
      const bool expected = c.origin.matrix() == Mat4::Identity();
      EXPECT_EQ(c.origin_is_identity, expected) << c.description;
      (expected ? identity : other) += 1;
      Pose product = Pose::Identity();
      compose_poses(ws.link_poses[static_cast<size_t>(c.link)], c.origin, product);
      EXPECT_TRUE((collision_pose(model, ws, static_cast<int>(s)).matrix().array() ==
                   product.matrix().array())
                      .all())
          << c.description;
    }
  }
  EXPECT_GT(identity, 0);
  EXPECT_GT(other, 0);
}

TEST(RobotModel, FourDofArmOfSeed002) {
  const std::string path = std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "model not generated yet: " << path;
  const RobotModel model = RobotModel::from_urdf_file(path);
  ASSERT_EQ(model.num_positions(), 4);
  Workspace ws(model);
  const double deg = M_PI / 180.0;
  Eigen::VectorXd q(4);
  q << 0, 90 * deg, -150 * deg, -30 * deg;
  forward_kinematics(model, q, ws);
  const Vec3 tip =
      ws.link_poses[static_cast<size_t>(model.link_index("end_effector"))].translation();
  // Seed 002 section 4.4: the initial pose puts the end effector at (0, -0.0804, 2.3).
  EXPECT_NEAR(tip.x(), 0.0, 1e-12);
  EXPECT_NEAR(tip.y(), -1.0 + 0.6 * std::sqrt(3.0) / 2 + 0.4, 1e-12);  // exact: -0.080385
  EXPECT_NEAR(tip.y(), -0.0804, 1e-4);                                 // as the paper prints it
  EXPECT_NEAR(tip.z(), 2.3, 1e-12);
  q.setZero();
  forward_kinematics(model, q, ws);
  EXPECT_NEAR((ws.link_poses[static_cast<size_t>(model.link_index("end_effector"))].translation() -
               Vec3(0, 0, 4))
                  .norm(),
              0.0, 1e-12);
  EXPECT_GE(model.collision_shapes().size(), 4u);
}

// ---- bad input ----------------------------------------------------------------------------

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "<no ModelError>";
}

const char* kTwoLinks = R"(<robot name="r">
  <link name="a"/>
  <link name="b"><collision><geometry>GEOMETRY</geometry></collision></link>
  <joint name="j" type="TYPE"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";

std::string two_links(const std::string& type, const std::string& geometry) {
  std::string s = kTwoLinks;
  s.replace(s.find("TYPE"), 4, type);
  s.replace(s.find("GEOMETRY"), 8, geometry);
  return s;
}

TEST(RobotModelBadInput, EveryClassGetsAClearError) {
  const auto tmp = std::filesystem::temp_directory_path() / "gjk_robot_model_test";
  std::filesystem::create_directories(tmp);
  EXPECT_NE(
      error_of([] { RobotModel::from_urdf_file("/nonexistent/robot.urdf"); }).find("cannot open"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              RobotModel::from_urdf_string("<robot name='r'><link name='a'>", ".", "broken.urdf");
            }).find("broken.urdf"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              RobotModel::from_urdf_string(two_links("twisty", "<box size='1 1 1'/>"), ".",
                                           "t.urdf");
            }).find("t.urdf"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              RobotModel::from_urdf_string(two_links("floating", "<box size='1 1 1'/>"), ".",
                                           "f.urdf");
            }).find("floating"),
            std::string::npos);
  const std::string missing = error_of([&] {
    RobotModel::from_urdf_string(two_links("revolute", "<mesh filename='nope.stl'/>"), tmp.string(),
                                 "m.urdf");
  });
  EXPECT_NE(missing.find("nope.stl"), std::string::npos) << missing;
  EXPECT_NE(missing.find("link 'b'"), std::string::npos) << missing;
  {
    std::ofstream(tmp / "empty.stl") << "solid empty\nendsolid empty\n";
    const std::string empty = error_of([&] {
      RobotModel::from_urdf_string(two_links("revolute", "<mesh filename='empty.stl'/>"),
                                   tmp.string(), "e.urdf");
    });
    EXPECT_NE(empty.find("empty.stl"), std::string::npos) << empty;
  }
  {
    std::ofstream(tmp / "garbage.stl") << "this is not a mesh at all";
    const std::string garbage = error_of([&] {
      RobotModel::from_urdf_string(two_links("revolute", "<mesh filename='garbage.stl'/>"),
                                   tmp.string(), "g.urdf");
    });
    EXPECT_NE(garbage.find("garbage.stl"), std::string::npos) << garbage;
  }
  const RobotModel model =
      RobotModel::from_urdf_string(two_links("revolute", "<box size='1 1 1'/>"), ".", "ok.urdf");
  Workspace ws(model);
  Eigen::VectorXd q(1);
  q << NAN;
  EXPECT_NE(error_of([&] { forward_kinematics(model, q, ws); }).find("not finite"),
            std::string::npos);
  q << 1.5;
  const std::string outside = error_of([&] { forward_kinematics(model, q, ws); });
  EXPECT_NE(outside.find("'j'"), std::string::npos) << outside;
  EXPECT_NE(outside.find("outside its limits"), std::string::npos) << outside;
  Eigen::VectorXd wrong(3);
  wrong.setZero();
  EXPECT_NE(error_of([&] { forward_kinematics(model, wrong, ws); }).find("expected 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { model.link_index("nope"); }).find("nope"), std::string::npos);
}

}  // namespace
