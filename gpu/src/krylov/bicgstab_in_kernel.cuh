#pragma once
/// @file The persistent (in-kernel) BiCGStab of seed 002, sections 6.3-6.4 and Algorithm 2,
/// on the machinery of in_kernel.cuh. An iteration is three WS-S constructs:
///   WS-S 1  v = A p                       -> sigma = (r_hat, v)
///   WS-S 2  t = A s, s = r - alpha v      -> (s, s), (t, t), (t, s)
///   WS-S 3  x, r, q = p - omega v         -> (r, r), rho = (r_hat, r)
/// Algorithm 2 has a fourth, the collective write of p (its line 8) before v = A p. Here no
/// block needs another block's p or s: p = r + beta q and s = r - alpha v are recomputed
/// wherever the SpMV reads them, from the shared vectors r, q (= p - omega v, Algorithm 2
/// line 28) and v, which no block writes during the WS-S that reads them. That removes the
/// synchronization and the p and s vectors altogether (design decision 21).
#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "core/base/canonical.hpp"
#include "core/krylov/bicgstab_recurrence.hpp"
#include "gpu/src/krylov/in_kernel.cuh"
#include "gpu/src/precond/block_smoothers.cuh"

namespace heptane::gpu::detail {

/// Range vectors of the BiCGStab: x, r_hat, t.
constexpr int kBicgstabRanges = 3;

struct BicgstabParams : InKernelParams {
    // Read by other blocks (at the SpMV halo): global memory.
    double* r;
    double* q;  ///< p^ - omega v^ of the last iteration
    double* v;
    // Range vectors in global memory (null when they are in shared memory).
    double* r_hat;
    double* t;
    // Fused point-block Jacobi (design decision 27): r^ = M^{-1} r and v^ = M^{-1} v, which
    // the SpMVs read at the halo (p^ = r^ + beta q, s^ = r^ - alpha v^). Without a
    // preconditioner rp = r and vp = v, and nothing is applied.
    double* rp;
    double* vp;
    int preconditioned;
    PointBlockView M;
};

/// z = M^{-1} y for this block's rows, after the block has written y (its rows hold whole
/// cells: rows per block are a multiple of K for K a power of two). After the initial
/// residual and a restart only; inside the iteration the leaf epilogue below does it.
__device__ __forceinline__ void precondition_rows(const BlockRange& B, const BicgstabParams& P,
                                                  const double* y, double* z) {
    __syncthreads();
    block_entries(B, [&](long long i) { z[i] = point_block_row(P.M, i, y); });
}

/// The fused point-block Jacobi as a leaf epilogue (block_phase / spmv_phase): lane l holds
/// row i = leaf + l and its value y_i (in `y`, set by the phase's body); a leaf is 32 rows
/// from a multiple of 32, so a cell's K rows (K a power of two) sit in K consecutive lanes
/// and the lane reads its cell's values by shuffles: z_i = block::inverse_row(inv of cell,
/// K, i mod K, y of the cell), the bits of point_block_row, with no barrier and no re-read
/// of y. Every lane runs the shuffles; only rows < n store.
struct PointBlockEpilogue {
    const PointBlockView& M;
    long long n;
    double* z;
    const double& y;
    __device__ void operator()(long long i) const {
        const int lane = threadIdx.x & 31;
        const int K = M.K;
        const int first_lane = lane & ~(K - 1);
        const long long cells = M.cell_rows / K;
        long long m = i / K;
        if (m >= cells) m = cells - 1;  // well or absent rows: any cell's inverse, discarded
        const double zi = block::inverse_row(M.inv + m * K * K, K, lane - first_lane, [&](int c) {
            return __shfl_sync(0xffffffffu, y, first_lane + c);
        });
        if (i >= n) return;
        z[i] = i < M.cell_rows ? zi : canonical::mul(M.inv_d[i - M.cell_rows], y);
    }
};

template <int K, bool kNnc>
__global__ void __launch_bounds__(kInKernelMaxThreads, 1)
    bicgstab_persistent(const __grid_constant__ BicgstabParams P) {
    using namespace heptane::canonical;
    extern __shared__ double smem[];
    __shared__ double warp_values[kMaxReductions][32];
    __shared__ double totals[kMaxReductions];
    const BdiaView& A = P.A;
    BlockRange B = block_range<K>(P, smem, kBicgstabRanges, warp_values, totals);
    double* const r_hat = range_vector(B, P, 1, P.r_hat);
    double* const t = range_vector(B, P, 2, P.t);
    auto own = [&B](long long i) { return i - B.e0; };
    auto prefetch_bdia = [&] { prefetch_first_pass_bdia<K>(B, A); };
    auto prefetch_vectors = [&] {
        const double* const v[] = {P.r, P.q, P.v, P.shared_ranges ? nullptr : P.t,
                                   P.shared_ranges ? nullptr : P.x};
        prefetch_first_leaf(B, v);
    };
    // r = b - A x (with r_hat = r): iteration 0 and the shadow-residual restart; then
    // r^ = M^{-1} r, published before any block's SpMV reads it.
    auto store_r = [&](long long i, double ri) {
        P.r[i] = ri;
        r_hat[own(i)] = ri;
    };
    auto precondition_r = [&] {
        if (!P.preconditioned) return;
        precondition_rows(B, P, P.r, P.rp);
        barrier(B, P);
    };

    const int max_iterations = P.st->max_iterations, max_restarts = P.st->max_restarts;
    KernelFrame F(P);
    const double rr = initial_residual<K, kNnc>(B, P, F, store_r);
    if (rr < 0.0) return;
    precondition_r();
    BicgstabRecurrence R;  // the reference's scalar rules (core/krylov/bicgstab_recurrence.hpp)
    R.start(sqrt(rr));
    double rho = rr;  // (r_hat, r) with r_hat = r: the same products, the same tree
    F.record(P, 0, R.r_norm);
    for (int it = 1; F.status == kRunning && it <= max_iterations; ++it) {
        // Near-breakdown of rho = (r_hat, r): restart from x with r = b - A x, r_hat = r.
        const int rho_check = R.check_rho(rho, max_restarts);
        if (rho_check == kRhoNonFinite || rho_check == kRhoZero) {
            F.fail(rho, rho_check == kRhoZero ? kDetailRhoZero : kDetailRhoNonFinite, it);
            break;
        }
        if (rho_check == kRhoRestart) {
            R.restart(residual_norm<K, kNnc>(B, P, store_r));
            F.restarts = R.restarts;
            precondition_r();
            rho = R.rho;
        }
        // beta = (rho / rho_old) (alpha / omega);  p = r + beta (p - omega v) = r + beta q
        // (preconditioned: p^ = r^ + beta q with q = p^ - omega v^)
        const bool fresh_p = R.fresh;
        R.accept_rho(rho);
        const double beta = R.beta;
        auto p_at = [&P, fresh_p, beta](long long j) {
            const double rj = P.rp[j];
            return fresh_p ? rj : mul_add(beta, P.q[j], rj);
        };

        // WS-S 1: v = A p^;  sigma = (r_hat, v);  alpha = rho / sigma;  v^ = M^{-1} v
        {
            double v_leaf = 0.0;  // this lane's v_i of the current leaf (for the epilogue)
            auto body = [&](long long i, double vi, double(&terms)[1]) {
                P.v[i] = vi;
                v_leaf = vi;
                terms[0] = mul(r_hat[own(i)], vi);
            };
            if (P.preconditioned) {
                spmv_phase<K, 1, false, kNnc>(B, A, p_at, body,
                                              PointBlockEpilogue{P.M, P.n, P.vp, v_leaf});
            } else {
                spmv_phase<K, 1, false, kNnc>(B, A, p_at, body);
            }
            double total[1];
            ws_sync<1>(B, P, prefetch_bdia, total);
            if (!R.accept_sigma(total[0])) {
                F.fail(total[0], kDetailSigma, it);
                break;
            }
        }
        const double alpha = R.alpha;
        auto s_at = [&P, alpha](long long j) { return sub(P.r[j], mul(alpha, P.v[j])); };
        auto sp_at = [&P, alpha](long long j) { return sub(P.rp[j], mul(alpha, P.vp[j])); };

        // WS-S 2: s = r - alpha v;  t = A s^;  ||s||, (t, t), (t, s);  omega = (t, s) / (t, t)
        {
            spmv_phase<K, 3, false, kNnc>(B, A, sp_at,
                                          [&](long long i, double ti, double(&terms)[3]) {
                                              t[own(i)] = ti;
                                              const double si = s_at(i);
                                              terms[0] = mul(si, si);
                                              terms[1] = mul(ti, ti);
                                              terms[2] = mul(ti, si);
                                          });
            double total[3];
            ws_sync<3>(B, P, prefetch_vectors, total);
            const double s_norm = sqrt(total[0]);
            if (BicgstabRecurrence::half_step(s_norm, F.bnorm, F.tolerance)) {
                // Half step: x = x + alpha p (r = s is not needed again), converged.
                block_entries(
                    B, [&](long long i) { B.x[own(i)] = mul_add(alpha, p_at(i), B.x[own(i)]); });
                F.record(P, it, s_norm);
                break;
            }
            if (!R.accept_t(total[1], total[2])) {
                F.fail(total[1], kDetailTT, it);
                break;
            }
        }
        const double omega = R.omega;

        // WS-S 3: x = x + alpha p^ + omega s^;  r = s - omega t;  q = p^ - omega v^;
        //         ||r|| (convergence) and rho = (r_hat, r) of the next iteration; r^ = M^{-1} r
        {
            double r_leaf = 0.0;  // this lane's new r_i of the current leaf
            auto body = [&](long long i, double(&terms)[2]) {
                const long long l = own(i);
                const double pi = p_at(i);
                const double si = s_at(i);
                const double spi = P.preconditioned ? sp_at(i) : si;
                B.x[l] = add(B.x[l], mul_add(omega, spi, mul(alpha, pi)));
                const double r_new = sub(si, mul(omega, t[l]));
                P.q[i] = sub(pi, mul(omega, P.vp[i]));
                P.r[i] = r_new;
                r_leaf = r_new;
                terms[0] = mul(r_new, r_new);
                terms[1] = mul(r_hat[l], r_new);
            };
            if (P.preconditioned) {
                block_phase<2>(B, body, PointBlockEpilogue{P.M, P.n, P.rp, r_leaf});
            } else {
                block_phase<2>(B, body);
            }
            double total[2];
            ws_sync<2>(B, P, prefetch_bdia, total);
            const double r_norm = sqrt(total[0]);
            if (F.record(P, it, r_norm)) break;
            if (!R.next(r_norm)) {  // omega = 0: the next beta would divide by omega
                F.fail(omega, kDetailOmega, it);
                break;
            }
            rho = total[1];
        }
    }
    finish_in_kernel<K, kNnc>(B, P, F);
}

/// The kernel for block size K (instantiated in bicgstab_in_kernel_k*.cu), with the rows'
/// non-neighbour connections where kNnc (K <= kInKernelConnectionsMaxK; design decision 68).
template <int K, bool kNnc>
const void* bicgstab_kernel() {
    return reinterpret_cast<const void*>(&bicgstab_persistent<K, kNnc>);
}

}  // namespace heptane::gpu::detail
