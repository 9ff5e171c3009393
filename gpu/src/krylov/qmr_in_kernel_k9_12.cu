// Instantiations of the in-kernel QMR for K = 9..12 (see qmr_in_kernel.cuh).
#include "gpu/src/krylov/qmr_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* qmr_kernel<9, false>();
template const void* qmr_kernel<10, false>();
template const void* qmr_kernel<11, false>();
template const void* qmr_kernel<12, false>();

}  // namespace heptane::gpu::detail
