// A GPU rank's BiCGStab (gpu/slab_solver.hpp, issue 25): core/krylov/krylov.cpp's iteration
// pass for pass on the slab's device vectors (the same fused passes, canonical arithmetic and
// BicgstabRecurrence), the host exchanging the halo planes before each product and joining each
// pass's sums across the ranks (slab_base.cuh).
#include "gpu/src/krylov/slab_base.cuh"

namespace heptane::gpu::detail {
namespace {

class SlabBicgstab final : public SlabBase {
  public:
    SlabBicgstab(const SolverSettings& s, const GHMatrix& slab, const SlabLayout& layout,
                 const SlabNeighbours& neighbours, const CprPlanes* planes)
        : SlabBase(s, slab, layout, neighbours, planes),
          r_(rows_),
          r_hat_(rows_),
          p_(rows_),
          v_(rows_),
          s_(rows_),
          t_(rows_),
          rp_(M_ ? rows_ : 0),
          vp_(M_ ? rows_ : 0),
          sp_(M_ ? rows_ : 0) {
        zero({&b_, &x_, &r_, &r_hat_, &p_, &v_, &s_, &t_, &rp_, &vp_, &sp_});
        info_.cost = bicgstab_cpu_cost();
        finish_setup(M_ ? 11 : 8);
    }

  private:
    double* rp() const { return M_ ? rp_.get() : r_.get(); }
    double* vp() const { return M_ ? vp_.get() : v_.get(); }
    double* sp() const { return M_ ? sp_.get() : s_.get(); }

    void precondition(const double* r, double* z) {
        if (M_) M_->apply(r, z, stream_.get());
    }

    /// core/krylov/krylov.cpp's bicgstab(), with the vectors on the device.
    SolveResult iterate(const SolveOptions& opt) override {
        SolveResult result;
        double bnorm = 0.0;
        if (!start(result, bnorm)) return result;
        const auto record_it = [&](int it, double rnorm) {
            return record_iteration(result, bnorm, it, rnorm, opt);
        };
        const auto fail_it = [&](double value, const std::string& what, int it) {
            record_breakdown(result, value, what, it);
        };
        double* const r = r_.get();
        double* const r_hat = r_hat_.get();
        BicgstabRecurrence R;
        R.start(residual(r));
        if (!record_it(0, R.r_norm)) {
            each(CopyOp{r, r_hat});
            precondition(r, rp());
            bool have_rho = false;
            double next_rho = 0.0;
            for (int it = 1; it <= opt.max_iterations; ++it) {
                double rho = have_rho ? next_rho : dot(r_hat, r);
                const int rho_check = R.check_rho(rho, opt.max_restarts);
                if (rho_check == kRhoNonFinite) {
                    fail_it(rho, "rho = (r_hat, r) is not finite", it);
                    break;
                }
                if (rho_check == kRhoZero) {
                    fail_it(rho,
                            "rho = (r_hat, r) = " + num(rho) + " (numerically zero, " +
                                std::to_string(R.restarts) + " restarts)",
                            it);
                    break;
                }
                if (rho_check == kRhoRestart) {
                    R.restart(residual(r));
                    each(CopyOp{r, r_hat});
                    precondition(r, rp());
                    rho = R.rho;
                }
                const bool fresh = R.fresh;
                R.accept_rho(rho);
                if (fresh) {
                    each(CopyOp{rp(), p_.get()});
                } else {
                    each(PUpdateOp{rp(), p_.get(), vp(), R.beta, R.omega});
                }
                product(p_.get(), v_.get());
                precondition(v_.get(), vp());
                const double sigma = dot(r_hat, v_.get());
                if (!R.accept_sigma(sigma)) {
                    fail_it(sigma, "(r_hat, A p) = " + num(sigma), it);
                    break;
                }
                const double alpha = R.alpha;
                // s^ = r^ - alpha v^ needs alpha only: the GPU computes it while the host joins
                // ||s|| (the half step does not read s^).
                const Launched s_pass = launch<1>(SPass{r, v_.get(), s_.get(), alpha});
                if (M_) each(XmayOp{rp(), alpha, vp(), sp()});
                const double s_norm = std::sqrt(join<1>(s_pass)[0]);
                if (BicgstabRecurrence::half_step(s_norm, bnorm, opt.tolerance)) {
                    each(AxpyOp{alpha, p_.get(), x_.get()});
                    each(CopyOp{s_.get(), r});
                    record_it(it, s_norm);
                    break;
                }
                product(sp(), t_.get());
                const auto t_dots = sums<2>(TPass{t_.get(), s_.get()});
                if (!R.accept_t(t_dots[0], t_dots[1])) {
                    fail_it(t_dots[0], "(t, t) = " + num(t_dots[0]), it);
                    break;
                }
                // r^ = M^-1 r while the host joins ||r|| and (r_hat, r) (unused if it stops).
                const Launched r_pass = launch<2>(
                    XrPass{x_.get(), r, p_.get(), sp(), s_.get(), t_.get(), r_hat, alpha, R.omega});
                precondition(r, rp());
                const auto r_dots = join<2>(r_pass);
                const double r_norm = std::sqrt(r_dots[0]);
                have_rho = true;
                next_rho = r_dots[1];
                if (record_it(it, r_norm)) break;
                if (!R.next(r_norm)) {
                    fail_it(R.omega, "omega = (t, s) / (t, t) = 0", it);
                    break;
                }
            }
            result.restarts = R.restarts;
        }
        // The true residual ||b - A x|| / ||b||, A x into t.
        result.true_relative_residual = residual(t_.get()) / bnorm;
        return result;
    }

    Buffer<double> r_, r_hat_, p_, v_, s_, t_, rp_, vp_, sp_;
};

}  // namespace

std::unique_ptr<SlabSolver> make_slab_bicgstab(const SolverSettings& settings, const GHMatrix& slab,
                                               const SlabLayout& layout,
                                               const SlabNeighbours& neighbours,
                                               const CprPlanes* planes) {
    return std::make_unique<SlabBicgstab>(settings, slab, layout, neighbours, planes);
}

}  // namespace heptane::gpu::detail
