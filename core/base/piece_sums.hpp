#pragma once
/// @file The canonical reduction of a vector held in contiguous pieces (issue 25: the ranks of
/// a distributed run each hold a slab). A piece reduces alone what it holds whole - the aligned
/// chunks of vec::kChunk entries, subtrees of the canonical tree - and keeps the terms of the
/// chunks it shares with its neighbours; the pieces of any partition of [0, n), combined in
/// index order, give vec::dot()'s bits. So a reduction over 1, 2, 3 or 4 ranks is the
/// one-process reduction, bit for bit, whatever the slab sizes.
#include <vector>

#include "core/base/canonical.hpp"
#include "core/base/types.hpp"
#include "core/base/vector_ops.hpp"

namespace heptane {

/// What one piece [begin, end) of the global index range contributes to a canonical sum.
struct PieceSums {
    long long begin = 0, end = 0;
    std::vector<double> head;        ///< terms of [begin, first chunk boundary >= begin) ∩ piece
    std::vector<double> chunk_sums;  ///< sums of the chunks the piece holds whole, in order
    std::vector<double> tail;        ///< terms after the last whole chunk (when there is one)
};

/// The piece [begin, end) of a sum over global indices, term(g) the term of global index g.
template <class Term>
PieceSums piece_sums(long long begin, long long end, Term term) {
    PieceSums p;
    p.begin = begin;
    p.end = end;
    const long long chunk = vec::kChunk;
    const long long first = (begin + chunk - 1) / chunk * chunk;  // first boundary >= begin
    const long long last = end / chunk * chunk;                   // last boundary <= end
    if (first >= last) {  // no whole chunk inside: every term is the head's
        for (long long g = begin; g < end; ++g) p.head.push_back(term(g));
        return p;
    }
    for (long long g = begin; g < first; ++g) p.head.push_back(term(g));
    p.chunk_sums.resize(static_cast<std::size_t>((last - first) / chunk));
#pragma omp parallel for schedule(static) if (last - first >= vec::kParallelMin)
    for (long long c = 0; c < (last - first) / chunk; ++c) {
        const long long base = first + c * chunk;
        p.chunk_sums[static_cast<std::size_t>(c)] =
            canonical::reduce([&](long long i) { return term(base + i); }, chunk);
    }
    for (long long g = last; g < end; ++g) p.tail.push_back(term(g));
    return p;
}

/// The canonical sum of pieces that cover [0, n) in order (each begins where the one before
/// it ends; empty pieces allowed): dot()'s bits for the same terms. std::invalid_argument
/// when they do not.
double combine_piece_sums(const std::vector<PieceSums>& pieces);

}  // namespace heptane
