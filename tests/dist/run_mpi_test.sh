#!/usr/bin/env bash
# heptane run and simulate under mpirun (issue 25): 2 and 3 ranks write one process's file,
# bit for bit (heptane compare --rtol 0 --atol 0): run with BiCGStab, QMR and BiCGStab with
# point-block Jacobi, with spatial block Jacobi (the split keeps its blocks whole) and with CPR
# (its leading levels split, the coarse levels gathered), each CPU rank building only its
# planes' system, the Egg model's Eclipse-file deck and a corner-point one, simulate with the
# waterflood regression deck's solver (BiCGStab with line Jacobi) and with CPR (each rank
# holding only its slab of the Jacobian), simulate --restart from a 2-rank run's day-20 file (on 1, 2 and 3 ranks
# the uninterrupted one-process run's file), and run (BiCGStab, QMR) and simulate of a faulted
# deck with NNC records (non-neighbour connections in the slabs), run and simulate of a deck
# with saturation regions (SATNUM); too many ranks for the
# blocks, a connection longer than one plane, and another command, are exit 2. With a fifth argument `gpu` the ranks solve on the GPU (--backend gpu: BiCGStab
# without a preconditioner, with point-block, line and spatial-block Jacobi, QMR with
# point-block Jacobi and BiCGStab with CPR, each rank on its own planes' system; simulate with
# line Jacobi and with CPR; the proxy with QMR), still against one CPU process; exit 77
# (skipped) without a CUDA device.
#   run_mpi_test.sh HEPTANE MPIEXEC DECK SIMULATION_DECK [gpu]
set -uo pipefail
heptane=$1 mpiexec=$2 deck=$3 sim_deck=$4 backend=${5:-cpu}
if [[ $backend == gpu ]] && ! "$heptane" info 2>/dev/null | grep -q "device 0:"; then
  echo "no CUDA device: skipped"; exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail=0
oks=0  # every case must run: each run case on 2 and 3 ranks, 3 simulate cases and the proxy

# agree NAME COMMAND DECK [ARGS...]: one process, then 2 and 3 ranks, the files compared.
# slabs=1 before the call: the ranks must say they hold only their own planes' system (the
# report line `slab_line`).
slabs=0 slab_line="built only its planes' system"
agree() {
  local name=$1 command=$2 input=$3
  shift 3
  "$heptane" "$command" "$input" --backend cpu "$@" -o "$dir/one.h5" </dev/null >"$dir/one.log" 2>&1 ||
    { echo "one process failed: $name"; cat "$dir/one.log"; fail=1; return; }
  local np
  for np in 2 3; do
    if ! "$mpiexec" -np "$np" --oversubscribe "$heptane" "$command" "$input" --backend "$backend" "$@" \
        -o "$dir/np$np.h5" </dev/null >"$dir/np.log" 2>&1; then
      echo "mpirun -np $np failed: $name"; cat "$dir/np.log"; fail=1; continue
    fi
    grep -q "over $np MPI ranks" "$dir/np.log" || { echo "np $np: not over the ranks"; fail=1; }
    if [[ $slabs == 1 ]] && ! grep -q "$slab_line" "$dir/np.log"; then
      echo "np $np: $name did not build the ranks' own slabs"; fail=1
    fi
    if "$heptane" compare "$dir/one.h5" "$dir/np$np.h5" --rtol 0 --atol 0 >"$dir/cmp.log" 2>&1; then
      echo "ok: $name on $np ranks is one process's bits"
      oks=$((oks + 1))
    else
      echo "DIFFER: $name on $np ranks"; cat "$dir/cmp.log"; fail=1
    fi
  done
}

cases=("bicgstab none" "qmr none" "bicgstab point_block_jacobi" "bicgstab block_jacobi"
  "bicgstab cpr")
[[ $backend == gpu ]] && cases=("bicgstab none" "bicgstab line_jacobi" "bicgstab point_block_jacobi"
  "qmr point_block_jacobi" "bicgstab block_jacobi" "bicgstab cpr")
for case in "${cases[@]}"; do
  read -r method precond <<<"$case"
  # The ranks build their own slabs (design decision 52; with CPR and spatial blocks since
  # decision 56, the slabs following their split), CPU and GPU ranks alike
  slabs=1
  agree "run $method $precond" run "$deck" --set "solver.method=$method" \
    --set "solver.preconditioner=$precond"
