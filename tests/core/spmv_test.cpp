// Reference SpMV: the Bdia + wells product against CSR, BSR and Eigen, and the transpose
// product against the explicit transpose.
#include "core/spmv/spmv.hpp"

#include <gtest/gtest.h>

#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/spmv/cell_major.hpp"

namespace heptane {
namespace {

using test::corner_wells;
using test::max_abs;
using test::random_vector;
using test::vectors_near;

std::vector<double> eigen_product(const Eigen::SparseMatrix<double>& A,
                                  const std::vector<double>& x) {
    const Eigen::Map<const Eigen::VectorXd> xv(x.data(), static_cast<Eigen::Index>(x.size()));
    const Eigen::VectorXd y = A * xv;
    return std::vector<double>(y.data(), y.data() + y.size());
}

/// Grid (nx, ny, nz) and block size K.
using Shape = std::tuple<int, int, int, int>;

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
    const auto& [nx, ny, nz, K] = info.param;
    return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) + "_K" +
           std::to_string(K);
}

class SyntheticSpmv : public ::testing::TestWithParam<Shape> {};

TEST_P(SyntheticSpmv, BdiaMatchesCsrBsrAndEigen) {
    const auto [nx, ny, nz, K] = GetParam();
    const auto model = test::synthetic_model(nx, ny, nz, K, corner_wells(nx, ny, nz));
    const GHMatrix& A = model.system.matrix;
    const auto x = random_vector(static_cast<std::size_t>(A.rows()), 11);
    const auto y = spmv(A, x);
    const double tol = test::gh_spmv_tolerance(A, x);

    const Csr csr = to_csr(A);
    EXPECT_EQ(csr.nonzeros(), A.nonzeros());
    EXPECT_TRUE(vectors_near(spmv(csr, x), y, tol));
    EXPECT_TRUE(vectors_near(eigen_product(to_eigen(csr), x), y, tol));

    const Bsr bsr = to_bsr(A);
    EXPECT_EQ(bsr.blocks(), bsr_blocks(A));
    EXPECT_EQ(bsr.storage_bytes(), bsr_bytes(A));
    EXPECT_EQ(csr.storage_bytes(), csr_bytes(A));
    const auto y_bsr = spmv(bsr, pad_vector(A, x));
    EXPECT_TRUE(vectors_near(y, unpad_vector(A, y_bsr), tol));
    // Padding rows carry identity: their result is the padded input, i.e. 0.
    for (std::size_t i = static_cast<std::size_t>(A.rows()); i < y_bsr.size(); ++i) {
        EXPECT_EQ(y_bsr[i], 0.0) << "padding row " << i;
    }
    // BSR expanded to scalar CSR computes the same product.
    EXPECT_TRUE(vectors_near(y_bsr, spmv(to_csr(bsr), pad_vector(A, x)), tol));
}

// The cell-major copies (core/spmv/cell_major.hpp) give spmv's and (of H^T's blocks)
// spmv_transpose's bits, wells and grid edges included, for every shape; after new values too.
TEST_P(SyntheticSpmv, CellMajorProductIsTheBdiaProductBitForBit) {
    const auto [nx, ny, nz, K] = GetParam();
    auto model = test::synthetic_model(nx, ny, nz, K, corner_wells(nx, ny, nz));
    GHMatrix& A = model.system.matrix;
    const auto x = random_vector(static_cast<std::size_t>(A.rows()), 12);
    CellMajorBlocks C(A), T(A, true);
    std::vector<double> y(x.size());
    C.product(A, x.data(), y.data());
    EXPECT_EQ(y, spmv(A, x));
    T.product(A, x.data(), y.data());  // H^T's blocks: spmv_transpose's bits
    EXPECT_EQ(y, spmv_transpose(A, x));
    for (double& v : A.bdia()) v *= -1.5;
    C.update(A);
    C.product(A, x.data(), y.data());
    EXPECT_EQ(y, spmv(A, x));
    T.update(A);
    T.product(A, x.data(), y.data());
    EXPECT_EQ(y, spmv_transpose(A, x));
}

