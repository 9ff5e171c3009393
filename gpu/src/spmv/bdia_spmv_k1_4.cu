// Instantiations of the Bdia SpMV for K = 1..4 (see bdia_spmv.cuh).
#include "gpu/src/spmv/bdia_spmv.cuh"

namespace heptane::gpu::detail {

template void launch_k<1>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);
template void launch_k<2>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);
template void launch_k<3>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);
template void launch_k<4>(const BdiaView&, BdiaVariant, bool, const double*, double*, cudaStream_t,
                          const int*);

}  // namespace heptane::gpu::detail
