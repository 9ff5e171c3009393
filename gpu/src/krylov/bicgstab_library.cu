// Library BiCGStab (seed 002's comparison): cuSPARSE SpMV on BSR or CSR of the same GH plus
// cuBLAS vector operations. cuBLAS runs in device pointer mode: every scalar (dot products,
// alpha, beta, omega) stays on the device; one-thread kernels apply the reference's rules
// (core/krylov/krylov.cpp) and write the coefficients of the next cuBLAS calls. Once the solve has
// ended - or paused for a shadow-residual restart, which the host performs at its next look
// - the coefficients make every update the identity, so iterations launched past the end
// change nothing and the iteration count stays exact without a host round trip per
// iteration.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "core/base/errors.hpp"
#include "core/krylov/bicgstab_recurrence.hpp"
#include "core/matrix/formats.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/cuda_check.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/library_matrix.cuh"
#include "gpu/src/krylov/library_solver.cuh"

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
    switch (s.bicg.check_rho(rho, s.max_restarts)) {
        case kRhoNonFinite:
            s.fail(rho, kDetailRhoNonFinite, s.iterations + 1);
            return freeze(c);
        case kRhoZero:
            s.fail(rho, kDetailRhoZero, s.iterations + 1);
            return freeze(c);
        case kRhoRestart:
            c.paused = 1;
            return freeze(c);
        default:
            break;
    }
    const bool fresh = s.bicg.fresh;
    s.bicg.accept_rho(rho);
    if (fresh) {  // p = r:  p = 0 * p + r
        c.c_neg_omega_p = 0.0;
        c.c_beta = 0.0;
    } else {
        c.c_neg_omega_p = -s.bicg.omega;
        c.c_beta = s.bicg.beta;
    }
    c.c_one_p = 1.0;
}

/// After sigma = (r_hat, v): alpha.
__global__ void k_lib_alpha(SolverState* st, LibScalars* sc) {
    SolverState& s = *st;
    LibScalars& c = *sc;
    if (idle(s, c)) return freeze(c);
    if (!s.bicg.accept_sigma(c.sigma)) {
        s.fail(c.sigma, kDetailSigma, s.iterations + 1);
        return freeze(c);
    }
    c.c_neg_alpha = -s.bicg.alpha;
}

/// After ||s||: the half step.
__global__ void k_lib_half(SolverState* st, LibScalars* sc) {
    SolverState& s = *st;
    const LibScalars& c = *sc;
    if (idle(s, c)) return;
    s.s_norm = c.s_norm;
    s.half_step = BicgstabRecurrence::half_step(c.s_norm, s.bnorm, s.tolerance);
}

/// After (t, t) and (t, s): omega and the x and r coefficients.
__global__ void k_lib_omega(SolverState* st, LibScalars* sc) {
    SolverState& s = *st;
    LibScalars& c = *sc;
    if (idle(s, c)) return freeze(c);
    c.c_alpha = s.bicg.alpha;
    if (s.half_step) {  // x = x + alpha p, r = s
        c.c_omega = 0.0;
        c.c_neg_omega_r = 0.0;
        return;
    }
    if (!s.bicg.accept_t(c.tt, c.ts)) {
        s.fail(c.tt, kDetailTT, s.iterations + 1);
        return freeze(c);
    }
    c.c_omega = s.bicg.omega;
    c.c_neg_omega_r = -s.bicg.omega;
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
    if (!s.bicg.next(s.r_norm)) {  // omega = 0: the next beta would divide by omega
        s.fail(0.0, kDetailOmega, it);
        return freeze(c);
    }
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
    c.paused = 0;
    if (init) {
        s.bicg.start(c.r_norm);
        s.record(0, c.r_norm, history);
    } else {
        s.bicg.restart(c.r_norm);
        s.restarts = s.bicg.restarts;
    }
}

