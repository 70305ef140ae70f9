#!/usr/bin/env bash
# The installed package is the product: installs libgjk static and shared into temporary
# prefixes and, against each,
#   - builds examples/snippets (a separate consumer project: find_package(libgjk CONFIG) with
#     libgjk::gjk, libgjk::robots, libgjk::planner) and runs its programs on the Panda from
#     ../shared/robot-models (or $GJK_SHARED_ROBOT_MODELS), one of which checks the Panda's
#     clearance to a box against an independent value;
#   - runs the installed tools from the prefix (gjk-query --help, gjk-clearance on the installed
#     four_dof data, found through <prefix>/share/libgjk);
#   - compiles and links a tiny program with pkg-config --cflags --libs libgjk;
#   - static only: imports the installed Python package (lib/python3/dist-packages) and runs a
#     query (the shared build leaves the package out: its pybind11 units are about half of that
#     build's time, and the static install already checks the installed package);
#   - shared only: checks each library's SONAME (libNAME.so.MAJOR) with readelf.
# Usage: scripts/check-install.sh [--no-deps] [--static-build DIR]
#   --static-build DIR  install the static package from an existing static build tree (the
#                       README's build/, as CI does) instead of configuring a fresh one
# (keeps CCACHE settings from the environment)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
deps=1
static_build=""
while (($#)); do
  case "$1" in
    --no-deps) deps=0; shift ;;
    --static-build) static_build="$2"; shift 2 ;;
    -h | --help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "check-install: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if ((deps)); then bash scripts/install-deps.sh; fi
if [[ -n $static_build ]]; then
  cache="$static_build/CMakeCache.txt"
  [[ -f $cache ]] || { echo "check-install: --static-build $static_build: no CMakeCache.txt there" >&2; exit 2; }
  if grep -q '^BUILD_SHARED_LIBS:BOOL=ON' "$cache"; then
    echo "check-install: --static-build $static_build is a shared build (BUILD_SHARED_LIBS=ON)" >&2
    exit 2
  fi
fi
models=${GJK_SHARED_ROBOT_MODELS:-$root/../shared/robot-models}
models=$(cd "$models" && pwd)
panda="$models/panda/panda.urdf"
[[ -f "$panda" ]] || { echo "check-install: no Panda at $panda (set GJK_SHARED_ROBOT_MODELS)" >&2; exit 1; }
jobs=$(nproc)
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
major=$(sed -n 's/^project(libgjk VERSION \([0-9]*\)\..*/\1/p' CMakeLists.txt)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { echo "check-install [$kind]: $*"; }

