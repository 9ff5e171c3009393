// The reservoir the Eclipse files describe (grid/eclipse_model.hpp, issue 20): per-cell sizes
// and depths from DX, DY, DZ and TOPS in the file's units, active cells from ACTNUM and pore
// volume, rock with NTG, MULTPV and the face multipliers (MULTX/Y/Z, MULTX-/Y-/Z-, FAULTS with
// MULTFLT), and the TPFA transmissibilities of
// such a grid, each against values worked out by hand.
#include "grid/eclipse_model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/transmissibility.hpp"

namespace heptane::grid {
namespace {

using test::input_error_of;
using test::TempFile;
using ::testing::HasSubstr;

Grid3D make_grid(int nx, int ny, int nz) {
    Grid3D g;
    g.nx = nx;
    g.ny = ny;
    g.nz = nz;
    return g;
}

EclipseGridSpec spec_of(const TempFile& file) {
    EclipseGridSpec s;
    s.files = {file.path()};
    return s;
}

/// The deck's defaults (1 m^2, 0.2) where the files give nothing, as build_rock has them.
RockFields default_rock(const Grid3D& g) {
    RockFields rock;
    const auto n = static_cast<std::size_t>(g.num_cells());
    rock.kx.assign(n, 1.0);
    rock.ky = rock.kz = rock.kx;
    rock.porosity.assign(n, 0.2);
    return rock;
}

/// Rock from the files (the deck gives neither field).
RockFields rock_of(const Grid3D& g, const EclipseGridSpec& spec, const EclipseGridData& d) {
    RockFields rock = default_rock(g);
    apply_eclipse_rock(g, spec, d, false, false, rock);
    return rock;
}

/// The InputError of reading `text` as the files of a 3 x 2 x 1 grid and building its rock.
std::string rock_error_of(const std::string& text) {
    const TempFile file(text);
    const Grid3D g = make_grid(3, 2, 1);
    return input_error_of([&] {
        rock_of(g, spec_of(file), read_eclipse_grid(file.path(), {3, 2, 1}));
    });
}

// One size and layer tops that stack: the uniform grid (bitwise that of the YAML grid).
TEST(EclipseModel, UniformSizesAndStackedTopsKeepTheGridUniform) {
    const TempFile file("DX\n 4*8 /\nDY\n 4*8 /\nDZ\n 4*4 /\nTOPS\n 2*4000 2*4004 /\n");
    Grid3D g = make_grid(2, 1, 2);
    read_grid_files(g, spec_of(file));
    EXPECT_TRUE(g.uniform());
    EXPECT_EQ(g.dx, 8.0);
    EXPECT_EQ(g.dz, 4.0);
    EXPECT_EQ(g.top_depth, 4000.0);
    EXPECT_EQ(g.centre_depth(g.cell(1, 0, 1)), 4006.0);
}

// Layer thicknesses 2 and 6 ft; TOPS for the top layer only (the rest stack on it); FIELD
// units from RUNSPEC convert feet to metres.
TEST(EclipseModel, PerLayerThicknessAndTopLayerTopsInFieldUnits) {
    const TempFile file(
        "RUNSPEC\nFIELD\nDIMENS\n 2 1 2 /\nGRID\n"
        "DX\n 10 20 10 20 /\nDY\n 4*5 /\nDZ\n 2*2 2*6 /\nTOPS\n 100 110 /\n");
    Grid3D g = make_grid(2, 1, 2);
    const EclipseGridData d = read_grid_files(g, spec_of(file));
    EXPECT_EQ(d.units, "FIELD");
    ASSERT_FALSE(g.uniform());
    const double ft = units::kFoot;
    EXPECT_DOUBLE_EQ(g.size_x(g.cell(1, 0, 0)), 20 * ft);
    EXPECT_DOUBLE_EQ(g.size_z(g.cell(0, 0, 1)), 6 * ft);
    // Centres: top + DZ / 2; the second layer's top is the first's top + its DZ.
    EXPECT_DOUBLE_EQ(g.centre_depth(g.cell(0, 0, 0)), 101 * ft);
    EXPECT_DOUBLE_EQ(g.centre_depth(g.cell(1, 0, 0)), 111 * ft);
    EXPECT_DOUBLE_EQ(g.centre_depth(g.cell(0, 0, 1)), 105 * ft);
    EXPECT_DOUBLE_EQ(g.centre_depth(g.cell(1, 0, 1)), 115 * ft);
    EXPECT_DOUBLE_EQ(g.volume(g.cell(1, 0, 1)), 20 * 5 * 6 * ft * ft * ft);
}

TEST(EclipseModel, GeometryErrorsNameTheFileAndTheRule) {
    Grid3D g = make_grid(1, 1, 1);
    const TempFile dx_only("DX\n 1 /\n");
    EXPECT_THAT(input_error_of([&] { read_grid_files(g, spec_of(dx_only)); }),
                HasSubstr("give all of DX, DY and DZ or none"));
    const TempFile no_tops("DX\n 1 /\nDY\n 1 /\nDZ\n 1 /\n");
    EXPECT_THAT(input_error_of([&] { read_grid_files(g, spec_of(no_tops)); }),
                HasSubstr("DX, DY and DZ need TOPS"));
    const TempFile tops_only("TOPS\n 1 /\n");
    EXPECT_THAT(input_error_of([&] { read_grid_files(g, spec_of(tops_only)); }),
                HasSubstr("TOPS needs DX, DY and DZ"));
    const TempFile negative("DX\n 1 /\nDY\n 1 /\nDZ\n -1 /\nTOPS\n 0 /\n");
    EXPECT_THAT(input_error_of([&] { read_grid_files(g, spec_of(negative)); }),
                HasSubstr("DZ of cell (i, j, k) = (0, 0, 0) is -1"));
    // No geometry in the files: the deck's grid.cell_size is required, not a default.
    const TempFile rock_only("PORO\n 0.2 /\n");
    EXPECT_THAT(input_error_of([&] { read_grid_files(g, spec_of(rock_only)); }),
                HasSubstr("grid.cell_size: is required: the files of grid.eclipse give no cell "
                          "geometry"));
    EclipseGridSpec sized = spec_of(rock_only);
    sized.has_cell_size = true;
    EXPECT_NO_THROW(read_grid_files(g, sized));
    EclipseGridSpec both = spec_of(no_tops);
    both.has_cell_size = true;
    try {
        read_grid_files(g, both);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key(), "grid.cell_size");
    }
}

// ACTNUM 0 and zero pore volume (PORO NTG = 0) are inactive, with no permeability or porosity;
// NTG multiplies porosity and the horizontal permeabilities, not the vertical one.
TEST(EclipseModel, ActiveCellsNtgAndMultipliers) {
    // 4 x 1 x 1; Eclipse and k-fastest orders coincide (nz = ny = 1).
    const TempFile file(
        "ACTNUM\n 0 1 1 1 /\nPORO\n 0.2 0.2 0.0 0.25 /\nNTG\n 1 0.5 1 1 /\n"
        "PERMX\n 4*100 /\nCOPY\n PERMX PERMY /\n PERMX PERMZ /\n/\nMULTIPLY\n PERMZ 0.1 /\n/\n"
        "MULTX\n 1 0.5 1 1 /\n");
    const Grid3D g = make_grid(4, 1, 1);
    const EclipseGridSpec spec = spec_of(file);
    const RockFields rock = rock_of(g, spec, read_eclipse_grid(file.path(), {4, 1, 1}));
    EXPECT_EQ(rock.active, (std::vector<std::uint8_t>{0, 1, 0, 1}));
    EXPECT_EQ(rock.num_active(), 2);
    const double md = units::kMilliDarcy;
    EXPECT_EQ(rock.porosity, (std::vector<double>{0.0, 0.1, 0.0, 0.25}));
    EXPECT_EQ(rock.kx, (std::vector<double>{0.0, 50 * md, 0.0, 100 * md}));
    EXPECT_EQ(rock.ky, (std::vector<double>{0.0, 50 * md, 0.0, 100 * md}));
    EXPECT_EQ(rock.kz, (std::vector<double>{0.0, 100 * 0.1 * md, 0.0, 100 * 0.1 * md}));
    EXPECT_EQ(rock.multx, (std::vector<double>{1.0, 0.5, 1.0, 1.0}));
    EXPECT_TRUE(rock.multy.empty());
}

// Values are needed in active cells only: an inactive cell may be left unset.
TEST(EclipseModel, InactiveCellsNeedNoValues) {
    const TempFile file(
        "ACTNUM\n 1 0 /\nPORO\n 0.3 1* /\nPERMX\n 7 1* /\nPERMY\n 7 1* /\n"
        "PERMZ\n 7 1* /\n");
    const Grid3D g = make_grid(2, 1, 1);
    const EclipseGridSpec spec = spec_of(file);
    const RockFields rock = rock_of(g, spec, read_eclipse_grid(file.path(), {2, 1, 1}));
    EXPECT_EQ(rock.porosity, (std::vector<double>{0.3, 0.0}));
    const TempFile unset("PORO\n 0.3 1* /\nPERMX\n 2*7 /\nPERMY\n 2*7 /\nPERMZ\n 2*7 /\n");
    EXPECT_THAT(input_error_of([&] {
                    rock_of(g, spec_of(unset), read_eclipse_grid(unset.path(), {2, 1, 1}));
                }),
                HasSubstr("PORO of cell (i, j, k) = (1, 0, 0) is not given"));
}

TEST(EclipseModel, RockErrors) {
    const Grid3D g = make_grid(2, 1, 1);
    const auto error = [&](const std::string& text, bool perm_given = false,
                           bool poro_given = false) {
        const TempFile file(text);
        RockFields rock = default_rock(g);
        return input_error_of([&] {
            apply_eclipse_rock(g, spec_of(file), read_eclipse_grid(file.path(), {2, 1, 1}),
                               perm_given, poro_given, rock);
        });
    };
    EXPECT_THAT(error("PORO\n 2*0.2 /\nPERMX\n 2*1 /\n"),
                HasSubstr("give all of PERMX, PERMY and PERMZ or none"));
    EXPECT_THAT(error("PORO\n 2*0.2 /\n", false, true),
                HasSubstr("give PORO: remove rock.porosity"));
    EXPECT_THAT(error("ACTNUM\n 2 1 /\n"), HasSubstr("ACTNUM of cell (i, j, k) = (0, 0, 0) is 2"));
    EXPECT_THAT(error("ACTNUM\n 2*0 /\nPORO\n 2*0.2 /\n"), HasSubstr("no cell is active"));
    EXPECT_THAT(error("PORO\n 0.2 1.5 /\n"), HasSubstr("PORO of cell (i, j, k) = (1, 0, 0)"));
    EXPECT_THAT(error("PORO\n 2*0.2 /\nMULTX\n -1 1 /\n"), HasSubstr("MULTX of cell"));
}

// Per-cell sizes: each half transmissibility with its own cell's sizes (OPM's Cartesian rule),
// times the face's multiplier; no flow into or out of an inactive cell.
TEST(EclipseModel, TransmissibilitiesWithPerCellSizesMultipliersAndInactiveCells) {
    // 3 x 1 x 1 cells, DX 10 20 10 m, DY 5, DZ 2; kx 100 200 100 (SI units here).
    const TempFile file("DX\n 10 20 10 /\nDY\n 3*5 /\nDZ\n 3*2 /\nTOPS\n 3*0 /\n");
    Grid3D g = make_grid(3, 1, 1);
    EclipseGridSpec spec = spec_of(file);
    read_grid_files(g, spec);
    ASSERT_FALSE(g.uniform());
    RockFields rock;
    rock.kx = {100.0, 200.0, 100.0};
    rock.ky = rock.kz = rock.kx;
    rock.porosity.assign(3, 0.2);
    // Halves 2 k A / L: cell 0: 2 100 10 / 10 = 200; cell 1: 2 200 10 / 20 = 200; T = 100.
    const Transmissibilities t = tpfa_transmissibilities(g, rock);
    EXPECT_DOUBLE_EQ(t.tx[0], 100.0);
    EXPECT_DOUBLE_EQ(t.tx[1], 100.0);
    EXPECT_EQ(t.tx[2], 0.0);
    rock.multx = {0.25, 1.0, 1.0};
    rock.active = {1, 1, 0};
    const Transmissibilities m = tpfa_transmissibilities(g, rock);
    EXPECT_DOUBLE_EQ(m.tx[0], 25.0);
    EXPECT_EQ(m.tx[1], 0.0);  // into the inactive cell
}

// The index of cell (i, j, k) (0-based) in the k-fastest order of the grid.
std::size_t at(const Grid3D& g, int i, int j, int k) {
    return static_cast<std::size_t>(g.cell(i, j, k));
}

// MULTX- and the other negative-direction multipliers act on the face a cell shares with the
// cell before it; FAULTS with MULTFLT on the faces they list (multiplying, record after record,
// a pattern 'F*' naming every fault it starts); a face on the grid's edge has no flow to
// multiply; MULTPV scales the pore volume. Each against the values worked out by hand.
TEST(EclipseModel, NegativeMultipliersFaultsAndPoreVolumeMultipliers) {
    const Grid3D g = make_grid(3, 2, 2);
    const TempFile file(
        "GRIDOPTS\n 'YES' 0 /\nPORO\n 12*0.2 /\n"
        "EQUALS\n 'MULTX-' 0.5 2 2 1 1 1 1 /\n MULTZ- 0.25 3 3 2 2 2 2 /\n/\n"
        "FAULTS\n"
        " 'F1' 2 2 1 2 1 2 'X' /\n"   // the +x faces of i = 2: between i = 2 and 3
        " 'F1' 1 3 1 1 2 2 'Z-' /\n"  // the -z faces of k = 2, j = 1: between k = 1 and 2
        " 'G2' 3 3 1 1 1 1 I /\n"     // the +x face of the last column: the grid's edge
        "/\n"
        "MULTFLT\n 'F1' 0.1 /\n 'F*' 0.5 /\n G2 0 /\n/\n"
        "MULTPV\n 12*1 /\nEQUALS\n MULTPV 3 1 1 1 1 1 1 /\n/\n");
    const EclipseGridSpec spec = spec_of(file);
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 2});
    ASSERT_EQ(d.faults.size(), 2u);
    EXPECT_EQ(d.faults.at("F1").size(), 2u);
    const RockFields rock = rock_of(g, spec, d);
    std::vector<double> multx(12, 1.0), multz(12, 1.0);
    multx[at(g, 0, 0, 0)] = 0.5;  // MULTX- of (1, 0, 0)
    for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 2; ++k) multx[at(g, 1, j, k)] = 0.1 * 0.5;  // F1's x faces
    for (int i = 0; i < 3; ++i) multz[at(g, i, 0, 0)] = 0.1 * 0.5;      // F1's z faces
    multz[at(g, 2, 1, 0)] = 0.25;                                       // MULTZ- of (2, 1, 1)
    EXPECT_EQ(rock.multx, multx);
    EXPECT_TRUE(rock.multy.empty());  // nothing multiplies a y face
    EXPECT_EQ(rock.multz, multz);
    std::vector<double> porosity(12, 0.2);
    porosity[at(g, 0, 0, 0)] = 0.2 * 3.0;
    EXPECT_EQ(rock.porosity, porosity);
    // The transmissibilities carry them: F1's x face at 0.05 of the plain one.
    RockFields plain = rock;
    plain.multx.clear();
    plain.multz.clear();
    const Transmissibilities t = tpfa_transmissibilities(g, rock);
    const Transmissibilities u = tpfa_transmissibilities(g, plain);
    EXPECT_GT(u.tx[at(g, 1, 0, 0)], 0.0);
    EXPECT_EQ(t.tx[at(g, 1, 0, 0)], u.tx[at(g, 1, 0, 0)] * 0.05);
    EXPECT_EQ(t.tz[at(g, 0, 0, 0)], u.tz[at(g, 0, 0, 0)] * 0.05);
    EXPECT_EQ(t.tx[at(g, 0, 1, 0)], u.tx[at(g, 0, 1, 0)]);  // no keyword on that face
}

