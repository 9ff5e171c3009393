#pragma once
/// @file Internal to grid/: the unit factors of a grid.eclipse file set (its RUNSPEC's unit
/// system, else the deck's length unit), shared by eclipse_model.cpp and
/// eclipse_edit_section.cpp.
#include "core/base/units.hpp"
#include "grid/eclipse_model.hpp"

namespace heptane::grid::detail {

/// [m] per length of the files: RUNSPEC FIELD ft, METRIC m, LAB cm, else the deck's.
inline double length_unit(const EclipseGridSpec& spec, const EclipseGridData& d) {
    if (d.units == "FIELD") return units::kFoot;
    if (d.units == "METRIC") return 1.0;
    if (d.units == "LAB") return 0.01;
    return spec.length_unit;
}

/// [m^3] per pore volume of the files (MINPV): rb with FIELD units, else the length unit cubed.
inline double pore_volume_unit(const EclipseGridSpec& spec, const EclipseGridData& d) {
    const double unit = length_unit(spec, d);
    return unit == units::kFoot ? units::kStockTankBarrel : unit * unit * unit;
}

/// [m^3] per transmissibility of the files (NNC's TRAN): cP rb/day/psi with FIELD units,
/// cP m^3/day/bar METRIC, cP cm^3/hr/atm LAB (the unit system of the length unit).
inline double transmissibility_unit(const EclipseGridSpec& spec, const EclipseGridData& d) {
    const double unit = length_unit(spec, d);
    if (unit == units::kFoot) {
        return units::kCentiPoise * units::kStockTankBarrel / units::kDay / units::kPsi;
    }
    if (unit == 0.01) return units::kCentiPoise * 1e-6 / 3600.0 / 101325.0;
    return units::kCentiPoise / units::kDay / units::kBar;
}

/// [Pa] per pressure of the files (PCW): psi with FIELD units, bar METRIC, atm LAB (the unit
/// system of the length unit).
inline double pressure_unit(const EclipseGridSpec& spec, const EclipseGridData& d) {
    const double unit = length_unit(spec, d);
    return unit == units::kFoot ? units::kPsi : unit == 0.01 ? units::kAtmosphere : units::kBar;
}

}  // namespace heptane::grid::detail
