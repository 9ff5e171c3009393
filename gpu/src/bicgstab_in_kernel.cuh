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
#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "core/canonical.hpp"
#include "gpu/src/bdia_spmv.cuh"
#include "gpu/src/canonical_reduce.cuh"
#include "gpu/src/solver_state.cuh"

namespace heptane::gpu::detail {

constexpr int kInKernelMaxThreads = 256;
constexpr int kMaxReductions = 3;  ///< partial sums one WS-S publishes at most

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
    long long block_groups;      ///< canonical groups per block (a power of two >= blockDim)
    int shared_ranges;           ///< x, r_hat, t in shared memory
};

/// Dynamic shared memory of a launch: the range vectors (if in shared memory), the warp
/// values of the block's reductions and the grid's partial sums (staged with one coalesced
/// load before every block combines them).
inline size_t in_kernel_shared_bytes(long long block_groups, bool shared_ranges, long long grid) {
    const long long entries = block_groups * kGroup;
    return sizeof(double) *
           static_cast<size_t>((shared_ranges ? 3 * entries : 0) +
                               kMaxReductions * (block_groups / 32) + kMaxReductions * grid);
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

struct BlockRange {
    long long e0, e1;  ///< entries [e0, e1)
    long long g0;      ///< first canonical group
    long long groups;  ///< groups of the whole vector
    int passes;        ///< groups per thread
    double* x;         ///< range vectors, indexed by i - e0 (shared or global memory)
    double* r_hat;
    double* t;
    double* warp_values;  ///< [kMaxReductions][passes * warps]
    double* staged;       ///< [kMaxReductions][grid]: the grid's partial sums
    double* scratch;      ///< 33 doubles
    unsigned epoch;       ///< WS-S constructs so far
};

/// Calls body(e, g) for each group this thread owns (entries e .. e + kGroup - 1, clipped
/// to the vector), g[q] collecting reduction q; then the block's Q sums (a subtree of the
/// canonical tree each) in sum[q], in every thread.
template <int Q, class Body>
__device__ void block_phase(const BlockRange& B, Body body, double (&sum)[Q]) {
    const int warps = blockDim.x / 32;
    const int values = B.passes * warps;
    for (int p = 0; p < B.passes; ++p) {
        const long long g = B.g0 + static_cast<long long>(p) * blockDim.x + threadIdx.x;
        GroupSum gs[Q];
        if (g * kGroup < B.e1) body(g * kGroup, gs);
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const double v = warp_tree(gs[q].s, g, B.groups);
            if ((threadIdx.x & 31) == 0)
                B.warp_values[q * values + p * warps + threadIdx.x / 32] = v;
        }
    }
    __syncthreads();
    const long long present = (B.groups - B.g0 + 31) / 32;
    const long long count = present < values ? present : values;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const double* w = B.warp_values + q * values;
        sum[q] = block_tree([w](long long i) { return w[i]; }, count, B.scratch);
    }
}

/// Calls f(i) for each entry this thread owns (no reduction).
template <class F>
__device__ void block_entries(const BlockRange& B, F f) {
    for (int p = 0; p < B.passes; ++p) {
        const long long e = (B.g0 + static_cast<long long>(p) * blockDim.x + threadIdx.x) * kGroup;
        for (long long i = e; i < e + kGroup && i < B.e1; ++i) f(i);
    }
}

/// Arrival: this block's writes of the phase (all threads: bar.sync orders them before
/// thread 0's store), then its flag with release semantics (st.release.gpu: a release fence
/// and the store, the pattern of a cooperative-groups grid sync). Any block that acquires the flag
/// sees every write the block made before it.
__device__ __forceinline__ void arrive(const InKernelParams& P, unsigned epoch) {
    __syncthreads();
    if (threadIdx.x == 0) store_release(P.flags + blockIdx.x, epoch);
}

