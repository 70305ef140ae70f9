// gjk-clearance: path reading (CSV with and without header, OMPL matrix, bad rows), the threaded
// analysis against distances recomputed here pair by pair with gjk::signed_distance, and the
// built executable end to end (exit codes, stderr messages, CSV and JSON outputs).
#include <gtest/gtest.h>

#include <gjk/analysis/clearance.hpp>

#include <gjk/queries.hpp>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

using namespace gjk;
using namespace gjk::robots;
using gjk::analysis::Analysis;
using gjk::analysis::AnalysisOptions;
using gjk::analysis::Path;
using gjk::analysis::PathError;
using gjk::analysis::PathState;
using json = nlohmann::json;
namespace fs = std::filesystem;

const std::string kExe = GJK_CLEARANCE_EXE;
const std::string kData = GJK_CLEARANCE_DATA_DIR;
const std::string kFourDofUrdf = std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf";
const std::string kPandaUrdf = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf";
const std::string kPyramids = std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml";
const std::string kPandaBoxes = std::string(GJK_ROBOT_SCENES_DIR) + "/panda_boxes.yaml";
const std::string kExamplePath = kData + "/four_dof_path.csv";

const RobotModel& four_dof() {
  static const RobotModel model = RobotModel::from_urdf_file(kFourDofUrdf);
  return model;
}
const Scene& pyramids() {
  static const Scene scene = load_scene(kPyramids);
  return scene;
}
const RobotModel& panda() {
  static const RobotModel model = RobotModel::from_urdf_file(kPandaUrdf);
  return model;
}
const Scene& panda_boxes() {
  static const Scene scene = load_scene(kPandaBoxes);
  return scene;
}

/// A fresh folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("gjk_clearance_" + std::to_string(::getpid()) + "_" +
                                        info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Path read(const std::string& text, const RobotModel& model, const std::string& name = "p.csv") {
  std::istringstream in(text);
  return gjk::analysis::read_path(in, name, model);
}

/// `count` states evenly from `a` to `b` (both included), as CSV rows "v0,v1,...".
std::vector<Eigen::VectorXd> interpolate(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                                         int count) {
  std::vector<Eigen::VectorXd> qs;
  for (int i = 0; i < count; ++i) {
    const double s = count > 1 ? static_cast<double>(i) / (count - 1) : 0.0;
    qs.push_back(a + s * (b - a));
  }
  return qs;
}

std::string csv_rows(const std::vector<Eigen::VectorXd>& qs, const char* separator = ",") {
  std::string text;
  char buffer[64];
  for (const Eigen::VectorXd& q : qs) {
    for (int k = 0; k < q.size(); ++k) {
      std::snprintf(buffer, sizeof buffer, "%.17g", q[k]);
      text += (k > 0 ? separator : "") + std::string(buffer);
    }
    text += "\n";
  }
  return text;
}

Eigen::VectorXd deg(std::initializer_list<double> values) {
  Eigen::VectorXd q(static_cast<Eigen::Index>(values.size()));
  Eigen::Index k = 0;
  for (double v : values) q[k++] = v * M_PI / 180.0;
  return q;
}

Eigen::VectorXd panda_q(std::initializer_list<double> arm, double finger) {
  Eigen::VectorXd q(8);
  Eigen::Index k = 0;
  for (double v : arm) q[k++] = v;
  q[7] = finger;
  return q;
}

// ---------------------------------------------------------------------------------------------
// Independent check: every pair of every state recomputed from scratch (cold signed distance of
// the link's collision shape at its forward-kinematics pose against the obstacle).

/// Distance from a point to a shape (0 when the point is on or inside it).
double point_to_shape(const Vec3& p, const Shape& shape, const Pose& pose) {
  Pose at = Pose::Identity();
  at.translation() = p;
  return gjk::distance(Shape(Sphere{0.0}), at, shape, pose).distance;
}

/// An analysis with every record kept.
struct Recorded {
  Analysis analysis;
  gjk::analysis::CollectingSink sink;
};

Recorded analyse_all(const RobotModel& model, const Scene& scene,
                     const std::vector<PathState>& states, const AnalysisOptions& options) {
  Recorded r;
  r.analysis = gjk::analysis::analyse(model, scene, states, options, &r.sink);
  return r;
}

void check_against_direct(const RobotModel& model, const Scene& scene,
                          const std::vector<PathState>& states, const Recorded& run,
                          double cutoff = std::numeric_limits<double>::infinity()) {
  const Analysis& analysis = run.analysis;
  ASSERT_EQ(run.sink.pairs.size(), states.size());
  ASSERT_EQ(run.sink.states.size(), states.size());
  const int shapes = static_cast<int>(model.collision_shapes().size());
  const int obstacles = static_cast<int>(scene.obstacles.size());
  Workspace ws(model);
  double overall = std::numeric_limits<double>::infinity();
  size_t collisions = 0, pairs = 0;
  for (size_t i = 0; i < states.size(); ++i) {
    SCOPED_TRACE("state " + std::to_string(i));
    forward_kinematics(model, states[i].q, ws);
    const std::vector<gjk::analysis::PairRecord>& got = run.sink.pairs[i];
    const gjk::analysis::StateRecord& record = run.sink.states[i];
    EXPECT_EQ(record.index, i);
    EXPECT_EQ(record.line, states[i].line);
    EXPECT_EQ(record.pairs, got.size());
    double state_min = std::numeric_limits<double>::infinity();
    size_t next = 0;
    bool collision = false;
    for (int s = 0; s < shapes; ++s) {
      const CollisionShape& c = model.collision_shapes()[static_cast<size_t>(s)];
      const Pose pose = ws.link_poses[static_cast<size_t>(c.link)] * c.origin;
      for (int o = 0; o < obstacles; ++o) {
        const Obstacle& ob = scene.obstacles[static_cast<size_t>(o)];
        const SignedDistanceResult r = gjk::signed_distance(c.shape, pose, ob.shape, ob.pose);
        ASSERT_EQ(r.status, Status::Converged);
        if (r.signed_distance > cutoff + 1e-9) continue;
        if (r.signed_distance >= cutoff - 1e-9) {  // at the cutoff: either way is right
          if (next < got.size() && got[next].shape == s && got[next].obstacle == o) ++next;
          continue;
        }
        ASSERT_LT(next, got.size()) << "pair " << s << "/" << o << " missing";
        const gjk::analysis::PairRecord& p = got[next++];
        ASSERT_EQ(p.shape, s);
        ASSERT_EQ(p.obstacle, o);
        EXPECT_NEAR(p.distance, r.signed_distance, 1e-9) << "pair " << s << "/" << o;
        EXPECT_EQ(p.status, Status::Converged);
        // Witnesses: on each body, and as far apart as the distance says.
        EXPECT_LE(point_to_shape(p.point_on_link, c.shape, pose), 1e-9);
        EXPECT_LE(point_to_shape(p.point_on_obstacle, ob.shape, ob.pose), 1e-9);
        EXPECT_NEAR((p.point_on_obstacle - p.point_on_link).norm(), std::abs(r.signed_distance),
                    1e-9);
        EXPECT_NEAR(p.normal.norm(), 1.0, 1e-9);
        overall = std::min(overall, r.signed_distance);
        state_min = std::min(state_min, p.distance);
        collision = collision || r.signed_distance < 0.0;
      }
    }
    EXPECT_EQ(next, got.size());
    // The state's record: its closest pair, the first one on a tie.
    if (got.empty()) {
      EXPECT_FALSE(record.has_worst());
    } else {
      ASSERT_TRUE(record.has_worst());
      EXPECT_EQ(record.worst.distance, state_min);
      const auto first = std::find_if(got.begin(), got.end(),
                                      [&](const auto& q) { return q.distance == state_min; });
      EXPECT_EQ(record.worst.shape, first->shape);
      EXPECT_EQ(record.worst.obstacle, first->obstacle);
      EXPECT_EQ(record.worst.point_on_link, first->point_on_link);
      EXPECT_EQ(record.worst.normal, first->normal);
    }
    pairs += got.size();
    if (collision) ++collisions;
  }
  EXPECT_EQ(analysis.pairs, pairs);
  EXPECT_EQ(analysis.states_in_collision, collisions);
  if (std::isfinite(overall)) {
    ASSERT_TRUE(analysis.overall.found());
    EXPECT_NEAR(analysis.overall.pair.distance, overall, 1e-9);
  }
}

