#!/usr/bin/env bash
# Builds libgjk and runs the main example: the 4-DOF arm of seed 002 section 4.4 avoiding two
# pyramids (examples/four_dof_pyramids). Usage: scripts/run-example.sh [OUT_DIR] [example options]
# CSVs and PNG plots go to OUT_DIR (default out/); `--help` lists the example's options.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target four_dof_pyramids
out="out"
if [[ $# -gt 0 && "$1" != -* ]]; then out="$1"; shift; fi
./build/examples/four_dof_pyramids --out "$out" "$@"
