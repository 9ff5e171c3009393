#include "core/base/join_plan.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <string>

#include "core/base/piece_sums.hpp"

namespace heptane {

JoinPlan make_join_plan(const std::vector<RankHolding>& ranks) {
    const long long chunk = vec::kChunk;
    const auto count = static_cast<long long>(ranks.size());
    JoinPlan plan;
    plan.offset.assign(ranks.size() + 1, 0);
    // Each rank's parts as it lays them: its whole chunks' sums, then head, tail and wells.
    struct Layout {
        long long whole_from, whole, head_end, tail_begin, nh, nt, loose;
    };
    std::vector<Layout> at(ranks.size());
    long long cells = 0, wells = 0;
    for (long long r = 0; r < count; ++r) {
        const RankHolding& e = ranks[static_cast<std::size_t>(r)];
        if (e.c0 != cells || e.cells < 0) {
            throw std::invalid_argument("make_join_plan: rank " + std::to_string(r) +
                                        "'s cell entries do not follow the rank before it");
        }
        const ChunkSpan span = chunk_span(e.c0, e.cells);
        Layout& l = at[static_cast<std::size_t>(r)];
        l.whole = span.whole();
        l.whole_from = span.first / chunk;
        l.head_end = l.whole > 0 ? span.first : e.c0 + e.cells;
        l.tail_begin = l.whole > 0 ? span.last : e.c0 + e.cells;
        l.nh = l.head_end - e.c0;
        l.nt = e.c0 + e.cells - l.tail_begin;
        l.loose = l.nh + l.nt + static_cast<long long>(e.well_rows.size());
        plan.offset[static_cast<std::size_t>(r + 1)] =
            plan.offset[static_cast<std::size_t>(r)] + l.whole + l.loose;
        cells += e.cells;
        wells += static_cast<long long>(e.well_rows.size());
    }
    plan.n = cells + wells;
    // Which rank holds each well row, and where among its wells.
    std::map<long long, std::array<long long, 2>> well_at;
    for (long long r = 0; r < count; ++r) {
        const std::vector<index_t>& w = ranks[static_cast<std::size_t>(r)].well_rows;
        for (std::size_t j = 0; j < w.size(); ++j) {
            if (w[j] < cells || w[j] >= plan.n ||
                !well_at.emplace(w[j], std::array<long long, 2>{r, static_cast<long long>(j)})
                     .second) {
                throw std::invalid_argument("make_join_plan: well row " + std::to_string(w[j]) +
                                            " is not one of the rows after the cells, once");
            }
        }
    }
    // Entry g's term: a loose entry of the rank that holds it.
    std::size_t owner = 0;  // the rank of the cell entries, moving forward with g
    const auto term_of = [&](long long g) {
        if (g >= cells) {
            const std::array<long long, 2>& w = well_at.at(g);
            const Layout& l = at[static_cast<std::size_t>(w[0])];
            const long long off = plan.offset[static_cast<std::size_t>(w[0])];
            return PartSource{off + l.whole, l.loose, l.nh + l.nt + w[1]};
        }
        while (g >= ranks[owner].c0 + ranks[owner].cells) ++owner;
        const Layout& l = at[owner];
        const long long k = g < l.head_end ? g - ranks[owner].c0 : l.nh + (g - l.tail_begin);
        return PartSource{plan.offset[owner] + l.whole, l.loose, k};
    };
    const long long chunks = (plan.n + chunk - 1) / chunk;
    plan.chunk.resize(static_cast<std::size_t>(chunks));
    plan.first.assign(static_cast<std::size_t>(chunks + 1), 0);
    std::size_t holder = 0;  // the rank that may hold chunk c whole
    for (long long c = 0; c < chunks; ++c) {
        while (holder + 1 < ranks.size() && at[holder].whole_from + at[holder].whole <= c) {
            ++holder;
        }
        const Layout& l = at[holder];
        if (l.whole > 0 && c >= l.whole_from && c < l.whole_from + l.whole) {
            plan.chunk[static_cast<std::size_t>(c)] = {plan.offset[holder], l.whole,
                                                       c - l.whole_from};
        } else {
            const long long end = std::min(plan.n, (c + 1) * chunk);
            for (long long g = c * chunk; g < end; ++g) plan.terms.push_back(term_of(g));
        }
        plan.first[static_cast<std::size_t>(c + 1)] = static_cast<long long>(plan.terms.size());
    }
    return plan;
}

}  // namespace heptane