/// The library BiCGStab object.
class BicgstabLibrary final : public LibrarySolver {
  public:
    BicgstabLibrary(const GHMatrix& A, const GpuSolveOptions& options)
        : LibrarySolver("bicgstab_library", Method::bicgstab, A, options, false),
          r_(vector()),
          r_hat_(vector()),
          p_(vector()),
          v_(vector()),
          s_(vector()),
          t_(vector()),
          scalars_(1) {
        finish_setup();
    }

  private:
    void reset(cudaStream_t st) override {
        p_.zero(st);
        v_.zero(st);
        scalars_.zero(st);
    }

    /// r = b - A x; r_hat = r; ||r||: iteration 0 (init) or a restart.
    void residual(cudaStream_t st, int init) {
        library_residual(mat(), handle(), d_b(), d_x(), r_.get());
        HEPTANE_CUBLAS_CHECK(cublasDcopy(blas(), ni(), r_.get(), 1, r_hat_.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(blas(), ni(), r_.get(), 1, &scalars_.get()->r_norm));
        k_lib_restart<<<1, 1, 0, st>>>(state(), scalars_.get(), history(), init);
        HEPTANE_SYNC_CHECK(st);
    }

    void start(cudaStream_t st) override { residual(st, 1); }

    void iteration(cudaStream_t st) override {
        const cublasHandle_t h = blas();
        const int n = ni();
        SolverState* const sst = state();
        LibScalars* const sc = scalars_.get();
        double *const r = r_.get(), *const r_hat = r_hat_.get(), *const p = p_.get(),
                      *const v = v_.get(), *const s = s_.get(), *const t = t_.get();
        HEPTANE_CUBLAS_CHECK(cublasDdot(h, n, r_hat, 1, r, 1, &sc->rho));
        k_lib_rho<<<1, 1, 0, st>>>(sst, sc);
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_neg_omega_p, v, 1, p, 1));
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_beta, p, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_one_p, r, 1, p, 1));
        mat().apply(p, v);
        HEPTANE_CUBLAS_CHECK(cublasDdot(h, n, r_hat, 1, v, 1, &sc->sigma));
        k_lib_alpha<<<1, 1, 0, st>>>(sst, sc);
        HEPTANE_CUBLAS_CHECK(cublasDcopy(h, n, r, 1, s, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_neg_alpha, v, 1, s, 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(h, n, s, 1, &sc->s_norm));
        k_lib_half<<<1, 1, 0, st>>>(sst, sc);
        mat().apply(s, t);
        HEPTANE_CUBLAS_CHECK(cublasDdot(h, n, t, 1, t, 1, &sc->tt));
        HEPTANE_CUBLAS_CHECK(cublasDdot(h, n, t, 1, s, 1, &sc->ts));
        k_lib_omega<<<1, 1, 0, st>>>(sst, sc);
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_alpha, p, 1, d_x(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_omega, s, 1, d_x(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDcopy(h, n, s, 1, r, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_neg_omega_r, t, 1, r, 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(h, n, r, 1, &sc->r_norm));
        k_lib_record<<<1, 1, 0, st>>>(sst, sc, history());
        HEPTANE_SYNC_CHECK(st);
    }

    // Iterations launched while paused for a restart do not count: allow a batch per restart.
    long long launch_limit(const SolveOptions& opt, int batch) const override {
        return static_cast<long long>(opt.max_iterations) + (opt.max_restarts + 1LL) * batch;
    }

    SolverState after_batch(const SolverState& host, cudaStream_t st) override {
        if (host.status != kRunning || !scalars_.download(st)[0].paused) return host;
        residual(st, 0);  // the shadow-residual restart, then the paused iteration resumes
        return device_state().download(st);
    }

    double* scratch() override { return t_.get(); }

    Buffer<double> r_, r_hat_, p_, v_, s_, t_;
    Buffer<LibScalars> scalars_;
};

}  // namespace

std::unique_ptr<GpuSolver> make_bicgstab_library(const GHMatrix& A,
                                                 const GpuSolveOptions& options) {
    return std::make_unique<BicgstabLibrary>(A, options);
}

}  // namespace detail

}  // namespace heptane::gpu
