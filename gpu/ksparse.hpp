#pragma once
/// @file KSPARSE block-sparse SpMV (seed 001, sections 4-5) for any BSR matrix (CUDA-free
/// header):
///  - K1, bs 1-5: truncated warps reading floor(32 / bs^2) blocks per transaction, N_ta
///    arrays per thread block, N_brows_ta rows per array, four loads in flight per lane;
///  - K2, bs 2 to about 64: thread arrays of bs x N_tg threads, each thread keeping
///    ept <= 16 columns of a block in registers (the next block prefetched - double
///    buffering - when ept <= 4); a shape whose registers do not fit one thread block is
///    refused (NotSupported), so K2 stops where K3 takes over;
///  - K3, bs 2-128 (the paper's choice from 45): ceil(bs / nb) thread blocks of nb x N_tg
///    threads per block row, working sets nb x (N_tg ept), like a dense GEMV;
///  - balanced (section 5.5): block rows longer than lambda split into segments
///    (core/ksparse/balanced_bsr.hpp), the kernel over the segments, then a segmented reduction;
///    chosen from the row-length histogram or by KsparseParams::balance.
/// Parameters: core/ksparse/ksparse_params.hpp; tuning: core/ksparse/ksparse_tuning.hpp.
///
/// On the device the blocks are stored column-major (the transpose of Bsr's row-major
/// blocks), so that threads of consecutive rows read consecutive addresses. Sums are in the
/// kernels' own order (not the canonical order of the Bdia kernels): results agree with the
/// reference core::spmv(Bsr) to rounding.
#include <string>
#include <vector>

#include "core/ksparse/ksparse_params.hpp"
#include "core/matrix/formats.hpp"

namespace heptane::gpu {

using heptane::KsparseBalance;
using heptane::KsparseKernel;
using heptane::KsparseParams;

/// y = A x on the device with a KSPARSE kernel: uploads A and x, launches twice (y cleared
/// in between, so the result is a repeated product's), downloads y. For tests and one-off
/// products. Throws NotSupported for a kernel that cannot take A's
/// block size or parameters (K1 above bs 5, K2 or K3 below 2 or above 128,
/// more threads than the kernel's registers allow, K2 with more than 16 columns per thread) and
/// std::invalid_argument for a wrong x.
std::vector<double> spmv_ksparse(const Bsr& A, const std::vector<double>& x,
                                 const KsparseParams& params = {});

/// The parameters spmv_ksparse (and the solvers) launch A with: the kernel and its Table I
/// parameters completed with the defaults, balance decided (on or off, from the row-length
/// histogram when automatic) and lambda set when on. Needs a device (its SM count).
KsparseParams ksparse_resolved(const Bsr& A, const KsparseParams& params = {});

}  // namespace heptane::gpu
