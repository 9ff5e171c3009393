#pragma once
/// @file The persistent (in-kernel) BiCGStab of seed 002, sections 6.3-6.4 and Algorithm 2:
/// one cooperative launch runs the whole solve. Each block owns a fixed range of rows (an
/// aligned power-of-two number of canonical groups, so its partial sums are subtrees of the
/// canonical reduction tree and the result is the CPU reference's bits for any grid).
///
/// An iteration is three work-sharing-with-synchronization (WS-S) constructs, each ending in
/// fused reductions (the reordered synchronization, ROS, of section 6.3):
///   WS-S 1  v = A p                       -> sigma = (r_hat, v)
///   WS-S 2  t = A s, s = r - alpha v      -> (s, s), (t, t), (t, s)
///   WS-S 3  x, r, q = p - omega v         -> (r, r), rho = (r_hat, r)
/// Algorithm 2 has a fourth, the collective write of p (its line 8) before v = A p. Here no
/// block needs another block's p or s: p = r + beta q and s = r - alpha v are recomputed
/// wherever the SpMV reads them, from the shared vectors r, q (= p - omega v, Algorithm 2
/// line 28) and v, which no block writes during the WS-S that reads them. That removes the
/// synchronization and the p and s vectors altogether (design decision 21).
///
/// Synchronization: block b publishes its partial sums, then sets its own arrival flag
/// flags[b] = epoch (one flag per block, the epoch counting the WS-S of the solve, so nothing
/// is ever reset and no atomic read-modify-write exists). It then runs its WS-2 work (an L2
/// prefetch of the data its next phase streams first), waits until every flag has reached
/// the epoch, and reduces the grid's partial sums itself in the canonical order - every
/// block computes the same bits, so every block takes the same branch.
///
/// Work layout (design decision 22): each warp owns an aligned power-of-two run of rows. The
/// SpMV sweeps it in passes of 32 K2 rows (K2 the largest power of two <= K), one cell per
/// lane as the multi-kernel SpMV, into a per-warp shared buffer; everything else sweeps it in
/// 32-row leaves, one row per lane. Per WS-S a block has two barriers: one publishes the
/// warps' sums (and orders the block's writes before its flag), one hands the grid's totals,
/// folded by warp 0 alone, to the block.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "core/canonical.hpp"
#include "gpu/src/bdia_spmv.cuh"
#include "gpu/src/canonical_reduce.cuh"
#include "gpu/src/solver_state.cuh"

