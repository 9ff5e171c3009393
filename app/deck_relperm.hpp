#pragma once
/// @file The deck's `fluid.relperm` (Corey's keys, or a table: `table` rows or an Eclipse
/// file's `swof`, design decisions 74, 76); part of the deck reader (app/deck.cpp).
#include <functional>
#include <string>

#include "app/yaml_reader.hpp"
#include "grid/saturation_table.hpp"  // FluidUnits
#include "grid/two_phase.hpp"

namespace heptane::app {

/// Reads `v` (the relperm mapping) into rp, a capillary pressure in the deck's `units` (a
/// table's fourth column; an SWOF file's own RUNSPEC units first); `resolve_existing` gives a
/// file key's path (relative to the deck, checked to exist). Errors at the key (Value::fail).
void read_relperm(const Value& v, grid::RelPerm& rp, const grid::FluidUnits& units,
                  const std::function<std::string(const Value&)>& resolve_existing);

}  // namespace heptane::app
