#include "sim/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"

namespace heptane::sim {
namespace {

using Clock = std::chrono::steady_clock;
using wells::ControlKind;
using wells::WellType;

/// An adaptive linear solve stops no tighter than this fraction of the ratio of tolerance to
/// measure of the convergence criterion furthest from its tolerance (LinearFloor::criteria).
constexpr double kCriteriaFloorFraction = 0.1;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string days(double seconds) {
    std::ostringstream s;
    s.precision(6);
    s << seconds / units::kDay;
    return s.str();
}

std::string sci(double v) {
    std::ostringstream s;
    s.precision(2);
    s << std::scientific << v;
    return s.str();
}

}  // namespace

bool Convergence::met(const NewtonSettings& s) const {
    return finite && std::max(cnv[0], cnv[1]) <= s.tolerance_cnv &&
           std::max(mb[0], mb[1]) <= s.tolerance_mb && well <= s.tolerance_well;
}

double Convergence::closest_ratio(const NewtonSettings& s) const {
    double ratio = std::numeric_limits<double>::infinity();
    const auto take = [&](double tolerance, double measure) {
        if (measure > 0.0) ratio = std::min(ratio, tolerance / measure);
    };
    for (int p = 0; p < 2; ++p) {
        take(s.tolerance_cnv, cnv[p]);
        take(s.tolerance_mb, mb[p]);
    }
    take(s.tolerance_well, well);
    return ratio;
}

/// The work of one attempt at a time step.
struct Simulator::Attempt {
    int newton_iterations = 0;
    long long linear_iterations = 0;
    Convergence convergence;
    double assembly = 0.0, setup = 0.0, solve = 0.0, total = 0.0;
    std::vector<ControlSwitch> switches;
    std::string failure;
};

Simulator::Simulator(const wells::TwoPhaseSystem& system, const grid::CellState& initial,
                     Schedule schedule, SolverFactory make_solver, SolveOptions linear)
    : Simulator(
          system,
          make_host_newton(system, starting_state(system, initial), std::move(make_solver), linear),
          std::move(schedule), linear) {}

Simulator::Simulator(const wells::TwoPhaseSystem& system, std::unique_ptr<NewtonSystem> newton,
                     Schedule schedule, SolveOptions linear_defaults)
    : system_(system),
      newton_system_(std::move(newton)),
      schedule_(std::move(schedule)),
      linear_defaults_(std::move(linear_defaults)) {
    for (const wells::WellSpec& spec : system_.wells().specs()) {
        WellState w;
        w.kind = spec.control;
        w.target = spec.target;
        w.voidage = spec.voidage;
        w.min_bhp = spec.min_bhp;
        w.max_bhp = spec.max_bhp;
        w.min_oil_rate = spec.min_oil_rate;
        w.max_water_cut = spec.max_water_cut;
        w.test_interval = spec.test_interval;
        w.test_count = spec.test_count;
        wells_.push_back(w);
    }
    dt_next_ = schedule_.dt.initial;
    // Each event's new well indices, computed once (a bad connection fails here, before the
    // run writes anything).
    events_ = events_in_order(schedule_);
    for (const WellEvent& e : events_) {
        event_indices_.emplace_back();
        if (e.connections.empty()) continue;
        try {
            event_indices_.back() = system_.wells().connection_indices(e.well, e.connections);
        } catch (const InputError& x) {
            throw InputError(e.key + ".connection_factors", x.key() + ": " + x.detail());
        }
    }
    refresh_controls();
}

Checkpoint Simulator::checkpoint() const {
    Checkpoint c;
    c.time = time_;
    c.dt_next = dt_next_;
    c.dt_initial = schedule_.dt.initial;
    c.events = static_cast<int>(next_event_);
    c.attempts = attempts_;
    c.cuts = cuts_;
    c.state = newton_system_->state();
    c.wells = wells_;
    c.steps = steps_;
    c.newton = newton_;
    return c;
}

void Simulator::resume(const Checkpoint& c) {
    if (c.wells.size() != wells_.size()) {
        throw InputError("restart", "the run has " + std::to_string(c.wells.size()) +
                                        " wells, this deck " + std::to_string(wells_.size()));
    }
    if (c.time > schedule_.end_time()) {
        throw InputError("restart", "the run is at day " + days(c.time) +
                                        ", past this deck's end_time (day " +
                                        days(schedule_.end_time()) + ")");
    }
    // run() applies the events due at a time before the step from there: at c.time those
    // before it were applied; those at it not yet after an accepted step, already where a
    // step from c.time failed.
    const std::vector<WellEvent>& events = events_;
    std::size_t before = 0, at = 0;
    while (before < events.size() && events[before].time < c.time) ++before;
    while (before + at < events.size() && events[before + at].time == c.time) ++at;
    const auto applied = static_cast<std::size_t>(c.events);
    if (applied != before && (at == 0 || applied != before + at)) {
        throw InputError(
            "restart", "the run applied " + std::to_string(c.events) + " well events up to day " +
                           days(c.time) + ", this deck's schedule has " + std::to_string(before) +
                           " before it" + (at > 0 ? " and " + std::to_string(at) + " at it" : ""));
    }
    // The report times passed are this deck's (a continuation may report at other times).
    std::size_t reports = 0;
    while (reports < schedule_.report_times.size() && schedule_.report_times[reports] <= c.time) {
        ++reports;
    }
    time_ = c.time;
    const double next = c.dt_initial != schedule_.dt.initial ? schedule_.dt.initial : c.dt_next;
    dt_next_ = std::min(next, schedule_.dt.max);
    next_report_ = reports;
    next_event_ = applied;
    attempts_ = c.attempts;
    cuts_ = c.cuts;
    wells_ = c.wells;
    // The connections the events applied set (each event's are the well's whole set: the
    // last one applied holds).
    for (std::size_t i = 0; i < applied; ++i) {
        if (!event_indices_[i].empty())
            newton_system_->set_well_indices(events[i].well, event_indices_[i]);
    }
    steps_ = c.steps;
    newton_ = c.newton;
    refresh_controls();
}

LinearStats Simulator::linear_stats() const { return newton_system_->linear_stats(); }

void Simulator::refresh_controls() {
    controls_.resize(wells_.size());
    const auto& specs = system_.wells().specs();
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        const WellState& s = wells_[w];
        if (!s.open) {
            controls_[w] = {false, ControlKind::bhp, s.shut_bhp};
        } else if (s.on_limit) {
            const bool producer = specs[w].type == WellType::producer;
            controls_[w] = {true, ControlKind::bhp, producer ? s.min_bhp : s.max_bhp};
        } else {
            controls_[w] = scheduled_control(s);
        }
    }
}

