// The GRID-section reader (grid/eclipse_grid.hpp, issue 20, first part): each keyword against
// hand-computed arrays, edits in file order inside boxes, includes, the real SPE9 file with its
// own COPY and MULTIPLY, a whole deck's PROPS passed over and its REGIONS read (SATNUM and the
// other region arrays), and an error at file and line for every malformed form.
#include "grid/eclipse_grid.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"

namespace heptane::grid {
namespace {

using test::TempFile;
using test::TempFolder;
using ::testing::HasSubstr;

using test::input_error_of;

std::vector<double> read(const std::string& text, const char* array, std::array<int, 3> dims) {
    const TempFile file(text);
    const EclipseGridData data = read_eclipse_grid(file.path(), dims);
    const auto it = data.arrays.find(array);
    if (it == data.arrays.end()) {
        ADD_FAILURE() << array << " not defined";
        return {};
    }
    return it->second;
}

const double nan = std::nan("");

/// The InputError of reading `text` as the files of a grid of `dims` cells.
std::string error_reading(const std::string& text, std::array<int, 3> dims) {
    const TempFile bad(text);
    return input_error_of([&] { read_eclipse_grid(bad.path(), dims); });
}

/// Compares with NaN equal to NaN (cells never set).
void expect_array(const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
            EXPECT_TRUE(std::isnan(got[i])) << "cell " << i;
        } else {
            EXPECT_EQ(got[i], want[i]) << "cell " << i;
        }
    }
}

// 3 x 2 x 1 grid: cell index i + 3 j.
TEST(EclipseGrid, ArraysRepeatsDefaultsAndBoxes) {
    expect_array(read("GRID\nPERMX\n 2*10 3* 7 /\n", "PERMX", {3, 2, 1}),
                 {10, 10, nan, nan, nan, 7});
    // BOX i 2..3, j 2..2: the array fills the box only; ENDBOX restores the whole grid.
    expect_array(
        read("BOX\n 2 3 2 2 1 1 /\nPORO\n 0.1 0.2 /\nENDBOX\nNTG\n 6*1 /\n", "PORO", {3, 2, 1}),
        {nan, nan, nan, nan, 0.1, 0.2});
    // TOPS over the whole grid may give the top layer only.
    expect_array(read("TOPS\n 4*1000 /\n", "TOPS", {2, 2, 2}),
                 {1000, 1000, 1000, 1000, nan, nan, nan, nan});
}

// An edit chain in file order: COPY then MULTIPLY in a BOX, ADD with a box that later
// records inherit, EQUALS, MINVALUE / MAXVALUE.
TEST(EclipseGrid, EditsApplyInFileOrder) {
    const std::string text =
        "PERMX\n 1 2 3 4 5 6 /\n"
        "COPY\n PERMX PERMY /\n 'PERMX' 'PERMZ' /\n/\n"
        "BOX\n 1 2 1 1 1 1 /\n"
        "MULTIPLY\n PERMZ 0.5 /\n/\n"  // the box: cells 0, 1
        "ENDBOX\n"
        "ADD\n PERMY 10 3 3 1 2 1 1 /\n PERMX 100 /\n/\n"  // PERMX inherits i 3, j 1..2
        "EQUALS\n NTG 0.8 /\n MULTZ 0.1 1* 1* 2 2 /\n/\n"
        "MINVALUE\n PERMZ 0.75 /\n/\nMAXVALUE\n PERMY 14 /\n/\n";
    const TempFile file(text);
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 1});
    expect_array(d.arrays.at("PERMX"), {1, 2, 103, 4, 5, 106});
    expect_array(d.arrays.at("PERMY"), {1, 2, 13, 4, 5, 14});   // +10 at i = 3, then <= 14
    expect_array(d.arrays.at("PERMZ"), {0.75, 1, 3, 4, 5, 6});  // 0.5, 1 then >= 0.75
    expect_array(d.arrays.at("NTG"), {0.8, 0.8, 0.8, 0.8, 0.8, 0.8});
    expect_array(d.arrays.at("MULTZ"), {nan, nan, nan, 0.1, 0.1, 0.1});  // j 2 of the grid
}

