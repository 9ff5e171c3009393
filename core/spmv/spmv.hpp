#pragma once
/// @file Reference (CPU, OpenMP) sparse matrix-vector products. Every device kernel is
/// checked against these.
#include <vector>

#include "core/base/canonical.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"

namespace heptane {

/// y = GH x. x and y have A.rows() entries and must not alias. Padding blocks of Bdia are
/// skipped by grid position (never multiplied), so a non-finite x next to the boundary does
/// not leak into rows that do not couple to it.
void spmv(const GHMatrix& A, const double* x, double* y);

/// y = GH^T x without a stored transpose: block (m, n) of H^T is the transpose of block
/// (n, m) of H, read from the mirrored diagonal 6 - d at block row n; the well parts swap
/// roles (W^T's values form the well rows, W's values the well columns).
void spmv_transpose(const GHMatrix& A, const double* x, double* y);

/// The well rows of y = GH x (GH^T x with transpose): each well's perforated cells' terms in
/// order, then D (the canonical order). Shared by the products of every layout.
void well_rows_product(const GHMatrix& A, const double* x, double* y, bool transpose = false);

/// Adds cell m's non-neighbour terms to its K row sums acc (row m of H's connections, or of
/// H^T's: entry e's mirror block transposed), each row's terms in entry order, then over c.
/// Shared by the products of every layout: the canonical order is the stencil's terms, these,
/// then the well term.
template <class Acc>
inline void nnc_row_terms(const NncArrays& nnc, int K, bool transpose, index_t m, const double* x,
                          Acc& acc) {
    const index_t kk = static_cast<index_t>(K) * K;
    for (index_t e = nnc.ptr[m]; e < nnc.ptr[m + 1]; ++e) {
        const double* xn = x + nnc.col[e] * K;
        const double* block = nnc.vals.data() + (transpose ? nnc.mirror[e] : e) * kk;
        for (int r = 0; r < K; ++r) {
            double sum = acc[r];
            for (int c = 0; c < K; ++c) {
                sum =
                    canonical::mul_add(transpose ? block[c * K + r] : block[r * K + c], xn[c], sum);
            }
            acc[r] = sum;
        }
    }
}

/// The rows a product computes: the cells of the (i, j) columns [begin, end) (column i ny + j:
/// a range of i-planes is a range of columns) and, with `wells`, the well rows; the other rows
/// of y are left alone. A rank of a distributed run computes its interior planes while the
/// halo planes travel, then its edge planes (dist/distributed_gh.cpp).
struct ColumnRange {
    index_t begin = 0, end = 0;
    bool wells = true;
    static ColumnRange all(const GHMatrix& A) {
        return {0, static_cast<index_t>(A.nx()) * A.ny(), true};
    }
};

/// The rows of `range` of y = GH x (GH^T x with transpose), each with spmv's bits.
void spmv_columns(const GHMatrix& A, const double* x, double* y, ColumnRange range,
                  bool transpose = false);

/// y = A x for scalar CSR.
void spmv(const Csr& A, const double* x, double* y);

/// y = A x for BSR (row-major blocks).
void spmv(const Bsr& A, const double* x, double* y);
/// The product of blocks [begin, end) of A (consecutive blocks of one block row) with x into
/// y_row (bs entries), in spmv(Bsr)'s order: each block's rows summed over its columns, the
/// blocks accumulated in order. Shared by spmv(Bsr) and the balanced layout's segments.
void bsr_blocks_product(const Bsr& A, std::int32_t begin, std::int32_t end, const double* x,
                        double* y_row);

/// Convenience forms returning y (sizes checked, throws std::invalid_argument).
std::vector<double> spmv(const GHMatrix& A, const std::vector<double>& x);
std::vector<double> spmv_transpose(const GHMatrix& A, const std::vector<double>& x);
std::vector<double> spmv(const Csr& A, const std::vector<double>& x);
std::vector<double> spmv(const Bsr& A, const std::vector<double>& x);

}  // namespace heptane
