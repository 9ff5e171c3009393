// The GPU solver objects (gpu/solver.hpp, issue 16): made once, then update_values and solve
// a hundred times on matrices of the same structure with other values, as a simulation's
// Newton loop does. Each solve must be the CPU reference's solve of that matrix (the same
// bits for the canonical solvers), and after the first solve nothing may be allocated,
// planned or captured again.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "common/gpu_test.hpp"
#include "common/test_systems.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_smoothers.hpp"
#include "gpu/solver.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {
namespace {

constexpr int kNx = 12, kNy = 10, kNz = 8;

/// The k-th matrix of the sequence: the same grid, K and wells, other values (seed).
wells::Model model(int K, int k) {
    return test::synthetic_model(kNx, kNy, kNz, K, test::corner_wells(kNx, kNy, kNz),
                                 100 + static_cast<std::uint64_t>(k));
}

/// The CPU reference's solve of the same system.
SolveResult reference(const SolverSettings& s, const GHMatrix& A, const std::vector<double>& b,
                      std::vector<double>& x, const SolveOptions& options) {
    const std::unique_ptr<LinearSolver> cpu = make_cpu_solver(s, A);
    return cpu->solve(b, x, options);
}

struct Case {
    const char* name;
    Method method;
    GpuKernel kernel;
    PreconditionerKind preconditioner;
    SpmvKind spmv;
    int K;
    int solves;
    bool same_bits;  ///< canonical arithmetic (not cuBLAS / KSPARSE sums)
};

class SolverObject : public test::GpuTest, public ::testing::WithParamInterface<Case> {};

TEST_P(SolverObject, UpdateValuesReplansAndReallocatesNothing) {
    const Case& c = GetParam();
    SolverSettings s;
    s.method = c.method;
    s.preconditioner = c.preconditioner;
    s.block_shape = {2, 2, 4};
    GpuSolveOptions o;
    o.solve.tolerance = 1e-10;
    o.solve.max_iterations = 400;
    o.preconditioner = c.preconditioner;
    o.block_shape = s.block_shape;
    o.spmv = c.spmv;
    o.library_spmv = c.K == 1 ? LibrarySpmv::csr : LibrarySpmv::bsr;

    wells::Model first = model(c.K, 0);
    const std::unique_ptr<GpuSolver> solver =
        make_solver(c.method, c.kernel, first.system.matrix, o);
    long long allocations = 0;
    for (int k = 0; k < c.solves; ++k) {
        SCOPED_TRACE("solve " + std::to_string(k));
        const wells::Model m = k == 0 ? std::move(first) : model(c.K, k);
        const GHSystem& sys = m.system;
        if (k > 0) solver->update_values(sys.matrix);
        std::vector<double> x(sys.rhs.size(), 0.0), x_ref(sys.rhs.size(), 0.0);
        const SolveResult r = solver->solve(sys.rhs, x, o.solve);
        const SolveResult ref = reference(s, sys.matrix, sys.rhs, x_ref, o.solve);
        ASSERT_EQ(ref.status, SolveStatus::converged) << ref.detail;
        ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
        if (c.same_bits) {
            ASSERT_EQ(r.iterations, ref.iterations);
            ASSERT_EQ(r.history, ref.history);
            ASSERT_EQ(x, x_ref) << "not the reference's bits";
        } else {
            EXPECT_NEAR(r.iterations, ref.iterations, 0.2 * ref.iterations + 2);
            EXPECT_LE(r.true_relative_residual, 10 * o.solve.tolerance);
        }
        // The first solve may still create library state (cuSPARSE's SpMV buffer); from
        // then on nothing is allocated.
        if (k == 0) allocations = device_allocations();
        EXPECT_EQ(device_allocations(), allocations) << "re-allocated";
    }
    const SolverInfo info = solver->info();
    EXPECT_EQ(info.counts.plans, c.kernel == GpuKernel::library ? 0 : 1) << "re-planned";
    EXPECT_EQ(info.counts.matrix_uploads, c.solves);
    EXPECT_EQ(info.counts.factorizations,
              c.preconditioner != PreconditionerKind::none || is_smoother(c.method) ? c.solves : 0);
    EXPECT_EQ(info.backend, "gpu");
    EXPECT_GT(info.bytes_per_iteration, 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    GpuSolverObjects, SolverObject,
    ::testing::Values(
        // the product's solver, 100 Newton-like updates, with the fused preconditioner
        Case{"in_kernel_bicgstab_point_block", Method::bicgstab, GpuKernel::in_kernel,
             PreconditionerKind::point_block_jacobi, SpmvKind::bdia, 2, 100, true},
        Case{"multi_kernel_bicgstab_line", Method::bicgstab, GpuKernel::multi_kernel,
             PreconditionerKind::line_jacobi, SpmvKind::bdia, 2, 100, true},
        Case{"in_kernel_qmr", Method::qmr, GpuKernel::in_kernel, PreconditionerKind::none,
             SpmvKind::bdia, 3, 10, true},
        Case{"multi_kernel_qmr", Method::qmr, GpuKernel::multi_kernel, PreconditionerKind::none,
             SpmvKind::bdia, 1, 10, true},
        Case{"multi_kernel_bicgstab_blocks", Method::bicgstab, GpuKernel::multi_kernel,
             PreconditionerKind::block_jacobi, SpmvKind::bdia, 2, 10, true},
        Case{"multi_kernel_ksparse", Method::bicgstab, GpuKernel::multi_kernel,
             PreconditionerKind::none, SpmvKind::ksparse, 3, 10, false},
        Case{"library_bicgstab", Method::bicgstab, GpuKernel::library, PreconditionerKind::none,
             SpmvKind::bdia, 2, 10, false},
        Case{"library_qmr", Method::qmr, GpuKernel::library, PreconditionerKind::none,
             SpmvKind::bdia, 1, 10, false},
        Case{"block_jacobi_smoother", Method::block_jacobi, GpuKernel::multi_kernel,
             PreconditionerKind::none, SpmvKind::bdia, 2, 10, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

class SolverObjectErrors : public test::GpuTest {};

TEST_F(SolverObjectErrors, UpdateValuesRefusesAnotherStructure) {
    const wells::Model a = model(2, 0);
    const wells::Model b =
        test::synthetic_model(kNx, kNy, kNz, 2, {test::make_well("W", 1, 1, 0, kNz - 1)}, 5);
    GpuSolveOptions o;
    for (GpuKernel kernel : {GpuKernel::in_kernel, GpuKernel::multi_kernel, GpuKernel::library}) {
        const auto solver = make_solver(Method::bicgstab, kernel, a.system.matrix, o);
        EXPECT_THROW(solver->update_values(b.system.matrix), std::invalid_argument);
    }
}

TEST_F(SolverObjectErrors, SolveRefusesMoreIterationsThanTheCapacity) {
    const wells::Model a = model(2, 0);
    GpuSolveOptions o;
    o.solve.max_iterations = 50;
    const auto solver = make_solver(Method::bicgstab, GpuKernel::in_kernel, a.system.matrix, o);
    std::vector<double> x(a.system.rhs.size(), 0.0);
    SolveOptions more = o.solve;
    more.max_iterations = 51;
    EXPECT_THROW(solver->solve(a.system.rhs, x, more), std::invalid_argument);
    EXPECT_NO_THROW(solver->solve(a.system.rhs, x, o.solve));
}

// Issue 19, class 8: the best iterate of an unconverged solve is found again on the GPU by
// replaying the solve (solve_keeping_best), and it is the CPU reference's best iterate, bit
// for bit: the demo deck at tolerance 1e-12 passes 2.5e-11 near iteration 9,400 and ends at
// 6.8e-4 after 10,000 iterations.
TEST_F(SolverObjectErrors, TheBestIterateIsTheReferencesBestIterate) {
    const app::Deck deck = app::load_deck(test::source_path("inputs/demo.yaml"));
    const wells::Model m = app::build_model(deck);
    const GHSystem& sys = m.system;
    GpuSolveOptions o;
    o.solve.tolerance = 1e-12;
    o.solve.max_iterations = 10000;
    SolverSettings s;
    std::vector<double> x_ref(sys.rhs.size(), 0.0);
    const std::unique_ptr<LinearSolver> cpu = make_cpu_solver(s, sys.matrix);
    const SolveResult ref = solve_keeping_best(*cpu, sys.rhs, x_ref, o.solve);
    ASSERT_EQ(ref.status, SolveStatus::max_iterations);
    ASSERT_GE(ref.returned_iteration, 0);
    for (GpuKernel kernel : {GpuKernel::in_kernel, GpuKernel::multi_kernel}) {
        SCOPED_TRACE(kernel == GpuKernel::in_kernel ? "in_kernel" : "multi_kernel");
        const auto gpu = make_solver(Method::bicgstab, kernel, sys.matrix, o);
        std::vector<double> x(sys.rhs.size(), 0.0);
        const SolveResult r = solve_keeping_best(*gpu, sys.rhs, x, o.solve);
        EXPECT_EQ(r.returned_iteration, ref.returned_iteration);
        EXPECT_EQ(r.relative_residual, ref.relative_residual);
        EXPECT_EQ(r.last_relative_residual, ref.last_relative_residual);
        // The true residuals are the device's own sums of the same iterates.
        EXPECT_NEAR(r.true_relative_residual, ref.true_relative_residual,
                    1e-9 * ref.true_relative_residual);
        EXPECT_NEAR(r.last_true_relative_residual, ref.last_true_relative_residual,
                    1e-9 * ref.last_true_relative_residual);
        EXPECT_EQ(x, x_ref) << "not the reference's best iterate";
    }
}

}  // namespace
}  // namespace heptane::gpu
