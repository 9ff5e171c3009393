// Dispatch of the Bdia SpMV on K (the kernels: bdia_spmv.cuh; instantiations:
// bdia_spmv_k*.cu, one list of K values driving both).
#include "gpu/src/spmv/bdia_spmv.cuh"

namespace heptane::gpu::detail {

#define HEPTANE_EXTERN(k)                                                                        \
    extern template void launch_k<k>(const BdiaView&, BdiaVariant, bool, const double*, double*, \
                                     cudaStream_t, const int*);
HEPTANE_FOR_EACH_K(HEPTANE_EXTERN)
#undef HEPTANE_EXTERN

void launch_bdia_spmv(const BdiaView& v, int K, BdiaVariant variant, bool transpose,
                      const double* x, double* y, cudaStream_t stream, const int* skip) {
    switch (K) {
#define HEPTANE_CASE(k)                                         \
    case k:                                                     \
        launch_k<k>(v, variant, transpose, x, y, stream, skip); \
        return;
        HEPTANE_FOR_EACH_K(HEPTANE_CASE)
#undef HEPTANE_CASE
        default:
            throw NotSupported("Bdia SpMV: no kernel for K = " + std::to_string(K));
    }
}

}  // namespace heptane::gpu::detail
