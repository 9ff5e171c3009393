#pragma once
/// @file BLAS-1 on the host, OpenMP-parallel and deterministic: reductions follow the
/// canonical order of core/base/canonical.hpp (groups of 4 terms, then a pairwise tree), so a
/// dot product gives the same bits for any thread count and the same bits as the GPU
/// solvers.
#include <algorithm>
#include <array>
#include <vector>

#include "core/base/canonical.hpp"
#include "core/base/types.hpp"

namespace heptane::vec {

/// Entries per parallel reduction chunk: an aligned subtree of the canonical tree.
constexpr index_t kChunk = 4096;
static_assert(kChunk % canonical::kGroup == 0, "a chunk holds whole groups");

/// Below this many entries loops run serially: a parallel region costs a few microseconds,
/// more than the loop itself on small vectors (and spinning threads hurt when several
/// processes share the cores).
constexpr index_t kParallelMin = 32768;

/// x . y
double dot(const double* x, const double* y, index_t n);
/// ||x||_2
double norm2(const double* x, index_t n);
/// y = y + a x
void axpy(double a, const double* x, double* y, index_t n);
/// y = x + b y
void xpby(const double* x, double b, double* y, index_t n);
/// z = x - a y
void xmay(const double* x, double a, const double* y, double* z, index_t n);
/// y = a x + b y
void axpby(double a, const double* x, double b, double* y, index_t n);
/// x = a x
void scale(double a, double* x, index_t n);
/// y = x
void copy(const double* x, double* y, index_t n);
/// Whether every entry is finite.
bool all_finite(const double* x, index_t n);

/// One pass over [0, n) that updates vectors and reduces: body(i, terms) does the element
/// work of entry i (writing only entry i of its outputs) and sets its Q terms; returns the Q
/// sums of the terms in the canonical order of dot() (aligned chunks of kChunk, groups of 4,
/// the pairwise tree), so each equals, bit for bit, the dot() a separate pass would give.
/// The solvers fuse a vector update with the reductions that read its result (issue 24:
/// a pass saved is n doubles not streamed twice).
/// The Q canonical reductions (canonical::reduce's groups, then the tree) of the terms of
/// entries [begin, end), each entry's body called once, in order: a chunk's sums.
template <int Q, class Body>
void chunk_reduce(index_t begin, index_t end, Body& body, double (&out)[Q]) {
    using canonical::add;
    canonical::PairwiseStack tree[Q] = {};  // zeroed: GCC cannot see a chunk is never empty
    for (index_t g = begin; g < end; g += canonical::kGroup) {
        double group[Q], t[Q];
        body(g, group);
        for (index_t i = g + 1; i < g + canonical::kGroup && i < end; ++i) {
            body(i, t);
            for (int q = 0; q < Q; ++q) group[q] = add(group[q], t[q]);
        }
        for (int q = 0; q < Q; ++q) tree[q].push(group[q]);
    }
    for (int q = 0; q < Q; ++q) out[q] = tree[q].root();
}

template <int Q, class Body>
std::array<double, Q> fused_sums(index_t n, Body body) {
    std::array<double, Q> sums{};
    if (n <= 0) return sums;
    const index_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<double> partial(static_cast<std::size_t>(chunks) * Q);
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (index_t c = 0; c < chunks; ++c) {
        double out[Q];
        chunk_reduce<Q>(c * kChunk, std::min(n, c * kChunk + kChunk), body, out);
        for (int q = 0; q < Q; ++q) partial[static_cast<std::size_t>(q * chunks + c)] = out[q];
    }
    for (int q = 0; q < Q; ++q) {
        const double* pq = partial.data() + static_cast<std::size_t>(q) * chunks;
        sums[q] = canonical::pairwise_sum([=](index_t c) { return pq[c]; }, chunks);
    }
    return sums;
}

}  // namespace heptane::vec
