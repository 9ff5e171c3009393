// Reservoir volume rate controls (Eclipse's RESV; design decision 100): the mean pressure and
// the factors they convert with, against a hand computation, and a simulation whose wells hold
// the reservoir volume of their rates at each step's factors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "sim/simulation_test_support.hpp"

namespace heptane::sim {
namespace {

using namespace test_support;
using wells::ControlKind;

// The hydrocarbon-pore-volume-weighted mean pressure, written out cell by cell, and each
// phase's B there from the slightly compressible law B(p) = B_ref exp(-c (p - p_ref)); where
// no cell holds oil, the pore volume weights.
TEST(ReservoirRate, FactorsAreTheVolumeFactorsAtTheMeanHydrocarbonPressure) {
    Reservoir r;
    const wells::TwoPhaseWells& w = r.system->wells();
    const grid::TwoPhaseParams& prm = r.spec.two_phase;
    const grid::Grid3D& g = r.spec.grid;
    grid::CellState x = r.x0;
    for (index_t m = 0; m < g.num_cells(); ++m) {  // pressures and saturations that vary
        x.p[m] += 2.0e5 * static_cast<double>(m % 7);
        x.sw[m] = 0.2 + 0.1 * static_cast<double>(m % 5);
    }
    const auto mean = [&](bool hydrocarbon) {
        double sum = 0.0, weight = 0.0;
        for (index_t m = 0; m < g.num_cells(); ++m) {
            const double pv =
                g.volume(m) * r.rock.porosity[m] *
                std::exp(prm.rock_compressibility * (x.p[m] - prm.reference_pressure));
            const double v = hydrocarbon ? pv * (1.0 - x.sw[m]) : pv;
            sum += v * x.p[m];
            weight += v;
        }
        return sum / weight;
    };
    const double p = mean(true);
    EXPECT_GT(std::abs(p - mean(false)), 1.0e3);  // the weights matter here
    EXPECT_NEAR(w.mean_hydrocarbon_pressure(x), p, 1e-12 * p);
    const std::array<double, 2> b = w.reservoir_factors(x);
    const double bo = std::exp(-prm.oil.compressibility * (p - prm.reference_pressure));
    const double bw = std::exp(-prm.water.compressibility * (p - prm.reference_pressure));
    EXPECT_NEAR(b[grid::kOil], prm.oil.volume_factor * bo, 1e-12);
    EXPECT_NEAR(b[grid::kWater], prm.water.volume_factor * bw, 1e-12);
    EXPECT_GT(std::abs(b[grid::kOil] - 1.0), 1e-4);  // B = 1 would fail the checks above

    grid::CellState water = x;  // no oil anywhere: the pore volume's weights
    for (double& s : water.sw) s = 1.0;
    EXPECT_NEAR(w.mean_hydrocarbon_pressure(water), mean(false), 1e-12 * p);
}

// A reservoir_rate well's equation is the factor-weighted sum of its oil_rate and water_rate
// equations: residual (plus the target), W values and D, for a producer with both phases
// flowing; swapped or missing factors fail it.
TEST(ReservoirRate, RateEquationWeighsEachPhaseByItsFactor) {
    Reservoir r;
    const wells::TwoPhaseWells& w = r.system->wells();
    const grid::TwoPhaseCells& cells = r.system->cells();
    grid::CellState x = r.x0;
    for (double& s : x.sw) s = 0.45;  // both phases mobile
    std::vector<double> p_bh = w.initial_bhp(x);
    p_bh[1] -= 30.0 * units::kBar;  // PR draws down
    const auto row = [&](ControlKind kind, const wells::WellControl& base) {
        std::vector<wells::WellControl> c = w.initial_controls(x);
        c[1] = base;
        c[1].kind = kind;
        GHMatrix J = cells.zero_jacobian();
        std::vector<double> res(2 * static_cast<std::size_t>(r.spec.grid.num_cells()), 0.0);
        std::vector<double> res_wells;
        w.assemble(x, p_bh, c, res, res_wells, &J);
        const WellArrays& a = J.wells();
        std::vector<double> v{res_wells[1] + base.target * units::kTimeScale, a.d[1]};
        for (index_t q = 0; q < 2 * a.count[1]; ++q) v.push_back(a.w_vals[a.first[1] + q]);
        return v;
    };
    const wells::WellControl base{true, ControlKind::reservoir_rate, 2.0 / kDay, {1.3, 0.7}};
    const std::vector<double> oil = row(ControlKind::oil_rate, base);
    const std::vector<double> water = row(ControlKind::water_rate, base);
    const std::vector<double> res = row(ControlKind::reservoir_rate, base);
    ASSERT_EQ(res.size(), oil.size());
    for (std::size_t q = 0; q < res.size(); ++q) {
        const double expected = 1.3 * oil[q] + 0.7 * water[q];
        EXPECT_NEAR(res[q], expected, 1e-13 * (std::abs(oil[q]) + std::abs(water[q]))) << q;
    }
    EXPECT_GT(std::abs(oil[0]), 0.1 * std::abs(water[0]));  // both phases flow
    EXPECT_GT(std::abs(water[0]), 0.1 * std::abs(oil[0]));
}

// INJ and PR on reservoir volume rates: in every step, the reservoir volume of each well's
// rates at the factors of the step's start (reservoir_factors of the state before it) is the
// target, to the well tolerance, and the step's control carries those factors. The checks fail
// with factors of 1, at the reference pressure or at the step's end: B moves by more than the
// tolerance over a step, and differs from 1 and from B(p_ref) by far more.
TEST(ReservoirRate, WellsHoldTheReservoirVolumeAtTheFactorsOfTheStepsStart) {
    Reservoir r(2.0);
    std::vector<wells::WellSpec> specs = r.system->wells().specs();
    specs[0].control = ControlKind::reservoir_rate;  // INJ: 5 reservoir m^3/day of water
    specs[1].control = ControlKind::reservoir_rate;  // PR: 2 reservoir m^3/day of oil and water
    specs[1].min_bhp = 3000.0 * units::kPsi;         // (5,900 psi: at its limit from the start)
    const wells::TwoPhaseSystem sys(r.spec.grid, r.rock, r.spec.two_phase, specs);
    Schedule s = schedule(20.0);
    s.newton.tolerance_well = 1e-9;
    Simulator sim(sys, r.x0, s, cpu_solver(), linear(1e-11));
    std::array<double, 2> start = sys.wells().reservoir_factors(sim.state().cells);
    const double b_ref = grid::reference_volume_factor(r.spec.two_phase, grid::kWater);
    double moved = 0.0, off_reference = 0.0;  // the largest change of B_w in a step; from B_ref
    std::array<int, 2> checked{0, 0};         // steps on the rate, per well
    Observer obs;
    obs.step = [&](const StepRecord& step) {
        for (std::size_t w = 0; w < 2; ++w) {
            const wells::WellControl& c = step.controls[w];
            if (c.kind != ControlKind::reservoir_rate) continue;  // at a BHP limit
            EXPECT_EQ(c.factor[grid::kOil], start[grid::kOil]) << "step " << step.step;
            EXPECT_EQ(c.factor[grid::kWater], start[grid::kWater]) << "step " << step.step;
            const wells::WellRates& q = step.rates[w];
            const double volume = start[grid::kOil] * q.oil + start[grid::kWater] * q.water;
            const double out = w == 0 ? -volume : volume;  // the injector's rates are < 0
            EXPECT_NEAR(out, specs[w].target, 1e-8 * specs[w].target)
                << "step " << step.step << " well " << w;
            ++checked[w];
        }
        const std::array<double, 2> end = sys.wells().reservoir_factors(sim.state().cells);
        moved = std::max(moved, std::abs(end[grid::kWater] - start[grid::kWater]));
        off_reference = std::max(off_reference, std::abs(start[grid::kWater] - b_ref));
        start = end;
    };
    ASSERT_TRUE(sim.run(obs).completed);
    EXPECT_GE(checked[0], 6);
    EXPECT_GE(checked[1], 6);
    EXPECT_GT(moved, 1e-7);  // above the tolerance: the step's end would fail
    EXPECT_GT(off_reference, 1e-5);
    EXPECT_GT(std::abs(start[grid::kWater] - 1.0), 1e-5);
}

// A history producer on the reservoir volume of its observed rates (WCONHIST RESV; VoidageOf):
// each step's target is B_o oil + B_w water at the step's start factors, and its rates hold
// it; an event gives it other observed rates. The check fails with a target of the surface sum
// (the spec's placeholder) or at fixed factors: B differs from 1 and moves.
TEST(ReservoirRate, AHistoryWellHoldsTheVolumeOfItsObservedRates) {
    Reservoir r(2.0);
    std::vector<wells::WellSpec> specs = r.system->wells().specs();
    specs[1].control = ControlKind::reservoir_rate;
    specs[1].voidage = {true, 1.5 / kDay, 0.5 / kDay};
    specs[1].target = 2.0 / kDay;  // the surface sum, as the deck reader sets it
    specs[1].min_bhp = 3000.0 * units::kPsi;
    const wells::TwoPhaseSystem sys(r.spec.grid, r.rock, r.spec.two_phase, specs);
    Schedule s = schedule(20.0);
    s.newton.tolerance_well = 1e-9;
    WellEvent e;
    e.time = 10.0 * kDay;
    e.well = 1;
    e.key = "schedule.events[0]";
    e.kind = ControlKind::reservoir_rate;
    e.voidage = {true, 1.0 / kDay, 1.2 / kDay};
    e.target = 2.2 / kDay;
    s.events.push_back(e);
    validate(s, specs);
    Simulator sim(sys, r.x0, s, cpu_solver(), linear(1e-11));
    std::array<double, 2> start = sys.wells().reservoir_factors(sim.state().cells);
    int checked = 0;
    Observer obs;
    obs.step = [&](const StepRecord& step) {
        const wells::VoidageOf& v = step.time <= 10.0 * kDay ? specs[1].voidage : e.voidage;
        const double target = wells::voidage(v, start[0], start[1]);
        const wells::WellControl& c = step.controls[1];
        if (c.kind == ControlKind::reservoir_rate) {
            EXPECT_EQ(c.target, target) << "step " << step.step;
            const wells::WellRates& q = step.rates[1];
            EXPECT_NEAR(start[0] * q.oil + start[1] * q.water, target, 1e-8 * target)
                << "step " << step.step;
            EXPECT_GT(std::abs(target - (v.oil + v.water)), 1e-6 * target);
            ++checked;
        }
        start = sys.wells().reservoir_factors(sim.state().cells);
    };
    ASSERT_TRUE(sim.run(obs).completed);
    EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace heptane::sim
