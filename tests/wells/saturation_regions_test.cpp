// Saturation regions (design decision 87): each cell takes its own region's relative
// permeability and capillary pressure, in the cell equations, at the wells and in the initial
// state. Checked against one-region models, cell by cell: where a cell and its neighbours all
// lie in region r, its rows are those of the model with r's law everywhere, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/units.hpp"

namespace heptane {
namespace {

using grid::CellState;

constexpr int kNx = 4, kNy = 3, kNz = 8;

/// Region 1: Corey's law without Pc (connate water 0.1); region 2: the capillary table.
grid::RelPerm second_region() {
    grid::RelPerm rp;
    rp.table = test::capillary_relperm_table();
    return rp;
}

/// Layers k < 4 in region 1, the rest in region 2.
std::vector<std::int32_t> layered_regions(const grid::Grid3D& g) {
    std::vector<std::int32_t> r(static_cast<std::size_t>(g.num_cells()));
    for (index_t m = 0; m < g.num_cells(); ++m) r[m] = m % g.nz < 4 ? 0 : 1;
    return r;
}

struct Models {
    wells::ModelSpec spec = test::two_phase_spec(kNx, kNy, kNz, {});
    grid::RockFields rock = grid::build_rock(spec.grid, spec.permeability, spec.porosity);
};

/// The model of both regions, and the models with region 1's and region 2's law everywhere.
struct Three {
    Models base;
    grid::RockFields regions_rock;
    grid::TwoPhaseParams only_second;
    explicit Three(std::vector<wells::WellSpec> wells = {}) {
        base.spec.wells = std::move(wells);
        regions_rock = base.rock;
        regions_rock.saturation_region = layered_regions(base.spec.grid);
        base.spec.two_phase.relperm.swc = 0.1;  // region 2's connate water (0.2) differs
        only_second = base.spec.two_phase;
        only_second.relperm = second_region();
    }
    wells::TwoPhaseSystem both() const {
        return {
            base.spec.grid, regions_rock, base.spec.two_phase, base.spec.wells, {second_region()}};
    }
    wells::TwoPhaseSystem first() const {
        return {base.spec.grid, base.rock, base.spec.two_phase, base.spec.wells};
    }
    wells::TwoPhaseSystem second() const {
        return {base.spec.grid, base.rock, only_second, base.spec.wells};
    }
};

CellState varied_state(const grid::TwoPhaseCells& cells, std::uint64_t seed) {
    return test::varied_state(cells, seed, 0.3, 0.7);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(SaturationRegions, EachCellsRowsAreItsRegionsModelsBitForBit) {
    const Three t;
    const wells::TwoPhaseSystem both = t.both(), first = t.first(), second = t.second();
    EXPECT_TRUE(grid::has_capillary_pressure(both.cells().params()));  // region 2's Pc
    EXPECT_FALSE(grid::has_capillary_pressure(first.cells().params()));
    const CellState x = varied_state(both.cells(), 1), x_old = varied_state(both.cells(), 2);
    const double dt = t.base.spec.dt;
    const GHSystem a = both.linearize(x, {}, x_old, dt);
    const GHSystem r1 = first.linearize(x, {}, x_old, dt);
    const GHSystem r2 = second.linearize(x, {}, x_old, dt);
    const grid::Grid3D& g = t.base.spec.grid;
    int checked[2] = {0, 0};
    for (index_t m = 0; m < g.num_cells(); ++m) {
        const int k = static_cast<int>(m % g.nz);
        // The cell and its vertical neighbours in one region (horizontal ones share k).
        const int region = k >= 1 && k <= 2 ? 0 : k >= 5 ? 1 : -1;
        if (region < 0) continue;
        const GHSystem& ref = region == 0 ? r1 : r2;
        ++checked[region];
        for (int e = 0; e < 2; ++e) {
            const std::size_t row = static_cast<std::size_t>(2 * m + e);
            EXPECT_TRUE(same_bits(a.rhs[row], ref.rhs[row]))
                << "cell " << m << " equation " << e << ": " << a.rhs[row] << " vs "
                << ref.rhs[row];
            for (int d = 0; d < kStencilSize; ++d) {
                for (int c = 0; c < 2; ++c) {
                    const double got = a.matrix.at(d, m, e, c);
                    const double want = ref.matrix.at(d, m, e, c);
                    EXPECT_TRUE(same_bits(got, want))
                        << "cell " << m << " block " << d << " (" << e << ", " << c << "): " << got
                        << " vs " << want;
                }
            }
        }
    }
    EXPECT_EQ(checked[0], 2 * kNx * kNy);
    EXPECT_EQ(checked[1], 3 * kNx * kNy);
    // And the regions matter: a cell of region 2 differs from region 1's model.
    const index_t deep = g.cell(1, 1, 6);
    EXPECT_NE(a.rhs[2 * deep + 1], r1.rhs[2 * deep + 1]);
}

TEST(SaturationRegions, AWellTakesItsCellsRegion) {
    // A producer through every layer: each perforation's flow is its cell's region's, so the
    // well's residual row is the sum of region 1's perforations in one model and region 2's
    // in the other; its rate, the one-region models' rates of those layers.
    const Three t({test::make_well("P", 1, 1, 0, kNz - 1, false, false)});
    const wells::TwoPhaseSystem both = t.both(), first = t.first(), second = t.second();
    const CellState x = varied_state(both.cells(), 3);
    const std::vector<double> p_bh = {x.p[t.base.spec.grid.cell(1, 1, 0)] - 20.0 * units::kBar};
    const std::vector<double> a = both.residual(x, p_bh, x, 1.0);
    const std::vector<double> r1 = first.residual(x, p_bh, x, 1.0);
    const std::vector<double> r2 = second.residual(x, p_bh, x, 1.0);
    const grid::Grid3D& g = t.base.spec.grid;
    for (int k = 0; k < kNz; ++k) {
        const index_t m = g.cell(1, 1, k);
        const std::vector<double>& ref = k < 4 ? r1 : r2;
        if (k == 0 || k == 3 || k == 4) continue;  // neighbours of the other region
        for (int e = 0; e < 2; ++e) {
            EXPECT_TRUE(same_bits(a[2 * m + e], ref[2 * m + e]))
                << "layer " << k << " equation " << e << ": " << a[2 * m + e] << " vs "
                << ref[2 * m + e];
        }
    }
}

TEST(SaturationRegions, TheInitialStateIsEachRegionsOwn) {
    // Capillary-gravity equilibrium with the contact inside the model: a cell's saturation and
    // (in the water zone) its oil pressure are its region's law's at its depth, as in the
    // model with that law everywhere; without a contact, each cell's connate water.
    const Three t;
    const wells::TwoPhaseSystem both = t.both(), first = t.first(), second = t.second();
    const grid::Grid3D& g = t.base.spec.grid;
    const double z_contact = g.centre_depth(g.cell(0, 0, 6));
    const double p0 = 6000.0 * units::kPsi, z0 = 12000.0 * units::kFoot;
    for (const int sublayers : {1, 4}) {
        const CellState a = both.cells().equilibrium_state(p0, z0, z_contact, 0.0, sublayers);
        const CellState s1 = first.cells().equilibrium_state(p0, z0, z_contact, 0.0, sublayers);
        const CellState s2 = second.cells().equilibrium_state(p0, z0, z_contact, 0.0, sublayers);
        for (index_t m = 0; m < g.num_cells(); ++m) {
            const CellState& ref = m % g.nz < 4 ? s1 : s2;
            EXPECT_TRUE(same_bits(a.sw[m], ref.sw[m])) << m << ": " << a.sw[m];
            EXPECT_TRUE(same_bits(a.p[m], ref.p[m])) << m << ": " << a.p[m];
        }
    }
    const CellState c = both.cells().equilibrium_state(p0, z0, std::nan(""));
    for (index_t m = 0; m < g.num_cells(); ++m) {
        EXPECT_EQ(c.sw[m], m % g.nz < 4 ? 0.1 : 0.2) << m;
    }
}

TEST(SaturationRegions, ACellOfARegionTheFluidDoesNotHaveIsRefused) {
    Three t;
    t.regions_rock.saturation_region[5] = 2;
    EXPECT_THROW(t.both(), std::invalid_argument);
}

}  // namespace
}  // namespace heptane
