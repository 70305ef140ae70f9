#pragma once
// Where the tools and examples find the data they ship with (robots/models/four_dof,
// robots/scenes/*.yaml, scripts/plot_*.py). Installed, that is <prefix>/share/libgjk beside
// <prefix>/bin, found from the executable's own path so a relocated prefix still works; run from
// the build tree, the source tree (GJK_SOURCE_DIR, set by CMake), which has the same layout.
#include <filesystem>
#include <string>
#include <system_error>

#ifndef GJK_SOURCE_DIR
#error "GJK_SOURCE_DIR must name the source tree (set by tools/CMakeLists.txt)"
#endif

namespace gjk::tools {

// The data root: "<exe dir>/../share/libgjk" when it exists, else the source tree. Paths below it
// are "robots/models/...", "robots/scenes/...", "scripts/...".
inline std::string data_dir() {
  std::error_code ec;
  // /proc/self/exe: the running executable whatever argv[0] or the working directory say.
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path() / ".." / "share" / "libgjk";
    if (std::filesystem::is_directory(installed / "robots", ec)) {
      const std::filesystem::path canonical = std::filesystem::weakly_canonical(installed, ec);
      return ec ? installed.string() : canonical.string();
    }
  }
  return GJK_SOURCE_DIR;
}

}  // namespace gjk::tools
