#pragma once
/// @file The deck's `output` section; part of the deck reader (app/deck.cpp), after the
/// schedule (the summary's vectors follow schedule.eclipse's SUMMARY section's).
#include <optional>

#include "app/deck.hpp"
#include "app/yaml_reader.hpp"

namespace heptane::app {

/// Reads `v` (the output mapping; absent: the defaults) into deck.output: the file (default
/// <deck stem>.h5), save_system, and for a simulation the summary vectors by their keys
/// (FOPR, WOPR:P1, RPR:2, BPR:1,2,3; design decision 101) and summary_rows. Errors at the key
/// (Value::fail).
void read_output(const std::optional<Value>& v, Deck& deck);

}  // namespace heptane::app
