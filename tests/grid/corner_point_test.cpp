// Corner-point geometry (grid/corner_point.hpp, design decisions 62 and 63): COORD and ZCORN
// read as grid.eclipse files, against the Cartesian grid they describe (box cells), a sheared
// column worked out by hand (volume, depths, sizes, the half-transmissibilities of slanted
// faces), faults' throws worked out by hand (the overlaps' halves across the face and the
// non-neighbour connections, in i and in j, sloping, with inactive cells), and the errors: a
// gap between the layers of a column, counts, mixed geometry.
#include "grid/corner_point.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "core/base/units.hpp"
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

/// The files' data read for g (its geometry set).
EclipseGridData read_data(const std::string& text, Grid3D& g) {
    const TempFile file(text);
    EclipseGridSpec spec;
    spec.files = {file.path()};
    return read_grid_files(g, spec);
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
    EXPECT_TRUE(a.geometry->nnc.empty());  // matching columns: no fault
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

TEST(CornerPoint, AThrowBetweenActiveCellsIsConnectedThroughTheOverlap) {
    // Cells 10-12 m deep, 10 m x 10 m; the second 1 m deeper: they share 11-12 m of the face
    // x = 10, area 10, centre (10, 5, 11.5). From cell 0's centre (5, 5, 11) d = (5, 0, 0.5):
    // half 10 * 5 / 25.25; from cell 1's (15, 5, 12) d = (-5, 0, -0.5): the same.
    const Grid3D g = read(two_cells(1.0), 2, 1, 1);
    const CellGeometry& c = *g.geometry;
    EXPECT_NEAR(c.half[6 * 0 + 1], 50.0 / 25.25, 1e-12);
    EXPECT_NEAR(c.half[6 * 1 + 0], 50.0 / 25.25, 1e-12);
    EXPECT_TRUE(c.nnc.empty());  // one layer: no other layers to connect
    // A throw of 5 m: cells 10-12 and 15-17 m deep do not touch: no connection.
    const Grid3D far = read(two_cells(5.0), 2, 1, 1);
    EXPECT_EQ(far.geometry->half[6 * 0 + 1], 0.0);
    EXPECT_EQ(far.geometry->half[6 * 1 + 0], 0.0);
    EXPECT_TRUE(far.geometry->nnc.empty());
    EXPECT_NO_THROW(read(two_cells(5.0, "ACTNUM\n 1 0 /\n"), 2, 1, 1));
}

// The EDIT section's TRANX (design decision 72) on a fault's face: it sets the face where the
// two cells share it (a 1 m throw), and makes no connection where they do not (5 m: OPM has
// no such face either).
TEST(CornerPoint, TranxEditsOnlyFacesTheCellsShare) {
    const std::string rock_and_edit =
        "PORO\n 2*0.2 /\nPERMX\n 2*100 /\nPERMY\n 2*100 /\nPERMZ\n 2*100 /\n"
        "EDIT\nEQUALS\n TRANX 3 /\n/\n";
    const double unit = units::kCentiPoise / units::kDay / units::kBar;  // METRIC
    for (const double throw_m : {1.0, 5.0}) {
        Grid3D g = make_grid(2, 1, 1);
        const TempFile file("RUNSPEC\nMETRIC\nGRID\n" + two_cells(throw_m) + rock_and_edit);
        EclipseGridSpec spec;
        spec.files = {file.path()};
        const EclipseGridData d = read_grid_files(g, spec);
        RockFields rock;
        apply_eclipse_rock(g, spec, d, false, false, rock);
        EXPECT_EQ(tpfa_transmissibilities(g, rock).tx[0], throw_m == 1.0 ? 3.0 * unit : 0.0)
            << throw_m;
    }
}

/// Two columns of three 2 m layers from 1000 m deep on vertical pillars, along i (axis 0:
/// nx = 2, columns 10 and 20 m wide in x, 10 m in y) or along j (axis 1: ny = 2, x and y
/// swapped). The second column's corners are `throw0` deeper on the first shared pillar
/// (y = 0, or x = 0) and `throw1` on the second (y = 10, or x = 10), and as much on its far
/// pillars. Cells are m = k (first column) and 3 + k (second); in the fault's plane (x = 10,
/// or y = 10) "along" is the distance from the first shared pillar.
std::string two_columns(int axis, double throw0, double throw1, const std::string& before = "") {
    const double wide[3] = {0.0, 10.0, 30.0};
    return before + corner_text(
                        axis == 0 ? 2 : 1, axis == 0 ? 1 : 2, 3,
                        [=](int pi, int pj) {
                            const double x = axis == 0 ? wide[pi] : 10.0 * pi;
                            const double y = axis == 0 ? 10.0 * pj : wide[pj];
                            return std::array<double, 6>{x, y, 900.0, x, y, 1100.0};
                        },
                        [=](int i, int j, int k, int c) {
                            const bool second = (axis == 0 ? i : j) == 1;
                            const int along = axis == 0 ? (c >> 1) & 1 : c & 1;
                            const double shift = second ? (along == 0 ? throw0 : throw1) : 0.0;
                            return 1000.0 + 2.0 * (k + (c >> 2)) + shift;
                        });
}

Grid3D read_columns(int axis, double throw0, double throw1, const std::string& before = "") {
    return read(two_columns(axis, throw0, throw1, before), axis == 0 ? 2 : 1, axis == 0 ? 1 : 2, 3);
}

/// |A . d| / (d . d) for an overlap of `area` [m^2] in the fault's plane (10 m across from the
/// first column's far side) with its centre at (along, depth), seen from a cell centre at
/// (across, 5, cell_depth): across 5 in the first column, 20 in the second.
double expected_half(double area, double along, double depth, double across, double cell_depth) {
    const double d0 = 10.0 - across, d1 = along - 5.0, d2 = depth - cell_depth;
    return area * std::abs(d0) / (d0 * d0 + d1 * d1 + d2 * d2);
}

/// An overlap in the fault's plane: its area and centre (along, depth).
struct PlaneOverlap {
    double area, along, depth;
};

/// The area and centroid of the polygon (along, depth) by the shoelace formula (vertices in
/// order), independent of the code under test's 3D triangle fan.
PlaneOverlap shoelace(const std::vector<std::array<double, 2>>& v) {
    double twice = 0.0, x = 0.0, y = 0.0;
    for (std::size_t r = 0; r < v.size(); ++r) {
        const auto& p = v[r];
        const auto& q = v[(r + 1) % v.size()];
        const double w = p[0] * q[1] - q[0] * p[1];
        twice += w;
        x += (p[0] + q[0]) * w;
        y += (p[1] + q[1]) * w;
    }
    return {std::abs(twice) / 2.0, x / (3.0 * twice), y / (3.0 * twice)};
}

void expect_connection(const CellConnection& c, index_t a, index_t b, int axis, double half_a,
                       double half_b) {
    EXPECT_EQ(c.a, a);
    EXPECT_EQ(c.b, b);
    EXPECT_EQ(c.axis, axis);
    EXPECT_NEAR(c.half_a, half_a, 1e-12 * half_a) << "(" << a << ", " << b << ")";
    EXPECT_NEAR(c.half_b, half_b, 1e-12 * half_b) << "(" << a << ", " << b << ")";
}

/// The halves of the stencil's face between cells k and 3 + k across the fault.
std::pair<double, double> stencil_halves(const Grid3D& g, int axis, int k) {
    const CellGeometry& c = *g.geometry;
    return {c.half[6 * k + 2 * axis + 1], c.half[6 * (3 + k) + 2 * axis]};
}

TEST(CornerPoint, AThrowOfHalfALayerConnectsEachLayerToTheNextOneDown) {
    for (int axis : {0, 1}) {
        SCOPED_TRACE("axis " + std::to_string(axis));
        // The first column's layer k is 1000 + 2k to 1002 + 2k m deep, centre (5, 5, 1001 +
        // 2k); the second's 1 m deeper, centre (20, 5, 1002 + 2k). Layer k of each shares
        // 1001 + 2k to 1002 + 2k: 1 m x 10 m, centre depth 1001.5 + 2k: d = (5, 0, 0.5) and
        // (-10, 0, -0.5).
        const Grid3D g = read_columns(axis, 1.0, 1.0);
        for (int k = 0; k < 3; ++k) {
            const auto [a, b] = stencil_halves(g, axis, k);
            EXPECT_NEAR(a, 10.0 * 5.0 / 25.25, 1e-12) << k;
            EXPECT_NEAR(b, 10.0 * 10.0 / 100.25, 1e-12) << k;
            EXPECT_NEAR(a, expected_half(10.0, 5.0, 1001.5 + 2 * k, 5.0, 1001.0 + 2 * k), 1e-12);
            EXPECT_NEAR(b, expected_half(10.0, 5.0, 1001.5 + 2 * k, 20.0, 1002.0 + 2 * k), 1e-12);
        }
        // The first column's layer k + 1 (1002 + 2k to 1004 + 2k) meets the second's layer k
        // (1001 + 2k to 1003 + 2k) on 1002 + 2k to 1003 + 2k: area 10, centre depth 1002.5 +
        // 2k; d = (5, 0, -0.5) and (-10, 0, 0.5). No other pair overlaps.
        const std::vector<CellConnection>& nnc = g.geometry->nnc;
        ASSERT_EQ(nnc.size(), 2u);
        expect_connection(nnc[0], 1, 3, axis, 50.0 / 25.25, 100.0 / 100.25);
        expect_connection(nnc[1], 2, 4, axis, 50.0 / 25.25, 100.0 / 100.25);
        // Conservation of face area: each connection's area back from its half (A = half
        // d . d / |d_across|, the overlaps' centres as above) sums, over a cell's faulted face,
        // to the part of it the other column covers (it covers 1001 to 1007 m, or 1000 to
        // 1006): first column 10, 20, 20 m^2, second 20, 20, 10.
        const auto area = [](double half, double across, double depth, double cell_depth) {
            const double d0 = 10.0 - across, d2 = depth - cell_depth;
            return half * (d0 * d0 + d2 * d2) / std::abs(d0);
        };
        const double first[3] = {10.0, 20.0, 20.0}, second[3] = {20.0, 20.0, 10.0};
        for (int k = 0; k < 3; ++k) {
            const auto [a, b] = stencil_halves(g, axis, k);
            double sum_a = area(a, 5.0, 1001.5 + 2 * k, 1001.0 + 2 * k);
            double sum_b = area(b, 20.0, 1001.5 + 2 * k, 1002.0 + 2 * k);
            for (const CellConnection& c : nnc) {
                const double depth = 1000.5 + 2.0 * static_cast<double>(c.a);  // its centre
                if (c.a == k) sum_a += area(c.half_a, 5.0, depth, 1001.0 + 2 * k);
                if (c.b == 3 + k) sum_b += area(c.half_b, 20.0, depth, 1002.0 + 2 * k);
            }
            EXPECT_NEAR(sum_a, first[k], 1e-11) << k;
            EXPECT_NEAR(sum_b, second[k], 1e-11) << k;
        }
    }
}

// The connections' transmissibilities: the two halves in series with the permeability of the
// face's axis, times the connection's own multiplier (RockFields::nnc_mult), none with an
// inactive cell.
TEST(CornerPoint, ConnectionsTransmissibilitiesTakeTheirMultiplier) {
    for (int axis : {0, 1}) {
        SCOPED_TRACE("axis " + std::to_string(axis));
        const Grid3D g = read_columns(axis, 1.0, 1.0);
        RockFields rock = rock_for(g);
        const std::vector<double>& k = axis == 0 ? rock.kx : rock.ky;
        const std::vector<CellConnection>& nnc = g.geometry->nnc;
        ASSERT_EQ(nnc.size(), 2u);
        const Transmissibilities t = tpfa_transmissibilities(g, rock);
        ASSERT_EQ(t.nnc.size(), 2u);
        for (int n = 0; n < 2; ++n) {
            const CellConnection& c = nnc[n];
            const double ta = k[c.a] * c.half_a, tb = k[c.b] * c.half_b;
            EXPECT_EQ(t.nnc[n].a, c.a);
            EXPECT_EQ(t.nnc[n].b, c.b);
            EXPECT_DOUBLE_EQ(t.nnc[n].t, ta * tb / (ta + tb)) << n;
        }
        (axis == 0 ? rock.multx : rock.multy)
            .assign(static_cast<std::size_t>(g.num_cells()),
                    0.25);  // the stencil faces' only
        rock.nnc_mult = {0.5, 1.0};
        const Transmissibilities half = tpfa_transmissibilities(g, rock);
        EXPECT_DOUBLE_EQ(half.nnc[0].t, 0.5 * t.nnc[0].t);
        EXPECT_DOUBLE_EQ(half.nnc[1].t, t.nnc[1].t);
        rock.active.assign(static_cast<std::size_t>(g.num_cells()), 1);
        rock.active[4] = 0;
        const Transmissibilities without = tpfa_transmissibilities(g, rock);
        ASSERT_EQ(without.nnc.size(), 1u);
        EXPECT_EQ(without.nnc[0].b, 3);
    }
}

// A fault connection's multiplier is its own cells' (as OPM applies them to the faces it
// joins): MULTX of its - side cell, MULTX- of its + side cell, MULTREGT of its two cells'
// regions, where the record's NNC type takes non-neighbour connections (ALL, NNC; not NONNC).
TEST(CornerPoint, ConnectionsTakeTheirOwnCellsMultipliers) {
    // Layers in MULTNUM regions 1, 2, 3 (both columns); connections (1, 3): layer 1 against
    // the thrown column's layer 0 (regions 2 and 1), (2, 4): layer 2 against layer 1 (3, 2).
    const std::string rock_text =
        "PORO\n 6*0.2 /\nMULTNUM\n 2*1 2*2 2*3 /\n"
        "MULTREGT\n 1 2 0.5 /\n 2 3 0.25 XYZ NNC /\n 1 3 0.125 XYZ NONNC /\n/\n"
        "MULTX-\n 1 0.1 4*1 /\n"  // cell (1, 0, 0) = 3's - face
        "MULTX\n 4*1 0.3 1 /\n";  // cell (0, 0, 2) = 2's + face
    const TempFile file(two_columns(0, 1.0, 1.0, rock_text));
    Grid3D g = make_grid(2, 1, 3);
    EclipseGridSpec spec;
    spec.files = {file.path()};
    const EclipseGridData d = read_grid_files(g, spec);
    RockFields rock = rock_for(g);
    apply_eclipse_rock(g, spec, d, true, false, rock);
    ASSERT_EQ(g.geometry->nnc.size(), 2u);
    EXPECT_EQ(g.geometry->nnc[0].a, 1);
    EXPECT_EQ(g.geometry->nnc[0].b, 3);
    ASSERT_EQ(rock.nnc_mult.size(), 2u);
    EXPECT_DOUBLE_EQ(rock.nnc_mult[0], 0.5 * 0.1);   // MULTREGT 1-2, MULTX- of 3
    EXPECT_DOUBLE_EQ(rock.nnc_mult[1], 0.25 * 0.3);  // MULTREGT 2-3 (NNC only), MULTX of 2
    // The stencil faces: MULTX- of 3 on cell 0's + face, MULTX of 2 on its own; the vertical
    // faces 1-2 (0.5) but not 2-3 (NNC only).
    EXPECT_DOUBLE_EQ(rock.multx[0], 0.1);
    EXPECT_DOUBLE_EQ(rock.multx[2], 0.3);
    EXPECT_DOUBLE_EQ(rock.multz[0], 0.5);
    EXPECT_DOUBLE_EQ(rock.multz[1], 1.0);
    // The transmissibilities take them.
    const Transmissibilities t = tpfa_transmissibilities(g, rock);
    RockFields plain = rock;
    plain.nnc_mult.clear();
    const Transmissibilities u = tpfa_transmissibilities(g, plain);
    ASSERT_EQ(t.nnc.size(), 2u);
    EXPECT_DOUBLE_EQ(t.nnc[0].t, 0.05 * u.nnc[0].t);
    EXPECT_DOUBLE_EQ(t.nnc[1].t, 0.075 * u.nnc[1].t);
}

TEST(CornerPoint, AThrowLargerThanALayerConnectsTwoLayersDown) {
    for (int axis : {0, 1}) {
        SCOPED_TRACE("axis " + std::to_string(axis));
        // The second column 2.5 m deeper: its layer k is 1002.5 + 2k to 1004.5 + 2k, centre
        // 1003.5 + 2k; no layer meets its own. Layer 1 of the first meets layer 0 of the
        // second on 1002.5-1004 (area 15, centre 1003.25), layer 2 meets layer 0 on
        // 1004-1004.5 (area 5, centre 1004.25) and layer 1 on 1004.5-1006 (area 15, 1005.25).
        const Grid3D g = read_columns(axis, 2.5, 2.5);
        for (int k = 0; k < 3; ++k) {
            EXPECT_EQ(stencil_halves(g, axis, k).first, 0.0) << k;
            EXPECT_EQ(stencil_halves(g, axis, k).second, 0.0) << k;
        }
        const std::vector<CellConnection>& nnc = g.geometry->nnc;
        ASSERT_EQ(nnc.size(), 3u);
        // Cell 1: d = (5, 0, 0.25); cell 3: (-10, 0, -0.25): 75 / 25.0625, 150 / 100.0625.
        expect_connection(nnc[0], 1, 3, axis, 75.0 / 25.0625, 150.0 / 100.0625);
        // Cell 2: d = (5, 0, -0.75); cell 3: (-10, 0, 0.75).
        expect_connection(nnc[1], 2, 3, axis, 25.0 / 25.5625, 50.0 / 100.5625);
        // Cell 2: d = (5, 0, 0.25); cell 4: (-10, 0, -0.25).
        expect_connection(nnc[2], 2, 4, axis, 75.0 / 25.0625, 150.0 / 100.0625);
    }
}

TEST(CornerPoint, ASlopingThrowsOverlapsAgainstTheirPolygonsByHand) {
    // The second column thrown t0 on the first shared pillar and t1 on the second; depths
    // below relative to the first column's layer k top (1000 + 2k), along = 10 s. Its layer k'
    // is 2 (k' - k) + t0 + (t1 - t0) s to 2 m deeper; its centre 1001 + 2k' + (t0 + t1) / 2.
    struct Case {
        double t0, t1;
        int dk;                                      // k' - k
        double thickness_integral;                   // of the overlap's over s in [0, 1]
        std::vector<std::array<double, 2>> polygon;  // (along, depth - 1000 - 2k)
        std::vector<std::array<index_t, 2>> pairs;   // (k, k') with k' = k + dk, k in [0, 3)
    };
    const std::vector<Case> cases = {
        // Tops 0 and 0.5 + s do not cross: thickness 2 - (0.5 + s), integral 1.
        {0.5, 1.5, 0, 1.0, {{0, 0.5}, {10, 1.5}, {10, 2}, {0, 2}}, {{0, 0}, {1, 1}, {2, 2}}},
        // Layer k' = k - 1, -1.5 + s to 0.5 + s: thickness 0.5 + s, integral 1.
        {0.5, 1.5, -1, 1.0, {{0, 0}, {10, 0}, {10, 1.5}, {0, 0.5}}, {{1, 0}, {2, 1}}},
        // Tops 0 and -0.5 + 2s cross at s = 0.25, so do the bottoms 2 and 1.5 + 2s: thickness
        // 1.5 + 2s then 2.5 - 2s, integral 0.4375 + 0.9375.
        {-0.5,
         1.5,
         0,
         1.375,
         {{0, 0}, {2.5, 0}, {10, 1.5}, {10, 2}, {2.5, 2}, {0, 1.5}},
         {{0, 0}, {1, 1}, {2, 2}}},
        // k' = k + 1, 1.5 + 2s to 3.5 + 2s: thickness 0.5 - 2s up to s = 0.25, integral 0.0625.
        {-0.5, 1.5, 1, 0.0625, {{0, 1.5}, {2.5, 2}, {0, 2}}, {{0, 1}, {1, 2}}},
        // k' = k - 1, -2.5 + 2s to -0.5 + 2s: thickness 2s - 0.5 from s = 0.25, integral 0.5625.
        {-0.5, 1.5, -1, 0.5625, {{2.5, 0}, {10, 0}, {10, 1.5}}, {{1, 0}, {2, 1}}},
    };
    for (int axis : {0, 1}) {
        // Conservation of face area: cell 1's faulted face (20 m^2) is covered whole, so the
        // areas back from its halves (A = half d . d / |d_across|) sum to 20 for each throw.
        double covered[2] = {0.0, 0.0};  // throws (0.5, 1.5) and (-0.5, 1.5)
        for (const Case& c : cases) {
            SCOPED_TRACE("axis " + std::to_string(axis) + ", throws " + std::to_string(c.t0) +
                         " and " + std::to_string(c.t1) + ", k' - k " + std::to_string(c.dk));
            const Grid3D g = read_columns(axis, c.t0, c.t1);
            const PlaneOverlap o = shoelace(c.polygon);
            const double area = 10.0 * c.thickness_integral;  // d(along) = 10 ds
            EXPECT_NEAR(o.area, area, 1e-12);                 // the hand polygon is the integral's
            for (const auto& [k, kb] : c.pairs) {
                const double depth = 1000.0 + 2.0 * k + o.depth;
                const double half_a = expected_half(area, o.along, depth, 5.0, 1001.0 + 2 * k);
                const double half_b =
                    expected_half(area, o.along, depth, 20.0, 1001.0 + 2 * kb + (c.t0 + c.t1) / 2);
                double got = 0.0;  // cell k's half
                if (c.dk == 0) {
                    const auto [a, b] = stencil_halves(g, axis, static_cast<int>(k));
                    EXPECT_NEAR(a, half_a, 1e-12 * half_a) << k;
                    EXPECT_NEAR(b, half_b, 1e-12 * half_b) << k;
                    got = a;
                } else {
                    const CellConnection* found = nullptr;
                    for (const CellConnection& n : g.geometry->nnc) {
                        if (n.a == k && n.b == 3 + kb) found = &n;
                    }
                    ASSERT_NE(found, nullptr) << k << " against " << kb;
                    expect_connection(*found, k, 3 + kb, axis, half_a, half_b);
                    got = found->half_a;
                }
                if (k == 1) {
                    const double d1 = o.along - 5.0, d2 = depth - 1003.0;
                    covered[c.t0 < 0.0] += got * (25.0 + d1 * d1 + d2 * d2) / 5.0;
                }
            }
        }
        EXPECT_NEAR(covered[0], 20.0, 1e-11);
        EXPECT_NEAR(covered[1], 20.0, 1e-11);
        // Only the listed pairs connect, sorted by (a, b).
        const auto list = [&](double t0, double t1) {
            std::vector<std::array<index_t, 2>> ab;
            const Grid3D g = read_columns(axis, t0, t1);
            for (const CellConnection& n : g.geometry->nnc) ab.push_back({n.a, n.b});
            return ab;
        };
        EXPECT_EQ(list(0.5, 1.5), (std::vector<std::array<index_t, 2>>{{1, 3}, {2, 4}}));
        EXPECT_EQ(list(-0.5, 1.5),
                  (std::vector<std::array<index_t, 2>>{{0, 4}, {1, 3}, {1, 5}, {2, 4}}));
    }
}

TEST(CornerPoint, AnInactiveCellHasNoConnectionsAndTheOthersAreUnchanged) {
    for (int axis : {0, 1}) {
        SCOPED_TRACE("axis " + std::to_string(axis));
        // The 1 m throw with the second column's layer 1 (cell 4) inactive: Eclipse number
        // 3 (i = 1, k = 1 of 2 x 1 x 3) or 3 (j = 1, k = 1 of 1 x 2 x 3).
        const Grid3D all = read_columns(axis, 1.0, 1.0);
        const Grid3D g = read_columns(axis, 1.0, 1.0, "ACTNUM\n 1 1 1 0 1 1 /\n");
        const std::vector<CellConnection>& nnc = g.geometry->nnc;
        ASSERT_EQ(nnc.size(), 1u);  // (2, 4) is gone
        expect_connection(nnc[0], 1, 3, axis, 50.0 / 25.25, 100.0 / 100.25);
        EXPECT_EQ(stencil_halves(g, axis, 1).first, 0.0);
        EXPECT_EQ(stencil_halves(g, axis, 1).second, 0.0);
        const std::vector<double>& h = g.geometry->half;
        for (std::size_t r = 0; r < h.size(); ++r) {
            const auto across = static_cast<std::size_t>(2 * axis);
            if (r == 6 * 1 + across + 1 || r == 6 * 4 + across) continue;
            EXPECT_EQ(h[r], all.geometry->half[r]) << r;
        }
    }
}

// Design decision 70: a void between the layers of a column is joined through the upper
// cell's bottom face (OPM Flow's rule), unless PINCH's item 3 is smaller; an overlap is refused.
TEST(CornerPoint, AVoidBetweenTheLayersOfAColumnIsJoinedAnOverlapRefused) {
    // One 10 x 10 m column, layers 10-12 and `top`-14 m deep.
    const auto column = [](double top, const std::string& before) {
        return before +
               corner_text(
                   1, 1, 2,
                   [](int pi, int pj) {
                       return std::array<double, 6>{10.0 * pi, 10.0 * pj, 0.0,
                                                    10.0 * pi, 10.0 * pj, 100.0};
                   },
                   [top](int, int, int k, int c) {
                       return std::array<double, 4>{10.0, 12.0, top, 14.0}[2 * k + (c >> 2)];
                   });
    };
    // A void of 0.5 m: the lower cell's half from its centre (13.25 m) to 12 m, the upper
    // cell's own (1 m): 100 / 1.25 and 100 / 1.
    const Grid3D g = read(column(12.5, ""), 1, 1, 2);
    EXPECT_DOUBLE_EQ(g.geometry->half[5], 100.0);
    EXPECT_DOUBLE_EQ(g.geometry->half[6 + 4], 100.0 / 1.25);
    RockFields rock = rock_for(g);
    const double ka = rock.kz[0], kb = rock.kz[1];
    const double t = tpfa_transmissibilities(g, rock).tz[0];
    EXPECT_NEAR(t, ka * 100.0 * kb * 80.0 / (ka * 100.0 + kb * 80.0), 1e-15 * t);
    // PINCH's item 3 below the void: not joined; at it: joined.
    const Grid3D apart = read(column(12.5, "PINCH\n 2* 0.4 /\n"), 1, 1, 2);
    EXPECT_EQ(apart.geometry->half[6 + 4], 0.0);
    EXPECT_EQ(tpfa_transmissibilities(apart, rock_for(apart)).tz[0], 0.0);
    const Grid3D joined = read(column(12.5, "PINCH\n 2* 0.5 /\n"), 1, 1, 2);
    EXPECT_EQ(joined.geometry->half[6 + 4], 100.0 / 1.25);
    // Touching within the tolerance: the matching face, both halves the cells' own (the
    // lower one 2 - 1e-7 m thick: 100 / (1 - 0.5e-7), not through the upper cell's face).
    EXPECT_NEAR(read(column(12.0 + 1e-7, ""), 1, 1, 2).geometry->half[6 + 4],
                100.0 / (1.0 - 0.5e-7), 1e-9);  // through the upper face: 99.999995
    // An overlap of 0.5 m: refused with both cells.
    const std::string e = error_of(column(11.5, ""), 1, 1, 2);
    EXPECT_THAT(e, HasSubstr("grid.eclipse"));
    EXPECT_THAT(e, HasSubstr(":3: ZCORN: cells (i, j, k) = (0, 0, 0) and (i, j, k) = (0, 0, 1) "
                             "overlap (corner depths 12.000000 and 11.500000 m"));
    // With one of them inactive there is no face to connect.
    EXPECT_NO_THROW(read(column(11.5, "ACTNUM\n 1 0 /\n"), 1, 1, 2));
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

// The head of a real deck's GRID section (Norne's: NEWTRAN, GRIDFILE, MAPAXES, INIT, MESSAGES):
// NEWTRAN is heptane's rule for corner-point cells (the same geometry as without it), the
// output and message controls are notes; OLDTRAN on corner-point cells and NEWTRAN on box
// cells are errors (heptane computes those by the other rule).
TEST(CornerPoint, NewtranIsItsRuleAndOutputControlsAreNotes) {
    const std::string cp = two_cells(0.0);
    const std::string head =
        "GRID\nNEWTRAN\nGRIDFILE\n  0  1 /\nMAPAXES\n 0.  100.  0.  0.  100.  0.  /\nINIT\n"
        "MESSAGES\n 8*10000  20000 10000 1000 1* /\nRPTGRID\n DX DY /\n";
    Grid3D with = make_grid(2, 1, 1), without = make_grid(2, 1, 1);
    const EclipseGridData d = read_data(head + cp, with);
    read_data(cp, without);
    EXPECT_EQ(with.geometry->half, without.geometry->half);
    EXPECT_EQ(with.geometry->volume, without.geometry->volume);
    ASSERT_EQ(d.notes.size(), 4u);
    EXPECT_THAT(d.notes[0], HasSubstr(":3: GRIDFILE: an Eclipse output request, not used"));
    EXPECT_THAT(d.notes[2], HasSubstr(":8: MESSAGES: Eclipse's message limits, not used"));
    EXPECT_THAT(d.notes[3], HasSubstr(":10: RPTGRID: an Eclipse output request"));
    EXPECT_THAT(error_of("OLDTRAN\n" + cp, 2, 1, 1),
                HasSubstr(":1: OLDTRAN: heptane computes the transmissibilities of COORD and "
                          "ZCORN cells from their faces"));
    EXPECT_THAT(error_of("NEWTRAN\n/\nDX\n 2*1 /\nDY\n 2*1 /\nDZ\n 2*1 /\nTOPS\n 2*0 /\n", 2, 1, 1),
                HasSubstr(":1: NEWTRAN: heptane computes the transmissibilities of cells given "
                          "by their sizes from those sizes"));
    EXPECT_THAT(error_of("GRIDFILE\n 0 1\n", 2, 1, 1),
                HasSubstr(":1: GRIDFILE: the file ends before the '/' that closes it"));
}

// The head of a Petrel export (MAPUNITS, MAPAXES, GRIDUNIT and COORDSYS with blank-padded
// strings, SPECGRID): read, the geometry as without it; the strings' blanks do not count;
// COORDSYS must be the one reservoir's, over every layer.
TEST(CornerPoint, APetrelExportsHeadIsRead) {
    const std::string cp = two_cells(0.0);
    const std::string head =
        "MAPUNITS\n 'METRES ' /\nMAPAXES\n 0. 100. 0. 0. 100. 0. /\nGRIDUNIT\n 'METRES ' '  ' /\n"
        "SPECGRID\n 2 1 1 1 F /\nCOORDSYS\n 1 1 'INCOMP ' /\n";
    Grid3D with = make_grid(2, 1, 1), without = make_grid(2, 1, 1);
    const EclipseGridData d = read_data("RUNSPEC\nMETRIC\nGRID\n" + head + cp, with);
    read_data("RUNSPEC\nMETRIC\nGRID\n" + cp, without);
    EXPECT_EQ(with.geometry->half, without.geometry->half);
    ASSERT_EQ(d.notes.size(), 3u);
    EXPECT_THAT(d.notes[0], HasSubstr(":4: MAPUNITS: the unit of MAPAXES' map"));
    EXPECT_THAT(d.notes[2], HasSubstr(":12: COORDSYS: one coordinate system over every layer"));
    EXPECT_THAT(error_of("COORDSYS\n 1 1 /\n 2 2 /\n", 2, 1, 2),
                HasSubstr(":1: COORDSYS: heptane reads one reservoir: a record 1 2 "));
    EXPECT_THAT(error_of("COORDSYS\n 1 1 'RADIAL' /\n", 2, 1, 1), HasSubstr(":1: COORDSYS: "));
    EXPECT_THAT(error_of("GRIDUNIT\n METRES 'NOMAP' /\n", 2, 1, 1),
                HasSubstr(":1: GRIDUNIT: expected FEET, METRES or CM [MAP], then '/'"));
}

}  // namespace
}  // namespace heptane::grid
