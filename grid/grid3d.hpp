#pragma once
/// @file Structured 3D grid with the k-fastest cell ordering of DESIGN section 2.
#include <array>

#include "core/base/types.hpp"

namespace heptane::grid {

/// nx x ny x nz cells of uniform size; k = layer, 0 at the top. SI units.
/// Cell (i, j, k) is number m = k + nz (j + ny i): the vertical axis is fastest, so a
/// vertical well's cells are consecutive and the vertical coupling sits next to the diagonal.
struct Grid3D {
    int nx = 1, ny = 1, nz = 1;
    double dx = 1.0, dy = 1.0, dz = 1.0;  ///< cell sizes [m]
    double top_depth = 0.0;               ///< depth of the top face of layer 0 [m], down > 0

    index_t num_cells() const { return static_cast<index_t>(nx) * ny * nz; }
    index_t num_columns() const { return static_cast<index_t>(nx) * ny; }
    index_t cell(int i, int j, int k) const {
        return k + static_cast<index_t>(nz) * (j + static_cast<index_t>(ny) * i);
    }
    /// (i, j, k) of cell m.
    std::array<int, 3> ijk(index_t m) const {
        return {static_cast<int>(m / (static_cast<index_t>(nz) * ny)),
                static_cast<int>((m / nz) % ny), static_cast<int>(m % nz)};
    }
    /// Depth of the centre of layer k [m].
    double depth(int k) const { return top_depth + (k + 0.5) * dz; }
    double cell_volume() const { return dx * dy * dz; }

    /// Throws InputError (keys grid.dims, grid.cell_size) for non-positive sizes or a grid
    /// whose unknowns would overflow 64-bit indices.
    void validate() const;
};

/// Cell index m of the Eclipse-ordered (i fastest, then j, then k) value n.
inline index_t eclipse_to_cell(const Grid3D& g, index_t n) {
    const index_t i = n % g.nx;
    const index_t j = (n / g.nx) % g.ny;
    const index_t k = n / (static_cast<index_t>(g.nx) * g.ny);
    return g.cell(static_cast<int>(i), static_cast<int>(j), static_cast<int>(k));
}

}  // namespace heptane::grid
