#!/usr/bin/env bash
# ./run.sh [DECK [options]]: builds if needed, then runs DECK (default inputs/five_spot.yaml):
# `heptane simulate` for a deck with a schedule section, `heptane run` (one linear solve)
# otherwise. A report on stdout, the result in the deck's output.file (five_spot.h5 +
# five_spot.xmf for the default) in the current folder, or -o OUT.h5. Relative paths are
# taken from where you call it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$root/scripts/bootstrap.sh"
deck="${1:-$root/inputs/five_spot.yaml}"
(($#)) && shift
build="${HEPTANE_BUILD_DIR:-build}"
[[ "$build" = /* ]] || build="$root/$build"
command=run
grep -q '^schedule:' "$deck" 2>/dev/null && command=simulate
exec "$build/app/heptane" "$command" "$deck" "$@"