// MULTREGT as OPM reads it, worked out by hand on a 3 x 2 x 1 grid: MULTNUM (i fastest)
// 1 1 2 / 3 3 2, FLUXNUM 1 2 1 / 1 2 1. The records in force: FLUXNUM's defaulted "every region
// with 2" (pair 1-2, 0.7) replaces MULTNUM's 1-2 (0.5), whatever the arrays; MULTNUM's 2-3 along
// x (0.1); region 3 alone along y (0.2) on every connection of region 3's cells.
TEST(EclipseModel, RegionMultipliersActBetweenRegions) {
    const Grid3D g = make_grid(3, 2, 1);
    const TempFile file(
        "PORO\n 6*0.2 /\nMULTNUM\n 1 1 2 3 3 2 /\nFLUXNUM\n 1 2 1 1 2 1 /\n"
        "MULTREGT\n"
        " 1 2 0.5 /\n"
        " 2 3 0.1 X /\n"
        " 3 3 0.2 'Y' /\n"
        " 1* 2 0.7 XYZ ALL F /\n"
        " -1 4 0.9 Z 1* /\n"  // FLUXNUM again (the record before's), every region with 4: none
        "/\n");
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 1});
    ASSERT_EQ(d.region_multipliers.size(), 5u);
    EXPECT_EQ(d.region_multipliers[4].regions, "FLUXNUM");
    EXPECT_EQ(d.region_multipliers[4].from, 0);  // negative: every region
    const RockFields rock = rock_of(g, spec_of(file), d);
    std::vector<double> multx(6, 1.0), multy(6, 1.0);
    multx[at(g, 0, 0, 0)] = 0.7;        // FLUXNUM 1-2
    multx[at(g, 1, 0, 0)] = 0.7;        // FLUXNUM 2-1 (MULTNUM 1-2 replaced)
    multx[at(g, 0, 1, 0)] = 0.7;        // FLUXNUM 1-2 (MULTNUM 3-3: along y only)
    multx[at(g, 1, 1, 0)] = 0.7 * 0.1;  // FLUXNUM 2-1 and MULTNUM 3-2 along x
    multy[at(g, 0, 0, 0)] = 0.2;        // MULTNUM 1-3: region 3's cell, along y
    multy[at(g, 1, 0, 0)] = 0.2;
    EXPECT_EQ(rock.multx, multx);
    EXPECT_EQ(rock.multy, multy);
    EXPECT_TRUE(rock.multz.empty());
    // A record for non-neighbour connections only multiplies nothing, and a note says so.
    const TempFile nnc("PORO\n 6*0.2 /\nMULTNUM\n 6*1 /\nMULTREGT\n 1 1 0.5 XYZ NNC /\n/\n");
    const EclipseGridData dn = read_eclipse_grid(nnc.path(), {3, 2, 1});
    ASSERT_EQ(dn.notes.size(), 1u);
    EXPECT_THAT(dn.notes[0], HasSubstr(":6: MULTREGT: a record for non-neighbour connections"));
    EXPECT_TRUE(rock_of(g, spec_of(nnc), dn).multx.empty());
    const auto error = [](const std::string& text) {
        return rock_error_of("PORO\n 6*0.2 /\nMULTNUM\n 1 1 2 3 3 1.5 /\n" + text);
    };
    EXPECT_THAT(error("MULTREGT\n 1 2 0.5 /\n/\n"),
                HasSubstr("MULTNUM of cell (i, j, k) = (2, 1, 0) is 1.5"));
    EXPECT_THAT(error("MULTREGT\n 1 2 0.5 2* F /\n/\n"),
                HasSubstr(":6: MULTREGT: FLUXNUM is not defined"));
    EXPECT_THAT(error("MULTREGT\n 0 2 0.5 /\n/\n"),
                HasSubstr(":6: MULTREGT: the region number is '0'; it must be an integer >= 1"));
    EXPECT_THAT(error("MULTREGT\n 1 2 -1 /\n/\n"), HasSubstr("MULTREGT: the multiplier is '-1'"));
    EXPECT_THAT(error("MULTREGT\n 1 2 0.5 XX /\n/\n"),
                HasSubstr("MULTREGT: the directions are 'XX'; they must be X, Y, Z, XY"));
    EXPECT_THAT(error("MULTREGT\n 1 2 0.5 XYZ SOME /\n/\n"),
                HasSubstr("MULTREGT: the NNC type is 'SOME'; it must be ALL, NNC"));
    EXPECT_THAT(error("MULTREGT\n 1 2 0.5 XYZ ALL Q /\n/\n"),
                HasSubstr("MULTREGT: the region array is 'Q'"));
    EXPECT_THAT(error("MULTREGT\n 1 2 /\n/\n"),
                HasSubstr(":6: MULTREGT: a record is FROM TO multiplier"));
    EXPECT_THAT(error("MULTREGT\n 1 2 0.5 X ALL M 7 /\n/\n"),
                HasSubstr("MULTREGT: a record is FROM TO multiplier"));
    EXPECT_THAT(error("MULTREGT\n 1 2 0.5 /\n"), HasSubstr("ends before the '/'"));
}

