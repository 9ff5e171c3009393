// Device Bdia + wells SpMV against the CPU reference: every K = 1..16, every variant, GH x
// and GH^T x. The device uses the canonical arithmetic of core/base/canonical.hpp, so the
// results must be identical bit for bit, not merely close.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "common/gpu_test.hpp"
#include "common/same_bits.hpp"
#include "common/test_systems.hpp"
#include "core/spmv/spmv.hpp"
#include "gpu/spmv.hpp"

namespace heptane::gpu {
namespace {

using test::same_bits;

using Param = std::tuple<int, BdiaVariant>;  // K, variant

class SpmvVsRef : public test::GpuTest, public ::testing::WithParamInterface<Param> {};

TEST_P(SpmvVsRef, SyntheticShapesWithWellsAreBitwiseEqual) {
    const auto [K, variant] = GetParam();
    // Odd sizes, one cell thick in each direction, wells in the corners and on the edges.
    const int shapes[][3] = {{5, 4, 3}, {3, 5, 7}, {1, 4, 5}, {4, 1, 5},
                             {4, 5, 1}, {1, 1, 6}, {9, 7, 33}};
    for (const auto& s : shapes) {
        SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                     std::to_string(s[2]));
        const auto model =
            test::synthetic_model(s[0], s[1], s[2], K, test::corner_wells(s[0], s[1], s[2]));
        const GHMatrix& A = model.system.matrix;
        const auto x = test::random_vector(static_cast<std::size_t>(A.rows()), 5);
        EXPECT_TRUE(same_bits(spmv(A, x), spmv_device(A, x, variant)));
        EXPECT_TRUE(same_bits(spmv_transpose(A, x), spmv_device(A, x, variant, true)));
    }
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
    return std::string(to_string(std::get<1>(info.param))) + "_K" +
           std::to_string(std::get<0>(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllK, SpmvVsRef,
                         ::testing::Combine(::testing::Range(1, 17),
                                            ::testing::Values(BdiaVariant::cell_fastest,
                                                              BdiaVariant::cell_fastest_x2,
                                                              BdiaVariant::tiled)),
                         param_name);

class SpmvConnections : public test::GpuTest {};

// A faulted grid's non-neighbour connections (design decision 63): the device adds each row's
// connection terms after its stencil terms and before its well term, as the reference does,
// in every layout, for A x and A^T x (the mirror entries' blocks transposed).
TEST_F(SpmvConnections, FaultConnectionsAreTheReferencesBits) {
    for (int K : {1, 2, 3, 4, 8}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        const GHMatrix A = test::with_connections(7, 5, 9, K, 3 + K);
        ASSERT_TRUE(A.has_nnc());
        const auto x = test::random_vector(static_cast<std::size_t>(A.rows()), 9);
        const std::vector<double> y = spmv(A, x), yt = spmv_transpose(A, x);
        GHMatrix plain = A;  // the check can fail: without them the product differs
        plain.set_nnc(NncArrays{});
        EXPECT_FALSE(same_bits(y, spmv_device(plain, x, BdiaVariant::cell_fastest)));
        for (BdiaVariant v :
             {BdiaVariant::cell_fastest, BdiaVariant::cell_fastest_x2, BdiaVariant::tiled}) {
            EXPECT_TRUE(same_bits(y, spmv_device(A, x, v))) << to_string(v);
            EXPECT_TRUE(same_bits(yt, spmv_device(A, x, v, true))) << to_string(v);
        }
    }
}

class SpmvRows : public test::GpuTest {};

TEST_F(SpmvRows, ARangeOfCellsAndTheWellsAreTheFullProductsRowsTheRestIsKept) {
    // What a GPU rank computes while its halo planes travel (its interior cells and wells),
    // then its edge planes: each range's rows are the reference's bits (A x, and A^T x for
    // QMR), the others untouched.
    const double kept = -7.25;
    for (int K : {1, 2, 3, 5}) {
        const auto model = test::synthetic_model(6, 5, 4, K, test::corner_wells(6, 5, 4));
        const GHMatrix& A = model.system.matrix;
        const auto x = test::random_vector(static_cast<std::size_t>(A.rows()), 11);
        const index_t plane = 5 * 4, M = A.num_cells();
        for (bool transpose : {false, true}) {
            const std::vector<double> full = transpose ? spmv_transpose(A, x) : spmv(A, x);
            for (BdiaVariant v : {BdiaVariant::cell_fastest, BdiaVariant::tiled}) {
                for (auto [begin, end, wells] :
                     {std::tuple<index_t, index_t, bool>{plane, M - plane, true},
                      {0, plane, false},
                      {M - plane, M, false},
                      {3, 3, true}}) {
                    SCOPED_TRACE(std::string(to_string(v)) + (transpose ? " transpose" : "") +
                                 " K " + std::to_string(K) + " [" + std::to_string(begin) + ", " +
                                 std::to_string(end) + ")");
                    const std::vector<double> y = spmv_rows_device(
                        A, x, v, begin, end, wells, std::vector<double>(x.size(), kept), transpose);
                    std::vector<double> expect(x.size(), kept);
                    for (index_t i = begin * K; i < end * K; ++i) expect[i] = full[i];
                    for (index_t i = M * K; wells && i < A.rows(); ++i) expect[i] = full[i];
                    EXPECT_TRUE(same_bits(expect, y));
                }
            }
        }
        EXPECT_THROW(spmv_rows_device(A, x, BdiaVariant::cell_fastest_x2, 0, M, true, x),
                     std::invalid_argument);
    }
}

class SpmvVsRefTwoPhase : public test::GpuTest {};

TEST_F(SpmvVsRefTwoPhase, JacobianAndNonFiniteInput) {
    const auto model = wells::generate(test::two_phase_spec(7, 6, 5, test::corner_wells(7, 6, 5)));
    const GHMatrix& A = model.system.matrix;
    auto x = test::random_vector(static_cast<std::size_t>(A.rows()), 9);
    x[13] = std::numeric_limits<double>::quiet_NaN();  // propagates to the same rows
    for (BdiaVariant v :
         {BdiaVariant::cell_fastest, BdiaVariant::cell_fastest_x2, BdiaVariant::tiled}) {
        EXPECT_TRUE(same_bits(spmv(A, x), spmv_device(A, x, v))) << to_string(v);
        EXPECT_TRUE(same_bits(spmv_transpose(A, x), spmv_device(A, x, v, true))) << to_string(v);
    }
}

}  // namespace
}  // namespace heptane::gpu
