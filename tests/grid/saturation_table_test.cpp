// Tabulated relative permeabilities and capillary pressure (grid/saturation_table.hpp, design
// decisions 74, 76): the interpolation and its derivative by hand, a dense table of Corey's law
// against the law, the table's checks, and Eclipse's SWOF read from the Egg model's deck (its
// own table, no capillary pressure) and SPE9's (a capillary pressure in psi, FIELD units); the
// tables of several saturation regions (TABDIMS item 1) and their refusals.
#include "grid/saturation_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
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

const std::vector<RelPermRow> kRows = test::relperm_rows();  // Sw 0.2 .. 0.8 by 0.1

RelPerm tabulated(const std::vector<RelPermRow>& rows) {
    RelPerm rp;
    rp.table = relperm_table(rows);
    return rp;
}

TEST(SaturationTable, InterpolatesLinearlyAndHoldsTheEndRows) {
    const RelPerm rp = tabulated(kRows);
    EXPECT_EQ(water_relperm(rp, 0.5), 0.12);  // a row's own values
    EXPECT_EQ(oil_relperm(rp, 0.3), 0.6);
    EXPECT_DOUBLE_EQ(water_relperm(rp, 0.55), 0.185);  // halfway: (0.12 + 0.25) / 2
    EXPECT_DOUBLE_EQ(oil_relperm(rp, 0.225), 0.9 - 0.25 * 0.3);
    EXPECT_EQ(water_relperm(rp, 0.1), 0.0);  // below the first row and above the last
    EXPECT_EQ(oil_relperm(rp, 0.1), 0.9);
    EXPECT_EQ(water_relperm(rp, 0.95), 0.7);
    EXPECT_EQ(oil_relperm(rp, 0.95), 0.0);
    EXPECT_EQ(connate_water(rp), 0.2);
}

TEST(SaturationTable, TheDerivativeIsTheSegmentsSlope) {
    const RelPerm rp = tabulated(kRows);
    const auto krw = water_relperm(rp, Dual<1>::variable(0.55, 0));
    EXPECT_DOUBLE_EQ(krw.d[0], (0.25 - 0.12) / 0.1);
    const auto kro = oil_relperm(rp, Dual<1>::variable(0.4, 0));  // a row: the segment after it
    EXPECT_DOUBLE_EQ(kro.d[0], (0.2 - 0.38) / 0.1);
    EXPECT_EQ(water_relperm(rp, Dual<1>::variable(0.15, 0)).d[0], 0.0);  // beyond the ends
    EXPECT_EQ(oil_relperm(rp, Dual<1>::variable(0.85, 0)).d[0], 0.0);
}

TEST(SaturationTable, CapillaryPressureInterpolatesAndGivesTheWaterPressure) {
    std::vector<RelPermRow> rows = kRows;  // Pc from 3 bar at Sw 0.2 down by 0.5 bar a row
    for (std::size_t q = 0; q < rows.size(); ++q) rows[q][3] = (3.0 - 0.5 * q) * units::kBar;
    TwoPhaseParams prm;
    prm.relperm = tabulated(rows);
    ASSERT_TRUE(prm.relperm.table.capillary);
    EXPECT_FALSE(tabulated(kRows).table.capillary);  // every Pc 0: no capillary pressure
    EXPECT_EQ(capillary_pressure(prm.relperm, 0.4), 2.0 * units::kBar);
    EXPECT_DOUBLE_EQ(capillary_pressure(prm.relperm, 0.45), 1.75 * units::kBar);
    EXPECT_EQ(capillary_pressure(prm.relperm, 0.1), 3.0 * units::kBar);  // the end rows held
    EXPECT_EQ(capillary_pressure(prm.relperm, 0.9), 0.0);
    const auto pc = capillary_pressure(prm.relperm, Dual<1>::variable(0.45, 0));
    EXPECT_DOUBLE_EQ(pc.d[0], -0.5 * units::kBar / 0.1);
    // p_w = p_o - Pc(S_w); the oil pressure is the oil's.
    const double p = 200.0 * units::kBar;
    EXPECT_EQ(phase_pressure(prm.relperm, kWater, p, 0.4), p - 2.0 * units::kBar);
    EXPECT_EQ(phase_pressure(prm.relperm, kOil, p, 0.4), p);
    EXPECT_EQ(phase_pressure(TwoPhaseParams{}.relperm, kWater, p, 0.4), p);  // Corey: no Pc
}

