#!/usr/bin/env bash
# On a GPU machine (the device tool): configure with CUDA required, build, run the whole suite
# and then the gpu label alone (no skips allowed), and write logs to $OUT (or ./gpu_check).
#   scripts/gpu_check.sh [extra ctest args]
# HEPTANE_MEMCHECK_FILTER: gtest filter for the memcheck runs (default: all tests)
# HEPTANE_RACECHECK_FILTER: gtest filter for racecheck and synccheck of the in-kernel solver
#                           tests (default: all of them)
# HEPTANE_BLOCK_RACECHECK_FILTER: the same for the block smoother tests (shared-memory block
#                           residuals, the fused preconditioner; default all of them)
# HEPTANE_CPR_RACECHECK_FILTER: the same for the CPR test (the line smoother's shared-memory
#                           columns, the dense product's chunk sums; default all of it but
#                           CprLargeCoarsest: its 1,080 launches of 1,080 blocks kill racecheck
#                           (exit 9, no hazard reported; H100, 2026-11-26), memcheck and
#                           synccheck run it)
# HEPTANE_SANITIZER_TIMEOUT: seconds per compute-sanitizer run (default 300)
# HEPTANE_SANITIZER_TESTS: an extended regex; only the GPU test binaries whose name matches
#                           go through the sanitizers (default: every one)
# HEPTANE_BENCH: "spmv ARGS" and/or "solve ARGS" lines (';'-separated) run after the tests,
#                reports in $OUT/bench_*.yaml
# HEPTANE_BASELINE: a tarball of another tree (git archive REV | gzip); it is built too and
#                each bench line runs with both binaries, interleaved (baseline, this tree,
#                baseline, this tree), so before/after are measured in the same run
# HEPTANE_BENCH_ONLY_NEW: bench lines (';'-separated) run with this tree only (commands the
#                baseline does not have), reports in $OUT/bench_new_*.yaml
# HEPTANE_RUN: "DECK [ARGS]" lines (';'-separated) run by `heptane run` after the benches
#                (output under /tmp), their report in the log
# HEPTANE_SIMULATE: "DECK [ARGS]" lines (';'-separated) run by `heptane simulate` after the
#                benches (output under /tmp: the fields are large), their report in the log;
#                HEPTANE_SIMULATE_TIMEOUT seconds each (default 420)
# HEPTANE_PROXY: "ARGS" lines (';'-separated) run by `heptane proxy` last, each report in
#                $OUT/proxy_N.yaml and checked by scripts/check_proxy_report.py;
#                HEPTANE_PROXY_TIMEOUT seconds each (default 480)
# HEPTANE_PROXY_MEMCHECK=1: compute-sanitizer memcheck of a small GPU proxy run (its solver,
#                the model's timed kernels, the A^T product of QMR), with or without the rest
#                of the sanitizer runs
# HEPTANE_MPI_SCALING: "BACKEND NP,NP,.. DECK [ARGS]" lines (';'-separated) run by
#                scripts/mpi_scaling.sh after the benches (one process, then mpirun with each
#                rank count; times, halo and sum costs, bits against one process)
# HEPTANE_NCU: "SKIP COUNT ARGS" lines (';'-separated): Nsight Compute times kernels SKIP + 1
#                .. SKIP + COUNT of `heptane ARGS` one by one (gpu__time_duration, caches and
#                clocks left alone), a CSV per line in $OUT/ncu_N.csv and a per-kernel summary
#                in the log (scripts/ncu_summary.py)
# HEPTANE_SKIP_TESTS=1: build and bench only
# HEPTANE_GPU_TESTS_ONLY=1: run the gpu label only (not the whole suite first)
# HEPTANE_GPU_JOBS: ctest jobs for the gpu label (default 1; the tests share the one GPU and
#                assert no timings, so several at once only shorten the call)
# HEPTANE_NO_SANITIZER=1: skip compute-sanitizer (a session whose change is host-side only)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu_check}"
mkdir -p "$out"
build="$root/build-gpu"
log="$out/gpu_check.log"  # one summary file (the device tool returns at most 8 files)
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  nvcc --version | tail -n 2
  cmake --version | head -n 1
} 2>&1 | tee "$log"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHEPTANE_ENABLE_CUDA=ON \
  -DHEPTANE_WERROR=ON >"$out/build.log" 2>&1 || { tail -n 40 "$out/build.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >>"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -n 40; exit 1; }
