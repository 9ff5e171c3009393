#pragma once
/// @file The two-phase model on the device (issue 23): the fixed arrays (rock,
/// transmissibilities, geometry, the well layout and indices), the state (x, the time step's
/// x_old, p_bh, the controls), R, and J in GHMatrix's layouts, with the views the host/device
/// code of grid/two_phase.hpp and wells/two_phase_wells.hpp reads. DeviceTwoPhase
/// (assembly.cu) and the device Newton loop (newton.cu) hold one each.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/matrix/gh_matrix.hpp"
#include "gpu/src/base/buffer.cuh"
#include "grid/two_phase.hpp"
#include "wells/two_phase_wells.hpp"

namespace heptane::gpu::detail {

struct TwoPhaseModel {
    /// Copies the fixed arrays of `cells` and `wells` (not kept) and allocates the rest.
    TwoPhaseModel(const grid::TwoPhaseCells& cells, const wells::TwoPhaseWells& wells);

    /// R and, with `jacobian`, J at (p, sw, p_bh) for a step of dt [s] from (p_old, sw_old),
    /// each well under controls[w], on `stream` (assembly.cu: compiled without contraction).
    void assemble(double dt, bool jacobian, cudaStream_t stream) const;

    /// The last J in the host's layout (a copy to the host).
    GHMatrix jacobian() const;

    grid::TwoPhaseCellsView cells_view() const;
    wells::TwoPhaseWellsView wells_view() const;
    grid::StateView now() const { return {p.get(), sw.get()}; }

    int nx, ny, nz, nw;
    index_t M;
    grid::TwoPhaseParams params;
    WellArrays layout;  ///< the host's, for GHMatrix copies
    // fixed arrays
    Buffer<double> porosity, volume, depth, tx, ty, tz, wi, ref_depth;
    Buffer<std::uint8_t> active, producer;
    Buffer<index_t> first, cell0, count;
    // state and results
    Buffer<double> p, sw, p_old, sw_old, p_bh, res, bdia, accumulation, w_vals, wt_vals, d;
    Buffer<double> properties;  ///< every cell's grid::PhaseState of both phases at (p, sw)
    Buffer<double> rate_terms;  ///< each perforation's rate-equation term (w_vals' layout)
    Buffer<wells::WellControl> controls;
    bool has_active = false;
    /// The saturation regions' relative permeabilities (region 1 first) and each cell's
    /// region (empty: one region; design decision 87).
    Buffer<grid::RelPerm> relperms;
    Buffer<std::int32_t> saturation_region;
    /// Each cell's own end points (design decision 95; empty: no cell's table scaled).
    Buffer<grid::EndPoints> end_points;
    // Non-neighbour connections (design decision 63; empty without): the cells' layout
    // (K = 1) and transmissibilities, J's connection blocks, and J's layout on the host.
    Buffer<index_t> nnc_ptr, nnc_col;
    Buffer<double> nnc_t, nnc_vals;
    NncArrays nnc_layout;  ///< K = 2, its values empty
};

}  // namespace heptane::gpu::detail
