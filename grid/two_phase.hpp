#pragma once
/// @file Fully implicit oil-water model (DESIGN section 4): the cell terms (accumulation and
/// TPFA fluxes with upstream mobility and gravity). The well terms are in wells/.
///
/// Unknowns per cell: c = 0 oil pressure p_o, c = 1 water saturation S_w (no capillary
/// pressure: p_w = p_o). Equations per cell: e = 0 oil, e = 1 water mass balance, backward
/// Euler over dt:
///   R_a(m) = V/dt [ (phi rho_a S_a)(x) - (phi rho_a S_a)(x_old) ]
///          + sum_faces T (rho_a lambda_a)_up dPhi_a            (mass out > 0)  [+ wells]
///   dPhi_a = p_m - p_n - rho_a_face g (z_m - z_n),  rho_a_face = (rho_a(p_m)+rho_a(p_n))/2
///   up = m if dPhi_a >= 0 else n;   lambda_a = kr_a(S_w) / mu_a
/// Slightly compressible fluids and rock: rho_a = rho_a_ref exp(c_a (p - p_ref)),
/// phi = phi_ref exp(c_r (p - p_ref)). Corey: krw = krw_max Se^nw, kro = kro_max (1-Se)^no,
/// Se = (S_w - swc) / (1 - swc - sor) clamped to [0, 1].
/// Scaling (core/base/units.hpp): equations are divided by rho_a_ref and multiplied by
/// kTimeScale (m^3/day); pressure unknowns are in units of kPressureScale (bar).
#include <cmath>
#include <vector>

#include "core/base/units.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "grid/dual.hpp"  // value(): the property laws take double or Dual<N>
#include "grid/grid3d.hpp"
#include "grid/rock.hpp"
#include "grid/transmissibility.hpp"

namespace heptane::grid {

constexpr int kOil = 0;         ///< equation / phase index
constexpr int kWater = 1;       ///< equation / phase index
constexpr int kPressure = 0;    ///< unknown index
constexpr int kSaturation = 1;  ///< unknown index

struct PhaseProperties {
    double density = 1000.0;       ///< reference density [kg/m^3] at the reference pressure
    double viscosity = 1.0e-3;     ///< [Pa s], constant
    double compressibility = 0.0;  ///< [1/Pa]
};

struct RelPerm {
    double swc = 0.0;      ///< connate water saturation
    double sor = 0.0;      ///< residual oil saturation
    double nw = 2.0;       ///< Corey exponent of water (>= 1)
    double no = 2.0;       ///< Corey exponent of oil (>= 1)
    double krw_max = 1.0;  ///< water relative permeability at S_w = 1 - sor
    double kro_max = 1.0;  ///< oil relative permeability at S_w = swc
};

/// All in SI. The defaults are the fluid of SPE10 model 2 (field units in brackets): oil
/// 53 lb/ft^3, 3 cP, 5e-6 1/psi; water 64 lb/ft^3, 0.3 cP, 3e-6 1/psi; rock 1e-6 1/psi;
/// reference pressure 6000 psi; Corey swc = sor = 0.2, nw = no = 2 (its SWOF table).
struct TwoPhaseParams {
    PhaseProperties oil{53.0 * units::kPoundPerCubicFoot, 3.0 * units::kCentiPoise,
                        5.0e-6 / units::kPsi};
    PhaseProperties water{64.0 * units::kPoundPerCubicFoot, 0.3 * units::kCentiPoise,
                          3.0e-6 / units::kPsi};
    RelPerm relperm{0.2, 0.2, 2.0, 2.0, 1.0, 1.0};
    double reference_pressure = 6000.0 * units::kPsi;    ///< [Pa], density/porosity laws
    double rock_compressibility = 1.0e-6 / units::kPsi;  ///< [1/Pa]
    double gravity = units::kGravity;                    ///< [m/s^2]; 0 switches gravity off
};

/// Cell state in SI: oil pressure [Pa] and water saturation per cell.
struct CellState {
    std::vector<double> p;
    std::vector<double> sw;
};

// ---- property laws, templated on the scalar (double or Dual<N>) --------------------------

template <class T>
T phase_density(const PhaseProperties& ph, const T& p, double p_ref) {
    using std::exp;
    return ph.density * exp(ph.compressibility * (p - p_ref));
}

template <class T>
T rock_porosity(double phi_ref, double c_rock, const T& p, double p_ref) {
    using std::exp;
    return phi_ref * exp(c_rock * (p - p_ref));
}

/// Normalized water saturation, clamped to [0, 1] (constant outside: zero derivative).
template <class T>
T effective_saturation(const RelPerm& rp, const T& sw) {
    const T se = (sw - rp.swc) / (1.0 - rp.swc - rp.sor);
    if (value(se) <= 0.0) return T(0.0);
    if (value(se) >= 1.0) return T(1.0);
    return se;
}

template <class T>
T water_relperm(const RelPerm& rp, const T& sw) {
    using std::pow;
    const T se = effective_saturation(rp, sw);
    return value(se) <= 0.0 ? T(0.0) : rp.krw_max * pow(se, rp.nw);
}

template <class T>
T oil_relperm(const RelPerm& rp, const T& sw) {
    using std::pow;
    const T so = 1.0 - effective_saturation(rp, sw);
    return value(so) <= 0.0 ? T(0.0) : rp.kro_max * pow(so, rp.no);
}

/// Phase mobility kr / mu [1/(Pa s)] at water saturation sw.
template <class T>
T phase_mobility(const TwoPhaseParams& prm, int phase, const T& sw) {
    return phase == kOil ? oil_relperm(prm.relperm, sw) / prm.oil.viscosity
                         : water_relperm(prm.relperm, sw) / prm.water.viscosity;
}

inline const PhaseProperties& phase_props(const TwoPhaseParams& prm, int phase) {
    return phase == kOil ? prm.oil : prm.water;
}

/// The cell part of the two-phase residual and Jacobian.
class TwoPhaseCells {
  public:
    TwoPhaseCells(const Grid3D& grid, const RockFields& rock, const TwoPhaseParams& params);

    /// Scaled residual of every cell equation without well terms: res[m 2 + e], size 2 M.
    /// If jac is not null (a K = 2 GHMatrix on the same grid) its Bdia is overwritten with
    /// d res / d x (pressure columns per kPressureScale), and its accumulation blocks
    /// (GHMatrix::accumulation) with the accumulation term's part of the diagonal blocks
    /// (identity for an inactive cell). Parallel over cells; each cell
    /// evaluates its own six faces, so the result does not depend on the thread count.
    void assemble(const CellState& x, const CellState& x_old, double dt, std::vector<double>& res,
                  GHMatrix* jac) const;

    /// Hydrostatic oil-pressure equilibrium: p at depth z_datum is p_datum [Pa], each cell of
    /// a column from the one above by the discrete balance p_{k+1} - p_k = rho_face g dz
    /// (fixed point), so the vertical oil fluxes of the initial state vanish. Saturation is
    /// uniform sw. Inactive cells get values too (they are never updated).
    CellState equilibrium_state(double p_datum, double z_datum, double sw) const;

    const Grid3D& grid() const { return grid_; }
    const TwoPhaseParams& params() const { return params_; }
    const RockFields& rock() const { return rock_; }

  private:
    Grid3D grid_;
    RockFields rock_;
    TwoPhaseParams params_;
    Transmissibilities trans_;
};

}  // namespace heptane::grid
