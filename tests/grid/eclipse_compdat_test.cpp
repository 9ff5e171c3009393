// An Eclipse deck's wells layer by layer (grid/eclipse_schedule.hpp, design decision 102):
// COMPDAT's connection factors, Kh, SHUT layers and gaps, WPIMULT, their changes after the first
// TSTEP and WELOPEN's connections (design decision 103), and the factor's unit against
// Eclipse's Darcy constants. (COMPDAT's
// refusals are with the schedule's others in eclipse_schedule_test.cpp.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "core/base/units.hpp"
#include "grid/eclipse_schedule.hpp"

namespace heptane::grid {
namespace {

using test::input_error_of;
using test::TempFile;
using ::testing::HasSubstr;

constexpr FluidUnits kMetric{units::kBar, 1.0, 1.0, 1.0 / units::kDay, units::kDay};

// Design decision 102: COMPDAT's layers one by one. A record gives the connection factor, or
// Kh, the diameter and the skin; SHUT layers and layers no record names are not connected; a
// layer named again is the later record's; the open layers' span is the well's k_first..k_last.
TEST(EclipseSchedule, CompdatGivesEachLayersConnection) {
    const TempFile f(
        "RUNSPEC\nMETRIC\nSCHEDULE\nWELSPECS\n 'I1' 'G' 1 1 1* 'WATER' /\n"
        " 'P1' 'G' 3 2 1* 'OIL' /\n/\n"
        "COMPDAT\n 'I1' 2* 1 2 'OPEN' 1* 10 /\n"
        " 'I1' 2* 5 5 'OPEN' 2* 0.2 500 1.5 /\n"
        " 'I1' 2* 2 2 'SHUT' 1* 10 /\n"
        " 'P1' 2* 1 1 'SHUT' 2* 0.2 /\n"
        " 'P1' 2* 2 3 'OPEN' 1* 4 0.2 100 2 /\n/\n"
        "WCONINJE\n 'I1' 'WATER' 'OPEN' 'RATE' 500 /\n/\n"
        "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 100 /\n/\nTSTEP\n 10 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    ASSERT_EQ(s.wells.size(), 2u);
    const double cf = units::kCentiPoise / units::kDay / units::kBar;  // cP rm3/day/bar in m^3
    const EclipseWell& i1 = s.wells[0];
    EXPECT_EQ(i1.k_first, 0);
    EXPECT_EQ(i1.k_last, 4);
    ASSERT_EQ(i1.connections.size(), 3u);  // layers 1, 2 and 5: 3 and 4 named by none
    EXPECT_EQ(i1.connections[0].k, 0);
    EXPECT_TRUE(i1.connections[0].open);
    EXPECT_DOUBLE_EQ(i1.connections[0].factor, 10.0 * cf);
    EXPECT_TRUE(std::isnan(i1.connections[0].radius));  // the factor holds it
    EXPECT_EQ(i1.connections[1].k, 1);
    EXPECT_FALSE(i1.connections[1].open);  // the later SHUT record's
    EXPECT_EQ(i1.connections[2].k, 4);
    EXPECT_TRUE(std::isnan(i1.connections[2].factor));
    EXPECT_DOUBLE_EQ(i1.connections[2].kh, 500.0 * units::kMilliDarcy);
    EXPECT_EQ(i1.connections[2].radius, 0.1);
    EXPECT_EQ(i1.connections[2].skin, 1.5);
    const EclipseWell& p1 = s.wells[1];
    EXPECT_EQ(p1.k_first, 1);  // the SHUT layer 1 lies above the open span
    EXPECT_EQ(p1.k_last, 2);
    ASSERT_EQ(p1.connections.size(), 3u);
    EXPECT_FALSE(p1.connections[0].open);
    EXPECT_DOUBLE_EQ(p1.connections[2].factor, 4.0 * cf);
    EXPECT_EQ(p1.connections[2].skin, 0.0);  // described by the factor
    ASSERT_EQ(s.notes.size(), 1u);           // the record whose factor holds its Kh and skin
    EXPECT_THAT(s.notes[0], HasSubstr(":13: COMPDAT: 1 record(s) give the connection factor "
                                      "(item 8) with the diameter, Kh or skin"));
}

// WPIMULT (design decision 102): each connection it names times its multiplier, cumulative;
// a COMPDAT record naming the layer again starts it from 1; refused negative, or naming no
// connection.
TEST(EclipseSchedule, WpimultMultipliesTheConnectionsItNames) {
    const std::string wells =
        "RUNSPEC\nMETRIC\nSCHEDULE\nWELSPECS\n 'P1' 'G' 3 2 1* 'OIL' /\n 'P2' 'G' 1 1 1* 'OIL' /\n"
        "/\nCOMPDAT\n 'P1' 2* 1 3 'OPEN' 2* 0.2 /\n 'P2' 2* 1 3 'OPEN' 2* 0.2 /\n/\n";
    const std::string rest = "WCONPROD\n 'P*' 'OPEN' 'BHP' 5* 100 /\n/\nTSTEP\n 10 /\n";
    const TempFile f(wells + "WPIMULT\n 'P*' 2 /\n 'P1' 0.5 2* 3 /\n 'P2' 3 1 1 2 /\n/\n" +
                     "COMPDAT\n 'P2' 2* 1 1 'OPEN' 2* 0.2 /\n/\n" + rest);
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    const auto multipliers = [&](std::size_t w) {
        std::vector<double> m;
        for (const EclipseConnection& c : s.wells[w].connections) m.push_back(c.multiplier);
        return m;
    };
    EXPECT_EQ(multipliers(0), (std::vector<double>{2.0, 2.0, 1.0}));  // layer 3: 2 x 0.5
    EXPECT_EQ(multipliers(1), (std::vector<double>{1.0, 6.0, 2.0}));  // layer 1 given again
    const auto error = [&](const std::string& text) {
        const TempFile g(text);
        return input_error_of([&] { read_eclipse_schedule(g.path(), kMetric); });
    };
    EXPECT_THAT(error(wells + "WPIMULT\n 'P1' -1 /\n/\n" + rest),
                HasSubstr(":13: WPIMULT: item 2 (the multiplier) must be >= 0"));
    EXPECT_THAT(error(wells + "WPIMULT\n 'P1' 2 3* 1 /\n/\n" + rest),
                HasSubstr(":13: WPIMULT: item 6 (the completion numbers) must be defaulted"));
    EXPECT_THAT(error(wells + "WPIMULT\n 'P1' 2 2* 4 /\n/\n" + rest),
                HasSubstr(":13: WPIMULT: item 5 names no connection of well P1"));
    EXPECT_THAT(error(wells + "WPIMULT\n 'P1' 2 1 1 /\n/\n" + rest),
                HasSubstr(":13: WPIMULT: item 3 names no connection of well P1"));
}

/// P1 on layers 2-3 and P2 on layers 1-2 (METRIC), BHP producers, and ten days: the start of
/// the workover tests (its TSTEP's record ends on line 16).
const char* const kTwoWellsTenDays =
    "RUNSPEC\nMETRIC\nSCHEDULE\nWELSPECS\n 'P1' 'G' 3 2 1* 'OIL' /\n 'P2' 'G' 1 1 1* 'OIL' /\n"
    "/\nCOMPDAT\n 'P1' 2* 2 3 'OPEN' 2* 0.2 /\n 'P2' 2* 1 2 'OPEN' 2* 0.2 /\n/\n"
    "WCONPROD\n 'P*' 'OPEN' 'BHP' 5* 100 /\n/\nTSTEP\n 10 /\n";

// Design decision 103: COMPDAT and WPIMULT after the first TSTEP change a well's connections
// from then on. The records of one time merge into one change per well, from the well's latest
// connections; the well's span covers every layer open at some time; a change after the last
// TSTEP is refused.
TEST(EclipseSchedule, LaterCompdatAndWpimultChangeTheConnections) {
    const std::string start = kTwoWellsTenDays;
    const TempFile f(start +
                     "COMPDAT\n 'P1' 2* 1 1 'OPEN' 2* 0.2 /\n 'P1' 2* 3 3 'SHUT' 2* 0.2 /\n/\n"
                     "WPIMULT\n 'P1' 2 /\n/\nTSTEP\n 5 /\nWPIMULT\n 'P1' 3 2* 2 /\n/\n"
                     "TSTEP\n 5 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    const EclipseWell& p1 = s.wells[0];
    ASSERT_EQ(p1.connections.size(), 2u);  // at the start: layers 2 and 3 (0-based 1, 2)
    EXPECT_EQ(p1.k_first, 0);              // layer 1 opens on day 10
    EXPECT_EQ(p1.k_last, 2);               // layer 3 open until then
    EXPECT_EQ(s.wells[1].k_last, 1);       // P2 never changes
    ASSERT_EQ(s.connection_changes.size(), 2u);
    const auto layers = [](const EclipseConnectionChange& c) {
        std::vector<std::tuple<int, bool, double>> out;
        for (const EclipseConnection& x : c.connections)
            out.emplace_back(x.k, x.open, x.multiplier);
        return out;
    };
    const EclipseConnectionChange &day10 = s.connection_changes[0],
                                  &day15 = s.connection_changes[1];
    EXPECT_EQ(day10.well, "P1");
    EXPECT_DOUBLE_EQ(day10.time, 10.0 * units::kDay);
    EXPECT_THAT(day10.where, HasSubstr(":18: COMPDAT: "));  // the first record of the time
    using L = std::tuple<int, bool, double>;
    EXPECT_EQ(layers(day10), (std::vector<L>{{0, true, 2.0}, {1, true, 2.0}, {2, false, 2.0}}));
    EXPECT_DOUBLE_EQ(day15.time, 15.0 * units::kDay);
    EXPECT_EQ(layers(day15), (std::vector<L>{{0, true, 2.0}, {1, true, 6.0}, {2, false, 2.0}}));
    const auto error = [&](const std::string& text) {
        const TempFile g(text);
        return input_error_of([&] { read_eclipse_schedule(g.path(), kMetric); });
    };
    EXPECT_THAT(error(start + "WPIMULT\n 'P2' 2 /\n/\n"),
                HasSubstr(":18: WPIMULT: after the last TSTEP or DATES"));
}

// Design decision 105: a change that leaves a well no OPEN connection shuts the well at its
// time (a WELOPEN SHUT after that time's controls) and is no change itself; a control record
// opening the well before a connection opens again is read as SHUT; a later change starts from
// the shut connections, and WELOPEN then opens the well.
TEST(EclipseSchedule, AChangeShuttingEveryConnectionShutsTheWell) {
    const std::string start = kTwoWellsTenDays;
    const TempFile f(start + "COMPDAT\n 'P2' 2* 1 2 'SHUT' 2* 0.2 /\n/\nTSTEP\n 5 /\n" +
                     "WCONPROD\n 'P2' 'OPEN' 'BHP' 5* 150 /\n/\nTSTEP\n 5 /\n" +
                     "COMPDAT\n 'P2' 2* 2 2 'OPEN' 2* 0.2 /\n/\nWELOPEN\n 'P2' 'OPEN' /\n/\n" +
                     "TSTEP\n 5 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    EXPECT_EQ(s.wells[1].k_first, 0);
    EXPECT_EQ(s.wells[1].k_last, 1);
    ASSERT_EQ(s.connection_changes.size(), 1u);  // day 20's: layer 1 shut since day 10
    const EclipseConnectionChange& day20 = s.connection_changes[0];
    EXPECT_DOUBLE_EQ(day20.time, 20.0 * units::kDay);
    ASSERT_EQ(day20.connections.size(), 2u);
    EXPECT_FALSE(day20.connections[0].open);
    EXPECT_TRUE(day20.connections[1].open);
    // P2's controls: day 0 open, day 10 the shut, day 15 WCONPROD read as SHUT, day 20 open.
    std::vector<std::tuple<double, bool, bool>> p2;
    for (const EclipseControl& c : s.controls) {
        if (c.well == "P2") p2.emplace_back(c.time / units::kDay, c.open, c.status_only);
    }
    using C = std::tuple<double, bool, bool>;
    EXPECT_EQ(
        p2,
        (std::vector<C>{
            {0.0, true, false}, {10.0, false, true}, {15.0, false, false}, {20.0, true, true}}));
    EXPECT_THAT(s.notes, testing::Contains(HasSubstr(
                             ":18: COMPDAT: leaves well P2 without an OPEN connection: the well is "
                             "shut from day 10")));
    EXPECT_THAT(s.notes, testing::Contains(HasSubstr(
                             ":23: WCONPROD: opens well P2, whose connections are all shut since "
                             "day 10: read as SHUT")));
}

// WELOPEN with connection items (design decision 103): the connections items 3-5 name (0:
// any) OPEN or SHUT, their terms kept, at the start or as a workover; I, J and K all 0, STOP,
// the completion numbers and a record naming no connection are refused.
TEST(EclipseSchedule, WelopenOpensAndShutsConnections) {
    const std::string start =
        "RUNSPEC\nMETRIC\nSCHEDULE\nWELSPECS\n 'P1' 'G' 3 2 1* 'OIL' /\n/\n"
        "COMPDAT\n 'P1' 2* 1 3 'OPEN' 2* 0.2 /\n 'P1' 2* 4 4 'SHUT' 2* 0.2 /\n/\n"
        "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 100 /\n/\n";
    const TempFile f(start + "WELOPEN\n 'P1' 'SHUT' 0 0 1 /\n/\nTSTEP\n 10 /\n" +
                     "WELOPEN\n 'P*' 'OPEN' 3 2 4 /\n 'P1' 'SHUT' 2* 2 /\n/\nTSTEP\n 5 /\n");
    const EclipseSchedule s = read_eclipse_schedule(f.path(), kMetric);
    const auto open = [](const std::vector<EclipseConnection>& c) {
        std::vector<bool> out;
        for (const EclipseConnection& x : c) out.push_back(x.open);
        return out;
    };
    EXPECT_EQ(open(s.wells[0].connections), (std::vector<bool>{false, true, true, false}));
    EXPECT_EQ(s.wells[0].k_first, 1);  // layer 1 shut from the start, opened never
    EXPECT_EQ(s.wells[0].k_last, 3);   // layer 4 opened on day 10
    ASSERT_EQ(s.connection_changes.size(), 1u);
    EXPECT_EQ(open(s.connection_changes[0].connections),
              (std::vector<bool>{false, false, true, true}));
    EXPECT_DOUBLE_EQ(s.connection_changes[0].connections[3].radius, 0.1);  // COMPDAT's terms
    EXPECT_TRUE(s.notes.empty());
    const auto error = [&](const std::string& text) {
        const TempFile g(text + "TSTEP\n 1 /\n");
        return input_error_of([&] { read_eclipse_schedule(g.path(), kMetric); });
    };
    EXPECT_THAT(error(start + "WELOPEN\n 'P1' 'SHUT' 0 0 0 /\n/\n"),
                HasSubstr(":15: WELOPEN: item 3 (I, J, K all 0) would open or shut every "
                          "connection"));
    EXPECT_THAT(error(start + "WELOPEN\n 'P1' 'STOP' 2* 1 /\n/\n"),
                HasSubstr(":15: WELOPEN: item 2 (the status) of a connection must be OPEN or "
                          "SHUT"));
    EXPECT_THAT(error(start + "WELOPEN\n 'P1' 'SHUT' 2* 5 /\n/\n"),
                HasSubstr(":15: WELOPEN: item 5 names no connection of well P1"));
    EXPECT_THAT(error(start + "WELOPEN\n 'P1' 'SHUT' 1 1 /\n/\n"),
                HasSubstr(":15: WELOPEN: item 3 names no connection of well P1"));
    EXPECT_THAT(error(start + "WELOPEN\n 'P1' 'SHUT' 2* 1 /\n 'P1' 'SHUT' 2* 2 /\n"
                              " 'P1' 'SHUT' 2* 3 /\n/\n"),
                HasSubstr("well P1 has no OPEN connection"));
}

// The connection factor's unit against Eclipse's own Darcy constants (its manual's CF = c
// theta Kh / (ln(r_o / r_w) + S), Kh in mD m or mD ft): c = 0.00852702 (METRIC), 0.001127
// (FIELD, 0.00112712 to 6 digits), so c CF-units are one mD m (mD ft) of permeability-thickness.
TEST(EclipseSchedule, TheConnectionFactorsUnitIsEclipses) {
    for (const auto& [system, c, kh_unit] :
         {std::make_tuple("METRIC", 0.00852702, units::kMilliDarcy),
          std::make_tuple("FIELD", 0.00112712, units::kMilliDarcy * units::kFoot)}) {
        const TempFile f(std::string("RUNSPEC\n") + system +
                         "\nSCHEDULE\nWELSPECS\n 'P1' 'G' 1 1 1* 'OIL' /\n/\n"
                         "COMPDAT\n 'P1' 2* 1 1 'OPEN' 1* 1 /\n/\n"
                         "WCONPROD\n 'P1' 'OPEN' 'BHP' 5* 100 /\n/\nTSTEP\n 10 /\n");
        const double factor =
            read_eclipse_schedule(f.path(), kMetric).wells[0].connections[0].factor;
        EXPECT_NEAR(c * factor / kh_unit, 1.0, 5e-6) << system;
    }
}

}  // namespace
}  // namespace heptane::grid
