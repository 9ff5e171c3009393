#!/usr/bin/env bash
# ./run.sh [DECK [args]]: builds if needed, then runs heptane on DECK (default
# inputs/demo.yaml). Relative paths are taken from where you call it.
# This version builds and reports the deck's GH system (heptane info); the solvers and
# `heptane run` come with the CPU-solver issue.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$root/scripts/bootstrap.sh"
deck="${1:-$root/inputs/demo.yaml}"
(($#)) && shift
build="${HEPTANE_BUILD_DIR:-build}"
[[ "$build" = /* ]] || build="$root/$build"
exec "$build/app/heptane" info "$deck" "$@"