// COPYBOX: the array's values on one box copied onto another of the same shape (on a 3 x 2 x 2
// grid, cell i + 3 j + 6 k); the source is read before any cell is written (overlapping
// boxes); unset cells copy as unset.
TEST(EclipseGrid, CopyBoxCopiesOneBoxOntoAnother) {
    expect_array(read("PERMX\n 1 2 3 4 5 6 6*0 /\nCOPYBOX\n PERMX 1 3 1 2 1 1  1 3 1 2 2 2 /\n/\n",
                      "PERMX", {3, 2, 2}),
                 {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
    expect_array(read("PERMX\n 1 2 3 4 5 6 6*0 /\nCOPYBOX\n 'PERMX' 1 2 1 2 1 1 2 3 1 2 1 1 /\n"
                      " PERMX 3 3 2 2 1 1 1 1 1 1 2 2 /\n/\n",
                      "PERMX", {3, 2, 2}),
                 {1, 1, 2, 4, 4, 5, 5, 0, 0, 0, 0, 0});
    expect_array(read("BOX\n 1 1 1 1 1 1 /\nPORO\n 0.3 /\nENDBOX\n"
                      "COPYBOX\n PORO 1 2 1 1 1 1 2 3 2 2 2 2 /\n/\n",
                      "PORO", {3, 2, 2}),
                 {0.3, nan, nan, nan, nan, nan, nan, nan, nan, nan, 0.3, nan});
    const auto error = [](const std::string& text) {
        return error_reading("PERMX\n 12*1 /\n" + text, {3, 2, 2});
    };
    EXPECT_THAT(error("COPYBOX\n PERMX 1 2 1 1 1 1 1 3 2 2 2 2 /\n/\n"),
                HasSubstr(":4: COPYBOX: the two boxes differ in shape along I (2 and 3 cells)"));
    EXPECT_THAT(error("COPYBOX\n PORO 1 1 1 1 1 1 2 2 1 1 1 1 /\n/\n"),
                HasSubstr(":4: COPYBOX: PORO is not defined yet"));
    EXPECT_THAT(error("COPYBOX\n PERMX 1 1 1 1 1 1 2 2 1 1 /\n/\n"),
                HasSubstr(":4: COPYBOX: a record is ARRAY I1 I2 J1 J2 K1 K2"));
    EXPECT_THAT(error("COPYBOX\n PERMX 1 1 1 1 1 1 2 2 1 1 2* /\n/\n"),
                HasSubstr("(no item defaulted)"));
    EXPECT_THAT(error("COPYBOX\n PERMX 1 1 1 1 1 1 4 4 1 1 1 1 /\n/\n"),
                HasSubstr("COPYBOX: box item 1 (I) is '4'; it must be an integer 1..3"));
    EXPECT_THAT(error("COPYBOX\n SWAT 1 1 1 1 1 1 2 2 1 1 1 1 /\n/\n"),
                HasSubstr("COPYBOX: 'SWAT' is not an array heptane reads"));
    EXPECT_THAT(error("COPYBOX\n PERMX 1 1 1 1 1 1 2 2 1 1 1 1\n"),
                HasSubstr("COPYBOX: the file ends before the record's '/'"));
}

// Region edits: each record acts on the cells of one region number of MULTNUM (the default),
// FLUXNUM or OPERNUM, whatever the box; without the region array every cell is in region 1.
TEST(EclipseGrid, RegionEditsActOnTheirRegionsCells) {
    const std::string text =
        "PERMX\n 1 2 3 4 5 6 /\n"
        "MULTNUM\n 1 1 2 2 3 3 /\n"
        "FLUXNUM\n 2 1 2 1 2 1 /\n"
        "BOX\n 1 1 1 1 1 1 /\n"  // a box does not limit them
        "EQUALREG\n PORO 0.2 1 /\n PORO 0.3 2 M /\n PORO 0.1 3 /\n/\n"
        "MULTIREG\n PERMX 10 2 /\n PERMX 0.5 2 F /\n/\n"
        "ADDREG\n PERMX 100 3 M /\n/\n"
        "COPYREG\n PERMX PERMY 1 F /\n/\n"
        "ENDBOX\n"
        "EQUALREG\n NTG 0.9 1 O /\n/\n";  // no OPERNUM: every cell is in region 1
    const TempFile file(text);
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 1});
    expect_array(d.arrays.at("PORO"), {0.2, 0.2, 0.3, 0.3, 0.1, 0.1});
    // MULTNUM 2 times 10 (cells 2, 3), FLUXNUM 2 halved (0, 2, 4), MULTNUM 3 plus 100 (4, 5).
    expect_array(d.arrays.at("PERMX"), {0.5, 2, 15, 40, 102.5, 106});
    expect_array(d.arrays.at("PERMY"), {nan, 2, nan, 40, nan, 106});  // FLUXNUM 1's cells
    expect_array(d.arrays.at("NTG"), {0.9, 0.9, 0.9, 0.9, 0.9, 0.9});
    const auto error = [](const std::string& edit) {
        return error_reading("PERMX\n 6*1 /\nMULTNUM\n 6*1 /\n" + edit, {3, 2, 1});
    };
    EXPECT_THAT(error("MULTIREG\n PERMX 2 0 /\n/\n"),
                HasSubstr(":6: MULTIREG: the region number is '0'; it must be an integer >= 1"));
    EXPECT_THAT(error("EQUALREG\n PORO 0.2 1 X /\n/\n"),
                HasSubstr("EQUALREG: the region array is 'X'; it must be M (MULTNUM)"));
    EXPECT_THAT(error("ADDREG\n PORO 1 1 /\n/\n"), HasSubstr("ADDREG: PORO is not defined yet"));
    EXPECT_THAT(error("COPYREG\n PERMX 1 /\n/\n"),
                HasSubstr("COPYREG: a record is FROM TO region [M|F|O] /"));
    EXPECT_THAT(error("EQUALREG\n SWAT 0.2 1 /\n/\n"),
                HasSubstr("EQUALREG: 'SWAT' is not an array heptane reads"));
    EXPECT_THAT(error("EQUALREG\n PORO 0.2 1 /\n"), HasSubstr("ends before the '/'"));
}

