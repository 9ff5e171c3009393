#!/usr/bin/env python3
"""Plots the result file of `heptane simulate` (HDF5, /wells, /field and /simulation) as PNG files.

    scripts/plot_simulation.py OUT.h5 [--outdir DIR] [--prefix NAME]

writes, in DIR (default: the folder of OUT.h5), NAME_PLOT.png (NAME default: the stem of OUT.h5):
  rates              producers' oil (solid) and water (dashed) rates; injectors' water injection
  water_cut          water cut of each producer
  bhp                bottom-hole pressure of every well, and a timeline of each well's control
                     (shut, rate, bhp)
  linear_iterations  linear iterations of every Newton iteration (cut attempts included), and
                     Newton iterations per accepted time step
  field              the field's rates (oil and water produced, water injected) per step, and
                     the fluid in place at the report times (oil, water, and the pressure
                     weighted by hydrocarbon pore volume): /field, /field/in_place
  regions            each fluid-in-place region's oil in place and pressure at the report
                     times (/regions/in_place, a deck with FIP regions; a note without them)
A history well's observed series (WCONHIST, WCONINJH: /wells/NAME/*_history) are drawn dotted
beside its simulated rates and BHP.
and prints their paths, one a line. Exit status 2 when OUT.h5 is missing, not HDF5 or not a
simulation result (no /simulation and /wells, e.g. a `heptane run` file).

It needs matplotlib and h5py. On Debian and Ubuntu these are the packages python3-matplotlib
and python3-h5py (scripts/install_plot_deps.sh installs them), which serve /usr/bin/python3
only: where `python3` on PATH is another interpreter (pyenv, conda, a venv), run
    /usr/bin/python3 scripts/plot_simulation.py OUT.h5

Every per-step quantity in the file is the value at the end of an accepted (implicit) time
step, so the plots draw it as constant over that step: a step line from the step's start to
its end.
"""
import argparse
import os
import sys
from dataclasses import dataclass

try:
    import h5py
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError as e:
    sys.exit(f"plot_simulation.py: {e}; install python3-matplotlib and python3-h5py "
             "(scripts/install_plot_deps.sh) and run with /usr/bin/python3")

PROG = "plot_simulation.py"
CONTROL_NAMES = {0: "shut", 1: "rate", 2: "bhp", 3: "oil_rate", 4: "water_rate"}  # attribute `codes`
CONTROL_COLOURS = {0: "0.6", 1: "tab:blue", 2: "tab:red", 3: "tab:brown", 4: "tab:cyan"}
NO_STEPS = "no accepted time steps"


class InputError(Exception):
    """The file is not one this script can plot (reported as exit status 2)."""


@dataclass
class Series:
    """A 1-D dataset and its `units` attribute ("" where the file gives none)."""
    values: np.ndarray
    units: str


@dataclass
class Well:
    name: str
    injector: bool
    colour: str  # the same in every figure
    data: dict   # dataset name -> Series: time, bhp, oil_rate, water_rate, water_cut, control,
                 # and a history well's oil_rate_history, water_rate_history, bhp_history


@dataclass
class Result:
    title: str       # the deck's title ("" when it has none)
    status: str      # "completed" | "failed" | "stopped" (wall-clock limit)
    start: float     # start of the first accepted step [day]
    wells: list
    steps: dict      # /simulation datasets per accepted step: time, dt, newton_iterations, ...
    newton: dict     # /simulation/newton datasets per linear solve: step, linear_iterations, ...
    field: dict      # /field datasets per accepted step ({} in a file without /field)
    in_place: dict   # /field/in_place datasets per report time ({} in a file without them)
    regions: dict    # /regions/in_place: time (reports), oil, pressure (reports x regions); {}


# ---- reading ------------------------------------------------------------------------------

