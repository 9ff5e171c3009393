#pragma once
/// @file GPU BiCGStab baselines (CUDA-free header; DESIGN section 5):
///  - multi-kernel: own Bdia SpMV + fused vector-update-and-dot kernels, one iteration
///    captured into a CUDA graph and replayed; scalars stay on the device and the host looks
///    at the device state every `check_interval` iterations only. Canonical arithmetic: the
///    same bits as the CPU reference (core/krylov.hpp), restarts included.
///  - library: cuSPARSE SpMV (BSR or CSR of the same GH) + cuBLAS vector operations with
///    device-side scalars, the paper's library comparison. Its reductions are cuBLAS's, so its
///    iterates differ from the reference by rounding.
/// Both return the SolveResult of the reference (status, iterations, residuals, history).
#include <vector>

#include "core/gh_matrix.hpp"
#include "core/krylov.hpp"
#include "gpu/spmv.hpp"

namespace heptane::gpu {

/// cuSPARSE SpMV used by the library baseline.
enum class LibrarySpmv {
    bsr,         ///< generic API (cusparseSpMV) on BSR with K x K blocks
    bsr_legacy,  ///< legacy cusparseDbsrmv on the same BSR
    csr,         ///< generic API on scalar CSR
};
const char* to_string(LibrarySpmv s);

struct GpuSolveOptions {
    SolveOptions solve;       ///< tolerance, max_iterations, max_restarts; progress at checks
    int check_interval = 16;  ///< iterations between host looks at the device state
    BdiaVariant variant = default_variant();  ///< multi-kernel SpMV
    LibrarySpmv library_spmv = LibrarySpmv::bsr;
};

/// Wall times of a GPU solve (CUDA events).
struct GpuSolveTimes {
    double setup_seconds = 0.0;  ///< upload and workspace (and graph capture)
    double solve_seconds = 0.0;  ///< from the initial residual to the status at exit
};

/// Products and vector passes of one iteration as implemented (for effective bandwidth;
/// see core/krylov.hpp IterationCost).
IterationCost multi_kernel_cost();
IterationCost library_cost();

/// x: initial guess in, iterate out (size A.rows()).
SolveResult bicgstab_multi_kernel(const GHMatrix& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times = nullptr);
SolveResult bicgstab_library(const GHMatrix& A, const std::vector<double>& b,
                             std::vector<double>& x, const GpuSolveOptions& options,
                             GpuSolveTimes* times = nullptr);

}  // namespace heptane::gpu
