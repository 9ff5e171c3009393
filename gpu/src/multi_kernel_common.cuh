#pragma once
/// @file What the multi-kernel solvers (bicgstab_multi_kernel.cu, qmr_multi_kernel.cu) share:
/// the kernels' common arguments and the chunk loops over the canonical reduction of
/// canonical_reduce.cuh (one block of kChunkThreads threads per chunk, the block that
/// finishes last combining the chunks).
#include <cuda_runtime.h>

#include "gpu/src/canonical_reduce.cuh"
#include "gpu/src/solver_state.cuh"

namespace heptane::gpu::detail {

/// Every solver kernel works on whole chunks: a block of kChunkThreads threads per chunk.
struct Work {
    long long n;
    double* partial[2];
    unsigned* counter;
    SolverState* st;
    double* history;
};

/// The chunk loop of a reducing kernel: f(i, g) for every entry i of this thread's groups,
/// g[q] collecting the terms of reduction q; then the chunk sums. True (in every thread of
/// the block that finished last) with the N totals in `total`.
template <int N, class F>
__device__ bool reduce_chunk(const Work& w, F f, double (&total)[N]) {
    __shared__ double warps[N][kChunkWarps];
    ChunkReduction<N> red(warps, w.n);
    for (int p = 0; p < kPasses; ++p) {
        GroupSum g[N];
        for_group(p, w.n, [&](long long i) { f(i, g); });
        red.pass(p, g);
    }
    double* partial[N];
#pragma unroll
    for (int q = 0; q < N; ++q) partial[q] = w.partial[q];
    return red.finish(partial, w.counter, total);
}

/// Calls f(i) for every entry of this block's chunk (no reduction).
template <class F>
__device__ void each_entry(const Work& w, F f) {
    for (int p = 0; p < kPasses; ++p) for_group(p, w.n, f);
}

}  // namespace heptane::gpu::detail
