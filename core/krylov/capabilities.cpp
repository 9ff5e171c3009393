// Every rule of which solver settings run where (core/krylov/capabilities.hpp), with its message.
#include "core/krylov/capabilities.hpp"

#include <string>

#include "core/krylov/names.hpp"

namespace heptane {
namespace {

Support refuse(const char* key, std::string reason) { return {false, key, std::move(reason)}; }

/// The rules that hold on every backend (checked when the deck is read).
Support everywhere(const SolverSettings& s, DeckKind kind) {
    const bool matrix = kind == DeckKind::matrix;
    if (matrix && is_smoother(s.method)) {
        return refuse("solver.method",
                      std::string(to_string(s.method)) +
                          " needs a grid deck (its spatial blocks are blocks of grid cells); a "
                          "matrix deck solves with bicgstab or qmr");
    }
    if (s.preconditioner != PreconditionerKind::none) {
        const std::string what = std::string("the preconditioner ") + to_string(s.preconditioner);
        if (matrix) {
            return refuse("solver.preconditioner",
                          what +
                              " needs a grid deck (it inverts blocks of grid cells); a matrix "
                              "deck solves with preconditioner none");
        }
        if (s.preconditioner == PreconditionerKind::cpr && s.method == Method::qmr) {
            return refuse("solver.preconditioner",
                          "cpr has no transpose (QMR needs M^-T); use bicgstab with cpr");
        }
        if (is_smoother(s.method)) {
            return refuse("solver.preconditioner",
                          std::string("the block smoother ") + to_string(s.method) +
                              " takes no preconditioner (its sweeps invert the spatial blocks "
                              "themselves); use none, or method bicgstab or qmr with " +
                              to_string(s.preconditioner));
        }
    }
    if (matrix && s.gpu_kernel != GpuKernel::multi_kernel) {
        return refuse("solver.gpu_kernel",
                      "a matrix deck runs on the GPU with multi_kernel (KSPARSE SpMV); "
                      "in_kernel and library need a grid model");
    }
    if (matrix && s.spmv != SpmvKind::ksparse) {
        return refuse("solver.spmv", "a matrix deck has no Bdia form; its SpMV is ksparse");
    }
    if (s.spmv == SpmvKind::ksparse && s.gpu_kernel != GpuKernel::multi_kernel) {
        return refuse("solver.spmv",
                      "ksparse runs with gpu_kernel: multi_kernel (the in-kernel solver has "
                      "its own Bdia products, the library baseline cuSPARSE's)");
    }
    return {};
}

/// The GPU's own rules for a preconditioner (gpu::check_preconditioner's messages).
Support on_gpu(const SolverSettings& s, int K) {
    const PreconditionerKind kind = s.preconditioner;
    if (kind == PreconditionerKind::none) return {};
    const char* key = "solver.preconditioner";
    if (is_smoother(s.method)) {
        return refuse(key,
                      "the block smoothers take no preconditioner (solver.preconditioner: "
                      "none)");
    }
    const std::string what = std::string("the preconditioner ") + to_string(kind);
    if (s.method == Method::qmr && s.gpu_kernel == GpuKernel::in_kernel) {
        return refuse(key, what +
                               " is not fused into the in-kernel QMR (it would need M^-T "
                               "inside the kernel too); use gpu_kernel multi_kernel");
    }
    if (s.spmv == SpmvKind::ksparse) {
        return refuse(key, what + " needs the Bdia SpMV (solver.spmv: bdia)");
    }
    switch (s.gpu_kernel) {
        case GpuKernel::library:
            return refuse(key, what +
                                   " is not in the library baseline (cuSPARSE + cuBLAS); use "
                                   "gpu_kernel multi_kernel or in_kernel");
        case GpuKernel::multi_kernel:
            return {};
        case GpuKernel::in_kernel:
            if (kind != PreconditionerKind::point_block_jacobi) {
                return refuse(key, what +
                                       " is not local to a thread block's rows, so the "
                                       "in-kernel solver cannot fuse it; use gpu_kernel "
                                       "multi_kernel (it applies it between kernels)");
            }
            if ((K & (K - 1)) != 0) {
                return refuse(key, what +
                                       " is fused into the in-kernel solver for K a power "
                                       "of two only (K = " +
                                       std::to_string(K) +
                                       " cells straddle the thread blocks' row ranges); use "
                                       "gpu_kernel multi_kernel");
            }
            return {};
    }
    return {};
}

}  // namespace

Support support(const SolverSettings& s, int K, Backend where, DeckKind kind) {
    if (Support everywhere_ok = everywhere(s, kind); !everywhere_ok) return everywhere_ok;
    if (where == Backend::gpu) return on_gpu(s, K);
    return {};
}

GpuKernel sized_gpu_kernel(const SolverSettings& s, int K, long long rows) {
    if (s.gpu_kernel_given || s.gpu_kernel != GpuKernel::in_kernel) return s.gpu_kernel;
    const long long from = K >= 8                    ? kMultiKernelRowsLargeK
                           : s.method == Method::qmr ? kMultiKernelRowsQmr
                                                     : kMultiKernelRows;
    return rows >= from ? GpuKernel::multi_kernel : GpuKernel::in_kernel;
}

}  // namespace heptane
