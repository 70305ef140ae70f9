#!/usr/bin/env bash
# Builds the API reference (Doxygen over the public headers) into build-docs/html and fails on
# any warning: every public class, function and member must be documented.
# Usage: scripts/docs.sh   (installs doxygen with apt-get when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh doxygen
mkdir -p build-docs
log=build-docs/doxygen-warnings.txt
if ! (cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = build-docs"; echo "WARN_LOGFILE = $log") \
  | doxygen - >/dev/null; then
  echo "docs.sh: doxygen reported warnings (treated as errors):" >&2
  cat "$log" >&2
  exit 1
fi
if [[ -s $log ]]; then
  echo "docs.sh: doxygen warnings:" >&2
  cat "$log" >&2
  exit 1
fi
echo "docs.sh: API reference in build-docs/html/index.html (no warnings)"
