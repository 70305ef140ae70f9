// Scene files (robots/scenes/README.md): the shipped scene, every obstacle type, the rotation
// conventions, mesh obstacles, and one test per class of bad input checking that the SceneError
// names the file, the 1-based line and the field path.
#include "gjk/gjk_epa.hpp"
#include "gjk/robots/scene.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace {

namespace fs = std::filesystem;
using gjk::Box;
using gjk::Capsule;
using gjk::ConvexPolytope;
using gjk::Cylinder;
using gjk::Sphere;
using gjk::Vec3;
using gjk::robots::load_scene;
using gjk::robots::parse_scene;
using gjk::robots::Scene;
using gjk::robots::SceneError;

const std::string kData = GJK_TEST_ROBOTS_DATA_DIR;
const std::string kScenes = GJK_ROBOT_SCENES_DIR;
const double kPi = 3.14159265358979323846;

Scene parse(const std::string& text) {
  return parse_scene(text, "inline.yaml", ".");
}

/// The message of the SceneError thrown by `fn`, or a failure when none (or another) is thrown.
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const SceneError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected SceneError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected SceneError, nothing thrown";
  return "";
}

/// Checks "<file>:<line>: <field>: ..." and that `detail` appears in the message.
void expect_error(const std::string& message, const std::string& file, int line,
                  const std::string& field, const std::string& detail) {
  const std::string prefix = file + ":" + std::to_string(line) + ": ";
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message << "\n  expected prefix: " << prefix;
  if (!field.empty()) {
    EXPECT_NE(message.find(prefix + field + ": "), std::string::npos) << message;
  }
  EXPECT_NE(message.find(detail), std::string::npos) << message << "\n  expected: " << detail;
}

void expect_file_error(const std::string& file, int line, const std::string& field,
                       const std::string& detail) {
  const std::string path = kData + "/" + file;
  expect_error(error_of([&] { load_scene(path); }), path, line, field, detail);
}

void expect_inline_error(const std::string& text, int line, const std::string& field,
                         const std::string& detail) {
  expect_error(error_of([&] { parse(text); }), "inline.yaml", line, field, detail);
}

Eigen::Matrix3d rx(double a) {
  Eigen::Matrix3d m;
  m << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
  return m;
}
Eigen::Matrix3d ry(double a) {
  Eigen::Matrix3d m;
  m << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  return m;
}
Eigen::Matrix3d rz(double a) {
  Eigen::Matrix3d m;
  m << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return m;
}

/// The vertex with the largest z in the obstacle frame (a pyramid's apex when it points up).
Vec3 top_vertex(const ConvexPolytope& p) {
  Vec3 best = p.vertices().front();
  for (const Vec3& v : p.vertices()) {
    if (v.z() > best.z()) best = v;
  }
  return best;
}

const char* kPrimitives = R"(obstacles:
  - name: crate
    type: box
    half_extents: [0.1, 0.2, 0.3]
  - name: ball
    type: sphere
    radius: 0.25
    inflation: 0.05
  - name: pill
    type: capsule
    radius: 0.1
    half_length: 0.4
  - name: can
    type: cylinder
    radius: 0.2
    half_length: 0.5
    position: [1, 2, 3]
  - name: blob
    type: convex
    points: [[0,0,0],[1,0,0],[0,1,0],[1,1,0],[0,0,1],[1,0,1],[0,1,1],[1,1,1],[0.5,0.5,0.5]]
  - name: point
    type: sphere
    radius: 0
)";

// ---------------------------------------------------------------------------------------------
// Good scenes

TEST(Scene, TwoPyramidsLoads) {
  const Scene scene = load_scene(kScenes + "/two_pyramids.yaml");
  ASSERT_EQ(scene.obstacles.size(), 2u);
  EXPECT_EQ(scene.obstacles[0].name, "pyramid_low");
  EXPECT_EQ(scene.obstacles[1].name, "pyramid_high");
  const Vec3 apex_world[2] = {{0.0, -0.8, 1.35}, {0.0, -1.7, 2.6}};
  for (int i = 0; i < 2; ++i) {
    const auto& obstacle = scene.obstacles[static_cast<std::size_t>(i)];
    const auto* pyramid = std::get_if<ConvexPolytope>(&obstacle.shape.geometry);
    ASSERT_NE(pyramid, nullptr);
    EXPECT_EQ(pyramid->vertices().size(), 5u);
    EXPECT_EQ(pyramid->dimension(), 3);
    EXPECT_EQ(pyramid->triangles().size(), 6u);  // 4 sides + the square base split in two
    EXPECT_EQ(obstacle.shape.inflation, 0.0);
    EXPECT_TRUE(obstacle.pose.linear().isIdentity(1e-15));
    EXPECT_TRUE((obstacle.pose * top_vertex(*pyramid)).isApprox(apex_world[i], 1e-12))
        << (obstacle.pose * top_vertex(*pyramid)).transpose();
  }
}

