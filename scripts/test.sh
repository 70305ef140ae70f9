#!/usr/bin/env bash
# Builds everything and runs all tests. Usage: scripts/test.sh [--sanitize] [build-dir]
#   --sanitize   ASan + UBSan build (Debug-level checks, optimised code) in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

sanitize=""
if [[ "${1:-}" == "--sanitize" ]]; then sanitize="address,undefined"; shift; fi
build_dir="${1:-$([[ -n $sanitize ]] && echo build-asan || echo build)}"

# The sanitizer build skips the benchmark binary (peers' code, minutes of build time); its
# smoke run is part of the normal build's tests.
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DGJK_WARNINGS_AS_ERRORS=ON \
  ${sanitize:+-DGJK_SANITIZE=$sanitize -DGJK_BUILD_BENCH=OFF} >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