AnalysisOptions threads(int n, double cutoff = std::numeric_limits<double>::infinity()) {
  AnalysisOptions o;
  o.threads = n;
  o.cutoff = cutoff;
  return o;
}

// ---------------------------------------------------------------------------------------------
// Path reading

TEST(ClearancePath, ExampleCsvWithHeaderAndTime) {
  const Path path = gjk::analysis::read_path_file(kExamplePath, four_dof());
  EXPECT_TRUE(path.errors.empty());
  EXPECT_TRUE(path.has_header);
  EXPECT_TRUE(path.has_time);
  EXPECT_EQ(path.time_column, "t");
  ASSERT_EQ(path.states.size(), 21u);
  EXPECT_EQ(path.states[0].line, 4);  // two comment lines and the header come first
  EXPECT_EQ(path.states[20].line, 24);
  EXPECT_DOUBLE_EQ(path.states[20].time, 2.0);
  EXPECT_NEAR(path.states[0].q[1], M_PI / 2, 1e-6);
  EXPECT_NEAR(path.states[0].q[2], -150.0 * M_PI / 180.0, 1e-6);
}

TEST(ClearancePath, HeaderMapsColumnsByName) {
  // Columns permuted, whitespace separated, `time` column in the middle.
  const Path path = read(
      "joint3 time joint1 joint4 joint2\n"
      "0.3 1.5 0.1 0.4 0.2\n"
      "-0.3   2.5\t-0.1 -0.4 -0.2\n",
      four_dof());
  ASSERT_TRUE(path.errors.empty()) << path.error_text(0);
  EXPECT_TRUE(path.has_time);
  EXPECT_EQ(path.time_column, "time");
  ASSERT_EQ(path.states.size(), 2u);
  EXPECT_EQ(path.states[0].q, Eigen::Vector4d(0.1, 0.2, 0.3, 0.4));
  EXPECT_EQ(path.states[1].q, Eigen::Vector4d(-0.1, -0.2, -0.3, -0.4));
  EXPECT_EQ(path.states[0].time, 1.5);
  EXPECT_EQ(path.states[1].line, 3);
}