wells::WellControl Simulator::scheduled_control(const WellState& s) const {
    wells::WellControl c{true, s.kind, s.target};
    if (s.kind == ControlKind::reservoir_rate) {
        c.factor[grid::kOil] = reservoir_factors_[grid::kOil];
        c.factor[grid::kWater] = reservoir_factors_[grid::kWater];
    }
    return c;
}

void Simulator::convert_reservoir_rates() {
    const bool any = std::any_of(wells_.begin(), wells_.end(), [](const WellState& s) {
        return s.open && s.kind == ControlKind::reservoir_rate;
    });
    if (!any) return;
    reservoir_factors_ =
        system_.wells().reservoir_factors(newton_system_->mean_hydrocarbon_pressure());
    for (WellState& s : wells_) {  // a history well's observed rates, as a reservoir volume
        if (s.kind == ControlKind::reservoir_rate && s.voidage.given) {
            s.target = wells::voidage(s.voidage, reservoir_factors_[grid::kOil],
                                      reservoir_factors_[grid::kWater]);
        }
    }
    refresh_controls();
}

void Simulator::apply_event(std::size_t i) {
    const WellEvent& e = events_[i];
    WellState& s = wells_.at(e.well);
    if (!event_indices_[i].empty()) newton_system_->set_well_indices(e.well, event_indices_[i]);
    if (e.kind) {
        s.kind = *e.kind;
        s.target = e.target;
        s.voidage = e.voidage;
        s.on_limit = false;
    }
    if (e.min_bhp) s.min_bhp = *e.min_bhp;
    if (e.max_bhp) s.max_bhp = *e.max_bhp;
    if (e.min_oil_rate) s.min_oil_rate = *e.min_oil_rate;
    if (e.max_water_cut) s.max_water_cut = *e.max_water_cut;
    if (e.test_interval) s.test_interval = *e.test_interval;
    if (e.test_count) s.test_count = *e.test_count;
    if (e.open) {
        if (s.open && !*e.open) s.shut_bhp = newton_system_->bhp()[e.well];
        s.open = *e.open;
        s.economic_shut_time = -1.0;  // the schedule sets its status: no test is due
        s.tests = 0;
    }
    refresh_controls();
}

