#include "core/spmv/cell_major.hpp"

#include <array>
#include <stdexcept>

#include "core/base/canonical.hpp"
#include "core/base/vector_ops.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

/// The (i, j) column sweep shared by the copy and the product: f(col) for every column, in
/// the same static schedule (so the copy's first touch places each column where the product
/// reads it).
template <class F>
void for_each_column(const GHMatrix& A, F f, index_t begin = 0, index_t end = -1) {
    if (end < 0) end = static_cast<index_t>(A.nx()) * A.ny();
#pragma omp parallel for schedule(static) if (A.rows() >= vec::kParallelMin)
    for (index_t col = begin; col < end; ++col) f(col);
}

/// Up to this K a block is stored column-major (entry (r, c) at c K + r), so the product's
/// K row sums of one column c read K consecutive values (SSE2 pairs): 1.1-1.3x at K = 3-7;
/// above it row-major (r K + c), which measured 1.5-2x faster at K = 8 and 16 (2-core VM,
/// docs/BENCHMARKS.md). Either way each row's terms are added over (d, c) in order: the same
/// bits.
constexpr int kColumnMajorMaxK = 7;

/// Every cell prefetches the blocks of the cell this many ahead (software prefetch of the one
/// long stream). 2-core VM, 64^3: with the branch-free interior path, K = 3 from 0.64 to
/// 0.81-0.89 of the triad and K = 4 from 0.69 to 0.79 (medians); 1, 3, 4 and 8 cells ahead
/// were no better; at K = 8 (row-major blocks) it gained nothing and is off
/// (docs/BENCHMARKS.md).
constexpr int kPrefetchCells = 2;

constexpr index_t block_entry(int K, int r, int c) {
    return K <= kColumnMajorMaxK ? static_cast<index_t>(c) * K + r
                                 : static_cast<index_t>(r) * K + c;
}

/// Cell m's blocks of H, or with `transpose` of H^T: block d of row m is then the mirrored
/// diagonal's block at the neighbour n = m + off[d], transposed (zeros where n is outside).
void copy_values(const GHMatrix& A, bool transpose, std::vector<double>& v) {
    const int K = A.block_size(), nz = A.nz();
    const index_t M = A.num_cells(), kk = static_cast<index_t>(K) * K;
    const std::vector<double>& bdia = A.bdia();
    const auto off = A.offsets();
    for_each_column(A, [&](index_t col) {
        for (index_t m = col * nz; m < (col + 1) * nz; ++m) {
            double* out = v.data() + m * kStencilSize * kk;
            for (int d = 0; d < kStencilSize; ++d) {
                const bool exists = A.has_neighbour(m, d);
                const index_t n = m + off[d];
                for (int r = 0; r < K; ++r) {
                    for (int c = 0; c < K; ++c) {
                        double& v = out[d * kk + block_entry(K, r, c)];
                        if (!transpose) {
                            v = bdia[((d * K + r) * K + c) * M + m];
                        } else {
                            v = exists ? bdia[((mirror_diagonal(d) * K + c) * K + r) * M + n] : 0.0;
                        }
                    }
                }
            }
        }
    });
}

/// Cell m's K rows of the stencil product into acc (the blocks of the diagonals that exist, in
/// order). kAll: every neighbour exists (interior cells: no test, the loop over d unrolled).
template <int K, bool kAll>
inline void cell_rows(const double* blocks, const double* x, index_t m,
                      const std::array<index_t, kStencilSize>& off, const bool* exists,
                      double (&acc)[K]) {
    constexpr index_t kk = static_cast<index_t>(K) * K;
#pragma GCC unroll 7
    for (int d = 0; d < kStencilSize; ++d) {
        if (!kAll && !exists[d]) continue;
        const double* b = blocks + d * kk;
        const double* xn = x + (m + off[d]) * K;
        for (int c = 0; c < K; ++c) {  // the K rows' chains side by side
            const double xc = xn[c];
            for (int r = 0; r < K; ++r)
                acc[r] = canonical::mul_add(b[block_entry(K, r, c)], xc, acc[r]);
        }
    }
}