namespace heptane::gpu::detail {

constexpr int kInKernelMaxThreads = 512;
constexpr int kMaxReductions = 3;  ///< partial sums one WS-S publishes at most
/// Blocks at most: warp 0 of every block folds the grid's partial sums, kGridSegment per lane.
constexpr int kGridSegment = 8;
constexpr int kInKernelMaxGrid = 32 * kGridSegment;

/// Where the host sees the progress of a running solve (host-mapped memory), or null.
struct InKernelProgress {
    int iterations;
    double relative_residual;
};

struct InKernelParams {
    BdiaView A;
    long long n;  ///< rows: M K + wells
    const double* b;
    double* x;  ///< initial guess in, solution out
    // Shared vectors: read by other blocks (at the SpMV halo), so they live in global memory.
    double* r;
    double* q;  ///< p - omega v of the last iteration
    double* v;
    // Range vectors in global memory (null when they are in shared memory).
    double* r_hat;
    double* t;
    double* partial;             ///< [2 parities][kMaxReductions][grid]
    unsigned* flags;             ///< [grid] arrival epochs, zero at launch
    SolverState* st;             ///< in: tolerance, max_iterations, max_restarts; out: the result
    double* history;             ///< [max_iterations + 1]
    InKernelProgress* progress;  ///< host-mapped, or null
    long long block_rows;        ///< rows per block: warps x passes x pass rows
    int passes;                  ///< passes per warp (a power of two)
    int shared_ranges;           ///< x, r_hat, t in shared memory
};

/// Rows of one warp pass for block size K: 32 times the largest power of two <= K, an
/// aligned power of two (a subtree of the canonical tree) covering at most 32 cells - all
/// 32 lanes busy, one cell each, when K is a power of two.
__host__ __device__ constexpr long long in_kernel_pass_rows(int K) {
    long long p = 1;
    while (2 * p <= K) p *= 2;
    return 32 * p;
}

/// Levels of a warp's running tree over its 32-row leaves: log2(leaves) + 1.
__host__ __device__ inline int in_kernel_stack_levels(long long leaves) {
    int levels = 1;
    while ((1LL << (levels - 1)) < leaves) ++levels;
    return levels;
}

/// Dynamic shared memory of a launch: the range vectors (if in shared memory), the warps'
/// running reduction trees and each warp's pass of SpMV rows.
inline size_t in_kernel_shared_bytes(long long block_rows, int threads, int K, bool shared_ranges) {
    const long long warps = threads / 32;
    const long long leaves = block_rows / warps / 32;
    return sizeof(double) *
           static_cast<size_t>((shared_ranges ? 3 * block_rows : 0) +
                               warps * kMaxReductions * in_kernel_stack_levels(leaves) +
                               warps * in_kernel_pass_rows(K));
}

// ---- memory ordering --------------------------------------------------------------------

__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/// Asks the copy engine to bring [p, p + bytes) into L2 (no registers, no wait). p must be
/// 16-byte aligned; bytes is rounded up to a multiple of 16.
__device__ __forceinline__ void prefetch_l2(const void* p, unsigned bytes) {
    bytes = (bytes + 15u) & ~15u;
    if (bytes > 0) {
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
    }
}

// ---- the block's rows --------------------------------------------------------------------

/// Rows and shared memory of this thread's block. A warp owns an aligned power-of-two run of
/// rows starting at row0 (a subtree of the canonical tree), swept in passes of pass rows by
/// cells (the SpMV: one cell per lane) and in 32-row leaves by rows (lane l: row 32 k + l of
/// the run; the vector updates and every reduction).
struct BlockRange {
    long long e0, e1;  ///< the block's rows [e0, e1)
    long long n;
    long long row0;     ///< this warp's first row
    long long rows;     ///< this warp's rows (present or not)
    int leaves;         ///< rows / 32
    int present_warps;  ///< warps with a row < n
    double* pass;       ///< this warp's SpMV results of one pass [pass rows]
    double* x;          ///< range vectors, indexed by i - e0 (shared or global memory)
    double* r_hat;
    double* t;
    double* stack;  ///< this warp's running trees [kMaxReductions][levels] (lane 0)
    int levels;
    double (*warp_values)[32];  ///< [kMaxReductions][warp]: each warp's subtrees
    double* totals;             ///< [kMaxReductions]: the grid's sums
    unsigned epoch;             ///< WS-S constructs so far
};

/// One 32-row leaf (leaf k of the warp, lane l holding row i and its terms): the groups of
/// 4 lanes summed left to right, then the tree over 8 groups; lane 0 folds the leaves as they
/// come with pairwise_sum's stack of complete subtrees (depth: the stack's height).
template <int Q>
__device__ __forceinline__ void push_leaf(const BlockRange& B, long long i,
                                          const double (&terms)[Q], int k, int& depth) {
    int d = depth;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        double v = warp_rows_tree(terms[q], i, B.n);
        if ((threadIdx.x & 31) == 0) {
            double* stack = B.stack + q * B.levels;
            d = depth;
            for (int c = k + 1; (c & 1) == 0; c >>= 1) v = canonical::add(stack[--d], v);
            stack[d++] = v;
        }
    }
    depth = d;
}

