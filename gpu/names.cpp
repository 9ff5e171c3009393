// Names, defaults, costs and the solver dispatch of the GPU backend, shared by the CUDA build
// and the stub.
#include <string>

#include "core/errors.hpp"
#include "gpu/ksparse.hpp"
#include "gpu/solvers.hpp"
#include "gpu/spmv.hpp"

namespace heptane::gpu {

const char* to_string(BdiaVariant v) {
    switch (v) {
        case BdiaVariant::cell_fastest:
            return "bdia_cell_fastest";
        case BdiaVariant::cell_fastest_x2:
            return "bdia_cell_fastest_x2";
        case BdiaVariant::tiled:
            return "bdia_tiled";
    }
    return "?";
}

BdiaVariant default_variant() { return BdiaVariant::cell_fastest; }

const char* to_string(LibrarySpmv s) {
    switch (s) {
        case LibrarySpmv::bsr:
            return "cusparse_bsr";
        case LibrarySpmv::bsr_legacy:
            return "cusparse_bsrmv";
        case LibrarySpmv::csr:
            return "cusparse_csr";
    }
    return "?";
}

const char* to_string(RangeStorage s) {
    switch (s) {
        case RangeStorage::automatic:
            return "automatic";
        case RangeStorage::shared:
            return "shared";
        case RangeStorage::global:
            return "global";
    }
    return "?";
}

IterationCost in_kernel_cost() {
    // v = A p with p = r + beta q recomputed: q 1 more read; sigma: r_hat 1;
    // t = A s with s = r - alpha v recomputed: v 1 more read;
    // x, r, q update: read r, v, q, t, x, r_hat, write x, r, q: 9
    return {2, 12};
}

double bicgstab_floor_bytes(const GHMatrix& A) {
    return 2.0 * 8.0 * static_cast<double>(A.nonzeros()) +
           9.0 * 8.0 * static_cast<double>(A.rows());
}

IterationCost multi_kernel_cost() {
    // rho 2, p update 4, (r_hat, v) 2, s 3, (t,t)+(t,s) 2, x and r update 6
    return {2, 19};
}

IterationCost library_cost() {
    // dot 2; p: axpy 3, scal 2, axpy 3; dot 2; s: copy 2, axpy 3; nrm2 1; (t,t) 1, (t,s) 2;
    // x: axpy 3, axpy 3; r: copy 2, axpy 3; nrm2 1
    return {2, 33};
}

IterationCost qmr_in_kernel_cost() {
    // WS-S 1: d, s, x, r updates (read p, p~, d, s, x, r; write d, s, x, r) and v = v~ / rho,
    //         w = w~ / xi (read and write v, w): 14
    // WS-S 2: p = v - c p and q = w - c q recomputed at every read of the two products (read
    //         v, p, w, q), write p, q, p~ and A^T q: 8
    // WS-S 3: v~ = p~ - beta v, w~ = A^T q - beta w (read p~, v, A^T q, w; write v, w): 6
    return {2, 28};
}

IterationCost qmr_multi_kernel_cost() {
    // v, w scale + delta 4; p, q update 6; eps 2; v~, w~ + norms 6; d, s, x, r + ||r|| 10
    return {2, 28};
}

IterationCost qmr_library_cost() {
    // v: scal 2; w: scal 2; delta 2; p: scal 2, axpy 3; q: scal 2, axpy 3; eps 2; v~: scal 2,
    // axpy 3, nrm2 1; w~: scal 2, axpy 3, nrm2 1; d: scal 2, axpy 3; s: scal 2, axpy 3;
    // x: axpy 3; r: axpy 3, nrm2 1
    return {2, 47};
}

double qmr_floor_bytes(const GHMatrix& A) {
    return 2.0 * 8.0 * static_cast<double>(A.nonzeros()) +
           16.0 * 8.0 * static_cast<double>(A.rows());
}

namespace {

[[noreturn]] void no_gpu_method(Method method) {
    throw NotSupported(std::string("the GPU solvers are bicgstab and qmr, not ") +
                       (method == Method::block_jacobi ? "block_jacobi" : "block_gs"));
}

[[noreturn]] void no_ksparse(GpuKernel kernel) {
    throw NotSupported(std::string("the KSPARSE SpMV (solver.spmv: ksparse, matrix decks) runs "
                                   "with gpu_kernel multi_kernel, not ") +
                       (kernel == GpuKernel::in_kernel ? "in_kernel" : "library"));
}

}  // namespace

void check_preconditioner(Method method, GpuKernel kernel, const GpuSolveOptions& options, int K) {
    const PreconditionerKind kind = options.preconditioner;
    if (kind == PreconditionerKind::none) return;
    if (is_smoother(method)) {
        throw NotSupported(
            "the block smoothers take no preconditioner (solver.preconditioner: "
            "none)");
    }
    const std::string what = std::string("the preconditioner ") + to_string(kind);
    if (method == Method::qmr) {
        throw NotSupported(what +
                           " is not available in the GPU QMR (it needs M^-T on the "
                           "device); use bicgstab, or the CPU backend");
    }
    if (options.spmv == SpmvKind::ksparse) {
        throw NotSupported(what + " needs the Bdia SpMV (solver.spmv: bdia)");
    }
    switch (kernel) {
        case GpuKernel::library:
            throw NotSupported(what +
                               " is not in the library baseline (cuSPARSE + cuBLAS); use "
                               "gpu_kernel multi_kernel or in_kernel");
        case GpuKernel::multi_kernel:
            return;
        case GpuKernel::in_kernel:
            if (kind != PreconditionerKind::point_block_jacobi) {
                throw NotSupported(what +
                                   " is not local to a thread block's rows, so the "
                                   "in-kernel solver cannot fuse it; use gpu_kernel "
                                   "multi_kernel (it applies it between kernels)");
            }
            if ((K & (K - 1)) != 0) {
                throw NotSupported(what +
                                   " is fused into the in-kernel solver for K a power "
                                   "of two only (K = " +
                                   std::to_string(K) +
                                   " cells straddle the thread blocks' row ranges); use "
                                   "gpu_kernel multi_kernel");
            }
            return;
    }
}

IterationCost cost(Method method, GpuKernel kernel) {
    if (method != Method::bicgstab && method != Method::qmr) no_gpu_method(method);
    const bool qmr = method == Method::qmr;
    switch (kernel) {
        case GpuKernel::in_kernel:
            return qmr ? qmr_in_kernel_cost() : in_kernel_cost();
        case GpuKernel::multi_kernel:
            return qmr ? qmr_multi_kernel_cost() : multi_kernel_cost();
        case GpuKernel::library:
            return qmr ? qmr_library_cost() : library_cost();
    }
    return {};
}

SolveResult solve(Method method, GpuKernel kernel, const GHMatrix& A, const std::vector<double>& b,
                  std::vector<double>& x, const GpuSolveOptions& options, GpuSolveTimes* times,
                  InKernelPlan* plan) {
    if (is_smoother(method)) {
        return block_smoother(method, A, b, x, options, times);
    }
    check_preconditioner(method, kernel, options, A.block_size());
    const bool qmr = method == Method::qmr;
    if (options.spmv == SpmvKind::ksparse && kernel != GpuKernel::multi_kernel) no_ksparse(kernel);
    switch (kernel) {
        case GpuKernel::in_kernel:
            return qmr ? qmr_in_kernel(A, b, x, options, times, plan)
                       : bicgstab_in_kernel(A, b, x, options, times, plan);
        case GpuKernel::multi_kernel:
            return qmr ? qmr_multi_kernel(A, b, x, options, times)
                       : bicgstab_multi_kernel(A, b, x, options, times);
        case GpuKernel::library:
            return qmr ? qmr_library(A, b, x, options, times)
                       : bicgstab_library(A, b, x, options, times);
    }
    return {};
}

SolveResult solve(Method method, GpuKernel kernel, const Bsr& A, const std::vector<double>& b,
                  std::vector<double>& x, const GpuSolveOptions& options, GpuSolveTimes* times) {
    if (method != Method::bicgstab && method != Method::qmr) no_gpu_method(method);
    if (kernel != GpuKernel::multi_kernel) no_ksparse(kernel);
    if (options.preconditioner != PreconditionerKind::none) {
        throw NotSupported("block preconditioners need a grid (GH) system, not a matrix deck");
    }
    return method == Method::qmr ? qmr_multi_kernel(A, b, x, options, times)
                                 : bicgstab_multi_kernel(A, b, x, options, times);
}

}  // namespace heptane::gpu
