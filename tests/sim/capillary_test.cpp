// Capillary pressure (design decision 76) against the analytic capillary-gravity equilibrium:
// a closed vertical column of incompressible oil and water, started at a uniform saturation,
// settles where neither phase flows. Across every vertical face both potentials are then
// equal, p_a,k - p_a,k+1 = -rho_a g dz, so Pc(S_k) - Pc(S_k+1) = (rho_w - rho_o) g dz: with a
// linear Pc = a (S_max - S_w) the saturation rises down the column by (rho_w - rho_o) g dz / a
// a layer, about its initial mean (the water in place is kept). Without Pc the water would
// sink to the bottom; with the wrong sign the capillary term would be anti-diffusive.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/base/units.hpp"
#include "grid/saturation_table.hpp"
#include "sim/simulator.hpp"

namespace heptane::sim {
namespace {

constexpr int kLayers = 20;
constexpr double kDz = 1.0;                    // m
constexpr double kSlope = 1.25 * units::kBar;  // a: Pc falls by a over a unit of saturation

grid::TwoPhaseParams fluids() {
    grid::TwoPhaseParams p;
    p.oil = {800.0, 2.0e-3, 0.0};
    p.water = {1000.0, 0.5e-3, 0.0};
    p.rock_compressibility = 0.0;
    // Rows Sw 0.1 .. 0.9: krw and kro linear, both > 0 inside; Pc = a (0.9 - Sw).
    std::vector<grid::RelPermRow> rows;
    for (int q = 0; q <= 8; ++q) {
        const double sw = 0.1 + 0.1 * q;
        rows.push_back({sw, 0.6 * q / 8.0, (8 - q) / 8.0, kSlope * (0.9 - sw)});
    }
    p.relperm.table = grid::relperm_table(rows);
    return p;
}

/// The column's saturations after `days` of settling from a uniform 0.5.
std::vector<double> settle(const grid::TwoPhaseParams& fluid, double days) {
    grid::Grid3D g;
    g.nz = kLayers;
    g.dx = g.dy = 10.0;
    g.dz = kDz;
    g.top_depth = 1000.0;
    grid::FieldSpec perm, poro;
    perm.value = {100.0, 100.0, 100.0};
    poro.value = {0.2, 0.0, 0.0};
    const grid::RockFields rock = grid::build_rock(g, perm, poro);
    const wells::TwoPhaseSystem system(g, rock, fluid, {});
    const grid::CellState x0 = system.cells().equilibrium_state(100.0 * units::kBar, 1000.0, 0.5);
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
    Simulator sim(
        system, x0, s,
        [](const GHMatrix& J) {
            SolverSettings settings;
            settings.preconditioner = PreconditionerKind::point_block_jacobi;
            return make_cpu_solver(settings, J);
        },
        linear);
    const Outcome out = sim.run();
    EXPECT_TRUE(out.completed) << out.message;
    return sim.state().cells.sw;
}

TEST(Capillary, AClosedColumnSettlesToTheCapillaryGravityEquilibrium) {
    const grid::TwoPhaseParams fluid = fluids();
    // 2,000 days: ~45 times the column's capillary-gravity time constant L^2 / (pi^2 D), D =
    // k lambda_w lambda_o / (lambda_w + lambda_o) a / phi ~ 1e-5 m^2/s.
    const std::vector<double> sw = settle(fluid, 2000.0);
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

}  // namespace
}  // namespace heptane::sim
