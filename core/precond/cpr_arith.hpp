#pragma once
/// @file The arithmetic of CPR (core/precond/cpr.hpp), shared by the CPU reference and the
/// GPU kernels (gpu/src/precond/cpr.cu) so that both compute the same bits, setup included:
/// every product and sum rounded separately (core/base/canonical.hpp), sums in the order
/// written here. Small dense blocks are solved by Gaussian elimination with partial pivoting
/// (the first largest pivot in magnitude), not by a library.
#include <cmath>
#include <cstdint>

#include "core/base/canonical.hpp"
#include "core/base/types.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/precond/block_arith.hpp"

namespace heptane::cpr {

/// Whether v is usable as a pivot: finite and not zero.
HEPTANE_HD inline bool usable_pivot(double v) { return v != 0.0 && std::isfinite(v); }

/// A pivot of an elimination on an n x n matrix whose largest entry is `big` is usable when
/// finite and above n 1e-14 big in magnitude (below it, rounding is all it holds: a singular
/// matrix shows a pivot of that size rather than exactly zero).
HEPTANE_HD inline bool usable_pivot(double v, int n, double big) {
    return std::isfinite(v) && std::fabs(v) > n * 1e-14 * big;
}

/// The largest |a_i| of n values.
HEPTANE_HD inline double largest(const double* a, int n) {
    double big = 0.0;
    for (int i = 0; i < n; ++i) big = std::fabs(a[i]) > big ? std::fabs(a[i]) : big;
    return big;
}

/// Gaussian elimination with partial pivoting on the n x n row-major a and the right-hand
/// sides (`nrhs` columns, row-major n x nrhs) of `rhs`, both overwritten; the solution in
/// rhs. False for an unusable pivot (usable_pivot with the largest entry of a).
HEPTANE_HD inline bool gauss_solve(double* a, double* rhs, int n, int nrhs) {
    using namespace canonical;
    const double big = largest(a, n * n);
    for (int p = 0; p < n; ++p) {
        int piv = p;
        for (int i = p + 1; i < n; ++i) {
            if (std::fabs(a[i * n + p]) > std::fabs(a[piv * n + p])) piv = i;
        }
        if (!usable_pivot(a[piv * n + p], n, big)) return false;
        if (piv != p) {
            for (int j = 0; j < n; ++j) {
                const double t = a[p * n + j];
                a[p * n + j] = a[piv * n + j];
                a[piv * n + j] = t;
            }
            for (int j = 0; j < nrhs; ++j) {
                const double t = rhs[p * nrhs + j];
                rhs[p * nrhs + j] = rhs[piv * nrhs + j];
                rhs[piv * nrhs + j] = t;
            }
        }
        for (int i = p + 1; i < n; ++i) {
            const double f = a[i * n + p] / a[p * n + p];
            for (int j = p + 1; j < n; ++j) a[i * n + j] = sub(a[i * n + j], mul(f, a[p * n + j]));
            for (int j = 0; j < nrhs; ++j)
                rhs[i * nrhs + j] = sub(rhs[i * nrhs + j], mul(f, rhs[p * nrhs + j]));
        }
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int j = 0; j < nrhs; ++j) {
            double acc = rhs[i * nrhs + j];
            for (int c = i + 1; c < n; ++c) acc = sub(acc, mul(a[i * n + c], rhs[c * nrhs + j]));
            rhs[i * nrhs + j] = acc / a[i * n + i];
        }
    }
    for (int i = 0; i < n * nrhs; ++i) {
        if (!std::isfinite(rhs[i])) return false;
    }
    return true;
}

