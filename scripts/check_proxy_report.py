#!/usr/bin/env python3
"""Checks a `heptane proxy` report against its schema (docs/PROXY.md, "Report").

    scripts/check_proxy_report.py REPORT.yaml [--require-valid] [--require-official]

Checks every key of schema version 2 (present, of its type, no key unknown to the schema), and
that the report is consistent with itself: the result is VALID exactly when every validation
line passed and the required lines are there; an official run has no deviations; the figure of
merit, the bandwidth ratio and every measured/predicted ratio are recomputed from the report's
own numbers; per_rank has one entry a rank. Prints "OK: ..." and exits 0, or prints each
problem and exits 1; exit 2 when the file cannot be read or is not YAML. With --require-valid a
consistent INVALID report also exits 1, with --require-official so does an unofficial one.

Needs PyYAML (Debian: python3-yaml; scripts/bootstrap.sh installs it).
"""
import argparse
import math
import sys

try:
    import yaml
except ImportError:
    sys.exit("check_proxy_report.py: needs PyYAML (Debian package python3-yaml)")

SCHEMA_NAME = "heptane-proxy-report"
SCHEMA_VERSION = 3
# Version 2: no halo_path (the reports up to 2026-11-26); version 1: per_rank entries without
# the halo, reduction and transfer medians too (docs/proxy/2026-11-24_*). Both still check.
KNOWN_VERSIONS = (1, 2, 3)
HALO_PATHS = ("none", "mpi", "host-staged", "peer")

NUM = "number"  # int or float, finite, >= 0
INT = "int"
STR = "str"
BOOL = "bool"
STRS = "list of str"

GPU = {
    "name": STR, "compute_capability": STR, "multiprocessors": INT, "memory_bytes": NUM,
    "l2_cache_bytes": NUM, "cuda": STR,
}
VALIDATION_LINE = {"name": STR, "passed": BOOL, "value": NUM, "bound": NUM, "detail": STR}
KERNEL = {
    "name": STR, "what": STR, "bytes": NUM, "flops": NUM, "intensity_flops_per_byte": NUM,
    "per_iteration": INT, "predicted_seconds": NUM, "measured_seconds": NUM,
    "measured_over_predicted": NUM,
}
SECONDARY = {
    "name": STR, "block_size": INT, "nx": INT, "ny": INT, "nz": INT, "cells": INT, "wells": INT,
    "unknowns": INT, "kernel": STR, "iterations": INT, "solver_setup_seconds": NUM,
    "timed_seconds": NUM, "solves": INT, "solve_seconds_median": NUM, "unknowns_per_second": NUM,
    "gdof_iterations_per_second": NUM, "effective_gb_per_second": NUM, "bandwidth_ratio": NUM,
    "validation": ("list", VALIDATION_LINE),
}
RANK_V1 = {"rank": INT, "cells": INT, "unknowns": INT, "wells": INT,
           "solve_seconds_median": NUM}
RANK = dict(RANK_V1, halo_seconds_median=NUM, reduction_seconds_median=NUM,
            transfer_seconds_median=NUM)
