#pragma once
/// @file Division of 32-bit unsigned integers by an invariant divisor with a multiply-high
/// and a shift (Granlund & Montgomery 1994; the branch-free "n + 1 bit" form): the GPU
/// kernels find a cell's (i, j, k) without hardware-less integer divisions. Exact for every
/// n < 2^32 and divisor >= 1.
#include <cstdint>

#include "core/base/canonical.hpp"  // HEPTANE_HD

namespace heptane {

struct FastDiv {
    std::uint32_t divisor = 1;
    std::uint32_t magic = 0;
    std::uint32_t shift = 0;

    FastDiv() = default;
    explicit FastDiv(std::uint32_t d) : divisor(d) {
        while ((std::uint64_t{1} << shift) < d) ++shift;  // shift = ceil(log2 d)
        magic = static_cast<std::uint32_t>(
            ((std::uint64_t{1} << 32) * ((std::uint64_t{1} << shift) - d)) / d + 1);
    }

    HEPTANE_HD std::uint32_t div(std::uint32_t n) const {
#if defined(__CUDA_ARCH__)
        const std::uint32_t hi = __umulhi(n, magic);
#else
        const std::uint32_t hi = static_cast<std::uint32_t>((std::uint64_t{n} * magic) >> 32);
#endif
        return static_cast<std::uint32_t>((std::uint64_t{hi} + n) >> shift);
    }
    HEPTANE_HD std::uint32_t mod(std::uint32_t n) const { return n - div(n) * divisor; }
};

}  // namespace heptane
