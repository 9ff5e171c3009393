// The deck's reservoir sections beyond the grid: the fluid, the initial state and the
// schedule, from YAML keys and from an Eclipse deck's PROPS, SOLUTION and SCHEDULE sections
// (design decisions 75, 78, 79, 81-83), each against the same thing written out.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"

namespace heptane::app {
namespace {

using test::source_path;
using ::testing::HasSubstr;

/// The message load_deck(deck, sets) refuses with, "no error" where it loads.
std::string load_error(const std::string& deck, const std::vector<std::string>& sets) {
    try {
        load_deck(deck, sets);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Deck, FormationVolumeFactorsAreRead) {
    // Design decision 81: each phase's B at the reference pressure, 1 by default.
    const std::string deck = source_path("inputs/five_spot.yaml");
    const grid::TwoPhaseParams d = load_deck(deck).model.two_phase;
    EXPECT_EQ(d.oil.volume_factor, 1.0);
    EXPECT_EQ(d.water.volume_factor, 1.0);
    const grid::TwoPhaseParams p = load_deck(deck, {"fluid.oil.formation_volume_factor=1.25",
                                                    "fluid.water.formation_volume_factor=1.01"})
                                       .model.two_phase;
    EXPECT_EQ(p.oil.volume_factor, 1.25);
    EXPECT_EQ(p.water.volume_factor, 1.01);
    EXPECT_EQ(p.oil.density, d.oil.density);  // the surface density, unchanged
}

TEST(Deck, PressureDependentPvtIsRead) {
    // Design decision 84: a PVDO table for the oil in the deck's units (five_spot: field), and
    // viscosibilities in 1/pressure.
    const std::string deck = source_path("inputs/five_spot.yaml");
    const grid::TwoPhaseParams p =
        load_deck(deck, {"fluid.oil={density: 53, pvdo: [[300, 1.05, 2.85], [800, 1.02, 2.99], "
                         "[8000, 1.01, 3]]}",
                         "fluid.water.viscosibility=2e-6"})
            .model.two_phase;
    ASSERT_EQ(p.oil_pvt.rows, 3);
    EXPECT_DOUBLE_EQ(p.oil_pvt.p[2], 8000.0 * units::kPsi);
    EXPECT_EQ(p.oil_pvt.inv_b[1], 1.0 / 1.02);
    EXPECT_EQ(p.oil_pvt.inv_bmu[0], 1.0 / (1.05 * (2.85 * units::kCentiPoise)));
    EXPECT_DOUBLE_EQ(p.water.viscosibility, 2e-6 / units::kPsi);
    EXPECT_EQ(load_deck(deck).model.two_phase.oil_pvt.rows, 0);
    EXPECT_THAT(load_error(deck, {"fluid.oil={pvdo: [[300, 1.05, 2.85], [800, 1.02, 2.99]], "
                                  "viscosity: 3}"}),
                HasSubstr("fluid.oil.viscosity: fluid.oil.pvdo gives the oil's B and viscosity"));
    EXPECT_THAT(load_error(deck, {"fluid.oil={pvdo: [[300, 1.05, 2.85], [800, 1.07, 2.99]]}"}),
                HasSubstr("fluid.oil.pvdo: row 2: the formation volume factor must decrease"));
    EXPECT_THAT(load_error(deck, {"fluid.oil={pvdo: [[300, 1.05], [800, 1.02, 2.99]]}"}),
                HasSubstr("fluid.oil.pvdo[0]"));
    EXPECT_THAT(load_error(deck, {"fluid.water.pvdo=[[300, 1.05, 2.85], [800, 1.02, 2.99]]"}),
                HasSubstr("fluid.water.pvdo"));  // the water has no table: an unknown key
}

TEST(Deck, FluidEclipseIsTheFluidWrittenOut) {
    // inputs/egg.yaml reads its fluid from the Egg deck's PROPS (design decision 75): the
    // parameters are bit for bit those of the keys that wrote it out before.
    const std::string deck = source_path("inputs/egg.yaml");
    const grid::TwoPhaseParams a = load_deck(deck).model.two_phase;
    const grid::TwoPhaseParams b =
        load_deck(deck, {"fluid={model: two_phase, reference_pressure: 400, "
                         "oil: {density: 900, viscosity: 5.0, compressibility: 1.0e-5}, "
                         "water: {density: 1000, viscosity: 1.0, compressibility: 1.0e-5}, "
                         "relperm: {swof: data/egg/Egg_Model_ECL.DATA}}",
                         "rock={compressibility: 0.0}"})
            .model.two_phase;
    for (const auto& [x, y] : {std::pair{a.oil, b.oil}, std::pair{a.water, b.water}}) {
        EXPECT_EQ(x.density, y.density);
        EXPECT_EQ(x.viscosity, y.viscosity);
        EXPECT_EQ(x.compressibility, y.compressibility);
        EXPECT_EQ(x.volume_factor, y.volume_factor);
        EXPECT_EQ(x.viscosibility, y.viscosibility);
    }
    EXPECT_EQ(a.oil_pvt.rows, 0);
    EXPECT_EQ(a.reference_pressure, b.reference_pressure);
    EXPECT_EQ(a.rock_compressibility, b.rock_compressibility);
    EXPECT_EQ(a.gravity, b.gravity);
    ASSERT_EQ(a.relperm.table.rows, 16);
    for (int q = 0; q < 16; ++q) {
        EXPECT_EQ(a.relperm.table.sw[q], b.relperm.table.sw[q]);
        EXPECT_EQ(a.relperm.table.krw[q], b.relperm.table.krw[q]);
        EXPECT_EQ(a.relperm.table.kro[q], b.relperm.table.kro[q]);
    }
    // What the file gives may not be given again.
    const auto error_of = [&](const std::string& set) { return load_error(deck, {set}); };
    EXPECT_NE(error_of("fluid.oil={density: 900}")
                  .find("fluid.oil: fluid.eclipse's file gives the fluid: remove this key"),
              std::string::npos);
    EXPECT_NE(error_of("rock.compressibility=0")
                  .find("rock.compressibility: fluid.eclipse's ROCK gives it: remove this key"),
              std::string::npos);
}

TEST(Deck, InitialEclipseIsTheStateWrittenOut) {
    // inputs/egg.yaml reads its initial state from the Egg deck's EQUIL (design decision 78):
    // 400 bar at 4,000 m, the contact at 5,000 m below the model, no capillary pressure, 10
    // sub-layers (item 9 defaulted). Every cell's pressure and saturation are bit for bit
    // those of the keys that wrote it out before.
    const std::string deck = source_path("inputs/egg.yaml");
    const wells::ModelSpec a = load_deck(deck).model;
    const wells::ModelSpec b =
        load_deck(deck, {"initial={pressure: 400, datum_depth: 4000, water_saturation: 0.1}"})
            .model;
    EXPECT_TRUE(a.initial.has_contact);
    EXPECT_EQ(a.initial.water_oil_contact, 5000.0);
    EXPECT_EQ(a.initial.sublayers, 10);
    const wells::Model fields = wells::generate(a, false);
    const grid::TwoPhaseCells cells(fields.grid, fields.rock, a.two_phase);
    const grid::CellState x = wells::initial_cell_state(cells, a.initial);
    const grid::CellState y = wells::initial_cell_state(cells, b.initial);
    ASSERT_EQ(x.p.size(), 25200u);
    int differ = 0;
    for (std::size_t m = 0; m < x.p.size(); ++m) differ += x.p[m] != y.p[m] || x.sw[m] != y.sw[m];
    EXPECT_EQ(differ, 0);
    // What the file gives may not be given again.
    EXPECT_THAT(load_error(deck, {"initial.datum_depth=4000"}),
                HasSubstr("initial.datum_depth: initial.eclipse's EQUIL gives the initial state: "
                          "remove this key"));
}

TEST(Deck, ScheduleEclipseGivesTheWellsWrittenOut) {
    // inputs/egg.yaml reads its wells, controls and report times from the Egg deck's SCHEDULE
    // (design decision 79); inputs/egg_system.yaml writes the same wells out in YAML.
    const Deck egg = load_deck(source_path("inputs/egg.yaml"));
    const std::vector<wells::WellSpec>& a = egg.model.wells;
    const std::vector<wells::WellSpec>& b =
        load_deck(source_path("inputs/egg_system.yaml")).model.wells;
    ASSERT_EQ(a.size(), 12u);
    ASSERT_EQ(b.size(), 12u);
    for (std::size_t n = 0; n < a.size(); ++n) {
        SCOPED_TRACE(a[n].name);
        EXPECT_EQ(a[n].name, b[n].name);
        EXPECT_EQ(a[n].type, b[n].type);
        EXPECT_EQ(a[n].i, b[n].i);
        EXPECT_EQ(a[n].j, b[n].j);
        EXPECT_EQ(a[n].k_first, b[n].k_first);
        EXPECT_EQ(a[n].k_last, b[n].k_last);
        EXPECT_EQ(a[n].control, b[n].control);
        EXPECT_EQ(a[n].target, b[n].target);
        EXPECT_EQ(a[n].radius, b[n].radius);
        EXPECT_EQ(a[n].skin, b[n].skin);
        EXPECT_TRUE(a[n].connections.empty());  // one run, one radius: Peaceman's column
        EXPECT_EQ(a[n].min_bhp, b[n].min_bhp);
        EXPECT_EQ(a[n].max_bhp, b[n].max_bhp);
    }
    ASSERT_EQ(egg.schedule.report_times.size(), 120u);  // 120 TSTEP of 30 days
    EXPECT_EQ(egg.schedule.report_times[0], 30.0 * units::kDay);
    EXPECT_EQ(egg.schedule.end_time(), 3600.0 * units::kDay);
    EXPECT_TRUE(egg.schedule.events.empty());
    // What the file gives may not be given again.
    const auto error_of = [](const std::string& set) {
        return load_error(source_path("inputs/egg.yaml"), {set});
    };
    EXPECT_THAT(error_of("schedule.end_time=100"),
                HasSubstr("schedule.end_time: schedule.eclipse's TSTEP, WCONINJE and WCONPROD "
                          "give it: remove this key"));
    EXPECT_THAT(error_of("wells=[{name: W, type: producer, column: [15, 42], "
                         "control: {kind: bhp, value: 395}}]"),
                HasSubstr("schedule.eclipse: the wells come from the file's WELSPECS and "
                          "COMPDAT: remove the wells section"));
}

TEST(Deck, ScheduleEclipseShutsAtTheStartAndChangesLater) {
    // A well SHUT before the first TSTEP keeps its control and is shut by an event at day 0;
    // a later record is an event that sets status, control and limit (design decision 79).
    const test::TempFile inc(
        "RUNSPEC\nFIELD\nSCHEDULE\nWELSPECS\n 'INJ' 'G' 3 3 /\n 'P1' 'G' 2 2 /\n/\n"
        "COMPDAT\n 'INJ' 2* 1 4 'OPEN' 2* 0.5 /\n 'P1' 2* 1 3 'OPEN' 2* 0.5 /\n/\n"
        "WCONINJE\n 'INJ' 'WATER' 'OPEN' 'RATE' 200 1* 9000 /\n/\n"
        "WCONPROD\n 'P1' 'SHUT' 'LRAT' 3* 150 1* 3000 /\n/\n"
        "TSTEP\n 20 /\nWCONPROD\n 'P1' 'OPEN' 'BHP' 5* 4000 /\n/\nTSTEP\n 10 /\n");
    const Deck d = load_deck(source_path("tests/app/decks/eclipse_schedule_sim.yaml"),
                             {"schedule.eclipse=" + inc.path()});
    ASSERT_EQ(d.model.wells.size(), 2u);
    const wells::WellSpec& p1 = d.model.wells[1];
    EXPECT_EQ(p1.type, wells::WellType::producer);
    EXPECT_EQ(p1.control, wells::ControlKind::rate);
    EXPECT_DOUBLE_EQ(p1.target, 150.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_DOUBLE_EQ(p1.min_bhp, 3000.0 * units::kPsi);
    ASSERT_EQ(d.schedule.events.size(), 2u);
    const sim::WellEvent& shut = d.schedule.events[0];
    EXPECT_EQ(shut.time, 0.0);
    EXPECT_EQ(shut.well, 1u);
    EXPECT_EQ(shut.open, std::optional<bool>(false));
    EXPECT_FALSE(shut.kind.has_value());
    const sim::WellEvent& later = d.schedule.events[1];
    EXPECT_EQ(later.time, 20.0 * units::kDay);
    EXPECT_EQ(later.open, std::optional<bool>(true));
    EXPECT_EQ(later.kind, std::optional<wells::ControlKind>(wells::ControlKind::bhp));
    EXPECT_DOUBLE_EQ(later.target, 4000.0 * units::kPsi);
    EXPECT_EQ(later.min_bhp, std::optional<double>(0.0));  // the record's limit: none
    EXPECT_EQ(d.schedule.report_times,
              (std::vector<double>{20.0 * units::kDay, 30.0 * units::kDay}));
}

TEST(Deck, WeltargKeepsTheWellsStatus) {
    // Design decision 91: WELTARG at the start changes the well's spec (P1 SHUT there stays
    // shut), later an event with the changed control and no status; on a history well it
    // continues the observed series (the record's observations carried on).
    const test::TempFile inc(
        "RUNSPEC\nFIELD\nSCHEDULE\nWELSPECS\n 'INJ' 'G' 3 3 /\n 'P1' 'G' 2 2 /\n/\n"
        "COMPDAT\n 'INJ' 2* 1 4 'OPEN' 2* 0.5 /\n 'P1' 2* 1 3 'OPEN' 2* 0.5 /\n/\n"
        "WCONINJH\n 'INJ' 'WATER' 'OPEN' 200 /\n/\n"
        "WCONPROD\n 'P1' 'SHUT' 'LRAT' 3* 150 1* 3000 /\n/\n"
        "WELTARG\n 'P1' 'BHP' 2500 /\n/\n"
        "TSTEP\n 20 /\nWELTARG\n 'P1' 'LRAT' 120 /\n 'INJ' 'BHP' 9000 /\n/\nTSTEP\n 10 /\n");
    const Deck d = load_deck(source_path("tests/app/decks/eclipse_schedule_sim.yaml"),
                             {"schedule.eclipse=" + inc.path()});
    const wells::WellSpec& p1 = d.model.wells[1];
    EXPECT_DOUBLE_EQ(p1.target, 150.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_DOUBLE_EQ(p1.min_bhp, 2500.0 * units::kPsi);
    ASSERT_EQ(d.schedule.events.size(), 3u);
    EXPECT_EQ(d.schedule.events[0].open, std::optional<bool>(false));  // P1 shut at the start
    const sim::WellEvent &rate = d.schedule.events[1], &limit = d.schedule.events[2];
    EXPECT_EQ(rate.time, 20.0 * units::kDay);
    EXPECT_EQ(rate.well, 1u);
    EXPECT_FALSE(rate.open.has_value());
    EXPECT_EQ(rate.kind, std::optional<wells::ControlKind>(wells::ControlKind::rate));
    EXPECT_DOUBLE_EQ(rate.target, 120.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(rate.min_bhp, std::optional<double>(2500.0 * units::kPsi));
    EXPECT_EQ(limit.well, 0u);
    EXPECT_FALSE(limit.open.has_value());
    EXPECT_DOUBLE_EQ(limit.target, 200.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(limit.max_bhp, std::optional<double>(9000.0 * units::kPsi));
    // INJ's history goes on through its WELTARG: -200 stb/day from day 0 and from day 20.
    std::vector<double> injected;
    for (const WellObservation& o : d.history) {
        if (o.well == 0) injected.push_back(o.water / (units::kStockTankBarrel / units::kDay));
    }
    ASSERT_EQ(injected.size(), 2u);
    EXPECT_DOUBLE_EQ(injected[0], -200.0);
    EXPECT_DOUBLE_EQ(injected[1], -200.0);
}

TEST(Deck, PhaseRateControlsFromYamlAndEclipse) {
    // Design decision 82: oil_rate and water_rate in the wells section and the events, and
    // WCONPROD ORAT / WRAT mapped onto them.
    const std::string deck = source_path("tests/app/decks/eclipse_schedule_sim.yaml");
    const test::TempFile inc(
        "RUNSPEC\nFIELD\nSCHEDULE\nWELSPECS\n 'INJ' 'G' 3 3 /\n 'P1' 'G' 2 2 /\n/\n"
        "COMPDAT\n 'INJ' 2* 1 4 'OPEN' 2* 0.5 /\n 'P1' 2* 1 3 'OPEN' 2* 0.5 /\n/\n"
        "WCONINJE\n 'INJ' 'WATER' 'OPEN' 'RATE' 200 1* 9000 /\n/\n"
        "WCONPROD\n 'P1' 'OPEN' 'ORAT' 120 4* 3000 /\n/\n"
        "TSTEP\n 20 /\nWCONPROD\n 'P1' 'OPEN' 'WRAT' 1* 80 3* 2500 /\n/\nTSTEP\n 10 /\n");
    const Deck d = load_deck(deck, {"schedule.eclipse=" + inc.path()});
    const wells::WellSpec& p1 = d.model.wells[1];
    EXPECT_EQ(p1.control, wells::ControlKind::oil_rate);
    EXPECT_DOUBLE_EQ(p1.target, 120.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_DOUBLE_EQ(p1.min_bhp, 3000.0 * units::kPsi);
    ASSERT_EQ(d.schedule.events.size(), 1u);
    EXPECT_EQ(d.schedule.events[0].kind,
              std::optional<wells::ControlKind>(wells::ControlKind::water_rate));
    EXPECT_DOUBLE_EQ(d.schedule.events[0].target, 80.0 * units::kStockTankBarrel / units::kDay);

    const Deck y = load_deck(source_path("inputs/five_spot.yaml"),
                             {"wells[1].control={kind: oil_rate, value: 300}",
                              "schedule.events=[{time: 10, well: P1, control: {kind: water_rate, "
                              "value: 50}}]"});
    EXPECT_EQ(y.model.wells[1].control, wells::ControlKind::oil_rate);
    EXPECT_DOUBLE_EQ(y.model.wells[1].target, 300.0 * units::kStockTankBarrel / units::kDay);
    ASSERT_EQ(y.schedule.events.size(), 1u);
    EXPECT_EQ(y.schedule.events[0].kind,
              std::optional<wells::ControlKind>(wells::ControlKind::water_rate));
}

TEST(Deck, ScheduleEclipseWelopenAndPatterns) {
    // Design decision 83: WELOPEN shuts a well at the start (an event at day 0, as a SHUT
    // control record does) and opens it later (an event that sets the status alone, the
    // well's control kept); a pattern names both wells, but not in COMPDAT.
    const auto schedule = [](const std::string& compdat) {
        return "RUNSPEC\nFIELD\nSCHEDULE\nWELSPECS\n 'INJ' 'G' 3 3 /\n 'P1' 'G' 2 2 /\n/\n"
               "COMPDAT\n" +
               compdat +
               "/\nWCONINJE\n 'INJ' 'WATER' 'OPEN' 'RATE' 200 1* 9000 /\n/\n"
               "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 3000 /\n/\nWELOPEN\n 'P1' 'SHUT' /\n/\n"
               "TSTEP\n 20 /\nWELOPEN\n '*' 'OPEN' /\n/\nTSTEP\n 10 /\n";
    };
    const std::string deck = source_path("tests/app/decks/eclipse_schedule_sim.yaml");
    const test::TempFile pattern(schedule(" '*' 2* 1 3 'OPEN' 2* 0.5 /\n"));
    EXPECT_THAT(load_error(deck, {"schedule.eclipse=" + pattern.path()}),
                HasSubstr("COMPDAT: item 1 names no well of WELSPECS ('*'; COMPDAT takes a "
                          "well's name, not a pattern)"));
    const test::TempFile inc(
        schedule(" 'INJ' 2* 1 3 'OPEN' 2* 0.5 /\n 'P1' 2* 1 3 'OPEN' 2* 0.5 /\n"));
    const Deck d = load_deck(deck, {"schedule.eclipse=" + inc.path()});
    ASSERT_EQ(d.schedule.events.size(), 3u);
    const sim::WellEvent& shut = d.schedule.events[0];
    EXPECT_EQ(shut.time, 0.0);
    EXPECT_EQ(shut.well, 1u);
    EXPECT_EQ(shut.open, std::optional<bool>(false));
    for (std::size_t n = 1; n < 3; ++n) {
        const sim::WellEvent& open = d.schedule.events[n];
        EXPECT_EQ(open.time, 20.0 * units::kDay);
        EXPECT_EQ(open.well, n - 1);  // INJ, P1: WELSPECS order
        EXPECT_EQ(open.open, std::optional<bool>(true));
        EXPECT_FALSE(open.kind.has_value());  // the control kept
        EXPECT_FALSE(open.min_bhp.has_value());
    }
    EXPECT_EQ(d.model.wells[1].control, wells::ControlKind::bhp);
}

TEST(Deck, EconomicLimitsFromYamlAndWecon) {
    // Design decision 86: a producer's min_oil_rate (the deck's rate unit) and max_water_cut
    // as well keys and event keys; WECON's at the start on the well, later as an event; on an
    // injector refused at its line.
    const std::string deck = source_path("tests/app/decks/eclipse_schedule_sim.yaml");
    const Deck y = load_deck(source_path("inputs/five_spot.yaml"),
                             {"wells=[{name: P1, type: producer, column: [1, 1], control: "
                              "{kind: bhp, value: 3000}, min_oil_rate: 40, max_water_cut: "
                              "0.95}]",
                              "schedule.events=[{time: 5, well: P1, min_oil_rate: 10}]"});
    EXPECT_DOUBLE_EQ(y.model.wells[0].min_oil_rate, 40.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(y.model.wells[0].max_water_cut, 0.95);
    ASSERT_EQ(y.schedule.events.size(), 1u);
    EXPECT_DOUBLE_EQ(*y.schedule.events[0].min_oil_rate,
                     10.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_FALSE(y.schedule.events[0].max_water_cut.has_value());

    const auto schedule = [](const std::string& wecon) {
        return "RUNSPEC\nFIELD\nSCHEDULE\nWELSPECS\n 'INJ' 'G' 3 3 /\n 'P1' 'G' 2 2 /\n/\n"
               "COMPDAT\n 'INJ' 2* 1 3 'OPEN' 2* 0.5 /\n 'P1' 2* 1 3 'OPEN' 2* 0.5 /\n/\n"
               "WCONINJE\n 'INJ' 'WATER' 'OPEN' 'RATE' 200 1* 9000 /\n/\n"
               "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 3000 /\n/\n" +
               wecon + "TSTEP\n 20 /\nWECON\n 'P1' 5 /\n/\nTSTEP\n 10 /\n";
    };
    const test::TempFile ok(schedule("WECON\n 'P1' 30 1* 0.9 2* 'WELL' /\n/\n"));
    const Deck d = load_deck(deck, {"schedule.eclipse=" + ok.path()});
    EXPECT_DOUBLE_EQ(d.model.wells[1].min_oil_rate, 30.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(d.model.wells[1].max_water_cut, 0.9);
    EXPECT_EQ(d.model.wells[0].min_oil_rate, 0.0);
    ASSERT_EQ(d.schedule.events.size(), 1u);
    const sim::WellEvent& later = d.schedule.events[0];
    EXPECT_EQ(later.time, 20.0 * units::kDay);
    EXPECT_EQ(later.well, 1u);
    EXPECT_DOUBLE_EQ(*later.min_oil_rate, 5.0 * units::kStockTankBarrel / units::kDay);
    EXPECT_EQ(*later.max_water_cut, 0.0);  // WECON's record replaces the limits
    EXPECT_FALSE(later.open.has_value());
    const test::TempFile injector(schedule("WECON\n 'INJ' 30 /\n/\n"));
    EXPECT_THAT(load_error(deck, {"schedule.eclipse=" + injector.path()}),
                HasSubstr(":19: WECON: well INJ is an injector (WCONINJE): economic limits are a "
                          "producer's"));
}

TEST(Deck, WellTestsFromYamlAndWtest) {
    // Design decision 88: a producer's test_interval (days) and test_count as well keys and
    // event keys; WTEST's at the start on the well, later as an event; on an injector refused
    // at its line.
    const Deck y = load_deck(source_path("inputs/five_spot.yaml"),
                             {"wells=[{name: P1, type: producer, column: [1, 1], control: "
                              "{kind: bhp, value: 3000}, min_oil_rate: 40, test_interval: 30, "
                              "test_count: 4}]",
                              "schedule.events=[{time: 5, well: P1, test_interval: 10}]"});
    EXPECT_EQ(y.model.wells[0].test_interval, 30.0 * units::kDay);
    EXPECT_EQ(y.model.wells[0].test_count, 4);
    ASSERT_EQ(y.schedule.events.size(), 1u);
    EXPECT_EQ(*y.schedule.events[0].test_interval, 10.0 * units::kDay);
    EXPECT_FALSE(y.schedule.events[0].test_count.has_value());

    const std::string deck = source_path("tests/app/decks/eclipse_schedule_sim.yaml");
    const auto schedule = [](const std::string& wtest) {
        return "RUNSPEC\nFIELD\nSCHEDULE\nWELSPECS\n 'INJ' 'G' 3 3 /\n 'P1' 'G' 2 2 /\n/\n"
               "COMPDAT\n 'INJ' 2* 1 3 'OPEN' 2* 0.5 /\n 'P1' 2* 1 3 'OPEN' 2* 0.5 /\n/\n"
               "WCONINJE\n 'INJ' 'WATER' 'OPEN' 'RATE' 200 1* 9000 /\n/\n"
               "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 3000 /\n/\n" +
               wtest + "TSTEP\n 20 /\nWTEST\n 'P1' 5 'E' /\n/\nTSTEP\n 10 /\n";
    };
    const test::TempFile ok(schedule("WTEST\n 'P1' 30 'E' 2 /\n/\n"));
    const Deck d = load_deck(deck, {"schedule.eclipse=" + ok.path()});
    EXPECT_EQ(d.model.wells[1].test_interval, 30.0 * units::kDay);
    EXPECT_EQ(d.model.wells[1].test_count, 2);
    EXPECT_EQ(d.model.wells[0].test_interval, 0.0);
    ASSERT_EQ(d.schedule.events.size(), 1u);
    const sim::WellEvent& later = d.schedule.events[0];
    EXPECT_EQ(later.time, 20.0 * units::kDay);
    EXPECT_EQ(later.well, 1u);
    EXPECT_EQ(*later.test_interval, 5.0 * units::kDay);
    EXPECT_EQ(*later.test_count, 0);  // WTEST's record replaces both
    EXPECT_FALSE(later.open.has_value());
    const test::TempFile injector(schedule("WTEST\n 'INJ' 30 'E' /\n/\n"));
    EXPECT_THAT(load_error(deck, {"schedule.eclipse=" + injector.path()}),
                HasSubstr(":19: WTEST: well INJ is an injector (WCONINJE): well tests reopen a "
                          "producer its economic limits shut"));
}

}  // namespace
}  // namespace heptane::app
