#!/usr/bin/env python3
"""Weak scaling from heptane proxy reports (docs/PROXY.md, "Under mpirun").

    scripts/weak_scaling.py REPORT.yaml [REPORT.yaml ...]

Each report is one run of `mpirun -np N heptane proxy` with the same size a rank (--dims or
the memory fraction), so the grid grows with the ranks along i. Prints, per report, the ranks,
the cells a rank, the iterations, the time an iteration, the figure of merit a rank, and the
weak-scaling efficiency against the report with the fewest ranks: per iteration (its time an
iteration over this one's: the work a rank does an iteration is the same, the iterations grow
with the grid) and per figure of merit a rank; and rank 0's milliseconds an iteration in halo
exchanges and in joins of sums across the ranks (0 in reports of schema version 1). Exit 1 if a report is not VALID or the sizes a
rank differ. Needs PyYAML (Debian: python3-yaml).
"""
import sys

try:
    import yaml
except ImportError:
    sys.exit("weak_scaling.py: needs PyYAML (Debian package python3-yaml)")


def summary(path):
    with open(path) as f:
        r = yaml.safe_load(f)
    ranks = r["ranks"]
    timed = r["phases"]["timed"]
    iterations = timed["iterations_per_solve"]
    return {
        "path": path, "valid": r["result"] == "VALID", "ranks": ranks,
        "cells_a_rank": r["problem"]["cells"] // ranks, "backend": r["solver"]["backend"],
        "kernel": r["solver"]["kernel"], "iterations": iterations,
        "per_iteration": timed["solve_seconds_median"] / max(iterations, 1),
        "fom_a_rank": r["figure_of_merit"]["unknowns_per_second"] / ranks,
        # rank 0's ms an iteration in halo exchanges and in joins of sums (schema version 2)
        "halo": r["per_rank"][0].get("halo_seconds_median", 0.0) / max(iterations, 1),
        "joins": r["per_rank"][0].get("reduction_seconds_median", 0.0) / max(iterations, 1),
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = sorted((summary(p) for p in sys.argv[1:]), key=lambda s: s["ranks"])
    base = runs[0]
    status = 0
    print(f"{'ranks':>5} {'cells a rank':>14} {'iterations':>10} {'ms / it':>9} "
          f"{'FOM a rank':>12} {'eff. / it':>9} {'eff. FOM':>9} {'halo ms/it':>10} "
          f"{'joins ms/it':>11}  report")
    for s in runs:
        if not s["valid"]:
            print(f"{s['path']}: not VALID")
            status = 1
        if s["cells_a_rank"] != base["cells_a_rank"]:
            print(f"{s['path']}: {s['cells_a_rank']} cells a rank, the base has "
                  f"{base['cells_a_rank']}")
            status = 1
        print(f"{s['ranks']:>5} {s['cells_a_rank']:>14,} {s['iterations']:>10} "
              f"{1e3 * s['per_iteration']:>9.3f} {s['fom_a_rank']:>12.4e} "
              f"{base['per_iteration'] / s['per_iteration']:>9.3f} "
              f"{s['fom_a_rank'] / base['fom_a_rank']:>9.3f} {1e3 * s['halo']:>10.3f} "
              f"{1e3 * s['joins']:>11.3f}  {s['path']} ({s['kernel']})")
    return status


if __name__ == "__main__":
    sys.exit(main())