Convergence Simulator::convergence(const ResidualMeasures& r, double dt) const {
    const double dt_scaled = dt / units::kTimeScale;  // R is a volume per kTimeScale
    Convergence c;
    c.finite = r.finite;
    // R is in surface volumes; B at the reference pressure makes them reservoir volumes, as
    // OPM's CNV and MB do with the region's mean B (design decision 81; exact for B = 1).
    const grid::TwoPhaseParams& prm = system_.cells().params();
    const std::array<double, 2> b{grid::reference_volume_factor(prm, grid::kOil),
                                  grid::reference_volume_factor(prm, grid::kWater)};
    const double pore = r.pore_volume;
    for (int a = 0; a < 2; ++a) {
        c.cnv[a] = r.cnv_max[a] * b[a];
        c.mb[a] = pore > 0.0 ? std::abs(r.residual_sum[a]) * b[a] * dt_scaled / pore : 0.0;
    }
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        const double res = r.wells[w];
        if (!std::isfinite(res)) c.finite = false;
        const wells::WellControl& ctl = controls_[w];
        // rate: R in m^3/day against the target's; BHP (and shut): R in bar against the target's
        const double scale = ctl.open && wells::is_rate(ctl.kind)
                                 ? ctl.target * units::kTimeScale
                                 : ctl.target / units::kPressureScale;
        c.well = std::max(c.well, std::abs(res) / scale);
    }
    if (!c.finite) c.well = INFINITY;
    return c;
}

bool Simulator::check_limits(std::vector<int>& switches, std::vector<ControlSwitch>& pending) {
    // Each well may switch a few times per attempt: enough to go to its limit and back,
    // not enough to oscillate between the two for the rest of the Newton loop.
    constexpr int kMaxSwitches = 3;
    const auto& specs = system_.wells().specs();
    // The wells that may switch: open, under a rate with a BHP limit, switches left.
    const auto limit_of = [&](std::size_t w) {
        const WellState& s = wells_[w];
        if (!s.open || !wells::is_rate(s.kind) || switches[w] >= kMaxSwitches) return 0.0;
        return specs[w].type == WellType::producer ? s.min_bhp : s.max_bhp;
    };
    bool any = false;
    for (std::size_t w = 0; w < wells_.size(); ++w) any = any || limit_of(w) > 0.0;
    if (!any) return false;  // no rates to compute (on a GPU: no kernel, no copy)
    const std::vector<wells::WellRates> rates = newton_system_->rates(controls_);
    const std::vector<double> p_bh = newton_system_->bhp();
    bool changed = false;
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        WellState& s = wells_[w];
        const double limit = limit_of(w);
        if (limit <= 0.0) continue;
        const bool producer = specs[w].type == WellType::producer;
        ControlChange why;
        if (!s.on_limit) {
            const double p = p_bh[w];
            if (producer ? p >= limit : p <= limit) continue;
            s.on_limit = true;
            why = ControlChange::limit;
        } else {
            // At its limit the well would deliver more than its rate target: back to the rate.
            const double rate = wells::controlled_rate(scheduled_control(s), rates[w]);
            const double q = producer ? rate : -rate;
            if (q <= s.target) continue;
            s.on_limit = false;
            why = ControlChange::rate_restored;
        }
        ++switches[w];
        changed = true;
        refresh_controls();
        pending.push_back({0.0, w, controls_[w], why});
    }
    return changed;
}

std::vector<ControlSwitch> Simulator::check_economic_limits(
    const std::vector<wells::WellRates>& rates) {
    std::vector<ControlSwitch> shut;
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        WellState& s = wells_[w];
        if (!s.open) continue;  // (a well under test without limits passes below)
        const double oil = rates[w].oil, water = rates[w].water;  // produced > 0
        const double liquid = oil + water;
        const double cut = liquid > 0.0 && water > 0.0 ? water / liquid : 0.0;
        const bool low_oil = s.min_oil_rate > 0.0 && oil < s.min_oil_rate;
        const bool high_cut = s.max_water_cut > 0.0 && cut > s.max_water_cut;
        const bool under_test = s.economic_shut_time >= 0.0;
        if (!low_oil && !high_cut) {
            if (under_test) {  // the test passed: the well stays open
                s.economic_shut_time = -1.0;
                s.tests = 0;
            }
            continue;
        }
        s.tests = under_test ? s.tests + 1 : 0;
        s.economic_shut_time = time_;
        s.shut_bhp = newton_system_->bhp()[w];
        s.open = false;
        refresh_controls();
        shut.push_back({time_, w, controls_[w], ControlChange::economic});
    }
    return shut;
}

