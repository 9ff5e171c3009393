// End-point scaling (design decisions 95, 98): a cell's table scaled to its own SWL, SWCR, SWU
// and SOWCR, and its curves to their own largest values KRW, KRO and PCW. Checked on the laws
// against hand-computed values and finite differences, and on the model against an independent
// construction: where one affine map takes every end point of the table to the cell's, the
// scaled table is the table with its saturations mapped, so the model with the end points
// equals (to rounding) the model with the mapped table; the factors are the table with its
// columns multiplied.
#include "grid/end_points.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/units.hpp"
#include "grid/saturation_table.hpp"

namespace heptane {
namespace {

using grid::CellRelPerm;
using grid::CellState;
using grid::EndPoints;

grid::RelPerm capillary_law() {
    grid::RelPerm rp;
    rp.table = test::capillary_relperm_table();
    return rp;
}

TEST(EndPoints, ATablesEndPointsAreItsRowsWhereTheCurvesLeaveZero) {
    // test::relperm_rows: S_w 0.2 ... 0.8, krw > 0 from the second row, kro 0 at the last.
    const EndPoints e = grid::relperm_table(test::relperm_rows()).ends;
    EXPECT_EQ(e.swl, 0.2);
    EXPECT_EQ(e.swcr, 0.2);
    EXPECT_EQ(e.swu, 0.8);
    EXPECT_EQ(e.sowcr, 1.0 - 0.8);
    // krw 0 on three rows, kro 0 on the last two, and a kro that never reaches 0.
    const EndPoints z =
        grid::relperm_table(
            {{0.1, 0.0, 1.0}, {0.2, 0.0, 0.5}, {0.3, 0.0, 0.2}, {0.5, 0.3, 0.0}, {0.9, 0.8, 0.0}})
            .ends;
    EXPECT_EQ(z.swcr, 0.3);
    EXPECT_EQ(z.sowcr, 1.0 - 0.5);
    const EndPoints never = grid::relperm_table({{0.15, 0.0, 1.0}, {0.85, 0.6, 0.1}}).ends;
    EXPECT_EQ(never.swcr, 0.15);
    EXPECT_EQ(never.sowcr, 1.0 - 0.85);
}

TEST(EndPoints, EachCurveIsScaledBetweenItsOwnTwoEndPoints) {
    // The capillary table (S_w 0.2 ... 0.8; Pc 3 bar to 0) scaled to SWL 0.1, SWCR 0.3, SWU 0.9,
    // SOWCR 0.15: krw maps [0.3, 0.9] onto [0.2, 0.8], kro [0.1, 0.85] and Pc [0.1, 0.9].
    const grid::RelPerm law = capillary_law();
    const EndPoints e{0.1, 0.3, 0.9, 0.15};
    const CellRelPerm c(law, &e);
    EXPECT_EQ(grid::water_relperm(c, 0.3), 0.0);
    EXPECT_EQ(grid::water_relperm(c, 0.25), 0.0);
    EXPECT_EQ(grid::water_relperm(c, 0.95), 0.7);           // beyond SWU: the last row's
    EXPECT_NEAR(grid::water_relperm(c, 0.6), 0.12, 1e-15);  // -> 0.5, a row
    EXPECT_EQ(grid::oil_relperm(c, 0.05), 0.9);             // below SWL: the first row's
    EXPECT_EQ(grid::oil_relperm(c, 0.85), 0.0);             // at 1 - SOWCR
    EXPECT_NEAR(grid::oil_relperm(c, 0.475), 0.2, 1e-15);   // -> 0.5
    EXPECT_NEAR(grid::capillary_pressure(c, 0.5), 1.5 * units::kBar, 1e-9);  // -> 0.5
    EXPECT_EQ(grid::capillary_pressure(c, 0.1), 3.0 * units::kBar);
    EXPECT_EQ(grid::connate_water(c), 0.1);
    // Derivatives: the table's slope times the map's, against central differences.
    const double h = 1e-7;
    for (const double sw : {0.33, 0.47, 0.61, 0.78, 0.88}) {
        const auto d = grid::Dual<1>::variable(sw, 0);
        const auto fd = [&](auto f) { return (f(sw + h) - f(sw - h)) / (2 * h); };
        EXPECT_NEAR(grid::water_relperm(c, d).d[0],
                    fd([&](double s) { return grid::water_relperm(c, s); }), 1e-6)
            << sw;
        EXPECT_NEAR(grid::oil_relperm(c, d).d[0],
                    fd([&](double s) { return grid::oil_relperm(c, s); }), 1e-6)
            << sw;
        EXPECT_NEAR(grid::capillary_pressure(c, d).d[0],
                    fd([&](double s) { return grid::capillary_pressure(c, s); }),
                    1e-6 * units::kBar)
            << sw;
        // The inverse of the scaled Pc is the cell's saturation.
        EXPECT_NEAR(grid::saturation_at_capillary_pressure(c, grid::capillary_pressure(c, sw)), sw,
                    1e-14);
    }
    EXPECT_EQ(grid::saturation_at_capillary_pressure(c, 10.0 * units::kBar), 0.1);  // SWL
    EXPECT_EQ(grid::saturation_at_capillary_pressure(c, -1.0), 0.9);                // SWU
    // The table's own end points: the table's values, bit for bit.
    const CellRelPerm own(law, &law.table.ends);
    for (const double sw : {0.21, 0.37, 0.5, 0.73}) {
        EXPECT_EQ(grid::water_relperm(own, sw), grid::water_relperm(law, sw));
        EXPECT_EQ(grid::oil_relperm(own, sw), grid::oil_relperm(law, sw));
        EXPECT_EQ(grid::capillary_pressure(own, sw), grid::capillary_pressure(law, sw));
    }
}

TEST(EndPoints, EndPointsOutOfOrderAreRefused) {
    EXPECT_EQ(grid::end_points_error({0.1, 0.3, 0.9, 0.15}), "");
    EXPECT_NE(grid::end_points_error({0.3, 0.2, 0.9, 0.15}), "");  // SWL > SWCR
    EXPECT_NE(grid::end_points_error({0.1, 0.9, 0.9, 0.15}), "");  // SWCR = SWU
    EXPECT_NE(grid::end_points_error({0.6, 0.6, 0.9, 0.4}), "");   // SWL + SOWCR = 1
    EXPECT_NE(grid::end_points_error({-0.1, 0.3, 0.9, 0.1}), "");  // out of [0, 1]
    EXPECT_NE(grid::end_points_error({0.1, 0.3, 1.2, 0.1}), "");
}

constexpr int kNx = 4, kNy = 3, kNz = 5;

struct Models {
    wells::ModelSpec spec = test::two_phase_spec(kNx, kNy, kNz, {});
    grid::RockFields rock = grid::build_rock(spec.grid, spec.permeability, spec.porosity);
    Models() {
        spec.two_phase.relperm = capillary_law();
        spec.wells = {test::make_well("P", 1, 1, 0, kNz - 1, false, false)};
    }
    wells::TwoPhaseSystem system(const grid::RockFields& r, const grid::TwoPhaseParams& p) const {
        return {spec.grid, r, p, spec.wells};
    }
};

CellState varied_state(const grid::TwoPhaseCells& cells, std::uint64_t seed) {
    return test::varied_state(cells, seed, 0.15, 0.85);
}

/// Every cell's four end points (the rock's arrays) set to e.
void set_every_cell(grid::RockFields& rock, const EndPoints& e) {
    const double values[4] = {e.swl, e.swcr, e.swu, e.sowcr};
    for (std::size_t q = 0; q < 4; ++q) rock.end_points[q].assign(rock.porosity.size(), values[q]);
}

double largest_abs(const std::vector<double>& v) {
    double a = 0.0;
    for (const double x : v) a = std::max(a, std::abs(x));
    return a;
}

/// a and b, two constructions of one model, give the same residual (1e-12 of its largest
/// entry) and Jacobian (1e-10) at a varied state (seed, seed + 1), from which the unscaled
/// model is 1e-3 or more away, and the same initial state about a contact in layer 3.
void expect_the_same_model(const Models& t, const wells::TwoPhaseSystem& a,
                           const wells::TwoPhaseSystem& b, const wells::TwoPhaseSystem& unscaled,
                           std::uint64_t seed) {
    const CellState x = varied_state(a.cells(), seed), x_old = varied_state(a.cells(), seed + 1);
    const std::vector<double> p_bh = {x.p[t.spec.grid.cell(1, 1, 0)] - 20.0 * units::kBar};
    const GHSystem sa = a.linearize(x, p_bh, x_old, t.spec.dt);
    const GHSystem sb = b.linearize(x, p_bh, x_old, t.spec.dt);
    const GHSystem su = unscaled.linearize(x, p_bh, x_old, t.spec.dt);
    const double scale = largest_abs(sb.rhs);
    double worst = 0.0, unscaled_gap = 0.0;
    for (std::size_t i = 0; i < sa.rhs.size(); ++i) {
        worst = std::max(worst, std::abs(sa.rhs[i] - sb.rhs[i]) / scale);
        unscaled_gap = std::max(unscaled_gap, std::abs(su.rhs[i] - sb.rhs[i]) / scale);
    }
    EXPECT_LE(worst, 1e-12);
    EXPECT_GE(unscaled_gap, 1e-3);
    const grid::Grid3D& g = t.spec.grid;
    for (index_t m = 0; m < g.num_cells(); ++m) {
        for (int d = 0; d < kStencilSize; ++d) {
            for (int e = 0; e < 2; ++e) {
                for (int c = 0; c < 2; ++c) {
                    const double want = sb.matrix.at(d, m, e, c);
                    EXPECT_NEAR(sa.matrix.at(d, m, e, c), want, 1e-10 * std::abs(want) + 1e-14)
                        << "cell " << m << " block " << d << " (" << e << ", " << c << ")";
                }
            }
        }
    }
    const double z_contact = g.centre_depth(g.cell(0, 0, 3));
    const double p0 = 6000.0 * units::kPsi, z0 = 12000.0 * units::kFoot;
    const CellState ia = a.cells().equilibrium_state(p0, z0, z_contact, 0.0, 1);
    const CellState ib = b.cells().equilibrium_state(p0, z0, z_contact, 0.0, 1);
    for (index_t m = 0; m < g.num_cells(); ++m) {
        EXPECT_NEAR(ia.sw[m], ib.sw[m], 1e-13) << m;
        EXPECT_NEAR(ia.p[m], ib.p[m], 1e-12 * ib.p[m]) << m;
    }
}

TEST(EndPoints, OneMapOfEveryEndPointIsTheTableWithItsSaturationsMapped) {
    // A(s) = 0.05 + 0.9 s takes the table's SWL = SWCR 0.2, SWU 0.8 and 1 - SOWCR 0.8 to the
    // cell's: the scaled laws are then the table with every row's S_w mapped by A, so both
    // models give the same residual and Jacobian to rounding; the unscaled model does not.
    const Models t;
    const auto map = [](double s) { return 0.05 + 0.9 * s; };
    grid::RockFields scaled = t.rock;
    set_every_cell(scaled, {map(0.2), map(0.2), map(0.8), 1.0 - map(0.8)});
    grid::TwoPhaseParams mapped = t.spec.two_phase;
    std::vector<grid::RelPermRow> rows = test::relperm_rows();
    const grid::RelPermTable& table = t.spec.two_phase.relperm.table;
    for (std::size_t q = 0; q < rows.size(); ++q) {
        rows[q][0] = map(rows[q][0]);
        rows[q][3] = table.pcow[q];
    }
    mapped.relperm.table = grid::relperm_table(rows);
    const wells::TwoPhaseSystem a = t.system(scaled, t.spec.two_phase);
    const wells::TwoPhaseSystem b = t.system(t.rock, mapped);
    const wells::TwoPhaseSystem unscaled = t.system(t.rock, t.spec.two_phase);
    expect_the_same_model(t, a, b, unscaled, 1);
    const double p0 = 6000.0 * units::kPsi, z0 = 12000.0 * units::kFoot;
    EXPECT_EQ(a.cells().equilibrium_state(p0, z0, std::nan("")).sw[0], map(0.2));  // SWL
}

TEST(EndPoints, ACellWithItsTablesEndPointsIsTheUnscaledCellBitForBit) {
    // SWL given as the table's own in every cell but one: every row away from that cell is the
    // unscaled model's, bit for bit; that cell's differs.
    const Models t;
    grid::RockFields rock = t.rock;
    rock.end_points[0].assign(rock.porosity.size(), 0.2);
    const index_t odd = t.spec.grid.cell(2, 1, 2);
    rock.end_points[0][odd] = 0.15;
    const wells::TwoPhaseSystem a = t.system(rock, t.spec.two_phase);
    const wells::TwoPhaseSystem b = t.system(t.rock, t.spec.two_phase);
    const CellState x = varied_state(a.cells(), 3), x_old = varied_state(a.cells(), 4);
    const std::vector<double> p_bh = {x.p[t.spec.grid.cell(1, 1, 0)] - 20.0 * units::kBar};
    const GHSystem sa = a.linearize(x, p_bh, x_old, t.spec.dt);
    const GHSystem sb = b.linearize(x, p_bh, x_old, t.spec.dt);
    const grid::Grid3D& g = t.spec.grid;
    const auto near_odd = [&](index_t m) {
        const index_t di = std::abs(m / (kNy * kNz) - odd / (kNy * kNz));
        const index_t dj = std::abs(m / kNz % kNy - odd / kNz % kNy);
        const index_t dk = std::abs(m % kNz - odd % kNz);
        return di + dj + dk <= 1;
    };
    for (index_t m = 0; m < g.num_cells(); ++m) {
        if (near_odd(m)) continue;
        for (int e = 0; e < 2; ++e) {
            const double u = sa.rhs[2 * m + e], v = sb.rhs[2 * m + e];
            EXPECT_EQ(std::memcmp(&u, &v, sizeof u), 0) << m << " " << e;
        }
    }
    EXPECT_NE(sa.rhs[2 * odd + 1], sb.rhs[2 * odd + 1]);  // its water, at p_o - Pc
}

TEST(EndPoints, CoreysLawAndEndPointsOutOfOrderAreRefused) {
    Models t;
    grid::RockFields rock = t.rock;
    set_every_cell(rock, {0.1, 0.3, 0.9, 0.15});
    rock.end_points[1][t.spec.grid.cell(0, 2, 4)] = 0.05;  // below that cell's SWL
    std::vector<EndPoints> cells;
    const std::vector<grid::RelPerm> law = {t.spec.two_phase.relperm};
    EXPECT_EQ(grid::end_point_check(t.spec.grid, rock, law, cells),
              "cell (i, j, k) = (0, 2, 4): " + grid::end_points_error({0.1, 0.05, 0.9, 0.15}));
    EXPECT_THROW(t.system(rock, t.spec.two_phase), std::invalid_argument);
    set_every_cell(rock, {0.1, 0.3, 0.9, 0.15});
    EXPECT_EQ(grid::end_point_check(t.spec.grid, rock, law, cells), "");
    EXPECT_EQ(cells.size(), rock.porosity.size());
    const std::vector<grid::RelPerm> corey = {grid::RelPerm{}};
    EXPECT_NE(grid::end_point_check(t.spec.grid, rock, corey, cells).find("Corey"),
              std::string::npos);
}

/// Every cell's arrays q (rock.end_points) set to v.
void set_every_cell(grid::RockFields& rock, std::size_t q, double v) {
    rock.end_points[q].assign(rock.porosity.size(), v);
}

TEST(EndPoints, KrwKroAndPcwMultiplyEachCurveToItsLargestValue) {
    // The capillary table's largest krw is 0.7 (at SWU), kro 0.9 and Pc 3 bar (at SWL): KRW
    // 0.35, KRO 0.45 and PCW 1.5 bar halve each curve, exactly (the factors are 0.5).
    const Models t;
    grid::RockFields rock = t.rock;
    set_every_cell(rock, 4, 0.35);
    set_every_cell(rock, 5, 0.45);
    set_every_cell(rock, 6, 1.5 * units::kBar);
    std::vector<EndPoints> cells;
    const std::vector<grid::RelPerm> law = {t.spec.two_phase.relperm};
    ASSERT_EQ(grid::end_point_check(t.spec.grid, rock, law, cells), "");
    const EndPoints& e = cells[7];
    EXPECT_EQ(e.krw_scale, 0.5);
    EXPECT_EQ(e.kro_scale, 0.5);
    EXPECT_EQ(e.pc_scale, 0.5);
    EXPECT_EQ(e.swl, 0.2);  // the saturations stay the table's
    const CellRelPerm c(law[0], &e);
    for (const double sw : {0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9}) {
        EXPECT_EQ(grid::water_relperm(c, sw), 0.5 * grid::water_relperm(law[0], sw)) << sw;
        EXPECT_EQ(grid::oil_relperm(c, sw), 0.5 * grid::oil_relperm(law[0], sw)) << sw;
        EXPECT_EQ(grid::capillary_pressure(c, sw), 0.5 * grid::capillary_pressure(law[0], sw));
    }
    EXPECT_EQ(grid::water_relperm(c, 0.8), 0.35);  // KRW at SWU
    EXPECT_EQ(grid::oil_relperm(c, 0.2), 0.45);    // KRO at SWL
    // The inverse of the scaled Pc, and its derivatives against central differences.
    const double h = 1e-7;
    for (const double sw : {0.33, 0.47, 0.61, 0.78}) {
        EXPECT_NEAR(grid::saturation_at_capillary_pressure(c, grid::capillary_pressure(c, sw)), sw,
                    1e-14);
        const auto d = grid::Dual<1>::variable(sw, 0);
        const auto fd = [&](auto f) { return (f(sw + h) - f(sw - h)) / (2 * h); };
        EXPECT_NEAR(grid::oil_relperm(c, d).d[0],
                    fd([&](double x) { return grid::oil_relperm(c, x); }), 1e-6);
        EXPECT_NEAR(grid::capillary_pressure(c, d).d[0],
                    fd([&](double x) { return grid::capillary_pressure(c, x); }),
                    1e-6 * units::kBar);
    }
    // PCW 0: no Pc (the inverse the connate water above 0, the largest saturation at 0).
    set_every_cell(rock, 6, 0.0);
    ASSERT_EQ(grid::end_point_check(t.spec.grid, rock, law, cells), "");
    const CellRelPerm none(law[0], &cells[7]);
    EXPECT_EQ(grid::capillary_pressure(none, 0.3), 0.0);
    EXPECT_EQ(grid::saturation_at_capillary_pressure(none, units::kBar), 0.2);
    EXPECT_EQ(grid::saturation_at_capillary_pressure(none, 0.0), 0.8);
    // A factor of a table whose largest value is 0: refused unless the cell's is 0 too.
    std::vector<grid::RelPerm> no_pc(1);
    no_pc[0].table = grid::relperm_table(test::relperm_rows());  // Pc 0
    EXPECT_EQ(grid::end_point_check(t.spec.grid, rock, no_pc, cells), "");
    set_every_cell(rock, 6, 2.0 * units::kBar);
    EXPECT_EQ(grid::end_point_check(t.spec.grid, rock, no_pc, cells),
              "cell (i, j, k) = (0, 0, 0): PCW 200000 Pa, but the table's Pc at SWL is 0: there is "
              "nothing to scale");
}

TEST(EndPoints, TheFactorsAreTheTableWithItsColumnsMultiplied) {
    // KRW, KRO and PCW by layer against the model whose tables (one saturation region per
    // layer) have their krw, kro and Pc columns multiplied by the same factors: the same
    // residual and Jacobian to rounding, and the same initial state; the unscaled model is
    // another.
    const Models t;
    const grid::RelPermTable& table = t.spec.two_phase.relperm.table;
    const double krw[kNz] = {0.7, 0.35, 0.56, 0.14, 0.7};  // factors 1, 0.5, 0.8, 0.2, 1
    const double kro[kNz] = {0.9, 0.72, 0.45, 0.9, 0.18};  //         1, 0.8, 0.5, 1, 0.2
    const double pcw[kNz] = {3.0, 6.0, 1.5, 0.75, 3.0};    // bar:    1, 2, 0.5, 0.25, 1
    grid::RockFields scaled = t.rock;
    grid::RockFields regions = t.rock;
    std::vector<grid::RelPerm> laws;
    const std::size_t n = scaled.porosity.size();
    for (std::size_t q = 4; q < 7; ++q) scaled.end_points[q].resize(n);
    regions.saturation_region.resize(n);
    for (std::size_t m = 0; m < n; ++m) {
        const std::size_t k = m % kNz;
        scaled.end_points[4][m] = krw[k];
        scaled.end_points[5][m] = kro[k];
        scaled.end_points[6][m] = pcw[k] * units::kBar;
        regions.saturation_region[m] = static_cast<std::int32_t>(k);
    }
    for (int k = 0; k < kNz; ++k) {
        std::vector<grid::RelPermRow> rows = test::relperm_rows();
        for (std::size_t q = 0; q < rows.size(); ++q) {
            rows[q][1] *= krw[k] / 0.7;
            rows[q][2] *= kro[k] / 0.9;
            rows[q][3] = table.pcow[q] * (pcw[k] / 3.0);
        }
        laws.push_back({});
        laws.back().table = grid::relperm_table(rows);
    }
    grid::TwoPhaseParams first = t.spec.two_phase;
    first.relperm = laws[0];
    const std::vector<grid::RelPerm> more(laws.begin() + 1, laws.end());
    const wells::TwoPhaseSystem a = t.system(scaled, t.spec.two_phase);
    const wells::TwoPhaseSystem b(t.spec.grid, regions, first, t.spec.wells, more);
    const wells::TwoPhaseSystem unscaled = t.system(t.rock, t.spec.two_phase);
    expect_the_same_model(t, a, b, unscaled, 5);
}

}  // namespace
}  // namespace heptane