TEST(ClearancePath, HeaderErrorsNameLineColumnAndValue) {
  const auto message = [](const std::string& text) {
    try {
      read(text, four_dof(), "h.csv");
    } catch (const PathError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("# c\n\njoint1,elbow,joint3,joint4\n0,0,0,0\n")
                .rfind("h.csv:3: column 2: unknown joint name 'elbow' (joints of robot "
                       "'four_dof_arm': joint1, joint2, joint3, joint4",
                       0),
            0u);
  EXPECT_EQ(message("joint1,joint2,joint4\n"),
            "h.csv:1: header has no column for joint joint3 (robot 'four_dof_arm' needs joint1, "
            "joint2, joint3, joint4; a joint the path lacks can be held with --fixed "
            "NAME=VALUE)");
  EXPECT_EQ(message("joint1,joint2,joint3,joint4,joint2\n"),
            "h.csv:1: column 5: joint 'joint2' appears twice (also column 2)");
  EXPECT_EQ(message("t,joint1,joint2,joint3,joint4,time\n"),
            "h.csv:1: column 6: a second time column 'time' (the first is column 1)");
}

TEST(ClearancePath, ByteOrderMarkAndCrlfAreIgnored) {
  const Path path =
      read("\xEF\xBB\xBFjoint1,joint2,joint3,joint4\r\n0.1,0.2,0.3,0.4\r\n", four_dof());
  ASSERT_TRUE(path.errors.empty()) << path.error_text(0);
  EXPECT_TRUE(path.has_header);
  ASSERT_EQ(path.states.size(), 1u);
  EXPECT_EQ(path.states[0].q, Eigen::Vector4d(0.1, 0.2, 0.3, 0.4));
}

TEST(ClearancePath, OmplMatrixMatchesCsv) {
  const std::vector<Eigen::VectorXd> qs =
      interpolate(deg({0, 90, -150, -30}), deg({10, 40, -40, -60}), 7);
  // printAsMatrix: space-separated values, one state per line, a trailing space on each line.
  std::string ompl;
  for (const Eigen::VectorXd& q : qs) {
    std::ostringstream line;
    line.precision(17);
    for (int k = 0; k < q.size(); ++k) line << q[k] << " ";
    ompl += line.str() + "\n";
  }
  const Path from_ompl = read("# from OMPL\n\n" + ompl, four_dof());
  const Path from_csv = read(csv_rows(qs), four_dof());
  EXPECT_FALSE(from_ompl.has_header);
  EXPECT_FALSE(from_ompl.has_time);
  ASSERT_TRUE(from_ompl.errors.empty()) << from_ompl.error_text(0);
  ASSERT_EQ(from_ompl.states.size(), qs.size());
  ASSERT_EQ(from_csv.states.size(), qs.size());
  for (size_t i = 0; i < qs.size(); ++i) {
    EXPECT_EQ(from_ompl.states[i].q, qs[i]);
    EXPECT_EQ(from_csv.states[i].q, qs[i]);
    EXPECT_EQ(from_ompl.states[i].line, static_cast<long>(i + 3));
  }
}

TEST(ClearancePath, BadRowsAreReportedAndSkipped) {
  const Path path = read(
      "t,joint1,joint2,joint3,joint4\n"
      "0,0.1,0.2,0.3,0.4\n"       // 2 good
      "1,0.1,abc,0.3,0.4\n"       // 3 non-numeric
      "2,0.1,0.2,nan,0.4\n"       // 4 NaN
      "3,0.1,0.2,0.3\n"           // 5 wrong count
      "4,0.1,0.2,0.3,4.0\n"       // 6 outside [-pi, pi]
      "\n"                        // 7 blank: skipped
      "# 8 a comment\n"           // 8 comment: skipped
      "5,0.1,0.2,0.3,-inf\n"      // 9 infinity
      "6,0.1,,0.3,0.4\n"          // 10 empty value
      "7,0.1,0.2,0.3,1e999\n"     // 11 overflow
      "8,-0.1,-0.2,-0.3,-0.4\n",  // 12 good
      four_dof(), "bad.csv");
  ASSERT_EQ(path.states.size(), 2u);
  EXPECT_EQ(path.states[0].line, 2);
  EXPECT_EQ(path.states[1].line, 12);
  EXPECT_EQ(path.states[1].time, 8.0);
  const std::vector<std::string> expected = {
      "bad.csv:3: column 3 (joint2): expected a number, got 'abc'",
      "bad.csv:4: column 4 (joint3): value 'nan' is not finite",
      "bad.csv:5: expected 5 values (t, joint1, joint2, joint3, joint4), got 4",
      "bad.csv:6: column 5 (joint4): 4 is outside the joint limits [-3.141592653589793, "
      "3.141592653589793]",
      "bad.csv:9: column 5 (joint4): value '-inf' is not finite",
      "bad.csv:10: column 3 (joint2): empty value",
      "bad.csv:11: column 5 (joint4): number '1e999' is out of range of a double",
  };
  ASSERT_EQ(path.errors.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(path.error_text(i), expected[i]);
}

TEST(ClearancePath, RowsWithoutHeaderNeedEveryJoint) {
  const Path path = read("0.1 0.2 0.3\n0.1 0.2 0.3 0.4 0.5\n0.1 0.2 0.3 0.4\n", four_dof());
  ASSERT_EQ(path.errors.size(), 2u);
  EXPECT_EQ(path.error_text(0),
            "p.csv:1: expected 4 values (joint1, joint2, joint3, joint4), got 3");
  EXPECT_EQ(path.errors[1].line, 2);
  ASSERT_EQ(path.states.size(), 1u);
  EXPECT_EQ(path.states[0].line, 3);
}

TEST(ClearancePath, MissingFileAndDirectoryAreErrorsNamingThem) {
  TempDir tmp;
  const std::string missing = tmp.path("no_such_path.csv");
  try {
    gjk::analysis::read_path_file(missing, four_dof());
    FAIL() << "no error";
  } catch (const PathError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open path file '" + missing + "': No such file or directory");
  }
  try {
    gjk::analysis::read_path_file(tmp.path(""), four_dof());
    FAIL() << "no error";
  } catch (const PathError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a directory"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Analysis against the direct computation

TEST(ClearanceAnalysis, FourDofExamplePathMatchesDirectDistances) {
  const Path path = gjk::analysis::read_path_file(kExamplePath, four_dof());
  const Recorded run = analyse_all(four_dof(), pyramids(), path.states, threads(1));
  const Analysis& a = run.analysis;
  EXPECT_EQ(a.states, 21u);
  EXPECT_EQ(a.pairs, 21u * 8u * 2u);  // 8 collision shapes x 2 pyramids, no cutoff
  check_against_direct(four_dof(), pyramids(), path.states, run);

  // Per (link, obstacle) minima are the minima of the recomputed pairs.
  for (size_t link = 0; link < four_dof().links().size(); ++link) {
    for (size_t o = 0; o < 2; ++o) {
      double best = std::numeric_limits<double>::infinity();
      long best_state = -1;
      for (size_t i = 0; i < run.sink.pairs.size(); ++i) {
        for (const auto& p : run.sink.pairs[i]) {
          if (static_cast<size_t>(
                  four_dof().collision_shapes()[static_cast<size_t>(p.shape)].link) == link &&
              static_cast<size_t>(p.obstacle) == o && p.distance < best) {
            best = p.distance;
            best_state = static_cast<long>(i);
          }
        }
      }
      const gjk::analysis::Minimum& m = a.per_link_obstacle[link * 2 + o];
      EXPECT_EQ(m.found(), best_state >= 0);
      if (m.found()) {
        EXPECT_EQ(m.pair.distance, best);
        EXPECT_EQ(m.state, best_state);
        EXPECT_EQ(m.line, path.states[static_cast<size_t>(best_state)].line);
      }
    }
  }
}

TEST(ClearanceAnalysis, CutoffLeavesOutFarPairsOnly) {
  const Path path = gjk::analysis::read_path_file(kExamplePath, four_dof());
  const Recorded all = analyse_all(four_dof(), pyramids(), path.states, threads(1));
  const double cutoff = 0.5;
  const Recorded near = analyse_all(four_dof(), pyramids(), path.states, threads(2, cutoff));
  check_against_direct(four_dof(), pyramids(), path.states, near, cutoff);
  EXPECT_LT(near.analysis.pairs, all.analysis.pairs);
  EXPECT_GT(near.analysis.pairs, 0u);
  EXPECT_EQ(near.analysis.overall.state, all.analysis.overall.state);
  EXPECT_NEAR(near.analysis.overall.pair.distance, all.analysis.overall.pair.distance, 1e-12);
}

void expect_same_pair(const gjk::analysis::PairRecord& p, const gjk::analysis::PairRecord& q) {
  EXPECT_EQ(p.shape, q.shape);
  EXPECT_EQ(p.obstacle, q.obstacle);
  // Bit for bit: the same block boundaries give the same warm starts whatever the thread count
  // (the old per-thread chunks gave distances 1e-13 apart and other witness points where the
  // closest features are not unique).
  EXPECT_EQ(p.distance, q.distance);
  EXPECT_EQ(p.point_on_link, q.point_on_link);
  EXPECT_EQ(p.point_on_obstacle, q.point_on_obstacle);
  EXPECT_EQ(p.normal, q.normal);
  EXPECT_EQ(p.status, q.status);
}

void expect_same(const Recorded& x, const Recorded& y) {
  const Analysis &a = x.analysis, &b = y.analysis;
  EXPECT_EQ(a.states, b.states);
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_EQ(a.states_in_collision, b.states_in_collision);
  EXPECT_EQ(a.overall.state, b.overall.state);
  expect_same_pair(a.overall.pair, b.overall.pair);
  ASSERT_EQ(a.per_link_obstacle.size(), b.per_link_obstacle.size());
  for (size_t k = 0; k < a.per_link_obstacle.size(); ++k) {
    EXPECT_EQ(a.per_link_obstacle[k].state, b.per_link_obstacle[k].state) << k;
    expect_same_pair(a.per_link_obstacle[k].pair, b.per_link_obstacle[k].pair);
  }
  ASSERT_EQ(x.sink.pairs.size(), y.sink.pairs.size());
  for (size_t i = 0; i < x.sink.pairs.size(); ++i) {
    SCOPED_TRACE("state " + std::to_string(i));
    expect_same_pair(x.sink.states[i].worst, y.sink.states[i].worst);
    ASSERT_EQ(x.sink.pairs[i].size(), y.sink.pairs[i].size());
    for (size_t k = 0; k < x.sink.pairs[i].size(); ++k) {
      expect_same_pair(x.sink.pairs[i][k], y.sink.pairs[i][k]);
    }
  }
}

TEST(ClearanceAnalysis, ThreadCountDoesNotChangeResults) {
  // 150 states lowering the elbow into the low pyramid (some in collision), in blocks of 16 so
  // that several threads get work.
  std::vector<Eigen::VectorXd> qs =
      interpolate(deg({0, 90, -150, -30}), deg({0, 140, -150, -30}), 150);
  const Path path = read(csv_rows(qs), four_dof());
  ASSERT_EQ(path.states.size(), 150u);
  AnalysisOptions o = threads(1);
  o.block_size = 16;
  const Recorded one = analyse_all(four_dof(), pyramids(), path.states, o);
  check_against_direct(four_dof(), pyramids(), path.states, one);
  EXPECT_EQ(one.analysis.blocks, 10u);
  for (int n : {2, 3, 7, 400}) {
    SCOPED_TRACE("threads " + std::to_string(n));
    o.threads = n;
    const Recorded many = analyse_all(four_dof(), pyramids(), path.states, o);
    EXPECT_GE(many.analysis.threads, 1);
    EXPECT_LE(many.analysis.threads, std::min(n, 10));  // no more threads than blocks
    expect_same(one, many);
  }
}

TEST(ClearanceAnalysis, ShardsAtBlockBoundariesEqualTheWholeRun) {
  // The seam of a distributed run: a path cut at a block boundary, analysed in two runs with
  // first_index, gives the records of the whole run.
  std::vector<Eigen::VectorXd> qs =
      interpolate(deg({0, 90, -150, -30}), deg({0, 140, -150, -30}), 100);
  const Path path = read(csv_rows(qs), four_dof());
  AnalysisOptions o = threads(2);
  o.block_size = 32;
  const Recorded whole = analyse_all(four_dof(), pyramids(), path.states, o);
  const std::vector<PathState> first(path.states.begin(), path.states.begin() + 64),
      second(path.states.begin() + 64, path.states.end());
  const Recorded a = analyse_all(four_dof(), pyramids(), first, o);
  o.first_index = 64;
  const Recorded b = analyse_all(four_dof(), pyramids(), second, o);
  // The merged totals are the whole run's.
  Analysis merged;
  gjk::analysis::merge_shard(merged, a.analysis);
  gjk::analysis::merge_shard(merged, b.analysis);
  const Analysis& w = whole.analysis;
  EXPECT_EQ(merged.states, w.states);
  EXPECT_EQ(merged.pairs, w.pairs);
  EXPECT_EQ(merged.blocks, w.blocks);
  EXPECT_EQ(merged.states_in_collision, w.states_in_collision);
  EXPECT_EQ(merged.first_collision.state, w.first_collision.state);
  EXPECT_EQ(merged.overall.state, w.overall.state);
  expect_same_pair(merged.overall.pair, w.overall.pair);
  ASSERT_EQ(merged.per_link_obstacle.size(), w.per_link_obstacle.size());
  for (size_t k = 0; k < w.per_link_obstacle.size(); ++k) {
    EXPECT_EQ(merged.per_link_obstacle[k].state, w.per_link_obstacle[k].state);
    expect_same_pair(merged.per_link_obstacle[k].pair, w.per_link_obstacle[k].pair);
  }
  ASSERT_EQ(a.sink.states.size() + b.sink.states.size(), whole.sink.states.size());
  for (size_t i = 0; i < whole.sink.states.size(); ++i) {
    SCOPED_TRACE("state " + std::to_string(i));
    const Recorded& part = i < 64 ? a : b;
    const size_t k = i < 64 ? i : i - 64;
    EXPECT_EQ(part.sink.states[k].index, i);
    expect_same_pair(part.sink.states[k].worst, whole.sink.states[i].worst);
    ASSERT_EQ(part.sink.pairs[k].size(), whole.sink.pairs[i].size());
    for (size_t p = 0; p < whole.sink.pairs[i].size(); ++p) {
      expect_same_pair(part.sink.pairs[k][p], whole.sink.pairs[i][p]);
    }
  }
}

/// A source that counts how many states were taken from it, for the streaming test.
class CountingSource : public gjk::analysis::StateSource {
 public:
  CountingSource(const std::vector<PathState>& cycle, size_t total)
      : cycle_(cycle), total_(total) {}
  bool next(PathState& state) override {
    if (taken_ >= total_) return false;
    state = cycle_[taken_ % cycle_.size()];
    state.line = static_cast<long>(taken_ + 1);
    ++taken_;
    return true;
  }
  size_t taken() const { return taken_; }

 private:
  const std::vector<PathState>& cycle_;
  size_t total_, taken_ = 0;
};

/// Checks, at every state it receives, that the analysis has not read far ahead of it.
class LagCheckingSink : public gjk::analysis::AnalysisSink {
 public:
  explicit LagCheckingSink(const CountingSource& source) : source_(source) {}
  bool wants_pairs() const override { return true; }
  void on_state(const gjk::analysis::StateRecord& state) override {
    EXPECT_EQ(state.index, states_);
    ++states_;
    max_lag_ = std::max(max_lag_, source_.taken() - states_);
  }
  void on_pair(const gjk::analysis::StateRecord&, const gjk::analysis::PairRecord&) override {
    ++pairs_;
  }
  size_t states_ = 0, pairs_ = 0, max_lag_ = 0;

 private:
  const CountingSource& source_;
};

TEST(ClearanceAnalysis, ResultsStreamWithBoundedLookAhead) {
  // 20,000 states through 2 threads in blocks of 64: the sink sees every state in order while
  // at most a few blocks are in flight (memory does not grow with the path).
  const std::vector<Eigen::VectorXd> qs =
      interpolate(deg({0, 90, -150, -30}), deg({-20, 40, 20, -90}), 50);
  const Path path = read(csv_rows(qs), four_dof());
  CountingSource source(path.states, 20000);
  LagCheckingSink sink(source);
  AnalysisOptions o = threads(2);
  o.block_size = 64;
  const Analysis a = gjk::analysis::analyse(four_dof(), pyramids(), source, o, &sink);
  EXPECT_EQ(a.states, 20000u);
  EXPECT_EQ(sink.states_, 20000u);
  EXPECT_EQ(sink.pairs_, 20000u * 16u);
  EXPECT_LE(sink.max_lag_, 4u * 64u);  // 2 blocks per thread in flight at most
}

TEST(ClearanceAnalysis, ProgressReachesTheTotal) {
  const Path path = gjk::analysis::read_path_file(kExamplePath, four_dof());
  AnalysisOptions o = threads(2);
  size_t last_done = 0, calls = 0;
  double last_fraction = 0.0;
  o.progress = [&](const gjk::analysis::Progress& p) {
    EXPECT_GE(p.states_done, last_done);
    last_done = p.states_done;
    last_fraction = p.fraction;
    ++calls;
  };
  gjk::analysis::analyse(four_dof(), pyramids(), path.states, o);
  EXPECT_GE(calls, 1u);
  EXPECT_EQ(last_done, 21u);
  EXPECT_EQ(last_fraction, 1.0);
}

TEST(ClearanceAnalysis, EmptyPathGivesNoMinimum) {
  const Analysis a = gjk::analysis::analyse(four_dof(), pyramids(), {}, threads(4));
  EXPECT_EQ(a.states, 0u);
  EXPECT_FALSE(a.overall.found());
  EXPECT_EQ(a.pairs, 0u);
}

TEST(ClearanceAnalysis, MarginAndCollisionsAreCounted) {
  // The elbow sinks into pyramid_low (47 of the 150 states collide, 56 come closer than 5 cm).
  std::vector<Eigen::VectorXd> qs =
      interpolate(deg({0, 90, -150, -30}), deg({0, 140, -150, -30}), 150);
  const Path path = read(csv_rows(qs), four_dof());
  AnalysisOptions o = threads(2);
  o.block_size = 32;
  o.margin = 0.05;
  const Recorded run = analyse_all(four_dof(), pyramids(), path.states, o);
  size_t below = 0, colliding = 0;
  long first_below = -1, first_colliding = -1;
  for (const auto& s : run.sink.states) {
    if (s.worst.distance < 0.05 && below++ == 0) first_below = static_cast<long>(s.index);
    if (s.worst.distance < 0.0 && colliding++ == 0) first_colliding = static_cast<long>(s.index);
  }
  EXPECT_GT(colliding, 0u);
  EXPECT_GT(below, colliding);
  EXPECT_EQ(run.analysis.states_below_margin, below);
  EXPECT_EQ(run.analysis.states_in_collision, colliding);
  EXPECT_EQ(run.analysis.first_below_margin.state, first_below);
  EXPECT_EQ(run.analysis.first_collision.state, first_colliding);
  o.cutoff = 0.01;  // a margin beyond the cutoff could not be checked
  EXPECT_THROW(gjk::analysis::analyse(four_dof(), pyramids(), path.states, o),
               std::invalid_argument);
}

TEST(ClearanceAnalysis, ShapesAreNamedPerLink) {
  // The 4-DOF arm's links hold several shapes each: LINK#K counts within the link.
  const RobotModel& m = four_dof();
  std::map<int, int> seen;
  for (int s = 0; s < static_cast<int>(m.collision_shapes().size()); ++s) {
    const int link = m.collision_shapes()[static_cast<size_t>(s)].link;
    EXPECT_EQ(gjk::analysis::shape_label(m, s),
              m.links()[static_cast<size_t>(link)].name + "#" + std::to_string(seen[link]++));
  }
  EXPECT_EQ(gjk::analysis::shape_label(m, 0), "link1#0");
}

TEST(ClearanceAnalysis, PandaAmongBoxesMatchesDirectDistances) {
  // From the ready pose, joint 1 sweeps towards the side block and the hand goes down to the
  // shelf; fingers open.
  const Eigen::VectorXd ready =
      panda_q({0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4}, 0.0);
  const Eigen::VectorXd low = panda_q({0.9, 0.3, 0, -2.2, 0, 2.4, M_PI / 4}, 0.04);
  const std::vector<Eigen::VectorXd> qs = interpolate(ready, low, 40);
  std::string text = "panda_finger_joint1";  // header in a different order than the URDF
  for (int j = 1; j <= 7; ++j) text += ",panda_joint" + std::to_string(j);
  text += "\n";
  for (const Eigen::VectorXd& q : qs) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", q[7]);
    text += buffer;
    for (int k = 0; k < 7; ++k) {
      std::snprintf(buffer, sizeof buffer, ",%.17g", q[k]);
      text += buffer;
    }
    text += "\n";
  }
  const Path path = read(text, panda());
  ASSERT_TRUE(path.errors.empty()) << path.error_text(0);
  ASSERT_EQ(path.states.size(), 40u);
  EXPECT_EQ(path.states[39].q, qs[39]);
  AnalysisOptions o = threads(1);
  o.block_size = 8;
  const Recorded one = analyse_all(panda(), panda_boxes(), path.states, o);
  EXPECT_EQ(one.analysis.pairs, 40u * panda().collision_shapes().size() * 4u);
  check_against_direct(panda(), panda_boxes(), path.states, one);
  ASSERT_TRUE(one.analysis.overall.found());
  const std::string& nearest =
      panda_boxes().obstacles[static_cast<size_t>(one.analysis.overall.pair.obstacle)].name;
  EXPECT_TRUE(nearest == "shelf" || nearest == "side_block" || nearest == "table") << nearest;
  o.threads = 2;
  expect_same(one, analyse_all(panda(), panda_boxes(), path.states, o));
  o.threads = 3;
  expect_same(one, analyse_all(panda(), panda_boxes(), path.states, o));
}

/// Collects the states only: the analysis then measures only the pairs that can matter.
class StatesOnlySink : public gjk::analysis::CollectingSink {
 public:
  bool wants_pairs() const override { return false; }
};

/// A smooth sweep of the Panda's joints (sines of different periods within the limits), fingers
/// half open: through the boxes' region, in and out of contact.
std::vector<PathState> panda_sweep(size_t count) {
  const Eigen::VectorXd lo = panda().lower_limits(), hi = panda().upper_limits();
  std::vector<PathState> states(count);
  for (size_t i = 0; i < count; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(count);
    Eigen::VectorXd q(8);
    for (Eigen::Index j = 0; j < 7; ++j) {
      const double mid = 0.5 * (lo[j] + hi[j]), half = 0.5 * (hi[j] - lo[j]);
      q[j] = mid + 0.8 * half *
                       std::sin(2.0 * M_PI * (1.0 + 0.37 * static_cast<double>(j)) * t +
                                static_cast<double>(j));
    }
    q[7] = 0.02;
    states[i].line = static_cast<long>(i) + 1;
    states[i].q = q;
  }
  return states;
}

void expect_close_pair(const gjk::analysis::PairRecord& p, const gjk::analysis::PairRecord& q) {
  EXPECT_EQ(p.shape, q.shape);
  if (p.shape < 0 || q.shape < 0) return;  // no pair (a link without shapes, an allowed pair)
  EXPECT_EQ(p.obstacle, q.obstacle);
  // Exact answers both; the warm starts differ (a bounded pair's cache is older), so rounding
  // and, where the closest features are not unique, the witness points may differ slightly.
  EXPECT_NEAR(p.distance, q.distance, 1e-12);
  EXPECT_LE((p.point_on_link - q.point_on_link).norm(), 1e-9);
  EXPECT_LE((p.point_on_obstacle - q.point_on_obstacle).norm(), 1e-9);
  EXPECT_EQ(p.status, q.status);
}

TEST(ClearanceAnalysis, WithoutPairOutputBoundedPairsGiveTheSameRecords) {
  // Issue 18 item 4: without pair output, a pair is measured only when its bounds (last exact
  // distance -/+ its shape's motion since) leave open that it is the state's closest pair or
  // lowers its (link, obstacle) minimum. Every record must be what measuring every pair gives.
  const std::vector<PathState> states = panda_sweep(3000);
  for (const double cutoff : {std::numeric_limits<double>::infinity(), 0.15}) {
    SCOPED_TRACE("cutoff " + std::to_string(cutoff));
    AnalysisOptions o = threads(2, cutoff);
    o.margin = 0.02;
    const Recorded all = analyse_all(panda(), panda_boxes(), states, o);
    StatesOnlySink only;
    const Analysis bounded = gjk::analysis::analyse(panda(), panda_boxes(), states, o, &only);
    const Analysis &a = all.analysis, &b = bounded;
    EXPECT_GE(a.pairs_measured, a.pairs);  // every pair measured for the output
    EXPECT_EQ(a.states, b.states);
    EXPECT_EQ(a.pairs, b.pairs);
    EXPECT_GT(a.states_in_collision, 0u);  // the sweep does hit the boxes
    EXPECT_EQ(a.states_in_collision, b.states_in_collision);
    EXPECT_EQ(a.states_below_margin, b.states_below_margin);
    EXPECT_EQ(a.first_collision.state, b.first_collision.state);
    EXPECT_EQ(a.first_below_margin.state, b.first_below_margin.state);
    EXPECT_EQ(a.overall.state, b.overall.state);
    expect_close_pair(a.overall.pair, b.overall.pair);
    ASSERT_EQ(a.per_link_obstacle.size(), b.per_link_obstacle.size());
    for (size_t k = 0; k < a.per_link_obstacle.size(); ++k) {
      SCOPED_TRACE("link-obstacle " + std::to_string(k));
      EXPECT_EQ(a.per_link_obstacle[k].state, b.per_link_obstacle[k].state);
      expect_close_pair(a.per_link_obstacle[k].pair, b.per_link_obstacle[k].pair);
    }
    ASSERT_EQ(all.sink.states.size(), only.states.size());
    for (size_t i = 0; i < only.states.size(); ++i) {
      SCOPED_TRACE("state " + std::to_string(i));
      EXPECT_EQ(all.sink.states[i].pairs, only.states[i].pairs);
      EXPECT_EQ(all.sink.states[i].has_worst(), only.states[i].has_worst());
      if (all.sink.states[i].has_worst() && only.states[i].has_worst())
        expect_close_pair(all.sink.states[i].worst, only.states[i].worst);
      EXPECT_TRUE(only.pairs[i].empty());
    }
    // The point of it: many pairs are bounded, not measured (near pairs, within a cutoff, less so).
    EXPECT_LT(b.pairs_measured,
              std::isfinite(cutoff) ? a.pairs_measured * 9 / 10 : a.pairs_measured * 3 / 4);
    std::printf("cutoff %g: %zu of %zu pairs measured\n", cutoff, b.pairs_measured,
                a.pairs_measured);
  }
}

TEST(ClearancePath, FixedJointsSupplyMissingColumns) {
  // A 7-column arm path (as gjk-plan writes) with the fingers held by a fixed joint.
  std::string text =
      "panda_joint1,panda_joint2,panda_joint3,panda_joint4,panda_joint5,"
      "panda_joint6,panda_joint7\n0,-0.785,0,-2.356,0,1.571,0.785\n";
  gjk::analysis::PathOptions o;
  o.fixed = {{"panda_finger_joint1", 0.02}};
  EXPECT_THROW(read(text, panda(), "p.csv"), PathError);  // without it: the finger is missing
  const Path fixed = [&] {
    std::istringstream in(text);
    return gjk::analysis::read_path(in, "p.csv", panda(), o);
  }();
  ASSERT_EQ(fixed.states.size(), 1u);
  EXPECT_EQ(fixed.states[0].q[7], 0.02);
  EXPECT_EQ(fixed.states[0].q[3], -2.356);
  // Headerless: the remaining joints in model order.
  std::istringstream in("0,-0.785,0,-2.356,0,1.571,0.785\n");
  const Path headerless = gjk::analysis::read_path(in, "p.csv", panda(), o);
  ASSERT_EQ(headerless.states.size(), 1u);
  EXPECT_EQ(headerless.states[0].q[7], 0.02);
  // A fixed joint that has a column, an unknown one, one outside its limits.
  o.fixed = {{"panda_joint1", 0.0}};
  EXPECT_THROW(
      {
        std::istringstream again(text);
        gjk::analysis::read_path(again, "p.csv", panda(), o);
      },
      PathError);
  EXPECT_THROW(gjk::analysis::check_fixed_joints(panda(), {{"finger", 0.0}}), PathError);
  EXPECT_THROW(gjk::analysis::check_fixed_joints(panda(), {{"panda_finger_joint1", 0.5}}),
               PathError);
  EXPECT_EQ(gjk::analysis::parse_fixed_joint("panda_finger_joint1=0.04").value, 0.04);
  EXPECT_THROW(gjk::analysis::parse_fixed_joint("panda_finger_joint1"), PathError);
  EXPECT_THROW(gjk::analysis::parse_fixed_joint("a=nan"), PathError);
}

TEST(ClearancePath, LongFieldsAreShortenedInMessages) {
  const std::string huge(1000000, 'x');
  const Path path = read("0.1," + huge + ",0.3,0.4\n", four_dof());
  ASSERT_EQ(path.errors.size(), 1u);
  EXPECT_LT(path.errors[0].message.size(), 200u);
  EXPECT_NE(path.errors[0].message.find("... (1000000 bytes)"), std::string::npos);
  EXPECT_EQ(gjk::analysis::shorten("short"), "short");
  // A cut never splits a UTF-8 character.
  const std::string e_acute = "\xC3\xA9";
  std::string text;
  for (int i = 0; i < 60; ++i) text += e_acute;
  const std::string cut = gjk::analysis::shorten(text, 81);
  EXPECT_EQ(cut.substr(0, 80), text.substr(0, 80));
  EXPECT_EQ(cut.substr(80, 4), "... ");
}

// ---------------------------------------------------------------------------------------------
// The executable

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

/// Runs gjk-clearance with `args`; stdout and stderr go through files (no pipe deadlock).
RunResult run_tool(const TempDir& tmp, const std::vector<std::string>& args) {
  const std::string out_path = tmp.path("stdout.txt"), err_path = tmp.path("stderr.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> argv_strings = {kExe};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, kExe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  RunResult r;
  if (rc != 0) {
    ADD_FAILURE() << "cannot spawn " << kExe;
    return r;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST(ClearanceTool, ExamplePathCsvAndJsonSummary) {
  TempDir tmp;
  const std::string csv = tmp.path("pairs.csv");
  const RunResult r =
      run_tool(tmp, {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", kExamplePath, "--out",
                     csv, "--threads", "2", "--json", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const json s = json::parse(r.out);
  EXPECT_EQ(s.at("robot"), "four_dof_arm");
  EXPECT_EQ(s.at("states"), 21);
  EXPECT_EQ(s.at("bad_rows"), 0);
  EXPECT_EQ(s.at("pairs"), 21 * 16);
  EXPECT_EQ(s.at("threads"), 2);
  EXPECT_GT(s.at("states_per_second").get<double>(), 0.0);
  EXPECT_EQ(s.at("thread_seconds").size(), 2u);

  // The same analysis in-process: the summary's minimum and the CSV rows agree with it.
  const Path path = gjk::analysis::read_path_file(kExamplePath, four_dof());
  const Recorded run = analyse_all(four_dof(), pyramids(), path.states, threads(1));
  const Analysis& a = run.analysis;
  const json& m = s.at("minimum");
  EXPECT_NEAR(m.at("distance").get<double>(), a.overall.pair.distance, 1e-12);
  EXPECT_EQ(m.at("state"), a.overall.state);
  EXPECT_EQ(m.at("line"), path.states[static_cast<size_t>(a.overall.state)].line);
  EXPECT_EQ(m.at("obstacle"),
            pyramids().obstacles[static_cast<size_t>(a.overall.pair.obstacle)].name);
  EXPECT_EQ(m.at("point_on_link").size(), 3u);
  EXPECT_EQ(s.at("states_in_collision"), a.states_in_collision);

  const std::vector<std::string> rows = lines_of(read_text(csv));
  ASSERT_EQ(rows.size(), 1u + 21u * 16u);
  EXPECT_EQ(rows[0],
            "state,line,t,link,shape,obstacle,distance,link_x,link_y,link_z,obstacle_x,obstacle_y,"
            "obstacle_z,normal_x,normal_y,normal_z,status");
  // Row 1: state 0 (line 4, t = 0), first shape (joint housing of link1) vs pyramid_low.
  EXPECT_EQ(rows[1].rfind("0,4,0,link1,link1#0,pyramid_low,", 0), 0u) << rows[1];
  EXPECT_NE(rows[1].find(",pyramid_low,"), std::string::npos) << rows[1];
  EXPECT_EQ(rows[1].substr(rows[1].size() - 10), ",converged");
  // Every CSV distance is the in-process one, printed round-trippably.
  for (size_t k = 1; k < rows.size(); ++k) {
    std::vector<std::string> f;
    std::istringstream fields(rows[k]);
    std::string x;
    while (std::getline(fields, x, ',')) f.push_back(x);
    ASSERT_EQ(f.size(), 17u) << rows[k];
    const size_t state = std::stoul(f[0]), pair = (k - 1) % 16;
    EXPECT_EQ(f[6], gjk::analysis::format_number(run.sink.pairs[state][pair].distance)) << rows[k];
  }
}

TEST(ClearanceTool, TextSummaryWithoutOut) {
  TempDir tmp;
  const RunResult r = run_tool(tmp, {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path",
                                     kExamplePath, "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // stderr is a file: no progress bar by default
  for (const char* text :
       {"21 states analysed, 0 bad rows skipped", "minimum clearance: ", "point on link:",
        "point on obstacle:", "colliding states (distance < 0): ", "minimum per (link, obstacle):",
        "link4 / pyramid_low: ", "states/s (1 thread)"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << " not in\n" << r.out;
  }
}

TEST(ClearanceTool, BadRowsExitThreeAndTheRestIsAnalysed) {
  TempDir tmp;
  const std::string path = tmp.write("bad.csv",
                                     "0.1,0.2,0.3,0.4\n"
                                     "0.1,abc,0.3,0.4\n"
                                     "0.1,0.2,NaN,0.4\n"
                                     "0.1,0.2,0.3\n"
                                     "0.1,0.2,0.3,-3.5\n"
                                     "0.2,0.2,0.3,0.4\n");
  const RunResult r = run_tool(
      tmp, {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", path, "--json", "--progress"});
  EXPECT_EQ(r.exit_code, 3);  // an input error, after the rest was analysed
  const std::vector<std::string> err = lines_of(r.err);
  ASSERT_GE(err.size(), 4u) << r.err;
  EXPECT_EQ(err[0], path + ":2: column 2 (joint2): expected a number, got 'abc'");
  EXPECT_EQ(err[1], path + ":3: column 3 (joint3): value 'NaN' is not finite");
  EXPECT_EQ(err[2], path + ":4: expected 4 values (joint1, joint2, joint3, joint4), got 3");
  EXPECT_EQ(err[3], path +
                        ":5: column 4 (joint4): -3.5 is outside the joint limits "
                        "[-3.141592653589793, 3.141592653589793]");
  EXPECT_NE(r.err.find("100% 2 states"), std::string::npos) << r.err;  // --progress forced on
  EXPECT_NE(r.err.find("4 bad rows in " + path + " left out"), std::string::npos) << r.err;
  const json s = json::parse(r.out);
  EXPECT_EQ(s.at("states"), 2);
  EXPECT_EQ(s.at("bad_rows"), 4);
  EXPECT_EQ(s.at("minimum").is_object(), true);
}

TEST(ClearanceTool, FileErrorsExitThreeOrFourNamingTheFile) {
  TempDir tmp;
  const std::string missing = tmp.path("missing");
  struct Case {
    std::vector<std::string> args;
    std::string expected;
    int exit_code = 3;  // input error
  };
  const std::vector<Case> cases = {
      {{"--urdf", missing + ".urdf", "--scene", kPyramids, "--path", kExamplePath},
       missing + ".urdf"},
      {{"--urdf", kFourDofUrdf, "--scene", missing + ".yaml", "--path", kExamplePath},
       missing + ".yaml"},
      {{"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", missing + ".csv"},
       "cannot open path file '" + missing + ".csv': No such file or directory"},
      {{"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", kExamplePath, "--out",
        missing + "/dir/out.csv"},
       "cannot write output file '" + missing + "/dir/out.csv': No such file or directory",
       4},
      {{"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path",
        tmp.write("h.csv", "joint1,joint2,joint3,wrist\n0,0,0,0\n")},
       "h.csv:1: column 4: unknown joint name 'wrist'"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_tool(tmp, c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.expected;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.expected << " not in " << r.err;
    EXPECT_EQ(r.err.rfind("gjk-clearance: ", 0), 0u) << r.err;
  }
}

TEST(ClearanceTool, UsageErrorsExitTwo) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases = {
      {"--urdf", kFourDofUrdf, "--scene", kPyramids},  // no --path
      {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", kExamplePath, "--threads", "0"},
      {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", kExamplePath, "--cutoff", "x"},
      {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", kExamplePath, "--html",
       tmp.path("r.html"), "--html-max-frames", "-1"},
      {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", kExamplePath, "--html",
       tmp.path("r.html"), "--html-max-frames", "ten"},
      {"--no-such-option"},
  };
  for (const auto& args : cases) {
    const RunResult r = run_tool(tmp, args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err, "");
  }
  const RunResult help = run_tool(tmp, {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* text :
       {"--urdf", "--package-dir", "--scene", "--path", "--out", "--threads", "--cutoff",
        "--progress", "--no-progress", "--json", "OMPL", "--html-max-frames", "EXIT STATUS"}) {
    EXPECT_NE(help.out.find(text), std::string::npos) << text;
  }
}

TEST(ClearanceTool, PackageDirResolvesPackageUris) {
  // The 4-DOF arm with its meshes as package://four_dof/meshes/..., the URDF in a temp folder:
  // the meshes are found only through --package-dir (robots/models holds the package).
  TempDir tmp;
  std::string urdf = read_text(kFourDofUrdf);
  const std::string from = "filename=\"meshes/", to = "filename=\"package://four_dof/meshes/";
  for (size_t at = urdf.find(from); at != std::string::npos; at = urdf.find(from, at)) {
    urdf.replace(at, from.size(), to);
    at += to.size();
  }
  const std::string moved = tmp.write("arm.urdf", urdf);
  const std::vector<std::string> args = {"--urdf", moved,        "--scene", kPyramids,
                                         "--path", kExamplePath, "--json"};
  const RunResult without = run_tool(tmp, args);
  EXPECT_EQ(without.exit_code, 3);
  EXPECT_NE(without.err.find("four_dof/meshes"), std::string::npos) << without.err;
  std::vector<std::string> with = args;
  with.insert(with.end(),
              {"--package-dir", tmp.path("nothing_here"), "--package-dir", GJK_ROBOT_MODELS_DIR});
  const RunResult r = run_tool(tmp, with);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("states"), 21);
}

TEST(ClearanceTool, PandaWithCutoff) {
  TempDir tmp;
  const Eigen::VectorXd ready =
      panda_q({0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4}, 0.0);
  const Eigen::VectorXd low = panda_q({0.9, 0.3, 0, -2.2, 0, 2.4, M_PI / 4}, 0.04);
  const std::vector<Eigen::VectorXd> qs = interpolate(ready, low, 30);
  const std::string path = tmp.write("panda.txt", csv_rows(qs, " "));  // OMPL matrix form
  const std::string csv = tmp.path("pairs.csv");
  const RunResult r = run_tool(tmp, {"--urdf", kPandaUrdf, "--scene", kPandaBoxes, "--path", path,
                                     "--out", csv, "--cutoff", "0.05", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = json::parse(r.out);
  EXPECT_EQ(s.at("states"), 30);
  const std::vector<std::string> rows = lines_of(read_text(csv));
  EXPECT_EQ(rows.size(), 1u + s.at("pairs").get<size_t>());
  EXPECT_EQ(rows[0].rfind("state,line,link,", 0), 0u);  // no time column
  const Path p = read(csv_rows(qs), panda());
  const Recorded a = analyse_all(panda(), panda_boxes(), p.states, threads(1, 0.05));
  EXPECT_EQ(s.at("pairs"), a.analysis.pairs);
  check_against_direct(panda(), panda_boxes(), p.states, a, 0.05);
}

}  // namespace
