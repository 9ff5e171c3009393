// Inactive cells on the GPU (issue 20): the ACTNUM model of test::actnum_pair (identity rows
// for the cells around a box) solved by every GPU solver. The canonical ones (in-kernel and
// multi-kernel, with their preconditioners) must give the CPU reference's bits, exact zeros in
// the inactive cells included; the library and KSPARSE ones (their own sums) the reference's
// solution to the tolerance. The CPU side against the smaller grid is
// tests/wells/inactive_cells_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/krylov/linear_solver.hpp"
#include "gpu/solver.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {
namespace {

struct Case {
    const char* name;
    Method method;
    GpuKernel kernel;
    PreconditionerKind preconditioner;
    SpmvKind spmv;
    bool same_bits;
};

class InactiveCellsOnGpu : public test::GpuTest, public ::testing::WithParamInterface<Case> {};

TEST_P(InactiveCellsOnGpu, GivesTheReferencesSolution) {
    const Case& c = GetParam();
    const test::ActnumPair p = test::actnum_pair(test::TempFolder().path(), 9, 8, 6);
    const GHSystem& sys = p.with_actnum.system;
    SolverSettings s;
    s.method = c.method;
    s.preconditioner = c.preconditioner;
    s.block_shape = {2, 2, 2};
    GpuSolveOptions o;
    o.solve.tolerance = 1e-10;
    o.solve.max_iterations = 2000;
    o.preconditioner = c.preconditioner;
    o.block_shape = s.block_shape;
    o.spmv = c.spmv;
    std::vector<double> x(sys.rhs.size(), 0.0), x_ref(sys.rhs.size(), 0.0);
    const SolveResult ref = make_cpu_solver(s, sys.matrix)->solve(sys.rhs, x_ref, o.solve);
    ASSERT_EQ(ref.status, SolveStatus::converged) << ref.detail;
    const SolveResult r = make_solver(c.method, c.kernel, sys.matrix, o)->solve(sys.rhs, x, o.solve);
    ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
    if (c.same_bits) {
        EXPECT_EQ(r.iterations, ref.iterations);
        EXPECT_EQ(r.history, ref.history);
        EXPECT_EQ(x, x_ref) << "not the reference's bits";
    } else {
        EXPECT_LE(r.true_relative_residual, 10 * o.solve.tolerance);
        EXPECT_TRUE(test::vectors_near(x_ref, x, 1e-6 * test::max_abs(x_ref)));
    }
    for (index_t m = 0; m < p.with_actnum.grid.num_cells(); ++m) {
        if (p.with_actnum.rock.is_active(m)) continue;
        ASSERT_EQ(x[2 * m], 0.0) << m;
        ASSERT_EQ(x[2 * m + 1], 0.0) << m;
    }
}

INSTANTIATE_TEST_SUITE_P(
    EveryGpuSolver, InactiveCellsOnGpu,
    ::testing::Values(
        Case{"in_kernel_bicgstab", Method::bicgstab, GpuKernel::in_kernel,
             PreconditionerKind::none, SpmvKind::bdia, true},
        Case{"in_kernel_bicgstab_point_block", Method::bicgstab, GpuKernel::in_kernel,
             PreconditionerKind::point_block_jacobi, SpmvKind::bdia, true},
        Case{"in_kernel_qmr", Method::qmr, GpuKernel::in_kernel, PreconditionerKind::none,
             SpmvKind::bdia, true},
        Case{"multi_kernel_bicgstab_line", Method::bicgstab, GpuKernel::multi_kernel,
             PreconditionerKind::line_jacobi, SpmvKind::bdia, true},
        Case{"multi_kernel_bicgstab_blocks", Method::bicgstab, GpuKernel::multi_kernel,
             PreconditionerKind::block_jacobi, SpmvKind::bdia, true},
        Case{"multi_kernel_qmr", Method::qmr, GpuKernel::multi_kernel, PreconditionerKind::none,
             SpmvKind::bdia, true},
        Case{"multi_kernel_ksparse", Method::bicgstab, GpuKernel::multi_kernel,
             PreconditionerKind::none, SpmvKind::ksparse, false},
        Case{"library_bicgstab", Method::bicgstab, GpuKernel::library, PreconditionerKind::none,
             SpmvKind::bdia, false},
        Case{"library_qmr", Method::qmr, GpuKernel::library, PreconditionerKind::none,
             SpmvKind::bdia, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace heptane::gpu
