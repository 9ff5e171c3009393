#pragma once
/// @file Structured 3D grid with the k-fastest cell ordering of DESIGN section 2.
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/base/types.hpp"

namespace heptane::grid {

/// A connection between two cells that are not stencil neighbours (design decision 63): where a
/// fault's throw puts cell a of one column against cells of other layers of the next column.
struct CellConnection {
    index_t a = 0, b = 0;               ///< a < b: a in the column on the minus side
    int axis = 0;                       ///< 0: b's column is a's + i; 1: + j
    double half_a = 0.0, half_b = 0.0;  ///< each side's geometric half transmissibility
};

/// A non-neighbour connection's transmissibility [m^3] (a < b): a fault's, or an Eclipse NNC
/// record's (grid/transmissibility.hpp).
struct NncTransmissibility {
    index_t a = 0, b = 0;
    double t = 0.0;
};

/// Per-cell sizes and depths (issue 20: Eclipse DX, DY, DZ and TOPS), k-fastest, SI [m].
struct CellGeometry {
    std::vector<double> dx, dy, dz;
    std::vector<double> depth;  ///< depth of the cell centre, down > 0
    /// Corner-point cells (grid/corner_point.hpp), else empty (box cells): bulk volume, the
    /// geometric half-transmissibility of each face (6 a cell: -x, +x, -y, +y, -z, +z) and the
    /// 8 corners (x, y, depth; 24 a cell).
    std::vector<double> volume, half, corners;
    /// Corner-point grids with faults: the non-neighbour connections that a throw makes
    /// between the layers of neighbouring columns (grid/corner_point.hpp); empty otherwise.
    std::vector<CellConnection> nnc;  ///< sorted by (a, b)
    /// The most void [m] between two active cells of one column that their vertical face
    /// crosses (PINCH's item 3; design decision 70); beyond it they are not joined.
    double max_void = std::numeric_limits<double>::infinity();
    bool corner_point() const { return !half.empty(); }
};

/// nx x ny x nz cells; k = layer, 0 at the top. SI units. Cells have one size (dx, dy, dz,
/// top_depth) unless `geometry` gives each its own (a file's DX, DY, DZ, TOPS); code that
/// needs a cell's size or depth asks size_x(m) ... centre_depth(m), which answer both.
/// Cell (i, j, k) is number m = k + nz (j + ny i): the vertical axis is fastest, so a
/// vertical well's cells are consecutive and the vertical coupling sits next to the diagonal.
struct Grid3D {
    int nx = 1, ny = 1, nz = 1;
    double dx = 1.0, dy = 1.0, dz = 1.0;  ///< cell sizes [m]
    double top_depth = 0.0;               ///< depth of the top face of layer 0 [m], down > 0
    /// Per-cell geometry, or null for uniform cells. Shared: copies of the grid are cheap.
    std::shared_ptr<const CellGeometry> geometry;

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
    bool uniform() const { return geometry == nullptr; }
    double size_x(index_t m) const { return geometry ? geometry->dx[m] : dx; }
    double size_y(index_t m) const { return geometry ? geometry->dy[m] : dy; }
    double size_z(index_t m) const { return geometry ? geometry->dz[m] : dz; }
    /// Depth of the centre of cell m [m].
    double centre_depth(index_t m) const {
        return geometry ? geometry->depth[m] : top_depth + (m % nz + 0.5) * dz;
    }
    double volume(index_t m) const {
        if (!geometry) return dx * dy * dz;
        return geometry->corner_point() ? geometry->volume[m]
                                        : geometry->dx[m] * geometry->dy[m] * geometry->dz[m];
    }

    /// Throws InputError (keys grid.dims, grid.cell_size) for non-positive sizes or a grid
    /// whose unknowns would overflow 64-bit indices.
    void validate() const;
};

/// Cell index m of the Eclipse-ordered (i fastest, then j, then k) value n.
/// "(i, j, k) = (1, 2, 3)": how messages name cell m.
inline std::string cell_text(const Grid3D& g, index_t m) {
    const auto ijk = g.ijk(m);
    return "(i, j, k) = (" + std::to_string(ijk[0]) + ", " + std::to_string(ijk[1]) + ", " +
           std::to_string(ijk[2]) + ")";
}

inline index_t eclipse_to_cell(const Grid3D& g, index_t n) {
    const index_t i = n % g.nx;
    const index_t j = (n / g.nx) % g.ny;
    const index_t k = n / (static_cast<index_t>(g.nx) * g.ny);
    return g.cell(static_cast<int>(i), static_cast<int>(j), static_cast<int>(k));
}

}  // namespace heptane::grid
