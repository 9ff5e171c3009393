#!/usr/bin/env bash
# CPR's grid-size study (issue 21: "report iterations for lognormal fields at 32^3 .. 256^3,
# target: growth under 1.5x from 64^3 to 256^3"). For each g it writes a two-phase (K = 2)
# deck of g^3 cells: a lognormal permeability field (geometric mean 100 mD, sigma 2 in ln k,
# seed 1, kv_kh 0.1), SPE10-sized cells (20 x 10 x 2 ft, so the vertical coupling is strong),
# a five-spot (a rate injector in the centre column, BHP producers in the 4 corner columns,
# the controls of inputs/demo.yaml), and runs `heptane run` on it with solver.preconditioner
# cpr (the default solver.cpr options), BiCGStab to 1e-6. One row per g:
#   g, unknowns, backend, status, iterations, setup s, solve s, true residual
# (the run report's times: setup = building the system and setting the solver up).
# A run that fails or does not converge still gets its row; the study goes on.
#
# Usage: scripts/cpr_scaling.sh [--heptane BIN] [--backend cpu|gpu|auto] [--keep DIR]
#                               [--set KEY=VALUE ...] [G ...]
#   G          grid sizes (default: 32 64 128 256)
#   --heptane  the heptane binary (default: build/app/heptane)
#   --backend  passed to every run (default: auto). The decks say gpu_kernel: multi_kernel,
#              the GPU solver that takes cpr
#   --keep     write the decks and the run logs to DIR and keep them (default: a temporary
#              folder, removed at exit)
#   --set      passed through to every run, e.g. --set solver.cpr.cycle=w
# Exit code 0 when every run converged, 1 otherwise, 2 for bad arguments.
# shellcheck disable=SC2059  # printf formats are this script's own ($fmt)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
heptane="$root/build/app/heptane"
backend="auto"
keep=""
sets=()
grids=()
usage() {  # the header comment above
  awk 'NR > 1 && /^#/ && !/shellcheck/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
    "${BASH_SOURCE[0]}" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --heptane) heptane="${2:?--heptane needs a path}"; shift 2 ;;
    --backend) backend="${2:?--backend needs cpu, gpu or auto}"; shift 2 ;;
    --keep) keep="${2:?--keep needs a folder}"; shift 2 ;;
    --set) sets+=(--set "${2:?--set needs KEY=VALUE}"); shift 2 ;;
    -h|--help) usage ;;
    [0-9]*) grids+=("$1"); shift ;;
    *) echo "cpr_scaling.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
