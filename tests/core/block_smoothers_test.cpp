// Block preconditioners and smoothers (seed 003): against dense Eigen inverses and solves,
// the exact-arithmetic contracts the GPU kernels are compared with bit for bit, transposes,
// errors and smoother convergence (preconditioned_krylov_test.cpp: the preconditioners inside
// the Krylov solvers, and thread-count independence).
#include "core/precond/block_smoothers.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <typeinfo>

#include "common/block_test_support.hpp"
#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/base/errors.hpp"
#include "core/base/random.hpp"
#include "core/base/vector_ops.hpp"
#include "core/matrix/formats.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

using Vec = std::vector<double>;
using test::norm;
using test::precondition;
using test::precondition_t;
using test::residual_norm;

Eigen::MatrixXd dense(const GHMatrix& A) { return Eigen::MatrixXd(to_eigen(to_csr(A))); }

Eigen::Map<const Eigen::VectorXd> view(const Vec& v) {
    return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

Vec to_vec(const Eigen::VectorXd& v) { return Vec(v.data(), v.data() + v.size()); }

/// The global scalar rows of spatial block s in its local order.
std::vector<index_t> block_rows(const GHMatrix& A, const block::SpatialBlock& s) {
    std::vector<index_t> rows;
    const int K = A.block_size();
    for (int l = 0; l < s.cells(); ++l) {
        for (int c = 0; c < K; ++c) rows.push_back(s.cell(l, A.ny(), A.nz()) * K + c);
    }
    return rows;
}

/// Zeroes the diagonals -i, -j, +j, +i, leaving the block tridiagonal vertical lines.
void keep_only_lines(GHMatrix& A) {
    for (int d : {0, 1, 5, 6}) {
        for (int r = 0; r < A.block_size(); ++r) {
            for (int c = 0; c < A.block_size(); ++c) {
                for (index_t m = 0; m < A.num_cells(); ++m) A.at(d, m, r, c) = 0.0;
            }
        }
    }
}

/// Cell index of (i, j, k).
index_t cell(const GHMatrix& A, int i, int j, int k) {
    return static_cast<index_t>(A.nz()) * (static_cast<index_t>(i) * A.ny() + j) + k;
}

/// Runs f and returns the InputError it throws (fails the test when it throws none).
template <class F>
InputError input_error(F f) {
    try {
        f();
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no InputError thrown";
    return InputError("", "");
}

// ---- point-block Jacobi -------------------------------------------------------------------

TEST(PointBlockJacobi, MatchesDenseInversesOfTheCellBlocks) {
    const auto model = test::synthetic_model(5, 4, 3, 3, test::corner_wells(5, 4, 3));
    const GHMatrix& A = model.system.matrix;
    const int K = 3;
    const PointBlockJacobi M(A);
    const Eigen::MatrixXd a = dense(A);
    const Vec r = test::random_vector(A.rows(), 11);
    Vec ref(r.size());
    for (index_t m = 0; m < A.num_cells(); ++m) {
        const Eigen::MatrixXd inv = a.block(m * K, m * K, K, K).inverse();
        // Layout: inv[m K^2 + c K + r] = (A_mm^{-1})(r, c).
        for (int row = 0; row < K; ++row) {
            for (int c = 0; c < K; ++c) {
                EXPECT_NEAR(M.factors().inv[(m * K + c) * K + row], inv(row, c),
                            1e-13 * inv.cwiseAbs().maxCoeff());
            }
        }
        const Eigen::VectorXd z = inv * view(r).segment(m * K, K);
        for (int row = 0; row < K; ++row) ref[m * K + row] = z(row);
    }
    ASSERT_EQ(A.num_wells(), 4);
    for (index_t w = 0; w < A.num_wells(); ++w) {
        const index_t i = A.cell_unknowns() + w;
        ref[i] = r[i] / a(i, i);
    }
    const Vec z = precondition(M, r);
    EXPECT_TRUE(test::vectors_near(ref, z, 1e-12 * test::max_abs(ref)));
}

TEST(PointBlockJacobi, ApplyIsTheContractFormulaBitForBit) {
    const auto model = test::synthetic_model(4, 3, 5, 2, test::corner_wells(4, 3, 5));
    const GHMatrix& A = model.system.matrix;
    const PointBlockJacobi M(A);
    const auto& f = M.factors();
    const int K = f.K;
    const Vec r = test::random_vector(A.rows(), 3);
    Vec ref(r.size());
    for (index_t m = 0; m < A.num_cells(); ++m) {
        for (int row = 0; row < K; ++row) {
            ref[m * K + row] =
                block::inverse_row(&f.inv[m * K * K], K, row, [&](int c) { return r[m * K + c]; });
        }
    }
    for (index_t w = 0; w < A.num_wells(); ++w) {
        ref[A.cell_unknowns() + w] = canonical::mul(f.inv_d[w], r[A.cell_unknowns() + w]);
    }
    EXPECT_EQ(precondition(M, r), ref);
}

// ---- vertical-line Jacobi ------------------------------------------------------------------

TEST(LineJacobi, InvertsABlockTridiagonalMatrix) {
    for (int K : {1, 2, 4}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        auto model = test::synthetic_model(3, 4, 6, K, {});
        GHMatrix& A = model.system.matrix;
        keep_only_lines(A);
        const LineJacobi M(A);
        const Vec x = test::random_vector(A.rows(), 5);
        const Vec z = precondition(M, spmv(A, x));
        EXPECT_TRUE(test::vectors_near(x, z, 1e-12 * test::max_abs(x)));
    }
}

TEST(LineJacobi, MatchesADenseSolveOfTheBlockTridiagonalPart) {
    const auto model = test::synthetic_model(4, 3, 7, 2, test::corner_wells(4, 3, 7));
    const GHMatrix& A = model.system.matrix;
    const int K = 2, nz = A.nz();
    // T: diagonals 2, 3, 4 of each vertical line, the wells' D.
    const index_t n = A.rows();
    Eigen::MatrixXd t = Eigen::MatrixXd::Zero(n, n);
    for (index_t m = 0; m < A.num_cells(); ++m) {
        const int k = static_cast<int>(m % nz);
        for (int r = 0; r < K; ++r) {
            for (int c = 0; c < K; ++c) {
                t(m * K + r, m * K + c) = A.at(3, m, r, c);
                if (k > 0) t(m * K + r, (m - 1) * K + c) = A.at(2, m, r, c);
                if (k < nz - 1) t(m * K + r, (m + 1) * K + c) = A.at(4, m, r, c);
            }
        }
    }
    for (index_t w = 0; w < A.num_wells(); ++w) {
        t(A.cell_unknowns() + w, A.cell_unknowns() + w) = A.wells().d[w];
    }
    const Vec y = test::random_vector(n, 8);
    const Vec ref = to_vec(t.partialPivLu().solve(view(y)));
    const LineJacobi M(A);
    EXPECT_TRUE(test::vectors_near(ref, precondition(M, y), 1e-12 * test::max_abs(ref)));
}

// The CPU apply runs several columns' steps side by side (K = 1: groups of four; 15 columns
// leave a remainder) and one at a time from K = 2: each column's bits are line_solve's (and
// the transpose's line_solve_transpose's).
TEST(LineJacobi, ApplyIsTheContractFormulaBitForBit) {
    for (int K : {1, 2, 3}) {
        for (bool transpose : {false, true}) {
            SCOPED_TRACE("K = " + std::to_string(K) + (transpose ? ", transpose" : ""));
            const auto model = test::synthetic_model(3, 5, 6, K, test::corner_wells(3, 5, 6));
            const GHMatrix& A = model.system.matrix;
            const LineJacobi M(A);
            const auto& f = M.factors();
            const int nz = A.nz();
            const Vec y = test::random_vector(A.rows(), 4);
            Vec ref(y.size());
            const block::BdiaRef bdia{A.bdia().data(), A.num_cells(), K};
            const auto in = [&](long long q) { return y[q]; };
            const auto out = [&](long long q) -> double& { return ref[q]; };
            for (int i = 0; i < A.nx(); ++i) {
                for (int j = 0; j < A.ny(); ++j) {
                    const index_t m0 = cell(A, i, j, 0);
                    transpose
                        ? block::line_solve_transpose(bdia, &f.pinv[m0 * K * K], m0, nz, in, out)
                        : block::line_solve(bdia, &f.pinv[m0 * K * K], m0, nz, in, out);
                }
            }
            for (index_t w = 0; w < A.num_wells(); ++w) {
                ref[A.cell_unknowns() + w] = canonical::mul(f.inv_d[w], y[A.cell_unknowns() + w]);
            }
            Vec z(y.size());
            transpose ? M.apply_transpose(y.data(), z.data()) : M.apply(y.data(), z.data());
            EXPECT_EQ(z, ref);
        }
    }
}

TEST(LineJacobi, OneLayerIsPointBlockJacobi) {
    const auto model = test::synthetic_model(4, 5, 1, 3, test::corner_wells(4, 5, 1));
    const GHMatrix& A = model.system.matrix;
    const Vec r = test::random_vector(A.rows(), 2);
    // The same operator; the factors round differently (line Jacobi: Eigen's LU, point-block
    // Jacobi: cpr::invert_cell, the arithmetic the device shares), so within rounding of
    // the K x K inverses applied to r.
    const Vec line = precondition(LineJacobi(A), r), point = precondition(PointBlockJacobi(A), r);
    ASSERT_EQ(line.size(), point.size());
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        worst = std::max(worst, std::abs(line[i] - point[i]));
        scale = std::max(scale, std::abs(point[i]));
    }
    EXPECT_LE(worst, 64 * std::numeric_limits<double>::epsilon() * scale);
    EXPECT_GT(scale, 0.0);
}

// ---- spatial-block Jacobi ------------------------------------------------------------------

TEST(SpatialBlocking, CountsAndClippedEdgeBlocks) {
    const SpatialBlocking s = make_blocking(5, 3, 7, {2, 2, 4});
    EXPECT_EQ(s.shape, (std::array<int, 3>{2, 2, 4}));
    EXPECT_EQ(s.count, (std::array<int, 3>{3, 2, 2}));
    ASSERT_EQ(s.blocks(), 12);
    // b = bk + nbz (bj + nby bi): block 0 at the origin, full size.
    const block::SpatialBlock b0 = s.block(0);
    EXPECT_EQ((std::array<int, 6>{b0.i0, b0.j0, b0.k0, b0.ex, b0.ey, b0.ez}),
              (std::array<int, 6>{0, 0, 0, 2, 2, 4}));
    // Block (bi, bj, bk) = (1, 0, 1): clipped in k only.
    const block::SpatialBlock b5 = s.block(1 + 2 * (0 + 2 * 1));
    EXPECT_EQ((std::array<int, 6>{b5.i0, b5.j0, b5.k0, b5.ex, b5.ey, b5.ez}),
              (std::array<int, 6>{2, 0, 4, 2, 2, 3}));
    // The last block is clipped on every axis.
    const block::SpatialBlock last = s.block(11);
    EXPECT_EQ((std::array<int, 6>{last.i0, last.j0, last.k0, last.ex, last.ey, last.ez}),
              (std::array<int, 6>{4, 2, 4, 1, 1, 3}));
    int cells = 0;
    for (index_t b = 0; b < s.blocks(); ++b) cells += s.block(b).cells();
    EXPECT_EQ(cells, 5 * 3 * 7);

    // A shape larger than the grid is clipped to it.
    const SpatialBlocking big = make_blocking(5, 3, 7, {8, 2, 100});
    EXPECT_EQ(big.shape, (std::array<int, 3>{5, 2, 7}));
    EXPECT_EQ(big.count, (std::array<int, 3>{1, 2, 1}));
}

TEST(SpatialBlockJacobi, WholeGridBlockIsAnExactSolve) {
    const auto model = test::synthetic_model(3, 4, 5, 2, {});
    const GHMatrix& A = model.system.matrix;
    const SpatialBlockJacobi M(A, {10, 10, 10});
    EXPECT_EQ(M.factors().blocking.blocks(), 1);
    EXPECT_EQ(M.factors().max_rows, 3 * 4 * 5 * 2);
    const Vec x = test::random_vector(A.rows(), 9);
    EXPECT_TRUE(test::vectors_near(x, precondition(M, spmv(A, x)), 1e-12 * test::max_abs(x)));
}

TEST(SpatialBlockJacobi, MatchesDenseInversesOfTheBlocksOnAnOddGrid) {
    const auto model = test::synthetic_model(5, 3, 7, 2, test::corner_wells(5, 3, 7));
    const GHMatrix& A = model.system.matrix;
    const SpatialBlockJacobi M(A, {2, 2, 4});
    const auto& f = M.factors();
    const Eigen::MatrixXd a = dense(A);
    const Vec r = test::random_vector(A.rows(), 21);
    Vec ref(r.size());
    ASSERT_EQ(f.offset.size(), 13u);
    int max_rows = 0;
    for (index_t b = 0; b < f.blocking.blocks(); ++b) {
        const std::vector<index_t> rows = block_rows(A, f.blocking.block(b));
        const int n = static_cast<int>(rows.size());
        max_rows = std::max(max_rows, n);
        EXPECT_EQ(f.offset[b + 1] - f.offset[b], static_cast<index_t>(n) * n);
        Eigen::MatrixXd ab(n, n);
        Eigen::VectorXd rb(n);
        for (int p = 0; p < n; ++p) {
            rb(p) = r[rows[p]];
            for (int q = 0; q < n; ++q) ab(p, q) = a(rows[p], rows[q]);
        }
        const Eigen::VectorXd zb = ab.partialPivLu().solve(rb);
        for (int p = 0; p < n; ++p) ref[rows[p]] = zb(p);
    }
    EXPECT_EQ(f.max_rows, max_rows);
    EXPECT_EQ(max_rows, 2 * 2 * 4 * 2);
    for (index_t w = 0; w < A.num_wells(); ++w) {
        const index_t i = A.cell_unknowns() + w;
        ref[i] = r[i] / a(i, i);
    }
    EXPECT_TRUE(test::vectors_near(ref, precondition(M, r), 1e-12 * test::max_abs(ref)));
}

// apply and apply_transpose against the row formulas (the CPU sums the rows side by side, the
// transpose in groups of eight: blocks of up to 2 x 2 x 4 cells of K = 2, 32 rows, and clipped
// edge blocks with a remainder).
TEST(SpatialBlockJacobi, ApplyIsTheContractFormulaBitForBit) {
    const auto model = test::synthetic_model(5, 3, 7, 2, test::corner_wells(5, 3, 7));
    const GHMatrix& A = model.system.matrix;
    const SpatialBlockJacobi M(A, {2, 2, 4});
    const auto& f = M.factors();
    const Vec r = test::random_vector(A.rows(), 6);
    for (bool transpose : {false, true}) {
        SCOPED_TRACE(transpose ? "apply_transpose" : "apply");
        Vec ref(r.size());
        for (index_t b = 0; b < f.blocking.blocks(); ++b) {
            const std::vector<index_t> rows = block_rows(A, f.blocking.block(b));
            const int n = static_cast<int>(rows.size());
            Vec gathered(n);
            for (int p = 0; p < n; ++p) gathered[p] = r[rows[p]];
            const auto x = [&](int c) { return gathered[c]; };
            for (int p = 0; p < n; ++p) {
                ref[rows[p]] = transpose
                                   ? block::inverse_transpose_row(&f.inv[f.offset[b]], n, p, x)
                                   : block::inverse_row(&f.inv[f.offset[b]], n, p, x);
            }
        }
        for (index_t w = 0; w < A.num_wells(); ++w) {
            ref[A.cell_unknowns() + w] = canonical::mul(f.inv_d[w], r[A.cell_unknowns() + w]);
        }
        Vec z(r.size());
        transpose ? M.apply_transpose(r.data(), z.data()) : M.apply(r.data(), z.data());
        EXPECT_EQ(z, ref);
    }
}

// ---- transposes ------------------------------------------------------------------------------

TEST(BlockPreconditioners, TransposeIsTheAdjoint) {
    const auto model = test::synthetic_model(4, 5, 6, 3, test::corner_wells(4, 5, 6));
    const GHMatrix& A = model.system.matrix;
    const PointBlockJacobi point(A);
    const LineJacobi line(A);
    const SpatialBlockJacobi spatial(A, {3, 2, 4});
    const Vec w = test::random_vector(A.rows(), 31), y = test::random_vector(A.rows(), 32);
    const index_t n = A.rows();
    for (const Preconditioner* M :
         {static_cast<const Preconditioner*>(&point), static_cast<const Preconditioner*>(&line),
          static_cast<const Preconditioner*>(&spatial)}) {
        // (w, M^{-T} y) = (M^{-1} w, y)
        const Vec mty = precondition_t(*M, y), mw = precondition(*M, w);
        const double lhs = vec::dot(w.data(), mty.data(), n);
        const double rhs = vec::dot(mw.data(), y.data(), n);
        EXPECT_NEAR(lhs, rhs, 1e-12 * norm(w) * norm(mty)) << typeid(*M).name();
        // And not trivially: M^{-T} differs from M^{-1} (the blocks are not symmetric).
        Vec diff(n);
        const Vec my = precondition(*M, y);
        for (index_t i = 0; i < n; ++i) diff[i] = my[i] - mty[i];
        EXPECT_GT(norm(diff), 1e-6 * norm(my)) << typeid(*M).name();
    }
}

// ---- errors ----------------------------------------------------------------------------------

TEST(BlockPreconditioners, SingularCellBlockNamesTheCell) {
    auto model = test::synthetic_model(3, 4, 2, 2, {});
    GHMatrix& A = model.system.matrix;
    const index_t m = cell(A, 1, 2, 0);
    for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < 2; ++c) A.at(kCenter, m, r, c) = 0.0;
    }
    for (const InputError& e :
         {input_error([&] { PointBlockJacobi p(A); }), input_error([&] { LineJacobi p(A); })}) {
        EXPECT_EQ(e.key(), "solver.preconditioner");
        EXPECT_NE(std::string(e.what()).find("solver.preconditioner"), std::string::npos);
        EXPECT_NE(e.detail().find("(1, 2, 0)"), std::string::npos) << e.detail();
    }
    // A 1 x 1 x 1 spatial block is the cell block itself; a bigger block around it is fine
    // (its off-diagonal couplings make it nonsingular).
    const InputError e = input_error([&] { SpatialBlockJacobi p(A, {1, 1, 1}); });
    EXPECT_EQ(e.key(), "solver.block_shape");
    EXPECT_NE(e.detail().find("(1, 2, 0)"), std::string::npos) << e.detail();
    EXPECT_NO_THROW(SpatialBlockJacobi(A, {2, 2, 2}));
}