echo "build ok" | tee -a "$log"
rm -f "$out/build.log"

"$build/app/heptane" info | tee -a "$log"
base_bin=""
if [[ -n "${HEPTANE_BASELINE:-}" ]]; then
  base_src="$root/build-base-src"
  rm -rf "$base_src" && mkdir -p "$base_src" && tar -xzf "$HEPTANE_BASELINE" -C "$base_src"
  cmake -S "$base_src" -B "$root/build-base" -DCMAKE_BUILD_TYPE=Release -DHEPTANE_ENABLE_CUDA=ON \
    >"$out/build_base.log" 2>&1 &&
    cmake --build "$root/build-base" -j "$(nproc)" --target heptane >>"$out/build_base.log" 2>&1 &&
    base_bin="$root/build-base/app/heptane" && echo "baseline build ok" | tee -a "$log" ||
    { grep -E "error" "$out/build_base.log" | head -n 20 | tee -a "$log"; }
  rm -f "$out/build_base.log"
fi
san_limit="${HEPTANE_SANITIZER_TIMEOUT:-300}"
if [[ -n "${HEPTANE_SKIP_TESTS:-}" ]]; then
  all=0 gpu=0 san=0
else
all=0
if [[ -z "${HEPTANE_GPU_TESTS_ONLY:-}" ]]; then
ctest --test-dir "$build" -j 8 --output-on-failure "$@" >"$out/ctest.log" 2>&1
all=$?
tail -n 15 "$out/ctest.log" | tee -a "$log"
fi
# The gpu label must run, not skip, on a GPU machine.
ctest --test-dir "$build" -L gpu -j "${HEPTANE_GPU_JOBS:-1}" --output-on-failure "$@" >>"$out/ctest.log" 2>&1
gpu=$?
tail -n 8 "$out/ctest.log" | tee -a "$log"
if tail -n 20 "$out/ctest.log" | grep -q "Skipped"; then
  echo "gpu_check: GPU tests were skipped on a GPU machine"
  gpu=1
fi
# Memory errors in any GPU test binary (compute-sanitizer memcheck).
san=0
if [[ -n "${HEPTANE_NO_SANITIZER:-}" ]]; then
  echo "compute-sanitizer skipped (HEPTANE_NO_SANITIZER)" | tee -a "$log"
