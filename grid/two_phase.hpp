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
#include <cstdint>
#include <vector>

#include "core/base/canonical_math.hpp"
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
HEPTANE_HD T phase_density(const PhaseProperties& ph, const T& p, double p_ref) {
    using canonical::exp;
    return ph.density * exp(ph.compressibility * (p - p_ref));
}

template <class T>
HEPTANE_HD T rock_porosity(double phi_ref, double c_rock, const T& p, double p_ref) {
    using canonical::exp;
    return phi_ref * exp(c_rock * (p - p_ref));
}

/// Normalized water saturation, clamped to [0, 1] (constant outside: zero derivative).
template <class T>
HEPTANE_HD T effective_saturation(const RelPerm& rp, const T& sw) {
    const T se = (sw - rp.swc) / (1.0 - rp.swc - rp.sor);
    if (value(se) <= 0.0) return T(0.0);
    if (value(se) >= 1.0) return T(1.0);
    return se;
}

template <class T>
HEPTANE_HD T water_relperm(const RelPerm& rp, const T& sw) {
    using canonical::pow;
    const T se = effective_saturation(rp, sw);
    return value(se) <= 0.0 ? T(0.0) : rp.krw_max * pow(se, rp.nw);
}

template <class T>
HEPTANE_HD T oil_relperm(const RelPerm& rp, const T& sw) {
    using canonical::pow;
    const T so = 1.0 - effective_saturation(rp, sw);
    return value(so) <= 0.0 ? T(0.0) : rp.kro_max * pow(so, rp.no);
}

/// Phase mobility kr / mu [1/(Pa s)] at water saturation sw.
template <class T>
HEPTANE_HD T phase_mobility(const TwoPhaseParams& prm, int phase, const T& sw) {
    return phase == kOil ? oil_relperm(prm.relperm, sw) / prm.oil.viscosity
                         : water_relperm(prm.relperm, sw) / prm.water.viscosity;
}

HEPTANE_HD inline const PhaseProperties& phase_props(const TwoPhaseParams& prm, int phase) {
    return phase == kOil ? prm.oil : prm.water;
}

// ---- one cell's equations, on the host and the device (issue 23) ----------------------------

/// What the cell equations read, as plain arrays: the host's vectors, or their device copies.
struct TwoPhaseCellsView {
    int nx = 0, ny = 0, nz = 0;
    const double* porosity = nullptr;      ///< reference porosity per cell
    const std::uint8_t* active = nullptr;  ///< 1 active, 0 not; null: every cell active
    const double* volume = nullptr;        ///< bulk volume per cell [m^3]
    const double* depth = nullptr;         ///< centre depth per cell [m]
    const double* tx = nullptr;            ///< TPFA transmissibilities (grid/transmissibility)
    const double* ty = nullptr;
    const double* tz = nullptr;
    TwoPhaseParams params;
};

/// A state's arrays: oil pressure [Pa] and water saturation per cell.
struct StateView {
    const double* p = nullptr;
    const double* sw = nullptr;
};

/// Where the Jacobian's cell part goes: Bdia entry (d, r, c) of cell m at
/// ((d 2 + r) 2 + c) stride + m - first (stride M on the host, the device's padded Mp; first:
/// the first cell the storage holds, a rank's slab of i-planes, else 0), and the
/// accumulation blocks at (r 2 + c) stride + m - first. bdia null: the residual only.
struct JacobianView {
    double* bdia = nullptr;
    double* accumulation = nullptr;
    index_t stride = 0;
    index_t first = 0;
};

/// Transmissibility of the face between cell m and its neighbour n across diagonal d.
HEPTANE_HD inline double face_transmissibility(const TwoPhaseCellsView& v, index_t m, index_t n,
                                               int d) {
    switch (d) {
        case 0:
            return v.tx[n];
        case 1:
            return v.ty[n];
        case 2:
            return v.tz[n];
        case 4:
            return v.tz[m];
        case 5:
            return v.ty[m];
        case 6:
            return v.tx[m];
        default:
            return 0.0;
    }
}

