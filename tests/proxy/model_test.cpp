// The proxy's performance model (proxy/model.hpp): the per-kernel counts add up to the
// whole-iteration bytes the solvers report (core iteration_bytes), and each kernel's bytes and
// flops follow from the data structures.
#include "proxy/model.hpp"

#include <gtest/gtest.h>

#include "core/krylov/linear_solver.hpp"
#include "core/matrix/linear_operator.hpp"
#include "proxy/problem.hpp"

namespace heptane::proxy {
namespace {

double total_bytes(const std::vector<KernelModel>& kernels) {
    double sum = 0.0;
    for (const KernelModel& k : kernels) sum += k.bytes * k.per_iteration;
    return sum;
}

TEST(ProxyModel, KernelsAddUpToTheIterationBytes) {
    const wells::Model m = wells::generate(problem_model({20, 20, 6}));
    const GHMatrix& A = m.system.matrix;
    const double product = GHOperator(A).minimal_bytes();
    const auto bicgstab =
        iteration_kernels(A, Method::bicgstab, PreconditionerKind::point_block_jacobi);
    EXPECT_DOUBLE_EQ(total_bytes(bicgstab),
                     iteration_bytes(Method::bicgstab, PreconditionerKind::point_block_jacobi,
                                     {1, 1, 1}, A, product, bicgstab_cost()));
    const auto qmr = iteration_kernels(A, Method::qmr, PreconditionerKind::none);
    EXPECT_DOUBLE_EQ(total_bytes(qmr), iteration_bytes(Method::qmr, PreconditionerKind::none,
                                                       {1, 1, 1}, A, product, qmr_cost()));
    ASSERT_EQ(qmr.size(), 3u);  // no preconditioner kernel
}

TEST(ProxyModel, EachKernelFromTheDataStructures) {
    const ProblemSize size{20, 20, 6};
    const wells::Model m = wells::generate(problem_model(size));
    const GHMatrix& A = m.system.matrix;
    const double n = static_cast<double>(A.rows());
    const double cells = static_cast<double>(size.cells());
    const auto k = iteration_kernels(A, Method::bicgstab, PreconditionerKind::point_block_jacobi);
    ASSERT_EQ(k.size(), 4u);
    EXPECT_EQ(k[0].name, "spmv");
    // 8 bytes a structural nonzero, x read and y written; 2 flops a nonzero.
    EXPECT_DOUBLE_EQ(k[0].bytes, 8.0 * static_cast<double>(A.nonzeros()) + 16.0 * n);
    EXPECT_DOUBLE_EQ(k[0].flops, 2.0 * static_cast<double>(A.nonzeros()));
    EXPECT_EQ(k[0].per_iteration, 2);
    // Point-block Jacobi: a 2 x 2 inverse a cell, r and z, the wells' 1 / D.
    EXPECT_EQ(k[1].name, "precond_point_block");
    EXPECT_DOUBLE_EQ(k[1].bytes, 32.0 * cells + 16.0 * n + 8.0 * A.num_wells());
    EXPECT_EQ(k[2].name, "dot");
    EXPECT_DOUBLE_EQ(k[2].bytes, 16.0 * n);
    EXPECT_EQ(k[3].name, "axpy");
    EXPECT_DOUBLE_EQ(k[3].bytes, 24.0 * n);
    // Memory bound: far below any machine's balance (an H100: ~20 flops a byte).
    for (const KernelModel& kernel : k) EXPECT_LT(kernel.intensity(), 0.5) << kernel.name;
    EXPECT_DOUBLE_EQ(predicted_seconds(2e9, 1e9), 2.0);
}

TEST(ProxyModel, VectorPassesAsDotsAndAxpys) {
    const auto [d, a] = vector_kernel_calls(Method::bicgstab);
    EXPECT_EQ(2 * d + 3 * a, bicgstab_cost().vector_passes);
    const auto [dq, aq] = vector_kernel_calls(Method::qmr);
    EXPECT_EQ(2 * dq + 3 * aq, qmr_cost().vector_passes);
    EXPECT_THROW(vector_kernel_calls(Method::block_jacobi), std::invalid_argument);
}

}  // namespace
}  // namespace heptane::proxy
