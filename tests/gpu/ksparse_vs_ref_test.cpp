// KSPARSE BSR SpMV against the CPU reference core::spmv(Bsr): every kernel path at block
// sizes 1-16, 24, 32, 45, 48, 64 and 100, on patterns with empty rows, rows much longer than
// the rest, a one-row matrix and an empty matrix, with the launch parameters at their
// defaults and varied. The kernels sum in their own order, so each row must agree with the
// reference within the rounding bound of its terms: |y_i - ref_i| <= 2 L eps sum_j |a_ij x_j|
// (L terms) - a wrong index or a lost term misses it by orders of magnitude.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include "common/gpu_test.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/ksparse/chunked_bsr.hpp"
#include "core/matrix/matrix_market.hpp"
#include "core/spmv/spmv.hpp"
#include "gpu/ksparse.hpp"

namespace heptane::gpu {
namespace {

/// A square pattern of `rows` rows: every third row empty, row 1 (if present) 8x longer
/// than the others, columns random and sorted without duplicates.
Csr pattern(int rows, int per_row, unsigned seed) {
    std::mt19937 gen(seed);
    Csr p;
    p.rows = p.cols = rows;
    p.row_ptr.push_back(0);
    for (int i = 0; i < rows; ++i) {
        std::vector<int> cols;
        const int len = i % 3 == 2 ? 0 : (i == 1 ? 8 * per_row : per_row);
        for (int k = 0; k < len; ++k) cols.push_back(static_cast<int>(gen() % rows));
        if (len > 0) cols.push_back(i);  // a diagonal block
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (int c : cols) {
            p.col.push_back(c);
            p.val.push_back(1.0);
        }
        p.row_ptr.push_back(static_cast<int>(p.col.size()));
    }
    return p;
}

/// Every row within the rounding bound of its terms; lists the first misses.
::testing::AssertionResult agrees(const Bsr& A, const std::vector<double>& x,
                                  const std::vector<double>& dev) {
    const std::vector<double> ref = spmv(A, x);
    if (ref.size() != dev.size()) return ::testing::AssertionFailure() << "sizes differ";
    const int bs = A.block_size;
    int bad = 0;
    ::testing::AssertionResult r = ::testing::AssertionFailure();
    for (int br = 0; br < A.block_rows; ++br) {
        for (int i = 0; i < bs; ++i) {
            double magnitude = 0.0;
            long long terms = 0;
            for (int p = A.row_ptr[br]; p < A.row_ptr[br + 1]; ++p) {
                for (int c = 0; c < bs; ++c) {
                    magnitude += std::abs(A.val[(static_cast<std::size_t>(p) * bs + i) * bs + c] *
                                          x[static_cast<std::size_t>(A.col[p]) * bs + c]);
                    ++terms;
                }
            }
            const std::size_t row = static_cast<std::size_t>(br) * bs + i;
            const double bound = 2.0 * static_cast<double>(terms) *
                                 std::numeric_limits<double>::epsilon() * magnitude;
            if (!(std::abs(dev[row] - ref[row]) <= bound)) {
                if (bad < 10) r << "\n  row " << row << ": ref " << ref[row] << " dev " << dev[row];
                ++bad;
            }
        }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return r << "\n" << bad << " of " << ref.size() << " rows outside the bound";
}

using Param = std::tuple<int, KsparseKernel>;  // block size, kernel

/// The launch parameters tried for (kernel, bs) besides the defaults: the corners of each
/// kernel's Table I space that the launcher takes.
std::vector<std::pair<std::string, KsparseParams>> variants(KsparseKernel kernel, int bs) {
    std::vector<std::pair<std::string, KsparseParams>> out;
    KsparseParams p;
    p.kernel = kernel;
    switch (kernel) {
        case KsparseKernel::k1:
            p.rows_per_array = 3;
            p.arrays_per_block = 1;
            out.emplace_back("3 rows per array, 1 array", p);
            p.rows_per_array = 1;
            p.arrays_per_block = 32;
            out.emplace_back("32 arrays", p);
            break;
        case KsparseKernel::k2:
            p.rows_per_array = 3;
            p.arrays_per_block = 1;
            p.groups = (bs + 15) / 16;  // the most columns per thread (16)
            out.emplace_back("3 rows per array, fewest groups", p);
            p.rows_per_array = 2;
            p.groups = std::min(bs, 1024 / bs);  // the fewest columns per thread
            out.emplace_back("most groups", p);
            p.groups = std::min(bs, 3);  // uneven ept across groups
            if ((bs + p.groups - 1) / p.groups <= 16) out.emplace_back("3 groups", p);
            break;
        default:
            p.nb = 16;
            p.groups = 1;
            p.ept = 1;
            out.emplace_back("nb 16, 1 group, ept 1", p);
            p.nb = 32;
            p.groups = 4;
            p.ept = 8;
            out.emplace_back("nb 32, 4 groups, ept 8", p);
            p.nb = 128;
            p.groups = 8;
            p.ept = 2;
            out.emplace_back("nb 128, 8 groups, ept 2", p);
            break;
    }
    return out;
}

class KsparseVsRef : public test::GpuTest, public ::testing::WithParamInterface<Param> {};

TEST_P(KsparseVsRef, AgreesWithTheReferenceOnEveryShape) {
    const auto [bs, kernel] = GetParam();
    // Enough block rows for many thread blocks at small bs; fewer values at large bs.
    const int rows = bs <= 16 ? 3000 : 120;
    const Bsr A = promote_to_bsr(pattern(rows, bs <= 16 ? 6 : 3, 7u + bs), bs, 11u + bs);
    const std::vector<double> x =
        test::random_vector(static_cast<std::size_t>(rows) * bs, 5u + static_cast<unsigned>(bs));
    KsparseParams p;
    p.kernel = kernel;
    for (KsparseBalance balance : {KsparseBalance::off, KsparseBalance::on}) {
        SCOPED_TRACE(to_string(balance));
        p.balance = balance;
        p.lambda = 2;  // balanced: every row longer than 2 blocks is split
        EXPECT_TRUE(agrees(A, x, spmv_ksparse(A, x, p))) << "defaults";
        for (auto [what, v] : variants(kernel, bs)) {
            v.balance = balance;
            v.lambda = 3;
            try {
                EXPECT_TRUE(agrees(A, x, spmv_ksparse(A, x, v))) << what;
            } catch (const NotSupported& e) {
                // Only K2's registers may refuse a shape, and only for large blocks.
                EXPECT_TRUE(kernel == KsparseKernel::k2 && bs > 32) << what << ": " << e.what();
            }
        }
        // A one-row matrix and an empty one.
        const Bsr one = promote_to_bsr(pattern(1, 4, 3), bs, 2);
        const std::vector<double> x1 = test::random_vector(static_cast<std::size_t>(bs), 9);
        EXPECT_TRUE(agrees(one, x1, spmv_ksparse(one, x1, p))) << "one row";
        const Bsr empty = promote_to_bsr(pattern(0, 4, 3), bs, 2);
        EXPECT_TRUE(spmv_ksparse(empty, {}, p).empty());
    }
}

std::vector<Param> params() {
    std::vector<Param> out;
    for (int bs : {1, 2, 3, 4, 5}) out.emplace_back(bs, KsparseKernel::k1);
    // K2 holds a whole block row's block in one thread array's registers: up to bs 64 here
    // (the refusal above that is tested below; K3 takes over from 45).
    for (int bs : {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32, 45, 48, 64}) {
        out.emplace_back(bs, KsparseKernel::k2);
    }
    for (int bs : {2, 3, 5, 7, 8, 16, 24, 32, 45, 48, 64, 100, 128}) {
        out.emplace_back(bs, KsparseKernel::k3);
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, KsparseVsRef, ::testing::ValuesIn(params()),
                         [](const auto& info) {
                             return std::string(to_string(std::get<1>(info.param))) + "_bs" +
                                    std::to_string(std::get<0>(info.param));
                         });

class Ksparse : public test::GpuTest {};

TEST_F(Ksparse, AutomaticChoiceAndRefusals) {
    EXPECT_EQ(ksparse_kernel_for(1), KsparseKernel::k1);
    EXPECT_EQ(ksparse_kernel_for(5), KsparseKernel::k1);
    EXPECT_EQ(ksparse_kernel_for(6), KsparseKernel::k2);
    EXPECT_EQ(ksparse_kernel_for(8), KsparseKernel::k4);
    EXPECT_EQ(ksparse_kernel_for(8, KsparseBalance::off), KsparseKernel::k2);
    EXPECT_EQ(ksparse_kernel_for(8, KsparseBalance::on), KsparseKernel::k4);
    EXPECT_EQ(ksparse_kernel_for(12), KsparseKernel::k2);
    EXPECT_EQ(ksparse_kernel_for(16), KsparseKernel::k4);
    EXPECT_EQ(ksparse_kernel_for(32), KsparseKernel::k4);
    EXPECT_EQ(ksparse_kernel_for(44), KsparseKernel::k2);
    EXPECT_EQ(ksparse_kernel_for(45), KsparseKernel::k3);
    const Bsr A6 = promote_to_bsr(pattern(10, 2, 1), 6, 1);
    const std::vector<double> x6(60, 1.0);
    EXPECT_THROW(spmv_ksparse(A6, x6, {KsparseKernel::k1}), NotSupported);
    const Bsr A1 = promote_to_bsr(pattern(10, 2, 1), 1, 1);
    const std::vector<double> x1(10, 1.0);
    EXPECT_THROW(spmv_ksparse(A1, x1, {KsparseKernel::k2}), NotSupported);
    EXPECT_THROW(spmv_ksparse(A1, x1, {KsparseKernel::k3}), NotSupported);
    EXPECT_THROW(spmv_ksparse(A1, std::vector<double>(9, 1.0)), std::invalid_argument);
    const Bsr big = promote_to_bsr(pattern(2, 1, 1), 128, 1);
    const std::vector<double> xb(256, 1.0);
    KsparseParams p{KsparseKernel::k2};
    p.groups = 16;  // 128 x 16 = 2,048 threads per array
    EXPECT_THROW(spmv_ksparse(big, xb, p), NotSupported);
    p.groups = 4;  // 32 columns per thread: more than K2 keeps in registers
    EXPECT_THROW(spmv_ksparse(big, xb, p), NotSupported);
    try {  // no launchable K2 shape for 128 x 128 blocks: the message points to K3
        spmv_ksparse(big, xb, {KsparseKernel::k2});
        ADD_FAILURE() << "K2 took 128 x 128 blocks";
    } catch (const NotSupported& e) {
        EXPECT_NE(std::string(e.what()).find("use K3"), std::string::npos) << e.what();
    }
    KsparseParams q{KsparseKernel::k3};
    q.ept = 3;  // K3 takes ept 1, 2, 4, 8
    EXPECT_THROW(spmv_ksparse(big, xb, q), NotSupported);
    q.ept = 1;
    q.nb = 128;
    q.groups = 16;  // 2,048 threads
    EXPECT_THROW(spmv_ksparse(big, xb, q), NotSupported);
    // The automatic kernel on shapes each kernel takes.
    for (int bs : {4, 12, 45}) {
        const Bsr A = promote_to_bsr(pattern(50, 3, 2), bs, 3);
        const std::vector<double> x = test::random_vector(50 * static_cast<std::size_t>(bs), 4);
        EXPECT_TRUE(agrees(A, x, spmv_ksparse(A, x))) << bs;
    }
}

TEST_F(Ksparse, BalancedLayoutOnTheSkewedMatrix) {
    // inputs/data/matrices/skewed.mtx: 16 rows of 4,000 blocks among 19,984 short ones. The
    // automatic choice takes the balanced layout there and not on lhr07 (prefer_balanced);
    // both layouts must give the reference's product.
    const Csr skewed = read_matrix_market(test::source_path("inputs/data/matrices/skewed.mtx"));
    const Csr lhr07 = read_matrix_market(test::source_path("inputs/data/matrices/lhr07.mtx"));
    for (int bs : {1, 3, 6}) {  // K1 and K2 (automatic takes K4, always split, at 8)
        SCOPED_TRACE(bs);
        const Bsr A = promote_to_bsr(skewed, bs, 5);
        EXPECT_EQ(ksparse_resolved(A).balance, KsparseBalance::on);
        // lambda: 16, or for K1 the blocks of one warp batch (4 loads of 32 / bs^2 blocks).
        EXPECT_EQ(ksparse_resolved(A).lambda, bs == 1 ? 128 : 16);
        EXPECT_EQ(ksparse_resolved(promote_to_bsr(lhr07, bs, 5)).balance, KsparseBalance::off);
        const std::vector<double> x =
            test::random_vector(static_cast<std::size_t>(A.block_rows) * bs, 6);
        for (KsparseBalance balance :
             {KsparseBalance::automatic, KsparseBalance::off, KsparseBalance::on}) {
            KsparseParams p;
            p.balance = balance;
            EXPECT_TRUE(agrees(A, x, spmv_ksparse(A, x, p))) << to_string(balance);
        }
    }
}

/// K4 against its specification, spmv_chunked: the same bits, for every block size it takes,
/// every loads-in-flight variant and chunk lengths from one block (every row split) to many
/// rows per chunk, on the uneven pattern (empty rows, a row 8x longer) and on the skewed
/// matrix (rows of 4,000 blocks: many segments each).
TEST_F(Ksparse, K4GivesTheBitsOfItsReference) {
    const Csr skewed = read_matrix_market(test::source_path("inputs/data/matrices/skewed.mtx"));
    struct Case {
        int bs;
        bool skewed;
        std::vector<int> epts, chunks;
    };
    // The skewed matrix at bs 8 only (94 MB of values; its 16 long rows make 250+ segments
    // each); the pattern at every block size with every variant.
    std::vector<Case> cases;
    for (int bs : {8, 16, 32})
        cases.push_back({bs, false, {4, 8}, {1, 5, k4_default_chunk(bs, 0), 200}});
    cases.push_back({8, true, {8}, {5, k4_default_chunk(8, 0)}});
    for (const Case& c : cases) {
        const int bs = c.bs;
        const Bsr A =
            c.skewed ? promote_to_bsr(skewed, bs, 17u)
                     : promote_to_bsr(pattern(bs == 32 ? 500 : 2000, 5, 3u + bs), bs, 13u + bs);
        const std::vector<double> x =
            test::random_vector(static_cast<std::size_t>(A.block_cols) * bs, 8u + bs);
        for (int ept : c.epts) {
            for (int chunk : c.chunks) {
                SCOPED_TRACE("bs " + std::to_string(bs) + (c.skewed ? " skewed" : " pattern") +
                             " ept " + std::to_string(ept) + " chunk " + std::to_string(chunk));
                KsparseParams p{KsparseKernel::k4};
                p.ept = ept;
                p.lambda = chunk;
                p.arrays_per_block = ept == 8 ? 16 : 4;
                std::vector<double> ref(static_cast<std::size_t>(A.block_rows) * bs);
                spmv_chunked(A, chunk_rows(A, chunk), x.data(), ref.data());
                const std::vector<double> dev = spmv_ksparse(A, x, p);
                ASSERT_EQ(dev.size(), ref.size());
                std::size_t differ = 0, first = 0;
                for (std::size_t i = dev.size(); i-- > 0;) {
                    if (dev[i] != ref[i]) {
                        ++differ;
                        first = i;
                    }
                }
                EXPECT_EQ(differ, 0u)
                    << "first at " << first << ": " << dev[first] << " vs " << ref[first];
                if (chunk == 5) {
                    EXPECT_TRUE(agrees(A, x, dev));  // and it is A x
                }
            }
        }
    }
    // A one-row matrix, an empty one, and the shapes K4 refuses.
    const Bsr one = promote_to_bsr(pattern(1, 4, 3), 16, 2);
    const std::vector<double> x1 = test::random_vector(16, 9);
    EXPECT_TRUE(agrees(one, x1, spmv_ksparse(one, x1, {KsparseKernel::k4})));
    EXPECT_TRUE(
        spmv_ksparse(promote_to_bsr(pattern(0, 4, 3), 8, 2), {}, {KsparseKernel::k4}).empty());
    const Bsr A4 = promote_to_bsr(pattern(10, 2, 1), 4, 1);
    EXPECT_THROW(spmv_ksparse(A4, std::vector<double>(40, 1.0), {KsparseKernel::k4}), NotSupported);
    const Bsr A8 = promote_to_bsr(pattern(10, 2, 1), 8, 1);
    const std::vector<double> x8(80, 1.0);
    KsparseParams q{KsparseKernel::k4};
    q.balance = KsparseBalance::off;  // K4 always splits the longest rows
    EXPECT_THROW(spmv_ksparse(A8, x8, q), NotSupported);
    q = KsparseParams{KsparseKernel::k4};
    q.ept = 16;  // 4 or 8 (with x double-buffered, 16 would spill)
    EXPECT_THROW(spmv_ksparse(A8, x8, q), NotSupported);
    q = KsparseParams{KsparseKernel::k4};
    q.arrays_per_block = 32;  // 1,024 threads: more than K4's 128 registers a thread allow
    EXPECT_THROW(spmv_ksparse(A8, x8, q), NotSupported);
    q = KsparseParams{KsparseKernel::k4};
    q.arrays_per_block = 16;
    q.lambda = 1000;  // 16 warps x 8 KB of chunk indices: over 48 KB of shared memory
    EXPECT_THROW(spmv_ksparse(A8, x8, q), NotSupported);
    EXPECT_EQ(ksparse_resolved(A8, {KsparseKernel::k4}).lambda, 8);  // a small matrix
    EXPECT_EQ(ksparse_resolved(A8).kernel, KsparseKernel::k4);       // automatic at bs 8
    KsparseParams off;
    off.balance = KsparseBalance::off;
    EXPECT_EQ(ksparse_resolved(A8, off).kernel, KsparseKernel::k2);
    EXPECT_EQ(ksparse_resolved(promote_to_bsr(skewed, 8, 1), {KsparseKernel::k4}).lambda, 45);
}

}  // namespace
}  // namespace heptane::gpu
