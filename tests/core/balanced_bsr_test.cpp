// Balanced BSR layout (seed 001, section 5.5): the segment structure against hand-worked
// layouts (the paper's Figure 8, empty rows, one row, the identity layout), the segmented
// product plus reduction against spmv(Bsr), the row-length statistics, and the automatic
// choice on a stencil, lhr07 and the generated skewed matrix (inputs/data/matrices).
#include "core/ksparse/balanced_bsr.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/random.hpp"
#include "core/ksparse/ksparse_params.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/matrix_market.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

/// H100: 132 SMs x 64 resident thread arrays.
constexpr long long kH100ParallelRows = 132 * 64;

/// A Bsr with the given block-row lengths: row i holds the columns 0 .. len_i - 1, values
/// seeded uniform(-1, 1).
Bsr with_lengths(const std::vector<std::int32_t>& lengths, int bs = 1, std::uint64_t seed = 1) {
    Bsr a;
    a.block_rows = static_cast<std::int32_t>(lengths.size());
    a.block_cols =
        std::max(1, lengths.empty() ? 1 : *std::max_element(lengths.begin(), lengths.end()));
    a.block_size = bs;
    a.row_ptr = {0};
    for (const std::int32_t len : lengths) {
        for (std::int32_t j = 0; j < len; ++j) a.col.push_back(j);
        a.row_ptr.push_back(a.row_ptr.back() + len);
    }
    Rng rng(seed);
    a.val.resize(a.col.size() * static_cast<std::size_t>(bs) * bs);
    for (double& v : a.val) v = rng.uniform(-1.0, 1.0);
    return a;
}

/// Random block matrix with skewed rows: most rows 0..6 blocks, about one in 16 up to
/// max_long blocks; distinct sorted columns.
Bsr random_bsr(std::int32_t rows, std::int32_t cols, int bs, std::int32_t max_long,
               std::uint64_t seed) {
    Rng rng(seed);
    Bsr a;
    a.block_rows = rows;
    a.block_cols = cols;
    a.block_size = bs;
    a.row_ptr = {0};
    std::vector<std::int32_t> all(static_cast<std::size_t>(cols));
    std::iota(all.begin(), all.end(), 0);
    for (std::int32_t i = 0; i < rows; ++i) {
        const bool long_row = rng.next() % 16 == 0;
        const auto range = static_cast<std::uint64_t>(long_row ? max_long + 1 : 7);
        const auto len = static_cast<std::int32_t>(
            std::min<std::uint64_t>(rng.next() % range, static_cast<std::uint64_t>(cols)));
        // Partial Fisher-Yates: len distinct columns.
        for (std::int32_t k = 0; k < len; ++k) {
            const auto j =
                k + static_cast<std::int32_t>(rng.next() % static_cast<std::uint64_t>(cols - k));
            std::swap(all[k], all[j]);
        }
        std::vector<std::int32_t> row(all.begin(), all.begin() + len);
        std::sort(row.begin(), row.end());
        a.col.insert(a.col.end(), row.begin(), row.end());
        a.row_ptr.push_back(a.row_ptr.back() + len);
    }
    a.val.resize(a.col.size() * static_cast<std::size_t>(bs) * bs);
    for (double& v : a.val) v = rng.uniform(-1.0, 1.0);
    return a;
}

/// spmv_segments then reduce_segments; y is pre-filled with NaN so every entry must be
/// written.
std::vector<double> balanced_product(const Bsr& A, const BalancedRows& b,
                                     const std::vector<double>& x) {
    const int bs = A.block_size;
    std::vector<double> y_hat(static_cast<std::size_t>(b.segments()) * bs,
                              std::numeric_limits<double>::quiet_NaN());
    spmv_segments(A, b, x.data(), y_hat.data());
    std::vector<double> y(static_cast<std::size_t>(A.block_rows) * bs,
                          std::numeric_limits<double>::quiet_NaN());
    reduce_segments(b, bs, y_hat.data(), y.data());
    return y;
}

