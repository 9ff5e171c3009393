// Multi-kernel BiCGStab: the strongest conventional GPU variant. One iteration is a fixed
// sequence of kernels (Bdia SpMV and fused vector-update-and-dot kernels) captured once into
// a CUDA graph and replayed; every scalar lives on the device and the kernels are gated by
// device state, so the host only looks every `check_interval` iterations and the iteration
// count is still exact. The arithmetic mirrors core/krylov.cpp operation by operation
// (canonical arithmetic), so the iterates are the reference's bits.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "core/canonical.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/block_smoothers.cuh"
#include "gpu/src/buffer.cuh"
#include "gpu/src/canonical_reduce.cuh"
#include "gpu/src/cuda_check.cuh"
#include "gpu/src/device_gh.cuh"
#include "gpu/src/device_operator.cuh"
#include "gpu/src/multi_kernel_common.cuh"
#include "gpu/src/solver_state.cuh"

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
    if (!last || threadIdx.x != 0) return;
    SolverState& s = *w.st;
    const double rho = total[0];
    const int it = s.iterations + 1;
    if (!std::isfinite(rho)) {
        s.fail(rho, kDetailRhoNonFinite, it);
        return;
    }
    if (std::abs(rho) <= std::numeric_limits<double>::epsilon() * s.r_hat_norm * s.r_norm) {
        if (s.restarts >= s.max_restarts) {
            s.fail(rho, kDetailRhoZero, it);
            return;
        }
        s.restart_pending = 1;  // r = b - A x, r_hat = r, p = r (k_restart)
        s.update_gates();
        return;
    }
    s.rho = rho;
    if (!s.fresh) s.beta = (rho / s.rho_old) * (s.alpha / s.omega);
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
    SolverState& s = *w.st;
    const double r_norm = sqrt(total[0]);
    s.r_norm = r_norm;
    s.r_hat_norm = r_norm;
    s.fresh = 1;
    if (mode_init) {
        s.rho_old = s.alpha = s.omega = 1.0;
        s.record(0, r_norm, w.history);
    } else {
        ++s.restarts;
        s.restart_pending = 0;
        s.rho = r_norm * r_norm;
    }
    s.update_gates();
}

/// p = r (first iteration, after a restart) or p = r + beta (p - omega v); preconditioned:
/// p^ = r^ + beta (p^ - omega v^) with r = r^, v = v^ (core/krylov.cpp, decision 27).
__global__ void __launch_bounds__(kChunkThreads)
    k_update_p(Work w, const double* r, double* p, const double* v) {
    const SolverState& s = *w.st;
    if (s.skip_iteration) return;
    const bool fresh = s.fresh;
    const double beta = s.beta, omega = s.omega;
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
    if (!last || threadIdx.x != 0) return;
    SolverState& s = *w.st;
    const double sigma = total[0];
    if (sigma == 0.0 || !std::isfinite(sigma)) {
        s.fail(sigma, kDetailSigma, s.iterations + 1);
        return;
    }
    s.alpha = s.rho / sigma;
    s.fresh = 0;
}

/// s = r - alpha v; ||s||; half step when ||s|| / ||b|| <= tol. Preconditioned (s_hat not
/// s_vec): also s^ = r^ - alpha v^.
__global__ void __launch_bounds__(kChunkThreads)
    k_update_s(Work w, const double* r, const double* v, double* s_vec, const double* r_hat_p,
               const double* v_p, double* s_hat) {
    if (w.st->skip_iteration) return;
    const double alpha = w.st->alpha;
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
    if (!last || threadIdx.x != 0) return;
    SolverState& s = *w.st;
    s.s_norm = sqrt(total[0]);
    if (s.s_norm / s.bnorm <= s.tolerance) {
        s.half_step = 1;
        s.update_gates();
    }
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
    if (!last || threadIdx.x != 0) return;
    SolverState& s = *w.st;
    const double tt = total[0];
    if (tt == 0.0 || !std::isfinite(tt)) {
        s.fail(tt, kDetailTT, s.iterations + 1);
        return;
    }
    s.omega = total[1] / tt;
}

/// x = x + alpha p + omega s^;  r = s - omega t;  ||r||; the iteration's status (s^ = s
/// without a preconditioner). At a half step: x = x + alpha p, r = s, and it has converged.
__global__ void __launch_bounds__(kChunkThreads)
    k_update_xr(Work w, double* x, const double* p, const double* s_vec, const double* s_hat,
                const double* t, double* r) {
    const SolverState& st = *w.st;
    if (st.skip_iteration) return;
    const bool half = st.half_step;
    const double alpha = st.alpha, omega = st.omega;
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
    if (!last || threadIdx.x != 0) return;
    SolverState& s = *w.st;
    const int it = s.iterations + 1;
    if (half) {
        s.record(it, s.s_norm, w.history);  // converged by construction
        return;
    }
    s.r_norm = sqrt(total[0]);
    if (s.record(it, s.r_norm, w.history)) return;
    if (s.omega == 0.0) {  // the next beta would divide by omega
        s.fail(s.omega, kDetailOmega, it);
        return;
    }
    s.rho_old = s.rho;
    if (it >= s.max_iterations) {
        s.status = kMaxIterations;
        s.update_gates();
    }
}

}  // namespace

