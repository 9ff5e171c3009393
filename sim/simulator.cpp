#include "sim/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <utility>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "core/base/vector_ops.hpp"
#include "sim/newton_terms.hpp"

namespace heptane::sim {
namespace {

using Clock = std::chrono::steady_clock;
using wells::ControlKind;
using wells::WellType;

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
    : system_(system),
      schedule_(std::move(schedule)),
      make_solver_(std::move(make_solver)),
      linear_defaults_(std::move(linear)) {
    const grid::Grid3D& g = system_.cells().grid();
    state_.cells = initial;
    state_.p_bh = system_.wells().initial_bhp(initial);
    for (const wells::WellSpec& spec : system_.wells().specs()) {
        WellState w;
        w.kind = spec.control;
        w.target = spec.target;
        w.min_bhp = spec.min_bhp;
        w.max_bhp = spec.max_bhp;
        wells_.push_back(w);
    }
    refresh_controls();
    jacobian_ = GHMatrix(g.nx, g.ny, g.nz, 2);
}

LinearStats Simulator::linear_stats() const { return linear_ ? linear_->stats() : LinearStats{}; }

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
            controls_[w] = {true, s.kind, s.target};
        }
    }
}

void Simulator::apply_event(const WellEvent& e) {
    WellState& s = wells_.at(e.well);
    if (e.kind) {
        s.kind = *e.kind;
        s.target = e.target;
        s.on_limit = false;
    }
    if (e.min_bhp) s.min_bhp = *e.min_bhp;
    if (e.max_bhp) s.max_bhp = *e.max_bhp;
    if (e.open) {
        if (s.open && !*e.open) s.shut_bhp = state_.p_bh[e.well];
        s.open = *e.open;
    }
    refresh_controls();
}

Convergence Simulator::measure(const std::vector<double>& res, double dt) const {
    const grid::TwoPhaseCellsView v = system_.cells().view();
    const index_t M = system_.cells().grid().num_cells();
    const double dt_scaled = dt / units::kTimeScale;  // R is a volume per kTimeScale
    const double* p = state_.cells.p.data();
    // The sums in the canonical order (a GPU gives the same bits), the maxima in any order.
    const auto sums = vec::fused_sums<3>(M, [&](index_t m, double* t) {
        t[0] = res[2 * m];
        t[1] = res[2 * m + 1];
        t[2] = pore_volume(v, m, p[m]);
    });
    Convergence c;
    double cnv0 = 0.0, cnv1 = 0.0;
    bool finite = true;
#pragma omp parallel for schedule(static) reduction(max : cnv0, cnv1) reduction(&& : finite) \
    if (M >= vec::kParallelMin)
    for (index_t m = 0; m < M; ++m) {
        const double pv = pore_volume(v, m, p[m]), r0 = res[2 * m], r1 = res[2 * m + 1];
        finite = finite && std::isfinite(r0) && std::isfinite(r1);
        cnv0 = std::max(cnv0, cnv_term(r0, pv, dt_scaled));
        cnv1 = std::max(cnv1, cnv_term(r1, pv, dt_scaled));
    }
    c.finite = finite;
    c.cnv = {cnv0, cnv1};
    const double pore = sums[2];
    for (int a = 0; a < 2; ++a) c.mb[a] = pore > 0.0 ? std::abs(sums[a]) * dt_scaled / pore : 0.0;
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        const double r = res[static_cast<std::size_t>(2 * M) + w];
        if (!std::isfinite(r)) c.finite = false;
        const wells::WellControl& ctl = controls_[w];
        // rate: R in m^3/day against the target's; BHP (and shut): R in bar against the target's
        const double scale = ctl.open && ctl.kind == ControlKind::rate
                                 ? ctl.target * units::kTimeScale
                                 : ctl.target / units::kPressureScale;
        c.well = std::max(c.well, std::abs(r) / scale);
    }
    if (!c.finite) c.well = INFINITY;
    return c;
}

void Simulator::apply_update(const std::vector<double>& dx) {
    const NewtonSettings& s = schedule_.newton;
    const UpdateLimits u{s.max_pressure_change, s.max_saturation_change};
    const index_t M = system_.cells().grid().num_cells();
    double* p = state_.cells.p.data();
    double* sw = state_.cells.sw.data();
#pragma omp parallel for schedule(static) if (M >= vec::kParallelMin)
    for (index_t m = 0; m < M; ++m) update_cell(u, m, dx.data(), p, sw);
    for (std::size_t w = 0; w < state_.p_bh.size(); ++w) {
        double& pb = state_.p_bh[w];
        pb = chopped_pressure(u, pb, dx[static_cast<std::size_t>(2 * M) + w]);
    }
}

