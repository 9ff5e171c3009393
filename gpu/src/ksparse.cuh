#pragma once
/// @file KSPARSE on the device (gpu/ksparse.hpp): a BSR matrix uploaded once with its
/// blocks column-major, the launch chosen for it, and the product.
#include <cuda_runtime.h>

#include <vector>

#include "core/formats.hpp"
#include "gpu/ksparse.hpp"
#include "gpu/src/buffer.cuh"

namespace heptane::gpu::detail {

/// A BSR matrix on the device, blocks column-major.
struct KsparseView {
    const int* row_ptr;
    const int* col;
    const double* val;
    int block_rows;
    int bs;
};

/// A kernel's launch for one matrix (parameters completed with their defaults).
struct KsparseLaunch {
    KsparseKernel kernel;
    int rows_per_array, arrays, groups, width;
    dim3 grid, block;
    size_t shared;
};

/// The launch of params.kernel (or the automatic one) for block_rows block rows of bs x bs;
/// NotSupported when that kernel cannot take bs or the block would exceed 1,024 threads.
KsparseLaunch ksparse_plan(int block_rows, int bs, const KsparseParams& params);
void ksparse_launch(const KsparseLaunch& launch, const KsparseView& A, const double* x, double* y,
                    cudaStream_t stream);

/// Bsr's row-major blocks, each transposed to column-major.
std::vector<double> column_major_blocks(const Bsr& A);

/// A Bsr on the device for repeated products y = A x with one KSPARSE launch.
class DeviceBsr {
  public:
    DeviceBsr(const Bsr& A, const KsparseParams& params);
    void apply(const double* x, double* y, cudaStream_t stream) const;
    const KsparseLaunch& launch() const { return launch_; }

  private:
    KsparseLaunch launch_;
    Buffer<int> row_ptr_, col_;
    Buffer<double> val_;
    int block_rows_, bs_;
};

}  // namespace heptane::gpu::detail
