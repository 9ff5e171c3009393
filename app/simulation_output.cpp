#include "app/simulation_output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "app/atomic_file.hpp"
#include "app/hdf5_file.hpp"
#include "app/output.hpp"
#include "app/restart.hpp"
#include "app/summary.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"

namespace heptane::app {
namespace {

namespace fs = std::filesystem;

/// "00012": the group name of report n (sorted names sort in time).
std::string report_name(std::size_t n) {
    char name[24];
    std::snprintf(name, sizeof name, "%05zu", n);
    return name;
}

/// /wells/NAME: one entry per accepted step, at its end time.
void write_wells(h5::File& f, const Deck& deck, const sim::Simulator& sim) {
    const UnitFactors u = unit_factors(deck.units);
    const auto& specs = sim.system().wells().specs();
    const auto& steps = sim.steps();
    const hsize_t n = steps.size();
    const double volume_unit = u.rate * units::kDay;  // m^3 per deck volume unit
    const std::vector<double>& wi = sim.system().wells().well_indices();
    const auto* factors = wi.data();  // well w's perforations' well indices from here
    const double factor_unit = connection_factor_unit(u);
    for (std::size_t w = 0; w < specs.size(); ++w) {
        const std::string g = "/wells/" + specs[w].name;
        std::vector<double> time, bhp, oil, water, cut, oil_total, water_total;
        std::vector<std::int32_t> control;
        double cum_oil = 0.0, cum_water = 0.0;
        for (const sim::StepRecord& s : steps) {
            const wells::WellRates& q = s.rates[w];
            cum_oil += q.oil * s.dt;
            cum_water += q.water * s.dt;
            time.push_back(s.time / units::kDay);
            bhp.push_back(s.bhp[w] / u.pressure);
            oil.push_back(q.oil / u.rate);
            water.push_back(q.water / u.rate);
            const double liquid = q.oil + q.water;
            cut.push_back(liquid > 0.0 && q.water > 0.0 ? q.water / liquid : 0.0);
            oil_total.push_back(cum_oil / volume_unit);
            water_total.push_back(cum_water / volume_unit);
            control.push_back(control_code(s.controls[w]));
        }
        f.group(g);
        f.attr(g, "type",
               std::string(specs[w].type == wells::WellType::injector ? "injector" : "producer"));
        f.write(g + "/time", time, {n}, "day");
        f.write(g + "/bhp", bhp, {n}, u.pressure_name);
        f.write(g + "/oil_rate", oil, {n}, u.rate_name);
        f.write(g + "/water_rate", water, {n}, u.rate_name);
        f.write(g + "/water_cut", cut, {n}, "1");
        f.write(g + "/oil_total", oil_total, {n}, volume_name(u));
        f.write(g + "/water_total", water_total, {n}, volume_name(u));
        f.write(g + "/control", control, {n});
        // Each perforated layer's well index (design decision 102), in Eclipse's unit of a
        // connection factor (cP rb/day/psi, cP rm3/day/bar): 0 where the layer is not connected.
        const auto layers = static_cast<std::size_t>(specs[w].k_last - specs[w].k_first + 1);
        std::vector<double> cf(factors, factors + layers);
        for (double& x : cf) x /= factor_unit;
        factors += layers;
        f.write(g + "/connection_factors", cf, {layers}, connection_factor_name(u));
        f.attr(g + "/connection_factors", "k_first", static_cast<long long>(specs[w].k_first));
        f.attr(g + "/control", "codes",
               std::string("0 shut, 1 rate, 2 bhp, 3 oil_rate, 4 water_rate, 5 reservoir_rate"));
        // A history well's observations (WOPRH, WWPRH / WWIRH, WBHPH; design decision 90).
        const std::vector<WellObservation> observed = observed_history(deck, sim, w);
        if (observed.empty()) continue;
        std::vector<double> oil_h, water_h, bhp_h;
        for (const WellObservation& o : observed) {
            oil_h.push_back(o.oil / u.rate);
            water_h.push_back(o.water / u.rate);
            bhp_h.push_back(o.bhp / u.pressure);
        }
        f.write(g + "/oil_rate_history", oil_h, {n}, u.rate_name);
        f.write(g + "/water_rate_history", water_h, {n}, u.rate_name);
        f.write(g + "/bhp_history", bhp_h, {n}, u.pressure_name);
        // The misfits the summary prints, for a script's objective (deck units; NaN: none).
        const HistoryMisfit m = history_misfit(sim, w, observed);
        f.attr(g, "misfit_oil_rate", m.oil / u.rate);
        f.attr(g, "misfit_water_rate", m.water / u.rate);
        f.attr(g, "misfit_bhp", m.bhp / u.pressure);
    }
}

/// /regions/in_place: each fluid-in-place region's oil, water, pressure and pore volume at
/// the report times (Eclipse's ROIP, RWIP, RPR, RRPV), one row a report, one column a region
/// (design decision 89); nothing without regions.
void write_regions(h5::File& f, const Deck& deck, const std::vector<InPlaceReport>& in_place) {
    if (in_place.empty() || in_place.front().regions.empty()) return;
    const UnitFactors u = unit_factors(deck.units);
    const double volume_unit = u.rate * units::kDay;
    const hsize_t r = in_place.size(), n = in_place.front().regions.size();
    std::vector<double> at, oil, water, pressure, pore;
    for (const InPlaceReport& x : in_place) {
        at.push_back(x.time / units::kDay);
        for (const sim::InPlace& g : x.regions) {
            oil.push_back(g.oil / volume_unit);
            water.push_back(g.water / volume_unit);
            pressure.push_back(g.pressure / u.pressure);
            pore.push_back(g.pore_volume / volume_unit);
        }
    }
    f.group("/regions");
    f.group("/regions/in_place");
    f.write("/regions/in_place/time", at, {r}, "day");
    f.write("/regions/in_place/oil", oil, {r, n}, volume_name(u));
    f.write("/regions/in_place/water", water, {r, n}, volume_name(u));
    f.write("/regions/in_place/pressure", pressure, {r, n}, u.pressure_name);
    f.write("/regions/in_place/pore_volume", pore, {r, n},
            deck.units == UnitSystem::field ? "rb" : "rm3");
    f.attr("/regions/in_place", "regions", static_cast<long long>(n));
}

/// /field: the field's rates and totals per accepted step (FieldStep).
void write_field(h5::File& f, const Deck& deck, const sim::Simulator& sim,
                 const std::vector<InPlaceReport>& in_place) {
    const UnitFactors u = unit_factors(deck.units);
    const double volume_unit = u.rate * units::kDay;
    const std::vector<FieldStep> field = field_history(sim);
    const hsize_t n = field.size();
    std::vector<double> time, oil, water, injection, cut, oil_total, water_total, injection_total;
    for (std::size_t s = 0; s < field.size(); ++s) {
        const FieldStep& x = field[s];
        time.push_back(sim.steps()[s].time / units::kDay);
        oil.push_back(x.oil_rate / u.rate);
        water.push_back(x.water_rate / u.rate);
        injection.push_back(x.injection_rate / u.rate);
        cut.push_back(x.water_cut());
        oil_total.push_back(x.oil_total / volume_unit);
        water_total.push_back(x.water_total / volume_unit);
        injection_total.push_back(x.injection_total / volume_unit);
    }
    f.group("/field");
    f.write("/field/time", time, {n}, "day");
    f.write("/field/oil_production_rate", oil, {n}, u.rate_name);
    f.write("/field/water_production_rate", water, {n}, u.rate_name);
    f.write("/field/water_injection_rate", injection, {n}, u.rate_name);
    f.write("/field/water_cut", cut, {n}, "1");
    f.write("/field/oil_production_total", oil_total, {n}, volume_name(u));
    f.write("/field/water_production_total", water_total, {n}, volume_name(u));
    f.write("/field/water_injection_total", injection_total, {n}, volume_name(u));
    // The fluid in place at the report times (FOIP, FWIP, FPR).
    const hsize_t r = in_place.size();
    std::vector<double> at, oil_ip, water_ip, pressure, pore;
    for (const InPlaceReport& x : in_place) {
        at.push_back(x.time / units::kDay);
        oil_ip.push_back(x.in_place.oil / volume_unit);
        water_ip.push_back(x.in_place.water / volume_unit);
        pressure.push_back(x.in_place.pressure / u.pressure);
        pore.push_back(x.in_place.pore_volume / volume_unit);
    }
    f.group("/field/in_place");
    f.write("/field/in_place/time", at, {r}, "day");
    f.write("/field/in_place/oil", oil_ip, {r}, volume_name(u));
    f.write("/field/in_place/water", water_ip, {r}, volume_name(u));
    f.write("/field/in_place/pressure", pressure, {r}, u.pressure_name);
    f.write("/field/in_place/pore_volume", pore, {r},
            deck.units == UnitSystem::field ? "rb" : "rm3");
    write_regions(f, deck, in_place);
}

/// /simulation: per-step statistics, the Newton iterations' linear solves and the totals.
void write_statistics(h5::File& f, const SimulationRecord& rec) {
    const sim::Simulator& sim = *rec.simulator;
    const auto& steps = sim.steps();
    const hsize_t n = steps.size();
    std::vector<double> time, dt, cnv, mb, seconds[4];
    std::vector<std::int32_t> newton, linear, cuts;
    double totals[4] = {0.0, 0.0, 0.0, 0.0};
    long long newton_total = 0, linear_total = 0;
    for (const sim::StepRecord& s : steps) {
        time.push_back(s.time / units::kDay);
        dt.push_back(s.dt / units::kDay);
        newton.push_back(s.newton_iterations);
        linear.push_back(static_cast<std::int32_t>(s.linear_iterations));
        cuts.push_back(s.cuts);
        cnv.push_back(std::max(s.convergence.cnv[0], s.convergence.cnv[1]));
        mb.push_back(std::max(s.convergence.mb[0], s.convergence.mb[1]));
        const double parts[4] = {s.assembly_seconds, s.linear_setup_seconds, s.linear_solve_seconds,
                                 s.other_seconds};
        for (int i = 0; i < 4; ++i) {
            seconds[i].push_back(parts[i]);
            totals[i] += parts[i];
        }
        newton_total += s.newton_iterations;
        linear_total += s.linear_iterations;
    }
    const char* part_names[4] = {"assembly_seconds", "linear_setup_seconds", "linear_solve_seconds",
                                 "other_seconds"};
    f.write("/simulation/time", time, {n}, "day");
    f.write("/simulation/dt", dt, {n}, "day");
    f.write("/simulation/newton_iterations", newton, {n});
    f.write("/simulation/linear_iterations", linear, {n});
    f.write("/simulation/cuts", cuts, {n});
    f.write("/simulation/cnv", cnv, {n}, "1");
    f.write("/simulation/mb", mb, {n}, "1");
    for (int i = 0; i < 4; ++i)
        f.write(std::string("/simulation/") + part_names[i], seconds[i], {n}, "s");

    const auto& records = sim.newton();
    std::vector<std::int32_t> attempt, step, iterations, converged;
    std::vector<double> newton_cnv, newton_mb, tolerance;
    for (const sim::NewtonRecord& r : records) {
        newton_cnv.push_back(r.cnv);
        newton_mb.push_back(r.mb);
        tolerance.push_back(r.tolerance);
        attempt.push_back(r.attempt);
        step.push_back(r.step);
        iterations.push_back(r.linear_iterations);
        converged.push_back(r.converged ? 1 : 0);
    }
    const hsize_t nn = records.size();
    f.write("/simulation/newton/attempt", attempt, {nn});
    f.write("/simulation/newton/step", step, {nn});
    f.write("/simulation/newton/linear_iterations", iterations, {nn});
    f.write("/simulation/newton/converged", converged, {nn});
    f.write("/simulation/newton/cnv", newton_cnv, {nn}, "1");
    f.write("/simulation/newton/mb", newton_mb, {nn}, "1");
    f.write("/simulation/newton/linear_tolerance", tolerance, {nn}, "1");

    const std::string g = "/simulation";
    f.attr(g, "status", rec.status);
    f.attr(g, "message", rec.message);
    f.attr(g, "log", [&rec]() {
        std::string s;
        for (const std::string& line : rec.log) s += line + "\n";
        return s;
    }());
    f.attr(g, "method", rec.method);
    f.attr(g, "backend", rec.backend);
    f.attr(g, "kernel", rec.kernel);
    f.attr(g, "state", sim.residence());
    f.attr(g, "preconditioner", std::string(to_string(rec.deck->solver.preconditioner)));
    f.attr(g, "steps", static_cast<long long>(n));
    f.attr(g, "cuts", static_cast<long long>(sim.cuts()));
    f.attr(g, "newton_iterations", newton_total);
    f.attr(g, "linear_iterations", linear_total);
    f.attr(g, "wall_seconds", rec.wall_seconds);
    if (!rec.restarted_from.empty()) f.attr(g, "restarted_from", rec.restarted_from);
    if (const LinearSolver* solver = sim.linear_solver()) {
        const SetupCounts counts = solver->info().counts;
        f.attr(g, "solver_plans", static_cast<long long>(counts.plans));
        f.attr(g, "solver_matrix_uploads", static_cast<long long>(counts.matrix_uploads));
        f.attr(g, "solver_factorizations", static_cast<long long>(counts.factorizations));
    }
    f.attr(g, "device_allocations_after_first_step", rec.allocations_after_first_step);
    f.attr(g, "device_allocations_at_end", rec.allocations_now);
    for (int i = 0; i < 4; ++i) f.attr(g, part_names[i], totals[i]);
}

}  // namespace

std::string volume_name(const UnitFactors& u) {
    return std::string(u.rate_name).substr(0, std::string(u.rate_name).find('/'));
}

std::string connection_factor_name(const UnitFactors& u) {
    return std::string("cP ") + u.reservoir_rate_name + "/" + u.pressure_name;
}

InPlaceReport in_place_report(double time, const grid::TwoPhaseCells& cells,
                              const grid::RockFields& rock, const grid::CellState& x) {
    InPlaceReport r{time, sim::fluid_in_place(cells, x), {}};
    if (!rock.fip_region.empty()) {
        r.regions = sim::fluid_in_place(cells, x, rock.fip_region, rock.num_fip_regions());
    }
    return r;
}

std::vector<WellObservation> observed_history(const Deck& deck, const sim::Simulator& sim,
                                              std::size_t w) {
    std::vector<WellObservation> entries;  // the well's, in time order
    bool observed = false;
    for (const WellObservation& o : deck.history) {
        if (o.well != w) continue;
        entries.push_back(o);
        observed = observed || !std::isnan(o.oil) || !std::isnan(o.water) || !std::isnan(o.bhp);
    }
    if (!observed) return {};
    const double nan = std::nan("");
    WellObservation now{w, 0.0, nan, nan, nan};
    std::size_t next = 0;
    std::vector<WellObservation> out;
    double start = 0.0;
    for (const sim::StepRecord& s : sim.steps()) {
        while (next < entries.size() && entries[next].time <= start) now = entries[next++];
        now.time = start;
        out.push_back(now);
        start = s.time;
    }
    return out;
}

HistoryMisfit history_misfit(const sim::Simulator& sim, std::size_t w,
                             const std::vector<WellObservation>& observed) {
    double sum[3] = {0.0, 0.0, 0.0}, time[3] = {0.0, 0.0, 0.0};
    for (std::size_t k = 0; k < observed.size(); ++k) {
        const sim::StepRecord& s = sim.steps()[k];
        const double d[3] = {s.rates[w].oil - observed[k].oil, s.rates[w].water - observed[k].water,
                             s.bhp[w] - observed[k].bhp};
        for (int a = 0; a < 3; ++a) {
            if (std::isnan(d[a])) continue;
            sum[a] += s.dt * d[a] * d[a];
            time[a] += s.dt;
        }
    }
    double rms[3];
    for (int a = 0; a < 3; ++a) rms[a] = time[a] > 0.0 ? std::sqrt(sum[a] / time[a]) : std::nan("");
    return HistoryMisfit{rms[0], rms[1], rms[2]};
}

double FieldStep::water_cut() const {
    return oil_rate + water_rate > 0.0 && water_rate > 0.0 ? water_rate / (oil_rate + water_rate)
                                                           : 0.0;
}

std::vector<FieldStep> field_history(const sim::Simulator& sim) {
    const auto& specs = sim.system().wells().specs();
    std::vector<FieldStep> out;
    FieldStep x;
    for (const sim::StepRecord& s : sim.steps()) {
        x.oil_rate = x.water_rate = x.injection_rate = 0.0;
        for (std::size_t w = 0; w < specs.size(); ++w) {
            const wells::WellRates& q = s.rates[w];
            if (specs[w].type == wells::WellType::injector) {
                x.injection_rate -= q.water;
            } else {
                x.oil_rate += q.oil;
                x.water_rate += q.water;
            }
        }
        x.oil_total += x.oil_rate * s.dt;
        x.water_total += x.water_rate * s.dt;
        x.injection_total += x.injection_rate * s.dt;
        out.push_back(x);
    }
    return out;
}

int control_code(const wells::WellControl& c) {
    if (!c.open) return 0;
    switch (c.kind) {
        case wells::ControlKind::rate:
            return 1;
        case wells::ControlKind::bhp:
            return 2;
        case wells::ControlKind::oil_rate:
            return 3;
        case wells::ControlKind::water_rate:
            return 4;
        case wells::ControlKind::reservoir_rate:
            return 5;
    }
    return 2;
}

ReportFrame report_frame(const Deck& deck, const sim::Simulator& simulator, double time) {
    const UnitFactors u = unit_factors(deck.units);
    ReportFrame frame;
    frame.time = time / units::kDay;
    frame.steps = static_cast<int>(simulator.steps().size());
    if (!simulator.steps().empty()) frame.dt = simulator.steps().back().dt / units::kDay;
    const grid::CellState& x = simulator.state().cells;
    frame.pressure.resize(x.p.size());
    for (std::size_t m = 0; m < x.p.size(); ++m) frame.pressure[m] = x.p[m] / u.pressure;
    frame.water_saturation = x.sw;
    return frame;
}

namespace {

/// What a file holds whatever the run's progress: the deck, the unit system, the grid.
std::vector<XdmfField> write_static(h5::File& f, const SimulationRecord& rec) {
    f.attr("/", "kind", std::string("simulation"));
    f.attr("/", "unit_system",
           std::string(rec.deck->units == UnitSystem::field ? "field" : "metric"));
    write_root_attributes(f, *rec.deck, rec.overrides);
    return write_grid(f, *rec.model);
}

/// /timesteps/NNNNN.
void write_frame(h5::File& f, std::size_t n, const ReportFrame& r, const SimulationRecord& rec) {
    const grid::Grid3D& g = rec.model->grid;
    const UnitFactors u = unit_factors(rec.deck->units);
    const std::vector<hsize_t> shape = {static_cast<hsize_t>(g.nx), static_cast<hsize_t>(g.ny),
                                        static_cast<hsize_t>(g.nz)};
    const std::string group = "/timesteps/" + report_name(n);
    f.write(group + "/time", {r.time}, {1}, "day");
    f.write(group + "/dt", {r.dt}, {1}, "day");
    // Inactive cells have no pressure or saturation: NaN (blank in ParaView).
    f.write(group + "/pressure", blank_inactive(r.pressure, rec.model->rock), shape,
            u.pressure_name);
    f.write(group + "/water_saturation", blank_inactive(r.water_saturation, rec.model->rock), shape,
            "1");
    f.attr(group, "time", r.time);
    f.attr(group, "step", static_cast<long long>(r.steps));
}

/// What every write replaces: the status, the wells' and the field's series, the statistics, the
/// checkpoint.
constexpr const char* kHistory[] = {"/wells",      "/field",   "/regions",
                                    "/simulation", "/restart", "/summary"};

void write_history(h5::File& f, const SimulationRecord& rec) {
    f.attr("/", "status", rec.status);
    f.attr("/", "message", rec.message);
    write_wells(f, *rec.deck, *rec.simulator);
    write_field(f, *rec.deck, *rec.simulator, rec.in_place);
    write_statistics(f, rec);
    write_restart(f, rec.simulator->checkpoint(), rec.model->grid, rec.deck->model.wells);
    if (rec.summary != nullptr) rec.summary->write(f, *rec.deck, *rec.simulator);
}

std::string with_pid(const std::string& path, const char* what) {
    return path + "." + what + "-" + std::to_string(static_cast<long>(::getpid()));
}

}  // namespace

SimulationOutput::SimulationOutput(std::string h5_path)
    : final_(std::move(h5_path)),
      shadow_(with_pid(final_, "shadow")),
      previous_(with_pid(final_, "previous")) {}

SimulationOutput::~SimulationOutput() {
    std::remove(shadow_.c_str());
    std::remove(previous_.c_str());
}

void SimulationOutput::add_frame(ReportFrame frame) {
    times_.push_back(frame.time);
    kept_.push_back(std::move(frame));
}

void SimulationOutput::update_shadow(const SimulationRecord& rec) {
    try {
        if (!shadow_exists_ && live_) {  // no file kept from the last swap: OUT.h5's bytes
            std::error_code ec;
            fs::copy_file(final_, shadow_, fs::copy_options::overwrite_existing, ec);
            if (ec)
                throw Error("cannot copy '" + final_ + "' to '" + shadow_ + "': " + ec.message());
            shadow_frames_ = live_frames_;
            shadow_exists_ = true;
        }
        h5::File f = shadow_exists_ ? h5::File::append(shadow_) : h5::File::create(shadow_);
        if (!shadow_exists_) {
            shadow_frames_ = 0;
            grid_fields_ = write_static(f, rec);
        } else {
            for (const char* group : kHistory) f.remove(group);
        }
        shadow_exists_ = true;  // a failure from here on removes it
        for (std::size_t n = shadow_frames_; n < frames(); ++n) {
            write_frame(f, n, kept_[n - first_kept_], rec);
        }
        write_history(f, rec);
        f.close();
        shadow_frames_ = frames();
    } catch (...) {
        std::remove(shadow_.c_str());
        shadow_exists_ = false;
        throw;
    }
}

void SimulationOutput::swap_in() {
    // The file OUT.h5 holds now (this object's last write) stays, under another name.
    std::remove(previous_.c_str());
    const bool kept = live_ && ::link(final_.c_str(), previous_.c_str()) == 0;
    if (std::rename(shadow_.c_str(), final_.c_str()) != 0) {
        const int error = errno;
        std::remove(previous_.c_str());
        throw Error("cannot rename '" + shadow_ + "' to '" + final_ + "': " + std::strerror(error));
    }
    const std::size_t written = shadow_frames_;
    shadow_exists_ = kept && std::rename(previous_.c_str(), shadow_.c_str()) == 0;
    if (!shadow_exists_) std::remove(previous_.c_str());  // the next write copies OUT.h5
    shadow_frames_ = live_frames_;
    live_frames_ = written;
    live_ = true;
}

void SimulationOutput::write(const SimulationRecord& rec) {
    update_shadow(rec);
    swap_in();
    // The frames both files hold leave memory (a missing shadow is OUT.h5's copy).
    const std::size_t needed = shadow_exists_ ? shadow_frames_ : live_frames_;
    while (first_kept_ < needed) {
        kept_.pop_front();
        ++first_kept_;
    }
    std::vector<XdmfFrame> frames;
    for (std::size_t n = 0; n < times_.size(); ++n) {
        XdmfFrame frame{times_[n], grid_fields_};
        const std::string group = "/timesteps/" + report_name(n);
        frame.fields.push_back({"pressure", group + "/pressure"});
        frame.fields.push_back({"water_saturation", group + "/water_saturation"});
        frames.push_back(std::move(frame));
    }
    AtomicOutput xmf(xdmf_path(final_));
    write_xdmf(xmf.temp_path(), fs::path(final_).filename().string(), rec.model->grid, frames);
    xmf.commit();
    if (rec.summary != nullptr)
        rec.summary->write_csv(summary_path(final_), *rec.deck, *rec.simulator);
}

}  // namespace heptane::app