def text(value):
    """A string attribute as str (heptane writes fixed-length ASCII, which h5py gives as bytes)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").rstrip("\0")
    return str(value)


def member(group, name):
    """group[name], or an InputError that names the missing path."""
    if name not in group:
        raise InputError(f"no {group.name.rstrip('/')}/{name}")
    return group[name]


def read_series(group, name):
    ds = member(group, name)
    return Series(np.asarray(ds[()]).reshape(-1), text(ds.attrs.get("units", "")))


def read_table(group, name):
    """A (reports, regions) dataset as a 2-D array, and its units."""
    ds = member(group, name)
    return Series(np.atleast_2d(np.asarray(ds[()])), text(ds.attrs.get("units", "")))


def read(path):
    """Everything the plots need, read at once (the file is closed before plotting)."""
    if not os.path.exists(path):
        raise InputError("no such file")
    if not h5py.is_hdf5(path):
        raise InputError("not an HDF5 file")
    with h5py.File(path, "r") as f:
        kind = text(f.attrs.get("kind", ""))
        if "simulation" not in f or "wells" not in f:
            raise InputError("not a `heptane simulate` result (no /simulation and /wells"
                             + (f"; kind = {kind}" if kind else "") + ")")
        sim = f["simulation"]
        steps = {n: read_series(sim, n) for n in ("time", "dt", "newton_iterations", "cuts")}
        newton = {n: read_series(member(sim, "newton"), n)
                  for n in ("step", "linear_iterations", "converged")}
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        wells = []
        for i, (name, g) in enumerate(f["wells"].items()):  # h5py lists them by name
            data = {n: read_series(g, n)
                    for n in ("time", "bhp", "oil_rate", "water_rate", "water_cut", "control")}
            for n in ("oil_rate_history", "water_rate_history", "bhp_history"):
                if n in g:  # a history well (design decision 90)
                    data[n] = read_series(g, n)
            wells.append(Well(name, text(g.attrs.get("type", "")) == "injector",
                              colours[i % len(colours)], data))
        # Files of heptane before /field (2026-11-28) and /field/in_place (2026-12-01) lack them.
        field, in_place = {}, {}
        if "field" in f:
            field = {n: read_series(f["field"], n)
                     for n in ("time", "oil_production_rate", "water_production_rate",
                               "water_injection_rate")}
            if "in_place" in f["field"]:
                in_place = {n: read_series(f["field/in_place"], n)
                            for n in ("time", "oil", "water", "pressure")}
        regions = {}
        if "regions" in f and "in_place" in f["regions"]:  # FIP regions (design decision 89)
            g = f["regions/in_place"]
            regions = {"time": read_series(g, "time"), "oil": read_table(g, "oil"),
                       "pressure": read_table(g, "pressure")}
        time, dt = steps["time"].values, steps["dt"].values
        return Result(title=text(f.attrs.get("title", "")),
                      status=text(f.attrs.get("status", "")),
                      start=float(time[0] - dt[0]) if time.size else 0.0,
                      wells=wells, steps=steps, newton=newton, field=field,
                      in_place=in_place, regions=regions)


# ---- drawing helpers ----------------------------------------------------------------------

def label(quantity, units):
    return f"{quantity} [{units}]" if units else quantity


def step_line(ax, start, time, values, **style):
    """Values at the end of each step, drawn constant over the step (start .. time[0], ...)."""
    if len(time):
        ax.step(np.r_[start, time], np.r_[values[:1], values], where="pre", **style)


def points(ax, x, y, mask, **style):
    """A scatter of the masked points; none (and no legend entry) when the mask is empty."""
    if mask.any():
        ax.scatter(x[mask], y[mask], **style)


def note_if_empty(ax, empty, note=NO_STEPS):
    if empty:
        ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center", va="center", color="0.4")


def figure(result, what, rows=1, height_ratios=None, sharex=True):
    fig, axes = plt.subplots(rows, 1, figsize=(10, 4.2 + 2.8 * (rows - 1)), sharex=sharex,
                             squeeze=False, layout="constrained",
                             gridspec_kw={"height_ratios": height_ratios})
    title = f"{result.title}: {what}" if result.title else what
    if result.status in ("failed", "stopped"):
        title += f" (simulation {result.status})"
    fig.suptitle(title)
    return fig, axes[:, 0]


def time_label(result):
    return label("time", result.steps["time"].units)


def legend(ax, **kw):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", **kw)


# ---- the plots ----------------------------------------------------------------------------

def observed(ax, result, well, name, sign=1.0, **style):
    """A history well's observed series `name` (NaN where not observed: a gap), dotted."""
    if name in well.data:
        step_line(ax, result.start, well.data["time"].values, sign * well.data[name].values,
                  color=well.colour, linestyle=":", linewidth=2.0, **style)


