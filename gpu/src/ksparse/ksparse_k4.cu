// KSPARSE K4 (design decision 39, core/ksparse/chunked_bsr.hpp): one warp streams a chunk of
// whole block rows, bs 8, 16 and 32; the last segment of a split row to finish sums them. The
// host side of the chunked layout (DeviceBsr) is in ksparse.cu.
#include <cuda_runtime.h>

#include <string>

#include "core/base/errors.hpp"
#include "core/ksparse/chunked_bsr.hpp"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/ksparse/ksparse.cuh"

namespace heptane::gpu::detail {
namespace {

/// K4: threads per block at most (16 warps), so a thread may keep 128 registers.
constexpr int kK4MaxThreads = 512;

/// The last segment of split row t to finish (its y_hat rows written by this warp): y's
/// row = the sum of the row's segments' y_hat in order, as spmv_chunked adds them. The
/// segments are consecutive slots, one contiguous run of values: the warp loads 256 of them
/// at a time (8 a lane, independent), and lane r < BS takes its column's values left to
/// right from the lanes holding them (shuffles), so the sum waits on one memory latency a
/// stage, not one a segment. Values written by other blocks in this launch: loaded from L2.
template <int BS>
__device__ void sum_split_row(const K4View& A, const double* y_hat, double* y, int t) {
    constexpr int kStage = 8;  // loads a lane
    const int lane = threadIdx.x, r = lane % BS;
    const long long v0 = static_cast<long long>(__ldg(A.split_ptr + t)) * BS;
    const long long v1 = static_cast<long long>(__ldg(A.split_ptr + t + 1)) * BS;
    double acc = 0.0;
    for (long long first = v0; first < v1; first += 32 * kStage) {
        double v[kStage];
#pragma unroll
        for (int u = 0; u < kStage; ++u) {
            const long long i = first + 32 * u + lane;
            v[u] = i < v1 ? __ldcg(y_hat + i) : 0.0;
        }
#pragma unroll
        for (int u = 0; u < kStage; ++u) {
#pragma unroll
            for (int j = 0; j < 32 / BS; ++j) {
                const double w = __shfl_sync(0xffffffffu, v[u], j * BS + r);
                if (first + 32 * u + j * BS < v1) acc = __dadd_rn(acc, w);
            }
        }
    }
    if (lane < BS) y[static_cast<size_t>(__ldg(A.split_row + t)) * BS + lane] = acc;
}

/// K4 (design decision 39, core/ksparse/chunked_bsr.hpp): one warp per chunk of the chunked
/// layout, i.e. whole block rows of at most `chunk` blocks together, or one segment of a
/// longer row. The chunk's column-major values are one contiguous run: the warp reads it as
/// 32-value loads (lane l: row r = l mod BS, column slot j = l / BS of 32 / BS), U of them
/// and their x entries in flight per lane, the next U loaded while the current ones are
/// multiplied; the chunk's column indices and row starts are staged in the warp's shared
/// memory first, so x needs no dependent global load. A block's slot sums meet in a butterfly over
/// the lanes of the same row, then go to the row's accumulator; a finished row is written by lanes
/// 0 .. BS - 1 (a segment's to y_hat, summed by sum_split_row). Explicit fma and
/// round-to-nearest adds: the bits of spmv_chunked.
template <int BS, int U>
__global__ void __launch_bounds__(kK4MaxThreads)
    ksparse_k4(K4View A, const double* __restrict__ x, double* __restrict__ y,
               double* __restrict__ y_hat, const int* skip) {
    if (skipped(skip)) return;
    constexpr int kBB = BS * BS;
    constexpr int kSlots = 32 / BS;
    constexpr int kLoadsPerBlock = kBB / 32;
    extern __shared__ int k4_shared[];  // per warp: chunk column indices, chunk + 1 row starts
    const int lane = threadIdx.x;
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y;
    if (k >= A.chunks) return;  // the whole warp
    int* cols = k4_shared + static_cast<size_t>(2 * A.chunk + 1) * threadIdx.y;
    int* start = cols + A.chunk;
    const int p0 = __ldg(A.block_ptr + k), p1 = __ldg(A.block_ptr + k + 1);
    const int row0 = __ldg(A.first_row + k), rows = __ldg(A.rows + k);
    const int slot = __ldg(A.slot + k);
    const int blocks = p1 - p0;
    for (int i = lane; i < blocks; i += 32) cols[i] = __ldg(A.col + p0 + i);
    for (int i = lane; i <= rows; i += 32) {
        start[i] = min(max(__ldg(A.row_ptr + row0 + i), p0), p1) - p0;
    }
    __syncwarp();
    const int r = lane % BS, j = lane / BS;
    double* out =
        slot < 0 ? y + static_cast<size_t>(row0) * BS : y_hat + static_cast<size_t>(slot) * BS;
    int row = 0;
    double acc = 0.0;
    // Writes every row that ends before block b (empty rows as 0) and moves past it.
    auto finish_rows_before = [&](int b) {
        while (row < rows && start[row + 1] <= b) {
            if (lane < BS) out[static_cast<size_t>(row) * BS + r] = acc;
            acc = 0.0;
            ++row;
        }
    };
    finish_rows_before(0);
    const long long loads = static_cast<long long>(blocks) * kLoadsPerBlock;
    const double* v = A.val + static_cast<size_t>(p0) * kBB + lane;
    // Batch `first`: U values and their x entries, loaded together one batch ahead of their
    // use (x's addresses come from the shared column indices, not from global memory).
    double a[U], xv[U];
    auto load = [&](long long first) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long q = first + u;
            a[u] = 0.0;
            xv[u] = 0.0;
            if (q < loads) {
                const int b = static_cast<int>(q / kLoadsPerBlock);
                const int c = static_cast<int>(q % kLoadsPerBlock) * kSlots + j;
                a[u] = __ldg(v + static_cast<size_t>(q) * 32);
                xv[u] = __ldg(x + static_cast<size_t>(cols[b]) * BS + c);
            }
        }
    };
    load(0);
    double s = 0.0;
    for (long long first = 0; first < loads; first += U) {
        double ca[U], cx[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            ca[u] = a[u];
            cx[u] = xv[u];
        }
        if (first + U < loads) load(first + U);
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long q = first + u;
            if (q < loads) {
                s = __fma_rn(ca[u], cx[u], s);
                if ((q + 1) % kLoadsPerBlock == 0) {  // a block done: the same q for all lanes
#pragma unroll
                    for (int off = BS; off < 32; off *= 2) {
                        s = __dadd_rn(s, __shfl_xor_sync(0xffffffffu, s, off));
                    }
                    acc = __dadd_rn(acc, s);
                    s = 0.0;
                    finish_rows_before(static_cast<int>(q / kLoadsPerBlock) + 1);
                }
            }
        }
    }
    finish_rows_before(blocks);
    if (slot < 0) return;
    // A split row's segment: the last of its segments to finish sums them (the counter's
    // release after this warp's y_hat writes, its acquire before the loads; the last resets
    // it for the next product).
    __threadfence();
    __syncwarp();
    const int t = __ldg(A.slot_split + slot);
    const unsigned segments =
        static_cast<unsigned>(__ldg(A.split_ptr + t + 1) - __ldg(A.split_ptr + t));
    unsigned last = 0;
    if (lane == 0) last = atomicAdd(A.arrivals + t, 1u) == segments - 1 ? 1u : 0u;
    if (__shfl_sync(0xffffffffu, last, 0) == 0) return;
    __threadfence();
    sum_split_row<BS>(A, y_hat, y, t);
    if (lane == 0) A.arrivals[t] = 0;
}

