#include "app/simulate.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>

#include "app/deck.hpp"
#include "app/mpi_session.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "app/restart.hpp"
#include "app/simulation_output.hpp"
#include "app/solver_setup.hpp"
#include "app/summary.hpp"
#include "core/base/units.hpp"
#include "core/krylov/names.hpp"
#include "gpu/device.hpp"
#include "gpu/newton.hpp"
#include "gpu/solver.hpp"

namespace heptane::app {
namespace {

using Clock = std::chrono::steady_clock;

std::string day_text(double seconds) { return fixed(seconds / units::kDay, 2); }

/// "1:02:03" or "2:03".
std::string clock_text(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    char text[32];
    if (s >= 3600) {
        std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    } else {
        std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
    }
    return text;
}

/// %.6g: a deck value as the user would write it (5000, 0.05, 1.5e-3); or `digits` significant.
std::string general(double v, int digits = 6) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    return text;
}

/// A control in the deck's units: "rate 5000 stb/day", "oil_rate 800 stb/day",
/// "reservoir_rate 5000 rb/day", "BHP 4000 psi", "shut".
std::string control_text(const wells::WellControl& c, const UnitFactors& u) {
    if (!c.open) return "shut";
    if (wells::is_rate(c.kind)) {
        return std::string(wells::control_kind_name(c.kind)) + " " + general(c.target / u.rate) +
               " " + rate_name(u, c.kind);
    }
    return "BHP " + general(c.target / u.pressure) + " " + u.pressure_name;
}

/// The terminal's progress line (stderr): simulated time, the last step, an ETA. At most ten
/// updates a second; erased when done.
class ProgressLine {
  public:
    /// From simulated time `begin` (a restart's) to `end` [s].
    ProgressLine(std::ostream& err, bool on, double begin, double end)
        : err_(err), on_(on), begin_(begin), end_(end) {}
    ~ProgressLine() { clear(); }
    void clear() {
        if (shown_) err_ << "\r" << std::string(width_, ' ') << "\r" << std::flush;
        shown_ = false;
    }
    void update(const sim::StepRecord& s) {
        if (!on_) return;
        const auto now = Clock::now();
        if (shown_ && now - last_ < std::chrono::milliseconds(100) && s.time < end_) return;
        last_ = now;
        const double elapsed = seconds_since(start_);
        const double eta = elapsed * (end_ - s.time) / (s.time - begin_);
        const std::string line = "  day " + day_text(s.time) + " / " + day_text(end_) + "  dt " +
                                 day_text(s.dt) + " d  newton " +
                                 std::to_string(s.newton_iterations) + "  linear " +
                                 std::to_string(s.linear_iterations) + "  ETA " + clock_text(eta);
        err_ << "\r" << line << std::string(width_ > line.size() ? width_ - line.size() : 0, ' ')
             << std::flush;
        width_ = std::max(width_, line.size());
        shown_ = true;
    }

