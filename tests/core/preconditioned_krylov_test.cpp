// The block preconditioners inside the Krylov solvers (seed 003): BiCGStab and QMR with none,
// point-block, line and spatial-block Jacobi converge with a true residual within 10x of the
// tolerance and fewer iterations with each, and every preconditioner and smoother gives the
// same bits for any OpenMP thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <typeinfo>
#include <vector>

#include "common/block_test_support.hpp"
#include "common/test_systems.hpp"
#include "core/krylov/krylov.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_smoothers.hpp"
#include "wells/generator.hpp"

namespace heptane {
namespace {

using test::norm;
using test::precondition;
using test::precondition_t;
using test::residual_norm;
using Vec = std::vector<double>;

using Solver = SolveResult (*)(const LinearOperator&, const double*, double*, const SolveOptions&,
                               const Preconditioner*);

/// Iterations of `solve` with each preconditioner (none, point, line, spatial), checking
/// convergence and the true residual.
std::array<int, 4> preconditioned_iterations(Solver solve, const GHSystem& sys, double tol,
                                             int max_iterations) {
    const GHMatrix& A = sys.matrix;
    const GHOperator op(A);
    const IdentityPreconditioner none(A.rows());
    const PointBlockJacobi point(A);
    const LineJacobi line(A);
    const SpatialBlockJacobi spatial(A, {2, 2, 2});
    SolveOptions opt;
    opt.tolerance = tol;
    opt.max_iterations = max_iterations;
    std::array<int, 4> its{};
    int i = 0;
    for (const Preconditioner* M :
         {static_cast<const Preconditioner*>(&none), static_cast<const Preconditioner*>(&point),
          static_cast<const Preconditioner*>(&line),
          static_cast<const Preconditioner*>(&spatial)}) {
        Vec x(A.rows(), 0.0);
        const SolveResult r = solve(op, sys.rhs.data(), x.data(), opt, M);
        EXPECT_EQ(r.status, SolveStatus::converged) << typeid(*M).name() << ": " << r.detail;
        const double true_res = residual_norm(A, sys.rhs, x) / norm(sys.rhs);
        EXPECT_LE(true_res, 10 * tol) << typeid(*M).name();
        its[i++] = r.iterations;
    }
    return its;
}

struct KrylovCase {
    const char* name;
    Solver solve;
};
void PrintTo(const KrylovCase& c, std::ostream* os) { *os << c.name; }

class PreconditionedKrylov : public ::testing::TestWithParam<KrylovCase> {};

TEST_P(PreconditionedKrylov, SyntheticWithWells) {
    const auto model = test::synthetic_model(6, 5, 4, 2, test::corner_wells(6, 5, 4), 5, 0.8);
    const auto its = preconditioned_iterations(GetParam().solve, model.system, 1e-10, 1000);
    RecordProperty("iterations", std::to_string(its[0]) + " " + std::to_string(its[1]) + " " +
                                     std::to_string(its[2]) + " " + std::to_string(its[3]));
    EXPECT_LT(its[1], its[0]);
    EXPECT_LT(its[2], its[0]);
    EXPECT_LT(its[3], its[0]);
}

TEST_P(PreconditionedKrylov, TwoPhaseWithWellsAndGravity) {
    const auto model = wells::generate(test::two_phase_spec(6, 5, 4, test::corner_wells(6, 5, 4)));
    const auto its = preconditioned_iterations(GetParam().solve, model.system, 1e-10, 3000);
    RecordProperty("iterations", std::to_string(its[0]) + " " + std::to_string(its[1]) + " " +
                                     std::to_string(its[2]) + " " + std::to_string(its[3]));
    EXPECT_LT(its[1], its[0]);
    EXPECT_LT(its[2], its[0]);
    EXPECT_LT(its[3], its[0]);
}

INSTANTIATE_TEST_SUITE_P(Methods, PreconditionedKrylov,
                         ::testing::Values(KrylovCase{"bicgstab", &bicgstab},
                                           KrylovCase{"qmr", &qmr}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- OpenMP ----------------------------------------------------------------------------------

TEST(BlockPreconditioners, SameBitsForAnyThreadCount) {
    // Large enough for the parallel paths (vec::kParallelMin rows).
    const auto model = test::synthetic_model(24, 24, 30, 2, test::corner_wells(24, 24, 30));
    const GHMatrix& A = model.system.matrix;
    ASSERT_GE(A.rows(), vec::kParallelMin);
    const PointBlockJacobi point(A);
    const LineJacobi line(A);
    const SpatialBlockJacobi spatial(A, {2, 3, 4});
    const Vec r = test::random_vector(A.rows(), 41);
    std::vector<std::vector<Vec>> runs;
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        std::vector<Vec> out;
        for (const Preconditioner* M :
             {static_cast<const Preconditioner*>(&point), static_cast<const Preconditioner*>(&line),
              static_cast<const Preconditioner*>(&spatial)}) {
            out.push_back(precondition(*M, r));
            out.push_back(precondition_t(*M, r));
        }
        Vec x = r, work(A.rows());
        block_jacobi_sweep(A, spatial.factors(), model.system.rhs.data(), x.data(), 0.8,
                           work.data());
        out.push_back(x);
        // Factors computed with this thread count.
        out.push_back(factor_spatial_blocks(A, {2, 3, 4}).inv);
        out.push_back(factor_lines(A).pinv);
        runs.push_back(out);
    }
    omp_set_num_threads(omp_get_num_procs());
    ASSERT_EQ(runs[0].size(), runs[1].size());
    for (std::size_t i = 0; i < runs[0].size(); ++i) EXPECT_EQ(runs[0][i], runs[1][i]) << i;
}

}  // namespace
}  // namespace heptane
