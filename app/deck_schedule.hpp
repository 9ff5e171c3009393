#pragma once
/// @file The deck's `schedule` section (a simulation), read into deck.schedule; part of the
/// deck reader (app/deck.cpp), after the fluid, wells and solver sections it refers to.
#include <functional>
#include <string>

#include "app/deck.hpp"
#include "app/yaml_reader.hpp"

namespace heptane::app {

/// Reads `v` (the schedule mapping) into deck.schedule: report times, dt control, Newton
/// settings, well events (their wells by name, their values in the units of `u`); sets
/// deck.model.dt to the first step. With `eclipse` (design decision 79) the report times,
/// the wells (deck.model.wells) and the events come from the file's SCHEDULE section
/// (`resolve_existing` finds it). Errors at the key (Value::fail).
void read_schedule(const Value& v, Deck& deck, const UnitFactors& u,
                   const std::function<std::string(const Value&)>& resolve_existing);

/// A well control's `kind` (the wells section's and the events'): rate, bhp, oil_rate,
/// water_rate or reservoir_rate.
wells::ControlKind read_control_kind(const Value& kind);

/// A `control` mapping, the wells section's or an event's: {kind, value} (SI target in `u`'s
/// units), or for a reservoir_rate {kind, surface: {oil_rate, water_rate}}: the surface rates
/// whose reservoir volume it holds at each step's factors (Eclipse's WCONHIST RESV; design
/// decision 100), the target their surface sum; an injector's surface has water_rate only.
/// `positive`: a value <= 0 fails here (an event's; the wells section's is validate_wells').
struct ControlRead {
    wells::ControlKind kind = wells::ControlKind::bhp;
    double target = 0.0;
    wells::VoidageOf voidage;
};
ControlRead read_control(const Value& v, const UnitFactors& u, bool injector, bool positive);

/// Reads `v` (the wells list) into deck.model.wells, values in the units of `u`; a well's
/// `observed` (design decision 90: its observed rates and BHP from the start) into
/// deck.history, which needs a schedule (`simulation`). Errors at the key.
void read_wells(const Value& v, Deck& deck, const UnitFactors& u, bool simulation);

}  // namespace heptane::app
