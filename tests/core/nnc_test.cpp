// Non-neighbour connections of the GH matrix (design decision 63): their layout, the products
// of every CPU layout against an assembled Eigen matrix, the CSR and BSR conversions and the
// block Gauss-Seidel smoother's rows.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <stdexcept>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/base/random.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_smoothers.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

/// The matrix assembled entry by entry from its definition (stencil, connections, wells).
Eigen::MatrixXd dense(const GHMatrix& A) {
    const int K = A.block_size();
    const index_t M = A.num_cells(), mk = A.cell_unknowns();
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(A.rows(), A.rows());
    const auto off = A.offsets();
    for (index_t m = 0; m < M; ++m) {
        for (int d = 0; d < kStencilSize; ++d) {
            if (!A.has_neighbour(m, d)) continue;
            for (int r = 0; r < K; ++r)
                for (int c = 0; c < K; ++c) D(m * K + r, (m + off[d]) * K + c) += A.at(d, m, r, c);
        }
        if (!A.has_nnc()) continue;
        for (index_t e = A.nnc().ptr[m]; e < A.nnc().ptr[m + 1]; ++e) {
            for (int r = 0; r < K; ++r)
                for (int c = 0; c < K; ++c)
                    D(m * K + r, A.nnc().col[e] * K + c) += A.nnc().vals[(e * K + r) * K + c];
        }
    }
    const WellArrays& w = A.wells();
    for (index_t q = 0; q < A.num_wells(); ++q) {
        for (index_t v = 0; v < w.count[q] * K; ++v) {
            D(mk + q, w.cell0[q] * K + v) = w.w_vals[w.first[q] + v];
            D(w.cell0[q] * K + v, mk + q) = w.wt_vals[w.first[q] + v];
        }
        D(mk + q, mk + q) = w.d[q];
    }
    return D;
}

double max_diff(const std::vector<double>& a, const Eigen::VectorXd& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b(i)));
    return worst;
}

TEST(Nnc, LayoutHoldsEachConnectionInBothRowsWithItsMirror) {
    const NncArrays n = nnc_layout(10, 2, {{7, 2}, {2, 9}, {0, 7}});
    ASSERT_EQ(n.ptr.size(), 11u);
    EXPECT_EQ(n.num_entries(), 6);
    EXPECT_EQ(n.vals.size(), 24u);
    const std::vector<index_t> ptr{0, 1, 1, 3, 3, 3, 3, 3, 5, 5, 6};
    EXPECT_EQ(n.ptr, ptr);
    const std::vector<index_t> col{7, 7, 9, 0, 2, 2};
    EXPECT_EQ(n.col, col);
    for (index_t row = 0; row < 10; ++row) {
        for (index_t e = n.ptr[row]; e < n.ptr[row + 1]; ++e) {
            const index_t t = n.mirror[e];
            EXPECT_EQ(n.col[t], row) << e;
            EXPECT_EQ(n.mirror[t], e) << e;
        }
    }
    EXPECT_THROW(nnc_layout(10, 2, {{1, 2}, {2, 1}}), std::invalid_argument);  // twice
    EXPECT_THROW(nnc_layout(10, 2, {{3, 3}}), std::invalid_argument);
    EXPECT_THROW(nnc_layout(10, 2, {{3, 10}}), std::invalid_argument);
}

TEST(Nnc, WindowKeepsTheConnectionsInsideRenumberedWithTheirValues) {
    // Cells 0..9, K = 2: connections (7, 2), (2, 9), (0, 7), (3, 5); the window [2, 8)
    // keeps (7, 2) and (3, 5) as (5, 0) and (1, 3), each entry its values and its mirror.
    NncArrays n = nnc_layout(10, 2, {{7, 2}, {2, 9}, {0, 7}, {3, 5}});
    for (std::size_t v = 0; v < n.vals.size(); ++v) n.vals[v] = 1.0 + static_cast<double>(v);
    std::vector<index_t> source;
    const NncArrays w = nnc_window(n, 2, 2, 6, &source);
    const std::vector<index_t> ptr{0, 1, 2, 2, 3, 3, 4}, col{5, 3, 1, 0};
    EXPECT_EQ(w.ptr, ptr);
    EXPECT_EQ(w.col, col);
    ASSERT_EQ(source.size(), 4u);
    ASSERT_EQ(w.vals.size(), 16u);
    for (std::size_t e = 0; e < source.size(); ++e) {
        EXPECT_EQ(n.col[source[e]], w.col[e] + 2) << e;  // the same entry of the whole
        for (std::size_t v = 0; v < 4; ++v)
            EXPECT_EQ(w.vals[e * 4 + v], n.vals[static_cast<std::size_t>(source[e]) * 4 + v]);
        EXPECT_EQ(w.col[w.mirror[e]], [&] {  // the mirror is the other row's entry
            for (index_t row = 0; row < 6; ++row)
                if (static_cast<index_t>(e) >= w.ptr[row] &&
                    static_cast<index_t>(e) < w.ptr[row + 1])
                    return row;
            return index_t{-1};
        }());
    }
    GHMatrix A(6, 1, 1, 2);  // 6 cells in a row: the window's layout is a matrix's
    EXPECT_NO_THROW(A.set_nnc(w));
    EXPECT_TRUE(nnc_window(n, 2, 8, 2).empty());  // (8, 9): none inside
    EXPECT_THROW(nnc_window(n, 2, 5, 6), std::invalid_argument);
}

