#include "core/vector_ops.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace heptane::vec {
namespace {

/// Sum of f(i) over [0, n), chunked as described in the header.
template <class F>
double chunked_sum(index_t n, F f) {
    const index_t chunks = (n + kChunk - 1) / kChunk;
    if (chunks <= 1) {
        double s = 0.0;
        for (index_t i = 0; i < n; ++i) s += f(i);
        return s;
    }
    std::vector<double> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t c = 0; c < chunks; ++c) {
        const index_t end = std::min(n, (c + 1) * kChunk);
        double s = 0.0;
        for (index_t i = c * kChunk; i < end; ++i) s += f(i);
        partial[c] = s;
    }
    double s = 0.0;
    for (double p : partial) s += p;
    return s;
}

}  // namespace

double dot(const double* x, const double* y, index_t n) {
    return chunked_sum(n, [=](index_t i) { return x[i] * y[i]; });
}

double norm2(const double* x, index_t n) { return std::sqrt(dot(x, x, n)); }

void axpy(double a, const double* x, double* y, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void axpby(double a, const double* x, double b, double* y, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
}

void waxpby(double a, const double* x, double b, const double* y, double* z, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) z[i] = a * x[i] + b * y[i];
}

void scale(double a, double* x, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) x[i] *= a;
}

void copy(const double* x, double* y, index_t n) {
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t i = 0; i < n; ++i) y[i] = x[i];
}

bool all_finite(const double* x, index_t n) {
    // A sum of 0 * x_i is 0 for finite entries and NaN for any inf or NaN.
    return chunked_sum(n, [=](index_t i) { return 0.0 * x[i]; }) == 0.0;
}

}  // namespace heptane::vec
