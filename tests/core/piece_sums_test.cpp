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

/// One rank of two, for combine_parts: this rank's cells [0, cells) and well rows; the other
/// rank's pieces (the rest of the cells, its well rows one by one) added in combine_each, which
/// also records how many pieces this rank sent for each sum.
class TwoRanks final : public Distribution {
  public:
    TwoRanks(const std::vector<double>& terms, index_t cells, index_t all_cells,
             std::vector<index_t> mine)
        : t_(terms), cells_(cells), all_cells_(all_cells), mine_(std::move(mine)) {}
    index_t cell_offset() const override { return 0; }
    index_t cells() const override { return cells_; }
    const std::vector<index_t>& well_rows() const override { return mine_; }
    double combine(const std::vector<PieceSums>& mine) const override {
        sent = mine.size();
        std::vector<PieceSums> all = mine;
        const auto term = [&](long long g) { return t_[static_cast<std::size_t>(g)]; };
        all.push_back(piece_sums(cells_, all_cells_, term));
        for (index_t g = all_cells_; g < static_cast<index_t>(t_.size()); ++g) {
            if (!std::binary_search(mine_.begin(), mine_.end(), g))
                all.push_back(piece_sums(g, g + 1, term));
        }
        std::sort(all.begin(), all.end(),
                  [](const PieceSums& a, const PieceSums& b) { return a.begin < b.begin; });
        return combine_piece_sums(all);
    }
    mutable std::size_t sent = 0;

  private:
    const std::vector<double>& t_;
    index_t cells_, all_cells_;
    std::vector<index_t> mine_;
};

TEST(PieceSums, ARanksWellsTravelAsRunsOfRows) {
    // 10,000 cell rows, then 5,000 well rows; this rank holds cells [0, 6000) and two runs of
    // well rows, one across the chunk boundary at 12,288: it sends three pieces, and the
    // join has the one-process bits.
    const auto t = test::mixed_terms(15000, 5);
    std::vector<index_t> wells;
    for (index_t g = 10000; g < 13000; ++g) wells.push_back(g);
    for (index_t g = 14000; g < 15000; ++g) wells.push_back(g);
    const TwoRanks dist(t, 6000, 10000, wells);
    PassParts parts;
    parts.Q = 1;
    const ChunkSpan span = chunk_span(0, 6000);
    for (long long c = 0; c < span.whole(); ++c) {
        parts.chunks.push_back(one_process_sum(
            std::vector<double>(t.begin() + c * vec::kChunk, t.begin() + (c + 1) * vec::kChunk)));
    }
    parts.tail.assign(t.begin() + span.last, t.begin() + 6000);
    for (index_t g : wells) parts.wells.push_back(t[static_cast<std::size_t>(g)]);
    EXPECT_TRUE(same_bits(combine_parts<1>(parts, dist)[0], one_process_sum(t)));
    EXPECT_EQ(dist.sent, 3u);  // the cells, and one piece a run of wells
}

}  // namespace
}  // namespace heptane
