#!/usr/bin/env bash
# Installs libgjk into a temporary prefix and builds a tiny consumer with
# find_package(libgjk CONFIG) + libgjk::gjk, to keep the exported CMake package working.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S . -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DGJK_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --build "$work/build" -j "$(nproc)" >/dev/null
cmake --install "$work/build" >/dev/null
mkdir -p "$work/consumer"
cat >"$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer CXX)
find_package(libgjk CONFIG REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE libgjk::gjk)
CMAKE
cat >"$work/consumer/main.cpp" <<'CPP'
#include <gjk/gjk.hpp>
#include <cmath>
#include <cstdio>
int main() {
  gjk::Pose a = gjk::Pose::Identity(), b = gjk::Pose::Identity();
  b.translation() = gjk::Vec3(3, 0, 0);
  const auto d = gjk::distance(gjk::Box{gjk::Vec3(1, 1, 1)}, a, gjk::Sphere{0.5}, b);
  std::printf("consumer: distance %.6f\n", d.distance);
  return std::abs(d.distance - 1.5) < 1e-12 ? 0 : 1;
}
CPP
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$work/consumer/build/consumer"
echo "check-install: find_package(libgjk CONFIG) + libgjk::gjk OK"