// A range of (i, j) columns (a slab's interior or edge planes, core/spmv/spmv.hpp's
// ColumnRange): its rows and, when asked, the well rows are the whole product's bits, by Bdia
// and by the cell-major copies, A x and A^T x; every other row is left as it was.
TEST_P(SyntheticSpmv, ColumnRangesAreTheWholeProductsRowsAndNothingElse) {
    const auto [nx, ny, nz, K] = GetParam();
    const auto model = test::synthetic_model(nx, ny, nz, K, corner_wells(nx, ny, nz));
    const GHMatrix& A = model.system.matrix;
    const auto x = random_vector(static_cast<std::size_t>(A.rows()), 13);
    const CpuGHOperator bdia(A, false), cells(A, true, true);
    const index_t columns = static_cast<index_t>(nx) * ny, mk = A.cell_unknowns();
    const double kept = -3.5;
    for (bool transpose : {false, true}) {
        const std::vector<double> whole = transpose ? spmv_transpose(A, x) : spmv(A, x);
        for (const ColumnRange range :
             {ColumnRange{0, columns, true}, ColumnRange{ny, columns - ny, true},
              ColumnRange{0, ny, false}, ColumnRange{columns - 1, columns, false},
              ColumnRange{2, 2, true}}) {
            if (range.begin > range.end || range.end > columns) continue;  // a thin grid
            std::vector<double> expect(x.size(), kept);
            for (index_t i = range.begin * nz * K; i < range.end * nz * K; ++i)
                expect[i] = whole[i];
            for (index_t i = mk; range.wells && i < A.rows(); ++i) expect[i] = whole[i];
            for (const CpuGHOperator* op : {&bdia, &cells}) {
                std::vector<double> y(x.size(), kept);
                op->apply_columns(x.data(), y.data(), range, transpose);
                EXPECT_EQ(y, expect) << "columns [" << range.begin << ", " << range.end
                                     << ") transpose " << transpose;
            }
        }
    }
    std::vector<double> y(x.size());
    EXPECT_THROW(bdia.apply_columns(x.data(), y.data(), {0, columns + 1, true}, false),
                 std::invalid_argument);
    EXPECT_THROW(cells.apply_columns(x.data(), y.data(), {0, columns + 1, true}, false),
                 std::invalid_argument);
}

TEST_P(SyntheticSpmv, TransposeMatchesExplicitTranspose) {
    const auto [nx, ny, nz, K] = GetParam();
    const auto model = test::synthetic_model(nx, ny, nz, K, corner_wells(nx, ny, nz));
    const GHMatrix& A = model.system.matrix;
    const auto x = random_vector(static_cast<std::size_t>(A.rows()), 12);
    const Eigen::SparseMatrix<double> At = to_eigen(to_csr(A)).transpose();
    EXPECT_TRUE(
        vectors_near(eigen_product(At, x), spmv_transpose(A, x), test::gh_spmv_tolerance(A, x)));
}

