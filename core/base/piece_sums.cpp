#include "core/base/piece_sums.hpp"

#include <stdexcept>

namespace heptane {

double combine_piece_sums(const std::vector<PieceSums>& pieces) {
    const long long chunk = vec::kChunk;
    std::vector<double> chunks;  // the value of every chunk of [0, n), in order
    std::vector<double> terms;   // the terms of the chunk being assembled from several pieces
    long long next = 0;          // global index the next piece must begin at
    const auto push_terms = [&](const std::vector<double>& t) {
        for (double v : t) {
            terms.push_back(v);
            ++next;
            if (next % chunk == 0) {  // a chunk's terms are complete
                chunks.push_back(canonical::reduce(
                    [&](long long i) { return terms[static_cast<std::size_t>(i)]; }, chunk));
                terms.clear();
            }
        }
    };
    for (const PieceSums& p : pieces) {
        if (p.begin != next || p.end < p.begin) {
            throw std::invalid_argument(
                "combine_piece_sums: the pieces do not cover [0, n) in order");
        }
        push_terms(p.head);
        if (!p.chunk_sums.empty() && (next % chunk != 0 || !terms.empty())) {
            throw std::invalid_argument("combine_piece_sums: a whole chunk off its boundary");
        }
        chunks.insert(chunks.end(), p.chunk_sums.begin(), p.chunk_sums.end());
        next += static_cast<long long>(p.chunk_sums.size()) * chunk;
        push_terms(p.tail);
        if (next != p.end) throw std::invalid_argument("combine_piece_sums: a piece's sizes");
    }
    if (!terms.empty()) {  // the short last chunk
        chunks.push_back(
            canonical::reduce([&](long long i) { return terms[static_cast<std::size_t>(i)]; },
                              static_cast<long long>(terms.size())));
    }
    if (chunks.empty()) return 0.0;
    return canonical::pairwise_sum([&](long long c) { return chunks[static_cast<std::size_t>(c)]; },
                                   static_cast<long long>(chunks.size()));
}

}  // namespace heptane