TEST(EclipseModel, FaultAndMultiplierErrorsNameTheLine) {
    const auto error = [](const std::string& text) {
        return rock_error_of("PORO\n 6*0.2 /\n" + text);
    };
    EXPECT_THAT(error("GRIDOPTS\n NO /\nMULTX-\n 6*1 /\n"),
                HasSubstr(":5: MULTX-: GRIDOPTS says 'NO'"));
    EXPECT_THAT(error("GRIDOPTS\n 1* /\nEQUALS\n MULTY- 2 /\n/\n"),
                HasSubstr("GRIDOPTS says 'NO'"));
    EXPECT_THAT(error("GRIDOPTS\n YES 2 /\n"), HasSubstr("NRMULT (MULTNUM regions) is '2'"));
    EXPECT_THAT(error("GRIDOPTS\n MAYBE /\n"), HasSubstr("TRANMULT is 'MAYBE'"));
    EXPECT_THAT(error("FAULTS\n F 1 2 1 1 1 1 X /\n/\n"),
                HasSubstr(":4: FAULTS: a face along X needs I1 = I2"));
    EXPECT_THAT(error("FAULTS\n F 1 1 1 1 1 1 W /\n/\n"), HasSubstr("FACE is 'W'"));
    EXPECT_THAT(error("FAULTS\n F 1 1 1 3 1 1 Y /\n/\n"), HasSubstr("box item 4 (J) is '3'"));
    EXPECT_THAT(error("FAULTS\n F 1 1 1 1 1 X /\n/\n"), HasSubstr("a record is NAME I1 I2"));
    EXPECT_THAT(error("FAULTS\n F 1 1 1 1 1 1 X /\n/\nMULTFLT\n G 0.5 /\n/\n"),
                HasSubstr(":7: MULTFLT: no fault 'G'"));
    EXPECT_THAT(
        error("MULTFLT\n F 0.5 /\n/\nFAULTS\n F 1 1 1 1 1 1 X /\n/\n"),
        HasSubstr(
            ":4: MULTFLT: no fault 'F' (FAULTS defines the faults before MULTFLT names them)"));
    EXPECT_THAT(error("FAULTS\n F 1 1 1 1 1 1 X /\n/\nMULTFLT\n F -1 /\n/\n"),
                HasSubstr("MULTFLT: the multiplier is '-1'"));
    EXPECT_THAT(error("FAULTS\n F 1 1 1 1 1 1 X /\n"), HasSubstr("ends before the '/'"));
    EXPECT_THAT(error("MULTX-\n 1 1 -2 1 1 1 /\n"),
                HasSubstr("MULTX- of cell (i, j, k) = (2, 0, 0) is -2"));
    EXPECT_THAT(error("MULTPV\n 1 1 -2 1 1 1 /\n"),
                HasSubstr("MULTPV of cell (i, j, k) = (2, 0, 0) is -2"));
    EXPECT_THAT(error("DXV\n 10 20 /\n"), HasSubstr("DXV: 2 values, the grid has 3 cells along I"));
    EXPECT_THAT(error("DZV\n 1* /\n"), HasSubstr("DZV"));
}

