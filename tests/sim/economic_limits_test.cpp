// Economic limits (design decision 86; Eclipse's WECON): a producer whose oil rate falls below
// its minimum, or whose water cut rises above its maximum, at the end of a time step is shut
// for the steps after it, and the run up to there is the run without the limit bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
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

struct LimitedRun {
    std::vector<StepRecord> steps;
    std::vector<ControlSwitch> economic;  ///< the switches an economic limit made
};

/// The three-well reservoir for 30 days with `limit` applied to PB's spec.
LimitedRun run(const std::function<void(wells::WellSpec&)>& limit) {
    Reservoir r;
    limit(r.spec.wells[kPB]);
    r.system = std::make_unique<wells::TwoPhaseSystem>(r.spec.grid, r.rock, r.spec.two_phase,
                                                       r.spec.wells);
    Simulator sim(*r.system, r.x0, schedule(30.0), cpu_solver(), linear(1e-10));
    LimitedRun out;
    Observer obs;
    obs.step = [&](const StepRecord& s) { out.steps.push_back(s); };
    obs.control = [&](const ControlSwitch& c) {
        if (c.why == ControlChange::economic) out.economic.push_back(c);
    };
    const Outcome o = sim.run(obs);
    EXPECT_TRUE(o.completed) << o.message;
    return out;
}

/// PB's oil rate and water cut at each step's end.
double oil_of(const StepRecord& s) { return s.rates[kPB].oil; }
double cut_of(const StepRecord& s) {
    const double liquid = s.rates[kPB].oil + s.rates[kPB].water;
    return liquid > 0.0 ? s.rates[kPB].water / liquid : 0.0;
}

/// The first step k + 1 where `value` crosses below (falling) or above (rising) every earlier
/// step's, and a limit halfway between: the run with that limit shuts the well at step k + 1.
std::pair<std::size_t, double> first_crossing(const std::vector<StepRecord>& steps,
                                              double (*value)(const StepRecord&), bool falling) {
    double extreme = value(steps[0]);
    for (std::size_t k = 1; k < steps.size(); ++k) {
        const double v = value(steps[k]);
        if (falling ? v < extreme : v > extreme) return {k, 0.5 * (v + extreme)};
        extreme = falling ? std::min(extreme, v) : std::max(extreme, v);
    }
    ADD_FAILURE() << "no crossing in the run";
    return {0, 0.0};
}

/// The limited run is the base run up to step k bit for bit, shut by its economic limit at
/// step k's end, and shut (no rates) in every later step.
void expect_shut_at(const LimitedRun& base, const LimitedRun& limited, std::size_t k) {
    ASSERT_EQ(limited.economic.size(), 1u);
    EXPECT_EQ(limited.economic[0].well, kPB);
    EXPECT_FALSE(limited.economic[0].control.open);
    ASSERT_GT(limited.steps.size(), k + 1) << "no step after the shut";
    EXPECT_EQ(limited.economic[0].time, limited.steps[k].time);
    for (std::size_t s = 0; s <= k; ++s) {
        EXPECT_EQ(limited.steps[s].dt, base.steps[s].dt) << "step " << s;
        EXPECT_TRUE(limited.steps[s].controls[kPB].open) << "step " << s;
        EXPECT_EQ(std::memcmp(&limited.steps[s].rates[kPB], &base.steps[s].rates[kPB],
                              sizeof(wells::WellRates)),
                  0)
            << "step " << s;
    }
    for (std::size_t s = k + 1; s < limited.steps.size(); ++s) {
        EXPECT_FALSE(limited.steps[s].controls[kPB].open) << "step " << s;
        EXPECT_EQ(limited.steps[s].rates[kPB].oil, 0.0) << "step " << s;
        EXPECT_EQ(limited.steps[s].rates[kPB].water, 0.0) << "step " << s;
    }
}

TEST(EconomicLimits, AProducerBelowItsMinimumOilRateIsShutAtThatStepsEnd) {
    const LimitedRun base = run([](wells::WellSpec&) {});
    EXPECT_TRUE(base.economic.empty());
    const auto [k, limit] = first_crossing(base.steps, oil_of, true);
    ASSERT_GT(k, 0u);
    const LimitedRun limited = run([limit = limit](wells::WellSpec& w) { w.min_oil_rate = limit; });
    expect_shut_at(base, limited, k);
}

TEST(EconomicLimits, AWaterCutAboveItsMaximumShutsTheProducer) {
    const LimitedRun base = run([](wells::WellSpec&) {});
    const auto [k, limit] = first_crossing(base.steps, cut_of, false);
    ASSERT_GT(k, 0u);
    ASSERT_GT(limit, 0.0);
    const LimitedRun limited =
        run([limit = limit](wells::WellSpec& w) { w.max_water_cut = limit; });
    expect_shut_at(base, limited, k);
}

TEST(EconomicLimits, AreAProducersAndWithinRange) {
    Reservoir r;
    std::vector<wells::WellSpec> w = r.spec.wells;
    w[0].min_oil_rate = 1.0;  // INJ
    EXPECT_THROW(wells::validate_wells(r.spec.grid, w), InputError);
    w = r.spec.wells;
    w[kPB].max_water_cut = 1.0;
    EXPECT_THROW(wells::validate_wells(r.spec.grid, w), InputError);
    w[kPB].max_water_cut = 0.9;
    w[kPB].min_oil_rate = -1.0;
    EXPECT_THROW(wells::validate_wells(r.spec.grid, w), InputError);
    w[kPB].min_oil_rate = 1.0;
    EXPECT_NO_THROW(wells::validate_wells(r.spec.grid, w));
    WellEvent e;  // an event's, on the injector, at its key
    e.well = 0;
    e.min_oil_rate = 1.0;
    EXPECT_EQ(event_error_key(e, r.spec.wells), "schedule.events[0].min_oil_rate");
}

}  // namespace
}  // namespace heptane::sim
