#pragma once
/// @file The solver objects each GPU variant makes (gpu::make_solver in solver.cu
/// dispatches to them; each is defined beside its kernels).
#include <memory>

#include "core/krylov/solver_settings.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "gpu/solver.hpp"

namespace heptane::gpu::detail {

/// in_kernel.cu: the persistent BiCGStab / QMR (plan, upload, workspace once).
std::unique_ptr<GpuSolver> make_in_kernel_solver(Method method, const GHMatrix& A,
                                                 const GpuSolveOptions& options);
/// device_operator.cu: the multi-kernel BiCGStab / QMR on the Bdia or KSPARSE operator.
std::unique_ptr<GpuSolver> make_multi_kernel_solver(Method method, const GHMatrix& A,
                                                    const GpuSolveOptions& options);
std::unique_ptr<GpuSolver> make_multi_kernel_solver(Method method, const Bsr& A,
                                                    const GpuSolveOptions& options);
/// bicgstab_library.cu, qmr_library.cu: cuSPARSE + cuBLAS BiCGStab / QMR.
std::unique_ptr<GpuSolver> make_bicgstab_library(const GHMatrix& A, const GpuSolveOptions& options);
std::unique_ptr<GpuSolver> make_qmr_library(const GHMatrix& A, const GpuSolveOptions& options);
/// block_smoothers.cu: block_jacobi / block_gs sweeps.
std::unique_ptr<GpuSolver> make_smoother_solver(Method method, const GHMatrix& A,
                                                const GpuSolveOptions& options);

}  // namespace heptane::gpu::detail
