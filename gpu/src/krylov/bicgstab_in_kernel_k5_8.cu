// Instantiations of the in-kernel BiCGStab for K = 5..8 (see bicgstab_in_kernel.cuh).
#include "gpu/src/krylov/bicgstab_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* bicgstab_kernel<5, false>();
template const void* bicgstab_kernel<6, false>();
template const void* bicgstab_kernel<7, false>();
template const void* bicgstab_kernel<8, false>();

}  // namespace heptane::gpu::detail
