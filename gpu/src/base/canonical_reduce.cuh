#pragma once
/// @file Device side of the canonical reduction (core/base/canonical.hpp): a thread sums one group
/// of kGroup consecutive terms left to right, a warp combines 32 consecutive groups by the
/// pairwise tree with shuffles, a block combines its warps' values, and the blocks' values are
/// combined by the same tree - every stage a subtree of the one canonical tree, so any grid
/// gives the reference's bits.
#include <cuda_runtime.h>

#include "core/base/canonical.hpp"

namespace heptane::gpu::detail {

constexpr int kGroup = canonical::kGroup;

/// Left-to-right sum of one group's terms; `started` is false until the first term.
struct GroupSum {
    double s = 0.0;
    bool started = false;
    __device__ void add(double term) {
        s = started ? canonical::add(s, term) : term;
        started = true;
    }
};

/// The pairwise tree over one node per lane: lane l holds node `node` (consecutive across the
/// warp, the warp's first node a multiple of 32) of a list whose first `count` nodes exist.
/// Lane 0 returns the warp's subtree. Every lane of the warp must call it.
__device__ __forceinline__ double warp_tree(double v, long long node, long long count) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
        const double other = __shfl_down_sync(0xffffffffu, v, off);
        if ((lane & (2 * off - 1)) == 0 && node + off < count) v = canonical::add(v, other);
    }
    return v;
}

/// One term per lane, lane l holding term `row` (32 consecutive terms starting at a multiple of
/// 32; terms >= n are absent): the groups of 4 lanes summed left to right, then the tree over
/// the warp's 8 groups. Lane 0 returns the warp's subtree. Every lane of the warp must call it.
__device__ __forceinline__ double warp_rows_tree(double term, long long row, long long n) {
    const int lane = threadIdx.x & 31;
    const double t1 = __shfl_down_sync(0xffffffffu, term, 1);
    const double t2 = __shfl_down_sync(0xffffffffu, term, 2);
    const double t3 = __shfl_down_sync(0xffffffffu, term, 3);
    double v = term;
    if (row + 1 < n) v = canonical::add(v, t1);
    if (row + 2 < n) v = canonical::add(v, t2);
    if (row + 3 < n) v = canonical::add(v, t3);
#pragma unroll
    for (int off = kGroup; off < 32; off *= 2) {
        const double other = __shfl_down_sync(0xffffffffu, v, off);
        if ((lane & (2 * off - 1)) == 0 && row + off < n) v = canonical::add(v, other);
    }
    return v;
}

/// The subtree of an aligned segment held in registers: r[i] is node first + i of a list whose
/// first `count` nodes exist, seg (a power of two <= N) nodes long. Level w adds node i + w
/// into node i when it exists (static indices only, so r stays in registers).
template <int N>
__device__ __forceinline__ double register_tree(double (&r)[N], long long seg, long long first,
                                                long long count) {
#pragma unroll
    for (int w = 1; w < N; w *= 2) {
#pragma unroll
        for (int i = 0; i + w < N; i += 2 * w) {
            if (i + w < seg && first + i + w < count) r[i] = canonical::add(r[i], r[i + w]);
        }
    }
    return r[0];
}

/// Segments up to this length are folded in registers by block_tree.
constexpr int kRegisterSegment = 8;

