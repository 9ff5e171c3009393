#pragma once
/// @file The canonical reduction of a vector held in contiguous pieces (issue 25: the ranks of
/// a distributed run each hold a slab). A piece reduces alone what it holds whole - the aligned
/// chunks of vec::kChunk entries, subtrees of the canonical tree - and keeps the terms of the
/// chunks it shares with its neighbours; the pieces of any partition of [0, n), combined in
/// index order, give vec::dot()'s bits. So a reduction over 1, 2, 3 or 4 ranks is the
/// one-process reduction, bit for bit, whatever the slab sizes.
#include <array>
#include <cstddef>
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

/// The first i-plane of rank r's slab when nx planes are split over `ranks` (r = ranks: nx),
/// the split of dist::DistributedGH: nx r / ranks; with a granularity g > 1 (spatial blocks of
/// g planes must not be cut) the groups of g planes are split that way instead, g (ceil(nx /
/// g) r / ranks) capped at nx.
inline int slab_first_plane(int nx, int r, int ranks, int g = 1) {
    const long long groups = (static_cast<long long>(nx) + g - 1) / g;
    const long long first = g * (groups * r / ranks);
    return static_cast<int>(first < nx ? first : nx);
}

/// The rank whose slab holds i-plane i (a well's column, hence the well, belongs to it).
inline int slab_of_plane(int nx, int i, int ranks, int g = 1) {
    int r = 0;
    while (r + 1 < ranks && slab_first_plane(nx, r + 1, ranks, g) <= i) ++r;
    return r;
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
    /// Several sums at once (mine[q]: this rank's pieces of sum q); an implementation may
    /// join them in one message.
    virtual std::vector<double> combine_each(
        const std::vector<std::vector<PieceSums>>& mine) const {
        std::vector<double> sums;
        for (const std::vector<PieceSums>& sum : mine) sums.push_back(combine(sum));
        return sums;
    }
};

/// Where the whole global chunks of a rank's cell entries [c0, c0 + cells) lie: [first, last)
/// (chunk boundaries; first >= last when no whole chunk is inside). The entries before first
/// and from last on are kept as terms.
struct ChunkSpan {
    long long first = 0, last = 0;
    long long whole() const { return first < last ? (last - first) / vec::kChunk : 0; }
};
inline ChunkSpan chunk_span(long long c0, long long cells) {
    const long long chunk = vec::kChunk;
    return {(c0 + chunk - 1) / chunk * chunk, (c0 + cells) / chunk * chunk};
}

/// What a rank contributes to Q sums of a fused pass (the CPU computes it in
/// distributed_sums, a GPU rank on its device: gpu/slab_solver.hpp), each array q-major
/// ([q][i]): the sums of the whole chunks of chunk_span(c0, cells), the terms of the cell
/// entries outside them (head: before first, or all of them when there is no whole chunk;
/// tail: from last on) and one term per well row.
struct PassParts {
    int Q = 1;
    std::vector<double> chunks, head, tail, wells;
};

/// The parts of every rank joined: each sum has the bits of the one-process pass over the
/// global vector (collective: every rank calls it).
template <int Q>
std::array<double, Q> combine_parts(const PassParts& parts, const Distribution& dist) {
    const long long c0 = dist.cell_offset(), cells = dist.cells();
    const ChunkSpan span = chunk_span(c0, cells);
    const std::vector<index_t>& well_rows = dist.well_rows();
    const auto per_q = [](const std::vector<double>& v, int q) {
        const std::size_t n = v.size() / Q;
        return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(q * n),
                                   v.begin() + static_cast<std::ptrdiff_t>((q + 1) * n));
    };
    if (parts.Q != Q || parts.wells.size() != Q * well_rows.size() ||
        parts.chunks.size() != static_cast<std::size_t>(Q * span.whole())) {
        throw std::invalid_argument("combine_parts: parts of another pass or rank");
    }
    std::vector<std::vector<PieceSums>> pieces(Q);
    for (int q = 0; q < Q; ++q) {
        pieces[q].resize(1);
        PieceSums& cell = pieces[q][0];
        cell.begin = c0;
        cell.end = c0 + cells;
        cell.head = per_q(parts.head, q);
        cell.tail = per_q(parts.tail, q);
        if (span.whole() > 0) fold_subtrees(span.first / vec::kChunk, per_q(parts.chunks, q), cell);
        // The wells: one piece per run of consecutive global rows (a rank's wells are a few
        // such runs), not one a well: each piece costs a header in the gather and a merge
        // on every rank.
        const std::vector<double> w = per_q(parts.wells, q);
        for (std::size_t j = 0; j < well_rows.size();) {
            std::size_t e = j + 1;
            while (e < well_rows.size() && well_rows[e] == well_rows[e - 1] + 1) ++e;
            const long long first = well_rows[j];
            pieces[q].push_back(piece_sums(
                first, first + static_cast<long long>(e - j),
                [&](long long g) { return w[j + static_cast<std::size_t>(g - first)]; }));
            j = e;
        }
    }
    const std::vector<double> joined = dist.combine_each(pieces);
    std::array<double, Q> sums{};
    for (int q = 0; q < Q; ++q) sums[q] = joined[static_cast<std::size_t>(q)];
    return sums;
}

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
    const index_t nw = static_cast<index_t>(dist.well_rows().size());
    if (n != cells + nw) {
        throw std::invalid_argument("distributed_sums: n is not this rank's cells and wells");
    }
    const ChunkSpan span = chunk_span(c0, cells);
    const long long whole = span.whole();
    const long long head_end = whole > 0 ? span.first : c0 + cells;
    const long long tail_begin = whole > 0 ? span.last : c0 + cells;
    PassParts parts;
    parts.Q = Q;
    parts.head.resize(static_cast<std::size_t>(Q * (head_end - c0)));
    parts.tail.resize(static_cast<std::size_t>(Q * (c0 + cells - tail_begin)));
    parts.chunks.resize(static_cast<std::size_t>(Q * whole));
    parts.wells.resize(static_cast<std::size_t>(Q * nw));
    // Terms of local entries [i0, i1) into `out` (q-major, i1 - i0 per q).
    const auto keep_terms = [&](long long i0, long long i1, std::vector<double>& out) {
        double t[Q];
        for (long long i = i0; i < i1; ++i) {
            body(static_cast<index_t>(i), t);
            for (int q = 0; q < Q; ++q)
                out[static_cast<std::size_t>(q * (i1 - i0) + i - i0)] = t[q];
        }
    };
    keep_terms(0, head_end - c0, parts.head);
#pragma omp parallel for schedule(static) if (whole * chunk >= vec::kParallelMin)
    for (long long c = 0; c < whole; ++c) {
        double out[Q];
        const index_t begin = span.first - c0 + c * chunk;
        vec::chunk_reduce<Q>(begin, begin + chunk, body, out);
        for (int q = 0; q < Q; ++q) parts.chunks[static_cast<std::size_t>(q * whole + c)] = out[q];
    }
    keep_terms(tail_begin - c0, cells, parts.tail);
    keep_terms(cells, cells + nw, parts.wells);
    return combine_parts<Q>(parts, dist);
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