TEST(Nnc, SetNncRefusesStencilBlocksAndBrokenMirrors) {
    GHMatrix A(3, 2, 2, 1);
    EXPECT_THROW(A.set_nnc(nnc_layout(A.num_cells(), 1, {{0, 1}})), std::invalid_argument);  // +k
    EXPECT_THROW(A.set_nnc(nnc_layout(A.num_cells(), 1, {{0, 4}})), std::invalid_argument);  // +i
    NncArrays n = nnc_layout(A.num_cells(), 1, {{0, 5}, {1, 6}});
    std::swap(n.mirror[0], n.mirror[1]);
    EXPECT_THROW(A.set_nnc(n), std::invalid_argument);
    EXPECT_THROW(A.set_nnc(nnc_layout(A.num_cells(), 2, {{0, 5}})), std::invalid_argument);  // K
    A.set_nnc(nnc_layout(A.num_cells(), 1, {{0, 5}, {1, 6}}));
    EXPECT_TRUE(A.has_nnc());
    EXPECT_EQ(A.nonzeros(), A.h_nonzeros() + 4);
}

// Every CPU product (the Bdia sweeps of each K, the cell-major layout from K = 6, the
// transposes) against the matrix assembled entry by entry; the cell-major and column-range
// products give the Bdia product's bits.
TEST(Nnc, EveryProductAddsTheConnections) {
    for (int K : {1, 2, 3, 6, 8}) {
        const GHMatrix A = test::with_connections(5, 4, 6, K, 11 + K);
        ASSERT_TRUE(A.has_nnc());
        const Eigen::MatrixXd D = dense(A);
        const std::vector<double> x = test::random_vector(static_cast<std::size_t>(A.rows()), 3);
        const Eigen::VectorXd xe = Eigen::Map<const Eigen::VectorXd>(x.data(), A.rows());
        const std::vector<double> y = spmv(A, x), yt = spmv_transpose(A, x);
        const double tol = test::gh_spmv_tolerance(A, x);
        EXPECT_LE(max_diff(y, D * xe), tol) << "K = " << K;
        EXPECT_LE(max_diff(yt, D.transpose() * xe), tol) << "K = " << K;
        // Without the connections the product misses them (the check can fail).
        GHMatrix plain = A;
        plain.set_nnc(NncArrays{});
        EXPECT_GT(max_diff(spmv(plain, x), D * xe), 100.0 * tol) << "K = " << K;

        for (bool transpose : {false, true}) {
            const CpuGHOperator op(A, true, transpose);
            std::vector<double> z(x.size());
            transpose ? op.apply_transpose(x.data(), z.data()) : op.apply(x.data(), z.data());
            EXPECT_EQ(z, transpose ? yt : y) << "K = " << K << ", cell-major";
            std::vector<double> part(x.size(), 0.0);
            const index_t columns = static_cast<index_t>(A.nx()) * A.ny();
            spmv_columns(A, x.data(), part.data(), {0, columns / 2, false}, transpose);
            spmv_columns(A, x.data(), part.data(), {columns / 2, columns, true}, transpose);
            EXPECT_EQ(part, transpose ? yt : y) << "K = " << K << ", column ranges";
        }
        // The conversions carry them, with each row's columns sorted.
        const Csr csr = to_csr(A);
        for (std::int32_t r = 0; r < csr.rows; ++r) {
            for (std::int32_t p = csr.row_ptr[r] + 1; p < csr.row_ptr[r + 1]; ++p)
                ASSERT_LT(csr.col[p - 1], csr.col[p]) << "row " << r;
        }
        EXPECT_LE(max_diff(spmv(csr, x), D * xe), tol) << "K = " << K << ", CSR";
        EXPECT_EQ(csr.val.size(), static_cast<std::size_t>(A.nonzeros()));
        const Bsr bsr = to_bsr(A);
        const std::vector<double> yb = unpad_vector(A, spmv(bsr, pad_vector(A, x)));
        EXPECT_LE(max_diff(yb, D * xe), tol) << "K = " << K << ", BSR";
    }
}

// Block Gauss-Seidel reads each block's residual row by row: with the connections' terms in
// it, the sweeps reach the system's solution (without them they would stall at another one).
TEST(Nnc, BlockGaussSeidelSolvesWithTheConnections) {
    const GHMatrix A = test::with_connections(6, 5, 8, 2, 5);
    const std::vector<double> b = test::random_vector(static_cast<std::size_t>(A.rows()), 8);
    const SpatialBlockFactors F = factor_spatial_blocks(A, {2, 2, 4});
    std::vector<double> x(b.size(), 0.0);
    SolveOptions options;
    options.tolerance = 1e-10;
    options.max_iterations = 400;
    const SolveResult r =
        block_smoother_solve(Method::block_gs, A, F, b.data(), x.data(), options, 1.0);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.relative_residual;
    EXPECT_LE(r.true_relative_residual, 1e-10);
}

}  // namespace
}  // namespace heptane
