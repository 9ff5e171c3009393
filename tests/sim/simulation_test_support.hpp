#pragma once
/// @file What the simulation loop's tests share (tests/sim): the three-well reservoir, a
/// two-report schedule, the CPU linear solver and its options, two runs' records compared.
#include <gtest/gtest.h>

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

/// a and b, every value of every record but the timings, bit for bit.
inline void expect_same_records(const Simulator& a, const Simulator& b) {
    ASSERT_EQ(a.steps().size(), b.steps().size());
    for (std::size_t i = 0; i < a.steps().size(); ++i) {
        const StepRecord &x = a.steps()[i], &y = b.steps()[i];
        EXPECT_EQ(x.step, y.step);
        EXPECT_EQ(x.time, y.time) << "step " << i;
        EXPECT_EQ(x.dt, y.dt) << "step " << i;
        EXPECT_EQ(x.newton_iterations, y.newton_iterations) << "step " << i;
        EXPECT_EQ(x.linear_iterations, y.linear_iterations) << "step " << i;
        EXPECT_EQ(x.cuts, y.cuts) << "step " << i;
        EXPECT_EQ(x.convergence.cnv, y.convergence.cnv) << "step " << i;
        EXPECT_EQ(x.convergence.mb, y.convergence.mb) << "step " << i;
        EXPECT_EQ(x.convergence.well, y.convergence.well) << "step " << i;
        EXPECT_EQ(x.bhp, y.bhp) << "step " << i;
        for (std::size_t w = 0; w < x.rates.size(); ++w) {
            EXPECT_EQ(x.rates[w].oil, y.rates[w].oil) << "step " << i << " well " << w;
            EXPECT_EQ(x.rates[w].water, y.rates[w].water) << "step " << i << " well " << w;
            EXPECT_EQ(x.controls[w].open, y.controls[w].open);
            EXPECT_EQ(x.controls[w].kind, y.controls[w].kind);
            EXPECT_EQ(x.controls[w].target, y.controls[w].target);
        }
    }
    ASSERT_EQ(a.newton().size(), b.newton().size());
    for (std::size_t i = 0; i < a.newton().size(); ++i) {
        const NewtonRecord &x = a.newton()[i], &y = b.newton()[i];
        EXPECT_EQ(x.attempt, y.attempt);
        EXPECT_EQ(x.step, y.step);
        EXPECT_EQ(x.linear_iterations, y.linear_iterations) << "solve " << i;
        EXPECT_EQ(x.tolerance, y.tolerance) << "solve " << i;
        EXPECT_EQ(x.cnv, y.cnv) << "solve " << i;
    }
    EXPECT_EQ(a.cuts(), b.cuts());
    EXPECT_EQ(a.state().cells.p, b.state().cells.p);
    EXPECT_EQ(a.state().cells.sw, b.state().cells.sw);
    EXPECT_EQ(a.state().p_bh, b.state().p_bh);
    EXPECT_EQ(a.controls().size(), b.controls().size());
}

}  // namespace heptane::sim::test_support
