// End-to-end tests of gjk-clearance as users and CI jobs run it: exit codes and messages,
// streaming with bounded memory, byte-identical outputs for any --threads, atomic output files,
// per-state rows, the collision and margin checks, option validation, path reading (header in any
// order, --fixed, --list-joints) and hostile input (huge fields, names that are not UTF-8).
//
// GJK_CLEARANCE_TEST_EXE in the environment runs the tests against another build of the tool
// (e.g. an older one, to see which tests fail there).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string exe() {
  const char* other = std::getenv("GJK_CLEARANCE_TEST_EXE");
  return other != nullptr && *other != '\0' ? other : GJK_CLEARANCE_EXE;
}

const std::string kFourDofUrdf = std::string(GJK_ROBOT_MODELS_DIR) + "/four_dof/four_dof_arm.urdf";
const std::string kPandaUrdf = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf";
const std::string kPyramids = std::string(GJK_ROBOT_SCENES_DIR) + "/two_pyramids.yaml";
const std::string kPandaBoxes = std::string(GJK_ROBOT_SCENES_DIR) + "/panda_boxes.yaml";

/// A fresh folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("gjk_clearance_cli_" + std::to_string(::getpid()) + "_" +
                                        info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(dir_ / "locked", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// The names of the files in the folder (outputs and leftovers).
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path dir_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct RunResult {
  int exit_code = -1;
  int signal = 0;
  std::string out, err;
  long max_rss_kb = 0;
};

/// Starts gjk-clearance with `args`; stdout and stderr go to files in `tmp` (no pipe deadlock).
pid_t start_tool(const TempDir& tmp, const std::vector<std::string>& args) {
  const std::string out_path = tmp.path("stdout.txt"), err_path = tmp.path("stderr.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  const std::string program = exe();
  std::vector<std::string> argv_strings = {program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot spawn " << program;
    return -1;
  }
  return pid;
}

/// The same with fork() and execv() instead of posix_spawn, for measuring the tool's peak
/// memory: Linux keeps the larger of the old and the new image's peak RSS across execve, and
/// posix_spawn's child runs in the parent's address space until then (its peak would be the
/// test's). A forked copy starts from the test's current RSS only (a few MB).
pid_t start_tool_forked(const TempDir& tmp, const std::vector<std::string>& args) {
  const std::string out_path = tmp.path("stdout.txt"), err_path = tmp.path("stderr.txt");
  const std::string program = exe();
  std::vector<std::string> argv_strings = {program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until execv
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0) {
      ::_exit(127);
    }
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  if (pid < 0) ADD_FAILURE() << "cannot fork";
  return pid;
}

/// Lines of a file, read in pieces (the outputs can be hundreds of MB).
size_t count_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buffer(1 << 16);
  size_t lines = 0;
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    lines += static_cast<size_t>(std::count(buffer.data(), buffer.data() + in.gcount(), '\n'));
  }
  return lines;
}

RunResult finish_tool(const TempDir& tmp, pid_t pid) {
  RunResult r;
  if (pid < 0) return r;
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.max_rss_kb = usage.ru_maxrss;
  r.out = read_text(tmp.path("stdout.txt"));
  r.err = read_text(tmp.path("stderr.txt"));
  fs::remove(tmp.path("stdout.txt"));
  fs::remove(tmp.path("stderr.txt"));
  return r;
}

