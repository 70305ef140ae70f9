// End-to-end tests of the gjk-query tool: the built binary is run with input files from
// tests/libgjk/data/ and through standard input, and the numbers parsed from its JSON output
// are compared with analytic values.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

using json = nlohmann::json;

const std::string kExe = GJK_QUERY_EXE;
const std::string kData = GJK_TEST_DATA_DIR;
constexpr double kTol = 1e-12;
constexpr int kTimeoutMs = 60000;

// ---------------------------------------------------------------------------------------------
// Running the tool

/// The tool as a child process with pipes on its standard streams.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    ::signal(SIGPIPE, SIG_IGN);  // a child that exits early must not kill the test by EPIPE
    int in[2], out[2], err[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) {
      throw std::runtime_error("pipe failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
      posix_spawn_file_actions_addclose(&actions, fd);
    }
    std::vector<std::string> argv_strings = {kExe};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, kExe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    in_fd = in[1];
    out_fd = out[0];
    err_fd = err[0];
    if (rc != 0) {
      pid_ = -1;
      throw std::runtime_error("cannot spawn " + kExe + ": " + std::strerror(rc));
    }
    ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) | O_NONBLOCK);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    close_fd(in_fd);
    close_fd(out_fd);
    close_fd(err_fd);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);  // only reached when a test gave up on the child
      ::waitpid(pid_, nullptr, 0);
    }
  }

  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  /// Waits for the child; returns its exit code (128 + signal when killed by a signal).
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }

  int in_fd = -1, out_fd = -1, err_fd = -1;

 private:
  pid_t pid_ = -1;
};

struct RunResult {
  int exit_code = -1;
  std::string out, err;
  std::vector<json> lines;  ///< stdout parsed line by line
};

/// Runs gjk-query with `args`, feeding `input` to its standard input; `json_output`: parse
/// its standard output as JSON lines.
RunResult run_tool(const std::vector<std::string>& args, const std::string& input = "",
                   bool json_output = true) {
  Child child(args);
  RunResult r;
  size_t written = 0;
  if (input.empty()) Child::close_fd(child.in_fd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
  while (child.out_fd >= 0 || child.err_fd >= 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "gjk-query timed out";
      return r;
    }
    pollfd fds[3] = {
        {child.in_fd, POLLOUT, 0}, {child.out_fd, POLLIN, 0}, {child.err_fd, POLLIN, 0}};
    if (::poll(fds, 3, 1000) < 0 && errno != EINTR) break;
    if (child.in_fd >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = ::write(child.in_fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // EPIPE: stop
      if (written == input.size()) Child::close_fd(child.in_fd);
    }
    char buffer[65536];
    for (int k = 1; k <= 2; ++k) {
      int& fd = k == 1 ? child.out_fd : child.err_fd;
      if (fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) {
        (k == 1 ? r.out : r.err).append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        Child::close_fd(fd);
      }
    }
  }
  Child::close_fd(child.in_fd);
  r.exit_code = child.wait();
  if (!json_output) return r;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    try {
      r.lines.push_back(json::parse(line));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "output line is not JSON: " << line << " (" << e.what() << ")";
      r.lines.push_back(json());
    }
  }
  return r;
}

std::string data_file(const std::string& name) {
  return kData + "/" + name;
}

// ---------------------------------------------------------------------------------------------
// Reading answers

Eigen::Vector3d vec(const json& j, const char* key) {
  const json& v = j.at(key);
  EXPECT_TRUE(v.is_array() && v.size() == 3) << key << " in " << j.dump();
  return {v.at(0).get<double>(), v.at(1).get<double>(), v.at(2).get<double>()};
}

double num(const json& j, const char* key) {
  EXPECT_TRUE(j.contains(key) && j.at(key).is_number()) << key << " in " << j.dump();
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : std::nan("");
}

#define EXPECT_VEC_NEAR(actual, expected, tol)                                    \
  do {                                                                            \
    const Eigen::Vector3d a_ = (actual), e_ = (expected);                         \
    EXPECT_LE((a_ - e_).cwiseAbs().maxCoeff(), (tol))                             \
        << #actual << " = " << a_.transpose() << ", expected " << e_.transpose(); \
  } while (0)

