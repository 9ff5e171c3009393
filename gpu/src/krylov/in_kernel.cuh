#pragma once
/// @file The machinery of the persistent (in-kernel) solvers of seed 002, sections 6.3-6.4
/// (BiCGStab: bicgstab_in_kernel.cuh; QMR: qmr_in_kernel.cuh): one cooperative launch runs a
/// whole solve. Each block owns a fixed range of rows (an aligned power-of-two number of
/// canonical groups, so its partial sums are subtrees of the canonical reduction tree and the
/// result is the CPU reference's bits for any grid).
///
/// An iteration is a sequence of work-sharing-with-synchronization (WS-S) constructs, each a
/// phase over the block's rows ending in fused reductions (the reordered synchronization,
/// ROS, of section 6.3). Block b publishes its partial sums, then sets its own arrival flag
/// flags[b] = epoch (one flag per block, the epoch counting the WS-S of the solve, so nothing
/// is ever reset and no atomic read-modify-write exists). It then runs its WS-2 work (an L2
/// prefetch of the data its next phase streams first), waits until every flag has reached
/// the epoch, and reduces the grid's partial sums itself in the canonical order - every
/// block computes the same bits, so every block takes the same branch.
///
/// Work layout (design decision 22): each warp owns an aligned power-of-two run of rows. The
/// SpMV (with A or, from the mirrored diagonals, A^T) sweeps it in passes of 32 K2 rows (K2
/// the largest power of two <= K), one cell per lane as the multi-kernel SpMV, into a
/// per-warp shared buffer; everything else sweeps it in 32-row leaves, one row per lane. Per
/// WS-S a block has two barriers: one publishes the warps' sums (and orders the block's
/// writes before its flag), one hands the grid's totals, folded by warp 0 alone, to the
/// block. A vector other blocks read (at the SpMV's halo) lives in global memory; a range
/// vector (only its owner reads it) lives in shared memory when the co-resident grid still
/// fits, in global memory otherwise.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "core/base/canonical.hpp"
#include "gpu/src/base/canonical_reduce.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/spmv/bdia_spmv.cuh"

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

