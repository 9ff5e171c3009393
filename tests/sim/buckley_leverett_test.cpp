// The simulator against the Buckley-Leverett solution: 1-D horizontal waterflood, no
// gravity, incompressible fluids and rock, water injected at a fixed rate at x = 0 and fluid
// produced at x = L. The analytic profile: the Welge tangent gives the shock saturation S_f,
// the front sits at x_f = q t f'(S_f) / (A phi), behind it S(x) solves f'(S) = x A phi / (q t).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "common/cpu_solver_factory.hpp"
#include "core/base/units.hpp"
#include "sim/simulator.hpp"

namespace heptane::sim {
namespace {

constexpr double kLength = 100.0;  // m
constexpr double kPorosity = 0.2;
constexpr double kArea = 1.0;                 // m^2 (dy = dz = 1 m)
constexpr double kRate = 0.05 / units::kDay;  // m^3/s
constexpr double kTime = 100.0 * units::kDay;

grid::TwoPhaseParams fluids() {
    grid::TwoPhaseParams p;
    p.oil = {800.0, 2.0e-3, 0.0};
    p.water = {1000.0, 0.5e-3, 0.0};
    p.relperm = {0.2, 0.2, 2.0, 2.0, 1.0, 1.0, {}};
    p.rock_compressibility = 0.0;
    p.gravity = 0.0;
    return p;
}

/// Fractional flow of water and its derivative (central difference: smooth inside).
double frac(const grid::TwoPhaseParams& p, double s) {
    const double p_ref = p.reference_pressure;  // constant viscosities: any pressure
    const double lw = grid::phase_mobility(p, p.relperm, grid::kWater, p_ref, s);
    const double lo = grid::phase_mobility(p, p.relperm, grid::kOil, p_ref, s);
    return lw / (lw + lo);
}
double frac_prime(const grid::TwoPhaseParams& p, double s) {
    const double h = 1e-7;
    return (frac(p, s + h) - frac(p, s - h)) / (2.0 * h);
}

/// Bisection on [a, b] for g(s) = 0 (g changes sign).
double bisect(const std::function<double(double)>& g, double a, double b) {
    for (int it = 0; it < 200; ++it) {
        const double m = 0.5 * (a + b);
        ((g(a) < 0.0) == (g(m) < 0.0) ? a : b) = m;
    }
    return 0.5 * (a + b);
}

struct Analytic {
    double s_front;  ///< shock saturation (Welge tangent from S_wc)
    double x_front;  ///< [m] at kTime
    grid::TwoPhaseParams p;
    double s_max;
    /// Saturation at x.
    double operator()(double x) const {
        if (x >= x_front) return p.relperm.swc;
        const double target = x * kArea * kPorosity / (kRate * kTime);
        // f' falls from its maximum to 0 between S_f and 1 - sor
        return bisect([&](double s) { return frac_prime(p, s) - target; }, s_front, s_max);
    }
};

Analytic analytic() {
    Analytic a;
    a.p = fluids();
    const double swc = a.p.relperm.swc;
    a.s_max = 1.0 - a.p.relperm.sor;
    // Welge: f'(S_f) (S_f - S_wc) = f(S_f); the tangent lies above the S-curve's left part.
    a.s_front = bisect([&](double s) { return frac_prime(a.p, s) * (s - swc) - frac(a.p, s); },
                       swc + 0.05, a.s_max - 1e-6);
    a.x_front = kRate * kTime / (kArea * kPorosity) * frac_prime(a.p, a.s_front);
    return a;
}

struct Profile {
    std::vector<double> x, sw;
    double dx;
};

/// Courant number of the time steps at the front speed.
constexpr double kCourant = 1.0;

/// Runs the 1-D flood on n cells.
Profile simulate(int n) {
    const Analytic a = analytic();
    grid::Grid3D g;
    g.nx = n;
    g.dx = kLength / n;
    g.dy = g.dz = 1.0;
    g.top_depth = 1000.0;
    grid::FieldSpec perm, poro;
    perm.value = {100.0, 100.0, 100.0};
    poro.value = {kPorosity, 0.0, 0.0};
    const grid::RockFields rock = grid::build_rock(g, perm, poro);
    wells::WellSpec inj{"INJ", wells::WellType::injector, 0,     0,    0,
                        0,     wells::ControlKind::rate,  kRate, 0.05, 0.0};
    wells::WellSpec prod{"PROD",
                         wells::WellType::producer,
                         n - 1,
                         0,
                         0,
                         0,
                         wells::ControlKind::bhp,
                         100.0 * units::kBar,
                         0.05,
                         0.0};
    const wells::TwoPhaseSystem system(g, rock, a.p, {inj, prod});
    const grid::CellState x0 = system.cells().equilibrium_state(100.0 * units::kBar, 0.0, 0.2);

    Schedule s;
    s.present = true;
    s.report_times = {kTime};
    const double speed = kRate / (kArea * kPorosity) * frac_prime(a.p, a.s_front);
    s.dt.initial = s.dt.max = kCourant * g.dx / speed;
    s.dt.min = 1e-3 * s.dt.initial;
    s.newton.tolerance_cnv = 1e-6;
    s.newton.tolerance_mb = 1e-10;
    SolveOptions linear;
    linear.tolerance = 1e-10;
    linear.max_iterations = 5000;
    Simulator sim(system, x0, s, test::cpu_solver_factory(PreconditionerKind::point_block_jacobi),
                  linear);
    const Outcome out = sim.run();
    EXPECT_TRUE(out.completed) << out.message;
    Profile p;
    p.dx = g.dx;
    for (int i = 0; i < n; ++i) {
        p.x.push_back((i + 0.5) * g.dx);
        p.sw.push_back(sim.state().cells.sw[g.cell(i, 0, 0)]);
    }
    return p;
}

/// Where the profile falls through `level` (linear between cell centres).
double crossing(const Profile& p, double level) {
    for (std::size_t i = 0; i + 1 < p.sw.size(); ++i) {
        if (p.sw[i] >= level && p.sw[i + 1] < level) {
            return p.x[i] + (p.sw[i] - level) / (p.sw[i] - p.sw[i + 1]) * p.dx;
        }
    }
    return -1.0;
}

/// L1 distance to the analytic profile, per unit length (cell averages vs point values).
double l1_error(const Profile& p, const Analytic& a) {
    double e = 0.0;
    for (std::size_t i = 0; i < p.sw.size(); ++i) e += std::abs(p.sw[i] - a(p.x[i])) * p.dx;
    return e / kLength;
}

TEST(BuckleyLeverett, FrontAndShockSaturationMatchTheWelgeSolution) {
    const Analytic a = analytic();
    ASSERT_GT(a.x_front, 0.3 * kLength);  // the front is inside the model, well past the inlet
    ASSERT_LT(a.x_front, 0.8 * kLength);
    const double swc = a.p.relperm.swc;
    double previous_l1 = INFINITY, previous_front_error = INFINITY;
    for (int n : {50, 100, 200}) {
        const Profile p = simulate(n);
        // The grid's length scale: backward Euler with upwinding adds a numerical diffusion
        // D = v dx (1 + C) / 2 (C the Courant number), which spreads the front over the
        // diffusion length sqrt(D t) = sqrt(x_f dx (1 + C) / 2) (the shock's self-sharpening
        // keeps it below that).
        const double spread = std::sqrt(a.x_front * p.dx * (1.0 + kCourant) / 2.0);
        // Front: where the profile crosses halfway between S_wc and S_f, within one spread.
        const double front = crossing(p, 0.5 * (swc + a.s_front));
        EXPECT_NEAR(front, a.x_front, spread) << n << " cells";
        EXPECT_LT(std::abs(front - a.x_front), previous_front_error) << n << " cells";
        previous_front_error = std::abs(front - a.x_front);
        // Shock saturation: two spreads behind the front the profile is the rarefaction's,
        // whose value at the shock is S_f; the smearing leaves an error of the order of
        // the relative spread, spread / x_f, times half the saturation range.
        const double x_behind = a.x_front - 2.0 * spread;
        const std::size_t i = static_cast<std::size_t>(x_behind / p.dx);
        const double s_tol = 0.5 * (1.0 - swc - a.p.relperm.sor) * spread / a.x_front;
        EXPECT_NEAR(p.sw[i], a(p.x[i]), s_tol) << n << " cells, x " << p.x[i];
        EXPECT_GT(a(p.x[i]), a.s_front);
        EXPECT_LT(a(p.x[i]), a.s_front + 0.1);  // close enough behind the shock to test S_f
        // The whole profile converges.
        const double l1 = l1_error(p, a);
        std::printf(
            "  %3d cells: front %.3f m (analytic %.3f m, tolerance %.3f m), S(%.2f m) %.4f "
            "(analytic %.4f, S_f %.4f, tolerance %.4f), L1 %.4e\n",
            n, front, a.x_front, spread, p.x[i], p.sw[i], a(p.x[i]), a.s_front, s_tol, l1);
        EXPECT_LT(l1, 0.8 * previous_l1) << "the error must fall when the grid is refined";
        previous_l1 = l1;
    }
}

}  // namespace
}  // namespace heptane::sim
