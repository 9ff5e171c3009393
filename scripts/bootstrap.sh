#!/usr/bin/env bash
# Installs missing Debian packages, configures (Release) and builds heptane.
# Idempotent: when nothing changed it only checks and returns in a second or two.
#   HEPTANE_BUILD_DIR   build folder (default: build)
#   HEPTANE_CMAKE_ARGS  extra CMake arguments, e.g. "-DHEPTANE_ENABLE_CUDA=OFF"
#                       (given: the project is reconfigured with them)
#   HEPTANE_DEPS_ONLY   1: install the packages, then stop (scripts/fuzz.sh builds its own way)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HEPTANE_BUILD_DIR:-build}"
[[ "$build" = /* ]] || build="$root/$build"

# ---- dependencies: Debian package <- a file it provides -------------------------------
declare -A probe=(
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [libeigen3-dev]=eigen3/Eigen/Core
  [libhdf5-dev]=hdf5/serial/hdf5.h
  [libyaml-cpp-dev]=yaml-cpp/yaml.h
  [libgtest-dev]=gtest/gtest.h
  [libcli11-dev]=CLI/CLI.hpp
  [zlib1g-dev]=zlib.h
  [python3-yaml]=/usr/lib/python3/dist-packages/yaml/__init__.py  # scripts/check_proxy_report.py
  [openmpi-bin]=/usr/bin/mpirun.openmpi  # dist/ (issue 25) and its mpirun tests
  [libopenmpi-dev]=/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h
)
have() {  # absolute path, or a header in the usual include folders
  case "$1" in
    /*) [[ -e "$1" ]] ;;
    *) [[ -e "/usr/include/$1" || -e "/usr/local/include/$1" ]] \
         || { [[ "$1" == hdf5/serial/hdf5.h ]] && [[ -e /usr/include/hdf5.h || -e /usr/local/include/hdf5.h ]]; } ;;
  esac
}
missing=()
for pkg in "${!probe[@]}"; do have "${probe[$pkg]}" || missing+=("$pkg"); done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "heptane: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "heptane: missing packages; install them with:" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

[[ "${HEPTANE_DEPS_ONLY:-0}" == 1 ]] && exit 0

# ---- configure once (or again when arguments are given), then build ----------------------
log="$build/bootstrap.log"
mkdir -p "$build"
if [[ ! -f "$build/CMakeCache.txt" || -n "${HEPTANE_CMAKE_ARGS:-}" ]]; then
  # shellcheck disable=SC2086  # HEPTANE_CMAKE_ARGS is a list of arguments
  if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${HEPTANE_CMAKE_ARGS:-} >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "heptane: configuration failed (full log: $log)" >&2
    exit 1
  fi
fi
jobs="$(nproc 2>/dev/null || echo 2)"
if ! cmake --build "$build" -j "$jobs" >"$log" 2>&1; then
  grep -E "error|Error" "$log" | head -n 40 >&2 || true
  tail -n 20 "$log" >&2
  echo "heptane: build failed (full log: $log)" >&2
  exit 1
fi
grep -qE "Building|Linking" "$log" && echo "heptane: built in $build" >&2
exit 0
