// Instantiations of the in-kernel QMR for K = 9..12 (see qmr_in_kernel.cuh).
#include "gpu/src/krylov/qmr_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* qmr_kernel<9>();
template const void* qmr_kernel<10>();
template const void* qmr_kernel<11>();
template const void* qmr_kernel<12>();

}  // namespace heptane::gpu::detail
