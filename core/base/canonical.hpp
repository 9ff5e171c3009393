#pragma once
/// @file Canonical arithmetic shared by the CPU reference and the GPU solvers, so that they
/// compute the same bits (DESIGN section 5, docs/design.md "canonical arithmetic").
///
/// Iterative solvers amplify rounding differences: on the SPE10 regression window, changing
/// only the summation order of the dot products moved BiCGStab from 1,325 to 1,514
/// iterations. The reference and the device solvers therefore agree on
///  - every product and sum rounded separately (no fused multiply-add: the device uses the
///    _rn intrinsics, the host is compiled with -ffp-contract=off);
///  - the order of every sum: SpMV rows sequentially over (diagonal d, component c), then the
///    well term; reductions (dot products, norms) as a pairwise tree:
///      * the terms t_0 .. t_{n-1} form groups of kGroup consecutive terms, each summed left
///        to right (g_k = ((t_4k + t_4k+1) + t_4k+2) + t_4k+3; the last group may be short);
///      * the groups are combined by the complete binary tree over their index range, in
///        which node(lo, 2w) = node(lo, w) + node(lo + w, w), or just node(lo, w) when
///        lo + w is past the last group (nothing is ever added for an absent half).
///    Every aligned power-of-two range of groups is a subtree, so any partition of the
///    vector into such ranges - OpenMP chunks, GPU blocks of any size, a persistent kernel's
///    per-block row ranges - computes the same bits (design decision 16).
#if defined(__CUDACC__)
#define HEPTANE_HD __host__ __device__
#else
#define HEPTANE_HD
#endif

namespace heptane::canonical {

/// Consecutive terms summed left to right before the tree (a GPU thread owns one group).
constexpr int kGroup = 4;

/// a * b, rounded (never fused with a following add).
HEPTANE_HD inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

/// a + b, rounded.
HEPTANE_HD inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

/// a - b, rounded.
HEPTANE_HD inline double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

/// acc + a * b with two roundings.
HEPTANE_HD inline double mul_add(double a, double b, double acc) { return add(acc, mul(a, b)); }

/// The canonical pairwise tree over values pushed one at a time: node(lo, 2w) =
/// node(lo, w) + node(lo + w, w) when lo + w < len, else node(lo, w). Holds the complete
/// subtrees so far (the binary representation of the count), so it streams the values once.
struct PairwiseStack {
    double stack[48];  // subtrees of strictly decreasing size: len < 2^48
    int depth = 0;
    long long count = 0;

    HEPTANE_HD void push(double v) {
        for (long long c = ++count; (c & 1) == 0; c >>= 1) v = add(stack[--depth], v);
        stack[depth++] = v;
    }
    /// The tree's root (at least one value pushed): the incomplete right edge, each subtree
    /// the right half of the one before it.
    HEPTANE_HD double root() {
        while (depth > 1) {
            const double right = stack[--depth];
            stack[depth - 1] = add(stack[depth - 1], right);
        }
        return stack[0];
    }
};

/// The canonical pairwise tree over the values load(0) .. load(len - 1) (PairwiseStack), for
/// any loader - a group sum, an array, another block's partial sums. len >= 1.
template <class Load>
HEPTANE_HD inline double pairwise_sum(Load load, long long len) {
    PairwiseStack tree;
    for (long long i = 0; i < len; ++i) tree.push(load(i));
    return tree.root();
}

/// The canonical reduction of the n terms term(0) .. term(n - 1) (0.0 for n = 0): groups of
/// kGroup summed left to right, then the pairwise tree over the groups.
template <class Term>
HEPTANE_HD inline double reduce(Term term, long long n) {
    if (n <= 0) return 0.0;
    auto group = [&](long long g) {
        const long long i = g * kGroup;
        double s = term(i);
        for (long long j = i + 1; j < i + kGroup && j < n; ++j) s = add(s, term(j));
        return s;
    };
    return pairwise_sum(group, (n + kGroup - 1) / kGroup);
}

}  // namespace heptane::canonical
