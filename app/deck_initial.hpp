#pragma once
/// @file The deck's `initial` section (a two-phase model's initial state, design decisions 77
/// 78 and 92); part of the deck reader (app/deck.cpp), after the grid and fluid it refers to.
#include <functional>
#include <optional>
#include <string>

#include "app/deck.hpp"
#include "app/yaml_reader.hpp"

namespace heptane::app {

/// Reads `v` (the initial mapping, absent: the defaults) into model.initial: the datum and
/// its pressure (defaults: the fluid's reference pressure at the grid's top), a uniform water
/// saturation (default: the connate water) or a water-oil contact with its Pc and sub-layers;
/// with `regions` a list of such records, one per equilibration region (design decision 92);
/// or with `eclipse` an Eclipse file's EQUIL records (`resolve_existing` finds it), in the
/// units of `u`. Errors at the key (Value::fail).
void read_initial(const std::optional<Value>& v, wells::ModelSpec& model, const UnitFactors& u,
                  const std::function<std::string(const Value&)>& resolve_existing);

}  // namespace heptane::app