TEST(Scene, EveryPrimitiveType) {
  const Scene scene = parse(kPrimitives);
  ASSERT_EQ(scene.obstacles.size(), 6u);
  const auto& box = std::get<Box>(scene.obstacles[0].shape.geometry);
  EXPECT_TRUE(box.half_extents.isApprox(Vec3(0.1, 0.2, 0.3)));
  EXPECT_EQ(std::get<Sphere>(scene.obstacles[1].shape.geometry).radius, 0.25);
  EXPECT_EQ(scene.obstacles[1].shape.inflation, 0.05);
  const auto& capsule = std::get<Capsule>(scene.obstacles[2].shape.geometry);
  EXPECT_EQ(capsule.radius, 0.1);
  EXPECT_EQ(capsule.half_length, 0.4);
  const auto& cylinder = std::get<Cylinder>(scene.obstacles[3].shape.geometry);
  EXPECT_EQ(cylinder.radius, 0.2);
  EXPECT_EQ(cylinder.half_length, 0.5);
  EXPECT_TRUE(scene.obstacles[3].pose.translation().isApprox(Vec3(1, 2, 3)));
  const auto& blob = std::get<ConvexPolytope>(scene.obstacles[4].shape.geometry);
  EXPECT_EQ(blob.vertices().size(), 8u);  // the interior point is dropped
  EXPECT_EQ(std::get<Sphere>(scene.obstacles[5].shape.geometry).radius, 0.0);  // zero allowed
}

TEST(Scene, EmptyObstacleListIsAnEmptyScene) {
  EXPECT_TRUE(parse("obstacles: []\n").obstacles.empty());
}

TEST(Scene, RotationXyzIsEquation38) {
  const Scene scene = parse(R"(obstacles:
  - {name: a, type: sphere, radius: 1, rotation_xyz: [0.3, -0.7, 1.1], position: [1, 2, 3]}
)");
  const Eigen::Matrix3d expected = rx(0.3) * ry(-0.7) * rz(1.1);
  EXPECT_TRUE(scene.obstacles[0].pose.linear().isApprox(expected, 1e-14));
  EXPECT_TRUE(scene.obstacles[0].pose.linear().isApprox(gjk::rotation_xyz(0.3, -0.7, 1.1), 1e-15));
  EXPECT_TRUE(scene.obstacles[0].pose.translation().isApprox(Vec3(1, 2, 3)));
}

TEST(Scene, RpyIsUrdfConvention) {
  const Scene scene = parse(R"(obstacles:
  - {name: a, type: sphere, radius: 1, rpy: [0.3, -0.7, 1.1]}
)");
  const Eigen::Matrix3d expected = rz(1.1) * ry(-0.7) * rx(0.3);  // R = Rz(yaw) Ry(pitch) Rx(roll)
  EXPECT_TRUE(scene.obstacles[0].pose.linear().isApprox(expected, 1e-14));
  // The two conventions differ for the same three numbers.
  EXPECT_FALSE(scene.obstacles[0].pose.linear().isApprox(rx(0.3) * ry(-0.7) * rz(1.1), 1e-3));
}

TEST(Scene, QuaternionIsWxyzAndNormalised) {
  const Scene scene = parse(R"(obstacles:
  - {name: a, type: sphere, radius: 1, quaternion: [0.7071067811865476, 0, 0, 0.7071067811865476]}
  - {name: b, type: sphere, radius: 1, quaternion: [2, 0, 0, 2]}
  - {name: c, type: sphere, radius: 1, quaternion: [3, 0, 0, 0]}
)");
  for (int i = 0; i < 2; ++i) {  // 90 degrees about z: x -> y
    EXPECT_TRUE(
        scene.obstacles[static_cast<std::size_t>(i)].pose.linear().isApprox(rz(kPi / 2), 1e-14));
  }
  EXPECT_TRUE(scene.obstacles[2].pose.linear().isIdentity(1e-15));
}

