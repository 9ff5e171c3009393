#!/usr/bin/env bash
# Fuzzes heptane's input readers (issue 19): builds the libFuzzer targets of fuzz/ with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer, seeds each corpus from inputs/ and tests/,
# runs every target for SECONDS and prints, per target, the executions, the coverage and what
# it found. Exit 1 when a target found a crash, a leak, a timeout or an out-of-memory input:
# its reproducer is under $HEPTANE_FUZZ_DIR/artifacts/TARGET/; add it to
# tests/fuzz/cases/TARGET/ with the fix (tests/fuzz replays those in every build).
#   usage: scripts/fuzz.sh [SECONDS]        (default 60 per target)
#   HEPTANE_FUZZ_DIR   build and work folder (default: build-fuzz)
#   HEPTANE_FUZZ_JOBS  targets run at once (default: the number of cores)
#   HEPTANE_FUZZ_TARGETS  the targets to run (default: "deck matrix_market eclipse spe10")
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "heptane: fuzz.sh: SECONDS must be a positive integer, got '$seconds'" >&2; exit 2; }
work="${HEPTANE_FUZZ_DIR:-build-fuzz}"
[[ "$work" = /* ]] || work="$root/$work"
jobs="${HEPTANE_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
read -r -a targets <<<"${HEPTANE_FUZZ_TARGETS:-deck matrix_market eclipse spe10}"

# ---- clang with libFuzzer (Debian: clang, libclang-rt-dev) -------------------------------
probe() { echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
            clang++ -x c++ - -fsanitize=fuzzer,address,undefined -o "$work/probe" >/dev/null 2>&1; }
mkdir -p "$work"
if ! command -v clang++ >/dev/null || ! probe; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "heptane: installing clang libclang-rt-dev (libFuzzer)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends clang libclang-rt-dev >&2
  fi
  probe || { echo "heptane: fuzz.sh needs clang with libFuzzer: sudo apt-get install clang libclang-rt-dev" >&2; exit 1; }
fi
HEPTANE_DEPS_ONLY=1 "$root/scripts/bootstrap.sh"  # the libraries heptane links

# ---- build (clang, no CUDA, no tests: only the fuzz executables) ---------------------------
build="$work/build"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHEPTANE_ENABLE_CUDA=OFF -DHEPTANE_BUILD_TESTS=OFF -DHEPTANE_FUZZ=ON >"$work/configure.log" 2>&1 ||
    { tail -n 30 "$work/configure.log" >&2; exit 1; }
fi
start=$SECONDS
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]/#/fuzz_}" >"$work/build.log" 2>&1 ||
  { grep -E "error" "$work/build.log" | head -n 30 >&2; exit 1; }
echo "heptane: fuzz targets built in $((SECONDS - start)) s" >&2

# ---- seed corpora: the project's own inputs, small files whole, big ones by their head ------
seed() {  # seed TARGET FILE...: copies each file, cut to 64 KiB, into the target's seed folder
  local dir="$work/seeds/$1"; shift
  mkdir -p "$dir"
  local f
  for f in "$@"; do head -c 65536 "$f" >"$dir/$(echo "$f" | tr '/' '_')"; done
}
rm -rf "$work/seeds"
cd "$root"
mapfile -t decks < <(find inputs tests -name '*.yaml' -size -64k | sort)
mapfile -t mtx < <(find inputs tests -name '*.mtx' | sort)
seed deck "${decks[@]}"
seed matrix_market "${mtx[@]}"
seed eclipse inputs/data/spe9/PERMVALUES.DATA $(find inputs/data -iname "*.inc" -o -iname "*.data" | grep -v spe9 | sort) $(find tests -name '*.inc' -o -name '*.DATA' | sort)
mkdir -p "$work/seeds/spe10"
{ gzip -dc inputs/data/spe10/spe_perm.dat.gz || true; } | head -c 65536 >"$work/seeds/spe10/spe_perm_head.dat"
for t in "${targets[@]}"; do
  mkdir -p "$work/seeds/$t"
  [[ -d "tests/fuzz/cases/$t" ]] && cp tests/fuzz/cases/"$t"/* "$work/seeds/$t/" 2>/dev/null || true
done

# ---- run: each target for SECONDS, JOBS at a time; the corpus it grows is kept ------------
run_one() {
  local t="$1"
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
  # -rss_limit_mb: an input that needs gigabytes is a finding (sizes must be checked first).
  # timeout: a process that libFuzzer itself cannot stop (seen once after an out-of-memory).
  timeout --kill-after=30 $((seconds + 120)) "$build/fuzz/fuzz_$t" "$work/corpus/$t" "$work/seeds/$t" \
    -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/" >"$work/$t.log" 2>&1
}
pids=() status=0
for t in "${targets[@]}"; do
  rm -f "$work/artifacts/$t"/* 2>/dev/null || true
  run_one "$t" & pids+=($!)
  if ((${#pids[@]} >= jobs)); then wait "${pids[0]}" || status=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done

# ---- summary -------------------------------------------------------------------------------
printf '%-14s %8s %12s %10s %8s %8s  %s\n' target seconds executions exec/s cov features found
for t in "${targets[@]}"; do
  log="$work/$t.log"
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  last=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]* ft: [0-9]*' | tail -n 1)
  cov=$(echo "$last" | awk '{print $2}'); ft=$(echo "$last" | awk '{print $4}')
  found=$(find "$work/artifacts/$t" -type f | wc -l)
  printf '%-14s %8s %12s %10s %8s %8s  %s\n' "$t" "$seconds" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$found"
  if ((found > 0)); then
    status=1
    find "$work/artifacts/$t" -type f | sed 's/^/    /'
    grep -E 'ERROR|SUMMARY|terminate|what\(\)' "$log" | head -n 5 | sed 's/^/    /'
  fi
done
exit "$status"
