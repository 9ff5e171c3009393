#pragma once
/// @file KSPARSE block-sparse SpMV (seed 001, sections 4-5) for any BSR matrix (CUDA-free
/// header). First version (issue 7, part 2): kernel K1 for block sizes 1-5 (truncated warps
/// reading several blocks per transaction) and K2 for any block size 2-128 (thread arrays of
/// nb x N_tg threads, each thread keeping ept = ceil(bs / N_tg) columns of a block). K3
/// (several thread blocks per block row, bs >= 45), the balanced variant and autotuning are
/// still to come; until K3 exists, K2 serves every bs above 5.
///
/// On the device the blocks are stored column-major (the transpose of Bsr's row-major
/// blocks), so that threads of consecutive rows read consecutive addresses. Sums are in the
/// kernels' own order (not the canonical order of the Bdia kernels): results agree with the
/// reference core::spmv(Bsr) to rounding.
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "core/ksparse_params.hpp"

namespace heptane::gpu {

using heptane::KsparseBalance;
using heptane::KsparseKernel;
using heptane::KsparseParams;

/// y = A x on the device with a KSPARSE kernel: uploads A and x, launches, downloads y.
/// For tests and one-off products. Throws NotSupported for a kernel that cannot take A's
/// block size (K1 above 5, K2 below 2 or above 128) and std::invalid_argument for a wrong x.
std::vector<double> spmv_ksparse(const Bsr& A, const std::vector<double>& x,
                                 const KsparseParams& params = {});

}  // namespace heptane::gpu