bool Simulator::check_limits(std::vector<int>& switches, std::vector<ControlSwitch>& pending) {
    // Each well may switch a few times per attempt: enough to go to its limit and back,
    // not enough to oscillate between the two for the rest of the Newton loop.
    constexpr int kMaxSwitches = 3;
    const auto& specs = system_.wells().specs();
    const std::vector<wells::WellRates> rates =
        system_.wells().rates(state_.cells, state_.p_bh, controls_);
    bool changed = false;
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        WellState& s = wells_[w];
        if (!s.open || s.kind != ControlKind::rate || switches[w] >= kMaxSwitches) continue;
        const bool producer = specs[w].type == WellType::producer;
        const double limit = producer ? s.min_bhp : s.max_bhp;
        if (limit <= 0.0) continue;
        ControlChange why;
        if (!s.on_limit) {
            const double p = state_.p_bh[w];
            if (producer ? p >= limit : p <= limit) continue;
            s.on_limit = true;
            why = ControlChange::limit;
        } else {
            // At its limit the well would deliver more than its rate target: back to the rate.
            const double q = producer ? rates[w].oil + rates[w].water : -rates[w].water;
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

bool Simulator::newton_step(double dt, Attempt& a) {
    const NewtonSettings& s = schedule_.newton;
    const grid::CellState old = state_.cells;
    std::vector<int> switches(wells_.size(), 0);
    double previous_norm = 0.0;
    for (int it = 0;; ++it) {
        auto t0 = Clock::now();
        system_.cells().assemble(state_.cells, old, dt, res_, &jacobian_);
        system_.wells().assemble(state_.cells, state_.p_bh, controls_, res_, res_wells_,
                                 &jacobian_);
        res_.insert(res_.end(), res_wells_.begin(), res_wells_.end());
        a.assembly += seconds_since(t0);
        a.convergence = measure(res_, dt);
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
        double norm = 0.0;
        rhs_.resize(res_.size());
        for (std::size_t i = 0; i < res_.size(); ++i) {
            rhs_[i] = -res_[i];
            norm += res_[i] * res_[i];
        }
        norm = std::sqrt(norm);
        double tolerance = 0.0;  // the solver's
        if (s.linear_tolerance == LinearTolerance::adaptive) {
            const double eta = it == 0 ? s.linear_tolerance_max
                                       : 0.9 * (norm / previous_norm) * (norm / previous_norm);
            tolerance = std::clamp(eta, linear_defaults_.tolerance, s.linear_tolerance_max);
        }
        previous_norm = norm;
        dx_.assign(res_.size(), 0.0);
        t0 = Clock::now();
        if (!linear_) {
            linear_ =
                std::make_unique<NewtonLinearSolver>(make_solver_(jacobian_), linear_defaults_);
            a.setup += linear_->stats().setup_seconds;
        }
        const LinearStats before = linear_->stats();
        const SolveResult r = linear_->solve(jacobian_, rhs_, dx_, tolerance);
        const LinearStats& after = linear_->stats();
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
        apply_update(dx_);
        check_limits(switches, a.switches);
    }
}

Outcome Simulator::run(const Observer& observer) {
    const TimeStepping& ts = schedule_.dt;
    const std::vector<WellEvent> events = events_in_order(schedule_);
    std::size_t next_event = 0;
    std::size_t next_report = 0;
    double dt_next = ts.initial;
    if (observer.report) observer.report(0, time_);

    while (next_report < schedule_.report_times.size()) {
        // Events due now apply before the step from here.
        while (next_event < events.size() && events[next_event].time <= time_) {
            const WellEvent& e = events[next_event++];
            apply_event(e);
            if (observer.control)
                observer.control({time_, e.well, controls_[e.well], ControlChange::event});
        }
        const double stop =
            std::min(schedule_.report_times[next_report],
                     next_event < events.size() ? events[next_event].time : INFINITY);
        int cuts = 0;
        double seconds[4] = {0.0, 0.0, 0.0, 0.0};  // assembly, setup, solve, other
        double dt = dt_next;
        for (;;) {
            // Land on the next stop; split a remainder below 2 dt in two halves rather than
            // leave a sliver.
            const double remaining = stop - time_;
            const bool lands = dt >= remaining;
            const double step_dt =
                lands ? remaining : (remaining < 2.0 * dt ? 0.5 * remaining : dt);
            const State saved = state_;
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
                rec.rates = system_.wells().rates(state_.cells, state_.p_bh, controls_);
                rec.bhp = state_.p_bh;
                rec.controls = controls_;
                for (std::size_t i = newton_mark; i < newton_.size(); ++i)
                    newton_[i].step = rec.step;
                steps_.push_back(rec);
                for (ControlSwitch sw : a.switches) {
                    sw.time = time_;
                    if (observer.control) observer.control(sw);
                }
                if (observer.step) observer.step(steps_.back());
                // Grow from a step that went through at its full length without a cut.
                if (cuts == 0 && step_dt == dt) {
                    dt_next = std::min(dt * ts.growth, ts.max);
                } else if (cuts > 0) {
                    dt_next = step_dt;
                }
                break;
            }
            state_ = saved;
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
