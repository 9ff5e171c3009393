// Library BiCGStab (seed 002's comparison): cuSPARSE SpMV on BSR or CSR of the same GH plus
// cuBLAS vector operations. cuBLAS runs in device pointer mode: every scalar (dot products,
// alpha, beta, omega) stays on the device; one-thread kernels apply the reference's rules
// (core/krylov.cpp) and write the coefficients of the next cuBLAS calls. Once the solve has
// ended - or paused for a shadow-residual restart, which the host performs at its next look
// - the coefficients make every update the identity, so iterations launched past the end
// change nothing and the iteration count stays exact without a host round trip per
// iteration.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/errors.hpp"
#include "core/formats.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/buffer.cuh"
#include "gpu/src/cuda_check.cuh"
#include "gpu/src/library_matrix.cuh"
#include "gpu/src/solver_state.cuh"

namespace heptane::gpu {

namespace detail {
namespace {

/// Device scalars of the library solve: dot-product results and the coefficients the next
/// cuBLAS calls read.
struct LibScalars {
    double rho, sigma, tt, ts, s_norm, r_norm;  // written by cuBLAS
    double c_neg_omega_p, c_beta, c_one_p;      // p = r + beta (p - omega v)
    double c_neg_alpha;                         // s = r - alpha v
    double c_alpha, c_omega;                    // x = x + alpha p + omega s
    double c_neg_omega_r;                       // r = s - omega t
    int paused;                                 // a restart is pending (host performs it)
};

/// Makes every update of this iteration the identity (solve ended or paused).
__device__ void freeze(LibScalars& c) {
    c.c_neg_omega_p = 0.0;
    c.c_beta = 1.0;
    c.c_one_p = 0.0;
    c.c_neg_alpha = 0.0;
    c.c_alpha = 0.0;
    c.c_omega = 0.0;
    c.c_neg_omega_r = 0.0;
}

__device__ bool idle(const SolverState& s, const LibScalars& c) {
    return s.status != kRunning || c.paused;
}

/// After rho = (r_hat, r): near-breakdown -> pause for a restart; the p-update coefficients.
__global__ void k_lib_rho(SolverState* st, LibScalars* sc) {
    SolverState& s = *st;
    LibScalars& c = *sc;
    if (idle(s, c)) return freeze(c);
    const double rho = c.rho;
    const int it = s.iterations + 1;
    if (!std::isfinite(rho)) {
        s.fail(rho, kDetailRhoNonFinite, it);
        return freeze(c);
    }
    if (std::abs(rho) <= std::numeric_limits<double>::epsilon() * s.r_hat_norm * s.r_norm) {
        if (s.restarts >= s.max_restarts) {
            s.fail(rho, kDetailRhoZero, it);
        } else {
            c.paused = 1;
        }
        return freeze(c);
    }
    s.rho = rho;
    if (s.fresh) {  // p = r:  p = 0 * p + r
        c.c_neg_omega_p = 0.0;
        c.c_beta = 0.0;
    } else {
        s.beta = (rho / s.rho_old) * (s.alpha / s.omega);
        c.c_neg_omega_p = -s.omega;
        c.c_beta = s.beta;
    }
    c.c_one_p = 1.0;
}

/// After sigma = (r_hat, v): alpha.
__global__ void k_lib_alpha(SolverState* st, LibScalars* sc) {
    SolverState& s = *st;
    LibScalars& c = *sc;
    if (idle(s, c)) return freeze(c);
    if (c.sigma == 0.0 || !std::isfinite(c.sigma)) {
        s.fail(c.sigma, kDetailSigma, s.iterations + 1);
        return freeze(c);
    }
    s.alpha = s.rho / c.sigma;
    s.fresh = 0;
    c.c_neg_alpha = -s.alpha;
}

/// After ||s||: the half step.
__global__ void k_lib_half(SolverState* st, LibScalars* sc) {
    SolverState& s = *st;
    const LibScalars& c = *sc;
    if (idle(s, c)) return;
    s.s_norm = c.s_norm;
    s.half_step = c.s_norm / s.bnorm <= s.tolerance;
}

/// After (t, t) and (t, s): omega and the x and r coefficients.
__global__ void k_lib_omega(SolverState* st, LibScalars* sc) {
    SolverState& s = *st;
    LibScalars& c = *sc;
    if (idle(s, c)) return freeze(c);
    c.c_alpha = s.alpha;
    if (s.half_step) {  // x = x + alpha p, r = s
        c.c_omega = 0.0;
        c.c_neg_omega_r = 0.0;
        return;
    }
    if (c.tt == 0.0 || !std::isfinite(c.tt)) {
        s.fail(c.tt, kDetailTT, s.iterations + 1);
        return freeze(c);
    }
    s.omega = c.ts / c.tt;
    c.c_omega = s.omega;
    c.c_neg_omega_r = -s.omega;
}

/// After ||r||: record the iteration.
__global__ void k_lib_record(SolverState* st, LibScalars* sc, double* history) {
    SolverState& s = *st;
    LibScalars& c = *sc;
    if (idle(s, c)) return freeze(c);
    const int it = s.iterations + 1;
    if (s.half_step) {
        s.record(it, s.s_norm, history);
        return freeze(c);
    }
    s.r_norm = c.r_norm;
    if (s.record(it, s.r_norm, history)) return freeze(c);
    if (s.omega == 0.0) {
        s.fail(s.omega, kDetailOmega, it);
        return freeze(c);
    }
    s.rho_old = s.rho;
    if (it >= s.max_iterations) {
        s.status = kMaxIterations;
        s.update_gates();
    }
}

/// Iteration 0 or a restart, after r = b - A x and ||r||: r_hat = r was copied.
__global__ void k_lib_restart(SolverState* st, LibScalars* sc, double* history, int init) {
    SolverState& s = *st;
    LibScalars& c = *sc;
    s.r_norm = c.r_norm;
    s.r_hat_norm = c.r_norm;
    s.fresh = 1;
    c.paused = 0;
    if (init) {
        s.rho_old = s.alpha = s.omega = 1.0;
        s.record(0, c.r_norm, history);
    } else {
        ++s.restarts;
    }
}

}  // namespace
}  // namespace detail

SolveResult bicgstab_library(const GHMatrix& A, const std::vector<double>& b,
                             std::vector<double>& x, const GpuSolveOptions& options,
                             GpuSolveTimes* times) {
    using namespace detail;
    const long long rows = A.rows();
    check_sizes(rows, b, x, "bicgstab_library");
    const SolveOptions& opt = options.solve;
    Stream stream;
    const cudaStream_t st = stream.get();
    EventTimer setup_timer(st);
    LibraryMatrix mat(A, options.library_spmv, st);
    const long long n = mat.size();  // BSR pads the well unknowns to whole blocks
    const bool padded = n != rows;
    Buffer<double> d_b(padded ? pad_vector(A, b) : b), d_x(padded ? pad_vector(A, x) : x);
    Buffer<double> r(n), r_hat(n), p(n), v(n), s(n), t(n), history(opt.max_iterations + 1);
    p.zero(st);
    v.zero(st);
    DeviceState state(opt);
    Buffer<LibScalars> scalars(1);
    scalars.zero(st);
    SolverState* sst = state.device();
    LibScalars* sc = scalars.get();

    const BlasHandle handle(st, n);  // device pointer mode
    const cublasHandle_t blas = handle.get();
    const int ni = handle.n();
    const double setup_seconds = setup_timer.seconds();

    // ||b|| (cuBLAS), then r = b - A x, r_hat = r, ||r||.
    EventTimer solve_timer(st);
    const double host_bnorm = library_norm(handle, d_b.get(), &sst->bnorm);
    if (SolveResult trivial; trivial_rhs(host_bnorm, x, trivial)) return trivial;
    auto residual = [&](int init_flag) {  // r = b - A x; r_hat = r; ||r||
        library_residual(mat, handle, d_b.get(), d_x.get(), r.get());
        HEPTANE_CUBLAS_CHECK(cublasDcopy(blas, ni, r.get(), 1, r_hat.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(blas, ni, r.get(), 1, &sc->r_norm));
        k_lib_restart<<<1, 1, 0, st>>>(sst, sc, history.get(), init_flag);
        HEPTANE_SYNC_CHECK(st);
    };
    residual(1);

    auto iteration = [&]() {
        HEPTANE_CUBLAS_CHECK(cublasDdot(blas, ni, r_hat.get(), 1, r.get(), 1, &sc->rho));
        k_lib_rho<<<1, 1, 0, st>>>(sst, sc);
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(blas, ni, &sc->c_neg_omega_p, v.get(), 1, p.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDscal(blas, ni, &sc->c_beta, p.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(blas, ni, &sc->c_one_p, r.get(), 1, p.get(), 1));
        mat.apply(p.get(), v.get());
        HEPTANE_CUBLAS_CHECK(cublasDdot(blas, ni, r_hat.get(), 1, v.get(), 1, &sc->sigma));
        k_lib_alpha<<<1, 1, 0, st>>>(sst, sc);
        HEPTANE_CUBLAS_CHECK(cublasDcopy(blas, ni, r.get(), 1, s.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(blas, ni, &sc->c_neg_alpha, v.get(), 1, s.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(blas, ni, s.get(), 1, &sc->s_norm));
        k_lib_half<<<1, 1, 0, st>>>(sst, sc);
        mat.apply(s.get(), t.get());
        HEPTANE_CUBLAS_CHECK(cublasDdot(blas, ni, t.get(), 1, t.get(), 1, &sc->tt));
        HEPTANE_CUBLAS_CHECK(cublasDdot(blas, ni, t.get(), 1, s.get(), 1, &sc->ts));
        k_lib_omega<<<1, 1, 0, st>>>(sst, sc);
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(blas, ni, &sc->c_alpha, p.get(), 1, d_x.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(blas, ni, &sc->c_omega, s.get(), 1, d_x.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDcopy(blas, ni, s.get(), 1, r.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(blas, ni, &sc->c_neg_omega_r, t.get(), 1, r.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(blas, ni, r.get(), 1, &sc->r_norm));
        k_lib_record<<<1, 1, 0, st>>>(sst, sc, history.get());
        HEPTANE_SYNC_CHECK(st);
    };

    SolverState host = state.download(st);
    // Iterations launched while paused for a restart do not count: allow a batch per restart.
    const int batch = std::max(options.check_interval, 1);
    const long long launch_limit =
        static_cast<long long>(opt.max_iterations) + (opt.max_restarts + 1LL) * batch;
    long long launched = 0;
    while (host.status == kRunning && launched < launch_limit) {
        for (int i = 0; i < batch; ++i) iteration();
        launched += batch;
        host = state.download(st);
        if (scalars.download(st)[0].paused && host.status == kRunning) {
            residual(0);  // the shadow-residual restart, then the paused iteration resumes
            host = state.download(st);
        }
        if (opt.progress && host.iterations > 0)
            opt.progress(host.iterations, host.relative_residual);
    }
    // True residual ||b - A x|| / ||b||.
    library_residual(mat, handle, d_b.get(), d_x.get(), t.get());
    Buffer<double> norm(1);
    const double true_norm = library_norm(handle, t.get(), norm.get());
    const double solve_seconds = solve_timer.seconds();
    host = state.download(st);
    host.true_relative_residual = true_norm / host_bnorm;

    std::vector<double> xs;
    SolveResult result =
        finish_solve(host, d_x, history, xs, setup_seconds, solve_seconds, times, st);
    x = padded ? unpad_vector(A, xs) : xs;
    return result;
}

}  // namespace heptane::gpu