// OPERATE: each operation of the Eclipse manual's table on its box, R = f(R, X); a defaulted box
// item is the current BOX's; POLY and MULTIPLY read the target; alpha, beta default to 0.
TEST(EclipseGrid, OperateAppliesEachOperationOnItsBox) {
    const std::string text =
        "PERMX\n 1 2 3 4 5 6 /\n"
        "OPERATE\n"
        " PERMZ 6* MULTX PERMX 0.1 /\n"
        " PERMY 1 3 1 1 1 1 MULTA PERMX 2 1 /\n"  // row j = 1 only
        " PERMY 1 3 1 1 1 1 POLY PERMX 1 2 /\n"   // R + X^2 there
        " PORO 6* SLOG PERMX -2 0.5 /\n"
        " NTG 6* INV PERMX /\n"
        " MULTX 6* MAXLIM PERMX 3.5 /\n"
        " MULTY 6* MINLIM PERMX 2.5 /\n"
        " MULTZ 6* MULTP PERMX 2 0.5 /\n"
        " DX 6* ADDX PERMX 10 /\n"
        " DY 6* COPY PERMX /\n"
        " DZ 6* LOG10 PERMX /\n"
        " TOPS 6* LOGE PERMX /\n"
        " MULTPV 6* MULTA PERMX -1 /\n"  // beta defaulted: -X
        " MULTPV 6* ABS MULTPV /\n"
        " PERMX 6* MULTIPLY PERMZ /\n"
        "/\n"
        "BOX\n 2 3 2 2 1 1 /\n"
        "OPERATE\n NTG 6* ADDX DY 100 /\n/\n"  // the BOX's cells 4 and 5
        "ENDBOX\n";
    const TempFile file(text);
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 1});
    std::vector<double> x = {1, 2, 3, 4, 5, 6}, z, poro, ntg, mx, my, mz, dx, dz, tops, px;
    for (double v : x) {
        z.push_back(0.1 * v);
        poro.push_back(std::pow(10.0, -2 + 0.5 * v));
        ntg.push_back(1.0 / v);
        mx.push_back(std::min(3.5, v));
        my.push_back(std::max(2.5, v));
        mz.push_back(2 * std::pow(v, 0.5));
        dx.push_back(v + 10);
        dz.push_back(std::log10(v));
        tops.push_back(std::log(v));
        px.push_back(v * (0.1 * v));
    }
    ntg[4] = 105;
    ntg[5] = 106;
    expect_array(d.arrays.at("PERMZ"), z);
    expect_array(d.arrays.at("PERMY"), {3 + 1, 5 + 4, 7 + 9, nan, nan, nan});
    expect_array(d.arrays.at("PORO"), poro);
    expect_array(d.arrays.at("NTG"), ntg);
    expect_array(d.arrays.at("MULTX"), mx);
    expect_array(d.arrays.at("MULTY"), my);
    expect_array(d.arrays.at("MULTZ"), mz);
    expect_array(d.arrays.at("DX"), dx);
    expect_array(d.arrays.at("DY"), x);
    expect_array(d.arrays.at("DZ"), dz);
    expect_array(d.arrays.at("TOPS"), tops);
    expect_array(d.arrays.at("MULTPV"), x);
    expect_array(d.arrays.at("PERMX"), px);
    const auto error = [](const std::string& edit) {
        return error_reading("PERMX\n 0 5*1 /\n" + edit, {3, 2, 1});
    };
    EXPECT_THAT(error("OPERATE\n PERMZ 6* SQRT PERMX /\n/\n"),
                HasSubstr(":4: OPERATE: the operation is 'SQRT'; it must be one of MULTA, POLY"));
    EXPECT_THAT(error("OPERATE\n PERMZ 6* MULTX PERMQ 1 /\n/\n"),
                HasSubstr("OPERATE: 'PERMQ' is not an array heptane reads"));
    EXPECT_THAT(error("OPERATE\n PERMZ 1 1 MULTX PERMX 1 /\n/\n"),
                HasSubstr("OPERATE: a record is TARGET I1 I2 J1 J2 K1 K2 OPERATION SOURCE"));
    EXPECT_THAT(error("OPERATE\n PERMZ 6* MULTA PERMX 1 2 3 /\n/\n"),
                HasSubstr("OPERATE: a record is TARGET"));
    EXPECT_THAT(error("OPERATE\n PERMZ 6* LOG10 PORO /\n/\n"),
                HasSubstr("OPERATE: PORO is not defined yet"));
    EXPECT_THAT(error("OPERATE\n PERMY 6* POLY PERMX 1 1 /\n/\n"),
                HasSubstr("OPERATE: POLY reads PERMY, which is not defined yet"));
    EXPECT_THAT(error("OPERATE\n PERMZ 6* LOG10 PERMX /\n/\n"),
                HasSubstr(":4: OPERATE: LOG10 of PERMX = 0 is not finite at cell (1, 1, 1)"));
    EXPECT_THAT(error("BOX\n 1 1 1 1 1 1 /\nPORO\n 0.2 /\nENDBOX\n"
                      "OPERATE\n PERMZ 6* MULTX PORO 1 /\n/\n"),
                HasSubstr("OPERATE: PORO has no value at cell (2, 1, 1)"));
    EXPECT_THAT(error("OPERATE\n PERMZ 1 4 6* MULTX PERMX 1 /\n/\n"),
                HasSubstr("OPERATE: a record is TARGET"));
    EXPECT_THAT(error("OPERATE\n PERMZ 6* MULTX PERMX 1 /\n"),
                HasSubstr("OPERATE: the file ends before the '/' that ends its records"));
}