/// IMPES weights of one cell: D^T w = e_0 (D(r, c): the cell's K x K diagonal block for
/// quasi-IMPES, its accumulation term's part for true-IMPES; column 0 the pressure), then w / max
/// |w_r|, so that the pressure equations of cells of very different transmissibility keep a
/// comparable scale (unscaled, w ~ 1 / D: row m of the pressure matrix is divided by the cell's
/// total transmissibility, and the aggregates' Galerkin row sums mix rows of scales 10^7 apart:
/// design decision 36). False for a singular block.
template <class D>
HEPTANE_HD bool impes_cell(D block, int K, double* w) {
    double a[kMaxBlockSize * kMaxBlockSize];
    for (int r = 0; r < K; ++r) {
        for (int c = 0; c < K; ++c) a[r * K + c] = block(c, r);  // D^T
        w[r] = r == 0 ? 1.0 : 0.0;
    }
    if (!gauss_solve(a, w, K, 1)) return false;
    double big = 0.0;
    for (int r = 0; r < K; ++r) big = std::fabs(w[r]) > big ? std::fabs(w[r]) : big;
    if (!usable_pivot(big)) return false;
    for (int r = 0; r < K; ++r) w[r] = w[r] / big;
    return true;
}

/// The inverse of one K x K block (D(r, c)), column-major into inv (entry (r, c) at
/// inv[c K + r], as block::inverse_row reads it). False for a singular block.
template <class D>
HEPTANE_HD bool invert_cell(D block, int K, double* inv) {
    double a[kMaxBlockSize * kMaxBlockSize], x[kMaxBlockSize * kMaxBlockSize];
    for (int r = 0; r < K; ++r) {
        for (int c = 0; c < K; ++c) {
            a[r * K + c] = block(r, c);
            x[r * K + c] = r == c ? 1.0 : 0.0;
        }
    }
    if (!gauss_solve(a, x, K, K)) return false;
    for (int r = 0; r < K; ++r)
        for (int c = 0; c < K; ++c) inv[c * K + r] = x[r * K + c];
    return true;
}

/// Vertical-line Jacobi's block Thomas pivots of one column, cells m0 .. m0 + nz - 1 (A(d, r,
/// c, m) reads Bdia): P_0 = D_0, P_k = D_k - (L_k P_{k-1}^{-1}) U_{k-1} (each product's sums
/// left to right), each inverted by invert_cell into pinv + k K^2 (column-major, as
/// block::line_solve reads it). Returns the first k whose pivot is unusable (the pivots below
/// it are not computed), or -1. The host's factor_lines and the device's factorization both
/// run it: the same bits.
template <class A>
HEPTANE_HD int line_block_pivots(const A& a, int K, long long m0, int nz, double* pinv) {
    using namespace canonical;
    const long long kk = static_cast<long long>(K) * K;
    double lp[kMaxBlockSize * kMaxBlockSize];  // L_k P_{k-1}^{-1}, row-major
    for (int k = 0; k < nz; ++k) {
        const long long m = m0 + k;
        if (k > 0) {
            const double* prev = pinv + (k - 1) * kk;  // (r, c) at prev[c K + r]
            for (int r = 0; r < K; ++r) {
                for (int c = 0; c < K; ++c) {
                    double acc = mul(a(2, r, 0, m), prev[c * K]);
                    for (int j = 1; j < K; ++j) acc = add(acc, mul(a(2, r, j, m), prev[c * K + j]));
                    lp[r * K + c] = acc;
                }
            }
        }
        const auto pivot = [&](int r, int c) {
            const double d = a(3, r, c, m);
            if (k == 0) return d;
            double acc = mul(lp[r * K], a(4, 0, c, m - 1));
            for (int j = 1; j < K; ++j) acc = add(acc, mul(lp[r * K + j], a(4, j, c, m - 1)));
            return sub(d, acc);
        };
        if (!invert_cell(pivot, K, pinv + k * kk)) return k;
    }
    return -1;
}

/// sum_r w_r v(r), left to right.
template <class V>
HEPTANE_HD double weighted(const double* w, int K, V v) {
    double acc = canonical::mul(w[0], v(0));
    for (int r = 1; r < K; ++r) acc = canonical::add(acc, canonical::mul(w[r], v(r)));
    return acc;
}

