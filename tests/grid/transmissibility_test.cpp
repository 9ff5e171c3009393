// Tests of the TPFA transmissibilities (grid/transmissibility.hpp) against values worked out
// by hand.
#include "grid/transmissibility.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"

namespace heptane::grid {
namespace {

/// 2 x 2 x 2 cells of 10 x 20 x 5 m. Face factors 2 A / L:
///   x: 2 (20 * 5) / 10 = 20,  y: 2 (10 * 5) / 20 = 5,  z: 2 (10 * 20) / 5 = 80.
Grid3D grid_2x2x2() {
    Grid3D g;
    g.nx = g.ny = g.nz = 2;
    g.dx = 10.0;
    g.dy = 20.0;
    g.dz = 5.0;
    return g;
}

/// Sets field[cell(i, j, k)] = v.
void put(const Grid3D& g, std::vector<double>& field, int i, int j, int k, double v) {
    field[static_cast<std::size_t>(g.cell(i, j, k))] = v;
}

double at(const Grid3D& g, const std::vector<double>& field, int i, int j, int k) {
    return field[static_cast<std::size_t>(g.cell(i, j, k))];
}

/// Permeabilities chosen so the harmonic means k_a k_b / (k_a + k_b) are exact:
/// 1,3 -> 0.75; 1,1 -> 0.5; 1,0 -> 0; 1,4 -> 0.8; 2,2 -> 1; 2,6 -> 1.5.
RockFields rock_2x2x2(const Grid3D& g) {
    RockFields r;
    r.kx.assign(8, 1.0);
    r.ky.assign(8, 2.0);
    r.kz.assign(8, 1.0);
    r.porosity.assign(8, 0.2);
    put(g, r.kx, 1, 0, 0, 3.0);
    put(g, r.kx, 1, 1, 0, 1.0);
    put(g, r.kx, 1, 0, 1, 0.0);
    put(g, r.kx, 1, 1, 1, 4.0);
    put(g, r.ky, 1, 1, 0, 6.0);
    put(g, r.ky, 0, 1, 1, 0.0);
    put(g, r.kz, 0, 1, 1, 3.0);
    put(g, r.kz, 1, 1, 1, 0.0);
    return r;
}

TEST(Tpfa, HandComputedValuesOn2x2x2) {
    const Grid3D g = grid_2x2x2();
    const Transmissibilities t = tpfa_transmissibilities(g, rock_2x2x2(g));
    ASSERT_EQ(t.tx.size(), 8u);
    ASSERT_EQ(t.ty.size(), 8u);
    ASSERT_EQ(t.tz.size(), 8u);
    // x faces between (0, j, k) and (1, j, k): 20 * mean.
    EXPECT_DOUBLE_EQ(at(g, t.tx, 0, 0, 0), 15.0);  // kx 1 | 3
    EXPECT_DOUBLE_EQ(at(g, t.tx, 0, 1, 0), 10.0);  // kx 1 | 1
    EXPECT_EQ(at(g, t.tx, 0, 0, 1), 0.0);          // kx 1 | 0
    EXPECT_DOUBLE_EQ(at(g, t.tx, 0, 1, 1), 16.0);  // kx 1 | 4
    // y faces between (i, 0, k) and (i, 1, k): 5 * mean.
    EXPECT_DOUBLE_EQ(at(g, t.ty, 0, 0, 0), 5.0);  // ky 2 | 2
    EXPECT_DOUBLE_EQ(at(g, t.ty, 1, 0, 0), 7.5);  // ky 2 | 6
    EXPECT_EQ(at(g, t.ty, 0, 0, 1), 0.0);         // ky 2 | 0
    EXPECT_DOUBLE_EQ(at(g, t.ty, 1, 0, 1), 5.0);  // ky 2 | 2
    // z faces between (i, j, 0) and (i, j, 1): 80 * mean.
    EXPECT_DOUBLE_EQ(at(g, t.tz, 0, 0, 0), 40.0);  // kz 1 | 1
    EXPECT_DOUBLE_EQ(at(g, t.tz, 0, 1, 0), 60.0);  // kz 1 | 3
    EXPECT_DOUBLE_EQ(at(g, t.tz, 1, 0, 0), 40.0);  // kz 1 | 1
    EXPECT_EQ(at(g, t.tz, 1, 1, 0), 0.0);          // kz 1 | 0
}

TEST(Tpfa, BoundaryFacesAreZero) {
    const Grid3D g = grid_2x2x2();
    const Transmissibilities t = tpfa_transmissibilities(g, rock_2x2x2(g));
    for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2; ++b) {
            EXPECT_EQ(at(g, t.tx, 1, a, b), 0.0);  // last i layer
            EXPECT_EQ(at(g, t.ty, a, 1, b), 0.0);  // last j layer
            EXPECT_EQ(at(g, t.tz, a, b, 1), 0.0);  // last k layer
        }
    }
}

TEST(Tpfa, EqualPermeabilitiesGiveKAOverL) {
    // Two layers of 100 mD, 30 x 40 m columns 2 m thick: T = k A / L between the centres.
    Grid3D g;
    g.nx = 1;
    g.ny = 1;
    g.nz = 2;
    g.dx = 30.0;
    g.dy = 40.0;
    g.dz = 2.0;
    RockFields r;
    const double k = 100.0 * units::kMilliDarcy;
    r.kx.assign(2, k);
    r.ky.assign(2, k);
    r.kz.assign(2, k);
    const Transmissibilities t = tpfa_transmissibilities(g, r);
    EXPECT_DOUBLE_EQ(t.tz[0], k * 30.0 * 40.0 / 2.0);
    EXPECT_EQ(t.tz[1], 0.0);
    EXPECT_EQ(t.tx[0], 0.0);
    EXPECT_EQ(t.ty[0], 0.0);
}

TEST(Tpfa, HarmonicTransmissibilityWithZeros) {
    EXPECT_EQ(harmonic_transmissibility(0.0, 0.0, 1.0, 1.0), 0.0);
    EXPECT_EQ(harmonic_transmissibility(0.0, 5.0, 1.0, 1.0), 0.0);
    EXPECT_EQ(harmonic_transmissibility(5.0, 0.0, 1.0, 1.0), 0.0);
    EXPECT_DOUBLE_EQ(harmonic_transmissibility(1.0, 3.0, 4.0, 2.0), 3.0);  // 2 * 4/2 * 0.75
}

TEST(Tpfa, FieldSizeMismatchThrows) {
    const Grid3D g = grid_2x2x2();
    RockFields r = rock_2x2x2(g);
    r.kz.pop_back();
    EXPECT_THROW(tpfa_transmissibilities(g, r), Error);
}

}  // namespace
}  // namespace heptane::grid
