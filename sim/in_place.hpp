#pragma once
/// @file The fluid in place of a state (Eclipse's FOIP, FWIP and FPR): what `heptane simulate`
/// reports at every report time (/field/in_place, the summary's recovery factor).
#include <cstdint>
#include <vector>

#include "grid/two_phase.hpp"

namespace heptane::sim {

/// Sums over the active cells of a state, SI.
struct InPlace {
    /// Surface volumes [m^3]: sum V phi(p_o) S_a rho_a(p_a) / rho_a,s, each cell's mass of the
    /// phase over its surface density, the accumulation term's own quantity.
    double oil = 0.0;
    double water = 0.0;
    /// The oil pressure weighted by hydrocarbon pore volume V phi (1 - S_w) [Pa] (Eclipse's
    /// FPR); weighted by pore volume where no cell holds oil.
    double pressure = 0.0;
    double pore_volume = 0.0;  ///< [reservoir m^3] sum V phi(p_o)
};

/// The fluid in place of `x` on the model of `cells` (inactive cells left out), in the canonical
/// sums (parallel, the same bits for any thread count): its pressure is
/// TwoPhaseWells::mean_hydrocarbon_pressure(x), the GPU's too, bit for bit (design decision 101).
InPlace fluid_in_place(const grid::TwoPhaseCells& cells, const grid::CellState& x);

/// The fluid in place of each of `regions` regions (Eclipse's ROIP, RWIP, RPR; design
/// decision 89): region r sums, in cell order, the active cells m with region[m] == r
/// (numbered from 0, one number a cell); a region without cells holds nothing at pressure 0.
std::vector<InPlace> fluid_in_place(const grid::TwoPhaseCells& cells, const grid::CellState& x,
                                    const std::vector<std::int32_t>& region, int regions);

}  // namespace heptane::sim
