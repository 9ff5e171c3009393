// Well tests (design decision 88; Eclipse's WTEST): a producer its economic limits shut is
// opened again at the end of the first step test_interval or more after the shut, shut again
// when the next step's rates still break a limit, at most test_count times in a row, and left
// open when it passes.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "sim/simulation_test_support.hpp"
#include "sim/simulator.hpp"

namespace heptane::sim {
namespace {

using namespace test_support;

constexpr std::size_t kPB = 2;  // the three-well reservoir's BHP producer

struct TestedRun {
    std::vector<StepRecord> steps;
    std::vector<ControlSwitch> switches;  ///< PB's economic shuts and tests, in order
    ScheduledWell end;                    ///< PB at the run's end
};

/// The three-well reservoir for 30 days, PB shut by an oil-rate limit it can never reach (at
/// the first step's end, and at the end of every step it is tested in), tested every
/// `interval` days at most `count` times; `events` added to the schedule.
TestedRun run(double interval, int count, std::vector<WellEvent> events = {}) {
    Reservoir r;
    r.spec.wells[kPB].min_oil_rate = 1.0;  // m^3/s: far above any rate of the run
    r.spec.wells[kPB].test_interval = interval * kDay;
    r.spec.wells[kPB].test_count = count;
    r.system = std::make_unique<wells::TwoPhaseSystem>(r.spec.grid, r.rock, r.spec.two_phase,
                                                       r.spec.wells);
    Schedule s = schedule(30.0);
    s.events = std::move(events);
    Simulator sim(*r.system, r.x0, s, cpu_solver(), linear(1e-10));
    TestedRun out;
    Observer obs;
    obs.step = [&](const StepRecord& step) { out.steps.push_back(step); };
    obs.control = [&](const ControlSwitch& c) {
        if (c.well == kPB && (c.why == ControlChange::economic || c.why == ControlChange::test))
            out.switches.push_back(c);
    };
    const Outcome o = sim.run(obs);
    EXPECT_TRUE(o.completed) << o.message;
    out.end = sim.scheduled_wells()[kPB];
    return out;
}

/// The step that ends at time t.
std::size_t step_at(const TestedRun& r, double t) {
    for (std::size_t k = 0; k < r.steps.size(); ++k) {
        if (r.steps[k].time == t) return k;
    }
    ADD_FAILURE() << "no step ends at " << t / kDay << " days";
    return 0;
}

/// Shut, test, shut, test, ...: each test at the end of the first step `interval` or more
/// after the shut before it, each tested step with PB open and the next shut at its end (but
/// a test at the run's last step). Returns the number of tests.
std::size_t expect_tests(const TestedRun& r, double interval) {
    EXPECT_FALSE(r.switches.empty());
    std::size_t tests = 0;
    for (std::size_t q = 0; q < r.switches.size(); ++q) {
        const ControlSwitch& c = r.switches[q];
        EXPECT_EQ(c.why, q % 2 == 0 ? ControlChange::economic : ControlChange::test) << q;
        EXPECT_EQ(c.control.open, q % 2 == 1) << q;
        if (q % 2 == 0) continue;
        ++tests;
        const double shut = r.switches[q - 1].time;
        const std::size_t k = step_at(r, c.time);
        EXPECT_GE(c.time, shut + interval * kDay) << "test " << tests;
        EXPECT_LT(r.steps[k - 1].time, shut + interval * kDay) << "test " << tests << " late";
        if (k + 1 == r.steps.size()) {  // at the run's end: no tested step
            EXPECT_EQ(q + 1, r.switches.size());
            continue;
        }
        EXPECT_TRUE(r.steps[k + 1].controls[kPB].open) << "the tested step";
        EXPECT_GT(r.steps[k + 1].rates[kPB].oil, 0.0);
        EXPECT_LT(q + 1, r.switches.size());
        if (q + 1 < r.switches.size()) {
            EXPECT_EQ(r.switches[q + 1].time, r.steps[k + 1].time) << "shut again at its end";
        }
    }
    // PB is shut after the first step but in the tested steps.
    std::size_t open_steps = 0;
    for (std::size_t k = 1; k < r.steps.size(); ++k) open_steps += r.steps[k].controls[kPB].open;
    EXPECT_EQ(open_steps, tests - (r.switches.size() % 2 == 0 ? 1 : 0));
    return tests;
}

TEST(WellTests, AShutProducerIsTestedEachIntervalUpToItsCount) {
    const TestedRun unbounded = run(2.0, 0);
    EXPECT_GE(expect_tests(unbounded, 2.0), 3u) << "a test every 2 days over 30 days";
    EXPECT_GE(unbounded.end.economic_shut_time, 0.0);
    const TestedRun bounded = run(2.0, 2);
    EXPECT_EQ(expect_tests(bounded, 2.0), 2u);
    EXPECT_EQ(bounded.switches.size(), 5u);
    EXPECT_EQ(bounded.end.tests, 2);
    EXPECT_FALSE(bounded.end.open);
    // Up to the second test's end the bounded run is the unbounded one, bit for bit.
    const std::size_t k = step_at(bounded, bounded.switches[4].time);
    for (std::size_t s = 0; s <= k; ++s) {
        EXPECT_EQ(std::memcmp(&bounded.steps[s].rates[kPB], &unbounded.steps[s].rates[kPB],
                              sizeof(wells::WellRates)),
                  0)
            << "step " << s;
    }
    // Without tests the well stays shut from the first step on.
    const TestedRun untested = run(0.0, 0);
    ASSERT_EQ(untested.switches.size(), 1u);
}

TEST(WellTests, ATestThatPassesLeavesTheWellOpen) {
    // An event at day 10 drops the limit (the status untouched: PB stays shut): the next test
    // finds the rates within the limits and PB produces to the end.
    WellEvent e;
    e.time = 10.0 * kDay;
    e.well = kPB;
    e.key = "schedule.events[0]";
    e.min_oil_rate = 0.0;
    const TestedRun r = run(2.0, 0, {e});
    ASSERT_GE(r.switches.size(), 2u);
    const ControlSwitch& last = r.switches.back();
    EXPECT_EQ(last.why, ControlChange::test);
    EXPECT_GE(last.time, 10.0 * kDay);  // the limit dropped at day 10: the next test passes
    for (std::size_t k = step_at(r, last.time) + 1; k < r.steps.size(); ++k) {
        EXPECT_TRUE(r.steps[k].controls[kPB].open) << "step " << k;
    }
    EXPECT_TRUE(r.end.open);
    EXPECT_LT(r.end.economic_shut_time, 0.0) << "a passed test ends the tests";
    EXPECT_EQ(r.end.tests, 0);
}

TEST(WellTests, AreAProducersAndWithinRange) {
    Reservoir r;
    std::vector<wells::WellSpec> w = r.spec.wells;
    w[0].test_interval = kDay;  // INJ
    EXPECT_THROW(wells::validate_wells(r.spec.grid, w), InputError);
    w = r.spec.wells;
    w[kPB].test_interval = -1.0;
    EXPECT_THROW(wells::validate_wells(r.spec.grid, w), InputError);
    w[kPB].test_interval = kDay;
    w[kPB].test_count = -1;
    EXPECT_THROW(wells::validate_wells(r.spec.grid, w), InputError);
    w[kPB].test_count = 3;
    EXPECT_NO_THROW(wells::validate_wells(r.spec.grid, w));
    WellEvent e;  // an event's, on the injector, at its key
    e.well = 0;
    e.test_count = 2;
    EXPECT_EQ(event_error_key(e, r.spec.wells), "schedule.events[0].test_count");
}

}  // namespace
}  // namespace heptane::sim
