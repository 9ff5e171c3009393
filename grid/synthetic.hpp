#pragma once
/// @file Synthetic GH systems for benchmarks at any K (DESIGN section 4): seeded random
/// dense blocks, then the diagonal scaled for a chosen diagonal dominance.
#include <cstdint>

#include "core/matrix/gh_matrix.hpp"
#include "grid/grid3d.hpp"

namespace heptane::grid {

struct SyntheticParams {
    int components = 1;               ///< K, 1..16
    double diagonal_dominance = 2.0;  ///< delta > 0: |a_ii| = delta * sum_{j != i} |a_ij|
    std::uint64_t seed = 1;
};

/// Fills every non-padding entry of H with uniform(-1, 1) values (per-cell random streams:
/// the same matrix for any thread count). The diagonal entries are overwritten later by
/// impose_diagonal_dominance.
void fill_random_blocks(GHMatrix& A, std::uint64_t seed);

/// Sets every diagonal entry of GH (cell rows and D) to delta times the sum of the absolute
/// off-diagonal entries of its row (wells included), or to delta if that sum is 0. delta > 1
/// gives a strictly diagonally dominant matrix.
void impose_diagonal_dominance(GHMatrix& A, double delta);

}  // namespace heptane::grid