TEST(EclipseGrid, IncludesAreRelativeNestedAndCycleSafe) {
    namespace fs = std::filesystem;
    const TempFile top_name;
    const fs::path dir = fs::path(top_name.path()).replace_extension("") += "_dir";
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "main.grdecl") << "INCLUDE\n 'sub/perm.inc' /\nMULTIPLY\n PERMX 2 /\n/\n";
    std::ofstream(dir / "sub" / "perm.inc") << "INCLUDE\n poro.inc /\nPERMX\n 1 2 /\n";
    std::ofstream(dir / "sub" / "poro.inc") << "PORO\n 2*0.25 /\n";
    const EclipseGridData d = read_eclipse_grid((dir / "main.grdecl").string(), {2, 1, 1});
    expect_array(d.arrays.at("PERMX"), {2, 4});
    expect_array(d.arrays.at("PORO"), {0.25, 0.25});
    std::ofstream(dir / "sub" / "poro.inc") << "INCLUDE\n '../main.grdecl' /\n";
    EXPECT_THAT(input_error_of([&] {
                    read_eclipse_grid((dir / "main.grdecl").string(), {2, 1, 1});
                }),
                HasSubstr("INCLUDE cycle"));
    fs::remove_all(dir);
}

// The real SPE9 file with its own edits: PERMY = PERMX, PERMZ = 0.01 PERMX (it was refused
// until this reader; before that, skipped).
TEST(EclipseGrid, Spe9AppliesItsOwnCopyAndMultiply) {
    const EclipseGridData d =
        read_eclipse_grid(test::source_path("inputs/data/spe9/PERMVALUES.DATA"), {24, 25, 15});
    const std::vector<double>& x = d.arrays.at("PERMX");
    ASSERT_EQ(x.size(), 9000u);
    EXPECT_EQ(x.front(), 49.29276);
    EXPECT_EQ(x.back(), 47.05342);
    EXPECT_EQ(d.arrays.at("PERMY"), x);
    const std::vector<double>& z = d.arrays.at("PERMZ");
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(z[i], x[i] * 0.01) << i;
}

