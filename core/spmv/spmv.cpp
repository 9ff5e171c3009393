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

/// Up to this K a column's cells are taken one at a time with every diagonal's block (7 K^2
/// streams side by side, the cell's row sums in registers and written once); above it the
/// column is swept once per diagonal. 2-core VM, 128^3 (docs/BENCHMARKS.md, issue 24): K = 1
/// 0.72-0.77 -> 0.84-0.91 of the triad; K = 2 the same either way (0.74-0.78).
constexpr int kSpmvCellAtATime = 1;

/// Up to this K a diagonal's sweep reads all K rows of a block (K^2 streams side by side);
/// above it one row's K planes at a time (64 streams at K = 8 were more than the prefetchers
/// follow: docs/BENCHMARKS.md, issue 24).
constexpr int kSpmvAllRows = 6;

/// The sweeps up to kSpmvAllRows prefetch every stream this many cells ahead, a cache line
/// (8 cells) at a time: the hardware prefetcher alone did not keep 7 K^2 streams of short
/// runs ahead (7 at K = 1). About 32 KB ahead over all streams, 64 cells at K = 1. 2-core VM
/// (docs/BENCHMARKS.md, issue 24), the product over the triad: 128^3 K = 1 0.70-0.74 ->
/// 0.86-0.91 (with the cell-at-a-time sweep), K = 2 0.76-0.79 -> 0.90-0.94; 64^3 K = 3
/// 0.41 -> 0.98-1.07, K = 4 0.43 -> 0.80-0.84, K = 5 0.59 -> 0.79-0.81; half or twice the
/// distance was slower at K = 2-5. Above kSpmvAllRows (one row's K planes at a time) no
/// prefetch: 0.37 -> 0.54-0.64 at K = 8, below the cell-major product's 0.86.
constexpr int spmv_prefetch_cells(int K) {
    return K == 1 ? 64 : std::max(8, (4096 / (7 * K * K) + 4) / 8 * 8);
}

/// Below this many bytes of Bdia the product runs from the caches and the prefetches are only
/// instructions: off (the five-spot's 24 x 24 x 8 K = 2 system, 2 MB, and 24^3 - 32^3 K = 2
/// took 4-10% longer with them; docs/BENCHMARKS.md).
constexpr double kSpmvPrefetchMinBytes = 32e6;

/// Cells taken at once by the cell-at-a-time sweep where all seven neighbours exist: their
/// K-row chains are independent and overlap (one cell's 7 K-term chains alone left the core
/// waiting on the adds where the blocks are in cache).
constexpr int kSpmvCells = 4;

/// The K row sums of cells k .. k + n - 1 (kAll: all seven neighbours exist for each, n =
/// kSpmvCells; else n = 1 and the diagonals of `exists`), each row's terms in the canonical
/// order over (d, c).
template <int K, bool kAll>
inline void cell_sums(const double* const (&a)[kStencilSize][K][K],
                      const double* const (&xd)[kStencilSize], const bool (&exists)[kStencilSize],
                      int k, double (&acc)[kSpmvCells][K]) {
    constexpr int n = kAll ? kSpmvCells : 1;
#pragma GCC unroll 7
    for (int d = 0; d < kStencilSize; ++d) {
        if (!kAll && !exists[d]) continue;
        for (int u = 0; u < n; ++u) {
            const double* xk = xd[d] + static_cast<index_t>(k + u) * K;
            for (int r = 0; r < K; ++r) {
                for (int c = 0; c < K; ++c) {
                    acc[u][r] = canonical::mul_add(a[d][r][c][k + u], xk[c], acc[u][r]);
                }
            }
        }
    }
}

/// Shared body of y = GH x and y = GH^T x for block size K. Each (i, j) column of nz cells is
/// done at once; entry (r, c) of cell m's block of diagonal d is read from the Bdia plane
/// (d, r, c) (cell-fastest: a column's cells are a contiguous run of each plane), and its
/// neighbour's K values of x once. For the transpose, diagonal d reads the block of the
/// neighbour n = m + off[d] in the mirrored diagonal 6 - d with (r, c) swapped, and the well
/// arrays swap roles. For a fixed row the terms are added in the canonical order over
/// (d, c), then the non-neighbour terms, then the well term, whichever sweep runs
/// (kSpmvCellAtATime, kSpmvAllRows).
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
    const NncArrays& nnc = A.nnc();
    const bool have_nnc = A.has_nnc();
    const bool prefetch = 8.0 * static_cast<double>(bdia.size()) >= kSpmvPrefetchMinBytes;
    // Entry (r, c) of block (m, m + off[d]) for cell m: H's diagonal d at m, or H^T's: entry
    // (c, r) of the mirrored diagonal at the neighbour. Cell m + k's entry is k further on.
    const auto plane = [&](int d, int r, int c, index_t m) {
        return transpose ? &bdia[((mirror_diagonal(d) * K + c) * K + r) * M + m + off[d]]
                         : &bdia[((static_cast<index_t>(d) * K + r) * K + c) * M + m];
    };