/// Waits for every block's flag to reach `epoch`. Only warp 0 polls (the other warps wait
/// at the barrier and add no traffic to the flags' cache lines): lane l watches blocks l,
/// l + 32, ...; a sweep issues all its relaxed loads at once (an acquire load would hold
/// back the next one: a round trip per flag), with a short back-off between sweeps. Each
/// lane then fences (relaxed loads that observed a release, then fence.acq_rel: an
/// acquire), and bar.sync extends that to the whole block - message passing: after it,
/// plain loads see every write the other blocks made before arriving. Data other blocks
/// write during the solve is never read through the read-only path (__ldg).
__device__ __forceinline__ void wait_all(const InKernelParams& P, unsigned epoch) {
    if (threadIdx.x < 32) {
        for (;;) {
            bool seen = true;
            for (unsigned b = threadIdx.x; b < gridDim.x; b += 32) {
                seen &= static_cast<int>(load_relaxed(P.flags + b) - epoch) >= 0;
            }
            if (__all_sync(0xffffffffu, seen)) break;
            __nanosleep(64);
        }
        __threadfence();
    }
    __syncthreads();
}

/// A WS-S construct's synchronization with Q reductions: publish the block's sums, arrive,
/// run the WS-2 work, wait, combine the grid's sums (every block, same order, same bits).
/// Partial sums alternate between two slots: a block can only overwrite a slot after every
/// block has arrived at the next WS-S, i.e. has finished reading it.
template <int Q, class Ws2>
__device__ void ws_sync(BlockRange& B, const InKernelParams& P, const double (&sum)[Q], Ws2 ws2,
                        double (&total)[Q]) {
    const unsigned epoch = ++B.epoch;
    double* slot = P.partial + (epoch & 1u) * kMaxReductions * gridDim.x;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int q = 0; q < Q; ++q) slot[q * gridDim.x + blockIdx.x] = sum[q];
    }
    arrive(P, epoch);
    ws2();
    wait_all(P, epoch);
    // All partial sums in one round trip, then the trees from shared memory.
    for (unsigned i = threadIdx.x; i < Q * gridDim.x; i += blockDim.x)
        B.staged[i] = __ldcg(slot + i);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const double* s = B.staged + q * gridDim.x;
        total[q] = block_tree([s](long long i) { return s[i]; }, gridDim.x, B.scratch);
    }
}

/// A synchronization without reductions (a collective write: x before an SpMV of x).
__device__ __forceinline__ void barrier(BlockRange& B, const InKernelParams& P) {
    const unsigned epoch = ++B.epoch;
    arrive(P, epoch);
    wait_all(P, epoch);
}

// ---- SpMV rows ---------------------------------------------------------------------------

