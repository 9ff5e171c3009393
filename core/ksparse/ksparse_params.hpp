#pragma once
/// @file KSPARSE launch parameters (seed 001, sections 5.1-5.7 and Table I), shared by the
/// GPU kernels (gpu/ksparse.hpp), the balanced layout (core/ksparse/balanced_bsr.hpp) and the
/// brute-force tuner and its cache (core/ksparse/ksparse_tuning.hpp). CUDA-free.
#include <string>

namespace heptane {

enum class KsparseKernel {
    automatic,  ///< the tuned or default kernel for the block size (ksparse_kernel_for)
    k1,         ///< bs 1-5: a truncated warp reads floor(32 / bs^2) blocks at once
    k2,         ///< bs 2-128: thread arrays of bs x N_tg threads, one block at a time
    k3,         ///< bs >= 2: ceil(bs / nb) thread blocks per block row, nb x N_tg threads each
    k4,         ///< bs 8, 16, 32: a warp streams a chunk of lambda blocks (design decision 39)
};
const char* to_string(KsparseKernel k);  ///< "automatic", "k1", "k2", "k3", "k4"

/// Whether long block rows are split (seed 001, section 5.5).
enum class KsparseBalance {
    automatic,  ///< from the row-length histogram (core/ksparse/balanced_bsr.hpp, prefer_balanced)
    off,
    on,
};
const char* to_string(KsparseBalance b);  ///< "automatic", "off", "on"

/// Launch parameters (seed 001, Table I); 0 = the default for the kernel and bs.
struct KsparseParams {
    KsparseKernel kernel = KsparseKernel::automatic;
    int rows_per_array = 0;    ///< K1, K2: N_brows_ta, consecutive block rows per thread array
    int arrays_per_block = 0;  ///< K1, K2: N_ta, thread arrays per thread block (K4: warps)
    int groups = 0;            ///< K2, K3: N_tg, thread groups per thread array
    int nb = 0;                ///< K3: height of the working set (rows per thread block)
    int ept = 0;  ///< K3: elements (columns) per thread of a working set; K4: loads in flight
    KsparseBalance balance = KsparseBalance::automatic;
    /// balanced: the longest block row after splitting (0 = 16); K4: the blocks of a chunk
    /// (0 = k4_default_chunk)
    int lambda = 0;
};

/// The kernel `automatic` picks for block size bs when nothing is tuned: K4 for bs 8, 16 and
/// 32 (it streams every matrix measured, uneven or not, at least as fast as K2 but one case
/// within 6%; design decision 39) unless `balance` is off (K4 always splits the rows longer
/// than a chunk), otherwise the paper's ranges (section 5.1): K1 for bs <= 5, K2 up to 44,
/// K3 from 45.
KsparseKernel ksparse_kernel_for(int block_size,
                                 KsparseBalance balance = KsparseBalance::automatic);

/// "k2 N_ta=4 N_brows=1 N_tg=8" and so on: the parameters that apply to the kernel.
std::string describe(const KsparseParams& p);

}  // namespace heptane