/// The K4 instantiation for bs (8, 16, 32) and U loads in flight per lane (4, 8).
template <int BS>
const void* k4_function_of(int u) {
    return u == 4 ? reinterpret_cast<const void*>(ksparse_k4<BS, 4>)
                  : reinterpret_cast<const void*>(ksparse_k4<BS, 8>);
}

const void* k4_function(int bs, int u) {
    switch (bs) {
        case 8:
            return k4_function_of<8>(u);
        case 16:
            return k4_function_of<16>(u);
        default:
            return k4_function_of<32>(u);
    }
}

}  // namespace

/// K4: warps of 32 lanes (N_ta per block), ept = U loads in flight per lane, lambda = the
/// chunk length in blocks (its column indices and row starts fill the warp's shared memory).
void plan_k4(int bs, KsparseLaunch& l) {
    KsparseParams& p = l.params;
    if (!k4_takes(bs))
        ksparse_refuse("K4 takes block sizes 8, 16 and 32, not " + std::to_string(bs));
    if (p.balance == KsparseBalance::off) {
        ksparse_refuse(
            "K4 always splits the rows longer than its chunk (lambda blocks): balance off "
            "is not one of its layouts");
    }
    if (p.arrays_per_block <= 0) p.arrays_per_block = 8;
    if (p.ept <= 0) p.ept = 8;
    if (p.lambda <= 0) p.lambda = k4_default_chunk(bs, 0);  // callers resolve it per matrix
    if (p.ept != 4 && p.ept != 8) {
        ksparse_refuse("K4 takes ept (loads in flight per lane) 4 or 8, not " +
                       std::to_string(p.ept));
    }
    if (32 * p.arrays_per_block > kK4MaxThreads) {
        ksparse_refuse("K4 takes at most " + std::to_string(kK4MaxThreads / 32) +
                       " warps per block (N_ta), not " + std::to_string(p.arrays_per_block));
    }
    p.rows_per_array = 1;
    p.groups = 0;
    p.nb = 0;
    l.width = 32;
    l.ept_max = p.ept;
    l.function = k4_function(bs, p.ept);
    l.block = dim3(32, static_cast<unsigned>(p.arrays_per_block));
    l.shared = sizeof(int) * static_cast<size_t>(2 * p.lambda + 1) * p.arrays_per_block;
    if (l.shared > 48 * 1024) {
        ksparse_refuse(describe(p) + ": " + std::to_string(l.shared) +
                       " bytes of shared memory per block (chunk indices); at most 49152");
    }
}

void k4_apply(const KsparseLaunch& l, const K4View& A, const double* x, double* y, double* y_hat,
              cudaStream_t stream, const int* skip) {
    K4View view = A;
    void* args[] = {&view, &x, &y, &y_hat, &skip};
    HEPTANE_CUDA_CHECK(cudaLaunchKernel(l.function, l.grid, l.block, args, l.shared, stream));
}

}  // namespace heptane::gpu::detail
