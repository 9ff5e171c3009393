#pragma once
/// @file The proxy's checks inside the run (issue 18; docs/PROXY.md, "Validation"): pure
/// functions on host data, so that whatever backend produced a vector, the check itself runs
/// on the reference code.
#include <cstdint>
#include <functional>
#include <vector>

#include "core/matrix/gh_matrix.hpp"

namespace heptane::proxy {

/// FNV-1a over the bit patterns of x: equal for equal bits (and for nothing else, but with
/// probability 2^-64). Repeated solves must give the same checksum.
std::uint64_t bits_checksum(const std::vector<double>& x);

/// ||b - A x||_2 / ||b||_2 by the reference product, the norms accumulated in long double.
double true_relative_residual(const GHMatrix& A, const std::vector<double>& b,
                              const std::vector<double>& x);

/// Largest |a_i - b_i| / max(|b|_inf, tiny) over the entries: how far a solution is from the
/// reference's.
double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b);

/// x^T (A y) against y^T (A^T x) for x, y uniform in [-1, 1): in exact arithmetic equal.
/// The bound is (m + log2(n) + 4) u |x|^T |A| |y| with m the longest row of GH, u the unit
/// roundoff and |A| the matrix of absolute values: a rounding-error bound of both sides
/// (each a product of sums of at most m terms, then a pairwise reduction of n terms).
struct TransposeCheck {
    double forward = 0.0;     ///< x^T (A y)
    double transposed = 0.0;  ///< y^T (A^T x)
    double bound = 0.0;
    double difference() const;
    bool passed() const { return difference() <= bound; }
};

/// `product(v, transpose)` returns A v or A^T v (the backend's kernels).
using Product = std::function<std::vector<double>(const std::vector<double>&, bool)>;
TransposeCheck transpose_consistency(const GHMatrix& A, const Product& product, std::uint64_t seed);

}  // namespace heptane::proxy
