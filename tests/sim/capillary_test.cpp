// Capillary pressure (design decision 76) against the analytic capillary-gravity equilibrium:
// a closed vertical column of incompressible oil and water, started at a uniform saturation,
// settles where neither phase flows; and the initial state from a water-oil contact (decision
// 77) is that equilibrium from the start. Across every vertical face both potentials are then
// equal, p_a,k - p_a,k+1 = -rho_a g dz, so Pc(S_k) - Pc(S_k+1) = (rho_w - rho_o) g dz: with a
// linear Pc = a (S_max - S_w) the saturation rises down the column by (rho_w - rho_o) g dz / a
// a layer, about its initial mean (the water in place is kept). Without Pc the water would
// sink to the bottom; with the wrong sign the capillary term would be anti-diffusive. Each
// equilibration region (decision 92) is its own record's state, and sealed compartments of
// two regions start at rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/cpu_solver_factory.hpp"
#include "core/base/units.hpp"
#include "grid/saturation_table.hpp"
#include "sim/simulator.hpp"

namespace heptane::sim {
namespace {

constexpr int kLayers = 20;
constexpr double kDz = 1.0;                    // m
constexpr double kSlope = 1.25 * units::kBar;  // a: Pc falls by a over a unit of saturation

grid::TwoPhaseParams fluids(double slope = kSlope) {
    grid::TwoPhaseParams p;
    p.oil = {800.0, 2.0e-3, 0.0};
    p.water = {1000.0, 0.5e-3, 0.0};
    p.rock_compressibility = 0.0;
    // Rows Sw 0.1 .. 0.9: krw and kro linear, both > 0 inside; Pc = a (0.9 - Sw).
    std::vector<grid::RelPermRow> rows;
    for (int q = 0; q <= 8; ++q) {
        const double sw = 0.1 + 0.1 * q;
        rows.push_back({sw, 0.6 * q / 8.0, (8 - q) / 8.0, slope * (0.9 - sw)});
    }
    p.relperm.table = grid::relperm_table(rows);
    return p;
}

/// `nx` closed columns side by side (kLayers of kDz from 1,000 m, 100 mD, porosity 0.2, no
/// wells), each cell's equilibration region from `region(i, k)` (design decision 92), the +k
/// faces of layer `sealed` closed (MULTZ 0; -1: none).
template <class Region>
wells::TwoPhaseSystem columns(const grid::TwoPhaseParams& fluid, int nx, Region region,
                              int sealed = -1) {
    grid::Grid3D g;
    g.nx = nx;
    g.nz = kLayers;
    g.dx = g.dy = 10.0;
    g.dz = kDz;
    g.top_depth = 1000.0;
    grid::FieldSpec perm, poro;
    perm.value = {100.0, 100.0, 100.0};
    poro.value = {0.2, 0.0, 0.0};
    grid::RockFields rock = grid::build_rock(g, perm, poro);
    rock.equilibration_region.resize(static_cast<std::size_t>(g.num_cells()));
    rock.multz.assign(static_cast<std::size_t>(g.num_cells()), 1.0);
    for (int i = 0; i < nx; ++i) {
        for (int k = 0; k < kLayers; ++k) {
            rock.equilibration_region[static_cast<std::size_t>(i * kLayers + k)] = region(i, k);
            if (k == sealed) rock.multz[static_cast<std::size_t>(i * kLayers + k)] = 0.0;
        }
    }
    return wells::TwoPhaseSystem(g, rock, fluid, {});
}

/// The closed column: one of them, one region.
wells::TwoPhaseSystem column(const grid::TwoPhaseParams& fluid) {
    return columns(fluid, 1, [](int, int) { return 0; });
}

/// The column's saturations after `days` from x0 (default: a uniform 0.5).
grid::CellState settle(const grid::TwoPhaseParams& fluid, double days,
                       const grid::CellState* start = nullptr) {
    const wells::TwoPhaseSystem system = column(fluid);
    const grid::CellState x0 =
        start ? *start : system.cells().equilibrium_state(100.0 * units::kBar, 1000.0, 0.5);
    Schedule s;
    s.present = true;
    s.report_times = {days * units::kDay};
    s.dt.initial = 1.0 * units::kDay;
    s.dt.max = 100.0 * units::kDay;
    s.dt.min = 1e-4 * units::kDay;
    s.newton.tolerance_cnv = 1e-9;
    s.newton.tolerance_mb = 1e-13;
    SolveOptions linear;
    linear.tolerance = 1e-10;
    linear.max_iterations = 1000;
    Simulator sim(system, x0, s, test::cpu_solver_factory(PreconditionerKind::point_block_jacobi),
                  linear);
    const Outcome out = sim.run();
    EXPECT_TRUE(out.completed) << out.message;
    return sim.state().cells;
}

TEST(Capillary, AClosedColumnSettlesToTheCapillaryGravityEquilibrium) {
    const grid::TwoPhaseParams fluid = fluids();
    // 2,000 days: ~45 times the column's capillary-gravity time constant L^2 / (pi^2 D), D =
    // k lambda_w lambda_o / (lambda_w + lambda_o) a / phi ~ 1e-5 m^2/s.
    const std::vector<double> sw = settle(fluid, 2000.0).sw;
    const double step = (fluid.water.density - fluid.oil.density) * fluid.gravity * kDz / kSlope;
    double mean = 0.0, worst = 0.0;
    for (double s : sw) mean += s / kLayers;
    EXPECT_NEAR(mean, 0.5, 1e-12);  // the water in place is kept
    for (int k = 0; k < kLayers; ++k) {
        const double analytic = 0.5 + (k - 0.5 * (kLayers - 1)) * step;
        EXPECT_NEAR(sw[k], analytic, 1e-9) << "layer " << k;
        worst = std::max(worst, std::abs(sw[k] - analytic));
    }
    // Inside the table and where both phases flow (the analytic profile assumes both).
    EXPECT_GT(sw.front(), 0.3);
    EXPECT_LT(sw.back(), 0.7);
    std::printf("  Sw %.6f (top) .. %.6f (bottom), a layer %.6f apart; worst %.2e\n", sw.front(),
                sw.back(), step, worst);
}

TEST(Capillary, AContactsInitialStateIsTheEquilibrium) {
    // Pc = a (0.9 - S_w) with a = 0.1 bar: a transition zone a / ((rho_w - rho_o) g) = 4.1 m
    // high above the contact at 1,014 m (between layers), Pc 0 there.
    const double a = 0.1 * units::kBar, contact = 1014.0;
    const grid::TwoPhaseParams fluid = fluids(a);
    const wells::TwoPhaseSystem system = column(fluid);
    const grid::CellState x0 =
        system.cells().equilibrium_state(100.0 * units::kBar, 1000.0, contact, 0.0);
    // The saturations: where Pc(S_w) = p_o - p_w = (rho_w - rho_o) g (contact - z), clamped
    // to the table's range (connate water 0.1 above the zone, 0.9 below the contact).
    const double drho_g = (fluid.water.density - fluid.oil.density) * fluid.gravity;
    int transition = 0;
    for (int k = 0; k < kLayers; ++k) {
        const double z = 1000.0 + (k + 0.5) * kDz;
        const double analytic = std::min(0.9, std::max(0.1, 0.9 - drho_g * (contact - z) / a));
        EXPECT_NEAR(x0.sw[k], analytic, 1e-12) << "layer " << k;
        transition += analytic > 0.1 && analytic < 0.9;
        if (z > contact) {  // the water zone: p_o = p_w + Pc(0.9) = p_w, water hydrostatic
            const double p_contact = 100.0 * units::kBar + fluid.oil.density * fluid.gravity * 14.0;
            EXPECT_NEAR(x0.p[k], p_contact + fluid.water.density * fluid.gravity * (z - contact),
                        1e-6)
                << "layer " << k;
        }
    }
    EXPECT_EQ(transition, 4);
    // No phase flows: the residual at x0 over a step from x0 is rounding, against one with a
    // cell 1 bar off.
    const std::vector<double> r = system.residual(x0, {}, x0, units::kDay);
    grid::CellState y = x0;
    y.p[7] += units::kBar;
    const std::vector<double> r1 = system.residual(y, {}, x0, units::kDay);
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        worst = std::max(worst, std::abs(r[i]));
        scale = std::max(scale, std::abs(r1[i]));
    }
    EXPECT_LE(worst, 1e-9 * scale);
    // And it stays: 1,000 days later the state is the initial one.
    const grid::CellState later = settle(fluid, 1000.0, &x0);
    for (int k = 0; k < kLayers; ++k) {
        EXPECT_NEAR(later.sw[k], x0.sw[k], 1e-9) << "layer " << k;
        EXPECT_NEAR(later.p[k], x0.p[k], 1e-6 * units::kBar) << "layer " << k;
    }
    std::printf("  contact state: %d transition layers, |R| %.2e against %.2e\n", transition, worst,
                scale);
}

TEST(Capillary, SubLayersAverageTheProfileOverEachCell) {
    // Decision 78 (EQUIL item 9 < 0): a cell's saturation is the mean over `n` equal layers of
    // the centre rule. The transition zone of the test above, 4.08 m high, here above a contact
    // at 1,014.5 m: its top at 1,010.42 m cuts layer 10 (a kink inside it), the contact cuts
    // layer 14. The exact mean of the clamped linear profile over a layer: the midpoint rule of
    // 40 layers is exact where the profile is linear and off by at most slope h^2 / 8 over
    // the one sub-layer with a kink.
    const double a = 0.1 * units::kBar, contact = 1014.5;
    const grid::TwoPhaseParams fluid = fluids(a);
    const wells::TwoPhaseSystem system = column(fluid);
    const grid::TwoPhaseCells& cells = system.cells();
    const double p0 = 100.0 * units::kBar;
    const grid::CellState centre = cells.equilibrium_state(p0, 1000.0, contact, 0.0);
    const grid::CellState fine = cells.equilibrium_state(p0, 1000.0, contact, 0.0, 40);
    const double slope = (fluid.water.density - fluid.oil.density) * fluid.gravity / a;  // 1/m
    const double z_top = contact - 0.8 / slope;
    const auto profile = [&](double z) {
        return std::min(0.9, std::max(0.1, 0.9 - slope * (contact - z)));
    };
    const double bound = slope * (kDz / 40) * (kDz / 40) / 8.0 / kDz;
    double water = 0.0, exact_water = 0.0;
    std::vector<double> exact_mean(kLayers);
    for (int k = 0; k < kLayers; ++k) {
        const double z0 = 1000.0 + k * kDz, z1 = z0 + kDz;
        // Exact: the profile is linear between its kinks, so the trapezoid of each piece.
        double cuts[4] = {z0, std::min(std::max(z_top, z0), z1),
                          std::min(std::max(contact, z0), z1), z1};
        double exact = 0.0;
        for (int q = 0; q < 3; ++q) {
            exact += 0.5 * (profile(cuts[q]) + profile(cuts[q + 1])) * (cuts[q + 1] - cuts[q]);
        }
        exact /= kDz;
        EXPECT_NEAR(fine.sw[k], exact, bound + 1e-13) << "layer " << k;
        EXPECT_EQ(fine.p[k], centre.p[k]) << "layer " << k;  // the pressures stay the centre's
        if (z1 <= z_top) {  // one saturation in the layer: exactly it
            EXPECT_EQ(fine.sw[k], 0.1) << "layer " << k;
        }
        if (z0 > z_top && z1 <= contact) {  // linear in the layer: the centre's, to rounding
            EXPECT_NEAR(fine.sw[k], centre.sw[k], 1e-13) << "layer " << k;
        }
        water += fine.sw[k];
        exact_water += exact;
        exact_mean[k] = exact;
    }
    // Layer 10, cut by the zone's top: the centre rule misses its water by far more.
    const int kink = 10;
    EXPECT_GT(std::abs(centre.sw[kink] - exact_mean[kink]), 100.0 * bound);
    EXPECT_NEAR(water, exact_water, bound + 1e-12);
    // Sub-layers need a positive count.
    EXPECT_THROW(cells.equilibrium_state(p0, 1000.0, contact, 0.0, 0), std::invalid_argument);
    std::printf("  layer 10: exact mean %.6f, centre rule %.6f, 40 sub-layers %.6f (bound %.1e)\n",
                exact_mean[kink], centre.sw[kink], fine.sw[kink], bound);
}

/// A region's record: oil pressure p at 1,000 m unless `datum` says, a contact with Pc 0.
grid::Equilibrium record(double p, double contact, double datum = 1000.0) {
    grid::Equilibrium e;
    e.p_datum = p;
    e.z_datum = datum;
    e.contact = true;
    e.z_contact = contact;
    return e;
}

TEST(Capillary, EachEquilibrationRegionIsItsOwnRecordsState) {
    // Decision 92: two columns, one region each, differ in pressure and contact; each cell has
    // the bits its region's record gives the whole model as its only one.
    const grid::TwoPhaseParams fluid = fluids(0.1 * units::kBar);
    const std::vector<grid::Equilibrium> records = {record(100.0 * units::kBar, 1014.0),
                                                    record(103.0 * units::kBar, 1008.5)};
    const wells::TwoPhaseSystem two = columns(fluid, 2, [](int i, int) { return i; });
    const wells::TwoPhaseSystem one = columns(fluid, 2, [](int, int) { return 0; });
    const grid::CellState x = two.cells().equilibrium_state(records);
    int differ = 0;
    for (std::size_t r = 0; r < 2; ++r) {
        const grid::CellState alone = one.cells().equilibrium_state({records[r]});
        for (std::size_t m = r * kLayers; m < (r + 1) * kLayers; ++m) {
            EXPECT_EQ(x.p[m], alone.p[m]) << "cell " << m;
            EXPECT_EQ(x.sw[m], alone.sw[m]) << "cell " << m;
        }
    }
    for (std::size_t k = 0; k < kLayers; ++k) differ += x.sw[k] != x.sw[kLayers + k];
    EXPECT_GT(differ, 4);  // the contacts 5.5 m apart: several layers' saturations differ
    // A cell's region needs a record; sub-layers a positive count.
    EXPECT_THROW(two.cells().equilibrium_state({records[0]}), std::invalid_argument);
    std::vector<grid::Equilibrium> bad = records;
    bad[1].sublayers = 0;
    EXPECT_THROW(two.cells().equilibrium_state(bad), std::invalid_argument);
}

TEST(Capillary, SealedCompartmentsStartAtRestAndOpenOnesFlow) {
    // Decision 92: one column, layers 0-9 region 1 (contact 1,006 m), layers 10-19 region 2,
    // 5 bar more and its contact at 1,016.3 m, its datum the centre of layer 10. Sealed between
    // them (MULTZ 0 on layer 9) no phase flows; open, the regions are not in equilibrium with
    // each other and the faces between them flow (as in Eclipse).
    const grid::TwoPhaseParams fluid = fluids(0.1 * units::kBar);
    const double p2 = 105.0 * units::kBar;
    const std::vector<grid::Equilibrium> records = {record(100.0 * units::kBar, 1006.0),
                                                    record(p2, 1016.3, 1010.5)};
    const auto stacked = [](int, int k) { return k < 10 ? 0 : 1; };
    const auto worst_residual = [&](int sealed, double& scale) {
        const wells::TwoPhaseSystem system = columns(fluid, 1, stacked, sealed);
        const grid::CellState x0 = system.cells().equilibrium_state(records);
        EXPECT_EQ(x0.p[10], p2);  // the region's datum at its first cell's centre, in its oil
        const std::vector<double> r = system.residual(x0, {}, x0, units::kDay);
        grid::CellState y = x0;
        y.p[7] += units::kBar;
        const std::vector<double> r1 = system.residual(y, {}, x0, units::kDay);
        double worst = 0.0;
        scale = 0.0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            worst = std::max(worst, std::abs(r[i]));
            scale = std::max(scale, std::abs(r1[i]));
        }
        return worst;
    };
    double scale = 0.0;
    const double sealed = worst_residual(9, scale);
    EXPECT_LE(sealed, 1e-9 * scale);
    const double open = worst_residual(-1, scale);
    EXPECT_GT(open, 1e-2 * scale);
    std::printf("  compartments: |R| sealed %.2e, open %.2e (a cell 1 bar off: %.2e)\n", sealed,
                open, scale);
}