/// The solve on the uploaded operator (b and x of its order), right-preconditioned by
/// linearity when `precond` is given (core/krylov.cpp: r^ = M^{-1} r and v^ = M^{-1} v
/// between kernels, p^ and s^ from them; the reference's bits).
SolveResult bicgstab_multi_kernel_body(const OperatorUpload& upload,
                                       const PreconditionerUpload* precond,
                                       const std::vector<double>& b, std::vector<double>& x,
                                       const GpuSolveOptions& options, GpuSolveTimes* times) {
    const long long n = static_cast<long long>(b.size());
    check_sizes(n, b, x, "bicgstab_multi_kernel");
    const SolveOptions& opt = options.solve;
    Stream stream;
    EventTimer setup_timer(stream.get());

    const std::unique_ptr<DeviceOperator> op = upload();
    const DeviceOperator& gh = *op;
    const std::unique_ptr<DevicePreconditioner> M = precond != nullptr ? (*precond)() : nullptr;
    Buffer<double> d_b(b), d_x(x), r(n), r_hat(n), p(n), v(n), s(n), t(n);
    // r^, v^, s^ (preconditioned solves only; otherwise r, v, s themselves).
    Buffer<double> rp_buf(M ? n : 0), vp_buf(M ? n : 0), sp_buf(M ? n : 0);
    double* const rp = M ? rp_buf.get() : r.get();
    double* const vp = M ? vp_buf.get() : v.get();
    double* const sp = M ? sp_buf.get() : s.get();
    p.zero(stream.get());
    v.zero(stream.get());
    if (M) vp_buf.zero(stream.get());
    const cudaStream_t st = stream.get();
    MultiKernelWorkspace ws(n, opt, st);
    const unsigned blocks = ws.blocks;
    const Work& w = ws.work;
    const DeviceState& state = ws.state;
    auto precondition = [&](const double* in, double* out, const int* skip) {
        if (M) M->apply(in, out, st, skip);
    };

    // ||b||: zero and non-finite right-hand sides end the solve here, as in the reference.
    if (SolveResult trivial; trivial_rhs(ws.bnorm(d_b.get(), st).bnorm, x, trivial)) {
        return trivial;
    }

    // One iteration, captured into a graph.
    cudaGraph_t graph = nullptr;
    SolverState* const dev = state.device();
    HEPTANE_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    k_rho<<<blocks, kChunkThreads, 0, st>>>(w, r_hat.get(), r.get());
    gh.apply(d_x.get(), r.get(), false, st, &dev->skip_restart);  // r = A x
    k_residual<<<blocks, kChunkThreads, 0, st>>>(w, d_b.get(), r.get(), r_hat.get(), 0);
    // r^ = M^{-1} r (this iteration's r, restarted or not; the restart clears skip_restart
    // before this kernel runs, so it is gated on the iteration)
    precondition(r.get(), rp, &dev->skip_iteration);
    k_update_p<<<blocks, kChunkThreads, 0, st>>>(w, rp, p.get(), vp);
    gh.apply(p.get(), v.get(), false, st, &dev->skip_iteration);  // v = A p^
    precondition(v.get(), vp, &dev->skip_iteration);              // v^ = M^{-1} v
    k_alpha<<<blocks, kChunkThreads, 0, st>>>(w, r_hat.get(), v.get());
    k_update_s<<<blocks, kChunkThreads, 0, st>>>(w, r.get(), v.get(), s.get(), rp, vp, sp);
    gh.apply(sp, t.get(), false, st, &dev->skip_t);  // t = A s^
    k_omega<<<blocks, kChunkThreads, 0, st>>>(w, t.get(), s.get());
    k_update_xr<<<blocks, kChunkThreads, 0, st>>>(w, d_x.get(), p.get(), s.get(), sp, t.get(),
                                                  r.get());
    HEPTANE_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
    GraphExec exec(graph);
    HEPTANE_CUDA_CHECK(cudaGraphDestroy(graph));
    const double setup_seconds = setup_timer.seconds();

    // r = b - A x, r_hat = r: iteration 0.
    EventTimer solve_timer(st);
    gh.apply(d_x.get(), r.get(), false, st);
    k_residual<<<blocks, kChunkThreads, 0, st>>>(w, d_b.get(), r.get(), r_hat.get(), 1);
    HEPTANE_SYNC_CHECK(st);
    // The iterations, then the true residual ||b - A x|| / ||b|| (A x into t).
    replay_iterations(exec.get(), state, options, st);
    const SolverState host = ws.true_residual(gh, d_b.get(), d_x.get(), t.get(), st);
    const double solve_seconds = solve_timer.seconds();

    return finish_solve(host, d_x, ws.history, x, setup_seconds, solve_seconds, times, st);
}

}  // namespace detail

SolveResult bicgstab_multi_kernel(const GHMatrix& A, const std::vector<double>& b,
                                  std::vector<double>& x, const GpuSolveOptions& options,
                                  GpuSolveTimes* times) {
    return detail::multi_kernel_on(A, b, x, options, times, false,
                                   detail::bicgstab_multi_kernel_body);
}

}  // namespace heptane::gpu