elif command -v compute-sanitizer >/dev/null; then
  only="${HEPTANE_SANITIZER_TESTS:-.}"
  for t in "$build"/tests/gpu/*_test; do
    [[ -x "$t" ]] || continue
    [[ $(basename "$t") =~ $only ]] || continue
    echo "== memcheck $t" >>"$out/sanitizer.log"
    timeout "$san_limit" compute-sanitizer --tool memcheck --error-exitcode 1 "$t" \
      --gtest_filter="${HEPTANE_MEMCHECK_FILTER:-*}" >>"$out/sanitizer.log" 2>&1
    rc=$?
    [[ $rc -eq 124 ]] && echo "memcheck of $(basename "$t") timed out after $san_limit s" | tee -a "$log" "$out/sanitizer.log"
    [[ $rc -ne 0 ]] && san=1
  done
  # Shared-memory races and barrier misuse in the persistent solver and the KSPARSE kernels
  # (HEPTANE_KSPARSE_RACECHECK_FILTER, default all KSPARSE tests).
  for tool in racecheck synccheck; do
    for t in "$build/tests/gpu/gpu_in_kernel_test" "$build/tests/gpu/gpu_ksparse_vs_ref_test" \
      "$build/tests/gpu/gpu_block_smoothers_vs_ref_test" "$build/tests/gpu/gpu_cpr_test"; do
      [[ $(basename "$t") =~ $only ]] || continue
      filter="${HEPTANE_RACECHECK_FILTER:-*}"
      [[ $t == *cpr* && $tool == racecheck ]] && filter="${HEPTANE_CPR_RACECHECK_FILTER:--CprLargeCoarsest.*}"
      [[ $t == *cpr* && $tool == synccheck ]] && filter="*"
      [[ $t == *ksparse* ]] && filter="${HEPTANE_KSPARSE_RACECHECK_FILTER:-*}"
      [[ $t == *block_smoothers* ]] && filter="${HEPTANE_BLOCK_RACECHECK_FILTER:-*}"
      echo "== $tool $t" >>"$out/sanitizer.log"
      timeout "$san_limit" compute-sanitizer --tool "$tool" --error-exitcode 1 "$t" \
        --gtest_filter="$filter" >>"$out/sanitizer.log" 2>&1
      rc=$?
      [[ $rc -eq 124 ]] && echo "$tool of $(basename "$t") timed out after $san_limit s" | tee -a "$log" "$out/sanitizer.log"
      [[ $rc -ne 0 ]] && san=1
    done
  done
  # The GPU ranks' solver (host-staged halos, chunk sums) under mpirun with 2 ranks.
  ranks_test="$build/tests/dist/dist_gpu_ranks_test"
  if [[ -x "$ranks_test" && dist_gpu_ranks_test =~ $only ]]; then
    echo "== memcheck mpirun -np 2 $ranks_test" >>"$out/sanitizer.log"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout "$san_limit" \
      mpirun -np 2 --oversubscribe compute-sanitizer --tool memcheck --error-exitcode 1 \
      "$ranks_test" --gtest_filter="${HEPTANE_MEMCHECK_FILTER:-*}" </dev/null \
      >>"$out/sanitizer.log" 2>&1 || san=1
  fi
  grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|Terminated|timeout" "$out/sanitizer.log" | tee -a "$log"
else
  echo "compute-sanitizer not found"
fi
fi
if [[ -n "${HEPTANE_PROXY_MEMCHECK:-}" ]] && command -v compute-sanitizer >/dev/null; then
  for method in bicgstab qmr; do
    echo "== memcheck heptane proxy --method $method" | tee -a "$log"
    timeout "$san_limit" compute-sanitizer --tool memcheck --error-exitcode 1 "$build/app/heptane" proxy \
      --backend gpu --method "$method" --dims 20 20 17 --min-seconds 0.1 \
      --report /tmp/proxy_memcheck.yaml >/tmp/proxy_memcheck.log 2>&1
    rc=$?
    grep -E "ERROR SUMMARY|^VALID|^INVALID" /tmp/proxy_memcheck.log | tee -a "$log"
    [[ $rc -ne 0 ]] && san=1
  done
fi
echo "gpu_check: all=$all gpu=$gpu memcheck=$san" | tee -a "$log"
if [[ -n "${HEPTANE_BENCH:-}" ]]; then
  IFS=';' read -ra benches <<<"$HEPTANE_BENCH"
  n=0
  for b in "${benches[@]}"; do
    n=$((n + 1))
    if [[ -n "$base_bin" ]]; then
      for round in 1 2; do  # reports of round 1 come back, round 2 is for the spread
        dir="$out"
        [[ $round -eq 2 ]] && dir="$(mktemp -d)"
        echo "== baseline round $round: bench $b" | tee -a "$log"
        # shellcheck disable=SC2086  # the bench line is a list of arguments
        "$base_bin" bench $b --report "$dir/bench_${n}_base.yaml" 2>&1 | tee -a "$log"
        echo "== this tree round $round: bench $b" | tee -a "$log"
        # shellcheck disable=SC2086
        "$build/app/heptane" bench $b --report "$dir/bench_${n}_new.yaml" 2>&1 | tee -a "$log"
      done
    else
      # shellcheck disable=SC2086  # the bench line is a list of arguments
      "$build/app/heptane" bench $b --report "$out/bench_$n.yaml" 2>&1 | tee -a "$log"
    fi
  done
fi
if [[ -n "${HEPTANE_BENCH_ONLY_NEW:-}" ]]; then
  IFS=';' read -ra benches <<<"$HEPTANE_BENCH_ONLY_NEW"
  n=0
  for b in "${benches[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086  # the bench line is a list of arguments
    "$build/app/heptane" bench $b --report "$out/bench_new_$n.yaml" 2>&1 | tee -a "$log"
  done
fi
if [[ -n "${HEPTANE_MPI_SCALING:-}" ]]; then
  IFS=';' read -ra lines <<<"$HEPTANE_MPI_SCALING"
  for line in "${lines[@]}"; do
    read -r mpi_backend mpi_nps mpi_rest <<<"$line"
    echo "== mpi scaling $line" | tee -a "$log"
    # shellcheck disable=SC2086  # the rest is a deck and a list of arguments
    timeout "${HEPTANE_SIMULATE_TIMEOUT:-420}" "$root/scripts/mpi_scaling.sh" "$build/app/heptane" \
      "$mpi_backend" "${mpi_nps//,/ }" $mpi_rest 2>&1 | tee -a "$log"
    echo "mpi scaling rc=${PIPESTATUS[0]}" | tee -a "$log"
  done
fi
if [[ -n "${HEPTANE_RUN:-}" ]]; then
  IFS=';' read -ra runs <<<"$HEPTANE_RUN"
  n=0
  for line in "${runs[@]}"; do
    n=$((n + 1))
    echo "== run $line" | tee -a "$log"
    # shellcheck disable=SC2086  # the line is a deck and a list of arguments
    timeout "${HEPTANE_SIMULATE_TIMEOUT:-420}" "$build/app/heptane" run $line \
      -o "/tmp/gpu_check_run_$n.h5" 2>&1 | tee -a "$log"
    echo "run rc=${PIPESTATUS[0]}" | tee -a "$log"
  done
fi
if [[ -n "${HEPTANE_SIMULATE:-}" ]]; then
  IFS=';' read -ra sims <<<"$HEPTANE_SIMULATE"
  n=0
  for line in "${sims[@]}"; do
    n=$((n + 1))
    echo "== simulate $line" | tee -a "$log"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086  # the line is a deck and a list of arguments
    timeout "${HEPTANE_SIMULATE_TIMEOUT:-420}" "$build/app/heptane" simulate $line \
      -o "/tmp/gpu_check_sim_$n.h5" 2>&1 | tee -a "$log"
    rc=${PIPESTATUS[0]}
    echo "simulate rc=$rc wall $(awk "BEGIN { print $(date +%s.%N) - $start }") s" | tee -a "$log"
  done
fi
if [[ -n "${HEPTANE_NCU:-}" ]]; then
  IFS=';' read -ra profiles <<<"$HEPTANE_NCU"
  n=0
  for line in "${profiles[@]}"; do
    n=$((n + 1))
    read -r ncu_skip ncu_count ncu_args <<<"$line"
    echo "== ncu (kernels $ncu_skip + $ncu_count) heptane $ncu_args" | tee -a "$log"
    # shellcheck disable=SC2086  # the rest is a list of arguments
    timeout "${HEPTANE_SIMULATE_TIMEOUT:-420}" ncu --clock-control none --cache-control none \
      --metrics gpu__time_duration.sum --csv --launch-skip "$ncu_skip" --launch-count "$ncu_count" \
      "$build/app/heptane" $ncu_args >"$out/ncu_$n.csv" 2>>"$log"
    echo "ncu rc=$?" | tee -a "$log"
    python3 "$root/scripts/ncu_summary.py" "$out/ncu_$n.csv" 2>&1 | tee -a "$log"
  done
fi
if [[ -n "${HEPTANE_PROXY:-}" ]]; then
  IFS=';' read -ra proxies <<<"$HEPTANE_PROXY"
  n=0
  for line in "${proxies[@]}"; do
    n=$((n + 1))
    echo "== proxy $line" | tee -a "$log"
    # shellcheck disable=SC2086  # the line is a list of arguments
    timeout "${HEPTANE_PROXY_TIMEOUT:-480}" "$build/app/heptane" proxy $line \
      --report "$out/proxy_$n.yaml" 2>&1 | tee -a "$log"
    echo "proxy rc=${PIPESTATUS[0]}" | tee -a "$log"
    [[ -f "$out/proxy_$n.yaml" ]] && python3 "$root/scripts/check_proxy_report.py" \
      "$out/proxy_$n.yaml" 2>&1 | tee -a "$log"
  done
fi
exit $((all || gpu || san))