TEST(Scene, PyramidApexFollowsThePose) {
  // Apex 0.5 above the base centre; a quarter turn about x sends +z to -y.
  const Scene scene = parse(R"(obstacles:
  - name: tilted
    type: pyramid
    base: [[-0.1, -0.1, 0], [0.1, -0.1, 0], [0.1, 0.1, 0], [-0.1, 0.1, 0]]
    apex: [0, 0, 0.5]
    rotation_xyz: [1.5707963267948966, 0, 0]
    position: [1, 2, 3]
)");
  const auto& obstacle = scene.obstacles[0];
  const auto& pyramid = std::get<ConvexPolytope>(obstacle.shape.geometry);
  ASSERT_EQ(pyramid.vertices().size(), 5u);
  EXPECT_TRUE((obstacle.pose * top_vertex(pyramid)).isApprox(Vec3(1, 1.5, 3), 1e-12))
      << (obstacle.pose * top_vertex(pyramid)).transpose();
}

TEST(Scene, TriangularPyramid) {
  const Scene scene = parse(R"(obstacles:
  - {name: tet, type: pyramid, base: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], apex: [0, 0, -1]}
)");
  const auto& tet = std::get<ConvexPolytope>(scene.obstacles[0].shape.geometry);
  EXPECT_EQ(tet.vertices().size(), 4u);
  EXPECT_EQ(tet.triangles().size(), 4u);
}

// ---------------------------------------------------------------------------------------------
// Mesh obstacles

class SceneMesh : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gjk_test_scene_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "meshes");
    std::ofstream stl(dir_ / "meshes" / "tet.stl");
    // A unit tetrahedron as an ASCII STL.
    const char* facets[4][3] = {{"0 0 0", "0 1 0", "1 0 0"},
                                {"0 0 0", "1 0 0", "0 0 1"},
                                {"0 0 0", "0 0 1", "0 1 0"},
                                {"1 0 0", "0 1 0", "0 0 1"}};
    stl << "solid tet\n";
    for (const auto& f : facets) {
      stl << " facet normal 0 0 0\n  outer loop\n";
      for (const char* v : f) stl << "   vertex " << v << "\n";
      stl << "  endloop\n endfacet\n";
    }
    stl << "endsolid tet\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream out(dir_ / name);
    out << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(SceneMesh, RelativePathAndScale) {
  const std::string path = write("scene.yaml", R"(obstacles:
  - name: tet
    type: mesh
    file: meshes/tet.stl
    scale: [2, 3, 4]
  - name: small_tet
    type: mesh
    file: meshes/tet.stl
    scale: 0.5
    position: [0, 0, 1]
)");
  const Scene scene = load_scene(path);
  ASSERT_EQ(scene.obstacles.size(), 2u);
  const auto& tet = std::get<ConvexPolytope>(scene.obstacles[0].shape.geometry);
  ASSERT_EQ(tet.vertices().size(), 4u);
  Vec3 max = Vec3::Zero();
  for (const Vec3& v : tet.vertices()) max = max.cwiseMax(v);
  EXPECT_TRUE(max.isApprox(Vec3(2, 3, 4)));
  const auto& small = std::get<ConvexPolytope>(scene.obstacles[1].shape.geometry);
  max.setZero();
  for (const Vec3& v : small.vertices()) max = max.cwiseMax(v);
  EXPECT_TRUE(max.isApprox(Vec3(0.5, 0.5, 0.5)));
}

TEST_F(SceneMesh, ParseSceneResolvesAgainstBaseDir) {
  const Scene scene = parse_scene("obstacles: [{name: t, type: mesh, file: meshes/tet.stl}]",
                                  "text", dir_.string());
  EXPECT_EQ(std::get<ConvexPolytope>(scene.obstacles[0].shape.geometry).vertices().size(), 4u);
}

