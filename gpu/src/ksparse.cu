// KSPARSE block-sparse SpMV (seed 001, sections 4-5), first version: kernels K1 (bs 1-5) and
// K2 (bs 2-128). See gpu/ksparse.hpp. The blocks live column-major on the device: element
// (r, c) of block p at val[p bs^2 + c bs + r].
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "gpu/ksparse.hpp"
#include "gpu/src/buffer.cuh"
#include "gpu/src/cuda_check.cuh"
#include "gpu/src/ksparse.cuh"

namespace heptane::gpu {
namespace detail {
namespace {

constexpr int kMaxBlockSize = 128;
constexpr int kMaxThreads = 1024;

/// K1 (seed 001, section 5.2): a thread array is a warp truncated to kPerLoad whole blocks
/// (kPerLoad = floor(32 / bs^2)), so one warp load covers kPerLoad consecutive blocks of a
/// block row; lane l holds element e = l mod bs^2 of its block, i.e. row e mod bs, column
/// e / bs, and sums its products over the block row. The rows are then reduced through the
/// warp's shared memory (lanes l = r mod bs), with no block-wide synchronization: thread
/// arrays are independent. Each array takes rows_per_array consecutive block rows.
template <int BS>
__global__ void ksparse_k1(KsparseView A, const double* __restrict__ x, double* __restrict__ y,
                           int rows_per_array) {
    constexpr int kBB = BS * BS;
    constexpr int kPerLoad = 32 / kBB;
    constexpr int kActive = kPerLoad * kBB;
    extern __shared__ double k1_red[];  // [arrays][32]
    double* red = k1_red + 32 * threadIdx.y;
    const int lane = threadIdx.x;
    const int b = lane / kBB, e = lane % kBB, c = e / BS;
    const long long first =
        (static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y) * rows_per_array;
    const long long last = std::min<long long>(first + rows_per_array, A.block_rows);
    for (long long br = first; br < last; ++br) {
        double sum = 0.0;
        if (lane < kActive) {
            const int end = __ldg(A.row_ptr + br + 1);
            for (int p = __ldg(A.row_ptr + br) + b; p < end; p += kPerLoad) {
                const double a = __ldg(A.val + static_cast<size_t>(p) * kBB + e);
                sum += a * __ldg(x + static_cast<size_t>(__ldg(A.col + p)) * BS + c);
            }
        }
        if constexpr (BS == 1) {
#pragma unroll
            for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
            if (lane == 0) y[br] = sum;
        } else {
            red[lane] = sum;
            __syncwarp();
            if (lane < BS) {
                double t = 0.0;
                for (int j = lane; j < kActive; j += BS) t += red[j];
                y[br * BS + lane] = t;
            }
            __syncwarp();
        }
    }
}

/// K2 (seed 001, section 5.3): a thread array of bs x N_tg threads works on one block at a
/// time; thread (r, g) keeps row r and the columns g, g + N_tg, ... (ept = ceil(bs / N_tg)
/// of them; the groups below bs mod N_tg hold one more), so for a fixed column the bs
/// threads of a group read consecutive addresses. The groups' row sums are reduced through
/// shared memory at the end of each block row. Every array of a thread block runs the same
/// number of steps (the block barriers of arrays spanning several warps).
__global__ void ksparse_k2(KsparseView A, const double* __restrict__ x, double* __restrict__ y,
                           int rows_per_array, int groups) {
    extern __shared__ double k2_red[];  // [arrays][bs groups]
    const int bs = A.bs;
    const int width = bs * groups;
    double* red = k2_red + static_cast<size_t>(width) * threadIdx.y;
    const int r = threadIdx.x % bs, g = threadIdx.x / bs;
    const size_t bb = static_cast<size_t>(bs) * bs;
    const long long first =
        (static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y) * rows_per_array;
    for (int k = 0; k < rows_per_array; ++k) {
        const long long br = first + k;
        const bool present = br < A.block_rows;
        double sum = 0.0;
        if (present) {
            const int end = __ldg(A.row_ptr + br + 1);
            for (int p = __ldg(A.row_ptr + br); p < end; ++p) {
                const double* block = A.val + static_cast<size_t>(p) * bb;
                const double* xb = x + static_cast<size_t>(__ldg(A.col + p)) * bs;
                for (int cc = g; cc < bs; cc += groups) {
                    sum += __ldg(block + static_cast<size_t>(cc) * bs + r) * __ldg(xb + cc);
                }
            }
        }
        red[threadIdx.x] = sum;
        __syncthreads();
        if (present && g == 0) {
            double t = 0.0;
            for (int j = 0; j < groups; ++j) t += red[j * bs + r];
            y[br * bs + r] = t;
        }
        __syncthreads();
    }
}

}  // namespace

KsparseLaunch ksparse_plan(int block_rows, int bs, const KsparseParams& p) {
    KsparseLaunch l{};
    l.kernel = p.kernel == KsparseKernel::automatic ? ksparse_kernel_for(bs) : p.kernel;
    if (l.kernel == KsparseKernel::k1 && (bs < 1 || bs > 5)) {
        throw NotSupported("KSPARSE K1 takes block sizes 1 to 5, not " + std::to_string(bs));
    }
    if (l.kernel == KsparseKernel::k2 && (bs < 2 || bs > kMaxBlockSize)) {
        throw NotSupported("KSPARSE K2 takes block sizes 2 to " + std::to_string(kMaxBlockSize) +
                           ", not " + std::to_string(bs));
    }
    l.rows_per_array =
        p.rows_per_array > 0 ? p.rows_per_array : (l.kernel == KsparseKernel::k1 ? 2 : 1);
    if (l.kernel == KsparseKernel::k1) {
        l.groups = 0;
        l.width = 32;
        l.arrays = p.arrays_per_block > 0 ? p.arrays_per_block : 4;
    } else {
        l.groups = p.groups > 0 ? std::min(p.groups, bs) : std::max(1, std::min(bs, 64 / bs));
        l.width = bs * l.groups;
        l.arrays = p.arrays_per_block > 0 ? p.arrays_per_block : std::max(1, 256 / l.width);
    }
    if (l.width * l.arrays > kMaxThreads) {
        throw NotSupported("KSPARSE: " + std::to_string(l.width * l.arrays) +
                           " threads per block exceed " + std::to_string(kMaxThreads));
    }
    const long long per_block = static_cast<long long>(l.arrays) * l.rows_per_array;
    l.grid = dim3(
        static_cast<unsigned>(std::max<long long>(1, (block_rows + per_block - 1) / per_block)));
    l.block = dim3(static_cast<unsigned>(l.width), static_cast<unsigned>(l.arrays));
    l.shared = sizeof(double) * static_cast<size_t>(l.width) * l.arrays;
    return l;
}

void ksparse_launch(const KsparseLaunch& l, const KsparseView& A, const double* x, double* y,
                    cudaStream_t s) {
    if (A.block_rows == 0) return;
    if (l.kernel == KsparseKernel::k2) {
        ksparse_k2<<<l.grid, l.block, l.shared, s>>>(A, x, y, l.rows_per_array, l.groups);
    } else {
        switch (A.bs) {
            case 1:
                ksparse_k1<1><<<l.grid, l.block, l.shared, s>>>(A, x, y, l.rows_per_array);
                break;
            case 2:
                ksparse_k1<2><<<l.grid, l.block, l.shared, s>>>(A, x, y, l.rows_per_array);
                break;
            case 3:
                ksparse_k1<3><<<l.grid, l.block, l.shared, s>>>(A, x, y, l.rows_per_array);
                break;
            case 4:
                ksparse_k1<4><<<l.grid, l.block, l.shared, s>>>(A, x, y, l.rows_per_array);
                break;
            default:
                ksparse_k1<5><<<l.grid, l.block, l.shared, s>>>(A, x, y, l.rows_per_array);
                break;
        }
    }
    HEPTANE_CUDA_CHECK(cudaGetLastError());
}

DeviceBsr::DeviceBsr(const Bsr& A, const KsparseParams& params)
    : launch_(ksparse_plan(A.block_rows, A.block_size, params)),
      row_ptr_(A.row_ptr),
      col_(A.col),
      val_(column_major_blocks(A)),
      block_rows_(A.block_rows),
      bs_(A.block_size) {}

void DeviceBsr::apply(const double* x, double* y, cudaStream_t stream) const {
    ksparse_launch(launch_, {row_ptr_.get(), col_.get(), val_.get(), block_rows_, bs_}, x, y,
                   stream);
}

/// Bsr's row-major blocks, each transposed to column-major.
std::vector<double> column_major_blocks(const Bsr& A) {
    const size_t bs = static_cast<size_t>(A.block_size), bb = bs * bs;
    std::vector<double> v(A.val.size());
    for (size_t p = 0; p < A.col.size(); ++p) {
        for (size_t r = 0; r < bs; ++r) {
            for (size_t c = 0; c < bs; ++c) v[p * bb + c * bs + r] = A.val[p * bb + r * bs + c];
        }
    }
    return v;
}

}  // namespace detail

std::vector<double> spmv_ksparse(const Bsr& A, const std::vector<double>& x,
                                 const KsparseParams& params) {
    using namespace detail;
    const size_t n = static_cast<size_t>(A.block_rows) * A.block_size;
    if (x.size() != static_cast<size_t>(A.block_cols) * A.block_size) {
        throw std::invalid_argument(
            "spmv_ksparse: x has " + std::to_string(x.size()) + " entries, expected " +
            std::to_string(static_cast<size_t>(A.block_cols) * A.block_size));
    }
    const DeviceBsr dev(A, params);
    Buffer<double> dx(x), dy(n);
    dev.apply(dx.get(), dy.get(), nullptr);
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    return dy.download();
}

}  // namespace heptane::gpu