/// The invariants every answer satisfies, whatever the pair.
void check_consistent(const json& j) {
  SCOPED_TRACE(j.dump());
  ASSERT_FALSE(j.contains("error"));
  for (const char* key : {"collision", "distance", "point_on_a", "point_on_b", "normal", "depth",
                          "status", "signed_distance", "lower_bound", "upper_bound", "iterations",
                          "feature_on_a", "feature_on_b", "line"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j.at("status"), "converged");
  const double distance = num(j, "distance"), depth = num(j, "depth");
  const Eigen::Vector3d pa = vec(j, "point_on_a"), pb = vec(j, "point_on_b"), n = vec(j, "normal");
  EXPECT_NEAR(n.norm(), 1.0, 1e-12);
  EXPECT_NEAR(num(j, "signed_distance"), distance - depth, kTol);
  if (j.at("collision").get<bool>()) {
    EXPECT_EQ(distance, 0.0);
    EXPECT_GE(depth, 0.0);
    EXPECT_VEC_NEAR(pa - pb, depth * n, 1e-12);  // point_on_a - point_on_b == depth * normal
  } else {
    EXPECT_GT(distance, 0.0);
    EXPECT_EQ(depth, 0.0);
    EXPECT_VEC_NEAR(pb - pa, distance * n, 1e-12);
    EXPECT_NEAR((pb - pa).norm(), distance, 1e-12);
    EXPECT_LE(num(j, "lower_bound"), distance + kTol);
    EXPECT_GE(num(j, "upper_bound"), distance - kTol);
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-written rotations, independent of the library: seed 000 eq. 38 is R = Rx * Ry * Rz.

Eigen::Matrix3d rx(double t) {
  Eigen::Matrix3d m;
  m << 1, 0, 0, 0, std::cos(t), -std::sin(t), 0, std::sin(t), std::cos(t);
  return m;
}
Eigen::Matrix3d ry(double t) {
  Eigen::Matrix3d m;
  m << std::cos(t), 0, std::sin(t), 0, 1, 0, -std::sin(t), 0, std::cos(t);
  return m;
}
Eigen::Matrix3d rz(double t) {
  Eigen::Matrix3d m;
  m << std::cos(t), -std::sin(t), 0, std::sin(t), std::cos(t), 0, 0, 0, 1;
  return m;
}

/// Hamilton product of quaternions [w, x, y, z].
std::array<double, 4> qmul(const std::array<double, 4>& p, const std::array<double, 4>& q) {
  return {p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
          p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
          p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
          p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0]};
}

json points_json(const std::vector<Eigen::Vector3d>& points) {
  json a = json::array();
  for (const auto& p : points) a.push_back({p.x(), p.y(), p.z()});
  return a;
}

const json kUnitSphere = {{"type", "sphere"}, {"radius", 1}};

/// A pair of unit spheres 3 apart (distance 1), as one input line.
std::string good_line() {
  return json{{"a", kUnitSphere},
              {"b", {{"type", "sphere"}, {"radius", 1}, {"position", {3, 0, 0}}}}}
      .dump();
}

void expect_good_line(const json& j, long line) {
  SCOPED_TRACE(j.dump());
  EXPECT_EQ(j.value("line", -1L), line);
  ASSERT_FALSE(j.contains("error"));
  EXPECT_FALSE(j.at("collision").get<bool>());
  EXPECT_NEAR(num(j, "distance"), 1.0, kTol);
}

// ---------------------------------------------------------------------------------------------
// Good input: data/good_pairs.jsonl

class GoodPairs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    result_ = new RunResult(run_tool({data_file("good_pairs.jsonl")}));
  }
  static void TearDownTestSuite() {
    delete result_;
    result_ = nullptr;
  }
  /// The answer to the line whose "id" is `id`.
  static const json& answer(const std::string& id) {
    for (const json& j : result_->lines) {
      if (j.value("id", "") == id) return j;
    }
    static const json none = json::object();
    ADD_FAILURE() << "no answer with id " << id;
    return none;
  }
  static RunResult* result_;
};
RunResult* GoodPairs::result_ = nullptr;

TEST_F(GoodPairs, EveryLineAnsweredInOrderWithExitZero) {
  EXPECT_EQ(result_->exit_code, 0) << result_->err;
  EXPECT_EQ(result_->err, "");
  ASSERT_EQ(result_->lines.size(), 12u);
  for (size_t i = 0; i < result_->lines.size(); ++i) {
    EXPECT_EQ(result_->lines[i].value("line", -1L), static_cast<long>(i + 1));
    check_consistent(result_->lines[i]);
  }
}

TEST_F(GoodPairs, CubesThreeApartFaceToFace) {
  // [-1,1]^3 and the same cube at (3,0,0): faces x = 1 and x = 2, distance exactly 1.
  const json& j = answer("cubes_face");
  EXPECT_FALSE(j.at("collision").get<bool>());
  EXPECT_DOUBLE_EQ(num(j, "distance"), 1.0);
  EXPECT_EQ(num(j, "depth"), 0.0);
  EXPECT_VEC_NEAR(vec(j, "normal"), Eigen::Vector3d(1, 0, 0), kTol);
  const Eigen::Vector3d pa = vec(j, "point_on_a"), pb = vec(j, "point_on_b");
  EXPECT_DOUBLE_EQ(pa.x(), 1.0);
  EXPECT_DOUBLE_EQ(pb.x(), 2.0);
  // The witnesses are not unique (face against face): any pair facing each other on both faces.
  EXPECT_NEAR(pa.y(), pb.y(), kTol);
  EXPECT_NEAR(pa.z(), pb.z(), kTol);
  EXPECT_LE(pa.tail<2>().cwiseAbs().maxCoeff(), 1.0 + kTol);
}

TEST_F(GoodPairs, CubesVertexToVertexWithFullPrecision) {
  const json& j = answer("cubes_vertex");
  EXPECT_EQ(num(j, "distance"), std::sqrt(3.0));  // printed round-trippably: bit-exact
  EXPECT_VEC_NEAR(vec(j, "point_on_a"), Eigen::Vector3d(1, 1, 1), kTol);
  EXPECT_VEC_NEAR(vec(j, "point_on_b"), Eigen::Vector3d(2, 2, 2), kTol);
  EXPECT_VEC_NEAR(vec(j, "normal"), Eigen::Vector3d::Constant(1.0 / std::sqrt(3.0)), kTol);
  EXPECT_EQ(j.at("feature_on_a"), "vertex");
  EXPECT_EQ(j.at("feature_on_b"), "vertex");
}

