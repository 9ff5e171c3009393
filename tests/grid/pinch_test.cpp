// PINCH's pinch-out connections (grid/eclipse_model.cpp, design decision 69): columns whose
// middle layers are inactive, read as grid.eclipse files, against transmissibilities worked out
// by hand, and the outcomes opm-tests' pinch cases record (OPM/opm-tests pinch/PINCH.md: models
// T1A-T1D and T3A-T3C, "non-zero NNC" yes or no for each PINCH record); the reader's errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "core/base/units.hpp"
#include "grid/corner_point.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/transmissibility.hpp"

namespace heptane::grid {
namespace {

using test::input_error_of;
using test::TempFile;
using ::testing::HasSubstr;

struct Column {
    Grid3D grid;
    RockFields rock;
    Transmissibilities t;
};

/// A 1 x 1 x nz column of the files' `text`, its rock (the files give every field) and its
/// transmissibilities.
Column column(const std::string& text, int nz) {
    const TempFile file(text);
    Column c;
    c.grid.nx = 1, c.grid.ny = 1, c.grid.nz = nz;
    EclipseGridSpec spec;
    spec.files = {file.path()};
    const EclipseGridData d = read_grid_files(c.grid, spec);
    const auto n = static_cast<std::size_t>(nz);
    c.rock.kx.assign(n, 1.0), c.rock.ky = c.rock.kz = c.rock.kx, c.rock.porosity.assign(n, 0.2);
    apply_eclipse_rock(c.grid, spec, d, false, false, c.rock);
    c.t = tpfa_transmissibilities(c.grid, c.rock);
    return c;
}

// opm-tests' model T1A: 100 x 100 m cells 2, 0.25, 0.25 and 2.5 m thick, porosity 0.25, 0.05,
// 0.05, 0.25 (pore volumes 5000, 125, 125, 6250 m^3), PERMZ 100 mD; MINPV 500 makes the
// middle layers inactive. `edits` go before MINPV, `pinch` after it.
std::string t1(const std::string& edits, const std::string& pinch) {
    return "DX\n 4*100 /\nDY\n 4*100 /\nDZ\n 2.0 0.25 0.25 2.5 /\nTOPS\n 1000 /\n"
           "PORO\n 0.25 0.05 0.05 0.25 /\nPERMX\n 4*100 /\nPERMY\n 4*100 /\nPERMZ\n 4*100 /\n" +
           edits + "MINPV\n 500 /\n" + pinch;
}

constexpr double kArea = 100.0 * 100.0;

/// T1A's connection by hand: the upper cell's half 1 m to its bottom face, the lower cell's
/// 0.25 + 0.25 + 1.25 m from its centre to that face (OPM's rule: the connection's face is the
/// upper cell's bottom face), both PERMZ 100 mD.
double t1_connection() {
    const double k = 100.0 * units::kMilliDarcy;
    const double ta = k * kArea / 1.0, tb = k * kArea / 1.75;
    return ta * tb / (ta + tb);
}

/// The one connection of a column, or fails.
NncTransmissibility only(const Column& c) {
    EXPECT_EQ(c.t.nnc.size(), 1u);
    return c.t.nnc.empty() ? NncTransmissibility{} : c.t.nnc[0];
}

TEST(Pinch, WithoutPinchMinpvLeavesTheLayersApart) {  // T1A_NOPINCH: no connection
    const Column c = column(t1("", ""), 4);
    EXPECT_EQ(c.rock.active, (std::vector<std::uint8_t>{1, 0, 0, 1}));
    EXPECT_TRUE(c.t.nnc.empty());
    for (index_t m = 0; m < 3; ++m) EXPECT_EQ(c.t.tz[m], 0.0) << m;
}

TEST(Pinch, GapJoinsTheCellsAboveAndBelowTheMinpvLayers) {  // T1A_GAP: yes
    const Column c = column(t1("", "PINCH\n 0.001 GAP 1E+20 TOPBOT TOP /\n"), 4);
    const NncTransmissibility n = only(c);
    EXPECT_EQ(n.a, 0);
    EXPECT_EQ(n.b, 3);
    EXPECT_NEAR(n.t, t1_connection(), 1e-14 * t1_connection());
    EXPECT_EQ(non_neighbour_connections(c.grid, c.rock), 1u);
    // The defaults are the same record (0.001 GAP 1E+20 TOPBOT TOP).
    EXPECT_EQ(only(column(t1("", "PINCH\n/\n"), 4)).t, n.t);
    EXPECT_EQ(only(column(t1("", "PINCH\n 5* /\n"), 4)).t, n.t);
    EXPECT_EQ(only(column(t1("", "PINCH\n 1* 'GAP' 2* 'TOP' /\n"), 4)).t, n.t);
}

TEST(Pinch, TopbotTakesTheEndCellsAllTakesEveryFaceInSeries) {
    const std::string zero = "EQUALS\n PERMZ 0 1 1 1 1 2 3 /\n/\n";  // T1B: PERMZ 0 between
    // T1B_GAP: yes, TOPBOT reads the end cells alone; T1B1_GAP (ALL): no.
    EXPECT_EQ(only(column(t1(zero, "PINCH\n 0.001 GAP 1E+20 TOPBOT TOP /\n"), 4)).t,
              only(column(t1("", "PINCH\n/\n"), 4)).t);
    EXPECT_TRUE(column(t1(zero, "PINCH\n 0.001 GAP 1E+20 ALL TOP /\n"), 4).t.nnc.empty());
    // ALL on T1A: the three faces' resistances (1 + 0.125, 0.125 + 0.125, 0.125 + 1.25 m over
    // k A) add up to TOPBOT's 2.75 m: equal where the bypassed cells' PERMZ is the end cells'.
    const double all = only(column(t1("", "PINCH\n 1* 1* 1* ALL /\n"), 4)).t;
    EXPECT_NEAR(all, t1_connection(), 1e-14 * all);
    // With PERMZ 50 mD between, the middle 0.5 m count twice.
    const double k = 100.0 * units::kMilliDarcy;
    const double half =
        only(column(t1("EQUALS\n PERMZ 50 1 1 1 1 2 3 /\n/\n", "PINCH\n 1* 1* 1* ALL /\n"), 4)).t;
    EXPECT_NEAR(half, k * kArea / 3.25, 1e-14 * half);
}

TEST(Pinch, MultzTopTakesTheEndCellsAllTheLeastFace) {
    const auto pinch = [](const char* item5) {
        return std::string("PINCH\n 0.001 GAP 1E+20 TOPBOT ") + item5 + " /\n";
    };
    const std::string between = "EQUALS\n MULTZ 0 1 1 1 1 2 3 /\n/\n";  // T1C
    // T1C1_GAP: yes (the barrier is between); T1C2_GAP: no; T1C3_GAP (ALL ALL): no.
    EXPECT_NEAR(only(column(t1(between, pinch("TOP")), 4)).t, t1_connection(),
                1e-14 * t1_connection());
    EXPECT_TRUE(column(t1(between, pinch("ALL")), 4).t.nnc.empty());
    EXPECT_TRUE(column(t1(between, "PINCH\n 0.001 GAP 1E+20 ALL ALL /\n"), 4).t.nnc.empty());
    // T1D1_GAP: MULTZ 0 on the upper cell: no.
    EXPECT_TRUE(column(t1("EQUALS\n MULTZ 0 1 1 1 1 1 1 /\n/\n", pinch("TOP")), 4).t.nnc.empty());
    // MULTZ 0.5 of the upper cell, MULTZ- 0.4 of the lower: TOP takes both (0.2), ALL the
    // least face (0.5 across the first face, 0.4 across the last).
    const std::string mults = "MULTZ\n 0.5 3*1 /\nMULTZ-\n 3*1 0.4 /\n";
    EXPECT_NEAR(only(column(t1(mults, pinch("TOP")), 4)).t, 0.2 * t1_connection(),
                1e-14 * t1_connection());
    EXPECT_NEAR(only(column(t1(mults, pinch("ALL")), 4)).t, 0.4 * t1_connection(),
                1e-14 * t1_connection());
}

TEST(Pinch, NogapTakesTheLayersTotalThickness) {
    // T1A_NOGAP (0.001) and T1A1_NOGAP (0.3): no, the two layers are 0.5 m together;
    // T1A2_NOGAP (0.6): yes.
    EXPECT_TRUE(column(t1("", "PINCH\n 0.001 NOGAP /\n"), 4).t.nnc.empty());
    EXPECT_TRUE(column(t1("", "PINCH\n 0.3 NOGAP /\n"), 4).t.nnc.empty());
    EXPECT_NEAR(only(column(t1("", "PINCH\n 0.6 NOGAP /\n"), 4)).t, t1_connection(),
                1e-14 * t1_connection());
    // T1B_NOGAP (PERMZ 0 between, 0.6): yes; T1B1_NOGAP (ALL): no.
    const std::string zero = "EQUALS\n PERMZ 0 1 1 1 1 2 3 /\n/\n";
    EXPECT_NEAR(only(column(t1(zero, "PINCH\n 0.6 NOGAP 1* TOPBOT /\n"), 4)).t, t1_connection(),
                1e-14 * t1_connection());
    EXPECT_TRUE(column(t1(zero, "PINCH\n 0.6 NOGAP 1* ALL /\n"), 4).t.nnc.empty());
}

// opm-tests' model T3A: 100 x 100 m cells 3, 0 and 2 m thick (the middle one collapsed: no
// pore volume), PERMZ 210, 0, 210 mD.
std::string t3(const std::string& edits, const std::string& pinch) {
    return "DX\n 3*100 /\nDY\n 3*100 /\nDZ\n 3 0 2 /\nTOPS\n 2000 /\nPORO\n 3*0.25 /\n"
           "PERMX\n 3*210 /\nPERMY\n 3*210 /\nPERMZ\n 210 0 210 /\n" +
           edits + pinch;
}

TEST(Pinch, ACollapsedLayerAddsNoResistance) {
    // T3A_NOPINCH: no; T3A1_GAP: yes, the halves 1.5 m and 1 m; T3A2_GAP (ALL): yes, the
    // same (a layer of no thickness adds nothing, whatever its PERMZ).
    EXPECT_TRUE(column(t3("", ""), 3).t.nnc.empty());
    const double k = 210.0 * units::kMilliDarcy;
    const double ta = k * kArea / 1.5, tb = k * kArea / 1.0, t = ta * tb / (ta + tb);
    const NncTransmissibility n = only(column(t3("", "PINCH\n/\n"), 3));
    EXPECT_EQ(n.b, 2);
    EXPECT_NEAR(n.t, t, 1e-14 * t);
    EXPECT_NEAR(only(column(t3("", "PINCH\n 3* ALL /\n"), 3)).t, t, 1e-14 * t);
    // T3B1_GAP (MULTZ 0 on the upper cell): no; T3C1_GAP (MULTZ 0 on the collapsed one,
    // TOPBOT ALL): no.
    EXPECT_TRUE(column(t3("MULTZ\n 0 2*1 /\n", "PINCH\n/\n"), 3).t.nnc.empty());
    EXPECT_TRUE(column(t3("MULTZ\n 1 0 1 /\n", "PINCH\n 4* ALL /\n"), 3).t.nnc.empty());
}

// Three 10 x 10 x 1 m layers, the middle one ACTNUM 0 (or `dz2` thick).
std::string three(const std::string& dz2, const std::string& more) {
    return "DX\n 3*10 /\nDY\n 3*10 /\nDZ\n 1 " + dz2 +
           " 1 /\nTOPS\n 0 /\nPORO\n 3*0.2 /\nPERMX\n 3*10 /\nPERMY\n 3*10 /\n"
           "PERMZ\n 3*10 /\nACTNUM\n 1 0 1 /\n" +
           more;
}

TEST(Pinch, AnActnumLayerIsBypassedOnlyWhereThin) {
    // 1 m thick: a barrier against a threshold of 0.5 m, bypassed against 1.5 m.
    EXPECT_TRUE(column(three("1", "PINCH\n 0.5 /\n"), 3).t.nnc.empty());
    const double k = 10.0 * units::kMilliDarcy;
    const double ta = k * 100.0 / 0.5, tb = k * 100.0 / 1.5;
    EXPECT_NEAR(only(column(three("1", "PINCH\n 1.5 /\n"), 3)).t, ta * tb / (ta + tb), 1e-14 * ta);
    // FIELD: the threshold is in feet (0.5 ft of cell against 1 ft), as the lengths are.
    EXPECT_EQ(column("RUNSPEC\nFIELD\nDIMENS\n 1 1 3 /\nGRID\n" + three("0.5", "PINCH\n 1 /\n"), 3)
                  .t.nnc.size(),
              1u);
    EXPECT_TRUE(
        column("RUNSPEC\nFIELD\nDIMENS\n 1 1 3 /\nGRID\n" + three("0.5", "PINCH\n 0.4 /\n"), 3)
            .t.nnc.empty());
}

TEST(Pinch, NoConnectionAtTheColumnsEndsOrAcrossAnActiveBarrier) {
    // Layers 1-2 or 3-4 inactive (MINPV): nothing above or below them to join.
    const std::string base =
        "DX\n 4*10 /\nDY\n 4*10 /\nDZ\n 4*1 /\nTOPS\n 0 /\nPERMX\n 4*10 /\n"
        "PERMY\n 4*10 /\nPERMZ\n 4*10 /\nMINPV\n 5 /\nPINCH\n/\n";
    EXPECT_TRUE(column(base + "PORO\n 0.01 0.01 0.2 0.2 /\n", 4).t.nnc.empty());
    EXPECT_TRUE(column(base + "PORO\n 0.2 0.2 0.01 0.01 /\n", 4).t.nnc.empty());
    // Two runs in one column: two connections; an active cell between them ends each.
    const Column c = column(
        "DX\n 5*10 /\nDY\n 5*10 /\nDZ\n 5*1 /\nTOPS\n 0 /\nPERMX\n 5*10 /\n"
        "PERMY\n 5*10 /\nPERMZ\n 5*10 /\nMINPV\n 5 /\nPINCH\n/\n"
        "PORO\n 0.2 0.01 0.2 0.01 0.2 /\n",
        5);
    ASSERT_EQ(c.t.nnc.size(), 2u);
    EXPECT_EQ(c.t.nnc[0].a, 0);
    EXPECT_EQ(c.t.nnc[0].b, 2);
    EXPECT_EQ(c.t.nnc[1].a, 2);
    EXPECT_EQ(c.t.nnc[1].b, 4);
}

TEST(Pinch, TheLargestEmptyGapBoundsTheVoidCrossed) {
    // Tops 0, 1.2, 1.5: 0.2 m of void above the thin inactive layer and 0.2 m below it.
    const std::string cells =
        "DX\n 3*10 /\nDY\n 3*10 /\nDZ\n 1 0.1 1 /\nTOPS\n 0 1.2 1.5 /\nPORO\n 3*0.2 /\n"
        "PERMX\n 3*10 /\nPERMY\n 3*10 /\nPERMZ\n 3*10 /\nACTNUM\n 1 0 1 /\n";
    EXPECT_TRUE(column(cells + "PINCH\n 0.5 GAP 0.3 /\n", 3).t.nnc.empty());
    // Within 0.5 m: joined; the lower cell's half runs from its centre (2 m) to the upper
    // cell's bottom (1 m).
    const double k = 10.0 * units::kMilliDarcy;
    const double ta = k * 100.0 / 0.5, tb = k * 100.0 / 1.0;
    EXPECT_NEAR(only(column(cells + "PINCH\n 0.5 GAP 0.5 /\n", 3)).t, ta * tb / (ta + tb),
                1e-14 * ta);
}

// opm-tests' model T2A (design decision 70): 100 x 100 m cells 2, 0.5 and 1.5 m thick, all
// active, 1 m of void between the second and the third (TOPS 0, 2, 3.5), PERMZ 100 mD.
TEST(Pinch, AVoidBetweenActiveLayersIsJoinedUpToTheLargestEmptyGap) {
    const std::string t2 =
        "DX\n 3*100 /\nDY\n 3*100 /\nDZ\n 2 0.5 1.5 /\nTOPS\n 0 2 3.5 /\nPORO\n 3*0.25 /\n"
        "PERMX\n 3*100 /\nPERMY\n 3*100 /\nPERMZ\n 3*100 /\n";
    // T2A_NOPINCH and T2A_GAP: joined, the lower half from 4.25 m to the upper cell's bottom
    // at 2.5 m; T2A1_GAP (item 3 0.9 m): not joined.
    const double k = 100.0 * units::kMilliDarcy;
    const double ta = k * kArea / 0.25, tb = k * kArea / 1.75, t = ta * tb / (ta + tb);
    for (const char* pinch : {"", "PINCH\n 0.001 GAP 1E+20 TOPBOT TOP /\n"}) {
        const Column c = column(t2 + pinch, 3);
        EXPECT_NEAR(c.t.tz[1], t, 1e-14 * t) << pinch;
        EXPECT_TRUE(c.t.nnc.empty());
    }
    EXPECT_EQ(column(t2 + "PINCH\n 0.001 GAP 0.9 TOPBOT TOP /\n", 3).t.tz[1], 0.0);
    // The stacked pair above it keeps the cells' own halves (1 m and 0.25 m).
    const double stacked = column(t2, 3).t.tz[0];
    const double t0 = (k * kArea / 1.0) * ta / (k * kArea / 1.0 + ta);
    EXPECT_NEAR(stacked, t0, 1e-14 * t0);
}

TEST(Pinch, RegionMultipliersAndEditNncTakeTheConnections) {
    const std::string regions = "MULTNUM\n 1 1 2 2 /\n";
    const auto t = [&](const std::string& after) {
        return only(column(t1(regions, "PINCH\n/\n" + after), 4)).t;
    };
    const double plain = t("");
    EXPECT_NEAR(t("MULTREGT\n 1 2 0.1 Z NNC /\n/\n"), 0.1 * plain, 1e-14 * plain);
    EXPECT_NEAR(t("MULTREGT\n 1 2 0.1 XYZ ALL /\n/\n"), 0.1 * plain, 1e-14 * plain);
    EXPECT_EQ(t("MULTREGT\n 1 2 0.1 XY ALL /\n/\n"), plain);   // not along z
    EXPECT_EQ(t("MULTREGT\n 1 2 0.1 Z NONNC /\n/\n"), plain);  // neighbours only
    EXPECT_NEAR(t("EDITNNC\n 1 1 1 1 1 4 0.5 /\n/\n"), 0.5 * plain, 1e-14 * plain);
}

// A corner-point column: layers 10-12, 12-12.1 (ACTNUM 0) and 12.1-14 m deep on sloping
// pillars (x shifts 1 m over 100 m of depth).
std::string sloping(double slope) {
    std::string s = "COORD\n";
    for (int pj = 0; pj < 2; ++pj) {
        for (int pi = 0; pi < 2; ++pi) {
            s += " " + std::to_string(10 * pi) + " " + std::to_string(10 * pj) + " 0 " +
                 std::to_string(10 * pi + 100 * slope) + " " + std::to_string(10 * pj) + " 100";
        }
    }
    s += " /\nZCORN\n 4*10 4*12 4*12 4*12.1 4*12.1 4*14 /\nPORO\n 3*0.2 /\n"
         "PERMX\n 3*10 /\nPERMY\n 3*10 /\nPERMZ\n 3*10 /\nACTNUM\n 1 0 1 /\nPINCH\n 0.5 /\n";
    return s;
}

TEST(Pinch, CornerPointCellsTakeTheUpperCellsBottomFace) {
    const Column flat = column(sloping(0.0), 3);
    // Vertical pillars: the box rule, the lower half from 13.05 m to 12 m.
    const double k = 10.0 * units::kMilliDarcy;
    const double ta = k * 100.0 / 1.0, tb = k * 100.0 / 1.05;
    EXPECT_NEAR(only(flat).t, ta * tb / (ta + tb), 1e-13 * ta);
    // Through its own bottom face a cell's half is corner_point_cells' own.
    const Column slant = column(sloping(0.01), 3);
    for (index_t m = 0; m < 3; ++m) {
        EXPECT_EQ(half_through_bottom(*slant.grid.geometry, m, m),
                  slant.grid.geometry->half[6 * m + 5]);
    }
    // Sloping pillars: the area vector's vertical part is the same, d leans along the pillar:
    // |A . d| / (d . d) with d = (0.01 dz, 0, dz) from the lower centre to the face.
    const double dz = 1.05;
    const double d2 = (0.01 * dz) * (0.01 * dz) + dz * dz;
    const double half_b = 100.0 * dz / d2;
    const double ha = slant.grid.geometry->half[5];
    EXPECT_NEAR(half_through_bottom(*slant.grid.geometry, 0, 2), half_b, 1e-12 * half_b);
    EXPECT_NEAR(only(slant).t, (k * ha) * (k * half_b) / (k * ha + k * half_b), 1e-12 * ta);
}

TEST(Pinch, ReaderErrorsNameTheFileLineAndItem) {
    const auto error = [](const std::string& text) {
        const TempFile bad("PORO\n 6*0.2 /\n" + text);
        return input_error_of([&] { read_eclipse_grid(bad.path(), {3, 2, 1}); });
    };
    EXPECT_THAT(
        error("PINCH\n -1 /\n"),
        HasSubstr(":4: PINCH: the threshold thickness is '-1'; it must be finite and >= 0"));
    EXPECT_THAT(error("PINCH\n 0.1 MAYBE /\n"),
                HasSubstr(":4: PINCH: item 2 is 'MAYBE'; it must be GAP or NOGAP"));
    EXPECT_THAT(error("PINCH\n 2* x /\n"), HasSubstr(":4: PINCH: 'x' is not a finite number"));
    EXPECT_THAT(error("PINCH\n 3* TOP /\n"), HasSubstr("item 4 (the transmissibility's cells) is "
                                                       "'TOP'; it must be ALL or TOPBOT"));
    EXPECT_THAT(error("PINCH\n 4* TOPBOT /\n"),
                HasSubstr("item 5 (the MULTZ taken) is 'TOPBOT'; it must be ALL or TOP"));
    EXPECT_THAT(error("PINCH\n 5* 1 /\n"), HasSubstr(":3: PINCH: expected at most 5 items"));
    EXPECT_THAT(error("PINCH\n 99999* /\n"), HasSubstr(":3: PINCH: expected at most 5 items"));
    EXPECT_THAT(error("PINCH\n 0.1\n"), HasSubstr("PINCH: the file ends before the '/'"));
    const TempFile ok("PORO\n 6*0.2 /\nPINCH\n 0.2 NOGAP 3 ALL ALL /\n");
    const EclipseGridData d = read_eclipse_grid(ok.path(), {3, 2, 1});
    EXPECT_TRUE(d.pinch.given);
    EXPECT_EQ(d.pinch.threshold, 0.2);
    EXPECT_FALSE(d.pinch.gap);
    EXPECT_EQ(d.pinch.max_gap, 3.0);
    EXPECT_TRUE(d.pinch.all_cells);
    EXPECT_TRUE(d.pinch.all_multz);
    EXPECT_THAT(d.pinch.where, HasSubstr(":3: "));
}

}  // namespace
}  // namespace heptane::grid
