#pragma once
/// @file Sums across MPI ranks with the one-process bits (issue 25): each rank reduces its
/// piece of the global index range alone as far as it can (core/base/piece_sums.hpp), the
/// pieces are gathered on every rank and combined in index order, so a dot product over 1, 2, 3
/// or 4 ranks is vec::dot over the whole vector, bit for bit, on every rank. A gather costs the
/// whole chunks' sums (n / 4096 doubles) and at most two chunks of terms per rank.
#include <mpi.h>

#include <vector>

#include "core/base/piece_sums.hpp"

namespace heptane::dist {

/// This process's rank in comm, and the number of ranks.
int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

/// A slab's halo exchange with its neighbours along i: `first` (this rank's first owned plane)
/// to rank `below` and `last` to rank `above`, `lo` from below and `hi` from above, `count`
/// doubles each, all four messages in flight at once (MPI_PROC_NULL where there is no
/// neighbour; the buffers are then not touched).
void exchange_planes(const double* first, const double* last, double* lo, double* hi, int count,
                     int below, int above, MPI_Comm comm);

/// Every rank's `mine`, concatenated in rank order, on every rank (Allgatherv).
std::vector<double> allgather(const std::vector<double>& mine, MPI_Comm comm);

/// The canonical sum of every rank's pieces (all ranks' ranges together must cover [0, n)
/// once, in any order), the same on every rank of `comm`. A rank may hold several pieces: its
/// slab's cell rows, and each of its wells' rows, which sit at the end of the global vector.
/// std::invalid_argument when they do not cover the range.
double allreduce_canonical(const std::vector<PieceSums>& mine, MPI_Comm comm);
/// Several canonical sums in one gather: mine[q] are this rank's pieces of sum q; returns the
/// sums. `counts`, when given, keeps every rank's message size between calls (the first call
/// gathers them, later ones reuse them: one collective per call instead of two); every rank
/// must then send a message of the same size each time (a solver's passes over one
/// decomposition do), and std::logic_error says when this rank's does not.
std::vector<double> allreduce_canonical(const std::vector<std::vector<PieceSums>>& mine,
                                        MPI_Comm comm, std::vector<int>* counts = nullptr);
/// One piece per rank.
inline double allreduce_canonical(const PieceSums& mine, MPI_Comm comm) {
    return allreduce_canonical(std::vector<PieceSums>{mine}, comm);
}

}  // namespace heptane::dist