/// Rows e .. e + kGroup - 1 (clipped to n) of y = A x, with x(j) given by xf (so x can be
/// recomputed from other vectors at every read): emit(i, y_i) in increasing i. Rows of one
/// cell share the loads of x; each row is summed in the canonical order (d, c, then the
/// well term; well rows over their cells, then D).
template <int K, class XF, class Emit>
__device__ __forceinline__ void group_rows(const BdiaView& A, long long e, long long n, XF xf,
                                           Emit emit) {
    using namespace heptane::canonical;
    const long long MK = static_cast<long long>(A.M) * K;
    const long long end = e + kGroup < n ? e + kGroup : n;
    const long long cell_end = end < MK ? end : MK;
    long long i = e;
    while (i < cell_end) {
        const unsigned m = static_cast<unsigned>(i / K);
        const int r0 = static_cast<int>(i - static_cast<long long>(m) * K);
        const int rows = static_cast<int>(K - r0 < cell_end - i ? K - r0 : cell_end - i);
        const Stencil s = stencil(A, m);
        double acc[kGroup] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
        for (int d = 0; d < 7; ++d) {
            if (!(s.mask & (1u << d))) continue;
            const long long nb = static_cast<long long>(m + s.off[d]) * K;
#pragma unroll
            for (int c = 0; c < K; ++c) {
                const double xv = xf(nb + c);
#pragma unroll
                for (int rr = 0; rr < kGroup; ++rr) {
                    if (rr < rows) {
                        const size_t idx =
                            bdia_index<BdiaVariant::cell_fastest>(K, d, r0 + rr, c, m, A.Mp);
                        acc[rr] = mul_add(__ldg(A.bdia + idx), xv, acc[rr]);
                    }
                }
            }
        }
        int base = 0;
        const int w = well_of(A, m, K, base);
        if (w >= 0) {
            const double xw = xf(MK + w);
#pragma unroll
            for (int rr = 0; rr < kGroup; ++rr) {
                if (rr < rows) acc[rr] = mul_add(__ldg(A.well_cols + base + r0 + rr), xw, acc[rr]);
            }
        }
#pragma unroll
        for (int rr = 0; rr < kGroup; ++rr) {
            if (rr < rows) emit(i + rr, acc[rr]);
        }
        i += rows;
    }
    for (; i < end; ++i) {  // well rows: the perforated cells' terms in order, then D
        const int w = static_cast<int>(i - MK);
        const int count = A.count[w] * K;
        const long long first = static_cast<long long>(A.cell0[w]) * K;
        const double* vals = A.well_rows + A.first[w];
        double sum = 0.0;
        for (int j = 0; j < count; ++j) sum = mul_add(__ldg(vals + j), xf(first + j), sum);
        emit(i, mul_add(__ldg(A.d + w), xf(i), sum));
    }
}

/// WS-2 before an SpMV: prefetch into L2 the Bdia planes of the cells of this block's first
/// pass (data-independent of the reduction being waited for).
template <int K>
__device__ void prefetch_first_pass_bdia(const BlockRange& B, const BdiaView& A) {
    const long long MK = static_cast<long long>(A.M) * K;
    const long long e_end = B.e0 + static_cast<long long>(blockDim.x) * kGroup;
    const long long last = (e_end < B.e1 ? e_end : B.e1) < MK ? (e_end < B.e1 ? e_end : B.e1) : MK;
    if (B.e0 >= last) return;
    const long long c0 = (B.e0 / K) & ~1LL;  // 16-byte aligned
    const long long c1 = (last - 1) / K + 1;
    for (int plane = threadIdx.x; plane < 7 * K * K; plane += blockDim.x) {
        prefetch_l2(A.bdia + static_cast<size_t>(plane) * A.Mp + c0,
                    static_cast<unsigned>((c1 - c0) * sizeof(double)));
    }
}

