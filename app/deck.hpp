#pragma once
/// @file The YAML deck: parsed and validated into plain settings structs (only app/ sees
/// YAML). Every key is documented in inputs/README.md. Values are converted from the deck's
/// unit system (field or metric) to SI here, once.
#include <string>
#include <vector>

#include "app/yaml_reader.hpp"
#include "core/errors.hpp"
#include "core/solver_settings.hpp"
#include "wells/generator.hpp"

namespace heptane::app {

enum class UnitSystem { field, metric };

/// Factors from a deck unit system to SI (value_SI = value_deck * factor), and unit names.
struct UnitFactors {
    double length, pressure, density, rate;
    const char* length_name;
    const char* pressure_name;
    const char* rate_name;
};
UnitFactors unit_factors(UnitSystem u);

struct OutputSettings {
    std::string file;          ///< HDF5 output path (default: <deck stem>.h5)
    bool save_system = false;  ///< also write the matrix and rhs
};

/// A parsed deck.
struct Deck {
    std::string path;                    ///< as given (used in messages)
    std::string text;                    ///< the deck file's text
    std::vector<std::string> overrides;  ///< --set arguments applied on top of the text
    std::string title;
    UnitSystem units = UnitSystem::field;
    wells::ModelSpec model;  ///< SI
    SolverSettings solver;
    OutputSettings output;
    LineMap lines;

    /// Rethrows e as a DeckError located in this deck.
    [[noreturn]] void rethrow_located(const InputError& e) const;
};

/// An InputError whose message is complete: "file:line: key: detail", or
/// "--set key=value: key: detail" for a value given on the command line.
class DeckError : public InputError {
  public:
    DeckError(const std::string& where, const InputError& e);
};

/// Reads and validates a deck. `overrides` ("key.path=value", the value in YAML syntax)
/// replace or add deck values before validation, so they are checked like the deck's own.
/// Throws DeckError (exit code 2 in the CLI) for a missing or unreadable file, YAML syntax
/// errors, unknown keys, wrong types and invalid values.
Deck load_deck(const std::string& path, const std::vector<std::string>& overrides = {});

/// Generates the system of a deck (reads data files); module errors are located in the
/// deck (DeckError).
wells::Model build_model(const Deck& deck);

}  // namespace heptane::app
