// Multi-kernel QMR: the conventional GPU variant, built as the multi-kernel BiCGStab. One
// iteration is a fixed sequence of kernels (the Bdia products A p and A^T q, and fused
// vector-update-and-dot kernels) captured once into a CUDA graph and replayed; every scalar
// lives on the device and the kernels are gated by device state, so the host only looks every
// `check_interval` iterations and the iteration count is still exact. The arithmetic mirrors
// the reference qmr() of core/krylov/krylov.cpp operation by operation (canonical arithmetic,
// the Givens step by QmrRecurrence), so the iterates and both residual histories are the
// reference's bits. Right-preconditioned as the reference (M1 = I, M2 = M): y~ = M^{-1} v and
// z = M^{-T} w~ between kernels; without a preconditioner z is w and y~ is v (no copies).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "core/base/canonical.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/qmr_recurrence.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/canonical_reduce.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/multi_kernel_common.cuh"
#include "gpu/src/spmv/device_gh.cuh"
#include "gpu/src/spmv/device_operator.cuh"

namespace heptane::gpu {
namespace detail {
namespace {

using namespace heptane::canonical;

/// The reference's loop head for iteration `it`, run when iteration it - 1 has ended without
/// ending the solve: past max_iterations the solve stops; rho = ||v~|| = 0 or xi = ||w~|| = 0
/// is a breakdown (the reference's fail(rho xi, ...)).
__device__ void begin_iteration(SolverState& st, int it) {
    if (it > st.max_iterations) {
        st.status = kMaxIterations;
        st.update_gates();
    } else if (st.rho == 0.0 || st.xi == 0.0) {
        st.fail(st.rho * st.xi, st.rho == 0.0 ? kDetailQmrRho : kDetailQmrXi, it);
    }
}

// ---- kernels, in iteration order --------------------------------------------------------

/// After the SpMV r = A x: r = b - r;  v~ = r, w~ = r;  ||r||; records iteration 0 and sets
/// rho = ||v~||, xi = ||w~|| (= ||r||, the same reduction of the same bits), eps = 1 and the
/// Givens state with tau = ||r||.
__global__ void __launch_bounds__(kChunkThreads)
    k_init(Work work, const double* b, double* r, double* v, double* w, double* quasi) {
    double total[1];
    const bool last = reduce_chunk<1>(
        work,
        [&](long long i, GroupSum(&g)[1]) {
            const double ri = sub(b[i], mul(1.0, r[i]));
            r[i] = ri;
            v[i] = ri;
            w[i] = ri;
            g[0].add(mul(ri, ri));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    SolverState& st = *work.st;
    const double r0 = sqrt(total[0]);
    st.r_norm = r0;
    st.qmr = QmrRecurrence{};
    st.qmr.tau = r0;  // quasi-residual norm
    quasi[0] = st.qmr.tau / st.bnorm;
    if (st.record(0, r0, work.history)) return;
    st.rho = r0;
    st.xi = r0;
    st.epsilon = 1.0;
    begin_iteration(st, 1);
}

/// Preconditioned, at iteration 0: xi = ||z|| (z = M^{-T} w~), then the loop head again.
__global__ void __launch_bounds__(kChunkThreads) k_xi0(Work work, const double* z) {
    SolverState& st = *work.st;
    if (st.skip_iteration) return;
    double total[1];
    const bool last = reduce_chunk<1>(
        work, [&](long long i, GroupSum(&g)[1]) { g[0].add(mul(z[i], z[i])); }, total);
    if (!last || threadIdx.x != 0) return;
    st.xi = sqrt(total[0]);
    begin_iteration(st, 1);
}

/// v = v~ / rho;  w = w~ / xi;  z = z / xi (z is w without a preconditioner);  delta = z^T v.
__global__ void __launch_bounds__(kChunkThreads)
    k_delta(Work work, double* v, double* w, double* z) {
    SolverState& st = *work.st;
    if (st.skip_iteration) return;
    const double inv_rho = 1.0 / st.rho, inv_xi = 1.0 / st.xi;
    double total[1];
    const bool last = reduce_chunk<1>(
        work,
        [&](long long i, GroupSum(&g)[1]) {
            const double vi = mul(inv_rho, v[i]);
            const double wi = mul(inv_xi, w[i]);
            v[i] = vi;
            w[i] = wi;
            double zi = wi;
            if (z != w) {
                zi = mul(inv_xi, z[i]);
                z[i] = zi;
            }
            g[0].add(mul(zi, vi));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    const double delta = total[0];
    if (delta == 0.0 || !std::isfinite(delta)) {
        st.fail(delta, kDetailDelta, st.iterations + 1);
        return;
    }
    st.delta = delta;
}

/// p = y~, q = z (first iteration) or p = y~ - (xi delta / eps) p;  q = z - (rho delta / eps) q
/// (y~ = M^{-1} v; without a preconditioner the callers pass v and w).
__global__ void __launch_bounds__(kChunkThreads)
    k_update_pq(Work work, const double* v, const double* w, double* p, double* q) {
    const SolverState& st = *work.st;
    if (st.skip_iteration) return;
    const bool first = st.iterations == 0;
    const double cp = -st.xi * st.delta / st.epsilon;
    const double cq = -st.rho * st.delta / st.epsilon;
    each_entry(work, [&](long long i) {
        p[i] = first ? v[i] : mul_add(cp, p[i], v[i]);
        q[i] = first ? w[i] : mul_add(cq, q[i], w[i]);
    });
}

/// eps = q^T p~ (p~ = A p);  beta = eps / delta.
__global__ void __launch_bounds__(kChunkThreads)
    k_epsilon(Work work, const double* q, const double* p_tilde) {
    if (work.st->skip_iteration) return;
    double total[1];
    const bool last = reduce_chunk<1>(
        work, [&](long long i, GroupSum(&g)[1]) { g[0].add(mul(q[i], p_tilde[i])); }, total);
    if (!last || threadIdx.x != 0) return;
    SolverState& st = *work.st;
    const int it = st.iterations + 1;
    const double eps = total[0];
    if (eps == 0.0 || !std::isfinite(eps)) {
        st.fail(eps, kDetailEpsilon, it);
        return;
    }
    const double beta = eps / st.delta;
    if (beta == 0.0) {
        st.fail(beta, kDetailBeta, it);
        return;
    }
    st.epsilon = eps;
    st.beta = beta;
}

/// The Givens step (theta, gamma, eta, tau) of an iteration with ||v~|| = rho_new and
/// ||z|| = xi_new; then rho = rho_new, xi = xi_new.
__device__ void qmr_step(SolverState& st, double rho_new, double xi_new) {
    const double gamma = st.qmr.step(st.rho, rho_new, st.beta, st.iterations == 0);
    if (gamma == 0.0 || !std::isfinite(gamma)) {
        st.fail(gamma, kDetailGamma, st.iterations + 1);
        return;
    }
    st.rho = rho_new;
    st.xi = xi_new;
}

/// v~ = p~ - beta v;  w~ = A^T q - beta w;  rho_new = ||v~||, xi_new = ||w~||, then the
/// Givens step. Preconditioned (xi needs z = M^{-T} w~ first): rho_new into rho_next only.
__global__ void __launch_bounds__(kChunkThreads)
    k_tilde(Work work, const double* p_tilde, const double* at_q, double* v, double* w,
            bool preconditioned) {
    if (work.st->skip_iteration) return;
    const double beta = work.st->beta;
    double total[2];
    const bool last = reduce_chunk<2>(
        work,
        [&](long long i, GroupSum(&g)[2]) {
            const double vi = mul_add(-beta, v[i], p_tilde[i]);
            const double wi = mul_add(-beta, w[i], at_q[i]);
            v[i] = vi;
            w[i] = wi;
            g[0].add(mul(vi, vi));
            g[1].add(mul(wi, wi));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    SolverState& st = *work.st;
    if (preconditioned) {
        st.rho_next = sqrt(total[0]);
        return;
    }
    qmr_step(st, sqrt(total[0]), sqrt(total[1]));
}

/// Preconditioned: xi_new = ||z|| (z = M^{-T} w~), then the Givens step.
__global__ void __launch_bounds__(kChunkThreads) k_xi(Work work, const double* z) {
    SolverState& st = *work.st;
    if (st.skip_iteration) return;
    double total[1];
    const bool last = reduce_chunk<1>(
        work, [&](long long i, GroupSum(&g)[1]) { g[0].add(mul(z[i], z[i])); }, total);
    if (!last || threadIdx.x != 0) return;
    qmr_step(st, st.rho_next, sqrt(total[0]));
}

/// d = eta p + c d;  s = eta p~ + c s  (c = (theta_old gamma)^2, 0 at the first iteration);
/// x = x + d;  r = r - s;  ||r||; the quasi-residual tau / ||b||; the iteration's status.
__global__ void __launch_bounds__(kChunkThreads)
    k_update_xr(Work work, const double* p, const double* p_tilde, double* d, double* s, double* x,
                double* r, double* quasi) {
    SolverState& st = *work.st;
    if (st.skip_iteration) return;
    const double eta = st.qmr.eta, c = st.qmr.c;
    double total[1];
    const bool last = reduce_chunk<1>(
        work,
        [&](long long i, GroupSum(&g)[1]) {
            const double di = mul_add(c, d[i], mul(eta, p[i]));
            const double si = mul_add(c, s[i], mul(eta, p_tilde[i]));
            d[i] = di;
            s[i] = si;
            x[i] = mul_add(1.0, di, x[i]);
            const double ri = mul_add(-1.0, si, r[i]);
            r[i] = ri;
            g[0].add(mul(ri, ri));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    const int it = st.iterations + 1;
    quasi[it] = st.qmr.tau / st.bnorm;
    st.r_norm = sqrt(total[0]);
    if (st.record(it, st.r_norm, work.history)) return;
    begin_iteration(st, it + 1);
}

/// The multi-kernel QMR object, right-preconditioned when the setup has a preconditioner.
class QmrMultiKernel final : public MultiKernelSolver {
  public:
    QmrMultiKernel(MultiKernelSetup setup, const GpuSolveOptions& options)
        : MultiKernelSolver(std::move(setup), options),
          r_(vector()),
          v_(vector()),
          w_(vector()),
          p_(vector()),
          q_(vector()),
          p_tilde_(vector()),
          at_q_(vector()),
          d_(vector()),
          s_(vector()),
          y_buf_(vector(preconditioned())),
          z_buf_(vector(preconditioned())),
          quasi_(static_cast<std::size_t>(capacity()) + 1) {
        capture();
    }

  private:
    // d and s start at zero, as the reference's: the first iteration weighs them by c = 0,
    // and 0 times uninitialised memory could be NaN.
    void reset_vectors(cudaStream_t st) override {
        d_.zero(st);
        s_.zero(st);
    }

    // y~ = M^{-1} v and z = M^{-T} w~ (preconditioned solves only; otherwise v and w).
    double* y() const { return preconditioned() ? y_buf_.get() : v_.get(); }
    double* z() const { return preconditioned() ? z_buf_.get() : w_.get(); }

    // r = b - A x, v~ = w~ = r: iteration 0 (preconditioned: xi = ||M^{-T} w~||).
    void start(cudaStream_t st) override {
        op().apply(d_x(), r_.get(), false, st);
        k_init<<<blocks(), kChunkThreads, 0, st>>>(work(), d_b(), r_.get(), v_.get(), w_.get(),
                                                   quasi_.get());
        if (!preconditioned()) return;
        precondition_transpose(w_.get(), z_buf_.get(), st, &state()->skip_iteration);
        k_xi0<<<blocks(), kChunkThreads, 0, st>>>(work(), z_buf_.get());
    }

    void iteration(cudaStream_t st) override {
        const Work& w = work();
        const int* ended = &state()->skip_iteration;
        k_delta<<<blocks(), kChunkThreads, 0, st>>>(w, v_.get(), w_.get(), z());
        precondition(v_.get(), y(), st, ended);  // y~ = M^{-1} v
        k_update_pq<<<blocks(), kChunkThreads, 0, st>>>(w, y(), z(), p_.get(), q_.get());
        op().apply(p_.get(), p_tilde_.get(), false, st, ended);  // p~ = A p
        k_epsilon<<<blocks(), kChunkThreads, 0, st>>>(w, q_.get(), p_tilde_.get());
        op().apply(q_.get(), at_q_.get(), true, st, ended);  // A^T q
        k_tilde<<<blocks(), kChunkThreads, 0, st>>>(w, p_tilde_.get(), at_q_.get(), v_.get(),
                                                    w_.get(), preconditioned());
        if (preconditioned()) {
            precondition_transpose(w_.get(), z_buf_.get(), st, ended);  // z = M^{-T} w~
            k_xi<<<blocks(), kChunkThreads, 0, st>>>(w, z_buf_.get());
        }
        k_update_xr<<<blocks(), kChunkThreads, 0, st>>>(w, p_.get(), p_tilde_.get(), d_.get(),
                                                        s_.get(), d_x(), r_.get(), quasi_.get());
    }

    double* scratch() override { return at_q_.get(); }
    const Buffer<double>* quasi() const override { return &quasi_; }

    Buffer<double> r_, v_, w_, p_, q_, p_tilde_, at_q_, d_, s_, y_buf_, z_buf_, quasi_;
};

}  // namespace

std::unique_ptr<GpuSolver> make_qmr_multi_kernel(MultiKernelSetup setup,
                                                 const GpuSolveOptions& options) {
    return std::make_unique<QmrMultiKernel>(std::move(setup), options);
}

}  // namespace detail

}  // namespace heptane::gpu