// A whole deck: PROPS is passed over (its tables' numbers and '/'s, its keywords, an INCLUDE
// that is not followed) up to REGIONS, whose region arrays and edits are read as the GRID
// section's; SOLUTION ends the reading. Grid 3 x 2 x 1: cell i + 3 j.
TEST(EclipseGrid, AWholeDecksRegionsAreReadAndItsPropsPassedOver) {
    const TempFile file(
        "RUNSPEC\nDIMENS\n 3 2 1 /\nMETRIC\nTABDIMS\n 2 /\n"
        "GRID\nPORO\n 6*0.2 /\n"
        "PROPS\n"                            // line 10
        "SWOF\n 0.2 0 1 0\n 0.8 1 0 0 /\n"   // a table: numbers and '/'
        "/\n"                                // Eclipse's empty table: a copy
        "INCLUDE\n 'no_such_props.inc' /\n"  // not followed
        "PERMX\n 6*99 /\n"                   // a keyword of PROPS: not applied
        "DENSITY\n 900 1000 1 /\n"           // line 19
        "REGIONS\n"                          // line 21
        "SATNUM\n 3*1 3*2 /\n"
        "EQUALS\n SATNUM 2 1 1 1 1 1 1 /\n/\n"  // cell (1, 1, 1) to region 2
        "FIPNUM\n 1 2 3 4 5 6 /\n"
        "SOLUTION\nEQUIL\n 1000 100 1100 0 /\n"  // line 29: not read
        "SATNUM\n 6*7 /\n");
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 1});
    expect_array(d.arrays.at("SATNUM"), {2, 1, 1, 2, 2, 2});
    expect_array(d.arrays.at("FIPNUM"), {1, 2, 3, 4, 5, 6});
    expect_array(d.arrays.at("PORO"), {0.2, 0.2, 0.2, 0.2, 0.2, 0.2});
    EXPECT_EQ(d.arrays.count("PERMX"), 0u);
    ASSERT_EQ(d.notes.size(), 3u);
    EXPECT_THAT(d.notes[0], HasSubstr("RUNSPEC: not used (the YAML deck says what they "
                                      "describe): TABDIMS"));
    EXPECT_THAT(d.notes[1], HasSubstr(":10: PROPS: grid.eclipse reads only the end-point arrays "
                                      "SWL, SWCR, SWU, SOWCR, KRW, KRO, PCW, SWATINIT and their "
                                      "edits from here on until REGIONS at " +
                                      file.path() + ":21 (the YAML deck's fluid.eclipse"));
    EXPECT_THAT(d.notes[2],
                HasSubstr(":29: SOLUTION: grid.eclipse does not read the file from here on"));
    // PROPS to the file's end: one note at PROPS, and nothing of it applied.
    const TempFile props("PORO\n 6*0.2 /\nPROPS\nSWOF\n 0.2 0 1 0\n 0.8 1 0 0 /\nPERMX\n 6*9 /\n");
    const EclipseGridData p = read_eclipse_grid(props.path(), {3, 2, 1});
    EXPECT_EQ(p.arrays.count("PERMX"), 0u);
    ASSERT_EQ(p.notes.size(), 1u);
    EXPECT_THAT(p.notes[0], HasSubstr(":3: PROPS: grid.eclipse reads only the end-point arrays "
                                      "SWL, SWCR, SWU, SOWCR, KRW, KRO, PCW, SWATINIT and their "
                                      "edits from here on (the YAML deck's fluid.eclipse"));
}