((${#grids[@]})) || grids=(32 64 128 256)
case "$backend" in cpu|gpu|auto) ;; *) echo "cpr_scaling.sh: --backend cpu, gpu or auto" >&2; exit 2 ;; esac
for g in "${grids[@]}"; do
  if ! [[ "$g" =~ ^[0-9]+$ ]] || ((g < 4)); then
    echo "cpr_scaling.sh: grid '$g' is not an integer >= 4" >&2
    exit 2
  fi
done
[[ -x "$heptane" ]] || { echo "cpr_scaling.sh: no heptane binary at $heptane" >&2; exit 2; }
if [[ -n "$keep" ]]; then
  mkdir -p "$keep" || exit 2
  dir="$keep"
else
  dir="$(mktemp -d "${TMPDIR:-/tmp}/cpr_scaling.XXXXXX")" || exit 2
  trap 'rm -rf "$dir"' EXIT
fi

# The deck of a g^3 grid (every key: inputs/README.md).
write_deck() {  # g file
  local g=$1 c=$(($1 / 2)) e=$(($1 - 1))
  cat >"$2" <<EOF
# scripts/cpr_scaling.sh: two-phase five-spot on a ${g}^3 lognormal field
title: lognormal ${g}^3 five-spot
units: field
grid: {dims: [$g, $g, $g], cell_size: [20, 10, 2], depth: 12000}
rock:
  permeability: {kind: lognormal, mean: 100, sigma: 2, seed: 1, kv_kh: 0.1}
  porosity: 0.2
  compressibility: 1.0e-6
fluid:
  model: two_phase
  oil: {density: 53.0, viscosity: 3.0, compressibility: 5.0e-6}
  water: {density: 64.0, viscosity: 0.3, compressibility: 3.0e-6}
  relperm: {swc: 0.2, sor: 0.2, nw: 2, no: 2}
  reference_pressure: 6000
wells:
  - {name: INJ, type: injector, column: [$c, $c], control: {kind: rate, value: 200}, radius: 1.0}
  - {name: P1, type: producer, column: [0, 0], control: {kind: bhp, value: 4000}, radius: 1.0}
  - {name: P2, type: producer, column: [$e, 0], control: {kind: bhp, value: 4000}, radius: 1.0}
  - {name: P3, type: producer, column: [$e, $e], control: {kind: bhp, value: 4000}, radius: 1.0}
  - {name: P4, type: producer, column: [0, $e], control: {kind: bhp, value: 4000}, radius: 1.0}
initial: {pressure: 6000, datum_depth: 12000, water_saturation: 0.2}
timestep: {dt: 1.0}
solver:
  method: bicgstab
  preconditioner: cpr
  gpu_kernel: multi_kernel
  tolerance: 1.0e-6
  max_iterations: 10000
output: {file: lognormal_$g.h5}
EOF
}

fmt="%5s %12s %-7s %-16s %10s %9s %9s %13s  %s\n"
echo "heptane: $heptane; backend $backend; folder $dir"
printf "$fmt" g unknowns backend status iterations setup_s solve_s true_residual note
all_ok=1
for g in "${grids[@]}"; do
  deck="$dir/lognormal_$g.yaml"
  write_deck "$g" "$deck"
  rc=0
  "$heptane" run "$deck" -o "$dir/lognormal_$g.h5" --backend "$backend" "${sets[@]}" \
    >"$dir/lognormal_$g.log" 2>"$dir/lognormal_$g.err" || rc=$?
  report="$(cat "$dir/lognormal_$g.log")"
  # "  system      32 x 32 x 32 cells, K = 2, 5 wells: 65,546 unknowns, ..."
  unknowns="$(sed -n 's/^  system .*: \([0-9,]*\) unknowns.*/\1/p' <<<"$report")"
  # "  solver      bicgstab on the gpu (multi_kernel, NVIDIA H100 ...), tolerance ..."
  ran_on="$(sed -n 's/^  solver      [a-z_]* on the \([a-z]*\) .*/\1/p' <<<"$report")"
  # "  result      converged after 123 iterations"
  status="$(sed -n 's/^  result      \([a-z_]*\) after.*/\1/p' <<<"$report")"
  iterations="$(sed -n 's/^  result      [a-z_]* after \([0-9]*\) iterations.*/\1/p' <<<"$report")"
  # "  time        setup 0.012 s[ (the preconditioner's ...)], solve 2.345 s ..."
  setup="$(sed -n 's/^  time        setup \([0-9.]*\) s.*/\1/p' <<<"$report")"
  solve="$(sed -n 's/^  time        .*, solve \([0-9.]*\) s.*/\1/p' <<<"$report")"
  # "  residual    1.0e-07 (recurrence), 1.1e-07 (true: ...)"
  true_res="$(sed -n 's/^  residual    .* (recurrence), \([^ ]*\) (true.*/\1/p' <<<"$report")"
  note=""
  if [[ -z "$status" ]]; then  # no report: an input (2) or runtime (3) error
    status="failed (exit $rc)"
    note="$(grep -v '^\s*$' "$dir/lognormal_$g.err" | head -n 1)"
  elif ((rc != 0)); then  # not converged (exit 1): the reason is on stderr
    note="$(grep -v '^\s*$' "$dir/lognormal_$g.err" | tail -n 1)"
  fi
  [[ "$status" == converged && $rc -eq 0 ]] || all_ok=0
  rm -f "$dir/lognormal_$g.h5" "$dir/lognormal_$g.xmf"  # up to GBs at 256^3; the log has it all
  printf "$fmt" "$g" "${unknowns:--}" "${ran_on:--}" "$status" "${iterations:--}" "${setup:--}" "${solve:--}" \
    "${true_res:--}" "$note"
done
((all_ok)) && exit 0 || exit 1
