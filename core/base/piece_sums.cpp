#include "core/base/piece_sums.hpp"

#include <stdexcept>

namespace heptane {

namespace {

/// A complete subtree of 2^level chunks pushed onto the tree over the chunks where its
/// leaves would be: the same merges, in the same order, as pushing them one by one.
void push_subtree(canonical::PairwiseStack& tree, double v, int level) {
    const long long size = 1LL << level;
    if (tree.count % size != 0) {
        throw std::invalid_argument("combine_piece_sums: a subtree off its alignment");
    }
    tree.count += size;
    for (long long c = tree.count >> level; (c & 1) == 0; c >>= 1)
        v = canonical::add(tree.stack[--tree.depth], v);
    tree.stack[tree.depth++] = v;
}

}  // namespace

void fold_subtrees(long long c_first, const std::vector<double>& chunk_sums, PieceSums& p) {
    const auto n = static_cast<long long>(chunk_sums.size());
    for (long long i = 0; i < n;) {
        int level = 0;  // the largest aligned complete block starting at chunk c_first + i
        while (((c_first + i) % (2LL << level)) == 0 && i + (2LL << level) <= n) ++level;
        const long long size = 1LL << level;
        p.subtree_sums.push_back(canonical::pairwise_sum(
            [&](long long c) { return chunk_sums[static_cast<std::size_t>(i + c)]; }, size));
        p.subtree_levels.push_back(level);
        i += size;
    }
}

double combine_piece_sums(const std::vector<PieceSums>& pieces) {
    const long long chunk = vec::kChunk;
    canonical::PairwiseStack tree{};  // the tree over the chunks of [0, n)
    std::vector<double> terms;      // the terms of the chunk being assembled from several pieces
    long long next = 0;             // global index the next piece must begin at
    const auto push_terms = [&](const std::vector<double>& t) {
        for (double v : t) {
            terms.push_back(v);
            ++next;
            if (next % chunk == 0) {  // a chunk's terms are complete
                tree.push(canonical::reduce(
                    [&](long long i) { return terms[static_cast<std::size_t>(i)]; }, chunk));
                terms.clear();
            }
        }
    };
    for (const PieceSums& p : pieces) {
        if (p.begin != next || p.end < p.begin ||
            p.subtree_sums.size() != p.subtree_levels.size()) {
            throw std::invalid_argument(
                "combine_piece_sums: the pieces do not cover [0, n) in order");
        }
        push_terms(p.head);
        if (!p.subtree_sums.empty() && !terms.empty()) {
            throw std::invalid_argument("combine_piece_sums: a whole chunk off its boundary");
        }
        for (std::size_t k = 0; k < p.subtree_sums.size(); ++k) {
            push_subtree(tree, p.subtree_sums[k], p.subtree_levels[k]);
            next += chunk << p.subtree_levels[k];
        }
        push_terms(p.tail);
        if (next != p.end) throw std::invalid_argument("combine_piece_sums: a piece's sizes");
    }
    if (!terms.empty()) {  // the short last chunk
        tree.push(canonical::reduce([&](long long i) { return terms[static_cast<std::size_t>(i)]; },
                                    static_cast<long long>(terms.size())));
    }
    return tree.count == 0 ? 0.0 : tree.root();
}

}  // namespace heptane
