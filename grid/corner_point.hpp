#pragma once
/// @file Corner-point geometry (Eclipse COORD and ZCORN) as the cells of heptane's structured
/// grid (design decision 62): each cell's 8 corners on its 4 pillars, its bulk volume, centre,
/// sizes and the geometric half-transmissibility of each face, for a grid whose neighbouring
/// active cells share whole faces (no fault throws, no gaps between layers): the 7-point GH
/// stencil has no non-neighbour connections.
#include <string>
#include <vector>

#include "grid/grid3d.hpp"

namespace heptane::grid {

/// What corner_point_cells reads: COORD's 6 (nx + 1) (ny + 1) values (each pillar's top x, y,
/// z, then its bottom's; i fastest) and ZCORN's 8 nx ny nz depths (i fastest over 2 nx, then j
/// over 2 ny, then k over 2 nz), both times `unit` to metres (z and ZCORN are depths, down >
/// 0); `active` (Eclipse order, may be empty: every cell) is ACTNUM, NaN or non-zero active;
/// the "file:line: " of each keyword and the deck key, for messages.
struct CornerPointInput {
    int nx = 0, ny = 0, nz = 0;
    const std::vector<double>* coord = nullptr;
    const std::vector<double>* zcorn = nullptr;
    double unit = 1.0;
    const std::vector<double>* active = nullptr;
    std::string coord_where, zcorn_where, key;
};

/// The cells in heptane's order (m = k + nz (j + ny i)): dx, dy the distances between the
/// centres of the opposite x and y faces, dz the thickness (the depth between the top and
/// bottom faces' centres, as Eclipse and OPM take it): Peaceman's cell sizes; depth the centre's
/// (the mean of the corners, as Eclipse and OPM take it), volume the trilinear hexahedron's (exact:
/// Gauss quadrature of the Jacobian), half[6 m + 2 axis + side] = |A . d| / (d . d) for the face
/// towards -axis (side 0) or +axis (side 1), A its area vector (half the cross product of its
/// diagonals), d from the cell's centre to the face's centre (0 for a degenerate cell); a
/// face's transmissibility is then t_a t_b / (t_a + t_b), t = k half. corners holds each
/// cell's 8 corners (x, y, depth), corner c = ci + 2 cj + 4 ck.
/// Throws InputError(key, "...") for a non-finite value, a pillar whose top and bottom depths
/// are equal, a cell whose bottom corner lies above its top one on a pillar, and two
/// neighbouring active cells whose shared face does not match (a corner depth apart by more
/// than 1e-6 m + 1e-9 of the depth: a fault's throw, or a gap or overlap between layers),
/// naming the cells.
CellGeometry corner_point_cells(const CornerPointInput& in);

}  // namespace heptane::grid
