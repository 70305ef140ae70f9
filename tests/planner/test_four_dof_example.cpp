// The main example (seed 002 section 4.4): with avoidance (k = -1) the arm keeps clear of both
// pyramids and tracks the path; without it (k = 0) a link hits a pyramid. Also the program end
// to end: its CSVs and plots.
#include "scenario.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using gjk::examples::FourDofScenario;
namespace fs = std::filesystem;

namespace {

// Bounds stated in the README and the closing note (measured: clearance 0.424 m, tracking error
// 2.2e-4 m at dt = 1 ms; the k = 0 run penetrates 5.8 cm).
constexpr double kMinClearance = 0.3;
constexpr double kMaxTrackingError = 1e-3;

const FourDofScenario& scenario() {
  static const FourDofScenario s = FourDofScenario::load();
  return s;
}

}  // namespace

TEST(FourDofExample, StartsAtTheSeedsPose) {
  EXPECT_NEAR(scenario().x0.x(), 0.0, 1e-12);
  EXPECT_NEAR(scenario().x0.y(), -0.0803848, 1e-6);  // the seed's "destination" (0, -0.0804, 2.3)
  EXPECT_NEAR(scenario().x0.z(), 2.3, 1e-12);
}

TEST(FourDofExample, AvoidanceKeepsClearAndTracks) {
  const auto r = scenario().run(-1.0, 1e-3, 0.0, 100);
  EXPECT_FALSE(r.collided);
  EXPECT_GT(r.min_clearance, kMinClearance);
  EXPECT_LT(r.max_tracking_error, kMaxTrackingError);
  const auto& last = r.samples.back();
  EXPECT_NEAR(last.t, FourDofScenario::kEndTime, 1e-9);
  EXPECT_LT((last.end_effector - gjk::Vec3(0, -0.0803848 - 0.67, 3.3)).norm(), kMaxTrackingError);
  // Both pyramids shape the motion: each comes within d0 of some link.
  const size_t obstacles = scenario().scene.obstacles.size();
  for (size_t o = 0; o < obstacles; ++o) {
    double closest = 1e9;
    for (const auto& s : r.samples) {
      for (size_t l = 0; l * obstacles + o < s.link_obstacle_distance.size(); ++l)
        closest = std::min(closest, s.link_obstacle_distance[l * obstacles + o]);
    }
    EXPECT_LT(closest, 0.5) << scenario().scene.obstacles[o].name;
  }
}

TEST(FourDofExample, EngineVariantsOfFig15GiveTheSameMotion) {
  // The program's seed 002 Fig. 15 comparison times the same run with hill climbing and the warm
  // start switched on and off: the motion must not change (10 ms steps: 1,671 configurations).
  gjk::planner::VelocityInversionOptions reference_options = scenario().options(-1.0, 0.0);
  reference_options.query.support = gjk::SupportMethod::BruteForce;
  reference_options.warm_start = false;
  const auto reference = scenario().run(reference_options, 1e-2, 1);
  for (const auto support : {gjk::SupportMethod::BruteForce, gjk::SupportMethod::HillClimbing})
    for (const bool warm : {false, true}) {
      gjk::planner::VelocityInversionOptions o = scenario().options(-1.0, 0.0);
      o.query.support = support;
      o.warm_start = warm;
      const auto r = scenario().run(o, 1e-2, 1);
      ASSERT_EQ(r.samples.size(), reference.samples.size());
      double worst = 0.0;
      for (size_t i = 0; i < r.samples.size(); ++i)
        worst = std::max(worst, (r.samples[i].q - reference.samples[i].q).cwiseAbs().maxCoeff());
      EXPECT_LT(worst, 1e-9) << "support " << static_cast<int>(support) << ", warm " << warm;
      EXPECT_NEAR(r.min_clearance, reference.min_clearance, 1e-12);
    }
}

TEST(FourDofExample, WithoutAvoidanceALinkHitsAPyramid) {
  const auto r = scenario().run(0.0, 1e-3, 0.0, 100);
  EXPECT_TRUE(r.collided);
  EXPECT_LT(r.min_clearance, -0.02);                   // a real collision, not a graze
  EXPECT_LT(r.max_tracking_error, kMaxTrackingError);  // same path, same tracking
}

TEST(FourDofExample, ClosedLoopGainAlsoAvoids) {
  const auto r = scenario().run(-1.0, 1e-3, 10.0, 1000);
  EXPECT_FALSE(r.collided);
  EXPECT_GT(r.min_clearance, kMinClearance);
  EXPECT_LT(r.max_tracking_error, kMaxTrackingError);
}

TEST(FourDofExample, ProgramWritesCsvsAndPlots) {
  const fs::path out = fs::temp_directory_path() / ("gjk_four_dof_" + std::to_string(::getpid()));
  fs::remove_all(out);
  // The pictures need matplotlib, and headless Chromium for four_dof_frames.png (the replay).
  const bool plots =
      std::system("/usr/bin/python3 -c 'import matplotlib, selenium, PIL' 2>/dev/null") == 0 &&
      fs::exists("/usr/bin/chromium") && fs::exists("/usr/bin/chromedriver");
  const std::string command = std::string(GJK_FOUR_DOF_EXAMPLE) + " -o '" + out.string() + "'" +
                              (plots ? "" : " --no-plots") + " > '" + out.string() + ".log' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream log(out.string() + ".log");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_NE(text.str().find("collision-free"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("COLLIDES"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("% of it in distance queries"), std::string::npos) << text.str();
  for (const char* variant :
       {"original GJK (every vertex scanned, cold start)", "hill climbing, cold start",
        "every vertex scanned, warm start", "hill climbing and warm start"})
    EXPECT_NE(text.str().find(variant), std::string::npos) << variant << '\n' << text.str();

  std::ifstream csv(out / "four_dof_k-1.csv");
  ASSERT_TRUE(csv) << (out / "four_dof_k-1.csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("t,joint1,joint2,joint3,joint4,ee_x,ee_y,ee_z,", 0), 0u) << header;
  EXPECT_NE(header.find("d_link3_pyramid_low"), std::string::npos);
  EXPECT_NE(header.find("tracking_error"), std::string::npos);
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 1671);  // every 10 ms over 16.7 s, both ends
  EXPECT_TRUE(fs::exists(out / "four_dof_k0.csv"));
  EXPECT_FALSE(fs::exists(out / ".four_dof_frames.html"));  // the snapshot's page is removed
  if (plots) {
    for (const char* png : {"four_dof_clearance.png", "four_dof_frames.png", "four_dof_joints.png"})
      EXPECT_GT(fs::file_size(out / png), 10000u) << png;
  }
  fs::remove_all(out);
  fs::remove(out.string() + ".log");
}

TEST(FourDofExample, ProgramReportsBadInput) {
  const std::string command =
      std::string(GJK_FOUR_DOF_EXAMPLE) +
      " --no-plots -o /tmp --scene /nonexistent/scene.yaml > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 3);  // input error (tools/common/exit_codes.hpp)
}
