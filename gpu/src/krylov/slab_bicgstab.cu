// A GPU rank's BiCGStab (gpu/slab_solver.hpp, issue 25): core/krylov/krylov.cpp's iteration
// pass for pass on the slab's device vectors (the same fused passes, canonical arithmetic and
// BicgstabRecurrence). Where the GPUs reach each other (or there is one rank) the whole
// iteration runs on the device as the one-GPU multi-kernel solver's does - a graph replayed, the
// scalars in device state, each pass's sums joined across the ranks by the GPUs (design decision
// 59); otherwise the host joins each pass's sums across the ranks (slab_base.cuh).
#include "gpu/src/krylov/slab_base.cuh"

namespace heptane::gpu::detail {
namespace {

// ---- the passes of the iteration on the device, reading the scalars from the state ---------

struct StartPass {  // r = b - (A x in r); r_hat = r; ||r||^2
    const double* b;
    double* r;
    double* r_hat;
    __device__ void operator()(long long i, double (&t)[1]) const {
        const double ri = sub(b[i], mul(1.0, r[i]));
        r[i] = ri;
        r_hat[i] = ri;
        t[0] = mul(ri, ri);
    }
};

struct PUpdateOnDevice {  // p^ = r^ (fresh) or r^ + beta (p^ - omega v^)
    const double* rp;
    double* p;
    const double* vp;
    const SolverState* st;
    __device__ void operator()(long long i) const {
        const BicgstabRecurrence& R = st->bicg;
        p[i] = R.fresh ? rp[i] : mul_add(R.beta, sub(p[i], mul(R.omega, vp[i])), rp[i]);
    }
};

struct SPassOnDevice {  // s = r - alpha v (and s^ = r^ - alpha v^ where preconditioned); ||s||^2
    const double *r, *v;
    double* s;
    const double *rp, *vp;
    double* sp;
    const SolverState* st;
    __device__ void operator()(long long i, double (&t)[1]) const {
        const double alpha = st->bicg.alpha;
        const double si = sub(r[i], mul(alpha, v[i]));
        s[i] = si;
        if (sp != s) sp[i] = sub(rp[i], mul(alpha, vp[i]));
        t[0] = mul(si, si);
    }
};

struct XrPassOnDevice {  // x += alpha p^ + omega s^; r = s - omega t; ||r||^2, (r_hat, r)
                         // (half step: x += alpha p^, r = s)
    double* x;
    double* r;
    const double *p, *sp, *s, *tv, *r_hat;
    const SolverState* st;
    __device__ void operator()(long long i, double (&t)[2]) const {
        const double alpha = st->bicg.alpha, omega = st->bicg.omega;
        if (st->half_step) {
            x[i] = mul_add(alpha, p[i], x[i]);
            r[i] = s[i];
            t[0] = t[1] = 0.0;
            return;
        }
        x[i] = add(x[i], mul_add(omega, sp[i], mul(alpha, p[i])));
        const double ri = sub(s[i], mul(omega, tv[i]));
        r[i] = ri;
        t[0] = mul(ri, ri);
        t[1] = mul(r_hat[i], ri);
    }
};

// ---- the steps: the one-GPU solver's (bicgstab_steps.cuh), the next iteration's rho check
// taken from the pass that ends an iteration (its (r_hat, r) has (r_hat, r)'s bits: the same
// terms), as the host's iteration does, so an iteration has one pass fewer ---------------------

struct StartThenRho {  // iteration 0, then rho = (r_hat, r) = ||r||^2 while it runs
    __device__ void operator()(SolverState& s, const double (&t)[1], double* history) const {
        StartStep{}(s, t, history);
        if (s.status == kRunning) RhoStep{}(s, t, history);
    }
};

struct IterationThenRho {  // the iteration's ||r||, then the next one's rho while it runs
    __device__ void operator()(SolverState& s, const double (&t)[2], double* history) const {
        const double r_norm2[1] = {t[0]}, rho[1] = {t[1]};
        IterationStep{}(s, r_norm2, history);
        if (s.status == kRunning) RhoStep{}(s, rho, history);
    }
};

class SlabBicgstab final : public SlabBase {
  public:
    SlabBicgstab(const SolverSettings& s, const GHMatrix& slab, const SlabLayout& layout,
                 const SlabNeighbours& neighbours, const CprPlanes* planes)
        : SlabBase(s, slab, layout, neighbours, planes, true),
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

