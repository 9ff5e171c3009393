#pragma once
/// @file KSPARSE on the device (gpu/ksparse.hpp): a BSR matrix uploaded once with its
/// blocks column-major (and, balanced, its split row pointer and segment pointer), the
/// launch chosen for it, and the product.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/matrix/formats.hpp"
#include "gpu/ksparse.hpp"
#include "gpu/src/base/buffer.cuh"

namespace heptane::gpu::detail {

/// A BSR matrix on the device, blocks column-major. `rows` is the number of (block) rows the
/// kernel walks: the matrix's block rows, or the segments of the balanced layout.
struct KsparseView {
    const int* row_ptr;
    const int* col;
    const double* val;
    int rows;
    int bs;
};

/// K4's matrix (core/ksparse/chunked_bsr.hpp): the Bsr's row pointer, columns and
/// column-major values, and its chunked layout.
struct K4View {
    const int* row_ptr;
    const int* col;
    const double* val;
    const int* block_ptr;  ///< chunks + 1: each chunk's first block
    const int* first_row;  ///< each chunk's first block row
    const int* rows;       ///< each chunk's block rows
    const int* slot;       ///< -1 (rows to y) or the y_hat block row of a split row's segment
    // The split rows (ChunkedRows): the last of a row's segments to finish sums them into y.
    const int* slot_split;  ///< each segment's split row t
    const int* split_ptr;   ///< split rows + 1: each split row's first segment
    const int* split_row;   ///< each split row's block row
    unsigned* arrivals;     ///< each split row's segments finished in this product (0 between)
    int chunks;
    int chunk;  ///< blocks (and rows) per chunk at most: the shared memory per warp
};

/// A kernel's launch for one matrix: the parameters completed with their defaults.
struct KsparseLaunch {
    KsparseParams params;  ///< kernel and its Table I parameters, all resolved (> 0)
    int width = 0;         ///< threads per thread array (K1: 32, K2: bs N_tg, K3: nb N_tg)
    int ept_max = 0;       ///< K2: ceil(bs / N_tg), K3: ept
    const void* function = nullptr;  ///< the kernel instantiation launched
    dim3 grid, block;
    size_t shared = 0;
};

/// Throws NotSupported("KSPARSE " + what): a launch a kernel cannot take.
[[noreturn]] void ksparse_refuse(const std::string& what);

/// True when the gated phase is off (multi-kernel solvers); uniform over the grid.
__device__ __forceinline__ bool skipped(const int* skip) { return skip != nullptr && *skip != 0; }

/// K4's launch (ksparse_k4.cu): 32 x N_ta threads, ept = loads in flight, lambda = the chunk;
/// grid and shared memory for l.params (rows = chunks) are set by ksparse_plan.
void plan_k4(int bs, KsparseLaunch& l);

/// y = A x with K4 (launch from ksparse_plan over A.chunks): one launch, the split rows'
/// segments summed from y_hat into y by the last segment of each to finish.
void k4_apply(const KsparseLaunch& l, const K4View& A, const double* x, double* y, double* y_hat,
              cudaStream_t stream, const int* skip);

/// The launch of params.kernel (or the default kernel for bs) over `rows` block rows of
/// bs x bs; NotSupported when that kernel cannot take bs or the parameters break Table I's
/// restrictions or the 1,024 threads of a block.
KsparseLaunch ksparse_plan(int rows, int bs, const KsparseParams& params);

/// y = A x with that launch. If `skip` is not null the kernel does nothing while *skip != 0
/// (the multi-kernel solvers gate phases on device state).
void ksparse_launch(const KsparseLaunch& launch, const KsparseView& A, const double* x, double* y,
                    cudaStream_t stream, const int* skip = nullptr);

/// Bsr's row-major blocks, each transposed to column-major.
std::vector<double> column_major_blocks(const Bsr& A);

/// Thread arrays the device runs at once with this launch (for the balance choice).
long long ksparse_parallel_rows(const KsparseLaunch& launch);

/// The current device's name (cudaDeviceProp::name), the tuning cache's key.
std::string device_name();

/// The launch parameters a solver uses: `requested` as is when it sets any Table I parameter;
/// otherwise the tuned parameters of the default tuning cache (TuningCache::default_path())
/// for this device and bs - of requested.kernel, or with kernel automatic of the fastest
/// kernel tuned for bs - with requested's balance and lambda; the defaults when none is
/// cached.
KsparseParams tuned_params(const KsparseParams& requested, int bs);

/// A Bsr on the device for repeated products y = A x: one KSPARSE launch, or (balanced) the
/// launch over the split rows into y_hat and the segmented reduction into y, or (K4) the
/// launch over the chunks and the reduction of the rows longer than a chunk.
class DeviceBsr {
  public:
    DeviceBsr(const Bsr& A, const KsparseParams& params);
    void apply(const double* x, double* y, cudaStream_t stream, const int* skip = nullptr) const;
    /// New values of a matrix of the same structure into the same buffer (synchronizes);
    /// std::invalid_argument for another block count or block size.
    void update_values(const Bsr& A);
    const KsparseLaunch& launch() const { return launch_; }
    bool balanced() const { return balanced_; }
    /// K4: the chunks and the rows split into several of them.
    int chunks() const { return chunks_; }
    int split_rows() const { return splits_; }
    int lambda() const { return lambda_; }
    long long rows() const { return static_cast<long long>(block_rows_) * bs_; }

  private:
    void chunk(const Bsr& A, const KsparseParams& params);
    KsparseLaunch launch_;
    bool balanced_ = false;
    int lambda_ = 0;
    Buffer<int> row_ptr_, col_, seg_ptr_;
    Buffer<int> block_ptr_, first_row_, chunk_rows_, slot_, split_row_, split_ptr_;  // K4
    Buffer<int> slot_split_;
    Buffer<unsigned> arrivals_;
    Buffer<double> val_, y_hat_;
    int block_rows_, bs_, kernel_rows_;
    int chunks_ = 0, splits_ = 0;
};

}  // namespace heptane::gpu::detail