TEST(SaturationTable, ADenseTableOfCoreysLawIsTheLawWithinTheInterpolationBound) {
    RelPerm corey;  // swc 0.2, sor 0.15, nw 3, no 2, end points 0.6 and 0.8
    corey.swc = 0.2, corey.sor = 0.15, corey.nw = 3.0, corey.no = 2.0;
    corey.krw_max = 0.6, corey.kro_max = 0.8;
    std::vector<RelPermRow> rows;
    const int n = 64;
    const double h = (1.0 - corey.swc - corey.sor) / (n - 1);
    for (int q = 0; q < n; ++q) {
        const double sw = corey.swc + q * h;
        rows.push_back({sw, water_relperm(corey, sw), oil_relperm(corey, sw)});
    }
    rows.back()[0] = 1.0 - corey.sor;  // exactly, whatever the sum's rounding
    const RelPerm table = tabulated(rows);
    // Linear interpolation errs by at most h^2 / 8 max|f''|: krw'' <= 0.6 6 / 0.65^2, kro''
    // = 0.8 2 / 0.65^2.
    const double bound_w = h * h / 8.0 * 0.6 * 6.0 / (0.65 * 0.65);
    const double bound_o = h * h / 8.0 * 0.8 * 2.0 / (0.65 * 0.65);
    for (int q = 0; q <= 1000; ++q) {
        const double sw = 0.1 + 0.8 * q / 1000.0;
        EXPECT_NEAR(water_relperm(table, sw), water_relperm(corey, sw), bound_w) << sw;
        EXPECT_NEAR(oil_relperm(table, sw), oil_relperm(corey, sw), bound_o) << sw;
    }
}

TEST(SaturationTable, ChecksNameTheRow) {
    EXPECT_EQ(relperm_table_error(kRows), "");
    EXPECT_THAT(relperm_table_error({{0.2, 0.0, 1.0}}), HasSubstr("1 rows; a table has 2 to 64"));
    auto rows = kRows;
    rows[0][1] = 0.01;
    EXPECT_EQ(relperm_table_error(rows), "row 1: krw must be 0 at the first row (connate water)");
    rows = kRows;
    rows[3][0] = 0.4;
    EXPECT_EQ(relperm_table_error(rows), "row 4: the water saturation must increase");
    rows = kRows;
    rows[2][1] = 0.005;
    EXPECT_EQ(relperm_table_error(rows), "row 3: krw must not decrease");
    rows = kRows;
    rows[5][2] = 0.1;
    EXPECT_EQ(relperm_table_error(rows), "row 6: kro must not increase");
    rows = kRows;
    rows[0][3] = 1.0e5;  // falling from row 1, then rising at row 3
    rows[1][3] = 0.5e5;
    rows[2][3] = 0.6e5;
    EXPECT_EQ(relperm_table_error(rows), "row 3: the capillary pressure must not increase");
    rows[2][3] = NAN;
    EXPECT_EQ(relperm_table_error(rows), "row 3: the capillary pressure must be finite");
    rows = kRows;
    rows[6][1] = 1.2;
    EXPECT_EQ(relperm_table_error(rows), "row 7: the saturation, krw and kro must be in [0, 1]");
    rows = kRows;
    rows[0][2] = 0.0;
    EXPECT_EQ(relperm_table_error(rows), "row 1: kro must be > 0 at the first row");
    EXPECT_THROW(relperm_table(rows), std::invalid_argument);
}

TEST(SaturationTable, SwofOfTheEggModelsDeck) {
    const std::vector<RelPermRow> rows =
        read_swof(test::source_path("inputs/data/egg/Egg_Model_ECL.DATA"), {});
    ASSERT_EQ(rows.size(), 16u);
    EXPECT_EQ(rows[0], (RelPermRow{0.1, 0.0, 0.8}));
    EXPECT_EQ(rows[2], (RelPermRow{0.25, 2.7310e-04, 5.8082e-01}));
    EXPECT_EQ(rows[15], (RelPermRow{0.9, 7.4939e-01, 0.0}));
}

TEST(SaturationTable, SwofCapillaryPressureInTheFilesUnits) {
    // SPE9 (FIELD): 30 rows, Pc from 400 psi at connate water to -2.75 psi (oil-wet at the end).
    const std::vector<RelPermRow> rows =
        read_swof(test::source_path("inputs/data/spe9/SPE9.DATA"), {units::kBar, 1.0});
    ASSERT_EQ(rows.size(), 30u);
    EXPECT_EQ(rows[0], (RelPermRow{0.151090, 0.0, 1.0, 400.0 * units::kPsi}));
    EXPECT_EQ(rows[29], (RelPermRow{0.881490, 0.490000, 0.0, -2.75 * units::kPsi}));
    EXPECT_TRUE(relperm_table(rows).capillary);
    // METRIC: bar; LAB: atm; no unit keyword: the fallback's (the YAML deck's).
    const std::string table = "SWOF\n 0.2 0 1 2\n 0.8 1 0 0 /\n";
    EXPECT_EQ(read_swof(TempFile("METRIC\n" + table).path(), {})[0][3], 2.0 * units::kBar);
    EXPECT_EQ(read_swof(TempFile("LAB\n" + table).path(), {})[0][3], 2.0 * units::kAtmosphere);
    EXPECT_EQ(read_swof(TempFile(table).path(), {units::kPsi, 1.0})[0][3], 2.0 * units::kPsi);
}

