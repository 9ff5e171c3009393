// Instantiations of the in-kernel QMR for K = 13..16 (see qmr_in_kernel.cuh).
#include "gpu/src/krylov/qmr_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* qmr_kernel<13, false>();
template const void* qmr_kernel<14, false>();
template const void* qmr_kernel<15, false>();
template const void* qmr_kernel<16, false>();

}  // namespace heptane::gpu::detail