TEST(Capillary, SaturationAtACapillaryPressureInvertsTheTable) {
    const grid::TwoPhaseParams fluid = fluids();  // Pc = a (0.9 - S_w) over S_w 0.1 .. 0.9
    const grid::RelPerm& rp = fluid.relperm;
    EXPECT_DOUBLE_EQ(grid::saturation_at_capillary_pressure(rp, 0.5 * kSlope), 0.4);
    EXPECT_EQ(grid::saturation_at_capillary_pressure(rp, kSlope), 0.1);      // above the first row
    EXPECT_DOUBLE_EQ(grid::saturation_at_capillary_pressure(rp, 0.0), 0.9);  // at the last row's Pc
    EXPECT_DOUBLE_EQ(grid::saturation_at_capillary_pressure(rp, -1.0e5), 0.9);  // below it
    for (double sw : {0.13, 0.37, 0.5, 0.71, 0.88}) {                           // the inverse of Pc
        const double pc = grid::capillary_pressure(rp, sw);
        EXPECT_NEAR(grid::saturation_at_capillary_pressure(rp, pc), sw, 1e-14);
    }
    // A flat stretch: the largest saturation with that Pc. Without Pc: a sharp contact.
    grid::RelPerm flat = rp;
    flat.table.pcow[3] = flat.table.pcow[4] = flat.table.pcow[5];  // rows 4..6 (Sw 0.4 .. 0.6)
    EXPECT_DOUBLE_EQ(grid::saturation_at_capillary_pressure(flat, flat.table.pcow[5]), 0.6);
    grid::RelPerm corey;
    corey.swc = 0.2, corey.sor = 0.25;
    EXPECT_EQ(grid::saturation_at_capillary_pressure(corey, 1.0), 0.2);
    EXPECT_EQ(grid::saturation_at_capillary_pressure(corey, 0.0), 0.75);
}

}  // namespace
}  // namespace heptane::sim
