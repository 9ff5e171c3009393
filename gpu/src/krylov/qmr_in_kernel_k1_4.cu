// Instantiations of the in-kernel QMR for K = 1..4 (see qmr_in_kernel.cuh).
#include "gpu/src/krylov/qmr_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* qmr_kernel<1>();
template const void* qmr_kernel<2>();
template const void* qmr_kernel<3>();
template const void* qmr_kernel<4>();

}  // namespace heptane::gpu::detail
