// Hostile and foreign-environment input for the robots layer's loaders: a decimal-comma locale
// (issue 16), huge point sets (issue 15 item 4), extreme quaternions (item 13) and flat point
// sets (issue 16: one behaviour for gjk-query and scenes).
#include <gjk/gjk_epa.hpp>
#include <gjk/queries.hpp>
#include <gjk/robots/robot_model.hpp>
#include <gjk/robots/scene.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace {

using namespace gjk::robots;

const std::string kPanda = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf";

/// Sets the whole C locale for the scope, as GUI and ROS programs do with setlocale(LC_ALL, "").
class ScopedLocale {
 public:
  explicit ScopedLocale(const char* name) {
    const char* current = std::setlocale(LC_ALL, nullptr);
    previous_ = current ? current : "C";
    ok_ = std::setlocale(LC_ALL, name) != nullptr;
  }
  ~ScopedLocale() { std::setlocale(LC_ALL, previous_.c_str()); }
  bool ok() const { return ok_; }

 private:
  std::string previous_;
  bool ok_ = false;
};

const char* const kScene = R"(obstacles:
  - name: plate
    type: box
    half_extents: [0.1, 0.25, 0.0125]
    position: [1.5, -0.75, 2.125]
    rpy: [0.5, 0.25, 0.125]
)";

TEST(DecimalCommaLocale, ScenesAndUrdfsReadTheSameNumbers) {
  const Scene c_scene = parse_scene(kScene, "inline.yaml", ".");
  const RobotModel c_model = RobotModel::from_urdf_file(kPanda);
  ScopedLocale german("de_DE.UTF-8");
  if (!german.ok()) {
    GTEST_SKIP() << "the de_DE.UTF-8 locale is not installed (scripts/install-deps.sh generates "
                    "it with localedef)";
  }
  // The locale really is active: printf now writes a decimal comma.
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", 0.5);
  ASSERT_STREQ(buffer, "0,5");

  const Scene scene = parse_scene(kScene, "inline.yaml", ".");
  ASSERT_EQ(scene.obstacles.size(), 1u);
  const auto& box = std::get<gjk::Box>(scene.obstacles[0].shape.geometry);
  EXPECT_EQ(box.half_extents, gjk::Vec3(0.1, 0.25, 0.0125));
  EXPECT_TRUE(scene.obstacles[0].pose.isApprox(c_scene.obstacles[0].pose, 0.0));
  EXPECT_EQ(scene.obstacles[0].pose.translation(), gjk::Vec3(1.5, -0.75, 2.125));

  const RobotModel model = RobotModel::from_urdf_file(kPanda);
  ASSERT_EQ(model.joints().size(), c_model.joints().size());
  for (size_t i = 0; i < model.joints().size(); ++i) {
    EXPECT_TRUE(model.joints()[i].origin.isApprox(c_model.joints()[i].origin, 0.0))
        << model.joints()[i].name;
    EXPECT_EQ(model.joints()[i].lower, c_model.joints()[i].lower) << model.joints()[i].name;
    EXPECT_EQ(model.joints()[i].upper, c_model.joints()[i].upper) << model.joints()[i].name;
  }
  const auto joint1 = std::find_if(model.joints().begin(), model.joints().end(),
                                   [](const Joint& j) { return j.name == "panda_joint1"; });
  ASSERT_NE(joint1, model.joints().end());
  EXPECT_EQ(joint1->origin.translation().z(), 0.333);  // <origin xyz="0 0 0.333"/>
}