/// The 7-point stencil pattern on an n x n x n grid as a 1 x 1-block Bsr.
Bsr stencil(int n) {
    Csr p;
    p.rows = p.cols = n * n * n;
    p.row_ptr = {0};
    for (int k = 0; k < n; ++k) {
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) {
                const int c = (k * n + j) * n + i;
                for (const int d : {-n * n, -n, -1, 0, 1, n, n * n}) {
                    const bool inside = (d == -1 && i > 0) || (d == 1 && i < n - 1) ||
                                        (d == -n && j > 0) || (d == n && j < n - 1) ||
                                        (d == -n * n && k > 0) || (d == n * n && k < n - 1) ||
                                        d == 0;
                    if (inside) p.col.push_back(c + d);
                }
                p.row_ptr.push_back(static_cast<std::int32_t>(p.col.size()));
            }
        }
    }
    p.val.assign(p.col.size(), 1.0);
    return promote_to_bsr(p, 1, 5);
}

Bsr read_pattern(const std::string& name, int bs = 1) {
    return promote_to_bsr(read_matrix_market(test::source_path("inputs/data/matrices/" + name)), bs,
                          9);
}

// ---- layout -------------------------------------------------------------------------------

// Figure 8 of the paper (lambda = 3): segPtr {0, 2, 3, 4, 8, 10, 11, 14}, i.e. 2, 1, 1, 4, 2,
// 1 and 3 segments, from row lengths 5, 2, 3, 10, 6, 1, 7.
TEST(BalancedBsr, PaperFigure8Layout) {
    const Bsr A = with_lengths({5, 2, 3, 10, 6, 1, 7});
    const BalancedRows b = balance_rows(A, 3);
    EXPECT_EQ(b.lambda, 3);
    EXPECT_EQ(b.seg_ptr, (std::vector<std::int32_t>{0, 2, 3, 4, 8, 10, 11, 14}));
    EXPECT_EQ(b.segments(), 14);
    EXPECT_EQ(b.row_ptr,
              (std::vector<std::int32_t>{0, 3, 5, 7, 10, 13, 16, 19, 20, 23, 26, 27, 30, 33, 34}));
    const auto x = test::random_vector(static_cast<std::size_t>(A.block_cols), 2);
    EXPECT_TRUE(test::vectors_near(spmv(A, x), balanced_product(A, b, x),
                                   test::spmv_tolerance(10, 1.0, 1.0)));
}

TEST(BalancedBsr, EmptyRowsHaveNoSegmentAndGiveZero) {
    const Bsr A = with_lengths({0, 4, 0, 0, 2, 0}, 2);
    const BalancedRows b = balance_rows(A, 2);
    EXPECT_EQ(b.seg_ptr, (std::vector<std::int32_t>{0, 0, 2, 2, 2, 3, 3}));
    EXPECT_EQ(b.row_ptr, (std::vector<std::int32_t>{0, 2, 4, 6}));
    const auto x = test::random_vector(static_cast<std::size_t>(A.block_cols) * 2, 3);
    const auto y = balanced_product(A, b, x);
    for (const int i : {0, 2, 3, 5}) {
        EXPECT_EQ(y[2 * i], 0.0) << "row " << i;
        EXPECT_EQ(y[2 * i + 1], 0.0) << "row " << i;
    }
    EXPECT_TRUE(test::vectors_near(spmv(A, x), y, test::spmv_tolerance(8, 1.0, 1.0)));
}

TEST(BalancedBsr, AllRowsEmptyAndNoRows) {
    const BalancedRows empty = balance_rows(with_lengths({0, 0, 0}), 4);
    EXPECT_EQ(empty.segments(), 0);
    EXPECT_EQ(empty.row_ptr, (std::vector<std::int32_t>{0}));
    EXPECT_EQ(empty.seg_ptr, (std::vector<std::int32_t>{0, 0, 0, 0}));

    const Bsr none = with_lengths({});
    const BalancedRows b = balance_rows(none, 1);
    EXPECT_EQ(b.segments(), 0);
    EXPECT_EQ(b.seg_ptr, (std::vector<std::int32_t>{0}));
    EXPECT_TRUE(balanced_product(none, b, {0.0}).empty());
    const RowLengths h = row_lengths(none);
    EXPECT_EQ(h.rows, 0);
    EXPECT_EQ(h.max, 0);
    EXPECT_EQ(h.mean, 0.0);
    EXPECT_EQ(h.histogram, (std::vector<long long>{0}));
    EXPECT_FALSE(prefer_balanced(h, 1, 1));
}