TEST(BlockPreconditioners, IllConditionedCellBlockIsAnError) {
    auto model = test::synthetic_model(2, 2, 2, 2, {});
    GHMatrix& A = model.system.matrix;
    const index_t m = cell(A, 1, 0, 1);
    // [[1, 1], [1, 1 + 2^-52]]: reciprocal condition ~ 5e-17.
    A.at(kCenter, m, 0, 0) = A.at(kCenter, m, 0, 1) = A.at(kCenter, m, 1, 0) = 1.0;
    A.at(kCenter, m, 1, 1) = 1.0 + std::numeric_limits<double>::epsilon();
    const InputError e = input_error([&] { PointBlockJacobi p(A); });
    EXPECT_EQ(e.key(), "solver.preconditioner");
    EXPECT_NE(e.detail().find("(1, 0, 1)"), std::string::npos) << e.detail();
}

TEST(LineJacobi, SingularPivotBelowTheTopNamesItsCell) {
    // K = 1 line of 3 cells: D_0 = 1, U_0 = 1, L_1 = 1, D_1 = 1, so P_1 = 1 - 1 = 0 although
    // every diagonal block is nonsingular.
    GHMatrix A = poisson_matrix(1, 1, 3);
    A.at(3, 0, 0, 0) = A.at(4, 0, 0, 0) = A.at(2, 1, 0, 0) = A.at(3, 1, 0, 0) = 1.0;
    EXPECT_NO_THROW(PointBlockJacobi p(A));
    const InputError e = input_error([&] { LineJacobi p(A); });
    EXPECT_EQ(e.key(), "solver.preconditioner");
    EXPECT_NE(e.detail().find("(0, 0, 1)"), std::string::npos) << e.detail();
}

