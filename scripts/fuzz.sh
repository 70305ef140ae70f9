#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, -DGJK_BUILD_FUZZ=ON, clang-14) in build-fuzz/ and runs
# each for N seconds on a copy of its seed corpus (fuzz/corpus/<target>/), with a fixed seed.
# Fails when any target reports a crash, a property failure, a leak or a timeout.
# Usage: scripts/fuzz.sh [--seconds N] [--target NAME] [--jobs J] [--build-dir DIR]
#   --jobs J         build jobs, and targets fuzzed at a time, each on one core (default: nproc)
#   --build-dir DIR  use the targets of an existing GJK_BUILD_FUZZ build, e.g. build-asan/ made
#                    by scripts/test.sh --sanitize (as CI does), instead of building build-fuzz/
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
targets=(fuzz_queries fuzz_query_cli fuzz_urdf fuzz_scene)
jobs=$(nproc)
build_dir=""
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --target) targets=("$2"); shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    -h | --help) sed -n 2,8p "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# The fuzzer toolchain is only needed here, so it is installed here, not for every build:
# clang-14 and libclang-rt-14-dev (libFuzzer and the sanitizer runtimes), idempotently.
bash scripts/install-deps.sh clang-14 libclang-rt-14-dev libconsole-bridge-dev

if [[ -n $build_dir ]]; then
  if ! grep -q '^GJK_BUILD_FUZZ:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
    echo "fuzz.sh: --build-dir $build_dir: not a build configured with GJK_BUILD_FUZZ=ON" >&2
    exit 2
  fi
else
  build_dir=build-fuzz
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DGJK_BUILD_FUZZ=ON \
    -DGJK_BUILD_TESTS=OFF -DGJK_BUILD_BENCH=OFF -DGJK_BUILD_EXAMPLES=OFF >/dev/null
fi
build_dir=$(cd "$build_dir" && pwd)
nice -n 10 cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# fuzz_urdf copies meshes into a temporary dir; a target that dies skips its cleanup, so keep
# such dirs inside the work dir that the trap removes.
export TMPDIR="$work"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp"
# Each target runs on one core, up to --jobs at a time (one after another left a core idle).
run_target() {
  local t=$1 status=0 extra=()
  # A copy of the seeds: libFuzzer adds what it finds to the corpus directory it is given.
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  cp fuzz/corpus/"$t"/* "$work/$t/corpus/"
  # The text targets get long inputs (issue 15: hostile input beyond libFuzzer's default 4 KB)
  # and a dictionary of their format's tokens.
  if [[ $t != fuzz_queries ]]; then extra+=(-max_len=1048576); fi
  if [[ -f fuzz/dict/$t.dict ]]; then extra+=(-dict="$PWD/fuzz/dict/$t.dict"); fi
  (cd "$work/$t" && nice -n 10 "$build_dir/fuzz/$t" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -seed=1 -print_final_stats=1 "${extra[@]}" \
    -artifact_prefix="$work/$t/artifacts/" corpus >"$work/$t/log" 2>&1) || status=$?
  echo "$status" >"$work/$t/status"
}
running=0
for t in "${targets[@]}"; do
  echo "== $t: ${seconds}s =="
  if ((running >= jobs)); then
    wait -n || true  # a target's status is in its status file
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true
failed=()
for t in "${targets[@]}"; do
  status=$(cat "$work/$t/status" 2>/dev/null || echo "?")
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t/log" | tail -n 1)
  echo "$t: ${executions:-?} executions (${rate:-?}/s), exit status $status"
  if [[ $status != 0 ]]; then
    failed+=("$t")
    # The report (property message or sanitizer trace) and the input that triggered it.
    grep -E -A 30 'PROPERTY FAILED|ERROR: |==[0-9]+==|runtime error|Test unit written' \
      "$work/$t/log" | head -n 80 || tail -n 60 "$work/$t/log"
    mkdir -p "$build_dir/artifacts"
    cp "$work/$t/artifacts/"* "$build_dir/artifacts/" 2>/dev/null || true
    echo "$t: reproducer(s) copied to $build_dir/artifacts/; rerun with $build_dir/fuzz/$t FILE"
  fi
done
if ((${#failed[@]})); then
  echo "fuzz.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: all targets ran ${seconds}s without findings"
