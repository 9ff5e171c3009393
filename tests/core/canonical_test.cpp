// The canonical reduction (core/base/canonical.hpp) against a direct recursive transcription of
// its definition, and vec::dot (chunked, OpenMP) against both: same bits for every length,
// partition and thread count.
#include "core/base/canonical.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/random.hpp"
#include "core/base/vector_ops.hpp"

namespace heptane {
namespace {

/// node(lo, size) of the definition: groups of kGroup summed left to right, then
/// node(lo, 2w) = node(lo, w) + node(lo + w, w) when lo + w is a group, else node(lo, w).
double node(const std::vector<double>& t, long long lo, long long size) {
    const long long groups =
        (static_cast<long long>(t.size()) + canonical::kGroup - 1) / canonical::kGroup;
    if (size == 1) {
        const long long i = lo * canonical::kGroup;
        double s = t[i];
        for (long long j = i + 1; j < i + canonical::kGroup && j < static_cast<long long>(t.size());
             ++j) {
            s = canonical::add(s, t[j]);
        }
        return s;
    }
    const long long half = size / 2;
    if (lo + half >= groups) return node(t, lo, half);
    return canonical::add(node(t, lo, half), node(t, lo + half, half));
}

double definition(const std::vector<double>& t) {
    if (t.empty()) return 0.0;
    const long long groups =
        (static_cast<long long>(t.size()) + canonical::kGroup - 1) / canonical::kGroup;
    long long size = 1;
    while (size < groups) size *= 2;
    return node(t, 0, size);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(CanonicalReduce, MatchesTheDefinitionForEveryLength) {
    for (std::size_t n = 0; n < 300; ++n) {
        const auto t = test::mixed_terms(n, n);
        const double got =
            canonical::reduce([&](long long i) { return t[i]; }, static_cast<long long>(n));
        ASSERT_TRUE(same_bits(got, definition(t))) << "n = " << n;
    }
}

TEST(CanonicalReduce, VecDotMatchesTheDefinitionAcrossChunksAndThreads) {
    // Around the chunk (4096) and the parallel threshold (32768), and large.
    for (std::size_t n : {4095, 4096, 4097, 12289, 32767, 32768, 32769, 200003}) {
        const auto a = test::mixed_terms(n, 11 * n), b = test::mixed_terms(n, 13 * n);
        std::vector<double> prod(n);
        for (std::size_t i = 0; i < n; ++i) prod[i] = canonical::mul(a[i], b[i]);
        const double got = vec::dot(a.data(), b.data(), static_cast<index_t>(n));
        ASSERT_TRUE(same_bits(got, definition(prod))) << "n = " << n;
    }
}

TEST(CanonicalReduce, FusedSumsEqualSeparateDotsAndTheUpdate) {
    // The solvers' fused passes: an update z = x - a y and two reductions over its result in
    // one pass must give the bits of the update and of dot() after it, for every length
    // around the group, the chunk and the parallel threshold.
    for (std::size_t n : {1, 3, 4, 5, 4095, 4097, 32769, 200003}) {
        const auto x = test::mixed_terms(n, 3 * n), y = test::mixed_terms(n, 7 * n),
                   w = test::mixed_terms(n, 5 * n);
        const auto len = static_cast<index_t>(n);
        std::vector<double> z(n), z_fused(n);
        vec::xmay(x.data(), 0.75, y.data(), z.data(), len);
        const auto sums = vec::fused_sums<2>(len, [&](index_t i, double* t) {
            z_fused[i] = canonical::sub(x[i], canonical::mul(0.75, y[i]));
            t[0] = canonical::mul(z_fused[i], z_fused[i]);
            t[1] = canonical::mul(w[i], z_fused[i]);
        });
        ASSERT_EQ(std::memcmp(z.data(), z_fused.data(), n * sizeof(double)), 0) << "n = " << n;
        ASSERT_TRUE(same_bits(sums[0], vec::dot(z.data(), z.data(), len))) << "n = " << n;
        ASSERT_TRUE(same_bits(sums[1], vec::dot(w.data(), z.data(), len))) << "n = " << n;
    }
}

TEST(CanonicalReduce, AnyAlignedPartitionGivesTheSameBits) {
    // A GPU block owning 2^k groups computes a subtree; the tree over the blocks' sums must
    // be the whole tree.
    const std::size_t n = 10001;  // 2501 groups, not a power of two
    const auto t = test::mixed_terms(n, 5);
    const double whole = definition(t);
    for (long long block_groups : {1, 2, 8, 64, 1024, 4096}) {
        const long long groups =
            (static_cast<long long>(n) + canonical::kGroup - 1) / canonical::kGroup;
        const long long blocks = (groups + block_groups - 1) / block_groups;
        std::vector<double> partial(blocks);
        for (long long b = 0; b < blocks; ++b) {
            const long long first = b * block_groups * canonical::kGroup;
            const long long len =
                std::min(static_cast<long long>(n) - first, block_groups * canonical::kGroup);
            partial[b] = canonical::reduce([&](long long i) { return t[first + i]; }, len);
        }
        const double got = canonical::pairwise_sum([&](long long b) { return partial[b]; }, blocks);
        ASSERT_TRUE(same_bits(got, whole)) << block_groups << " groups per block";
    }
}

TEST(CanonicalReduce, TheOrderIsNotLeftToRight) {
    // 1 + 1e16 - 1e16 + 1 ... left to right loses the ones; the tree pairs them differently.
    // This pins the tree itself: a sequential implementation fails here.
    std::vector<double> t = {1e16, 1.0, 1.0, 1.0, 1.0, -1e16, 1.0, 1.0, 1.0};
    double sequential = 0.0;
    for (double v : t) sequential = canonical::add(sequential, v);
    const double got = canonical::reduce([&](long long i) { return t[i]; }, 9);
    EXPECT_TRUE(same_bits(got, definition(t)));
    EXPECT_FALSE(same_bits(got, sequential)) << got << " vs " << sequential;
}

}  // namespace
}  // namespace heptane
