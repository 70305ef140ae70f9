// Fuzz target: URDF text -> RobotModel::from_urdf_string. Only ModelError (the documented
// exception) may escape; a model that loads must give finite link poses at a configuration
// inside its limits (zero clamped into the limits, and the limits' midpoint).
#include "fuzz_common.hpp"

#include <gjk/robots/robot_model.hpp>

#include <console_bridge/console.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string base_dir;  // a private copy of the 4-DOF arm's meshes: the URDFs can name them

bool finite(const gjk::Pose& pose) {
  return pose.matrix().allFinite();
}

void check_kinematics(const gjk::robots::RobotModel& model, const Eigen::VectorXd& q,
                      const char* which) {
  gjk::robots::Workspace ws(model);
  try {
    gjk::robots::forward_kinematics(model, q, ws);
  } catch (const gjk::robots::ModelError& e) {
    // Allowed only for q the model cannot take (a mimic pushing a joint out of its limits).
    return;
  }
  for (std::size_t i = 0; i < ws.link_poses.size(); ++i) {
    FUZZ_CHECK(finite(ws.link_poses[i]), "%s configuration: link %zu pose not finite", which, i);
  }
  for (int s = 0; s < static_cast<int>(model.collision_shapes().size()); ++s) {
    FUZZ_CHECK(finite(gjk::robots::collision_pose(model, ws, s)),
               "%s configuration: collision shape %d pose not finite", which, s);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_NONE);  // urdfdom's chatter
  std::string templ = (fs::temp_directory_path() / "gjk_fuzz_urdf_XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) std::abort();
  base_dir = templ;
  fs::copy(GJK_FUZZ_MESH_DIR, fs::path(base_dir) / "meshes");
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(base_dir, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  try {
    const auto model =
        gjk::robots::RobotModel::from_urdf_string(xml, base_dir, "fuzz.urdf", {base_dir});
    const Eigen::VectorXd lo = model.lower_limits(), hi = model.upper_limits();
    FUZZ_CHECK(lo.size() == model.num_positions() && hi.size() == model.num_positions(),
               "limits size");
    Eigen::VectorXd zero(model.num_positions()), mid(model.num_positions());
    for (int i = 0; i < model.num_positions(); ++i) {
      FUZZ_CHECK(!(lo[i] > hi[i]), "joint %d: lower limit %g above upper %g", i, lo[i], hi[i]);
      zero[i] = std::clamp(0.0, lo[i], hi[i]);
      // Halves first: the sum of two huge limits would overflow.
      mid[i] = std::isfinite(lo[i]) && std::isfinite(hi[i]) ? lo[i] / 2 + hi[i] / 2 : zero[i];
    }
    check_kinematics(model, zero, "zero");
    check_kinematics(model, mid, "midpoint");
  } catch (const gjk::robots::ModelError&) {
    // The documented failure.
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "undocumented exception escaped: %s", e.what());
  }
  return 0;
}