def plot_rates(result):
    fig, (prod, inj) = figure(result, "well rates", rows=2)
    producers = [w for w in result.wells if not w.injector]
    injectors = [w for w in result.wells if w.injector]
    for w in producers:
        t = w.data["time"].values
        step_line(prod, result.start, t, w.data["oil_rate"].values, color=w.colour,
                  label=f"{w.name} oil")
        step_line(prod, result.start, t, w.data["water_rate"].values, color=w.colour,
                  linestyle="--", label=f"{w.name} water")
        observed(prod, result, w, "oil_rate_history", label=f"{w.name} oil observed")
        observed(prod, result, w, "water_rate_history", alpha=0.5,
                 label=f"{w.name} water observed")
    for w in injectors:  # injection is negative in the file; plotted as a positive rate
        step_line(inj, result.start, w.data["time"].values, -w.data["water_rate"].values,
                  color=w.colour, label=w.name)
        observed(inj, result, w, "water_rate_history", sign=-1.0, label=f"{w.name} observed")
    units = result.wells[0].data["oil_rate"].units if result.wells else ""
    history = any("oil_rate_history" in w.data or "water_rate_history" in w.data
                  for w in result.wells)
    prod.set_title("production (oil solid, water dashed" + (", observed dotted)" if history
                                                             else ")"), fontsize="medium")
    prod.set_ylabel(label("rate", units))
    inj.set_title("water injection", fontsize="medium")
    inj.set_ylabel(label("rate", units))
    inj.set_xlabel(time_label(result))
    for ax, wells in ((prod, producers), (inj, injectors)):
        ax.set_ylim(bottom=min(0.0, ax.get_ylim()[0]))  # rates from zero
        note_if_empty(ax, not wells or not len(wells[0].data["time"].values),
                      NO_STEPS if wells else "no wells")
        legend(ax, ncol=2 if len(wells) > 2 else 1)
    return fig


def plot_water_cut(result):
    fig, (ax,) = figure(result, "water cut")
    producers = [w for w in result.wells if not w.injector]
    for w in producers:
        step_line(ax, result.start, w.data["time"].values, w.data["water_cut"].values,
                  color=w.colour, label=w.name)
    units = producers[0].data["water_cut"].units if producers else ""
    ax.set_ylabel(label("water cut", units))
    ax.set_xlabel(time_label(result))
    ax.set_ylim(-0.02, 1.02)
    note_if_empty(ax, not producers or not len(producers[0].data["time"].values),
                  NO_STEPS if producers else "no producers")
    legend(ax)
    return fig


def control_runs(start, time, control):
    """(code, begin, end) for each run of steps with the same control code."""
    runs = []
    begin = start
    for k, code in enumerate(control):
        end = time[k]
        if runs and runs[-1][0] == code:
            runs[-1][2] = end
        else:
            runs.append([int(code), begin, end])
        begin = end
    return runs


