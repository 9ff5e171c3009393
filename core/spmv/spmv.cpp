#include "core/spmv/spmv.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/base/canonical.hpp"
#include "core/base/vector_ops.hpp"

namespace heptane {
namespace {

void check_size(std::size_t got, index_t want, const char* what) {
    if (static_cast<index_t>(got) != want) {
        throw std::invalid_argument(std::string(what) + ": vector has " + std::to_string(got) +
                                    " entries, expected " + std::to_string(want));
    }
}

/// Up to this K a column's cells are swept once per diagonal with all K rows of a block (K^2
/// streams side by side); above it once per (diagonal, row) with that row's K planes (64
/// streams at K = 8 were more than the prefetchers follow: docs/BENCHMARKS.md, issue 24).
constexpr int kSpmvAllRows = 6;

/// Shared body of y = GH x and y = GH^T x. For the transpose, diagonal d reads the block of
/// the neighbour n = m + off[d] in the mirrored diagonal 6 - d with (r, c) swapped, and the
/// well arrays swap roles.
/// y = GH x (or GH^T x) for block size K. Each (i, j) column of nz cells is done at once:
/// for every diagonal d the loop runs over the column's cells, each reading its K x K block
/// (K^2 contiguous runs of the Bdia planes, cell-fastest layout, streamed side by side) and
/// its neighbour's K values of x once, with the row sums in registers. For a fixed row the
/// terms are added in the canonical order over (d, c), then the well term (K > kSpmvAllRows:
/// one row's K planes at a time).
template <int K, bool transpose>
void gh_product_k(const GHMatrix& A, const double* x, double* y, ColumnRange range) {
    const int nz = A.nz();
    const index_t mk = A.cell_unknowns();
    const index_t M = A.num_cells();
    const auto off = A.offsets();
    const std::vector<double>& bdia = A.bdia();
    const WellArrays& wells = A.wells();
    const std::vector<double>& well_cols = transpose ? wells.w_vals : wells.wt_vals;
    const bool have_wells = A.num_wells() > 0;

#pragma omp parallel if (A.rows() >= vec::kParallelMin)
    {
        std::vector<double> acc(static_cast<std::size_t>(nz) * K);
#pragma omp for schedule(static)
        for (index_t col = range.begin; col < range.end; ++col) {
            std::fill(acc.begin(), acc.end(), 0.0);
            const index_t i = col / A.ny(), j = col % A.ny();
            const index_t m0 = col * nz;
            // Neighbour columns across d = -i, -j, +j, +i; the k neighbours exist for all
            // cells of the column but the first (d = 2) or the last (d = 4).
            const bool column_exists[kStencilSize] = {i > 0, j > 0,          true,          true,
                                                      true,  j < A.ny() - 1, i < A.nx() - 1};
            for (int d = 0; d < kStencilSize; ++d) {
                if (!column_exists[d]) continue;
                const int k0 = d == 2 ? 1 : 0;
                const int k1 = d == 4 ? nz - 1 : nz;
                // Entry (r, c) of block (m, m + off[d]) for the column's first cell: H's
                // diagonal d at cell m, or H^T's: entry (c, r) of the mirrored diagonal at
                // the neighbour. Cell k's entry is k further in the same plane.
                const double* a[K][K];
                for (int r = 0; r < K; ++r) {
                    for (int c = 0; c < K; ++c) {
                        a[r][c] =
                            transpose
                                ? &bdia[((mirror_diagonal(d) * K + c) * K + r) * M + m0 + off[d]]
                                : &bdia[((static_cast<index_t>(d) * K + r) * K + c) * M + m0];
                    }
                }
                const double* xd = x + (m0 + off[d]) * K;  // x(m + off[d], 0) at k = 0
                if (K <= kSpmvAllRows) {
                    for (int k = k0; k < k1; ++k) {
                        // The cell's K x K block once, its neighbour's K values once; each
                        // row's terms added over c in order (the canonical order over (d, c)).
                        double* acc_k = acc.data() + static_cast<std::size_t>(k) * K;
                        const double* xk = xd + static_cast<index_t>(k) * K;
                        for (int r = 0; r < K; ++r) {
                            double sum = acc_k[r];
                            for (int c = 0; c < K; ++c) {
                                sum = canonical::mul_add(a[r][c][k], xk[c], sum);
                            }
                            acc_k[r] = sum;
                        }
                    }
                } else {
                    for (int r = 0; r < K; ++r) {  // K streams at a time (row r's planes)
                        for (int k = k0; k < k1; ++k) {
                            const double* xk = xd + static_cast<index_t>(k) * K;
                            double& acc_kr = acc[static_cast<std::size_t>(k) * K + r];
                            double sum = acc_kr;
                            for (int c = 0; c < K; ++c) {
                                sum = canonical::mul_add(a[r][c][k], xk[c], sum);
                            }
                            acc_kr = sum;
                        }
                    }
                }
            }
            const int w = have_wells ? wells.well_of_column[col] : -1;
            for (int k = 0; k < nz; ++k) {
                const index_t m = m0 + k;
                double* acc_m = acc.data() + static_cast<std::size_t>(k) * K;
                if (w >= 0 && m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w]) {
                    const index_t base = wells.first[w] + (m - wells.cell0[w]) * K;
                    for (int r = 0; r < K; ++r) {
                        acc_m[r] = canonical::mul_add(well_cols[base + r], x[mk + w], acc_m[r]);
                    }
                }
                for (int r = 0; r < K; ++r) y[m * K + r] = acc_m[r];
            }
        }
    }
    if (range.wells) well_rows_product(A, x, y, transpose);
}

/// Dispatch on K: the per-cell loops unroll and the accumulator is exactly K wide.
template <bool transpose>
void gh_product(const GHMatrix& A, const double* x, double* y, ColumnRange range) {
    switch (A.block_size()) {
        case 1:
            return gh_product_k<1, transpose>(A, x, y, range);
        case 2:
            return gh_product_k<2, transpose>(A, x, y, range);
        case 3:
            return gh_product_k<3, transpose>(A, x, y, range);
        case 4:
            return gh_product_k<4, transpose>(A, x, y, range);
        case 5:
            return gh_product_k<5, transpose>(A, x, y, range);
        case 6:
            return gh_product_k<6, transpose>(A, x, y, range);
        case 7:
            return gh_product_k<7, transpose>(A, x, y, range);
        case 8:
            return gh_product_k<8, transpose>(A, x, y, range);
        case 9:
            return gh_product_k<9, transpose>(A, x, y, range);
        case 10:
            return gh_product_k<10, transpose>(A, x, y, range);
        case 11:
            return gh_product_k<11, transpose>(A, x, y, range);
        case 12:
            return gh_product_k<12, transpose>(A, x, y, range);
        case 13:
            return gh_product_k<13, transpose>(A, x, y, range);
        case 14:
            return gh_product_k<14, transpose>(A, x, y, range);
        case 15:
            return gh_product_k<15, transpose>(A, x, y, range);
        case 16:
            return gh_product_k<16, transpose>(A, x, y, range);
        default:
            throw std::invalid_argument("spmv: K outside 1..16");
    }
}

}  // namespace

