// Hostile input for gjk-plan and four_dof_pyramids, run as users run them (issue 15 items 1, 6,
// 13; issue 16 "No shell", exit codes, joint order, plan -> clearance pipeline). Each row: the
// arguments, the expected exit code (tools/common/exit_codes.hpp), a fragment the message must
// hold, and no output file left behind on failure.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  int signal = 0;
  std::string out, err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A fresh working folder per test.
class WorkDir {
 public:
  WorkDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("gjk_hostile_plan_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& path() const { return dir_; }
  /// Every file and folder below the working folder, except the captured streams.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      const std::string name = fs::relative(e.path(), dir_).string();
      if (name != ".stdout" && name != ".stderr") names.push_back(name);
    }
    return names;
  }

 private:
  fs::path dir_;
};

/// Runs `program` with `args` in `cwd`, without a shell; stdout and stderr captured in files.
RunResult run(const std::string& program, const std::vector<std::string>& args,
              const fs::path& cwd) {
  const std::string out_path = (cwd / ".stdout").string(), err_path = (cwd / ".stderr").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> argv_strings = {program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  RunResult r;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << program;
    return r;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}

struct Case {
  std::vector<std::string> args;
  int exit_code;
  std::string message;  ///< a fragment of stderr
};

void expect_case(const std::string& program, const Case& c) {
  WorkDir work;
  std::string shown;
  for (const auto& a : c.args) shown += " " + a;
  const RunResult r = run(program, c.args, work.path());
  EXPECT_EQ(r.signal, 0) << shown;
  EXPECT_EQ(r.exit_code, c.exit_code) << shown << "\nstderr: " << r.err;
  EXPECT_NE(r.err.find(c.message), std::string::npos)
      << shown << "\nexpected in stderr: " << c.message << "\nstderr: " << r.err;
  // A failed run leaves no output file (an empty output folder may remain).
  for (const std::string& entry : work.entries())
    EXPECT_TRUE(fs::is_directory(work.path() / entry)) << shown << " left " << entry;
}

// A four_dof configuration inside pyramid_low: the k = 0 run's state at t = 7 s.
const std::string kFourDofInPyramid = "0,2.25847,-2.0655,-0.5433";

TEST(HostilePlan, BadCommandLinesAndInputsGetTheirExitCodeAndAReadableMessage) {
  const std::string dir = GJK_ROBOT_SCENES_DIR;
  const std::vector<Case> cases = {
      {{"--bogus"}, 2, "--bogus"},
      {{"--start", "0,nan,0,0", "--no-plots"}, 2, "value 2 ('nan')"},
      {{"--goal", "0,0,-inf,0", "--no-plots"}, 2, "must be finite"},
      {{"--start", "0,1e999,0,0", "--no-plots"}, 2, "must be finite"},
      {{"--start", "0,abc,0,0", "--no-plots"}, 2, "is not a number"},
      {{"--start", "0,1,2", "--no-plots"}, 2, "need 4 values"},
      {{"--start", "0,9,0,0", "--no-plots"}, 2, "joint2 = 9 is outside its limits"},
      {{"--robot", "ur5"}, 2, "expected four_dof, panda or panda_cell"},
      {{"--planner", "astar"}, 2, "--planner 'astar'"},
      {{"--time", "-1"}, 2, "--time"},
      {{"--urdf", "missing.urdf", "--no-plots"}, 3, "missing.urdf"},
      {{"--scene", "missing.yaml", "--no-plots"}, 3, "missing.yaml"},
      {{"--start", kFourDofInPyramid, "--no-plots"},
       3,
       "start is in collision: link3 / pyramid_low"},
      {{"--goal", kFourDofInPyramid, "--no-plots"}, 3, "goal is in collision"},
      {{"--margin", "0.7", "--no-plots"}, 3, "closer than the margin 0.7 m"},
      {{"--no-plots", "-o", "/proc/gjk-cannot-write-here"}, 4, "/proc/gjk-cannot-write-here"},
      {{"--base-pose", "0,0,1", "--no-plots"}, 2, "--base-pose: expected 6 values"},
      {{"--base-pose", "0,0,0,0,nan,0", "--no-plots"}, 2, "--base-pose: value 5 ('nan')"},
      {{"--html-max-frames", "-1", "--no-plots"},
       2,
       "--html-max-frames: expected a whole number >= 0, got '-1'"},
      {{"--html-max-frames", "many", "--no-plots"}, 2, "--html-max-frames"},
      {{"--max-iterations", "-1", "--no-plots"},
       2,
       "--max-iterations: expected a whole number >= 0, got '-1'"},
      // One iteration cannot go around the pyramids from a start the seeded planner cannot
      // join to the goal in one step: no path, exit 1, the message names both limits.
      {{"--max-iterations", "1", "--time", "120", "--no-plots", "--start", "0,2.5,-2.3,-1.2"},
       1,
       "no path found in 120 s or 1 iterations"},
  };
  for (const Case& c : cases) expect_case(GJK_PLAN_EXE, c);
}

// The base pose moves the whole arm: a start inside a pyramid is free with the arm lifted 10 m.
TEST(HostilePlan, BasePoseLiftsTheArmOutOfThePyramids) {
  WorkDir work;
  const RunResult r =
      run(GJK_PLAN_EXE,
          {"--start", kFourDofInPyramid, "--base-pose", "0,0,10,0,0,0", "--no-plots", "-o", "out"},
          work.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("certified segments"), std::string::npos) << r.out;
}

TEST(HostilePlan, FourDofExampleOptionsAreCheckedInTheUsersTerms) {
  const std::vector<Case> cases = {
      {{"--bogus"}, 2, "--bogus"},
      {{"--dt", "100", "--no-plots"}, 2, "longer than the simulated time 16.7 s"},
      {{"--dt", "1e-9", "--no-plots"}, 2, "use a larger dt"},
      {{"--dt", "0", "--no-plots"}, 2, "--dt 0"},
      {{"--dt", "nan", "--no-plots"}, 2, "--dt"},
      {{"--gain", "inf", "--no-plots"}, 2, "--gain inf: the gain must be a finite number >= 0"},
      {{"--gain", "-1", "--no-plots"}, 2, "--gain"},
      {{"--record-ms", "0", "--no-plots"}, 2, "--record-ms"},
      {{"--urdf", "missing.urdf", "--no-plots"}, 3, "missing.urdf"},
      {{"--scene", "missing.yaml", "--no-plots"}, 3, "missing.yaml"},
      {{"--no-plots", "-o", "/proc/gjk-cannot-write-here"}, 4, "/proc/gjk-cannot-write-here"},
      {{"--html-max-frames", "-5", "--no-plots"}, 2, "expected a whole number >= 0, got '-5'"},
      {{"--html-max-frames", "2.5", "--no-plots"}, 2, "--html-max-frames"},
  };
  for (const Case& c : cases) expect_case(GJK_FOUR_DOF_EXAMPLE, c);
}

// Issue 15 item 1: the plot command used to be a shell string; this --out ran `touch PWNED`.
TEST(HostilePlan, OutputPathsAreNeverShellCode) {
  const std::string hostile = "x'; touch PWNED; echo '";
  {
    WorkDir work;
    const RunResult r = run(GJK_FOUR_DOF_EXAMPLE, {"--out", hostile}, work.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(fs::exists(work.path() / "PWNED"));
    for (const char* png : {"four_dof_clearance.png", "four_dof_frames.png", "four_dof_joints.png"})
      EXPECT_TRUE(fs::is_regular_file(work.path() / hostile / png)) << png << "\n" << r.err;
  }
  {
    WorkDir work;
    const std::string spaced = "my plans/it's here";
    const RunResult r = run(GJK_PLAN_EXE, {"--out", spaced}, work.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_regular_file(work.path() / spaced / "plan_four_dof_clearance.png")) << r.err;
    EXPECT_NE(r.out.find("wrote: " + spaced + "/plan_four_dof_path.txt"), std::string::npos)
        << r.out;
  }
}

// Issue 16: gjk-plan's Panda path feeds gjk-clearance with no hand editing. (RRTConnect stops at
// its first path, about 0.1 s; the long limit is for sanitizer builds, 20-50x slower.)
TEST(HostilePlan, PandaPlanFeedsTheClearanceAnalysis) {
  WorkDir work;
  const RunResult plan =
      run(GJK_PLAN_EXE,
          {"--robot", "panda", "--margin", "0.005", "--time", "120", "--no-plots", "-o", "out"},
          work.path());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  std::ifstream path(work.path() / "out/plan_panda_path.txt");
  std::string header;
  std::getline(path, header);
  EXPECT_EQ(header,
            "panda_joint1 panda_joint2 panda_joint3 panda_joint4 panda_joint5 panda_joint6 "
            "panda_joint7");
  const RunResult clearance =
      run(GJK_CLEARANCE_EXE,
          {"--urdf", std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf", "--scene",
           std::string(GJK_ROBOT_SCENES_DIR) + "/panda_boxes.yaml", "--path",
           "out/plan_panda_path.txt", "--fixed", "panda_finger_joint1=0.02", "--margin", "0.005",
           "--states-out", "out/states.csv"},
          work.path());
  EXPECT_EQ(clearance.exit_code, 0) << clearance.err;
  EXPECT_NE(clearance.out.find("1000 states analysed, 0 bad rows"), std::string::npos)
      << clearance.out;
}

// Issue 17: the Panda in the shelf cell (exact mesh shelf, point-cloud bin, SRDF, a grasped
// part) plans from the SRDF's "ready" state into a compartment, and gjk-clearance analyses the
// path with the same world: the held part is reported against the shelf, nothing collides.
TEST(HostilePlan, PandaCellPlanWithSrdfAndGraspedPartFeedsTheClearanceAnalysis) {
  WorkDir work;
  const RunResult plan =
      run(GJK_PLAN_EXE, {"--robot", "panda_cell", "--time", "120", "--no-plots", "-o", "out"},
          work.path());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const std::string shared = GJK_SHARED_ROBOT_MODELS_DIR;
  const RunResult clearance =
      run(GJK_CLEARANCE_EXE,
          {"--urdf", shared + "/panda/panda.urdf", "--srdf", shared + "/panda/panda.srdf",
           "--scene", std::string(GJK_ROBOT_SCENES_DIR) + "/panda_cell.yaml", "--path",
           "out/plan_panda_cell_path.txt", "--fixed", "panda_finger_joint1=0.02",
           "--fail-on-collision", "--out", "out/pairs.csv"},
          work.path());
  EXPECT_EQ(clearance.exit_code, 0) << clearance.err << clearance.out;
  EXPECT_NE(clearance.out.find("colliding states (distance < 0): 0"), std::string::npos)
      << clearance.out;
  EXPECT_NE(clearance.out.find("panda_hand / parts_bin"), std::string::npos) << clearance.out;
  // The held part is analysed as a shape of its link, against the exact shelf mesh.
  std::ifstream pairs(work.path() / "out/pairs.csv");
  std::stringstream text;
  text << pairs.rdbuf();
  EXPECT_NE(text.str().find(",panda_hand,part#0,shelf,"), std::string::npos);
}

TEST(HostilePlan, ListJointsNamesThePlannedJointsWithTheirLimits) {
  WorkDir work;
  const RunResult r = run(GJK_PLAN_EXE, {"--robot", "panda", "--list-joints"}, work.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("panda_joint1 -2.8973 2.8973\n", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("finger"), std::string::npos) << "fingers are held, not planned";
}

// Issue 16: a progress line while planning, certifying and profiling, on terminals only (the
// test's stderr is a file: silent by default, forced with --progress).
TEST(HostilePlan, ProgressLineOnlyWhenAskedOrOnATerminal) {
  WorkDir work;
  const RunResult quiet = run(GJK_PLAN_EXE, {"--no-plots", "-o", "out"}, work.path());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  const RunResult forced =
      run(GJK_PLAN_EXE, {"--no-plots", "--progress", "-o", "out"}, work.path());
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  for (const char* phase : {"planning (rrtconnect)", "certifying", "clearance profile"})
    EXPECT_NE(forced.err.find(phase), std::string::npos) << phase << "\n" << forced.err;
  // The line is erased at the end, so the summary on stdout starts on a clean line.
  EXPECT_EQ(forced.err.substr(forced.err.size() - 4), "\r\033[K");
}

}  // namespace
