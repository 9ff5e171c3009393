#include "core/krylov/krylov.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/base/canonical.hpp"
#include "core/base/piece_sums.hpp"
#include "core/base/vector_ops.hpp"
#include "core/krylov/bicgstab_recurrence.hpp"
#include "core/krylov/qmr_recurrence.hpp"
#include "core/krylov/solve_record.hpp"

namespace heptane {
namespace {

using Vec = std::vector<double>;

/// Common exits: zero right-hand side, and the true residual recomputed at the end.
struct SolverFrame {
    const LinearOperator& A;
    const double* b;
    double* x;
    index_t n;
    const Distribution* dist;  ///< the ranks every sum is taken over (null: one process)
    double bnorm;
    SolveResult result;

    SolverFrame(const LinearOperator& op, const double* rhs, double* sol, const SolveOptions& opt)
        : A(op), b(rhs), x(sol), n(op.size()), dist(opt.distribution), bnorm(norm2(rhs)) {}

    /// Q sums of a fused pass (vec::fused_sums' body), over every rank in a distributed run.
    template <int Q, class Body>
    std::array<double, Q> sums(Body body) const {
        return sums_over<Q>(n, body, dist);
    }
    double dot(const double* u, const double* v) const {
        return sums<1>([&](index_t i, double* t) { t[0] = canonical::mul(u[i], v[i]); })[0];
    }
    double norm2(const double* u) const { return std::sqrt(dot(u, u)); }

    /// r = b - A x into r; returns ||r||.
    double residual(double* r) const {
        A.apply(x, r);
        vec::xmay(b, 1.0, r, r, n);  // r = b - A x
        return norm2(r);
    }

    /// Handles ||b|| = 0 (x = 0 is exact) and a non-finite b. Returns true when done.
    bool trivial() {
        if (!std::isfinite(bnorm)) {
            result.status = SolveStatus::non_finite;
            result.detail = "||b|| is not finite";
            return true;
        }
        if (bnorm == 0.0) {
            for (index_t i = 0; i < n; ++i) x[i] = 0.0;
            result.status = SolveStatus::converged;
            result.history = {0.0};
            return true;
        }
        return false;
    }

    /// Records the recurrence residual of iteration `it`; returns true when the solve must
    /// stop (converged or non-finite).
    bool record(int it, double rnorm, const SolveOptions& opt) {
        return record_iteration(result, bnorm, it, rnorm, opt);
    }

    /// Sets status breakdown unless `value` is non-finite (then non_finite). Always true.
    bool fail(double value, const std::string& what, int it) {
        record_breakdown(result, value, what, it);
        return true;
    }

