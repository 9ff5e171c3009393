// CPR, issue 21, first part (core/precond/cpr.hpp): the quasi-IMPES pressure system against a
// hand-derived case and against R A E computed with Eigen, the Galerkin coarse operators
// against R A P with Eigen, the V-cycle's convergence factor on Poisson problems and the CPR
// preconditioner in BiCGStab on heterogeneous two-phase systems (true residual checked).
#include "core/precond/cpr.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/base/random.hpp"
#include "core/krylov/krylov.hpp"
#include "core/matrix/formats.hpp"
#include "core/precond/block_smoothers.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

Eigen::MatrixXd dense(const GHMatrix& A) { return Eigen::MatrixXd(to_eigen(to_csr(A))); }

// Two cells along i, K = 2, worked out by hand:
//   D_0 = [2 1; 4 3]: D_0^T w = e_0 gives w_0 = (1.5, -0.5) (w^T D_0 = (1, 0));
//   D_1 = [5 0; 1 1]: w_1 = (0.2, 0);
//   A_01 = [-1 0.5; -2 0.25]: P(0, 1) = 1.5 (-1) - 0.5 (-2) = -0.5;
//   A_10 = [-3 1; 7 2]: P(1, 0) = 0.2 (-3) + 0 (7) = -0.6; P's diagonal is 1.
TEST(Cpr, QuasiImpesPressureOfAHandDerivedCase) {
    GHMatrix A(2, 1, 1, 2);
    const double d0[2][2] = {{2, 1}, {4, 3}}, d1[2][2] = {{5, 0}, {1, 1}};
    const double a01[2][2] = {{-1, 0.5}, {-2, 0.25}}, a10[2][2] = {{-3, 1}, {7, 2}};
    for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < 2; ++c) {
            A.at(kCenter, 0, r, c) = d0[r][c];
            A.at(kCenter, 1, r, c) = d1[r][c];
            A.at(6, 0, r, c) = a01[r][c];  // +i
            A.at(0, 1, r, c) = a10[r][c];  // -i
        }
    }
    const std::vector<double> w = quasi_impes_weights(A);
    EXPECT_EQ(w, (std::vector<double>{1.5, -0.5, 0.2, 0.0}));
    GHMatrix P = pressure_structure(A);
    extract_pressure(A, w, P);
    EXPECT_EQ(P.at(kCenter, 0, 0, 0), 1.0);
    EXPECT_EQ(P.at(kCenter, 1, 0, 0), 1.0);
    EXPECT_EQ(P.at(6, 0, 0, 0), -0.5);
    EXPECT_DOUBLE_EQ(P.at(0, 1, 0, 0), -0.6);
}

// With wells and K = 3: P = R A E, R the weights (wells as they are), E the pressure columns.
TEST(Cpr, PressureSystemIsTheWeightedProduct) {
    const int nx = 5, ny = 4, nz = 3, K = 3;
    const wells::Model m = test::synthetic_model(nx, ny, nz, K, test::corner_wells(nx, ny, nz));
    const GHMatrix& A = m.system.matrix;
    const std::vector<double> w = quasi_impes_weights(A);
    GHMatrix P = pressure_structure(A);
    extract_pressure(A, w, P);
    const index_t M = A.num_cells(), Nw = A.num_wells();
    Eigen::MatrixXd R = Eigen::MatrixXd::Zero(M + Nw, A.rows());
    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(A.rows(), M + Nw);
    for (index_t c = 0; c < M; ++c) {
        for (int r = 0; r < K; ++r) R(c, c * K + r) = w[c * K + r];
        E(c * K, c) = 1.0;
    }
    for (index_t n = 0; n < Nw; ++n) R(M + n, M * K + n) = E(M * K + n, M + n) = 1.0;
    const Eigen::MatrixXd expected = R * dense(A) * E;
    const Eigen::MatrixXd got = dense(P);
    ASSERT_EQ(got.rows(), expected.rows());
    EXPECT_LE((got - expected).cwiseAbs().maxCoeff(), 1e-13 * expected.cwiseAbs().maxCoeff());
    // The cells' own pressure coefficient is 1: the weights decouple the diagonal block.
    for (index_t c = 0; c < M; ++c) EXPECT_NEAR(got(c, c), 1.0, 1e-14);
}

