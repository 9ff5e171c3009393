// Instantiations of the in-kernel BiCGStab for K = 9..12 (see bicgstab_in_kernel.cuh).
#include "gpu/src/krylov/bicgstab_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* bicgstab_kernel<9, false>();
template const void* bicgstab_kernel<10, false>();
template const void* bicgstab_kernel<11, false>();
template const void* bicgstab_kernel<12, false>();

}  // namespace heptane::gpu::detail