TEST(BlockPreconditioners, ZeroWellDiagonalIsAnError) {
    auto model = test::synthetic_model(3, 3, 3, 2, test::corner_wells(3, 3, 3));
    GHMatrix& A = model.system.matrix;
    A.wells().d[2] = 0.0;
    for (const InputError& e : {input_error([&] { PointBlockJacobi p(A); }),
                                input_error([&] { LineJacobi p(A); }), input_error([&] {
                                    SpatialBlockJacobi p(A, {2, 2, 2});
                                })}) {
        EXPECT_EQ(e.key(), "solver.preconditioner");
        EXPECT_NE(e.detail().find("well 2"), std::string::npos) << e.detail();
    }
}

TEST(SpatialBlockJacobi, BadShapeAndStorageLimit) {
    const auto model = test::synthetic_model(4, 4, 4, 2, {});
    const GHMatrix& A = model.system.matrix;
    for (std::array<int, 3> shape :
         {std::array<int, 3>{0, 2, 2}, std::array<int, 3>{2, -1, 2}, std::array<int, 3>{2, 2, 0}}) {
        const InputError e = input_error([&] { SpatialBlockJacobi p(A, shape); });
        EXPECT_EQ(e.key(), "solver.block_shape");
        EXPECT_EQ(input_error([&] { make_blocking(4, 4, 4, shape); }).key(), "solver.block_shape");
    }
    // 4^3 cells, K = 2: one 128 x 128 block, 131,072 bytes.
    EXPECT_NO_THROW(factor_spatial_blocks(A, {4, 4, 4}, 131072.0));
    const InputError e = input_error([&] { factor_spatial_blocks(A, {4, 4, 4}, 131071.0); });
    EXPECT_EQ(e.key(), "solver.block_shape");
    EXPECT_NE(e.detail().find("0.000131 GB"), std::string::npos) << e.detail();
}