TEST(SaturationTable, SwofErrorsNameTheFileAndLine) {
    const auto error = [](const std::string& text) {
        const TempFile f(text);
        return input_error_of([&] { read_swof(f.path(), {}); });
    };
    EXPECT_THAT(error("SWOF\n 0.2 0 1 1\n 0.8 1 0 2 /\n"),
                HasSubstr(":1: SWOF: row 2: the capillary pressure must not increase"));
    EXPECT_THAT(error("PROPS\nSWOR\n/\n"), HasSubstr(": no SWOF keyword"));
    EXPECT_THAT(error("-- a comment\nSWOF\n 0.2 0 1 0\n 0.8 1 0 /\n"),
                HasSubstr(":2: SWOF: 7 values; a row is 4 (Sw krw krow Pcow)"));
    EXPECT_THAT(error("SWOF\n 0.2 0 1 0\n 0.8 1 1* 0 /\n"),
                HasSubstr(":1: SWOF: row 2: a defaulted item (n*)"));
    EXPECT_THAT(error("SWOF\n 0.2 0 1 0\n 0.8 1 0 0 /\n 0.2 0 1 0\n 0.8 1 0 0 /\n"),
                HasSubstr(":4: SWOF: a second table (several saturation regions, SATNUM)"));
    EXPECT_THAT(error("SWOF\n 0.2 0 1 0\n 0.1 1 0 0 /\n"),
                HasSubstr(":1: SWOF: row 2: the water saturation must increase"));
    EXPECT_THAT(error("SWOF\n 0.2 0 1 0\n"), HasSubstr("the file ends before the '/'"));
    EXPECT_THAT(error("SWOF\n 300*0 /\n"), HasSubstr("SWOF: more than 64 rows"));
}

// Several saturation regions: TABDIMS item 1 (NTSFUN) tables, each ended by its own '/', in
// file order, each Pc in the file's unit.
const std::string kTable1 = " 0.2 0 1 3\n 0.8 1 0 0 /\n";
const std::string kTable2 = " 0.1 0 0.9 5\n 0.5 0.4 0.3 1\n 0.9 0.8 0 0 /\n";

TEST(SaturationTable, SwofTablesOfSeveralRegionsReadInOrder) {
    const TempFile f("RUNSPEC\nMETRIC\nTABDIMS\n 2 1 40 /\nPROPS\nSWOF\n" + kTable1 + kTable2 +
                     "PVTW\n 400 1 1e-5 1 0 /\n");
    const auto tables = read_swof_tables(f.path(), {units::kPsi, 1.0});
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0],
              (std::vector<RelPermRow>{{0.2, 0.0, 1.0, 3.0 * units::kBar}, {0.8, 1.0, 0.0, 0.0}}));
    EXPECT_EQ(tables[1], (std::vector<RelPermRow>{{0.1, 0.0, 0.9, 5.0 * units::kBar},
                                                  {0.5, 0.4, 0.3, 1.0 * units::kBar},
                                                  {0.9, 0.8, 0.0, 0.0}}));
    // Item 1 defaulted, or TABDIMS not given: one table (the fallback's unit without METRIC).
    for (const std::string head : {"TABDIMS\n 1* 1 40 /\n", "TABDIMS\n/\n", ""}) {
        const TempFile one(head + "SWOF\n" + kTable1);
        const auto t = read_swof_tables(one.path(), {units::kPsi, 1.0});
        ASSERT_EQ(t.size(), 1u) << head;
        EXPECT_EQ(t[0][0][3], 3.0 * units::kPsi) << head;
    }
}

// Eclipse's empty table (a '/' right after the previous table's) copies the table before it.
TEST(SaturationTable, AnEmptyTableCopiesTheOneBefore) {
    const TempFile f("TABDIMS\n 4 /\nSWOF\n" + kTable1 + "/\n" + kTable2 + " /\n");
    const auto tables = read_swof_tables(f.path(), {});
    ASSERT_EQ(tables.size(), 4u);
    EXPECT_EQ(tables[1], tables[0]);
    EXPECT_EQ(tables[2][0], (RelPermRow{0.1, 0.0, 0.9, 5.0}));
    EXPECT_EQ(tables[3], tables[2]);
    const TempFile first("TABDIMS\n 2 /\nSWOF\n/\n" + kTable1);
    EXPECT_THAT(input_error_of([&] { read_swof_tables(first.path(), {}); }),
                HasSubstr(":3: SWOF: table 1: the first table is empty (an empty table copies "
                          "the one before it; the first has none)"));
}

