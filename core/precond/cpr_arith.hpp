#pragma once
/// @file The arithmetic of CPR (core/precond/cpr.hpp), shared by the CPU reference and the
/// GPU kernels (gpu/src/precond/cpr.cu) so that both compute the same bits, setup included:
/// every product and sum rounded separately (core/base/canonical.hpp), sums in the order
/// written here. Small dense blocks are solved by Gaussian elimination with partial pivoting
/// (the first largest pivot in magnitude), not by a library.
#include <cmath>

#include "core/base/canonical.hpp"
#include "core/base/types.hpp"

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
            for (int j = 0; j < nrhs; ++j) rhs[i * nrhs + j] = sub(rhs[i * nrhs + j], mul(f, rhs[p * nrhs + j]));
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

/// Quasi-IMPES weights of one cell: D^T w = e_0 (D(r, c): the cell's K x K diagonal block,
/// column 0 the pressure), then w / max |w_r|, so that the pressure equations of cells of very
/// different transmissibility keep a comparable scale (unscaled, w ~ 1 / D: row m of the
/// pressure matrix is divided by the cell's total transmissibility, and the aggregates'
/// Galerkin row sums mix rows of scales 10^7 apart: design decision 36). False for a
/// singular block.
template <class D>
HEPTANE_HD bool quasi_impes_cell(D block, int K, double* w) {
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

/// sum_r w_r v(r), left to right.
template <class V>
HEPTANE_HD double weighted(const double* w, int K, V v) {
    double acc = canonical::mul(w[0], v(0));
    for (int r = 1; r < K; ++r) acc = canonical::add(acc, canonical::mul(w[r], v(r)));
    return acc;
}

/// A structured grid's sizes and the aggregation factor of one level.
struct LevelGrid {
    int nx, ny, nz;
    int fx, fy, fz;
    int cx, cy, cz;  ///< the coarse grid: ceil(n / f)
};

/// Cell (i, j, k)'s index, k fastest.
HEPTANE_HD inline long long cell_index(int i, int j, int k, int ny, int nz) {
    return (static_cast<long long>(i) * ny + j) * nz + k;
}

/// The coarse cell of fine cell (i, j, k).
HEPTANE_HD inline long long coarse_of(const LevelGrid& g, int i, int j, int k) {
    return cell_index(i / g.fx, j / g.fy, k / g.fz, g.cy, g.cz);
}

/// f(m) for the fine cells of coarse cell (ic, jc, kc) in increasing index order (the order
/// every aggregate sum takes).
template <class F>
HEPTANE_HD void each_member(const LevelGrid& g, int ic, int jc, int kc, F f) {
    const int i1 = (ic + 1) * g.fx < g.nx ? (ic + 1) * g.fx : g.nx;
    const int j1 = (jc + 1) * g.fy < g.ny ? (jc + 1) * g.fy : g.ny;
    const int k1 = (kc + 1) * g.fz < g.nz ? (kc + 1) * g.fz : g.nz;
    for (int i = ic * g.fx; i < i1; ++i)
        for (int j = jc * g.fy; j < j1; ++j)
            for (int k = kc * g.fz; k < k1; ++k) f(i, j, k);
}

/// Row mc of the Galerkin product R A P (piecewise-constant aggregation) of the cell part of
/// a K = 1 level: v[d] = the sum of A(d', m) over the fine cells m of mc and their neighbours
/// n across d' whose aggregate is mc's neighbour across d (or mc itself: d = centre).
/// a(d, m) reads the fine level's Bdia. Terms in member order, then diagonal order.
template <class A>
HEPTANE_HD void galerkin_row(const LevelGrid& g, long long mc, A a, double v[7]) {
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
            const bool same = in / g.fx == ic && jn / g.fy == jc && kn / g.fz == kc;
            const int to = same ? 3 : d;
            v[to] = canonical::add(v[to], a(d, m));
        }
    });
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
/// unusable pivot (usable_pivot with the largest entry of the matrix given).
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
        for (int j = 0; j < n; ++j) {
            a[p * n + j] = mul(a[p * n + j], s);
            inv[p * n + j] = mul(inv[p * n + j], s);
        }
        for (int i = 0; i < n; ++i) {
            if (i == p) continue;
            const double f = a[i * n + p];
            for (int j = 0; j < n; ++j) {
                a[i * n + j] = sub(a[i * n + j], mul(f, a[p * n + j]));
                inv[i * n + j] = sub(inv[i * n + j], mul(f, inv[p * n + j]));
            }
        }
    }
    return true;
}

/// Row i of the dense row-major n x n `inv` times b, left to right.
HEPTANE_HD inline double dense_row(const double* inv, int n, int i, const double* b) {
    const double* a = inv + static_cast<long long>(i) * n;
    double acc = canonical::mul(a[0], b[0]);
    for (int j = 1; j < n; ++j) acc = canonical::add(acc, canonical::mul(a[j], b[j]));
    return acc;
}

}  // namespace heptane::cpr
