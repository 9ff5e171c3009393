#pragma once
/// @file The two-phase model's residual and Jacobian assembled on the GPU (issue 23; CUDA-free
/// header). The kernels run the host's code - grid::CellPropertiesView::store a thread a cell,
/// grid::assemble_equation a thread an equation, then wells::assemble_perforation a block a
/// well - with the same arithmetic (dual numbers, canonical exp/log/pow, no fused
/// multiply-add), so residual, Bdia, accumulation blocks, well arrays and a faulted grid's
/// connection blocks are the host assembly's bits (design decisions 43, 65). DeviceTwoPhase
/// takes the state from the host and hands results back (comparison and `bench assembly`);
/// the device Newton loop (newton.hpp) keeps them on the device.
#include <memory>
#include <vector>

#include "core/matrix/gh_matrix.hpp"
#include "grid/two_phase.hpp"
#include "wells/two_phase_wells.hpp"

namespace heptane::gpu {

class DeviceTwoPhase {
  public:
    /// Copies the model's fixed arrays (rock, transmissibilities, geometry, well layout and
    /// indices) to the device. `cells` and `wells` are not kept.
    DeviceTwoPhase(const grid::TwoPhaseCells& cells, const wells::TwoPhaseWells& wells);
    ~DeviceTwoPhase();
    DeviceTwoPhase(const DeviceTwoPhase&) = delete;
    DeviceTwoPhase& operator=(const DeviceTwoPhase&) = delete;

    /// Uploads (x, p_bh, x_old, controls) and assembles R and, with `jacobian`, J = dR/dx for
    /// time step dt. Returns the device time of the assembly kernels alone [s] (CUDA events).
    double assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                    const grid::CellState& x_old, double dt,
                    const std::vector<wells::WellControl>& controls, bool jacobian = true);

    /// The last residual: cells 2 M, then the wells' Nw (TwoPhaseSystem::residual's layout).
    std::vector<double> residual() const;
    /// The last Jacobian in the host's layout: Bdia, accumulation blocks, well arrays.
    GHMatrix jacobian() const;

    /// Bytes one assembly must move at least: the state read (x, x_old, p_bh), the fixed
    /// arrays read once (porosity, volume, depth, three transmissibilities, well indices),
    /// the residual written and, with the Jacobian, its Bdia (7 x 4 per cell), accumulation
    /// blocks (4 per cell) and well values (4 per perforation + 1 per well) written; with
    /// non-neighbour connections their layout and transmissibilities read (M + 1 offsets, 2
    /// values an entry) and their blocks (4 an entry) written.
    double minimal_bytes(bool jacobian) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace heptane::gpu