SCHEMA = {
    "schema": STR, "schema_version": INT, "result": STR, "invalid_reasons": STRS,
    "official": BOOL, "deviations": STRS, "date": STR, "command": STR,
    "machine": {
        "hostname": STR, "cpu_model": STR, "logical_cores": INT, "openmp_threads": INT,
        "host_memory_bytes": NUM, "gpu": ("optional", GPU),
    },
    "build": {
        "heptane_version": STR, "git_commit": STR, "build_type": STR, "compiler": STR,
        "cxx_flags": STR, "cuda_backend": BOOL, "cuda_compiler": STR, "cuda_flags": STR,
        "cuda_architectures": STR,
    },
    "problem": {
        "version": INT, "seed": INT, "nx": INT, "ny": INT, "nz": INT, "block_size": INT,
        "cells": INT, "wells": INT, "unknowns": INT, "nonzeros": INT, "sizing": STR,
    },
    "solver": {
        "backend": STR, "kernel": STR, "method": STR, "preconditioner": STR, "tolerance": NUM,
        "max_iterations": INT, "iterations": INT, "workspace_bytes": NUM,
        "bytes_per_iteration": NUM,
    },
    "ranks": INT,
    "halo_path": STR,
    "phases": {
        "setup": {"generation_seconds": NUM, "solver_setup_seconds": NUM,
                  "update_values_seconds": NUM},
        "validation": {"seconds": NUM},
        "timed": {"seconds": NUM, "min_seconds": NUM, "solves": INT, "iterations_per_solve": INT,
                  "solve_seconds_median": NUM, "solve_seconds": ("list", NUM),
                  "solve_wall_seconds": ("list", NUM)},
        "final_check": {"seconds": NUM},
        "model": {"seconds": NUM},
    },
    "validation": ("list", VALIDATION_LINE),
    "figure_of_merit": {
        "unknowns_per_second": NUM, "definition": STR, "solve_unknowns_per_second": NUM,
        "gdof_iterations_per_second": NUM, "effective_gb_per_second": NUM,
        "triad_gb_per_second": NUM, "bandwidth_ratio": NUM, "setup_seconds_charged": NUM,
        "setup_amortization_solves": INT,
    },
    "model": {
        "bandwidth_gb_per_second": NUM, "kernels": ("list", KERNEL),
        "iteration": {"bytes": NUM, "predicted_seconds": NUM, "measured_seconds": NUM,
                      "measured_over_predicted": NUM, "kernel_sum_bytes": NUM,
                      "kernel_sum_predicted_seconds": NUM, "kernel_sum_measured_seconds": NUM},
    },
    "secondary": ("list", SECONDARY),
    "per_rank": ("list", RANK),
}
SECONDARY_NAMES = ["k3", "k4", "k8"]
# The checks every run makes; QMR adds transpose_consistency. A run stopped by a failed check
# before the timed phase has only the lines up to it.
REQUIRED_CHECKS = ["reference_agreement", "defined_solve_converged", "reproducibility",
                   "true_residual"]


def check_type(value, kind, where, problems, version=SCHEMA_VERSION):
    """Appends to `problems` where `value` does not have the schema type `kind` (of schema
    `version`)."""
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            problems.append(f"{where}: expected a mapping, found {type(value).__name__}")
            return
        for key, sub in kind.items():
            if key not in value:
                problems.append(f"{where}.{key}: missing")
            else:
                check_type(value[key], sub, f"{where}.{key}", problems, version)
        for key in value:
            if key not in kind:
                problems.append(f"{where}.{key}: not in schema version {version}")
        return
    if isinstance(kind, tuple):
        tag, sub = kind
        if tag == "optional":
            if value is not None:
                check_type(value, sub, where, problems, version)
            return
        if not isinstance(value, list):
            problems.append(f"{where}: expected a list")
            return
        for i, item in enumerate(value):
            check_type(item, sub, f"{where}[{i}]", problems, version)
        return
    if kind == STR:
        ok = isinstance(value, str)
    elif kind == BOOL:
        ok = isinstance(value, bool)
    elif kind == INT:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    elif kind == NUM:
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
              and math.isfinite(value) and value >= 0)
    elif kind == STRS:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    else:
        raise ValueError(kind)
    if not ok:
        problems.append(f"{where}: expected {kind}, found {value!r}")


def close(a, b, rtol=1e-6):
    return abs(a - b) <= rtol * max(abs(a), abs(b), 1e-300)


