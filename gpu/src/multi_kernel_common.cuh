#pragma once
/// @file What the multi-kernel solvers (bicgstab_multi_kernel.cu, qmr_multi_kernel.cu) share:
/// the kernels' common arguments and the chunk loops over the canonical reduction of
/// canonical_reduce.cuh (one block of kChunkThreads threads per chunk, the block that
/// finishes last combining the chunks).
#include <cuda_runtime.h>

#include <algorithm>

#include "gpu/src/buffer.cuh"
#include "gpu/src/canonical_reduce.cuh"
#include "gpu/src/device_operator.cuh"
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

/// Replays the graph of one iteration in batches of check_interval launches, looking at the
/// device state after each batch only (the host's one round trip), until the solve has ended
/// or max_iterations iterations were launched; progress after each look.
inline void replay_iterations(cudaGraphExec_t exec, const DeviceState& state,
                              const GpuSolveOptions& options, cudaStream_t st) {
    const SolveOptions& opt = options.solve;
    SolverState host = state.download(st);
    int launched = 0;
    while (host.status == kRunning && launched < opt.max_iterations) {
        const int batch =
            std::min(std::max(options.check_interval, 1), opt.max_iterations - launched);
        for (int i = 0; i < batch; ++i) HEPTANE_CUDA_CHECK(cudaGraphLaunch(exec, st));
        launched += batch;
        host = state.download(st);
        if (opt.progress && host.iterations > 0) {
            opt.progress(host.iterations, host.r_norm / host.bnorm);
        }
    }
}

// The kernels both solvers launch (internal linkage: each .cu file has its own copy).
namespace {

/// ||b - A x|| / ||b|| with A x in `ax` (the reference's true residual).
__global__ void __launch_bounds__(kChunkThreads)
    k_true_residual(Work work, const double* b, const double* ax) {
    double total[1];
    const bool last = reduce_chunk<1>(
        work,
        [&](long long i, GroupSum(&g)[1]) {
            const double ri = canonical::sub(b[i], canonical::mul(1.0, ax[i]));
            g[0].add(canonical::mul(ri, ri));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    work.st->true_relative_residual = sqrt(total[0]) / work.st->bnorm;
}

/// ||b||.
__global__ void __launch_bounds__(kChunkThreads) k_bnorm(Work work, const double* b) {
    double total[1];
    const bool last = reduce_chunk<1>(
        work, [&](long long i, GroupSum(&g)[1]) { g[0].add(canonical::mul(b[i], b[i])); }, total);
    if (!last || threadIdx.x != 0) return;
    work.st->bnorm = sqrt(total[0]);
}

/// What every multi-kernel solve owns besides its vectors: the chunk partial sums and the
/// counter of the last-block reduction, the device state, the residual history, and the Work
/// its kernels take.
struct MultiKernelWorkspace {
    MultiKernelWorkspace(long long n, const SolveOptions& opt, cudaStream_t st)
        : blocks(reduction_blocks(n)),
          partial0(blocks),
          partial1(blocks),
          history(static_cast<std::size_t>(opt.max_iterations) + 1),
          counter(1),
          state(opt),
          work{n, {partial0.get(), partial1.get()}, counter.get(), state.device(), history.get()} {
        counter.zero(st);
    }
    /// ||b|| into the state; returns the state (trivial_rhs decides on its bnorm).
    SolverState bnorm(const double* b, cudaStream_t st) {
        k_bnorm<<<blocks, kChunkThreads, 0, st>>>(work, b);
        HEPTANE_SYNC_CHECK(st);
        return state.download(st);
    }
    /// ||b - A x|| / ||b|| into the state, with A x into `ax`; returns the final state.
    SolverState true_residual(const DeviceOperator& gh, const double* b, const double* x,
                              double* ax, cudaStream_t st) {
        gh.apply(x, ax, false, st);
        k_true_residual<<<blocks, kChunkThreads, 0, st>>>(work, b, ax);
        HEPTANE_SYNC_CHECK(st);
        return state.download(st);
    }

    unsigned blocks;
    Buffer<double> partial0, partial1, history;
    Buffer<unsigned> counter;
    DeviceState state;
    Work work;
};

}  // namespace

}  // namespace heptane::gpu::detail
