#include "proxy/model.hpp"

#include <stdexcept>

#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_smoothers.hpp"

namespace heptane::proxy {

std::pair<int, int> vector_kernel_calls(Method method) {
    switch (method) {
        case Method::bicgstab:
            return {4, 5};
        case Method::qmr:
            return {4, 9};
        default:
            throw std::invalid_argument("vector_kernel_calls: not a Krylov method");
    }
}

std::vector<KernelModel> iteration_kernels(const GHMatrix& A, Method method,
                                           PreconditionerKind preconditioner) {
    const IterationCost cost = method == Method::qmr ? qmr_cost() : bicgstab_cost();
    const auto [dots, axpys] = vector_kernel_calls(method);
    const double n = static_cast<double>(A.rows());
    const double nnz = static_cast<double>(A.nonzeros());
    std::vector<KernelModel> k;
    k.push_back({"spmv", "y = GH x: Bdia and well values once, x read, y written",
                 GHOperator(A).minimal_bytes(), 2.0 * nnz, cost.products});
    if (preconditioner != PreconditionerKind::none) {
        if (preconditioner != PreconditionerKind::point_block_jacobi) {
            throw std::invalid_argument("iteration_kernels: the model covers point_block_jacobi");
        }
        const double K = A.block_size();
        const double cells = static_cast<double>(A.num_cells());
        k.push_back({"precond_point_block", "z = D^-1 r: K x K inverses once, r read, z written",
                     preconditioner_bytes(A, preconditioner, {1, 1, 1}),
                     2.0 * K * K * cells + static_cast<double>(A.num_wells()), cost.products});
    }
    k.push_back({"dot", "x . y: two vectors read", 16.0 * n, 2.0 * n, dots});
    k.push_back({"axpy", "y += a x: two vectors read, one written", 24.0 * n, 2.0 * n, axpys});
    return k;
}

}  // namespace heptane::proxy
