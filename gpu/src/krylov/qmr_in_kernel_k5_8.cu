// Instantiations of the in-kernel QMR for K = 5..8 (see qmr_in_kernel.cuh).
#include "gpu/src/krylov/qmr_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* qmr_kernel<5>();
template const void* qmr_kernel<6>();
template const void* qmr_kernel<7>();
template const void* qmr_kernel<8>();

}  // namespace heptane::gpu::detail