  private:
    std::ostream& err_;
    bool on_;
    double begin_, end_;
    bool shown_ = false;
    std::size_t width_ = 0;
    Clock::time_point start_ = Clock::now(), last_{};
};

void print_header(std::ostream& out, const Deck& deck, const wells::Model& model,
                  const Plan& plan) {
    const sim::Schedule& s = deck.schedule;
    const grid::Grid3D& g = model.grid;
    const SolverSettings& solver = deck.solver;
    out << "heptane simulate: " << deck.path << (deck.title.empty() ? "" : " (" + deck.title + ")")
        << '\n';
    out << "  system      " << g.nx << " x " << g.ny << " x " << g.nz << " cells"
        << cells_note(model) << ", K = 2, " << deck.model.wells.size() << " wells: "
        << with_commas(2 * g.num_cells() + static_cast<long long>(deck.model.wells.size()))
        << " unknowns\n";
    out << "  schedule    " << day_text(s.end_time()) << " days, " << s.report_times.size()
        << " report time" << (s.report_times.size() > 1 ? "s" : "") << ", " << s.events.size()
        << " well event" << (s.events.size() == 1 ? "" : "s") << "; dt " << day_text(s.dt.initial)
        << " day, at most " << day_text(s.dt.max) << " (x" << s.dt.growth << " after a step, x"
        << s.dt.cut << " per cut, at most " << s.dt.max_cuts << " cuts)\n";
    const sim::NewtonSettings& n = s.newton;
    out << "  newton      CNV " << sci(n.tolerance_cnv, 1) << ", MB " << sci(n.tolerance_mb, 1)
        << ", wells " << sci(n.tolerance_well, 1) << ", at most " << n.max_iterations
        << " iterations; linear tolerance ";
    if (n.linear_tolerance == sim::LinearTolerance::fixed) {
        out << sci(solver.tolerance, 1) << '\n';
    } else {
        out << "adaptive in [" << sci(solver.tolerance, 1) << ", " << sci(n.linear_tolerance_max, 1)
            << "]"
            << (n.linear_tolerance_floor == sim::LinearFloor::criteria
                    ? ", no tighter than the criteria need"
                    : "")
            << "\n";
    }
    out << "  solver      " << to_string(solver.method);
    if (solver.preconditioner != PreconditionerKind::none) {
        out << " + " << to_string(solver.preconditioner);
    }
    out << " on the " << plan.backend << " (";
    if (plan.gpu) {
        const auto devices = gpu::list_devices();
        out << plan.kernel_name << ", " << (devices.empty() ? "?" : devices[0].name);
    } else {
        out << plan.kernel_name << ", " << omp_get_max_threads() << " OpenMP threads"
            << (mpi_launched() ? " a rank" : "");
    }
    out << "), at most " << solver.max_iterations << " iterations\n";
}

void print_wells(std::ostream& out, const Deck& deck, const sim::Simulator& sim) {
    const UnitFactors u = unit_factors(deck.units);
    const auto& specs = sim.system().wells().specs();
    const auto& steps = sim.steps();
    const std::string rate = u.rate_name;
    const std::string volume = volume_name(u);
    out << "  wells       at day " << day_text(sim.time()) << "; totals produced (injected < 0)\n";
    char line[256];
    std::snprintf(line, sizeof line, "    %-8s %-9s %-24s %10s %12s %12s %6s %14s %14s\n", "well",
                  "type", "control", ("bhp " + std::string(u.pressure_name)).c_str(),
                  ("oil " + rate).c_str(), ("water " + rate).c_str(), "wcut",
                  ("oil " + volume).c_str(), ("water " + volume).c_str());
    out << line;
    for (std::size_t w = 0; w < specs.size(); ++w) {
        double oil = 0.0, water = 0.0, cum_oil = 0.0, cum_water = 0.0, bhp = sim.state().p_bh[w];
        for (const sim::StepRecord& s : steps) {
            cum_oil += s.rates[w].oil * s.dt;
            cum_water += s.rates[w].water * s.dt;
        }
        if (!steps.empty()) {
            oil = steps.back().rates[w].oil;
            water = steps.back().rates[w].water;
        }
        const double liquid = oil + water;
        const double cut = liquid > 0.0 && water > 0.0 ? water / liquid : 0.0;
        const double vol = u.rate * units::kDay;
        std::snprintf(line, sizeof line,
                      "    %-8s %-9s %-24s %10.1f %12.4g %12.4g %6.3f %14.4g %14.4g\n",
                      specs[w].name.c_str(),
                      specs[w].type == wells::WellType::injector ? "injector" : "producer",
                      control_text(sim.controls()[w], u).c_str(), bhp / u.pressure, oil / u.rate,
                      water / u.rate, cut, cum_oil / vol, cum_water / vol);
        out << line;
    }
    if (steps.empty()) return;
    // The field: the producers' sums, then the injectors' (FOPR ... FWIT).
    const FieldStep f = field_history(sim).back();
    const double vol = u.rate * units::kDay;
    std::snprintf(line, sizeof line, "    %-8s %-9s %-24s %10s %12.4g %12.4g %6.3f %14.4g %14.4g\n",
                  "FIELD", "producers", "", "", f.oil_rate / u.rate, f.water_rate / u.rate,
                  f.water_cut(), f.oil_total / vol, f.water_total / vol);
    out << line;
    std::snprintf(line, sizeof line, "    %-8s %-9s %-24s %10s %12s %12.4g %6s %14s %14.4g\n",
                  "FIELD", "injectors", "", "", "", -f.injection_rate / u.rate, "", "",
                  -f.injection_total / vol);
    out << line;
}

/// Each history well's misfit to its observed series (design decision 90): the root mean
/// square of simulated minus observed oil rate, water rate and BHP over the steps with an
/// observation, weighted by the steps' lengths (the history-matching objective's usual form).
void print_history(std::ostream& out, const Deck& deck, const sim::Simulator& sim) {
    const UnitFactors u = unit_factors(deck.units);
    const auto& specs = sim.system().wells().specs();
    bool header = false;
    for (std::size_t w = 0; w < specs.size(); ++w) {
        const std::vector<WellObservation> observed = observed_history(deck, sim, w);
        if (observed.empty()) continue;
        const HistoryMisfit m = history_misfit(sim, w, observed);
        if (!header) {
            out << "  history     misfit to the observed rates and BHP (RMS over the steps "
                   "observed, weighted by their lengths)\n";
            header = true;
        }
        const double value[3] = {m.oil / u.rate, m.water / u.rate, m.bhp / u.pressure};
        const char* unit[3] = {u.rate_name, u.rate_name, u.pressure_name};
        const char* name[3] = {"oil", "water", "bhp"};
        out << "    " << specs[w].name << ":";
        for (int a = 0; a < 3; ++a) {
            out << (a > 0 ? "," : "") << " " << name[a] << " "
                << (std::isnan(value[a]) ? std::string("not observed")
                                         : general(value[a], 3) + " " + unit[a]);
        }
        out << '\n';
    }
}

/// Each fluid-in-place region's oil, water and pressure at the first and the last report
/// (design decision 89), the first kMaxRegionLines regions (the file has all).
void print_regions_in_place(std::ostream& out, const UnitFactors& u, const InPlaceReport& first,
                            const InPlaceReport& last) {
    constexpr std::size_t kMaxRegionLines = 20;
    const std::size_t n = first.regions.size();
    if (n == 0) return;
    const double vol = u.rate * units::kDay;
    const std::string volume = volume_name(u);
    out << "  regions     " << n << " fluid-in-place region" << (n == 1 ? "" : "s") << ", day "
        << day_text(first.time) << " -> day " << day_text(last.time) << ":\n";
    for (std::size_t r = 0; r < std::min(n, kMaxRegionLines); ++r) {
        const sim::InPlace &a = first.regions[r], &b = last.regions[r];
        out << "              " << r + 1 << ": oil " << general(a.oil / vol, 6) << " -> "
            << general(b.oil / vol, 6) << " " << volume << ", water " << general(a.water / vol, 6)
            << " -> " << general(b.water / vol, 6) << " " << volume << ", pressure "
            << fixed(a.pressure / u.pressure, 1) << " -> " << fixed(b.pressure / u.pressure, 1)
            << " " << u.pressure_name << '\n';
    }
    if (n > kMaxRegionLines) {
        out << "              (" << n - kMaxRegionLines
            << " more in the file's /regions/in_place)\n";
    }
}

/// The fluid in place at the first and the last report, the oil recovered, and the balance of
/// each phase between them: the change in place plus the net production (field_history's
/// totals, interpolated to nothing: the reports are step ends), which the Newton loop's MB
/// criterion bounds by its tolerance times the pore volume per step.
void print_in_place(std::ostream& out, const Deck& deck, const sim::Simulator& sim,
                    const std::vector<InPlaceReport>& in_place) {
    if (in_place.empty()) return;
    const UnitFactors u = unit_factors(deck.units);
    const double vol = u.rate * units::kDay;
    const std::string volume = volume_name(u);
    const auto line = [&](const InPlaceReport& r) {
        return "day " + day_text(r.time) + ": oil " + general(r.in_place.oil / vol, 6) + " " +
               volume + ", water " + general(r.in_place.water / vol, 6) + " " + volume +
               ", pressure " + fixed(r.in_place.pressure / u.pressure, 1) + " " + u.pressure_name;
    };
    const InPlaceReport& first = in_place.front();
    const InPlaceReport& last = in_place.back();
    out << "  in place    " << line(first) << '\n';
    if (in_place.size() == 1) {
        print_regions_in_place(out, u, first, last);
        return;
    }
    out << "              " << line(last) << " (pressure weighted by hydrocarbon pore volume)\n";
    // The field's totals at the two reports (0 before the first step).
    const std::vector<FieldStep> field = field_history(sim);
    const auto totals_at = [&](double t) {
        FieldStep at;
        for (std::size_t s = 0; s < field.size() && sim.steps()[s].time <= t; ++s) at = field[s];
        return at;
    };
    const FieldStep a = totals_at(first.time), b = totals_at(last.time);
    const double oil_out = b.oil_total - a.oil_total;
    const double water_out =
        (b.water_total - a.water_total) - (b.injection_total - a.injection_total);
    const double oil_balance = last.in_place.oil - first.in_place.oil + oil_out;
    const double water_balance = last.in_place.water - first.in_place.water + water_out;
    const double pv = first.in_place.pore_volume;
    out << "              oil recovered " << fixed(100.0 * oil_out / first.in_place.oil, 2)
        << "% of the first report's; balance (change in place + net production): oil "
        << general(oil_balance / vol, 3) << ", water " << general(water_balance / vol, 3) << " "
        << volume << " (" << general(std::abs(oil_balance) / pv, 2) << ", "
        << general(std::abs(water_balance) / pv, 2) << " of the pore volume)\n";
    print_regions_in_place(out, u, first, last);
}

/// This process's part of the run: from `from` (a restart's checkpoint; empty from the start).
/// `startup`: reading the deck, building the model and the Newton system, before the first step.
void print_totals(std::ostream& out, const sim::Simulator& sim, const sim::Checkpoint& from,
                  double wall, double startup, double output) {
    long long newton = 0, linear = 0;
    double parts[4] = {0.0, 0.0, 0.0, 0.0};
    const std::vector<sim::StepRecord>& steps = sim.steps();
    for (auto s = steps.begin() + static_cast<std::ptrdiff_t>(from.steps.size()); s != steps.end();
         ++s) {
        newton += s->newton_iterations;
        linear += s->linear_iterations;
        parts[0] += s->assembly_seconds;
        parts[1] += s->linear_setup_seconds;
        parts[2] += s->linear_solve_seconds;
        parts[3] += s->other_seconds;
    }
    long long all_linear = 0;
    for (const sim::NewtonRecord& r : sim.newton()) {
        if (r.attempt >= from.attempts) all_linear += r.linear_iterations;
    }
    const int cuts = sim.cuts() - from.cuts;
    out << "  run         " << steps.size() - from.steps.size() << " time steps"
        << (from.steps.empty() ? "" : " after the restart") << ", " << cuts << " cut"
        << (cuts == 1 ? "" : "s") << "; " << with_commas(newton) << " Newton iterations, "
        << with_commas(linear) << " linear iterations";
    if (newton > 0) out << " (" << fixed(static_cast<double>(linear) / newton, 1) << " per Newton)";
    if (all_linear != linear) out << "; " << with_commas(all_linear) << " with the cut attempts'";
    out << '\n';
    const auto pct = [wall](double s) {
        return wall > 0.0 ? fixed(100.0 * s / wall, 0) : std::string("-");
    };
    const double other = wall - startup - parts[0] - parts[1] - parts[2] - output;
    out << "  time        " << fixed(wall, 2) << " s: start-up " << fixed(startup, 2) << " s ("
        << pct(startup) << "%), assembly " << fixed(parts[0], 2) << " s (" << pct(parts[0])
        << "%), linear setup " << fixed(parts[1], 2) << " s (" << pct(parts[1])
        << "%), linear solve " << fixed(parts[2], 2) << " s (" << pct(parts[2]) << "%), output "
        << fixed(output, 2) << " s (" << pct(output) << "%), other " << fixed(other, 2) << " s ("
        << pct(other) << "%)\n";
}

}  // namespace

