// canonical::exp, log and pow (core/base/canonical_math.hpp) against the C library: within
// 1 ulp of std:: (which is itself within 1 ulp of the exact value) over the ranges the
// physics uses and beyond, the special values, and integer powers as plain products.
#include "core/base/canonical_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/base/random.hpp"

namespace heptane {
namespace {

/// Distance in units in the last place between two finite doubles of the same sign.
std::int64_t ulps(double a, double b) {
    std::int64_t ia = 0, ib = 0;
    std::memcpy(&ia, &a, sizeof a);
    std::memcpy(&ib, &b, sizeof b);
    return ia > ib ? ia - ib : ib - ia;
}

TEST(CanonicalMath, ExpIsWithinOneUlpOfTheLibrary) {
    Rng rng(1);
    for (int i = 0; i < 200000; ++i) {
        // Compressibility terms (|x| < 0.1), the mid range, and near overflow and underflow.
        const double span = i % 4 == 0 ? 0.1 : (i % 4 == 1 ? 5.0 : (i % 4 == 2 ? 700.0 : 40.0));
        const double x = (2.0 * rng.uniform() - 1.0) * span;
        ASSERT_LE(ulps(canonical::exp(x), std::exp(x)), 1) << "x = " << x;
    }
    EXPECT_EQ(canonical::exp(0.0), 1.0);
    EXPECT_EQ(canonical::exp(1000.0), std::numeric_limits<double>::infinity());
    EXPECT_EQ(canonical::exp(-1000.0), 0.0);
    EXPECT_TRUE(std::isnan(canonical::exp(std::nan(""))));
}

TEST(CanonicalMath, LogIsWithinOneUlpOfTheLibrary) {
    Rng rng(2);
    for (int i = 0; i < 200000; ++i) {
        // Saturations (0, 1], values around 1, and 2^-1000 .. 2^1000.
        const double x = i % 3 == 0   ? rng.uniform() + 1e-300
                         : i % 3 == 1 ? 0.5 + rng.uniform()
                                      : std::ldexp(0.5 + rng.uniform(),
                                                   static_cast<int>(rng.uniform() * 2000) - 1000);
        ASSERT_LE(ulps(canonical::log(x), std::log(x)), 1) << "x = " << x;
    }
    EXPECT_EQ(canonical::log(1.0), 0.0);
    EXPECT_EQ(canonical::log(0.0), -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(canonical::log(-1.0)));
}

TEST(CanonicalMath, PowOfIntegerExponentsIsTheProductAndOthersAreClose) {
    Rng rng(3);
    for (int i = 0; i < 20000; ++i) {
        const double x = rng.uniform();
        EXPECT_EQ(canonical::pow(x, 2.0), x * x);
        EXPECT_EQ(canonical::pow(x, 3.0), x * (x * x));
        EXPECT_EQ(canonical::pow(x, 1.0), x);
        EXPECT_EQ(canonical::pow(x, 0.0), 1.0);
        // Fractional Corey exponents: e^(p ln x) loses about p |ln x| ulps at most.
        const double p = 1.0 + 3.0 * rng.uniform();
        const double want = std::pow(x, p);
        EXPECT_NEAR(canonical::pow(x, p), want, 1e-13 * want) << x << " ^ " << p;
    }
    EXPECT_EQ(canonical::pow(0.0, 2.5), 0.0);
}

}  // namespace
}  // namespace heptane