/// A structured grid's sizes and the aggregation factor of one level. sx: where a rank holds
/// a slab of a level (a distributed CPR on slabs, design decision 56), fine plane i of the
/// slab is plane i + sx of the coarse slab's aggregation, so aggregate I covers the fine
/// slab's planes [I fx - sx, (I + 1) fx - sx) (0: the whole level, or aligned slabs).
struct LevelGrid {
    int nx, ny, nz;
    int fx, fy, fz;
    int cx, cy, cz;  ///< the coarse grid: ceil(n / f)
    int sx = 0;
};

/// Cell (i, j, k)'s index, k fastest.
HEPTANE_HD inline long long cell_index(int i, int j, int k, int ny, int nz) {
    return (static_cast<long long>(i) * ny + j) * nz + k;
}

/// The coarse cell of fine cell (i, j, k).
HEPTANE_HD inline long long coarse_of(const LevelGrid& g, int i, int j, int k) {
    return cell_index((i + g.sx) / g.fx, j / g.fy, k / g.fz, g.cy, g.cz);
}

/// f(m) for the fine cells of coarse cell (ic, jc, kc) in increasing index order (the order
/// every aggregate sum takes).
template <class F>
HEPTANE_HD void each_member(const LevelGrid& g, int ic, int jc, int kc, F f) {
    const int i0 = ic * g.fx - g.sx > 0 ? ic * g.fx - g.sx : 0;
    const int i1 = (ic + 1) * g.fx - g.sx < g.nx ? (ic + 1) * g.fx - g.sx : g.nx;
    const int j1 = (jc + 1) * g.fy < g.ny ? (jc + 1) * g.fy : g.ny;
    const int k1 = (kc + 1) * g.fz < g.nz ? (kc + 1) * g.fz : g.nz;
    for (int i = i0; i < i1; ++i)
        for (int j = jc * g.fy; j < j1; ++j)
            for (int k = kc * g.fz; k < k1; ++k) f(i, j, k);
}

/// The connections of a matrix (core/matrix/gh_matrix.hpp NncArrays) as the CPR kernels read
/// them: row m's entries [ptr[m], ptr[m + 1]), their other cells and values (kk per entry: a
/// K x K block, row-major; 1 on a K = 1 level). ptr null: none (a system without connections,
/// and every multigrid level but 0). I: the index type (index_t on the host, the device's own).
template <class I>
struct NncRef {
    const I* ptr;
    const I* col;
    const double* vals;
};

/// Where the Galerkin product puts a connection between aggregate (ic, jc, kc) and the
/// aggregate (in, jn, kn) of its other cell: the aggregate itself (3), a face neighbour's
/// diagonal, or the face that keeps its horizontal direction: a pair one aggregate apart
/// along i (or j) and any distance along k (a fault's throw) goes to the +-i (+-j) face, a
/// pair of one column to the +-k face; any other pair (diagonal in i and j, or more than one
/// column apart) to the centre, where its coupling cancels its own term of the diagonal.
/// So a coarse operator stays 7-point and keeps every row sum (design decision 66).
HEPTANE_HD inline int coarse_face(int ic, int jc, int kc, int in, int jn, int kn) {
    const int di = in - ic, dj = jn - jc, dk = kn - kc;
    if (di == 0 && dj == 0) return dk == 0 ? 3 : (dk < 0 ? 2 : 4);
    if (dj == 0 && (di == 1 || di == -1)) return di < 0 ? 0 : 6;
    if (di == 0 && (dj == 1 || dj == -1)) return dj < 0 ? 1 : 5;
    return 3;
}

