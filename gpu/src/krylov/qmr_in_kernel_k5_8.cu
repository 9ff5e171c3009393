// Instantiations of the in-kernel QMR for K = 5..8 (see qmr_in_kernel.cuh).
#include "gpu/src/krylov/qmr_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* qmr_kernel<5, false>();
template const void* qmr_kernel<6, false>();
template const void* qmr_kernel<7, false>();
template const void* qmr_kernel<8, false>();

}  // namespace heptane::gpu::detail
