#pragma once
/// @file A small, portable random number generator. std::*_distribution is not specified
/// bit-for-bit, so a seeded deck would give different fields with another standard library;
/// this generator (xoshiro256** seeded by splitmix64) gives the same numbers everywhere.
/// Streams: Rng(seed, stream) gives independent sequences per cell, so generators can run in
/// parallel and stay reproducible whatever the thread count.
#include <cmath>
#include <cstdint>

namespace heptane {

/// splitmix64 step (Steele, Lea, Flood 2014): a good 64-bit mixer for seeding.
inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// xoshiro256** (Blackman, Vigna 2018).
class Rng {
  public:
    explicit Rng(std::uint64_t seed, std::uint64_t stream = 0) {
        std::uint64_t sm = seed ^ (0xd1b54a32d192ed03ULL * (stream + 1));
        for (auto& word : s_) word = splitmix64(sm);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    /// Uniform in [0, 1), 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Standard normal (Box-Muller; one value per call, the second is discarded for
    /// simplicity of the per-cell streams).
    double normal() {
        const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
        const double u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }

  private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

}  // namespace heptane
