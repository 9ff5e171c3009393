#pragma once
/// @file Oil-water relative permeability and capillary pressure (design decisions 74, 76, 87,
/// 95): Corey's law or a table (Eclipse's SWOF), templated on the scalar (double or Dual<N>)
/// and shared by the host and the device. A model's saturation regions each hold one RelPerm
/// (grid/two_phase.hpp's TwoPhaseCells); a cell may scale its region's table to its own end
/// points (CellRelPerm).
#include <limits>
#include <string>

#include "core/base/canonical_math.hpp"
#include "grid/dual.hpp"  // value(): the laws take double or Dual<N>

namespace heptane::grid {

/// A saturation table's end points, in Eclipse's names (design decision 95), and a cell's
/// vertical scaling factors (decisions 97, 98).
struct EndPoints {
    double swl = 0.0;    ///< connate water: the first row's S_w
    double swcr = 0.0;   ///< critical water: the largest S_w with krw = 0
    double swu = 1.0;    ///< the largest water saturation: the last row's S_w
    double sowcr = 0.0;  ///< critical oil: 1 - the smallest S_w with kro = 0 (1 - swu if none)
    /// The factor of the cell's Pc (PCW / the table's largest Pc, or SWATINIT's, design
    /// decisions 97, 98); 1: none; 0: no Pc.
    double pc_scale = 1.0;
    double krw_scale = 1.0;  ///< the factor of the cell's krw (KRW / the table's largest krw)
    double kro_scale = 1.0;  ///< the factor of the cell's kro (KRO / the table's largest kro)
};

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
    EndPoints ends;  ///< the table's end points (relperm_table sets them)
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
    /// The largest Pc SWATINIT may scale the table's to [Pa] (Eclipse's PPCWMAX, design
    /// decision 99; grid/end_points.hpp's scale_to_swatinit); infinity: no cap.
    double swatinit_pc_max = std::numeric_limits<double>::infinity();
};

/// The connate water saturation: the table's first row, else Corey's swc.
inline double connate_water(const RelPerm& rp) {
    return rp.table.rows > 0 ? rp.table.sw[0] : rp.swc;
}

/// A cell's saturation functions (design decision 95): its region's law, and where `ends` is
/// not null the cell's own end points, to which the law's table is scaled (Eclipse's two-point
/// end-point scaling): krw(S_w) is the table's at the S_w that maps [SWCR, SWU] of the cell
/// onto the table's, kro(S_w) at the one that maps [SWL, 1 - SOWCR] onto the table's, and
/// Pc(S_w) at the one that maps [SWL, SWU] onto the table's; then each is multiplied by the
/// cell's factor (krw_scale, kro_scale, pc_scale: Eclipse's two-point vertical scaling, design
/// decision 98). A cell whose two end points of a map are the table's, and whose factor is 1,
/// takes the table's values unscaled (the same bits). Only a table is scaled
/// (grid/end_points.hpp's end_point_check refuses Corey's law with end points).
struct CellRelPerm {
    const RelPerm* law = nullptr;
    const EndPoints* ends = nullptr;  ///< the cell's; null: the table's own
    HEPTANE_HD CellRelPerm(const RelPerm& rp, const EndPoints* e = nullptr)  // NOLINT: implicit
        : law(&rp), ends(e) {}
};

/// S_w of the cell mapped onto the table: [lo, hi] of the cell onto [t_lo, t_hi] of the
/// table, linear (beyond the interval too); s itself where the two are the same.
template <class T>
HEPTANE_HD T two_point_scaled(const T& s, double lo, double hi, double t_lo, double t_hi) {
    if (lo == t_lo && hi == t_hi) return s;
    return t_lo + (s - lo) * ((t_hi - t_lo) / (hi - lo));
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

/// The connate water of a cell: its own SWL, else its law's.
inline double connate_water(const CellRelPerm& c) {
    return c.ends != nullptr ? c.ends->swl : connate_water(*c.law);
}

template <class T>
HEPTANE_HD T water_relperm(const CellRelPerm& c, const T& sw) {
    if (c.ends == nullptr) return water_relperm(*c.law, sw);
    const RelPermTable& t = c.law->table;
    const EndPoints& e = *c.ends;
    const T krw =
        table_relperm(t, t.krw, two_point_scaled(sw, e.swcr, e.swu, t.ends.swcr, t.ends.swu));
    return e.krw_scale == 1.0 ? krw : e.krw_scale * krw;
}

template <class T>
HEPTANE_HD T oil_relperm(const CellRelPerm& c, const T& sw) {
    if (c.ends == nullptr) return oil_relperm(*c.law, sw);
    const RelPermTable& t = c.law->table;
    const EndPoints& e = *c.ends;
    const T kro = table_relperm(
        t, t.kro, two_point_scaled(sw, e.swl, 1.0 - e.sowcr, t.ends.swl, 1.0 - t.ends.sowcr));
    return e.kro_scale == 1.0 ? kro : e.kro_scale * kro;
}

template <class T>
HEPTANE_HD T capillary_pressure(const CellRelPerm& c, const T& sw) {
    if (c.ends == nullptr) return capillary_pressure(*c.law, sw);
    const RelPermTable& t = c.law->table;
    if (!t.capillary) return T(0.0);
    const EndPoints& e = *c.ends;
    const T pc =
        table_relperm(t, t.pcow, two_point_scaled(sw, e.swl, e.swu, t.ends.swl, t.ends.swu));
    return e.pc_scale == 1.0 ? pc : e.pc_scale * pc;
}

/// The water saturation whose capillary pressure is pc (design decision 77): the largest S_w
/// of the law's range with Pc(S_w) >= pc (Pc is non-increasing), so the connate water where pc
/// is above the table's first Pc, the last row's S_w where pc is at or below its last Pc, the
/// inverse of the linear segment between. Without Pc (Corey's law, or a table of zeros): the
/// connate water where pc > 0, else the largest saturation (the table's last row, Corey's
/// 1 - sor).
double saturation_at_capillary_pressure(const RelPerm& rp, double pc);
/// The same for a cell (design decision 95): the table's S_w at pc / pc_scale mapped back to
/// the cell's [SWL, SWU]; the connate water and the largest saturation are the cell's SWL and
/// SWU; a cell whose pc_scale is 0 has no Pc.
double saturation_at_capillary_pressure(const CellRelPerm& c, double pc);

/// The end points of the table t (RelPermTable::ends): swl and swu its first and last rows',
/// swcr the last row's S_w of krw = 0 from the first, sowcr 1 - the first row's S_w with kro =
/// 0 (1 - swu where kro stays > 0).
EndPoints table_end_points(const RelPermTable& t);

/// What is wrong with a cell's end points e (its table's where it gives none), else empty:
/// each in [0, 1], SWL <= SWCR < SWU, SWL + SOWCR < 1 (each map of CellRelPerm an interval).
std::string end_points_error(const EndPoints& e);

}  // namespace heptane::grid