#pragma omp parallel if (A.rows() >= vec::kParallelMin)
    {
        std::vector<double> acc(static_cast<std::size_t>(nz) * K);
#pragma omp for schedule(static)
        for (index_t col = range.begin; col < range.end; ++col) {
            const index_t i = col / A.ny(), j = col % A.ny();
            const index_t m0 = col * nz;
            // Neighbour columns across d = -i, -j, +j, +i; the k neighbours exist for all
            // cells of the column but the first (d = 2) or the last (d = 4).
            bool exists[kStencilSize] = {i > 0, j > 0,          true,          true,
                                         true,  j < A.ny() - 1, i < A.nx() - 1};
            if constexpr (K <= kSpmvCellAtATime) {
                const double* a[kStencilSize][K][K];
                const double* xd[kStencilSize];  // x(m0 + off[d], 0)
                for (int d = 0; d < kStencilSize; ++d) {
                    for (int r = 0; r < K; ++r) {
                        for (int c = 0; c < K; ++c) a[d][r][c] = plane(d, r, c, m0);
                    }
                    xd[d] = x + (m0 + off[d]) * K;
                }
                const bool lateral = exists[0] && exists[1] && exists[5] && exists[6];
                int prefetched = 0;  // cells of every stream prefetched
                for (int k = 0; k < nz;) {
                    for (; prefetch && prefetched <= k; prefetched += 8) {  // a line a stream
                        for (int d = 0; d < kStencilSize; ++d) {
                            for (int r = 0; r < K; ++r) {
                                for (int c = 0; c < K; ++c)
                                    __builtin_prefetch(a[d][r][c] + prefetched +
                                                       spmv_prefetch_cells(K));
                            }
                        }
                    }
                    double sums[kSpmvCells][K] = {};
                    int n = 1;
                    if (lateral && k > 0 && k + kSpmvCells < nz) {
                        n = kSpmvCells;
                        cell_sums<K, true>(a, xd, exists, k, sums);
                    } else {
                        exists[2] = k > 0;
                        exists[4] = k < nz - 1;
                        cell_sums<K, false>(a, xd, exists, k, sums);
                    }
                    for (int u = 0; u < n; ++u) {
                        std::copy(sums[u], sums[u] + K,
                                  acc.data() + static_cast<std::size_t>(k + u) * K);
                    }
                    k += n;
                }
            } else {
                std::fill(acc.begin(), acc.end(), 0.0);
                for (int d = 0; d < kStencilSize; ++d) {
                    if (!exists[d]) continue;
                    const int k0 = d == 2 ? 1 : 0;
                    const int k1 = d == 4 ? nz - 1 : nz;
                    const double* a[K][K];
                    for (int r = 0; r < K; ++r) {
                        for (int c = 0; c < K; ++c) a[r][c] = plane(d, r, c, m0);
                    }
                    const double* xd = x + (m0 + off[d]) * K;  // x(m + off[d], 0) at k = 0
                    if (K <= kSpmvAllRows) {
                        // The cell's K x K block once, its neighbour's K values once; each
                        // row's terms added over c in order. Cells [k, k1) from k.
                        const auto cells = [&](int k, int k_end) {
                            for (; k < k_end; ++k) {
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
                        };
                        if (!prefetch) {
                            cells(k0, k1);
                        } else {
                            for (int k = k0; k < k1; k += 8) {  // a cache line of each stream
                                for (int r = 0; r < K; ++r) {
                                    for (int c = 0; c < K; ++c) {
                                        __builtin_prefetch(a[r][c] + k + spmv_prefetch_cells(K));
                                    }
                                }
                                cells(k, std::min(k + 8, k1));
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
            }
            const int w = have_wells ? wells.well_of_column[col] : -1;
            for (int k = 0; k < nz; ++k) {
                const index_t m = m0 + k;
                double* acc_m = acc.data() + static_cast<std::size_t>(k) * K;
                if (have_nnc) nnc_row_terms(nnc, K, transpose, m, x, acc_m);
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
