#pragma once
/// @file The YAML deck: parsed and validated into plain settings structs (only app/ sees
/// YAML). Every key is documented in inputs/README.md. Values are converted from the deck's
/// unit system (field or metric) to SI here, once.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/yaml_reader.hpp"
#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/matrix/formats.hpp"
#include "grid/eclipse_summary.hpp"
#include "sim/schedule.hpp"
#include "wells/generator.hpp"

namespace heptane::app {

enum class UnitSystem { field, metric };

/// Factors from a deck unit system to SI (value_SI = value_deck * factor), and unit names.
struct UnitFactors {
    double length, pressure, density, rate;
    const char* length_name;
    const char* pressure_name;
    const char* rate_name;
    const char* reservoir_rate_name;  ///< a reservoir volume rate's: "rb/day", "rm3/day"
};
UnitFactors unit_factors(UnitSystem u);
/// The unit of a rate control of kind k in the deck's units: a reservoir_rate's reservoir
/// volume rate, else the surface rate's.
inline const char* rate_name(const UnitFactors& u, wells::ControlKind k) {
    return k == wells::ControlKind::reservoir_rate ? u.reservoir_rate_name : u.rate_name;
}

/// m^3 per connection factor unit of the deck (Eclipse's COMPDAT item 8's: cP rb/day/psi,
/// cP rm3/day/bar; design decision 102): viscosity times a reservoir volume rate per pressure.
inline double connection_factor_unit(const UnitFactors& u) {
    return units::kCentiPoise * u.rate / u.pressure;
}

struct OutputSettings {
    std::string file;          ///< HDF5 output path (default: <deck stem>.h5)
    bool save_system = false;  ///< also write the matrix and rhs
    /// The summary vectors asked for (design decision 101): schedule.eclipse's SUMMARY
    /// section's, then output.summary's; empty: no summary table.
    std::vector<grid::SummaryRequest> summary;
    /// A summary row at the report times only (the SUMMARY section's RPTONLY, or
    /// output.summary_rows: reports), else one per accepted time step.
    bool summary_report_only = false;
};

/// Right-hand side of a matrix deck.
enum class RhsKind { ones, random, file };

/// The `system` section: a deck that names a matrix instead of a grid (issue 7). Block size 1
/// solves the file's matrix with its own values; block size > 1 promotes every entry to a
/// dense bs x bs block with seeded values (promote_to_bsr, core/matrix/matrix_market.hpp).
struct MatrixSystemSpec {
    bool present = false;    ///< the deck has a `system` section
    std::string matrix;      ///< MatrixMarket file, resolved against the deck's folder
    int block_size = 1;      ///< 1..kMaxPromotedBlockSize
    std::uint64_t seed = 1;  ///< block values (block_size > 1) and rhs: random
    RhsKind rhs = RhsKind::ones;
    std::string rhs_file;  ///< RhsKind::file: MatrixMarket vector, resolved like `matrix`
};

/// The linear system of a matrix deck.
struct MatrixSystem {
    Bsr matrix;               ///< square; block_size as the deck's
    std::vector<double> rhs;  ///< block_rows x block_size entries
    index_t rows() const { return static_cast<index_t>(matrix.block_rows) * matrix.block_size; }
    /// Stored scalar values (blocks x bs^2).
    index_t nonzeros() const { return static_cast<index_t>(matrix.val.size()); }
    /// Entries of the matrix / rhs files summed into an earlier one (the run warns).
    std::int64_t matrix_duplicates = 0, rhs_duplicates = 0;
};

/// An injector's observed rate q (>= 0, or NaN: not observed) as /wells has its rates: < 0,
/// and 0 as +0 (0.0 - q, not -q).
inline double injected(double q) { return 0.0 - q; }

/// A history well's observed rates and BHP (WCONHIST, WCONINJH; design decision 90) from
/// `time` on, until the well's next control record; SI, rates as /wells has them (production
/// > 0, injection < 0); NaN: not observed (a record that is not a history record ends the
/// well's history).
struct WellObservation {
    std::size_t well = 0;
    double time = 0.0;  ///< [s]
    double oil = 0.0, water = 0.0, bhp = 0.0;
};

/// A parsed deck.
struct Deck {
    std::string path;                    ///< as given (used in messages)
    std::string text;                    ///< the deck file's text
    std::vector<std::string> overrides;  ///< --set arguments applied on top of the text
    std::string title;
    UnitSystem units = UnitSystem::field;
    wells::ModelSpec model;   ///< SI
    MatrixSystemSpec system;  ///< present: a matrix deck (model is then unused)
    SolverSettings solver;
    sim::Schedule schedule;  ///< present: a simulation (`heptane simulate`); SI
    /// The history wells' observations, in the order of their records (times non-decreasing);
    /// empty without WCONHIST or WCONINJH (schedule.eclipse).
    std::vector<WellObservation> history;
    /// The calendar day of time 0 (days since 1970-01-01, with its fraction): schedule.start or
    /// schedule.eclipse's START; NaN: none (the summary table has no DATE column).
    double start_day = std::nan("");
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
/// errors, unknown keys, wrong types and invalid values, and for solver combinations that
/// cannot run anywhere: a block smoother with a preconditioner (at solver.preconditioner), a
/// matrix deck with a preconditioner or a smoother (at that key).
Deck load_deck(const std::string& path, const std::vector<std::string>& overrides = {});

/// Generates the system of a grid deck (reads data files); module errors are located in the
/// deck (DeckError). A matrix deck is an InputError at `system` (only `run` solves those).
/// with_system false: the validated grid, rock and wells only (a simulation's start).
/// `notes` (default std::cerr) gets what of the Eclipse files was not read, one line each.
wells::Model build_model(const Deck& deck, bool with_system = true, std::ostream* notes = nullptr);

/// Reads the matrix (and rhs file) of a matrix deck, promotes it to its block size and makes
/// the rhs. A malformed file throws MatrixMarketError ("FILE:LINE: detail", exit 2) as is;
/// a non-square matrix or an rhs of the wrong length is a DeckError at its key.
MatrixSystem build_matrix_system(const Deck& deck);

}  // namespace heptane::app
