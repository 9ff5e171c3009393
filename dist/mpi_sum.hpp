#pragma once
/// @file Sums across MPI ranks with the one-process bits (issue 25): each rank reduces its
/// piece of the global index range alone as far as it can (core/base/piece_sums.hpp), the
/// pieces are gathered on every rank and combined in index order, so a dot product over 1, 2, 3
/// or 4 ranks is vec::dot over the whole vector, bit for bit, on every rank. A gather costs the
/// whole chunks' sums (n / 4096 doubles) and at most two chunks of terms per rank.
#include <mpi.h>

#include "core/base/piece_sums.hpp"

namespace heptane::dist {

/// The canonical sum of every rank's piece (their ranges must cover [0, n) once; any order of
/// ranks), the same on every rank of `comm`. std::invalid_argument when they do not cover it.
double allreduce_canonical(const PieceSums& mine, MPI_Comm comm);

}  // namespace heptane::dist
