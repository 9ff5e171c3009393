#pragma once
/// @file What a simulation runs (issue 17): report times, time-step control, Newton settings
/// and well events, in SI. app/ reads them from the deck's `schedule` section
/// (inputs/README.md); validate() checks what the deck reader cannot see alone (events
/// against the wells and their limits).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "wells/well.hpp"

namespace heptane::sim {

/// A change to one well at a time of the schedule. Whatever is set changes; the rest stays.
struct WellEvent {
    double time = 0.0;     ///< [s] from the start; >= 0, before the end time
    std::size_t well = 0;  ///< index into the model's wells
    std::string key;       ///< its deck key, e.g. "schedule.events[3]" (messages)
    std::optional<bool> open;
    std::optional<wells::ControlKind> kind;  ///< with target: a new control
    double target = 0.0;                     ///< rate [m^3/s] or BHP [Pa]
    wells::VoidageOf voidage{};     ///< with kind reservoir_rate: its surface rates (WellSpec's)
    std::optional<double> min_bhp;  ///< [Pa], 0 = none (producers)
    std::optional<double> max_bhp;  ///< [Pa], 0 = none (injectors)
    std::optional<double> min_oil_rate;   ///< [m^3/s], 0 = none (producers; decision 86)
    std::optional<double> max_water_cut;  ///< 0 = none (producers)
    std::optional<double> test_interval;  ///< [s], 0 = no tests (producers; decision 88)
    std::optional<int> test_count;        ///< 0 = no bound (producers)
    /// Non-empty: the well's connections from now on (design decision 103), one per layer of
    /// its perforated interval (WellSpec::connections'; a workover, a new completion, a
    /// WPIMULT), each layer's well index recomputed. Its perforated interval stays: a layer an
    /// event opens lies in it from the start (not connected until then).
    std::vector<wells::WellConnection> connections{};
};

/// Time-step control: after an accepted step dt grows by `growth` (not after a step that
/// needed a cut), up to `max`; a failed step is repeated with dt * `cut`; more than
/// `max_cuts` cuts in a row, or a dt below `min`, ends the simulation. Steps are shortened to
/// land on report and event times.
struct TimeStepping {
    double initial = 86400.0;  ///< [s]
    double min = 86.4;         ///< [s] (0.001 day)
    double max = 30.0 * 86400.0;
    double growth = 2.0;
    double cut = 0.5;
    int max_cuts = 8;
};

/// The linear tolerance of a Newton step: the solver's (fixed), or the Eisenstat-Walker
/// forcing term eta_k = 0.9 (|R_k| / |R_{k-1}|)^2 kept in [solver tolerance, max] (adaptive:
/// loose far from the solution, tight near it).
enum class LinearTolerance { fixed, adaptive };

/// The tightest tolerance of an adaptive linear solve: the solver's tolerance alone, or also
/// no tighter than the Newton convergence test needs (LinearFloor::criteria, Kelley 1995:
/// a tenth of the ratio of tolerance to measure of the criterion furthest from its own).
enum class LinearFloor { criteria, solver };

/// Newton-Raphson on R(x) = 0 (cells and wells). Converged when for each phase a
///   CNV_a = B_a max_m |R_a(m)| dt / PV_m <= tolerance_cnv,
///   MB_a  = B_a |sum_m R_a(m)| dt / sum_m PV_m <= tolerance_mb,
/// (R in surface volumes per time, B_a the phase's formation volume factor at the reference
/// pressure: OPM's tolerance-cnv and tolerance-mb, which take the region's mean B), and every
/// well equation is within tolerance_well of its target (relative). Updates are chopped per
/// cell: |dp| <= max_pressure_change |p|, |dS_w| <= max_saturation_change; S_w is then kept
/// in [0, 1].
struct NewtonSettings {
    int max_iterations = 12;
    int min_iterations = 1;         ///< linear solves before convergence may be declared
    double tolerance_cnv = 1.0e-2;  ///< OPM's default
    double tolerance_mb = 1.0e-7;   ///< OPM's default
    double tolerance_well = 1.0e-6;
    double max_pressure_change = 0.3;  ///< relative, per cell and iteration
    double max_saturation_change = 0.2;
    LinearTolerance linear_tolerance = LinearTolerance::fixed;
    double linear_tolerance_max = 1.0e-2;                        ///< adaptive: the loosest
    LinearFloor linear_tolerance_floor = LinearFloor::criteria;  ///< adaptive: the tightest
};

/// A simulation's schedule. `present` is false for a deck that solves one system.
struct Schedule {
    bool present = false;
    std::vector<double> report_times;  ///< [s], increasing, > 0; the last is the end time
    TimeStepping dt;
    NewtonSettings newton;
    std::vector<WellEvent> events;  ///< in deck order

    double end_time() const { return report_times.empty() ? 0.0 : report_times.back(); }
};

/// Throws InputError at the schedule key at fault for events after the end time, events
/// whose resulting control breaks a well limit (a producer's min_bhp above its BHP target,
/// an injector's max_bhp below it), a limit given to the wrong well type, a BHP or rate
/// target <= 0, and connections that wells::check_connections refuses (key
/// "<event>.connection_factors"). The deck reader has checked the ranges of the numbers and the
/// well names.
void validate(const Schedule& schedule, const std::vector<wells::WellSpec>& wells);

/// The events in time order (stable for equal times: deck order).
std::vector<WellEvent> events_in_order(const Schedule& schedule);

}  // namespace heptane::sim