TEST(SaturationTable, SwofTablesErrorsNameTheTableAndLine) {
    const auto error = [](const std::string& text) {
        const TempFile f(text);
        return input_error_of([&] { read_swof_tables(f.path(), {}); });
    };
    // Fewer tables than TABDIMS says: at the keyword that follows, or the file's end.
    EXPECT_THAT(error("TABDIMS\n 3 /\nSWOF\n" + kTable1 + kTable2 + "PVTW\n 1 1 1 1 1 /\n"),
                HasSubstr(":9: SWOF: 2 tables before 'PVTW'; TABDIMS item 1 says 3 (each table "
                          "ends with its own '/')"));
    EXPECT_THAT(error("TABDIMS\n 2 /\nSWOF\n" + kTable1),
                HasSubstr(":3: SWOF: the file ends after 1 table; TABDIMS item 1 says 2"));
    // More: at the first number after the last table's '/'.
    EXPECT_THAT(error("TABDIMS\n 2 /\nSWOF\n" + kTable1 + kTable2 + kTable1),
                HasSubstr(":9: SWOF: a table after the last one: TABDIMS item 1 says 2; give "
                          "TABDIMS the number of tables"));
    EXPECT_THAT(error("SWOF\n" + kTable1 + kTable2),
                HasSubstr(":4: SWOF: a table after the last one: TABDIMS item 1 is 1 (the "
                          "default: the file has no TABDIMS)"));
    // A table's own errors name it, at the line where it starts.
    EXPECT_THAT(error("TABDIMS\n 2 /\nSWOF\n" + kTable1 + " 0.1 0 0.9 5\n 0.5 0.4 0.3 6 /\n"),
                HasSubstr(":6: SWOF: table 2: row 2: the capillary pressure must not increase"));
    EXPECT_THAT(error("TABDIMS\n 2 /\nSWOF\n" + kTable1 + " 0.1 0 0.9 5\n 0.5 1* 0.3 1 /\n"),
                HasSubstr(":6: SWOF: table 2: row 2: a defaulted item (n*)"));
    EXPECT_THAT(error("TABDIMS\n 2 /\nSWOF\n" + kTable1 + " 0.1 0 0.9\n"),
                HasSubstr(":6: SWOF: table 2: the file ends before the '/' that closes the table"));
    EXPECT_THAT(error("TABDIMS\n 2 /\nSWOF\n" + kTable1 + " 0.1 0 0.9 /\n"),
                HasSubstr(":6: SWOF: table 2: 3 values; a row is 4"));
    // TABDIMS item 1: an integer 1..256, at TABDIMS's line; TABDIMS once.
    for (const char* n : {"0", "1.5", "257", "-2"}) {
        EXPECT_THAT(error(std::string("RUNSPEC\nTABDIMS\n ") + n + " /\nSWOF\n" + kTable1),
                    HasSubstr(":2: TABDIMS: item 1 (NTSFUN, the number of saturation tables) is '" +
                              std::string(n) + "'; it must be an integer 1..256"));
    }
    EXPECT_THAT(error("TABDIMS\n 1 /\nTABDIMS\n 1 /\nSWOF\n" + kTable1),
                HasSubstr(":3: TABDIMS: given twice"));
}

// relperm.swof reads one table: a file of several is refused with the key that reads them all.
TEST(SaturationTable, ReadSwofRefusesSeveralTablesPointingAtFluidEclipse) {
    const auto error = [](const std::string& text) {
        const TempFile f(text);
        return input_error_of([&] { read_swof(f.path(), {}); });
    };
    EXPECT_THAT(error("RUNSPEC\nTABDIMS\n 2 /\nPROPS\nSWOF\n" + kTable1 + kTable2),
                HasSubstr(":2: TABDIMS: item 1 says 2 saturation tables (several saturation "
                          "regions, SATNUM): relperm.swof reads one table; several saturation "
                          "tables need fluid.eclipse, which reads them all with SATNUM"));
    EXPECT_THAT(error("SWOF\n" + kTable1 + kTable2),
                HasSubstr(":4: SWOF: a second table (several saturation regions, SATNUM): "
                          "relperm.swof reads one table; several saturation tables need "
                          "fluid.eclipse"));
    const TempFile one("TABDIMS\n 1 /\nSWOF\n" + kTable1);
    EXPECT_EQ(read_swof(one.path(), {}), read_swof_tables(one.path(), {})[0]);
}

}  // namespace
}  // namespace heptane::grid
