// Instantiations of the in-kernel BiCGStab for K = 5..8 (see bicgstab_in_kernel.cuh).
#include "gpu/src/krylov/bicgstab_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* bicgstab_kernel<5>();
template const void* bicgstab_kernel<6>();
template const void* bicgstab_kernel<7>();
template const void* bicgstab_kernel<8>();

}  // namespace heptane::gpu::detail