/// After the warp's `leaves` leaves: its Q subtrees into warp_values (lane 0), published by
/// the next ws_sync. The incomplete right edge: each subtree is the right half of the one
/// before it.
template <int Q>
__device__ __forceinline__ void finish_warp(const BlockRange& B, int depth, int leaves) {
    if ((threadIdx.x & 31) != 0 || leaves == 0) return;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const double* stack = B.stack + q * B.levels;
        double v = stack[depth - 1];
        for (int d = depth - 1; d > 0; --d) v = canonical::add(stack[d - 1], v);
        B.warp_values[q][threadIdx.x >> 5] = v;
    }
}

/// Calls body(i, terms) for each row i this thread owns (terms[q]: its term of reduction q)
/// and leaves each warp's Q subtrees in warp_values.
template <int Q, class Body>
__device__ void block_phase(const BlockRange& B, Body body) {
    int depth = 0, k = 0;
    for (; k < B.leaves; ++k) {
        const long long first = B.row0 + 32LL * k;
        if (first >= B.n) break;  // warp-uniform: the rest of the warp's rows are absent
        const long long i = first + (threadIdx.x & 31);
        double terms[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) terms[q] = 0.0;
        if (i < B.n) body(i, terms);
        push_leaf<Q>(B, i, terms, k, depth);
    }
    finish_warp<Q>(B, depth, k);
}

/// Calls f(i) for each row this thread owns (no reduction).
template <class F>
__device__ void block_entries(const BlockRange& B, F f) {
    for (int k = 0; k < B.leaves; ++k) {
        const long long i = B.row0 + 32LL * k + (threadIdx.x & 31);
        if (i < B.n) f(i);
    }
}

/// Waits (warp 0) until every block's flag has reached `epoch`. Lane l watches blocks l,
/// l + 32, ...; a sweep issues all its relaxed loads at once (an acquire load would hold
/// back the next one: a round trip per flag), with a short back-off between sweeps. Each
/// lane then fences: relaxed loads that observed a release, then fence.acq_rel, make an
/// acquire; __syncwarp orders it for the whole warp, and the block barrier that follows
/// every wait extends it to the block (message passing: afterwards plain loads see every
/// write the other blocks made before arriving). Data other blocks write during the solve
/// is never read through the read-only path (__ldg).
__device__ __forceinline__ void wait_flags(const InKernelParams& P, unsigned epoch) {
    for (;;) {
        bool seen = true;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += 32) {
            seen &= static_cast<int>(load_relaxed(P.flags + b) - epoch) >= 0;
        }
        if (__all_sync(0xffffffffu, seen)) break;
        __nanosleep(32);
    }
    __threadfence();
    __syncwarp();
}

