#!/usr/bin/env bash
# ./test.sh [ctest args]: builds if needed, then runs the whole suite with ctest.
# GPU tests (label gpu) report Skipped on machines without a CUDA device.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$root/scripts/bootstrap.sh"
build="${HEPTANE_BUILD_DIR:-build}"
[[ "$build" = /* ]] || build="$root/$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" "$@"
