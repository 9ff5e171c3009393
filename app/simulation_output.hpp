#pragma once
/// @file The result file of `heptane simulate` (DESIGN section 7, /timesteps, /wells,
/// /simulation) with a temporal XDMF sidecar, in the deck's unit system. Written at every
/// report time (a checkpoint: a crash loses at most one report interval; /restart holds what
/// `simulate --restart` goes on from) and at the end, each time a whole file put in place by
/// a rename, for bytes that grow with the run, not with its square (design decision 67).
#include <deque>
#include <string>
#include <vector>

#include "app/deck.hpp"
#include "app/output.hpp"
#include "sim/in_place.hpp"
#include "sim/simulator.hpp"

namespace heptane::app {

class SummaryTable;  // app/summary.hpp

/// The fields at one report time, in the deck's units.
struct ReportFrame {
    double time = 0.0;  ///< [day]
    double dt = 0.0;    ///< [day] the step that ended here (0 for the initial state)
    int steps = 0;      ///< accepted time steps before it
    std::vector<double> pressure;
    std::vector<double> water_saturation;
};

/// The fluid in place at one report time (sim::fluid_in_place, SI).
struct InPlaceReport {
    double time = 0.0;  ///< [s]
    sim::InPlace in_place;
    /// Each fluid-in-place region's (rock.fip_region; empty without them; decision 89).
    std::vector<sim::InPlace> regions;
};

/// The fluid in place of state `x` at `time` [s]: the field's, and each of the model's
/// fluid-in-place regions'.
InPlaceReport in_place_report(double time, const grid::TwoPhaseCells& cells,
                              const grid::RockFields& rock, const grid::CellState& x);

/// Everything the file holds.
struct SimulationRecord {
    const Deck* deck = nullptr;
    const wells::Model* model = nullptr;  ///< grid and rock
    const sim::Simulator* simulator = nullptr;
    std::vector<std::string> overrides;
    std::string method, backend, kernel;
    std::string status = "running";       ///< running (a checkpoint) | completed | failed | stopped
    std::string message;                  ///< failed: where and why
    std::vector<std::string> log;         ///< well control changes and cut steps, one per line
    std::string restarted_from;           ///< "FILE at day D" for a run that went on from a file
    std::vector<InPlaceReport> in_place;  ///< every report time's (/field/in_place, /regions)
    double wall_seconds = 0.0;
    /// Device allocations (gpu::device_allocations) after this process's first accepted step
    /// and now: equal when no Newton step allocates (the solver object is set up once).
    long long allocations_after_first_step = 0;
    long long allocations_now = 0;
    /// The deck's summary table (design decision 101): /summary and OUT.csv; null: none.
    const SummaryTable* summary = nullptr;
};

/// The frame of the simulator's current state at `time` [s].
ReportFrame report_frame(const Deck& deck, const sim::Simulator& simulator, double time);

/// OUT.h5 and its temporal OUT.xmf, written again at every report time and at the end.
///
/// Two files take turns (A/B checkpointing): OUT.h5 is the last whole write, and a shadow
/// beside it (OUT.h5.shadow-PID, the write before that) is brought up to date by appending the
/// report frames it lacks and rewriting the history (/simulation, /wells, /restart), then
/// renamed over OUT.h5; the file it replaces, kept by a hard link, becomes the next shadow. So
/// OUT.h5 is a whole file at every instant, a report's fields are written twice in all (the
/// grid twice in the run) instead of once per later report, and only the frames the shadow
/// lacks stay in memory. Where the folder takes no hard links the shadow starts each write as
/// a copy of OUT.h5 (bytes that grow with the square again, at copy speed; the same file).
/// The shadow is removed with this object; a killed run leaves it beside OUT.h5 (a whole file
/// one report behind).
class SimulationOutput {
  public:
    explicit SimulationOutput(std::string h5_path);
    SimulationOutput(const SimulationOutput&) = delete;
    SimulationOutput& operator=(const SimulationOutput&) = delete;
    ~SimulationOutput();

    /// The fields of the next report time (/timesteps/NNNNN, NNNNN = frames() before the call).
    void add_frame(ReportFrame frame);
    std::size_t frames() const { return times_.size(); }
    /// Writes OUT.h5 (every frame added so far and `record`'s history) and OUT.xmf.
    void write(const SimulationRecord& record);

  private:
    /// Brings the shadow to every frame and `record`'s history, and closes it.
    void update_shadow(const SimulationRecord& record);
    /// Puts the shadow in place of OUT.h5 and keeps the file it replaces as the next shadow.
    void swap_in();

    std::string final_, shadow_, previous_;
    std::vector<double> times_;     ///< [day] every frame's time (the XDMF's)
    std::deque<ReportFrame> kept_;  ///< frames first_kept_ ... still to be written
    std::size_t first_kept_ = 0;
    std::size_t live_frames_ = 0;    ///< frames in OUT.h5, once this object wrote it
    std::size_t shadow_frames_ = 0;  ///< frames in the shadow, where it exists
    bool live_ = false, shadow_exists_ = false;
    std::vector<XdmfField> grid_fields_;  ///< /grid's fields, the same in every frame
};

/// The field's rates at the end of an accepted step and its totals to there [SI: m^3/s, m^3
/// at the surface]: Eclipse's FOPR, FWPR, FWIR and FOPT, FWPT, FWIT.
struct FieldStep {
    double oil_rate = 0.0;        ///< the producers' oil, net (a cross-flowing producer's < 0)
    double water_rate = 0.0;      ///< the producers' water, net
    double injection_rate = 0.0;  ///< the injectors' water, > 0 injected
    double oil_total = 0.0, water_total = 0.0, injection_total = 0.0;
    /// water_rate / (oil_rate + water_rate) where both are > 0 (FWCT), else 0.
    double water_cut() const;
};

/// Per accepted step of the run so far: the wells' rates summed in deck order, the totals
/// summed over the steps (rate x dt, the wells' own totals' rule).
std::vector<FieldStep> field_history(const sim::Simulator& sim);

/// Well w's observation in force over each accepted step of the run so far (design decision
/// 90): the last of the deck's history entries of the well at or before the step's start (the
/// previous step's end, 0 for the first), NaN rates and BHP where there is none. Empty when the
/// well has no history record (no observed value in any entry).
std::vector<WellObservation> observed_history(const Deck& deck, const sim::Simulator& sim,
                                              std::size_t w);

/// A history well's misfit to its observed series (design decision 90): the root mean square
/// of simulated minus observed oil rate, water rate [m^3/s] and BHP [Pa] over the steps with an
/// observation, weighted by the steps' lengths; NaN where no step is observed.
struct HistoryMisfit {
    double oil = 0.0, water = 0.0, bhp = 0.0;
};

/// Well w's misfit to `observed`, its observed_history (one entry a step).
HistoryMisfit history_misfit(const sim::Simulator& sim, std::size_t w,
                             const std::vector<WellObservation>& observed);

/// The surface volume unit of the deck's rates ("stb" of "stb/day", "sm3" of "sm3/day").
std::string volume_name(const UnitFactors& u);

/// The unit of a connection factor (Eclipse's): "cP rb/day/psi", "cP rm3/day/bar".
std::string connection_factor_name(const UnitFactors& u);

/// Well control as stored in /wells/NAME/control: 0 shut, 1 rate (the liquid's), 2 BHP,
/// 3 oil rate, 4 water rate, 5 reservoir volume rate.
int control_code(const wells::WellControl& c);

}  // namespace heptane::app
