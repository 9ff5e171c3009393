// Library QMR (the QMR counterpart of bicgstab_library.cu): core/krylov/krylov.cpp's qmr with the
// identity preconditioner (z = w, y~ = v, z~ = w), with cuSPARSE SpMV on BSR or CSR of the same
// GH plus cuBLAS vector operations. cuSPARSE's BSR SpMV has no transposed operation, so A^T q
// uses a second matrix, GH^T built on the host in the same format, as a library user would
// store it. cuBLAS runs in device pointer mode: every scalar (norms, delta, epsilon, beta and
// the Givens recurrence of core/krylov/qmr_recurrence.hpp) stays on the device; one-thread kernels
// apply the reference's rules and write the coefficients of the next cuBLAS calls. Once the
// solve has ended the coefficients make every update the identity, so iterations launched past
// the end change nothing and the iteration count stays exact without a host round trip per
// iteration. cuBLAS's reductions are not the canonical tree (design decision 16): the bits
// differ from the CPU's.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/krylov/qmr_recurrence.hpp"
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

/// Device scalars of the library QMR: cuBLAS results and the coefficients the next cuBLAS
/// calls read.
struct QmrScalars {
    double delta, eps, rho_new, xi_new, r_norm;  // written by cuBLAS
    double c_inv_rho, c_inv_xi;                  // v = v / rho, w = w / xi
    double c_p, c_q, c_one_pq;                   // p = v + c_p p, q = w + c_q q
    double c_neg_beta, c_one_vw;                 // v = p~ - beta v, w = A^T q - beta w
    double c_c, c_eta;                           // d = eta p + c d, s = eta p~ + c s
    double c_one_x, c_neg_one_r;                 // x = x + d, r = r - s
};

/// Makes every update of this iteration the identity (the solve has ended).
__device__ void freeze(QmrScalars& c) {
    c.c_inv_rho = 1.0;
    c.c_inv_xi = 1.0;
    c.c_p = 1.0;
    c.c_q = 1.0;
    c.c_one_pq = 0.0;
    c.c_neg_beta = 1.0;
    c.c_one_vw = 0.0;
    c.c_c = 1.0;
    c.c_eta = 0.0;
    c.c_one_x = 0.0;
    c.c_neg_one_r = 0.0;
}

__device__ bool idle(const SolverState& s) { return s.status != kRunning; }

/// Iteration start: rho = ||v~|| and xi = ||w~|| must be nonzero; the v and w scalings.
__global__ void k_qmr_scale(SolverState* st, QmrScalars* sc) {
    SolverState& s = *st;
    QmrScalars& c = *sc;
    if (idle(s)) return freeze(c);
    if (s.rho == 0.0 || s.xi == 0.0) {
        s.fail(s.rho * s.xi, s.rho == 0.0 ? kDetailQmrRho : kDetailQmrXi, s.iterations + 1);
        return freeze(c);
    }
    c.c_inv_rho = 1.0 / s.rho;
    c.c_inv_xi = 1.0 / s.xi;
}

/// After delta = w^T v: the p and q coefficients (p = v, q = w at the first iteration).
__global__ void k_qmr_delta(SolverState* st, QmrScalars* sc) {
    SolverState& s = *st;
    QmrScalars& c = *sc;
    if (idle(s)) return freeze(c);
    const double delta = c.delta;
    const int it = s.iterations + 1;
    if (delta == 0.0 || !std::isfinite(delta)) {
        s.fail(delta, kDetailDelta, it);
        return freeze(c);
    }
    s.delta = delta;
    // p = v - (xi delta / eps) p;  q = w - (rho delta / eps) q  (p = q = 0 before it = 1)
    c.c_p = it == 1 ? 0.0 : -s.xi * delta / s.epsilon;
    c.c_q = it == 1 ? 0.0 : -s.rho * delta / s.epsilon;
    c.c_one_pq = 1.0;
}

