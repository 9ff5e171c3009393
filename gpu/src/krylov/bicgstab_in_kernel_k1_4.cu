// Instantiations of the in-kernel BiCGStab for K = 1..4 (see bicgstab_in_kernel.cuh).
#include "gpu/src/krylov/bicgstab_in_kernel.cuh"

namespace heptane::gpu::detail {

template const void* bicgstab_kernel<1>();
template const void* bicgstab_kernel<2>();
template const void* bicgstab_kernel<3>();
template const void* bicgstab_kernel<4>();

}  // namespace heptane::gpu::detail