def plot_bhp(result):
    """BHP of every well (not drawn while shut), and below it a bar per well coloured by its
    control: grey shut, blue rate, red bhp."""
    fig, (ax, ctl) = figure(result, "bottom-hole pressure", rows=2,
                            height_ratios=[3, 0.35 + 0.25 * max(len(result.wells), 1)])
    for w in result.wells:
        control = w.data["control"].values
        bhp = np.where(control == 0, np.nan, w.data["bhp"].values)  # no BHP while shut
        step_line(ax, result.start, w.data["time"].values, bhp, color=w.colour, label=w.name)
        observed(ax, result, w, "bhp_history", label=f"{w.name} observed")
    ax.set_ylabel(label("bhp", result.wells[0].data["bhp"].units if result.wells else ""))
    note_if_empty(ax, not result.wells or not len(result.wells[0].data["time"].values),
                  NO_STEPS if result.wells else "no wells")
    legend(ax, ncol=2 if len(result.wells) > 4 else 1)

    for row, w in enumerate(result.wells):
        for code, begin, end in control_runs(result.start, w.data["time"].values,
                                             w.data["control"].values):
            ctl.broken_barh([(begin, end - begin)], (row - 0.4, 0.8),
                            color=CONTROL_COLOURS.get(code, "black"))
    ctl.set_yticks(range(len(result.wells)), [w.name for w in result.wells], fontsize="small")
    ctl.set_ylim(len(result.wells) - 0.5, -0.5)  # first well on top
    ctl.set_title("control", fontsize="medium")
    ctl.set_xlabel(time_label(result))
    handles = [plt.Rectangle((0, 0), 1, 1, color=CONTROL_COLOURS[c]) for c in CONTROL_NAMES]
    ctl.legend(handles, CONTROL_NAMES.values(), fontsize="small", ncol=3, frameon=False,
               loc="lower right", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.1)
    return fig


def plot_linear_iterations(result):
    """Top: linear iterations of every linear solve in order (blue: of an accepted attempt;
    orange: of one that was cut, or the last of a failed run; crossed: the solve did not
    converge). Bottom: Newton iterations per accepted step, the steps that needed cuts marked."""
    fig, (lin, nwt) = figure(result, "solver iterations", rows=2, sharex=False)
    n = result.newton
    iterations = n["linear_iterations"].values
    index = np.arange(iterations.size)
    accepted = n["step"].values >= 0  # -1: the attempt was not accepted
    failed = n["converged"].values == 0
    points(lin, index, iterations, accepted, s=12, color="tab:blue", label="accepted attempt")
    points(lin, index, iterations, ~accepted, s=12, color="tab:orange",
           label="attempt not accepted")
    points(lin, index, iterations, failed, s=40, marker="x", color="black",
           label="linear solve not converged")
    lin.set_xlabel("Newton iteration (linear solve) index")
    lin.set_ylabel(label("linear iterations", n["linear_iterations"].units))
    note_if_empty(lin, iterations.size == 0, "no linear solves")
    if iterations.size:
        lin.set_ylim(bottom=0)
        legend(lin)

    s = result.steps
    time, newton, cuts = s["time"].values, s["newton_iterations"].values, s["cuts"].values
    step_line(nwt, result.start, time, newton, color="tab:blue", label="Newton iterations")
    points(nwt, time, newton, cuts > 0, s=30, color="tab:orange", zorder=3,
           label="step after cuts")
    nwt.set_xlabel(time_label(result))
    nwt.set_ylabel(label("Newton iterations", s["newton_iterations"].units))
    note_if_empty(nwt, time.size == 0)
    if time.size:
        nwt.set_ylim(bottom=0)
        legend(nwt)
    return fig