TEST(HostileScene, PyramidWithAHundredThousandBasePointsLoadsInNearLinearTime) {
  // Issue 15 item 4: the former pairwise base checks had not finished after 900 s.
  const int n = 100000;
  std::ostringstream yaml;
  yaml.precision(17);
  yaml << "obstacles:\n  - name: cone\n    type: pyramid\n    apex: [0, 0, 1]\n    base: [";
  for (int i = 0; i < n; ++i) {
    const double a = 2 * M_PI * i / n;
    yaml << (i ? ", " : "") << '[' << std::cos(a) << ", " << std::sin(a) << ", 0]";
  }
  yaml << "]\n";
  const auto t0 = std::chrono::steady_clock::now();
  const Scene scene = parse_scene(yaml.str(), "cone.yaml", ".");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("100,000-point pyramid base loaded in %.2f s\n", seconds);
  EXPECT_LT(seconds, 120.0);  // a hang guard, not a benchmark
  // The apex cone's surface is 1/sqrt(2) from the point (0, 0, 2)... check a distance that
  // depends on the whole base: the unit disk's rim seen from (2, 0, 0) is 1 away.
  const gjk::Shape probe = gjk::Sphere{0.0};
  const gjk::Pose at = gjk::pose_from_xyz({2, 0, 0}, {0, 0, 0});
  const auto d = gjk::distance(scene.obstacles[0].shape, scene.obstacles[0].pose, probe, at);
  EXPECT_NEAR(d.distance, 1.0, 1e-9);
}

TEST(HostileScene, PyramidHullsMatchQhullOnSmallBases) {
  // The loader builds pyramids without qhull; on small bases it must give qhull's hull: the same
  // distances to random probes, and every triangle facing out.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 3 + trial % 10;
    std::vector<double> angles;
    for (int i = 0; i < n; ++i) angles.push_back(2 * M_PI * unit(rng));
    std::sort(angles.begin(), angles.end());
    std::shuffle(angles.begin(), angles.end(), rng);  // any order in the file
    const double apex_z = (trial % 2 ? 1.0 : -1.0) * (0.2 + unit(rng));
    std::ostringstream yaml;
    yaml.precision(17);
    yaml << "obstacles:\n  - name: p\n    type: pyramid\n    apex: [0.1, 0.2, " << apex_z
         << "]\n    base: [";
    std::vector<gjk::Vec3> points;
    for (int i = 0; i < n; ++i) {
      const gjk::Vec3 b(2 * std::cos(angles[i]), std::sin(angles[i]), 0.0);
      points.push_back(b);
      yaml << (i ? ", " : "") << '[' << b.x() << ", " << b.y() << ", " << b.z() << ']';
    }
    yaml << "]\n";
    points.emplace_back(0.1, 0.2, apex_z);
    Scene scene;
    try {
      scene = parse_scene(yaml.str(), "p.yaml", ".");
    } catch (const SceneError& e) {
      // Random angles may put two base points within the coincidence tolerance.
      EXPECT_NE(std::string(e.what()).find("coincide"), std::string::npos) << e.what();
      continue;
    }
    const auto& hull = std::get<gjk::ConvexPolytope>(scene.obstacles[0].shape.geometry);
    for (const auto& t : hull.triangles()) {
      const gjk::Vec3 a = hull.vertices()[t[0]], b = hull.vertices()[t[1]],
                      c = hull.vertices()[t[2]];
      EXPECT_GT((b - a).cross(c - a).dot((a + b + c) / 3 - hull.center()), 0.0)
          << "trial " << trial;
    }
    const gjk::Shape reference = gjk::ConvexPolytope::from_points(points);
    for (int probe = 0; probe < 20; ++probe) {
      const gjk::Vec3 where(4 * unit(rng) - 2, 4 * unit(rng) - 2, 4 * unit(rng) - 2);
      const gjk::Pose at = gjk::pose_from_xyz(where, {0, 0, 0});
      const gjk::Shape point = gjk::Sphere{0.0};
      const double ours =
          gjk::signed_distance(scene.obstacles[0].shape, gjk::Pose::Identity(), point, at)
              .signed_distance;
      const double theirs =
          gjk::signed_distance(reference, gjk::Pose::Identity(), point, at).signed_distance;
      EXPECT_NEAR(ours, theirs, 1e-12) << "trial " << trial << " probe " << where.transpose();
    }
  }
}