RunResult run_tool(const TempDir& tmp, const std::vector<std::string>& args) {
  return finish_tool(tmp, start_tool(tmp, args));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> split(const std::string& row) {
  std::vector<std::string> f;
  std::istringstream fields(row);
  std::string x;
  while (std::getline(fields, x, ',')) f.push_back(x);
  if (!row.empty() && row.back() == ',') f.push_back("");
  return f;
}

/// The Panda path of examples/clearance/make_panda_path.py: `n` states through five waypoints
/// (the arm swings over the table, down to the shelf and the side block and back), with a
/// header and a time column; `arm_only` leaves out the finger column (as gjk-plan writes).
std::string panda_path(int n, bool arm_only = false) {
  const double pi = M_PI;
  const double w[5][8] = {
      {0.0, -pi / 4, 0.0, -3 * pi / 4, 0.0, pi / 2, pi / 4, 0.0},
      {0.9, 0.3, 0.0, -2.2, 0.0, 2.4, pi / 4, 0.04},
      {-0.8, 0.5, 0.3, -1.6, 0.5, 2.0, -0.5, 0.02},
      {-1.5, -0.3, -0.4, -2.6, -0.8, 1.2, 1.5, 0.0},
      {0.0, -pi / 4, 0.0, -3 * pi / 4, 0.0, pi / 2, pi / 4, 0.0},
  };
  std::string text = "t";
  for (int j = 1; j <= 7; ++j) text += ",panda_joint" + std::to_string(j);
  if (!arm_only) text += ",panda_finger_joint1";
  text += "\n";
  char buffer[64];
  for (int i = 0; i < n; ++i) {
    const double s = 4.0 * i / std::max(n - 1, 1);
    const int k = std::min(static_cast<int>(s), 3);
    const double f = s - k;
    std::snprintf(buffer, sizeof buffer, "%.4f", i * 0.001);
    text += buffer;
    for (int j = 0; j < (arm_only ? 7 : 8); ++j) {
      std::snprintf(buffer, sizeof buffer, ",%.9f", w[k][j] + f * (w[k + 1][j] - w[k][j]));
      text += buffer;
    }
    text += "\n";
  }
  return text;
}

/// A 4-DOF path of `n` states lowering the elbow into pyramid_low and lifting it out again
/// (about a third of the states collide).
std::string four_dof_path(int n) {
  std::string text = "joint1,joint2,joint3,joint4\n";
  char buffer[128];
  for (int i = 0; i < n; ++i) {
    const double s = 1.0 - std::abs(2.0 * i / std::max(n - 1, 1) - 1.0);  // 0 -> 1 -> 0
    const double deg = M_PI / 180.0;
    std::snprintf(buffer, sizeof buffer, "0,%.17g,%.17g,%.17g\n", (90 + 50 * s) * deg, -150 * deg,
                  -30 * deg);
    text += buffer;
  }
  return text;
}

std::vector<std::string> four_dof_args(const std::string& path) {
  return {"--urdf", kFourDofUrdf, "--scene", kPyramids, "--path", path};
}

std::vector<std::string> panda_args(const std::string& path) {
  return {"--urdf", kPandaUrdf, "--scene", kPandaBoxes, "--path", path};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---------------------------------------------------------------------------------------------
// Streaming, determinism, atomic outputs

TEST(ClearanceCli, OutputsAreByteIdenticalForAnyThreadCount) {
  // 3,000 Panda states over the table and the shelf: where the closest features are not unique
  // (a finger box parallel to the table) per-thread warm starts used to pick other witness
  // points, and distances differed in the last bits.
  TempDir tmp;
  const std::string path = tmp.write("panda.csv", panda_path(3000));
  // The per-pair CSV alone first (an option the old tool had), then the per-state CSV.
  for (const char* option : {"--out", "--states-out"}) {
    std::string first;
    for (const char* threads : {"1", "2", "3"}) {
      SCOPED_TRACE(std::string(option) + " --threads " + threads);
      const std::string out = tmp.path(std::string("out") + threads + ".csv");
      const RunResult r = run_tool(
          tmp, panda_args(path) + std::vector<std::string>{option, out, "--threads", threads});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const std::string text = read_text(out);
      ASSERT_GT(text.size(), 100000u);
      if (first.empty()) {
        first = text;
      } else {
        EXPECT_TRUE(text == first) << "differs from --threads 1";
      }
    }
  }
}

// GCC defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang answers __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GJK_CLANG_SANITIZER 1
#endif
#endif
#ifndef GJK_CLANG_SANITIZER
#define GJK_CLANG_SANITIZER 0
#endif

TEST(ClearanceCli, MemoryDoesNotGrowWithThePathLength) {
  // Every pair of every state to --out: 4,000 and 64,000 states (16 pairs each, about 170 MB of
  // CSV) must peak at about the same resident size (the old tool kept every pair: +85 MB).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || GJK_CLANG_SANITIZER
  GTEST_SKIP() << "sanitizer builds keep freed memory in quarantine (ASan) or shadow it (TSan): "
                  "the resident size is not the tool's; measured in the plain build";
#endif
  TempDir tmp;
  long rss[2] = {0, 0};
  int k = 0;
  for (int n : {4000, 64000}) {
    const std::string path = tmp.write("arm.csv", four_dof_path(n));
    const RunResult r = finish_tool(
        tmp, start_tool_forked(
                 tmp, four_dof_args(path) +
                          std::vector<std::string>{"--out", tmp.path("o.csv"), "--threads", "2"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count_lines(tmp.path("o.csv")), 1u + 16u * static_cast<size_t>(n));
    fs::remove(tmp.path("o.csv"));
    rss[k++] = r.max_rss_kb;
  }
  EXPECT_LT(rss[1], rss[0] + 20 * 1024)
      << "peak RSS " << rss[0] << " kB at 4,000 states, " << rss[1] << " kB at 64,000";
}

TEST(ClearanceCli, UnwritableOutputIsAnOutputErrorAndLeavesNoFile) {
  TempDir tmp;
  const std::string path = tmp.write("arm.csv", four_dof_path(20));
  fs::create_directories(tmp.path("locked"));
  fs::permissions(tmp.path("locked"), fs::perms::owner_read | fs::perms::owner_exec);
  const bool root = ::geteuid() == 0;  // root writes anywhere: use a missing folder instead
  const std::string out = root ? tmp.path("missing/out.csv") : tmp.path("locked/out.csv");
  const RunResult r = run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--out", out});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("cannot write output file '" + out + "'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(tmp.path("locked")));
}

TEST(ClearanceCli, FailedRunLeavesNoFileAndKeepsTheOldOne) {
  TempDir tmp;
  // An empty path: an input error, and no output file appears.
  const std::string empty = tmp.write("empty.csv", "# nothing\n\n");
  const RunResult r = run_tool(
      tmp, four_dof_args(empty) + std::vector<std::string>{"--out", tmp.path("out.csv"),
                                                           "--states-out", tmp.path("states.csv")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no states to analyse (the path is empty)"), std::string::npos) << r.err;
  EXPECT_EQ(tmp.files(), (std::vector<std::string>{"empty.csv"}));
  // A file from an earlier run stays as it was when a later run fails.
  tmp.write("out.csv", "earlier results\n");
  const RunResult again =
      run_tool(tmp, four_dof_args(empty) + std::vector<std::string>{"--out", tmp.path("out.csv")});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_EQ(read_text(tmp.path("out.csv")), "earlier results\n");
  EXPECT_EQ(tmp.files(), (std::vector<std::string>{"empty.csv", "out.csv"}));
}

TEST(ClearanceCli, KilledRunLeavesNoHalfFile) {
  TempDir tmp;
  const std::string path = tmp.write("panda.csv", panda_path(200000));
  const std::string out = tmp.path("out.csv");
  const pid_t pid =
      start_tool(tmp, panda_args(path) + std::vector<std::string>{"--out", out, "--threads", "1"});
  ASSERT_GT(pid, 0);
  // Wait until the run has written something (the temporary file grows), then stop it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool writing = false;
  while (!writing && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const std::string& f : tmp.files()) {
      std::error_code ec;
      if (f != "panda.csv" && f != "stdout.txt" && f != "stderr.txt" &&
          fs::file_size(tmp.path(f), ec) > 100000) {
        writing = true;
      }
    }
  }
  EXPECT_TRUE(writing) << "no output seen";
  ::kill(pid, SIGTERM);
  const RunResult r = finish_tool(tmp, pid);
  EXPECT_EQ(r.signal, SIGTERM) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(tmp.files(), (std::vector<std::string>{"panda.csv"}));  // the temporary file too
}

TEST(ClearanceCli, OutAndStatesOutMustBeDifferentFiles) {
  TempDir tmp;
  const std::string path = tmp.write("arm.csv", four_dof_path(10));
  const RunResult r = run_tool(
      tmp, four_dof_args(path) + std::vector<std::string>{"--out", tmp.path("x.csv"),
                                                          "--states-out", tmp.path("./x.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out and --states-out name the same file"), std::string::npos) << r.err;
  EXPECT_EQ(tmp.files(), (std::vector<std::string>{"arm.csv"}));
}

// ---------------------------------------------------------------------------------------------
// Per-state rows and shape names

TEST(ClearanceCli, PerStateRowsHoldEachStatesWorstPair) {
  TempDir tmp;
  const std::string path = tmp.write("panda.csv", panda_path(300));
  const std::string pairs = tmp.path("pairs.csv"), states = tmp.path("states.csv");
  const RunResult r =
      run_tool(tmp, panda_args(path) +
                        std::vector<std::string>{"--out", pairs, "--states-out", states, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> p = lines_of(read_text(pairs)), s = lines_of(read_text(states));
  ASSERT_EQ(s.size(), 301u);
  EXPECT_EQ(s[0],
            "state,line,t,pairs,distance,link,shape,obstacle,link_x,link_y,link_z,obstacle_x,"
            "obstacle_y,obstacle_z,normal_x,normal_y,normal_z,status");
  EXPECT_EQ(p[0],
            "state,line,t,link,shape,obstacle,distance,link_x,link_y,link_z,obstacle_x,obstacle_y,"
            "obstacle_z,normal_x,normal_y,normal_z,status");
  const size_t per_state = (p.size() - 1) / 300;
  ASSERT_EQ(p.size(), 1 + 300 * per_state);
  double overall = INFINITY;
  for (size_t i = 0; i < 300; ++i) {
    const std::vector<std::string> row = split(s[1 + i]);
    ASSERT_EQ(row.size(), 18u) << s[1 + i];
    EXPECT_EQ(row[0], std::to_string(i));
    EXPECT_EQ(row[1], std::to_string(i + 2));  // the header is line 1
    EXPECT_EQ(row[3], std::to_string(per_state));
    // The worst pair is the first of the smallest distance among the state's pair rows.
    size_t best = 0;
    double best_d = INFINITY;
    for (size_t k = 0; k < per_state; ++k) {
      const std::vector<std::string> pr = split(p[1 + i * per_state + k]);
      ASSERT_EQ(pr[0], row[0]);
      const double d = std::stod(pr[6]);
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    const std::vector<std::string> worst = split(p[1 + i * per_state + best]);
    EXPECT_EQ(row[4], worst[6]);                                       // distance, as printed
    EXPECT_EQ(row[5], worst[3]);                                       // link
    EXPECT_EQ(row[6], worst[4]);                                       // shape
    EXPECT_EQ(row[7], worst[5]);                                       // obstacle
    for (int c = 0; c < 10; ++c) EXPECT_EQ(row[8 + c], worst[7 + c]);  // points, normal, status
    const double nx = std::stod(row[14]), ny = std::stod(row[15]), nz = std::stod(row[16]);
    EXPECT_NEAR(std::sqrt(nx * nx + ny * ny + nz * nz), 1.0, 1e-9);
    overall = std::min(overall, best_d);
  }
  EXPECT_EQ(json::parse(r.out).at("minimum").at("distance").get<double>(), overall);
  // Shapes are named LINK#K within their link.
  for (size_t k = 1; k <= per_state; ++k) {
    const std::vector<std::string> pr = split(p[k]);
    EXPECT_EQ(pr[4].rfind(pr[3] + "#", 0), 0u) << p[k];
  }
  EXPECT_NE(read_text(pairs).find(",panda_hand,panda_hand#0,"), std::string::npos);
}

// --link-meshes mesh keeps the Panda's links as triangles: inside their hulls, so the path's
// minimum clearance is never smaller than with hulls; bad values are usage errors naming them.
TEST(ClearanceCli, LinkMeshesChooseTheRepresentation) {
  TempDir tmp;
  const std::string path = tmp.write("panda.csv", panda_path(40));
  const RunResult hull = run_tool(tmp, panda_args(path) + std::vector<std::string>{"--json"});
  ASSERT_EQ(hull.exit_code, 0) << hull.err;
  const RunResult mesh =
      run_tool(tmp, panda_args(path) + std::vector<std::string>{"--json", "--link-meshes", "mesh"});
  ASSERT_EQ(mesh.exit_code, 0) << mesh.err;
  const double hull_min = json::parse(hull.out).at("minimum").at("distance").get<double>();
  const double mesh_min = json::parse(mesh.out).at("minimum").at("distance").get<double>();
  EXPECT_GE(mesh_min, hull_min - 1e-12);
  const RunResult one =
      run_tool(tmp, panda_args(path) +
                        std::vector<std::string>{"--json", "--link-mesh", "panda_link5=mesh"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const RunResult bad =
      run_tool(tmp, panda_args(path) + std::vector<std::string>{"--link-meshes", "convex"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--link-meshes: expected 'hull', 'pieces' or 'mesh', got 'convex'"),
            std::string::npos)
      << bad.err;
  const RunResult no_equals =
      run_tool(tmp, panda_args(path) + std::vector<std::string>{"--link-mesh", "panda_link5"});
  EXPECT_EQ(no_equals.exit_code, 2);
  EXPECT_NE(no_equals.err.find("LINK=REPRESENTATION"), std::string::npos) << no_equals.err;
  const RunResult unknown =
      run_tool(tmp, panda_args(path) + std::vector<std::string>{"--link-mesh", "elbow=mesh"});
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_NE(unknown.err.find("'elbow'"), std::string::npos) << unknown.err;
}

TEST(ClearanceCli, StatesBeyondTheCutoffHaveEmptyFields) {
  TempDir tmp;
  const std::string path = tmp.write("arm.csv", four_dof_path(5));
  const std::string states = tmp.path("states.csv");
  const RunResult r =
      run_tool(tmp, four_dof_args(path) +
                        std::vector<std::string>{"--states-out", states, "--cutoff", "0.001"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> s = lines_of(read_text(states));
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[1],
            "0,2,0" + std::string(14, ','));  // the first state is 0.52 from the nearest pyramid
}

// ---------------------------------------------------------------------------------------------
// Checks

TEST(ClearanceCli, FailOnCollisionAndMargin) {
  TempDir tmp;
  const std::string colliding = tmp.write("down.csv", four_dof_path(101));
  // Up to 20 deg of the 50: closer than 10 cm at the end but never touching.
  std::string near_text = "joint1,joint2,joint3,joint4\n";
  for (int i = 0; i <= 20; ++i) {
    near_text += "0," + std::to_string((90.0 + i) * M_PI / 180.0) + "," +
                 std::to_string(-150 * M_PI / 180.0) + "," + std::to_string(-30 * M_PI / 180.0) +
                 "\n";
  }
  const std::string near = tmp.write("near.csv", near_text);

  // No check asked: exit 0 whatever the path.
  EXPECT_EQ(run_tool(tmp, four_dof_args(colliding)).exit_code, 0);

  const RunResult c =
      run_tool(tmp, four_dof_args(colliding) + std::vector<std::string>{"--fail-on-collision"});
  EXPECT_EQ(c.exit_code, 1) << c.err;
  EXPECT_NE(c.err.find("check failed: "), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("states in collision (first: state "), std::string::npos) << c.err;
  EXPECT_NE(c.out.find("minimum clearance: -"), std::string::npos) << c.out;

  const RunResult ok =
      run_tool(tmp, four_dof_args(near) + std::vector<std::string>{"--fail-on-collision"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;

  // Only the margin is violated: the message says so, and never "in collision".
  const RunResult m =
      run_tool(tmp, four_dof_args(near) +
                        std::vector<std::string>{"--margin", "0.45", "--fail-on-collision"});
  EXPECT_EQ(m.exit_code, 1) << m.err;
  EXPECT_NE(m.err.find("closer than the margin 0.450 m"), std::string::npos) << m.err;
  EXPECT_EQ(m.err.find("in collision"), std::string::npos) << m.err;
  EXPECT_EQ(m.out.find("in collision"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("states closer than the margin 0.450 m: "), std::string::npos) << m.out;

  const RunResult pass =
      run_tool(tmp, four_dof_args(near) + std::vector<std::string>{"--margin", "0.01"});
  EXPECT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_EQ(pass.err, "");

  // A margin beyond the cutoff could not be checked.
  const RunResult bad = run_tool(
      tmp, four_dof_args(near) + std::vector<std::string>{"--margin", "0.2", "--cutoff", "0.1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--margin 0.2 is larger than --cutoff 0.1"), std::string::npos) << bad.err;
}

TEST(ClearanceCli, BasePoseMovesTheRobotAndIsCheckedAgainstTheSrdf) {
  TempDir tmp;
  const std::string colliding = tmp.write("down.csv", four_dof_path(101));
  const std::vector<std::string> check = {"--fail-on-collision", "--out", tmp.path("pairs.csv")};
  const RunResult plain = run_tool(tmp, four_dof_args(colliding) + check);
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  const std::string plain_pairs = read_text(tmp.path("pairs.csv"));
  // The identity is the default: the same bytes.
  const RunResult identity =
      run_tool(tmp, four_dof_args(colliding) + check +
                        std::vector<std::string>{"--base-pose", "0,0,0,0,0,0"});
  EXPECT_EQ(identity.exit_code, 1) << identity.err;
  EXPECT_EQ(read_text(tmp.path("pairs.csv")), plain_pairs);
  // Lifted 10 m above the pyramids: nothing collides.
  const RunResult lifted =
      run_tool(tmp, four_dof_args(colliding) + check +
                        std::vector<std::string>{"--base-pose", "0,0,10,0,0,0"});
  EXPECT_EQ(lifted.exit_code, 0) << lifted.err;
  EXPECT_NE(read_text(tmp.path("pairs.csv")), plain_pairs);
  // Bad values are usage errors naming the option.
  for (const char* bad : {"1,2", "0,0,0,0,0,nan", "a,b,c,d,e,f"}) {
    const RunResult r =
        run_tool(tmp, four_dof_args(colliding) + std::vector<std::string>{"--base-pose", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--base-pose"), std::string::npos) << r.err;
  }
  // An SRDF whose virtual joint is fixed keeps the base at the world frame; a planar one keeps
  // it on the floor; MoveIt's Panda SRDF (floating) takes any pose.
  const std::string panda = tmp.write("panda.csv", panda_path(5));
  const auto srdf = [&](const std::string& type) {
    return tmp.write(type + ".srdf", "<robot name=\"panda\"><virtual_joint name=\"v\" type=\"" +
                                         type +
                                         "\" parent_frame=\"world\" child_link=\"panda_link0\"/>"
                                         "</robot>");
  };
  const auto with = [&](const std::string& srdf_file, const std::string& pose) {
    return run_tool(tmp, panda_args(panda) +
                             std::vector<std::string>{"--srdf", srdf_file, "--base-pose", pose});
  };
  const RunResult fixed = with(srdf("fixed"), "1,0,0,0,0,0");
  EXPECT_EQ(fixed.exit_code, 2) << fixed.err;
  EXPECT_NE(fixed.err.find("is fixed"), std::string::npos) << fixed.err;
  const RunResult tilted = with(srdf("planar"), "1,0,0,0.1,0,0");
  EXPECT_EQ(tilted.exit_code, 2) << tilted.err;
  EXPECT_NE(tilted.err.find("is planar"), std::string::npos) << tilted.err;
  EXPECT_EQ(with(srdf("planar"), "1,0,0,0,0,0.5").exit_code, 0);
  const std::string moveit = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.srdf";
  EXPECT_EQ(with(moveit, "1,0,0.2,0.1,0.2,0.3").exit_code, 0);
}

// ---------------------------------------------------------------------------------------------
// Options and inputs

TEST(ClearanceCli, EmptyPathIsAnInputError) {
  TempDir tmp;
  for (const char* text : {"", "\n\n# only comments\n", "joint1,joint2,joint3,joint4\n"}) {
    const std::string path = tmp.write("empty.csv", text);
    const RunResult r = run_tool(tmp, four_dof_args(path));
    EXPECT_EQ(r.exit_code, 3) << "'" << text << "': " << r.err;
    EXPECT_NE(r.err.find(path + ": no states to analyse"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // Every row bad: the same, naming the count.
  const std::string bad = tmp.write("bad.csv", "1,2,x,4\n");
  const RunResult r = run_tool(tmp, four_dof_args(bad));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no states to analyse (1 bad rows)"), std::string::npos) << r.err;
}

TEST(ClearanceCli, ThreadsAreValidatedAndClamped) {
  TempDir tmp;
  const std::string path = tmp.write("arm.csv", four_dof_path(30));
  for (const char* bad : {"0", "abc", "-1", "2.5", ""}) {
    const RunResult r =
        run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--threads", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    if (*bad != '\0') {
      EXPECT_EQ(r.err, std::string("gjk-clearance: --threads: expected a whole number of "
                                   "threads, at least 1, got '") +
                           bad + "'\n");
    }
  }
  // Far more threads than the machine can start: capped, no abort.
  for (const char* many : {"100000", "99999999999999999999999"}) {
    const RunResult r =
        run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--threads", many, "--json"});
    ASSERT_EQ(r.exit_code, 0) << many << ": " << r.err;
    EXPECT_EQ(r.signal, 0);
    const int used = json::parse(r.out).at("threads").get<int>();
    EXPECT_GE(used, 1);
    EXPECT_LE(used, 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  }
}

TEST(ClearanceCli, CutoffIsValidatedReadably) {
  TempDir tmp;
  const std::string path = tmp.write("arm.csv", four_dof_path(10));
  // inf is the documented default and may be given.
  for (const char* good : {"inf", "0", "0.5", "1e3"}) {
    const RunResult r =
        run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--cutoff", good});
    EXPECT_EQ(r.exit_code, 0) << good << ": " << r.err;
  }
  for (const char* bad : {"nan", "-0.1", "x", "1e999", "-inf"}) {
    const RunResult r =
        run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--cutoff", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_LT(r.err.size(), 160u) << r.err;  // no 310-digit range
    EXPECT_NE(r.err.find("--cutoff"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'" + std::string(bad) + "'"), std::string::npos) << r.err;
  }
}

TEST(ClearanceCli, HeaderInAnyOrderFixedJointsAndListJoints) {
  TempDir tmp;
  // The Panda's joints, in the order a headerless path has them.
  const RunResult list = run_tool(tmp, {"--urdf", kPandaUrdf, "--list-joints"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const std::vector<std::string> names = lines_of(list.out);
  ASSERT_EQ(names.size(), 8u) << list.out;
  EXPECT_EQ(names[0], "panda_joint1");
  EXPECT_EQ(names[7], "panda_finger_joint1");
  const RunResult list_json = run_tool(tmp, {"--urdf", kPandaUrdf, "--list-joints", "--json"});
  ASSERT_EQ(list_json.exit_code, 0);
  EXPECT_EQ(json::parse(list_json.out).at(3).at("name"), "panda_joint4");
  EXPECT_LT(json::parse(list_json.out).at(3).at("lower").get<double>(), -3.0);

  // The same states with the columns in another order give the same per-state rows.
  const std::string in_order = tmp.write("a.csv", panda_path(40));
  std::string shuffled;
  for (const std::string& line : lines_of(panda_path(40))) {
    std::vector<std::string> f = split(line);
    shuffled += f[8] + "," + f[3] + "," + f[0];  // finger, joint3, t
    for (int k : {1, 2, 4, 5, 6, 7}) shuffled += "," + f[static_cast<size_t>(k)];
    shuffled += "\n";
  }
  const std::string reordered = tmp.write("b.csv", shuffled);
  ASSERT_EQ(run_tool(tmp, panda_args(in_order) +
                              std::vector<std::string>{"--states-out", tmp.path("a.out")})
                .exit_code,
            0);
  const RunResult b = run_tool(
      tmp, panda_args(reordered) + std::vector<std::string>{"--states-out", tmp.path("b.out")});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(read_text(tmp.path("a.out")), read_text(tmp.path("b.out")));

  // A 7-column arm path (gjk-plan's) with the fingers held: the same as the 8-column path at
  // that finger opening.
  std::string eight;
  for (const std::string& line : lines_of(panda_path(40, true))) {
    eight += line + (line[0] == 't' ? ",panda_finger_joint1\n" : ",0.02\n");
  }
  ASSERT_EQ(run_tool(tmp, panda_args(tmp.write("eight.csv", eight)) +
                              std::vector<std::string>{"--states-out", tmp.path("eight.out")})
                .exit_code,
            0);
  const std::string seven = tmp.write("seven.csv", panda_path(40, true));
  const RunResult without = run_tool(tmp, panda_args(seven));
  EXPECT_EQ(without.exit_code, 3);
  EXPECT_NE(without.err.find("header has no column for joint panda_finger_joint1"),
            std::string::npos)
      << without.err;
  EXPECT_NE(without.err.find("--fixed"), std::string::npos) << without.err;
  const RunResult with = run_tool(
      tmp, panda_args(seven) + std::vector<std::string>{"--fixed", "panda_finger_joint1=0.02",
                                                        "--states-out", tmp.path("seven.out")});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(read_text(tmp.path("seven.out")), read_text(tmp.path("eight.out")));

  // Bad --fixed values are usage errors naming the joint.
  for (const auto& [arg, message] : std::vector<std::pair<std::string, std::string>>{
           {"finger=0", "has no such joint"},
           {"panda_finger_joint1", "expected NAME=VALUE"},
           {"panda_finger_joint1=wide", "expected a finite number, got 'wide'"},
           {"panda_finger_joint1=0.5", "outside the joint limits [0, 0.04]"}}) {
    const RunResult r = run_tool(tmp, panda_args(seven) + std::vector<std::string>{"--fixed", arg});
    EXPECT_EQ(r.exit_code, 2) << arg;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

TEST(ClearanceCli, HugeFieldsAreNotEchoedWhole) {
  TempDir tmp;
  const std::string huge(20 * 1024 * 1024, '7');
  const std::string path = tmp.write(
      "huge.csv", "joint1,joint2,joint3,joint4\n0,1.5,-2.6,-0.5\n0,x" + huge + ",-2.6,-0.5\n");
  const RunResult r = run_tool(tmp, four_dof_args(path));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_LT(r.err.size(), 1000u);
  EXPECT_NE(r.err.find("... (" + std::to_string(huge.size() + 1) + " bytes)"), std::string::npos)
      << r.err.substr(0, 1000);
  // A huge unknown joint name in the header as well.
  const std::string header =
      tmp.write("header.csv", "joint1," + std::string(5000000, 'j') + ",joint3,joint4\n0,0,0,0\n");
  const RunResult h = run_tool(tmp, four_dof_args(header));
  EXPECT_EQ(h.exit_code, 3);
  EXPECT_LT(h.err.size(), 1000u);
}

TEST(ClearanceCli, JsonReplacesTextThatIsNotUtf8) {
  TempDir tmp;
  // A path file whose name is not UTF-8 (Latin-1 'e acute').
  const std::string path = tmp.write("caf\xe9.csv", four_dof_path(10));
  const RunResult r = run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = json::parse(r.out);                                            // valid UTF-8
  EXPECT_EQ(s.at("path").get<std::string>(), tmp.path("caf\xEF\xBF\xBD.csv"));  // U+FFFD
  EXPECT_EQ(s.at("states"), 10);
}

TEST(ClearanceCli, SummaryPrecision) {
  TempDir tmp;
  const std::string path = tmp.write("arm.csv", four_dof_path(11));
  const RunResult r = run_tool(tmp, four_dof_args(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Millimetres by default: "minimum clearance: -0.058 m at state ...".
  const size_t at = r.out.find("minimum clearance: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string value = r.out.substr(at + 19, r.out.find(' ', at + 19) - at - 19);
  EXPECT_EQ(value.size() - value.find('.') - 1, 3u) << value;
  EXPECT_EQ(r.out.substr(at + 19 + value.size(), 3), " m ");
  const RunResult six =
      run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--precision", "6"});
  const size_t at6 = six.out.find("minimum clearance: ");
  const std::string value6 = six.out.substr(at6 + 19, six.out.find(' ', at6 + 19) - at6 - 19);
  EXPECT_EQ(value6.size() - value6.find('.') - 1, 6u) << value6;
  EXPECT_EQ(
      run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--precision", "x"}).exit_code,
      2);
}

TEST(ClearanceCli, NoProgressBarWhenStderrIsNotATerminal) {
  TempDir tmp;
  const std::string path = tmp.write("arm.csv", four_dof_path(600));
  const RunResult r = run_tool(tmp, four_dof_args(path));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  const RunResult forced =
      run_tool(tmp, four_dof_args(path) + std::vector<std::string>{"--progress"});
  EXPECT_NE(forced.err.find("100% 600 states"), std::string::npos) << forced.err;
}

}  // namespace
