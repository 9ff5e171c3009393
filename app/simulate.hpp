#pragma once
/// @file `heptane simulate DECK`: the deck's schedule as a fully implicit two-phase
/// simulation (sim/Simulator), a progress line on a terminal, a summary per well and per run,
/// and OUT.h5 + OUT.xmf (app/simulation_output.hpp).
#include <iosfwd>

#include "app/run.hpp"

namespace heptane::app {

/// Exit code 0 (reached the end time), 1 (a time step could not be completed: everything up
/// to the last accepted step is written), 2 (bad input, nothing written), 3 (runtime or device
/// error: the last report time's checkpoint stays).
int cmd_simulate(const RunArgs& args, std::ostream& out, std::ostream& err, bool terminal);

}  // namespace heptane::app