TEST(HostileScene, ExtremeQuaternionsAreDirectionsAndOnlyZeroIsRejected) {
  const std::string head = "obstacles:\n  - name: b\n    type: box\n    half_extents: [1, 2, 3]\n";
  for (const char* q : {"[1e308, 0, 0, 0]", "[1e-320, 0, 0, 0]", "[0, 0, 0, 1e300]"}) {
    const Scene scene = parse_scene(head + "    quaternion: " + q + "\n", "q.yaml", ".");
    const gjk::Pose& pose = scene.obstacles[0].pose;
    EXPECT_TRUE(pose.linear().allFinite()) << q;
    EXPECT_NEAR((pose.linear() * pose.linear().transpose() - Eigen::Matrix3d::Identity()).norm(),
                0.0, 1e-12)
        << q;
  }
  try {
    parse_scene(head + "    quaternion: [0, 0, 0, 0]\n", "q.yaml", ".");
    ADD_FAILURE() << "a zero quaternion was accepted";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("q.yaml:5: obstacles[0].quaternion: quaternion [w, x, "
                                         "y, z] is all zeros"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostileScene, FlatConvexPointSetsAreObstacles) {
  // The engine and gjk-query accept coplanar and collinear sets; so do scenes.
  const Scene scene = parse_scene(
      "obstacles:\n"
      "  - {name: triangle, type: convex, points: [[0,0,0], [1,0,0], [0,1,0]]}\n"
      "  - {name: segment, type: convex, points: [[0,0,0], [1,0,0]]}\n"
      "  - {name: point, type: convex, points: [[0,0,0]], inflation: 0.5}\n",
      "flat.yaml", ".");
  ASSERT_EQ(scene.obstacles.size(), 3u);
  const gjk::Shape probe = gjk::Sphere{0.5};
  const gjk::Pose above = gjk::pose_from_xyz({0.2, 0, 2}, {0, 0, 0});
  for (const Obstacle& o : scene.obstacles) {
    const auto d = gjk::distance(o.shape, o.pose, probe, above);
    const double expected = o.name == "point" ? std::hypot(0.2, 2.0) - 1.0 : 1.5;
    EXPECT_NEAR(d.distance, expected, 1e-12) << o.name;
  }
}

// ---------------------------------------------------------------------------------------------
// URDF (issue 15 items 5, 10, 12; issue 16: joint order, package:// messages, console noise)

std::string robot(const std::string& body) {
  return "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n" + body + "</robot>\n";
}

const std::string kLimit = "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>";

std::string model_error(const std::string& xml, const std::string& base_dir = ".") {
  try {
    (void)RobotModel::from_urdf_string(xml, base_dir, "hostile.urdf");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(loaded)";
}

struct UrdfCase {
  std::string what, xml;
  std::vector<std::string> fragments;  ///< all must appear in the ModelError message
};

TEST(HostileUrdf, EveryDeclaredElementIsLoadedOrTheModelIsRejected) {
  const auto link_with = [](const std::string& collision) {
    return robot("<link name=\"base\"/>\n<link name=\"arm\">\n<collision>" + collision +
                 "</collision>\n</link>\n<joint name=\"j\" type=\"revolute\"><parent "
                 "link=\"base\"/><child link=\"arm\"/><axis xyz=\"0 0 1\"/>" +
                 kLimit + "</joint>\n");
  };
  const std::vector<UrdfCase> cases = {
      {"NaN radius",
       link_with("<geometry><sphere radius=\"nan\"/></geometry>"),
       {"hostile.urdf", "arm", "collision 0"}},
      {"origin out of range",
       link_with("<origin xyz=\"1e999 0 0\"/><geometry><box size=\"1 1 1\"/></geometry>"),
       {"hostile.urdf", "arm", "collision 0"}},
      {"unknown geometry",
       link_with("<geometry><capsule radius=\"1\" length=\"2\"/></geometry>"),
       {"line 5", "link 'arm', collision 0 (<capsule>)"}},
      {"empty geometry",
       link_with("<geometry></geometry>"),
       {"line 5", "link 'arm', collision 0 (an empty <geometry>)"}},
      {"joint from a link to itself",
       robot("<link name=\"base\"/>\n<link name=\"loop\"/>\n<joint name=\"j\" type=\"fixed\">"
             "<parent link=\"loop\"/><child link=\"loop\"/></joint>\n"),
       {"hostile.urdf"}},
      {"2-cycle detached from the tree",
       robot("<link name=\"base\"/>\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
             "<joint name=\"ab\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n"
             "<joint name=\"ba\" type=\"fixed\"><parent link=\"b\"/><child link=\"a\"/></joint>\n"),
       {"hostile.urdf"}},
      {"100,000 nested elements",
       [] {
         std::string deep;
         for (int i = 0; i < 100000; ++i) deep += "<a>";
         for (int i = 0; i < 100000; ++i) deep += "</a>";
         return robot("<link name=\"base\">" + deep + "</link>\n");
       }(),
       {"hostile.urdf", "nested deeper than 200 levels"}},
      {"package without a path",
       link_with("<geometry><mesh filename=\"package://justapkg\"/></geometry>"),
       {"package://justapkg", "must name a package and a file inside it"}},
      {"unknown package",
       link_with("<geometry><mesh filename=\"package://no_such_pkg/meshes/a.stl\"/></geometry>"),
       {"package 'no_such_pkg'", "Tried:", "--package-dir", "ROS_PACKAGE_PATH",
        "AMENT_PREFIX_PATH"}},
  };
  for (const UrdfCase& c : cases) {
    ::testing::internal::CaptureStderr();
    const std::string message = model_error(c.xml);
    const std::string console = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(message, "(loaded)") << c.what;
    for (const std::string& fragment : c.fragments)
      EXPECT_NE(message.find(fragment), std::string::npos) << c.what << ": " << message;
    // urdfdom's console lines end up in the message, not on the user's terminal.
    EXPECT_EQ(console, "") << c.what;
  }
}

TEST(HostileUrdf, ADirectoryIsNamedAsSuch) {
  try {
    (void)RobotModel::from_urdf_file(GJK_SHARED_ROBOT_MODELS_DIR);
    ADD_FAILURE() << "loaded a directory";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory, not a URDF file"), std::string::npos)
        << e.what();
  }
}

TEST(HostileUrdf, PackagesResolveThroughRosPackagePath) {
  // A package found through ROS_PACKAGE_PATH, as ROS users set it up.
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("gjk_pkg_" + std::to_string(::getpid()));
  fs::create_directories(root / "my_robot/meshes");
  fs::copy_file(std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/meshes/collision/link0.stl",
                root / "my_robot/meshes/link0.stl", fs::copy_options::overwrite_existing);
  const std::string xml = robot(
      "<link name=\"base\"><collision><geometry><mesh "
      "filename=\"package://my_robot/meshes/link0.stl\"/></geometry></collision></link>\n");
  ::setenv("ROS_PACKAGE_PATH", ("/nonexistent:" + root.string()).c_str(), 1);
  const RobotModel model = RobotModel::from_urdf_string(xml, "/", "pkg.urdf");
  ::unsetenv("ROS_PACKAGE_PATH");
  EXPECT_EQ(model.collision_shapes().size(), 1u);
  fs::remove_all(root);
}

TEST(HostileUrdf, ConfigurationsFollowTheDocumentOrderOfMovableJoints) {
  // Two branches from the base: urdfdom's maps sort siblings by name (a_joint before z_joint);
  // the configuration follows the file.
  const std::string xml = robot(
      "<link name=\"base\"/>\n<link name=\"left\"/>\n<link name=\"right\"/>\n"
      "<link name=\"tip\"/>\n"
      "<joint name=\"z_joint\" type=\"revolute\"><parent link=\"base\"/><child "
      "link=\"left\"/><axis xyz=\"0 0 1\"/>" +
      kLimit +
      "</joint>\n"
      "<joint name=\"m_joint\" type=\"prismatic\"><parent link=\"left\"/><child "
      "link=\"tip\"/><axis xyz=\"1 0 0\"/>" +
      kLimit +
      "</joint>\n"
      "<joint name=\"a_joint\" type=\"revolute\"><parent link=\"base\"/><child "
      "link=\"right\"/><axis xyz=\"0 1 0\"/>" +
      kLimit + "</joint>\n");
  const RobotModel model = RobotModel::from_urdf_string(xml, ".", "branches.urdf");
  EXPECT_EQ(model.position_names(), (std::vector<std::string>{"z_joint", "m_joint", "a_joint"}));
  // And forward kinematics uses that order: q = (0, 0.5, 0) moves the prismatic tip by 0.5 in x.
  Workspace ws(model);
  Eigen::VectorXd q(3);
  q << 0.0, 0.5, 0.0;
  forward_kinematics(model, q, ws);
  EXPECT_NEAR(ws.link_poses[static_cast<size_t>(model.link_index("tip"))].translation().x(), 0.5,
              1e-15);
}

}  // namespace
