#!/usr/bin/env bash
# Regenerates the stored reference solutions:
#  - reference/<deck>.<method>.h5 for bicgstab and qmr and every deck here;
#  - the cases of preconditioned.txt (CPU backend): reference/<deck>.<method>.<precond>.h5
#    (<deck>.<method>.h5 for preconditioner none: the smoothers).
# With arguments, only what they name: a deck (file name or stem: its two references and its
# cases in preconditioned.txt) or one reference (<deck>.<method>[.<precond>], e.g.
# spe10_window.bicgstab.line_jacobi):
#   tests/regression/regenerate.sh                                   # everything
#   tests/regression/regenerate.sh erratic_bicgstab                  # one new deck
#   tests/regression/regenerate.sh spe10_window.bicgstab.line_jacobi # one new case
#  - reference/simulation/<deck>.h5 for every deck in simulation/ (`heptane simulate`, CPU);
#    name one as simulation/<deck>.
# Only when a change is MEANT to change results (see README.md); say so in the commit.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."

# Every reference: "NAME DECK METHOD PRECONDITIONER [SET ...]" (PRECONDITIONER "-": the deck's).
cases=()
for deck in "$here"/*.yaml; do
  stem="$(basename "$deck" .yaml)"
  for method in bicgstab qmr; do cases+=("$stem.$method $stem $method -"); done
done
while read -r stem method precond sets; do
  [[ -z "$stem" || "$stem" == \#* ]] && continue
  name="$stem.$method"
  [[ "$precond" == none ]] || name+=".$precond"
  cases+=("$name $stem $method $precond $sets")
done <"$here/preconditioned.txt"

sim_decks=()
for deck in "$here"/simulation/*.yaml; do sim_decks+=("$(basename "$deck" .yaml)"); done

selected=()
sim_selected=()
if (($#)); then
  for arg in "$@"; do
    if [[ "$arg" == simulation/* ]]; then
      stem="$(basename "$arg" .yaml)"
      [[ -f "$here/simulation/$stem.yaml" ]] || { echo "regenerate.sh: no simulation deck $stem" >&2; exit 2; }
      sim_selected+=("$stem")
      continue
    fi
    arg="$(basename "$arg" .yaml)"
    found=0
    for c in "${cases[@]}"; do
      read -r name stem _ <<<"$c"
      if [[ "$arg" == "$name" || "$arg" == "$stem" ]]; then selected+=("$c"); found=1; fi
    done
    ((found)) || { echo "regenerate.sh: no deck or reference named $arg" >&2; exit 2; }
  done
else
  selected=("${cases[@]}")
  sim_selected=("${sim_decks[@]}")
fi

"$root/scripts/bootstrap.sh"
heptane="$root/${HEPTANE_BUILD_DIR:-build}/app/heptane"
mkdir -p "$here/reference"
for c in "${selected[@]+"${selected[@]}"}"; do
  read -r name stem method precond sets <<<"$c"
  args=(run "$here/$stem.yaml" -o "$here/reference/$name.h5" --set "solver.method=$method")
  if [[ "$precond" != - ]]; then
    args+=(--backend cpu --set "solver.preconditioner=$precond")
    for s in $sets; do args+=(--set "$s"); done
  fi
  "$heptane" "${args[@]}" | grep -E "result"
  rm -f "$here/reference/$name.xmf"
  echo "  -> $here/reference/$name.h5"
done
mkdir -p "$here/reference/simulation"
for stem in "${sim_selected[@]+"${sim_selected[@]}"}"; do
  out="$here/reference/simulation/$stem.h5"
  "$heptane" simulate "$here/simulation/$stem.yaml" -o "$out" --backend cpu | grep -E "^  run "
  rm -f "$here/reference/simulation/$stem.xmf"
  echo "  -> $out"
done