void well_rows_product(const GHMatrix& A, const double* x, double* y, bool transpose) {
    const WellArrays& wells = A.wells();
    const std::vector<double>& well_rows = transpose ? wells.wt_vals : wells.w_vals;
    const int K = A.block_size();
    const index_t mk = A.cell_unknowns();
    for (index_t w = 0; w < A.num_wells(); ++w) {
        // Canonical order: the perforated cells' terms, then D.
        double sum = 0.0;
        const index_t n = wells.count[w] * K;
        const double* xc = x + wells.cell0[w] * K;
        for (index_t v = 0; v < n; ++v) {
            sum = canonical::mul_add(well_rows[wells.first[w] + v], xc[v], sum);
        }
        y[mk + w] = canonical::mul_add(wells.d[w], x[mk + w], sum);
    }
}

void spmv(const GHMatrix& A, const double* x, double* y) {
    gh_product<false>(A, x, y, ColumnRange::all(A));
}

void spmv_transpose(const GHMatrix& A, const double* x, double* y) {
    gh_product<true>(A, x, y, ColumnRange::all(A));
}

void spmv_columns(const GHMatrix& A, const double* x, double* y, ColumnRange range,
                  bool transpose) {
    if (range.begin < 0 || range.begin > range.end ||
        range.end > static_cast<index_t>(A.nx()) * A.ny()) {
        throw std::invalid_argument("spmv_columns: a column range outside the grid");
    }
    transpose ? gh_product<true>(A, x, y, range) : gh_product<false>(A, x, y, range);
}

void spmv(const Csr& A, const double* x, double* y) {
#pragma omp parallel for schedule(static) if (A.rows >= vec::kParallelMin)
    for (std::int32_t i = 0; i < A.rows; ++i) {
        double sum = 0.0;
        for (std::int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
            sum += A.val[p] * x[A.col[p]];
        y[i] = sum;
    }
}

void bsr_blocks_product(const Bsr& A, std::int32_t begin, std::int32_t end, const double* x,
                        double* y_row) {
    const int bs = A.block_size;
    const index_t bb = static_cast<index_t>(bs) * bs;
    std::fill(y_row, y_row + bs, 0.0);
    for (std::int32_t p = begin; p < end; ++p) {
        const double* block = A.val.data() + p * bb;
        const double* xb = x + static_cast<index_t>(A.col[p]) * bs;
        for (int r = 0; r < bs; ++r) {
            double sum = 0.0;
            for (int c = 0; c < bs; ++c) sum += block[r * bs + c] * xb[c];
            y_row[r] += sum;
        }
    }
}

void spmv(const Bsr& A, const double* x, double* y) {
    const int bs = A.block_size;
#pragma omp parallel for schedule(static) if (static_cast <index_t>(A.block_rows) * bs >= \
                                              vec::kParallelMin)
    for (std::int32_t br = 0; br < A.block_rows; ++br) {
        bsr_blocks_product(A, A.row_ptr[br], A.row_ptr[br + 1], x,
                           y + static_cast<index_t>(br) * bs);
    }
}

std::vector<double> spmv(const GHMatrix& A, const std::vector<double>& x) {
    check_size(x.size(), A.rows(), "spmv(GH)");
    std::vector<double> y(x.size());
    spmv(A, x.data(), y.data());
    return y;
}

std::vector<double> spmv_transpose(const GHMatrix& A, const std::vector<double>& x) {
    check_size(x.size(), A.rows(), "spmv_transpose(GH)");
    std::vector<double> y(x.size());
    spmv_transpose(A, x.data(), y.data());
    return y;
}

std::vector<double> spmv(const Csr& A, const std::vector<double>& x) {
    check_size(x.size(), A.cols, "spmv(CSR)");
    std::vector<double> y(static_cast<std::size_t>(A.rows));
    spmv(A, x.data(), y.data());
    return y;
}

std::vector<double> spmv(const Bsr& A, const std::vector<double>& x) {
    check_size(x.size(), static_cast<index_t>(A.block_cols) * A.block_size, "spmv(BSR)");
    std::vector<double> y(static_cast<std::size_t>(A.block_rows) * A.block_size);
    spmv(A, x.data(), y.data());
    return y;
}

}  // namespace heptane
