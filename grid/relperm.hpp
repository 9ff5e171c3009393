#pragma once
/// @file Oil-water relative permeability and capillary pressure (design decisions 74, 76, 87):
/// Corey's law or a table (Eclipse's SWOF), templated on the scalar (double or Dual<N>) and
/// shared by the host and the device. A model's saturation regions each hold one RelPerm
/// (grid/two_phase.hpp's TwoPhaseCells).
#include "core/base/canonical_math.hpp"
#include "grid/dual.hpp"  // value(): the laws take double or Dual<N>

namespace heptane::grid {

/// A tabulated oil-water relative permeability and capillary pressure (design decisions 74,
/// 76; Eclipse's SWOF): rows of water saturation (increasing), krw, kro and Pc = p_o - p_w
/// [Pa] (grid/saturation_table.hpp checks them); linear between rows, the end rows' values
/// beyond them. Held in place, a fixed capacity, so the parameters stay one plain struct on
/// the host and the device.
struct RelPermTable {
    static constexpr int kMaxRows = 64;
    int rows = 0;            ///< 0: no table (Corey)
    bool capillary = false;  ///< some row's pcow is not 0 (relperm_table sets it)
    double sw[kMaxRows] = {};
    double krw[kMaxRows] = {};
    double kro[kMaxRows] = {};
    double pcow[kMaxRows] = {};
};

/// Corey's law (swc ... kro_max), or the table where it has rows (the Corey fields unused).
struct RelPerm {
    double swc = 0.0;      ///< connate water saturation
    double sor = 0.0;      ///< residual oil saturation
    double nw = 2.0;       ///< Corey exponent of water (>= 1)
    double no = 2.0;       ///< Corey exponent of oil (>= 1)
    double krw_max = 1.0;  ///< water relative permeability at S_w = 1 - sor
    double kro_max = 1.0;  ///< oil relative permeability at S_w = swc
    RelPermTable table;
};

/// The connate water saturation: the table's first row, else Corey's swc.
inline double connate_water(const RelPerm& rp) {
    return rp.table.rows > 0 ? rp.table.sw[0] : rp.swc;
}

/// Normalized water saturation, clamped to [0, 1] (constant outside: zero derivative).
template <class T>
HEPTANE_HD T effective_saturation(const RelPerm& rp, const T& sw) {
    const T se = (sw - rp.swc) / (1.0 - rp.swc - rp.sor);
    if (value(se) <= 0.0) return T(0.0);
    if (value(se) >= 1.0) return T(1.0);
    return se;
}

/// Column k of table t at sw: linear between the rows around it (a row's own saturation takes
/// the segment that starts there), the end rows' values beyond them (zero derivative).
template <class T>
HEPTANE_HD T table_relperm(const RelPermTable& t, const double* k, const T& sw) {
    const double s = value(sw);
    const int last = t.rows - 1;
    if (s <= t.sw[0]) return T(k[0]);
    if (s >= t.sw[last]) return T(k[last]);
    int i = 0;
    while (t.sw[i + 1] <= s) ++i;
    return k[i] + (k[i + 1] - k[i]) / (t.sw[i + 1] - t.sw[i]) * (sw - t.sw[i]);
}

template <class T>
HEPTANE_HD T water_relperm(const RelPerm& rp, const T& sw) {
    using canonical::pow;
    if (rp.table.rows > 0) return table_relperm(rp.table, rp.table.krw, sw);
    const T se = effective_saturation(rp, sw);
    return value(se) <= 0.0 ? T(0.0) : rp.krw_max * pow(se, rp.nw);
}

template <class T>
HEPTANE_HD T oil_relperm(const RelPerm& rp, const T& sw) {
    using canonical::pow;
    if (rp.table.rows > 0) return table_relperm(rp.table, rp.table.kro, sw);
    const T so = 1.0 - effective_saturation(rp, sw);
    return value(so) <= 0.0 ? T(0.0) : rp.kro_max * pow(so, rp.no);
}

/// The oil-water capillary pressure Pc(S_w) = p_o - p_w [Pa]: the table's, else 0.
template <class T>
HEPTANE_HD T capillary_pressure(const RelPerm& rp, const T& sw) {
    return rp.table.capillary ? table_relperm(rp.table, rp.table.pcow, sw) : T(0.0);
}

/// The water saturation whose capillary pressure is pc (design decision 77): the largest S_w
/// of the law's range with Pc(S_w) >= pc (Pc is non-increasing), so the connate water where pc
/// is above the table's first Pc, the last row's S_w where pc is at or below its last Pc, the
/// inverse of the linear segment between. Without Pc (Corey's law, or a table of zeros): the
/// connate water where pc > 0, else the largest saturation (the table's last row, Corey's
/// 1 - sor).
double saturation_at_capillary_pressure(const RelPerm& rp, double pc);

}  // namespace heptane::grid