// MINPV: a cell of less pore volume than it is inactive; its unit is m^3 with metres, rb with
// feet (FIELD), worked out by hand.
// NNC records (design decision 63): a connection of its own between cells that are not
// neighbours, added to the face's T between neighbours, in the unit system's transmissibility
// unit (METRIC here: cP m^3/day/bar); EDITNNC multiplies a connection (cells in either order);
// one that multiplies no connection of two active cells is an error, as are malformed records.
TEST(EclipseModel, NncRecordsAreConnectionsAndEditNncMultipliesThem) {
    const std::string rock_text =
        "PORO\n 6*0.2 /\nPERMX\n 6*100 /\nPERMY\n 6*100 /\n"
        "PERMZ\n 6*10 /\n";
    const TempFile file(
        rock_text +
        "NNC\n 1 1 1  3 2 1  2.0 /\n 1 1 1  2 1 1  0.5 /\n 2 2 1 1 1 1 1.5 2* /\n/\n"
        "EDITNNC\n 3 2 1  1 1 1  0.25 /\n/\n");
    const Grid3D g = make_grid(3, 2, 1);
    const EclipseGridData d = read_eclipse_grid(file.path(), {3, 2, 1});
    ASSERT_EQ(d.nnc.size(), 3u);
    ASSERT_EQ(d.editnnc.size(), 1u);
    RockFields rock = rock_of(g, spec_of(file), d);
    const double unit = units::kCentiPoise / units::kDay / units::kBar;
    const index_t c000 = g.cell(0, 0, 0), c210 = g.cell(2, 1, 0), c100 = g.cell(1, 0, 0);
    const index_t c110 = g.cell(1, 1, 0);
    ASSERT_EQ(rock.nnc_given.size(), 3u);
    EXPECT_EQ(rock.nnc_given[0].a, c000);
    EXPECT_EQ(rock.nnc_given[0].b, c210);
    EXPECT_DOUBLE_EQ(rock.nnc_given[0].t, 2.0 * 0.25 * unit);
    EXPECT_DOUBLE_EQ(rock.nnc_given[1].t, 0.5 * unit);
    // The transmissibilities: two connections of their own (sorted), one on the face.
    RockFields without = rock;
    without.nnc_given.clear();
    const Transmissibilities t = tpfa_transmissibilities(g, rock);
    const Transmissibilities u = tpfa_transmissibilities(g, without);
    ASSERT_EQ(t.nnc.size(), 2u);
    EXPECT_EQ(t.nnc[0].a, c000);
    EXPECT_EQ(t.nnc[0].b, c110);
    EXPECT_DOUBLE_EQ(t.nnc[0].t, 1.5 * unit);
    EXPECT_EQ(t.nnc[1].b, c210);
    EXPECT_DOUBLE_EQ(t.tx[c000], u.tx[c000] + 0.5 * unit);
    EXPECT_EQ(non_neighbour_connections(g, rock), 2u);
    EXPECT_EQ(c100, g.cell(1, 0, 0));

    const auto error = [&](const std::string& text) { return rock_error_of(rock_text + text); };
    EXPECT_THAT(error("NNC\n 1 1 1 1 1 1 1.0 /\n/\n"),
                HasSubstr(":10: NNC: the two cells are the same cell"));
    EXPECT_THAT(error("NNC\n 1 1 1 4 1 1 1.0 /\n/\n"),
                HasSubstr(":10: NNC: the second cell's I must be an integer in 1..3"));
    EXPECT_THAT(error("NNC\n 1 1 1 2 2 1 1.0 7 /\n/\n"),
                HasSubstr(":10: NNC: item 8 is given; heptane reads the two cells and the "
                          "transmissibility only"));
    EXPECT_THAT(error("NNC\n 1 1 1 2 2 1 -1 /\n/\n"),
                HasSubstr(":10: NNC: the transmissibility must be a finite number >= 0"));
    EXPECT_THAT(error("NNC\n 1 1 1 2 2 /\n/\n"), HasSubstr(":10: NNC: a record is I1 J1 K1"));
    EXPECT_THAT(error("EDITNNC\n 1 1 1 3 2 1 0.5 /\n/\n"),
                HasSubstr(":10: EDITNNC: the cells (i, j, k) = (0, 0, 0) and (i, j, k) = (2, 1, "
                          "0) have no non-neighbour connection to multiply"));
}

