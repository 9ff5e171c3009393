// Corner-point geometry (grid/corner_point.hpp, design decision 62): COORD and ZCORN read as
// grid.eclipse files, against the Cartesian grid they describe (box cells), a sheared
// column worked out by hand (volume, depths, sizes, the half-transmissibilities of slanted
// faces), and the errors: a fault's throw between active cells, counts, mixed geometry.
#include "grid/corner_point.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "grid/eclipse_model.hpp"
#include "grid/transmissibility.hpp"

namespace heptane::grid {
namespace {

using test::input_error_of;
using test::TempFile;
using ::testing::HasSubstr;

/// Pillar (pi, pj)'s top and bottom points (x, y, depth).
using PillarFn = std::function<std::array<double, 6>(int, int)>;
/// Corner depth of cell (i, j, k)'s corner c = ci + 2 cj + 4 ck.
using DepthFn = std::function<double(int, int, int, int)>;

/// COORD and ZCORN of an nx x ny x nz grid, in Eclipse order.
std::string corner_text(int nx, int ny, int nz, const PillarFn& pillar, const DepthFn& depth) {
    std::ostringstream s;
    s.precision(17);
    s << "COORD\n";
    for (int pj = 0; pj <= ny; ++pj)
        for (int pi = 0; pi <= nx; ++pi)
            for (double v : pillar(pi, pj)) s << ' ' << v;
    s << " /\nZCORN\n";
    for (int k = 0; k < 2 * nz; ++k)
        for (int j = 0; j < 2 * ny; ++j)
            for (int i = 0; i < 2 * nx; ++i)
                s << ' ' << depth(i / 2, j / 2, k / 2, (i % 2) + 2 * (j % 2) + 4 * (k % 2));
    s << " /\n";
    return s.str();
}

Grid3D make_grid(int nx, int ny, int nz) {
    Grid3D g;
    g.nx = nx, g.ny = ny, g.nz = nz;
    return g;
}

Grid3D read(const std::string& text, int nx, int ny, int nz) {
    const TempFile file(text);
    Grid3D g = make_grid(nx, ny, nz);
    EclipseGridSpec spec;
    spec.files = {file.path()};
    read_grid_files(g, spec);
    return g;
}

std::string error_of(const std::string& text, int nx, int ny, int nz, bool cell_size = false) {
    const TempFile file(text);
    Grid3D g = make_grid(nx, ny, nz);
    EclipseGridSpec spec;
    spec.files = {file.path()};
    spec.has_cell_size = cell_size;
    return input_error_of([&] { read_grid_files(g, spec); });
}

RockFields rock_for(const Grid3D& g) {
    RockFields rock;
    const auto n = static_cast<std::size_t>(g.num_cells());
    for (std::size_t m = 0; m < n; ++m) {  // a different permeability in each cell
        rock.kx.push_back(1.0 + static_cast<double>(m));
        rock.ky.push_back(2.0 + 0.5 * static_cast<double>(m));
        rock.kz.push_back(0.1 + 0.01 * static_cast<double>(m));
    }
    rock.porosity.assign(n, 0.2);
    return rock;
}

// Columns of widths 10, 20, 10 (x) and 5, 7 (y), layers 2 and 3 thick from 1000 m: vertical
// pillars and flat layers are the Cartesian grid of DX, DY, DZ and TOPS.
constexpr double kX[4] = {0.0, 10.0, 30.0, 40.0};
constexpr double kY[3] = {0.0, 5.0, 12.0};
constexpr double kZ[3] = {1000.0, 1002.0, 1005.0};

TEST(CornerPoint, BoxesAreTheCartesianGrid) {
    const std::string cp = corner_text(
        3, 2, 2,
        [](int pi, int pj) {
            return std::array<double, 6>{kX[pi], kY[pj], 900.0, kX[pi], kY[pj], 1100.0};
        },
        [](int, int, int k, int c) { return kZ[k + (c >> 2)]; });
    const Grid3D a = read(cp, 3, 2, 2);
    const Grid3D b = read(
        "DX\n 10 20 10 10 20 10 10 20 10 10 20 10 /\nDY\n 3*5 3*7 3*5 3*7 /\nDZ\n 6*2 6*3 /\n"
        "TOPS\n 6*1000 /\n",
        3, 2, 2);
    ASSERT_TRUE(a.geometry && a.geometry->corner_point());
    ASSERT_TRUE(b.geometry && !b.geometry->corner_point());
    const auto near = [](double x, double y) { return std::abs(x - y) <= 1e-12 * std::abs(y); };
    for (index_t m = 0; m < a.num_cells(); ++m) {
        SCOPED_TRACE(cell_text(a, m));
        EXPECT_PRED2(near, a.volume(m), b.volume(m));
        EXPECT_PRED2(near, a.centre_depth(m), b.centre_depth(m));
        EXPECT_PRED2(near, a.size_x(m), b.size_x(m));
        EXPECT_PRED2(near, a.size_y(m), b.size_y(m));
        EXPECT_PRED2(near, a.size_z(m), b.size_z(m));
    }
    const RockFields rock = rock_for(a);
    const Transmissibilities ta = tpfa_transmissibilities(a, rock);
    const Transmissibilities tb = tpfa_transmissibilities(b, rock);
    for (std::size_t m = 0; m < ta.tx.size(); ++m) {
        EXPECT_NEAR(ta.tx[m], tb.tx[m], 1e-12 * tb.tx[m]) << m;
        EXPECT_NEAR(ta.ty[m], tb.ty[m], 1e-12 * tb.ty[m]) << m;
        EXPECT_NEAR(ta.tz[m], tb.tz[m], 1e-12 * tb.tz[m]) << m;
    }
    EXPECT_GT(ta.tx[0], 0.0);
    EXPECT_DOUBLE_EQ(a.top_depth, 1000.0);
}

TEST(CornerPoint, ShearedColumnByHand) {
    // One 4 x 3 column, layers 0-2 and 2-5 m deep, its pillars leaning 1 m in x per m of
    // depth: parallelepipeds. Volumes 24 and 36 (a shear keeps them); centres at depths 1 and
    // 3.5. The face between the layers: area vector (0, 0, 12); from cell 0's centre
    // (x 3, depth 1) to the face's (x 4, depth 2) d = (1, 0, 1): half 12 / 2 = 6; from cell
    // 1's (x 5.5, depth 3.5) d = (-1.5, 0, -1.5): 18 / 4.5 = 4. A slanted -x face of cell 0:
    // area (6, 0, -6), d = (-2, 0, 0): half 12 / 4 = 3 (the box's 2 A / L: A = 6, L = 4).
    // Its thickness, the depth between its top and bottom faces' centres (2, 1.5, 0) and
    // (4, 1.5, 2): 2 (not the 2 sqrt 2 between the two points).
    const std::string cp = corner_text(
        1, 1, 2,
        [](int pi, int pj) {
            const double x = 4.0 * pi, y = 3.0 * pj;
            return std::array<double, 6>{x, y, 0.0, x + 10.0, y, 10.0};
        },
        [](int, int, int k, int c) {
            return std::array<double, 3>{0.0, 2.0, 5.0}[k + (c >> 2)];
        });
    const Grid3D g = read(cp, 1, 1, 2);
    const CellGeometry& c = *g.geometry;
    EXPECT_NEAR(g.volume(0), 24.0, 1e-12);
    EXPECT_NEAR(g.volume(1), 36.0, 1e-12);
    EXPECT_NEAR(g.centre_depth(0), 1.0, 1e-15);
    EXPECT_NEAR(g.centre_depth(1), 3.5, 1e-15);
    EXPECT_NEAR(c.half[6 * 0 + 5], 6.0, 1e-12);  // cell 0, +z
    EXPECT_NEAR(c.half[6 * 1 + 4], 4.0, 1e-12);  // cell 1, -z
    EXPECT_NEAR(c.half[6 * 0 + 0], 3.0, 1e-12);  // cell 0, -x
    EXPECT_NEAR(g.size_x(0), 4.0, 1e-12);
    EXPECT_NEAR(g.size_y(0), 3.0, 1e-12);
    EXPECT_NEAR(g.size_z(0), 2.0, 1e-12);
    EXPECT_NEAR(g.size_z(1), 3.0, 1e-12);
    RockFields rock;
    rock.kx = rock.ky = rock.kz = {2.0, 2.0};
    rock.porosity = {0.2, 0.2};
    // T = (2 6) (2 4) / (2 6 + 2 4) = 4.8.
    EXPECT_NEAR(tpfa_transmissibilities(g, rock).tz[0], 4.8, 1e-12);
}

/// Two cells along i, cell 1's corners `throw_m` deeper.
std::string two_cells(double throw_m, const std::string& before = "") {
    return before + corner_text(
                        2, 1, 1,
                        [](int pi, int pj) {
                            return std::array<double, 6>{10.0 * pi, 10.0 * pj, 0.0,
                                                         10.0 * pi, 10.0 * pj, 100.0};
                        },
                        [=](int i, int, int, int c) {
                            return (c >> 2 ? 12.0 : 10.0) + (i == 1 ? throw_m : 0.0);
                        });
}

TEST(CornerPoint, AThrowBetweenActiveCellsIsRefusedWithTheCells) {
    EXPECT_NO_THROW(read(two_cells(0.0), 2, 1, 1));
    const std::string e = error_of(two_cells(5.0), 2, 1, 1);
    EXPECT_THAT(e, HasSubstr("grid.eclipse"));
    EXPECT_THAT(e, HasSubstr(":3: ZCORN: the face between cells (i, j, k) = (0, 0, 0) and "
                             "(i, j, k) = (1, 0, 0) does not match (corner depths 10.000000 "
                             "and 15.000000 m"));
    EXPECT_THAT(e, HasSubstr("no non-neighbour connections"));
    // With one of them inactive there is no face to connect.
    EXPECT_NO_THROW(read(two_cells(5.0, "ACTNUM\n 1 0 /\n"), 2, 1, 1));
}

TEST(CornerPoint, ErrorsNameTheFileLineAndKeyword) {
    const std::string cp = two_cells(0.0);
    const std::string zcorn = cp.substr(cp.find("ZCORN"));
    const std::string coord = cp.substr(0, cp.find("ZCORN"));
    EXPECT_THAT(error_of(zcorn, 2, 1, 1), HasSubstr("ZCORN needs COORD"));
    EXPECT_THAT(error_of(coord, 2, 1, 1), HasSubstr("COORD needs ZCORN"));
    EXPECT_THAT(error_of("COORD\n 6*0 /\n", 2, 1, 1),
                HasSubstr(":1: COORD: 6 values; grid.dims [2, 1, 1] needs 36"));
    EXPECT_THAT(error_of(coord + "ZCORN\n 4*1 /\n", 2, 1, 1),
                HasSubstr("ZCORN: 4 values; grid.dims [2, 1, 1] needs 16"));
    EXPECT_THAT(error_of(cp + "DX\n 2*1 /\n", 2, 1, 1),
                HasSubstr("DX and COORD / ZCORN both give the cells' geometry"));
    EXPECT_THAT(error_of(cp, 2, 1, 1, true), HasSubstr("grid.cell_size: the files of "));
    EXPECT_THAT(error_of("BOX\n 1 1 1 1 1 1 /\n" + cp, 2, 1, 1),
                HasSubstr(":3: COORD: corner-point geometry inside a BOX is not supported"));
    const std::string upside_down = corner_text(
        2, 1, 1,
        [](int pi, int pj) {
            return std::array<double, 6>{10.0 * pi, 10.0 * pj, 0.0, 10.0 * pi, 10.0 * pj, 100.0};
        },
        [](int, int, int, int c) { return c >> 2 ? 10.0 : 12.0; });
    EXPECT_THAT(error_of(upside_down, 2, 1, 1),
                HasSubstr("ZCORN: cell (i, j, k) = (0, 0, 0)'s bottom corner 0 (depth 10.000000 m) "
                          "is above its top one (12.000000 m)"));
    const std::string flat = "COORD\n 36*0 /\n" + zcorn;
    EXPECT_THAT(error_of(flat, 2, 1, 1),
                HasSubstr("COORD: pillar (i, j) = (0, 0) has the same depth at its top and "
                          "its bottom"));
}

// What corner-point decks carry with their geometry: MAPAXES (a note, nothing changes) and
// GRIDUNIT (the unit the lengths are read in, else an error).
TEST(CornerPoint, MapAxesIsANoteAndGridUnitMustBeTheFilesUnit) {
    const std::string metric = "RUNSPEC\nMETRIC\nGRID\n";
    const std::string cp = two_cells(0.0);
    {
        const TempFile file(metric + "MAPAXES\n 0 100 0 0 100 0 /\nGRIDUNIT\n 'METRES' /\n" + cp);
        Grid3D g = make_grid(2, 1, 1);
        EclipseGridSpec spec;
        spec.files = {file.path()};
        const EclipseGridData d = read_grid_files(g, spec);
        ASSERT_FALSE(d.notes.empty());
        EXPECT_THAT(d.notes[0],
                    HasSubstr(":4: MAPAXES: the map's axes only place the grid on a map"));
        EXPECT_NEAR(g.volume(0), 10.0 * 10.0 * 2.0, 1e-12);  // metres, as given
    }
    EXPECT_THAT(error_of(metric + "GRIDUNIT\n FEET /\n" + cp, 2, 1, 1),
                HasSubstr(":4: GRIDUNIT: FEET, but the files' lengths are read in m"));
    EXPECT_THAT(error_of("GRIDUNIT\n MILES /\n", 2, 1, 1),
                HasSubstr(":1: GRIDUNIT: expected FEET, METRES or CM [MAP], then '/'"));
    EXPECT_THAT(error_of("MAPAXES\n 0 100 0 /\n", 2, 1, 1),
                HasSubstr(":1: MAPAXES: expected 6 numbers (x1 y1 x0 y0 x2 y2), then '/'"));
}

}  // namespace
}  // namespace heptane::grid
