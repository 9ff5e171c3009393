#pragma once
/// @file The deck's `schedule` section (a simulation), read into deck.schedule; part of the
/// deck reader (app/deck.cpp), after the fluid, wells and solver sections it refers to.
#include "app/deck.hpp"
#include "app/yaml_reader.hpp"

namespace heptane::app {

/// Reads `v` (the schedule mapping) into deck.schedule: report times, dt control, Newton
/// settings, well events (their wells by name, their values in the units of `u`); sets
/// deck.model.dt to the first step. Errors at the key (Value::fail).
void read_schedule(const Value& v, Deck& deck, const UnitFactors& u);

}  // namespace heptane::app