TEST_F(SceneMesh, PandaLink0ByAbsoluteAndRelativePath) {
  const fs::path stl = "/work/shared/robot-models/panda/meshes/collision/link0.stl";
  if (!fs::exists(stl)) GTEST_SKIP() << stl << " not available";
  const std::string relative = fs::relative(stl, dir_).string();
  const std::string path = write("panda.yaml",
                                 "obstacles:\n"
                                 "  - {name: abs, type: mesh, file: " +
                                     stl.string() +
                                     "}\n"
                                     "  - {name: rel, type: mesh, file: " +
                                     relative + ", inflation: 0.01}\n");
  const Scene scene = load_scene(path);
  ASSERT_EQ(scene.obstacles.size(), 2u);
  const auto& a = std::get<ConvexPolytope>(scene.obstacles[0].shape.geometry);
  const auto& b = std::get<ConvexPolytope>(scene.obstacles[1].shape.geometry);
  EXPECT_EQ(a.dimension(), 3);
  EXPECT_GT(a.vertices().size(), 4u);
  EXPECT_EQ(a.vertices().size(), b.vertices().size());
  EXPECT_EQ(scene.obstacles[1].shape.inflation, 0.01);
}

TEST_F(SceneMesh, UnreadableMeshNamesTheField) {
  std::ofstream(dir_ / "meshes" / "junk.stl") << "this is not a mesh\n";
  const std::string path = write("junk.yaml",
                                 "obstacles:\n"
                                 "  - name: junk\n"
                                 "    type: mesh\n"
                                 "    file: meshes/junk.stl\n");
  expect_error(error_of([&] { load_scene(path); }), path, 4, "obstacles[0].file", "junk.stl");
}

TEST_F(SceneMesh, BadScale) {
  expect_error(error_of([&] {
                 parse_scene(
                     "obstacles:\n  - {name: t, type: mesh, file: meshes/tet.stl,\n"
                     "     scale: [1, 0, 1]}\n",
                     "s.yaml", dir_.string());
               }),
               "s.yaml", 3, "obstacles[0].scale", "must be > 0");
}

// ---------------------------------------------------------------------------------------------
// Bad scene files under tests/robots/data: one per class of error.

TEST(SceneErrors, YamlSyntaxError) {
  const std::string path = kData + "/bad_syntax.yaml";
  const std::string message = error_of([&] { load_scene(path); });
  EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
  EXPECT_NE(message.find("YAML syntax error"), std::string::npos) << message;
  // The unterminated flow list opens on line 4; the parser notices on line 4 or 5.
  EXPECT_TRUE(message.rfind(path + ":4:", 0) == 0 || message.rfind(path + ":5:", 0) == 0)
      << message;
}

TEST(SceneErrors, WrongArity) {
  expect_file_error("bad_arity.yaml", 9, "obstacles[1].apex", "expected 3 numbers, got 2");
}

TEST(SceneErrors, UnknownKey) {
  expect_file_error("bad_unknown_key.yaml", 4, "obstacles[0].radus", "unknown key");
}

TEST(SceneErrors, DuplicateName) {
  expect_file_error("bad_duplicate_name.yaml", 5, "obstacles[1].name",
                    "duplicate obstacle name 'block' (first used on line 2)");
}

TEST(SceneErrors, DegeneratePyramid) {
  expect_file_error("bad_degenerate_pyramid.yaml", 9, "obstacles[0].apex",
                    "degenerate pyramid: apex lies in the base plane");
}

TEST(SceneErrors, MissingMeshFile) {
  expect_file_error("bad_missing_mesh.yaml", 4, "obstacles[0].file",
                    "does_not_exist.stl' not found");
}

TEST(SceneErrors, NonFiniteNumber) {
  expect_file_error("bad_non_finite.yaml", 5, "obstacles[0].position[1]", "must be finite");
}

TEST(SceneErrors, NegativeSize) {
  expect_file_error("bad_negative_size.yaml", 5, "obstacles[0].half_length", "must be >= 0");
}

TEST(SceneErrors, TwoRotations) {
  expect_file_error("bad_two_rotations.yaml", 6, "obstacles[0].quaternion", "at most one of");
}

TEST(SceneErrors, ZeroQuaternion) {
  expect_file_error("bad_zero_quaternion.yaml", 5, "obstacles[0].quaternion", "all zeros");
}

TEST(SceneErrors, EmptyFile) {
  expect_file_error("empty.yaml", 1, "", "empty scene");
}

TEST(SceneErrors, RootNotAMap) {
  expect_file_error("bad_not_a_map.yaml", 1, "",
                    "expected a map with an 'obstacles' list, got a list");
}

TEST(SceneErrors, ObstaclesNotAList) {
  expect_file_error("bad_obstacles_not_a_list.yaml", 2, "obstacles",
                    "expected a list of obstacles");
}

