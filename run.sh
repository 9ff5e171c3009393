#!/usr/bin/env bash
# ./run.sh [DECK [heptane run options]]: builds if needed, then solves DECK (default
# inputs/demo.yaml) with `heptane run`: a report on stdout, the result in the deck's
# output.file (demo.h5 + demo.xmf for the demo) in the current folder, or -o OUT.h5.
# Relative paths are taken from where you call it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$root/scripts/bootstrap.sh"
deck="${1:-$root/inputs/demo.yaml}"
(($#)) && shift
build="${HEPTANE_BUILD_DIR:-build}"
[[ "$build" = /* ]] || build="$root/$build"
exec "$build/app/heptane" run "$deck" "$@"
