#pragma once
/// @file BLAS-1 on the host, OpenMP-parallel and deterministic: reductions sum fixed chunks
/// of kChunk entries in parallel and then the chunk sums in order, so a dot product gives
/// the same bits for any thread count (a solve is reproducible on any machine core count).
#include "core/types.hpp"

namespace heptane::vec {

/// Entries per reduction chunk. Large enough to amortize the parallel loop, small enough
/// that a 1e4-entry vector still spreads over threads.
constexpr index_t kChunk = 4096;

/// Below this many entries loops run serially: a parallel region costs a few microseconds,
/// more than the loop itself on small vectors (and spinning threads hurt when several
/// processes share the cores).
constexpr index_t kParallelMin = 32768;

/// x . y
double dot(const double* x, const double* y, index_t n);
/// ||x||_2
double norm2(const double* x, index_t n);
/// y = a x + y
void axpy(double a, const double* x, double* y, index_t n);
/// y = a x + b y
void axpby(double a, const double* x, double b, double* y, index_t n);
/// z = a x + b y
void waxpby(double a, const double* x, double b, const double* y, double* z, index_t n);
/// x = a x
void scale(double a, double* x, index_t n);
/// y = x
void copy(const double* x, double* y, index_t n);
/// Whether every entry is finite.
bool all_finite(const double* x, index_t n);

}  // namespace heptane::vec