    void precondition(const double* r, double* z, const int* skip = nullptr) {
        if (M_) M_->apply(r, z, stream_.get(), skip);
    }

    /// The iteration on the device, kernel for kernel the one-GPU multi-kernel solver's
    /// (bicgstab_multi_kernel.cu), each reduction a pass joined across the ranks; rho was
    /// checked at the end of the iteration before (or of iteration 0).
    void iteration_on_device() {
        SolverState* const d = state_->device();
        const int* const running = &d->skip_iteration;
        double* const r = r_.get();
        double* const r_hat = r_hat_.get();
        product(x_.get(), r, false, &d->skip_restart);  // a restart: r = A x ...
        join_on_device<1>(StartPass{b_.get(), r, r_hat}, RestartStep{}, &d->skip_restart);
        precondition(r, rp(), running);                                     // r^ = M^-1 r
        each(PUpdateOnDevice{rp(), p_.get(), vp(), d}, running);            // p^
        product(p_.get(), v_.get(), false, running);                        // v = A p^
        precondition(v_.get(), vp(), running);                              // v^ = M^-1 v
        join_on_device<1>(DotPass{r_hat, v_.get()}, SigmaStep{}, running);  // alpha
        join_on_device<1>(SPassOnDevice{r, v_.get(), s_.get(), rp(), vp(), sp(), d}, HalfStep{},
                          running);
        product(sp(), t_.get(), false, &d->skip_t);                             // t = A s^
        join_on_device<2>(TPass{t_.get(), s_.get()}, OmegaStep{}, &d->skip_t);  // omega
        join_on_device<2>(XrPassOnDevice{x_.get(), r, p_.get(), sp(), s_.get(), t_.get(), r_hat, d},
                          IterationThenRho{}, running);
    }

    /// The solve with the iteration on the device: ||b||, iteration 0, the iterations replayed
    /// as one captured graph, the true residual; the host reads the state every few iterations.
    SolveResult iterate_on_device(const SolveOptions& opt) {
        const cudaStream_t st = stream_.get();
        const bool fresh = prepare_device(opt);
        p_.zero(st);  // a first iteration multiplies their old values by 0 (NaN-safe)
        v_.zero(st);
        vp_.zero(st);
        join_on_device<1>(DotPass{b_.get(), b_.get()}, BnormStep{}, nullptr);  // ||b||
        SolveResult result;
        if (!goes_on(result, state_->download(st).bnorm)) return result;
        product(x_.get(), r_.get());  // r = b - A x, r_hat = r: iteration 0
        join_on_device<1>(StartPass{b_.get(), r_.get(), r_hat_.get()}, StartThenRho{}, nullptr);
        if (fresh || !graph_) {
            cudaGraph_t graph = nullptr;
            HEPTANE_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
            iteration_on_device();
            HEPTANE_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
            graph_ = std::make_unique<GraphExec>(graph);
            HEPTANE_CUDA_CHECK(cudaGraphDestroy(graph));
            ++info_.counts.plans;
        }
        replay(graph_->get(), opt);
        // The true residual ||b - A x|| / ||b||, A x into t.
        product(x_.get(), t_.get());
        join_on_device<1>(ResidualPass{b_.get(), t_.get()}, TrueResidualStep{}, nullptr);
        const SolverState end = state_->download(st);
        return to_result(end, history_.download(st));
    }

    /// core/krylov/krylov.cpp's bicgstab(), with the vectors on the device.
    SolveResult iterate(const SolveOptions& opt) override {
        if (device_joins_) return iterate_on_device(opt);
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
    std::unique_ptr<GraphExec> graph_;  ///< iteration_on_device, captured
};

}  // namespace

std::unique_ptr<SlabSolver> make_slab_bicgstab(const SolverSettings& settings, const GHMatrix& slab,
                                               const SlabLayout& layout,
                                               const SlabNeighbours& neighbours,
                                               const CprPlanes* planes) {
    return std::make_unique<SlabBicgstab>(settings, slab, layout, neighbours, planes);
}

}  // namespace heptane::gpu::detail
