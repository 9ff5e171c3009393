// An Eclipse deck's PROPS section as heptane's two-phase fluid (grid/eclipse_props.hpp, design
// decisions 75, 84): the Egg model's DENSITY, PVCDO, PVTW, ROCK and SWOF in SI, FIELD units,
// viscosibilities, SPE10 model 2's PVDO, the SWOF tables of several saturation regions, and
// what the model cannot take refused at the file's line.
#include "grid/eclipse_props.hpp"

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

constexpr FluidUnits kMetric{units::kBar, 1.0};

TEST(EclipseProps, TheEggModelsFluid) {
    TwoPhaseParams start;
    start.gravity = 0.0;  // kept
    const TwoPhaseParams p =
        read_eclipse_fluid(test::source_path("inputs/data/egg/Egg_Model_ECL.DATA"), {}, start);
    EXPECT_EQ(p.oil.density, 900.0);  // DENSITY 900 1000 1; RUNSPEC METRIC
    EXPECT_EQ(p.water.density, 1000.0);
    EXPECT_EQ(p.oil.viscosity, 5.0 * units::kCentiPoise);  // PVCDO 400 1 1e-5 5 0
    EXPECT_EQ(p.oil.compressibility, 1.0e-5 / units::kBar);
    EXPECT_EQ(p.water.viscosity, 1.0 * units::kCentiPoise);  // PVTW 400 1 1e-5 1 0
    EXPECT_EQ(p.water.compressibility, 1.0e-5 / units::kBar);
    EXPECT_EQ(p.reference_pressure, 400.0 * units::kBar);  // ROCK 400 0
    EXPECT_EQ(p.rock_compressibility, 0.0);
    EXPECT_EQ(p.relperm.table.rows, 16);  // its SWOF
    EXPECT_EQ(p.relperm.table.kro[0], 0.8);
    EXPECT_EQ(p.gravity, 0.0);
}

const std::string kSwof = "SWOF\n 0.2 0 1 3\n 0.8 1 0 0 /\n";  // Pc 3 units at Sw 0.2

std::string props(const std::string& pvcdo, const std::string& pvtw = "6000 1 3e-6 0.3 0",
                  const std::string& rock = "6000 1e-6") {
    return "PROPS\nDENSITY\n 53 64 0.05 /\nPVCDO\n " + pvcdo + " /\nPVTW\n " + pvtw +
           " /\nROCK\n " + rock + " /\n" + kSwof;
}

TEST(EclipseProps, FieldUnitsAndTheDecksFallback) {
    const TempFile field("RUNSPEC\nFIELD\nGRID\n" + props("6000 1 5e-6 3 0"));
    const TwoPhaseParams p = read_eclipse_fluid(field.path(), kMetric);
    EXPECT_DOUBLE_EQ(p.oil.density, 53.0 * units::kPoundPerCubicFoot);
    EXPECT_DOUBLE_EQ(p.oil.compressibility, 5e-6 / units::kPsi);
    EXPECT_DOUBLE_EQ(p.reference_pressure, 6000.0 * units::kPsi);
    EXPECT_DOUBLE_EQ(p.rock_compressibility, 1e-6 / units::kPsi);
    EXPECT_TRUE(p.relperm.table.capillary);  // the SWOF's Pc in psi (design decision 76)
    EXPECT_EQ(p.relperm.table.pcow[0], 3.0 * units::kPsi);
    // Without RUNSPEC units: the deck's (here metric).
    const TempFile bare(props("6000 1 5e-6 3 0"));
    const TwoPhaseParams b = read_eclipse_fluid(bare.path(), kMetric);
    EXPECT_DOUBLE_EQ(b.reference_pressure, 6000.0 * units::kBar);
    EXPECT_EQ(b.relperm.table.pcow[0], 3.0 * units::kBar);
}

