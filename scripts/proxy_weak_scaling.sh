#!/usr/bin/env bash
# A weak-scaling series of heptane proxy: the same size a rank, on one process and under
# mpirun with each rank count given, each report kept, then scripts/weak_scaling.py on the
# mpirun reports (where PyYAML is there).
#   scripts/proxy_weak_scaling.sh HEPTANE BACKEND "NP..." OUTDIR [PROXY ARGS...]
# NP 0: one process (not under mpirun: the best one-device solver); NP 1: one rank under mpirun
# (the distributed solver on one slab, the series' baseline). Reports: OUTDIR/proxy_npN.yaml,
# logs OUTDIR/proxy_npN.log; PROXY_TIMEOUT seconds a run (default 900). e.g. on a node of 4 GPUs:
#   scripts/proxy_weak_scaling.sh build/app/heptane gpu "0 1 2 4" /tmp/weak \
#       --dims 256 256 256 --min-seconds 10
set -uo pipefail
heptane=$1 backend=$2 nps=$3 outdir=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$outdir"
fail=0
reports=()
for np in $nps; do
  report="$outdir/proxy_np$np.yaml" log="$outdir/proxy_np$np.log"
  launch=()
  if [[ $np -gt 0 ]]; then
    # GPU ranks: unbound, the node's cores shared out (the host generates each rank's system).
    launch=(mpirun -np "$np" --oversubscribe)
    [[ $backend == gpu ]] && launch+=(--bind-to none -x OMP_NUM_THREADS=$(( $(nproc) / np > 0 ? $(nproc) / np : 1 )))
  fi
  start=$(date +%s.%N)
  timeout "${PROXY_TIMEOUT:-900}" "${launch[@]}" "$heptane" proxy --backend "$backend" "$@" --report "$report" \
    </dev/null >"$log" 2>&1
  rc=$?
  wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
  printf '%-10s rc %d, %s s: %s | %s\n' "$([[ $np -gt 0 ]] && echo "$np ranks" || echo "1 process")" \
    "$rc" "$wall" "$(grep -m1 -E '^  problem|defined' "$log" | sed 's/^ *//')" \
    "$(grep -m1 -E 'figure of merit:' "$log" | sed 's/^ *//')"
  grep -E '^(VALID|INVALID)|ranks: ' "$log" | sed 's/^ */           /'
  [[ $rc -ne 0 ]] && { fail=1; tail -n 5 "$log"; }
  [[ $np -gt 0 && -f $report ]] && reports+=("$report")
done
if [[ ${#reports[@]} -gt 0 ]] && python3 -c 'import yaml' 2>/dev/null; then
  python3 "$(dirname "${BASH_SOURCE[0]}")/weak_scaling.py" "${reports[@]}" || fail=1
fi
exit $fail