/// A WS-S construct's synchronization with Q reductions, after block_phase<Q>:
///  - bar.sync: the warps' subtrees are in shared memory, and every write of the phase by
///    any thread of the block precedes thread 0's release below;
///  - warp 0 folds the block's sums, publishes them, and sets the block's flag with
///    st.release.gpu (a release fence and the store, cumulative over the barrier: the
///    pattern of a cooperative-groups grid sync); no atomic read-modify-write anywhere;
///  - all warps run the WS-2 work; warp 0 then waits for every flag and folds the grid's
///    sums itself in the canonical order (every block the same bits, the same branches);
///  - bar.sync: the totals (and the acquire) reach the whole block.
/// Partial sums alternate between two slots: a block can only overwrite a slot after every
/// block has arrived at the next WS-S, i.e. has finished reading it.
template <int Q, class Ws2>
__device__ void ws_sync(BlockRange& B, const InKernelParams& P, Ws2 ws2, double (&total)[Q]) {
    const unsigned epoch = ++B.epoch;
    const unsigned grid = gridDim.x;
    double* slot = P.partial + (epoch & 1u) * kMaxReductions * grid;
    const int lane = threadIdx.x & 31;  // (used by warp 0)
    __syncthreads();
    if (threadIdx.x < 32) {
        double sum[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const double v = lane < B.present_warps ? B.warp_values[q][lane] : 0.0;
            sum[q] = warp_tree(v, lane, B.present_warps);
        }
        if (lane == 0) {
#pragma unroll
            for (int q = 0; q < Q; ++q) slot[q * grid + blockIdx.x] = sum[q];
            store_release(P.flags + blockIdx.x, epoch);
        }
    }
    ws2();
    if (threadIdx.x < 32) {
        wait_flags(P, epoch);
        // Lane l folds the aligned segment [l seg, (l + 1) seg) of the blocks' sums in
        // registers (all loads of all Q issued first: one round trip), then the warp tree.
        long long seg = 1;
        while (seg * 32 < grid) seg *= 2;
        const long long first = lane * seg;
        double r[Q][kGridSegment];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
#pragma unroll
            for (int k = 0; k < kGridSegment; ++k) {
                r[q][k] = (k < seg && first + k < grid) ? __ldcg(slot + q * grid + first + k) : 0.0;
            }
        }
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const double v =
                warp_tree(register_tree(r[q], seg, first, grid), lane, (grid + seg - 1) / seg);
            if (lane == 0) B.totals[q] = v;
        }
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < Q; ++q) total[q] = B.totals[q];
}

/// A synchronization without reductions (a collective write: x before an SpMV of x).
__device__ __forceinline__ void barrier(BlockRange& B, const InKernelParams& P) {
    const unsigned epoch = ++B.epoch;
    __syncthreads();
    if (threadIdx.x == 0) store_release(P.flags + blockIdx.x, epoch);
    if (threadIdx.x < 32) wait_flags(P, epoch);
    __syncthreads();
}

// ---- SpMV rows ---------------------------------------------------------------------------

/// Well row i (>= M K) of A x, with x(j) given by xf: the perforated cells' terms in order,
/// then D (the reference's order).
template <int K, class XF>
__device__ double well_row_product(const BdiaView& A, long long i, long long MK, XF xf) {
    using namespace heptane::canonical;
    const int w = static_cast<int>(i - MK);
    const int count = A.count[w] * K;
    const long long first = static_cast<long long>(A.cell0[w]) * K;
    const double* vals = A.well_rows + A.first[w];
    double sum = 0.0;
    for (int j = 0; j < count; ++j) sum = mul_add(__ldg(vals + j), xf(first + j), sum);
    return mul_add(__ldg(A.d + w), xf(i), sum);
}

