// Reference Krylov solvers: against Eigen's SparseLU, the host-recomputed true residual,
// QMR's quasi-residual, breakdown and non-finite detection, determinism.
#include "core/krylov/krylov.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/SparseLU>
#include <cmath>
#include <limits>

#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/base/vector_ops.hpp"
#include "core/matrix/formats.hpp"

namespace heptane {
namespace {

using Solver = SolveResult (*)(const LinearOperator&, const double*, double*, const SolveOptions&,
                               const Preconditioner*);

struct Case {
    const char* name;
    Solver solve;
};

std::vector<double> sparse_lu(const GHSystem& sys) {
    const Eigen::SparseMatrix<double> A = to_eigen(to_csr(sys.matrix));
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(A);
    EXPECT_EQ(lu.info(), Eigen::Success);
    const Eigen::Map<const Eigen::VectorXd> b(sys.rhs.data(),
                                              static_cast<Eigen::Index>(sys.rhs.size()));
    const Eigen::VectorXd x = lu.solve(b);
    return std::vector<double>(x.data(), x.data() + x.size());
}

double relative_difference(const std::vector<double>& x, const std::vector<double>& ref) {
    double num = 0.0, den = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        num += (x[i] - ref[i]) * (x[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return std::sqrt(num / den);
}

/// ||b - A x|| / ||b|| computed here, independently of the solver.
double true_residual(const GHSystem& sys, const std::vector<double>& x) {
    const Eigen::SparseMatrix<double> A = to_eigen(to_csr(sys.matrix));
    const Eigen::Map<const Eigen::VectorXd> xv(x.data(), static_cast<Eigen::Index>(x.size()));
    const Eigen::Map<const Eigen::VectorXd> b(sys.rhs.data(),
                                              static_cast<Eigen::Index>(sys.rhs.size()));
    return (b - A * xv).norm() / b.norm();
}

class KrylovVsSparseLU : public ::testing::TestWithParam<Case> {};

void check_against_lu(const Case& c, const wells::Model& model, int max_iterations) {
    const GHSystem& sys = model.system;
    const GHOperator op(sys.matrix);
    std::vector<double> x(sys.rhs.size(), 0.0);
    SolveOptions opt;
    opt.tolerance = 1e-12;
    opt.max_iterations = max_iterations;
    const SolveResult r = c.solve(op, sys.rhs.data(), x.data(), opt, nullptr);
    ASSERT_EQ(r.status, SolveStatus::converged) << r.detail << " after " << r.iterations;
    EXPECT_LE(r.relative_residual, 1e-12);
    const double true_res = true_residual(sys, x);
    EXPECT_NEAR(r.true_relative_residual, true_res, 1e-3 * true_res + 1e-16);
    EXPECT_LE(true_res, 10 * opt.tolerance);
    EXPECT_LE(relative_difference(x, sparse_lu(sys)), 1e-8);
    ASSERT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
    EXPECT_DOUBLE_EQ(r.history.back(), r.relative_residual);
}

TEST_P(KrylovVsSparseLU, SyntheticWithWells) {
    for (int K : {1, 3, 5}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        check_against_lu(GetParam(), test::synthetic_model(5, 4, 3, K, test::corner_wells(5, 4, 3)),
                         500);
    }
}

TEST_P(KrylovVsSparseLU, TwoPhaseWithWellsAndGravity) {
    check_against_lu(GetParam(),
                     wells::generate(test::two_phase_spec(6, 5, 4, test::corner_wells(6, 5, 4))),
                     2000);
}

INSTANTIATE_TEST_SUITE_P(Methods, KrylovVsSparseLU,
                         ::testing::Values(Case{"bicgstab", &bicgstab}, Case{"qmr", &qmr}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Qmr, QuasiResidualNeverGrowsAndBoundsTheResidual) {
    // Weak diagonal dominance makes the residual of this system oscillate.
    const auto model = test::synthetic_model(6, 5, 4, 2, test::corner_wells(6, 5, 4), 5, 0.6);
    const GHOperator op(model.system.matrix);
    std::vector<double> x(model.system.rhs.size(), 0.0);
    SolveOptions opt;
    opt.tolerance = 1e-10;
    opt.max_iterations = 400;
    const SolveResult r = qmr(op, model.system.rhs.data(), x.data(), opt);
    ASSERT_EQ(r.quasi_history.size(), r.history.size());
    ASSERT_GE(r.iterations, 10);
    for (std::size_t i = 1; i < r.quasi_history.size(); ++i) {
        EXPECT_LE(r.quasi_history[i], r.quasi_history[i - 1]) << "iteration " << i;
        // ||r_i|| <= sqrt(i + 1) tau_i (unit-norm Lanczos vectors), with rounding slack.
        EXPECT_LE(r.history[i], std::sqrt(i + 1.0) * r.quasi_history[i] * (1 + 1e-8)) << i;
    }
}

/// A 3 x 3 system on which BiCGStab's second rho = (r_hat, r_1) is exactly 0 in floating
/// point: with r_0 = e1 and A11 = 1 the first component of s = r_0 - alpha A r_0 is 0, and
/// A12 A21 + A13 A31 = 0 makes the first component of t = A s 0, so r_1 = s - omega t
/// is orthogonal to r_hat = e1 while omega = 5/13 != 0 and r_1 != 0.
Csr rho_breakdown_matrix() {
    Csr a;
    a.rows = a.cols = 3;
    a.row_ptr = {0, 3, 5, 7};
    a.col = {0, 1, 2, 0, 1, 0, 2};
    a.val = {1, 1, 1, 1, 2, -1, 3};
    return a;
}

TEST(Bicgstab, BreakdownRhoZeroIsReportedWithFiniteOutput) {
    const Csr a = rho_breakdown_matrix();
    const CsrOperator op(a);
    const std::vector<double> b = {1, 0, 0};
    std::vector<double> x(3, 0.0);
    SolveOptions no_restart;
    no_restart.max_restarts = 0;
    const SolveResult r = bicgstab(op, b.data(), x.data(), no_restart);
    EXPECT_EQ(r.status, SolveStatus::breakdown);
    EXPECT_EQ(r.iterations, 1);
    EXPECT_EQ(r.restarts, 0);
    EXPECT_NE(r.detail.find("rho = (r_hat, r) = 0"), std::string::npos) << r.detail;
    EXPECT_TRUE(vec::all_finite(x.data(), 3));
    EXPECT_TRUE(std::isfinite(r.true_relative_residual));
    EXPECT_GT(r.true_relative_residual, 0.0);
}

TEST(Bicgstab, ShadowResidualRestartRecoversFromRhoZero) {
    // The same system: the restart (r_hat = r_1) gets past the breakdown and converges.
    const Csr a = rho_breakdown_matrix();
    const CsrOperator op(a);
    const std::vector<double> b = {1, 0, 0};
    std::vector<double> x(3, 0.0);
    SolveOptions opt;
    opt.tolerance = 1e-14;
    const SolveResult r = bicgstab(op, b.data(), x.data(), opt);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_EQ(r.restarts, 1);
    EXPECT_LE(r.true_relative_residual, 1e-13);
    // x = A^{-1} e1 for A = [[1, 1, 1], [1, 2, 0], [-1, 0, 3]] (det 5): (6, -3, 2) / 5.
    EXPECT_NEAR(x[0], 1.2, 1e-13);
    EXPECT_NEAR(x[1], -0.6, 1e-13);
    EXPECT_NEAR(x[2], 0.4, 1e-13);
}

TEST(Qmr, BreakdownEpsilonZeroIsReported) {
    // A = [[0, 1], [1, 0]], b = e1: p = e1, q = e1, A p = e2 so epsilon = q^T A p = 0.
    Csr a;
    a.rows = a.cols = 2;
    a.row_ptr = {0, 1, 2};
    a.col = {1, 0};
    a.val = {1, 1};
    const CsrOperator op(a);
    const std::vector<double> b = {1, 0};
    std::vector<double> x(2, 0.0);
    const SolveResult r = qmr(op, b.data(), x.data(), SolveOptions{});
    EXPECT_EQ(r.status, SolveStatus::breakdown);
    EXPECT_NE(r.detail.find("epsilon"), std::string::npos) << r.detail;
    EXPECT_TRUE(vec::all_finite(x.data(), 2));
}

TEST(Krylov, NonFiniteMatrixIsAResultNotACrash) {
    auto model = test::synthetic_model(3, 3, 3, 2, {});
    model.system.matrix.at(kCenter, 4, 0, 0) = std::numeric_limits<double>::quiet_NaN();
    const GHOperator op(model.system.matrix);
    for (Solver solve : {Solver(&bicgstab), Solver(&qmr)}) {
        std::vector<double> x(model.system.rhs.size(), 0.0);
        const SolveResult r = solve(op, model.system.rhs.data(), x.data(), SolveOptions{}, nullptr);
        EXPECT_EQ(r.status, SolveStatus::non_finite) << r.detail;
    }
}

TEST(Krylov, ZeroRightHandSideAndMaxIterations) {
    const auto model = test::synthetic_model(4, 4, 4, 2, {}, 3, 0.7);
    const GHOperator op(model.system.matrix);
    std::vector<double> zero(model.system.rhs.size(), 0.0), x(zero.size(), 1.0);
    for (Solver solve : {Solver(&bicgstab), Solver(&qmr)}) {
        std::fill(x.begin(), x.end(), 1.0);
        const SolveResult r = solve(op, zero.data(), x.data(), SolveOptions{}, nullptr);
        EXPECT_EQ(r.status, SolveStatus::converged);
        EXPECT_EQ(r.iterations, 0);
        EXPECT_EQ(test::max_abs(x), 0.0);

        std::fill(x.begin(), x.end(), 0.0);
        SolveOptions few;
        few.max_iterations = 3;
        few.tolerance = 1e-14;
        const SolveResult m = solve(op, model.system.rhs.data(), x.data(), few, nullptr);
        EXPECT_EQ(m.status, SolveStatus::max_iterations);
        EXPECT_EQ(m.iterations, 3);
        EXPECT_TRUE(vec::all_finite(x.data(), static_cast<index_t>(x.size())));
        EXPECT_GT(m.true_relative_residual, few.tolerance);
    }
}

TEST(Krylov, SameBitsForAnyThreadCount) {
    // Large enough for the parallel paths (vec::kParallelMin) and several reduction chunks.
    const auto model = test::synthetic_model(36, 32, 16, 2, test::corner_wells(36, 32, 16));
    ASSERT_GE(model.system.matrix.rows(), vec::kParallelMin + vec::kChunk);
    const GHOperator op(model.system.matrix);
    SolveOptions opt;
    opt.tolerance = 1e-10;
    for (Solver solve : {Solver(&bicgstab), Solver(&qmr)}) {
        std::vector<std::vector<double>> xs;
        for (int threads : {1, 2, 3}) {
            omp_set_num_threads(threads);
            std::vector<double> x(model.system.rhs.size(), 0.0);
            solve(op, model.system.rhs.data(), x.data(), opt, nullptr);
            xs.push_back(x);
        }
        omp_set_num_threads(omp_get_num_procs());
        EXPECT_EQ(xs[0], xs[1]);
        EXPECT_EQ(xs[0], xs[2]);
    }
}

/// A test-only Jacobi preconditioner (the product has only the identity for now), to
/// exercise the right-preconditioning path of both solvers.
class DiagonalPreconditioner : public Preconditioner {
  public:
    explicit DiagonalPreconditioner(const Csr& a) : inv_(static_cast<std::size_t>(a.rows)) {
        for (std::int32_t i = 0; i < a.rows; ++i) {
            for (std::int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
                if (a.col[p] == i) inv_[i] = 1.0 / a.val[p];
            }
        }
    }
    void apply(const double* r, double* z) const override {
        for (std::size_t i = 0; i < inv_.size(); ++i) z[i] = inv_[i] * r[i];
    }
    void apply_transpose(const double* r, double* z) const override { apply(r, z); }

  private:
    std::vector<double> inv_;
};

TEST(Krylov, RightPreconditioningKeepsTheTrueResidual) {
    // Badly scaled rows: Jacobi fixes the scaling, the solution is unchanged.
    auto model = test::synthetic_model(6, 5, 4, 2, test::corner_wells(6, 5, 4));
    GHSystem& sys = model.system;
    const Csr csr = to_csr(sys.matrix);
    const DiagonalPreconditioner jacobi(csr);
    const GHOperator op(sys.matrix);
    const auto x_lu = sparse_lu(sys);
    SolveOptions opt;
    opt.tolerance = 1e-12;
    opt.max_iterations = 500;
    for (Solver solve : {Solver(&bicgstab), Solver(&qmr)}) {
        std::vector<double> x(sys.rhs.size(), 0.0);
        const SolveResult r = solve(op, sys.rhs.data(), x.data(), opt, &jacobi);
        ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
        EXPECT_LE(true_residual(sys, x), 10 * opt.tolerance);
        EXPECT_LE(relative_difference(x, x_lu), 1e-8);
    }
}

}  // namespace
}  // namespace heptane
