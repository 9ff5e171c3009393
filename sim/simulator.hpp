#pragma once
/// @file The simulation loop (issue 17): fully implicit two-phase time steps, each solved by
/// Newton-Raphson on the full residual R(x) (cells and wells, wells/generator.hpp's
/// TwoPhaseSystem), every Newton step's linear system by one solver object made for the
/// first Jacobian and updated with each later one's values (NewtonLinearSolver). Time steps
/// are cut and repeated when Newton or the linear solver fails; wells follow the schedule's
/// events and switch between rate and BHP control at their limits. The state and the
/// per-Newton-step work live in a NewtonSystem (sim/newton_system.hpp: the host's, or the
/// GPU's of issue 23); the loop here reads a few scalars of it per Newton step. SI
/// throughout; app/ turns the records into files and terminal output.
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/krylov/linear_solver.hpp"
#include "sim/newton_linear_solver.hpp"
#include "sim/newton_system.hpp"
#include "sim/schedule.hpp"
#include "wells/generator.hpp"

namespace heptane::sim {

/// The convergence measures of a residual (NewtonSettings): per phase (kOil, kWater) CNV and
/// MB, and the worst relative well-equation residual.
struct Convergence {
    std::array<double, 2> cnv{};
    std::array<double, 2> mb{};
    double well = 0.0;
    bool finite = true;
    bool met(const NewtonSettings& s) const;
    /// min over the criteria of tolerance / measure: below 1 while one is not met, the
    /// smallest for the one furthest from its tolerance (measures of 0 left out).
    double closest_ratio(const NewtonSettings& s) const;
};

/// Why a well's control changed: a schedule event, its BHP limit, back to its rate, or shut by
/// an economic limit at the end of a step (decision 86), opened by a well test (decision 88).
enum class ControlChange { event, limit, rate_restored, economic, test };

struct ControlSwitch {
    double time = 0.0;  ///< [s]: the event's time, or the end of the step that switched
    std::size_t well = 0;
    wells::WellControl control;  ///< the control from then on
    ControlChange why = ControlChange::event;
    const WellEvent* event = nullptr;  ///< an event's own (valid during the callback), else null
};

/// One accepted time step.
struct StepRecord {
    int step = 0;                     ///< 0-based
    double time = 0.0;                ///< end of the step [s]
    double dt = 0.0;                  ///< [s]
    int newton_iterations = 0;        ///< linear solves of the accepted attempt
    long long linear_iterations = 0;  ///< of the accepted attempt
    int cuts = 0;                     ///< attempts cut before the accepted one
    Convergence convergence;          ///< of the accepted state
    /// Wall time of every attempt of this step (the cut ones too) [s]: residual and Jacobian
    /// assembly; the solver object's setup (the first step) and value updates; its solves;
    /// the rest (updates, convergence checks, well controls).
    double assembly_seconds = 0.0;
    double linear_setup_seconds = 0.0;
    double linear_solve_seconds = 0.0;
    double other_seconds = 0.0;
    std::vector<wells::WellRates> rates;  ///< at the end of the step
    std::vector<double> bhp;              ///< [Pa]
    std::vector<wells::WellControl> controls;
};

/// One Newton iteration's linear solve.
struct NewtonRecord {
    int attempt = 0;  ///< 0-based count of time-step attempts (accepted or cut)
    int step = -1;    ///< the accepted step it belongs to; -1 for an attempt that was cut
    int linear_iterations = 0;
    bool converged = false;
    double cnv = 0.0;        ///< max over the phases, of the residual this iteration solved
    double mb = 0.0;         ///< max over the phases, likewise
    double tolerance = 0.0;  ///< the linear solve's relative tolerance
};

/// How run() ended.
struct Outcome {
    bool completed = false;
    bool stopped = false;  ///< by Observer::stop, not by a failure
    std::string message;   ///< not completed: where and why
};

/// What run() tells its caller as it goes (each member may be empty).
struct Observer {
    std::function<void(const StepRecord&)> step;
    /// At the start (index 0, time 0) and at each report time, with the state there.
    std::function<void(int index, double time)> report;
    std::function<void(const ControlSwitch&)> control;
    /// A failed attempt at `time` with step `dt`; it is repeated with a shorter one.
    std::function<void(double time, double dt, const std::string& why)> cut;
    /// Asked after each accepted step: a non-empty answer ends the run there (a wall-clock
    /// limit), with the answer as the outcome's message.
    std::function<std::string()> stop;
};

/// The schedule's view of a well: its control as the deck and events set it, its limits,
/// and whether it runs at a BHP limit instead of its rate.
struct ScheduledWell {
    bool open = true;
    wells::ControlKind kind = wells::ControlKind::bhp;
    double target = 0.0;
    double min_bhp = 0.0, max_bhp = 0.0;
    bool on_limit = false;
    wells::VoidageOf voidage{};                      ///< WCONHIST RESV's rates: the target's source
    double shut_bhp = 0.0;                           ///< the p_bh a shut well keeps
    double min_oil_rate = 0.0, max_water_cut = 0.0;  ///< economic limits (decision 86)
    double test_interval = 0.0;                      ///< well tests (decision 88) [s]
    int test_count = 0;
    /// When the economic limits last shut the well [s]; < 0: they have not since the last
    /// event that set its status or the last test it passed. While it is >= 0 and the well is
    /// open, the well is under test. `tests`: the tests it failed since that first shut.
    double economic_shut_time = -1.0;
    int tests = 0;
};

/// Everything a run carries from one accepted time step to the next (or from the start):
/// with it a run goes on from there with the bits it would have had without stopping
/// (Simulator::resume). `events` are the schedule events applied (the report times passed
/// follow from the time and a schedule); the histories are the run's records so far.
struct Checkpoint {
    double time = 0.0;        ///< [s]
    double dt_next = 0.0;     ///< the next step's proposed length [s]
    double dt_initial = 0.0;  ///< the schedule's first step length in the run that made it [s]
    int events = 0;
    int attempts = 0, cuts = 0;
    State state;
    std::vector<ScheduledWell> wells;
    std::vector<StepRecord> steps;
    std::vector<NewtonRecord> newton;
};

class Simulator {
  public:
    using SolverFactory = sim::SolverFactory;

