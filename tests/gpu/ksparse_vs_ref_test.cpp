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
#include "core/errors.hpp"
#include "core/matrix_market.hpp"
#include "core/spmv.hpp"
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
    EXPECT_TRUE(agrees(A, x, spmv_ksparse(A, x, p))) << "defaults";
    // Other launch parameters: several block rows per array, one array per block, and (K2)
    // one thread group (all columns in each thread) and as many groups as columns.
    p.rows_per_array = 3;
    p.arrays_per_block = 1;
    p.groups = 1;
    EXPECT_TRUE(agrees(A, x, spmv_ksparse(A, x, p))) << "3 rows per array, 1 group";
    p.groups = bs;
    p.arrays_per_block = bs * bs <= 1024 ? 1 : 0;
    if (kernel == KsparseKernel::k1 || bs * bs <= 1024) {
        EXPECT_TRUE(agrees(A, x, spmv_ksparse(A, x, p))) << "bs groups";
    }
    // A one-row matrix and an empty one.
    const Bsr one = promote_to_bsr(pattern(1, 4, 3), bs, 2);
    const std::vector<double> x1 = test::random_vector(static_cast<std::size_t>(bs), 9);
    EXPECT_TRUE(agrees(one, x1, spmv_ksparse(one, x1, {kernel, 0, 0, 0}))) << "one row";
    const Bsr empty = promote_to_bsr(pattern(0, 4, 3), bs, 2);
    EXPECT_TRUE(spmv_ksparse(empty, {}, {kernel, 0, 0, 0}).empty());
}

std::vector<Param> params() {
    std::vector<Param> out;
    for (int bs : {1, 2, 3, 4, 5}) out.emplace_back(bs, KsparseKernel::k1);
    for (int bs : {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32, 45, 48, 64, 100}) {
        out.emplace_back(bs, KsparseKernel::k2);
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
    const Bsr A6 = promote_to_bsr(pattern(10, 2, 1), 6, 1);
    const std::vector<double> x6(60, 1.0);
    EXPECT_THROW(spmv_ksparse(A6, x6, {KsparseKernel::k1, 0, 0, 0}), NotSupported);
    const Bsr A1 = promote_to_bsr(pattern(10, 2, 1), 1, 1);
    const std::vector<double> x1(10, 1.0);
    EXPECT_THROW(spmv_ksparse(A1, x1, {KsparseKernel::k2, 0, 0, 0}), NotSupported);
    EXPECT_THROW(spmv_ksparse(A1, std::vector<double>(9, 1.0)), std::invalid_argument);
    // 128 x 128 blocks in 16 groups would need 2,048 threads per array.
    const Bsr big = promote_to_bsr(pattern(2, 1, 1), 128, 1);
    EXPECT_THROW(spmv_ksparse(big, std::vector<double>(256, 1.0), {KsparseKernel::k2, 0, 0, 16}),
                 NotSupported);
    // The automatic kernel on a shape both kernels take.
    const Bsr A4 = promote_to_bsr(pattern(50, 3, 2), 4, 3);
    const std::vector<double> x4 = test::random_vector(200, 4);
    EXPECT_TRUE(agrees(A4, x4, spmv_ksparse(A4, x4)));
}

}  // namespace
}  // namespace heptane::gpu