TEST_F(GoodPairs, OverlappingBoxesDepthAndNormal) {
  // Half extents 1, B at (1.5, 0.2, 0.1): the overlap is thinnest along x (0.5).
  const json& j = answer("boxes_overlap");
  EXPECT_TRUE(j.at("collision").get<bool>());
  EXPECT_EQ(num(j, "distance"), 0.0);
  EXPECT_NEAR(num(j, "depth"), 0.5, kTol);
  EXPECT_NEAR(num(j, "signed_distance"), -0.5, kTol);
  EXPECT_VEC_NEAR(vec(j, "normal"), Eigen::Vector3d(1, 0, 0), kTol);
  EXPECT_NEAR(vec(j, "point_on_a").x(), 1.0, kTol);  // A's face x = 1, inside B
  EXPECT_NEAR(vec(j, "point_on_b").x(), 0.5, kTol);  // B's face x = 0.5, inside A
  EXPECT_VEC_NEAR(vec(j, "point_on_a") - vec(j, "point_on_b"), Eigen::Vector3d(0.5, 0, 0), kTol);
}

TEST_F(GoodPairs, RotationXyzAboutZBy45Degrees) {
  // Unit cube B at (2,0,0) turned 45 deg about z: its vertical edge at x = 2 - sqrt(2)/2 faces
  // A's face x = 0.5.
  const json& j = answer("box_rot45_xyz");
  const double edge_x = 2.0 - std::sqrt(0.5);
  EXPECT_NEAR(num(j, "distance"), edge_x - 0.5, kTol);
  const Eigen::Vector3d pa = vec(j, "point_on_a"), pb = vec(j, "point_on_b");
  EXPECT_NEAR(pa.x(), 0.5, kTol);
  EXPECT_NEAR(pb.x(), edge_x, kTol);
  EXPECT_NEAR(pa.y(), 0.0, kTol);
  EXPECT_NEAR(pb.y(), 0.0, kTol);
  EXPECT_NEAR(pa.z(), pb.z(), kTol);
  EXPECT_LE(std::abs(pa.z()), 0.5 + kTol);
  EXPECT_VEC_NEAR(vec(j, "normal"), Eigen::Vector3d(1, 0, 0), kTol);
}

TEST_F(GoodPairs, QuaternionEqualsSameRotationXyz) {
  // [cos(pi/8), 0, 0, sin(pi/8)] (w first) is the 45 deg turn about z of the previous line.
  const json& q = answer("box_rot45_quat");
  const json& e = answer("box_rot45_xyz");
  EXPECT_NEAR(num(q, "distance"), num(e, "distance"), kTol);
  EXPECT_VEC_NEAR(vec(q, "point_on_a"), vec(e, "point_on_a"), 1e-12);
  EXPECT_VEC_NEAR(vec(q, "point_on_b"), vec(e, "point_on_b"), 1e-12);
  EXPECT_VEC_NEAR(vec(q, "normal"), vec(e, "normal"), 1e-12);
}

TEST_F(GoodPairs, RotationXyzAppliesEq38Order) {
  // Rod of half extents (1, 0.1, 0.1) at (0,0,3) with angles (pi/2, 0, pi/2): with
  // R = Rx * Ry * Rz the rod's x axis goes to z and its end is at z = 2 (distance 1.5 to A's
  // top face z = 0.5). The reversed order Rz * Rx would lay it along y (distance 2.4).
  const json& j = answer("rod_eq38");
  EXPECT_NEAR(num(j, "distance"), 1.5, kTol);
  EXPECT_VEC_NEAR(vec(j, "normal"), Eigen::Vector3d(0, 0, 1), kTol);
  EXPECT_NEAR(vec(j, "point_on_a").z(), 0.5, kTol);
  EXPECT_NEAR(vec(j, "point_on_b").z(), 2.0, kTol);
  EXPECT_LE(vec(j, "point_on_b").head<2>().cwiseAbs().maxCoeff(), 0.1 + kTol);
}

TEST_F(GoodPairs, SpheresApartAndOverlapping) {
  const json& apart = answer("sphere_sphere");  // r 1 at 0, r 0.5 at (3,4,0)
  EXPECT_NEAR(num(apart, "distance"), 3.5, kTol);
  EXPECT_VEC_NEAR(vec(apart, "normal"), Eigen::Vector3d(0.6, 0.8, 0), kTol);
  EXPECT_VEC_NEAR(vec(apart, "point_on_a"), Eigen::Vector3d(0.6, 0.8, 0), kTol);
  EXPECT_VEC_NEAR(vec(apart, "point_on_b"), Eigen::Vector3d(2.7, 3.6, 0), kTol);
  EXPECT_EQ(apart.at("feature_on_a"), "curved");

  const json& overlap = answer("spheres_overlap");  // r 1 at 0 and at (1.5,0,0)
  EXPECT_TRUE(overlap.at("collision").get<bool>());
  EXPECT_NEAR(num(overlap, "depth"), 0.5, kTol);
  EXPECT_VEC_NEAR(vec(overlap, "normal"), Eigen::Vector3d(1, 0, 0), kTol);
  EXPECT_VEC_NEAR(vec(overlap, "point_on_a"), Eigen::Vector3d(1, 0, 0), kTol);
  EXPECT_VEC_NEAR(vec(overlap, "point_on_b"), Eigen::Vector3d(0.5, 0, 0), kTol);
}