std::vector<ControlSwitch> Simulator::test_wells() {
    std::vector<ControlSwitch> opened;
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        WellState& s = wells_[w];
        if (s.open || s.economic_shut_time < 0.0 || s.test_interval <= 0.0) continue;
        if (s.test_count > 0 && s.tests >= s.test_count) continue;  // tested enough
        if (time_ < s.economic_shut_time + s.test_interval) continue;
        s.open = true;
        refresh_controls();
        opened.push_back({time_, w, controls_[w], ControlChange::test});
    }
    return opened;
}

bool Simulator::newton_step(double dt, Attempt& a) {
    const NewtonSettings& s = schedule_.newton;
    std::vector<int> switches(wells_.size(), 0);
    double previous_norm = 0.0;
    for (int it = 0;; ++it) {
        auto t0 = Clock::now();
        newton_system_->assemble(dt, controls_);
        a.assembly += seconds_since(t0);
        const ResidualMeasures measures = newton_system_->measure(dt);
        a.convergence = convergence(measures, dt);
        const Convergence& c = a.convergence;
        if (!c.finite) {
            a.failure = "the residual is not finite";
            return false;
        }
        if (it >= s.min_iterations && c.met(s)) return true;
        if (it == s.max_iterations) {
            a.failure = "Newton did not converge in " + std::to_string(it) + " iterations (CNV " +
                        sci(std::max(c.cnv[0], c.cnv[1])) + ", MB " +
                        sci(std::max(c.mb[0], c.mb[1])) + ", wells " + sci(c.well) + ")";
            return false;
        }

        // J dx = -R with this iteration's linear tolerance.
        const double norm = measures.norm;
        double tolerance = 0.0;  // the solver's
        if (s.linear_tolerance == LinearTolerance::adaptive) {
            // Eisenstat and Walker's choice 2 (gamma 0.9, alpha 2): loose far from the
            // solution, tighter as Newton converges; with the criteria floor no tighter than
            // the convergence test needs: the residual need only fall below the tolerances,
            // a tenth of the way there for the criterion furthest from its own (the linear
            // residual's distribution differs from the nonlinear one's: the margin).
            double eta = it == 0 ? s.linear_tolerance_max
                                 : 0.9 * (norm / previous_norm) * (norm / previous_norm);
            if (s.linear_tolerance_floor == LinearFloor::criteria) {
                eta = std::max(eta, kCriteriaFloorFraction * c.closest_ratio(s));
            }
            tolerance = std::clamp(eta, linear_defaults_.tolerance, s.linear_tolerance_max);
        }
        previous_norm = norm;
        const LinearStats before = newton_system_->linear_stats();
        const SolveResult r = newton_system_->solve(tolerance);
        const LinearStats after = newton_system_->linear_stats();
        a.setup += after.setup_seconds - before.setup_seconds;
        a.setup += after.update_seconds - before.update_seconds;
        a.solve += after.solve_seconds - before.solve_seconds;
        ++a.newton_iterations;
        a.linear_iterations += r.iterations;
        newton_.push_back({attempts_, -1, r.iterations, r.status == SolveStatus::converged,
                           std::max(c.cnv[0], c.cnv[1]), std::max(c.mb[0], c.mb[1]),
                           tolerance > 0.0 ? tolerance : linear_defaults_.tolerance});
        if (r.status != SolveStatus::converged) {
            a.failure = "the linear solver stopped with " + std::string(to_string(r.status)) +
                        " after " + std::to_string(r.iterations) +
                        " iterations (relative residual " + sci(r.relative_residual) + ")";
            return false;
        }
        newton_system_->update({s.max_pressure_change, s.max_saturation_change});
        check_limits(switches, a.switches);
    }
}

