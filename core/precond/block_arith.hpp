#pragma once
/// @file The arithmetic of the block preconditioners and smoothers (seed 003), shared by the
/// CPU reference (core/precond/block_smoothers.cpp) and the GPU kernels
/// (gpu/src/precond/block_smoothers.cu, the fused in-kernel BiCGStab), so that both compute the
/// same bits (canonical arithmetic, design decision 16: every product and sum rounded separately,
/// sums left to right).
///
/// Inverses and pivot inverses are stored column-major per block: entry (r, c) of an n x n
/// block at inv[c n + r], so on the device the threads of consecutive rows read consecutive
/// addresses (seed 003 section 2.1: "the matrix is stored in column-major ordering").
#include "core/base/canonical.hpp"
#include "core/base/types.hpp"

namespace heptane::block {

/// Bdia entry (d, r, c) of cell m, for a Bdia whose planes hold `plane` cells (the host's
/// GHMatrix: plane = M; the device pads planes to a multiple of 32).
struct BdiaRef {
    const double* v;
    long long plane;
    int K;
    HEPTANE_HD double operator()(int d, int r, int c, long long m) const {
        return v[((static_cast<long long>(d) * K + r) * K + c) * plane + m];
    }
};

/// Row r of inv x for a column-major n x n block: inv(r, 0) x(0) + inv(r, 1) x(1) + ...,
/// summed left to right. x(c) returns the c-th entry of the block's vector.
template <class X>
HEPTANE_HD inline double inverse_row(const double* inv, int n, int r, X x) {
    double acc = canonical::mul(inv[r], x(0));
    for (int c = 1; c < n; ++c) {
        acc = canonical::add(acc, canonical::mul(inv[static_cast<long long>(c) * n + r], x(c)));
    }
    return acc;
}

/// Row r of inv^T x for a column-major n x n block: inv(0, r) x(0) + inv(1, r) x(1) + ...,
/// summed left to right (the transpose's counterpart of inverse_row: M^{-T} for QMR).
template <class X>
HEPTANE_HD inline double inverse_transpose_row(const double* inv, int n, int r, X x) {
    const double* col = inv + static_cast<long long>(r) * n;
    double acc = canonical::mul(col[0], x(0));
    for (int c = 1; c < n; ++c) acc = canonical::add(acc, canonical::mul(col[c], x(c)));
    return acc;
}

/// z = M^{-1} y on one vertical line (the column of cells m0 .. m0 + nz - 1), M the block
/// tridiagonal part of A on it: D_k = A(3), L_k = A(2) (coupling to the cell above, k - 1),
/// U_k = A(4) (to the cell below, k + 1). Block Thomas with the precomputed pivot inverses
/// pinv_k = P_k^{-1}, P_0 = D_0, P_k = D_k - L_k P_{k-1}^{-1} U_{k-1} (cell m0 + k's K x K
/// block at pinv + k K^2, column-major):
///   forward   g_k = P_k^{-1} (y_k - L_k g_{k-1})
///   backward  z_k = g_k - P_k^{-1} (U_k z_{k+1})
/// y(i) reads and z(i) references the scalar unknown i (= m K + c); z holds g in between.
/// A is a BdiaRef or anything with the same K member and call operator (the device keeps
/// only diagonals 2 and 4 for this).
/// Row sums left to right: w_r = ((y_r - L(r,0) g_0) - L(r,1) g_1) ...;
/// u_r = (U(r,0) z_0 + U(r,1) z_1) + ...
/// line_solve runs line_forward_step down the column and line_backward_step up it; the CPU
/// runs the same steps on several columns side by side (their chains overlap).
/// line_solve's forward step at cell m (first: the column's top cell), p its pivot inverse;
/// kTranspose: line_solve_transpose's (U_{k-1}^T below, P_k^{-T}).
template <bool kTranspose = false, class Bdia, class Y, class Z>
HEPTANE_HD inline void line_forward_step(const Bdia& A, const double* p, long long m, bool first,
                                         Y y, Z z) {
    using namespace canonical;
    const int K = A.K;
    double w[kMaxBlockSize];
    for (int r = 0; r < K; ++r) {
        double acc = y(m * K + r);
        if (!first) {
            for (int c = 0; c < K; ++c) {
                const double a = kTranspose ? A(4, c, r, m - 1) : A(2, r, c, m);
                acc = sub(acc, mul(a, z((m - 1) * K + c)));
            }
        }
        w[r] = acc;
    }
    const auto wc = [&](int c) { return w[c]; };
    for (int r = 0; r < K; ++r) {
        z(m * K + r) = kTranspose ? inverse_transpose_row(p, K, r, wc) : inverse_row(p, K, r, wc);
    }
}

/// line_solve's backward step at cell m (not the column's last), p its pivot inverse;
/// kTranspose: line_solve_transpose's (L_{k+1}^T above, P_k^{-T}).
template <bool kTranspose = false, class Bdia, class Z>
HEPTANE_HD inline void line_backward_step(const Bdia& A, const double* p, long long m, Z z) {
    using namespace canonical;
    const int K = A.K;
    const auto a = [&](int r, int c) { return kTranspose ? A(2, c, r, m + 1) : A(4, r, c, m); };
    double w[kMaxBlockSize];
    for (int r = 0; r < K; ++r) {
        double acc = mul(a(r, 0), z((m + 1) * K));
        for (int c = 1; c < K; ++c) acc = add(acc, mul(a(r, c), z((m + 1) * K + c)));
        w[r] = acc;
    }
    const auto wc = [&](int c) { return w[c]; };
    for (int r = 0; r < K; ++r) {
        const double u = kTranspose ? inverse_transpose_row(p, K, r, wc) : inverse_row(p, K, r, wc);
        z(m * K + r) = sub(z(m * K + r), u);
    }
}

template <class Bdia, class Y, class Z>
HEPTANE_HD inline void line_solve(const Bdia& A, const double* pinv, long long m0, int nz, Y y,
                                  Z z) {
    const long long kk = static_cast<long long>(A.K) * A.K;
    for (int k = 0; k < nz; ++k) line_forward_step(A, pinv + k * kk, m0 + k, k == 0, y, z);
    for (int k = nz - 2; k >= 0; --k) line_backward_step(A, pinv + k * kk, m0 + k, z);
}

/// z = M^{-T} y on one vertical line (the transpose of line_solve, QMR). M^T is block
/// tridiagonal with D_k^T on the diagonal, U_{k-1}^T below and L_{k+1}^T above; its Thomas
/// pivots are P_k^T, so with the same pivot inverses:
///   forward   g_k = P_k^{-T} (y_k - U_{k-1}^T g_{k-1})
///   backward  z_k = g_k - P_k^{-T} (L_{k+1}^T z_{k+1})
/// (U^T g)_r = sum_c U(c, r) g_c subtracted term by term; (L^T z)_r summed left to right.
template <class Bdia, class Y, class Z>
HEPTANE_HD inline void line_solve_transpose(const Bdia& A, const double* pinv, long long m0, int nz,
                                            Y y, Z z) {
    const long long kk = static_cast<long long>(A.K) * A.K;
    for (int k = 0; k < nz; ++k) line_forward_step<true>(A, pinv + k * kk, m0 + k, k == 0, y, z);
    for (int k = nz - 2; k >= 0; --k) line_backward_step<true>(A, pinv + k * kk, m0 + k, z);
}

/// The cells of spatial block (bi, bj, bk) of a blocking with shape (bx, by, bz) on an
/// nx x ny x nz grid: origin (bi bx, bj by, bk bz), extent clipped at the grid's edge (an
/// edge block is smaller; it is factored exactly, never overlapped). The block's local rows
/// follow the global order: cell (li, lj, lk) (lk fastest), component c at
/// ((li ey + lj) ez + lk) K + c.
struct SpatialBlock {
    int i0, j0, k0;  ///< origin
    int ex, ey, ez;  ///< extent in cells
    HEPTANE_HD int cells() const { return ex * ey * ez; }
    /// Global cell of local cell index l (0 .. cells() - 1), for an ny x nz grid.
    HEPTANE_HD long long cell(int l, int ny, int nz) const {
        const int lk = l % ez, lj = (l / ez) % ey, li = l / (ez * ey);
        return static_cast<long long>(nz) * (static_cast<long long>(i0 + li) * ny + (j0 + lj)) +
               (k0 + lk);
    }
};

/// Spatial block b (bk fastest: b = bk + nbz (bj + nby bi)) of shape (bx, by, bz) with
/// (nbx, nby, nbz) blocks per axis on an nx x ny x nz grid.
HEPTANE_HD inline SpatialBlock spatial_block(long long b, int bx, int by, int bz, int nby, int nbz,
                                             int nx, int ny, int nz) {
    const int bk = static_cast<int>(b % nbz), bj = static_cast<int>((b / nbz) % nby),
              bi = static_cast<int>(b / (static_cast<long long>(nbz) * nby));
    SpatialBlock s;
    s.i0 = bi * bx;
    s.j0 = bj * by;
    s.k0 = bk * bz;
    s.ex = (nx - s.i0 < bx) ? nx - s.i0 : bx;
    s.ey = (ny - s.j0 < by) ? ny - s.j0 : by;
    s.ez = (nz - s.k0 < bz) ? nz - s.k0 : bz;
    return s;
}

}  // namespace heptane::block
