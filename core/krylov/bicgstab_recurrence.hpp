#pragma once
/// @file BiCGStab's scalar rules (seed 002 Algorithm 1 with the shadow-residual restart of
/// design decision 11), shared by the CPU reference and every GPU BiCGStab (multi-kernel,
/// library, in-kernel) so that all of them take the same branches and compute the same
/// scalars: written once, usable on the host and the device, as QmrRecurrence is for QMR.
/// The vectors stay with each implementation; this struct only decides.
#include <cmath>
#include <limits>

#include "core/base/canonical.hpp"

namespace heptane {

/// What BiCGStab does with a new rho = (r_hat, r).
enum BicgstabRho : int {
    kRhoProceed = 0,    ///< rho is usable: accept_rho(rho)
    kRhoRestart = 1,    ///< numerically zero: restart from x (r = b - A x, r_hat = r, p = r)
    kRhoNonFinite = 2,  ///< rho is not finite: non_finite
    kRhoZero = 3,       ///< numerically zero and no restart left: breakdown
};

/// The scalars of one BiCGStab solve and the rules that update them.
struct BicgstabRecurrence {
    double rho = 0.0;  ///< (r_hat, r) of the current iteration
    double rho_old = 1.0;
    double alpha = 1.0;
    double omega = 1.0;
    double beta = 0.0;
    double r_norm = 0.0;      ///< ||r|| of the last recorded iteration (or restart)
    double r_hat_norm = 0.0;  ///< ||r_hat||: ||r|| at the start or the last restart
    int restarts = 0;
    int fresh = 1;  ///< p = r at the next p update (first iteration, after a restart)

    /// Iteration 0: r = b - A x, r_hat = r, ||r|| = norm.
    HEPTANE_HD void start(double norm) {
        *this = BicgstabRecurrence{};
        r_norm = r_hat_norm = norm;
    }

    /// The near-breakdown rule: |rho| <= eps ||r_hat|| ||r|| means r has become orthogonal
    /// to r_hat to rounding; restart while restarts < max_restarts, else breakdown.
    HEPTANE_HD int check_rho(double new_rho, int max_restarts) const {
        if (!std::isfinite(new_rho)) return kRhoNonFinite;
        if (std::fabs(new_rho) <= std::numeric_limits<double>::epsilon() * r_hat_norm * r_norm) {
            return restarts >= max_restarts ? kRhoZero : kRhoRestart;
        }
        return kRhoProceed;
    }

    /// After a restart's r = b - A x, r_hat = r with ||r|| = norm: rho = ||r||^2, p = r next.
    HEPTANE_HD void restart(double norm) {
        ++restarts;
        r_norm = r_hat_norm = norm;
        rho = canonical::mul(norm, norm);
        fresh = 1;
    }

    /// rho accepted (kRhoProceed): beta = (rho / rho_old) (alpha / omega) unless p = r.
    HEPTANE_HD void accept_rho(double new_rho) {
        rho = new_rho;
        if (!fresh) beta = (rho / rho_old) * (alpha / omega);
    }

    /// sigma = (r_hat, A p): alpha = rho / sigma. False (breakdown, or non_finite for a
    /// non-finite sigma) when sigma is 0 or not finite.
    HEPTANE_HD bool accept_sigma(double sigma) {
        if (sigma == 0.0 || !std::isfinite(sigma)) return false;
        alpha = rho / sigma;
        fresh = 0;
        return true;
    }

    /// The half step ends the solve when ||s|| / ||b|| <= tolerance.
    HEPTANE_HD static bool half_step(double s_norm, double bnorm, double tolerance) {
        return s_norm / bnorm <= tolerance;
    }

    /// (t, t) and (t, s): omega = (t, s) / (t, t). False when (t, t) is 0 or not finite.
    HEPTANE_HD bool accept_t(double tt, double ts) {
        if (tt == 0.0 || !std::isfinite(tt)) return false;
        omega = ts / tt;
        return true;
    }

    /// The end of an iteration that did not stop (||r|| = norm recorded): false when omega
    /// is 0 (the next beta would divide by it: breakdown), else rho_old = rho.
    HEPTANE_HD bool next(double norm) {
        r_norm = norm;
        if (omega == 0.0) return false;
        rho_old = rho;
        return true;
    }
};

}  // namespace heptane