TEST(SceneErrors, MissingSceneFile) {
  const std::string path = kData + "/no_such_scene.yaml";
  const std::string message = error_of([&] { load_scene(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
}

// ---------------------------------------------------------------------------------------------
// More bad input, inline (the line numbers count from the first line of the text).

TEST(SceneErrors, UnknownType) {
  expect_inline_error("obstacles:\n  - name: a\n    type: cone\n", 3, "obstacles[0].type",
                      "unknown obstacle type 'cone'");
}

TEST(SceneErrors, MissingFields) {
  expect_inline_error("obstacles:\n  - name: a\n    radius: 1\n", 2, "obstacles[0].type",
                      "missing");
  expect_inline_error("obstacles:\n  - type: sphere\n    radius: 1\n", 2, "obstacles[0].name",
                      "missing");
  expect_inline_error("obstacles:\n  - name: a\n    type: sphere\n", 2, "obstacles[0].radius",
                      "missing");
  expect_inline_error("scene: 1\n", 1, "scene", "unknown key");
  expect_inline_error("# nothing\n", 1, "", "empty scene");
}

TEST(SceneErrors, ScalarWhereListExpected) {
  expect_inline_error("obstacles:\n  - name: a\n    type: box\n    half_extents: 3\n", 4,
                      "obstacles[0].half_extents", "expected a list of 3 numbers, got '3'");
  expect_inline_error("obstacles:\n  - name: a\n    type: convex\n    points: many\n", 4,
                      "obstacles[0].points", "expected a list of points");
  expect_inline_error("obstacles:\n  - name: a\n    type: convex\n    points: [1, 2, 3, 4]\n", 4,
                      "obstacles[0].points[0]", "expected a list of 3 numbers, got '1'");
  expect_inline_error("obstacles:\n  - just a string\n", 2, "obstacles[0]",
                      "expected an obstacle (a map)");
  expect_inline_error("obstacles: 7\n", 1, "obstacles", "expected a list of obstacles, got '7'");
}

TEST(SceneErrors, ListWhereNumberExpected) {
  expect_inline_error("obstacles:\n  - name: a\n    type: sphere\n    radius: [1]\n", 4,
                      "obstacles[0].radius", "expected a number, got a list");
  expect_inline_error("obstacles:\n  - name: [a]\n    type: sphere\n    radius: 1\n", 2,
                      "obstacles[0].name", "expected a non-empty name");
}

TEST(SceneErrors, NotANumber) {
  for (const char* bad : {"big", "true", "1.5m", "0.1.2", "\"\""}) {
    expect_inline_error(
        std::string("obstacles:\n  - name: a\n    type: sphere\n    radius: ") + bad + "\n", 4,
        "obstacles[0].radius", "expected a number");
  }
  for (const char* bad : {".inf", "-.inf", ".nan", ".NaN", "1e999", "-1e400", "inf", "nan"}) {
    expect_inline_error(
        std::string("obstacles:\n  - name: a\n    type: sphere\n    radius: ") + bad + "\n", 4,
        "obstacles[0].radius", "must be finite");
  }
  // Huge but finite numbers are numbers (a negative one is still a negative size).
  EXPECT_NO_THROW(parse("obstacles: [{name: a, type: sphere, radius: 1e300}]"));
  expect_inline_error("obstacles: [{name: a, type: sphere, radius: -1e300}]", 1,
                      "obstacles[0].radius", "must be >= 0");
}

TEST(SceneErrors, NegativeValues) {
  expect_inline_error("obstacles:\n  - {name: a, type: box, half_extents: [1, -1, 1]}\n", 2,
                      "obstacles[0].half_extents", "must be >= 0");
  expect_inline_error("obstacles:\n  - {name: a, type: sphere, radius: 1,\n     inflation: -0.1}\n",
                      3, "obstacles[0].inflation", "must be >= 0");
  expect_inline_error("obstacles:\n  - {name: a, type: capsule, radius: -1, half_length: 1}\n", 2,
                      "obstacles[0].radius", "must be >= 0");
}

TEST(SceneErrors, BadPyramids) {
  const std::string head = "obstacles:\n  - name: p\n    type: pyramid\n";
  expect_inline_error(head + "    base: [[0,0,0], [1,0,0]]\n    apex: [0,0,1]\n", 4,
                      "obstacles[0].base", "expected at least 3 points, got 2");
  expect_inline_error(head + "    base: [[0,0,0], [1,0,0], [2,0,0]]\n    apex: [0,0,1]\n", 4,
                      "obstacles[0].base", "collinear");
  expect_inline_error(head + "    base: [[0,0,0], [1,0,0], [1,0,0], [0,1,0]]\n    apex: [0,0,1]\n",
                      4, "obstacles[0].base", "base points 1 and 2 coincide");
  expect_inline_error(head +
                          "    base:\n      - [0,0,0]\n      - [1,0,0]\n      - [1,1,0.5]\n"
                          "      - [0,1,0]\n    apex: [0,0,1]\n",
                      8, "obstacles[0].base[3]",
                      "not coplanar");  // off the largest triangle's plane
  expect_inline_error(head +
                          "    base:\n      - [0,0,0]\n      - [2,0,0]\n      - [0.5,0.5,0]\n"
                          "      - [0,2,0]\n    apex: [0,0,1]\n",
                      7, "obstacles[0].base[2]", "not convex");
  expect_inline_error(head + "    base: [[0,0,0], [1,0,0], [0,1,0]]\n    apex: [0,0]\n", 5,
                      "obstacles[0].apex", "expected 3 numbers, got 2");
}

TEST(SceneErrors, BadConvex) {
  expect_inline_error("obstacles:\n  - name: c\n    type: convex\n    points: []\n", 4,
                      "obstacles[0].points", "expected at least 1 points, got 0");
  expect_inline_error("obstacles:\n  - name: c\n    type: convex\n    points: [[0,0,0],[1,0]]\n", 4,
                      "obstacles[0].points[1]", "expected 3 numbers, got 2");
}

TEST(SceneErrors, WrongKeyForType) {
  expect_inline_error(
      "obstacles:\n  - name: a\n    type: sphere\n    radius: 1\n"
      "    half_extents: [1, 1, 1]\n",
      5, "obstacles[0].half_extents", "unknown key");
}

TEST(SceneErrors, DuplicateKey) {
  expect_inline_error("obstacles:\n  - name: a\n    type: sphere\n    radius: 1\n    radius: 2\n",
                      5, "obstacles[0].radius", "key given twice");
}

TEST(SceneErrors, QuaternionArity) {
  expect_inline_error(
      "obstacles:\n  - {name: a, type: sphere, radius: 1,\n"
      "     quaternion: [1, 0, 0]}\n",
      3, "obstacles[0].quaternion", "expected 4 numbers [w, x, y, z], got 3");
  expect_inline_error("obstacles:\n  - {name: a, type: sphere, radius: 1, rpy: 0}\n", 2,
                      "obstacles[0].rpy", "expected a list of 3 numbers");
}

TEST(SceneErrors, SeveralDocuments) {
  expect_inline_error("obstacles: []\n---\nobstacles: []\n", 2, "", "expected one YAML document");
}

TEST(SceneErrors, NoInputCrashes) {
  // Every prefix of a good scene, and random byte edits of it, either loads or throws SceneError.
  std::ifstream in(kScenes + "/two_pyramids.yaml");
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(good.empty());
  const std::string text = good + kPrimitives;
  auto check = [](const std::string& input) {
    try {
      parse(input);
    } catch (const SceneError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("inline.yaml:", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-SceneError exception: " << e.what() << "\n for input:\n" << input;
    }
  };
  for (std::size_t n = 0; n <= good.size(); n += 3) check(good.substr(0, n));
  std::mt19937 rng(12345);
  const std::string alphabet = "[]{}:-,#&*!|>'\"\n 0123456789.eE+-abcxyz\t\\%@`";
  for (int trial = 0; trial < 1500; ++trial) {
    std::string input = text;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      input[rng() % input.size()] = alphabet[rng() % alphabet.size()];
    }
    check(input);
  }
  check(std::string("\0\xff\xfe", 3));
  check(std::string(5000, '['));
  check("obstacles: [" + std::string(300, '[') + "]");
  // A stray ',' at block level sends yaml-cpp 0.7's multi-document parser into an endless,
  // allocating loop (jbeder/yaml-cpp#1040); the loader must report it instead.
  expect_inline_error(",\n", 1, "", "YAML syntax error: unexpected ','");
  expect_inline_error("# comment\n, oops\nobstacles: []\n", 2, "", "unexpected ','");
  expect_inline_error("obstacles: []\n, oops\n", 2, "", "YAML syntax error");
}

}  // namespace
