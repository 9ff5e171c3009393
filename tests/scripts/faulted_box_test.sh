#!/usr/bin/env bash
# scripts/faulted_box.py (the benchmark reservoir of design decisions 64, 65): a small one is
# simulated to its end with its faults' connections, and a grid too small for two faults is
# refused.
#   faulted_box_test.sh HEPTANE
set -uo pipefail
heptane=$1
script="$(dirname "$0")/../../scripts/faulted_box.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
python3 "$script" "$dir" 8 6 4 --days 30 >/dev/null || { echo "the script failed"; exit 1; }
if "$heptane" simulate "$dir/faulted_box.yaml" --backend cpu -o "$dir/o.h5" >"$dir/log" 2>&1; then
  n=$(sed -n 's/.*(\([0-9,]*\) non-neighbour connections).*/\1/p' "$dir/log" | head -1)
  [[ -n $n && $n != 0 ]] || { echo "no connections reported"; cat "$dir/log"; fail=1; }
  grep -q "day 30.00 " "$dir/log" || { echo "the run did not reach day 30"; cat "$dir/log"; fail=1; }
else
  echo "simulate failed"; cat "$dir/log"; fail=1
fi
python3 "$script" "$dir/small" 3 3 2 >/dev/null 2>&1 && { echo "3 x 3 x 2 accepted"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok: faulted_box.py 8 x 6 x 4 ($n connections) simulated to day 30"
exit $fail