TEST(EclipseModel, MinpvMakesCellsOfLessPoreVolumeInactive) {
    // Cells of 10 x 10 x 1 (100 m^3, or 100 ft^3 = 2.8317 m^3 = 17.81 rb); PORO 0.2, 0.01, 0.05.
    const TempFile file(
        "DX\n 3*10 /\nDY\n 3*10 /\nDZ\n 3*1 /\nTOPS\n 3*0 /\n"
        "PORO\n 0.2 0.01 0.05 /\nMINPV\n 5 /\n");
    Grid3D g = make_grid(3, 1, 1);
    EclipseGridSpec spec = spec_of(file);
    const EclipseGridData d = read_grid_files(g, spec);
    EXPECT_EQ(d.minpv, 5.0);
    // Metres: pore volumes 20, 1, 5 m^3: the second is below 5, the third is not.
    EXPECT_EQ(rock_of(g, spec, d).active, (std::vector<std::uint8_t>{1, 0, 1}));
    // Feet: 3.56, 0.178, 0.89 rb: none reaches 5 rb, and against 0.5 rb the second is below.
    Grid3D gf = make_grid(3, 1, 1);
    EclipseGridSpec feet = spec_of(file);
    feet.length_unit = units::kFoot;
    const EclipseGridData df = read_grid_files(gf, feet);
    EXPECT_THAT(input_error_of([&] { rock_of(gf, feet, df); }),
                HasSubstr("no cell is active (ACTNUM 0, or no pore volume or less than MINPV"));
    EclipseGridData half = df;
    half.minpv = 0.5;
    EXPECT_EQ(rock_of(gf, feet, half).active, (std::vector<std::uint8_t>{1, 0, 1}));
    const auto error = [](const std::string& text) {
        const TempFile bad("PORO\n 6*0.2 /\n" + text);
        return input_error_of([&] { read_eclipse_grid(bad.path(), {3, 2, 1}); });
    };
    EXPECT_THAT(error("MINPV\n -1 /\n"), HasSubstr(":4: MINPV: the pore volume is '-1'"));
    EXPECT_THAT(error("MINPV\n 1 2 /\n"), HasSubstr(":3: MINPV: expected one pore volume"));
    EXPECT_THAT(error("MINPV\n 1\n"), HasSubstr("MINPV: the file ends before the '/'"));
    // MINPVV: each cell its own least pore volume (0 where not given): 20 m^3 against 25, 1
    // against 0.5, 5 unset.
    const TempFile each(
        "DX\n 3*10 /\nDY\n 3*10 /\nDZ\n 3*1 /\nTOPS\n 3*0 /\n"
        "PORO\n 0.2 0.01 0.05 /\nMINPVV\n 25 0.5 1* /\n");
    Grid3D ge = make_grid(3, 1, 1);
    const EclipseGridSpec each_spec = spec_of(each);
    const EclipseGridData de = read_grid_files(ge, each_spec);
    EXPECT_EQ(rock_of(ge, each_spec, de).active, (std::vector<std::uint8_t>{0, 1, 1}));
    EclipseGridData both = de;
    both.minpv = 1.0;
    EXPECT_THAT(input_error_of([&] { rock_of(ge, each_spec, both); }),
                HasSubstr("gives both MINPV and MINPVV; give one"));
    EclipseGridData negative = de;
    negative.arrays.at("MINPVV")[1] = -1.0;
    EXPECT_THAT(input_error_of([&] { rock_of(ge, each_spec, negative); }),
                HasSubstr("MINPVV of cell (i, j, k) = (1, 0, 0) is -1"));
}