    SolveResult finish(Vec& work) {
        if (bnorm > 0.0 && std::isfinite(bnorm)) {
            result.true_relative_residual = residual(work.data()) / bnorm;
        }
        return std::move(result);
    }
};

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// z = M^{-1} r into `buffer`, or r itself for the identity (no copy).
const double* precondition(const Preconditioner* M, const double* r, Vec& buffer) {
    if (M == nullptr || M->is_identity()) return r;
    M->apply(r, buffer.data());
    return buffer.data();
}

}  // namespace

const char* to_string(SolveStatus s) {
    switch (s) {
        case SolveStatus::converged:
            return "converged";
        case SolveStatus::max_iterations:
            return "max_iterations";
        case SolveStatus::breakdown:
            return "breakdown";
        case SolveStatus::non_finite:
            return "non_finite";
    }
    return "unknown";
}

IterationCost bicgstab_cost() {
    // rho 2, p update 4, (r_hat, v) 2, s 3, ||s|| 1, (t, t) 1, (t, s) 2, x 4, r 3, ||r|| 1
    return {2, 23};
}

IterationCost qmr_cost() {
    // v 2, w 2, delta 2, p 3, q 3, eps 2, v~ 3, rho 1, w~ 3, xi 1, d 3, s 3, x 3, r 3, ||r|| 1
    return {2, 35};
}

IterationCost bicgstab_cpu_cost() {
    // p update 4, (r_hat, v) 2, s with ||s|| 3, (t, t) with (t, s) 2, x and r with ||r|| and
    // the next rho 7 (reads x, p^, s^ = s, t, r_hat; writes x, r)
    return {2, 18};
}

IterationCost qmr_cpu_cost() {
    // v, w with delta 4, p 3, q 3, eps 2, v~ with rho 3, w~ with xi 3, d, s, x, r with
    // ||r|| 10 (reads p, d, p~, s, x, r; writes d, s, x, r)
    return {2, 28};
}

SolveResult bicgstab(const LinearOperator& A, const double* b, double* x, const SolveOptions& opt,
                     const Preconditioner* M) {
    // Right preconditioning by linearity (design decision 27): the solver keeps the
    // preconditioned vectors r^ = M^{-1} r, p^ = M^{-1} p and v^ = M^{-1} v beside r and v,
    // so p^ = r^ + beta (p^ - omega v^) and s^ = r^ - alpha v^ need no application; M^{-1} is
    // applied to v = A p^ and to the new r. A GPU block that owns whole cells can then apply a
    // cell-local M^{-1} to the vectors it has just computed, with no extra synchronization.
    // With M = I the hatted vectors are the plain ones and no copy is made.
    SolverFrame f(A, b, x, opt);
    const index_t n = f.n;
    const bool identity = M == nullptr || M->is_identity();
    Vec r(n), r_hat(n), p(n), v(n), s(n), t(n);
    Vec rp_buf, vp_buf, sp_buf;  // r^, v^, s^ (preconditioned solves only)
    if (!identity) {
        rp_buf.resize(n);
        vp_buf.resize(n);
        sp_buf.resize(n);
    }
    double* const rp = identity ? r.data() : rp_buf.data();
    double* const vp = identity ? v.data() : vp_buf.data();
    double* const sp = identity ? s.data() : sp_buf.data();
    auto precondition_into = [&](const double* in, double* out) {
        if (!identity) M->apply(in, out);
    };
    if (f.trivial()) return f.finish(t);

    // r = b - A x;  r_hat = r;  r^ = M^{-1} r
    BicgstabRecurrence R;  // the scalar rules, shared with the GPU solvers
    R.start(f.residual(r.data()));
    if (f.record(0, R.r_norm, opt)) return f.finish(t);
    vec::copy(r.data(), r_hat.data(), n);
    precondition_into(r.data(), rp);

    // rho = (r_hat, r) of the next iteration, where the r update computed it (fused pass)
    bool have_rho = false;
    double next_rho = 0.0;
    for (int it = 1; it <= opt.max_iterations; ++it) {
        // rho = (r_hat, r)
        double rho = have_rho ? next_rho : f.dot(r_hat.data(), r.data());
        const int rho_check = R.check_rho(rho, opt.max_restarts);
        if (rho_check == kRhoNonFinite) {
            f.fail(rho, "rho = (r_hat, r) is not finite", it);
            break;
        }
        if (rho_check == kRhoZero) {
            f.fail(rho,
                   "rho = (r_hat, r) = " + num(rho) + " (numerically zero, " +
                       std::to_string(R.restarts) + " restarts)",
                   it);
            break;
        }
        if (rho_check == kRhoRestart) {
            // Near-breakdown: restart from x with r = b - A x, r_hat = r, p = r.
            R.restart(f.residual(r.data()));
            vec::copy(r.data(), r_hat.data(), n);
            precondition_into(r.data(), rp);
            rho = R.rho;
        }
        // beta = (rho / rho_old) (alpha / omega);
        // p^ = r^ (p = r), or p^ = r^ + beta (p^ - omega v^)
        const bool fresh = R.fresh;
        R.accept_rho(rho);
        if (fresh) {
            vec::copy(rp, p.data(), n);
        } else {
            const double beta = R.beta, omega = R.omega;
#pragma omp parallel for schedule(static) if (n >= vec::kParallelMin)
            for (index_t i = 0; i < n; ++i) {
                p[i] = canonical::mul_add(beta, canonical::sub(p[i], canonical::mul(omega, vp[i])),
                                          rp[i]);
            }
        }
        // v = A p^;  v^ = M^{-1} v
        A.apply(p.data(), v.data());
        precondition_into(v.data(), vp);
        // alpha = rho / (r_hat, v)
        const double sigma = f.dot(r_hat.data(), v.data());
        if (!R.accept_sigma(sigma)) {
            f.fail(sigma, "(r_hat, A p) = " + num(sigma), it);
            break;
        }
        const double alpha = R.alpha;
        // s = r - alpha v and ||s|| in one pass; stop at the half step if s is small enough:
        // x = x + alpha p^
        const double s_norm = std::sqrt(f.sums<1>([&](index_t i, double* q) {
            s[i] = canonical::sub(r[i], canonical::mul(alpha, v[i]));
            q[0] = canonical::mul(s[i], s[i]);
        })[0]);
        if (BicgstabRecurrence::half_step(s_norm, f.bnorm, opt.tolerance)) {
            vec::axpy(alpha, p.data(), x, n);
            vec::copy(s.data(), r.data(), n);
            f.record(it, s_norm, opt);
            break;
        }
        // s^ = r^ - alpha v^;  t = A s^
        if (!identity) vec::xmay(rp, alpha, vp, sp, n);
        A.apply(sp, t.data());
        // omega = (t, s) / (t, t), both in one pass
        const auto t_dots = f.sums<2>([&](index_t i, double* q) {
            q[0] = canonical::mul(t[i], t[i]);
            q[1] = canonical::mul(t[i], s[i]);
        });
        const double tt = t_dots[0];
        if (!R.accept_t(tt, t_dots[1])) {
            f.fail(tt, "(t, t) = " + num(tt), it);
            break;
        }
        const double omega = R.omega;
        // x = x + alpha p^ + omega s^;  r = s - omega t;  ||r|| and the next (r_hat, r): one
        // pass
        const auto r_dots = f.sums<2>([&](index_t i, double* q) {
            x[i] =
                canonical::add(x[i], canonical::mul_add(omega, sp[i], canonical::mul(alpha, p[i])));
            r[i] = canonical::sub(s[i], canonical::mul(omega, t[i]));
            q[0] = canonical::mul(r[i], r[i]);
            q[1] = canonical::mul(r_hat[i], r[i]);
        });
        const double r_norm = std::sqrt(r_dots[0]);
        have_rho = true;
        next_rho = r_dots[1];
        // r^ = M^{-1} r
        if (f.record(it, r_norm, opt)) break;
        if (!R.next(r_norm)) {  // omega = 0: the next beta would divide by omega
            f.fail(omega, "omega = (t, s) / (t, t) = 0", it);
            break;
        }
        precondition_into(r.data(), rp);
    }
    f.result.restarts = R.restarts;
    return f.finish(t);
}

SolveResult qmr(const LinearOperator& A, const double* b, double* x, const SolveOptions& opt,
                const Preconditioner* M) {
    // Templates Fig. 2.8 with M1 = I and M2 = M (right preconditioning): y = v~ and
    // z~ = z, so y and z~ need no storage of their own.
    SolverFrame f(A, b, x, opt);
    const index_t n = f.n;
    const bool identity = M == nullptr || M->is_identity();
    Vec r(n), v(n), w(n), p(n), q(n), p_tilde(n), d(n), s(n), work(n);
    Vec z_buf, y_buf;
    if (!identity) {
        z_buf.resize(n);
        y_buf.resize(n);
    }
    double* z = identity ? w.data() : z_buf.data();
    if (f.trivial()) return f.finish(work);

    // r = b - A x;  v~ = r, rho = ||v~||;  w~ = r, z = M^{-T} w~, xi = ||z||
    const double r0 = f.residual(r.data());
    QmrRecurrence givens;
    givens.tau = r0;  // quasi-residual norm
    f.result.quasi_history.push_back(givens.tau / f.bnorm);
    if (f.record(0, r0, opt)) return f.finish(work);
    vec::copy(r.data(), v.data(), n);
    vec::copy(r.data(), w.data(), n);
    if (!identity) M->apply_transpose(w.data(), z);
    double rho = r0;
    double xi = f.norm2(z);
    double eps = 1.0;

    for (int it = 1; it <= opt.max_iterations; ++it) {
        if (rho == 0.0 || xi == 0.0) {
            f.fail(rho * xi, rho == 0.0 ? "rho = ||v~|| = 0" : "xi = ||z|| = 0", it);
            break;
        }
        // v = v~ / rho (= y);  w = w~ / xi;  z = z / xi;  delta = z^T y: one pass
        const double v_scale = 1.0 / rho, w_scale = 1.0 / xi;
        const double delta = f.sums<1>([&](index_t i, double* t) {
            v[i] = canonical::mul(v_scale, v[i]);
            w[i] = canonical::mul(w_scale, w[i]);
            if (!identity) z[i] = canonical::mul(w_scale, z[i]);
            t[0] = canonical::mul(z[i], v[i]);
        })[0];
        if (delta == 0.0 || !std::isfinite(delta)) {
            f.fail(delta, "delta = z^T y = " + num(delta), it);
            break;
        }
        // y~ = M2^{-1} y;  z~ = z
        const double* y_tilde = precondition(M, v.data(), y_buf);
        if (it == 1) {
            vec::copy(y_tilde, p.data(), n);  // p = y~
            vec::copy(z, q.data(), n);        // q = z~
        } else {
            // p = y~ - (xi delta / eps) p;  q = z~ - (rho delta / eps) q
            vec::xpby(y_tilde, -xi * delta / eps, p.data(), n);
            vec::xpby(z, -rho * delta / eps, q.data(), n);
        }
        // p~ = A p;  eps = q^T p~;  beta = eps / delta
        A.apply(p.data(), p_tilde.data());
        eps = f.dot(q.data(), p_tilde.data());
        if (eps == 0.0 || !std::isfinite(eps)) {
            f.fail(eps, "epsilon = q^T A p = " + num(eps), it);
            break;
        }
        const double beta = eps / delta;
        if (beta == 0.0) {
            f.fail(beta, "beta = epsilon / delta = 0", it);
            break;
        }
        // v~ = p~ - beta v;  rho_new = ||v~||   (y = M1^{-1} v~ = v~)
        const double rho_new = std::sqrt(f.sums<1>([&](index_t i, double* t) {
            v[i] = canonical::mul_add(-beta, v[i], p_tilde[i]);
            t[0] = canonical::mul(v[i], v[i]);
        })[0]);
        // w~ = A^T q - beta w;  z = M2^{-T} w~;  xi_new = ||z||
        A.apply_transpose(q.data(), work.data());
        double xi_new = 0.0;
        if (identity) {  // z = w~: its norm in the same pass
            xi_new = std::sqrt(f.sums<1>([&](index_t i, double* t) {
                w[i] = canonical::mul_add(-beta, w[i], work[i]);
                t[0] = canonical::mul(w[i], w[i]);
            })[0]);
        } else {
            vec::xpby(work.data(), -beta, w.data(), n);
            M->apply_transpose(w.data(), z);
            xi_new = f.norm2(z);
        }
        // theta, gamma, eta, tau (core/krylov/qmr_recurrence.hpp, shared with the GPU solvers)
        const double gamma = givens.step(rho, rho_new, beta, it == 1);
        if (gamma == 0.0 || !std::isfinite(gamma)) {
            f.fail(gamma, "gamma = 0", it);
            break;
        }
        // d = eta p + (theta_old gamma)^2 d;  s = eta p~ + (theta_old gamma)^2 s
        // x = x + d;  r = r - s;  ||r||: one pass
        const double eta = givens.eta, c = givens.c;
        const double r_norm = std::sqrt(f.sums<1>([&](index_t i, double* t) {
            d[i] = canonical::mul_add(c, d[i], canonical::mul(eta, p[i]));
            s[i] = canonical::mul_add(c, s[i], canonical::mul(eta, p_tilde[i]));
            x[i] = canonical::mul_add(1.0, d[i], x[i]);
            r[i] = canonical::mul_add(-1.0, s[i], r[i]);
            t[0] = canonical::mul(r[i], r[i]);
        })[0]);
        f.result.quasi_history.push_back(givens.tau / f.bnorm);
        if (f.record(it, r_norm, opt)) break;
        rho = rho_new;
        xi = xi_new;
    }
    return f.finish(work);
}

}  // namespace heptane
