#!/usr/bin/env bash
# Regenerates the stored reference solutions: reference/<deck>.<method>.h5 for both methods
# and every deck here, or only the decks named (file names or stems):
#   tests/regression/regenerate.sh                    # all decks
#   tests/regression/regenerate.sh erratic_bicgstab   # one new deck, the others untouched
# Only when a change is MEANT to change results (see README.md); say so in the commit.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
decks=()
for name in "$@"; do
  deck="$here/$(basename "$name" .yaml).yaml"
  [[ -f "$deck" ]] || { echo "regenerate.sh: no deck $deck" >&2; exit 2; }
  decks+=("$deck")
done
((${#decks[@]})) || decks=("$here"/*.yaml)
"$root/scripts/bootstrap.sh"
heptane="$root/${HEPTANE_BUILD_DIR:-build}/app/heptane"
mkdir -p "$here/reference"
for deck in "${decks[@]}"; do
  stem="$(basename "$deck" .yaml)"
  for method in bicgstab qmr; do
    out="$here/reference/$stem.$method.h5"
    "$heptane" run "$deck" -o "$out" --set "solver.method=$method" | grep -E "result"
    rm -f "${out%.h5}.xmf"
    echo "  -> $out"
  done
done