done
# A deck whose fields come from Eclipse files (per-cell geometry, ACTNUM: the Egg model): each
# CPU rank reads the fields and builds its own planes' system.
run_cases=${#cases[@]}
if [[ $backend == cpu ]]; then
  slabs=1
  agree "run egg_system (Eclipse files)" run "$(dirname "$0")/../../inputs/egg_system.yaml"
  # Corner-point cells (COORD, ZCORN): each rank's planes keep their volumes, faces and corners.
  agree "run eclipse_corner (corner-point)" run "$(dirname "$0")/../app/decks/eclipse_corner.yaml"
  run_cases=$((run_cases + 2))
fi
# A simulation's ranks hold only their slab of the Jacobian (decisions 51, 56), with CPR too,
# CPU and GPU ranks alike.
slabs=1 slab_line="holds only its planes' Jacobian"
agree "simulate" simulate "$sim_deck"
agree "simulate cpr" simulate "$sim_deck" --set solver.preconditioner=cpr
# A restart (design decision 57): the day-20 file of 2 ranks, gone on from on 1, 2 and 3
# ranks, is the uninterrupted one-process run's file.
"$mpiexec" -np 2 --oversubscribe "$heptane" simulate "$sim_deck" --backend "$backend" \
  --set schedule.end_time=20 --set "schedule.events=[{time: 15, well: PB, status: shut}]" \
  -o "$dir/day20.h5" </dev/null >"$dir/day20.log" 2>&1 ||
  { echo "the day-20 run failed"; cat "$dir/day20.log"; fail=1; }
"$heptane" simulate "$sim_deck" --backend cpu -o "$dir/whole.h5" </dev/null >"$dir/whole.log" 2>&1 ||
  { echo "the whole run failed"; cat "$dir/whole.log"; fail=1; }
slab_line="restart     from $dir/day20.h5 at day 20.00"
agree "simulate --restart" simulate "$sim_deck" --restart "$dir/day20.h5"
"$heptane" compare "$dir/one.h5" "$dir/whole.h5" --rtol 0 --atol 0 >"$dir/cmp.log" 2>&1 ||
  { echo "DIFFER: the restarted run is not the uninterrupted one"; cat "$dir/cmp.log"; fail=1; }
simulations=3

"$mpiexec" -np 2 --oversubscribe "$heptane" bench spmv --grids 8 --K 1 </dev/null >"$dir/other.log" 2>&1 &&
  { echo "bench under mpirun: expected exit 2"; fail=1; }
# refused KEY SETTING...: exit 2 with the key named, nothing written.
refused() {
  local key=$1 sets=()
  shift
  for s in "$@"; do sets+=(--set "$s"); done
  "$mpiexec" -np 2 --oversubscribe "$heptane" run "$deck" --backend "$backend" "${sets[@]}" \
    -o "$dir/x.h5" </dev/null >"$dir/bad.log" 2>&1
  local code=$?
  grep -q "$key" "$dir/bad.log" && [[ $code -eq 2 && ! -e "$dir/x.h5" ]] ||
    { echo "$* under mpirun: expected exit 2 at $key (got $code)"; cat "$dir/bad.log"; fail=1; }
  [[ -e "$dir/x.h5" ]] && { echo "a refused run wrote its output"; fail=1; }
}
# The proxy under mpirun: each rank's share is --dims, the grid two of them along i; VALID,
# a report of 2 ranks whose per-rank cells add up (scripts/check_proxy_report.py), and the halo
# path the ranks took (CPU ranks: mpi; GPU ranks: host-staged or peer, as the GPUs allow).
checker="$(dirname "$0")/../../scripts/check_proxy_report.py"
halo="^halo_path: mpi$"
[[ $backend == gpu ]] && halo="^halo_path: (host-staged|peer)$"
if "$mpiexec" -np 2 --oversubscribe "$heptane" proxy --backend "$backend" --dims 20 20 4 \
    --min-seconds 0.2 --report "$dir/proxy.yaml" </dev/null >"$dir/proxy.log" 2>&1 &&
  grep -q "^ranks: 2" "$dir/proxy.yaml" && grep -q "nx: 40" "$dir/proxy.yaml" &&
  grep -Eq "$halo" "$dir/proxy.yaml" &&
  python3 "$checker" "$dir/proxy.yaml" --require-valid >>"$dir/proxy.log" 2>&1; then
  echo "ok: proxy on 2 ranks is VALID with a checked report"
  oks=$((oks + 1))
else
  echo "proxy on 2 ranks failed"; cat "$dir/proxy.log"; fail=1
fi
# The one-rank run of the same size a rank, and the weak-scaling table of the two reports.
weak="$(dirname "$0")/../../scripts/weak_scaling.py"
if "$mpiexec" -np 1 "$heptane" proxy --backend "$backend" --dims 20 20 4 --min-seconds 0.2 \
    --report "$dir/proxy1.yaml" </dev/null >"$dir/proxy1.log" 2>&1 &&
  python3 "$weak" "$dir/proxy1.yaml" "$dir/proxy.yaml" >"$dir/weak.log" 2>&1 &&
  [[ $(grep -cE "^ +[12] +1,600 " "$dir/weak.log") -eq 2 ]]; then
  echo "ok: weak_scaling.py lines up the 1- and 2-rank reports"
else
  echo "weak scaling table failed"; cat "$dir/proxy1.log" "$dir/weak.log"; fail=1
fi
if [[ $backend == gpu ]]; then  # QMR on GPU ranks: the transpose product across the slabs
  "$mpiexec" -np 2 --oversubscribe "$heptane" proxy --backend gpu --method qmr --dims 20 20 4 \
    --min-seconds 0.2 --report "$dir/qmr.yaml" </dev/null >"$dir/qmr.log" 2>&1
  code=$?
  grep -q "^VALID" "$dir/qmr.log" && [[ $code -eq 0 ]] &&
    grep -q "pass  transpose_consistency" "$dir/qmr.log" ||
    { echo "proxy qmr on GPU ranks: expected VALID (got $code)"; cat "$dir/qmr.log"; fail=1; }
fi
# A runtime error ends the whole job with exit 3 (here: GPU ranks asked for on a machine
# without a device; the first rank to fail aborts the job, none is left waiting).
if [[ $backend == cpu ]] && ! "$heptane" info 2>/dev/null | grep -q "device 0:"; then
  timeout 60 "$mpiexec" -np 2 --oversubscribe "$heptane" run "$deck" --backend gpu \
    -o "$dir/gpu.h5" </dev/null >"$dir/gpu.log" 2>&1
  code=$?
  grep -q "backend gpu" "$dir/gpu.log" && [[ $code -eq 3 && ! -e "$dir/gpu.h5" ]] ||
    { echo "backend gpu without a device under mpirun: expected exit 3 (got $code)"; cat "$dir/gpu.log"; fail=1; }
fi
# The split keeps spatial blocks whole (CPU and GPU ranks), so 2 ranks for one block of 12
# planes are an input error.
refused solver.block_shape solver.preconditioner=block_jacobi "solver.block_shape=[12, 4, 4]"
# A simulation with more ranks than groups of CPR's level-0 aggregates (the deck's 8 planes
# in one group of 8): exit 2 naming the key, before anything is written.
"$mpiexec" -np 2 --oversubscribe "$heptane" simulate "$sim_deck" --backend "$backend" \
  --set solver.preconditioner=cpr --set "solver.cpr.coarsening=[8, 2, 1]" -o "$dir/y.h5" \
  </dev/null >"$dir/bad.log" 2>&1
code=$?
grep -q "solver.cpr.coarsening" "$dir/bad.log" && [[ $code -eq 2 && ! -e "$dir/y.h5" ]] ||
  { echo "simulate cpr on too many ranks: expected exit 2 (got $code)"; cat "$dir/bad.log"; fail=1; }
# A faulted deck's non-neighbour connections (design decisions 63, 64) with NNC records (one
# along j, one across the fault, one summed with a fault's): each rank's slab keeps those of
# its planes and halo planes; run with BiCGStab + point-block Jacobi and QMR (the transposed
# connection blocks across the slabs) and simulate are one process's bits, CPU and GPU ranks.
decks="$(dirname "$0")/../app/decks"
records="grid.eclipse=[eclipse_fault.grdecl, eclipse_nnc_records.inc]"
slabs=1 slab_line="built only its planes' system"
agree "run eclipse_fault (faults, NNC records)" run "$decks/eclipse_fault.yaml" --set "$records"
agree "run eclipse_fault qmr" run "$decks/eclipse_fault.yaml" --set "$records" \
  --set solver.method=qmr
run_cases=$((run_cases + 2))
slab_line="holds only its planes' Jacobian"
agree "simulate eclipse_fault_sim" simulate "$decks/eclipse_fault_sim.yaml" --set "$records"
# PINCH's connections (design decision 69) join the layers of a column: within a rank's slab;
# CPR's line smoother reads them in its columns' residuals.
agree "simulate eclipse_fault_sim pinch cpr" simulate "$decks/eclipse_fault_sim.yaml" \
  --set "grid.eclipse=[eclipse_fault.grdecl, eclipse_pinch.inc]" --set solver.preconditioner=cpr
simulations=$((simulations + 2))
# The EDIT section's TRANX, TRANZ and PORV edits (design decision 72): run's slabs keep the
# edited faces and pore volumes of their planes (wells::generate_planes cuts them), simulate's
# ranks assemble their cells with them.
edits="grid.eclipse=[eclipse_fault.grdecl, eclipse_edit.inc]"
slab_line="built only its planes' system"
agree "run eclipse_fault edit" run "$decks/eclipse_fault.yaml" --set "$edits"
slab_line="holds only its planes' Jacobian"
agree "simulate eclipse_fault_sim edit" simulate "$decks/eclipse_fault_sim.yaml" --set "$edits"
run_cases=$((run_cases + 1))
simulations=$((simulations + 1))
# Saturation regions from the deck's SATNUM (design decision 87): run's slabs cut each cell's
# region with its planes, simulate's ranks assemble their cells with their regions' laws.
slab_line="built only its planes' system"
agree "run satnum_regions" run "$decks/satnum_regions_system.yaml"
slab_line="holds only its planes' Jacobian"
agree "simulate satnum_regions" simulate "$decks/satnum_regions.yaml"
run_cases=$((run_cases + 1))
simulations=$((simulations + 1))
# Equilibration regions (design decision 92): each rank's initial state is its planes' cells
# from their regions' EQUIL records (a column is never cut), the regression deck's.
agree "simulate equil_regions" simulate "$(dirname "$0")/../regression/simulation/equil_regions.yaml"
simulations=$((simulations + 1))
# End-point scaling (design decision 95): each rank's cells keep their own end points (the
# SWCR include read whole and cut to the rank's planes), the regression deck's.
agree "simulate end_points_waterflood" simulate \
  "$(dirname "$0")/../regression/simulation/end_points_waterflood.yaml"
simulations=$((simulations + 1))
# SWATINIT (design decision 97): each rank's cells keep the Pc factors of the whole grid's
# equilibrium (a column is never cut).
agree "simulate end_points_waterflood swatinit" simulate \
  "$(dirname "$0")/../regression/simulation/end_points_waterflood.yaml" --set rock.swatinit=0.45
simulations=$((simulations + 1))
# A connection three i-planes long (an NNC record) reaches past a rank's halo plane: exit 2
# naming grid.eclipse, nothing written.
"$mpiexec" -np 2 --oversubscribe "$heptane" run "$decks/eclipse_fault.yaml" --backend "$backend" \
  --set "grid.eclipse=[eclipse_fault.grdecl, eclipse_nnc_far.inc]" -o "$dir/f.h5" \
  </dev/null >"$dir/bad.log" 2>&1
code=$?
grep -q "grid.eclipse: .* are connected 3 i-planes apart" "$dir/bad.log" &&
  [[ $code -eq 2 && ! -e "$dir/f.h5" ]] ||
  { echo "a connection 3 planes long under mpirun: expected exit 2 (got $code)"; cat "$dir/bad.log"; fail=1; }
expected=$((2 * run_cases + 2 * simulations + 1))
[[ $oks -eq $expected ]] || { echo "only $oks of $expected cases passed"; fail=1; }
exit $fail
