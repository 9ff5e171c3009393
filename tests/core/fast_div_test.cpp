// FastDiv (core/base/fast_div.hpp) against the hardware division for many divisors and numerators,
// edges included.
#include "core/base/fast_div.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/base/random.hpp"

namespace heptane {
namespace {

TEST(FastDiv, MatchesIntegerDivision) {
    Rng rng(42);
    std::vector<std::uint32_t> divisors = {
        1,    2,    3,     5,     6,        7,
        60,   85,   128,   220,   255,      256,
        1000, 4096, 65535, 65536, 1u << 31, std::numeric_limits<std::uint32_t>::max()};
    for (int i = 0; i < 200; ++i)
        divisors.push_back(1 + static_cast<std::uint32_t>(rng.next() % 100000));
    for (std::uint32_t d : divisors) {
        const FastDiv f(d);
        const std::uint32_t edges[] = {0,
                                       1,
                                       d - 1,
                                       d,
                                       d + 1,
                                       2 * d - 1,
                                       std::numeric_limits<std::uint32_t>::max(),
                                       std::numeric_limits<std::uint32_t>::max() - 1,
                                       1u << 31};
        for (std::uint32_t n : edges) ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
        for (int k = 0; k < 2000; ++k) {
            const auto n = static_cast<std::uint32_t>(rng.next());
            ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
            ASSERT_EQ(f.mod(n), n % d) << n << " % " << d;
        }
    }
}

}  // namespace
}  // namespace heptane