/// Row mc of the Galerkin product R A P (piecewise-constant aggregation) of the cell part of
/// a K = 1 level: v[d] = the sum of A(d', m) over the fine cells m of mc and their neighbours
/// n across d' whose aggregate is mc's neighbour across d (or mc itself: d = centre), and of
/// the fine cells' connections (nnc, level 0's: each where coarse_face puts it). a(d, m)
/// reads the fine level's Bdia. Terms in member order; a member's in diagonal order, then its
/// connections in their row's order.
template <class A, class I>
HEPTANE_HD void galerkin_row(const LevelGrid& g, long long mc, A a, const NncRef<I>& nnc,
                             double v[7]) {
    const int kc = static_cast<int>(mc % g.cz);
    const int jc = static_cast<int>((mc / g.cz) % g.cy);
    const int ic = static_cast<int>(mc / (static_cast<long long>(g.cz) * g.cy));
    for (int d = 0; d < 7; ++d) v[d] = 0.0;
    each_member(g, ic, jc, kc, [&](int i, int j, int k) {
        const long long m = cell_index(i, j, k, g.ny, g.nz);
        // the neighbour across d: (-i, -j, -k, self, +k, +j, +i)
        const int di[7] = {-1, 0, 0, 0, 0, 0, 1}, dj[7] = {0, -1, 0, 0, 0, 1, 0},
                  dk[7] = {0, 0, -1, 0, 1, 0, 0};
        for (int d = 0; d < 7; ++d) {
            const int in = i + di[d], jn = j + dj[d], kn = k + dk[d];
            if (in < 0 || in >= g.nx || jn < 0 || jn >= g.ny || kn < 0 || kn >= g.nz) continue;
            const bool same = (in + g.sx) / g.fx == ic && jn / g.fy == jc && kn / g.fz == kc;
            const int to = same ? 3 : d;
            v[to] = canonical::add(v[to], a(d, m));
        }
        if (nnc.ptr == nullptr) return;
        for (I e = nnc.ptr[m]; e < nnc.ptr[m + 1]; ++e) {
            const long long n = nnc.col[e];
            const int kn = static_cast<int>(n % g.nz);
            const int jn = static_cast<int>((n / g.nz) % g.ny);
            const int in = static_cast<int>(n / (static_cast<long long>(g.nz) * g.ny));
            const int to = coarse_face(ic, jc, kc, (in + g.sx) / g.fx, jn / g.fy, kn / g.fz);
            v[to] = canonical::add(v[to], nnc.vals[e]);
        }
    });
}

/// A K = 1 level's compact well arrays (core/matrix/gh_matrix.hpp WellArrays; I: the
/// index type, index_t on the host, int on the device); well_of_column null: no wells.
template <class I>
struct WellsRef {
    const std::int32_t* well_of_column;
    const I* cell0;
    const I* count;
    const I* first;
    const double* w;   ///< d eq_w / d p(m), a value per perforation
    const double* wt;  ///< d eq_m / d p_bh
    const double* d;
    int nw;
};

/// Row m (a cell) of a K = 1 level times x, as core/spmv/spmv.cpp sums it: the diagonals
/// d = 0 .. 6 with has[d] (a neighbour), at offsets off[d], then the row's connections, then
/// the term of well w (-1: none; the column's well, which perforates m or not) with the
/// level's `cells` cells. a(d, m) reads the level's Bdia. The CPU's column loops know has[]
/// and w per column.
template <class A, class I, class J>
HEPTANE_HD double cell_row_at(A a, const long long (&off)[7], const bool (&has)[7], long long m,
                              const double* x, const WellsRef<I>& wells, int w, long long cells,
                              const NncRef<J>& nnc) {
    double acc = 0.0;
    for (int d = 0; d < 7; ++d) {
        if (has[d]) acc = canonical::mul_add(a(d, m), x[m + off[d]], acc);
    }
    if (nnc.ptr != nullptr) {
        for (J e = nnc.ptr[m]; e < nnc.ptr[m + 1]; ++e)
            acc = canonical::mul_add(nnc.vals[e], x[nnc.col[e]], acc);
    }
    if (w >= 0 && m >= wells.cell0[w] && m < wells.cell0[w] + wells.count[w]) {
        acc =
            canonical::mul_add(wells.wt[wells.first[w] + (m - wells.cell0[w])], x[cells + w], acc);
    }
    return acc;
}

