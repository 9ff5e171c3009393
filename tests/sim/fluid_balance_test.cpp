// The simulation loop's mass balance: every step's well rates against an independent count of
// the fluid in place (which sim::fluid_in_place, simulate's report, must equal), with capillary
// pressure, formation volume factors and tabulated oil (design decisions 76, 81, 84), and
// formation volume factors as a change of units.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/units.hpp"
#include "sim/in_place.hpp"
#include "sim/simulation_test_support.hpp"
#include "sim/simulator.hpp"

namespace heptane::sim {
namespace {

using namespace test_support;
using wells::ControlKind;
using wells::WellSpec;

/// 1/B of test::set_pressure_dependent_pvt's PVDO oil at p, written out: linear between its
/// rows (300, 2900, 6150, 8000 psi; B 1.05, 1.035, 1.02, 1.01) and beyond the end rows.
double pvdo_inverse_b(double p) {
    const double psi = p / units::kPsi;
    const double row_p[4] = {300.0, 2900.0, 6150.0, 8000.0};
    const double row_b[4] = {1.05, 1.035, 1.02, 1.01};
    const int i = psi < row_p[1] ? 0 : psi < row_p[2] ? 1 : 2;
    const double t = (psi - row_p[i]) / (row_p[i + 1] - row_p[i]);
    return 1.0 / row_b[i] + (1.0 / row_b[i + 1] - 1.0 / row_b[i]) * t;
}

/// Fluid in place per phase, in surface volumes [m^3]: sum V phi(p_o) rho_a(p_a) S_a / rho_s
/// = sum V phi(p_o) exp(c_a (p_a - p_ref)) S_a / B_a, p_w = p_o - Pc(S_w), from the model's
/// laws written out here (not the residual's code; Pc the table's,
/// tests/grid/saturation_table_test.cpp, of the cell's saturation region: the spec's relperm
/// in region 0, its relperm_regions[r - 1] in region r); with a PVDO oil its 1/B(p_o)
/// (pvdo_inverse_b). With `only`, the cells m of fip_region[m] == only alone.
std::array<double, 2> fluid_in_place(const Reservoir& r, const grid::CellState& x,
                                     const std::vector<std::int32_t>& fip_region = {},
                                     int only = -1) {
    const grid::TwoPhaseParams& p = r.spec.two_phase;
    const double v = r.spec.grid.volume(0);
    std::array<double, 2> fip{0.0, 0.0};
    for (std::size_t m = 0; m < x.p.size(); ++m) {
        if (only >= 0 && fip_region[m] != only) continue;
        const std::int32_t region =
            r.rock.saturation_region.empty() ? 0 : r.rock.saturation_region[m];
        const grid::RelPerm& rp = region == 0 ? p.relperm : r.spec.relperm_regions[region - 1];
        const double dp = x.p[m] - p.reference_pressure;
        const double dp_w = dp - grid::capillary_pressure(rp, x.sw[m]);
        const double phi = r.rock.porosity[m] * std::exp(p.rock_compressibility * dp);
        const double oil_b = p.oil_pvt.rows > 0
                                 ? pvdo_inverse_b(x.p[m])
                                 : std::exp(p.oil.compressibility * dp) / p.oil.volume_factor;
        fip[0] += v * phi * oil_b * (1.0 - x.sw[m]);
        fip[1] +=
            v * phi * std::exp(p.water.compressibility * dp_w) * x.sw[m] / p.water.volume_factor;
    }
    return fip;
}

double pore_volume(const Reservoir& r) {
    double pv = 0.0;
    for (double phi : r.rock.porosity) pv += phi * r.spec.grid.volume(0);
    return pv;
}

/// Runs `s` and checks every step: (in - out) dt = change of the fluid in place, per phase,
/// within `tolerance` of the pore volume. Returns the worst relative error. capillary: with
/// test::capillary_relperm_table()'s relperm and capillary pressure; volume_factors: the
/// oil's and the water's B at the reference pressure; pvt: test::set_pressure_dependent_pvt;
/// regions: two saturation regions (design decision 87), Corey's law and the capillary table,
/// in alternate cells, so that every face joins the two.
double worst_balance(Schedule s, double linear_tolerance, double tolerance, bool capillary = false,
                     std::array<double, 2> volume_factors = {1.0, 1.0}, bool pvt = false,
                     bool regions = false) {
    Reservoir r;
    if (capillary) r.spec.two_phase.relperm.table = test::capillary_relperm_table();
    if (regions) {
        r.spec.relperm_regions.resize(1);
        r.spec.relperm_regions[0].table = test::capillary_relperm_table();
        r.rock.saturation_region.resize(r.rock.porosity.size());
        for (std::size_t m = 0; m < r.rock.porosity.size(); ++m)
            r.rock.saturation_region[m] = static_cast<std::int32_t>(m % 2);
    }
    if (pvt) test::set_pressure_dependent_pvt(r.spec.two_phase);
    double p_low = INFINITY, p_high = 0.0;  // the run's pressures
    r.spec.two_phase.oil.volume_factor = volume_factors[0];
    r.spec.two_phase.water.volume_factor = volume_factors[1];
    r.system = std::make_unique<wells::TwoPhaseSystem>(r.spec.grid, r.rock, r.spec.two_phase,
                                                       r.spec.wells, r.spec.relperm_regions);
    Simulator sim(*r.system, r.x0, std::move(s), cpu_solver(), linear(linear_tolerance));
    std::array<double, 2> before = fluid_in_place(r, r.x0);
    const double pv = pore_volume(r);
    double worst = 0.0;
    int switches = 0;
    Observer obs;
    obs.control = [&](const ControlSwitch& c) { switches += c.why == ControlChange::limit; };
    obs.step = [&](const StepRecord& step) {
        const std::array<double, 2> now = fluid_in_place(r, sim.state().cells);
        // What `simulate` reports (/field/in_place) is this count.
        const InPlace reported = sim::fluid_in_place(r.system->cells(), sim.state().cells);
        EXPECT_NEAR(reported.oil, now[0], 1e-12 * now[0]) << "step " << step.step;
        EXPECT_NEAR(reported.water, now[1], 1e-12 * now[1]) << "step " << step.step;
        for (const double p : sim.state().cells.p) {
            p_low = std::min(p_low, p);
            p_high = std::max(p_high, p);
        }
        for (int a = 0; a < 2; ++a) {
            double produced = 0.0;  // [surface m^3] over the step
            for (const wells::WellRates& q : step.rates) produced += (a == 0 ? q.oil : q.water);
            produced *= step.dt;
            const double error = std::abs(now[a] - before[a] + produced) / pv;
            EXPECT_LE(error, tolerance) << "step " << step.step << " phase " << a;
            worst = std::max(worst, error);
        }
        before = now;
    };
    const Outcome out = sim.run(obs);
    EXPECT_TRUE(out.completed) << out.message;
    EXPECT_GE(sim.steps().size(), 8u);
    EXPECT_GT(switches, 0) << "the run should exercise a well limit";
    if (pvt) {  // the run crosses the table's row at 6150 psi
        EXPECT_LT(p_low, 6150.0 * units::kPsi);
        EXPECT_GT(p_high, 6150.0 * units::kPsi);
    }
    return worst;
}

TEST(Simulator, MassBalanceHoldsToTheNewtonTolerance) {
    Schedule s = schedule(30.0);
    // The deck default MB tolerance: each step's imbalance is at most that (rounding aside).
    const double worst = worst_balance(s, 1e-8, s.newton.tolerance_mb * (1.0 + 1e-6));
    RecordProperty("worst_balance_default", std::to_string(worst));
}

TEST(Simulator, MassBalanceHoldsTo1e10WhenTheToleranceIsTightened) {
    Schedule s = schedule(30.0);
    s.newton.tolerance_mb = 1e-13;
    s.newton.tolerance_cnv = 1e-9;
    const double worst = worst_balance(s, 1e-12, 1e-10);
    RecordProperty("worst_balance_tight", std::to_string(worst));
}

// With a capillary pressure (design decision 76) the water is counted at its own pressure
// p_o - Pc: the balance closes only if the accumulation, the fluxes and the wells all take it.
TEST(Simulator, MassBalanceHoldsWithCapillaryPressure) {
    Schedule s = schedule(30.0);
    s.newton.tolerance_mb = 1e-13;
    s.newton.tolerance_cnv = 1e-9;
    const double worst = worst_balance(s, 1e-12, 1e-10, true);
    RecordProperty("worst_balance_capillary", std::to_string(worst));
}

// Design decision 81: with formation volume factors the rates are surface volumes and the
// fluid in place is counted in surface volumes, V phi S / B per phase: the balance closes only
// if the density law, the wells and the rates all take each phase's own B.
TEST(Simulator, MassBalanceHoldsInSurfaceVolumesWithFormationVolumeFactors) {
    Schedule s = schedule(30.0);
    s.newton.tolerance_mb = 1e-13;
    s.newton.tolerance_cnv = 1e-9;
    const double worst = worst_balance(s, 1e-12, 1e-10, true, {1.25, 1.03});
    RecordProperty("worst_balance_volume_factors", std::to_string(worst));
}

// Design decision 84: with a PVDO oil (B(p) from its table) and a water viscosibility the
// oil in place is V phi S_o / B(p_o): the balance closes only if the accumulation and the
// wells take the table's B at the cell's pressure, on both sides of the row the run crosses.
// Design decision 87: with two saturation regions in alternate cells (Pc in one, none in the
// other) each cell's water is at its own region's p_o - Pc: the balance closes only if the
// accumulation, the fluxes between the regions and the wells all take the cell's region.
TEST(Simulator, MassBalanceHoldsWithSaturationRegions) {
    Schedule s = schedule(30.0);
    s.newton.tolerance_mb = 1e-13;
    s.newton.tolerance_cnv = 1e-9;
    const double worst = worst_balance(s, 1e-12, 1e-10, false, {1.0, 1.0}, false, true);
    RecordProperty("worst_balance_regions", std::to_string(worst));
}

TEST(Simulator, MassBalanceHoldsWithTabulatedOilAndViscosibility) {
    Schedule s = schedule(30.0);
    s.newton.tolerance_mb = 1e-13;
    s.newton.tolerance_cnv = 1e-9;
    const double worst = worst_balance(s, 1e-12, 1e-10, true, {1.0, 1.03}, true);
    RecordProperty("worst_balance_pvt", std::to_string(worst));
}

// Design decision 89: each fluid-in-place region's oil and water are the independent count
// over its cells (with two saturation regions, one with Pc, so that the water's pressure is the
// cell's region's), its pore volume and pressure (weighted by hydrocarbon pore volume, by pore
// volume in a region of water alone) likewise; a region numbered but without cells holds
// nothing; the regions add up to the field. Fails with a cell counted in the wrong region.
TEST(FluidInPlace, EachRegionIsTheCountOfItsCells) {
    Reservoir r;
    r.spec.relperm_regions.resize(1);
    r.spec.relperm_regions[0].table = test::capillary_relperm_table();
    const std::size_t n = r.rock.porosity.size();
    r.rock.saturation_region.resize(n);
    std::vector<std::int32_t> fip(n);
    grid::CellState x = r.x0;
    for (std::size_t m = 0; m < n; ++m) {
        r.rock.saturation_region[m] = static_cast<std::int32_t>(m % 2);
        fip[m] = m % 3 == 0 ? 0 : m % 3 == 1 ? 1 : 3;  // region 2 (from 0) has no cell
        x.p[m] += 2.0e4 * static_cast<double>(m % 11);
        x.sw[m] = fip[m] == 3 ? 1.0 : 0.25 + 0.05 * static_cast<double>(m % 7);
    }
    r.system = std::make_unique<wells::TwoPhaseSystem>(r.spec.grid, r.rock, r.spec.two_phase,
                                                       r.spec.wells, r.spec.relperm_regions);
    const std::vector<InPlace> regions = sim::fluid_in_place(r.system->cells(), x, fip, 4);
    ASSERT_EQ(regions.size(), 4u);
    const grid::TwoPhaseParams& p = r.spec.two_phase;
    InPlace sum;
    for (int g = 0; g < 4; ++g) {
        const InPlace& got = regions[static_cast<std::size_t>(g)];
        const std::array<double, 2> want = fluid_in_place(r, x, fip, g);
        EXPECT_NEAR(got.oil, want[0], 1e-13 * want[0]) << "region " << g;
        EXPECT_NEAR(got.water, want[1], 1e-13 * want[1]) << "region " << g;
        double pv = 0.0, hcpv = 0.0, p_hcpv = 0.0, p_pv = 0.0;
        for (std::size_t m = 0; m < n; ++m) {
            if (fip[m] != g) continue;
            const double v = r.spec.grid.volume(0) * r.rock.porosity[m] *
                             std::exp(p.rock_compressibility * (x.p[m] - p.reference_pressure));
            pv += v;
            hcpv += v * (1.0 - x.sw[m]);
            p_hcpv += x.p[m] * v * (1.0 - x.sw[m]);
            p_pv += x.p[m] * v;
        }
        EXPECT_NEAR(got.pore_volume, pv, 1e-13 * pv) << "region " << g;
        const double pressure = g == 2 ? 0.0 : hcpv > 0.0 ? p_hcpv / hcpv : p_pv / pv;
        EXPECT_NEAR(got.pressure, pressure, 1e-13 * pressure) << "region " << g;
        sum.oil += got.oil;
        sum.water += got.water;
        sum.pore_volume += got.pore_volume;
    }
    EXPECT_EQ(regions[2].oil, 0.0);
    EXPECT_EQ(regions[2].water, 0.0);
    EXPECT_EQ(regions[3].oil, 0.0);  // water alone: its pressure by pore volume (above)
    const InPlace field = sim::fluid_in_place(r.system->cells(), x);
    EXPECT_NEAR(sum.oil, field.oil, 1e-13 * field.oil);
    EXPECT_NEAR(sum.water, field.water, 1e-13 * field.water);
    EXPECT_NEAR(sum.pore_volume, field.pore_volume, 1e-13 * field.pore_volume);
    // One number a cell, each below the count.
    EXPECT_THROW(sim::fluid_in_place(r.system->cells(), x, std::vector<std::int32_t>(n - 1), 4),
                 std::invalid_argument);
    EXPECT_THROW(sim::fluid_in_place(r.system->cells(), x, fip, 3), std::invalid_argument);
}

struct ScaledRun {
    std::vector<StepRecord> steps;
    std::vector<NewtonRecord> newton;
    grid::CellState cells;
};

/// The three-well reservoir with both phases' B = `b` at the reference pressure, the surface
/// densities rho / b times b and the rate targets (surface volumes) divided by b: the same
/// reservoir fluid and the same mass rates as b = 1.
ScaledRun scaled_run(double b) {
    Reservoir r;
    grid::TwoPhaseParams& p = r.spec.two_phase;
    for (grid::PhaseProperties* ph : {&p.oil, &p.water}) {
        ph->density *= b;
        ph->volume_factor = b;
    }
    for (WellSpec& w : r.spec.wells) {
        if (w.control == ControlKind::rate) w.target /= b;
    }
    r.system = std::make_unique<wells::TwoPhaseSystem>(r.spec.grid, r.rock, p, r.spec.wells);
    Schedule s = schedule(20.0);
    s.events = test::switching_events();
    Simulator sim(*r.system, r.x0, s, cpu_solver(), linear(1e-12));
    ScaledRun out;
    Observer obs;
    obs.step = [&](const StepRecord& step) { out.steps.push_back(step); };
    const Outcome o = sim.run(obs);
    EXPECT_TRUE(o.completed) << o.message;
    out.newton = sim.newton();
    out.cells = sim.state().cells;
    return out;
}

// Design decision 81: B scales the units, not the physics. Surface densities B times larger
// with B at the reference pressure give the reservoir fluid of B = 1; with the rate targets
// in surface volumes divided by B, the run is the same run: the same steps and Newton
// iterations, the same fields, rates B times smaller, and the same CNV and MB (OPM's, in
// reservoir volumes: B |R| dt / PV). It fails if the density law, the wellbore's density, the
// CNV or the MB leaves B out.
TEST(Simulator, AFormationVolumeFactorChangesTheUnitsNotTheRun) {
    const double b = 1.25;
    const ScaledRun one = scaled_run(1.0);
    const ScaledRun scaled = scaled_run(b);
    ASSERT_EQ(scaled.steps.size(), one.steps.size());
    ASSERT_GE(one.steps.size(), 8u);
    for (std::size_t i = 0; i < one.steps.size(); ++i) {
        const StepRecord &x = one.steps[i], &y = scaled.steps[i];
        EXPECT_EQ(y.dt, x.dt) << "step " << i;
        EXPECT_EQ(y.newton_iterations, x.newton_iterations) << "step " << i;
        for (std::size_t w = 0; w < x.rates.size(); ++w) {
            EXPECT_NEAR(y.rates[w].oil * b, x.rates[w].oil, 1e-9 * std::abs(x.rates[w].oil))
                << "step " << i << " well " << w;
            EXPECT_NEAR(y.rates[w].water * b, x.rates[w].water, 1e-9 * std::abs(x.rates[w].water))
                << "step " << i << " well " << w;
            EXPECT_NEAR(y.bhp[w], x.bhp[w], 1e-9 * x.bhp[w]) << "step " << i << " well " << w;
        }
    }
    ASSERT_EQ(scaled.newton.size(), one.newton.size());
    for (std::size_t i = 0; i < one.newton.size(); ++i) {
        EXPECT_NEAR(scaled.newton[i].cnv, one.newton[i].cnv, 1e-6 * one.newton[i].cnv + 1e-14)
            << "Newton iteration " << i;
        EXPECT_NEAR(scaled.newton[i].mb, one.newton[i].mb, 1e-6 * one.newton[i].mb + 1e-16)
            << "Newton iteration " << i;
    }
    for (std::size_t m = 0; m < one.cells.p.size(); ++m) {
        EXPECT_NEAR(scaled.cells.p[m], one.cells.p[m], 1e-9 * one.cells.p[m]) << "cell " << m;
        EXPECT_NEAR(scaled.cells.sw[m], one.cells.sw[m], 1e-9) << "cell " << m;
    }
}

}  // namespace
}  // namespace heptane::sim
