#!/usr/bin/env bash
# The cost of inactive cells kept as identity rows (issue 20): a two_phase system (lognormal
# field, an injector and a producer in opposite corners of the active cells, BiCGStab with
# point-block Jacobi) on an N^3 grid three ways, `heptane run` each, time per iteration from
# its report (the iteration counts differ: the fields and the flow differ):
#   all    : every cell active;
#   actnum : grid.eclipse's ACTNUM 0 on the first 30% of the i planes (identity rows);
#   removed: the active cells alone, the (N - cut) x N x N grid.
# actnum / removed is what keeping the structured layout costs per iteration (1.0: nothing;
# 1 / 0.70: the identity rows cost as much as active ones); all / actnum, what they save.
#   usage: scripts/actnum_cost.sh [N] [--backend cpu|gpu] [other run options]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
heptane="${HEPTANE:-$root/build/app/heptane}"
n="${1:-64}"
shift || true
cut=$(( (3 * n + 5) / 10 ))
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
deck() {  # deck NAME NX FIRST_ACTIVE_I [ECLIPSE-FILE]: wells in the active region's corners
  local nx=$2 i0=$3
  {
    echo "title: actnum cost $1"
    echo "units: metric"
    echo "grid: {dims: [$nx, $n, $n], cell_size: [10, 10, 2], depth: 2000$( [[ -n "${4:-}" ]] && echo ", eclipse: $4")}"
    echo "rock: {permeability: {kind: lognormal, mean: 100, sigma: 1, seed: 5, kv_kh: 0.1}, porosity: 0.2}"
    echo "fluid: {model: two_phase}"
    echo "wells:"
    echo "  - {name: I, type: injector, column: [$i0, 0], control: {kind: rate, value: 100}}"
    echo "  - {name: P, type: producer, column: [$((nx - 1)), $((n - 1))], control: {kind: bhp, value: 150}}"
    echo "initial: {pressure: 200, datum_depth: 2000, water_saturation: 0.2}"
    echo "timestep: {dt: 1}"
    echo "solver: {method: bicgstab, preconditioner: point_block_jacobi, tolerance: 1.0e-8, max_iterations: 5000}"
    echo "output: {file: $1.h5}"
  } >"$work/$1.yaml"
}
printf 'ACTNUM\n %d*1 /\nEQUALS\n ACTNUM 0 1 %d 1 %d 1 %d /\n/\n' $((n * n * n)) "$cut" "$n" "$n" >"$work/actnum.grdecl"
deck all "$n" 0
deck actnum "$n" "$cut" actnum.grdecl
deck removed $((n - cut)) 0
echo "grid ${n}^3, K = 2: i planes 1..$cut inactive ($(( 100 * cut / n ))% of the cells)"
for name in all actnum removed; do
  for rep in 1 2 3; do
    report=$("$heptane" run "$work/$name.yaml" -o "$work/$name.h5" "$@" 2>/dev/null || true)
    echo "$name rep $rep: $(grep -E "result" <<<"$report" | sed "s/^ *//") | $(grep -E "ms / iteration" <<<"$report" | sed "s/^ *//")"
  done
done
