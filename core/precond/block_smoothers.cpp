#include "core/precond/block_smoothers.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/base/canonical.hpp"
#include "core/base/errors.hpp"
#include "core/base/vector_ops.hpp"
#include "core/precond/cpr.hpp"
#include "core/precond/cpr_arith.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

using canonical::add;
using canonical::mul;
using canonical::sub;

/// Blocks whose reciprocal condition number (Eigen's 1-norm estimate) is below this are
/// treated as singular: their inverse would amplify rounding errors by more than 1e14,
/// i.e. leave no correct digit in double precision.
constexpr double kMinRcond = 1.0e-14;

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

/// inv = a^{-1} stored column-major (entry (r, c) at inv[c n + r]). Returns the reciprocal
/// condition estimate of a; a value below kMinRcond (or NaN) means a is singular,
/// ill-conditioned or not finite, and inv is then left unspecified.
double invert_block(const Eigen::MatrixXd& a, double* inv) {
    if (!a.allFinite()) return 0.0;
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(a);
    const double rcond = lu.rcond();
    if (!(rcond >= kMinRcond)) return rcond;
    Eigen::Map<Eigen::MatrixXd> out(inv, a.rows(), a.cols());
    out = lu.inverse();
    return out.allFinite() ? rcond : 0.0;
}

bool usable(double rcond) { return rcond >= kMinRcond; }

/// The (i, j, k) step to the neighbour of each diagonal d = 0..6 (-i, -j, -k, self, +k, +j, +i).
constexpr int kStep[kStencilSize][3] = {{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {0, 0, 0},
                                        {0, 0, 1},  {0, 1, 0},  {1, 0, 0}};

/// inv_d[w] = 1 / D[w]; a zero or non-finite D is an InputError.
std::vector<double> invert_well_diagonal(const GHMatrix& A) {
    const auto& d = A.wells().d;
    std::vector<double> inv(d.size());
    for (std::size_t w = 0; w < d.size(); ++w) {
        if (d[w] == 0.0 || !std::isfinite(d[w])) throw well_diagonal_zero(w, d[w]);
        inv[w] = 1.0 / d[w];
    }
    return inv;
}

}  // namespace

InputError well_diagonal_zero(std::size_t w, double d) {
    return InputError("solver.preconditioner",
                      "well " + std::to_string(w) + " has diagonal D = " + num(d) +
                          "; block preconditioners divide the well rows by D");
}