// Design decision 81: B at the reference pressure is the phase's own (DENSITY the surface
// densities); defaulted (1*) it is 1, as Eclipse's default.
TEST(EclipseProps, FormationVolumeFactorsAreTheFilesOwn) {
    const TempFile f(props("6000 1.25 5e-6 3 0", "6000 1.01 3e-6 0.3 0"));
    const TwoPhaseParams p = read_eclipse_fluid(f.path(), kMetric);
    EXPECT_EQ(p.oil.volume_factor, 1.25);
    EXPECT_EQ(p.water.volume_factor, 1.01);
    EXPECT_EQ(p.oil.density, 53.0);  // the surface density
    EXPECT_EQ(reservoir_density(p.oil), 53.0 / 1.25);
    const TempFile defaulted(props("6000 1* 5e-6 3 0"));
    EXPECT_EQ(read_eclipse_fluid(defaulted.path(), kMetric).oil.volume_factor, 1.0);
}

// Design decision 84: PVCDO's and PVTW's item 5, the viscosibility, in 1/pressure.
TEST(EclipseProps, ViscosibilitiesAreTheFilesOwn) {
    const TempFile f("RUNSPEC\nFIELD\n" + props("6000 1 5e-6 3 2e-6", "6000 1.01 3e-6 0.3 -1e-6"));
    const TwoPhaseParams p = read_eclipse_fluid(f.path(), kMetric);
    EXPECT_DOUBLE_EQ(p.oil.viscosibility, 2e-6 / units::kPsi);
    EXPECT_DOUBLE_EQ(p.water.viscosibility, -1e-6 / units::kPsi);
    EXPECT_EQ(p.oil_pvt.rows, 0);
}

/// The PROPS section with SPE10 model 2's PVDO (its data file's, FIELD units) for the oil.
std::string pvdo_props(const std::string& pvdo) {
    return "RUNSPEC\nFIELD\nPROPS\nDENSITY\n 53 64 0.0624 /\nPVDO\n" + pvdo +
           "/\nPVTW\n 6000 1.01 3e-6 0.3 0 /\nROCK\n 6000 1e-6 /\n" + kSwof;
}
const std::string kSpe10Pvdo = " 300 1.05 2.85\n 800 1.02 2.99\n 8000 1.01 3\n";

TEST(EclipseProps, PvdoTabulatesTheOil) {
    const TempFile f(pvdo_props(kSpe10Pvdo));
    TwoPhaseParams start;
    start.oil.volume_factor = 2.0;  // replaced: the table gives the oil
    const TwoPhaseParams p = read_eclipse_fluid(f.path(), kMetric, start);
    ASSERT_EQ(p.oil_pvt.rows, 3);
    EXPECT_DOUBLE_EQ(p.oil_pvt.p[1], 800.0 * units::kPsi);
    EXPECT_EQ(p.oil_pvt.inv_b[2], 1.0 / 1.01);
    EXPECT_EQ(p.oil_pvt.inv_bmu[0], 1.0 / (1.05 * (2.85 * units::kCentiPoise)));
    EXPECT_DOUBLE_EQ(p.oil.density, 53.0 * units::kPoundPerCubicFoot);
    EXPECT_EQ(p.oil.volume_factor, 1.0);
    // At a row the table's own values; B at the reference pressure (6000 psi) between rows 2, 3.
    EXPECT_DOUBLE_EQ(phase_viscosity(p, kOil, 800.0 * units::kPsi), 2.99 * units::kCentiPoise);
    const double inv_b = 1.0 / 1.02 + (1.0 / 1.01 - 1.0 / 1.02) * (5200.0 / 7200.0);
    EXPECT_DOUBLE_EQ(reference_volume_factor(p, kOil), 1.0 / inv_b);
    EXPECT_DOUBLE_EQ(p.water.volume_factor, 1.01);
    EXPECT_EQ(reference_volume_factor(p, kWater), 1.01);
}

