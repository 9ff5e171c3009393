#pragma once
/// @file Saturation tables (design decision 74): the checks of a tabulated oil-water relative
/// permeability (grid/two_phase.hpp's RelPermTable), and Eclipse's SWOF read from a file.
#include <array>
#include <string>
#include <vector>

#include "grid/two_phase.hpp"

namespace heptane::grid {

/// One row of a table: water saturation, krw, kro.
using RelPermRow = std::array<double, 3>;

/// What is wrong with `rows` as a table, else empty: 2 to RelPermTable::kMaxRows rows, the
/// water saturation strictly increasing in [0, 1], krw and kro in [0, 1], krw non-decreasing
/// from 0 at the first row (connate water does not flow), kro non-increasing and > 0 at the
/// first row. A row is named 1-based ("row 3: ...").
std::string relperm_table_error(const std::vector<RelPermRow>& rows);

/// The table of `rows` (std::invalid_argument with relperm_table_error's text if refused).
RelPermTable relperm_table(const std::vector<RelPermRow>& rows);

/// The first SWOF keyword's table in `path` (an Eclipse deck or an include file; the file's
/// own INCLUDEs are not followed): rows Sw krw krow Pcow up to its '/'. InputError
/// ("path:line: SWOF: ...") for a file without SWOF, a count that is not a multiple of 4, a
/// defaulted item (n*), a capillary pressure other than 0 (the model has none), a second
/// table (several saturation regions), or rows relperm_table_error refuses.
std::vector<RelPermRow> read_swof(const std::string& path);

}  // namespace heptane::grid
