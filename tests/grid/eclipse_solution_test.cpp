// An Eclipse deck's EQUIL as heptane's initial state (grid/eclipse_solution.hpp, design
// decision 78): the Egg model's record in SI, FIELD units and Eclipse's defaults, and what the
// two-phase model cannot take refused at the file's line.
#include "grid/eclipse_solution.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

constexpr FluidUnits kMetric{units::kBar, 1.0, 1.0};

TEST(EclipseSolution, TheEggModelsEquil) {
    // SOLUTION / EQUIL 4000 400 5000 0 /, RUNSPEC METRIC: items 5 to 9 defaulted.
    const std::vector<Equilibration> all =
        read_eclipse_equil(test::source_path("inputs/data/egg/Egg_Model_ECL.DATA"), {});
    ASSERT_EQ(all.size(), 1u);  // no EQLDIMS: one region
    const Equilibration& e = all[0];
    EXPECT_EQ(e.datum_depth, 4000.0);
    EXPECT_EQ(e.datum_pressure, 400.0 * units::kBar);
    EXPECT_EQ(e.water_oil_contact, 5000.0);
    EXPECT_EQ(e.contact_capillary_pressure, 0.0);
    EXPECT_EQ(e.gas_oil_contact, 0.0);
    EXPECT_EQ(e.sublayers, 10);  // Eclipse's default N = -5: 2 |N| sub-layers
    EXPECT_THAT(e.where, HasSubstr("Egg_Model_ECL.DATA:139: EQUIL: "));
}

TEST(EclipseSolution, FieldUnitsTheDecksFallbackAndTheAccuracyItem) {
    const TempFile field("RUNSPEC\nFIELD\nSOLUTION\nEQUIL\n 8400 4800 8450 2.5 8300 0 0 0 0 /\n");
    const Equilibration f = read_eclipse_equil(field.path(), kMetric).at(0);
    EXPECT_DOUBLE_EQ(f.datum_depth, 8400.0 * units::kFoot);
    EXPECT_DOUBLE_EQ(f.datum_pressure, 4800.0 * units::kPsi);
    EXPECT_DOUBLE_EQ(f.water_oil_contact, 8450.0 * units::kFoot);
    EXPECT_DOUBLE_EQ(f.contact_capillary_pressure, 2.5 * units::kPsi);
    EXPECT_DOUBLE_EQ(f.gas_oil_contact, 8300.0 * units::kFoot);
    EXPECT_EQ(f.sublayers, 1);  // N = 0: the cell-centre rule
    // Without RUNSPEC units: the deck's; N = -20 is 40 sub-layers; 1* defaults an item.
    const TempFile bare("EQUIL\n 1* 250 2100 1* 1* 1* 1* 1* -20 /\n");
    const Equilibration b = read_eclipse_equil(bare.path(), kMetric).at(0);
    EXPECT_EQ(b.datum_depth, 0.0);
    EXPECT_EQ(b.datum_pressure, 250.0 * units::kBar);
    EXPECT_EQ(b.water_oil_contact, 2100.0);
    EXPECT_EQ(b.sublayers, 40);
    const TempFile lab("LAB\nEQUIL\n 100 2 150 /\n");
    EXPECT_DOUBLE_EQ(read_eclipse_equil(lab.path(), kMetric).at(0).water_oil_contact, 1.5);  // cm
}

