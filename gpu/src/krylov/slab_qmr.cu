// A GPU rank's QMR (gpu/slab_solver.hpp, issue 25): core/krylov/krylov.cpp's qmr() pass for
// pass on the slab's device vectors (QmrRecurrence), A^T x with the halo planes of the
// transpose, each pass's sums joined across the ranks (slab_base.cuh).
#include "gpu/src/krylov/slab_base.cuh"

namespace heptane::gpu::detail {
namespace {

class SlabQmr final : public SlabBase {
  public:
    SlabQmr(const SolverSettings& s, const GHMatrix& slab, const SlabLayout& layout,
            const SlabNeighbours& neighbours, const CprPlanes* planes)
        : SlabBase(s, slab, layout, neighbours, planes, false),
          r_(rows_),
          v_(rows_),
          w_(rows_),
          p_(rows_),
          q_(rows_),
          pt_(rows_),
          d_(rows_),
          s_(rows_),
          work_(rows_),
          z_(M_ ? rows_ : 0),
          y_(M_ ? rows_ : 0) {
        zero({&b_, &x_, &r_, &v_, &w_, &p_, &q_, &pt_, &d_, &s_, &work_, &z_, &y_});
        info_.cost = qmr_cpu_cost();
        finish_setup(M_ ? 13 : 11);
    }

  private:
    /// core/krylov/krylov.cpp's qmr() (Templates Fig. 2.8, M1 = I, M2 = M), with the vectors on
    /// the device: y = v, z~ = z, and z = w without a preconditioner.
    SolveResult iterate(const SolveOptions& opt) override {
        SolveResult result;
        double bnorm = 0.0;
        if (!start(result, bnorm)) return result;
        const auto fail_it = [&](double value, const std::string& what, int it) {
            record_breakdown(result, value, what, it);
        };
        double *const r = r_.get(), *const v = v_.get(), *const w = w_.get();
        double *const p = p_.get(), *const q = q_.get(), *const pt = pt_.get();
        double* const z = M_ ? z_.get() : w;
        // r = b - A x;  v~ = r, rho = ||v~||;  w~ = r, z = M^{-T} w~, xi = ||z||
        const double r0 = residual(r);
        QmrRecurrence givens;
        givens.tau = r0;
        result.quasi_history.push_back(givens.tau / bnorm);
        if (!record_iteration(result, bnorm, 0, r0, opt)) {
            each(CopyOp{r, v});
            each(CopyOp{r, w});
            if (M_) M_->apply_transpose(w, z, stream_.get());
            double rho = r0;
            double xi = std::sqrt(dot(z, z));
            double eps = 1.0;
            for (int it = 1; it <= opt.max_iterations; ++it) {
                if (rho == 0.0 || xi == 0.0) {
                    fail_it(rho * xi, rho == 0.0 ? "rho = ||v~|| = 0" : "xi = ||z|| = 0", it);
                    break;
                }
                // v = v~ / rho (= y);  w = w~ / xi;  z = z / xi;  delta = z^T y: one pass
                const double delta =
                    sums<1>(QmrScalePass{v, w, M_ ? z : nullptr, 1.0 / rho, 1.0 / xi})[0];
                if (delta == 0.0 || !std::isfinite(delta)) {
                    fail_it(delta, "delta = z^T y = " + num(delta), it);
                    break;
                }
                // y~ = M2^{-1} y;  z~ = z
                const double* y_tilde = v;
                if (M_) {
                    M_->apply(v, y_.get(), stream_.get());
                    y_tilde = y_.get();
                }
                if (it == 1) {
                    each(CopyOp{y_tilde, p});  // p = y~
                    each(CopyOp{z, q});        // q = z~
                } else {
                    // p = y~ - (xi delta / eps) p;  q = z~ - (rho delta / eps) q
                    each(XpbyOp{y_tilde, -xi * delta / eps, p});
                    each(XpbyOp{z, -rho * delta / eps, q});
                }
                // p~ = A p;  eps = q^T p~;  beta = eps / delta
                product(p, pt);
                eps = dot(q, pt);
                if (eps == 0.0 || !std::isfinite(eps)) {
                    fail_it(eps, "epsilon = q^T A p = " + num(eps), it);
                    break;
                }
                const double beta = eps / delta;
                if (beta == 0.0) {
                    fail_it(beta, "beta = epsilon / delta = 0", it);
                    break;
                }
                // v~ = p~ - beta v;  rho_new = ||v~||
                const double rho_new = std::sqrt(sums<1>(QmrVPass{v, pt, beta})[0]);
                // w~ = A^T q - beta w;  z = M2^{-T} w~;  xi_new = ||z||
                product(q, work_.get(), true);
                double xi_new = 0.0;
                if (!M_) {  // z = w~: its norm in the same pass
                    xi_new = std::sqrt(sums<1>(QmrVPass{w, work_.get(), beta})[0]);
                } else {
                    each(XpbyOp{work_.get(), -beta, w});
                    M_->apply_transpose(w, z, stream_.get());
                    xi_new = std::sqrt(dot(z, z));
                }
                const double gamma = givens.step(rho, rho_new, beta, it == 1);
                if (gamma == 0.0 || !std::isfinite(gamma)) {
                    fail_it(gamma, "gamma = 0", it);
                    break;
                }
                // d = eta p + c d;  s = eta p~ + c s;  x = x + d;  r = r - s;  ||r||: one pass
                const double r_norm = std::sqrt(sums<1>(QmrUpdatePass{
                    d_.get(), s_.get(), x_.get(), r, p, pt, givens.eta, givens.c})[0]);
                result.quasi_history.push_back(givens.tau / bnorm);
                if (record_iteration(result, bnorm, it, r_norm, opt)) break;
                rho = rho_new;
                xi = xi_new;
            }
        }
        // The true residual ||b - A x|| / ||b||, A x into work.
        result.true_relative_residual = residual(work_.get()) / bnorm;
        return result;
    }

    Buffer<double> r_, v_, w_, p_, q_, pt_, d_, s_, work_, z_, y_;
};

}  // namespace

std::unique_ptr<SlabSolver> make_slab_qmr(const SolverSettings& settings, const GHMatrix& slab,
                                          const SlabLayout& layout,
                                          const SlabNeighbours& neighbours,
                                          const CprPlanes* planes) {
    return std::make_unique<SlabQmr>(settings, slab, layout, neighbours, planes);
}

}  // namespace heptane::gpu::detail