// DXV, DYV, DZV: a size per column, row and layer; with TOPS of the top layer the depths stack.
TEST(EclipseModel, SizeVectorsGiveEveryCellItsColumnsRowsAndLayersSize) {
    const TempFile file("DXV\n 10 20 30 /\nDYV\n 5 /\nDZV\n 2 4 /\nTOPS\n 3*100 /\n");
    Grid3D g = make_grid(3, 1, 2);
    EclipseGridSpec spec = spec_of(file);
    read_grid_files(g, spec);
    ASSERT_FALSE(g.uniform());
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 2; ++k) {
            const index_t m = g.cell(i, 0, k);
            EXPECT_EQ(g.size_x(m), 10.0 * (i + 1));
            EXPECT_EQ(g.size_y(m), 5.0);
            EXPECT_EQ(g.size_z(m), k == 0 ? 2.0 : 4.0);
            EXPECT_EQ(g.centre_depth(m), k == 0 ? 101.0 : 104.0);  // top + layers above + dz / 2
        }
    }
}

// A whole .DATA deck: RUNSPEC gives dims and units, the reading stops at PROPS, and both are
// said in the notes (for stderr), never silently.
TEST(EclipseModel, AWholeDeckIsReadUpToItsGridSection) {
    const TempFile file(
        "RUNSPEC\nTITLE\n a deck\nDIMENS\n 2 1 1 /\nMETRIC\nOIL\nWATER\nSTART\n 1 JAN 2020 /\n"
        "GRID\nINIT\n/\nPORO\n 2*0.2 /\nPROPS\nSWOF\n 0 0 1 0 /\n/\nSCHEDULE\nWELSPECS\n/\n");
    const EclipseGridData d = read_eclipse_grid(file.path(), {2, 1, 1});
    EXPECT_EQ(d.units, "METRIC");
    EXPECT_EQ(d.arrays.at("PORO"), (std::vector<double>{0.2, 0.2}));
    ASSERT_EQ(d.notes.size(), 2u);
    EXPECT_THAT(
        d.notes[0],
        HasSubstr(
            "RUNSPEC: not used (the YAML deck says what they describe): TITLE, OIL, WATER, START"));
    EXPECT_THAT(d.notes[1], HasSubstr(":16: PROPS: grid.eclipse reads only the end-point arrays"));
    // A second file after the end of the first's GRID section is out of order.
    const TempFile more("PERMX\n 2*1 /\n");
    EXPECT_THAT(
        input_error_of([&] {
            read_eclipse_grid(std::vector<std::string>{file.path(), more.path()}, {2, 1, 1});
        }),
        HasSubstr("give the files in deck order"));
}

}  // namespace
}  // namespace heptane::grid