for kind in static shared; do
  shared=OFF
  [[ $kind == shared ]] && shared=ON
  prefix="$work/prefix-$kind"
  if [[ $kind == static && -n $static_build ]]; then
    step "install $static_build into $prefix"
    cmake --build "$static_build" -j "$jobs" >/dev/null
    cmake --install "$static_build" --prefix "$prefix" >/dev/null
  else
    step "build and install into $prefix"
    cmake -S . -B "$work/build-$kind" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=$shared \
      -DGJK_BUILD_TESTS=OFF -DGJK_BUILD_BENCH=OFF -DGJK_BUILD_PYTHON=OFF \
      -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" \
      -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
    cmake --build "$work/build-$kind" -j "$jobs" >/dev/null
    cmake --install "$work/build-$kind" >/dev/null
  fi

  step "consumer project examples/snippets"
  cmake -S examples/snippets -B "$work/snippets-$kind" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
  cmake --build "$work/snippets-$kind" -j "$jobs" >/dev/null
  s="$work/snippets-$kind"
  "$s/engine_ten_lines"
  "$s/robots_ten_lines" "$panda" "$prefix/share/libgjk/robots/scenes/panda_boxes.yaml"
  "$s/panda_box_clearance" "$panda"
  "$s/planning_with_ompl" "$panda" "$prefix/share/libgjk/robots/scenes/panda_boxes.yaml"
  "$s/collision_world" "$panda" "$models/panda/panda.srdf" "$prefix/share/libgjk/robots/scenes/panda_cell.yaml"

  step "installed tools"
  "$prefix/bin/gjk-query" --help >/dev/null
  data="$prefix/share/libgjk/robots"
  printf '0 1.5708 -2.618 -0.5236\n0 1.2 1.9 1.0\n' >"$work/path.txt"
  (cd "$work" && "$prefix/bin/gjk-clearance" --urdf "$data/models/four_dof/four_dof_arm.urdf" \
    --scene "$data/scenes/two_pyramids.yaml" --path "$work/path.txt" --threads 1 \
    --html "$work/replay.html")
  grep -q '"three":"data:text/javascript;base64,' "$work/replay.html"  # the replay page, three.js inlined
  "$prefix/bin/gjk-srdf" --urdf "$data/models/four_dof/four_dof_arm.urdf" --samples 200 >"$work/four_dof.srdf"
  grep -q "<disable_collisions" "$work/four_dof.srdf"
  for tool in gjk-clearance gjk-plan gjk-srdf four_dof_pyramids; do
    "$prefix/bin/$tool" --help >/dev/null
  done
  # The example's pictures come from the installed scripts (plots, and the replay snapshot by
  # headless Chromium: share/libgjk/scripts/replay_screenshot.py).
  "$prefix/bin/four_dof_pyramids" --no-compare -o "$work/example-$kind" >/dev/null
  test -s "$work/example-$kind/four_dof_frames.png"

  if [[ $kind == static ]]; then
  step "Python package from <prefix>/lib/python3/dist-packages"
  (cd "$work" && PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c '
import numpy as np, libgjk
assert libgjk.__file__.startswith("'"$prefix"'"), libgjk.__file__
d = libgjk.distance(libgjk.Box([1, 1, 1]), np.eye(4), libgjk.Sphere(0.5), libgjk.pose([3, 0, 0]))
assert d.distance == 1.5, d
print("  libgjk", libgjk.__version__, "from", libgjk.__file__, "distance", d.distance)
from libgjk import planner, robots
panda = robots.RobotModel.from_urdf("'"$panda"'")
world = robots.CollisionWorld(panda, robots.load_scene("'"$prefix"'/share/libgjk/robots/scenes/panda_boxes.yaml"))
q = (panda.lower_limits + panda.upper_limits) / 2
print("  libgjk.robots:", panda, "closest", world.closest(q).label_a, "/", world.closest(q).name_b)')
  fi

  step "pkg-config libgjk"
  cat >"$work/pc.cpp" <<'CPP'
#include <gjk/gjk.hpp>
#include <gjk/version.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
int main() {
  gjk::Pose a = gjk::Pose::Identity(), b = gjk::Pose::Identity();
  b.translation() = gjk::Vec3(3, 0, 0);
  const auto d = gjk::distance(gjk::Box{gjk::Vec3(1, 1, 1)}, a, gjk::Sphere{0.5}, b);
  std::printf("pkg-config consumer: libgjk %s, distance %.6f\n", gjk::version(), d.distance);
  return std::abs(d.distance - 1.5) < 1e-12 && std::strcmp(gjk::version(), GJK_VERSION_STRING) == 0 ? 0 : 1;
}
CPP
  pcflags=()
  [[ $kind == static ]] && pcflags=(--static)
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  # shellcheck disable=SC2046  # pkg-config's output is a list of words
  g++ -std=c++17 "$work/pc.cpp" -o "$work/pc-$kind" $(pkg-config "${pcflags[@]}" --cflags --libs libgjk) \
    -Wl,-rpath,"$prefix/lib"
  "$work/pc-$kind"
  for pc in libgjk-robots libgjk-planner; do pkg-config "${pcflags[@]}" --exists --print-errors "$pc"; done

  if [[ $kind == shared ]]; then
    step "SONAMEs"
    for lib in gjk gjk_robots gjk_planner gjk_analysis; do
      soname=$(readelf -d "$prefix/lib/lib$lib.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
      [[ "$soname" == "lib$lib.so.$major" ]] || { echo "check-install: lib$lib.so has SONAME '$soname', expected lib$lib.so.$major" >&2; exit 1; }
      echo "  lib$lib.so: SONAME $soname"
    done
  fi
done
echo "check-install: static and shared packages OK"
