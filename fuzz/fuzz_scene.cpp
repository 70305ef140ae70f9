// Fuzz target: YAML text -> parse_scene. Only SceneError may escape; a scene that loads has
// valid shapes (gjk::validate) and finite, proper poses.
#include "fuzz_common.hpp"

#include <gjk/robots/scene.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const gjk::robots::Scene scene = gjk::robots::parse_scene(text, "fuzz.yaml", GJK_FUZZ_MESH_DIR);
    for (const auto& o : scene.obstacles) {
      FUZZ_CHECK(!o.name.empty(), "obstacle without a name");
      try {
        gjk::validate(o.shape);
      } catch (const std::exception& e) {
        FUZZ_CHECK(false, "obstacle '%s' loaded with an invalid shape: %s", o.name.c_str(),
                   e.what());
      }
      FUZZ_CHECK(o.pose.matrix().allFinite(), "obstacle '%s': pose not finite", o.name.c_str());
      const double orthonormality =
          (o.pose.linear().transpose() * o.pose.linear() - Eigen::Matrix3d::Identity())
              .cwiseAbs()
              .maxCoeff();
      FUZZ_CHECK(orthonormality < 1e-9 && o.pose.linear().determinant() > 0.0,
                 "obstacle '%s': rotation not proper (%g)", o.name.c_str(), orthonormality);
    }
  } catch (const gjk::robots::SceneError&) {
    // The documented failure.
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "undocumented exception escaped: %s", e.what());
  }
  return 0;
}
