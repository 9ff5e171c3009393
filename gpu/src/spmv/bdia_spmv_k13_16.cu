// Instantiations of the Bdia SpMV for K = 13..16 (see bdia_spmv.cuh).
#include "gpu/src/spmv/bdia_spmv.cuh"

namespace heptane::gpu::detail {

template void launch_k<13>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                           const int*);
template void launch_k<14>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                           const int*);
template void launch_k<15>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                           const int*);
template void launch_k<16>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                           const int*);

}  // namespace heptane::gpu::detail
