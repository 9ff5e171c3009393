#!/usr/bin/env bash
# Smoke test of scripts/plot_simulation.py on a `heptane simulate` result:
#   tests/scripts/plot_simulation_test.sh H5FILE
# - run with the defaults (on a copy, so the PNGs land beside it named after its stem) and with
#   --outdir/--prefix: every expected PNG is written, is a PNG, and its path is printed;
# - a missing file, a file that is not HDF5 and an HDF5 file that is not a simulation result
#   each end with exit status 2 and a "plot_simulation.py: FILE: ..." message.
# Exit status 77 (ctest SKIP_RETURN_CODE) where /usr/bin/python3 lacks matplotlib or h5py
# (scripts/install_plot_deps.sh installs them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
script="$root/scripts/plot_simulation.py"
python=/usr/bin/python3  # Debian's python3-matplotlib and python3-h5py serve this one
plots=(rates water_cut bhp linear_iterations field regions)

if [[ $# -ne 1 ]]; then
  echo "usage: $0 H5FILE" >&2
  exit 2
fi
h5="$1"
if [[ ! -f "$h5" ]]; then
  echo "FAIL: no file $h5" >&2
  exit 1
fi
if ! "$python" -c "import matplotlib, h5py" 2>/dev/null; then
  echo "SKIP: $python cannot import matplotlib and h5py (scripts/install_plot_deps.sh)"
  exit 77
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# The PNGs of prefix $2 in folder $1 exist, are PNGs and are exactly what stdout ($3) lists.
check_pngs() {
  local dir="$1" prefix="$2" stdout="$3" expected="" plot png
  for plot in "${plots[@]}"; do
    png="$dir/${prefix}_$plot.png"
    expected+="$png"$'\n'
    if [[ ! -s "$png" ]]; then
      fail "$png missing or empty"
    elif [[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]]; then
      fail "$png is not a PNG"
    fi
  done
  [[ "$(cat "$stdout")"$'\n' == "$expected" ]] || fail "stdout lists $(tr '\n' ' ' <"$stdout")"
}

# Defaults: the folder of the file, the stem of its name.
cp "$h5" "$tmp/result.h5"
if "$python" "$script" "$tmp/result.h5" >"$tmp/stdout" 2>"$tmp/stderr"; then
  check_pngs "$tmp" result "$tmp/stdout"
else
  fail "plot_simulation.py $tmp/result.h5 exited with $?: $(cat "$tmp/stderr")"
fi

# --outdir (created when missing) and --prefix.
if "$python" "$script" "$h5" --outdir "$tmp/out" --prefix smoke >"$tmp/stdout" 2>"$tmp/stderr"; then
  check_pngs "$tmp/out" smoke "$tmp/stdout"
else
  fail "plot_simulation.py $h5 --outdir --prefix exited with $?: $(cat "$tmp/stderr")"
fi

# Files it cannot plot: exit status 2 and one message naming the file.
echo "not HDF5" >"$tmp/text.h5"
"$python" -c "import h5py, sys; h5py.File(sys.argv[1], 'w').attrs['kind'] = 'run'" "$tmp/run.h5"
for bad in "$tmp/missing.h5" "$tmp/text.h5" "$tmp/run.h5"; do
  rc=0
  "$python" "$script" "$bad" --outdir "$tmp/bad" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
  if [[ $rc -ne 2 ]]; then
    fail "$bad: exit status $rc, expected 2"
  elif [[ "$(cat "$tmp/stderr")" != "plot_simulation.py: $bad: "* ]]; then
    fail "$bad: stderr: $(cat "$tmp/stderr")"
  elif [[ -s "$tmp/stdout" || -e "$tmp/bad" ]]; then
    fail "$bad: wrote output"
  fi
done

if ((failures)); then
  echo "plot_simulation_test: $failures failure(s)" >&2
  exit 1
fi
echo "plot_simulation_test: ok ($h5)"
