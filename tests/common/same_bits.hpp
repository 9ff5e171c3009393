#pragma once
// Bitwise equality of two vectors for the tests that promise one process's, the host's or the
// reference's bits (NaN equals NaN of the same bits): the first mismatches and their count.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/krylov/krylov.hpp"

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
            if (bad < 20)
                r << "\n  " << name << "entry " << i << ": " << ref[i] << " vs " << got[i];
            ++bad;
        }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return r << "\n" << bad << " of " << ref.size() << " entries differ";
}

/// Two solves of one system (one process and the ranks, the host and the device): the same
/// status, iterations and restarts, and the same bits in the residual histories (QMR's
/// quasi-residuals too) and the true residual.
inline ::testing::AssertionResult same_solve(const SolveResult& ref, const SolveResult& got) {
    if (ref.status != got.status || ref.iterations != got.iterations ||
        ref.restarts != got.restarts) {
        return ::testing::AssertionFailure()
               << "status " << to_string(ref.status) << " / " << to_string(got.status)
               << ", iterations " << ref.iterations << " / " << got.iterations << ", restarts "
               << ref.restarts << " / " << got.restarts;
    }
    if (auto r = same_bits(ref.history, got.history, "history"); !r) return r;
    if (auto r = same_bits(ref.quasi_history, got.quasi_history, "quasi_history"); !r) return r;
    return same_bits({ref.true_relative_residual}, {got.true_relative_residual}, "true residual");
}

}  // namespace heptane::test
