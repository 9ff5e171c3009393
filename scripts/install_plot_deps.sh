#!/usr/bin/env bash
# Installs what scripts/plot_simulation.py needs: Debian's python3-matplotlib and python3-h5py
# (numpy comes with them). They serve the system interpreter, /usr/bin/python3, so run the
# script with it where `python3` on PATH is another one (pyenv, conda, a venv):
#   /usr/bin/python3 scripts/plot_simulation.py OUT.h5
# Idempotent: when both packages are installed it only checks. Not root: prints the command.
set -euo pipefail
packages=(python3-matplotlib python3-h5py)

if ! command -v dpkg-query >/dev/null; then
  echo "heptane: not a Debian system; install matplotlib and h5py for python3 yourself" >&2
  exit 1
fi
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
((${#missing[@]})) || exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "heptane: missing packages; install them with:" >&2
  echo "  sudo apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "heptane: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
