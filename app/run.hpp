#pragma once
/// @file `heptane run DECK`: build the system, solve it, report, write HDF5 + XDMF.
#include <iosfwd>
#include <string>
#include <vector>

namespace heptane::app {

struct RunArgs {
    std::string deck;
    std::string output;                  ///< -o; empty: the deck's output.file
    std::string backend;                 ///< --backend; empty: the deck's solver.backend
    std::vector<std::string> overrides;  ///< --set key.path=value
    double max_wall_seconds = 0.0;       ///< simulate --max-wall-time; 0: none
    /// simulate --state: where the state and the Newton work live ("auto": the device with
    /// the gpu backend in one process, else the host; "host"; "device": the gpu backend only)
    std::string state = "auto";
    std::string restart;  ///< simulate --restart: the earlier run's file; empty: none
};

/// Exit code 0 (converged), 1 (not converged: the result is still written), 2 (bad input,
/// nothing written), 3 (runtime or device error, nothing written). `terminal`: stderr is
/// a terminal, so progress is shown while solving.
int cmd_run(const RunArgs& args, std::ostream& out, std::ostream& err, bool terminal);

}  // namespace heptane::app
