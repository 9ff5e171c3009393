#pragma once
/// @file The result file of `heptane simulate` (DESIGN section 7, /timesteps, /wells,
/// /simulation) with a temporal XDMF sidecar, in the deck's unit system. Written whole under
/// a temporary name and renamed, at every report time (a checkpoint: a crash loses at most
/// one report interval; /restart holds what `simulate --restart` goes on from) and at the
/// end.
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "sim/simulator.hpp"

namespace heptane::app {

/// The fields at one report time, in the deck's units.
struct ReportFrame {
    double time = 0.0;  ///< [day]
    double dt = 0.0;    ///< [day] the step that ended here (0 for the initial state)
    int steps = 0;      ///< accepted time steps before it
    std::vector<double> pressure;
    std::vector<double> water_saturation;
};

/// Everything the file holds.
struct SimulationRecord {
    const Deck* deck = nullptr;
    const wells::Model* model = nullptr;  ///< grid and rock
    const sim::Simulator* simulator = nullptr;
    std::vector<std::string> overrides;
    std::string method, backend, kernel;
    std::vector<ReportFrame> frames;
    std::string status = "running";  ///< running (a checkpoint) | completed | failed | stopped
    std::string message;             ///< failed: where and why
    std::vector<std::string> log;    ///< well control changes and cut steps, one per line
    std::string restarted_from;      ///< "FILE at day D" for a run that went on from a file
    double wall_seconds = 0.0;
    /// Device allocations (gpu::device_allocations) after this process's first accepted step
    /// and now: equal when no Newton step allocates (the solver object is set up once).
    long long allocations_after_first_step = 0;
    long long allocations_now = 0;
};

/// The frame of the simulator's current state at `time` [s].
ReportFrame report_frame(const Deck& deck, const sim::Simulator& simulator, double time);

/// Writes OUT.h5 and its temporal OUT.xmf.
void write_simulation_output(const std::string& h5_path, const SimulationRecord& record);

/// Well control as stored in /wells/NAME/control: 0 shut, 1 rate, 2 BHP.
int control_code(const wells::WellControl& c);

}  // namespace heptane::app