int cmd_simulate(const RunArgs& args, std::ostream& out, std::ostream& err, bool terminal) {
    const auto t_start = Clock::now();
    const Deck deck = load_command_deck(args);
    if (deck.system.present) {
        deck.rethrow_located(InputError("system", "a matrix deck has no reservoir to simulate"));
    }
    if (!deck.schedule.present) {
        deck.rethrow_located(
            InputError("schedule",
                       "heptane simulate needs a schedule section (end_time, ...); a deck "
                       "without one is solved once by heptane run"));
    }
    const std::string output = command_output(args, deck);
    const Plan deck_plan = plan_and_report(deck, err);

    const wells::Model model = build_model(deck, false, &err);
    const Plan plan = plan_for_model(deck, deck_plan, model, err);
    // The summary's wells, regions and cells are checked before anything is written.
    SummaryTable summary(plan_summary(deck, model));
    for (const std::string& note : summary.plan().notes) err << "heptane: note: " << note << '\n';
    std::unique_ptr<wells::TwoPhaseSystem> system;
    try {  // the well indices are checked here (a radius too large for its cell)
        system =
            std::make_unique<wells::TwoPhaseSystem>(model.grid, model.rock, deck.model.two_phase,
                                                    deck.model.wells, deck.model.relperm_regions);
    } catch (const InputError& e) {
        deck.rethrow_located(e);
    }
    // The run starts from the deck's initial state, or goes on from an earlier run's file.
    std::unique_ptr<RestartFile> restart;
    if (!args.restart.empty()) {
        restart = std::make_unique<RestartFile>(read_restart(args.restart, deck, model.grid));
        summary.restore(restart->summary_columns, restart->summary_state,
                        restart->checkpoint.steps.size());
    }
    const wells::InitialState& init = deck.model.initial;
    const sim::State start =
        restart ? restart->checkpoint.state
                : sim::starting_state(*system, wells::initial_cell_state(system->cells(), init));
    // Under mpirun the ranks hold only their slab of the Jacobian (design decisions 51, 56).
    std::vector<int> slab_wells_global;  // the wells of this rank's planes (under mpirun)
    sim::SolverFactory factory = [&](const GHMatrix& J) {
        if (mpi_launched()) {
            return make_deck_slab_solver(deck, J, slab_wells_global,
                                         static_cast<long long>(deck.model.wells.size()), plan.gpu);
        }
        return make_deck_solver(deck, J, plan.gpu, plan.kernel);
    };
    // On the GPU the state and the Newton work stay on the device (issue 23); GPU ranks under
    // mpirun keep them on the host, where the distributed solver object takes its slab.
    if (args.state == "device" && (!plan.gpu || mpi_launched())) {
        throw InputError("--state", std::string("device needs the gpu backend in one process") +
                                        (plan.gpu ? " (not under mpirun)" : " (this run: cpu)"));
    }
    const bool on_device =
        args.state == "device" || (args.state == "auto" && plan.gpu && !mpi_launched());
    // Under mpirun each rank assembles and measures its slab's cells (decision 51).
    std::unique_ptr<sim::NewtonSplit> split;
    if (mpi_launched()) {  // before any output: too many ranks for the split is an input error
        const grid::Grid3D& g = system->cells().grid();
        try {
            split =
                std::make_unique<sim::NewtonSplit>(mpi_newton_split(deck.solver, g.nx, g.ny, g.nz));
        } catch (const InputError& e) {
            deck.rethrow_located(e);
        }
        const sim::NewtonSplit::Planes p = split->planes(static_cast<index_t>(g.ny) * g.nz);
        slab_wells(system->wells().layout(), g.ny, g.nz, 2, p.first, p.count, p.own_first,
                   p.own_end, &slab_wells_global);
    }
    sim::Simulator simulator(
        *system,
        on_device ? gpu::make_device_newton(*system, start, std::move(factory), solve_options(deck))
                  : sim::make_host_newton(*system, start, std::move(factory), solve_options(deck),
                                          split.get()),
        deck.schedule, solve_options(deck));
    if (restart) {
        try {
            simulator.resume(restart->checkpoint);
        } catch (const InputError& e) {
            throw InputError(args.restart + ": " + e.key(), e.detail());
        }
    }

    print_header(out, deck, model, plan);
    const sim::Checkpoint from = restart ? restart->checkpoint : sim::Checkpoint{};
    if (restart) {
        out << "  restart     from " << args.restart << " at day " << day_text(from.time) << " ("
            << from.steps.size() << " time steps, " << restart->frames.size() << " report frames)";
        const double next = simulator.next_step();
        if (next != from.dt_next) {
            out << "; next step " << day_text(next) << " day (the deck's "
                << (next == deck.schedule.dt.max ? "dt_max" : "dt_initial") << ", not the file's "
                << day_text(from.dt_next) << ")";
        }
        out << '\n';
    }
    if (mpi_launched()) {
        out << "  memory      each rank holds only its planes' Jacobian (design decisions 51, "
               "56)\n";
    }
    out << std::flush;
    const UnitFactors u = unit_factors(deck.units);
    SimulationRecord rec;
    SimulationOutput file(output);  // rank 0 writes it for every rank
    const bool writes = mpi_rank() == 0;
    if (restart) {
        // The fluid in place of the file's reports, from their fields (deck units).
        for (const ReportFrame& frame : restart->frames) {
            grid::CellState x{frame.pressure, frame.water_saturation};
            for (double& p : x.p) p *= u.pressure;
            rec.in_place.push_back(
                in_place_report(frame.time * units::kDay, system->cells(), model.rock, x));
        }
        if (writes) {
            for (ReportFrame& frame : restart->frames) file.add_frame(std::move(frame));
        }
        restart->frames.clear();  // the file holds them (rank 0's)
        rec.log = restart->log;
        rec.restarted_from = args.restart + " at day " + day_text(from.time);
        rec.log.push_back("day " + day_text(from.time) + ": restarted from " + args.restart);
    }
    rec.deck = &deck;
    rec.model = &model;
    rec.simulator = &simulator;
    rec.overrides = args.overrides;
    rec.method = to_string(deck.solver.method);
    rec.backend = plan.backend;
    rec.kernel = plan.kernel_name;
    rec.summary = summary.empty() ? nullptr : &summary;
    ProgressLine progress(err, terminal, from.time, deck.schedule.end_time());
    double output_seconds = 0.0;
    const auto write = [&]() {
        const auto t0 = Clock::now();
        rec.allocations_now = gpu::device_allocations();
        rec.wall_seconds = seconds_since(t_start);
        if (writes) file.write(rec);
        output_seconds += seconds_since(t0);
    };
    const auto log = [&](const std::string& line) {
        progress.clear();
        out << "  day " << line << '\n' << std::flush;
        rec.log.push_back("day " + line);
    };

    sim::Observer observer;
    observer.step = [&](const sim::StepRecord& s) {
        // This process's first step (a restart's is not step 0).
        if (s.step == static_cast<int>(from.steps.size())) {
            rec.allocations_after_first_step = gpu::device_allocations();
        }
        if (summary.plan().state_values > 0) {
            summary.sample(simulator, model.rock);
        }
        progress.update(s);
        if (!terminal) {  // a log file gets a line per step
            out << "  step " << s.step + 1 << "  day " << day_text(s.time) << "  dt "
                << day_text(s.dt) << "  newton " << s.newton_iterations << "  linear "
                << s.linear_iterations << (s.cuts > 0 ? "  cuts " + std::to_string(s.cuts) : "")
                << "  wall " << clock_text(seconds_since(t_start)) << '\n'
                << std::flush;
        }
    };
    if (args.max_wall_seconds > 0.0) {
        observer.stop = [&]() -> std::string {
            const double wall = seconds_since(t_start);
            // Every rank stops at the same step (each measures its own clock).
            if (!mpi_any(wall >= args.max_wall_seconds)) return {};
            return "the wall-clock limit (--max-wall-time " + general(args.max_wall_seconds) +
                   " s) was reached after " + fixed(wall, 1) + " s";
        };
    }
    observer.control = [&](const sim::ControlSwitch& c) {
        std::string why = c.why == sim::ControlChange::event   ? "schedule event"
                          : c.why == sim::ControlChange::limit ? "BHP limit reached"
                          : c.why == sim::ControlChange::rate_restored
                              ? "rate target reachable again"
                          : c.why == sim::ControlChange::test ? "well test "
                                                              : "economic limit: ";
        if (c.event != nullptr) {  // the limits an event sets, beside its control
            const sim::WellEvent& e = *c.event;
            const auto limit = [&](const char* name, const std::optional<double>& v, double unit,
                                   const char* unit_name) {
                if (v) why += std::string("; ") + name + " " + general(*v / unit) + unit_name;
            };
            const std::string psi = std::string(" ") + u.pressure_name;
            const std::string rate = std::string(" ") + u.rate_name;
            limit("min_bhp", e.min_bhp, u.pressure, psi.c_str());
            limit("max_bhp", e.max_bhp, u.pressure, psi.c_str());
            limit("min_oil_rate", e.min_oil_rate, u.rate, rate.c_str());
            limit("max_water_cut", e.max_water_cut, 1.0, "");
            limit("test_interval", e.test_interval, units::kDay, " days");
            if (e.test_count) why += "; test_count " + std::to_string(*e.test_count);
            if (!e.connections.empty()) {  // a workover (design decision 103)
                const auto connected =
                    std::count_if(e.connections.begin(), e.connections.end(),
                                  [](const wells::WellConnection& x) { return x.connected(); });
                why += "; connections: " + std::to_string(connected) + " of " +
                       std::to_string(e.connections.size()) + " layers connected";
            }
        }
        if (c.why == sim::ControlChange::test) {  // which test, how long after the shut
            const sim::ScheduledWell& s = simulator.scheduled_wells()[c.well];
            why += std::to_string(s.tests + 1) +
                   (s.test_count > 0 ? " of " + std::to_string(s.test_count) : std::string()) +
                   ", " + day_text(c.time - s.economic_shut_time) +
                   " days after the economic limit shut it";
        }
        if (c.why == sim::ControlChange::economic) {  // what the step's end rates broke
            const sim::StepRecord& s = simulator.steps().back();
            const wells::WellRates& q = s.rates[c.well];
            const double liquid = q.oil + q.water;
            why += "oil " + general(q.oil / u.rate) + " " + u.rate_name + ", water cut " +
                   general(liquid > 0.0 && q.water > 0.0 ? q.water / liquid : 0.0, 3);
        }
        log(day_text(c.time) + ": " + deck.model.wells[c.well].name + " -> " +
            control_text(c.control, u) + " (" + why + ")");
    };
    observer.cut = [&](double time, double dt, const std::string& why) {
        log(day_text(time) + ": step of " + day_text(dt) + " days cut: " + why);
    };
    bool resumed = restart != nullptr;  // its first report is the file's last state
    observer.report = [&](int index, double time) {
        if (!resumed) {
            rec.in_place.push_back(
                in_place_report(time, system->cells(), model.rock, simulator.state().cells));
            ReportFrame frame = report_frame(deck, simulator, time);  // every rank's part
            if (writes) file.add_frame(std::move(frame));
        }
        if (index > 0 && !resumed) {
            const sim::StepRecord& s = simulator.steps().back();
            progress.clear();
            out << "  report " << index << "/" << deck.schedule.report_times.size() << "  day "
                << day_text(time) << "  step " << s.step + 1 << "  dt " << day_text(s.dt)
                << "  newton " << s.newton_iterations << "  linear " << s.linear_iterations
                << "  wall " << clock_text(seconds_since(t_start)) << '\n'
                << std::flush;
        }
        resumed = false;
        // The last report's file is written once, as the final one.
        if (static_cast<std::size_t>(index) < deck.schedule.report_times.size()) write();
    };

    const double startup = seconds_since(t_start);
    const sim::Outcome outcome = simulator.run(observer);
    progress.clear();
    rec.status = outcome.completed ? "completed" : outcome.stopped ? "stopped" : "failed";
    rec.message = outcome.message;
    write();
    print_wells(out, deck, simulator);
    print_history(out, deck, simulator);
    print_in_place(out, deck, simulator, rec.in_place);
    print_totals(out, simulator, from, seconds_since(t_start), startup, output_seconds);
    if (const LinearSolver* solver = simulator.linear_solver()) {
        const SetupCounts c = solver->info().counts;
        out << "  linear      one solver object: ";
        if (plan.gpu) out << c.plans << " plan" << (c.plans == 1 ? "" : "s") << ", ";
        out << c.matrix_uploads << " matrix uploads, " << c.factorizations
            << " factorizations; state on the " << simulator.residence();
        if (plan.gpu) {
            out << "; device allocations " << rec.allocations_after_first_step
                << " after the first step, " << rec.allocations_now << " at the end";
        }
        out << '\n';
    }
    out << "  output      " << output << ", " << xdmf_path(output);
    if (!summary.empty()) {
        out << ", " << summary_path(output) << " (" << summary.plan().columns.size()
            << " summary vectors)";
    }
    out << '\n';
    if (!outcome.completed) {
        err << "heptane: simulation stopped at day " << day_text(simulator.time()) << ": "
            << outcome.message << " (the output holds every step up to there)\n";
        return 1;
    }
    return 0;
}

}  // namespace heptane::app
