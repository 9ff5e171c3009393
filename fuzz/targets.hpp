#pragma once
/// @file Fuzz targets (issue 19, class 9): each feeds arbitrary bytes to one input reader and
/// returns normally when the reader accepts the input or refuses it with an InputError (the
/// contract: bad input is exit 2). Anything else, an uncaught exception of another type, a
/// crash or a sanitizer report, is a bug. The libFuzzer executables (fuzz/CMakeLists.txt,
/// scripts/fuzz.sh) call them, and so does tests/fuzz/fuzz_cases_test.cpp on the inputs the
/// fuzzers found, in every normal build.
#include <cstddef>
#include <cstdint>

namespace heptane::fuzz {

/// The YAML deck reader with --set overrides: the bytes up to the first NUL are the deck;
/// after it, each line is one --set argument. Decks that validate and describe at most 4,000
/// cells are also generated (build_model: rock, wells, the system).
void deck(const std::uint8_t* data, std::size_t size);

/// The MatrixMarket readers: the bytes as a matrix file, then as a right-hand-side file.
void matrix_market(const std::uint8_t* data, std::size_t size);

/// The Eclipse GRID-section reader (read_eclipse_grid) on a grid the input's length picks, then
/// the same bytes as a PROPS section's SWOF and fluid, a SOLUTION's EQUIL and a SCHEDULE.
void eclipse(const std::uint8_t* data, std::size_t size);

/// The SPE10 model 2 reader (plain or gzip text); the first byte, when present, picks the window.
void spe10(const std::uint8_t* data, std::size_t size);

}  // namespace heptane::fuzz
