#include "core/spmv.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "core/canonical.hpp"
#include "core/vector_ops.hpp"

namespace heptane {
namespace {

void check_size(std::size_t got, index_t want, const char* what) {
    if (static_cast<index_t>(got) != want) {
        throw std::invalid_argument(std::string(what) + ": vector has " + std::to_string(got) +
                                    " entries, expected " + std::to_string(want));
    }
}

/// Shared body of y = GH x and y = GH^T x. For the transpose, diagonal d reads the block of
/// the neighbour n = m + off[d] in the mirrored diagonal 6 - d with (r, c) swapped, and the
/// well arrays swap roles.
template <bool transpose>
void gh_product(const GHMatrix& A, const double* x, double* y) {
    const int K = A.block_size();
    const int nz = A.nz();
    const index_t mk = A.cell_unknowns();
    const index_t columns = static_cast<index_t>(A.nx()) * A.ny();
    const auto off = A.offsets();
    const std::vector<double>& bdia = A.bdia();
    const WellArrays& wells = A.wells();
    const std::vector<double>& well_rows = transpose ? wells.wt_vals : wells.w_vals;
    const std::vector<double>& well_cols = transpose ? wells.w_vals : wells.wt_vals;
    const bool have_wells = A.num_wells() > 0;

#pragma omp parallel for schedule(static) if (A.rows() >= vec::kParallelMin)
    for (index_t col = 0; col < columns; ++col) {
        const int w = have_wells ? wells.well_of_column[col] : -1;
        for (int k = 0; k < nz; ++k) {
            const index_t m = col * nz + k;
            // Canonical order (core/canonical.hpp): over (d, c) sequentially, then the well.
            std::array<double, kMaxBlockSize> acc{};
            for (int d = 0; d < kStencilSize; ++d) {
                if (!A.has_neighbour(m, d)) continue;
                const index_t n = m + off[d];
                const double* xn = x + n * K;
                for (int c = 0; c < K; ++c) {
                    for (int r = 0; r < K; ++r) {
                        const index_t idx = transpose ? A.bdia_index(mirror_diagonal(d), c, r, n)
                                                      : A.bdia_index(d, r, c, m);
                        acc[r] = canonical::mul_add(bdia[idx], xn[c], acc[r]);
                    }
                }
            }
            if (w >= 0 && m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w]) {
                const index_t base = wells.first[w] + (m - wells.cell0[w]) * K;
                for (int r = 0; r < K; ++r) {
                    acc[r] = canonical::mul_add(well_cols[base + r], x[mk + w], acc[r]);
                }
            }
            for (int r = 0; r < K; ++r) y[m * K + r] = acc[r];
        }
    }
    for (index_t w = 0; w < A.num_wells(); ++w) {
        // Canonical order: the perforated cells' terms, then D.
        double sum = 0.0;
        const index_t n = wells.count[w] * K;
        const double* xc = x + wells.cell0[w] * K;
        for (index_t i = 0; i < n; ++i) sum = canonical::mul_add(well_rows[wells.first[w] + i], xc[i], sum);
        y[mk + w] = canonical::mul_add(wells.d[w], x[mk + w], sum);
    }
}

}  // namespace

void spmv(const GHMatrix& A, const double* x, double* y) { gh_product<false>(A, x, y); }

void spmv_transpose(const GHMatrix& A, const double* x, double* y) { gh_product<true>(A, x, y); }

void spmv(const Csr& A, const double* x, double* y) {
#pragma omp parallel for schedule(static) if (A.rows >= vec::kParallelMin)
    for (std::int32_t i = 0; i < A.rows; ++i) {
        double sum = 0.0;
        for (std::int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
            sum += A.val[p] * x[A.col[p]];
        y[i] = sum;
    }
}

void spmv(const Bsr& A, const double* x, double* y) {
    const int bs = A.block_size;
    const index_t bb = static_cast<index_t>(bs) * bs;
#pragma omp parallel if (static_cast <index_t>(A.block_rows) * bs >= vec::kParallelMin)
    {
        std::vector<double> acc(static_cast<std::size_t>(bs));
#pragma omp for schedule(static)
        for (std::int32_t br = 0; br < A.block_rows; ++br) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (std::int32_t p = A.row_ptr[br]; p < A.row_ptr[br + 1]; ++p) {
                const double* block = A.val.data() + p * bb;
                const double* xb = x + static_cast<index_t>(A.col[p]) * bs;
                for (int r = 0; r < bs; ++r) {
                    double sum = 0.0;
                    for (int c = 0; c < bs; ++c) sum += block[r * bs + c] * xb[c];
                    acc[r] += sum;
                }
            }
            for (int r = 0; r < bs; ++r) y[static_cast<index_t>(br) * bs + r] = acc[r];
        }
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