namespace {

/// Whether the loops of a product over `rows` unknowns are worth an OpenMP region
/// (the threshold of the vector operations, design decision 12).
bool parallel_worthwhile(index_t rows) { return rows >= vec::kParallelMin; }

/// z_w = inv_d[w] r_w for the well rows (rows M K + w).
void apply_wells(const std::vector<double>& inv_d, index_t mk, const double* r, double* z) {
    for (std::size_t w = 0; w < inv_d.size(); ++w) z[mk + w] = mul(inv_d[w], r[mk + w]);
}

/// Global scalar row of local row lr of spatial block s.
index_t global_row(const block::SpatialBlock& s, int lr, int K, int ny, int nz) {
    return static_cast<index_t>(s.cell(lr / K, ny, nz)) * K + lr % K;
}

/// Rows of a spatial block's inverse that the CPU sums side by side (2-core VM,
/// docs/BENCHMARKS.md, issue 24).
constexpr int kBlockRows = 8;

/// For every spatial block: gathers `in` into the block's local order and calls
/// store(global row, value) with each row of inv_b (gathered) (transpose: inv_b^T), OpenMP
/// over the blocks (each block stores only its own rows).
template <bool transpose, class Store>
void for_each_block_row(const SpatialBlockFactors& F, const double* in, Store store) {
    const int K = F.K, ny = F.blocking.grid[1], nz = F.blocking.grid[2];
    const index_t blocks = F.blocking.blocks();
    const index_t rows = static_cast<index_t>(F.blocking.grid[0]) * ny * nz * K;
#pragma omp parallel if (parallel_worthwhile(rows))
    {
        std::vector<double> local(static_cast<std::size_t>(F.max_rows));
        std::vector<double> sums(local.size());
#pragma omp for schedule(static)
        for (index_t b = 0; b < blocks; ++b) {
            const block::SpatialBlock s = F.blocking.block(b);
            const int n = s.cells() * K;
            for (int lr = 0; lr < n; ++lr) local[lr] = in[global_row(s, lr, K, ny, nz)];
            const double* inv = F.inv.data() + F.offset[b];
            // Each row's sum is block::inverse_row's (inverse_transpose_row's), left to right
            // over c, but the rows go side by side so the factor is read as it is stored:
            // inv_b column by column (all rows' sums in `sums`), inv_b^T in groups of
            // kBlockRows rows (one row's n dependent adds alone left the core waiting).
            if (!transpose) {
                for (int lr = 0; lr < n; ++lr) sums[lr] = mul(inv[lr], local[0]);
                for (int c = 1; c < n; ++c) {
                    const double* col = inv + static_cast<index_t>(c) * n;
                    const double xc = local[c];
                    for (int lr = 0; lr < n; ++lr) sums[lr] = add(sums[lr], mul(col[lr], xc));
                }
            } else {
                for (int r0 = 0; r0 < n; r0 += kBlockRows) {
                    const int rows_here = std::min(kBlockRows, n - r0);
                    for (int q = 0; q < rows_here; ++q) {
                        sums[r0 + q] = mul(inv[static_cast<index_t>(r0 + q) * n], local[0]);
                    }
                    for (int c = 1; c < n; ++c) {
                        for (int q = 0; q < rows_here; ++q) {
                            sums[r0 + q] =
                                add(sums[r0 + q],
                                    mul(inv[static_cast<index_t>(r0 + q) * n + c], local[c]));
                        }
                    }
                }
            }
            for (int lr = 0; lr < n; ++lr) store(global_row(s, lr, K, ny, nz), sums[lr]);
        }
    }
}

/// (A x)_row of cell m, component r, in core/spmv/spmv.cpp's order: the diagonals d = 0..6 whose
/// neighbour lies inside the grid, each over c, then the non-neighbour terms, then the well
/// term of a perforated cell.
double cell_row_product(const GHMatrix& A, const double* x, index_t m, int r,
                        const std::array<index_t, kStencilSize>& off) {
    const int K = A.block_size();
    double acc = 0.0;
    for (int d = 0; d < kStencilSize; ++d) {
        if (!A.has_neighbour(m, d)) continue;
        const double* xn = x + (m + off[d]) * K;
        for (int c = 0; c < K; ++c) acc = add(acc, mul(A.at(d, m, r, c), xn[c]));
    }
    if (A.has_nnc()) {  // the non-neighbour connections' terms
        const NncArrays& nnc = A.nnc();
        for (index_t e = nnc.ptr[m]; e < nnc.ptr[m + 1]; ++e) {
            const double* xn = x + nnc.col[e] * K;
            for (int c = 0; c < K; ++c) acc = add(acc, mul(nnc.vals[(e * K + r) * K + c], xn[c]));
        }
    }
    const WellArrays& wells = A.wells();
    if (A.num_wells() > 0) {
        const int w = wells.well_of_column[m / A.nz()];
        if (w >= 0 && m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w]) {
            const index_t v = wells.first[w] + (m - wells.cell0[w]) * K + r;
            acc = add(acc, mul(wells.wt_vals[v], x[A.cell_unknowns() + w]));
        }
    }
    return acc;
}

/// (A x)_w of well row w in core/spmv/spmv.cpp's order: the perforated cells' terms, then D.
double well_row_product(const GHMatrix& A, const double* x, index_t w) {
    const WellArrays& wells = A.wells();
    const index_t n = wells.count[w] * A.block_size();
    const double* xc = x + wells.cell0[w] * A.block_size();
    double sum = 0.0;
    for (index_t v = 0; v < n; ++v) sum = add(sum, mul(wells.w_vals[wells.first[w] + v], xc[v]));
    return add(sum, mul(wells.d[w], x[A.cell_unknowns() + w]));
}

