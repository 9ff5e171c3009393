// KSPARSE block-sparse SpMV (seed 001, sections 4-5): kernels K1 (bs 1-5), K2 (bs 2-128) and
// K3 (bs 2-128, meant for bs >= 45), and the balanced layout of section 5.5 with its
// segmented reduction. See gpu/ksparse.hpp. The blocks live column-major on the device:
// element (r, c) of block p at val[p bs^2 + c bs + r].
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/ksparse/balanced_bsr.hpp"
#include "core/ksparse/chunked_bsr.hpp"
#include "core/ksparse/ksparse_tuning.hpp"
#include "gpu/ksparse.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/ksparse/ksparse.cuh"

namespace heptane::gpu {
namespace detail {

void ksparse_refuse(const std::string& what) { throw NotSupported("KSPARSE " + what); }

namespace {

constexpr int kMaxBlockSize = 128;
constexpr int kMaxThreads = 1024;
/// K1: blocks in flight per lane (the double buffering of section 4.2, four deep).
constexpr int kK1Depth = 4;
/// K2: the most columns of a block one thread keeps in registers (ept_max, section 5.3).
constexpr int kK2MaxEpt = 16;

/// K1 (seed 001, section 5.2): a thread array is a warp truncated to kPerLoad whole blocks
/// (kPerLoad = floor(32 / bs^2)), so one warp load covers kPerLoad consecutive blocks of a
/// block row; lane l holds element e = l mod bs^2 of its block, i.e. row e mod bs, column
/// e / bs, and sums its products over the block row. Each lane issues kK1Depth such loads
/// at once (predicated at the row's end), one batch ahead of their use, so a row of L
/// blocks costs about L / (kPerLoad kK1Depth) + 2 memory latencies. The rows are then reduced
/// through the warp's shared memory (lanes l = r mod bs), with no block-wide synchronization:
/// thread arrays are independent. Each array takes rows_per_array consecutive block rows.
template <int BS>
__global__ void __launch_bounds__(kMaxThreads)
    ksparse_k1(KsparseView A, const double* __restrict__ x, double* __restrict__ y,
               int rows_per_array, int /*groups*/, const int* skip) {
    if (skipped(skip)) return;
    constexpr int kBB = BS * BS;
    constexpr int kPerLoad = 32 / kBB;
    constexpr int kActive = kPerLoad * kBB;
    extern __shared__ double k1_red[];  // [arrays][32]
    double* red = k1_red + 32 * threadIdx.y;
    const int lane = threadIdx.x;
    const int b = lane / kBB, e = lane % kBB, c = e / BS;
    const long long first =
        (static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y) * rows_per_array;
    const long long last = std::min<long long>(first + rows_per_array, A.rows);
    for (long long br = first; br < last; ++br) {
        double sum = 0.0;
        if (lane < kActive) {
            const int end = __ldg(A.row_ptr + br + 1);
            // Batch i: blocks p + u kPerLoad, u < kK1Depth. Its values and column indices are
            // loaded one batch ahead (double buffering), so an iteration waits for one
            // latency (the x entries of batch i and the indices and values of batch i + 1 are
            // in flight together), not three.
            int cols[kK1Depth];
            double a[kK1Depth];
            auto load = [&](int p) {
#pragma unroll
                for (int u = 0; u < kK1Depth; ++u) {
                    const int q = p + u * kPerLoad;
                    cols[u] = q < end ? __ldg(A.col + q) : -1;
                    a[u] = q < end ? __ldg(A.val + static_cast<size_t>(q) * kBB + e) : 0.0;
                }
            };
            int p = __ldg(A.row_ptr + br) + b;
            load(p);
            for (; p < end; p += kK1Depth * kPerLoad) {
                double xv[kK1Depth], ca[kK1Depth];
#pragma unroll
                for (int u = 0; u < kK1Depth; ++u) {
                    xv[u] = cols[u] >= 0 ? __ldg(x + static_cast<size_t>(cols[u]) * BS + c) : 0.0;
                    ca[u] = a[u];
                }
                load(p + kK1Depth * kPerLoad);
#pragma unroll
                for (int u = 0; u < kK1Depth; ++u) sum += ca[u] * xv[u];
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
/// time; thread (r, g) keeps row r and the columns g, g + N_tg, ... of the block in
/// registers (ept = ceil((bs - g) / N_tg) of them, at most EPT; the paper's ept_max and
/// threshold split, with the longer groups first), so for a fixed column the bs threads of
/// a group read consecutive addresses; its ept loads are issued together (ILP, section
/// 4.3). Double buffering (section 4.2) for EPT <= 4: the next block's values and x entries
/// are loaded before the current block is multiplied, and its column index one block
/// earlier still; wider threads (EPT 8, 16) already have 8-16 loads in flight and would
/// double their registers. The groups' row sums are reduced through shared memory at the
/// end of each block row; every array of a thread block runs the same number of steps (the
/// block barriers of arrays spanning several warps).
template <int EPT>
__global__ void ksparse_k2(KsparseView A, const double* __restrict__ x, double* __restrict__ y,
                           int rows_per_array, int groups, const int* skip) {
    if (skipped(skip)) return;
    constexpr bool kDoubleBuffer = EPT <= 4;
    extern __shared__ double k2_red[];  // [arrays][bs groups]
    const int bs = A.bs;
    const int width = bs * groups;
    double* red = k2_red + static_cast<size_t>(width) * threadIdx.y;
    const int r = threadIdx.x % bs, g = threadIdx.x / bs;
    const int ept = (bs - g + groups - 1) / groups;
    const size_t bb = static_cast<size_t>(bs) * bs;
    const long long first =
        (static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y) * rows_per_array;
    double a[EPT], xv[EPT];
    auto load = [&](int p, int col) {
        const double* block = A.val + static_cast<size_t>(p) * bb + r;
        const double* xb = x + static_cast<size_t>(col) * bs;
#pragma unroll
        for (int j = 0; j < EPT; ++j) {
            const int cc = g + j * groups;
            a[j] = j < ept ? __ldg(block + static_cast<size_t>(cc) * bs) : 0.0;
            xv[j] = j < ept ? __ldg(xb + cc) : 0.0;
        }
    };
    for (int k = 0; k < rows_per_array; ++k) {
        const long long br = first + k;
        const bool present = br < A.rows;
        double sum = 0.0;
        if (present) {
            int p = __ldg(A.row_ptr + br);
            const int end = __ldg(A.row_ptr + br + 1);
            if constexpr (kDoubleBuffer) {
                if (p < end) {
                    load(p, __ldg(A.col + p));
                    int col_next = p + 1 < end ? __ldg(A.col + p + 1) : 0;
                    for (; p < end; ++p) {
                        double ca[EPT], cx[EPT];
#pragma unroll
                        for (int j = 0; j < EPT; ++j) {
                            ca[j] = a[j];
                            cx[j] = xv[j];
                        }
                        if (p + 1 < end) {
                            load(p + 1, col_next);
                            col_next = p + 2 < end ? __ldg(A.col + p + 2) : 0;
                        }
#pragma unroll
                        for (int j = 0; j < EPT; ++j) sum += ca[j] * cx[j];
                    }
                }
            } else {
                for (; p < end; ++p) {
                    load(p, __ldg(A.col + p));
#pragma unroll
                    for (int j = 0; j < EPT; ++j) sum += a[j] * xv[j];
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

/// K3 (seed 001, section 5.4): ceil(bs / nb) thread blocks per block row (grid.y), each a
/// single thread array of nb x N_tg threads (block (nb, N_tg)) owning rows
/// blockIdx.y nb ... + nb - 1 of the block row. A block is swept in working sets of
/// nb x (N_tg EPT): thread (r, g) multiplies columns c0 + g + j N_tg, j < EPT, its EPT
/// loads issued together. Like a dense GEMV over the block row's blocks; the groups are
/// reduced through shared memory at the end.
template <int EPT>
__global__ void ksparse_k3(KsparseView A, const double* __restrict__ x, double* __restrict__ y,
                           int /*rows_per_array*/, int /*groups*/, const int* skip) {
    if (skipped(skip)) return;
    extern __shared__ double k3_red[];  // [N_tg][nb]
    const int bs = A.bs;
    const int nb = blockDim.x, groups = blockDim.y;
    const int g = threadIdx.y;
    const int row = blockIdx.y * nb + threadIdx.x;
    const bool row_ok = row < bs;
    const long long br = blockIdx.x;
    const size_t bb = static_cast<size_t>(bs) * bs;
    const int w = groups * EPT;
    double sum = 0.0;
    const int end = __ldg(A.row_ptr + br + 1);
    for (int p = __ldg(A.row_ptr + br); p < end; ++p) {
        const double* block = A.val + static_cast<size_t>(p) * bb + row;
        const double* xb = x + static_cast<size_t>(__ldg(A.col + p)) * bs;
#pragma unroll 2
        for (int c0 = 0; c0 < bs; c0 += w) {
            double a[EPT], xv[EPT];
#pragma unroll
            for (int j = 0; j < EPT; ++j) {
                const int cc = c0 + g + j * groups;
                const bool ok = row_ok && cc < bs;
                a[j] = ok ? __ldg(block + static_cast<size_t>(cc) * bs) : 0.0;
                xv[j] = ok ? __ldg(xb + cc) : 0.0;
            }
#pragma unroll
            for (int j = 0; j < EPT; ++j) sum += a[j] * xv[j];
        }
    }
    k3_red[g * nb + threadIdx.x] = sum;
    __syncthreads();
    if (g == 0 && row_ok) {
        double t = 0.0;
        for (int j = 0; j < groups; ++j) t += k3_red[j * nb + threadIdx.x];
        y[br * bs + row] = t;
    }
}

/// Balanced layout (section 5.5): y[i bs + r] = sum of y_hat over row i's segments
/// seg_ptr[i] .. seg_ptr[i + 1] - 1 (none for an empty row: 0).
__global__ void ksparse_reduce_segments(const int* __restrict__ seg_ptr,
                                        const double* __restrict__ y_hat, double* __restrict__ y,
                                        int rows, int bs, const int* skip) {
    if (skipped(skip)) return;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= static_cast<long long>(rows) * bs) return;
    const long long row = i / bs;
    const int r = static_cast<int>(i - row * bs);
    const int end = __ldg(seg_ptr + row + 1);
    double t = 0.0;
    for (int s = __ldg(seg_ptr + row); s < end; ++s)
        t += __ldg(y_hat + static_cast<size_t>(s) * bs + r);
    y[i] = t;
}

/// The smallest of 1, 2, 4, ... >= n.
int pow2_at_least(int n) {
    int p = 1;
    while (p < n) p *= 2;
    return p;
}

/// The K1 instantiation for bs, the K2 one that keeps `ept` columns per thread, and K3's
/// for its ept.
const void* k1_function(int bs) {
    switch (bs) {
        case 1:
            return reinterpret_cast<const void*>(ksparse_k1<1>);
        case 2:
            return reinterpret_cast<const void*>(ksparse_k1<2>);
        case 3:
            return reinterpret_cast<const void*>(ksparse_k1<3>);
        case 4:
            return reinterpret_cast<const void*>(ksparse_k1<4>);
        default:
            return reinterpret_cast<const void*>(ksparse_k1<5>);
    }
}

const void* k2_function(int ept) {
    switch (pow2_at_least(ept)) {
        case 1:
            return reinterpret_cast<const void*>(ksparse_k2<1>);
        case 2:
            return reinterpret_cast<const void*>(ksparse_k2<2>);
        case 4:
            return reinterpret_cast<const void*>(ksparse_k2<4>);
        case 8:
            return reinterpret_cast<const void*>(ksparse_k2<8>);
        default:
            return reinterpret_cast<const void*>(ksparse_k2<16>);
    }
}

const void* k3_function(int ept) {
    switch (ept) {
        case 1:
            return reinterpret_cast<const void*>(ksparse_k3<1>);
        case 2:
            return reinterpret_cast<const void*>(ksparse_k3<2>);
        case 4:
            return reinterpret_cast<const void*>(ksparse_k3<4>);
        default:
            return reinterpret_cast<const void*>(ksparse_k3<8>);
    }
}

/// The most threads a block of `kernel` can have (its registers per thread decide).
int max_threads(const void* kernel) {
    cudaFuncAttributes a{};
    HEPTANE_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
    return a.maxThreadsPerBlock;
}

void plan_k1(int bs, KsparseLaunch& l) {
    KsparseParams& p = l.params;
    if (bs < 1 || bs > 5) ksparse_refuse("K1 takes block sizes 1 to 5, not " + std::to_string(bs));
    if (p.rows_per_array <= 0) p.rows_per_array = 1;
    if (p.arrays_per_block <= 0) p.arrays_per_block = 4;
    l.width = 32;
    l.function = k1_function(bs);
    l.block = dim3(32, static_cast<unsigned>(p.arrays_per_block));
    l.shared = sizeof(double) * 32 * static_cast<size_t>(p.arrays_per_block);
}

void plan_k2(int bs, KsparseLaunch& l) {
    KsparseParams& p = l.params;
    if (bs < 2 || bs > kMaxBlockSize) {
        ksparse_refuse("K2 takes block sizes 2 to " + std::to_string(kMaxBlockSize) + ", not " +
                       std::to_string(bs));
    }
    if (p.groups <= 0) {
        // About 4 columns per thread (double buffered), else the widest launchable array.
        const int fewest = (bs + kK2MaxEpt - 1) / kK2MaxEpt;
        for (int g = std::min(bs, std::max((bs + 3) / 4, fewest)); g >= fewest; --g) {
            if (bs * g <= max_threads(k2_function((bs + g - 1) / g))) {
                p.groups = g;
                break;
            }
        }
        if (p.groups <= 0) {
            ksparse_refuse("K2 cannot hold a " + std::to_string(bs) + " x " + std::to_string(bs) +
                           " block in one thread array's registers: use K3");
        }
    }
    if (p.groups > bs)
        ksparse_refuse("K2 needs N_tg <= bs (Table I), not " + std::to_string(p.groups));
    l.ept_max = (bs + p.groups - 1) / p.groups;
    if (l.ept_max > kK2MaxEpt) {
        ksparse_refuse("K2 keeps at most " + std::to_string(kK2MaxEpt) +
                       " columns per thread: bs " + std::to_string(bs) +
                       " needs N_tg >= " + std::to_string((bs + kK2MaxEpt - 1) / kK2MaxEpt));
    }
    l.width = bs * p.groups;
    l.function = k2_function(l.ept_max);
    const int limit = max_threads(l.function);
    if (p.arrays_per_block <= 0) p.arrays_per_block = std::max(1, std::min(256, limit) / l.width);
    if (p.rows_per_array <= 0) p.rows_per_array = 1;
    if (l.width * p.arrays_per_block > limit) {
        ksparse_refuse(describe(p) + ": " + std::to_string(l.width * p.arrays_per_block) +
                       " threads per block; this K2 (ept " + std::to_string(l.ept_max) +
                       ") launches at most " + std::to_string(limit));
    }
    l.block = dim3(static_cast<unsigned>(l.width), static_cast<unsigned>(p.arrays_per_block));
    l.shared = sizeof(double) * static_cast<size_t>(l.width) * p.arrays_per_block;
}

void plan_k3(int rows, int bs, KsparseLaunch& l) {
    KsparseParams& p = l.params;
    if (bs < 2 || bs > kMaxBlockSize) {
        ksparse_refuse("K3 takes block sizes 2 to " + std::to_string(kMaxBlockSize) + ", not " +
                       std::to_string(bs));
    }
    if (p.nb <= 0) p.nb = std::min(bs, 64);
    if (p.ept <= 0) p.ept = 4;
    if (p.groups <= 0) p.groups = std::max(1, std::min(8, 256 / p.nb));
    if (p.ept != 1 && p.ept != 2 && p.ept != 4 && p.ept != 8) {
        ksparse_refuse("K3 takes ept 1, 2, 4 or 8, not " + std::to_string(p.ept));
    }
    l.ept_max = p.ept;
    l.width = p.nb * p.groups;
    l.function = k3_function(p.ept);
    const int limit = max_threads(l.function);
    if (l.width > limit) {
        ksparse_refuse(describe(p) + ": " + std::to_string(l.width) +
                       " threads per block; this K3 launches at most " + std::to_string(limit));
    }
    p.rows_per_array = 1;
    p.arrays_per_block = 1;
    l.block = dim3(static_cast<unsigned>(p.nb), static_cast<unsigned>(p.groups));
    l.grid = dim3(static_cast<unsigned>(std::max(1, rows)),
                  static_cast<unsigned>((bs + p.nb - 1) / p.nb));
    l.shared = sizeof(double) * static_cast<size_t>(l.width);
}

}  // namespace

KsparseLaunch ksparse_plan(int rows, int bs, const KsparseParams& params) {
    KsparseLaunch l;
    l.params = params;
    KsparseParams& p = l.params;
    if (p.kernel == KsparseKernel::automatic) p.kernel = ksparse_kernel_for(bs, p.balance);
    switch (p.kernel) {
        case KsparseKernel::k1:
            plan_k1(bs, l);
            break;
        case KsparseKernel::k2:
            plan_k2(bs, l);
            break;
        case KsparseKernel::k4:
            plan_k4(bs, l);
            break;
        default:
            plan_k3(rows, bs, l);
            break;
    }
    const long long threads = static_cast<long long>(l.block.x) * l.block.y;
    if (threads > kMaxThreads) {
        ksparse_refuse(describe(p) + ": " + std::to_string(threads) + " threads per block exceed " +
                       std::to_string(kMaxThreads));
    }
    if (p.kernel != KsparseKernel::k3) {
        const long long per_block = static_cast<long long>(p.arrays_per_block) * p.rows_per_array;
        l.grid =
            dim3(static_cast<unsigned>(std::max<long long>(1, (rows + per_block - 1) / per_block)));
    }
    return l;
}

void ksparse_launch(const KsparseLaunch& l, const KsparseView& A, const double* x, double* y,
                    cudaStream_t s, const int* skip) {
    if (l.params.kernel == KsparseKernel::k4)
        ksparse_refuse("K4 runs on its chunked layout (DeviceBsr)");
    if (A.rows == 0) return;
    // Every KSPARSE kernel but K4 takes (A, x, y, rows_per_array, groups, skip).
    KsparseView view = A;
    int rows_per_array = l.params.rows_per_array, groups = l.params.groups;
    void* args[] = {&view, &x, &y, &rows_per_array, &groups, &skip};
    HEPTANE_CUDA_CHECK(cudaLaunchKernel(l.function, l.grid, l.block, args, l.shared, s));
}

long long ksparse_parallel_rows(const KsparseLaunch& l) {
    int device = 0, sms = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&device));
    HEPTANE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const long long threads = static_cast<long long>(l.block.x) * l.block.y;
    const long long blocks_per_sm = std::max<long long>(1, std::min<long long>(32, 2048 / threads));
    const long long rows_per_block = l.params.kernel == KsparseKernel::k3
                                         ? 1
                                         : static_cast<long long>(l.params.arrays_per_block);
    const long long per_row = l.params.kernel == KsparseKernel::k3 ? l.grid.y : 1;
    return sms * blocks_per_sm * rows_per_block / per_row;
}

/// Bsr's row-major blocks, each transposed to column-major.
std::vector<double> column_major_blocks(const Bsr& A) {
    const size_t bs = static_cast<size_t>(A.block_size), bb = bs * bs;
    std::vector<double> v(A.val.size());
    const long long blocks = static_cast<long long>(A.col.size());
#pragma omp parallel for schedule(static)
    for (long long q = 0; q < blocks; ++q) {
        const size_t p = static_cast<size_t>(q);
        for (size_t r = 0; r < bs; ++r) {
            for (size_t c = 0; c < bs; ++c) v[p * bb + c * bs + r] = A.val[p * bb + r * bs + c];
        }
    }
    return v;
}

std::string device_name() {
    int device = 0;
    HEPTANE_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    HEPTANE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return prop.name;
}

KsparseParams tuned_params(const KsparseParams& r, int bs) {
    if (r.rows_per_array > 0 || r.arrays_per_block > 0 || r.groups > 0 || r.nb > 0 || r.ept > 0) {
        return r;
    }
    const TuningCache cache(TuningCache::default_path());
    const std::string device = device_name();
    std::optional<TunedEntry> best;
    for (KsparseKernel k :
         {KsparseKernel::k1, KsparseKernel::k2, KsparseKernel::k3, KsparseKernel::k4}) {
        if (r.kernel != KsparseKernel::automatic && k != r.kernel) continue;
        // K4 splits long rows by construction: not a choice when the request forbids that.
        if (k == KsparseKernel::k4 && r.balance == KsparseBalance::off) continue;
        const std::optional<TunedEntry> e = cache.find(device, k, bs);
        if (e && (!best || e->seconds < best->seconds)) best = e;
    }
    if (!best) return r;
    KsparseParams p = best->params;
    p.balance = r.balance;
    // K4's lambda is its tuned chunk length unless the request sets one.
    if (p.kernel != KsparseKernel::k4 || r.lambda > 0) p.lambda = r.lambda;
    return p;
}

namespace {

/// The plain launch over A's block rows and whether the balanced layout replaces it.
struct Layout {
    KsparseLaunch plain;
    bool balanced;
    int lambda;
};

/// lambda when the parameters leave it 0: the paper's 16, but for K1 at least the blocks a
/// warp loads in one batch (kPerLoad kK1Depth: 128 at bs 1, 32 at bs 2), so that a
/// segment still fills the warp.
int default_lambda(const KsparseLaunch& plain, int bs) {
    if (plain.params.kernel != KsparseKernel::k1) return kDefaultLambda;
    return std::max(kDefaultLambda, (32 / (bs * bs)) * kK1Depth);
}

Layout layout(const Bsr& A, const KsparseParams& params) {
    Layout l{ksparse_plan(A.block_rows, A.block_size, params), false, params.lambda};
    if (l.lambda <= 0) l.lambda = default_lambda(l.plain, A.block_size);
    KsparseParams p = params;
    p.lambda = l.lambda;
    l.balanced = use_balanced(A, p, ksparse_parallel_rows(l.plain));
    return l;
}

}  // namespace

DeviceBsr::DeviceBsr(const Bsr& A, const KsparseParams& params)
    : col_(A.col),
      val_(column_major_blocks(A)),
      block_rows_(A.block_rows),
      bs_(A.block_size),
      kernel_rows_(A.block_rows) {
    if (params.kernel == KsparseKernel::k4 ||
        (params.kernel == KsparseKernel::automatic &&
         ksparse_kernel_for(bs_, params.balance) == KsparseKernel::k4)) {
        KsparseParams p = params;
        p.kernel = KsparseKernel::k4;
        chunk(A, p);
        return;
    }
    const Layout l = layout(A, params);
    launch_ = l.plain;
    balanced_ = l.balanced;
    lambda_ = l.lambda;
    launch_.params.balance = KsparseBalance::off;
    if (!balanced_) {
        row_ptr_ = Buffer<int>(A.row_ptr);
        return;
    }
    const BalancedRows split = balance_rows(A, lambda_);
    kernel_rows_ = split.segments();
    launch_ = ksparse_plan(kernel_rows_, bs_, params);
    launch_.params.balance = KsparseBalance::on;
    launch_.params.lambda = lambda_;
    row_ptr_ = Buffer<int>(split.row_ptr);
    seg_ptr_ = Buffer<int>(split.seg_ptr);
    y_hat_ = Buffer<double>(static_cast<size_t>(kernel_rows_) * bs_);
}

void DeviceBsr::chunk(const Bsr& A, const KsparseParams& params) {
    KsparseParams p = params;
    if (p.lambda <= 0) p.lambda = k4_default_chunk(bs_, A.blocks());
    // The launch's parameters first (refusals before any upload), then the layout it needs.
    launch_ = ksparse_plan(0, bs_, p);
    const ChunkedRows c = chunk_rows(A, launch_.params.lambda);
    chunks_ = c.chunks();
    splits_ = static_cast<int>(c.split_row.size());
    launch_ = ksparse_plan(chunks_, bs_, p);
    launch_.params.balance = KsparseBalance::on;
    lambda_ = launch_.params.lambda;
    kernel_rows_ = chunks_;
    row_ptr_ = Buffer<int>(A.row_ptr);
    block_ptr_ = Buffer<int>(c.block_ptr);
    first_row_ = Buffer<int>(c.row);
    chunk_rows_ = Buffer<int>(c.rows);
    slot_ = Buffer<int>(c.slot);
    split_row_ = Buffer<int>(c.split_row);
    split_ptr_ = Buffer<int>(c.split_ptr);
    std::vector<int> slot_split(static_cast<size_t>(c.slots()));
    for (int t = 0; t < splits_; ++t) {
        for (int q = c.split_ptr[t]; q < c.split_ptr[t + 1]; ++q) slot_split[q] = t;
    }
    slot_split_ = Buffer<int>(slot_split);
    arrivals_ = Buffer<unsigned>(std::vector<unsigned>(static_cast<size_t>(splits_), 0u));
    y_hat_ = Buffer<double>(static_cast<size_t>(c.slots()) * bs_);
}

void DeviceBsr::update_values(const Bsr& A) {
    if (A.block_size != bs_ || A.block_rows != block_rows_ || A.col.size() != col_.size()) {
        throw std::invalid_argument("DeviceBsr::update_values: the matrix has another structure");
    }
    val_.upload(column_major_blocks(A));
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the host copy dies here
}

void DeviceBsr::apply(const double* x, double* y, cudaStream_t stream, const int* skip) const {
    if (launch_.params.kernel == KsparseKernel::k4) {
        if (chunks_ == 0) return;
        k4_apply(launch_,
                 {row_ptr_.get(), col_.get(), val_.get(), block_ptr_.get(), first_row_.get(),
                  chunk_rows_.get(), slot_.get(), slot_split_.get(), split_ptr_.get(),
                  split_row_.get(), arrivals_.get(), chunks_, launch_.params.lambda},
                 x, y, y_hat_.get(), stream, skip);
        return;
    }
    if (!balanced_) {
        ksparse_launch(launch_, {row_ptr_.get(), col_.get(), val_.get(), block_rows_, bs_}, x, y,
                       stream, skip);
        return;
    }
    ksparse_launch(launch_, {row_ptr_.get(), col_.get(), val_.get(), kernel_rows_, bs_}, x,
                   y_hat_.get(), stream, skip);
    const long long n = static_cast<long long>(block_rows_) * bs_;
    if (n == 0) return;
    constexpr int kThreads = 256;
    ksparse_reduce_segments<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0,
                              stream>>>(seg_ptr_.get(), y_hat_.get(), y, block_rows_, bs_, skip);
    HEPTANE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace detail

KsparseParams ksparse_resolved(const Bsr& A, const KsparseParams& params) {
    if (params.kernel == KsparseKernel::k4 ||
        (params.kernel == KsparseKernel::automatic &&
         ksparse_kernel_for(A.block_size, params.balance) == KsparseKernel::k4)) {
        KsparseParams q = params;
        q.kernel = KsparseKernel::k4;
        if (q.lambda <= 0) q.lambda = k4_default_chunk(A.block_size, A.blocks());
        KsparseParams p = detail::ksparse_plan(0, A.block_size, q).params;
        p.balance = KsparseBalance::on;
        return p;
    }
    const detail::Layout l = detail::layout(A, params);
    KsparseParams p = l.plain.params;
    p.balance = l.balanced ? KsparseBalance::on : KsparseBalance::off;
    p.lambda = l.balanced ? l.lambda : 0;
    return p;
}

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
    // Twice, y cleared in between: the second product is what a solver's later products get
    // (K4's split-row counters must be back at zero).
    dev.apply(dx.get(), dy.get(), nullptr);
    HEPTANE_CUDA_CHECK(cudaMemsetAsync(dy.get(), 0, n * sizeof(double), nullptr));
    dev.apply(dx.get(), dy.get(), nullptr);
    HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    return dy.download();
}

}  // namespace heptane::gpu
