// The two_phase Jacobian from forward-mode AD against central finite differences of the
// residual, and physical properties of the residual (conservation, equilibrium).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>

#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/base/errors.hpp"
#include "core/base/random.hpp"
#include "core/base/units.hpp"
#include "core/matrix/formats.hpp"

namespace heptane {
namespace {

using grid::CellState;

struct Problem {
    wells::ModelSpec spec;
    grid::RockFields rock;
};

Problem make_setup(int nx, int ny, int nz, std::vector<wells::WellSpec> wells) {
    Problem s{test::two_phase_spec(nx, ny, nz, std::move(wells)), {}};
    s.rock = grid::build_rock(s.spec.grid, s.spec.permeability, s.spec.porosity);
    return s;
}

/// A state away from every kink: pressures hydrostatic +- 5 bar (no upwind ties), water
/// saturations strictly inside (swc, 1 - sor) (no relperm clamping).
CellState random_state(const wells::TwoPhaseSystem& sys, std::uint64_t seed) {
    CellState x = sys.cells().equilibrium_state(6000.0 * units::kPsi, 12000.0 * units::kFoot, 0.5);
    Rng rng(seed);
    for (std::size_t m = 0; m < x.p.size(); ++m) {
        x.p[m] += rng.uniform(-5.0, 5.0) * units::kBar;
        x.sw[m] = rng.uniform(0.3, 0.7);
    }
    return x;
}

/// The relperm of a test: Corey's, a table (design decision 74; rows 0.1 apart, no row within
/// the finite differences' step of the random states' saturations), that table with a
/// capillary pressure (decision 76), or that with pressure-dependent PVT (decision 84: a
/// PVDO oil, a water viscosibility), or two saturation regions (decision 87: Corey's law
/// without Pc in region 1, the capillary table in region 2, cells of both side by side).
/// Or the capillary table scaled to each cell's own end points and largest krw, kro and Pc
/// (decisions 95, 98), which vary from cell to cell (every fourth cell keeps the table's).
enum class Law { corey, table, capillary, pvt, regions, end_points };

/// Law::regions' second region and the cells' regions: every third cell in region 2.
std::vector<grid::RelPerm> set_regions(Law law, index_t cells, grid::RockFields& rock) {
    if (law == Law::end_points) {
        for (auto& v : rock.end_points) v.assign(static_cast<std::size_t>(cells), std::nan(""));
        for (index_t m = 0; m < cells; ++m) {
            if (m % 4 == 3) continue;
            const double f = static_cast<double>(m % 5) / 4.0;  // 0 ... 1
            rock.end_points[0][m] = 0.1 + 0.1 * f;              // SWL
            rock.end_points[1][m] = 0.25 + 0.1 * f;             // SWCR
            rock.end_points[2][m] = 0.95 - 0.1 * f;             // SWU
            rock.end_points[3][m] = 0.1 + 0.15 * f;             // SOWCR
            rock.end_points[4][m] = 0.4 + 0.3 * f;              // KRW (the table's 0.7)
            rock.end_points[5][m] = 0.5 + 0.5 * f;              // KRO (the table's 0.9)
            // PCW (the table's 3 bar), leaving no face's potential within a step of 0
            rock.end_points[6][m] = (1.2 + 2.5 * f) * units::kBar;
        }
        return {};
    }
    if (law != Law::regions) return {};
    rock.saturation_region.assign(static_cast<std::size_t>(cells), 0);
    for (index_t m = 0; m < cells; m += 3) rock.saturation_region[m] = 1;
    grid::RelPerm second;
    second.table = test::capillary_relperm_table();
    return {second};
}

void set_law(grid::TwoPhaseParams& prm, Law law) {
    if (law == Law::table) prm.relperm.table = grid::relperm_table(test::relperm_rows());
    if (law == Law::capillary || law == Law::pvt || law == Law::end_points)
        prm.relperm.table = test::capillary_relperm_table();
    if (law == Law::pvt) test::set_pressure_dependent_pvt(prm);
}

/// With a fault; the law.
class TwoPhaseJacobianGrids : public ::testing::TestWithParam<std::tuple<bool, Law>> {};

TEST_P(TwoPhaseJacobianGrids, MatchesCentralFiniteDifferences) {
    const int nx = 6, ny = 5, nz = 4;
    auto wells = test::corner_wells(nx, ny, nz);  // BHP and rate, producers and injectors
    wells.push_back(test::make_well("MID", 3, 2, 1, 2, true, true));
    Problem s = make_setup(nx, ny, nz, wells);
    const bool faulted = std::get<0>(GetParam());
    if (faulted) test::add_fault(s.spec);
    set_law(s.spec.two_phase, std::get<1>(GetParam()));
    const std::vector<grid::RelPerm> more =
        set_regions(std::get<1>(GetParam()), s.spec.grid.num_cells(), s.rock);
    ASSERT_GT(s.spec.two_phase.gravity, 0.0);
    const wells::TwoPhaseSystem sys(s.spec.grid, s.rock, s.spec.two_phase, s.spec.wells, more);
    const CellState x = random_state(sys, 1);
    const CellState x_old = random_state(sys, 2);  // accumulation terms are nonzero
    std::vector<double> p_bh(wells.size());
    Rng rng(3);
    for (std::size_t w = 0; w < wells.size(); ++w) {
        const index_t m0 = s.spec.grid.cell(wells[w].i, wells[w].j, wells[w].k_first);
        p_bh[w] = x.p[m0] + rng.uniform(-20.0, 20.0) * units::kBar;
    }
    const double dt = s.spec.dt;

    const GHSystem lin = sys.linearize(x, p_bh, x_old, dt);
    // The fault's connections: a throw of 1.5 layers puts layer k against layers k - 1 and
    // k - 2 of the other side (0 + 1 + 2 + 2 pairs a row of columns), each entry twice.
    EXPECT_EQ(lin.matrix.nnc().num_entries(), faulted ? 2 * 5 * ny : 0);
    const Eigen::MatrixXd J = Eigen::MatrixXd(to_eigen(to_csr(lin.matrix)));
    const std::vector<double> r0 = sys.residual(x, p_bh, x_old, dt);
    for (std::size_t i = 0; i < r0.size(); ++i) ASSERT_DOUBLE_EQ(lin.rhs[i], -r0[i]) << i;

    const index_t M = s.spec.grid.num_cells();
    const index_t n = lin.matrix.rows();
    ASSERT_EQ(J.rows(), n);
    // Steps in the scaled unknowns: 1e-3 bar for pressures, 1e-6 for saturations.
    const double hp = 1.0e-3, hs = 1.0e-6;
    double worst = 0.0;
    for (index_t u = 0; u < n; ++u) {
        CellState xp = x, xm = x;
        std::vector<double> bp = p_bh, bm = p_bh;
        double h = hp;
        if (u < 2 * M) {
            const index_t m = u / 2;
            if (u % 2 == 0) {
                xp.p[m] += hp * units::kPressureScale;
                xm.p[m] -= hp * units::kPressureScale;
            } else {
                h = hs;
                xp.sw[m] += hs;
                xm.sw[m] -= hs;
            }
        } else {
            bp[u - 2 * M] += hp * units::kPressureScale;
            bm[u - 2 * M] -= hp * units::kPressureScale;
        }
        const auto rp = sys.residual(xp, bp, x_old, dt);
        const auto rm = sys.residual(xm, bm, x_old, dt);
        const double col_max = J.col(u).cwiseAbs().maxCoeff();
        ASSERT_GT(col_max, 0.0) << "empty Jacobian column " << u;
        for (index_t i = 0; i < n; ++i) {
            const double fd = (rp[i] - rm[i]) / (2.0 * h);
            const double rel = std::abs(fd - J(i, u)) / col_max;
            worst = std::max(worst, rel);
            ASSERT_LE(rel, 1.0e-6)
                << "row " << i << ", column " << u << ": AD " << J(i, u) << ", FD " << fd;
        }
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", worst);
    RecordProperty("worst_relative_error", text);
}

// The accumulation blocks (GHMatrix::accumulation, CPR's true-IMPES weights) are the
// accumulation term's part of the diagonal blocks alone: that term scales with 1 / dt while
// the fluxes and the wells do not, so the centre blocks at dt and 2 dt differ by half of it.
TEST(TwoPhaseJacobian, ASlabsConnectionBlocksAreTheWholeGridsAndItsLayoutIsChecked) {
    // Planes [2, 5) of a grid faulted between planes 2 and 3 (design decision 64): the slab's
    // connection blocks (zero_jacobian(2, 3)'s layout) are the whole assembly's entries between
    // its cells, bit for bit; a slab laid out without them is refused.
    Problem s = make_setup(6, 5, 4, test::corner_wells(6, 5, 4));
    test::add_fault(s.spec);
    const wells::TwoPhaseSystem sys(s.spec.grid, s.rock, s.spec.two_phase, s.spec.wells);
    const CellState x = random_state(sys, 1), x_old = random_state(sys, 2);
    const index_t plane = 5 * 4, begin = 2 * plane, end = 5 * plane;
    GHMatrix whole = sys.cells().zero_jacobian(), slab = sys.cells().zero_jacobian(2, 3);
    std::vector<double> r_whole, r_slab;
    sys.cells().assemble(x, x_old, s.spec.dt, r_whole, &whole);
    sys.cells().assemble(x, x_old, s.spec.dt, r_slab, &slab, begin, end);
    std::vector<index_t> source;
    const NncArrays expected = nnc_window(whole.nnc(), 2, begin, end - begin, &source);
    ASSERT_GT(expected.num_entries(), 0);
    EXPECT_EQ(slab.nnc().col, expected.col);
    EXPECT_EQ(slab.nnc().vals, expected.vals);
    for (index_t m = begin; m < end; ++m) EXPECT_EQ(r_slab[2 * m], r_whole[2 * m]) << m;
    GHMatrix plain(3, 5, 4, 2);  // no connections laid out
    EXPECT_THROW(sys.cells().assemble(x, x_old, s.spec.dt, r_slab, &plain, begin, end),
                 NotSupported);
    GHMatrix shifted = sys.cells().zero_jacobian(1, 3);  // another window's layout
    EXPECT_THROW(sys.cells().assemble(x, x_old, s.spec.dt, r_slab, &shifted, begin, end),
                 NotSupported);
}

TEST(TwoPhaseJacobian, AccumulationBlocksAreTheTimeTermAlone) {
    const int nx = 5, ny = 4, nz = 3;
    const Problem s = make_setup(nx, ny, nz, test::corner_wells(nx, ny, nz));
    const wells::TwoPhaseSystem sys(s.spec.grid, s.rock, s.spec.two_phase, s.spec.wells);
    const CellState x = random_state(sys, 4), x_old = random_state(sys, 5);
    const std::vector<double> p_bh(s.spec.wells.size(), x.p[0] + 10.0 * units::kBar);
    const double dt = s.spec.dt;
    const GHMatrix a = sys.linearize(x, p_bh, x_old, dt).matrix;
    const GHMatrix b = sys.linearize(x, p_bh, x_old, 2.0 * dt).matrix;
    ASSERT_TRUE(a.has_accumulation());
    ASSERT_EQ(a.accumulation().size(), static_cast<std::size_t>(a.num_cells() * 4));
    double worst = 0.0;
    for (index_t m = 0; m < a.num_cells(); ++m) {
        double scale = 0.0;
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) scale = std::max(scale, std::abs(a.at(kCenter, m, r, c)));
        for (int r = 0; r < 2; ++r) {
            for (int c = 0; c < 2; ++c) {
                const double acc = a.accumulation_at(m, r, c);
                EXPECT_DOUBLE_EQ(b.accumulation_at(m, r, c), 0.5 * acc) << m << " " << r << c;
                const double from_dt = 2.0 * (a.at(kCenter, m, r, c) - b.at(kCenter, m, r, c));
                worst = std::max(worst, std::abs(from_dt - acc) / scale);
            }
        }
        // The saturation column: the water equation grows with S_w, the oil one falls.
        EXPECT_GT(a.accumulation_at(m, grid::kWater, 1), 0.0) << m;
        EXPECT_LT(a.accumulation_at(m, grid::kOil, 1), 0.0) << m;
    }
    EXPECT_LE(worst, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Grids, TwoPhaseJacobianGrids,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(Law::corey, Law::table,
                                                              Law::capillary, Law::pvt,
                                                              Law::regions, Law::end_points)),
                         [](const ::testing::TestParamInfo<std::tuple<bool, Law>>& info) {
                             const Law law = std::get<1>(info.param);
                             return std::string(std::get<0>(info.param) ? "Faulted" : "Box") +
                                    (law == Law::corey       ? "Corey"
                                     : law == Law::table     ? "Table"
                                     : law == Law::capillary ? "Capillary"
                                     : law == Law::pvt       ? "Pvt"
                                     : law == Law::regions   ? "Regions"
                                                             : "EndPoints");
                         });

class TwoPhaseResidualGrids : public ::testing::TestWithParam<bool> {};  // with a fault

TEST_P(TwoPhaseResidualGrids, FluxesConserveMass) {
    // With x_old = x and no wells, R is the sum of face fluxes (a fault's connections
    // included): each appears with opposite signs in its two cells, so every phase sums to
    // zero (up to rounding).
    Problem s = make_setup(6, 4, 3, {});
    if (GetParam()) test::add_fault(s.spec);
    const wells::TwoPhaseSystem sys(s.spec.grid, s.rock, s.spec.two_phase, {});
    const CellState x = random_state(sys, 9);
    const auto r = sys.residual(x, {}, x, s.spec.dt);
    for (int a = 0; a < 2; ++a) {
        double sum = 0.0, sum_abs = 0.0;
        for (std::size_t m = 0; m < r.size() / 2; ++m) {
            sum += r[2 * m + a];
            sum_abs += std::abs(r[2 * m + a]);
        }
        EXPECT_GT(sum_abs, 0.0);
        EXPECT_LE(std::abs(sum), 1e-12 * sum_abs) << "phase " << a;
    }
    EXPECT_EQ(sys.cells().has_nnc(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Grids, TwoPhaseResidualGrids, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                             return info.param ? "Faulted" : "Box";
                         });

TEST(TwoPhaseResidual, HydrostaticEquilibriumHasNoFlow) {
    // Oil in hydrostatic equilibrium and immobile water (S_w = swc): no cell has a flux.
    const Problem s = make_setup(3, 3, 6, {});
    const wells::TwoPhaseSystem sys(s.spec.grid, s.rock, s.spec.two_phase, {});
    const double swc = s.spec.two_phase.relperm.swc;
    CellState x = sys.cells().equilibrium_state(6000.0 * units::kPsi, 12000.0 * units::kFoot, swc);
    const auto r = sys.residual(x, {}, x, s.spec.dt);
    // Reference scale: the same residual with one cell 1 bar off equilibrium.
    CellState y = x;
    y.p[7] += units::kBar;
    const auto r1 = sys.residual(y, {}, x, s.spec.dt);
    EXPECT_GT(test::max_abs(r1), 0.0);
    EXPECT_LE(test::max_abs(r), 1e-9 * test::max_abs(r1));
    // Pressure increases downwards by about rho_o g dz per layer.
    const double step = x.p[1] - x.p[0];
    EXPECT_NEAR(step, s.spec.two_phase.oil.density * units::kGravity * s.spec.grid.dz, 1e-3 * step);
}

TEST(TwoPhaseResidual, StoredPropertiesAreTheFaceDualsBitForBit) {
    // The cell equations rebuild each face's dual numbers from a cell's stored PhaseState:
    // the values and the derivatives must be those of evaluating the laws in the face's
    // Dual<4> (seeded in slots 2 and 3, a neighbour's), and the other slots of that
    // evaluation exactly +0, which the rebuilt dual has. Over pressures far off the
    // reference and saturations across both end points (the clamps); without and with a
    // capillary pressure (the water's density at p_w = p_o - Pc(S_w), so it has an S_w slot),
    // and with pressure-dependent viscosities (the mobility then has a pressure slot too).
    for (const Law law : {Law::corey, Law::capillary, Law::pvt}) {
        grid::TwoPhaseParams prm = test::two_phase_spec(2, 2, 2, {}).two_phase;
        set_law(prm, law);
        using D4 = grid::Dual<4>;
        Rng rng(21);
        for (int k = 0; k < 2000; ++k) {
            const double p = prm.reference_pressure * rng.uniform(0.2, 3.0);
            const double sw = rng.uniform(-0.1, 1.1);
            const D4 pn = D4::variable(p, 2, units::kPressureScale), swn = D4::variable(sw, 3);
            for (int a = 0; a < 2; ++a) {
                const grid::PhaseState s = grid::phase_state(prm, prm.relperm, a, p, sw);
                const D4 pa = grid::phase_pressure(prm.relperm, a, pn, swn);
                const D4 rho = grid::phase_density(prm, a, pa);
                const D4 mob = grid::phase_mobility(prm, prm.relperm, a, pa, swn);
                const D4 pc =
                    a == grid::kWater ? grid::capillary_pressure(prm.relperm, swn) : D4(0.0);
                const double got[8] = {s.rho,     s.drho, s.mob, s.dmob,
                                       s.drho_ds, s.pc,   s.dpc, s.dmob_dp};
                const double want[8] = {rho.v,    rho.d[2], mob.v,   mob.d[3],
                                        rho.d[3], pc.v,     pc.d[3], mob.d[2]};
                for (int q = 0; q < 8; ++q) {
                    EXPECT_EQ(std::memcmp(&got[q], &want[q], sizeof(double)), 0)
                        << "phase " << a << " entry " << q << ": " << got[q] << " vs " << want[q];
                }
                for (const D4* d : {&rho, &mob, &pc}) {
                    for (int slot : {0, 1}) {
                        EXPECT_EQ(d->d[slot], 0.0);
                        EXPECT_FALSE(std::signbit(d->d[slot]));
                    }
                }
                if (law == Law::capillary && a == grid::kWater && sw > 0.2 && sw < 0.8) {
                    EXPECT_NE(s.drho_ds, 0.0);  // the capillary pressure is seen
                    EXPECT_LT(s.dpc, 0.0);
                }
                if (law == Law::pvt && sw > 0.25 && sw < 0.75) {
                    EXPECT_NE(s.dmob_dp, 0.0);  // the viscosity's pressure dependence is seen
                }
            }
        }
    }
}

TEST(Stencil, NeighbourMaskIsEveryDiagonalsBoundaryTest) {
    for (const auto& dims : {std::array<int, 3>{1, 1, 1}, {3, 4, 5}, {2, 1, 7}, {5, 6, 1}}) {
        const index_t cells = static_cast<index_t>(dims[0]) * dims[1] * dims[2];
        for (index_t m = 0; m < cells; ++m) {
            const unsigned mask = stencil_neighbour_mask(dims[0], dims[1], dims[2], m);
            for (int d = 0; d < kStencilSize; ++d) {
                EXPECT_EQ((mask >> d & 1u) != 0,
                          stencil_has_neighbour(dims[0], dims[1], dims[2], m, d))
                    << dims[0] << " x " << dims[1] << " x " << dims[2] << " cell " << m << " d "
                    << d;
            }
        }
    }
}

// Design decision 94: a well's BHP reference depth (WELSPECS item 5, bhp_depth). Given as its
// first perforation's centre it is the default, bit for bit; 12.5 m above it, the BHP there
// plus the wellbore's head rho_wb g 12.5 gives the default's perforation pressures, so every
// cell's residual (the well's own equation is p_bh - target); a rate well starts with no
// drawdown at its first perforation.
TEST(TwoPhaseWells, ABhpReferenceDepthShiftsTheBhpByTheWellboresHead) {
    const std::vector<wells::WellSpec> w = {test::make_well("PB", 2, 2, 1, 3)};
    const wells::ModelSpec spec = test::two_phase_spec(5, 5, 4, w);
    const grid::RockFields rock = grid::build_rock(spec.grid, spec.permeability, spec.porosity);
    const auto system = [&](double depth, bool rate = false) {
        std::vector<wells::WellSpec> v = w;
        v[0].bhp_depth = depth;
        if (rate) {
            v[0].control = wells::ControlKind::rate;
            v[0].target = 3.0 / units::kDay;
        }
        return wells::TwoPhaseSystem(spec.grid, rock, spec.two_phase, v);
    };
    const wells::TwoPhaseSystem base = system(std::nan(""));
    const grid::CellState x =
        base.cells().equilibrium_state(6000.0 * units::kPsi, spec.grid.top_depth, 0.3);
    const index_t c0 = spec.grid.cell(2, 2, 1);
    const double z0 = base.cells().depths()[c0];
    EXPECT_EQ(base.wells().reference_depths()[0], z0);
    const double dt = units::kDay, p_bh = 5800.0 * units::kPsi;
    const std::vector<double> r0 = base.residual(x, {p_bh}, x, dt);
    EXPECT_EQ(system(z0).residual(x, {p_bh}, x, dt), r0);
    const double head =
        grid::reference_density(spec.two_phase, grid::kOil) * spec.two_phase.gravity * 12.5;
    const wells::TwoPhaseSystem above = system(z0 - 12.5);
    const std::vector<double> r1 = above.residual(x, {p_bh - head}, x, dt);
    ASSERT_EQ(r1.size(), r0.size());
    double worst = 0.0, scale = 0.0, moved = 0.0;
    const std::size_t cells = r0.size() - 1;
    for (std::size_t i = 0; i < cells; ++i) {
        worst = std::max(worst, std::abs(r1[i] - r0[i]));
        scale = std::max(scale, std::abs(r0[i]));
    }
    // Without the head the same p_bh moves the perforation flows by far more than rounding.
    const std::vector<double> r2 = above.residual(x, {p_bh}, x, dt);
    for (std::size_t i = 0; i < cells; ++i) moved = std::max(moved, std::abs(r2[i] - r0[i]));
    EXPECT_LE(worst, 1e-12 * scale);
    EXPECT_GT(moved, 1e-3 * scale);
    EXPECT_NEAR(r1.back() - r0.back(), -head / units::kPressureScale, 1e-12);
    // A rate well's first p_bh: its first perforation's pressure less the head.
    const wells::TwoPhaseSystem rate = system(z0 - 12.5, true);
    EXPECT_NEAR(rate.wells().initial_bhp(x)[0], x.p[c0] - head, 1e-9 * x.p[c0]);
    std::printf("  head %.1f Pa over 12.5 m; |dR| %.2e shifted, %.2e unshifted (max |R| %.2e)\n",
                head, worst, moved, scale);
}

TEST(TwoPhaseSystemTest, InitialSystemCarriesTheWellControls) {
    auto wells = test::corner_wells(4, 4, 3);
    const wells::Model model = wells::generate(test::two_phase_spec(4, 4, 3, wells));
    const GHSystem& sys = model.system;
    const WellArrays& w = sys.matrix.wells();
    const index_t mk = sys.matrix.cell_unknowns();
    for (std::size_t i = 0; i < wells.size(); ++i) {
        if (wells[i].control == wells::ControlKind::bhp) {
            // p_bh starts at its target: residual 0, row = [0 ... 0, 1].
            EXPECT_EQ(sys.rhs[mk + i], 0.0) << wells[i].name;
            EXPECT_EQ(w.d[i], 1.0);
            for (index_t v = 0; v < w.count[i] * 2; ++v) EXPECT_EQ(w.w_vals[w.first[i] + v], 0.0);
        } else {
            // Rate wells start without flow through the first perforation: b = target rate.
            EXPECT_GT(sys.rhs[mk + i], 0.0) << wells[i].name;
            EXPECT_NE(w.d[i], 0.0);
        }
        // Every perforated cell's equations depend on p_bh.
        for (index_t l = 0; l < w.count[i]; ++l) EXPECT_NE(w.wt_vals[w.first[i] + l * 2 + 1], 0.0);
    }
    EXPECT_EQ(sys.component_names, (std::vector<std::string>{"dp", "dSw"}));
}

}  // namespace
}  // namespace heptane