/// Rows [p0, p0 + pass rows) of A x into this warp's pass buffer, x(j) given by xf (so x can
/// be recomputed from other vectors at every read). One cell per lane, as the multi-kernel
/// SpMV: a warp's Bdia loads are 32 consecutive cells of one plane. Each row is summed in the
/// canonical order (d, c, then the well term). A missing neighbour reads cell m itself (a
/// valid address, the product unused), so the loads carry no branch. A cell straddling the
/// pass's edge (K not a power of two) is computed by both passes, each keeping its rows.
template <int K, class XF>
__device__ void pass_products(const BlockRange& B, const BdiaView& A, long long p0, XF xf) {
    using namespace heptane::canonical;
    constexpr long long kPassRows = in_kernel_pass_rows(K);
    const int lane = threadIdx.x & 31;
    const long long MK = static_cast<long long>(A.M) * K;
    const long long end = p0 + kPassRows < B.n ? p0 + kPassRows : B.n;
    const long long cell_rows_end = end < MK ? end : MK;
    for (long long c = p0 / K + lane; c * K < cell_rows_end; c += 32) {
        const unsigned m = static_cast<unsigned>(c);
        const Stencil s = stencil(A, m);
        double acc[K];
#pragma unroll
        for (int r = 0; r < K; ++r) acc[r] = 0.0;
#pragma unroll
        for (int d = 0; d < 7; ++d) {
            const bool present = (s.mask & (1u << d)) != 0;
            // Large blocks skip a missing neighbour (K^2 loads per neighbour are plenty in
            // flight, and hoisting all 7 K^2 would spill).
            if (K > kHoistMaxK && !present) continue;
            const long long nb = static_cast<long long>(present ? m + s.off[d] : m) * K;
            // (Unrolling all K columns at K > 8 would spill: K loads per column suffice.)
#pragma unroll(K <= 8 ? K : 1)
            for (int col = 0; col < K; ++col) {
                const double xv = xf(nb + col);
#pragma unroll
                for (int r = 0; r < K; ++r) {
                    const double a = __ldg(
                        A.bdia + bdia_index<BdiaVariant::cell_fastest>(K, d, r, col, m, A.Mp));
                    if (present) acc[r] = mul_add(a, xv, acc[r]);
                }
            }
        }
        int base = 0;
        const int w = well_of(A, m, K, base);
        if (w >= 0) {
            const double xw = xf(MK + w);
#pragma unroll
            for (int r = 0; r < K; ++r) acc[r] = mul_add(__ldg(A.well_cols + base + r), xw, acc[r]);
        }
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const long long i = c * K + r;
            if (i >= p0 && i < cell_rows_end) B.pass[i - p0] = acc[r];
        }
    }
    for (long long i = (p0 > MK ? p0 : MK) + lane; i < end; i += 32) {
        B.pass[i - p0] = well_row_product<K>(A, i, MK, xf);
    }
}

/// y = A x for this thread's rows, then body(i, y_i, terms) for each of them as in
/// block_phase: per pass, the lanes compute cells into the warp's pass buffer, then read it
/// back by rows (coalesced stores of y, and the canonical leaves of the reductions).
template <int K, int Q, class XF, class Body>
__device__ void spmv_phase(const BlockRange& B, const BdiaView& A, XF xf, Body body) {
    constexpr int kPassLeaves = static_cast<int>(in_kernel_pass_rows(K) / 32);
    int depth = 0, k = 0;
    for (long long p0 = B.row0; k < B.leaves && p0 < B.n; p0 += 32 * kPassLeaves) {
        pass_products<K>(B, A, p0, xf);
        __syncwarp();
        for (int l = 0; l < kPassLeaves && p0 + 32 * l < B.n; ++l, ++k) {
            const long long i = p0 + 32 * l + (threadIdx.x & 31);
            double terms[Q];
#pragma unroll
            for (int q = 0; q < Q; ++q) terms[q] = 0.0;
            if (i < B.n) body(i, B.pass[i - p0], terms);
            push_leaf<Q>(B, i, terms, k, depth);
        }
        __syncwarp();  // the next pass overwrites the buffer
    }
    finish_warp<Q>(B, depth, k);
}

/// WS-2 before an SpMV: prefetch into L2 the Bdia planes of the cells of this warp's first
/// pass (data-independent of the reduction being waited for).
template <int K>
__device__ void prefetch_first_pass_bdia(const BlockRange& B, const BdiaView& A) {
    const long long MK = static_cast<long long>(A.M) * K;
    long long last = B.row0 + in_kernel_pass_rows(K);  // one past the pass's last cell row
    if (last > B.n) last = B.n;
    if (last > MK) last = MK;
    if (B.row0 >= last) return;
    const long long c0 = (B.row0 / K) & ~1LL;  // 16-byte aligned
    const long long c1 = (last - 1) / K + 1;
    for (int plane = threadIdx.x & 31; plane < 7 * K * K; plane += 32) {
        prefetch_l2(A.bdia + static_cast<size_t>(plane) * A.Mp + c0,
                    static_cast<unsigned>((c1 - c0) * sizeof(double)));
    }
}

