#!/usr/bin/env python3
"""Writes a faulted corner-point reservoir of any size and its simulation deck, for measuring
heptane on faulted grids larger than the test decks (docs/BENCHMARKS.md, design decisions 63-65).

    scripts/faulted_box.py DIR NX NY NZ [--days D]

DIR/faulted_box.grdecl: vertical pillars 100 x 100 ft apart, layers 10 ft thick from 8,000 ft,
two faults: the columns i >= NX/2 thrown down by 1.5 layers (connections along i) and the
columns j >= NY/2 thrown down by 0.7 of a layer more (connections along j), so every column
pair across either fault meets two layers of the other side. Permeability by layer (a
lognormal-like cycle of 10 values, 5-500 mD; PERMZ a tenth), porosity 0.2.
DIR/faulted_box.yaml: a five-spot waterflood of it (an injector in the middle, a BHP producer
in each corner), D days (default 360).
"""
import argparse
import os

PERM_CYCLE = [50.0, 200.0, 12.0, 500.0, 80.0, 5.0, 150.0, 30.0, 300.0, 20.0]


def write_values(f, values, per_line=8):
    for n in range(0, len(values), per_line):
        f.write(" " + " ".join(values[n:n + per_line]) + "\n")
    f.write("/\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("nx", type=int)
    ap.add_argument("ny", type=int)
    ap.add_argument("nz", type=int)
    ap.add_argument("--days", type=float, default=360.0)
    a = ap.parse_args()
    nx, ny, nz = a.nx, a.ny, a.nz
    if min(nx, ny) < 4 or nz < 3:
        ap.error("at least 4 x 4 x 3 cells")
    os.makedirs(a.dir, exist_ok=True)
    dx = dy = 100.0
    dz = 10.0
    top = 8000.0

    def throw(i, j):  # the depth shift of column (i, j)
        return (1.5 * dz if i >= nx // 2 else 0.0) + (0.7 * dz if j >= ny // 2 else 0.0)

    grdecl = os.path.join(a.dir, "faulted_box.grdecl")
    with open(grdecl, "w") as f:
        f.write("-- scripts/faulted_box.py %d %d %d: two faults (see the script)\n" % (nx, ny, nz))
        f.write("COORD\n")
        coord = []
        for pj in range(ny + 1):
            for pi in range(nx + 1):
                x, y = pi * dx, pj * dy
                coord += ["%g" % v for v in (x, y, top - 100.0, x, y, top + 3.0 * nz * dz)]
        write_values(f, coord, 6)
        f.write("ZCORN\n")
        zcorn = []
        for k in range(nz):
            for bottom in (0, 1):
                for j2 in range(2 * ny):
                    for i2 in range(2 * nx):
                        z = top + (k + bottom) * dz + throw(i2 // 2, j2 // 2)
                        zcorn.append("%g" % z)
        write_values(f, zcorn)
        cells = nx * ny
        for key, scale in (("PERMX", 1.0), ("PERMY", 1.0), ("PERMZ", 0.1)):
            f.write(key + "\n")
            write_values(f, ["%d*%g" % (cells, scale * PERM_CYCLE[k % len(PERM_CYCLE)])
                             for k in range(nz)], 4)
        f.write("PORO\n %d*0.2 /\n" % (cells * nz))

    deck = os.path.join(a.dir, "faulted_box.yaml")
    with open(deck, "w") as f:
        f.write("# scripts/faulted_box.py %d %d %d: a five-spot waterflood of two faults' "
                "reservoir\n" % (nx, ny, nz))
        f.write("title: faulted box %d x %d x %d\nunits: field\n" % (nx, ny, nz))
        f.write("grid:\n  dims: [%d, %d, %d]\n  eclipse: faulted_box.grdecl\n" % (nx, ny, nz))
        f.write("rock:\n  compressibility: 3.0e-6\n")
        f.write("fluid:\n  model: two_phase\n"
                "  oil: {density: 53.0, viscosity: 2.0, compressibility: 1.0e-5}\n"
                "  water: {density: 64.0, viscosity: 0.5, compressibility: 3.0e-6}\n"
                "  relperm: {swc: 0.2, sor: 0.2, nw: 2, no: 2}\n"
                "  reference_pressure: 4000\n")
        f.write("wells:\n")
        f.write("  - {name: INJ, type: injector, column: [%d, %d], control: {kind: rate, "
                "value: %g}}\n" % (nx // 2, ny // 2, 20.0 * nx * ny * nz / 100.0))
        corners = [(0, 0), (nx - 1, 0), (0, ny - 1), (nx - 1, ny - 1)]  # 0-based columns
        for n, (i, j) in enumerate(corners):
            f.write("  - {name: P%d, type: producer, column: [%d, %d], control: {kind: bhp, "
                    "value: 3000}}\n" % (n + 1, i, j))
        f.write("initial: {pressure: 4000, datum_depth: 8000, water_saturation: 0.2}\n")
        f.write("schedule: {end_time: %g, report_interval: %g, dt_initial: 1, dt_max: 30}\n"
                % (a.days, a.days / 4.0))
        f.write("solver: {method: bicgstab, preconditioner: cpr, tolerance: 1.0e-6, "
                "max_iterations: 500}\n")
        f.write("output: {file: faulted_box.h5}\n")
    print(deck)


if __name__ == "__main__":
    main()
