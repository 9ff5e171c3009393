// Names and defaults of the GPU backend, shared by the CUDA build and the stub.
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

}  // namespace heptane::gpu
