#pragma once
/// @file Internal to grid/: the EDIT section's PORV and TRANX/Y/Z edits applied to the values
/// the model computes (design decision 72), for apply_eclipse_rock.
#include <cstdint>
#include <vector>

#include "grid/eclipse_model.hpp"

namespace heptane::grid::detail {

/// The EDIT section's PORV edits, in file order, on each cell's pore volume [m^3]; the cells
/// they set are marked in `set` (empty: none). A cell ACTNUM makes inactive stays so; a cell
/// given pore volume must have bulk volume.
void apply_pore_volume_edits(const Grid3D& g, const EclipseGridSpec& spec, const EclipseGridData& d,
                             const std::vector<std::uint8_t>& actnum,
                             std::vector<double>& pore_volume, std::vector<std::uint8_t>& set);

/// The EDIT section's TRANX, TRANY, TRANZ edits as the faces' edited transmissibilities
/// (RockFields::tx_edited, ty_edited, tz_edited): each face starts from its computed value
/// (multipliers and MULTREGT included, the NNC records not yet added: OPM's order) and takes
/// its edits in file order. An edit of a face on the grid's last layer, of a face with an
/// inactive cell, or of corner-point cells that do not share their face (a fault's throw past
/// it: half 0) changes nothing (there is no connection to change, as OPM has none). Needs
/// rock.active final.
void apply_transmissibility_edits(const Grid3D& g, const EclipseGridSpec& spec,
                                  const EclipseGridData& d, RockFields& rock);

}  // namespace heptane::grid::detail
