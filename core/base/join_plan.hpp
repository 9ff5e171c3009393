#pragma once
/// @file Joining a fused pass's sums on each GPU instead of through the host (design decision
/// 59). Every rank's PassParts (core/base/piece_sums.hpp: the sums of the global chunks it holds
/// whole, the terms of the entries at its edges, its wells' terms) lie side by side in one
/// buffer that every rank holds a copy of (the GPUs write their parts into each other's copy);
/// the plan says where each global chunk's sum, or each term of a chunk that no rank holds
/// whole, lies in that buffer. Reducing the chunks and then the tree over the chunk sums, as
/// vec::fused_sums does, gives the one-process bits on every rank at once, with no host step.
#include <array>
#include <vector>

#include "core/base/canonical.hpp"
#include "core/base/types.hpp"
#include "core/base/vector_ops.hpp"

namespace heptane {

/// What one rank of a distributed run holds (as its Distribution says): global cell entries
/// [c0, c0 + cells) and the global well rows `well_rows` (after every cell entry).
struct RankHolding {
    long long c0 = 0, cells = 0;
    std::vector<index_t> well_rows;
};

/// Where a value of a pass of Q sums lies in the joined buffer: sum q's at Q a + q b + k.
/// Rank r's parts begin at Q offset[r] and are laid as a GPU rank writes them: the sums of its
/// whole chunks q-major (Q whole), then its loose terms q-major (head, tail, wells: Q count).
struct PartSource {
    long long a = 0, b = 0, k = 0;
};

struct JoinPlan {
    long long n = 0;                ///< global entries: every cell entry, then the wells
    std::vector<long long> offset;  ///< rank r's parts from Q offset[r]; offset[ranks]: the end
    std::vector<PartSource> chunk;  ///< global chunk c's sum where a rank holds c whole
    std::vector<long long> first;   ///< chunk c's terms: terms[first[c], first[c + 1]) (none:
                                    ///< whole), one per entry of the chunk, in order
    std::vector<PartSource> terms;
    long long chunks() const { return static_cast<long long>(chunk.size()); }
};

/// The plan for ranks that tile the cell entries in rank order (each c0 where the one before
/// it ends) and hold the wells between them (every row from the last cell entry on exactly
/// once); std::invalid_argument otherwise.
JoinPlan make_join_plan(const std::vector<RankHolding>& ranks);

/// The Q sums from a joined buffer, as the device computes them (canonical::reduce of each
/// chunk that is not whole, the pairwise tree over the chunk sums): vec::fused_sums's bits.
template <int Q>
std::array<double, Q> join_sums(const JoinPlan& plan, const double* joined) {
    std::array<double, Q> sums{};
    const long long chunks = plan.chunks();
    if (chunks == 0) return sums;
    std::vector<double> chunk_sums(static_cast<std::size_t>(chunks));
    for (int q = 0; q < Q; ++q) {
        const auto at = [&](const PartSource& s) { return joined[Q * s.a + q * s.b + s.k]; };
        for (long long c = 0; c < chunks; ++c) {
            const auto i = static_cast<std::size_t>(c);
            const long long t0 = plan.first[i], t1 = plan.first[i + 1];
            chunk_sums[i] = t0 == t1
                                ? at(plan.chunk[i])
                                : canonical::reduce(
                                      [&](long long t) {
                                          return at(plan.terms[static_cast<std::size_t>(t0 + t)]);
                                      },
                                      t1 - t0);
        }
        sums[static_cast<std::size_t>(q)] = canonical::pairwise_sum(
            [&](long long c) { return chunk_sums[static_cast<std::size_t>(c)]; }, chunks);
    }
    return sums;
}

}  // namespace heptane
