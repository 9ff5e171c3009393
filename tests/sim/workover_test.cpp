// Workovers (design decision 103): a schedule event that changes a well's connections, on the
// three-well reservoir. At time 0 it is the spec's connections, bit for bit; later it changes
// the flow from its time on and nothing before; a run resumed after it is the uninterrupted
// run; its connections are validated like a spec's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "core/base/errors.hpp"
#include "sim/simulation_test_support.hpp"

namespace heptane::sim {
namespace {

using namespace test_support;

/// PR's connections of the tests: the top layer shut, the next with twice its well index,
/// the third with a skin of 3, the bottom one Peaceman's.
std::vector<wells::WellConnection> pr_connections() {
    std::vector<wells::WellConnection> c(4);
    c[0].open = false;
    c[1].multiplier = 2.0;
    c[2].skin = 3.0;
    return c;
}

/// A workover of `well` at `days` to `connections`.
WellEvent workover(std::size_t well, double days, std::vector<wells::WellConnection> connections) {
    WellEvent e;
    e.time = days * kDay;
    e.well = well;
    e.key = "schedule.events[0]";
    e.connections = std::move(connections);
    return e;
}

TEST(Workover, AtTheStartItIsTheSpecsConnections) {
    Reservoir r;
    std::vector<wells::WellSpec> specs = r.system->wells().specs();
    specs[1].connections = pr_connections();
    const wells::TwoPhaseSystem completed(r.spec.grid, r.rock, r.spec.two_phase, specs);
    Simulator given(completed, r.x0, schedule(10.0), cpu_solver(), linear());
    Schedule s = schedule(10.0);
    s.events = {workover(1, 0.0, pr_connections())};
    validate(s, r.spec.wells);
    Simulator changed(*r.system, r.x0, s, cpu_solver(), linear());
    Simulator plain(*r.system, r.x0, schedule(10.0), cpu_solver(), linear());
    ASSERT_TRUE(given.run().completed);
    ASSERT_TRUE(changed.run().completed);
    ASSERT_TRUE(plain.run().completed);
    expect_same_records(given, changed);
    EXPECT_NE(plain.state().p_bh, changed.state().p_bh);  // the workover did something
}

// PB (a BHP producer through layers 1 and 2) loses its top layer on day 3: the run is the
// run whose workover changes nothing (every layer at its Peaceman index) up to day 3, and PB
// produces less oil from there on.
TEST(Workover, ChangesTheFlowFromItsTimeOn) {
    Reservoir r;
    std::vector<wells::WellConnection> shut(2);
    shut[0].open = false;
    Schedule s = schedule(10.0), same = schedule(10.0);
    s.events = {workover(2, 3.0, shut)};
    same.events = {workover(2, 3.0, std::vector<wells::WellConnection>(2))};
    Simulator a(*r.system, r.x0, s, cpu_solver(), linear());
    Simulator b(*r.system, r.x0, same, cpu_solver(), linear());
    ASSERT_TRUE(a.run().completed);
    ASSERT_TRUE(b.run().completed);
    ASSERT_EQ(a.steps().size(), b.steps().size());
    int before = 0, after = 0;
    for (std::size_t i = 0; i < a.steps().size(); ++i) {
        const StepRecord &x = a.steps()[i], &y = b.steps()[i];
        ASSERT_EQ(x.time, y.time);
        if (x.time <= 3.0 * kDay) {
            ++before;
            EXPECT_EQ(x.rates[2].oil, y.rates[2].oil) << "step " << i;
            EXPECT_EQ(x.bhp, y.bhp) << "step " << i;
        } else {
            ++after;
            EXPECT_LT(x.rates[2].oil, 0.9 * y.rates[2].oil) << "step " << i;
        }
    }
    EXPECT_GT(before, 1);
    EXPECT_GT(after, 1);
    // The identity workover is the run without one, but for landing on day 3.
    Schedule none = schedule(10.0);
    none.events = {workover(2, 3.0, {})};  // no change at all
    Simulator c(*r.system, r.x0, none, cpu_solver(), linear());
    ASSERT_TRUE(c.run().completed);
    expect_same_records(b, c);
}

// Stopped after every accepted step and resumed by a new simulator (a new NewtonSystem, which
// starts from the specs' well indices), the run is the uninterrupted one: resume() sets the
// connections of the workovers the checkpoint had applied.
TEST(Workover, ResumedAfterItTheRunIsTheUninterruptedOne) {
    Reservoir r;
    Schedule s = schedule(14.0);
    s.events = test::workover_events();
    validate(s, r.spec.wells);
    Simulator full(*r.system, r.x0, s, cpu_solver(), linear());
    ASSERT_TRUE(full.run().completed);
    const int n = static_cast<int>(full.steps().size());
    for (int k = 1; k < n; ++k) {
        Simulator first(*r.system, r.x0, s, cpu_solver(), linear());
        Observer stop;
        stop.stop = [&]() {
            return static_cast<int>(first.steps().size()) >= k ? "stop" : std::string();
        };
        first.run(stop);
        const Checkpoint c = first.checkpoint();
        Simulator second(*r.system, make_host_newton(*r.system, c.state, cpu_solver(), linear()), s,
                         linear());
        second.resume(c);
        ASSERT_TRUE(second.run().completed) << "k " << k;
        expect_same_records(second, full);
    }
}

TEST(Workover, ConnectionsAreValidatedLikeASpecs) {
    Reservoir r;
    const auto key = [&](std::vector<wells::WellConnection> c) {
        return event_error_key(workover(2, 0.0, std::move(c)), r.spec.wells);
    };
    EXPECT_EQ(key(std::vector<wells::WellConnection>(2)), "");
    EXPECT_EQ(key(std::vector<wells::WellConnection>(3)), "schedule.events[0].connection_factors");
    std::vector<wells::WellConnection> closed(2);
    closed[0].open = closed[1].open = false;
    EXPECT_EQ(key(closed), "schedule.events[0].connection_factors");
    std::vector<wells::WellConnection> negative(2);
    negative[1].multiplier = -1.0;
    EXPECT_EQ(key(negative), "schedule.events[0].connection_factors");
    // A radius no smaller than the cell's Peaceman radius: refused before the run starts.
    std::vector<wells::WellConnection> wide(2);
    wide[1].radius = 100.0;
    Schedule s = schedule(10.0);
    s.events = {workover(2, 5.0, wide)};
    try {
        Simulator sim(*r.system, r.x0, s, cpu_solver(), linear());
        ADD_FAILURE() << "a workover's radius wider than its cell was accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key(), "schedule.events[0].connection_factors");
        EXPECT_THAT(e.detail(), ::testing::HasSubstr("radius: r_w = 100"));
    }
}

}  // namespace
}  // namespace heptane::sim