/// What every in-kernel solver takes; each solver's parameters add its vectors.
struct InKernelParams {
    BdiaView A;
    long long n;  ///< rows: M K + wells
    const double* b;
    double* x;                   ///< initial guess in, solution out
    double* partial;             ///< [2 parities][kMaxReductions][grid]
    unsigned* flags;             ///< [grid] arrival epochs, zero at launch
    SolverState* st;             ///< in: tolerance, max_iterations, max_restarts; out: the result
    double* history;             ///< [max_iterations + 1]
    double* quasi_history;       ///< QMR's tau_i / ||b|| [max_iterations + 1], or null
    InKernelProgress* progress;  ///< host-mapped, or null
    long long block_rows;        ///< rows per block: warps x passes x pass rows
    int passes;                  ///< passes per warp (a power of two)
    int shared_ranges;           ///< the range vectors (x included) in shared memory
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

/// Dynamic shared memory of a launch: the `ranges` range vectors (if in shared memory), the
/// warps' running reduction trees and each warp's pass of SpMV rows.
inline size_t in_kernel_shared_bytes(long long block_rows, int threads, int K, int ranges,
                                     bool shared_ranges) {
    const long long warps = threads / 32;
    const long long leaves = block_rows / warps / 32;
    return sizeof(double) *
           static_cast<size_t>((shared_ranges ? ranges * block_rows : 0) +
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
    double* ranges;     ///< the range vectors in shared memory [ranges][block rows], or null
    double* x;          ///< the range vector x, indexed by i - e0 (shared or global memory)
    double* stack;      ///< this warp's running trees [kMaxReductions][levels] (lane 0)
    int levels;
    double (*warp_values)[32];  ///< [kMaxReductions][warp]: each warp's subtrees
    double* totals;             ///< [kMaxReductions]: the grid's sums
    unsigned epoch;             ///< WS-S constructs so far
};

/// One 32-row leaf (leaf k of the warp, lane l holding row i and its terms): the groups of
/// 4 lanes summed left to right, then the tree over 8 groups; lane 0 folds the leaves as they
/// come with pairwise_sum's stack of complete subtrees (depth: the stack's height).
/// The terms of Q reductions (one slot when Q is 0: a phase without reductions).
template <int Q>
using Terms = double[Q > 0 ? Q : 1];

template <int Q>
__device__ __forceinline__ void push_leaf(const BlockRange& B, long long i, const Terms<Q>& terms,
                                          int k, int& depth) {
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

/// A phase's per-leaf epilogue that does nothing (see block_phase).
struct NoLeafEpilogue {
    __device__ void operator()(long long) const {}
};

/// Calls body(i, terms) for each row i this thread owns (terms[q]: its term of reduction q)
/// and leaves each warp's Q subtrees in warp_values. after(i) follows each leaf's body in
/// all 32 lanes (i >= n: an absent row), converged, so it may exchange the leaf's values by
/// warp shuffles (the fused point-block preconditioner).
template <int Q, class Body, class After = NoLeafEpilogue>
__device__ void block_phase(const BlockRange& B, Body body, After after = {}) {
    int depth = 0, k = 0;
    for (; k < B.leaves; ++k) {
        const long long first = B.row0 + 32LL * k;
        if (first >= B.n) break;  // warp-uniform: the rest of the warp's rows are absent
        const long long i = first + (threadIdx.x & 31);
        Terms<Q> terms = {};
        if (i < B.n) body(i, terms);
        push_leaf<Q>(B, i, terms, k, depth);
        after(i);
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

/// Rows [p0, p0 + pass rows) of A x (A^T x with kTranspose) into this warp's pass buffer,
/// x(j) given by xf (so x can be recomputed from other vectors at every read). One cell per
/// lane, as the multi-kernel SpMV: a warp's Bdia loads are 32 consecutive cells of one plane.
/// Each row is summed in the canonical order (d, c, then the non-neighbour connections in
/// entry order, each over c, then the well term); the transpose reads
/// block (n, m) of H from the mirrored diagonal 6 - d at the neighbour n, entry (c, r), and
/// A must then be the transposed view (well arrays swapped), as the CPU's spmv_transpose. A
/// missing neighbour reads cell m itself (a valid address, the product unused), so the loads
/// carry no branch. A cell straddling the pass's edge (K not a power of two) is computed by
/// both passes, each keeping its rows.
template <int K, bool kTranspose, bool kNnc, class XF>
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
            const unsigned nc = present ? m + s.off[d] : m;
            const long long nb = static_cast<long long>(nc) * K;
            // (Unrolling all K columns at K > 8 would spill: K loads per column suffice.)
#pragma unroll(K <= 8 ? K : 1)
            for (int col = 0; col < K; ++col) {
                const double xv = xf(nb + col);
#pragma unroll
                for (int r = 0; r < K; ++r) {
                    const double a = __ldg(
                        A.bdia +
                        (kTranspose
                             ? bdia_index<BdiaVariant::cell_fastest>(K, 6 - d, col, r, nc, A.Mp)
                             : bdia_index<BdiaVariant::cell_fastest>(K, d, r, col, m, A.Mp)));
                    if (present) acc[r] = mul_add(a, xv, acc[r]);
                }
            }
        }
        if constexpr (kNnc) {  // the row's connections, after the stencil (decision 68)
            for (int e = __ldg(A.nnc_ptr + m); e < __ldg(A.nnc_ptr + m + 1); ++e) {
                const long long nb = static_cast<long long>(__ldg(A.nnc_col + e)) * K;
                const int entry = kTranspose ? __ldg(A.nnc_mirror + e) : e;  // block (row, col)
                const double* block = A.nnc_vals + static_cast<long long>(entry) * K * K;
                // Few cells have connections: a column at a time keeps the loop's registers
                // small.
#pragma unroll 1
                for (int col = 0; col < K; ++col) {
                    const double xv = xf(nb + col);
#pragma unroll
                    for (int r = 0; r < K; ++r) {
                        const double a = __ldg(block + (kTranspose ? col * K + r : r * K + col));
                        acc[r] = mul_add(a, xv, acc[r]);
                    }
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

/// y = A x (A^T x with kTranspose, A the transposed view) for this thread's rows, then
/// body(i, y_i, terms) and after(i) for each of them as in block_phase: per pass, the lanes
/// compute cells into the warp's pass buffer, then read it back by rows (coalesced stores of
/// y, and the canonical leaves of the reductions).
template <int K, int Q, bool kTranspose, bool kNnc, class XF, class Body,
          class After = NoLeafEpilogue>
__device__ void spmv_phase(const BlockRange& B, const BdiaView& A, XF xf, Body body,
                           After after = {}) {
    constexpr int kPassLeaves = static_cast<int>(in_kernel_pass_rows(K) / 32);
    int depth = 0, k = 0;
    for (long long p0 = B.row0; k < B.leaves && p0 < B.n; p0 += 32 * kPassLeaves) {
        pass_products<K, kTranspose, kNnc>(B, A, p0, xf);
        __syncwarp();
        for (int l = 0; l < kPassLeaves && p0 + 32 * l < B.n; ++l, ++k) {
            const long long i = p0 + 32 * l + (threadIdx.x & 31);
            Terms<Q> terms = {};
            if (i < B.n) body(i, B.pass[i - p0], terms);
            push_leaf<Q>(B, i, terms, k, depth);
            after(i);
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

/// WS-2 before a phase without SpMV: prefetch this warp's first leaf of the vectors it streams
/// (global-memory pointers to the vectors' first rows; null entries are skipped), one per lane.
template <int N>
__device__ __forceinline__ void prefetch_first_leaf(const BlockRange& B,
                                                    const double* const (&vectors)[N]) {
    static_assert(N <= 32, "one vector per lane");
    const int lane = threadIdx.x & 31;
    const long long len = (B.row0 + 32 < B.n ? B.row0 + 32 : B.n) - B.row0;
    if (len <= 0 || lane >= N || vectors[lane] == nullptr) return;
    prefetch_l2(vectors[lane] + B.row0, static_cast<unsigned>(len * sizeof(double)));
}

// ---- what every solver does --------------------------------------------------------------

/// Range vector k of the block (indexed by i - e0): in shared memory, or `global` (a vector of
/// n entries) from the block's first row.
__device__ __forceinline__ double* range_vector(const BlockRange& B, const InKernelParams& P, int k,
                                                double* global) {
    return P.shared_ranges ? B.ranges + k * P.block_rows : global + B.e0;
}

/// The block's rows and shared memory: `ranges` range vectors of block_rows entries first (if
/// they are in shared memory), then the warps' running trees and pass buffers.
template <int K>
__device__ BlockRange block_range(const InKernelParams& P, double* smem, int ranges,
                                  double (*warp_values)[32], double* totals) {
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
    B.ranges = nullptr;
    if (P.shared_ranges) {
        B.ranges = smem;
        stacks = smem + ranges * P.block_rows;
    }
    B.x = range_vector(B, P, 0, P.x);
    B.stack = stacks + warp * kMaxReductions * B.levels;
    B.pass = stacks + warps * kMaxReductions * B.levels + warp * in_kernel_pass_rows(K);
    B.warp_values = warp_values;
    B.totals = totals;
    B.epoch = 0;
    return B;
}

/// The result of a solve as every block sees it (identical in all threads: computed from the
/// same totals), with the reference's SolverFrame rules for recording and failing.
struct KernelFrame {
    double tolerance;
    bool leader;  ///< block 0, thread 0: writes the history, progress and the result
    double bnorm, relative_residual, true_relative_residual, detail_value;
    int iterations, status, restarts, detail, detail_iteration;

    __device__ explicit KernelFrame(const InKernelParams& P)
        : tolerance(P.st->tolerance),
          leader(blockIdx.x == 0 && threadIdx.x == 0),
          bnorm(0.0),
          relative_residual(0.0),
          true_relative_residual(0.0),
          detail_value(0.0),
          iterations(0),
          status(kRunning),
          restarts(0),
          detail(kDetailNone),
          detail_iteration(0) {}

    /// SolverFrame::record: true when the solve ends here (converged or non-finite).
    __device__ bool record(const InKernelParams& P, int it, double norm) {
        record_residual(*this, it, norm);
        if (leader) {
            P.history[it] = relative_residual;
            if (P.progress != nullptr && (it & 31) == 0) {
                volatile InKernelProgress* pr = P.progress;
                pr->relative_residual = relative_residual;
                pr->iterations = it;
            }
        }
        return status != kRunning;
    }

    /// SolverFrame::fail: breakdown on a zero, non_finite on a non-finite value.
    __device__ void fail(double value, int what, int it) { record_failure(*this, value, what, it); }
};

/// ||b - A x|| with x published to global memory first (a collective write before the SpMV
/// of x); store(i, r_i) sees each of this thread's rows of the residual.
template <int K, bool kNnc, class Store>
__device__ double residual_norm(BlockRange& B, const InKernelParams& P, Store store) {
    using namespace heptane::canonical;
    if (P.shared_ranges) block_entries(B, [&](long long i) { P.x[i] = B.x[i - B.e0]; });
    barrier(B, P);
    const double* x = P.x;
    spmv_phase<K, 1, false, kNnc>(
        B, P.A, [x](long long j) { return x[j]; },
        [&](long long i, double ax, double(&terms)[1]) {
            const double ri = sub(__ldg(P.b + i), mul(1.0, ax));
            store(i, ri);
            terms[0] = mul(ri, ri);
        });
    double total[1];
    ws_sync<1>(
        B, P, [&] { prefetch_first_pass_bdia<K>(B, P.A); }, total);
    return sqrt(total[0]);
}

/// Iteration 0: r = b - A x0 with store(i, r_i) for each row, x0 copied into the range x; sets
/// F.bnorm and returns ||r||^2, or returns -1 when ||b|| is zero or not finite (the host then
/// applies the reference's exits; bnorm is already in the state).
template <int K, bool kNnc, class Store>
__device__ double initial_residual(BlockRange& B, const InKernelParams& P, KernelFrame& F,
                                   Store store) {
    using namespace heptane::canonical;
    const double* x = P.x;
    spmv_phase<K, 2, false, kNnc>(
        B, P.A, [x](long long j) { return x[j]; },
        [&](long long i, double ax, double(&terms)[2]) {
            const double bi = __ldg(P.b + i);
            const double ri = sub(bi, mul(1.0, ax));
            store(i, ri);
            if (P.shared_ranges) B.x[i - B.e0] = P.x[i];
            terms[0] = mul(bi, bi);
            terms[1] = mul(ri, ri);
        });
    double total[2];
    ws_sync<2>(
        B, P, [&] { prefetch_first_pass_bdia<K>(B, P.A); }, total);
    F.bnorm = sqrt(total[0]);
    if (!std::isfinite(F.bnorm) || F.bnorm == 0.0) {
        if (F.leader) P.st->bnorm = F.bnorm;
        return -1.0;
    }
    return total[1];
}

/// The end of every solve: the true residual ||b - A x|| / ||b||, and the result into P.st.
template <int K, bool kNnc>
__device__ void finish_in_kernel(BlockRange& B, const InKernelParams& P, KernelFrame& F) {
    F.true_relative_residual = residual_norm<K, kNnc>(B, P, [](long long, double) {}) / F.bnorm;
    if (F.leader) {
        SolverState& st = *P.st;
        st.bnorm = F.bnorm;
        st.iterations = F.iterations;
        st.status = F.status;
        st.restarts = F.restarts;
        st.relative_residual = F.relative_residual;
        st.true_relative_residual = F.true_relative_residual;
        st.detail = F.detail;
        st.detail_value = F.detail_value;
        st.detail_iteration = F.detail_iteration;
    }
}

}  // namespace heptane::gpu::detail
