// The plan that joins every rank's pass parts on each GPU (core/base/join_plan.hpp, design
// decision 59): for any split of the cell entries over 1 to 5 ranks (slabs shorter than a chunk,
// empty ones, edges on and off chunk boundaries) and wells spread over the ranks in any order,
// the joined buffer - laid out as the GPU ranks write it - gives vec::fused_sums's bits for both
// sums of a two-sum pass; ranks that do not tile the entries are refused.
#include "core/base/join_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/piece_sums.hpp"
#include "core/base/random.hpp"

namespace heptane {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The joined buffer of a pass of two sums whose terms of global entry g are t[0][g], t[1][g]:
/// each rank's whole chunks reduced, its loose terms kept, as slab_base.cuh's kernels lay them.
std::vector<double> joined_parts(const JoinPlan& plan, const std::vector<RankHolding>& ranks,
                                 const std::vector<double> (&t)[2]) {
    constexpr int Q = 2;
    std::vector<double> out(static_cast<std::size_t>(Q * plan.offset.back()), -7.0);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const RankHolding& e = ranks[r];
        const ChunkSpan span = chunk_span(e.c0, e.cells);
        const long long whole = span.whole();
        const long long head_end = whole > 0 ? span.first : e.c0 + e.cells;
        const long long tail_begin = whole > 0 ? span.last : e.c0 + e.cells;
        std::vector<long long> loose;
        for (long long g = e.c0; g < head_end; ++g) loose.push_back(g);
        for (long long g = tail_begin; g < e.c0 + e.cells; ++g) loose.push_back(g);
        for (index_t g : e.well_rows) loose.push_back(g);
        const auto count = static_cast<long long>(loose.size());
        double* mine = out.data() + Q * plan.offset[r];
        for (int q = 0; q < Q; ++q) {
            const std::vector<double>& tq = t[q];
            for (long long j = 0; j < whole; ++j) {
                const long long base = span.first + j * vec::kChunk;
                mine[q * whole + j] = canonical::reduce(
                    [&](long long i) { return tq[static_cast<std::size_t>(base + i)]; },
                    vec::kChunk);
            }
            for (long long k = 0; k < count; ++k) {
                mine[Q * whole + q * count + k] = tq[static_cast<std::size_t>(loose[k])];
            }
        }
    }
    return out;
}

TEST(JoinPlan, AnySplitOverTheRanksGivesTheOneProcessBits) {
    Rng rng(2026);
    for (long long cells : {5LL, 4096LL, 4099LL, 20000LL, 3 * 4096LL + 11, 61440LL}) {
        for (int trial = 0; trial < 30; ++trial) {
            const int R = 1 + trial % 5;
            const int W = trial % 4 == 0 ? 0 : static_cast<int>(1 + rng.uniform() * 40);
            std::vector<long long> cuts = {0, cells};
            for (int k = 1; k < R; ++k) {
                cuts.push_back(trial == 3 ? k * vec::kChunk % (cells + 1)  // on boundaries
                                          : static_cast<long long>(rng.uniform() * cells));
            }
            std::sort(cuts.begin(), cuts.end());
            std::vector<RankHolding> ranks(static_cast<std::size_t>(R));
            for (int r = 0; r < R; ++r) {
                ranks[r].c0 = cuts[r];
                ranks[r].cells = cuts[r + 1] - cuts[r];
            }
            for (int w = 0; w < W; ++w) {  // well rows to random ranks, not in order
                const auto r = static_cast<std::size_t>(rng.uniform() * R);
                ranks[r].well_rows.push_back(static_cast<index_t>(cells + W - 1 - w));
            }
            const long long n = cells + W;
            std::vector<double> t[2] = {test::mixed_terms(static_cast<std::size_t>(n), n + trial),
                                        test::mixed_terms(static_cast<std::size_t>(n), 3 * n)};
            const JoinPlan plan = make_join_plan(ranks);
            ASSERT_EQ(plan.n, n);
            const std::vector<double> joined = joined_parts(plan, ranks, t);
            const auto sums = join_sums<2>(plan, joined.data());
            const auto one = vec::fused_sums<2>(n, [&](index_t g, double* out) {
                out[0] = t[0][static_cast<std::size_t>(g)];
                out[1] = t[1][static_cast<std::size_t>(g)];
            });
            ASSERT_TRUE(same_bits(sums[0], one[0]) && same_bits(sums[1], one[1]))
                << "cells " << cells << ", " << R << " ranks, " << W << " wells, trial " << trial;
        }
    }
}

TEST(JoinPlan, WholeChunksAreReadNotReduced) {
    // Two ranks, 3 chunks and a bit each: the first rank holds chunks 0-2 whole, the second
    // 4-6; chunk 3 (split) and chunk 7 (the second rank's tail and the wells) are terms.
    const long long c = vec::kChunk;
    std::vector<RankHolding> ranks(2);
    ranks[0] = {0, 3 * c + 5, {}};
    ranks[1] = {3 * c + 5, 4 * c + 7 - 5, {7 * c + 7, 7 * c + 8}};
    const JoinPlan plan = make_join_plan(ranks);
    ASSERT_EQ(plan.chunks(), 8);
    for (long long k : {0, 1, 2, 4, 5, 6}) {
        EXPECT_EQ(plan.first[k], plan.first[k + 1]) << "chunk " << k;
    }
    EXPECT_EQ(plan.first[4] - plan.first[3], c);
    EXPECT_EQ(plan.first[8] - plan.first[7], 9);  // 7 cell entries and 2 wells
    EXPECT_EQ(plan.chunk[5].a, plan.offset[1]);
    EXPECT_EQ(plan.chunk[5].k, 1);  // the second rank's second whole chunk
}

TEST(JoinPlan, RanksThatDoNotTileTheEntriesAreRefused) {
    std::vector<RankHolding> gap = {{0, 10, {}}, {11, 5, {}}};
    EXPECT_THROW(make_join_plan(gap), std::invalid_argument);
    std::vector<RankHolding> twice = {{0, 10, {10}}, {10, 5, {10}}};
    EXPECT_THROW(make_join_plan(twice), std::invalid_argument);
    std::vector<RankHolding> inside = {{0, 10, {3}}};
    EXPECT_THROW(make_join_plan(inside), std::invalid_argument);
}

}  // namespace
}  // namespace heptane
