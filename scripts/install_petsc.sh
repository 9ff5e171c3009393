#!/usr/bin/env bash
# Installs what scripts/petsc_cpr.py needs: Debian's PETSc (real, 32-bit indices, built with
# hypre) and its Python bindings petsc4py (numpy comes with them). petsc-dev is there for the
# /usr/lib/petsc link that petsc4py's .pth file looks in (without it, or PETSC_DIR, petsc4py
# does not import). They serve the system interpreter, /usr/bin/python3, so run the script
# with it where `python3` on PATH is another one (pyenv, conda, a venv):
#   /usr/bin/python3 scripts/petsc_cpr.py A.mtx b.mtx --block-size 2 --cells 4608
# Idempotent: when the packages are installed it only checks that petsc4py imports and has
# hypre's BoomerAMG. Not root: prints the command.
set -euo pipefail
packages=(python3-petsc4py python3-petsc4py-real petsc-dev)
check='from petsc4py import PETSc
pc = PETSc.PC().create(); pc.setType("hypre"); pc.setHYPREType("boomeramg")'

# shellcheck source=scripts/debian_packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian_packages.sh"
install_debian_packages "PETSc with hypre and petsc4py" "${packages[@]}"

if ! /usr/bin/python3 -c "$check" 2>/tmp/heptane_install_petsc.err; then
  echo "heptane: petsc4py does not import with hypre BoomerAMG under /usr/bin/python3:" >&2
  cat /tmp/heptane_install_petsc.err >&2
  exit 1
fi