// End-point scaling (design decision 95): RUNSPEC's ENDSCALE is kept with its line, and PROPS'
// end-point arrays are read with their boxes and edits (a cell no keyword sets: NaN, its
// table's); the scaling keywords heptane does not build are refused at their lines.
TEST(EclipseGrid, PropsEndPointArraysAreReadWithTheirEditsAndEndscaleKept) {
    const TempFile file(
        "RUNSPEC\nDIMENS\n 3 2 1 /\nMETRIC\n"
        "ENDSCALE\n 'NODIR' 'REVERS' 1 20 /\n"  // line 5
        "GRID\nPORO\n 6*0.2 /\n"
        "PROPS\n"
        "SWOF\n 0.2 0 1 0\n 0.8 1 0 0 /\n"
        "SWL\n 6*0.1 /\n"
        "BOX\n 1 1 1 2 1 1 /\n"
        "SWCR\n 2*0.3 /\n"
        "ENDBOX\n"
        "EQUALS\n SOWCR 0.2 /\n SWU 0.9 2 3 1 2 1 1 /\n/\n"
        "MULTIPLY\n SWL 2 3 3 2 2 1 1 /\n/\n"
        "DENSITY\n 900 1000 1 /\n"
        "KRW\n 0.5 5*0.6 /\nEQUALS\n KRO 0.9 /\n PCW 2.5 1 1 1 1 1 1 /\n/\n"
        "SOLUTION\n");
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 1});
    EXPECT_THAT(d.endscale, HasSubstr(":5: "));
    expect_array(d.arrays.at("SWL"), {0.1, 0.1, 0.1, 0.1, 0.1, 0.2});
    expect_array(d.arrays.at("SWCR"), {0.3, nan, nan, 0.3, nan, nan});
    expect_array(d.arrays.at("SWU"), {nan, 0.9, 0.9, nan, 0.9, 0.9});
    expect_array(d.arrays.at("SOWCR"), {0.2, 0.2, 0.2, 0.2, 0.2, 0.2});
    // The vertical scaling's arrays (design decision 98), in the file's units (PCW: bar here).
    expect_array(d.arrays.at("KRW"), {0.5, 0.6, 0.6, 0.6, 0.6, 0.6});
    expect_array(d.arrays.at("KRO"), {0.9, 0.9, 0.9, 0.9, 0.9, 0.9});
    expect_array(d.arrays.at("PCW"), {2.5, nan, nan, nan, nan, nan});
    // Without ENDSCALE the arrays are read all the same (the model passes them over with a
    // note, as Eclipse does: wells/generator).
    const TempFile plain_file("PORO\n 6*0.2 /\nPROPS\nSWL\n 6*0.1 /\n");
    const EclipseGridData plain = read_eclipse_grid(plain_file.path(), {3, 2, 1});
    EXPECT_TRUE(plain.endscale.empty());
    expect_array(plain.arrays.at("SWL"), {0.1, 0.1, 0.1, 0.1, 0.1, 0.1});
    EXPECT_THAT(error_reading("RUNSPEC\nENDSCALE\n DIRECT /\nGRID\n", {3, 2, 1}),
                HasSubstr(":3: ENDSCALE: DIRECT (directional end points) is not supported"));
    EXPECT_THAT(error_reading("RUNSPEC\nENDSCALE\n 1* IRREVERS /\nGRID\n", {3, 2, 1}),
                HasSubstr(":3: ENDSCALE: IRREVERS"));
    EXPECT_THAT(error_reading("RUNSPEC\nENDSCALE\n", {3, 2, 1}),
                HasSubstr(":2: ENDSCALE: the file ends before the '/'"));
    EXPECT_THAT(error_reading("PORO\n 6*0.2 /\nPROPS\nSWOF\n 0.2 0 1 0\n 0.8 1 0 0 /\n"
                              "SWLPC\n 6*0.3 /\n",
                              {3, 2, 1}),
                HasSubstr(":7: SWLPC: not supported: heptane's end-point scaling is the "
                          "two-point scaling"));
    EXPECT_THAT(error_reading("PORO\n 6*0.2 /\nPROPS\nKRWR\n 6*0.3 /\n", {3, 2, 1}),
                HasSubstr(":4: KRWR: not supported"));
}

// The region arrays SATNUM, PVTNUM, EQLNUM, FIPNUM, IMBNUM are arrays as any other, in GRID and
// in REGIONS: boxes, n* defaults, EQUALS, COPY, ADD, MULTIPLY, INCLUDE.
TEST(EclipseGrid, RegionArraysAreArraysInGridAndRegions) {
    const TempFolder dir;
    const std::string deck = dir.path() + "/deck.data";
    std::ofstream(dir.path() + "/regions.inc") << "IMBNUM\n 6*1 /\nADD\n IMBNUM 1 1 3 1 1 /\n/\n";
    std::ofstream(deck) << "GRID\n"
                           "BOX\n 1 1 1 1 1 1 /\nPVTNUM\n 1 /\nENDBOX\n"  // one cell
                           "SATNUM\n 1 2 3 2* 3 /\n"
                           "REGIONS\n"
                           "COPY\n SATNUM EQLNUM /\n/\n"
                           "MULTIPLY\n EQLNUM 2 1 3 2 2 /\n/\n"  // j = 2
                           "FIPNUM\n 1 2 3 4 5 6 /\n"
                           "INCLUDE\n 'regions.inc' /\n"
                           "EQUALS\n PVTNUM 4 3 3 2 2 1 1 /\n/\nENDBOX\n";
    const EclipseGridData d = read_eclipse_grid(deck, {3, 2, 1});
    expect_array(d.arrays.at("PVTNUM"), {1, nan, nan, nan, nan, 4});
    expect_array(d.arrays.at("SATNUM"), {1, 2, 3, nan, nan, 3});
    expect_array(d.arrays.at("EQLNUM"), {1, 2, 3, nan, nan, 6});
    expect_array(d.arrays.at("FIPNUM"), {1, 2, 3, 4, 5, 6});
    expect_array(d.arrays.at("IMBNUM"), {2, 2, 2, 1, 1, 1});
    EXPECT_TRUE(d.notes.empty());
    // A file after one that ends in REGIONS goes on in REGIONS (a SATNUM file after its deck).
    const TempFile more("SATNUM\n 6*5 /\nSOLUTION\n");
    const EclipseGridData m =
        read_eclipse_grid(std::vector<std::string>{deck, more.path()}, {3, 2, 1});
    expect_array(m.arrays.at("SATNUM"), {5, 5, 5, 5, 5, 5});
    const TempFile permx("PERMX\n 6*5 /\n");
    EXPECT_THAT(input_error_of([&] {
                    read_eclipse_grid(std::vector<std::string>{deck, permx.path()}, {3, 2, 1});
                }),
                HasSubstr(permx.path() + ":1: 'PERMX' is not a REGIONS-section keyword"));
    // After one that ends in PROPS (passed over) a file is refused, not passed over whole.
    const TempFile in_props("PORO\n 6*0.2 /\nPROPS\nSWOF\n 0.2 0 1 0\n 0.8 1 0 0 /\n");
    EXPECT_THAT(
        input_error_of([&] {
            read_eclipse_grid(std::vector<std::string>{in_props.path(), more.path()}, {3, 2, 1});
        }),
        HasSubstr(more.path() + ": follows a file whose GRID and REGIONS sections have "
                                "ended (in PROPS, or at SOLUTION, SCHEDULE, ...)"));
}

