#!/usr/bin/env bash
# Installs the Debian packages libgjk needs to build and test, plus any packages given as
# arguments (scripts/fuzz.sh passes its toolchain). Idempotent: does nothing when everything is
# present, so the README commands and CI can call it every time.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libeigen3-dev libqhull-dev          # engine
  nlohmann-json3-dev libcli11-dev     # gjk-query
  libgtest-dev libbenchmark-dev       # tests, benchmarks
  clang-format                        # style check in CI
  libfcl-dev libccd-dev libbullet-dev libbox2d-dev  # peers in the benchmark
  liburdfdom-dev libassimp-dev libyaml-cpp-dev      # robots: URDF, meshes, scenes
  libtinyxml2-dev libconsole-bridge-dev             # robots: URDF cross-check, urdfdom's log
  liboctomap-dev                      # robots: OctoMap obstacles, point-cloud voxels
  libompl-dev libboost-serialization-dev libboost-filesystem-dev libboost-system-dev
  libode-dev                          # planner: OMPL 1.5 (its CMake config links these)
  python3-matplotlib                  # example plots (run with /usr/bin/python3)
  pybind11-dev python3-dev python3-numpy python3-pytest python3-hypothesis  # Python package
  python3-distributed python3-h5py python3-tqdm  # libgjk.analysis: dask scale-out, HDF5, progress
  chromium chromium-driver python3-selenium python3-pil  # the --html replay pages' browser tests
  locales                             # de_DE.UTF-8 for the decimal-comma locale tests
  "$@"
)

# three.js comes from npm (install_three below): Debian's nodejs and npm, unless a Node.js with
# npm is there already (NodeSource's nodejs bundles npm and conflicts with Debian's npm).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

# The tests load scenes, URDFs and paths under a decimal-comma locale (numbers must not follow
# it); generate that locale once.
generate_locale() {
  if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
    echo "install-deps: generating the de_DE.UTF-8 locale" >&2
    "${sudo_cmd[@]}" localedef -i de_DE -f UTF-8 de_DE.UTF-8
  fi
}

# three.js for the --html replay pages, at the version replay/js/package-lock.json pins, into
# replay/js/node_modules (git-ignored; the build embeds it). npm comes with Node.js.
install_three() {
  local js wanted have
  js="$(cd "$(dirname "${BASH_SOURCE[0]}")/../replay/js" && pwd)"
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "install-deps: node and npm are needed for three.js (replay pages): install Node.js" >&2
    exit 1
  fi
  wanted=$(node -p "require('$js/package-lock.json').packages['node_modules/three'].version")
  have=$(node -p "try { require('$js/node_modules/three/package.json').version } catch { '' }")
  if [[ $have != "$wanted" ]]; then
    echo "install-deps: installing three.js $wanted (npm ci in $js)" >&2
    npm ci --prefix "$js" --no-audit --no-fund --loglevel=error >&2
  fi
}

if ((${#missing[@]} == 0)); then
  generate_locale
  install_three
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
generate_locale
install_three
