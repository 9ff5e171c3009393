// The chunked layout of KSPARSE's K4 (core/ksparse/chunked_bsr.hpp): the chunks of a
// hand-worked case (whole rows packed, long rows split, empty rows, the row cap), and the
// reference product against spmv(Bsr) - exactly on integer data, where no order rounds, and
// within the rounding bound of each row's terms on random data.
#include "core/ksparse/chunked_bsr.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/random.hpp"
#include "core/matrix/formats.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

/// A Bsr whose block row i holds len_i blocks in the columns (7 i + 3 j) mod cols, j <
/// len_i (distinct and sorted for len_i <= cols / 3), values from `value(k)` for the k-th
/// stored value.
template <class Value>
Bsr with_lengths(const std::vector<std::int32_t>& lengths, int bs, std::int32_t cols, Value value) {
    Bsr a;
    a.block_rows = static_cast<std::int32_t>(lengths.size());
    a.block_cols = cols;
    a.block_size = bs;
    a.row_ptr = {0};
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        std::vector<std::int32_t> c;
        for (std::int32_t j = 0; j < lengths[i]; ++j) {
            c.push_back(static_cast<std::int32_t>((7 * i + 3 * j) % cols));
        }
        std::sort(c.begin(), c.end());
        a.col.insert(a.col.end(), c.begin(), c.end());
        a.row_ptr.push_back(static_cast<std::int32_t>(a.col.size()));
    }
    a.val.resize(a.col.size() * static_cast<std::size_t>(bs) * bs);
    for (std::size_t k = 0; k < a.val.size(); ++k) a.val[k] = value(k);
    return a;
}

TEST(ChunkedRows, HandWorkedLayout) {
    // Rows of 3, 0, 5, 1, 12, 0, 2 blocks, chunks of 4: rows 0-1 (3 blocks), row 2 in two
    // segments (4 + 1), row 3, row 4 in three (4 + 4 + 4), rows 5-6 (2 blocks).
    const Bsr A = with_lengths({3, 0, 5, 1, 12, 0, 2}, 8, 100, [](std::size_t) { return 1.0; });
    const ChunkedRows c = chunk_rows(A, 4);
    EXPECT_EQ(c.chunk, 4);
    EXPECT_EQ(c.block_ptr, (std::vector<std::int32_t>{0, 3, 7, 8, 9, 13, 17, 21, 23}));
    EXPECT_EQ(c.row, (std::vector<std::int32_t>{0, 2, 2, 3, 4, 4, 4, 5}));
    EXPECT_EQ(c.rows, (std::vector<std::int32_t>{2, 1, 1, 1, 1, 1, 1, 2}));
    EXPECT_EQ(c.slot, (std::vector<std::int32_t>{-1, 0, 1, -1, 2, 3, 4, -1}));
    EXPECT_EQ(c.split_row, (std::vector<std::int32_t>{2, 4}));
    EXPECT_EQ(c.split_ptr, (std::vector<std::int32_t>{0, 2, 5}));
    EXPECT_EQ(c.chunks(), 8);
    EXPECT_EQ(c.slots(), 5);
    // A row of exactly `chunk` blocks is whole, and fills its chunk.
    const ChunkedRows d =
        chunk_rows(with_lengths({4, 1}, 8, 100, [](std::size_t) { return 1.0; }), 4);
    EXPECT_EQ(d.block_ptr, (std::vector<std::int32_t>{0, 4, 5}));
    EXPECT_TRUE(d.split_row.empty());
}

TEST(ChunkedRows, RowsPerChunkAreCappedAndEmptyMatricesHaveNoChunks) {
    const ChunkedRows c =
        chunk_rows(with_lengths({0, 0, 0, 0, 0, 0}, 16, 10, [](std::size_t) { return 1.0; }), 4);
    EXPECT_EQ(c.row, (std::vector<std::int32_t>{0, 4}));
    EXPECT_EQ(c.rows, (std::vector<std::int32_t>{4, 2}));
    EXPECT_EQ(c.block_ptr, (std::vector<std::int32_t>{0, 0, 0}));
    const ChunkedRows e = chunk_rows(Bsr{}, 4);
    EXPECT_EQ(e.chunks(), 0);
    EXPECT_EQ(e.block_ptr, std::vector<std::int32_t>{0});
    EXPECT_THROW(chunk_rows(Bsr{}, 0), std::invalid_argument);
    Bsr bad = with_lengths({1, 2}, 8, 10, [](std::size_t) { return 1.0; });
    bad.row_ptr.pop_back();
    EXPECT_THROW(chunk_rows(bad, 4), std::invalid_argument);
}

