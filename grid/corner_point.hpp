#pragma once
/// @file Corner-point geometry (Eclipse COORD and ZCORN) as the cells of heptane's structured
/// grid (design decision 62): each cell's 8 corners on its 4 pillars, its bulk volume, centre,
/// sizes and the geometric half-transmissibility of each face. Where a fault's throw moves
/// one column against the next, the faces' overlaps give the stencil neighbours' halves and
/// the non-neighbour connections between other layers (design decision 63); the cells of one
/// column share whole faces or leave a void, joined across (design decision 70); PINCH joins
/// active cells across inactive ones (design decision 69).
#include <limits>
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
    /// The most void [m] two active cells of one column are joined across (PINCH's item 3;
    /// design decision 70).
    double max_void = std::numeric_limits<double>::infinity();
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
/// Faults: two neighbouring columns (across an i or a j face) match when, in every layer,
/// the 4 corner depths of the shared face agree within 1e-6 m + 1e-9 of the depth (whatever
/// ACTNUM says); their cells are as above. Otherwise (a throw) each pair of active cells of
/// the two columns connects through the overlap of their faces on the two shared pillars:
/// the polygon between the higher top and the lower bottom, thicker than that tolerance
/// somewhere; its area vector A and centre give each side's half |A . d| / (d . d), d from
/// the cell's centre to the overlap's (as OPM computes a fault face's). The same layer's
/// halves replace half[] across the face (0 without an overlap or with an inactive cell);
/// other layers' are the non-neighbour connections nnc, sorted by (a, b).
/// Voids: where the lower of two active cells of one column starts below the upper one's
/// bottom (a corner depth apart by more than that tolerance), the lower cell's top half is
/// half_through_bottom (from its centre to the upper cell's bottom face, across the void, as
/// OPM builds the face); where the void (the least over the pillars) exceeds max_void both
/// halves across it are 0.
/// Throws InputError(key, "...") for a non-finite value, a pillar whose top and bottom depths
/// are equal, a cell whose bottom corner lies above its top one on a pillar, and two active
/// cells of one column that overlap (the upper one's bottom below the lower one's top by
/// more than that tolerance), naming the cells.
CellGeometry corner_point_cells(const CornerPointInput& in);

/// The geometric half transmissibility |A . d| / (d . d) of cell m through the bottom face of
/// cell face_cell (A that face's area vector, d from m's centre to the face's centre), both
/// corner-point cells of g: a pinch-out connection's lower half and a void's (design decisions
/// 69, 70; OPM's rule: the upper cell's bottom face is the connection's face). With m = face_cell
/// it is g.half[6 m + 5].
double half_through_bottom(const CellGeometry& g, index_t face_cell, index_t m);

}  // namespace heptane::grid
