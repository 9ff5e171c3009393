#pragma once
/// @file A Newton step's per-cell arithmetic, written once for the host and the device (issue
/// 23: the update and the convergence measures on the GPU must give the host's bits): the
/// chopped update of a cell and of a well, and a cell's terms of the convergence measures.
/// The sums over cells are canonical reductions (core/base/canonical.hpp), maxima are exact
/// in any order.
#include "core/base/canonical.hpp"
#include "core/base/units.hpp"
#include "grid/two_phase.hpp"

namespace heptane::sim {

/// std::clamp's result, for host and device code.
HEPTANE_HD inline double clamp(double v, double lo, double hi) {
    return v < lo ? lo : (hi < v ? hi : v);
}

/// The limits of one Newton update (NewtonSettings' chopping).
struct UpdateLimits {
    double max_pressure_change = 0.0;    ///< relative to |p|
    double max_saturation_change = 0.0;  ///< absolute
};

/// p + dp with |dp| at most max_pressure_change |p| (dp_scaled in kPressureScale units).
HEPTANE_HD inline double chopped_pressure(const UpdateLimits& u, double p, double dp_scaled) {
    const double limit = u.max_pressure_change * (p < 0.0 ? -p : p);
    return p + clamp(dp_scaled * units::kPressureScale, -limit, limit);
}

/// Cell m's update from the Newton step dx (cells 2 M, then wells): the pressure chopped, the
/// saturation change clamped, the saturation kept in [0, 1].
HEPTANE_HD inline void update_cell(const UpdateLimits& u, index_t m, const double* dx, double* p,
                                   double* sw) {
    p[m] = chopped_pressure(u, p[m], dx[2 * m]);
    const double ds = clamp(dx[2 * m + 1], -u.max_saturation_change, u.max_saturation_change);
    sw[m] = clamp(sw[m] + ds, 0.0, 1.0);
}

/// Cell m's CNV term of phase a: |R| dt / PV (0 for a cell without pore volume, which has no
/// accumulation term to measure against); dt_scaled = dt / kTimeScale.
HEPTANE_HD inline double cnv_term(double r, double pv, double dt_scaled) {
    return pv > 0.0 ? (r < 0.0 ? -r : r) * dt_scaled / pv : 0.0;
}

}  // namespace heptane::sim