/// The pairwise tree over the values load(0) .. load(count - 1), by the whole block (blockDim
/// a multiple of 32, at most 1024): thread t folds an aligned segment of a power-of-two
/// length, the warps fold 32 segments each, warp 0 folds the warps. Every thread gets the
/// root (0.0 when count is 0). `scratch` holds 33 doubles of shared memory.
template <class Load>
__device__ double block_tree(Load load, long long count, double* scratch) {
    const int t = threadIdx.x;
    long long seg = 1;
    while (seg * blockDim.x < count) seg *= 2;
    const long long first = t * seg;
    double v = 0.0;
    if (seg <= kRegisterSegment) {
        double r[kRegisterSegment];
#pragma unroll
        for (int i = 0; i < kRegisterSegment; ++i) {
            r[i] = (i < seg && first + i < count) ? load(first + i) : 0.0;
        }
        v = register_tree(r, seg, first, count);
    } else if (first < count) {
        v = canonical::pairwise_sum([&](long long i) { return load(first + i); },
                                    count - first < seg ? count - first : seg);
    }
    const long long segments = (count + seg - 1) / seg;
    v = warp_tree(v, t, segments);
    if ((t & 31) == 0) scratch[t >> 5] = v;
    __syncthreads();
    if (t < 32) {
        const long long warps = (segments + 31) / 32;
        double u = t < warps ? scratch[t] : 0.0;
        u = warp_tree(u, t, warps);
        if (t == 0) scratch[32] = u;
    }
    __syncthreads();
    const double root = scratch[32];
    __syncthreads();  // scratch may be reused
    return root;
}

// ---- the multi-kernel solvers' reductions: one block of kChunkThreads per chunk ----

constexpr int kChunkThreads = 256;
constexpr int kPasses = 4;                                   // groups per thread
constexpr long long kChunkGroups = kChunkThreads * kPasses;  // 1024: an aligned subtree
constexpr long long kChunk = kChunkGroups * kGroup;          // entries per block
constexpr int kChunkWarps = kPasses * (kChunkThreads / 32);  // warp values per chunk

/// Blocks (= chunks) for a reduction over n entries.
inline unsigned reduction_blocks(long long n) {
    return static_cast<unsigned>((n + kChunk - 1) / kChunk > 0 ? (n + kChunk - 1) / kChunk : 1);
}

/// Calls f(i) for the entries i < n of the group this thread sums in pass p, in order.
template <class F>
__device__ __forceinline__ void for_group(int p, long long n, F f);

/// The group this thread sums in pass p of its block's chunk (entries kGroup g ...).
__device__ __forceinline__ long long chunk_group(int p) {
    return static_cast<long long>(blockIdx.x) * kChunkGroups + p * kChunkThreads + threadIdx.x;
}

template <class F>
__device__ __forceinline__ void for_group(int p, long long n, F f) {
    const long long i0 = chunk_group(p) * kGroup;
#pragma unroll
    for (int q = 0; q < kGroup; ++q) {
        if (i0 + q < n) f(i0 + q);
    }
}

/// Rows of 32 entries a warp takes in one pass: its 32 groups (kGroup rows).
constexpr int kWarpRows = kGroup;
static_assert(kGroup == 4 && kWarpRows == 4,
              "warp_rows_tree sums groups of 4 lanes; pass_rows combines 4 rows");

/// The entry lane l of a warp takes in row q of pass p: the warp's entries of pass p are
/// chunk_group's groups of its lanes (32 groups, 128 entries), read a row of 32 consecutive
/// entries at a time (coalesced: one 256-byte segment a load, where for_group's lanes read 4
/// entries 32 bytes apart each, 3 of every 4 bytes of a sector left to the L1; design
/// decision 54).
__device__ __forceinline__ long long chunk_row(int p, int q) {
    const long long first_group =
        static_cast<long long>(blockIdx.x) * kChunkGroups + p * kChunkThreads + (threadIdx.x & ~31);
    return first_group * kGroup + 32 * q + (threadIdx.x & 31);
}

/// Collects a chunk's N sums pass by pass, then combines the chunks: in the block that
/// finishes last, every thread gets the N totals and finish() returns true.
template <int N>
class ChunkReduction {
  public:
    /// `warps` is shared memory of N x kChunkWarps doubles; n the vector length.
    __device__ ChunkReduction(double (*warps)[kChunkWarps], long long n)
        : warps_(warps), n_(n), groups_((n + kGroup - 1) / kGroup) {}