namespace heptane::grid {
namespace {

// The Egg model's own files (inputs/data/egg, unchanged): its INCLUDEs, ACTNUM, COPY and
// MULTIPLY PERMZ 0.1, against the counts its notice gives (computed independently, python).
TEST(EclipseModel, EggModelFromItsOwnFiles) {
    const std::string deck = test::source_path("inputs/data/egg/Egg_Model_ECL.DATA");
    Grid3D g = make_grid(60, 60, 7);
    EclipseGridSpec spec;
    spec.files = {deck};
    const EclipseGridData d = read_grid_files(g, spec);
    EXPECT_EQ(d.units, "METRIC");
    EXPECT_TRUE(g.uniform());  // 8 x 8 x 4 m, tops 4000, 4004, ... stacked
    EXPECT_EQ(g.dx, 8.0);
    EXPECT_EQ(g.dz, 4.0);
    EXPECT_EQ(g.top_depth, 4000.0);
    const RockFields rock = rock_of(g, spec, d);
    EXPECT_EQ(rock.num_active(), 18553);
    const int per_layer[7] = {2491, 2601, 2715, 2715, 2715, 2715, 2601};
    double low = INFINITY, high = 0.0;
    for (int k = 0; k < 7; ++k) {
        int active = 0;
        for (int i = 0; i < 60; ++i)
            for (int j = 0; j < 60; ++j) active += rock.is_active(g.cell(i, j, k)) ? 1 : 0;
        EXPECT_EQ(active, per_layer[k]) << "layer " << k;
    }
    for (index_t m = 0; m < g.num_cells(); ++m) {
        if (!rock.is_active(m)) continue;
        ASSERT_EQ(rock.ky[m], rock.kx[m]);
        const auto [i, j, k] = g.ijk(m);
        const auto n = static_cast<std::size_t>(i + 60 * (j + 60 * k));  // Eclipse order
        ASSERT_EQ(rock.kz[m], d.arrays.at("PERMX")[n] * 0.1 * units::kMilliDarcy);
        low = std::min(low, rock.kx[m] / units::kMilliDarcy);
        high = std::max(high, rock.kx[m] / units::kMilliDarcy);
    }
    EXPECT_NEAR(low, 81.8, 0.05);
    EXPECT_EQ(high, 7000.0);
}

}  // namespace
}  // namespace heptane::grid

