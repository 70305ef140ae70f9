#!/usr/bin/env bash
# Builds everything and runs all tests. Usage: scripts/test.sh [--sanitize | --tsan] [build-dir]
#   --sanitize   ASan + UBSan build (clang-14, -O1) of everything, all tests, in build-asan/;
#                it also builds the libFuzzer targets (scripts/fuzz.sh --build-dir build-asan)
#   --tsan       ThreadSanitizer build of the concurrency tests only (shared models used from
#                several threads: batch API, OMPL checker and validator), in build-tsan/
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=""
fuzz=""
targets=()
tests_regex=""
exclude_regex=""
case "${1:-}" in
  # The browser test drives Chromium and Python over pages the tools write; under the sanitizers
  # it only re-runs the tools (94 s), whose page writer test_replay_writer covers there.
  --sanitize) sanitize="address,undefined"; exclude_regex="^ReplayBrowserPages$"; fuzz=ON; shift ;;
  --tsan) sanitize="thread"; targets=(--target test_concurrency test_batch); tests_regex="Concurrency|Batch|Threads"; shift ;;
esac
default_dir=build
[[ $sanitize == address,undefined ]] && default_dir=build-asan
[[ $sanitize == thread ]] && default_dir=build-tsan
build_dir="${1:-$default_dir}"

# Sanitizer builds use clang-14: its instrumented compile is about twice as fast as GCC 12's
# (GCC's UBSan at -O1 is the slow part: a CLI11 tool compiles in 91 s of wall time with clang
# against 169 s with GCC, side by side), and it is the fuzzers' compiler too. The README build
# stays with the system's default compiler. (A build dir configured earlier keeps its compiler.)
if [[ -n $sanitize ]]; then
  bash scripts/install-deps.sh clang-14 libclang-rt-14-dev
  export CC=clang-14 CXX=clang++-14
else
  bash scripts/install-deps.sh
fi

# Sanitizer builds skip the benchmark binary (peers' code, minutes of build time); its smoke run
# is part of the normal build's tests. The ASan build also makes the fuzz targets, with the
# fuzzer's coverage on libgjk and robots only: CI fuzzes with them rather than compiling
# the libraries a second time.
# The Python package builds and tests against Debian's interpreter, whose NumPy and pytest
# install-deps.sh installed (another python3 may come first on PATH). Sanitizer builds leave the
# package out (see GJK_BUILD_PYTHON in CMakeLists.txt).
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DGJK_WARNINGS_AS_ERRORS=ON \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  ${sanitize:+-DGJK_SANITIZE=$sanitize -DGJK_BUILD_BENCH=OFF} ${fuzz:+-DGJK_BUILD_FUZZ=ON} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Under the sanitizers the random-pairs test looks for memory and UB errors, not for rare
# geometry: 3,000 pairs instead of 10,200 (it was the longest test there, 130 s).
# The other long brute-force tests (meshes, cells, hull references) run a fifth of their cases
# for the same reason (GJK_TEST_CASE_FRACTION, tests/libgjk/support/datasets.hpp). A tenth is too
# few under clang: the mesh tests' class counts (touching, apart) then fall below their minimums.
if [[ -n $sanitize ]]; then export GJK_RANDOM_PAIRS_PER_CLASS=1000 GJK_TEST_CASE_FRACTION=0.2; fi
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" ${tests_regex:+-R "$tests_regex"} \
  ${exclude_regex:+-E "$exclude_regex"}