/// Cell m's two scaled equations without well terms into res[2 m], res[2 m + 1], and with
/// jac.bdia its seven 2 x 2 blocks of d res / d x (pressure columns per kPressureScale) and
/// its accumulation block (identity blocks for an inactive cell). It writes cell m's entries
/// only, so cells can run in any order or in parallel with the same bits.
HEPTANE_HD inline void assemble_cell(const TwoPhaseCellsView& v, index_t m, StateView x,
                                     StateView x_old, double dt, double* res, JacobianView jac) {
    const TwoPhaseParams& prm = v.params;
    const double ps = units::kPressureScale;
    const double p_ref = prm.reference_pressure;
    // Mass rate [kg/s] -> scaled volume rate [m^3/day] per phase.
    const double scale[2] = {units::kTimeScale / prm.oil.density,
                             units::kTimeScale / prm.water.density};
    auto J = [&](int d, int r, int c) -> double& {
        return jac.bdia[((d * 2 + r) * 2 + c) * jac.stride + m - jac.first];
    };
    auto A = [&](int r, int c) -> double& {
        return jac.accumulation[(r * 2 + c) * jac.stride + m - jac.first];
    };
    if (jac.bdia != nullptr) {
        for (int d = 0; d < kStencilSize; ++d)
            for (int r = 0; r < 2; ++r)
                for (int c = 0; c < 2; ++c) J(d, r, c) = 0.0;
    }
    double r_cell[2] = {0.0, 0.0};
    // An inactive cell: residual 0, identity block (its neighbours' faces have T = 0).
    if (v.active != nullptr && v.active[m] == 0) {
        if (jac.bdia != nullptr) {
            J(kCenter, 0, 0) = J(kCenter, 1, 1) = 1.0;
            for (int r = 0; r < 2; ++r)
                for (int c = 0; c < 2; ++c) A(r, c) = r == c ? 1.0 : 0.0;
        }
        res[2 * m] = res[2 * m + 1] = 0.0;
        return;
    }
    const double pore_factor = v.volume[m] / dt;
    // Accumulation: V/dt [(phi rho_a S_a)(x) - (phi rho_a S_a)(x_old)].
    using D2 = Dual<2>;
    const D2 p = D2::variable(x.p[m], kPressure, ps);
    const D2 sw = D2::variable(x.sw[m], kSaturation);
    const D2 phi = rock_porosity(v.porosity[m], prm.rock_compressibility, p, p_ref);
    const double phi_old =
        rock_porosity(v.porosity[m], prm.rock_compressibility, x_old.p[m], p_ref);
    for (int a = 0; a < 2; ++a) {
        const PhaseProperties& ph = phase_props(prm, a);
        const D2 s = a == kWater ? sw : 1.0 - sw;
        const double s_old = a == kWater ? x_old.sw[m] : 1.0 - x_old.sw[m];
        const D2 acc = pore_factor * (phi * phase_density(ph, p, p_ref) * s -
                                      phi_old * phase_density(ph, x_old.p[m], p_ref) * s_old);
        const D2 r = acc * scale[a];
        r_cell[a] += r.v;
        if (jac.bdia != nullptr) {
            for (int c = 0; c < 2; ++c) {
                J(kCenter, a, c) += r.d[c];
                A(a, c) = r.d[c];
            }
        }
    }
    // Fluxes through the six faces, upstream mobility, gravity.
    const index_t col = static_cast<index_t>(v.nz) * v.ny;
    const index_t off[kStencilSize] = {-col, -v.nz, -1, 0, 1, v.nz, col};
    for (int d = 0; d < kStencilSize; ++d) {
        if (d == kCenter) continue;
        if (!stencil_has_neighbour(v.nx, v.ny, v.nz, m, d)) continue;
        const index_t n = m + off[d];
        const double t = face_transmissibility(v, m, n, d);
        if (t == 0.0) continue;
        const double dz = v.depth[m] - v.depth[n];  // z_m - z_n
        using D4 = Dual<4>;                         // d/d (p_m, S_w m, p_n, S_w n)
        const D4 pm = D4::variable(x.p[m], 0, ps), swm = D4::variable(x.sw[m], 1);
        const D4 pn = D4::variable(x.p[n], 2, ps), swn = D4::variable(x.sw[n], 3);
        for (int a = 0; a < 2; ++a) {
            const PhaseProperties& ph = phase_props(prm, a);
            const D4 rho_m = phase_density(ph, pm, p_ref);
            const D4 rho_n = phase_density(ph, pn, p_ref);
            const D4 dphi = pm - pn - 0.5 * (rho_m + rho_n) * (prm.gravity * dz);
            const D4 mob = value(dphi) >= 0.0 ? rho_m * phase_mobility(prm, a, swm)
                                              : rho_n * phase_mobility(prm, a, swn);
            const D4 flux = (t * scale[a]) * mob * dphi;
            r_cell[a] += flux.v;
            if (jac.bdia != nullptr) {
                for (int c = 0; c < 2; ++c) {
                    J(kCenter, a, c) += flux.d[c];
                    J(d, a, c) += flux.d[2 + c];
                }
            }
        }
    }
    res[2 * m] = r_cell[0];
    res[2 * m + 1] = r_cell[1];
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
    /// The same for the cells [begin, end) only (a rank of a distributed simulation): the
    /// other cells' entries of res are zero, their Jacobian rows left as they are. jac: the
    /// whole grid's, or a slab of exactly the planes of [begin, end) (a rank's own storage).
    void assemble(const CellState& x, const CellState& x_old, double dt, std::vector<double>& res,
                  GHMatrix* jac, index_t begin, index_t end) const;

    /// Hydrostatic oil-pressure equilibrium: p at depth z_datum is p_datum [Pa], each cell of
    /// a column from the one above by the discrete balance p_{k+1} - p_k = rho_face g dz
    /// (fixed point), so the vertical oil fluxes of the initial state vanish. Saturation is
    /// uniform sw. Inactive cells get values too (they are never updated).
    CellState equilibrium_state(double p_datum, double z_datum, double sw) const;

    const Grid3D& grid() const { return grid_; }
    const TwoPhaseParams& params() const { return params_; }
    const RockFields& rock() const { return rock_; }
    /// The arrays assemble_cell reads (this object's; copy them for a device).
    TwoPhaseCellsView view() const;
    const std::vector<double>& volumes() const { return volume_; }
    const std::vector<double>& depths() const { return depth_; }
    const Transmissibilities& transmissibilities() const { return trans_; }

  private:
    Grid3D grid_;
    RockFields rock_;
    TwoPhaseParams params_;
    Transmissibilities trans_;
    std::vector<double> volume_, depth_;  ///< per cell, from the grid (volume(m), centre_depth(m))
};

}  // namespace heptane::grid
