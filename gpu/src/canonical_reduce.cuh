#pragma once
/// @file Device side of the canonical reduction (core/canonical.hpp): one block of kLanes
/// threads per chunk of kReduceChunk entries, thread l summing entries l, l + kLanes, ... of
/// its chunk in order, the lanes folded by the same binary tree as canonical::fold_lanes,
/// and the chunk sums added in chunk order by the block that finishes last.
#include <cuda_runtime.h>

#include "core/canonical.hpp"

namespace heptane::gpu::detail {

constexpr int kLanes = canonical::kLanes;
constexpr int kLaneTerms = canonical::kLaneTerms;
constexpr long long kChunk = canonical::kReduceChunk;

/// Chunks (= blocks) for a reduction over n entries.
inline unsigned reduction_blocks(long long n) {
    return static_cast<unsigned>((n + kChunk - 1) / kChunk > 0 ? (n + kChunk - 1) / kChunk : 1);
}

/// Index of term j of this thread's lane in this block's chunk.
__device__ __forceinline__ long long lane_index(int j) {
    return static_cast<long long>(blockIdx.x) * kChunk + threadIdx.x +
           static_cast<long long>(j) * kLanes;
}

/// Folds one value per thread (the lane sums) in the canonical tree; thread 0 gets the sum.
__device__ __forceinline__ double fold_block(double lane, double* shm) {
    shm[threadIdx.x] = lane;
    __syncthreads();
#pragma unroll
    for (int w = kLanes / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            shm[threadIdx.x] = canonical::add(shm[threadIdx.x], shm[threadIdx.x + w]);
        __syncthreads();
    }
    const double total = shm[0];
    __syncthreads();  // shm may be reused by the caller
    return total;
}

/// Writes this block's N chunk sums to partial[q][blockIdx.x]; in the block that finishes
/// last, thread 0 gets the N totals (chunk sums added in order) and true is returned to
/// every thread of that block. Release/acquire: each block's partials are written, then a
/// __threadfence() orders them before its atomicAdd on `counter`; the last block reads
/// them from L2 (__ldcg), bypassing its possibly stale L1. The counter is reset for the
/// next kernel on the stream.
template <int N>
__device__ bool finish_chunks(const double (&lane)[N], double* const (&partial)[N],
                              unsigned* counter, double (&total)[N]) {
    __shared__ double shm[kLanes];
    __shared__ bool last;
#pragma unroll
    for (int q = 0; q < N; ++q) {
        const double sum = fold_block(lane[q], shm);
        if (threadIdx.x == 0) partial[q][blockIdx.x] = sum;
    }
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return false;
    __threadfence();
    // The chunk sums, in order: the whole block stages them through shared memory (coalesced
    // L2 reads) and thread 0 adds them sequentially, kLanes at a time.
#pragma unroll
    for (int q = 0; q < N; ++q) {
        double s = 0.0;
        for (unsigned c0 = 0; c0 < gridDim.x; c0 += kLanes) {
            const unsigned c = c0 + threadIdx.x;
            shm[threadIdx.x] = c < gridDim.x ? __ldcg(partial[q] + c) : 0.0;
            __syncthreads();
            if (threadIdx.x == 0) {
                const unsigned batch = min(static_cast<unsigned>(kLanes), gridDim.x - c0);
                for (unsigned t = 0; t < batch; ++t) s = canonical::add(s, shm[t]);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) total[q] = s;
    }
    if (threadIdx.x == 0) *counter = 0;
    return true;
}

}  // namespace heptane::gpu::detail
