#!/usr/bin/env bash
# Installs what scripts/plot_simulation.py needs: Debian's python3-matplotlib and python3-h5py
# (numpy comes with them). They serve the system interpreter, /usr/bin/python3, so run the
# script with it where `python3` on PATH is another one (pyenv, conda, a venv):
#   /usr/bin/python3 scripts/plot_simulation.py OUT.h5
# Idempotent: when both packages are installed it only checks. Not root: prints the command.
set -euo pipefail
# shellcheck source=scripts/debian_packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian_packages.sh"
install_debian_packages "matplotlib and h5py" python3-matplotlib python3-h5py
