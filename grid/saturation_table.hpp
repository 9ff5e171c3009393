#pragma once
/// @file Saturation tables (design decisions 74, 76): the checks of a tabulated oil-water
/// relative permeability and capillary pressure (grid/two_phase.hpp's RelPermTable), and
/// Eclipse's SWOF read from a file: one table, or one for each saturation region (TABDIMS).
#include <array>
#include <string>
#include <vector>

#include "grid/two_phase.hpp"

namespace heptane::grid {

/// One row of a table: water saturation, krw, kro and the capillary pressure Pcow = p_o -
/// p_w [Pa] (0 where a table gives none: a three-item initializer leaves it 0).
using RelPermRow = std::array<double, 4>;

/// Unit factors [SI per file unit] of a file without RUNSPEC units (the YAML deck's).
struct FluidUnits {
    double pressure = 1.0;  ///< Pa per pressure unit
    double density = 1.0;   ///< kg/m^3 per density unit
    double length = 1.0;    ///< m per length unit
    double rate = 1.0;      ///< m^3/s per liquid surface rate unit
    double time = 1.0;      ///< s per time unit
};

/// RUNSPEC's unit keywords: FIELD (psi, lb/ft^3, ft, stb/day, day), METRIC (bar, kg/m^3, m,
/// sm^3/day, day) or LAB (atm, g/cm^3, cm, scc/hr, hr) set `units` and return true; any other
/// keyword leaves them.
bool read_unit_keyword(const std::string& keyword, FluidUnits& units);

/// What is wrong with `rows` as a table, else empty: 2 to RelPermTable::kMaxRows rows, the
/// water saturation strictly increasing in [0, 1], krw and kro in [0, 1], krw non-decreasing
/// from 0 at the first row (connate water does not flow), kro non-increasing and > 0 at the
/// first row, Pcow finite and non-increasing (Eclipse's rule: a higher water saturation never
/// has a higher capillary pressure; negative values, an oil-wet part, allowed). A row is
/// named 1-based ("row 3: ...").
std::string relperm_table_error(const std::vector<RelPermRow>& rows);

/// The table of `rows` (std::invalid_argument with relperm_table_error's text if refused);
/// `capillary` set where some row's Pcow is not 0.
RelPermTable relperm_table(const std::vector<RelPermRow>& rows);

/// The most saturation tables (TABDIMS item 1, NTSFUN) read_swof_tables takes: far above real
/// decks' few regions, low enough that a typo is refused before its tables are read.
constexpr int kMaxSaturationTables = 256;

/// The first SWOF keyword's tables in `path` (an Eclipse deck or an include file; the file's
/// own INCLUDEs are not followed), in order: NTSFUN tables, NTSFUN being item 1 of the file's
/// TABDIMS record (RUNSPEC; 1 where TABDIMS or its item 1 is not given, or defaulted `n*`).
/// Each table is rows Sw krw krow Pcow up to its own '/', Pcow in Pa from the pressure unit of
/// the file's FIELD (psi), METRIC (bar) or LAB (atm) keyword before SWOF, else `fallback`'s.
/// An empty table after the first (a '/' right after the previous table's) is a copy of the
/// table before it, as in Eclipse. InputError ("path:line: SWOF: ..."; "table 2: row 3: ..."
/// where NTSFUN > 1, at the line where that table starts) for a file without SWOF, TABDIMS
/// given twice or an item 1 that is not an integer 1..kMaxSaturationTables (at TABDIMS's
/// line), an empty first table, a count that is not a multiple of 4, a defaulted item (n*),
/// fewer tables than NTSFUN before the next keyword or the end of the file (both counts
/// named), a number after the last table's '/' (more tables than TABDIMS says), or rows
/// relperm_table_error refuses.
std::vector<std::vector<RelPermRow>> read_swof_tables(const std::string& path,
                                                      const FluidUnits& fallback);

/// The one table of the file's first SWOF keyword (relperm.swof): read_swof_tables' reading and
/// errors, and a file of several tables (TABDIMS item 1 > 1: at TABDIMS's line; a second table
/// after the first's '/': at its line) an InputError saying that several saturation tables
/// need fluid.eclipse (which reads them all, with SATNUM).
std::vector<RelPermRow> read_swof(const std::string& path, const FluidUnits& fallback);

namespace detail {

/// read_swof_tables' reading (internal to grid/: read_swof, read_eclipse_fluid). Where
/// `one_table` is not empty, a file of several tables is an InputError at its line (TABDIMS's,
/// or the second table's) whose text ends with `one_table` (why one table is read, what to do).
std::vector<std::vector<RelPermRow>> read_swof_tables(const std::string& path,
                                                      const FluidUnits& fallback,
                                                      const std::string& one_table);

}  // namespace detail

}  // namespace heptane::grid
