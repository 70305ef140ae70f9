// gjk-srdf end to end: the generated SRDF parses, holds the Panda's adjacent pairs, keeps a base
// SRDF's groups and states, is identical for the same seed, compares with MoveIt's SRDF, and bad
// input gets the documented exit codes with nothing half-written.
#include <gtest/gtest.h>

#include "gjk/robots/srdf.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace gjk::robots;

const std::string kPandaUrdf = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf";
const std::string kPandaSrdf = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.srdf";

struct ToolRun {
  int exit_code = -1;
  std::string out, err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class SrdfCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gjk_srdf_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  /// Runs gjk-srdf (no shell); stdout and stderr through files.
  ToolRun run(const std::vector<std::string>& args) const {
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> strings = {GJK_SRDF_EXE};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    ToolRun r;
    if (posix_spawn(&pid, GJK_SRDF_EXE, &actions, nullptr, argv.data(), environ) != 0) {
      posix_spawn_file_actions_destroy(&actions);
      ADD_FAILURE() << "cannot start " << GJK_SRDF_EXE;
      return r;
    }
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(SrdfCli, GeneratesAParsableSrdfThatKeepsTheBaseAndComparesWithMoveIt) {
  const RobotModel model = RobotModel::from_urdf_file(kPandaUrdf);
  const std::string out = path("panda_generated.srdf");
  const ToolRun r = run({"--urdf", kPandaUrdf, "--srdf", kPandaSrdf, "--samples", "3000", "--seed",
                         "4", "--compare", kPandaSrdf, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote: " + out), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("comparison with " + kPandaSrdf), std::string::npos) << r.out;
  const Srdf generated = load_srdf(out, model);
  const Srdf moveit = load_srdf(kPandaSrdf, model);
  // The base SRDF's semantics are kept; only disable_collisions is new.
  EXPECT_EQ(generated.groups.size(), moveit.groups.size());
  EXPECT_EQ(generated.group_states.size(), moveit.group_states.size());
  EXPECT_EQ(generated.virtual_joints.size(), moveit.virtual_joints.size());
  // Every adjacent pair is there, with MoveIt's reason.
  int adjacent = 0;
  for (const DisabledCollision& d : generated.disabled_collisions) {
    if (d.reason == "Adjacent") ++adjacent;
    if (d.link1 == "panda_link0" && d.link2 == "panda_link1") {
      EXPECT_EQ(d.reason, "Adjacent");
    }
  }
  EXPECT_GE(adjacent, 7);
  // The printed comparison counts what the two lists say.
  EXPECT_NE(r.out.find("only generated"), std::string::npos) << r.out;
  // The same seed gives the same file; stdout gets it without -o.
  const ToolRun again =
      run({"--urdf", kPandaUrdf, "--srdf", kPandaSrdf, "--samples", "3000", "--seed", "4"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, read_text(out));
}

// Exact link meshes (what MoveIt's checker uses): a link inside its hull collides no more often,
// so every pair the hulls call Never in collision stays Never.
TEST_F(SrdfCli, ExactLinkMeshesKeepEveryNeverPairOfTheHulls) {
  const RobotModel model = RobotModel::from_urdf_file(kPandaUrdf);
  const std::string hull_out = path("hull.srdf"), mesh_out = path("mesh.srdf");
  const ToolRun hull = run({"--urdf", kPandaUrdf, "--samples", "400", "-o", hull_out});
  ASSERT_EQ(hull.exit_code, 0) << hull.err;
  const ToolRun mesh =
      run({"--urdf", kPandaUrdf, "--samples", "400", "--link-meshes", "mesh", "-o", mesh_out});
  ASSERT_EQ(mesh.exit_code, 0) << mesh.err;
  const Srdf h = load_srdf(hull_out, model), m = load_srdf(mesh_out, model);
  for (const DisabledCollision& d : h.disabled_collisions) {
    if (d.reason != "Never") continue;
    EXPECT_TRUE(std::any_of(
        m.disabled_collisions.begin(), m.disabled_collisions.end(),
        [&](const DisabledCollision& x) { return x.link1 == d.link1 && x.link2 == d.link2; }))
        << d.link1 << " / " << d.link2;
  }
}

TEST_F(SrdfCli, WithoutABaseSrdfWritesAFixedVirtualJointAndTheMatrix) {
  const ToolRun r = run({"--urdf", kPandaUrdf, "--samples", "500"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RobotModel model = RobotModel::from_urdf_file(kPandaUrdf);
  const Srdf srdf = parse_srdf(r.out, model, "stdout");
  ASSERT_EQ(srdf.virtual_joints.size(), 1u);
  EXPECT_EQ(srdf.virtual_joints[0].type, "fixed");
  EXPECT_EQ(srdf.virtual_joints[0].child_link, "panda_link0");
  EXPECT_FALSE(srdf.disabled_collisions.empty());
  EXPECT_NE(r.err.find("after 500 samples"), std::string::npos) << r.err;
}

TEST_F(SrdfCli, BadInputGetsTheDocumentedExitCodesAndNoOutputFile) {
  const std::string out = path("out.srdf");
  EXPECT_EQ(run({"--urdf", path("missing.urdf"), "-o", out}).exit_code, 3);
  EXPECT_FALSE(fs::exists(out));
  std::ofstream(path("bad.srdf")) << "<robot><disable_collisions link1=\"nope\" link2=\"x\"/>";
  const ToolRun bad = run({"--urdf", kPandaUrdf, "--srdf", path("bad.srdf"), "-o", out});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("bad.srdf"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--samples", "0"}).exit_code, 2);
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--samples", "abc"}).exit_code, 2);
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--fail-on-difference"}).exit_code, 2);
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--link-meshes", "convex"}).exit_code, 2);
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--link-mesh", "panda_link3"}).exit_code, 2);
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--samples", "10", "--link-mesh", "elbow=mesh"}).exit_code,
            3);
  fs::create_directories(path("a_folder"));
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--samples", "10", "-o", path("a_folder")}).exit_code, 4);
  // A difference from the reference fails the check when asked.
  EXPECT_EQ(run({"--urdf", kPandaUrdf, "--samples", "10", "--compare", kPandaSrdf,
                 "--fail-on-difference", "-o", out})
                .exit_code,
            1);
  EXPECT_TRUE(fs::exists(out));
  // Only the output file is left in the folder: no temporary files.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.is_regular_file() && e.path().filename().string()[0] == '.') ++files;
  EXPECT_EQ(files, 0);
}

}  // namespace
