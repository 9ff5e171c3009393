// Multi-kernel BiCGStab: the strongest conventional GPU variant. One iteration is a fixed
// sequence of kernels (Bdia SpMV and fused vector-update-and-dot kernels) captured once into
// a CUDA graph and replayed; every scalar lives on the device and the kernels are gated by
// device state, so the host only looks every `check_interval` iterations and the iteration
// count is still exact. The arithmetic mirrors core/krylov/krylov.cpp operation by operation
// (canonical arithmetic), so the iterates are the reference's bits.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "core/base/canonical.hpp"
#include "core/krylov/bicgstab_recurrence.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/canonical_reduce.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/bicgstab_steps.cuh"
#include "gpu/src/krylov/multi_kernel_common.cuh"
#include "gpu/src/precond/block_smoothers.cuh"
#include "gpu/src/spmv/device_gh.cuh"
#include "gpu/src/spmv/device_operator.cuh"

namespace heptane::gpu {
namespace detail {
namespace {

using namespace heptane::canonical;

// ---- kernels, in iteration order --------------------------------------------------------

/// rho = (r_hat, r); near-breakdown -> restart (or breakdown); beta.
__global__ void __launch_bounds__(kChunkThreads)
    k_rho(Work w, const double* r_hat, const double* r) {
    if (w.st->skip_iteration) return;
    double total[1];
    const bool last = reduce_chunk<1>(
        w, [&](long long i, GroupSum(&g)[1]) { g[0].add(mul(r_hat[i], r[i])); }, total);
    if (last && threadIdx.x == 0) RhoStep{}(*w.st, total, w.history);
}

/// Restart (after the SpMV r = A x): r = b - r, r_hat = r, ||r||; rho = ||r||^2, p = r next.
/// Also the initial residual (mode_init): records iteration 0.
__global__ void __launch_bounds__(kChunkThreads)
    k_residual(Work w, const double* b, double* r, double* r_hat, int mode_init) {
    if (!mode_init && w.st->skip_restart) return;
    double total[1];
    const bool last = reduce_chunk<1>(
        w,
        [&](long long i, GroupSum(&g)[1]) {
            const double ri = sub(b[i], mul(1.0, r[i]));
            r[i] = ri;
            r_hat[i] = ri;
            g[0].add(mul(ri, ri));
        },
        total);
    if (!last || threadIdx.x != 0) return;
    if (mode_init) {
        StartStep{}(*w.st, total, w.history);
    } else {
        RestartStep{}(*w.st, total, w.history);
    }
}

/// p = r (first iteration, after a restart) or p = r + beta (p - omega v); preconditioned:
/// p^ = r^ + beta (p^ - omega v^) with r = r^, v = v^ (core/krylov/krylov.cpp, decision 27).
__global__ void __launch_bounds__(kChunkThreads)
    k_update_p(Work w, const double* r, double* p, const double* v) {
    const SolverState& s = *w.st;
    if (s.skip_iteration) return;
    const bool fresh = s.bicg.fresh;
    const double beta = s.bicg.beta, omega = s.bicg.omega;
    each_entry(w, [&](long long i) {
        p[i] = fresh ? r[i] : mul_add(beta, sub(p[i], mul(omega, v[i])), r[i]);
    });
}

/// sigma = (r_hat, v); alpha = rho / sigma.
__global__ void __launch_bounds__(kChunkThreads)
    k_alpha(Work w, const double* r_hat, const double* v) {
    if (w.st->skip_iteration) return;
    double total[1];
    const bool last = reduce_chunk<1>(
        w, [&](long long i, GroupSum(&g)[1]) { g[0].add(mul(r_hat[i], v[i])); }, total);
    if (last && threadIdx.x == 0) SigmaStep{}(*w.st, total, w.history);
}

/// s = r - alpha v; ||s||; half step when ||s|| / ||b|| <= tol. Preconditioned (s_hat not
/// s_vec): also s^ = r^ - alpha v^.
__global__ void __launch_bounds__(kChunkThreads)
    k_update_s(Work w, const double* r, const double* v, double* s_vec, const double* r_hat_p,
               const double* v_p, double* s_hat) {
    if (w.st->skip_iteration) return;
    const double alpha = w.st->bicg.alpha;
    const bool preconditioned = s_hat != s_vec;
    double total[1];
    const bool last = reduce_chunk<1>(
        w,
        [&](long long i, GroupSum(&g)[1]) {
            const double si = sub(r[i], mul(alpha, v[i]));
            s_vec[i] = si;
            if (preconditioned) s_hat[i] = sub(r_hat_p[i], mul(alpha, v_p[i]));
            g[0].add(mul(si, si));
        },
        total);
    if (last && threadIdx.x == 0) HalfStep{}(*w.st, total, w.history);
}

/// (t, t) and (t, s); omega = (t, s) / (t, t).
__global__ void __launch_bounds__(kChunkThreads)
    k_omega(Work w, const double* t, const double* s_vec) {
    if (w.st->skip_t) return;
    double total[2];
    const bool last = reduce_chunk<2>(
        w,
        [&](long long i, GroupSum(&g)[2]) {
            g[0].add(mul(t[i], t[i]));
            g[1].add(mul(t[i], s_vec[i]));
        },
        total);
    if (last && threadIdx.x == 0) OmegaStep{}(*w.st, total, w.history);
}

/// x = x + alpha p + omega s^;  r = s - omega t;  ||r||; the iteration's status (s^ = s
/// without a preconditioner). At a half step: x = x + alpha p, r = s, and it has converged.
__global__ void __launch_bounds__(kChunkThreads)
    k_update_xr(Work w, double* x, const double* p, const double* s_vec, const double* s_hat,
                const double* t, double* r) {
    const SolverState& st = *w.st;
    if (st.skip_iteration) return;
    const bool half = st.half_step;
    const double alpha = st.bicg.alpha, omega = st.bicg.omega;
    double total[1];
    const bool last = reduce_chunk<1>(
        w,
        [&](long long i, GroupSum(&g)[1]) {
            if (half) {
                x[i] = mul_add(alpha, p[i], x[i]);
                r[i] = s_vec[i];
            } else {
                x[i] = add(x[i], mul_add(omega, s_hat[i], mul(alpha, p[i])));
                const double ri = sub(s_vec[i], mul(omega, t[i]));
                r[i] = ri;
                g[0].add(mul(ri, ri));
            }
        },
        total);
    if (last && threadIdx.x == 0) IterationStep{}(*w.st, total, w.history);
}

/// The multi-kernel BiCGStab object, right-preconditioned by linearity when the setup has a
/// preconditioner (core/krylov/krylov.cpp: r^ = M^{-1} r and v^ = M^{-1} v between kernels, p^ and
/// s^ from them; the reference's bits).
class BicgstabMultiKernel final : public MultiKernelSolver {
  public:
    BicgstabMultiKernel(MultiKernelSetup setup, const GpuSolveOptions& options)
        : MultiKernelSolver(std::move(setup), options),
          r_(vector()),
          r_hat_(vector()),
          p_(vector()),
          v_(vector()),
          s_(vector()),
          t_(vector()),
          rp_buf_(vector(preconditioned())),
          vp_buf_(vector(preconditioned())),
          sp_buf_(vector(preconditioned())) {
        capture();
    }