// ---- construction helpers --------------------------------------------------------------------

TEST(BlockPreconditioners, MakePreconditionerAndBytes) {
    const auto model = test::synthetic_model(5, 3, 7, 2, test::corner_wells(5, 3, 7));
    const GHMatrix& A = model.system.matrix;
    SolverSettings s;
    s.block_shape = {2, 2, 4};
    s.preconditioner = PreconditionerKind::none;
    EXPECT_TRUE(make_preconditioner(A, s)->is_identity());
    s.preconditioner = PreconditionerKind::point_block_jacobi;
    EXPECT_NE(dynamic_cast<PointBlockJacobi*>(make_preconditioner(A, s).get()), nullptr);
    s.preconditioner = PreconditionerKind::line_jacobi;
    EXPECT_NE(dynamic_cast<LineJacobi*>(make_preconditioner(A, s).get()), nullptr);
    s.preconditioner = PreconditionerKind::block_jacobi;
    const auto p = make_preconditioner(A, s);
    const auto* spatial = dynamic_cast<SpatialBlockJacobi*>(p.get());
    ASSERT_NE(spatial, nullptr);
    EXPECT_EQ(spatial->factors().blocking.shape, (std::array<int, 3>{2, 2, 4}));

    const double M = 105, K = 2, nw = 4, rows = M * K + nw;
    const double vectors = 2 * rows * 8 + nw * 8;
    EXPECT_EQ(preconditioner_bytes(A, PreconditionerKind::none, s.block_shape), 0.0);
    EXPECT_EQ(preconditioner_bytes(A, PreconditionerKind::point_block_jacobi, s.block_shape),
              M * K * K * 8 + vectors);
    EXPECT_EQ(preconditioner_bytes(A, PreconditionerKind::line_jacobi, s.block_shape),
              3 * M * K * K * 8 + vectors);
    EXPECT_EQ(preconditioner_bytes(A, PreconditionerKind::block_jacobi, s.block_shape),
              static_cast<double>(spatial->factors().inv.size()) * 8 + vectors);
}

