// Instantiations of the in-kernel BiCGStab for K = 13..16 (see bicgstab_in_kernel.cuh).
#include "gpu/src/krylov/bicgstab_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* bicgstab_kernel<13, false>();
template const void* bicgstab_kernel<14, false>();
template const void* bicgstab_kernel<15, false>();
template const void* bicgstab_kernel<16, false>();

}  // namespace heptane::gpu::detail
