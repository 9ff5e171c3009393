#pragma once
/// @file Human-readable reports shared by the CLI commands.
#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/deck.hpp"

namespace heptane::app {

/// "1,122,000"
std::string with_commas(long long n);
/// "12.3 MB" (powers of 1000)
std::string human_bytes(double bytes);
/// printf %.*e and %.*f.
std::string sci(double v, int digits = 2);
std::string fixed(double v, int digits);
/// The current UTC time as "2026-11-23T22:29:29Z" (reports, HDF5 attributes).
std::string utc_now();
/// Wall seconds since t0 (std::chrono::steady_clock).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
/// The median of v (the mean of the middle two for an even count; 0 when empty).
double median(std::vector<double> v);
/// Physical memory of this machine in bytes (sysconf), 0 when unknown.
double host_memory_bytes();

/// Grid, model, K, wells, unknowns, nonzeros and the bytes of each storage form.
void print_system_summary(std::ostream& out, const Deck& deck, const wells::Model& model);

/// The model's non-neighbour connections (faults' throws, Eclipse NNC records): its system's,
/// or where it has none built (simulate), its transmissibilities'.
std::size_t model_connections(const wells::Model& model);

/// What the terminal's system line says after the cells: " (N active, C non-neighbour
/// connections)", either part where the model has it, or nothing.
std::string cells_note(const wells::Model& model);

/// Build configuration and the CUDA devices found.
void print_build_info(std::ostream& out);

}  // namespace heptane::app