/// After eps = q^T p~: beta = eps / delta and the v~, w~ coefficients.
__global__ void k_qmr_eps(SolverState* st, QmrScalars* sc) {
    SolverState& s = *st;
    QmrScalars& c = *sc;
    if (idle(s)) return freeze(c);
    const double eps = c.eps;
    const int it = s.iterations + 1;
    if (eps == 0.0 || !std::isfinite(eps)) {
        s.fail(eps, kDetailEpsilon, it);
        return freeze(c);
    }
    const double beta = eps / s.delta;
    if (beta == 0.0) {
        s.fail(beta, kDetailBeta, it);
        return freeze(c);
    }
    s.epsilon = eps;
    s.beta = beta;
    c.c_neg_beta = -beta;
    c.c_one_vw = 1.0;
}

/// After rho_new = ||v~|| and xi_new = ||w~||: theta, gamma, eta, tau (the shared
/// recurrence) and the d, s, x, r coefficients; the quasi-residual tau / ||b||.
__global__ void k_qmr_givens(SolverState* st, QmrScalars* sc, double* quasi) {
    SolverState& s = *st;
    QmrScalars& c = *sc;
    if (idle(s)) return freeze(c);
    const int it = s.iterations + 1;
    const double gamma = s.qmr.step(s.rho, c.rho_new, s.beta, it == 1);
    if (gamma == 0.0 || !std::isfinite(gamma)) {
        s.fail(gamma, kDetailGamma, it);
        return freeze(c);
    }
    c.c_eta = s.qmr.eta;
    c.c_c = s.qmr.c;
    c.c_one_x = 1.0;
    c.c_neg_one_r = -1.0;
    quasi[it] = s.qmr.tau / s.bnorm;
}

/// After ||r||: record the iteration; rho = rho_new, xi = xi_new.
__global__ void k_qmr_record(SolverState* st, QmrScalars* sc, double* history) {
    SolverState& s = *st;
    QmrScalars& c = *sc;
    if (idle(s)) return freeze(c);
    const int it = s.iterations + 1;
    s.r_norm = c.r_norm;
    if (s.record(it, s.r_norm, history)) return freeze(c);
    s.rho = c.rho_new;
    s.xi = c.xi_new;
    if (it >= s.max_iterations) {
        s.status = kMaxIterations;
        s.update_gates();
    }
}

/// Iteration 0, after r = b - A x, v~ = w~ = r and ||r||: rho = xi = tau = ||r||.
__global__ void k_qmr_init(SolverState* st, QmrScalars* sc, double* history, double* quasi) {
    SolverState& s = *st;
    const QmrScalars& c = *sc;
    s.r_norm = c.r_norm;
    s.rho = c.r_norm;
    s.xi = c.r_norm;  // ||w~|| = ||r||: the same vector
    s.epsilon = 1.0;
    s.qmr = QmrRecurrence{};
    s.qmr.tau = c.r_norm;
    quasi[0] = s.qmr.tau / s.bnorm;
    if (!s.record(0, c.r_norm, history) && s.max_iterations <= 0) {
        s.status = kMaxIterations;
        s.update_gates();
    }
}

/// The library QMR object.
class QmrLibrary final : public LibrarySolver {
  public:
    QmrLibrary(const GHMatrix& A, const GpuSolveOptions& options)
        : LibrarySolver("qmr_library", Method::qmr, A, options, true),
          r_(vector()),
          v_(vector()),
          w_(vector()),
          p_(vector()),
          q_(vector()),
          p_tilde_(vector()),
          d_(vector()),
          s_(vector()),
          at_q_(vector()),
          quasi_(static_cast<std::size_t>(std::max(capacity(), 0)) + 1),
          scalars_(1) {
        finish_setup();
    }

  private:
    // p, q, d, s start at zero: at it = 1 their old values are multiplied by 0 (c_p = c_q =
    // c = 0)
    void reset(cudaStream_t st) override {
        p_.zero(st);
        q_.zero(st);
        d_.zero(st);
        s_.zero(st);
        scalars_.zero(st);
    }

