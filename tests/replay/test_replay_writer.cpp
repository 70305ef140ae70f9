// The replay page writer (issue 14): tessellation as the engine sees the shapes, the data a page
// carries (parsed back from the page), the recorder against the clearance analysis, and atomic
// writing with clear errors. The page itself is tested in a browser (test_replay_browser.py).
#include <gjk/replay/replay.hpp>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using gjk::replay::Replay;
using gjk::replay::ReplayError;
using gjk::replay::TriangleSoup;

/// A fresh folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("gjk_replay_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path dir_;
};

std::vector<unsigned char> unbase64(const std::string& text) {
  std::vector<unsigned char> out;
  unsigned value = 0;
  int bits = 0;
  for (char c : text) {
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = std::strchr(alphabet, c);
    if (c == '=' || at == nullptr) break;
    value = (value << 6) | static_cast<unsigned>(at - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<unsigned char>((value >> bits) & 0xff));
    }
  }
  return out;
}

template <class T>
std::vector<T> decode(const nlohmann::json& field) {
  const std::vector<unsigned char> bytes = unbase64(field.get<std::string>());
  EXPECT_EQ(bytes.size() % sizeof(T), 0u);
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

/// The JSON the page carries, cut out of the page as the viewer reads it.
nlohmann::json page_data(const std::string& page) {
  const std::string open = "<script id=\"replay-data\" type=\"application/json\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = page.find("</script>", begin);
  EXPECT_NE(end, std::string::npos);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

/// One link with a box, one obstacle, one run of two frames.
Replay small_replay() {
  Replay r;
  r.title = "a </script> <!--<script> title";  // must not end or change the data element
  r.margin = 0.05;
  r.links = {"base"};
  r.bodies.push_back({"base#0", 0, gjk::replay::tessellate(gjk::Box{gjk::Vec3(0.1, 0.2, 0.3)})});
  r.obstacles.push_back({"wall", "convex", gjk::replay::tessellate(gjk::Sphere{0.5})});
  gjk::replay::Run run;
  run.name = "run one";
  run.times = {0.0, 0.5};
  run.poses = {0, 0, 0, 0, 0, 0, 1, 1.5f, 2, 3, 0, 0, 0.70710677f, 0.70710677f};
  run.link_clearance = {0.25f, -0.01f};
  run.clearance = {0.25, -0.012345678901234};
  run.worst = {0, 0, 0, 0};
  run.witness = {0, 0, 0, 1, 0, 0, 0.5f, 0, 0, 0.4f, 0, 0};
  r.runs.push_back(run);
  return r;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

double max_radius(const TriangleSoup& soup) {
  double r = 0.0;
  for (size_t i = 0; i + 2 < soup.vertices.size(); i += 3) {
    r = std::max(r, static_cast<double>(
                        std::hypot(soup.vertices[i], soup.vertices[i + 1], soup.vertices[i + 2])));
  }
  return r;
}

TEST(ReplayTessellation, ShapesAsTheEngineSeesThem) {
  const TriangleSoup box = gjk::replay::tessellate(gjk::Box{gjk::Vec3(1, 2, 3)});
  EXPECT_EQ(box.vertices.size(), 8u * 3);
  EXPECT_EQ(box.triangles.size(), 12u * 3);
  EXPECT_NEAR(max_radius(box), std::sqrt(14.0), 1e-6);

  const TriangleSoup sphere = gjk::replay::tessellate(gjk::Sphere{0.5});
  ASSERT_GT(sphere.triangles.size(), 100u);
  for (size_t i = 0; i + 2 < sphere.vertices.size(); i += 3) {
    EXPECT_NEAR(std::hypot(sphere.vertices[i], sphere.vertices[i + 1], sphere.vertices[i + 2]), 0.5,
                1e-6);
  }
  // An inflated box: the core swept by a ball, so no farther than its corner plus the radius and
  // rounded (more vertices than the box).
  const TriangleSoup inflated =
      gjk::replay::tessellate(gjk::Shape(gjk::Box{gjk::Vec3(1, 1, 1)}, 0.25));
  EXPECT_GT(inflated.vertices.size(), 8u * 3);
  EXPECT_NEAR(max_radius(inflated), std::sqrt(3.0) + 0.25, 0.02);
  const TriangleSoup capsule = gjk::replay::tessellate(gjk::Capsule{0.1, 0.5});
  EXPECT_NEAR(max_radius(capsule), 0.6, 1e-6);
  // A hull keeps its own triangles and vertices.
  const gjk::ConvexPolytope tetra = gjk::ConvexPolytope::from_points(
      {gjk::Vec3(0, 0, 0), gjk::Vec3(1, 0, 0), gjk::Vec3(0, 1, 0), gjk::Vec3(0, 0, 1)});
  const TriangleSoup hull = gjk::replay::tessellate(tetra);
  EXPECT_EQ(hull.vertices.size(), tetra.vertices().size() * 3);
  EXPECT_EQ(hull.triangles.size(), tetra.triangles().size() * 3);
}

TEST(ReplayPage, CarriesTheDataAndEverythingItNeeds) {
  const Replay r = small_replay();
  const std::string page = gjk::replay::replay_html(r);
  // Self-contained: three.js and OrbitControls in the import map, no script from elsewhere.
  EXPECT_NE(page.find("<script type=\"importmap\">{\"imports\":{\"three\":\"data:text/javascript;"
                      "base64,"),
            std::string::npos);
  EXPECT_NE(page.find("three/addons/controls/OrbitControls.js"), std::string::npos);
  EXPECT_EQ(page.find("<script src="), std::string::npos);
  EXPECT_NE(page.find("window.replay"), std::string::npos);  // the viewer

  const nlohmann::json j = page_data(page);
  EXPECT_EQ(j["title"], r.title);
  EXPECT_EQ(page.find("<!--<script>"), std::string::npos);
  EXPECT_EQ(j["margin"], 0.05);
  EXPECT_EQ(j["links"], nlohmann::json::array({"base"}));
  ASSERT_EQ(j["bodies"].size(), 1u);
  EXPECT_EQ(j["bodies"][0]["name"], "base#0");
  EXPECT_EQ(decode<float>(j["bodies"][0]["vertices"]), r.bodies[0].geometry.vertices);
  EXPECT_EQ(decode<std::uint32_t>(j["bodies"][0]["triangles"]), r.bodies[0].geometry.triangles);
  EXPECT_EQ(decode<float>(j["obstacles"][0]["vertices"]), r.obstacles[0].geometry.vertices);
  ASSERT_EQ(j["runs"].size(), 1u);
  const nlohmann::json& run = j["runs"][0];
  EXPECT_EQ(run["name"], "run one");
  EXPECT_EQ(run["frames"], 2);
  EXPECT_EQ(decode<double>(run["times"]), r.runs[0].times);
  EXPECT_EQ(decode<float>(run["poses"]), r.runs[0].poses);
  EXPECT_EQ(decode<float>(run["link_clearance"]), r.runs[0].link_clearance);
  EXPECT_EQ(decode<double>(run["clearance"]), r.runs[0].clearance);  // exact: the label's value
  EXPECT_EQ(decode<std::int32_t>(run["worst"]), r.runs[0].worst);
  EXPECT_EQ(decode<float>(run["witness"]), r.runs[0].witness);

  Replay no_margin = r;
  no_margin.margin = -std::numeric_limits<double>::infinity();
  EXPECT_TRUE(page_data(gjk::replay::replay_html(no_margin))["margin"].is_null());
}

TEST(ReplayPage, WritesAtomicallyAndNamesTheFileOnError) {
  TempDir tmp;
  const std::string good = tmp.path("replay.html");
  gjk::replay::write_replay_html(good, small_replay());
  EXPECT_EQ(read_text(good), gjk::replay::replay_html(small_replay()));
  EXPECT_EQ(tmp.files(), std::vector<std::string>{"replay.html"});

  // A folder that does not exist: the message names the file; nothing is left.
  const std::string missing = tmp.path("no/such/folder/replay.html");
  try {
    gjk::replay::write_replay_html(missing, small_replay());
    ADD_FAILURE() << "no error for " << missing;
  } catch (const ReplayError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  // A directory in the way.
  fs::create_directory(tmp.path("taken"));
  EXPECT_THROW(gjk::replay::write_replay_html(tmp.path("taken"), small_replay()), ReplayError);

  // Inconsistent data: an error naming the run and the file, and the old page stays as it was.
  Replay bad = small_replay();
  bad.runs[0].poses.pop_back();
  try {
    gjk::replay::write_replay_html(good, bad);
    ADD_FAILURE() << "no error for a short pose array";
  } catch (const ReplayError& e) {
    EXPECT_NE(std::string(e.what()).find(good), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("run one"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(good), gjk::replay::replay_html(small_replay()));
  EXPECT_EQ(tmp.files(), (std::vector<std::string>{"replay.html", "taken"}));
}

TEST(ReplayRecorder, RecordsWhatTheAnalysisFinds) {
  const gjk::robots::CollisionWorld world(
      gjk::robots::RobotModel::from_urdf_file(std::string(GJK_ROBOT_MODELS_DIR) +
                                              "/four_dof/four_dof_arm.urdf"),
      gjk::robots::load_scene(std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml"));
  // The elbow lowered into pyramid_low and lifted out again: some states collide.
  std::vector<gjk::analysis::PathState> states;
  const double deg = M_PI / 180.0;
  for (int i = 0; i < 600; ++i) {  // more than two blocks of 256
    const double s = 1.0 - std::abs(2.0 * i / 599.0 - 1.0);
    Eigen::VectorXd q(4);
    q << 0.0, (90 + 50 * s) * deg, -150 * deg, -30 * deg;
    states.push_back({i + 1, 0.01 * i, q});
  }
  gjk::analysis::AnalysisOptions options;
  options.threads = 2;
  gjk::analysis::CollectingSink expected;
  gjk::analysis::analyse(world, states, options, &expected);

  gjk::analysis::VectorSource source(states);
  gjk::analysis::CollectingSink inner;  // still gets every block
  gjk::replay::ReplayRecorder recorder(world, source, true, &inner);
  gjk::analysis::analyse(world, recorder.source(), options, &recorder);
  const gjk::replay::Run run = recorder.take_run("lowered");
  ASSERT_EQ(run.frames(), states.size());
  ASSERT_EQ(inner.states.size(), states.size());
  const auto& model = world.model();
  const size_t links = model.links().size(), shapes = model.collision_shapes().size();
  size_t colliding = 0;
  gjk::robots::Workspace ws(model);
  for (size_t f = 0; f < states.size(); ++f) {
    const gjk::analysis::StateRecord& e = expected.states[f];
    EXPECT_EQ(run.times[f], states[f].time);
    EXPECT_EQ(run.clearance[f], e.worst.distance);
    EXPECT_EQ(run.worst[2 * f], e.worst.shape);
    EXPECT_EQ(run.worst[2 * f + 1], e.worst.obstacle);
    EXPECT_FLOAT_EQ(run.witness[6 * f + 3], static_cast<float>(e.worst.point_on_obstacle.x()));
    std::vector<double> per_link(links, std::numeric_limits<double>::infinity());
    for (const auto& p : expected.pairs[f]) {
      auto& d = per_link[static_cast<size_t>(model.collision_shapes()[p.shape].link)];
      d = std::min(d, p.distance);
    }
    for (size_t l = 0; l < links; ++l) {
      EXPECT_EQ(run.link_clearance[f * links + l], static_cast<float>(per_link[l]))
          << f << " " << l;
    }
    colliding += e.worst.distance < 0 ? 1 : 0;
    // Poses: the shapes' world poses (position, quaternion).
    gjk::robots::forward_kinematics(model, states[f].q, ws);
    for (size_t s = 0; s < shapes; ++s) {
      const gjk::Pose pose = gjk::robots::collision_pose(model, ws, static_cast<int>(s));
      const Eigen::Quaterniond q(pose.rotation());
      const float* p = &run.poses[(f * shapes + s) * 7];
      EXPECT_NEAR(p[0], pose.translation().x(), 1e-6);
      EXPECT_NEAR(p[2], pose.translation().z(), 1e-6);
      EXPECT_NEAR(std::abs(p[3] * q.x() + p[4] * q.y() + p[5] * q.z() + p[6] * q.w()), 1.0, 1e-6);
    }
  }
  EXPECT_GT(colliding, 0u);
  EXPECT_LT(colliding, states.size());

  // The world's geometry: one body per collision shape, on its link; the two pyramids.
  const Replay r = gjk::replay::replay_of_world(world, "four-dof");
  ASSERT_EQ(r.bodies.size(), shapes);
  EXPECT_EQ(r.links.size(), links);
  ASSERT_EQ(r.obstacles.size(), 2u);
  for (const auto& o : r.obstacles) EXPECT_GT(o.geometry.triangles.size(), 0u) << o.name;
}

TEST(ReplayWorld, ExactLinkMeshesAreDrawnAsTheirTriangles) {
  // The UR5's links are not convex: with LinkMeshRepresentation::Mesh the page carries the
  // file's triangles, not the hull's.
  gjk::robots::UrdfOptions options;
  options.meshes = gjk::robots::LinkMeshRepresentation::Mesh;
  const gjk::robots::CollisionWorld world(gjk::robots::RobotModel::from_urdf_file(
      std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/ur5/ur5.urdf", options));
  const Replay r = gjk::replay::replay_of_world(world, "ur5");
  const auto& shapes = world.model().collision_shapes();
  ASSERT_EQ(r.bodies.size(), shapes.size());
  size_t meshes = 0, differ = 0;
  for (size_t s = 0; s < shapes.size(); ++s) {
    if (!shapes[s].mesh) continue;  // a URDF primitive (the UR5's ee_link box) stays convex
    ++meshes;
    EXPECT_EQ(r.bodies[s].geometry.triangles.size(), shapes[s].mesh->triangles().size() * 3);
    EXPECT_EQ(r.bodies[s].geometry.vertices.size(), shapes[s].mesh->vertices().size() * 3);
    const TriangleSoup hull = gjk::replay::tessellate(shapes[s].shape);
    differ += hull.triangles.size() != r.bodies[s].geometry.triangles.size() ? 1 : 0;
  }
  EXPECT_GE(meshes, 6u);
  EXPECT_GT(differ, 0u);
}

}  // namespace

// Decimation (--html-max-frames): at most N frames, the worst instant, every collision onset,
// then the below-margin onsets and both ends, the rest evenly spread.
TEST(ReplayDecimation, KeepsTheInstantsThatMatter) {
  using gjk::replay::select_frames;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> c(10000, 1.0);
  for (size_t f = 0; f < c.size(); ++f) c[f] = 1.0 + 0.5 * std::sin(0.01 * static_cast<double>(f));
  for (size_t f = 3001; f < 3010; ++f) c[f] = -0.01;  // a collision interval
  c[3005] = -0.02;                                    // its deepest state, not its onset
  c[7777] = -0.001;                                   // a one-state collision
  for (size_t f = 5000; f < 5100; ++f) c[f] = 0.01;   // below the margin 0.05
  c[9000] = inf;                                      // nothing measured

  EXPECT_EQ(select_frames(c, 0).size(), c.size());  // 0: no limit
  EXPECT_EQ(select_frames(c, c.size()).size(), c.size());
  for (size_t n : {1u, 2u, 3u, 4u, 5u, 50u, 2000u}) {
    const std::vector<size_t> kept = select_frames(c, n, 0.05);
    ASSERT_EQ(kept.size(), n);  // exactly N when the run is longer
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
    EXPECT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end());  // no repeats
    const auto has = [&](size_t f) { return std::count(kept.begin(), kept.end(), f) == 1; };
    EXPECT_TRUE(has(3005)) << n;                          // the worst instant first
    EXPECT_TRUE(n < 3 || (has(3001) && has(7777))) << n;  // every collision onset
    EXPECT_TRUE(n < 4 || has(5000)) << n;                 // the below-margin onset
    EXPECT_TRUE(n < 6 || (has(0) && has(c.size() - 1))) << n;
  }
  // The rest is spread: no gap much larger than the even one.
  const std::vector<size_t> kept = select_frames(c, 100, 0.05);
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_LE(kept[i] - kept[i - 1], 2 * c.size() / 94);

  // More collision onsets than room: those kept are spread over them.
  std::vector<double> comb(1000, 0.5);
  for (size_t f = 0; f < comb.size(); f += 2) comb[f] = -0.1 - 1e-6 * static_cast<double>(f);
  const std::vector<size_t> few = select_frames(comb, 10);
  ASSERT_EQ(few.size(), 10u);
  EXPECT_EQ(few.back(), 998u);  // the worst (deepest) collision
  EXPECT_EQ(few.front(), 0u);
  for (size_t f : few) EXPECT_LT(comb[f], 0.0) << f;
}

TEST(ReplayDecimation, KeepFramesCopiesEachFramesSlice) {
  gjk::replay::Run run;
  run.name = "r";
  for (int f = 0; f < 5; ++f) {
    run.times.push_back(f);
    for (int b = 0; b < 2 * 7; ++b) run.poses.push_back(static_cast<float>(100 * f + b));
    for (int l = 0; l < 3; ++l) run.link_clearance.push_back(static_cast<float>(10 * f + l));
    run.clearance.push_back(f - 1.0);
    run.worst.insert(run.worst.end(), {f, -f});
    for (int k = 0; k < 6; ++k) run.witness.push_back(static_cast<float>(f + 0.1 * k));
  }
  const gjk::replay::Run kept = gjk::replay::keep_frames(run, {1, 4});
  EXPECT_EQ(kept.name, "r");
  EXPECT_EQ(kept.times, (std::vector<double>{1, 4}));
  ASSERT_EQ(kept.poses.size(), 28u);
  EXPECT_EQ(kept.poses[0], 100.0f);
  EXPECT_EQ(kept.poses[14], 400.0f);
  EXPECT_EQ(kept.link_clearance, (std::vector<float>{10, 11, 12, 40, 41, 42}));
  EXPECT_EQ(kept.clearance, (std::vector<double>{0, 3}));
  EXPECT_EQ(kept.worst, (std::vector<std::int32_t>{1, -1, 4, -4}));
  EXPECT_EQ(kept.witness[6], 4.0f);
  EXPECT_THROW(gjk::replay::keep_frames(run, {1, 5}), std::invalid_argument);
  EXPECT_THROW(gjk::replay::keep_frames(run, {2, 2}), std::invalid_argument);
}
