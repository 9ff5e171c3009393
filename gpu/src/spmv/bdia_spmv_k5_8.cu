// Instantiations of the Bdia SpMV for K = 5..8 (see bdia_spmv.cuh).
#include "gpu/src/spmv/bdia_spmv.cuh"

namespace heptane::gpu::detail {

template void launch_k<5>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);
template void launch_k<6>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);
template void launch_k<7>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);
template void launch_k<8>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);

}  // namespace heptane::gpu::detail
