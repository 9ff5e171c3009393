#pragma once
/// @file `heptane simulate --restart FILE`: the /restart group of a simulation's file (what
/// sim::Checkpoint holds, SI, every bit) and reading it back with the file's report frames
/// and log, so a run goes on from where the file's run stopped and writes the whole run's
/// file, as if it had not stopped (design decision 57).
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "app/hdf5_file.hpp"
#include "app/simulation_output.hpp"
#include "sim/simulator.hpp"

namespace heptane::app {

/// Writes c as /restart (every value in SI, full precision). `wells`: the deck's wells, in
/// order (their names are kept to check a restart's deck).
void write_restart(h5::File& f, const sim::Checkpoint& c, const grid::Grid3D& grid,
                   const std::vector<wells::WellSpec>& wells);

/// What a restart takes from an earlier run's file.
struct RestartFile {
    std::string path;
    sim::Checkpoint checkpoint;
    std::vector<ReportFrame> frames;  ///< the file's /timesteps, in its (the deck's) units
    std::vector<std::string> log;     ///< the file's /simulation log lines
    /// The summary table's samples of the cells at each of the file's steps (SI, row-major;
    /// design decision 101) and their column names; empty where the file has none.
    std::vector<std::string> summary_columns;
    std::vector<double> summary_state;
};

/// Reads `path`'s /restart for `deck` (on `grid`): InputError naming the file and the
/// dataset or attribute where the file is not a heptane simulation file with a /restart, or
/// does not fit the deck (grid dims, wells and their names, unit system).
RestartFile read_restart(const std::string& path, const Deck& deck, const grid::Grid3D& grid);

}  // namespace heptane::app
