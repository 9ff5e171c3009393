// Names, defaults and costs of the GPU backend, shared by the CUDA build and the stub.
#include <string>

#include "core/base/errors.hpp"
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

IterationCost cost(Method method, GpuKernel kernel) {
    if (method != Method::bicgstab && method != Method::qmr) {
        throw NotSupported(std::string("the GPU Krylov solvers are bicgstab and qmr, not ") +
                           to_string(method));
    }
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

}  // namespace heptane::gpu