// Galerkin coarse operators = P^T A P (piecewise-constant aggregation), odd sizes included.
TEST(Cpr, GalerkinCoarseOperatorIsRap) {
    const wells::Model m = test::synthetic_model(5, 6, 3, 1, {});
    const GHMatrix& A = m.system.matrix;
    for (const std::array<int, 3>& f :
         {std::array<int, 3>{2, 2, 1}, std::array<int, 3>{2, 2, 2}, std::array<int, 3>{3, 2, 2}}) {
        const auto cd = coarse_dims(A.nx(), A.ny(), A.nz(), f);
        GHMatrix C(cd[0], cd[1], cd[2], 1);
        galerkin_coarse(A, f, C);
        Eigen::MatrixXd Pagg = Eigen::MatrixXd::Zero(A.num_cells(), C.num_cells());
        for (int i = 0; i < A.nx(); ++i)
            for (int j = 0; j < A.ny(); ++j)
                for (int k = 0; k < A.nz(); ++k)
                    Pagg(k + A.nz() * (j + A.ny() * i),
                         k / f[2] + cd[2] * (j / f[1] + cd[1] * (i / f[0]))) = 1.0;
        const Eigen::MatrixXd expected = Pagg.transpose() * dense(A) * Pagg;
        EXPECT_LE((dense(C) - expected).cwiseAbs().maxCoeff(), 1e-12 * expected.cwiseAbs().maxCoeff())
            << f[0] << "x" << f[1] << "x" << f[2];
    }
}

/// The asymptotic convergence factor of x <- x + V(b - A x): the residual ratio over the
/// last 5 of `cycles` cycles, per cycle.
double vcycle_factor(const GHMatrix& A, const MgOptions& o, int cycles) {
    const StructuredMg mg(A, o);
    const auto n = static_cast<std::size_t>(A.rows());
    std::vector<double> b = test::random_vector(n, 5), x(n, 0.0), r(n), e(n), Ax(n);
    double before = 0.0, after = 0.0;
    for (int c = 0; c < cycles; ++c) {
        spmv(A, x.data(), Ax.data());
        for (std::size_t i = 0; i < n; ++i) r[i] = b[i] - Ax[i];
        double norm = 0.0;
        for (double v : r) norm += v * v;
        if (c == cycles - 5) before = std::sqrt(norm);
        mg.vcycle(r.data(), e.data());
        for (std::size_t i = 0; i < n; ++i) x[i] += e[i];
    }
    spmv(A, x.data(), Ax.data());
    for (std::size_t i = 0; i < n; ++i) after += (b[i] - Ax[i]) * (b[i] - Ax[i]);
    return std::pow(std::sqrt(after) / before, 1.0 / 5.0);
}

// The V-cycle's convergence factor on 3D Poisson (32^3, 5 levels to 400 cells), as measured
// when the defaults were chosen: 0.786 with the defaults (2 x 2 x 1 aggregation, one damped
// line-Jacobi sweep before and after), 0.533 with two sweeps and over-correction 1.4;
// undamped sweeps give 0.921 (the checkerboard in i, j is not smoothed). Piecewise-constant
// aggregation is a weak V-cycle on its own (design decision 36); as CPR's stage 1 inside
// BiCGStab it is enough (the test below).
TEST(Cpr, VcycleConvergesOnPoisson) {
    const GHMatrix A = poisson_matrix(32, 32, 32);
    MgOptions o;
    const double standard = vcycle_factor(A, o, 15);
    o.pre_sweeps = o.post_sweeps = 2;
    o.coarse_scale = 1.4;
    const double strong = vcycle_factor(A, o, 15);
    o = MgOptions{};
    o.omega = 1.0;
    const double undamped = vcycle_factor(A, o, 15);
    RecordProperty("factor_default", std::to_string(standard));
    RecordProperty("factor_two_sweeps_overcorrected", std::to_string(strong));
    EXPECT_LT(standard, 0.80);
    EXPECT_LT(strong, 0.55);
    EXPECT_GT(undamped, 0.9);  // why omega defaults to 0.8
}

TEST(Cpr, PreconditionsBicgstabOnAHeterogeneousTwoPhaseSystem) {
    wells::ModelSpec spec = test::two_phase_spec(
        20, 16, 10, {test::make_well("I", 0, 0, 0, 9, true, true), test::make_well("P", 19, 15, 0, 9)});
    spec.permeability.sigma = 2.0;
    const wells::Model m = wells::generate(spec, true);
    const GHMatrix& A = m.system.matrix;
    const GHOperator op(A);
    SolveOptions o;
    o.tolerance = 1e-8;
    o.max_iterations = 5000;
    const auto run = [&](const Preconditioner& M) {
        std::vector<double> x(m.system.rhs.size(), 0.0);
        const SolveResult r = bicgstab(op, m.system.rhs.data(), x.data(), o, &M);
        EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
        EXPECT_LE(r.true_relative_residual, 2e-8);
        return r.iterations;
    };
    // Measured when written: 184 with point-block Jacobi, 21 with CPR (13-21 over the
    // aggregation, damping, sweeps and over-correction options).
    const int pbj = run(PointBlockJacobi(A));
    const int cpr = run(CprPreconditioner(A));
    RecordProperty("iterations_point_block", pbj);
    RecordProperty("iterations_cpr", cpr);
    EXPECT_LE(5 * cpr, pbj);
}

}  // namespace
}  // namespace heptane