    /// `system` outlives the simulator; `initial` is the state at time 0 (wells start at
    /// TwoPhaseWells::initial_bhp); `linear` are the per-solve defaults (the solver section's
    /// tolerance and max_iterations). The state lives on the host (make_host_newton).
    Simulator(const wells::TwoPhaseSystem& system, const grid::CellState& initial,
              Schedule schedule, SolverFactory make_solver, SolveOptions linear);
    /// The same with the state and the Newton work in `newton` (made for `system`: the host's
    /// or gpu::make_device_newton's); `linear_defaults` as above.
    Simulator(const wells::TwoPhaseSystem& system, std::unique_ptr<NewtonSystem> newton,
              Schedule schedule, SolveOptions linear_defaults);

    /// Runs to the end time (or until a step cannot be completed). Observer::report is
    /// called first with the report times passed so far and the time (0 and 0 from the start).
    Outcome run(const Observer& observer = {});

    /// Where the run is: at the start, after an accepted step, or after run() returned (the
    /// last accepted state: a failed step's attempts are undone).
    Checkpoint checkpoint() const;
    /// Before run(): go on from `c` as the run that made it would have. The NewtonSystem must
    /// hold c.state already (made from it). The next step is c.dt_next, or this schedule's
    /// dt.initial where it differs from c.dt_initial (a user's new first step), at most its
    /// dt.max. InputError (key "restart") where `c` does not fit
    /// this run: another number of wells, a time past the schedule's end, or another number
    /// of schedule events up to c.time than the run that made it applied (those before it,
    /// or those at it too where a step from c.time failed after they were applied).
    void resume(const Checkpoint& c);