TEST_F(GoodPairs, RotatedCapsule) {
  // Capsule axis z turned by Rx(pi/2) onto -y: segment y in [-1, 1], radius 0.5; sphere r 0.5
  // at (0,3,0). Unrotated the distance would be 2.
  const json& j = answer("capsule_rotated");
  EXPECT_NEAR(num(j, "distance"), 1.0, kTol);
  EXPECT_VEC_NEAR(vec(j, "point_on_a"), Eigen::Vector3d(0, 1.5, 0), kTol);
  EXPECT_VEC_NEAR(vec(j, "point_on_b"), Eigen::Vector3d(0, 2.5, 0), kTol);
  EXPECT_VEC_NEAR(vec(j, "normal"), Eigen::Vector3d(0, 1, 0), kTol);
}

TEST_F(GoodPairs, CylinderAndInflatedBox) {
  const json& c = answer("cylinder_sphere");  // cylinder r 1; sphere r 1 at (3,0,0)
  EXPECT_NEAR(num(c, "distance"), 1.0, kTol);
  EXPECT_VEC_NEAR(vec(c, "point_on_a"), Eigen::Vector3d(1, 0, 0), kTol);
  EXPECT_VEC_NEAR(vec(c, "point_on_b"), Eigen::Vector3d(2, 0, 0), kTol);

  const json& b = answer("inflated_box");  // box 0.5 inflated by 0.25; sphere r 0.25 at (2,0,0)
  EXPECT_NEAR(num(b, "distance"), 1.0, kTol);
  EXPECT_VEC_NEAR(vec(b, "point_on_a"), Eigen::Vector3d(0.75, 0, 0), kTol);
  EXPECT_VEC_NEAR(vec(b, "point_on_b"), Eigen::Vector3d(1.75, 0, 0), kTol);

  const json& o = answer("cylinder_box_overlap");  // cylinder top z = 0.5, box bottom z = 0.3
  EXPECT_TRUE(o.at("collision").get<bool>());
  EXPECT_NEAR(num(o, "depth"), 0.2, kTol);
  EXPECT_VEC_NEAR(vec(o, "normal"), Eigen::Vector3d(0, 0, 1), kTol);
  EXPECT_NEAR(vec(o, "point_on_a").z(), 0.5, kTol);
  EXPECT_NEAR(vec(o, "point_on_b").z(), 0.3, kTol);
}

TEST_F(GoodPairs, IdIsEchoed) {
  ASSERT_FALSE(result_->lines.empty());
  EXPECT_EQ(result_->lines.front().value("id", ""), "cubes_face");
}

