#pragma once
/// @file What the simulation loop's tests share (tests/sim): the three-well reservoir, a
/// two-report schedule, the CPU linear solver and its options.
#include <string>
#include <vector>

#include "common/cpu_solver_factory.hpp"
#include "common/three_well_reservoir.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "sim/simulator.hpp"

namespace heptane::sim::test_support {

constexpr double kDay = units::kDay;

using Reservoir = test::ThreeWellReservoir;

/// Reports at end_days / 2 and end_days; dt from half a day up to 5 days.
inline Schedule schedule(double end_days) {
    Schedule s;
    s.present = true;
    s.report_times = {0.5 * end_days * kDay, end_days * kDay};
    s.dt.initial = 0.5 * kDay;
    s.dt.max = 5.0 * kDay;
    s.dt.min = 1e-4 * kDay;
    return s;
}

inline Simulator::SolverFactory cpu_solver(PreconditionerKind p = PreconditionerKind::line_jacobi) {
    return test::cpu_solver_factory(p);
}

inline SolveOptions linear(double tolerance = 1e-8, int max_iterations = 2000) {
    SolveOptions o;
    o.tolerance = tolerance;
    o.max_iterations = max_iterations;
    return o;
}

/// The key of the InputError that validate() throws for `event` (at 5 days, keyed
/// "schedule.events[0]", its well and fields set by the caller) added to a 30-day schedule of
/// `wells`; empty where it throws none.
inline std::string event_error_key(WellEvent event, const std::vector<wells::WellSpec>& wells) {
    Schedule s = schedule(30.0);
    event.time = 5.0 * kDay;
    event.key = "schedule.events[0]";
    s.events.push_back(event);
    try {
        validate(s, wells);
    } catch (const InputError& err) {
        return err.key();
    }
    return {};
}

}  // namespace heptane::sim::test_support