/// r = b - A x; returns ||r||.
double residual(const GHMatrix& A, const double* b, const double* x, double* r) {
    const index_t n = A.rows();
    spmv(A, x, r);
    vec::xmay(b, 1.0, r, r, n);  // r = b - A x
    return vec::norm2(r, n);
}

/// Bytes of the spatial blocks' inverses: sum over the blocks of n_b^2 doubles.
double spatial_inverse_bytes(const SpatialBlocking& blocking, int K) {
    double bytes = 0.0;
    for (index_t b = 0; b < blocking.blocks(); ++b) {
        const double n = static_cast<double>(blocking.block(b).cells()) * K;
        bytes += n * n * sizeof(double);
    }
    return bytes;
}

}  // namespace

// ---- factorization -----------------------------------------------------------------------

SpatialBlocking make_blocking(int nx, int ny, int nz, std::array<int, 3> shape) {
    if (shape[0] < 1 || shape[1] < 1 || shape[2] < 1) {
        throw InputError("solver.block_shape",
                         "entries must be >= 1 cells, got [" + std::to_string(shape[0]) + ", " +
                             std::to_string(shape[1]) + ", " + std::to_string(shape[2]) + "]");
    }
    SpatialBlocking blocking;
    blocking.grid = {nx, ny, nz};
    for (int a = 0; a < 3; ++a) {
        blocking.shape[a] = std::min(shape[a], blocking.grid[a]);
        blocking.count[a] = (blocking.grid[a] + blocking.shape[a] - 1) / blocking.shape[a];
    }
    return blocking;
}

PointBlockFactors factor_point_blocks(const GHMatrix& A) {
    PointBlockFactors f;
    f.K = A.block_size();
    f.cells = A.num_cells();
    f.inv_d = invert_well_diagonal(A);
    const index_t kk = static_cast<index_t>(f.K) * f.K;
    f.inv.resize(static_cast<std::size_t>(f.cells * kk));
    // cpr::invert_cell, the arithmetic the device factors with (decision 48): the same bits.
    std::vector<unsigned char> ok(static_cast<std::size_t>(f.cells));
#pragma omp parallel for schedule(static) if (parallel_worthwhile(A.rows()))
    for (index_t m = 0; m < f.cells; ++m) {
        ok[m] = cpr::invert_cell([&](int r, int c) { return A.at(kCenter, m, r, c); }, f.K,
                                 &f.inv[m * kk]);
    }
    for (index_t m = 0; m < f.cells; ++m) {
        if (!ok[m]) throw point_block_singular(A.nx(), A.ny(), A.nz(), m);
    }
    return f;
}

namespace {

/// The error of a singular block of cell m's elimination, `what` naming the block and
/// `who` the preconditioner.
InputError singular_block(const std::string& what, int ny, int nz, index_t m,
                          const std::string& who) {
    const index_t k = m % nz, j = (m / nz) % ny, i = m / (static_cast<index_t>(nz) * ny);
    return InputError("solver.preconditioner",
                      what + " (" + std::to_string(i) + ", " + std::to_string(j) + ", " +
                          std::to_string(k) +
                          ") is singular or ill-conditioned (a pivot of its elimination at "
                          "most K 1e-14 times its largest entry, or not finite); " +
                          who + " cannot invert it");
}

}  // namespace

InputError point_block_singular(int /*nx*/, int ny, int nz, index_t m) {
    return singular_block("the diagonal block of cell", ny, nz, m, "point_block_jacobi");
}

