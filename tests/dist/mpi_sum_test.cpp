// Sums across MPI ranks (dist/mpi_sum.hpp), run by ctest under mpirun with 1, 2, 3 and 4 ranks:
// every rank holds a slab of a vector every rank can also make whole, and the distributed
// canonical sum must equal vec::dot over the whole vector bit for bit, on every rank, for even
// slabs, uneven ones (a rank with less than a chunk, one with none) and lengths around the
// chunk.
#include "dist/mpi_sum.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/test_systems.hpp"
#include "core/base/vector_ops.hpp"

namespace heptane::dist {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// This rank's slab [begin, end) of n entries split by `weight(r)` (cumulative shares).
std::pair<long long, long long> slab(long long n, int rank, int ranks, double (*weight)(int)) {
    double total = 0.0, before = 0.0;
    for (int r = 0; r < ranks; ++r) {
        if (r < rank) before += weight(r);
        total += weight(r);
    }
    const auto at = [&](double share) { return static_cast<long long>(n * (share / total)); };
    return {at(before), rank + 1 == ranks ? n : at(before + weight(rank))};
}

double even(int) { return 1.0; }
double uneven(int r) { return r == 1 ? 0.0 : (r == 2 ? 0.001 : 1.0 + r); }  // rank 1: nothing

TEST(MpiSum, EveryRankGetsTheOneProcessBits) {
    const MPI_Comm comm = MPI_COMM_WORLD;
    for (std::size_t n : {0, 1, 4095, 4097, 50000, 200003}) {
        const auto t = test::mixed_terms(n, n + 5);
        const std::vector<double> ones(n, 1.0);
        const double whole = vec::dot(t.data(), ones.data(), static_cast<index_t>(n));
        for (auto weight : {even, uneven}) {
            const auto [begin, end] =
                slab(static_cast<long long>(n), rank_of(comm), size_of(comm), weight);
            const PieceSums mine =
                piece_sums(begin, end, [&](long long g) { return t[static_cast<std::size_t>(g)]; });
            const double got = allreduce_canonical(mine, comm);
            EXPECT_TRUE(same_bits(got, whole)) << "n = " << n << " rank " << rank_of(comm) << " of "
                                               << size_of(comm) << ": " << got << " vs " << whole;
        }
    }
}

TEST(MpiSum, SeveralPiecesARankCoverTheRangeTogether) {
    // Cells [0, M) in slabs, then Nw one-entry "well rows" spread over the ranks round robin
    // (a well belongs to the rank of its column, and sits at M + w of the global vector).
    const MPI_Comm comm = MPI_COMM_WORLD;
    const int rank = rank_of(comm), ranks = size_of(comm);
    const long long M = 20000, nw = 7;
    const auto t = test::mixed_terms(static_cast<std::size_t>(M + nw), 77);
    const std::vector<double> ones(t.size(), 1.0);
    const double whole = vec::dot(t.data(), ones.data(), static_cast<index_t>(t.size()));
    const auto term = [&](long long g) { return t[static_cast<std::size_t>(g)]; };
    const auto [begin, end] = slab(M, rank, ranks, even);
    std::vector<PieceSums> mine = {piece_sums(begin, end, term)};
    for (long long w = rank; w < nw; w += ranks) mine.push_back(piece_sums(M + w, M + w + 1, term));
    EXPECT_TRUE(same_bits(allreduce_canonical(mine, comm), whole)) << "rank " << rank;
}

TEST(MpiSum, SeveralSumsInOneGatherWithCachedSizes) {
    // Two sums of different terms in one message, three times with the sizes of the first
    // call kept: each is its one-process sum; a message of another size is refused.
    const MPI_Comm comm = MPI_COMM_WORLD;
    const long long n = 30011;
    const auto [begin, end] = slab(n, rank_of(comm), size_of(comm), uneven);
    std::vector<int> counts;
    for (int round = 0; round < 3; ++round) {
        std::vector<std::vector<PieceSums>> mine;
        std::vector<double> whole;
        for (int q = 0; q < 2; ++q) {
            const auto t = test::mixed_terms(static_cast<std::size_t>(n), 10 * round + q);
            const std::vector<double> ones(t.size(), 1.0);
            whole.push_back(vec::dot(t.data(), ones.data(), static_cast<index_t>(n)));
            mine.push_back({piece_sums(
                begin, end, [&](long long g) { return t[static_cast<std::size_t>(g)]; })});
        }
        const std::vector<double> got = allreduce_canonical(mine, comm, &counts);
        ASSERT_EQ(got.size(), 2u);
        EXPECT_TRUE(same_bits(got[0], whole[0])) << "round " << round;
        EXPECT_TRUE(same_bits(got[1], whole[1])) << "round " << round;
    }
    ASSERT_EQ(counts.size(), static_cast<std::size_t>(size_of(comm)));
    // A message of another size than the kept one: every rank throws before any gather.
    std::vector<std::vector<PieceSums>> other = {
        {piece_sums(begin, end, [](long long) { return 1.0; })}};
    EXPECT_THROW(allreduce_canonical(other, comm, &counts), std::logic_error);
}

}  // namespace
}  // namespace heptane::dist