/// WS-2 before the last WS-S of an iteration: prefetch the first pass of the vectors it
/// streams (r, q, v; t and x when they are in global memory).
__device__ __forceinline__ void prefetch_first_pass_vectors(const BlockRange& B,
                                                            const InKernelParams& P) {
    const long long e_end = B.e0 + static_cast<long long>(blockDim.x) * kGroup;
    const long long len = (e_end < B.e1 ? e_end : B.e1) - B.e0;
    if (len <= 0 || threadIdx.x >= 5) return;
    const double* v[5] = {P.r, P.q, P.v, P.t, P.x};
    if (v[threadIdx.x] != nullptr && (threadIdx.x < 3 || !P.shared_ranges)) {
        prefetch_l2(v[threadIdx.x] + B.e0, static_cast<unsigned>(len * sizeof(double)));
    }
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
__global__ void __launch_bounds__(kInKernelMaxThreads)
    bicgstab_persistent(const __grid_constant__ InKernelParams P) {
    using namespace heptane::canonical;
    extern __shared__ double smem[];
    __shared__ double scratch[33];
    const BdiaView& A = P.A;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;

    BlockRange B;
    B.groups = (P.n + kGroup - 1) / kGroup;
    B.g0 = static_cast<long long>(blockIdx.x) * P.block_groups;
    B.e0 = B.g0 * kGroup;
    B.e1 = B.e0 + P.block_groups * kGroup < P.n ? B.e0 + P.block_groups * kGroup : P.n;
    B.passes = static_cast<int>(P.block_groups / blockDim.x);
    const long long entries = P.block_groups * kGroup;
    if (P.shared_ranges) {
        B.x = smem;
        B.r_hat = smem + entries;
        B.t = smem + 2 * entries;
        B.warp_values = smem + 3 * entries;
        B.staged = B.warp_values + kMaxReductions * (P.block_groups / 32);
    } else {
        B.x = P.x + B.e0;
        B.r_hat = P.r_hat + B.e0;
        B.t = P.t + B.e0;
        B.warp_values = smem;
        B.staged = B.warp_values + kMaxReductions * (P.block_groups / 32);
    }
    B.scratch = scratch;
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
        double sum[1], total[1];
        block_phase<1>(
            B,
            [&](long long e, GroupSum(&g)[1]) {
                group_rows<K>(A, e, P.n, x_global, [&](long long i, double ax) {
                    const double ri = sub(__ldg(P.b + i), mul(1.0, ax));
                    if (store) {
                        P.r[i] = ri;
                        B.r_hat[own(i)] = ri;
                    }
                    g[0].add(mul(ri, ri));
                });
            },
            sum);
        ws_sync<1>(B, P, sum, prefetch_bdia, total);
        return sqrt(total[0]);
    };

    // Iteration 0: r = b - A x0, r_hat = r; ||b||^2 and ||r||^2 in one WS-S.
    {
        double sum[2], total[2];
        block_phase<2>(
            B,
            [&](long long e, GroupSum(&g)[2]) {
                group_rows<K>(A, e, P.n, x_global, [&](long long i, double ax) {
                    const double bi = __ldg(P.b + i);
                    const double ri = sub(bi, mul(1.0, ax));
                    P.r[i] = ri;
                    B.r_hat[own(i)] = ri;
                    if (P.shared_ranges) B.x[own(i)] = P.x[i];
                    g[0].add(mul(bi, bi));
                    g[1].add(mul(ri, ri));
                });
            },
            sum);
        ws_sync<2>(B, P, sum, prefetch_bdia, total);
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
            double sum[1], total[1];
            block_phase<1>(
                B,
                [&](long long e, GroupSum(&g)[1]) {
                    group_rows<K>(A, e, P.n, p_at, [&](long long i, double vi) {
                        P.v[i] = vi;
                        g[0].add(mul(B.r_hat[own(i)], vi));
                    });
                },
                sum);
            ws_sync<1>(B, P, sum, prefetch_bdia, total);
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
            double sum[3], total[3];
            block_phase<3>(
                B,
                [&](long long e, GroupSum(&g)[3]) {
                    group_rows<K>(A, e, P.n, s_at, [&](long long i, double ti) {
                        B.t[own(i)] = ti;
                        const double si = s_at(i);
                        g[0].add(mul(si, si));
                        g[1].add(mul(ti, ti));
                        g[2].add(mul(ti, si));
                    });
                },
                sum);
            ws_sync<3>(B, P, sum, prefetch_vectors, total);
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
            double sum[2], total[2];
            block_phase<2>(
                B,
                [&](long long e, GroupSum(&g)[2]) {
                    const long long end = e + kGroup < B.e1 ? e + kGroup : B.e1;
                    for (long long i = e; i < end; ++i) {
                        const long long l = own(i);
                        const double ri = P.r[i], vi = P.v[i];
                        const double pi = fresh_p ? ri : mul_add(beta, P.q[i], ri);
                        const double si = sub(ri, mul(alpha, vi));
                        B.x[l] = add(B.x[l], mul_add(omega, si, mul(alpha, pi)));
                        const double r_new = sub(si, mul(omega, B.t[l]));
                        P.r[i] = r_new;
                        P.q[i] = sub(pi, mul(omega, vi));
                        g[0].add(mul(r_new, r_new));
                        g[1].add(mul(B.r_hat[l], r_new));
                    }
                },
                sum);
            ws_sync<2>(B, P, sum, prefetch_bdia, total);
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