// In REGIONS only the region arrays, the edits, boxes and INCLUDE apply: any other keyword is
// an error naming it, with the list of what REGIONS reads.
TEST(EclipseGrid, AKeywordRegionsDoesNotTakeIsAnErrorNamingIt) {
    const auto error = [](const std::string& regions) {
        return error_reading("PORO\n 6*0.2 /\nREGIONS\nSATNUM\n 6*1 /\n" + regions, {3, 2, 1});
    };
    EXPECT_THAT(error("RPTREGS\n/\n"),
                HasSubstr(":6: 'RPTREGS' is not a REGIONS-section keyword heptane applies (it "
                          "reads the region arrays SATNUM, PVTNUM, EQLNUM, FIPNUM, IMBNUM, "
                          "MULTNUM, FLUXNUM, OPERNUM, and BOX, ENDBOX, EQUALS"));
    EXPECT_THAT(error("PERMX\n 6*1 /\n"), HasSubstr(":6: 'PERMX' is not a REGIONS-section"));
    EXPECT_THAT(error("FAULTS\n/\n"), HasSubstr(":6: 'FAULTS' is not a REGIONS-section"));
    EXPECT_THAT(error("PROPS\n"), HasSubstr(":6: 'PROPS' is not a REGIONS-section"));
    EXPECT_THAT(error("SATNUM\n 5*1 /\n"),
                HasSubstr(":6: SATNUM: 5 values, the box has 6 cells (the whole grid"));
    EXPECT_THAT(error("EQUALS\n FIPNUM 1 1 4 /\n/\n"),
                HasSubstr(":7: EQUALS: box item 2 (I) is '4'; it must be an integer 1..3"));
    // The GRID section's list names the region arrays.
    EXPECT_THAT(error_reading("PINCHREG\n/\n", {3, 2, 1}),
                HasSubstr("the region arrays SATNUM, PVTNUM, EQLNUM, FIPNUM, IMBNUM (in GRID or "
                          "REGIONS)"));
}

