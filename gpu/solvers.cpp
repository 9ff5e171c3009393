// The GPU solve functions of gpu/solvers.hpp, shared by the CUDA build and the stub: each
// makes the solver object once (gpu::make_solver; the stub's throws NotCompiled) and solves
// once, so a one-off solve and a simulation's thousandth run the same code.
#include "gpu/solvers.hpp"

#include <memory>
#include <string>

#include "core/base/errors.hpp"
#include "core/krylov/capabilities.hpp"
#include "gpu/solver.hpp"

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

SolverSettings settings_of(Method method, GpuKernel kernel, const GpuSolveOptions& options) {
    SolverSettings s;
    s.method = method;
    s.gpu_kernel = kernel;
    s.spmv = options.spmv;
    s.preconditioner = options.preconditioner;
    s.block_shape = options.block_shape;
    s.omega = options.omega;
    s.cpr = options.cpr;
    s.library_format = options.library_spmv;
    return s;
}

void check_solver(Method method, GpuKernel kernel, const GpuSolveOptions& options, int K) {
    if (method != Method::bicgstab && method != Method::qmr) {
        throw NotSupported(std::string("the GPU Krylov solvers are bicgstab and qmr, not ") +
                           to_string(method));
    }
    const Support s =
        support(settings_of(method, kernel, options), K, Backend::gpu, DeckKind::grid);
    if (!s) throw NotSupported(s.reason);
}

void check_bsr_solver(Method method, GpuKernel kernel, const GpuSolveOptions& options) {
    if (method != Method::bicgstab && method != Method::qmr) {
        throw NotSupported(std::string("the GPU Krylov solvers are bicgstab and qmr, not ") +
                           to_string(method));
    }
    SolverSettings settings = settings_of(method, kernel, options);
    settings.spmv = SpmvKind::ksparse;  // a BSR matrix has no Bdia form
    const Support s = support(settings, 0, Backend::gpu, DeckKind::matrix);
    if (!s) throw NotSupported(s.reason);
}

SolveResult bicgstab_in_kernel(const GHMatrix& A, const std::vector<double>& b,
                               std::vector<double>& x, const GpuSolveOptions& options,
                               GpuSolveTimes* times, InKernelPlan* plan) {
    return solve_once(Method::bicgstab, GpuKernel::in_kernel, A, b, x, options, times, plan);
}

SolveResult bicgstab_multi_kernel(const GHMatrix& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times) {
    return solve_once(Method::bicgstab, GpuKernel::multi_kernel, A, b, x, options, times, nullptr);
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

SolveResult solve(Method method, GpuKernel kernel, const GHMatrix& A, const std::vector<double>& b,
                  std::vector<double>& x, const GpuSolveOptions& options, GpuSolveTimes* times,
                  InKernelPlan* plan) {
    return solve_once(method, kernel, A, b, x, options, times, plan);
}

SolveResult solve(Method method, GpuKernel kernel, const Bsr& A, const std::vector<double>& b,
                  std::vector<double>& x, const GpuSolveOptions& options, GpuSolveTimes* times) {
    return solve_once(method, kernel, A, b, x, options, times);
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
