// Tabulated relative permeabilities (grid/saturation_table.hpp, design decision 74): the
// interpolation and its derivative by hand, a dense table of Corey's law against the law, the
// table's checks, and Eclipse's SWOF read from the Egg model's deck (its own table) and refused
// where heptane's model cannot take it (SPE9's capillary pressure).
#include "grid/saturation_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"

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
    rows[6][1] = 1.2;
    EXPECT_EQ(relperm_table_error(rows), "row 7: the saturation, krw and kro must be in [0, 1]");
    rows = kRows;
    rows[0][2] = 0.0;
    EXPECT_EQ(relperm_table_error(rows), "row 1: kro must be > 0 at the first row");
    EXPECT_THROW(relperm_table(rows), std::invalid_argument);
}

TEST(SaturationTable, SwofOfTheEggModelsDeck) {
    const std::vector<RelPermRow> rows =
        read_swof(test::source_path("inputs/data/egg/Egg_Model_ECL.DATA"));
    ASSERT_EQ(rows.size(), 16u);
    EXPECT_EQ(rows[0], (RelPermRow{0.1, 0.0, 0.8}));
    EXPECT_EQ(rows[2], (RelPermRow{0.25, 2.7310e-04, 5.8082e-01}));
    EXPECT_EQ(rows[15], (RelPermRow{0.9, 7.4939e-01, 0.0}));
}

TEST(SaturationTable, SwofErrorsNameTheFileAndLine) {
    const auto error = [](const std::string& text) {
        const TempFile f(text);
        return input_error_of([&] { read_swof(f.path()); });
    };
    EXPECT_THAT(input_error_of([] { read_swof(test::source_path("inputs/data/spe9/SPE9.DATA")); }),
                HasSubstr("SWOF: row 1: the capillary pressure Pcow is 400"));
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

}  // namespace
}  // namespace heptane::grid