/// The stencil's offsets on an ny x nz grid (cell_row_at's off).
HEPTANE_HD inline void stencil_offsets7(int ny, int nz, long long (&off)[7]) {
    off[0] = -static_cast<long long>(nz) * ny, off[1] = -nz, off[2] = -1, off[3] = 0;
    off[4] = 1, off[5] = nz, off[6] = static_cast<long long>(nz) * ny;
}

/// Which of cell (i, j, k)'s neighbours exist on an nx x ny x nz grid (cell_row_at's has).
HEPTANE_HD inline void stencil_has(int nx, int ny, int nz, int i, int j, int k, bool (&has)[7]) {
    has[0] = i > 0, has[1] = j > 0, has[2] = k > 0, has[3] = true;
    has[4] = k < nz - 1, has[5] = j < ny - 1, has[6] = i < nx - 1;
}

/// Row m (a cell) of a K = 1 level times x (cell_row_at, the tests from m).
template <class A, class I, class J>
HEPTANE_HD double cell_row(A a, int nx, int ny, int nz, long long m, const double* x,
                           const WellsRef<I>& wells, const NncRef<J>& nnc) {
    long long off[7];
    stencil_offsets7(ny, nz, off);
    bool has[7];
    const long long col = m / nz;
    stencil_has(nx, ny, nz, static_cast<int>(col / ny), static_cast<int>(col % ny),
                static_cast<int>(m % nz), has);
    const int w = wells.well_of_column != nullptr ? wells.well_of_column[col] : -1;
    return cell_row_at(a, off, has, m, x, wells, w, static_cast<long long>(nx) * ny * nz, nnc);
}

/// Row `cells + w` (well w) of a K = 1 level times x, as core/spmv/spmv.cpp sums it.
template <class I>
HEPTANE_HD double well_row(const WellsRef<I>& wells, int w, long long cells, const double* x) {
    double sum = 0.0;
    for (long long v = 0; v < wells.count[w]; ++v) {
        sum = canonical::mul_add(wells.w[wells.first[w] + v], x[wells.cell0[w] + v], sum);
    }
    return canonical::mul_add(wells.d[w], x[cells + w], sum);
}

/// Stage 2 of CPR at cell m, straight from stage 1's x_p (the pressures of the cells, then
/// the wells'), without forming x = E x_p or the whole product A x:
///   s = r_m - (A E x_p)_m,   z_m = B_m^{-1} s + (E x_p)_m.
/// Row r of (A E x_p)_m sums A(d, m, r, 0) x_p(m + off[d]) over the diagonals d = 0 .. 6 that
/// have a neighbour, then the row's connections' (r, 0) entries times x_p of their other
/// cells (nnc: A's, K x K blocks), then, in a perforated cell, its well column times the
/// well's x_p: the order of core/spmv/spmv.cpp applied to E x_p, whose other components are
/// zero (their products add signed zeros only, so the sums are the same numbers; K - 1 of
/// every K columns of A are not read). a(d, r, c, m) reads A's Bdia; wt: the cell's K well-column
/// values (d eq_m / d p_bh) or null; xpw: that well's x_p; inv: B_m^{-1} (column-major K x K,
/// block::inverse_row); r and z: the cell's K entries. KMax >= K bounds the scratch (the
/// device's K = 2 kernel keeps it in registers: KMax = K = 2 known when compiled).
template <int KMax = kMaxBlockSize, class A, class J>
HEPTANE_HD void stage2_cell(A a, int K, int nx, int ny, int nz, long long m, const double* xp,
                            const NncRef<J>& nnc, const double* wt, double xpw, const double* r,
                            const double* inv, double* z) {
    using namespace canonical;
    const long long off[7] = {-static_cast<long long>(nz) * ny, -nz, -1, 0, 1, nz,
                              static_cast<long long>(nz) * ny};
    double s[KMax];
    for (int row = 0; row < K; ++row) {
        double acc = 0.0;
        for (int d = 0; d < 7; ++d) {
            if (stencil_has_neighbour(nx, ny, nz, m, d))
                acc = mul_add(a(d, row, 0, m), xp[m + off[d]], acc);
        }
        if (nnc.ptr != nullptr) {
            const long long kk = static_cast<long long>(K) * K;
            for (J e = nnc.ptr[m]; e < nnc.ptr[m + 1]; ++e)
                acc = mul_add(nnc.vals[e * kk + row * K], xp[nnc.col[e]], acc);
        }
        if (wt != nullptr) acc = mul_add(wt[row], xpw, acc);
        s[row] = sub(r[row], acc);
    }
    for (int c = 0; c < K; ++c) {
        const double v = block::inverse_row(inv, K, c, [&](int q) { return s[q]; });
        z[c] = add(v, c == 0 ? xp[m] : 0.0);
    }
}

