#pragma once
/// @file The persistent (in-kernel) QMR of seed 002, section 6.6, on the machinery of
/// in_kernel.cuh: the CPU reference's QMR (Freund-Nachtigal without look-ahead,
/// core/krylov/krylov.cpp, identity preconditioner) in one cooperative launch, with the reference's
/// bits.
///
/// The paper fuses QMR into nine WS-S per iteration (two SpMVs, nine inner products). Here an
/// iteration is three, because only three points of it need a grid-wide value before any
/// block can go on (design decision 23):
///   WS-S 1  d, s, x, r of the last iteration; v = v~ / rho, w = w~ / xi
///                                              -> ||r|| (its convergence), delta = (w, v)
///   WS-S 2  p = v - (xi delta / eps) p, q = w - (rho delta / eps) q; p~ = A p, u = A^T q
///                                              -> eps = (q, p~)
///   WS-S 3  v~ = p~ - beta v, w~ = u - beta w  -> rho = ||v~||, xi = ||w~||
/// As in the BiCGStab, no block needs another block's new p or q: the products recompute
/// them at every read from v, w and the old p, q (p and q alternate between two vectors, so
/// the owner's new values never overwrite what a neighbour still reads). The product with
/// A^T reads the mirrored diagonals and the swapped well arrays (no stored transpose).
#include <cuda_runtime.h>

#include <cmath>

#include "core/base/canonical.hpp"
#include "core/krylov/qmr_recurrence.hpp"
#include "gpu/src/krylov/in_kernel.cuh"

