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

#include "core/canonical.hpp"
#include "gpu/src/in_kernel.cuh"

namespace heptane::gpu::detail {

/// Range vectors of the BiCGStab: x, r_hat, t.
constexpr int kBicgstabRanges = 3;

struct BicgstabParams : InKernelParams {
    // Read by other blocks (at the SpMV halo): global memory.
    double* r;
    double* q;  ///< p - omega v of the last iteration
    double* v;
    // Range vectors in global memory (null when they are in shared memory).
    double* r_hat;
    double* t;
};

template <int K>
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
    // r = b - A x (with r_hat = r): iteration 0 and the shadow-residual restart.
    auto store_r = [&](long long i, double ri) {
        P.r[i] = ri;
        r_hat[own(i)] = ri;
    };

    const int max_iterations = P.st->max_iterations, max_restarts = P.st->max_restarts;
    KernelFrame F(P);
    const double rr = initial_residual<K>(B, P, F, store_r);
    if (rr < 0.0) return;
    double r_norm = sqrt(rr), r_hat_norm = r_norm;
    double rho = rr;  // (r_hat, r) with r_hat = r: the same products, the same tree
    double rho_old = 1.0, alpha = 1.0, omega = 1.0, beta = 0.0;
    F.record(P, 0, r_norm);
    bool fresh = true;  // p = r at the first iteration and after a restart
    for (int it = 1; F.status == kRunning && it <= max_iterations; ++it) {
        // Near-breakdown of rho = (r_hat, r): restart from x with r = b - A x, r_hat = r.
        if (!std::isfinite(rho)) {
            F.fail(rho, kDetailRhoNonFinite, it);
            break;
        }
        if (std::abs(rho) <= std::numeric_limits<double>::epsilon() * r_hat_norm * r_norm) {
            if (F.restarts >= max_restarts) {
                F.fail(rho, kDetailRhoZero, it);
                break;
            }
            ++F.restarts;
            r_norm = r_hat_norm = residual_norm<K>(B, P, store_r);
            rho = r_norm * r_norm;
            fresh = true;
        }
        // beta = (rho / rho_old) (alpha / omega);  p = r + beta (p - omega v) = r + beta q
        const bool fresh_p = fresh;
        if (!fresh) beta = (rho / rho_old) * (alpha / omega);
        auto p_at = [&P, fresh_p, beta](long long j) {
            const double rj = P.r[j];
            return fresh_p ? rj : mul_add(beta, P.q[j], rj);
        };

        // WS-S 1: v = A p;  sigma = (r_hat, v);  alpha = rho / sigma
        {
            spmv_phase<K, 1>(B, A, p_at, [&](long long i, double vi, double(&terms)[1]) {
                P.v[i] = vi;
                terms[0] = mul(r_hat[own(i)], vi);
            });
            double total[1];
            ws_sync<1>(B, P, prefetch_bdia, total);
            const double sigma = total[0];
            if (sigma == 0.0 || !std::isfinite(sigma)) {
                F.fail(sigma, kDetailSigma, it);
                break;
            }
            alpha = rho / sigma;
            fresh = false;
        }
        auto s_at = [&P, alpha](long long j) { return sub(P.r[j], mul(alpha, P.v[j])); };

        // WS-S 2: s = r - alpha v;  t = A s;  ||s||, (t, t), (t, s);  omega = (t, s) / (t, t)
        {
            spmv_phase<K, 3>(B, A, s_at, [&](long long i, double ti, double(&terms)[3]) {
                t[own(i)] = ti;
                const double si = s_at(i);
                terms[0] = mul(si, si);
                terms[1] = mul(ti, ti);
                terms[2] = mul(ti, si);
            });
            double total[3];
            ws_sync<3>(B, P, prefetch_vectors, total);
            const double s_norm = sqrt(total[0]);
            if (s_norm / F.bnorm <= F.tolerance) {
                // Half step: x = x + alpha p (r = s is not needed again), converged.
                block_entries(
                    B, [&](long long i) { B.x[own(i)] = mul_add(alpha, p_at(i), B.x[own(i)]); });
                F.record(P, it, s_norm);
                break;
            }
            const double tt = total[1];
            if (tt == 0.0 || !std::isfinite(tt)) {
                F.fail(tt, kDetailTT, it);
                break;
            }
            omega = total[2] / tt;
        }

        // WS-S 3: x = x + alpha p + omega s;  r = s - omega t;  q = p - omega v;
        //         ||r|| (convergence) and rho = (r_hat, r) of the next iteration
        {
            block_phase<2>(B, [&](long long i, double(&terms)[2]) {
                const long long l = own(i);
                const double ri = P.r[i], vi = P.v[i];
                const double pi = fresh_p ? ri : mul_add(beta, P.q[i], ri);
                const double si = sub(ri, mul(alpha, vi));
                B.x[l] = add(B.x[l], mul_add(omega, si, mul(alpha, pi)));
                const double r_new = sub(si, mul(omega, t[l]));
                P.r[i] = r_new;
                P.q[i] = sub(pi, mul(omega, vi));
                terms[0] = mul(r_new, r_new);
                terms[1] = mul(r_hat[l], r_new);
            });
            double total[2];
            ws_sync<2>(B, P, prefetch_bdia, total);
            r_norm = sqrt(total[0]);
            if (F.record(P, it, r_norm)) break;
            if (omega == 0.0) {  // the next beta would divide by omega
                F.fail(omega, kDetailOmega, it);
                break;
            }
            rho_old = rho;
            rho = total[1];
        }
    }
    finish_in_kernel<K>(B, P, F);
}

/// The kernel for block size K (instantiated in bicgstab_in_kernel_k*.cu).
template <int K>
const void* bicgstab_kernel() {
    return reinterpret_cast<const void*>(&bicgstab_persistent<K>);
}

}  // namespace heptane::gpu::detail
