// Pressure-dependent oil and water PVT (grid/pvt_table.hpp, grid/two_phase.hpp; design decision
// 84): a PVDO table's 1/B and 1/(B mu) linear between rows and extrapolated beyond them, by
// hand; its derivatives; the viscosibility law against Eclipse's to third order; a constant
// viscosity's bits untouched; the table's checks.
#include "grid/pvt_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/base/units.hpp"
#include "grid/dual.hpp"

namespace heptane::grid {
namespace {

using ::testing::HasSubstr;

constexpr double kPsi = units::kPsi;
constexpr double kCp = units::kCentiPoise;

/// SPE10 model 2's oil (its data file's PVDO) in SI.
const std::vector<PvtRow> kSpe10 = {{300.0 * kPsi, 1.05, 2.85 * kCp},
                                    {800.0 * kPsi, 1.02, 2.99 * kCp},
                                    {8000.0 * kPsi, 1.01, 3.0 * kCp}};

TwoPhaseParams with_table(const std::vector<PvtRow>& rows) {
    TwoPhaseParams prm;
    prm.oil_pvt = pvt_table(rows);
    return prm;
}

TEST(PvtTable, InverseBAndInverseBMuAreLinearBetweenRowsAndBeyondThem) {
    const TwoPhaseParams prm = with_table(kSpe10);
    const double rho_s = prm.oil.density;
    // At a row: the row's B and mu.
    for (const PvtRow& r : kSpe10) {
        EXPECT_DOUBLE_EQ(phase_density(prm, kOil, r[0]), rho_s / r[1]);
        EXPECT_DOUBLE_EQ(phase_viscosity(prm, kOil, r[0]), r[2]);
    }
    // Between rows and beyond them, by hand: f(p) = f_i + (f_i+1 - f_i) t, t the fraction
    // along the segment (negative below the first row, > 1 above the last).
    const auto inv_b = [](const PvtRow& a, const PvtRow& b, double t) {
        return 1.0 / a[1] + (1.0 / b[1] - 1.0 / a[1]) * t;
    };
    const auto inv_bmu = [](const PvtRow& a, const PvtRow& b, double t) {
        return 1.0 / (a[1] * a[2]) + (1.0 / (b[1] * b[2]) - 1.0 / (a[1] * a[2])) * t;
    };
    const struct {
        double psi;
        int segment;
        double t;
    } at[] = {{550.0, 0, 0.5}, {100.0, 0, -0.4}, {4400.0, 1, 0.5}, {9440.0, 1, 1.2}};
    for (const auto& c : at) {
        const PvtRow& a = kSpe10[c.segment];
        const PvtRow& b = kSpe10[c.segment + 1];
        const double p = c.psi * kPsi;
        EXPECT_NEAR(phase_density(prm, kOil, p) / (rho_s * inv_b(a, b, c.t)), 1.0, 1e-14) << c.psi;
        EXPECT_NEAR(phase_viscosity(prm, kOil, p) / (inv_b(a, b, c.t) / inv_bmu(a, b, c.t)), 1.0,
                    1e-14)
            << c.psi;
    }
    // The water keeps its law; B at p_ref (6000 psi, segment 1) is the table's.
    EXPECT_EQ(phase_density(prm, kWater, 5000.0 * kPsi),
              phase_density(prm.water, 5000.0 * kPsi, prm.reference_pressure));
    EXPECT_DOUBLE_EQ(reference_volume_factor(prm, kOil),
                     1.0 / inv_b(kSpe10[1], kSpe10[2], 5200.0 / 7200.0));
    EXPECT_DOUBLE_EQ(reference_density(prm, kOil),
                     rho_s * inv_b(kSpe10[1], kSpe10[2], 5200.0 / 7200.0));
}

TEST(PvtTable, DerivativesAreTheSegmentsSlopes) {
    const TwoPhaseParams prm = with_table(kSpe10);
    using D1 = Dual<1>;
    for (const double psi : {550.0, 800.0, 6000.0, 9000.0}) {  // 800: the segment starting there
        const double p = psi * kPsi;
        const int i = psi < 800.0 ? 0 : 1;
        const double slope =
            (1.0 / kSpe10[i + 1][1] - 1.0 / kSpe10[i][1]) / (kSpe10[i + 1][0] - kSpe10[i][0]);
        const D1 rho = phase_density(prm, kOil, D1::variable(p, 0));
        EXPECT_NEAR(rho.d[0] / (prm.oil.density * slope), 1.0, 1e-12) << psi;
        // The viscosity's against a central difference inside the segment.
        const double h = 1.0e-4 * kPsi;
        const D1 mu = phase_viscosity(prm, kOil, D1::variable(p + 10.0 * h, 0));
        const double fd =
            (phase_viscosity(prm, kOil, p + 11.0 * h) - phase_viscosity(prm, kOil, p + 9.0 * h)) /
            (2.0 * h);
        EXPECT_NEAR(mu.d[0], fd, 1e-6 * std::abs(fd) + 1e-22) << psi;
        EXPECT_NE(mu.d[0], 0.0);
    }
}

// heptane's mu(p) = mu_ref exp(Cv (p - p_ref)) is Eclipse's PVCDO / PVTW law mu_ref (1 + X +
// X^2/2) / (1 + Y + Y^2/2), X = c (p - p_ref), Y = (c - Cv) (p - p_ref), to third order: the
// relative difference is (X^3 - Y^3) / 6 + O(X^4).
TEST(PvtTable, ViscosibilityIsEclipsesLawToThirdOrder) {
    TwoPhaseParams prm;
    prm.oil.viscosibility = 2.0e-6 / kPsi;
    const double c = prm.oil.compressibility, cv = prm.oil.viscosibility;
    const double mu = prm.oil.viscosity;
    double largest = 0.0;
    for (const double dpsi : {-3000.0, -500.0, 10.0, 2000.0}) {
        const double dp = dpsi * kPsi;
        const double x = c * dp, y = (c - cv) * dp;
        const double eclipse = mu * (1.0 + x + x * x / 2.0) / (1.0 + y + y * y / 2.0);
        const double heptane = phase_viscosity(prm, kOil, prm.reference_pressure + dp);
        const double third = std::abs(x * x * x - y * y * y) / 6.0;
        EXPECT_LE(std::abs(heptane / eclipse - 1.0), 1.1 * third + 1e-15) << dpsi;
        largest = std::max(largest, std::abs(heptane / eclipse - 1.0));
    }
    EXPECT_GT(largest, 1e-7);  // the two laws differ: the bound above is not vacuous
    // Zero viscosibility: the constant viscosity, and a mobility of kr / mu bit for bit.
    prm.oil.viscosibility = 0.0;
    EXPECT_FALSE(pressure_dependent_viscosity(prm));
    const double mob = phase_mobility(prm, prm.relperm, kOil, 1.0e7, 0.4);
    const double want = oil_relperm(prm.relperm, 0.4) / prm.oil.viscosity;
    EXPECT_EQ(std::memcmp(&mob, &want, sizeof(double)), 0);
}

TEST(PvtTable, MobilityCarriesThePressureDerivative) {
    TwoPhaseParams prm = with_table(kSpe10);
    prm.water.viscosibility = 1.0e-4 / kPsi;
    using D2 = Dual<2>;
    const double p = 5000.0 * kPsi, sw = 0.45, h = 1.0e-3 * kPsi;
    for (int a = 0; a < 2; ++a) {
        const D2 mob = phase_mobility(prm, prm.relperm, a, D2::variable(p, 0), D2::variable(sw, 1));
        const double fd = (phase_mobility(prm, prm.relperm, a, p + h, sw) -
                           phase_mobility(prm, prm.relperm, a, p - h, sw)) /
                          (2.0 * h);
        EXPECT_NEAR(mob.d[0], fd, 1e-6 * std::abs(fd)) << a;
        EXPECT_NE(mob.d[0], 0.0) << a;
    }
}

TEST(PvtTable, RowsTheTableCannotTakeAreRefused) {
    const auto error = [](std::vector<PvtRow> rows) { return pvt_table_error(rows); };
    EXPECT_EQ(error(kSpe10), "");
    EXPECT_THAT(error({kSpe10[0]}), HasSubstr("1 rows; a table has 2 to 32"));
    EXPECT_THAT(error(std::vector<PvtRow>(33, kSpe10[0])), HasSubstr("33 rows"));
    EXPECT_EQ(error({kSpe10[0], kSpe10[0]}), "row 2: the pressure must increase");
    EXPECT_EQ(error({kSpe10[0], {kSpe10[1][0], 1.05, kCp}}),
              "row 2: the formation volume factor must decrease as the pressure increases");
    EXPECT_EQ(error({kSpe10[0], {kSpe10[1][0], 0.0, kCp}}),
              "row 2: the formation volume factor must be > 0");
    EXPECT_EQ(error({{kSpe10[0][0], 1.05, -kCp}, kSpe10[1]}), "row 1: the viscosity must be > 0");
    EXPECT_EQ(error({{NAN, 1.05, kCp}, kSpe10[1]}), "row 1: the pressure must be finite");
    EXPECT_THROW(pvt_table({kSpe10[0]}), std::invalid_argument);
}

}  // namespace
}  // namespace heptane::grid
