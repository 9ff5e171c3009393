#pragma once
/// @file A fused pass's sums joined across the GPU ranks on each device (design decision 59;
/// core/base/join_plan.hpp): every rank's parts in one buffer on every GPU (this rank's written
/// by its pass kernels, the others' by PeerHalo::gather), and k_join, which reduces the global
/// chunks - a whole chunk's sum read, a split chunk's terms reduced - a block an aligned run of
/// them and, in its last block, the canonical tree over the runs (the one-GPU solvers' tree over
/// the same chunks, so the one-process bits), then applies the solver's step to its device
/// state. No host step: a GPU rank's BiCGStab then runs as the one-GPU multi-kernel solver
/// does, a graph replayed with a look at the state every check_interval iterations. Also what
/// the ranks' HEPTANE_JOINS agree on.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/join_plan.hpp"
#include "core/base/vector_ops.hpp"
#include "gpu/slab_solver.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/canonical_reduce.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"

namespace heptane::gpu::detail {
namespace {

/// What the ranks' HEPTANE_JOINS say together (0: host, 1: auto, 2: device; host wins, then
/// device) and the most entries a pass of one sum can leave as parts on all ranks together.
struct JoinsAgreed {
    int mode = 1;
    long long units = 0;
};

/// Collective. InputError (key HEPTANE_JOINS) on every rank for a value other than auto, host
/// or device on any rank.
JoinsAgreed agree_on_joins(const SlabNeighbours& n, const SlabLayout& layout) {
    const char* v = std::getenv("HEPTANE_JOINS");
    int mode = 1;
    if (v != nullptr && std::strcmp(v, "auto") != 0) {
        mode = std::strcmp(v, "host") == 0 ? 0 : std::strcmp(v, "device") == 0 ? 2 : -1;
    }
    // A rank's parts of one sum: its whole chunks, at most 2 chunks' loose cell entries (the
    // head and the tail, or every entry where it holds no whole chunk), its wells.
    struct Card {
        long long units;
        long long mode;
    };
    const Card mine{layout.own / vec::kChunk + 2 * vec::kChunk + layout.wells, mode};
    const std::vector<unsigned char> bytes = n.all_gather(&mine, static_cast<int>(sizeof mine));
    std::vector<Card> cards(static_cast<std::size_t>(n.ranks()));
    std::memcpy(cards.data(), bytes.data(), cards.size() * sizeof(Card));
    JoinsAgreed out;
    bool host = false, device = false, bad = false;
    for (const Card& c : cards) {
        out.units += c.units;
        host = host || c.mode == 0;
        device = device || c.mode == 2;
        bad = bad || c.mode < 0;
    }
    if (bad) {
        throw InputError("HEPTANE_JOINS",
                         mode < 0 ? "'" + std::string(v) + "' is not one of auto, host, device"
                                  : "another rank's value is not one of auto, host, device");
    }
    out.mode = host ? 0 : device ? 2 : 1;
    return out;
}

/// JoinPlan on the device.
struct JoinView {
    long long chunks;
    const PartSource* chunk;
    const long long* first;
    const PartSource* terms;
};

/// Chunks a block of k_join takes: an aligned run of the tree over the chunks, so the blocks'
/// subtrees folded by the same tree give the tree over every chunk.
constexpr int kJoinChunks = 64;

/// Block j: the subtree of the global chunks [j kJoinChunks, (j + 1) kJoinChunks) of each of
/// the Q sums - a chunk's sum read where a rank holds it whole, else reduced from its terms
/// (canonical::reduce: groups of kGroup left to right, the pairwise tree over the groups) - then,
/// in the last block, the tree over the blocks' subtrees and step(*state, totals, history) in
/// its thread 0. Nothing while *skip != 0.
template <int Q, class Step>
__global__ void __launch_bounds__(kChunkThreads)
    k_join(JoinView plan, const double* joined, double* partial, unsigned* counter,
           SolverState* state, double* history, const int* skip, Step step) {
    if (skip != nullptr && *skip != 0) return;
    __shared__ double sums[Q][kJoinChunks];
    __shared__ int split[kJoinChunks];
    __shared__ int splits;
    __shared__ double scratch[33];
    __shared__ double group[kChunkGroups];  // a split chunk's group sums
    const long long chunks = plan.chunks;
    const long long first = static_cast<long long>(blockIdx.x) * kJoinChunks;
    const long long here = min(static_cast<long long>(kJoinChunks), chunks - first);
    const auto value = [&](const PartSource& s, int q) {
        return __ldcg(joined + Q * s.a + q * s.b + s.k);
    };
    if (threadIdx.x == 0) splits = 0;
    __syncthreads();
    const int t = threadIdx.x;
    if (t < here) {
        const long long c = first + t;
        if (plan.first[c] == plan.first[c + 1]) {  // a rank's whole chunk: its sums
            const PartSource s = plan.chunk[c];
#pragma unroll
            for (int q = 0; q < Q; ++q) sums[q][t] = value(s, q);
        } else {  // split between ranks, or holding wells: reduced below
            split[atomicAdd(&splits, 1)] = t;
        }
    }
    __syncthreads();
    for (int k = 0; k < splits; ++k) {  // few: one or two a rank boundary, the wells'
        const int i = split[k];
        const long long c = first + i;
        const long long t0 = plan.first[c], n = plan.first[c + 1] - t0;
        const long long groups = (n + kGroup - 1) / kGroup;
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            // The group sums (kGroup terms left to right) in shared memory, every load of a
            // thread issued at once; then the pairwise tree over them.
#pragma unroll
            for (int j = 0; j < kPasses; ++j) {
                const long long g = t + j * kChunkThreads;
                if (g >= groups) continue;
                double v[kGroup];
#pragma unroll
                for (int m = 0; m < kGroup; ++m) {
                    const long long e = g * kGroup + m;
                    v[m] = e < n ? value(plan.terms[t0 + e], q) : 0.0;
                }
                double sum = v[0];
#pragma unroll
                for (int m = 1; m < kGroup; ++m) {
                    if (g * kGroup + m < n) sum = canonical::add(sum, v[m]);
                }
                group[g] = sum;
            }
            __syncthreads();
            const double total = block_tree([](long long g) { return group[g]; }, groups, scratch);
            if (threadIdx.x == 0) sums[q][i] = total;
            __syncthreads();
        }
    }
    double subtree[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const double* w = sums[q];
        subtree[q] = block_tree([w](long long i) { return w[i]; }, here, scratch);
    }
    double* part[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) part[q] = partial + q * gridDim.x;
    double total[Q];
    ChunkReduction<Q> red(nullptr, 0);
    if (red.finish_sums(subtree, part, counter, total) && threadIdx.x == 0) {
        step(*state, total, history);
    }
}

/// A JoinPlan on the device with the joined buffer (room for two sums), the chunks' partial
/// sums and the last-block counter.
class DeviceJoins {
  public:
    explicit DeviceJoins(JoinPlan plan)
        : plan_(std::move(plan)),
          chunk_(plan_.chunk),
          first_(plan_.first),
          terms_(plan_.terms.empty() ? std::vector<PartSource>{PartSource{}} : plan_.terms),
          joined_(static_cast<std::size_t>(2 * plan_.offset.back())),
          partial_(
              static_cast<std::size_t>(2 * ((plan_.chunks() + kJoinChunks - 1) / kJoinChunks))),
          counter_(1) {
        counter_.zero(nullptr);
        HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());
    }
    const JoinPlan& plan() const { return plan_; }
    double* joined() const { return joined_.get(); }

    /// k_join of a pass of Q sums whose parts are in joined(), on `stream`.
    template <int Q, class Step>
    void join(Step step, SolverState* state, double* history, const int* skip,
              cudaStream_t stream) const {
        const JoinView v{plan_.chunks(), chunk_.get(), first_.get(), terms_.get()};
        const auto blocks = static_cast<unsigned>((plan_.chunks() + kJoinChunks - 1) / kJoinChunks);
        k_join<Q><<<blocks, kChunkThreads, 0, stream>>>(v, joined_.get(), partial_.get(),
                                                        counter_.get(), state, history, skip, step);
        HEPTANE_SYNC_CHECK(stream);
    }

  private:
    JoinPlan plan_;
    Buffer<PartSource> chunk_;
    Buffer<long long> first_;
    Buffer<PartSource> terms_;
    Buffer<double> joined_, partial_;
    Buffer<unsigned> counter_;
};

}  // namespace
}  // namespace heptane::gpu::detail
