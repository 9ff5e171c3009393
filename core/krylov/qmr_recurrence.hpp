#pragma once
/// @file QMR's scalar recurrence (Templates Fig. 2.8: theta, gamma, eta, tau), shared by the
/// CPU reference and every GPU QMR so that all of them compute the same bits: written once
/// in canonical arithmetic (core/base/canonical.hpp), usable on the host and the device.
#include <cmath>

#include "core/base/canonical.hpp"

namespace heptane {

/// The Givens part of one QMR iteration. Before the first iteration: gamma = 1, eta = -1,
/// theta = 0, tau = ||r_0||.
struct QmrRecurrence {
    double gamma = 1.0;  ///< gamma_{i-1}, then gamma_i after step()
    double eta = -1.0;
    double theta = 0.0;
    double tau = 0.0;  ///< the quasi-residual norm: never grows
    double c = 0.0;    ///< (theta_{i-1} gamma_i)^2: the weight of the old d and s (0 at i = 1)

    /// Iteration `first` (i = 1) or later, with rho = ||v~_i||, rho_new = ||v~_{i+1}|| and
    /// beta = epsilon / delta. Returns gamma_i; when it is 0 or not finite (a breakdown) the
    /// state is left unchanged.
    HEPTANE_HD double step(double rho, double rho_new, double beta, bool first) {
        using namespace canonical;
        // theta = rho_new / (gamma_old |beta|);  gamma = 1 / sqrt(1 + theta^2)
        const double theta_new = rho_new / mul(gamma, std::fabs(beta));
        const double gamma_new = 1.0 / std::sqrt(add(1.0, mul(theta_new, theta_new)));
        if (gamma_new == 0.0 || !std::isfinite(gamma_new)) return gamma_new;
        // eta = -eta rho gamma^2 / (beta gamma_old^2)
        eta = mul(mul(mul(-eta, rho), gamma_new), gamma_new) / mul(mul(beta, gamma), gamma);
        // d = eta p + (theta_old gamma)^2 d;  s = eta p~ + (theta_old gamma)^2 s
        const double tg = mul(theta, gamma_new);
        c = first ? 0.0 : mul(tg, tg);
        // tau = tau theta gamma (the Givens sine)
        tau = mul(tau, mul(theta_new, gamma_new));
        theta = theta_new;
        gamma = gamma_new;
        return gamma_new;
    }
};

}  // namespace heptane
