#pragma once
/// @file Index types and the 7-point stencil shared by every module.
#include <array>
#include <cstdint>

namespace heptane {

/// Global indices and sizes (cells, scalar unknowns, nonzeros) are 64-bit: a 256^3 grid
/// with K = 16 already has 2.7e8 unknowns and 3e10 stored values.
using index_t = std::int64_t;

/// Largest block size K (components per cell) the GH matrix supports.
constexpr int kMaxBlockSize = 16;

/// Number of block diagonals of the hepta-diagonal matrix H.
constexpr int kStencilSize = 7;

/// Index of the main diagonal in [0, kStencilSize): d = 0..6 is the neighbour at
/// (i-1), (j-1), (k-1), self, (k+1), (j+1), (i+1) (DESIGN section 2).
constexpr int kCenter = 3;

/// The diagonal that stores the transpose partner of diagonal d: block (m, m + off[d]) of
/// H^T is the transpose of block (m + off[d], m) of H, which lives in diagonal 6 - d.
constexpr int mirror_diagonal(int d) { return kStencilSize - 1 - d; }

}  // namespace heptane