/// Stage 2 at well w (stage2_cell's twin): its row of A E x_p is the perforations' pressure
/// terms W(l, 0) x_p(cell0 + l) in order, then D x_p(w); z_w = (r_w - that) / D + x_p(w).
/// wrow: the well's W values (K per perforated cell), inv_d = 1 / D.
HEPTANE_HD inline double stage2_well(const double* wrow, int K, long long cell0, long long count,
                                     double d, double inv_d, const double* xp, double xpw,
                                     double r) {
    using namespace canonical;
    double sum = 0.0;
    for (long long l = 0; l < count; ++l) sum = mul_add(wrow[l * K], xp[cell0 + l], sum);
    const double row = mul_add(d, xpw, sum);
    return add(mul(inv_d, sub(r, row)), xpw);
}

/// The pivot inverses of the vertical-line solve of a K = 1 level on the column of cells
/// m0 .. m0 + nz - 1 (block::line_solve with K = 1): p_0 = D_0, p_k = D_k - L_k (1 / p_{k-1})
/// U_{k-1}, pinv_k = 1 / p_k. a(d, m) reads the level's Bdia. False at an unusable pivot.
template <class A>
HEPTANE_HD bool line_pivots(A a, long long m0, int nz, double* pinv) {
    using namespace canonical;
    for (int k = 0; k < nz; ++k) {
        const long long m = m0 + k;
        double p = a(3, m);
        if (k > 0) p = sub(p, mul(mul(a(2, m), pinv[k - 1]), a(4, m - 1)));
        if (!usable_pivot(p)) return false;
        pinv[k] = 1.0 / p;
    }
    return true;
}

/// The inverse of the dense n x n row-major `a` (overwritten) into `inv` (row-major), by
/// Gauss-Jordan elimination with partial pivoting: for each column p the first largest
/// pivot in magnitude is swapped into row p, row p is scaled by 1 / pivot, and f_i = a(i, p)
/// times it is subtracted from every other row i. The device runs each step's entries in
/// parallel (gpu/src/precond/cpr.cu): every entry is the same sub(x, mul(f, y)). False at an
/// unusable pivot (usable_pivot with the largest entry of the matrix given). Columns j <= p
/// of `a` are not read again once column p is eliminated, so they are left as they are (the
/// device's k_dense_inverse updates them too: inv is the same bits either way); `a` is
/// scratch.
HEPTANE_HD inline bool dense_inverse(double* a, double* inv, int n) {
    using namespace canonical;
    for (int i = 0; i < n * n; ++i) inv[i] = i / n == i % n ? 1.0 : 0.0;
    const double big = largest(a, n * n);
    for (int p = 0; p < n; ++p) {
        int piv = p;
        for (int i = p + 1; i < n; ++i) {
            if (std::fabs(a[i * n + p]) > std::fabs(a[piv * n + p])) piv = i;
        }
        if (!usable_pivot(a[piv * n + p], n, big)) return false;
        for (int j = 0; j < n && piv != p; ++j) {
            double t = a[p * n + j];
            a[p * n + j] = a[piv * n + j];
            a[piv * n + j] = t;
            t = inv[p * n + j];
            inv[p * n + j] = inv[piv * n + j];
            inv[piv * n + j] = t;
        }
        const double s = 1.0 / a[p * n + p];
        for (int j = p + 1; j < n; ++j) a[p * n + j] = mul(a[p * n + j], s);
        for (int j = 0; j < n; ++j) inv[p * n + j] = mul(inv[p * n + j], s);
        for (int i = 0; i < n; ++i) {
            if (i == p) continue;
            const double f = a[i * n + p];
            for (int j = p + 1; j < n; ++j) a[i * n + j] = sub(a[i * n + j], mul(f, a[p * n + j]));
            for (int j = 0; j < n; ++j)
                inv[i * n + j] = sub(inv[i * n + j], mul(f, inv[p * n + j]));
        }
    }
    return true;
}