TEST(ChunkedRows, ReferenceProductIsExactOnIntegers) {
    // Small integers: every partial sum is exact, so any order gives spmv(Bsr)'s bits.
    for (int bs : {8, 16, 32}) {
        for (int chunk : {1, 2, 3, 7, 64}) {
            SCOPED_TRACE(std::to_string(bs) + " " + std::to_string(chunk));
            const Bsr A = with_lengths({3, 0, 5, 1, 12, 0, 2, 9}, bs, 40,
                                       [](std::size_t k) { return double(int(k % 7) - 3); });
            std::vector<double> x(static_cast<std::size_t>(A.block_cols) * bs);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(int(i % 5) - 2);
            std::vector<double> y(static_cast<std::size_t>(A.block_rows) * bs, -99.0);
            spmv_chunked(A, chunk_rows(A, chunk), x.data(), y.data());
            EXPECT_EQ(y, spmv(A, x));
        }
    }
}

TEST(ChunkedRows, ReferenceProductWithinTheRoundingBound) {
    Rng rng(3);
    std::vector<std::int32_t> lengths;
    for (int i = 0; i < 300; ++i) lengths.push_back(i % 37 == 5 ? 200 : static_cast<int>(i % 9));
    for (int bs : {8, 16, 32}) {
        SCOPED_TRACE(bs);
        const Bsr A =
            with_lengths(lengths, bs, 700, [&](std::size_t) { return rng.uniform(-1, 1); });
        const std::vector<double> x =
            test::random_vector(static_cast<std::size_t>(A.block_cols) * bs, 4);
        const std::vector<double> ref = spmv(A, x);
        std::vector<double> y(ref.size());
        spmv_chunked(A, chunk_rows(A, 16), x.data(), y.data());
        int differ = 0;
        for (std::int32_t br = 0; br < A.block_rows; ++br) {
            const std::int32_t terms = (A.row_ptr[br + 1] - A.row_ptr[br]) * bs;
            for (int r = 0; r < bs; ++r) {
                double magnitude = 0.0;
                for (std::int32_t p = A.row_ptr[br]; p < A.row_ptr[br + 1]; ++p) {
                    for (int c = 0; c < bs; ++c) {
                        magnitude +=
                            std::abs(A.val[(static_cast<std::size_t>(p) * bs + r) * bs + c] *
                                     x[static_cast<std::size_t>(A.col[p]) * bs + c]);
                    }
                }
                const std::size_t i = static_cast<std::size_t>(br) * bs + r;
                EXPECT_LE(std::abs(y[i] - ref[i]),
                          2.0 * terms * std::numeric_limits<double>::epsilon() * magnitude)
                    << "row " << i;
                differ += y[i] != ref[i];
            }
        }
        EXPECT_GT(differ, 0) << "the orders differ, so some rows should round differently";
    }
}

TEST(ChunkedRows, RefusesWhatK4DoesNotTake) {
    EXPECT_TRUE(k4_takes(8) && k4_takes(16) && k4_takes(32));
    EXPECT_FALSE(k4_takes(4) || k4_takes(12) || k4_takes(64) || k4_takes(1));
    // 512 to 4,096 values, the blocks spread over 4,096 chunks in between.
    EXPECT_EQ(k4_default_chunk(8, 0), 64);
    EXPECT_EQ(k4_default_chunk(16, 0), 16);
    EXPECT_EQ(k4_default_chunk(32, 0), 4);
    EXPECT_EQ(k4_default_chunk(8, 10), 8);
    EXPECT_EQ(k4_default_chunk(16, 10), 2);
    EXPECT_EQ(k4_default_chunk(32, 10), 1);
    EXPECT_EQ(k4_default_chunk(8, 4096 * 20), 20);
    EXPECT_EQ(k4_default_chunk(8, 4096 * 20 + 1), 21);
    EXPECT_EQ(k4_default_chunk(8, 4096LL * 1000), 64);
    const Bsr A4 = with_lengths({2, 1}, 4, 10, [](std::size_t) { return 1.0; });
    std::vector<double> x(40, 1.0), y(8);
    EXPECT_THROW(spmv_chunked(A4, chunk_rows(A4, 4), x.data(), y.data()), std::invalid_argument);
    const Bsr A8 = with_lengths({2, 1}, 8, 10, [](std::size_t) { return 1.0; });
    const Bsr B8 = with_lengths({2, 2}, 8, 10, [](std::size_t) { return 1.0; });
    std::vector<double> x8(80, 1.0), y8(16);
    EXPECT_THROW(spmv_chunked(A8, chunk_rows(B8, 4), x8.data(), y8.data()), std::invalid_argument);
}

}  // namespace
}  // namespace heptane