TEST(EclipseProps, APvdoTheModelCannotTakeIsRefusedAtItsLine) {
    const auto error = [](const std::string& text) {
        const TempFile f(text);
        return input_error_of([&] { read_eclipse_fluid(f.path(), kMetric); });
    };
    EXPECT_THAT(error(pvdo_props(" 300 1.05 2.85\n 800 1.06 2.99\n")),
                HasSubstr(":6: PVDO: row 2: the formation volume factor must decrease"));
    EXPECT_THAT(error(pvdo_props(" 300 1.05 2.85\n 300 1.02 2.99\n")),
                HasSubstr(":6: PVDO: row 2: the pressure must increase"));
    EXPECT_THAT(error(pvdo_props(" 300 1.05 2.85\n")),
                HasSubstr(":6: PVDO: 1 rows; a table has 2"));
    EXPECT_THAT(error(pvdo_props(" 300 1.05 2.85\n 800 1.02\n")),
                HasSubstr(":6: PVDO: 5 values; a row is 3"));
    EXPECT_THAT(error(pvdo_props(" 300 1.05 2.85\n 800 1* 2.99\n")),
                HasSubstr(":6: PVDO: row 2: a defaulted item (n*)"));
    EXPECT_THAT(error(pvdo_props(" 300 1.05 0\n 800 1.02 2.99\n")),
                HasSubstr(":6: PVDO: row 1: the viscosity must be > 0"));
    EXPECT_THAT(error(pvdo_props(kSpe10Pvdo + "/\n" + kSpe10Pvdo)),
                HasSubstr(":11: PVDO: a second region's record (PVTNUM) is not supported"));
    const TempFile both(props("6000 1 5e-6 3 0") + "PVDO\n" + kSpe10Pvdo + "/\n");
    EXPECT_THAT(input_error_of([&] { read_eclipse_fluid(both.path(), kMetric); }),
                HasSubstr(":13: PVDO: the oil is given twice, here and at " + both.path() +
                          ":4: PVCDO: give one of them"));
}

TEST(EclipseProps, WhatTheModelCannotTakeIsRefusedAtItsLine) {
    const auto error = [](const std::string& text) {
        const TempFile f(text);
        return input_error_of([&] { read_eclipse_fluid(f.path(), kMetric); });
    };
    EXPECT_THAT(error(props("6000 0 5e-6 3 0")),
                HasSubstr(":4: PVCDO: the formation volume factor must be > 0"));
    EXPECT_THAT(error(props("6000 1 5e-6 3 0", "6000 -1.01 3e-6 0.3 0")),
                HasSubstr(":6: PVTW: the formation volume factor must be > 0"));
    EXPECT_THAT(error(props("6000 1 5e-6 3 0", "5000 1 3e-6 0.3 0")),
                HasSubstr(":6: PVTW: the reference pressure 5000 differs from ROCK's 6000"));
    EXPECT_THAT(error(props("6000 1 5e-6 3 0 /\n 6000 1 5e-6 3 0")),
                HasSubstr(":6: PVCDO: a second region's record (PVTNUM) is not supported"));
    EXPECT_THAT(error(props("6000 1 5e-6 3 0") + "ROCK\n 6000 0 /\n"),
                HasSubstr(":13: ROCK: given twice"));
    EXPECT_THAT(error("PVTW\n 6000 1 3e-6 0.3 0 /\n"), HasSubstr(": no DENSITY (fluid.eclipse"));
    EXPECT_THAT(input_error_of([] {
                    read_eclipse_fluid(test::source_path("inputs/data/spe9/SPE9.DATA"), kMetric);
                }),
                HasSubstr("PVTO: live oil (dissolved gas) is not supported"));
    EXPECT_THAT(error(props("6000 1 5e-6 0 0")), HasSubstr("PVCDO: the viscosity must be > 0"));
}