TEST(BalancedBsr, OneRow) {
    const Bsr A = with_lengths({5}, 3);
    const BalancedRows b = balance_rows(A, 2);
    EXPECT_EQ(b.seg_ptr, (std::vector<std::int32_t>{0, 3}));
    EXPECT_EQ(b.row_ptr, (std::vector<std::int32_t>{0, 2, 4, 5}));
    const auto x = test::random_vector(static_cast<std::size_t>(A.block_cols) * 3, 4);
    EXPECT_TRUE(test::vectors_near(spmv(A, x), balanced_product(A, b, x),
                                   test::spmv_tolerance(15, 1.0, 1.0)));
    // lambda = 1: one segment per block.
    EXPECT_EQ(balance_rows(A, 1).row_ptr, (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}));
}

// lambda at least every row length: one segment per row, the product bit for bit spmv's.
TEST(BalancedBsr, LambdaAboveEveryRowIsTheIdentityLayout) {
    Bsr A = random_bsr(300, 120, 3, 40, 17);
    // Give every empty row one block so that seg_ptr is exactly 0..rows.
    Bsr full = with_lengths({}, 3);
    full.block_rows = A.block_rows;
    full.block_cols = A.block_cols;
    for (std::int32_t i = 0; i < A.block_rows; ++i) {
        const std::int32_t len = std::max(1, A.row_ptr[i + 1] - A.row_ptr[i]);
        for (std::int32_t k = 0; k < len; ++k) {
            full.col.push_back(A.row_ptr[i + 1] > A.row_ptr[i] ? A.col[A.row_ptr[i] + k]
                                                               : i % full.block_cols);
        }
        full.row_ptr.push_back(full.row_ptr.back() + len);
    }
    full.val = test::random_vector(full.col.size() * 9, 18);
    const int longest = row_lengths(full).max;
    for (const int lambda : {longest, longest + 1, 1 << 30}) {
        SCOPED_TRACE("lambda " + std::to_string(lambda));
        const BalancedRows b = balance_rows(full, lambda);
        EXPECT_EQ(b.row_ptr, full.row_ptr);
        std::vector<std::int32_t> identity(static_cast<std::size_t>(full.block_rows) + 1);
        std::iota(identity.begin(), identity.end(), 0);
        EXPECT_EQ(b.seg_ptr, identity);
        const auto x = test::random_vector(static_cast<std::size_t>(full.block_cols) * 3, 19);
        EXPECT_TRUE(test::vectors_near(spmv(full, x), balanced_product(full, b, x), 0.0));
    }
}

class BalancedProduct : public ::testing::TestWithParam<int> {};