TEST(PoissonMatrix, StencilAndBoundary) {
    const GHMatrix A = poisson_matrix(3, 4, 5);
    EXPECT_EQ(A.block_size(), 1);
    EXPECT_EQ(A.num_wells(), 0);
    // A 1 = 6 - (number of neighbours): 0 inside, 1 on a face, 2 on an edge, 3 at a corner.
    const Vec y = spmv(A, Vec(A.rows(), 1.0));
    EXPECT_EQ(y[cell(A, 1, 1, 2)], 0.0);
    EXPECT_EQ(y[cell(A, 1, 1, 0)], 1.0);
    EXPECT_EQ(y[cell(A, 0, 1, 4)], 2.0);
    EXPECT_EQ(y[cell(A, 2, 3, 4)], 3.0);
    // Symmetric, like the operator.
    const Eigen::MatrixXd a = dense(A);
    EXPECT_EQ((a - a.transpose()).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ(a.diagonal().minCoeff(), 6.0);
}

// ---- smoothers -------------------------------------------------------------------------------

/// ||r_3|| / ||r_0|| after 3 sweeps from a random x0 with f = 0 (seed 003, Figure 4a).
double three_sweep_reduction(Method method, const GHMatrix& A, std::array<int, 3> shape,
                             double omega) {
    const SpatialBlockFactors F = factor_spatial_blocks(A, shape);
    const Vec f(A.rows(), 0.0);
    Vec x = test::random_vector(A.rows(), 77), work(A.rows());
    const double r0 = residual_norm(A, f, x);
    for (int s = 0; s < 3; ++s) {
        if (method == Method::block_gs) {
            block_gs_sweep(A, F, f.data(), x.data(), omega);
        } else {
            block_jacobi_sweep(A, F, f.data(), x.data(), omega, work.data());
        }
    }
    return residual_norm(A, f, x) / r0;
}

TEST(BlockSmoothers, GaussSeidelBeatsJacobiAndBiggerBlocksBeatSmallerOnes) {
    const GHMatrix A = poisson_matrix(12, 12, 12);
    const double j2 = three_sweep_reduction(Method::block_jacobi, A, {2, 2, 2}, 0.8);
    const double j4 = three_sweep_reduction(Method::block_jacobi, A, {4, 4, 4}, 0.8);
    const double g2 = three_sweep_reduction(Method::block_gs, A, {2, 2, 2}, 1.0);
    const double g4 = three_sweep_reduction(Method::block_gs, A, {4, 4, 4}, 1.0);
    RecordProperty("reductions", std::to_string(j2) + " " + std::to_string(j4) + " " +
                                     std::to_string(g2) + " " + std::to_string(g4));
    EXPECT_LT(g2, j2);
    EXPECT_LT(g4, j4);
    EXPECT_LT(j4, j2);
    EXPECT_LT(g4, g2);
    EXPECT_LT(g4, 0.5);
}

TEST(BlockSmoothers, JacobiSweepIsTheContractFormulaBitForBit) {
    const auto model = test::synthetic_model(5, 3, 7, 2, test::corner_wells(5, 3, 7));
    const GHMatrix& A = model.system.matrix;
    const SpatialBlockJacobi M(A, {2, 2, 4});
    const Vec& b = model.system.rhs;
    const double omega = 0.8;
    Vec x = test::random_vector(A.rows(), 12), work(A.rows());
    // work = b - A x;  x = x + omega M^{-1} work (wells included)
    const Vec ax = spmv(A, x);
    Vec res(A.rows()), ref = x;
    for (index_t i = 0; i < A.rows(); ++i) res[i] = canonical::sub(b[i], ax[i]);
    const Vec z = precondition(M, res);
    for (index_t i = 0; i < A.rows(); ++i) {
        ref[i] = canonical::add(ref[i], canonical::mul(omega, z[i]));
    }
    block_jacobi_sweep(A, M.factors(), b.data(), x.data(), omega, work.data());
    EXPECT_EQ(x, ref);
}

TEST(BlockSmoothers, GaussSeidelSweepMatchesBlockByBlockFullResiduals) {
    // Block by block, the residual of the whole system from the current x (spmv), then
    // x_b += omega A_b^{-1} r_b: the same bits, as the sweep's rows sum in spmv's order.
    const auto model = test::synthetic_model(5, 3, 7, 2, test::corner_wells(5, 3, 7));
    const GHMatrix& A = model.system.matrix;
    const SpatialBlockFactors F = factor_spatial_blocks(A, {2, 2, 4});
    const Vec& b = model.system.rhs;
    const double omega = 0.9;
    Vec x = test::random_vector(A.rows(), 13), ref = x;
    for (index_t blk = 0; blk < F.blocking.blocks(); ++blk) {
        const Vec ax = spmv(A, ref);
        const std::vector<index_t> rows = block_rows(A, F.blocking.block(blk));
        const int n = static_cast<int>(rows.size());
        Vec r(n);
        for (int p = 0; p < n; ++p) r[p] = canonical::sub(b[rows[p]], ax[rows[p]]);
        for (int p = 0; p < n; ++p) {
            const double v =
                block::inverse_row(&F.inv[F.offset[blk]], n, p, [&](int c) { return r[c]; });
            ref[rows[p]] = canonical::add(ref[rows[p]], canonical::mul(omega, v));
        }
    }
    const Vec ax = spmv(A, ref);
    for (index_t w = 0; w < A.num_wells(); ++w) {
        const index_t i = A.cell_unknowns() + w;
        ref[i] = canonical::add(
            ref[i], canonical::mul(omega, canonical::mul(F.inv_d[w], canonical::sub(b[i], ax[i]))));
    }
    block_gs_sweep(A, F, b.data(), x.data(), omega);
    EXPECT_EQ(x, ref);
}

TEST(BlockSmoothers, SolveConvergesAndReportsHistory) {
    const GHMatrix A = poisson_matrix(12, 12, 12);
    const SpatialBlockFactors F = factor_spatial_blocks(A, {4, 4, 4});
    const Vec b = test::random_vector(A.rows(), 99);
    SolveOptions opt;
    opt.tolerance = 1e-8;
    opt.max_iterations = 2000;
    for (auto [method, omega] :
         {std::pair{Method::block_gs, 1.0}, std::pair{Method::block_jacobi, 0.8}}) {
        SCOPED_TRACE(to_string(method));
        Vec x = test::random_vector(A.rows(), 5);
        const double r0 = residual_norm(A, b, x) / norm(b);
        int calls = 0;
        opt.progress = [&](int, double) { ++calls; };
        const SolveResult r = block_smoother_solve(method, A, F, b.data(), x.data(), opt, omega);
        ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
        RecordProperty(to_string(method), r.iterations);
        const double true_res = residual_norm(A, b, x) / norm(b);
        EXPECT_LE(true_res, opt.tolerance);
        EXPECT_DOUBLE_EQ(r.true_relative_residual, true_res);
        EXPECT_EQ(r.relative_residual, r.true_relative_residual);
        ASSERT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
        EXPECT_DOUBLE_EQ(r.history[0], r0);
        EXPECT_EQ(r.history.back(), r.relative_residual);
        EXPECT_GT(r.history[r.iterations - 1], opt.tolerance);
        EXPECT_EQ(calls, r.iterations + 1);
    }
}

TEST(BlockSmoothers, SolveStopsAtMaxIterationsAndHandlesZeroRhs) {
    const GHMatrix A = poisson_matrix(12, 12, 12);
    const SpatialBlockFactors F = factor_spatial_blocks(A, {2, 2, 2});
    const Vec b = test::random_vector(A.rows(), 98);
    SolveOptions few;
    few.max_iterations = 3;
    for (Method method : {Method::block_gs, Method::block_jacobi}) {
        Vec x(A.rows(), 0.0);
        const SolveResult r = block_smoother_solve(method, A, F, b.data(), x.data(), few, 0.8);
        EXPECT_EQ(r.status, SolveStatus::max_iterations);
        EXPECT_EQ(r.iterations, 3);
        ASSERT_EQ(r.history.size(), 4u);
        EXPECT_EQ(r.history[0], 1.0);  // x0 = 0
        EXPECT_LT(r.history[3], r.history[0]);
        EXPECT_GT(r.true_relative_residual, few.tolerance);

        const Vec zero(A.rows(), 0.0);
        std::fill(x.begin(), x.end(), 1.0);
        const SolveResult z = block_smoother_solve(method, A, F, zero.data(), x.data(), few, 0.8);
        EXPECT_EQ(z.status, SolveStatus::converged);
        EXPECT_EQ(z.iterations, 0);
        EXPECT_EQ(test::max_abs(x), 0.0);
    }
    Vec x(A.rows(), 0.0);
    EXPECT_THROW(block_smoother_solve(Method::bicgstab, A, F, b.data(), x.data(), few, 1.0),
                 InputError);
}

TEST(BlockSmoothers, NonFiniteResidualIsAResult) {
    GHMatrix A = poisson_matrix(4, 4, 4);
    const SpatialBlockFactors F = factor_spatial_blocks(A, {2, 2, 2});
    // A huge omega makes the iteration diverge until the residual overflows.
    const Vec b = test::random_vector(A.rows(), 1);
    Vec x(A.rows(), 0.0);
    SolveOptions opt;
    opt.max_iterations = 1000;
    const SolveResult r =
        block_smoother_solve(Method::block_jacobi, A, F, b.data(), x.data(), opt, 1e30);
    EXPECT_EQ(r.status, SolveStatus::non_finite) << r.detail;
    EXPECT_LT(r.iterations, 1000);
}

TEST(BlockSmoothers, WholeGridBlockConvergesInOneSweep) {
    const GHMatrix A = poisson_matrix(6, 5, 7);
    const SpatialBlockFactors F = factor_spatial_blocks(A, {6, 5, 7});
    const Vec b = test::random_vector(A.rows(), 97);
    for (Method method : {Method::block_gs, Method::block_jacobi}) {
        Vec x = test::random_vector(A.rows(), 96);
        const SolveResult r =
            block_smoother_solve(method, A, F, b.data(), x.data(), SolveOptions{}, 1.0);
        EXPECT_EQ(r.status, SolveStatus::converged);
        EXPECT_EQ(r.iterations, 1);
        EXPECT_LE(r.true_relative_residual, 1e-13);
    }
}

}  // namespace
}  // namespace heptane