  private:
    // r^, v^, s^ (preconditioned solves only; otherwise r, v, s themselves).
    double* rp() const { return preconditioned() ? rp_buf_.get() : r_.get(); }
    double* vp() const { return preconditioned() ? vp_buf_.get() : v_.get(); }
    double* sp() const { return preconditioned() ? sp_buf_.get() : s_.get(); }

    void reset_vectors(cudaStream_t st) override {
        p_.zero(st);
        v_.zero(st);
        vp_buf_.zero(st);
    }

    // r = b - A x, r_hat = r: iteration 0.
    void start(cudaStream_t st) override {
        op().apply(d_x(), r_.get(), false, st);
        k_residual<<<blocks(), kChunkThreads, 0, st>>>(work(), d_b(), r_.get(), r_hat_.get(), 1);
    }

    void iteration(cudaStream_t st) override {
        const Work& w = work();
        SolverState* const dev = state();
        k_rho<<<blocks(), kChunkThreads, 0, st>>>(w, r_hat_.get(), r_.get());
        op().apply(d_x(), r_.get(), false, st, &dev->skip_restart);  // r = A x
        k_residual<<<blocks(), kChunkThreads, 0, st>>>(w, d_b(), r_.get(), r_hat_.get(), 0);
        // r^ = M^{-1} r (this iteration's r, restarted or not; the restart clears
        // skip_restart before this kernel runs, so it is gated on the iteration)
        precondition(r_.get(), rp(), st, &dev->skip_iteration);
        k_update_p<<<blocks(), kChunkThreads, 0, st>>>(w, rp(), p_.get(), vp());
        op().apply(p_.get(), v_.get(), false, st, &dev->skip_iteration);  // v = A p^
        precondition(v_.get(), vp(), st, &dev->skip_iteration);           // v^ = M^{-1} v
        k_alpha<<<blocks(), kChunkThreads, 0, st>>>(w, r_hat_.get(), v_.get());
        k_update_s<<<blocks(), kChunkThreads, 0, st>>>(w, r_.get(), v_.get(), s_.get(), rp(), vp(),
                                                       sp());
        op().apply(sp(), t_.get(), false, st, &dev->skip_t);  // t = A s^
        k_omega<<<blocks(), kChunkThreads, 0, st>>>(w, t_.get(), s_.get());
        k_update_xr<<<blocks(), kChunkThreads, 0, st>>>(w, d_x(), p_.get(), s_.get(), sp(),
                                                        t_.get(), r_.get());
    }

    double* scratch() override { return t_.get(); }

    Buffer<double> r_, r_hat_, p_, v_, s_, t_, rp_buf_, vp_buf_, sp_buf_;
};

}  // namespace

std::unique_ptr<GpuSolver> make_bicgstab_multi_kernel(MultiKernelSetup setup,
                                                      const GpuSolveOptions& options) {
    return std::make_unique<BicgstabMultiKernel>(std::move(setup), options);
}

}  // namespace detail

}  // namespace heptane::gpu