    /// The group sums of pass p (every thread of the block calls it).
    __device__ void pass(int p, const GroupSum (&g)[N]) {
        const long long node = chunk_group(p);
#pragma unroll
        for (int q = 0; q < N; ++q) {
            const double v = warp_tree(g[q].s, node, groups_);
            if ((threadIdx.x & 31) == 0)
                warps_[q][p * (kChunkThreads / 32) + (threadIdx.x >> 5)] = v;
        }
    }

    /// The same from one term per lane and row (chunk_row's layout): each row's 8
    /// groups summed by warp_rows_tree, then the warp's 4 row subtrees combined as warp_tree
    /// combines its nodes 8 and 16 apart, so the warp's value is pass()'s, bit for bit.
    __device__ void pass_rows(int p, const double (&t)[kWarpRows][N]) {
        const long long first = chunk_group(p) - (threadIdx.x & 31);  // the warp's first group
#pragma unroll
        for (int q = 0; q < N; ++q) {
            double s[kWarpRows];
#pragma unroll
            for (int r = 0; r < kWarpRows; ++r) {
                s[r] = warp_rows_tree(t[r][q], chunk_row(p, r), n_);
            }
            // nodes first + 8 r: rows 1 into 0 and 3 into 2, then 2 into 0, where they exist
            if (first + 8 < groups_) s[0] = canonical::add(s[0], s[1]);
            if (first + 24 < groups_) s[2] = canonical::add(s[2], s[3]);
            if (first + 16 < groups_) s[0] = canonical::add(s[0], s[2]);
            if ((threadIdx.x & 31) == 0)
                warps_[q][p * (kChunkThreads / 32) + (threadIdx.x >> 5)] = s[0];
        }
    }

    /// This chunk's N sums, in every thread (every thread of the block calls it after the
    /// last pass); `scratch` holds 33 doubles of shared memory.
    __device__ void chunk_sums(double (&sums)[N], double* scratch) {
        __syncthreads();
        const long long chunk_first = static_cast<long long>(blockIdx.x) * kChunkGroups;
        const long long present = (groups_ - chunk_first + 31) / 32;  // warp values that exist
        const long long count = present < kChunkWarps ? present : kChunkWarps;
#pragma unroll
        for (int q = 0; q < N; ++q) {
            const double* w = warps_[q];
            sums[q] = block_tree([w](long long i) { return w[i]; }, count, scratch);
        }
    }

    /// Writes this chunk's N sums to partial[q][blockIdx.x]; the block that finishes last
    /// combines all chunks in the canonical tree (finish_sums).
    __device__ bool finish(double* const (&partial)[N], unsigned* counter, double (&total)[N]) {
        __shared__ double scratch[33];
        double sums[N];
        chunk_sums(sums, scratch);
        return finish_sums(sums, partial, counter, total);
    }

    /// The same with this chunk's sums given (a chunk summed elsewhere: another GPU's, design
    /// decision 59). Release/acquire: each block's partials are written, then a
    /// __threadfence() orders them before its atomicAdd on `counter`; the last block reads
    /// them from L2 (__ldcg), bypassing its possibly stale L1. The counter is reset for the
    /// next kernel on the stream. Every thread of the block calls it.
    __device__ bool finish_sums(const double (&sums)[N], double* const (&partial)[N],
                                unsigned* counter, double (&total)[N]) {
        __shared__ double scratch[33];
        __shared__ bool last;
        if (threadIdx.x == 0) {
#pragma unroll
            for (int q = 0; q < N; ++q) partial[q][blockIdx.x] = sums[q];
            __threadfence();
            last = atomicAdd(counter, 1u) == gridDim.x - 1;
        }
        __syncthreads();
        if (!last) return false;
        __threadfence();
#pragma unroll
        for (int q = 0; q < N; ++q) {
            const double* p = partial[q];
            total[q] = block_tree([p](long long i) { return __ldcg(p + i); },
                                  static_cast<long long>(gridDim.x), scratch);
        }
        if (threadIdx.x == 0) *counter = 0;
        return true;
    }

  private:
    double (*warps_)[kChunkWarps];
    long long n_;
    long long groups_;
};

}  // namespace heptane::gpu::detail
