#!/usr/bin/env python3
"""Sums Nsight Compute's per-launch kernel times (a --csv run with the metric
gpu__time_duration.sum, as scripts/gpu_check.sh's HEPTANE_NCU writes it) by kernel name:
launches, total and mean microseconds, share of the total, largest first.
    scripts/ncu_summary.py ncu.csv"""
import csv
import sys
from collections import defaultdict


def main(path):
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # the program's output is not CSV
    rows = list(csv.DictReader(lines))
    total = defaultdict(float)
    count = defaultdict(int)
    unit_scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}
    for r in rows:
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = r["Kernel Name"].replace("(anonymous namespace)::", "").split("(")[0]
        value = float(r["Metric Value"].replace(",", ""))
        total[name] += value * unit_scale.get(r.get("Metric Unit", "nsecond"), 1e-3)
        count[name] += 1
    grand = sum(total.values())
    print(f"{sum(count.values())} launches, {grand:.1f} us")
    for name in sorted(total, key=total.get, reverse=True):
        print(f"  {count[name]:5d} x {total[name] / count[name]:9.2f} us = {total[name]:10.1f} us"
              f" ({100 * total[name] / grand:5.1f}%)  {name}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