// spmv_segments + reduce_segments against spmv(Bsr): rows of at most lambda blocks exactly,
// split rows within c eps nnz_row max|A| max|x| (the regrouped sum of nnz_row terms).
TEST_P(BalancedProduct, MatchesSpmv) {
    const int bs = GetParam();
    for (const std::uint64_t seed : {1, 2, 3}) {
        const Bsr A = random_bsr(500, 400, bs, 120, seed);
        const auto x = test::random_vector(static_cast<std::size_t>(A.block_cols) * bs, seed + 7);
        const auto ref = spmv(A, x);
        const RowLengths h = row_lengths(A);
        ASSERT_GT(h.max, 16) << "the matrix must have rows to split";
        const double tol = test::spmv_tolerance(h.max * bs, test::max_abs(A.val), test::max_abs(x));
        for (const int lambda : {1, 3, 16, h.max - 1}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + " lambda " + std::to_string(lambda));
            const BalancedRows b = balance_rows(A, lambda);
            for (std::int32_t i = 0; i < A.block_rows; ++i) {
                const std::int32_t len = A.row_ptr[i + 1] - A.row_ptr[i];
                ASSERT_EQ(b.seg_ptr[i + 1] - b.seg_ptr[i], (len + lambda - 1) / lambda);
                for (std::int32_t s = b.seg_ptr[i]; s < b.seg_ptr[i + 1]; ++s) {
                    const std::int32_t seg_len = b.row_ptr[s + 1] - b.row_ptr[s];
                    ASSERT_TRUE(seg_len >= 1 && seg_len <= lambda) << "segment " << s;
                }
            }
            const auto y = balanced_product(A, b, x);
            EXPECT_TRUE(test::vectors_near(ref, y, tol));
            for (std::int32_t i = 0; i < A.block_rows; ++i) {
                if (A.row_ptr[i + 1] - A.row_ptr[i] > lambda) continue;
                for (int r = 0; r < bs; ++r) {
                    const auto k = static_cast<std::size_t>(i) * bs + r;
                    ASSERT_EQ(y[k], ref[k]) << "unsplit row " << i;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, BalancedProduct, ::testing::Values(1, 3, 7),
                         [](const ::testing::TestParamInfo<int>& info) {
                             return "bs" + std::to_string(info.param);
                         });

TEST(BalancedBsr, InvalidArgumentsThrow) {
    const Bsr A = with_lengths({3, 1});
    EXPECT_THROW(balance_rows(A, 0), std::invalid_argument);
    EXPECT_THROW(balance_rows(A, -2), std::invalid_argument);
    EXPECT_THROW(prefer_balanced(row_lengths(A), 0, 8), std::invalid_argument);
    EXPECT_THROW(prefer_balanced(row_lengths(A), 4, 0), std::invalid_argument);
    EXPECT_THROW(lambda_or_default(-1), std::invalid_argument);
    KsparseParams p;
    p.lambda = -5;
    EXPECT_THROW(use_balanced(A, p, 8), std::invalid_argument);
    Bsr bad = A;
    bad.row_ptr.pop_back();
    EXPECT_THROW(balance_rows(bad, 2), std::invalid_argument);
    EXPECT_THROW(row_lengths(bad), std::invalid_argument);
    const BalancedRows other = balance_rows(with_lengths({3, 2}), 2);
    std::vector<double> x(3, 1.0), y_hat(8);
    EXPECT_THROW(spmv_segments(A, other, x.data(), y_hat.data()), std::invalid_argument);
    EXPECT_THROW(reduce_segments(other, 0, y_hat.data(), x.data()), std::invalid_argument);
}

TEST(BalancedBsr, LambdaDefault) {
    EXPECT_EQ(lambda_or_default(0), kDefaultLambda);
    EXPECT_EQ(kDefaultLambda, 16);
    EXPECT_EQ(lambda_or_default(1), 1);
    EXPECT_EQ(lambda_or_default(32), 32);
}

// ---- statistics and the automatic choice ---------------------------------------------------

TEST(BalancedBsr, RowLengthBins) {
    EXPECT_EQ(row_length_bin(0), 0);
    EXPECT_EQ(row_length_bin(1), 1);
    EXPECT_EQ(row_length_bin(2), 2);
    EXPECT_EQ(row_length_bin(3), 2);
    EXPECT_EQ(row_length_bin(4), 3);
    EXPECT_EQ(row_length_bin(7), 3);
    EXPECT_EQ(row_length_bin(8), 4);
    EXPECT_EQ(row_length_bin(4000), 12);  // [2048, 4095]
}

TEST(BalancedBsr, RowLengthStatistics) {
    const Bsr A = with_lengths({5, 2, 3, 10, 6, 1, 7, 0});
    const RowLengths h = row_lengths(A);
    EXPECT_EQ(h.rows, 8);
    EXPECT_EQ(h.blocks, 34);
    EXPECT_EQ(h.max, 10);
    EXPECT_DOUBLE_EQ(h.mean, 34.0 / 8.0);
    // [0]: 0; [1]: 1; [2,3]: 2, 3; [4,7]: 5, 6, 7; [8,15]: 10.
    EXPECT_EQ(h.histogram, (std::vector<long long>{1, 1, 2, 3, 1}));
    EXPECT_EQ(rows_over(A, 0), 7);
    EXPECT_EQ(rows_over(A, 3), 4);
    EXPECT_EQ(rows_over(A, 9), 1);
    EXPECT_EQ(rows_over(A, 10), 0);
}

// gain = max(max_len, W / P) / max(lambda, W / P) >= 8, and max_len > lambda.
TEST(BalancedBsr, PreferBalancedThresholds) {
    RowLengths h;
    h.rows = 1000;
    h.blocks = 1000;
    h.max = 8 * 16;
    // W / P = 1 < lambda: gain = max_len / lambda.
    EXPECT_TRUE(prefer_balanced(h, 16, 1000));
    h.max = 8 * 16 - 1;
    EXPECT_FALSE(prefer_balanced(h, 16, 1000));
    // W / P = 200 dominates both: gain = 1000 / 200 = 5, the long row hides in the work.
    h.max = 1000;
    h.blocks = 2000;
    EXPECT_FALSE(prefer_balanced(h, 16, 10));
    // W / P = 100: gain = 1000 / 100 = 10.
    EXPECT_TRUE(prefer_balanced(h, 16, 20));
    // Nothing to split.
    h.max = 16;
    h.blocks = 16;
    EXPECT_FALSE(prefer_balanced(h, 16, 1000000));
}

TEST(BalancedBsr, StencilIsBalanced) {
    const Bsr A = stencil(20);
    const RowLengths h = row_lengths(A);
    EXPECT_EQ(h.max, 7);
    EXPECT_EQ(rows_over(A, kDefaultLambda), 0);
    for (const long long p : {1LL, kH100ParallelRows, 1LL << 40}) {
        EXPECT_FALSE(prefer_balanced(h, kDefaultLambda, p)) << "P = " << p;
    }
    EXPECT_FALSE(use_balanced(A, KsparseParams{}, kH100ParallelRows));
}

// The paper measured no gain from balancing lhr07 (seed 001, Figure 16).
TEST(BalancedBsr, Lhr07IsNotBalanced) {
    const Bsr A = read_pattern("lhr07.mtx");
    const RowLengths h = row_lengths(A);
    EXPECT_EQ(h.rows, 7337);
    EXPECT_EQ(h.blocks, 156508);
    EXPECT_EQ(h.max, 63);
    EXPECT_EQ(h.histogram, (std::vector<long long>{0, 183, 957, 3884, 0, 154, 2159}));
    // Model gain at most 63 / 16 < 8 whatever the GPU.
    for (const long long p : {1LL, 960LL, kH100ParallelRows, 1LL << 40}) {
        EXPECT_FALSE(prefer_balanced(h, kDefaultLambda, p)) << "P = " << p;
    }
    KsparseParams params;
    EXPECT_FALSE(use_balanced(A, params, kH100ParallelRows));
    params.balance = KsparseBalance::on;
    EXPECT_TRUE(use_balanced(A, params, kH100ParallelRows));
}

// The generated matrix (scripts/make_skewed_matrix.py): the reader accepts it and it has the
// structure NOTICE.md describes.
TEST(BalancedBsr, SkewedMatrixReadsWithItsDocumentedStructure) {
    const Csr a = read_matrix_market(test::source_path("inputs/data/matrices/skewed.mtx"));
    ASSERT_EQ(a.rows, 20000);
    ASSERT_EQ(a.cols, 20000);
    EXPECT_EQ(a.nonzeros(), 183882);
    int long_rows = 0;
    for (std::int32_t i = 0; i < a.rows; ++i) {
        const auto first = a.col.begin() + a.row_ptr[i];
        const auto last = a.col.begin() + a.row_ptr[i + 1];
        const auto len = last - first;
        ASSERT_TRUE(std::binary_search(first, last, i)) << "row " << i << " lacks its diagonal";
        if (len == 4000) {
            ++long_rows;
        } else {
            ASSERT_TRUE(len >= 4 && len <= 8) << "row " << i << " has " << len << " entries";
            ASSERT_LE(*(last - 1) - *first, 16) << "row " << i << " is not near the diagonal";
        }
    }
    EXPECT_EQ(long_rows, 16);
    EXPECT_TRUE(std::all_of(a.val.begin(), a.val.end(), [](double v) { return v == 1.0; }));
}

TEST(BalancedBsr, SkewedMatrixPrefersBalanced) {
    const Bsr A = read_pattern("skewed.mtx");
    const RowLengths h = row_lengths(A);
    EXPECT_EQ(h.max, 4000);
    EXPECT_EQ(rows_over(A, kDefaultLambda), 16);
    for (const long long p : {960LL, kH100ParallelRows, 1LL << 40}) {
        EXPECT_TRUE(prefer_balanced(h, kDefaultLambda, p)) << "P = " << p;
    }
    KsparseParams params;
    EXPECT_TRUE(use_balanced(A, params, kH100ParallelRows));
    params.balance = KsparseBalance::off;
    EXPECT_FALSE(use_balanced(A, params, kH100ParallelRows));
    // Balanced with the default lambda: 16 rows of 4000 blocks become 250 segments each.
    const BalancedRows b = balance_rows(A, lambda_or_default(0));
    EXPECT_EQ(b.segments(), 20000 - 16 + 16 * 250);
    const auto x = test::random_vector(20000, 21);
    EXPECT_TRUE(
        test::vectors_near(spmv(A, x), balanced_product(A, b, x),
                           test::spmv_tolerance(4000, test::max_abs(A.val), test::max_abs(x))));
}

}  // namespace
}  // namespace heptane
