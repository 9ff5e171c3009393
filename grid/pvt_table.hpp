#pragma once
/// @file A dead oil's tabulated PVT (design decision 84; Eclipse's PVDO, YAML
/// fluid.oil.pvdo): the checks of its rows and grid/two_phase.hpp's PvtTable built from them.
#include <array>
#include <string>
#include <vector>

#include "grid/two_phase.hpp"

namespace heptane::grid {

/// One row: pressure [Pa], formation volume factor B [reservoir / surface volume] and
/// viscosity [Pa s].
using PvtRow = std::array<double, 3>;

/// What is wrong with `rows` as a PVDO table, else empty: 2 to PvtTable::kMaxRows rows, the
/// pressure finite and strictly increasing, B finite, > 0 and strictly decreasing (Eclipse's
/// rule: the oil shrinks as the pressure rises), the viscosity finite and > 0. A row is named
/// 1-based ("row 3: ...").
std::string pvt_table_error(const std::vector<PvtRow>& rows);

/// The table of `rows`: 1/B and 1/(B mu) per row (std::invalid_argument with
/// pvt_table_error's text if refused).
PvtTable pvt_table(const std::vector<PvtRow>& rows);

}  // namespace heptane::grid