namespace heptane::grid {
namespace {

// SPE1 case 2 with inactive cells (OPM's file, unchanged): EQUALS ACTNUM 0 in three boxes on
// an ACTNUM no keyword defined, so every other cell keeps Eclipse's default 1.
TEST(EclipseModel, Spe1ActnumFromItsOwnFile) {
    Grid3D g = make_grid(10, 10, 3);
    EclipseGridSpec spec;
    spec.files = {test::source_path("inputs/data/spe1/SPE1CASE2_ACTNUM.DATA")};
    const EclipseGridData d = read_grid_files(g, spec);
    EXPECT_EQ(d.units, "FIELD");
    ASSERT_FALSE(g.uniform());  // layers 20, 30 and 50 ft
    EXPECT_DOUBLE_EQ(g.size_z(g.cell(0, 0, 2)), 50 * units::kFoot);
    EXPECT_DOUBLE_EQ(g.centre_depth(g.cell(3, 4, 1)), (8325 + 20 + 15) * units::kFoot);
    const RockFields rock = rock_of(g, spec, d);
    EXPECT_EQ(rock.num_active(), 278);
    // The boxes, 1-based in the file: I 1-10 J 2 K 1; I 2 J 1-10 K 1; I 5 J 3 K 1-3.
    for (int i = 0; i < 10; ++i) EXPECT_FALSE(rock.is_active(g.cell(i, 1, 0)));
    for (int j = 0; j < 10; ++j) EXPECT_FALSE(rock.is_active(g.cell(1, j, 0)));
    for (int k = 0; k < 3; ++k) EXPECT_FALSE(rock.is_active(g.cell(4, 2, k)));
    EXPECT_TRUE(rock.is_active(g.cell(0, 0, 0)));
    EXPECT_TRUE(rock.is_active(g.cell(1, 1, 1)));
    EXPECT_EQ(rock.kx[g.cell(9, 9, 2)], 200 * units::kMilliDarcy);
}

// SPE9 (OPM's deck, unchanged): per-layer DZ, TOPS of the top layer dipping 10 degrees along
// x (TOPSVALUES.DATA), PORO per layer, PERMVALUES.DATA with its COPY and MULTIPLY.
TEST(EclipseModel, Spe9DeckGivesPerCellDepths) {
    Grid3D g = make_grid(24, 25, 15);
    EclipseGridSpec spec;
    spec.files = {test::source_path("inputs/data/spe9/SPE9.DATA")};
    const EclipseGridData d = read_grid_files(g, spec);
    EXPECT_EQ(d.units, "FIELD");
    ASSERT_FALSE(g.uniform());
    const double ft = units::kFoot;
    // Cell (1, 0, 0): top 9052.89809421 ft (the file's second TOPS value), DZ 20 ft.
    EXPECT_DOUBLE_EQ(g.centre_depth(g.cell(1, 0, 0)), 9052.89809421 * ft + 0.5 * 20 * ft);
    // Cell (0, 0, 2): top 9000 + 20 + 15 ft, DZ 26 ft.
    EXPECT_DOUBLE_EQ(g.centre_depth(g.cell(0, 0, 2)),
                     ((9000.0 * ft + 20 * ft) + 15 * ft) + 13 * ft);
    const RockFields rock = rock_of(g, spec, d);
    EXPECT_EQ(rock.num_active(), 9000);
    EXPECT_EQ(rock.porosity[g.cell(0, 0, 14)], 0.157);
    EXPECT_EQ(rock.kz[g.cell(0, 0, 0)], 49.29276 * 0.01 * units::kMilliDarcy);
}

}  // namespace
}  // namespace heptane::grid