LineFactors factor_lines(const GHMatrix& A) {
    LineFactors f;
    f.K = A.block_size();
    f.cells = A.num_cells();
    f.inv_d = invert_well_diagonal(A);
    const int K = f.K, nz = A.nz();
    const index_t kk = static_cast<index_t>(K) * K;
    const index_t columns = static_cast<index_t>(A.nx()) * A.ny();
    f.pinv.resize(static_cast<std::size_t>(f.cells * kk));
    // cpr::line_block_pivots, the arithmetic the device factors with: the same bits. A column
    // stops at its first unusable pivot (the ones below it would use its inverse).
    std::vector<int> bad(static_cast<std::size_t>(columns));
    const auto read = [&A](int d, int r, int c, index_t m) { return A.at(d, m, r, c); };
#pragma omp parallel for schedule(static) if (parallel_worthwhile(A.rows()))
    for (index_t col = 0; col < columns; ++col) {
        bad[col] = cpr::line_block_pivots(read, K, col * nz, nz, &f.pinv[col * nz * kk]);
    }
    for (index_t col = 0; col < columns; ++col) {
        if (bad[col] >= 0) throw line_pivot_singular(A.nx(), A.ny(), nz, col * nz + bad[col]);
    }
    return f;
}

InputError line_pivot_singular(int /*nx*/, int ny, int nz, index_t m) {
    return singular_block("the pivot block of the vertical-line solve at cell", ny, nz, m,
                          "line_jacobi");
}

