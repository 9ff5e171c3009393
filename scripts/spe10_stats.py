#!/usr/bin/env python3
"""Statistics of the SPE10 model 2 permeability field that define the proxy problem
(docs/PROXY.md): mean and standard deviation of ln k_x over all cells, the geometric mean of
k_x and of k_z / k_x.

    python3 scripts/spe10_stats.py [inputs/data/spe10/spe_perm.dat.gz]

Standard library only. The file holds k_x, k_y, k_z for 60 x 220 x 85 cells, in that order.
"""
import gzip
import math
import sys

CELLS = 60 * 220 * 85


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "inputs/data/spe10/spe_perm.dat.gz"
    opener = gzip.open if path.endswith(".gz") else open
    values = []
    with opener(path, "rt") as f:
        for line in f:
            values.extend(float(x) for x in line.split())
    if len(values) != 3 * CELLS:
        sys.exit(f"spe10_stats.py: {path}: {len(values)} values, expected {3 * CELLS}")
    kx, kz = values[:CELLS], values[2 * CELLS:]
    if min(kx) <= 0.0 or min(kz) <= 0.0:
        sys.exit(f"spe10_stats.py: {path}: non-positive permeability")
    ln_kx = [math.log(k) for k in kx]
    mean = sum(ln_kx) / CELLS
    sigma = math.sqrt(sum((x - mean) ** 2 for x in ln_kx) / CELLS)
    ratio = math.exp(sum(math.log(z / x) for x, z in zip(kx, kz)) / CELLS)
    print(f"cells {CELLS}")
    print(f"ln kx: mean {mean:.4f} (geometric mean {math.exp(mean):.3f} mD), sigma {sigma:.4f}")
    print(f"kz / kx: geometric mean {ratio:.4g}")


if __name__ == "__main__":
    main()