def check_consistency(r, problems):
    """The report against itself (only called when the types are right)."""
    if r["schema"] != SCHEMA_NAME:
        problems.append(f"schema: expected {SCHEMA_NAME!r}, found {r['schema']!r}")
    if r["schema_version"] not in KNOWN_VERSIONS:
        problems.append(f"schema_version: this checker knows {KNOWN_VERSIONS}, "
                        f"found {r['schema_version']}")
    if r["result"] not in ("VALID", "INVALID"):
        problems.append(f"result: VALID or INVALID, found {r['result']!r}")
    required = REQUIRED_CHECKS + (["transpose_consistency"]
                                  if r["solver"]["method"] == "qmr" else [])
    # Every check of the defined problem and of each variant, prefixed with the variant's name.
    lines = list(r["validation"])
    missing = [n for n in required if n not in [v["name"] for v in r["validation"]]]
    for v in r["secondary"]:
        lines += [dict(line, name=f"{v['name']} {line['name']}") for line in v["validation"]]
        missing += [f"{v['name']} {n}" for n in required
                    if n not in [line["name"] for line in v["validation"]]]
    failed = [v["name"] for v in lines if not v["passed"]]
    secondary_names = [v["name"] for v in r["secondary"]]
    no_secondary = "--no-secondary" in r["deviations"] or \
        "no secondary variants under mpirun" in r["deviations"]
    if r["result"] == "VALID" and not no_secondary and secondary_names != SECONDARY_NAMES:
        problems.append(f"secondary: {secondary_names} in a VALID run (expected "
                        f"{SECONDARY_NAMES} unless --no-secondary)")
    for v in r["secondary"]:
        if v["cells"] != v["nx"] * v["ny"] * v["nz"]:
            problems.append(f"secondary {v['name']}: cells is not nx * ny * nz")
        if v["unknowns"] != v["cells"] * v["block_size"] + v["wells"]:
            problems.append(f"secondary {v['name']}: unknowns is not cells * K + wells")
    if r["result"] == "VALID":
        if failed:
            problems.append(f"result: VALID with failed checks {failed}")
        if missing:
            problems.append(f"result: VALID without the checks {missing}")
        if r["invalid_reasons"]:
            problems.append("invalid_reasons: not empty in a VALID report")
        for v in lines:
            if v["passed"] and v["value"] > v["bound"] and v["name"] != "defined_solve_converged":
                problems.append(f"validation {v['name']}: passed with value {v['value']} "
                                f"above its bound {v['bound']}")
    elif r["result"] == "INVALID":
        if not r["invalid_reasons"]:
            problems.append("invalid_reasons: empty in an INVALID report")
        if not failed and not missing:
            problems.append("result: INVALID but every check passed")
    if r["official"] and r["deviations"]:
        problems.append("official: true with deviations")
    if not r["official"] and not r["deviations"]:
        problems.append("official: false without a deviation saying why")

    p = r["problem"]
    if p["cells"] != p["nx"] * p["ny"] * p["nz"]:
        problems.append("problem.cells: not nx * ny * nz")
    if p["unknowns"] != p["cells"] * p["block_size"] + p["wells"]:
        problems.append("problem.unknowns: not cells * block_size + wells")
    if r["ranks"] != len(r["per_rank"]):
        problems.append(f"per_rank: {len(r['per_rank'])} entries for {r['ranks']} ranks")
    elif sum(x["cells"] for x in r["per_rank"]) != p["cells"]:
        problems.append("per_rank: the ranks' cells do not add up to problem.cells")
    if "halo_path" in r:
        halo, backend = r["halo_path"], r["solver"]["backend"]
        if halo not in HALO_PATHS:
            problems.append(f"halo_path: {halo!r} is not one of {HALO_PATHS}")
        elif halo == "none" and r["ranks"] > 1:
            problems.append(f"halo_path: none with {r['ranks']} ranks")
        elif (halo == "mpi") != (backend == "cpu") and halo != "none":
            problems.append(f"halo_path: {halo} on the {backend} backend")

    t = r["phases"]["timed"]
    fom = r["figure_of_merit"]
    if len(t["solve_seconds"]) != t["solves"] or len(t["solve_wall_seconds"]) != t["solves"]:
        problems.append("phases.timed: solves does not match the lists of times")
    if r["result"] == "VALID":
        if t["solves"] < 1 or t["solve_seconds_median"] <= 0:
            problems.append("phases.timed: a VALID run without timed solves")
        elif t["seconds"] < t["min_seconds"]:
            problems.append("phases.timed: shorter than its min_seconds")
        if t["iterations_per_solve"] != r["solver"]["iterations"]:
            problems.append("phases.timed.iterations_per_solve: not solver.iterations")
        times = sorted(t["solve_seconds"])
        if times:
            n = len(times)
            median = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
            if not close(median, t["solve_seconds_median"]):
                problems.append("phases.timed.solve_seconds_median: not the median of the list")
        expected = p["unknowns"] / (t["solve_seconds_median"] + fom["setup_seconds_charged"]
                                    / fom["setup_amortization_solves"])
        if not close(expected, fom["unknowns_per_second"]):
            problems.append(f"figure_of_merit.unknowns_per_second: {fom['unknowns_per_second']}"
                            f", the definition gives {expected}")
        if not close(fom["setup_seconds_charged"],
                     r["phases"]["setup"]["solver_setup_seconds"]):
            problems.append("figure_of_merit.setup_seconds_charged: not the solver setup")
        if not close(fom["bandwidth_ratio"],
                     fom["effective_gb_per_second"] / fom["triad_gb_per_second"]):
            problems.append("figure_of_merit.bandwidth_ratio: not effective / triad")
        if not r["model"]["kernels"]:
            problems.append("model.kernels: empty in a VALID run")
    it = r["model"]["iteration"]
    kernels = r["model"]["kernels"]
    sums = {
        "kernel_sum_bytes": sum(k["bytes"] * k["per_iteration"] for k in kernels),
        "kernel_sum_predicted_seconds": sum(k["predicted_seconds"] * k["per_iteration"]
                                            for k in kernels),
        "kernel_sum_measured_seconds": sum(k["measured_seconds"] * k["per_iteration"]
                                           for k in kernels),
    }
    for key, value in sums.items():
        if not close(it[key], value):
            problems.append(f"model.iteration.{key}: {it[key]}, the kernels give {value}")
    for k in kernels + [dict(it, name="iteration")]:
        if k["predicted_seconds"] > 0 and not close(
                k["measured_over_predicted"], k["measured_seconds"] / k["predicted_seconds"]):
            problems.append(f"model {k['name']}: measured_over_predicted is not the ratio")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report")
    parser.add_argument("--require-valid", action="store_true")
    parser.add_argument("--require-official", action="store_true")
    args = parser.parse_args()
    try:
        with open(args.report, encoding="utf-8") as f:
            report = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print(f"check_proxy_report.py: {args.report}: {e}", file=sys.stderr)
        return 2
    problems = []
    schema = SCHEMA
    if isinstance(report, dict) and report.get("schema_version") in (1, 2):
        schema = {k: v for k, v in SCHEMA.items() if k != "halo_path"}
        if report["schema_version"] == 1:
            schema["per_rank"] = ("list", RANK_V1)
    version = report.get("schema_version") if isinstance(report, dict) else None
    check_type(report, schema, "report", problems,
               version if version in KNOWN_VERSIONS else SCHEMA_VERSION)
    if not problems:
        check_consistency(report, problems)
    if not problems:
        if args.require_valid and report["result"] != "VALID":
            problems.append("result: INVALID (--require-valid): "
                            + "; ".join(report["invalid_reasons"]))
        if args.require_official and not report["official"]:
            problems.append("official: false (--require-official): "
                            + "; ".join(report["deviations"]))
    if problems:
        for p in problems:
            print(f"{args.report}: {p}")
        return 1
    print(f"OK: {args.report} follows {SCHEMA_NAME} version {report['schema_version']}: "
          f"{report['result']}"
          f", {'official' if report['official'] else 'not official'}, "
          f"figure of merit {report['figure_of_merit']['unknowns_per_second']:.4g} unknowns/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
