#pragma once
/// @file BLAS-1 on the host, OpenMP-parallel and deterministic: reductions follow the
/// canonical order of core/base/canonical.hpp (groups of 4 terms, then a pairwise tree), so a
/// dot product gives the same bits for any thread count and the same bits as the GPU
/// solvers.
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

}  // namespace heptane::vec