    /// The state now (NewtonSystem::state: a GPU's fields are copied to the host when they
    /// changed since the last call).
    const State& state() const { return newton_system_->state(); }
    /// The cells' oil pressure now, weighted by hydrocarbon pore volume (NewtonSystem's: a GPU
    /// reduces it on the device; fluid_in_place's pressure, bit for bit).
    double mean_hydrocarbon_pressure() const { return newton_system_->mean_hydrocarbon_pressure(); }
    double time() const { return time_; }
    const std::vector<wells::WellControl>& controls() const { return controls_; }
    /// Each well as the schedule, its limits and its tests have set it now.
    const std::vector<ScheduledWell>& scheduled_wells() const { return wells_; }
    const std::vector<StepRecord>& steps() const { return steps_; }
    const std::vector<NewtonRecord>& newton() const { return newton_; }
    /// The next step's proposed length [s] (after resume: the one it chose).
    double next_step() const { return dt_next_; }
    const wells::TwoPhaseSystem& system() const { return system_; }
    const Schedule& schedule() const { return schedule_; }
    /// Totals of the linear stage (zero before the first solve).
    LinearStats linear_stats() const;
    /// The run's solver object (null before the first Newton iteration made it).
    const LinearSolver* linear_solver() const { return newton_system_->linear_solver(); }
    /// NewtonSystem::residence of the run's state.
    std::string residence() const { return newton_system_->residence(); }
    /// Total cut attempts.
    int cuts() const { return cuts_; }

    /// The convergence measures of a residual from its measures (NewtonSystem::measure) under
    /// the current well controls.
    Convergence convergence(const ResidualMeasures& r, double dt) const;

  private:
    using WellState = ScheduledWell;
    struct Attempt;

    /// Applies events_[i]: its control changes and its well indices (event_indices_[i]).
    void apply_event(std::size_t i);
    void refresh_controls();
    /// Well s's own control (open, its kind and target, a reservoir rate's factors).
    wells::WellControl scheduled_control(const WellState& s) const;
    /// At a time step's start, while an open well is under a reservoir_rate control: the
    /// factors at the state now (TwoPhaseWells::reservoir_factors at the NewtonSystem's
    /// mean_hydrocarbon_pressure), fixed over the step's attempts (design decision 100).
    void convert_reservoir_rates();
    /// One Newton solve of a step of length dt from the current state; true when converged.
    bool newton_step(double dt, Attempt& a);
    /// Switches wells at their limits and back; the switches are added to `pending`.
    bool check_limits(std::vector<int>& switches, std::vector<ControlSwitch>& pending);
    /// Shuts each open producer whose rates in `rates` (an accepted step's end) break one of
    /// its economic limits; the switches made.
    std::vector<ControlSwitch> check_economic_limits(const std::vector<wells::WellRates>& rates);
    /// At the end of an accepted step: each well the economic limits shut whose test is due
    /// (decision 88) is opened for the steps after it; the switches made.
    std::vector<ControlSwitch> test_wells();

    const wells::TwoPhaseSystem& system_;
    std::unique_ptr<NewtonSystem> newton_system_;
    Schedule schedule_;
    SolveOptions linear_defaults_;

    double time_ = 0.0;
    double dt_next_ = 0.0;           ///< the next step's proposed length
    std::size_t next_report_ = 0;    ///< report times passed
    std::size_t next_event_ = 0;     ///< events applied (of events_)
    std::vector<WellEvent> events_;  ///< events_in_order(schedule_)
    /// Per event of events_: the well indices its connections give (empty: none given).
    std::vector<std::vector<double>> event_indices_;
    std::vector<WellState> wells_;
    std::vector<wells::WellControl> controls_;           ///< the active controls of wells_
    std::array<double, 2> reservoir_factors_{1.0, 1.0};  ///< convert_reservoir_rates'

    std::vector<StepRecord> steps_;
    std::vector<NewtonRecord> newton_;
    int attempts_ = 0;
    int cuts_ = 0;
};

}  // namespace heptane::sim
