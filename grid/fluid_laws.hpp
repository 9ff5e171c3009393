#pragma once
/// @file The two-phase model's fluid (grid/two_phase.hpp): the phases' properties, the PVDO
/// table, the parameters, the state and equilibrium records, and the property laws (density,
/// viscosity, porosity, phase pressure and mobility), templated on the scalar (double or
/// Dual<N>) and shared by the host and the device.
#include <vector>

#include "core/base/canonical_math.hpp"
#include "core/base/units.hpp"
#include "grid/dual.hpp"  // value(): the property laws take double or Dual<N>
#include "grid/relperm.hpp"

namespace heptane::grid {

constexpr int kOil = 0;         ///< equation / phase index
constexpr int kWater = 1;       ///< equation / phase index
constexpr int kPressure = 0;    ///< unknown index
constexpr int kSaturation = 1;  ///< unknown index

struct PhaseProperties {
    double density = 1000.0;       ///< surface density [kg/m^3] (Eclipse's DENSITY)
    double viscosity = 1.0e-3;     ///< [Pa s] at the reference pressure
    double compressibility = 0.0;  ///< [1/Pa]
    /// Formation volume factor at the reference pressure [reservoir m^3 / surface m^3]:
    /// the density there is density / volume_factor (design decision 81).
    double volume_factor = 1.0;
    /// [1/Pa]: mu(p) = viscosity exp(viscosibility (p - p_ref)) (Eclipse's Cv; design
    /// decision 84); 0: a constant viscosity.
    double viscosibility = 0.0;
};

/// A dead oil's tabulated PVT (Eclipse's PVDO; design decision 84): rows of pressure [Pa]
/// (strictly increasing) with 1/B and 1/(B mu) [1/(Pa s)], each linear in p between rows and
/// extrapolated linearly beyond the end rows, as OPM Flow's DeadOilPvt interpolates them; mu
/// is (1/B) / (1/(B mu)). grid/pvt_table.hpp checks and builds it. Held in place, a fixed
/// capacity, as RelPermTable.
struct PvtTable {
    static constexpr int kMaxRows = 32;
    int rows = 0;  ///< 0: no table (the phase's PhaseProperties laws)
    double p[kMaxRows] = {};
    double inv_b[kMaxRows] = {};
    double inv_bmu[kMaxRows] = {};
};

/// The phase's density at the reference pressure [kg/m^3]: rho_s / B (exactly rho_s for B = 1).
HEPTANE_HD inline double reservoir_density(const PhaseProperties& ph) {
    return ph.density / ph.volume_factor;
}

/// All in SI. The defaults are the fluid of SPE10 model 2 (field units in brackets): oil
/// 53 lb/ft^3, 3 cP, 5e-6 1/psi; water 64 lb/ft^3, 0.3 cP, 3e-6 1/psi; rock 1e-6 1/psi;
/// reference pressure 6000 psi; Corey swc = sor = 0.2, nw = no = 2 (its SWOF table).
struct TwoPhaseParams {
    PhaseProperties oil{53.0 * units::kPoundPerCubicFoot, 3.0 * units::kCentiPoise,
                        5.0e-6 / units::kPsi};
    PhaseProperties water{64.0 * units::kPoundPerCubicFoot, 0.3 * units::kCentiPoise,
                          3.0e-6 / units::kPsi};
    RelPerm relperm{0.2, 0.2, 2.0, 2.0, 1.0, 1.0, RelPermTable{}};
    double reference_pressure = 6000.0 * units::kPsi;    ///< [Pa], density/porosity laws
    double rock_compressibility = 1.0e-6 / units::kPsi;  ///< [1/Pa]
    double gravity = units::kGravity;                    ///< [m/s^2]; 0 switches gravity off
    /// The oil's PVDO table; with rows, the oil's density (with its surface density) and
    /// viscosity come from it, not from oil's compressibility, volume_factor, viscosity and
    /// viscosibility.
    PvtTable oil_pvt;
    /// Some saturation region after the first has a capillary pressure (design decision 87):
    /// TwoPhaseCells sets it from its regions, so that has_capillary_pressure is the model's.
    bool regions_capillary = false;
};

/// Whether the model has a capillary pressure in some saturation region: the cell
/// properties then hold Pc and its derivatives, and the equations take their terms.
HEPTANE_HD inline bool has_capillary_pressure(const TwoPhaseParams& prm) {
    return prm.relperm.table.capillary || prm.regions_capillary;
}

/// Cell state in SI: oil pressure [Pa] and water saturation per cell.
struct CellState {
    std::vector<double> p;
    std::vector<double> sw;
};

/// One equilibration region's initial state in SI (design decisions 77, 78, 92): the oil
/// pressure p_datum at depth z_datum, and a uniform water saturation `sw` (NaN: each cell's
/// connate water) or, with `contact`, the capillary-gravity equilibrium about the water-oil
/// contact at depth z_contact with Pcow pc_contact there, a cell's saturation averaged over
/// `sublayers` layers (1: the cell-centre rule).
struct Equilibrium {
    double p_datum = 0.0;
    double z_datum = 0.0;
    double sw = 0.0;
    bool contact = false;
    double z_contact = 0.0;
    double pc_contact = 0.0;
    int sublayers = 1;
};

/// A phase's properties, a copy chosen field by field: on the device a reference chosen by a
/// run-time phase would put the parameters in local memory.
HEPTANE_HD inline PhaseProperties phase_props(const TwoPhaseParams& prm, int phase) {
    const bool oil = phase == kOil;
    PhaseProperties ph;
    ph.density = oil ? prm.oil.density : prm.water.density;
    ph.viscosity = oil ? prm.oil.viscosity : prm.water.viscosity;
    ph.compressibility = oil ? prm.oil.compressibility : prm.water.compressibility;
    ph.volume_factor = oil ? prm.oil.volume_factor : prm.water.volume_factor;
    ph.viscosibility = oil ? prm.oil.viscosibility : prm.water.viscosibility;
    return ph;
}

// ---- property laws, templated on the scalar (double or Dual<N>) --------------------------

template <class T>
HEPTANE_HD T phase_density(const PhaseProperties& ph, const T& p, double p_ref) {
    using canonical::exp;
    return reservoir_density(ph) * exp(ph.compressibility * (p - p_ref));
}

/// Column y of table t at pressure p: linear between the rows around it (a row's own
/// pressure takes the segment that starts there), the end segments' lines beyond them.
template <class T>
HEPTANE_HD T pvt_interpolate(const PvtTable& t, const double* y, const T& p) {
    const double x = value(p);
    int i = 0;
    while (i + 2 < t.rows && t.p[i + 1] <= x) ++i;
    return y[i] + (y[i + 1] - y[i]) / (t.p[i + 1] - t.p[i]) * (p - t.p[i]);
}

/// Whether phase a's density and viscosity come from the PVDO table.
HEPTANE_HD inline bool tabulated_pvt(const TwoPhaseParams& prm, int a) {
    return a == kOil && prm.oil_pvt.rows > 0;
}

/// Phase a's density rho_a(p_a) [kg/m^3] at its pressure p_a: the table's rho_s / B(p_a), else
/// the slightly compressible law.
template <class T>
HEPTANE_HD T phase_density(const TwoPhaseParams& prm, int a, const T& p_a) {
    if (tabulated_pvt(prm, a)) {
        return prm.oil.density * pvt_interpolate(prm.oil_pvt, prm.oil_pvt.inv_b, p_a);
    }
    return phase_density(phase_props(prm, a), p_a, prm.reference_pressure);
}

/// Phase a's formation volume factor at the reference pressure (the table's there).
HEPTANE_HD inline double reference_volume_factor(const TwoPhaseParams& prm, int a) {
    if (tabulated_pvt(prm, a))
        return 1.0 / pvt_interpolate(prm.oil_pvt, prm.oil_pvt.inv_b, prm.reference_pressure);
    return a == kOil ? prm.oil.volume_factor : prm.water.volume_factor;
}

/// Phase a's formation volume factor at pressure p [reservoir m^3 / surface m^3]: rho_s over
/// its density there (a reservoir-volume rate's conversion, design decision 100).
HEPTANE_HD inline double volume_factor(const TwoPhaseParams& prm, int a, double p) {
    return (a == kOil ? prm.oil.density : prm.water.density) / phase_density(prm, a, p);
}

/// Phase a's density at the reference pressure: rho_s / B(p_ref) (exactly
/// reservoir_density for the slightly compressible law).
HEPTANE_HD inline double reference_density(const TwoPhaseParams& prm, int a) {
    if (tabulated_pvt(prm, a))
        return prm.oil.density *
               pvt_interpolate(prm.oil_pvt, prm.oil_pvt.inv_b, prm.reference_pressure);
    return reservoir_density(phase_props(prm, a));
}

/// Whether phase a's viscosity depends on its pressure (a table or a viscosibility).
HEPTANE_HD inline bool pressure_dependent_viscosity(const TwoPhaseParams& prm, int a) {
    return tabulated_pvt(prm, a) ||
           (a == kOil ? prm.oil.viscosibility : prm.water.viscosibility) != 0.0;
}

/// Whether some phase's viscosity depends on its pressure.
HEPTANE_HD inline bool pressure_dependent_viscosity(const TwoPhaseParams& prm) {
    return pressure_dependent_viscosity(prm, kOil) || pressure_dependent_viscosity(prm, kWater);
}

/// Phase a's viscosity [Pa s] at its pressure p_a: the table's (1/B) / (1/(B mu)), else
/// viscosity exp(viscosibility (p_a - p_ref)) (Eclipse's PVCDO / PVTW law mu(p) B(p) =
/// mu_ref B_ref / (1 + Y + Y^2/2), Y = (c - Cv) (p - p_ref), is that to third order, as the
/// density law is; design decision 84).
template <class T>
HEPTANE_HD T phase_viscosity(const TwoPhaseParams& prm, int a, const T& p_a) {
    using canonical::exp;
    if (tabulated_pvt(prm, a)) {
        const PvtTable& t = prm.oil_pvt;
        return pvt_interpolate(t, t.inv_b, p_a) / pvt_interpolate(t, t.inv_bmu, p_a);
    }
    const double mu = a == kOil ? prm.oil.viscosity : prm.water.viscosity;
    const double cv = a == kOil ? prm.oil.viscosibility : prm.water.viscosibility;
    return mu * exp(cv * (p_a - prm.reference_pressure));
}

template <class T>
HEPTANE_HD T rock_porosity(double phi_ref, double c_rock, const T& p, double p_ref) {
    using canonical::exp;
    return phi_ref * exp(c_rock * (p - p_ref));
}

/// The pressure of phase a at oil pressure p_oil and water saturation sw in a cell of
/// relative permeability rp: p_oil for oil and without capillary pressure (the same object,
/// no arithmetic), else p_oil - Pc(sw).
template <class T>
HEPTANE_HD T phase_pressure(const CellRelPerm& rp, int a, const T& p_oil, const T& sw) {
    if (a == kOil || !rp.law->table.capillary) return p_oil;
    return p_oil - capillary_pressure(rp, sw);
}

/// Phase mobility kr / mu [1/(Pa s)] at the phase's pressure p_a and water saturation sw, kr
/// from rp (the cell's region's): with a constant viscosity kr(sw) / viscosity (p_a unused),
/// else kr(sw) / mu(p_a).
template <class T>
HEPTANE_HD T phase_mobility(const TwoPhaseParams& prm, const CellRelPerm& rp, int phase,
                            const T& p_a, const T& sw) {
    const T kr = phase == kOil ? oil_relperm(rp, sw) : water_relperm(rp, sw);
    if (pressure_dependent_viscosity(prm, phase)) return kr / phase_viscosity(prm, phase, p_a);
    return kr / (phase == kOil ? prm.oil.viscosity : prm.water.viscosity);
}

}  // namespace heptane::grid