// Every other PROPS keyword is accounted for (design decision 96): the end-point arrays and
// their edits are grid.eclipse's (no note), gas tables, output controls, an INCLUDE and
// anything else are passed over with a note at their line, SWFN (the saturation functions
// given another way) is refused; keywords of other sections are not PROPS'.
TEST(EclipseProps, EveryOtherPropsKeywordIsNotedOrRefused) {
    const TempFile f("RUNSPEC\nTABDIMS\n 1 /\nGRID\nPORO\n 8*0.2 /\n" + props("6000 1 5e-6 3 0") +
                     "SWL\n 8*0.1 /\nEQUALS\n SWCR 0.2 /\n/\n"  // lines 19-23: grid.eclipse's
                     "SGOF\n 0 0 1 0\n 0.8 1 0 0 /\n"           // line 24
                     "PVDG\n 1000 1 0.01\n 5000 0.2 0.02 /\n"   // line 27
                     "RPTPROPS\n 'SWOF' /\n"                    // line 30
                     "INCLUDE\n 'more_props.inc' /\n"           // line 32
                     "STONE1\n"                                 // line 34
                     "SOLUTION\nRPTSOL\n/\n");                  // not PROPS
    std::vector<std::string> notes;
    read_eclipse_fluid(f.path(), kMetric, {}, nullptr, &notes);
    ASSERT_EQ(notes.size(), 5u);
    EXPECT_THAT(notes[0], HasSubstr(":24: SGOF: passed over (gas-phase data: heptane's model is "
                                    "oil-water)"));
    EXPECT_THAT(notes[1], HasSubstr(":27: PVDG: passed over (gas-phase data"));
    EXPECT_THAT(notes[2], HasSubstr(":30: RPTPROPS: passed over (an output control"));
    EXPECT_THAT(notes[3], HasSubstr(":32: INCLUDE: passed over (not followed: fluid.eclipse "
                                    "reads this file alone)"));
    EXPECT_THAT(notes[4], HasSubstr(":34: STONE1: passed over (not read by fluid.eclipse)"));
    // An include without sections is all PROPS.
    const TempFile inc(props("6000 1 5e-6 3 0").substr(6) + "SOF3\n 0 0 0\n 0.8 1 1 /\n");
    EXPECT_THAT(input_error_of([&] { read_eclipse_fluid(inc.path(), kMetric); }),
                HasSubstr(":12: SOF3: not supported: heptane reads the oil-water saturation "
                          "functions from SWOF"));
    // What a deck holds before its first section (the Egg model's NOECHO) is not PROPS'.
    const TempFile preamble("NOECHO\nRUNSPEC\nGRID\n" + props("6000 1 5e-6 3 0") + "STONE1\n");
    notes.clear();
    read_eclipse_fluid(preamble.path(), kMetric, {}, nullptr, &notes);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_THAT(notes[0], HasSubstr(":16: STONE1: passed over"));
}

