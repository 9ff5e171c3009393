#pragma once
/// @file Two-point flux approximation (TPFA) transmissibilities.
#include <vector>

#include "grid/grid3d.hpp"
#include "grid/rock.hpp"

namespace heptane::grid {

/// Face transmissibilities [m^3] (multiply by mobility [1/(Pa s)] and a pressure difference
/// [Pa] for a volume rate [m^3/s]). tx[m] is the face between cell m and its +i neighbour
/// (0 on the last i layer), likewise ty (+j) and tz (+k). Each is the harmonic average of
/// the two half-cell transmissibilities: T = 1 / (L/2 / (k_a A) + L/2 / (k_b A))
/// = 2 A / L * k_a k_b / (k_a + k_b), and 0 when either permeability is 0. With per-cell
/// sizes each half uses its own cell's: t_a = 2 k_a A_a / L_a, T = t_a t_b / (t_a + t_b)
/// (OPM's Cartesian rule); corner-point cells take t = k half, half their face's geometric
/// factor (grid/corner_point.hpp). T is times the face's multiplier (MULTX/Y/Z of the cell on its -
/// side), and 0 when either cell is inactive; the EDIT section's value where it set one
/// (RockFields::tx_edited, ty_edited, tz_edited) replaces it.
/// nnc: the connections of CellGeometry::nnc with T > 0 (both cells active), in its order:
/// T = t_a t_b / (t_a + t_b), t = k half with the permeability of the face's axis, times the
/// connection's own multiplier (RockFields::nnc_mult: its cells' face multipliers, MULTFLT,
/// MULTREGT), then the Eclipse NNC records' (RockFields::nnc_given) where their cells are
/// not stencil neighbours (else added to the face's T), sorted by (a, b), one entry a pair.
struct Transmissibilities {
    std::vector<double> tx, ty, tz;
    std::vector<NncTransmissibility> nnc;
};

Transmissibilities tpfa_transmissibilities(const Grid3D& grid, const RockFields& rock);

/// The model's non-neighbour connections (tpfa's nnc; empty, without computing the faces,
/// where there are no faults' throws or NNC records), and how many.
std::vector<NncTransmissibility> non_neighbour_transmissibilities(const Grid3D& grid,
                                                                  const RockFields& rock);
std::size_t non_neighbour_connections(const Grid3D& grid, const RockFields& rock);

/// Harmonic-average face transmissibility between two cells with permeabilities ka and kb
/// [m^2], face area [m^2] and centre distance [m].
inline double harmonic_transmissibility(double ka, double kb, double area, double distance) {
    const double sum = ka + kb;
    return sum > 0.0 ? 2.0 * area / distance * ka * kb / sum : 0.0;
}

}  // namespace heptane::grid