TEST(EclipseGrid, EveryMalformedFormIsAnErrorAtItsLine) {
    const struct {
        const char* text;
        const char* message;
    } cases[] = {
        {"PERMX\n 1 2 3 /\n",
         ":1: PERMX: 3 values, the box has 6 cells (the whole grid of grid.dims [3, 2, 1])"},
        {"BOX\n 1 1 1 1 1 1 /\nPORO\n 1 2 /\n", ":3: PORO: 2 values, the box has 1 cells (BOX)"},
        {"PERMX\n 6*1\n", ":1: PERMX: the file ends before the '/'"},
        {"PERMX\n 6*1 /\nPINCHREG\n 0.1 /\n", ":3: 'PINCHREG' is not a GRID-section keyword"},
        {"SPECGRID\n 3 2 2 1 F /\n", ":1: SPECGRID 3 2 2 does not match grid.dims [3, 2, 1]"},
        {"SPECGRID\n 3 2 1 2 F /\n", ":1: SPECGRID: several reservoirs (NUMRES > 1)"},
        {"SPECGRID\n 3 2 1 1 T /\n", ":1: SPECGRID: radial (cylindrical) grids"},
        {"SPECGRID\n 3 2 /\n", ":1: SPECGRID: expected NX NY NZ [NUMRES [COORD]], then '/'"},
        {"SPECGRID\n 3 2 1 1 F 7 /\n", ":1: SPECGRID: expected NX NY NZ [NUMRES [COORD]]"},
        {"RUNSPEC\nDIMENS\n 3 2 1 1 /\n", ":2: DIMENS: expected NX NY NZ, then '/'"},
        {"RUNSPEC\nDIMENS\n 3 2 /\n", ":2: DIMENS: expected NX NY NZ, then '/'"},
        {"RUNSPEC\nDIMENS\n 4 2 1 /\nGRID\n", ":2: DIMENS 4 2 1 does not match grid.dims"},
        {"RUNSPEC\nPVT-M\nGRID\n", ":2: PVT-M units are not supported"},
        {"RUNSPEC\nPROPS\n", ":2: PROPS before the GRID section"},
        {"MINVALUE\n PERMX /\n/\n", ":2: MINVALUE: a record is ARRAY bound [I1 I2 J1 J2 K1 K2] /"},
        {"PERMX\n 6*1 /\nMAXVALUE\n PERMX x /\n/\n", ":4: MAXVALUE: 'x' is not a finite number"},
        {"PERMX\n 6*1 /\nADD\n PERMX /\n/\n", ":4: ADD: a record is ARRAY constant"},
        {"ACTNUM\n 5*1 /\n",
         ":1: ACTNUM: 5 values, the box has 6 cells (the whole grid of grid.dims [3, 2, 1])"},
        {"TOPS\n 4*1 /\n",
         ":1: TOPS: 4 values, the box has 6 cells (the whole grid of grid.dims [3, 2, 1])"},
        {"MULTZ\n 7*1 /\n", ":1: MULTZ: more values than the grid's 6 cells"},
        // A repeat far past the grid is refused without allocating it (the fuzzer's OOM).
        {"PERMX\n 2147483648*1 /\n", ":1: PERMX: more values than the grid's 6 cells"},
        {"EQUALS\n PERMX 1 2147483648* /\n/\n", ":2: EQUALS: a box is 6 integers"},
        {"RUNSPEC\nDIMENS\n 3 2 2147483648*1 /\n", ":2: DIMENS: expected NX NY NZ, then '/'"},
        {"BOX\n 1 4 1 1 1 1 /\n", ":1: BOX: box item 2 (I) is '4'; it must be an integer 1..3"},
        {"ENDBOX\n 1 /\n", ":2: '1' is not a keyword"},
        {"COPY\n PERMX PERMY /\n/\n", ":2: COPY: PERMX is not defined yet"},
        {"INCLUDE\n /\n", ":1: INCLUDE: expected a file name, then '/'"},
        {"COORD\n 1 /\n", ":1: COORD: 1 values; grid.dims [3, 2, 1] needs 72"},
        {"BOX\n 1 1 1 1 1 1 /\nZCORN\n 48*1 /\n", ":3: ZCORN: corner-point geometry inside a BOX"},
        {"MULTIPLY\n PERMX 2 /\n/\n", ":2: MULTIPLY: PERMX is not defined yet"},
        {"EQUALS\n PERMQ 2 /\n/\n", ":2: EQUALS: 'PERMQ' is not an array heptane reads"},
        {"EQUALS\n PERMX /\n/\n", ":2: EQUALS: a record is ARRAY value [I1 I2 J1 J2 K1 K2] /"},
        {"EQUALS\n PERMX 1 1 4 /\n/\n",
         ":2: EQUALS: box item 2 (I) is '4'; it must be an integer 1..3"},
        {"EQUALS\n PERMX 1 3 2 /\n/\n", ":2: EQUALS: the box's I range 3..2 is reversed"},
        {"EQUALS\n PERMX 1 1 1 1 1 1 1 1 /\n/\n", ":2: EQUALS: a box is 6 integers"},
        {"EQUALS\n PERMX 1 /\n", ":1: EQUALS: the file ends before the '/' that ends its records"},
        {"BOX\n 1 2 /\n", ":1: BOX: a box is 6 integers I1 I2 J1 J2 K1 K2, got 2"},
        {"COPY\n PERMX /\n/\n", ":2: COPY: a record is FROM TO [box] /"},
        {"INCLUDE\n 'missing.inc' /\n", "missing.inc: cannot open"},
        {"INCLUDE\n 'a.inc'\n", ":1: INCLUDE: the file name must be followed by '/'"},
        {"PERMX\n 6*x /\n", ":2: PERMX: '6*x' is not a repeat n*value"},
        {"12\n", ":1: '12' is not a keyword"},
    };
    for (const auto& c : cases) {
        const TempFile file(c.text);
        EXPECT_THAT(input_error_of([&] {
                        read_eclipse_grid(file.path(), {3, 2, 1});
                    }),
                    HasSubstr(c.message))
            << c.text;
    }
}

}  // namespace
}  // namespace heptane::grid
