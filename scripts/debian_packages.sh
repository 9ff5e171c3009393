#!/usr/bin/env bash
# Sourced by the scripts that install Debian packages for an optional tool
# (install_plot_deps.sh, install_petsc.sh). Not run on its own.
#   install_debian_packages WHAT PACKAGE...
# installs the packages of the list that are missing (apt-get, as root; otherwise it prints
# the command and returns 1). WHAT names the tool in the messages. Returns 0 when nothing is
# missing or all installed, 1 otherwise (not Debian, not root, apt-get failed: its log's end
# is printed).
install_debian_packages() {
  local what="$1" pkg log=/tmp/heptane_apt.log
  shift
  if ! command -v dpkg-query >/dev/null; then
    echo "heptane: not a Debian system; install $what for python3 yourself" >&2
    return 1
  fi
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  if [[ $(id -u) -ne 0 ]]; then
    echo "heptane: missing packages; install them with:" >&2
    echo "  sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    return 1
  fi
  echo "heptane: installing ${missing[*]}" >&2
  if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
           "${missing[@]}"; } >"$log" 2>&1; then
    echo "heptane: apt-get failed installing ${missing[*]} ($log):" >&2
    tail -n 5 "$log" >&2
    return 1
  fi
}