TEST(GjkQuery, EverySolverGivesTheSameAnswers) {
  const RunResult reference = run_tool({data_file("good_pairs.jsonl")});
  for (const char* solver : {"signed_volumes", "johnson", "refine_set", "refine_set_fixed"}) {
    SCOPED_TRACE(solver);
    const RunResult r = run_tool({"--solver", solver, data_file("good_pairs.jsonl")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(r.lines.size(), reference.lines.size());
    for (size_t i = 0; i < r.lines.size(); ++i) {
      check_consistent(r.lines[i]);
      EXPECT_NEAR(num(r.lines[i], "distance"), num(reference.lines[i], "distance"), 1e-9);
      EXPECT_NEAR(num(r.lines[i], "depth"), num(reference.lines[i], "depth"), 1e-9);
      EXPECT_EQ(r.lines[i].at("collision"), reference.lines[i].at("collision"));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Orientation conventions against hand-computed rotations

TEST(GjkQuery, RotationXyzMatchesHandComputedEq38AndQuaternion) {
  const double gx = 0.3, gy = -0.7, gz = 1.1;
  const Eigen::Vector3d position(2.5, 0.4, -0.3);
  // An irregular tetrahedron-like rod, long enough that the orientation matters.
  const std::vector<Eigen::Vector3d> local = {
      {-1.2, 0.1, 0.0}, {1.0, -0.2, 0.1}, {0.2, 0.3, -0.25}, {0.1, -0.1, 0.4}, {0.7, 0.2, 0.2}};
  const Eigen::Matrix3d r38 = rx(gx) * ry(gy) * rz(gz);
  const Eigen::Matrix3d reversed = rz(gz) * ry(gy) * rx(gx);
  std::vector<Eigen::Vector3d> world38, world_reversed;
  for (const auto& p : local) {
    world38.push_back(r38 * p + position);
    world_reversed.push_back(reversed * p + position);
  }
  const auto half = [](double t, int axis) {
    std::array<double, 4> q = {std::cos(t / 2), 0, 0, 0};
    q[static_cast<size_t>(axis)] = std::sin(t / 2);
    return q;
  };
  const std::array<double, 4> q = qmul(qmul(half(gx, 1), half(gy, 2)), half(gz, 3));

  const json a = {{"type", "box"}, {"half_extents", {0.5, 0.4, 0.3}}};
  const json pos = {position.x(), position.y(), position.z()};
  std::string input;
  for (const json& b : {
           json{
               {"vertices", points_json(local)}, {"position", pos}, {"rotation_xyz", {gx, gy, gz}}},
           json{{"vertices", points_json(world38)}},
           json{{"vertices", points_json(local)}, {"position", pos}, {"quaternion", q}},
           json{{"vertices", points_json(world_reversed)}},
       }) {
    input += json{{"a", a}, {"b", b}}.dump() + "\n";
  }
  const RunResult r = run_tool({}, input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.lines.size(), 4u);
  for (const json& j : r.lines) check_consistent(j);
  const json &via_xyz = r.lines[0], &by_hand = r.lines[1], &via_q = r.lines[2];
  ASSERT_FALSE(via_xyz.at("collision").get<bool>());
  for (const json* other : {&by_hand, &via_q}) {
    EXPECT_NEAR(num(via_xyz, "distance"), num(*other, "distance"), 1e-12);
    EXPECT_VEC_NEAR(vec(via_xyz, "point_on_a"), vec(*other, "point_on_a"), 1e-9);
    EXPECT_VEC_NEAR(vec(via_xyz, "point_on_b"), vec(*other, "point_on_b"), 1e-9);
    EXPECT_VEC_NEAR(vec(via_xyz, "normal"), vec(*other, "normal"), 1e-9);
  }
  // The test can tell the conventions apart.
  EXPECT_GT(std::abs(num(via_xyz, "distance") - num(r.lines[3], "distance")), 1e-3);
}

TEST(GjkQuery, QuaternionIsNormalised) {
  // [2, 0, 0, 2] is the unit quaternion [1, 0, 0, 1] / sqrt(2): 90 deg about z. A rod along x
  // turned onto y, at (0, 3, 0): its end is at y = 2, distance 1.5 from the unit cube.
  const json rod = {{"type", "box"},
                    {"half_extents", {1, 0.1, 0.1}},
                    {"position", {0, 3, 0}},
                    {"quaternion", {2, 0, 0, 2}}};
  const json a = {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}};
  const RunResult r = run_tool({"-"}, json{{"a", a}, {"b", rod}}.dump() + "\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.lines.size(), 1u);
  check_consistent(r.lines[0]);
  EXPECT_NEAR(num(r.lines[0], "distance"), 1.5, kTol);
  EXPECT_VEC_NEAR(vec(r.lines[0], "normal"), Eigen::Vector3d(0, 1, 0), kTol);
}

TEST(GjkQuery, TouchingShapesCollideWithZeroDepth) {
  const json box = {{"type", "box"}, {"half_extents", {1, 1, 1}}};
  json b = box;
  b["position"] = {2, 0, 0};
  const RunResult r = run_tool({}, json{{"a", box}, {"b", b}}.dump() + "\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_TRUE(r.lines[0].at("collision").get<bool>());
  EXPECT_NEAR(num(r.lines[0], "distance"), 0.0, kTol);
  EXPECT_NEAR(num(r.lines[0], "depth"), 0.0, kTol);
}

// ---------------------------------------------------------------------------------------------
// Bad input

struct ExpectedError {
  long line;
  std::string message;  // exact "error" text
};

TEST(GjkQuery, BadLinesFileAnswersEveryLine) {
  const RunResult r = run_tool({data_file("bad_lines.jsonl")});
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_EQ(r.lines.size(), 13u) << r.out;
  const std::vector<ExpectedError> errors = {
      {2,
       "invalid JSON: parse error at column 70: syntax error while parsing object - "
       "unexpected string literal; expected '}'"},
      {4, "a: missing \"vertices\" (or \"type\": sphere, box, capsule, cylinder)"},
      {5, "b.position[0]: number 1e999 is out of range of a double (numbers must be finite)"},
      {6, "a.half_extents[1]: expected a number, got string \"2\""},
      {7, "a.vertices[2]: expected 3 numbers, got 2"},
      {8, "b.position: expected 3 numbers, got 2"},
      {9,
       "a.type: unknown shape type \"cone\" (expected sphere, box, capsule, cylinder or "
       "polytope)"},
      {10, "a.radius: must be >= 0, got -0.5"},
      {11, "blank line (each line must hold one JSON object)"},
      {12, "a: give one of \"rotation_xyz\", \"rpy\" and \"quaternion\", not several"},
  };
  for (const ExpectedError& e : errors) {
    const json& j = r.lines[static_cast<size_t>(e.line - 1)];
    EXPECT_EQ(j, (json{{"line", e.line}, {"error", e.message}}));
    const std::string stderr_line = "line " + std::to_string(e.line) + ": " + e.message + "\n";
    EXPECT_NE(r.err.find(stderr_line), std::string::npos) << stderr_line << "not in:\n" << r.err;
  }
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), static_cast<long>(errors.size()));
  for (long good : {1, 3, 13}) expect_good_line(r.lines[static_cast<size_t>(good - 1)], good);
}

TEST(GjkQuery, EveryClassOfBadLineIsReportedInPlace) {
  const json box = {{"type", "box"}, {"half_extents", {1, 1, 1}}};
  const auto pair = [&](const json& a) { return json{{"a", a}, {"b", kUnitSphere}}.dump(); };
  // Each bad line with the start of the message expected for it.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"a\": ", "invalid JSON: "},
      {"not json", "invalid JSON: "},
      {"{\"a\": {\"type\": \"sphere\", \"radius\": NaN}, \"b\": {}}", "invalid JSON: "},
      {"[1, 2, 3]", "expected a JSON object"},
      {"{\"a\": {\"type\": \"sphere\", \"radius\": 1}}", "missing \"b\""},
      {"{\"b\": {\"type\": \"sphere\", \"radius\": 1}}", "missing \"a\""},
      {"{\"a\": {\"type\": \"sphere\", \"radius\": 1}, \"b\": {\"type\": \"sphere\", \"radius\": "
       "1}, \"c\": 0}",
       "unknown key \"c\""},
      {pair({{"type", "sphere"}}), "a: missing \"radius\" (required for type sphere)"},
      {pair({{"type", "polytope"}}), "a: missing \"vertices\" (required for type polytope)"},
      {pair({{"vertices", json::array()}}), "a.vertices: expected a non-empty array"},
      {pair({{"vertices", {{"x", 1}}}}), "a.vertices: expected a non-empty array"},
      {pair({{"vertices", {{0, 0, 0}, {1, 0}}}}), "a.vertices[1]: expected 3 numbers, got 2"},
      {pair({{"vertices", {{0, 0, 0, 0}}}}), "a.vertices[0]: expected 3 numbers, got 4"},
      {pair({{"vertices", {{0, 0, "0"}}}}), "a.vertices[0][2]: expected a number, got string"},
      {pair({{"vertices", {{0, 0, nullptr}}}}), "a.vertices[0][2]: expected a number, got null"},
      {pair({{"vertices", {{0, 0, true}}}}), "a.vertices[0][2]: expected a number, got true"},
      {"{\"a\": {\"vertices\": [[0, 0, 1e999]]}, \"b\": {\"type\": \"sphere\", \"radius\": 1}}",
       "a.vertices[0][2]: number 1e999 is out of range of a double"},
      {"{\"a\": {\"vertices\": [[0, -1E+400, 0]]}, \"b\": {\"type\": \"sphere\", \"radius\": 1}}",
       "a.vertices[0][1]: number -1E+400 is out of range of a double"},
      {"{\"a\": {\"type\": \"sphere\", \"radius\": 1" + std::string(400, '0') + "}, \"b\": {}}",
       "a.radius: number 1000"},
      {pair({{"type", "box"}, {"half_extents", {1, 1}}}), "a.half_extents: expected 3 numbers"},
      {pair({{"type", "box"}, {"half_extents", 1}}), "a.half_extents: expected an array of 3"},
      {pair({{"type", "box"}, {"half_extents", {1, -1, 1}}}), "a.half_extents[1]: must be >= 0"},
      {pair({{"type", "sphere"}, {"radius", -1}}), "a.radius: must be >= 0, got -1"},
      {pair({{"type", "capsule"}, {"radius", 1}, {"half_length", -2}}), "a.half_length: must be"},
      {pair({{"type", "cylinder"}, {"radius", -1}, {"half_length", 1}}), "a.radius: must be"},
      {pair({{"type", "sphere"}, {"radius", 1}, {"inflation", -0.1}}), "a.inflation: must be"},
      {pair({{"type", "cone"}}), "a.type: unknown shape type \"cone\""},
      {pair({{"type", 3}}), "a.type: expected a string, got"},
      {pair({{"type", "box"}, {"half_extents", {1, 1, 1}}, {"radius", 1}}),
       "a.radius: not a parameter of shape type box"},
      {pair({{"type", "box"}, {"half_extents", {1, 1, 1}}, {"rotation", {0, 0, 0}}}),
       "a: unknown key \"rotation\""},
      {pair({{"type", "sphere"}, {"radius", 1}, {"position", {1, 2}}}),
       "a.position: expected 3 numbers, got 2"},
      {pair({{"type", "sphere"}, {"radius", 1}, {"position", {1, 2, 3, 4}}}),
       "a.position: expected 3 numbers, got 4"},
      {pair({{"type", "sphere"}, {"radius", 1}, {"rotation_xyz", {1, 2}}}),
       "a.rotation_xyz: expected 3 numbers [gx, gy, gz], got 2"},
      {pair({{"type", "sphere"}, {"radius", 1}, {"quaternion", {1, 0, 0}}}),
       "a.quaternion: expected 4 numbers [w, x, y, z], got 3"},
      {pair({{"type", "sphere"}, {"radius", 1}, {"quaternion", {0, 0, 0, 0}}}),
       "a.quaternion: a zero quaternion is not a rotation"},
      {pair({{"type", "sphere"},
             {"radius", 1},
             {"quaternion", {1, 0, 0, 0}},
             {"rotation_xyz", {0, 0, 0}}}),
       "a: give one of \"rotation_xyz\", \"rpy\" and \"quaternion\", not several"},
      {json{{"a", kUnitSphere}, {"b", "sphere"}}.dump(), "b: expected a shape object, got string"},
      {"", "blank line"},
      {"  \t ", "blank line"},
  };
  std::string input;
  for (const auto& c : cases) input += c.first + "\n" + good_line() + "\n";
  const RunResult r = run_tool({}, input);
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_EQ(r.lines.size(), 2 * cases.size()) << r.out;
  for (size_t i = 0; i < cases.size(); ++i) {
    const long bad_line = static_cast<long>(2 * i + 1);
    const json& j = r.lines[2 * i];
    SCOPED_TRACE(cases[i].first);
    EXPECT_EQ(j.value("line", -1L), bad_line);
    ASSERT_TRUE(j.contains("error")) << j.dump();
    const std::string message = j.at("error");
    EXPECT_EQ(message.rfind(cases[i].second, 0), 0u) << message;
    EXPECT_NE(r.err.find("line " + std::to_string(bad_line) + ": " + message + "\n"),
              std::string::npos)
        << r.err;
    expect_good_line(r.lines[2 * i + 1], bad_line + 1);
  }
}

TEST(GjkQuery, ErrorLinesEchoTheId) {
  const std::string input =
      json{{"id", 42}, {"a", {{"type", "sphere"}, {"radius", -1}}}, {"b", kUnitSphere}}.dump();
  const RunResult r = run_tool({}, input + "\n");
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0],
            (json{{"line", 1}, {"id", 42}, {"error", "a.radius: must be >= 0, got -1.0"}}));
}

// ---------------------------------------------------------------------------------------------
// Standard input, line handling, usage

TEST(GjkQuery, StdinDashAndNoArgumentMatchTheFile) {
  std::string text;
  {
    const std::string path = data_file("good_pairs.jsonl");
    FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
  }
  const RunResult file = run_tool({data_file("good_pairs.jsonl")});
  const RunResult dash = run_tool({"-"}, text);
  const RunResult none = run_tool({}, text);
  EXPECT_EQ(dash.exit_code, 0);
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(file.out, dash.out);
  EXPECT_EQ(file.out, none.out);
  EXPECT_EQ(file.lines.size(), 12u);
}

TEST(GjkQuery, CrlfLastLineWithoutNewlineAndBlankLinesKeepLineNumbers) {
  const std::string input = good_line() + "\r\n\r\n" + good_line() + "\n\n" + good_line();
  const RunResult r = run_tool({}, input);
  EXPECT_EQ(r.exit_code, 3);  // the blank lines are errors
  ASSERT_EQ(r.lines.size(), 5u) << r.out;
  expect_good_line(r.lines[0], 1);
  EXPECT_EQ(r.lines[1],
            (json{{"line", 2}, {"error", "blank line (each line must hold one JSON object)"}}));
  expect_good_line(r.lines[2], 3);
  EXPECT_EQ(r.lines[3].value("line", -1L), 4);
  EXPECT_TRUE(r.lines[3].contains("error"));
  expect_good_line(r.lines[4], 5);
  EXPECT_NE(r.err.find("line 2: blank line"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 4: blank line"), std::string::npos) << r.err;
}

TEST(GjkQuery, EmptyInputGivesNoOutput) {
  const RunResult r = run_tool({});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST(GjkQuery, AnswersEachLineBeforeTheInputEnds) {
  // A driver may keep the tool open and wait for each answer (co-process use).
  Child child({});
  std::string out;
  for (int k = 1; k <= 2; ++k) {
    const std::string line = good_line() + "\n";
    ASSERT_EQ(::write(child.in_fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
    while (std::count(out.begin(), out.end(), '\n') < k) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no answer to line " << k;
      pollfd fd = {child.out_fd, POLLIN, 0};
      if (::poll(&fd, 1, 1000) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(child.out_fd, buffer, sizeof buffer);
      ASSERT_GT(n, 0) << "gjk-query closed its output early";
      out.append(buffer, static_cast<size_t>(n));
    }
  }
  Child::close_fd(child.in_fd);
  EXPECT_EQ(child.wait(), 0);
  std::istringstream lines(out);
  std::string line;
  long k = 0;
  while (std::getline(lines, line)) expect_good_line(json::parse(line), ++k);
  EXPECT_EQ(k, 2);
}

TEST(GjkQuery, MissingFileIsAnInputError) {
  const std::string path = kData + "/no_such_file.jsonl";
  const RunResult r = run_tool({path});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("cannot open input file '" + path + "'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

TEST(GjkQuery, DirectoryIsAnInputError) {
  const RunResult r = run_tool({kData});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(kData), std::string::npos) << r.err;
}

TEST(GjkQuery, BadOptionsAreUsageErrors) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--solver", "gauss"},
                                               {"--no-such-option"},
                                               {"one.jsonl", "two.jsonl"},
                                               {"--solver"}}) {
    const RunResult r = run_tool(args);
    EXPECT_EQ(r.exit_code, 2) << args.front();
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err, "");
  }
}

TEST(GjkQuery, HelpDocumentsTheSchema) {
  const RunResult r = run_tool({"--help"}, "", /*json_output=*/false);
  EXPECT_EQ(r.exit_code, 0);
  for (const char* text : {"--solver",     "signed_volumes", "johnson",
                           "refine_set",   "\"vertices\"",   "\"sphere\"",
                           "\"box\"",      "\"capsule\"",    "\"cylinder\"",
                           "half_extents", "half_length",    "inflation",
                           "position",     "rotation_xyz",   "Rx(gx) * Ry(gy) * Rz(gz)",
                           "[w, x, y, z]", "point_on_a",     "depth * normal",
                           "\"error\"",    "blank line",     "EXIT STATUS"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Hostile input (issue 15 items 2, 3, 8; issue 16: rpy, degenerate point sets)

const std::string kGoodPair =
    R"({"a":{"type":"sphere","radius":1},"b":{"type":"sphere","radius":1,"position":[3,0,0]}})";

TEST(GjkQueryHostile, DeepNestingIsAnErrorLineAndLaterLinesAreAnswered) {
  const std::string deep(100000, '['), closing(100000, ']');
  for (const std::string& line :
       {R"({"id":)" + deep + closing +
            R"(,"a":{"type":"sphere","radius":1},"b":{"type":"sphere","radius":1}})",
        R"({"a":{"vertices":)" + deep + closing + R"(},"b":{"type":"sphere","radius":1}})"}) {
    const RunResult r = run_tool({}, line + "\n" + kGoodPair + "\n");
    EXPECT_EQ(r.exit_code, 3);
    ASSERT_EQ(r.lines.size(), 2u) << r.err;
    EXPECT_NE(r.lines[0].value("error", "").find("nested deeper than 64 levels"), std::string::npos)
        << r.lines[0];
    EXPECT_EQ(r.lines[1].value("distance", -1.0), 1.0);
  }
}

TEST(GjkQueryHostile, ManyOverflowingNumbersAreReadInOnePass) {
  // 9,999 numbers out of double range, about 1 MB: each used to re-parse the whole line
  // (221 s); one pass takes milliseconds. The 10 s budget is only a hang guard.
  std::string id = "[";
  const std::string huge = "1" + std::string(96, '0') + "e999";
  for (int i = 0; i < 9999; ++i) id += (i ? "," : "") + huge;
  id += "]";
  const std::string line =
      R"({"a":{"type":"sphere","radius":1},"b":{"type":"sphere","radius":1,"position":[3,0,0]},"id":)" +
      id + "}";
  ASSERT_GT(line.size(), 1000000u);
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = run_tool({}, line + "\n" + kGoodPair + "\n");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 10.0);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_NE(r.lines[0].value("error", "").find("id[0]: number 1000"), std::string::npos)
      << r.lines[0].value("error", "");
  EXPECT_NE(r.lines[0].value("error", "").find("out of range of a double"), std::string::npos);
  EXPECT_EQ(r.lines[1].value("distance", -1.0), 1.0);
}

TEST(GjkQueryHostile, AnswersNeverHoldNull) {
  // Magnitudes the engine cannot represent: an error line or a finite answer, never null.
  const RunResult r = run_tool(
      {},
      R"({"a":{"type":"sphere","radius":1e308},"b":{"type":"sphere","radius":1e308,"position":[1e308,0,0]}})"
      "\n");
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.out.find("null"), std::string::npos) << r.out;
}

TEST(GjkQueryHostile, RollPitchYawIsUrdfsFixedAxisConvention) {
  // A box of half extents (1, 0.1, 0.1) turned by rpy = (0.3, 0.4, 0.5) against the quaternion
  // of the same rotation, computed by hand: q = qz(yaw) * qy(pitch) * qx(roll).
  const double r = 0.3, p = 0.4, y = 0.5;
  const double cr = std::cos(r / 2), sr = std::sin(r / 2), cp = std::cos(p / 2),
               sp = std::sin(p / 2), cy = std::cos(y / 2), sy = std::sin(y / 2);
  const double w = cy * cp * cr + sy * sp * sr, x = cy * cp * sr - sy * sp * cr,
               qy = cy * sp * cr + sy * cp * sr, z = sy * cp * cr - cy * sp * sr;
  std::ostringstream in;
  in.precision(17);
  const std::string b = R"("b":{"type":"sphere","radius":0.2,"position":[0.4,1.3,0.6]})";
  in << R"({"a":{"type":"box","half_extents":[1,0.1,0.1],"rpy":[)" << r << ',' << p << ',' << y
     << "]}," << b << "}\n"
     << R"({"a":{"type":"box","half_extents":[1,0.1,0.1],"quaternion":[)" << w << ',' << x << ','
     << qy << ',' << z << "]}," << b << "}\n"
     << R"({"a":{"type":"box","half_extents":[1,1,1],"rpy":[0,0,0],"quaternion":[1,0,0,0]},)" << b
     << "}\n";
  const RunResult res = run_tool({}, in.str());
  ASSERT_EQ(res.lines.size(), 3u);
  EXPECT_NEAR(res.lines[0].value("distance", -1.0), res.lines[1].value("distance", -2.0), 1e-12);
  EXPECT_GT(res.lines[0].value("distance", -1.0), 0.0);
  EXPECT_NE(res.lines[2].value("error", "").find("not several"), std::string::npos);
}

TEST(GjkQueryHostile, CoplanarAndCollinearPointSetsAreAccepted) {
  // The documented behaviour, shared with the scene loader: flat hulls are valid shapes.
  const RunResult r = run_tool(
      {},
      R"({"a":{"vertices":[[0,0,0],[1,0,0],[0,1,0]]},"b":{"type":"sphere","radius":0.5,"position":[0.2,0.2,2]}})"
      "\n"
      R"({"a":{"vertices":[[0,0,0],[1,0,0]]},"b":{"type":"sphere","radius":0.5,"position":[0.5,0,2]}})"
      "\n");
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_NEAR(r.lines[0].value("distance", -1.0), 1.5, 1e-12) << r.lines[0];
  EXPECT_NEAR(r.lines[1].value("distance", -1.0), 1.5, 1e-12) << r.lines[1];
}
