#pragma once
/// @file Where a simulation's state lives and its per-Newton-step work runs (issue 23): the
/// state (cells and wells), the residual and Jacobian, the linear solve and the update. The
/// Simulator (sim/simulator.hpp) keeps the time steps, the schedule and the wells' controls,
/// and asks a NewtonSystem for a few scalars per Newton step: HostNewton (here) is the
/// reference, gpu::make_device_newton (gpu/newton.hpp) keeps everything on the GPU. Both run
/// the same per-cell code (grid::assemble_equation, wells::assemble_perforation,
/// sim/newton_terms.hpp) and the same canonical sums, so they give the same bits where their linear
/// solvers do.
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/piece_sums.hpp"
#include "core/krylov/linear_solver.hpp"
#include "sim/newton_linear_solver.hpp"
#include "sim/newton_terms.hpp"
#include "wells/generator.hpp"

namespace heptane::sim {

/// The simulated state (SI): cells, and the bottom-hole pressure of each well.
struct State {
    grid::CellState cells;
    std::vector<double> p_bh;
};

/// The state a simulation starts from: `cells`, the wells at TwoPhaseWells::initial_bhp.
State starting_state(const wells::TwoPhaseSystem& system, grid::CellState cells);

/// What the convergence checks read of a residual R (cells 2 M, then wells): the canonical
/// sums over the cells of R per phase and of the pore volume at the current pressure, the
/// largest CNV term per phase, whether every entry is finite, ||R||_2 (canonical, all rows),
/// and the wells' rows.
struct ResidualMeasures {
    std::array<double, 2> residual_sum{};
    double pore_volume = 0.0;
    std::array<double, 2> cnv_max{};
    bool finite = true;
    double norm = 0.0;
    std::vector<double> wells;
};

/// Makes the solver object for the first Jacobian (later ones update its values).
using SolverFactory = std::function<std::unique_ptr<LinearSolver>(const GHMatrix&)>;

class NewtonSystem {
  public:
    virtual ~NewtonSystem() = default;
    /// The current state starts a time step: it is the accumulation's old state and the
    /// state restore() goes back to.
    virtual void start_step() = 0;
    /// Back to the state at the last start_step (a cut time step).
    virtual void restore() = 0;
    /// R and J at the current state, for a step of dt [s] from the step's start, each well
    /// under controls[w].
    virtual void assemble(double dt, const std::vector<wells::WellControl>& controls) = 0;
    /// The measures of the last R; dt [s] is the step's (CNV's time scale).
    virtual ResidualMeasures measure(double dt) = 0;
    /// Solves J dx = -R for the last J and R from dx = 0 to `tolerance` (0: the solver's
    /// default). The first call makes the solver object; later ones update its values.
    virtual SolveResult solve(double tolerance) = 0;
    /// x += dx, chopped by `limits` (newton_terms.hpp's update_cell and chopped_pressure).
    virtual void update(const UpdateLimits& limits) = 0;
    /// Well w's perforations take the well indices `wi` [m^3] (one per perforation) from now
    /// on: a schedule's change of its connections (design decision 103).
    virtual void set_well_indices(std::size_t w, const std::vector<double>& wi) = 0;
    /// Each well's rates at the current state under `controls`.
    virtual std::vector<wells::WellRates> rates(
        const std::vector<wells::WellControl>& controls) = 0;
    /// The wells' bottom-hole pressures now [Pa].
    virtual std::vector<double> bhp() = 0;
    /// The mean oil pressure of the cells now, weighted by their hydrocarbon pore volume
    /// (TwoPhaseWells::mean_hydrocarbon_pressure's bits; a GPU reduces it on the device and
    /// reads back four sums): a reservoir volume rate's conversion (design decision 100).
    virtual double mean_hydrocarbon_pressure() = 0;
    /// The whole state now (a GPU copies its fields to the host: report times only).
    virtual const State& state() = 0;
    /// The linear stage's totals and its solver object (null before the first solve).
    virtual LinearStats linear_stats() const = 0;
    virtual const LinearSolver* linear_solver() const = 0;
    /// Where the state lives and how the Jacobian reaches the solver object, for reports:
    /// "host", "GPU (J handed to the solver on the device)", "GPU (J through the host: ...)".
    virtual std::string residence() const = 0;
};

/// One rank's share of a host Newton loop under mpirun (issue 25; design decision 51): the
/// cells it assembles (its slab of the distributed solver: its planes and a halo plane on
/// each side, whose rows the solver's slab holds) and the cells it measures (its planes; the
/// wells' rows by the rank with holds_wells), and how the ranks join their parts of the
/// measures: sums(pieces) the canonical sums (pieces[q]: this rank's pieces of sum q, the
/// one-process bits), max(v, n) the elementwise maximum over the ranks, in place. Every rank
/// keeps the whole state (dx is gathered on every rank) and assembles every well's residual.
/// The rank holds only its slab of the Jacobian (the assembled cells' planes, the wells of its
/// own planes: slab_wells' layout; design decisions 51, 56), the solver make_solver makes
/// from it takes the rank's local vectors ([its own cells' entries, then its wells']), and
/// gather(local, wells, whole) fills the whole vector on every rank from each rank's local
/// one (`wells`: the global numbers of its wells; cells in plane order, wells by number).
struct NewtonSplit {
    index_t assemble_begin = 0, assemble_end = 0;
    index_t own_begin = 0, own_end = 0;
    bool holds_wells = false;
    std::function<std::vector<double>(const std::vector<std::vector<PieceSums>>&)> sums;
    std::function<void(double*, int)> max;
    std::function<void(const std::vector<double>&, const std::vector<int>&, std::vector<double>&)>
        gather;

    /// The i-planes of the assembled cells (the slab: first, count) and of the own cells, on
    /// a grid of `plane` cells a plane.
    struct Planes {
        int first = 0, count = 0, own_first = 0, own_end = 0;
    };
    Planes planes(index_t plane) const {
        return {static_cast<int>(assemble_begin / plane),
                static_cast<int>((assemble_end - assemble_begin) / plane),
                static_cast<int>(own_begin / plane), static_cast<int>(own_end / plane)};
    }
};

/// The reference: the state on the host, the assembly of wells::TwoPhaseSystem, the solver
/// object of `make_solver`. `system` outlives it; the run starts from `initial`
/// (starting_state, or a checkpoint's). With `split`, one rank's share of a distributed run
/// (NewtonSplit).
std::unique_ptr<NewtonSystem> make_host_newton(const wells::TwoPhaseSystem& system,
                                               const State& initial, SolverFactory make_solver,
                                               SolveOptions linear,
                                               const NewtonSplit* split = nullptr);

}  // namespace heptane::sim
