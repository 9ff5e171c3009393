#!/usr/bin/env bash
# heptane run of one deck on 1 process and under mpirun with each rank count given, the solve
# time per iteration of each, the halo and cross-rank sum time of rank 0, and whether each
# distributed run's file is the one-process file bit for bit (heptane compare --rtol 0).
#   scripts/mpi_scaling.sh HEPTANE BACKEND "NP..." DECK [RUN ARGS...]
# NP 0: the one process only; NP 1: one rank under mpirun (the distributed solver on one
# slab: the baseline of a weak-scaling series).
# e.g. scripts/mpi_scaling.sh build/app/heptane gpu "2 4" inputs/spe10.yaml \
#        --set solver.preconditioner=point_block_jacobi
# Weak scaling: call it once per size with the grid grown along i (--set "grid.dims=[...]").
set -uo pipefail
heptane=$1 backend=$2 nps=$3 deck=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
summary() {  # NAME LOG: the lines that matter, on one line
  printf '%-12s %s | %s | %s | %s\n' "$1" \
    "$(grep -m1 -E '^  solver' "$2" | sed -E 's/^ *solver *//; s/, tolerance.*//')" \
    "$(grep -m1 -E '^  result' "$2" | sed 's/^ *result *//')" \
    "$(grep -m1 -E '^  time' "$2" | sed 's/^ *time *//')" \
    "$(grep -m1 -E '^  ranks' "$2" | sed 's/^ *ranks *//')"
}
"$heptane" run "$deck" --backend "$backend" "$@" -o "$dir/one.h5" </dev/null >"$dir/one.log" 2>&1
rc=$?
[[ $rc -gt 1 ]] && { echo "one process failed ($rc)"; tail -n 5 "$dir/one.log"; exit 1; }
grep -m1 -E '^  system' "$dir/one.log"
summary "1 process" "$dir/one.log"
fail=0
for np in $nps; do
  [[ $np -le 0 ]] && continue  # "0": the one process alone (1: one rank over mpirun)
  # GPU ranks: unbound, the node's cores shared out (the host builds each rank's system).
  bind=()
  [[ $backend == gpu ]] && bind=(--bind-to none -x OMP_NUM_THREADS=$(( $(nproc) / np > 0 ? $(nproc) / np : 1 )))
  mpirun -np "$np" --oversubscribe "${bind[@]}" "$heptane" run "$deck" --backend "$backend" "$@" \
    -o "$dir/np$np.h5" </dev/null >"$dir/np$np.log" 2>&1
  rc=$?
  [[ $rc -gt 1 ]] && { echo "np $np failed ($rc)"; tail -n 5 "$dir/np$np.log"; fail=1; continue; }
  summary "$np ranks" "$dir/np$np.log"
  if "$heptane" compare "$dir/one.h5" "$dir/np$np.h5" --rtol 0 --atol 0 >/dev/null 2>&1; then
    echo "             $np ranks: the one-process bits"
  else
    echo "             $np ranks: DIFFERENT from one process"; fail=1
  fi
done
exit $fail
