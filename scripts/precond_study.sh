#!/usr/bin/env bash
# Preconditioner study (issue 8): runs one deck with every backend / GPU kernel /
# preconditioner combination `heptane run` offers and prints one row per combination:
#   cpu: none, point_block_jacobi, line_jacobi, block_jacobi
#   gpu in_kernel: none, point_block_jacobi
#   gpu multi_kernel: none, point_block_jacobi, line_jacobi, block_jacobi
# A combination that fails (no GPU, bad input) or does not converge still gets its row; the
# study goes on. Values come from each run's report on stdout.
#
# Usage: scripts/precond_study.sh [--heptane BIN] [--deck DECK] [--out DIR]
#                                 [--backend cpu|gpu|all] [--set KEY=VALUE ...]
#   --heptane  the heptane binary (default: build/app/heptane)
#   --deck     the deck (default: inputs/spe10.yaml)
#   --out      folder for OUT/<combo>.h5, OUT/<combo>.log and OUT/summary.tsv (default:
#              precond_study); created if missing
#   --backend  only the cpu or the gpu rows (default: all)
#   --set      passed through to every run, e.g. --set solver.max_iterations=2000
# Exit code 0 when every run converged, 1 otherwise.
# shellcheck disable=SC2059  # printf formats are this script's own ($fmt)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
heptane="$root/build/app/heptane"
deck="$root/inputs/spe10.yaml"
out="precond_study"
only="all"
sets=()
usage() {  # the header comment above
  awk 'NR > 1 && /^#/ && !/shellcheck/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
    "${BASH_SOURCE[0]}" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --heptane) heptane="${2:?--heptane needs a path}"; shift 2 ;;
    --deck) deck="${2:?--deck needs a path}"; shift 2 ;;
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --backend) only="${2:?--backend needs cpu, gpu or all}"; shift 2 ;;
    --set) sets+=(--set "${2:?--set needs KEY=VALUE}"); shift 2 ;;
    -h|--help) usage ;;
    *) echo "precond_study.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case "$only" in cpu|gpu|all) ;; *) echo "precond_study.sh: --backend cpu, gpu or all" >&2; exit 2 ;; esac
[[ -x "$heptane" ]] || { echo "precond_study.sh: no heptane binary at $heptane" >&2; exit 2; }
[[ -f "$deck" ]] || { echo "precond_study.sh: no deck $deck" >&2; exit 2; }
mkdir -p "$out" || exit 2

# backend kernel preconditioner
combos=()
if [[ "$only" != gpu ]]; then
  for p in none point_block_jacobi line_jacobi block_jacobi; do combos+=("cpu reference $p"); done
fi
if [[ "$only" != cpu ]]; then
  for p in none point_block_jacobi; do combos+=("gpu in_kernel $p"); done
  for p in none point_block_jacobi line_jacobi block_jacobi; do combos+=("gpu multi_kernel $p"); done
fi

fmt="%-7s %-12s %-18s %-16s %10s %9s %9s %13s  %s\n"
echo "deck: $deck"
printf "$fmt" backend kernel preconditioner status iterations setup_s solve_s true_residual note
printf "backend\tkernel\tpreconditioner\tstatus\titerations\tsetup_s\tsolve_s\ttrue_residual\tnote\n" \
  >"$out/summary.tsv"
all_ok=1
for combo in "${combos[@]}"; do
  read -r backend kernel precond <<<"$combo"
  name="${backend}_${precond}"
  args=(run "$deck" -o "$out/$name.h5" --backend "$backend" --set "solver.preconditioner=$precond")
  if [[ "$backend" == gpu ]]; then
    name="${backend}_${kernel}_${precond}"
    args=(run "$deck" -o "$out/$name.h5" --backend gpu --set "solver.preconditioner=$precond"
          --set "solver.gpu_kernel=$kernel")
  fi
  args+=("${sets[@]}")
  rc=0
  "$heptane" "${args[@]}" >"$out/$name.log" 2>"$out/$name.err" || rc=$?
  report="$(cat "$out/$name.log")"
  # "  result      converged after 123 iterations, ..."
  status="$(sed -n 's/^  result      \([a-z_]*\) after.*/\1/p' <<<"$report")"
  iterations="$(sed -n 's/^  result      [a-z_]* after \([0-9]*\) iterations.*/\1/p' <<<"$report")"
  # "  time        setup 0.012 s, solve 2.345 s ..."
  setup="$(sed -n 's/^  time        setup \([0-9.]*\) s,.*/\1/p' <<<"$report")"
  solve="$(sed -n 's/^  time        setup [0-9.]* s, solve \([0-9.]*\) s.*/\1/p' <<<"$report")"
  # "  residual    1.0e-07 (recurrence), 1.1e-07 (true: ...)"
  true_res="$(sed -n 's/^  residual    .* (recurrence), \([^ ]*\) (true.*/\1/p' <<<"$report")"
  note=""
  if [[ -z "$status" ]]; then  # no report: an input (2) or runtime (3) error
    status="failed (exit $rc)"
    note="$(grep -v '^\s*$' "$out/$name.err" | head -n 1)"
    [[ -n "$note" ]] || note="no report, see $out/$name.err"
  elif ((rc != 0)); then  # not converged (exit 1): the reason is on stderr
    note="$(grep -v '^\s*$' "$out/$name.err" | tail -n 1)"
  fi
  [[ "$status" == converged && $rc -eq 0 ]] || all_ok=0
  row=("$backend" "$kernel" "$precond" "$status" "${iterations:--}" "${setup:--}" "${solve:--}"
       "${true_res:--}" "$note")
  printf "$fmt" "${row[@]}"
  (IFS=$'\t'; echo "${row[*]}") >>"$out/summary.tsv"
done
echo "logs and results: $out/ (summary.tsv)"
((all_ok)) && exit 0 || exit 1
