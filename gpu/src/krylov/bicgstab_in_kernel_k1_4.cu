// Instantiations of the in-kernel BiCGStab for K = 1..4 (see bicgstab_in_kernel.cuh).
#include "gpu/src/krylov/bicgstab_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* bicgstab_kernel<1, false>();
template const void* bicgstab_kernel<2, false>();
template const void* bicgstab_kernel<3, false>();
template const void* bicgstab_kernel<4, false>();
// With the non-neighbour connections (design decision 68): a reservoir's block sizes.
template const void* bicgstab_kernel<1, true>();
template const void* bicgstab_kernel<2, true>();
template const void* bicgstab_kernel<3, true>();
template const void* bicgstab_kernel<4, true>();

}  // namespace heptane::gpu::detail