/// WS-2 before the last WS-S of an iteration: prefetch this warp's first pass of the vectors
/// it streams (r, q, v; t and x when they are in global memory).
__device__ __forceinline__ void prefetch_first_pass_vectors(const BlockRange& B,
                                                            const InKernelParams& P) {
    const int lane = threadIdx.x & 31;
    const long long len = (B.row0 + 32 < B.n ? B.row0 + 32 : B.n) - B.row0;
    if (len <= 0 || lane >= 5) return;
    if (lane >= 3 && P.shared_ranges) return;
    const double* v = lane == 0 ? P.r : lane == 1 ? P.q : lane == 2 ? P.v : lane == 3 ? P.t : P.x;
    prefetch_l2(v + B.row0, static_cast<unsigned>(len * sizeof(double)));
}

// ---- the solver --------------------------------------------------------------------------

/// The solver's scalars: identical in every thread of the grid (computed from the same
/// totals), so every block takes the same branches and meets the same WS-S constructs.
struct Scalars {
    double bnorm, r_norm, r_hat_norm, rho, rho_old, alpha, omega, beta;
    double relative_residual, true_relative_residual, detail_value;
    int iterations, status, restarts, detail, detail_iteration;
};

template <int K>
__global__ void __launch_bounds__(kInKernelMaxThreads, 1)
    bicgstab_persistent(const __grid_constant__ InKernelParams P) {
    using namespace heptane::canonical;
    extern __shared__ double smem[];
    __shared__ double warp_values[kMaxReductions][32];
    __shared__ double totals[kMaxReductions];
    const BdiaView& A = P.A;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;

    BlockRange B;
    B.n = P.n;
    B.e0 = static_cast<long long>(blockIdx.x) * P.block_rows;
    B.e1 = B.e0 + P.block_rows < P.n ? B.e0 + P.block_rows : P.n;
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    B.rows = P.passes * in_kernel_pass_rows(K);
    B.leaves = static_cast<int>(B.rows / 32);
    B.row0 = B.e0 + warp * B.rows;
    const long long warps_present = (B.e1 - B.e0 + B.rows - 1) / B.rows;
    B.present_warps = static_cast<int>(warps_present < warps ? warps_present : warps);
    B.levels = in_kernel_stack_levels(B.leaves);
    double* stacks = smem;
    if (P.shared_ranges) {
        B.x = smem;
        B.r_hat = smem + P.block_rows;
        B.t = smem + 2 * P.block_rows;
        stacks = smem + 3 * P.block_rows;
    } else {
        B.x = P.x + B.e0;
        B.r_hat = P.r_hat + B.e0;
        B.t = P.t + B.e0;
    }
    B.stack = stacks + warp * kMaxReductions * B.levels;
    B.pass = stacks + warps * kMaxReductions * B.levels + warp * in_kernel_pass_rows(K);
    B.warp_values = warp_values;
    B.totals = totals;
    B.epoch = 0;
    auto own = [&B](long long i) { return i - B.e0; };
    auto prefetch_bdia = [&] { prefetch_first_pass_bdia<K>(B, A); };
    auto prefetch_vectors = [&] { prefetch_first_pass_vectors(B, P); };

    const double tolerance = P.st->tolerance;
    const int max_iterations = P.st->max_iterations, max_restarts = P.st->max_restarts;
    Scalars S{};
    S.status = kRunning;

    // The reference's SolverFrame::record: true when the solve ends here.
    auto record = [&](int it, double norm) {
        S.iterations = it;
        S.relative_residual = norm / S.bnorm;
        if (leader) {
            P.history[it] = S.relative_residual;
            if (P.progress != nullptr && (it & 31) == 0) {
                volatile InKernelProgress* pr = P.progress;
                pr->relative_residual = S.relative_residual;
                pr->iterations = it;
            }
        }
        if (!std::isfinite(S.relative_residual)) {
            S.status = kNonFinite;
            S.detail = kDetailResidual;
            S.detail_iteration = it;
        } else if (S.relative_residual <= tolerance) {
            S.status = kConverged;
        }
        return S.status != kRunning;
    };
    // The reference's SolverFrame::fail.
    auto fail = [&](double value, int what, int it) {
        S.status = std::isfinite(value) ? kBreakdown : kNonFinite;
        S.detail = what;
        S.detail_value = value;
        S.detail_iteration = it;
    };
    // x in global memory for an SpMV of x (restart, true residual).
    auto publish_x = [&] {
        if (P.shared_ranges) block_entries(B, [&](long long i) { P.x[i] = B.x[own(i)]; });
        barrier(B, P);
    };
    auto x_global = [&P](long long j) { return P.x[j]; };
    // ||b - A x|| with x published to global memory; with `store`, also r = b - A x and
    // r_hat = r (a restart).
    auto residual = [&](bool store) {
        publish_x();
        spmv_phase<K, 1>(B, A, x_global, [&](long long i, double ax, double(&terms)[1]) {
            const double ri = sub(__ldg(P.b + i), mul(1.0, ax));
            if (store) {
                P.r[i] = ri;
                B.r_hat[own(i)] = ri;
            }
            terms[0] = mul(ri, ri);
        });
        double total[1];
        ws_sync<1>(B, P, prefetch_bdia, total);
        return sqrt(total[0]);
    };

    // Iteration 0: r = b - A x0, r_hat = r; ||b||^2 and ||r||^2 in one WS-S.
    {
        spmv_phase<K, 2>(B, A, x_global, [&](long long i, double ax, double(&terms)[2]) {
            const double bi = __ldg(P.b + i);
            const double ri = sub(bi, mul(1.0, ax));
            P.r[i] = ri;
            B.r_hat[own(i)] = ri;
            if (P.shared_ranges) B.x[own(i)] = P.x[i];
            terms[0] = mul(bi, bi);
            terms[1] = mul(ri, ri);
        });
        double total[2];
        ws_sync<2>(B, P, prefetch_bdia, total);
        S.bnorm = sqrt(total[0]);
        if (!std::isfinite(S.bnorm) || S.bnorm == 0.0) {
            if (leader) P.st->bnorm = S.bnorm;  // the host applies the reference's exits
            return;
        }
        S.r_norm = S.r_hat_norm = sqrt(total[1]);
        S.rho = total[1];  // (r_hat, r) with r_hat = r: the same products, the same tree
        S.rho_old = S.alpha = S.omega = 1.0;
        record(0, S.r_norm);
    }
    bool fresh = true;  // p = r at the first iteration and after a restart
    for (int it = 1; S.status == kRunning && it <= max_iterations; ++it) {
        // Near-breakdown of rho = (r_hat, r): restart from x with r = b - A x, r_hat = r.
        if (!std::isfinite(S.rho)) {
            fail(S.rho, kDetailRhoNonFinite, it);
            break;
        }
        if (std::abs(S.rho) <= std::numeric_limits<double>::epsilon() * S.r_hat_norm * S.r_norm) {
            if (S.restarts >= max_restarts) {
                fail(S.rho, kDetailRhoZero, it);
                break;
            }
            ++S.restarts;
            S.r_norm = S.r_hat_norm = residual(true);
            S.rho = S.r_norm * S.r_norm;
            fresh = true;
        }
        // beta = (rho / rho_old) (alpha / omega);  p = r + beta (p - omega v) = r + beta q
        const bool fresh_p = fresh;
        if (!fresh) S.beta = (S.rho / S.rho_old) * (S.alpha / S.omega);
        const double beta = S.beta;
        auto p_at = [&P, fresh_p, beta](long long j) {
            const double rj = P.r[j];
            return fresh_p ? rj : mul_add(beta, P.q[j], rj);
        };

        // WS-S 1: v = A p;  sigma = (r_hat, v);  alpha = rho / sigma
        {
            spmv_phase<K, 1>(B, A, p_at, [&](long long i, double vi, double(&terms)[1]) {
                P.v[i] = vi;
                terms[0] = mul(B.r_hat[own(i)], vi);
            });
            double total[1];
            ws_sync<1>(B, P, prefetch_bdia, total);
            const double sigma = total[0];
            if (sigma == 0.0 || !std::isfinite(sigma)) {
                fail(sigma, kDetailSigma, it);
                break;
            }
            S.alpha = S.rho / sigma;
            fresh = false;
        }
        const double alpha = S.alpha;
        auto s_at = [&P, alpha](long long j) { return sub(P.r[j], mul(alpha, P.v[j])); };

        // WS-S 2: s = r - alpha v;  t = A s;  ||s||, (t, t), (t, s);  omega = (t, s) / (t, t)
        {
            spmv_phase<K, 3>(B, A, s_at, [&](long long i, double ti, double(&terms)[3]) {
                B.t[own(i)] = ti;
                const double si = s_at(i);
                terms[0] = mul(si, si);
                terms[1] = mul(ti, ti);
                terms[2] = mul(ti, si);
            });
            double total[3];
            ws_sync<3>(B, P, prefetch_vectors, total);
            const double s_norm = sqrt(total[0]);
            if (s_norm / S.bnorm <= tolerance) {
                // Half step: x = x + alpha p (r = s is not needed again), converged.
                block_entries(
                    B, [&](long long i) { B.x[own(i)] = mul_add(alpha, p_at(i), B.x[own(i)]); });
                record(it, s_norm);
                break;
            }
            const double tt = total[1];
            if (tt == 0.0 || !std::isfinite(tt)) {
                fail(tt, kDetailTT, it);
                break;
            }
            S.omega = total[2] / tt;
        }
        const double omega = S.omega;

        // WS-S 3: x = x + alpha p + omega s;  r = s - omega t;  q = p - omega v;
        //         ||r|| (convergence) and rho = (r_hat, r) of the next iteration
        {
            block_phase<2>(B, [&](long long i, double(&terms)[2]) {
                const long long l = own(i);
                const double ri = P.r[i], vi = P.v[i];
                const double pi = fresh_p ? ri : mul_add(beta, P.q[i], ri);
                const double si = sub(ri, mul(alpha, vi));
                B.x[l] = add(B.x[l], mul_add(omega, si, mul(alpha, pi)));
                const double r_new = sub(si, mul(omega, B.t[l]));
                P.r[i] = r_new;
                P.q[i] = sub(pi, mul(omega, vi));
                terms[0] = mul(r_new, r_new);
                terms[1] = mul(B.r_hat[l], r_new);
            });
            double total[2];
            ws_sync<2>(B, P, prefetch_bdia, total);
            S.r_norm = sqrt(total[0]);
            if (record(it, S.r_norm)) break;
            if (S.omega == 0.0) {  // the next beta would divide by omega
                fail(S.omega, kDetailOmega, it);
                break;
            }
            S.rho_old = S.rho;
            S.rho = total[1];
        }
    }

    // The true residual ||b - A x|| / ||b||.
    S.true_relative_residual = residual(false) / S.bnorm;
    if (leader) {
        SolverState& st = *P.st;
        st.bnorm = S.bnorm;
        st.r_norm = S.r_norm;
        st.iterations = S.iterations;
        st.status = S.status;
        st.restarts = S.restarts;
        st.relative_residual = S.relative_residual;
        st.true_relative_residual = S.true_relative_residual;
        st.detail = S.detail;
        st.detail_value = S.detail_value;
        st.detail_iteration = S.detail_iteration;
    }
}

/// The kernel for block size K (instantiated in bicgstab_in_kernel_k*.cu).
template <int K>
const void* persistent_kernel() {
    return reinterpret_cast<const void*>(&bicgstab_persistent<K>);
}

}  // namespace heptane::gpu::detail