SpatialBlockFactors factor_spatial_blocks(const GHMatrix& A, std::array<int, 3> shape,
                                          double max_bytes) {
    SpatialBlockFactors f;
    f.blocking = make_blocking(A.nx(), A.ny(), A.nz(), shape);
    f.K = A.block_size();
    const SpatialBlocking& blocking = f.blocking;
    const double bytes = spatial_inverse_bytes(blocking, f.K);
    if (bytes > max_bytes) {
        throw InputError("solver.block_shape",
                         "spatial blocks of " + std::to_string(blocking.shape[0]) + " x " +
                             std::to_string(blocking.shape[1]) + " x " +
                             std::to_string(blocking.shape[2]) + " cells need " + num(bytes / 1e9) +
                             " GB for their inverses (limit " + num(max_bytes / 1e9) +
                             " GB); choose a smaller block shape");
    }
    f.inv_d = invert_well_diagonal(A);
    const int K = f.K, ny = A.ny(), nz = A.nz();
    const index_t blocks = blocking.blocks();
    f.offset.assign(static_cast<std::size_t>(blocks) + 1, 0);
    for (index_t b = 0; b < blocks; ++b) {
        const index_t n = static_cast<index_t>(blocking.block(b).cells()) * K;
        f.offset[b + 1] = f.offset[b] + n * n;
        f.max_rows = std::max(f.max_rows, static_cast<int>(n));
    }
    f.inv.resize(static_cast<std::size_t>(f.offset[blocks]));
    std::vector<double> rcond(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(dynamic) if (parallel_worthwhile(A.rows()))
    for (index_t b = 0; b < blocks; ++b) {
        const block::SpatialBlock s = blocking.block(b);
        const int n = s.cells() * K;
        // A restricted to the block's rows and columns, in the block's local order.
        Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
        for (int l = 0; l < s.cells(); ++l) {
            const index_t m = s.cell(l, ny, nz);
            const int lk = l % s.ez, lj = (l / s.ez) % s.ey, li = l / (s.ez * s.ey);
            for (int d = 0; d < kStencilSize; ++d) {
                // Diagonal d's neighbour; a neighbour outside the block (or grid) is skipped.
                const int ni = li + kStep[d][0], nj = lj + kStep[d][1], nk = lk + kStep[d][2];
                if (ni < 0 || ni >= s.ex || nj < 0 || nj >= s.ey || nk < 0 || nk >= s.ez) continue;
                const int ln = (ni * s.ey + nj) * s.ez + nk;
                for (int r = 0; r < K; ++r) {
                    for (int c = 0; c < K; ++c) a(l * K + r, ln * K + c) = A.at(d, m, r, c);
                }
            }
        }
        rcond[b] = invert_block(a, &f.inv[f.offset[b]]);
    }
    for (index_t b = 0; b < blocks; ++b) {
        if (!usable(rcond[b])) {
            const block::SpatialBlock s = blocking.block(b);
            throw InputError("solver.block_shape",
                             "the matrix of the spatial block at cell (" + std::to_string(s.i0) +
                                 ", " + std::to_string(s.j0) + ", " + std::to_string(s.k0) + ") (" +
                                 std::to_string(s.ex) + " x " + std::to_string(s.ey) + " x " +
                                 std::to_string(s.ez) +
                                 " cells) is singular or ill-conditioned (reciprocal condition " +
                                 num(rcond[b]) + ")");
        }
    }
    return f;
}

// ---- preconditioners ---------------------------------------------------------------------

namespace {

/// z = B^{-1} r (or B^{-T} r) block by block, then the wells' 1 / D.
template <bool Transpose>
void apply_point_blocks(const PointBlockFactors& f, index_t rows, const double* r, double* z) {
    const int K = f.K;
    const index_t kk = static_cast<index_t>(K) * K;
#pragma omp parallel for schedule(static) if (parallel_worthwhile(rows))
    for (index_t m = 0; m < f.cells; ++m) {
        const double* in = r + m * K;
        const double* inv = &f.inv[m * kk];
        const auto v = [&](int c) { return in[c]; };
        for (int row = 0; row < K; ++row) {
            z[m * K + row] = Transpose ? block::inverse_transpose_row(inv, K, row, v)
                                       : block::inverse_row(inv, K, row, v);
        }
    }
    apply_wells(f.inv_d, f.cells * K, r, z);
}

}  // namespace

void PointBlockJacobi::apply(const double* r, double* z) const {
    apply_point_blocks<false>(f_, A_->rows(), r, z);
}

void PointBlockJacobi::apply_transpose(const double* r, double* z) const {
    apply_point_blocks<true>(f_, A_->rows(), r, z);
}

/// Bdia planes with the block size a compile-time constant (the line steps' loops unroll).
template <int kK>
struct BdiaFixed {
    static constexpr int K = kK;
    const double* v;
    long long plane;
    double operator()(int d, int r, int c, long long m) const {
        return v[((static_cast<long long>(d) * K + r) * K + c) * plane + m];
    }
};

/// Columns whose Thomas steps the CPU runs side by side, by K: at K = 1 a column's forward and
/// backward recurrences are one chain of dependent operations each, four columns' chains
/// overlap; from K = 2 a cell's K rows do, and more columns only add streams. And the cells
/// of each stream (r, the pivot inverses, diagonal 2 or 4's planes) prefetched this far ahead,
/// a cache line at a time. 2-core VM (docs/BENCHMARKS.md, issue 24).
constexpr index_t line_columns(int K) { return K == 1 ? 4 : 1; }
constexpr int kLinePrefetchCells = 32;

/// z = M^{-1} r (kTranspose: M^{-T} r) on every vertical line: block::line_solve's
/// (line_solve_transpose's) steps, line_columns(K) columns side by side.
template <int K, bool kTranspose>
void apply_lines(const GHMatrix& A, const LineFactors& f, const double* r, double* z) {
    const int nz = A.nz();
    constexpr index_t kk = static_cast<index_t>(K) * K;
    const index_t columns = static_cast<index_t>(A.nx()) * A.ny();
    const BdiaFixed<K> bdia{A.bdia().data(), f.cells};
    const auto y = [&](long long i) { return r[i]; };
    const auto out = [&](long long i) -> double& { return z[i]; };
    constexpr index_t G = line_columns(K);
    constexpr int PF = kLinePrefetchCells;
    // The diagonal each sweep reads: L (2) going down and U (4) going up, or U^T and L^T.
    constexpr int down = kTranspose ? 4 : 2, up = kTranspose ? 2 : 4;
    const index_t groups = (columns + G - 1) / G;
#pragma omp parallel for schedule(static) if (parallel_worthwhile(A.rows()))
    for (index_t g = 0; g < groups; ++g) {
        const index_t c0 = g * G, c1 = std::min(columns, c0 + G);
        for (int k = 0; k < nz; ++k) {
            if (k % 8 == 0) {  // a cache line of every stream
                for (index_t col = c0; col < c1; ++col) {
                    const index_t m = col * nz + k + PF;
                    __builtin_prefetch(r + m);
                    for (index_t q = 0; q < 8 * kk; q += 8)
                        __builtin_prefetch(f.pinv.data() + m * kk + q);
                    for (int rr = 0; rr < K; ++rr)
                        for (int cc = 0; cc < K; ++cc)
                            __builtin_prefetch(bdia.v + ((down * K + rr) * K + cc) * bdia.plane +
                                               m);
                }
            }
            for (index_t col = c0; col < c1; ++col) {
                const index_t m = col * nz + k;
                block::line_forward_step<kTranspose>(bdia, &f.pinv[m * kk], m, k == 0, y, out);
            }
        }
        for (int k = nz - 2; k >= 0; --k) {
            if (k % 8 == 0) {  // a cache line of every stream
                for (index_t col = c0; col < c1; ++col) {
                    const index_t m = col * nz + k - PF;
                    if (m < 0) continue;
                    for (index_t q = 0; q < 8 * kk; q += 8)
                        __builtin_prefetch(f.pinv.data() + m * kk + q);
                    for (int rr = 0; rr < K; ++rr)
                        for (int cc = 0; cc < K; ++cc)
                            __builtin_prefetch(bdia.v + ((up * K + rr) * K + cc) * bdia.plane + m);
                }
            }
            for (index_t col = c0; col < c1; ++col) {
                const index_t m = col * nz + k;
                block::line_backward_step<kTranspose>(bdia, &f.pinv[m * kk], m, out);
            }
        }
    }
}

/// apply_lines for the run-time K of f.
template <bool kTranspose>
void apply_lines(const GHMatrix& A, const LineFactors& f, const double* r, double* z) {
    switch (f.K) {
#define HEPTANE_LINE_CASE(k) \
    case k:                  \
        return apply_lines<k, kTranspose>(A, f, r, z);
        HEPTANE_LINE_CASE(1)
        HEPTANE_LINE_CASE(2)
        HEPTANE_LINE_CASE(3)
        HEPTANE_LINE_CASE(4)
        HEPTANE_LINE_CASE(5)
        HEPTANE_LINE_CASE(6)
        HEPTANE_LINE_CASE(7)
        HEPTANE_LINE_CASE(8)
        HEPTANE_LINE_CASE(9)
        HEPTANE_LINE_CASE(10)
        HEPTANE_LINE_CASE(11)
        HEPTANE_LINE_CASE(12)
        HEPTANE_LINE_CASE(13)
        HEPTANE_LINE_CASE(14)
        HEPTANE_LINE_CASE(15)
        HEPTANE_LINE_CASE(16)
#undef HEPTANE_LINE_CASE
        default:
            throw std::invalid_argument("LineJacobi: K outside 1..16");
    }
}

void LineJacobi::apply(const double* r, double* z) const {
    apply_lines<false>(*A_, f_, r, z);
    apply_wells(f_.inv_d, f_.cells * f_.K, r, z);
}

void LineJacobi::apply_transpose(const double* r, double* z) const {
    apply_lines<true>(*A_, f_, r, z);
    apply_wells(f_.inv_d, f_.cells * f_.K, r, z);
}

void SpatialBlockJacobi::apply(const double* r, double* z) const {
    for_each_block_row<false>(f_, r, [&](index_t row, double v) { z[row] = v; });
    apply_wells(f_.inv_d, A_->cell_unknowns(), r, z);
}

void SpatialBlockJacobi::apply_transpose(const double* r, double* z) const {
    for_each_block_row<true>(f_, r, [&](index_t row, double v) { z[row] = v; });
    apply_wells(f_.inv_d, A_->cell_unknowns(), r, z);
}

void PointBlockJacobi::update(const GHMatrix& A) {
    check_same_structure(*A_, A, "PointBlockJacobi::update");
    A_ = &A;
    f_ = factor_point_blocks(A);
}

void LineJacobi::update(const GHMatrix& A) {
    check_same_structure(*A_, A, "LineJacobi::update");
    A_ = &A;
    f_ = factor_lines(A);
}

void SpatialBlockJacobi::update(const GHMatrix& A) {
    check_same_structure(*A_, A, "SpatialBlockJacobi::update");
    A_ = &A;
    f_ = factor_spatial_blocks(A, shape_);
}

std::unique_ptr<Preconditioner> make_preconditioner(const GHMatrix& A,
                                                    const SolverSettings& settings) {
    switch (settings.preconditioner) {
        case PreconditionerKind::none:
            return std::make_unique<IdentityPreconditioner>(A.rows());
        case PreconditionerKind::point_block_jacobi:
            return std::make_unique<PointBlockJacobi>(A);
        case PreconditionerKind::line_jacobi:
            return std::make_unique<LineJacobi>(A);
        case PreconditionerKind::block_jacobi:
            return std::make_unique<SpatialBlockJacobi>(A, settings.block_shape);
        case PreconditionerKind::cpr:
            return std::make_unique<CprPreconditioner>(A, settings.cpr);
    }
    throw InputError("solver.preconditioner", "unknown preconditioner kind");
}

double preconditioner_bytes(const GHMatrix& A, PreconditionerKind kind, std::array<int, 3> shape) {
    const double block_bytes =
        static_cast<double>(A.num_cells()) * A.block_size() * A.block_size() * sizeof(double);
    // r and z once, and 1 / D of the wells.
    const double vectors = 2.0 * static_cast<double>(A.rows()) * sizeof(double) +
                           static_cast<double>(A.num_wells()) * sizeof(double);
    switch (kind) {
        case PreconditionerKind::none:
            return 0.0;
        case PreconditionerKind::point_block_jacobi:
            return block_bytes + vectors;
        case PreconditionerKind::line_jacobi:
            return 3.0 * block_bytes + vectors;  // pinv and Bdia diagonals 2 and 4
        case PreconditionerKind::block_jacobi:
            return spatial_inverse_bytes(make_blocking(A.nx(), A.ny(), A.nz(), shape),
                                         A.block_size()) +
                   vectors;
        case PreconditionerKind::cpr: {
            // Stage 2's blocks and one product with A (its Bdia), and stage 1's pressure
            // matrix (7 values a cell) read by the level-0 smoothing and residual, at least.
            const double bdia = static_cast<double>(A.bdia().size()) * sizeof(double);
            const double pressure = 7.0 * static_cast<double>(A.num_cells()) * sizeof(double);
            return block_bytes + bdia + 3.0 * pressure + 2.0 * vectors;
        }
    }
    return 0.0;
}

// ---- block smoothers ---------------------------------------------------------------------

void block_jacobi_sweep(const GHMatrix& A, const SpatialBlockFactors& F, const double* b, double* x,
                        double omega, double* work) {
    const index_t n = A.rows(), mk = A.cell_unknowns();
    // work = b - A x
    spmv(A, x, work);
#pragma omp parallel for schedule(static) if (parallel_worthwhile(n))
    for (index_t i = 0; i < n; ++i) work[i] = sub(b[i], work[i]);
    // x_b = x_b + omega A_b^{-1} work_b: each block reads only work and writes only its rows.
    for_each_block_row<false>(F, work,
                              [&](index_t row, double v) { x[row] = add(x[row], mul(omega, v)); });
    for (std::size_t w = 0; w < F.inv_d.size(); ++w) {
        x[mk + w] = add(x[mk + w], mul(omega, mul(F.inv_d[w], work[mk + w])));
    }
}

void block_gs_sweep(const GHMatrix& A, const SpatialBlockFactors& F, const double* b, double* x,
                    double omega) {
    const int K = F.K, ny = A.ny(), nz = A.nz();
    const index_t mk = A.cell_unknowns();
    const auto off = A.offsets();
    std::vector<double> res(static_cast<std::size_t>(F.max_rows));
    for (index_t blk = 0; blk < F.blocking.blocks(); ++blk) {
        const block::SpatialBlock s = F.blocking.block(blk);
        const int n = s.cells() * K;
        // res = (b - A x)_b with the x of the blocks updated before this one
        for (int lr = 0; lr < n; ++lr) {
            const index_t m = s.cell(lr / K, ny, nz);
            const index_t row = m * K + lr % K;
            res[lr] = sub(b[row], cell_row_product(A, x, m, lr % K, off));
        }
        // x_b = x_b + omega A_b^{-1} res (res is complete, so x_b may change row by row)
        const double* inv = F.inv.data() + F.offset[blk];
        for (int lr = 0; lr < n; ++lr) {
            const double v = block::inverse_row(inv, n, lr, [&](int c) { return res[c]; });
            const index_t row = global_row(s, lr, K, ny, nz);
            x[row] = add(x[row], mul(omega, v));
        }
    }
    for (index_t w = 0; w < A.num_wells(); ++w) {
        const double r = sub(b[mk + w], well_row_product(A, x, w));
        x[mk + w] = add(x[mk + w], mul(omega, mul(F.inv_d[w], r)));
    }
}

SolveResult block_smoother_solve(Method method, const GHMatrix& A, const SpatialBlockFactors& F,
                                 const double* b, double* x, const SolveOptions& options,
                                 double omega) {
    if (method != Method::block_jacobi && method != Method::block_gs) {
        throw InputError("solver.method", std::string("block_smoother_solve takes block_jacobi "
                                                      "or block_gs, not ") +
                                              to_string(method));
    }
    const index_t n = A.rows();
    SolveResult result;
    const double bnorm = vec::norm2(b, n);
    if (!std::isfinite(bnorm)) {
        result.status = SolveStatus::non_finite;
        result.detail = "||b|| is not finite";
        return result;
    }
    if (bnorm == 0.0) {  // x = 0 is exact
        std::fill(x, x + n, 0.0);
        result.status = SolveStatus::converged;
        result.history = {0.0};
        return result;
    }
    std::vector<double> r(static_cast<std::size_t>(n)), work;
    if (method == Method::block_jacobi) work.resize(static_cast<std::size_t>(n));
    // Records the true residual after `sweeps` sweeps; true when the solve must stop.
    const auto record = [&](int sweeps) {
        const double rel = residual(A, b, x, r.data()) / bnorm;
        result.iterations = sweeps;
        result.relative_residual = rel;
        result.true_relative_residual = rel;
        result.history.push_back(rel);
        if (options.progress) options.progress(sweeps, rel);
        if (!std::isfinite(rel)) {
            result.status = SolveStatus::non_finite;
            result.detail = "the residual is not finite after sweep " + std::to_string(sweeps);
            return true;
        }
        if (rel <= options.tolerance) {
            result.status = SolveStatus::converged;
            return true;
        }
        return false;
    };
    if (record(0)) return result;
    for (int sweep = 1; sweep <= options.max_iterations; ++sweep) {
        if (method == Method::block_jacobi) {
            block_jacobi_sweep(A, F, b, x, omega, work.data());
        } else {
            block_gs_sweep(A, F, b, x, omega);
        }
        if (record(sweep)) return result;
    }
    result.status = SolveStatus::max_iterations;
    return result;
}

GHMatrix poisson_matrix(int nx, int ny, int nz) {
    GHMatrix A(nx, ny, nz, 1);
    for (index_t m = 0; m < A.num_cells(); ++m) {
        for (int d = 0; d < kStencilSize; ++d) {
            if (d == kCenter) {
                A.at(d, m, 0, 0) = 6.0;
            } else if (A.has_neighbour(m, d)) {
                A.at(d, m, 0, 0) = -1.0;
            }
        }
    }
    return A;
}

}  // namespace heptane
