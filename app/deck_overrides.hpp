#pragma once
/// @file `--set key.path=value` (README, inputs/README): applied to the parsed deck tree
/// before it is read, so an override is validated like the deck.
#include <yaml-cpp/yaml.h>

#include <string>

#include "app/yaml_reader.hpp"

namespace heptane::app {

/// Applies one --set argument to the deck tree (yaml-cpp nodes are handles: reset() rebinds a
/// handle, assignment would overwrite the node it refers to) and records it in `lines`, so
/// errors in its value name the --set. A malformed argument is a DeckError naming it.
void apply_override(YAML::Node& root, const std::string& arg, LineMap& lines);

}  // namespace heptane::app
