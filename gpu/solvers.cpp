// The GPU solve functions of gpu/solvers.hpp, shared by the CUDA build and the stub: each
// makes the solver object once (gpu::make_solver; the stub's throws NotCompiled) and solves
// once, so a one-off solve and a simulation's thousandth run the same code.
#include <memory>
#include <string>

#include "core/errors.hpp"
#include "gpu/solver.hpp"
#include "gpu/solvers.hpp"

namespace heptane::gpu {
namespace {

/// One solve with a new solver object (of a GH or a BSR matrix): the times and the in-kernel
/// plan of the old API.
template <class Matrix>
SolveResult solve_once(Method method, GpuKernel kernel, const Matrix& A,
                       const std::vector<double>& b, std::vector<double>& x,
                       const GpuSolveOptions& options, GpuSolveTimes* times,
                       InKernelPlan* plan = nullptr) {
    const std::unique_ptr<GpuSolver> solver = make_solver(method, kernel, A, options);
    if (plan != nullptr) *plan = solver->plan();
    SolveResult result = solver->solve(b, x, options.solve);
    if (times != nullptr) {
        const SolverInfo info = solver->info();
        times->setup_seconds = info.setup_seconds;
        times->solve_seconds = info.solve_seconds;
    }
    return result;
}

}  // namespace

void check_solver(Method method, GpuKernel kernel, const GpuSolveOptions& options, int K) {
    if (method != Method::bicgstab && method != Method::qmr) {
        throw NotSupported(std::string("the GPU solvers are bicgstab and qmr, not ") +
                           to_string(method));
    }
    check_preconditioner(method, kernel, options, K);
    if (options.spmv == SpmvKind::ksparse && kernel != GpuKernel::multi_kernel) {
        throw NotSupported(std::string("the KSPARSE SpMV (solver.spmv: ksparse, matrix decks) runs "
                                       "with gpu_kernel multi_kernel, not ") +
                           (kernel == GpuKernel::in_kernel ? "in_kernel" : "library"));
    }
}

void check_bsr_solver(Method method, GpuKernel kernel, const GpuSolveOptions& options) {
    if (method != Method::bicgstab && method != Method::qmr) {
        throw NotSupported(std::string("the GPU solvers are bicgstab and qmr, not ") +
                           to_string(method));
    }
    if (kernel != GpuKernel::multi_kernel) {
        throw NotSupported(std::string("the KSPARSE SpMV (solver.spmv: ksparse, matrix decks) runs "
                                       "with gpu_kernel multi_kernel, not ") +
                           (kernel == GpuKernel::in_kernel ? "in_kernel" : "library"));
    }
    if (options.preconditioner != PreconditionerKind::none) {
        throw NotSupported("block preconditioners need a grid (GH) system, not a matrix deck");
    }
}

SolveResult bicgstab_in_kernel(const GHMatrix& A, const std::vector<double>& b,
                               std::vector<double>& x, const GpuSolveOptions& options,
                               GpuSolveTimes* times, InKernelPlan* plan) {
    return solve_once(Method::bicgstab, GpuKernel::in_kernel, A, b, x, options, times, plan);
}

SolveResult bicgstab_multi_kernel(const GHMatrix& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times) {
    return solve_once(Method::bicgstab, GpuKernel::multi_kernel, A, b, x, options, times,
                      nullptr);
}

SolveResult bicgstab_library(const GHMatrix& A, const std::vector<double>& b,
                             std::vector<double>& x, const GpuSolveOptions& options,
                             GpuSolveTimes* times) {
    return solve_once(Method::bicgstab, GpuKernel::library, A, b, x, options, times, nullptr);
}

SolveResult qmr_in_kernel(const GHMatrix& A, const std::vector<double>& b, std::vector<double>& x,
                          const GpuSolveOptions& options, GpuSolveTimes* times,
                          InKernelPlan* plan) {
    return solve_once(Method::qmr, GpuKernel::in_kernel, A, b, x, options, times, plan);
}

SolveResult qmr_multi_kernel(const GHMatrix& A, const std::vector<double>& b,
                             std::vector<double>& x, const GpuSolveOptions& options,
                             GpuSolveTimes* times) {
    return solve_once(Method::qmr, GpuKernel::multi_kernel, A, b, x, options, times, nullptr);
}

SolveResult qmr_library(const GHMatrix& A, const std::vector<double>& b, std::vector<double>& x,
                        const GpuSolveOptions& options, GpuSolveTimes* times) {
    return solve_once(Method::qmr, GpuKernel::library, A, b, x, options, times, nullptr);
}

SolveResult bicgstab_multi_kernel(const Bsr& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times) {
    return solve_once(Method::bicgstab, GpuKernel::multi_kernel, A, b, x, options, times);
}

SolveResult qmr_multi_kernel(const Bsr& A, const std::vector<double>& b, std::vector<double>& x,
                             const GpuSolveOptions& options, GpuSolveTimes* times) {
    return solve_once(Method::qmr, GpuKernel::multi_kernel, A, b, x, options, times);
}

SolveResult block_smoother(Method method, const GHMatrix& A, const std::vector<double>& b,
                           std::vector<double>& x, const GpuSolveOptions& options,
                           GpuSolveTimes* times) {
    if (!is_smoother(method)) {
        throw NotSupported(std::string("block_smoother runs block_jacobi or block_gs, not ") +
                           to_string(method));
    }
    return solve_once(method, GpuKernel::multi_kernel, A, b, x, options, times);
}

}  // namespace heptane::gpu