TEST(EclipseSolution, EqldimsGivesARecordPerEquilibrationRegion) {
    // Design decision 92: EQLDIMS item 1 records, region 1 first, each read by the same rules.
    const TempFile f(
        "RUNSPEC\nFIELD\nEQLDIMS\n 3 100 20 1 1 /\nSOLUTION\nEQUIL\n"
        " 8400 4800 8450 0 /\n"
        " 8400 4700 8500 1.5 1* 1* 0 0 0 /\n"
        "\n 8600 4900 8550 /\n");
    const std::vector<Equilibration> e = read_eclipse_equil(f.path(), kMetric);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_DOUBLE_EQ(e[0].datum_pressure, 4800.0 * units::kPsi);
    EXPECT_DOUBLE_EQ(e[1].datum_pressure, 4700.0 * units::kPsi);
    EXPECT_DOUBLE_EQ(e[1].water_oil_contact, 8500.0 * units::kFoot);
    EXPECT_DOUBLE_EQ(e[1].contact_capillary_pressure, 1.5 * units::kPsi);
    EXPECT_EQ(e[1].sublayers, 1);
    EXPECT_DOUBLE_EQ(e[2].datum_depth, 8600.0 * units::kFoot);
    EXPECT_EQ(e[2].sublayers, 10);
    EXPECT_THAT(e[0].where, HasSubstr(":6: EQUIL: record 1: "));
    EXPECT_THAT(e[1].where, HasSubstr(":8: EQUIL: record 2: "));
    EXPECT_THAT(e[2].where, HasSubstr(":10: EQUIL: record 3: "));
    const auto error = [](const std::string& text) {
        const TempFile g(text);
        return input_error_of([&] { read_eclipse_equil(g.path(), kMetric); });
    };
    EXPECT_THAT(error("EQLDIMS\n 2 /\nEQUIL\n 2000 200 2100 /\nSUMMARY\n"),
                HasSubstr(":5: EQUIL: 1 record before 'SUMMARY'; EQLDIMS item 1 says 2 (each "
                          "record ends with its own '/')"));
    EXPECT_THAT(error("EQLDIMS\n 2 /\nEQUIL\n 2000 200 2100 /\n"),
                HasSubstr(":3: EQUIL: 1 record and the file ends; EQLDIMS item 1 says 2"));
    EXPECT_THAT(error("EQLDIMS\n 2 /\nEQUIL\n 2000 200 2100 /\n 2000 200 2100 /\n 1 2 3 /\n"),
                HasSubstr(":6: EQUIL: a record after the last one: EQLDIMS item 1 says 2"));
    EXPECT_THAT(error("EQLDIMS\n 2 /\nEQUIL\n 2000 200 2100 /\n 2000 -1 2100 /\n"),
                HasSubstr(":5: EQUIL: record 2: item 2, the pressure at the datum"));
    EXPECT_THAT(error("EQLDIMS\n 0 /\nEQUIL\n 2000 200 2100 /\n"),
                HasSubstr(":1: EQLDIMS: item 1 (NTEQUL, the number of equilibration regions) is "
                          "'0'; it must be an integer 1..1000"));
    EXPECT_THAT(error("EQLDIMS\n 1* /\nEQUIL\n 2000 200 2100 /\n 2000 200 2100 /\n"),
                HasSubstr("EQLDIMS item 1 is 1 (defaulted)"));
}

TEST(EclipseSolution, WhatTheModelCannotTakeIsRefusedAtItsLine) {
    const auto error = [](const std::string& record) {
        const TempFile f("SOLUTION\n\nEQUIL\n " + record + " /\n");
        return input_error_of([&] { read_eclipse_equil(f.path(), kMetric); });
    };
    EXPECT_THAT(error("2000 200 2100 0 /\n 2000 210 2100 0"),
                HasSubstr(":5: EQUIL: a record after the last one: EQLDIMS item 1 is 1 (the "
                          "default: the file has no EQLDIMS); give EQLDIMS the number of records"));
    EXPECT_THAT(error("2000 1* 2100"), HasSubstr(":3: EQUIL: item 2, the pressure at the datum"));
    EXPECT_THAT(error("2000 -5 2100"), HasSubstr(":3: EQUIL: item 2, the pressure at the datum"));
    EXPECT_THAT(error("2000 200 2100 0 1* 1* 1"),
                HasSubstr(":3: EQUIL: item 7 (the live-oil initialisation) must be 0"));
    EXPECT_THAT(error("2000 200 2100 0 1* 1* 0 1"),
                HasSubstr(":3: EQUIL: item 8 (the wet-gas initialisation) must be 0"));
    for (const char* n : {"1", "-21", "-2.5"}) {
        EXPECT_THAT(error(std::string("2000 200 2100 0 1* 1* 0 0 ") + n),
                    HasSubstr(":3: EQUIL: item 9 (the fluid-in-place accuracy N) must be an "
                              "integer in [-20, 0]"))
            << n;
    }
    EXPECT_THAT(error("2000 200 2100 0 1* 1* 0 0 0 1"),
                HasSubstr(":3: EQUIL: item 10 (a compositional or humid-gas option) must be "
                          "defaulted"));
    EXPECT_THAT(error("2000 200 2100 0 1* 1* 0 0 0 1* 1* 1* 7"),
                HasSubstr(":3: EQUIL: more items than the keyword has"));
    EXPECT_THAT(error("2000 200 2100 /\nEQUIL\n 2000 200 2100"),
                HasSubstr(":5: EQUIL: given twice"));
    const TempFile none("PROPS\nROCK\n 400 0 /\n");
    EXPECT_THAT(input_error_of([&] { read_eclipse_equil(none.path(), kMetric); }),
                HasSubstr(": no EQUIL (initial.eclipse reads"));
    const TempFile open("EQUIL\n 2000 200 2100\n");
    EXPECT_THAT(input_error_of([&] { read_eclipse_equil(open.path(), kMetric); }),
                HasSubstr(":1: EQUIL: the file ends before the '/'"));
}

}  // namespace
}  // namespace heptane::grid
