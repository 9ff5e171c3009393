#pragma once
/// @file The canonical reduction of a vector held in contiguous pieces (issue 25: the ranks of
/// a distributed run each hold a slab). A piece reduces alone what it holds whole - the aligned
/// chunks of vec::kChunk entries, subtrees of the canonical tree - and keeps the terms of the
/// chunks it shares with its neighbours; the pieces of any partition of [0, n), combined in
/// index order, give vec::dot()'s bits. So a reduction over 1, 2, 3 or 4 ranks is the
/// one-process reduction, bit for bit, whatever the slab sizes.
#include <array>
#include <stdexcept>
#include <vector>

#include "core/base/canonical.hpp"
#include "core/base/types.hpp"
#include "core/base/vector_ops.hpp"

namespace heptane {

/// What one piece [begin, end) of the global index range contributes to a canonical sum. The
/// chunks it holds whole are sent as the maximal aligned complete subtrees of the tree over
/// the chunks (a run of c chunks: at most 2 log2(c) values), not one value a chunk.
struct PieceSums {
    long long begin = 0, end = 0;
    std::vector<double> head;  ///< terms of [begin, first chunk boundary >= begin) ∩ piece
    std::vector<double> subtree_sums;  ///< the whole chunks' subtrees, in order
    std::vector<int> subtree_levels;   ///< each one's height: 2^level chunks
    std::vector<double> tail;          ///< terms after the last whole chunk (when there is one)
};

/// The whole chunks c_first, c_first + 1, ... (global chunk indices) with sums chunk_sums as
/// p's subtrees.
void fold_subtrees(long long c_first, const std::vector<double>& chunk_sums, PieceSums& p);

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
    std::vector<double> sums(static_cast<std::size_t>((last - first) / chunk));
#pragma omp parallel for schedule(static) if (last - first >= vec::kParallelMin)
    for (long long c = 0; c < (last - first) / chunk; ++c) {
        const long long base = first + c * chunk;
        sums[static_cast<std::size_t>(c)] =
            canonical::reduce([&](long long i) { return term(base + i); }, chunk);
    }
    fold_subtrees(first / chunk, sums, p);
    for (long long g = last; g < end; ++g) p.tail.push_back(term(g));
    return p;
}

/// How a distributed run splits a solver's vectors (issue 25; dist/ implements it with MPI):
/// this rank's local entries [0, cells) are the global rows [cell_offset, cell_offset + cells)
/// and its local entries cells + j the global rows well_rows[j] (wells sit at the end of the
/// global vector). combine() joins every rank's pieces into the one-process sum.
class Distribution {
  public:
    virtual ~Distribution() = default;
    virtual index_t cell_offset() const = 0;
    virtual index_t cells() const = 0;
    virtual const std::vector<index_t>& well_rows() const = 0;
    /// Every rank's pieces combined in index order (collective: every rank calls it).
    virtual double combine(const std::vector<PieceSums>& mine) const = 0;
};

/// The Q canonical sums of a fused pass over this rank's n local entries (vec::fused_sums'
/// body: element work of entry i and its Q terms), across the ranks of `dist`: each sum has
/// the bits of the one-process pass over the global vector.
template <int Q, class Body>
std::array<double, Q> distributed_sums(index_t n, Body body, const Distribution& dist) {
    // The cell rows: local i is global c0 + i. Whole global chunks are reduced as they are
    // streamed (each entry's body called once); the entries before the first and after the
    // last whole chunk are kept as terms.
    const long long chunk = vec::kChunk;
    const long long c0 = dist.cell_offset(), cells = dist.cells();
    if (n != cells + static_cast<index_t>(dist.well_rows().size())) {
        throw std::invalid_argument("distributed_sums: n is not this rank's cells and wells");
    }
    const long long first = (c0 + chunk - 1) / chunk * chunk, last = (c0 + cells) / chunk * chunk;
    std::array<PieceSums, Q> cell_piece;
    std::array<std::vector<double>, Q> chunk_sums;
    const auto keep_terms = [&](long long g_begin, long long g_end, bool head) {
        double t[Q];
        for (long long g = g_begin; g < g_end; ++g) {
            body(g - c0, t);
            for (int q = 0; q < Q; ++q)
                (head ? cell_piece[q].head : cell_piece[q].tail).push_back(t[q]);
        }
    };
    for (int q = 0; q < Q; ++q) {
        cell_piece[q].begin = c0;
        cell_piece[q].end = c0 + cells;
    }
    if (first >= last) {
        keep_terms(c0, c0 + cells, true);
    } else {
        keep_terms(c0, first, true);
        const long long whole = (last - first) / chunk;
        for (int q = 0; q < Q; ++q) chunk_sums[q].resize(static_cast<std::size_t>(whole));
#pragma omp parallel for schedule(static) if (last - first >= vec::kParallelMin)
        for (long long c = 0; c < whole; ++c) {
            double out[Q];
            const index_t begin = first - c0 + c * chunk;
            vec::chunk_reduce<Q>(begin, begin + chunk, body, out);
            for (int q = 0; q < Q; ++q) chunk_sums[q][static_cast<std::size_t>(c)] = out[q];
        }
        for (int q = 0; q < Q; ++q) fold_subtrees(first / chunk, chunk_sums[q], cell_piece[q]);
        keep_terms(last, c0 + cells, false);
    }
    // The wells' rows: one term each, at their global rows.
    const std::vector<index_t>& wells = dist.well_rows();
    std::array<std::vector<PieceSums>, Q> pieces;
    for (int q = 0; q < Q; ++q) pieces[q].push_back(std::move(cell_piece[q]));
    for (std::size_t j = 0; j < wells.size(); ++j) {
        double t[Q];
        body(cells + static_cast<long long>(j), t);
        for (int q = 0; q < Q; ++q)
            pieces[q].push_back({wells[j], wells[j] + 1, {t[q]}, {}, {}, {}});
    }
    std::array<double, Q> sums{};
    for (int q = 0; q < Q; ++q) sums[q] = dist.combine(pieces[q]);
    return sums;
}

/// vec::fused_sums, or distributed_sums when `dist` is given.
template <int Q, class Body>
std::array<double, Q> sums_over(index_t n, Body body, const Distribution* dist) {
    return dist != nullptr ? distributed_sums<Q>(n, body, *dist) : vec::fused_sums<Q>(n, body);
}

/// The canonical sum of pieces that cover [0, n) in order (each begins where the one before
/// it ends; empty pieces allowed): dot()'s bits for the same terms. std::invalid_argument
/// when they do not.
double combine_piece_sums(const std::vector<PieceSums>& pieces);

}  // namespace heptane