template <int K>
void product_k(const GHMatrix& A, const std::vector<double>& v, bool transpose, const double* x,
               double* y, ColumnRange range) {
    constexpr index_t kk = static_cast<index_t>(K) * K;
    const int nx = A.nx(), ny = A.ny(), nz = A.nz();
    const auto off = A.offsets();
    const WellArrays& wells = A.wells();
    const std::vector<double>& well_cols = transpose ? wells.w_vals : wells.wt_vals;
    const bool have_wells = A.num_wells() > 0;
    const bool have_nnc = A.has_nnc();
    const index_t mk = A.cell_unknowns();
    for_each_column(
        A,
        [&](index_t col) {
            const index_t i = col / ny, j = col % ny;
            bool exists[kStencilSize] = {i > 0, j > 0, true, true, true, j < ny - 1, i < nx - 1};
            const bool lateral = exists[0] && exists[1] && exists[5] && exists[6];
            const int w = have_wells ? wells.well_of_column[col] : -1;
            for (int k = 0; k < nz; ++k) {
                const index_t m = col * nz + k;
                exists[2] = k > 0;
                exists[4] = k < nz - 1;
                const double* blocks = v.data() + m * kStencilSize * kk;
                double acc[K] = {};
                if constexpr (K <= kColumnMajorMaxK) {                  // K = 8: no gain measured
                    for (index_t q = 0; q < kStencilSize * kk; q += 8)  // a cache line each
                        __builtin_prefetch(blocks + kPrefetchCells * kStencilSize * kk + q);
                }
                if (lateral && exists[2] && exists[4]) {
                    cell_rows<K, true>(blocks, x, m, off, exists, acc);
                } else {
                    cell_rows<K, false>(blocks, x, m, off, exists, acc);
                }
                if (have_nnc) nnc_row_terms(A.nnc(), K, transpose, m, x, acc);
                if (w >= 0 && m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w]) {
                    const index_t base = wells.first[w] + (m - wells.cell0[w]) * K;
                    for (int r = 0; r < K; ++r) {
                        acc[r] = canonical::mul_add(well_cols[base + r], x[mk + w], acc[r]);
                    }
                }
                for (int r = 0; r < K; ++r) y[m * K + r] = acc[r];
            }
        },
        range.begin, range.end);
}

}  // namespace

CellMajorBlocks::CellMajorBlocks(const GHMatrix& A, bool transpose)
    : structure_(A),
      transpose_(transpose),
      values_(static_cast<std::size_t>(A.num_cells()) * kStencilSize * A.block_size() *
              A.block_size()) {
    copy_values(A, transpose_, values_);
}

void CellMajorBlocks::update(const GHMatrix& A) {
    structure_.check(A, "CellMajorBlocks::update");
    copy_values(A, transpose_, values_);
}

void CellMajorBlocks::product(const GHMatrix& A, const double* x, double* y) const {
    product(A, x, y, ColumnRange::all(A));
}

void CellMajorBlocks::product(const GHMatrix& A, const double* x, double* y,
                              ColumnRange range) const {
    if (range.begin < 0 || range.begin > range.end ||
        range.end > static_cast<index_t>(A.nx()) * A.ny()) {
        throw std::invalid_argument("CellMajorBlocks::product: a column range outside the grid");
    }
    switch (A.block_size()) {
#define HEPTANE_CELL_MAJOR_CASE(k)                         \
    case k:                                                \
        product_k<k>(A, values_, transpose_, x, y, range); \
        break;
        HEPTANE_CELL_MAJOR_CASE(1)
        HEPTANE_CELL_MAJOR_CASE(2)
        HEPTANE_CELL_MAJOR_CASE(3)
        HEPTANE_CELL_MAJOR_CASE(4)
        HEPTANE_CELL_MAJOR_CASE(5)
        HEPTANE_CELL_MAJOR_CASE(6)
        HEPTANE_CELL_MAJOR_CASE(7)
        HEPTANE_CELL_MAJOR_CASE(8)
        HEPTANE_CELL_MAJOR_CASE(9)
        HEPTANE_CELL_MAJOR_CASE(10)
        HEPTANE_CELL_MAJOR_CASE(11)
        HEPTANE_CELL_MAJOR_CASE(12)
        HEPTANE_CELL_MAJOR_CASE(13)
        HEPTANE_CELL_MAJOR_CASE(14)
        HEPTANE_CELL_MAJOR_CASE(15)
        HEPTANE_CELL_MAJOR_CASE(16)
#undef HEPTANE_CELL_MAJOR_CASE
        default:
            throw std::invalid_argument("CellMajorBlocks: K outside 1..16");
    }
    if (range.wells) well_rows_product(A, x, y, transpose_);
}

}  // namespace heptane
