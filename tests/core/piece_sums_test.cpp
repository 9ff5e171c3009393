// The canonical reduction of a vector held in pieces (core/base/piece_sums.hpp): any partition
// of [0, n) into contiguous pieces - a chunk split between two, pieces shorter than a chunk,
// empty ones, one piece for all - combines to vec::dot()'s bits; pieces that do not cover the
// range in order are refused.
#include "core/base/piece_sums.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/random.hpp"

namespace heptane {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<PieceSums> split(const std::vector<double>& t, std::vector<long long> cuts) {
    cuts.push_back(0);
    cuts.push_back(static_cast<long long>(t.size()));
    std::sort(cuts.begin(), cuts.end());
    std::vector<PieceSums> pieces;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        pieces.push_back(piece_sums(cuts[k], cuts[k + 1],
                                    [&](long long g) { return t[static_cast<std::size_t>(g)]; }));
    }
    return pieces;
}

/// dot(t, 1): the one-process canonical sum of the terms.
double one_process_sum(const std::vector<double>& t) {
    const std::vector<double> ones(t.size(), 1.0);
    return vec::dot(t.data(), ones.data(), static_cast<index_t>(t.size()));
}

TEST(PieceSums, AnyPartitionGivesTheOneVectorBits) {
    for (std::size_t n : {0, 1, 5, 4095, 4096, 4097, 12289, 50000, 200003}) {
        const auto t = test::mixed_terms(n, n + 1);
        const double whole = one_process_sum(t);
        Rng rng(7 * n + 3);
        const auto len = static_cast<long long>(n);
        for (int trial = 0; trial < 40; ++trial) {
            std::vector<long long> cuts;
            const int count = trial % 6;  // 0 (one piece) to 5 cuts, duplicates = empty pieces
            for (int k = 0; k < count; ++k)
                cuts.push_back(static_cast<long long>(rng.uniform() * static_cast<double>(len)));
            if (trial == 1 && len > 8192) cuts = {4096, 4100, 8192};  // aligned and short pieces
            ASSERT_TRUE(same_bits(combine_piece_sums(split(t, cuts)), whole))
                << "n = " << n << ", trial " << trial;
        }
    }
}

TEST(PieceSums, WholeChunksTravelAsAFewSubtrees) {
    // A piece holding c whole chunks sends at most 2 log2(c) + 1 subtree sums, and the pieces
    // still combine to the one-process bits.
    const long long chunk = vec::kChunk, n = 1003 * chunk + 5;
    const auto term = [](long long g) {
        return std::sin(0.001 * static_cast<double>(g)) * (g % 97 == 0 ? 1e12 : 1.0);
    };
    const double whole = vec::fused_sums<1>(n, [&](index_t i, double* t) { t[0] = term(i); })[0];
    const long long a = 3 * chunk + 17, b = 700 * chunk + 1;
    const std::vector<PieceSums> pieces = {piece_sums(0, a, term), piece_sums(a, b, term),
                                           piece_sums(b, n, term)};
    EXPECT_TRUE(same_bits(combine_piece_sums(pieces), whole));
    EXPECT_EQ(pieces[1].subtree_sums.size(), pieces[1].subtree_levels.size());
    EXPECT_LE(pieces[1].subtree_sums.size(), 2u * 10u + 1u);  // 696 whole chunks
    EXPECT_LE(pieces[2].subtree_sums.size(), 2u * 9u + 1u);   // 302
    long long chunks = 0;
    for (int level : pieces[1].subtree_levels) chunks += 1LL << level;
    EXPECT_EQ(chunks, 700 - 4);  // chunks 4 .. 699
}

TEST(PieceSums, PiecesOutOfOrderOrWithGapsAreRefused) {
    const auto t = test::mixed_terms(10000, 1);
    auto pieces = split(t, {3000, 7000});
    std::swap(pieces[0], pieces[1]);
    EXPECT_THROW(combine_piece_sums(pieces), std::invalid_argument);
    auto gap = split(t, {3000, 7000});
    gap.erase(gap.begin() + 1);
    EXPECT_THROW(combine_piece_sums(gap), std::invalid_argument);
}

TEST(PieceSums, AddingThePiecesTotalsWouldGiveOtherBits) {
    // What the test above guards against: each rank's own canonical total, added in rank
    // order, is not the one-process tree.
    const auto t = test::mixed_terms(50000, 9);
    const std::vector<long long> cuts = {10001, 30007};
    double naive = 0.0;
    long long begin = 0;
    for (long long end : {10001LL, 30007LL, 50000LL}) {
        naive += one_process_sum(std::vector<double>(t.begin() + begin, t.begin() + end));
        begin = end;
    }
    EXPECT_TRUE(same_bits(combine_piece_sums(split(t, cuts)), one_process_sum(t)));
    EXPECT_FALSE(same_bits(naive, one_process_sum(t)));
}

}  // namespace
}  // namespace heptane
