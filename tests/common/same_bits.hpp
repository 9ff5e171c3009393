#pragma once
// Bitwise equality of two vectors for the tests that promise one process's, the host's or the
// reference's bits (NaN equals NaN of the same bits): the first mismatches and their count.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace heptane::test {

inline ::testing::AssertionResult same_bits(const std::vector<double>& ref,
                                            const std::vector<double>& got,
                                            const std::string& what = "") {
    const std::string name = what.empty() ? "" : what + ": ";
    if (ref.size() != got.size()) {
        return ::testing::AssertionFailure()
               << name << "sizes differ (" << ref.size() << " and " << got.size() << ")";
    }
    int bad = 0;
    ::testing::AssertionResult r = ::testing::AssertionFailure();
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (std::memcmp(&ref[i], &got[i], sizeof(double)) != 0) {
            if (bad < 20) r << "\n  " << name << "entry " << i << ": " << ref[i] << " vs " << got[i];
            ++bad;
        }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return r << "\n" << bad << " of " << ref.size() << " entries differ";
}

}  // namespace heptane::test
