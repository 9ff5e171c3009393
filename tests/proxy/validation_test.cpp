// The proxy's checks (proxy/validation.hpp) on their own: each accepts what is right and
// rejects a deliberately broken input.
#include "proxy/validation.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/spmv/spmv.hpp"
#include "proxy/problem.hpp"

namespace heptane::proxy {
namespace {

const wells::Model& model() {
    static const wells::Model m = wells::generate(problem_model({20, 20, 6}));
    return m;
}

TEST(ProxyValidation, ChecksumSeesOneBit) {
    std::vector<double> x{1.0, -2.5, 3e-300, 0.0};
    const std::uint64_t h = bits_checksum(x);
    EXPECT_EQ(bits_checksum(x), h);
    std::vector<double> y = x;
    y[1] = std::nextafter(y[1], 0.0);
    EXPECT_NE(bits_checksum(y), h);
    y = x;
    y[3] = -0.0;  // equal as numbers, not as bits
    EXPECT_NE(bits_checksum(y), h);
    std::swap(y[0], y[1]);
    EXPECT_NE(bits_checksum(y), h);
}

TEST(ProxyValidation, TrueResidualOfAKnownSolution) {
    const GHMatrix& A = model().system.matrix;
    std::vector<double> x(static_cast<std::size_t>(A.rows()));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + 0.01 * static_cast<double>(i % 13);
    const std::vector<double> b = spmv(A, x);
    EXPECT_LT(true_relative_residual(A, b, x), 1e-14);
    std::vector<double> wrong = x;
    wrong[wrong.size() / 2] *= 1.01;
    EXPECT_GT(true_relative_residual(A, b, wrong), 1e-6);
    EXPECT_DOUBLE_EQ(true_relative_residual(A, b, std::vector<double>(x.size(), 0.0)), 1.0);
}

TEST(ProxyValidation, MaxRelativeDifference) {
    EXPECT_EQ(max_relative_difference({1.0, 2.0}, {1.0, 2.0}), 0.0);
    EXPECT_DOUBLE_EQ(max_relative_difference({1.0, 2.5}, {1.0, 2.0}), 0.25);
}

TEST(ProxyValidation, TransposeConsistencyHoldsForTheTransposeAndFailsForAnotherMatrix) {
    const GHMatrix& A = model().system.matrix;
    const TransposeCheck right = transpose_consistency(
        A,
        [&](const std::vector<double>& v, bool t) { return t ? spmv_transpose(A, v) : spmv(A, v); },
        kSeed);
    EXPECT_TRUE(right.passed()) << right.difference() << " > " << right.bound;
    EXPECT_GT(right.bound, 0.0);
    EXPECT_LT(right.bound, 1e-10 * std::abs(right.forward));  // a rounding bound, not a guess
    // A used for A^T (the two-phase GH matrix is not symmetric): caught.
    const TransposeCheck wrong = transpose_consistency(
        A, [&](const std::vector<double>& v, bool) { return spmv(A, v); }, kSeed);
    EXPECT_FALSE(wrong.passed());
    // One entry of A^T x off by 1e-6 relative: caught.
    const TransposeCheck off = transpose_consistency(
        A,
        [&](const std::vector<double>& v, bool t) {
            std::vector<double> y = t ? spmv_transpose(A, v) : spmv(A, v);
            if (t) y[y.size() / 3] *= 1.0 + 1e-6;
            return y;
        },
        kSeed);
    EXPECT_FALSE(off.passed()) << off.difference() << " <= " << off.bound;
}

}  // namespace
}  // namespace heptane::proxy