def plot_field(result):
    """Top: the field's rates per step (oil and water produced, water injected). Bottom: the
    oil and water in place at the report times, and on a second axis the pressure weighted by
    hydrocarbon pore volume."""
    fig, (rates, fip) = figure(result, "field", rows=2)
    f = result.field
    if f:
        t = f["time"].values
        step_line(rates, result.start, t, f["oil_production_rate"].values, color="tab:green",
                  label="oil produced")
        step_line(rates, result.start, t, f["water_production_rate"].values, color="tab:blue",
                  label="water produced")
        step_line(rates, result.start, t, f["water_injection_rate"].values, color="tab:blue",
                  linestyle="--", label="water injected")
        rates.set_ylabel(label("rate", f["oil_production_rate"].units))
        rates.set_ylim(bottom=min(0.0, rates.get_ylim()[0]))
        legend(rates)
    note_if_empty(rates, not f or not len(f["time"].values),
                  NO_STEPS if f else "no /field in this file")
    rates.set_title("rates", fontsize="medium")

    ip = result.in_place
    if ip:
        t = ip["time"].values
        fip.plot(t, ip["oil"].values, "o-", color="tab:green", label="oil")
        fip.plot(t, ip["water"].values, "o-", color="tab:blue", label="water")
        fip.set_ylabel(label("in place", ip["oil"].units))
        fip.set_ylim(bottom=0.0)
        pressure = fip.twinx()
        pressure.plot(t, ip["pressure"].values, "s--", color="tab:red", label="pressure")
        pressure.set_ylabel(label("pressure (HCPV-weighted)", ip["pressure"].units),
                            color="tab:red")
        handles = fip.get_legend_handles_labels()
        extra = pressure.get_legend_handles_labels()
        fip.legend(handles[0] + extra[0], handles[1] + extra[1], fontsize="small")
    note_if_empty(fip, not ip, "no /field/in_place in this file")
    fip.set_title("fluid in place at the report times", fontsize="medium")
    fip.set_xlabel(time_label(result))
    return fig


def plot_regions(result):
    """Each fluid-in-place region's oil in place (top) and pressure weighted by hydrocarbon pore
    volume (bottom) at the report times; a region without cells holds nothing at pressure 0 and
    is left out of the pressure."""
    fig, (oil, pressure) = figure(result, "fluid in place by region", rows=2)
    r = result.regions
    if r:
        t = r["time"].values
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for g in range(r["oil"].values.shape[1]):
            colour = colours[g % len(colours)]
            oil.plot(t, r["oil"].values[:, g], "o-", color=colour, label=f"region {g + 1}")
            p = r["pressure"].values[:, g]
            if np.any(p > 0.0):
                pressure.plot(t, np.where(p > 0.0, p, np.nan), "s--", color=colour,
                              label=f"region {g + 1}")
        oil.set_ylabel(label("oil in place", r["oil"].units))
        oil.set_ylim(bottom=0.0)
        pressure.set_ylabel(label("pressure (HCPV-weighted)", r["pressure"].units))
        legend(oil, ncol=2 if r["oil"].values.shape[1] > 6 else 1)
    note_if_empty(oil, not r, "no /regions/in_place in this file (no FIP regions)")
    oil.set_title("oil in place at the report times", fontsize="medium")
    pressure.set_title("pressure", fontsize="medium")
    pressure.set_xlabel(time_label(result))
    return fig


PLOTS = {"rates": plot_rates, "water_cut": plot_water_cut, "bhp": plot_bhp,
         "linear_iterations": plot_linear_iterations, "field": plot_field,
         "regions": plot_regions}


def main():
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument("file", metavar="OUT.h5", help="result of `heptane simulate`")
    parser.add_argument("--outdir", help="folder of the PNG files (default: that of OUT.h5)")
    parser.add_argument("--prefix", help="file name prefix (default: the stem of OUT.h5)")
    args = parser.parse_args()

    try:
        result = read(args.file)
    except (InputError, OSError, KeyError, ValueError) as e:
        print(f"{PROG}: {args.file}: {e}", file=sys.stderr)
        return 2

    outdir = args.outdir or os.path.dirname(args.file) or "."
    prefix = args.prefix or os.path.splitext(os.path.basename(args.file))[0]
    try:
        os.makedirs(outdir, exist_ok=True)
        for name, plot in PLOTS.items():
            fig = plot(result)
            path = os.path.join(outdir, f"{prefix}_{name}.png")
            fig.savefig(path, dpi=120)
            plt.close(fig)
            print(path)
    except OSError as e:  # an output folder that cannot be made or written
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
