#!/usr/bin/env bash
# Regenerates the stored reference solutions: reference/<deck>.<method>.h5 for every deck
# here and both methods. Only when a change is MEANT to change results (see README.md);
# say so in the commit.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
"$root/scripts/bootstrap.sh"
heptane="$root/${HEPTANE_BUILD_DIR:-build}/app/heptane"
mkdir -p "$here/reference"
for deck in "$here"/*.yaml; do
  stem="$(basename "$deck" .yaml)"
  for method in bicgstab qmr; do
    out="$here/reference/$stem.$method.h5"
    "$heptane" run "$deck" -o "$out" --set "solver.method=$method" | grep -E "result"
    rm -f "${out%.h5}.xmf"
    echo "  -> $out"
  done
done
