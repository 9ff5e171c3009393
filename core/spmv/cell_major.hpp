#pragma once
/// @file The cell part of a GH matrix with each cell's 7 K x K blocks contiguous (cell-major),
/// for the CPU product y = GH x at K >= 6 (issue 24; below it the Bdia sweep with software
/// prefetch is as fast or faster, core/spmv/spmv.cpp). Bdia keeps each (d, r, c) entry of all
/// cells in one plane, which the GPU reads coalesced; a CPU core sweeping it reads K^2 (or K)
/// planes side by side, more streams than its prefetchers follow. Cell-major, a thread reads
/// one stream. The copy costs the matrix's size once more (made at setup and per update of
/// the values), so the CPU solver object keeps one where it measured to pay
/// (cell_major_pays: docs/BENCHMARKS.md). A copy of H^T's blocks serves A^T x (QMR) the same
/// way.
#include <vector>

#include "core/matrix/gh_matrix.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {

class CellMajorBlocks {
  public:
    /// A copy of A's Bdia values, cell m's blocks at (m 7 + d) K^2, entry (r, c) at c K + r
    /// for K <= 7 and r K + c above (cell_major.cpp; padding blocks kept, never read). Filled in
    /// parallel with the product's schedule (first touch). With `transpose` the blocks of H^T: row
    /// m's block d is the neighbour's block of the mirrored diagonal, transposed, and product() is
    /// GH^T x.
    explicit CellMajorBlocks(const GHMatrix& A, bool transpose = false);
    /// New values of the same structure (std::invalid_argument otherwise).
    void update(const GHMatrix& A);
    std::size_t bytes() const { return values_.size() * sizeof(double); }

    /// y = GH x, the same bits as spmv(A, x, y): each row's terms over (d, c) in order, then
    /// the well term; the well rows as spmv (GH^T x and spmv_transpose's bits for a transposed
    /// copy). A must be the matrix of the last update.
    void product(const GHMatrix& A, const double* x, double* y) const;
    /// The rows of `range` only (core/spmv/spmv.hpp's ColumnRange), each with product()'s bits.
    void product(const GHMatrix& A, const double* x, double* y, ColumnRange range) const;

  private:
    GHStructure structure_;
    bool transpose_ = false;
    std::vector<double> values_;
};

/// Whether the cell-major product pays for block size K (measured on the CI-like 2-core VM
/// against the prefetched Bdia sweep, docs/BENCHMARKS.md: K >= 6).
inline bool cell_major_pays(int K) { return K >= 6; }

}  // namespace heptane