/// Entries per chunk of a dense row product.
constexpr int kDenseChunk = 32;

/// Chunk c of row i of the dense row-major n x n `inv` times b: entries c 32 .. c 32 + 31
/// (fewer in the last chunk), left to right.
HEPTANE_HD inline double dense_chunk(const double* inv, int n, int i, int c, const double* b) {
    const double* a = inv + static_cast<long long>(i) * n;
    const int j0 = c * kDenseChunk, j1 = j0 + kDenseChunk < n ? j0 + kDenseChunk : n;
    double acc = canonical::mul(a[j0], b[j0]);
    for (int j = j0 + 1; j < j1; ++j) acc = canonical::add(acc, canonical::mul(a[j], b[j]));
    return acc;
}

/// Row i of inv times b: the chunks' sums (dense_chunk), added left to right. The device
/// sums a row's chunks in parallel (the lanes of a warp), then the chunk sums.
HEPTANE_HD inline double dense_row(const double* inv, int n, int i, const double* b) {
    const int chunks = (n + kDenseChunk - 1) / kDenseChunk;
    double acc = dense_chunk(inv, n, i, 0, b);
    for (int c = 1; c < chunks; ++c) acc = canonical::add(acc, dense_chunk(inv, n, i, c, b));
    return acc;
}

/// The steps of the line solve of a K = 1 column (block::line_solve with K = 1, the same
/// operations): the top cell's g_0 = pinv_0 y_0, each next g_k = pinv_k (y_k - L_k g_{k-1})
/// going down, then z_k = g_k - pinv_k (U_k z_{k+1}) going up.
HEPTANE_HD inline double line1_top(double pinv, double y) { return canonical::mul(pinv, y); }
HEPTANE_HD inline double line1_down(double pinv, double y, double lower, double g_above) {
    using namespace canonical;
    return mul(pinv, sub(y, mul(lower, g_above)));
}
HEPTANE_HD inline double line1_up(double g, double pinv, double upper, double z_below) {
    using namespace canonical;
    return sub(g, mul(pinv, mul(upper, z_below)));
}

/// The line solve of a K = 1 column (line1_top, line1_down, line1_up), from arrays of the
/// column's own: lower[k] = A(2), upper[k] = A(4), the pivot inverses, y (read) and z
/// (written, not y). The recurrence is carried in a register and nothing aliases, so the
/// device's one thread per column can load ahead (a round trip through memory per layer
/// otherwise).
HEPTANE_HD inline void line_solve1(const double* __restrict__ lower,
                                   const double* __restrict__ upper,
                                   const double* __restrict__ pinv, const double* __restrict__ y,
                                   double* __restrict__ z, int nz) {
    double g = line1_top(pinv[0], y[0]);
    z[0] = g;
    for (int k = 1; k < nz; ++k) {
        g = line1_down(pinv[k], y[k], lower[k], g);
        z[k] = g;
    }
    for (int k = nz - 2; k >= 0; --k) {
        g = line1_up(z[k], pinv[k], upper[k], g);
        z[k] = g;
    }
}

}  // namespace heptane::cpr
