#pragma once
/// @file The deck's fluid: a phase's keys (`fluid.oil`, `fluid.water`, the oil's PVDO table,
/// design decisions 81, 84) and `fluid.relperm` (Corey's keys, or a table: `table` rows or an
/// Eclipse file's `swof`, decisions 74, 76); part of the deck reader (app/deck.cpp).
#include <functional>
#include <string>
#include <vector>

#include "app/yaml_reader.hpp"
#include "grid/saturation_table.hpp"  // FluidUnits
#include "grid/two_phase.hpp"

namespace heptane::app {

/// Reads `v` (the relperm mapping) into rp, a capillary pressure in the deck's `units` (a
/// table's fourth column; an SWOF file's own RUNSPEC units first); `resolve_existing` gives a
/// file key's path (relative to the deck, checked to exist). Errors at the key (Value::fail).
void read_relperm(const Value& v, grid::RelPerm& rp, const grid::FluidUnits& units,
                  const std::function<std::string(const Value&)>& resolve_existing);

/// Reads `v` (fluid.relperm: a mapping, or a list of them, one a saturation region; design
/// decision 87) into `first` (region 1) and `more` (regions 2, 3, ...), each entry as
/// read_relperm from Corey's defaults.
void read_relperm_regions(const Value& v, grid::RelPerm& first, std::vector<grid::RelPerm>& more,
                          const grid::FluidUnits& units,
                          const std::function<std::string(const Value&)>& resolve_existing);

/// Reads `v` (a phase's mapping) into ph, in the deck's `units` (viscosities in cP); the
/// oil's (`table` not null) may give a PVDO table (`pvdo: [[p, B, mu], ...]`) into *table
/// instead of its viscosity, compressibility, formation volume factor and viscosibility.
void read_phase(const Value& v, grid::PhaseProperties& ph, grid::PvtTable* table,
                const grid::FluidUnits& units);

}  // namespace heptane::app
