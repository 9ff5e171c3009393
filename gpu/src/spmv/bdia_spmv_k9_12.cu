// Instantiations of the Bdia SpMV for K = 9..12 (see bdia_spmv.cuh).
#include "gpu/src/spmv/bdia_spmv.cuh"

namespace heptane::gpu::detail {

template void launch_k<9>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);
template void launch_k<10>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                           const int*);
template void launch_k<11>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                           const int*);
template void launch_k<12>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                           const int*);

}  // namespace heptane::gpu::detail