    // r = b - A x;  v~ = r, rho = ||v~||;  w~ = r, xi = ||w~||.
    void start(cudaStream_t st) override {
        library_residual(mat(), handle(), d_b(), d_x(), r_.get());
        HEPTANE_CUBLAS_CHECK(cublasDcopy(blas(), ni(), r_.get(), 1, v_.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDcopy(blas(), ni(), r_.get(), 1, w_.get(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(blas(), ni(), r_.get(), 1, &scalars_.get()->r_norm));
        k_qmr_init<<<1, 1, 0, st>>>(state(), scalars_.get(), history(), quasi_.get());
        HEPTANE_SYNC_CHECK(st);
    }

    void iteration(cudaStream_t st) override {
        const cublasHandle_t h = blas();
        const int n = ni();
        SolverState* const sst = state();
        QmrScalars* const sc = scalars_.get();
        double *const v = v_.get(), *const w = w_.get(), *const p = p_.get(), *const q = q_.get(),
                      *const pt = p_tilde_.get(), *const d = d_.get(), *const s = s_.get(),
                      *const at_q = at_q_.get(), *const r = r_.get();
        // rho, xi != 0;  v = v~ / rho;  w = w~ / xi;  delta = w^T v
        k_qmr_scale<<<1, 1, 0, st>>>(sst, sc);
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_inv_rho, v, 1));
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_inv_xi, w, 1));
        HEPTANE_CUBLAS_CHECK(cublasDdot(h, n, w, 1, v, 1, &sc->delta));
        k_qmr_delta<<<1, 1, 0, st>>>(sst, sc);
        // p = v - (xi delta / eps) p;  q = w - (rho delta / eps) q
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_p, p, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_one_pq, v, 1, p, 1));
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_q, q, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_one_pq, w, 1, q, 1));
        // p~ = A p;  eps = q^T p~;  beta = eps / delta
        mat().apply(p, pt);
        HEPTANE_CUBLAS_CHECK(cublasDdot(h, n, q, 1, pt, 1, &sc->eps));
        k_qmr_eps<<<1, 1, 0, st>>>(sst, sc);
        // v~ = p~ - beta v;  rho_new = ||v~||
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_neg_beta, v, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_one_vw, pt, 1, v, 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(h, n, v, 1, &sc->rho_new));
        // w~ = A^T q - beta w;  xi_new = ||w~||
        mat_t().apply(q, at_q);
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_neg_beta, w, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_one_vw, at_q, 1, w, 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(h, n, w, 1, &sc->xi_new));
        // theta, gamma, eta, tau (core/krylov/qmr_recurrence.hpp)
        k_qmr_givens<<<1, 1, 0, st>>>(sst, sc, quasi_.get());
        // d = eta p + (theta_old gamma)^2 d;  s = eta p~ + (theta_old gamma)^2 s
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_c, d, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_eta, p, 1, d, 1));
        HEPTANE_CUBLAS_CHECK(cublasDscal(h, n, &sc->c_c, s, 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_eta, pt, 1, s, 1));
        // x = x + d;  r = r - s;  ||r||
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_one_x, d, 1, d_x(), 1));
        HEPTANE_CUBLAS_CHECK(cublasDaxpy(h, n, &sc->c_neg_one_r, s, 1, r, 1));
        HEPTANE_CUBLAS_CHECK(cublasDnrm2(h, n, r, 1, &sc->r_norm));
        k_qmr_record<<<1, 1, 0, st>>>(sst, sc, history());
        HEPTANE_SYNC_CHECK(st);
    }

    double* scratch() override { return at_q_.get(); }
    const Buffer<double>* quasi() const override { return &quasi_; }

    Buffer<double> r_, v_, w_, p_, q_, p_tilde_, d_, s_, at_q_, quasi_;
    Buffer<QmrScalars> scalars_;
};

}  // namespace

std::unique_ptr<GpuSolver> make_qmr_library(const GHMatrix& A, const GpuSolveOptions& options) {
    return std::make_unique<QmrLibrary>(A, options);
}

}  // namespace detail

}  // namespace heptane::gpu
