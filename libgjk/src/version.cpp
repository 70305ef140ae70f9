#include "gjk/version.hpp"

namespace gjk {

// Compiled into the library, so a program sees the version of the libgjk it actually runs with.
const char* version() noexcept {
  return GJK_VERSION_STRING;
}

}  // namespace gjk
