// History-matching wells from an Eclipse SCHEDULE (design decision 90): WCONHIST and WCONINJH
// run as the controls they stand for (the same schedule written in YAML gives the same bits),
// the observed rates and BHPs are the file's history series step by step, and the summary
// gives each history well's misfit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/hdf5_file.hpp"
#include "common/cli_runner.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"

namespace heptane::app {
namespace {

using test::CliResult;
using test::run_heptane;
using test::source_path;
using ::testing::HasSubstr;

const std::string kDeck = source_path("tests/app/decks/history_sim.yaml");

// history_schedule.inc written as YAML: P1 on its oil rate with the history wells' BHP limit of
// 1 atm (14.69594877551345 psi is 101325 Pa to the bit), its liquid rate from day 20, shut at
// day 30 (no rate observed), on BHP from day 40; INJ on its rate without a limit, shut at day
// 30 (STOP, no rate), on a prediction rate from day 40. The file is the YAML run's bit for bit;
// P1 reaches the 1 atm limit in the first period (its BHP control then), so the limit is the
// history record's. The observations written in YAML (`observed`) give the same history series.
TEST(History, WconhistAndWconinjhRunTheControlsTheyStandFor) {
    const test::TempFolder dir;
    const std::string a = dir.path() + "/history.h5", b = dir.path() + "/yaml.h5";
    const CliResult ra = run_heptane({"simulate", kDeck, "-o", a, "--backend", "cpu"});
    ASSERT_EQ(ra.code, kExitOk) << ra.err << ra.out;
    EXPECT_THAT(ra.err, HasSubstr("history_schedule.inc:35: WCONINJH: well INJ: STOP taken as "
                                  "SHUT (heptane's shut wellbore has no cross-flow"));
    const std::string limit = "14.69594877551345";
    const CliResult rb = run_heptane(
        {"simulate", kDeck, "-o", b, "--backend", "cpu", "--set",
         "wells=[{name: INJ, type: injector, column: [2, 2], radius: 0.25, "
         "control: {kind: rate, value: 10}, observed: {water_rate: 10, bhp: 6300}}, "
         "{name: P1, type: producer, column: [1, 1], perforations: [0, 2], radius: 0.25, "
         "skin: 1.5, control: {kind: oil_rate, value: 8}, min_bhp: " +
             limit + ", observed: {oil_rate: 8, water_rate: 0.5, bhp: 5800}}]",
         "--set",
         "schedule={report_times: [20, 30, 40, 60], dt_initial: 1, dt_max: 10, events: ["
         "{time: 20, well: P1, status: open, control: {kind: rate, value: 8}, min_bhp: " +
             limit +
             ", observed: {oil_rate: 6, water_rate: 2, bhp: 5700}}, "
             "{time: 30, well: P1, status: shut, observed: {oil_rate: 0, water_rate: 0}}, "
             "{time: 30, well: INJ, status: shut, observed: {water_rate: 0}}, "
             "{time: 40, well: P1, status: open, control: {kind: bhp, value: 5800}, min_bhp: 0, "
             "observed: {oil_rate: 0, water_rate: 0, bhp: 5800}}, "
             "{time: 40, well: INJ, status: open, control: {kind: rate, value: 8}, max_bhp: 0, "
             "observed: {}}]}"});
    ASSERT_EQ(rb.code, kExitOk) << rb.err << rb.out;
    EXPECT_EQ(run_heptane({"compare", a, b, "--rtol", "0", "--atol", "0"}).code, kExitOk);
    const h5::File f = h5::File::open(a), g = h5::File::open(b);
    for (const char* d : {"/wells/P1/bhp", "/wells/P1/oil_rate", "/wells/INJ/bhp"}) {
        EXPECT_EQ(f.read(d).values, g.read(d).values) << d;
    }
    // P1's controls: its oil rate, the limit (BHP), its liquid rate, shut, its BHP.
    const std::vector<double> control = f.read("/wells/P1/control").values;
    const std::vector<double> time = f.read("/wells/P1/time").values;
    bool limited = false;
    for (std::size_t k = 0; k < time.size(); ++k) {
        const double expected = time[k] <= 20.0   ? (control[k] == 2.0 ? 2.0 : 3.0)
                                : time[k] <= 30.0 ? 1.0
                                : time[k] <= 40.0 ? 0.0
                                                  : 2.0;
        EXPECT_EQ(control[k], expected) << "day " << time[k];
        limited = limited || (time[k] <= 20.0 && control[k] == 2.0);
    }
    EXPECT_TRUE(limited) << "P1 should reach the 1 atm limit before day 20";
    // The same observations in YAML (`observed` on the wells and the events): the same series
    // and misfits.
    for (const char* well : {"P1", "INJ"}) {
        const std::string w = std::string("/wells/") + well;
        for (const char* series : {"/oil_rate_history", "/water_rate_history", "/bhp_history"}) {
            const std::vector<double> x = f.read(w + series).values, y = g.read(w + series).values;
            ASSERT_EQ(x.size(), y.size()) << w << series;
            for (std::size_t k = 0; k < x.size(); ++k) {
                EXPECT_TRUE(x[k] == y[k] || (std::isnan(x[k]) && std::isnan(y[k])))
                    << w << series << "[" << k << "]: " << x[k] << " vs " << y[k];
            }
        }
        EXPECT_EQ(g.attr_double(w, "misfit_water_rate"), f.attr_double(w, "misfit_water_rate"))
            << w;
    }
}

// The history series: each step's observation is the record in force over the step (the one at
// or before its start), in the deck's units, NaN where nothing is observed (a BHP not given, a
// prediction record); on its rate control P1 produces its observed oil rate (the Newton
// tolerance apart); the summary prints each history well's time-weighted RMS misfit, and the
// file has it (attributes of /wells/NAME), which is recomputed here from the file. Fails with
// an observation taken at the step's end.
TEST(History, TheObservedSeriesAreTheRecordsInForceOverEachStep) {
    const test::TempFolder dir;
    const std::string a = dir.path() + "/history.h5";
    const CliResult r = run_heptane({"simulate", kDeck, "-o", a, "--backend", "cpu"});
    ASSERT_EQ(r.code, kExitOk) << r.err << r.out;
    const h5::File f = h5::File::open(a);
    EXPECT_EQ(f.attr_string("/wells/P1/oil_rate_history", "units"), "stb/day");
    EXPECT_EQ(f.attr_string("/wells/P1/bhp_history", "units"), "psi");
    const std::vector<double> time = f.read("/wells/P1/time").values;
    const std::vector<double> oil_h = f.read("/wells/P1/oil_rate_history").values;
    const std::vector<double> water_h = f.read("/wells/P1/water_rate_history").values;
    const std::vector<double> bhp_h = f.read("/wells/P1/bhp_history").values;
    const std::vector<double> inj_h = f.read("/wells/INJ/water_rate_history").values;
    const std::vector<double> inj_bhp_h = f.read("/wells/INJ/bhp_history").values;
    const std::vector<double> oil = f.read("/wells/P1/oil_rate").values;
    const std::vector<double> control = f.read("/wells/P1/control").values;
    ASSERT_EQ(oil_h.size(), time.size());
    double start = 0.0;
    for (std::size_t k = 0; k < time.size(); ++k) {
        SCOPED_TRACE("step ending at day " + std::to_string(time[k]));
        ASSERT_LT(start, time[k]);
        const int period = start < 20.0 ? 0 : start < 30.0 ? 1 : start < 40.0 ? 2 : 3;
        const double p1_oil[] = {8.0, 6.0, 0.0, 0.0}, p1_water[] = {0.5, 2.0, 0.0, 0.0};
        const double p1_bhp[] = {5800.0, 5700.0, NAN, 5800.0};
        EXPECT_EQ(oil_h[k], p1_oil[period]);
        EXPECT_EQ(water_h[k], p1_water[period]);
        if (std::isnan(p1_bhp[period])) {
            EXPECT_TRUE(std::isnan(bhp_h[k]));
        } else {
            EXPECT_EQ(bhp_h[k], p1_bhp[period]);
        }
        // INJ: injected (< 0), nothing while stopped, no history after WCONINJE.
        if (period < 2) {
            EXPECT_EQ(inj_h[k], -10.0);
            EXPECT_EQ(inj_bhp_h[k], 6300.0);
        } else if (period == 2) {
            EXPECT_EQ(inj_h[k], 0.0);
            EXPECT_FALSE(std::signbit(inj_h[k]));  // not -0
            EXPECT_TRUE(std::isnan(inj_bhp_h[k]));
        } else {
            EXPECT_TRUE(std::isnan(inj_h[k]));
            EXPECT_TRUE(std::isnan(inj_bhp_h[k]));
        }
        if (control[k] == 3.0) {
            EXPECT_NEAR(oil[k], oil_h[k], 1e-6 * oil_h[k]);
        }
        start = time[k];
    }
    // The misfit line: P1's oil rate, recomputed from the file.
    double sum = 0.0, weight = 0.0;
    start = 0.0;
    for (std::size_t k = 0; k < time.size(); ++k) {
        const double dt = time[k] - start;
        sum += dt * (oil[k] - oil_h[k]) * (oil[k] - oil_h[k]);
        weight += dt;
        start = time[k];
    }
    const double misfit = std::sqrt(sum / weight);
    EXPECT_NEAR(f.attr_double("/wells/P1", "misfit_oil_rate"), misfit, 1e-12 * misfit);
    EXPECT_TRUE(std::isnan(f.attr_double("/wells/INJ", "misfit_oil_rate")));  // not observed
    char text[64];
    std::snprintf(text, sizeof text, "    P1: oil %.3g stb/day, water ", misfit);
    EXPECT_THAT(r.out, HasSubstr("  history     misfit to the observed rates and BHP"));
    EXPECT_THAT(r.out, HasSubstr(text));
    EXPECT_THAT(r.out, HasSubstr("    INJ: oil not observed, water "));
}

}  // namespace
}  // namespace heptane::app
