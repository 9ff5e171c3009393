// gpu::make_solver: the GPU solver object of (method, kernel), and the allocation count the
// tests read.
#include <memory>
#include <string>

#include "core/base/errors.hpp"
#include "gpu/solver.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/krylov/factories.cuh"

namespace heptane::gpu {

std::unique_ptr<GpuSolver> make_solver(Method method, GpuKernel kernel, const GHMatrix& A,
                                       const GpuSolveOptions& options) {
    if (is_smoother(method)) return detail::make_smoother_solver(method, A, options);
    check_solver(method, kernel, options, A.block_size());  // core/krylov/capabilities.hpp
    switch (kernel) {
        case GpuKernel::in_kernel:
            return detail::make_in_kernel_solver(method, A, options);
        case GpuKernel::multi_kernel:
            return detail::make_multi_kernel_solver(method, A, options);
        case GpuKernel::library:
            return method == Method::qmr ? detail::make_qmr_library(A, options)
                                         : detail::make_bicgstab_library(A, options);
    }
    throw NotSupported("make_solver: unknown GPU kernel");
}

std::unique_ptr<GpuSolver> make_solver(Method method, GpuKernel kernel, const Bsr& A,
                                       const GpuSolveOptions& options) {
    check_bsr_solver(method, kernel, options);
    return detail::make_multi_kernel_solver(method, A, options);
}

long long device_allocations() { return detail::g_device_allocations.load(); }

}  // namespace heptane::gpu
