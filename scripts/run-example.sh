#!/usr/bin/env bash
# Builds libgjk and runs the main example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target two_shapes
./build/examples/two_shapes