// PPCWMAX (design decision 99): one record a saturation table, the largest Pc SWATINIT may
// scale it to (the file's pressure unit; defaulted: no cap), item 2 NO or defaulted; YES, a
// record short, a cap <= 0 or another word are errors at the record's line.
TEST(EclipseProps, PpcwmaxCapsEachTablesSwatinitPc) {
    const std::string second = " 0.1 0 0.9 5\n 0.9 0.8 0 0 /\n";
    const auto deck = [&](const std::string& records) {
        return "RUNSPEC\nFIELD\nTABDIMS\n 2 /\n" + props("6000 1 5e-6 3 0") + second + "PPCWMAX\n" +
               records;  // PPCWMAX at line 19
    };
    const TempFile f(deck(" 5 NO /\n 1* /\n"));
    std::vector<RelPerm> more;
    std::vector<std::string> notes;
    const TwoPhaseParams p = read_eclipse_fluid(f.path(), kMetric, {}, &more, &notes);
    EXPECT_EQ(p.relperm.swatinit_pc_max, 5.0 * units::kPsi);
    ASSERT_EQ(more.size(), 1u);
    EXPECT_TRUE(std::isinf(more[0].swatinit_pc_max));
    EXPECT_TRUE(notes.empty());                                     // read, not noted
    const TempFile plain(deck("").substr(0, deck("").size() - 8));  // no PPCWMAX: no caps
    EXPECT_TRUE(
        std::isinf(read_eclipse_fluid(plain.path(), kMetric, {}, &more).relperm.swatinit_pc_max));
    const auto error = [&](const std::string& records) {
        const TempFile bad(deck(records));
        return input_error_of([&] { read_eclipse_fluid(bad.path(), kMetric, {}, &more); });
    };
    EXPECT_THAT(error(" 5 YES /\n 1* /\n"),
                HasSubstr(":20: PPCWMAX: item 2 YES (the connate water moved to hold SWATINIT) "
                          "is not supported"));
    EXPECT_THAT(error(" 5 /\n"), HasSubstr(":19: PPCWMAX: 1 of the 2 records the saturation "
                                           "tables need"));
    EXPECT_THAT(error(" 5 /\n -1 /\n"),
                HasSubstr(":21: PPCWMAX: item 1 (the largest Pc) must be a number > 0"));
    EXPECT_THAT(error(" 5 MAYBE /\n 1* /\n"), HasSubstr(":20: PPCWMAX: item 2 must be YES or NO"));
}

// Saturation regions: TABDIMS 2 gives two SWOF tables; region 1's is params.relperm, region
// 2's comes back through more_regions (each Pc in the file's unit); without more_regions the
// file is refused at TABDIMS's line.
TEST(EclipseProps, SaturationRegionsTablesComeBackThroughMoreRegions) {
    const std::string second = " 0.1 0 0.9 5\n 0.9 0.8 0 0 /\n";
    const TempFile f("RUNSPEC\nFIELD\nTABDIMS\n 2 /\n" + props("6000 1 5e-6 3 0") + second);
    std::vector<RelPerm> more(3);  // assigned, not appended to
    const TwoPhaseParams p = read_eclipse_fluid(f.path(), kMetric, {}, &more);
    EXPECT_EQ(p.relperm.table.rows, 2);
    EXPECT_EQ(p.relperm.table.pcow[0], 3.0 * units::kPsi);
    ASSERT_EQ(more.size(), 1u);
    EXPECT_EQ(more[0].table.rows, 2);
    EXPECT_EQ(more[0].table.sw[0], 0.1);
    EXPECT_EQ(more[0].table.kro[0], 0.9);
    EXPECT_EQ(more[0].table.krw[1], 0.8);
    EXPECT_EQ(more[0].table.pcow[0], 5.0 * units::kPsi);
    EXPECT_TRUE(more[0].table.capillary);
    EXPECT_THAT(input_error_of([&] { read_eclipse_fluid(f.path(), kMetric); }),
                HasSubstr(":3: TABDIMS: item 1 says 2 saturation tables (several saturation "
                          "regions, SATNUM): not supported here: give one table"));
    // One table: more_regions comes back empty.
    const TempFile one(props("6000 1 5e-6 3 0"));
    read_eclipse_fluid(one.path(), kMetric, {}, &more);
    EXPECT_TRUE(more.empty());
    // A second table TABDIMS does not announce is refused with or without more_regions.
    const TempFile extra(props("6000 1 5e-6 3 0") + second);
    EXPECT_THAT(input_error_of([&] { read_eclipse_fluid(extra.path(), kMetric, {}, &more); }),
                HasSubstr(":13: SWOF: a table after the last one: TABDIMS item 1 is 1"));
    EXPECT_THAT(input_error_of([&] { read_eclipse_fluid(extra.path(), kMetric); }),
                HasSubstr(":13: SWOF: a second table (several saturation regions, SATNUM): not "
                          "supported here: give one table"));
}

}  // namespace
}  // namespace heptane::grid
