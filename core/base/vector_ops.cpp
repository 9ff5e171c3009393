#include "core/base/vector_ops.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace heptane::vec {
namespace {

/// Sum of f(i) over [0, n) in the canonical order (core/base/canonical.hpp): aligned chunks of
/// kChunk entries - subtrees of the canonical tree - in parallel, then the tree over them.
template <class F>
double canonical_sum(index_t n, F f) {
    if (n <= 0) return 0.0;
    const index_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<double> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t c = 0; c < chunks; ++c) {
        const index_t base = c * kChunk;
        partial[c] =
            canonical::reduce([&](index_t i) { return f(base + i); }, std::min(n - base, kChunk));
    }
    return canonical::pairwise_sum([&](index_t c) { return partial[c]; }, chunks);
}

}  // namespace

double dot(const double* x, const double* y, index_t n) {
    return canonical_sum(n, [=](index_t i) { return canonical::mul(x[i], y[i]); });
}

double norm2(const double* x, index_t n) { return std::sqrt(dot(x, x, n)); }

void axpy(double a, const double* x, double* y, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) y[i] = canonical::mul_add(a, x[i], y[i]);
}

void xpby(const double* x, double b, double* y, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) y[i] = canonical::mul_add(b, y[i], x[i]);
}

void xmay(const double* x, double a, const double* y, double* z, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) z[i] = canonical::sub(x[i], canonical::mul(a, y[i]));
}

void axpby(double a, const double* x, double b, double* y, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) y[i] = canonical::mul_add(b, y[i], canonical::mul(a, x[i]));
}

void scale(double a, double* x, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) x[i] = canonical::mul(a, x[i]);
}

void copy(const double* x, double* y, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) y[i] = x[i];
}

bool all_finite(const double* x, index_t n) {
    // A sum of 0 * x_i is 0 for finite entries and NaN for any inf or NaN.
    return canonical_sum(n, [=](index_t i) { return 0.0 * x[i]; }) == 0.0;
}

}  // namespace heptane::vec
