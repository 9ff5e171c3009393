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
///    well term; dot products over chunks of kReduceChunk entries, each chunk as kLanes lanes
///    of kLaneTerms strided terms (lane l sums entries l, l + kLanes, ...), the lanes folded by
///    a fixed binary tree (lane l += lane l + w for w = kLanes/2, ..., 1), then the chunk sums
///    added in order. A 256-thread GPU block does one chunk with coalesced loads.
#if defined(__CUDACC__)
#define HEPTANE_HD __host__ __device__
#else
#define HEPTANE_HD
#endif

namespace heptane::canonical {

constexpr int kLanes = 256;
constexpr int kLaneTerms = 16;
constexpr long long kReduceChunk = static_cast<long long>(kLanes) * kLaneTerms;  // 4096

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

/// Folds kLanes lane sums in place by the canonical binary tree; returns lanes[0].
HEPTANE_HD inline double fold_lanes(double* lanes) {
    for (int w = kLanes / 2; w > 0; w /= 2) {
        for (int l = 0; l < w; ++l) lanes[l] = add(lanes[l], lanes[l + w]);
    }
    return lanes[0];
}

}  // namespace heptane::canonical