Outcome Simulator::run(const Observer& observer) {
    const TimeStepping& ts = schedule_.dt;
    const std::vector<WellEvent>& events = events_;
    std::size_t& next_event = next_event_;
    std::size_t& next_report = next_report_;
    double& dt_next = dt_next_;
    if (observer.report) observer.report(static_cast<int>(next_report), time_);

    while (next_report < schedule_.report_times.size()) {
        // Events due now apply before the step from here.
        while (next_event < events.size() && events[next_event].time <= time_) {
            const WellEvent& e = events[next_event];
            apply_event(next_event++);
            if (observer.control)
                observer.control({time_, e.well, controls_[e.well], ControlChange::event, &e});
        }
        convert_reservoir_rates();  // the step's attempts start from the same state
        const double stop =
            std::min(schedule_.report_times[next_report],
                     next_event < events.size() ? events[next_event].time : INFINITY);
        int cuts = 0;
        double seconds[4] = {0.0, 0.0, 0.0, 0.0};  // assembly, setup, solve, other
        double dt = dt_next;
        for (;;) {
            // Land on the next stop; split a remainder below 1.5 dt in two halves rather than
            // leave a sliver (OPM's threshold: with 2 dt, a stop every dt_max apart halved
            // every interval and, a halved step never being a full-length one, dt never grew
            // back; design decision 80).
            const double remaining = stop - time_;
            const bool lands = dt >= remaining;
            const double step_dt =
                lands ? remaining : (remaining < 1.5 * dt ? 0.5 * remaining : dt);
            newton_system_->start_step();
            const std::vector<WellState> saved_wells = wells_;
            const std::size_t newton_mark = newton_.size();
            Attempt a;
            const auto t0 = Clock::now();
            const bool ok = newton_step(step_dt, a);
            a.total = seconds_since(t0);
            seconds[0] += a.assembly;
            seconds[1] += a.setup;
            seconds[2] += a.solve;
            seconds[3] += a.total - a.assembly - a.setup - a.solve;
            ++attempts_;
            if (ok) {
                time_ = step_dt == remaining ? stop : time_ + step_dt;
                StepRecord rec;
                rec.step = static_cast<int>(steps_.size());
                rec.time = time_;
                rec.dt = step_dt;
                rec.newton_iterations = a.newton_iterations;
                rec.linear_iterations = a.linear_iterations;
                rec.cuts = cuts;
                rec.convergence = a.convergence;
                rec.assembly_seconds = seconds[0];
                rec.linear_setup_seconds = seconds[1];
                rec.linear_solve_seconds = seconds[2];
                rec.other_seconds = seconds[3];
                rec.rates = newton_system_->rates(controls_);
                rec.bhp = newton_system_->bhp();
                rec.controls = controls_;
                for (std::size_t i = newton_mark; i < newton_.size(); ++i)
                    newton_[i].step = rec.step;
                steps_.push_back(rec);
                for (ControlSwitch sw : a.switches) {
                    sw.time = time_;
                    if (observer.control) observer.control(sw);
                }
                if (observer.step) observer.step(steps_.back());
                // Economic limits act on the step's end rates, for the steps after it.
                for (const ControlSwitch& sw : check_economic_limits(steps_.back().rates)) {
                    if (observer.control) observer.control(sw);
                }
                for (const ControlSwitch& sw : test_wells()) {  // after the shuts: none is due
                    if (observer.control) observer.control(sw);
                }
                // Grow from a step that went through at its full length without a cut.
                if (cuts == 0 && step_dt == dt) {
                    dt_next = std::min(dt * ts.growth, ts.max);
                } else if (cuts > 0) {
                    dt_next = step_dt;
                }
                break;
            }
            newton_system_->restore();
            wells_ = saved_wells;
            refresh_controls();
            ++cuts;
            ++cuts_;
            if (observer.cut) observer.cut(time_, step_dt, a.failure);
            dt = step_dt * ts.cut;
            if (cuts > ts.max_cuts || dt < ts.min) {
                Outcome out;
                out.message = "the time step from day " + days(time_) + " failed " +
                              std::to_string(cuts) + " times (last dt " + days(step_dt) + " day" +
                              (cuts > ts.max_cuts ? ", more than schedule.max_cuts"
                                                  : ", the next below schedule.dt_min") +
                              "): " + a.failure;
                return out;
            }
        }
        if (time_ == schedule_.report_times[next_report]) {
            ++next_report;
            if (observer.report) observer.report(static_cast<int>(next_report), time_);
        }
        if (observer.stop && next_report < schedule_.report_times.size()) {
            std::string why = observer.stop();
            if (!why.empty()) return {false, true, std::move(why)};
        }
    }
    return {true, false, ""};
}

}  // namespace heptane::sim
