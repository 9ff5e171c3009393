#pragma once
/// @file The initial equilibration of an Eclipse deck's SOLUTION section (EQUIL) for heptane's
/// two-phase model (design decision 78; deck key initial.eclipse).
#include <string>
#include <vector>

#include "grid/saturation_table.hpp"  // FluidUnits

namespace heptane::grid {

/// EQUIL's record in SI.
struct Equilibration {
    double datum_depth = 0.0;                 ///< [m] item 1
    double datum_pressure = 0.0;              ///< [Pa] item 2: the oil's pressure at the datum
    double water_oil_contact = 0.0;           ///< [m] item 3
    double contact_capillary_pressure = 0.0;  ///< [Pa] item 4: Pcow at the contact
    double gas_oil_contact = 0.0;             ///< [m] item 5 (heptane has no gas phase)
    /// Sub-layers a cell's saturation is averaged over: 1 is the cell-centre rule (item 9 = 0),
    /// 2 |N| for item 9 = N < 0 (Eclipse's horizontal fine gridding; its default N = -5).
    int sublayers = 10;
    std::string where;         ///< "path:line: EQUIL: ", for a message about the record later
    double length_unit = 1.0;  ///< [m] per length unit of the file
};

/// The most equilibration regions a deck may number (EQLDIMS item 1).
inline constexpr int kMaxEquilibrationRegions = 1000;

/// The EQUIL keyword of `path` (an Eclipse deck or an include; its INCLUDEs are not
/// followed): one record per equilibration region (design decision 92), as many as the file's
/// RUNSPEC EQLDIMS item 1 says (1 without EQLDIMS; its other items size Eclipse's depth
/// tables, which heptane has not), region 1 first; lengths and pressures in the units of the
/// file's RUNSPEC FIELD, METRIC or LAB keyword, else `fallback`'s. Items 1 to 5 and 9 are read
/// (defaults as Eclipse's: 0, item 9 -5); item 6 (Pcgo at the gas-oil contact) is accepted
/// because with the contact at or above the model (the caller checks gas_oil_contact) it acts
/// on no cell. InputError ("path:line: EQUIL: [record n: ]...") for a file without EQUIL or
/// with two, fewer or more records than EQLDIMS says, item 2 not given or <= 0, items 7 and 8
/// (the live-oil and wet-gas initialisation: heptane's oil is dead) other than 0, item 9 > 0
/// (tilted fine gridding, which OPM Flow refuses too) or below -20, and items 10 to 12
/// (compositional and humid-gas options) given.
std::vector<Equilibration> read_eclipse_equil(const std::string& path, const FluidUnits& fallback);

}  // namespace heptane::grid
