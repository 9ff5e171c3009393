#!/usr/bin/env bash
# Issue 24: heptane's CPU BiCGStab and SpMV against PETSc AIJ / BAIJ (2 ranks) on the same
# matrices, alternating, so the numbers come from one session.
#   scripts/petsc_bench.sh [BUILD_DIR] [WORK_DIR] [ROUNDS]
# BUILD_DIR: a CPU build (default build-nocuda); WORK_DIR: where decks, matrices and logs go
# (default /tmp/heptane_petsc_bench; the matrices take about 0.9 GB); ROUNDS: default 2.
# Systems: 64^3 K = 2 and 48^3 K = 4, the systems `heptane bench solve|spmv --grids G --K K`
# build (scripts/petsc_bench.py deck). heptane runs with OMP_NUM_THREADS=2, PETSc with 2 MPI
# ranks of one thread each (scripts/petsc_bench.py sets OMP/OpenBLAS threads to 1).
# Needs Debian's PETSc and petsc4py (scripts/install_petsc.sh) and OpenMPI's mpirun.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build-nocuda}" && pwd)
work=${2:-/tmp/heptane_petsc_bench}
rounds=${3:-2}
heptane=$build/app/heptane
py=/usr/bin/python3
script=$here/scripts/petsc_bench.py
iterations=${PETSC_BENCH_ITERATIONS:-200}
mpi=(mpirun -np 2)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
mkdir -p "$work"
cd "$work"

run() {  # print the command and the load average, run it, keep its output in the log
  echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "\$ $*"
  "$@" 2>&1
  echo
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$here" rev-parse HEAD)"
  echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
  echo "heptane: $heptane ($("$heptane" --version))"
  echo
  systems=("64 2" "48 4")
  for s in "${systems[@]}"; do
    set -- $s
    name=syn$1k$2
    if [ ! -f "$name.mtx.npz" ]; then
      "$py" "$script" deck --grid "$1" --K "$2" > "$name.yaml"
      run "$heptane" info "$name.yaml"
      run "$heptane" export "$name.yaml" --matrix "$name.mtx" --rhs "${name}_b.mtx"
      run "$py" "$script" convert "$name.mtx"
    fi
  done
  for round in $(seq 1 "$rounds"); do
    for s in "${systems[@]}"; do
      set -- $s
      name=syn$1k$2
      echo "=== round $round: ${1}^3 K = $2"
      run env OMP_NUM_THREADS=2 "$heptane" bench solve --grids "$1" --K "$2" --iterations 50 \
        --repeat 3 --cpu --methods bicgstab --report "solve_${name}_$round.yaml"
      run env OMP_NUM_THREADS=2 "$heptane" bench spmv --grids "$1" --K "$2" --repeat 10 --cpu \
        --report "spmv_${name}_$round.yaml"
      run env OMP_NUM_THREADS=1 "${mpi[@]}" --report-bindings "$py" "$script" run \
        "$name.mtx" "${name}_b.mtx" --block-size "$2" --iterations "$iterations" --matmults 100 \
        --repeat 3 --formats aij,baij,aij-noinode
    done
  done
} | tee "$work/petsc_bench.log"
