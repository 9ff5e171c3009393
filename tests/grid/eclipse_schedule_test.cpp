// An Eclipse deck's SCHEDULE section as heptane's wells, controls and report times
// (grid/eclipse_schedule.hpp, design decision 79): the Egg model's, FIELD units, controls that
// change later, and what the model cannot take refused at the file's line.
#include "grid/eclipse_schedule.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/units.hpp"

namespace heptane::grid {
namespace {

using test::input_error_of;
using test::TempFile;
using ::testing::HasSubstr;

constexpr FluidUnits kMetric{units::kBar, 1.0, 1.0, 1.0 / units::kDay, units::kDay};

TEST(EclipseSchedule, TheEggModelsSchedule) {
    // WELSPECS (I, J 1-based), COMPDAT 1..7 with diameter 0.2 m, WCONPROD BHP 395 bar, and in
    // SCHEDULE_NEW.INC (INCLUDE) WCONINJE RATE 79.5 sm3/day with a 420 bar limit and 120 TSTEP
    // of 30 days; RPTSCHED, RPTRST and TUNING passed over with a note.
    const EclipseSchedule s =
        read_eclipse_schedule(test::source_path("inputs/data/egg/Egg_Model_ECL.DATA"), {});
    ASSERT_EQ(s.wells.size(), 12u);
    EXPECT_EQ(s.wells[0].name, "INJECT1");
    EXPECT_EQ(s.wells[0].i, 4);
    EXPECT_EQ(s.wells[0].j, 56);
    EXPECT_EQ(s.wells[11].name, "PROD4");
    EXPECT_EQ(s.wells[11].i, 42);
    EXPECT_EQ(s.wells[11].j, 17);
    for (const EclipseWell& w : s.wells) {
        EXPECT_EQ(w.k_first, 0);
        EXPECT_EQ(w.k_last, 6);
        ASSERT_EQ(w.connections.size(), 7u);
        for (const EclipseConnection& c : w.connections) {
            EXPECT_TRUE(c.open);
            EXPECT_EQ(c.radius, 0.1);
            EXPECT_EQ(c.skin, 0.0);
            EXPECT_TRUE(std::isnan(c.factor));
            EXPECT_TRUE(std::isnan(c.kh));
        }
    }
    ASSERT_EQ(s.controls.size(), 12u);  // 4 producers, then 8 injectors, all at the start
    EXPECT_EQ(s.controls[0].well, "PROD1");
    EXPECT_FALSE(s.controls[0].injector);
    EXPECT_FALSE(s.controls[0].rate);
    EXPECT_EQ(s.controls[0].target, 395.0 * units::kBar);
    EXPECT_EQ(s.controls[0].bhp_limit, 0.0);
    EXPECT_EQ(s.controls[4].well, "INJECT1");
    EXPECT_TRUE(s.controls[4].injector);
    EXPECT_TRUE(s.controls[4].rate);
    EXPECT_EQ(s.controls[4].target, 79.5 / units::kDay);
    EXPECT_EQ(s.controls[4].bhp_limit, 420.0 * units::kBar);
    EXPECT_THAT(s.controls[4].where, HasSubstr("SCHEDULE_NEW.INC:2: WCONINJE: "));
    for (const EclipseControl& c : s.controls) {
        EXPECT_EQ(c.time, 0.0);
        EXPECT_TRUE(c.open);
    }
    ASSERT_EQ(s.report_times.size(), 120u);
    EXPECT_EQ(s.report_times[0], 30.0 * units::kDay);
    EXPECT_EQ(s.report_times.back(), 3600.0 * units::kDay);
    ASSERT_EQ(s.notes.size(), 3u);
    EXPECT_THAT(s.notes[2], HasSubstr("Egg_Model_ECL.DATA:268: TUNING: not read"));
}

const std::string kWells =
    "SCHEDULE\nWELSPECS\n 'I1' 'G' 1 1 1* 'WATER' /\n 'P1' 'G' 3 2 1* 'OIL' /\n/\n"
    "COMPDAT\n 'I1' 2* 1 1 'OPEN' 2* 0.5 1* 0 /\n 'I1' 1 1 2 3 'OPEN' 2* 0.5 1* 0 /\n"
    " 'P1' 3 2 2 2 1* 2* 0.5 1* 2.5 /\n/\n";

TEST(EclipseSchedule, FieldUnitsAndControlsThatChangeLater) {
    const TempFile f("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 1* 6000 /\n/\n"
                     "WCONPROD\n 'P1' 'SHUT' 'LRAT' 3* 400 1* 1000 /\n/\n"
                     "TSTEP\n 10 2*5 /\n"
                     "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 1500 /\n/\n"
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'BHP' 2* 5000 /\n/\n"
                     "TSTEP\n 30 /\nEND\nWCONPROD\n this is not read /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.wells.size(), 2u);
    EXPECT_EQ(s.wells[0].k_first, 0);  // two COMPDAT runs, 1..1 and 2..3: one run 0..2
    EXPECT_EQ(s.wells[0].k_last, 2);
    EXPECT_DOUBLE_EQ(s.wells[0].connections[2].radius, 0.25 * units::kFoot);
    EXPECT_EQ(s.wells[1].k_first, 1);
    EXPECT_EQ(s.wells[1].connections[0].skin, 2.5);
    ASSERT_EQ(s.controls.size(), 4u);
    EXPECT_DOUBLE_EQ(s.controls[0].target, 500.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_DOUBLE_EQ(s.controls[0].bhp_limit, 6000.0 * units::kPsi);
    EXPECT_FALSE(s.controls[1].open);  // P1 shut at the start, LRAT 400 with a 1000 psi floor
    EXPECT_TRUE(s.controls[1].rate);
    EXPECT_DOUBLE_EQ(s.controls[1].bhp_limit, 1000.0 * units::kPsi);
    EXPECT_EQ(s.controls[2].time, 20.0 * units::kDay);  // after TSTEP 10 5 5
    EXPECT_TRUE(s.controls[2].open);
    EXPECT_FALSE(s.controls[2].rate);
    EXPECT_DOUBLE_EQ(s.controls[2].target, 1500.0 * units::kPsi);
    EXPECT_FALSE(s.controls[3].rate);  // the injector on BHP: item 7 is the target
    EXPECT_DOUBLE_EQ(s.controls[3].target, 5000.0 * units::kPsi);
    EXPECT_EQ(s.controls[3].bhp_limit, 0.0);
    EXPECT_EQ(s.report_times, (std::vector<double>{10.0 * units::kDay, 15.0 * units::kDay,
                                                   20.0 * units::kDay, 50.0 * units::kDay}));
}

// Design decision 82: a producer on its oil (ORAT) or water (WRAT) surface rate, the
// control's own item its target.
TEST(EclipseSchedule, OilAndWaterRateControls) {
    const TempFile f("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
                     "WCONPROD\n 'P1' 'OPEN' 'ORAT' 300 4* 800 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WCONPROD\n 'P1' 'OPEN' 'WRAT' 1* 250 3* 900 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WCONPROD\n 'P1' 'OPEN' 'LRAT' 3* 400 /\n/\n"
                     "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.controls.size(), 4u);
    EXPECT_EQ(s.controls[0].phase, RatePhase::liquid);  // the injector's water
    const EclipseControl &oil = s.controls[1], &water = s.controls[2], &liquid = s.controls[3];
    EXPECT_TRUE(oil.rate);
    EXPECT_EQ(oil.phase, RatePhase::oil);
    EXPECT_DOUBLE_EQ(oil.target, 300.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_DOUBLE_EQ(oil.bhp_limit, 800.0 * units::kPsi);
    EXPECT_TRUE(water.rate);
    EXPECT_EQ(water.phase, RatePhase::water);
    EXPECT_DOUBLE_EQ(water.target, 250.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_DOUBLE_EQ(water.bhp_limit, 900.0 * units::kPsi);
    EXPECT_EQ(water.time, 10.0 * units::kDay);
    EXPECT_EQ(liquid.phase, RatePhase::liquid);
    EXPECT_DOUBLE_EQ(liquid.target, 400.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(liquid.bhp_limit, 0.0);
}

// Design decision 100: RESV, an injector's (WCONINJE item 6) and a producer's (WCONPROD item
// 8) reservoir volume rate, its target; WELTARG RESV changes it; the surface rate beside it
// must be defaulted.
TEST(EclipseSchedule, ReservoirVolumeRateControls) {
    const double rb_day = units::kStockTankBarrel / units::kDay;  // a barrel either way
    const TempFile f("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RESV' 1* 5000 10000 /\n/\n"
                     "WCONPROD\n 'P1' 'OPEN' 'RESV' 4* 4500 800 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WELTARG\n 'I1' 'RESV' 4000 /\n 'P1' 'RESV' 3000 /\n/\n"
                     "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.controls.size(), 4u);
    const EclipseControl &inj = s.controls[0], &prod = s.controls[1];
    EXPECT_TRUE(inj.injector && inj.rate);
    EXPECT_EQ(inj.phase, RatePhase::reservoir);
    EXPECT_DOUBLE_EQ(inj.target, 5000.0 * rb_day);
    EXPECT_DOUBLE_EQ(inj.bhp_limit, 10000.0 * units::kPsi);
    EXPECT_TRUE(prod.rate);
    EXPECT_EQ(prod.phase, RatePhase::reservoir);
    EXPECT_DOUBLE_EQ(prod.target, 4500.0 * rb_day);
    EXPECT_DOUBLE_EQ(prod.bhp_limit, 800.0 * units::kPsi);
    EXPECT_EQ(s.controls[2].phase, RatePhase::reservoir);
    EXPECT_DOUBLE_EQ(s.controls[2].target, 4000.0 * rb_day);
    EXPECT_DOUBLE_EQ(s.controls[2].bhp_limit, 10000.0 * units::kPsi);
    EXPECT_DOUBLE_EQ(s.controls[3].target, 3000.0 * rb_day);

    const auto error = [&](const std::string& records) {
        const TempFile bad("RUNSPEC\nFIELD\n" + kWells + records + "TSTEP\n 1 /\n");
        return input_error_of([&] { read_eclipse_schedule(bad.path(), kMetric); });
    };
    EXPECT_THAT(error("WCONINJE\n 'I1' 'WATER' 'OPEN' 'RESV' 500 5000 /\n/\n"),
                HasSubstr(":14: WCONINJE: item 5 (a rate limit beside the well's rate control) "
                          "must be defaulted"));
    EXPECT_THAT(error("WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 5000 /\n/\n"),
                HasSubstr("item 6 (a rate limit beside the well's rate control) must be "
                          "defaulted"));
    EXPECT_THAT(error("WCONINJE\n 'I1' 'WATER' 'OPEN' 'RESV' /\n/\n"),
                HasSubstr("WCONINJE: item 6"));
    EXPECT_THAT(error("WCONPROD\n 'P1' 'OPEN' 'RESV' 100 3* 4500 /\n/\n"),
                HasSubstr("WCONPROD: item 4 (a rate limit beside the well's rate control) must "
                          "be defaulted"));
    EXPECT_THAT(error("WCONPROD\n 'P1' 'OPEN' 'ORAT' 100 /\n/\nWELTARG\n 'P1' 'RESV' 90 "
                      "/\n/\n"),
                HasSubstr("WELTARG: item 2 (RESV) is not well P1's control"));
    EXPECT_THAT(error("WCONHIST\n 'P1' 'OPEN' 'RESV' 100 10 /\n/\nWELTARG\n 'P1' 'RESV' 90 "
                      "/\n/\n"),
                HasSubstr("WELTARG: item 2 (RESV) of well P1: its WCONHIST target is its observed "
                          "rates' reservoir volume"));
}

// WCONHIST RESV (decision 100): a history producer on the reservoir volume of its observed oil
// and water rates (the target their surface sum here; the run converts it each step), shut for
// the period where both are 0; an observed gas rate is said to be left out of the target.
TEST(EclipseSchedule, HistoryReservoirVolumeRates) {
    const double stb_day = units::kStockTankBarrel / units::kDay;
    const TempFile f("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
                     "WCONHIST\n 'P1' 'OPEN' 'RESV' 300 40 25 /\n/\nTSTEP\n 10 /\n"
                     "WCONHIST\n 'P1' 'OPEN' 'RESV' 0 0 /\n/\nTSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.controls.size(), 3u);
    const EclipseControl &h = s.controls[1], &none = s.controls[2];
    EXPECT_TRUE(h.history && h.rate);
    EXPECT_EQ(h.phase, RatePhase::reservoir);
    EXPECT_DOUBLE_EQ(h.observed_oil, 300.0 * stb_day);
    EXPECT_DOUBLE_EQ(h.observed_water, 40.0 * stb_day);
    EXPECT_DOUBLE_EQ(h.target, 340.0 * stb_day);
    EXPECT_TRUE(none.zero_rate);
    EXPECT_FALSE(none.open);
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_THAT(s.notes[0], HasSubstr("observed gas rate (item 6) is not simulated (heptane's oil "
                                      "is dead: no gas), nor in its reservoir volume target"));
}

// Design decision 83: WELOPEN sets a well's status alone, at the start or later, and
// WCONINJE, WCONPROD and WELOPEN take name patterns ('P*', 'P?'), one record a well matched,
// in WELSPECS order.
TEST(EclipseSchedule, WelopenAndNamePatterns) {
    const TempFile f(
        "SCHEDULE\nWELSPECS\n 'P1' 'G' 1 1 /\n 'I1' 'G' 2 2 /\n 'P2' 'G' 3 3 /\n/\n"
        "COMPDAT\n 'P1' 2* 1 1 'OPEN' 2* 0.5 /\n 'I1' 2* 1 1 'OPEN' 2* 0.5 /\n"
        " 'P2' 2* 1 1 'OPEN' 2* 0.5 /\n/\n"
        "WCONPROD\n 'P*' 'OPEN' 'BHP' 5* 100 /\n/\n"
        "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
        "WELOPEN\n 'P2' 'SHUT' /\n/\n"
        "TSTEP\n 10 /\n"
        "WELOPEN\n 'P?' 'OPEN' /\n 'I1' 'SHUT' /\n/\n"
        "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.controls.size(), 7u);
    EXPECT_EQ(s.controls[0].well, "P1");  // 'P*' in WELSPECS order
    EXPECT_EQ(s.controls[1].well, "P2");
    EXPECT_FALSE(s.controls[0].status_only);
    EXPECT_DOUBLE_EQ(s.controls[1].target, 100.0 * units::kBar);
    const EclipseControl& shut = s.controls[3];
    EXPECT_EQ(shut.well, "P2");
    EXPECT_TRUE(shut.status_only);
    EXPECT_FALSE(shut.open);
    EXPECT_EQ(shut.time, 0.0);
    for (std::size_t c = 4; c < 7; ++c) {
        EXPECT_TRUE(s.controls[c].status_only);
        EXPECT_EQ(s.controls[c].time, 10.0 * units::kDay);
    }
    EXPECT_EQ(s.controls[4].well, "P1");
    EXPECT_EQ(s.controls[5].well, "P2");
    EXPECT_TRUE(s.controls[5].open);
    EXPECT_EQ(s.controls[6].well, "I1");
    EXPECT_FALSE(s.controls[6].open);
}

// Design decision 86: WECON's minimum oil rate and maximum water cut (workover WELL), from a
// pattern, at the start and later; a water cut with workover NONE (Eclipse's default) takes no
// action, said in a note.
TEST(EclipseSchedule, WeconGivesEconomicLimits) {
    const TempFile f("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
                     "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 1500 /\n/\n"
                     "WECON\n 'P*' 50 1* 0.9 2* 'WELL' /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WECON\n 'P1' 20 1* 0.8 /\n/\n"
                     "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.economics.size(), 2u);
    EXPECT_EQ(s.economics[0].well, "P1");
    EXPECT_EQ(s.economics[0].time, 0.0);
    EXPECT_DOUBLE_EQ(s.economics[0].min_oil_rate, 50.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(s.economics[0].max_water_cut, 0.9);
    EXPECT_EQ(s.economics[1].time, 10.0 * units::kDay);
    EXPECT_DOUBLE_EQ(s.economics[1].min_oil_rate, 20.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(s.economics[1].max_water_cut, 0.0);  // workover NONE: no action
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_THAT(s.notes[0], HasSubstr(":25: WECON: the maximum water cut with workover NONE "
                                      "takes no action"));
}

// WTEST (design decision 88): the interval (days in FIELD and METRIC, hours in LAB), the
// number of tests, a pattern, a later record; the reasons must hold E (the others noted), the
// start-up time 0.
TEST(EclipseSchedule, WtestGivesWellTests) {
    const std::string controls =
        "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
        "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 1500 /\n/\n";
    const TempFile f("RUNSPEC\nFIELD\n" + kWells + controls +
                     "WTEST\n 'P*' 30 'PE' 3 /\n/\nTSTEP\n 10 /\nWTEST\n 'P1' 15 E /\n/\n"
                     "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.tests.size(), 2u);
    EXPECT_EQ(s.tests[0].well, "P1");
    EXPECT_EQ(s.tests[0].time, 0.0);
    EXPECT_EQ(s.tests[0].interval, 30.0 * units::kDay);
    EXPECT_EQ(s.tests[0].count, 3);
    EXPECT_EQ(s.tests[1].time, 10.0 * units::kDay);
    EXPECT_EQ(s.tests[1].interval, 15.0 * units::kDay);
    EXPECT_EQ(s.tests[1].count, 0);
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_THAT(s.notes[0], HasSubstr("WTEST: reasons PE: heptane closes wells for their economic "
                                      "limits alone (E)"));
    const TempFile lab("RUNSPEC\nLAB\n" + kWells + controls +
                       "WTEST\n 'P1' 6 E /\n/\nTSTEP\n 10 /\n");
    EXPECT_EQ(read_eclipse_schedule(lab.path(), kMetric).tests[0].interval, 6.0 * 3600.0);
    const auto error = [&](const std::string& record) {
        const TempFile e(kWells + controls + "WTEST\n" + record + "\n/\nTSTEP\n 10 /\n");
        return input_error_of([&] { read_eclipse_schedule(e.path(), kMetric); });
    };
    EXPECT_THAT(error(" 'P1' 30 'P' /"), HasSubstr("WTEST: item 3 (the reasons) has no E"));
    EXPECT_THAT(error(" 'P1' 30 'EX' /"), HasSubstr("takes the letters P, E, G, D and C"));
    EXPECT_THAT(error(" 'P1' -1 'E' /"), HasSubstr("(the test interval) must be >= 0"));
    EXPECT_THAT(error(" 'P1' 30 'E' 1.5 /"), HasSubstr("(the number of tests) must be an integer"));
    EXPECT_THAT(error(" 'P1' 30 'E' 0 2 /"), HasSubstr("(the start-up time) must be 0"));
}

// Design decision 90: WCONHIST's and WCONINJH's records are controls on their observed values
// (ORAT, WRAT, LRAT = oil + water, BHP; RATE for the injector) with the history wells' BHP
// limit of 1 atm for a producer, none for an injector; the observed rates and BHP are kept for
// the history series (NaN where not given, 0 for a defaulted rate as Eclipse's); a zero rate for
// the mode shuts the well (its control a placeholder); STOP is SHUT with a note, and so are an
// observed gas rate and THP.
TEST(EclipseSchedule, HistoryRecordsGiveControlsAndObservations) {
    const double stb_day = units::kStockTankBarrel / units::kDay;
    const TempFile f("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJH\n 'I1' 'WATER' 'OPEN' 500 6000 /\n/\n"
                     "WCONHIST\n 'P1' 'OPEN' 'ORAT' 300 20 100 2* 250 2000 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WCONHIST\n 'P1' 'OPEN' 'LRAT' 200 50 /\n/\n"
                     "WCONINJH\n 'I1' 'WATER' 'OPEN' 400 5000 6* 'BHP' /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WCONHIST\n 'P1' 'STOP' 'WRAT' 200 0 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WCONHIST\n 'P1' 'OPEN' 'BHP' 6* 1800 /\n/\n"
                     "WCONHIST\n 'P1' 'OPEN' 'WRAT' 1* 150 /\n/\n"
                     "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.controls.size(), 7u);
    const EclipseControl &inj = s.controls[0], &oil = s.controls[1], &liquid = s.controls[2];
    const EclipseControl &inj_bhp = s.controls[3], &stopped = s.controls[4];
    const EclipseControl &bhp = s.controls[5], &water = s.controls[6];
    for (const EclipseControl& c : s.controls) EXPECT_TRUE(c.history) << c.where;
    EXPECT_TRUE(inj.injector && inj.rate && inj.open);
    EXPECT_DOUBLE_EQ(inj.target, 500.0 * stb_day);
    EXPECT_EQ(inj.bhp_limit, 0.0);  // an injector's history: no limit
    EXPECT_DOUBLE_EQ(inj.observed_water, 500.0 * stb_day);
    EXPECT_DOUBLE_EQ(inj.observed_bhp, 6000.0 * units::kPsi);
    EXPECT_TRUE(std::isnan(inj.observed_oil));
    EXPECT_TRUE(oil.rate && !oil.injector);
    EXPECT_EQ(oil.phase, RatePhase::oil);
    EXPECT_DOUBLE_EQ(oil.target, 300.0 * stb_day);
    EXPECT_EQ(oil.bhp_limit, 101325.0);  // 1 atm to the bit
    EXPECT_DOUBLE_EQ(oil.observed_oil, 300.0 * stb_day);
    EXPECT_DOUBLE_EQ(oil.observed_water, 20.0 * stb_day);
    EXPECT_DOUBLE_EQ(oil.observed_bhp, 2000.0 * units::kPsi);
    EXPECT_EQ(liquid.phase, RatePhase::liquid);
    EXPECT_DOUBLE_EQ(liquid.target, 250.0 * stb_day);
    EXPECT_EQ(liquid.time, 10.0 * units::kDay);
    EXPECT_TRUE(std::isnan(liquid.observed_bhp));
    EXPECT_FALSE(inj_bhp.rate);
    EXPECT_DOUBLE_EQ(inj_bhp.target, 5000.0 * units::kPsi);
    EXPECT_DOUBLE_EQ(inj_bhp.observed_water, 400.0 * stb_day);
    // STOP with no water for WRAT: shut, its control a placeholder (BHP 1 atm).
    EXPECT_FALSE(stopped.open);
    EXPECT_TRUE(stopped.zero_rate);
    EXPECT_FALSE(stopped.rate);
    EXPECT_EQ(stopped.target, 101325.0);
    EXPECT_DOUBLE_EQ(stopped.observed_oil, 200.0 * stb_day);
    EXPECT_FALSE(bhp.rate);
    EXPECT_TRUE(bhp.open);
    EXPECT_DOUBLE_EQ(bhp.target, 1800.0 * units::kPsi);
    EXPECT_EQ(bhp.observed_oil, 0.0);  // defaulted: 0, as Eclipse's
    EXPECT_EQ(water.phase, RatePhase::water);
    EXPECT_DOUBLE_EQ(water.target, 150.0 * stb_day);
    ASSERT_EQ(s.notes.size(), 3u);
    EXPECT_THAT(s.notes[0], HasSubstr(":17: WCONHIST: well P1: the observed gas rate (item 6) is "
                                      "not simulated"));
    EXPECT_THAT(s.notes[1], HasSubstr(":17: WCONHIST: well P1: the observed THP (item 9) is "
                                      "not used"));
    EXPECT_THAT(s.notes[2], HasSubstr(":30: WCONHIST: well P1: STOP taken as SHUT"));
}

// What history records cannot take, at the item; WELOPEN may not open a well whose history has
// no rate.
TEST(EclipseSchedule, HistoryRecordsRefuseWhatTheModelCannotTake) {
    const auto error = [](const std::string& rest) {
        const TempFile f(kWells + "WCONINJH\n 'I1' 'WATER' 'OPEN' 500 /\n/\n" + rest);
        return input_error_of([&] { read_eclipse_schedule(f.path(), kMetric); });
    };
    for (const auto& [record, message] : std::vector<std::pair<std::string, std::string>>{
             {"'P1' 'OPEN' 'CRAT' 100 /",
              "item 3 (the control) must be ORAT, WRAT, LRAT, RESV or BHP"},
             {"'P1' 'OPEN' 'GRAT' 100 /",
              "item 3 (the control) must be ORAT, WRAT, LRAT, RESV or BHP"},
             {"'P1' 'OPEN' 'BHP' 100 /", "item 10 (the observed BHP) is the BHP control's target"},
             {"'P1' 'OPEN' 'ORAT' -1 /", "item 4 (the observed oil rate) must be >= 0"},
             {"'P1' 'OPEN' 'ORAT' 100 2* 2 /", "item 7 (a VFP table): heptane's wells have none"},
             {"'P1' 'OPEN' 'ORAT' 100 3* 0.5 /", "item 8 (artificial lift)"},
             {"'P1' 'AUTO' 'ORAT' 100 /", "item 2 (the status) must be OPEN, STOP or SHUT"},
             {"'P1' 'OPEN' 'ORAT' 100 6* 5 /", "item 11 (the wet gas rate (Eclipse 300))"}}) {
        EXPECT_THAT(error("WCONHIST\n " + record + "\n/\nTSTEP\n 1 /\n"),
                    HasSubstr(":15: WCONHIST: " + message))
            << record;
    }
    EXPECT_THAT(error("WCONHIST\n 'P1' 'OPEN' 'ORAT' 100 /\n/\nWCONINJH\n 'I1' 'GAS' 'OPEN' 5 "
                      "/\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":18: WCONINJH: item 2 (the injected phase) must be WATER"));
    EXPECT_THAT(error("WCONHIST\n 'P1' 'OPEN' 'ORAT' 100 /\n/\nWCONINJH\n 'I1' 'WATER' 'OPEN' 5 "
                      "7* 'THP' /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":18: WCONINJH: item 12 (the control) must be RATE or BHP"));
    EXPECT_THAT(error("WCONHIST\n 'P1' 'OPEN' 'ORAT' 100 /\n/\nWCONINJH\n 'I1' 'WATER' 'OPEN' 5 "
                      "3* 0.5 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":18: WCONINJH: item 8 (the vaporized oil and the injected fractions"));
    // A well with no rate in its history is shut; WELOPEN may not open it, a rate may.
    const std::string shut = "WCONHIST\n 'P1' 'OPEN' 'ORAT' 0 /\n/\nTSTEP\n 1 /\n";
    EXPECT_THAT(error(shut + "WELOPEN\n 'P1' 'OPEN' /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":20: WELOPEN: item 2 opens well P1, whose last WCONHIST or WCONINJH "
                          "rate is 0"));
    const TempFile ok(kWells + "WCONINJH\n 'I1' 'WATER' 'OPEN' 500 /\n/\n" + shut +
                      "WCONHIST\n 'P1' 'OPEN' 'ORAT' 10 /\n/\nWELOPEN\n 'P1' 'OPEN' /\n/\n"
                      "TSTEP\n 1 /\n");
    EXPECT_EQ(read_eclipse_schedule(ok.path(), kMetric).controls.size(), 4u);
}

// Design decision 91: WELTARG changes the target of the item that is the well's control, the
// BHP limit otherwise, keeping the status; what heptane's wells do not have is refused.
TEST(EclipseSchedule, WeltargChangesATargetOrALimit) {
    const double stb_day = units::kStockTankBarrel / units::kDay;
    const std::string start = "RUNSPEC\nFIELD\n" + kWells +
                              "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 1* 6000 /\n/\n"
                              "WCONPROD\n 'P1' 'OPEN' 'ORAT' 300 4* 800 /\n/\n";
    const TempFile f(start +
                     "WELTARG\n 'P1' 'BHP' 900 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WELTARG\n 'P1' 'ORAT' 250 /\n 'I1' 'BHP' 7000 /\n 'I1' 'RATE' 400 /\n/\n"
                     "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 1000 /\n/\n"
                     "WELTARG\n 'P*' 'BHP' 1200 /\n/\n"
                     "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.controls.size(), 8u);
    const EclipseControl& floor = s.controls[2];
    EXPECT_TRUE(floor.keeps_status && floor.rate);
    EXPECT_DOUBLE_EQ(floor.target, 300.0 * stb_day);
    EXPECT_DOUBLE_EQ(floor.bhp_limit, 900.0 * units::kPsi);
    const EclipseControl &oil = s.controls[3], &ceiling = s.controls[4], &rate = s.controls[5];
    EXPECT_DOUBLE_EQ(oil.target, 250.0 * stb_day);
    EXPECT_DOUBLE_EQ(oil.bhp_limit, 900.0 * units::kPsi);  // kept from the record before
    EXPECT_EQ(oil.time, 10.0 * units::kDay);
    EXPECT_TRUE(ceiling.injector);
    EXPECT_DOUBLE_EQ(ceiling.target, 500.0 * stb_day);
    EXPECT_DOUBLE_EQ(ceiling.bhp_limit, 7000.0 * units::kPsi);
    EXPECT_DOUBLE_EQ(rate.target, 400.0 * stb_day);
    EXPECT_DOUBLE_EQ(rate.bhp_limit, 7000.0 * units::kPsi);
    const EclipseControl& bhp = s.controls[7];  // the BHP-controlled P1's target
    EXPECT_TRUE(bhp.keeps_status);
    EXPECT_FALSE(bhp.rate);
    EXPECT_DOUBLE_EQ(bhp.target, 1200.0 * units::kPsi);
    EXPECT_FALSE(s.controls[1].keeps_status);

    const auto error = [&](const std::string& record) {
        const TempFile bad(start + "WELTARG\n " + record + "\n/\nTSTEP\n 1 /\n");
        return input_error_of([&] { read_eclipse_schedule(bad.path(), kMetric); });
    };
    EXPECT_THAT(error("'P1' 'WRAT' 100 /"),
                HasSubstr(":20: WELTARG: item 2 (WRAT) is not well P1's control"));
    EXPECT_THAT(error("'P1' 'RATE' 100 /"), HasSubstr("item 2 (RATE) is not well P1's control"));
    EXPECT_THAT(error("'I1' 'ORAT' 100 /"), HasSubstr("item 2 (ORAT) is not well I1's control"));
    EXPECT_THAT(error("'P1' 'GRAT' 100 /"),
                HasSubstr("item 2 (the quantity) must be BHP, ORAT, WRAT, LRAT, RATE or RESV"));
    EXPECT_THAT(error("'P1' 'ORAT' 0 /"), HasSubstr("item 3 (the rate) must be > 0"));
    EXPECT_THAT(error("'P1' 'BHP' -1 /"), HasSubstr("item 3 (the BHP) must be >= 0"));
    EXPECT_THAT(error("'P1' 'BHP' 100 1 /"), HasSubstr("item 4 (later items) must be defaulted"));
}

// Design decision 93: the BHP a record leaves out. Before FBHPDEF a WCONINJE has no limit and
// a WCONHIST Eclipse's 1 atm floor; after it, FBHPDEF's producer and injector values, also as a
// defaulted BHP control's target. A WELTARG'd floor of a history well on a rate stays with its
// next WCONHIST until a prediction record ends it. WELOPEN's STOP is SHUT, with a note.
TEST(EclipseSchedule, FbhpdefAndWeltargGiveTheBhpARecordLeavesOut) {
    const TempFile f("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
                     "WCONHIST\n 'P1' 'OPEN' 'ORAT' 300 50 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "FBHPDEF\n 500 8000 /\n"
                     "WCONHIST\n 'P1' 'OPEN' 'ORAT' 280 60 /\n/\n"
                     "WCONINJH\n 'I1' 'WATER' 'OPEN' 450 /\n/\n"
                     "WELTARG\n 'P1' 'BHP' 900 /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WCONHIST\n 'P1' 'OPEN' 'ORAT' 250 70 /\n/\n"
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 400 /\n/\n"
                     "WCONPROD\n 'P1' 'OPEN' 'BHP' /\n/\n"
                     "TSTEP\n 10 /\n"
                     "WCONHIST\n 'P1' 'OPEN' 'ORAT' 200 80 /\n/\n"
                     "WELOPEN\n 'P1' 'STOP' /\n/\n"
                     "TSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.controls.size(), 10u);
    const auto limit = [&](std::size_t n) { return s.controls[n].bhp_limit / units::kPsi; };
    EXPECT_EQ(s.controls[0].bhp_limit, 0.0);                 // WCONINJE: none
    EXPECT_EQ(s.controls[1].bhp_limit, units::kAtmosphere);  // WCONHIST: 1 atm
    EXPECT_DOUBLE_EQ(limit(2), 500.0);                       // FBHPDEF's producers'
    EXPECT_DOUBLE_EQ(limit(3), 8000.0);                      // and injectors'
    EXPECT_TRUE(s.controls[4].keeps_status);                 // WELTARG
    EXPECT_DOUBLE_EQ(limit(4), 900.0);
    EXPECT_DOUBLE_EQ(limit(5), 900.0);                            // kept by the next WCONHIST
    EXPECT_DOUBLE_EQ(limit(6), 8000.0);                           // WCONINJE's defaulted limit
    EXPECT_FALSE(s.controls[7].rate);                             // WCONPROD BHP, defaulted:
    EXPECT_DOUBLE_EQ(s.controls[7].target / units::kPsi, 500.0);  // FBHPDEF's target
    EXPECT_DOUBLE_EQ(limit(8), 500.0);  // the prediction record ended the WELTARG'd floor
    EXPECT_TRUE(s.controls[9].status_only);
    EXPECT_FALSE(s.controls[9].open);
    ASSERT_FALSE(s.notes.empty());
    EXPECT_THAT(s.notes.back(), HasSubstr(":49: WELOPEN: well P1: STOP taken as SHUT"));
    // Defaulted FBHPDEF items: Eclipse's 1.01325 bar and 6895 bar.
    const TempFile d("RUNSPEC\nFIELD\n" + kWells + "FBHPDEF\n /\n" +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
                     "WCONHIST\n 'P1' 'OPEN' 'ORAT' 300 50 /\n/\nTSTEP\n 10 /\n");
    const EclipseSchedule ds = read_eclipse_schedule(d.path(), kMetric);
    EXPECT_DOUBLE_EQ(ds.controls[0].bhp_limit, 6895.0 * units::kBar);
    EXPECT_DOUBLE_EQ(ds.controls[1].bhp_limit, 1.01325 * units::kBar);
    const auto error = [&](const std::string& record) {
        const TempFile bad("RUNSPEC\nFIELD\n" + kWells + "FBHPDEF\n " + record + "\n");
        return input_error_of([&] { read_eclipse_schedule(bad.path(), kMetric); });
    };
    EXPECT_THAT(error("0 /"), HasSubstr(":14: FBHPDEF: item 1 (the producers' default BHP) must "
                                        "be > 0"));
    EXPECT_THAT(error("1* -3 /"), HasSubstr("item 2 (the injectors' default BHP limit) must be"));
    EXPECT_THAT(error("1 2 3 /"), HasSubstr("item 3 (later items) must be defaulted"));
    // Without FBHPDEF a BHP control's target must be given.
    const TempFile g("RUNSPEC\nFIELD\n" + kWells +
                     "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
                     "WCONPROD\n 'P1' 'OPEN' 'BHP' /\n/\nTSTEP\n 10 /\n");
    EXPECT_THAT(input_error_of([&] { read_eclipse_schedule(g.path(), kMetric); }),
                HasSubstr(":17: WCONPROD: item 9 (the BHP target) must be > 0"));
}

// Design decision 94: WELSPECS item 5, the depth the well's BHP refers to, in the file's
// length unit; defaulted, NaN (the first connection's centre).
TEST(EclipseSchedule, WelspecsGivesTheBhpReferenceDepth) {
    const TempFile f(
        "RUNSPEC\nFIELD\nSCHEDULE\nWELSPECS\n 'I1' 'G' 1 1 1* 'WATER' /\n"
        " 'P1' 'G' 3 2 8350 'OIL' /\n/\n"
        "COMPDAT\n 'I1' 2* 1 1 'OPEN' 2* 0.5 /\n 'P1' 2* 2 2 'OPEN' 2* 0.5 /\n/\n"
        "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
        "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 1000 /\n/\nTSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.wells.size(), 2u);
    EXPECT_TRUE(std::isnan(s.wells[0].bhp_depth));
    EXPECT_DOUBLE_EQ(s.wells[1].bhp_depth, 8350.0 * units::kFoot);
}

TEST(EclipseSchedule, DatesCountFromStart) {
    // START 1 JAN 2016 (a leap year): DATES 1 FEB and 1 MAR are days 31 and 60, a TSTEP of 10
    // then day 70, 15 JLY (Eclipse's July) at noon day 196.5, a control between them at day 70.
    const std::string controls =
        "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
        "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 100 /\n/\n";
    const TempFile f("RUNSPEC\nSTART\n 1 'JAN' 2016 /\n" + kWells + controls +
                     "DATES\n 1 FEB 2016 /\n 1 'MAR' 2016 /\n/\nTSTEP\n 10 /\n" +
                     "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 90 /\n/\n" +
                     "DATES\n 15 JLY 2016 '12:00:00' /\n/\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    EXPECT_EQ(s.report_times, (std::vector<double>{31.0 * units::kDay, 60.0 * units::kDay,
                                                   70.0 * units::kDay, 196.5 * units::kDay}));
    ASSERT_EQ(s.controls.size(), 3u);
    EXPECT_EQ(s.controls[2].time, 70.0 * units::kDay);
    // Across years and a century that is not a leap year: 1 JAN 2099 to 1 MAR 2100.
    const TempFile g("START\n 1 JAN 2099 /\n" + kWells + controls + "DATES\n 1 MAR 2100 /\n/\n");
    EXPECT_EQ(read_eclipse_schedule(g.path(), kMetric).report_times,
              (std::vector<double>{(365.0 + 59.0) * units::kDay}));
    const auto error = [&](const std::string& start, const std::string& dates) {
        const TempFile e(start + kWells + controls + "DATES\n" + dates + "/\n");
        return input_error_of([&] { read_eclipse_schedule(e.path(), kMetric); });
    };
    const std::string start = "START\n 1 JAN 2016 /\n";  // 2 lines: DATES at line 19
    EXPECT_THAT(error("", " 1 FEB 2016 /\n"), HasSubstr(":18: DATES: no START before it"));
    EXPECT_THAT(error(start, " 1 FEB 2016 /\n 1 JAN 2016 /\n"),
                HasSubstr(":21: DATES: the date is not after the schedule's time so far (day 31)"));
    EXPECT_THAT(error(start, " 30 FEB 2016 /\n"),
                HasSubstr(":20: DATES: item 1 (the day) is not a day of FEB 2016"));
    EXPECT_THAT(error("START\n 29 FEB 2015 /\n", " 1 MAR 2015 /\n"),
                HasSubstr(":2: START: item 1 (the day) is not a day of FEB 2015"));
    EXPECT_THAT(error(start, " 1 FOO 2016 /\n"), HasSubstr("item 2 (the month) must be JAN"));
    EXPECT_THAT(error(start, " 1 FEB 2016 '25:00:00' /\n"),
                HasSubstr("item 4 (the time of day) must be HH:MM:SS"));
}

TEST(EclipseSchedule, WhatTheModelCannotTakeIsRefusedAtItsLine) {
    const auto error = [](const std::string& rest) {
        const TempFile f(kWells + rest);
        return input_error_of([&] { read_eclipse_schedule(f.path(), kMetric); });
    };
    const std::string controls =
        "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
        "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 100 /\n/\n";
    EXPECT_THAT(error(controls), HasSubstr(": SCHEDULE has no TSTEP or DATES"));
    EXPECT_THAT(error(controls + "GCONPROD\n 'G' 'ORAT' 100 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":17: GCONPROD: not read by schedule.eclipse"));
    // WECON (design decision 86): what heptane's economic limits cannot take.
    for (const auto& [record, message] : std::vector<std::pair<std::string, std::string>>{
             {"'P1' 50 10 /", "item 3 (a minimum gas rate): heptane has no gas"},
             {"'P1' 50 1* 0.9 1* 2 /", "item 6 (a gas ratio limit): heptane has no gas"},
             {"'P1' 1* 1* 0.9 2* 'CON' /", "item 7 (the workover) must be WELL or NONE"},
             {"'P1' 50 5* 'YES' /", "item 8 (the end-run flag) must be NO"},
             {"'P1' 50 7* 'POTN' /", "item 10 (the limited quantity) must be RATE"},
             {"'P1' 50 7* 'RATE' 0.95 /", "item 11 (secondary water cut"},
             {"'P1' 1* 1* 1.0 2* 'WELL' /", "item 4 (the maximum water cut) must be in [0, 1)"},
             {"'P1' -5 /", "item 2 (the minimum oil rate) must be >= 0"}}) {
        EXPECT_THAT(error(controls + "WECON\n " + record + "\n/\nTSTEP\n 1 /\n"),
                    HasSubstr(":18: WECON: " + message))
            << record;
    }
    EXPECT_THAT(error(controls + "TSTEP\n 1 /\nWECON\n 'P1' 50 /\n/\n"),
                HasSubstr(":20: WECON: after the last TSTEP or DATES"));
    EXPECT_THAT(error("WCONPROD\n 'P1' 'OPEN' 'CRAT' 4* 100 100 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":12: WCONPROD: item 3 (the control) must be ORAT, WRAT, LRAT, RESV or "
                          "BHP"));
    EXPECT_THAT(error("WCONPROD\n 'P1' 'OPEN' 'GRAT' 1* 1* 100 2* 100 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":12: WCONPROD: item 3 (the control) must be ORAT, WRAT, LRAT, RESV or "
                          "BHP"));
    EXPECT_THAT(error("WCONPROD\n 'P1' 'OPEN' 'BHP' 100 4* 100 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":12: WCONPROD: item 4 (a rate limit on a BHP-controlled producer) "
                          "must be defaulted"));
    EXPECT_THAT(error("WCONPROD\n 'P1' 'OPEN' 'ORAT' 100 2* 150 1* 100 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":12: WCONPROD: item 7 (a rate limit beside the well's rate control) "
                          "must be defaulted"));
    EXPECT_THAT(error("WCONPROD\n 'P1' 'OPEN' 'WRAT' 1* 0 3* 100 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":12: WCONPROD: item 5 (the rate) must be > 0"));
    EXPECT_THAT(error("WCONINJE\n 'X*' 'WATER' 'OPEN' 'RATE' 500 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":12: WCONINJE: item 1 (the pattern 'X*') matches no well of WELSPECS"));
    EXPECT_THAT(error("WCONINJE\n 'I2' 'WATER' 'OPEN' 'RATE' 500 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":12: WCONINJE: item 1 names no well of WELSPECS ('I2')"));
    EXPECT_THAT(error(controls + "WELOPEN\n 'P1' 'AUTO' /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":18: WELOPEN: item 2 (the status) must be OPEN, STOP or SHUT"));
    EXPECT_THAT(error(controls + "WELOPEN\n 'P1' 'SHUT' 3* 1 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":18: WELOPEN: item 6 (the completion numbers) must be defaulted"));
    EXPECT_THAT(error("WELOPEN\n 'P1' 'SHUT' /\n/\n" + controls + "TSTEP\n 1 /\n"),
                HasSubstr(":12: WELOPEN: item 1 opens or shuts well P1 before its WCONINJE or "
                          "WCONPROD"));
    EXPECT_THAT(error("WCONINJE\n 'I1' 'GAS' 'OPEN' 'RATE' 500 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr("item 2 (the injected phase) must be WATER"));
    EXPECT_THAT(error("WCONINJE\n 'I1' 'WATER' 'STOP' 'RATE' 500 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr("item 3 (the status) must be OPEN or SHUT"));
    // COMPDAT (design decision 102): what a vertical Darcy well cannot take.
    for (const auto& [record, message] : std::vector<std::pair<std::string, std::string>>{
             {"'P1' 3 2 3 3 'AUTO' 2* 0.5 /", "item 6 (the status) must be OPEN or SHUT"},
             {"'P1' 3 2 3 3 'OPEN' 2* 0 /",
              "item 9 (the diameter) must be > 0 (the connection "
              "factor is computed from it)"},
             {"'P1' 3 2 3 3 'OPEN' 2* 1* /", "item 9 (the diameter) must be > 0 (the connection"},
             {"'P1' 3 2 3 3 'OPEN' 1* -2 /", "item 8 (the connection factor) must be >= 0"},
             {"'P1' 3 2 3 3 'OPEN' 1* 5 -0.2 /", "item 9 (the diameter) must be > 0"},
             {"'P1' 3 2 3 3 'OPEN' 2* 0.5 0 /", "item 10 (Kh) must be > 0"},
             {"'P1' 3 2 3 3 'OPEN' 2* 0.5 1* 0 3 /", "item 12 (the D factor: non-Darcy flow is"},
             {"'P1' 3 2 3 3 'OPEN' 2* 0.5 1* 0 1* 'X' /", "item 13 (the direction) must be Z"},
             {"'P1' 3 2 3 3 'OPEN' 2* 0.5 1* 0 1* 'Z' 0.3 /", "item 14 (the pressure equivalent"},
             {"'P1' 3 2 3 0 'OPEN' 2* 0.5 /", "item 5 (K1..K2, 1-based) must be 1 <= K1 <= K2"},
             {"'P1' 3 2 1 200000 'OPEN' 2* 0.5 /", "item 5 (K2) must be at most 100000"}}) {
        EXPECT_THAT(error("COMPDAT\n " + record + "\n/\n" + controls + "TSTEP\n 1 /\n"),
                    HasSubstr(":12: COMPDAT: " + message))
            << record;
    }
    EXPECT_THAT(error("COMPDAT\n 'P1' 3 2 2 2 'SHUT' 2* 0.5 /\n/\n" + controls + "TSTEP\n 1 /\n"),
                HasSubstr(":4: WELSPECS: well P1 has no OPEN connection"));
    EXPECT_THAT(error("COMPDAT\n 'P1' 4 2 3 3 'OPEN' 2* 0.5 /\n/\n"),
                HasSubstr("item 2 (I) must be the well's own column"));
    EXPECT_THAT(error(controls + "TSTEP\n 1 /\nWCONPROD\n 'P1' 'OPEN' 'BHP' 5* 90 /\n/\n"),
                HasSubstr(":20: WCONPROD: after the last TSTEP or DATES: it would act on no step"));
    EXPECT_THAT(error("WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\nTSTEP\n 1 /\n"),
                HasSubstr(":4: WELSPECS: well P1 has no WCONINJE, WCONPROD, WCONHIST or WCONINJH "
                          "before the first TSTEP"));
    EXPECT_THAT(error(controls + "TSTEP\n 1 /\nWELSPECS\n 'P2' 'G' 2 2 /\n/\n"),
                HasSubstr(":20: WELSPECS: a well after the first TSTEP"));
    EXPECT_THAT(error("INCLUDE\n 'no_such.inc' /\n"), HasSubstr("(included from "));
    {
        const TempFile self("SCHEDULE\n");  // a file that includes itself
        const TempFile f("SCHEDULE\nINCLUDE\n '" + self.path() + "' /\n");
        std::ofstream(self.path()) << "INCLUDE\n '" << self.path() << "' /\n";
        EXPECT_THAT(input_error_of([&] { read_eclipse_schedule(f.path(), kMetric); }),
                    HasSubstr("INCLUDE cycle: the file includes itself"));
    }
    EXPECT_THAT(error(controls + "TSTEP\n 0 /\n"), HasSubstr(":18: TSTEP: item 1 must be > 0"));
    EXPECT_THAT(error(controls + "TSTEP\n 99999*1 2*1 /\n"),
                HasSubstr(":18: TSTEP: a record of more than 100000 items"));
    const TempFile none("RUNSPEC\nMETRIC\n");
    EXPECT_THAT(input_error_of([&] { read_eclipse_schedule(none.path(), kMetric); }),
                HasSubstr(": no SCHEDULE section"));
}

}  // namespace
}  // namespace heptane::grid