TEST_P(SyntheticSpmv, StoredNonzerosOfHFollowTheFormula) {
    const auto [nx, ny, nz, K] = GetParam();
    const auto model = test::synthetic_model(nx, ny, nz, K, {});
    const GHMatrix& A = model.system.matrix;
    // Random blocks are nonzero almost surely: count them, padding must be exactly zero.
    index_t nonzero = 0, padding_nonzero = 0;
    for (index_t m = 0; m < A.num_cells(); ++m) {
        for (int d = 0; d < kStencilSize; ++d) {
            for (int r = 0; r < K; ++r) {
                for (int c = 0; c < K; ++c) {
                    const bool value = A.at(d, m, r, c) != 0.0;
                    (A.has_neighbour(m, d) ? nonzero : padding_nonzero) += value ? 1 : 0;
                }
            }
        }
    }
    const index_t x = nx, y = ny, z = nz;
    EXPECT_EQ(nonzero, (7 * x * y * z - 2 * x * y - 2 * y * z - 2 * x * z) * K * K);
    EXPECT_EQ(nonzero, A.h_nonzeros());
    EXPECT_EQ(padding_nonzero, 0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, SyntheticSpmv,
                         ::testing::Values(Shape{4, 3, 5, 1}, Shape{5, 3, 7, 2}, Shape{3, 5, 3, 3},
                                           Shape{3, 3, 3, 5}, Shape{3, 2, 5, 8}, Shape{7, 5, 3, 16},
                                           // one cell thick in each direction
                                           Shape{1, 4, 5, 2}, Shape{4, 1, 5, 3}, Shape{4, 5, 1, 5},
                                           Shape{1, 1, 6, 2}, Shape{1, 1, 1, 3},
                                           // columns long enough for the K = 1 sweep's groups
                                           // of interior cells, and a remainder
                                           Shape{4, 4, 11, 1}, Shape{3, 3, 10, 2}),
                         shape_name);

class TwoPhaseSpmv : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(TwoPhaseSpmv, BdiaMatchesCsrEigenAndTranspose) {
    const auto [nx, ny, nz] = GetParam();
    const auto model = wells::generate(test::two_phase_spec(nx, ny, nz, corner_wells(nx, ny, nz)));
    const GHMatrix& A = model.system.matrix;
    ASSERT_EQ(A.block_size(), 2);
    const auto x = random_vector(static_cast<std::size_t>(A.rows()), 5);
    const auto y = spmv(A, x);
    const double tol = test::gh_spmv_tolerance(A, x);
    const Csr csr = to_csr(A);
    EXPECT_TRUE(vectors_near(spmv(csr, x), y, tol));
    EXPECT_TRUE(vectors_near(eigen_product(to_eigen(csr), x), y, tol));
    const Eigen::SparseMatrix<double> At = to_eigen(csr).transpose();
    EXPECT_TRUE(vectors_near(eigen_product(At, x), spmv_transpose(A, x), tol));
    EXPECT_TRUE(vectors_near(y, unpad_vector(A, spmv(to_bsr(A), pad_vector(A, x))), tol));
}

INSTANTIATE_TEST_SUITE_P(Grids, TwoPhaseSpmv,
                         ::testing::Values(std::make_tuple(5, 3, 4), std::make_tuple(1, 3, 4),
                                           std::make_tuple(4, 1, 3), std::make_tuple(3, 4, 1)));

/// A 2 x 1 x 1 grid with K = 1 and one well in column (1, 0): every product by hand.
TEST(GHSpmv, HandComputedTinySystem) {
    GHMatrix A(2, 1, 1, 1);
    // H = [[2, -1], [-3, 4]]: cell 0's +i neighbour is diagonal 6, cell 1's -i is diagonal 0.
    A.at(kCenter, 0, 0, 0) = 2.0;
    A.at(6, 0, 0, 0) = -1.0;
    A.at(0, 1, 0, 0) = -3.0;
    A.at(kCenter, 1, 0, 0) = 4.0;
    WellArrays w;
    w.first = {0};
    w.cell0 = {1};
    w.count = {1};
    w.w_vals = {5.0};   // well row: 5 x_1 + 7 p
    w.wt_vals = {6.0};  // cell 1 row: + 6 p
    w.d = {7.0};
    w.well_of_column = {-1, 0};
    A.set_wells(w);
    const std::vector<double> x = {1.0, 2.0, 3.0};
    // GH = [[2, -1, 0], [-3, 4, 6], [0, 5, 7]]
    EXPECT_EQ(spmv(A, x), (std::vector<double>{0.0, 23.0, 31.0}));
    // GH^T = [[2, -3, 0], [-1, 4, 5], [0, 6, 7]]
    EXPECT_EQ(spmv_transpose(A, x), (std::vector<double>{-4.0, 22.0, 33.0}));
    EXPECT_EQ(A.nonzeros(), 7);
}

TEST(GHSpmv, NonFiniteInputStaysInItsRows) {
    // Padding is skipped by position, so NaN in the last cell must not reach cell 0 of a
    // 1 x 1 x 3 column (they are not neighbours).
    const auto model = test::synthetic_model(1, 1, 3, 2, {});
    std::vector<double> x(6, 1.0);
    x[4] = std::nan("");
    const auto y = spmv(model.system.matrix, x);
    EXPECT_TRUE(std::isfinite(y[0]) && std::isfinite(y[1]));
    EXPECT_TRUE(std::isnan(y[2]) && std::isnan(y[4]));
    const CellMajorBlocks C(model.system.matrix);
    std::vector<double> yc(x.size());
    C.product(model.system.matrix, x.data(), yc.data());
    EXPECT_TRUE(std::isfinite(yc[0]) && std::isfinite(yc[1]));
    EXPECT_TRUE(std::isnan(yc[2]) && std::isnan(yc[4]));
}

TEST(GHMatrixChecks, PlanesOfHoldThosePlanesRowsAndWells) {
    // planes_of(A, 2, 3) of a 6 x 4 x 3 grid with two wells in planes 2 and 4: a vector that
    // lives on planes 2..4 gives, on the middle plane (whose stencil stays inside) and on the
    // wells, the rows of A bit for bit; a well outside the planes is refused.
    for (int K : {1, 2}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        const auto model = test::synthetic_model(
            6, 4, 3, K, {test::make_well("P", 2, 1, 0, 2), test::make_well("I", 4, 3, 1, 1, true)});
        const GHMatrix& A = model.system.matrix;
        const GHMatrix own = planes_of(A, 2, 3);
        ASSERT_EQ(own.nx(), 3);
        ASSERT_EQ(own.num_wells(), 2);
        const index_t plane = 4 * 3 * K, cells = A.cell_unknowns();
        std::vector<double> x = random_vector(static_cast<std::size_t>(A.rows()), 11);
        std::fill(x.begin(), x.begin() + 2 * plane, 0.0);          // planes 0, 1
        std::fill(x.begin() + 5 * plane, x.begin() + cells, 0.0);  // plane 5
        std::vector<double> xo(x.begin() + 2 * plane, x.begin() + 5 * plane);
        xo.insert(xo.end(), x.begin() + cells, x.end());
        const std::vector<double> y = spmv(A, x), yo = spmv(own, xo);
        for (index_t i = 0; i < plane; ++i) EXPECT_EQ(yo[plane + i], y[3 * plane + i]) << i;
        for (index_t w = 0; w < 2; ++w) EXPECT_EQ(yo[3 * plane + w], y[cells + w]) << w;
        EXPECT_THROW(planes_of(A, 3, 3), std::invalid_argument);  // well P is in plane 2
        EXPECT_THROW(planes_of(A, 2, 5), std::invalid_argument);  // past the grid
    }
}

TEST(GHMatrixChecks, SetWellsRejectsInconsistentArrays) {
    GHMatrix A(2, 2, 3, 1);
    WellArrays w;
    w.first = {0};
    w.cell0 = {2};  // last cell of column 0 ...
    w.count = {2};  // ... running into column 1: not one column
    w.w_vals = {1.0, 1.0};
    w.wt_vals = {1.0, 1.0};
    w.d = {1.0};
    w.well_of_column = {0, -1, -1, -1};
    EXPECT_THROW(A.set_wells(w), std::invalid_argument);
    w.cell0 = {0};
    w.w_vals = {1.0};  // too few values for 2 cells
    EXPECT_THROW(A.set_wells(w), std::invalid_argument);
    w.w_vals = {1.0, 1.0};
    EXPECT_NO_THROW(A.set_wells(w));
}

}  // namespace
}  // namespace heptane