namespace heptane::gpu::detail {

/// Range vectors of the QMR: x, r, d, s, p~ = A p, u = A^T q.
constexpr int kQmrRanges = 6;

struct QmrParams : InKernelParams {
    BdiaView AT;  ///< the transposed view (well arrays swapped) for A^T
    // Read by other blocks (at the SpMV halo): global memory. p and q alternate.
    double* v;
    double* w;
    double* p[2];
    double* q[2];
    // Range vectors in global memory (null when they are in shared memory).
    double* r;
    double* d;
    double* s;
    double* pt;
    double* u;
};

template <int K, bool kNnc>
__global__ void __launch_bounds__(kInKernelMaxThreads, 1)
    qmr_persistent(const __grid_constant__ QmrParams P) {
    using namespace heptane::canonical;
    extern __shared__ double smem[];
    __shared__ double warp_values[kMaxReductions][32];
    __shared__ double totals[kMaxReductions];
    BlockRange B = block_range<K>(P, smem, kQmrRanges, warp_values, totals);
    double* const r = range_vector(B, P, 1, P.r);
    double* const d = range_vector(B, P, 2, P.d);
    double* const s = range_vector(B, P, 3, P.s);
    double* const pt = range_vector(B, P, 4, P.pt);
    double* const u = range_vector(B, P, 5, P.u);
    auto own = [&B](long long i) { return i - B.e0; };
    const bool global_ranges = !P.shared_ranges;
    int cur = 0;  // p[cur], q[cur]: the current p and q

    // WS-2 work: the first pass (or leaf) of what the next phase streams, into L2.
    auto before_products = [&] { prefetch_first_pass_bdia<K>(B, P.A); };
    auto before_tilde = [&] {
        const double* const v[] = {P.v, P.w, global_ranges ? P.pt : nullptr,
                                   global_ranges ? P.u : nullptr};
        prefetch_first_leaf(B, v);
    };
    auto before_updates = [&] {
        const double* const v[] = {P.v,
                                   P.w,
                                   P.p[cur],
                                   global_ranges ? P.pt : nullptr,
                                   global_ranges ? P.d : nullptr,
                                   global_ranges ? P.s : nullptr,
                                   global_ranges ? P.r : nullptr,
                                   global_ranges ? P.x : nullptr};
        prefetch_first_leaf(B, v);
    };

    // Iteration 0: r = b - A x0;  v~ = w~ = r;  d = s = 0 (at iteration 1 their weight is 0).
    KernelFrame F(P);
    const double rr = initial_residual<K, kNnc>(B, P, F, [&](long long i, double ri) {
        r[own(i)] = ri;
        P.v[i] = ri;
        P.w[i] = ri;
        d[own(i)] = 0.0;
        s[own(i)] = 0.0;
    });
    if (rr < 0.0) return;
    // rho = ||v~||, xi = ||z|| = ||w~|| (identity preconditioner): both ||r0||, the same bits.
    double rho = sqrt(rr), xi = rho;
    double delta = 0.0, eps = 1.0, beta = 0.0;
    QmrRecurrence givens;
    givens.tau = rho;
    if (F.leader) P.quasi_history[0] = givens.tau / F.bnorm;
    F.record(P, 0, rho);
    const int max_iterations = P.st->max_iterations;

    for (int it = 1; F.status == kRunning; ++it) {
        const bool update = it > 1;  // d, s, x and r of iteration it - 1
        const bool scale = it <= max_iterations && rho != 0.0 && xi != 0.0;
        if (!update && !scale) {
            if (max_iterations >= 1) F.fail(rho * xi, rho == 0.0 ? kDetailQmrRho : kDetailQmrXi, 1);
            break;
        }
        // WS-S 1: d = eta p + c d;  s = eta p~ + c s;  x = x + d;  r = r - s;  ||r||
        //         v = v~ / rho (= y);  w = w~ / xi (= z);  delta = z^T y
        {
            const double eta = givens.eta, c = givens.c, inv_rho = 1.0 / rho, inv_xi = 1.0 / xi;
            const double* p = P.p[cur];
            block_phase<2>(B, [&](long long i, double(&terms)[2]) {
                const long long l = own(i);
                if (update) {
                    const double di = mul_add(c, d[l], mul(eta, p[i]));
                    const double si = mul_add(c, s[l], mul(eta, pt[l]));
                    d[l] = di;
                    s[l] = si;
                    B.x[l] = mul_add(1.0, di, B.x[l]);
                    const double ri = mul_add(-1.0, si, r[l]);
                    r[l] = ri;
                    terms[0] = mul(ri, ri);
                }
                if (scale) {
                    const double vi = mul(inv_rho, P.v[i]), wi = mul(inv_xi, P.w[i]);
                    P.v[i] = vi;
                    P.w[i] = wi;
                    terms[1] = mul(wi, vi);
                }
            });
            double total[2];
            ws_sync<2>(B, P, before_products, total);
            if (update) {
                if (F.leader) P.quasi_history[it - 1] = givens.tau / F.bnorm;
                if (F.record(P, it - 1, sqrt(total[0]))) break;
            }
            if (it > max_iterations) break;
            if (rho == 0.0 || xi == 0.0) {
                F.fail(rho * xi, rho == 0.0 ? kDetailQmrRho : kDetailQmrXi, it);
                break;
            }
            delta = total[1];
            if (delta == 0.0 || !std::isfinite(delta)) {
                F.fail(delta, kDetailDelta, it);
                break;
            }
        }
        // WS-S 2: p = y - (xi delta / eps) p;  q = z - (rho delta / eps) q (p = y, q = z at
        //         the first iteration);  p~ = A p;  u = A^T q;  eps = q^T p~
        {
            const bool first = it == 1;
            const double cp = first ? 0.0 : -xi * delta / eps;
            const double cq = first ? 0.0 : -rho * delta / eps;
            const double *v = P.v, *w = P.w, *p_old = P.p[cur], *q_old = P.q[cur];
            double *p_new = P.p[cur ^ 1], *q_new = P.q[cur ^ 1];
            auto p_at = [=](long long j) { return first ? v[j] : mul_add(cp, p_old[j], v[j]); };
            auto q_at = [=](long long j) { return first ? w[j] : mul_add(cq, q_old[j], w[j]); };
            spmv_phase<K, 0, false, kNnc>(B, P.A, p_at, [&](long long i, double yi, double(&)[1]) {
                pt[own(i)] = yi;
                p_new[i] = p_at(i);
            });
            spmv_phase<K, 1, true, kNnc>(B, P.AT, q_at,
                                         [&](long long i, double yi, double(&terms)[1]) {
                                             const double qi = q_at(i);
                                             u[own(i)] = yi;
                                             q_new[i] = qi;
                                             terms[0] = mul(qi, pt[own(i)]);
                                         });
            double total[1];
            ws_sync<1>(B, P, before_tilde, total);
            cur ^= 1;
            eps = total[0];
            if (eps == 0.0 || !std::isfinite(eps)) {
                F.fail(eps, kDetailEpsilon, it);
                break;
            }
            beta = eps / delta;
            if (beta == 0.0) {
                F.fail(beta, kDetailBeta, it);
                break;
            }
        }
        // WS-S 3: v~ = p~ - beta v;  w~ = A^T q - beta w;  rho = ||v~||, xi = ||w~||;
        //         theta, gamma, eta, tau (core/krylov/qmr_recurrence.hpp)
        {
            block_phase<2>(B, [&](long long i, double(&terms)[2]) {
                const long long l = own(i);
                const double vt = mul_add(-beta, P.v[i], pt[l]);
                const double wt = mul_add(-beta, P.w[i], u[l]);
                P.v[i] = vt;
                P.w[i] = wt;
                terms[0] = mul(vt, vt);
                terms[1] = mul(wt, wt);
            });
            double total[2];
            ws_sync<2>(B, P, before_updates, total);
            const double rho_new = sqrt(total[0]), xi_new = sqrt(total[1]);
            const double gamma = givens.step(rho, rho_new, beta, it == 1);
            if (gamma == 0.0 || !std::isfinite(gamma)) {
                F.fail(gamma, kDetailGamma, it);
                break;
            }
            rho = rho_new;
            xi = xi_new;
        }
    }
    finish_in_kernel<K, kNnc>(B, P, F);
}

/// The kernel for block size K (instantiated in qmr_in_kernel_k*.cu), with the rows'
/// non-neighbour connections where kNnc (K <= kInKernelConnectionsMaxK; design decision 68).
template <int K, bool kNnc>
const void* qmr_kernel() {
    return reinterpret_cast<const void*>(&qmr_persistent<K, kNnc>);
}

}  // namespace heptane::gpu::detail
