#include "proxy/validation.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "core/base/random.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane::proxy {
namespace {

long double dot_long(const std::vector<double>& x, const std::vector<double>& y) {
    long double s = 0.0L;
    for (std::size_t i = 0; i < x.size(); ++i) s += static_cast<long double>(x[i]) * y[i];
    return s;
}

std::vector<double> uniform_vector(std::size_t n, std::uint64_t seed, std::uint64_t stream) {
    Rng rng(seed, stream);
    std::vector<double> v(n);
    for (double& e : v) e = rng.uniform(-1.0, 1.0);
    return v;
}

/// A with every stored value replaced by its absolute value.
GHMatrix absolute(const GHMatrix& A) {
    GHMatrix B = A;
    for (double& v : B.bdia()) v = std::abs(v);
    WellArrays& w = B.wells();
    for (double& v : w.w_vals) v = std::abs(v);
    for (double& v : w.wt_vals) v = std::abs(v);
    for (double& v : w.d) v = std::abs(v);
    return B;
}

}  // namespace

std::uint64_t bits_checksum(const std::vector<double>& x) {
    std::uint64_t h = 14695981039346656037ull;
    for (double v : x) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        for (int byte = 0; byte < 8; ++byte) {
            h ^= (bits >> (8 * byte)) & 0xffu;
            h *= 1099511628211ull;
        }
    }
    return h;
}

double true_relative_residual(const GHMatrix& A, const std::vector<double>& b,
                              const std::vector<double>& x) {
    const std::vector<double> ax = spmv(A, x);
    long double r2 = 0.0L, b2 = 0.0L;
    for (std::size_t i = 0; i < b.size(); ++i) {
        const long double r = static_cast<long double>(b[i]) - ax[i];
        r2 += r * r;
        b2 += static_cast<long double>(b[i]) * b[i];
    }
    return b2 > 0 ? static_cast<double>(std::sqrt(r2 / b2)) : static_cast<double>(std::sqrt(r2));
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
    double scale = 0.0, diff = 0.0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        scale = std::max(scale, std::abs(b[i]));
        diff = std::max(diff, std::abs(a[i] - b[i]));
    }
    return diff / std::max(scale, DBL_MIN);
}

double TransposeCheck::difference() const { return std::abs(forward - transposed); }

TransposeCheck transpose_consistency(const GHMatrix& A, const Product& product,
                                     std::uint64_t seed) {
    const std::size_t n = static_cast<std::size_t>(A.rows());
    const std::vector<double> x = uniform_vector(n, seed, 1), y = uniform_vector(n, seed, 2);
    TransposeCheck c;
    c.forward = static_cast<double>(dot_long(x, product(y, false)));
    c.transposed = static_cast<double>(dot_long(y, product(x, true)));
    // The longest row: 7 blocks of K in a cell row plus its well column; a well row holds K
    // per perforated cell plus D.
    long long longest = 7LL * A.block_size() + 1;
    const WellArrays& w = A.wells();
    for (index_t k = 0; k < w.num_wells(); ++k) {
        longest =
            std::max<long long>(longest, static_cast<long long>(w.count[k]) * A.block_size() + 1);
    }
    std::vector<double> ax(n), ay(n);
    for (std::size_t i = 0; i < n; ++i) {
        ax[i] = std::abs(x[i]);
        ay[i] = std::abs(y[i]);
    }
    const long double magnitude = dot_long(ax, spmv(absolute(A), ay));
    const double terms = static_cast<double>(longest) +
                         std::log2(static_cast<double>(std::max<std::size_t>(n, 2))) + 4.0;
    c.bound = static_cast<double>(terms * (DBL_EPSILON / 2) * magnitude);
    return c;
}

}  // namespace heptane::proxy
